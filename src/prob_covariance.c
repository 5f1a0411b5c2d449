/* Positive definite sparse covariance estimation (sparse_covariance()):
 *   "sparse"          min_{R >= eps I} 1/2 ||R - S||_F^2 + lambda |R|_off
 *                     (Xue, Ma and Zou 2012; |.|_off the l1 norm of the
 *                     off-diagonal entries: the diagonal is free);
 *   "lowrank+sparse"  min 1/2 ||L + R - S||_F^2 + gamma tr L + lambda |R|_off
 *                     over L psd and R >= eps I (a convex POET).
 * The floored sparse part is solved on its dual,
 *   max_{Lambda psd} g(Lambda),  R(Lambda) = soft_off(T + Lambda, lambda),
 * T = S - L, grad g = eps I - R(Lambda) (1-Lipschitz), by accelerated
 * projected gradient with adaptive restart: the projection onto the psd cone
 * needs only the eigenpairs of R(Y) - Y below eps, as many as the floor has
 * active directions (1 to 8 on stock returns), found by Lanczos on a sparse
 * plus low-rank operator; Lambda stays factored. No full eigendecomposition
 * of a p x p matrix is taken, and S is the only dense p x p array. When
 * soft_off(S) already has all its eigenvalues above eps, the first step
 * finds none below and Lambda = 0 is optimal (one iteration).
 * "lowrank+sparse" minimizes L out: F(R) = min_L 1/2 ||L + R - S||^2 +
 * gamma tr L is 1-smooth with gradient R + L(R) - S, L(R) = psd part of
 * (S - R - gamma I) from the eigenpairs of S - R above gamma; accelerated
 * proximal gradient with restart on R, whose proximal step is the floored
 * sparse problem with target S - L(Y), solved by the dual method above, warm
 * started (step 1 without momentum is alternating minimization, which
 * converged only linearly, e.g. 5% per step on a p > n test case), to a
 * tolerance falling geometrically with the outer steps, its test counting
 * the floor raise delta I's cost to the outer certificate and, where the
 * certificate's cheaper dual point applies, ending only with delta <= 1e-2
 * eps (delta_cost, r_step: the raise moves every eigenvalue of the estimate).
 * Certificate of the stated problem (both structures): the Fenchel dual
 *   D(W) = -1/2 ||W||^2 - <W, S> + eps tr W,
 * feasible when -W <= Z for some Z with |Z_ij| <= lambda off the diagonal and
 * 0 on it, and (with L) W >= -gamma I. For "sparse", W = R(Lambda) + delta I
 * - S meets the first condition for every Lambda psd (-W = Z - Lambda -
 * delta I, Z the soft-threshold's residual). For "lowrank+sparse", W = G + t I
 * with G = L + R(Lambda) + delta I - S right after an L step: G >= -gamma I
 * by that step, and -W <= Z iff Lambda + (L - Lr) + (delta + t) I >= 0, a
 * low-rank matrix plus a multiple of I, so t comes from a small dense
 * eigenproblem in the span of the factors: no p x p eigenvalue is needed.
 * That t is of the size of the last change of L, and this W pays the floor
 * raise delta in full (delta tr(R_f - eps I), see delta_cost), so when it
 * leaves the gap above tol, W = R(Lambda) - S + Lr + delta Q + t I is tried
 * too (Q = U U' on Lr's eigenvectors, where the L step needs the raise; t
 * from lambda_min by Lanczos; tight at the optimum; one p x p dense
 * operator; gap_b).
 * The primal point raises the diagonal of R(Lambda) by
 * delta = max(0, eps - lambda_min(R(Lambda))) (Ritz value moved outward, so
 * the floor holds). That Lanczos run costs about two dual steps; for
 * "sparse", evaluations that cannot stop the run take a lower bound on
 * lambda_min from the last Lanczos value instead (Weyl; cv_evaluate), a
 * larger delta and so a valid, looser certificate. */
#include "stochcg.h"
#include <string.h>
#include <stdio.h>
#include <math.h>
#include <float.h>

#define EIG_TOL 1e-9        /* Lanczos tolerance of the projections */
#define CERT_TOL 1e-9       /* ... of lambda_min in the certificates */
#define BLOCK 64            /* columns per dense block of a pass */
#define RAISE_FRAC 1e-2     /* "lowrank+sparse": the floor raise delta at which
                               the certificate may stop paying it on all p
                               directions (delta_cost, cv_evaluate), as a
                               fraction of the floor */

typedef struct {            /* V diag(d) V', V p x r (capacity cap) */
    int r, cap;
    double *v, *d;
} symfac;

typedef struct {            /* symmetric sparse matrix, both triangles */
    int *p, *i; double *x;
    size_t cap;
} csc;

typedef struct {            /* soft_pass screening (see there) */
    int r;
    double *vt, *s, *w;     /* V' (r x p), s_i, d o V[j, ] (r); capacity 2 cap
                               ("sparse"), sc_cap / p ("lowrank+sparse") */
} screen;

typedef struct {
    int p, lowrank, cap;
    int floor_cap;                      /* most directions the floor may bind in
                                           (<= cap; smaller in CV fold fits) */
    const double *S;
    const double *Sf; int sk;           /* optional S = Sf Sf' (p x sk): S's
                                           products at 2 p sk flops, not p^2
                                           (sample covariances at p >> n) */
    double lambda, gamma, eps, trS;
    double s2;                          /* ||S||_F^2 (lowrank_sums; -1: not yet) */
    symfac lam, prev, Y, nxt, L, Lr;    /* dual, its previous, extrapolation,
                                           the step's output; L and the L of
                                           the last R step (target T = S - Lr) */
    double tk;                          /* APG momentum */
    csc W, R;                           /* R(Y) (work), R(Lambda) (certified) */
    double delta, lmin;                 /* diagonal raise, lambda_min(R(Lambda)) */
    csc Rref;                           /* R(Lambda) at the last Lanczos certificate */
    double ref_lmin, obj_first;         /* its lambda_min; the run's first objective */
    int has_ref, bounded;               /* Rref is set; lmin is only a lower bound */
    double lmin_hi;                     /* (bounded) an upper bound on lambda_min */
    double g2, gs, gt, trG, l1;         /* ||G||^2, <G, S>, <G, T>, tr G, |R|_off;
                                           G = R(Lambda) - T */
    double gap_inner, obj_inner;        /* the R step's own certificate */
    double inner_tol, gap_goal;         /* gap_goal: the run's tol */
    int max_inner, inner_iters, restarts;
    double outer_steps;                 /* R steps of the run (r_step's schedule) */
    double *block, *block2, *scratch;   /* p x BLOCK, p x BLOCK, 2 cap x BLOCK */
    int have_R;                         /* R(Lambda) computed for Lambda, Lr */
    int fresh_L;                        /* L is the L step's for the current R */
    csc Rm, Rm2;                        /* R_f of the two previous R steps */
    screen sc;                          /* soft_pass's screening buffers */
    size_t sc_cap;                      /* ... their capacity ("lowrank+sparse") */
    double tt, ts, tt_mag;              /* ||T||^2, <T, S> for T = S - Lr, and the
                                           size of their terms (lowrank_totals) */
    int tt_ok;                          /* tt, ts are Lr's */
    double dm, dm2, tR;                 /* their diagonal raises; R momentum */
    int has_Rm;
    /* "lowrank+sparse": the R step's dual splits over J, the variables whose
     * off-diagonal |T_ij| are all <= lambda (T = S - Lr): for those the
     * dual's fixed point is diagonal, ell_j = max(eps - T_jj, 0) (the
     * "sparse" components' singletons), so Lambda = diag(ell) + V diag(d) V'
     * with V's rows zero on J, and the eigenproblems run on the other
     * m_rest variables (see split_singletons) */
    double *ell, *tdiag;                /* ell (p; NULL for "sparse"); T_jj */
    int *single, *rest, m_rest, *offnz; /* J flags; the others' indices; pass flags */
    int W_ready;                        /* W = R(Lambda) made by split_singletons */
    double passes;                      /* passes over S (epochs) */
    double passes_before_eval;          /* ... when the last evaluation began
                                           (a resumed run evaluates that point
                                           again: init =) */
    long n_matvec;
    cg_problem *P;
} cov;

/* ------------------------------------------------------------- factors */
static void fac_init(symfac *f, int p, int cap)
{
    f->r = 0; f->cap = cap;
    f->v = cg_zeros((size_t) p * cap); f->d = cg_zeros(cap);
}

static void fac_copy(symfac *to, const symfac *from, int p)
{
    to->r = from->r;
    memcpy(to->v, from->v, (size_t) p * from->r * sizeof(double));
    memcpy(to->d, from->d, (size_t) from->r * sizeof(double));
}

/* y += coef V diag(d) V' x  (t: r scratch) */
static void fac_mult_add(const symfac *f, int p, double coef, const double *x, double *y,
                         double *t)
{
    if (f->r == 0 || coef == 0.0) return;
    const double one = 1.0, zero = 0.0; const int inc = 1;
    F77_CALL(dgemv)("T", &p, &f->r, &one, f->v, &p, x, &inc, &zero, t, &inc FCONE);
    for (int k = 0; k < f->r; k++) t[k] *= coef * f->d[k];
    F77_CALL(dgemv)("N", &p, &f->r, &one, f->v, &p, t, &inc, &one, y, &inc FCONE);
}

/* out (p x nb) = coef * columns j0.. j0+nb-1 of V diag(d) V' (+ out if add) */
static void fac_columns(const symfac *f, int p, int j0, int nb, double coef, double *out,
                        int add, double *scratch)
{
    if (f->r == 0) { if (!add) memset(out, 0, (size_t) p * nb * sizeof(double)); return; }
    /* scratch (r x nb) = diag(coef d) V[j0.., ]' */
    for (int c = 0; c < nb; c++)
        for (int k = 0; k < f->r; k++)
            scratch[k + (size_t) c * f->r] = coef * f->d[k] * f->v[j0 + c + (size_t) k * p];
    const double one = 1.0, beta = add ? 1.0 : 0.0;
    F77_CALL(dgemm)("N", "N", &p, &nb, &f->r, &one, f->v, &p, scratch, &f->r, &beta, out, &p
                    FCONE FCONE);
}

/* <A, B> for factored A, B: sum_ij a_i b_j (u_i' v_j)^2 */
static double fac_inner(const symfac *a, const symfac *b, int p)
{
    double s = 0.0; const int inc = 1;
    for (int i = 0; i < a->r; i++)
        for (int j = 0; j < b->r; j++) {
            const double c = F77_CALL(ddot)(&p, a->v + (size_t) i * p, &inc,
                                            b->v + (size_t) j * p, &inc);
            s += a->d[i] * b->d[j] * c * c;
        }
    return s;
}

static double fac_trace(const symfac *f)
{
    double s = 0.0;
    for (int k = 0; k < f->r; k++) s += f->d[k];
    return s;
}

/* smallest eigenvalue of M = sum_f coef_f F_f = V diag(w) V' (V the k
 * stacked factor columns): with V'V = Q diag(th) Q', V = U th^1/2 Q' (U
 * orthonormal), so the spectrum of M off its null space is that of the
 * k x k B = C diag(w) C', C = th^1/2 Q'; M also has 0 when k < p. */
static int fac_min_eigen(const symfac **f, const double *coef, int nf, int p, double *out)
{
    int k = 0;
    for (int a = 0; a < nf; a++) k += f[a]->r;
    *out = 0.0;
    if (k == 0) return CG_OK;
    const void *vmax = vmaxget();
    double *V = (double *) R_alloc((size_t) p * k, sizeof(double));
    double *w = (double *) R_alloc(k, sizeof(double));
    int col = 0;
    for (int a = 0; a < nf; a++)
        for (int j = 0; j < f[a]->r; j++, col++) {
            memcpy(V + (size_t) col * p, f[a]->v + (size_t) j * p, (size_t) p * sizeof(double));
            w[col] = coef[a] * f[a]->d[j];
        }
    /* K = V'V = Q diag(th) Q' */
    double *K = (double *) R_alloc((size_t) k * k, sizeof(double));
    const double one = 1.0, zero = 0.0;
    F77_CALL(dgemm)("T", "N", &k, &k, &p, &one, V, &p, V, &p, &zero, K, &k FCONE FCONE);
    double *th = (double *) R_alloc(k, sizeof(double));
    double *Q = (double *) R_alloc((size_t) k * k, sizeof(double));
    int st = cg_lapack_syevr(K, k, 1, k, th, Q);
    if (st == CG_OK) {
        /* B = C' diag(w) C with C = diag(sqrt th) Q' (k x k): C[i, j] = sqrt(th_i) Q[j, i] */
        double *C = (double *) R_alloc((size_t) k * k, sizeof(double));
        for (int i = 0; i < k; i++) {
            const double sq = th[i] > 0.0 ? sqrt(th[i]) : 0.0;
            for (int j = 0; j < k; j++) C[i + (size_t) j * k] = sq * Q[j + (size_t) i * k];
        }
        double *B = (double *) R_alloc((size_t) k * k, sizeof(double));
        for (int i = 0; i < k; i++)
            for (int j = 0; j <= i; j++) {
                double b = 0.0;
                for (int l = 0; l < k; l++) b += C[i + (size_t) l * k] * w[l] * C[j + (size_t) l * k];
                B[i + (size_t) j * k] = B[j + (size_t) i * k] = b;
            }
        double *e = (double *) R_alloc(k, sizeof(double));
        double *Z = (double *) R_alloc((size_t) k * k, sizeof(double));
        st = cg_lapack_syevr(B, k, 1, 1, e, Z);
        /* moved outward by a bound on the rounding: the p-term sums of K
         * (p eps |V|'|V|, columns of unit norm: at most p eps k) and the two
         * backward-stable k x k eigenproblems (a few k eps ||K|| ||w||),
         * scaled by max |w| ||K||; the certificate must not gain from it
         * (a negative gap was seen under valgrind's arithmetic) */
        if (st == CG_OK) {
            double wmax = 0.0, kmax = 0.0;
            for (int i = 0; i < k; i++) { wmax = fmax(wmax, fabs(w[i])); kmax = fmax(kmax, fabs(th[i])); }
            const double err = ((double) p + 4.0 * k + 10.0) * DBL_EPSILON * k
                               * wmax * fmax(kmax, 1.0);
            *out = (k < p ? fmin(e[0], 0.0) : e[0]) - err;
        }
    }
    vmaxset(vmax);
    return st;
}

/* ------------------------------------------------------ sparse storage */
/* room for `need` entries, the first `used` kept. Growth is geometric and
 * made outside any vmax scope, so it lives until the solve returns. */
static void csc_reserve(csc *m, size_t used, size_t need)
{
    if (need <= m->cap) return;
    size_t cap = m->cap * 2 > need ? m->cap * 2 : need;
    int *i = (int *) R_alloc(cap, sizeof(int));
    double *x = (double *) R_alloc(cap, sizeof(double));
    if (used) {
        memcpy(i, m->i, used * sizeof(int));
        memcpy(x, m->x, used * sizeof(double));
    }
    m->i = i; m->x = x; m->cap = cap;
}

/* ------------------------------------------------------------ operator */
/* y = s_coef S x + c_coef C x + sum_f f_coef F x + shift x */
typedef struct {
    const cov *c;
    double s_coef; const csc *C, *C2; double c_coef, c2_coef;
    const symfac *F[2]; double f_coef[2];
    double shift;
    double *t, *ts;                     /* ts: Sf'x (sk) */
    const int *idx; int m;              /* restricted to the m variables idx
                                           (op_restrict), else NULL */
    double *xp, *yp;                    /* p-vectors of the restriction (xp
                                           zero off idx) */
} cov_op;

static void cov_apply(const cov_op *o, const double *x, double *y)
{
    const int p = o->c->p;
    if (o->s_coef != 0.0) {
        const int inc = 1; const double zero = 0.0, one = 1.0;
        const cov *c = o->c;
        if (c->Sf) {
            F77_CALL(dgemv)("T", &p, &c->sk, &one, c->Sf, &p, x, &inc, &zero, o->ts, &inc FCONE);
            F77_CALL(dgemv)("N", &p, &c->sk, &o->s_coef, c->Sf, &p, o->ts, &inc, &zero, y, &inc
                            FCONE);
        } else {
            F77_CALL(dgemv)("N", &p, &p, &o->s_coef, c->S, &p, x, &inc, &zero, y, &inc FCONE);
        }
    } else memset(y, 0, (size_t) p * sizeof(double));
    if (o->shift != 0.0) for (int i = 0; i < p; i++) y[i] += o->shift * x[i];
    for (int m = 0; m < 2; m++) {
        const csc *C = m == 0 ? o->C : o->C2;
        const double coef = m == 0 ? o->c_coef : o->c2_coef;
        if (C == NULL) continue;
        for (int j = 0; j < p; j++) {
            const double xj = coef * x[j];
            if (xj != 0.0) for (int k = C->p[j]; k < C->p[j + 1]; k++) y[C->i[k]] += C->x[k] * xj;
        }
    }
    for (int f = 0; f < 2; f++)
        if (o->F[f]) fac_mult_add(o->F[f], p, o->f_coef[f], x, y, o->t);
}

static void cov_mult(const cg_linop *A, const double *x, double *y)
{
    const cov_op *o = (const cov_op *) A->data;
    if (o->idx) {                       /* P' M P, P the columns idx of I */
        for (int k = 0; k < o->m; k++) o->xp[o->idx[k]] = x[k];
        cov_apply(o, o->xp, o->yp);
        for (int k = 0; k < o->m; k++) y[k] = o->yp[o->idx[k]];
    } else cov_apply(o, x, y);
    ((cg_linop *) A)->n_matvec++;
}

static void op_init(cg_linop *A, cov_op *o, const cov *c)
{
    memset(o, 0, sizeof(*o));
    o->c = c;
    o->t = (double *) R_alloc(3 * (size_t) c->cap + 1, sizeof(double));
    if (c->Sf) o->ts = (double *) R_alloc(c->sk, sizeof(double));
    A->m = A->n = c->p; A->mult = cov_mult; A->tmult = cov_mult; A->data = o;
    A->n_matvec = 0;
}

/* the operator restricted to the variables outside J (c->rest), for a
 * matrix that is block diagonal between J and the rest with its F parts'
 * rows zero on J; returns the restricted dimension */
static int op_restrict(cg_linop *A, cov_op *o, const cov *c)
{
    if (c->ell == NULL || c->m_rest == c->p) return c->p;
    o->idx = c->rest; o->m = c->m_rest;
    o->xp = cg_zeros((size_t) c->p);
    o->yp = (double *) R_alloc((size_t) c->p, sizeof(double));
    A->m = A->n = c->m_rest;
    return c->m_rest;
}

/* --------------------------------------------------------------- passes */
/* Screening for soft_pass: the entry a_ij = S_ij + (A - Lf)_ij of S - Lf +
 * A, A and Lf factored (V diag(d) V' each; Lf = 0 for "sparse"), has
 * |(A - Lf)_ij| <= s_i s_j with s_i^2 = sum_k |d_k| V_ik^2 over both
 * factors' columns (Cauchy-Schwarz), so soft_off(a_ij) is exactly
 * 0 whenever |S_ij| + s_i s_j < lambda, and A_ij is needed only at the other
 * entries (the "candidates"). At a penalty that makes the estimate sparse
 * they are a few percent of the p^2, and their A_ij as dot products of
 * rows of V cost r each, where the dgemm of a full pass costs p^2 r. A block
 * of columns with more than a quarter candidates goes through dgemm. The
 * margins make the skip exact in floating point: the dot product's rounding
 * is below 1e-10 s_i s_j, and |S_ij| + |A_ij| below lambda (1 - 1e-12)
 * cannot round above lambda. With Lf (golub, p = 4758, L of rank 5: the
 * dgemm was 38% of a fold fit's CPU) a skipped entry's t = S_ij - Lf_ij is
 * not made either: its terms of the statistics (r = 0, g = -t) come from
 * the totals ||S - Lf||^2 and <S - Lf, S> (lowrank_totals) less those of
 * the entries made. Where L has rank near n (s_i s_j about 1) the blocks
 * stay dense. */
static void screen_init(screen *sc, const symfac *A, const symfac *Lf, int p)
{
    sc->r = A->r + Lf->r;
    for (int i = 0; i < p; i++) {
        double a = 0.0;
        for (int k = 0; k < sc->r; k++) {
            const symfac *f = k < A->r ? A : Lf;
            const int q = k < A->r ? k : k - A->r;
            const double v = f->v[i + (size_t) q * p];
            sc->vt[k + (size_t) i * sc->r] = v;
            a += fabs(f->d[q]) * v * v;
        }
        sc->s[i] = sqrt(a);
    }
}

/* room for a screen of r factor columns ("lowrank+sparse": the dual's and
 * L's; grown geometrically outside any vmax scope, as csc_reserve) */
static void screen_reserve(cov *c, int r)
{
    const size_t need = (size_t) r * c->p;
    if (c->sc.s == NULL) c->sc.s = (double *) R_alloc((size_t) c->p, sizeof(double));
    if (need > c->sc_cap) {
        const size_t cap = need > 2 * c->sc_cap ? need : 2 * c->sc_cap;
        c->sc.vt = (double *) R_alloc(cap, sizeof(double));
        c->sc.w = (double *) R_alloc(cap / c->p + 1, sizeof(double));
        c->sc_cap = cap;
    }
}

/* ||S||_F^2, once per solve (lowrank_sums, lowrank_totals) */
static double s_norm2(cov *c)
{
    if (c->s2 < 0.0) {
        double s2 = 0.0;
        const size_t pp = (size_t) c->p * c->p;
        for (size_t k = 0; k < pp; k++) s2 += c->S[k] * c->S[k];
        c->s2 = s2;
    }
    return c->s2;
}

/* u'S u, through S's factor (||Sf' u||^2) when there is one; y (p) and
 * ts (sk, with the factor) are scratch */
static double quad_S(const cov *c, const double *u, double *y, double *ts)
{
    const int p = c->p, inc = 1;
    const double one = 1.0, zero = 0.0;
    if (c->Sf) {
        F77_CALL(dgemv)("T", &p, &c->sk, &one, c->Sf, &p, u, &inc, &zero, ts, &inc FCONE);
        return F77_CALL(ddot)(&c->sk, ts, &inc, ts, &inc);
    }
    F77_CALL(dgemv)("N", &p, &p, &one, c->S, &p, u, &inc, &zero, y, &inc FCONE);
    return F77_CALL(ddot)(&p, u, &inc, y, &inc);
}

/* ||T||^2 and <T, S> for T = S - Lr (Lr = U diag(d) U'), for the screened
 * passes' statistics, once per Lr: ||S||^2 - 2 <S, Lr> + ||Lr||^2 and
 * ||S||^2 - <S, Lr>, with <S, Lr> = sum_k d_k u_k' S u_k through S's
 * factor when there is one */
static void lowrank_totals(cov *c)
{
    if (c->tt_ok) return;
    const int p = c->p;
    s_norm2(c);
    double SL = 0.0;
    const void *vmax = vmaxget();
    double *y = (double *) R_alloc(p, sizeof(double));
    double *ts = c->Sf ? (double *) R_alloc(c->sk, sizeof(double)) : NULL;
    for (int q = 0; q < c->Lr.r; q++) {
        const double *u = c->Lr.v + (size_t) q * p;
        const double uSu = quad_S(c, u, y, ts);
        SL += c->Lr.d[q] * uSu;
    }
    vmaxset(vmax);
    const double LL = fac_inner(&c->Lr, &c->Lr, p);
    c->tt = c->s2 - 2.0 * SL + LL;
    c->ts = c->s2 - SL;
    c->tt_mag = c->s2 + 2.0 * fabs(SL) + fabs(LL);
    c->tt_ok = 1;
}

static inline int screen_skip(const screen *sc, double sij, int i, int j, double lambda)
{
    return i != j && (fabs(sij) + sc->s[i] * sc->s[j] * (1.0 + 1e-10)) < lambda * (1.0 - 1e-12);
}

/* out = soft_off(S - Lf + A, lambda) in compressed columns, by blocks of
 * columns (the low-rank parts through dgemm, or screened, see above); with
 * stats, also the sums ||G||^2, <G, S>, <G, T>, tr G and |R|_off for
 * G = R - T, T = S - Lf. With c->ell (the dual's diagonal part on J), A is
 * the factored part and diag(ell) is added too. With flags, offnz[j] = 1
 * where column j of T has an off-diagonal |T_ij| > lambda, and tdiag = T_jj
 * (for split_singletons). */
static int soft_pass_once(cov *c, const symfac *A, const symfac *Lf, csc *out, int stats,
                          int flags, int allow_sub)
{
    const int p = c->p;
    double g2 = 0.0, gs = 0.0, gt = 0.0, trG = 0.0, l1 = 0.0;
    double ett = 0.0, ets = 0.0;             /* sum t^2, t S_ij over the entries made */
    double *scratch = c->scratch;
    size_t nz = 0;
    /* with L (sub): a skipped entry's t = S_ij - Lf_ij is not made; the
     * statistics add its terms as totals less the entries made (lowrank_totals) */
    const int sub = Lf->r > 0 && allow_sub;
    const int screened = A->r + Lf->r > 0 && (Lf->r == 0 || sub);
    screen sc = c->sc;
    if (screened) {
        if (c->lowrank) screen_reserve(c, A->r + Lf->r);
        sc = c->sc;
        screen_init(&sc, A, Lf, p);
        if (sub && stats) lowrank_totals(c);
    }
    const int ra = A->r;
    out->p[0] = 0;
    for (int j0 = 0; j0 < p; j0 += BLOCK) {
        const int nb = p - j0 < BLOCK ? p - j0 : BLOCK;
        int dense = !screened;
        if (screened) {
            size_t cand = 0;
            for (int cc = 0; cc < nb; cc++) {
                const int j = j0 + cc;
                const double *sj = c->S + (size_t) j * p;
                for (int i = 0; i < p; i++) cand += !screen_skip(&sc, sj[i], i, j, c->lambda);
            }
            dense = cand > (size_t) p * nb / 4;
        }
        if (dense) {
            fac_columns(A, p, j0, nb, 1.0, c->block, 0, scratch);     /* A columns */
            fac_columns(Lf, p, j0, nb, 1.0, c->block2, 0, scratch);   /* Lf columns */
        }
        csc_reserve(out, nz, nz + (size_t) p * nb);
        for (int cc = 0; cc < nb; cc++) {
            const int j = j0 + cc;
            const double *sj = c->S + (size_t) j * p;
            const double *aj = c->block + (size_t) cc * p, *lj = c->block2 + (size_t) cc * p;
            if (!dense) {
                for (int k = 0; k < ra; k++) sc.w[k] = A->d[k] * sc.vt[k + (size_t) j * sc.r];
                for (int k = ra; k < sc.r; k++)
                    sc.w[k] = Lf->d[k - ra] * sc.vt[k + (size_t) j * sc.r];
            }
            for (int i = 0; i < p; i++) {
                double t, a;
                if (dense) {
                    t = sj[i] - lj[i]; a = t + aj[i];
                }
                else {
                    if (screen_skip(&sc, sj[i], i, j, c->lambda)) {
                        if (sub) continue;   /* r = 0, |t| < lambda: in the totals */
                        t = sj[i]; a = 0.0;
                    } else {
                        const double *vi = sc.vt + (size_t) i * sc.r;
                        double ya = 0.0, yl = 0.0;
                        for (int k = 0; k < ra; k++) ya += vi[k] * sc.w[k];
                        for (int k = ra; k < sc.r; k++) yl += vi[k] * sc.w[k];
                        t = sj[i] - yl; a = t + ya;
                    }
                }
                if (i == j) {
                    if (c->ell) a += c->ell[j];
                    if (flags) c->tdiag[j] = t;
                } else if (flags && fabs(t) > c->lambda) c->offnz[j] = 1;
                double r = a;
                if (i != j) r = a > c->lambda ? a - c->lambda : a < -c->lambda ? a + c->lambda : 0.0;
                if (r != 0.0) { out->i[nz] = i; out->x[nz] = r; nz++; }
                if (stats) {
                    const double g = r - t;
                    g2 += g * g; gs += g * sj[i]; gt += g * t;
                    if (i == j) trG += g; else l1 += fabs(r);
                    if (sub) { ett += t * t; ets += t * sj[i]; }
                }
            }
            out->p[j + 1] = (int) nz;
        }
    }
    int ok = 1;
    if (stats && screened && sub) {
        /* the skipped entries: r = 0, g = -t */
        const double tt = c->tt - ett, ts = c->ts - ets;
        g2 += tt; gs -= ts; gt -= tt;
        /* their sums' rounding against the R step's tolerance */
        ok = 1e4 * DBL_EPSILON * c->tt_mag
             <= 1e-2 * c->inner_tol * fabs(0.5 * g2 + c->lambda * l1);
    }
    if (stats) { c->g2 = g2; c->gs = gs; c->gt = gt; c->trG = trG; c->l1 = l1; }
    c->passes += 1.0;
    return ok;
}

static void soft_pass(cov *c, const symfac *A, const symfac *Lf, csc *out, int stats,
                      int flags)
{
    /* (a pass made again counts once: passes are the run's epochs, and a
     * continued run must count them as one longer run does) */
    if (!soft_pass_once(c, A, Lf, out, stats, flags, 1)) {
        soft_pass_once(c, A, Lf, out, stats, flags, 0);
        c->passes -= 1.0;
    }
}

/* ------------------------------------------------------- the R step */
/* One accelerated projected-gradient step on the dual with target S - Lr:
 * Lambda+ = psd part of (Y + eps I - R(Y)) = sum (eps - d) u u' over the
 * eigenpairs (d, u) of R(Y) - Y below eps. */
static int dual_step(cov *c)
{
    const int p = c->p;
    const double tn = (1.0 + sqrt(1.0 + 4.0 * c->tk * c->tk)) / 2.0;
    const double beta = (c->tk - 1.0) / tn;
    /* Y = (1 + beta) Lambda - beta Lambda_prev, factored side by side */
    symfac *Y = &c->Y;
    fac_copy(Y, &c->lam, p);
    for (int k = 0; k < Y->r; k++) Y->d[k] *= 1.0 + beta;
    if (beta > 0.0 && c->prev.r > 0) {
        memcpy(Y->v + (size_t) p * Y->r, c->prev.v, (size_t) p * c->prev.r * sizeof(double));
        for (int k = 0; k < c->prev.r; k++) Y->d[Y->r + k] = -beta * c->prev.d[k];
        Y->r += c->prev.r;
    }
    /* (the first step of an R step: Y = Lambda, W made by split_singletons) */
    if (!c->W_ready) soft_pass(c, Y, &c->Lr, &c->W, 0, 0);
    c->W_ready = 0;
    cg_linop A; cov_op o;
    const void *vmax = vmaxget();
    op_init(&A, &o, c);
    o.C = &c->W; o.c_coef = 1.0; o.F[0] = Y; o.f_coef[0] = -1.0;
    /* on J, Y + eps I - R(Y) is diag(eps - T_jj), whose psd part is the
     * fixed diag(ell): the eigenpairs below eps are sought on the rest */
    const int m = op_restrict(&A, &o, c);
    int found = 0, st = CG_OK;
    if (m > 0) {
        double *vecs = m < p ? (double *) R_alloc((size_t) m * c->cap, sizeof(double))
                             : c->nxt.v;
        /* (the count's extrapolated growth for "sparse" only: see
         * beyond_next_k) */
        st = cg_eigs_beyond(&A, -1, c->eps, c->lam.r + 2, !c->lowrank, EIG_TOL, c->floor_cap,
                            &found, c->nxt.d, vecs);
        if (st == CG_OK && m < p)          /* back to p-vectors, zero on J */
            for (int k = 0; k < found; k++) {
                double *v = c->nxt.v + (size_t) k * p;
                memset(v, 0, (size_t) p * sizeof(double));
                for (int q = 0; q < m; q++) v[c->rest[q]] = vecs[q + (size_t) k * m];
            }
    }
    c->n_matvec += A.n_matvec;
    vmaxset(vmax);
    if (st == CG_ERR_DOMAIN) {
        cg_fail(c->P, "the floor is active in more than %d directions; give a larger "
                "`floor` or `lambda`", c->floor_cap);
        return -1;
    }
    if (st != CG_OK) { cg_fail_status(c->P, st, "the eigenvalues below the floor"); return -1; }
    c->nxt.r = found;
    for (int k = 0; k < found; k++) c->nxt.d[k] = c->eps - c->nxt.d[k];
    /* gradient restart (O'Donoghue and Candes 2015): momentum off when
     * <Y - Lambda+, Lambda+ - Lambda> > 0, from factored inner products */
    const double yn = fac_inner(Y, &c->nxt, p), yl = fac_inner(Y, &c->lam, p);
    const double nn = fac_inner(&c->nxt, &c->nxt, p), nl = fac_inner(&c->nxt, &c->lam, p);
    if (yn - yl - nn + nl > 0.0) { c->tk = 1.0; c->restarts++; } else c->tk = tn;
    symfac t = c->prev; c->prev = c->lam; c->lam = c->nxt; c->nxt = t;
    return found;
}

/* delta, objective and gap of the R step from a lower bound on
 * lambda_min(R(Lambda)) (after a soft pass with statistics) */
static void set_certificate(cov *c, double lmin)
{
    c->have_R = 1;
    c->lmin = lmin;
    c->delta = lmin < c->eps ? c->eps - lmin : 0.0;
    const double d = c->delta, p = c->p;
    c->obj_inner = 0.5 * c->g2 + d * c->trG + 0.5 * p * d * d + c->lambda * c->l1;
    c->gap_inner = c->obj_inner - (-0.5 * c->g2 - c->gt + c->eps * c->trG);
}

/* lambda_min of the R(Lambda) in c->R, moved outward by the tolerance */
static int lowest_of_R(cov *c, double *lmin)
{
    cg_linop A; cov_op o;
    const void *vmax = vmaxget();
    op_init(&A, &o, c);
    o.C = &c->R; o.c_coef = 1.0;
    /* R is block diagonal between J and the rest when J's columns hold
     * their diagonal entry alone (checked: after a cut step R may come from
     * another T): then lambda_min is the least of J's diagonal and the
     * rest's, where the floor's cluster on J (hundreds of variables at
     * p >> n) no longer stalls Lanczos */
    double jmin = R_PosInf;
    int split = c->ell != NULL && c->m_rest < c->p;
    for (int j = 0; split && j < c->p; j++) {
        if (!c->single[j]) continue;
        double rjj = 0.0;
        for (int k = c->R.p[j]; k < c->R.p[j + 1]; k++) {
            if (c->R.i[k] == j) rjj = c->R.x[k];
            else { split = 0; break; }
        }
        jmin = fmin(jmin, rjj);
    }
    int st = CG_OK;
    const int m = split ? op_restrict(&A, &o, c) : c->p;
    /* the floor binds in rank(Lambda) directions: that many eigenvalues
     * cluster at eps near the optimum */
    if (m > 0) st = cg_lowest_eigenvalue(&A, c->lam.r + 2, CERT_TOL, lmin);
    if (st == CG_OK && split) *lmin = m > 0 ? fmin(*lmin, jmin) : jmin;
    c->n_matvec += A.n_matvec;
    vmaxset(vmax);
    if (st != CG_OK) cg_fail_status(c->P, st, "the smallest eigenvalue of the estimate");
    return st == CG_OK ? 0 : -1;
}

static int certify_lanczos(cov *c)
{
    double lmin;
    if (lowest_of_R(c, &lmin) < 0) return -1;
    set_certificate(c, lmin);
    c->bounded = 0;
    /* the reference of the bounds below */
    const size_t nz = (size_t) c->R.p[c->p];
    csc_reserve(&c->Rref, 0, nz > 0 ? nz : 1);
    memcpy(c->Rref.p, c->R.p, (size_t) (c->p + 1) * sizeof(int));
    if (nz) {
        memcpy(c->Rref.i, c->R.i, nz * sizeof(int));
        memcpy(c->Rref.x, c->R.x, nz * sizeof(double));
    }
    c->ref_lmin = lmin;
    c->has_ref = 1;
    return 0;
}

/* R(Lambda) with its statistics, the floor shift delta and the R step's own
 * duality gap, D_T(W) = -1/2 ||W||^2 - <W, T> + eps tr W at W = G (for
 * "sparse", T = S: the certificate of the stated problem); the R(Lambda)
 * and lambda_min kept as the reference of certify_bounded */
static int certify_inner(cov *c)
{
    soft_pass(c, &c->lam, &c->Lr, &c->R, 1, 0);
    return certify_lanczos(c);
}

/* ||A - B||_F for symmetric sparse A, B (rows sorted in columns), by a
 * merge: no cancellation */
static double csc_dist(const csc *A, const csc *B, int p)
{
    double s = 0.0;
    for (int j = 0; j < p; j++) {
        int ka = A->p[j], kb = B->p[j];
        const int ea = A->p[j + 1], eb = B->p[j + 1];
        while (ka < ea || kb < eb) {
            double d;
            if (kb >= eb || (ka < ea && A->i[ka] < B->i[kb])) d = A->x[ka++];
            else if (ka >= ea || B->i[kb] < A->i[ka]) d = -B->x[kb++];
            else { d = A->x[ka] - B->x[kb]; ka++; kb++; }
            s += d * d;
        }
    }
    return sqrt(s);
}

static double ritz_min(cov *c);

/* The certificate without an eigenvalue computation, for the evaluations a
 * run cannot stop on (see cv_evaluate): by Weyl's inequality
 * lambda_min(R(Lambda)) >= lambda_min(Rref) - ||R(Lambda) - Rref||_2, and
 * the 2-norm is at most the Frobenius norm, so this lmin is a lower bound:
 * the raise delta it gives keeps the point feasible and the gap an upper
 * bound, only looser. (The relative margins cover the rounding of the sums.) */
static void certify_bounded(cov *c)
{
    soft_pass(c, &c->lam, &c->Lr, &c->R, 1, 0);
    const double dist = csc_dist(&c->R, &c->Rref, c->p) * (1.0 + 1e-10);
    /* an upper bound too, for could_stop(): Weyl's other side, and the
     * Rayleigh-Ritz value on the dual's factor (the floor binds there) */
    c->lmin_hi = fmin(c->ref_lmin + dist, ritz_min(c));
    set_certificate(c, c->ref_lmin - dist - 1e-14 * fabs(c->ref_lmin));
    c->bounded = 1;
}

/* the smallest eigenvalue of U' R U, U the dual's factor (orthonormal
 * Ritz vectors): lambda_min(R) is at most that (Rayleigh-Ritz). Used only
 * to decide where a Lanczos certificate is worth its cost: were it not an
 * upper bound, a run would stop later, never on a wrong gap. */
static double ritz_min(cov *c)
{
    const int p = c->p, r = c->lam.r;
    if (r == 0) return R_PosInf;
    const void *vmax = vmaxget();
    double *y = (double *) R_alloc(p, sizeof(double));
    double *H = (double *) R_alloc((size_t) r * r, sizeof(double));
    const double one = 1.0, zero = 0.0; const int inc = 1;
    for (int k = 0; k < r; k++) {
        const double *u = c->lam.v + (size_t) k * p;
        memset(y, 0, (size_t) p * sizeof(double));
        for (int j = 0; j < p; j++) {
            const double uj = u[j];
            if (uj != 0.0)
                for (int q = c->R.p[j]; q < c->R.p[j + 1]; q++) y[c->R.i[q]] += c->R.x[q] * uj;
        }
        F77_CALL(dgemv)("T", &p, &r, &one, c->lam.v, &p, y, &inc, &zero, H + (size_t) k * r,
                        &inc FCONE);
    }
    for (int a = 0; a < r; a++)            /* symmetric part */
        for (int b = 0; b < a; b++)
            H[a + (size_t) b * r] = H[b + (size_t) a * r] =
                0.5 * (H[a + (size_t) b * r] + H[b + (size_t) a * r]);
    double w;
    double *Z = (double *) R_alloc(r, sizeof(double));
    const int st = cg_lapack_syevr(H, r, 1, 1, &w, Z);
    vmaxset(vmax);
    return st == CG_OK ? w : R_PosInf;
}

/* Could an evaluation with this soft pass's statistics stop the run,
 * whatever lambda_min(R(Lambda)) is? Objective and gap depend on it only
 * through delta in [dmin, delta_bounded] (dmin from the upper bound on
 * lambda_min, certify_bounded): the gap's least value there against
 * the run's test, gap <= tol max(|objective|, 1e-3 |first objective|)
 * (cg_run_small_gap), with the objective's largest value there. */
static int could_stop(const cov *c)
{
    if (!(c->gap_goal > 0.0)) return 0;
    const double p = c->p, dmax = c->delta;
    /* delta is at least the one the upper bound on lambda_min gives */
    const double dmin = fmin(c->lmin_hi < c->eps ? c->eps - c->lmin_hi : 0.0, dmax);
    const double base = 0.5 * c->g2 + c->lambda * c->l1;
    const double dual = -0.5 * c->g2 - c->gt + c->eps * c->trG;
    double dlo = -c->trG / p;
    dlo = dlo < dmin ? dmin : dlo > dmax ? dmax : dlo;
    const double gap_lo = base + dlo * c->trG + 0.5 * p * dlo * dlo - dual;
    const double obj_hi = fmax(fabs(base), fabs(base + dmax * c->trG + 0.5 * p * dmax * dmax));
    const double scale = fmax(obj_hi, 1e-3 * fabs(c->obj_first));
    return gap_lo <= c->gap_goal * scale * (1.0 + 1e-6);
}

/* At the start of an R step (target T = S - Lr, no momentum: Y = Lambda):
 * J = the variables whose off-diagonal |T_ij| are all <= lambda, from the
 * pass the first dual step needs. On J, R(Y) has only the diagonal and the
 * dual's fixed point is ell_j = max(eps - T_jj, 0), exactly, whatever the
 * rest is, provided the factored part V diag(d) V' has its rows zero on J:
 * so those rows are zeroed (a different warm start, not a different
 * problem) and ell set, and the pass is made again when that changed Y.
 * At p >> n and a large lambda most variables are in J and the floor binds
 * on hundreds of them (golub, p = 4758: 61 to over 256), a cluster at eps
 * that stalled Lanczos (150,000 products in one step) or exceeded the rank
 * cap; in closed form they cost nothing. */
static void split_singletons(cov *c)
{
    const int p = c->p;
    memset(c->offnz, 0, (size_t) p * sizeof(int));
    soft_pass(c, &c->lam, &c->Lr, &c->W, 0, 1);
    int changed = 0, m = 0;
    for (int j = 0; j < p; j++) {
        const int s1 = !c->offnz[j];
        const double e1 = s1 && c->tdiag[j] < c->eps ? c->eps - c->tdiag[j] : 0.0;
        if (s1 != c->single[j] || e1 != c->ell[j]) changed = 1;
        c->single[j] = s1; c->ell[j] = e1;
        if (!s1) c->rest[m++] = j;
        else
            for (int k = 0; k < c->lam.r; k++) {
                double *v = c->lam.v + j + (size_t) k * p;
                if (*v != 0.0) { *v = 0.0; changed = 1; }
            }
    }
    c->m_rest = m;
    if (changed) soft_pass(c, &c->lam, &c->Lr, &c->W, 0, 0);
    c->W_ready = 1;
}

/* sum_k u_k' R u_k and sum_k u_k'u_k over the columns u_k of f (R sparse,
 * both triangles): the trace of R and of I on f's span when f's columns
 * are orthonormal (delta_cost, the gap (b) of cv_evaluate); y is p scratch */
static void fac_quad_R(const symfac *f, const csc *R, int p, double *y, double *uRu,
                       double *uu)
{
    const int inc = 1;
    *uRu = 0.0; *uu = 0.0;
    for (int q = 0; q < f->r; q++) {
        const double *u = f->v + (size_t) q * p;
        memset(y, 0, (size_t) p * sizeof(double));
        for (int j = 0; j < p; j++) {
            const double uj = u[j];
            if (uj != 0.0)
                for (int k = R->p[j]; k < R->p[j + 1]; k++) y[R->i[k]] += R->x[k] * uj;
        }
        *uRu += F77_CALL(ddot)(&p, u, &inc, y, &inc);
        *uu += F77_CALL(ddot)(&p, u, &inc, u, &inc);
    }
}

/* What the floor's raise delta costs the outer certificate beyond the R
 * step's own gap, as the R step's test counts it. The primal point is R_f
 * = R(Lambda) + delta I (sparse). A dual point W = G + t I with G = L + R_f
 * - S (the gap (a) of cv_evaluate) pays delta tr(R_f - eps I) (its floor
 * multiplier holds delta I: at p >> n about p / tr Lambda times what the R
 * step's gap pays). The dual point (b) of cv_evaluate, W = R(Lambda) - S +
 * Lr + delta Q + t I with Q = U U' on Lr's eigenvectors, raises W by delta
 * only where W >= -gamma I needs it (on Lr's range, where R(Lambda) - S +
 * Lr is about -gamma - delta): with L = Lr and t = 0 its gap is the R
 * step's own plus delta <Q, R_f - eps I> - delta^2 rank(Lr) / 2
 * (derivation at cv_evaluate), i.e. rank(Lr) terms instead of p.
 *
 * That cheaper count is a statement about the objective only: delta raises
 * every eigenvalue of the estimate, the floor's (at p >> n most of the
 * spectrum) by delta / eps relative, and the held-out likelihood follows
 * them (branch lrsrepair: with this count alone golub's fits stopped at
 * delta 0.003 = 0.3 eps and the CV's choice moved, held-out -11888 ->
 * -18514). So where (b) can certify the run, the R step ends only once
 * delta <= RAISE_FRAC eps as well (infinite cost above it), and (b) uses
 * delta Q only then (cv_evaluate): every point the run can stop on has
 * its raise at most RAISE_FRAC eps, or its gap pays the raise on all p
 * directions (where (b) cannot certify: main's count, (a)). Before, the
 * full count let the R step stop with a large delta early and drove it
 * down 4x per outer step (golub gamma 270, lambda 0.52: 6 outer steps,
 * 130 dual steps, final delta 0.008 eps, gap 0.32); with the raise held
 * below 0.01 eps from the first R step the outer steps need not pay it
 * (4 outer steps, 87 dual steps, final delta 0.004 eps, gap 0.011). */
static double delta_cost(const cov *c)
{
    if (!(c->delta > 0.0)) return 0.0;
    const double trRf = c->trG + c->trS - fac_trace(&c->Lr) + c->p * c->delta;
    const double full = c->delta * fmax(trRf - c->p * c->eps, 0.0);
    /* (b)'s own floor: its t is at least CERT_TOL gamma (the Lanczos value
     * moved outward), which costs about that times tr(R_f - eps I). Where
     * that is near the run's tol x |objective| (tight tolerances), only (a)
     * can certify the run: its full cost then (the iterates as before) */
    const double bfloor = CERT_TOL * c->gamma * fmax(trRf - c->p * c->eps, 0.0);
    if (c->Lr.r == 0 || !(10.0 * bfloor < c->gap_goal * fabs(c->obj_inner))) return full;
    /* (a threshold near the certificate's own resolution -- the Lanczos
     * value moved outward, CERT_TOL relative -- could hold an R step to
     * max_inner: a floor of 0, or below 1e-4 of the mean variance, keeps
     * the full count) */
    if (!(RAISE_FRAC * c->eps > 1e-6 * trRf / c->p)) return full;
    if (!(c->delta <= RAISE_FRAC * c->eps)) return R_PosInf;
    const void *vmax = vmaxget();
    double *y = (double *) R_alloc(c->p, sizeof(double));
    double uRu, uu;
    fac_quad_R(&c->Lr, &c->R, c->p, y, &uRu, &uu);
    vmaxset(vmax);
    const double d = c->delta;
    return d * fmax(uRu + (0.5 * d - c->eps) * uu, 0.0);
}

/* R step, warm started from the last dual, to a relative gap that falls
 * geometrically with the outer steps, 1e-3 x 4^-k at the k-th (k from 0,
 * carried by init =), down to inner_tol: inexact proximal steps with
 * summable errors (early steps need no exact R; a schedule of the step
 * count, not of the evaluated gap, so that the evaluations, whose schedule
 * never changes a fit, do not change it). The test counts the floor raise's
 * cost to the outer certificate (delta_cost) with the R step's own gap.
 * Returns the eigenpairs computed or -1. */
static int r_step(cov *c)
{
    int work = 0;
    const double goal = fmax(c->inner_tol, 1e-3 * pow(0.25, fmin(c->outer_steps, 60.0)));
    c->outer_steps++;
    c->tk = 1.0;                               /* the target moved: no momentum */
    c->prev.r = 0;
    if (c->ell) split_singletons(c);
    for (int it = 1; it <= c->max_inner; it++) {
        const int a = dual_step(c);
        if (a < 0) return -1;
        work += a;
        c->inner_iters++;
        if (it == 1 || it % 5 == 0 || it == c->max_inner) {
            if (certify_inner(c) < 0) return -1;
            if (c->gap_inner + delta_cost(c) <= goal * fmax(fabs(c->obj_inner), DBL_MIN))
                return work;
        }
        if (cg_interrupt_poll()) { cg_fail_status(c->P, CG_ERR_INTERRUPT, ""); return -1; }
    }
    return work;
}

/* out = L(Y) = psd part of (S - Y - gamma I), from the eigenpairs of S - Y
 * above gamma, at Y = a R + b Rm (a point R_f, or the extrapolation between
 * two; each with its diagonal raise) */
static int l_step(cov *c, double a, const csc *R, double dR, double b, const csc *Rm,
                  double dRm, symfac *out)
{
    cg_linop A; cov_op o;
    if (out == &c->Lr) c->tt_ok = 0;          /* (lowrank_totals) */
    const void *vmax = vmaxget();
    op_init(&A, &o, c);
    o.s_coef = 1.0; o.C = R; o.c_coef = -a; o.shift = -(a * dR + b * dRm);
    if (b != 0.0) { o.C2 = Rm; o.c2_coef = -b; }
    int found = 0;
    const int st = cg_eigs_beyond(&A, +1, c->gamma, out->r + 2, 0, EIG_TOL, c->cap, &found,
                                  out->d, out->v);
    c->n_matvec += A.n_matvec;
    vmaxset(vmax);
    if (st == CG_ERR_DOMAIN) {
        cg_fail(c->P, "the low-rank part has rank above %d; give a larger `gamma`", c->cap);
        return -1;
    }
    if (st != CG_OK) { out->r = 0; cg_fail_status(c->P, st, "the low-rank step"); return -1; }
    out->r = found;
    for (int k = 0; k < found; k++) out->d[k] -= c->gamma;
    return found;
}

/* <A + a I, B + b I> for symmetric sparse A, B (rows sorted in columns) */
static double csc_dot(const csc *A, double a, const csc *B, double b, int p)
{
    double s = 0.0, trA = 0.0, trB = 0.0;
    for (int j = 0; j < p; j++) {
        int ka = A->p[j], kb = B->p[j];
        const int ea = A->p[j + 1], eb = B->p[j + 1];
        while (ka < ea && kb < eb) {
            if (A->i[ka] == B->i[kb]) { s += A->x[ka] * B->x[kb]; ka++; kb++; }
            else if (A->i[ka] < B->i[kb]) ka++;
            else kb++;
        }
        for (int k = A->p[j]; k < ea; k++) if (A->i[k] == j) trA += A->x[k];
        for (int k = B->p[j]; k < eb; k++) if (B->i[k] == j) trB += B->x[k];
    }
    return s + a * trB + b * trA + p * a * b;
}

/* ------------------------------------------------------ problem table */
static int lowrank_step(cov *c);

static int cv_split_step(cg_problem *P)
{
    cov *c = (cov *) P->self;
    if (!c->lowrank) {
        const int a = dual_step(c);
        if (a >= 0) c->have_R = 0;
        return a < 0 ? -1 : c->lam.r;
    }
    /* accelerated proximal gradient on R for F(R) + lambda |R|_off, R >= eps I,
     * F(R) = min_L 1/2 ||L + R - S||^2 + gamma tr L (1-smooth, gradient
     * R + L(R) - S): the gradient step's L at the extrapolation Y, then the
     * prox = the floored sparse problem with target S - L(Y), by the dual
     * solver warm started (without momentum this is alternating minimization) */
    if (!c->have_R && certify_inner(c) < 0) return -1;
    if (lowrank_step(c) < 0) {
        /* (cut at the time limit, or failed) R, L may be half updated:
         * the final evaluation recomputes both from the dual */
        c->have_R = 0; c->fresh_L = 0;
        return -1;
    }
    return c->Lr.r;
}

static int lowrank_step(cov *c)
{
    const int p = c->p;
    const double tn = (1.0 + sqrt(1.0 + 4.0 * c->tR * c->tR)) / 2.0;
    const double beta = c->has_Rm ? (c->tR - 1.0) / tn : 0.0;
    if (l_step(c, 1.0 + beta, &c->R, c->delta, -beta, &c->Rm, c->dm, &c->Lr) < 0) return -1;
    /* rotate: R_{k-1} <- R_k <- (R to be overwritten) */
    csc t = c->Rm2; c->Rm2 = c->Rm; c->Rm = c->R; c->R = t;
    c->dm2 = c->dm; c->dm = c->delta;
    const int had = c->has_Rm;
    c->has_Rm = 1;
    c->fresh_L = 0;
    if (r_step(c) < 0) return -1;
    /* gradient restart: <Y - R+, R+ - R> > 0, Y = (1 + beta) R - beta Rm */
    const double d0 = c->dm, dm = c->dm2, d1 = c->delta;
    const csc *R0 = &c->Rm, *Rm = &c->Rm2, *R1 = &c->R;
    double ip = (1.0 + beta) * (csc_dot(R0, d0, R1, d1, p) - csc_dot(R0, d0, R0, d0, p))
                - csc_dot(R1, d1, R1, d1, p) + csc_dot(R1, d1, R0, d0, p);
    if (had && beta > 0.0)
        ip += -beta * csc_dot(Rm, dm, R1, d1, p) + beta * csc_dot(Rm, dm, R0, d0, p);
    if (ip > 0.0) { c->tR = 1.0; c->restarts++; } else c->tR = tn;
    return 0;
}

/* The primal sums of cv_evaluate, ||G||^2, <G, S> and tr G for G = L + R_f
 * - S (R_f = R + delta I, L = U diag(d) U'), without a pass over the p^2
 * entries: expanded into ||L||^2 (factored), ||R_f||^2, <R_f, S> (over R's
 * nonzeros), <L, R_f> (u'R u, sparse products), <L, S> (u'S u, through S's
 * factor when there is one) and ||S||^2 (one pass, once per solve). The
 * dense pass costs 2 p^2 rank(L) flops in dgemm plus p^2 (golub, p = 4758,
 * rank 21: about 0.7 s of CPU, twice per fit of one outer step); this costs
 * O(nnz(R) rank(L) + p rank(L) (rank(L) + n)). The expansion cancels where
 * G is small against S, L and R_f: it is used only when its rounding
 * (DBL_EPSILON times the terms' magnitudes, with a wide margin) is below a
 * hundredth of the run's gap goal at the objective; else the dense pass
 * (returns 0). */
static int lowrank_sums(cov *c, double *f2, double *fs, double *ftr)
{
    const int p = c->p, r = c->L.r;
    if (!(c->gap_goal > 0.0)) return 0;
    s_norm2(c);
    /* R: trace, ||R||^2, <R, S>, |R|_off (for the objective's scale) */
    double trR = 0.0, R2 = 0.0, RS = 0.0;
    for (int j = 0; j < p; j++)
        for (int k = c->R.p[j]; k < c->R.p[j + 1]; k++) {
            const int i = c->R.i[k];
            const double x = c->R.x[k];
            R2 += x * x; RS += x * c->S[i + (size_t) j * p];
            if (i == j) trR += x;
        }
    /* L: per factor column u'u, u'R u, u'S u */
    double trL = 0.0, LR = 0.0, LS = 0.0;
    const void *vmax = vmaxget();
    double *y = (double *) R_alloc(p, sizeof(double));
    double *ts = c->Sf ? (double *) R_alloc(c->sk, sizeof(double)) : NULL;
    const int inc = 1;
    for (int q = 0; q < r; q++) {
        const double *u = c->L.v + (size_t) q * p;
        const double uu = F77_CALL(ddot)(&p, u, &inc, u, &inc);
        memset(y, 0, (size_t) p * sizeof(double));
        for (int j = 0; j < p; j++) {
            const double uj = u[j];
            if (uj != 0.0)
                for (int k = c->R.p[j]; k < c->R.p[j + 1]; k++) y[c->R.i[k]] += c->R.x[k] * uj;
        }
        const double uRu = F77_CALL(ddot)(&p, u, &inc, y, &inc);
        const double uSu = quad_S(c, u, y, ts);
        trL += c->L.d[q] * uu; LR += c->L.d[q] * uRu; LS += c->L.d[q] * uSu;
    }
    vmaxset(vmax);
    const double LL = fac_inner(&c->L, &c->L, p);
    const double d = c->delta;
    const double Rf2 = R2 + 2.0 * d * trR + p * d * d, RfS = RS + d * c->trS;
    const double LRf = LR + d * trL;
    const double mag = fabs(LL) + fabs(Rf2) + c->s2 + 2.0 * (fabs(LRf) + fabs(LS) + fabs(RfS));
    *f2 = LL + Rf2 + c->s2 + 2.0 * (LRf - LS - RfS);
    *fs = LS + RfS - c->s2;
    *ftr = trL + trR + p * d - c->trS;
    const double obj = 0.5 * *f2 + c->gamma * fac_trace(&c->L) + c->lambda * c->l1;
    return 1e4 * DBL_EPSILON * mag <= 1e-2 * c->gap_goal * fabs(obj);
}

/* The gap (b) of cv_evaluate for W = G' + F + t I, G' = R(Lambda) - S + Lr
 * (the R step's statistics g2, gs, trG are G''s), F = V diag(f) V' psd:
 * feasible whatever F is (-W = Z - M, Z the soft-threshold's residual of
 * T + Lambda, M = Lambda + F + t I), t = max(0, -gamma - lambda_min(G' +
 * F)) by Lanczos so that W >= -gamma I; D(W) from G''s statistics and F's
 * columns (v'R v, v'S v, v'Lr v, v'v, ||F||^2); tr F in trF_out. Returns -1
 * on failure. */
static int gap_b(cov *c, const symfac *F, double obj, double *gap, double *t,
                 double *trF_out)
{
    const int p = c->p;
    const void *vmax = vmaxget();
    cg_linop A; cov_op o;
    op_init(&A, &o, c);
    o.s_coef = -1.0; o.C = &c->R; o.c_coef = 1.0; o.F[0] = &c->Lr; o.f_coef[0] = 1.0;
    if (F->r > 0) { o.F[1] = F; o.f_coef[1] = 1.0; }
    double lmin;
    const int st = cg_lowest_eigenvalue(&A, c->L.r + 2, CERT_TOL, &lmin);
    c->n_matvec += A.n_matvec;
    if (st != CG_OK) {
        vmaxset(vmax);
        cg_fail_status(c->P, st, "the duality gap's eigenvalue");
        return -1;
    }
    *t = -c->gamma - lmin > 0.0 ? -c->gamma - lmin : 0.0;
    /* F's terms: <G', F>, ||F||^2, <F, S>, tr F */
    double gF = 0.0, FS = 0.0, trF = 0.0;
    double *y = (double *) R_alloc(p, sizeof(double));
    double *ts = c->Sf ? (double *) R_alloc(c->sk, sizeof(double)) : NULL;
    for (int k = 0; k < F->r; k++) {
        double unit = 1.0;
        const symfac one = { 1, 1, F->v + (size_t) k * p, &unit };
        double vRv, vv;
        fac_quad_R(&one, &c->R, p, y, &vRv, &vv);
        const double vSv = quad_S(c, one.v, y, ts);
        const double vLv = fac_inner(&one, &c->Lr, p);
        gF += F->d[k] * (vRv - vSv + vLv);
        FS += F->d[k] * vSv;
        trF += F->d[k] * vv;
    }
    const double FF = fac_inner(F, F, p), tt = *t;
    vmaxset(vmax);
    const double w2 = c->g2 + 2.0 * gF + FF + 2.0 * tt * (c->trG + trF) + p * tt * tt;
    const double ws = c->gs + FS + tt * c->trS;
    const double wtr = c->trG + trF + p * tt;
    *gap = obj - (-0.5 * w2 - ws + c->eps * wtr);
    *trF_out = trF;
    return 0;
}

/* objective of the stated problem at the primal point and its duality gap */
static void cv_evaluate(cg_problem *P, double *obj, double *gap)
{
    cov *c = (cov *) P->self;
    *obj = NA_REAL; *gap = NA_REAL;
    c->passes_before_eval = c->passes;
    if (!c->lowrank) {
        /* The Lanczos run for lambda_min costs about two dual steps (the
         * floor's cluster of rank(Lambda) values must be resolved). Most
         * evaluations cannot stop the run (trace-only rows, and tests whose
         * gap is above tol whatever lambda_min is): those take the Weyl
         * bound from the last Lanczos value (certify_bounded), a valid but
         * looser gap for the trace. */
        if (c->has_ref) {
            certify_bounded(c);
            if (c->P->eval_test && could_stop(c) && certify_lanczos(c) < 0) return;
        } else if (certify_inner(c) < 0) return;
        if (!R_FINITE(c->obj_first)) c->obj_first = c->obj_inner;
        *obj = c->obj_inner; *gap = c->gap_inner;
        return;
    }
    if (!c->have_R && certify_inner(c) < 0) return;
    const int p = c->p;
    /* the primal point: R_f and L(R_f), its exact L */
    if (!c->fresh_L) {
        if (l_step(c, 1.0, &c->R, c->delta, 0.0, NULL, 0.0, &c->L) < 0) return;
        c->fresh_L = 1;
    }
    /* primal: 1/2 ||G||^2 + gamma tr L + lambda |R|_off, G = L + R + delta I - S */
    double f2 = 0.0, fs = 0.0, ftr = 0.0;
    double *col = c->block2;
    if (!lowrank_sums(c, &f2, &fs, &ftr)) {
        f2 = fs = ftr = 0.0;
        for (int j0 = 0; j0 < p; j0 += BLOCK) {
            const int nb = p - j0 < BLOCK ? p - j0 : BLOCK;
            fac_columns(&c->L, p, j0, nb, 1.0, c->block, 0, c->scratch);
            for (int cc = 0; cc < nb; cc++) {
                const int j = j0 + cc;
                const double *sj = c->S + (size_t) j * p, *lj = c->block + (size_t) cc * p;
                memset(col, 0, (size_t) p * sizeof(double));
                for (int k = c->R.p[j]; k < c->R.p[j + 1]; k++) col[c->R.i[k]] = c->R.x[k];
                col[j] += c->delta;
                for (int i = 0; i < p; i++) {
                    const double r = lj[i] + col[i] - sj[i];
                    f2 += r * r; fs += r * sj[i];
                }
                ftr += lj[j] + col[j] - sj[j];
            }
        }
    }
    *obj = 0.5 * f2 + c->gamma * fac_trace(&c->L) + c->lambda * c->l1;
    /* (a) W = G + t I, G = L + R_f - S: G >= -gamma I by the L step, and
     * -W <= Z iff Lambda + (L - Lr) + (delta + t) I >= 0 (see the top) */
    /* Lambda = diag(ell) + lam: diag(ell)'s b nonzero entries join as unit
     * columns while b <= cap; past that they are dropped, which can only
     * lower lambda_min (diag(ell) is psd), so t is at least what W needs:
     * feasible still, the gap looser (then (b) below) */
    const void *vmax_a = vmaxget();
    symfac D = { 0, 0, NULL, NULL };
    int b = 0;
    if (c->ell) for (int j = 0; j < p; j++) b += c->ell[j] > 0.0;
    if (b > 0 && b <= c->cap) {
        D.cap = b;
        D.v = cg_zeros((size_t) p * b); D.d = (double *) R_alloc(b, sizeof(double));
        for (int j = 0; j < p; j++)
            if (c->ell[j] > 0.0) { D.v[j + (size_t) D.r * p] = 1.0; D.d[D.r++] = c->ell[j]; }
    }
    const symfac *f[4] = { &c->lam, &c->L, &c->Lr, &D };
    const double coef[4] = { 1.0, 1.0, -1.0, 1.0 };
    double lmin = 0.0;
    int st = fac_min_eigen(f, coef, 4, p, &lmin);
    vmaxset(vmax_a);
    if (st != CG_OK) { cg_fail_status(P, st, "the duality gap's eigenvalue"); return; }
    double t = -c->delta - lmin > 0.0 ? -c->delta - lmin : 0.0;
    double dual = -0.5 * (f2 + 2.0 * t * ftr + p * t * t) - (fs + t * c->trS)
                  + c->eps * (ftr + p * t);
    *gap = *obj - dual;
    /* (a)'s shift is of the size of the last change of L, which alternation
     * shrinks only linearly, and (a) pays delta tr(R_f - eps I) (delta_cost);
     * short of the goal, (b) W = G' + delta Q + t I with G' = R(Lambda) - S
     * + Lr, exact on the sparse side, Q = U U' (U Lr's eigenvectors), t
     * from lambda_min(G' + delta Q) by Lanczos (about rank(L) values
     * cluster at -gamma). Feasible for every Q psd: -W = Z - M with Z the
     * soft-threshold's residual of T + Lambda (T = S - Lr) and M = Lambda +
     * delta Q + t I psd; W >= -gamma I by t. Its gap is 1/2 ||L - Lr +
     * delta (I - Q) - t I||^2 + <W + gamma I, L> + <M, R_f - eps I>: the
     * raise delta costs delta^2 (p - rank) / 2 + delta <Q, R_f - eps I>
     * where W = G' + t I (Q = 0, t about delta on Lr's range) paid delta
     * tr(R_f - eps I). D(W) from ||G'||^2, <G', S>, tr G' (the R step's
     * statistics) and Q's terms u'G'u, ||Q||^2, u'Su, u'u. */
    /* a negative gap from (a) means rounding broke its dual point (its
     * factors nearly cancel: seen under valgrind's arithmetic): (b) alone */
    const int a_failed = *gap < 0.0;
    if (a_failed || *gap > c->gap_goal * fmax(fabs(*obj), DBL_MIN)) {
        const void *vmax = vmaxget();
        /* F = delta Q (no rank-one raises for the directions below -gamma:
         * where L's eigenvalues crowd at -gamma, as on khan at rank 21-23,
         * that search cost 12x the run's Lanczos products; branch lrsstop) */
        symfac F;
        fac_init(&F, p, c->Lr.r > 0 ? c->Lr.r : 1);
        /* (above RAISE_FRAC eps the raise is not a small repair: main's
         * point W = G' + t I alone, whose t pays delta on all p directions,
         * so that the run cannot stop on it; see delta_cost) */
        const int cheap = c->delta <= RAISE_FRAC * c->eps;
        if (cheap && c->delta > 0.0)
            for (int k = 0; k < c->Lr.r; k++) {
                memcpy(F.v + (size_t) F.r * p, c->Lr.v + (size_t) k * p, (size_t) p * sizeof(double));
                F.d[F.r++] = c->delta;
            }
        double bgap, trF = 0.0;
        if (gap_b(c, &F, *obj, &bgap, &t, &trF) < 0) { vmaxset(vmax); return; }
        if (a_failed || bgap < *gap) *gap = bgap;
        vmaxset(vmax);
    }
}

static double cv_gradient(cg_problem *P, int batch) { (void) P; (void) batch; return 1.0; }
static double cv_epoch(cg_problem *P) { return ((cov *) P->self)->passes; }
static long cv_n_matvec(cg_problem *P) { return ((cov *) P->self)->n_matvec; }
/* the problem's own iteration: dual_apg, or apg with the low-rank part */
static const cg_split_ops covariance_dual_apg = {"dual_apg", cv_gradient, cv_split_step};
static const cg_split_ops covariance_apg = {"apg", cv_gradient, cv_split_step};

/* optional warm start (p x r factor `v`, weights `d`) into f */
static void warm_factor(SEXP spec, const char *vname, const char *dname, symfac *f, int p)
{
    SEXP v = cg_list_get(spec, vname), d = cg_list_get(spec, dname);
    if (isNull(v)) return;
    if (TYPEOF(v) != REALSXP || TYPEOF(d) != REALSXP || XLENGTH(v) != (R_xlen_t) p * XLENGTH(d)
        || XLENGTH(d) > f->cap)
        error("invalid warm start '%s'", vname);
    f->r = LENGTH(d);
    memcpy(f->v, REAL(v), (size_t) p * f->r * sizeof(double));
    memcpy(f->d, REAL(d), (size_t) f->r * sizeof(double));
}

/* optional sparse matrix `name`_p, _i, _x (both triangles, p x p) into m */
static int state_csc(SEXP spec, const char *name, csc *m, int p)
{
    char key[32];
    snprintf(key, sizeof key, "%s_p", name);
    if (isNull(cg_list_get(spec, key))) return 0;
    snprintf(key, sizeof key, "%s_x", name);
    SEXP x = cg_list_get(spec, key);
    if (TYPEOF(x) != REALSXP) error("spec element '%s' must be of type double", key);
    const R_xlen_t nz = XLENGTH(x);
    snprintf(key, sizeof key, "%s_p", name);
    const int *mp = cg_spec_pointers(spec, key, p, nz);
    snprintf(key, sizeof key, "%s_i", name);
    const int *mi = cg_spec_index(spec, key, nz, 0, p - 1);
    csc_reserve(m, 0, nz > 0 ? (size_t) nz : 1);
    memcpy(m->p, mp, (size_t) (p + 1) * sizeof(int));
    if (nz) {
        memcpy(m->i, mi, (size_t) nz * sizeof(int));
        memcpy(m->x, REAL_RO(x), (size_t) nz * sizeof(double));
    }
    return 1;
}

/* A fit continued by init = (exactly, as one longer run): the state a run
 * carries from one iteration to the next besides the dual and L (the warm
 * start): the dual's momentum (previous iterate, t_k; "sparse"), the
 * certificate's reference, and for "lowrank+sparse" the outer momentum
 * (the previous R and its raise, t) and the target's L. */
static void resume_state(SEXP spec, cov *c)
{
    const int p = c->p;
    warm_factor(spec, "state_prev_v", "state_prev_d", &c->prev, p);
    c->tk = cg_spec_scalar(spec, "state_tk", 1.0);
    c->restarts = (int) cg_spec_scalar(spec, "state_restarts", 0.0);
    c->inner_iters = (int) cg_spec_scalar(spec, "state_inner_iterations", 0.0);
    c->passes = cg_spec_scalar(spec, "state_passes", 0.0);
    c->obj_first = cg_spec_scalar(spec, "state_obj_first", NA_REAL);
    if (state_csc(spec, "state_ref", &c->Rref, p)) {
        c->has_ref = 1;
        c->ref_lmin = cg_spec_scalar(spec, "state_ref_lmin", NA_REAL);
        if (!R_FINITE(c->ref_lmin)) error("spec element 'state_ref_lmin' must be finite");
    }
    if (!c->lowrank) return;
    /* the first evaluation recomputes R(Lambda), which one longer run had
     * from its last R step: not a pass of the run */
    if (c->passes >= 1.0) c->passes -= 1.0;
    warm_factor(spec, "state_Lr_u", "state_Lr_d", &c->Lr, p);
    SEXP ell = cg_list_get(spec, "state_ell"), single = cg_list_get(spec, "state_single");
    if (!isNull(ell)) {
        if (TYPEOF(ell) != REALSXP || XLENGTH(ell) != p || TYPEOF(single) != INTSXP
            || XLENGTH(single) != p)
            error("invalid covariance state");
        c->m_rest = 0;
        for (int j = 0; j < p; j++) {
            c->ell[j] = REAL_RO(ell)[j]; c->single[j] = INTEGER_RO(single)[j] != 0;
            if (!(c->ell[j] >= 0.0) || (c->ell[j] > 0.0 && !c->single[j]))
                error("invalid covariance state");
            if (!c->single[j]) c->rest[c->m_rest++] = j;
        }
    }
    c->tR = cg_spec_scalar(spec, "state_tR", 1.0);
    c->outer_steps = cg_spec_scalar(spec, "state_outer_steps", 0.0);
    if (state_csc(spec, "state_Rm", &c->Rm, p)) {
        c->has_Rm = 1;
        c->dm = cg_spec_scalar(spec, "state_dm", 0.0);
    }
    if (!(c->tk >= 1.0) || !(c->tR >= 1.0) || !(c->passes >= 0.0) || !R_FINITE(c->dm)
        || !(c->outer_steps >= 0.0))
        error("invalid covariance state");
}

int cg_problem_covariance(cg_problem *P, SEXP spec)
{
    cov *c = (cov *) R_alloc(1, sizeof(cov));
    memset(c, 0, sizeof(cov));
    SEXP S = cg_list_get(spec, "S");
    if (TYPEOF(S) != REALSXP || !isMatrix(S)) error("spec element 'S' must be a double matrix");
    const int p = INTEGER(getAttrib(S, R_DimSymbol))[0];
    if (p < 1 || INTEGER(getAttrib(S, R_DimSymbol))[1] != p) error("spec element 'S' must be square");
    c->p = p; c->S = REAL_RO(S);
    SEXP Sf = cg_list_get(spec, "S_factor");
    if (!isNull(Sf)) {
        if (TYPEOF(Sf) != REALSXP || !isMatrix(Sf) || INTEGER(getAttrib(Sf, R_DimSymbol))[0] != p
            || INTEGER(getAttrib(Sf, R_DimSymbol))[1] < 1)
            error("spec element 'S_factor' must be a double matrix with p rows");
        c->Sf = REAL_RO(Sf); c->sk = INTEGER(getAttrib(Sf, R_DimSymbol))[1];
    }
    c->lowrank = asLogical(cg_list_get(spec, "lowrank")) == TRUE;
    c->lambda = asReal(cg_list_get(spec, "lambda"));
    c->gamma = c->lowrank ? asReal(cg_list_get(spec, "gamma")) : 0.0;
    c->eps = asReal(cg_list_get(spec, "floor"));
    c->inner_tol = asReal(cg_list_get(spec, "inner_tol"));
    c->gap_goal = asReal(cg_list_get(spec, "gap_goal"));
    c->max_inner = asInteger(cg_list_get(spec, "max_inner"));
    c->cap = asInteger(cg_list_get(spec, "max_rank"));
    SEXP fc = cg_list_get(spec, "floor_cap");
    c->floor_cap = fc == R_NilValue ? c->cap : asInteger(fc);
    if (c->floor_cap == NA_INTEGER || c->floor_cap < 1 || c->floor_cap > c->cap)
        c->floor_cap = c->cap;
    if (!(c->lambda >= 0.0) || !(c->eps > 0.0) || !(c->gamma >= 0.0) || !(c->inner_tol > 0.0) || !(c->gap_goal >= 0.0)
        || c->max_inner < 1 || c->cap < 1 || c->cap > p)
        error("invalid covariance spec");
    for (int i = 0; i < p; i++) c->trS += c->S[i + (size_t) i * p];
    c->s2 = -1.0;
    fac_init(&c->lam, p, c->cap); fac_init(&c->prev, p, c->cap); fac_init(&c->nxt, p, c->cap);
    fac_init(&c->Y, p, 2 * c->cap); fac_init(&c->L, p, c->cap); fac_init(&c->Lr, p, c->cap);
    warm_factor(spec, "warm_v", "warm_d", &c->lam, p);
    if (c->lowrank) warm_factor(spec, "warm_Lu", "warm_Ld", &c->L, p);
    fac_copy(&c->Lr, &c->L, p);
    c->tk = 1.0;
    c->block = cg_zeros((size_t) p * BLOCK); c->block2 = cg_zeros((size_t) p * BLOCK);
    c->scratch = cg_zeros((size_t) 2 * c->cap * BLOCK + 1);
    if (!c->lowrank) {                  /* (screening needs L = 0) */
        c->sc.vt = (double *) R_alloc((size_t) 2 * c->cap * p, sizeof(double));
        c->sc.s = (double *) R_alloc((size_t) p, sizeof(double));
        c->sc.w = (double *) R_alloc((size_t) 2 * c->cap, sizeof(double));
    }
    c->R.p = (int *) R_alloc((size_t) p + 1, sizeof(int));
    c->Rref.p = (int *) R_alloc((size_t) p + 1, sizeof(int));
    c->obj_first = NA_REAL;
    c->W.p = (int *) R_alloc((size_t) p + 1, sizeof(int));
    csc_reserve(&c->R, 0, (size_t) 4 * p + BLOCK * (size_t) p);
    csc_reserve(&c->W, 0, (size_t) 4 * p + BLOCK * (size_t) p);
    if (c->lowrank) {
        c->Rm.p = (int *) R_alloc((size_t) p + 1, sizeof(int));
        c->Rm2.p = (int *) R_alloc((size_t) p + 1, sizeof(int));
        csc_reserve(&c->Rm, 0, (size_t) 4 * p + BLOCK * (size_t) p);
        csc_reserve(&c->Rm2, 0, (size_t) 4 * p + BLOCK * (size_t) p);
        c->ell = cg_zeros((size_t) p); c->tdiag = cg_zeros((size_t) p);
        c->single = (int *) R_alloc((size_t) p, sizeof(int));
        c->rest = (int *) R_alloc((size_t) p, sizeof(int));
        c->offnz = (int *) R_alloc((size_t) p, sizeof(int));
        for (int j = 0; j < p; j++) { c->single[j] = 0; c->rest[j] = j; }
        c->m_rest = p;
    }
    c->tR = 1.0;
    resume_state(spec, c);
    c->P = P;
    P->self = c;
    P->evaluate = cv_evaluate; P->epoch = cv_epoch; P->n_matvec = cv_n_matvec;
    P->split = c->lowrank ? &covariance_apg : &covariance_dual_apg;
    P->svd_rank = 0;
    P->timed_steps = 1;        /* (a step is up to hundreds of Lanczos runs) */
    return CG_OK;
}

/* ------------------------------------------------------------- solution */
static SEXP factor_matrix(const symfac *f, int p)
{
    SEXP out = allocMatrix(REALSXP, p, f->r);
    if (f->r) memcpy(REAL(out), f->v, (size_t) p * f->r * sizeof(double));
    return out;
}

static SEXP real_vector(const double *x, int n)
{
    SEXP out = allocVector(REALSXP, n);
    if (n) memcpy(REAL(out), x, (size_t) n * sizeof(double));
    return out;
}

/* m's pointers, rows and values into out[k], out[k + 1], out[k + 2] */
static void csc_elements(SEXP out, int k, const csc *m, int p)
{
    const int nnz = m->p[p];
    SEXP mp = allocVector(INTSXP, p + 1);
    SET_VECTOR_ELT(out, k, mp);
    memcpy(INTEGER(mp), m->p, (size_t) (p + 1) * sizeof(int));
    SEXP mi = allocVector(INTSXP, nnz);
    SET_VECTOR_ELT(out, k + 1, mi);
    if (nnz) memcpy(INTEGER(mi), m->i, (size_t) nnz * sizeof(int));
    SET_VECTOR_ELT(out, k + 2, real_vector(m->x, nnz));
}

SEXP cg_covariance_solution(cg_problem *P)
{
    cov *c = (cov *) P->self;
    const int p = c->p;
    if (!c->have_R) certify_inner(c);     /* (the final evaluation made it) */
    /* a run ended (max_iter, max_time) on a bounded certificate: the point
     * is that evaluation's (delta from the bound); its smallest eigenvalue
     * is computed for the report */
    double lmin = c->lmin;
    if (c->bounded && lowest_of_R(c, &lmin) < 0) lmin = c->lmin;
    static const char *names[] = {"R_p", "R_i", "R_x", "delta", "min_eigen", "L_u", "L_d",
                                  "dual_v", "dual_d", "inner_iterations", "restarts",
                                  "state_prev_v", "state_prev_d", "state_tk", "state_passes",
                                  "state_obj_first", "state_ref_p", "state_ref_i", "state_ref_x",
                                  "state_ref_lmin", "state_Lr_u", "state_Lr_d", "state_tR",
                                  "state_Rm_p", "state_Rm_i", "state_Rm_x", "state_dm",
                                  "state_ell", "state_single", "state_outer_steps", ""};
    SEXP out = PROTECT(mkNamed(VECSXP, names));
    csc_elements(out, 0, &c->R, p);
    SET_VECTOR_ELT(out, 3, ScalarReal(c->delta));
    SET_VECTOR_ELT(out, 4, ScalarReal(lmin + c->delta));
    SET_VECTOR_ELT(out, 5, factor_matrix(&c->L, p));
    SET_VECTOR_ELT(out, 6, real_vector(c->L.d, c->L.r));
    SET_VECTOR_ELT(out, 7, factor_matrix(&c->lam, p));
    SET_VECTOR_ELT(out, 8, real_vector(c->lam.d, c->lam.r));
    SET_VECTOR_ELT(out, 9, ScalarInteger(c->inner_iters));
    SET_VECTOR_ELT(out, 10, ScalarInteger(c->restarts));
    /* the state for init = (resume_state); prev is stale after an R step */
    if (!c->lowrank && c->tk > 1.0) {
        SET_VECTOR_ELT(out, 11, factor_matrix(&c->prev, p));
        SET_VECTOR_ELT(out, 12, real_vector(c->prev.d, c->prev.r));
    }
    SET_VECTOR_ELT(out, 13, ScalarReal(c->tk));
    SET_VECTOR_ELT(out, 14, ScalarReal(c->passes_before_eval));
    SET_VECTOR_ELT(out, 15, ScalarReal(c->obj_first));
    if (c->has_ref) {
        csc_elements(out, 16, &c->Rref, p);
        SET_VECTOR_ELT(out, 19, ScalarReal(c->ref_lmin));
    }
    if (c->lowrank) {
        SET_VECTOR_ELT(out, 20, factor_matrix(&c->Lr, p));
        SET_VECTOR_ELT(out, 21, real_vector(c->Lr.d, c->Lr.r));
        SET_VECTOR_ELT(out, 22, ScalarReal(c->tR));
        if (c->has_Rm) {
            csc_elements(out, 23, &c->Rm, p);
            SET_VECTOR_ELT(out, 26, ScalarReal(c->dm));
        }
        SET_VECTOR_ELT(out, 29, ScalarReal(c->outer_steps));
        if (c->m_rest < p) {            /* the dual's diagonal part on J */
            SET_VECTOR_ELT(out, 27, real_vector(c->ell, p));
            SEXP single = allocVector(INTSXP, p);
            SET_VECTOR_ELT(out, 28, single);
            memcpy(INTEGER(single), c->single, (size_t) p * sizeof(int));
        }
    }
    UNPROTECT(1);
    return out;
}
