/* The single .Call entry for solving, driven by two tables: the problems
 * (name, constructor, solution builder) and the methods (name, solver loop,
 * family of operations it needs). Names become table rows once here, the
 * problem is built from the R spec, the method runs if the problem provides
 * its family's operation table (stochcg.h), else an R error names both, and
 * the result goes back as a plain list for R to turn into a fit object.
 * Adding a problem or a method is a row below; adding a family is a case in
 * provides_family(). */
#include "stochcg.h"
#include <string.h>
#include <math.h>
#include <limits.h>

typedef struct {
    const char *name;
    int  (*build)(cg_problem *P, SEXP spec);   /* constructor: shared hooks and tables */
    SEXP (*solution)(cg_problem *P);           /* the fit's solution part */
    /* paths (cg_solve_path_call): the problem, solved, set up again at a
     * larger radius as a warm start from its solution; NULL: no paths */
    void (*restart)(cg_problem *P, double radius);
    /* a CV fold path's lean result (spec path_lean, cg_solve_path_call):
     * the solution's coefficients only; NULL: the whole solution */
    SEXP (*lean_solution)(cg_problem *P);
} problem_row;

static const problem_row problems[] = {
    {"regression", cg_problem_regression, cg_regression_solution, cg_regression_restart,
                   cg_regression_beta},
    {"completion", cg_problem_completion, cg_completion_solution},
    {"lowrank",    cg_problem_lowrank,    cg_lowrank_solution},
    {"robust",     cg_problem_robust,     cg_robust_solution},
    {"covariance", cg_problem_covariance, cg_covariance_solution},
    {"kmeans",     cg_problem_kmeans,     cg_kmeans_solution},
    {"sdp",        cg_problem_sdp,        cg_sdp_solution},
    {"sparsest_cut", cg_problem_cut,      cg_cut_solution},
    {"smf",        cg_problem_smf,        cg_smf_solution},
    {"glm",        cg_problem_glm,        cg_glm_solution,        cg_glm_restart,
                   cg_glm_beta},
};

/* the operation tables of cg_problem, one per solver family */
enum { FAMILY_FW, FAMILY_PG, FAMILY_PAIR, FAMILY_PROX, FAMILY_SLIDING, FAMILY_BLOCK,
       FAMILY_SPLIT, FAMILY_HOMOTOPY, FAMILY_SMF };

typedef struct {
    const char *name;
    cg_solver *solve;
    int family;          /* the table the solver loop calls */
} method_row;

/* indexed by CG_METHOD_*, which solver loops shared by several methods
 * read in cg_solver_opts.method */
static const method_row methods[CG_METHOD_COUNT] = {
    [CG_METHOD_FW]       = {"fw",       cg_solve_fw,     FAMILY_FW},
    [CG_METHOD_SFW]      = {"sfw",      cg_solve_fw,     FAMILY_FW},
    [CG_METHOD_SPG]      = {"spg",      cg_solve_pg,     FAMILY_PG},
    [CG_METHOD_SVRGCG]   = {"svrgcg",   cg_solve_svrgcg, FAMILY_PROX},
    [CG_METHOD_SCG]      = {"scg",      cg_solve_fw,     FAMILY_FW},
    [CG_METHOD_SCGS]     = {"scgs",     cg_solve_scgs,   FAMILY_SLIDING},
    [CG_METHOD_ALT_CGPG] = {"alt_cgpg", cg_solve_alt,    FAMILY_BLOCK},
    [CG_METHOD_ALT_PGCG] = {"alt_pgcg", cg_solve_alt,    FAMILY_BLOCK},
    [CG_METHOD_CGCG]     = {"cgcg",     cg_solve_alt,    FAMILY_BLOCK},
    [CG_METHOD_CGCG_P]   = {"cgcg_p",   cg_solve_alt,    FAMILY_BLOCK},
    [CG_METHOD_ALTMIN]   = {"altmin",   cg_solve_alt,    FAMILY_BLOCK},
    [CG_METHOD_PFW]      = {"pfw",      cg_solve_pfw,    FAMILY_PAIR},
    [CG_METHOD_ADMM]     = {"admm",     cg_solve_split,  FAMILY_SPLIT},
    [CG_METHOD_DUAL_APG] = {"dual_apg", cg_solve_split,  FAMILY_SPLIT},
    [CG_METHOD_APG]      = {"apg",      cg_solve_split,  FAMILY_SPLIT},
    [CG_METHOD_CGAL]     = {"cgal",     cg_solve_homotopy, FAMILY_HOMOTOPY},
    [CG_METHOD_HSAGCGM_V1] = {"hsagcgm_v1", cg_solve_homotopy, FAMILY_HOMOTOPY},
    [CG_METHOD_HSAGCGM_V2] = {"hsagcgm_v2", cg_solve_homotopy, FAMILY_HOMOTOPY},
    [CG_METHOD_H1SFW]    = {"h1sfw",    cg_solve_homotopy, FAMILY_HOMOTOPY},
    [CG_METHOD_HSPIDER]  = {"hspider",  cg_solve_homotopy, FAMILY_HOMOTOPY},
    [CG_METHOD_SHCGM]    = {"shcgm",    cg_solve_homotopy, FAMILY_HOMOTOPY},
    [CG_METHOD_VR]       = {"vr",       cg_solve_smf,    FAMILY_SMF},
    [CG_METHOD_SMM]      = {"smm",      cg_solve_smf,    FAMILY_SMF},
    [CG_METHOD_SGD]      = {"sgd",      cg_solve_smf,    FAMILY_SMF},
};

/* the homotopy methods that sample constraint rows (cg_rows_ops) */
static int samples_rows(const method_row *m)
{
    return m == &methods[CG_METHOD_HSAGCGM_V2] || m == &methods[CG_METHOD_H1SFW] ||
           m == &methods[CG_METHOD_HSPIDER];
}

/* Does the built problem provide the table the method's loop calls? A
 * split table is the problem's own iteration and names the one method it
 * is. */
static int provides_family(const cg_problem *P, const method_row *m)
{
    switch (m->family) {
    case FAMILY_FW:      return P->fw != NULL;
    case FAMILY_PG:      return P->pg != NULL;
    case FAMILY_PAIR:    return P->pair != NULL;
    case FAMILY_PROX:    return P->prox != NULL;
    case FAMILY_SLIDING: return P->sliding != NULL;
    case FAMILY_BLOCK:   return P->block != NULL;
    case FAMILY_SPLIT:   return P->split != NULL && strcmp(P->split->method, m->name) == 0;
    case FAMILY_HOMOTOPY:
        return P->homotopy != NULL && (!samples_rows(m) || P->homotopy->rows != NULL) &&
               (m != &methods[CG_METHOD_CGAL] || P->homotopy->dual_step != NULL) &&
               (m != &methods[CG_METHOD_SHCGM] || P->homotopy->refresh_loss != NULL);
    case FAMILY_SMF:     return P->smf != NULL;
    }
    return 0;
}

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

static const problem_row *find_problem(const char *name)
{
    for (int i = 0; i < N_OF(problems); i++)
        if (strcmp(name, problems[i].name) == 0) return &problems[i];
    error("unknown problem '%s'", name);
    return NULL;
}

static int find_method(const char *name)
{
    for (int i = 0; i < N_OF(methods); i++)
        if (methods[i].name && strcmp(name, methods[i].name) == 0) return i;
    error("unknown method '%s'", name);
    return -1;
}

/* An exact continuation (init =): the loop state the fit's run ended with
 * (cg_loop_state), its scalars as the numeric vector state_loop = c(stage,
 * pos, eta, len, c, lip) and its arrays as the named list state_solver.
 * The scalars are checked here, before any solving, so that no spec makes
 * a loop start from nonsense; arrays when the loop reads them. */
enum { LOOP_STAGE, LOOP_POS, LOOP_ETA, LOOP_LEN, LOOP_C, LOOP_LIP, LOOP_N };

static void read_loop_state(cg_problem *P, SEXP spec, const cg_solver_opts *o)
{
    cg_loop_state *l = &P->loop;
    l->in = cg_list_get(spec, "state_solver");
    if (!isNull(l->in) && TYPEOF(l->in) != VECSXP) error("spec: state_solver must be a list");
    if (isNull(cg_list_get(spec, "state_loop"))) return;
    const double *v = cg_spec_real(spec, "state_loop", LOOP_N);
    for (int i = 0; i < LOOP_N; i++)
        if (!R_FINITE(v[i])) error("spec: the loop state must be finite");
    /* the position lies inside its epoch (svrgcg: T, vr: inner) */
    const int m = o->method;
    const double pos_end = m == CG_METHOD_VR ? o->inner : fmax(v[LOOP_LEN], 1.0);
    if (v[LOOP_STAGE] < 0 || v[LOOP_STAGE] > INT_MAX || v[LOOP_POS] < 0 ||
        v[LOOP_POS] >= pos_end ||
        (m == CG_METHOD_SVRGCG && !(v[LOOP_ETA] > 0 && v[LOOP_LEN] >= 2)) ||
        (m == CG_METHOD_VR && v[LOOP_POS] > 0 && !(v[LOOP_ETA] > 0)) ||
        (m == CG_METHOD_SCGS && !(v[LOOP_LIP] > 0)))
        error("spec: invalid loop state");
    l->stage = (int) v[LOOP_STAGE]; l->pos = (int) v[LOOP_POS];
    l->eta = v[LOOP_ETA]; l->len = v[LOOP_LEN]; l->c = v[LOOP_C]; l->lip = v[LOOP_LIP];
    l->resumed = 1;
}

/* the saved loop state into the result's state_loop and state_solver */
static void put_loop_state(SEXP out, int i_scalars, int i_arrays, const cg_loop_state *l)
{
    if (l->saved) {
        SEXP v = allocVector(REALSXP, LOOP_N);
        SET_VECTOR_ELT(out, i_scalars, v);
        double *x = REAL(v);
        x[LOOP_STAGE] = l->stage; x[LOOP_POS] = l->pos; x[LOOP_ETA] = l->eta;
        x[LOOP_LEN] = l->len; x[LOOP_C] = l->c; x[LOOP_LIP] = l->lip;
    }
    if (l->n_out == 0) return;
    SEXP arrays = allocVector(VECSXP, l->n_out);
    SET_VECTOR_ELT(out, i_arrays, arrays);
    SEXP names = allocVector(STRSXP, l->n_out);
    setAttrib(arrays, R_NamesSymbol, names);
    for (int i = 0; i < l->n_out; i++) {
        SET_STRING_ELT(names, i, mkChar(l->out[i].name));
        SEXP a = allocVector(REALSXP, l->out[i].len);
        SET_VECTOR_ELT(arrays, i, a);
        if (l->out[i].len > 0) memcpy(REAL(a), l->out[i].x, (size_t) l->out[i].len * sizeof(double));
    }
}

R_xlen_t cg_loop_array_length(const cg_problem *P, const char *name)
{
    if (P->loop.in == NULL) return -1;
    SEXP x = cg_list_get(P->loop.in, name);
    return isNull(x) ? -1 : XLENGTH(x);
}

const double *cg_loop_array(const cg_problem *P, const char *name, R_xlen_t len)
{
    const R_xlen_t n = cg_loop_array_length(P, name);
    if (n < 0) return NULL;
    const double *x = cg_spec_real(P->loop.in, name, len < 0 ? n : len);
    if (!cg_all_finite(x, (size_t) n)) error("spec: the loop state's '%s' must be finite", name);
    return x;
}

void cg_loop_save_array(cg_problem *P, const char *name, const double *x, R_xlen_t len)
{
    cg_loop_state *l = &P->loop;
    if (l->n_out == CG_LOOP_ARRAYS) error("too many loop state arrays");   /* a bug */
    l->out[l->n_out].name = name; l->out[l->n_out].x = x; l->out[l->n_out].len = len;
    l->n_out++;
}

/* Problem construction and the solver run under R_ExecWithCleanup, so that
 * on every path, an R error included, the RNG state is saved and kernels
 * stop polling for Ctrl-C (they poll only inside a solve). */
typedef struct {
    SEXP spec; const problem_row *problem; const cg_solver_opts *o; const cg_control *ctl;
    cg_problem *P; cg_trace *tr; int iters, status, polling;
    /* keep_memory: a single solve, whose result is built after the cleanup
     * from the problem's memory (released then, when solve_body finished) */
    int keep_memory, finished;
} solve_call;

/* The trace's first capacity: one row per scheduled evaluation, at most
 * 64 (it grows by doubling; most fits record a few rows, and its buffers
 * are R_alloc'd, counted by R's garbage collector: 1024 rows per fit made
 * a CV's fold paths allocate 8 kB x 8 columns per radius) */
static int trace_start_rows(const cg_control *ctl)
{
    const int every = ctl->eval_every;
    const double rows = (double) ctl->max_iter / (every > 0 ? every : 1) + 3;
    return rows < 64 ? (int) rows : 64;
}

static SEXP solve_body(void *data)
{
    solve_call *s = (solve_call *) data;
    cg_problem *P = s->P;
    const method_row *m = &methods[s->o->method];
    /* a resumed fit (init =): its iterations, from which step rules and
     * schedules count on (read before build: problems start from it too) */
    SEXP it0 = cg_list_get(s->spec, "iter_offset");
    if (!isNull(it0)) {
        P->iter_offset = asInteger(it0);
        if (P->iter_offset == NA_INTEGER || P->iter_offset < 0) error("spec: invalid iter_offset");
    }
    P->warm_start = asLogical(cg_list_get(s->spec, "warm_start")) == TRUE;
    read_loop_state(P, s->spec, s->o);
    P->tol = s->ctl->tol;
    s->problem->build(P, s->spec);
    /* a warm start (init =): the objective at the cold start, so that tol
     * keeps its scale when the warm start sits at an optimum near zero */
    SEXP cold = cg_list_get(s->spec, "cold_objective");
    if (!isNull(cold)) {
        P->cold_objective = asReal(cold);
        if (!R_FINITE(P->cold_objective) || P->cold_objective < 0)
            error("spec: invalid cold_objective");
    }
    /* before any solving: the tables say whether the method applies */
    if (!provides_family(P, m))
        error("method '%s' does not apply to problem '%s'", m->name, s->problem->name);

    /* the trace grows by doubling: start small, whatever max_iter is */
    cg_trace_init(s->tr, trace_start_rows(s->ctl));
    s->status = m->solve(P, s->o, s->ctl, s->tr, &s->iters);
    s->finished = 1;
    return R_NilValue;
}

static void solve_cleanup(void *data)
{
    cg_problem *P = ((solve_call *) data)->P;
    /* (a single solve's result is built after this cleanup and may read
     * the problem's memory outside R's heap: released after it, below) */
    const solve_call *s = (const solve_call *) data;
    if (P->release && !(s->keep_memory && s->finished)) { P->release(P); P->release = NULL; }
    cg_interrupt_polling(((solve_call *) data)->polling);
    cg_kernel_deadline(R_PosInf);
    PutRNGstate();
}

/* the result of one solve, as R's cg_run() reads it */
static SEXP result_list(const problem_row *problem, cg_problem *P, const cg_trace *tr,
                        int status, int iters)
{
    static const char *names[] = {"solution", "trace", "status", "iterations", "message",
                                  "beta0", "state_loop", "state_solver", ""};
    SEXP out = PROTECT(mkNamed(VECSXP, names));
    SET_VECTOR_ELT(out, 0, problem->solution(P));
    SET_VECTOR_ELT(out, 1, cg_trace_to_list(tr));
    SET_VECTOR_ELT(out, 2, mkString(stop_names[status]));
    SET_VECTOR_ELT(out, 3, ScalarInteger(iters));
    SET_VECTOR_ELT(out, 4, mkString(P->failure));   /* "" unless status "error" */
    SET_VECTOR_ELT(out, 5, ScalarReal(P->homotopy ? P->beta0_used : NA_REAL));
    put_loop_state(out, 6, 7, &P->loop);     /* the solver loop's own state */
    UNPROTECT(1);
    return out;
}

/* A lean result of a fold path's fit that is not its last (R/path.R,
 * path_fits() with lean fits): what the CV reads of it, the solution's
 * coefficients (the problem's lean_solution), the status, the iterations
 * and the last trace row's objective, gap and time; no trace rows before
 * it, no solver state (only the last fit's warm-starts the next piece) */
static SEXP lean_result_list(SEXP spec, const problem_row *problem, cg_problem *P,
                             const cg_trace *tr, int status, int iters)
{
    static const char *names[] = {"solution", "trace", "status", "iterations", ""};
    static const char *tnames[] = {"time", "objective", "gap", ""};
    SEXP out = PROTECT(mkNamed(VECSXP, names));
    SEXP sol = problem->lean_solution(P);
    SET_VECTOR_ELT(out, 0, sol);
    /* its coefficients named as R names them (spec beta_names, if any) */
    SEXP nm = cg_list_get(spec, "beta_names");
    if (!isNull(nm)) {
        SEXP beta = VECTOR_ELT(sol, 0);
        if (TYPEOF(nm) != STRSXP || XLENGTH(nm) != XLENGTH(beta))
            error("spec: beta_names must be a character vector of the coefficients' length");
        setAttrib(beta, R_NamesSymbol, nm);
    }
    SEXP t = mkNamed(VECSXP, tnames);
    SET_VECTOR_ELT(out, 1, t);
    const int r = tr->len - 1;
    SET_VECTOR_ELT(t, 0, ScalarReal(tr->time[r]));
    SET_VECTOR_ELT(t, 1, ScalarReal(tr->objective[r]));
    SET_VECTOR_ELT(t, 2, ScalarReal(tr->gap[r]));
    SET_VECTOR_ELT(out, 2, mkString(stop_names[status]));
    SET_VECTOR_ELT(out, 3, ScalarInteger(iters));
    UNPROTECT(1);
    return out;
}

/* the control settings and the method's options from the R lists */
static const problem_row *read_call(SEXP spec, SEXP control, cg_control *ctl_out,
                                    cg_solver_opts *o_out)
{
    cg_control ctl;
    ctl.max_iter = asInteger(cg_list_get(control, "max_iter"));
    ctl.max_time = asReal(cg_list_get(control, "max_time"));
    ctl.tol = asReal(cg_list_get(control, "tol"));
    ctl.eval_every = asInteger(cg_list_get(control, "eval_every"));
    ctl.progress = asLogical(cg_list_get(control, "progress"));
    ctl.verbose = asLogical(cg_list_get(control, "verbose"));
    if (ctl.max_iter < 0 || ctl.eval_every < 0) error("invalid control");

    const problem_row *problem = find_problem(string_elt(spec, "problem"));
    cg_solver_opts o;
    o.method = find_method(string_elt(spec, "method"));
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
    o.beta0 = asReal(cg_list_get(spec, "beta0"));
    o.batch_constraints = asInteger(cg_list_get(spec, "batch_constraints"));
    SEXP adapt = cg_list_get(spec, "beta0_adapt");
    o.beta0_adapt = isNull(adapt) ? 0.0 : asReal(adapt);
    o.sgd_beta = asReal(cg_list_get(spec, "sgd_beta"));
    o.sgd_beta_prime = asReal(cg_list_get(spec, "sgd_beta_prime"));
    o.smf_output = asInteger(cg_list_get(spec, "smf_output"));
    *ctl_out = ctl;
    *o_out = o;
    return problem;
}

typedef struct {
    const problem_row *problem; cg_problem *P; const cg_trace *tr; int status, iters;
    SEXP out;
} result_call;

static SEXP result_body(void *data)
{
    result_call *rc = (result_call *) data;
    rc->out = result_list(rc->problem, rc->P, rc->tr, rc->status, rc->iters);
    return R_NilValue;
}

static void release_cleanup(void *data)
{
    cg_problem *P = (cg_problem *) data;
    if (P->release) { P->release(P); P->release = NULL; }
}

SEXP cg_solve_call(SEXP spec, SEXP control)
{
    cg_control ctl;
    cg_solver_opts o;
    const problem_row *problem = read_call(spec, control, &ctl, &o);
    cg_problem P;
    memset(&P, 0, sizeof(P));
    cg_trace tr;
    solve_call sc = { spec, problem, &o, &ctl, &P, &tr, 0, CG_STOP_MAX_ITER, 0, 1, 0 };
    GetRNGstate();
    sc.polling = cg_interrupt_polling(1);
    R_ExecWithCleanup(solve_body, &sc, solve_cleanup, &sc);
    int status = sc.status, iters = sc.iters;
    if (P.stop) status = P.stop;        /* a failure in the final evaluation */
    /* building the solution is not cut short by Ctrl-C; one pressed since
     * the last check would fire after .Call returns and lose the fit, so it
     * is taken here */
    if (status != CG_STOP_ERROR && cg_interrupted()) status = CG_STOP_INTERRUPT;

    /* the result, then the problem's memory outside R's heap released on
     * every path (an allocation error while building the result included) */
    result_call rc = { problem, &P, &tr, status, iters, R_NilValue };
    R_ExecWithCleanup(result_body, &rc, release_cleanup, &P);
    return rc.out;
}

/* ---- paths: one problem solved at several radii in one call (the
 * regression's "pfw" path, R/path.R). The problem is built once at the
 * first radius; after each solve its restart hook sets it up at the next
 * radius as a warm start from the solution, as a separate fit with init =
 * that solution would be (the same iterate, support and schedule of tests,
 * counted on from the iterations so far), keeping what does not depend on
 * the radius: the regression's cached Gram columns, computed once for the
 * whole path. Each radius's result is the list cg_solve_call returns, in
 * the list `out`; a path interrupted stops with the fits done (NULL after),
 * and so does one whose spec has path_stop_objective, after the first fit
 * whose objective is at most that. */
typedef struct { solve_call s; SEXP radii, out; double stop_objective; int lean; } path_call;

static SEXP path_body(void *data)
{
    path_call *pc = (path_call *) data;
    solve_call *s = &pc->s;
    cg_problem *P = s->P;
    const method_row *m = &methods[s->o->method];
    if (!s->problem->restart)
        error("problem '%s' has no paths", s->problem->name);
    solve_body(s);                          /* the first radius */
    const int k = LENGTH(pc->radii);
    int done_iters = P->iter_offset;
    for (int i = 0; i < k; i++) {
        if (i > 0) {
            done_iters += s->iters;
            s->problem->restart(P, REAL(pc->radii)[i]);
            P->iter_offset = done_iters;
            P->warm_start = 1;
            /* the next fit's trace in the same buffers (R_alloc'd: they
             * live until the call returns; a new set per radius held
             * 8 x 8 kB each, most of a CV fold path's allocation) */
            s->tr->len = 0;
            s->status = m->solve(P, s->o, s->ctl, s->tr, &s->iters);
        }
        int status = s->status;
        if (P->stop) status = P->stop;
        if (status != CG_STOP_ERROR && cg_interrupted()) status = CG_STOP_INTERRUPT;
        /* a path told to end once a fit's objective is this small (the
         * default radii of cv_sparse_regression(): glmnet's rule) */
        const int stop = status == CG_STOP_INTERRUPT ||
            (s->tr->len > 0 && s->tr->objective[s->tr->len - 1] <= pc->stop_objective);
        /* a CV fold path's fit before its last, ended as R/path.R makes a
         * lean fit of: its lean result (the last keeps its state) */
        const int lean = pc->lean && s->problem->lean_solution && !stop && i < k - 1 &&
            s->tr->len > 0 &&
            (status == CG_STOP_TOL || status == CG_STOP_MAX_ITER || status == CG_STOP_TIME);
        SET_VECTOR_ELT(pc->out, i,
                       lean ? lean_result_list(s->spec, s->problem, P, s->tr, status, s->iters)
                            : result_list(s->problem, P, s->tr, status, s->iters));
        if (stop) break;
    }
    return R_NilValue;
}

SEXP cg_solve_path_call(SEXP spec, SEXP control, SEXP radii)
{
    if (!isReal(radii) || LENGTH(radii) < 1) error("radii must be a numeric vector");
    for (int i = 0; i < LENGTH(radii); i++)
        if (!(REAL(radii)[i] > 0) || !R_FINITE(REAL(radii)[i]) ||
            (i > 0 && !(REAL(radii)[i] > REAL(radii)[i - 1])))
            error("radii must be positive, finite and increasing");
    cg_control ctl;
    cg_solver_opts o;
    const problem_row *problem = read_call(spec, control, &ctl, &o);
    cg_problem P;
    memset(&P, 0, sizeof(P));
    cg_trace tr;
    SEXP out = PROTECT(allocVector(VECSXP, LENGTH(radii)));
    path_call pc = { { spec, problem, &o, &ctl, &P, &tr, 0, CG_STOP_MAX_ITER, 0 }, radii, out,
                     cg_spec_scalar(spec, "path_stop_objective", R_NegInf),
                     asLogical(cg_list_get(spec, "path_lean")) == TRUE };
    GetRNGstate();
    pc.s.polling = cg_interrupt_polling(1);
    R_ExecWithCleanup(path_body, &pc, solve_cleanup, &pc.s);
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

double cg_spec_scalar(SEXP spec, const char *name, double absent)
{
    return isNull(cg_list_get(spec, name)) ? absent : *cg_spec_real(spec, name, 1);
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
