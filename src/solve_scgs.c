/* Stochastic conditional gradient sliding (Lan and Zhou 2016, SCGS): an
 * accelerated outer loop whose prox-subproblem
 *   min_u <g_k, u> + beta_k / 2 ||u - x_{k-1}||^2
 * is solved only approximately, by conditional gradient steps with exact line
 * search until its Wolfe gap is below eta_k. Parameters for smooth convex
 * problems: gamma_k = 3/(k+2), beta_k = 4L/(k+2), eta_k = L D^2/(k(k+1)),
 * batch B_k = ceil(sigma^2 (k+2)^3 / (L^2 D^2)). The reported iterate is y_k.
 * Needs the sliding table and its dense iterate (cg_problem.x). Smoothed
 * problems with continuation (smooth.c) check mu every CG_SMOOTH_CHECK
 * iterations; when it decreases, the method restarts from y with k = 0 and
 * the new smoothness L(mu). The prox-center x, the stage's iteration count
 * and the rescaled constants are the loop's state (P->loop), so that a fit
 * resumed with them goes on as one longer run. */
#include "stochcg.h"
#include <string.h>
#include <math.h>

#define CNDG_MAX 1000   /* inner steps per outer iteration, a safeguard */


int cg_solve_scgs(cg_problem *P, const cg_solver_opts *o, const cg_control *ctl,
                  cg_trace *tr, int *iters)
{
    const size_t n = P->dim;
    double *x = (double *) R_alloc(n, sizeof(double));
    double *y = P->x;                      /* the problem's iterate is y_k */
    double *z = (double *) R_alloc(n, sizeof(double));
    double *g = (double *) R_alloc(n, sizeof(double));
    double *u = (double *) R_alloc(n, sizeof(double));
    double *d = (double *) R_alloc(n, sizeof(double));
    double *v = (double *) R_alloc(n, sizeof(double));
    /* the loop's state: the prox-center x, the iterations of this stage
     * (since the last restart) and L, scgs_c rescaled with mu; a resumed
     * run starts from the fit's */
    int ks = 0;                                         /* iterations of this stage */
    double L = o->lipschitz, scgs_c = o->scgs_c;
    memcpy(x, y, n * sizeof(double));
    if (P->loop.resumed) {
        const double *center = cg_loop_array(P, "center", (R_xlen_t) n);
        if (!center) error("spec: the scgs loop state lacks its prox-center");
        ks = P->loop.stage; L = P->loop.lip; scgs_c = P->loop.c;
        memcpy(x, center, n * sizeof(double));
    }
    const int k0 = P->iter_offset;                      /* schedules count on from it */
    cg_run r;
    int stop = cg_run_start(&r, P, ctl, tr), k = 0;   /* k: completed iterations */
    const double D2 = o->diam2;
    if (stop < 0 && !(isfinite(L) && isfinite(D2))) {  /* eta_k = Inf would stall */
        cg_fail(P, "the %s is not finite: it " CG_OVERFLOW_HINT,
                isfinite(D2) ? "smoothness constant"
                             : "squared diameter (2 radius)^2 of the set");
        stop = cg_run_failed(P);
    }
    while (stop < 0 && k < ctl->max_iter) {
        const double kk = ks + 1.0;                    /* this iteration, in double */
        const double gamma = 3.0 / (kk + 2.0), beta = 4.0 * L / (kk + 2.0);
        const double eta = L * D2 / (kk * (kk + 1.0));
        double b = ceil(scgs_c * pow(kk + 2.0, 3.0));
        int batch = b > 1e8 ? 100000000 : (b < 1 ? 1 : (int) b);
        for (size_t i = 0; i < n; i++) z[i] = (1.0 - gamma) * y[i] + gamma * x[i];
        r.n_grad += P->sliding->gradient_at(P, z, batch, g);
        if ((stop = cg_run_failed(P)) >= 0) break;
        /* CndG on the prox-subproblem, from u = x_{k-1}; up to CNDG_MAX
         * LMOs, so Ctrl-C is checked here too */
        memcpy(u, x, n * sizeof(double));
        for (int t = 0; t < CNDG_MAX; t++) {
            for (size_t i = 0; i < n; i++) d[i] = g[i] + beta * (u[i] - x[i]);
            cg_fail_status(P, P->sliding->lmo_dense(P, d, v), "the linear minimization oracle");
            if (cg_interrupt_poll()) cg_fail_status(P, CG_ERR_INTERRUPT, NULL);
            if (P->stop) break;
            r.n_lmo += 1;
            double wolfe = 0.0, vv = 0.0;
            for (size_t i = 0; i < n; i++) {
                double e = u[i] - v[i];
                wolfe += d[i] * e; vv += e * e;
            }
            if (wolfe <= eta || vv <= 0.0) break;
            double alpha = fmin(1.0, wolfe / (beta * vv));
            for (size_t i = 0; i < n; i++) u[i] += alpha * (v[i] - u[i]);
        }
        if ((stop = cg_run_failed(P)) >= 0) break;
        memcpy(x, u, n * sizeof(double));
        for (size_t i = 0; i < n; i++) y[i] = (1.0 - gamma) * y[i] + gamma * x[i];
        P->svd_rank = 1;
        k++; ks++;
        if (P->mu_auto && P->mu > 0 && ((long long) k0 + k) % CG_SMOOTH_CHECK == 0) {
            const double L_old = cg_smooth_lipschitz(P);
            if (cg_smoothing_update(P, P->smooth->smooth_gap(P))) {
                const double q = L_old / cg_smooth_lipschitz(P);
                L /= q; scgs_c *= q * q;
                memcpy(x, y, n * sizeof(double));
                ks = 0;
            }
            if ((stop = cg_run_failed(P)) >= 0) break;
        }
        stop = cg_run_after_iter(&r, P, k, 1);
    }
    P->loop.stage = ks; P->loop.lip = L; P->loop.c = scgs_c;
    P->loop.saved = 1;
    cg_loop_save_array(P, "center", x, (R_xlen_t) n);
    *iters = k;
    return cg_run_finish(&r, P, *iters, stop);
}
