/* Low-rank + sparse matrix estimation (Garber and Kaplan 2019, eqs. 2, 7):
 *   min_X 1/2 ||X - E[M]||_F^2 + lambda ||X||_1
 *   over the nuclear ball ||X||_* <= tau or the PSD cone with tr X <= tau.
 * The l1 term is smoothed by Huber (mu = P->mu, see smooth.c) for the
 * gradient-based steps; the trace reports the original nonsmooth objective
 * and a certified gap of it (smoothed gap + dual residual). E[M] comes from:
 *   a fixed matrix (deterministic), the Gaussian oracle M_i = M0 + sigma Q_i,
 *   an R function returning the mean of k fresh observations, or the rows of
 *   a data matrix (finite sum, M_i = c (x_i - xbar)(x_i - xbar)', c = n/(n-1),
 *   so that E[M] is the sample covariance).
 * For this loss grad g_i(X) - grad g_i(X_s) = X - X_s for every sample, so
 * the variance-reduced estimator of the inner loop is X - Mbar_s exactly; the
 * samples it prescribes are counted in n_grad but need not be drawn. */
#include "stochcg.h"
#include "prob_sampler.h"
#include <string.h>
#include <math.h>

enum { SRC_MATRIX = 0, SRC_GAUSS = 1, SRC_RFUN = 2, SRC_ROWS = 3 };
enum { LOSS_DIST = 0, LOSS_SENSING = 1 };        /* 1/2||X - E M||^2, sensing */
enum { REG_L1 = 0, REG_ENET = 1, REG_MAXLIN = 2 };

typedef struct {
    int m, n, set, source;
    size_t mn;
    const double *M;               /* fixed matrix, M0, or covariance; target */
    double sigma;                  /* Gaussian oracle noise */
    SEXP rcall, rho;               /* R sampler: the call f(k), built in R */
    int nobs, sparse;              /* finite sum over rows */
    int block;                     /* rows of B (centred rows, column-major) */
    const double *Xd; const int *rp, *ci; const double *rx;
    const double *xbar; double c;
    cg_sampler smp; int *batch_idx; double *B;
    double lambda, tau;
    int loss, reg;                 /* LOSS_*, REG_* */
    double lambda2;                /* elastic net: lambda2 ||X||_F^2 */
    /* a sparse linear operator by rows (CSR over the m*n entries of vec X):
     * the sensing measurements (loss) or the max-of-linear-forms term */
    int nop; const int *op_p, *op_j; const double *op_x, *op_b;
    double *w, *wp;                /* nop scratch: values, softmax weights */
    /* the last snapshot (Mbar, or Xs and gtil for sensing): 0 none, 1 of
     * the exact mean or all measurements (recomputed on resuming), 2 sampled
     * (kept in the fit's state) */
    int snapshot_taken;
    cg_sampler osmp; int *obatch;  /* measurement minibatches (sensing) */
    double *Xs, *gtil;             /* snapshot (sensing) */
    int rank, max_rank, certified;
    double used;                   /* sample gradients used (epochs) */
    double *X, *Mbar, *Mb, *G, *A, *V, *u, *v, *Gf;
    int s_kind;                    /* last LMO: 0 none (S = 0), 1 atom */
    long n_matvec;
    cg_problem *P;                 /* for cg_fail */
    double calls;                  /* calls of the R sampler by the solver */
} lowrank;

static double sample_mean_raw(lowrank *L, int k, double *out);

/* mean of k observations of M into out; k = CG_BATCH_FULL: E[M] itself.
 * Over the PSD set the iterate is symmetric and 1/2 ||X - M||^2 differs from
 * 1/2 ||X - sym(M)||^2 by a constant, so observations are symmetrized.
 * A sampler that fails records why (P->stop) and leaves out unchanged. */
static double sample_mean(lowrank *L, int k, double *out)
{
    double used = sample_mean_raw(L, k, out);
    if ((L->source == SRC_GAUSS || L->source == SRC_ROWS) && k != CG_BATCH_FULL &&
        !cg_all_finite(out, L->mn))
        cg_fail(L->P, "the sampled mean of M overflowed double precision (the data or sigma "
                "are too large: scale them)");
    if (L->set == CG_SET_PSD) cg_symmetrize(out, L->n);
    return used;
}

/* ---- the user's R sampler M(k), called through cg_call_user_matrix: an R
 * error or a Ctrl-C inside it must not longjmp out of the solve (the fit
 * would be lost); it stops the run instead, with the last complete iterate */

/* one call M(k); its value (an m x n matrix of finite values) into out, or
 * a failure recorded. Returns 1 on success. */
static int rfun_sample(lowrank *L, int k, double *out)
{
    SEXP kk = PROTECT(ScalarInteger(k));
    SETCADR(L->rcall, kk);
    char which[96];
    snprintf(which, sizeof which, "its call %.0f by the solver (k = %d)", ++L->calls, k);
    SEXP x = cg_call_user_matrix(L->P, L->rcall, L->rho, L->m, L->n, "the sampler `M(k)`", which);
    int ok = x != R_NilValue;
    if (ok) {
        memcpy(out, REAL(x), L->mn * sizeof(double));
        UNPROTECT(1);
    }
    UNPROTECT(1);
    return ok;
}

static double sample_mean_raw(lowrank *L, int k, double *out)
{
    const size_t mn = L->mn;
    if (L->source == SRC_MATRIX || k == CG_BATCH_FULL) {
        if (L->M == NULL) error("the exact mean of the sampler is unknown");
        memcpy(out, L->M, mn * sizeof(double));
        return L->source == SRC_ROWS ? L->nobs : (L->source == SRC_MATRIX ? 1 : 0);
    }
    if (k < 1) k = 1;
    switch (L->source) {
    case SRC_GAUSS: {            /* mean of k draws of M0 + sigma Q, exactly */
        const double s = L->sigma / sqrt((double) k);
        for (size_t i = 0; i < mn; i++) out[i] = L->M[i] + s * norm_rand();
        return k;
    }
    case SRC_RFUN:
        return rfun_sample(L, k, out) ? k : 0;
    default: {                   /* rows: c/k * Bc' Bc by BLAS */
        /* centred rows are dense even for sparse data: they go through B in
         * blocks of ~10^8 flops (>= 256 rows), so B stays block x p however
         * large the batch, with Ctrl-C polled between blocks; out is not used
         * after an interrupt */
        const int p = L->n;
        int nb = cg_sampler_next(&L->smp, L->batch_idx, k);
        double alpha = L->c / nb, beta = 0.0;
        for (int b0 = 0; b0 < nb; b0 += L->block) {
            int rb = nb - b0 < L->block ? nb - b0 : L->block;
            if (L->sparse) memset(L->B, 0, sizeof(double) * (size_t) rb * p);
            for (int b = 0; b < rb; b++) {
                int r = L->batch_idx[b0 + b];
                if (!L->sparse)
                    for (int j = 0; j < p; j++) L->B[b + (size_t) j * rb] = L->Xd[r + (size_t) j * L->nobs];
                else
                    for (int a = L->rp[r]; a < L->rp[r + 1]; a++) L->B[b + (size_t) L->ci[a] * rb] = L->rx[a];
                for (int j = 0; j < p; j++) L->B[b + (size_t) j * rb] -= L->xbar[j];
            }
            F77_CALL(dsyrk)("U", "T", &p, &rb, &alpha, L->B, &rb, &beta, out, &p
                            FCONE FCONE);
            beta = 1.0;
            if (cg_interrupt_poll()) {
                cg_fail_status(L->P, CG_ERR_INTERRUPT, NULL);
                return nb;
            }
        }
        for (int j = 0; j < p; j++)
            for (int i = j + 1; i < p; i++) out[i + (size_t) j * p] = out[j + (size_t) i * p];
        return nb;
    }
    }
}

/* <A_i, x> for row i of the operator */
static double op_row(const lowrank *L, int i, const double *x)
{
    double s = 0.0;
    for (int a = L->op_p[i]; a < L->op_p[i + 1]; a++) s += L->op_x[a] * x[L->op_j[a]];
    return s;
}

static void op_row_add(const lowrank *L, int i, double c, double *out)
{
    for (int a = L->op_p[i]; a < L->op_p[i + 1]; a++) out[L->op_j[a]] += c * L->op_x[a];
}

/* original (nonsmooth) value of the regularizer at x */
static double reg_value(lowrank *L, const double *x)
{
    double s = 0.0;
    switch (L->reg) {
    case REG_MAXLIN: {
        double mx = R_NegInf;
        for (int i = 0; i < L->nop; i++) mx = fmax(mx, op_row(L, i, x) - L->op_b[i]);
        return mx;
    }
    case REG_ENET:
        for (size_t i = 0; i < L->mn; i++) s += x[i] * x[i];
        s *= L->lambda2;
        /* fall through: plus the l1 term */
    default:
        for (size_t i = 0; i < L->mn; i++) s += L->lambda * fabs(x[i]);
        return s;
    }
}

/* softmax weights of the linear forms at x into L->wp; returns the dual
 * residual max_i z_i - <p, z> (smooth.c) */
static double maxlin_weights(lowrank *L, const double *x)
{
    for (int i = 0; i < L->nop; i++) L->w[i] = op_row(L, i, x) - L->op_b[i];
    return cg_softmax(L->w, L->nop, L->P->mu, L->wp);
}

/* dual residual of the smoothed regularizer at x (smooth.c) */
static double reg_residual(lowrank *L, const double *x)
{
    if (L->reg == REG_MAXLIN) return maxlin_weights(L, x);
    return cg_huber_residual(x, L->mn, L->P->mu, L->lambda);
}

/* g += gradient at x of the smoothed regularizer: Huber for the l1 term,
 * log-sum-exp (softmax weights) for the max of linear forms */
static void reg_grad_add(lowrank *L, const double *x, double *g)
{
    if (L->reg == REG_MAXLIN) {
        maxlin_weights(L, x);
        for (int i = 0; i < L->nop; i++) op_row_add(L, i, L->wp[i], g);
        return;
    }
    cg_huber_grad_add(x, L->mn, L->P->mu, L->lambda, g);
    if (L->reg == REG_ENET)
        for (size_t i = 0; i < L->mn; i++) g[i] += 2.0 * L->lambda2 * x[i];
}

/* gradient of the loss at x from `batch` samples into g; returns their number */
static double loss_grad(lowrank *L, const double *x, int batch, double *g)
{
    if (L->loss == LOSS_DIST) {
        double k = sample_mean(L, batch, L->Mb);
        for (size_t i = 0; i < L->mn; i++) g[i] = x[i] - L->Mb[i];
        return k;
    }
    int nb = cg_sampler_next(&L->osmp, L->obatch, batch);
    memset(g, 0, L->mn * sizeof(double));
    for (int b = 0; b < nb; b++) {
        int i = L->obatch[b];
        op_row_add(L, i, (op_row(L, i, x) - L->op_b[i]) / nb, g);
    }
    return nb;
}

/* loss value at x (NA when E[M] is unknown) */
static double loss_value(lowrank *L, const double *x)
{
    double f = 0.0;
    if (L->loss == LOSS_SENSING) {
        for (int i = 0; i < L->nop; i++) {
            double r = op_row(L, i, x) - L->op_b[i];
            f += 0.5 * r * r;
        }
        return f / L->nop;
    }
    if (L->M == NULL) return NA_REAL;
    for (size_t i = 0; i < L->mn; i++) {
        double r = x[i] - L->M[i];
        f += 0.5 * r * r;
    }
    return f;
}

static double lr_gradient(cg_problem *P, int batch)
{
    lowrank *L = (lowrank *) P->self;
    double k = loss_grad(L, L->X, batch, L->G);
    reg_grad_add(L, L->X, L->G);
    L->used += k;
    return k;
}

static double lr_gradient_at(cg_problem *P, const double *z, int batch, double *g)
{
    lowrank *L = (lowrank *) P->self;
    double k = loss_grad(L, z, batch, g);
    reg_grad_add(L, z, g);
    L->used += k;
    return k;
}

/* LMO of the set on the dense gradient G (into u, v); <G, X - S> into gap.
 * Returns the SVD's status. */
static int lmo_on(lowrank *L, const double *G, double *u, double *v, int *kind,
                  double tol, long *nmv, double *gap)
{
    cg_linop Op; cg_dense_data dd;
    cg_linop_dense(&Op, &dd, G, L->m, L->n);
    double gx = 0.0, sigma = 0.0, gs;
    for (size_t i = 0; i < L->mn; i++) gx += G[i] * L->X[i];
    if (L->set == CG_SET_NUCLEAR) {
        int st = cg_lmo_nuclear(&Op, L->tau, u, v, &sigma, tol);
        if (st != CG_OK) return st;
        *kind = 1; gs = -L->tau * sigma;           /* S = -tau u v' */
    } else {
        int st = cg_lmo_psd(&Op, L->tau, 0, v, &sigma);
        if (st < 0) return -st;
        *kind = st; gs = st ? L->tau * sigma : 0.0; /* S = tau v v' or 0 */
    }
    if (nmv) *nmv += Op.n_matvec;
    *gap = gx - gs;
    return CG_OK;
}

static double lr_lmo(cg_problem *P)
{
    lowrank *L = (lowrank *) P->self;
    P->svd_rank = 1;
    double gap = NA_REAL;
    cg_fail_status(P, lmo_on(L, L->G, L->u, L->v, &L->s_kind, 1e-8, &L->n_matvec, &gap),
                   "the linear minimization oracle");
    return gap;
}

static double lr_line_search(cg_problem *P) { return -1.0; }

/* the set's LMO for direction g as a dense point */
static int lr_lmo_dense(cg_problem *P, const double *g, double *s)
{
    lowrank *L = (lowrank *) P->self;
    int kind;
    double gap;
    int st = lmo_on(L, g, L->u, L->v, &kind, 1e-8, &L->n_matvec, &gap);
    if (st != CG_OK) return st;
    memset(s, 0, L->mn * sizeof(double));
    if (!kind) return CG_OK;
    const double *left = L->set == CG_SET_NUCLEAR ? L->u : L->v;
    const double c = L->set == CG_SET_NUCLEAR ? -L->tau : L->tau;
    for (int j = 0; j < L->n; j++)
        for (int i = 0; i < L->m; i++) s[i + (size_t) j * L->m] = c * left[i] * L->v[j];
    return CG_OK;
}

static void lr_fw_step(cg_problem *P, double gamma)
{
    lowrank *L = (lowrank *) P->self;
    const int m = L->m, n = L->n;
    for (size_t i = 0; i < L->mn; i++) L->X[i] *= 1.0 - gamma;
    if (!L->s_kind) return;
    const double *left = L->set == CG_SET_NUCLEAR ? L->u : L->v;
    const double c = L->set == CG_SET_NUCLEAR ? -gamma * L->tau : gamma * L->tau;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++) L->X[i + (size_t) j * m] += c * left[i] * L->v[j];
}

/* Frank-Wolfe gap at X of the smoothed objective, with the loss gradient
 * from the mean Mref (distance loss) or all measurements (sensing); Lanczos
 * products are added to *nmv when nmv is given. NA (and a failure recorded
 * if it is overflow or Ctrl-C) when the LMO fails. */
static double smoothed_gap(lowrank *L, const double *Mref, long *nmv)
{
    if (L->loss == LOSS_DIST)
        for (size_t i = 0; i < L->mn; i++) L->Gf[i] = L->X[i] - Mref[i];
    else {
        memset(L->Gf, 0, L->mn * sizeof(double));
        for (int i = 0; i < L->nop; i++)
            op_row_add(L, i, (op_row(L, i, L->X) - L->op_b[i]) / L->nop, L->Gf);
    }
    reg_grad_add(L, L->X, L->Gf);
    int kind;
    double gap;
    const void *vmax = vmaxget();
    double *u = (double *) R_alloc(L->m, sizeof(double));
    double *v = (double *) R_alloc(L->n, sizeof(double));
    int st = lmo_on(L, L->Gf, u, v, &kind, 1e-10, nmv, &gap);
    if (st != CG_OK) gap = cg_gap_failed(L->P, st);
    vmaxset(vmax);
    return gap;
}

/* original (nonsmooth) objective, and a certificate of it: the exact
 * smoothed Frank-Wolfe gap plus the dual residual bounds objective -
 * optimum of the stated problem (smooth.c); NA when the exact loss is
 * unknown (a sampler without a target) */
static void lr_evaluate(cg_problem *P, double *obj, double *gap)
{
    lowrank *L = (lowrank *) P->self;
    double f = loss_value(L, L->X);
    if (ISNAN(f)) { *obj = NA_REAL; *gap = NA_REAL; return; }
    *obj = f + reg_value(L, L->X);
    *gap = smoothed_gap(L, L->M, NULL) + reg_residual(L, L->X);
}

/* for continuation (solver work, its products counted): the exact gradient
 * when the problem holds the data (a matrix, the rows of data, the
 * measurements), else the last snapshot mean of a stream (never the
 * target, which the solver must not see); NA before any snapshot */
static double lr_smooth_gap(cg_problem *P)
{
    lowrank *L = (lowrank *) P->self;
    if (L->loss == LOSS_SENSING || L->source == SRC_MATRIX || L->source == SRC_ROWS)
        return smoothed_gap(L, L->M, &L->n_matvec);
    return L->snapshot_taken ? smoothed_gap(L, L->Mbar, &L->n_matvec) : NA_REAL;
}

static double lr_smooth_residual(cg_problem *P)
{
    lowrank *L = (lowrank *) P->self;
    return reg_residual(L, L->X);
}

/* passes over the data (finite sums only), counting every sample gradient
 * the algorithm used, full snapshots included */
static double lr_epoch(cg_problem *P)
{
    lowrank *L = (lowrank *) P->self;
    if (L->loss == LOSS_SENSING) return L->used / L->nop;
    return L->source == SRC_ROWS ? L->used / L->nobs : NA_REAL;
}

static long lr_n_matvec(cg_problem *P) { return ((lowrank *) P->self)->n_matvec; }

/* ---- variance-reduced proximal steps (solve_svrgcg.c) */
static double lr_snapshot(cg_problem *P, int batch)
{
    lowrank *L = (lowrank *) P->self;
    double k;
    if (L->loss == LOSS_DIST) {
        k = sample_mean(L, batch, L->Mbar);
        L->snapshot_taken = L->source == SRC_MATRIX || batch == CG_BATCH_FULL ? 1 : 2;
    } else {
        memcpy(L->Xs, L->X, L->mn * sizeof(double));
        k = loss_grad(L, L->Xs, batch, L->gtil);
        L->snapshot_taken = batch == CG_BATCH_FULL ? 1 : 2;
    }
    L->used += k;
    return k;
}

/* SVRG estimate at X. For the distance loss grad g_i(X) - grad g_i(X_s) =
 * X - X_s for every sample: the estimate is X - Mbar_s exactly, and the
 * prescribed samples are counted but not drawn. For sensing it is
 * gtil + mean over the batch of <A_i, X - X_s> A_i. */
static double lr_vr_gradient(cg_problem *P, int batch)
{
    lowrank *L = (lowrank *) P->self;
    if (L->loss == LOSS_DIST) {
        for (size_t i = 0; i < L->mn; i++) L->G[i] = L->X[i] - L->Mbar[i];
        L->used += batch;
        return batch;
    }
    memcpy(L->G, L->gtil, L->mn * sizeof(double));
    int nb = cg_sampler_next(&L->osmp, L->obatch, batch);
    for (int b = 0; b < nb; b++) {
        int i = L->obatch[b];
        op_row_add(L, i, (op_row(L, i, L->X) - op_row(L, i, L->Xs)) / nb, L->G);
    }
    L->used += nb;
    return nb;
}

static int lr_prox_step(cg_problem *P, double scale, double eta)
{
    lowrank *L = (lowrank *) P->self;
    reg_grad_add(L, L->X, L->G);
    for (size_t i = 0; i < L->mn; i++) L->A[i] = L->X[i] - scale * L->G[i];
    int triplets;
    int st = cg_weak_prox(L->A, L->m, L->n, L->set, L->tau, L->max_rank, &L->rank,
                          L->V, &L->certified, &triplets, &L->n_matvec);
    P->svd_rank = triplets;
    if (st != CG_OK) return st;
    for (size_t i = 0; i < L->mn; i++) L->X[i] = (1.0 - eta) * L->X[i] + eta * L->V[i];
    return CG_OK;
}

/* Frank-Wolfe (fw, scg), variance-reduced proximal steps (svrgcg) and
 * sliding (scgs) on the dense iterate X; always smoothed (mu > 0) */
static const cg_fw_ops lowrank_fw = {lr_gradient, lr_lmo, lr_line_search, lr_fw_step};
static const cg_prox_ops lowrank_prox = {lr_snapshot, lr_vr_gradient, lr_prox_step};
static const cg_sliding_ops lowrank_sliding = {lr_gradient_at, lr_lmo_dense};
static const cg_smooth_ops lowrank_smooth = {lr_smooth_gap, lr_smooth_residual};

/* ---- exact continuation (init =): what the iterations read besides X and
 * the solver loop's own state (cg_loop_state): the last snapshot, the rank hint
 * of the weak proximal oracle, the smoothing parameters and the counters */

/* a state array of the spec: mn finite doubles copied into out */
static void state_array(const lowrank *L, SEXP spec, const char *name, double *out)
{
    memcpy(out, cg_spec_real(spec, name, (R_xlen_t) L->mn), L->mn * sizeof(double));
    if (!cg_all_finite(out, L->mn)) error("spec: '%s' must be finite", name);
}

static void resume_state(lowrank *L, cg_problem *P, SEXP spec)
{
    L->snapshot_taken = asInteger(cg_list_get(spec, "state_snapshot"));
    L->rank = asInteger(cg_list_get(spec, "state_rank"));
    L->certified = asLogical(cg_list_get(spec, "state_certified")) == TRUE;
    L->used = asReal(cg_list_get(spec, "state_used"));
    L->calls = asReal(cg_list_get(spec, "state_calls"));
    P->mu0 = asReal(cg_list_get(spec, "state_mu0"));
    P->svd_rank = asInteger(cg_list_get(spec, "state_svd_rank"));
    if (L->snapshot_taken < 0 || L->snapshot_taken > 2 || L->rank == NA_INTEGER ||
        L->rank < 1 || L->rank > L->max_rank || !(L->used >= 0) || !(L->calls >= 0) || !(P->mu0 >= P->mu) ||
        !R_FINITE(P->mu0) || P->svd_rank == NA_INTEGER || P->svd_rank < 0)
        error("spec: invalid lowrank state");
    if (L->loss == LOSS_DIST) {
        if (L->snapshot_taken == 1) sample_mean(L, CG_BATCH_FULL, L->Mbar);  /* E[M] */
        if (L->snapshot_taken == 2) state_array(L, spec, "state_Mbar", L->Mbar);
    } else if (L->snapshot_taken) {
        state_array(L, spec, "state_Xs", L->Xs);
        if (L->snapshot_taken == 1) loss_grad(L, L->Xs, CG_BATCH_FULL, L->gtil);
        else state_array(L, spec, "state_gtil", L->gtil);
    }
}

/* the same for the fit, named as resume_state reads them (PROTECTs nothing
 * on exit; the solver loop's state is the dispatcher's) */
static SEXP state_list(const lowrank *L, const cg_problem *P)
{
    static const char *names[] = {"state_snapshot", "state_rank", "state_certified",
                                  "state_used", "state_calls", "state_mu0", "state_svd_rank",
                                  "state_Mbar", "state_Xs", "state_gtil", ""};
    SEXP out = PROTECT(mkNamed(VECSXP, names));
    SET_VECTOR_ELT(out, 0, ScalarInteger(L->snapshot_taken));
    SET_VECTOR_ELT(out, 1, ScalarInteger(L->rank));
    SET_VECTOR_ELT(out, 2, ScalarLogical(L->certified));
    SET_VECTOR_ELT(out, 3, ScalarReal(L->used));
    SET_VECTOR_ELT(out, 4, ScalarReal(L->calls));
    SET_VECTOR_ELT(out, 5, ScalarReal(P->mu0));
    SET_VECTOR_ELT(out, 6, ScalarInteger(P->svd_rank));
    const double *keep[3] = {NULL, NULL, NULL};     /* only what cannot be recomputed */
    if (L->loss == LOSS_DIST && L->snapshot_taken == 2) keep[0] = L->Mbar;
    if (L->loss == LOSS_SENSING && L->snapshot_taken) keep[1] = L->Xs;
    if (L->loss == LOSS_SENSING && L->snapshot_taken == 2) keep[2] = L->gtil;
    for (int i = 0; i < 3; i++) {
        if (!keep[i]) continue;
        SEXP a = allocVector(REALSXP, (R_xlen_t) L->mn);
        SET_VECTOR_ELT(out, 7 + i, a);
        memcpy(REAL(a), keep[i], L->mn * sizeof(double));
    }
    UNPROTECT(1);
    return out;
}

int cg_problem_lowrank(cg_problem *P, SEXP spec)
{
    lowrank *L = (lowrank *) R_alloc(1, sizeof(lowrank));
    memset(L, 0, sizeof(lowrank));
    L->m = asInteger(cg_list_get(spec, "m"));
    L->n = asInteger(cg_list_get(spec, "n"));
    L->mn = (size_t) L->m * L->n;
    L->set = asInteger(cg_list_get(spec, "set"));
    L->source = asInteger(cg_list_get(spec, "source"));
    L->lambda = asReal(cg_list_get(spec, "lambda"));
    L->lambda2 = asReal(cg_list_get(spec, "lambda2"));
    L->loss = asInteger(cg_list_get(spec, "loss"));
    L->reg = asInteger(cg_list_get(spec, "reg"));
    if (L->m < 1 || L->n < 1 || (L->set == CG_SET_PSD && L->m != L->n))
        error("spec: X must be m x n with m, n >= 1 (square for the PSD set)");
    if (L->loss == LOSS_SENSING || L->reg == REG_MAXLIN) {
        /* operator columns are the entries of vec X: indices below m n */
        const int last = L->mn - 1 < INT_MAX ? (int) (L->mn - 1) : INT_MAX;
        const R_xlen_t nnz = XLENGTH(cg_list_get(spec, "op_j"));
        L->nop = LENGTH(cg_list_get(spec, "op_b"));
        if (L->nop < 1) error("spec: the linear operator has no rows");
        L->op_b = cg_spec_real(spec, "op_b", L->nop);
        L->op_p = cg_spec_pointers(spec, "op_p", L->nop, nnz);
        L->op_j = cg_spec_index(spec, "op_j", nnz, 0, last);
        L->op_x = cg_spec_real(spec, "op_x", nnz);
        L->w = (double *) R_alloc(L->nop, sizeof(double));
        L->wp = (double *) R_alloc(L->nop, sizeof(double));
    }
    P->mu = P->mu0 = asReal(cg_list_get(spec, "mu"));
    P->mu_auto = asLogical(cg_list_get(spec, "mu_auto")) == TRUE;
    P->lip_loss = asReal(cg_list_get(spec, "lip_loss"));
    P->lip_reg = asReal(cg_list_get(spec, "lip_reg"));
    if (!(P->mu > 0)) error("spec: mu must be positive");
    L->tau = asReal(cg_list_get(spec, "radius"));
    L->rank = asInteger(cg_list_get(spec, "rank"));
    L->max_rank = asInteger(cg_list_get(spec, "max_rank"));
    /* E[M] (or the mean M0 of the Gaussian oracle) is needed unless it
     * comes from an R function (then it is an optional target) or the loss
     * is sensing */
    if (!isNull(cg_list_get(spec, "M")) ||
        (L->loss == LOSS_DIST && L->source != SRC_RFUN))
        L->M = cg_spec_real(spec, "M", (R_xlen_t) L->mn);
    L->sigma = asReal(cg_list_get(spec, "sigma"));
    if (L->source == SRC_RFUN) {   /* the call lives in spec, protected by .Call */
        L->rho = cg_list_get(spec, "env");
        L->rcall = cg_list_get(spec, "sampler_call");
    }
    if (L->source == SRC_ROWS) {
        L->nobs = asInteger(cg_list_get(spec, "nobs"));
        L->sparse = asLogical(cg_list_get(spec, "sparse"));
        if (L->nobs < 2) error("spec: data must have at least two rows");
        if (L->sparse) {
            const R_xlen_t nnz = XLENGTH(cg_list_get(spec, "row_j"));
            L->rp = cg_spec_pointers(spec, "row_p", L->nobs, nnz);
            L->ci = cg_spec_index(spec, "row_j", nnz, 0, L->n - 1);
            L->rx = cg_spec_real(spec, "row_x", nnz);
        } else {
            L->Xd = cg_spec_real(spec, "data", (R_xlen_t) L->nobs * L->n);
        }
        L->xbar = cg_spec_real(spec, "xbar", L->n);
        L->c = (double) L->nobs / (L->nobs - 1.0);
        int cap = asInteger(cg_list_get(spec, "max_batch"));
        cg_sampler_init(&L->smp, L->nobs, cap, CG_SAMPLE_REPLACE);
        L->batch_idx = (int *) R_alloc(cap > L->nobs ? cap : L->nobs, sizeof(int));
        const double rows = fmax(256.0, 1e8 / ((double) L->n * L->n));
        const int most = cap > L->nobs ? cap : L->nobs;
        L->block = rows < most ? (int) rows : most;
        L->B = (double *) R_alloc((size_t) L->block * L->n, sizeof(double));
    }
    if (L->loss == LOSS_SENSING) {
        int cap = asInteger(cg_list_get(spec, "max_batch"));
        cg_sampler_init(&L->osmp, L->nop, cap, CG_SAMPLE_REPLACE);
        L->obatch = (int *) R_alloc(cap > L->nop ? cap : L->nop, sizeof(int));
        L->Xs = cg_zeros((size_t) L->m * L->n); L->gtil = cg_zeros((size_t) L->m * L->n);
    }
    L->X = cg_zeros(L->mn); L->Mbar = cg_zeros(L->mn); L->Mb = cg_zeros(L->mn);
    L->G = cg_zeros(L->mn); L->A = cg_zeros(L->mn); L->V = cg_zeros(L->mn); L->Gf = cg_zeros(L->mn);
    L->u = cg_zeros(L->m); L->v = cg_zeros(L->n);
    if (!isNull(cg_list_get(spec, "init_X"))) {   /* a warm start, feasible (made so in R) */
        memcpy(L->X, cg_spec_real(spec, "init_X", (R_xlen_t) L->mn), L->mn * sizeof(double));
        if (!cg_all_finite(L->X, L->mn)) error("spec: the initial X must be finite");
    }
    P->self = L;
    L->P = P;
    P->evaluate = lr_evaluate; P->epoch = lr_epoch; P->n_matvec = lr_n_matvec;
    P->fw = &lowrank_fw;
    P->prox = &lowrank_prox;
    P->sliding = &lowrank_sliding;
    P->x = L->X; P->dim = L->mn;
    P->smooth = &lowrank_smooth;
    P->svd_rank = 0;
    if (!isNull(cg_list_get(spec, "state_snapshot"))) resume_state(L, P, spec);
    return CG_OK;
}

SEXP cg_lowrank_solution(cg_problem *P)
{
    lowrank *L = (lowrank *) P->self;
    static const char *names[] = {"X", "certified_rank", "mu", "state", ""};
    SEXP out = PROTECT(mkNamed(VECSXP, names));
    SEXP X = PROTECT(allocMatrix(REALSXP, L->m, L->n));
    memcpy(REAL(X), L->X, L->mn * sizeof(double));
    SET_VECTOR_ELT(out, 0, X);
    SET_VECTOR_ELT(out, 1, ScalarInteger(L->certified ? L->rank : NA_INTEGER));
    SET_VECTOR_ELT(out, 2, ScalarReal(P->mu));     /* the final mu (continuation) */
    SET_VECTOR_ELT(out, 3, state_list(L, P));
    UNPROTECT(2);
    return out;
}
