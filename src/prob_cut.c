/* The uniform sparsest cut SDP of paper 003, eq. (22) (Arora, Rao and
 * Vazirani's relaxation in the template (2)):
 *   min <L, X>  s.t.  n tr X - <J, X> = n^2 / 2,
 *                     X_ij + X_jk - X_ik - X_jj <= 0  for all i, j, k,
 *                     X psd, tr X <= n,
 * L the graph Laplacian, J the all-ones matrix. The triangle inequalities
 * are never stored as an operator: their values come from X by index. Each
 * distinct one is a row: l = p (n - 2) + r for the pair p = (i, k), i < k
 * (pairs in column-major upper-triangle order), and j the r-th node other
 * than i and k; (i, j, k) and (k, j, i) are the same inequality, and those
 * with j in {i, k} hold for every psd X. So there are m = n (n - 1)(n - 2)
 * / 2 rows (3 per node triple, as in paper 003, Table S1). Only cgal keeps
 * their multipliers (m doubles: 32 MB at n = 200). Normalized units as in
 * prob_kmeans.c: W = X / n (tr W <= 1), C = L / ||L||_F, the equality row
 * scaled by 1 / ||n I - J||_F / sqrt(2) and the triangle rows by c3 = 1 /
 * (2 sqrt(n^2 + 3n)) (||T W||^2 <= 2 (n^2 + 3n) ||W||_F^2 for the map T of
 * the m rows), so that the whole map has norm at most 1. A full pass over
 * the rows costs O(n^3); the sampling methods draw triangle rows and keep
 * the one equality row exact (O(n^2) per iteration, like the LMO). */
#include "stochcg.h"
#include <string.h>
#include <math.h>

typedef struct {
    int n;
    const double *C;
    double a_eq, b_eq, c3;      /* equality row a_eq (n tr W - <J, W>) = b_eq; triangle scale */
    double obj_scale, x_scale;  /* <L, X> = obj_scale <C, W>; X = x_scale W */
    double m;                   /* triangle rows */
    int *pi, *pk;               /* the pairs i < k, by pair index */
    double *W, *V, *Y, *s;      /* iterate, gradient, triangle multipliers (cgal), atom */
    double *W_prev;             /* hspider: W before the last step */
    double y_eq, u_eq, z_eq;    /* equality multiplier, its gradient use, its value */
    int zero_atom;
    double beta, passes;
    double best_lb;        /* the best certified lower bound (cg_sdp_evaluate) */
    long n_matvec;
} cut;

static double eq_value(const cut *q)
{
    const int n = q->n;
    double tr = 0.0, all = 0.0;
    for (int i = 0; i < n; i++) tr += q->W[i + (size_t) i * n];
    for (size_t e = 0; e < (size_t) n * n; e++) all += q->W[e];
    return q->a_eq * (n * tr - all);
}

/* the nodes (i, j, k) of triangle row l */
static void row_nodes(const cut *q, double l, int *i, int *j, int *k)
{
    const double per = q->n - 2.0;
    const double p = floor(l / per);
    int r = (int) (l - p * per);
    *i = q->pi[(size_t) p]; *k = q->pk[(size_t) p];
    if (r >= *i) r++;
    if (r >= *k) r++;
    *j = r;
}

/* scaled triangle value c3 (W_ij + W_jk - W_ik - W_jj) */
static double tri_value(const cut *q, const double *W, int i, int j, int k)
{
    const int n = q->n;
    return q->c3 * (W[i + (size_t) j * n] + W[j + (size_t) k * n] - W[i + (size_t) k * n]
                    - W[j + (size_t) j * n]);
}

/* G += u T_ijk, the symmetric form of the scaled triangle row */
static void add_triangle(const cut *q, double *G, int i, int j, int k, double u)
{
    const int n = q->n;
    const double h = 0.5 * q->c3 * u;
    G[i + (size_t) j * n] += h; G[j + (size_t) i * n] += h;
    G[j + (size_t) k * n] += h; G[k + (size_t) j * n] += h;
    G[i + (size_t) k * n] -= h; G[k + (size_t) i * n] -= h;
    G[j + (size_t) j * n] -= 2.0 * h;
}

/* G += u_eq a_eq (n I - J), the equality row */
static void add_equality(const cut *q, double *G, double u_eq)
{
    const int n = q->n;
    for (size_t e = 0; e < (size_t) n * n; e++) G[e] -= u_eq * q->a_eq;
    for (int i = 0; i < n; i++) G[i + (size_t) i * n] += u_eq * q->a_eq * n;
}

/* The full passes below visit the rows in row order: pairs i < k (k
 * outer), then j, skipping j in {i, k}; l counts them. */

/* V = C + A'(u): u_eq on the equality row, and on each triangle row
 * max(Y + beta z, 0) (beta > 0), or max(Y, 0) (beta = 0: the dual
 * iterate); Y = 0 without multipliers. Returns <u, b> (only the equality
 * row has b != 0) */
static double form_gradient(cut *q, double beta, double u_eq)
{
    memcpy(q->V, q->C, (size_t) q->n * q->n * sizeof(double));
    add_equality(q, q->V, u_eq);
    size_t l = 0;
    for (int k = 1; k < q->n; k++)
        for (int i = 0; i < k; i++)
            for (int j = 0; j < q->n; j++) {
                if (j == i || j == k) continue;
                const double y = q->Y ? q->Y[l] : 0.0;
                const double u = beta > 0.0 ? y + beta * tri_value(q, q->W, i, j, k) : y;
                if (u > 0.0) add_triangle(q, q->V, i, j, k, u);
                l++;
            }
    return u_eq * q->b_eq;
}

static double cut_gradient(cg_problem *P, double beta)
{
    cut *q = (cut *) P->self;
    q->z_eq = eq_value(q);
    q->u_eq = q->y_eq + beta * (q->z_eq - q->b_eq);
    form_gradient(q, beta, q->u_eq);
    q->beta = beta;
    q->passes += 1.0;
    return 1.0;
}

/* ---- the triangle rows for the sampling methods: residual max(z, 0) */
static double cut_rows(cg_problem *P, size_t *len)
{
    cut *q = (cut *) P->self;
    *len = (size_t) q->n * q->n;
    return q->m;
}

static double cut_residual(cg_problem *P, double l, int prev)
{
    cut *q = (cut *) P->self;
    int i, j, k;
    row_nodes(q, l, &i, &j, &k);
    const double z = tri_value(q, prev ? q->W_prev : q->W, i, j, k);
    return z > 0.0 ? z : 0.0;
}

static void cut_add_row(cg_problem *P, double l, double coef, double *G)
{
    cut *q = (cut *) P->self;
    int i, j, k;
    row_nodes(q, l, &i, &j, &k);
    add_triangle(q, G, i, j, k, coef);
}

/* the equality row exact, with no multiplier: penalty (z_eq - b_eq) */
static void cut_set_gradient(cg_problem *P, double penalty, const double *E, double epochs)
{
    cut *q = (cut *) P->self;
    const size_t nn = (size_t) q->n * q->n;
    q->z_eq = eq_value(q);
    q->u_eq = penalty * (q->z_eq - q->b_eq);
    for (size_t e = 0; e < nn; e++) q->V[e] = q->C[e] + E[e];
    add_equality(q, q->V, q->u_eq);
    q->beta = penalty;
    q->passes += epochs;
}

/* the vertex s s' of {tr W <= 1}, or 0 when lambda_min(V) >= 0. Every
 * term of V (L, n I - J, each triangle row) has V 1 = 0, and adding t 11'
 * to W changes neither the objective nor a constraint: the optimum is
 * attained with W 1 = 0. So the LMO runs on V + J, whose eigenvalue n on 1
 * keeps it off that direction; on V alone the tie lambda = 0 between 11' / n
 * and 0 was decided by rounding, spending trace on nothing. */
static int cut_lmo(cg_problem *P)
{
    cut *q = (cut *) P->self;
    for (size_t e = 0; e < (size_t) q->n * q->n; e++) q->V[e] += 1.0;
    cg_linop A; cg_dense_data d;
    cg_linop_dense(&A, &d, q->V, q->n, q->n);
    double val;
    const int ret = cg_lmo_psd(&A, 1.0, 0, q->s, &val);
    q->n_matvec += A.n_matvec;
    q->zero_atom = ret == 0;
    return ret < 0 ? -ret : CG_OK;
}

static void cut_step(cg_problem *P, double eta)
{
    cut *q = (cut *) P->self;
    const int n = q->n;
    if (q->W_prev) memcpy(q->W_prev, q->W, (size_t) n * n * sizeof(double));
    for (size_t e = 0; e < (size_t) n * n; e++) q->W[e] *= 1.0 - eta;
    if (!q->zero_atom)
        for (int j = 0; j < n; j++)
            for (int i = 0; i < n; i++) q->W[i + (size_t) j * n] += eta * q->s[i] * q->s[j];
}

/* y <- y + step r: cgal only (the multipliers exist); the other methods
 * call it for ||r|| alone (bound 0), with y = 0 */
static double cut_dual_step(cg_problem *P, double beta, double sigma, double bound)
{
    cut *q = (cut *) P->self;
    const double z_eq = eq_value(q), r_eq = z_eq - q->b_eq;
    double r2 = r_eq * r_eq;
    size_t l = 0;
    for (int k = 1; k < q->n; k++)
        for (int i = 0; i < k; i++)
            for (int j = 0; j < q->n; j++) {
                if (j == i || j == k) continue;
                const double z = tri_value(q, q->W, i, j, k);
                const double w = z + (q->Y ? q->Y[l++] / beta : 0.0);
                const double r = w < 0.0 ? z - w : z;      /* z - min(w, 0) */
                r2 += r * r;
            }
    if (!(bound > 0.0) || !(r2 > 0.0)) return sqrt(r2);
    const double step = sigma * r2 <= bound ? sigma : bound / r2;
    q->y_eq += step * r_eq;
    l = 0;
    for (int k = 1; k < q->n; k++)
        for (int i = 0; i < k; i++)
            for (int j = 0; j < q->n; j++) {
                if (j == i || j == k) continue;
                const double z = tri_value(q, q->W, i, j, k), w = z + q->Y[l] / beta;
                q->Y[l++] += step * (w < 0.0 ? z - w : z);
            }
    return sqrt(r2);
}

/* in the units of (22), X = n W: the equality residual and the positive
 * parts of the m triangle values, against ||b|| = n^2 / 2 */
static double cut_infeasibility(cg_problem *P, double *scale)
{
    cut *q = (cut *) P->self;
    const int n = q->n;
    const double r_eq = (eq_value(q) - q->b_eq) / q->a_eq * q->x_scale;
    double d2 = r_eq * r_eq;
    for (int k = 1; k < n; k++)
        for (int i = 0; i < k; i++)
            for (int j = 0; j < n; j++) {
                if (j == i || j == k) continue;
                const double z = tri_value(q, q->W, i, j, k) / q->c3 * q->x_scale;
                if (z > 0.0) d2 += z * z;
            }
    *scale = 0.5 * (double) n * n;
    return sqrt(d2);
}

/* objective <L, X>, gap to a certified Lagrangian bound (cg_sdp_evaluate,
 * tr W <= 1) from the last gradient's multipliers and the dual iterate */
static double cut_form(void *self, int pass)
{
    cut *q = (cut *) self;
    const double u_eq = pass == 0 ? q->y_eq + q->beta * (eq_value(q) - q->b_eq) : q->y_eq;
    return form_gradient(q, pass == 0 ? q->beta : 0.0, u_eq);
}

static void cut_evaluate(cg_problem *P, double *obj, double *gap)
{
    cut *q = (cut *) P->self;
    const cg_sdp_eval e = { q->n, q->C, q->W, q->V, q->obj_scale, 0, q->beta, 2,
                            cut_form, q, &q->n_matvec, &q->best_lb };
    cg_sdp_evaluate(P, &e, obj, gap);
}

static double cut_epoch(cg_problem *P) { return ((cut *) P->self)->passes; }
static long cut_n_matvec(cg_problem *P) { return ((cut *) P->self)->n_matvec; }

static const cg_rows_ops cut_rows_ops = {
    cut_rows, cut_residual, cut_add_row, cut_set_gradient
};

static const cg_homotopy_ops cut_homotopy = {
    cut_gradient, cut_lmo, cut_step, cut_dual_step, cut_infeasibility, &cut_rows_ops
};

int cg_problem_cut(cg_problem *P, SEXP spec)
{
    cut *q = (cut *) R_alloc(1, sizeof(cut));
    memset(q, 0, sizeof(cut));
    q->best_lb = R_NegInf;
    SEXP C = cg_list_get(spec, "C");
    if (TYPEOF(C) != REALSXP || !isMatrix(C)) error("spec element 'C' must be a double matrix");
    const int n = INTEGER(getAttrib(C, R_DimSymbol))[0];
    if (n < 3 || INTEGER(getAttrib(C, R_DimSymbol))[1] != n) error("spec element 'C' must be square");
    q->n = n; q->C = REAL_RO(C);
    q->obj_scale = asReal(cg_list_get(spec, "obj_scale"));
    if (!(q->obj_scale > 0.0)) error("invalid cut spec");
    q->x_scale = n;
    /* ||n I - J||_F^2 = n (n - 1)^2 + n (n - 1) */
    const double fro = sqrt((double) n * (n - 1.0) * (n - 1.0) + (double) n * (n - 1.0));
    q->a_eq = 1.0 / (fro * sqrt(2.0));
    q->b_eq = q->a_eq * 0.5 * n;          /* n tr W - <J, W> = n / 2 */
    q->c3 = 1.0 / (2.0 * sqrt((double) n * n + 3.0 * n));
    const size_t nn = (size_t) n * n, pairs = (size_t) n * (n - 1) / 2;
    q->m = (double) pairs * (n - 2);
    q->W = cg_zeros(nn); q->V = cg_zeros(nn); q->s = cg_zeros(n);
    q->pi = (int *) R_alloc(pairs, sizeof(int)); q->pk = (int *) R_alloc(pairs, sizeof(int));
    for (int k = 1, p = 0; k < n; k++)
        for (int i = 0; i < k; i++, p++) { q->pi[p] = i; q->pk[p] = k; }
    SEXP method = cg_list_get(spec, "method");
    const char *name = isString(method) ? CHAR(STRING_ELT(method, 0)) : "cgal";
    if (strcmp(name, "cgal") == 0) q->Y = cg_zeros((size_t) q->m);
    if (strcmp(name, "hspider") == 0) q->W_prev = cg_zeros(nn);
    if (!isNull(cg_list_get(spec, "state_W"))) {   /* init = a previous fit: its state */
        memcpy(q->W, cg_spec_real(spec, "state_W", (R_xlen_t) nn), nn * sizeof(double));
        if (q->Y && !isNull(cg_list_get(spec, "state_Y")))
            memcpy(q->Y, cg_spec_real(spec, "state_Y", (R_xlen_t) q->m),
                   (size_t) q->m * sizeof(double));
        if (q->W_prev && !isNull(cg_list_get(spec, "state_W_prev")))     /* hspider's */
            memcpy(q->W_prev, cg_spec_real(spec, "state_W_prev", (R_xlen_t) nn),
                   nn * sizeof(double));
        q->y_eq = asReal(cg_list_get(spec, "state_y_eq"));
        q->beta = asReal(cg_list_get(spec, "state_beta"));
        q->passes = asReal(cg_list_get(spec, "state_passes"));
        q->best_lb = cg_sdp_best_lb(spec);
        if (!cg_all_finite(q->W, nn) || (q->W_prev && !cg_all_finite(q->W_prev, nn)) || (q->Y && !cg_all_finite(q->Y, (size_t) q->m)) ||
            !R_FINITE(q->y_eq) || !R_FINITE(q->beta) || !R_FINITE(q->passes))
            error("spec: invalid resume state");
    }
    P->self = q;
    P->evaluate = cut_evaluate; P->epoch = cut_epoch; P->n_matvec = cut_n_matvec;
    P->homotopy = &cut_homotopy;
    return CG_OK;
}

SEXP cg_cut_solution(cg_problem *P)
{
    cut *q = (cut *) P->self;
    const int n = q->n;
    static const char *names[] = {"X", "state_W", "state_Y", "state_y_eq", "state_beta",
                                  "state_passes", "state_W_prev", "state_best_lb", ""};
    SEXP out = PROTECT(mkNamed(VECSXP, names));
    SEXP X = PROTECT(allocMatrix(REALSXP, n, n));
    for (size_t e = 0; e < (size_t) n * n; e++) REAL(X)[e] = q->x_scale * q->W[e];
    cg_symmetrize(REAL(X), n);
    SET_VECTOR_ELT(out, 0, X);
    /* the resumable state (init = fit): the raw iterate and the multipliers */
    const size_t nn = (size_t) n * n;
    SEXP sW = allocVector(REALSXP, nn); SET_VECTOR_ELT(out, 1, sW);
    memcpy(REAL(sW), q->W, nn * sizeof(double));
    if (q->Y) {
        SEXP sY = allocVector(REALSXP, (R_xlen_t) q->m); SET_VECTOR_ELT(out, 2, sY);
        memcpy(REAL(sY), q->Y, (size_t) q->m * sizeof(double));
    }
    SET_VECTOR_ELT(out, 3, ScalarReal(q->y_eq));
    SET_VECTOR_ELT(out, 4, ScalarReal(q->beta));
    SET_VECTOR_ELT(out, 5, ScalarReal(q->passes));
    if (q->W_prev) {          /* hspider: the iterate before the last step */
        SEXP Wp = allocVector(REALSXP, nn); SET_VECTOR_ELT(out, 6, Wp);
        memcpy(REAL(Wp), q->W_prev, nn * sizeof(double));
    }
    SET_VECTOR_ELT(out, 7, ScalarReal(q->best_lb));
    UNPROTECT(2);
    return out;
}
