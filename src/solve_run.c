/* Bookkeeping shared by every solver loop: a clock that excludes trace-only
 * work, work counters, scheduled evaluations of the full objective and gap
 * (fixed, or adaptive within a share of the wall time),
 * the stopping rules (tolerance, time, Ctrl-C) and the failure channel. */
#include "stochcg.h"
#include <math.h>
#include <stdarg.h>
#include <stdio.h>

double cg_run_elapsed(const cg_run *r) { return cg_clock() - r->t0 - r->paused; }

/* non-finite, but not the NA a problem returns for "unknown" */
static int overflowed(double x) { return !R_FINITE(x) && !R_IsNA(x); }
static const char *nonfinite_name(double x)
{
    return ISNAN(x) ? "NaN" : x > 0 ? "Inf" : "-Inf";
}

/* `test`: an evaluation the run may stop on, made at an iteration that does
 * not depend on timing; only these set the objective that scales tol, so
 * that trace-only rows (made when time allows) never change a fit. Nor may
 * they end it: a trace row whose evaluation fails (an objective that
 * overflows at an early iterate, say) is kept in the trace and the failure
 * dropped, else whether a fit fails would depend on the machine's load. An
 * interrupt or the time limit seen inside it still counts. */
static void evaluate(cg_run *r, cg_problem *P, int iter, int test)
{
    double start = cg_clock();
    const int stop_before = P->stop;
    P->eval_test = test;
    P->evaluate(P, &r->obj, &r->gap);
    r->last_eval_failed = 0;
    if (!test && P->stop == CG_STOP_ERROR && stop_before != CG_STOP_ERROR) {
        P->stop = stop_before;
        P->failure[0] = '\0';
        r->last_eval_failed = 1;
    }
    if (P->homotopy) r->infeas = P->homotopy->infeasibility(P, &r->infeas_scale);
    r->eval_cost = cg_clock() - start;
    r->paused += r->eval_cost;
    double now = cg_run_elapsed(r);
    cg_trace_push(r->tr, iter, P->epoch(P), now, r->obj, r->gap, r->infeas,
                  r->n_grad, r->n_lmo, (double) P->n_matvec(P), P->svd_rank);
    r->last_eval = iter;
    if (test) { r->last_test = r->offset + iter; r->obj_test = r->obj; }
    if (r->ctl->verbose)
        Rprintf("iter %6d  time %8.3f  objective %.8g  gap %.4g\n", iter, now,
                r->obj, r->gap);
    if (!test && (overflowed(r->obj) || overflowed(r->gap))) r->last_eval_failed = 1;
    else if (overflowed(r->obj) || overflowed(r->gap))
        cg_fail(P, "the %s is %s at iteration %d: it " CG_OVERFLOW_HINT,
                overflowed(r->obj) ? "objective" : "duality gap",
                nonfinite_name(overflowed(r->obj) ? r->obj : r->gap), iter);
}

void cg_run_evaluate(cg_run *r, cg_problem *P, int iter) { evaluate(r, P, iter, 1); }

/* tol is relative to the objective, as scale-free as the problem (or
 * bounds the gap itself where the problem's gap is already relative,
 * P->gap_relative); an
 * optimum near zero (an exact fit) is measured against a thousandth of the
 * objective at the start (the zero iterate) instead, so that it needs no gap
 * below rounding error. (Relative to the start alone, fits whose optimum is
 * far below it would stop early: lowrank_sparse, 2-5% off.) A gap computed
 * from non-finite numbers must never stop a run as converged. */
int cg_run_small_gap(const cg_run *r, double gap)
{
    double scale = r->gap_relative ? 1.0 : fmax(fabs(r->obj_test), 1e-3 * fabs(r->obj0));
    /* with constraints (homotopy), the gap bounds f - f* only near
     * feasibility: both must be small, and the gap on both sides (an
     * infeasible iterate's objective can lie below the certified lower
     * bound, i.e. below the optimum: then |gap| bounds how far) */
    if (!R_IsNA(r->infeas)) {
        if (!(r->infeas <= r->ctl->tol * r->infeas_scale)) return 0;
        gap = fabs(gap);
    }
    return R_FINITE(gap) && R_FINITE(r->obj_test) && gap <= r->ctl->tol * scale;
}

enum { EVAL_NONE = 0, EVAL_TRACE = 1, EVAL_TEST = 2 };

/* the last test at or before global iteration T of a run from 0 (the
 * schedules of eval_due) */
static int test_spacing(int t, int min) { return 1 + t / 10 > min ? 1 + t / 10 : min; }

static int last_scheduled_test(const cg_control *ctl, int min, int T)
{
    if (ctl->eval_every > 0) return T - T % ctl->eval_every;
    int last = 0;
    for (;;) {      /* the next test: least t, t - last >= max(1 + t / 10, min) */
        int t = last + 1;
        while (t - last < test_spacing(t, min)) t = last + test_spacing(t, min);
        if (t > T) return last;
        last = t;
    }
}

/* Which evaluation is due after iteration t? A fixed eval_every: a test at
 * each. The adaptive schedule: tests (only with tol > 0) at most 10% of the
 * iterations apart, set by the iteration count alone so that set.seed()
 * reproduces where a run stops (tying them to passes over the data instead
 * kept a stochastic run going over 18 times longer than it needed), for
 * the loops that stop on them (gap_stop: the exact-gradient loops confirm
 * their own small gaps, and a test costing a pass over the data every 10%
 * of iterations dominated pfw's O(p) steps); and trace
 * rows in between, geometric in iterations (about 100 rows per e-fold of t)
 * while evaluations, the next one costing about what the last did, stay
 * within CG_EVAL_BUDGET of the wall time so far (or within the problem's
 * eval_free seconds). A problem whose test reads a file while an iteration
 * reads a minibatch (P->test_every_min, a reader) spaces its tests at least
 * that many iterations apart: one pass over the data per test at most per
 * pass its draws make, so that tests cost a bounded share of the reads
 * (53 passes for 1000 sfw iterations at 2e6 x 50 were 4 without tests),
 * until the problem lowers it (P->test_every_min is read after every
 * iteration: sfw from a reader, once every row is drawn). Such a problem
 * may also turn trace rows off (P->trace_rows_off) while they would read
 * the file. */
static int eval_due(const cg_run *r, int t, int gap_stop)
{
    const cg_control *ctl = r->ctl;
    const int T = r->offset + t;               /* tests: global iterations */
    if (ctl->eval_every > 0) return T % ctl->eval_every == 0 ? EVAL_TEST : EVAL_NONE;
    if (ctl->tol > 0 && gap_stop && T - r->last_test >= test_spacing(T, r->test_min))
        return EVAL_TEST;
    if (r->trace_off || t - r->last_eval < 1 + t / 100) return EVAL_NONE;
    double wall = cg_clock() - r->t0;
    const double allowed = fmax(CG_EVAL_BUDGET * wall, r->eval_free);
    return r->paused + r->eval_cost <= allowed ? EVAL_TRACE : EVAL_NONE;
}

/* time, interrupt and scheduled-evaluation checks after an iteration;
 * returns a stop code or -1 to continue */
int cg_run_after_iter(cg_run *r, cg_problem *P, int t, int gap_stop)
{
    const cg_control *ctl = r->ctl;
    /* a problem may lower its spacing during the run (a reader whose
     * statistics became exact: its tests read nothing more) */
    r->test_min = P->test_every_min > 0 ? P->test_every_min : 0;
    r->trace_off = P->trace_rows_off;
    const int due = eval_due(r, t, gap_stop);
    if (due != EVAL_NONE) {
        evaluate(r, P, t, due == EVAL_TEST);
        if (P->stop) return P->stop;
        if (due == EVAL_TEST && gap_stop && cg_run_small_gap(r, r->gap)) return CG_STOP_TOL;
    }
    if (P->stop) return P->stop;
    double now = cg_run_elapsed(r);
    cg_progress(ctl, &r->last_progress, t, now, r->obj, r->last_eval, 0);
    if (now > ctl->max_time) return CG_STOP_TIME;
    if (cg_interrupt_poll()) return CG_STOP_INTERRUPT;
    return -1;
}

int cg_run_start(cg_run *r, cg_problem *P, const cg_control *ctl, cg_trace *tr)
{
    r->ctl = ctl; r->tr = tr; r->paused = 0; r->n_grad = 0; r->n_lmo = 0;
    r->obj = NA_REAL; r->gap = NA_REAL; r->last_eval = -1; r->last_progress = -1;
    r->eval_cost = 0; r->last_test = -1; r->obj_test = NA_REAL; r->last_eval_failed = 0;
    r->infeas = NA_REAL; r->infeas_scale = 0;
    r->gap_relative = P->gap_relative;
    r->eval_free = P->eval_free;
    r->test_min = P->test_every_min > 0 ? P->test_every_min : 0;
    r->trace_off = P->trace_rows_off;
    r->offset = P->iter_offset;
    r->t0 = cg_clock();
    cg_run_evaluate(r, P, 0);
    r->obj0 = fmax(R_FINITE(r->obj) ? fabs(r->obj) : 0, P->cold_objective);
    if (P->stop || r->offset == 0) return cg_run_failed(P);
    /* a resumed fit (init =) tests where one longer run would: at the
     * schedule's iterations, counted from the cold start; one that already
     * meets tol where that run would have tested stops as that run did */
    const int at_test = last_scheduled_test(ctl, r->test_min, r->offset) == r->offset;
    r->last_test = last_scheduled_test(ctl, r->test_min, r->offset);
    return at_test && cg_run_small_gap(r, r->gap) ? CG_STOP_TOL : -1;
}

int cg_run_finish(cg_run *r, cg_problem *P, int iters, int stop)
{
    if (r->last_eval != iters || r->last_eval_failed) cg_run_evaluate(r, P, iters);
    else { r->last_test = r->offset + iters; r->obj_test = r->obj; }  /* same iterate */
    cg_progress(r->ctl, &r->last_progress, iters, cg_run_elapsed(r), r->obj, r->last_eval, 1);
    if (stop < 0) stop = CG_STOP_MAX_ITER;
    if (stop != CG_STOP_MAX_ITER && stop != CG_STOP_TIME) return stop;
    if (P->stop) return P->stop;          /* the final evaluation failed */
    /* the final evaluation certifies the tolerance: say so, whatever ended
     * the loop (a sparse evaluation schedule may have missed the moment) */
    return cg_run_small_gap(r, r->gap) ? CG_STOP_TOL : stop;
}

/* ------------------------------------------------------ failure channel */
void cg_fail(cg_problem *P, const char *fmt, ...)
{
    if (P->stop) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(P->failure, sizeof(P->failure), fmt, ap);
    va_end(ap);
    P->stop = CG_STOP_ERROR;
}

void cg_fail_status(cg_problem *P, int status, const char *what)
{
    switch (status) {
    case CG_OK: return;
    case CG_ERR_INTERRUPT:
        if (!P->stop) P->stop = CG_STOP_INTERRUPT;
        return;
    case CG_ERR_TIMEOUT:                 /* the run's time limit, not a failure */
        if (!P->stop) P->stop = CG_STOP_TIME;
        return;
    case CG_ERR_NONFINITE:
        cg_fail(P, "%s met non-finite values (NA, NaN or Inf): the gradient "
                CG_OVERFLOW_HINT, what);
        return;
    case CG_ERR_SVD:
        cg_fail(P, "%s failed: the Lanczos partial SVD did not converge", what);
        return;
    case CG_ERR_LAPACK:
        cg_fail(P, "%s failed: a LAPACK decomposition did not converge", what);
        return;
    default:
        cg_fail(P, "%s failed (status %d)", what, status);
    }
}

int cg_run_failed(const cg_problem *P) { return P->stop ? P->stop : -1; }

double cg_gap_failed(cg_problem *P, int status)
{
    if (status == CG_ERR_NONFINITE || status == CG_ERR_INTERRUPT)
        cg_fail_status(P, status, "the duality gap's singular value decomposition");
    return NA_REAL;
}
