/* Factored low-rank iterates: X = scale * sum_j w[j] u_j v_j'.
 *
 * A Frank-Wolfe step X <- (1 - gamma) X + gamma * s multiplies every weight by
 * (1 - gamma): folding that into `scale` keeps the step O(m + n). Atoms found
 * again by the LMO (the same singular pair up to sign) are merged so the
 * factorization stays as small as the iterate's true atom count. */
#include "stochcg.h"
#include <string.h>
#include <math.h>

#define MERGE_TOL 1e-10

void cg_atoms_init(cg_atoms *a, int m, int n, int cap)
{
    if (cap < 4) cap = 4;
    a->m = m; a->n = n; a->k = 0; a->cap = cap; a->scale = 1.0;
    a->u = (double *) R_alloc((size_t) m * cap, sizeof(double));
    a->v = (double *) R_alloc((size_t) n * cap, sizeof(double));
    a->w = (double *) R_alloc(cap, sizeof(double));
}

void cg_atoms_reset(cg_atoms *a) { a->k = 0; a->scale = 1.0; }

/* fold scale into the weights */
static void renormalize(cg_atoms *a)
{
    for (int j = 0; j < a->k; j++) a->w[j] *= a->scale;
    a->scale = 1.0;
}

void cg_atoms_scale(cg_atoms *a, double c)
{
    if (c == 0.0) { cg_atoms_reset(a); return; }
    a->scale *= c;
    if (a->scale < 1e-150) renormalize(a);   /* before underflow */
}

/* |<x, y>| for unit vectors, with the sign */
static double dotp(const double *x, const double *y, int n)
{
    int one = 1;
    return F77_CALL(ddot)(&n, x, &one, y, &one);
}

int cg_atoms_add(cg_atoms *a, const double *u, const double *v, double weight)
{
    /* weight / scale overflows for weights near DBL_MAX (radius 1e308) */
    if (!isfinite(weight / a->scale)) renormalize(a);
    /* merge with an existing atom u_j v_j' == +-u v' */
    for (int j = 0; j < a->k; j++) {
        /* cheap screen before the O(m + n) comparison */
        if (fabs(fabs(a->u[(size_t) j * a->m]) - fabs(u[0])) > 1e-6) continue;
        double cu = dotp(a->u + (size_t) j * a->m, u, a->m);
        if (fabs(fabs(cu) - 1.0) > MERGE_TOL) continue;
        double cv = dotp(a->v + (size_t) j * a->n, v, a->n);
        if (fabs(fabs(cv) - 1.0) > MERGE_TOL) continue;
        a->w[j] += (cu * cv > 0 ? weight : -weight) / a->scale;
        return j;
    }
    if (a->k == a->cap) {             /* grow geometrically; old blocks are
                                         reclaimed by R at the end of .Call */
        int cap = 2 * a->cap;
        double *u2 = (double *) R_alloc((size_t) a->m * cap, sizeof(double));
        double *v2 = (double *) R_alloc((size_t) a->n * cap, sizeof(double));
        double *w2 = (double *) R_alloc(cap, sizeof(double));
        memcpy(u2, a->u, sizeof(double) * a->m * a->k);
        memcpy(v2, a->v, sizeof(double) * a->n * a->k);
        memcpy(w2, a->w, sizeof(double) * a->k);
        a->u = u2; a->v = v2; a->w = w2; a->cap = cap;
    }
    int j = a->k++;
    memcpy(a->u + (size_t) j * a->m, u, sizeof(double) * a->m);
    memcpy(a->v + (size_t) j * a->n, v, sizeof(double) * a->n);
    a->w[j] = weight / a->scale;
    return j;
}

/* Orthonormal basis Q (rows x q, q = min(rows, k)) and triangular R (q x k,
 * column-major, ld q) of the k columns of A (rows x k): A = Q R. A is
 * overwritten by Q. Scratch from R_alloc (the caller releases it). */
static int thin_qr(double *A, int rows, int k, double *R)
{
    const int q = rows < k ? rows : k;
    int info = 0, lwork = -1;
    double *tau = (double *) R_alloc(q > 0 ? q : 1, sizeof(double)), wq;
    F77_CALL(dgeqrf)(&rows, &k, A, &rows, tau, &wq, &lwork, &info);
    if (info != 0) return CG_ERR_LAPACK;
    lwork = (int) wq;
    double *work = (double *) R_alloc(lwork > 0 ? lwork : 1, sizeof(double));
    F77_CALL(dgeqrf)(&rows, &k, A, &rows, tau, work, &lwork, &info);
    if (info != 0) return CG_ERR_LAPACK;
    for (int j = 0; j < k; j++)
        for (int i = 0; i < q; i++)
            R[(size_t) j * q + i] = i <= j ? A[(size_t) j * rows + i] : 0.0;
    lwork = -1;
    F77_CALL(dorgqr)(&rows, &q, &q, A, &rows, tau, &wq, &lwork, &info);
    if (info != 0) return CG_ERR_LAPACK;
    lwork = (int) wq;
    work = (double *) R_alloc(lwork > 0 ? lwork : 1, sizeof(double));
    F77_CALL(dorgqr)(&rows, &q, &q, A, &rows, tau, work, &lwork, &info);
    return info == 0 ? CG_OK : CG_ERR_LAPACK;
}

/* Rewrite the atoms as the thin SVD of their sum: with U = Qu Ru and
 * V = Qv Rv (thin QR), X = Qu (Ru diag(w) Rv') Qv', and the SVD of the small
 * core gives the singular pairs. O((m + n) k^2), never an m x n matrix.
 * Afterwards u, v have orthonormal columns, weights are the singular values
 * (decreasing, scale 1) and only exact-zero directions (below 1e-14 of the
 * largest, rounding level) are dropped. The old atoms are kept on failure. */
int cg_atoms_compress(cg_atoms *a)
{
    const int m = a->m, n = a->n, k = a->k;
    if (k == 0) { a->scale = 1.0; return CG_OK; }
    const void *vmax = vmaxget();
    const int qu = m < k ? m : k, qv = n < k ? n : k, q = qu < qv ? qu : qv;
    double *Qu = (double *) R_alloc((size_t) m * k, sizeof(double));
    double *Qv = (double *) R_alloc((size_t) n * k, sizeof(double));
    double *Ru = (double *) R_alloc((size_t) qu * k, sizeof(double));
    double *Rv = (double *) R_alloc((size_t) qv * k, sizeof(double));
    memcpy(Qu, a->u, sizeof(double) * (size_t) m * k);
    memcpy(Qv, a->v, sizeof(double) * (size_t) n * k);
    int st = thin_qr(Qu, m, k, Ru);
    if (st == CG_OK) st = thin_qr(Qv, n, k, Rv);
    if (st != CG_OK) { vmaxset(vmax); return st; }
    /* core = Ru diag(scale w) Rv' (qu x qv) */
    for (int j = 0; j < k; j++) {
        const double wj = a->scale * a->w[j];
        for (int i = 0; i < qu; i++) Ru[(size_t) j * qu + i] *= wj;
    }
    double *core = (double *) R_alloc((size_t) qu * qv, sizeof(double));
    const double one = 1.0, zero = 0.0;
    F77_CALL(dgemm)("N", "T", &qu, &qv, &k, &one, Ru, &qu, Rv, &qv, &zero, core, &qu
                    FCONE FCONE);
    double *s = (double *) R_alloc(q, sizeof(double));
    double *Uc = (double *) R_alloc((size_t) qu * q, sizeof(double));
    double *VTc = (double *) R_alloc((size_t) q * qv, sizeof(double));
    st = cg_lapack_svd(core, qu, qv, s, Uc, VTc);
    if (st != CG_OK) { vmaxset(vmax); return st; }
    int r = 0;
    while (r < q && s[r] > 1e-14 * s[0]) r++;
    /* k >= r columns are available in a->u, a->v: write in place */
    if (r > 0) {
        F77_CALL(dgemm)("N", "N", &m, &r, &qu, &one, Qu, &m, Uc, &qu, &zero, a->u, &m
                        FCONE FCONE);
        F77_CALL(dgemm)("N", "T", &n, &r, &qv, &one, Qv, &n, VTc, &q, &zero, a->v, &n
                        FCONE FCONE);
    }
    memcpy(a->w, s, sizeof(double) * r);
    a->k = r; a->scale = 1.0;
    vmaxset(vmax);
    return CG_OK;
}

double cg_atoms_entry(const cg_atoms *a, int i, int j)
{
    double s = 0.0;
    const double *u = a->u + i, *v = a->v + j;
    for (int l = 0; l < a->k; l++)
        s += a->w[l] * u[(size_t) l * a->m] * v[(size_t) l * a->n];
    return a->scale * s;
}

void cg_atoms_weights(const cg_atoms *a, double *w_out)
{
    for (int j = 0; j < a->k; j++) w_out[j] = a->scale * a->w[j];
}

/* Entries of u diag(d) v' at 1-based pairs (i, j): O(rank) per pair, never
 * the dense matrix. .Call entry used by predict() on lowrank objects, which
 * users can build or modify by hand: R checks them first, and the shapes and
 * indices are checked again here, where a mismatch would read out of bounds. */
SEXP cg_lowrank_entries(SEXP u, SEXP d, SEXP v, SEXP i, SEXP j)
{
    if (TYPEOF(u) != REALSXP || !isMatrix(u) || TYPEOF(v) != REALSXP || !isMatrix(v))
        error("lowrank entries: `u` and `v` must be double matrices");
    if (TYPEOF(d) != REALSXP || ncols(u) != XLENGTH(d) || ncols(v) != XLENGTH(d))
        error("lowrank entries: `d` must be a double vector of length ncol(u) = ncol(v)");
    if (TYPEOF(i) != INTSXP || TYPEOF(j) != INTSXP || XLENGTH(i) != XLENGTH(j))
        error("lowrank entries: `i` and `j` must be integer vectors of the same length");
    const int m = nrows(u), n = nrows(v), r = LENGTH(d);
    const R_xlen_t N = XLENGTH(i);
    const double *U = REAL_RO(u), *D = REAL_RO(d), *V = REAL_RO(v);
    const int *I = INTEGER_RO(i), *J = INTEGER_RO(j);
    for (R_xlen_t k = 0; k < N; k++)
        if (I[k] < 1 || I[k] > m || J[k] < 1 || J[k] > n)
            error("lowrank entries: index pair %lld out of range 1..%d x 1..%d",
                  (long long) k + 1, m, n);
    SEXP out = PROTECT(allocVector(REALSXP, N));
    double *o = REAL(out);
    for (R_xlen_t k = 0; k < N; k++) {
        const double *uk = U + (I[k] - 1), *vk = V + (J[k] - 1);
        double s = 0.0;
        for (int l = 0; l < r; l++) s += D[l] * uk[(size_t) l * m] * vk[(size_t) l * n];
        o[k] = s;
    }
    UNPROTECT(1);
    return out;
}
