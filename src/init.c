/* Routine registration: no dynamic symbol lookup. */
#include "stochcg.h"
#include <R_ext/Rdynload.h>

SEXP cg_solve_call(SEXP spec, SEXP control);
SEXP cg_solve_path_call(SEXP spec, SEXP control, SEXP radii);
SEXP cg_oracle_call(SEXP name, SEXP args);
SEXP cg_lowrank_entries(SEXP u, SEXP d, SEXP v, SEXP i, SEXP j);
SEXP cg_threshold_components(SEXP S, SEXP lambda);
SEXP cg_smf_kernel(SEXP what, SEXP args);
SEXP cg_entry_cells(SEXP fun, SEXP rho, SEXP nblocks, SEXP dims, SEXP want_col);
SEXP cg_centred_rows(SEXP X, SEXP rows, SEXP centre, SEXP scale, SEXP external);
SEXP cg_fold_release(SEXP x);
SEXP cg_fold_live(void);
void cg_register_fold_real(DllInfo *dll);
SEXP cg_column_moments(SEXP X, SEXP w);
SEXP cg_scale_columns(SEXP X, SEXP cs, SEXP shift);
SEXP cg_fingerprint(SEXP X);
SEXP cg_fold_gram(SEXP X, SEXP held, SEXP full, SEXP m, SEXP xbar, SEXP cs, SEXP ref);
SEXP cg_regression_xty(SEXP X, SEXP y);
SEXP cg_crossprod(SEXP X);
SEXP cg_tcrossprod(SEXP X);
SEXP cg_gemv(SEXP X, SEXP v, SEXP trans);
SEXP cg_blas_safe(SEXP X);
SEXP cg_support_fitted(SEXP X, SEXP b, SEXP all_cols);
SEXP cg_sum_product(SEXP x, SEXP y);
SEXP cg_l1_nonzero(SEXP fits);
SEXP cg_pack_nonzero(SEXP x);
SEXP cg_y_pass(SEXP v, SEXP state, SEXP pass, SEXP n, SEXP center);
SEXP cg_moments_new(SEXP p, SEXP gram, SEXP cov);
SEXP cg_moments_block(SEXP acc, SEXP B, SEXP sums);
SEXP cg_moments_y(SEXP acc, SEXP B, SEXP y, SEXP ycenter);

static const R_CallMethodDef call_methods[] = {
    {"cg_solve_call",  (DL_FUNC) &cg_solve_call,  2},
    {"cg_solve_path_call", (DL_FUNC) &cg_solve_path_call, 3},
    {"cg_oracle_call", (DL_FUNC) &cg_oracle_call, 2},
    {"cg_lowrank_entries", (DL_FUNC) &cg_lowrank_entries, 5},
    {"cg_threshold_components", (DL_FUNC) &cg_threshold_components, 2},
    {"cg_smf_kernel", (DL_FUNC) &cg_smf_kernel, 2},
    {"cg_entry_cells", (DL_FUNC) &cg_entry_cells, 5},
    {"cg_centred_rows", (DL_FUNC) &cg_centred_rows, 5},
    {"cg_fold_release", (DL_FUNC) &cg_fold_release, 1},
    {"cg_fold_live", (DL_FUNC) &cg_fold_live, 0},
    {"cg_column_moments", (DL_FUNC) &cg_column_moments, 2},
    {"cg_scale_columns", (DL_FUNC) &cg_scale_columns, 3},
    {"cg_fingerprint", (DL_FUNC) &cg_fingerprint, 1},
    {"cg_fold_gram", (DL_FUNC) &cg_fold_gram, 7},
    {"cg_regression_xty", (DL_FUNC) &cg_regression_xty, 2},
    {"cg_crossprod", (DL_FUNC) &cg_crossprod, 1},
    {"cg_tcrossprod", (DL_FUNC) &cg_tcrossprod, 1},
    {"cg_gemv", (DL_FUNC) &cg_gemv, 3},
    {"cg_blas_safe", (DL_FUNC) &cg_blas_safe, 1},
    {"cg_support_fitted", (DL_FUNC) &cg_support_fitted, 3},
    {"cg_sum_product", (DL_FUNC) &cg_sum_product, 2},
    {"cg_l1_nonzero", (DL_FUNC) &cg_l1_nonzero, 1},
    {"cg_pack_nonzero", (DL_FUNC) &cg_pack_nonzero, 1},
    {"cg_y_pass",     (DL_FUNC) &cg_y_pass,     5},
    {"cg_moments_new", (DL_FUNC) &cg_moments_new, 3},
    {"cg_moments_block", (DL_FUNC) &cg_moments_block, 3},
    {"cg_moments_y", (DL_FUNC) &cg_moments_y, 4},
    {NULL, NULL, 0}
};

void R_init_stochcg(DllInfo *dll)
{
    R_registerRoutines(dll, NULL, call_methods, NULL, NULL);
    R_useDynamicSymbols(dll, FALSE);
    R_forceSymbols(dll, TRUE);
    cg_register_fold_real(dll);      /* a CV fold's copy of X (regression_data.c) */
}
