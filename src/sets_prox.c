/* Proximal operators, in place. */
#include "stochcg.h"
#include <math.h>

/* prox of lambda ||.||_1: sign(x) max(|x| - lambda, 0) */
void cg_soft_threshold(double *x, int n, double lambda)
{
    for (int i = 0; i < n; i++) {
        const double a = fabs(x[i]) - lambda;
        x[i] = a > 0.0 ? (x[i] < 0.0 ? -a : a) : 0.0;
    }
}

/* argmin_z 1/2 ||z - x||^2 + step (l1 ||z||_1 + l2 ||z||_2^2): the optimality
 * condition z (1 + 2 step l2) in x - step l1 d||z||_1 separates per
 * coordinate, giving soft(x, step l1) / (1 + 2 step l2). */
void cg_prox_enet(double *x, int n, double l1, double l2, double step)
{
    cg_soft_threshold(x, n, step * l1);
    const double c = 1.0 / (1.0 + 2.0 * step * l2);
    for (int i = 0; i < n; i++) x[i] *= c;
}
