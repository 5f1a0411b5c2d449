/* The sets and regularizers of the matrix factorization models P1-P8 (paper
 * 002, Section 2) as proximal operators: of varphi + delta_H for the
 * coefficients (step 1/L' of eq. 5), of phi + delta_R for the outliers
 * (eq. 6) and of eta psi + delta_C for the dictionary (Algorithm 1, line
 * 11). All are closed forms, O(k), O(d) and O(dk). */
#include "smf.h"
#include <math.h>
#include <string.h>

static double clamp(double x, double lo, double hi) { return x < lo ? lo : x > hi ? hi : x; }

static double norm2(const double *x, int n)
{
    int one = 1;
    return F77_CALL(dnrm2)(&n, x, &one);
}

void smf_prox_h(const smf_model *M, double *h, double step)
{
    const int k = M->k;
    const double t = step * M->h_lambda;
    switch (M->h_kind) {
    case SMF_H_L1:
        cg_soft_threshold(h, k, t);
        break;
    case SMF_H_RIDGE:                    /* argmin 1/2 (z - x)^2 + t/2 z^2 */
        for (int i = 0; i < k; i++) h[i] /= 1.0 + t;
        break;
    case SMF_H_RIDGE_NONNEG:             /* the same on z >= 0: separable */
        for (int i = 0; i < k; i++) h[i] = h[i] > 0.0 ? h[i] / (1.0 + t) : 0.0;
        break;
    case SMF_H_GROUP: {                  /* block soft thresholding per group */
        int start = 0;
        for (int g = 0; g < M->n_groups; g++) {
            const int end = M->group_end[g];
            const double nrm = norm2(h + start, end - start);
            const double tg = step * M->group_lambda[g];
            const double f = nrm > tg ? 1.0 - tg / nrm : 0.0;
            for (int i = start; i < end; i++) h[i] *= f;
            start = end;
        }
        break;
    }
    case SMF_H_BALL: {
        const double nrm = norm2(h, k);
        if (nrm > 1.0) for (int i = 0; i < k; i++) h[i] /= nrm;
        break;
    }
    case SMF_H_BOX:
        for (int i = 0; i < k; i++) h[i] = clamp(h[i], 0.0, M->h_bound);
        break;
    }
}

/* lambda |r| + delta_[-M', M'] is a convex function of one variable: its
 * prox is the clamp of the soft threshold */
void smf_prox_r(const smf_model *M, double *r)
{
    const int d = M->d;
    switch (M->r_kind) {
    case SMF_R_NONE:
        memset(r, 0, sizeof(double) * d);
        break;
    case SMF_R_L1:
        cg_soft_threshold(r, d, M->r_lambda);
        break;
    case SMF_R_L1_BOX:
        cg_soft_threshold(r, d, M->r_lambda);
        for (int i = 0; i < d; i++) r[i] = clamp(r[i], -M->r_bound, M->r_bound);
        break;
    }
}

/* argmin_{W in C} 1/2 ||W - V||^2 + eta c/2 ||W||^2 = Proj_C(V / (1 + eta c));
 * C is a product over columns. The nonnegative part of the unit ball is a
 * cone cut by a ball centred at its apex: project on the cone, then scale. */
void smf_prox_dict(const smf_model *M, double *W, double eta)
{
    const int d = M->d, k = M->k;
    const double shrink = 1.0 / (1.0 + eta * M->psi_ridge);
    for (int j = 0; j < k; j++) {
        double *w = W + (size_t) j * d;
        if (shrink != 1.0) for (int i = 0; i < d; i++) w[i] *= shrink;
        switch (M->dict_set) {
        case SMF_C_FREE:
            break;
        case SMF_C_NONNEG_L2BALL:
            for (int i = 0; i < d; i++) if (w[i] < 0.0) w[i] = 0.0;
            /* fall through */
        case SMF_C_L2BALL: {
            const double nrm = norm2(w, d);
            if (nrm > 1.0) for (int i = 0; i < d; i++) w[i] /= nrm;
            break;
        }
        case SMF_C_SIMPLEX:
            cg_proj_simplex(w, d, 1.0, w, NULL);
            break;
        }
    }
}

double smf_varphi(const smf_model *M, const double *h)
{
    const int k = M->k;
    double s = 0.0;
    switch (M->h_kind) {
    case SMF_H_L1:
        for (int i = 0; i < k; i++) s += fabs(h[i]);
        return M->h_lambda * s;
    case SMF_H_RIDGE: case SMF_H_RIDGE_NONNEG:
        for (int i = 0; i < k; i++) s += h[i] * h[i];
        return 0.5 * M->h_lambda * s;
    case SMF_H_GROUP: {
        int start = 0;
        for (int g = 0; g < M->n_groups; g++) {
            s += M->group_lambda[g] * norm2(h + start, M->group_end[g] - start);
            start = M->group_end[g];
        }
        return s;
    }
    }
    return 0.0;                          /* indicator terms: h is feasible */
}

double smf_phi(const smf_model *M, const double *r)
{
    if (M->r_kind == SMF_R_NONE) return 0.0;
    double s = 0.0;
    for (int i = 0; i < M->d; i++) s += fabs(r[i]);
    return M->r_lambda * s;
}

double smf_psi(const smf_model *M, const double *W)
{
    if (M->psi_ridge == 0.0) return 0.0;
    const double nrm = norm2(W, M->d * M->k);
    return 0.5 * M->psi_ridge * nrm * nrm;
}
