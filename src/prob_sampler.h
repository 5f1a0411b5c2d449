/* Minibatch sampler shared by the finite-sum problems: rows (or observed
 * entries) drawn without replacement in a random order ("shuffle"), in the
 * given order ("stream"), or with replacement ("replace"). Randomness comes
 * only from R's RNG, so set.seed() reproduces a run. */
#ifndef STOCHCG_SAMPLER_H
#define STOCHCG_SAMPLER_H
#include "stochcg.h"

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

/* Next minibatch into idx (capacity >= max(batch, n) when all = 1);
 * all = 1 draws every remaining point. Returns the number drawn. */
static inline int cg_sampler_next(cg_sampler *s, int *idx, int all)
{
    int b = 0;
    if (s->mode == CG_SAMPLE_REPLACE && !all) {
        for (; b < s->batch; b++) idx[b] = (int) R_unif_index((double) s->n);
    } else if (s->mode == CG_SAMPLE_REPLACE) {
        for (; b < s->n; b++) idx[b] = b;
    } else {
        int want = all ? s->n : s->batch;
        for (; b < want && s->pos < s->n; b++) idx[b] = s->order[s->pos++];
    }
    s->drawn += b;
    return b;
}
#endif
