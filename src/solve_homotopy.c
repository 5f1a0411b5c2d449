/* Homotopy conditional gradient for min f(w) s.t. A w in K, w in a
 * spectrahedron (the homotopy table, stochcg.h). One loop, six methods:
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
 *               rows redrawn per iteration (cg_rows_sag);
 *   h1sfw       H-1SFW of Vladarean, Alacaoglu, Hsieh and Cevher (2020),
 *               with the schedule of its code as released with paper 003
 *               (github.com/ratschlab/faster-hcgm-composite,
 *               sdp/functions/mokhtari_as_constr.m, which ran Fig. 3):
 *               eta_k = 2 / (k + 1), beta_k = beta0 / (k + 1)^(1/6),
 *               rho_k = 3 / (k + 5)^(2/3), the constraint term averaged,
 *               E <- (1 - rho_k) E + rho_k (unbiased estimate from `batch`
 *               rows) (cg_rows_momentum);
 *   hspider     H-SPIDER-FW (same paper and code, spider_fw.m): epochs
 *               t = 1, 2, ... of K_t = 2^(t-1) iterations, the first from
 *               a full pass over the rows, the others SPIDER corrections
 *               from min(m, K_t) rows; eta = 2 / (K_t + j), beta = beta0 /
 *               sqrt(K_t + j) at the epoch's j-th iteration. As K_t - 1
 *               iterations precede epoch t, K_t + j = k + 1 for the global
 *               counter k: the steps are H-SAG-CGM's, the full passes fall
 *               on k = 1, 2, 4, 8, ... (cg_rows_spider);
 *   shcgm       the stochastic homotopy CGM of Locatello, Yurtsever, Fercoq
 *               and Cevher (2019), for a stochastic f (refresh_loss): f's
 *               estimate d <- (1 - rho_k) d + rho_k (minibatch gradient),
 *               rho_k = 4 / (k + 7)^(2/3), smoothing beta_k = beta0 /
 *               sqrt(k + 8), eta_k = 9 / (k + 8) (the schedules of the
 *               authors' code).
 * Where f is stochastic (refresh_loss set: matrix completion), hsagcgm_v1
 * refreshes f's SAG table from a minibatch before each gradient.
 * An iteration of cgal or hsagcgm_v1 reads every constraint once (one
 * epoch); the sampling methods' epochs count the row residuals evaluated
 * (hspider's corrections read each drawn row at two iterates).
 * Adaptive beta0 (o->beta0_adapt = c > 0; R's beta0 = "auto" of hsagcgm_v1,
 * issue 11): paper 003's Cor. 4.2 bounds f - f* above by (C1 + ...) / sqrt(k),
 * C1 = 2 D^2 ||A|| / beta0, and below by -||y*|| dist(A w, K), with dist <=
 * (3 beta0 ||y*|| / 2 + sqrt(2 C1)) / sqrt(k): the two balance at beta0 ~
 * D sqrt(||A||) / ||y*||, 1 / ||y*|| in normalized units. The iterate's
 * own multiplier estimate y_k = (A w_k - proj_K(A w_k)) / beta_k tends to
 * y*; at k = 128, 256, 512, ... (before, y_k is dominated by the
 * conditional-gradient error), beta0 <- min(beta0, max(beta0 / 4, c /
 * ||y_k||)). Never upward: the smoothing keeps decreasing, as the analysis
 * needs, and a too-small beta0 inflates ||y_k|| (the penalty, not the
 * smoothing, then sets the residual), which from above it cannot reach.
 * Each check costs one pass over the rows (counted in n_grad, not epochs).
 * A resumed fit (init =) continues as one longer run: the schedules count on
 * from P->iter_offset, the last penalty follows from it and the last beta0,
 * and the sampling methods' estimator comes back from the loop's state
 * (cg_rows_est_load; without it, hspider starts with a full pass). */
#include "stochcg.h"
#include <math.h>

/* the penalty of iteration k: cgal's beta_k, the others' 1 / beta_k */
static double penalty_at(int method, double k, double beta0)
{
    switch (method) {
    case CG_METHOD_CGAL:  return beta0 * sqrt(k + 1.0);
    case CG_METHOD_SHCGM: return sqrt(k + 8.0) / beta0;
    case CG_METHOD_H1SFW: return pow(k + 1.0, 1.0 / 6.0) / beta0;
    default:              return sqrt(k + 1.0) / beta0;
    }
}

int cg_solve_homotopy(cg_problem *P, const cg_solver_opts *o, const cg_control *ctl,
                      cg_trace *tr, int *iters)
{
    const cg_homotopy_ops *h = P->homotopy;
    double beta0 = o->beta0;
    const int method = o->method, shcgm = method == CG_METHOD_SHCGM;
    const int adapt = o->beta0_adapt > 0.0 && method != CG_METHOD_CGAL && !shcgm &&
                      h->dual_step != NULL;
    double next_check = 128.0;                    /* adaptive beta0: k = 128, 256, ... */
    while (next_check < P->iter_offset + 1.0) next_check *= 2.0;   /* a resumed fit */
    const int sampled = method == CG_METHOD_HSAGCGM_V2 || method == CG_METHOD_H1SFW ||
                        method == CG_METHOD_HSPIDER;
    cg_rows_est est;
    int restored = 0;
    if (sampled) {
        cg_rows_est_init(&est, P, method == CG_METHOD_HSAGCGM_V2);
        restored = cg_rows_est_load(&est, P);
    }
    const double batch = o->batch_constraints;
    /* the last iteration's penalty (hspider's correction, the beta0 check):
     * a resumed fit's, from its iterations and its last beta0 */
    double prev_penalty = P->iter_offset > 0 ? penalty_at(method, P->iter_offset, beta0) : 0.0;
    double epoch_size = 1.0;                      /* hspider: K_t */
    cg_run r;
    int stop = cg_run_start(&r, P, ctl, tr), t = 0;
    while (t < ctl->max_iter && stop < 0) {
        /* the paper's iteration counter; a resumed fit's iterations count */
        const double k = P->iter_offset + t + 1.0;
        if (adapt && k == next_check) {           /* adaptive beta0: see above */
            const double y_norm = h->dual_step(P, 1.0, 0.0, 0.0) * prev_penalty;
            r.n_grad += sampled ? est.m : 1.0;   /* a pass over the rows */
            if (y_norm > 0.0) beta0 = fmin(beta0, fmax(0.25 * beta0, o->beta0_adapt / y_norm));
            next_check *= 2.0;
        }
        const double penalty = penalty_at(method, k, beta0);
        if (h->refresh_loss)                      /* a stochastic f: its estimator first */
            r.n_grad += h->refresh_loss(P, shcgm ? 4.0 / pow(k + 7.0, 2.0 / 3.0) : 0.0);
        if (sampled) {
            double used;
            if (method == CG_METHOD_HSAGCGM_V2) {
                used = cg_rows_sag(&est, P, penalty, batch);
            } else if (method == CG_METHOD_H1SFW) {
                used = cg_rows_momentum(&est, P, penalty, 3.0 / pow(k + 5.0, 2.0 / 3.0), batch);
            } else {
                while (k >= 2.0 * epoch_size) epoch_size *= 2.0;    /* epoch t + 1 */
                /* a full pass at each epoch's start, and first when a warm
                 * start has no estimate to correct */
                const int full = k == epoch_size || (t == 0 && !restored);
                used = cg_rows_spider(&est, P, penalty, prev_penalty,
                                      full ? est.m : fmin(est.m, epoch_size));
            }
            h->rows->set_gradient(P, penalty, est.E, used / est.m);
            r.n_grad += used;
        } else {
            r.n_grad += h->gradient(P, penalty);
        }
        prev_penalty = penalty;
        cg_fail_status(P, h->lmo(P), "the linear minimization oracle (smallest eigenvector)");
        if ((stop = cg_run_failed(P)) >= 0) break;
        r.n_lmo += 1;
        h->step(P, shcgm ? 9.0 / (k + 8.0) : 2.0 / (k + 1.0));
        if (method == CG_METHOD_CGAL)
            h->dual_step(P, penalty, beta0, 4.0 * beta0 / pow(k + 1.0, 1.5));
        t++;
        stop = cg_run_after_iter(&r, P, t, 1);
    }
    if (sampled) cg_rows_est_save(&est, P);       /* for an exact continuation */
    *iters = t;
    P->beta0_used = beta0;
    return cg_run_finish(&r, P, *iters, stop);
}
