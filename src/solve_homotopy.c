/* Homotopy conditional gradient for min f(w) s.t. A w in K, w in a
 * spectrahedron (the homotopy table, stochcg.h):
 *   cgal  the conditional-gradient augmented Lagrangian of Yurtsever,
 *         Fercoq and Cevher (2019), with the step and dual rules of
 *         SketchyCGAL (Yurtsever et al. 2021, Alg. 6.1): at iteration t,
 *         beta_t = beta0 sqrt(t + 1), eta_t = 2 / (t + 1),
 *         v = grad f + A'(y + beta_t (A w - proj_K(A w + y / beta_t))),
 *         w <- w + eta_t (LMO(v) - w), then the dual ascent
 *         y <- y + gamma r, r = A w - proj_K(A w + y / beta_t),
 *         gamma = min(beta0, 4 beta0 / ((t + 1)^(3/2) ||r||^2))
 *         (the bound with alpha = ||A|| = 1: problems work in normalized
 *         units), which keeps y bounded.
 * An iteration reads every constraint once (one epoch). */
#include "stochcg.h"
#include <math.h>

int cg_solve_homotopy(cg_problem *P, const cg_solver_opts *o, const cg_control *ctl,
                      cg_trace *tr, int *iters)
{
    const cg_homotopy_ops *h = P->homotopy;
    const double beta0 = o->beta0;
    cg_run r;
    int stop = cg_run_start(&r, P, ctl, tr), t = 0;
    while (t < ctl->max_iter && stop < 0) {
        const double k = t + 1.0;                 /* the paper's iteration counter */
        const double beta = beta0 * sqrt(k + 1.0);
        r.n_grad += h->gradient(P, beta);
        cg_fail_status(P, h->lmo(P), "the linear minimization oracle (smallest eigenvector)");
        if ((stop = cg_run_failed(P)) >= 0) break;
        r.n_lmo += 1;
        h->step(P, 2.0 / (k + 1.0));
        h->dual_step(P, beta, beta0, 4.0 * beta0 / pow(k + 1.0, 1.5));
        t++;
        stop = cg_run_after_iter(&r, P, t, 1);
    }
    *iters = t;
    return cg_run_finish(&r, P, *iters, stop);
}
