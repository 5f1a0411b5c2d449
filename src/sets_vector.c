/* Vector sets: LMOs (argmin_{s in C} <g, s>) and Euclidean projections for
 * the l1 ball, lp balls, the simplex, boxes and the capped simplex.
 * Projections sort a copy of the input, so y and x may be the same array. */
#include "stochcg.h"
#include <string.h>
#include <math.h>

/* ---------------------------------------------------------------- LMOs */
/* l1 ball of radius r: the minimizer is the vertex -r sign(g_i) e_i at the
 * largest |g_i| (smallest index on ties). sign(0) is taken as +1, so g = 0
 * gives idx = 0, val = -r (every vertex is optimal then). */
void cg_lmo_l1(const double *g, int n, double radius, int *idx, double *val)
{
    int best = 0;
    double amax = n > 0 ? fabs(g[0]) : 0.0;
    for (int i = 1; i < n; i++) if (fabs(g[i]) > amax) { amax = fabs(g[i]); best = i; }
    *idx = best;
    *val = (n > 0 && g[best] < 0.0) ? radius : -radius;
}

/* Away vertex (see stochcg.h). Writing x with the origin as an extra vertex
 * makes its decomposition unique and sparse: no vertex pair +-r e_j is ever
 * active together, and interior points need no bookkeeping. Ties keep the
 * origin, then the smallest index. */
void cg_away_l1(const double *g, const double *x, const int *support, int k,
                double radius, double slack, int *idx, double *val, double *weight)
{
    int best = -1;
    double score = slack > 0.0 ? 0.0 : -INFINITY;
    for (int t = 0; t < k; t++) {
        const int j = support[t];
        if (x[j] == 0.0) continue;
        double sj = x[j] > 0.0 ? g[j] : -g[j];
        if (sj > score || (sj == score && best >= 0 && j < best)) { score = sj; best = j; }
    }
    *idx = best;
    if (best < 0) { *val = 0.0; *weight = fmax(slack, 0.0) / radius; return; }
    *val = x[best] > 0.0 ? radius : -radius;
    *weight = fabs(x[best]) / radius;
}

/* lp ball, p > 1 (p = Inf allowed): by Hoelder equality with the dual norm
 * q = p / (p - 1), s_i = -r sign(g_i) |g_i|^(q-1) / ||g||_q^(q-1). Entries are
 * scaled by max |g| first so that |g|^q cannot overflow or underflow.
 * g = 0 gives s = 0 (every point is optimal). */
void cg_lmo_lp(const double *g, int n, double radius, double p, double *s)
{
    double q = isfinite(p) ? p / (p - 1.0) : 1.0, gmax = 0.0, sq = 0.0;
    for (int i = 0; i < n; i++) if (fabs(g[i]) > gmax) gmax = fabs(g[i]);
    if (gmax == 0.0) { memset(s, 0, (size_t) n * sizeof(double)); return; }
    for (int i = 0; i < n; i++) sq += pow(fabs(g[i]) / gmax, q);
    const double denom = pow(sq, (q - 1.0) / q);
    for (int i = 0; i < n; i++) {
        double a = fabs(g[i]) / gmax;
        double si = (g[i] == 0.0) ? 0.0 : radius * pow(a, q - 1.0) / denom;
        s[i] = g[i] > 0.0 ? -si : si;
    }
}

/* simplex {s >= 0, sum s = r}: vertex r e_i at the smallest g_i (smallest
 * index on ties) */
void cg_lmo_simplex(const double *g, int n, double radius, int *idx)
{
    int best = 0;
    for (int i = 1; i < n; i++) if (g[i] < g[best]) best = i;
    *idx = best;
}

/* box [lo, hi]: coordinatewise; g_i = 0 picks hi_i */
void cg_lmo_box(const double *g, int n, const double *lo, const double *hi, double *s)
{
    for (int i = 0; i < n; i++) s[i] = g[i] > 0.0 ? lo[i] : hi[i];
}

/* ---------------------------------------------------------- projections */
/* Threshold tau with sum_i max(a_i - tau, 0) = r (r >= 0) by Michelot's
 * iteration: tau = (sum of the active a_i - r) / #active, where active means
 * a_i > tau; tau only grows and the active set only shrinks, so it stops
 * after a few O(n) passes (no sort, no scratch: matrices of 10^7 entries are
 * projected in place). */
#define VAL(i) (absval ? fabs(a[i]) : a[i])
static double simplex_tau(const double *a, int n, double radius, int absval)
{
    double sum = 0.0;
    for (int i = 0; i < n; i++) sum += VAL(i);
    double tau = (sum - radius) / n;
    int active = n;
    for (;;) {
        double s = 0.0;
        int k = 0;
        for (int i = 0; i < n; i++) if (VAL(i) > tau) { s += VAL(i); k++; }
        if (k == active || k == 0) break;
        active = k;
        tau = (s - radius) / k;
    }
    return tau;
}
#undef VAL

void cg_proj_simplex(const double *y, int n, double radius, double *x, double *work)
{
    if (n <= 0) return;
    (void) work;
    const double tau = simplex_tau(y, n, radius, 0);
    for (int i = 0; i < n; i++) x[i] = y[i] > tau ? y[i] - tau : 0.0;
}

/* l1 ball: identity inside; outside, soft-thresholding at the simplex
 * threshold of |y| (the projection keeps signs). */
void cg_proj_l1(const double *y, int n, double radius, double *x, double *work)
{
    double norm1 = 0.0;
    for (int i = 0; i < n; i++) norm1 += fabs(y[i]);
    if (norm1 <= radius) {
        if (x != y) memcpy(x, y, (size_t) n * sizeof(double));
        return;
    }
    (void) work;
    const double tau = simplex_tau(y, n, radius, 1);
    for (int i = 0; i < n; i++) {
        const double m = fabs(y[i]) - tau;
        x[i] = m > 0.0 ? (y[i] < 0.0 ? -m : m) : 0.0;
    }
}

/* capped simplex {0 <= x <= cap, sum x = r}, 0 <= r <= n cap: x_i =
 * clip(y_i - tau, 0, cap) where f(tau) = sum_i clip(y_i - tau, 0, cap) = r.
 * f is nonincreasing and piecewise linear with breakpoints y_i - cap (term
 * leaves cap) and y_i (term reaches 0); its slope between breakpoints is
 * minus the number of terms strictly inside (0, cap). Both breakpoint lists
 * are the sorted y (shifted by cap for the first), so one sort and a merge
 * sweep from the left find the segment holding r; f is linear there, which
 * makes tau exact. r >= n cap returns x = cap (the closest box corner when
 * the set is empty). Uses work[0..n). */
void cg_proj_capped_simplex(const double *y, int n, double radius, double cap,
                            double *x, double *work)
{
    if (n <= 0) return;
    double *s = work;
    memcpy(s, y, (size_t) n * sizeof(double));
    R_qsort(s, 1, (size_t) n);
    double tau = s[0] - cap, f = n * cap;       /* f(tau) = n cap at the left */
    if (radius < f) {
        int i = 0, j = 0, active = 0;
        /* upper breakpoints s[i] - cap precede lower ones s[i], so j <= i */
        while (j < n) {
            const int up = i < n && s[i] - cap <= s[j];
            const double t = up ? s[i] - cap : s[j];
            const double fn = f - active * (t - tau);
            if (fn <= radius) {
                if (active > 0) tau += (f - radius) / active;
                break;
            }
            f = fn; tau = t;
            if (up) { active++; i++; } else { active--; j++; }
        }
        if (j == n) tau = s[n - 1];           /* radius <= 0: all zero */
    }
    for (int k = 0; k < n; k++) {
        const double v = y[k] - tau;
        x[k] = v <= 0.0 ? 0.0 : (v >= cap ? cap : v);
    }
}

/* Spectra: equality -> the simplex {s >= 0, sum s = r}; otherwise
 * {s >= 0, sum s <= r}, whose projection is the clip at 0 when that already
 * fits, and the simplex projection otherwise (the multiplier of the sum
 * constraint is then positive, and clipping negative entries first does not
 * change the result). */
void cg_proj_spectrum(double *s, int k, double radius, int equality, double *work)
{
    if (k <= 0) return;
    if (!equality) {
        double sum = 0.0;
        for (int i = 0; i < k; i++) { if (s[i] < 0.0) s[i] = 0.0; sum += s[i]; }
        if (sum <= radius) return;
    }
    cg_proj_simplex(s, k, radius, s, work);
}

/* lp ball, 1 < p < 2. Outside the ball the KKT conditions give
 * x_i = sign(y_i) w_i with w_i + lambda p w_i^(p-1) = |y_i| for the
 * multiplier lambda > 0 at which sum_i w_i^p = radius^p. Each w_i solves
 * h(u) = e^u + c e^(q u) - a = 0 in u = log w (c = lambda p, q = p - 1):
 * h is convex and increasing in u, so Newton started to the right of the
 * root, at u0 = min(log a, (log a - log c) / q), decreases monotonically to it.
 * The outer equation in log(lambda) is monotone: Newton safeguarded by a
 * bisection bracket. The input is scaled by max |y_i| (the projection is
 * positively homogeneous), so no power over- or underflows. */
static double lp_entry(double a, double c, double q)
{
    const double la = log(a);
    double u = fmin(la, (la - log(c)) / q);
    for (int it = 0; it < 100; it++) {
        const double e1 = exp(u), e2 = c * exp(q * u);
        const double step = (e1 + e2 - a) / (e1 + q * e2);
        u -= step;
        if (!(step > 1e-15 * fmax(1.0, fabs(u)))) break;
    }
    return exp(u);
}

/* phi(lambda) = sum w_i^p - r^p and its derivative in log(lambda) */
static double lp_phi(const double *y, size_t n, double scale, double rp, double p,
                     double lambda, double *dphi)
{
    const double q = p - 1.0, c = lambda * p;
    double sum = 0.0, der = 0.0;
    for (size_t i = 0; i < n; i++) {
        const double a = fabs(y[i]) / scale;
        if (a == 0.0) continue;
        const double w = lp_entry(a, c, q), wq = pow(w, q);
        sum += w * wq;
        /* dw/dlambda = -p w^q / (1 + c q w^(q-1)); times lambda for log scale */
        der += -p * wq * lambda * p * wq / (1.0 + c * q * wq / w);
    }
    *dphi = der;
    return sum - rp;
}

int cg_proj_lp(const double *y, size_t n, double radius, double p, double *x)
{
    if (!(p > 1.0 && p < 2.0) || !(radius >= 0.0)) return CG_ERR_DOMAIN;
    double amax = 0.0;
    for (size_t i = 0; i < n; i++) if (fabs(y[i]) > amax) amax = fabs(y[i]);
    if (amax == 0.0) { if (x != y) memset(x, 0, n * sizeof(double)); return CG_OK; }
    if (radius == 0.0) { memset(x, 0, n * sizeof(double)); return CG_OK; }
    double norm = 0.0;
    for (size_t i = 0; i < n; i++) norm += pow(fabs(y[i]) / amax, p);
    const double r = radius / amax, rp = pow(r, p);
    if (norm <= rp) { if (x != y) memcpy(x, y, n * sizeof(double)); return CG_OK; }
    /* start from shrinking y uniformly onto the sphere: x = rho y */
    const double rho = r / pow(norm, 1.0 / p);
    double s = log((1.0 - rho) / (p * pow(rho, p - 1.0)));
    double lo = -INFINITY, hi = INFINITY, d;
    for (int it = 0; it < 200; it++) {
        /* each pass solves n scalar equations: seconds for 10^6 entries */
        if (cg_interrupt_poll()) return CG_ERR_INTERRUPT;
        const double f = lp_phi(y, n, amax, rp, p, exp(s), &d);
        if (fabs(f) <= 1e-14 * rp) break;
        if (f > 0) lo = s; else hi = s;
        double s_new = s - f / d;
        if (!(d < 0) || !(s_new > lo && s_new < hi)) {     /* bisect or expand */
            if (isfinite(lo) && isfinite(hi)) s_new = 0.5 * (lo + hi);
            else s_new = isfinite(lo) ? lo + 2.0 : hi - 2.0;
        }
        if (isfinite(lo) && isfinite(hi) && hi - lo < 1e-15 * fmax(1.0, fabs(s))) break;
        s = s_new;
    }
    const double c = exp(s) * p, q = p - 1.0;
    double sum = 0.0;
    for (size_t i = 0; i < n; i++) {
        const double a = fabs(y[i]) / amax;
        const double w = a == 0.0 ? 0.0 : lp_entry(a, c, q);
        sum += pow(w, p);
        x[i] = y[i] < 0.0 ? -w : w;
    }
    /* land on the sphere exactly (the root is found to ~1e-14) */
    const double fix = amax * fmin(1.0, r / pow(sum, 1.0 / p));
    for (size_t i = 0; i < n; i++) x[i] *= fix;
    return CG_OK;
}

/* The support list of a coefficient vector (pairwise Frank-Wolfe on the l1
 * ball: prob_regression.c, prob_glm.c): keep j in support[0 .. *n_support)
 * exactly when theta[j] != 0, in_support[j] its position or -1; O(1). */
void cg_support_update(int *support, int *in_support, int *n_support, const double *theta,
                       int j)
{
    const int k = in_support[j];
    if (theta[j] != 0.0 && k < 0) {
        in_support[j] = *n_support;
        support[(*n_support)++] = j;
    } else if (theta[j] == 0.0 && k >= 0) {
        const int last = support[--(*n_support)];
        support[k] = last;
        in_support[last] = k;
        in_support[j] = -1;
    }
}
