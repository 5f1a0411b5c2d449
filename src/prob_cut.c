/* The uniform sparsest cut SDP of paper 003, eq. (22) (Arora, Rao and
 * Vazirani's relaxation in the template (2)):
 *   min <L, X>  s.t.  n tr X - <J, X> = n^2 / 2,
 *                     X_ij + X_jk - X_ik - X_jj <= 0  for all i, j, k,
 *                     X psd, tr X <= n,
 * L the graph Laplacian, J the all-ones matrix. The n^3 triangle
 * inequalities are never stored as an operator: their values come from X by
 * index, and only their multipliers are kept (n^3 doubles: 64 MB at
 * n = 200). Normalized units as in prob_kmeans.c: W = X / n (tr W <= 1),
 * C = L / ||L||_F, the equality row scaled by 1 / ||n I - J||_F / sqrt(2)
 * and the triangle rows by c3 = 1 / (2 sqrt(2 (n^2 + 3n))) (||T W||^2 <=
 * 4 (n^2 + 3n) ||W||_F^2 for the triangle map T), so that the whole map has
 * norm at most 1. One iteration touches every constraint: O(n^3). */
#include "stochcg.h"
#include <string.h>
#include <math.h>

typedef struct {
    int n;
    const double *C;
    double a_eq, b_eq, c3;      /* equality row a_eq (n tr W - <J, W>) = b_eq; triangle scale */
    double obj_scale, x_scale;  /* <L, X> = obj_scale <C, W>; X = x_scale W */
    double *W, *V, *Y, *s;      /* iterate, gradient, triangle multipliers (n^3), atom */
    double y_eq, u_eq, z_eq;    /* equality multiplier, its gradient use, its value */
    int zero_atom;
    double beta, passes;
    long n_matvec;
} cut;

#define TRI(i, j, k, n) ((size_t) (i) + (size_t) (n) * ((size_t) (j) + (size_t) (n) * (size_t) (k)))

static double eq_value(const cut *q)
{
    const int n = q->n;
    double tr = 0.0, all = 0.0;
    for (int i = 0; i < n; i++) tr += q->W[i + (size_t) i * n];
    for (size_t e = 0; e < (size_t) n * n; e++) all += q->W[e];
    return q->a_eq * (n * tr - all);
}

/* scaled triangle value c3 (W_ij + W_jk - W_ik - W_jj) */
static double tri_value(const cut *q, int i, int j, int k)
{
    const int n = q->n;
    const double *W = q->W;
    return q->c3 * (W[i + (size_t) j * n] + W[j + (size_t) k * n] - W[i + (size_t) k * n]
                    - W[j + (size_t) j * n]);
}

/* V = C + A'(u): u_eq on the equality row, and on each triangle row
 * max(Y + beta z, 0) (beta > 0), or max(Y, 0) (beta = 0: the dual
 * iterate); returns <u, b> (only the equality row has b != 0) */
static double form_gradient(cut *q, double beta, double u_eq)
{
    const int n = q->n;
    const size_t nn = (size_t) n * n;
    memcpy(q->V, q->C, nn * sizeof(double));
    /* equality row: a_eq (n I - J) */
    for (size_t e = 0; e < nn; e++) q->V[e] -= u_eq * q->a_eq;
    for (int i = 0; i < n; i++) q->V[i + (size_t) i * n] += u_eq * q->a_eq * n;
    const double h = 0.5 * q->c3;
    for (int k = 0; k < n; k++) {
        for (int j = 0; j < n; j++) {
            for (int i = 0; i < n; i++) {
                const size_t t = TRI(i, j, k, n);
                double u = beta > 0.0 ? q->Y[t] + beta * tri_value(q, i, j, k) : q->Y[t];
                if (!(u > 0.0)) continue;
                u *= h;
                q->V[i + (size_t) j * n] += u; q->V[j + (size_t) i * n] += u;
                q->V[j + (size_t) k * n] += u; q->V[k + (size_t) j * n] += u;
                q->V[i + (size_t) k * n] -= u; q->V[k + (size_t) i * n] -= u;
                q->V[j + (size_t) j * n] -= 2.0 * u;
            }
        }
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
    return 1.0;
}

/* the vertex s s' of {tr W <= 1}, or 0 when lambda_min(V) >= 0 */
static int cut_lmo(cg_problem *P)
{
    cut *q = (cut *) P->self;
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
    for (size_t e = 0; e < (size_t) n * n; e++) q->W[e] *= 1.0 - eta;
    if (!q->zero_atom)
        for (int j = 0; j < n; j++)
            for (int i = 0; i < n; i++) q->W[i + (size_t) j * n] += eta * q->s[i] * q->s[j];
    q->passes += 1.0;
}

static double cut_dual_step(cg_problem *P, double beta, double sigma, double bound)
{
    cut *q = (cut *) P->self;
    const int n = q->n;
    const double z_eq = eq_value(q), r_eq = z_eq - q->b_eq;
    double r2 = r_eq * r_eq;
    for (int k = 0; k < n; k++)
        for (int j = 0; j < n; j++)
            for (int i = 0; i < n; i++) {
                const double z = tri_value(q, i, j, k), w = z + q->Y[TRI(i, j, k, n)] / beta;
                const double r = w < 0.0 ? z - w : z;      /* z - min(w, 0) */
                r2 += r * r;
            }
    if (!(bound > 0.0) || !(r2 > 0.0)) return sqrt(r2);
    const double step = sigma * r2 <= bound ? sigma : bound / r2;
    q->y_eq += step * r_eq;
    for (int k = 0; k < n; k++)
        for (int j = 0; j < n; j++)
            for (int i = 0; i < n; i++) {
                const size_t t = TRI(i, j, k, n);
                const double z = tri_value(q, i, j, k), w = z + q->Y[t] / beta;
                q->Y[t] += step * (w < 0.0 ? z - w : z);
            }
    return sqrt(r2);
}

/* in the units of (22), X = n W: the equality residual and the positive
 * parts of the triangle values, against ||b|| = n^2 / 2 */
static double cut_infeasibility(cg_problem *P, double *scale)
{
    cut *q = (cut *) P->self;
    const int n = q->n;
    const double r_eq = (eq_value(q) - q->b_eq) / q->a_eq * q->x_scale;
    double d2 = r_eq * r_eq;
    for (int k = 0; k < n; k++)
        for (int j = 0; j < n; j++)
            for (int i = 0; i < n; i++) {
                const double z = tri_value(q, i, j, k) / q->c3 * q->x_scale;
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
                            cut_form, q, &q->n_matvec };
    cg_sdp_evaluate(P, &e, obj, gap);
}

static double cut_epoch(cg_problem *P) { return ((cut *) P->self)->passes; }
static long cut_n_matvec(cg_problem *P) { return ((cut *) P->self)->n_matvec; }

static const cg_homotopy_ops cut_homotopy = {
    cut_gradient, cut_lmo, cut_step, cut_dual_step, cut_infeasibility, NULL
};

int cg_problem_cut(cg_problem *P, SEXP spec)
{
    cut *q = (cut *) R_alloc(1, sizeof(cut));
    memset(q, 0, sizeof(cut));
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
    q->c3 = 1.0 / (2.0 * sqrt(2.0 * ((double) n * n + 3.0 * n)));
    const size_t nn = (size_t) n * n;
    q->W = cg_zeros(nn); q->V = cg_zeros(nn); q->s = cg_zeros(n);
    q->Y = cg_zeros(nn * n);
    P->self = q;
    P->evaluate = cut_evaluate; P->epoch = cut_epoch; P->n_matvec = cut_n_matvec;
    P->homotopy = &cut_homotopy;
    return CG_OK;
}

SEXP cg_cut_solution(cg_problem *P)
{
    cut *q = (cut *) P->self;
    const int n = q->n;
    static const char *names[] = {"X", ""};
    SEXP out = PROTECT(mkNamed(VECSXP, names));
    SEXP X = PROTECT(allocMatrix(REALSXP, n, n));
    for (size_t e = 0; e < (size_t) n * n; e++) REAL(X)[e] = q->x_scale * q->W[e];
    cg_symmetrize(REAL(X), n);
    SET_VECTOR_ELT(out, 0, X);
    UNPROTECT(2);
    return out;
}
