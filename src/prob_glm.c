/* Generalized linear models over a (weighted) l1 ball: sparse_regression()
 * with family = "binomial" or "poisson" (and "gaussian" where the least
 * squares problem of prob_regression.c does not apply: a sparse X with
 * observation weights or unpenalized columns):
 *   min_{b, theta}  1/n sum_i w_i [A(eta_i) - y_i eta_i] + c,
 *   eta = U b + sum_j cs_j theta_j x_j,   ||theta||_1 <= radius,
 * U (n x q, dense) the unpenalized columns (the intercept's ones, columns
 * with penalty factor 0), x_j the penalized columns of X (dense or CSC),
 * cs_j their scale (1 / (penalty factor x standard deviation), set in R),
 * w the observation weights (sum n), A the family's log-partition
 * (glm_family.h) and c the constant that makes the objective half the
 * weighted mean deviance.
 *
 * Method "pfw": pairwise Frank-Wolfe on phi(theta) = min_b f(b, theta), a
 * convex function whose gradient is the theta-gradient of f at the
 * minimizing b. After every step b is minimized exactly (damped Newton to
 * rounding), so g = X~'(w (mu - y)) / n is the gradient of phi and the
 * Frank-Wolfe gap <g, theta - s> bounds phi(theta) - min phi: the objective
 * minus the optimum of the stated problem. The linear predictor eta is kept
 * (O(n) per step, O(nnz of two columns) when sparse), the gradient computed
 * in full each step (one pass over X), the step along s - a by safeguarded
 * Newton on the exact loss (O(n) per trial).
 *
 * A sparse X (given by rows too) is "lazy": a step changes eta on the rows
 * of its two columns only, and updates the gradient there (O(nnz of those
 * rows)); b is minimized again only once its Newton decrement exceeds a
 * tenth of the last Frank-Wolfe gap (the steps in between are block
 * coordinate steps on f(b, theta)), and exactly before any gap is trusted:
 * the loop's exact gradient (CG_BATCH_FULL) minimizes b first, and the
 * evaluation minimizes it on a copy, so that its objective and gap are
 * phi(theta)'s, those of the stated problem, and the fit reports that b.
 * A 5000 x 2000 logistic fit with 1454 nonzeros (1% dense X): 1.45 -> 0.36 s
 * CPU (0.18 s with the face steps by conjugate gradients below).
 *
 * After a pairwise step, a model step (a proximal-Newton step over the
 * support and the coordinates of largest |g|, see below) or else a face
 * step: a fit no longer takes a pairwise step per nonzero. */
#include "stochcg.h"
#include "glm_family.h"
#include <string.h>
#include <math.h>
#include <limits.h>



typedef struct {
    int n, p, q, sparse, family;
    const double *X;                        /* dense n x p */
    const int *cp, *ri; const double *cx;   /* or CSC */
    const double *cs, *U, *y, *w;
    double radius, offset;
    double *theta, *b, *g, *eta, *mu, *curv, *res, *deta, *etab, *mub, *curvb;
    double *H, *gq, *du, *work;             /* Newton on b (q x q, q) */
    int *support, *in_support, n_support;
    /* face (Newton) steps: on, the flops the pairwise steps have earned
     * for them, taken; scratch for m = |S| + q coordinates */
    int face_on, face_cap;
    double face_credit, face_steps;
    double *fM, *fH, *fz, *fc, *fd, *fsig, *fcg;
    int *fks;
    /* model steps: scratch for a working set of up to model_cap columns
     * (the Hessian, the inner iterate and its gradient), the set's
     * indices, membership of each of the p columns, |g| outside it */
    int model_cap, *midx, *mpos, fM_cols;
    double *mH, *mx, *mg, *mabs, *mq;
    /* dense: the active set solve's factor (model_cap^2) and vectors, its
     * coordinates and signs */
    double *mC, *mCv;
    int *mia, mC_ld;
    int *rp, *rc; double *rv;               /* sparse: X~_S by rows (CSR), nnz(X) room */
    int s_idx, a_idx;
    /* the pair step's Frank-Wolfe vertex entered the support (read by the
     * model step of the same iteration) */
    int s_new;
    double s_val, a_val, slack;
    double rows_read, rows_reported, matvec;
    /* the loss at eta, computed when a test needs it (fval_ok), and the
     * last one computed: the scale of the Newton tests */
    double fval, fscale;
    int fval_ok;
    /* the iterate's version (moves: every step), and the versions at which
     * the loop's gradient g and the evaluation's (ge) were computed: the
     * evaluation at the start of a run and the gradient of its first
     * iteration (or a gradient and the evaluation that confirms its gap)
     * are one pass over X, not two */
    double moves, g_at, ge_at, *ge;
    /* lazy (a sparse X given by rows too, row_p/row_j/row_x, and q <= 8):
     * a pairwise step updates the gradient g and the unpenalized block's
     * gradient gq on the rows it changed (the paper's work per iteration,
     * O(nnz of those rows), not a pass over X), and minimizes b again
     * (profile, a pass over X and n exp()) only once b's Newton decrement
     * exceeds a tenth of the last Frank-Wolfe gap; g_ok: g is current. The
     * evaluation certifies the stated problem at theta with b minimized on
     * a copy (export: that b and eta, for the fit). */
    int lazy, g_ok;
    const int *rp2, *rj; const double *rx;
    double *gqi, last_gap, *bx, *etax, *Hs, *sv_eta, *sv_mu, *sv_curv, *sv_H;
    /* sparse X: the rows a pairwise step changes (those of its two
     * columns), so that its line search reads only them; nrows < 0: all */
    int *rows, nrows, *mark, stamp;
} glm;

/* out += alpha x~_j */
static void col_axpy(const glm *G, int j, double alpha, double *out)
{
    const double a = alpha * G->cs[j];
    if (a == 0.0) return;
    if (!G->sparse) {
        int one = 1;
        F77_CALL(daxpy)(&G->n, &a, G->X + (size_t) j * G->n, &one, out, &one);
        return;
    }
    for (int k = G->cp[j]; k < G->cp[j + 1]; k++) out[G->ri[k]] += a * G->cx[k];
}

/* mu and curv at eta on the rows `rows` (len of them; NULL: all), one
 * exp() per row. The loss is not computed here (its log1p() per row took
 * a third of a sparse fit's time): loss_now() computes it when a test
 * needs it. */
static void mean_rows(int family, const double *eta, double *mu, double *curv,
                      const int *rows, int len)
{
    for (int r = 0; r < len; r++) {
        const int i = rows == NULL ? r : rows[r];
        const double x = eta[i];
        switch (family) {
        case FAM_BINOMIAL: {
            const double e = exp(-fabs(x)), inv = 1.0 / (1.0 + e);
            mu[i] = x >= 0.0 ? inv : e * inv;
            curv[i] = e * inv * inv;
            break;
        }
        case FAM_POISSON:
            mu[i] = curv[i] = exp(x);
            break;
        default:
            mu[i] = x; curv[i] = 1.0;
        }
    }
}

static void refresh_rows(glm *G, const int *rows, int len)
{
    mean_rows(G->family, G->eta, G->mu, G->curv, rows, rows == NULL ? G->n : len);
    G->fval_ok = 0;
}

static void refresh(glm *G) { refresh_rows(G, NULL, 0); }

static double loss_at(const glm *G, const double *eta)
{
    double f = 0.0;
    for (int i = 0; i < G->n; i++)
        if (G->w[i] > 0.0) f += G->w[i] * (log_partition(G->family, eta[i]) - G->y[i] * eta[i]);
    return f / G->n + G->offset;
}

/* the loss at eta (computed once per iterate) */
static double loss_now(glm *G)
{
    if (!G->fval_ok) {
        G->fval = loss_at(G, G->eta);
        G->fval_ok = 1;
        G->fscale = fabs(G->fval);
    }
    return G->fval;
}

/* Armijo backtracking on the exact loss along eta + t deta (into G->etab),
 * halving *t at most 40 times; gd0 < 0 is the slope. A slope below what the
 * loss resolves (-gd0 < 1e-10 fscale) takes the step untested: the decrease
 * (about -gd0 / 2) is below rounding while the gap (first order in the
 * distance to the minimizer) is not -- Newton's step in its quadratic
 * range. Returns 1 if the step is taken; *tested says whether *f1 holds the
 * loss at etab. (The face and model steps share it.) */
static int backtrack_eta(glm *G, double gd0, double *t, int *tested, double *f1)
{
    const int n = G->n;
    *tested = 0;
    if (-gd0 < 1e-10 * G->fscale) {
        for (int i = 0; i < n; i++) G->etab[i] = G->eta[i] + *t * G->deta[i];
        return 1;
    }
    const double f0 = loss_now(G);
    *tested = 1;
    for (int it = 0; it < 40; it++) {
        for (int i = 0; i < n; i++) G->etab[i] = G->eta[i] + *t * G->deta[i];
        *f1 = loss_at(G, G->etab);
        if (*f1 <= f0 + 1e-4 * *t * gd0) return *f1 < f0;
        *t *= 0.5;
    }
    return 0;
}

/* a loss just computed at eta */
static void loss_known(glm *G, double f)
{
    G->fval = f; G->fval_ok = 1; G->fscale = fabs(f);
}

/* g = X~' (w (mu - y)) / n, one pass over X */
static void full_gradient(glm *G, double *g)
{
    const int n = G->n, p = G->p;
    for (int i = 0; i < n; i++) G->res[i] = G->w[i] * (G->mu[i] - G->y[i]) / n;
    if (!G->sparse) {
        /* (dgemv("T")'s numbers, eight columns at a time: cg_cols_dot) */
        cg_cols_dot(G->X, n, NULL, p, G->res, 1.0, g);
        for (int j = 0; j < p; j++) g[j] *= G->cs[j];
    } else {
        for (int j = 0; j < p; j++) {
            double s = 0.0;
            for (int k = G->cp[j]; k < G->cp[j + 1]; k++) s += G->cx[k] * G->res[G->ri[k]];
            g[j] = s * G->cs[j];
        }
    }
    G->matvec += 1.0;
}

/* b <- argmin_b f(b, theta) by damped Newton (the profiled problem), to
 * rounding: until the Newton decrement stops falling or is below 1e-15
 * of the loss scale. Keeps eta and mu current. */
static int profile(cg_problem *P, glm *G)
{
    const int n = G->n, q = G->q;
    int moved = 0;
    if (q == 0) return 0;
    double last_dec = INFINITY;
    for (int it = 0; it < 100; it++) {
        for (int a = 0; a < q; a++) {
            const double *ua = G->U + (size_t) a * n;
            double s = 0.0;
            for (int i = 0; i < n; i++) s += ua[i] * G->w[i] * (G->mu[i] - G->y[i]);
            G->gq[a] = s / n;
            for (int c = 0; c <= a; c++) {
                const double *uc = G->U + (size_t) c * n;
                double h = 0.0;
                for (int i = 0; i < n; i++) h += ua[i] * uc[i] * G->w[i] * G->curv[i];
                G->H[a + (size_t) c * q] = G->H[c + (size_t) a * q] = h / n;
            }
        }
        /* du = -H^-1 gq (Cholesky; a tiny ridge if H is singular) */
        memcpy(G->work, G->H, sizeof(double) * q * q);
        for (int a = 0; a < q; a++) G->du[a] = -G->gq[a];
        int info = 0, one = 1;
        F77_CALL(dposv)("L", &G->q, &one, G->work, &G->q, G->du, &G->q, &info FCONE);
        if (info == 0 && G->Hs) memcpy(G->Hs, G->work, sizeof(double) * q * q);
        if (info != 0) {
            double tr = 0.0;
            for (int a = 0; a < q; a++) tr += G->H[a + (size_t) a * q];
            memcpy(G->work, G->H, sizeof(double) * q * q);
            for (int a = 0; a < q; a++) {
                G->work[a + (size_t) a * q] += 1e-10 * tr / q + 1e-300;
                G->du[a] = -G->gq[a];
            }
            F77_CALL(dposv)("L", &G->q, &one, G->work, &G->q, G->du, &G->q, &info FCONE);
            if (info != 0) return moved;
            if (G->Hs) memcpy(G->Hs, G->work, sizeof(double) * q * q);
        }
        double dec = 0.0;                     /* Newton decrement^2 = -gq'du */
        for (int a = 0; a < q; a++) dec -= G->gq[a] * G->du[a];
        /* (the scale: the last loss computed) */
        const double scale = fmax(G->fscale, 1e-300);
        if (!(dec > 1e-30 * scale) || (it > 2 && dec >= last_dec)) return moved;
        last_dec = dec;
        /* eta + t U du, t = 1 (Newton's step) unless the slope along du,
         * -dec at t = 0, is above dec / 2 at t: then halved. The mean and
         * curvature at the trial point (one exp() per row) are those the
         * next Newton step reads, so that a step costs one pass of exp()
         * and no loss (a log1p() per row): b converges to the minimizer
         * the gap needs, which is all the profile is for. */
        memset(G->deta, 0, sizeof(double) * n);
        for (int a = 0; a < q; a++) {
            int inc = 1; double c = G->du[a];
            F77_CALL(daxpy)(&G->n, &c, G->U + (size_t) a * n, &inc, G->deta, &inc);
        }
        double t = 1.0;
        int ok = 0;
        for (int k = 0; k < 60 && !ok; k++) {
            for (int i = 0; i < n; i++) G->etab[i] = G->eta[i] + t * G->deta[i];
            mean_rows(G->family, G->etab, G->mub, G->curvb, NULL, n);
            /* a decrease below what the loss resolves: Newton's step, in
             * its quadratic range, untested (the slope's rounding is
             * of its size) */
            if (dec < 1e-10 * scale) { ok = 1; break; }
            double sl = 0.0;
            for (int i = 0; i < n; i++) sl += G->w[i] * (G->mub[i] - G->y[i]) * G->deta[i];
            sl /= n;
            if (!R_FINITE(sl)) { t *= 0.5; continue; }
            ok = sl <= 0.5 * dec;
            if (!ok) t *= 0.5;
        }
        if (!ok) return moved;                /* no progress: at rounding */
        double *tmp = G->eta; G->eta = G->etab; G->etab = tmp;
        tmp = G->mu; G->mu = G->mub; G->mub = tmp;
        tmp = G->curv; G->curv = G->curvb; G->curvb = tmp;
        for (int a = 0; a < q; a++) G->b[a] += t * G->du[a];
        G->fval_ok = 0;
        moved = 1;
    }
    return moved;
}

/* the end of an accepted face or model step, once b and the support are
 * moved: eta = etab, the slack, the fitted values, the loss if the line
 * search knows it, b minimized again, the counters */
static void commit_step(cg_problem *P, glm *G, double slack, int tested, double f1)
{
    memcpy(G->eta, G->etab, sizeof(double) * G->n);
    G->slack = slack;
    refresh(G);
    if (tested) loss_known(G, f1);
    profile(P, G);
    G->face_steps += 1.0;
    G->moves += 1.0;
    G->g_ok = 0;
}

static void glm_check(cg_problem *P, const glm *G)
{
    if (!cg_all_finite(G->g, (size_t) G->p))
        cg_fail(P, "the gradient of the %s loss is not finite: it " CG_OVERFLOW_HINT,
                G->family == FAM_POISSON ? "Poisson" :
                G->family == FAM_BINOMIAL ? "binomial" : "least squares");
}

/* gq = U' w (mu - y) / n, afresh (lazy) */
static void unpen_gradient(glm *G)
{
    const int n = G->n;
    for (int a = 0; a < G->q; a++) {
        const double *ua = G->U + (size_t) a * n;
        double s = 0.0;
        for (int i = 0; i < n; i++) s += ua[i] * G->w[i] * (G->mu[i] - G->y[i]);
        G->gqi[a] = s / n;
    }
}

static double glm_gradient(cg_problem *P, int batch)
{
    glm *G = (glm *) P->self;
    if (G->lazy) {
        /* the exact gradient (the loop's refresh, or a gap to confirm):
         * at b minimized, computed afresh; otherwise g as the steps
         * updated it */
        if (batch == CG_BATCH_FULL) {
            if (profile(P, G)) G->moves += 1.0;
            G->g_ok = 0;
        }
        if (!G->g_ok) {
            if (G->ge_at == G->moves) memcpy(G->g, G->ge, sizeof(double) * G->p);
            else { full_gradient(G, G->g); G->rows_read += G->n; }
            unpen_gradient(G);
            G->g_ok = 1;
        }
        G->g_at = G->moves;
    } else if (G->g_at == G->moves) {
        /* computed at this iterate already (the loop's refresh) */
    } else if (G->ge_at == G->moves) {      /* evaluated at this iterate: the same numbers */
        memcpy(G->g, G->ge, sizeof(double) * G->p);
        G->g_at = G->moves;
    } else {
        full_gradient(G, G->g);
        G->rows_read += G->n;
        G->g_at = G->moves;
    }
    glm_check(P, G);
    double fresh = G->rows_read - G->rows_reported;
    G->rows_reported = G->rows_read;
    return fresh;
}

static double glm_lmo(cg_problem *P)
{
    glm *G = (glm *) P->self;
    cg_lmo_l1(G->g, G->p, G->radius, &G->s_idx, &G->s_val);
    double gx = 0.0;
    for (int k = 0; k < G->n_support; k++) gx += G->g[G->support[k]] * G->theta[G->support[k]];
    G->last_gap = gx - G->s_val * G->g[G->s_idx];
    return G->last_gap;
}

/* phi'(t) = 1/n sum w (A'(eta + t d) - y) d, and phi'' into *h */
static double slope_at(const glm *G, double t, double *h)
{
    double s = 0.0, c = 0.0;
    const int all = G->nrows < 0, len = all ? G->n : G->nrows;
    for (int r = 0; r < len; r++) {
        const int i = all ? r : G->rows[r];
        const double d = G->deta[i];
        if (d == 0.0 || G->w[i] == 0.0) continue;
        double v;
        const double m = mean_curv(G->family, G->eta[i] + t * d, &v);
        s += G->w[i] * (m - G->y[i]) * d;
        c += G->w[i] * v * d * d;
    }
    *h = c / G->n;
    return s / G->n;
}

/* away vertex, and the exact step along d = s - a on the loss (b fixed):
 * safeguarded Newton on phi'(t) = 0 in [0, gamma_max] */
static double glm_pair_direction(cg_problem *P, double *gamma_max, double *gamma_exact)
{
    glm *G = (glm *) P->self;
    cg_away_l1(G->g, G->theta, G->support, G->n_support, G->radius, G->slack,
               &G->a_idx, &G->a_val, gamma_max);
    const int s = G->s_idx, a = G->a_idx;
    double slope = G->s_val * G->g[s] - (a >= 0 ? G->a_val * G->g[a] : 0.0);
    memset(G->deta, 0, sizeof(double) * G->n);
    col_axpy(G, s, G->s_val, G->deta);
    if (a >= 0) col_axpy(G, a, -G->a_val, G->deta);
    G->nrows = -1;
    if (G->sparse) {                        /* the rows of columns s and a */
        if (++G->stamp == INT_MAX) {
            for (int i = 0; i < G->n; i++) G->mark[i] = 0;
            G->stamp = 1;
        }
        G->nrows = 0;
        for (int pass = 0; pass < (a >= 0 ? 2 : 1); pass++) {
            const int j = pass ? a : s;
            for (int t = G->cp[j]; t < G->cp[j + 1]; t++) {
                const int i = G->ri[t];
                if (G->mark[i] != G->stamp) { G->mark[i] = G->stamp; G->rows[G->nrows++] = i; }
            }
        }
    }
    if (!(slope < 0.0)) { *gamma_exact = 0.0; return -slope; }
    double lo = 0.0, hi = *gamma_max, h;
    if (slope_at(G, hi, &h) <= 0.0) { *gamma_exact = INFINITY; return -slope; }
    /* at t = 0 from the kept mu and curvature (no exp()) */
    double t = 0.0, d = slope;
    h = 0.0;
    for (int r = 0; r < (G->nrows < 0 ? G->n : G->nrows); r++) {
        const int i = G->nrows < 0 ? r : G->rows[r];
        h += G->w[i] * G->curv[i] * G->deta[i] * G->deta[i];
    }
    h /= G->n;
    for (int it = 0; it < 100; it++) {
        double next = h > 0.0 ? t - d / h : 0.5 * (lo + hi);
        if (!(next > lo && next < hi)) next = 0.5 * (lo + hi);
        const double moved = fabs(next - t);
        t = next;
        d = slope_at(G, t, &h);
        if (d < 0.0) lo = t; else hi = t;
        /* the slope down by 1e-12: the step is exact to about 1e-12 of
         * itself (Newton's next move), the loss to rounding */
        if (fabs(d) <= 1e-12 * -slope || moved <= 1e-15 * fmax(t, 1e-300) ||
            hi - lo <= 1e-15 * hi) break;
    }
    *gamma_exact = t;
    return -slope;
}

static void support_update(glm *G, int j)
{
    cg_support_update(G->support, G->in_support, &G->n_support, G->theta, j);
}

/* lazy: eta, mu, g and gq on the rows of columns s and a (CSR rows of X),
 * then b minimized again if its Newton decrement (from the curvature of
 * the last profile, H) is above a tenth of the last Frank-Wolfe gap */
static void lazy_step(cg_problem *P, glm *G, double gamma)
{
    const int n = G->n, q = G->q;
    double work = 0.0;
    for (int r = 0; r < G->nrows; r++) {
        const int i = G->rows[r];
        const double old = G->w[i] * (G->mu[i] - G->y[i]) / n;
        G->eta[i] += gamma * G->deta[i];
        mean_rows(G->family, G->eta, G->mu, G->curv, G->rows + r, 1);
        const double dr = G->w[i] * (G->mu[i] - G->y[i]) / n - old;
        if (dr == 0.0) continue;
        for (int t = G->rp2[i]; t < G->rp2[i + 1]; t++) {
            const int j = G->rj[t];
            G->g[j] += G->cs[j] * G->rx[t] * dr;
        }
        for (int a = 0; a < q; a++) G->gqi[a] += G->U[i + (size_t) a * n] * dr;
        work += G->rp2[i + 1] - G->rp2[i];
    }
    G->fval_ok = 0;
    G->face_credit += 2.0 * work + 40.0 * G->nrows;
    if (q == 0) return;
    /* dec = gq' H^-1 gq, H from the last profile (Cholesky in Hs) */
    double dec = 0.0;
    int one = 1, info = 0;
    memcpy(G->du, G->gqi, sizeof(double) * q);
    F77_CALL(dpotrs)("L", &G->q, &one, G->Hs, &G->q, G->du, &G->q, &info FCONE);
    for (int a = 0; a < q; a++) dec += G->gqi[a] * G->du[a];
    if (info != 0 || !(dec <= 0.1 * fmax(G->last_gap, 0.0))) {
        if (profile(P, G)) G->g_ok = 0;
        G->face_credit += 2.0 * (double) G->cp[G->p] + 200.0 * n;
    }
}

static void glm_pair_step(cg_problem *P, double gamma, int drop)
{
    glm *G = (glm *) P->self;
    const int s = G->s_idx, a = G->a_idx;
    double *theta = G->theta;
    const double before = fabs(theta[s]) + (a >= 0 && a != s ? fabs(theta[a]) : 0.0);
    const int grows = theta[s] * G->s_val >= 0.0;
    G->s_new = theta[s] == 0.0;
    theta[s] += gamma * G->s_val;
    if (a >= 0) {
        theta[a] -= gamma * G->a_val;
        if (drop && a != s) theta[a] = 0.0;
        support_update(G, a);
    }
    support_update(G, s);
    const double after = fabs(theta[s]) + (a >= 0 && a != s ? fabs(theta[a]) : 0.0);
    G->slack = (a < 0 && drop && grows) ? 0.0 : fmax(G->slack - (after - before), 0.0);
    /* this step's work: the gradient's pass over X, the O(n) passes of
     * the line search and the profile */
    if (!G->lazy)
        G->face_credit += 2.0 * (G->sparse ? (double) G->cp[G->p] : (double) G->n * G->p) +
                          200.0 * G->n;
    if (gamma > 0.0 && G->lazy) {
        lazy_step(P, G, gamma);
    } else if (gamma > 0.0) {
        if (G->nrows < 0) {
            for (int i = 0; i < G->n; i++) G->eta[i] += gamma * G->deta[i];
            refresh(G);
        } else {                            /* sparse: the rows of columns s and a */
            for (int r = 0; r < G->nrows; r++) G->eta[G->rows[r]] += gamma * G->deta[G->rows[r]];
            refresh_rows(G, G->rows, G->nrows);
        }
        profile(P, G);
    }
    G->moves += 1.0;
}

/* ------------------------------------------------------------ face step
 * Pairwise steps converge linearly at a rate that degrades with the
 * conditioning of the loss on the support (10^4 steps for 25 nonzero
 * coefficients of a logistic fit at p >> n). The face step is the Newton
 * step of an active-set method: with the support S and its signs fixed,
 * the loss over (theta_S, b) restricted to the affine hull of the face of
 * the active vertices (the hyperplane sign(theta_S)'theta_S = r on the
 * sphere, all of R^S inside the ball) has the Newton direction d of one
 * (|S| + q) solve with the Hessian M'WM/n, M = [X~_S, U]. The iterate
 * moves along d as far as the signs and the ball allow (a coefficient
 * reaching zero leaves the support exactly), backtracking on the exact
 * loss until it decreases; then b is minimized again (profile), so the
 * Frank-Wolfe gap stays the certificate. On the sphere, a negative
 * multiplier of the hyperplane (the loss would decrease into the ball)
 * takes the unconstrained direction instead. Its work is paid from a
 * credit the pairwise steps earn with theirs (one pass over X each), so
 * face steps at most double a run's work; a warm start begins with the
 * credit of one. */
/* (2048: a sparse binomial fit with 1454 nonzeros took 12901 pairwise
 * steps without face steps above 1024 coordinates, 3673 with them, 1.8 ->
 * 1.45 s; the Hessian's scratch is at most 32 MB) */
#define FACE_MAX 2048
/* rows per block of the dense Newton systems' M (face_system) */
#define FACE_ROWS 256
/* flops of a face step on k support coordinates (m = k + q): the Hessian
 * (dense: one n x m product; sparse: by rows, sum_i nnz_i(S)^2, about
 * nnz(X_S)^2 / n) and its Cholesky factor */
static double face_cost(const glm *G, int k)
{
    const double m = k + G->q, n = G->n;
    /* dense: a level-3 BLAS product, about 4 times the flop rate of the
     * gradient's matrix-vector product and exp() passes it is paid from
     * (with the reference BLAS; both by cg_cols_dot since glmspeed, issue
     * 25, the rule kept so that the same steps are taken: giving the
     * pairwise steps 4x the credit changed CV times by -15% to +5%) */
    if (!G->sparse) return 0.5 * n * m * m + m * m * m / 3.0;
    double nnz = 0.0;
    for (int a = 0; a < k; a++) {
        const int j = G->support[a];
        nnz += G->cp[j + 1] - G->cp[j];
    }
    return 2.0 * (nnz * nnz / n + nnz) + 4.0 * n * G->q * m + m * m * m / 3.0;
}

/* the Newton system on the face: H (m x m, lower triangle) = M'WM / n and
 * z1 = M'r / n (the gradient), M = [X~_S, U] (S: the k columns idx),
 * W = diag(w A''(eta)),
 * r = w (mu - y) */
static void face_system(glm *G, const int *idx, int k, int m, double *H, double *z1)
{
    const int n = G->n, q = G->q;
    double *hr = G->etab;                     /* h_i = w_i A''_i / n; r_i */
    double *rr = G->res;
    for (int i = 0; i < n; i++) {
        hr[i] = G->w[i] * G->curv[i] / n;
        rr[i] = G->w[i] * (G->mu[i] - G->y[i]) / n;
    }
    if (!G->sparse) {
        /* M = [X~_S, U] with its rows scaled by sqrt(h), by blocks of
         * FACE_ROWS rows (G->fM: FACE_ROWS x m), and H = M'M (the lower
         * triangle) and z1 summed on over the blocks: every entry summed in
         * row order, dsyrk("L", "T")'s numbers (the reference dsyrk was a
         * quarter to a third of a dense GLM CV, and an n x m M allocated per
         * fold problem and size made R collect garbage). H by
         * cg_syrk_upper_more, 4 x 4 entries at a time (before issue 25's
         * glmcd eight dot products at a time, and the Hessians were still
         * 40-75% of a dense CV's time; the same numbers) */
        const int B = n < FACE_ROWS ? n : FACE_ROWS;
        double *M = G->fM, *sh = G->mub;          /* sqrt(h) per row */
        for (int i = 0; i < n; i++) sh[i] = sqrt(hr[i]);
        for (int a = 0; a < m; a++) {
            z1[a] = 0.0;
            memset(H + (size_t) a * m, 0, sizeof(double) * (a + 1));
        }
        for (int r0 = 0; r0 < n; r0 += B) {
            const int nb = n - r0 < B ? n - r0 : B;
            /* (each column's entry, its product with r summed on in row
             * order, then scaled by sqrt(h): one pass) */
            const double *rb = rr + r0, *shb = sh + r0;
            for (int a = 0; a < m; a++) {
                double *col = M + (size_t) a * nb;
                const double c = a < k ? G->cs[idx[a]] : 1.0;
                const double *x = a < k ? G->X + (size_t) idx[a] * n + r0
                                        : G->U + (size_t) (a - k) * n + r0;
                double s = z1[a];
                if (a < k && c == 0.0) {
                    for (int i = 0; i < nb; i++) { col[i] = 0.0; s += 0.0 * rb[i]; }
                } else if (a < k) {
                    for (int i = 0; i < nb; i++) {
                        const double v = c * x[i];
                        s += v * rb[i];
                        col[i] = v * shb[i];
                    }
                } else {
                    for (int i = 0; i < nb; i++) {
                        s += x[i] * rb[i];
                        col[i] = x[i] * shb[i];
                    }
                }
                z1[a] = s;
            }
            cg_syrk_upper_more(M, nb, m, H);
        }
        /* (the lower triangle, read below, from the upper: the same numbers) */
        for (int c = 0; c < m; c++)
            for (int a = c + 1; a < m; a++) H[a + (size_t) c * m] = H[c + (size_t) a * m];
        return;
    }
    /* sparse: X~_S by rows, then sum_i h_i x_i x_i' over each row's entries */
    memset(H, 0, sizeof(double) * (size_t) m * m);
    int *rp = G->rp;
    memset(rp, 0, sizeof(int) * ((size_t) n + 1));
    for (int a = 0; a < k; a++) {
        const int j = idx[a];
        for (int t = G->cp[j]; t < G->cp[j + 1]; t++) rp[G->ri[t] + 1]++;
    }
    for (int i = 0; i < n; i++) rp[i + 1] += rp[i];
    for (int a = 0; a < k; a++) {           /* columns in order: rows sorted by a */
        const int j = idx[a];
        double s = 0.0;
        for (int t = G->cp[j]; t < G->cp[j + 1]; t++) {
            const int i = G->ri[t], at = rp[i]++;
            const double v = G->cs[j] * G->cx[t];
            G->rc[at] = a; G->rv[at] = v;
            s += v * rr[i];
        }
        z1[a] = s;
    }
    for (int i = n; i > 0; i--) rp[i] = rp[i - 1];
    rp[0] = 0;
    for (int i = 0; i < n; i++) {
        const double h = hr[i];
        for (int t = rp[i]; t < rp[i + 1]; t++) {
            const int a = G->rc[t];
            const double hv = h * G->rv[t];
            for (int u = t; u < rp[i + 1]; u++) H[G->rc[u] + (size_t) a * m] += hv * G->rv[u];
            for (int c = 0; c < q; c++)
                H[(k + c) + (size_t) a * m] += hv * G->U[i + (size_t) c * n];
        }
    }
    for (int c = 0; c < q; c++) {
        const double *uc = G->U + (size_t) c * n;
        double s = 0.0;
        for (int i = 0; i < n; i++) s += uc[i] * rr[i];
        z1[k + c] = s;
        for (int e = c; e < q; e++) {
            const double *ue = G->U + (size_t) e * n;
            double h = 0.0;
            for (int i = 0; i < n; i++) h += uc[i] * ue[i] * hr[i];
            H[(k + e) + (size_t) (k + c) * m] = h;
        }
    }
}

/* sparse X, large faces: the Newton systems by conjugate gradients with
 * products by M'WM/n through X (2 nnz(X_S) + O(n q) each), not a dense
 * m x m Hessian and its factor (m^3 / 3: 10^9 flops at 1454 nonzeros) */
#define FACE_CG_MIN 32
#define FACE_CG_ITER 100

/* out = M' v (m), M = [X~_S, U], v an n-vector */
static void face_mt(const glm *G, int k, const double *v, double *out)
{
    const int n = G->n;
    for (int a = 0; a < k; a++) {
        const int j = G->support[a];
        double s = 0.0;
        for (int t = G->cp[j]; t < G->cp[j + 1]; t++) s += G->cx[t] * v[G->ri[t]];
        out[a] = G->cs[j] * s;
    }
    for (int c = 0; c < G->q; c++) {
        const double *uc = G->U + (size_t) c * n;
        double s = 0.0;
        for (int i = 0; i < n; i++) s += uc[i] * v[i];
        out[k + c] = s;
    }
}

/* out = M' diag(hr) M v; tmp: n */
static void face_hv(const glm *G, int k, const double *hr, const double *v, double *out,
                    double *tmp)
{
    const int n = G->n;
    memset(tmp, 0, sizeof(double) * n);
    for (int a = 0; a < k; a++) col_axpy(G, G->support[a], v[a], tmp);
    for (int c = 0; c < G->q; c++) {
        int inc = 1; double vc = v[k + c];
        F77_CALL(daxpy)(&G->n, &vc, G->U + (size_t) c * n, &inc, tmp, &inc);
    }
    for (int i = 0; i < n; i++) tmp[i] *= hr[i];
    face_mt(G, k, tmp, out);
}

/* x ~ H^-1 b by conjugate gradients from 0 (every iterate a descent
 * direction of the quadratic model); r, p, hp: m each */
static int face_cg(const glm *G, int k, int m, const double *hr, const double *b, double *x,
                   double *r, double *pv, double *hp, double *tmp)
{
    int used = 0;
    double rr = 0.0;
    for (int a = 0; a < m; a++) { x[a] = 0.0; r[a] = b[a]; pv[a] = b[a]; rr += b[a] * b[a]; }
    const double rr0 = rr;
    for (int it = 0; it < FACE_CG_ITER && rr > 1e-24 * rr0 && rr > 0.0; it++) {
        face_hv(G, k, hr, pv, hp, tmp);
        used++;
        double php = 0.0;
        for (int a = 0; a < m; a++) php += pv[a] * hp[a];
        if (!(php > 0.0)) break;
        const double al = rr / php;
        double rn = 0.0;
        for (int a = 0; a < m; a++) { x[a] += al * pv[a]; r[a] -= al * hp[a]; rn += r[a] * r[a]; }
        const double be = rn / rr;
        rr = rn;
        for (int a = 0; a < m; a++) pv[a] = r[a] + be * pv[a];
    }
    return used;
}

/* ----------------------------------------------------------- model step
 * The face step moves the support's coefficients only: a fit with k
 * nonzeros still takes k pairwise steps to find them (each adds one), and
 * at n >> p each of those pays a pass over X and several passes of exp()
 * over n. The model step is a proximal-Newton (IRLS) step over a working
 * set W: the support S and the MODEL_K (or |S|, the larger) coordinates
 * outside it with the largest |gradient|. It minimizes the loss's
 * quadratic model at (theta, b) over theta_W in the ball (theta outside W
 * is zero) with b eliminated exactly (the Schur complement of its block,
 * so that the model is minimized over b too), with the |W| x |W| Hessian
 * formed once (one n x m product), by an active set (exact, a Cholesky
 * factor extended as coordinates enter), or where that fails by pairwise
 * Frank-Wolfe on the model (O(|W|) a step), to a model gap of a hundredth
 * of the last Frank-Wolfe gap (sparse X: coordinate descent through X,
 * glm_model_step_cd()). The iterate moves toward that
 * minimizer (theta and b: a convex combination in the ball) by
 * backtracking on the exact loss from the full step; then b is minimized
 * again (profile), so the Frank-Wolfe gap of the loop stays the
 * certificate of the stated problem. Coefficients the model sets to zero
 * leave the support exactly at the full step. It replaces the face step
 * where its Hessian fits (m = |W| + q at most FACE_MAX, dense n m at most
 * 8 M entries) and is paid from the same credit. */
#define MODEL_K 16
#define MODEL_ITER 50

static void model_room(glm *G, int m)
{
    if (m <= G->model_cap) return;
    int cap = 2 * G->model_cap;
    if (cap < m) cap = m;
    if (cap < 32) cap = 32;
    if (!G->sparse && cap > FACE_MAX) cap = FACE_MAX;
    if (!G->sparse) {
        G->mH = cg_zeros((size_t) cap * cap);
        G->mCv = cg_zeros(5 * (size_t) cap);
        G->mia = (int *) R_alloc(2 * (size_t) cap, sizeof(int));
    }
    G->mx = cg_zeros((size_t) 3 * cap); G->mg = cg_zeros(cap);
    G->midx = (int *) R_alloc(cap, sizeof(int));
    if (G->mq == NULL) G->mq = cg_zeros(G->q + 1);
    G->model_cap = cap;
}

/* dense: room for face_system's M (a block of FACE_ROWS rows x m), shared by
 * the face and model steps */
static void fm_room(glm *G, int m)
{
    if (G->sparse || m <= G->fM_cols) return;
    int cols = 2 * G->fM_cols;
    const int most = (int) (8388608.0 / G->n);
    if (cols > most) cols = most;
    if (cols < m) cols = m;
    G->fM = cg_zeros((size_t) (G->n < FACE_ROWS ? G->n : FACE_ROWS) * cols);
    G->fM_cols = cols;
}

/* flops of a model step on kw columns (m = kw + q): the Hessian, the
 * Schur complement and the inner steps (about 10 m of O(m) each) */
static double model_cost(const glm *G, const int *idx, int kw)
{
    const double m = kw + G->q, n = G->n;
    double c = 10.0 * m * m + 2.0 * G->q * m * m;
    if (!G->sparse) return c + 0.5 * n * m * m + 2.0 * n * m;
    double nnz = 0.0;
    for (int a = 0; a < kw; a++) nnz += G->cp[idx[a] + 1] - G->cp[idx[a]];
    return c + 2.0 * (nnz * nnz / n + nnz) + 4.0 * n * G->q * m;
}

/* the move of a model step: theta_W from x0 toward the model's minimizer
 * x (d = x - x0, d_b in G->gq; slack: the model's minimizer on the sphere
 * when 0), by backtracking on the exact loss from the full step; then b
 * minimized (profile). Returns 1 if the loss decreased, -1 if not. */
static int model_move(cg_problem *P, glm *G, const int *idx, int kw, const double *x,
                      const double *x0, const double *d, double slack)
{
    const int n = G->n, q = G->q;
    const double r = G->radius;
    double gd0 = 0.0;
    /* deta = X~_W d_W + U d_b; the slope r'deta */
    memset(G->deta, 0, sizeof(double) * n);
    for (int a = 0; a < kw; a++) if (d[a] != 0.0) col_axpy(G, idx[a], d[a], G->deta);
    for (int e = 0; e < q; e++) {
        int inc = 1; double c = G->gq[e];
        F77_CALL(daxpy)(&G->n, &c, G->U + (size_t) e * n, &inc, G->deta, &inc);
    }
    for (int i = 0; i < n; i++) gd0 += G->w[i] * (G->mu[i] - G->y[i]) * G->deta[i];
    gd0 /= n;
    if (!(gd0 < 0.0)) return -1;
    double t = 1.0, f1 = 0.0;
    int tested;
    if (!backtrack_eta(G, gd0, &t, &tested, &f1)) return -1;
    double l1 = 0.0;
    for (int a = 0; a < kw; a++) {
        const int j = idx[a];
        const double th = t == 1.0 ? x[a] : x0[a] + t * d[a];
        G->theta[j] = th;
    }
    /* (the support: S's coefficients the model zeroed leave, W's new
     * nonzeros enter, in W's order) */
    for (int a = 0; a < kw; a++) support_update(G, idx[a]);
    for (int k2 = 0; k2 < G->n_support; k2++) l1 += fabs(G->theta[G->support[k2]]);
    for (int e = 0; e < q; e++) G->b[e] += t * G->gq[e];
    commit_step(P, G, (slack == 0.0 && t == 1.0) ? 0.0 : fmax(r - l1, 0.0), tested, f1);
    return 1;
}


/* the coordinates W adds outside S (before the |g| rule below) */
static int model_extra(const glm *G)
{
    const int k = G->n_support;
    int K = k > MODEL_K ? k : MODEL_K;
    return K > G->p - k ? G->p - k : K;
}

/* kw columns within the scratch's bounds */
static int model_cap_size(const glm *G, int kw)
{
    const int n = G->n, q = G->q;
    if (kw + q > FACE_MAX) kw = FACE_MAX - q;
    if (!G->sparse && (double) n * (kw + q) > 8388608.0) kw = (int) (8388608.0 / n) - q;
    if (kw + q >= n) kw = n - q - 1;
    return kw;
}

/* a warm start's credit: a model step on its support (dense), else a face step */
static double warm_credit(const glm *G)
{
    const double face = face_cost(G, G->n_support);
    if (G->sparse) return face;
    const int kw = model_cap_size(G, G->n_support + model_extra(G));
    return kw > G->n_support ? fmax(face, model_cost(G, NULL, kw)) : face;
}

/* W (G->midx, room for kw): S, then the kw - |S| largest |g| outside S
 * (g: the loop's gradient); returns |W| */
static int model_select(glm *G, int kw)
{
    const int k = G->n_support, p = G->p;
    if (G->mpos == NULL) {
        G->mpos = (int *) R_alloc(p, sizeof(int));
        G->mabs = cg_zeros(p);
        for (int j = 0; j < p; j++) G->mpos[j] = -1;
    }
    int *idx = G->midx;
    for (int a = 0; a < k; a++) { idx[a] = G->support[a]; G->mpos[idx[a]] = a; }
    int nc = 0;
    for (int j = 0; j < p; j++) if (G->in_support[j] < 0) G->mabs[nc++] = fabs(G->g[j]);
    const int need = kw - k;
    double thr = 0.0;
    if (need < nc) { rPsort(G->mabs, nc, nc - need); thr = G->mabs[nc - need]; }
    int kk = k;
    for (int j = 0; j < p && kk < kw; j++)
        if (G->in_support[j] < 0 && fabs(G->g[j]) > thr) { G->mpos[j] = kk; idx[kk++] = j; }
    for (int j = 0; j < p && kk < kw; j++)
        if (G->in_support[j] < 0 && G->mpos[j] < 0 && fabs(G->g[j]) == thr) {
            G->mpos[j] = kk; idx[kk++] = j;
        }
    kw = kk;
    for (int a = 0; a < kw; a++) G->mpos[idx[a]] = -1;
    return kw;
}

/* |W| - |S|: model_extra(), no more than the coordinates outside S within a
 * half of max |g| (the others are far from entering), at least MODEL_K */
static int model_target(const glm *G)
{
    const int k = G->n_support, p = G->p;
    int K = model_extra(G);
    if (K > MODEL_K) {
        double gmax = 0.0;
        for (int j = 0; j < p; j++) if (fabs(G->g[j]) > gmax) gmax = fabs(G->g[j]);
        int close = 0;
        for (int j = 0; j < p; j++) close += G->in_support[j] < 0 && fabs(G->g[j]) >= 0.5 * gmax;
        if (close < K) K = close > MODEL_K ? close : MODEL_K;
        if (K > p - k) K = p - k;
    }
    return K;
}

/* sparse X: the model minimized by coordinate descent through X (glmnet's
 * inner loop: a coordinate costs the nonzeros of its column, where a row of
 * the |W| x |W| Hessian costs |W|), on the penalized model
 *   min_x z'(x - x0) + 1/2 |M (x - x0, d_b)|^2_D + lam ||x||_1
 * with lam found by the secant method so that ||x||_1 = radius (the ball's
 * multiplier); x scaled into the ball if the last lam left it above. */
#define MODEL_PASSES 30
#define MODEL_ROUNDS 8
static int glm_model_step_cd(cg_problem *P, glm *G)
{
    const int n = G->n, q = G->q, k = G->n_support, p = G->p;
    int kw = k + model_target(G);
    if (kw > p) kw = p;
    if (kw <= k) return 0;
    double nnz_s = 0.0;
    for (int a = 0; a < k; a++) nnz_s += G->cp[G->support[a] + 1] - G->cp[G->support[a]];
    const double pass = 4.0 * nnz_s * kw / (k > 0 ? k : 1) + 4.0 * n * q + 10.0 * kw;
    if (G->face_credit < 4.0 * pass) return -1;
    model_room(G, kw);
    kw = model_select(G, kw);
    const int *idx = G->midx;
    const int cap = G->model_cap;
    double *x = G->mx, *x0 = G->mx + cap, *z = G->mx + 2 * (size_t) cap, *D = G->mg;
    double *hr = G->curvb, *u = G->mub, *rr = G->res;
    for (int i = 0; i < n; i++) {
        hr[i] = G->w[i] * G->curv[i] / n;
        rr[i] = G->w[i] * (G->mu[i] - G->y[i]) / n;
        u[i] = 0.0;
    }
    double zmax = 0.0, smax = 0.0, l1 = 0.0;
    for (int a = 0; a < kw; a++) {
        const int j = idx[a];
        double s1 = 0.0, s2 = 0.0;
        for (int t = G->cp[j]; t < G->cp[j + 1]; t++) {
            const int i = G->ri[t];
            s1 += G->cx[t] * rr[i];
            s2 += G->cx[t] * G->cx[t] * hr[i];
        }
        z[a] = G->cs[j] * s1;
        D[a] = G->cs[j] * G->cs[j] * s2;
        x[a] = x0[a] = G->theta[j];
        l1 += fabs(x[a]);
        if (fabs(z[a]) > zmax) zmax = fabs(z[a]);
        if (a < k && fabs(z[a]) > smax) smax = fabs(z[a]);
    }
    /* the unpenalized block: Hbb = L L', zb; d_b in gq */
    double *Hbb = G->work, *zb = G->du, *db = G->gq;
    for (int c = 0; c < q; c++) {
        const double *uc = G->U + (size_t) c * n;
        double s1 = 0.0;
        for (int i = 0; i < n; i++) s1 += uc[i] * rr[i];
        zb[c] = s1;
        db[c] = 0.0;
        for (int e = c; e < q; e++) {
            const double *ue = G->U + (size_t) e * n;
            double h = 0.0;
            for (int i = 0; i < n; i++) h += uc[i] * ue[i] * hr[i];
            Hbb[e + (size_t) c * q] = h;
        }
    }
    if (q > 0) {
        int info = 0;
        F77_CALL(dpotrf)("L", &G->q, Hbb, &G->q, &info FCONE);
        if (info != 0) return -1;
    }
    const double r = G->radius;
    const double tol = 1e-3 * fmax(G->last_gap, 1e-14 * G->fscale);
    double lam = smax > 0.0 ? smax : zmax, lo = -1.0, hi = -1.0, l_lo = 0.0, l_hi = 0.0;
    double passes = 0.0;
    int side = 0;
    for (int round = 0; round < MODEL_ROUNDS; round++) {
        for (int it = 0; it < MODEL_PASSES; it++) {
            double chg = 0.0;
            for (int a = 0; a < kw; a++) {
                if (!(D[a] > 0.0)) continue;
                const int j = idx[a];
                double s1 = 0.0;
                for (int t = G->cp[j]; t < G->cp[j + 1]; t++) s1 += G->cx[t] * hr[G->ri[t]] * u[G->ri[t]];
                /* (u holds M (x - x0, d_b): gr is the model's gradient at x) */
                const double gr = z[a] + G->cs[j] * s1;
                const double v = x[a] - gr / D[a], th = lam / D[a];
                const double nx = v > th ? v - th : (v < -th ? v + th : 0.0);
                const double dl = nx - x[a];
                if (dl == 0.0) continue;
                x[a] = nx;
                chg += D[a] * dl * dl;
                const double c = dl * G->cs[j];
                for (int t = G->cp[j]; t < G->cp[j + 1]; t++) u[G->ri[t]] += c * G->cx[t];
            }
            for (int c = 0; c < q; c++) {          /* the unpenalized block: Newton */
                const double *uc = G->U + (size_t) c * n;
                double s1 = 0.0;
                for (int i = 0; i < n; i++) s1 += uc[i] * hr[i] * u[i];
                G->mq[c] = zb[c] + s1;
            }
            if (q > 0) {
                int one = 1, info = 0;
                F77_CALL(dpotrs)("L", &G->q, &one, Hbb, &G->q, G->mq, &G->q, &info FCONE);
                for (int c = 0; c < q; c++) {
                    const double st = -G->mq[c];
                    int inc = 1;
                    db[c] += st;
                    F77_CALL(daxpy)(&G->n, &st, G->U + (size_t) c * n, &inc, u, &inc);
                }
            }
            passes += 1.0;
            if (!(chg > tol)) break;
        }
        double l = 0.0;
        for (int a = 0; a < kw; a++) l += fabs(x[a]);
        l1 = l;
        if (l <= r) {
            if (side == 1) l_lo = r + 0.5 * (l_lo - r);     /* (Illinois) */
            side = 1;
            hi = lam; l_hi = l;
            /* (the loss the unused radius leaves, about lam (r - l), within
             * a hundredth of the gap) */
            if (lam * (r - l) <= 1e-2 * tol * 1e3 || lam == 0.0) break;
        } else {
            if (side == -1) l_hi = r - 0.5 * (r - l_hi);
            side = -1;
            lo = lam; l_lo = l;
        }
        if (lo >= 0.0 && hi >= 0.0) lam = lo + (l_lo - r) * (hi - lo) / (l_lo - l_hi);
        else if (l > r) lam = lam > 0.0 ? 2.0 * lam : zmax;
        else lam = 0.5 * lam;
        if (round == MODEL_ROUNDS - 2 && hi < 0.0) lam = 2.0 * lam;
    }
    const double spent = fmin(passes * pass, G->face_credit);
    G->face_credit -= spent;
    double slack = r - l1;
    /* (on the sphere: a lam left ||x|| above the radius; the minimizer
     * is on it) */
    if (l1 > r || (lo >= 0.0 && l1 > 0.0)) {
        const double sc = r / l1;
        for (int a = 0; a < kw; a++) x[a] *= sc;
        slack = 0.0;
    }
    if (slack <= 1e-12 * r) slack = 0.0;
    double *d = z;
    for (int a = 0; a < kw; a++) d[a] = x[a] - x0[a];
    /* a step that decreased the loss is paid back: only failed ones spend
     * the pairwise steps' credit */
    const int taken = model_move(P, G, idx, kw, x, x0, d, slack);
    if (taken > 0) G->face_credit += spent;
    return taken;
}

/* dense model step: the model's minimizer over the ball exactly, by an
 * active set A (with signs sg) started from the iterate's support: on A the
 * stationarity H_AA x_A = (H x0)_A - z_A - lam sg with sg'x_A = r (lam from
 * that linear condition; lam = 0 if the solution on A is inside the ball
 * without it), then A corrected -- coordinates whose sign flipped leave (a
 * new factor), those outside with |gm| > lam enter (the factor extended by
 * their rows, O(|A|^2) each) -- up to MODEL_ACTIVE times. Accepted only with
 * the exact model gradient gm = z + H (x - x0) and a model gap
 * gm'x + r max|gm| within tol: then x, gm and *slack are set and 1
 * returned; else 0 (x and gm untouched: the pairwise steps then). */
#define MODEL_ACTIVE 40
static int model_active_set(glm *G, const double *H, int mw, int kw, const double *z,
                            const double *x0, double *x, double *gm, double tol, double *slack)
{
    const double r = G->radius;
    const int cap = G->model_cap;
    double *u = G->mCv, *v = u + cap, *xn = v + cap, *gn = xn + cap, *hx0 = gn + cap;
    int *ia = G->mia, *sg = G->mia + cap;
    int na = 0, nf = 0, big = 0;
    /* (H x0) on W; A = the support (W's first coordinates), else the
     * largest |z| */
    for (int a = 0; a < kw; a++) {
        hx0[a] = 0.0;
        sg[a] = x0[a] > 0.0 ? 1 : (x0[a] < 0.0 ? -1 : 0);
        if (sg[a] != 0) ia[na++] = a;
        if (fabs(z[a]) > fabs(z[big])) big = a;
    }
    if (na == 0) {
        if (!(z[big] != 0.0)) return 0;
        sg[big] = z[big] > 0.0 ? -1 : 1;
        ia[na++] = big;
    }
    for (int c = 0; c < kw; c++) {
        const double xc = x0[c], *hc = H + (size_t) c * mw;
        if (xc != 0.0) for (int a = 0; a < kw; a++) hx0[a] += xc * hc[a];
    }
    for (int tries = 0; tries < MODEL_ACTIVE; tries++) {
        /* the factor L L' = H_AA (leading dimension ld: room for |A|,
         * grown as needed, the factor then anew) extended to na */
        if (na > G->mC_ld) {
            int ld = 2 * G->mC_ld;
            if (ld < na) ld = na;
            if (ld < 32) ld = 32;
            if (ld > cap) ld = cap;
            G->mC = cg_zeros((size_t) ld * ld);
            G->mC_ld = ld;
            nf = 0;
        }
        const int ld = G->mC_ld;
        double *L = G->mC;
        for (int i = nf; i < na; i++) {
            /* row i of L: L_i,0..i-1 = L^-1 h (h: H between ia[i] and A's first i) */
            double *row = L + i, d = H[ia[i] + (size_t) ia[i] * mw];
            for (int c = 0; c < i; c++) {
                double t = H[ia[i] + (size_t) ia[c] * mw];
                for (int e = 0; e < c; e++) t -= L[c + (size_t) e * ld] * row[(size_t) e * ld];
                t /= L[c + (size_t) c * ld];
                row[(size_t) c * ld] = t;
                d -= t * t;
            }
            if (!(d > 0.0)) return 0;
            L[i + (size_t) i * ld] = sqrt(d);
        }
        nf = na;
        for (int i = 0; i < na; i++) { u[i] = hx0[ia[i]] - z[ia[i]]; v[i] = sg[ia[i]]; }
        int info = 0, one = 1;
        F77_CALL(dpotrs)("L", &na, &one, L, &G->mC_ld, u, &na, &info FCONE);
        F77_CALL(dpotrs)("L", &na, &one, L, &G->mC_ld, v, &na, &info FCONE);
        double su = 0.0, sv = 0.0;
        for (int i = 0; i < na; i++) { su += sg[ia[i]] * u[i]; sv += sg[ia[i]] * v[i]; }
        double lam = sv > 0.0 ? (su - r) / sv : 0.0;
        if (!(lam > 0.0)) lam = 0.0;
        /* x_A; the coordinates whose sign changed leave A (a new factor) */
        int keep = 0;
        for (int a = 0; a < kw; a++) xn[a] = 0.0;
        for (int i = 0; i < na; i++) {
            const int a = ia[i];
            xn[a] = u[i] - lam * v[i];
            if (xn[a] * sg[a] > 0.0) ia[keep++] = a; else sg[a] = 0;
        }
        if (keep < na) {
            if (keep == 0) return 0;
            na = keep; nf = 0;
            continue;
        }
        /* the exact model gradient at xn, the gap; |gm| > lam outside A enters */
        for (int a = 0; a < kw; a++) gn[a] = z[a];
        for (int c = 0; c < kw; c++) {
            const double dc = xn[c] - x0[c], *hc = H + (size_t) c * mw;
            if (dc != 0.0) for (int a = 0; a < kw; a++) gn[a] += dc * hc[a];
        }
        double l1 = 0.0, gx = 0.0, gmax = 0.0;
        for (int a = 0; a < kw; a++) {
            l1 += fabs(xn[a]);
            gx += gn[a] * xn[a];
            if (fabs(gn[a]) > gmax) gmax = fabs(gn[a]);
        }
        /* (on the sphere the rounding may leave ||xn|| just above r) */
        const double sc = l1 > r ? r / l1 : 1.0;
        if (gx * sc + r * gmax <= tol) {
            for (int a = 0; a < kw; a++) { x[a] = sc * xn[a]; gm[a] = gn[a]; }
            *slack = lam > 0.0 || l1 >= r ? 0.0 : r - l1;
            return 1;
        }
        const int before = na;
        for (int a = 0; a < kw; a++)
            if (sg[a] == 0 && fabs(gn[a]) > lam) { sg[a] = gn[a] > 0.0 ? -1 : 1; ia[na++] = a; }
        if (na == before) return 0;
    }
    return 0;
}

/* returns 1 if taken, 0 if not applicable (the face step then), -1 if
 * tried without a decrease */
static int glm_model_step(cg_problem *P, glm *G)
{
    const int n = G->n, q = G->q, k = G->n_support;
    if (G->sparse) return glm_model_step_cd(P, G);
    const int K = model_target(G);
    int kw = model_cap_size(G, k + K);
    if (kw <= k) return 0;
    const int m = kw + q;
    const double mm = m;
    /* (a lower bound first, no O(p) work while the credit is below it) */
    if (G->face_credit < 10.0 * mm * mm) return -1;
    model_room(G, m);
    fm_room(G, m);
    if (G->sparse && G->rp == NULL) {
        G->rp = (int *) R_alloc((size_t) n + 1, sizeof(int));
        G->rc = (int *) R_alloc((size_t) G->cp[G->p] + 1, sizeof(int));
        G->rv = (double *) R_alloc((size_t) G->cp[G->p] + 1, sizeof(double));
    }
    kw = model_select(G, kw);
    int *idx = G->midx;
    const int mw = kw + q;
    const double cost = model_cost(G, idx, kw);
    if (G->face_credit < cost) return -1;
    G->face_credit -= cost;
    /* the Hessian on [X~_W, U] and the gradient there (z = M'r / n) */
    double *H = G->mH, *z = G->mx + 2 * (size_t) G->model_cap;
    face_system(G, idx, kw, mw, H, z);
    /* b eliminated: Hbb = L L', then H_WW -= H_Wb Hbb^-1 H_bW, z_W -= H_Wb Hbb^-1 z_b */
    double *Hbb = G->work, *Bz = G->du;
    if (q > 0) {
        for (int a = 0; a < q; a++)
            for (int c = 0; c < q; c++) Hbb[a + (size_t) c * q] = H[(kw + a) + (size_t) (kw + c) * mw];
        int info = 0;
        F77_CALL(dpotrf)("L", &G->q, Hbb, &G->q, &info FCONE);
        if (info != 0) return -1;
        /* L^-1 H_bW (q x kw, in place in H's rows kw.., columns 0..kw-1), L^-1 z_b */
        int ld = mw;
        double one = 1.0;
        F77_CALL(dtrsm)("L", "L", "N", "N", &G->q, &kw, &one, Hbb, &G->q, H + kw, &ld
                        FCONE FCONE FCONE FCONE);
        for (int a = 0; a < q; a++) Bz[a] = z[kw + a];
        int inc = 1;
        F77_CALL(dtrsv)("L", "N", "N", &G->q, Hbb, &G->q, Bz, &inc FCONE FCONE FCONE);
        /* H_WW -= B'B, B = L^-1 H_bW (lower triangle); z_W -= B'(L^-1 z_b) */
        double mone = -1.0;
        F77_CALL(dsyrk)("L", "T", &kw, &G->q, &mone, H + kw, &ld, &one, H, &ld FCONE FCONE);
        for (int a = 0; a < kw; a++) {
            double s = 0.0;
            for (int e = 0; e < q; e++) s += H[(kw + e) + (size_t) a * mw] * Bz[e];
            z[a] -= s;
        }
    }
    /* the upper triangle of H_WW from the lower, by blocks (cache) */
    for (int cb = 0; cb < kw; cb += 64)
        for (int ab = cb; ab < kw; ab += 64)
            for (int c = cb; c < cb + 64 && c < kw; c++)
                for (int a = ab > c + 1 ? ab : c + 1; a < ab + 64 && a < kw; a++)
                    H[c + (size_t) a * mw] = H[a + (size_t) c * mw];
    /* the model's minimizer by the active set (model_active_set), else by
     * pairwise Frank-Wolfe on the model: x = theta_W + dtheta, gm = z + H
     * dtheta. (Until issue 25's glmpois the pairwise steps alone: 675k of
     * them in a Poisson CV at 160 x 2000, 57 model steps at their cap.) */
    double *x = G->mx, *x0 = G->mx + G->model_cap, *gm = G->mg;
    double l1 = 0.0;
    for (int a = 0; a < kw; a++) {
        x[a] = x0[a] = G->theta[idx[a]];
        gm[a] = z[a];
        l1 += fabs(x[a]);
    }
    const double r = G->radius;
    double slack = fmax(r - l1, 0.0);
    if (G->slack <= 1e-12 * r) slack = 0.0;
    const double tol = 1e-2 * fmax(G->last_gap, 0.0);
    const int maxit = model_active_set(G, H, mw, kw, z, x0, x, gm, tol, &slack) ? 0 :
        MODEL_ITER * kw + 100;
    int it;
    for (it = 0; it < maxit; it++) {
        int s = 0, a = -1;
        double gx = 0.0, sc = slack > 0.0 ? 0.0 : -INFINITY;
        for (int c = 0; c < kw; c++) {
            if (fabs(gm[c]) > fabs(gm[s])) s = c;
            if (x[c] != 0.0) {
                gx += gm[c] * x[c];
                const double sj = x[c] > 0.0 ? gm[c] : -gm[c];
                if (sj > sc) { sc = sj; a = c; }
            }
        }
        const double gap = gx + r * fabs(gm[s]);
        if (!(gap > tol)) break;
        const double sv = gm[s] < 0.0 ? r : -r;
        const double av = a < 0 ? 0.0 : (x[a] > 0.0 ? r : -r);
        const double gmax = a < 0 ? slack / r : fabs(x[a]) / r;
        const double slope = sv * gm[s] - (a >= 0 ? av * gm[a] : 0.0);
        if (!(slope < 0.0)) break;
        double curv = sv * sv * H[s + (size_t) s * mw];
        if (a >= 0) curv += av * av * H[a + (size_t) a * mw] - 2.0 * sv * av * H[s + (size_t) a * mw];
        double gam = curv > 0.0 ? -slope / curv : gmax;
        const int drop = !(gam < gmax);
        if (drop) gam = gmax;
        if (!(gam > 0.0)) break;
        const double before = fabs(x[s]) + (a >= 0 && a != s ? fabs(x[a]) : 0.0);
        x[s] += gam * sv;
        if (a >= 0) { x[a] -= gam * av; if (drop && a != s) x[a] = 0.0; }
        const double after = fabs(x[s]) + (a >= 0 && a != s ? fabs(x[a]) : 0.0);
        slack = (a < 0 && drop) ? 0.0 : fmax(slack - (after - before), 0.0);
        const double cs_ = gam * sv, ca = a >= 0 ? -gam * av : 0.0;
        const double *hs = H + (size_t) s * mw, *ha = a >= 0 ? H + (size_t) a * mw : NULL;
        for (int c = 0; c < kw; c++) gm[c] += cs_ * hs[c] + (ha ? ca * ha[c] : 0.0);
    }
    /* the direction: d_W = x - theta_W, d_b = -Hbb^-1 (z_b + H_bW d_W) */
    double *d = G->mg;
    for (int a = 0; a < kw; a++) d[a] = x[a] - x0[a];
    /* (z_W was reduced: the directional derivative from the unreduced
     * gradient, recomputed below with d_b) */
    if (q > 0) {
        /* Bz = L^-1 z_b; H rows kw.. = L^-1 H_bW: L' d_b = -(Bz + L^-1 H_bW d_W) */
        for (int e = 0; e < q; e++) {
            double s = Bz[e];
            for (int a = 0; a < kw; a++) s += H[(kw + e) + (size_t) a * mw] * d[a];
            G->gq[e] = -s;
        }
        int inc = 1;
        F77_CALL(dtrsv)("L", "T", "N", &G->q, Hbb, &G->q, G->gq, &inc FCONE FCONE FCONE);
    }
    return model_move(P, G, idx, kw, x, x0, d, slack);
}

static int face_newton(cg_problem *P);

/* after a pairwise step: a model step, or a face step where it does not
 * apply. Once the pairwise step's vertex was in the support already (the
 * support found: the end game), the face step first (Newton on the face,
 * exact there: it reaches the rounding level the model step's inner
 * tolerances do not, and its Hessian is on the support alone, where the
 * model step's is on about twice as many columns), the model step if the
 * face step's credit was short. (Dense X took the model step first until
 * issue 25's glmcv: at p >> n its inner pairwise steps on an
 * ill-conditioned model near interpolation were half of a Poisson CV's
 * time at 160 x 2000, 8.2 -> 1.5 CPU s; binomial 1600 x 100 CV 1.64 ->
 * 1.36 s, the same choices.) */
static int glm_face_step(cg_problem *P)
{
    glm *G = (glm *) P->self;
    if (!G->face_on) return 0;
    if (!G->s_new) {
        if (face_newton(P)) return 1;
        /* (below about 1e-6 of the loss, the model step's inexact inner
         * solve stalls: the face and pairwise steps finish) */
        return G->last_gap > 1e-6 * G->fscale && glm_model_step(P, G) > 0;
    }
    const int taken = glm_model_step(P, G);
    if (taken != 0) return taken > 0;
    return face_newton(P);
}

static int face_newton(cg_problem *P)
{
    glm *G = (glm *) P->self;
    const int n = G->n, q = G->q, k = G->n_support, m = k + q;
    if (!G->face_on || k < 1 || m >= n || (!G->sparse && m > FACE_MAX) ||
        (!G->sparse && (double) n * m > 8388608.0))
        return 0;
    /* (a lower bound first: no O(k) count of the support's nonzeros while
     * the credit is below it: the factorization's m^3 / 3, or the
     * conjugate gradients' passes over n) */
    const double mm = (double) m, cube = mm * mm * mm / 3.0;
    if (G->face_credit < (G->sparse ? fmin(4.0 * FACE_CG_ITER * n, cube) : cube)) return 0;
    double cost = m > FACE_MAX ? INFINITY : face_cost(G, k);
    int cg = 0;
    if (G->sparse && m > FACE_CG_MIN) {
        double nnz = 0.0;
        for (int a = 0; a < k; a++) nnz += G->cp[G->support[a] + 1] - G->cp[G->support[a]];
        const double c_cg = 2.0 * FACE_CG_ITER * (4.0 * nnz + 4.0 * n * q + 2.0 * n + 10.0 * m);
        if (c_cg < cost) { cost = c_cg; cg = 1; }
    }
    if (G->face_credit < cost) return 0;
    G->face_credit -= cost;
    if (m > G->face_cap) {
        int cap = 2 * G->face_cap;
        if (cap < m) cap = m;
        if (cap < 16) cap = 16;
        if (!cg && cap > FACE_MAX) cap = FACE_MAX;
        fm_room(G, cap);
        if (!cg) G->fH = cg_zeros((size_t) cap * cap);
        else G->fH = NULL;                    /* (allocated again when a small face needs it) */
        G->fz = cg_zeros((size_t) 2 * cap);
        G->fc = cg_zeros(cap); G->fd = cg_zeros(cap); G->fsig = cg_zeros(cap);
        G->fcg = cg_zeros((size_t) 3 * cap);
        G->fks = (int *) R_alloc(cap, sizeof(int));
        G->face_cap = cap;
    }
    if (!cg && G->fH == NULL) G->fH = cg_zeros((size_t) G->face_cap * G->face_cap);
    if (G->sparse && G->rp == NULL) {
        G->rp = (int *) R_alloc((size_t) n + 1, sizeof(int));
        G->rc = (int *) R_alloc((size_t) G->cp[G->p] + 1, sizeof(int));
        G->rv = (double *) R_alloc((size_t) G->cp[G->p] + 1, sizeof(double));
    }
    double *H = G->fH, *z1 = G->fz, *z2 = G->fz + m, *c = G->fc, *d = G->fd;
    for (int a = 0; a < m; a++)
        c[a] = a < k ? (G->theta[G->support[a]] > 0.0 ? 1.0 : -1.0) : 0.0;
    int info = 0, nrhs = 1;
    double gd0 = 0.0;
    const int sphere = G->slack <= 1e-12 * G->radius;
    double *hr = G->etab, *rr = G->res;
    if (cg) {
        for (int i = 0; i < n; i++) {
            hr[i] = G->w[i] * G->curv[i] / n;
            rr[i] = G->w[i] * (G->mu[i] - G->y[i]) / n;
        }
        face_mt(G, k, rr, d);                       /* the gradient */
        double *r = G->fcg, *pv = G->fcg + m, *hp = G->fcg + 2 * m;
        int used = face_cg(G, k, m, hr, d, z1, r, pv, hp, G->mub);
        if (sphere) used += face_cg(G, k, m, hr, c, z2, r, pv, hp, G->mub);
        /* paid for the products taken: the rest of the estimate back */
        G->face_credit += cost * (1.0 - used / (2.0 * FACE_CG_ITER));
    } else {
        face_system(G, G->support, k, m, H, z1);
        /* (dense: H's upper triangle holds H too, untouched by dpotrf("L");
         * the diagonal kept) */
        for (int a = 0; a < m && !G->sparse; a++) G->fsig[a] = H[a + (size_t) a * m];
        F77_CALL(dpotrf)("L", &m, H, &m, &info FCONE);
        if (info != 0 && !G->sparse) {
            /* singular on the face (collinear columns: a factor's dummies
             * and the intercept, covariates constant within the factor's
             * levels): H + 1e-10 mean(diag H) I, about the minimum-norm
             * Newton step (the gradient is in H's range; on the sphere the
             * multiplier's direction moves along H's null space, where eta
             * does not change, to keep the l1 norm), checked by the
             * backtracking on the exact loss. Without it MASS::epil's CV
             * (poisson 189 x 68) refused 864 of 1784 face steps and a fit
             * took ~30 pairwise steps (issue 25, glmcd). */
            double tr = 0.0;
            for (int a = 0; a < m; a++) tr += G->fsig[a];
            for (int a = 0; a < m; a++) {
                H[a + (size_t) a * m] = G->fsig[a] + 1e-10 * tr / m + 1e-300;
                for (int e = a + 1; e < m; e++) H[e + (size_t) a * m] = H[a + (size_t) e * m];
            }
            F77_CALL(dpotrf)("L", &m, H, &m, &info FCONE);
        }
        if (info != 0) return 0;                  /* singular on the face: pairwise steps */
        for (int a = 0; a < m; a++) d[a] = z1[a];
        F77_CALL(dpotrs)("L", &m, &nrhs, H, &m, z1, &m, &info FCONE);   /* H^-1 grad */
    }
    int constrained = 0;
    if (sphere) {
        if (!cg) {
            memcpy(z2, c, sizeof(double) * m);
            F77_CALL(dpotrs)("L", &m, &nrhs, H, &m, z2, &m, &info FCONE);  /* H^-1 c */
        }
        double cz1 = 0.0, cz2 = 0.0;
        for (int a = 0; a < m; a++) { cz1 += c[a] * z1[a]; cz2 += c[a] * z2[a]; }
        const double nu = cz2 > 0.0 ? -cz1 / cz2 : 0.0;
        if (nu >= 0.0) {
            constrained = 1;
            for (int a = 0; a < m; a++) z1[a] += nu * z2[a];
        }
    }
    /* d = -z1; d'grad < 0 */
    for (int a = 0; a < m; a++) { gd0 -= d[a] * z1[a]; d[a] = -z1[a]; }
    if (!(gd0 < 0.0)) return 0;
    /* how far the signs and the ball allow */
    double tmax = 1.0, cd = 0.0;
    int hit = -1;
    for (int a = 0; a < k; a++) {
        const double th = G->theta[G->support[a]];
        cd += c[a] * d[a];
        if (th * d[a] < 0.0 && -th / d[a] < tmax) { tmax = -th / d[a]; hit = a; }
    }
    if (!constrained && cd > 0.0 && G->slack / cd < tmax) { tmax = G->slack / cd; hit = -2; }
    if (!(tmax > 0.0)) return 0;
    /* deta = [X~_S, U] d, backtracking on the exact loss */
    memset(G->deta, 0, sizeof(double) * n);
    for (int a = 0; a < m; a++) {
        if (a < k) col_axpy(G, G->support[a], d[a], G->deta);
        else {
            int inc = 1; double da = d[a];
            F77_CALL(daxpy)(&G->n, &da, G->U + (size_t) (a - k) * n, &inc, G->deta, &inc);
        }
    }
    double t = tmax, f1 = 0.0;
    int tested;
    const int ok = backtrack_eta(G, gd0, &t, &tested, &f1);
    if (t < tmax) hit = -1;          /* backtracked: no coefficient reached zero */
    if (!ok) return 0;
    /* move: the support's coefficients (signs kept; the one that reached
     * zero leaves exactly), b, eta */
    double l1 = 0.0;
    int *ks = G->fks;
    for (int a = 0; a < k; a++) ks[a] = G->support[a];
    for (int a = 0; a < k; a++) {
        const int j = ks[a];
        double th = G->theta[j] + t * d[a];
        if (a == hit || th * c[a] <= 0.0) th = 0.0;
        G->theta[j] = th;
        l1 += fabs(th);
    }
    for (int a = 0; a < k; a++) support_update(G, ks[a]);
    for (int a = 0; a < q; a++) G->b[a] += t * d[k + a];
    /* on the hyperplane (or reaching it): on the sphere exactly */
    commit_step(P, G, (constrained || hit == -2) ? 0.0 : fmax(G->radius - l1, 0.0), tested, f1);
    return 1;
}

/* lazy: b minimized on a copy of the iterate (bx, etax, and mu, curv, ge
 * there), the iterate left as it was; returns whether b moved */
static int profiled_copy(cg_problem *P, glm *G)
{
    const int n = G->n, q = G->q;
    memcpy(G->sv_eta, G->eta, sizeof(double) * n);
    memcpy(G->sv_mu, G->mu, sizeof(double) * n);
    memcpy(G->sv_curv, G->curv, sizeof(double) * n);
    memcpy(G->bx, G->b, sizeof(double) * q);
    memcpy(G->sv_H, G->Hs, sizeof(double) * q * q);
    const int moved = profile(P, G);
    if (moved) {
        memcpy(G->etax, G->eta, sizeof(double) * n);
        for (int a = 0; a < q; a++) { const double t = G->b[a]; G->b[a] = G->bx[a]; G->bx[a] = t; }
    } else {
        memcpy(G->etax, G->sv_eta, sizeof(double) * n);
    }
    return moved;
}

/* ... and the iterate restored (after the caller read mu there) */
static void restore_copy(glm *G)
{
    const int n = G->n, q = G->q;
    memcpy(G->eta, G->sv_eta, sizeof(double) * n);
    memcpy(G->mu, G->sv_mu, sizeof(double) * n);
    memcpy(G->curv, G->sv_curv, sizeof(double) * n);
    memcpy(G->Hs, G->sv_H, sizeof(double) * q * q);
}

static void glm_evaluate(cg_problem *P, double *obj, double *gap)
{
    glm *G = (glm *) P->self;
    double *g = G->ge;
    if (G->lazy && G->q > 0) {
        /* the stated problem at theta: b minimized (on a copy) */
        const double fval = G->fval, fscale = G->fscale;
        const int fval_ok = G->fval_ok;
        const int moved = profiled_copy(P, G);
        *obj = (!moved && fval_ok) ? fval : loss_at(G, G->eta);
        full_gradient(G, g);                /* (g as the steps kept it: not afresh) */
        G->ge_at = moved ? -1.0 : G->moves;
        restore_copy(G);
        G->fval = fval; G->fscale = fscale; G->fval_ok = fval_ok;
    } else {
        /* (the loss kept, when it is at eta, is loss_at(eta): the same number) */
        *obj = G->fval_ok ? G->fval : loss_at(G, G->eta);
        if (G->g_at == G->moves) memcpy(g, G->g, sizeof(double) * G->p);
        else full_gradient(G, g);
        G->ge_at = G->moves;
    }
    double gx = 0.0, gmax = 0.0;
    for (int j = 0; j < G->p; j++) {
        gx += g[j] * G->theta[j];
        if (fabs(g[j]) > gmax) gmax = fabs(g[j]);
    }
    *gap = gx + G->radius * gmax;
    if (!R_FINITE(*gap)) *gap = R_PosInf;
}

static double glm_epoch(cg_problem *P)
{
    glm *G = (glm *) P->self;
    return G->rows_read / G->n;
}

static long glm_n_matvec(cg_problem *P) { return (long) ((glm *) P->self)->matvec; }

static void glm_resume(glm *G, SEXP spec);

static const cg_pair_ops glm_pair = {glm_gradient, glm_lmo, glm_pair_direction,
                                     glm_pair_step, glm_face_step};

int cg_problem_glm(cg_problem *P, SEXP spec)
{
    glm *G = (glm *) R_alloc(1, sizeof(glm));
    memset(G, 0, sizeof(glm));
    G->n = asInteger(cg_list_get(spec, "n"));
    G->p = asInteger(cg_list_get(spec, "p"));
    G->q = asInteger(cg_list_get(spec, "q"));
    G->family = asInteger(cg_list_get(spec, "family"));
    G->sparse = asLogical(cg_list_get(spec, "sparse")) == TRUE;
    const int n = G->n, p = G->p, q = G->q;
    if (n < 1 || p < 1 || q < 0 || q > n || G->family < FAM_GAUSSIAN || G->family > FAM_BINOMIAL)
        error("spec: invalid glm dimensions or family");
    G->radius = asReal(cg_list_get(spec, "radius"));
    G->offset = asReal(cg_list_get(spec, "loss_offset"));
    if (!(G->radius > 0) || !R_FINITE(G->radius) || !R_FINITE(G->offset))
        error("spec: invalid radius or loss_offset");
    if (G->sparse) {
        const R_xlen_t nnz = XLENGTH(cg_list_get(spec, "col_i"));
        G->cp = cg_spec_pointers(spec, "col_p", p, nnz);
        G->ri = cg_spec_index(spec, "col_i", nnz, 0, n - 1);
        G->cx = cg_spec_real(spec, "col_x", nnz);
        /* lazy steps: X by rows too, and a small unpenalized block */
        if (!isNull(cg_list_get(spec, "row_p")) && q <= 8) {
            G->rp2 = cg_spec_pointers(spec, "row_p", n, nnz);
            G->rj = cg_spec_index(spec, "row_j", nnz, 0, p - 1);
            G->rx = cg_spec_real(spec, "row_x", nnz);
            G->lazy = 1;
        }
    } else {
        G->X = cg_spec_real(spec, "X", (R_xlen_t) n * p);
    }
    G->cs = cg_spec_real(spec, "col_scale", p);
    G->U = q > 0 ? cg_spec_real(spec, "U", (R_xlen_t) n * q) : NULL;
    G->y = cg_spec_real(spec, "y", n);
    G->w = cg_spec_real(spec, "weights", n);
    G->theta = cg_zeros(p); G->g = cg_zeros(p);
    G->b = cg_zeros(q > 0 ? q : 1);
    G->eta = cg_zeros(n); G->mu = cg_zeros(n); G->curv = cg_zeros(n);
    G->res = cg_zeros(n); G->deta = cg_zeros(n); G->etab = cg_zeros(n);
    G->mub = cg_zeros(n); G->curvb = cg_zeros(n);
    G->H = cg_zeros((size_t) q * q + 1); G->gq = cg_zeros(q + 1); G->du = cg_zeros(q + 1);
    G->work = cg_zeros((size_t) q * q + 1);      /* Cholesky */
    G->ge = cg_zeros(p);
    G->g_at = G->ge_at = -1.0;
    G->gqi = cg_zeros(q + 1); G->Hs = cg_zeros((size_t) q * q + 1); G->bx = cg_zeros(q + 1);
    if (G->lazy) {
        G->etax = cg_zeros(n); G->sv_eta = cg_zeros(n); G->sv_mu = cg_zeros(n);
        G->sv_curv = cg_zeros(n); G->sv_H = cg_zeros((size_t) q * q + 1);
    }
    G->support = (int *) R_alloc(p, sizeof(int));
    G->in_support = (int *) R_alloc(p, sizeof(int));
    G->nrows = -1;
    if (G->sparse) {
        G->rows = (int *) R_alloc(n, sizeof(int));
        G->mark = (int *) R_alloc(n, sizeof(int));
        for (int i = 0; i < n; i++) G->mark[i] = 0;
    }
    for (int j = 0; j < p; j++) G->in_support[j] = -1;
    /* warm start: theta (in the ball, checked in R) and b */
    if (!isNull(cg_list_get(spec, "init_beta")))
        memcpy(G->theta, cg_spec_real(spec, "init_beta", p), sizeof(double) * p);
    if (q > 0 && !isNull(cg_list_get(spec, "init_b")))
        memcpy(G->b, cg_spec_real(spec, "init_b", q), sizeof(double) * q);
    G->face_on = asLogical(cg_list_get(spec, "face_step")) != FALSE;
    P->self = G;
    P->evaluate = glm_evaluate; P->epoch = glm_epoch; P->n_matvec = glm_n_matvec;
    P->svd_rank = 0;
    P->pair = &glm_pair;
    if (!isNull(cg_list_get(spec, "state_eta"))) {
        glm_resume(G, spec);
        return CG_OK;
    }
    double l1 = 0.0;
    for (int j = 0; j < p; j++) {
        support_update(G, j);
        l1 += fabs(G->theta[j]);
        if (G->theta[j] != 0.0) col_axpy(G, j, G->theta[j], G->eta);
    }
    G->slack = fmax(G->radius - l1, 0.0);
    for (int a = 0; a < q; a++) {
        int inc = 1; double c = G->b[a];
        F77_CALL(daxpy)(&G->n, &c, G->U + (size_t) a * n, &inc, G->eta, &inc);
    }
    refresh(G);
    loss_now(G);
    /* a warm start's support is the best guess of the solution's */
    if (!isNull(cg_list_get(spec, "init_beta"))) G->face_credit = warm_credit(G);
    profile(P, G);
    return CG_OK;
}

/* A path (cg_solve_path_call): the problem at a larger radius, warm-started
 * from the solution at the last, exactly as cg_problem_glm builds it from
 * init_beta and init_b = that solution (the support in coordinate order,
 * eta recomputed from theta and b, the slack, the face step's credit, b
 * profiled): the same start as a separate fit with init = the last fit. */
void cg_glm_restart(cg_problem *P, double radius)
{
    glm *G = (glm *) P->self;
    const int n = G->n, p = G->p, q = G->q;
    /* lazy: b as the fit reported it (minimized, cg_glm_solution) */
    if (G->lazy && q > 0) memcpy(G->b, G->bx, sizeof(double) * q);
    G->g_ok = 0;
    G->last_gap = 0.0;
    for (int k = 0; k < G->n_support; k++) G->in_support[G->support[k]] = -1;
    G->n_support = 0;
    memset(G->eta, 0, sizeof(double) * n);
    double l1 = 0.0;
    for (int j = 0; j < p; j++) {
        support_update(G, j);
        l1 += fabs(G->theta[j]);
        if (G->theta[j] != 0.0) col_axpy(G, j, G->theta[j], G->eta);
    }
    if (!(l1 <= radius) || !R_FINITE(radius)) error("spec: a path's radii must increase");
    G->radius = radius;
    G->slack = fmax(radius - l1, 0.0);
    for (int a = 0; a < q; a++) {
        int inc = 1; double c = G->b[a];
        F77_CALL(daxpy)(&G->n, &c, G->U + (size_t) a * n, &inc, G->eta, &inc);
    }
    refresh(G);
    loss_now(G);
    G->face_credit = warm_credit(G);
    G->face_steps = 0.0;
    G->rows_read = G->rows_reported = 0.0;
    G->matvec = 0.0;
    G->moves += 1.0;
    P->stop = 0;
    P->failure[0] = '\0';
    memset(&P->loop, 0, sizeof(P->loop));
    profile(P, G);
}

/* ------------------------------------------------- exact continuation
 * init = a fit of the same data and settings (checked in R): the state its
 * run ended with, so that the next steps are those of one longer run:
 * theta and b (init_beta, init_b as they were), the linear predictor as
 * the steps updated it (not recomputed: rounding), the support in its
 * order (the away vertex and the face step scan it in that order) and the
 * scalars below. The mean and curvature are recomputed from eta: the same
 * numbers. */
enum { GS_SLACK, GS_CREDIT, GS_FACE_STEPS, GS_ROWS_READ, GS_ROWS_REPORTED, GS_FVAL,
       GS_FSCALE, GS_FVAL_OK, GS_G_OK, GS_LAST_GAP, GS_N };

static void glm_resume(glm *G, SEXP spec)
{
    const int n = G->n, p = G->p;
    memcpy(G->eta, cg_spec_real(spec, "state_eta", n), sizeof(double) * n);
    if (!cg_all_finite(G->eta, (size_t) n)) error("spec: invalid glm state");
    const R_xlen_t ns = XLENGTH(cg_list_get(spec, "state_support"));
    if (ns > p) error("spec: invalid glm state");
    const int *sup = cg_spec_index(spec, "state_support", ns, 0, p - 1);
    int nonzero = 0;
    for (int j = 0; j < p; j++) nonzero += G->theta[j] != 0.0;
    for (R_xlen_t k = 0; k < ns; k++) {
        const int j = sup[k];
        if (G->theta[j] == 0.0 || G->in_support[j] >= 0) error("spec: invalid glm state");
        G->in_support[j] = (int) k;
        G->support[k] = j;
    }
    G->n_support = (int) ns;
    if (ns != nonzero) error("spec: invalid glm state");
    const double *v = cg_spec_real(spec, "state_glm", GS_N);
    for (int i = 0; i < GS_N; i++)
        if (!R_FINITE(v[i])) error("spec: invalid glm state");
    if (v[GS_SLACK] < 0 || v[GS_SLACK] > G->radius || v[GS_CREDIT] < 0 || v[GS_FACE_STEPS] < 0 ||
        v[GS_ROWS_READ] < 0 || v[GS_ROWS_REPORTED] < 0 || v[GS_FSCALE] < 0)
        error("spec: invalid glm state");
    G->slack = v[GS_SLACK]; G->face_credit = v[GS_CREDIT]; G->face_steps = v[GS_FACE_STEPS];
    G->rows_read = v[GS_ROWS_READ]; G->rows_reported = v[GS_ROWS_REPORTED];
    refresh(G);
    G->fval = v[GS_FVAL]; G->fscale = v[GS_FSCALE]; G->fval_ok = v[GS_FVAL_OK] != 0.0;
    G->last_gap = v[GS_LAST_GAP];
    /* lazy: g, gq as the steps updated them, the profile's factor */
    if (G->lazy) {
        G->g_ok = v[GS_G_OK] != 0.0;
        memcpy(G->g, cg_spec_real(spec, "state_g", p), sizeof(double) * p);
        memcpy(G->gqi, cg_spec_real(spec, "state_gq", G->q), sizeof(double) * G->q);
        memcpy(G->Hs, cg_spec_real(spec, "state_H", (R_xlen_t) G->q * G->q),
               sizeof(double) * G->q * G->q);
        if (!cg_all_finite(G->g, (size_t) p) || !cg_all_finite(G->gqi, (size_t) G->q) ||
            !cg_all_finite(G->Hs, (size_t) G->q * G->q))
            error("spec: invalid glm state");
        if (G->g_ok) G->g_at = G->moves;
    }
    /* the run's first evaluation (at iteration 0) is the one the fit ended
     * with (its last iterate is always evaluated), and was counted there */
    G->matvec = -1.0;
}

static SEXP glm_state(const glm *G)
{
    SEXP v = PROTECT(allocVector(REALSXP, GS_N));
    double *x = REAL(v);
    x[GS_SLACK] = G->slack; x[GS_CREDIT] = G->face_credit; x[GS_FACE_STEPS] = G->face_steps;
    x[GS_ROWS_READ] = G->rows_read; x[GS_ROWS_REPORTED] = G->rows_reported;
    x[GS_FVAL] = G->fval; x[GS_FSCALE] = G->fscale; x[GS_FVAL_OK] = G->fval_ok;
    x[GS_G_OK] = G->g_ok; x[GS_LAST_GAP] = G->last_gap;
    UNPROTECT(1);
    return v;
}

/* a new R vector holding x[0..k-1] */
static SEXP real_copy(const double *x, R_xlen_t k)
{
    SEXP v = allocVector(REALSXP, k);
    if (k) memcpy(REAL(v), x, sizeof(double) * k);
    return v;
}

/* the fit's b: minimized at theta (lazy: on a copy, kept in bx for a
 * path's next radius, with its linear predictor in etax) */
static const double *fit_b(cg_problem *P, glm *G)
{
    if (!(G->lazy && G->q > 0)) return G->b;
    const double fval = G->fval, fscale = G->fscale;
    const int fval_ok = G->fval_ok;
    profiled_copy(P, G);
    restore_copy(G);
    G->fval = fval; G->fscale = fscale; G->fval_ok = fval_ok;
    return G->bx;
}

SEXP cg_glm_solution(cg_problem *P)
{
    glm *G = (glm *) P->self;
    const int n = G->n, q = G->q;
    static const char *names[] = {"beta", "b", "eta", "face_steps", "state_support",
                                  "state_glm", "state_eta", "state_b", "state_g", "state_gq",
                                  "state_H", ""};
    SEXP out = PROTECT(mkNamed(VECSXP, names));
    SET_VECTOR_ELT(out, 0, real_copy(G->theta, G->p));
    /* the fit: b minimized at theta; the state: the iterate as it is */
    const double *b = fit_b(P, G);
    const double *eta = (G->lazy && q > 0) ? G->etax : G->eta;
    SET_VECTOR_ELT(out, 1, real_copy(b, q));
    SET_VECTOR_ELT(out, 2, real_copy(eta, n));
    SET_VECTOR_ELT(out, 3, ScalarReal(G->face_steps));
    SEXP sup = allocVector(INTSXP, G->n_support);
    SET_VECTOR_ELT(out, 4, sup);
    if (G->n_support) memcpy(INTEGER(sup), G->support, sizeof(int) * G->n_support);
    SET_VECTOR_ELT(out, 5, glm_state(G));
    SET_VECTOR_ELT(out, 6, real_copy(G->eta, n));
    SET_VECTOR_ELT(out, 7, real_copy(G->b, q));
    if (G->lazy) {
        SET_VECTOR_ELT(out, 8, real_copy(G->g, G->p));
        SET_VECTOR_ELT(out, 9, real_copy(G->gqi, q));
        SET_VECTOR_ELT(out, 10, real_copy(G->Hs, (R_xlen_t) q * q));
    }
    UNPROTECT(1);
    return out;
}

/* a CV fold path's lean result (dispatch.c; R/regression-family.R,
 * glm_lean_fit()): theta and b as cg_glm_solution gives them, without the
 * linear predictor, the state and their copies (the whole solution of every
 * fold fit was a tenth of a binomial CV's time at 1600 x 100: R vectors of
 * n allocated and dropped per fit) */
SEXP cg_glm_beta(cg_problem *P)
{
    glm *G = (glm *) P->self;
    static const char *names[] = {"beta", "b", ""};
    SEXP out = PROTECT(mkNamed(VECSXP, names));
    SET_VECTOR_ELT(out, 0, real_copy(G->theta, G->p));
    SET_VECTOR_ELT(out, 1, real_copy(fit_b(P, G), G->q));
    UNPROTECT(1);
    return out;
}
