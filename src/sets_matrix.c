/* Matrix sets: nuclear-norm ball and trace-bounded PSD cone / spectrahedron.
 * LMOs need one extreme singular/eigen pair of the gradient operator;
 * projections need a full decomposition of a dense matrix. */
#include "stochcg.h"
#include <string.h>
#include <math.h>

/* argmin_{||S||_* <= r} <G, S> = -r u1 v1' for the top singular pair. */
int cg_lmo_nuclear(cg_linop *G, double radius, double *u, double *v, double *sigma,
                   double tol)
{
    (void) radius;                /* the atom's scale is the caller's */
    return cg_svds(G, 1, tol, sigma, u, v);
}

/* argmin <G, S> over {S psd, tr S <= r} (or == r with equality): r v v' for
 * the smallest eigenpair (v, lambda) when lambda < 0 or the trace is fixed,
 * else S = 0. Returns 1 for the atom r v v', 0 for S = 0, and -status when
 * the eigensolver fails. */
int cg_lmo_psd(cg_linop *G, double radius, int equality, double *v, double *lambda)
{
    (void) radius;
    int st = cg_eigs_sym(G, 1, -1, lambda, v);
    if (st != CG_OK) return -st;
    return (equality || *lambda < 0.0) ? 1 : 0;
}

/* min <G, S> over {S psd, tr S = r} (or tr S <= r): r lambda_min(G) (or
 * r min(lambda_min, 0)), lambda_min by Lanczos moved outward by tol, so that
 * the value is a lower bound (Lagrangian bounds of the SDPs). */
int cg_psd_support_min(cg_linop *G, double radius, int equality, double tol, double *value)
{
    double lmin;
    const int st = cg_extreme_value_tol(G, -1, 1, tol, &lmin);
    if (st != CG_OK) return st;
    if (!equality && lmin > 0.0) lmin = 0.0;
    *value = radius * lmin;
    return CG_OK;
}

/* Projection onto the nuclear ball: keep the singular vectors and project the
 * singular values onto {s >= 0, sum s <= r}. */
static int proj_nuclear_dense(double *X, int m, int n, double radius, double *fu,
                              double *fd, double *fv, int *rank);
static int proj_psd_dense(double *X, int n, double radius, int equality);

/* The dense projections run once per projected-gradient iteration: their
 * LAPACK scratch is released on return so memory stays flat. */
int cg_proj_nuclear_dense(double *X, int m, int n, double radius)
{
    return cg_proj_nuclear_dense_factors(X, m, n, radius, NULL, NULL, NULL, NULL);
}

int cg_proj_nuclear_dense_factors(double *X, int m, int n, double radius, double *fu,
                                  double *fd, double *fv, int *rank)
{
    const void *vmax = vmaxget();
    int st = proj_nuclear_dense(X, m, n, radius, fu, fd, fv, rank);
    vmaxset(vmax);
    return st;
}

int cg_proj_psd_dense(double *X, int n, double radius, int equality)
{
    const void *vmax = vmaxget();
    int st = proj_psd_dense(X, n, radius, equality);
    vmaxset(vmax);
    return st;
}

static int proj_nuclear_dense(double *X, int m, int n, double radius, double *fu,
                              double *fd, double *fv, int *rank)
{
    int mn = m < n ? m : n;
    if (rank) *rank = 0;
    if (mn == 0) return CG_OK;
    double *s = (double *) R_alloc(mn, sizeof(double));
    double *U = (double *) R_alloc((size_t) m * mn, sizeof(double));
    double *VT = (double *) R_alloc((size_t) mn * n, sizeof(double));
    int st = cg_lapack_svd(X, m, n, s, U, VT);
    if (st != CG_OK) return st;

    double *pw = (double *) R_alloc(2 * (size_t) mn, sizeof(double));
    cg_proj_spectrum(s, mn, radius, 0, pw);
    int r = 0;                    /* s stays decreasing: rank = leading nonzeros */
    while (r < mn && s[r] > 0.0) r++;
    if (r == 0) { memset(X, 0, (size_t) m * n * sizeof(double)); return CG_OK; }
    if (rank) {                   /* the projection's thin SVD, kept for the caller */
        *rank = r;
        memcpy(fu, U, sizeof(double) * (size_t) m * r);
        memcpy(fd, s, sizeof(double) * r);
        for (int j = 0; j < r; j++)
            for (int c = 0; c < n; c++) fv[(size_t) j * n + c] = VT[(size_t) c * mn + j];
    }
    for (int j = 0; j < r; j++)
        for (int i = 0; i < m; i++) U[(size_t) j * m + i] *= s[j];
    const double one = 1.0, zero = 0.0;
    F77_CALL(dgemm)("N", "N", &m, &n, &r, &one, U, &m, VT, &mn, &zero, X, &m
                    FCONE FCONE);
    return CG_OK;
}

/* Projection onto {S psd, tr S <= r} (or tr S == r): eigendecompose the
 * symmetric part and project the eigenvalues (the clip at 0 happens inside
 * cg_proj_spectrum for the inequality; the simplex projection handles
 * negative eigenvalues directly for the equality). */
static int proj_psd_dense(double *X, int n, double radius, int equality)
{
    if (n == 0) return CG_OK;
    cg_symmetrize(X, n);
    double *w = (double *) R_alloc(n, sizeof(double));
    double *Z = (double *) R_alloc((size_t) n * n, sizeof(double));
    int st = cg_lapack_syevr(X, n, 1, n, w, Z);
    if (st != CG_OK) return st;

    double *pw = (double *) R_alloc(2 * (size_t) n, sizeof(double));
    cg_proj_spectrum(w, n, radius, equality, pw);
    /* X = sum_{w_j > 0} w_j z_j z_j' as a symmetric rank-k update, so the
     * result is exactly symmetric */
    int k = 0;
    for (int j = 0; j < n; j++) if (w[j] > 0.0) {
        const double sw = sqrt(w[j]);
        for (int i = 0; i < n; i++) Z[(size_t) k * n + i] = sw * Z[(size_t) j * n + i];
        k++;
    }
    memset(X, 0, (size_t) n * n * sizeof(double));
    if (k == 0) return CG_OK;
    const double one = 1.0, zero = 0.0;
    F77_CALL(dsyrk)("U", "N", &n, &k, &one, Z, &n, &zero, X, &n FCONE FCONE);
    for (int j = 0; j < n; j++)
        for (int i = 0; i < j; i++) X[(size_t) i * n + j] = X[(size_t) j * n + i];
    return CG_OK;
}
