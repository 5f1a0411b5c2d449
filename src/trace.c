/* Trace recorder, timers, interrupt checks and progress display. */
#include "stochcg.h"
#include <time.h>
#include <string.h>
#include <limits.h>

/* columns are (re)allocated together; growing copies the rows so far (the
 * old blocks are reclaimed by R when the .Call returns) */
static void trace_alloc(cg_trace *tr, int cap)
{
    cg_trace old = *tr;
    tr->cap = cap;
    tr->iter = (int *) R_alloc(cap, sizeof(int));
    tr->svd_rank = (int *) R_alloc(cap, sizeof(int));
    double **cols[] = {&tr->epoch, &tr->time, &tr->objective, &tr->gap,
                       &tr->infeas, &tr->n_grad, &tr->n_lmo, &tr->n_matvec};
    double *olds[] = {old.epoch, old.time, old.objective, old.gap,
                      old.infeas, old.n_grad, old.n_lmo, old.n_matvec};
    for (size_t c = 0; c < sizeof(cols) / sizeof(cols[0]); c++) {
        *cols[c] = (double *) R_alloc(cap, sizeof(double));
        if (tr->len > 0) memcpy(*cols[c], olds[c], tr->len * sizeof(double));
    }
    if (tr->len > 0) {
        memcpy(tr->iter, old.iter, tr->len * sizeof(int));
        memcpy(tr->svd_rank, old.svd_rank, tr->len * sizeof(int));
    }
}

void cg_trace_init(cg_trace *tr, int cap)
{
    tr->len = 0;
    trace_alloc(tr, cap < 4 ? 4 : cap);
}

void cg_trace_push(cg_trace *tr, int iter, double epoch, double time, double obj,
                   double gap, double infeas, double n_grad, double n_lmo,
                   double n_matvec, int svd_rank)
{
    if (tr->len == tr->cap) trace_alloc(tr, tr->cap > INT_MAX / 2 ? INT_MAX : 2 * tr->cap);
    int r = tr->len++;
    tr->iter[r] = iter; tr->epoch[r] = epoch; tr->time[r] = time;
    tr->objective[r] = obj; tr->gap[r] = gap; tr->infeas[r] = infeas;
    tr->n_grad[r] = n_grad; tr->n_lmo[r] = n_lmo; tr->n_matvec[r] = n_matvec;
    tr->svd_rank[r] = svd_rank;
}

SEXP cg_trace_to_list(const cg_trace *tr)
{
    static const char *names[] = {"iter", "epoch", "time", "objective", "gap",
        "infeasibility", "n_grad", "n_lmo", "svd_rank", "n_matvec", ""};
    const int n = tr->len;
    SEXP out = PROTECT(mkNamed(VECSXP, names));
    SEXP it = PROTECT(allocVector(INTSXP, n)), rk = PROTECT(allocVector(INTSXP, n));
    for (int r = 0; r < n; r++) { INTEGER(it)[r] = tr->iter[r]; INTEGER(rk)[r] = tr->svd_rank[r]; }
    SET_VECTOR_ELT(out, 0, it);
    SET_VECTOR_ELT(out, 8, rk);
    const double *dcols[] = {tr->epoch, tr->time, tr->objective, tr->gap,
                             tr->infeas, tr->n_grad, tr->n_lmo};
    for (int c = 0; c < 7; c++) {
        SEXP v = PROTECT(allocVector(REALSXP, n));
        for (int r = 0; r < n; r++) REAL(v)[r] = dcols[c][r];
        SET_VECTOR_ELT(out, c + 1, v);
        UNPROTECT(1);
    }
    SEXP mv = PROTECT(allocVector(REALSXP, n));
    for (int r = 0; r < n; r++) REAL(mv)[r] = tr->n_matvec[r];
    SET_VECTOR_ELT(out, 9, mv);
    UNPROTECT(4);
    return out;
}

double cg_clock(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec + 1e-9 * (double) ts.tv_nsec;
}

static void check_interrupt_fn(void *unused) { R_CheckUserInterrupt(); }

int cg_interrupted(void)
{
    return !R_ToplevelExec(check_interrupt_fn, NULL);
}

static SEXP try_handler(SEXP cond, void *caught)
{
    *(int *) caught = inherits(cond, "interrupt") ? CG_ERR_INTERRUPT : CG_ERR_R;
    return cond;
}

SEXP cg_try(SEXP (*body)(void *), void *data, int *caught)
{
    SEXP conds = PROTECT(allocVector(STRSXP, 2));
    SET_STRING_ELT(conds, 0, mkChar("error"));
    SET_STRING_ELT(conds, 1, mkChar("interrupt"));
    *caught = CG_OK;
    SEXP res = R_tryCatch(body, data, conds, try_handler, caught, NULL, NULL);
    UNPROTECT(1);
    return res;
}

typedef struct { SEXP call, rho; } user_call;

static SEXP user_call_body(void *data)
{
    user_call *c = (user_call *) data;
    return eval(c->call, c->rho);
}

SEXP cg_call_user_matrix(cg_problem *P, SEXP call, SEXP rho, int nrow, int ncol,
                         const char *what, const char *which)
{
    user_call c = { call, rho };
    int caught;
    PutRNGstate();                       /* the user's code may draw from R's RNG too */
    SEXP res = PROTECT(cg_try(user_call_body, &c, &caught));
    GetRNGstate();
    SEXP out = R_NilValue;
    if (caught == CG_ERR_INTERRUPT || (caught == CG_OK && cg_interrupted())) {
        cg_fail_status(P, CG_ERR_INTERRUPT, NULL);
    } else if (caught == CG_ERR_R) {
        SEXP msg = cg_list_get(res, "message");
        cg_fail(P, "%s failed at %s: %s", what, which,
                isString(msg) && LENGTH(msg) > 0 ? CHAR(STRING_ELT(msg, 0)) : "");
    } else {
        SEXP dim = getAttrib(res, R_DimSymbol);
        if (!(isReal(res) || isInteger(res) || isLogical(res)) || LENGTH(dim) != 2 ||
            INTEGER(dim)[0] != nrow || INTEGER(dim)[1] != ncol) {
            cg_fail(P, "%s must return a numeric %d x %d matrix; %s returned a %s of length %.0f",
                    what, nrow, ncol, which, type2char(TYPEOF(res)), (double) xlength(res));
        } else {
            SEXP x = coerceVector(res, REALSXP);
            if (!cg_all_finite(REAL(x), (size_t) nrow * ncol))
                cg_fail(P, "%s returned NA, NaN or Inf at %s", what, which);
            else out = x;
        }
    }
    UNPROTECT(1);
    if (out != R_NilValue) PROTECT(out);
    return out;
}

/* Process-wide, like R's own interrupt flag: on only inside a solve. */
static int polling = 0;
static double last_poll = 0.0;

int cg_interrupt_polling(int on)
{
    int old = polling;
    polling = on;
    last_poll = cg_clock();
    return old;
}

static int has_deadline = 0;
static double kernel_deadline = 0.0;

void cg_kernel_deadline(double when)
{
    has_deadline = R_FINITE(when);
    kernel_deadline = when;
}

int cg_kernel_past_deadline(void)
{
    return has_deadline && cg_clock() > kernel_deadline;
}

int cg_interrupt_poll(void)
{
    if (!polling) return 0;
    double now = cg_clock();
    if (now - last_poll < 0.05) return 0;
    last_poll = now;
    return cg_interrupted();
}

/* One status line, rewritten in place, for fits longer than ~2 seconds.
 * `last` (per run) holds when the line was last drawn, -1 if never; the
 * objective shown is the latest trace evaluation, made at `eval_iter`. */
void cg_progress(const cg_control *ctl, double *last, int iter, double time,
                 double obj, int eval_iter, int final)
{
    if (!ctl->progress) return;
    if (final) {
        if (*last >= 0) REprintf("\n");
        return;
    }
    if (time < 2.0 || (*last >= 0 && time - *last < 0.5)) return;
    *last = time;
    REprintf("\r  iter %7d  %7.1fs  objective %-12.6g (at iter %d)   ", iter, time,
             obj, eval_iter);
}
