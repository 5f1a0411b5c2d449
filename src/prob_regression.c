/* Least squares over the l1 ball (Lafond et al. 2015, sections 3.1 and 3.3):
 *   min_theta  1/(2n) ||y - X theta||^2   s.t.  ||theta||_1 <= radius.
 * The gradient estimate averages the rows drawn so far (with multiplicity).
 * Two exact representations of it, chosen by the caller:
 *  - Gram (eq. 23): running S = sum x x', b = sum x y and S theta. A FW step
 *    (one new vertex) costs O(p), a new row O(p^2) (dense) or O(nnz^2)
 *    (sparse); memory p^2. Best when p is moderate.
 *  - residual: the fitted values x_k' theta of the drawn rows. A FW step
 *    costs O(|drawn|), the gradient O(nnz of the drawn rows); memory O(n).
 *    Best when p is large.
 * Method "pfw" (pairwise Frank-Wolfe) reads all the data from the start and
 * keeps the exact gradient g = (G theta - X'y) / n through the Gram columns
 * G_j = X'x_j of the vertices it visits, computed once each (at most
 * O(nnz(X)): by rows where x_j is nonzero when X is sparse) and cached up to
 * a memory budget: a pairwise step then costs O(p).
 * An intercept (fitted by centring, see ?sparse_regression) centres a dense
 * X in R; a sparse X stays sparse and is centred implicitly here: with its
 * column means xbar, every product uses X - 1 xbar' (X theta - (xbar'theta) 1,
 * X'r - xbar (1'r), Gram columns X'x_j / n - xbar xbar_j). */
#include "stochcg.h"
#include "prob_sampler.h"
#include <string.h>
#include <math.h>
/* the face steps' credit per flop of the pairwise steps (see the face step) */
#define FACE_SHARE 200.0
/* a null-space move's largest increase of the objective, as a share of
 * the last Frank-Wolfe gap (see face_null_space) */
#define NULL_SHARE 1e-10

typedef struct {
    int n, p, sparse, gram;
    const double *X;                 /* dense n x p, column-major */
    const int *rp, *ci; const double *rx;  /* sparse X by rows (CSR) */
    const int *cp, *ri; const double *cx;  /* sparse X by columns (CSC) */
    const double *y;
    const double *xbar;              /* sparse X centred implicitly, or NULL */
    double radius, lipschitz;
    cg_sampler smp;
    int *batch_idx;
    double *theta, *g, *work, *xrow;
    /* Gram representation */
    double *S, *b, *Stheta;          /* S: upper triangle */
    /* residual representation: drawn rows in order of first draw */
    int nd, *drow, *pos;             /* pos[row] = index in drow or -1 */
    double *cnt, *xt, *xi;           /* multiplicity, x'theta, X[row, s_idx] */
    double *res, *gfull;             /* trace-only evaluation scratch */
    /* pfw: moves of the iterate so far, and the move at which g (with res)
     * and gfull were last computed from scratch: a full gradient and an
     * evaluation at the same iterate share one pass over X */
    double moves, g_exact_at, eval_at;
    int s_idx; double s_val;         /* last LMO vertex s = s_val * e_s_idx */
    /* pairwise Frank-Wolfe: away vertex a = a_val e_a_idx (the origin when
     * a_idx < 0), slack = r - ||theta||_1, Gram columns / n of s and a */
    int pairwise, a_idx, cache_left, next_s;   /* next_s: argmax |g| or -1 */
    int gram_given;                  /* the Gram columns are a given X'X / n */
    /* pfw without a working set: X'y / n and y'y / n, and whether the last
     * exact_gradient formed the residual (else it used the Gram columns) */
    double *xty, yty, xty_max, diag_max;
    int res_formed;
    int *support, n_support, *in_support;   /* every j with theta_j != 0 */
    double a_val, slack, rows_read, rows_reported;
    const double **gcol, *gs, *ga;
    double *colbuf;
    /* face step: room for face_cap coordinates (Gram block, its Cholesky
     * factor, vectors), at most face_max; the flops the pairwise steps
     * have earned for it, face steps taken */
    int face_on, face_cap, face_max, *face_idx;
    double *face_G, *face_L, *face_w, face_credit, face_steps;
    double pair_gap;                 /* the last Frank-Wolfe gap (reg_pair_lmo) */
    /* the Cholesky factor kept from one face step to the next (and along
     * a path: the Gram block does not depend on the radius): face_L
     * (leading dimension face_cap) holds L with L L' = the Gram block of
     * the fac_m coordinates fac_idx[0..fac_m-1] (fac_pos[j]: the position
     * of j, or -1); fac_m = 0: none */
    int fac_m, *fac_idx, *fac_pos;
    int fac_G_ok;                    /* face_G holds their Gram block (not in the state) */
    /* working set (screening, dense X without a given Gram matrix; see
     * ws_screen): the coordinates ws[0..n_ws-1] in order of entry, the
     * only ones the pairwise and face steps touch between full gradients;
     * a cached Gram column j holds its entries for ws[0..gvalid[j]-1],
     * by position in W (entry k: coordinate ws[k]), room for gcap[j] */
    int ws_on, *ws, n_ws, *in_ws, *gvalid, *gcap, *ws_todo, *ws_tpos;
    double *ws_dots;
    double screened_at, ws_added;
    /* X read by a reader (R/readers.R) block by block: see "reader" below */
    int reader;
    cg_block_sampler bs;
    SEXP rcall, rho;                 /* the call fetch(k) and its environment */
    const double *xscale;            /* column scales (with xbar: centring) */
    double *blk, *eblk;              /* the block drawn from, the block evaluated */
    int ydisk;                       /* y read with X: fetch(k)'s block has attribute "y" */
    double *yblk, *eyblk;            /* with ydisk: the y of blk and of eblk */
    double blocks_read;
    double ycenter, yy;              /* y is centred as it is used; ||y - ycenter||^2 */
    const double *xty0;              /* X'(y - ycenter) / n from R's first pass, or NULL */
    int exact;                       /* every row drawn once: S, b are X'X, X'y */
    struct reg_block *mem;           /* the arrays outside R's heap (reg_alloc) */
} regression;

/* ------------------------------------------ memory outside R's heap
 * The in-memory problem's arrays (the iterate, gradients, the Gram columns
 * cached, the face step's block and factor, the working set's indices) are
 * malloc'ed, not R_alloc'ed: R_alloc'ed memory counts towards the garbage
 * collector's trigger, and a CV's fold paths, rebuilt for every piece of
 * the grid, made it collect every one or two CVs (14-44% of a CV's CPU at
 * 66 x 2307 and 1000 x 200; cv_regression_lassokeep.md). Each block is in
 * a doubly linked list, freed alone (grown: reg_grow) or all together by
 * the release hook, which dispatch.c calls once the solve and its result
 * are done, on every path (an R error included). Zero-filled, as
 * cg_zeros(): the numbers are those of R_alloc'ed arrays. */
typedef struct reg_block { struct reg_block *prev, *next; } reg_block;

static void *reg_alloc(regression *R, size_t n, size_t size)
{
    if (n == 0) n = 1;
    if (n > (((size_t) -1) - sizeof(reg_block)) / size)
        error("sparse_regression: cannot allocate %.0f elements", (double) n);
    reg_block *b = (reg_block *) calloc(1, sizeof(reg_block) + n * size);
    if (!b) error("sparse_regression: cannot allocate %.1f MB", (double) (n * size) / 1048576.0);
    b->prev = NULL;
    b->next = R->mem;
    if (R->mem) R->mem->prev = b;
    R->mem = b;
    return b + 1;
}

static double *reg_zeros(regression *R, size_t n)
{
    return (double *) reg_alloc(R, n, sizeof(double));
}

static int *reg_ints(regression *R, size_t n)
{
    return (int *) reg_alloc(R, n, sizeof(int));
}

static void reg_free(regression *R, void *x)
{
    if (!x) return;
    reg_block *b = (reg_block *) x - 1;
    if (b->prev) b->prev->next = b->next; else R->mem = b->next;
    if (b->next) b->next->prev = b->prev;
    free(b);
}

/* x (old doubles, or NULL) moved into a new zero-filled block of n >= old */
static double *reg_grow(regression *R, double *x, size_t old, size_t n)
{
    double *y = reg_zeros(R, n);
    if (x && old) memcpy(y, x, sizeof(double) * old);
    reg_free(R, x);
    return y;
}

static void reg_release(cg_problem *P)
{
    regression *R = (regression *) P->self;
    if (!R) return;
    while (R->mem) {
        reg_block *b = R->mem;
        R->mem = b->next;
        free(b);
    }
}

static double reader_gradient(cg_problem *P, int batch);
static void reader_evaluate(cg_problem *P, double *obj, double *gap);
static int reader_init(cg_problem *P, regression *R, SEXP spec);

static double x_at(const regression *R, int r, int j)    /* dense only */
{
    return R->X[r + (size_t) j * R->n];
}

/* out[k] = scale * x_{cols[k]}'v (columns of the dense n-row X, cols NULL:
 * columns 0..m-1) for k < m. Each dot product is summed in row order, as
 * the reference BLAS ddot and dgemv("T") sum it (the same numbers: the
 * symmetric Gram entries x_i'x_j = x_j'x_i stay equal), but eight columns
 * at a time: eight independent sums where ddot's one chain of additions
 * waits on the latency of each (the Gram entries of the working set by
 * ddot were a fifth of a 1600 x 5000 CV; 3.5x faster than the reference
 * BLAS's ddot at n = 1440), and v read once for eight. An optimized BLAS
 * would sum in another order: these are the reference BLAS's numbers. */
void cg_cols_dot(const double *X, int n, const int *cols, int m, const double *v,
                 double scale, double *out)
{
#define COL(q) (X + (size_t) (cols ? cols[k + (q)] : k + (q)) * n)
    int k = 0;
    for (; k + 8 <= m; k += 8) {
        const double *a0 = COL(0), *a1 = COL(1), *a2 = COL(2), *a3 = COL(3),
                     *a4 = COL(4), *a5 = COL(5), *a6 = COL(6), *a7 = COL(7);
        double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0, s4 = 0.0, s5 = 0.0, s6 = 0.0, s7 = 0.0;
        for (int r = 0; r < n; r++) {
            const double vr = v[r];
            s0 += a0[r] * vr; s1 += a1[r] * vr; s2 += a2[r] * vr; s3 += a3[r] * vr;
            s4 += a4[r] * vr; s5 += a5[r] * vr; s6 += a6[r] * vr; s7 += a7[r] * vr;
        }
        out[k] = s0 * scale; out[k + 1] = s1 * scale; out[k + 2] = s2 * scale;
        out[k + 3] = s3 * scale; out[k + 4] = s4 * scale; out[k + 5] = s5 * scale;
        out[k + 6] = s6 * scale; out[k + 7] = s7 * scale;
    }
    for (; k < m; k++) {
        const double *a = COL(0);
        double sa = 0.0;
        for (int r = 0; r < n; r++) sa += a[r] * v[r];
        out[k] = sa * scale;
    }
#undef COL
}

/* xbar'theta (0 without implicit centring), once per pass over rows */
static double xbar_dot_theta(const regression *R)
{
    double s = 0.0;
    if (R->xbar) for (int j = 0; j < R->p; j++) s += R->xbar[j] * R->theta[j];
    return s;
}

/* row r of the (centred) X times theta; xbt = xbar_dot_theta(R) */
static double row_dot_theta(const regression *R, int r, double xbt)
{
    double s = 0.0;
    if (!R->sparse) {
        int one = 1;
        return F77_CALL(ddot)(&R->p, R->X + r, &R->n, R->theta, &one);
    }
    for (int a = R->rp[r]; a < R->rp[r + 1]; a++) s += R->rx[a] * R->theta[R->ci[a]];
    return s - xbt;
}

/* column i of the symmetric S stored in its upper triangle */
static void sym_col(const double *S, int p, int i, double *out)
{
    for (int k = 0; k <= i; k++) out[k] = S[k + (size_t) i * p];
    for (int k = i + 1; k < p; k++) out[k] = S[i + (size_t) k * p];
}

static void gram_add_row(regression *R, int r, double xbt)
{
    const int p = R->p;
    const double yr = R->y[r], xt = row_dot_theta(R, r, xbt);
    if (!R->sparse || R->xbar) {     /* a centred sparse row is dense: O(p^2) */
        int one = 1; double alpha = 1.0;
        if (!R->sparse) {
            for (int j = 0; j < p; j++) R->xrow[j] = x_at(R, r, j);
        } else {
            for (int j = 0; j < p; j++) R->xrow[j] = -R->xbar[j];
            for (int a = R->rp[r]; a < R->rp[r + 1]; a++) R->xrow[R->ci[a]] += R->rx[a];
        }
        F77_CALL(dsyr)("U", &R->p, &alpha, R->xrow, &one, R->S, &R->p FCONE);
        for (int j = 0; j < p; j++) {
            R->b[j] += R->xrow[j] * yr;
            R->Stheta[j] += R->xrow[j] * xt;
        }
        return;
    }
    for (int a = R->rp[r]; a < R->rp[r + 1]; a++) {
        int ja = R->ci[a]; double va = R->rx[a];
        R->b[ja] += va * yr;
        R->Stheta[ja] += va * xt;
        for (int c = a; c < R->rp[r + 1]; c++)      /* columns sorted: jc >= ja */
            R->S[ja + (size_t) R->ci[c] * p] += va * R->rx[c];
    }
}

static void resid_add_row(regression *R, int r, double xbt)
{
    if (R->pos[r] < 0) {
        R->pos[r] = R->nd;
        R->drow[R->nd] = r;
        R->xt[R->nd] = row_dot_theta(R, r, xbt);
        R->nd++;
    }
    R->cnt[R->pos[r]] += 1.0;
}

/* the step must never see a non-finite gradient */
static void gradient_check(cg_problem *P, const regression *R)
{
    if (!cg_all_finite(R->g, (size_t) R->p))
        cg_fail(P, "the gradient X'(X beta - y) / n overflowed double precision after "
                "%.0f rows (the data or the radius are too large: scale them)",
                R->pairwise ? (double) R->n : R->smp.drawn);
}

static double reg_gradient(cg_problem *P, int batch)
{
    regression *R = (regression *) P->self;
    if (R->reader) return reader_gradient(P, batch);
    const int p = R->p;
    int nb = cg_sampler_next(&R->smp, R->batch_idx, batch);
    const double inv = 1.0 / R->smp.drawn, xbt = xbar_dot_theta(R);
    if (R->gram) {
        for (int k = 0; k < nb; k++) {
            gram_add_row(R, R->batch_idx[k], xbt);
            /* a full batch costs n p^2 (minutes for n = 10^5, p = 10^3) */
            if (k % 256 == 255 && cg_interrupt_poll()) {
                cg_fail_status(P, CG_ERR_INTERRUPT, NULL);   /* S is not used again */
                return nb;
            }
        }
        for (int j = 0; j < p; j++) R->g[j] = (R->Stheta[j] - R->b[j]) * inv;
        gradient_check(P, R);
        return nb;
    }
    for (int k = 0; k < nb; k++) resid_add_row(R, R->batch_idx[k], xbt);
    memset(R->g, 0, sizeof(double) * p);
    double wsum = 0.0;
    for (int k = 0; k < R->nd; k++) {
        int r = R->drow[k], one = 1;
        double w = R->cnt[k] * (R->xt[k] - R->y[r]) * inv;
        wsum += w;
        if (!R->sparse)
            F77_CALL(daxpy)(&R->p, &w, R->X + r, &R->n, R->g, &one);
        else
            for (int a = R->rp[r]; a < R->rp[r + 1]; a++) R->g[R->ci[a]] += w * R->rx[a];
    }
    if (R->xbar) for (int j = 0; j < p; j++) R->g[j] -= wsum * R->xbar[j];
    gradient_check(P, R);
    return nb;
}

static double reg_lmo(cg_problem *P)
{
    regression *R = (regression *) P->self;
    cg_lmo_l1(R->g, R->p, R->radius, &R->s_idx, &R->s_val);
    if (!R->gram) {              /* column s_idx on the drawn rows */
        const int i = R->s_idx;
        if (!R->sparse) {
            for (int k = 0; k < R->nd; k++) R->xi[k] = x_at(R, R->drow[k], i);
        } else {
            const double xb = R->xbar ? R->xbar[i] : 0.0;
            for (int k = 0; k < R->nd; k++) R->xi[k] = -xb;
            for (int a = R->cp[i]; a < R->cp[i + 1]; a++)
                if (R->pos[R->ri[a]] >= 0) R->xi[R->pos[R->ri[a]]] = R->cx[a] - xb;
        }
    }
    double gx = 0.0;
    for (int j = 0; j < R->p; j++) gx += R->g[j] * R->theta[j];
    return gx - R->s_val * R->g[R->s_idx];
}

/* exact minimizer over [0, 1] of the current quadratic along d = s - theta:
 * gamma = -<g, d> / (d' S d / drawn) */
static double reg_line_search(cg_problem *P)
{
    regression *R = (regression *) P->self;
    const int i = R->s_idx;
    double gd = R->g[i] * R->s_val, dSd = 0.0;
    for (int j = 0; j < R->p; j++) gd -= R->g[j] * R->theta[j];
    if (R->gram) {
        double tSt = 0.0;
        for (int j = 0; j < R->p; j++) tSt += R->theta[j] * R->Stheta[j];
        dSd = tSt - 2.0 * R->s_val * R->Stheta[i]
              + R->s_val * R->s_val * R->S[i + (size_t) i * R->p];
    } else {
        for (int k = 0; k < R->nd; k++) {
            double d = R->s_val * R->xi[k] - R->xt[k];
            dSd += R->cnt[k] * d * d;
        }
    }
    dSd /= R->smp.drawn;
    if (dSd <= 0) return gd < 0 ? 1.0 : 0.0;
    return fmin(1.0, fmax(0.0, -gd / dSd));
}

static void reg_fw_step(cg_problem *P, double gamma)
{
    regression *R = (regression *) P->self;
    const int i = R->s_idx;
    for (int j = 0; j < R->p; j++) R->theta[j] *= 1.0 - gamma;
    R->theta[i] += gamma * R->s_val;
    if (R->gram) {
        sym_col(R->S, R->p, i, R->work);
        for (int j = 0; j < R->p; j++)
            R->Stheta[j] = (1.0 - gamma) * R->Stheta[j] + gamma * R->s_val * R->work[j];
    } else {
        for (int k = 0; k < R->nd; k++)
            R->xt[k] = (1.0 - gamma) * R->xt[k] + gamma * R->s_val * R->xi[k];
    }
}

static int reg_pg_step(cg_problem *P, double eta)
{
    regression *R = (regression *) P->self;
    if (eta <= 0) eta = 1.0 / R->lipschitz;
    for (int j = 0; j < R->p; j++) R->xrow[j] = R->theta[j] - eta * R->g[j];
    if (!cg_all_finite(R->xrow, (size_t) R->p)) return CG_ERR_NONFINITE;  /* theta kept */
    cg_proj_l1(R->xrow, R->p, R->radius, R->theta, R->work);
    /* a projection moves every coordinate: refresh the representation */
    if (R->gram) {
        int one = 1; double alpha = 1.0, zero = 0.0;
        F77_CALL(dsymv)("U", &R->p, &alpha, R->S, &R->p, R->theta, &one, &zero,
                        R->Stheta, &one FCONE);
    } else {
        const double xbt = xbar_dot_theta(R);
        for (int k = 0; k < R->nd; k++) R->xt[k] = row_dot_theta(R, R->drow[k], xbt);
    }
    return CG_OK;
}

/* res = X theta - y and g = X'res / n, from scratch, by passes over X */
static void exact_gradient_x(const regression *R, double *res, double *g)
{
    const int n = R->n, p = R->p;
    for (int r = 0; r < n; r++) res[r] = -R->y[r];
    if (!R->sparse) {
        int one = 1; double zero = 0.0, inv = 1.0 / n;
        /* X theta over the nonzero coefficients only (n |S| flops, not
         * n p: at p >> n the KKT checks' passes were a fifth of a CV);
         * column by column in order, as dgemv("N") adds them: the same
         * numbers (a zero coefficient adds exact zeros) */
        for (int j = 0; j < p; j++)
            if (R->theta[j] != 0.0)
                F77_CALL(daxpy)(&R->n, R->theta + j, R->X + (size_t) j * n, &one, res, &one);
        /* X'res / n (the numbers of dgemv("T"): cols_dot) */
        (void) zero;
        cg_cols_dot(R->X, n, NULL, p, res, inv, g);
        return;
    }
    if (R->xbar) {                   /* the centred X theta */
        const double xbt = xbar_dot_theta(R);
        for (int r = 0; r < n; r++) res[r] -= xbt;
    }
    for (int j = 0; j < p; j++)
        for (int a = R->cp[j]; a < R->cp[j + 1]; a++) res[R->ri[a]] += R->cx[a] * R->theta[j];
    double rsum = 0.0;
    if (R->xbar) for (int r = 0; r < n; r++) rsum += res[r];
    for (int j = 0; j < p; j++) {
        double s = 0.0;
        for (int a = R->cp[j]; a < R->cp[j + 1]; a++) s += R->cx[a] * res[R->ri[a]];
        g[j] = R->xbar ? (s - R->xbar[j] * rsum) / n : s / n;
    }
}

static const double *gram_col(cg_problem *P, regression *R, int j, double *scratch);

/* is the rounding of the Gram gradient at theta far below what tol asks
 * (exact_gradient)? */
static int gram_rounding_ok(const cg_problem *P, const regression *R)
{
    double l1 = 0.0;
    for (int j = 0; j < R->p; j++) l1 += fabs(R->theta[j]);
    const double err = 1e-15 * (R->xty_max + l1 * R->diag_max);
    return 200.0 * R->radius * err <= 1e-2 * P->tol * 1e-3 * 0.5 * R->yty;
}

/* g = X'(X theta - y) / n, from scratch. pfw without a working set, the
 * support's Gram columns in the cache (those missing computed while it has
 * room: the steps need them too): g = G theta - X'y / n through them,
 * O(p |S|) where two passes over X cost 4 n p (at n >> p they were a
 * third of a path's time), and res is not formed (reg_evaluate: the
 * objective from theta'g and theta'X'y); else by passes over X. */
static void exact_gradient(cg_problem *P, regression *R, double *res, double *g)
{
    const int p = R->p, one = 1;
    int gram = R->xty != NULL;
    for (int j = 0; j < p && gram; j++)
        if (R->theta[j] != 0.0 && !R->gcol[j]) {
            if (R->cache_left <= 0) gram = 0;
            else gram_col(P, R, j, R->colbuf);
        }
    R->res_formed = !gram;
    if (!gram) {
        exact_gradient_x(R, res, g);
        return;
    }
    for (int j = 0; j < p; j++) g[j] = -R->xty[j];
    /* (in coordinate order: the numbers depend on theta alone, not on the
     * order the steps gave the support) */
    for (int j = 0; j < p; j++)
        if (R->theta[j] != 0.0) F77_CALL(daxpy)(&R->p, R->theta + j, R->gcol[j], &one, g, &one);
    /* G theta - X'y / n cancels where g is small: its entries carry about
     * 1e-15 (|X'y / n| + ||theta||_1 max_j G_jj) of rounding, the gap
     * <g, theta> + r ||g||_inf twice r that. Where 100 times that is not
     * far below what tol asks of the gap (tol times at least 1e-3 of the
     * objective at 0, y'y / 2n: solve_run.c), the passes over X, whose
     * rounding is the residual's (a 300 x 60 fit at tol 1e-13 stalled at
     * a gap of 3e-13 without them; base 2.4e-14) */
    if (!gram_rounding_ok(P, R)) {
        R->res_formed = 1;
        exact_gradient_x(R, res, g);
    }
}

/* full objective 1/(2n)||y - X theta||^2 and gap <g, theta> + r ||g||_inf */
static void reg_evaluate(cg_problem *P, double *obj, double *gap)
{
    regression *R = (regression *) P->self;
    if (R->reader) {
        reader_evaluate(P, obj, gap);
        return;
    }
    const int n = R->n, p = R->p;
    double *res = R->res, *g = R->gfull;
    if (R->pairwise && R->g_exact_at == R->moves) {
        g = R->g;                    /* computed from scratch at this iterate */
    } else {
        if (R->pairwise) {
            exact_gradient(P, R, res, g);
            R->eval_at = R->moves;
        } else {
            exact_gradient_x(R, res, g);
            R->res_formed = 1;
        }
    }
    double rss = 0.0, gt = 0.0, gmax = 0.0;
    if (R->res_formed) for (int r = 0; r < n; r++) rss += res[r] * res[r];
    for (int j = 0; j < p; j++) { gt += g[j] * R->theta[j]; gmax = fmax(gmax, fabs(g[j])); }
    if (!R->res_formed) {            /* (y'y - 2 theta'X'y + theta'X'X theta) / n */
        double tb = 0.0;
        for (int j = 0; j < p; j++) tb += R->theta[j] * R->xty[j];
        rss = fmax(R->yty + gt - tb, 0.0) * n;
    }
    *obj = rss / (2.0 * n);
    *gap = gt + R->radius * gmax;
}

/* ------------------------------------------ pairwise Frank-Wolfe ("pfw") */
static const double *gram_col_ws(cg_problem *P, regression *R, int j, double *scratch);

/* the Gram column X'x_j / n: from the cache, or computed (one pass over X)
 * into the cache while the budget lasts, else into `scratch` */
static const double *gram_col(cg_problem *P, regression *R, int j, double *scratch)
{
    if (R->ws_on) return gram_col_ws(P, R, j, scratch);
    if (R->gcol[j]) return R->gcol[j];
    const int n = R->n, p = R->p;
    double *c = scratch;
    if (R->cache_left > 0) {
        c = reg_zeros(R, p);
        R->gcol[j] = c;
        R->cache_left--;
    }
    if (!R->sparse) {                /* the numbers of dgemv("T"): cols_dot */
        cg_cols_dot(R->X, n, NULL, p, R->X + (size_t) j * n, 1.0 / n, c);
    } else {                     /* by rows: only the rows where x_j != 0 */
        memset(c, 0, sizeof(double) * p);
        for (int a = R->cp[j]; a < R->cp[j + 1]; a++) {
            const int i = R->ri[a]; const double v = R->cx[a] / n;
            for (int b = R->rp[i]; b < R->rp[i + 1]; b++) c[R->ci[b]] += v * R->rx[b];
        }
        /* centred: Xc'Xc = X'X - n xbar xbar' */
        if (R->xbar) for (int k = 0; k < p; k++) c[k] -= R->xbar[k] * R->xbar[j];
    }
    R->rows_read += R->sparse ? R->cp[j + 1] - R->cp[j] : n;
    if (!cg_all_finite(c, (size_t) p))
        cg_fail(P, "the Gram column X'x_%d / n overflowed double precision (the data are "
                "too large: scale them)", j + 1);
    return c;
}

/* ------------------------------------------------------ working set
 * Screening for a dense X whose Gram matrix is not given: a Gram column
 * X'x_j / n costs n p flops, and at p >> n the fits near interpolation
 * have supports of hundreds of columns (a 1600 x 5000 path spent most of
 * its time there). The pairwise and face steps move only coordinates of a
 * working set W (the support is in W): their Gram columns are needed on W
 * alone (n |W| flops each, entries added as W grows) and the gradient is
 * kept on W alone (O(|W|) a step). Each time the gradient is computed
 * from scratch on all p columns (a full gradient: at the start, every
 * REFRESH steps, and before the loop trusts a small gap), the KKT
 * conditions are checked over all columns: every j outside W with |g_j|
 * above max over W of |g| (the multiplier of the problem restricted to W)
 * enters W, the largest first, at most max(16, |W|) at a time. The LMO
 * then scans W, which holds the largest |g_j| of all p; the gap the loop
 * checks after a full gradient, and the evaluation's, are those of the
 * full problem: the certificate is unchanged. Along a path W is kept (it
 * only grows): the strong rules' "ever active" set. */
static void ws_add(regression *R, int j)
{
    if (R->in_ws[j] >= 0) return;
    R->in_ws[j] = R->n_ws;
    R->ws[R->n_ws++] = j;
}

/* the entry at coordinate j of a Gram column: by coordinate without a
 * working set, by position in W with one (0 off W: only the degenerate
 * LMO vertex of g = 0 is off W, and its entry is not used) */
static double gram_at(const regression *R, const double *col, int j)
{
    if (!R->ws_on) return col[j];
    return R->in_ws[j] >= 0 ? col[R->in_ws[j]] : 0.0;
}

/* entries of X'x_j / n on W from position `from` on, into c (by position) */
static void gram_fill_ws(regression *R, int j, double *c, int from)
{
    const int n = R->n;
    const double *xj = R->X + (size_t) j * n;
    const int pos_j = R->in_ws[j];
    /* the columns to compute (into ws_todo), their sums into ws_dots */
    int *todo = R->ws_todo, m = 0;
    for (int k = from; k < R->n_ws; k++) {
        const int i = R->ws[k];
        /* symmetry: the entry of a cached column i at j, when it has it
         * (x_i'x_j and x_j'x_i summed in the same order: the same number) */
        if (pos_j >= 0 && R->gcol[i] && pos_j < R->gvalid[i] && i != j) {
            c[k] = R->gcol[i][pos_j];
            continue;
        }
        R->ws_tpos[m] = k;
        todo[m++] = i;
    }
    double *dots = R->ws_dots;
    cg_cols_dot(R->X, n, todo, m, xj, 1.0, dots);
    for (int k = 0; k < m; k++) c[R->ws_tpos[k]] = dots[k] / n;
    R->rows_read += (double) m * n / R->p;   /* in rows of X */
}

static const double *gram_col_ws(cg_problem *P, regression *R, int j, double *scratch)
{
    /* a cached column holds W's entries only, with room grown
     * geometrically as W grows (p entries each were 217 of the 306 MB a
     * 160 x 5000 CV allocated; 64 MB now) */
    double *c = (double *) R->gcol[j];
    int from = 0;
    if (c) {
        from = R->gvalid[j];
        if (from == R->n_ws) return c;
        if (R->n_ws > R->gcap[j]) {
            int cap = 2 * R->gcap[j];
            if (cap < R->n_ws) cap = R->n_ws;
            if (cap > R->p) cap = R->p;
            c = reg_grow(R, c, from, cap);
            R->gcol[j] = c;
            R->gcap[j] = cap;
        }
    } else if (R->cache_left > 0) {
        int cap = 2 * R->n_ws;
        if (cap < 16) cap = 16;
        if (cap > R->p) cap = R->p;
        c = reg_zeros(R, cap);
        R->gcol[j] = c;
        R->gcap[j] = cap;
        R->cache_left--;
    } else {
        c = scratch;
    }
    gram_fill_ws(R, j, c, from);
    if (R->gcol[j]) R->gvalid[j] = R->n_ws;
    for (int k = from; k < R->n_ws; k++)
        if (!R_FINITE(c[k]))
            cg_fail(P, "the Gram column X'x_%d / n overflowed double precision (the data are "
                    "too large: scale them)", j + 1);
    return c;
}

static int cmp_desc(const void *a, const void *b)
{
    const double x = *(const double *) a, y = *(const double *) b;
    return (x < y) - (x > y);
}

/* the KKT check over all columns, g exact: the violators into W (above) */
static void ws_screen(regression *R)
{
    const int p = R->p;
    double lam = 0.0;
    for (int k = 0; k < R->n_ws; k++) lam = fmax(lam, fabs(R->g[R->ws[k]]));
    int nv = 0;
    double *v = R->gfull;               /* scratch: |g_j| of the violators */
    for (int j = 0; j < p; j++)
        if (R->in_ws[j] < 0 && fabs(R->g[j]) > lam) v[nv++] = fabs(R->g[j]);
    const int first = R->screened_at < 0.0;   /* the fit's first check: its start set */
    R->screened_at = R->moves;
    if (nv == 0) return;
    const int cap = R->n_ws > 16 ? R->n_ws : 16;
    double cut = lam;                   /* enter: |g_j| > cut, or >= the cap-th largest */
    int ties = 0;
    if (nv > cap) {
        qsort(v, nv, sizeof(double), cmp_desc);
        cut = v[cap - 1];
        ties = 1;
    }
    int added = 0;
    for (int j = 0; j < p && added < cap; j++) {
        const double a = fabs(R->g[j]);
        if (R->in_ws[j] < 0 && a > lam && (ties ? a >= cut : 1)) { ws_add(R, j); added++; }
    }
    if (!first) R->ws_added += added;
    /* gfull held the evaluation's gradient: no longer at this iterate */
    if (R->eval_at == R->moves) R->eval_at = -1.0;
}

/* the gradient is kept exact by pair_step; CG_BATCH_FULL recomputes it.
 * Returns the rows read since the last call (passes over X times n). */
static double reg_pair_gradient(cg_problem *P, int batch)
{
    regression *R = (regression *) P->self;
    if (batch == CG_BATCH_FULL) {
        if (R->g_exact_at == R->moves) {        /* already exact at this iterate */
        } else if (R->eval_at == R->moves) {    /* the same numbers, already computed */
            memcpy(R->g, R->gfull, sizeof(double) * R->p);
        } else {
            exact_gradient(P, R, R->res, R->g);
            R->rows_read += R->res_formed ? R->n : 0.0;
        }
        R->g_exact_at = R->moves;
        R->next_s = -1;
        gradient_check(P, R);
    }
    double fresh = R->rows_read - R->rows_reported;
    R->rows_reported = R->rows_read;
    return fresh;
}

static double reg_pair_lmo(cg_problem *P)
{
    regression *R = (regression *) P->self;
    if (R->ws_on && R->next_s < 0) {
        /* a full gradient: the KKT check first, then the LMO on W (empty
         * only when g = 0 on all columns: then cg_lmo_l1's vertex) */
        if (R->g_exact_at == R->moves && R->screened_at != R->moves) ws_screen(R);
        double amax = -1.0; int best = -1;
        for (int k = 0; k < R->n_ws; k++) {
            const int j = R->ws[k];
            if (fabs(R->g[j]) > amax) { amax = fabs(R->g[j]); best = j; }
        }
        R->next_s = best;
    }
    if (R->next_s >= 0) {               /* cg_lmo_l1's vertex, found by the step */
        R->s_idx = R->next_s;
        R->s_val = R->g[R->next_s] < 0.0 ? R->radius : -R->radius;
    } else {
        cg_lmo_l1(R->g, R->p, R->radius, &R->s_idx, &R->s_val);
    }
    double gx = 0.0;
    for (int k = 0; k < R->n_support; k++) {
        const int j = R->support[k];
        gx += R->g[j] * R->theta[j];
    }
    R->pair_gap = gx - R->s_val * R->g[R->s_idx];
    return R->pair_gap;
}

/* keep j in the support list exactly when theta_j != 0 */
static void support_update(regression *R, int j)
{
    cg_support_update(R->support, R->in_support, &R->n_support, R->theta, j);
}

/* exact step along d = s - a: -<g, d> / (d' X'X d / n) */
static double reg_pair_direction(cg_problem *P, double *gamma_max, double *gamma_exact)
{
    regression *R = (regression *) P->self;
    const int s = R->s_idx;
    cg_away_l1(R->g, R->theta, R->support, R->n_support, R->radius, R->slack,
               &R->a_idx, &R->a_val, gamma_max);
    const int a = R->a_idx;
    const double sv = R->s_val, av = R->a_val;
    R->gs = gram_col(P, R, s, R->colbuf);
    double slope = sv * R->g[s], curv = sv * sv * gram_at(R, R->gs, s);
    R->ga = NULL;
    if (a >= 0) {
        R->ga = gram_col(P, R, a, R->colbuf + R->p);
        slope -= av * R->g[a];
        curv += av * av * gram_at(R, R->ga, a) - 2.0 * sv * av * gram_at(R, R->gs, a);
    }
    *gamma_exact = slope >= 0.0 ? 0.0 : curv > 0.0 ? -slope / curv : INFINITY;
    return -slope;
}

static void reg_pair_step(cg_problem *P, double gamma, int drop)
{
    regression *R = (regression *) P->self;
    const int s = R->s_idx, a = R->a_idx, p = R->p;
    double *theta = R->theta;
    const double before = fabs(theta[s]) + (a >= 0 && a != s ? fabs(theta[a]) : 0.0);
    const int grows = theta[s] * R->s_val >= 0.0;    /* s adds to |theta_s| */
    const double cs = gamma * R->s_val, ca = gamma * R->a_val;
    theta[s] += cs;
    const double *gs = R->gs, *ga = a >= 0 ? R->ga : R->gs;
    const double ca_g = a >= 0 ? ca : 0.0;
    /* update g and find the next LMO vertex (largest |g_j|, first on ties,
     * as cg_lmo_l1) in one pass */
    double amax = -1.0; int best = 0;
    if (R->ws_on) {                     /* on W only (see ws_screen) */
        for (int k = 0; k < R->n_ws; k++) {   /* (columns by position in W) */
            const int j = R->ws[k];
            const double gj = R->g[j] + cs * gs[k] - ca_g * ga[k];
            R->g[j] = gj;
            if (fabs(gj) > amax) { amax = fabs(gj); best = j; }
        }
    } else {
        for (int j = 0; j < p; j++) {
            const double gj = R->g[j] + cs * gs[j] - ca_g * ga[j];
            R->g[j] = gj;
            if (fabs(gj) > amax) { amax = fabs(gj); best = j; }
        }
    }
    R->next_s = best;
    if (a >= 0) {
        theta[a] -= ca;
        if (drop && a != s) theta[a] = 0.0;   /* exact zero, not a rounding residue */
        support_update(R, a);
    }
    support_update(R, s);
    const double after = fabs(theta[s]) + (a >= 0 && a != s ? fabs(theta[a]) : 0.0);
    /* the origin dropped: on the sphere exactly */
    R->slack = (a < 0 && drop && grows) ? 0.0 : fmax(R->slack - (after - before), 0.0);
    /* this step's work in flops: the gradient update, the scans of the
     * support (LMO, away vertex) and about 1000 for the iteration's calls
     * and clock reads (0.4 us a step measured at p = 103, 3 GFlop/s);
     * with a working set, the flops of an unscreened step (a credit of
     * the working set's alone left the interpolating fold fits of a
     * 53 x 2307 design 10^4 steps where they had taken hundreds) */
    R->face_credit += FACE_SHARE * (2.0 * p + 4.0 * R->n_support + 1000.0);
    R->moves += 1.0;
}

/* ------------------------------------------------------------- face step
 * Pairwise steps converge linearly, but at a rate that degrades with the
 * conditioning of X'X on the support: at the weakly constrained radii of
 * correlated designs 10^5 of them were not enough. The face step is the
 * fully corrective step of an active-set method. With the signs of the
 * support S fixed, the objective is a quadratic on the affine hull of the
 * face of the active vertices: R^S inside the ball (the origin is active),
 * the hyperplane sign(theta_S)'b = r on the sphere. Its minimizer is one
 * |S| x |S| solve with the Gram block G_SS, whose columns the pairwise
 * steps have cached. The iterate moves toward it as far as the face allows:
 * a coefficient reaching zero leaves the support exactly, the l1 norm
 * reaching r puts the iterate on the sphere (and a negative multiplier
 * there releases it into the ball), and the solve repeats on the new face.
 * Every move is checked to decrease the objective and stays in the ball,
 * so the Frank-Wolfe gap stays the certificate; once the pairwise steps
 * have found the support and signs of the solution, one face step reaches
 * it. A singular block (a support of more columns than rows, near the
 * interpolating radii of p >> n designs, or collinear columns) first loses
 * columns at no cost (face_null_space). Its work (flops of the solves) is
 * paid from a credit the pairwise steps earn with theirs, FACE_SHARE times
 * their flops: face steps take at most FACE_SHARE / (FACE_SHARE + 1) of a
 * run's work (with a share of 1 the p >> n fits near interpolation ran out
 * of 10^5 steps; with 40 most took hundreds, but the interpolating fold
 * fits of a 66 x 2307 design still ran out; with 200 all took hundreds,
 * and the n > p benchmarks kept their times). A warm start begins with the
 * credit of one: its support is the previous solution's. */

/* room for k coordinates, grown geometrically (the old arrays freed) */
#define FACE_LWORK 3           /* scratch: cap doubles, and 2 cap for dpstrf */
static void face_room(regression *R, int k)
{
    if (k <= R->face_cap) return;
    int cap = 2 * R->face_cap;
    if (cap < k) cap = k;
    if (cap < 16) cap = 16;
    if (cap > R->face_max) cap = R->face_max;
    double *L = reg_zeros(R, (size_t) cap * cap), *G = reg_zeros(R, (size_t) cap * cap);
    int *fidx = reg_ints(R, cap);
    for (int c = 0; c < R->fac_m; c++) {     /* the kept factor (and block) move over */
        memcpy(L + (size_t) c * cap + c, R->face_L + (size_t) c * R->face_cap + c,
               sizeof(double) * (R->fac_m - c));
        if (R->fac_G_ok)
            memcpy(G + (size_t) c * cap, R->face_G + (size_t) c * R->face_cap,
                   sizeof(double) * R->fac_m);
        fidx[c] = R->fac_idx[c];
    }
    reg_free(R, R->face_G); reg_free(R, R->face_L); reg_free(R, R->fac_idx);
    reg_free(R, R->face_w); reg_free(R, R->face_idx);
    R->face_G = G;
    R->face_L = L;
    R->fac_idx = fidx;
    R->face_w = reg_zeros(R, (7 + FACE_LWORK) * (size_t) cap);
    R->face_idx = reg_ints(R, 3 * (size_t) cap);
    R->face_cap = cap;
}

/* forget the kept factor */
static void fac_clear(regression *R)
{
    for (int a = 0; a < R->fac_m; a++) R->fac_pos[R->fac_idx[a]] = -1;
    R->fac_m = 0;
    R->fac_G_ok = 0;
}

/* keep the factor of the m coordinates idx[0..m-1] (in face_L) */
static void fac_keep(regression *R, const int *idx, int m)
{
    fac_clear(R);
    for (int a = 0; a < m; a++) { R->fac_idx[a] = idx[a]; R->fac_pos[idx[a]] = a; }
    R->fac_m = m;
    R->fac_G_ok = 1;
}

/* drop position a of the face's m coordinates (those after it move up one:
 * the order is kept, so that a Cholesky factor can follow, chol_delete) */
static void face_remove(int a, int m, int ld, int *idx, double *G, double **vecs, int nvec)
{
    for (int c = 0; c < m; c++) {
        double *col = G + (size_t) c * ld;
        memmove(col + a, col + a + 1, sizeof(double) * (m - 1 - a));
    }
    memmove(G + (size_t) a * ld, G + (size_t) (a + 1) * ld, sizeof(double) * ld * (m - 1 - a));
    memmove(idx + a, idx + a + 1, sizeof(int) * (m - 1 - a));
    for (int v = 0; v < nvec; v++) memmove(vecs[v] + a, vecs[v] + a + 1, sizeof(double) * (m - 1 - a));
}

/* L (lower, m x m, leading dimension ld) with G = L L': the factor of G
 * without row and column a, in place (its leading m - 1 block), by
 * deleting row a of L and Givens rotations of the columns from a on that
 * restore the triangle: O((m - a)^2), where a new factor costs m^3 / 3 */
static void chol_delete(double *L, int ld, int m, int a)
{
    for (int c = 0; c <= a && c < m; c++) {
        double *col = L + (size_t) c * ld;
        memmove(col + a, col + a + 1, sizeof(double) * (m - 1 - a));
    }
    for (int c = a + 1; c < m; c++) {          /* rows >= c - 1 hold the factor */
        double *col = L + (size_t) c * ld;
        memmove(col + c - 1, col + c, sizeof(double) * (m - c));
    }
    for (int c = a; c < m - 1; c++) {
        double *x = L + (size_t) c * ld, *z = L + (size_t) (c + 1) * ld;
        const double rr = hypot(x[c], z[c]);
        if (!(rr > 0.0)) continue;
        const double cs = x[c] / rr, sn = z[c] / rr;
        for (int r = c; r < m - 1; r++) {
            const double u = x[r], v = z[r];
            x[r] = cs * u + sn * v;
            z[r] = -sn * u + cs * v;
        }
    }
}

/* The face step's solves and products, in the reference BLAS's arithmetic
 * order (dtrsv / dtrsm("L", "L", "N"|"T") as dpotrs calls them, and
 * dsymv("L") with alpha 1, beta 0): every entry gets the same operations
 * in the same order, so the numbers are those of the BLAS calls they
 * replace (with the reference BLAS R ships). What differs is the loop
 * order across entries: four columns of L or G per pass over the vector
 * (the forward solve and the product), two right-hand sides per pass over
 * L (the face step on the sphere solves for g and sig), and in dsymv's
 * and the transposed solve's dot products independent chains of additions
 * side by side (the reference BLAS runs one chain at a time, latency-bound:
 * these were a quarter of a 1600 x 5000 CV). */

/* x := L^{-1} x (L lower, leading dimension ld; dtrsv("L", "N", "N")) for
 * the nr vectors xs[0..nr-1], the rows from..m-1 only (0: the whole solve;
 * from > 0 continues one whose rows < from are done, their entries final):
 * column k: x_k /= L_kk, then x_i -= x_k L_ik (i > k), skipped when x_k = 0.
 * Each block of four columns of L is read for all vectors in turn. */
static void tri_solve_lower_rows(const double *L, int ld, int m, double **xs, int nr, int from)
{
    int k = 0;
    for (; k + 4 <= m; k += 4) {
        for (int r = 0; r < nr; r++) {
            double *x = xs[r];
            const double *c[4];
            double t[4];
            int nz = 0;
            for (int q = 0; q < 4; q++) {    /* the 4 x 4 corner, column by column */
                const double *col = L + (size_t) (k + q) * ld;
                if (k + q >= from) {
                    if (x[k + q] == 0.0) continue;
                    x[k + q] /= col[k + q];
                } else if (x[k + q] == 0.0) continue;
                for (int i = (k + q + 1 > from ? k + q + 1 : from); i < k + 4; i++)
                    x[i] -= x[k + q] * col[i];
                c[nz] = col; t[nz++] = x[k + q];
            }
            const int i0 = k + 4 > from ? k + 4 : from;
            if (nz == 4) {
                const double *c0 = c[0], *c1 = c[1], *c2 = c[2], *c3 = c[3];
                const double t0 = t[0], t1 = t[1], t2 = t[2], t3 = t[3];
                for (int i = i0; i < m; i++) {
                    double xi = x[i] - t0 * c0[i];
                    xi -= t1 * c1[i];
                    xi -= t2 * c2[i];
                    x[i] = xi - t3 * c3[i];
                }
            } else {
                for (int q = 0; q < nz; q++)
                    for (int i = i0; i < m; i++) x[i] -= t[q] * c[q][i];
            }
        }
    }
    for (; k < m; k++) {
        const double *col = L + (size_t) k * ld;
        for (int r = 0; r < nr; r++) {
            double *x = xs[r];
            if (x[k] == 0.0) continue;
            if (k >= from) x[k] /= col[k];
            for (int i = (k + 1 > from ? k + 1 : from); i < m; i++) x[i] -= x[k] * col[i];
        }
    }
}

/* x := L'^{-1} x (dtrsm("L", "L", "T", "N") with one right-hand side):
 * x_i = (x_i - sum_{k > i} L_ki x_k) / L_ii, the sum in k's order; for
 * two right-hand sides (y not NULL) both chains side by side */
static void tri_solve_lower_t(const double *L, int ld, int m, double *x, double *y)
{
    for (int i = m - 1; i >= 0; i--) {
        const double *col = L + (size_t) i * ld;
        double tx = x[i];
        if (y) {
            double ty = y[i];
            for (int k = i + 1; k < m; k++) { tx -= col[k] * x[k]; ty -= col[k] * y[k]; }
            y[i] = ty / col[i];
        } else {
            for (int k = i + 1; k < m; k++) tx -= col[k] * x[k];
        }
        x[i] = tx / col[i];
    }
}

/* G x = b by G's Cholesky factor L, for b = x (and b = y when y is not
 * NULL): dpotrs("L") with one right-hand side, for each */
static void chol_solve(const double *L, int ld, int m, double *x, double *y)
{
    double *xs[2] = {x, y};
    tri_solve_lower_rows(L, ld, m, xs, y ? 2 : 1, 0);
    tri_solve_lower_t(L, ld, m, x, y);
}

/* y = G x, G symmetric by its lower triangle (dsymv("L"), alpha 1, beta 0):
 * column j adds x_j G_ij to y_i (i >= j), then sum_{i > j} G_ij x_i to y_j */
static void sym_mv_lower(const double *G, int ld, int m, const double *x, double *y)
{
    for (int i = 0; i < m; i++) y[i] = 0.0;
    int j = 0;
    for (; j + 4 <= m; j += 4) {
        const double *c0 = G + (size_t) j * ld, *c1 = c0 + ld, *c2 = c1 + ld, *c3 = c2 + ld;
        const double t0 = x[j], t1 = x[j + 1], t2 = x[j + 2], t3 = x[j + 3];
        double s[4] = {0.0, 0.0, 0.0, 0.0};
        for (int q = 0; q < 4; q++) {        /* the corner, column by column */
            const double *col = c0 + (size_t) q * ld;
            y[j + q] += x[j + q] * col[j + q];
            for (int i = j + q + 1; i < j + 4; i++) {
                y[i] += x[j + q] * col[i];
                s[q] += col[i] * x[i];
            }
        }
        double s0 = s[0], s1 = s[1], s2 = s[2], s3 = s[3];
        for (int i = j + 4; i < m; i++) {
            const double xi = x[i];
            double yi = y[i] + t0 * c0[i];
            yi += t1 * c1[i];
            yi += t2 * c2[i];
            y[i] = yi + t3 * c3[i];
            s0 += c0[i] * xi; s1 += c1[i] * xi; s2 += c2[i] * xi; s3 += c3[i] * xi;
        }
        y[j] += s0; y[j + 1] += s1; y[j + 2] += s2; y[j + 3] += s3;
    }
    for (; j < m; j++) {
        const double *col = G + (size_t) j * ld, t = x[j];
        double s = 0.0;
        y[j] += t * col[j];
        for (int i = j + 1; i < m; i++) { y[i] += t * col[i]; s += col[i] * x[i]; }
        y[j] += s;
    }
}

static double face_cost(double m) { return m * m * m / 3.0 + 4.0 * m * m; }

/* A singular Gram block (a support of more columns than rows, as near the
 * interpolating radii of p >> n designs, or of collinear columns): a
 * direction d in the null space of G = X_S'X_S / n changes neither the
 * fitted values nor the objective (g_S = X_S'r / n is orthogonal to it),
 * and, signed so that sig'd <= 0, does not increase the l1 norm. Moving
 * along it until a coefficient reaches zero (Caratheodory's reduction)
 * takes one column out of the support at no cost, and leaves slack in the
 * ball when sig'd < 0; the solution has a support on which G is
 * nonsingular (an optimum with sig'd < 0 for some null d would not be one:
 * the slack lowers the objective), and the face step then goes on with
 * the Cholesky solves. The null space, from the Cholesky factor with
 * pivoting (dpstrf, rank where the remaining pivots fall below 1e-12 of
 * the largest diagonal entry, *scale): one null vector per column left out
 * of the basis, on the basis columns, in the first columns of L (unit
 * length); returns their number (0 also when LAPACK fails). One
 * decomposition serves all the reductions: once column `a` is out, the
 * null vectors with a zero in row `a` (one eliminated from the others)
 * span the null space of the block left.
 * A computed null vector d is null to the rank's tolerance only: d'G d
 * up to 1e-12 of the largest diagonal entry, so g_S'd = r'X_S d / n is
 * not zero but up to sqrt(2 f d'G d) (f the objective), and a move of
 * length tau changes the objective by tau g_S'd + tau^2 d'G d / 2: a term
 * linear in tau, which the rounding of G d alone (quadratic in tau) does
 * not cover. A move is taken when its change is within that rounding or
 * below NULL_SHARE (1e-10) of the last Frank-Wolfe gap, which bounds
 * f - f*: an increase that small costs the certificate nothing. (With
 * the rounding alone, a warm fold fit of a 66 x 2307 design at its
 * interpolating radius refused nearly every reduction: changes of 1e-22
 * to 1e-21 against bounds of 1e-25 to 1e-23, at steps tau of 1e-6 to
 * 1e-4; its support grew from 59 to 82 columns on 59 rows and it ran
 * 10^4 pairwise steps, where with the share it takes 121, cold 252.) */
static int face_null_space(int m, int ld, const double *G, double *L, int *piv, double *x,
                           double *work, double *scale)
{
    int info = 0, rank = 0, one = 1;
    double dmax = 0.0;
    for (int a = 0; a < m; a++) dmax = fmax(dmax, G[a + (size_t) a * ld]);
    if (!(dmax > 0.0)) return 0;
    double tol = 1e-12 * dmax;
    for (int a = 0; a < m; a++) memcpy(L + (size_t) a * ld, G + (size_t) a * ld, sizeof(double) * m);
    F77_CALL(dpstrf)("L", &m, L, &ld, piv, &rank, &tol, work, &info FCONE);
    if (info < 0 || rank < 1 || rank >= m) return 0;
    /* column piv[k] (k >= rank) on the basis columns: G_BB x = G_Bk, and
     * z = (x on B, -1 at k) has z'Gz = the Schur complement, below tol */
    for (int k = rank; k < m; k++) {
        const int jk = piv[k] - 1;
        for (int i = 0; i < rank; i++) x[i] = G[(piv[i] - 1) + (size_t) jk * ld];
        F77_CALL(dpotrs)("L", &rank, &one, L, &ld, x, &ld, &info FCONE);
        if (info != 0) return 0;
        double *z = L + (size_t) k * ld, nrm = 1.0;
        for (int a = 0; a < m; a++) z[a] = 0.0;
        for (int i = 0; i < rank; i++) { z[piv[i] - 1] = x[i]; nrm += x[i] * x[i]; }
        z[jk] = -1.0;
        nrm = sqrt(nrm);
        for (int a = 0; a < m; a++) z[a] /= nrm;
    }
    for (int k = rank; k < m; k++)          /* to the first columns */
        memmove(L + (size_t) (k - rank) * ld, L + (size_t) k * ld, sizeof(double) * m);
    *scale = dmax;
    return m - rank;
}

/* One reduction along the null vector z of the face's m x m block G
 * (face_null_space): signed so that sig'd <= 0, to the first coefficient
 * reaching zero, taken when the objective does not change (up to the
 * rounding of G d, or NULL_SHARE of the last gap); theta, g_S (gS), the
 * slack and the sphere flag follow. Returns the position of the
 * coefficient now zero, or -1 (no move). */
static int null_move(const regression *R, int m, int ld, const double *G, const int *idx,
                     double *theta, double *gS, const double *sig, const double *z,
                     double *d, double *Gd, double ev_max, double *slack, int *on_sphere)
{
    double sq = 0.0;
    for (int a = 0; a < m; a++) sq += sig[a] * z[a];
    const double sgn = sq > 0.0 ? -1.0 : 1.0;
    double tau = INFINITY, sd = 0.0;
    int block = -1;
    for (int a = 0; a < m; a++) {
        d[a] = sgn * z[a];
        sd += sig[a] * d[a];
        if (d[a] * sig[a] < 0.0) {
            const double t = -theta[idx[a]] / d[a];
            if (t < tau) { tau = t; block = a; }
        }
    }
    if (block < 0) return -1;
    double gd = 0.0, dGd = 0.0;
    sym_mv_lower(G, ld, m, d, Gd);
    for (int a = 0; a < m; a++) { gd += gS[a] * d[a]; dGd += d[a] * Gd[a]; }
    /* no change, up to the rounding of G d, or a change too small to
     * matter (face_null_space) */
    const double chg = tau * gd + 0.5 * tau * tau * dGd;
    if (!(chg <= 1e-15 * tau * tau * ev_max * m || chg <= NULL_SHARE * R->pair_gap)) return -1;
    for (int a = 0; a < m; a++) { theta[idx[a]] += tau * d[a]; gS[a] += tau * Gd[a]; }
    theta[idx[block]] = 0.0;
    if (sd < 0.0) { *slack = (*on_sphere ? 0.0 : *slack) - tau * sd; *on_sphere = 0; }
    return block;
}

static int reg_face_step(cg_problem *P)
{
    regression *R = (regression *) P->self;
    const int p = R->p, k0 = R->n_support;
    if (!R->face_on || k0 < 1 || k0 > R->face_max) return 0;
    /* the kept factor, updated: the coordinates that left the support
     * leave it (chol_delete, about 3 (m - a)^2 flops at position a), the
     * support's new ones enter (a triangular solve, c^2 at position c):
     * O(m^2) a step where a new factor costs m^3 / 3 */
    int keep = 0;
    double upd = 0.0;
    if (R->fac_m > 0) {
        int m = R->fac_m;
        for (int a = R->fac_m - 1; a >= 0; a--)
            if (R->in_support[R->fac_idx[a]] < 0) { upd += 3.0 * (m - a) * (double) (m - a); m--; }
        keep = m;
        for (int c = keep; c < k0; c++) upd += (double) c * c + 2.0 * c;
        upd += 4.0 * (double) k0 * k0;
    }
    const int update = keep > 0 && upd < face_cost(k0);
    if (R->face_credit < (update ? upd : face_cost(k0))) return 0;
    face_room(R, k0);
    const int cap = R->face_cap, ld = cap, one = 1;
    int *idx = R->face_idx, *orig = R->face_idx + cap;
    double *G = R->face_G, *L = R->face_L, *w = R->face_w, *theta = R->theta;
    double *gS = w, *sig = w + cap, *u = w + 2 * cap, *v = w + 3 * cap, *d = w + 4 * cap,
           *Gd = w + 5 * cap, *old = w + 6 * cap;
    /* the order: the kept factor's coordinates still in the support, in
     * its order, then the support's others, in the support's */
    int k = 0;
    if (update) {
        /* the coordinates out of the support leave the factor (and the
         * block, when kept) */
        int mf = R->fac_m;
        for (int a = R->fac_m - 1; a >= 0; a--)
            if (R->in_support[R->fac_idx[a]] < 0) {
                R->fac_pos[R->fac_idx[a]] = -1;
                chol_delete(L, ld, mf, a);
                if (R->fac_G_ok) face_remove(a, mf, ld, R->fac_idx, G, NULL, 0);
                else memmove(R->fac_idx + a, R->fac_idx + a + 1, sizeof(int) * (mf - 1 - a));
                mf--;
            }
        R->fac_m = mf;
        for (int a = 0; a < mf; a++) { idx[k++] = R->fac_idx[a]; R->fac_pos[R->fac_idx[a]] = a; }
        for (int a = 0; a < k0; a++)
            if (R->fac_pos[R->support[a]] < 0) idx[k++] = R->support[a];
    } else {
        for (int a = 0; a < k0; a++) idx[a] = R->support[a];
    }
    /* the Gram block: the kept one and the new coordinates' columns (the
     * same numbers as the whole block gathered again: O(k0^2) scattered
     * reads a step were a third of a 1600 x 5000 path) */
    const int from = update && R->fac_G_ok ? keep : 0;
    int cached = 1;
    for (int a = 0; a < k0; a++) {
        const int j = idx[a];
        orig[a] = j;
        old[a] = theta[j];
        gS[a] = R->g[j];
        sig[a] = theta[j] > 0.0 ? 1.0 : -1.0;
        const double *col = gram_col(P, R, j, R->colbuf);
        if (P->stop) { fac_clear(R); return 0; }
        cached &= R->gcol[j] != NULL;
        if (a < from) continue;
        for (int b = 0; b < k0; b++) {
            const double v = gram_at(R, col, idx[b]);
            G[b + (size_t) a * ld] = v;
            if (b < from) G[a + (size_t) b * ld] = v;
        }
    }
    double *vecs[2] = {gS, sig};             /* old stays in the order of orig */
    int m = k0, on_sphere = R->slack == 0.0, moved = 0, pinned = 0, factored = 0;
    double spent = 0.0, slack = R->slack;
    if (update) {
        /* appended: row c of L solves L_cc l = G_c (the first c entries of
         * G's column c), its pivot sqrt(G_cc - l'l). The solves run in the
         * unused upper triangle of L's column c: their rows < keep (the
         * kept factor only) for up to 8 new coordinates in one pass over
         * the kept factor, the rest (rows of the factor appended just
         * before) each in turn; the same operations, in the same order per
         * entry, as each solve alone */
        factored = 1;
        double *ts[8];
        int bad = -1;
        for (int c = keep; c < k0 && factored; c++) {
            double *t = L + (size_t) c * ld;
            if ((c - keep) % 8 == 0) {
                int nb = 0;
                for (int cc = c; cc < k0 && nb < 8; cc++, nb++) {
                    ts[nb] = L + (size_t) cc * ld;
                    memcpy(ts[nb], G + (size_t) cc * ld, sizeof(double) * cc);
                }
                tri_solve_lower_rows(L, ld, keep, ts, nb, 0);
            }
            tri_solve_lower_rows(L, ld, c, &t, 1, keep);
            double dd = G[c + (size_t) c * ld];
            for (int i = 0; i < c; i++) { dd -= t[i] * t[i]; L[c + (size_t) i * ld] = t[i]; }
            factored = dd > 0.0;
            L[c + (size_t) c * ld] = factored ? sqrt(dd) : 0.0;
            if (!factored) bad = c;
        }
        /* the fresh factor's test: a pivot this small, singular */
        for (int a = 0; a < k0 && factored; a++) {
            factored = L[a + (size_t) a * ld] * L[a + (size_t) a * ld] > 1e-12 * G[a + (size_t) a * ld];
            if (!factored) bad = a;
        }
        spent = upd - 4.0 * (double) k0 * k0;
        /* the last appended column dependent on the others (a support of
         * one column more than the rank of its rows, as where a p >> n fit
         * nears interpolation, where pairwise steps add a column and the
         * face step takes one out, step after step): its null vector from
         * the factor just extended, (L^-T l, -1) with l its row of L, and
         * the reduction (null_move) with the factor kept, both O(m^2),
         * where the general path below factors the block twice and with
         * pivoting, O(m^3) (at 60 columns on 59 rows these factorizations
         * were a third of a standardized CV's fold paths). Not taken, the
         * general path follows. */
        if (!factored && bad == k0 - 1 && bad >= keep && k0 >= 2) {   /* (appended) */
            const int c = k0 - 1;
            double *z = w + 7 * cap, ev_max = 0.0, nrm = 1.0;
            memcpy(z, L + (size_t) c * ld, sizeof(double) * c);   /* l (column c's upper part) */
            tri_solve_lower_t(L, ld, c, z, NULL);
            for (int a = 0; a < c; a++) nrm += z[a] * z[a];
            z[c] = -1.0;
            nrm = sqrt(nrm);
            for (int a = 0; a <= c; a++) z[a] /= nrm;
            for (int a = 0; a < k0; a++) ev_max = fmax(ev_max, G[a + (size_t) a * ld]);
            const int block = null_move(R, k0, ld, G, idx, theta, gS, sig, z, d, Gd, ev_max,
                                        &slack, &on_sphere);
            if (block >= 0) {
                moved = 1;
                spent += 4.0 * (double) k0 * k0;
                if (block < c) chol_delete(L, ld, c, block);
                face_remove(block, k0, ld, idx, G, vecs, 2);
                m = c;
                factored = 1;
                if (block < c) {             /* the appended column again, now last */
                    const int q = m - 1;
                    double *t = L + (size_t) q * ld, dd = G[q + (size_t) q * ld];
                    memcpy(t, G + (size_t) q * ld, sizeof(double) * q);
                    tri_solve_lower_rows(L, ld, q, &t, 1, 0);
                    for (int i = 0; i < q; i++) { dd -= t[i] * t[i]; L[q + (size_t) i * ld] = t[i]; }
                    factored = dd > 1e-12 * G[q + (size_t) q * ld];
                    L[q + (size_t) q * ld] = factored ? sqrt(dd) : 0.0;
                    spent += 3.0 * (double) (c - block) * (c - block) + (double) q * q;
                }
            }
        }
    }
    fac_clear(R);                            /* kept again below, when factored */
    for (int round = 0; round <= k0 && m > 0; round++) {
        if (round > 0 && spent + (factored ? 4.0 * m * m : face_cost(m)) > R->face_credit) break;
        /* a solve costs up to 3 GFlop (s = 2048): Ctrl-C ends the step with
         * the rounds done (each leaves a point of the ball) */
        if (round > 0 && cg_interrupt_poll()) {
            cg_fail_status(P, CG_ERR_INTERRUPT, NULL);
            break;
        }
        int info = 0, singular = 0;
        if (factored) {                  /* the last round's factor, less its columns out */
            spent += 4.0 * m * m;
        } else {
            spent += face_cost(m);
            for (int a = 0; a < m; a++)
                memcpy(L + (size_t) a * ld, G + (size_t) a * ld, sizeof(double) * m);
            F77_CALL(dpotrf)("L", &m, L, &ld, &info FCONE);
            /* a pivot this small leaves no digits in the solve: collinear
             * support, or more columns than rows */
            singular = info != 0;
            for (int a = 0; a < m && !singular; a++)
                singular |= L[a + (size_t) a * ld] * L[a + (size_t) a * ld] <= 1e-12 * G[a + (size_t) a * ld];
            factored = !singular;
        }
        if (singular) {                  /* columns out, at no cost (face_null_space) */
            double ev_max = 0.0;
            int kn = face_null_space(m, ld, G, L, R->face_idx + 2 * cap, w + 7 * cap,
                                     w + 8 * cap, &ev_max), reduced = 0;
            spent += face_cost(m) + 2.0 * m * m * kn;
            while (kn > 0 && m > 1) {
                const int block = null_move(R, m, ld, G, idx, theta, gS, sig, L, d, Gd, ev_max,
                                            &slack, &on_sphere);
                if (block < 0) break;
                moved = 1; reduced = 1;
                /* the null vectors with a zero in row `block`: eliminate by
                 * the one largest there, which leaves */
                int piv = 0;
                for (int c = 1; c < kn; c++)
                    if (fabs(L[block + (size_t) c * ld]) > fabs(L[block + (size_t) piv * ld])) piv = c;
                const double zp = L[block + (size_t) piv * ld];
                for (int c = 0; c < kn; c++) {
                    if (c == piv) continue;
                    const double f = L[block + (size_t) c * ld] / zp;
                    for (int a = 0; a < m; a++) L[a + (size_t) c * ld] -= f * L[a + (size_t) piv * ld];
                }
                kn--;
                if (piv != kn) memcpy(L + (size_t) piv * ld, L + (size_t) kn * ld, sizeof(double) * m);
                for (int c = 0; c < kn; c++) {
                    double *col = L + (size_t) c * ld;
                    memmove(col + block, col + block + 1, sizeof(double) * (m - 1 - block));
                }
                face_remove(block, m, ld, idx, G, vecs, 2);
                m--;
                /* unit length again (the elimination scales) */
                for (int c = 0; c < kn; c++) {
                    double nrm = 0.0;
                    for (int a = 0; a < m; a++) nrm += L[a + (size_t) c * ld] * L[a + (size_t) c * ld];
                    nrm = sqrt(nrm);
                    if (nrm > 0.0) for (int a = 0; a < m; a++) L[a + (size_t) c * ld] /= nrm;
                }
            }
            if (!reduced) break;
            continue;                    /* the Cholesky solves on the block left */
        } else {
            /* G u = g, and on the sphere G v = sig (one pass over L) */
            memcpy(u, gS, sizeof(double) * m);
            if (on_sphere) memcpy(v, sig, sizeof(double) * m);
            chol_solve(L, ld, m, u, on_sphere ? v : NULL);
            double nu = 0.0;
            if (on_sphere) {             /* G d = -g - nu sig with sig'd = 0 */
                double su = 0.0, sv = 0.0;
                for (int a = 0; a < m; a++) { su += sig[a] * u[a]; sv += sig[a] * v[a]; }
                nu = -su / sv;
                /* into the ball, unless rounding just sent it back */
                if (nu < 0.0 && !pinned) { on_sphere = 0; nu = 0.0; }
            }
            for (int a = 0; a < m; a++) d[a] = on_sphere ? -(u[a] + nu * v[a]) : -u[a];
        }
        /* the largest step in the face: signs kept, l1 norm at most r */
        double tau = 1.0, sd = 0.0;
        int block = -1, l1_block = 0;
        for (int a = 0; a < m; a++) {
            sd += sig[a] * d[a];
            if (d[a] * sig[a] < 0.0) {
                const double t = -theta[idx[a]] / d[a];
                if (t < tau) { tau = t; block = a; }
            }
        }
        if (!on_sphere && sd > 0.0 && slack < tau * sd) {
            tau = slack / sd; block = -1; l1_block = 1;
        }
        double gd = 0.0, dGd = 0.0;
        sym_mv_lower(G, ld, m, d, Gd);
        for (int a = 0; a < m; a++) { gd += gS[a] * d[a]; dGd += d[a] * Gd[a]; }
        const double change = tau * gd + 0.5 * tau * tau * dGd;
        if (!(change < 0.0)) {
            if (l1_block && tau == 0.0) { on_sphere = 1; pinned = 1; slack = 0.0; continue; }
            break;
        }
        for (int a = 0; a < m; a++) { theta[idx[a]] += tau * d[a]; gS[a] += tau * Gd[a]; }
        moved = 1;
        if (l1_block) { on_sphere = 1; slack = 0.0; }
        else if (!on_sphere) slack = fmax(slack - tau * sd, 0.0);
        if (block >= 0) theta[idx[block]] = 0.0;
        /* the blocking coefficient, and any that rounding carried past zero */
        for (int a = m - 1; a >= 0; a--)
            if (theta[idx[a]] * sig[a] <= 0.0) {
                theta[idx[a]] = 0.0;
                if (factored) chol_delete(L, ld, m, a);
                face_remove(a, m, ld, idx, G, vecs, 2);
                m--;
            }
        if (block < 0 && !l1_block) break;       /* the face's minimizer */
    }
    if (factored && m > 0) fac_keep(R, idx, m);
    R->face_credit -= spent;
    if (!moved) return 0;
    double l1 = 0.0;
    for (int a = 0; a < k0; a++) l1 += fabs(theta[orig[a]]);
    R->slack = on_sphere ? 0.0 : fmax(R->radius - l1, 0.0);
    /* the gradient: through the cached Gram columns, else from scratch */
    if (cached && R->ws_on) {
        /* the columns hold W's entries: the moved coordinates eight (then
         * four) at a time, each entry of g updated by them in the support's order
         * (the same numbers as one pass over W per coordinate, with g and
         * W read once per eight: this update was a tenth of a 1600 x 5000
         * path) */
        const int *ws = R->ws, nw = R->n_ws;   /* (columns by position in W) */
        double *g = R->g;
        int nm = 0;
        for (int a = 0; a < k0; a++) {
            const double delta = theta[orig[a]] - old[a];
            if (delta == 0.0) continue;
            u[nm] = delta;               /* (u, idx: scratch of the rounds, done) */
            idx[nm++] = orig[a];
        }
        int b = 0;
        for (; b + 8 <= nm; b += 8) {       /* eight at a time, then four */
            const double d0 = u[b], d1 = u[b + 1], d2 = u[b + 2], d3 = u[b + 3],
                         d4 = u[b + 4], d5 = u[b + 5], d6 = u[b + 6], d7 = u[b + 7];
            const double *c0 = R->gcol[idx[b]], *c1 = R->gcol[idx[b + 1]],
                         *c2 = R->gcol[idx[b + 2]], *c3 = R->gcol[idx[b + 3]],
                         *c4 = R->gcol[idx[b + 4]], *c5 = R->gcol[idx[b + 5]],
                         *c6 = R->gcol[idx[b + 6]], *c7 = R->gcol[idx[b + 7]];
            for (int k = 0; k < nw; k++) {
                const int j = ws[k];
                double gj = g[j] + d0 * c0[k];
                gj += d1 * c1[k];
                gj += d2 * c2[k];
                gj += d3 * c3[k];
                gj += d4 * c4[k];
                gj += d5 * c5[k];
                gj += d6 * c6[k];
                g[j] = gj + d7 * c7[k];
            }
        }
        for (; b + 4 <= nm; b += 4) {
            const double d0 = u[b], d1 = u[b + 1], d2 = u[b + 2], d3 = u[b + 3];
            const double *c0 = R->gcol[idx[b]], *c1 = R->gcol[idx[b + 1]],
                         *c2 = R->gcol[idx[b + 2]], *c3 = R->gcol[idx[b + 3]];
            for (int k = 0; k < nw; k++) {
                const int j = ws[k];
                double gj = g[j] + d0 * c0[k];
                gj += d1 * c1[k];
                gj += d2 * c2[k];
                g[j] = gj + d3 * c3[k];
            }
        }
        for (; b < nm; b++) {
            const double d0 = u[b], *c0 = R->gcol[idx[b]];
            for (int k = 0; k < nw; k++) g[ws[k]] += d0 * c0[k];
        }
        R->face_credit -= 2.0 * p * k0;
    } else if (cached) {
        for (int a = 0; a < k0; a++) {
            double delta = theta[orig[a]] - old[a];
            if (delta == 0.0) continue;
            F77_CALL(daxpy)(&R->p, &delta, R->gcol[orig[a]], &one, R->g, &one);
        }
        R->face_credit -= 2.0 * p * k0;
    } else {
        exact_gradient(P, R, R->res, R->g);
        R->rows_read += R->res_formed ? R->n : 0.0;
        gradient_check(P, R);
    }
    R->moves += 1.0;
    if (!cached) R->g_exact_at = R->moves;
    for (int a = 0; a < k0; a++) support_update(R, orig[a]);
    R->next_s = -1;
    R->face_steps += 1.0;
    return 1;
}


static double reg_epoch(cg_problem *P)
{
    regression *R = (regression *) P->self;
    return (R->pairwise ? R->rows_read : R->smp.drawn) / R->n;
}

static long reg_n_matvec(cg_problem *P) { return 0; }

/* sampled gradients for the Frank-Wolfe and projected-gradient loops, or
 * the pairwise method's exact gradient kept by updates (method "pfw") */
static const cg_fw_ops regression_fw = {reg_gradient, reg_lmo, reg_line_search, reg_fw_step};
static const cg_pg_ops regression_pg = {reg_gradient, reg_pg_step};
static const cg_pair_ops regression_pair = {reg_pair_gradient, reg_pair_lmo,
                                            reg_pair_direction, reg_pair_step,
                                            reg_face_step};

static void stats_resume(regression *R, SEXP spec);
static void pair_resume(cg_problem *P, regression *R, SEXP spec);
static void fac_load(regression *R, SEXP spec, const char *idx_name, const char *l_name);

int cg_problem_regression(cg_problem *P, SEXP spec)
{
    regression *R = (regression *) R_alloc(1, sizeof(regression));
    memset(R, 0, sizeof(regression));
    P->self = R;
    P->release = reg_release;
    R->n = asInteger(cg_list_get(spec, "n"));
    R->p = asInteger(cg_list_get(spec, "p"));
    R->sparse = asLogical(cg_list_get(spec, "sparse"));
    R->gram = asLogical(cg_list_get(spec, "gram"));
    const int n = R->n, p = R->p;
    if (n < 1 || p < 1) error("spec: X must have at least one row and one column");
    /* a reader may read y with X's blocks (spec$y NULL): no n-vector */
    R->y = isNull(cg_list_get(spec, "y")) && !isNull(cg_list_get(spec, "reader_call")) ? NULL
           : cg_spec_real(spec, "y", n);
    R->radius = asReal(cg_list_get(spec, "radius"));
    R->lipschitz = asReal(cg_list_get(spec, "lipschitz"));
    R->pairwise = strcmp(CHAR(STRING_ELT(cg_list_get(spec, "method"), 0)), "pfw") == 0;
    if (!isNull(cg_list_get(spec, "reader_call"))) return reader_init(P, R, spec);
    if (R->sparse) {
        const R_xlen_t nnz = XLENGTH(cg_list_get(spec, "col_i"));
        R->cp = cg_spec_pointers(spec, "col_p", p, nnz);
        R->ri = cg_spec_index(spec, "col_i", nnz, 0, n - 1);
        R->cx = cg_spec_real(spec, "col_x", nnz);
        R->rp = cg_spec_pointers(spec, "row_p", n, nnz);
        R->ci = cg_spec_index(spec, "row_j", nnz, 0, p - 1);
        R->rx = cg_spec_real(spec, "row_x", nnz);
    } else {
        R->X = cg_spec_real(spec, "X", (R_xlen_t) n * p);
    }
    if (!isNull(cg_list_get(spec, "x_center"))) {
        if (!R->sparse) error("spec: x_center is for a sparse X (a dense X is centred in R)");
        R->xbar = cg_spec_real(spec, "x_center", p);
    }
    R->theta = reg_zeros(R, p); R->g = reg_zeros(R, p);
    R->res = reg_zeros(R, n); R->gfull = reg_zeros(R, p);
    /* warm start (init =): a point of the ball, checked and scaled into it
     * in R; the representations below are built from it (Stheta and the
     * fitted values as rows are drawn, the pairwise support here) */
    SEXP init = cg_list_get(spec, "init_beta");
    if (!isNull(init)) {
        memcpy(R->theta, cg_spec_real(spec, "init_beta", p), sizeof(double) * p);
    }
    P->self = R;
    P->evaluate = reg_evaluate; P->epoch = reg_epoch; P->n_matvec = reg_n_matvec;
    P->svd_rank = 0;
    if (R->pairwise) {
        /* Gram columns: at most 2^23 doubles (64 MB), or all p */
        const double budget = fmax(2.0, 8388608.0 / p);
        R->cache_left = budget < p ? (int) budget : p;
        R->gcol = (const double **) reg_alloc(R, p, sizeof(double *));
        for (int j = 0; j < p; j++) R->gcol[j] = NULL;
        /* along a path the Gram matrix X'X / n is computed once, in R, and
         * given to every fit: its columns are the cache */
        if (!isNull(cg_list_get(spec, "gram_matrix"))) {
            const double *G = cg_spec_real(spec, "gram_matrix", (R_xlen_t) p * p);
            for (int j = 0; j < p; j++) R->gcol[j] = G + (size_t) j * p;
            R->cache_left = 0;
            R->gram_given = 1;
        }
        R->colbuf = reg_zeros(R, 2 * (size_t) p);
        R->fac_pos = reg_ints(R, p);
        for (int j = 0; j < p; j++) R->fac_pos[j] = -1;
        R->support = reg_ints(R, p);
        R->in_support = reg_ints(R, p);
        for (int j = 0; j < p; j++) R->in_support[j] = -1;
        R->face_on = asLogical(cg_list_get(spec, "face_step")) == TRUE;
        /* the Gram block and its factor in at most 64 MB, as the cache
         * (with more columns than rows the block is singular: the step
         * then first drops columns, face_null_space) */
        R->face_max = p < 2048 ? p : 2048;
        /* the working set (ws_screen): a dense X, its Gram columns computed,
         * and p >= 200 (below, a pass over all columns costs next to nothing) */
        R->ws_on = !R->sparse && !R->gram_given && p >= 200 &&
                   asLogical(cg_list_get(spec, "screen")) == TRUE;
        R->screened_at = -1.0;
        if (R->ws_on) {
            R->ws = reg_ints(R, p);
            R->in_ws = reg_ints(R, p);
            R->gvalid = reg_ints(R, p);
            R->ws_todo = reg_ints(R, p);
            R->ws_tpos = reg_ints(R, p);
            R->gcap = reg_ints(R, p);
            for (int j = 0; j < p; j++) R->gcap[j] = 0;
            R->ws_dots = reg_zeros(R, p);
            for (int j = 0; j < p; j++) { R->in_ws[j] = -1; R->gvalid[j] = 0; }
        } else {
            /* X'y / n and y'y / n for the gradient through the Gram
             * columns (exact_gradient) */
            double *xty = reg_zeros(R, p), ysum = 0.0;
            R->yty = 0.0;
            for (int r = 0; r < n; r++) { R->yty += R->y[r] * R->y[r]; ysum += R->y[r]; }
            R->yty /= n;
            if (!R->sparse) {
                /* a CV fold's X'y / n, computed once for all the pieces of
                 * its path from the same rows (R/cv.R fold_data(),
                 * cg_regression_xty: the same numbers), else one pass */
                if (!isNull(cg_list_get(spec, "xty_given")))
                    memcpy(xty, cg_spec_real(spec, "xty_given", p), sizeof(double) * p);
                else
                    cg_dense_xty(n, p, R->X, R->y, xty);
            } else {
                for (int j = 0; j < p; j++) {
                    double sj = 0.0;
                    for (int a = R->cp[j]; a < R->cp[j + 1]; a++) sj += R->cx[a] * R->y[R->ri[a]];
                    xty[j] = (R->xbar ? sj - R->xbar[j] * ysum : sj) / n;
                }
            }
            R->xty = xty;
            /* max |X'y / n| and max_j G_jj: the scale of the Gram
             * gradient's rounding (exact_gradient); G_jj from a given
             * Gram matrix (a pass over X per solver call was 2% of a CV
             * at 4000 x 500) */
            for (int j = 0; j < p; j++) {
                R->xty_max = fmax(R->xty_max, fabs(xty[j]));
                double dj = 0.0;
                if (R->gram_given) {
                    R->diag_max = fmax(R->diag_max, R->gcol[j][j]);
                    continue;
                }
                if (!R->sparse) {
                    const double *xj = R->X + (size_t) j * n;
                    for (int r = 0; r < n; r++) dj += xj[r] * xj[r];
                } else {
                    for (int a = R->cp[j]; a < R->cp[j + 1]; a++) dj += R->cx[a] * R->cx[a];
                }
                R->diag_max = fmax(R->diag_max, dj / n);
            }
        }
        P->pair = &regression_pair;
        if (!isNull(cg_list_get(spec, "state_g"))) {
            pair_resume(P, R, spec);
            return CG_OK;
        }
        /* theta = sum_j |theta_j| / r (sign(theta_j) r e_j) + slack / r 0 */
        double l1 = 0.0;
        for (int j = 0; j < p; j++) { support_update(R, j); l1 += fabs(R->theta[j]); }
        if (R->ws_on) {
            /* a warm start from a fit of the same data at another radius
             * takes its working set, in its order (as a path keeps it) */
            SEXP iw = cg_list_get(spec, "init_ws");
            if (!isNull(iw)) {
                const R_xlen_t nw = XLENGTH(iw);
                if (nw > p) error("spec: invalid init_ws");
                const int *w = cg_spec_index(spec, "init_ws", nw, 0, p - 1);
                for (R_xlen_t k = 0; k < nw; k++) ws_add(R, w[k]);
            }
            for (int k = 0; k < R->n_support; k++) ws_add(R, R->support[k]);
        }
        /* and its face step's factor (see reg_face_step) */
        if (!isNull(cg_list_get(spec, "init_face_idx")))
            fac_load(R, spec, "init_face_idx", "init_face_L");
        R->slack = fmax(R->radius - l1, 0.0);
        R->next_s = -1;
        R->g_exact_at = R->eval_at = -1.0;
        /* a warm start's support is the best guess of the solution's: its
         * face step is paid in advance */
        if (!isNull(init)) R->face_credit = face_cost(R->n_support);
        return CG_OK;
    }
    const int batch = asInteger(cg_list_get(spec, "batch_size")),
              mode = asInteger(cg_list_get(spec, "sampling")),
              resume = !isNull(cg_list_get(spec, "state_pos"));
    if (resume) cg_sampler_resume(&R->smp, spec, n, batch, mode);
    else cg_sampler_init(&R->smp, n, batch, mode);
    R->batch_idx = reg_ints(R, n > R->smp.batch ? n : R->smp.batch);
    R->xrow = reg_zeros(R, p);
    R->work = reg_zeros(R, 2 * (size_t) p);               /* projection needs 2p */
    if (R->gram) {
        R->S = reg_zeros(R, (size_t) p * p); R->b = reg_zeros(R, p); R->Stheta = reg_zeros(R, p);
    } else {
        R->drow = reg_ints(R, n);
        R->pos = reg_ints(R, n);
        for (int r = 0; r < n; r++) R->pos[r] = -1;
        R->cnt = reg_zeros(R, n); R->xt = reg_zeros(R, n); R->xi = reg_zeros(R, n);
    }
    if (resume) stats_resume(R, spec);
    P->fw = &regression_fw;
    P->pg = &regression_pg;
    return CG_OK;
}

/* A path (cg_solve_path_call): the problem at a larger radius, warm-started
 * from the solution at the last: every part of the pairwise method's state
 * as cg_problem_regression builds it from init_beta = that solution (the
 * support in coordinate order, the slack, the face step's credit, a full
 * gradient first), except the cache of Gram columns, which do not depend on
 * the radius and are kept: a path computes each column once (while the
 * cache lasts) where each fit would compute those of its support again. */
void cg_regression_restart(cg_problem *P, double radius)
{
    regression *R = (regression *) P->self;
    if (!R->pairwise) error("spec: paths are for method \"pfw\"");
    const int p = R->p;
    double l1 = 0.0;
    for (int k = 0; k < R->n_support; k++) R->in_support[R->support[k]] = -1;
    R->n_support = 0;
    for (int j = 0; j < p; j++) { support_update(R, j); l1 += fabs(R->theta[j]); }
    if (!(l1 <= radius)) error("spec: a path's radii must increase");
    R->radius = radius;
    R->slack = fmax(radius - l1, 0.0);
    R->next_s = -1;
    /* the last fit's final evaluation (or full gradient) was at this
     * iterate: the residual and gradient it computed are those the start
     * would compute again (the same numbers), and are reused */
    int evaluated = R->eval_at == R->moves, exact = R->g_exact_at == R->moves;
    /* (unless the gradient's arithmetic at the new radius differs: the
     * Gram columns' or the passes over X, exact_gradient) */
    if (R->xty && R->res_formed == gram_rounding_ok(P, R)) evaluated = exact = 0;
    R->moves = 0.0;
    R->eval_at = evaluated ? 0.0 : -1.0;
    R->g_exact_at = exact ? 0.0 : -1.0;
    R->face_credit = face_cost(R->n_support);
    R->face_steps = 0.0;
    R->rows_read = R->rows_reported = 0.0;
    /* W is kept (it holds the support); its KKT check is at the new radius */
    R->screened_at = -1.0;
    R->ws_added = 0.0;
    P->stop = 0;
    P->failure[0] = '\0';
    memset(&P->loop, 0, sizeof(P->loop));
}

/* a new R vector holding x[0..k-1] */
static SEXP real_copy(const double *x, R_xlen_t k)
{
    SEXP v = allocVector(REALSXP, k);
    if (k) memcpy(REAL(v), x, sizeof(double) * k);
    return v;
}

/* ------------------------------------------------- exact continuation
 * init = a fit of the same data and settings (checked in R): the state its
 * run ended with, so that the next steps are those of one longer run. The
 * iterate theta is the fit's beta (init_beta). */

/* sfw, fw, spg: the running statistics of the rows drawn (the sampler is
 * restored by cg_sampler_resume): S, b and S theta, or the drawn rows with
 * their multiplicities and fitted values (x_k'theta as the steps updated
 * them, not recomputed: rounding) */
static void stats_resume(regression *R, SEXP spec)
{
    const int p = R->p;
    if (R->gram) {
        memcpy(R->S, cg_spec_real(spec, "state_S", (R_xlen_t) p * p), sizeof(double) * p * p);
        memcpy(R->b, cg_spec_real(spec, "state_b", p), sizeof(double) * p);
        memcpy(R->Stheta, cg_spec_real(spec, "state_Stheta", p), sizeof(double) * p);
        return;
    }
    const R_xlen_t nd = XLENGTH(cg_list_get(spec, "state_drow"));
    if (nd > R->n) error("spec: invalid regression state");
    const int *drow = cg_spec_index(spec, "state_drow", nd, 0, R->n - 1);
    memcpy(R->cnt, cg_spec_real(spec, "state_cnt", nd), sizeof(double) * nd);
    memcpy(R->xt, cg_spec_real(spec, "state_xt", nd), sizeof(double) * nd);
    for (R_xlen_t k = 0; k < nd; k++) {
        if (R->pos[drow[k]] >= 0) error("spec: invalid regression state");
        R->drow[k] = drow[k];
        R->pos[drow[k]] = (int) k;
    }
    R->nd = (int) nd;
}

/* the scalars of the pairwise method's state, in this order */
enum { PS_SLACK, PS_CREDIT, PS_FACE_STEPS, PS_MOVES, PS_G_EXACT_AT, PS_EVAL_AT,
       PS_ROWS_READ, PS_ROWS_REPORTED, PS_NEXT_S, PS_SCREENED_AT, PS_N };

/* pfw: the gradient as the steps kept it, the support in its order (the
 * away vertex and the face step scan it in that order), the Gram columns
 * the cache held (recomputed: the same numbers, and which ones are cached
 * decides how a face step updates the gradient; that work was counted
 * once), and the scalars above. The residual (and the evaluated gradient)
 * of the last full gradient or evaluation, when it is at this iterate,
 * are recomputed: the same numbers. */
static void pair_resume(cg_problem *P, regression *R, SEXP spec)
{
    const int p = R->p;
    memcpy(R->g, cg_spec_real(spec, "state_g", p), sizeof(double) * p);
    const R_xlen_t ns = XLENGTH(cg_list_get(spec, "state_support")),
                   nc = XLENGTH(cg_list_get(spec, "state_cached"));
    if (ns > p || nc > R->cache_left) error("spec: invalid regression state");
    const int *sup = cg_spec_index(spec, "state_support", ns, 0, p - 1);
    const int *cached = cg_spec_index(spec, "state_cached", nc, 0, p - 1);
    const double *v = cg_spec_real(spec, "state_pair", PS_N);
    /* the working set in its order (before the cached columns: their
     * entries on it are computed again, the same numbers) */
    const R_xlen_t nw = XLENGTH(cg_list_get(spec, "state_ws"));
    if ((nw > 0 && !R->ws_on) || nw > p) error("spec: invalid regression state");
    if (nw > 0) {
        const int *w = cg_spec_index(spec, "state_ws", nw, 0, p - 1);
        for (R_xlen_t k = 0; k < nw; k++) {
            if (R->in_ws[w[k]] >= 0) error("spec: invalid regression state");
            ws_add(R, w[k]);
        }
    }
    int nonzero = 0;
    for (int j = 0; j < p; j++) nonzero += R->theta[j] != 0.0;
    for (R_xlen_t k = 0; k < ns; k++) {
        const int j = sup[k];
        if (R->theta[j] == 0.0 || R->in_support[j] >= 0 || (R->ws_on && R->in_ws[j] < 0))
            error("spec: invalid regression state");
        R->in_support[j] = (int) k;
        R->support[k] = j;
    }
    R->n_support = (int) ns;
    if (ns != nonzero) error("spec: invalid regression state");
    for (R_xlen_t k = 0; k < nc; k++) {
        if (R->gcol[cached[k]]) error("spec: invalid regression state");
        gram_col(P, R, cached[k], R->colbuf);
    }
    for (int i = 0; i < PS_N; i++)
        if (!R_FINITE(v[i])) error("spec: invalid regression state");
    R->slack = v[PS_SLACK]; R->face_credit = v[PS_CREDIT]; R->face_steps = v[PS_FACE_STEPS];
    R->moves = v[PS_MOVES]; R->g_exact_at = v[PS_G_EXACT_AT]; R->eval_at = v[PS_EVAL_AT];
    R->rows_read = v[PS_ROWS_READ]; R->rows_reported = v[PS_ROWS_REPORTED];
    R->next_s = (int) v[PS_NEXT_S];
    R->screened_at = v[PS_SCREENED_AT];
    if (R->ws_on && R->next_s >= 0 && R->in_ws[R->next_s] < 0) error("spec: invalid regression state");
    fac_load(R, spec, "state_face_idx", "state_face_L");
    if (R->slack < 0 || R->next_s < -1 || R->next_s >= p) error("spec: invalid regression state");
    if (R->g_exact_at == R->moves || R->eval_at == R->moves) exact_gradient(P, R, R->res, R->gfull);
}

/* the face step's kept factor (see reg_face_step) from spec$<idx_name>
 * (its coordinates) and spec$<l_name> (its lower triangle by columns):
 * an exact continuation's, or a warm start's from a fit of the same data
 * at another radius (the Gram block does not depend on it). Its
 * coordinates must be in W (after W is set). */
static void fac_load(regression *R, SEXP spec, const char *idx_name, const char *l_name)
{
    const int p = R->p;
    const R_xlen_t nf = XLENGTH(cg_list_get(spec, idx_name));
    if (nf > R->face_max || XLENGTH(cg_list_get(spec, l_name)) != nf * (nf + 1) / 2 ||
        (nf > 0 && !R->face_on))
        error("spec: invalid regression state");
    if (nf == 0) return;
    const int *fi = cg_spec_index(spec, idx_name, nf, 0, p - 1);
    const double *fl = cg_spec_real(spec, l_name, nf * (nf + 1) / 2);
    face_room(R, (int) nf);
    for (R_xlen_t a = 0; a < nf; a++) {
        if (R->fac_pos[fi[a]] >= 0 || (R->ws_on && R->in_ws[fi[a]] < 0))
            error("spec: invalid regression state");
        R->fac_idx[a] = fi[a];
        R->fac_pos[fi[a]] = (int) a;
    }
    R->fac_m = (int) nf;
    R->fac_G_ok = 0;                 /* gathered again at the next face step */
    for (R_xlen_t c = 0, at = 0; c < nf; at += nf - c, c++)
        memcpy(R->face_L + (size_t) c * R->face_cap + c, fl + at, sizeof(double) * (nf - c));
}

/* the state for init = (see above) into the solution's list `out`, from
 * element `at` on, in the order of the names state_names gives */
static void pair_export(cg_problem *P, regression *R, SEXP out, int at)
{
    const int p = R->p;
    SET_VECTOR_ELT(out, at, real_copy(R->g, p));
    SEXP sup = allocVector(INTSXP, R->n_support);
    SET_VECTOR_ELT(out, at + 1, sup);
    if (R->n_support) memcpy(INTEGER(sup), R->support, sizeof(int) * R->n_support);
    /* the cache's own columns (a given Gram matrix is no cache) */
    int nc = 0;
    for (int j = 0; j < p; j++) nc += R->gcol[j] && !R->gram_given;
    SEXP cached = allocVector(INTSXP, nc);
    SET_VECTOR_ELT(out, at + 2, cached);
    for (int j = 0, k = 0; j < p; j++) if (R->gcol[j] && !R->gram_given) INTEGER(cached)[k++] = j;
    SEXP v = allocVector(REALSXP, PS_N);
    SET_VECTOR_ELT(out, at + 3, v);
    double *x = REAL(v);
    x[PS_SLACK] = R->slack; x[PS_CREDIT] = R->face_credit; x[PS_FACE_STEPS] = R->face_steps;
    x[PS_MOVES] = R->moves; x[PS_G_EXACT_AT] = R->g_exact_at; x[PS_EVAL_AT] = R->eval_at;
    x[PS_ROWS_READ] = R->rows_read; x[PS_ROWS_REPORTED] = R->rows_reported;
    x[PS_NEXT_S] = R->next_s;
    x[PS_SCREENED_AT] = R->screened_at;
    SEXP w = allocVector(INTSXP, R->ws_on ? R->n_ws : 0);
    SET_VECTOR_ELT(out, at + 4, w);
    if (R->ws_on && R->n_ws) memcpy(INTEGER(w), R->ws, sizeof(int) * R->n_ws);
    const int nf = R->fac_m;
    SEXP fi = allocVector(INTSXP, nf);
    SET_VECTOR_ELT(out, at + 5, fi);
    if (nf) memcpy(INTEGER(fi), R->fac_idx, sizeof(int) * nf);
    SEXP fl = allocVector(REALSXP, (R_xlen_t) nf * (nf + 1) / 2);
    SET_VECTOR_ELT(out, at + 6, fl);
    for (R_xlen_t c = 0, k = 0; c < nf; k += nf - c, c++)
        memcpy(REAL(fl) + k, R->face_L + (size_t) c * R->face_cap + c, sizeof(double) * (nf - c));
    /* (the loop's own state, its gradient refresh counting on, goes out
     * through the dispatcher: state_loop) */
}

/* sfw, fw, spg: the sampler and the statistics (see stats_resume) into
 * `out` from element `at` on, in the order of the solution's names */
static void stats_export(regression *R, SEXP out, int at)
{
    const int n = R->n, p = R->p;
    if (R->smp.order) {                  /* none for "replace" */
        SEXP o = allocVector(INTSXP, n);
        SET_VECTOR_ELT(out, at, o);
        memcpy(INTEGER(o), R->smp.order, sizeof(int) * n);
    }
    SET_VECTOR_ELT(out, at + 1, ScalarInteger(R->smp.pos));
    SET_VECTOR_ELT(out, at + 2, ScalarReal(R->smp.drawn));
    if (R->gram) {
        SET_VECTOR_ELT(out, at + 3, real_copy(R->S, (R_xlen_t) p * p));
        SET_VECTOR_ELT(out, at + 4, real_copy(R->b, p));
        SET_VECTOR_ELT(out, at + 5, real_copy(R->Stheta, p));
        return;
    }
    SEXP d = allocVector(INTSXP, R->nd);
    SET_VECTOR_ELT(out, at + 6, d);
    if (R->nd) memcpy(INTEGER(d), R->drow, sizeof(int) * R->nd);
    SET_VECTOR_ELT(out, at + 7, real_copy(R->cnt, R->nd));
    SET_VECTOR_ELT(out, at + 8, real_copy(R->xt, R->nd));
}

SEXP cg_regression_solution(cg_problem *P)
{
    regression *R = (regression *) P->self;
    static const char *names[] = {"beta", "face_steps",
        /* pfw (pair_export) */
        "state_g", "state_support", "state_cached", "state_pair", "state_ws",
        "state_face_idx", "state_face_L",
        /* sfw, fw, spg (stats_export) */
        "state_order", "state_pos", "state_drawn", "state_S", "state_b", "state_Stheta",
        "state_drow", "state_cnt", "state_xt", "working_set", "kkt_added", ""};
    SEXP out = PROTECT(mkNamed(VECSXP, names));
    SEXP beta = allocVector(REALSXP, R->p);
    SET_VECTOR_ELT(out, 0, beta);
    memcpy(REAL(beta), R->theta, sizeof(double) * R->p);
    SET_VECTOR_ELT(out, 1, ScalarReal(R->face_steps));   /* pfw's, 0 otherwise */
    if (R->pairwise) pair_export(P, R, out, 2);
    else stats_export(R, out, 9);
    /* pfw's working set: its size and the columns the KKT checks added */
    SET_VECTOR_ELT(out, 18, ScalarReal(R->pairwise && R->ws_on ? R->n_ws : NA_REAL));
    SET_VECTOR_ELT(out, 19, ScalarReal(R->pairwise && R->ws_on ? R->ws_added : NA_REAL));
    UNPROTECT(1);
    return out;
}

/* a CV fold path's lean result (dispatch.c): the coefficients only, as
 * cg_regression_solution's beta */
SEXP cg_regression_beta(cg_problem *P)
{
    regression *R = (regression *) P->self;
    static const char *names[] = {"beta", ""};
    SEXP out = PROTECT(mkNamed(VECSXP, names));
    SEXP beta = allocVector(REALSXP, R->p);
    SET_VECTOR_ELT(out, 0, beta);
    memcpy(REAL(beta), R->theta, sizeof(double) * R->p);
    UNPROTECT(1);
    return out;
}

/* ------------------------------------------------------------- reader
 * X read block by block by an R reader (R/readers.R): spec$reader_call is
 * the call fetch(k), which returns block k (1-based) of `block_rows`
 * consecutive rows as a dense matrix (the last block may be shorter). The
 * solver calls it once per block drawn and once per block of a full-data
 * evaluation, never per row or per iteration. Rows are drawn by the block
 * sampler (prob_sampler.h): blocks in random order, rows in random order
 * within a block, so that the draws are those of any reader with the same
 * blocks (an in-memory matrix gives the same fit as its file). A block is
 * centred (x_center) and scaled (x_scale) as it is copied in; the running
 * statistics S, b, S theta are the Gram representation's (gram = TRUE
 * only: the fitted values of the drawn rows would need them again).
 * Memory: S (p^2), two blocks (drawing, evaluating) and y. */

/* block k (0-based) of the centred, scaled X into buf (its rows x p,
 * column-major); returns its rows, or 0 with the failure recorded */
static int reader_load(cg_problem *P, regression *R, int k, double *buf, double *ybuf)
{
    const int p = R->p, bsize = R->bs.bsize;
    const int rows = k == R->bs.nblocks - 1 ? R->n - k * bsize : bsize;
    SETCADR(R->rcall, ScalarInteger(k + 1));
    char which[64];
    snprintf(which, sizeof which, "block %d of %d", k + 1, R->bs.nblocks);
    SEXP x = cg_call_user_matrix(P, R->rcall, R->rho, rows, p,
                                 R->ydisk ? "the reader of `X` and `y`" : "the reader of `X`",
                                 which);
    if (x == R_NilValue) return 0;
    const double *v = REAL(x);
    if (R->ydisk) {                          /* the block's responses, checked by R */
        SEXP yv = getAttrib(x, install("y"));
        if (!isReal(yv) || XLENGTH(yv) != rows || !cg_all_finite(REAL(yv), rows)) {
            UNPROTECT(1);
            cg_fail(P, "the reader of `X` and `y` gave no finite `y` of %d values at %s",
                    rows, which);
            return 0;
        }
        memcpy(ybuf, REAL(yv), sizeof(double) * rows);
    }
    for (int j = 0; j < p; j++) {
        const double c = R->xbar ? R->xbar[j] : 0.0, sc = R->xscale[j];
        const double *src = v + (size_t) j * rows;
        double *dst = buf + (size_t) j * rows;
        for (int i = 0; i < rows; i++) dst[i] = (src[i] - c) * sc;
    }
    UNPROTECT(1);
    R->blocks_read += 1.0;
    return rows;
}

/* the sampled gradient (S theta - b) / drawn after drawing `batch` rows
 * (every remaining row for CG_BATCH_FULL), reading blocks as they are
 * needed */
static double reader_gradient(cg_problem *P, int batch)
{
    regression *R = (regression *) P->self;
    const int p = R->p, one = 1;
    const double alpha = 1.0;
    const int want = batch == CG_BATCH_FULL ? R->n : batch == CG_BATCH_DEFAULT ? R->smp.batch
                     : batch;
    int nb = 0;
    while (nb < want) {
        const int i = cg_block_sampler_next(&R->bs);
        if (i < 0) {
            if (!cg_block_sampler_advance(&R->bs)) break;
            if (!reader_load(P, R, R->bs.cur, R->blk, R->yblk)) return nb;
            continue;
        }
        const int rows = R->bs.clen, r = R->bs.cur * R->bs.bsize + i;
        for (int j = 0; j < p; j++) R->xrow[j] = R->blk[i + (size_t) j * rows];
        const double yr = (R->ydisk ? R->yblk[i] : R->y[r]) - R->ycenter,
                     xt = F77_CALL(ddot)(&R->p, R->xrow, &one, R->theta, &one);
        F77_CALL(dsyr)("U", &R->p, &alpha, R->xrow, &one, R->S, &R->p FCONE);
        for (int j = 0; j < p; j++) {
            R->b[j] += R->xrow[j] * yr;
            R->Stheta[j] += R->xrow[j] * xt;
        }
        nb++;
        if (nb % 256 == 0 && cg_interrupt_poll()) {
            cg_fail_status(P, CG_ERR_INTERRUPT, NULL);
            return nb;
        }
    }
    R->smp.drawn = R->bs.drawn;
    if (R->smp.drawn > 0) {
        const double inv = 1.0 / R->smp.drawn;
        for (int j = 0; j < p; j++) R->g[j] = (R->Stheta[j] - R->b[j]) * inv;
    }
    /* drawn without replacement, every row once: S = X'X and b = X'y of
     * the whole (centred, scaled) X, so the full objective and gap need no
     * more reads (reader_evaluate) and a test costs O(p^2): tests go back
     * to the plain schedule. When this happens depends on n and the batch
     * alone (memory = file). */
    if (!R->exact && R->bs.mode != CG_SAMPLE_REPLACE && R->bs.drawn >= R->n) {
        R->exact = 1;
        P->test_every_min = 0;
        P->trace_rows_off = 0;
    }
    gradient_check(P, R);
    return nb;
}

/* objective and gap at theta from the exact statistics: S theta (afresh,
 * not the running S theta of the steps), g = (S theta - b) / n and
 * 1/(2n) ||y - X theta||^2 = (y'y - 2 b'theta + theta'S theta) / (2n),
 * which rounds like the Gram representation's gradient (a relative error
 * of about eps y'y / (2n f)); clamped at 0, its least value */
static void reader_evaluate_exact(regression *R, double *obj, double *gap)
{
    const int n = R->n, p = R->p, one = 1;
    const double alpha = 1.0, zero = 0.0;
    double *St = R->gfull, bt = 0.0, tSt = 0.0, gt = 0.0, gmax = 0.0;
    F77_CALL(dsymv)("U", &R->p, &alpha, R->S, &R->p, R->theta, &one, &zero, St, &one FCONE);
    for (int j = 0; j < p; j++) { bt += R->b[j] * R->theta[j]; tSt += R->theta[j] * St[j]; }
    for (int j = 0; j < p; j++) {
        const double g = (St[j] - R->b[j]) / n;
        gt += g * R->theta[j]; gmax = fmax(gmax, fabs(g));
    }
    *obj = fmax(0.0, (R->yy - 2.0 * bt + tSt) / (2.0 * n));
    *gap = gt + R->radius * gmax;
}

/* objective and gap from one pass over X, block by block in order */
static void reader_evaluate(cg_problem *P, double *obj, double *gap)
{
    regression *R = (regression *) P->self;
    const int n = R->n, p = R->p, one = 1;
    double *g = R->gfull, rss = 0.0, gt = 0.0, gmax = 0.0;
    double *res = R->res;                    /* one block's residuals */
    if (R->exact) {
        reader_evaluate_exact(R, obj, gap);
        return;
    }
    int zero_theta = 1;
    for (int j = 0; j < p; j++) if (R->theta[j] != 0.0) { zero_theta = 0; break; }
    if (zero_theta && R->xty0) {             /* the cold start: R's first pass gave X'y */
        for (int j = 0; j < p; j++) gmax = fmax(gmax, fabs(R->xty0[j]));
        *obj = R->yy / (2.0 * n);
        *gap = R->radius * gmax;
        return;
    }
    memset(g, 0, sizeof(double) * p);
    for (int k = 0; k < R->bs.nblocks; k++) {
        int rows = reader_load(P, R, k, R->eblk, R->eyblk);
        if (!rows) {                         /* failure recorded: no numbers */
            *obj = *gap = NA_REAL;
            return;
        }
        const double *y = R->ydisk ? R->eyblk : R->y + (size_t) k * R->bs.bsize;
        double a1 = 1.0, b1 = 1.0;
        for (int i = 0; i < rows; i++) res[i] = R->ycenter - y[i];
        F77_CALL(dgemv)("N", &rows, &R->p, &a1, R->eblk, &rows, R->theta, &one, &b1, res,
                        &one FCONE);
        F77_CALL(dgemv)("T", &rows, &R->p, &a1, R->eblk, &rows, res, &one, &b1, g,
                        &one FCONE);
        for (int i = 0; i < rows; i++) rss += res[i] * res[i];
        if (cg_interrupt_poll()) {
            cg_fail_status(P, CG_ERR_INTERRUPT, NULL);
            *obj = *gap = NA_REAL;
            return;
        }
    }
    for (int j = 0; j < p; j++) {
        g[j] /= n;
        gt += g[j] * R->theta[j]; gmax = fmax(gmax, fabs(g[j]));
    }
    *obj = rss / (2.0 * n);
    *gap = gt + R->radius * gmax;
}

static int reader_init(cg_problem *P, regression *R, SEXP spec)
{
    const int n = R->n, p = R->p;
    if (R->pairwise || !R->gram || R->sparse)
        error("spec: a reader is for the Gram representation of sfw, fw and spg");
    R->reader = 1;
    R->rcall = cg_list_get(spec, "reader_call");
    R->rho = cg_list_get(spec, "reader_env");
    if (TYPEOF(R->rcall) != LANGSXP || TYPEOF(R->rho) != ENVSXP)
        error("spec: reader_call must be a call and reader_env an environment");
    if (!isNull(cg_list_get(spec, "x_center"))) R->xbar = cg_spec_real(spec, "x_center", p);
    R->xscale = cg_spec_real(spec, "x_scale", p);
    /* y is given uncentred (no copy of an n-vector in R): centred here */
    R->ycenter = isNull(cg_list_get(spec, "y_center")) ? 0.0
                 : asReal(cg_list_get(spec, "y_center"));
    /* ||y - ycenter||^2 from R's passes over y (R/readers.R y_stats(),
     * the same sum in the same order) */
    R->yy = asReal(cg_list_get(spec, "yy"));
    R->ydisk = R->y == NULL;
    if (!R_FINITE(R->yy)) error("spec: yy must be finite");
    R->xty0 = isNull(cg_list_get(spec, "xty0")) ? NULL : cg_spec_real(spec, "xty0", p);
    R->exact = 0;
    const int bsize = asInteger(cg_list_get(spec, "block_rows")),
              batch = asInteger(cg_list_get(spec, "batch_size")),
              mode = asInteger(cg_list_get(spec, "sampling"));
    if (bsize == NA_INTEGER || bsize < 1 || batch == NA_INTEGER || batch < 1)
        error("spec: invalid block_rows or batch_size");
    cg_block_sampler_init(&R->bs, n, bsize, mode, 0);
    /* a test reads every block: at most one per pass the draws make
     * (solve_run.c), set by n and the batch alone (memory = file) */
    P->test_every_min = (int) (((double) n + batch - 1) / batch);
    /* nor trace rows (a pass each, changing nothing) until then */
    P->trace_rows_off = 1;
    R->smp.n = n; R->smp.batch = batch; R->smp.mode = mode;
    R->theta = cg_zeros(p); R->g = cg_zeros(p);
    R->gfull = cg_zeros(p);
    R->res = cg_zeros(R->bs.bsize);
    R->blk = cg_zeros((size_t) R->bs.bsize * p);
    R->eblk = cg_zeros((size_t) R->bs.bsize * p);
    if (R->ydisk) { R->yblk = cg_zeros(R->bs.bsize); R->eyblk = cg_zeros(R->bs.bsize); }
    if (!isNull(cg_list_get(spec, "init_beta")))
        memcpy(R->theta, cg_spec_real(spec, "init_beta", p), sizeof(double) * p);
    R->xrow = cg_zeros(p);
    R->work = cg_zeros(2 * (size_t) p);
    R->S = cg_zeros((size_t) p * p); R->b = cg_zeros(p); R->Stheta = cg_zeros(p);
    P->self = R;
    P->evaluate = reg_evaluate; P->epoch = reg_epoch; P->n_matvec = reg_n_matvec;
    P->svd_rank = 0;
    P->fw = &regression_fw;
    P->pg = &regression_pg;
    return CG_OK;
}
