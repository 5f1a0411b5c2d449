/* Two-block conditional-gradient methods for min g(X + Y) + R_X(X) + R_Y(Y)
 * (Garber, Kaplan and Sabach, Alg. 1 and Sec. 5):
 *   alt_cgpg  Y by a conditional gradient (CG) point, then X by a proximal
 *             point at Z - W - grad / eta (the paper's ALT-CGPG);
 *   alt_pgcg  the roles swapped;
 *   cgcg      CG points for both blocks (the standard method on the product);
 *   cgcg_p    cgcg followed by an exact proximal step on Y (FW-P of Mu et al.);
 *   altmin    alternating exact minimization (proximal steps with step 1 /
 *             beta on X, then on Y): block coordinate descent, a baseline
 *             outside the paper built from the same oracles.
 * Both blocks then move by one convex combination: the exact line search
 * (Sec. 5) or the step eta_t itself (Theorems 4-6). eta_t = eta0 for
 * t <= t0, then eta_a / (t - t0 + eta_c). Sees the problem only through
 * its block table in cg_problem.
 * Also cg_solve_split, the problem's own iteration (its split table):
 *   admm      operator splitting, robust PCA's default (prob_robust.c);
 *   dual_apg, apg  sparse_covariance()'s solvers (prob_covariance.c). */
#include "stochcg.h"
#include <math.h>

static double prox_eta(const cg_solver_opts *o, int t)
{
    if (t <= o->t0) return o->eta0;
    const double e = o->eta_a / ((double) t - o->t0 + o->eta_c);
    return e < 1.0 ? e : 1.0;
}

/* admm, dual_apg, apg: the problem's own iteration (split_step), with the
 * package's bookkeeping; it stops when an evaluated gap is small */
int cg_solve_split(cg_problem *P, const cg_solver_opts *o, const cg_control *ctl,
                   cg_trace *tr, int *iters)
{
    (void) o;                        /* the iteration is the problem's */
    cg_run r;
    int stop = cg_run_start(&r, P, ctl, tr), t = 0;
    while (stop < 0 && t < ctl->max_iter) {
        r.n_grad += P->split->gradient(P, CG_BATCH_FULL);
        /* a step of many Lanczos runs may be cut at the time limit */
        if (P->timed_steps && R_FINITE(ctl->max_time))
            cg_kernel_deadline(cg_clock() + ctl->max_time - cg_run_elapsed(&r));
        const int a = P->split->split_step(P);
        cg_kernel_deadline(R_PosInf);
        if (a < 0) cg_fail(P, "the splitting step failed at iteration %d", t + 1);
        if ((stop = cg_run_failed(P)) >= 0) break;
        P->svd_rank = a;
        r.n_lmo += a;
        t++;
        stop = cg_run_after_iter(&r, P, t, 1);
    }
    *iters = t;
    return cg_run_finish(&r, P, t, stop);
}

int cg_solve_alt(cg_problem *P, const cg_solver_opts *o, const cg_control *ctl,
                 cg_trace *tr, int *iters)
{
    /* first block by a CG point; the second by a proximal point (alt_*) or
     * a CG point (cgcg, cgcg_p) */
    const int first = o->method == CG_METHOD_ALT_CGPG ? CG_BLOCK_Y : CG_BLOCK_X;
    const int second = first == CG_BLOCK_X ? CG_BLOCK_Y : CG_BLOCK_X;
    const int prox = o->method == CG_METHOD_ALT_CGPG || o->method == CG_METHOD_ALT_PGCG;
    cg_run r;
    int stop = cg_run_start(&r, P, ctl, tr), t = 0;
    while (stop < 0 && t < ctl->max_iter) {
        r.n_grad += P->block->gradient(P, CG_BATCH_FULL);
        /* a resumed fit's schedule counts on from its iterations */
        const double eta = prox_eta(o, P->iter_offset + t + 1);
        int a, b;
        if (o->method == CG_METHOD_ALTMIN) {
            a = P->block->block_exact(P, CG_BLOCK_X);
            b = a < 0 ? -1 : P->block->block_exact(P, CG_BLOCK_Y);
        } else {
            a = P->block->block_point(P, first, 0, eta);
            b = a < 0 ? -1 : P->block->block_point(P, second, prox, eta);
        }
        if (b < 0) cg_fail(P, "a block update failed at iteration %d", t + 1);
        if ((stop = cg_run_failed(P)) >= 0) break;
        P->svd_rank = a + b;
        r.n_lmo += a + b;
        if (o->method != CG_METHOD_ALTMIN) {
            const double gamma = o->step_rule == CG_STEP_LINE_SEARCH ? P->block->line_search(P)
                                                                     : eta;
            if (!R_FINITE(gamma))
                cg_fail(P, "the step size is not finite at iteration %d: the line search "
                        "overflowed double precision (the data are too large, or the "
                        "penalty too small: scale them)", t + 1);
            if ((stop = cg_run_failed(P)) >= 0) break;
            P->block->fw_step(P, gamma);
        }
        t++;
        /* cgcg_p's extra step on Y keeps the iterate when it fails */
        if (o->method == CG_METHOD_CGCG_P && P->block->block_exact(P, CG_BLOCK_Y) < 0)
            cg_fail(P, "the proximal step on Y failed at iteration %d", t);
        if ((stop = cg_run_failed(P)) >= 0) break;
        stop = cg_run_after_iter(&r, P, t, 1);
    }
    *iters = t;
    return cg_run_finish(&r, P, t, stop);
}
