/* Bookkeeping shared by every solver loop: a clock that excludes trace-only
 * work, work counters, scheduled evaluations of the full objective and gap,
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
    if (overflowed(r->obj) || overflowed(r->gap))
        cg_fail(P, "the %s is %s at iteration %d: it " CG_OVERFLOW_HINT,
                overflowed(r->obj) ? "objective" : "duality gap",
                nonfinite_name(overflowed(r->obj) ? r->obj : r->gap), iter);
}

/* a gap computed from non-finite numbers must never stop a run as converged */
int cg_run_small_gap(const cg_run *r, double gap)
{
    return R_FINITE(gap) && R_FINITE(r->obj) && gap <= r->ctl->tol * fmax(1.0, fabs(r->obj));
}

/* time, interrupt and scheduled-evaluation checks after an iteration;
 * returns a stop code or -1 to continue */
int cg_run_after_iter(cg_run *r, cg_problem *P, int t, int gap_stop)
{
    const cg_control *ctl = r->ctl;
    if (t % ctl->eval_every == 0) {
        cg_run_evaluate(r, P, t);
        if (P->stop) return P->stop;
        if (gap_stop && cg_run_small_gap(r, r->gap)) return CG_STOP_TOL;
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
    r->t0 = cg_clock();
    cg_run_evaluate(r, P, 0);
    return cg_run_failed(P);
}

void cg_run_finish(cg_run *r, cg_problem *P, int iters)
{
    if (r->last_eval != iters) cg_run_evaluate(r, P, iters);
    cg_progress(r->ctl, &r->last_progress, iters, cg_run_elapsed(r), r->obj, r->last_eval, 1);
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
