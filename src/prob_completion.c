/* Matrix completion over the nuclear-norm ball with exponential-family
 * likelihoods (Lafond et al. 2015, section 3.2):
 *   min_theta  1/N sum_k [A(theta_{i_k j_k}) - y_k theta_{i_k j_k}]
 *   s.t. ||theta||_* <= radius,
 * A(x) = x^2/2 (gaussian; reported as 1/(2N) sum (y - theta)^2), exp(x)
 * (poisson), log(1 + e^x) (binomial, y in {0, 1}).
 *
 * Observations are streamed in minibatches (sampler) and summed per cell
 * into the paper's statistics S2 (counts) and S1 (sums of y), so the
 * gradient estimate S2 * A'(theta) - S1 is a sparse matrix on the cells seen
 * so far ("touched"), however often a cell is observed. The FW iterate is a
 * set of rank-one atoms plus its values on the touched cells: an iteration
 * costs O(touched cells + m + n) after the LMO. The LMO's Lanczos runs to a
 * looser tolerance than the trace's gap (FW needs only an approximate LMO,
 * and the gap used to stop is confirmed by the full evaluation); see
 * inst/bench/lmo.R. The projected-gradient baseline keeps
 * theta dense (its full SVD needs the dense matrix anyway).
 *
 * Rank control. Each FW step adds an atom, so after T steps the iterate has
 * rank up to min(T, m, n) though the solution has low rank: the LMO atoms
 * lie close to the solution's singular subspaces but each leaves a small
 * component outside. When the atom count doubles, the atoms are rewritten
 * as the thin SVD of their sum (exact, O((m + n) k^2)) and the trailing
 * singular directions are dropped, the rest rescaled to keep the nuclear
 * norm (a move within the ball; near the optimum its first-order change
 * cancels, <G, u v'> being about -sigma_1(G) on the solution's subspace).
 * Directions are dropped while the estimated objective rises by at most
 * DROP_SHARE of the progress expected since the last compression, estimated
 * as gap * (iterations since) / iterations, so FW's rate is kept. The
 * returned iterate is the algorithm's own (its objective and gap are
 * evaluated there), and the total rise is reported. */
#include "stochcg.h"
#include "prob_sampler.h"
#include <string.h>
#include <math.h>

enum { FAM_GAUSSIAN = 0, FAM_POISSON = 1, FAM_BINOMIAL = 2 };
#define WEIGHT_STEPS 5
#define FINAL_WEIGHT_STEPS 50

typedef struct {
    int m, n, N, C, family, dense;
    const int *cell;               /* observation -> cell (N) */
    const int *crow, *ccol;        /* cell coordinates (C) */
    const double *y;
    double radius;
    cg_sampler smp;
    int *batch_idx;
    double *cnt, *sy;              /* per cell: draws and sum of drawn y */
    double *Ncell, *Ycell, *YYcell;/* per cell, all data: count, sum y, sum y^2 */
    int nt, *tc, *trow, *tcol;     /* touched cells, in order first drawn */
    double *th, *gval, *sval;      /* per touched cell */
    cg_atoms atoms;
    double *theta;                 /* dense m x n (projected gradient only) */
    double *fu, *fd, *fv;          /* its thin SVD from the last projection, */
    int frank;                     /* of rank frank (-1: unknown) */
    double *u, *v, sigma;          /* last LMO pair: s = -radius u v' */
    double lmo_tol;                /* Lanczos tolerance of the LMO */
    /* rank control (atoms only): compression to thin SVD when the atom count
     * doubles, then dropping of trailing singular directions */
    int iter, max_iter, k_kept, n_dropped;
    double *tail, *trial, *kept;
    double *gfull, *thfull, *eu, *ev;   /* trace-only scratch */
    long n_matvec;
    /* composite problems (paper 003 eqs. 18-19; homotopy table): the
     * gaussian loss plus g(X) on every entry, so X is dense */
    int composite;                 /* COMPOSITE_* */
    double lo, hi, lambda;         /* the box, or the l1 weight */
    double *X, *V;                 /* iterate and gradient estimate, m x n */
    double *alpha;                 /* SAG table, one per observation */
    double *vf;                    /* f's estimate per cell: SAG sum or SHCGM's d */
    int k_compress;                /* atoms after the last compression */
    /* per evaluation (trace row): ||X||_F, RMSE on the observations and on
     * held-out entries (ntest of them, linear indices test_at) */
    double *xnorm, *rmse_train, *rmse_test; int nx, xcap;
    int ntest; const int *test_at; const double *test_y;
} completion;

enum { COMPOSITE_NONE = 0, COMPOSITE_BOX = 1, COMPOSITE_L1 = 2 };

static double mean_fn(int fam, double x)   /* A'(x) */
{
    switch (fam) {
    case FAM_POISSON: return exp(x);
    case FAM_BINOMIAL: return 1.0 / (1.0 + exp(-x));
    default: return x;
    }
}

static double log_partition(int fam, double x)   /* A(x) */
{
    switch (fam) {
    case FAM_POISSON: return exp(x);
    case FAM_BINOMIAL: return x > 0 ? x + log1p(exp(-x)) : log1p(exp(x));
    default: return 0.5 * x * x;
    }
}

static double cell_value(const completion *C, int c)
{
    return C->dense ? C->theta[C->crow[c] + (size_t) C->ccol[c] * C->m]
                    : cg_atoms_entry(&C->atoms, C->crow[c], C->ccol[c]);
}

/* Why the gradient or the objective is not finite: exp() of the Poisson
 * family overflows once an entry of theta exceeds log(DBL_MAX) ~ 709.8;
 * otherwise the data or the radius are too large for double precision. */
static void overflow_failure(cg_problem *P, const completion *C, const double *th, int n,
                             const char *what)
{
    double big = 0.0;
    for (int t = 0; t < n; t++) if (th[t] > big) big = th[t];
    if (C->family == FAM_POISSON && big > 709.78)
        cg_fail(P, "exp() overflowed in the Poisson likelihood: an entry of the fit is %.4g "
                "(above log(.Machine$double.xmax) = 709.78); reduce the radius (%g)",
                big, C->radius);
    else
        cg_fail(P, "%s " CG_OVERFLOW_HINT, what);
}

static double mc_gradient(cg_problem *P, int batch)
{
    completion *C = (completion *) P->self;
    int nb = cg_sampler_next(&C->smp, C->batch_idx, batch);
    for (int b = 0; b < nb; b++) {
        int k = C->batch_idx[b], c = C->cell[k];
        if (C->cnt[c] == 0) {             /* first draw of this cell */
            int t = C->nt++;
            C->tc[t] = c; C->trow[t] = C->crow[c]; C->tcol[t] = C->ccol[c];
            C->th[t] = cell_value(C, c);
        }
        C->cnt[c] += 1;
        C->sy[c] += C->y[k];
    }
    const double inv = 1.0 / C->smp.drawn;
    for (int t = 0; t < C->nt; t++) {
        int c = C->tc[t];
        if (C->dense) C->th[t] = cell_value(C, c);
        C->gval[t] = (C->cnt[c] * mean_fn(C->family, C->th[t]) - C->sy[c]) * inv;
    }
    if (!cg_all_finite(C->gval, (size_t) C->nt))
        overflow_failure(P, C, C->th, C->nt, "the gradient");
    return nb;
}

static double mc_lmo(cg_problem *P)
{
    completion *C = (completion *) P->self;
    cg_linop G; cg_coo_data Gd;
    cg_linop_coo(&G, &Gd, C->m, C->n, C->nt, C->trow, C->tcol, C->gval);
    int st = cg_lmo_nuclear(&G, C->radius, C->u, C->v, &C->sigma, C->lmo_tol);
    C->n_matvec += G.n_matvec;
    P->svd_rank = 1;
    if (st != CG_OK) {
        cg_fail_status(P, st, "the linear minimization oracle");
        return NA_REAL;
    }
    double gx = 0.0;
    for (int t = 0; t < C->nt; t++) {
        C->sval[t] = -C->radius * C->u[C->trow[t]] * C->v[C->tcol[t]];
        gx += C->gval[t] * C->th[t];
    }
    return gx + C->radius * C->sigma;      /* <g, x> - <g, s> */
}

/* exact step for the gaussian (quadratic) estimated objective */
static double mc_line_search(cg_problem *P)
{
    completion *C = (completion *) P->self;
    if (C->family != FAM_GAUSSIAN) return -1.0;
    double gd = 0.0, dd = 0.0;
    for (int t = 0; t < C->nt; t++) {
        double d = C->sval[t] - C->th[t];
        gd += C->gval[t] * d;
        dd += C->cnt[C->tc[t]] * d * d;
    }
    dd /= C->smp.drawn;
    if (dd <= 0) return gd < 0 ? 1.0 : 0.0;
    return fmin(1.0, fmax(0.0, -gd / dd));
}

/* estimated objective (drawn statistics) at values x on the touched cells */
static double estimated_objective(const completion *C, const double *x)
{
    double f = 0.0;
    for (int t = 0; t < C->nt; t++) {
        int c = C->tc[t];
        f += C->cnt[c] * log_partition(C->family, x[t]) - C->sy[c] * x[t];
    }
    return f / C->smp.drawn;
}

/* second derivative A''(x) */
static double curvature(int fam, double x)
{
    switch (fam) {
    case FAM_POISSON: return exp(x);
    case FAM_BINOMIAL: { double p = 1.0 / (1.0 + exp(-x)); return p * (1.0 - p); }
    default: return 1.0;
    }
}

/* Compress the atoms to thin SVD, then take projected-gradient steps on
 * their weights over {w >= 0, sum w <= radius} (see "Rank control" above).
 * The step 1/max_j H_jj uses the diagonal of the weights' Hessian, the
 * step length along the projected direction comes from the quadratic model
 * (exact for gaussian), halved until the estimated objective decreases. */
static void mc_reduce_rank(cg_problem *P, int steps)
{
    completion *C = (completion *) P->self;
    cg_atoms *a = &C->atoms;
    const int st = cg_atoms_compress(a);
    if (st != CG_OK) { cg_fail_status(P, st, "the compression of the iterate"); return; }
    const int nt = C->nt, fam = C->family;
    const double inv = 1.0 / C->smp.drawn;
    double *g = C->tail, *D = C->trial, *x = C->kept;
    const void *vmax = vmaxget();
    for (int step = 0; step < steps && a->k > 1; step++) {
        const int k = a->k;
        double *h = (double *) R_alloc(k, sizeof(double));
        double *wn = (double *) R_alloc(3 * (size_t) k, sizeof(double));
        double *pw = wn + k;
        for (int t = 0; t < nt; t++) {
            const int c = C->tc[t];
            g[t] = (C->cnt[c] * mean_fn(fam, C->th[t]) - C->sy[c]) * inv;
            D[t] = C->cnt[c] * curvature(fam, C->th[t]) * inv;     /* Hessian weights */
        }
        double hmax = 0.0;
        for (int j = 0; j < k; j++) {
            const double *u = a->u + (size_t) j * a->m, *v = a->v + (size_t) j * a->n;
            double sh = 0.0, sd = 0.0;
            for (int t = 0; t < nt; t++) {
                const double e = u[C->trow[t]] * v[C->tcol[t]];
                sh += g[t] * e; sd += D[t] * e * e;
            }
            h[j] = sh;
            if (sd > hmax) hmax = sd;
        }
        if (!(hmax > 0)) break;
        /* projection arc: w(eta) = P(w - eta h), eta halved until the
         * estimated objective decreases (Armijo); zeros of w(eta) are exact */
        const double f0 = estimated_objective(C, C->th);
        int accepted = 0;
        double f1 = f0;
        for (int half = 0; half < 30 && !accepted; half++) {
            const double eta = ldexp(1.0 / hmax, -half);
            double slope = 0.0;
            for (int j = 0; j < k; j++) wn[j] = a->scale * a->w[j] - eta * h[j];
            cg_proj_spectrum(wn, k, C->radius, 0, pw);
            for (int j = 0; j < k; j++) { wn[j] -= a->scale * a->w[j]; slope += h[j] * wn[j]; }
            if (!(slope < 0)) break;
            memset(D, 0, sizeof(double) * nt);
            for (int j = 0; j < k; j++) {
                if (wn[j] == 0.0) continue;
                const double *u = a->u + (size_t) j * a->m, *v = a->v + (size_t) j * a->n;
                for (int t = 0; t < nt; t++) D[t] += wn[j] * u[C->trow[t]] * v[C->tcol[t]];
            }
            for (int t = 0; t < nt; t++) x[t] = C->th[t] + D[t];
            f1 = estimated_objective(C, x);
            accepted = f1 <= f0 + 1e-4 * slope;
        }
        if (!accepted) break;
        memcpy(C->th, x, sizeof(double) * nt);
        /* new weights; atoms whose weight reached zero are dropped */
        int kk = 0;
        for (int j = 0; j < k; j++) {
            const double wj = a->scale * a->w[j] + wn[j];
            if (wj <= 0.0) { C->n_dropped++; continue; }
            if (kk != j) {
                memcpy(a->u + (size_t) kk * a->m, a->u + (size_t) j * a->m, sizeof(double) * a->m);
                memcpy(a->v + (size_t) kk * a->n, a->v + (size_t) j * a->n, sizeof(double) * a->n);
            }
            a->w[kk++] = wj;
        }
        a->k = kk; a->scale = 1.0;
        if (f0 - f1 <= 1e-12 * fabs(f0)) break;      /* no more progress */
    }
    vmaxset(vmax);
    C->k_kept = a->k;
}

static void mc_fw_step(cg_problem *P, double gamma)
{
    completion *C = (completion *) P->self;
    for (int t = 0; t < C->nt; t++) C->th[t] = (1.0 - gamma) * C->th[t] + gamma * C->sval[t];
    cg_atoms_scale(&C->atoms, 1.0 - gamma);
    /* s = radius (-u) v': store -u so that atom weights stay positive */
    for (int i = 0; i < C->m; i++) C->u[i] = -C->u[i];
    cg_atoms_add(&C->atoms, C->u, C->v, gamma * C->radius);
    C->iter++;
    if (C->iter == C->max_iter) mc_reduce_rank(P, FINAL_WEIGHT_STEPS);
    else if (C->atoms.k >= 2 * C->k_kept + 8) mc_reduce_rank(P, WEIGHT_STEPS);
}

static int mc_pg_step(cg_problem *P, double eta)
{
    completion *C = (completion *) P->self;
    if (eta <= 0) {             /* 1/L of the current estimate, per cell */
        double L = 0.0;
        for (int t = 0; t < C->nt; t++) {
            double curv = C->family == FAM_GAUSSIAN ? 1.0 :
                C->family == FAM_BINOMIAL ? 0.25 : exp(C->th[t]);
            L = fmax(L, curv * C->cnt[C->tc[t]] / C->smp.drawn);
        }
        eta = L > 0 ? 1.0 / L : 1.0;
    }
    /* theta - eta g must be finite before theta changes (it is the last
     * iterate if not) */
    for (int t = 0; t < C->nt; t++)
        if (!isfinite(C->theta[C->trow[t] + (size_t) C->tcol[t] * C->m] - eta * C->gval[t]))
            return CG_ERR_NONFINITE;
    for (int t = 0; t < C->nt; t++)
        C->theta[C->trow[t] + (size_t) C->tcol[t] * C->m] -= eta * C->gval[t];
    int st = cg_proj_nuclear_dense_factors(C->theta, C->m, C->n, C->radius, C->fu, C->fd,
                                           C->fv, &C->frank);
    if (st != CG_OK) C->frank = -1;
    P->svd_rank = C->m < C->n ? C->m : C->n;
    return st;
}

/* full objective over all observations, from per-cell totals, and the true
 * FW gap <G, theta> + radius * sigma_1(G) of the full gradient */
static void mc_evaluate(cg_problem *P, double *obj, double *gap)
{
    completion *C = (completion *) P->self;
    const int nc = C->C;
    for (int c = 0; c < nc; c++) C->thfull[c] = NA_REAL;
    if (!C->dense)               /* cached values are current only for atoms */
        for (int t = 0; t < C->nt; t++) C->thfull[C->tc[t]] = C->th[t];
    double f = 0.0, gx = 0.0;
    for (int c = 0; c < nc; c++) {
        if (ISNAN(C->thfull[c])) C->thfull[c] = cell_value(C, c);
        double x = C->thfull[c];
        f += C->Ncell[c] * log_partition(C->family, x) - C->Ycell[c] * x;
        if (C->family == FAM_GAUSSIAN) f += 0.5 * C->YYcell[c];
        C->gfull[c] = (C->Ncell[c] * mean_fn(C->family, x) - C->Ycell[c]) / C->N;
        gx += C->gfull[c] * x;
    }
    *obj = f / C->N;
    if (!isfinite(*obj)) {
        overflow_failure(P, C, C->thfull, nc, "the objective");
        *gap = NA_REAL;
        return;
    }
    cg_linop Gf; cg_coo_data d;
    cg_linop_coo(&Gf, &d, C->m, C->n, nc, C->crow, C->ccol, C->gfull);
    double sigma;
    const int st = cg_lmo_nuclear(&Gf, C->radius, C->eu, C->ev, &sigma, 1e-10);
    *gap = st == CG_OK ? gx + C->radius * sigma : cg_gap_failed(P, st);
}

static double mc_epoch(cg_problem *P)
{
    completion *C = (completion *) P->self;
    return C->smp.drawn / C->N;
}

static long mc_n_matvec(cg_problem *P) { return ((completion *) P->self)->n_matvec; }

/* ---- composite problems: min 1/(2N) sum_k (X_{i_k j_k} - y_k)^2 + g(X),
 * ||X||_* <= radius, g the indicator of {lo <= X <= hi} (003 eq. 18) or
 * lambda ||X||_1 (eq. 19), by the homotopy loop (hsagcgm_v1, shcgm). g acts
 * on every entry, so X and the gradient estimate V are dense m x n, as in
 * the paper; the atoms of the Frank-Wolfe steps are kept too, for the
 * fit's low-rank factors. Per iteration: `batch` iid observations refresh
 * f's estimate (O(batch), SHCGM's average also O(cells)), the smoothed g's
 * full gradient (1/beta)(X - prox_{beta g}(X)) O(mn), the rank-one LMO by
 * Lanczos on dense V, and the step O(mn). */
static inline double *cell_ptr(const completion *C, int c)
{
    return C->X + C->crow[c] + (size_t) C->ccol[c] * C->m;
}

static double mcc_refresh_loss(cg_problem *P, double rho)
{
    completion *C = (completion *) P->self;
    const int nb = cg_sampler_next(&C->smp, C->batch_idx, CG_BATCH_DEFAULT);
    if (rho > 0.0) {              /* SHCGM: unbiased minibatch gradient, averaged */
        const double w = rho / nb;
        for (int c = 0; c < C->C; c++) C->vf[c] *= 1.0 - rho;
        for (int b = 0; b < nb; b++) {
            const int k = C->batch_idx[b], c = C->cell[k];
            C->vf[c] += w * (*cell_ptr(C, c) - C->y[k]);
        }
    } else {                      /* H-SAG-CGM: alpha_k = f_k'(X) / N replaced */
        const double inv = 1.0 / C->N;
        for (int b = 0; b < nb; b++) {
            const int k = C->batch_idx[b], c = C->cell[k];
            const double a = (*cell_ptr(C, c) - C->y[k]) * inv;
            C->vf[c] += a - C->alpha[k];
            C->alpha[k] = a;
        }
    }
    return nb;
}

/* V = grad g_beta(X) + f's estimate, penalty = 1 / beta: for the box
 * (X - proj_box(X)) / beta, for l1 (X - soft(X, beta lambda)) / beta =
 * clip(X / beta, -lambda, lambda) (the Moreau envelope's gradient) */
static double mcc_gradient(cg_problem *P, double penalty)
{
    completion *C = (completion *) P->self;
    const size_t mn = (size_t) C->m * C->n;
    const double *X = C->X;
    double *V = C->V;
    if (C->composite == COMPOSITE_BOX) {
        const double lo = C->lo, hi = C->hi;
        for (size_t i = 0; i < mn; i++)
            V[i] = X[i] < lo ? penalty * (X[i] - lo) : X[i] > hi ? penalty * (X[i] - hi) : 0.0;
    } else {
        const double lam = C->lambda;
        for (size_t i = 0; i < mn; i++) {
            const double z = penalty * X[i];
            V[i] = z > lam ? lam : z < -lam ? -lam : z;
        }
    }
    for (int c = 0; c < C->C; c++)
        V[C->crow[c] + (size_t) C->ccol[c] * C->m] += C->vf[c];
    if (!cg_all_finite(C->vf, (size_t) C->C)) cg_fail(P, "the gradient " CG_OVERFLOW_HINT);
    return 0.0;                   /* the samples were counted by refresh_loss */
}

static int mcc_lmo(cg_problem *P)
{
    completion *C = (completion *) P->self;
    cg_linop G; cg_dense_data d;
    cg_linop_dense(&G, &d, C->V, C->m, C->n);
    const int st = cg_lmo_nuclear(&G, C->radius, C->u, C->v, &C->sigma, C->lmo_tol);
    C->n_matvec += G.n_matvec;
    P->svd_rank = 1;
    cg_fail_status(P, st, "the linear minimization oracle (top singular pair)");
    return st;
}

/* X <- (1 - eta) X + eta S, S = -radius u v'; the atoms likewise, compressed
 * to thin SVD when their count doubles (memory stays O(rank (m + n))) */
static void mcc_step(cg_problem *P, double eta)
{
    completion *C = (completion *) P->self;
    const int m = C->m, n = C->n, one = 1, mn = m * n;
    double keep = 1.0 - eta, a = -eta * C->radius;
    F77_CALL(dscal)(&mn, &keep, C->X, &one);
    F77_CALL(dger)(&m, &n, &a, C->u, &one, C->v, &one, C->X, &m);
    cg_atoms_scale(&C->atoms, keep);
    for (int i = 0; i < m; i++) C->u[i] = -C->u[i];
    cg_atoms_add(&C->atoms, C->u, C->v, eta * C->radius);
    if (C->atoms.k >= 2 * C->k_compress + 8) {
        cg_fail_status(P, cg_atoms_compress(&C->atoms), "the compression of the iterate");
        C->k_compress = C->atoms.k;
    }
}

/* dist(X, box) in Frobenius norm, relative to ||X||_F; NA for l1 (no
 * constraint) */
static double mcc_infeasibility(cg_problem *P, double *scale)
{
    completion *C = (completion *) P->self;
    const size_t mn = (size_t) C->m * C->n;
    double d2 = 0.0, x2 = 0.0;
    for (size_t i = 0; i < mn; i++) {
        const double x = C->X[i], r = x < C->lo ? x - C->lo : x > C->hi ? x - C->hi : 0.0;
        d2 += r * r; x2 += x * x;
    }
    *scale = sqrt(x2);
    return C->composite == COMPOSITE_BOX ? sqrt(d2) : NA_REAL;
}

/* the stated objective (the loss, plus lambda ||X||_1 for l1); no gap: the
 * homotopy methods give no certificate here */
static void mcc_evaluate(cg_problem *P, double *obj, double *gap)
{
    completion *C = (completion *) P->self;
    double f = 0.0;
    for (int c = 0; c < C->C; c++) {
        const double x = *cell_ptr(C, c);
        f += 0.5 * (C->Ncell[c] * x * x + C->YYcell[c]) - C->Ycell[c] * x;
    }
    f /= C->N;
    const size_t mn = (size_t) C->m * C->n;
    double l1 = 0.0, x2 = 0.0;
    for (size_t i = 0; i < mn; i++) { l1 += fabs(C->X[i]); x2 += C->X[i] * C->X[i]; }
    const double rmse = sqrt(2.0 * f);
    if (C->composite == COMPOSITE_L1) f += C->lambda * l1;
    *obj = f;
    *gap = NA_REAL;
    if (C->nx == C->xcap) {       /* one entry per trace row: grow by doubling */
        double **cols[] = {&C->xnorm, &C->rmse_train, &C->rmse_test};
        for (int j = 0; j < 3; j++) {
            double *x = (double *) R_alloc(2 * (size_t) C->xcap, sizeof(double));
            memcpy(x, *cols[j], sizeof(double) * C->nx);
            *cols[j] = x;
        }
        C->xcap *= 2;
    }
    double e2 = 0.0;
    for (int k = 0; k < C->ntest; k++) {
        const double e = C->X[C->test_at[k]] - C->test_y[k];
        e2 += e * e;
    }
    C->xnorm[C->nx] = sqrt(x2);
    C->rmse_train[C->nx] = rmse;
    C->rmse_test[C->nx++] = C->ntest > 0 ? sqrt(e2 / C->ntest) : NA_REAL;
}

static const cg_homotopy_ops completion_homotopy = {
    mcc_gradient, mcc_lmo, mcc_step, NULL, mcc_infeasibility, NULL, mcc_refresh_loss
};

static void composite_init(cg_problem *P, completion *C, SEXP spec)
{
    const size_t mn = (size_t) C->m * C->n;
    C->lo = asReal(cg_list_get(spec, "lo"));
    C->hi = asReal(cg_list_get(spec, "hi"));
    C->lambda = asReal(cg_list_get(spec, "lambda"));
    C->X = cg_zeros(mn); C->V = cg_zeros(mn);
    C->alpha = cg_zeros((size_t) C->N); C->vf = cg_zeros((size_t) C->C);
    C->xcap = 64; C->nx = 0;
    C->xnorm = (double *) R_alloc(C->xcap, sizeof(double));
    C->rmse_train = (double *) R_alloc(C->xcap, sizeof(double));
    C->rmse_test = (double *) R_alloc(C->xcap, sizeof(double));
    SEXP ty = cg_list_get(spec, "test_y");
    C->ntest = isNull(ty) ? 0 : LENGTH(ty);
    if (C->ntest > 0) {
        C->test_y = cg_spec_real(spec, "test_y", C->ntest);
        C->test_at = cg_spec_index(spec, "test_at", C->ntest, 0, (int) (mn - 1));
    }
    C->k_compress = 0;
    P->homotopy = &completion_homotopy;
    P->evaluate = mcc_evaluate;
}

/* Frank-Wolfe on the atoms, or the projected-gradient baseline on the dense
 * iterate (dense_iterate) */
static const cg_fw_ops completion_fw = {mc_gradient, mc_lmo, mc_line_search, mc_fw_step};
static const cg_pg_ops completion_pg = {mc_gradient, mc_pg_step};

int cg_problem_completion(cg_problem *P, SEXP spec)
{
    completion *C = (completion *) R_alloc(1, sizeof(completion));
    memset(C, 0, sizeof(completion));
    C->m = asInteger(cg_list_get(spec, "m"));
    C->n = asInteger(cg_list_get(spec, "n"));
    C->C = LENGTH(cg_list_get(spec, "cell_row"));
    C->N = LENGTH(cg_list_get(spec, "y"));
    if (C->m < 1 || C->n < 1 || C->C < 1 || C->N < 1)
        error("spec: completion needs m, n >= 1 and observed entries");
    C->cell = cg_spec_index(spec, "cell", C->N, 0, C->C - 1);
    C->crow = cg_spec_index(spec, "cell_row", C->C, 0, C->m - 1);
    C->ccol = cg_spec_index(spec, "cell_col", C->C, 0, C->n - 1);
    C->y = cg_spec_real(spec, "y", C->N);
    C->family = asInteger(cg_list_get(spec, "family"));
    C->radius = asReal(cg_list_get(spec, "radius"));
    C->dense = asLogical(cg_list_get(spec, "dense_iterate"));
    C->lmo_tol = asReal(cg_list_get(spec, "lmo_tol"));
    C->max_iter = asInteger(cg_list_get(spec, "max_iter"));
    const int N = C->N, nc = C->C, m = C->m, n = C->n;
    cg_sampler_init(&C->smp, N, asInteger(cg_list_get(spec, "batch_size")),
                    asInteger(cg_list_get(spec, "sampling")));
    C->batch_idx = (int *) R_alloc(N > C->smp.batch ? N : C->smp.batch, sizeof(int));
    C->tc = (int *) R_alloc(nc, sizeof(int));
    C->trow = (int *) R_alloc(nc, sizeof(int));
    C->tcol = (int *) R_alloc(nc, sizeof(int));
    C->cnt = cg_zeros(nc); C->sy = cg_zeros(nc);
    C->Ncell = cg_zeros(nc); C->Ycell = cg_zeros(nc); C->YYcell = cg_zeros(nc);
    for (int k = 0; k < N; k++) {
        int c = C->cell[k];
        C->Ncell[c] += 1; C->Ycell[c] += C->y[k]; C->YYcell[c] += C->y[k] * C->y[k];
    }
    C->th = cg_zeros(nc); C->gval = cg_zeros(nc); C->sval = cg_zeros(nc);
    C->gfull = cg_zeros(nc); C->thfull = cg_zeros(nc);
    if (!C->dense) { C->tail = cg_zeros(nc); C->trial = cg_zeros(nc); C->kept = cg_zeros(nc); }
    C->u = cg_zeros(m); C->v = cg_zeros(n); C->eu = cg_zeros(m); C->ev = cg_zeros(n);
    if (C->dense) {               /* theta = 0: rank 0 until the first projection */
        const int mn = m < n ? m : n;
        C->theta = cg_zeros((size_t) m * n);
        C->fu = cg_zeros((size_t) m * mn); C->fv = cg_zeros((size_t) n * mn);
        C->fd = cg_zeros(mn); C->frank = 0;
    }
    else cg_atoms_init(&C->atoms, m, n, 64);
    P->self = C;
    P->evaluate = mc_evaluate; P->epoch = mc_epoch; P->n_matvec = mc_n_matvec;
    SEXP comp = cg_list_get(spec, "composite");
    C->composite = isNull(comp) ? COMPOSITE_NONE : asInteger(comp);
    if (C->composite == COMPOSITE_BOX || C->composite == COMPOSITE_L1) {
        if (C->family != FAM_GAUSSIAN || C->dense)
            error("spec: composite completion needs the gaussian family and atoms");
        composite_init(P, C, spec);
    }
    else if (C->dense) P->pg = &completion_pg;
    else P->fw = &completion_fw;
    P->svd_rank = 0;
    return CG_OK;
}

/* The fit as factors: the atoms compressed to thin SVD (exact), or for the
 * dense baseline the thin SVD kept from its last projection (a full SVD of
 * theta only if that projection failed); svd_form says whether the factors
 * are in thin-SVD form. Also the number of atoms dropped. */
SEXP cg_completion_solution(cg_problem *P)
{
    completion *C = (completion *) P->self;
    const int m = C->m, n = C->n, mn = m < n ? m : n;
    const double *U, *V, *W; int k, svd_form = 1; double *VT = NULL;
    if (C->dense && C->frank >= 0) {
        U = C->fu; W = C->fd; V = C->fv;   /* rounding-level directions dropped */
        for (k = 0; k < C->frank && W[k] > 1e-12 * W[0]; k++) ;
    } else if (C->dense) {
        double *s = (double *) R_alloc(mn, sizeof(double));
        double *Ud = (double *) R_alloc((size_t) m * mn, sizeof(double));
        VT = (double *) R_alloc((size_t) mn * n, sizeof(double));
        double *X = (double *) R_alloc((size_t) m * n, sizeof(double));
        memcpy(X, C->theta, sizeof(double) * (size_t) m * n);
        if (cg_lapack_svd(X, m, n, s, Ud, VT) != CG_OK) error("SVD of the solution failed");
        for (k = 0; k < mn && s[k] > 1e-12 * s[0]; k++) ;
        U = Ud; W = s; V = NULL;
    } else {
        /* on failure the atoms stay as they are, for R to compress */
        svd_form = cg_atoms_compress(&C->atoms) == CG_OK;
        k = C->atoms.k; U = C->atoms.u; V = C->atoms.v;
        double *w = (double *) R_alloc(k > 0 ? k : 1, sizeof(double));
        cg_atoms_weights(&C->atoms, w);
        W = w;
    }
    static const char *names[] = {"u", "w", "v", "dropped", "svd_form", "xnorm",
                                  "rmse_train", "rmse_test", ""};
    static const char *plain_names[] = {"u", "w", "v", "dropped", "svd_form", ""};
    SEXP out = PROTECT(mkNamed(VECSXP, C->composite ? names : plain_names));
    SEXP u = PROTECT(allocMatrix(REALSXP, m, k));
    SEXP v = PROTECT(allocMatrix(REALSXP, n, k));
    SEXP w = PROTECT(allocVector(REALSXP, k));
    memcpy(REAL(u), U, sizeof(double) * (size_t) m * k);
    memcpy(REAL(w), W, sizeof(double) * k);
    if (V) memcpy(REAL(v), V, sizeof(double) * (size_t) n * k);
    else for (int j = 0; j < k; j++)
        for (int c = 0; c < n; c++) REAL(v)[(size_t) j * n + c] = VT[(size_t) c * mn + j];
    SET_VECTOR_ELT(out, 0, u); SET_VECTOR_ELT(out, 1, w); SET_VECTOR_ELT(out, 2, v);
    SET_VECTOR_ELT(out, 3, ScalarInteger(C->dense ? NA_INTEGER : C->n_dropped));
    SET_VECTOR_ELT(out, 4, ScalarLogical(svd_form));
    if (C->composite) {           /* per trace row: ||X||_F, train and test RMSE */
        const double *cols[] = {C->xnorm, C->rmse_train, C->rmse_test};
        for (int j = 0; j < 3; j++) {
            SEXP xn = allocVector(REALSXP, C->nx);
            SET_VECTOR_ELT(out, 5 + j, xn);
            memcpy(REAL(xn), cols[j], sizeof(double) * C->nx);
        }
    }
    UNPROTECT(4);
    return out;
}
