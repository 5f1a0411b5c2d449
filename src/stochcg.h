/* stochcg.h: the shared C core.
 *
 * Layers (see DESIGN.md):
 *   linalg_*  dense/sparse kernels, linear operators, top-k SVD, factored iterates
 *   sets_*    linear minimization oracles (LMOs), projections, prox operators
 *   prob_*    one problem each: owns its iterate and gradient estimator, and
 *             fills a static operation table (cg_fw_ops, cg_prox_ops, ...)
 *             for each solver family it supports
 *   solve_*   one algorithm family each: sees a problem only through its
 *             family's table in cg_problem and the hooks all families share
 *   trace.c   trace recorder, timers, interrupt checks, progress
 * dispatch.c joins them with two tables: the problems (name, constructor,
 * solution builder) and the methods (name, solver loop, family it needs).
 * A method applies to a problem exactly when the problem provides the
 * table of the method's family, so adding a problem or a method is one
 * row, and adding a family one ops struct with its pointer in cg_problem
 * (see "problems" below).
 * Kernels work on raw pointers and return status codes; SEXP glue lives in
 * dispatch.c and oracles_api.c only.
 */
#ifndef STOCHCG_H
#define STOCHCG_H

#define USE_FC_LEN_T
#include <R.h>
#include <Rinternals.h>
#include <R_ext/BLAS.h>
#include <R_ext/Lapack.h>
#ifndef FCONE
#define FCONE
#endif

/* ---------------------------------------------------------------- status */
enum { CG_OK = 0, CG_ERR_SVD = 1, CG_ERR_LAPACK = 2, CG_ERR_DOMAIN = 3,
       CG_ERR_NONFINITE = 4,   /* NA/NaN/Inf in a kernel's input or products */
       CG_ERR_INTERRUPT = 5,   /* Ctrl-C seen inside a kernel (solves only) */
       CG_ERR_R = 6,           /* an R error inside R code called back (cg_try) */
       CG_ERR_TIMEOUT = 7 };   /* a Lanczos run cut at the run's time limit
                                  (cg_kernel_deadline; problems that opt in) */

/* ------------------------------------------------------- linear operators */
/* A matrix-free m x n operator: the only way oracles see a matrix gradient. */
typedef struct cg_linop cg_linop;
struct cg_linop {
    int m, n;
    void (*mult)(const cg_linop *A, const double *x, double *y);  /* y = A x  */
    void (*tmult)(const cg_linop *A, const double *x, double *y); /* y = A' x */
    const void *data;
    long n_matvec;                   /* products with A or A' so far */
};

typedef struct { const double *x; int ld; } cg_dense_data;
typedef struct {                         /* coordinate list, 0-based */
    int nnz; const int *row, *col; const double *val;
} cg_coo_data;
typedef struct {                         /* compressed sparse column */
    const int *p, *i; const double *x;
} cg_csc_data;

void cg_linop_dense(cg_linop *A, cg_dense_data *d, const double *x, int m, int n);
void cg_linop_coo(cg_linop *A, cg_coo_data *d, int m, int n, int nnz,
                  const int *row, const int *col, const double *val);
void cg_linop_csc(cg_linop *A, cg_csc_data *d, int m, int n,
                  const int *p, const int *i, const double *x);
double *cg_zeros(size_t n);          /* zero-filled R_alloc scratch */
int cg_all_finite(const double *x, size_t n);   /* no NA, NaN or Inf */
void cg_symmetrize(double *A, int n);  /* A <- (A + A') / 2, n x n, in place */
/* out[k] = scale * x_{cols[k]}'v for the columns cols (NULL: 0..m-1) of the
 * dense n-row X, each summed in row order (the reference BLAS's ddot,
 * dgemv("T") and dsyrk("L", "T") numbers), eight columns at a time
 * (src/prob_regression.c) */
void cg_cols_dot(const double *X, int n, const int *cols, int m, const double *v,
                 double scale, double *out);
/* C's upper triangle (p x p) += A'A (A k x p), each entry's sum carried on in
 * row order: dsyrk("U", "T")'s numbers, 4 x 4 entries at a time
 * (src/regression_data.c) */
void cg_syrk_upper_more(const double *A, int k, int p, double *C);
/* X'y / n of a dense n x p X by dgemv("T"): the regression problem's set-up
 * (prob_regression.c) and a CV fold's, computed once (cg_regression_xty) */
void cg_dense_xty(int n, int p, const double *X, const double *y, double *out);
/* dense column-major copy of A (m x n), by products with unit vectors */
void cg_linop_densify(cg_linop *A, double *out);
double cg_linop_nnz(const cg_linop *A);

/* --------------------------------------------------------- top-k spectra */
/* Top-k singular triplets of A: d (k), u (m x k), v (n x k), column-major,
 * d decreasing. Uses RSpectra's eigs_sym_c on A'A or AA' (whichever is
 * smaller) to residual tolerance tol (relative to sigma^2), or LAPACK on a
 * dense copy when min(m, n) is small.
 * Returns CG_OK, CG_ERR_SVD (no convergence), CG_ERR_NONFINITE (non-finite
 * entries or products) or, during a solve, CG_ERR_INTERRUPT (Ctrl-C: the
 * Lanczos run is cut short, see cg_interrupt_poll). */
int cg_svds(cg_linop *A, int k, double tol, double *d, double *u, double *v);
/* k eigenpairs of a symmetric n x n operator: which = +1 largest algebraic,
 * -1 smallest algebraic. vals (k), vecs (n x k). */
int cg_eigs_sym(cg_linop *A, int k, int which, double *vals, double *vecs);
/* sigma_1(A) (which = 0) or the smallest eigenvalue of symmetric A
 * (which = -1), for duality gaps: top values cluster near an optimum (about
 * `hint` of them), so a wide Lanczos subspace and a loose tolerance, with
 * the value moved outward by it so that gaps stay upper bounds */
int cg_extreme_value(cg_linop *A, int which, int hint, double *value);
/* the same with the Lanczos tolerance given (cg_extreme_value: 1e-6); the
 * value moves outward by it, so a certificate's floor is about tol / 2
 * relative to the term it enters */
int cg_extreme_value_tol(cg_linop *A, int which, int hint, double tol, double *value);
/* the smallest eigenvalue of symmetric A, moved outward by tol, from the k
 * smallest together (about k - 1 others cluster just above it) */
int cg_lowest_eigenvalue(cg_linop *A, int k, double tol, double *value);
/* every eigenpair of symmetric A below thresh (which = -1) or above it
 * (+1): *found (<= cap; CG_ERR_DOMAIN if more) pairs into vals (cap),
 * vecs (n x cap), outer end first; khint: the expected count; extrapolate:
 * past the hint, grow k from the spacing of the values found (else double) */
int cg_eigs_beyond(cg_linop *A, int which, double thresh, int khint, int extrapolate,
                   double tol, int cap, int *found, double *vals, double *vecs);

/* Dense LAPACK, workspace from R_alloc; X is destroyed. Thin SVD: s (min),
 * U (m x min), VT (min x n). Eigenpairs il..iu (1-based, ascending) of the
 * symmetric X (upper triangle read): w (>= n), Z (n x (iu - il + 1)).
 * Non-finite X gives CG_ERR_NONFINITE (X untouched): LAPACK is not called. */
int cg_lapack_svd(double *X, int m, int n, double *s, double *U, double *VT);
int cg_lapack_syevr(double *X, int n, int il, int iu, double *w, double *Z);

/* ---------------------------------------------------- factored iterates */
/* X = scale * sum_j w[j] u_j v_j'  (u_j unit in R^m, v_j unit in R^n).
 * Scaling all atoms is O(1) through `scale`; repeated atoms are merged. */
typedef struct {
    int m, n, k, cap;
    double *u, *v, *w;
    double scale;
} cg_atoms;

void   cg_atoms_init(cg_atoms *a, int m, int n, int cap);
void   cg_atoms_reset(cg_atoms *a);
void   cg_atoms_scale(cg_atoms *a, double c);
/* add weight*u v'; returns the index of the (possibly merged) atom */
int    cg_atoms_add(cg_atoms *a, const double *u, const double *v, double weight);
double cg_atoms_entry(const cg_atoms *a, int i, int j);
/* effective weights (scale folded in) into w_out (k) */
void   cg_atoms_weights(const cg_atoms *a, double *w_out);
/* rewrite the atoms as the thin SVD of their sum (orthonormal u, v; weights
 * the singular values, decreasing; scale 1): O((m + n) k^2). Returns CG_OK,
 * or a LAPACK status with the atoms unchanged. */
int    cg_atoms_compress(cg_atoms *a);

/* -------------------------------------------------------------- sets */
/* Vector LMOs: argmin_{s in C} <g, s>. */
void cg_lmo_l1(const double *g, int n, double radius, int *idx, double *val);
void cg_lmo_lp(const double *g, int n, double radius, double p, double *s);
void cg_lmo_simplex(const double *g, int n, double radius, int *idx);
void cg_lmo_box(const double *g, int n, const double *lo, const double *hi, double *s);
/* Away vertex of the l1 ball for pairwise Frank-Wolfe. x is read as the
 * convex combination of the vertices sign(x_j) r e_j (weights |x_j| / r) and
 * the origin (weight slack / r, slack = r - ||x||_1, active when > 0): the
 * active one maximizing <g, v>, as idx (-1 for the origin), val (its
 * nonzero entry, 0 for the origin) and its weight. support (k indices)
 * holds every j with x_j != 0 (and may hold others). */
void cg_away_l1(const double *g, const double *x, const int *support, int k,
                double radius, double slack, int *idx, double *val, double *weight);
/* Euclidean projections; work has length >= 2n. */
void cg_proj_simplex(const double *y, int n, double radius, double *x, double *work);
void cg_proj_l1(const double *y, int n, double radius, double *x, double *work);
void cg_proj_capped_simplex(const double *y, int n, double radius, double cap,
                            double *x, double *work);
/* lp ball {||x||_p <= radius}, 1 < p < 2, Euclidean projection; x may be y.
 * Returns CG_OK, CG_ERR_DOMAIN (bad p) or, during a solve, CG_ERR_INTERRUPT
 * (x not written). */
int  cg_proj_lp(const double *y, size_t n, double radius, double p, double *x);
/* projection of nonnegative spectra onto {s >= 0, sum s <= radius}
 * (or == radius when equality), in place */
void cg_proj_spectrum(double *s, int k, double radius, int equality, double *work);
/* Matrix LMOs on an operator: nuclear ball s = -radius u v' (u, v out);
 * trace-bounded PSD cone / spectrahedron s = radius v v' or 0 (returns 1 if
 * the atom is nonzero). tol: Lanczos tolerance of the singular pair. */
int  cg_lmo_nuclear(cg_linop *G, double radius, double *u, double *v, double *sigma,
                    double tol);
int  cg_lmo_psd(cg_linop *G, double radius, int equality, double *v, double *lambda);
/* min <G, S> over the spectrahedron (tr S = radius, or <= with !equality),
 * a certified lower bound: lambda_min moved outward by tol */
int  cg_psd_support_min(cg_linop *G, double radius, int equality, double tol, double *value);
/* Dense matrix projections (full SVD / eigendecomposition), in place. */
int  cg_proj_nuclear_dense(double *X, int m, int n, double radius);
/* the same, also giving the result's thin SVD: rank r in *rank, singular
 * values fd (r), fu (m x r), fv (n x r); capacities min(m, n) columns */
int  cg_proj_nuclear_dense_factors(double *X, int m, int n, double radius, double *fu,
                                   double *fd, double *fv, int *rank);
int  cg_proj_psd_dense(double *X, int n, double radius, int equality);
/* prox operators, in place */
void cg_soft_threshold(double *x, int n, double lambda);
void cg_prox_enet(double *x, int n, double l1, double l2, double step);

/* Weak proximal oracle (Garber and Kaplan 2019, eq. 5) with certified rank:
 * V = projection of the rank-r truncation of A (m x n, dense) onto the
 * nuclear ball {||V||_* <= tau} (set CG_SET_NUCLEAR) or the trace-bounded
 * PSD cone {V psd, tr V <= tau} (CG_SET_PSD, A symmetric). r starts at *rank
 * and grows until sigma_{r+1}(A) <= the projection threshold, when the
 * rank-r step equals the exact projection; the certified r is returned in
 * *rank (capped at max_rank, *certified = 0 then). *triplets: singular
 * triplets / eigenpairs computed (rank-one SVD work); products with A are
 * added to *n_matvec. V may be the array A (A is not read after the SVD). */
enum { CG_SET_NUCLEAR = 0, CG_SET_PSD = 1 };
int cg_weak_prox(const double *A, int m, int n, int set, double tau, int max_rank,
                 int *rank, double *V, int *certified, int *triplets, long *n_matvec);
/* Singular value thresholding V = sum_j (sigma_j - theta)_+ u_j v_j' (the
 * prox of theta ||.||_*), with the same certified, growing rank: exact once
 * sigma_{r+1}(A) <= theta. *nuclear = ||V||_*. */
int cg_svt(const double *A, int m, int n, double theta, int max_rank, int *rank, double *V,
           int *certified, int *triplets, long *n_matvec, double *nuclear);

/* smoothing (smooth.c) */
double cg_huber_value(const double *x, size_t n, double mu, double lambda);
void   cg_huber_grad_add(const double *x, size_t n, double mu, double lambda, double *out);
/* dual residuals: certified gap of the stated problem = smoothed FW gap +
 * residual (see smooth.c) */
double cg_huber_residual(const double *x, size_t n, double mu, double lambda);
double cg_softmax(const double *z, int n, double mu, double *p);

/* ---------------------------------------------------------- trace */
typedef struct {
    int cap, len;
    int *iter; double *epoch, *time, *objective, *gap, *infeas;
    double *n_grad, *n_lmo, *n_matvec; int *svd_rank;
} cg_trace;

typedef struct {
    int max_iter, eval_every, progress, verbose;  /* eval_every 0: adaptive */
    double max_time, tol;
} cg_control;
/* the adaptive schedule's share of the wall time spent on evaluations */
#define CG_EVAL_BUDGET 0.1

void   cg_trace_init(cg_trace *tr, int cap);
void   cg_trace_push(cg_trace *tr, int iter, double epoch, double time, double obj,
                     double gap, double infeas, double n_grad, double n_lmo,
                     double n_matvec, int svd_rank);
SEXP   cg_trace_to_list(const cg_trace *tr);   /* PROTECTs nothing on exit */

double cg_clock(void);                           /* monotonic seconds */
/* TRUE if the user pressed Ctrl-C; never longjmps, so solvers can return
 * the iterate they have. */
int    cg_interrupted(void);
/* body(data) under R_tryCatch for errors and interrupts: neither longjmps
 * past the caller (the fit is kept). *caught: CG_OK, CG_ERR_INTERRUPT or
 * CG_ERR_R (an R error; the condition object is returned). */
SEXP   cg_try(SEXP (*body)(void *), void *data, int *caught);
/* cg_interrupted() at most every 50 ms, and only while polling is on (during
 * a solve; kernels called otherwise are never cut short): cheap enough for
 * every product inside a kernel. cg_interrupt_polling sets polling on or
 * off and returns the previous setting. */
int    cg_interrupt_poll(void);
int    cg_interrupt_polling(int on);
/* The run's time limit inside long kernels: while a deadline (cg_clock()
 * time) is set, a Lanczos run (RSpectra) past it stops at its next product
 * with CG_ERR_TIMEOUT. Set by cg_solve_split around the iteration of a
 * problem with timed_steps (evaluations are never cut); R_PosInf clears it. */
void   cg_kernel_deadline(double when);
int    cg_kernel_past_deadline(void);
void   cg_progress(const cg_control *ctl, double *last, int iter, double time,
                   double obj, int eval_iter, int final);

/* ---------------------------------------------------------- problems */
enum { CG_BATCH_FULL = -1, CG_BATCH_DEFAULT = 0 };
enum { CG_BLOCK_X = 0, CG_BLOCK_Y = 1 };

typedef struct cg_problem cg_problem;

/* A solver loop's own state, for an exact continuation (init =): what the
 * loop carries from one iteration to the next besides the problem's
 * iterate, in one form for every loop, so that the dispatcher alone moves
 * it between R and C (dispatch.c): the scalars below as the spec's and the
 * result's "state_loop" (a numeric vector in field order) and named double
 * arrays as their "state_solver" (a named list). A loop with scalar state
 * starts from the fields when `resumed` (else from its options) and sets
 * `saved` when it ends; a loop with array state reads them with
 * cg_loop_array and saves them with cg_loop_save_array. */
#define CG_LOOP_ARRAYS 4
typedef struct {
    int resumed, saved;
    int stage;          /* svrgcg: the epoch s; scgs: iterations since the last restart */
    int pos;            /* svrgcg: inner iterations done in epoch s; vr: in the outer one */
    double eta, len;    /* svrgcg: step eta and epoch length T, rescaled with mu; vr: eta */
    double c;           /* scg: scg_c; scgs: scgs_c (batch constants, rescaled with mu);
                           sgd: beta, once resolved (<= 0: not yet) */
    double lip;         /* scgs: the smoothness L(mu) */
    SEXP in;            /* the resumed arrays (the spec's state_solver), or R_NilValue */
    int n_out;          /* the arrays to save */
    struct { const char *name; const double *x; R_xlen_t len; } out[CG_LOOP_ARRAYS];
} cg_loop_state;
/* the resumed array `name` (finite, of length len; len < 0: any, see
 * cg_loop_array_length), NULL if the fit saved none; errors before any
 * solving otherwise */
const double *cg_loop_array(const cg_problem *P, const char *name, R_xlen_t len);
R_xlen_t cg_loop_array_length(const cg_problem *P, const char *name);  /* -1: absent */
/* saves x (len values, alive until the .Call returns: R_alloc) as `name` */
void cg_loop_save_array(cg_problem *P, const char *name, const double *x, R_xlen_t len);

/* Operation tables. A problem owns its iterate and its gradient estimator;
 * what a solver loop may ask of it is one small table of hooks per solver
 * family below. A problem fills a static const table for each family it
 * supports and points cg_problem at it; the pointer stays NULL for the
 * others, and a method applies to a problem exactly when the problem
 * provides the table of the method's family (dispatch.c). A new family is a
 * struct here, a pointer in cg_problem and a case in dispatch.c's family
 * check; no solver or problem outside the family changes.
 *
 * gradient(P, batch), in the families that have it: draw the next minibatch
 * of `batch` sample points (CG_BATCH_DEFAULT: the problem's own batch size;
 * CG_BATCH_FULL: all the data, i.e. the exact gradient), form the gradient
 * estimate at the current iterate, and return the number of stochastic
 * gradients used. Status returns are CG_OK or a CG_ERR_* code. */

/* Frank-Wolfe: fw, sfw, scg (cg_solve_fw) */
typedef struct {
    /* the estimate g the LMO reads */
    double (*gradient)(cg_problem *P, int batch);
    /* stores the atom s in P; returns <g, x - s>, the estimated Frank-Wolfe gap */
    double (*lmo)(cg_problem *P);
    /* exact step in [0, 1] toward s for the estimated objective, or < 0 if none */
    double (*line_search)(cg_problem *P);
    /* x <- (1 - gamma) x + gamma s */
    void   (*fw_step)(cg_problem *P, double gamma);
} cg_fw_ops;

/* Projected gradient: the spg baseline (cg_solve_pg) */
typedef struct {
    /* the estimate g the step uses */
    double (*gradient)(cg_problem *P, int batch);
    /* x <- Proj(x - eta g), eta <= 0: the problem's 1/L; returns a status */
    int    (*pg_step)(cg_problem *P, double eta);
} cg_pg_ops;

/* Pairwise Frank-Wolfe over a polytope: pfw (cg_solve_pfw). x is kept as a
 * convex combination of vertices, the gradient exact by cheap updates
 * (CG_BATCH_FULL recomputes it from scratch). After lmo, pair_direction
 * picks the away vertex a (the active one maximizing <g, a>) and returns
 * <g, a - s>, with the weight of a (the largest feasible step) in
 * *gamma_max and the exact line-search step along s - a in *gamma_exact
 * (may exceed gamma_max; Inf where the objective is linear and decreasing). */
typedef struct {
    /* the exact gradient g */
    double (*gradient)(cg_problem *P, int batch);
    /* stores the FW vertex s in P; returns <g, x - s>, the Frank-Wolfe gap */
    double (*lmo)(cg_problem *P);
    /* the away vertex and the step bounds, see above */
    double (*pair_direction)(cg_problem *P, double *gamma_max, double *gamma_exact);
    /* x <- x + gamma (s - a); drop = 1: gamma is a's weight, a leaves exactly */
    void   (*pair_step)(cg_problem *P, double gamma, int drop);
    /* optional (NULL: none), called after each pair step: when the problem
     * judges its work due, a step toward the objective's minimizer on the
     * affine hull of the face of the active vertices, as far as the face
     * allows and only if the objective decreases; returns 1 if x moved
     * (the gradient is then exact again) */
    int    (*face_step)(cg_problem *P);
} cg_pair_ops;

/* Variance-reduced proximal steps: svrgcg (cg_solve_svrgcg) */
typedef struct {
    /* stores the snapshot mean gradient from `batch` samples */
    double (*snapshot)(cg_problem *P, int batch);
    /* the SVRG estimate g at the iterate from `batch` samples */
    double (*vr_gradient)(cg_problem *P, int batch);
    /* A = X - scale (g + grad R_mu(X)), V = weak prox(A), X <- (1 - eta) X + eta V */
    int    (*prox_step)(cg_problem *P, double scale, double eta);
} cg_prox_ops;

/* Conditional gradient sliding, which keeps several points: scgs
 * (cg_solve_scgs), on the problem's dense iterate cg_problem.x */
typedef struct {
    /* the gradient estimate at any point z from `batch` samples, into g */
    double (*gradient_at)(cg_problem *P, const double *z, int batch, double *g);
    /* the set's LMO for direction g as a dense point s; returns a status */
    int    (*lmo_dense)(cg_problem *P, const double *g, double *s);
} cg_sliding_ops;

/* Two blocks, min g(X + Y) + R_X(X) + R_Y(Y) (Garber, Kaplan and Sabach):
 * alt_cgpg, alt_pgcg, cgcg, cgcg_p, altmin (cg_solve_alt). block_point
 * stores the block's new point by a conditional gradient step (prox = 0:
 * argmin R(S) + <S, grad g>) or a proximal step (prox = 1: argmin R(V) +
 * <V, grad g> + eta/2 ||V + S_other - Z||^2, using the other block's point
 * from the same iteration). Both block hooks return the singular triplets
 * computed, or -1 on failure. */
typedef struct {
    /* grad g at X + Y (kept current: exact) */
    double (*gradient)(cg_problem *P, int batch);
    /* a block's conditional gradient or proximal point, see above */
    int    (*block_point)(cg_problem *P, int block, int prox, double eta);
    /* minimizes over one block, the other fixed (cgcg_p's extra step, altmin) */
    int    (*block_exact)(cg_problem *P, int block);
    /* exact step moving both blocks toward their points */
    double (*line_search)(cg_problem *P);
    /* each block <- (1 - gamma) block + gamma point */
    void   (*fw_step)(cg_problem *P, double gamma);
} cg_block_ops;

/* The problem's own iteration (operator splitting, accelerated proximal
 * gradient) under the package's bookkeeping: admm, dual_apg, apg
 * (cg_solve_split). The iteration is the problem's, so its table also
 * names the one method it is. */
typedef struct {
    /* the method this iteration is ("admm", ...) */
    const char *method;
    /* counts one full gradient (the iteration forms its own) */
    double (*gradient)(cg_problem *P, int batch);
    /* one iteration; returns the singular triplets computed, or -1 on failure */
    int    (*split_step)(cg_problem *P);
} cg_split_ops;

/* Homotopy conditional gradient for min f(w) s.t. A w in K, w in a
 * spectrahedron W (paper 003, template (2)): cgal, hsagcgm_v1, and through
 * `rows` hsagcgm_v2, h1sfw, hspider (cg_solve_homotopy). The
 * problem keeps w, A w and the multipliers y of the constraints; beta is the
 * penalty of the augmented term, beta/2 dist(A w + y/beta, K)^2. Objective,
 * infeasibility and the dual bound are in the problem's original units. */
typedef struct {
    /* v <- grad f(w) + A'(y + beta (A w - proj_K(A w + y / beta))) */
    double (*gradient)(cg_problem *P, double beta);
    /* stores s = LMO_W(v); returns a status */
    int    (*lmo)(cg_problem *P);
    /* w <- w + eta (s - w), A w kept current */
    void   (*step)(cg_problem *P, double eta);
    /* ||r||, r = A w - proj_K(A w + y / beta), then y <- y + sigma r when
     * sigma ||r||^2 <= bound (else sigma = bound / ||r||^2); bound <= 0: y
     * unchanged. Returns ||r||. Also called, with bound 0, by the methods
     * that keep no multipliers (y = 0; adaptive beta0) */
    double (*dual_step)(cg_problem *P, double beta, double sigma, double bound);
    /* dist(A w, K); *scale: what tol measures it against (e.g. ||b||) */
    double (*infeasibility)(cg_problem *P, double *scale);
    /* the rows the sampling methods draw from (NULL if unsupported) */
    const struct cg_rows_ops *rows;
    /* a stochastic f (NULL where f is exact, as in the SDPs): refresh f's
     * estimator at w from the problem's own minibatch, before gradient()
     * reads it; rho = 0: H-SAG-CGM's SAG table, rho in (0, 1]: SHCGM's
     * average d <- (1 - rho) d + rho (minibatch gradient). Returns the
     * samples drawn. shcgm applies only where this hook is set, cgal only
     * where dual_step is */
    double (*refresh_loss)(cg_problem *P, double rho);
} cg_homotopy_ops;

/* The constraint rows l = 0..m-1 that hsagcgm_v2, h1sfw and hspider sample
 * (rows a problem keeps exact, like the sparsest cut's one equality, stay
 * out): the residual r_l = a_l'w - proj_K_l(a_l'w) and the adjoint of one
 * row. The estimators (est_rows.c) build E, an estimate of sum_l a_l
 * penalty r_l (an array of the gradient's length), and the problem
 * completes v = grad f + its exact rows' term + E. */
struct cg_rows_ops {
    /* m (a double: n^3 rows overflow int); the gradient's length into *len */
    double (*count)(cg_problem *P, size_t *len);
    /* r_l at the iterate (prev = 0) or the one before the last step (prev = 1,
     * kept only for hspider) */
    double (*residual)(cg_problem *P, double l, int prev);
    /* G += coef a_l, row l's symmetric form */
    void   (*add_row)(cg_problem *P, double l, double coef, double *G);
    /* v <- grad f + the exact rows' term at penalty + E; `epochs` passes
     * over the m rows went into E */
    void   (*set_gradient)(cg_problem *P, double penalty, const double *E, double epochs);
};
typedef struct cg_rows_ops cg_rows_ops;

/* Estimators of the sampled rows' term E (est_rows.c), one per method. Rows
 * are drawn uniformly with replacement through R's RNG. The SAG table holds
 * penalty r_l from each row's last draw: dense when m <= 2 len, else hashed
 * over its nonzero entries (memory grows with the rows drawn while active,
 * never m). Each returns the row residuals evaluated. */
typedef struct {
    double m; size_t len;
    double *E;                       /* the estimate (len) */
    double *dense;                   /* SAG table, dense (m values), or NULL */
    unsigned long long *keys;        /* ... hashed: key l + 1 (0 = empty) */
    double *vals;
    size_t cap, used;
} cg_rows_est;
/* sag: whether the method keeps a SAG table */
void   cg_rows_est_init(cg_rows_est *e, cg_problem *P, int sag);
/* hsagcgm_v2: redraw `batch` rows' table entries at the iterate */
double cg_rows_sag(cg_rows_est *e, cg_problem *P, double penalty, double batch);
/* h1sfw: E <- (1 - rho) E + rho (m / batch) sum_drawn a_l penalty r_l */
double cg_rows_momentum(cg_rows_est *e, cg_problem *P, double penalty, double rho,
                        double batch);
/* hspider: batch >= m: E <- sum_l a_l penalty r_l (a full pass); else
 * E += (m / batch) sum_drawn a_l (penalty r_l(w) - prev_penalty r_l(w_prev)) */
double cg_rows_spider(cg_rows_est *e, cg_problem *P, double penalty, double prev_penalty,
                      double batch);
/* the SAG table's stored entries (nonzero ones when hashed; m when dense) */
double cg_rows_stored(const cg_rows_est *e);
/* The estimator's state for an exact continuation (init =), as the loop's
 * arrays (cg_loop_state): save puts E and the SAG table (its nonzero
 * entries when hashed) among them; load reads them back into a fresh
 * estimator and returns 1, or 0 when the fit saved none (the estimator
 * starts empty). */
void   cg_rows_est_save(const cg_rows_est *e, cg_problem *P);
int    cg_rows_est_load(cg_rows_est *e, const cg_problem *P);

/* Smoothed problems (smooth.c), for the fw, prox and sliding loops while
 * mu > 0: not a method family. The best gradient the solver may use is the
 * exact one when the problem holds the data, else the last snapshot's. Gap
 * plus residual at x bound objective - optimum of the stated problem. */
typedef struct {
    /* the smoothed FW gap at x from the best gradient the solver may use, NA if none */
    double (*smooth_gap)(cg_problem *P);
    /* the dual residual at x */
    double (*smooth_residual)(cg_problem *P);
} cg_smooth_ops;

/* Stochastic matrix factorization (paper 002): vr, smm, sgd (cg_solve_smf).
 * The problem keeps the dictionary W (d x k) and solves the sub-problem (2)
 * of each data column it reads (BSUM, smf.h), keeping only running sums of
 * the solutions. V is the gradient estimate the next step uses. Counts
 * returned are sub-problems solved. */

typedef struct {
    /* W0 <- W, G0 <- grad g(W0) from every column (Alg. 1, lines 4-5) */
    double (*snapshot)(cg_problem *P);
    /* V <- the variance-reduced estimate from `batch` columns (lines 7-10) */
    double (*vr_gradient)(cg_problem *P, int batch);
    /* V <- the minibatch gradient at W, with the batch's statistics */
    double (*minibatch)(cg_problem *P, int batch);
    /* W <- prox_{eta psi + delta_C}(W - eta V); returns a status */
    int    (*prox_step)(cg_problem *P, double eta);
    /* smm: A_t, B_t += the batch's; W <- the surrogate's minimizer over C */
    int    (*surrogate_step)(cg_problem *P);
    /* L = lambda_max(mean h h') + psi's curvature, of the last statistics */
    double (*curvature)(cg_problem *P);
    /* option I: use = 0 keeps W with probability 1/count (a reservoir
     * sample of the iterates); use = 1 puts the kept one back into W */
    void   (*output)(cg_problem *P, double count, int use);
    /* vr: 1 when the objective changed by at most ftol (relative) over each
     * of the last two outer iterations (spec smf_ftol > 0; 0: never) */
    int    (*flat)(cg_problem *P);
} cg_smf_ops;

struct cg_problem {
    void *self;
    /* shared by every family (the run's bookkeeping, solve_run.c): */
    /* full objective and full Frank-Wolfe gap at x (trace-only work) */
    void   (*evaluate)(cg_problem *P, double *obj, double *gap);
    /* fraction of the data seen so far (epochs) */
    double (*epoch)(cg_problem *P);
    /* products with operators so far */
    long   (*n_matvec)(cg_problem *P);
    /* NULL, or frees the problem's memory outside R's heap: called once when
     * the solve ends, on every path (an R error included; dispatch.c) */
    void   (*release)(cg_problem *P);
    /* one table per solver family, NULL where the problem does not support it */
    const cg_fw_ops      *fw;
    const cg_pg_ops      *pg;
    const cg_pair_ops    *pair;
    const cg_prox_ops    *prox;
    const cg_sliding_ops *sliding;
    const cg_block_ops   *block;
    const cg_split_ops   *split;
    const cg_homotopy_ops *homotopy;
    const cg_smf_ops     *smf;
    const cg_smooth_ops  *smooth;       /* smoothed problems (mu > 0) */
    /* the dense iterate (length dim) of problems with a sliding table */
    double *x;
    size_t dim;
    int    svd_rank;          /* rank of the last SVD done in an iteration */
    /* iterations done before this run by the fit it resumes (init =; set
     * by the dispatcher from the spec's iter_offset before the problem is
     * built): step rules and the homotopy schedules count on from them */
    int    iter_offset;
    /* a warm start from the fit of another problem (another radius, data):
     * the Frank-Wolfe step schedules enter where their step equals the
     * exact line search's at the start, if that is earlier than
     * iter_offset (solve_fw.c) */
    int    warm_start;
    /* a warm-started run: the objective at the cold start (e.g. at 0), the
     * scale of tol when larger than the warm start's own (an optimum near
     * zero, reached by the fit it starts from, would leave no scale); 0:
     * none */
    double cold_objective;
    /* nonzero: the split step's kernels may be cut at the run's time limit
     * (CG_ERR_TIMEOUT, recorded by cg_fail_status as a max_time stop); the
     * problem then keeps its last complete iterate */
    int    timed_steps;
    /* nonzero: the gap P->evaluate returns is already scale-free (relative to
     * a reference the problem states) and tol bounds it directly, instead of
     * tol times the objective (stochastic_mf's stationarity measure) */
    int    gap_relative;
    /* seconds of trace-only evaluations allowed even past CG_EVAL_BUDGET of
     * the wall time (0: none): for fits whose trace is the only sign of
     * convergence (stochastic_mf at tol = 0, where a whole fit can take
     * 0.05 s and the budget alone kept 2 rows) */
    double eval_free;
    /* the fewest iterations between two tests (0: none), for problems whose
     * test (a full evaluation) reads all the data from a file while an
     * iteration reads a minibatch: set from the data's dimensions and the
     * batch only (never from timing, nor from where the data are), so that
     * set.seed() reproduces where a run stops (a reader: one pass drawn per
     * test, prob_regression.c) */
    int    test_every_min;
    /* nonzero: no trace-only evaluations (only tests and the start and end
     * rows), while an evaluation reads all the data from a file and changes
     * nothing (a reader; read after every iteration, so a problem may clear
     * it when its evaluations become cheap) */
    int    trace_rows_off;
    /* set by the run before each P->evaluate: 1 when the run may stop on
     * that evaluation (a test), 0 for a trace-only row; a problem may spend
     * less on rows that cannot stop the run (covariance) */
    int    eval_test;
    /* the run's tol (control), set before the problem is built: a problem
     * may choose cheaper arithmetic whose rounding is far below what tol
     * asks (prob_regression.c, the Gram gradient) */
    double tol;
    /* The run's first failure (cg_fail, cg_fail_status): CG_STOP_ERROR with
     * its reason in `failure`, or CG_STOP_INTERRUPT; 0 while none. Problems
     * record it where they detect it, solvers stop at their next check and
     * keep the last complete iterate. */
    int    stop;
    char   failure[512];
    /* Smoothed problems (smooth.c): mu > 0 is the current smoothing
     * parameter of the nonsmooth term (0: not smoothed), read by the
     * problem's gradients and changed only by cg_smoothing_update
     * (continuation, when mu_auto; mu0 is the starting value). The
     * smoothness is lip_loss + lip_reg / mu. The smooth table's gap and
     * residual at x sum to a bound on objective - optimum of the stated
     * problem. */
    double mu, mu0, lip_loss, lip_reg;
    int    mu_auto;
    /* homotopy: the beta0 of the last iteration (adaptive beta0 rescales it) */
    double beta0_used;
    /* the solver loop's own state (svrgcg, scg, scgs, vr, sgd; the
     * homotopy row estimators' arrays): see cg_loop_state. Read by the
     * dispatcher before the problem is built (smf keeps vr's snapshot
     * while loop.pos > 0). */
    cg_loop_state loop;
};

/* problem constructors (prob_*.c): unpack the R spec, allocate with R_alloc,
 * set the shared hooks and the tables of the families the spec supports */
int  cg_problem_regression(cg_problem *P, SEXP spec);
int  cg_problem_completion(cg_problem *P, SEXP spec);
int  cg_problem_lowrank(cg_problem *P, SEXP spec);
/* put the solution into a named R list (PROTECTs nothing on exit) */
SEXP cg_regression_solution(cg_problem *P);
SEXP cg_regression_beta(cg_problem *P);
void cg_regression_restart(cg_problem *P, double radius);
SEXP cg_completion_solution(cg_problem *P);
SEXP cg_lowrank_solution(cg_problem *P);
int  cg_problem_robust(cg_problem *P, SEXP spec);
SEXP cg_robust_solution(cg_problem *P);
/* sparse_covariance(): floored l1 covariance, optionally + low-rank part */
int  cg_problem_covariance(cg_problem *P, SEXP spec);
SEXP cg_covariance_solution(cg_problem *P);
/* the support list of a coefficient vector (sets_vector.c) */
void cg_support_update(int *support, int *in_support, int *n_support, const double *theta,
                       int j);
/* The SDP problems' shared evaluation (prob_sdp.c): objective and the gap
 * to the best certified Lagrangian lower bound seen, form() filling V for
 * each pass's multipliers and returning <u, b>; *best_lb (normalized
 * units, -Inf at the start) is the best bound of the run's test
 * evaluations, part of the resumable state (cg_sdp_best_lb reads it) */
typedef struct {
    int n; const double *C, *W; double *V;
    double obj_scale; int trace_eq; double beta; int passes;
    double (*form)(void *self, int pass); void *self; long *n_matvec;
    double *best_lb;
} cg_sdp_eval;
void cg_sdp_evaluate(cg_problem *P, const cg_sdp_eval *e, double *obj, double *gap);
double cg_sdp_best_lb(SEXP spec);
/* kmeans_sdp(): the Peng-Wei k-means SDP */
int  cg_problem_kmeans(cg_problem *P, SEXP spec);
SEXP cg_kmeans_solution(cg_problem *P);
/* sdp_solve(): min <C, X> s.t. <A_i, X> = / <= b_i, X psd, tr X = / <= alpha */
int  cg_problem_sdp(cg_problem *P, SEXP spec);
SEXP cg_sdp_solution(cg_problem *P);
/* sparsest_cut_sdp(): paper 003 eq. (22), triangle inequalities by index */
int  cg_problem_cut(cg_problem *P, SEXP spec);
SEXP cg_cut_solution(cg_problem *P);
/* stochastic_mf(): paper 002, problem (3) with models P1-P8 */
int  cg_problem_smf(cg_problem *P, SEXP spec);
SEXP cg_smf_solution(cg_problem *P);
/* sparse_regression(family = "binomial", "poisson"; weighted or partly
 * unpenalized gaussian on a sparse X): prob_glm.c */
int  cg_problem_glm(cg_problem *P, SEXP spec);
SEXP cg_glm_solution(cg_problem *P);
SEXP cg_glm_beta(cg_problem *P);      /* a CV fold path's lean result */
void cg_glm_restart(cg_problem *P, double radius);

/* ---------------------------------------------------------- solvers */
typedef struct {
    int method;          /* CG_METHOD_* */
    int step_rule;       /* CG_STEP_* */
    int K;               /* sFW step parameter */
    double eta;          /* projected-gradient / SVRGCG step (<= 0: default) */
    /* SVRGCG (Garber and Kaplan 2019, Alg. 1-2) */
    int inner;           /* T: inner iterations per epoch */
    int batch_inner;     /* k_t */
    double batch_snapshot; /* k_1 (doubles each epoch); <= 0: full data */
    double scale;        /* 1 / (2 beta eta) */
    /* SCG (Hazan and Luo 2016): batch ceil(scg_c (t + 1)^2) */
    double scg_c;
    /* SCGS (Lan and Zhou 2016): smoothness L, squared diameter D^2 of the
     * set and batch ceil(scgs_c (k + 2)^3), scgs_c = sigma^2 / (L^2 D^2) */
    double lipschitz, diam2, scgs_c;
    /* two-block methods: step eta_t = eta0 for t <= t0, then
     * eta_a / (t - t0 + eta_c); line search (step rule) sets the convex
     * combination, eta_t the proximal step */
    double eta0, eta_a, eta_c;
    int t0;
    /* homotopy methods: beta0 (cgal: penalty beta0 sqrt(t + 1); the others:
     * smoothing beta0 / sqrt(k + 1), h1sfw beta0 / (k + 1)^(1/6)) and the
     * rows drawn per iteration by hsagcgm_v2 and h1sfw */
    double beta0;
    int batch_constraints;
    /* > 0: adaptive beta0 (hsagcgm_v1's "auto"), lowered at k = 128, 256,
     * ... toward beta0_adapt / ||y_k|| (cg_solve_homotopy); 0: fixed */
    double beta0_adapt;
    /* stochastic matrix factorization (inner: m, batch_inner: b, eta: the
     * vr step, <= 0: 1 / curvature at the first snapshot); sgd steps
     * gamma_t = sgd_beta / (b t + sgd_beta_prime) (<= 0: automatic);
     * smf_output 1 or 2: Algorithm 1's option I or II */
    double sgd_beta, sgd_beta_prime;
    int smf_output;
} cg_solver_opts;

/* The methods, each a row of dispatch.c's method table (indexed by these).
 * Solver loops shared by several methods tell them apart by equality. */
enum { CG_METHOD_FW, CG_METHOD_SFW, CG_METHOD_SPG, CG_METHOD_SVRGCG, CG_METHOD_SCG,
       CG_METHOD_SCGS, CG_METHOD_ALT_CGPG, CG_METHOD_ALT_PGCG, CG_METHOD_CGCG,
       CG_METHOD_CGCG_P, CG_METHOD_ALTMIN, CG_METHOD_PFW, CG_METHOD_ADMM,
       CG_METHOD_DUAL_APG, CG_METHOD_APG, CG_METHOD_CGAL, CG_METHOD_HSAGCGM_V1,
       CG_METHOD_HSAGCGM_V2, CG_METHOD_H1SFW, CG_METHOD_HSPIDER, CG_METHOD_SHCGM,
       CG_METHOD_VR, CG_METHOD_SMM, CG_METHOD_SGD,
       CG_METHOD_COUNT };
enum { CG_STEP_LINE_SEARCH = 0, CG_STEP_STANDARD = 1, CG_STEP_SFW = 2 };
enum { CG_STOP_MAX_ITER = 0, CG_STOP_TOL = 1, CG_STOP_TIME = 2,
       CG_STOP_INTERRUPT = 3, CG_STOP_ERROR = 4 };

/* one run's bookkeeping (solve_run.c), shared by all solver loops */
typedef struct {
    const cg_control *ctl;
    cg_trace *tr;
    double t0, paused, n_grad, n_lmo, obj, gap, last_progress;
    double infeas, infeas_scale;  /* homotopy: dist(A w, K) at the last evaluation
                                     and its tol scale; NA, 0 otherwise */
    double obj0;             /* the objective at the start: scale of tol */
    int gap_relative;        /* P->gap_relative: tol bounds the gap itself */
    double eval_free;        /* P->eval_free */
    int test_min;            /* P->test_every_min */
    int trace_off;           /* P->trace_rows_off */
    double obj_test;         /* ... and at the last test (see eval_due) */
    int offset;              /* P->iter_offset: the schedule of tests counts
                                the resumed fit's iterations (global) */
    int last_test;           /* (global iteration) */
    double eval_cost;        /* seconds the last evaluation took */
    int last_eval;
    int last_eval_failed;    /* the last evaluation was trace-only and would
                                have failed: only a test may end the run */
} cg_run;

/* evaluates at iteration 0; returns a CG_STOP_* code (failure, or a
 * resumed fit that meets tol at a scheduled test) or -1 */
int    cg_run_start(cg_run *r, cg_problem *P, const cg_control *ctl, cg_trace *tr);
double cg_run_elapsed(const cg_run *r);
/* pushes a trace row; a non-finite objective or gap (NA means unknown) is a
 * failure (of a test: trace-only rows, made when time allows, never end a
 * run, see evaluate()) */
void   cg_run_evaluate(cg_run *r, cg_problem *P, int iter);
int    cg_run_small_gap(const cg_run *r, double gap);
/* scheduled evaluation, failure, progress, time and interrupt checks after
 * iteration t (gap_stop: test evaluations are scheduled, and the run stops
 * when the evaluated gap is small; 0 for loops that confirm their own exact
 * gaps: trace rows only); returns a
 * CG_STOP_* code or -1 to continue */
int    cg_run_after_iter(cg_run *r, cg_problem *P, int t, int gap_stop);
/* final evaluation and progress line; returns the run's stop code: `stop`
 * (-1: the loop ran out of iterations), or CG_STOP_TOL when the final
 * evaluation meets the tolerance after max_iter or max_time */
int    cg_run_finish(cg_run *r, cg_problem *P, int iters, int stop);

/* The failure channel shared by problems and solvers: the first failure is
 * the cause and is kept, later ones are dropped. cg_fail records an error
 * with a message saying what went wrong (printf format); cg_fail_status a
 * kernel status (CG_ERR_*) of `what` ("the linear minimization oracle"),
 * CG_ERR_INTERRUPT as an interrupt. cg_run_failed returns P->stop if set,
 * else -1. cg_gap_failed is for trace-only gaps: a Lanczos run that did not
 * converge leaves the gap unknown (returns NA), overflow and Ctrl-C stop. */
void   cg_fail(cg_problem *P, const char *fmt, ...);
/* the advice that ends an overflow message */
#define CG_OVERFLOW_HINT "overflowed double precision (the data or the radius are too " \
    "large: scale them)"
void   cg_fail_status(cg_problem *P, int status, const char *what);
int    cg_run_failed(const cg_problem *P);
double cg_gap_failed(cg_problem *P, int status);
/* A user's R function: `call` (its argument already set) evaluated in rho
 * under cg_try, R's RNG state handed over and back. Returns its value as a
 * PROTECTed nrow x ncol double matrix of finite values (the caller
 * unprotects it), or R_NilValue with the failure recorded in P (an R error,
 * Ctrl-C, a wrong shape or a non-finite value). `what` names the function
 * in messages, `which` the call ("its call 3 by the solver (k = 2)"). */
SEXP   cg_call_user_matrix(cg_problem *P, SEXP call, SEXP rho, int nrow, int ncol,
                           const char *what, const char *which);

/* continuation step (smooth.c): returns 1 if mu changed */
int    cg_smoothing_update(cg_problem *P, double smoothed_gap);
double cg_smooth_lipschitz(const cg_problem *P);
/* smoothed problems: a solver checks continuation every CG_SMOOTH_CHECK
 * iterations (SVRGCG: at each snapshot) */
#define CG_SMOOTH_CHECK 10

/* Every solver loop has this signature (a row of dispatch.c's method
 * table): runs the method o->method on P within ctl's limits, recording
 * into tr; puts the iterations done into *iters and returns a CG_STOP_*
 * code. Each loop calls only its family's table (and the shared hooks). */
typedef int cg_solver(cg_problem *P, const cg_solver_opts *o, const cg_control *ctl,
                      cg_trace *tr, int *iters);
cg_solver cg_solve_fw;       /* fw, sfw, scg: the fw table */
cg_solver cg_solve_pg;       /* spg: the pg table */
cg_solver cg_solve_pfw;      /* pfw: the pair table */
cg_solver cg_solve_svrgcg;   /* svrgcg: the prox table */
cg_solver cg_solve_scgs;     /* scgs: the sliding table */
cg_solver cg_solve_alt;      /* alt_cgpg, alt_pgcg, cgcg, cgcg_p, altmin: block table */
cg_solver cg_solve_split;    /* admm, dual_apg, apg: the split table */
cg_solver cg_solve_homotopy; /* cgal, hsagcgm_v1/v2, h1sfw, hspider, shcgm: the homotopy table */
cg_solver cg_solve_smf;      /* vr, smm, sgd: the smf table */

/* ---------------------------------------------------------- helpers */
SEXP cg_list_get(SEXP list, const char *name);   /* R_NilValue if absent */
int  cg_lookup(const char *name, const char *const *table, int n, const char *what);
/* Arrays of a spec (dispatch.c), read-only: no solver writes into R's data,
 * and a read-only pointer never makes R materialize a copy of an ALTREP
 * vector. Type and length are checked (len < 0: any length); index arrays
 * also lie in lo..hi, and compressed-storage pointers (n + 1 of them) start
 * at 0, do not decrease and end at nnz, so no spec can make a kernel read or
 * write out of bounds. */
const double *cg_spec_real(SEXP spec, const char *name, R_xlen_t len);
/* an optional double scalar (a resumed fit's state_*): `absent` if missing */
double        cg_spec_scalar(SEXP spec, const char *name, double absent);
const int    *cg_spec_index(SEXP spec, const char *name, R_xlen_t len, int lo, int hi);
const int    *cg_spec_pointers(SEXP spec, const char *name, int n, R_xlen_t nnz);

#endif
