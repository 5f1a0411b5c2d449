/* Frank-Wolfe family: deterministic FW and stochastic FW (Lafond, Wai and
 * Moulines 2015, Alg. 1), and the stochastic projected-gradient baseline.
 * Both loops see the problem only through cg_problem. */
#include "stochcg.h"
#include <math.h>

/* Shared bookkeeping of one run: clock that excludes trace-only work,
 * counters, scheduled evaluations, stopping rules. */
typedef struct {
    const cg_control *ctl;
    cg_trace *tr;
    double t0, paused, n_grad, n_lmo, obj, gap, last_check, last_progress;
    int last_eval;
} run_state;

static double elapsed(const run_state *r) { return cg_clock() - r->t0 - r->paused; }

static void evaluate(run_state *r, cg_problem *P, int iter)
{
    double start = cg_clock();
    P->evaluate(P, &r->obj, &r->gap);
    r->paused += cg_clock() - start;
    double now = elapsed(r);
    cg_trace_push(r->tr, iter, P->epoch(P), now, r->obj, r->gap, NA_REAL,
                  r->n_grad, r->n_lmo, (double) P->n_matvec(P), P->svd_rank);
    r->last_eval = iter;
    if (r->ctl->verbose)
        Rprintf("iter %6d  time %8.3f  objective %.8g  gap %.4g\n", iter, now,
                r->obj, r->gap);
}

static int small_gap(const run_state *r, double gap)
{
    return R_FINITE(gap) && gap <= r->ctl->tol * fmax(1.0, fabs(r->obj));
}

/* time, interrupt and scheduled-evaluation checks after an iteration;
 * returns a stop code or -1 to continue */
static int after_iter(run_state *r, cg_problem *P, int t, int stochastic)
{
    const cg_control *ctl = r->ctl;
    if (t % ctl->eval_every == 0) {
        evaluate(r, P, t);
        if (stochastic && small_gap(r, r->gap)) return CG_STOP_TOL;
    }
    double now = elapsed(r);
    cg_progress(ctl, &r->last_progress, t, now, r->obj, r->last_eval, 0);
    if (now > ctl->max_time) return CG_STOP_TIME;
    double wall = cg_clock();
    if (wall - r->last_check > 0.05) {
        r->last_check = wall;
        if (cg_interrupted()) return CG_STOP_INTERRUPT;
    }
    return -1;
}

static void start(run_state *r, cg_problem *P, const cg_control *ctl, cg_trace *tr)
{
    r->ctl = ctl; r->tr = tr; r->paused = 0; r->n_grad = 0; r->n_lmo = 0;
    r->obj = NA_REAL; r->gap = NA_REAL; r->last_eval = -1; r->last_progress = -1;
    r->t0 = r->last_check = cg_clock();
    evaluate(r, P, 0);
}

static void finish(run_state *r, cg_problem *P, int iters)
{
    if (r->last_eval != iters) evaluate(r, P, iters);
    cg_progress(r->ctl, &r->last_progress, iters, elapsed(r), r->obj, r->last_eval, 1);
}

static double step_size(const cg_solver_opts *o, cg_problem *P, int t)
{
    if (o->step_rule == CG_STEP_LINE_SEARCH) {
        double g = P->line_search(P);
        if (g >= 0) return g;
    }
    if (o->step_rule == CG_STEP_SFW) return (double) o->K / (t + o->K - 1);
    return 2.0 / (t + 1);   /* 2/(t'+2) with t' = t - 1 counted from zero */
}

int cg_solve_fw(cg_problem *P, const cg_solver_opts *o, const cg_control *ctl,
                cg_trace *tr, int *iters)
{
    const int stochastic = (o->method == CG_METHOD_SFW);
    run_state r;
    start(&r, P, ctl, tr);
    int status = CG_STOP_MAX_ITER, t;
    for (t = 1; t <= ctl->max_iter; t++) {
        r.n_grad += P->gradient(P, stochastic ? CG_BATCH_DEFAULT : CG_BATCH_FULL);
        double gap_hat = P->lmo(P);
        r.n_lmo += 1;
        if (ISNAN(gap_hat)) { status = CG_STOP_ERROR; t--; break; }
        /* with the exact gradient the LMO gives the duality gap, up to the
         * LMO's own accuracy: confirm with the independent full evaluation */
        if (!stochastic && small_gap(&r, gap_hat)) {
            evaluate(&r, P, t - 1);
            if (small_gap(&r, r.gap)) { status = CG_STOP_TOL; t--; break; }
        }
        P->fw_step(P, step_size(o, P, t));
        int stop = after_iter(&r, P, t, stochastic);
        if (stop >= 0) { status = stop; break; }
    }
    *iters = t > ctl->max_iter ? ctl->max_iter : t;
    finish(&r, P, *iters);
    return status;
}

int cg_solve_pg(cg_problem *P, const cg_solver_opts *o, const cg_control *ctl,
                cg_trace *tr, int *iters)
{
    run_state r;
    start(&r, P, ctl, tr);
    int status = CG_STOP_MAX_ITER, t;
    for (t = 1; t <= ctl->max_iter; t++) {
        r.n_grad += P->gradient(P, CG_BATCH_DEFAULT);
        if (P->pg_step(P, o->eta) != CG_OK) { status = CG_STOP_ERROR; break; }
        int stop = after_iter(&r, P, t, 1);
        if (stop >= 0) { status = stop; break; }
    }
    *iters = t > ctl->max_iter ? ctl->max_iter : t;
    finish(&r, P, *iters);
    return status;
}
