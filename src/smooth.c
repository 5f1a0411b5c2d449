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
