/* smf.h: the stochastic matrix factorization family's own kernels (paper
 * 002, Zhao, Haskell and Feng): the model of problem (3), i.e. the sets C,
 * H, R and the regularizers psi, varphi, phi of Section 2, their proximal
 * operators, and the BSUM solver (eqs. 5-6) of the coefficient/outlier
 * sub-problem (2). Shared by prob_smf.c (the solvers' problem) and
 * smf_api.c (predict() and the tests); pure C on raw pointers. */
#ifndef STOCHCG_SMF_H
#define STOCHCG_SMF_H
#include "stochcg.h"

/* the dictionary set C (column-separable) */
enum { SMF_C_FREE = 0,          /* R^{d x k} (ossl, orpca, omrmd, olrr) */
       SMF_C_L2BALL = 1,        /* ||W_:i||_2 <= 1 (odl) */
       SMF_C_SIMPLEX = 2,       /* W >= 0, ||W_:i||_1 = 1 (onmf, ssodl) */
       SMF_C_NONNEG_L2BALL = 3  /* W >= 0, ||W_:i||_2 <= 1 (ornmf) */ };
/* the coefficient set H and regularizer varphi */
enum { SMF_H_L1 = 0,            /* R^k, lambda ||h||_1 (odl) */
       SMF_H_RIDGE = 1,         /* R^k, lambda/2 ||h||^2 (orpca, olrr) */
       SMF_H_RIDGE_NONNEG = 2,  /* R^k_+, lambda/2 ||h||^2 (onmf, ssodl) */
       SMF_H_GROUP = 3,         /* R^k, sum_j lambda_j ||h_gj|| (ossl) */
       SMF_H_BALL = 4,          /* ||h|| <= 1, no regularizer (omrmd) */
       SMF_H_BOX = 5            /* [0, M]^k, no regularizer (ornmf) */ };
/* the outlier set R and regularizer phi */
enum { SMF_R_NONE = 0,          /* R = {0}: loss l_1 (eq. 1) */
       SMF_R_L1 = 1,            /* R^d, lambda ||r||_1 (orpca, omrmd, olrr) */
       SMF_R_L1_BOX = 2         /* [-M', M']^d, lambda ||r||_1 (ornmf) */ };

typedef struct {
    int d, k;
    int dict_set;
    /* psi(W), one of: psi_ridge / 2 ||W||_F^2 (orpca); psi_maxrow / 2
     * ||W||_{2,inf}^2, the largest squared row norm (omrmd); 1/2 tr(W'QW)
     * with Q psd d x d (ssodl: lambda1 L; olrr), Q_lmax its top eigenvalue */
    double psi_ridge, psi_maxrow;
    const double *Q;
    double Q_lmax;
    int h_kind;
    double h_lambda, h_bound;
    int n_groups;                /* SMF_H_GROUP: groups 0..end[0]-1, ... */
    const int *group_end;
    const double *group_lambda;
    int r_kind;
    double r_lambda, r_bound;
    double tol;                  /* BSUM: relative change that stops it */
    int max_iter;                /* BSUM: iteration cap */
} smf_model;

/* one data column: dense (x, length d) or sparse (nnz entries i, x) */
typedef struct { const double *x; const int *i; int nnz, dense; } smf_column;

/* BSUM scratch: h, r and their helpers */
typedef struct {
    double *h, *hnew, *r, *Wty, *Wtr, *g, *Wh, *res;
    double *hess, *dir, *diag, *full;   /* projected Newton: k x k, k, k, k */
    int *free_of;                       /* its free coordinates, k */
} smf_work;

void   smf_work_alloc(smf_work *w, int d, int k);   /* R_alloc */
/* prox of step * varphi + delta_H, in place */
void   smf_prox_h(const smf_model *M, double *h, double step);
/* prox of phi + delta_R, in place (zero for R = {0}) */
void   smf_prox_r(const smf_model *M, double *r);
/* prox of eta psi + delta_C on W (d x k), in place: closed forms, or (Q)
 * accelerated projected gradient per column to the model's tol */
void   smf_prox_dict(const smf_model *M, double *W, double eta);
/* the curvature of psi (the Lipschitz constant of its gradient's part) */
double smf_psi_curvature(const smf_model *M);
double smf_varphi(const smf_model *M, const double *h);
double smf_phi(const smf_model *M, const double *r);
double smf_psi(const smf_model *M, const double *W);
/* WtW = W'W and *Lp = its largest eigenvalue ||W||_2^2; scratch 2 k^2 */
int    smf_gram(const smf_model *M, const double *W, double *WtW, double *Lp,
                double *scratch);
/* largest eigenvalue of the symmetric k x k A (scratch 2 k^2) */
int    smf_lambda_max(const double *A, int k, double *value, double *scratch);
/* Sub-problem (2) for column y at W from h = 0, r = 0: by projected
 * Newton on the envelope in h when H is a box and varphi a ridge or zero
 * (orpca, olrr, onmf, ssodl, ornmf; exact up to rounding in a few steps),
 * else (or if a Newton system is singular) by BSUM (5)-(6):
 * result in w->h, w->r, residual y - W h - r in w->res. Returns the value
 * of l~_2 (or l~_1) there; iterations done in *iters. */
double smf_solve_column(const smf_model *M, const double *W, const double *WtW, double Lp,
                        const smf_column *y, smf_work *w, int *iters);
/* A += h h', B += (y - r) h' for the solution in w */
void   smf_accumulate(const smf_model *M, const smf_column *y, const smf_work *w,
                      double *A, double *B);
/* G = (W A - B) / count: the gradient (7) summed over the columns in A, B */
void   smf_gradient_from_stats(const smf_model *M, const double *W, const double *A,
                               const double *B, double count, double *G);

/* tests (smf_api.c): on a problem built with W = W0, the vr estimate at W
 * from the given batch (0-based) into V and the full gradient at W into G */
void   smf_vr_estimate_at(cg_problem *P, const double *W, const int *batch, int nb,
                          double *V, double *G);
/* the model of a spec (prob_smf.c; R errors on bad fields) */
void   smf_model_from_spec(smf_model *M, SEXP spec, int d, int k);
#endif
