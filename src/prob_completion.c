/* Matrix completion over the nuclear-norm ball with exponential-family
 * likelihoods (Lafond et al. 2015, section 3.2):
 *   min_theta  1/N sum_k [A(theta_{i_k j_k}) - y_k theta_{i_k j_k}]
 *   s.t. ||theta||_* <= radius,
 * A(x) = x^2/2 (gaussian; reported as 1/(2N) sum (y - theta)^2), exp(x)
 * (poisson), log(1 + e^x) (binomial, y in {0, 1}).
 *
 * Observed entries are streamed in minibatches (sampler); the gradient
 * estimate is the paper's S2 * A'(theta) - S1, kept sparse on the entries
 * drawn so far ("touched"). The FW iterate is a set of rank-one atoms plus
 * its values on the touched entries, so an iteration costs O(touched + m + n)
 * after the LMO. The projected-gradient baseline keeps theta dense (its full
 * SVD needs the dense matrix anyway). */
#include "stochcg.h"
#include "prob_sampler.h"
#include <string.h>
#include <math.h>

enum { FAM_GAUSSIAN = 0, FAM_POISSON = 1, FAM_BINOMIAL = 2 };

typedef struct {
    int m, n, N, family, dense;
    const int *row, *col; const double *y;
    double radius;
    cg_sampler smp;
    int *batch_idx;
    /* touched entries, in the order first drawn */
    int nt, *tk, *trow, *tcol;
    double *cnt;                 /* draws per observed entry (N) */
    double *th, *gval, *sval;    /* per touched position */
    cg_atoms atoms;
    double *theta, *work_mn;     /* dense m x n (projected gradient only) */
    double *u, *v, sigma;        /* last LMO pair: s = -radius u v' */
    double *gfull, *thfull;      /* trace-only scratch (N) */
    double *eu, *ev;             /* trace-only scratch (m, n) */
    cg_linop G; cg_coo_data Gd;
    long n_matvec;
} completion;

static double mean_fn(int fam, double x)   /* A'(x) */
{
    switch (fam) {
    case FAM_POISSON: return exp(x);
    case FAM_BINOMIAL: return 1.0 / (1.0 + exp(-x));
    default: return x;
    }
}

static double loss(int fam, double x, double y)
{
    switch (fam) {
    case FAM_POISSON: return exp(x) - y * x;
    case FAM_BINOMIAL: return (x > 0 ? x + log1p(exp(-x)) : log1p(exp(x))) - y * x;
    default: return 0.5 * (y - x) * (y - x);
    }
}

static double entry_value(const completion *C, int k)
{
    return C->dense ? C->theta[C->row[k] + (size_t) C->col[k] * C->m]
                    : cg_atoms_entry(&C->atoms, C->row[k], C->col[k]);
}

static double mc_gradient(cg_problem *P, int stochastic)
{
    completion *C = (completion *) P->self;
    int nb = cg_sampler_next(&C->smp, C->batch_idx, !stochastic);
    for (int b = 0; b < nb; b++) {
        int k = C->batch_idx[b];
        if (C->cnt[k] == 0) {             /* first draw: start tracking it */
            int t = C->nt++;
            C->tk[t] = k; C->trow[t] = C->row[k]; C->tcol[t] = C->col[k];
            C->th[t] = entry_value(C, k);
        }
        C->cnt[k] += 1;
    }
    const double inv = 1.0 / C->smp.drawn;
    for (int t = 0; t < C->nt; t++) {
        int k = C->tk[t];
        if (C->dense) C->th[t] = entry_value(C, k);
        C->gval[t] = C->cnt[k] * (mean_fn(C->family, C->th[t]) - C->y[k]) * inv;
    }
    return nb;
}

static double mc_lmo(cg_problem *P)
{
    completion *C = (completion *) P->self;
    cg_linop_coo(&C->G, &C->Gd, C->m, C->n, C->nt, C->trow, C->tcol, C->gval);
    int st = cg_lmo_nuclear(&C->G, C->radius, C->u, C->v, &C->sigma);
    C->n_matvec += C->G.n_matvec;
    P->svd_rank = 1;
    if (st != CG_OK) return NA_REAL;
    double gx = 0.0;
    for (int t = 0; t < C->nt; t++) {
        C->sval[t] = -C->radius * C->u[C->trow[t]] * C->v[C->tcol[t]];
        gx += C->gval[t] * C->th[t];
    }
    return gx + C->radius * C->sigma;      /* <g, x> - <g, s> */
}

/* exact step for the gaussian (quadratic) estimated objective */
static double mc_line_search(cg_problem *P)
{
    completion *C = (completion *) P->self;
    if (C->family != FAM_GAUSSIAN) return -1.0;
    double gd = 0.0, dd = 0.0;
    for (int t = 0; t < C->nt; t++) {
        double d = C->sval[t] - C->th[t];
        gd += C->gval[t] * d;
        dd += C->cnt[C->tk[t]] * d * d;
    }
    dd /= C->smp.drawn;
    if (dd <= 0) return gd < 0 ? 1.0 : 0.0;
    return fmin(1.0, fmax(0.0, -gd / dd));
}

static void mc_fw_step(cg_problem *P, double gamma)
{
    completion *C = (completion *) P->self;
    for (int t = 0; t < C->nt; t++) C->th[t] = (1.0 - gamma) * C->th[t] + gamma * C->sval[t];
    cg_atoms_scale(&C->atoms, 1.0 - gamma);
    /* store s = radius (-u) v' so that atom weights stay positive */
    for (int i = 0; i < C->m; i++) C->u[i] = -C->u[i];
    cg_atoms_add(&C->atoms, C->u, C->v, gamma * C->radius);
}

static int mc_pg_step(cg_problem *P, double eta)
{
    completion *C = (completion *) P->self;
    if (eta <= 0) {
        /* 1/L of the current estimate; repeated observations of one cell add
         * up, so curvature is accumulated per cell (theta is dense here) */
        const size_t mn = (size_t) C->m * C->n;
        double *curv = C->work_mn, L = 0.0;
        memset(curv, 0, sizeof(double) * mn);
        for (int t = 0; t < C->nt; t++) {
            double c = C->family == FAM_GAUSSIAN ? 1.0 :
                C->family == FAM_BINOMIAL ? 0.25 : exp(C->th[t]);
            size_t cell = C->trow[t] + (size_t) C->tcol[t] * C->m;
            curv[cell] += c * C->cnt[C->tk[t]] / C->smp.drawn;
            L = fmax(L, curv[cell]);
        }
        eta = L > 0 ? 1.0 / L : 1.0;
    }
    for (int t = 0; t < C->nt; t++)
        C->theta[C->trow[t] + (size_t) C->tcol[t] * C->m] -= eta * C->gval[t];
    int st = cg_proj_nuclear_dense(C->theta, C->m, C->n, C->radius);
    P->svd_rank = C->m < C->n ? C->m : C->n;
    return st;
}

/* full objective over all observed entries, and the true FW gap
 * <G, theta> + radius * sigma_1(G) of the full gradient */
static void mc_evaluate(cg_problem *P, double *obj, double *gap)
{
    completion *C = (completion *) P->self;
    const int N = C->N;
    for (int k = 0; k < N; k++) C->thfull[k] = NA_REAL;
    if (!C->dense)               /* cached values are current only for atoms */
        for (int t = 0; t < C->nt; t++) C->thfull[C->tk[t]] = C->th[t];
    double f = 0.0, gx = 0.0;
    for (int k = 0; k < N; k++) {
        if (ISNAN(C->thfull[k])) C->thfull[k] = entry_value(C, k);
        double x = C->thfull[k];
        f += loss(C->family, x, C->y[k]);
        C->gfull[k] = (mean_fn(C->family, x) - C->y[k]) / N;
        gx += C->gfull[k] * x;
    }
    *obj = f / N;
    cg_linop Gf; cg_coo_data d;
    cg_linop_coo(&Gf, &d, C->m, C->n, N, C->row, C->col, C->gfull);
    double sigma;
    *gap = cg_lmo_nuclear(&Gf, C->radius, C->eu, C->ev, &sigma) == CG_OK ?
        gx + C->radius * sigma : NA_REAL;
}

static double mc_epoch(cg_problem *P)
{
    completion *C = (completion *) P->self;
    return C->smp.drawn / C->N;
}

static long mc_n_matvec(cg_problem *P) { return ((completion *) P->self)->n_matvec; }

int cg_problem_completion(cg_problem *P, SEXP spec)
{
    completion *C = (completion *) R_alloc(1, sizeof(completion));
    memset(C, 0, sizeof(completion));
    C->m = asInteger(cg_list_get(spec, "m"));
    C->n = asInteger(cg_list_get(spec, "n"));
    C->row = INTEGER(cg_list_get(spec, "row"));
    C->col = INTEGER(cg_list_get(spec, "col"));
    C->y = REAL(cg_list_get(spec, "y"));
    C->N = LENGTH(cg_list_get(spec, "y"));
    C->family = asInteger(cg_list_get(spec, "family"));
    C->radius = asReal(cg_list_get(spec, "radius"));
    C->dense = asLogical(cg_list_get(spec, "dense_iterate"));
    const int N = C->N, m = C->m, n = C->n;
    cg_sampler_init(&C->smp, N, asInteger(cg_list_get(spec, "batch_size")),
                    asInteger(cg_list_get(spec, "sampling")));
    C->batch_idx = (int *) R_alloc(N > C->smp.batch ? N : C->smp.batch, sizeof(int));
    C->tk = (int *) R_alloc(N, sizeof(int));
    C->trow = (int *) R_alloc(N, sizeof(int));
    C->tcol = (int *) R_alloc(N, sizeof(int));
    double **vecs[] = {&C->cnt, &C->th, &C->gval, &C->sval, &C->gfull, &C->thfull};
    for (int k = 0; k < 6; k++) {
        *vecs[k] = (double *) R_alloc(N, sizeof(double));
        memset(*vecs[k], 0, sizeof(double) * N);
    }
    C->u = (double *) R_alloc(m, sizeof(double));
    C->v = (double *) R_alloc(n, sizeof(double));
    C->eu = (double *) R_alloc(m, sizeof(double));
    C->ev = (double *) R_alloc(n, sizeof(double));
    if (C->dense) {
        C->theta = (double *) R_alloc((size_t) m * n, sizeof(double));
        memset(C->theta, 0, sizeof(double) * (size_t) m * n);
        C->work_mn = (double *) R_alloc((size_t) m * n, sizeof(double));
    } else {
        cg_atoms_init(&C->atoms, m, n, 64);
    }
    P->self = C;
    P->gradient = mc_gradient; P->lmo = mc_lmo; P->line_search = mc_line_search;
    P->fw_step = mc_fw_step; P->pg_step = mc_pg_step; P->evaluate = mc_evaluate;
    P->epoch = mc_epoch; P->n_matvec = mc_n_matvec;
    P->svd_rank = 0;
    return CG_OK;
}

SEXP cg_completion_solution(cg_problem *P)
{
    completion *C = (completion *) P->self;
    if (C->dense) {
        SEXP out = PROTECT(allocVector(VECSXP, 1));
        SEXP X = PROTECT(allocMatrix(REALSXP, C->m, C->n));
        memcpy(REAL(X), C->theta, sizeof(double) * (size_t) C->m * C->n);
        SET_VECTOR_ELT(out, 0, X);
        setAttrib(out, R_NamesSymbol, mkString("dense"));
        UNPROTECT(2);
        return out;
    }
    const cg_atoms *a = &C->atoms;
    SEXP out = PROTECT(allocVector(VECSXP, 3));
    SEXP u = PROTECT(allocMatrix(REALSXP, C->m, a->k));
    SEXP v = PROTECT(allocMatrix(REALSXP, C->n, a->k));
    SEXP w = PROTECT(allocVector(REALSXP, a->k));
    memcpy(REAL(u), a->u, sizeof(double) * (size_t) C->m * a->k);
    memcpy(REAL(v), a->v, sizeof(double) * (size_t) C->n * a->k);
    cg_atoms_weights(a, REAL(w));
    SET_VECTOR_ELT(out, 0, u); SET_VECTOR_ELT(out, 1, w); SET_VECTOR_ELT(out, 2, v);
    SEXP nm = PROTECT(allocVector(STRSXP, 3));
    SET_STRING_ELT(nm, 0, mkChar("u"));
    SET_STRING_ELT(nm, 1, mkChar("w"));
    SET_STRING_ELT(nm, 2, mkChar("v"));
    setAttrib(out, R_NamesSymbol, nm);
    UNPROTECT(5);
    return out;
}
