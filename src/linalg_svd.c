/* Top-k singular triplets and extreme eigenpairs of linear operators.
 * Small problems: dense LAPACK on a densified copy (exact, and Lanczos has
 * nothing to gain there). Large ones: RSpectra's Lanczos solver through its
 * registered C API on a matrix-free operator.
 * Neither may see NA/NaN/Inf (LAPACK can loop on them; RSpectra turns its
 * failure into an R error, a longjmp out of the solve): LAPACK inputs are
 * checked first, and every product handed to RSpectra is checked by
 * spectra_run(), which also polls for Ctrl-C. */
#include "stochcg.h"
#include <SpectraC.h>
#include <R_ext/Rdynload.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

#define CG_DENSE_MAX 32   /* at or below this size LAPACK beats Lanczos */

static eigs_sym_c_funtype spectra_eigs_sym(void)
{
    /* looked up once: R_GetCCallable walks a registry */
    static eigs_sym_c_funtype fun = NULL;
    if (fun == NULL)
        /* via void (*)(void), the generic function pointer type */
        fun = (eigs_sym_c_funtype) (void (*)(void)) R_GetCCallable("RSpectra", "eigs_sym_c");
    return fun;
}

/* RSpectra through a guard. Each product is checked for non-finite values
 * and, during a solve, Ctrl-C is polled (at most every 50 ms). On either the
 * guard records why and returns zeros from then on (also once past the run's
 * time limit, when the solver set one: cg_kernel_deadline): a zero operator makes
 * the Lanczos run end at its next convergence test, and the status, not a
 * longjmp through RSpectra's C++, takes the news up to the solver. The call
 * itself runs under cg_try: an R error raised by RSpectra (it reports its
 * exceptions that way) ends here as CG_ERR_SVD, a Ctrl-C it takes itself as
 * CG_ERR_INTERRUPT. */
typedef struct {
    mat_op op; void *data; int status;
    int dim, k; spectra_opts *opts; double *evals, *evecs; int nconv, info;
} spectra_call;

static void guarded_op(const double *x, double *y, int n, void *data)
{
    spectra_call *c = (spectra_call *) data;
    if (c->status == CG_OK) {
        c->op(x, y, n, c->data);
        if (!cg_all_finite(y, (size_t) n)) c->status = CG_ERR_NONFINITE;
        else if (cg_interrupt_poll()) c->status = CG_ERR_INTERRUPT;
        else if (cg_kernel_past_deadline()) c->status = CG_ERR_TIMEOUT;
    }
    if (c->status != CG_OK) memset(y, 0, (size_t) n * sizeof(double));
}

static SEXP spectra_body(void *data)
{
    spectra_call *c = (spectra_call *) data;
    int niter = 0, nops = 0;
    spectra_eigs_sym()(guarded_op, c->dim, c->k, c->opts, c, &c->nconv, &niter, &nops,
                       c->evals, c->evecs, &c->info);
    return R_NilValue;
}

/* k eigenpairs of the symmetric operator op (dim x dim) by RSpectra */
static int spectra_run(mat_op op, void *data, int dim, int k, spectra_opts *opts,
                       double *evals, double *evecs)
{
    spectra_call c = { op, data, CG_OK, dim, k, opts, evals, evecs, 0, 1 };
    int caught;
    cg_try(spectra_body, &c, &caught);
    if (c.status != CG_OK) return c.status;
    /* RSpectra may take a Ctrl-C itself (between its iterations) */
    if (caught == CG_ERR_INTERRUPT) return CG_ERR_INTERRUPT;
    if (caught != CG_OK || c.info != 0 || c.nconv < k || !cg_all_finite(evals, (size_t) k))
        return CG_ERR_SVD;
    return CG_OK;
}

static double nrm2(int n, const double *x)
{
    const int inc = 1;
    return n > 0 ? F77_CALL(dnrm2)(&n, x, &inc) : 0.0;
}

/* order[0..k) = indices of vals sorted decreasingly (insertion sort: k small) */
static void order_decreasing(const double *vals, int k, int *order)
{
    for (int a = 0; a < k; a++) {
        int t = a;
        while (t > 0 && vals[order[t - 1]] < vals[a]) { order[t] = order[t - 1]; t--; }
        order[t] = a;
    }
}

/* ------------------------------------------------------ LAPACK wrappers */
int cg_lapack_svd(double *X, int m, int n, double *s, double *U, double *VT)
{
    if (!cg_all_finite(X, (size_t) m * n)) return CG_ERR_NONFINITE;
    int mn = m < n ? m : n, info = 0, lwork = -1;
    int *iwork = (int *) R_alloc(8 * (size_t) mn, sizeof(int));
    double wq;
    F77_CALL(dgesdd)("S", &m, &n, X, &m, s, U, &m, VT, &mn, &wq, &lwork,
                     iwork, &info FCONE);
    if (info != 0) return CG_ERR_LAPACK;
    lwork = (int) wq;
    double *work = (double *) R_alloc(lwork, sizeof(double));
    F77_CALL(dgesdd)("S", &m, &n, X, &m, s, U, &m, VT, &mn, work, &lwork,
                     iwork, &info FCONE);
    return info == 0 ? CG_OK : CG_ERR_LAPACK;
}

/* one dsyevr call (workspace query, then the solve) on X's upper triangle,
 * which it overwrites; w holds n values, Z n x (pairs found) */
static int dsyevr_run(double *X, int n, const char *range, double vl, double vu, int il,
                      int iu, double *w, double *Z, int *found)
{
    int info = 0, lwork = -1, liwork = -1, iwq;
    double abstol = 0.0, wq;
    int *isuppz = (int *) R_alloc(2 * (size_t) n, sizeof(int));
    F77_CALL(dsyevr)("V", range, "U", &n, X, &n, &vl, &vu, &il, &iu, &abstol, found,
                     w, Z, &n, isuppz, &wq, &lwork, &iwq, &liwork, &info
                     FCONE FCONE FCONE);
    if (info != 0) return CG_ERR_LAPACK;
    lwork = (int) wq; liwork = iwq;
    double *work = (double *) R_alloc(lwork, sizeof(double));
    int *iwork = (int *) R_alloc(liwork, sizeof(int));
    F77_CALL(dsyevr)("V", range, "U", &n, X, &n, &vl, &vu, &il, &iu, &abstol, found,
                     w, Z, &n, isuppz, work, &lwork, iwork, &liwork, &info
                     FCONE FCONE FCONE);
    return info == 0 ? CG_OK : CG_ERR_LAPACK;
}

/* dsyevr on the upper triangle: eigenpairs il..iu (range "I") or those in
 * (vl, vu] (range "V"); *found of them into w, Z (n x found). dsyevr's W
 * must hold n values whatever the range, and with range "I" its bisection
 * (dstebz) returns other counts than iu - il + 1 when eigenvalues tie at
 * the range's ends: more (writing that many columns of Z: a w and Z sized
 * for the pairs asked for overran into R's heap when the top singular
 * values of a completion gradient tied) or none (40 tied top values, the
 * top one asked for). So dsyevr writes into buffers of n values and (range
 * "I") n columns, malloc'ed and freed here; a range "I" call that does not
 * find iu - il + 1 pairs is redone for all n pairs (the full spectrum's
 * solver, dstemr, has no such failure) on a copy of X, and the caller gets
 * pairs il..iu. Range "V" callers size Z n x n. */
static int syevr(double *X, int n, const char *range, double vl, double vu, int il, int iu,
                 double *w, double *Z, int *found)
{
    if (!cg_all_finite(X, (size_t) n * n)) return CG_ERR_NONFINITE;
    const int by_index = range[0] == 'I', want = iu - il + 1;
    /* the whole spectrum asked for: dstemr, no retry, no copy of X */
    const int retry = by_index && want < n;
    const size_t nn = (size_t) n * (n > 0 ? n : 1);
    double *wn = (double *) malloc(sizeof(double) * (size_t) (n > 0 ? n : 1));
    double *Zn = by_index ? (double *) malloc(sizeof(double) * nn) : Z;
    double *X0 = retry ? (double *) malloc(sizeof(double) * nn) : NULL;
    int st = CG_ERR_LAPACK, off = 0;
    if (wn != NULL && Zn != NULL && (!retry || X0 != NULL)) {
        if (retry) memcpy(X0, X, sizeof(double) * nn);
        st = dsyevr_run(X, n, range, vl, vu, il, iu, wn, Zn, found);
        if (retry && (st != CG_OK || *found != want)) {
            memcpy(X, X0, sizeof(double) * nn);
            st = dsyevr_run(X, n, "A", vl, vu, il, iu, wn, Zn, found);
            if (st == CG_OK && *found != n) st = CG_ERR_LAPACK;
            off = il - 1;
            if (st == CG_OK) *found = want;
        }
        if (st == CG_OK && *found > 0) {
            memcpy(w, wn + off, sizeof(double) * (size_t) *found);
            if (by_index) memcpy(Z, Zn + (size_t) off * n, sizeof(double) * (size_t) n * *found);
        }
    }
    free(wn);
    if (by_index) { free(Zn); free(X0); }
    return st;
}

int cg_lapack_syevr(double *X, int n, int il, int iu, double *w, double *Z)
{
    int found = 0;
    const int st = syevr(X, n, "I", 0.0, 0.0, il, iu, w, Z, &found);
    return (st == CG_OK && found != iu - il + 1) ? CG_ERR_LAPACK : st;
}

/* ------------------------------------------------------------ dense SVD */
static int svds_dense(cg_linop *A, int k, double *d, double *u, double *v)
{
    int m = A->m, n = A->n, mn = m < n ? m : n;
    double *X = (double *) R_alloc((size_t) m * n, sizeof(double));
    cg_linop_densify(A, X);
    double *s = (double *) R_alloc(mn, sizeof(double));
    double *U = (double *) R_alloc((size_t) m * mn, sizeof(double));
    double *VT = (double *) R_alloc((size_t) mn * n, sizeof(double));
    const int st = cg_lapack_svd(X, m, n, s, U, VT);
    if (st != CG_OK) return st == CG_ERR_NONFINITE ? st : CG_ERR_SVD;
    for (int j = 0; j < k; j++) {          /* LAPACK: already decreasing */
        d[j] = s[j];
        memcpy(u + (size_t) j * m, U + (size_t) j * m, (size_t) m * sizeof(double));
        for (int c = 0; c < n; c++) v[(size_t) j * n + c] = VT[(size_t) c * mn + j];
    }
    return CG_OK;
}

/* ------------------------------------------------------- Lanczos on Gram */
typedef struct { cg_linop *A; double *tmp; int right; } gram_data;

/* right: x -> A'(A x) (size n); else x -> A(A' x) (size m) */
static void gram_op(const double *x, double *y, int dim, void *data)
{
    gram_data *g = (gram_data *) data;
    if (g->right) { g->A->mult(g->A, x, g->tmp); g->A->tmult(g->A, g->tmp, y); }
    else          { g->A->tmult(g->A, x, g->tmp); g->A->mult(g->A, g->tmp, y); }
}

static int ncv_for(int dim, int k)
{
    int ncv = 2 * k + 1 > 20 ? 2 * k + 1 : 20;
    return ncv < dim ? ncv : dim;
}

/* The singular triplets from k eigenpairs (evals, evecs: dim x k, any
 * order) of the Gram operator A'A (right) or A A': the other side by one
 * product each, sigma = its norm, decreasing */
static void gram_pairs(cg_linop *A, int k, int right, const double *evals,
                       const double *evecs, double *d, double *u, double *v)
{
    const int m = A->m, n = A->n;
    const int dim = right ? n : m, other = right ? m : n;
    int *order = (int *) R_alloc(k, sizeof(int));
    order_decreasing(evals, k, order);
    double *same = right ? v : u, *opp = right ? u : v;   /* Ritz side, other side */
    for (int j = 0; j < k; j++) {
        double *x = same + (size_t) j * dim, *y = opp + (size_t) j * other;
        memcpy(x, evecs + (size_t) order[j] * dim, (size_t) dim * sizeof(double));
        if (right) A->mult(A, x, y); else A->tmult(A, x, y);
        /* sigma = ||A v|| equals sqrt(eval) for a Ritz vector, but keeps
         * full relative accuracy when sigma^2 is below eps * sigma_max^2 */
        double sig = nrm2(other, y);
        d[j] = sig;
        if (sig > 0.0) {
            for (int c = 0; c < other; c++) y[c] /= sig;
        } else {                     /* null direction: any unit vector */
            memset(y, 0, (size_t) other * sizeof(double));
            y[0] = 1.0;
        }
    }
    /* ||A v|| can reorder near-ties of the Ritz values by rounding */
    double *tmp = NULL;
    for (int a = 1; a < k; a++) if (d[a] > d[a - 1]) {
        if (tmp == NULL) tmp = (double *) R_alloc((size_t) (m > n ? m : n), sizeof(double));
        for (int b = a; b > 0 && d[b] > d[b - 1]; b--) {
            double t = d[b]; d[b] = d[b - 1]; d[b - 1] = t;
            double *cols[2] = { u, v }; int len[2] = { m, n };
            for (int s = 0; s < 2; s++) {
                double *c0 = cols[s] + (size_t) (b - 1) * len[s], *c1 = c0 + len[s];
                memcpy(tmp, c0, (size_t) len[s] * sizeof(double));
                memcpy(c0, c1, (size_t) len[s] * sizeof(double));
                memcpy(c1, tmp, (size_t) len[s] * sizeof(double));
            }
        }
    }
}

static int svds_lanczos(cg_linop *A, int k, double tol, int maxit, int ncv, double *d,
                        double *u, double *v)
{
    const int m = A->m, n = A->n, right = n <= m;
    const int dim = right ? n : m, other = right ? m : n;
    gram_data g = { A, (double *) R_alloc(other, sizeof(double)), right };
    spectra_opts opts = { 0 /* LM */, ncv > 0 ? (ncv < dim ? ncv : dim) : ncv_for(dim, k), tol,
                          maxit, 1 };
    double *evals = (double *) R_alloc(k, sizeof(double));
    double *evecs = (double *) R_alloc((size_t) dim * k, sizeof(double));
    const int st = spectra_run(gram_op, &g, dim, k, &opts, evals, evecs);
    if (st != CG_OK) return st;
    gram_pairs(A, k, right, evals, evecs, d, u, v);
    return CG_OK;
}

/* ---------------------------------------------------- dense Gram route */
/* For an operator of known storage whose smaller side d is short, the top
 * pairs come from LAPACK on the d x d Gram matrix (A A' or A'A, by dsyrk on
 * a dense copy): d^2 l + 4/3 d^3 flops (l the longer side), bounded, exact
 * to rounding, whatever the spectrum. Lanczos costs products with A (2 nnz
 * flops each, about 5 times slower per flop than dsyrk/dsytrd with the
 * reference BLAS) times a count that grows without bound when the top
 * singular values cluster: near a nuclear-ball solution of rank r the
 * gradient's top r values nearly tie, and one LMO took ~700 products at
 * rank 111 (189 x 500). The Gram route is taken when it costs at most
 * about 40 Gram products (two Lanczos bases of 20 vectors): d^2 l + 4/3 d^3
 * <= 400 nnz, and the dense copy has at most 2^23 cells (64 MB). */
#define GRAM_DENSE_CELLS 8388608.0
#define GRAM_DENSE_NNZ_FACTOR 400.0

static int gram_dense_cheaper(const cg_linop *A)
{
    const double nnz = cg_linop_nnz(A);
    const double m = A->m, n = A->n, d = m < n ? m : n, l = m < n ? n : m;
    if (nnz <= 0.0 || m * n > GRAM_DENSE_CELLS) return 0;
    return d * d * l + 4.0 / 3.0 * d * d * d <= GRAM_DENSE_NNZ_FACTOR * nnz;
}

static int svds_gram_dense(cg_linop *A, int k, double *d, double *u, double *v)
{
    const int m = A->m, n = A->n, right = n <= m;
    const int dim = right ? n : m, other = right ? m : n;
    double *X = (double *) R_alloc((size_t) m * n, sizeof(double));
    const long before = A->n_matvec;
    cg_linop_densify(A, X);
    A->n_matvec = before + 1;       /* one pass over the stored entries */
    double *B = cg_zeros((size_t) dim * dim);   /* dsyevr checks all of it */
    const double one = 1.0, zero = 0.0;
    /* right: B = X'X (n x n); else B = X X' (m x m); upper triangle */
    F77_CALL(dsyrk)("U", right ? "T" : "N", &dim, &other, &one, X, &m, &zero, B, &dim
                    FCONE FCONE);
    double *w = (double *) R_alloc(k, sizeof(double));
    double *Z = (double *) R_alloc((size_t) dim * k, sizeof(double));
    const int st = cg_lapack_syevr(B, dim, dim - k + 1, dim, w, Z);
    if (st != CG_OK) return st == CG_ERR_NONFINITE ? st : CG_ERR_SVD;
    gram_pairs(A, k, right, w, Z, d, u, v);
    return CG_OK;
}

/* Scratch comes from R_alloc and is released on return (vmaxset), so a
 * solver calling this every iteration does not accumulate memory. */
int cg_svds(cg_linop *A, int k, double tol, double *d, double *u, double *v)
{
    const int m = A->m, n = A->n, mn = m < n ? m : n;
    if (k < 1 || k > mn) return CG_ERR_DOMAIN;
    const void *vmax = vmaxget();
    int st = (mn <= CG_DENSE_MAX || 2 * k >= mn) ? svds_dense(A, k, d, u, v)
             : gram_dense_cheaper(A) ? svds_gram_dense(A, k, d, u, v)
             : svds_lanczos(A, k, tol, 1000, 0, d, u, v);
    vmaxset(vmax);
    return st;
}

/* ------------------------------------------------- symmetric eigenpairs */
static int eigs_dense(cg_linop *A, int k, int which, double *vals, double *vecs)
{
    int n = A->n;
    double *X = (double *) R_alloc((size_t) n * n, sizeof(double));
    cg_linop_densify(A, X);
    /* LAPACK reads one triangle; average both so a slightly asymmetric
     * operator gives the eigenpairs of its symmetric part */
    cg_symmetrize(X, n);
    int il = which > 0 ? n - k + 1 : 1, iu = which > 0 ? n : k;
    double *w = (double *) R_alloc(n, sizeof(double));
    double *Z = (double *) R_alloc((size_t) n * k, sizeof(double));
    const int st = cg_lapack_syevr(X, n, il, iu, w, Z);
    if (st != CG_OK) return st;
    /* dsyevr returns ascending; report from the requested end inward */
    for (int j = 0; j < k; j++) {
        int src = which > 0 ? k - 1 - j : j;
        vals[j] = w[src];
        memcpy(vecs + (size_t) j * n, Z + (size_t) src * n, (size_t) n * sizeof(double));
    }
    return CG_OK;
}

static void linop_op(const double *x, double *y, int n, void *data)
{
    cg_linop *A = (cg_linop *) data;
    A->mult(A, x, y);
}

/* vals are ordered from the requested end inward: decreasing for which = +1,
 * increasing for which = -1. */
static int eigs_lanczos(cg_linop *A, int k, int which, double tol, int maxit, int ncv,
                        double *vals, double *vecs);

int cg_eigs_sym(cg_linop *A, int k, int which, double *vals, double *vecs)
{
    const int n = A->n;
    if (A->m != n || k < 1 || k > n || (which != 1 && which != -1)) return CG_ERR_DOMAIN;
    const void *vmax = vmaxget();
    int st = (n <= CG_DENSE_MAX || 2 * k >= n) ? eigs_dense(A, k, which, vals, vecs)
                                                : eigs_lanczos(A, k, which, 1e-10, 1000, 0, vals, vecs);
    vmaxset(vmax);
    return st;
}

static int eigs_lanczos(cg_linop *A, int k, int which, double tol, int maxit, int ncv,
                        double *vals, double *vecs)
{
    const int n = A->n;

    spectra_opts opts = { which > 0 ? 3 /* LA */ : 7 /* SA */,
                          ncv > 0 ? (ncv < n ? ncv : n) : ncv_for(n, k), tol, maxit, 1 };
    double *ev = (double *) R_alloc(k, sizeof(double));
    double *evec = (double *) R_alloc((size_t) n * k, sizeof(double));
    const int st = spectra_run(linop_op, A, n, k, &opts, ev, evec);
    if (st != CG_OK) return st;
    /* sort by which * value, decreasing */
    double *key = (double *) R_alloc(k, sizeof(double));
    int *order = (int *) R_alloc(k, sizeof(int));
    for (int j = 0; j < k; j++) key[j] = which * ev[j];
    order_decreasing(key, k, order);
    for (int j = 0; j < k; j++) {
        vals[j] = ev[order[j]];
        memcpy(vecs + (size_t) j * n, evec + (size_t) order[j] * n,
               (size_t) n * sizeof(double));
    }
    return CG_OK;
}

/* eigs_lanczos with a subspace of ncv vectors, doubled (up to n) while it
 * does not converge, three tries at most: the small end of a covariance
 * spectrum and the top of a gradient's cluster, and a narrow subspace stalls */
static int eigs_lanczos_widening(cg_linop *A, int k, int which, double tol, int maxit,
                                 int ncv, double *vals, double *vecs)
{
    const int n = A->n;
    int st = CG_ERR_SVD;
    for (int a = 0; a < 3; a++, ncv *= 2) {
        if (ncv > n) ncv = n;
        st = eigs_lanczos(A, k, which, tol, maxit, ncv, vals, vecs);
        if (st != CG_ERR_SVD || ncv == n) break;
    }
    return st;
}

/* Extreme value for a duality gap: sigma_1(A) (which = 0), or the smallest
 * eigenvalue of the symmetric A (which = -1). Near an optimum the top values
 * of a gradient cluster (rank(X*) of them are equal at a solution of a
 * nuclear-ball problem), and Lanczos with a subspace smaller than the
 * cluster stalls; so the subspace holds 2 cluster + 20 vectors, cluster =
 * max(hint, 16), and the value is moved outward by the residual tolerance
 * (a Ritz value with relative residual tol lies within tol of an
 * eigenvalue), so the gap stays an upper bound. */
int cg_extreme_value(cg_linop *A, int which, int hint, double *value)
{
    return cg_extreme_value_tol(A, which, hint, 1e-6, value);
}

int cg_extreme_value_tol(cg_linop *A, int which, int hint, double tol, double *value)
{
    const int m = A->m, n = A->n, mn = m < n ? m : n;
    if (mn < 1 || (which == -1 && m != n)) return CG_ERR_DOMAIN;
    const void *vmax = vmaxget();
    int st = CG_ERR_SVD;
    double *u = (double *) R_alloc(m, sizeof(double));
    double *v = (double *) R_alloc(n, sizeof(double));
    const int cluster = hint > 16 ? hint : 16;
    if (mn <= CG_DENSE_MAX || 2 * cluster + 20 >= mn) {     /* LAPACK: exact */
        st = which == -1 ? eigs_dense(A, 1, -1, value, u) : svds_dense(A, 1, value, u, v);
    } else {
        double x;
        if (which == -1) {
            st = eigs_lanczos_widening(A, 1, -1, tol, 1000, 2 * cluster + 20, &x, u);
        } else {             /* a subspace that does not converge is widened twice */
            for (int ncv = 2 * cluster + 20, a = 0; a < 3; a++, ncv *= 2) {
                if (ncv > mn) ncv = mn;
                st = svds_lanczos(A, 1, tol, 1000, ncv, &x, u, v);
                if (st != CG_ERR_SVD || ncv == mn) break;
            }
        }
        if (st == CG_OK) *value = which == -1 ? x - tol * fabs(x) : x * sqrt(1.0 + tol);
    }
    vmaxset(vmax);
    return st;
}

/* The next k of cg_eigs_beyond after a run whose k values `ev` (outer end
 * first) were all beyond thresh: the count extrapolated from the spacing of
 * the inner half of them (k + distance to thresh / mean spacing), with a
 * margin of 30% (the spacing shrinks toward the bulk of a covariance
 * spectrum, so the line underestimates), and at least 1.5 k, at most
 * cap + 1. Each run starts cold and costs about its k, so the k's past
 * the count are what a growth rule wastes: doubling from a small hint
 * (the first dual step of a fit warm-started from a larger lambda: 3 pairs
 * below the floor at the previous lambda, 201 at this one; golub, p = 3051)
 * ran k = 5, 10, ..., 160, 257, 2.9 times the products of the last run; the
 * extrapolation jumps to about the count in two or three runs. Doubling is
 * the fallback when the spacing says nothing (equal values), and the rule
 * of the callers that keep it ("lowrank+sparse": a tight test case whose
 * alternation reached tol = 1e-10 in 417 steps stalled at a gap of 7e-6
 * with the R steps' pairs found by other runs, equal to 1e-9). */
static int beyond_next_k(const double *ev, int k, int which, double thresh, int cap)
{
    double next = 2.0 * k;
    const int h = k / 2;
    const double span = which * (ev[h] - ev[k - 1]);     /* inward distance, >= 0 */
    const double rest = which * (ev[k - 1] - thresh);    /* still to go, > 0 */
    if (k - 1 > h && span > 0.0 && R_FINITE(span) && R_FINITE(rest)) {
        const double est = k + rest / (span / (k - 1 - h));
        next = fmax(1.3 * est + 2.0, 1.5 * k);
    }
    return next >= cap + 1.0 ? cap + 1 : (int) ceil(next);
}

/* Every eigenpair of the symmetric A beyond `thresh` (below it for which =
 * -1, above for +1), for projections onto the PSD cone whose rank is not
 * known in advance. Lanczos for the k outermost pairs, k growing from
 * khint (doubling, or extrapolated: beyond_next_k; up to cap + 1) until
 * the k-th is no longer beyond; the small end of a covariance
 * spectrum clusters, so a subspace that does not converge is widened
 * (eigs_lanczos_widening) before giving up; LAPACK (values in range) on a
 * dense copy for small n or once 2k >= n. Returns CG_OK with *found pairs
 * (at most cap; CG_ERR_DOMAIN when more exist) in vals, vecs (n x cap),
 * ordered from the outer end inward. */
int cg_eigs_beyond(cg_linop *A, int which, double thresh, int khint, int extrapolate,
                   double tol, int cap, int *found, double *vals, double *vecs)
{
    const int n = A->n;
    if (A->m != n || n < 1 || (which != 1 && which != -1) || cap < 1) return CG_ERR_DOMAIN;
    const void *vmax = vmaxget();
    int k = khint < 2 ? 2 : khint, st = CG_OK;
    *found = 0;
    for (;;) {
        if (n <= CG_DENSE_MAX || 2 * k >= n) {
            double *X = (double *) R_alloc((size_t) n * n, sizeof(double));
            cg_linop_densify(A, X);
            cg_symmetrize(X, n);
            double *w = (double *) R_alloc(n, sizeof(double));
            double *Z = (double *) R_alloc((size_t) n * n, sizeof(double));
            /* (vl, vu]: below thresh, or above it (-Inf, Inf are fine) */
            const double vl = which < 0 ? R_NegInf : thresh, vu = which < 0 ? thresh : R_PosInf;
            int m = 0;
            st = syevr(X, n, "V", vl, vu, 0, 0, w, Z, &m);
            if (st != CG_OK) break;
            if (which < 0 && m > 0 && w[m - 1] >= thresh) m--;   /* strictly below */
            if (m > cap) { st = CG_ERR_DOMAIN; break; }
            for (int j = 0; j < m; j++) {        /* ascending: outer end first */
                const int src = which < 0 ? j : m - 1 - j;
                vals[j] = w[src];
                memcpy(vecs + (size_t) j * n, Z + (size_t) src * n, (size_t) n * sizeof(double));
            }
            *found = m;
            break;
        }
        double *ev = (double *) R_alloc(k, sizeof(double));
        double *evec = (double *) R_alloc((size_t) n * k, sizeof(double));
        st = eigs_lanczos_widening(A, k, which, tol, 3000, 2 * k + 1 > 20 ? 2 * k + 1 : 20,
                                   ev, evec);
        if (st != CG_OK) break;
        if (which * (ev[k - 1] - thresh) <= 0.0) {          /* all beyond are in */
            int m = 0;
            while (m < k && which * (ev[m] - thresh) > 0.0) m++;
            if (m > cap) { st = CG_ERR_DOMAIN; break; }
            memcpy(vals, ev, (size_t) m * sizeof(double));
            memcpy(vecs, evec, (size_t) n * m * sizeof(double));
            *found = m;
            break;
        }
        if (k > cap) { st = CG_ERR_DOMAIN; break; }     /* cap + 1 all beyond */
        /* never past cap + 1 pairs: they decide "more than cap" */
        k = extrapolate ? beyond_next_k(ev, k, which, thresh, cap)
                        : 2 * k > cap + 1 ? cap + 1 : 2 * k;
    }
    vmaxset(vmax);
    return st;
}

/* The smallest eigenvalue of symmetric A, moved outward by the tolerance,
 * when about k - 1 others cluster just above it (the directions in which a
 * floor binds): Lanczos for the k smallest together converges where a
 * single-value run stalls on the cluster (subspace widened as needed). */
int cg_lowest_eigenvalue(cg_linop *A, int k, double tol, double *value)
{
    const int n = A->n;
    if (A->m != n || n < 1) return CG_ERR_DOMAIN;
    if (k < 1) k = 1;
    const void *vmax = vmaxget();
    double *vals = (double *) R_alloc(k < n ? k : n, sizeof(double)), *vecs;
    int st;
    if (n <= CG_DENSE_MAX || 2 * k + 20 >= n) {
        vecs = (double *) R_alloc(n, sizeof(double));
        st = eigs_dense(A, 1, -1, value, vecs);
    } else {
        vecs = (double *) R_alloc((size_t) n * k, sizeof(double));
        st = eigs_lanczos_widening(A, k, -1, tol, 1000, 2 * k + 20, vals, vecs);
        if (st == CG_OK) *value = vals[0] - tol * fabs(vals[0]);
    }
    vmaxset(vmax);
    return st;
}
