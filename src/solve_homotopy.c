/* Homotopy conditional gradient for min f(w) s.t. A w in K, w in a
 * spectrahedron (the homotopy table, stochcg.h). One loop, three methods:
 *   cgal        the conditional-gradient augmented Lagrangian of Yurtsever,
 *               Fercoq and Cevher (2019), with the step and dual rules of
 *               SketchyCGAL (Yurtsever et al. 2021, Alg. 6.1): at iteration
 *               k, penalty beta_k = beta0 sqrt(k + 1), eta_k = 2 / (k + 1),
 *               v = grad f + A'(y + beta_k (A w - proj_K(A w + y / beta_k))),
 *               w <- w + eta_k (LMO(v) - w), then the dual ascent
 *               y <- y + gamma r, r = A w - proj_K(A w + y / beta_k),
 *               gamma = min(beta0, 4 beta0 / ((k + 1)^(3/2) ||r||^2))
 *               (the bound with alpha = ||A|| = 1: problems work in
 *               normalized units), which keeps y bounded;
 *   hsagcgm_v1  paper 003, Alg. 1 with Variant 1: smoothing beta_k =
 *               beta0 / sqrt(k + 1), the full gradient of the smoothed
 *               constraint term, (1/beta_k) A'(A w - proj_K(A w)) (no
 *               multipliers: the gradient hook with penalty 1 / beta_k and
 *               y = 0), eta_k = 2 / (k + 1); f's SAG estimator is the exact
 *               gradient for the SDPs here, whose f is linear;
 *   hsagcgm_v2  Variant 2: the constraint term from a SAG table, `batch`
 *               constraints redrawn per iteration (sampled_gradient);
 *   shcgm       the stochastic homotopy CGM of Locatello, Yurtsever, Fercoq
 *               and Cevher (2019), for a stochastic f (refresh_loss): f's
 *               estimate d <- (1 - rho_k) d + rho_k (minibatch gradient),
 *               rho_k = 4 / (k + 7)^(2/3), smoothing beta_k = beta0 /
 *               sqrt(k + 8), eta_k = 9 / (k + 8) (the schedules of the
 *               authors' code).
 * Where f is stochastic (refresh_loss set: matrix completion), hsagcgm_v1
 * refreshes f's SAG table from a minibatch before each gradient.
 * An iteration of cgal or hsagcgm_v1 reads every constraint once (one
 * epoch); hsagcgm_v2's epochs count the constraints drawn. */
#include "stochcg.h"
#include <math.h>

int cg_solve_homotopy(cg_problem *P, const cg_solver_opts *o, const cg_control *ctl,
                      cg_trace *tr, int *iters)
{
    const cg_homotopy_ops *h = P->homotopy;
    const double beta0 = o->beta0;
    const int method = o->method, shcgm = method == CG_METHOD_SHCGM;
    cg_run r;
    int stop = cg_run_start(&r, P, ctl, tr), t = 0;
    while (t < ctl->max_iter && stop < 0) {
        const double k = t + 1.0;                 /* the paper's iteration counter */
        double penalty = beta0 * sqrt(k + 1.0);   /* cgal */
        if (method != CG_METHOD_CGAL) penalty = sqrt(k + 1.0) / beta0;  /* 1 / beta_k */
        if (shcgm) penalty = sqrt(k + 8.0) / beta0;
        if (h->refresh_loss)
            r.n_grad += h->refresh_loss(P, shcgm ? 4.0 / pow(k + 7.0, 2.0 / 3.0) : 0.0);
        if (method == CG_METHOD_HSAGCGM_V2)
            r.n_grad += h->sampled_gradient(P, penalty, o->batch_constraints);
        else
            r.n_grad += h->gradient(P, penalty);
        cg_fail_status(P, h->lmo(P), "the linear minimization oracle (smallest eigenvector)");
        if ((stop = cg_run_failed(P)) >= 0) break;
        r.n_lmo += 1;
        h->step(P, shcgm ? 9.0 / (k + 8.0) : 2.0 / (k + 1.0));
        if (method == CG_METHOD_CGAL)
            h->dual_step(P, penalty, beta0, 4.0 * beta0 / pow(k + 1.0, 1.5));
        t++;
        stop = cg_run_after_iter(&r, P, t, 1);
    }
    *iters = t;
    return cg_run_finish(&r, P, *iters, stop);
}
