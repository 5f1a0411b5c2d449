/* .Call glue exposing each oracle to R (used by tests and benchmarks).
 * Unpacks a named argument list, calls one kernel, returns a named list.
 * Inputs are read through const pointers (REAL_RO, INTEGER_RO) and never
 * modified: in-place kernels work on fresh copies. */
#include "stochcg.h"
#include <string.h>

enum {
    OR_LMO_L1, OR_LMO_LP, OR_LMO_SIMPLEX, OR_LMO_BOX, OR_PROJ_SIMPLEX,
    OR_PROJ_L1, OR_PROJ_CAPPED, OR_PROJ_SPECTRUM, OR_LMO_NUCLEAR, OR_LMO_PSD,
    OR_PROJ_NUCLEAR, OR_PROJ_PSD, OR_SOFT, OR_PROX_ENET, OR_SVDS, OR_EIGS_SYM,
    OR_WEAK_PROX, OR_PROJ_LP, OR_ATOMS_COMPRESS, OR_COUNT
};
static const char *const oracle_names[OR_COUNT] = {
    "lmo_l1", "lmo_lp", "lmo_simplex", "lmo_box", "proj_simplex",
    "proj_l1", "proj_capped_simplex", "proj_spectrum", "lmo_nuclear", "lmo_psd",
    "proj_nuclear", "proj_psd", "soft_threshold", "prox_enet", "svds", "eigs_sym",
    "weak_prox", "proj_lp", "atoms_compress"
};

/* ------------------------------------------------------ argument access */
static SEXP arg(SEXP args, const char *name)
{
    SEXP a = cg_list_get(args, name);
    if (a == R_NilValue) error("argument '%s' is missing", name);
    return a;
}

static const double *arg_real(SEXP args, const char *name, int *len)
{
    SEXP a = arg(args, name);
    if (TYPEOF(a) != REALSXP) error("argument '%s' must be a double vector", name);
    if (len) *len = LENGTH(a);
    return REAL_RO(a);
}

static double arg_scalar(SEXP args, const char *name)
{
    int len;
    const double *x = arg_real(args, name, &len);
    if (len != 1) error("argument '%s' must be a single number", name);
    return x[0];
}

static int arg_int(SEXP args, const char *name)
{
    SEXP a = arg(args, name);
    if (TYPEOF(a) != INTSXP || LENGTH(a) != 1 || INTEGER_RO(a)[0] == NA_INTEGER)
        error("argument '%s' must be a single integer", name);
    return INTEGER_RO(a)[0];
}

static const int *int_field(SEXP a, const char *name, int *len)
{
    SEXP f = cg_list_get(a, name);
    if (TYPEOF(f) != INTSXP) error("matrix field '%s' must be an integer vector", name);
    *len = LENGTH(f);
    return INTEGER_RO(f);
}

static int int_scalar_field(SEXP a, const char *name)
{
    int len;
    const int *x = int_field(a, name, &len);
    if (len != 1 || x[0] < 0) error("matrix field '%s' must be a nonnegative integer", name);
    return x[0];
}

static const double *real_field(SEXP a, const char *name, int *len)
{
    SEXP f = cg_list_get(a, name);
    if (TYPEOF(f) != REALSXP) error("matrix field '%s' must be a double vector", name);
    *len = LENGTH(f);
    return REAL_RO(f);
}

/* dense numeric matrix, list(p, i, x, m, n) (CSC) or list(row, col, val, m, n)
 * (COO), all indices 0-based; index ranges are checked so no input can make a
 * kernel write out of bounds */
typedef union { cg_dense_data dense; cg_coo_data coo; cg_csc_data csc; } any_data;

static void arg_linop(SEXP args, const char *name, cg_linop *A, any_data *d)
{
    SEXP a = arg(args, name);
    if (TYPEOF(a) == REALSXP && isMatrix(a)) {
        SEXP dim = getAttrib(a, R_DimSymbol);
        if (INTEGER_RO(dim)[0] < 1 || INTEGER_RO(dim)[1] < 1)
            error("argument '%s' must not be empty", name);
        cg_linop_dense(A, &d->dense, REAL_RO(a), INTEGER_RO(dim)[0], INTEGER_RO(dim)[1]);
        return;
    }
    if (TYPEOF(a) != VECSXP || getAttrib(a, R_NamesSymbol) == R_NilValue)
        error("argument '%s' must be a double matrix or a sparse matrix list", name);
    const int m = int_scalar_field(a, "m"), n = int_scalar_field(a, "n");
    if (m < 1 || n < 1) error("argument '%s' must not be empty", name);
    int lp, li, lx;
    if (cg_list_get(a, "p") != R_NilValue) {
        const int *p = int_field(a, "p", &lp), *i = int_field(a, "i", &li);
        const double *x = real_field(a, "x", &lx);
        if (lp != n + 1 || p[0] != 0 || li != lx || p[n] != li)
            error("argument '%s': inconsistent CSC structure", name);
        for (int j = 0; j < n; j++)
            if (p[j + 1] < p[j]) error("argument '%s': column pointers must not decrease", name);
        for (int t = 0; t < li; t++)
            if (i[t] < 0 || i[t] >= m) error("argument '%s': row index out of range", name);
        cg_linop_csc(A, &d->csc, m, n, p, i, x);
    } else if (cg_list_get(a, "row") != R_NilValue) {
        const int *row = int_field(a, "row", &lp), *col = int_field(a, "col", &li);
        const double *val = real_field(a, "val", &lx);
        if (lp != li || li != lx) error("argument '%s': row, col and val differ in length", name);
        for (int t = 0; t < lp; t++)
            if (row[t] < 0 || row[t] >= m || col[t] < 0 || col[t] >= n)
                error("argument '%s': index out of range", name);
        cg_linop_coo(A, &d->coo, m, n, lp, row, col, val);
    } else {
        error("argument '%s' must be a double matrix or a sparse matrix list", name);
    }
}

/* ------------------------------------------------------ result building */
typedef struct { SEXP list, names; int len; } result;

static void res_init(result *r, int n)   /* PROTECTs 2 */
{
    r->list = PROTECT(allocVector(VECSXP, n));
    r->names = PROTECT(allocVector(STRSXP, n));
    setAttrib(r->list, R_NamesSymbol, r->names);
    r->len = 0;
}

static void res_add(result *r, const char *name, SEXP value)
{
    PROTECT(value);
    SET_VECTOR_ELT(r->list, r->len, value);
    SET_STRING_ELT(r->names, r->len, mkChar(name));
    r->len++;
    UNPROTECT(1);
}

static SEXP real_copy(const double *x, int n)
{
    SEXP out = allocVector(REALSXP, n);
    if (n > 0) memcpy(REAL(out), x, (size_t) n * sizeof(double));
    return out;
}

static SEXP new_matrix(int m, int n) { return allocMatrix(REALSXP, m, n); }

static double *scratch(int n) { return (double *) R_alloc(n > 0 ? n : 1, sizeof(double)); }

/* ------------------------------------------------------------- entry */
SEXP cg_oracle_call(SEXP name, SEXP args)
{
    if (!isString(name) || LENGTH(name) != 1) error("'name' must be a single string");
    if (TYPEOF(args) != VECSXP) error("'args' must be a list");
    if (LENGTH(args) > 0 && getAttrib(args, R_NamesSymbol) == R_NilValue)
        error("'args' must be a named list");
    const int which = cg_lookup(CHAR(STRING_ELT(name, 0)), oracle_names, OR_COUNT, "oracle");

    result r;
    res_init(&r, 6);
    int n, len, st;
    switch (which) {
    case OR_LMO_L1: {
        const double *g = arg_real(args, "g", &n);
        if (n < 1) error("argument 'g' must not be empty");
        int idx; double val;
        cg_lmo_l1(g, n, arg_scalar(args, "radius"), &idx, &val);
        SEXP s = PROTECT(allocVector(REALSXP, n));
        memset(REAL(s), 0, (size_t) n * sizeof(double));
        REAL(s)[idx] = val;
        res_add(&r, "s", s); UNPROTECT(1);
        res_add(&r, "idx", ScalarInteger(idx + 1));
        res_add(&r, "val", ScalarReal(val));
        break;
    }
    case OR_LMO_LP: {
        const double *g = arg_real(args, "g", &n);
        const double p = arg_scalar(args, "p");
        if (!(p > 1.0)) error("argument 'p' must be greater than 1");
        SEXP s = PROTECT(allocVector(REALSXP, n));
        cg_lmo_lp(g, n, arg_scalar(args, "radius"), p, REAL(s));
        res_add(&r, "s", s); UNPROTECT(1);
        break;
    }
    case OR_LMO_SIMPLEX: {
        const double *g = arg_real(args, "g", &n);
        if (n < 1) error("argument 'g' must not be empty");
        const double radius = arg_scalar(args, "radius");
        int idx;
        cg_lmo_simplex(g, n, radius, &idx);
        SEXP s = PROTECT(allocVector(REALSXP, n));
        memset(REAL(s), 0, (size_t) n * sizeof(double));
        REAL(s)[idx] = radius;
        res_add(&r, "s", s); UNPROTECT(1);
        res_add(&r, "idx", ScalarInteger(idx + 1));
        break;
    }
    case OR_LMO_BOX: {
        int nl, nh;
        const double *g = arg_real(args, "g", &n);
        const double *lo = arg_real(args, "lo", &nl), *hi = arg_real(args, "hi", &nh);
        if (nl != n || nh != n) error("'lo' and 'hi' must have the length of 'g'");
        SEXP s = PROTECT(allocVector(REALSXP, n));
        cg_lmo_box(g, n, lo, hi, REAL(s));
        res_add(&r, "s", s); UNPROTECT(1);
        break;
    }
    case OR_PROJ_SIMPLEX: case OR_PROJ_L1: case OR_PROJ_CAPPED: {
        const double *y = arg_real(args, "y", &n);
        const double radius = arg_scalar(args, "radius");
        if (!(radius >= 0.0)) error("argument 'radius' must be nonnegative");
        SEXP x = PROTECT(allocVector(REALSXP, n));
        double *work = scratch(2 * n);
        if (which == OR_PROJ_SIMPLEX) cg_proj_simplex(y, n, radius, REAL(x), work);
        else if (which == OR_PROJ_L1) cg_proj_l1(y, n, radius, REAL(x), work);
        else {
            const double cap = arg_scalar(args, "cap");
            if (!(cap > 0.0) || radius > n * cap)
                error("capped simplex needs cap > 0 and radius <= length(y) * cap");
            cg_proj_capped_simplex(y, n, radius, cap, REAL(x), work);
        }
        res_add(&r, "x", x); UNPROTECT(1);
        break;
    }
    case OR_PROJ_LP: {
        const double *y = arg_real(args, "y", &n);
        SEXP x = PROTECT(allocVector(REALSXP, n));
        if (cg_proj_lp(y, (size_t) n, arg_scalar(args, "radius"), arg_scalar(args, "p"),
                       REAL(x)) != CG_OK)
            error("proj_lp needs 1 < p < 2 and radius >= 0");
        res_add(&r, "x", x); UNPROTECT(1);
        break;
    }
    case OR_PROJ_SPECTRUM: {
        const double *s = arg_real(args, "s", &n);
        SEXP x = PROTECT(real_copy(s, n));
        cg_proj_spectrum(REAL(x), n, arg_scalar(args, "radius"),
                         arg_int(args, "equality"), scratch(2 * n));
        res_add(&r, "x", x); UNPROTECT(1);
        break;
    }
    case OR_LMO_NUCLEAR: case OR_SVDS: {
        cg_linop A; any_data d;
        arg_linop(args, "A", &A, &d);
        const int k = which == OR_SVDS ? arg_int(args, "k") : 1;
        const int mn = A.m < A.n ? A.m : A.n;
        if (k < 1 || k > mn) error("argument 'k' must be in 1..min(dim(A))");
        SEXP dv = PROTECT(allocVector(REALSXP, k));
        SEXP u = PROTECT(new_matrix(A.m, k)), v = PROTECT(new_matrix(A.n, k));
        st = which == OR_SVDS ? cg_svds(&A, k, 1e-10, REAL(dv), REAL(u), REAL(v))
            : cg_lmo_nuclear(&A, arg_scalar(args, "radius"), REAL(u), REAL(v), REAL(dv),
                             1e-10);
        if (st != CG_OK) error("partial SVD failed (status %d)", st);
        res_add(&r, "d", dv); res_add(&r, "u", u); res_add(&r, "v", v);
        UNPROTECT(3);
        res_add(&r, "n_matvec", ScalarReal((double) A.n_matvec));
        break;
    }
    case OR_LMO_PSD: case OR_EIGS_SYM: {
        cg_linop A; any_data d;
        arg_linop(args, "A", &A, &d);
        if (A.m != A.n) error("argument 'A' must be square");
        const int k = which == OR_EIGS_SYM ? arg_int(args, "k") : 1;
        if (k < 1 || k > A.n) error("argument 'k' must be in 1..nrow(A)");
        const int dir = which == OR_EIGS_SYM ? arg_int(args, "which") : -1;
        if (dir != 1 && dir != -1) error("argument 'which' must be 1 or -1");
        SEXP vals = PROTECT(allocVector(REALSXP, k)), vecs = PROTECT(new_matrix(A.n, k));
        int nonzero = 0;
        if (which == OR_EIGS_SYM) {
            st = cg_eigs_sym(&A, k, dir, REAL(vals), REAL(vecs));
        } else {
            nonzero = cg_lmo_psd(&A, arg_scalar(args, "radius"),
                                 arg_int(args, "equality"), REAL(vecs), REAL(vals));
            st = nonzero < 0 ? -nonzero : CG_OK;
        }
        if (st != CG_OK) error("symmetric eigensolver failed (status %d)", st);
        res_add(&r, "values", vals); res_add(&r, "vectors", vecs);
        UNPROTECT(2);
        if (which == OR_LMO_PSD) res_add(&r, "nonzero", ScalarLogical(nonzero));
        res_add(&r, "n_matvec", ScalarReal((double) A.n_matvec));
        break;
    }
    case OR_PROJ_NUCLEAR: case OR_PROJ_PSD: {
        SEXP X0 = arg(args, "X");
        if (TYPEOF(X0) != REALSXP || !isMatrix(X0)) error("argument 'X' must be a double matrix");
        const int m = INTEGER_RO(getAttrib(X0, R_DimSymbol))[0];
        const int nc = INTEGER_RO(getAttrib(X0, R_DimSymbol))[1];
        const double radius = arg_scalar(args, "radius");
        if (!(radius >= 0.0)) error("argument 'radius' must be nonnegative");
        if (which == OR_PROJ_PSD && m != nc) error("argument 'X' must be square");
        const int eq = which == OR_PROJ_PSD ? arg_int(args, "equality") : 0;
        SEXP X = PROTECT(duplicate(X0));      /* the one copy: kernels work in place */
        st = which == OR_PROJ_NUCLEAR ? cg_proj_nuclear_dense(REAL(X), m, nc, radius)
            : cg_proj_psd_dense(REAL(X), m, radius, eq);
        if (st != CG_OK) error("dense decomposition failed (status %d)", st);
        res_add(&r, "X", X); UNPROTECT(1);
        break;
    }
    case OR_WEAK_PROX: {        /* certified-rank weak proximal oracle */
        SEXP A = arg(args, "A");
        if (TYPEOF(A) != REALSXP || !isMatrix(A)) error("argument 'A' must be a double matrix");
        const int m = INTEGER_RO(getAttrib(A, R_DimSymbol))[0];
        const int nc = INTEGER_RO(getAttrib(A, R_DimSymbol))[1];
        if (m < 1 || nc < 1) error("argument 'A' must not be empty");
        const int set = arg_int(args, "psd") ? CG_SET_PSD : CG_SET_NUCLEAR;
        if (set == CG_SET_PSD && m != nc) error("argument 'A' must be square");
        int rank = arg_int(args, "rank"), certified = 0, triplets = 0;
        long nmv = 0;
        SEXP V = PROTECT(new_matrix(m, nc));
        st = cg_weak_prox(REAL_RO(A), m, nc, set, arg_scalar(args, "radius"),
                          arg_int(args, "max_rank"), &rank, REAL(V), &certified, &triplets, &nmv);
        if (st != CG_OK) error("weak proximal oracle failed (status %d)", st);
        res_add(&r, "V", V); UNPROTECT(1);
        res_add(&r, "rank", ScalarInteger(rank));
        res_add(&r, "certified", ScalarLogical(certified));
        res_add(&r, "triplets", ScalarInteger(triplets));
        break;
    }
    case OR_ATOMS_COMPRESS: {   /* atoms u (m x k), w (k), v (n x k) as vectors */
        int lu, lv, k;
        const double *u = arg_real(args, "u", &lu), *v = arg_real(args, "v", &lv);
        const double *w = arg_real(args, "w", &k);
        if (k < 1 || lu % k || lv % k || lu == 0 || lv == 0)
            error("arguments 'u' and 'v' must hold k = length(w) >= 1 columns");
        const int m = lu / k, nc = lv / k;
        cg_atoms a;
        cg_atoms_init(&a, m, nc, k);
        memcpy(a.u, u, sizeof(double) * lu);    /* as given: no merging */
        memcpy(a.v, v, sizeof(double) * lv);
        memcpy(a.w, w, sizeof(double) * k);
        a.k = k;
        st = cg_atoms_compress(&a);
        if (st != CG_OK) error("atoms compression failed (status %d)", st);
        SEXP U = PROTECT(new_matrix(m, a.k)), V = PROTECT(new_matrix(nc, a.k));
        if (a.k > 0) {
            memcpy(REAL(U), a.u, sizeof(double) * (size_t) m * a.k);
            memcpy(REAL(V), a.v, sizeof(double) * (size_t) nc * a.k);
        }
        res_add(&r, "u", U); res_add(&r, "d", real_copy(a.w, a.k)); res_add(&r, "v", V);
        UNPROTECT(2);
        break;
    }
    case OR_SOFT: case OR_PROX_ENET: {
        const double *x0 = arg_real(args, "x", &len);
        SEXP x = PROTECT(real_copy(x0, len));
        if (which == OR_SOFT) cg_soft_threshold(REAL(x), len, arg_scalar(args, "lambda"));
        else cg_prox_enet(REAL(x), len, arg_scalar(args, "l1"), arg_scalar(args, "l2"),
                          arg_scalar(args, "step"));
        res_add(&r, "x", x); UNPROTECT(1);
        break;
    }
    default:
        error("oracle not implemented");
    }
    /* drop the unused slots; lengthgets keeps the names */
    SEXP out = lengthgets(r.list, r.len);
    UNPROTECT(2);
    return out;
}
