/* Minibatch sampler shared by the finite-sum problems: rows (or observed
 * entries) drawn without replacement in a random order ("shuffle"), in the
 * given order ("stream"), or with replacement ("replace"). Randomness comes
 * only from R's RNG, so set.seed() reproduces a run. */
#ifndef STOCHCG_SAMPLER_H
#define STOCHCG_SAMPLER_H
#include "stochcg.h"
#include <string.h>

enum { CG_SAMPLE_SHUFFLE = 0, CG_SAMPLE_STREAM = 1, CG_SAMPLE_REPLACE = 2 };

typedef struct {
    int n, batch, mode, pos;
    int *order;          /* permutation for shuffle/stream */
    double drawn;        /* total draws so far */
} cg_sampler;

static inline void cg_sampler_init(cg_sampler *s, int n, int batch, int mode)
{
    s->n = n; s->batch = batch; s->mode = mode; s->pos = 0; s->drawn = 0;
    s->order = NULL;
    if (mode == CG_SAMPLE_REPLACE) return;
    s->order = (int *) R_alloc(n, sizeof(int));
    for (int i = 0; i < n; i++) s->order[i] = i;
    if (mode == CG_SAMPLE_SHUFFLE)            /* Fisher-Yates */
        for (int i = n - 1; i > 0; i--) {
            int j = (int) R_unif_index((double) i + 1);
            int tmp = s->order[i]; s->order[i] = s->order[j]; s->order[j] = tmp;
        }
}

/* A resumed run (init =) goes on with the sampler its fit ended with,
 * read from the spec's state_order (the permutation; none for "replace"),
 * state_pos and state_drawn: no new permutation is drawn, so the RNG
 * stream continues as in one longer run. */
static inline void cg_sampler_resume(cg_sampler *s, SEXP spec, int n, int batch, int mode)
{
    cg_sampler_init(s, n, batch, mode == CG_SAMPLE_SHUFFLE ? CG_SAMPLE_STREAM : mode);
    if (mode != CG_SAMPLE_REPLACE)
        memcpy(s->order, cg_spec_index(spec, "state_order", n, 0, n - 1), sizeof(int) * n);
    s->mode = mode;
    s->pos = asInteger(cg_list_get(spec, "state_pos"));
    s->drawn = asReal(cg_list_get(spec, "state_drawn"));
    if (s->pos < 0 || s->pos > n || !(s->drawn >= 0)) error("spec: invalid sampler state");
}

/* Next minibatch into idx, whose capacity is max(n, batch): count = CG_BATCH_FULL
 * draws every remaining point (every point once, for "replace"),
 * CG_BATCH_DEFAULT the sampler's batch, k > 0 that many (capped at the
 * capacity). Returns the number drawn. */
static inline int cg_sampler_next(cg_sampler *s, int *idx, int count)
{
    const int cap = s->n > s->batch ? s->n : s->batch;
    int b = 0, want = count == CG_BATCH_FULL ? s->n : count == CG_BATCH_DEFAULT ? s->batch : count;
    if (want > cap) want = cap;
    if (s->mode == CG_SAMPLE_REPLACE && count != CG_BATCH_FULL) {
        for (; b < want; b++) idx[b] = (int) R_unif_index((double) s->n);
    } else if (s->mode == CG_SAMPLE_REPLACE) {
        for (; b < s->n; b++) idx[b] = b;
    } else {
        for (; b < want && s->pos < s->n; b++) idx[b] = s->order[s->pos++];
    }
    s->drawn += b;
    return b;
}
#endif
