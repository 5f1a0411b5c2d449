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
#include "glm_family.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <limits.h>

#define WEIGHT_STEPS 5
#define FINAL_WEIGHT_STEPS 50
/* effects sweeps per gradient (the first: until converged), stopped early
 * when a sweep decreases the loss by at most SWEEP_TOL per observation;
 * the trace's evaluation minimizes them to POLISH_TOL (see mc_evaluate) */
#define EFFECT_SWEEPS 1
#define FIRST_SWEEPS 100
#define SWEEP_TOL 1e-14
#define POLISH_SWEEPS 500
#define POLISH_TOL 1e-15
#define SKIP_TOL 1e-13

typedef struct {
    int m, n, N, C, family, dense;
    const int *cell;               /* observation -> cell (N) */
    const int *crow, *ccol;        /* cell coordinates (C) */
    const double *y;
    double radius;
    cg_sampler smp;
    int *batch_idx;
    int *cnt; double *sy;          /* per cell: draws and sum of drawn y */
    int *Ncell; double *Ycell;     /* per cell, all data: count, sum y (counts
                                    * <= N < 2^31: 32-bit, exact as doubles) */
    double within;                 /* gaussian: 1/2 the sum over cells of
                                    * sum (y - cell mean)^2 (see cell_loss) */
    int nt, *tc, *trow, *tcol;     /* touched cells, in order first drawn */
    double *th, *gval;             /* per touched cell (the LMO's vertex s is
                                    * -radius u v' at a cell: no array) */
    cg_atoms atoms;
    double *theta;                 /* dense m x n (projected gradient only) */
    double *fu, *fd, *fv;          /* its thin SVD from the last projection, */
    int frank;                     /* of rank frank (-1: unknown) */
    double *u, *v, sigma;          /* last LMO pair: s = -radius u v' */
    double lmo_tol;                /* Lanczos tolerance of the LMO */
    /* rank control (atoms only): compression to thin SVD when the atom count
     * doubles, then dropping of trailing singular directions */
    int iter, max_iter, k_kept, n_dropped;
    /* Per-cell scratch, three arrays in turns (their uses never overlap):
     * the rank control's and the refit's gradient (tail = gval: the LMO's
     * gradient is spent once the step is taken), direction (trial = gfull)
     * and trial values (kept = thfull); the evaluation's gradient and
     * values (gfull, thfull); the effects' low-rank part (xc = thfull) */
    double *tail, *trial, *kept;
    double *gfull, *thfull, *eu, *ev;
    long n_matvec;
    /* composite problems (paper 003 eqs. 18-19; homotopy table): the
     * gaussian loss plus g(X) on every entry, so X is dense */
    int composite;                 /* COMPOSITE_* */
    double lo, hi, lambda;         /* the box, or the l1 weight */
    double *X, *V;                 /* iterate and gradient estimate, m x n */
    double *alpha;                 /* SAG table, one per observation */
    double *vf;                    /* f's estimate per cell: SAG sum or SHCGM's d */
    int k_compress;                /* atoms after the last compression */
    int sag;                       /* hsagcgm (alpha kept), else shcgm */
    /* per evaluation (trace row): ||X||_F, RMSE on the observations and on
     * held-out entries (ntest of them, linear indices test_at) */
    double *xnorm, *rmse_train, *rmse_test; int nx, xcap;
    int ntest; const int *test_at; const double *test_y;
    /* unpenalized effects fitted jointly with theta (center = "mean":
     * intercept mu; "both": mu + row effects ra + column effects cb), see
     * "Effects" below; cells grouped by row (rptr, rcell) and by column
     * (cptr, ccell; NULL: the cells are in column order); per touched cell the effects' sum toff, per cell the
     * low-rank part xc (touched cells only); a touched cell's effects
     * are effect_at() of its row and column (toff_at) */
    int center;
    double mu, *ra, *cb;
    double ridge;                  /* ridge weight on ra, cb (0: unpenalized) */
    int *rptr, *rcell, *cptr, *ccell;
    double *xc;
    /* evaluation: effects minimized in full on all the data, kept from one
     * evaluation to the next as the next one's start (polished: set once
     * there is one) and in the resumable state */
    double *pa, *pb, pmu;
    int polished;
    double *qa, *qb;               /* their copy over a trace-only evaluation */
    unsigned char *rflag, *cflag;  /* rows / columns with data in the last sweep */
    int first_sweeps;              /* the first gradient minimizes the effects */
    /* subspace refit ("fw" with refit > 0: inner steps per iteration) and
     * the rank cap of the refit's projection (0: none) */
    int refit, max_rank;
    int ortho_k;                   /* atoms orthonormal after the last refit (-1: not) */
    int q; double *uq, *vq, *sq;   /* the LMO's top q singular pairs (refit) */
    int q_cap, q_cur;              /* the block grows with the rank, up to q_cap */
    /* resumable state: the atoms before the final weight steps */
    int snap_k; double *snap_u, *snap_v, *snap_w, snap_scale, *snap_th; int snap_kept;
    /* entries read block by block by an R reader (see "reader" below):
     * cell and y then point into the current block's buffers */
    int reader;
    cg_block_sampler bs;
    SEXP rcall, rho;
    int *bcell; double *by;
    int *colptr;                   /* cells of column j: colptr[j] .. colptr[j+1] - 1 */
    /* memory = "low" (see "Low memory" below): no per-cell statistics; per
     * cell only its row (crow; no ccol) and the gradient (gval); the
     * entries of a block also by row and column (brow, bcol); the atoms as
     * row-major copies (ur: m x k, U diag(w) or U; vr: n x k) and weights */
    int low, rk, rcap;
    int *brow, *bcol;
    double *ur, *vr, *aw, low_gx;
} completion;

#ifndef BLOCK_PER_RANK
#define BLOCK_PER_RANK 4
#endif

enum { CENTER_NONE = 0, CENTER_MEAN = 1, CENTER_BOTH = 2 };

enum { COMPOSITE_NONE = 0, COMPOSITE_BOX = 1, COMPOSITE_L1 = 2 };

/* ---- Effects. With center = "mean" or "both" the problem is
 *   min_{theta, mu, a, b} 1/N sum_k [A(eta_k) - y_k eta_k],
 *   eta_k = mu + a_{i_k} + b_{j_k} + theta_{i_k j_k},  ||theta||_* <= radius,
 * the effects free (unpenalized). They are fitted jointly: before each
 * gradient the effects are moved toward their minimizer for the current
 * theta (block-coordinate Newton sweeps on the same statistics as the
 * gradient: intercept, or each row's then each column's effect), so the FW
 * step on theta is a step on phi(theta) = min over the effects, a convex
 * function whose gradient is the loss gradient at the minimizing effects.
 * Identifiability: the effects of rows (columns) with observations sum to
 * zero, the others are zero. A sweep costs O(cells). */

/* Safe Newton step for a block's loss sum_c w_c A(eta_c + d) - s_c (eta_c
 * + d) (+ the ridge lam/2 (e + d)^2 of a row or column effect e) from its
 * gradient g and curvature h + lam at d = 0. log A'' is 1-Lipschitz for
 * poisson and binomial, so within |d| <= s the curvature is at most
 * e^s h + lam: the step minimizing that upper model (|d| <= min(|g / (h +
 * lam)|, 1)) always decreases the loss (exact Newton for gaussian). Without
 * a ridge, a block whose
 * model decrease g^2 / h is below SKIP_TOL of its weight is left alone: an
 * effect whose optimum is infinite (a row of only ones, binomial) stops
 * where its loss is about SKIP_TOL per observation, instead of drifting.
 * The model's decrease is added to *dec. */
static double effect_step(int fam, double g, double h, double lam, double wblock, double *dec)
{
    if (!(h + lam > 0)) return 0.0;
    if (fam == FAM_GAUSSIAN) { *dec += 0.5 * g * g / (h + lam); return -g / (h + lam); }
    if (lam == 0.0 && g * g <= SKIP_TOL * h * wblock) return 0.0;
    const double s = fmin(fabs(g / (h + lam)), 1.0), k = exp(s) * h + lam;
    double d = -g / k;
    if (d > s) d = s; else if (d < -s) d = -s;
    *dec -= g * d + 0.5 * k * d * d;
    return d;
}

/* Newton steps on one block of effects, own (rows: a, with other = b
 * indexed by each cell's column; columns: the reverse), the cells of
 * block i being cell[ptr[i] .. ptr[i+1]) (cell NULL: ptr[i] .. ptr[i+1] - 1
 * themselves); eta = x + mu + a + b summed in
 * that order either way. flag[i]: block i has data; their effects summed
 * into *sum and counted in *count, the loss decrease added to *dec. */
static void block_sweep(int fam, double lam, int rows, int nblock, const int *ptr,
                        const int *cell, const int *other_of, const double *x,
                        const int *w, const double *s, double mu, double *own,
                        const double *other, unsigned char *flag, double *sum, int *count,
                        double *dec)
{
    for (int i = 0; i < nblock; i++) {
        double g = 0.0, h = 0.0, wb = 0.0; int has = 0;
        for (int k = ptr[i]; k < ptr[i + 1]; k++) {
            const int c = cell ? cell[k] : k;
            if (w[c] == 0) continue;
            has = 1; wb += w[c];
            const double o = other[other_of[c]];
            const double eta = rows ? x[c] + mu + own[i] + o : x[c] + mu + o + own[i];
            double cv;
            g += w[c] * mean_curv(fam, eta, &cv) - s[c];
            h += w[c] * cv;
        }
        flag[i] = has;
        if (has) {
            own[i] += effect_step(fam, g + lam * own[i], h, lam, wb, dec);
            *sum += own[i]; (*count)++;
        }
    }
}

/* One sweep over the effects (mu, a, b) on statistics (w, s) per cell (w
 * counts; 0: cell not in them), x the low-rank part per cell; returns the
 * decrease of the loss (sum over cells, upper model) */
static double effects_sweep(completion *C, const double *x, const int *w,
                            const double *s, double wtot, double *mu, double *a, double *b)
{
    const int fam = C->family;
    const double lam = C->ridge * wtot / C->N;   /* the ridge on these statistics' scale */
    double dec = 0.0;
    if (C->center == CENTER_MEAN) {
        double g = 0.0, h = 0.0;
        for (int c = 0; c < C->C; c++) {
            if (w[c] == 0) continue;
            const double eta = x[c] + *mu;
            double cv;
            g += w[c] * mean_curv(fam, eta, &cv) - s[c];
            h += w[c] * cv;
        }
        *mu += effect_step(fam, g, h, 0.0, wtot, &dec);
        return dec;
    }
    double asum = 0.0, bsum = 0.0; int na = 0, nb = 0;
    block_sweep(fam, lam, 1, C->m, C->rptr, C->rcell, C->ccol, x, w, s, *mu, a, b, C->rflag,
                &asum, &na, &dec);
    block_sweep(fam, lam, 0, C->n, C->cptr, C->ccell, C->crow, x, w, s, *mu, b, a, C->cflag,
                &bsum, &nb, &dec);
    /* sum-to-zero over the rows and columns with data (eta unchanged; the
     * ridge, if any, decreases) */
    const double ma = na ? asum / na : 0.0, mb = nb ? bsum / nb : 0.0;
    for (int i = 0; i < C->m; i++) if (C->rflag[i]) a[i] -= ma;
    for (int j = 0; j < C->n; j++) if (C->cflag[j]) b[j] -= mb;
    *mu += ma + mb;
    return dec;
}

/* sweeps until one decreases the loss by at most tol * wtot, at most max;
 * CG_ERR_INTERRUPT if Ctrl-C cut them short */
static int effects_minimize(completion *C, const double *x, const int *w, const double *s,
                            double wtot, double *mu, double *a, double *b, int max, double tol)
{
    for (int k = 0; k < max; k++) {
        if (effects_sweep(C, x, w, s, wtot, mu, a, b) <= tol * wtot) break;
        if (cg_interrupt_poll()) return CG_ERR_INTERRUPT;
    }
    return CG_OK;
}

/* the ridge term lam/2 (||a||^2 + ||b||^2), on the scale of N observations */
static double effects_ridge(const completion *C, const double *a, const double *b)
{
    if (C->ridge == 0.0) return 0.0;
    double ss = 0.0;
    for (int i = 0; i < C->m; i++) ss += a[i] * a[i];
    for (int j = 0; j < C->n; j++) ss += b[j] * b[j];
    return 0.5 * C->ridge * ss;
}

static inline double effect_at(const completion *C, int i, int j)
{
    return C->center == CENTER_NONE ? 0.0 :
           C->center == CENTER_MEAN ? C->mu : C->mu + C->ra[i] + C->cb[j];
}

/* the effects' sum at touched cell t (mu, a and b change only in
 * update_effects, so this is the value the gradient saw) */
static inline double toff_at(const completion *C, int t)
{
    return effect_at(C, C->trow[t], C->tcol[t]);
}

/* the LMO's vertex s = -radius u v' at touched cell t (until the step
 * negates u) */
static inline double sval_at(const completion *C, int t)
{
    return -C->radius * C->u[C->trow[t]] * C->v[C->tcol[t]];
}

/* the loss of one cell's observations at eta (n of them, summing to y):
 * n A(eta) - y eta; gaussian: 1/2 n (eta - y/n)^2, the loss 1/2 sum (y_k -
 * eta)^2 but for the cell's spread about its mean (C->within, added once),
 * so that no per-cell sum of y^2 is kept (and no cancellation between
 * large terms) */
static inline double cell_loss(int fam, double n, double y, double eta)
{
    if (fam == FAM_GAUSSIAN) { const double d = eta - y / n; return 0.5 * n * d * d; }
    return n * log_partition(fam, eta) - y * eta;
}

/* the per-cell totals of all the data from the entries k (cell[k], y[k])
 * in turn (yy: a per-cell scratch for the sums of y^2) */
static void totals_add(completion *C, const int *cell, const double *y, int len, double *yy)
{
    for (int i = 0; i < len; i++) {
        const int c = cell[i];
        C->Ncell[c] += 1; C->Ycell[c] += y[i]; yy[c] += y[i] * y[i];
    }
}

static void totals_within(completion *C, const double *yy)
{
    double w = 0.0;
    if (C->family == FAM_GAUSSIAN)
        for (int c = 0; c < C->C; c++)
            if (C->Ncell[c] > 1) w += yy[c] - C->Ycell[c] * C->Ycell[c] / C->Ncell[c];
    C->within = 0.5 * w;
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

/* the effects for the current theta on the drawn statistics, then their
 * sum per touched cell (see "Effects") */
static void update_effects(cg_problem *P, completion *C)
{
    if (C->center == CENTER_NONE) return;
    for (int t = 0; t < C->nt; t++) C->xc[C->tc[t]] = C->th[t];
    cg_fail_status(P, effects_minimize(C, C->xc, C->cnt, C->sy, C->smp.drawn, &C->mu, C->ra,
                                       C->cb, C->first_sweeps ? FIRST_SWEEPS : EFFECT_SWEEPS,
                                       SWEEP_TOL), "the effects' sweeps");
    C->first_sweeps = 0;
}

/* observation k (of the data, or of the reader's current block) drawn:
 * into the drawn statistics of its cell */
static void mc_draw(completion *C, int k)
{
    const int c = C->cell[k];
    if (C->cnt[c] == 0) {             /* first draw of this cell */
        int t = C->nt++;
        C->tc[t] = c; C->trow[t] = C->crow[c]; C->tcol[t] = C->ccol[c];
        C->th[t] = cell_value(C, c);
    }
    C->cnt[c] += 1;
    C->sy[c] += C->y[k];
}

/* ------------------------------------------------------------- reader
 * Entries (row, col, value) read block by block by an R reader
 * (R/readers.R, entry_reader()). First cg_entry_cells() finds the
 * distinct cells, sorted by column then row, in two passes over the
 * blocks. In the solve, spec$reader_call is the call fetch(k), which
 * returns block k (1-based) of `block_size` consecutive entries as an
 * (entries x 3) matrix (row, col, value; 1-based ids) and each entry's
 * cell is found by binary search among its column's cells. The entries
 * are drawn by the block sampler (prob_sampler.h): blocks in random order,
 * entries in random order within a block, so that any reader with the same
 * blocks gives the same draws (a data frame in memory gives the fit of its
 * file). The per-cell totals of all the data (Ncell, Ycell, within) come
 * from one pass at the start, in block order; the full-data evaluations use
 * them and read nothing. Memory: O(cells + m + n) and one block, never the
 * N entries. */

static int cmp_int(const void *a, const void *b)
{
    const int x = *(const int *) a, y = *(const int *) b;
    return (x > y) - (x < y);
}

/* scan(k, pass) for block k: its rows and columns, 1-based integers
 * (checked by the R side), as a list of two integer vectors */
static SEXP scan_block(SEXP fun, SEXP rho, int k, int pass, R_xlen_t *len)
{
    SEXP call = PROTECT(lang3(fun, ScalarInteger(k + 1), ScalarInteger(pass)));
    SEXP b = PROTECT(eval(call, rho));
    if (TYPEOF(b) != VECSXP || LENGTH(b) != 2 || TYPEOF(VECTOR_ELT(b, 0)) != INTSXP ||
        TYPEOF(VECTOR_ELT(b, 1)) != INTSXP ||
        XLENGTH(VECTOR_ELT(b, 0)) != XLENGTH(VECTOR_ELT(b, 1)))
        error("internal: scan(k) must return two integer vectors of one length");
    *len = XLENGTH(VECTOR_ELT(b, 0));
    UNPROTECT(2);
    PROTECT(b);                  /* the caller unprotects it */
    return b;
}

/* The distinct cells of the entries read by the R function scan(k, pass)
 * (k = 1..nblocks; pass 1 or 2): pass 1 counts the entries per column (and
 * finds the dimensions when dims is NULL), pass 2 puts each entry's row in
 * its column's range; then each column's rows are sorted and made unique
 * in place. Returns list(row, col, dims, colptr): the cells 0-based,
 * sorted by column then row, and the column pointer (cells of column j:
 * colptr[j] .. colptr[j + 1] - 1); col is NULL unless want_col (memory =
 * "low" keeps no column per cell). Memory: one int per entry (the rows
 * grouped by column) and O(n), besides one block and the result. */
SEXP cg_entry_cells(SEXP fun, SEXP rho, SEXP nblocks_, SEXP dims_, SEXP want_col_)
{
    const int nblocks = asInteger(nblocks_), given = !isNull(dims_);
    const int want_col = asLogical(want_col_) == TRUE;
    if (nblocks == NA_INTEGER || nblocks < 1) error("internal: invalid nblocks");
    int m = given ? INTEGER(dims_)[0] : 0, n = given ? INTEGER(dims_)[1] : 0;
    int cap = given ? n : 1024;
    int *cnt = (int *) R_alloc((size_t) cap + 1, sizeof(int));
    memset(cnt, 0, sizeof(int) * ((size_t) cap + 1));
    double total = 0.0;
    for (int k = 0; k < nblocks; k++) {           /* pass 1: counts per column */
        R_CheckUserInterrupt();
        R_xlen_t len;
        SEXP b = scan_block(fun, rho, k, 1, &len);
        const int *r = INTEGER(VECTOR_ELT(b, 0)), *c = INTEGER(VECTOR_ELT(b, 1));
        for (R_xlen_t i = 0; i < len; i++) {
            const int j = c[i];
            if (j < 1 || r[i] < 1 || (given && (j > n || r[i] > m)))
                error("internal: scan(k) returned an index out of range");
            if (!given) {
                if (j > cap) {                    /* grow by doubling */
                    int cap2 = cap;
                    while (cap2 < j) cap2 = cap2 > INT_MAX / 2 ? INT_MAX - 1 : 2 * cap2;
                    int *c2 = (int *) R_alloc((size_t) cap2 + 1, sizeof(int));
                    memcpy(c2, cnt, sizeof(int) * ((size_t) cap + 1));
                    memset(c2 + cap + 1, 0, sizeof(int) * ((size_t) cap2 - cap));
                    cnt = c2; cap = cap2;
                }
                if (j > n) n = j;
                if (r[i] > m) m = r[i];
            }
            cnt[j]++;                             /* cnt[j]: entries of column j - 1 */
        }
        UNPROTECT(1);
        total += (double) len;
    }
    if (total > INT_MAX) error("more than %d entries", INT_MAX);
    const int N = (int) total;
    for (int j = 0; j < n; j++) cnt[j + 1] += cnt[j];   /* column starts */
    int *rows = (int *) R_alloc(N > 0 ? N : 1, sizeof(int));
    int *next = (int *) R_alloc(n > 0 ? n : 1, sizeof(int));
    memcpy(next, cnt, sizeof(int) * n);
    for (int k = 0; k < nblocks; k++) {           /* pass 2: rows by column */
        R_CheckUserInterrupt();
        R_xlen_t len;
        SEXP b = scan_block(fun, rho, k, 2, &len);
        const int *r = INTEGER(VECTOR_ELT(b, 0)), *c = INTEGER(VECTOR_ELT(b, 1));
        for (R_xlen_t i = 0; i < len; i++) {
            const int j = c[i] - 1;
            if (j < 0 || j >= n || r[i] < 1 || r[i] > m || next[j] >= cnt[j + 1])
                error("`Y` gave other entries in its second pass than in its first "
                      "(changed while being read?)");
            rows[next[j]++] = r[i] - 1;
        }
        UNPROTECT(1);
    }
    int cells = 0;                                /* sort, unique, compact */
    for (int j = 0; j < n; j++) {
        const int a = cnt[j], z = cnt[j + 1];
        if (next[j] != z)
            error("`Y` gave other entries in its second pass than in its first "
                  "(changed while being read?)");
        qsort(rows + a, (size_t) (z - a), sizeof(int), cmp_int);
        cnt[j] = cells;
        for (int i = a; i < z; i++)
            if (i == a || rows[i] != rows[i - 1]) rows[cells++] = rows[i];
        if ((j & 1023) == 0) R_CheckUserInterrupt();
    }
    cnt[n] = cells;
    SEXP out = PROTECT(allocVector(VECSXP, 4));
    SEXP cr = allocVector(INTSXP, cells); SET_VECTOR_ELT(out, 0, cr);
    SEXP dd = allocVector(INTSXP, 2);     SET_VECTOR_ELT(out, 2, dd);
    SEXP cp = allocVector(INTSXP, (R_xlen_t) n + 1); SET_VECTOR_ELT(out, 3, cp);
    memcpy(INTEGER(cr), rows, sizeof(int) * (size_t) cells);
    memcpy(INTEGER(cp), cnt, sizeof(int) * ((size_t) n + 1));
    if (want_col) {
        SEXP cc = allocVector(INTSXP, cells); SET_VECTOR_ELT(out, 1, cc);
        for (int j = 0; j < n; j++)
            for (int i = cnt[j]; i < cnt[j + 1]; i++) INTEGER(cc)[i] = j;
    }
    INTEGER(dd)[0] = m; INTEGER(dd)[1] = n;
    UNPROTECT(1);
    return out;
}

/* the cell of entry (i, j), 0-based, or -1: among the column's rows
 * (sorted), interpolation steps alternating with bisection steps (rows
 * spread evenly, as ratings' users are, take two or three probes instead of
 * log2 of the column's cells, each a cache miss on a large crow; the
 * bisection keeps the worst case logarithmic). memory = "low" finds every
 * drawn entry's cell once per pass: this was half of its time. */
static int find_cell(const completion *C, int i, int j)
{
    int lo = C->colptr[j], hi = C->colptr[j + 1] - 1, interp = 1;
    while (lo <= hi) {
        const int rl = C->crow[lo], rh = C->crow[hi];
        if (i < rl || i > rh) return -1;
        const int mid = !interp || rh == rl ? lo + (hi - lo) / 2 :
                        lo + (int) ((double) (i - rl) / ((double) rh - rl) * (hi - lo));
        const int r = C->crow[mid];
        if (r == i) return mid;
        if (r < i) lo = mid + 1; else hi = mid - 1;
        interp = !interp;
    }
    return -1;
}

/* block k (0-based) into the block buffers; returns its entries, or 0
 * with the failure recorded */
static int reader_load(cg_problem *P, completion *C, int k)
{
    const int bsize = C->bs.bsize;
    const int len = k == C->bs.nblocks - 1 ? C->N - k * bsize : bsize;
    SETCADR(C->rcall, ScalarInteger(k + 1));
    char which[64];
    snprintf(which, sizeof which, "block %d of %d", k + 1, C->bs.nblocks);
    SEXP x = cg_call_user_matrix(P, C->rcall, C->rho, len, 3, "the reader of `Y`", which);
    if (x == R_NilValue) return 0;
    const double *v = REAL(x);
    for (int t = 0; t < len; t++) {
        const double r = v[t], c = v[t + len];
        const int ok = r >= 1 && r <= C->m && c >= 1 && c <= C->n &&
                       r == floor(r) && c == floor(c);
        const int cell = ok ? find_cell(C, (int) r - 1, (int) c - 1) : -1;
        if (cell < 0) {
            UNPROTECT(1);
            cg_fail(P, "the reader of `Y` returned an entry at %s that was not there in the "
                    "first pass (changed while being read?)", which);
            return 0;
        }
        C->bcell[t] = cell;
        C->by[t] = v[t + 2 * (size_t) len];
        if (C->brow) { C->brow[t] = (int) r - 1; C->bcol[t] = (int) c - 1; }
    }
    UNPROTECT(1);
    return len;
}

/* `batch` entries (every remaining one for CG_BATCH_FULL) drawn by the
 * block sampler, reading blocks as they are needed */
static int reader_draw(cg_problem *P, completion *C, int batch)
{
    const int want = batch == CG_BATCH_FULL ? C->N : batch == CG_BATCH_DEFAULT ? C->smp.batch
                     : batch;
    int nb = 0;
    while (nb < want) {
        const int i = cg_block_sampler_next(&C->bs);
        if (i < 0) {
            if (!cg_block_sampler_advance(&C->bs)) break;
            if (!reader_load(P, C, C->bs.cur)) break;
            continue;
        }
        mc_draw(C, i);
        nb++;
    }
    C->smp.drawn = C->bs.drawn;
    return nb;
}

/* a reader's call, its block sampler and the sampler's state from the
 * spec (both memory modes; C->low set by the caller) */
static void reader_sampler(completion *C, SEXP spec, int mode, int batch)
{
    C->reader = 1;
    C->rcall = cg_list_get(spec, "reader_call");
    C->rho = cg_list_get(spec, "reader_env");
    if (TYPEOF(C->rcall) != LANGSXP || TYPEOF(C->rho) != ENVSXP)
        error("spec: reader_call must be a call and reader_env an environment");
    const int bsize = asInteger(cg_list_get(spec, "block_size"));
    if (bsize == NA_INTEGER || bsize < 1 || batch == NA_INTEGER || batch < 1)
        error("spec: invalid block_size or batch_size");
    if (C->low && mode == CG_SAMPLE_REPLACE)
        error("spec: memory = \"low\" draws blocks without replacement");
    cg_block_sampler_init(&C->bs, C->N, bsize, mode, 0);
    C->smp.n = C->N; C->smp.batch = batch; C->smp.mode = mode; C->smp.pos = 0;
    C->smp.order = NULL; C->smp.drawn = 0;
}

/* the reader's spec: its call, the block sampler, the buffers; then one
 * pass in block order for the per-cell totals */
static void reader_setup(cg_problem *P, completion *C, SEXP spec, int mode, int batch,
                         double *yy)
{
    reader_sampler(C, spec, mode, batch);
    /* the cells sorted by column then row (cg_entry_cells): column ranges */
    C->colptr = (int *) R_alloc((size_t) C->n + 1, sizeof(int));
    memset(C->colptr, 0, sizeof(int) * ((size_t) C->n + 1));
    for (int c = 0; c < C->C; c++) {
        if (c > 0 && !(C->ccol[c] > C->ccol[c - 1] ||
                       (C->ccol[c] == C->ccol[c - 1] && C->crow[c] > C->crow[c - 1])))
            error("spec: a reader's cells must be sorted by column, then row");
        C->colptr[C->ccol[c] + 1]++;
    }
    for (int j = 0; j < C->n; j++) C->colptr[j + 1] += C->colptr[j];
    C->bcell = (int *) R_alloc(C->bs.bsize, sizeof(int));
    C->by = (double *) R_alloc(C->bs.bsize, sizeof(double));
    C->cell = C->bcell; C->y = C->by;
    for (int k = 0; k < C->bs.nblocks; k++) {
        const int len = reader_load(P, C, k);
        if (!len) error("%s", P->failure[0] ? P->failure : "interrupted");
        totals_add(C, C->bcell, C->by, len, yy);
    }
}

static double mc_gradient(cg_problem *P, int batch)
{
    completion *C = (completion *) P->self;
    int nb;
    if (C->reader) {
        nb = reader_draw(P, C, batch);
        if (P->stop) return nb;
    } else {
        nb = cg_sampler_next(&C->smp, C->batch_idx, batch);
        for (int b = 0; b < nb; b++) mc_draw(C, C->batch_idx[b]);
    }
    if (C->dense) for (int t = 0; t < C->nt; t++) C->th[t] = cell_value(C, C->tc[t]);
    update_effects(P, C);
    const double inv = 1.0 / C->smp.drawn;
    for (int t = 0; t < C->nt; t++) {
        int c = C->tc[t];
        C->gval[t] = (C->cnt[c] * mean_fn(C->family, C->th[t] + toff_at(C, t)) - C->sy[c]) * inv;
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
    int st;
    if (C->q > 1) {               /* refit: the next q - 1 pairs widen its subspace */
        /* q or a quarter of the rank, whichever is larger (up to q_cap): at
         * rank k the subspace has to find the solution's directions among
         * many of similar weight, and one FW direction plus 7 per
         * iteration found them slowly (see "block_growth" in ?complete_matrix) */
        int q = C->atoms.k / BLOCK_PER_RANK;
        C->q_cur = q < C->q ? C->q : (q > C->q_cap ? C->q_cap : q);
        st = cg_svds(&G, C->q_cur, C->lmo_tol, C->sq, C->uq, C->vq);
        if (st == CG_OK) {
            memcpy(C->u, C->uq, sizeof(double) * C->m);
            memcpy(C->v, C->vq, sizeof(double) * C->n);
            C->sigma = C->sq[0];
        }
    } else st = cg_lmo_nuclear(&G, C->radius, C->u, C->v, &C->sigma, C->lmo_tol);
    C->n_matvec += G.n_matvec;
    P->svd_rank = 1;
    if (st != CG_OK) {
        cg_fail_status(P, st, "the linear minimization oracle");
        return NA_REAL;
    }
    double gx = 0.0;
    for (int t = 0; t < C->nt; t++) gx += C->gval[t] * C->th[t];
    return gx + C->radius * C->sigma;      /* <g, x> - <g, s> */
}

/* exact step for the gaussian (quadratic) estimated objective */
static double mc_line_search(cg_problem *P)
{
    completion *C = (completion *) P->self;
    if (C->family != FAM_GAUSSIAN) return -1.0;
    double gd = 0.0, dd = 0.0;
    for (int t = 0; t < C->nt; t++) {
        double d = sval_at(C, t) - C->th[t];
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
        const double eta = x[t] + toff_at(C, t);
        f += C->cnt[c] * log_partition(C->family, eta) - C->sy[c] * eta;
    }
    return f / C->smp.drawn;
}

/* Compress the atoms to thin SVD, then take projected-gradient steps on
 * their weights over {w >= 0, sum w <= radius} (see "Rank control" above).
 * The step 1/max_j H_jj uses the diagonal of the weights' Hessian, the
 * step length along the projected direction comes from the quadratic model
 * (exact for gaussian), halved until the estimated objective decreases. */
/* the rank control's trial on the projection arc: wn = P(w - eta h) - w,
 * the change of the k atoms' weights (P: onto the radius's l1 ball of
 * weights; pw its scratch); returns the slope <h, wn> (shared by the
 * in-memory and the low-memory rank control) */
static double weights_trial(const cg_atoms *a, int k, const double *h, double eta,
                            double radius, double *wn, double *pw)
{
    double slope = 0.0;
    for (int j = 0; j < k; j++) wn[j] = a->scale * a->w[j] - eta * h[j];
    cg_proj_spectrum(wn, k, radius, 0, pw);
    for (int j = 0; j < k; j++) { wn[j] -= a->scale * a->w[j]; slope += h[j] * wn[j]; }
    return slope;
}

/* the rank control's accepted step: the atoms' weights moved by wn (k of
 * them); atoms whose weight reached zero are dropped (shared by the
 * in-memory and the low-memory rank control) */
static void atoms_reweight(completion *C, cg_atoms *a, const double *wn, int k)
{
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
}

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
            const double eta = C->th[t] + toff_at(C, t);
            g[t] = (C->cnt[c] * mean_fn(fam, eta) - C->sy[c]) * inv;
            D[t] = C->cnt[c] * curvature(fam, eta) * inv;     /* Hessian weights */
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
            const double slope = weights_trial(a, k, h, eta, C->radius, wn, pw);
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
        atoms_reweight(C, a, wn, k);
        if (f0 - f1 <= 1e-12 * fabs(f0)) break;      /* no more progress */
    }
    vmaxset(vmax);
    C->k_kept = a->k;
}


/* ---- Subspace refit (refit > 0, "fw"). After each Frank-Wolfe step the
 * atoms are compressed to thin SVD X = U diag(w) V' (k columns) and the
 * objective is decreased over {U S V' : S k x k, ||S||_* <= radius}, the
 * nuclear ball restricted to the current column and row spaces (every
 * point feasible for the stated problem; the "in-face"/"rank-k solve then
 * FW" idea of Freund, Grigas and Mazumder 2017), by projected-gradient
 * steps on the core S: gradient U' G V (G the loss gradient on the cells:
 * O(nt k + m k^2)), Barzilai-Borwein step length (the first from the
 * curvature along the gradient), projection onto the k x k nuclear ball by
 * a k x k SVD; along the projected direction the exact line search
 * (gaussian, no rank cap) or halving of the step until the objective
 * decreases (Armijo). Each accepted step decreases the objective, so the FW
 * step's progress is kept. The SVD of the final S rotates U, V; directions
 * whose singular value the projection put at zero are dropped, which keeps
 * the rank that of the solution. With max_rank the projection keeps only
 * the max_rank largest singular values (a projection onto the rank-capped
 * ball; the returned X has rank <= max_rank and the trace's objective and
 * gap are its own). The values on the cells are recomputed from the final
 * factors, so no drift accumulates. */

/* row-major copy (rows x k) of the column-major A (rows x k) */
static void to_rows(const double *A, int rows, int k, double *out)
{
    for (int l = 0; l < k; l++)
        for (int i = 0; i < rows; i++) out[(size_t) i * k + l] = A[(size_t) l * rows + i];
}

/* a . b and y += c x over k, four accumulators (the loops dominate the
 * refit: O(nt k) each) */
static inline double dot_k(const double *a, const double *b, int k)
{
    double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
    int l = 0;
    for (; l + 4 <= k; l += 4) {
        s0 += a[l] * b[l]; s1 += a[l + 1] * b[l + 1];
        s2 += a[l + 2] * b[l + 2]; s3 += a[l + 3] * b[l + 3];
    }
    for (; l < k; l++) s0 += a[l] * b[l];
    return (s0 + s1) + (s2 + s3);
}

static inline void axpy_k(double c, const double *x, double *y, int k)
{
    int l = 0;
    for (; l + 4 <= k; l += 4) {
        y[l] += c * x[l]; y[l + 1] += c * x[l + 1];
        y[l + 2] += c * x[l + 2]; y[l + 3] += c * x[l + 3];
    }
    for (; l < k; l++) y[l] += c * x[l];
}

/* The refit's two products with the cells, on the smaller side of the
 * matrix (the dense products cost O(min(m, n) ku kv), the cell loops
 * O(nt k)). by_col = 0: R is V row-major (n x kv), W scratch m x kv; by_col
 * = 1 (n < m): R is U row-major (m x ku), W scratch n x ku. */

/* values at the touched cells of U S V' (S ku x kv column-major) */
static void core_values(const completion *C, int by_col, const double *U, const double *V,
                        const double *S, int ku, int kv, const double *R, double *W, double *x)
{
    const int m = C->m, n = C->n;
    const double one = 1.0, zero = 0.0;
    if (!by_col) {
        /* W (kv x m, column-major) = S' U', i.e. row i of U S at W + i kv */
        F77_CALL(dgemm)("T", "T", &kv, (int *) &m, &ku, &one, S, &ku, U, (int *) &m, &zero, W,
                        &kv FCONE FCONE);
        for (int t = 0; t < C->nt; t++)
            x[t] = dot_k(W + (size_t) C->trow[t] * kv, R + (size_t) C->tcol[t] * kv, kv);
    } else {
        /* W (ku x n) = S V', i.e. row j of V S' at W + j ku */
        F77_CALL(dgemm)("N", "T", &ku, (int *) &n, &kv, &one, S, &ku, V, (int *) &n, &zero, W,
                        &ku FCONE FCONE);
        for (int t = 0; t < C->nt; t++)
            x[t] = dot_k(R + (size_t) C->trow[t] * ku, W + (size_t) C->tcol[t] * ku, ku);
    }
}

/* the core's gradient M = U' G V (ku x kv), G the cells' values g */
static void core_gradient(const completion *C, int by_col, const double *U, const double *V,
                          const double *g, int ku, int kv, const double *R, double *W,
                          double *M)
{
    const int m = C->m, n = C->n, nt = C->nt;
    const double one = 1.0, zero = 0.0;
    if (!by_col) {                 /* W = (G V)' (kv x m), M = U' W' */
        memset(W, 0, sizeof(double) * (size_t) m * kv);
        for (int t = 0; t < nt; t++)
            if (g[t] != 0.0)
                axpy_k(g[t], R + (size_t) C->tcol[t] * kv, W + (size_t) C->trow[t] * kv, kv);
        F77_CALL(dgemm)("T", "T", &ku, &kv, (int *) &m, &one, U, (int *) &m, W, &kv, &zero, M,
                        &ku FCONE FCONE);
    } else {                       /* W = U' G (ku x n), M = W V */
        memset(W, 0, sizeof(double) * (size_t) n * ku);
        for (int t = 0; t < nt; t++)
            if (g[t] != 0.0)
                axpy_k(g[t], R + (size_t) C->trow[t] * ku, W + (size_t) C->tcol[t] * ku, ku);
        F77_CALL(dgemm)("N", "N", &ku, &kv, (int *) &n, &one, W, &ku, V, (int *) &n, &zero, M,
                        &ku FCONE FCONE);
    }
}

/* projection of S (ku x kv, overwritten) onto {||S||_* <= radius, rank <=
 * cap} (cap 0: none); P (ku x mn), sv (mn), QT (mn x kv), work (ku kv +
 * 2 mn) scratch, mn = min(ku, kv) */
static int core_project(double *S, int ku, int kv, double radius, int cap, double *P,
                        double *sv, double *QT, double *work)
{
    const int mn = ku < kv ? ku : kv;
    double *Sc = work;                     /* the SVD destroys its input */
    memcpy(Sc, S, sizeof(double) * (size_t) ku * kv);
    const int st = cg_lapack_svd(Sc, ku, kv, sv, P, QT);
    if (st != CG_OK) return st;
    if (cap > 0) for (int j = cap; j < mn; j++) sv[j] = 0.0;
    cg_proj_spectrum(sv, mn, radius, 0, work);
    memset(S, 0, sizeof(double) * (size_t) ku * kv);
    for (int j = 0; j < mn; j++) {
        if (!(sv[j] > 0.0)) continue;
        for (int b = 0; b < kv; b++) {
            const double f = sv[j] * QT[(size_t) b * mn + j];
            if (f != 0.0) axpy_k(f, P + (size_t) j * ku, S + (size_t) b * ku, ku);
        }
    }
    return CG_OK;
}

/* x <- x - B B' x twice (B: L x k orthonormal columns), then normalized;
 * 0 if the remainder is negligible. With coef (k + 1): x = B coef[0..k-1] +
 * coef[k] x_new (coef[k] = 0 when 0 is returned). */
static int orthonormalize(double *x, const double *B, int L, int k, double *coef)
{
    if (coef) memset(coef, 0, sizeof(double) * (size_t) (k + 1));
    for (int pass = 0; pass < 2; pass++)
        for (int l = 0; l < k; l++) {
            const double *b = B + (size_t) l * L;
            double d = 0.0;
            for (int i = 0; i < L; i++) d += b[i] * x[i];
            for (int i = 0; i < L; i++) x[i] -= d * b[i];
            if (coef) coef[l] += d;
        }
    double nr = 0.0;
    for (int i = 0; i < L; i++) nr += x[i] * x[i];
    nr = sqrt(nr);
    if (!(nr > 1e-8)) return 0;
    for (int i = 0; i < L; i++) x[i] /= nr;
    if (coef) coef[k] = nr;
    return 1;
}

/* the atoms' first k columns orthonormal (to 1e-12)? O((m + n) k^2), once
 * per run: a run resumed from a refit's state takes the same (cheap) path
 * as the uninterrupted run */
static int atoms_orthonormal(const cg_atoms *a)
{
    const int sides[2] = {a->m, a->n};
    const double *F[2] = {a->u, a->v};
    for (int s = 0; s < 2; s++)
        for (int j = 0; j < a->k; j++)
            for (int l = 0; l <= j; l++) {
                const double *x = F[s] + (size_t) j * sides[s], *y = F[s] + (size_t) l * sides[s];
                double d = 0.0;
                for (int i = 0; i < sides[s]; i++) d += x[i] * y[i];
                if (fabs(d - (l == j)) > 1e-12) return 0;
            }
    return 1;
}

static void mc_refit(cg_problem *P)
{
    completion *C = (completion *) P->self;
    cg_atoms *at = &C->atoms;
    const int m = C->m, n = C->n, nt = C->nt, fam = C->family;
    /* After the previous refit the atoms were orthonormal factors (ortho_k
     * of them); the FW step scaled them and appended one atom (or merged it
     * into one), so only that atom needs orthonormalizing against them
     * (O((m + n) k)). Otherwise (first refit, a start that is not such
     * factors, and every 32 iterations against the drift of rounding) the
     * full compression to thin SVD (O((m + n) k^2)). */
    const int kprev = C->ortho_k;
    const int cheap = kprev >= 0 && (at->k == kprev || at->k == kprev + 1) &&
        C->iter % 32 != 0;
    C->ortho_k = -1;
    int st;
    if (!cheap) {
        st = cg_atoms_compress(at);
        if (st != CG_OK) { cg_fail_status(P, st, "the compression of the iterate"); return; }
    }
    const int katoms = at->k;
    if (katoms == 0) { C->ortho_k = 0; return; }
    if (at->cap < katoms + C->q_cur) {  /* room for the widened basis (solver lifetime) */
        const int cap = 2 * (katoms + C->q_cur);
        double *u2 = (double *) R_alloc((size_t) m * cap, sizeof(double));
        double *v2 = (double *) R_alloc((size_t) n * cap, sizeof(double));
        double *w2 = (double *) R_alloc(cap, sizeof(double));
        memcpy(u2, at->u, sizeof(double) * (size_t) m * katoms);
        memcpy(v2, at->v, sizeof(double) * (size_t) n * katoms);
        memcpy(w2, at->w, sizeof(double) * katoms);
        at->u = u2; at->v = v2; at->w = w2; at->cap = cap;
    }
    const void *vmax = vmaxget();
    const double inv = 1.0 / C->smp.drawn;
    double *U = at->u, *V = at->v;
    /* the atoms' bases: ku0 x kv0 of the core */
    int ku = katoms, kv = katoms, kdiag = katoms;
    double *ca = NULL, *cb = NULL;   /* the new atom's coefficients (cheap path) */
    if (cheap && katoms == kprev + 1) {
        kdiag = kprev;
        ca = (double *) R_alloc(kprev + 1, sizeof(double));
        cb = (double *) R_alloc(kprev + 1, sizeof(double));
        ku = kprev + orthonormalize(U + (size_t) kprev * m, U, m, kprev, ca);
        kv = kprev + orthonormalize(V + (size_t) kprev * n, V, n, kprev, cb);
    }
    const int ku0 = ku, kv0 = kv;
    /* widen the bases by the LMO's next singular vectors (weight 0),
     * orthonormalized against them; each side on its own (the column space
     * can be full while the row space is not) */
    for (int j = 1; j < C->q_cur; j++) {
        if (ku < m) {
            double *x = U + (size_t) ku * m;
            memcpy(x, C->uq + (size_t) j * m, sizeof(double) * m);
            ku += orthonormalize(x, U, m, ku, NULL);
        }
        if (kv < n) {
            double *x = V + (size_t) kv * n;
            memcpy(x, C->vq + (size_t) j * n, sizeof(double) * n);
            kv += orthonormalize(x, V, n, kv, NULL);
        }
    }
    const size_t kk = (size_t) ku * kv;
    const int mn = ku < kv ? ku : kv;
    const int by_col = n < m;        /* the dense products on the smaller side */
    double *R = by_col ? (double *) R_alloc((size_t) m * ku, sizeof(double))
                       : (double *) R_alloc((size_t) n * kv, sizeof(double));
    double *W = by_col ? (double *) R_alloc((size_t) n * ku, sizeof(double))
                       : (double *) R_alloc((size_t) m * kv, sizeof(double));
    double *S = cg_zeros(kk), *Z = cg_zeros(kk), *M = cg_zeros(kk), *Mold = cg_zeros(kk);
    double *Sold = cg_zeros(kk), *Pm = cg_zeros((size_t) ku * mn);
    double *QT = cg_zeros((size_t) mn * kv), *sv = cg_zeros(mn);
    double *work = cg_zeros(kk + 2 * (size_t) mn);
    double *x = C->th, *g = C->tail, *dv = C->trial, *xt = C->kept;
    if (by_col) to_rows(U, m, ku, R); else to_rows(V, n, kv, R);
    for (int j = 0; j < kdiag; j++) S[(size_t) j * ku + j] = at->w[j] * at->scale;
    if (ca) {                        /* + the new atom c a b' */
        const double c = at->w[kprev] * at->scale;
        for (int b = 0; b < kv0; b++)
            for (int i = 0; i < ku0; i++) S[(size_t) b * ku + i] += c * ca[i] * cb[b];
    }
    core_values(C, by_col, U, V, S, ku, kv, R, W, x);   /* the values of the compressed X */
    const int exact_ls = fam == FAM_GAUSSIAN && C->max_rank == 0;
    double f0 = estimated_objective(C, x), eta = -1.0;
    for (int step = 0; step < C->refit; step++) {
        /* gradient of the core: M = U' G V */
        for (int t = 0; t < nt; t++) {
            const int c = C->tc[t];
            g[t] = (C->cnt[c] * mean_fn(fam, x[t] + toff_at(C, t)) - C->sy[c]) * inv;
        }
        core_gradient(C, by_col, U, V, g, ku, kv, R, W, M);
        if (step > 0) {                      /* Barzilai-Borwein */
            double ss = 0.0, sy = 0.0;
            for (size_t q = 0; q < kk; q++) {
                const double ds = S[q] - Sold[q], dy = M[q] - Mold[q];
                ss += ds * ds; sy += ds * dy;
            }
            if (sy > 0.0 && ss > 0.0) eta = ss / sy;
        }
        if (eta <= 0.0) {                    /* curvature along -M */
            core_values(C, by_col, U, V, M, ku, kv, R, W, dv);
            double mm = 0.0, hmm = 0.0;
            for (size_t q = 0; q < kk; q++) mm += M[q] * M[q];
            for (int t = 0; t < nt; t++) {
                const double e = x[t] + toff_at(C, t);
                hmm += C->cnt[C->tc[t]] * curvature(fam, e) * dv[t] * dv[t];
            }
            hmm *= inv;
            if (!(mm > 0.0) || !(hmm > 0.0)) break;
            eta = mm / hmm;
        }
        memcpy(Sold, S, sizeof(double) * kk);
        memcpy(Mold, M, sizeof(double) * kk);
        int accepted = 0;
        double f1 = f0;
        for (int half = 0; half < 30 && !accepted; half++) {
            for (size_t q = 0; q < kk; q++) Z[q] = S[q] - eta * M[q];
            st = core_project(Z, ku, kv, C->radius, C->max_rank, Pm, sv, QT, work);
            if (st != CG_OK) { cg_fail_status(P, st, "the refit's projection"); goto done; }
            double slope = 0.0;
            for (size_t q = 0; q < kk; q++) { Z[q] -= S[q]; slope += M[q] * Z[q]; }
            if (!(slope < 0.0)) break;           /* stationary on the subspace */
            core_values(C, by_col, U, V, Z, ku, kv, R, W, dv);
            double gam = 1.0;
            if (exact_ls) {
                double dd = 0.0;
                for (int t = 0; t < nt; t++) dd += C->cnt[C->tc[t]] * dv[t] * dv[t];
                dd *= inv;
                gam = dd > 0.0 ? fmin(1.0, -slope / dd) : 1.0;
            }
            for (int t = 0; t < nt; t++) xt[t] = x[t] + gam * dv[t];
            f1 = estimated_objective(C, xt);
            accepted = f1 <= f0 + 1e-4 * gam * slope;
            if (accepted) {
                for (size_t q = 0; q < kk; q++) S[q] += gam * Z[q];
                memcpy(x, xt, sizeof(double) * nt);
            } else eta *= 0.5;
        }
        if (!accepted) break;
        const double dec = f0 - f1;
        f0 = f1;
        if (dec <= 1e-10 * fabs(f1)) break;      /* no more progress */
    }
    /* X = U S V' = (U P) diag(sv) (V Q)': rotate, drop zero directions */
    memcpy(Z, S, sizeof(double) * kk);
    st = cg_lapack_svd(Z, ku, kv, sv, Pm, QT);
    if (st != CG_OK) { cg_fail_status(P, st, "the refit's SVD"); goto done; }
    {
        const double one = 1.0, zero = 0.0;
        int r = 0;
        while (r < mn && sv[r] > 1e-13 * sv[0]) r++;
        if (C->max_rank > 0 && r > C->max_rank) r = C->max_rank;
        double *Un = (double *) R_alloc((size_t) m * (r > 0 ? r : 1), sizeof(double));
        double *Vn = (double *) R_alloc((size_t) n * (r > 0 ? r : 1), sizeof(double));
        if (r > 0) {
            F77_CALL(dgemm)("N", "N", (int *) &m, &r, &ku, &one, U, (int *) &m, Pm, &ku, &zero,
                            Un, (int *) &m FCONE FCONE);
            F77_CALL(dgemm)("N", "T", (int *) &n, &r, &kv, &one, V, (int *) &n, QT,
                            (int *) &mn, &zero, Vn, (int *) &n FCONE FCONE);
        }
        if (katoms > r) C->n_dropped += katoms - r;   /* atoms (not the widening) dropped */
        memcpy(at->u, Un, sizeof(double) * (size_t) m * r);
        memcpy(at->v, Vn, sizeof(double) * (size_t) n * r);
        for (int j = 0; j < r; j++) at->w[j] = sv[j];
        at->k = r; at->scale = 1.0;
        C->k_kept = r;
        C->ortho_k = r;
        /* the values of the returned factors */
        memset(S, 0, sizeof(double) * (size_t) r * r);
        for (int j = 0; j < r; j++) S[(size_t) j * r + j] = sv[j];
        if (r > 0) {
            if (by_col) to_rows(at->u, m, r, R); else to_rows(at->v, n, r, R);
            core_values(C, by_col, at->u, at->v, S, r, r, R, W, x);
        } else memset(x, 0, sizeof(double) * nt);
    }
done:
    vmaxset(vmax);
}

/* ---- Low memory (memory = "low", a reader's "sfw"): the drawn statistics
 * recomputed from the file. The block sampler draws whole blocks (in
 * random order, the entries of a block in random order), so the entries
 * drawn by iteration t are the blocks begun so far, the current one up to
 * its drawn prefix (bs.rorder[0 .. cpos)): S1 and S2 at the cells are sums
 * over those entries, and every quantity the iteration needs from them is
 * one pass over them, with theta at an entry computed from the atoms
 * (O(rank): row-major copies ur, vr of the factors). Kept per distinct
 * cell: its row (the column is its column pointer's range) and one double,
 * the gradient of this iteration (gval: the LMO's CSC operator), reused by
 * the full-data evaluation for the full gradient; 12 bytes per cell
 * instead of about 100, for one pass over the drawn entries per gradient
 * (and per line search, per rank-control step and per Armijo trial). The
 * full-data evaluation is one pass over all the entries (objective in
 * double precision per entry, the full gradient into gval, then Lanczos on
 * it). The fits equal the default mode's up to rounding: theta at a cell
 * is recomputed from the atoms rather than updated step by step, and sums
 * run in block order rather than in order of first draw. No effects
 * (center = "none"), no subspace refit, blocks without replacement. */

/* the atoms as row-major copies: ur = U diag(w) (weighted) or U, vr = V;
 * aw the weights (scale folded in) */
static void low_rows(completion *C, int weighted)
{
    const cg_atoms *a = &C->atoms;
    const int k = a->k;
    if (k > C->rcap) {            /* grows with the atoms' capacity (R_alloc, as theirs) */
        int cap = C->rcap > 0 ? 2 * C->rcap : 16;
        while (cap < k) cap *= 2;
        C->ur = (double *) R_alloc((size_t) C->m * cap, sizeof(double));
        C->vr = (double *) R_alloc((size_t) C->n * cap, sizeof(double));
        C->aw = (double *) R_alloc(cap, sizeof(double));
        C->rcap = cap;
    }
    for (int l = 0; l < k; l++) C->aw[l] = a->scale * a->w[l];
    to_rows(a->u, C->m, k, C->ur);
    to_rows(a->v, C->n, k, C->vr);
    if (weighted)
        for (int i = 0; i < C->m; i++)
            for (int l = 0; l < k; l++) C->ur[(size_t) i * k + l] *= C->aw[l];
    C->rk = k;
}

/* theta at entry (i, j) from weighted rows */
static inline double low_theta(const completion *C, int i, int j)
{
    return C->rk ? dot_k(C->ur + (size_t) i * C->rk, C->vr + (size_t) j * C->rk, C->rk) : 0.0;
}

enum { LOW_GRADIENT, LOW_LINE, LOW_EVAL, LOW_RANK_GRAD, LOW_RANK_TRIAL };

typedef struct {
    int kind;
    double s1, s2;                /* sums: <g, theta> or dd; the loss */
    double *h, *sd;               /* rank control: per atom */
    const double *wn;             /* rank control: the trial's weight changes */
} low_ctx;

/* the kernel on entries pos[0 .. len) of the block in the buffers (pos
 * NULL: entries 0 .. len - 1) */
static void low_block(completion *C, const int *pos, int len, low_ctx *x)
{
    const int fam = C->family, k = C->rk;
    double s1 = 0.0, s2 = 0.0;
    for (int q = 0; q < len; q++) {
        const int e = pos ? pos[q] : q;
        const int i = C->brow[e], j = C->bcol[e];
        const double y = C->by[e];
        switch (x->kind) {
        case LOW_GRADIENT: case LOW_EVAL: {
            const double th = low_theta(C, i, j), g = mean_fn(fam, th) - y;
            C->gval[C->bcell[e]] += g;
            s1 += g * th;
            if (x->kind == LOW_EVAL) {
                if (fam == FAM_GAUSSIAN) { const double d = th - y; s2 += 0.5 * d * d; }
                else s2 += log_partition(fam, th) - y * th;
            }
            break;
        }
        case LOW_LINE: {
            const double d = -C->radius * C->u[i] * C->v[j] - low_theta(C, i, j);
            s1 += d * d;
            break;
        }
        case LOW_RANK_GRAD: case LOW_RANK_TRIAL: {
            /* unweighted rows: e_l = u_l(i) v_l(j) */
            const double *u = C->ur + (size_t) i * k, *v = C->vr + (size_t) j * k;
            double th = 0.0, dl = 0.0;
            for (int l = 0; l < k; l++) th += C->aw[l] * u[l] * v[l];
            if (x->kind == LOW_RANK_TRIAL) {
                for (int l = 0; l < k; l++) if (x->wn[l] != 0.0) dl += x->wn[l] * u[l] * v[l];
                const double xe = th + dl;
                s2 += log_partition(fam, xe) - y * xe;
                break;
            }
            double cv;
            const double g = mean_curv(fam, th, &cv) - y;
            for (int l = 0; l < k; l++) {
                const double el = u[l] * v[l];
                x->h[l] += g * el; x->sd[l] += cv * el * el;
            }
            s2 += log_partition(fam, th) - y * th;
            break;
        }
        }
    }
    x->s1 += s1; x->s2 += s2;
}

/* the kernel over the drawn entries (all: every entry, in block order);
 * 0 on a failure (recorded) or an interrupt */
static int low_pass(cg_problem *P, completion *C, int all, low_ctx *x)
{
    const cg_block_sampler *s = &C->bs;
    const int nb = all ? s->nblocks : s->bpos;    /* blocks begun */
    for (int q = 0; q < nb; q++) {
        const int k = all ? q : s->border[q];
        const int len = reader_load(P, C, k);
        if (!len) return 0;
        if (!all && k == s->cur) low_block(C, s->rorder, s->cpos, x);
        else low_block(C, NULL, len, x);
        if (cg_interrupt_poll()) {
            cg_fail_status(P, CG_ERR_INTERRUPT, "a pass over the entries");
            return 0;
        }
    }
    return 1;
}

/* draws: the sampler only (the passes read the blocks) */
static int low_draw(completion *C, int batch)
{
    const int want = batch == CG_BATCH_FULL ? C->N : batch == CG_BATCH_DEFAULT ? C->smp.batch
                     : batch;
    int nb = 0;
    while (nb < want) {
        if (cg_block_sampler_next(&C->bs) < 0) {
            if (!cg_block_sampler_advance(&C->bs)) break;
            continue;
        }
        nb++;
    }
    C->smp.drawn = C->bs.drawn;
    return nb;
}

static double low_gradient(cg_problem *P, int batch)
{
    completion *C = (completion *) P->self;
    const int nb = low_draw(C, batch);
    memset(C->gval, 0, sizeof(double) * (size_t) C->C);
    low_rows(C, 1);
    low_ctx x = {LOW_GRADIENT, 0.0, 0.0, NULL, NULL, NULL};
    if (C->smp.drawn > 0 && !low_pass(P, C, 0, &x)) return nb;
    const double inv = C->smp.drawn > 0 ? 1.0 / C->smp.drawn : 0.0;
    for (int c = 0; c < C->C; c++) C->gval[c] *= inv;
    C->low_gx = x.s1 * inv;
    if (!cg_all_finite(C->gval, (size_t) C->C)) overflow_failure(P, C, NULL, 0, "the gradient");
    return nb;
}

static double low_lmo(cg_problem *P)
{
    completion *C = (completion *) P->self;
    cg_linop G; cg_csc_data Gd;
    cg_linop_csc(&G, &Gd, C->m, C->n, C->colptr, C->crow, C->gval);
    const int st = cg_lmo_nuclear(&G, C->radius, C->u, C->v, &C->sigma, C->lmo_tol);
    C->n_matvec += G.n_matvec;
    P->svd_rank = 1;
    if (st != CG_OK) {
        cg_fail_status(P, st, "the linear minimization oracle");
        return NA_REAL;
    }
    return C->low_gx + C->radius * C->sigma;
}

/* exact step for the gaussian estimated objective: <g, s - theta> from the
 * gradient (s rank one), sum (s - theta)^2 over the drawn entries a pass */
static double low_line_search(cg_problem *P)
{
    completion *C = (completion *) P->self;
    if (C->family != FAM_GAUSSIAN) return -1.0;
    double gs = 0.0;
    for (int j = 0; j < C->n; j++) {
        double cs = 0.0;
        for (int c = C->colptr[j]; c < C->colptr[j + 1]; c++) cs += C->gval[c] * C->u[C->crow[c]];
        gs += cs * C->v[j];
    }
    const double gd = -C->radius * gs - C->low_gx;
    low_rows(C, 1);
    low_ctx x = {LOW_LINE, 0.0, 0.0, NULL, NULL, NULL};
    if (!low_pass(P, C, 0, &x)) return 0.0;
    const double dd = x.s1 / C->smp.drawn;
    if (dd <= 0) return gd < 0 ? 1.0 : 0.0;
    return fmin(1.0, fmax(0.0, -gd / dd));
}

/* mc_reduce_rank's steps, each sum a pass over the drawn entries */
static void low_reduce_rank(cg_problem *P, int steps)
{
    completion *C = (completion *) P->self;
    cg_atoms *a = &C->atoms;
    const int st = cg_atoms_compress(a);
    if (st != CG_OK) { cg_fail_status(P, st, "the compression of the iterate"); return; }
    const double inv = 1.0 / C->smp.drawn;
    const void *vmax = vmaxget();
    for (int step = 0; step < steps && a->k > 1; step++) {
        const int k = a->k;
        double *h = cg_zeros(k), *sd = cg_zeros(k);
        double *wn = (double *) R_alloc(3 * (size_t) k, sizeof(double));
        double *pw = wn + k;
        low_rows(C, 0);
        low_ctx x = {LOW_RANK_GRAD, 0.0, 0.0, h, sd, NULL};
        if (!low_pass(P, C, 0, &x)) break;
        double hmax = 0.0;
        for (int j = 0; j < k; j++) {
            h[j] *= inv;
            if (sd[j] * inv > hmax) hmax = sd[j] * inv;
        }
        if (!(hmax > 0)) break;
        const double f0 = x.s2 * inv;
        int accepted = 0;
        double f1 = f0;
        for (int half = 0; half < 30 && !accepted; half++) {
            const double eta = ldexp(1.0 / hmax, -half);
            const double slope = weights_trial(a, k, h, eta, C->radius, wn, pw);
            if (!(slope < 0)) break;
            low_ctx y = {LOW_RANK_TRIAL, 0.0, 0.0, NULL, NULL, wn};
            if (!low_pass(P, C, 0, &y)) { vmaxset(vmax); return; }
            f1 = y.s2 * inv;
            accepted = f1 <= f0 + 1e-4 * slope;
        }
        if (!accepted) break;
        atoms_reweight(C, a, wn, k);
        if (f0 - f1 <= 1e-12 * fabs(f0)) break;
    }
    vmaxset(vmax);
    C->k_kept = a->k;
}

static void low_fw_step(cg_problem *P, double gamma)
{
    completion *C = (completion *) P->self;
    cg_atoms_scale(&C->atoms, 1.0 - gamma);
    for (int i = 0; i < C->m; i++) C->u[i] = -C->u[i];
    cg_atoms_add(&C->atoms, C->u, C->v, gamma * C->radius);
    C->iter++;
    if (C->iter == C->max_iter) low_reduce_rank(P, FINAL_WEIGHT_STEPS);
    else if (C->atoms.k >= 2 * C->k_kept + 8) low_reduce_rank(P, WEIGHT_STEPS);
}

/* the full objective (per entry, in double) and the FW gap of the full
 * gradient (into gval: the iteration's gradient is spent), one pass */
static void low_evaluate(cg_problem *P, double *obj, double *gap)
{
    completion *C = (completion *) P->self;
    memset(C->gval, 0, sizeof(double) * (size_t) C->C);
    low_rows(C, 1);
    low_ctx x = {LOW_EVAL, 0.0, 0.0, NULL, NULL, NULL};
    if (!low_pass(P, C, 1, &x)) { *obj = NA_REAL; *gap = NA_REAL; return; }
    const double inv = 1.0 / C->N;
    *obj = x.s2 * inv;
    for (int c = 0; c < C->C; c++) C->gval[c] *= inv;
    if (!isfinite(*obj) || !cg_all_finite(C->gval, (size_t) C->C)) {
        overflow_failure(P, C, NULL, 0, "the objective");
        *gap = NA_REAL;
        return;
    }
    cg_linop Gf; cg_csc_data d;
    cg_linop_csc(&Gf, &d, C->m, C->n, C->colptr, C->crow, C->gval);
    double sigma;
    int st = cg_lmo_nuclear(&Gf, C->radius, C->eu, C->ev, &sigma, 1e-10);
    if (st == CG_ERR_SVD) st = cg_lmo_nuclear(&Gf, C->radius, C->eu, C->ev, &sigma, 1e-8);
    *gap = st == CG_OK ? x.s1 * inv + C->radius * sigma : cg_gap_failed(P, st);
}

static const cg_fw_ops completion_low_fw = {low_gradient, low_lmo, low_line_search, low_fw_step};

static void low_release(cg_problem *P)
{
    completion *C = (completion *) P->self;
    free(C->gval);
    C->gval = NULL;
}

/* a reader's spec for memory = "low": its call, the block sampler, the
 * column pointer of the cells (spec cell_colptr), the block buffers */
static void low_setup(cg_problem *P, completion *C, SEXP spec, int mode, int batch)
{
    (void) P;
    C->low = 1;
    reader_sampler(C, spec, mode, batch);
    const int *cp = cg_spec_index(spec, "cell_colptr", (R_xlen_t) C->n + 1, 0, C->C);
    C->colptr = (int *) R_alloc((size_t) C->n + 1, sizeof(int));
    memcpy(C->colptr, cp, sizeof(int) * ((size_t) C->n + 1));
    if (C->colptr[0] != 0 || C->colptr[C->n] != C->C)
        error("spec: invalid cell_colptr");
    for (int j = 0; j < C->n; j++) {
        if (C->colptr[j + 1] < C->colptr[j]) error("spec: invalid cell_colptr");
        for (int c = C->colptr[j] + 1; c < C->colptr[j + 1]; c++)
            if (C->crow[c] <= C->crow[c - 1])
                error("spec: a reader's cells must be sorted by column, then row");
    }
    C->bcell = (int *) R_alloc(C->bs.bsize, sizeof(int));
    C->brow = (int *) R_alloc(C->bs.bsize, sizeof(int));
    C->bcol = (int *) R_alloc(C->bs.bsize, sizeof(int));
    C->by = (double *) R_alloc(C->bs.bsize, sizeof(double));
    C->cell = C->bcell; C->y = C->by;
}

static void mc_fw_step(cg_problem *P, double gamma)
{
    completion *C = (completion *) P->self;
    for (int t = 0; t < C->nt; t++) C->th[t] = (1.0 - gamma) * C->th[t] + gamma * sval_at(C, t);
    cg_atoms_scale(&C->atoms, 1.0 - gamma);
    /* s = radius (-u) v': store -u so that atom weights stay positive */
    for (int i = 0; i < C->m; i++) C->u[i] = -C->u[i];
    cg_atoms_add(&C->atoms, C->u, C->v, gamma * C->radius);
    C->iter++;
    if (C->refit > 0) {           /* every iteration ends compressed: no snapshot */
        mc_refit(P);
        return;
    }
    if (C->iter == C->max_iter && C->reader) mc_reduce_rank(P, FINAL_WEIGHT_STEPS);
    else if (C->iter == C->max_iter) {
        /* the final weight steps change the iterate, which a longer run
         * would not have: keep the state before them, to resume from (not
         * for a reader's fit, which returns no state: the snapshot is a
         * copy of the atoms and 8 bytes per touched cell at the fit's peak) */
        const cg_atoms *a = &C->atoms;
        C->snap_k = a->k; C->snap_scale = a->scale; C->snap_kept = C->k_kept;
        C->snap_u = (double *) R_alloc((size_t) a->m * (a->k > 0 ? a->k : 1), sizeof(double));
        C->snap_v = (double *) R_alloc((size_t) a->n * (a->k > 0 ? a->k : 1), sizeof(double));
        C->snap_w = (double *) R_alloc(a->k > 0 ? a->k : 1, sizeof(double));
        memcpy(C->snap_u, a->u, sizeof(double) * (size_t) a->m * a->k);
        memcpy(C->snap_v, a->v, sizeof(double) * (size_t) a->n * a->k);
        memcpy(C->snap_w, a->w, sizeof(double) * a->k);
        C->snap_th = (double *) R_alloc(C->nt > 0 ? C->nt : 1, sizeof(double));
        memcpy(C->snap_th, C->th, sizeof(double) * C->nt);
        mc_reduce_rank(P, FINAL_WEIGHT_STEPS);
    }
    else if (C->atoms.k >= 2 * C->k_kept + 8) mc_reduce_rank(P, WEIGHT_STEPS);
}

static int mc_pg_step(cg_problem *P, double eta)
{
    completion *C = (completion *) P->self;
    if (eta <= 0) {             /* 1/L of the current estimate, per cell */
        double L = 0.0;
        for (int t = 0; t < C->nt; t++) {
            double curv = C->family == FAM_GAUSSIAN ? 1.0 :
                C->family == FAM_BINOMIAL ? 0.25 : exp(C->th[t] + toff_at(C, t));
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
    C->iter++;
    P->svd_rank = C->m < C->n ? C->m : C->n;
    return st;
}

/* full objective over all observations, from per-cell totals, and the true
 * FW gap <G, theta> + radius * sigma_1(G) of the full gradient. With
 * effects, the objective is that of the iterate (theta, mu, a, b), and the
 * gap bounds it minus the optimum of the joint problem: the effects are
 * minimized for this theta on all the data (a copy: the iterate keeps its
 * own, so trace rows never change a run), giving phi(theta) up to that
 * minimization's accuracy, and the gap is (objective - phi(theta)) plus the
 * FW gap of phi at theta, whose gradient is the loss gradient at the
 * minimizing effects. */
/* the loss on all the data at thfull with effects (mu, a, b) */
static double joint_loss(const completion *C, double mu, const double *a, const double *b)
{
    double f = 0.0;
    for (int c = 0; c < C->C; c++) {
        const double eta = C->thfull[c] + mu + (C->center == CENTER_BOTH ?
                           a[C->crow[c]] + b[C->ccol[c]] : 0.0);
        f += C->Ncell[c] * log_partition(C->family, eta) - C->Ycell[c] * eta;
    }
    return C->center == CENTER_BOTH ? f + effects_ridge(C, a, b) : f;
}

static void mc_evaluate_polish(cg_problem *P, double *obj, double *gap)
{
    completion *C = (completion *) P->self;
    const int nc = C->C, fam = C->family;
    for (int c = 0; c < nc; c++) C->thfull[c] = NA_REAL;
    if (!C->dense)               /* cached values are current only for atoms */
        for (int t = 0; t < C->nt; t++) C->thfull[C->tc[t]] = C->th[t];
    double f = 0.0;
    for (int c = 0; c < nc; c++) {
        if (ISNAN(C->thfull[c])) C->thfull[c] = cell_value(C, c);
        const double eta = C->thfull[c] + effect_at(C, C->crow[c], C->ccol[c]);
        f += cell_loss(fam, C->Ncell[c], C->Ycell[c], eta);
    }
    f += C->within;
    if (C->center == CENTER_BOTH) f += effects_ridge(C, C->ra, C->cb);
    *obj = f / C->N;
    if (!isfinite(*obj)) {
        overflow_failure(P, C, C->thfull, nc, "the objective");
        *gap = NA_REAL;
        return;
    }
    double mu = C->mu, fmin = f;
    const double *a = C->ra, *b = C->cb;
    if (C->center != CENTER_NONE) {
        /* from the last evaluation's minimizer, near this one's (the
         * iterate's own effects fit only the drawn data: about 110 sweeps
         * from them on MovieLens, against a few from the last minimizer) */
        if (!C->polished || joint_loss(C, C->mu, C->ra, C->cb) <
                            joint_loss(C, C->pmu, C->pa, C->pb)) {
            C->pmu = C->mu;
            if (C->center == CENTER_BOTH) {
                memcpy(C->pa, C->ra, sizeof(double) * C->m);
                memcpy(C->pb, C->cb, sizeof(double) * C->n);
            }
        }
        mu = C->pmu;
        if (effects_minimize(C, C->thfull, C->Ncell, C->Ycell, C->N, &mu, C->pa, C->pb,
                             POLISH_SWEEPS, POLISH_TOL) != CG_OK) {
            C->polished = 0;       /* pa, pb part-way: the next evaluation restarts */
            cg_fail_status(P, CG_ERR_INTERRUPT, "the effects' sweeps");
            *gap = NA_REAL;        /* cut short: no bound */
            return;
        }
        C->pmu = mu; C->polished = 1;
        double fp = 0.0;
        for (int c = 0; c < nc; c++) {
            const double eta = C->thfull[c] + mu + (C->center == CENTER_BOTH ?
                               C->pa[C->crow[c]] + C->pb[C->ccol[c]] : 0.0);
            fp += cell_loss(fam, C->Ncell[c], C->Ycell[c], eta);
        }
        fp += C->within;
        if (C->center == CENTER_BOTH) fp += effects_ridge(C, C->pa, C->pb);
        if (fp < f) { fmin = fp; a = C->pa; b = C->pb; }
        else {                    /* no better: the iterate's own effects */
            mu = C->mu;
            C->polished = 0;
        }
    }
    double gx = 0.0;
    for (int c = 0; c < nc; c++) {
        const double x = C->thfull[c];
        const double eta = x + (C->center == CENTER_NONE ? 0.0 : C->center == CENTER_MEAN ? mu
                                : mu + a[C->crow[c]] + b[C->ccol[c]]);
        C->gfull[c] = (C->Ncell[c] * mean_fn(fam, eta) - C->Ycell[c]) / C->N;
        gx += C->gfull[c] * x;
    }
    cg_linop Gf; cg_coo_data d;
    cg_linop_coo(&Gf, &d, C->m, C->n, nc, C->crow, C->ccol, C->gfull);
    double sigma;
    int st = cg_lmo_nuclear(&Gf, C->radius, C->eu, C->ev, &sigma, 1e-10);
    /* Near the optimum the gradient's top singular value is that of the
     * iterate's whole subspace (k nearly equal values): Lanczos may not
     * bring the top vector's residual below 1e-10 of the value, while the
     * value itself is known far better (its error is of the order of the
     * residual squared over the spectral gap, bounded by the residual). A
     * residual of 1e-8 of the value bounds the value's relative error by
     * about 5e-9: retry there rather than report no gap. */
    if (st == CG_ERR_SVD) st = cg_lmo_nuclear(&Gf, C->radius, C->eu, C->ev, &sigma, 1e-8);
    *gap = st == CG_OK ? (f - fmin) / C->N + gx + C->radius * sigma : cg_gap_failed(P, st);
}

/* A trace-only row (P->eval_test 0, made when time allows) evaluates from the
 * carried polish start but leaves it as it was, so the scheduled tests, and
 * where a run stops, never depend on how many trace rows the machine's speed
 * allowed. */
static void mc_evaluate(cg_problem *P, double *obj, double *gap)
{
    completion *C = (completion *) P->self;
    if (P->eval_test || C->center == CENTER_NONE) {
        mc_evaluate_polish(P, obj, gap);
        return;
    }
    const double pmu = C->pmu;
    const int polished = C->polished;
    memcpy(C->qa, C->pa, sizeof(double) * C->m);
    memcpy(C->qb, C->pb, sizeof(double) * C->n);
    mc_evaluate_polish(P, obj, gap);
    C->pmu = pmu; C->polished = polished;
    memcpy(C->pa, C->qa, sizeof(double) * C->m);
    memcpy(C->pb, C->qb, sizeof(double) * C->n);
}

static double mc_epoch(cg_problem *P)
{
    completion *C = (completion *) P->self;
    return C->smp.drawn / C->N;
}

static long mc_n_matvec(cg_problem *P) { return ((completion *) P->self)->n_matvec; }

/* The atoms of a previous fit (spec init_u, init_w, init_v, init_scale),
 * checked; returns 0 when the spec has none */
typedef struct { int k; const double *u, *v, *w; double scale; } atoms_in;
static int spec_atoms(const completion *C, SEXP spec, atoms_in *a)
{
    if (isNull(cg_list_get(spec, "init_u"))) return 0;
    const int m = C->m, n = C->n, k = LENGTH(cg_list_get(spec, "init_w"));
    a->k = k;
    a->u = cg_spec_real(spec, "init_u", (R_xlen_t) m * k);
    a->v = cg_spec_real(spec, "init_v", (R_xlen_t) n * k);
    a->w = cg_spec_real(spec, "init_w", k);
    a->scale = asReal(cg_list_get(spec, "init_scale"));
    if (!cg_all_finite(a->u, (size_t) m * k) || !cg_all_finite(a->v, (size_t) n * k) ||
        !cg_all_finite(a->w, k) || !(a->scale > 0) || !isfinite(a->scale))
        error("spec: the initial iterate is not finite");
    return 1;
}

/* C->atoms <- a, raw (so that a resumed run repeats a longer one) */
static void set_atoms(completion *C, const atoms_in *a)
{
    const int m = C->m, n = C->n, k = a->k;
    cg_atoms_init(&C->atoms, m, n, 2 * k > 64 ? 2 * k : 64);
    memcpy(C->atoms.u, a->u, sizeof(double) * (size_t) m * k);
    memcpy(C->atoms.v, a->v, sizeof(double) * (size_t) n * k);
    memcpy(C->atoms.w, a->w, sizeof(double) * k);
    C->atoms.k = k; C->atoms.scale = a->scale;
}

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
        f += cell_loss(FAM_GAUSSIAN, C->Ncell[c], C->Ycell[c], x);
    }
    f += C->within;
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
    SEXP method = cg_list_get(spec, "method");
    C->sag = isString(method) && strcmp(CHAR(STRING_ELT(method, 0)), "hsagcgm_v1") == 0;
    /* init = a previous composite fit (checked by R): its iterate X and atoms
     * (raw, as its steps left them), the atoms at the last compression, the
     * epochs, and when it continues exactly f's estimator (hsagcgm: the SAG
     * table alpha and its sums vf; shcgm: the average d = vf); without them
     * the estimator starts empty, as in a fresh run */
    atoms_in a;
    if (spec_atoms(C, spec, &a)) {
        set_atoms(C, &a);
        memcpy(C->X, cg_spec_real(spec, "state_X", (R_xlen_t) mn), sizeof(double) * mn);
        C->k_compress = asInteger(cg_list_get(spec, "state_k_compress"));
        C->smp.drawn = asReal(cg_list_get(spec, "state_drawn"));
        if (!isNull(cg_list_get(spec, "state_vf"))) {
            memcpy(C->vf, cg_spec_real(spec, "state_vf", C->C), sizeof(double) * C->C);
            if (C->sag)
                memcpy(C->alpha, cg_spec_real(spec, "state_alpha", C->N), sizeof(double) * C->N);
        }
        if (!cg_all_finite(C->X, mn) || !cg_all_finite(C->vf, (size_t) C->C) ||
            !cg_all_finite(C->alpha, (size_t) C->N) || C->k_compress == NA_INTEGER ||
            C->k_compress < 0 || !(C->smp.drawn >= 0) || !isfinite(C->smp.drawn))
            error("spec: invalid resume state");
    }
    P->homotopy = &completion_homotopy;
    P->evaluate = mcc_evaluate;
}

/* the composite problem's resumable state (see composite_init), before
 * the solution's compression rewrites the atoms */
static SEXP composite_state(const completion *C)
{
    static const char *names[] = {"u", "w", "v", "scale", "X", "k_compress", "drawn", "vf",
                                  "alpha", ""};
    SEXP out = PROTECT(mkNamed(VECSXP, names));
    const int m = C->m, n = C->n, k = C->atoms.k;
    const size_t mn = (size_t) m * n;
    SEXP u = allocMatrix(REALSXP, m, k); SET_VECTOR_ELT(out, 0, u);
    SEXP w = allocVector(REALSXP, k);    SET_VECTOR_ELT(out, 1, w);
    SEXP v = allocMatrix(REALSXP, n, k); SET_VECTOR_ELT(out, 2, v);
    memcpy(REAL(u), C->atoms.u, sizeof(double) * (size_t) m * k);
    memcpy(REAL(w), C->atoms.w, sizeof(double) * k);
    memcpy(REAL(v), C->atoms.v, sizeof(double) * (size_t) n * k);
    SET_VECTOR_ELT(out, 3, ScalarReal(C->atoms.scale));
    SEXP X = allocMatrix(REALSXP, m, n); SET_VECTOR_ELT(out, 4, X);
    memcpy(REAL(X), C->X, sizeof(double) * mn);
    SET_VECTOR_ELT(out, 5, ScalarInteger(C->k_compress));
    SET_VECTOR_ELT(out, 6, ScalarReal(C->smp.drawn));
    SEXP vf = allocVector(REALSXP, C->C); SET_VECTOR_ELT(out, 7, vf);
    memcpy(REAL(vf), C->vf, sizeof(double) * C->C);
    if (C->sag) {
        SEXP al = allocVector(REALSXP, C->N); SET_VECTOR_ELT(out, 8, al);
        memcpy(REAL(al), C->alpha, sizeof(double) * C->N);
    }
    UNPROTECT(1);
    return out;
}

/* effects (center = "mean" / "both"): arrays, and cells grouped by row and
 * by column for the sweeps (counting sort, O(cells)) */
static void completion_effects_init(completion *C, SEXP spec)
{
    SEXP cen = cg_list_get(spec, "center");
    C->center = isNull(cen) ? CENTER_NONE : asInteger(cen);
    if (C->center < CENTER_NONE || C->center > CENTER_BOTH) error("spec: invalid center");
    const int nc = C->C, m = C->m, n = C->n;
    if (C->center == CENTER_NONE) return;
    SEXP rg = cg_list_get(spec, "effects_ridge");
    C->ridge = isNull(rg) ? 0.0 : asReal(rg);
    if (!(C->ridge >= 0) || !isfinite(C->ridge)) error("spec: invalid effects_ridge");
    C->xc = C->thfull;            /* shared scratch (see completion) */
    C->first_sweeps = 1;
    C->ra = cg_zeros(m); C->cb = cg_zeros(n); C->pa = cg_zeros(m); C->pb = cg_zeros(n);
    C->qa = cg_zeros(m); C->qb = cg_zeros(n);
    C->rflag = (unsigned char *) R_alloc(m, 1); C->cflag = (unsigned char *) R_alloc(n, 1);
    C->rptr = (int *) R_alloc((size_t) m + 1, sizeof(int));
    C->cptr = (int *) R_alloc((size_t) n + 1, sizeof(int));
    C->rcell = (int *) R_alloc(nc, sizeof(int));
    /* cells sorted by column (a reader's): grouped by column as they are */
    int by_col = 1;
    for (int c = 1; c < nc && by_col; c++) by_col = C->ccol[c] >= C->ccol[c - 1];
    C->ccell = by_col ? NULL : (int *) R_alloc(nc, sizeof(int));
    memset(C->rptr, 0, sizeof(int) * ((size_t) m + 1));
    memset(C->cptr, 0, sizeof(int) * ((size_t) n + 1));
    for (int c = 0; c < nc; c++) { C->rptr[C->crow[c] + 1]++; C->cptr[C->ccol[c] + 1]++; }
    for (int i = 0; i < m; i++) C->rptr[i + 1] += C->rptr[i];
    for (int j = 0; j < n; j++) C->cptr[j + 1] += C->cptr[j];
    int *rnext = (int *) R_alloc(m, sizeof(int)), *cnext = (int *) R_alloc(n, sizeof(int));
    memcpy(rnext, C->rptr, sizeof(int) * m);
    memcpy(cnext, C->cptr, sizeof(int) * n);
    for (int c = 0; c < nc; c++) {
        C->rcell[rnext[C->crow[c]]++] = c;
        if (C->ccell) C->ccell[cnext[C->ccol[c]]++] = c;
    }
}

/* Effects from the spec: <prefix>_mu, and for center = "both" the row and
 * column effects <prefix>_row, <prefix>_col (finite) */
static void read_effects(const completion *C, SEXP spec, const char *prefix, double *mu,
                         double *a, double *b)
{
    char name[64];
    snprintf(name, sizeof name, "%s_mu", prefix);
    *mu = asReal(cg_list_get(spec, name));
    const int both = C->center == CENTER_BOTH;
    if (both) {
        snprintf(name, sizeof name, "%s_row", prefix);
        memcpy(a, cg_spec_real(spec, name, C->m), sizeof(double) * C->m);
        snprintf(name, sizeof name, "%s_col", prefix);
        memcpy(b, cg_spec_real(spec, name, C->n), sizeof(double) * C->n);
    }
    if (!isfinite(*mu) || !cg_all_finite(a, both ? C->m : 0) || !cg_all_finite(b, both ? C->n : 0))
        error("spec: the effects %s_* are not finite", prefix);
}

/* Warm start from a previous fit (spec init_*): its atoms or, for the dense
 * baseline, their product; its effects; the iterations done (the step
 * rules count from them). resume: also the drawn statistics and the
 * touched cells in their order. */
static void completion_warm_start(cg_problem *P, completion *C, SEXP spec, int resume)
{
    atoms_in a;
    if (!spec_atoms(C, spec, &a)) return;
    const int m = C->m, n = C->n, nc = C->C, k = a.k;
    const double *u = a.u, *v = a.v, *w = a.w, scale = a.scale;
    if (C->dense) {
        for (int j = 0; j < k; j++)
            for (int c = 0; c < n; c++) {
                const double f = scale * w[j] * v[(size_t) j * n + c];
                double *col = C->theta + (size_t) c * m;
                for (int i = 0; i < m; i++) col[i] += f * u[(size_t) j * m + i];
            }
        C->frank = -1;
    } else {
        set_atoms(C, &a);
        C->k_kept = asInteger(cg_list_get(spec, "init_kept"));
        C->n_dropped = asInteger(cg_list_get(spec, "init_dropped"));
        if (C->k_kept < 0 || C->n_dropped < 0) error("spec: invalid rank-control state");
    }
    if (C->center != CENTER_NONE) {
        read_effects(C, spec, "init", &C->mu, C->ra, C->cb);
        C->first_sweeps = !resume;
    }
    C->iter = P->iter_offset;              /* set by the dispatcher */
    if (!resume) return;
    {
        const double *sc = cg_spec_real(spec, "state_cnt", nc);
        for (int c = 0; c < nc; c++) {
            if (!(sc[c] >= 0 && sc[c] <= INT_MAX && sc[c] == floor(sc[c])))
                error("spec: invalid state_cnt");
            C->cnt[c] = (int) sc[c];
        }
    }
    memcpy(C->sy, cg_spec_real(spec, "state_sy", nc), sizeof(double) * nc);
    SEXP tch = cg_list_get(spec, "state_touched");
    const int nt = LENGTH(tch);
    const int *tc = cg_spec_index(spec, "state_touched", nt, 0, nc - 1);
    unsigned char *seen = (unsigned char *) R_alloc(nc, 1);
    memset(seen, 0, nc);
    for (int t = 0; t < nt; t++) {
        const int c = tc[t];
        if (seen[c] || !(C->cnt[c] > 0)) error("spec: invalid touched cells");
        seen[c] = 1;
        C->tc[t] = c; C->trow[t] = C->crow[c]; C->tcol[t] = C->ccol[c];
        C->th[t] = cell_value(C, c);
    }
    C->nt = nt;
    SEXP th = cg_list_get(spec, "state_th");
    if (!C->dense && !isNull(th))
        memcpy(C->th, cg_spec_real(spec, "state_th", nt), sizeof(double) * nt);
    if (C->center != CENTER_NONE && !isNull(cg_list_get(spec, "state_polished_mu"))) {
        read_effects(C, spec, "state_polished", &C->pmu, C->pa, C->pb);
        C->polished = 1;
    }
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
    const int use_reader = !isNull(cg_list_get(spec, "reader_call"));
    C->N = use_reader ? asInteger(cg_list_get(spec, "n_entries"))
                      : LENGTH(cg_list_get(spec, "y"));
    if (C->m < 1 || C->n < 1 || C->C < 1 || C->N < 1 || C->N == NA_INTEGER)
        error("spec: completion needs m, n >= 1 and observed entries");
    if (!use_reader) {
        C->cell = cg_spec_index(spec, "cell", C->N, 0, C->C - 1);
        C->y = cg_spec_real(spec, "y", C->N);
    }
    SEXP low_ = cg_list_get(spec, "low_memory");
    C->low = use_reader && !isNull(low_) && asLogical(low_) == TRUE;
    C->crow = cg_spec_index(spec, "cell_row", C->C, 0, C->m - 1);
    C->ccol = C->low ? NULL : cg_spec_index(spec, "cell_col", C->C, 0, C->n - 1);
    C->family = asInteger(cg_list_get(spec, "family"));
    C->radius = asReal(cg_list_get(spec, "radius"));
    C->dense = asLogical(cg_list_get(spec, "dense_iterate"));
    C->lmo_tol = asReal(cg_list_get(spec, "lmo_tol"));
    C->max_iter = asInteger(cg_list_get(spec, "max_iter"));
    SEXP refit = cg_list_get(spec, "refit"), cap = cg_list_get(spec, "max_rank");
    C->refit = isNull(refit) ? 0 : asInteger(refit);
    C->max_rank = isNull(cap) ? 0 : asInteger(cap);
    if (C->refit < 0 || C->refit == NA_INTEGER || C->max_rank < 0 || C->max_rank == NA_INTEGER)
        error("spec: refit and max_rank must be non-negative");
    SEXP qb = cg_list_get(spec, "refit_block");
    C->q = C->refit > 0 && !isNull(qb) ? asInteger(qb) : 1;
    {
        const int mn0 = C->m < C->n ? C->m : C->n;
        if (C->q == NA_INTEGER || C->q < 1) error("spec: refit_block must be >= 1");
        if (C->q > mn0) C->q = mn0;
        /* the block's cap: 4 q, and a quarter of min(m, n) (Lanczos, not a
         * dense SVD, for the block) */
        C->q_cap = 4 * C->q < mn0 / 4 ? 4 * C->q : mn0 / 4;
        if (C->q_cap < C->q) C->q_cap = C->q;
        C->q_cur = C->q;
        if (C->q > 1) {
            C->uq = cg_zeros((size_t) C->m * C->q_cap);
            C->vq = cg_zeros((size_t) C->n * C->q_cap);
            C->sq = cg_zeros(C->q_cap);
        }
    }
    const int N = C->N, nc = C->C, m = C->m, n = C->n;
    /* a resumed run restores the sampler (no new permutation: the RNG
     * stream continues as in one longer run) */
    SEXP st_cnt = cg_list_get(spec, "state_cnt");
    const int resume = !isNull(st_cnt), mode = asInteger(cg_list_get(spec, "sampling"));
    const int batch = asInteger(cg_list_get(spec, "batch_size"));
    if (use_reader && (resume || C->dense || !isNull(cg_list_get(spec, "composite"))))
        error("spec: a reader of entries is for sfw and fw on atoms, without a resumed state");
    if (!use_reader) {
        if (resume) cg_sampler_resume(&C->smp, spec, N, batch, mode);
        else cg_sampler_init(&C->smp, N, batch, mode);
        C->batch_idx = (int *) R_alloc(N > C->smp.batch ? N : C->smp.batch, sizeof(int));
    }
    if (C->low) {                 /* memory = "low": see "Low memory" */
        SEXP cen = cg_list_get(spec, "center");
        if ((!isNull(cen) && asInteger(cen) != CENTER_NONE) || C->refit > 0)
            error("spec: memory = \"low\" is for sfw without effects");
        low_setup(P, C, spec, mode, batch);
        /* the one per-cell double array, outside R's heap: R's collector
         * lets garbage (the blocks read) grow in proportion to the live
         * heap, so an R_alloc'd gval would raise the peak by a share of
         * itself; freed by low_release on every path */
        P->self = C;
        C->gval = (double *) calloc((size_t) nc, sizeof(double));
        if (!C->gval) error("cannot allocate %.0f MB for the gradient at the cells",
                            8.0 * nc / 1048576.0);
        P->release = low_release;
        memset(C->gval, 0, sizeof(double) * (size_t) nc);   /* touched now: the peak */
        C->u = cg_zeros(m); C->v = cg_zeros(n); C->eu = cg_zeros(m); C->ev = cg_zeros(n);
        cg_atoms_init(&C->atoms, m, n, 64);
        C->ortho_k = -1;
        P->evaluate = low_evaluate; P->epoch = mc_epoch; P->n_matvec = mc_n_matvec;
        P->svd_rank = 0;
        P->fw = &completion_low_fw;
        return CG_OK;
    }
    C->tc = (int *) R_alloc(nc, sizeof(int));
    C->trow = (int *) R_alloc(nc, sizeof(int));
    C->tcol = (int *) R_alloc(nc, sizeof(int));
    C->cnt = (int *) R_alloc(nc, sizeof(int)); C->sy = cg_zeros(nc);
    C->Ncell = (int *) R_alloc(nc, sizeof(int)); C->Ycell = cg_zeros(nc);
    memset(C->cnt, 0, sizeof(int) * (size_t) nc);
    memset(C->Ncell, 0, sizeof(int) * (size_t) nc);
    C->th = cg_zeros(nc); C->gval = cg_zeros(nc);
    C->gfull = cg_zeros(nc); C->thfull = cg_zeros(nc);
    /* the sums of y^2 per cell in thfull until the spread is summed */
    if (use_reader) reader_setup(P, C, spec, mode, batch, C->thfull);
    else totals_add(C, C->cell, C->y, N, C->thfull);
    totals_within(C, C->thfull);
    if (!C->dense) { C->tail = C->gval; C->trial = C->gfull; C->kept = C->thfull; }
    C->u = cg_zeros(m); C->v = cg_zeros(n); C->eu = cg_zeros(m); C->ev = cg_zeros(n);
    if (C->dense) {               /* theta = 0: rank 0 until the first projection */
        const int mn = m < n ? m : n;
        C->theta = cg_zeros((size_t) m * n);
        C->fu = cg_zeros((size_t) m * mn); C->fv = cg_zeros((size_t) n * mn);
        C->fd = cg_zeros(mn); C->frank = 0;
    }
    else cg_atoms_init(&C->atoms, m, n, 64);
    completion_effects_init(C, spec);
    SEXP comp = cg_list_get(spec, "composite");
    C->composite = isNull(comp) ? COMPOSITE_NONE : asInteger(comp);
    const int composite = C->composite == COMPOSITE_BOX || C->composite == COMPOSITE_L1;
    if (!composite) completion_warm_start(P, C, spec, resume);   /* composite: its own */
    C->ortho_k = C->refit > 0 && !C->dense && !composite && atoms_orthonormal(&C->atoms)
        ? C->atoms.k : -1;
    P->self = C;
    P->evaluate = mc_evaluate; P->epoch = mc_epoch; P->n_matvec = mc_n_matvec;
    /* a resumed run's first trace row: the rank of its last SVD */
    P->svd_rank = P->iter_offset == 0 ? 0 : C->dense ? (m < n ? m : n) : 1;
    if (composite) {
        if (C->family != FAM_GAUSSIAN || C->dense)
            error("spec: composite completion needs the gaussian family and atoms");
        if (C->center != CENTER_NONE || resume)
            error("spec: composite completion takes no effects and no sampler state");
        composite_init(P, C, spec);
    }
    else if (C->dense) P->pg = &completion_pg;
    else P->fw = &completion_fw;
    return CG_OK;
}

/* The fit as factors: the atoms compressed to thin SVD (exact), or for the
 * dense baseline the thin SVD kept from its last projection (a full SVD of
 * theta only if that projection failed); svd_form says whether the factors
 * are in thin-SVD form. Also the number of atoms dropped. */
/* the resumable state (see completion_warm_start): atoms as the run left
 * them before its final weight steps, the rank control's counters, the
 * iterations, the sampler and the drawn statistics */
static SEXP completion_state(const completion *C)
{
    static const char *names[] = {"u", "w", "v", "scale", "kept", "dropped", "iter",
                                  "cnt", "sy", "touched", "order", "pos", "drawn", "th",
                                  "polished_mu", "polished_row", "polished_col", ""};
    SEXP out = PROTECT(mkNamed(VECSXP, names));
    const int snap = C->snap_u != NULL, m = C->m, n = C->n;
    const int k = C->dense ? 0 : snap ? C->snap_k : C->atoms.k;
    SEXP u = allocMatrix(REALSXP, m, k); SET_VECTOR_ELT(out, 0, u);
    SEXP w = allocVector(REALSXP, k);    SET_VECTOR_ELT(out, 1, w);
    SEXP v = allocMatrix(REALSXP, n, k); SET_VECTOR_ELT(out, 2, v);
    if (k > 0) {
        memcpy(REAL(u), snap ? C->snap_u : C->atoms.u, sizeof(double) * (size_t) m * k);
        memcpy(REAL(w), snap ? C->snap_w : C->atoms.w, sizeof(double) * k);
        memcpy(REAL(v), snap ? C->snap_v : C->atoms.v, sizeof(double) * (size_t) n * k);
    }
    SET_VECTOR_ELT(out, 3, ScalarReal(C->dense ? 1.0 : snap ? C->snap_scale : C->atoms.scale));
    SET_VECTOR_ELT(out, 4, ScalarInteger(snap ? C->snap_kept : C->k_kept));
    SET_VECTOR_ELT(out, 5, ScalarInteger(C->n_dropped));
    SET_VECTOR_ELT(out, 6, ScalarInteger(C->iter));
    SEXP cnt = allocVector(REALSXP, C->C); SET_VECTOR_ELT(out, 7, cnt);
    SEXP sy = allocVector(REALSXP, C->C);  SET_VECTOR_ELT(out, 8, sy);
    for (int c = 0; c < C->C; c++) REAL(cnt)[c] = C->cnt[c];
    memcpy(REAL(sy), C->sy, sizeof(double) * C->C);
    SEXP tch = allocVector(INTSXP, C->nt); SET_VECTOR_ELT(out, 9, tch);
    memcpy(INTEGER(tch), C->tc, sizeof(int) * C->nt);
    if (C->smp.order) {
        SEXP ord = allocVector(INTSXP, C->N); SET_VECTOR_ELT(out, 10, ord);
        memcpy(INTEGER(ord), C->smp.order, sizeof(int) * C->N);
    }
    SET_VECTOR_ELT(out, 11, ScalarInteger(C->smp.pos));
    SET_VECTOR_ELT(out, 12, ScalarReal(C->smp.drawn));
    /* the atoms' values at the touched cells, as the iterations updated
     * them (recomputing them from the atoms differs by rounding) */
    SEXP th = allocVector(REALSXP, C->dense ? 0 : C->nt); SET_VECTOR_ELT(out, 13, th);
    if (!C->dense) memcpy(REAL(th), snap ? C->snap_th : C->th, sizeof(double) * C->nt);
    /* the last evaluation's minimizing effects, the next one's start */
    if (C->polished) {
        SET_VECTOR_ELT(out, 14, ScalarReal(C->pmu));
        if (C->center == CENTER_BOTH) {
            SEXP pa = allocVector(REALSXP, m); SET_VECTOR_ELT(out, 15, pa);
            SEXP pb = allocVector(REALSXP, n); SET_VECTOR_ELT(out, 16, pb);
            memcpy(REAL(pa), C->pa, sizeof(double) * m);
            memcpy(REAL(pb), C->pb, sizeof(double) * n);
        }
    }
    UNPROTECT(1);
    return out;
}

/* The fit as factors: the atoms compressed to thin SVD (exact), or for the
 * dense baseline the thin SVD kept from its last projection (a full SVD of
 * theta only if that projection failed); svd_form says whether the factors
 * are in thin-SVD form. Also the number of atoms dropped, the effects and
 * (plain problem) the resumable state. */
SEXP cg_completion_solution(cg_problem *P)
{
    completion *C = (completion *) P->self;
    const int m = C->m, n = C->n, mn = m < n ? m : n;
    /* before the compression below rewrites the atoms */
    /* a reader's fit has no state to resume from (init = NULL): none built */
    SEXP state = C->composite ? composite_state(C) : C->reader ? R_NilValue : completion_state(C);
    PROTECT(state);
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
                                  "rmse_train", "rmse_test", "state", ""};
    static const char *plain_names[] = {"u", "w", "v", "dropped", "svd_form", "mu", "row",
                                        "col", "state", ""};
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
        SET_VECTOR_ELT(out, 8, state);
    } else {                      /* effects (zero without centering) and state */
        SET_VECTOR_ELT(out, 5, ScalarReal(C->mu));
        SEXP ra = allocVector(REALSXP, m); SET_VECTOR_ELT(out, 6, ra);
        SEXP cb = allocVector(REALSXP, n); SET_VECTOR_ELT(out, 7, cb);
        if (C->center == CENTER_BOTH) {
            memcpy(REAL(ra), C->ra, sizeof(double) * m);
            memcpy(REAL(cb), C->cb, sizeof(double) * n);
        } else {
            memset(REAL(ra), 0, sizeof(double) * m);
            memset(REAL(cb), 0, sizeof(double) * n);
        }
        SET_VECTOR_ELT(out, 8, state);
    }
    UNPROTECT(5);
    return out;
}
