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
#' one iteration. `"lowrank+sparse"` minimizes out \eqn{L} (the positive
#' part of \eqn{S - R - \gamma I}, from its eigenpairs above \eqn{\gamma})
#' and runs accelerated proximal gradient with restart on \eqn{R}, the
#' proximal step being the floored sparse problem, solved by the dual method
#' warm started (`method = "apg"`; without momentum this would be alternating
#' minimization, several times slower on stock returns). `gap` is a duality gap of the stated problem (a Fenchel dual
#' point built from the current iterate), so `converged` certifies it.
#'
#' **Scale.** The penalties act on the covariance in the units of `data`;
#' standardize the columns (`scale(data)`) when variables are on different
#' scales. The default `floor` is 1% of the average variance.
#'
#' **Cross-validation.** With `lambda = "cv"` (or a vector of values),
#' `folds`-fold cross-validation picks the value with the largest mean
#' held-out Gaussian log-likelihood, fitting each fold along the path from
#' large to small `lambda` with warm starts, then refits on all rows;
#' `fit$cv` holds the curve and `plot(fit)` draws it. For
#' `"lowrank+sparse"` `gamma` is chosen the same way, over a grid of
#' `gamma` x `lambda`.
#'
#' @param data An \eqn{n \times p}{n x p} numeric matrix or `Matrix` of
#'   observations (rows); or, when `n` is given, a \eqn{p \times p}{p x p}
#'   covariance matrix.
#' @param lambda Penalty on the off-diagonal entries: a number, a vector of
#'   values to choose from by cross-validation, or `"cv"` (default: a grid
#'   from the largest off-diagonal \eqn{|S_{ij}|}, where the estimate is
#'   diagonal, down).
#' @param structure `"sparse"` (default) or `"lowrank+sparse"`.
#' @param gamma For `"lowrank+sparse"`: penalty on the trace of \eqn{L}
#'   (larger, lower rank; \eqn{L = 0} from the largest eigenvalue of \eqn{S}
#'   up): a number, a vector to choose from, or `NULL`/`"cv"` (default:
#'   cross-validation). Not used by `"sparse"` (a number is an error there).
#' @param floor Smallest eigenvalue allowed (of \eqn{\Sigma}, or of \eqn{R}
#'   for `"lowrank+sparse"`), positive; `NULL` (default) for 1% of the mean
#'   of the variances.
#' @param n Number of observations when `data` is a covariance matrix.
#' @param folds Number of cross-validation folds.
#' @param control Solver settings from [cg_control()]; `tol` bounds the
#'   relative duality gap, `max_iter` counts dual steps (`"sparse"`) or
#'   proximal-gradient steps on the sparse part (`"lowrank+sparse"`).
#' @returns A fit of class `c("sparse_covariance_fit", "cg_fit")` (see
#'   [cg_fit]): `solution$Sigma` the estimate (a `Matrix::dsCMatrix` when at
#'   most a quarter of its entries are nonzero, else a dense matrix), and for
#'   `"lowrank+sparse"` also `solution$L` (a [lowrank] object: `u` the
#'   loadings, `d` the factor variances) and `solution$S` (the sparse part
#'   \eqn{R}); `lambda`, `gamma`, `floor`, `structure`, `nobs`, `min_eigen`
#'   (a certified lower bound on the smallest eigenvalue of
#'   \eqn{\Sigma}, at least `floor`), `sparsity` (the fraction of
#'   off-diagonal entries of the sparse part that are exactly zero), `rank`
#'   (of \eqn{L}), `cv` (the cross-validation table, or `NULL`).
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
#' fit_cv$lambda
#' @export
sparse_covariance <- function(data, lambda = "cv", structure = c("sparse", "lowrank+sparse"),
                              gamma = NULL, floor = NULL, n = NULL, folds = 5L,
                              control = cg_control()) {
  started <- wall_clock()
  call <- match.call()
  structure <- match_choice(structure, c("sparse", "lowrank+sparse"), "structure")
  lowrank <- structure == "lowrank+sparse"
  control <- as_control(control)
  data <- check_design(data, "data")
  S <- NULL
  if (is.null(n)) {
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
  if (is.null(floor)) {
    floor <- 0.01 * mean(variances)
    if (!(floor > 0)) stop_arg("data", "has no variance: give `floor` explicitly")
  }
  check_number(floor, "floor", min = 0, strict_min = TRUE)
  lambda <- check_penalty_grid(lambda, "lambda")
  if (lowrank) {
    gamma <- check_penalty_grid(gamma %||% "cv", "gamma", positive = TRUE)
  } else if (!is.null(gamma) && !identical(gamma, "cv")) {
    stop_arg("gamma", "applies only to structure = \"lowrank+sparse\"")
  }
  tune <- !is.numeric(lambda) || length(lambda) > 1L ||
          (lowrank && (!is.numeric(gamma) || length(gamma) > 1L))
  cv <- NULL; warm <- NULL
  if (tune) {
    if (!is.null(n))
      stop_arg(if (!is.numeric(lambda) || length(lambda) > 1L) "lambda" else "gamma",
               "can be chosen by cross-validation only from the observations: give `data` ",
               "as rows, or a single value")
    check_count(folds, "folds", min = 2, max = nobs)
    # (the full-data S is formed after CV: one p x p array at a time)
    sel <- cv_select(data, structure, lambda, if (lowrank) gamma else NULL, floor, folds,
                     control)
    lambda <- sel$lambda
    if (lowrank) gamma <- sel$gamma
    cv <- sel$cv; warm <- sel$warm
  }
  if (is.null(S)) S <- sample_covariance(data)
  check_scale(0.5 * sum(S^2), "data")
  fit <- covariance_fit(S, lambda, if (lowrank) gamma else NULL, structure, floor, control,
                        warm = warm, nobs = nobs,
                        dimnames = if (!is.null(colnames(data))) list(colnames(data), colnames(data)),
                        call = call, started = started)
  fit$cv <- cv
  if (!is.null(cv)) fit$folds <- as.integer(folds)
  finish_fit(fit, started)
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

# One fit at given penalties (no cross-validation): the C solver, then the
# estimate assembled from its sparse part, floor shift and low-rank factor.
# `warm` is a previous fit's $warm (same dimension) along a path.
covariance_fit <- function(S, lambda, gamma, structure, floor, control, warm = NULL,
                           nobs = NA, dimnames = NULL, call = NULL, started = wall_clock()) {
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
               max_rank = as.integer(min(p, 256L)))
  if (!is.null(warm) && nrow(warm$dual_v) == p) {
    spec$warm_v <- warm$dual_v; spec$warm_d <- warm$dual_d
    if (lowrank && !is.null(warm$L_u)) { spec$warm_Lu <- warm$L_u; spec$warm_Ld <- warm$L_d }
  }
  fit <- cg_run(spec, control, "sparse_covariance", call, started)
  sol <- fit$solution
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
    Sigma <- as.matrix(R) + sol$L_u %*% (sol$L_d * t(sol$L_u))
    Sigma <- (Sigma + t(Sigma)) / 2
    if (!is.null(dimnames)) dimnames(Sigma) <- dimnames
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
