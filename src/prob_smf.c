/* Stochastic matrix factorization (Zhao, Haskell and Feng, paper 002):
 *   min_{W in C} f(W) = g(W) + psi(W),  g(W) = (1/n) sum_j l(y_j, W),
 * l the minimum over (h, r) in H x R of l~_2 = 1/2 ||y - W h - r||^2 +
 * varphi(h) + phi(r) (sub-problem (2); loss (1) when R = {0}). The columns
 * y_j of the d x n data are dense or CSC. Every column read is solved by
 * BSUM (eqs. 5-6) and only the sums A = sum h h' and B = sum (y - r) h' of
 * the solutions are kept: the gradient (7) summed over those columns is
 * W A - B (Remark 2), so memory is O(dk + k^2) plus the data, never
 * O(nk). The smf table (stochcg.h) serves vr (Algorithm 1), smm (Alg. S-2)
 * and sgd (Alg. S-3). The trace's objective is f(W) from a full pass; its
 * gap a scale-free stationarity measure from the norm of the proximal
 * gradient mapping Gamma_{f', eta}(W) of Theorem 1 (smf_evaluate; the
 * problem is not convex, there is no duality gap). */
#include "smf.h"
#include "prob_sampler.h"
#include <math.h>
#include <string.h>
#include <float.h>

/* ------------------------------------------------------------ BSUM */
void smf_work_alloc(smf_work *w, int d, int k)
{
    w->h = cg_zeros(k); w->hnew = cg_zeros(k); w->Wty = cg_zeros(k);
    w->Wtr = cg_zeros(k); w->g = cg_zeros(k);
    w->r = cg_zeros(d); w->Wh = cg_zeros(d); w->res = cg_zeros(d);
    w->hess = cg_zeros((size_t) k * k); w->dir = cg_zeros(k);
    w->diag = cg_zeros(k); w->full = cg_zeros(k);
    w->free_of = (int *) R_alloc(k, sizeof(int));
}

int smf_lambda_max(const double *A, int k, double *value, double *scratch)
{
    /* LAPACK's workspace comes from R_alloc: released here, as this runs
     * once per step */
    const void *vmax = vmaxget();
    double *X = scratch, *z = scratch + (size_t) k * k;   /* k x k, k x 1 */
    double *w = (double *) R_alloc(k, sizeof(double));   /* dsyevr: all k */
    memcpy(X, A, sizeof(double) * k * k);
    const int st = cg_lapack_syevr(X, k, k, k, w, z);
    *value = st == CG_OK ? (w[0] > 0.0 ? w[0] : 0.0) : NA_REAL;
    vmaxset(vmax);
    return st;
}

int smf_gram(const smf_model *M, const double *W, double *WtW, double *Lp, double *scratch)
{
    const int d = M->d, k = M->k;
    const double one = 1.0, zero = 0.0;
    F77_CALL(dgemm)("T", "N", &k, &k, &d, &one, W, &d, W, &d, &zero, WtW, &k FCONE FCONE);
    return smf_lambda_max(WtW, k, Lp, scratch);
}

static double dot(const double *x, const double *y, int n)
{
    int one = 1;
    return F77_CALL(ddot)(&n, x, &one, y, &one);
}

/* W' y, dense or sparse */
static void wt_column(const smf_model *M, const double *W, const smf_column *y, double *out)
{
    const int d = M->d, k = M->k, one = 1;
    if (y->dense) {
        const double a = 1.0, b = 0.0;
        F77_CALL(dgemv)("T", &d, &k, &a, W, &d, y->x, &one, &b, out, &one FCONE);
        return;
    }
    for (int c = 0; c < k; c++) {
        const double *w = W + (size_t) c * d;
        double s = 0.0;
        for (int a = 0; a < y->nnz; a++) s += w[y->i[a]] * y->x[a];
        out[c] = s;
    }
}

/* out = y - W h */
static void column_residual(const smf_model *M, const double *W, const smf_column *y,
                            const double *h, double *out)
{
    const int d = M->d, k = M->k, one = 1;
    const double mone = -1.0, zero = 0.0;
    F77_CALL(dgemv)("N", &d, &k, &mone, W, &d, h, &one, &zero, out, &one FCONE);
    if (y->dense) for (int i = 0; i < d; i++) out[i] += y->x[i];
    else for (int a = 0; a < y->nnz; a++) out[y->i[a]] += y->x[a];
}

/* F(h) = sum_i e_phi(y_i - w_i'h) + varphi(h) with e = y - W h and p =
 * prox_{phi + delta_R}(e) left in e, p */
static double envelope_value(const smf_model *M, const double *W, const smf_column *y,
                             const double *h, double *e, double *p)
{
    const int d = M->d;
    column_residual(M, W, y, h, e);
    memcpy(p, e, sizeof(double) * d);
    smf_prox_r(M, p);
    double s = 0.0;
    for (int i = 0; i < d; i++) { const double q = e[i] - p[i]; s += q * q; }
    return 0.5 * s + smf_phi(M, p) + smf_varphi(M, h);
}

/* Sub-problem (2) when H is a box lo <= h <= hi (R^k: orpca, olrr; the
 * nonnegative orthant: onmf, ssodl; [0, M]^k: ornmf) and varphi = lambda/2
 * ||h||^2 (lambda = 0 for ornmf). Minimizing r out in closed form leaves
 * the k-dimensional
 *   F(h) = sum_i e_phi(y_i - w_i'h) + lambda/2 ||h||^2  over the box,
 * e_phi the Moreau envelope of phi + delta_R (Huber's function for the l1
 * norm; 1/2 e^2 when R = {0}), with gradient g = lambda h - W'(e - p), p =
 * prox(e), and the piecewise constant generalized Hessian lambda I + W'DW,
 * D_ii = 1 where prox has slope 0 at e_i (p_i = 0, or p_i clipped by the
 * box of R). BSUM (5)-(6) is projected gradient on F with step 1/||W||^2
 * and converges at F's condition number: on the Synth data of Section 5.1
 * ~95% of the orpca columns and all the ornmf ones took over 200 rounds
 * for 1e-6. Here: Bertsekas' projected Newton (the Newton step on the
 * coordinates not held at a bound by their gradient, a gradient step
 * scaled by the Hessian's diagonal on the others, Armijo backtracking
 * along the projection arc), which ends once D and the active bounds
 * settle (F is piecewise quadratic): a few steps, each O(d k^2). Returns 0
 * when a Newton system is singular (lambda = 0 and W'DW singular on the
 * free coordinates): the caller then uses BSUM. */
/* F at h for newton_box: from e = y - W h and p (left in e, p), or, with
 * R = {0}, from the Gram matrix WtW and Wty up to the constant ||y||^2 / 2
 * (O(k^2), no pass over the d entries) */
static double newton_value(const smf_model *M, const double *W, const double *WtW,
                           const smf_column *y, const double *h, smf_work *w, int gram)
{
    if (!gram) return envelope_value(M, W, y, h, w->res, w->r);
    const int k = M->k, one = 1;
    const double pone = 1.0, zero = 0.0;
    F77_CALL(dsymv)("U", &k, &pone, WtW, &k, h, &one, &zero, w->Wtr, &one FCONE);
    double s = 0.0;
    for (int c = 0; c < k; c++) s += h[c] * (0.5 * w->Wtr[c] - w->Wty[c]);
    return s + smf_varphi(M, h);
}

static int newton_box(const smf_model *M, const double *W, const double *WtW, double Lp,
                      const smf_column *y, smf_work *w, int *iters)
{
    const int gram = M->r_kind == SMF_R_NONE;   /* D = I: the Hessian is W'W + lambda I */
    /* mu I added to the Hessian: where most entries of e are outliers
     * (from h = 0, say) W'DW is nearly singular and, with lambda = 0
     * (ornmf), the Newton step would be huge; mu = 1e-4 ||W||^2 bounds the
     * system's condition number by 1e4 and, near the minimizer (D the
     * inliers, W'DW well conditioned), costs a linear rate of about
     * mu / (mu + its smallest eigenvalue) */
    const double mu = 1e-4 * Lp;
    const int d = M->d, k = M->k, one = 1;
    const double lambda = M->h_kind == SMF_H_BOX ? 0.0 : M->h_lambda, mone = -1.0, zero = 0.0;
    const double lo = M->h_kind == SMF_H_RIDGE ? -INFINITY : 0.0;
    const double hi = M->h_kind == SMF_H_BOX ? M->h_bound : INFINITY;
    double *h = w->h, *trial = w->hnew, *e = w->res, *p = w->r, *g = w->g, *q = w->Wh;
    double *dir = w->dir, *diag = w->diag, *full = w->full;
    int *free_of = w->free_of;
    memset(h, 0, sizeof(double) * k);
    if (gram) wt_column(M, W, y, w->Wty);
    double F = newton_value(M, W, WtW, y, h, w, gram);
    int it;
    for (it = 1; it <= M->max_iter; it++) {
        /* g = lambda h - W'(e - p); with R = {0}: W'W h - W'y + lambda h */
        if (gram) {
            const double pone = 1.0;
            F77_CALL(dsymv)("U", &k, &pone, WtW, &k, h, &one, &zero, g, &one FCONE);
            for (int c = 0; c < k; c++) g[c] += lambda * h[c] - w->Wty[c];
        } else {
            for (int i = 0; i < d; i++) q[i] = e[i] - p[i];
            F77_CALL(dgemv)("T", &d, &k, &mone, W, &d, q, &one, &zero, g, &one FCONE);
            for (int c = 0; c < k; c++) g[c] += lambda * h[c];
        }
        /* the projected gradient's size sets how close to a bound counts as on it */
        double pg = 0.0;
        for (int c = 0; c < k; c++) {
            const double z = fmin(fmax(h[c] - g[c], lo), hi) - h[c];
            pg += z * z;
        }
        if (pg == 0.0) break;                     /* h is the minimizer */
        const double eps = fmin(sqrt(pg), 1e-3);
        int nf = 0;
        for (int c = 0; c < k; c++) {
            const int held = (h[c] <= lo + eps && g[c] > 0.0) || (h[c] >= hi - eps && g[c] < 0.0);
            if (!held) free_of[nf++] = c;
        }
        /* upper triangle of lambda I + sum_{D_ii = 1} w_i w_i' on the free
         * coordinates (nf x nf), and the full diagonal */
        memset(w->hess, 0, sizeof(double) * k * k);
        for (int c = 0; c < k; c++) diag[c] = lambda + mu;
        if (gram) {
            for (int c = 0; c < k; c++) diag[c] += WtW[c + (size_t) c * k];
            for (int b = 0; b < nf; b++)
                for (int a = 0; a <= b; a++)
                    w->hess[a + (size_t) b * nf] =
                        WtW[free_of[a] + (size_t) free_of[b] * k];
        }
        for (int i = 0; i < (gram ? 0 : d); i++) {
            if (p[i] != 0.0 && !(fabs(p[i]) >= M->r_bound)) continue;
            for (int c = 0; c < k; c++) {
                const double wc = W[i + (size_t) c * d];
                diag[c] += wc * wc;
            }
            for (int b = 0; b < nf; b++) {
                const double wb = W[i + (size_t) free_of[b] * d];
                if (wb == 0.0) continue;
                double *col = w->hess + (size_t) b * nf;
                for (int a = 0; a <= b; a++) col[a] += W[i + (size_t) free_of[a] * d] * wb;
            }
        }
        for (int b = 0; b < nf; b++) {
            w->hess[b + (size_t) b * nf] += lambda + mu;
            dir[b] = -g[free_of[b]];
        }
        int info = 0;
        if (nf > 0) F77_CALL(dposv)("U", &nf, &one, w->hess, &nf, dir, &nf, &info FCONE);
        if (info != 0) return 0;
        /* the direction: Newton's on the free coordinates (dir, packed),
         * the diagonally scaled gradient's on the held ones */
        for (int c = 0; c < k; c++) full[c] = diag[c] > 0.0 ? -g[c] / diag[c] : -g[c];
        for (int b = 0; b < nf; b++) full[free_of[b]] = dir[b];
        double t = 1.0, Fnew = F;
        int accepted = 0;
        for (int ls = 0; ls < 40; ls++, t *= 0.5) {
            double decrease = 0.0;                 /* g'(h - h(t)) >= 0 */
            for (int c = 0; c < k; c++) {
                trial[c] = fmin(fmax(h[c] + t * full[c], lo), hi);
                decrease += g[c] * (h[c] - trial[c]);
            }
            Fnew = newton_value(M, W, WtW, y, trial, w, gram);
            /* Armijo along the arc, with room for rounding at the minimizer */
            if (Fnew <= F - 1e-4 * decrease + 1e-15 * fabs(F)) { accepted = 1; break; }
        }
        if (!accepted) {
            /* no decrease left: converged if a BSUM step (projected
             * gradient, step 1/Lp) would be within the tolerance, else a
             * failure (the caller then uses BSUM) */
            double size2 = 0.0;
            for (int c = 0; c < k; c++) size2 += h[c] * h[c];
            if (pg > M->tol * M->tol * size2 * Lp * Lp) return 0;
            if (!gram) envelope_value(M, W, y, h, e, p);
            break;
        }
        double step2 = 0.0, size2 = 0.0;
        for (int c = 0; c < k; c++) {
            const double s = trial[c] - h[c];
            step2 += s * s; size2 += trial[c] * trial[c];
            h[c] = trial[c];
        }
        F = Fnew;
        if (step2 <= M->tol * M->tol * size2) break;
    }
    if (it > M->max_iter) it = M->max_iter;
    *iters = it;
    return 1;
}

/* odl's lasso min 1/2 h'W'Wh - h'W'y + lambda ||h||_1 on the support and
 * signs of w->h: solve W_A'W_A h_A = W_A'y - lambda sign(h_A) (Cholesky);
 * accepted (into w->h, w->g updated) only if it keeps the signs and
 * |(W'W h - W'y)_j| <= lambda off the support: then h is the exact minimizer
 * (the KKT conditions hold). Returns 1 if accepted. */
static int lasso_support(const smf_model *M, const double *WtW, smf_work *w)
{
    const int k = M->k, one = 1;
    const double lam = M->h_lambda;
    int na = 0, info = 0;
    for (int c = 0; c < k; c++) {
        if (w->h[c] == 0.0) continue;
        int b = 0;
        for (int a = 0; a < k; a++) {
            if (w->h[a] == 0.0) continue;
            w->hess[b + (size_t) na * k] = WtW[a + (size_t) c * k];
            b++;
        }
        w->dir[na++] = w->Wty[c] - (w->h[c] > 0.0 ? lam : -lam);
    }
    if (na > 0) {
        F77_CALL(dposv)("U", &na, &one, w->hess, &k, w->dir, &na, &info FCONE);
        if (info != 0) return 0;
    }
    /* the candidate in w->full; signs kept? */
    int b = 0;
    for (int c = 0; c < k; c++) {
        w->full[c] = 0.0;
        if (w->h[c] == 0.0) continue;
        const double x = w->dir[b++];
        if (!(w->h[c] > 0.0 ? x > 0.0 : x < 0.0)) return 0;
        w->full[c] = x;
    }
    /* the gradient there, and the off-support conditions */
    for (int a = 0; a < k; a++) {
        double g = -w->Wty[a];
        for (int c = 0; c < k; c++) if (w->full[c] != 0.0) g += WtW[a + (size_t) c * k] * w->full[c];
        w->diag[a] = g;
        if (w->full[a] == 0.0 && fabs(g) > lam * (1.0 + 1e-9)) return 0;
    }
    memcpy(w->h, w->full, sizeof(double) * k);
    memcpy(w->g, w->diag, sizeof(double) * k);
    return 1;
}

double smf_solve_column(const smf_model *M, const double *W, const double *WtW, double Lp,
                        const smf_column *y, smf_work *w, int *iters)
{
    const int d = M->d, k = M->k, one = 1, robust = M->r_kind != SMF_R_NONE;
    const double pone = 1.0, mone = -1.0, zero = 0.0;
    memset(w->h, 0, sizeof(double) * k);
    memset(w->r, 0, sizeof(double) * d);
    memset(w->Wtr, 0, sizeof(double) * k);
    int it = 0;
    const int boxed = M->h_kind == SMF_H_RIDGE || M->h_kind == SMF_H_RIDGE_NONNEG ||
                      M->h_kind == SMF_H_BOX;
    if (boxed && Lp > 0.0 && newton_box(M, W, WtW, Lp, y, w, &it)) {
        /* w->h, w->r set */
    } else if (M->h_kind == SMF_H_L1 && !robust && Lp > 0.0) {
        /* odl: a lasso in k coordinates, by cyclic coordinate descent on the
         * Gram W'W (a sweep costs O(k^2), as one proximal gradient step),
         * and, after a sweep that left the support and signs as they were,
         * the exact solve on them (lasso_support): accepted when the KKT
         * conditions hold, which ends the loop. Proximal gradient (step
         * 1/||W||^2) and coordinate descent alone slow down with W'W's
         * condition number: both stopped at 200 rounds for 92-100% of the
         * columns where atoms are alike (cosines 0.95 on tissue data). Else
         * until the relative change of h over a sweep is below the
         * tolerance */
        wt_column(M, W, y, w->Wty);
        for (int c = 0; c < k; c++) w->g[c] = -w->Wty[c];   /* W'W h - W'y, h = 0 */
        const double lam = M->h_lambda;
        int tried = 0;                     /* the support solve failed on these signs */
        for (it = 1; it <= M->max_iter; it++) {
            double dh = 0.0, nh = 0.0;
            int moved = 0;                 /* support or signs changed */
            for (int c = 0; c < k; c++) {
                const double q = WtW[c + (size_t) c * k];
                double hc = 0.0;
                if (q > 0.0) {
                    const double z = w->h[c] - w->g[c] / q, t = lam / q;
                    hc = z > t ? z - t : (z < -t ? z + t : 0.0);
                }
                const double e = hc - w->h[c];
                if ((hc > 0.0) != (w->h[c] > 0.0) || (hc < 0.0) != (w->h[c] < 0.0)) moved = 1;
                if (e != 0.0) {
                    const double *col = WtW + (size_t) c * k;
                    for (int a = 0; a < k; a++) w->g[a] += col[a] * e;
                    w->h[c] = hc;
                }
                dh += e * e; nh += hc * hc;
            }
            if (dh <= M->tol * M->tol * nh) break;
            /* the solve depends on the signs only: once per sign pattern */
            if (moved) tried = 0;
            else if (!tried) {
                if (lasso_support(M, WtW, w)) break;
                tried = 1;
            }
        }
        if (it > M->max_iter) it = M->max_iter;
    } else if (Lp > 0.0) {
        memset(w->h, 0, sizeof(double) * k);
        memset(w->r, 0, sizeof(double) * d);
        memset(w->Wtr, 0, sizeof(double) * k);
        wt_column(M, W, y, w->Wty);
        const double step = 1.0 / Lp;
        for (it = 1; it <= M->max_iter; it++) {
            /* (5): h+ = prox_{varphi/L' + delta_H}(h - (W'W h + W'r - W'y) / L') */
            F77_CALL(dsymv)("U", &k, &pone, WtW, &k, w->h, &one, &zero, w->g, &one FCONE);
            double dh = 0.0, nh = 0.0;
            for (int c = 0; c < k; c++)
                w->hnew[c] = w->h[c] - step * (w->g[c] + w->Wtr[c] - w->Wty[c]);
            smf_prox_h(M, w->hnew, step);
            for (int c = 0; c < k; c++) {
                const double e = w->hnew[c] - w->h[c];
                dh += e * e; nh += w->hnew[c] * w->hnew[c];
                w->h[c] = w->hnew[c];
            }
            double dr = 0.0, nr = 0.0;
            if (robust) {
                /* (6): r+ = prox_{phi + delta_R}(y - W h+) */
                F77_CALL(dgemv)("N", &d, &k, &pone, W, &d, w->h, &one, &zero, w->Wh, &one FCONE);
                for (int i = 0; i < d; i++) w->res[i] = -w->Wh[i];
                if (y->dense) for (int i = 0; i < d; i++) w->res[i] += y->x[i];
                else for (int a = 0; a < y->nnz; a++) w->res[y->i[a]] += y->x[a];
                smf_prox_r(M, w->res);
                for (int i = 0; i < d; i++) {
                    const double e = w->res[i] - w->r[i];
                    dr += e * e; nr += w->res[i] * w->res[i];
                }
                memcpy(w->r, w->res, sizeof(double) * d);
                F77_CALL(dgemv)("T", &d, &k, &pone, W, &d, w->r, &one, &zero, w->Wtr, &one FCONE);
            }
            if (dh <= M->tol * M->tol * nh && dr <= M->tol * M->tol * nr) break;
        }
        if (it > M->max_iter) it = M->max_iter;
    } else {
        /* W = 0: the loss no longer depends on h */
        smf_prox_h(M, w->h, 1.0);
        if (robust) {
            if (y->dense) memcpy(w->r, y->x, sizeof(double) * d);
            else for (int a = 0; a < y->nnz; a++) w->r[y->i[a]] = y->x[a];
            smf_prox_r(M, w->r);
        }
    }
    if (iters) *iters = it;
    /* the residual y - W h - r, exactly (no cancellation in ||y||^2 - ...) */
    F77_CALL(dgemv)("N", &d, &k, &mone, W, &d, w->h, &one, &zero, w->res, &one FCONE);
    if (y->dense) for (int i = 0; i < d; i++) w->res[i] += y->x[i];
    else for (int a = 0; a < y->nnz; a++) w->res[y->i[a]] += y->x[a];
    if (robust) for (int i = 0; i < d; i++) w->res[i] -= w->r[i];
    return 0.5 * dot(w->res, w->res, d) + smf_varphi(M, w->h) + smf_phi(M, w->r);
}

void smf_accumulate(const smf_model *M, const smf_column *y, const smf_work *w,
                    double *A, double *B)
{
    const int d = M->d, k = M->k, one = 1;
    const double pone = 1.0, mone = -1.0;
    F77_CALL(dger)(&k, &k, &pone, w->h, &one, w->h, &one, A, &k);
    if (y->dense) {
        F77_CALL(dger)(&d, &k, &pone, y->x, &one, w->h, &one, B, &d);
    } else {
        for (int c = 0; c < k; c++) {
            const double hc = w->h[c];
            if (hc == 0.0) continue;
            double *b = B + (size_t) c * d;
            for (int a = 0; a < y->nnz; a++) b[y->i[a]] += y->x[a] * hc;
        }
    }
    if (M->r_kind != SMF_R_NONE)
        F77_CALL(dger)(&d, &k, &mone, w->r, &one, w->h, &one, B, &d);
}

void smf_gradient_from_stats(const smf_model *M, const double *W, const double *A,
                             const double *B, double count, double *G)
{
    const int d = M->d, k = M->k;
    const double pone = 1.0, zero = 0.0;
    F77_CALL(dgemm)("N", "N", &d, &k, &k, &pone, W, &d, A, &k, &zero, G, &d FCONE FCONE);
    const size_t dk = (size_t) d * k;
    for (size_t a = 0; a < dk; a++) G[a] = (G[a] - B[a]) / count;
}

/* ------------------------------------------------------------ model */
void smf_model_from_spec(smf_model *M, SEXP spec, int d, int k)
{
    M->d = d; M->k = k;
    M->dict_set = asInteger(cg_list_get(spec, "dict_set"));
    M->h_kind = asInteger(cg_list_get(spec, "h_kind"));
    M->r_kind = asInteger(cg_list_get(spec, "r_kind"));
    if (M->dict_set < SMF_C_FREE || M->dict_set > SMF_C_NONNEG_L2BALL ||
        M->h_kind < SMF_H_L1 || M->h_kind > SMF_H_BOX ||
        M->r_kind < SMF_R_NONE || M->r_kind > SMF_R_L1_BOX)
        error("spec: unknown dictionary set, coefficient or outlier model");
    M->psi_ridge = asReal(cg_list_get(spec, "psi_ridge"));
    M->psi_maxrow = asReal(cg_list_get(spec, "psi_maxrow"));
    if (ISNAN(M->psi_maxrow)) M->psi_maxrow = 0.0;     /* absent */
    M->Q = NULL; M->Q_lmax = 0.0;
    if (cg_list_get(spec, "Q") != R_NilValue) {
        M->Q = cg_spec_real(spec, "Q", (R_xlen_t) d * d);
        double *scratch = cg_zeros(2 * (size_t) d * d);
        if (smf_lambda_max(M->Q, d, &M->Q_lmax, scratch) != CG_OK)
            error("spec: the eigenvalues of Q could not be computed");
    }
    M->h_lambda = asReal(cg_list_get(spec, "h_lambda"));
    M->h_bound = asReal(cg_list_get(spec, "h_bound"));
    M->r_lambda = asReal(cg_list_get(spec, "r_lambda"));
    M->r_bound = asReal(cg_list_get(spec, "r_bound"));
    M->tol = asReal(cg_list_get(spec, "bsum_tol"));
    M->max_iter = asInteger(cg_list_get(spec, "bsum_max_iter"));
    if (!(M->psi_ridge >= 0) || !(M->h_lambda >= 0) || !(M->r_lambda >= 0) ||
        !(M->tol >= 0) || M->max_iter < 1 || M->max_iter == NA_INTEGER ||
        (M->h_kind == SMF_H_BOX && !(M->h_bound > 0)) ||
        (M->r_kind == SMF_R_L1_BOX && !(M->r_bound > 0)) || !(M->psi_maxrow >= 0) ||
        (M->psi_ridge > 0) + (M->psi_maxrow > 0) + (M->Q != NULL) > 1 ||
        (M->psi_maxrow > 0 && M->dict_set != SMF_C_FREE))
        error("spec: invalid model parameters");
    M->n_groups = 0; M->group_end = NULL; M->group_lambda = NULL;
    if (M->h_kind == SMF_H_GROUP) {
        SEXP ge = cg_list_get(spec, "group_end");
        M->n_groups = LENGTH(ge);
        M->group_end = cg_spec_index(spec, "group_end", -1, 1, k);
        M->group_lambda = cg_spec_real(spec, "group_lambda", M->n_groups);
        for (int g = 0; g < M->n_groups; g++)
            if ((g > 0 && M->group_end[g] <= M->group_end[g - 1]) ||
                !(M->group_lambda[g] >= 0))
                error("spec: groups must be increasing with nonnegative weights");
        if (M->n_groups < 1 || M->group_end[M->n_groups - 1] != k)
            error("spec: the groups must cover the k coefficients");
    }
}

/* ------------------------------------------------------------ problem */
typedef struct {
    smf_model M;
    int d, n, k, sparse;
    const double *Y;                     /* dense d x n */
    const int *Yp, *Yi; const double *Yx; /* CSC */
    double *W, *WtW, Lp;                 /* the iterate and its Gram */
    double *W0, *WtW0, Lp0, *G0;         /* vr snapshot and its full gradient */
    double *A, *B, *A0, *B0;             /* minibatch sums at W and at W0 */
    double *Asum, *Bsum, nsum;           /* smm: A_t, B_t and their column count */
    double *V, *G, *T, *U;               /* gradient estimate; scratch */
    double *Wout;                        /* option I: the kept iterate */
    int reservoir, output_in_W;          /* option I used; W and Wout swapped for
                                            the output (Wout the last iterate) */
    int *perm, *batch, nb;               /* sampling without replacement */
    int sparse_fetch;                    /* the reader returns CSC columns */
    int blocked;                         /* data read by a reader in blocks of
                                            columns: the block sampler below */
    cg_block_sampler bs;
    double curv, columns, last_step, gap_eta;
    double gap_ref, mapping_norm;        /* f_ref = ||Y||_F^2 / (2n), from the
                                            first evaluation; ||Gamma(W)||_F */
    SEXP rcall, rho;                     /* data function: the call Y(idx), built in R */
    double bsum_mean, bsum_capped;       /* at the last evaluation: mean BSUM
                                            iterations, share at the cap */
    double outliers;                     /* at the last evaluation: nonzero
                                            outlier entries r_ij (robust models) */
    double calls;
    double ftol, snap_obj, snap_change;  /* vr's stop on a flat objective: f at
                                            the last snapshot, its relative change
                                            since the one before (NA: none yet) */
    int flat;                            /* consecutive snapshots within ftol */
    double *eig_scratch;
    smf_work w;
} smf;

static smf_column column_of(const smf *S, int j)
{
    smf_column c;
    if (!S->sparse) {
        c.dense = 1; c.x = S->Y + (size_t) j * S->d; c.i = NULL; c.nnz = S->d;
    } else {
        c.dense = 0; c.x = S->Yx + S->Yp[j]; c.i = S->Yi + S->Yp[j];
        c.nnz = S->Yp[j + 1] - S->Yp[j];
    }
    return c;
}

/* ---- the user's data function Y(idx), called through cg_call_user_matrix:
 * an R error or a Ctrl-C inside it stops the run with the last complete
 * iterate instead of losing the fit */

/* Y(idx + 1) for `count` 0-based indices: a PROTECTed d x count double
 * matrix (the caller unprotects it), or R_NilValue with the failure
 * recorded */
static SEXP fetch_columns(cg_problem *P, smf *S, const int *idx, int start, int count)
{
    SEXP ix = PROTECT(allocVector(INTSXP, count));
    for (int a = 0; a < count; a++) INTEGER(ix)[a] = (idx ? idx[start + a] : start + a) + 1;
    SETCADR(S->rcall, ix);
    char which[96];
    snprintf(which, sizeof which, "its call %.0f by the solver (%d columns)", ++S->calls, count);
    SEXP x = cg_call_user_matrix(P, S->rcall, S->rho, S->d, count, "the data function `Y(idx)`",
                                 which);
    if (x == R_NilValue) {
        UNPROTECT(1);
        return R_NilValue;
    }
    UNPROTECT(2);                        /* ix, x: re-protect x alone */
    PROTECT(x);
    return x;
}

/* ---- a reader's sparse blocks (R/readers.R, spec$Y_sparse): the call
 * returns the columns idx as list(p, i, x), their CSC arrays (0-based),
 * so that sparse data read from a file are solved as sparse columns */
typedef struct { SEXP call, rho; } smf_call;

static SEXP smf_call_body(void *data)
{
    smf_call *c = (smf_call *) data;
    return eval(c->call, c->rho);
}

/* the CSC columns as a PROTECTed list(p, i, x) (the caller unprotects it),
 * or R_NilValue with the failure recorded */
static SEXP fetch_sparse_columns(cg_problem *P, smf *S, const int *idx, int start, int count)
{
    SEXP ix = PROTECT(allocVector(INTSXP, count));
    for (int a = 0; a < count; a++) INTEGER(ix)[a] = (idx ? idx[start + a] : start + a) + 1;
    SETCADR(S->rcall, ix);
    smf_call c = { S->rcall, S->rho };
    int caught;
    PutRNGstate();
    SEXP res = PROTECT(cg_try(smf_call_body, &c, &caught));
    GetRNGstate();
    S->calls += 1.0;
    if (caught == CG_ERR_INTERRUPT || (caught == CG_OK && cg_interrupted())) {
        cg_fail_status(P, CG_ERR_INTERRUPT, NULL);
        UNPROTECT(2);
        return R_NilValue;
    }
    if (caught == CG_ERR_R) {
        SEXP msg = cg_list_get(res, "message");
        cg_fail(P, "the reader of `Y` failed: %s",
                isString(msg) && LENGTH(msg) > 0 ? CHAR(STRING_ELT(msg, 0)) : "");
        UNPROTECT(2);
        return R_NilValue;
    }
    SEXP pp = TYPEOF(res) == VECSXP && LENGTH(res) == 3 ? VECTOR_ELT(res, 0) : R_NilValue,
         ii = pp != R_NilValue ? VECTOR_ELT(res, 1) : R_NilValue,
         xx = pp != R_NilValue ? VECTOR_ELT(res, 2) : R_NilValue;
    int ok = TYPEOF(pp) == INTSXP && TYPEOF(ii) == INTSXP && TYPEOF(xx) == REALSXP &&
             XLENGTH(pp) == count + 1 && XLENGTH(ii) == XLENGTH(xx) && INTEGER(pp)[0] == 0 &&
             INTEGER(pp)[count] == XLENGTH(ii);
    for (int a = 0; ok && a < count; a++) ok = INTEGER(pp)[a] <= INTEGER(pp)[a + 1];
    for (R_xlen_t a = 0; ok && a < XLENGTH(ii); a++)
        ok = INTEGER(ii)[a] >= 0 && INTEGER(ii)[a] < S->d;
    if (!ok) {
        cg_fail(P, "the reader of `Y` returned an invalid sparse block");
        UNPROTECT(2);
        return R_NilValue;
    }
    if (!cg_all_finite(REAL(xx), (size_t) XLENGTH(xx))) {
        cg_fail(P, "the reader of `Y` returned NA, NaN or Inf");
        UNPROTECT(2);
        return R_NilValue;
    }
    UNPROTECT(2);                        /* ix, res: re-protect res alone */
    PROTECT(res);
    return res;
}

/* a point W at which columns are solved, with the sums it collects */
typedef struct {
    const double *W, *WtW; double Lp; double *A, *B;
    double loss, iters, capped;          /* sums: BSUM iterations, columns at the cap */
    double outliers;                     /* nonzero entries of the outliers r */
    double ysq;                          /* sum of ||y_j||^2 over the columns solved */
} smf_point;

/* Solves the columns idx (all n when idx is NULL) at each of the points,
 * summing A, B and the losses; each column is read once (an R data
 * function is called once per batch, or per 1024 columns of a full pass).
 * Polls for Ctrl-C. Returns CG_OK, or a failure recorded in P. */
static int solve_columns(cg_problem *P, smf *S, const int *idx, int count, smf_point *pt,
                         int npt)
{
    const int k = S->k, d = S->d;
    for (int q = 0; q < npt; q++) {
        memset(pt[q].A, 0, sizeof(double) * k * k);
        memset(pt[q].B, 0, sizeof(double) * d * k);
        pt[q].loss = 0.0; pt[q].iters = 0.0; pt[q].capped = 0.0; pt[q].ysq = 0.0;
        pt[q].outliers = 0.0;
    }
    const int chunk = S->rcall != R_NilValue ? 1024 : count;
    for (int start = 0; start < count; start += chunk) {
        const int len = count - start < chunk ? count - start : chunk;
        SEXP block = R_NilValue;
        if (S->rcall != R_NilValue) {
            block = S->sparse_fetch ? fetch_sparse_columns(P, S, idx, start, len)
                                    : fetch_columns(P, S, idx, start, len);
            if (block == R_NilValue) return CG_ERR_R;
        }
        for (int a = start; a < start + len; a++) {
            smf_column y;
            if (block != R_NilValue && S->sparse_fetch) {
                const int *bp = INTEGER(VECTOR_ELT(block, 0)), o = bp[a - start];
                y.dense = 0; y.x = REAL(VECTOR_ELT(block, 2)) + o;
                y.i = INTEGER(VECTOR_ELT(block, 1)) + o; y.nnz = bp[a - start + 1] - o;
            } else if (block != R_NilValue) {
                y.dense = 1; y.x = REAL(block) + (size_t) (a - start) * d; y.i = NULL; y.nnz = d;
            } else {
                y = column_of(S, idx ? idx[a] : a);
            }
            pt[0].ysq += dot(y.x, y.x, y.nnz);
            for (int q = 0; q < npt; q++) {
                int it;
                pt[q].loss += smf_solve_column(&S->M, pt[q].W, pt[q].WtW, pt[q].Lp, &y, &S->w,
                                               &it);
                pt[q].iters += it;
                pt[q].capped += it >= S->M.max_iter;
                if (S->M.r_kind != SMF_R_NONE)
                    for (int i = 0; i < d; i++) pt[q].outliers += S->w.r[i] != 0.0;
                smf_accumulate(&S->M, &y, &S->w, pt[q].A, pt[q].B);
            }
            if (a % 256 == 255 && cg_interrupt_poll()) {
                if (block != R_NilValue) UNPROTECT(1);
                cg_fail_status(P, CG_ERR_INTERRUPT, NULL);
                return CG_ERR_INTERRUPT;
            }
        }
        if (block != R_NilValue) UNPROTECT(1);
    }
    return CG_OK;
}

/* the iterate and the snapshot as points */
static smf_point at_iterate(smf *S, double *A, double *B)
{
    smf_point p = { S->W, S->WtW, S->Lp, A, B, 0.0, 0.0, 0.0, 0.0, 0.0 };
    return p;
}
static smf_point at_snapshot(smf *S)
{
    smf_point p = { S->W0, S->WtW0, S->Lp0, S->A0, S->B0, 0.0, 0.0, 0.0, 0.0, 0.0 };
    return p;
}

/* b distinct columns, uniformly (a partial Fisher-Yates shuffle) */
static void draw_batch(smf *S, int b)
{
    if (b > S->n) b = S->n;
    if (S->blocked) {            /* a reader's blocks: a block-shuffle, epoch after epoch */
        for (int i = 0; i < b; i++) {
            int j = cg_block_sampler_next(&S->bs);
            if (j < 0) {
                cg_block_sampler_advance(&S->bs);
                j = cg_block_sampler_next(&S->bs);
            }
            S->batch[i] = S->bs.cur * S->bs.bsize + j;
        }
        S->nb = b;
        return;
    }
    for (int i = 0; i < b; i++) {
        const int j = i + (int) R_unif_index((double) (S->n - i));
        const int t = S->perm[i]; S->perm[i] = S->perm[j]; S->perm[j] = t;
        S->batch[i] = S->perm[i];
    }
    S->nb = b;
}

static void refresh_gram(cg_problem *P, smf *S)
{
    cg_fail_status(P, smf_gram(&S->M, S->W, S->WtW, &S->Lp, S->eig_scratch),
                   "the dictionary's spectral norm (LAPACK)");
}

static void set_curvature(cg_problem *P, smf *S, const double *A, double count)
{
    const int k = S->k;
    double *T = S->eig_scratch + 2 * (size_t) k * k;   /* A / count */
    for (int a = 0; a < k * k; a++) T[a] = A[a] / count;
    double lmax = NA_REAL;
    cg_fail_status(P, smf_lambda_max(T, k, &lmax, S->eig_scratch), "the step size (LAPACK)");
    S->curv = lmax + smf_psi_curvature(&S->M);
}

static int check_gradient(cg_problem *P, const smf *S, const double *G)
{
    if (cg_all_finite(G, (size_t) S->d * S->k)) return 0;
    cg_fail(P, "the dictionary's gradient " CG_OVERFLOW_HINT);
    return 1;
}

static double smf_snapshot(cg_problem *P)
{
    smf *S = (smf *) P->self;
    const size_t dk = (size_t) S->d * S->k;
    memcpy(S->W0, S->W, sizeof(double) * dk);
    memcpy(S->WtW0, S->WtW, sizeof(double) * S->k * S->k);
    S->Lp0 = S->Lp;
    smf_point pt = at_snapshot(S);
    if (solve_columns(P, S, NULL, S->n, &pt, 1) != CG_OK) return S->n;
    S->columns += S->n;
    /* f(W0) from the same sub-problems (what an evaluation would find) */
    const double obj = pt.loss / S->n + smf_psi(&S->M, S->W0);
    if (R_FINITE(S->snap_obj) && R_FINITE(obj)) {
        S->snap_change = (S->snap_obj - obj) / fmax(fabs(S->snap_obj), DBL_MIN);
        S->flat = S->ftol > 0.0 && fabs(S->snap_change) <= S->ftol ? S->flat + 1 : 0;
    }
    S->snap_obj = obj;
    smf_gradient_from_stats(&S->M, S->W0, S->A0, S->B0, (double) S->n, S->G0);
    check_gradient(P, S, S->G0);
    set_curvature(P, S, S->A0, (double) S->n);
    return S->n;
}

/* V = (1/b) sum_{j in batch} [grad l(y_j, W) - grad l(y_j, W0)] + G0 */
static void vr_estimate(cg_problem *P, smf *S)
{
    const size_t dk = (size_t) S->d * S->k;
    smf_point pt[2] = { at_snapshot(S), at_iterate(S, S->A, S->B) };
    if (solve_columns(P, S, S->batch, S->nb, pt, 2) != CG_OK) return;
    smf_gradient_from_stats(&S->M, S->W, S->A, S->B, (double) S->nb, S->V);
    smf_gradient_from_stats(&S->M, S->W0, S->A0, S->B0, (double) S->nb, S->T);
    for (size_t a = 0; a < dk; a++) S->V[a] += S->G0[a] - S->T[a];
}

static double smf_vr_gradient(cg_problem *P, int batch)
{
    smf *S = (smf *) P->self;
    draw_batch(S, batch);
    vr_estimate(P, S);
    S->columns += S->nb;
    check_gradient(P, S, S->V);
    return 2.0 * S->nb;
}

static double smf_minibatch(cg_problem *P, int batch)
{
    smf *S = (smf *) P->self;
    draw_batch(S, batch);
    smf_point pt = at_iterate(S, S->A, S->B);
    if (solve_columns(P, S, S->batch, S->nb, &pt, 1) != CG_OK) return S->nb;
    S->columns += S->nb;
    smf_gradient_from_stats(&S->M, S->W, S->A, S->B, (double) S->nb, S->V);
    check_gradient(P, S, S->V);
    set_curvature(P, S, S->A, (double) S->nb);
    return S->nb;
}

static int smf_prox_step(cg_problem *P, double eta)
{
    smf *S = (smf *) P->self;
    const size_t dk = (size_t) S->d * S->k;
    for (size_t a = 0; a < dk; a++) S->W[a] -= eta * S->V[a];
    smf_prox_dict(&S->M, S->W, eta);
    S->last_step = eta;
    refresh_gram(P, S);
    return CG_OK;
}

/* The surrogate of Alg. S-2, line 7 when psi couples the entries of a
 * column (quadratic: ssodl, olrr) or the columns (max row norm: omrmd):
 * accelerated proximal gradient (FISTA) from the current W, the quadratic
 * psi in the smooth part (step 1 / (lambda_max(A) / N + lambda_max(Q))),
 * the max-row-norm psi and C in the prox, until the relative change is
 * below the BSUM tolerance (at most 500 iterations). */
static int surrogate_fista(cg_problem *P, smf *S)
{
    const int d = S->d, k = S->k;
    const size_t dk = (size_t) d * k;
    const double N = S->nsum, pone = 1.0;
    double lA;
    cg_fail_status(P, smf_lambda_max(S->Asum, k, &lA, S->eig_scratch), "the surrogate's step");
    if (P->stop) return CG_OK;
    const double Lf = lA / N + (S->M.Q ? S->M.Q_lmax : 0.0);
    if (!(Lf > 0.0)) return CG_OK;
    const double step = 1.0 / Lf;
    smf_model nonsmooth = S->M;          /* psi's nonsmooth part and C */
    nonsmooth.Q = NULL;
    double *Z = S->T, *G = S->G, *Wprev = S->U, theta = 1.0;
    memcpy(Z, S->W, sizeof(double) * dk);
    for (int it = 0; it < 500; it++) {
        /* G = (Z A - B) / N + Q Z */
        smf_gradient_from_stats(&S->M, Z, S->Asum, S->Bsum, N, G);
        if (S->M.Q)
            F77_CALL(dgemm)("N", "N", &d, &k, &d, &pone, S->M.Q, &d, Z, &d, &pone, G, &d
                            FCONE FCONE);
        memcpy(Wprev, S->W, sizeof(double) * dk);
        for (size_t a = 0; a < dk; a++) S->W[a] = Z[a] - step * G[a];
        smf_prox_dict(&nonsmooth, S->W, step);
        const double theta_next = 0.5 * (1.0 + sqrt(1.0 + 4.0 * theta * theta));
        const double mom = (theta - 1.0) / theta_next;
        double change = 0.0, size = 0.0;
        for (size_t a = 0; a < dk; a++) {
            const double e = S->W[a] - Wprev[a];
            change += e * e; size += S->W[a] * S->W[a];
            Z[a] = S->W[a] + mom * e;
        }
        theta = theta_next;
        if (change <= S->M.tol * S->M.tol * size) break;
    }
    refresh_gram(P, S);
    return CG_OK;
}

/* Alg. S-2, line 7 with psi: min over W in C of
 *   (1/N) (1/2 tr(W'W A) - tr(W'B)) + c/2 ||W||^2
 * by exact block coordinate descent over columns (C is a product over
 * columns and each block's quadratic is isotropic, so a block minimizer is
 * the projection of the unconstrained one), sweeps until the relative
 * change is below the BSUM tolerance (at most 50). */
static int smf_surrogate_step(cg_problem *P)
{
    smf *S = (smf *) P->self;
    const int d = S->d, k = S->k, one = 1;
    const size_t dk = (size_t) d * k;
    for (int a = 0; a < k * k; a++) S->Asum[a] += S->A[a];
    for (size_t a = 0; a < dk; a++) S->Bsum[a] += S->B[a];
    S->nsum += S->nb;
    if (S->M.Q != NULL || S->M.psi_maxrow > 0.0) return surrogate_fista(P, S);
    const double c = S->nsum * S->M.psi_ridge, pone = 1.0, zero = 0.0;
    smf_model col = S->M;                /* the set C for one column */
    col.k = 1; col.psi_ridge = 0.0;
    double *u = S->T;
    for (int sweep = 0; sweep < 50; sweep++) {
        double change = 0.0, size = 0.0;
        for (int j = 0; j < k; j++) {
            const double ajj = S->Asum[j + (size_t) j * k], denom = ajj + c;
            if (!(denom > 0.0)) continue;      /* an atom no column has used yet */
            double *w = S->W + (size_t) j * d;
            F77_CALL(dgemv)("N", &d, &k, &pone, S->W, &d, S->Asum + (size_t) j * k, &one,
                            &zero, u, &one FCONE);
            const double *b = S->Bsum + (size_t) j * d;
            for (int i = 0; i < d; i++) u[i] = (b[i] - u[i] + w[i] * ajj) / denom;
            smf_prox_dict(&col, u, 0.0);
            for (int i = 0; i < d; i++) {
                const double e = u[i] - w[i];
                change += e * e; size += u[i] * u[i];
            }
            memcpy(w, u, sizeof(double) * d);
        }
        if (change <= S->M.tol * S->M.tol * size) break;
    }
    refresh_gram(P, S);
    return CG_OK;
}

static double smf_curvature(cg_problem *P) { return ((smf *) P->self)->curv; }

static void smf_output(cg_problem *P, double count, int use)
{
    smf *S = (smf *) P->self;
    const size_t dk = (size_t) S->d * S->k;
    S->reservoir = 1;
    if (use) {
        /* swapped, not copied: the last iterate stays, for a resumed fit */
        double *last = S->W;
        S->W = S->Wout; S->Wout = last;
        S->output_in_W = 1;
        refresh_gram(P, S);
    } else if (count <= 1 || unif_rand() * count < 1.0) {
        memcpy(S->Wout, S->W, sizeof(double) * dk);
    }
}

/* f(W) and the stationarity measure from one pass over the data: the norm
 * of the proximal gradient mapping ||Gamma_{f', eta}(W)||_F = ||W -
 * prox_{eta psi + delta_C}(W - eta grad g(W))||_F / eta (eta fixed at the
 * first evaluation: the given step, else 1 / curvature there) times ||W||_F,
 * over f_ref = ||Y||_F^2 / (2n): the rate at which a first-order step could
 * still lower f per relative change of W, in units of the objective of the
 * zero dictionary. Gamma alone has the units of the data and of W (6.6e8 on
 * raw expression data); the ratio is invariant to scaling Y and to trading
 * scale between W and the coefficients. Trace-only work: it leaves the
 * solver's statistics alone. */
static void smf_evaluate(cg_problem *P, double *obj, double *gap)
{
    smf *S = (smf *) P->self;
    const size_t dk = (size_t) S->d * S->k;
    const int k = S->k;
    double *A = S->Asum + (size_t) k * k, *B = S->Bsum + dk;
    smf_point pt = at_iterate(S, A, B);
    if (solve_columns(P, S, NULL, S->n, &pt, 1) != CG_OK) {
        *obj = NA_REAL; *gap = NA_REAL;
        return;
    }
    const double loss = pt.loss;
    if (!(S->gap_ref > 0.0)) S->gap_ref = 0.5 * pt.ysq / S->n;
    S->bsum_mean = pt.iters / S->n;
    S->bsum_capped = pt.capped / S->n;
    S->outliers = pt.outliers;
    *obj = loss / S->n + smf_psi(&S->M, S->W);
    smf_gradient_from_stats(&S->M, S->W, A, B, (double) S->n, S->G);
    if (!(S->gap_eta > 0.0)) {
        const double saved = S->curv;
        set_curvature(P, S, A, (double) S->n);
        S->gap_eta = S->curv > 0.0 ? 1.0 / S->curv : 1.0;
        S->curv = saved;
    }
    const double eta = S->gap_eta;
    double *Z = S->T;
    for (size_t a = 0; a < dk; a++) Z[a] = S->W[a] - eta * S->G[a];
    smf_prox_dict(&S->M, Z, eta);
    double s = 0.0, w2 = 0.0;
    for (size_t a = 0; a < dk; a++) {
        const double e = S->W[a] - Z[a];
        s += e * e;
        w2 += S->W[a] * S->W[a];
    }
    S->mapping_norm = sqrt(s) / eta;
    /* zero data: every column's loss is 0 and f_ref is no scale */
    *gap = S->mapping_norm * sqrt(w2) / (S->gap_ref > 0.0 ? S->gap_ref : 1.0);
}

static double smf_epoch(cg_problem *P)
{
    smf *S = (smf *) P->self;
    return S->columns / S->n;
}

static long smf_n_matvec(cg_problem *P) { (void) P; return 0; }

/* two outer iterations in a row within ftol: one small change can be a
 * turn of a non-monotone run (vr's objective is not monotone) */
static int smf_flat(cg_problem *P) { return ((smf *) P->self)->flat >= 2; }

static const cg_smf_ops smf_table = {
    smf_snapshot, smf_vr_gradient, smf_minibatch, smf_prox_step, smf_surrogate_step,
    smf_curvature, smf_output, smf_flat
};

/* What a fit resumed by init = had carried (state_* of cg_smf_solution;
 * R checked that it belongs to these data and settings), else a fresh
 * start: the sampler's order, the columns read, vr's snapshot within an
 * outer iteration (the loop's position, P->loop.pos > 0), smm's sums,
 * option I's kept iterate. Called on a problem with W set. */
static void smf_restore(smf *S, const cg_problem *P, SEXP spec)
{
    const int d = S->d, n = S->n, k = S->k;
    const size_t dk = (size_t) d * k;
    if (isNull(cg_list_get(spec, "state_perm")))
        for (int j = 0; j < n; j++) S->perm[j] = j;
    else
        memcpy(S->perm, cg_spec_index(spec, "state_perm", n, 0, n - 1), sizeof(int) * n);
    S->columns = cg_spec_scalar(spec, "state_columns", 0.0);
    if (!(S->columns >= 0.0)) error("spec: invalid state_columns");
    if (P->loop.pos > 0) {
        /* the snapshot's Gram matrix is recomputed as it was taken */
        memcpy(S->W0, cg_spec_real(spec, "state_W0", (R_xlen_t) dk), sizeof(double) * dk);
        memcpy(S->G0, cg_spec_real(spec, "state_G0", (R_xlen_t) dk), sizeof(double) * dk);
        if (smf_gram(&S->M, S->W0, S->WtW0, &S->Lp0, S->eig_scratch) != CG_OK)
            error("the resumed snapshot's spectral norm (LAPACK) failed");
    }
    if (!isNull(cg_list_get(spec, "state_A"))) {
        memcpy(S->Asum, cg_spec_real(spec, "state_A", (R_xlen_t) k * k),
               sizeof(double) * k * k);
        memcpy(S->Bsum, cg_spec_real(spec, "state_B", (R_xlen_t) dk), sizeof(double) * dk);
        S->nsum = cg_spec_scalar(spec, "state_count", 0.0);
    }
    if (!isNull(cg_list_get(spec, "state_Wout")))
        memcpy(S->Wout, cg_spec_real(spec, "state_Wout", (R_xlen_t) dk), sizeof(double) * dk);
}

/* spec: d, n, k, Y (dense, double d x n) or Yp, Yi, Yx (CSC, 0-based), W
 * (the start, d x k, in C), the model fields (smf_model_from_spec),
 * gap_eta (<= 0: automatic) and a resumed fit's state_* (smf_restore) */
int cg_problem_smf(cg_problem *P, SEXP spec)
{
    smf *S = (smf *) R_alloc(1, sizeof(smf));
    memset(S, 0, sizeof(smf));
    S->d = asInteger(cg_list_get(spec, "d"));
    S->n = asInteger(cg_list_get(spec, "n"));
    S->k = asInteger(cg_list_get(spec, "k"));
    const int d = S->d, n = S->n, k = S->k;
    if (d < 1 || n < 1 || k < 1 || d == NA_INTEGER || n == NA_INTEGER || k == NA_INTEGER)
        error("spec: d, n and k must be positive");
    const size_t dk = (size_t) d * k;
    smf_model_from_spec(&S->M, spec, d, k);
    S->sparse = cg_list_get(spec, "Yp") != R_NilValue;
    S->rcall = cg_list_get(spec, "Y_call");
    S->rho = cg_list_get(spec, "env");
    if (S->rcall != R_NilValue) {
        if (TYPEOF(S->rcall) != LANGSXP || TYPEOF(S->rho) != ENVSXP)
            error("spec: Y_call must be a call and env an environment");
    } else if (S->sparse) {
        S->Yp = cg_spec_pointers(spec, "Yp", n, XLENGTH(cg_list_get(spec, "Yx")));
        S->Yi = cg_spec_index(spec, "Yi", -1, 0, d - 1);
        S->Yx = cg_spec_real(spec, "Yx", XLENGTH(cg_list_get(spec, "Yi")));
    } else {
        S->Y = cg_spec_real(spec, "Y", (R_xlen_t) d * n);
    }
    const double *W_init = cg_spec_real(spec, "W", (R_xlen_t) dk);
    S->gap_eta = asReal(cg_list_get(spec, "gap_eta"));
    SEXP ftol = cg_list_get(spec, "smf_ftol");
    S->ftol = isNull(ftol) ? 0.0 : asReal(ftol);
    if (!(S->ftol >= 0.0)) error("spec: smf_ftol must be >= 0");
    S->snap_obj = NA_REAL; S->snap_change = NA_REAL;
    S->W = cg_zeros(dk); S->W0 = cg_zeros(dk); S->G0 = cg_zeros(dk);
    S->B = cg_zeros(dk); S->B0 = cg_zeros(dk);
    S->Bsum = cg_zeros(2 * dk);          /* second half: the evaluation's */
    S->V = cg_zeros(dk); S->G = cg_zeros(dk); S->T = cg_zeros(dk);            /* dk >= d */
    S->Wout = cg_zeros(dk); S->U = cg_zeros(dk);
    S->WtW = cg_zeros((size_t) k * k); S->WtW0 = cg_zeros((size_t) k * k);
    S->A = cg_zeros((size_t) k * k); S->A0 = cg_zeros((size_t) k * k);
    S->Asum = cg_zeros(2 * (size_t) k * k);
    S->eig_scratch = cg_zeros(3 * (size_t) k * k);
    S->perm = (int *) R_alloc(n, sizeof(int));
    S->batch = (int *) R_alloc(n, sizeof(int));
    /* a reader (R/readers.R): minibatches by the block sampler (blocks of
     * block_cols columns in random order, columns in random order within
     * a block), so that each block is read once per pass */
    if (!isNull(cg_list_get(spec, "block_cols"))) {
        const int bc = asInteger(cg_list_get(spec, "block_cols"));
        if (bc == NA_INTEGER || bc < 1) error("spec: invalid block_cols");
        S->blocked = 1;
        cg_block_sampler_init(&S->bs, n, bc, CG_SAMPLE_SHUFFLE, 1);
        /* a test (a full evaluation) reads every block: at most one per
         * pass the minibatches draw (solve_run.c), set by n and the batch
         * alone, so that memory and file readers stop alike */
        const int b = asInteger(cg_list_get(spec, "batch_inner"));
        if (b != NA_INTEGER && b > 0) P->test_every_min = (int) (((double) n + b - 1) / b);
    }
    SEXP ysp = cg_list_get(spec, "Y_sparse");
    S->sparse_fetch = S->rcall != R_NilValue && !isNull(ysp) && asLogical(ysp) == TRUE;
    smf_work_alloc(&S->w, d, k);
    memcpy(S->W, W_init, sizeof(double) * dk);
    memcpy(S->Wout, W_init, sizeof(double) * dk);
    S->curv = NA_REAL;
    smf_restore(S, P, spec);

    P->self = S;
    P->evaluate = smf_evaluate;
    P->epoch = smf_epoch;
    P->n_matvec = smf_n_matvec;
    P->smf = &smf_table;
    P->gap_relative = 1;
    P->eval_free = 0.05;     /* a trace to plot even for a fit of 0.05 s */
    refresh_gram(P, S);
    if (P->stop) error("the starting dictionary: %s", P->failure);
    return CG_OK;
}

/* a copy of x (nrow x ncol) as an R matrix, into out[i] */
static void put_matrix(SEXP out, int i, const double *x, int nrow, int ncol)
{
    SEXP m = allocMatrix(REALSXP, nrow, ncol);
    SET_VECTOR_ELT(out, i, m);
    memcpy(REAL(m), x, sizeof(double) * nrow * ncol);
}

SEXP cg_smf_solution(cg_problem *P)
{
    smf *S = (smf *) P->self;
    const int d = S->d, k = S->k;
    /* state_*: what a fit continued by init = needs (smf_restore); NULL
     * where this run has none */
    static const char *names[] = {"W", "step", "gap_step", "bsum_iterations", "bsum_capped",
                                  "mapping_norm", "gap_reference", "state_perm",
                                  "state_columns", "state_W0", "state_G0", "state_A",
                                  "state_B", "state_count", "state_W", "state_Wout",
                                  "outliers", "snapshot_change", ""};
    SEXP out = PROTECT(mkNamed(VECSXP, names));
    put_matrix(out, 0, S->W, d, k);
    SET_VECTOR_ELT(out, 1, ScalarReal(S->last_step));
    SET_VECTOR_ELT(out, 2, ScalarReal(S->gap_eta));
    SET_VECTOR_ELT(out, 3, ScalarReal(S->bsum_mean));
    SET_VECTOR_ELT(out, 4, ScalarReal(S->bsum_capped));
    SET_VECTOR_ELT(out, 5, ScalarReal(S->mapping_norm));
    SET_VECTOR_ELT(out, 6, ScalarReal(S->gap_ref));
    SEXP perm = allocVector(INTSXP, S->n);
    SET_VECTOR_ELT(out, 7, perm);
    memcpy(INTEGER(perm), S->perm, sizeof(int) * S->n);
    SET_VECTOR_ELT(out, 8, ScalarReal(S->columns));
    if (P->loop.pos > 0) {                    /* vr, within an outer iteration */
        put_matrix(out, 9, S->W0, d, k);
        put_matrix(out, 10, S->G0, d, k);
    }
    if (S->nsum > 0.0) {                      /* smm's sums */
        put_matrix(out, 11, S->Asum, k, k);
        put_matrix(out, 12, S->Bsum, d, k);
        SET_VECTOR_ELT(out, 13, ScalarReal(S->nsum));
    }
    if (S->reservoir) {                       /* option I: last and kept iterates */
        put_matrix(out, 14, S->output_in_W ? S->Wout : S->W, d, k);
        put_matrix(out, 15, S->output_in_W ? S->W : S->Wout, d, k);
    }
    SET_VECTOR_ELT(out, 16, ScalarReal(S->outliers));
    SET_VECTOR_ELT(out, 17, ScalarReal(S->snap_change));
    UNPROTECT(1);
    return out;
}

/* ---- for smf_api.c (tests): the estimator of Algorithm 1, line 10, with
 * snapshot W0, iterate W and a given batch into V, and the full gradient at
 * W into G. P is built from a spec whose W is W0. */
void smf_vr_estimate_at(cg_problem *P, const double *W, const int *batch, int nb,
                        double *V, double *G)
{
    smf *S = (smf *) P->self;
    const size_t dk = (size_t) S->d * S->k;
    smf_snapshot(P);                                /* at W0: G0 */
    memcpy(S->W, W, sizeof(double) * dk);
    refresh_gram(P, S);
    memcpy(S->batch, batch, sizeof(int) * nb);
    S->nb = nb;
    vr_estimate(P, S);
    memcpy(V, S->V, sizeof(double) * dk);
    smf_snapshot(P);                                /* at W: its G0 */
    memcpy(G, S->G0, sizeof(double) * dk);
}
