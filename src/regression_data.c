/* The dense designs a regression fit prepares in R (R/sparse-regression.R
 * regression_centring(), R/regression-family.R column_moments() and
 * scale_columns(), R/cv.R fold_data()), the data's fingerprint
 * (R/validate.R) and a path's per-fit sums (intercept, l1 norm, nonzeros):
 * each as the R expression it replaces computes it, bit for bit (the same
 * operations in the same order: colMeans', colSums', rowSums' and sum()'s
 * long double sums, crossprod()'s dgemv), but in one pass, into at most one
 * new matrix, without the temporaries of the size of X that X[rows, ],
 * rep(xbar, each = n), X - ..., wv * Xb * Xb made (a CV made them for every
 * fold; with R's garbage collector they were a third of a small CV's
 * time). test-regression-family.R compares them with the R expressions. */
#include "stochcg.h"
#include <R_ext/BLAS.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <R_ext/Altrep.h>

/* ---- a CV fold's copy of X outside R's heap
 * cv_sparse_regression() keeps each fold's centred (and scaled) rows of X
 * for every piece of its grid (R/cv.R fold_data()). Made by allocMatrix(),
 * these copies (K of them, (K - 1) / K of X each, made for every CV) drove
 * R's garbage collector: it collected, mostly at its higher levels, every
 * one or two CVs (14-28% of a CV's CPU at 66 x 2307, 1000 x 200 and 4000 x
 * 500; cv_regression_lassokeep.md). Here a copy is a double vector of the
 * ALTREP class "cg_fold_real" whose elements are malloc'ed: REAL() is the
 * malloc'ed block (the same numbers, written by the same code), R counts
 * only the small header. The block is freed by cg_fold_release() when the
 * CV ends (on.exit in R, so on an error or interrupt too), or by the
 * finalizer of its external pointer (data1) if the vector is collected
 * first. After the release the vector must not be read (an error says so):
 * the CV's copies never leave it. Serialized as an ordinary vector (no
 * Serialized_state method): a future's worker gets a plain copy. */
static R_altrep_class_t fold_real_class;
static int fold_real_live = 0;       /* blocks allocated and not yet freed (tests) */

static void fold_real_free(SEXP ptr)
{
    void *p = R_ExternalPtrAddr(ptr);
    if (p) { free(p); R_ClearExternalPtr(ptr); fold_real_live--; }
}

/* the number of fold copies whose blocks are allocated (test-memory.R) */
SEXP cg_fold_live(void)
{
    return ScalarInteger(fold_real_live);
}

static R_xlen_t fold_real_length(SEXP x)
{
    return (R_xlen_t) REAL(R_altrep_data2(x))[0];
}

static void *fold_real_dataptr(SEXP x, Rboolean writeable)
{
    void *p = R_ExternalPtrAddr(R_altrep_data1(x));
    if (!p) error("a cross-validation fold's copy of X was read after the cross-validation ended");
    return p;
}

static const void *fold_real_dataptr_or_null(SEXP x)
{
    return R_ExternalPtrAddr(R_altrep_data1(x));
}

static double fold_real_elt(SEXP x, R_xlen_t i)
{
    return ((const double *) fold_real_dataptr(x, FALSE))[i];
}

static Rboolean fold_real_inspect(SEXP x, int pre, int deep, int pvec,
                                  void (*inspect_subtree)(SEXP, int, int, int))
{
    Rprintf(" cg_fold_real (%s)\n", R_ExternalPtrAddr(R_altrep_data1(x)) ? "live" : "released");
    return TRUE;
}

void cg_register_fold_real(DllInfo *dll)
{
    fold_real_class = R_make_altreal_class("cg_fold_real", "stochcg", dll);
    R_set_altrep_Length_method(fold_real_class, fold_real_length);
    R_set_altrep_Inspect_method(fold_real_class, fold_real_inspect);
    R_set_altvec_Dataptr_method(fold_real_class, fold_real_dataptr);
    R_set_altvec_Dataptr_or_null_method(fold_real_class, fold_real_dataptr_or_null);
    R_set_altreal_Elt_method(fold_real_class, fold_real_elt);
}

/* an m x p double matrix of class cg_fold_real (elements not initialized) */
static SEXP fold_real_matrix(int m, int p)
{
    SEXP ptr = PROTECT(R_MakeExternalPtr(NULL, R_NilValue, R_NilValue));
    R_RegisterCFinalizerEx(ptr, fold_real_free, TRUE);
    SEXP len = PROTECT(ScalarReal((double) m * p));
    SEXP out = PROTECT(R_new_altrep(fold_real_class, ptr, len));
    SEXP dim = PROTECT(allocVector(INTSXP, 2));
    INTEGER(dim)[0] = m;
    INTEGER(dim)[1] = p;
    setAttrib(out, R_DimSymbol, dim);
    double *buf = (double *) malloc(sizeof(double) * ((size_t) m * p > 0 ? (size_t) m * p : 1));
    if (!buf) error("cannot allocate %.1f MB for a cross-validation fold's copy of X",
                    8.0 * m * p / 1048576.0);
    R_SetExternalPtrAddr(ptr, buf);
    fold_real_live++;
    UNPROTECT(4);
    return out;
}

/* the release of a fold copy made by cg_centred_rows(external = TRUE);
 * anything else: nothing (FALSE) */
SEXP cg_fold_release(SEXP x)
{
    if (!ALTREP(x) || !R_altrep_inherits(x, fold_real_class)) return ScalarLogical(FALSE);
    fold_real_free(R_altrep_data1(x));
    return ScalarLogical(TRUE);
}

/* R's summation type (long double, unless R was built without it; the
 * public headers do not say, and standard builds have it) */
typedef long double sum_t;

/* the dense double matrix X (checked by R: check_design()) */
static void design_dims(SEXP X, int *n, int *p)
{
    SEXP dim = getAttrib(X, R_DimSymbol);
    if (!isReal(X) || LENGTH(dim) != 2) error("X must be a double matrix");
    *n = INTEGER(dim)[0];
    *p = INTEGER(dim)[1];
}

/* X[rows, , drop = FALSE]'s dimnames (rownames subset, colnames kept) */
static void set_row_dimnames(SEXP out, SEXP X, const int *rows, int m)
{
    SEXP dn = getAttrib(X, R_DimNamesSymbol);
    if (isNull(dn)) return;
    SEXP nd = PROTECT(allocVector(VECSXP, 2));
    SEXP rn = VECTOR_ELT(dn, 0);
    if (!isNull(rn)) {
        SEXP r = allocVector(STRSXP, m);
        SET_VECTOR_ELT(nd, 0, r);
        for (int i = 0; i < m; i++) SET_STRING_ELT(r, i, STRING_ELT(rn, rows[i] - 1));
    }
    SET_VECTOR_ELT(nd, 1, VECTOR_ELT(dn, 1));
    setAttrib(nd, R_NamesSymbol, getAttrib(dn, R_NamesSymbol));
    setAttrib(out, R_DimNamesSymbol, nd);
    UNPROTECT(1);
}

/* out = crossprod(w, M) for an n-vector w (dgemv, as R computes it; 0
 * when M is empty) */
static void weighted_col_sums(const double *M, int n, int p, const double *w, double *out)
{
    if (n > 0 && p > 0) {
        const double one = 1.0, zero = 0.0;
        const int inc = 1;
        F77_CALL(dgemv)("T", &n, &p, &one, M, &n, w, &inc, &zero, out, &inc FCONE);
    } else {
        for (int j = 0; j < p; j++) out[j] = 0.0;
    }
}

/* the column sds of column_moments(M, NULL) (the dgemv mean, then the
 * long double sum of squares around it), and from them the column scales
 * cs_j = 1 / (pf_j sd_j) (0 where sd_j = 0) that R computes; with
 * standardize FALSE, sd_j = 1. M (n x p) is not changed. */
static void column_scales(const double *M, int n, int p, int standardize, const double *pf,
                          double *sd, double *cs)
{
    double *m = (double *) R_alloc(p > 0 ? p : 1, sizeof(double));
    if (standardize) {
        double *ones = (double *) R_alloc(n > 0 ? n : 1, sizeof(double));
        for (int i = 0; i < n; i++) ones[i] = 1.0;
        weighted_col_sums(M, n, p, ones, m);
    }
    for (int j = 0; j < p; j++) {
        if (standardize) {
            const double mj = m[j] / n;
            const double *xj = M + (R_xlen_t) n * j;
            sum_t s = 0.0;
            for (int i = 0; i < n; i++) {
                const double xb = xj[i] - mj;
                const double t = 1.0 * xb;
                s += t * xb;
            }
            sd[j] = sqrt((double) s / n);
        } else {
            sd[j] = 1.0;
        }
        cs[j] = sd[j] > 0 ? 1.0 / ((pf ? pf[j] : 1.0) * sd[j]) : 0.0;
    }
}

/* The upper triangle of A'A (A k x p, column-major) into C (p x p) as the
 * reference BLAS's dsyrk("U", "T", alpha = 1, beta = 0) computes it -- the
 * routine R's crossprod(A) calls: each entry C(i, j), i <= j, the sum over
 * l = 1..k in order of A(l, i) A(l, j), started from zero, one rounding
 * per product and per addition. Here 4 x 4 entries at a time, 16 separate
 * sums each in that order (the same numbers), instead of one dot product
 * at a time (each loaded both columns again and waited on its one sum:
 * crossprod() of a 4000 x 500 design took 0.23 s, a sixth of a CV there).
 * With GNU C vector types the block's 4 columns j are first interleaved
 * (row l's 4 entries side by side) so that two sums advance per
 * instruction; each lane is still one sum's multiply and add (no fused
 * multiply-add on the baseline x86-64 and no reassociation: the same
 * numbers). The lower triangle is left alone. */
#if defined(__GNUC__) || defined(__clang__)
typedef double v2d __attribute__((vector_size(16), aligned(8)));
#define SYRK_PACKED 1
#endif

/* the block's sums over rows [l0, l1) added to s (which holds those over
 * the rows before l0) */
static void syrk_block_scalar(const double *A, size_t K, size_t l0, size_t l1, int i0, int ni,
                              int j0, int nj, double s[4][4])
{
    for (int a = 0; a < ni; a++)
        for (int b = 0; b < nj; b++) {
            const double *x = A + K * (i0 + a), *y = A + K * (j0 + b);
            double t = s[a][b];
            for (size_t l = l0; l < l1; l++) t += x[l] * y[l];
            s[a][b] = t;
        }
}

/* (more: C holds sums over earlier rows to carry on, cg_syrk_upper_more) */
static void syrk_upper_sums(const double *A, int k, int p, double *C, int more)
{
    const size_t K = (size_t) k, P = (size_t) p;
    /* the rows in chunks whose p columns fit in 1 MB of cache (16 to 2048
     * rows), each chunk's sums added to the sums so far, kept in C
     * (doubles: the same numbers as one pass); a whole pass per 4 x 4
     * block read the columns from memory again for every block (2000 x
     * 1500: 0.25 s against 0.39 s with 256 KB chunks, 1.06 s the
     * reference dsyrk) */
    size_t chunk = 131072 / (P > 0 ? P : 1);
    if (chunk < 16) chunk = 16;
    if (chunk > 2048) chunk = 2048;
    for (size_t l0 = 0; l0 < K; l0 += chunk) {
        const size_t l1 = K - l0 < chunk ? K : l0 + chunk, len = l1 - l0;
#ifdef SYRK_PACKED
        double pack[4 * 2048];
        const int packed = len <= 2048;
#endif
        for (int j0 = 0; j0 < p; j0 += 4) {
            const int nj = p - j0 < 4 ? p - j0 : 4;
#ifdef SYRK_PACKED
            /* the chunk's rows of the block's columns side by side (absent
             * ones 0: their sums are not stored) */
            if (packed)
                for (int b = 0; b < 4; b++) {
                    const double *y = A + K * (j0 + (b < nj ? b : 0)) + l0;
                    for (size_t l = 0; l < len; l++) pack[4 * l + b] = b < nj ? y[l] : 0.0;
                }
#endif
            for (int i0 = 0; i0 <= j0; i0 += 4) {
                const int ni = p - i0 < 4 ? p - i0 : 4;
                double s[4][4] = {{0.0}};
                if (l0 > 0 || more)
                    for (int b = 0; b < nj; b++)
                        for (int a = 0; a < ni && i0 + a <= j0 + b; a++)
                            s[a][b] = C[(size_t) (i0 + a) + P * (j0 + b)];
#ifdef SYRK_PACKED
                if (packed && ni == 4) {
                    const double *a0 = A + K * i0 + l0, *a1 = a0 + K, *a2 = a1 + K, *a3 = a2 + K;
                    v2d c00 = {s[0][0], s[0][1]}, c02 = {s[0][2], s[0][3]},
                        c10 = {s[1][0], s[1][1]}, c12 = {s[1][2], s[1][3]},
                        c20 = {s[2][0], s[2][1]}, c22 = {s[2][2], s[2][3]},
                        c30 = {s[3][0], s[3][1]}, c32 = {s[3][2], s[3][3]};
                    for (size_t l = 0; l < len; l++) {
                        const v2d y01 = *(const v2d *) (pack + 4 * l);
                        const v2d y23 = *(const v2d *) (pack + 4 * l + 2);
                        const v2d x0 = {a0[l], a0[l]}, x1 = {a1[l], a1[l]},
                                  x2 = {a2[l], a2[l]}, x3 = {a3[l], a3[l]};
                        c00 += x0 * y01; c02 += x0 * y23;
                        c10 += x1 * y01; c12 += x1 * y23;
                        c20 += x2 * y01; c22 += x2 * y23;
                        c30 += x3 * y01; c32 += x3 * y23;
                    }
                    s[0][0] = c00[0]; s[0][1] = c00[1]; s[0][2] = c02[0]; s[0][3] = c02[1];
                    s[1][0] = c10[0]; s[1][1] = c10[1]; s[1][2] = c12[0]; s[1][3] = c12[1];
                    s[2][0] = c20[0]; s[2][1] = c20[1]; s[2][2] = c22[0]; s[2][3] = c22[1];
                    s[3][0] = c30[0]; s[3][1] = c30[1]; s[3][2] = c32[0]; s[3][3] = c32[1];
                } else
#endif
                syrk_block_scalar(A, K, l0, l1, i0, ni, j0, nj, s);
                for (int b = 0; b < nj; b++)
                    for (int a = 0; a < ni && i0 + a <= j0 + b; a++)
                        C[(size_t) (i0 + a) + P * (j0 + b)] = s[a][b];
            }
        }
    }
}

static void syrk_upper_ref(const double *A, int k, int p, double *C)
{
    syrk_upper_sums(A, k, p, C, 0);
}

/* C's upper triangle (p x p) += A'A, A k x p: each sum carried on from C in
 * row order (rows split into blocks give the numbers of one call over all
 * of them). The GLM Hessians by blocks of rows (src/prob_glm.c, issue 25's
 * glmcd: 2-3x the rate of eight dot products at a time) */
void cg_syrk_upper_more(const double *A, int k, int p, double *C)
{
    syrk_upper_sums(A, k, p, C, 1);
}

/* R's test before a BLAS product (array.c, mayHaveNaNOrInf): a pair of
 * entries whose sum is not finite sends crossprod() to its own long
 * double loop instead of dsyrk */
static int may_have_nan_or_inf(const double *x, R_xlen_t n)
{
    if ((n & 1) != 0 && !R_FINITE(x[0])) return 1;
    for (R_xlen_t i = n & 1; i < n; i += 2)
        if (!R_FINITE(x[i] + x[i + 1])) return 1;
    return 0;
}

/* the lower triangle of a p x p matrix from its upper one (as R mirrors
 * dsyrk's result) */
static void mirror_upper(double *g, int p)
{
    for (int i = 1; i < p; i++)
        for (int j = 0; j < i; j++) g[i + (R_xlen_t) p * j] = g[j + (R_xlen_t) p * i];
}

/* crossprod(X) of a dense double matrix X, without dimnames, the same
 * numbers as R's with the reference BLAS (dsyrk, then the upper triangle
 * mirrored): syrk_upper_ref(). NULL where R would not call dsyrk (see
 * may_have_nan_or_inf): the caller then calls crossprod(). */
SEXP cg_crossprod(SEXP X)
{
    int n, p;
    design_dims(X, &n, &p);
    const double *x = REAL(X);
    if (may_have_nan_or_inf(x, (R_xlen_t) n * p)) return R_NilValue;
    SEXP out = PROTECT(allocMatrix(REALSXP, p, p));
    double *g = REAL(out);
    if (n > 0 && p > 0) {
        syrk_upper_ref(x, n, p, g);
        mirror_upper(g, p);
    } else {
        for (R_xlen_t k = 0; k < (R_xlen_t) p * p; k++) g[k] = 0.0;
    }
    UNPROTECT(1);
    return out;
}

/* tcrossprod(X) of a dense double X, without dimnames: the numbers of the
 * reference dsyrk("U", "N") R calls (C(i, j), i <= j, the sum over l in
 * order of X(j, l) X(i, l); its skipped zero X(j, l) add exact zeros to
 * finite sums), by syrk_upper_ref() on the transpose (a copy outside R's
 * heap); NULL where R would not call dsyrk. (The default radii's ridge
 * system at p > n: 19 ms of a 0.36 s CV at 160 x 5000 by the reference
 * routine.) */
SEXP cg_tcrossprod(SEXP X)
{
    int n, p;
    design_dims(X, &n, &p);
    const double *x = REAL(X);
    if (may_have_nan_or_inf(x, (R_xlen_t) n * p)) return R_NilValue;
    SEXP out = PROTECT(allocMatrix(REALSXP, n, n));
    double *g = REAL(out);
    if (n > 0 && p > 0) {
        /* (nothing below raises an R error before the free) */
        double *xt = (double *) malloc(sizeof(double) * (size_t) n * p);
        if (!xt) {
            UNPROTECT(1);
            return R_NilValue;
        }
        for (int j = 0; j < p; j++)
            for (int i = 0; i < n; i++) xt[j + (size_t) p * i] = x[i + (size_t) n * j];
        syrk_upper_ref(xt, p, n, g);
        free(xt);
        mirror_upper(g, n);
    } else {
        for (R_xlen_t k = 0; k < (R_xlen_t) n * n; k++) g[k] = 0.0;
    }
    UNPROTECT(1);
    return out;
}

/* X'v (trans TRUE) or X v (FALSE) of a dense double X, the numbers of R's
 * crossprod(X, v) / X %*% v on the reference BLAS (dgemv("T") / ("N"),
 * alpha 1, beta 0): X'v's entry j the sum over i in order of X(i, j) v_i
 * from zero, four columns' sums side by side; X v's entry i the sum over j
 * in order of v_j X(i, j), column by column. The caller has checked X as
 * R's product would (may_have_nan_or_inf: cg_blas_safe()); v is checked
 * here (NULL: R computes it). The default radii's ridge by conjugate
 * gradients at p > n (least_squares(): two products per iteration, 7% of
 * a CV at 1600 x 5000). */
SEXP cg_gemv(SEXP X, SEXP v, SEXP trans)
{
    int n, p;
    design_dims(X, &n, &p);
    const int t = asLogical(trans) == TRUE;
    if (!isReal(v) || LENGTH(v) != (t ? n : p)) error("v must be %d doubles", t ? n : p);
    const double *x = REAL(X), *vv = REAL(v);
    if (may_have_nan_or_inf(vv, LENGTH(v))) return R_NilValue;
    SEXP out = PROTECT(allocVector(REALSXP, t ? p : n));
    double *o = REAL(out);
    const size_t N = (size_t) n;
    if (t) {
        int j = 0;
        for (; j + 4 <= p; j += 4) {
            const double *a0 = x + N * j, *a1 = a0 + N, *a2 = a1 + N, *a3 = a2 + N;
            double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
            for (size_t i = 0; i < N; i++) {
                const double w = vv[i];
                s0 += a0[i] * w; s1 += a1[i] * w; s2 += a2[i] * w; s3 += a3[i] * w;
            }
            o[j] = s0; o[j + 1] = s1; o[j + 2] = s2; o[j + 3] = s3;
        }
        for (; j < p; j++) {
            const double *a = x + N * j;
            double s0 = 0.0;
            for (size_t i = 0; i < N; i++) s0 += a[i] * vv[i];
            o[j] = s0;
        }
    } else {
        for (size_t i = 0; i < N; i++) o[i] = 0.0;
        for (int j = 0; j < p; j++) {
            const double w = vv[j];
            const double *a = x + N * j;
            for (size_t i = 0; i < N; i++) o[i] = o[i] + w * a[i];
        }
    }
    UNPROTECT(1);
    return out;
}

/* TRUE where R's products with X call the BLAS (no pair of entries whose
 * sum is not finite: may_have_nan_or_inf) */
SEXP cg_blas_safe(SEXP X)
{
    return ScalarLogical(!may_have_nan_or_inf(REAL(X), XLENGTH(X)));
}

/* X[, j] b_j summed over the nonzero b_j, in column order, from zero: the
 * numbers of X[, nz] %*% b[nz] (dgemv("N"), alpha 1, beta 0, with the
 * reference BLAS) without the copy X[, nz] (a path's fitted values: the
 * copies were a tenth of a CV at 1000 x 200) */
SEXP cg_support_fitted(SEXP X, SEXP b, SEXP all_cols)
{
    int n, p;
    design_dims(X, &n, &p);
    if (!isReal(b) || LENGTH(b) != p) error("b must be p doubles");
    const double *x = REAL(X), *bv = REAL(b);
    /* entries beyond DBL_MAX / 2 (or not finite) could send R's product to
     * its long double loop (may_have_nan_or_inf): NULL, R computes it.
     * all_cols TRUE: the numbers of X %*% b (predict()), whose test reads
     * every column (a zero b_j adds exact zeros to finite sums: the support's
     * columns alone give the same numbers) */
    const double big = DBL_MAX / 2;
    const int all = asLogical(all_cols) == TRUE;
    for (int j = 0; j < p; j++) {
        if (bv[j] == 0.0 && !all) continue;
        if (!(fabs(bv[j]) <= big)) return R_NilValue;
        const double *xj = x + (R_xlen_t) n * j;
        for (int i = 0; i < n; i++)
            if (!(fabs(xj[i]) <= big)) return R_NilValue;
    }
    SEXP out = PROTECT(allocVector(REALSXP, n));
    double *f = REAL(out);
    for (int i = 0; i < n; i++) f[i] = 0.0;
    for (int j = 0; j < p; j++) {
        const double t = bv[j];
        if (t == 0.0) continue;
        const double *xj = x + (R_xlen_t) n * j;
        for (int i = 0; i < n; i++) f[i] = f[i] + t * xj[i];
    }
    UNPROTECT(1);
    return out;
}

/* list(X = X[rows, ] - 1 xbar', xbar = colMeans(X[rows, ])) with rows
 * 1-based (NULL: all rows; then X's attributes kept, as X - rep(xbar, each
 * = n) keeps them); centre = FALSE: X[rows, ] and xbar NULL. With scale =
 * list(standardize, pf) the columns of that matrix are then scaled as
 * cv_sparse_regression() scales a fold's (column_moments()' sds of the
 * centred rows, cs = 1 / (pf sd), X * rep(cs, each = n)), in place, and the
 * list has sd and cs too: one new matrix for what took two. */
SEXP cg_centred_rows(SEXP X, SEXP rows, SEXP centre, SEXP scale, SEXP external)
{
    int n, p;
    design_dims(X, &n, &p);
    const int all = isNull(rows);
    if (!all && !isInteger(rows)) error("rows must be integer");
    const int m = all ? n : LENGTH(rows);
    const int *ri = all ? NULL : INTEGER(rows);
    if (!all)
        for (int i = 0; i < m; i++)
            if (ri[i] == NA_INTEGER || ri[i] < 1 || ri[i] > n) error("rows out of range");
    const int cen = asLogical(centre) == TRUE;
    const int scaled = !isNull(scale);
    int standardize = 0;
    const double *pf = NULL;
    if (scaled) {
        if (TYPEOF(scale) != VECSXP || LENGTH(scale) != 2) error("scale must be list(standardize, pf)");
        standardize = asLogical(VECTOR_ELT(scale, 0)) == TRUE;
        SEXP f = VECTOR_ELT(scale, 1);
        if (!isNull(f)) {
            if (!isReal(f) || LENGTH(f) != p) error("pf must be NULL or p doubles");
            pf = REAL(f);
        }
    }
    /* (external = TRUE: a CV fold's copy outside R's heap, above) */
    SEXP out = PROTECT(asLogical(external) == TRUE && !all ? fold_real_matrix(m, p)
                       : allocMatrix(REALSXP, m, p));
    SEXP xbar = PROTECT(cen ? allocVector(REALSXP, p) : R_NilValue);
    SEXP sd = PROTECT(scaled ? allocVector(REALSXP, p) : R_NilValue);
    SEXP cs = PROTECT(scaled ? allocVector(REALSXP, p) : R_NilValue);
    const double *x = REAL(X);
    double *o = REAL(out);
    for (int j = 0; j < p; j++) {
        const double *xj = x + (R_xlen_t) n * j;
        double *oj = o + (R_xlen_t) m * j;
        if (all) memcpy(oj, xj, sizeof(double) * m);
        else for (int i = 0; i < m; i++) oj[i] = xj[ri[i] - 1];
        if (!cen) continue;
        /* colMeans(): a long double sum, divided in long double */
        sum_t s = 0.0;
        for (int i = 0; i < m; i++) s += oj[i];
        s /= m;
        const double mj = (double) s;
        REAL(xbar)[j] = mj;
        for (int i = 0; i < m; i++) oj[i] = oj[i] - mj;
    }
    if (scaled) {
        column_scales(o, m, p, standardize, pf, REAL(sd), REAL(cs));
        for (int j = 0; j < p; j++) {
            double *oj = o + (R_xlen_t) m * j;
            const double c = REAL(cs)[j];
            for (int i = 0; i < m; i++) oj[i] = oj[i] * c;
        }
    }
    if (all) DUPLICATE_ATTRIB(out, X);
    else set_row_dimnames(out, X, ri, m);
    static const char *names[] = {"X", "xbar", "sd", "cs", ""};
    SEXP res = PROTECT(mkNamed(VECSXP, names));
    SET_VECTOR_ELT(res, 0, out);
    SET_VECTOR_ELT(res, 1, xbar);
    SET_VECTOR_ELT(res, 2, sd);
    SET_VECTOR_ELT(res, 3, cs);
    UNPROTECT(5);
    return res;
}

/* column_moments() of a dense X: m = crossprod(wv, X) / n (dgemv, as R's
 * crossprod() of a vector and a matrix), v = colSums(wv * Xb * Xb) / n with
 * Xb = X - 1 m' (long double sums, as colSums()); list(mean = m, sd =
 * sqrt(v)). w: NULL (all 1) or n weights. */
SEXP cg_column_moments(SEXP X, SEXP w)
{
    int n, p;
    design_dims(X, &n, &p);
    if (!isNull(w) && (!isReal(w) || LENGTH(w) != n)) error("w must be NULL or n doubles");
    SEXP mean = PROTECT(allocVector(REALSXP, p));
    SEXP sd = PROTECT(allocVector(REALSXP, p));
    double *wv = (double *) R_alloc(n > 0 ? n : 1, sizeof(double));
    for (int i = 0; i < n; i++) wv[i] = isNull(w) ? 1.0 : REAL(w)[i];
    double *m = REAL(mean);
    const double *x = REAL(X);
    weighted_col_sums(x, n, p, wv, m);
    for (int j = 0; j < p; j++) {
        m[j] = m[j] / n;
        const double *xj = x + (R_xlen_t) n * j;
        sum_t s = 0.0;
        for (int i = 0; i < n; i++) {
            const double xb = xj[i] - m[j];
            const double t = wv[i] * xb;
            s += t * xb;
        }
        REAL(sd)[j] = sqrt((double) s / n);
    }
    static const char *names[] = {"mean", "sd", ""};
    SEXP res = PROTECT(mkNamed(VECSXP, names));
    SET_VECTOR_ELT(res, 0, mean);
    SET_VECTOR_ELT(res, 1, sd);
    UNPROTECT(3);
    return res;
}

/* X * rep(cs, each = n) (X's attributes kept), minus shift[j] from column j
 * when shift is given: (X * rep(cs, each = n))[, j] - shift[j] */
SEXP cg_scale_columns(SEXP X, SEXP cs, SEXP shift)
{
    int n, p;
    design_dims(X, &n, &p);
    if (!isReal(cs) || LENGTH(cs) != p) error("cs must be p doubles");
    if (!isNull(shift) && (!isReal(shift) || LENGTH(shift) != p))
        error("shift must be NULL or p doubles");
    SEXP out = PROTECT(allocMatrix(REALSXP, n, p));
    const double *x = REAL(X), *c = REAL(cs);
    double *o = REAL(out);
    for (int j = 0; j < p; j++) {
        const double *xj = x + (R_xlen_t) n * j;
        double *oj = o + (R_xlen_t) n * j;
        for (int i = 0; i < n; i++) oj[i] = xj[i] * c[j];
        if (!isNull(shift)) {
            const double sj = REAL(shift)[j];
            for (int i = 0; i < n; i++) oj[i] = oj[i] - sj;
        }
    }
    DUPLICATE_ATTRIB(out, X);
    UNPROTECT(1);
    return out;
}

/* sum() of doubles: a long double sum, +-Inf past the double range */
static double r_sum(sum_t s)
{
    if (s > DBL_MAX) return R_PosInf;
    if (s < -DBL_MAX) return R_NegInf;
    return (double) s;
}

/* fingerprint() of a double matrix (R/validate.R): with rs = rowSums(x),
 * cs = colSums(x), c(dim(x), sum(rs), sum(rs * rs), sum(rs * seq_len(n)),
 * sum(cs * seq_len(p)), sum(cs * (seq_len(p) %% 7 + 1))), the same numbers
 * in one pass over x without its R temporaries (it was a tenth of a
 * binomial fit's time at 5000 x 50, taken once per fit) */
SEXP cg_fingerprint(SEXP X)
{
    int n, p;
    design_dims(X, &n, &p);
    sum_t *rows = (sum_t *) R_alloc(n > 0 ? n : 1, sizeof(sum_t));
    for (int i = 0; i < n; i++) rows[i] = 0.0;
    const double *x = REAL(X);
    sum_t c1 = 0.0, c2 = 0.0;
    for (int j = 0; j < p; j++) {
        const double *xj = x + (R_xlen_t) n * j;
        sum_t s = 0.0;
        for (int i = 0; i < n; i++) {
            rows[i] += xj[i];
            s += xj[i];
        }
        const double cj = (double) s;
        const double t1 = cj * (double) (j + 1);
        const double t2 = cj * ((double) ((j + 1) % 7) + 1.0);
        c1 += t1;
        c2 += t2;
    }
    sum_t r0 = 0.0, r1 = 0.0, r2 = 0.0;
    for (int i = 0; i < n; i++) {
        const double ri = (double) rows[i];
        const double sq = ri * ri, wi = ri * (double) (i + 1);
        r0 += ri;
        r1 += sq;
        r2 += wi;
    }
    SEXP out = PROTECT(allocVector(REALSXP, 7));
    double *o = REAL(out);
    o[0] = n; o[1] = p;
    o[2] = r_sum(r0); o[3] = r_sum(r1); o[4] = r_sum(r2);
    o[5] = r_sum(c1); o[6] = r_sum(c2);
    UNPROTECT(1);
    return out;
}

/* sum(x * y) of two double vectors of one length, as R computes it (the
 * products in double, a long double sum), without the vector x * y */
SEXP cg_sum_product(SEXP x, SEXP y)
{
    if (!isReal(x) || !isReal(y) || XLENGTH(x) != XLENGTH(y))
        error("x and y must be double vectors of one length");
    const double *a = REAL(x), *b = REAL(y);
    sum_t s = 0.0;
    for (R_xlen_t i = 0; i < XLENGTH(x); i++) {
        const double t = a[i] * b[i];
        s += t;
    }
    return ScalarReal(r_sum(s));
}

/* for a list of double vectors b: list(nonzero = sum(b != 0) (integer),
 * l1 = sum(abs(b))) of each, as R computes them, without the vectors
 * b != 0 and abs(b) per fit (a path's summary); NULL when one is not a
 * double vector or holds NA/NaN (R computes those) */
SEXP cg_l1_nonzero(SEXP fits)
{
    if (TYPEOF(fits) != VECSXP) error("a list of double vectors expected");
    const R_xlen_t k = XLENGTH(fits);
    SEXP nz = PROTECT(allocVector(INTSXP, k)), l1 = PROTECT(allocVector(REALSXP, k));
    for (R_xlen_t f = 0; f < k; f++) {
        SEXP b = VECTOR_ELT(fits, f);
        if (!isReal(b)) { UNPROTECT(2); return R_NilValue; }
        const double *v = REAL(b);
        sum_t s = 0.0;
        R_xlen_t c = 0;
        for (R_xlen_t i = 0; i < XLENGTH(b); i++) {
            if (ISNAN(v[i])) { UNPROTECT(2); return R_NilValue; }
            c += v[i] != 0.0;
            s += fabs(v[i]);
        }
        if (c > INT_MAX) error("too many nonzeros");
        INTEGER(nz)[f] = (int) c;
        REAL(l1)[f] = r_sum(s);
    }
    static const char *names[] = {"nonzero", "l1", ""};
    SEXP out = PROTECT(mkNamed(VECSXP, names));
    SET_VECTOR_ELT(out, 0, nz);
    SET_VECTOR_ELT(out, 1, l1);
    UNPROTECT(3);
    return out;
}

/* A double vector's entries other than +0 (a CV fold's kept fit,
 * R/cv.R cv_fit_keep()): list(i, x), their 1-based positions and values,
 * in one pass without the p-long temporaries of which(x != 0) (a -0 is
 * kept, so that the vector comes back identical()). NULL when x is not a
 * double vector. */
SEXP cg_pack_nonzero(SEXP x)
{
    if (!isReal(x)) return R_NilValue;
    const double *v = REAL(x);
    const R_xlen_t n = XLENGTH(x);
    if (n > INT_MAX) return R_NilValue;
    R_xlen_t c = 0;
    for (R_xlen_t j = 0; j < n; j++) c += v[j] != 0.0 || signbit(v[j]);
    SEXP idx = PROTECT(allocVector(INTSXP, c)), val = PROTECT(allocVector(REALSXP, c));
    int *pi = INTEGER(idx);
    double *pv = REAL(val);
    R_xlen_t k = 0;
    for (R_xlen_t j = 0; j < n; j++)
        if (v[j] != 0.0 || signbit(v[j])) { pi[k] = (int) j + 1; pv[k] = v[j]; k++; }
    static const char *names[] = {"i", "x", ""};
    SEXP out = PROTECT(mkNamed(VECSXP, names));
    SET_VECTOR_ELT(out, 0, idx);
    SET_VECTOR_ELT(out, 1, val);
    UNPROTECT(3);
    return out;
}

/* The response's statistics from its blocks (R/readers.R, y on disk):
 * mean(y) as R computes it (a long double sum divided by n, then the long
 * double sum of the deviations from that, added over n) and the double
 * sum of squares around a centre in order (as prob_regression.c summed
 * y'y), carried across blocks in `state` (a raw vector: the long double
 * sums must not be rounded to double between blocks). pass 1 adds the
 * block to the sum, pass 2 its deviations from the first mean, pass 3 its
 * squares around `center`; pass 0 returns list(mean, yy). Bit for bit the
 * values of mean(y) and the old loop over the whole vector. */
typedef struct { sum_t s, t; double yy; } y_state;

SEXP cg_y_pass(SEXP v, SEXP state, SEXP pass, SEXP n, SEXP center)
{
    y_state st;
    memset(&st, 0, sizeof st);
    if (!isNull(state)) {
        if (TYPEOF(state) != RAWSXP || XLENGTH(state) != (R_xlen_t) sizeof st)
            error("invalid state");
        memcpy(&st, RAW(state), sizeof st);
    }
    const int what = asInteger(pass);
    const double nn = asReal(n);
    if (what == 0) {
        sum_t s = st.s / (R_xlen_t) nn;
        if (R_FINITE((double) s)) s += st.t / (R_xlen_t) nn;
        SEXP out = PROTECT(allocVector(VECSXP, 2));
        SET_VECTOR_ELT(out, 0, ScalarReal((double) s));
        SET_VECTOR_ELT(out, 1, ScalarReal(st.yy));
        UNPROTECT(1);
        return out;
    }
    if (!isReal(v)) error("v must be a double vector");
    const double *a = REAL(v);
    const R_xlen_t m = XLENGTH(v);
    if (what == 1) {
        for (R_xlen_t i = 0; i < m; i++) st.s += a[i];
    } else if (what == 2) {
        const sum_t s = st.s / (R_xlen_t) nn;
        for (R_xlen_t i = 0; i < m; i++) st.t += (a[i] - s);
    } else {
        const double c = asReal(center);
        for (R_xlen_t i = 0; i < m; i++) {
            const double e = a[i] - c;
            st.yy += e * e;
        }
    }
    SEXP out = PROTECT(allocVector(RAWSXP, sizeof st));
    memcpy(RAW(out), &st, sizeof st);
    UNPROTECT(1);
    return out;
}

/* ------------------------------------------------------ the moments pass
 * reader_moments() (R/readers.R): the pass over a reader's blocks that
 * checks every value, finds the largest |value| and the nonzeros and, with
 * sums, the column sums around the first block's means, X'X, the
 * covariance's crossproduct and X'(y - ycenter), y'y. One .Call per block
 * adds the block's share into the accumulators cg_moments_new() made
 * (changed in place: reader_moments() holds the only reference), with R's
 * arithmetic in R's order (the expressions it replaces, each block:
 * shift = colMeans(B) of the first; D = B - rep(shift, each = n);
 * s1 + colSums(D); s2 + colSums(D * D); G + crossprod(B); C +
 * crossprod(D); xty + drop(crossprod(B, y - ycenter)); cg_y_pass()'s y'y;
 * max(max_abs, abs(range(B))); nnz + sum(B != 0)), bit for bit
 * (test-readers.R), but without the block-sized R temporaries those made
 * (rep(), D, D * D, range()'s copy, B != 0: ~4 blocks per block, which
 * made R's garbage collector most of the pass's time). Scratch memory
 * (p x p, and D for the covariance) is outside R's heap, freed before
 * returning. */
SEXP cg_moments_new(SEXP p_, SEXP gram, SEXP cov)
{
    const int p = asInteger(p_);
    if (p == NA_INTEGER || p < 1) error("p must be a positive count");
    static const char *names[] = {"shift", "s1", "s2", "gram", "cov", "xty", "scal", ""};
    SEXP acc = PROTECT(mkNamed(VECSXP, names));
    for (int e = 0; e < 7; e++) {
        const int square = e == 3 || e == 4;
        if ((e == 3 && !asLogical(gram)) || (e == 4 && !asLogical(cov))) continue;
        /* scal: max |x|, nonzeros, y'y, blocks added */
        const R_xlen_t len = square ? (R_xlen_t) p * p : e == 6 ? 4 : p;
        SEXP v = square ? allocMatrix(REALSXP, p, p) : allocVector(REALSXP, len);
        SET_VECTOR_ELT(acc, e, v);
        memset(REAL(v), 0, sizeof(double) * (size_t) len);
    }
    UNPROTECT(1);
    return acc;
}

/* dsyrk's X'X (upper) of the n x p x into the p x p z, made symmetric:
 * R's crossprod(x) of a finite x */
static void sym_crossprod(const double *x, int n, int p, double *z)
{
    const double one = 1.0, zero = 0.0;
    F77_CALL(dsyrk)("U", "T", &p, &n, &one, x, &n, &zero, z, &p FCONE FCONE);
    for (int i = 1; i < p; i++)
        for (int j = 0; j < i; j++) z[i + (R_xlen_t) p * j] = z[j + (R_xlen_t) p * i];
}

static void check_acc(SEXP acc, int p)
{
    if (TYPEOF(acc) != VECSXP || LENGTH(acc) != 7 || (p > 0 && LENGTH(VECTOR_ELT(acc, 1)) != p))
        error("acc must be the accumulators of cg_moments_new() for %d columns", p);
}

/* the block B (n x p doubles) into acc; FALSE (nothing reliable added)
 * when B holds NA, NaN or Inf, for R's error naming the block. Without
 * sums, only the checks, max |x| and the nonzeros (B of any shape). */
SEXP cg_moments_block(SEXP acc, SEXP B, SEXP sums_)
{
    int n, p;
    design_dims(B, &n, &p);
    const int sums = asLogical(sums_);
    check_acc(acc, sums ? p : 0);
    const double *x = REAL(B);
    const R_xlen_t len = (R_xlen_t) n * p;
    double *sc = REAL(VECTOR_ELT(acc, 6));
    /* all_finite(B), max(max_abs, abs(range(B))), nnz + sum(B != 0) */
    double lo = R_PosInf, hi = R_NegInf, nz = 0.0;
    for (R_xlen_t t = 0; t < len; t++) {
        const double v = x[t];
        if (!R_FINITE(v)) return ScalarLogical(FALSE);
        if (v < lo) lo = v;
        if (v > hi) hi = v;
        if (v != 0.0) nz += 1.0;
    }
    if (len > 0) sc[0] = fmax(sc[0], fmax(fabs(lo), fabs(hi)));
    sc[1] += nz;
    if (!sums) return ScalarLogical(TRUE);
    double *shift = REAL(VECTOR_ELT(acc, 0)), *s1 = REAL(VECTOR_ELT(acc, 1)),
           *s2 = REAL(VECTOR_ELT(acc, 2));
    if (sc[3] == 0.0) {                          /* colMeans() of the first block */
        for (int j = 0; j < p; j++) {
            const double *xj = x + (R_xlen_t) n * j;
            sum_t s = 0.0;
            for (int i = 0; i < n; i++) s += xj[i];
            s /= n;
            shift[j] = (double) s;
        }
    }
    sc[3] += 1.0;
    SEXP Gs = VECTOR_ELT(acc, 3), Cs = VECTOR_ELT(acc, 4);
    double *D = isNull(Cs) ? NULL : R_Calloc(len > 0 ? len : 1, double);
    for (int j = 0; j < p; j++) {
        const double *xj = x + (R_xlen_t) n * j;
        const double c = shift[j];
        sum_t a = 0.0, b = 0.0;
        for (int i = 0; i < n; i++) {
            const double d = xj[i] - c;
            const double dd = d * d;
            a += d;
            b += dd;
            if (D) D[i + (R_xlen_t) n * j] = d;
        }
        s1[j] = s1[j] + (double) a;
        s2[j] = s2[j] + (double) b;
    }
    const R_xlen_t pp = (R_xlen_t) p * p;
    if (!isNull(Gs) || D) {
        double *z = R_Calloc(pp, double);
        if (!isNull(Gs)) {
            double *G = REAL(Gs);
            sym_crossprod(x, n, p, z);
            for (R_xlen_t t = 0; t < pp; t++) G[t] = G[t] + z[t];
        }
        if (D) {
            double *C = REAL(Cs);
            sym_crossprod(D, n, p, z);
            for (R_xlen_t t = 0; t < pp; t++) C[t] = C[t] + z[t];
            R_Free(D);
        }
        R_Free(z);
    }
    return ScalarLogical(TRUE);
}

/* block B's responses y (n doubles, checked by R) into acc, after B:
 * X'(y - ycenter) and y'y around ycenter */
SEXP cg_moments_y(SEXP acc, SEXP B, SEXP y, SEXP ycenter)
{
    int n, p;
    design_dims(B, &n, &p);
    check_acc(acc, p);
    if (!isReal(y) || XLENGTH(y) != n) error("y must be %d doubles", n);
    const double *x = REAL(B), *yv = REAL(y), c = asReal(ycenter);
    double *sc = REAL(VECTOR_ELT(acc, 6)), *xty = REAL(VECTOR_ELT(acc, 5)), yy = sc[2];
    double *v = R_Calloc(n > 0 ? n : 1, double), *z = R_Calloc(p, double);
    for (int i = 0; i < n; i++) v[i] = yv[i] - c;
    weighted_col_sums(x, n, p, v, z);             /* crossprod(B, y - ycenter) */
    for (int j = 0; j < p; j++) xty[j] = xty[j] + z[j];
    for (int i = 0; i < n; i++) {                 /* as cg_y_pass()'s pass 3 */
        const double e = yv[i] - c;
        yy += e * e;
    }
    sc[2] = yy;
    R_Free(v);
    R_Free(z);
    return R_NilValue;
}

/* A CV fold's X'X / m (m its training rows' number) from the full data's
 * X'X (`full`, p x p) and the fold's held-out rows of X (`held`, 1-based):
 * (full - crossprod(X[held, ])) / m, less xbar xbar' when xbar is given
 * (its training rows centred), times cs cs' when cs is given (its columns
 * scaled): R/cv.R fold_data() computed it as full - dense_crossprod(...),
 * / m, - tcrossprod(xbar), * tcrossprod(cs), five p x p matrices and a copy
 * of the held-out rows per fold (a fifth of a CV's allocation at 4000 x
 * 500). The same numbers: the held-out rows' X'X by dsyrk as R's
 * crossprod() (upper triangle, mirrored), each entry then as the R
 * expressions (tcrossprod()'s entries are the products xbar_i xbar_j).
 * ref TRUE (R linked to the reference BLAS, R/sparse-regression.R
 * ref_blas()): dsyrk's numbers by syrk_upper_ref(), several times faster.
 * NULL when the held-out rows are not all finite (R's crossprod() then
 * takes another route: fold_data() keeps the R expressions). */
SEXP cg_fold_gram(SEXP X, SEXP held, SEXP full, SEXP m, SEXP xbar, SEXP cs, SEXP ref)
{
    int n, p;
    design_dims(X, &n, &p);
    if (!isInteger(held)) error("held must be integer");
    if (!isReal(full) || XLENGTH(full) != (R_xlen_t) p * p) error("full must be p x p doubles");
    if (!isNull(xbar) && (!isReal(xbar) || LENGTH(xbar) != p)) error("xbar must be NULL or p doubles");
    if (!isNull(cs) && (!isReal(cs) || LENGTH(cs) != p)) error("cs must be NULL or p doubles");
    const int h = LENGTH(held);
    const int *hi = INTEGER(held);
    for (int i = 0; i < h; i++)
        if (hi[i] == NA_INTEGER || hi[i] < 1 || hi[i] > n) error("held rows out of range");
    const double md = asReal(m);
    const double *x = REAL(X);
    SEXP out = PROTECT(allocMatrix(REALSXP, p, p));
    double *g = REAL(out);
    /* the held-out rows, gathered outside R's heap (an R_alloc counted
     * towards the collector's trigger as the copy it replaces); nothing
     * below can raise an R error before the R_Free */
    double *xh = R_Calloc(h > 0 ? (size_t) h * p : 1, double);
    for (int j = 0; j < p; j++) {
        const double *xj = x + (R_xlen_t) n * j;
        double *hj = xh + (R_xlen_t) h * j;
        for (int i = 0; i < h; i++) {
            const double v = xj[hi[i] - 1];
            if (!R_FINITE(v)) {
                R_Free(xh);
                UNPROTECT(1);
                return R_NilValue;
            }
            hj[i] = v;
        }
    }
    if (h > 0 && p > 0) {
        if (asLogical(ref) == TRUE) {
            syrk_upper_ref(xh, h, p, g);
        } else {
            const double one = 1.0, zero = 0.0;
            F77_CALL(dsyrk)("U", "T", &p, &h, &one, xh, &h, &zero, g, &p FCONE FCONE);
        }
        for (int i = 1; i < p; i++)
            for (int j = 0; j < i; j++) g[i + (R_xlen_t) p * j] = g[j + (R_xlen_t) p * i];
    } else {
        for (R_xlen_t k = 0; k < (R_xlen_t) p * p; k++) g[k] = 0.0;
    }
    R_Free(xh);
    const double *f = REAL(full);
    const double *xb = isNull(xbar) ? NULL : REAL(xbar);
    const double *c = isNull(cs) ? NULL : REAL(cs);
    for (int j = 0; j < p; j++)
        for (int i = 0; i < p; i++) {
            const R_xlen_t k = i + (R_xlen_t) p * j;
            double v = (f[k] - g[k]) / md;
            if (xb) v = v - xb[i] * xb[j];
            if (c) v = v * (c[i] * c[j]);
            g[k] = v;
        }
    UNPROTECT(1);
    return out;
}

/* X'y / n of a dense n x p X (column-major) by dgemv("T"): one expression
 * for the regression problem's set-up (prob_regression.c, the gradient
 * through Gram columns) and for cg_regression_xty below */
void cg_dense_xty(int n, int p, const double *X, const double *y, double *out)
{
    int one = 1;
    double inv = 1.0 / n, zero = 0.0;
    F77_CALL(dgemv)("T", &n, &p, &inv, X, &n, y, &one, &zero, out, &one FCONE);
}

/* A CV fold's X'y / n (its centred, scaled rows and y as the solver gets
 * them: R/cv.R fold_data()), once per fold: every piece of the fold's path
 * passes it to the solver (spec$xty_given) instead of a pass over X per
 * piece (a fifth of the solver's time at 4000 x 500, where the folds share
 * X'X / n). The same numbers as the set-up's (cg_dense_xty). */
SEXP cg_regression_xty(SEXP X, SEXP y)
{
    int n, p;
    design_dims(X, &n, &p);
    if (!isReal(y) || XLENGTH(y) != n) error("y must be nrow(X) doubles");
    SEXP out = PROTECT(allocVector(REALSXP, p));
    if (n > 0 && p > 0) cg_dense_xty(n, p, REAL(X), REAL(y), REAL(out));
    else for (int j = 0; j < p; j++) REAL(out)[j] = 0.0;
    UNPROTECT(1);
    return out;
}
