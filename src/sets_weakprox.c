/* Weak proximal oracle with certified rank (see stochcg.h). The exact
 * projection onto the nuclear ball (or trace-bounded PSD cone) shrinks the
 * singular values (eigenvalues) of A by a threshold theta and drops those
 * below it. If sigma_{r+1}(A) <= theta_r, the threshold computed from the top
 * r values, then every dropped value would be zero in the exact projection
 * too, so the rank-r step is exact. Otherwise r grows (by half) and the
 * check repeats; the caller keeps the certified r for the next call.
 * Singular value thresholding (cg_svt) is certified the same way, with a
 * fixed threshold. */
#include "stochcg.h"
#include <string.h>
#include <math.h>

/* projection of the top values s[0..r) (decreasing) onto
 * {p >= 0, sum p <= tau}: p and the threshold theta (p_i = max(s_i - theta, 0)) */
static double project_top(const double *s, int r, double tau, double *p, double *work)
{
    double pos = 0.0;
    for (int i = 0; i < r; i++) { p[i] = fmax(s[i], 0.0); pos += p[i]; }
    if (pos <= tau) return 0.0;               /* no shrinkage (negative eigenvalues drop) */
    for (int i = 0; i < r; i++) p[i] = s[i];
    cg_proj_spectrum(p, r, tau, 0, work);
    return s[0] - p[0];
}

/* svt >= 0: singular value thresholding at svt (the prox of svt ||.||_*);
 * svt < 0: the projection onto the ball of radius tau.
 * *shrunk (if not NULL): the sum of the kept, shrunk values, ||V||_*. */
static int spectral_prox(const double *A, int m, int n, int set, double tau, double svt,
                         int max_rank, int *rank, double *V, int *certified, int *triplets,
                         long *n_matvec, double *shrunk)
{
    const int mn = m < n ? m : n;
    int r = *rank < 1 ? 1 : *rank, st = CG_OK;
    if (max_rank < 1 || max_rank > mn) max_rank = mn;
    if (r > max_rank) r = max_rank;
    const void *vmax = vmaxget();
    cg_linop L; cg_dense_data dd;
    cg_linop_dense(&L, &dd, A, m, n);
    double *d = NULL, *p = NULL, *work = NULL, *U = NULL, *W = NULL;
    *triplets = 0;
    *certified = 0;
    for (;;) {
        int k = r < mn ? r + 1 : mn;           /* one extra value to certify r */
        /* the SVD would be a dense LAPACK one anyway (cg_svds): take every
         * value at once, unless the rank is capped */
        if (2 * k >= mn && max_rank == mn) k = r = mn;
        /* scratch for k triplets (earlier rounds' is released at the end) */
        d = (double *) R_alloc(k, sizeof(double));
        p = (double *) R_alloc(k, sizeof(double));
        work = (double *) R_alloc(2 * (size_t) k, sizeof(double));
        U = (double *) R_alloc((size_t) m * k, sizeof(double));
        W = (double *) R_alloc((size_t) n * k, sizeof(double));
        st = set == CG_SET_PSD ? cg_eigs_sym(&L, k, +1, d, U)
                               : cg_svds(&L, k, 1e-10, d, U, W);
        *triplets += k;
        if (st != CG_OK) break;
        double theta = svt;
        if (svt >= 0.0) for (int i = 0; i < r; i++) p[i] = fmax(d[i] - svt, 0.0);
        else theta = project_top(d, r, tau, p, work);
        if (k == r || d[r] <= theta + 1e-12 * fabs(d[0])) { *certified = 1; break; }
        if (r >= max_rank) break;
        r = r + (r + 1) / 2;
        if (r > max_rank) r = max_rank;
    }
    if (n_matvec) *n_matvec += L.n_matvec;
    if (st == CG_OK) {
        /* V = sum_j p_j u_j w_j'; for the PSD set w = u and p >= 0, so scale
         * both factors by sqrt(p_j) and V = U U' is exactly symmetric */
        const int psd = set == CG_SET_PSD;
        /* p decreases: only the nonzero values enter the product */
        int used = r;
        while (used > 1 && !(p[used - 1] > 0.0)) used--;
        for (int j = 0; j < used; j++) {
            const double c = psd ? sqrt(fmax(p[j], 0.0)) : p[j];
            for (int i = 0; i < m; i++) U[(size_t) j * m + i] *= c;
        }
        const double one = 1.0, zero = 0.0;
        F77_CALL(dgemm)("N", "T", &m, &n, &used, &one, U, &m, psd ? U : W, psd ? &m : &n,
                        &zero, V, &m FCONE FCONE);
        /* remember the smallest certified rank, the number of values kept
         * (r only grows inside a call, and would otherwise overshoot) */
        int kept = 0;
        double sum = 0.0;
        for (int j = 0; j < r; j++) { kept += p[j] > 0.0; sum += fmax(p[j], 0.0); }
        *rank = *certified && kept > 0 ? kept : r;
        if (shrunk) *shrunk = sum;
    }
    vmaxset(vmax);
    return st;
}

int cg_weak_prox(const double *A, int m, int n, int set, double tau, int max_rank,
                 int *rank, double *V, int *certified, int *triplets, long *n_matvec)
{
    return spectral_prox(A, m, n, set, tau, -1.0, max_rank, rank, V, certified, triplets,
                         n_matvec, NULL);
}

int cg_svt(const double *A, int m, int n, double theta, int max_rank, int *rank, double *V,
           int *certified, int *triplets, long *n_matvec, double *nuclear)
{
    return spectral_prox(A, m, n, CG_SET_NUCLEAR, 0.0, theta, max_rank, rank, V, certified,
                         triplets, n_matvec, nuclear);
}
