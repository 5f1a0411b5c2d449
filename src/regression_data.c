/* The dense designs a regression fit prepares in R (R/sparse-regression.R
 * regression_centring(), R/regression-family.R column_moments() and
 * scale_columns(), R/cv.R fold_data()): each as the R expression it
 * replaces computes it, bit for bit (the same operations in the same order:
 * colMeans' and colSums' long double sums, crossprod()'s dgemv), but in one
 * pass into one new matrix, without the temporaries of the size of X that
 * X[rows, ], rep(xbar, each = n), X - ..., wv * Xb * Xb made (a CV made
 * them for every fold; with R's garbage collector they were a third of a
 * small CV's time). */
#include "stochcg.h"
#include <R_ext/BLAS.h>
#include <float.h>
#include <limits.h>
#include <math.h>

#ifndef FCONE
# define FCONE
#endif

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

/* list(X = X[rows, ] - 1 xbar', xbar = colMeans(X[rows, ])) with rows
 * 1-based (NULL: all rows; then X's attributes kept, as X - rep(xbar, each
 * = n) keeps them); centre = FALSE: X[rows, ] and xbar NULL */
SEXP cg_centred_rows(SEXP X, SEXP rows, SEXP centre)
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
    SEXP out = PROTECT(allocMatrix(REALSXP, m, p));
    SEXP xbar = PROTECT(cen ? allocVector(REALSXP, p) : R_NilValue);
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
    if (all) DUPLICATE_ATTRIB(out, X);
    else set_row_dimnames(out, X, ri, m);
    SEXP res = PROTECT(allocVector(VECSXP, 2));
    SET_VECTOR_ELT(res, 0, out);
    SET_VECTOR_ELT(res, 1, xbar);
    SEXP nm = PROTECT(allocVector(STRSXP, 2));
    SET_STRING_ELT(nm, 0, mkChar("X"));
    SET_STRING_ELT(nm, 1, mkChar("xbar"));
    setAttrib(res, R_NamesSymbol, nm);
    UNPROTECT(4);
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
    if (n > 0 && p > 0) {
        const double one = 1.0, zero = 0.0;
        const int inc = 1;
        F77_CALL(dgemv)("T", &n, &p, &one, x, &n, wv, &inc, &zero, m, &inc FCONE);
    } else {
        for (int j = 0; j < p; j++) m[j] = 0.0;
    }
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
    SEXP res = PROTECT(allocVector(VECSXP, 2));
    SET_VECTOR_ELT(res, 0, mean);
    SET_VECTOR_ELT(res, 1, sd);
    SEXP nm = PROTECT(allocVector(STRSXP, 2));
    SET_STRING_ELT(nm, 0, mkChar("mean"));
    SET_STRING_ELT(nm, 1, mkChar("sd"));
    setAttrib(res, R_NamesSymbol, nm);
    UNPROTECT(4);
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
    SEXP out = PROTECT(allocVector(VECSXP, 2));
    SET_VECTOR_ELT(out, 0, nz);
    SET_VECTOR_ELT(out, 1, l1);
    SEXP nm = PROTECT(allocVector(STRSXP, 2));
    SET_STRING_ELT(nm, 0, mkChar("nonzero"));
    SET_STRING_ELT(nm, 1, mkChar("l1"));
    setAttrib(out, R_NamesSymbol, nm);
    UNPROTECT(4);
    return out;
}
