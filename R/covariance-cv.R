# Cross-validation of sparse_covariance(): held-out Gaussian log-likelihood,
# default tuning grids, the K-fold path with warm starts, and cv_select(),
# which sparse_covariance() calls when `lambda` or `gamma` is "cv" or a grid.
# The single fit is covariance_fit() (R/sparse-covariance.R).

#' Held-out Gaussian log-likelihood of a covariance estimate
#'
#' Mean log-density per row of \eqn{N(0, \Sigma)}{N(0, Sigma)} at the rows of
#' `x`:
#' \deqn{-\frac12\left(p \log(2\pi) + \log\det\Sigma +
#'   \mathrm{tr}(\Sigma^{-1} S_{test})\right),\qquad
#'   S_{test} = x^\top x / n_{test},}{-1/2 (p log(2 pi) + log det Sigma +
#'   tr(Sigma^{-1} S_test)), S_test = crossprod(x) / nrow(x),}
#' the criterion [sparse_covariance()] maximizes in cross-validation. The
#' rows of `x` must already be centred (by the mean of the data `Sigma` was
#' estimated from, not by their own mean).
#'
#' Computed from a Cholesky factor \eqn{\Sigma = R^\top R}{Sigma = R'R}:
#' \eqn{\log\det\Sigma = 2\sum_i \log R_{ii}}{log det Sigma = 2 sum log R_ii}
#' and \eqn{\mathrm{tr}(\Sigma^{-1}S_{test}) = \|R^{-\top}x^\top\|_F^2 /
#' n_{test}}{tr(Sigma^{-1} S_test) = ||R^{-T} x'||_F^2 / n_test}, with one
#' triangular solve per test row; \eqn{\Sigma^{-1}}{the inverse} is never
#' formed. A sparse `Sigma` (a `Matrix`) is factored by CHOLMOD
#' ([Matrix::Cholesky()], fill-reducing permutation), a dense one by
#' [chol()]. For \eqn{p} variables and \eqn{m} test rows the cost is one
#' Cholesky factorization plus \eqn{O(p^2 m)}{O(p^2 m)}.
#'
#' @param Sigma A symmetric \eqn{p \times p}{p x p} covariance matrix: a
#'   numeric matrix or a `Matrix` (e.g. the `dsCMatrix` of
#'   `fit$solution$Sigma`).
#' @param x Test observations in rows, centred: a numeric matrix with
#'   \eqn{p} columns (or a `Matrix`), or a numeric vector of length \eqn{p}
#'   for a single row.
#' @returns A single number: the mean log-likelihood per row, or `-Inf` when
#'   `Sigma` is not (numerically) positive definite.
#' @seealso [sparse_covariance()]
#' @examples
#' set.seed(1)
#' Sigma <- diag(3) + 0.5
#' x <- matrix(rnorm(30), 10, 3)
#' heldout_loglik(Sigma, x)
#' heldout_loglik(Matrix::Matrix(Sigma, sparse = TRUE), x)   # the same
#' heldout_loglik(diag(c(1, 1, -1)), x)                       # -Inf
#' @export
heldout_loglik <- function(Sigma, x) {
  if (!(is.matrix(Sigma) && is.numeric(Sigma)) && !inherits(Sigma, "Matrix"))
    stop_arg("Sigma", "must be a numeric matrix or a Matrix object")
  p <- nrow(Sigma)
  if (p < 1L || ncol(Sigma) != p) stop_arg("Sigma", "must be a square matrix")
  if (is.null(dim(x))) {
    if (!is.numeric(x) || length(x) != p)
      stop_arg("x", "must be a numeric matrix with ", p, " columns or a vector of length ", p)
    x <- matrix(x, nrow = 1L)
  }
  if (inherits(x, "Matrix")) x <- as.matrix(x)
  if (is.data.frame(x)) x <- as.matrix(x)
  if (!is.matrix(x) || !is.numeric(x)) stop_arg("x", "must be a numeric matrix")
  if (ncol(x) != p)
    stop_arg("x", "must have ", p, " columns (one per variable of `Sigma`), not ", ncol(x))
  if (nrow(x) < 1L) stop_arg("x", "must have at least one row")
  if (!all_finite(x)) stop_arg("x", "contains NA, NaN or Inf")
  mean(loglik_rows(Sigma, x))
}

# the Gaussian log-likelihood of each row of x (checked, centred), all -Inf
# when Sigma is not positive definite
loglik_rows <- function(Sigma, x) {
  p <- nrow(Sigma); m <- nrow(x)
  if (inherits(Sigma, "sparseMatrix")) {
    Sigma <- methods::as(methods::as(Matrix::forceSymmetric(Sigma), "CsparseMatrix"), "dMatrix")
    if (!all_finite(Sigma@x)) stop_arg("Sigma", "contains NA, NaN or Inf")
    # LL' (not LDL'): CHOLMOD stops on the first non-positive pivot
    ch <- tryCatch(Matrix::Cholesky(Sigma, perm = TRUE, LDL = FALSE, super = NA),
                   error = function(e) NULL, warning = function(w) NULL)
    if (is.null(ch)) return(rep(-Inf, m))
    L <- Matrix::expand(ch)$L                 # P Sigma P' = L L'
    dL <- Matrix::diag(L)
    if (any(!is.finite(dL)) || any(dL <= 0)) return(rep(-Inf, m))
    logdet <- 2 * sum(log(dL))
    z <- Matrix::solve(ch, Matrix::solve(ch, t(x), system = "P"), system = "L")
    quad <- Matrix::colSums(z^2)
  } else {
    if (inherits(Sigma, "Matrix")) Sigma <- as.matrix(Sigma)
    if (!all_finite(Sigma)) stop_arg("Sigma", "contains NA, NaN or Inf")
    R <- tryCatch(chol(Sigma), error = function(e) NULL)
    if (is.null(R)) return(rep(-Inf, m))
    dR <- diag(R)
    if (any(dR <= 0)) return(rep(-Inf, m))
    logdet <- 2 * sum(log(dR))
    quad <- colSums(backsolve(R, t(x), transpose = TRUE)^2)   # ||R^{-T} x_i||^2
  }
  -0.5 * (p * log(2 * pi) + logdet + as.numeric(quad))
}

# The same for Sigma = R + U diag(d) U' (a "lowrank+sparse" fit: R the
# sparse part, positive definite, d > 0), without forming Sigma: by the
# determinant lemma and Woodbury, log det Sigma = log det R + sum(log d) +
# log det K and x' Sigma^-1 x = |z|^2 - |Kc^-T W' z|^2, K = diag(1 / d) +
# W'W = Kc'Kc, z = L^-1 P x and W = L^-1 P U from R's sparse Cholesky
# factor (P R P' = L L'). The dense Sigma's Cholesky is p^3 / 3 flops (about
# 30 s at p = 5000 with the reference BLAS, once per CV fit); this is R's
# sparse factor plus O(p r (r + m)).
loglik_rows_lowrank <- function(R, u, d, x) {
  m <- nrow(x)
  if (!length(d)) return(loglik_rows(R, x))
  if (!inherits(R, "sparseMatrix"))                  # a dense R: as before
    return(loglik_rows(as.matrix(R) + u %*% (d * t(u)), x))
  R <- methods::as(methods::as(Matrix::forceSymmetric(R), "CsparseMatrix"), "dMatrix")
  if (!all_finite(R@x) || !all_finite(u) || !all(d > 0)) return(rep(-Inf, m))
  ch <- tryCatch(Matrix::Cholesky(R, perm = TRUE, LDL = FALSE, super = NA),
                 error = function(e) NULL, warning = function(w) NULL)
  if (is.null(ch)) return(rep(-Inf, m))
  dL <- Matrix::diag(Matrix::expand(ch)$L)
  if (any(!is.finite(dL)) || any(dL <= 0)) return(rep(-Inf, m))
  half <- function(B) as.matrix(Matrix::solve(ch, Matrix::solve(ch, B, system = "P"),
                                              system = "L"))
  z <- half(t(x))
  W <- half(u)
  K <- crossprod(W)
  diag(K) <- diag(K) + 1 / d
  Kc <- tryCatch(chol(K), error = function(e) NULL)
  if (is.null(Kc)) return(rep(-Inf, m))
  logdet <- 2 * sum(log(dL)) + sum(log(d)) + 2 * sum(log(diag(Kc)))
  v <- backsolve(Kc, crossprod(W, z), transpose = TRUE)
  quad <- colSums(z^2) - colSums(v^2)
  -0.5 * (ncol(x) * log(2 * pi) + logdet + as.numeric(quad))
}

# ---- default grids ---------------------------------------------------------
# Functions of the full-data covariance S (divisor n - 1), so that every fold
# uses the same grid and the CV curve is a function of lambda alone.
#
# lambda ("sparse"): 15 values log-spaced from lambda_max = max_{i != j}|S_ij|
#   (at lambda >= lambda_max the soft-thresholded S is diagonal: the answer is
#   diag(S) raised to the floor, so larger values are all the same fit) down to
#   ratio * lambda_max, ratio = 0.01 when n > p. When n <= p the sample
#   covariance is singular, small lambdas give fits where the floor binds on
#   hundreds of eigenvalues (p = 2000, n = 500: 105 below the floor at
#   lambda = 0.05, minutes per fit) and a low held-out likelihood; the grid
#   then stops at 0.1 * lambda_max. On stock data CV picked 0.3 lambda_max
#   (p = 100) and 0.6 lambda_max (p = 452): well inside either range.
# gamma ("lowrank+sparse"): L = 0 for gamma >= lambda_1(S) (the L-step
#   thresholds the eigenvalues of S - R at gamma), so 5 values log-spaced
#   from lambda_1(S) / 2 (about one factor) down to lambda_1(S) / 100 (many
#   factors absorb most of S); crossed with 8 lambdas over the same range as
#   for "sparse" (the sparse part of S - L needs no more than that of S).
#   5 x 8 = 40 grid points x K folds: about the cost of 2.7 "sparse" paths,
#   each L+S fit being a few alternating steps warm-started along lambda.
default_lambdas <- function(S, n, nlambda = 15L) {
  p <- nrow(S)
  lmax <- 0
  for (cols in column_blocks(S)) {             # max |S_ij|, i != j, no p x p temporary
    B <- abs(S[, cols, drop = FALSE])
    B[cbind(cols, seq_along(cols))] <- 0
    lmax <- max(lmax, B)
  }
  if (!(lmax > 0)) return(0)                  # diagonal S: nothing to tune
  ratio <- if (n > p) 0.01 else 0.1
  lmax * exp(seq(0, log(ratio), length.out = nlambda))
}

default_gammas <- function(S, ngamma = 5L) {
  l1 <- top_eigenvalue(S)
  if (!(l1 > 0)) return(0)
  l1 * exp(seq(log(1 / 2), log(1 / 100), length.out = ngamma))
}

# largest eigenvalue of a symmetric matrix without a full eigendecomposition
top_eigenvalue <- function(S) {
  p <- nrow(S)
  if (p <= 50L) return(max(eigen(S, symmetric = TRUE, only.values = TRUE)$values))
  e <- tryCatch(suppressWarnings(RSpectra::eigs_sym(S, 1L, which = "LA",
                                                    opts = list(ncv = min(p, 20L), tol = 1e-8))),
                error = function(e) NULL)
  if (is.null(e) || length(e$values) < 1L) {
    return(max(eigen(S, symmetric = TRUE, only.values = TRUE)$values))
  }
  e$values[1L]
}

# ---- fold helpers ----------------------------------------------------------
# The fold's training moments on the fitting scale: S the target T = (1 -
# shrink) S_k + shrink diag(S_k) of the training rows' covariance S_k
# (divisor n - 1; with standardize, of the rows scaled by their sd, constant
# columns unscaled), dense or dgCMatrix X; `test` the held-out rows centred
# by the training mean and scaled alike, dense; `logjac` the log-Jacobian of
# that scaling per row (-sum(log sd)), so a fit's log-likelihood of the scaled
# rows plus `logjac` is that of the data; `factor` (see covariance_factor()).
fold_moments <- function(X, train, shrink = 0, standardize = FALSE) {
  Xtr <- X[train, , drop = FALSE]
  n <- nrow(Xtr)
  mu <- Matrix::colMeans(Xtr)
  sc <- if (standardize) scale_of(column_variances(Xtr)) else rep(1, ncol(Xtr))
  # (scaled before the cross product: no p x p temporaries for the scaling;
  # crossprod() of a dense matrix is symmetric as computed)
  S <- if (inherits(Xtr, "Matrix")) {
    Xs <- Xtr %*% Matrix::Diagonal(x = 1 / sc)
    S <- as.matrix(Matrix::crossprod(Xs) - n * tcrossprod(mu / sc)) / (n - 1)
    (S + t(S)) / 2
  } else {
    crossprod(sweep(Xtr, 2L, mu) / rep(sc * sqrt(n - 1), each = n))
  }
  S <- shrink_target(S, rep(1, ncol(S)), shrink)
  test <- sweep(sweep(as.matrix(X[!train, , drop = FALSE]), 2L, mu), 2L, sc, "/")
  list(S = S, test = test, n = n, logjac = -sum(log(sc)),
       factor = if (shrink == 0) covariance_factor(Xtr, mu, sc))
}

# the scale of each variable from its variance: its sd, 1 when it is constant
scale_of <- function(variances) {
  sc <- sqrt(pmax(variances, 0))
  sc[!nonconstant(sc)] <- 1
  sc
}

# the variables that are not constant, from their sd's (one rule for the
# scaling, the spectrum and the shrinkage intensity)
nonconstant <- function(sd) sd > 1e-12 * max(sd, 0)

# T = (1 - rho) S + rho diag(S) of S / (sc sc'): S scaled to the fitting
# scale, its off-diagonal shrunk toward 0 (in place where R can)
shrink_target <- function(S, sc, rho) {
  if (any(sc != 1)) S <- scale_symmetric(S, 1 / sc)
  if (rho > 0) {
    d <- diag(S)
    S <- S * (1 - rho)
    diag(S) <- d
  }
  S
}

# diag(a) A diag(a) of a dense A, by blocks of columns: one copy of A (or
# none when A is not shared), no p x p temporaries (at p = 20000 each is
# 3.2 GB)
scale_symmetric <- function(A, a) {
  for (cols in column_blocks(A))
    A[, cols] <- A[, cols, drop = FALSE] * a * rep(a[cols], each = nrow(A))
  A
}

# S = Z Z' with Z the centred rows (scaled by `sc`) over sqrt(n - 1),
# transposed (p x n): where n < p / 2, S's products in the solver's Lanczos
# runs go through Z at 2 n p flops instead of p^2 (golub, p = 4758, n = 22:
# 100 times fewer)
covariance_factor <- function(X, mu = Matrix::colMeans(X), sc = 1) {
  n <- nrow(X)
  if (n >= ncol(X) / 2) return(NULL)
  t(sweep(as.matrix(X), 2L, mu)) / (sqrt(n - 1) * sc)
}

# fraction of exact zeros among the off-diagonal entries of a symmetric matrix
offdiag_zero_fraction <- function(A) {
  p <- nrow(A)
  if (p < 2L) return(NA_real_)
  if (inherits(A, "sparseMatrix")) {
    A <- methods::as(A, "TsparseMatrix")
    off <- A@i != A@j & A@x != 0
    # symmetric storage keeps one triangle
    nz <- if (methods::is(A, "symmetricMatrix")) 2 * sum(off) else sum(off)
  } else {
    A <- as.matrix(A)
    nz <- sum(A != 0) - sum(diag(A) != 0)
  }
  1 - nz / (p * (p - 1))
}

lowrank_rank <- function(L) {
  if (is.null(L)) return(NA_real_)
  if (inherits(L, "lowrank")) return(sum(L$d > 0))
  NA_real_
}

lowrank_trace <- function(L) {
  if (!inherits(L, "lowrank")) return(NA_real_)
  sum(L$d * colSums(L$u * L$v))
}

# ---- the spectrum: shrinkage toward the diagonal ---------------------------
# The target of the fit is T = (1 - rho) S + rho diag(S), S the sample
# covariance on the fitting scale (the correlation matrix R under
# standardize = TRUE). At n << p the small eigenvalues of S are far too small
# (p - n + 1 of them are 0) and an l1 estimate keeps them: CV then prefers a
# nearly diagonal estimate (issue 24: gene expression, p = 500-4088, n =
# 50-82, 30-50% below corpcor::cov.shrink per row). Shrinkage lifts them to at
# least rho. The rho path costs nothing extra: T shares R's eigenvectors, so
# one eigendecomposition of a fold's R (a thin SVD of its standardized rows
# when p >= n) scores every rho at lambda = 0 in closed form.

# Eigen-structure of the correlation matrix of the rows X (dense or Matrix),
# centred by `mu`: `sd` (1 for constant columns), `keep` (the nonconstant
# columns, q of them), the eigenpairs of their correlation matrix (`values`
# >= 0, `vectors` q x r: all q when q < n, the r <= n - 1 nonzero ones when
# q >= n), `lmin` its smallest eigenvalue (0 when r < q). O(n p min(n, p))
# plus O(min(n, p)^3); no p x p array when p > n.
correlation_spectrum <- function(X, mu = Matrix::colMeans(X)) {
  n <- nrow(X)
  Z <- sweep(as.matrix(X), 2L, mu)
  sd <- sqrt(colSums(Z^2) / (n - 1))
  keep <- which(nonconstant(sd))
  sd[-keep] <- 1
  q <- length(keep)
  if (q == 0L) return(list(sd = sd, keep = keep, q = 0L, values = numeric(0),
                           vectors = matrix(0, 0, 0), lmin = 0))
  Z <- sweep(Z[, keep, drop = FALSE], 2L, sd[keep], "/") / sqrt(n - 1)
  if (q < n) {
    e <- eigen(crossprod(Z), symmetric = TRUE)
    values <- pmax(e$values, 0); vectors <- e$vectors
  } else {
    s <- svd(Z, nu = 0L)
    r <- sum(s$d > 1e-10 * max(s$d, 0))
    values <- s$d[seq_len(r)]^2; vectors <- s$v[, seq_len(r), drop = FALSE]
  }
  list(sd = sd, keep = keep, q = q, values = values, vectors = vectors,
       lmin = if (length(values) < q) 0 else min(values))
}

# The default floor for shrinkage rho: 0.9 of a lower bound on the smallest
# eigenvalue of T (on the fitting scale), so the lambda = 0 estimate, T
# itself, is feasible and the floor never clips the spectrum the data chose
# (issue 24: a fixed floor at 1% of the mean variance clipped the real small
# eigenvalues of strongly correlated variables, and lay above most variances
# of unstandardized counts). The 0.9 leaves room for the thresholded
# estimates below T's smallest eigenvalue. A singular target (rho = 0 and
# n <= p) gets 1% of the mean variance (on the fitting scale).
default_floor <- function(rho, spec, standardize) {
  lb <- rho + (1 - rho) * spec$lmin
  unit <- 1
  if (!standardize) {
    lb <- lb * min(spec$sd[spec$keep]^2, Inf)
    unit <- mean(spec$sd^2)
  }
  if (lb > 1e-6 * unit) 0.9 * lb else 0.01 * unit
}

# The Schafer-Strimmer (2005) shrinkage intensity of the correlations toward
# 0 (corpcor::estimate.lambda's): sum_{i != j} Var(r_ij) / sum_{i != j} r_ij^2,
# the variances estimated from the products w_kij = x_ki x_kj of the
# standardized columns. Computed from n x n or p x p cross products (sums
# over all i, j minus the diagonal), O(n p min(n, p)), without the p x p
# array of the w's variances.
shrinkage_intensity <- function(X, mu = Matrix::colMeans(X)) {
  n <- nrow(X)
  Z <- sweep(as.matrix(X), 2L, mu)
  sd <- sqrt(colSums(Z^2) / (n - 1))
  keep <- nonconstant(sd)
  Z <- sweep(Z[, keep, drop = FALSE], 2L, sd[keep], "/")
  if (ncol(Z) < 2L) return(0)
  Z2 <- Z^2
  sum_w2 <- sum(rowSums(Z2)^2) - sum(Z2^2)            # sum_k sum_{i != j} w_kij^2
  G <- if (ncol(Z) > n) tcrossprod(Z) else crossprod(Z)
  sum_wbar2 <- (sum(G^2) - sum(colSums(Z2)^2)) / n^2  # sum_{i != j} wbar_ij^2
  var_r <- n / (n - 1)^3 * (sum_w2 - n * sum_wbar2)
  r2 <- (n / (n - 1))^2 * sum_wbar2
  if (!(r2 > 0)) return(1)
  min(1, max(0, var_r / r2))
}

# the variances' default shrinkage grid (toward their median)
default_var_shrinks <- function() c(0, 0.1, 0.2, 0.35, 0.5, 0.75)

# default shrinkage grid: 0 (the lambda path's; at lambda = 0 a singular S
# scores far below the rest), 0.005 to 0.95, and the Schafer-Strimmer
# intensity `rho_ss`
default_shrinks <- function(rho_ss) {
  grid <- c(0, 0.005, 0.01, 0.02, 0.035, 0.05, 0.075, seq(0.1, 0.95, by = 0.05), rho_ss)
  sort(unique(round(grid[grid < 1], 6)))
}

# Per-row held-out log-likelihoods on the data's scale of the lambda = 0
# estimates for each rho in `rhos`: T itself, its eigenvalues clipped at the
# floor (the exact lambda = 0 solution) on the correlation scale; with
# standardize = FALSE only where the floor is below the bound of
# default_floor() (T then is feasible; otherwise NA). `spec` is the training
# rows' correlation_spectrum(), `test` the held-out rows centred by the
# training mean, `floors` the floor per rho; `var_shrinks` the shrinkage of
# the variances toward their median (shrunk_sd(): the scale the estimate is
# returned on). A matrix: rows x (rhos x var_shrinks), rhos varying fastest.
shrink_slice_rows <- function(spec, test, rhos, floors, standardize, var_shrinks = 0) {
  m <- nrow(test); p <- ncol(test)
  keep <- spec$keep; q <- spec$q; r <- length(spec$values)
  const <- test[, -keep, drop = FALSE]^2               # constant columns: variance floor
  out <- matrix(NA_real_, m, length(rhos) * length(var_shrinks))
  for (v in seq_along(var_shrinks)) {
    sd <- shrunk_sd(spec$sd[keep], var_shrinks[v])
    xs <- sweep(test[, keep, drop = FALSE], 2L, sd, "/")
    proj <- if (r) (xs %*% spec$vectors)^2 else matrix(0, m, 0)
    x2 <- rowSums(xs^2)
    p2 <- rowSums(proj)
    logjac <- -sum(log(sd))
    for (k in seq_along(rhos)) {
      rho <- rhos[k]; fl <- floors[k]
      t <- (1 - rho) * spec$values + rho
      tc <- rho                                       # the complement of the r directions
      if (standardize) {
        t <- pmax(t, fl); tc <- max(tc, fl)
      } else if (fl > (rho + (1 - rho) * spec$lmin) * min(sd^2, Inf) * (1 + 1e-12)) next
      if (q > r && !(tc > 0)) next
      logdet <- sum(log(t)) + if (q > r) (q - r) * log(tc) else 0
      quad <- if (r) drop(proj %*% (1 / t)) else 0
      if (q > r) quad <- quad + (x2 - p2) / tc
      ll <- -0.5 * (q * log(2 * pi) + logdet + quad) + logjac
      if (ncol(const))
        ll <- ll - 0.5 * (ncol(const) * log(2 * pi * fl) + rowSums(const) / fl)
      out[, (v - 1L) * length(rhos) + k] <- ll
    }
  }
  out
}

# The standard deviations with their variances shrunk toward the median
# variance by `a` (Opgen-Rhein and Strimmer 2007, as corpcor::cov.shrink's
# lambda.var): at n of a few tens each variance is itself noisy, and on
# unstandardized gene expression (tissue, 40 samples) shrinking them moved
# the held-out log-likelihood by up to 16 per row.
shrunk_sd <- function(sd, a) {
  if (a == 0 || !length(sd)) return(sd)
  v <- sd^2
  sqrt((1 - a) * v + a * stats::median(v))
}

# ---- the CV path -----------------------------------------------------------

# K-fold cross-validation of covariance_fit() on held-out Gaussian
# log-likelihood. X: n x p data (rows = observations); lambdas, gammas: grids
# (NULL: the defaults above; gammas ignored for "sparse"); floor: a number
# (NULL: 0.01 * mean(diag(S)) of the full data, as sparse_covariance()).
# Folds are assigned at random with sample() (balanced: sizes differ by at
# most one), so set.seed() reproduces them. Returns the data frame described
# in cv_select(), with attributes "folds" (K), "foldid" (the assignment),
# "fold_loglik" (grid points x folds), "skipped" (fits left out by the early
# stop of the lambda path, see past_peak() and pooled_past_peak(), or after a
# failed fit;
# early_stop = FALSE fits them all) and "warm" (a warm start at the chosen
# point: that of the last fold's fit there); `fit_one` is covariance_fit()
# (the tests pass a wrapper). The folds of each round run through
# map_tasks() (R/parallel.R): where the user's future::plan() says, with the
# same results under every plan.
covariance_cv <- function(X, structure = c("sparse", "lowrank+sparse"), lambdas = NULL,
                          gammas = NULL, floor = NULL, folds = 5L,
                          control = cg_control(), progress = control$progress,
                          early_stop = TRUE, fit_one = covariance_fit,
                          shrinks = 0, standardize = FALSE, shrink_slice = FALSE,
                          var_shrinks = 0, spec = NULL, foldid = NULL, reference = NULL,
                          keep_sample = FALSE) {
  structure <- match_choice(structure, c("sparse", "lowrank+sparse"), "structure")
  X <- check_design(X, "data")
  n <- nrow(X); p <- ncol(X)
  check_count(folds, "folds", min = 2)
  if (folds > n)   # (the user may not have given folds: the message names both)
    stop_arg("data", "has ", n, " rows, fewer than the ", folds, " folds of the ",
             "cross-validation (`folds`): give fewer folds, or `lambda` and `shrink` ",
             "(no cross-validation)")
  folds <- as.integer(folds)
  control <- as_control(control)
  check_flag(progress, "progress")
  lr <- structure == "lowrank+sparse"
  shrinks <- sort(unique(as.double(shrinks)))
  # the floor per shrinkage (default_floor(): from the full data's spectrum)
  if (is.null(floor) && is.null(spec)) spec <- correlation_spectrum(X)
  floor_of <- function(rho) if (is.null(floor)) default_floor(rho, spec, standardize) else floor
  if (!is.null(floor)) check_number(floor, "floor", min = 0)
  # keep_sample_choice() only where the lambda = 0, shrink = 0 estimate is
  # the sample covariance itself: the full data's S nonsingular and above
  # the floor (n > p), not S clipped at a floor (n <= p)
  keep_sample <- keep_sample && !is.null(spec) && spec$lmin > 0 &&
    floor_of(0) < spec$lmin * (if (standardize) 1 else min(spec$sd[spec$keep]^2))
  # lambda = 0 (pure shrinkage) is scored in closed form, for every rho at
  # once (shrink_slice_rows()); "lowrank+sparse" has no such slice
  slice <- !lr && (shrink_slice || any(lambdas == 0) || length(shrinks) > 1L ||
                      length(var_shrinks) > 1L)
  if (lr && length(shrinks) > 1L)
    stop_arg("shrink", "is chosen by cross-validation only for structure = \"sparse\"")
  if (is.null(foldid)) foldid <- sample(rep_len(seq_len(folds), n))
  started <- wall_clock()
  slice_rows <- NULL
  rho <- shrinks[1L]
  if (slice) {
    floors <- vapply(shrinks, floor_of, 0)
    # (in this process: a fold's spectrum is one thin SVD of its rows; 0.3 s
    # for all 5 folds at p = 5000, n = 60, against about 6 s of fold fits)
    slice_rows <- lapply(seq_len(folds), function(k) {
      train <- foldid != k
      Xtr <- X[train, , drop = FALSE]
      mu <- Matrix::colMeans(Xtr)
      sp <- correlation_spectrum(Xtr, mu)
      test <- sweep(as.matrix(X[!train, , drop = FALSE]), 2L, mu)
      shrink_slice_rows(sp, test, shrinks, floors, standardize, var_shrinks)
    })
    combos <- expand.grid(shrink = shrinks, shrink_var = var_shrinks, KEEP.OUT.ATTRS = FALSE)
    fold_means <- vapply(slice_rows, colMeans, numeric(nrow(combos)))
    dim(fold_means) <- c(nrow(combos), folds)
    score <- rowMeans(fold_means)
    best_combo <- if (any(is.finite(score))) which.max(score) else NA_integer_
    rho_best <- if (is.na(best_combo)) NA_real_ else combos$shrink[best_combo]
    if (progress)
      message(sprintf("CV shrinkage: %d values at lambda = 0 in %.1f s; best shrink = %.3g",
                      nrow(combos), wall_clock() - started, rho_best))
  }
  # The lambda path runs at the smallest shrinkage of the grid (0 by
  # default: the l1 estimate of S itself). Shrinkage chosen at lambda = 0
  # is the wrong one for it: on sparse (banded) truths the lambda = 0 choice
  # was rho = 0.25-0.95 (the Schafer-Strimmer value 0.36-0.91), where the
  # thresholded S scored 4-7% better per row, and at rho = 0 it did.
  fl <- floor_of(rho)
  if (is.null(lambdas) || (lr && is.null(gammas))) {
    S <- fold_moments(X, rep(TRUE, n), rho, standardize)$S
    if (is.null(lambdas)) lambdas <- c(default_lambdas(S, n, if (lr) 8L else 15L),
                                       if (slice) 0)
    if (lr && is.null(gammas)) gammas <- default_gammas(S)
    rm(S)
  }
  lambdas <- check_grid(lambdas, "lambda")
  gammas <- if (lr) check_grid(gammas, "gamma") else NA_real_
  path_lambdas <- if (slice) lambdas[lambdas > 0] else lambdas
  # (the lambda = 0 rows are candidates only when 0 is in the lambda grid;
  # otherwise they only chose rho)
  slice_table <- if (slice && any(lambdas == 0) && !is.na(rho_best))
    shrink_table(fold_means, combos, rep(floors, length(var_shrinks)))
  # the lambda = 0 estimate's rows at the chosen shrinkage: the reference the
  # pooled early stop compares the path with (given: structure = "auto"
  # passes the "sparse" CV's to the "lowrank+sparse" one)
  if (!is.null(slice_table))
    reference <- lapply(slice_rows, function(r) r[, best_combo])
  if (!length(path_lambdas)) {
    tab <- finish_cv_table(NULL, slice_table, folds, foldid)
    if (keep_sample) tab <- keep_sample_choice(tab, slice_rows, combos, NULL)
    return(with_structure(tab, structure, reference))
  }
  lambdas <- path_lambdas
  # fits inside CV: no per-fit progress line
  inner <- control
  inner$progress <- FALSE
  inner$verbose <- FALSE

  grid <- expand.grid(lambda = lambdas, gamma = gammas, KEEP.OUT.ATTRS = FALSE)
  ng <- nrow(grid)
  # the folds are drawn above, in this process: the fold fits use no random
  # numbers (the Lanczos runs start from a fixed vector), so a fold's results
  # depend on its data alone and are the same on any worker as here
  # The folds advance along lambda together, a round of lambdas at a time
  # (path_rounds()); between rounds each gamma's path is stopped for every
  # fold once the held-out rows of all folds, pooled, show it past its peak
  # (pooled_past_peak()). A fold's state (warm starts, per-row scores) goes
  # from round to round; its moments are recomputed in each round (a worker
  # keeps nothing).
  # (against a lambda = 0 reference two values can show the path below it:
  # at p >> n the third is where the floor starts to bind, 20 s a fit at
  # p = 6033)
  # "lowrank+sparse": rounds of lambdas 1-2, then one lambda each. The
  # pooled stop looks where path_rounds()' rounds end (`looks`, as for
  # "sparse") and also after the second lambda, where a fall must exceed 1%
  # of the mean (see pooled_past_peak(); golub, p = 4758, 28 rows: at gamma
  # 270 the pooled rows fall 3.4% at the second lambda, paired t = -2.4, and
  # the five fits at the third took 189 of the CV's ~600 s of fits). Between
  # all rounds fold_path_ended() is asked: its stop is exact (on golub a
  # fold ended gamma 38.2 at the seventh lambda, where the other four folds'
  # fits at the eighth, 109 s, could have no mean). The looks include
  # path_rounds()', so no fit is made that the rounds 1-3, 4-5, ... would
  # have left out (dropping the look at 3 made sim's CV fit 15 more points,
  # each failing on the floor cap).
  nl <- length(lambdas)
  rounds <- if (early_stop) path_rounds(nl, if (is.null(reference)) 3L else 2L)
            else list(seq_along(lambdas))
  looks <- vapply(rounds, max, 0L)
  if (early_stop && lr && nl > 2L) {
    rounds <- c(list(1:2), as.list(3:nl))
    looks <- sort(unique(c(2L, looks)))
  }
  state <- vector("list", folds)
  stopped <- rep(FALSE, length(gammas))
  # what a fold's task needs (shipped to a worker per task): the data, not
  # this function's frame
  shared <- list(X = X, foldid = foldid, folds = folds, grid = grid, lambdas = lambdas,
                 gammas = gammas, lr = lr, structure = structure, floor = fl,
                 control = inner, early_stop = early_stop, fit_one = fit_one, p = p,
                 shrink = rho, standardize = standardize, progress = progress,
                 since = Sys.time())
  # the p x p temporaries of the default grid freed before the folds start
  # elsewhere (a forked worker would share them but keep them in its
  # resident set)
  if (use_future()) invisible(gc(verbose = FALSE))
  for (todo in rounds) {
    tasks <- lapply(seq_len(folds), function(k)
      list(k = k, state = state[[k]], reference = reference[[k]]))
    state <- map_tasks(tasks, covariance_fold_task,
                       c(shared, list(todo = todo, stopped = stopped)),
                       label = function(k) sprintf("CV fold %d of %d", k, folds))
    if (early_stop) {
      if (max(todo) %in% looks)
        stopped <- stopped | vapply(seq_along(gammas), function(gi)
          pooled_past_peak(lapply(state, function(st) st$path_rows[[gi]]), reference,
                           first_fall = if (lr) 0.01 else 0), NA)
      stopped <- stopped | fold_path_ended(state, reference)
    }
    if (all(stopped)) break
  }
  res <- state
  # grid points no fold reached (its path stopped before them) are skipped
  for (k in seq_len(folds)) res[[k]]$skipped <- res[[k]]$skipped | !res[[k]]$attempted
  ll <- vapply(res, `[[`, numeric(ng), "ll")
  zeros <- vapply(res, `[[`, numeric(ng), "zeros")
  rank <- vapply(res, `[[`, numeric(ng), "rank")
  skipped <- vapply(res, `[[`, logical(ng), "skipped")
  dim(ll) <- dim(zeros) <- dim(rank) <- dim(skipped) <- c(ng, folds)
  n_failed <- sum(vapply(res, `[[`, 0L, "n_failed"))
  n_unconverged <- sum(vapply(res, `[[`, 0L, "n_unconverged"))
  errors <- unlist(lapply(res, `[[`, "first_error"))
  first_error <- if (length(errors)) errors[1L]
  warm_chosen <- res[[folds]]$warm
  if (n_failed + n_unconverged > 0L) {
    why <- c(if (n_unconverged) sprintf("%d did not converge (raise control$max_iter or max_time)",
                                        n_unconverged),
             if (n_failed) sprintf("%d failed (first error: %s)", n_failed, first_error))
    warning(sprintf(paste0("%d of %d cross-validation fits gave no held-out log-likelihood: %s; ",
                           "their grid points are averaged over the other folds"),
                    n_failed + n_unconverged, ng * folds, paste(why, collapse = "; ")),
            call. = FALSE)
  }
  path <- cv_table(grid, ll, zeros, rank, lr, folds, foldid, warm_chosen, skipped)
  path$shrink <- rho
  path$shrink_var <- 0
  path$floor <- fl
  tab <- finish_cv_table(path, slice_table, folds, foldid)
  if (keep_sample && !is.null(slice_table))
    tab <- keep_sample_choice(tab, slice_rows, combos,
                              lapply(res, function(st) st$path_rows[[1L]]))
  with_structure(tab, structure, reference)
}

# The sample covariance kept unless beaten significantly (`keep_sample`:
# the default "sparse" CV, shrink = "cv", rule = "max"): where S itself
# (lambda 0, shrink 0, shrink_var 0) is a candidate, positive definite (n >
# p), the CV's maximum replaces it only if it beats S by more than one
# paired standard error over the pooled held-out rows (rows_worse(z = 1);
# each observation is held out once): the one-standard-error rule, toward
# the unregularized estimate. Why: (a) the folds fit on (K - 1)/K of the
# rows, and the intensity that is best for fewer rows is larger
# (Ledoit-Wolf's and Schafer-Strimmer's odds rho / (1 - rho) are sums of
# Var(r_ij) over sums of r_ij^2, and Var(r_ij) ~ 1/n), so the CV's maximum
# leans toward regularization (9 data sets at n > p, 5 splits each: of the
# 14 splits where the CV chose a shrinkage above 0, the test rows' best
# lay below it on 10, equal on 2, above on 2); (b) at n > p with strongly collinear variables the
# log-likelihood falls steeply from shrink 0 (dslabs::brca, 30 variables,
# smallest correlation eigenvalue 1e-4: shrink 0.005 cost 1.6 per held-out
# row), while one held-out row far out in such a direction decides its
# fold's mean (brca split 2: it moved one fold's mean by 6.9 toward
# shrinkage, three of the other four folds preferred 0; t = -0.36 over the
# pooled rows). `slice_rows`, `combos`: per fold, the lambda = 0 rows'
# per-row log-likelihoods x (shrink, shrink_var); `path_rows`: per fold,
# per lambda of the path, its per-row log-likelihoods (NULL where not
# fitted or not finite). The table gets attribute "sample_kept" (TRUE when
# the rule changed the choice).
keep_sample_choice <- function(tab, slice_rows, combos, path_rows) {
  attr(tab, "sample_kept") <- FALSE
  i0 <- which(tab$lambda == 0 & tab$shrink == 0 & tab$shrink_var == 0)
  best <- which(tab$chosen)
  if (length(i0) != 1L || length(best) != 1L || best == i0 || is.null(slice_rows))
    return(tab)
  slice_col <- function(i) which(combos$shrink == tab$shrink[i] &
                                   combos$shrink_var == tab$shrink_var[i])
  pooled <- function(i) {
    if (tab$lambda[i] == 0) {
      j <- slice_col(i)
      if (length(j) != 1L) return(NULL)
      return(unlist(lapply(slice_rows, function(r) r[, j])))
    }
    # (a path row: its index in the path's lambdas, the table's first rows)
    per_fold <- lapply(path_rows, function(r) if (i <= length(r)) r[[i]])
    if (any(vapply(per_fold, is.null, NA))) return(NULL)
    unlist(per_fold)
  }
  r0 <- pooled(i0); rb <- pooled(best)
  if (is.null(r0) || is.null(rb) || length(r0) != length(rb) || !all(is.finite(r0)) ||
      !all(is.finite(rb)) || rows_worse(r0 - rb, z = 1))
    return(tab)
  tab$chosen <- seq_len(nrow(tab)) == i0
  attr(tab, "warm") <- NULL
  attr(tab, "sample_kept") <- TRUE
  tab
}

# One fold of one round of covariance_cv(), a task of map_tasks(): cv_fold()
# on the training rows of fold task$k from its state of the previous round,
# with the progress message; an interrupted fit stops the CV.
covariance_fold_task <- function(task, X, foldid, folds, grid, lambdas, gammas, lr,
                                 structure, floor, control, early_stop, fit_one, p, todo,
                                 stopped, shrink, standardize, progress, since) {
  k <- task$k
  t_fold <- wall_clock()
  cpu_fold <- cpu_seconds()
  res <- cv_fold(X, foldid != k, grid, lambdas, gammas, lr, structure, floor, control,
                 early_stop, fit_one, keep_warm = k == folds, p = p,
                 todo = todo, state = task$state, stopped = stopped,
                 shrink = shrink, standardize = standardize, reference = task$reference)
  if (identical(res$interrupted, TRUE))
    stop("cross-validation interrupted by the user (fold ", k, " of ", folds, ")",
         call. = FALSE)
  if (progress)
    message(sprintf("CV fold %d of %d, lambdas %d-%d of %d: %d fits in %.1f s, CPU %.1f s (%.1f s so far)",
                    k, folds, min(todo), max(todo), length(lambdas), res$n_fits,
                    wall_clock() - t_fold, cpu_seconds() - cpu_fold,
                    as.numeric(difftime(Sys.time(), since, units = "secs"))))
  res
}

# the CV table's `structure` column (its rows are all of one structure: the
# lambda = 0 rows exist for "sparse" only), and the per-fold reference rows
# of the early stop as an attribute (for structure = "auto")
with_structure <- function(tab, structure, reference) {
  tab$structure <- rep(structure, nrow(tab))
  attr(tab, "reference") <- reference
  tab
}

# The lambda = 0 rows of the CV table: one per shrinkage value (their fold
# means `fold_means`, shrinks x folds), dense estimates (zeros 0).
shrink_table <- function(fold_means, combos, floors = NA_real_) {
  ok <- is.finite(fold_means)
  n_ok <- rowSums(ok)
  se <- apply(fold_means, 1L, function(v) {
    v <- v[is.finite(v)]
    if (length(v) < 2L) NA_real_ else stats::sd(v) / sqrt(length(v))
  })
  loglik <- ifelse(n_ok == ncol(fold_means), rowMeans(fold_means), NA_real_)
  tab <- data.frame(lambda = 0, gamma = NA_real_, loglik = loglik, se = se, n_folds = n_ok,
                    zeros = 0, rank = NA_real_, chosen = FALSE, shrink = combos$shrink,
                    shrink_var = combos$shrink_var, floor = floors)
  attr(tab, "fold_loglik") <- fold_means
  tab
}

# The CV table of covariance_cv(): the lambda path's rows (at the chosen
# shrinkage) and the lambda = 0 rows, the best mean held-out log-likelihood
# among the points every fold scored chosen
finish_cv_table <- function(path, slice, folds, foldid) {
  tab <- rbind(path, slice)
  attrs <- attributes(path %||% slice)
  fold_ll <- rbind(attr(path, "fold_loglik"), attr(slice, "fold_loglik"))
  tab$chosen <- FALSE
  cand <- which(tab$n_folds == max(tab$n_folds) & is.finite(tab$loglik))
  best <- if (length(cand)) cand[which.max(tab$loglik[cand])]
  if (length(best)) tab$chosen[best] <- TRUE
  rownames(tab) <- NULL
  attr(tab, "folds") <- folds
  attr(tab, "foldid") <- foldid
  attr(tab, "fold_loglik") <- fold_ll
  attr(tab, "skipped") <- attrs$skipped %||% 0L
  # the warm start belongs to the path's chosen point
  attr(tab, "warm") <- if (length(best) && !is.null(path) && best <= nrow(path) &&
                           isTRUE(path$chosen[best])) attrs$warm
  tab
}

# One fold of covariance_cv() for one round: the grid's fits at the lambda
# indices `todo` on the training rows `train` of X, each gamma's lambda path
# from large to small with warm starts, scored on the held-out rows. `state`
# is this fold's result of the previous round (NULL in the first), `stopped`
# flags the gamma paths stopped for all folds. Returns per grid point ll
# (mean held-out log-likelihood), zeros, rank, skipped and attempted; the
# counts n_failed, n_unconverged and n_fits (this round), first_error,
# interrupted (TRUE when a fit was stopped by Ctrl-C: the fold ends there);
# the path state: per gamma the warm start of the next lambda (`next_warm`),
# whether a fit failed (`failed`) and the per-row log-likelihoods of its
# fits (`path_rows`, for past_peak()); `warm_gamma`; and, with keep_warm,
# the warm starts of its fits (for the full-data fit: small ones only,
# low-rank factors, not p x p matrices).
cv_fold <- function(X, train, grid, lambdas, gammas, lr, structure, floor, control,
                    early_stop, fit_one, keep_warm, p, todo = seq_along(lambdas),
                    state = NULL, stopped = rep(FALSE, length(gammas)), shrink = 0,
                    standardize = FALSE, reference = NULL) {
  ng <- nrow(grid); nl <- length(lambdas)
  out <- state %||%
    list(ll = rep(NA_real_, ng), zeros = rep(NA_real_, ng), rank = rep(NA_real_, ng),
         skipped = rep(FALSE, ng), attempted = rep(FALSE, ng), n_failed = 0L,
         n_unconverged = 0L, first_error = NULL, interrupted = FALSE,
         warm = vector("list", ng), next_warm = vector("list", length(gammas)),
         warm_gamma = NULL, failed = rep(FALSE, length(gammas)),
         path_rows = rep(list(vector("list", nl)), length(gammas)))
  out$n_fits <- 0L
  if (all(stopped | out$failed)) return(out)
  mom <- fold_moments(X, train, shrink, standardize)
  # (one fingerprint and sum(S^2) for this S's fits, not one per fit)
  S_stats <- if (!lr) covariance_S_stats(mom$S)
  for (gi in seq_along(gammas)) {
    if (stopped[gi]) next
    # along lambda, largest first, each fit warm-started by the previous
    # one; the first lambda of a gamma starts from the first of the
    # previous gamma (same S_k, neighbouring problem)
    warm <- if (min(todo) == 1L) out$warm_gamma else out$next_warm[[gi]]
    for (li in todo) {
      row <- (gi - 1L) * nl + li
      # a failed fit ends the path: the smaller lambdas are denser problems
      # (on golub, p = 4758, each failed in 50-150 s on the floor being active
      # in more than 256 directions)
      if (early_stop && (out$failed[gi] || past_peak(out$path_rows[[gi]], reference))) {
        out$skipped[row] <- TRUE
        next
      }
      out$attempted[row] <- TRUE
      out$n_fits <- out$n_fits + 1L
      fit <- tryCatch(
        withCallingHandlers(
          fit_one(mom$S, lambda = lambdas[li], gamma = if (lr) gammas[gi],
                  structure = structure, floor = floor, control = control,
                  warm = warm, nobs = mom$n, dimnames = list(NULL, NULL),
                  S_factor = mom$factor, floor_rank = if (lr) CV_LOWRANK_FLOOR_RANK else 256L,
                  sigma = !lr, S_stats = S_stats),
          warning = function(w) invokeRestart("muffleWarning")),
        error = function(e) e)
      if (inherits(fit, "error") || identical(fit$status, "error")) {   # a numerical failure
        out$n_failed <- out$n_failed + 1L; out$failed[gi] <- TRUE
        if (is.null(out$first_error))
          out$first_error <- if (inherits(fit, "error")) conditionMessage(fit) else fit$message
        next
      }
      if (identical(fit$status, "interrupted")) {
        out$interrupted <- TRUE
        return(out)
      }
      warm <- fit$warm
      if (li == 1L) out["warm_gamma"] <- list(fit$warm)
      if (keep_warm && warm_size(fit$warm) <= 64 * p) out$warm[row] <- list(fit$warm)
      if (!isTRUE(fit$converged)) {
        out$n_unconverged <- out$n_unconverged + 1L
        next
      }
      Sigma <- fit$solution$Sigma
      rows_ll <- mom$logjac + if (lr) {
        loglik_rows_lowrank(fit$solution$S, fit$solution$L$u, fit$solution$L$d, mom$test)
      } else loglik_rows(Sigma, mom$test)
      out$ll[row] <- mean(rows_ll)
      if (all(is.finite(rows_ll))) out$path_rows[[gi]][li] <- list(rows_ll)
      out$zeros[row] <- offdiag_zero_fraction(if (lr) fit$solution$S else Sigma)
      if (lr) out$rank[row] <- lowrank_rank(fit$solution$L)
    }
    out$next_warm[gi] <- list(warm)
  }
  out
}

# The cap on the floor's active directions in a "lowrank+sparse" fold fit
# (the final fit's is 256, as is the rank cap of L): past it the fit fails and ends that gamma's
# lambda path in that fold, as any failure does. At p >> n such fits are
# the dense end of the path (the thresholded S - L has hundreds of
# eigenvalues below the floor), where the held-out likelihood has fallen;
# deciding "more than 256" took 63 s of CPU per fold fit at p = 5000, n = 48,
# "more than 32" 8.7 s.
CV_LOWRANK_FLOOR_RANK <- 32L

# The rounds of lambda indices in which the folds advance together: the
# first three (where a path's peak can first be seen; `first`), then 2, 4, 8, ...
# (each round recomputes the folds' moments, so their number stays
# logarithmic in the grid's length).
path_rounds <- function(nl, first = 3L) {
  rounds <- list(); from <- 1L; size <- first
  while (from <= nl) {
    to <- min(nl, from + size - 1L)
    rounds[[length(rounds) + 1L]] <- from:to
    from <- to + 1L
    size <- if (length(rounds) == 1L) 2L else 2L * size
  }
  rounds
}

# CPU seconds (user + system) of this process
cpu_seconds <- function() sum(proc.time()[c("user.self", "sys.self")])

# Early stop of a fold's lambda path (the smaller lambdas are not fitted:
# their entries stay NA and such grid points cannot be chosen, see
# cv_table()): once the held-out log-likelihood has fallen at two
# consecutive lambdas and the last fit lies more than 10% of |best| below
# the best of the path, or both are worse than the best by a paired
# comparison over the test rows (mean difference more than two standard
# errors below zero).
# Past the peak the fits only get denser and slower: on stock452
# ("lowrank+sparse") the smallest lambdas were 57 of 200 fits that ran to
# max_iter, for held-out log-likelihoods 50-150% below the best; on golub
# (p = 4758, 6 test rows per fold) the log-likelihood falls from the first
# lambda on, by 0.6% at the third, whose fit takes 1 s, while the fourth
# takes a minute. `path_rows`: per lambda, the per-row log-likelihoods (NULL
# where not fitted or not finite).
past_peak <- function(path_rows, reference = NULL) {
  done <- which(!vapply(path_rows, is.null, NA))
  m <- length(done)
  # against a better lambda = 0 reference (see pooled_past_peak()): its
  # first significant fall below it
  if (m >= 2L && length(reference) == length(path_rows[[done[m]]]) &&
      all(is.finite(reference)) &&
      mean(reference) > max(vapply(path_rows[done], mean, 0)))
    return(mean(path_rows[[done[m]]]) < mean(path_rows[[done[m - 1L]]]) &&
           rows_worse(path_rows[[done[m]]] - reference))
  if (m < 3L) return(FALSE)
  v <- vapply(path_rows[done], mean, 0)
  best <- which.max(v)
  if (!(v[m] < v[m - 1L] && v[m - 1L] < v[m - 2L]) || best >= m - 1L) return(FALSE)
  paired_worse <- function(k) rows_worse(path_rows[[done[k]]] - path_rows[[done[best]]])
  v[m] < v[best] - 0.1 * abs(v[best]) || (paired_worse(m) && paired_worse(m - 1L))
}

# Per gamma: TRUE when some fold's own path has ended (a failed fit, or
# past_peak() on its rows so far: the test cv_fold() makes before each fit).
# That fold skips every later lambda of the path, and cv_table() gives a grid
# point some fold skipped no mean (it cannot be chosen, nor enter the 1-SE
# rule), so the other folds' fits there would change neither the choice nor
# any chosen number: the path stops for all folds, exactly. At p >> n those
# are the slow fits (golub 3051 genes, split r2: three fold fits at the fifth
# lambda, 139 of the CV's 153 CPU s, after folds 4 and 5 had ended their
# paths at the fourth). Only between rounds: the folds of a round run
# independently (map_tasks()). `state`: the folds' cv_fold() results;
# `reference`: per fold, the lambda = 0 rows (or NULL), as cv_fold() had.
fold_path_ended <- function(state, reference = NULL) {
  ng <- length(state[[1L]]$failed)
  vapply(seq_len(ng), function(gi)
    any(vapply(seq_along(state), function(k)
      state[[k]]$failed[gi] || past_peak(state[[k]]$path_rows[[gi]], reference[[k]]), NA)), NA)
}

# Early stop of a lambda path for all folds at once, from their held-out
# rows pooled (each observation is held out once, so the pooled rows are
# all n observations): among the lambdas every fold has scored, the last
# one fell below the previous one and lies below the best by more than two
# paired standard errors over the pooled rows. The per-fold rule
# (past_peak()) sees only its own 5-10 rows on small data and waits for two
# falls; on golub (p = 4758, 28 rows) the pooled rows show the fall past
# the peak at the third lambda (paired t = -3.4), where every fold's own
# rows do not, and the fourth lambda is where a fit takes minutes.
# `fold_rows`: per fold, per lambda, the per-row log-likelihoods (NULL where
# not fitted or not finite). `first_fall`: with two lambdas scored, the fall
# must also exceed this fraction of |the first's mean| ("lowrank+sparse",
# whose first look is after two lambdas: 0.01). The paired test alone is
# blind to size: on khan (p = 2308) gammas 21.4 and 8.04 fell by 5e-7 of
# their mean at the second lambda, consistently over the rows, and the
# path rose 0.5% at the third (main's choice); golub's gamma 270 fell 3.4%.
#
# `reference` (per fold, the rows' log-likelihoods of the lambda = 0
# shrinkage estimate, when that is a candidate): when it beats every lambda
# scored, the path stops at its first fall below it by more than two
# paired standard errors, without waiting for the fall to be significant
# against the path's own peak. On gene expression at p >> n the shrunk
# target beat every thresholded estimate, and the fits past the path's
# peak, where the floor binds in hundreds of directions, took minutes.
pooled_past_peak <- function(fold_rows, reference = NULL, first_fall = 0) {
  nl <- max(lengths(fold_rows), 0L)
  if (nl < 2L) return(FALSE)
  scored <- which(vapply(seq_len(nl), function(li)
    all(vapply(fold_rows, function(r) li <= length(r) && !is.null(r[[li]]), NA)), NA))
  m <- length(scored)
  if (m < 2L) return(FALSE)
  pooled <- lapply(scored, function(li) unlist(lapply(fold_rows, `[[`, li)))
  v <- vapply(pooled, mean, 0)
  best <- which.max(v)
  ref <- unlist(reference)
  if (length(ref) == length(pooled[[m]]) && all(is.finite(ref)) && mean(ref) > v[best])
    return(rows_worse(pooled[[m]] - ref) &&
           (v[m] < v[m - 1L] || far_below(v[m - 1L:0L], mean(ref)) &&
              rows_worse(pooled[[m - 1L]] - ref)))
  if (best == m || !(v[m] < v[m - 1L])) return(FALSE)
  if (m == 2L && !(v[2L] < v[1L] - first_fall * abs(v[1L]))) return(FALSE)
  rows_worse(pooled[[m]] - pooled[[best]])
}

# Both values more than 10% of |ref| below ref: the sparse end of an l1
# path that far below the shrinkage estimate did not catch up further down
# on any data set tried, while its next fits are the slow ones at p >> n
# (a 3-factor model, p = 5000, n = 60: lambda_1, lambda_2 2 s per fold,
# lambda_3 40-60 s; the path rose 1450 -> 1448 on Khan's 1000 genes, the
# shrinkage estimate at 994). A sparse truth keeps its path: on banded
# covariances its first values lay 0.6-12% below the shrinkage estimate
# (p = 500, n = 50; p = 100, n = 200), and the path won.
far_below <- function(v, ref) all(v < ref - 0.1 * abs(ref))

# paired differences significantly below zero: mean more than `z` (two)
# standard errors below (at least 3 of them)
rows_worse <- function(d, z = 2) length(d) >= 3L && mean(d) < -z * stats::sd(d) / sqrt(length(d))

# number of numbers in a (nested list) warm start, without copying it
warm_size <- function(warm) {
  if (is.null(warm)) return(0)
  if (!is.list(warm)) return(length(warm))
  sum(unlist(rapply(warm, length, how = "list")), 0)
}

# the CV data frame: one row per grid point
cv_table <- function(grid, ll, zeros, rank, lr, folds, foldid, warm,
                     skipped = matrix(FALSE, nrow(ll), ncol(ll))) {
  ok <- !is.na(ll)
  n_ok <- rowSums(ok)
  mean_ok <- function(M) ifelse(n_ok > 0L, rowSums(ifelse(ok, M, 0)) / pmax(n_ok, 1L), NA_real_)
  loglik <- mean_ok(ll)
  se <- vapply(seq_len(nrow(ll)), function(i) {
    v <- ll[i, ok[i, ]]
    if (length(v) < 2L || any(!is.finite(v))) NA_real_ else stats::sd(v) / sqrt(length(v))
  }, 0)
  # a point some fold skipped (path stopped past the peak): the folds that
  # reached it are those where it scored better, so their mean would flatter
  # it; no mean there
  cut <- rowSums(skipped) > 0L
  loglik[cut] <- NA_real_
  se[cut] <- NA_real_
  cv <- data.frame(lambda = grid$lambda, gamma = grid$gamma, loglik = loglik, se = se,
                   n_folds = n_ok, zeros = mean_ok(zeros),
                   rank = if (lr) mean_ok(rank) else NA_real_, chosen = FALSE)
  # the best mean among the grid points every fold could score; if none,
  # among those scored by the most folds
  cand <- which(n_ok == max(n_ok) & is.finite(loglik))
  if (length(cand)) {
    best <- cand[which.max(cv$loglik[cand])]
    cv$chosen[best] <- TRUE
  } else best <- NA_integer_
  attr(cv, "folds") <- folds
  attr(cv, "foldid") <- foldid
  attr(cv, "fold_loglik") <- ll
  attr(cv, "skipped") <- sum(skipped)
  attr(cv, "warm") <- if (is.na(best)) NULL else warm[[best]]
  cv
}

check_grid <- function(x, arg) {
  if (!is.numeric(x) || length(x) < 1L || anyNA(x) || any(!is.finite(x)) || any(x < 0))
    stop_arg(arg, "must be \"cv\" or non-negative finite numbers")
  sort(unique(as.double(x)), decreasing = TRUE)
}

# Called by sparse_covariance(): lambda and gamma are "cv" (default grid),
# a numeric vector of length > 1 (that grid) or a single number (fixed).
# gamma is ignored for structure = "sparse". Returns list(lambda, gamma, cv,
# warm): the chosen values, the CV data frame (NULL when nothing was tuned)
# with columns
#   lambda, gamma (NA for "sparse"), loglik (mean over folds of the held-out
#   Gaussian log-likelihood per test row), se (its standard error across
#   folds; NA where the path of some fold was stopped early, past_peak()),
#   n_folds (folds whose fit converged), zeros (mean fraction of
#   exact zeros off the diagonal: of Sigma for "sparse", of the sparse part S
#   for "lowrank+sparse"), rank (mean rank of L; NA for "sparse"), chosen
#   (TRUE in the row of the largest loglik);
# and a warm start for the full-data fit at the chosen values (the last
# fold's fit there: a nearby problem of the same dimension) or NULL.
cv_select <- function(X, structure = c("sparse", "lowrank+sparse"), lambda = "cv",
                      gamma = "cv", floor = NULL, folds = 5L, control = cg_control(),
                      rule = "max", shrink = 0, standardize = FALSE,
                      shrink_var = 0, spec = NULL) {
  structure <- match_choice(structure, c("sparse", "lowrank+sparse", "auto"), "structure")
  if (structure == "auto")
    return(cv_select_auto(X, lambda, gamma, floor, folds, control, rule, shrink,
                          standardize, shrink_var, spec))
  lr <- structure == "lowrank+sparse"
  as_grid <- function(v, arg) {
    if (identical(v, "cv")) return(NULL)
    if (is.character(v)) stop_arg(arg, "must be \"cv\" or non-negative numbers")
    check_grid(v, arg)
  }
  lambdas <- as_grid(lambda, "lambda")
  gammas <- if (lr) as_grid(gamma, "gamma") else NA_real_
  shrinks <- if (identical(shrink, "cv")) {
    X <- check_design(X, "data")
    default_shrinks(shrinkage_intensity(X))
  } else shrink
  var_shrinks <- if (identical(shrink_var, "cv")) default_var_shrinks() else shrink_var
  if (length(lambdas) == 1L && length(gammas) == 1L && length(shrinks) == 1L &&
      length(var_shrinks) == 1L)                                   # nothing to tune
    return(list(lambda = lambdas, gamma = gammas, shrink = shrinks, shrink_var = var_shrinks,
                structure = structure, cv = NULL, warm = NULL))
  cv <- covariance_cv(X, structure, lambdas = lambdas, gammas = if (lr) gammas,
                      floor = floor, folds = folds, control = control,
                      shrinks = shrinks, standardize = standardize,
                      shrink_slice = !lr && is.null(lambdas), var_shrinks = var_shrinks,
                      spec = spec, keep_sample = !lr && rule == "max" && identical(shrink, "cv"))
  best <- which(cv$chosen)
  if (length(best) != 1L)
    stop("cross-validation failed: no grid point has a finite held-out log-likelihood ",
         "in any fold (see the warning); give `lambda`", if (lr) " and `gamma`",
         " as numbers", call. = FALSE)
  warm <- attr(cv, "warm")
  attr(cv, "warm") <- NULL
  if (rule == "1se") {
    pick <- covariance_1se(cv)
    if (pick != best) {                 # the warm start kept is the maximum's
      cv$chosen <- seq_len(nrow(cv)) == pick
      best <- pick
      warm <- NULL
    }
  }
  attr(cv, "reference") <- NULL
  list(lambda = cv$lambda[best], gamma = cv$gamma[best], shrink = cv$shrink[best],
       shrink_var = cv$shrink_var[best], structure = structure, cv = cv, warm = warm)
}

# structure = "auto": the "sparse" CV (its shrinkage rows and l1 path, as
# the default) and the "lowrank+sparse" CV (gamma x lambda) on the same
# folds, scored on the same held-out rows; one table (column `structure`),
# the best mean held-out log-likelihood of both chosen. The best shrinkage
# estimate's rows are the reference of the "lowrank+sparse" early stop as
# they are for the l1 path (pooled_past_peak()): a gamma's path that falls
# significantly below it stops there.
cv_select_auto <- function(X, lambda, gamma, floor, folds, control, rule, shrink,
                           standardize, shrink_var, spec) {
  X <- check_design(X, "data")
  foldid <- sample(rep_len(seq_len(folds), nrow(X)))
  as_grid <- function(v, arg) if (identical(v, "cv")) NULL else check_grid(v, arg)
  lambdas <- as_grid(lambda, "lambda")
  shrinks <- if (identical(shrink, "cv")) default_shrinks(shrinkage_intensity(X)) else shrink
  var_shrinks <- if (identical(shrink_var, "cv")) default_var_shrinks() else shrink_var
  cv_s <- covariance_cv(X, "sparse", lambdas = lambdas, floor = floor, folds = folds,
                        control = control, shrinks = shrinks,
                        standardize = standardize, shrink_slice = is.null(lambdas),
                        var_shrinks = var_shrinks, spec = spec, foldid = foldid)
  # (the l1 path's lambdas are those of S; "lowrank+sparse" has its own
  # default grid, as when it is asked for alone)
  cv_l <- covariance_cv(X, "lowrank+sparse", lambdas = lambdas, gammas = as_grid(gamma, "gamma"),
                        floor = floor, folds = folds, control = control,
                        standardize = standardize, spec = spec, foldid = foldid,
                        reference = attr(cv_s, "reference"))
  parts <- list(cv_s, cv_l)
  cv <- do.call(rbind, lapply(parts, function(t) { attributes(t)[c("reference", "warm")] <- NULL; t }))
  rownames(cv) <- NULL
  attr(cv, "folds") <- folds
  attr(cv, "foldid") <- foldid
  attr(cv, "fold_loglik") <- do.call(rbind, lapply(parts, attr, "fold_loglik"))
  attr(cv, "skipped") <- sum(vapply(parts, function(t) as.numeric(attr(t, "skipped") %||% 0), 0))
  cv$chosen <- FALSE
  cand <- which(cv$n_folds == max(cv$n_folds) & is.finite(cv$loglik))
  if (!length(cand))
    stop("cross-validation failed: no grid point has a finite held-out log-likelihood ",
         "in any fold (see the warning); give `structure`, `lambda` and `gamma`", call. = FALSE)
  best <- cand[which.max(cv$loglik[cand])]
  cv$chosen[best] <- TRUE
  # the warm start kept belongs to the winning family's chosen point
  won <- parts[[if (cv$structure[best] == "sparse") 1L else 2L]]
  warm <- if (isTRUE(won$chosen[best - if (cv$structure[best] == "sparse") 0L else nrow(cv_s)]))
    attr(won, "warm")
  if (rule == "1se") {
    pick <- covariance_1se(cv)
    if (pick != best) {
      cv$chosen <- seq_len(nrow(cv)) == pick
      best <- pick
      warm <- NULL
    }
  }
  list(lambda = cv$lambda[best], gamma = cv$gamma[best], shrink = cv$shrink[best],
       shrink_var = cv$shrink_var[best], structure = cv$structure[best], cv = cv, warm = warm)
}

# The one-standard-error rule for the covariance CV table: among the grid
# points every fold scored, the sparsest estimate (most zeros, then the
# lowest rank, then the largest lambda) whose mean held-out log-likelihood
# is within one standard error of the best (the maximum, table$chosen).
covariance_1se <- function(cv) {
  best <- which(cv$chosen)
  band <- cv$loglik[best] - if (is.finite(cv$se[best])) cv$se[best] else 0
  cand <- which(cv$n_folds == cv$n_folds[best] & is.finite(cv$loglik) & cv$loglik >= band)
  rank <- ifelse(is.na(cv$rank), 0, cv$rank)
  cand[order(-cv$zeros[cand], rank[cand], -cv$lambda[cand])][1L]
}
