/* Connected components of the graph {(i, j): i != j, |S_ij| > lambda} of a
 * dense symmetric matrix. The floored sparse covariance problem splits over
 * them exactly: the block-diagonal solution of the per-component problems
 * meets the KKT conditions of the whole one (an entry between components has
 * |S_ij| <= lambda, so Sigma_ij = 0 with subgradient S_ij / lambda), so
 * sparse_covariance() solves each component on its own (a singleton in
 * closed form) instead of one p x p problem whose spectrum mixes them.
 * Union-find with path halving and union by size over the upper triangle:
 * O(p^2) reads of S, O(p) memory. */
#include "stochcg.h"
#include <math.h>

static int find_root(int *parent, int i)
{
    while (parent[i] != i) {
        parent[i] = parent[parent[i]];
        i = parent[i];
    }
    return i;
}

/* membership 1..K, components numbered by their smallest variable */
SEXP cg_threshold_components(SEXP S, SEXP lambda)
{
    if (!isReal(S) || !isMatrix(S)) error("'S' must be a double matrix");
    const int p = nrows(S);
    if (ncols(S) != p) error("'S' must be square");
    const double lam = asReal(lambda);
    if (!(lam >= 0.0)) error("'lambda' must be a nonnegative number");
    const double *s = REAL_RO(S);
    int *parent = (int *) R_alloc(p > 0 ? p : 1, sizeof(int));
    int *size = (int *) R_alloc(p > 0 ? p : 1, sizeof(int));
    for (int i = 0; i < p; i++) { parent[i] = i; size[i] = 1; }
    for (int j = 1; j < p; j++) {
        const double *sj = s + (size_t) j * p;
        for (int i = 0; i < j; i++) {
            if (!(fabs(sj[i]) > lam)) continue;
            int a = find_root(parent, i), b = find_root(parent, j);
            if (a == b) continue;
            if (size[a] < size[b]) { const int t = a; a = b; b = t; }
            parent[b] = a; size[a] += size[b];
        }
        if (j % 256 == 0) R_CheckUserInterrupt();
    }
    SEXP out = PROTECT(allocVector(INTSXP, p));
    int *m = INTEGER(out), k = 0;
    for (int i = 0; i < p; i++) size[i] = 0;           /* reused: root -> label */
    for (int i = 0; i < p; i++) {
        const int r = find_root(parent, i);
        if (size[r] == 0) size[r] = ++k;
        m[i] = size[r];
    }
    UNPROTECT(1);
    return out;
}
