/* Linear operators over dense (column-major), COO and CSC storage.
 * Every product counts itself in A->n_matvec so traces report real work. */
#include "stochcg.h"
#include <string.h>
#include <math.h>

/* The operator is const in the mat-vec signature because callers should not
 * change its shape; the counter is bookkeeping, so we cast const away. */
static void count(const cg_linop *A) { ((cg_linop *) A)->n_matvec++; }

/* ------------------------------------------------------------- dense */
static void dense_mult(const cg_linop *A, const double *x, double *y)
{
    const cg_dense_data *d = (const cg_dense_data *) A->data;
    const double one = 1.0, zero = 0.0;
    const int inc = 1;
    count(A);
    if (A->m == 0) return;
    if (A->n == 0) { memset(y, 0, (size_t) A->m * sizeof(double)); return; }
    F77_CALL(dgemv)("N", &A->m, &A->n, &one, d->x, &d->ld, x, &inc,
                    &zero, y, &inc FCONE);
}

static void dense_tmult(const cg_linop *A, const double *x, double *y)
{
    const cg_dense_data *d = (const cg_dense_data *) A->data;
    const double one = 1.0, zero = 0.0;
    const int inc = 1;
    count(A);
    if (A->n == 0) return;
    if (A->m == 0) { memset(y, 0, (size_t) A->n * sizeof(double)); return; }
    F77_CALL(dgemv)("T", &A->m, &A->n, &one, d->x, &d->ld, x, &inc,
                    &zero, y, &inc FCONE);
}

void cg_linop_dense(cg_linop *A, cg_dense_data *d, const double *x, int m, int n)
{
    d->x = x;
    d->ld = m > 0 ? m : 1;          /* BLAS requires ld >= max(1, m) */
    A->m = m; A->n = n;
    A->mult = dense_mult; A->tmult = dense_tmult;
    A->data = d; A->n_matvec = 0;
}

/* (A + A') / 2 in place: PSD sets and symmetric eigensolvers see the
 * symmetric part of a matrix */
void cg_symmetrize(double *A, int n)
{
    for (int j = 0; j < n; j++)
        for (int i = j + 1; i < n; i++) {
            const double a = 0.5 * (A[i + (size_t) j * n] + A[j + (size_t) i * n]);
            A[i + (size_t) j * n] = A[j + (size_t) i * n] = a;
        }
}

/* --------------------------------------------------------------- COO */
static void coo_mult(const cg_linop *A, const double *x, double *y)
{
    const cg_coo_data *d = (const cg_coo_data *) A->data;
    count(A);
    memset(y, 0, (size_t) A->m * sizeof(double));
    for (int t = 0; t < d->nnz; t++) y[d->row[t]] += d->val[t] * x[d->col[t]];
}

static void coo_tmult(const cg_linop *A, const double *x, double *y)
{
    const cg_coo_data *d = (const cg_coo_data *) A->data;
    count(A);
    memset(y, 0, (size_t) A->n * sizeof(double));
    for (int t = 0; t < d->nnz; t++) y[d->col[t]] += d->val[t] * x[d->row[t]];
}

void cg_linop_coo(cg_linop *A, cg_coo_data *d, int m, int n, int nnz,
                  const int *row, const int *col, const double *val)
{
    d->nnz = nnz; d->row = row; d->col = col; d->val = val;
    A->m = m; A->n = n;
    A->mult = coo_mult; A->tmult = coo_tmult;
    A->data = d; A->n_matvec = 0;
}

/* --------------------------------------------------------------- CSC */
static void csc_mult(const cg_linop *A, const double *x, double *y)
{
    const cg_csc_data *d = (const cg_csc_data *) A->data;
    count(A);
    memset(y, 0, (size_t) A->m * sizeof(double));
    for (int j = 0; j < A->n; j++) {
        const double xj = x[j];
        if (xj == 0.0) continue;
        for (int t = d->p[j]; t < d->p[j + 1]; t++) y[d->i[t]] += d->x[t] * xj;
    }
}

static void csc_tmult(const cg_linop *A, const double *x, double *y)
{
    const cg_csc_data *d = (const cg_csc_data *) A->data;
    count(A);
    for (int j = 0; j < A->n; j++) {
        double s = 0.0;
        for (int t = d->p[j]; t < d->p[j + 1]; t++) s += d->x[t] * x[d->i[t]];
        y[j] = s;
    }
}

void cg_linop_csc(cg_linop *A, cg_csc_data *d, int m, int n,
                  const int *p, const int *i, const double *x)
{
    d->p = p; d->i = i; d->x = x;
    A->m = m; A->n = n;
    A->mult = csc_mult; A->tmult = csc_tmult;
    A->data = d; A->n_matvec = 0;
}

/* ---------------------------------------------------------- densify */
/* Known storage is scattered directly (a COO operator would otherwise cost
 * n * nnz); any other operator goes through products with e_j. The counter
 * always advances by n, the work a matrix-free densify would take. */
void cg_linop_densify(cg_linop *A, double *out)
{
    const int m = A->m, n = A->n;
    const size_t mn = (size_t) m * (size_t) n;
    if (A->mult == dense_mult) {
        const cg_dense_data *d = (const cg_dense_data *) A->data;
        for (int j = 0; j < n; j++)
            memcpy(out + (size_t) j * m, d->x + (size_t) j * d->ld,
                   (size_t) m * sizeof(double));
    } else if (A->mult == csc_mult) {
        const cg_csc_data *d = (const cg_csc_data *) A->data;
        memset(out, 0, mn * sizeof(double));
        for (int j = 0; j < n; j++)
            for (int t = d->p[j]; t < d->p[j + 1]; t++)
                out[(size_t) j * m + d->i[t]] += d->x[t];
    } else if (A->mult == coo_mult) {
        const cg_coo_data *d = (const cg_coo_data *) A->data;
        memset(out, 0, mn * sizeof(double));
        for (int t = 0; t < d->nnz; t++)   /* duplicates add, as in A x */
            out[(size_t) d->col[t] * m + d->row[t]] += d->val[t];
    } else {
        double *e = (double *) R_alloc(n > 0 ? n : 1, sizeof(double));
        memset(e, 0, (size_t) n * sizeof(double));
        for (int j = 0; j < n; j++) {
            e[j] = 1.0;
            A->mult(A, e, out + (size_t) j * m);
            e[j] = 0.0;
        }
        return;                      /* the products counted themselves */
    }
    A->n_matvec += n;
}

/* Stored entries of an operator of known storage (COO: its list, with
 * repeats; CSC: p[n]; dense: m n), or -1 for a matrix-free one: what one
 * product with A costs, for callers choosing between Lanczos and LAPACK */
double cg_linop_nnz(const cg_linop *A)
{
    if (A->mult == dense_mult) return (double) A->m * A->n;
    if (A->mult == csc_mult) return (double) ((const cg_csc_data *) A->data)->p[A->n];
    if (A->mult == coo_mult) return (double) ((const cg_coo_data *) A->data)->nnz;
    return -1.0;
}

/* zero-filled scratch from R_alloc (reclaimed when the .Call returns) */
double *cg_zeros(size_t n)
{
    double *x = (double *) R_alloc(n > 0 ? n : 1, sizeof(double));
    memset(x, 0, sizeof(double) * n);
    return x;
}

/* TRUE if no entry is NA, NaN or Inf (C99 isfinite: R_FINITE is a
 * function call in packages, too slow for every product of a Lanczos run) */
int cg_all_finite(const double *x, size_t n)
{
    for (size_t i = 0; i < n; i++) if (!isfinite(x[i])) return 0;
    return 1;
}
