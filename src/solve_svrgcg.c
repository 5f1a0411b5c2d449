/* Variance-reduced generalized conditional gradient (Garber and Kaplan 2019,
 * Alg. 1 stochastic, Alg. 2 finite sum): epochs s = 1, 2, ... take a snapshot
 * gradient from k_s samples (k_s = k_1 2^(s-1); the full data in the finite
 * sum), then T - 1 inner iterations each form the SVRG estimate from k_t
 * samples and move toward a weak proximal point (rank-r SVD + projection of
 * the r values, rank certified). An iteration of the trace is one inner
 * iteration. Smoothed problems with continuation (smooth.c) check mu at
 * each snapshot; the step and the epoch length are those of the starting
 * mu, rescaled with the smoothness beta(mu): eta ~ 1/beta (so the proximal
 * scale 1/(2 beta eta) is unchanged) and T - 1 ~ beta, as in Theorem 3.
 * The epoch, the position in it, eta and T are the loop's state (P->loop):
 * a fit resumed with them (and the problem's snapshot) goes on as one
 * longer run. */
#include "stochcg.h"
#include <math.h>

int cg_solve_svrgcg(cg_problem *P, const cg_solver_opts *o, const cg_control *ctl,
                    cg_trace *tr, int *iters)
{
    /* the epoch s in progress (0: none yet) and its inner iterations done;
     * a resumed run goes on mid-epoch, from the fit's snapshot (kept by the
     * problem) and its rescaled step and epoch length */
    int s = 0, done = 0;
    double eta = o->eta, inner_len = o->inner;
    if (P->loop.resumed) {
        s = P->loop.stage; done = P->loop.pos;
        eta = P->loop.eta; inner_len = P->loop.len;
    }
    cg_run r;
    int stop = cg_run_start(&r, P, ctl, tr), t = 0;
    while (stop < 0 && t < ctl->max_iter) {
        if (s == 0 || done + 1 >= inner_len) {     /* epoch over: the next snapshot */
            s++; done = 0;
            int ks = CG_BATCH_FULL;
            if (o->batch_snapshot > 0) {
                double k = ceil(o->batch_snapshot * ldexp(1.0, s - 1));
                ks = k > 1e8 ? 100000000 : (int) k;
            }
            r.n_grad += P->prox->snapshot(P, ks);
            if ((stop = cg_run_failed(P)) >= 0) break;
            if (P->mu_auto && P->mu > 0) {
                const double L_old = cg_smooth_lipschitz(P);
                if (cg_smoothing_update(P, P->smooth->smooth_gap(P))) {
                    const double q = L_old / cg_smooth_lipschitz(P);
                    eta *= q;
                    inner_len = fmin(ceil((inner_len - 1.0) / q) + 1.0, 1e7);
                }
                if ((stop = cg_run_failed(P)) >= 0) break;
            }
        }
        r.n_grad += P->prox->vr_gradient(P, o->batch_inner);
        cg_fail_status(P, P->prox->prox_step(P, o->scale, eta), "the weak proximal oracle");
        if ((stop = cg_run_failed(P)) >= 0) break;
        r.n_lmo += P->svd_rank;          /* rank-one SVD equivalents */
        t++; done++;
        stop = cg_run_after_iter(&r, P, t, 1);
    }
    P->loop.stage = s; P->loop.pos = done;
    P->loop.eta = eta; P->loop.len = inner_len;
    P->loop.saved = 1;
    *iters = t;
    return cg_run_finish(&r, P, *iters, stop);
}
