/* Least squares over the l1 ball (Lafond et al. 2015, sections 3.1 and 3.3):
 *   min_theta  1/(2n) ||y - X theta||^2   s.t.  ||theta||_1 <= radius.
 * The gradient estimate is built from running sufficient statistics of the
 * rows drawn so far (eq. 23): S = sum x x', b = sum x y, and S theta is kept
 * up to date, so a Frank-Wolfe step (one new vertex) costs O(p) and a batch
 * of B new rows O(B p^2) (dense) or O(B nnz(row)^2) (sparse). */
#include "stochcg.h"
#include "prob_sampler.h"
#include <string.h>
#include <math.h>

typedef struct {
    int n, p, sparse;
    const double *X;                 /* dense n x p, column-major */
    const int *rp, *ci; const double *rx;  /* sparse X by rows (CSR) */
    const int *cp, *ri; const double *cx;  /* sparse X by columns (CSC) */
    const double *y;
    double radius, lipschitz;
    cg_sampler smp;
    int *batch_idx;
    double *S, *b, *theta, *Stheta, *g, *work, *xrow;   /* S: upper triangle */
    double *res, *gfull;            /* trace-only evaluation scratch */
    int s_idx; double s_val;        /* last LMO vertex s = s_val * e_s_idx */
} regression;

/* column i of the symmetric S stored in its upper triangle */
static void sym_col(const double *S, int p, int i, double *out)
{
    for (int k = 0; k <= i; k++) out[k] = S[k + (size_t) i * p];
    for (int k = i + 1; k < p; k++) out[k] = S[i + (size_t) k * p];
}

/* add row r of X into the statistics; xrow is dense scratch (p) */
static void add_row(regression *R, int r)
{
    const int p = R->p;
    const double yr = R->y[r];
    if (!R->sparse) {
        for (int j = 0; j < p; j++) R->xrow[j] = R->X[r + (size_t) j * R->n];
        int one = 1; double alpha = 1.0;
        F77_CALL(dsyr)("U", &R->p, &alpha, R->xrow, &one, R->S, &R->p FCONE);
        double xt = F77_CALL(ddot)(&R->p, R->xrow, &one, R->theta, &one);
        for (int j = 0; j < p; j++) {
            R->b[j] += R->xrow[j] * yr;
            R->Stheta[j] += R->xrow[j] * xt;
        }
    } else {
        double xt = 0.0;
        for (int a = R->rp[r]; a < R->rp[r + 1]; a++) xt += R->rx[a] * R->theta[R->ci[a]];
        for (int a = R->rp[r]; a < R->rp[r + 1]; a++) {
            int ja = R->ci[a]; double va = R->rx[a];
            R->b[ja] += va * yr;
            R->Stheta[ja] += va * xt;
            for (int c = R->rp[r]; c < R->rp[r + 1]; c++) {   /* columns sorted */
                int jc = R->ci[c];
                if (jc >= ja) R->S[ja + (size_t) jc * p] += va * R->rx[c];
            }
        }
    }
}

static double reg_gradient(cg_problem *P, int stochastic)
{
    regression *R = (regression *) P->self;
    int nb = cg_sampler_next(&R->smp, R->batch_idx, !stochastic);
    for (int k = 0; k < nb; k++) add_row(R, R->batch_idx[k]);
    const double inv = 1.0 / R->smp.drawn;
    for (int j = 0; j < R->p; j++) R->g[j] = (R->Stheta[j] - R->b[j]) * inv;
    return nb;
}

static double reg_lmo(cg_problem *P)
{
    regression *R = (regression *) P->self;
    cg_lmo_l1(R->g, R->p, R->radius, &R->s_idx, &R->s_val);
    double gx = 0.0;
    for (int j = 0; j < R->p; j++) gx += R->g[j] * R->theta[j];
    return gx - R->s_val * R->g[R->s_idx];
}

/* exact minimizer over [0, 1] of the current quadratic along d = s - theta */
static double reg_line_search(cg_problem *P)
{
    regression *R = (regression *) P->self;
    const int i = R->s_idx;
    double tSt = 0.0, gd = 0.0;
    for (int j = 0; j < R->p; j++) {
        tSt += R->theta[j] * R->Stheta[j];
        gd -= R->g[j] * R->theta[j];
    }
    gd += R->g[i] * R->s_val;
    double Sii = R->S[i + (size_t) i * R->p];
    double dSd = (tSt - 2.0 * R->s_val * R->Stheta[i] + R->s_val * R->s_val * Sii)
                 / R->smp.drawn;
    if (dSd <= 0) return gd < 0 ? 1.0 : 0.0;
    return fmin(1.0, fmax(0.0, -gd / dSd));
}

static void reg_fw_step(cg_problem *P, double gamma)
{
    regression *R = (regression *) P->self;
    const int i = R->s_idx;
    sym_col(R->S, R->p, i, R->work);
    for (int j = 0; j < R->p; j++) {
        R->theta[j] *= 1.0 - gamma;
        R->Stheta[j] = (1.0 - gamma) * R->Stheta[j] + gamma * R->s_val * R->work[j];
    }
    R->theta[i] += gamma * R->s_val;
}

static int reg_pg_step(cg_problem *P, double eta)
{
    regression *R = (regression *) P->self;
    if (eta <= 0) eta = 1.0 / R->lipschitz;
    for (int j = 0; j < R->p; j++) R->xrow[j] = R->theta[j] - eta * R->g[j];
    cg_proj_l1(R->xrow, R->p, R->radius, R->theta, R->work);
    /* S theta from scratch: a projection moves every coordinate */
    int one = 1; double alpha = 1.0, zero = 0.0;
    F77_CALL(dsymv)("U", &R->p, &alpha, R->S, &R->p, R->theta, &one, &zero,
                    R->Stheta, &one FCONE);
    return CG_OK;
}

/* full objective 1/(2n)||y - X theta||^2 and gap <g, theta> + r ||g||_inf */
static void reg_evaluate(cg_problem *P, double *obj, double *gap)
{
    regression *R = (regression *) P->self;
    const int n = R->n, p = R->p;
    double *res = R->res, *g = R->gfull;
    for (int r = 0; r < n; r++) res[r] = -R->y[r];
    if (!R->sparse) {
        int one = 1; double alpha = 1.0, beta = 1.0, zero = 0.0, inv = 1.0 / n;
        F77_CALL(dgemv)("N", &R->n, &R->p, &alpha, R->X, &R->n, R->theta, &one,
                        &beta, res, &one FCONE);
        F77_CALL(dgemv)("T", &R->n, &R->p, &inv, R->X, &R->n, res, &one,
                        &zero, g, &one FCONE);
    } else {
        for (int j = 0; j < p; j++)
            for (int a = R->cp[j]; a < R->cp[j + 1]; a++) res[R->ri[a]] += R->cx[a] * R->theta[j];
        for (int j = 0; j < p; j++) {
            double s = 0.0;
            for (int a = R->cp[j]; a < R->cp[j + 1]; a++) s += R->cx[a] * res[R->ri[a]];
            g[j] = s / n;
        }
    }
    double rss = 0.0, gt = 0.0, gmax = 0.0;
    for (int r = 0; r < n; r++) rss += res[r] * res[r];
    for (int j = 0; j < p; j++) { gt += g[j] * R->theta[j]; gmax = fmax(gmax, fabs(g[j])); }
    *obj = rss / (2.0 * n);
    *gap = gt + R->radius * gmax;
}

static double reg_epoch(cg_problem *P)
{
    regression *R = (regression *) P->self;
    return R->smp.drawn / R->n;
}

static long reg_n_matvec(cg_problem *P) { return 0; }

int cg_problem_regression(cg_problem *P, SEXP spec)
{
    regression *R = (regression *) R_alloc(1, sizeof(regression));
    memset(R, 0, sizeof(regression));
    R->n = asInteger(cg_list_get(spec, "n"));
    R->p = asInteger(cg_list_get(spec, "p"));
    R->sparse = asLogical(cg_list_get(spec, "sparse"));
    R->y = REAL(cg_list_get(spec, "y"));
    R->radius = asReal(cg_list_get(spec, "radius"));
    R->lipschitz = asReal(cg_list_get(spec, "lipschitz"));
    if (R->sparse) {
        R->rp = INTEGER(cg_list_get(spec, "row_p"));
        R->ci = INTEGER(cg_list_get(spec, "row_j"));
        R->rx = REAL(cg_list_get(spec, "row_x"));
        R->cp = INTEGER(cg_list_get(spec, "col_p"));
        R->ri = INTEGER(cg_list_get(spec, "col_i"));
        R->cx = REAL(cg_list_get(spec, "col_x"));
    } else {
        R->X = REAL(cg_list_get(spec, "X"));
    }
    const int n = R->n, p = R->p;
    cg_sampler_init(&R->smp, n, asInteger(cg_list_get(spec, "batch_size")),
                    asInteger(cg_list_get(spec, "sampling")));
    R->batch_idx = (int *) R_alloc(n > R->smp.batch ? n : R->smp.batch, sizeof(int));
    R->S = (double *) R_alloc((size_t) p * p, sizeof(double));
    memset(R->S, 0, sizeof(double) * (size_t) p * p);
    double **vecs[] = {&R->b, &R->theta, &R->Stheta, &R->g, &R->work, &R->xrow};
    for (int k = 0; k < 6; k++) {
        *vecs[k] = (double *) R_alloc(2 * (size_t) p, sizeof(double));  /* work: 2p */
        memset(*vecs[k], 0, sizeof(double) * 2 * (size_t) p);
    }
    R->res = (double *) R_alloc(n, sizeof(double));
    R->gfull = (double *) R_alloc(p, sizeof(double));
    P->self = R;
    P->gradient = reg_gradient; P->lmo = reg_lmo; P->line_search = reg_line_search;
    P->fw_step = reg_fw_step; P->pg_step = reg_pg_step; P->evaluate = reg_evaluate;
    P->epoch = reg_epoch; P->n_matvec = reg_n_matvec;
    P->svd_rank = 0;
    return CG_OK;
}

SEXP cg_regression_solution(cg_problem *P)
{
    regression *R = (regression *) P->self;
    SEXP out = PROTECT(allocVector(VECSXP, 1));
    SEXP beta = PROTECT(allocVector(REALSXP, R->p));
    memcpy(REAL(beta), R->theta, sizeof(double) * R->p);
    SET_VECTOR_ELT(out, 0, beta);
    SEXP nm = PROTECT(mkString("beta"));
    setAttrib(out, R_NamesSymbol, nm);
    UNPROTECT(3);
    return out;
}
