/* Robust PCA as a two-block problem (Garber, Kaplan and Sabach, eq. 1-2):
 *   min 1/2 ||X + Y - M||_F^2 + R_Y(Y)
 *   X: nuclear ball ||X||_* <= tau, or PSD with tr X <= tau;
 *   Y: l1 ball ||Y||_1 <= s, lp ball ||Y||_p <= s (p = 1 + delta), or the
 *      elastic-net penalty R_Y = lambda1 ||Y||_1 + lambda2 ||Y||_F^2.
 * The iteration keeps Z = X + Y (the gradient is Z - M) and Y as dense
 * buffers; X = Z - Y is never needed inside it, so it is formed once, at the
 * end, and returned as a truncated SVD. Each block offers a conditional
 * gradient point (its LMO) and a proximal point (for X the certified-rank
 * weak proximal oracle: a rank-r SVD, never a full one).
 * The default method, admm, splits the problem instead (split table): the
 * constrained form above, or the penalized form (PCP)
 *   min ||X||_* + lambda ||Y||_1  s.t.  X + Y = M,
 * with the certified partial SVD for the X steps; U1 (and U2) are its
 * dual buffers. */
#include "stochcg.h"
#include <string.h>
#include <math.h>
#include <float.h>

enum { Y_L1 = 0, Y_LP = 1, Y_ENET = 2 };
/* Lanczos tolerance of the gaps' extreme singular values: the gap moves
 * them outward by it, and with the default 1e-6 that margin alone (tau
 * sigma_1(G) 5e-7) kept noisy fits above tol = 1e-6 */
#define GAP_TOL 1e-9

typedef struct {
    int m, n, psd, sparse;
    size_t mn;
    const double *M;
    double *Z, *Y, *G;          /* Z = X + Y, G = Z - M (kept current) */
    double *SX, *SY;            /* the blocks' new points; SX is also scratch */
    double tau, s, p, lambda1, lambda2, lmo_tol, trunc_tol;
    int rank, max_rank, certified;
    double loss, regY, regSY;   /* 1/2 ||G||^2, R_Y(Y), R_Y(SY) */
    double iters;               /* full gradients (epochs) */
    double *u, *v;
    long n_matvec;
    cg_problem *P;              /* for cg_fail_status */
    /* admm: U1, U2 the scaled duals of the X and Y copies (constrained
     * form), or U1 the multiplier of X + Y = M (penalized form, pcp);
     * rho the penalty; nuclear = ||X||_* from the last thresholding */
    int pcp;
    double *U1, *U2, rho, lambda, nuclear;
} robust;

static double enet_value(const robust *R, const double *y)
{
    double a = 0.0, b = 0.0;
    for (size_t i = 0; i < R->mn; i++) { a += fabs(y[i]); b += y[i] * y[i]; }
    return R->lambda1 * a + R->lambda2 * b;
}

/* G = Z - M and the loss; R_Y(Y) for the penalty */
static void refresh(robust *R)
{
    double l = 0.0;
    for (size_t i = 0; i < R->mn; i++) {
        R->G[i] = R->Z[i] - R->M[i];
        l += R->G[i] * R->G[i];
    }
    R->loss = 0.5 * l;
    R->regY = R->sparse == Y_ENET ? enet_value(R, R->Y) : 0.0;
}

/* ---------------------------------------------------------------- X block */
/* S = argmin_{S in X} <S, G>: -tau u v' (top singular pair of G), or over the
 * PSD set tau v v' for the smallest eigenpair of sym(G) when negative, else 0.
 * Returns the triplets computed or -1. */
static int x_cg_point(robust *R, double *S)
{
    const int m = R->m, n = R->n, one = 1;
    cg_linop L; cg_dense_data dd;
    double sigma;
    if (R->psd) {
        memcpy(S, R->G, R->mn * sizeof(double));
        cg_symmetrize(S, n);
        cg_linop_dense(&L, &dd, S, n, n);
        int nz = cg_lmo_psd(&L, R->tau, 0, R->u, &sigma);
        R->n_matvec += L.n_matvec;
        if (nz < 0) {
            cg_fail_status(R->P, -nz, "the linear minimization oracle of X");
            return -1;
        }
        memset(S, 0, R->mn * sizeof(double));
        if (nz) F77_CALL(dger)(&m, &n, &R->tau, R->u, &one, R->u, &one, S, &m);
        return 1;
    }
    cg_linop_dense(&L, &dd, R->G, m, n);
    int st = cg_lmo_nuclear(&L, R->tau, R->u, R->v, &sigma, R->lmo_tol);
    R->n_matvec += L.n_matvec;
    if (st != CG_OK) {
        cg_fail_status(R->P, st, "the linear minimization oracle of X");
        return -1;
    }
    memset(S, 0, R->mn * sizeof(double));
    const double c = -R->tau;
    F77_CALL(dger)(&m, &n, &c, R->u, &one, R->v, &one, S, &m);
    return 1;
}

/* V = argmin_{V in X} ||V - A||^2 by the weak proximal oracle, A in S */
static int x_prox_point(robust *R, double *S)
{
    if (R->psd) cg_symmetrize(S, R->n);   /* the PSD projection sees sym(A) */
    int triplets = 0;
    int st = cg_weak_prox(S, R->m, R->n, R->psd ? CG_SET_PSD : CG_SET_NUCLEAR, R->tau,
                          R->max_rank, &R->rank, S, &R->certified, &triplets,
                          &R->n_matvec);
    cg_fail_status(R->P, st, "the weak proximal oracle of X");
    return st == CG_OK ? triplets : -1;
}

/* ---------------------------------------------------------------- Y block */
/* S = argmin R_Y(S) + <S, G>; the elastic net's is -soft(G, l1) / (2 l2) */
static void y_cg_point(robust *R, double *S)
{
    const size_t mn = R->mn;
    R->regSY = 0.0;
    if (R->sparse == Y_L1) {
        int idx; double val;
        cg_lmo_l1(R->G, (int) mn, R->s, &idx, &val);
        memset(S, 0, mn * sizeof(double));
        S[idx] = val;
    } else if (R->sparse == Y_LP) {
        cg_lmo_lp(R->G, (int) mn, R->s, R->p, S);
    } else {
        for (size_t i = 0; i < mn; i++) S[i] = -R->G[i];
        cg_soft_threshold(S, (int) mn, R->lambda1);
        for (size_t i = 0; i < mn; i++) S[i] /= 2.0 * R->lambda2;
        R->regSY = enet_value(R, S);
    }
}

/* V = argmin R_Y(V) + c/2 ||V - A||^2, A in S */
static int y_prox_point(robust *R, double *S, double c)
{
    const int n = (int) R->mn;
    R->regSY = 0.0;
    if (R->sparse == Y_L1) cg_proj_l1(S, n, R->s, S, NULL);
    else if (R->sparse == Y_LP) {
        const int st = cg_proj_lp(S, R->mn, R->s, R->p, S);
        cg_fail_status(R->P, st, "the projection of Y onto the lp ball");
        if (st != CG_OK) return -1;
    } else {
        cg_prox_enet(S, n, R->lambda1, R->lambda2, 1.0 / c);
        R->regSY = enet_value(R, S);
    }
    return 0;
}

/* ------------------------------------------------------------------ ADMM */
/* Residual balancing (Boyd et al. 2011, Sec. 3.4.1; normalized residuals as
 * in Wohlberg 2017): the penalty doubles when the primal residual is ten
 * times the dual one, and halves in the opposite case; every iteration for
 * PCP, every 10th for the constrained form. Measured on real matrices:
 * PCP every iteration 170 iterations on stock and volcano, every 5th or
 * 10th 340 and 190-220; the constrained form every iteration kept undoing
 * progress (volcano 1360 iterations against 900 every 10th). */
static int rebalance(const robust *R, double primal, double dual)
{
    if (!R->pcp && (long) R->iters % 10 != 0) return 0;
    return primal > 10.0 * dual ? 1 : dual > 10.0 * primal ? -1 : 0;
}

/* Constrained form, min F(W) + G(V) s.t. W = V over W, V = (X, Y), with
 * F(X, Y) = 1/2 ||X + Y - M||^2 and G the sets (or the elastic net on Y);
 * scaled ADMM with penalty rho (Douglas-Rachford with step 1/rho),
 * over-relaxed (Boyd et al. 3.4.3; Eckstein and Bertsekas 1992):
 *   W = prox_{F/rho}(V - U), Wh = a W + (1 - a) V,
 *   V = P_G(Wh + U), U = U + Wh - V.
 * prox_F moves both blocks by the same c = (X + Y - M - U1 - U2)/(rho + 2),
 * so W = V_old - U - c and Wh + U = V_old + (1 - a) U - a c. Every V is
 * feasible: X is the certified projection (exact, of the rank found), Y the
 * l1 / lp projection (sparse) or the elastic-net prox. Returns the singular
 * triplets computed, or -1. */
/* relaxation a, with the starting rho = 0.03 of admm_penalty() (R/robust-pca.R):
 * measured iterations to the 1e-6 gap on stock / volcano / tissue with
 * rpca's bounds (optimum ~0), and on rank-5 + sparse + N(0, 0.1^2) 200 x 300
 * with 0.8 x the true norms (noisy): a = 1, rho 0.01 (before): 337 / 709 /
 * 574 / 73; a = 1.5: 788 / 244 / 272 / 58; 1.6: 272 / 417 / 244 / 52;
 * 1.7: 417 / 375 / 244 / 58; 1.8: 516 / 375 / 219 / 58. rho decides as much
 * as a (balancing seldom fires on these): a = 1, rho 0.003 / 0.03 / 0.1 took
 * 788 / 974 / 1000 (the cap) on stock; a = 1.5, rho 0.01: 464 / 516 / 516 / 65.
 * Stock is erratic in both; the noisy optimum was the same to 10 digits. */
#define DR_RELAX 1.6

static int split_constrained(robust *R)
{
    const size_t mn = R->mn;
    double *X = R->SX, *Y = R->SY;
    const double c0 = 1.0 / (R->rho + 2.0), a = DR_RELAX;
    for (size_t i = 0; i < mn; i++) {
        const double c = c0 * (R->G[i] - R->U1[i] - R->U2[i]);
        X[i] = R->Z[i] - R->Y[i] + (1.0 - a) * R->U1[i] - a * c;
        Y[i] = R->Y[i] + (1.0 - a) * R->U2[i] - a * c;
    }
    const int tri = x_prox_point(R, X);
    if (tri < 0 || y_prox_point(R, Y, R->rho) < 0) return -1;
    /* U <- Wh + U - V_new; residuals W - V_new (= V_old - U - c - V_new)
     * and V_new - V_old, each relative to its own scale */
    double pr = 0.0, du = 0.0, wv = 0.0, uu = 0.0;
    for (size_t i = 0; i < mn; i++) {
        const double c = c0 * (R->G[i] - R->U1[i] - R->U2[i]);
        const double xo = R->Z[i] - R->Y[i], yo = R->Y[i];
        const double u1 = xo + (1.0 - a) * R->U1[i] - a * c - X[i];
        const double u2 = yo + (1.0 - a) * R->U2[i] - a * c - Y[i];
        const double r1 = xo - R->U1[i] - c - X[i], r2 = yo - R->U2[i] - c - Y[i];
        pr += r1 * r1 + r2 * r2;
        du += (X[i] - xo) * (X[i] - xo) + (Y[i] - yo) * (Y[i] - yo);
        wv += X[i] * X[i] + Y[i] * Y[i];
        uu += u1 * u1 + u2 * u2;
        R->U1[i] = u1; R->U2[i] = u2;
        R->Z[i] = X[i] + Y[i];
        R->Y[i] = Y[i];
    }
    refresh(R);
    const int b = rebalance(R, sqrt(pr / fmax(wv, DBL_MIN)), sqrt(du / fmax(uu, DBL_MIN)));
    if (b) {                               /* the scaled dual follows 1 / rho */
        const double f = b > 0 ? 2.0 : 0.5;
        R->rho *= f;
        for (size_t i = 0; i < mn; i++) { R->U1[i] /= f; R->U2[i] /= f; }
    }
    return tri;
}

/* Penalized form (PCP), min ||X||_* + lambda ||Y||_1 s.t. X + Y = M, by
 * ADMM on the augmented Lagrangian (the alternating direction / inexact ALM
 * of Lin, Chen and Ma 2010 and Candes et al. 2011; what rpca::rpca runs
 * with a fixed rho and a full SVD): X = SVT(M - Y + U/rho, 1/rho) by the
 * certified partial SVD, Y = soft(M - X + U/rho, lambda/rho),
 * U = U + rho (M - X - Y), over-relaxed; rho balanced as above. */
/* relaxation of the PCP iteration: measured iterations to a 1e-6 gap (R
 * prototype, full SVD) on volcano / stock / tissue: 1.0: 170 / 170 / 210,
 * 1.3: 140 / 270 / 160, 1.6: 120 / 220 / 130, 1.7: 110 / 200 / 120,
 * 1.9: 120 / 180 / 110 */
#define PCP_RELAX 1.7

static int split_pcp(robust *R)
{
    const size_t mn = R->mn;
    double *X = R->SX, *Y = R->SY;
    const double ir = 1.0 / R->rho;
    for (size_t i = 0; i < mn; i++) X[i] = R->M[i] - R->Y[i] + ir * R->U1[i];
    int tri = 0;
    const int st = cg_svt(X, R->m, R->n, ir, R->max_rank, &R->rank, X, &R->certified, &tri,
                          &R->n_matvec, &R->nuclear);
    cg_fail_status(R->P, st, "the singular value thresholding of X");
    if (st != CG_OK) return -1;
    /* over-relaxation (Boyd et al. 3.4.3): Y and U see
     * Xh = a X + (1 - a)(M - Y_old) */
    const double a = PCP_RELAX;
    for (size_t i = 0; i < mn; i++) {
        const double xh = a * X[i] + (1.0 - a) * (R->M[i] - R->Y[i]);
        Y[i] = R->M[i] - xh + ir * R->U1[i];
    }
    cg_soft_threshold(Y, (int) mn, R->lambda * ir);
    double pr = 0.0, du = 0.0;
    for (size_t i = 0; i < mn; i++) {
        const double r = R->M[i] - X[i] - Y[i];
        const double xh = a * X[i] + (1.0 - a) * (R->M[i] - R->Y[i]);
        pr += r * r;
        du += (Y[i] - R->Y[i]) * (Y[i] - R->Y[i]);
        R->U1[i] += R->rho * (R->M[i] - xh - Y[i]);
        R->Z[i] = X[i] + Y[i];
        R->Y[i] = Y[i];
    }
    refresh(R);
    /* primal ||M - X - Y||, dual rho ||Y - Y_old|| (Boyd et al. 3.3) */
    const int b = rebalance(R, sqrt(pr), R->rho * sqrt(du));
    if (b) R->rho *= b > 0 ? 2.0 : 0.5;
    return tri;
}

/* Objective ||X||_* + lambda ||Y||_1 of the returned parts, and a bound
 *   gap = f(X, M - X) - <Lam, M> + lambda ||M - X - Y||_1
 * with Lam = U / max(||U||_2, ||U||_inf / lambda) dual feasible, so
 * <Lam, M> <= optimum. The gap bounds f(X, M - X) - optimum (the feasible
 * point with the same X), f(X, Y) - optimum (triangle inequality) and
 * lambda ||M - X - Y||_1 (the infeasibility), all at once. */
static void pcp_evaluate(robust *R, double *obj, double *gap)
{
    const size_t mn = R->mn;
    double y1 = 0.0, mx1 = 0.0, r1 = 0.0, um = 0.0, umax = 0.0;
    for (size_t i = 0; i < mn; i++) {
        const double x = R->Z[i] - R->Y[i];
        y1 += fabs(R->Y[i]);
        mx1 += fabs(R->M[i] - x);
        r1 += fabs(R->G[i]);
        um += R->U1[i] * R->M[i];
        if (fabs(R->U1[i]) > umax) umax = fabs(R->U1[i]);
    }
    *obj = R->nuclear + R->lambda * y1;
    double scale = umax / R->lambda;
    if (umax > 0.0) {
        double sig;
        cg_linop L; cg_dense_data dd;
        cg_linop_dense(&L, &dd, R->U1, R->m, R->n);
        const int st = cg_extreme_value_tol(&L, 0, R->rank, GAP_TOL, &sig);
        if (st != CG_OK) { *gap = cg_gap_failed(R->P, st); return; }
        if (sig > scale) scale = sig;
    }
    const double dual = scale > 0.0 ? um / scale : 0.0;
    const double g = R->nuclear + R->lambda * mx1 - dual + R->lambda * r1;
    *gap = g < 0.0 ? 0.0 : g;
}

static int rb_split_step(cg_problem *P)
{
    robust *R = (robust *) P->self;
    return R->pcp ? split_pcp(R) : split_constrained(R);
}

/* ------------------------------------------------------ problem interface */
static double rb_gradient(cg_problem *P, int batch)
{
    (void) batch;                          /* deterministic: G is kept current */
    ((robust *) P->self)->iters += 1.0;
    return 1.0;
}

/* prox: A = Z - S_other - G / eta, then the block's proximal point (beta = 1) */
static int rb_block_point(cg_problem *P, int block, int prox, double eta)
{
    robust *R = (robust *) P->self;
    double *S = block == CG_BLOCK_X ? R->SX : R->SY;
    if (!prox) {
        if (block == CG_BLOCK_X) return x_cg_point(R, S);
        y_cg_point(R, S);
        return 0;
    }
    const double *other = block == CG_BLOCK_X ? R->SY : R->SX;
    const double c = 1.0 / eta;
    for (size_t i = 0; i < R->mn; i++) S[i] = R->Z[i] - other[i] - c * R->G[i];
    return block == CG_BLOCK_X ? x_prox_point(R, S) : y_prox_point(R, S, eta);
}

/* exact step for 1/2 ||G + gamma D||^2 + gamma (R_Y(SY) - R_Y(Y)), D = SX + SY - Z;
 * for the penalty the second term is the convexity bound on R_Y along the
 * segment (the bound the analysis uses), so the objective still decreases */
static double rb_line_search(cg_problem *P)
{
    robust *R = (robust *) P->self;
    double gd = 0.0, dd = 0.0;
    for (size_t i = 0; i < R->mn; i++) {
        const double d = R->SX[i] + R->SY[i] - R->Z[i];
        gd += R->G[i] * d;
        dd += d * d;
    }
    if (!(dd > 0.0)) return 0.0;
    const double g = -(gd + R->regSY - R->regY) / dd;
    return g < 0.0 ? 0.0 : (g > 1.0 ? 1.0 : g);
}

static void rb_fw_step(cg_problem *P, double gamma)
{
    robust *R = (robust *) P->self;
    for (size_t i = 0; i < R->mn; i++) {
        R->Z[i] += gamma * (R->SX[i] + R->SY[i] - R->Z[i]);
        R->Y[i] += gamma * (R->SY[i] - R->Y[i]);
    }
    refresh(R);
}

/* exact minimization over one block with the other fixed (a proximal step
 * with step 1 / beta = 1): X <- Proj(M - Y) = Proj(X - G) by the weak
 * proximal oracle, or Y <- prox(M - X) = prox(Y - G); returns the singular
 * triplets computed, or -1 */
static int rb_block_exact(cg_problem *P, int block)
{
    robust *R = (robust *) P->self;
    const int x = block == CG_BLOCK_X;
    double *S = x ? R->SX : R->SY, *keep = x ? R->Y : R->Z;
    for (size_t i = 0; i < R->mn; i++)
        S[i] = x ? R->Z[i] - R->Y[i] - R->G[i] : R->Y[i] - R->G[i];
    const int st = x ? x_prox_point(R, S) : y_prox_point(R, S, 1.0);
    if (st < 0) return -1;
    if (x) {
        for (size_t i = 0; i < R->mn; i++) R->Z[i] = S[i] + keep[i];
    } else {
        for (size_t i = 0; i < R->mn; i++) {
            keep[i] += S[i] - R->Y[i];             /* Z */
            R->Y[i] = S[i];
        }
    }
    refresh(R);
    return st;
}

/* objective, and the joint Frank-Wolfe gap
 *   <G, X> - min_{S in X} <G, S> + <G, Y> + R_Y(Y) - min_W (<G, W> + R_Y(W)),
 * an upper bound on objective - optimum. Uses SX as scratch. */
static void rb_evaluate(cg_problem *P, double *obj, double *gap)
{
    robust *R = (robust *) P->self;
    if (R->pcp) { pcp_evaluate(R, obj, gap); return; }
    const size_t mn = R->mn;
    *obj = R->loss + R->regY;
    double gz = 0.0, gmax = 0.0;
    for (size_t i = 0; i < mn; i++) {
        gz += R->G[i] * R->Z[i];
        if (fabs(R->G[i]) > gmax) gmax = fabs(R->G[i]);
    }
    double minx, miny = 0.0, sig;
    cg_linop L; cg_dense_data dd;
    if (R->psd) {
        memcpy(R->SX, R->G, mn * sizeof(double));
        cg_symmetrize(R->SX, R->n);
        cg_linop_dense(&L, &dd, R->SX, R->n, R->n);
        const int st = cg_extreme_value_tol(&L, -1, R->rank, GAP_TOL, &sig);
        if (st != CG_OK) { *gap = cg_gap_failed(P, st); return; }
        minx = R->tau * fmin(sig, 0.0);
    } else {
        cg_linop_dense(&L, &dd, R->G, R->m, R->n);
        const int st = cg_extreme_value_tol(&L, 0, R->rank, GAP_TOL, &sig);
        if (st != CG_OK) { *gap = cg_gap_failed(P, st); return; }
        minx = -R->tau * sig;
    }
    if (R->sparse == Y_L1) miny = -R->s * gmax;
    else if (R->sparse == Y_LP) {          /* -s ||G||_q, q = p / (p - 1) */
        const double q = R->p / (R->p - 1.0);
        double sq = 0.0;
        if (gmax > 0.0) for (size_t i = 0; i < mn; i++) sq += pow(fabs(R->G[i]) / gmax, q);
        miny = -R->s * gmax * pow(sq, 1.0 / q);
    } else {                               /* -||soft(G, l1)||^2 / (4 l2) */
        double ss = 0.0;
        for (size_t i = 0; i < mn; i++) {
            const double a = fabs(R->G[i]) - R->lambda1;
            if (a > 0.0) ss += a * a;
        }
        miny = -ss / (4.0 * R->lambda2);
    }
    const double g = gz + R->regY - minx - miny;
    *gap = g < 0.0 ? 0.0 : g;              /* NaN stays NaN (fmax would drop it) */
}

static double rb_epoch(cg_problem *P) { return ((robust *) P->self)->iters; }
static long rb_n_matvec(cg_problem *P) { return ((robust *) P->self)->n_matvec; }

/* the paper's two-block methods (constrained form), and admm (split_step,
 * with its dual buffers) */
static const cg_block_ops robust_block = {rb_gradient, rb_block_point, rb_block_exact,
                                          rb_line_search, rb_fw_step};
static const cg_split_ops robust_admm = {"admm", rb_gradient, rb_split_step};

int cg_problem_robust(cg_problem *P, SEXP spec)
{
    robust *R = (robust *) R_alloc(1, sizeof(robust));
    memset(R, 0, sizeof(robust));
    SEXP M = cg_list_get(spec, "M");
    if (TYPEOF(M) != REALSXP || !isMatrix(M)) error("spec element 'M' must be a double matrix");
    R->m = INTEGER(getAttrib(M, R_DimSymbol))[0];
    R->n = INTEGER(getAttrib(M, R_DimSymbol))[1];
    R->mn = (size_t) R->m * R->n;
    if (R->m < 1 || R->n < 1) error("spec element 'M' must not be empty");
    R->M = REAL_RO(M);
    R->psd = asLogical(cg_list_get(spec, "psd"));
    R->sparse = asInteger(cg_list_get(spec, "sparse"));
    R->tau = asReal(cg_list_get(spec, "tau"));
    R->s = asReal(cg_list_get(spec, "s"));
    R->p = asReal(cg_list_get(spec, "p"));
    R->lambda1 = asReal(cg_list_get(spec, "lambda1"));
    R->lambda2 = asReal(cg_list_get(spec, "lambda2"));
    R->lmo_tol = asReal(cg_list_get(spec, "lmo_tol"));
    R->trunc_tol = asReal(cg_list_get(spec, "lowrank_tol"));
    R->rank = asInteger(cg_list_get(spec, "rank"));
    R->max_rank = asInteger(cg_list_get(spec, "max_rank"));
    if (R->sparse < Y_L1 || R->sparse > Y_ENET || (R->psd && R->m != R->n))
        error("invalid robust PCA spec");
    R->Z = cg_zeros(R->mn); R->Y = cg_zeros(R->mn); R->G = cg_zeros(R->mn);
    R->SX = cg_zeros(R->mn); R->SY = cg_zeros(R->mn);
    R->u = cg_zeros(R->m); R->v = cg_zeros(R->n);
    R->pcp = asLogical(cg_list_get(spec, "pcp")) == TRUE;
    R->lambda = asReal(cg_list_get(spec, "lambda"));
    R->rho = asReal(cg_list_get(spec, "rho"));
    if (asLogical(cg_list_get(spec, "admm")) == TRUE) {
        if (!(R->rho > 0.0) || (R->pcp && (!(R->lambda > 0.0) || R->psd || R->sparse != Y_L1)))
            error("invalid robust PCA spec");
        R->U1 = cg_zeros(R->mn);
        R->U2 = R->pcp ? NULL : cg_zeros(R->mn);
    } else if (R->pcp) error("invalid robust PCA spec");
    /* (X_1, Y_1) = (0, 0), or a warm start (X, Y) from a previous fit, made
     * feasible by the caller; the blocks' points start there too */
    SEXP iX = cg_list_get(spec, "init_X");
    if (!isNull(iX)) {
        const double *x0 = cg_spec_real(spec, "init_X", (R_xlen_t) R->mn);
        const double *y0 = cg_spec_real(spec, "init_Y", (R_xlen_t) R->mn);
        if (!cg_all_finite(x0, R->mn) || !cg_all_finite(y0, R->mn))
            error("spec: the initial X and Y must be finite");
        for (size_t i = 0; i < R->mn; i++) {
            R->Y[i] = R->SY[i] = y0[i];
            R->SX[i] = x0[i];
            R->Z[i] = x0[i] + y0[i];
        }
        /* PCP's objective reads ||X||_* from the last thresholding: before
         * the first, that of the start */
        SEXP nx = cg_list_get(spec, "init_nuclear");
        if (!isNull(nx)) R->nuclear = asReal(nx);
    }
    /* init = a fit of the same problem, method and settings: its state
     * (every buffer and scalar the next iteration and evaluation read: Z,
     * the rank hint, and for admm its duals and penalty), so that the run
     * goes on exactly as one longer run would; Y comes from the fit's
     * solution, which holds it exactly. The blocks' points SX, SY are
     * written before they are read in every iteration: no state. */
    if (!isNull(cg_list_get(spec, "state_Z"))) {
        const size_t bytes = R->mn * sizeof(double);
        memcpy(R->Z, cg_spec_real(spec, "state_Z", (R_xlen_t) R->mn), bytes);
        memcpy(R->Y, cg_spec_real(spec, "state_Y", (R_xlen_t) R->mn), bytes);
        R->rank = asInteger(cg_list_get(spec, "state_rank"));
        R->certified = asLogical(cg_list_get(spec, "state_certified")) == TRUE;
        /* epochs (full gradients); the constrained admm rebalances every 10th */
        R->iters = P->iter_offset;
        if (R->rank == NA_INTEGER || R->rank < 0 || R->rank > R->max_rank)
            error("spec: invalid robust PCA state");
        if (R->U1) {
            memcpy(R->U1, cg_spec_real(spec, "state_U1", (R_xlen_t) R->mn), bytes);
            if (R->U2) memcpy(R->U2, cg_spec_real(spec, "state_U2", (R_xlen_t) R->mn), bytes);
            R->rho = asReal(cg_list_get(spec, "state_rho"));
            R->nuclear = asReal(cg_list_get(spec, "state_nuclear"));
            if (!(R->rho > 0.0) || !R_FINITE(R->nuclear))
                error("spec: invalid robust PCA state");
        }
    }
    refresh(R);
    P->self = R;
    R->P = P;
    /* the constrained form's optimum is often ~0 (M nearly in the sum of
     * the sets): its gap is measured against the objective at (0, 0) too */
    P->evaluate = rb_evaluate; P->epoch = rb_epoch; P->n_matvec = rb_n_matvec;
    P->block = R->pcp ? NULL : &robust_block;   /* the penalized form is admm's only */
    P->split = R->U1 ? &robust_admm : NULL;     /* admm needs its dual buffers */
    /* the resumed trace row repeats the last iteration's SVD rank */
    SEXP last = cg_list_get(spec, "state_svd_rank");
    P->svd_rank = isNull(last) ? 0 : asInteger(last);
    return CG_OK;
}

/* ------------------------------------------------------------- solution */
/* X = Z - Y as a truncated SVD (eigendecomposition over the PSD set): the
 * smallest rank whose dropped part has Frobenius norm <= tol ||X||_F. The
 * iterate is a convex combination of many rank-r points, so its exact rank
 * grows with the iterations while the tail is of the order of the
 * optimization error; the dropped norm is reported. */
static int truncate_x(robust *R, double tol, int *rank_out, double **u_out,
                      double **d_out, double **v_out, double *tail_out)
{
    const int m = R->m, n = R->n, mn = m < n ? m : n;
    double *X = R->SX, norm2 = 0.0;
    for (size_t i = 0; i < R->mn; i++) { X[i] = R->Z[i] - R->Y[i]; norm2 += X[i] * X[i]; }
    if (R->psd) cg_symmetrize(X, n);
    *rank_out = 0; *tail_out = 0.0;
    if (norm2 == 0.0) return CG_OK;
    const double bound = tol * tol * norm2;
    int k = R->rank > 0 ? R->rank + 1 : 2;
    /* cost cap: at most max(64, 4 (r + 1)) triplets, a full LAPACK SVD only
     * for small matrices; a larger remainder stays in the reported tail */
    int kmax = 4 * (R->rank + 1) > 64 ? 4 * (R->rank + 1) : 64;
    if (mn <= 2 * kmax || mn <= 300) kmax = mn;
    if (k > kmax) k = kmax;
    double *d, *u, *v, rest = 0.0;
    for (;;) {
        if (2 * k >= mn) k = mn;           /* LAPACK then: take every value */
        d = (double *) R_alloc(k, sizeof(double));
        u = (double *) R_alloc((size_t) m * k, sizeof(double));
        v = R->psd ? u : (double *) R_alloc((size_t) n * k, sizeof(double));
        cg_linop L; cg_dense_data dd;
        cg_linop_dense(&L, &dd, X, m, n);
        const int st = R->psd ? cg_eigs_sym(&L, k, +1, d, u) : cg_svds(&L, k, 1e-10, d, u, v);
        if (st != CG_OK) return st;
        /* mass beyond the k values; below ~500 eps of ||X||^2 the
         * difference is rounding, not spectrum */
        double kept = 0.0;
        for (int j = 0; j < k; j++) kept += d[j] * d[j];
        rest = norm2 - kept;
        if (rest < 1e-13 * norm2 || k == mn) rest = 0.0;
        if (rest <= bound || k >= kmax) break;
        k = 2 * k;
        if (k > kmax) k = kmax;
    }
    /* smallest rank r whose tail (rest + values r+1..k) meets the bound;
     * over the PSD set negative eigenvalues are dropped as well */
    double tail = rest;
    int r = k;
    while (r > 0 && (tail + d[r - 1] * d[r - 1] <= bound || (R->psd && d[r - 1] <= 0.0))) {
        tail += d[r - 1] * d[r - 1];
        r--;
    }
    *rank_out = r; *u_out = u; *d_out = d; *v_out = v;
    *tail_out = sqrt(tail / norm2);
    return CG_OK;
}

static SEXP real_matrix(const double *x, int m, int n)
{
    SEXP out = allocMatrix(REALSXP, m, n);
    if ((size_t) m * n) memcpy(REAL(out), x, (size_t) m * n * sizeof(double));
    return out;
}

SEXP cg_robust_solution(cg_problem *P)
{
    robust *R = (robust *) P->self;
    int r = 0;
    double *u = NULL, *d = NULL, *v = NULL, tail = NA_REAL;
    int st = truncate_x(R, R->trunc_tol, &r, &u, &d, &v, &tail);
    static const char *names[] = {"u", "d", "v", "tail", "Y_p", "Y_i", "Y_x",
                                  "certified_rank", "status", "infeasibility",
                                  "state_Z", "state_U1", "state_U2", "state_rho",
                                  "state_rank", "state_certified", "state_nuclear",
                                  "state_iters", "state_svd_rank", ""};
    SEXP out = PROTECT(mkNamed(VECSXP, names));
    if (st == CG_OK) {
        SET_VECTOR_ELT(out, 0, real_matrix(u, R->m, r));
        SEXP dv = allocVector(REALSXP, r);
        SET_VECTOR_ELT(out, 1, dv);
        if (r) memcpy(REAL(dv), d, r * sizeof(double));
        SET_VECTOR_ELT(out, 2, real_matrix(v, R->n, r));
        SET_VECTOR_ELT(out, 3, ScalarReal(tail));
    }
    /* Y in compressed sparse columns (exact zeros dropped) */
    size_t nnz = 0;
    for (size_t i = 0; i < R->mn; i++) nnz += R->Y[i] != 0.0;
    SEXP yp = PROTECT(allocVector(INTSXP, R->n + 1));
    SEXP yi = PROTECT(allocVector(INTSXP, nnz));
    SEXP yx = PROTECT(allocVector(REALSXP, nnz));
    size_t t = 0;
    INTEGER(yp)[0] = 0;
    for (int j = 0; j < R->n; j++) {
        for (int i = 0; i < R->m; i++) {
            const double y = R->Y[i + (size_t) j * R->m];
            if (y != 0.0) { INTEGER(yi)[t] = i; REAL(yx)[t] = y; t++; }
        }
        INTEGER(yp)[j + 1] = (int) t;
    }
    SET_VECTOR_ELT(out, 4, yp);
    SET_VECTOR_ELT(out, 5, yi);
    SET_VECTOR_ELT(out, 6, yx);
    SET_VECTOR_ELT(out, 7, ScalarInteger(R->certified ? R->rank : NA_INTEGER));
    SET_VECTOR_ELT(out, 8, ScalarInteger(st));
    /* penalized form: ||M - X - Y||_F / ||M||_F (G = X + Y - M) */
    double mm = 0.0;
    for (size_t i = 0; i < R->mn; i++) mm += R->M[i] * R->M[i];
    SET_VECTOR_ELT(out, 9, ScalarReal(!R->pcp ? NA_REAL
                                      : mm > 0.0 ? sqrt(2.0 * R->loss / mm) : 0.0));
    /* the state for init = (see above); admm's duals and penalty */
    SET_VECTOR_ELT(out, 10, real_matrix(R->Z, R->m, R->n));
    if (R->U1) {
        SET_VECTOR_ELT(out, 11, real_matrix(R->U1, R->m, R->n));
        if (R->U2) SET_VECTOR_ELT(out, 12, real_matrix(R->U2, R->m, R->n));
        SET_VECTOR_ELT(out, 13, ScalarReal(R->rho));
        SET_VECTOR_ELT(out, 16, ScalarReal(R->nuclear));
    }
    SET_VECTOR_ELT(out, 14, ScalarInteger(R->rank));
    SET_VECTOR_ELT(out, 15, ScalarLogical(R->certified != 0));
    SET_VECTOR_ELT(out, 17, ScalarInteger((int) R->iters));
    SET_VECTOR_ELT(out, 18, ScalarInteger(P->svd_rank));
    UNPROTECT(4);
    return out;
}
