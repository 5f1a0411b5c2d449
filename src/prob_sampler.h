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

/* Block sampler, for data read from a file in blocks (its chunks; see
 * R/readers.R): the n points are cut into blocks of `bsize` consecutive
 * points (the last may be shorter). Blocks are taken in random order
 * (CG_SAMPLE_SHUFFLE), in their order (CG_SAMPLE_STREAM) or at random with
 * replacement (CG_SAMPLE_REPLACE), and the points of each block in random
 * order (in their order for "stream"): a block-shuffle, so that a block is
 * read once and its points are used before the next is read. With `cycle`
 * a new random order of the blocks follows the last (an endless stream of
 * epochs), else the sampler ends after the last block. The draws depend
 * only on n, bsize, the mode and R's RNG, never on where the data are: an
 * in-memory matrix read by the same blocks gives the same draws. */
typedef struct {
    int n, bsize, nblocks, mode, cycle;
    int *border, bpos;         /* block order, next position in it */
    int *rorder, cur, clen, cpos;   /* the current block, its points' order */
    double drawn;
} cg_block_sampler;

static inline void cg_block_order(cg_block_sampler *s)
{
    for (int i = 0; i < s->nblocks; i++) s->border[i] = i;
    if (s->mode == CG_SAMPLE_SHUFFLE)
        for (int i = s->nblocks - 1; i > 0; i--) {
            int j = (int) R_unif_index((double) i + 1);
            int t = s->border[i]; s->border[i] = s->border[j]; s->border[j] = t;
        }
    s->bpos = 0;
}

static inline void cg_block_sampler_init(cg_block_sampler *s, int n, int bsize, int mode,
                                         int cycle)
{
    if (bsize < 1 || n < 1) error("spec: invalid block size");
    if (bsize > n) bsize = n;
    s->n = n; s->bsize = bsize; s->mode = mode; s->cycle = cycle;
    s->nblocks = (int) (((double) n + bsize - 1) / bsize);
    s->border = (int *) R_alloc(s->nblocks, sizeof(int));
    s->rorder = (int *) R_alloc(bsize, sizeof(int));
    s->cur = -1; s->clen = 0; s->cpos = 0; s->drawn = 0;
    if (mode != CG_SAMPLE_REPLACE) cg_block_order(s);
}

/* The next block to read into the current one (its points' order drawn),
 * or 0 when the sampler has ended */
static inline int cg_block_sampler_advance(cg_block_sampler *s)
{
    int b;
    if (s->mode == CG_SAMPLE_REPLACE) {
        b = (int) R_unif_index((double) s->nblocks);
    } else {
        if (s->bpos >= s->nblocks) {
            if (!s->cycle) return 0;
            cg_block_order(s);
        }
        b = s->border[s->bpos++];
    }
    s->cur = b;
    s->clen = b == s->nblocks - 1 ? s->n - b * s->bsize : s->bsize;
    s->cpos = 0;
    for (int i = 0; i < s->clen; i++) s->rorder[i] = i;
    if (s->mode != CG_SAMPLE_STREAM)
        for (int i = s->clen - 1; i > 0; i--) {
            int j = (int) R_unif_index((double) i + 1);
            int t = s->rorder[i]; s->rorder[i] = s->rorder[j]; s->rorder[j] = t;
        }
    return 1;
}

/* The next point, as its position in the current block (the block is
 * s->cur, its first point s->cur * s->bsize): -1 when the current block is
 * used up (call cg_block_sampler_advance, then read that block) */
static inline int cg_block_sampler_next(cg_block_sampler *s)
{
    if (s->cur < 0 || s->cpos >= s->clen) return -1;
    s->drawn += 1.0;
    return s->rorder[s->cpos++];
}
#endif
