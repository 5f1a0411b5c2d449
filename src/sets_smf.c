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

/* Euclidean projection of one column onto its part of C. The nonnegative
 * part of the unit ball is a cone cut by a ball centred at its apex:
 * project on the cone, then scale. */
static void project_column(int set, double *w, int d)
{
    switch (set) {
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

/* prox of t/2 (max_i ||w_i||)^2 (rows w_i; C free): rows longer than s are
 * cut to length s, where t s = sum_i (rho_i - s)_+ (rho: the row norms),
 * the stationarity condition in s of sum_i 1/2 (rho_i - s)_+^2 + t/2 s^2;
 * with the norms sorted, s = sum of the j largest / (t + j) for the j at
 * which it falls between the j-th and (j+1)-th largest. */
static void prox_maxrow(double *W, int d, int k, double t, double *rho, double *sorted)
{
    for (int i = 0; i < d; i++) {
        double s = 0.0;
        for (int j = 0; j < k; j++) s += W[i + (size_t) j * d] * W[i + (size_t) j * d];
        rho[i] = sqrt(s);
        sorted[i] = rho[i];
    }
    R_rsort(sorted, d);                  /* ascending */
    double sum = 0.0, s = 0.0;
    for (int j = 1; j <= d; j++) {
        sum += sorted[d - j];
        s = sum / (t + j);
        const double next = j < d ? sorted[d - j - 1] : 0.0;
        if (s >= next) break;
    }
    for (int i = 0; i < d; i++)
        if (rho[i] > s) {
            const double f = s / rho[i];
            for (int j = 0; j < k; j++) W[i + (size_t) j * d] *= f;
        }
}

/* argmin_{w in C_col} 1/2 ||w - v||^2 + eta/2 w'Qw by accelerated projected
 * gradient (the objective is 1-strongly convex and (1 + eta lambda_max(Q))
 * smooth: constant momentum), in place; scratch 3d */
static void prox_quadratic_column(const smf_model *M, double *w, double eta, double *scratch)
{
    const int d = M->d, one = 1;
    const double Lf = 1.0 + eta * M->Q_lmax, rk = sqrt(Lf), mom = (rk - 1.0) / (rk + 1.0);
    const double zero = 0.0;
    double *v = scratch, *z = scratch + d, *g = scratch + 2 * (size_t) d;
    memcpy(v, w, sizeof(double) * d);
    project_column(M->dict_set, w, d);
    memcpy(z, w, sizeof(double) * d);
    for (int it = 0; it < 10000; it++) {
        /* g = (z - v) + eta Q z */
        F77_CALL(dsymv)("U", &d, &eta, M->Q, &d, z, &one, &zero, g, &one FCONE);
        double change = 0.0, size = 0.0;
        for (int i = 0; i < d; i++) g[i] = z[i] - (g[i] + z[i] - v[i]) / Lf;
        project_column(M->dict_set, g, d);
        for (int i = 0; i < d; i++) {
            const double e = g[i] - w[i];
            change += e * e; size += g[i] * g[i];
            z[i] = g[i] + mom * e;
            w[i] = g[i];
        }
        if (change <= M->tol * M->tol * size) break;
    }
}

/* argmin_{W in C} 1/2 ||W - V||^2 + eta psi(W); C is a product over columns.
 * Ridge: Proj_C(V / (1 + eta c)). */
void smf_prox_dict(const smf_model *M, double *W, double eta)
{
    const int d = M->d, k = M->k;
    if (M->psi_maxrow > 0.0 && eta > 0.0) {          /* C free (omrmd) */
        const void *vmax = vmaxget();
        prox_maxrow(W, d, k, eta * M->psi_maxrow, (double *) R_alloc(d, sizeof(double)),
                    (double *) R_alloc(d, sizeof(double)));
        vmaxset(vmax);
    }
    if (M->Q != NULL && eta > 0.0) {
        const void *vmax = vmaxget();
        double *scratch = (double *) R_alloc(3 * (size_t) d, sizeof(double));
        for (int j = 0; j < k; j++) prox_quadratic_column(M, W + (size_t) j * d, eta, scratch);
        vmaxset(vmax);
        return;
    }
    const double shrink = 1.0 / (1.0 + eta * M->psi_ridge);
    for (int j = 0; j < k; j++) {
        double *w = W + (size_t) j * d;
        if (shrink != 1.0) for (int i = 0; i < d; i++) w[i] *= shrink;
        project_column(M->dict_set, w, d);
    }
}

double smf_psi_curvature(const smf_model *M)
{
    return M->psi_ridge + M->psi_maxrow + (M->Q ? M->Q_lmax : 0.0);
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
    const int d = M->d, k = M->k;
    double value = 0.0;
    if (M->psi_ridge > 0.0) {
        const double nrm = norm2(W, d * k);
        value += 0.5 * M->psi_ridge * nrm * nrm;
    }
    if (M->psi_maxrow > 0.0) {
        double top = 0.0;
        for (int i = 0; i < d; i++) {
            double s = 0.0;
            for (int j = 0; j < k; j++) s += W[i + (size_t) j * d] * W[i + (size_t) j * d];
            if (s > top) top = s;
        }
        value += 0.5 * M->psi_maxrow * top;
    }
    if (M->Q != NULL) {
        const void *vmax = vmaxget();
        double *Qw = (double *) R_alloc(d, sizeof(double));
        const int one = 1;
        const double pone = 1.0, zero = 0.0;
        for (int j = 0; j < k; j++) {
            const double *w = W + (size_t) j * d;
            F77_CALL(dsymv)("U", &d, &pone, M->Q, &d, w, &one, &zero, Qw, &one FCONE);
            value += 0.5 * F77_CALL(ddot)(&d, w, &one, Qw, &one);
        }
        vmaxset(vmax);
    }
    return value;
}
