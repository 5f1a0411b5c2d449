/* Estimators of the constraint term of the homotopy gradient from sampled
 * rows (the problem's cg_rows_ops), shared by the SDP problems:
 *   SAG      paper 003, Alg. 1 Variant 2: a table of penalty r_l from each
 *            row's last draw, E = sum_l a_l table_l kept current;
 *   momentum H-1SFW (Vladarean et al. 2020): E averages unbiased minibatch
 *            estimates with weight rho;
 *   SPIDER   H-SPIDER-FW (Vladarean et al. 2020): a full pass, then
 *            minibatch differences between consecutive iterates.
 * Rows are drawn uniformly with replacement (R_unif_index: set.seed()
 * reproduces a run). Memory comes from R_alloc, released when the .Call
 * returns on every path; the hashed table grows by doubling, so the blocks
 * it leaves behind total less than its final size. */
#include "stochcg.h"
#include <string.h>
#include <math.h>
#include <limits.h>

void cg_rows_est_init(cg_rows_est *e, cg_problem *P, int sag)
{
    memset(e, 0, sizeof(*e));
    e->m = P->homotopy->rows->count(P, &e->len);
    e->E = cg_zeros(e->len);
    if (!sag) return;
    if (e->m <= 2.0 * (double) e->len) {
        e->dense = cg_zeros((size_t) e->m);
    } else {
        e->cap = 1024;
        e->keys = (unsigned long long *) R_alloc(e->cap, sizeof(unsigned long long));
        memset(e->keys, 0, e->cap * sizeof(unsigned long long));
        e->vals = (double *) R_alloc(e->cap, sizeof(double));
    }
}

/* ---- the hashed table: open addressing, linear probing, only nonzero
 * entries stored (a row whose entry returns to 0 is deleted) */
static size_t slot_of(unsigned long long key, size_t cap)
{
    unsigned long long z = key + 0x9e3779b97f4a7c15ULL;     /* splitmix64 finalizer */
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return (size_t) (z ^ (z >> 31)) & (cap - 1);
}

static size_t find_slot(const cg_rows_est *e, unsigned long long key)
{
    size_t i = slot_of(key, e->cap);
    while (e->keys[i] != 0 && e->keys[i] != key) i = (i + 1) & (e->cap - 1);
    return i;
}

static void grow(cg_rows_est *e)
{
    unsigned long long *ok = e->keys;
    double *ov = e->vals;
    const size_t ocap = e->cap;
    e->cap *= 2;
    e->keys = (unsigned long long *) R_alloc(e->cap, sizeof(unsigned long long));
    memset(e->keys, 0, e->cap * sizeof(unsigned long long));
    e->vals = (double *) R_alloc(e->cap, sizeof(double));
    for (size_t i = 0; i < ocap; i++) {
        if (ok[i] == 0) continue;
        const size_t j = find_slot(e, ok[i]);
        e->keys[j] = ok[i]; e->vals[j] = ov[i];
    }
}

/* deletion with backward shift: no tombstones, probes stay short */
static void delete_slot(cg_rows_est *e, size_t i)
{
    const size_t mask = e->cap - 1;
    size_t j = i;
    for (;;) {
        j = (j + 1) & mask;
        if (e->keys[j] == 0) break;
        const size_t home = slot_of(e->keys[j], e->cap);
        /* j's entry may move to i when its home is not in (i, j] cyclically */
        if (((j - home) & mask) >= ((j - i) & mask)) {
            e->keys[i] = e->keys[j]; e->vals[i] = e->vals[j]; i = j;
        }
    }
    e->keys[i] = 0;
    e->used--;
}

/* table_l <- g; returns the old value */
static double table_swap(cg_rows_est *e, double l, double g)
{
    if (e->dense) {
        const size_t i = (size_t) l;
        const double old = e->dense[i];
        e->dense[i] = g;
        return old;
    }
    const unsigned long long key = (unsigned long long) l + 1ULL;
    size_t i = find_slot(e, key);
    if (e->keys[i] == key) {
        const double old = e->vals[i];
        if (g == 0.0) delete_slot(e, i); else e->vals[i] = g;
        return old;
    }
    if (g == 0.0) return 0.0;
    if (2 * (e->used + 1) > e->cap) { grow(e); i = find_slot(e, key); }
    e->keys[i] = key; e->vals[i] = g; e->used++;
    return 0.0;
}

double cg_rows_stored(const cg_rows_est *e)
{
    return e->dense ? e->m : (double) e->used;
}

double cg_rows_sag(cg_rows_est *e, cg_problem *P, double penalty, double batch)
{
    const cg_rows_ops *R = P->homotopy->rows;
    for (double t = 0; t < batch; t++) {
        const double l = R_unif_index(e->m);
        const double g = penalty * R->residual(P, l, 0);
        const double d = g - table_swap(e, l, g);
        if (d != 0.0) R->add_row(P, l, d, e->E);
    }
    return batch;
}

double cg_rows_momentum(cg_rows_est *e, cg_problem *P, double penalty, double rho,
                        double batch)
{
    const cg_rows_ops *R = P->homotopy->rows;
    for (size_t i = 0; i < e->len; i++) e->E[i] *= 1.0 - rho;
    const double w = rho * e->m / batch * penalty;
    for (double t = 0; t < batch; t++) {
        const double l = R_unif_index(e->m);
        const double r = R->residual(P, l, 0);
        if (r != 0.0) R->add_row(P, l, w * r, e->E);
    }
    return batch;
}

double cg_rows_spider(cg_rows_est *e, cg_problem *P, double penalty, double prev_penalty,
                      double batch)
{
    const cg_rows_ops *R = P->homotopy->rows;
    if (batch >= e->m) {                              /* the epoch's full pass */
        memset(e->E, 0, e->len * sizeof(double));
        for (double l = 0; l < e->m; l++) {
            const double r = R->residual(P, l, 0);
            if (r != 0.0) R->add_row(P, l, penalty * r, e->E);
        }
        return e->m;
    }
    const double w = e->m / batch;
    for (double t = 0; t < batch; t++) {
        const double l = R_unif_index(e->m);
        const double d = penalty * R->residual(P, l, 0) - prev_penalty * R->residual(P, l, 1);
        if (d != 0.0) R->add_row(P, l, w * d, e->E);
    }
    return 2.0 * batch;                     /* each draw reads the row at two iterates */
}

/* ---- the estimator's state for an exact continuation (init =), as the
 * loop's arrays: E, and the SAG table, dense (`sag`, m values) or hashed
 * (`sag_rows`, the rows l of its nonzero entries in increasing order, and
 * `sag_vals`); the hashed table is rebuilt by inserting them (its layout
 * differs, its entries do not). Sorted, the state of a run does not depend
 * on how it was split. */
void cg_rows_est_save(const cg_rows_est *e, cg_problem *P)
{
    cg_loop_save_array(P, "E", e->E, (R_xlen_t) e->len);
    if (e->dense) {
        cg_loop_save_array(P, "sag", e->dense, (R_xlen_t) e->m);
    } else if (e->keys) {
        if (e->used > INT_MAX) error("the SAG table has too many entries to save");
        const int nu = (int) e->used;
        double *l = (double *) R_alloc(nu + 1, sizeof(double)),
               *v = (double *) R_alloc(nu + 1, sizeof(double)),
               *g = (double *) R_alloc(nu + 1, sizeof(double));
        int *ord = (int *) R_alloc(nu + 1, sizeof(int));
        int j = 0;
        for (size_t i = 0; i < e->cap; i++)
            if (e->keys[i] != 0) { l[j] = (double) (e->keys[i] - 1ULL); g[j] = e->vals[i]; ord[j] = j; j++; }
        rsort_with_index(l, ord, nu);
        for (j = 0; j < nu; j++) v[j] = g[ord[j]];
        cg_loop_save_array(P, "sag_rows", l, nu);
        cg_loop_save_array(P, "sag_vals", v, nu);
    }
}

/* the saved state read back (0: none); a malformed one is an error before
 * any work */
int cg_rows_est_load(cg_rows_est *e, const cg_problem *P)
{
    const double *E = cg_loop_array(P, "E", (R_xlen_t) e->len);
    if (!E) return 0;
    memcpy(e->E, E, e->len * sizeof(double));
    const R_xlen_t nu = cg_loop_array_length(P, "sag_rows");
    if ((cg_loop_array_length(P, "sag") >= 0) != (e->dense != NULL) || (nu >= 0) != (e->keys != NULL))
        error("spec: the estimator state is of another method");
    if (e->dense) {
        memcpy(e->dense, cg_loop_array(P, "sag", (R_xlen_t) e->m), (size_t) e->m * sizeof(double));
    } else if (e->keys) {
        const double *l = cg_loop_array(P, "sag_rows", nu), *v = cg_loop_array(P, "sag_vals", nu);
        if (!v) error("spec: invalid SAG table in the estimator state");
        for (R_xlen_t j = 0; j < nu; j++) {
            if (!(l[j] >= 0.0 && l[j] < e->m && l[j] == floor(l[j])) || v[j] == 0.0 ||
                (j > 0 && !(l[j] > l[j - 1])))
                error("spec: invalid SAG table in the estimator state");
            table_swap(e, l[j], v[j]);
        }
    }
    return 1;
}
