/* Frank-Wolfe family: deterministic FW, stochastic FW (Lafond, Wai and
 * Moulines 2015, Alg. 1), SCG / SFW with growing minibatches (Hazan and Luo
 * 2016), and the stochastic projected-gradient baseline.
 * Each loop sees the problem only through its family's table (fw, pg,
 * pair) in cg_problem. */
#include "stochcg.h"
#include <math.h>

/* in double: t + K - 1 overflows int for K near .Machine$integer.max */
static double step_size(const cg_solver_opts *o, cg_problem *P, int t)
{
    if (o->step_rule == CG_STEP_LINE_SEARCH) {
        double g = P->fw->line_search(P);
        if (g >= 0) return g;
    }
    if (o->step_rule == CG_STEP_SFW) return o->K / ((double) t + o->K - 1.0);
    return 2.0 / (t + 1.0);   /* 2/(t'+2) with t' = t - 1 counted from zero */
}

/* A warm start from another problem's fit (a path's previous radius): its
 * iterations measure that problem's accuracy, not this one's, and counting
 * on from them along a path shrinks the steps ever more (the 13th radius of
 * a completion path started at step 2/13000 and stayed far from its
 * optimum: gap 7 times that of a cold start). The schedule enters instead
 * where its step equals the exact line search's at the start (the step
 * the start's own suboptimality calls for), never later than counting on.
 * Problems without a line search (-1) keep counting on. */
static void enter_schedule(const cg_solver_opts *o, cg_problem *P)
{
    const double g = P->fw->line_search(P);
    if (!(g > 0.0)) return;
    /* step(T) = 2 / (T + 1), or K / (T + K - 1): the T where it equals g */
    const double T = o->step_rule == CG_STEP_SFW ? o->K / g - o->K + 1.0 : 2.0 / g - 1.0;
    if (T - 1.0 < P->iter_offset) P->iter_offset = T < 1.0 ? 0 : (int) (T - 1.0);
}

/* t counts completed iterations: a failure inside an iteration (before its
 * step) leaves the iterate of iteration t */
int cg_solve_fw(cg_problem *P, const cg_solver_opts *o, const cg_control *ctl,
                cg_trace *tr, int *iters)
{
    const int stochastic = (o->method != CG_METHOD_FW);
    /* schedules count on from the fit a run resumes (iter_offset); SCG's
     * batch constant, rescaled with mu, is the loop's state */
    const int t0 = P->iter_offset;
    double scg_c = P->loop.resumed ? P->loop.c : o->scg_c;
    cg_run r;
    int stop = cg_run_start(&r, P, ctl, tr), t = 0;
    while (stop < 0 && t < ctl->max_iter) {
        int batch = !stochastic ? CG_BATCH_FULL : CG_BATCH_DEFAULT;
        if (o->method == CG_METHOD_SCG) {
            /* Hazan and Luo: m_t ~ (t + 1)^2 at iteration t, here t + 1 */
            const double tt = (double) t0 + t + 2.0;
            double k = ceil(scg_c * tt * tt);
            batch = k > 1e8 ? 100000000 : (k < 1 ? 1 : (int) k);
        }
        r.n_grad += P->fw->gradient(P, batch);
        if ((stop = cg_run_failed(P)) >= 0) break;
        double gap_hat = P->fw->lmo(P);
        r.n_lmo += 1;
        if (!R_FINITE(gap_hat))
            cg_fail(P, "the estimated Frank-Wolfe gap is not finite at iteration %d: it "
                    CG_OVERFLOW_HINT, t + 1);
        if ((stop = cg_run_failed(P)) >= 0) break;
        /* smoothed problems: the certificate adds the dual residual, and
         * continuation decreases mu (smooth.c); with the exact gradient the
         * LMO's gap is the smoothed gap, else it is computed every
         * CG_SMOOTH_CHECK iterations. SCG's batches scale as 1 / L^2. */
        if (P->mu > 0) {
            const double L_old = cg_smooth_lipschitz(P);
            int changed = 0;
            if (!stochastic) {
                double smoothed = gap_hat;
                gap_hat += P->smooth->smooth_residual(P);
                changed = cg_smoothing_update(P, smoothed);
            } else if (P->mu_auto && ((long long) t0 + t) % CG_SMOOTH_CHECK == 0) {
                changed = cg_smoothing_update(P, P->smooth->smooth_gap(P));
                if ((stop = cg_run_failed(P)) >= 0) break;
            }
            if (changed) {
                const double q = L_old / cg_smooth_lipschitz(P);
                scg_c *= q * q;
            }
        }
        /* with the exact gradient the LMO gives the duality gap, up to the
         * LMO's own accuracy: confirm with the independent full evaluation */
        if (!stochastic && cg_run_small_gap(&r, gap_hat)) {
            cg_run_evaluate(&r, P, t);
            if ((stop = cg_run_failed(P)) >= 0) break;
            if (cg_run_small_gap(&r, r.gap)) { stop = CG_STOP_TOL; break; }
        }
        if (t == 0 && P->warm_start && o->step_rule != CG_STEP_LINE_SEARCH)
            enter_schedule(o, P);
        P->fw->fw_step(P, step_size(o, P, P->iter_offset + t + 1));
        t++;
        stop = cg_run_after_iter(&r, P, t, stochastic);
    }
    if (o->method == CG_METHOD_SCG) {          /* the only one that reads it */
        P->loop.c = scg_c;
        P->loop.saved = 1;
    }
    *iters = t;
    return cg_run_finish(&r, P, t, stop);
}

int cg_solve_pg(cg_problem *P, const cg_solver_opts *o, const cg_control *ctl,
                cg_trace *tr, int *iters)
{
    cg_run r;
    int stop = cg_run_start(&r, P, ctl, tr), t = 0;
    while (stop < 0 && t < ctl->max_iter) {
        r.n_grad += P->pg->gradient(P, CG_BATCH_DEFAULT);
        if ((stop = cg_run_failed(P)) >= 0) break;
        cg_fail_status(P, P->pg->pg_step(P, o->eta), "the projection");
        if ((stop = cg_run_failed(P)) >= 0) break;
        t++;
        stop = cg_run_after_iter(&r, P, t, 1);
    }
    *iters = t;
    return cg_run_finish(&r, P, t, stop);
}

/* Pairwise Frank-Wolfe (Lacoste-Julien and Jaggi 2015, Alg. 2): weight moves
 * from the away vertex to the FW vertex, with exact line search capped at the
 * away vertex's weight (a drop step removes it exactly). On a polytope with a
 * strongly convex objective the rate is linear, where plain FW zigzags at
 * rate 1/t on a face. The problem keeps its gradient exact by cheap updates;
 * CG_BATCH_FULL recomputes it from scratch, which the loop asks for every
 * REFRESH iterations (rounding drift) and before it trusts a small gap.
 * Where the problem has a face step (an exact minimization on the current
 * face, prob_regression.c), an iteration may end with one. */
#define REFRESH 10000
int cg_solve_pfw(cg_problem *P, const cg_solver_opts *o, const cg_control *ctl,
                 cg_trace *tr, int *iters)
{
    (void) o;                        /* one rule: exact line search */
    /* a fresh or warm start computes its gradient first; an exact
     * continuation (init =) goes on with the one its problem kept, and
     * refreshes it where one longer run would */
    const int t0 = P->loop.resumed ? P->iter_offset : 0;
    cg_run r;
    int stop = cg_run_start(&r, P, ctl, tr), t = 0, exact = t0 % REFRESH == 0;
    while (stop < 0 && t < ctl->max_iter) {
        r.n_grad += P->pair->gradient(P, exact ? CG_BATCH_FULL : CG_BATCH_DEFAULT);
        if ((stop = cg_run_failed(P)) >= 0) break;
        double gap = P->pair->lmo(P);
        r.n_lmo += 1;
        if (!R_FINITE(gap))
            cg_fail(P, "the Frank-Wolfe gap is not finite at iteration %d: it "
                    CG_OVERFLOW_HINT, t + 1);
        if ((stop = cg_run_failed(P)) >= 0) break;
        if (cg_run_small_gap(&r, gap)) {
            if (!exact) { exact = 1; continue; }   /* same iterate, fresh gradient */
            cg_run_evaluate(&r, P, t);
            if ((stop = cg_run_failed(P)) >= 0) break;
            if (cg_run_small_gap(&r, r.gap)) { stop = CG_STOP_TOL; break; }
        }
        double gamma_max, gamma;
        P->pair->pair_direction(P, &gamma_max, &gamma);
        if ((stop = cg_run_failed(P)) >= 0) break;
        if (!(gamma < gamma_max)) gamma = gamma_max;
        if (gamma < 0) gamma = 0;
        P->pair->pair_step(P, gamma, gamma == gamma_max);
        t++;
        if (P->pair->face_step) {        /* a failure leaves x as the pair step did */
            P->pair->face_step(P);
            if ((stop = cg_run_failed(P)) >= 0) break;
        }
        exact = (t0 + t) % REFRESH == 0;
        stop = cg_run_after_iter(&r, P, t, 0);     /* the loop confirms its own gaps */
    }
    P->loop.saved = 1;               /* nothing but P->loop.resumed to carry */
    *iters = t;
    return cg_run_finish(&r, P, t, stop);
}
