/* .Call glue for the matrix factorization family outside a solve:
 * predict() (the sub-problem (2) of new columns at a learned dictionary)
 * and the tests (each proximal operator; the variance-reduced estimator at
 * a given batch). Inputs are read-only; results are fresh R objects. */
#include "smf.h"
#include <string.h>

static SEXP smf_coefficients(SEXP args)
{
    const int d = asInteger(cg_list_get(args, "d")), n = asInteger(cg_list_get(args, "n")),
              k = asInteger(cg_list_get(args, "k"));
    if (d < 1 || n < 0 || k < 1 || d == NA_INTEGER || n == NA_INTEGER || k == NA_INTEGER)
        error("d, n and k must be positive");
    smf_model M;
    smf_model_from_spec(&M, args, d, k);
    const int sparse = cg_list_get(args, "Yp") != R_NilValue;
    const double *Y = NULL, *Yx = NULL;
    const int *Yp = NULL, *Yi = NULL;
    if (sparse) {
        Yp = cg_spec_pointers(args, "Yp", n, XLENGTH(cg_list_get(args, "Yx")));
        Yi = cg_spec_index(args, "Yi", -1, 0, d - 1);
        Yx = cg_spec_real(args, "Yx", XLENGTH(cg_list_get(args, "Yi")));
    } else {
        Y = cg_spec_real(args, "Y", (R_xlen_t) d * n);
    }
    const double *W = cg_spec_real(args, "W", (R_xlen_t) d * k);
    double *WtW = cg_zeros((size_t) k * k), *scratch = cg_zeros(2 * (size_t) k * k), Lp;
    if (smf_gram(&M, W, WtW, &Lp, scratch) != CG_OK)
        error("the dictionary's spectral norm could not be computed (non-finite W?)");
    smf_work w;
    smf_work_alloc(&w, d, k);
    const int robust = M.r_kind != SMF_R_NONE;
    static const char *names[] = {"H", "R", "loss", "iterations", ""};
    SEXP out = PROTECT(mkNamed(VECSXP, names));
    SEXP H = allocMatrix(REALSXP, k, n);
    SET_VECTOR_ELT(out, 0, H);
    SEXP R = robust ? allocMatrix(REALSXP, d, n) : R_NilValue;
    SET_VECTOR_ELT(out, 1, R);
    SEXP loss = allocVector(REALSXP, n);
    SET_VECTOR_ELT(out, 2, loss);
    SEXP iters = allocVector(INTSXP, n);
    SET_VECTOR_ELT(out, 3, iters);
    for (int j = 0; j < n; j++) {
        smf_column y;
        if (sparse) {
            y.dense = 0; y.x = Yx + Yp[j]; y.i = Yi + Yp[j]; y.nnz = Yp[j + 1] - Yp[j];
        } else {
            y.dense = 1; y.x = Y + (size_t) j * d; y.i = NULL; y.nnz = d;
        }
        REAL(loss)[j] = smf_solve_column(&M, W, WtW, Lp, &y, &w, INTEGER(iters) + j);
        memcpy(REAL(H) + (size_t) j * k, w.h, sizeof(double) * k);
        if (robust) memcpy(REAL(R) + (size_t) j * d, w.r, sizeof(double) * d);
        if (j % 256 == 255) R_CheckUserInterrupt();   /* nothing to release */
    }
    UNPROTECT(1);
    return out;
}

/* which = "h" (step * varphi + delta_H), "r" (phi + delta_R) or "dict"
 * (step * psi + delta_C on a d x k matrix) */
static SEXP smf_prox(SEXP args)
{
    const int d = asInteger(cg_list_get(args, "d")), k = asInteger(cg_list_get(args, "k"));
    if (d < 1 || k < 1 || d == NA_INTEGER || k == NA_INTEGER) error("d and k must be positive");
    smf_model M;
    smf_model_from_spec(&M, args, d, k);
    SEXP which = cg_list_get(args, "which");
    if (!isString(which) || LENGTH(which) != 1) error("'which' must be a string");
    const char *wh = CHAR(STRING_ELT(which, 0));
    const double step = asReal(cg_list_get(args, "step"));
    const int len = strcmp(wh, "h") == 0 ? k : strcmp(wh, "r") == 0 ? d
                  : strcmp(wh, "dict") == 0 ? d * k : -1;
    if (len < 0) error("unknown prox '%s'", wh);
    const double *x = cg_spec_real(args, "x", len);
    SEXP out = PROTECT(allocVector(REALSXP, len));
    memcpy(REAL(out), x, sizeof(double) * len);
    if (len == k && wh[0] == 'h') smf_prox_h(&M, REAL(out), step);
    else if (wh[0] == 'r') smf_prox_r(&M, REAL(out));
    else smf_prox_dict(&M, REAL(out), step);
    UNPROTECT(1);
    return out;
}

/* args: a solver spec with W = the snapshot W0, plus W_now and batch */
static SEXP smf_vr(SEXP args)
{
    cg_problem P;
    memset(&P, 0, sizeof(P));
    cg_problem_smf(&P, args);
    const int d = asInteger(cg_list_get(args, "d")), n = asInteger(cg_list_get(args, "n")),
              k = asInteger(cg_list_get(args, "k"));
    const double *W = cg_spec_real(args, "W_now", (R_xlen_t) d * k);
    SEXP batch = cg_list_get(args, "batch");
    const int *idx = cg_spec_index(args, "batch", -1, 0, n - 1);
    static const char *names[] = {"V", "G", ""};
    SEXP out = PROTECT(mkNamed(VECSXP, names));
    SET_VECTOR_ELT(out, 0, allocMatrix(REALSXP, d, k));
    SET_VECTOR_ELT(out, 1, allocMatrix(REALSXP, d, k));
    smf_vr_estimate_at(&P, W, idx, LENGTH(batch), REAL(VECTOR_ELT(out, 0)),
                       REAL(VECTOR_ELT(out, 1)));
    if (P.stop) error("%s", P.failure);
    UNPROTECT(1);
    return out;
}

SEXP cg_smf_kernel(SEXP what, SEXP args)
{
    if (!isString(what) || LENGTH(what) != 1) error("'what' must be a string");
    const char *w = CHAR(STRING_ELT(what, 0));
    if (strcmp(w, "coefficients") == 0) return smf_coefficients(args);
    if (strcmp(w, "prox") == 0) return smf_prox(args);
    if (strcmp(w, "vr_estimate") == 0) return smf_vr(args);
    error("unknown smf kernel '%s'", w);
    return R_NilValue;
}
