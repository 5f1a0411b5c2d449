/* The k-means SDP of Peng and Wei (2007), paper 003 eq. (20):
 *   min 1/2 <D, X>  s.t.  X 1 = 1,  X >= 0 entrywise,  X psd,  tr X = k,
 * D the squared distances (1/2 <D, X> is the k-means cost of a partition's
 * X = sum_c 1_c 1_c' / |c|). Solved for the homotopy family in normalized
 * units, as Yurtsever et al. (2021, SketchyCGAL) advise so that one beta0
 * fits all data: W = X / k (tr W = 1), C = D / ||D||_F, and the constraint
 * map scaled to norm <= 1,
 *   A W = (a W 1, c W),  a = 1 / sqrt(2n),  c = 1 / sqrt(2),
 *   K = {a 1 / k} x R+^(n x n)
 * (||W 1||^2 <= n ||W||_F^2, so ||A||^2 <= a^2 n + c^2 = 1). The n^2
 * entrywise constraints are never an operator: their slack, multiplier and
 * gradient are n x n arrays next to W. Kept: C, W, the multipliers y (n) and
 * Y (n x n, cgal only), the gradient V (n x n): 4 n^2 doubles (3 without
 * multipliers; hspider adds the previous W, kept in the fit's state), and
 * Md (n x n), the multipliers polished for the bound (polish_dual), and
 * two label vectors (partition_certify). The
 * sampling methods draw from all n + n^2 rows: row sums first, then the
 * entries, column-major.
 * Objective, infeasibility and the dual bound are reported in the units of
 * the stated problem. */
#include "stochcg.h"
#include <string.h>
#include <math.h>
#include <float.h>

/* largest n whose bound is polished (polish_dual): above it, dsyevr per
 * polish step costs more than the iterations it would save */
#define POLISH_MAX_N 500

typedef struct {
    int n;
    double k;               /* clusters: tr X */
    double obj_scale;       /* 1/2 <D, X> = obj_scale <C, W> */
    double a, c;            /* constraint scalings */
    const double *C;        /* n x n, ||C||_F = 1 */
    double *W, *V, *Y;      /* iterate, gradient, multipliers of W >= 0 */
    double *y, *z1;         /* multipliers of the row sums, z1 = a W 1 */
    double *u;              /* the last gradient's row-sum multipliers */
    double *s;              /* the LMO's eigenvector (W moves toward s s') */
    double beta;            /* the penalty of the last gradient */
    double *W_prev, *z1_prev;  /* hspider: W and z1 before the last step */
    double passes;          /* passes over the constraints (epochs) */
    double best_lb;         /* the best certified lower bound (cg_sdp_evaluate) */
    double *Md;             /* polished multipliers of W >= 0 (<= 0; polish_dual) */
    int Md_set;             /* Md holds a polished point */
    double mu;              /* polish_dual's smoothing, lowered on restarts */
    long steps, polished_at;    /* iterations taken; at the last polish */
    int *lab, *lab_last;        /* partition_certify: rounded labels; the last tried */
    double pc_last, lbp_last;   /* its cost <C, W_p> and bound (normalized units) */
    int part_tried;             /* lab_last holds a tried partition */
    long n_matvec;
    cg_problem *P;
} kmeans;

/* u = y + beta (z1 - b): the row-sum multipliers the gradient uses */
static void row_multipliers(const kmeans *km, double beta, double *u)
{
    const double b = km->a / km->k;
    for (int i = 0; i < km->n; i++) u[i] = km->y[i] + beta * (km->z1[i] - b);
}

/* V = C + A'(u, M): M the nonnegativity part, given, or (M = NULL)
 * min(beta c W + Y, 0) (b - proj_K folded in); returns <u, b> */
static double form_gradient(kmeans *km, const double *u, const double *M, double beta)
{
    const int n = km->n;
    const double b = km->a / km->k, ha = 0.5 * km->a, c = km->c;
    double ub = 0.0;
    for (int i = 0; i < n; i++) ub += u[i] * b;
    for (int j = 0; j < n; j++) {
        const double *Cj = km->C + (size_t) j * n, *Wj = km->W + (size_t) j * n,
                     *Yj = km->Y ? km->Y + (size_t) j * n : NULL;
        const double *Mj = M ? M + (size_t) j * n : NULL;
        double *Vj = km->V + (size_t) j * n;
        for (int i = 0; i < n; i++) {
            double m;
            if (Mj) m = Mj[i];
            else { m = beta * c * Wj[i] + (Yj ? Yj[i] : 0.0); if (m > 0.0) m = 0.0; }
            Vj[i] = Cj[i] + ha * (u[i] + u[j]) + c * m;
        }
    }
    return ub;
}

static double km_gradient(cg_problem *P, double beta)
{
    kmeans *km = (kmeans *) P->self;
    row_multipliers(km, beta, km->u);
    form_gradient(km, km->u, NULL, beta);
    km->beta = beta;
    km->passes += 1.0;
    return 1.0;
}

/* ---- rows for the sampling methods: l < n the row sum i (value a (W 1)_i,
 * K_l = {a / k}), else the entry e = l - n (value c W_e, K_l = R+), which
 * acts on the symmetric W through (E_rc + E_cr) / 2 */
static double km_rows(cg_problem *P, size_t *len)
{
    const double n = ((kmeans *) P->self)->n;
    *len = (size_t) n * (size_t) n;
    return n + n * n;
}

static double km_residual(cg_problem *P, double l, int prev)
{
    kmeans *km = (kmeans *) P->self;
    const int n = km->n;
    if (l < n) return (prev ? km->z1_prev : km->z1)[(int) l] - km->a / km->k;
    const double w = km->c * (prev ? km->W_prev : km->W)[(size_t) (l - n)];
    return w < 0.0 ? w : 0.0;
}

static void km_add_row(cg_problem *P, double l, double coef, double *G)
{
    kmeans *km = (kmeans *) P->self;
    const int n = km->n;
    if (l < n) {
        const int i = (int) l;
        const double g = coef * 0.5 * km->a;
        for (int j = 0; j < n; j++) { G[i + (size_t) j * n] += g; G[j + (size_t) i * n] += g; }
        return;
    }
    const size_t e = (size_t) (l - n);
    const int r = (int) (e % n), c = (int) (e / n);
    const double g = coef * 0.5 * km->c;
    G[r + (size_t) c * n] += g;
    G[c + (size_t) r * n] += g;
}

static void km_set_gradient(cg_problem *P, double penalty, const double *E, double epochs)
{
    kmeans *km = (kmeans *) P->self;
    for (size_t e = 0; e < (size_t) km->n * km->n; e++) km->V[e] = km->C[e] + E[e];
    km->beta = penalty;
    km->passes += epochs;
}

/* the spectrahedron's vertex s s' (tr W = 1): smallest eigenpair of V */
static int km_lmo(cg_problem *P)
{
    kmeans *km = (kmeans *) P->self;
    cg_linop A; cg_dense_data d;
    cg_linop_dense(&A, &d, km->V, km->n, km->n);
    double val;
    const int ret = cg_lmo_psd(&A, 1.0, 1, km->s, &val);
    km->n_matvec += A.n_matvec;
    return ret < 0 ? -ret : CG_OK;
}

static void km_step(cg_problem *P, double eta)
{
    kmeans *km = (kmeans *) P->self;
    const int n = km->n;
    const double *s = km->s;
    if (km->W_prev) {
        memcpy(km->W_prev, km->W, (size_t) n * n * sizeof(double));
        memcpy(km->z1_prev, km->z1, (size_t) n * sizeof(double));
    }
    double sum = 0.0;
    for (int i = 0; i < n; i++) sum += s[i];
    for (int j = 0; j < n; j++) {
        double *Wj = km->W + (size_t) j * n;
        const double es = eta * s[j];
        for (int i = 0; i < n; i++) Wj[i] = (1.0 - eta) * Wj[i] + es * s[i];
    }
    for (int i = 0; i < n; i++)
        km->z1[i] = (1.0 - eta) * km->z1[i] + eta * km->a * s[i] * sum;
    km->steps++;
}

static double km_dual_step(cg_problem *P, double beta, double sigma, double bound)
{
    kmeans *km = (kmeans *) P->self;
    const int n = km->n;
    const double b = km->a / km->k, c = km->c;
    double r2 = 0.0;
    for (int i = 0; i < n; i++) r2 += (km->z1[i] - b) * (km->z1[i] - b);
    for (size_t e = 0; e < (size_t) n * n; e++) {
        const double z = c * km->W[e], q = z + (km->Y ? km->Y[e] / beta : 0.0);
        const double r = q > 0.0 ? z - q : z;
        r2 += r * r;
    }
    const double norm = sqrt(r2);
    if (!(bound > 0.0) || !(r2 > 0.0)) return norm;
    const double step = sigma * r2 <= bound ? sigma : bound / r2;
    for (int i = 0; i < n; i++) km->y[i] += step * (km->z1[i] - b);
    for (size_t e = 0; e < (size_t) n * n; e++) {
        const double z = c * km->W[e], q = z + km->Y[e] / beta;
        km->Y[e] += step * (q > 0.0 ? z - q : z);
    }
    return norm;
}

/* dist((X 1, X), {1} x R+) for X = k W, against ||b|| = sqrt(n) */
static double km_infeasibility(cg_problem *P, double *scale)
{
    kmeans *km = (kmeans *) P->self;
    const int n = km->n;
    double d2 = 0.0;
    for (int i = 0; i < n; i++) {
        const double r = km->k * km->z1[i] / km->a - 1.0;
        d2 += r * r;
    }
    for (size_t e = 0; e < (size_t) n * n; e++)
        if (km->W[e] < 0.0) d2 += km->k * km->W[e] * km->k * km->W[e];
    *scale = sqrt((double) n);
    return sqrt(d2);
}

/* V = C + c M for the nonnegativity multipliers M <= 0 (given, or, with
 * M = NULL, min(beta c W + Y, 0)), then projected for a bound with the row
 * sums kept exact: with W 1 = 1/k, W = 11'/(nk) + P W P (P the projector
 * on 1-perp, tr PWP = 1 - 1/k), so for any such M
 *   opt >= <N, 11'>/(nk) + (1 - 1/k) lambda_min(P N P on 1-perp),  N = C + c M,
 * which is the Lagrangian bound maximized over the row-sum multipliers u
 * (strong duality of the inner problem: Slater holds), never below the
 * bound at the method's own u. V = (1 - 1/k) (P N P + sigma 11'/n) with
 * sigma = ||N||_F >= |lambda| lifts the 1 direction out of the minimum (a
 * smaller sigma would only lower the bound: it stays valid); returns
 * -<N, 11'>/(nk), the ub that cg_sdp_evaluate subtracts. */
/* project_bound: V holding N, projected in place as above (returns ub);
 * projected_gradient first forms N = C + c M from the multipliers M */
static double project_bound(kmeans *km)
{
    const int n = km->n;
    double *r = (double *) R_alloc(n, sizeof(double));
    memset(r, 0, n * sizeof(double));
    double tot = 0.0, fro = 0.0;
    for (int j = 0; j < n; j++) {
        const double *Vj = km->V + (size_t) j * n;
        for (int i = 0; i < n; i++) { r[i] += Vj[i]; fro += Vj[i] * Vj[i]; }
    }
    for (int i = 0; i < n; i++) tot += r[i];
    const double f = 1.0 - 1.0 / km->k, shift = tot / ((double) n * n) + sqrt(fro) / n;
    for (int j = 0; j < n; j++) {
        double *Vj = km->V + (size_t) j * n;
        for (int i = 0; i < n; i++) Vj[i] = f * (Vj[i] - (r[i] + r[j]) / n + shift);
    }
    return -tot / (n * km->k);
}

static double projected_gradient(kmeans *km, double beta, const double *M)
{
    double *u = (double *) R_alloc(km->n, sizeof(double));
    memset(u, 0, km->n * sizeof(double));
    form_gradient(km, u, M, beta);             /* V = N = C + A'(0, M) */
    return project_bound(km);
}

/* the exact bound of M (normalized units, projected_gradient): its m
 * smallest eigenpairs by dsyevr into lam, Z (V overwritten); returns the
 * bound, -DBL_MAX if LAPACK fails */
static double bound_pairs(kmeans *km, const double *M, int m, double *lam, double *Z)
{
    const double ub = projected_gradient(km, 0.0, M);
    if (cg_lapack_syevr(km->V, km->n, 1, m, lam, Z) != CG_OK) return -DBL_MAX;
    return lam[0] - ub;
}

/* Dual polish (no effect on the iterates): the bound L(M) of
 * projected_gradient is concave in the multipliers M <= 0 of W >= 0 and a
 * valid bound at every M <= 0 (weak duality), but the method's own M lags
 * (USArrests, planted300 ended at max_iter 1% apart). So on tests of a
 * nearly feasible iterate, `nsteps` steps of accelerated projected
 * gradient ascent (FISTA) on the soft-min smoothing of L,
 *   L_mu(M) = <N, 11'>/(nk) - mu log sum_j exp(-nu_j / mu),
 * nu_j the eigenvalues of V = (1 - 1/k) P N P (+ the lifted 1 direction),
 * N = C + c M; its gradient c (11'/(nk) + sum_j w_j v_j v_j') (w the
 * soft-min weights of the m smallest eigenpairs, by dsyevr: the rest
 * weigh < exp(-(nu_m - nu_1) / mu)), Lipschitz with constant c^2 f^2 / mu
 * (f = 1 - 1/k), the step mu / (c^2 f^2). Starts from the better of the
 * last polished M and the method's current one (min(beta c W + Y, 0)),
 * keeps in Md the M of the best exact bound seen; mu a fraction of tol
 * times the objective, so the smoothing costs less than what tol allows.
 * Stops once the exact bound is within tol / 4 of the objective. The
 * certified bound is then computed from Md by cg_sdp_evaluate (Lanczos),
 * like the method's own multipliers'. */
static void polish_dual(kmeans *km, int nsteps)
{
    const int n = km->n;
    const size_t nn = (size_t) n * n;
    const double k = km->k, f = 1.0 - 1.0 / k, c = km->c;
    int m = 2 * (int) k + 8;
    if (m > n - 1) m = n - 1;
    double cw = 0.0;
    for (size_t e = 0; e < nn; e++) cw += km->C[e] * km->W[e];
    const double mu_min = 0.1 * km->P->tol * fabs(cw);
    if (!(mu_min > 0.0)) return;
    km->mu = 5.0 * mu_min;
    double *lam = (double *) R_alloc(m, sizeof(double));
    double *Z = (double *) R_alloc((size_t) n * m, sizeof(double));
    double *x = (double *) R_alloc(nn, sizeof(double));
    double *yv = (double *) R_alloc(nn, sizeof(double));
    double *G = (double *) R_alloc(nn, sizeof(double));
    double *wt = (double *) R_alloc(m, sizeof(double));
    /* start: the best of the method's two multipliers (those of the last
     * gradient, min(beta c W + Y, 0), and the dual iterate, min(Y, 0)) and
     * the last polished point */
    double best = -DBL_MAX;
    for (int pass = 0; pass < (km->Y ? 2 : 1); pass++) {
        const double b = pass == 0 ? km->beta : 0.0;
        for (size_t e = 0; e < nn; e++) {
            const double v = b * c * km->W[e] + (km->Y ? km->Y[e] : 0.0);
            yv[e] = v < 0.0 ? v : 0.0;
        }
        const double lb = bound_pairs(km, yv, m, lam, Z);
        if (lb > best) { best = lb; memcpy(x, yv, nn * sizeof(double)); }
    }
    if (km->Md_set) {
        const double lb = bound_pairs(km, km->Md, m, lam, Z);
        if (lb >= best) { best = lb; memcpy(x, km->Md, nn * sizeof(double)); }
    }
    if (best == -DBL_MAX) return;           /* LAPACK failed: Md as it was */
    memcpy(km->Md, x, nn * sizeof(double));
    km->Md_set = 1;
    /* lam, Z at the start point for the first step */
    if (bound_pairs(km, x, m, lam, Z) == -DBL_MAX) return;
    memcpy(yv, x, nn * sizeof(double));
    double theta = 1.0, last = best;
    for (int it = 0; it < nsteps; it++) {
        const double lb = it == 0 ? best : bound_pairs(km, yv, m, lam, Z);
        if (lb == -DBL_MAX) return;
        if (lb > best) { best = lb; memcpy(km->Md, yv, nn * sizeof(double)); }
        if (lb < last) {
            /* the bound fell: restart the momentum from the best point
             * with less smoothing (continuation in mu) */
            last = best;
            theta = 1.0;
            km->mu = 0.7 * km->mu > mu_min ? 0.7 * km->mu : mu_min;
            memcpy(x, km->Md, nn * sizeof(double));
            memcpy(yv, km->Md, nn * sizeof(double));
            if (bound_pairs(km, yv, m, lam, Z) == -DBL_MAX) return;
        } else last = lb;
        const double mu = km->mu, t = mu / (c * c * f * f);
        double sw = 0.0;
        for (int j = 0; j < m; j++) { wt[j] = exp(-(lam[j] - lam[0]) / mu); sw += wt[j]; }
        const double base = 1.0 / (n * k);
        for (size_t e = 0; e < nn; e++) G[e] = base;
        for (int j = 0; j < m; j++) {
            const double w = wt[j] / sw;
            if (w < 1e-12) continue;
            const double *v = Z + (size_t) j * n;
            for (int q = 0; q < n; q++) {
                double *Gq = G + (size_t) q * n;
                const double wv = w * v[q];
                for (int i = 0; i < n; i++) Gq[i] += wv * v[i];
            }
        }
        const double theta1 = 0.5 * (1.0 + sqrt(1.0 + 4.0 * theta * theta)),
                     mom = (theta - 1.0) / theta1;
        for (size_t e = 0; e < nn; e++) {
            double xn = yv[e] + t * c * G[e];
            if (xn > 0.0) xn = 0.0;
            const double yn = xn + mom * (xn - x[e]);
            yv[e] = yn < 0.0 ? yn : 0.0;
            x[e] = xn;
        }
        theta = theta1;
        R_CheckUserInterrupt();
    }
    const double lb = bound_pairs(km, yv, m, lam, Z);
    if (lb > best) memcpy(km->Md, yv, nn * sizeof(double));
}

/* objective 1/2 <D, X>, gap to a certified Lagrangian bound
 * (cg_sdp_evaluate) from multipliers of X >= 0, each with the row sums
 * kept exact (projected_gradient): those of the last gradient, -min(beta c
 * W + Y, 0), the dual iterate, -min(Y, 0), and on tests of a nearly
 * feasible iterate the polished ones (polish_dual). On iris (k = 3) at 5000
 * iterations the bound at the method's own row-sum multipliers (u = y +
 * beta (z1 - b), and y) was 72.71, this one 74.78, the objective 75.42. */
static double km_form(void *self, int pass)
{
    kmeans *km = (kmeans *) self;
    if (pass == 2) {
        /* steps in proportion to the iterations since the last polish:
         * dsyevr costs ~n^3, an iteration ~n^2 times its Lanczos products */
        long since = km->steps - km->polished_at;
        long nsteps = 10 * since / km->n;
        if (nsteps < 2) nsteps = 2;
        if (nsteps > 40) nsteps = 40;
        polish_dual(km, (int) nsteps);
        km->polished_at = km->steps;
        return projected_gradient(km, 0.0, km->Md);
    }
    return projected_gradient(km, pass == 1 ? 0.0 : km->beta, NULL);
}

/* ---- the rounded partition's certificate. A partition into k clusters
 * gives the feasible X_p = sum_a 1_a 1_a' / n_a (W_p = X_p / k), whose
 * value is its k-means cost, and, after Iguchi, Mixon, Peterson and Villar
 * (2017, "Probably certifiably correct k-means clustering", Math. Program.
 * 165), multipliers B >= 0 of X >= 0 that vanish inside the clusters and
 * make X_p a minimizer of the Lagrangian when the relaxation is tight (well
 * separated clusters: then X_p is the SDP's solution). With G = C
 * (normalized units) and R_ia = sum_{j in a} G_ij, T_a = sum_{i,j in a}
 * G_ij, complementary slackness (Q 1_a = 0 for Q = G - (alpha 1' + 1
 * alpha') / 2 - z I - B) fixes the row-sum multipliers of cluster a,
 * alpha_i = (2 R_ia - T_a / n_a - z) / n_a, and the row sums of B's block
 * (b, a), for i in b != a,
 *   beta_ia = R_ia - (n_a / (2 n_b)) (2 R_ib - T_b / n_b) - T_a / (2 n_a)
 *             + z (n_a / (2 n_b) + 1/2),
 * with B_ij = beta_ia beta_jb / s_ab (i in b, j in a; s_ab = the block's
 * total, the mean of its two sums, so B is symmetric). Increasing z raises
 * beta but lowers Q by z I: z is the least value with all beta >= 0. The
 * bound is that of projected_gradient (the row sums and z re-optimized),
 * so every partition gives a valid bound (weak duality, any B >= 0); on
 * planted mixtures at n = 150-1000 and on cluster::ruspini it equals the
 * partition's cost, where the method's own multipliers lagged by 3% after
 * 5000 iterations (n = 400). */

/* labels 0..k-1 of the rows of the top-k eigenvectors of W scaled by the
 * square roots of their eigenvalues (as R's round_clusters, but by Lloyd's
 * algorithm from farthest-point centres, deterministic); 0 on success, -1
 * when the eigensolver fails or a cluster is empty */
static int round_partition(kmeans *km, int *lab)
{
    const int n = km->n, k = (int) km->k;
    double *val = (double *) R_alloc(k, sizeof(double));
    double *U = (double *) R_alloc((size_t) n * k, sizeof(double));
    cg_linop A; cg_dense_data d;
    cg_linop_dense(&A, &d, km->W, n, n);
    const int st = cg_eigs_sym(&A, k, 1, val, U);
    km->n_matvec += A.n_matvec;
    if (st != CG_OK) return -1;
    for (int j = 0; j < k; j++) {
        const double sc = val[j] > 0.0 ? sqrt(val[j]) : 0.0;
        for (int i = 0; i < n; i++) U[i + (size_t) j * n] *= sc;
    }
    double *cen = (double *) R_alloc((size_t) k * k, sizeof(double));   /* k x k, row a */
    double *dmin = (double *) R_alloc(n, sizeof(double));
    int *cnt = (int *) R_alloc(k, sizeof(int));
    /* farthest-point start: the longest row, then the row farthest from the
     * centres so far */
    int pick = 0;
    double best = -1.0;
    for (int i = 0; i < n; i++) {
        double q = 0.0;
        for (int j = 0; j < k; j++) q += U[i + (size_t) j * n] * U[i + (size_t) j * n];
        if (q > best) { best = q; pick = i; }
        dmin[i] = DBL_MAX;
    }
    for (int a = 0; a < k; a++) {
        for (int j = 0; j < k; j++) cen[a + j * k] = U[pick + (size_t) j * n];
        best = -1.0;
        for (int i = 0; i < n; i++) {
            double q = 0.0;
            for (int j = 0; j < k; j++) {
                const double t = U[i + (size_t) j * n] - cen[a + j * k];
                q += t * t;
            }
            if (q < dmin[i]) dmin[i] = q;
            if (dmin[i] > best) { best = dmin[i]; pick = i; }
        }
    }
    for (int i = 0; i < n; i++) lab[i] = -1;
    for (int it = 0; it < 100; it++) {
        int changed = 0;
        for (int i = 0; i < n; i++) {
            int arg = 0;
            double qmin = DBL_MAX;
            for (int a = 0; a < k; a++) {
                double q = 0.0;
                for (int j = 0; j < k; j++) {
                    const double t = U[i + (size_t) j * n] - cen[a + j * k];
                    q += t * t;
                }
                if (q < qmin) { qmin = q; arg = a; }
            }
            if (lab[i] != arg) { lab[i] = arg; changed = 1; }
        }
        if (!changed) break;
        memset(cen, 0, (size_t) k * k * sizeof(double));
        memset(cnt, 0, k * sizeof(int));
        for (int i = 0; i < n; i++) {
            cnt[lab[i]]++;
            for (int j = 0; j < k; j++) cen[lab[i] + j * k] += U[i + (size_t) j * n];
        }
        for (int a = 0; a < k; a++) {
            if (cnt[a] == 0) return -1;
            for (int j = 0; j < k; j++) cen[a + j * k] /= cnt[a];
        }
    }
    /* numbered by first appearance: equal partitions, equal labels */
    int *map = cnt, next = 0;
    for (int a = 0; a < k; a++) map[a] = -1;
    for (int i = 0; i < n; i++) {
        if (map[lab[i]] < 0) map[lab[i]] = next++;
        lab[i] = map[lab[i]];
    }
    return next == k ? 0 : -1;
}

/* the certificate of partition `lab` (see above): V = the projected N = C -
 * B (project_bound), its smallest eigenvalue by Lanczos moved outward by
 * its tolerance (as cg_sdp_evaluate); returns the bound on <C, W>
 * (normalized), -DBL_MAX on failure, and the partition's value in *pc */
static double partition_bound(kmeans *km, const int *lab, double *pc)
{
    const int n = km->n, k = (int) km->k;
    int *na = (int *) R_alloc(k, sizeof(int));
    double *R = (double *) R_alloc((size_t) n * k, sizeof(double));   /* R_ia */
    double *T = (double *) R_alloc(k, sizeof(double));
    double *bt = (double *) R_alloc((size_t) n * k, sizeof(double));  /* beta_ia */
    double *sab = (double *) R_alloc((size_t) k * k, sizeof(double));
    memset(na, 0, k * sizeof(int));
    memset(R, 0, (size_t) n * k * sizeof(double));
    memset(T, 0, k * sizeof(double));
    for (int i = 0; i < n; i++) na[lab[i]]++;
    for (int j = 0; j < n; j++) {
        const double *Cj = km->C + (size_t) j * n;
        double *Ra = R + (size_t) lab[j] * n;
        for (int i = 0; i < n; i++) Ra[i] += Cj[i];
    }
    for (int i = 0; i < n; i++) T[lab[i]] += R[i + (size_t) lab[i] * n];
    *pc = 0.0;
    for (int a = 0; a < k; a++) *pc += T[a] / (na[a] * km->k);
    /* beta_ia = g_ia + z kappa_ab (i in b != a); z the least with all >= 0 */
    double z = -DBL_MAX;
    for (int i = 0; i < n; i++) {
        const int b = lab[i];
        for (int a = 0; a < k; a++) {
            if (a == b) { bt[i + (size_t) a * n] = 0.0; continue; }
            const double kap = na[a] / (2.0 * na[b]) + 0.5;
            const double g = R[i + (size_t) a * n] -
                             na[a] / (2.0 * na[b]) * (2.0 * R[i + (size_t) b * n] - T[b] / na[b]) -
                             T[a] / (2.0 * na[a]);
            bt[i + (size_t) a * n] = g;
            if (-g / kap > z) z = -g / kap;
        }
    }
    if (!R_FINITE(z)) return -DBL_MAX;
    memset(sab, 0, (size_t) k * k * sizeof(double));
    for (int i = 0; i < n; i++) {
        const int b = lab[i];
        for (int a = 0; a < k; a++) {
            if (a == b) continue;
            double v = bt[i + (size_t) a * n] + z * (na[a] / (2.0 * na[b]) + 0.5);
            if (v < 0.0) v = 0.0;                      /* rounding at the least z */
            bt[i + (size_t) a * n] = v;
            sab[a + b * k] += 0.5 * v;                 /* block (b, a) and (a, b) */
            sab[b + a * k] += 0.5 * v;
        }
    }
    /* V = C - B: B_ij = beta_ia beta_jb / s_ab for i in b, j in a != b */
    for (int j = 0; j < n; j++) {
        const int a = lab[j];
        const double *Cj = km->C + (size_t) j * n;
        double *Vj = km->V + (size_t) j * n;
        for (int i = 0; i < n; i++) {
            const int b = lab[i];
            double v = Cj[i];
            if (a != b && sab[a + b * k] > 0.0)
                v -= bt[i + (size_t) a * n] * bt[j + (size_t) b * n] / sab[a + b * k];
            Vj[i] = v;
        }
    }
    const double ub = project_bound(km);
    cg_linop A; cg_dense_data d;
    cg_linop_dense(&A, &d, km->V, n, n);
    double lb;
    const int st = cg_psd_support_min(&A, 1.0, 1, 1e-10, &lb);
    km->n_matvec += A.n_matvec;
    return st == CG_OK ? lb - ub : -DBL_MAX;
}

/* On a test of a nearly feasible iterate (relative infeasibility <= 5%):
 * round W to a partition, certify it (partition_bound; a partition tried
 * at the last test is not computed again: same labels, same bound) and
 * raise best_lb with its bound; when the partition's value is within tol of
 * the best bound, W becomes W_p: a feasible point certified tol-optimal,
 * so the run stops there. Returns 1 when W was replaced. */
static int partition_certify(kmeans *km)
{
    cg_problem *P = km->P;
    const int n = km->n;
    if (!km->lab || km->k < 2.0) return 0;
    double scale;
    if (!(km_infeasibility(P, &scale) <= 0.05 * scale)) return 0;
    const void *vmax = vmaxget();
    int ok = round_partition(km, km->lab) == 0;
    vmaxset(vmax);
    if (!ok) return 0;
    double pc, lbp;
    if (km->part_tried && memcmp(km->lab, km->lab_last, n * sizeof(int)) == 0) {
        pc = km->pc_last; lbp = km->lbp_last;
    } else {
        vmax = vmaxget();
        lbp = partition_bound(km, km->lab, &pc);
        vmaxset(vmax);
        memcpy(km->lab_last, km->lab, n * sizeof(int));
        km->pc_last = pc; km->lbp_last = lbp;
        km->part_tried = 1;
    }
    if (lbp == -DBL_MAX) return 0;
    /* never above the feasible W_p's value: equal in exact arithmetic when
     * the certificate is tight, and the rounding of the n^2 sums (~1e-15
     * relative) must not put a bound above a cost */
    const double cap = pc - 1e-12 * fabs(pc);
    if (lbp > cap) lbp = cap;
    if (lbp > km->best_lb) km->best_lb = lbp;
    if (!(km->obj_scale * (pc - km->best_lb) <= P->tol * fabs(km->obj_scale * pc))) return 0;
    /* W_p = sum_a 1_a 1_a' / (k n_a): rows exactly 1 / k, entries >= 0 */
    const int k = (int) km->k;
    int *na = (int *) R_alloc(k, sizeof(int));
    memset(na, 0, k * sizeof(int));
    for (int i = 0; i < n; i++) na[km->lab[i]]++;
    for (int j = 0; j < n; j++) {
        double *Wj = km->W + (size_t) j * n;
        const int a = km->lab[j];
        const double w = 1.0 / (km->k * na[a]);
        for (int i = 0; i < n; i++) Wj[i] = km->lab[i] == a ? w : 0.0;
    }
    for (int i = 0; i < n; i++) km->z1[i] = km->a / km->k;
    return 1;
}

static void km_evaluate(cg_problem *P, double *obj, double *gap)
{
    kmeans *km = (kmeans *) P->self;
    /* the rounded partition's certificate on tests (tol > 0) */
    const int swapped = P->eval_test && km->beta > 0.0 && P->tol > 0.0 && partition_certify(km);
    /* the polish on tests of a nearly feasible iterate: the run stops only
     * there (cg_run_small_gap); not once W is the certified partition */
    int passes = 2;
    if (P->eval_test && !swapped && km->beta > 0.0 && km->Md && km->n > 2) {
        double scale;
        const double infeas = km_infeasibility(P, &scale);
        if (infeas <= 10.0 * P->tol * scale) passes = 3;
    }
    const cg_sdp_eval e = { km->n, km->C, km->W, km->V, km->obj_scale, 1, km->beta, passes,
                            km_form, km, &km->n_matvec, &km->best_lb };
    cg_sdp_evaluate(P, &e, obj, gap);
}

static double km_epoch(cg_problem *P) { return ((kmeans *) P->self)->passes; }
static long km_n_matvec(cg_problem *P) { return ((kmeans *) P->self)->n_matvec; }

static const cg_rows_ops kmeans_rows = {
    km_rows, km_residual, km_add_row, km_set_gradient
};

static const cg_homotopy_ops kmeans_homotopy = {
    km_gradient, km_lmo, km_step, km_dual_step, km_infeasibility, &kmeans_rows
};

int cg_problem_kmeans(cg_problem *P, SEXP spec)
{
    kmeans *km = (kmeans *) R_alloc(1, sizeof(kmeans));
    memset(km, 0, sizeof(kmeans));
    km->best_lb = R_NegInf;
    SEXP C = cg_list_get(spec, "C");
    if (TYPEOF(C) != REALSXP || !isMatrix(C)) error("spec element 'C' must be a double matrix");
    const int n = INTEGER(getAttrib(C, R_DimSymbol))[0];
    if (n < 2 || INTEGER(getAttrib(C, R_DimSymbol))[1] != n) error("spec element 'C' must be square");
    km->n = n; km->C = REAL_RO(C);
    km->k = asReal(cg_list_get(spec, "k"));
    km->obj_scale = asReal(cg_list_get(spec, "obj_scale"));
    if (!(km->k >= 1.0) || !(km->k <= n) || !(km->obj_scale > 0.0)) error("invalid kmeans spec");
    km->a = 1.0 / sqrt(2.0 * n); km->c = 1.0 / sqrt(2.0);
    const size_t nn = (size_t) n * n;
    km->W = cg_zeros(nn); km->V = cg_zeros(nn);
    km->y = cg_zeros(n); km->z1 = cg_zeros(n); km->s = cg_zeros(n);
    km->u = cg_zeros(n);
    /* polish_dual: only a run that tests, and only where its dense
     * eigendecompositions (~n^3 each) stay cheap next to the iterations: at
     * n = 2000 they doubled a default fit's time for no gain */
    if (P->tol > 0.0 && n <= POLISH_MAX_N) km->Md = cg_zeros(nn);
    if (P->tol > 0.0) {                     /* partition_certify: labels */
        km->lab = (int *) R_alloc(n, sizeof(int));
        km->lab_last = (int *) R_alloc(n, sizeof(int));
    }
    SEXP method = cg_list_get(spec, "method");
    const char *name = isString(method) ? CHAR(STRING_ELT(method, 0)) : "cgal";
    if (strcmp(name, "cgal") == 0) km->Y = cg_zeros(nn);      /* multipliers: cgal only */
    if (strcmp(name, "hspider") == 0) {
        km->W_prev = cg_zeros(nn); km->z1_prev = cg_zeros(n);
    }
    /* start at I / n (tr W = 1); the first step (eta = 1) replaces it */
    for (int i = 0; i < n; i++) km->W[i + (size_t) i * n] = 1.0 / n;
    for (int i = 0; i < n; i++) km->z1[i] = km->a / n;
    if (!isNull(cg_list_get(spec, "state_W"))) {   /* init = a previous fit: its state */
        memcpy(km->W, cg_spec_real(spec, "state_W", (R_xlen_t) nn), nn * sizeof(double));
        memcpy(km->y, cg_spec_real(spec, "state_y", n), n * sizeof(double));
        if (km->Y && !isNull(cg_list_get(spec, "state_Y")))
            memcpy(km->Y, cg_spec_real(spec, "state_Y", (R_xlen_t) nn), nn * sizeof(double));
        if (!cg_all_finite(km->W, nn) || !cg_all_finite(km->y, n) || !cg_all_finite(km->z1, n) ||
            (km->Y && !cg_all_finite(km->Y, nn)))
            error("spec: the initial state must be finite");
        /* z1 = a W 1 as the steps kept it (recomputing it differs by rounding) */
        memcpy(km->z1, cg_spec_real(spec, "state_z1", n), n * sizeof(double));
        if (km->W_prev && !isNull(cg_list_get(spec, "state_W_prev"))) {  /* hspider's */
            memcpy(km->W_prev, cg_spec_real(spec, "state_W_prev", (R_xlen_t) nn),
                   nn * sizeof(double));
            memcpy(km->z1_prev, cg_spec_real(spec, "state_z1_prev", n), n * sizeof(double));
            if (!cg_all_finite(km->W_prev, nn) || !cg_all_finite(km->z1_prev, n))
                error("spec: the initial state must be finite");
        }
        if (km->Md && !isNull(cg_list_get(spec, "state_Md"))) {  /* polish_dual's point */
            memcpy(km->Md, cg_spec_real(spec, "state_Md", (R_xlen_t) nn), nn * sizeof(double));
            if (!cg_all_finite(km->Md, nn)) error("spec: the initial state must be finite");
            for (size_t e = 0; e < nn; e++)   /* a valid bound needs Md <= 0 */
                if (km->Md[e] > 0.0) error("spec: invalid resume state");
            km->Md_set = 1;
        }
        if (!isNull(cg_list_get(spec, "state_polish"))) {
            const double *pl = cg_spec_real(spec, "state_polish", 2);
            if (!(pl[0] >= 0.0 && pl[1] >= 0.0 && pl[1] <= pl[0] && pl[0] < 1e15))
                error("spec: invalid resume state");
            km->steps = (long) pl[0]; km->polished_at = (long) pl[1];
        }
        km->beta = asReal(cg_list_get(spec, "state_beta"));
        km->passes = asReal(cg_list_get(spec, "state_passes"));
        km->best_lb = cg_sdp_best_lb(spec);
        if (!R_FINITE(km->beta) || !R_FINITE(km->passes)) error("spec: invalid resume state");
    }
    km->P = P;
    P->self = km;
    P->evaluate = km_evaluate; P->epoch = km_epoch; P->n_matvec = km_n_matvec;
    P->homotopy = &kmeans_homotopy;
    return CG_OK;
}

/* X = k W (dense), the row-sum multipliers in the stated units */
SEXP cg_kmeans_solution(cg_problem *P)
{
    kmeans *km = (kmeans *) P->self;
    const int n = km->n;
    const size_t nn = (size_t) n * n;
    static const char *names[] = {"X", "state_W", "state_Y", "state_y", "state_beta",
                                  "state_passes", "state_z1", "state_W_prev",
                                  "state_z1_prev", "state_best_lb", "state_Md",
                                  "state_polish", ""};
    SEXP out = PROTECT(mkNamed(VECSXP, names));
    SEXP X = PROTECT(allocMatrix(REALSXP, n, n));
    double *x = REAL(X);
    for (size_t e = 0; e < nn; e++) x[e] = km->k * km->W[e];
    cg_symmetrize(x, n);
    SET_VECTOR_ELT(out, 0, X);
    /* the resumable state (init = fit): the raw iterate and multipliers */
    SEXP W = allocVector(REALSXP, nn); SET_VECTOR_ELT(out, 1, W);
    memcpy(REAL(W), km->W, nn * sizeof(double));
    if (km->Y) {
        SEXP Y = allocVector(REALSXP, nn); SET_VECTOR_ELT(out, 2, Y);
        memcpy(REAL(Y), km->Y, nn * sizeof(double));
    }
    SEXP y = allocVector(REALSXP, n); SET_VECTOR_ELT(out, 3, y);
    memcpy(REAL(y), km->y, n * sizeof(double));
    SET_VECTOR_ELT(out, 4, ScalarReal(km->beta));
    SET_VECTOR_ELT(out, 5, ScalarReal(km->passes));
    SEXP z1 = allocVector(REALSXP, n); SET_VECTOR_ELT(out, 6, z1);
    memcpy(REAL(z1), km->z1, n * sizeof(double));
    if (km->W_prev) {         /* hspider: the iterate before the last step */
        SEXP Wp = allocVector(REALSXP, nn); SET_VECTOR_ELT(out, 7, Wp);
        memcpy(REAL(Wp), km->W_prev, nn * sizeof(double));
        SEXP zp = allocVector(REALSXP, n); SET_VECTOR_ELT(out, 8, zp);
        memcpy(REAL(zp), km->z1_prev, n * sizeof(double));
    }
    SET_VECTOR_ELT(out, 9, ScalarReal(km->best_lb));
    if (km->Md_set) {         /* the polished multipliers (polish_dual) */
        SEXP Md = allocVector(REALSXP, nn); SET_VECTOR_ELT(out, 10, Md);
        memcpy(REAL(Md), km->Md, nn * sizeof(double));
    }
    SEXP pl = allocVector(REALSXP, 2); SET_VECTOR_ELT(out, 11, pl);
    REAL(pl)[0] = (double) km->steps; REAL(pl)[1] = (double) km->polished_at;
    UNPROTECT(2);
    return out;
}
