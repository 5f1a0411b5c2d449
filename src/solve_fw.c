/* Frank-Wolfe family: deterministic FW, stochastic FW (Lafond, Wai and
 * Moulines 2015, Alg. 1), SCG / SFW with growing minibatches (Hazan and Luo
 * 2016), and the stochastic projected-gradient baseline.
 * Both loops see the problem only through cg_problem. */
#include "stochcg.h"
#include <math.h>

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
    const int stochastic = (o->method != CG_METHOD_FW);
    cg_run r;
    cg_run_start(&r, P, ctl, tr);
    int status = CG_STOP_MAX_ITER, t;
    for (t = 1; t <= ctl->max_iter; t++) {
        int batch = !stochastic ? CG_BATCH_FULL : CG_BATCH_DEFAULT;
        if (o->method == CG_METHOD_SCG) {    /* Hazan and Luo: m_t ~ (t + 1)^2 */
            double k = ceil(o->scg_c * (t + 1.0) * (t + 1.0));
            batch = k > 1e8 ? 100000000 : (k < 1 ? 1 : (int) k);
        }
        r.n_grad += P->gradient(P, batch);
        double gap_hat = P->lmo(P);
        r.n_lmo += 1;
        if (ISNAN(gap_hat)) { status = CG_STOP_ERROR; t--; break; }
        /* with the exact gradient the LMO gives the duality gap, up to the
         * LMO's own accuracy: confirm with the independent full evaluation */
        if (!stochastic && cg_run_small_gap(&r, gap_hat)) {
            cg_run_evaluate(&r, P, t - 1);
            if (cg_run_small_gap(&r, r.gap)) { status = CG_STOP_TOL; t--; break; }
        }
        P->fw_step(P, step_size(o, P, t));
        int stop = cg_run_after_iter(&r, P, t, stochastic);
        if (stop >= 0) { status = stop; break; }
    }
    *iters = t > ctl->max_iter ? ctl->max_iter : t;
    cg_run_finish(&r, P, *iters);
    return status;
}

int cg_solve_pg(cg_problem *P, const cg_solver_opts *o, const cg_control *ctl,
                cg_trace *tr, int *iters)
{
    cg_run r;
    cg_run_start(&r, P, ctl, tr);
    int status = CG_STOP_MAX_ITER, t;
    for (t = 1; t <= ctl->max_iter; t++) {
        r.n_grad += P->gradient(P, CG_BATCH_DEFAULT);
        if (P->pg_step(P, o->eta) != CG_OK) { status = CG_STOP_ERROR; break; }
        int stop = cg_run_after_iter(&r, P, t, 1);
        if (stop >= 0) { status = stop; break; }
    }
    *iters = t > ctl->max_iter ? ctl->max_iter : t;
    cg_run_finish(&r, P, *iters);
    return status;
}
