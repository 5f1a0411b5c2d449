/* The SDP template (2) of paper 003, for sdp_solve():
 *   min <C, X>  s.t.  <A_i, X> = b_i (i in E), <A_i, X> <= b_i (i in I),
 *                     X psd, tr X = alpha (or <= alpha),
 * for the homotopy family, in normalized units made by the R side (C with
 * ||C||_F = 1, W = X / alpha, the constraint rows scaled to a map of norm at
 * most 1, b with them; see sdp_solve()). The constraints are one sparse
 * m x n^2 matrix in compressed columns (column e = entry (e mod n, e div n)
 * of X), so A W and A'u cost O(nnz); W and the gradient are dense n x n.
 * The sampling methods read single rows from its transpose (compressed
 * rows) and keep A W only for the trace (refreshed there, O(nnz)).
 * Objective, infeasibility and the dual bound are reported in the original
 * units. */
#include "stochcg.h"
#include <string.h>
#include <math.h>

typedef struct {
    int n, m, trace_eq;
    const double *C;            /* n x n */
    const int *Ap, *Ai; const double *Ax;   /* m x n^2, CSC */
    const int *Rp, *Ri; const double *Rx;   /* the same by rows (sampling methods) */
    int sampled;                /* a sampling method: z not kept by the steps */
    double *W_prev;             /* hspider: W before the last step */
    const double *b; const int *eq;         /* rhs, 1 = equality row */
    double obj_scale;           /* <C_orig, X> = obj_scale <C, W> */
    double infeas_scale;        /* dist in original units = infeas_scale * normalized */
    double b_norm;              /* ||b_orig||: the scale of tol for infeasibility */
    double *W, *V, *z, *y, *u, *s;  /* iterate, gradient, A W, dual, its gradient use, atom */
    int zero_atom;              /* the LMO chose 0 (trace <= alpha, lambda_min >= 0) */
    double beta, passes;
    double best_lb;        /* the best certified lower bound (cg_sdp_evaluate) */
    long n_matvec;
} sdp;

/* proj onto K of row i: b_i (equality) or min(., b_i) */
static double proj_row(const sdp *q, int i, double v)
{
    return q->eq[i] ? q->b[i] : (v < q->b[i] ? v : q->b[i]);
}

/* u = y + beta (z - proj_K(z + y / beta)); beta = 0: u = y, the
 * inequality rows clipped at 0 (the multiplier's sign) */
static void multipliers(const sdp *q, double beta, double *u)
{
    for (int i = 0; i < q->m; i++) {
        if (beta > 0.0) u[i] = q->y[i] + beta * (q->z[i] - proj_row(q, i, q->z[i] + q->y[i] / beta));
        else u[i] = q->eq[i] ? q->y[i] : fmax(q->y[i], 0.0);
    }
}

/* V = C + A'u; returns <u, b> */
static double form_gradient(sdp *q, const double *u)
{
    const size_t nn = (size_t) q->n * q->n;
    memcpy(q->V, q->C, nn * sizeof(double));
    for (size_t e = 0; e < nn; e++) {
        double t = 0.0;
        for (int k = q->Ap[e]; k < q->Ap[e + 1]; k++) t += q->Ax[k] * u[q->Ai[k]];
        q->V[e] += t;
    }
    cg_symmetrize(q->V, q->n);
    double ub = 0.0;
    for (int i = 0; i < q->m; i++) ub += u[i] * q->b[i];
    return ub;
}

static double sdp_gradient(cg_problem *P, double beta)
{
    sdp *q = (sdp *) P->self;
    multipliers(q, beta, q->u);
    form_gradient(q, q->u);
    q->beta = beta;
    q->passes += 1.0;
    return 1.0;
}

/* z = A W from scratch (the sampling methods, for the trace) */
static void refresh_z(sdp *q)
{
    if (!q->sampled) return;
    memset(q->z, 0, (size_t) (q->m > 0 ? q->m : 1) * sizeof(double));
    for (size_t e = 0; e < (size_t) q->n * q->n; e++)
        for (int k = q->Ap[e]; k < q->Ap[e + 1]; k++) q->z[q->Ai[k]] += q->Ax[k] * q->W[e];
}

/* ---- rows for the sampling methods: row l of A (symmetrized by the R
 * side, so G stays symmetric) */
static double sdp_rows(cg_problem *P, size_t *len)
{
    sdp *q = (sdp *) P->self;
    *len = (size_t) q->n * q->n;
    return q->m;
}

static double sdp_residual(cg_problem *P, double l, int prev)
{
    sdp *q = (sdp *) P->self;
    const int i = (int) l;
    const double *W = prev ? q->W_prev : q->W;
    double v = 0.0;
    for (int k = q->Rp[i]; k < q->Rp[i + 1]; k++) v += q->Rx[k] * W[q->Ri[k]];
    return v - proj_row(q, i, v);
}

static void sdp_add_row(cg_problem *P, double l, double coef, double *G)
{
    sdp *q = (sdp *) P->self;
    const int i = (int) l;
    for (int k = q->Rp[i]; k < q->Rp[i + 1]; k++) G[q->Ri[k]] += coef * q->Rx[k];
}

static void sdp_set_gradient(cg_problem *P, double penalty, const double *E, double epochs)
{
    sdp *q = (sdp *) P->self;
    for (size_t e = 0; e < (size_t) q->n * q->n; e++) q->V[e] = q->C[e] + E[e];
    cg_symmetrize(q->V, q->n);
    q->beta = penalty;
    q->passes += epochs;
}

/* the spectrahedron's vertex s s', or 0 (trace <= alpha, lambda_min >= 0) */
static int sdp_lmo(cg_problem *P)
{
    sdp *q = (sdp *) P->self;
    cg_linop A; cg_dense_data d;
    cg_linop_dense(&A, &d, q->V, q->n, q->n);
    double val;
    const int ret = cg_lmo_psd(&A, 1.0, q->trace_eq, q->s, &val);
    q->n_matvec += A.n_matvec;
    q->zero_atom = ret == 0;
    return ret < 0 ? -ret : CG_OK;
}

static void sdp_step(cg_problem *P, double eta)
{
    sdp *q = (sdp *) P->self;
    const int n = q->n;
    const size_t nn = (size_t) n * n;
    if (q->W_prev) memcpy(q->W_prev, q->W, nn * sizeof(double));
    for (size_t e = 0; e < nn; e++) q->W[e] *= 1.0 - eta;
    for (int i = 0; i < q->m; i++) q->z[i] *= 1.0 - eta;
    if (q->zero_atom) return;
    const double *s = q->s;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++) q->W[i + (size_t) j * n] += eta * s[i] * s[j];
    if (q->sampled) return;
    /* z += eta A vec(s s') */
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++) {
            const size_t e = i + (size_t) j * n;
            const double w = eta * s[i] * s[j];
            for (int k = q->Ap[e]; k < q->Ap[e + 1]; k++) q->z[q->Ai[k]] += q->Ax[k] * w;
        }
}

static double sdp_dual_step(cg_problem *P, double beta, double sigma, double bound)
{
    sdp *q = (sdp *) P->self;
    double r2 = 0.0;
    for (int i = 0; i < q->m; i++) {
        const double r = q->z[i] - proj_row(q, i, q->z[i] + q->y[i] / beta);
        r2 += r * r;
    }
    if (!(bound > 0.0) || !(r2 > 0.0)) return sqrt(r2);
    const double step = sigma * r2 <= bound ? sigma : bound / r2;
    for (int i = 0; i < q->m; i++)
        q->y[i] += step * (q->z[i] - proj_row(q, i, q->z[i] + q->y[i] / beta));
    return sqrt(r2);
}

static double sdp_infeasibility(cg_problem *P, double *scale)
{
    sdp *q = (sdp *) P->self;
    refresh_z(q);
    double d2 = 0.0;
    for (int i = 0; i < q->m; i++) {
        const double r = q->z[i] - proj_row(q, i, q->z[i]);
        d2 += r * r;
    }
    *scale = q->b_norm > 1.0 ? q->b_norm : 1.0;
    return q->infeas_scale * sqrt(d2);
}

/* Shared by the SDP problems (this file, prob_kmeans.c, prob_cut.c), in
 * normalized units (W in the spectrahedron of trace 1, or <= 1):
 * objective obj_scale <C, W>, and gap = objective minus the best of
 * `passes` Lagrangian lower bounds: by weak duality, for multipliers u
 * with the right signs,
 *   opt >= min_{W psd, tr W = 1 (<= 1)} <C + A'u, W> - <u, b>,
 * the support function from one smallest eigenvalue moved outward by the
 * Lanczos tolerance (cg_psd_support_min): a certificate of the bound.
 * form(self, pass, &ub) fills V = C + A'u for the pass's multipliers and
 * ub = <u, b>. NA gap while there are no multipliers (beta <= 0). */
void cg_sdp_evaluate(cg_problem *P, const cg_sdp_eval *e, double *obj, double *gap)
{
    const size_t nn = (size_t) e->n * e->n;
    double cw = 0.0;
    for (size_t k = 0; k < nn; k++) cw += e->C[k] * e->W[k];
    *obj = e->obj_scale * cw;
    *gap = NA_REAL;
    if (!(e->beta > 0.0)) return;
    double best = R_NegInf;
    for (int pass = 0; pass < e->passes; pass++) {
        const void *vmax = vmaxget();
        const double ub = e->form(e->self, pass);
        cg_linop A; cg_dense_data d;
        cg_linop_dense(&A, &d, e->V, e->n, e->n);
        double lb;
        const int st = cg_psd_support_min(&A, 1.0, e->trace_eq, 1e-10, &lb);
        *e->n_matvec += A.n_matvec;
        vmaxset(vmax);
        if (st != CG_OK) { *gap = cg_gap_failed(P, st); return; }
        if (lb - ub > best) best = lb - ub;
    }
    /* every earlier bound is as valid (weak duality holds for any
     * multipliers): the gap is to the best one; only test evaluations
     * raise it, so that trace-only rows never change where a run stops */
    const double kept = *e->best_lb;
    if (P->eval_test && best > kept) *e->best_lb = best;
    *gap = *obj - e->obj_scale * (best > kept ? best : kept);
}

/* the best lower bound of the run an init continues (-Inf: none yet) */
double cg_sdp_best_lb(SEXP spec)
{
    SEXP b = cg_list_get(spec, "state_best_lb");
    if (isNull(b)) return R_NegInf;
    const double v = asReal(b);
    if (ISNAN(v) || v == R_PosInf) error("spec: invalid resume state");
    return v;
}

/* pass 0: the last gradient's multipliers; 1: the dual iterate, clipped */
static double sdp_form(void *self, int pass)
{
    sdp *q = (sdp *) self;
    double *u = (double *) R_alloc(q->m > 0 ? q->m : 1, sizeof(double));
    multipliers(q, pass == 0 ? q->beta : 0.0, u);
    return form_gradient(q, u);
}

static void sdp_evaluate(cg_problem *P, double *obj, double *gap)
{
    sdp *q = (sdp *) P->self;
    refresh_z(q);
    const cg_sdp_eval e = { q->n, q->C, q->W, q->V, q->obj_scale, q->trace_eq, q->beta, 2,
                            sdp_form, q, &q->n_matvec, &q->best_lb };
    cg_sdp_evaluate(P, &e, obj, gap);
}

static double sdp_epoch(cg_problem *P) { return ((sdp *) P->self)->passes; }
static long sdp_n_matvec(cg_problem *P) { return ((sdp *) P->self)->n_matvec; }

static const cg_rows_ops sdp_rows_ops = {
    sdp_rows, sdp_residual, sdp_add_row, sdp_set_gradient
};

static const cg_homotopy_ops sdp_homotopy = {
    sdp_gradient, sdp_lmo, sdp_step, sdp_dual_step, sdp_infeasibility, &sdp_rows_ops
};

int cg_problem_sdp(cg_problem *P, SEXP spec)
{
    sdp *q = (sdp *) R_alloc(1, sizeof(sdp));
    memset(q, 0, sizeof(sdp));
    q->best_lb = R_NegInf;
    SEXP C = cg_list_get(spec, "C");
    if (TYPEOF(C) != REALSXP || !isMatrix(C)) error("spec element 'C' must be a double matrix");
    const int n = INTEGER(getAttrib(C, R_DimSymbol))[0];
    if (n < 1 || INTEGER(getAttrib(C, R_DimSymbol))[1] != n) error("spec element 'C' must be square");
    SEXP Ap = cg_list_get(spec, "A_p"), Ai = cg_list_get(spec, "A_i"), Ax = cg_list_get(spec, "A_x");
    SEXP b = cg_list_get(spec, "b"), eq = cg_list_get(spec, "eq");
    if (TYPEOF(Ap) != INTSXP || XLENGTH(Ap) != (R_xlen_t) n * n + 1 || TYPEOF(Ai) != INTSXP ||
        TYPEOF(Ax) != REALSXP || XLENGTH(Ai) != XLENGTH(Ax) || TYPEOF(b) != REALSXP ||
        TYPEOF(eq) != INTSXP || XLENGTH(eq) != XLENGTH(b))
        error("invalid sdp spec (constraints)");
    q->n = n; q->m = LENGTH(b); q->C = REAL_RO(C);
    q->Ap = INTEGER_RO(Ap); q->Ai = INTEGER_RO(Ai); q->Ax = REAL_RO(Ax);
    q->b = REAL_RO(b); q->eq = INTEGER_RO(eq);
    if (q->Ap[0] != 0 || q->Ap[(size_t) n * n] != LENGTH(Ai)) error("invalid sdp spec (A_p)");
    for (R_xlen_t k = 0; k < XLENGTH(Ai); k++)
        if (q->Ai[k] < 0 || q->Ai[k] >= q->m) error("invalid sdp spec (A_i)");
    q->trace_eq = asLogical(cg_list_get(spec, "trace_eq")) == TRUE;
    q->obj_scale = asReal(cg_list_get(spec, "obj_scale"));
    q->infeas_scale = asReal(cg_list_get(spec, "infeas_scale"));
    q->b_norm = asReal(cg_list_get(spec, "b_norm"));
    if (!(q->obj_scale > 0.0) || !(q->infeas_scale > 0.0) || !(q->b_norm >= 0.0))
        error("invalid sdp spec (scales)");
    const size_t nn = (size_t) n * n;
    q->W = cg_zeros(nn); q->V = cg_zeros(nn);
    const int m1 = q->m > 0 ? q->m : 1;
    q->z = cg_zeros(m1); q->y = cg_zeros(m1); q->u = cg_zeros(m1); q->s = cg_zeros(n);
    if (q->trace_eq) {            /* start at I / n (tr W = 1); else at 0 */
        for (int i = 0; i < n; i++) q->W[i + (size_t) i * n] = 1.0 / n;
        for (size_t e = 0; e < nn; e++) {
            const int r = (int) (e % n), c = (int) (e / n);
            if (r != c) continue;
            for (int k = q->Ap[e]; k < q->Ap[e + 1]; k++) q->z[q->Ai[k]] += q->Ax[k] / n;
        }
    }
    SEXP method = cg_list_get(spec, "method");
    const char *name = isString(method) ? CHAR(STRING_ELT(method, 0)) : "cgal";
    q->sampled = strcmp(name, "hsagcgm_v2") == 0 || strcmp(name, "h1sfw") == 0 ||
                 strcmp(name, "hspider") == 0;
    if (q->sampled) {             /* the rows: A' in compressed columns */
        q->Rp = cg_spec_pointers(spec, "At_p", q->m, XLENGTH(Ai));
        q->Ri = cg_spec_index(spec, "At_i", XLENGTH(Ai), 0, (int) (nn - 1));
        q->Rx = cg_spec_real(spec, "At_x", XLENGTH(Ai));
    }
    if (strcmp(name, "hspider") == 0) q->W_prev = cg_zeros(nn);
    if (!isNull(cg_list_get(spec, "state_W"))) {   /* init = a previous fit: its state */
        memcpy(q->W, cg_spec_real(spec, "state_W", (R_xlen_t) nn), nn * sizeof(double));
        if (q->m > 0) {                   /* z = A W as the steps kept it */
            memcpy(q->z, cg_spec_real(spec, "state_z", q->m), (size_t) q->m * sizeof(double));
            memcpy(q->y, cg_spec_real(spec, "state_y", q->m), (size_t) q->m * sizeof(double));
        }
        if (q->W_prev && !isNull(cg_list_get(spec, "state_W_prev")))     /* hspider's */
            memcpy(q->W_prev, cg_spec_real(spec, "state_W_prev", (R_xlen_t) nn),
                   nn * sizeof(double));
        q->beta = asReal(cg_list_get(spec, "state_beta"));
        q->passes = asReal(cg_list_get(spec, "state_passes"));
        q->best_lb = cg_sdp_best_lb(spec);
        if (!cg_all_finite(q->W, nn) || (q->W_prev && !cg_all_finite(q->W_prev, nn)) || !cg_all_finite(q->z, q->m) || !cg_all_finite(q->y, q->m) ||
            !R_FINITE(q->beta) || !R_FINITE(q->passes))
            error("spec: invalid resume state");
    }
    P->self = q;
    P->evaluate = sdp_evaluate; P->epoch = sdp_epoch; P->n_matvec = sdp_n_matvec;
    P->homotopy = &sdp_homotopy;
    return CG_OK;
}

/* W (normalized; R rescales) and the dual iterate y (normalized) */
SEXP cg_sdp_solution(cg_problem *P)
{
    sdp *q = (sdp *) P->self;
    const int n = q->n;
    static const char *names[] = {"W", "y", "state_W", "state_z", "state_y", "state_beta",
                                  "state_passes", "state_W_prev", "state_best_lb", ""};
    SEXP out = PROTECT(mkNamed(VECSXP, names));
    SEXP W = PROTECT(allocMatrix(REALSXP, n, n));
    memcpy(REAL(W), q->W, (size_t) n * n * sizeof(double));
    cg_symmetrize(REAL(W), n);
    SET_VECTOR_ELT(out, 0, W);
    SEXP y = PROTECT(allocVector(REALSXP, q->m));
    if (q->m > 0) memcpy(REAL(y), q->y, (size_t) q->m * sizeof(double));
    SET_VECTOR_ELT(out, 1, y);
    /* the resumable state (init = fit): the raw iterate, A W, the duals */
    const size_t nn = (size_t) n * n;
    SEXP sW = allocVector(REALSXP, nn); SET_VECTOR_ELT(out, 2, sW);
    memcpy(REAL(sW), q->W, nn * sizeof(double));
    SEXP sz = allocVector(REALSXP, q->m); SET_VECTOR_ELT(out, 3, sz);
    SEXP sy = allocVector(REALSXP, q->m); SET_VECTOR_ELT(out, 4, sy);
    if (q->m > 0) {
        memcpy(REAL(sz), q->z, (size_t) q->m * sizeof(double));
        memcpy(REAL(sy), q->y, (size_t) q->m * sizeof(double));
    }
    SET_VECTOR_ELT(out, 5, ScalarReal(q->beta));
    SET_VECTOR_ELT(out, 6, ScalarReal(q->passes));
    if (q->W_prev) {          /* hspider: the iterate before the last step */
        SEXP Wp = allocVector(REALSXP, nn); SET_VECTOR_ELT(out, 7, Wp);
        memcpy(REAL(Wp), q->W_prev, nn * sizeof(double));
    }
    SET_VECTOR_ELT(out, 8, ScalarReal(q->best_lb));
    UNPROTECT(3);
    return out;
}
