/* Stochastic matrix factorization (paper 002), one loop for three methods
 * on the smf table (stochcg.h):
 *   vr   Algorithm 1: outer iterations take a snapshot (every column solved
 *        at W^{s,0}, the full gradient G0), then m inner iterations each
 *        draw b columns without replacement, solve them at W^{s,0} and
 *        W^{s,t}, form V = (1/b) sum (grad at W^{s,t} - grad at W^{s,0}) +
 *        G0 and step W <- prox_{eta psi + delta_C}(W - eta V) with a
 *        constant eta. Output option II is the last iterate; option I an
 *        iterate W^{s,t} (t = 1..m) drawn uniformly, kept by reservoir
 *        sampling so that no iterate is stored.
 *   smm  Alg. S-2 (online dictionary learning): each iteration solves b
 *        columns at W_t, adds them to A_t, B_t and minimizes the surrogate.
 *   sgd  Alg. S-3: proximal SGD with gamma_t = beta / (b t + beta').
 * An iteration of the trace is one inner (vr) or minibatch iteration. The
 * default steps come from the curvature L of the statistics: eta = 1/L at
 * each snapshot (vr: constant within an outer iteration, as Algorithm 1
 * has it; L grows when the coefficients do, so a step fixed at the start
 * can end up too long); beta = beta' / L at the first minibatch
 * (sgd; beta' = n by default, set in R: the step stays near 1/L for about
 * one pass, then decays as 1/t).
 * A fit resumed by init = continues exactly: the problem restores its
 * state (W, the sampler, smm's sums, vr's snapshot within an outer
 * iteration, option I's kept iterate), the dispatcher the loop's scalars
 * (P->loop: sgd's beta as c, vr's step eta and position pos), and t counts
 * on from P->iter_offset. */
#include "stochcg.h"
#include <math.h>

static double default_step(double curvature)
{
    return curvature > 0.0 && R_FINITE(curvature) ? 1.0 / curvature : 1.0;
}

int cg_solve_smf(cg_problem *P, const cg_solver_opts *o, const cg_control *ctl,
                 cg_trace *tr, int *iters)
{
    const cg_smf_ops *f = P->smf;
    const int b = o->batch_inner, option_one = o->smf_output == 1;
    /* a resumed fit (init =) counts on from its iterations: sgd's decay, the
     * option I reservoir; l holds the rest of what the loop carries (zero
     * in a fresh run: no step or beta yet, at an outer iteration's start) */
    const double done = P->iter_offset;
    cg_loop_state *l = &P->loop;
    cg_run r;
    int stop = cg_run_start(&r, P, ctl, tr), t = 0;
    const double beta_prime = o->sgd_beta_prime;
    if (o->method == CG_METHOD_VR) {
        if (o->eta > 0.0) l->eta = o->eta;
        while (t < ctl->max_iter && stop < 0) {
            if (l->pos == 0) {                      /* an outer iteration starts */
                r.n_grad += f->snapshot(P);
                if ((stop = cg_run_failed(P)) >= 0) break;
                /* the objective at this snapshot is within ftol of the
                 * last one's: stop at W (= W0, no step taken since) */
                if (t > 0 && f->flat(P)) { stop = CG_STOP_TOL; break; }
                if (!(o->eta > 0.0)) l->eta = default_step(f->curvature(P));
            }
            r.n_grad += f->vr_gradient(P, b);
            if ((stop = cg_run_failed(P)) >= 0) break;
            cg_fail_status(P, f->prox_step(P, l->eta), "the dictionary's proximal step");
            if ((stop = cg_run_failed(P)) >= 0) break;
            t++;
            if (++l->pos == o->inner) l->pos = 0;
            if (option_one) f->output(P, done + t, 0);
            stop = cg_run_after_iter(&r, P, t, 1);
        }
    } else {
        while (t < ctl->max_iter && stop < 0) {
            r.n_grad += f->minibatch(P, b);
            if ((stop = cg_run_failed(P)) >= 0) break;
            if (o->method == CG_METHOD_SMM) {
                cg_fail_status(P, f->surrogate_step(P), "the surrogate minimization");
            } else {
                /* beta' comes from R (n by default); beta is given, or set
                 * at the first batch and kept (a resumed fit's carries it) */
                if (!(l->c > 0.0))
                    l->c = o->sgd_beta > 0.0 ? o->sgd_beta
                                             : beta_prime * default_step(f->curvature(P));
                const double gamma = l->c / ((double) b * (done + t) + beta_prime);
                cg_fail_status(P, f->prox_step(P, gamma), "the dictionary's proximal step");
            }
            if ((stop = cg_run_failed(P)) >= 0) break;
            t++;
            stop = cg_run_after_iter(&r, P, t, 1);
        }
    }
    if (option_one && t > 0 && (stop < 0 || stop == CG_STOP_TIME || stop == CG_STOP_TOL)) {
        f->output(P, done + t, 1);           /* the output is evaluated last */
        if (cg_run_failed(P) < 0) cg_run_evaluate(&r, P, t);
        /* converged only if the output itself meets the tolerance */
        if (stop == CG_STOP_TOL) stop = -1;
    }
    l->saved = o->method != CG_METHOD_SMM;     /* smm's state is the problem's sums */
    *iters = t;
    return cg_run_finish(&r, P, *iters, stop);
}
