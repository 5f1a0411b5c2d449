#' Sparse (lasso) regression over the l1 ball by (stochastic) Frank-Wolfe
#'
#' Solves \deqn{\min_{a, \beta} \frac{1}{2n}\|y - a\mathbf{1} - X\beta\|_2^2
#' \quad\text{s.t.}\quad \|\beta\|_1 \le r}{min_(a, beta) 1/(2n) ||y - a 1 -
#' X beta||^2  s.t.  ||beta||_1 <= r}
#' (the lasso in its constrained form, with an unpenalized intercept
#' \eqn{a}{a}; \eqn{a = 0}{a = 0} with `intercept = FALSE`) by pairwise Frank-Wolfe, with the
#' stochastic Frank-Wolfe algorithm of Lafond, Wai and Moulines (2015), its
#' deterministic counterpart, or stochastic projected gradient.
#'
#' With `family = "binomial"` or `"poisson"` the loss is the negative
#' log-likelihood of the logistic or log-linear model, and with `weights`,
#' `standardize` (the default) and `penalty.factor` the ball is that of
#' glmnet's penalty: see "Families, weights, standardization and penalty
#' factors".
#'
#' @section Families, weights, standardization and penalty factors:
#' As in glmnet, the problem solved in general is
#' \deqn{\min_{a, \beta} \frac{1}{n}\sum_i w_i\, \ell(y_i, a + x_i^\top\beta)
#' \quad\text{s.t.}\quad \sum_j f_j s_j |\beta_j| \le r}{min_(a, beta)
#' 1/n sum_i w_i l(y_i, a + x_i'beta)  s.t.  sum_j f_j s_j |beta_j| <= r}
#' with \eqn{\ell}{l} half the deviance of the family (\eqn{(y -
#' \eta)^2/2}{(y - eta)^2 / 2} for `"gaussian"`, the logistic loss for
#' `"binomial"`, \eqn{e^\eta - y\eta}{exp(eta) - y eta} plus a constant for
#' `"poisson"`; `objective` is half the weighted mean deviance), observation
#' weights \eqn{w_i}{w_i} (`weights`, rescaled to sum to \eqn{n}{n} as glmnet
#' does; all 1 by default), penalty factors \eqn{f_j}{f_j} (`penalty.factor`,
#' rescaled to sum to \eqn{p}{p} as glmnet does; all 1 by default) and
#' column scales \eqn{s_j}{s_j}: with `standardize = TRUE` (the default, as
#' glmnet) the standard deviation of column \eqn{j}{j} (weighted, with
#' divisor \eqn{n}{n}, around the weighted mean, as glmnet's with or
#' without an intercept), so that the radius bounds the coefficients of the columns
#' scaled to unit variance and no longer depends on the units of `X`; 1
#' with `standardize = FALSE`, the plain l1 ball. Coefficients are always
#' returned on the original scale of `X` (`fit$theta` holds the ones the
#' radius bounds, \eqn{f_j s_j\beta_j}{f_j s_j beta_j}), and a glmnet fit at
#' a `lambda` is our fit at the radius \eqn{\sum_j f_j s_j
#' |\hat\beta_j|}{sum_j f_j s_j |beta_j|} of its coefficients (tested to
#' \eqn{10^{-5}}{1e-5}). A variable with \eqn{f_j = 0}{f_j = 0} is not
#' penalized: like the intercept, it is minimized out exactly for every
#' \eqn{\beta}{beta} of the others (a constant column, \eqn{s_j = 0}{s_j =
#' 0}, gets coefficient 0). `y` for `"binomial"` is 0/1 (or a two-level
#' factor, the second level 1, as glmnet), for `"poisson"` non-negative
#' counts.
#'
#' How each case is solved, with `objective` and `gap` always those of the
#' stated problem: least squares with only column scales runs the methods
#' below on the scaled columns (a sparse `X` is scaled without densifying);
#' least squares with weights or unpenalized columns on a dense `X` runs
#' them on the rows scaled by \eqn{\sqrt{w_i}}{sqrt(w_i)} and projected onto
#' the complement of the intercept and the unpenalized columns (one QR of
#' those), whose least squares the projection profiles out exactly. The
#' binomial and Poisson families, and weighted or partly unpenalized least
#' squares on a sparse `X`, use pairwise Frank-Wolfe on the profiled loss
#' \eqn{\phi(\beta) = \min_{a, \gamma} f}{phi(beta) = min_(a, gamma) f}
#' (`src/prob_glm.c`): each step moves weight between two vertices of the
#' ball with an exact line search (safeguarded Newton on the loss along
#' the step, \eqn{O(n)}{O(n)} per trial), then minimizes the intercept and
#' the unpenalized coefficients exactly (damped Newton to rounding), so the
#' gradient is that of \eqn{\phi}{phi} and the Frank-Wolfe gap certifies
#' the stated problem. A step costs one pass over `X` (the gradient
#' \eqn{X^\top W(\mu - y)/n}{X'W(mu - y) / n}) and a few \eqn{O(n)}{O(n)}
#' passes. As for least squares, face steps (`face_step = TRUE`) take over
#' once the support is found (the pairwise step's vertex already in the
#' support; before, a proximal-Newton "model" step over the support and the
#' coordinates of largest gradient): a Newton step on the face of the active
#' vertices, jointly with the unpenalized coefficients, with the signs
#' kept and backtracking on the exact loss, paid from the pairwise steps'
#' work (the Hessian \eqn{X_S^\top W X_S/n}{X_S'W X_S / n} of the support,
#' by rows for a sparse `X`, which then keeps a copy of `X` by rows: one
#' more `X`). On the logistic fits of `inst/bench/sparse_regression.R` they
#' cut the steps on the Colon data (62 x 2000, 25 nonzero) from 10869 to
#' about 40: 0.5-3.5 times glmnet's CPU time at p >> n (Colon, Khan: a few
#' milliseconds each), 2-5 times at n = 20000, p = 100, and 9-45 times on
#' a sparse 5000 x 2000 design with 57-750 nonzero coefficients, where each
#' nonzero costs at least one pairwise step with a pass over `X`. Only `method = "pfw"` applies there.
#'
#' @section Default method:
#' `"pfw"`, pairwise Frank-Wolfe (Lacoste-Julien and Jaggi 2015), because
#' `X` is in memory: it reaches the lasso solution itself, with its exact
#' zeros. Each step moves weight from the active vertex \eqn{\pm r e_j}
#' most aligned with the gradient (or from the origin, while
#' \eqn{\|\beta\|_1 < r}) to the Frank-Wolfe vertex, with exact line
#' search; a step that empties a vertex sets its coefficient to exactly
#' zero. The rate is linear (plain `"fw"` slows to \eqn{1/t} zigzagging on
#' the face of the solution), on the sphere and inside the ball alike. The
#' gradient is kept exact through the Gram columns \eqn{X^\top x_j} of the
#' coordinates visited, each computed once (one pass over `X`) and cached
#' up to 64 MB, so a step costs \eqn{O(p)}; it is recomputed from scratch
#' every 10000 steps and before a small gap is trusted. Pairwise steps slow
#' down where \eqn{X^\top X}{X'X} is ill-conditioned on the support (the
#' weakly constrained radii of correlated designs: on the Boston data of
#' `inst/bench/cv_regression.R`, \eqn{10^5} steps were not enough), so
#' `"pfw"` adds face steps (`face_step = TRUE`), the fully corrective step
#' of an active-set method: with the signs of the nonzero coefficients
#' fixed, it minimizes the least squares exactly on the face of the ball
#' that they span (one solve with the Gram block of the support) and moves
#' toward that point as far as the signs and the ball allow, only if the
#' objective decreases. Once the pairwise steps have found the solution's
#' support and signs, one face step reaches it: on a correlated design of
#' the tests, 42 to 263 steps in place of 6901 to 15318. Their work is paid
#' from a credit the pairwise steps earn, 200 times their own flops (so
#' face steps take at most 200/201 of a run's work: a bound when they do not
#' help; with a credit of once their work, p >> n fits near interpolation
#' ran out of \eqn{10^5}{10^5} steps), a warm start begins with the credit of one,
#' and the duality gap stays the certificate. The Cholesky factor of the
#' support's Gram block is kept from one face step to the next, along a
#' path and into a warm start from a fit at another radius: a column in or
#' out is an \eqn{O(s^2)}{O(s^2)} update where a new factor costs
#' \eqn{s^3/3}{s^3 / 3} (a 1600 x 5000 path to 1446 nonzero coefficients:
#' 98 to 8.6 CPU seconds). Without a working set (below), the gradient computed
#' from scratch and the evaluation go through the support's Gram columns
#' (\eqn{O(p s)}{O(p s)} flops, not two passes over `X`) wherever their
#' rounding is far below what `tol` asks of the gap. Where
#' the Gram block of the support is singular (more nonzero coefficients than
#' rows, near the interpolating radii of \eqn{p \gg n}{p >> n} designs, or
#' collinear columns) a face step first takes columns out of the support at
#' no cost, along directions \eqn{d}{d} with \eqn{X_S d = 0}{X_S d = 0} that do
#' not increase the l1 norm (Caratheodory's reduction; the lasso solution
#' has a support on which the block is nonsingular; the null directions
#' come from a Cholesky factor with pivoting), then solves on the rest: on
#' the riboflavin data (71 x 4088) three fold paths of 25 radii took 195 to
#' 210 steps in all, where they had taken 18299 to 110544 steps, two fits not
#' reaching `tol` in \eqn{10^5}{10^5}; on a 66 x 2307 design (Khan) the fold
#' paths, interpolating at their last radius, took 116 to 239 steps, where
#' with a smaller credit some ran out of \eqn{10^5}{10^5}
#' (`inst/bench/results/cv_regression_wide.md`). The fit is
#' `"converged"` when the exact duality gap, an upper bound on objective
#' minus optimum, is below `tol`; set `tol` well below the default for
#' coefficients accurate to many digits (the error in \eqn{\beta} is of
#' order the square root of the gap).
#'
#' With a dense `X` of at least 200 columns (and no Gram matrix given),
#' `"pfw"` works on a working set, as glmnet's strong rules do: its steps
#' move only the coordinates of a set \eqn{W}{W} that holds the support,
#' and the Gram columns are computed on \eqn{W}{W} alone (\eqn{n|W|}{n |W|}
#' flops each where a whole column costs \eqn{np}{n p}). Every time the
#' gradient is computed from scratch on all \eqn{p}{p} columns (at the
#' start, every 10000 steps and before a small gap is trusted) the KKT
#' conditions are checked on all of them: the columns whose
#' \eqn{|g_j|}{|g_j|} exceeds the largest on \eqn{W}{W} enter it (the
#' largest first, at most \eqn{\max(16, |W|)}{max(16, |W|)} at a time).
#' The gap that declares convergence is the full problem's, so the
#' certificate is unchanged; a column the start leaves out is brought in by
#' a later check (`fit$screen` gives the size of \eqn{W}{W} and the number
#' of columns added after the first check). A warm start from a fit of the
#' same data at another radius, and a path, keep the working set. The
#' option `stochcg.screen = FALSE` turns it off (for comparisons). The
#' stochastic methods (`"sfw"`,
#' `"spg"`) are for data seen one row at a time (streams, or rows sampled
#' from a large data set): they read few rows per step but never reach the
#' optimum to high accuracy.
#'
#' For `"sfw"` and `"spg"`, the gradient estimate uses running sufficient
#' statistics of the rows drawn so far (their eq. 23): \eqn{S_t = \sum x_i x_i^\top}, \eqn{b_t = \sum x_i
#' y_i}. With `sampling = "shuffle"` rows are drawn without replacement in
#' random order, `batch_size` per iteration (the empirical-risk setting of
#' their section 3.3); once every row has been drawn the gradient is exact and
#' the method continues as deterministic Frank-Wolfe. `sampling = "stream"`
#' takes rows in the order given (an online data stream, section 3.1), and
#' `"replace"` draws rows with replacement for ever (an i.i.d. stream from the
#' empirical distribution). A Frank-Wolfe step moves one coordinate, so it
#' costs \eqn{O(p)}; a new row costs \eqn{O(p^2)} (dense) or
#' \eqn{O(\mathrm{nnz}^2)} (sparse row), and memory is \eqn{p^2} doubles
#' (`gram = TRUE`, the default for \eqn{p \le 2000}). For larger `p` the same
#' estimate is kept through the fitted values of the drawn rows instead
#' (`gram = FALSE`): a step costs \eqn{O(\text{rows drawn})} and a gradient
#' \eqn{O(\mathrm{nnz})} of the drawn rows, with memory \eqn{O(n + p)}. Both
#' give the same iterates up to rounding.
#'
#' @section Intercept:
#' With `intercept = TRUE` (the default, as [lm()] and glmnet) the
#' intercept is minimized out: for any \eqn{\beta}{beta} the best
#' \eqn{a}{a} is \eqn{\bar y - \bar x^\top\beta}{ybar - xbar'beta} (the
#' means of `y` and of the columns of `X`), which leaves the centred problem
#' \eqn{\min \frac{1}{2n}\|y_c - X_c\beta\|^2}{min 1/(2n) ||yc - Xc beta||^2}
#' over the same ball, \eqn{X_c = X - \mathbf{1}\bar x^\top}{Xc = X - 1 xbar'},
#' \eqn{y_c = y - \bar y}{yc = y - ybar}. The methods solve that problem;
#' its objective equals the stated one at \eqn{a = \bar y - \bar
#' x^\top\beta}{a = ybar - xbar'beta}, so its duality gap certifies the
#' stated problem. A dense `X` is centred in a copy (memory: one more `X`);
#' a sparse `X` is not densified: every product with it subtracts
#' \eqn{\bar x}{xbar} (\eqn{X_c\theta = X\theta - (\bar
#' x^\top\theta)\mathbf{1}}{Xc theta = X theta - (xbar'theta) 1}), so its
#' memory and the cost of `"pfw"` are unchanged; for `"sfw"`, `"fw"` and
#' `"spg"` with `gram = TRUE` a drawn row, dense once centred, costs
#' \eqn{O(p^2)}{O(p^2)}. `fit$intercept` is \eqn{a}{a}, `coef()` gives
#' `c("(Intercept)" = a, beta)` and `predict()` \eqn{a + X\beta}{a + X beta}.
#' With `intercept = FALSE` no intercept is fitted (\eqn{a = 0}{a = 0}).
#'
#' @section Memory:
#' `X` is read where it is, never copied (a double matrix or a `dgCMatrix`;
#' other types are converted first), except that a dense `X` is centred in
#' a copy when `intercept = TRUE` (see "Intercept"), and for least squares
#' scaled in that same copy with `standardize = TRUE` or penalty factors (a
#' copy also without an intercept; a `dgCMatrix` is scaled in a copy of its
#' nonzero values). Least squares with weights or unpenalized columns on a
#' dense `X` works on a projected copy (up to three copies of `X` at its
#' peak); the binomial and Poisson families read `X` in place (a
#' `dgCMatrix` adds its copy by rows once face steps start). `"pfw"` adds \eqn{p} doubles per
#' coordinate visited (at most 64 MB), \eqn{2s^2}{2 s^2} doubles for the face
#' steps on \eqn{s} nonzero coefficients (at most 64 MB; none past
#' \eqn{s = 2048}, where the pairwise steps go on alone) and \eqn{O(n +
#' p)} vectors; along a path, \eqn{p^2} doubles for \eqn{X^\top X/n}{X'X / n}. For the
#' other methods, a dense `X` needs little more:
#' \eqn{p^2} doubles for the Gram matrix (`gram = TRUE`) and \eqn{O(n + p)}
#' vectors: at \eqn{80000 \times 250}{80000 x 250} the call used 0.05 times
#' the size of `X` on top of `X` (`inst/bench/memory.R`). A sparse `X` adds
#' one copy of it by rows for the row sampler (the same size): about 1.2
#' times the size of `X` on top of `X`.
#'
#' @param X Design matrix, n x p: a numeric matrix or a `Matrix` object
#'   (sparse `dgCMatrix` is kept sparse), or on disk a `DelayedArray` /
#'   `HDF5Matrix` or a [block_reader()] (read block by block; see "Data on
#'   disk").
#' @param y Response, length n. With `X` on disk (see "Data on disk"), `y`
#'   may be on disk too: a `DelayedArray` / `HDF5Array` vector or
#'   \eqn{n \times 1}{n x 1} matrix, or a [block_reader()] of one column;
#'   it is then read block by block with `X`'s rows, so that no
#'   \eqn{n}-vector is ever in memory (at \eqn{n = 5 \times 10^7}{n = 5e7},
#'   `y` in memory is 381 MB).
#' @param radius Radius \eqn{r > 0} of the l1 ball, or several radii: a
#'   path (see "Paths"). A single `radius = 0` gives the null model
#'   (every coefficient 0, the intercept the weighted mean of `y` on the
#'   link scale), in closed form with gap 0, as `cv_sparse_regression()`
#'   may choose it; it needs every `penalty.factor` > 0.
#' @section Data on disk:
#' `X` may be a `DelayedArray` (e.g. an `HDF5Matrix` from
#' `HDF5Array::HDF5Array()` or `writeHDF5Array()`; Suggests package
#' DelayedArray) or a reader from [block_reader()] (which also wraps an
#' in-memory matrix): the rows are then read block by block. `y` may be an
#' R vector or on disk as well (a `DelayedArray` vector or one-column
#' matrix, or a one-column reader by rows): its values are then read with
#' each block of `X` (the reader gives the block and its responses
#' together), its mean and \eqn{y'y}{y'y} from two passes over `y` alone and
#' the first pass over `X` (the same numbers, bit for bit, as from `y` in
#' memory: the fit is identical). Only `"sfw"` (the default there), `"fw"` and `"spg"` apply,
#' with `gram = TRUE`, least squares without weights, positive penalty
#' factors and a single radius. One pass first checks that every value is
#' finite and computes the column means and standard deviations (for the
#' intercept and `standardize`) and \eqn{X'y}{X'y} (the gradient at the cold
#' start, whose evaluation then reads nothing); the C side then centres and
#' scales each block as it reads it, so `X` is never copied. Rows are drawn by a
#' block-shuffle: the blocks (whole chunks of the file) in random order,
#' the rows of each block in random order (`sampling = "stream"`: both in
#' order; `"replace"`: blocks drawn with replacement), so that each block is
#' read once per pass; the solver calls the reader once per block, never
#' per row or per iteration. The draws depend only on the block structure
#' and the seed: a fit from the file equals the fit from the same matrix in
#' memory, `block_reader(X, block_size = )` with the file's block size,
#' bit for bit. Once every row has been drawn (after `ceiling(n /
#' batch_size)` iterations; not with `sampling = "replace"`), \eqn{S_t}{S_t}
#' and \eqn{b_t}{b_t} are \eqn{X'X}{X'X} and \eqn{X'y}{X'y} exactly: from
#' then on the draws read nothing, and the objective \eqn{(y'y - 2 b'\theta
#' + \theta' S \theta) / (2n)}{(y'y - 2 b'theta + theta' S theta) / (2n)} and
#' the gap come from them in \eqn{O(p^2)}{O(p^2)} without reading the file
#' (the same numbers as a pass would give, up to rounding), and the tests
#' follow the plain schedule of [cg_control()]. Before that, an evaluation
#' would be a full pass over the file, block by block: none is made for the
#' trace, and a test (with the default `tol > 0`) is due at least
#' `ceiling(n / batch_size)` iterations apart, the iterations that draw one
#' pass of rows -- that is, not before the statistics are exact. So a cold
#' start from a file reads it twice: the first pass and the draws (at 5e7 x
#' 50, 20 GB: `inst/bench/results/out_of_core_full.md`). The schedule
#' depends only on `n` and `batch_size`, so a file and the same matrix in
#' memory stop at the same iteration. With `sampling = "replace"` (never
#' exact) or a warm start (its first evaluation) the evaluations read the
#' file. What stays in memory: the \eqn{p \times p}{p x p} sufficient
#' statistics \eqn{S_t}{S_t} and \eqn{b_t}{b_t} (`gram = TRUE`), the
#' coefficients, two blocks (one drawn from, one evaluated) with their
#' responses when `y` is on disk, and otherwise `y` (not copied: it is
#' centred as it is used); no \eqn{n}-vector of fitted values
#' is kept (`fitted()` has none). The fit's `reader` element says how the
#' file was read, `reader$passes` how many times (passes over `X`; `y` on
#' disk is read with them, and twice more alone for its mean),
#' `reader$y_on_disk` whether `y` was read from disk.
#' `init` may be a fit or coefficients (a warm start; the block sampler's
#' state is not kept, so no exact continuation).
#'
#' @section Warm starts:
#' `init` starts the run from a point: the coefficients of a previous fit
#' (its `solution$beta`) or a numeric vector, scaled into the ball when its
#' l1 norm exceeds `radius`. A fit of the same data (`X`, `y`, the
#' centring of `intercept`) and the same settings (`radius`, `method`,
#' `step`, `K`, `step_size`, `gram`, `face_step`, `batch_size`, `sampling`)
#' that kept its state `fit$state` continues that run exactly: a fit of `k`
#' iterations resumed for `m` more equals one run of `k + m` iterations bit
#' for bit (tested for every method, from the same `set.seed()`, with an
#' `eval_every` that divides `k`: for `"pfw"` an evaluation at iteration
#' `k` also gives the next gradient refresh, which the work counters see),
#' the trace joining the fit's. The state is what the next steps read:
#' for `"pfw"` the gradient as its updates kept it, the support in its
#' order, which Gram columns are cached (the columns themselves are
#' computed again, one pass over `X` each), the face steps' credit,
#' \eqn{O(p)}{O(p)} numbers, and the face step's Cholesky factor
#' (\eqn{s(s+1)/2}{s (s + 1) / 2} doubles for \eqn{s}{s} columns); for `"sfw"`, `"fw"` and `"spg"` the sampler
#' (the row order, \eqn{n}{n} integers, and its position) and the running
#' statistics: \eqn{p^2 + 2p}{p^2 + 2p} doubles with `gram = TRUE` (the
#' Gram matrix \eqn{S}{S}: as large as the solver's own), or three numbers
#' per row drawn with `gram = FALSE`. For `family = "binomial"` and
#' `"poisson"` (and least squares with weights or unpenalized columns on a
#' sparse `X`) the state is the linear predictor as the steps updated it
#' (\eqn{n}{n} doubles), the support in its order and the face steps'
#' credit (on a sparse `X` also the gradient and the intercept's iterate,
#' which its steps update lazily), and "the same settings" include the family, `weights`,
#' `standardize`, `penalty.factor` and `face_step`. `fit$state <- NULL`
#' frees it.
#' Any other `init` (another radius, other data or settings, a fit without
#' its state, or a vector) is a warm start, said in `notes`: the
#' statistics start empty (`"pfw"` computes its gradient and support
#' afresh). From a fit at the same radius the step rule counts from its
#' iterations; from a fit at another radius (a path) a step rule other
#' than the line search starts where its step equals the exact line
#' search's at that start (never later). The trace and `iterations`
#' continue the fit's own.
#'
#' @section Paths:
#' With several radii, `sparse_regression()` solves the problem at each, in
#' increasing order, each fit warm-started from the previous one (a smaller
#' ball's solution lies in the next ball), and returns a [cg_path] of the
#' fits: `plot()` draws the coefficient paths, `coef()` and `predict()`
#' take a `radius`. [cv_sparse_regression()] chooses the radius by
#' cross-validation. For `"pfw"` the whole path is one call of the solver:
#' the problem is set up once and each radius starts from the last solution
#' as a separate fit with `init =` it would (the fits are those separate
#' calls give), but the Gram columns \eqn{X^\top x_j}{X'x_j} computed along
#' the path are kept for the next radii (within the cache's 64 MB), and the
#' per-fit overhead of R is paid once. With \eqn{p \le 2000}{p <= 2000} and
#' \eqn{p \le n}{p <= n} (unless `gram = FALSE`) the path computes
#' \eqn{X^\top X/n}{X'X / n} once and its fits read their Gram columns
#' there; with \eqn{p > n}{p > n} the support has at most about \eqn{n}{n}
#' columns, cheaper to compute as visited than the \eqn{p^2}{p^2} entries.
#' @param method `"pfw"` (pairwise Frank-Wolfe, the default; see Default
#'   method), `"sfw"` (stochastic Frank-Wolfe), `"fw"` (deterministic
#'   Frank-Wolfe) or `"spg"` (stochastic projected gradient with step
#'   `step_size`, default \eqn{1/L}, \eqn{L = \lambda_{\max}(X^\top X/n)}).
#' @param family `"gaussian"` (least squares, the default), `"binomial"`
#'   (logistic regression) or `"poisson"` (log-linear counts); see
#'   "Families, weights, standardization and penalty factors".
#' @param weights Observation weights (length \eqn{n}{n}, non-negative;
#'   rescaled to sum to \eqn{n}{n}, as glmnet), or `NULL` for equal weights.
#' @param standardize `TRUE` (the default, as glmnet): the radius bounds the
#'   coefficients of the columns scaled to unit (weighted, divisor
#'   \eqn{n}{n}) standard deviation, so that it does not depend on the
#'   units of `X`; the coefficients are returned on the original scale.
#'   `FALSE`: the radius bounds the raw coefficients.
#' @param penalty.factor Non-negative factors \eqn{f_j}{f_j}, one per column
#'   (rescaled to sum to \eqn{p}{p}, as glmnet): the ball is \eqn{\sum_j f_j
#'   s_j|\beta_j| \le r}{sum_j f_j s_j |beta_j| <= r}, and a factor 0 leaves
#'   the column unpenalized (it is always in the model). `NULL`: all 1.
#' @param batch_size Rows drawn per iteration by the stochastic methods.
#'   Default `ceiling(n / 500)`, so that the data are seen once in about 500
#'   iterations.
#' @param sampling `"shuffle"`, `"stream"` or `"replace"`; see Details.
#' @param step Frank-Wolfe step rule: `"line_search"` (exact, the default for
#'   `"fw"` and the only rule of `"pfw"`), `"standard"` (\eqn{2/(t+1)},
#'   \eqn{t \ge 1}) or `"sfw"` (\eqn{K/(t+K-1)}, the default for `"sfw"`).
#' @param K Step-size parameter of `step = "sfw"` (a positive integer).
#' @param step_size Step of `"spg"`; `NULL` for \eqn{1/L}.
#' @param gram Keep the Gram matrix of the drawn rows (`TRUE`) or their
#'   fitted values (`FALSE`); `NULL` chooses `TRUE` when `p <= 2000`. For
#'   `"pfw"`: whether a path shares \eqn{X^\top X/n}{X'X / n} (see "Paths"),
#'   or that matrix itself, `crossprod(X) / nrow(X)`, whose Gram columns the
#'   fit reads instead of computing them (checked by one product with `X`).
#' @param intercept Fit an unpenalized intercept (`TRUE`, the default);
#'   see "Intercept".
#' @param face_step For `"pfw"`: take face steps (see "Default method");
#'   `FALSE` gives plain pairwise Frank-Wolfe.
#' @param init `NULL`, a previous fit of `sparse_regression()` with the same
#'   number of columns, or a coefficient vector of length \eqn{p}: the run
#'   starts from it, and continues a fit of the same data and settings
#'   exactly, from its `state` (see "Warm starts").
#' @param control Solver settings from [cg_control()]. Unless `max_iter`
#'   is given, `"pfw"` runs up to \eqn{10^5} steps (they cost \eqn{O(p)},
#'   and it needs at least one per nonzero coefficient), the other methods
#'   1000 iterations.
#' @returns A fit of class `c("sparse_regression_fit", "cg_fit")`; see
#'   [cg_fit]. `solution$beta` is \eqn{\beta}{beta}, `intercept` the
#'   intercept \eqn{a}{a} (0 with `intercept = FALSE`) and `x_center` the
#'   column means of `X` (`NULL` without an intercept). `coef()` gives
#'   `c("(Intercept)" = a, beta)` (\eqn{\beta}{beta} alone without an
#'   intercept), `predict(fit, newx)` predictions \eqn{a + X\beta}{a + X beta}.
#'   `objective` and `gap` are those of the stated problem (see "Intercept").
#'   For `"pfw"`, `face_steps` counts the face steps taken, and `screen`
#'   (with a working set, see "Default method") gives `working_set`, its
#'   size, and `kkt_added`, the columns the KKT checks added after the
#'   first. `state` is the
#'   solver's state for `init` (see "Warm starts"). With weights,
#'   standardization or penalty factors the fit also holds `theta` (the
#'   coefficients the radius bounds), `family`, `weights`, `standardize`,
#'   `penalty.factor`; binomial and Poisson fits `linear.predictors`, and
#'   their `fitted.values` are the means (`predict(fit, newx, type =
#'   "response")`).
#' @references Lafond, J., Wai, H.-T. and Moulines, E. (2015). Convergence
#'   analysis of a stochastic projection-free algorithm. arXiv:1510.01171.
#'
#'   Lacoste-Julien, S. and Jaggi, M. (2015). On the global linear
#'   convergence of Frank-Wolfe optimization variants. NeurIPS 28.
#' @examples
#' set.seed(1)
#' n <- 200; p <- 50
#' X <- matrix(rnorm(n * p), n, p)
#' beta <- c(3, -2, 1.5, rep(0, p - 3))
#' y <- drop(X %*% beta + rnorm(n))
#' fit <- sparse_regression(X, y, radius = 6)
#' fit
#' round(coef(fit)[1:5], 3)    # the intercept, then beta
#' # a path over radii, each fit warm-started from the previous one
#' path <- sparse_regression(X, y, radius = c(1, 2, 4, 6, 8))
#' path
#' round(coef(path, radius = 4)[1:5], 3)
#' # logistic regression; the first column unpenalized
#' yb <- rbinom(n, 1, plogis(drop(X %*% beta) / 2))
#' logit <- sparse_regression(X, yb, radius = 3, family = "binomial",
#'                            penalty.factor = c(0, rep(1, p - 1)))
#' logit
#' head(predict(logit, X, type = "response"))
#' @export
sparse_regression <- function(X, y, radius, method = c("pfw", "sfw", "fw", "spg"),
                              family = c("gaussian", "binomial", "poisson"),
                              weights = NULL, standardize = TRUE, penalty.factor = NULL,
                              batch_size = NULL,
                              sampling = c("shuffle", "stream", "replace"),
                              step = NULL, K = 2L, step_size = NULL,
                              gram = NULL, face_step = TRUE, init = NULL,
                              intercept = TRUE, control = cg_control()) {
  started <- wall_clock()
  call <- match.call()
  solver <- list(method = method, batch_size = batch_size, sampling = sampling, step = step,
                 K = K, step_size = step_size, gram = gram, face_step = face_step,
                 control = control)
  if (!is_reader_input(X) && is_reader_input(y))
    stop_arg("y", "can be read from disk only with `X` read from disk (a reader or a ",
             "DelayedArray)")
  # radius 0: the null model, every coefficient 0 (the intercept fitted),
  # in closed form (null_regression_fit()), as cv_sparse_regression()'s
  # default grid may choose it
  if (!missing(radius) && is.numeric(radius) && length(radius) == 1L && !is.na(radius) && radius == 0 &&
      !is_reader_input(X)) {
    # (the fit at a tiny radius checks the arguments and gives the fit's
    # fields; every number of it is then replaced)
    fit <- regression_fit(X, y, 1e-12, family, weights, standardize, penalty.factor, intercept,
                          NULL, solver, call, started)
    if (any(fit$penalty.factor %||% 1 == 0))
      stop_arg("radius", "= 0 (the null model) needs every `penalty.factor` > 0")
    fam <- fit$family %||% "gaussian"
    out <- null_regression_fit(fit, fit$y, fit$weights, fam, !is.null(fit$x_center))
    if (is.null(out))
      stop_arg("radius", "= 0: the null model's intercept is infinite (`y` all ",
               if (fam == "binomial") "0 or all 1)" else "0)")
    out$time <- wall_clock() - started
    return(out)
  }
  if (is_reader_input(X))      # X on disk (R/readers.R): drawn block by block
    return(reader_regression(X, y, radius, family, weights, standardize, penalty.factor,
                             intercept, init, solver, call, started))
  regression_fit(X, y, radius, family, weights, standardize, penalty.factor, intercept,
                 init, solver, call, started)
}

# The fit at radius 0, every coefficient 0 (the null model), from `fit`, a
# fit to the same data and settings whose fields it keeps and whose numbers
# it replaces by the closed form: with an intercept, the (weighted) mean of
# y on the link scale (gaussian: mean(y); binomial: qlogis; poisson: log);
# without one the zero model (eta = 0). Its objective is the loss at beta =
# 0 and its gap 0 (the ball {0} is one point). NULL where the intercept is
# not finite (binomial y all 0 or 1, Poisson y all 0).
null_regression_fit <- function(fit, y, w, family, intercept) {
  n <- length(y)
  wn <- if (is.null(w)) rep(1 / n, n) else w / sum(w)
  mu <- if (intercept) sum(wn * y) else switch(family, gaussian = 0, binomial = 0.5, poisson = 1)
  eta <- switch(family, gaussian = mu, binomial = stats::qlogis(mu), poisson = log(mu))
  if (!is.finite(eta)) return(NULL)
  obj <- switch(family,
    gaussian = 0.5 * sum(wn * (y - mu)^2),
    binomial = -sum(wn * (y * log(mu) + (1 - y) * log(1 - mu))),
    poisson = {
      ylogy <- numeric(n)
      pos <- y > 0
      ylogy[pos] <- y[pos] * log(y[pos])
      sum(wn * (mu - y * log(mu) + ylogy - y))
    })
  zero <- function(v) stats::setNames(numeric(length(v)), names(v))
  fit$solution$beta <- zero(fit$solution$beta)
  if (!is.null(fit$theta)) fit$theta <- zero(fit$theta)
  fit$intercept <- eta
  if (!is.null(fit$b)) fit$b <- eta
  if (!is.null(fit$linear.predictors)) fit$linear.predictors <- rep(eta, n)
  if (!is.null(fit$fitted.values)) fit$fitted.values <- rep(mu, n)
  fit$objective <- obj
  fit$gap <- 0
  fit$converged <- TRUE
  fit$status <- "converged"
  fit$message <- "radius 0: the null model, in closed form (gap 0: the ball is one point)"
  fit$iterations <- 0L
  if (!is.null(fit$face_steps)) fit$face_steps <- 0
  fit$time <- 0
  fit$solver_time <- 0
  fit$state <- NULL
  fit$screen <- NULL
  if (is.data.frame(fit$trace)) fit$trace <- fit$trace[0L, , drop = FALSE]
  fit$radius <- 0
  fit$notes <- c(if (family != "gaussian") paste("family", family),
                 if (intercept) sprintf("intercept %s", fmt_num(eta, 4)),
                 "every coefficient 0 (radius 0: the null model)")
  fit
}

# Least squares over the plain l1 ball, unweighted, on X as given (the
# problem of prob_regression.c; see "Intercept"): sparse_regression() with
# standardize = FALSE, no weights and no penalty factors, or on the data
# regression_prepare() made for them. `intercept` may be the centring of
# data centred already (a path's or a fold's).
regression_core <- function(X, y, radius, method = c("pfw", "sfw", "fw", "spg"),
                            batch_size = NULL,
                            sampling = c("shuffle", "stream", "replace"),
                            step = NULL, K = 2L, step_size = NULL,
                            gram = NULL, face_step = TRUE, init = NULL,
                            intercept = TRUE, control = cg_control(), call = NULL,
                            started = wall_clock()) {
  force(started)
  if (is.null(call)) call <- match.call()
  path_radii <- NULL
  # (internal: cv_sparse_regression() ends its default grid's full-data
  # path by glmnet's rule, regression_path(stop_ratio =))
  path_stop <- attr(control, "path_stop_ratio")
  lean <- isTRUE(attr(control, "lean_path"))      # (a CV fold's path: lean_fit below)
  # (a CV fold's data, or the full data's, made by fold_data() from an X
  # checked once: its fingerprint, taken there; X is not scanned again by
  # every piece of the path)
  data_fp <- attr(control, "data_fingerprint")
  # a CV fold's piece of one radius, warm-started from its previous piece
  # (short pieces, cv_radius()): a path of one radius, whose fit is lean as
  # the longer pieces' (a whole fit made the fitted values and a trace for
  # the CV to drop: at 4000 x 500 such pieces were a third of the CV). The
  # same solver call as a single fit's: no path rule (a single fit has
  # none), and the `gram` given (a single fit computes none)
  one_lean <- lean && !missing(radius) && length(radius) == 1L && !is.null(init) &&
    !is.null(data_fp) && is_pfw(method)
  if (!missing(radius) && (length(radius) > 1L || one_lean)) {     # a path: one fit per radius
    if (is.null(data_fp)) X <- check_design(X, "X")
    # centred once for all the fits: they get the centred data and the
    # centring (`intercept`), so they do not centre again
    if (isTRUE(intercept)) {
      y <- check_vector(y, "y", nrow(X))
      centring <- regression_centring(X, y)
      X <- centring$X; y <- centring$y; intercept <- centring$centring
    }
    if (!one_lean) gram <- path_gram(X, method, gram, implicit_xbar(X, intercept))
    if (!is_pfw(method)) {
      args <- mget(c("X", "y", "method", "batch_size", "sampling", "step", "K",
                     "step_size", "gram", "face_step", "intercept", "control"))
      return(fit_path(regression_core, args, radius, init, call, started))
    }
    # "pfw": the whole path in one solver call (regression_path()), its
    # first fit set up here as a single fit at the smallest radius
    path_radii <- check_radii(radius)
    radius <- path_radii[1L]
  }
  # ---- error checking
  method <- match_choice(method, c("pfw", "sfw", "fw", "spg"), "method")
  sampling <- match_choice(sampling, c("shuffle", "stream", "replace"), "sampling")
  if (is.null(path_radii) && is.null(data_fp)) X <- check_design(X, "X")  # a path's: above
  n <- nrow(X); p <- ncol(X)
  if (n < 1L || p < 1L) stop_arg("X", "must have at least one row and one column")
  y <- check_vector(y, "y", n)
  # ---- intercept: fit the centred problem (see Details). A path's fits
  # get the centred data and the centring as `intercept`.
  centring <- NULL
  if (inherits(intercept, "regression_centring")) {
    centring <- intercept
  } else {
    check_flag(intercept, "intercept")
    if (intercept) {
      cen <- regression_centring(X, y)
      X <- cen$X; y <- cen$y; centring <- cen$centring
    }
  }
  xbar_c <- implicit_xbar(X, centring)     # sparse X: centred in C
  if (missing(radius)) stop_arg("radius", "is missing, with no default")
  check_radius(radius)
  step <- default_step(if (method == "pfw") "fw" else method, step)
  if (method == "pfw" && step != "line_search")
    stop_arg("step", "must be \"line_search\" for method = \"pfw\" (its only rule)")
  check_count(K, "K")
  if (is.null(batch_size)) batch_size <- max(1L, ceiling(n / 500))
  check_count(batch_size, "batch_size")
  check_step_size(step_size, method)
  gram_matrix <- NULL
  if (is.matrix(gram)) {                 # pfw: X'X / n, given by a path
    if (method != "pfw") stop_arg("gram", "can be a matrix only for method = \"pfw\"")
    # (a CV fold's X'X / n, made by fold_data() from the fold's rows, is
    # not checked again: an O(np) product per piece of each fold's path)
    gram_matrix <- if (isTRUE(attr(gram, "stochcg_fold_gram", exact = TRUE))) gram
                   else check_gram_matrix(gram, X, xbar_c)
    gram <- TRUE
  }
  if (is.null(gram)) gram <- p <= 2000L
  check_flag(gram, "gram")
  check_flag(face_step, "face_step")
  if (gram && p > 16000L)
    stop_arg("gram", "= TRUE needs p^2 doubles; with ", p, " columns use gram = FALSE")
  control <- as_control(control, max_iter = if (method == "pfw") 1e5 else 1000)
  # "pfw" on a dense X without a given Gram matrix works on a working set
  # checked by the KKT conditions over all columns (prob_regression.c,
  # ws_screen); the option stochcg.screen = FALSE (tests) turns it off
  screen <- !isFALSE(getOption("stochcg.screen"))

  # what a state belongs to: the data the C side sees (centred), the
  # problem and every setting the iteration reads
  sampling_id <- if (method %in% c("fw", "pfw")) 1L else sampling_code(sampling)
  key <- list(data = c(data_fp %||% regression_fingerprint(X), fingerprint(y)), x_center = xbar_c,
              intercept = !is.null(centring), method = method, step = step,
              K = as.integer(K), step_size = step_size, radius = as.double(radius),
              gram = gram, gram_matrix = gram_key(gram_matrix, lean && !is.null(data_fp)),
              face_step = face_step, batch_size = as.integer(min(batch_size, n)),
              sampling = sampling_id, screen = screen)
  start <- if (!is.null(init)) regression_start(init, p, radius, key, n) else NULL

  # ---- problem spec
  sparse <- inherits(X, "Matrix")
  spec <- list(problem = "regression", method = method, step = step,
               K = as.integer(K), eta = if (is.null(step_size)) -1 else step_size,
               n = n, p = p, y = y, radius = as.double(radius), sparse = sparse,
               gram = gram, face_step = face_step, screen = screen,
               batch_size = key$batch_size, sampling = sampling_id,
               lipschitz = if (method == "spg") design_lipschitz(X, xbar_c) else 1)
  if (!is.null(gram_matrix)) spec$gram_matrix <- gram_matrix
  # a CV fold's X'y / n, made by fold_data() with its X'X / n from the same
  # data (the solver's set-up made it again for every piece of the path)
  if (!sparse && isTRUE(attr(gram_matrix, "stochcg_fold_gram", exact = TRUE)))
    spec$xty_given <- attr(gram_matrix, "stochcg_fold_xty", exact = TRUE)
  if (!is.null(xbar_c)) spec$x_center <- as.double(xbar_c)
  if (sparse) {
    Xr <- methods::as(Matrix::t(X), "CsparseMatrix")   # rows of X as columns
    spec <- c(spec, list(row_p = Xr@p, row_j = Xr@i, row_x = Xr@x,
                         col_p = X@p, col_i = X@i, col_x = X@x))
  } else {
    spec$X <- X
  }
  # a warm start keeps the cold start's scale of tol: the objective at 0
  if (!is.null(start))
    spec[c("init_beta", "iter_offset", "cold_objective")] <- list(start$beta, start$iter,
                                                             sum(y^2) / (2 * n))
  if (!is.null(start) && start$other_radius) spec$warm_start <- TRUE
  if (!is.null(start$ws)) spec$init_ws <- start$ws
  if (!is.null(start$face) && face_step)
    spec[c("init_face_idx", "init_face_L")] <- unname(start$face)
  if (isTRUE(start$exact)) spec <- c(spec, start$state)

  # the centring's column means, named, shared by the fits of a path
  x_center <- if (!is.null(centring)) stats::setNames(centring$xbar, colnames(X))
  # the fit from the solver's result at `radius`, started from `init`
  # (`start`: regression_start()'s reading of it)
  finish <- function(fit, init, start, radius, started) {
    if (!is.null(start)) {
      fit <- continue_trace(fit, init, start)
      fit$notes <- start_note(start$note)
    }
    key$radius <- as.double(radius)
    # the solver's state, for init = (see "Warm starts")
    sol <- fit$solution
    is_state <- startsWith(names(sol), "state_") & !vapply(sol, is.null, NA)
    fit$state <- c(sol[is_state], list(key = key))
    beta <- fit$solution$beta
    names(beta) <- colnames(X)
    if (method == "pfw") fit$face_steps <- fit$solution$face_steps
    # the working set's size and the columns its KKT checks added after
    # the fit's first (pfw with screening; see ?sparse_regression)
    if (method == "pfw" && !is.na(fit$solution$working_set %||% NA))
      fit$screen <- c(working_set = fit$solution$working_set,
                      kkt_added = fit$solution$kkt_added)
    fit$solution <- list(beta = beta)
    # a = ybar - xbar'beta minimizes the stated objective over a, where it
    # equals the centred problem's
    fit$intercept <- if (is.null(centring)) 0 else centring$ybar - sum_product(centring$xbar, beta)
    if (!is.null(centring)) fit$x_center <- x_center
    if (!is.null(centring))
      fit$notes <- c(fit$notes, beta = sprintf("intercept %s", format(fit$intercept, digits = 4)))
    # fitted values ybar + Xc beta (= a + X beta); y as given
    fit$fitted.values <- support_fitted(X, beta) +
      (if (is.null(centring)) 0 else centring$ybar) - sum(xbar_c * beta)
    fit$y <- as.vector(if (is.null(centring)) y else centring$y)
    fit$radius <- radius
    fit$nobs <- n
    class(fit) <- c("sparse_regression_fit", "cg_fit")
    finish_fit(fit, started)
  }
  # A CV fold's path (internal attribute "lean_path" of control, set by
  # cv_sparse_regression() for the folds' fits only): each fit holds only
  # what the CV reads (coefficients, intercept, status, objective, gap,
  # iterations) and the last its solver state for the next piece's warm
  # start; no trace, message, notes or fitted values (two thirds of a CV
  # at 40 x 500 went to making those for 11 x 25 fits). The coefficients,
  # intercept and iteration counts are those finish() gives.
  lean_fit <- if (lean) function(res, iter0, radius, keep_state) {
    tr <- res$trace
    last <- length(tr$objective)
    sol <- res$solution
    beta <- sol$beta
    # (C names a lean result's beta, spec$beta_names; naming a vector the
    # result list still holds copies it)
    if (is.null(names(beta)) && !is.null(colnames(X))) names(beta) <- colnames(X)
    fit <- list(solution = list(beta = beta), objective = tr$objective[last],
                gap = tr$gap[last], method = method, problem = "sparse_regression",
                converged = identical(res$status, "converged"), status = res$status,
                iterations = res$iterations + iter0, time = tr$time[last],
                intercept = if (is.null(centring)) 0 else centring$ybar - sum_product(centring$xbar, beta),
                radius = radius, nobs = n, lean = TRUE)
    if (!is.null(centring)) fit$x_center <- x_center
    if (keep_state) {
      key$radius <- as.double(radius)
      for (part in c("state_loop", "state_solver"))
        if (!is.null(res[[part]])) sol[[part]] <- res[[part]]
      is_state <- startsWith(names(sol), "state_") & !vapply(sol, is.null, NA)
      fit$state <- c(sol[is_state], list(key = key))
    }
    class(fit) <- c("sparse_regression_fit", "cg_fit")
    fit
  }
  # (a fold path's fits before its last come back lean from C: the
  # coefficients, status, iterations and last trace row, no state)
  if (!is.null(path_radii) && lean) spec[c("path_lean", "beta_names")] <- list(TRUE, colnames(X))
  if (!is.null(path_radii))
    return(regression_path(spec, control, path_radii, finish, init, start, call, started, p,
                           if (!one_lean) path_stop, lean_fit))
  finish(cg_run(spec, control, "sparse_regression", call, started), init, start, radius, started)
}

# X b over the support of b: as.vector(X[, nz] %*% b[nz]) (nz = which(b !=
# 0)); for a dense double X on the reference BLAS by C, the same numbers
# without the copy X[, nz] (a path's fitted values: those copies were a
# tenth of a CV at 1000 x 200, one per fit of the full data's path). With
# all = TRUE the numbers of as.vector(X %*% b) (predict(): the CV's
# held-out rows, every fit of every fold), the same where R's product
# calls the BLAS (the zero coefficients add exact zeros).
support_fitted <- function(X, b, all = FALSE) {
  f <- if (is.matrix(X) && is.double(X) && is.double(b) && ref_blas())
         .Call(C_cg_support_fitted, X, b, all)
  if (!is.null(f)) return(f)
  if (all) return(as.vector(as.matrix(X %*% b)))
  nz <- which(b != 0)
  as.vector(X[, nz, drop = FALSE] %*% b[nz])
}

# sum(x * y) of two double vectors, the same number, without the vector
# x * y (a fit's intercept; src/regression_data.c)
sum_product <- function(x, y) {
  if (is.double(x) && is.double(y) && length(x) == length(y)) .Call(C_cg_sum_product, x, y)
  else sum(x * y)
}

# A given Gram matrix's part of a fit's state key: its fingerprint; for a CV
# fold's lean path (fold = TRUE) with the X'X / n fold_data() made from the
# fold's rows (attribute stochcg_fold_gram), "fold": the key's data part (X's
# fingerprint and the rows) tells it apart already (its fingerprint per
# piece of each fold's path, 88 passes over a p x p matrix per CV at 1000 x
# 200, was a tenth of that CV). These keys stay inside the CV.
gram_key <- function(G, fold = FALSE) {
  if (is.null(G)) return(NULL)
  if (fold && isTRUE(attr(G, "stochcg_fold_gram", exact = TRUE))) return("fold")
  fingerprint(G)
}

# is `method` "pfw" (NULL if it is not a valid method: the fit reports it)?
is_pfw <- function(method) {
  identical(tryCatch(match_choice(method, c("pfw", "sfw", "fw", "spg"), "method"),
                     error = function(e) NULL), "pfw")
}

# Warm start from `init`: a sparse_regression() fit or a coefficient vector
# of length p, scaled into the l1 ball of `radius` when outside it. From a
# fit, the step rule counts from its iterations (iter). A fit of the same
# data and settings (`key`) that kept its state continues exactly: its beta
# as it is, and its state for the C side (`state`).
regression_start <- function(init, p, radius, key = NULL, n = NULL) {
  iter <- 0L
  carry_ws <- NULL
  if (inherits(init, "sparse_regression_fit")) {
    beta <- init$solution$beta
    iter <- init$iterations
    if (!is.numeric(iter) || length(iter) != 1L || is.na(iter) || iter < 0)
      stop_arg("init", "has an invalid `iterations` (a fit altered by hand?)")
    if (!is.numeric(beta) || length(beta) != p || !all_finite(beta))
      stop_arg("init", "is a fit with ", length(beta), " coefficients, but `X` has ",
               p, " columns")
    st <- init$state
    if (!is.null(key) && identical(st$key, key)) {
      check_regression_state(st, key, n, p)
      return(list(beta = as.double(beta), iter = as.integer(iter), exact = TRUE,
                  state = st[setdiff(names(st), "key")], other_radius = FALSE,
                  note = continued_note(iter)))
    }
    # a fit of the same data and settings at another radius: its working
    # set ("pfw", see ?sparse_regression) is the warm start's, as along a
    # path, so that a path's fits are those of separate warm-started calls
    # (and its face step's Cholesky factor: the Gram block does not
    # depend on the radius; the C side checks its parts)
    ws <- st$state_ws
    if (!is.null(key) && is.list(st$key) && is.integer(ws) && !anyNA(ws) &&
        all(ws >= 0L & ws < p) && !anyDuplicated(ws) &&
        identical(st$key[setdiff(names(st$key), "radius")], key[setdiff(names(key), "radius")]))
      carry_ws <- list(ws = ws, face_idx = st$state_face_idx, face_L = st$state_face_L)
  } else if (is.numeric(init) && is.null(dim(init))) {
    if (length(init) != p)
      stop_arg("init", "must have length ", p, " (one per column of `X`), not ", length(init))
    if (!all_finite(init)) stop_arg("init", "contains NA, NaN or Inf")
    beta <- init
  } else {
    stop_arg("init", "must be NULL, a fit of sparse_regression() or a numeric vector")
  }
  beta <- as.double(beta)
  l1 <- sum(abs(beta))
  scaled <- l1 > radius
  if (scaled) beta <- beta * (radius / l1)
  # (the note, made by start_note() when a whole fit is made: a CV fold's
  # lean fits have none, and its sprintf() and format() for every piece of
  # every fold were 3% of a CV at 1000 x 200)
  note <- list(iter = as.integer(iter), l1 = if (scaled) l1,
               fit = inherits(init, "sparse_regression_fit"))
  list(beta = beta, iter = as.integer(iter), note = note, exact = FALSE,
       other_radius = !inherits(init, "sparse_regression_fit") ||
                      !identical(as.double(init$radius), as.double(radius)),
       ws = if (!scaled) carry_ws$ws,
       face = if (!scaled && is.integer(carry_ws$face_idx) && is.double(carry_ws$face_L))
         carry_ws[c("face_idx", "face_L")])
}

# the note of a warm start read by regression_start(): its string
start_note <- function(note) {
  if (!is.list(note)) return(note)
  sprintf("warm start from %s%s%s",
          if (note$iter > 0L) sprintf("a fit of %d iterations", note$iter)
          else "the coefficients given",
          if (!is.null(note$l1)) sprintf(" (scaled from l1 norm %s into the ball)",
                                         format(note$l1, digits = 4)) else "",
          if (note$fit) " (of other data or settings, or its state dropped)" else "")
}

# The parts of a kept state and their lengths (NA: any), by method and
# representation: a state altered by hand is an error naming `init` (the C
# side checks the rest: indices, the support against beta)
check_regression_state <- function(st, key, n, p) {
  len <- if (key$method == "pfw") {
    list(state_g = p, state_support = NA, state_cached = NA, state_pair = 10L, state_ws = NA,
         state_face_idx = NA, state_face_L = NA, state_loop = 6L)
  } else {
    c(list(state_pos = 1L, state_drawn = 1L), if (key$sampling != 2L) list(state_order = n),
      if (key$gram) list(state_S = p * p, state_b = p, state_Stheta = p)
      else list(state_drow = NA, state_cnt = NA, state_xt = NA))
  }
  ints <- c("state_support", "state_cached", "state_ws", "state_face_idx", "state_pos",
            "state_order", "state_drow")
  ok <- setequal(names(st), c(names(len), "key")) &&
    all(vapply(names(len), function(k) {
      x <- st[[k]]
      (if (k %in% ints) is.integer(x) else is.double(x)) && !anyNA(x) && all(is.finite(x)) &&
        (is.na(len[[k]]) || length(x) == len[[k]])
    }, NA))
  if (ok && !key$gram && key$method != "pfw")
    ok <- length(st$state_cnt) == length(st$state_drow) &&
      length(st$state_xt) == length(st$state_drow)
  if (!ok) stop_arg("init", "has an invalid `state` (altered by hand?)")
}

# a few sums that tell designs apart: of a dense X, or a dgCMatrix's parts
regression_fingerprint <- function(X) {
  if (!inherits(X, "Matrix")) return(fingerprint(X))
  c(dim(X), fingerprint(X@x), fingerprint(X@i), fingerprint(X@p))
}

# The centred problem of an intercept fit: list(X, y, centring), X - 1 xbar'
# (a dense copy) or, for a dgCMatrix, X itself (the C code subtracts xbar
# from every product with it: X is not densified), y - ybar, and the
# centring list(xbar, ybar, y) (y as given, for the fit) of class
# "regression_centring". With `rows`, those of X[rows, ] and y[rows] (a CV
# fold's training rows). With `scale` (fold_data()) and a dense X, the
# centred columns are then scaled in the same copy and `scales` holds
# list(sd, cs) (see fold_data(); NULL for a sparse X, not scaled here).
# external = TRUE (fold_data(): a CV fold's kept copy) makes a dense X's
# copy outside R's heap (src/regression_data.c, cg_fold_real; released by
# fold_data_release()).
regression_centring <- function(X, y, rows = NULL, scale = NULL, external = FALSE) {
  if (!is.null(rows)) y <- y[rows]
  scales <- NULL
  if (!inherits(X, "Matrix")) {
    # the rows taken, their means and the centred copy in one pass of C:
    # one new matrix, no temporaries (X - rep(xbar, each = n) made two more
    # of the size of X, a CV's folds three each; src/regression_data.c,
    # the same numbers as colMeans() and the subtraction)
    cen <- .Call(C_cg_centred_rows, X, if (!is.null(rows)) as.integer(rows), TRUE, scale,
                 external)
    X <- cen$X
    xbar <- cen$xbar
    if (!is.null(scale)) scales <- cen[c("sd", "cs")]
  } else {
    if (!is.null(rows)) X <- X[rows, , drop = FALSE]
    xbar <- as.double(Matrix::colMeans(X))
  }
  ybar <- mean(y)
  list(X = X, y = y - ybar,
       centring = structure(list(xbar = xbar, ybar = ybar, y = y), class = "regression_centring"),
       scales = scales)
}

# the column means C subtracts implicitly: a sparse X's, when centred
implicit_xbar <- function(X, centring) {
  if (inherits(centring, "regression_centring") && inherits(X, "Matrix")) centring$xbar
}

# Do the fits of a path share X'X / n? For "pfw" with p <= 2000 and p <= n,
# unless gram = FALSE (or a matrix is given): every fit reads its columns
# instead of computing those of its support. With p > n the support is at
# most about n columns, which the path computes once each (its Gram cache),
# cheaper than the p^2 entries of X'X (a CV at 50 x 2000 spent most of its
# time making and checking the folds' X'X / n).
shares_gram <- function(method, gram, p, n = Inf) {
  is_pfw(method) && !isFALSE(gram) && !is.matrix(gram) && p <= 2000L && p <= n
}

# the `gram` of the fits along a path (xbar: see regression_gram())
path_gram <- function(X, method, gram, xbar = NULL) {
  if (shares_gram(method, gram, ncol(X), nrow(X))) regression_gram(X, xbar) else gram
}

# X'X / nrow(X) as a dense double matrix; with xbar that of the centred
# X - 1 xbar', X'X / n - xbar xbar'
regression_gram <- function(X, xbar = NULL) {
  G <- dense_crossprod(X) / nrow(X)
  if (!is.null(xbar)) G <- G - tcrossprod(xbar)
  G
}

# A'A as a dense double matrix without dimnames (A dense or a Matrix).
# A dense double A with R on the reference BLAS: by C, the numbers of
# crossprod()'s dsyrk four by four entries at a time (src/regression_data.c
# cg_crossprod; the reference routine took a sixth of a CV at 4000 x 500)
dense_crossprod <- function(A) {
  if (is.matrix(A) && is.double(A) && ref_blas()) {
    G <- .Call(C_cg_crossprod, A)
    if (!is.null(G)) return(G)
  }
  G <- as.matrix(Matrix::crossprod(A))
  storage.mode(G) <- "double"
  dimnames(G) <- NULL
  G
}

# Is R linked to the reference BLAS (R's own libRblas or the reference
# libblas)? Then C routines in src/ that compute a BLAS product's numbers in
# its order (cg_crossprod, cg_support_fitted, cg_fold_gram's ref) replace
# the calls; with an optimized BLAS (OpenBLAS, MKL, ...) R's products are
# kept (faster there, and their numbers). Asked once per session.
ref_blas <- local({
  known <- NULL
  function() {
    if (is.null(known)) {
      lib <- tryCatch(extSoftVersion()[["BLAS"]], error = function(e) "")
      known <<- isTRUE(grepl("^libR?blas\\.so", basename(lib)) &&
                       !grepl("openblas|atlas|mkl|blis|flexiblas", lib, ignore.case = TRUE))
    }
    known
  }
})

# A Gram matrix given as `gram` must be X'X / n of this X (centred by xbar
# when given): its shape, and one product G v = X'(X v) / n with a fixed v
# (O(np)) to catch another design's (or non-finite entries)
check_gram_matrix <- function(G, X, xbar = NULL) {
  p <- ncol(X)
  if (!is.numeric(G) || !identical(dim(G), c(p, p)))
    stop_arg("gram", "must be TRUE, FALSE, NULL or the ", p, " x ", p,
             " matrix crossprod(X) / nrow(X)")
  v <- sin(seq_len(p))               # no zero entry: NA, NaN or Inf in G shows
  lhs <- drop(G %*% v)
  rhs <- if (is.matrix(X)) drop(crossprod(X, X %*% v)) / nrow(X)
         else as.vector(as.matrix(Matrix::crossprod(X, X %*% v))) / nrow(X)
  if (!is.null(xbar)) rhs <- rhs - xbar * sum(xbar * v)
  if (!isTRUE(max(abs(lhs - rhs)) <= 1e-8 * sum(abs(diag(G)))))
    stop_arg("gram", "is not crossprod(X) / nrow(X) of this `X`")
  # (only when not double already: on a G referenced elsewhere, as a CV
  # fold's kept X'X / n, `storage.mode<-` gives an ALTREP wrapper that the
  # next C read copies in full, p^2 doubles per fit of a path)
  if (!is.double(G)) storage.mode(G) <- "double"
  G
}

# largest eigenvalue of X'X / n; with xbar, of the centred X - 1 xbar'
# (X'X / n - xbar xbar': by Lanczos on products with X, never densified)
design_lipschitz <- function(X, xbar = NULL) {
  if (is.null(xbar)) return(max(sigma1_squared(X) / nrow(X), .Machine$double.eps))
  n <- nrow(X); p <- ncol(X)
  gram <- function() max(eigen(regression_gram(X, xbar), symmetric = TRUE,
                               only.values = TRUE)$values, 0)
  top <- if (p <= 50L) gram() else tryCatch(
    RSpectra::eigs_sym(function(v, args) {
      as.vector(as.matrix(Matrix::crossprod(X, X %*% v))) / n - xbar * sum(xbar * v)
    }, k = 1, n = p)$values[1], error = function(e) gram())
  max(top, .Machine$double.eps)
}

# sigma_1(A)^2 without a dense copy of A: by Lanczos, or from the Gram matrix
# of the short side when it is small (at most 50) or when Lanczos fails (it
# can when the top singular values coincide, e.g. an orthogonal design)
sigma1_squared <- function(A) {
  gram <- function() {
    G <- as.matrix(if (nrow(A) <= ncol(A)) Matrix::tcrossprod(A) else Matrix::crossprod(A))
    if (!all(is.finite(range(G)))) return(Inf)   # overflow: callers name the argument
    max(eigen(G, symmetric = TRUE, only.values = TRUE)$values, 0)
  }
  if (min(dim(A)) <= 50L) return(gram())
  tryCatch(RSpectra::svds(A, k = 1, nu = 0, nv = 0)$d[1]^2, error = function(e) gram())
}
