#' Sparse positive definite covariance estimation
#'
#' A covariance estimate to use as one: positive definite with its smallest
#' eigenvalue at least `floor`, exact zeros off the diagonal, the diagonal
#' unpenalized, with the penalty chosen by cross-validation on held-out
#' Gaussian log-likelihood unless given.
#'
#' **Structures.** With \eqn{S} the sample covariance (divisor \eqn{n - 1})
#' and \eqn{|A|_{\rm off} = \sum_{i \ne j} |A_{ij}|}:
#' * `"sparse"`: the eigenvalue-floored l1 estimator of Xue, Ma and Zou (2012),
#'   \deqn{\min_{\Sigma \succeq \epsilon I} \tfrac12 \|\Sigma - S\|_F^2 +
#'   \lambda |\Sigma|_{\rm off}.}{min over Sigma >= floor I of
#'   1/2 ||Sigma - S||_F^2 + lambda |Sigma|_off.}
#' * `"lowrank+sparse"`: \eqn{\Sigma = L + R} with a low-rank positive
#'   semidefinite factor part \eqn{L} and a sparse idiosyncratic part
#'   \eqn{R \succeq \epsilon I} (like POET, but one convex fit):
#'   \deqn{\min \tfrac12 \|L + R - S\|_F^2 + \gamma\, {\rm tr}\, L +
#'   \lambda |R|_{\rm off}.}{min 1/2 ||L + R - S||_F^2 + gamma tr L +
#'   lambda |R|_off.}
#'
#' **Algorithm.** The floored sparse part is solved on its dual,
#' \eqn{\max_{\Lambda \succeq 0} g(\Lambda)} with
#' \eqn{\Sigma(\Lambda)} the soft-thresholded \eqn{S + \Lambda}, by
#' accelerated projected gradient with adaptive restart (`method =
#' "dual_apg"`). The projection needs only the eigenpairs of a sparse plus
#' low-rank matrix below the floor, found by Lanczos (RSpectra), never a full
#' eigendecomposition; \eqn{\Lambda} stays low rank (its rank is the number
#' of directions in which the floor binds). When the soft-thresholded
#' \eqn{S} is already above the floor, that is the answer and the fit takes
#' one iteration. The `"sparse"` problem splits exactly over the connected
#' components of the graph \eqn{|S_{ij}| > \lambda}{|S_ij| > lambda} (the
#' block-diagonal solution of the parts meets the optimality conditions of
#' the whole): a variable alone in its component gets
#' \eqn{\max(S_{ii}, floor)}{max(S_ii, floor)} in closed form (e.g. a
#' variable constant in the data), the other components are solved one by
#' one, the largest last; `fit$components` gives their count, the largest
#' size and the number of singletons, and the trace is that of the largest
#' with the others' final objectives and gaps added. `"lowrank+sparse"`
#' minimizes out \eqn{L} (the positive
#' part of \eqn{S - R - \gamma I}, from its eigenpairs above \eqn{\gamma})
#' and runs accelerated proximal gradient with restart on \eqn{R}, the
#' proximal step being the floored sparse problem, solved by the dual method
#' warm started (`method = "apg"`; without momentum this would be alternating
#' minimization, several times slower on stock returns). `gap` is a duality gap of the stated problem (a Fenchel dual
#' point built from the current iterate), so `converged` certifies it. The
#' primal point raises the diagonal to the floor by the smallest eigenvalue
#' of the sparse estimate, a Lanczos run that costs about two dual steps; for
#' `"sparse"`, trace rows that cannot meet `tol` whatever that eigenvalue is
#' use a lower bound on it instead (from the last Lanczos value, by Weyl's
#' inequality): their point has a larger diagonal raise, their objective and
#' gap are those of that (feasible) point, valid but looser.
#'
#' **Scale and spectrum.** By default (`standardize = TRUE`) the problem is
#' solved on the correlation scale, \eqn{S} the correlation matrix, and the
#' estimate returned on the data's scale, \eqn{D \Sigma D} with \eqn{D} the
#' standard deviations (a constant variable is left unscaled): fitting
#' `X %*% diag(c)` gives `diag(c) %*% Sigma %*% diag(c)`, and `lambda`,
#' `floor` and `min_eigen` are on the correlation scale. The target is
#' shrunk toward the diagonal, \eqn{T = (1 - \rho) S + \rho\,{\rm diag}(S)}
#' (`shrink` \eqn{= \rho}), and \eqn{S} above is \eqn{T}. At \eqn{n \ll p}
#' the small eigenvalues of \eqn{S} are far too small (\eqn{p - n + 1} of
#' them are 0); shrinkage lifts them to at least \eqn{\rho}, as
#' Ledoit-Wolf and Schafer-Strimmer (`corpcor::cov.shrink`) do. With
#' `lambda = "cv"` and `shrink = "cv"` (the defaults from rows) the
#' candidates are (a) the shrinkage estimates \eqn{T} for \eqn{\rho} over a
#' grid of 24 values from 0 to 0.95 with the Schafer-Strimmer intensity
#' (with `shrink_var = "cv"` each also with the variances shrunk toward
#' their median), all scored in closed form at the cost of one eigendecomposition (a thin SVD
#' when \eqn{p \ge n}) per fold, and (b) the l1 estimates of \eqn{S} itself
#' (\eqn{\rho = 0}) along the `lambda` path; the largest held-out
#' log-likelihood wins, with one exception at \eqn{n > p}: there (c) the
#' sample covariance itself (\eqn{\rho = 0}, `lambda = 0`, positive
#' definite) is kept unless the winner beats it by more than one standard
#' error of the paired differences of their log-likelihoods over the pooled
#' held-out rows (each row is held out once; the one-standard-error rule,
#' toward the unregularized estimate; `attr(fit$cv, "sample_kept")` is
#' `TRUE` when this changed the choice). Why: each fold fits
#' \eqn{(K - 1)/K} of the rows, and the regularization best for fewer rows
#' is stronger (Ledoit-Wolf's and Schafer-Strimmer's intensities scale as
#' \eqn{1/n}), so the CV's maximum leans toward it; and with strongly
#' collinear variables one held-out row far out in a direction of a small
#' eigenvalue can decide a fold. On `dslabs::brca` (30 variables, 455
#' training rows, 5 splits) the maximum chose \eqn{\rho = 0.005} on one
#' split at 1.6 per held-out row below the sample covariance. On 9 data
#' sets at \eqn{n > p}, 5 splits each (`inst/bench/results/covariance_np.md`),
#' the default is at least the best of the sample covariance,
#' `corpcor::cov.shrink`, POET, PDSCE and the graphical lasso on 7 (before:
#' 4); on `ISLR::College` it is 0.01 per row below the sample covariance
#' and 0.13 below `cov.shrink` (there the held-out rows wanted more
#' shrinkage than the CV's maximum). Only with `shrink = "cv"` and
#' `rule = "max"` (the defaults); at \eqn{p \ge n} nothing changes.
#' On real data (gene expression at \eqn{p} = 500 to
#' 6033, \eqn{n} = 30 to 151; stock returns at \eqn{n > p}) a shrinkage
#' estimate won every time, dense but positive definite with its smallest
#' eigenvalue at least \eqn{\rho}; on sparse (banded) truths the l1 path
#' won, with exact zeros. The path stops at its first significant fall
#' below the best shrinkage estimate, so at \eqn{p \gg n} it costs a few
#' fits near `lambda_max`. For a sparse estimate whatever the likelihood
#' says, give `shrink = 0` (or a `lambda`, which fits at `shrink = 0` unless
#' `shrink` is given). The default `floor` is 0.9 times a lower bound on
#' the smallest eigenvalue of \eqn{T}, \eqn{\rho + (1 - \rho)
#' \lambda_{\min}(S)}, so the floor never clips the spectrum the data chose
#' (1% of the mean variance when \eqn{T} is singular: \eqn{\rho = 0} and
#' \eqn{n \le p}). At `lambda = 0` the estimate is \eqn{T} with its
#' eigenvalues raised to the floor, in closed form (no iteration, gap 0).
#' Memory: one dense \eqn{p \times p}{p x p} target and the estimate
#' (dense when `lambda = 0`), plus per running CV fold its training
#' covariance; at \eqn{p = 20000} each such array is 3.2 GB (measured: a
#' default call at \eqn{p = 20000}, \eqn{n = 100} peaked at 9.9 GB in the
#' calling process, its two fold processes besides (the folds were forked
#' on 2 cores then), and took 8 minutes).
#'
#' **Cross-validation.** With `lambda = "cv"` (or a vector of values),
#' `folds`-fold cross-validation picks the value with the largest mean
#' held-out Gaussian log-likelihood, fitting each fold along the path from
#' large to small `lambda` with warm starts, then refits on all rows;
#' `fit$cv` holds the curve and `plot(fit)` draws it. The folds advance
#' along `lambda` together (three values, then 2, 4, 8, ... at a time), and
#' the path stops for all of them once the held-out rows of all folds,
#' pooled, show it past its peak: the last value scored is below the one
#' before it and below the best by more than two paired standard errors (a
#' fold also stops its own path after two falls, see `fit$cv`'s `n_folds`);
#' the smaller values are left out of the table (`NA`). For `"sparse"`,
#' once one fold has stopped its own path the others stop too, at the end
#' of that round: a value some fold did not score gets no mean in the table
#' and cannot be chosen, so their fits there would change nothing chosen
#' (on golub's 3051 genes, 30 training rows, those were three fold fits of
#' 30-57 s each past the peak; the call went from 153 to 10 CPU s). For
#' `"lowrank+sparse"` `gamma` is chosen the same way, over a grid of
#' `gamma` x `lambda`; its folds advance one value at a time after the first
#' two, so one fold's stopped path stops the others at the next value, and
#' the pooled check is also made after the second value, where the fall
#' must exceed 1% of the mean (on golub's 4758 genes, 28 training rows, the
#' call went from 512 to 291 CPU s with the same choice). The folds run
#' where [future::plan()] says (see `cores`).
#' Inside its CV a `"lowrank+sparse"` fold fit whose floor binds in more
#' than 32 directions counts as failed and ends that `gamma`'s path in that
#' fold (as any failed fit does): at \eqn{p \gg n} these are the dense end
#' of the path, and deciding "more than 256" (the final fit's cap) took a
#' minute of CPU per fit at \eqn{p = 5000}.
#'
#' **Choosing the structure.** `structure = "auto"` runs the default
#' `"sparse"` cross-validation (shrinkage estimates and the l1 path) and the
#' `"lowrank+sparse"` one (`gamma` x `lambda`) on the same folds, so both
#' are scored on the same held-out rows; `fit$cv` holds both families (its
#' column `structure`), and the fit is that of the best row, refitted on
#' all rows (`fit$structure` says which won). The `"lowrank+sparse"` paths
#' stop at their first significant fall below the best shrinkage estimate,
#' as the l1 path does. Use it when a few common factors may drive the data
#' (returns with a market factor, expression with batch or pathway
#' effects) and you would rather let held-out likelihood decide than fit
#' both yourself. Its cost is about the sum of the two (less where the
#' reference stops the `"lowrank+sparse"` paths early). Measured
#' (`inst/bench/results/covariance_lowrank_cv.md`, 2 shared cores, the
#' folds on 2 forked processes): at
#' \eqn{p = 5000}, \eqn{n = 60} (3 factors plus MA(1) noise) the default
#' call took 32 s (10 s of CPU), `"lowrank+sparse"` 220 s and `"auto"` 150 s
#' (it chose `"lowrank+sparse"`, 370 per test row above the default); on
#' Khan's 2308 genes (\eqn{n = 66}) 8 s against 63 s (it chose the
#' default's shrinkage estimate). So it is not the default, whose call at
#' \eqn{p = 5000} is meant to stay within a minute. On some data the
#' `"lowrank+sparse"` CV is slower: on `NMF::esGolub` (\eqn{p = 4758},
#' \eqn{n = 28}) it took 700 s of CPU (1380 s on the shared machine; more
#' than 5 minutes on 2 idle cores), about half of it in the fold fits at the
#' largest `gamma` and the third `lambda` (6-7 outer iterations of about
#' 100,000 Lanczos products each).
#'
#' @param data An \eqn{n \times p}{n x p} numeric matrix or `Matrix` of
#'   observations (rows); or, when `n` is given, a \eqn{p \times p}{p x p}
#'   covariance matrix; or rows on disk: a `DelayedArray` (e.g. an
#'   `HDF5Matrix`) or a [block_reader()] by rows. From disk the sample
#'   covariance is formed in one pass over the file, block by block (its
#'   column sums and crossproduct, around the first block's means), and the
#'   fit is that of this covariance with `n` its rows: what stays in memory
#'   is one \eqn{p \times p}{p x p} covariance and the estimate, never the
#'   data. Cross-validation scores held-out rows one by one, so from disk
#'   `lambda` (and `gamma`, `shrink`, `shrink_var`) must be given: a
#'   number, or several `lambda` with `folds = NULL` (a path).
#' @param lambda Penalty on the off-diagonal entries: a number, a vector of
#'   values to choose from by cross-validation, or `"cv"` (default: a grid
#'   from the largest off-diagonal \eqn{|S_{ij}|}, where the estimate is
#'   diagonal, down). Several values with `folds = NULL` give a [cg_path]
#'   instead: one fit per value, from the largest down, each warm-started
#'   from the previous one (`coef(path, lambda = )` picks one).
#' @param structure `"sparse"` (default), `"lowrank+sparse"`, or `"auto"`:
#'   both cross-validated on the same folds, the larger held-out
#'   log-likelihood wins (see **Choosing the structure**).
#' @param gamma For `"lowrank+sparse"`: penalty on the trace of \eqn{L}
#'   (larger, lower rank; \eqn{L = 0} from the largest eigenvalue of \eqn{S}
#'   up): a number, a vector to choose from, or `NULL`/`"cv"` (default:
#'   cross-validation). Not used by `"sparse"` (a number is an error there).
#' @param shrink Shrinkage of the target toward its diagonal, \eqn{\rho} in
#'   \eqn{[0, 1)} (see "Scale and spectrum"): a number, several to choose
#'   from, or `"cv"`; `NULL` (default) is `"cv"` for `"sparse"` from rows
#'   with cross-validation (with a single `lambda > 0`, 0) and 0 otherwise.
#' @param shrink_var Shrinkage of the variances toward their median (as
#'   `corpcor::cov.shrink`'s `lambda.var`), in \eqn{[0, 1)}: the estimate on
#'   the correlation scale is returned on these shrunk standard deviations.
#'   A number, several, or `"cv"` (chosen with `shrink` among the shrinkage
#'   estimates, over 0, 0.1, 0.2, 0.35, 0.5, 0.75); `NULL` (default) is 0.
#'   Only with `standardize = TRUE`. Not scale equivariant (the median of
#'   variances in different units means nothing), hence not the default;
#'   for variables in the same units, e.g. log expression, it can help a
#'   lot where some genes are nearly constant in the training rows: held-out
#'   log-likelihood per row on raw log2 `NMF::esGolub` (4742 genes, 30
#'   rows) -13320 by default, -7057 with `shrink_var = "cv"`
#'   (`corpcor::cov.shrink`: -7243); on 40 samples of
#'   `dslabs::tissue_gene_expression` +5 per row.
#' @param floor Smallest eigenvalue allowed (of \eqn{\Sigma}, or of \eqn{R}
#'   for `"lowrank+sparse"`) on the fitting scale, positive; `NULL`
#'   (default) for 0.9 times the smallest eigenvalue of the target (1% of
#'   the mean variance when that is singular).
#' @param standardize `TRUE` (default): fit on the correlation scale and
#'   return the estimate on the data's; `FALSE`: fit in the data's units.
#' @param n Number of observations when `data` is a covariance matrix.
#' @param folds Number of cross-validation folds, or `NULL` for a path
#'   over several `lambda` without cross-validation.
#' @param rule How cross-validation chooses: `"max"` (default) the largest
#'   mean held-out log-likelihood, or `"1se"` the one-standard-error rule
#'   (as `cv.glmnet`'s `lambda.1se`): the sparsest estimate (most zeros,
#'   then the lowest rank) whose mean held-out log-likelihood is within one
#'   standard error (across folds) of the maximum.
#' @param init `NULL`, or a previous `sparse_covariance()` fit of the same
#'   structure and number of variables. A fit of the same data and
#'   penalties continues exactly, as one longer run (`max_iter` more
#'   iterations give the fit of one run with both runs' iterations; a
#'   converged fit stops at once): from `fit$state`, each solved part's
#'   solver state (the dual and its momentum, the certificate's reference,
#'   for `"lowrank+sparse"` the previous sparse part and `L`), about the size
#'   of the estimate. Otherwise (other penalties, e.g. along a sequence, or
#'   `fit$state` set to `NULL`) its dual and `L` warm-start the solver. Only
#'   with single penalties (no cross-validation, which warm-starts along its
#'   own grid).
#' @param control Solver settings from [cg_control()]; `tol` bounds the
#'   relative duality gap, `max_iter` counts dual steps (`"sparse"`) or
#'   proximal-gradient steps on the sparse part (`"lowrank+sparse"`).
#' @param cores Deprecated. The cross-validation folds run through the
#'   future framework: where [future::plan()] says (sequential unless you
#'   set a plan, e.g. `future::plan(future::multisession, workers = 2)`;
#'   see `vignette("beyond-one-machine", package = "stochcg")`), with the
#'   same results under every plan. `NULL` (default): the plan decides. A
#'   number above 1 runs this call's folds under a temporary
#'   `future::plan(future::multicore, workers = cores)` (multisession where
#'   forks are not available), put back when the call returns, unless a
#'   parallel plan is set already (which then decides); a message (once per
#'   session) says how to set the plan instead. Without the future.apply
#'   package the folds run in this process. Each running fold holds its own
#'   \eqn{p \times p}{p x p} training covariance and the solver's copy of
#'   the largest connected component of the thresholded graph (with the
#'   temporaries of forming the covariance, two to three \eqn{p \times
#'   p}{p x p} arrays at its peak), so memory grows with the number of
#'   workers on a machine; the final fit on all rows runs after the folds,
#'   in this process.
#' @returns A fit of class `c("sparse_covariance_fit", "cg_fit")` (see
#'   [cg_fit]): `solution$Sigma` the estimate (a `Matrix::dsCMatrix` when at
#'   most a quarter of its entries are nonzero, else a dense matrix), and for
#'   `"lowrank+sparse"` also `solution$L` (a [lowrank] object: `u` the
#'   loadings, `d` the factor variances) and `solution$S` (the sparse part
#'   \eqn{R}); `lambda`, `gamma`, `shrink`, `shrink_var`, `floor`, `standardize`,
#'   `scale` (the scale factors \eqn{D}), `structure`, `nobs`, `min_eigen`
#'   (a certified lower bound on the smallest eigenvalue of \eqn{\Sigma} on
#'   the fitting scale, at least `floor`; the returned `Sigma`'s is at least
#'   `min_eigen * min(scale)^2`), `sparsity` (the fraction of
#'   off-diagonal entries of the sparse part that are exactly zero), `rank`
#'   (of \eqn{L}), `cv` (the cross-validation table, or `NULL`),
#'   `components` (`"sparse"` only, when the problem splits).
#'   `coef(fit)` is `Sigma`.
#' @references Xue, L., Ma, S. and Zou, H. (2012). Positive-definite
#'   l1-penalized estimation of large covariance matrices. JASA 107,
#'   1480-1491.
#'
#'   Fan, J., Liao, Y. and Mincheva, M. (2013). Large covariance estimation
#'   by thresholding principal orthogonal complements (POET). JRSS B 75,
#'   603-680.
#' @examples
#' set.seed(1)
#' p <- 30
#' Sigma0 <- toeplitz(c(1, 0.5, 0.25, rep(0, p - 3)))
#' X <- matrix(rnorm(200 * p), 200) %*% chol(Sigma0)
#' fit <- sparse_covariance(X, lambda = 0.1)
#' fit
#' fit$min_eigen
#' # lambda chosen by 5-fold cross-validation
#' fit_cv <- sparse_covariance(X)
#' c(lambda = fit_cv$lambda, shrink = fit_cv$shrink)
#' @export
sparse_covariance <- function(data, lambda = "cv",
                              structure = c("sparse", "lowrank+sparse", "auto"),
                              gamma = NULL, shrink = NULL, shrink_var = NULL, floor = NULL,
                              standardize = TRUE,
                              n = NULL, folds = 5L, rule = c("max", "1se"), init = NULL,
                              control = cg_control(), cores = NULL) {
  started <- wall_clock()
  call <- match.call()
  if (is_reader_input(data)) {
    # rows on disk (a reader, or a DelayedArray): the sample covariance in
    # one pass over their blocks (R/readers.R), then the fit from it as from
    # a covariance given with `n`. Cross-validation scores held-out rows one
    # by one (and its stopping rule pairs them), so it needs the rows in
    # memory: from a reader every penalty is given.
    if (!is.null(n))
      stop_arg("n", "must be NULL when `data` is read from disk (a reader): its rows give n")
    tuned <- function(v) !is.numeric(v) || length(v) > 1L
    if (match_choice(structure, STRUCTURES, "structure") == "auto")
      stop_arg("structure", "\"auto\" is chosen by cross-validation, which needs `data` in ",
               "memory (not a reader)")
    if (!is.numeric(lambda) || (length(lambda) > 1L && !is.null(folds)))
      stop_arg("lambda", "must be given (a number, or several with folds = NULL: a path) when ",
               "`data` is read from disk (a reader): cross-validation needs `data` in memory")
    if (identical(match_choice(structure, STRUCTURES, "structure"), "lowrank+sparse") &&
        tuned(gamma))
      stop_arg("gamma", "must be a number when `data` is read from disk (a reader): ",
               "cross-validation needs `data` in memory")
    for (a in c("shrink", "shrink_var"))
      if (!is.null(get(a)) && tuned(get(a)))
        stop_arg(a, "must be a number when `data` is read from disk (a reader): ",
                 "cross-validation needs `data` in memory")
    rd <- reader_covariance(data, "data")
    data <- rd$S
    n <- rd$n
  }
  if (is.null(folds) && is.numeric(lambda) && length(lambda) > 1L) {
    # no cross-validation: a path over lambda, warm-started from the largest
    structure <- match_choice(structure, STRUCTURES, "structure")
    if (structure == "auto")
      stop_arg("structure", "\"auto\" is chosen by cross-validation: it needs `folds`")
    if (structure == "lowrank+sparse" && !(is.numeric(gamma) && length(gamma) == 1L))
      stop_arg("gamma", "must be a single number for a path over `lambda`")
    args <- mget(c("data", "structure", "gamma", "shrink", "shrink_var", "floor",
                   "standardize", "n", "folds", "control"))
    return(fit_path(sparse_covariance, args, lambda, init, call, started, param = "lambda"))
  }
  structure <- match_choice(structure, STRUCTURES, "structure")
  lowrank <- structure == "lowrank+sparse"
  auto <- structure == "auto"
  control <- as_control(control)
  check_flag(standardize, "standardize")
  if (!is.null(cores)) check_count(cores, "cores", min = 1)
  data <- check_design(data, "data")
  S <- NULL
  rows <- is.null(n)
  if (rows) {
    if (nrow(data) < 2L || ncol(data) < 1L)
      stop_arg("data", "must have at least two rows (observations) and one column")
    variances <- column_variances(data)
    nobs <- nrow(data)
  } else {
    check_count(n, "n", min = 2)
    if (nrow(data) != ncol(data) || nrow(data) < 1L)
      stop_arg("data", "must be a square covariance matrix when `n` is given")
    if (!is_symmetric_matrix(data, tol = 1e-8))
      stop_arg("data", "must be a symmetric covariance matrix when `n` is given")
    S <- as.matrix(data)
    S <- (S + t(S)) / 2
    variances <- diag(S)
    if (any(variances < 0)) stop_arg("data", "has negative variances on its diagonal")
    nobs <- as.integer(n)
  }
  check_scale(0.5 * sum(variances^2), "data")
  if (!any(variances > 0) && is.null(floor))
    stop_arg("data", "has no variance: give `floor` explicitly")
  if (auto) {
    if (!rows || is.null(folds))
      stop_arg("structure", "\"auto\" is chosen by cross-validation: give `data` as rows ",
               "and `folds`")
    if (!is.null(init)) stop_arg("init", "is not used with structure = \"auto\"")
    if (!(identical(lambda, "cv") || (is.numeric(lambda) && length(lambda) > 1L)))
      stop_arg("lambda", "must be \"cv\" or several values with structure = \"auto\"")
  }
  shrink <- check_shrink(shrink %||% if (!lowrank && rows && !is.null(folds)) "cv" else 0,
                         lowrank, rows, folds)
  # (0 by default: pooling variances across variables is not scale
  # equivariant, see ?sparse_covariance)
  shrink_var <- check_shrink(shrink_var %||% 0, lowrank, rows, folds, "shrink_var")
  if (!standardize && !identical(shrink_var, 0))
    stop_arg("shrink_var", "applies only with standardize = TRUE")
  if (!is.null(floor)) check_number(floor, "floor", min = 0, strict_min = TRUE)
  lambda <- check_penalty_grid(lambda, "lambda")
  # rho is chosen among the lambda = 0 estimates; without them the l1 path
  # runs at rho = 0 (see covariance_cv())
  if (identical(shrink, "cv") && is.numeric(lambda) && !any(lambda == 0)) {
    shrink <- 0
    if (identical(shrink_var, "cv")) shrink_var <- 0
  }
  if (lowrank || auto) {
    gamma <- check_penalty_grid(gamma %||% "cv", "gamma", positive = TRUE)
  } else if (!is.null(gamma) && !identical(gamma, "cv")) {
    stop_arg("gamma", "applies only to structure = \"lowrank+sparse\"")
  }
  tune <- auto || !is.numeric(lambda) || length(lambda) > 1L || !is.numeric(shrink) ||
          length(shrink) > 1L || !is.numeric(shrink_var) || length(shrink_var) > 1L ||
          (lowrank && (!is.numeric(gamma) || length(gamma) > 1L))
  cv <- NULL; warm <- NULL
  if (!is.null(init)) {
    if (!inherits(init, "sparse_covariance_fit") || is.null(init$structure))
      stop_arg("init", "must be NULL or a fit of sparse_covariance()")
    if (!identical(init$structure, structure))
      stop_arg("init", "is a fit of structure \"", init$structure, "\", not \"", structure, "\"")
    if (!identical(nrow(init$solution$Sigma), ncol(data)))
      stop_arg("init", "is a fit of ", nrow(init$solution$Sigma), " variables, but `data` has ",
               ncol(data))
    if (tune)
      stop_arg("init", "is used only with single penalties (cross-validation warm-starts ",
               "along its own grid)")
    warm <- init$warm
  }
  # the full data's correlation spectrum, once: for the default floor (in
  # CV and in the final fit) and the closed form at lambda = 0
  spec <- if (rows && (is.null(floor) || tune || (!lowrank && identical(lambda, 0))))
    correlation_spectrum(data)
  if (tune) {
    if (!rows)
      stop_arg(if (!is.numeric(lambda) || length(lambda) > 1L) "lambda" else "gamma",
               "can be chosen by cross-validation only from the observations: give `data` ",
               "as rows, or a single value")
    check_count(folds, "folds", min = 2)
    if (folds > nobs)   # (the user may not have given folds: the message names both)
      stop_arg("data", "has ", nobs, " rows, fewer than the ", folds, " folds of the ",
               "cross-validation (`folds`): give fewer folds, or `lambda` and `shrink` ",
               "(no cross-validation)")
    # (the full-data S is formed after CV: one p x p array per running fold)
    # (`cores`, deprecated: a temporary future plan for the folds, R/parallel.R)
    old_plan <- plan_for_cores(cores)
    on.exit(restore_plan(old_plan), add = TRUE)
    sel <- cv_select(data, structure, lambda, if (lowrank || auto) gamma else NULL, floor, folds,
                     control,
                     rule = match_choice(rule, c("max", "1se"), "rule"), shrink = shrink,
                     standardize = standardize, shrink_var = shrink_var, spec = spec)
    restore_plan(old_plan)
    old_plan <- NULL
    lambda <- sel$lambda
    shrink <- sel$shrink
    shrink_var <- sel$shrink_var
    # ("auto": the structure that won the CV)
    structure <- sel$structure
    lowrank <- structure == "lowrank+sparse"
    if (lowrank) gamma <- sel$gamma
    cv <- sel$cv; warm <- sel$warm
  }
  # the default floor: below the smallest eigenvalue of the target
  # (default_floor()), from the spectrum of the correlation matrix
  # the fitting scale: each variable over its sd, its variance shrunk toward
  # the median by shrink_var (a constant one as it is)
  # (the target is the correlation matrix, on the sample sd's; the estimate
  # returns on the shrunk ones)
  sc_fit <- sc <- rep(1, length(variances))
  if (standardize) {
    sc_fit <- sc <- scale_of(variances)
    sd <- sqrt(pmax(variances, 0))
    moving <- nonconstant(sd)
    sc[moving] <- shrunk_sd(sc[moving], shrink_var)
  }
  # (the spectrum of the correlation matrix, before shrinkage: for the
  # default floor and the closed form at lambda = 0)
  closed_form <- !lowrank && lambda == 0 && is.null(init) && standardize
  if ((is.null(floor) || closed_form) && is.null(spec)) spec <- covariance_spectrum(S, nobs)
  if (is.null(floor)) floor <- default_floor(shrink, spec, standardize)
  S_factor <- NULL
  if (is.null(S)) {
    # (the rows scaled first: no p x p temporaries for the scaling)
    S <- sample_covariance(if (standardize) scale_columns(data, 1 / sc_fit) else data)
    if (lowrank && shrink == 0) S_factor <- covariance_factor(data, sc = sc_fit)
  } else S <- shrink_target(S, sc_fit, 0)
  S <- shrink_target(S, rep(1, ncol(S)), shrink)
  check_scale(0.5 * sum(S^2), "data")
  dn <- if (!is.null(colnames(data))) list(colnames(data), colnames(data))
  fit <- if (closed_form)
    shrinkage_fit(S, shrink, floor, spec, nobs, dn, call, started)
  else covariance_fit(S, lambda, if (lowrank) gamma else NULL, structure, floor, control,
                      warm = warm, nobs = nobs, init = init, S_factor = S_factor,
                      dimnames = dn, call = call, started = started)
  fit <- rescale_fit(fit, sc)
  fit$shrink <- shrink
  fit$shrink_var <- shrink_var
  fit$standardize <- standardize
  fit$cv <- cv
  if (!is.null(cv)) fit$folds <- as.integer(folds)
  finish_fit(fit, started)
}

STRUCTURES <- c("sparse", "lowrank+sparse", "auto")

# shrink: "cv" (only for "sparse" from rows with folds), or numbers in
# [0, 1) (several: a CV grid)
check_shrink <- function(shrink, lowrank, rows, folds, arg = "shrink") {
  if (identical(shrink, "cv")) {
    if (lowrank) stop_arg(arg, "is chosen by cross-validation only for structure = \"sparse\"")
    if (!rows) stop_arg(arg, "can be chosen by cross-validation only from the ",
                        "observations: give `data` as rows, or a number")
    if (is.null(folds)) stop_arg(arg, "needs `folds` to be chosen by cross-validation")
    return(shrink)
  }
  if (!is.numeric(shrink) || length(shrink) < 1L || !all_finite(shrink) || any(shrink < 0) ||
      any(shrink >= 1))
    stop_arg(arg, "must be \"cv\" or numbers in [0, 1)")
  if (length(shrink) > 1L && lowrank)
    stop_arg(arg, "is chosen by cross-validation only for structure = \"sparse\"")
  sort(unique(as.double(shrink)))
}

# correlation_spectrum() from a covariance matrix S of n observations: all
# the eigenpairs of its correlation matrix (eigen()); the smallest
# eigenvalue is 0 when n <= p (S is singular)
covariance_spectrum <- function(S, nobs) {
  sd <- sqrt(pmax(diag(S), 0))
  keep <- which(nonconstant(sd))
  sd[-keep] <- 1
  q <- length(keep)
  e <- eigen(S[keep, keep, drop = FALSE] / tcrossprod(sd[keep]), symmetric = TRUE)
  list(sd = sd, keep = keep, q = q, values = pmax(e$values, 0), vectors = e$vectors,
       lmin = if (nobs <= q || !q) 0 else max(min(e$values), 0))
}

# The "sparse" estimate at lambda = 0 on the correlation scale, in closed
# form: min 1/2 ||Sigma - T||^2 over Sigma >= floor I is T with its
# eigenvalues raised to the floor. T = (1 - rho) R + rho I on the nonconstant
# variables shares R's eigenvectors (`spec`); with the default floor (below
# T's smallest eigenvalue) it is T itself. A constant variable (a zero row of
# T) gets the floor. No solver, no iteration: the gap is 0.
shrinkage_fit <- function(S, rho, floor, spec, nobs, dimnames, call, started) {
  p <- nrow(S)
  keep <- spec$keep; q <- spec$q; r <- length(spec$values)
  t_in <- (1 - rho) * spec$values + rho              # T's eigenvalues in R's eigenvectors
  t_out <- rho                                       # and on their complement
  lmin <- min(c(t_in, if (q > r) t_out), Inf)
  Sigma <- S
  if (lmin < floor) {                                # raise the eigenvalues below the floor
    V <- spec$vectors
    base <- if (q > r) max(t_out, floor) else 0
    Sigma[keep, keep] <- base * diag(q) +
      V %*% ((pmax(t_in, floor) - base) * t(V))
  }
  if (q < p) diag(Sigma)[-keep] <- pmax(diag(S)[-keep], floor)
  lmin_sigma <- min(c(pmax(t_in, floor), if (q > r) max(t_out, floor),
                      if (q < p) diag(Sigma)[-keep]), Inf)
  # (Sigma = S but for the raised eigenvalues and constant variables)
  objective <- if (lmin < floor) 0.5 * sum((Sigma - S)^2) else
    0.5 * sum((diag(Sigma) - diag(S))^2)
  if (!is.null(dimnames)) dimnames(Sigma) <- dimnames
  fit <- closed_form_fit(list(Sigma = Sigma), objective, "sparse_covariance",
    "lambda = 0: the shrinkage target with its eigenvalues at or above the floor (closed form)",
    call, started, as_control(cg_control()))
  fit[c("structure", "lambda", "gamma", "floor", "nobs", "min_eigen", "sparsity", "rank",
        "dual_rank")] <- list("sparse", 0, NA_real_, floor, nobs, lmin_sigma, 0, 0L, 0L)
  fit["warm"] <- list(NULL)
  fit["state"] <- list(NULL)
  class(fit) <- c("sparse_covariance_fit", "cg_fit")
  fit
}

# A fit on the fitting scale back on the data's: Sigma (and R, L) become
# D Sigma D with D = diag(sc); `scale` keeps sc, `min_eigen` stays the
# certified bound on the fitting scale (Sigma's own is at least min_eigen *
# min(sc)^2), the warm start and state stay on the fitting scale.
rescale_fit <- function(fit, sc) {
  fit$scale <- sc
  if (all(sc == 1)) return(fit)
  scale_sym <- function(A) {
    if (is.null(A)) return(A)
    if (inherits(A, "Matrix")) {
      D <- Matrix::Diagonal(x = sc)
      out <- D %*% A %*% D
      out <- Matrix::forceSymmetric(out, "U")
      dimnames(out) <- dimnames(A)
      return(out)
    }
    scale_symmetric(A, sc)
  }
  sol <- fit$solution
  sol$Sigma <- scale_sym(sol$Sigma)
  if (!is.null(sol[["S"]])) sol[["S"]] <- scale_sym(sol[["S"]])
  if (inherits(sol$L, "lowrank")) sol$L <- lowrank(sol$L$u * sc, sol$L$d, sol$L$v * sc)
  fit$solution <- sol
  fit
}

# lambda / gamma: "cv", a number >= 0, or a vector of them (a CV grid)
check_penalty_grid <- function(x, arg, positive = FALSE) {
  if (is.character(x)) {
    if (!identical(x, "cv")) stop_arg(arg, "must be a number, a vector of numbers or \"cv\"")
    return(x)
  }
  if (!is.numeric(x) || length(x) < 1L || !all_finite(x) || any(x < 0) ||
      (positive && any(x <= 0)))
    stop_arg(arg, "must be ", if (positive) "positive" else "nonnegative",
             " finite numbers or \"cv\"")
  sort(unique(as.double(x)), decreasing = TRUE)
}

# One fit at given penalties (no cross-validation). `warm` is a previous
# fit's $warm (same dimension) along a path. "sparse" splits exactly over the
# connected components of |S_ij| > lambda (see src/screen_components.c):
# singletons are max(S_ii, floor), other components are solved on their own
# (fit_components()); "lowrank+sparse" does not split (L couples all).
#
# `init` (a previous fit) continues exactly, as one longer run, when it is a
# fit of the same problem (covariance_key()) that kept its state: each
# solved part (the whole problem, or a component) goes on from its solver
# state and iteration count; otherwise its `warm` alone starts the solver.
covariance_fit <- function(S, lambda, gamma, structure, floor, control, warm = NULL,
                           nobs = NA, dimnames = NULL, call = NULL, started = wall_clock(),
                           init = NULL, S_factor = NULL, floor_rank = 256L, sigma = TRUE,
                           S_stats = NULL) {
  control <- as_control(control)
  key <- list(structure = structure, lambda = lambda, gamma = gamma, floor = floor,
              data = S_stats$fingerprint %||% fingerprint(S))
  resume <- if (!is.null(init) && identical(init$state$key, key)) init$state
  fit <- NULL
  if (structure == "sparse" && nrow(S) > 1L) {
    comp <- threshold_components(S, lambda)
    if (max(comp) > 1L)
      fit <- fit_components(S, comp, lambda, floor, control, warm, nobs, dimnames, call,
                            started, resume$parts, sumsq = S_stats$sumsq)
  }
  if (is.null(fit)) {
    fit <- covariance_solve(S, lambda, gamma, structure, floor, control, warm, nobs, dimnames,
                            call, started, resume = resume$parts[[1L]], S_factor = S_factor,
                            floor_rank = floor_rank, sigma = sigma)
    fit$part_state <- list(fit$part_state)
  }
  fit$state <- list(key = key, parts = fit$part_state)
  fit$part_state <- NULL
  if (!is.null(init))
    fit$notes <- c(fit$notes, if (!is.null(resume)) continued_note(init$iterations) else
      sprintf("warm start from a fit of %d iterations with other settings or data",
              as.integer(init$iterations)))
  fit
}

# The C solver on one (connected) problem, then the estimate assembled from
# its sparse part, floor shift and low-rank factor.
#
# `resume`: a part's state from an earlier run (its `part_state`: the
# solver's state_* elements, its iterations, the cold start's objective and
# its trace), continued exactly.
covariance_solve <- function(S, lambda, gamma, structure, floor, control, warm = NULL,
                             nobs = NA, dimnames = NULL, call = NULL, started = wall_clock(),
                             resume = NULL, S_factor = NULL, floor_rank = 256L, sigma = TRUE) {
  p <- nrow(S)
  lowrank <- structure == "lowrank+sparse"
  control <- as_control(control)
  spec <- list(problem = "covariance", method = if (lowrank) "apg" else "dual_apg",
               S = S, lowrank = lowrank, lambda = as.double(lambda),
               gamma = as.double(gamma %||% 0), floor = as.double(floor),
               # the R step of "lowrank+sparse" is solved a decade tighter than
               # the run, so its error does not stall the alternation's gap
               inner_tol = max(control$tol / 10, 1e-13), max_inner = 500L,
               gap_goal = control$tol,
               max_rank = as.integer(min(p, 256L)),
               # (the directions the floor may bind in: fewer in CV fold fits)
               floor_cap = as.integer(min(p, 256L, floor_rank)))
  # (only "lowrank+sparse" multiplies by S: its L steps and certificate)
  if (lowrank && !is.null(S_factor)) spec$S_factor <- S_factor
  if (is.null(resume) && !is.null(warm) && nrow(warm$dual_v) == p) {
    spec$warm_v <- warm$dual_v; spec$warm_d <- warm$dual_d
    if (lowrank && !is.null(warm$L_u)) { spec$warm_Lu <- warm$L_u; spec$warm_Ld <- warm$L_d }
  }
  if (!is.null(resume))
    spec <- c(spec, resume$solver, list(iter_offset = resume$iterations,
                                        cold_objective = resume$cold))
  fit <- cg_run(spec, control, "sparse_covariance", call, started)
  sol <- fit$solution
  is_state <- startsWith(names(sol), "state_")
  if (!is.null(resume))
    fit <- continue_trace(fit, list(trace = resume$trace),
                          list(iter = resume$iterations, exact = TRUE))
  solver <- c(list(warm_v = sol$dual_v, warm_d = sol$dual_d),
              if (lowrank) list(warm_Lu = sol$L_u, warm_Ld = sol$L_d), sol[is_state])
  fit$part_state <- list(solver = Filter(Negate(is.null), solver),
                         iterations = fit$iterations, trace = fit$trace,
                         cold = resume$cold %||% abs(fit$trace$objective[1L]))
  R <- methods::new("dgCMatrix", i = sol$R_i, p = sol$R_p, x = sol$R_x, Dim = c(p, p))
  R <- Matrix::forceSymmetric(R, "U")
  if (sol$delta > 0) Matrix::diag(R) <- Matrix::diag(R) + sol$delta
  offdiag_nonzero <- length(sol$R_x) - sum(sol$R_i == rep.int(seq_len(p) - 1L, diff(sol$R_p)))
  sparsity <- if (p > 1) 1 - offdiag_nonzero / (p * (p - 1)) else NA_real_
  as_storage <- function(A) {
    A <- if (Matrix::nnzero(A) <= 0.25 * p * p) A else as.matrix(A)
    if (!is.null(dimnames)) dimnames(A) <- dimnames
    A
  }
  if (lowrank) {
    L <- lowrank(sol$L_u, sol$L_d, sol$L_u)
    # (symmetric as formed: tcrossprod's syrk, no p x p transpose and
    # average, 2.6 s of CPU at p = 5000, once per CV fit)
    # (sigma = FALSE: the CV's fold fits, scored from R and L by Woodbury,
    # form no dense p x p Sigma: 0.45 s CPU per fit at p = 5000)
    Sigma <- if (sigma) as.matrix(R) + tcrossprod(sol$L_u * rep(sqrt(sol$L_d), each = p))
    if (!is.null(dimnames) && sigma) dimnames(Sigma) <- dimnames
    fit$solution <- list(Sigma = Sigma, L = L, S = as_storage(R))
  } else {
    fit$solution <- list(Sigma = as_storage(R))
  }
  fit$structure <- structure
  fit$lambda <- lambda
  fit$gamma <- if (lowrank) gamma else NA_real_
  fit$floor <- floor
  fit$nobs <- nobs
  fit$min_eigen <- sol$min_eigen
  fit$sparsity <- sparsity
  fit$rank <- length(sol$L_d)
  fit$dual_rank <- length(sol$dual_d)
  fit$inner_iterations <- sol$inner_iterations   # dual steps ("lowrank+sparse")
  fit$warm <- list(dual_v = sol$dual_v, dual_d = sol$dual_d, L_u = sol$L_u, L_d = sol$L_d)
  class(fit) <- c("sparse_covariance_fit", "cg_fit")
  finish_fit(fit, started)
}

# sum(S^2) of a dense S by column blocks (no p x p temporary)
sum_squares <- function(S) sum(vapply(column_blocks(S), function(cols) sum(S[, cols]^2), 0))

# What covariance_fit() computes from a dense S alone, once for the fits of
# one S (a CV fold's lambda path): its fingerprint, and sum(S^2) on first
# use (`sumsq()`, fit_components()). Each is a pass over the p x p S (two
# copies of it by blocks for the sum), per fit before: at p = 6830 (NCI60)
# about 0.4 s of a fold fit's 0.7 s. The same expressions: the same numbers.
covariance_S_stats <- function(S) {
  ss <- NULL
  list(fingerprint = fingerprint(S),
       sumsq = function() { if (is.null(ss)) ss <<- sum_squares(S); ss })
}

# component labels 1..K of the graph |S_ij| > lambda, i != j (dense S)
threshold_components <- function(S, lambda) {
  if (!is.double(S)) storage.mode(S) <- "double"
  .Call(C_cg_threshold_components, S, as.double(lambda))
}

# "sparse" fit from its components (membership `comp`, from the C screen):
# singletons in closed form, each other component by covariance_solve(),
# the largest last. The fit's trace is the largest component's, with the
# others' final objectives and gaps added (they are final when it starts), so
# objective and gap in every row are those of the whole problem; `time` is
# the wall clock of all of it.
fit_components <- function(S, comp, lambda, floor, control, warm, nobs, dimnames, call,
                           started, resume = NULL, sumsq = NULL) {
  p <- nrow(S)
  groups <- split(seq_len(p), comp)
  sizes <- lengths(groups)
  single <- unlist(groups[sizes == 1L], use.names = FALSE)
  s_single <- S[cbind(single, single)]
  sigma_single <- pmax(s_single, floor)
  solve_order <- order(sizes)                 # the largest component last
  fits <- vector("list", length(groups))
  quiet <- control
  quiet$progress <- FALSE
  quiet$verbose <- FALSE
  within <- 0                                # sum of S_ij^2 inside the solved components
  for (g in solve_order[sizes[solve_order] > 1L | seq_along(solve_order) == length(groups)]) {
    idx <- groups[[g]]
    last <- g == solve_order[length(groups)]
    ctl <- if (last) control else quiet
    if (is.finite(control$max_time))
      ctl$max_time <- max(control$max_time - (wall_clock() - started), 1e-3)
    Sg <- S[idx, idx, drop = FALSE]
    within <- within + sum(Sg^2)
    fits[[g]] <- covariance_solve(Sg, lambda, NULL, "sparse", floor, ctl,
                                  warm = restrict_warm(warm, idx), nobs = nobs,
                                  dimnames = list(NULL, NULL), resume = resume[[g]])
    rm(Sg)
    if (fits[[g]]$status == "interrupted") break
  }
  solved <- which(!vapply(fits, is.null, NA))
  main <- solve_order[length(groups)]
  if (is.null(fits[[main]])) main <- solved[length(solved)]   # interrupted before it
  fit <- fits[[main]]
  others <- setdiff(solved, main)
  # added to the main fit's objective: the other solved components'; the
  # singletons', 1/2 (sigma_ii - S_ii)^2; and 1/2 S_ij^2 between components
  # (Sigma_ij = 0 there). The last term is in the dual too (W_ij = -S_ij is
  # feasible since |S_ij| <= lambda), so the gaps just add up.
  in_main <- single %in% groups[[main]]
  rest <- !(single %in% unlist(groups[solved], use.names = FALSE))
  between <- (if (is.null(sumsq)) sum_squares(S) else sumsq()) - within -
             sum(s_single[rest]^2)
  const_obj <- 0.5 * sum((sigma_single - s_single)[!in_main]^2) + 0.5 * between +
               sum(vapply(fits[others], function(f) f$objective, 0))
  const_gap <- sum(vapply(fits[others], function(f) f$gap, 0))
  fit$trace$objective <- fit$trace$objective + const_obj
  fit$trace$gap <- fit$trace$gap + const_gap
  fit$objective <- fit$objective + const_obj
  fit$gap <- fit$gap + const_gap
  # the worst status of the parts is the status of the whole
  statuses <- vapply(fits[solved], function(f) f$status, "")
  worst <- c("error", "interrupted", "max_time", "max_iter", "converged")
  status <- worst[min(match(statuses, worst))]
  if (status != fit$status) {
    bad <- fits[solved][[which(statuses == status)[1L]]]
    fit$status <- status
    fit$message <- paste0("a component of ", sum(lengths(groups[solved[statuses == status]])),
                          " variables: ", bad$message)
  }
  fit$converged <- status == "converged" &&
                   fit$gap <= control$tol * tol_scale(fit$trace)
  if (status == "converged" && !fit$converged) {
    fit$status <- "max_iter"
    fit$message <- sprintf("the components' gaps add up to %.3g, above tol x %.3g", fit$gap,
                           tol_scale(fit$trace))
  }
  # the estimate: block diagonal over the components
  parts <- lapply(solved, function(g) {
    T <- methods::as(methods::as(fits[[g]]$solution$Sigma, "CsparseMatrix"), "TsparseMatrix")
    keep <- T@i <= T@j                            # one triangle
    idx <- groups[[g]]
    list(i = idx[T@i[keep] + 1L], j = idx[T@j[keep] + 1L], x = T@x[keep])
  })
  # (an interrupted fit: components not reached keep their floored diagonal)
  unsolved <- unlist(groups[setdiff(which(sizes > 1L), solved)], use.names = FALSE)
  diag_only <- c(single[rest], unsolved)
  ii <- c(unlist(lapply(parts, `[[`, "i")), diag_only)
  jj <- c(unlist(lapply(parts, `[[`, "j")), diag_only)
  xx <- c(unlist(lapply(parts, `[[`, "x")), pmax(S[cbind(diag_only, diag_only)], floor))
  Sigma <- Matrix::sparseMatrix(i = pmin(ii, jj), j = pmax(ii, jj), x = xx, dims = c(p, p),
                                symmetric = TRUE)
  offdiag <- sum(ii != jj)
  if (length(ii) + offdiag > 0.25 * p * p) Sigma <- as.matrix(Sigma)
  if (!is.null(dimnames)) dimnames(Sigma) <- dimnames
  fit$solution <- list(Sigma = Sigma)
  fit$sparsity <- 1 - 2 * offdiag / (p * (p - 1))
  fit$min_eigen <- min(c(sigma_single, vapply(fits[solved], function(f) f$min_eigen, 0)))
  # the dual (floor multipliers), block diagonal: a warm start for the next fit
  bind <- single[s_single < floor & rest]
  V <- matrix(0, p, 0L); d <- numeric(0)
  for (g in solved) {
    w <- fits[[g]]$warm
    if (length(w$dual_d)) {
      B <- matrix(0, p, length(w$dual_d)); B[groups[[g]], ] <- w$dual_v
      V <- cbind(V, B); d <- c(d, w$dual_d)
    }
  }
  if (length(bind)) {
    E <- matrix(0, p, length(bind)); E[cbind(bind, seq_along(bind))] <- 1
    V <- cbind(V, E); d <- c(d, floor - S[cbind(bind, bind)])
  }
  fit$dual_rank <- length(d)
  fit$warm <- list(dual_v = V, dual_d = d, L_u = NULL, L_d = NULL)
  # each solved component's state; the trace only of the one whose trace
  # the fit's is (without the others' constants)
  fit$part_state <- lapply(seq_along(groups), function(g) {
    st <- fits[[g]]$part_state
    if (!is.null(st) && g != main) st$trace <- NULL
    st
  })
  fit$components <- c(count = length(groups), largest = max(sizes),
                      singletons = length(single))
  fit$nobs <- nobs
  fit$call <- call
  finish_fit(fit, started)
}

# a warm start for the variables `idx`: the dual V diag(d) V' restricted to
# them, V[idx, ] diag(d) V[idx, ]' (psd), refactored with orthonormal
# columns and at most min(|idx|, 256) of them (the solver's rank cap)
restrict_warm <- function(warm, idx) {
  if (is.null(warm) || !length(warm$dual_d)) return(NULL)
  V <- warm$dual_v[idx, , drop = FALSE]
  keep <- colSums(V^2) > 0
  if (!any(keep)) return(NULL)
  qrV <- qr(V[, keep, drop = FALSE])
  Q <- qr.Q(qrV); Rm <- qr.R(qrV)
  if (length(qrV$pivot)) Rm <- Rm[, order(qrV$pivot), drop = FALSE]
  M <- Rm %*% (warm$dual_d[keep] * t(Rm))
  e <- eigen((M + t(M)) / 2, symmetric = TRUE)
  r <- min(sum(e$values > 1e-12 * max(e$values, 0)), length(idx), 256L)
  if (r < 1L) return(NULL)
  list(dual_v = Q %*% e$vectors[, seq_len(r), drop = FALSE], dual_d = e$values[seq_len(r)])
}

# column variances (divisor n - 1) by blocks of columns: no temporary of the
# size of data, a sparse data kept sparse
column_variances <- function(data) {
  n <- nrow(data)
  unlist(lapply(column_blocks(data), function(cols) {
    B <- data[, cols, drop = FALSE]
    m <- Matrix::colMeans(B)
    if (inherits(B, "Matrix")) (Matrix::colSums(B^2) - n * m^2) / (n - 1)
    else colSums(sweep(B, 2L, m)^2) / (n - 1)
  }), use.names = FALSE)
}
