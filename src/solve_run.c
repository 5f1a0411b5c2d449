/* Bookkeeping shared by every solver loop: a clock that excludes trace-only
 * work, work counters, scheduled evaluations of the full objective and gap,
 * and the stopping rules (tolerance, time, Ctrl-C). */
#include "stochcg.h"
#include <math.h>

double cg_run_elapsed(const cg_run *r) { return cg_clock() - r->t0 - r->paused; }

void cg_run_evaluate(cg_run *r, cg_problem *P, int iter)
{
    double start = cg_clock();
    P->evaluate(P, &r->obj, &r->gap);
    r->paused += cg_clock() - start;
    double now = cg_run_elapsed(r);
    cg_trace_push(r->tr, iter, P->epoch(P), now, r->obj, r->gap, NA_REAL,
                  r->n_grad, r->n_lmo, (double) P->n_matvec(P), P->svd_rank);
    r->last_eval = iter;
    if (r->ctl->verbose)
        Rprintf("iter %6d  time %8.3f  objective %.8g  gap %.4g\n", iter, now,
                r->obj, r->gap);
}

int cg_run_small_gap(const cg_run *r, double gap)
{
    return R_FINITE(gap) && gap <= r->ctl->tol * fmax(1.0, fabs(r->obj));
}

/* time, interrupt and scheduled-evaluation checks after an iteration;
 * returns a stop code or -1 to continue */
int cg_run_after_iter(cg_run *r, cg_problem *P, int t, int gap_stop)
{
    const cg_control *ctl = r->ctl;
    if (t % ctl->eval_every == 0) {
        cg_run_evaluate(r, P, t);
        if (gap_stop && cg_run_small_gap(r, r->gap)) return CG_STOP_TOL;
    }
    double now = cg_run_elapsed(r);
    cg_progress(ctl, &r->last_progress, t, now, r->obj, r->last_eval, 0);
    if (now > ctl->max_time) return CG_STOP_TIME;
    double wall = cg_clock();
    if (wall - r->last_check > 0.05) {
        r->last_check = wall;
        if (cg_interrupted()) return CG_STOP_INTERRUPT;
    }
    return -1;
}

void cg_run_start(cg_run *r, cg_problem *P, const cg_control *ctl, cg_trace *tr)
{
    r->ctl = ctl; r->tr = tr; r->paused = 0; r->n_grad = 0; r->n_lmo = 0;
    r->obj = NA_REAL; r->gap = NA_REAL; r->last_eval = -1; r->last_progress = -1;
    r->t0 = r->last_check = cg_clock();
    cg_run_evaluate(r, P, 0);
}

void cg_run_finish(cg_run *r, cg_problem *P, int iters)
{
    if (r->last_eval != iters) cg_run_evaluate(r, P, iters);
    cg_progress(r->ctl, &r->last_progress, iters, cg_run_elapsed(r), r->obj, r->last_eval, 1);
}

