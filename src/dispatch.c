/* The single .Call entry for solving: names become enums once here, the
 * problem is built from the R spec, one solver runs, and the result goes
 * back as a plain list for R to turn into a fit object. */
#include "stochcg.h"
#include <string.h>

static const char *const problem_names[] = {"regression", "completion", "lowrank", "robust",
                                          "covariance"};
static const char *const method_names[] = {"fw", "sfw", "spg", "svrgcg", "scg", "scgs",
                                           "alt_cgpg", "alt_pgcg", "cgcg", "cgcg_p", "altmin", "pfw",
                                           "admm", "dual_apg", "apg"};
static const char *const step_names[] = {"line_search", "standard", "sfw"};
static const char *const stop_names[] = {"max_iter", "converged", "max_time",
                                         "interrupted", "error"};

#define N_OF(table) ((int) (sizeof(table) / sizeof((table)[0])))

static const char *string_elt(SEXP list, const char *name)
{
    SEXP x = cg_list_get(list, name);
    if (!isString(x) || LENGTH(x) != 1) error("spec element '%s' must be a string", name);
    return CHAR(STRING_ELT(x, 0));
}

/* Problem construction and the solver run under R_ExecWithCleanup, so that
 * on every path, an R error included, the RNG state is saved and kernels
 * stop polling for Ctrl-C (they poll only inside a solve). */
typedef struct {
    SEXP spec; int problem; const cg_solver_opts *o; const cg_control *ctl;
    cg_problem *P; cg_trace *tr; int iters, status, polling;
} solve_call;

static SEXP solve_body(void *data)
{
    solve_call *s = (solve_call *) data;
    cg_problem *P = s->P;
    if (s->problem == 0) cg_problem_regression(P, s->spec);
    else if (s->problem == 1) cg_problem_completion(P, s->spec);
    else if (s->problem == 2) cg_problem_lowrank(P, s->spec);
    else if (s->problem == 3) cg_problem_robust(P, s->spec);
    else cg_problem_covariance(P, s->spec);

    /* the trace grows by doubling: start small, whatever max_iter is */
    const int every = s->ctl->eval_every;
    const double rows = (double) s->ctl->max_iter / (every > 0 ? every : 1) + 3;
    cg_trace_init(s->tr, rows < 1024 ? (int) rows : 1024);
    const int method = s->o->method;
    s->status = s->problem == 4 ? cg_solve_split(P, s->ctl, s->tr, &s->iters)
              : method == CG_METHOD_SPG ? cg_solve_pg(P, s->o, s->ctl, s->tr, &s->iters)
              : method == CG_METHOD_SVRGCG ? cg_solve_svrgcg(P, s->o, s->ctl, s->tr, &s->iters)
              : method == CG_METHOD_SCGS ? cg_solve_scgs(P, s->o, s->ctl, s->tr, &s->iters)
              : method == CG_METHOD_PFW ? cg_solve_pfw(P, s->o, s->ctl, s->tr, &s->iters)
              : method >= CG_METHOD_ALT_CGPG ? cg_solve_alt(P, s->o, s->ctl, s->tr, &s->iters)
              : cg_solve_fw(P, s->o, s->ctl, s->tr, &s->iters);
    return R_NilValue;
}

static void solve_cleanup(void *data)
{
    cg_interrupt_polling(((solve_call *) data)->polling);
    PutRNGstate();
}

SEXP cg_solve_call(SEXP spec, SEXP control)
{
    cg_control ctl;
    ctl.max_iter = asInteger(cg_list_get(control, "max_iter"));
    ctl.max_time = asReal(cg_list_get(control, "max_time"));
    ctl.tol = asReal(cg_list_get(control, "tol"));
    ctl.eval_every = asInteger(cg_list_get(control, "eval_every"));
    ctl.progress = asLogical(cg_list_get(control, "progress"));
    ctl.verbose = asLogical(cg_list_get(control, "verbose"));
    if (ctl.max_iter < 0 || ctl.eval_every < 0) error("invalid control");

    int problem = cg_lookup(string_elt(spec, "problem"), problem_names, N_OF(problem_names), "problem");
    cg_solver_opts o;
    o.method = cg_lookup(string_elt(spec, "method"), method_names, N_OF(method_names), "method");
    o.step_rule = cg_lookup(string_elt(spec, "step"), step_names, N_OF(step_names), "step rule");
    o.K = asInteger(cg_list_get(spec, "K"));
    o.eta = asReal(cg_list_get(spec, "eta"));
    o.inner = asInteger(cg_list_get(spec, "inner"));
    o.batch_inner = asInteger(cg_list_get(spec, "batch_inner"));
    o.batch_snapshot = asReal(cg_list_get(spec, "batch_snapshot"));
    o.scale = asReal(cg_list_get(spec, "scale"));
    o.scg_c = asReal(cg_list_get(spec, "scg_c"));
    o.lipschitz = asReal(cg_list_get(spec, "lipschitz"));
    o.diam2 = asReal(cg_list_get(spec, "diam2"));
    o.scgs_c = asReal(cg_list_get(spec, "scgs_c"));
    o.eta0 = asReal(cg_list_get(spec, "eta0"));
    o.eta_a = asReal(cg_list_get(spec, "eta_a"));
    o.eta_c = asReal(cg_list_get(spec, "eta_c"));
    o.t0 = asInteger(cg_list_get(spec, "t0"));

    const int alternating = (o.method >= CG_METHOD_ALT_CGPG && o.method <= CG_METHOD_ALTMIN)
                            || o.method == CG_METHOD_ADMM;
    const int covariance = o.method == CG_METHOD_DUAL_APG || o.method == CG_METHOD_APG;
    if (problem == 4 ? !covariance
                     : alternating != (problem == 3) || o.method >= CG_METHOD_DUAL_APG
                       || (o.method == CG_METHOD_PFW && problem != 0))
        error("method '%s' does not apply to problem '%s'", method_names[o.method],
              problem_names[problem]);
    cg_problem P;
    memset(&P, 0, sizeof(P));
    cg_trace tr;
    solve_call sc = { spec, problem, &o, &ctl, &P, &tr, 0, CG_STOP_MAX_ITER, 0 };
    GetRNGstate();
    sc.polling = cg_interrupt_polling(1);
    R_ExecWithCleanup(solve_body, &sc, solve_cleanup, &sc);
    int status = sc.status, iters = sc.iters;
    if (P.stop) status = P.stop;        /* a failure in the final evaluation */
    /* building the solution is not cut short by Ctrl-C; one pressed since
     * the last check would fire after .Call returns and lose the fit, so it
     * is taken here */
    if (status != CG_STOP_ERROR && cg_interrupted()) status = CG_STOP_INTERRUPT;

    static const char *names[] = {"solution", "trace", "status", "iterations", "message", ""};
    SEXP out = PROTECT(mkNamed(VECSXP, names));
    SET_VECTOR_ELT(out, 0, problem == 0 ? cg_regression_solution(&P)
                         : problem == 1 ? cg_completion_solution(&P)
                         : problem == 2 ? cg_lowrank_solution(&P)
                         : problem == 3 ? cg_robust_solution(&P)
                         : cg_covariance_solution(&P));
    SET_VECTOR_ELT(out, 1, cg_trace_to_list(&tr));
    SET_VECTOR_ELT(out, 2, mkString(stop_names[status]));
    SET_VECTOR_ELT(out, 3, ScalarInteger(iters));
    SET_VECTOR_ELT(out, 4, mkString(P.failure));   /* "" unless status "error" */
    UNPROTECT(1);
    return out;
}

SEXP cg_list_get(SEXP list, const char *name)
{
    SEXP nm = getAttrib(list, R_NamesSymbol);
    if (isNull(nm)) return R_NilValue;
    for (R_xlen_t i = 0; i < XLENGTH(list); i++)
        if (strcmp(CHAR(STRING_ELT(nm, i)), name) == 0) return VECTOR_ELT(list, i);
    return R_NilValue;
}

int cg_lookup(const char *name, const char *const *table, int n, const char *what)
{
    for (int i = 0; i < n; i++) if (strcmp(name, table[i]) == 0) return i;
    error("unknown %s '%s'", what, name);
    return -1;
}

/* ---- read-only, checked access to the arrays of a spec. The problem
 * constructors call these before any solver work (nothing to release yet,
 * so error() is safe). */
static SEXP spec_vector(SEXP spec, const char *name, SEXPTYPE type, R_xlen_t len)
{
    SEXP x = cg_list_get(spec, name);
    if (TYPEOF(x) != type)
        error("spec element '%s' must be of type %s", name, type2char(type));
    if (len >= 0 && XLENGTH(x) != len)
        error("spec element '%s' must have length %lld, not %lld", name,
              (long long) len, (long long) XLENGTH(x));
    return x;
}

const double *cg_spec_real(SEXP spec, const char *name, R_xlen_t len)
{
    return REAL_RO(spec_vector(spec, name, REALSXP, len));
}

const int *cg_spec_index(SEXP spec, const char *name, R_xlen_t len, int lo, int hi)
{
    SEXP x = spec_vector(spec, name, INTSXP, len);
    const int *v = INTEGER_RO(x);
    for (R_xlen_t k = 0; k < XLENGTH(x); k++) {
        if (v[k] == NA_INTEGER) error("spec element '%s' has an NA index", name);
        if (v[k] < lo || v[k] > hi)
            error("spec element '%s': index %d out of range %d..%d", name, v[k], lo, hi);
    }
    return v;
}

const int *cg_spec_pointers(SEXP spec, const char *name, int n, R_xlen_t nnz)
{
    const int *p = INTEGER_RO(spec_vector(spec, name, INTSXP, (R_xlen_t) n + 1));
    if (p[0] != 0 || p[n] != nnz)
        error("spec element '%s' must start at 0 and end at %lld", name, (long long) nnz);
    for (int k = 0; k < n; k++)
        if (p[k + 1] < p[k]) error("spec element '%s' must not decrease", name);
    return p;
}
