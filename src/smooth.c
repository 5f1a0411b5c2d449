/* Smooth approximations of nonsmooth terms (Beck and Teboulle 2012), used by
 * the conditional-gradient methods on composite objectives. */
#include "stochcg.h"
#include <math.h>

/* Huber smoothing of lambda * ||x||_1: sum of lambda * H_mu(x_i),
 * H_mu(t) = t^2 / (2 mu) for |t| <= mu, |t| - mu / 2 otherwise. It lies
 * within lambda * n * mu / 2 below the l1 norm. */
double cg_huber_value(const double *x, size_t n, double mu, double lambda)
{
    double s = 0.0;
    for (size_t i = 0; i < n; i++) {
        double a = fabs(x[i]);
        s += a <= mu ? a * a / (2.0 * mu) : a - 0.5 * mu;
    }
    return lambda * s;
}

/* out += lambda * grad H_mu(x) = lambda * clip(x / mu, -1, 1) */
void cg_huber_grad_add(const double *x, size_t n, double mu, double lambda, double *out)
{
    for (size_t i = 0; i < n; i++) {
        double t = x[i] / mu;
        out[i] += lambda * (t > 1.0 ? 1.0 : t < -1.0 ? -1.0 : t);
    }
}

/* ---- certificates of the stated (nonsmooth) problem.
 * For F = f + h over a set C with h(x) = max_{z in K} <z, B x> - c(z), any
 * dual point z in K gives, by convexity of f and h >= <z, B s> - c(z),
 *   F* >= f(x) - <grad f(x), x> + min_{s in C} <grad f(x) + B'z, s> - c(z),
 * so with z the smoothed term's gradient (always in K)
 *   F(x) - F* <= <g_mu, x - s_mu> + [h(x) - <z, B x> + c(z)],
 * the Frank-Wolfe gap of the smoothed objective plus a "dual residual" that
 * vanishes where the smoothing is exact. The residual of each smoother: */

/* Huber, z = lambda clip(x / mu): lambda * sum_{|x_i| < mu} (|x_i| - x_i^2 / mu),
 * zero for entries that are 0 or at least mu in size, at most mu / 4 each
 * (the uniform bias bound is mu / 2 per entry) */
double cg_huber_residual(const double *x, size_t n, double mu, double lambda)
{
    double s = 0.0;
    for (size_t i = 0; i < n; i++) {
        double a = fabs(x[i]);
        if (a < mu) s += a - a * a / mu;
    }
    return lambda * s;
}

/* Log-sum-exp smoothing of max_i z_i: softmax weights p = softmax(z / mu)
 * (the smoothed gradient's weights) into p; returns the residual
 * max_i z_i - <p, z>, in [0, mu log n] */
double cg_softmax(const double *z, int n, double mu, double *p)
{
    double mx = R_NegInf, sum = 0.0, pz = 0.0;
    for (int i = 0; i < n; i++) mx = fmax(mx, z[i]);
    for (int i = 0; i < n; i++) { p[i] = exp((z[i] - mx) / mu); sum += p[i]; }
    for (int i = 0; i < n; i++) { p[i] /= sum; pz += p[i] * (mx - z[i]); }
    return pz;                      /* = max z - <p, z>, without cancellation */
}

/* ---- smoothing continuation, shared by the solvers. A smoothed problem
 * (P->mu > 0) keeps its smoothing parameter in P->mu; solvers change it only
 * here. With P->mu_auto, mu is halved whenever the smoothed problem is
 * solved to the level of its own bias at x: the (exact or snapshot)
 * smoothed Frank-Wolfe gap is at most the dual residual, so the certified
 * gap (their sum) is dominated by the smoothing. Returns 1 if mu changed
 * (solvers then rescale what depends on the smoothness, see
 * cg_smooth_lipschitz). Stops halving at 1e-12 of the starting mu. */
int cg_smoothing_update(cg_problem *P, double smoothed_gap)
{
    if (!P->mu_auto || !(P->mu > 0) || !R_FINITE(smoothed_gap)) return 0;
    if (P->mu < 1e-12 * P->mu0) return 0;
    double residual = P->smooth->smooth_residual(P);
    if (!(smoothed_gap <= residual)) return 0;
    P->mu *= 0.5;
    return 1;
}

/* the smoothness constant at the current mu: L(mu) = lip_loss + lip_reg / mu */
double cg_smooth_lipschitz(const cg_problem *P)
{
    return P->lip_loss + P->lip_reg / P->mu;
}
