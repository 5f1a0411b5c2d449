/* glm_family.h: the exponential families of complete_matrix() and
 * sparse_regression(), in natural parameter x: A(x) = x^2/2 (gaussian),
 * exp(x) (poisson), log(1 + e^x) (binomial, y in {0, 1}); the loss of a
 * response y at x is A(x) - y x (plus a constant). Shared by
 * prob_completion.c and prob_glm.c. */
#ifndef GLM_FAMILY_H
#define GLM_FAMILY_H
#include <math.h>

enum { FAM_GAUSSIAN = 0, FAM_POISSON = 1, FAM_BINOMIAL = 2 };

static inline double mean_fn(int fam, double x)   /* A'(x) */
{
    switch (fam) {
    case FAM_POISSON: return exp(x);
    case FAM_BINOMIAL: return 1.0 / (1.0 + exp(-x));
    default: return x;
    }
}

static inline double log_partition(int fam, double x)   /* A(x) */
{
    switch (fam) {
    case FAM_POISSON: return exp(x);
    case FAM_BINOMIAL: return x > 0 ? x + log1p(exp(-x)) : log1p(exp(x));
    default: return 0.5 * x * x;
    }
}

/* second derivative A''(x) */
static inline double curvature(int fam, double x)
{
    switch (fam) {
    case FAM_POISSON: return exp(x);
    case FAM_BINOMIAL: { double p = 1.0 / (1.0 + exp(-x)); return p * (1.0 - p); }
    default: return 1.0;
    }
}

/* A'(x), with A''(x) in *curv: one exp() for both */
static inline double mean_curv(int fam, double x, double *curv)
{
    switch (fam) {
    case FAM_POISSON: { const double e = exp(x); *curv = e; return e; }
    case FAM_BINOMIAL: { const double p = 1.0 / (1.0 + exp(-x)); *curv = p * (1.0 - p); return p; }
    default: *curv = 1.0; return x;
    }
}
#endif
