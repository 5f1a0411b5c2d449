#' Linearly constrained low-rank estimation
#'
#' Solves problem (8) of Garber and Kaplan (2019),
#' \deqn{\min_{\|X\|_* \le \tau} \tfrac12 \|X - E[M]\|_F^2 +
#' \max_i \left(\langle A_i, X\rangle - b_i\right),}{min 1/2 ||X - E[M]||^2 +
#' max_i (<A_i, X> - b_i)  s.t.  ||X||_* <= tau,}
#' a penalized form of the constraints \eqn{\langle A_i, X\rangle \le b_i}
#' (scale `A` and `b` to weight the penalty). The maximum is smoothed by
#' log-sum-exp with parameter `mu`, \eqn{\mu\log\sum_i
#' e^{(\langle A_i, X\rangle - b_i)/\mu}}, which lies within
#' \eqn{\mu \log n} of it; the trace reports the original objective. Methods,
#' samplers, certified rank, continuation and defaults are those of
#' [lowrank_sparse()] with \eqn{\beta = 1 + \|\mathcal A\|^2/\mu} (Corollary
#' 4) and starting \eqn{\mu = } `eps` \eqn{\times C_0 / \log n}. `gap` bounds
#' objective \eqn{-} optimum of the stated problem: the smoothed
#' Frank-Wolfe gap plus \eqn{\max_i z_i - \langle p, z\rangle}{max_i z_i -
#' <p, z>}, with \eqn{z_i = \langle A_i, X\rangle - b_i} and \eqn{p} their
#' softmax weights (a dual point of the maximum).
#'
#' **Default method and why.** `"svrgcg"` with continuation: on the test
#' instance (\eqn{d = 12}, 4 forms) it reaches 1e-3 of the stated optimum
#' in 0.03 s (830 iterations) where `"fw"` needs 0.6 s and `"scgs"` 1.2 s
#' (`inst/bench/smoothed_defaults.R`).
#'
#' @section Memory:
#' As [lowrank_sparse()], about 9 times the size of `M` on top of `M`
#' (`inst/bench/memory.R`), plus the constraint operator in compressed sparse
#' rows (12 bytes per nonzero of `A`, built from a copy by columns).
#'
#' @param A The constraint matrices: a list of \eqn{m \times d} matrices
#'   (dense or sparse), or a sparse (or dense) \eqn{n \times md} matrix whose
#'   row \eqn{i} is \eqn{\mathrm{vec}(A_i)} (column-major).
#' @param b Right-hand sides, length \eqn{n}.
#' @param set `"nuclear"` (the nuclear-norm ball) or `"psd"` (positive
#'   semidefinite matrices of trace at most `radius`; the constraint
#'   matrices must then be square, \eqn{m = d}).
#' @inheritParams lowrank_sparse
#' @returns A fit of class `c("lowrank_constrained_fit", "cg_fit")`.
#' @examples
#' set.seed(3)
#' d <- 20
#' u <- rnorm(d); M <- tcrossprod(u) + matrix(rnorm(d * d, sd = 0.1), d)
#' # penalize entries (1, 1) and (2, 2) above 0.5
#' A <- list(Matrix::sparseMatrix(1, 1, x = 1, dims = c(d, d)),
#'           Matrix::sparseMatrix(2, 2, x = 1, dims = c(d, d)))
#' fit <- lowrank_constrained(M, A, b = c(0.5, 0.5), radius = sum(u^2),
#'                            control = cg_control(max_iter = 300))
#' fit$solution$X[1:2, 1:2]
#' @export
lowrank_constrained <- function(M, A, b, radius, set = c("nuclear", "psd"),
                                method = c("svrgcg", "scg", "scgs", "fw"),
                                rank = 1L, max_rank = NULL, mu = NULL, eps = 0.01,
                                step_size = NULL, inner = NULL, batch_size = NULL,
                                snapshot_batch_size = NULL, target = NULL,
                                init = NULL, control = cg_control()) {
  started <- wall_clock()
  call <- match.call()
  set <- match_choice(set, c("nuclear", "psd"), "set")
  method <- match_choice(method, c("svrgcg", "scg", "scgs", "fw"), "method")
  src <- lowrank_source(M, set, target)
  op <- linear_operator(A, src$dims, "A", dims_arg = NULL)
  if (!identical(op$dims, as.integer(src$dims)))
    stop_arg("A", "must hold matrices of the dimensions of `M` (", src$dims[1], " x ",
             src$dims[2], "), not ", op$dims[1], " x ", op$dims[2])
  b <- check_vector(b, "b", op$n)
  op$csr$op_b <- b
  # C0 >= f(0) - f*: 1/2 ||E M||^2 + max(-b) minus the smallest the max can be
  src$C0 <- src$C0 + max(-b) + sqrt(op$norm2) * radius
  lowrank_solve(src, list(kind = 2L, op = op$csr, op_norm2 = op$norm2), radius, set,
                method, rank, max_rank, mu, eps, step_size, inner, batch_size, snapshot_batch_size,
                control, call, "lowrank_constrained", started, init = init)
}

#' Low-rank matrix sensing with an elastic-net penalty
#'
#' Solves section 4.2.3 of Garber and Kaplan (2019),
#' \deqn{\min_{\|X\|_* \le \tau} \frac{1}{N}\sum_{i=1}^N
#' \tfrac12\left(\langle A_i, X\rangle - b_i\right)^2 + \lambda_1\|X\|_1 +
#' \lambda_2\|X\|_F^2,}{min (1/N) sum 1/2 (<A_i, X> - b_i)^2 + lambda1
#' ||X||_1 + lambda2 ||X||_F^2  s.t.  ||X||_* <= tau,}
#' as a finite sum over the \eqn{N} measurements (SVRGCG Alg. 2: full
#' snapshots, minibatches of measurements in the inner loop, where the
#' variance-reduced correction is computed from the sampled
#' \eqn{A_i}). The elastic net makes the objective
#' \eqn{2\lambda_2}-strongly convex (`lambda2 > 0` is required by `"svrgcg"`);
#' the l1 term is Huber-smoothed, with continuation and a certificate of the
#' stated problem (`gap`) as in [lowrank_sparse()]. Defaults as in
#' [lowrank_sparse()] with \eqn{\alpha = 2\lambda_2}, \eqn{\beta =
#' \|\mathcal A\|^2/N + \lambda_1/\mu + 2\lambda_2} and \eqn{k_t =
#' 32\max_i\|A_i\|^4/\alpha^2}.
#'
#' **Default method and why.** `"fw"` (deterministic Frank-Wolfe on the
#' smoothed objective, with continuation): it reaches 1e-3 of the stated
#' optimum fastest on both measured instances (`inst/bench/smoothed_defaults.R`):
#' 85 iterations, 2 ms, against 900 and 0.07 s for `"svrgcg"` on the
#' dense-Gaussian test instance (\eqn{8 \times 8}, \eqn{N = 300}), and 250
#' iterations, 0.02 s, against 4070 and 0.5 s on the sparse example below
#' (\eqn{15 \times 15}, \eqn{N = 400}), and it needs no `lambda2`. For a
#' certified high accuracy `"svrgcg"` can be faster (on the example it
#' certifies 1e-3 in 0.64 s, `"fw"` in 0.9 s, and goes further); `"scg"` and
#' `"scgs"` (sampled measurements) stall near 10\% on both.
#'
#' **Refit (no l1 term, default).** With `lambda1 = 0`, `mu = NULL` and
#' `tol > 0` the objective is smooth, and the solver's iterate is followed
#' by accelerated projected gradient (FISTA, step \eqn{1/L}{1/L} with
#' \eqn{L = \|\mathcal A\|^2/N + 2\lambda_2}, adaptive restart), each step
#' one certified weak proximal step (an exact projection onto the set by a
#' partial SVD, the solver's oracle; a full one where that fails), until
#' its Frank-Wolfe gap is below `tol` (relative as for the solver) or 1000
#' steps. Singular values below \eqn{10^{-6}}{1e-6} of the largest are then
#' dropped when the certified gap stays below `tol` (the bound
#' \eqn{F(X_k) - F(X) + \mathrm{gap}(X)}{F(X_k) - F(X) + gap(X)} counts the
#' change). The fit takes the refit's point when its gap is the smaller
#' (`fit$refit`; a continuation with `init` goes on from the solver's
#' iterate, kept in the state). Why: Frank-Wolfe's \eqn{O(1/t)}{O(1/t)}
#' rate left the default call on 250 Gaussian measurements of a rank-2
#' \eqn{50 \times 8}{50 x 8} matrix at `max_iter` with a relative gap of
#' 2, a recovery error of 3.8e-2 and rank 8; with the refit it converges
#' (324 steps, 0.35 s in all), with recovery error 8e-8 and rank 2
#' (`inst/bench/results/lowrank_defaults.md`).
#' `options(stochcg.lowrank_refit = FALSE)` returns the iterate.
#'
#' @section Memory:
#' About twice the size of a `dgCMatrix` `A` on top of `A`
#' (`inst/bench/memory.R`): the
#' operator is stored once more by rows (the same size), and its squared
#' entries are formed once for the row norms. A dense `A` or a list of
#' matrices is first converted to sparse form (12 bytes per nonzero; about 4
#' times the size of a dense `A` in all). The C solver adds nine dense
#' \eqn{m \times d}{m x d} matrices (the iterate, the snapshot and its
#' gradient, minibatch gradients, the proximal argument and point).
#'
#' @param A The measurement matrices: a list of \eqn{m \times d} matrices or
#'   an \eqn{N \times md} matrix (dense or sparse) of their vectorizations.
#' @param b Measurements, length \eqn{N}.
#' @param lambda1,lambda2 Elastic-net weights (non-negative).
#' @param dims `c(m, d)` when `A` is a matrix of vectorizations.
#' @param set `"nuclear"` (the nuclear-norm ball) or `"psd"` (positive
#'   semidefinite matrices of trace at most `radius`; the measured matrix
#'   must then be square, \eqn{m = d}).
#' @param method `"fw"` (default), `"svrgcg"` (needs `lambda2 > 0`), `"scg"`
#'   or `"scgs"`.
#' @inheritParams lowrank_sparse
#' @returns A fit of class `c("matrix_sensing_fit", "cg_fit")`.
#' @examples
#' set.seed(4)
#' m <- 15; N <- 400
#' X0 <- tcrossprod(rnorm(m), rnorm(m))
#' A <- Matrix::rsparsematrix(N, m * m, density = 0.05)
#' b <- as.vector(A %*% as.vector(X0)) + rnorm(N, sd = 0.01)
#' fit <- matrix_sensing(A, b, radius = sum(svd(X0)$d), lambda1 = 1e-3,
#'                       lambda2 = 1e-2, dims = c(m, m),
#'                       control = cg_control(max_iter = 300))
#' fit
#' @export
matrix_sensing <- function(A, b, radius, lambda1 = 0, lambda2 = 0,
                           set = c("nuclear", "psd"),
                           method = c("fw", "svrgcg", "scg", "scgs"), rank = 1L,
                           max_rank = NULL, mu = NULL, eps = 0.01, step_size = NULL,
                           inner = NULL, batch_size = NULL, dims = NULL,
                           init = NULL, control = cg_control()) {
  started <- wall_clock()
  call <- match.call()
  set <- match_choice(set, c("nuclear", "psd"), "set")
  method <- match_choice(method, c("fw", "svrgcg", "scg", "scgs"), "method")
  check_number(lambda1, "lambda1", min = 0)
  check_number(lambda2, "lambda2", min = 0)
  op <- linear_operator(A, dims, "A")
  b <- check_vector(b, "b", op$n)
  op$csr$op_b <- b
  if (set == "psd" && op$dims[1] != op$dims[2])
    stop_arg("A", "must hold square matrices for set = \"psd\"")
  src <- list(source = 0L, loss = 1L, M = NULL, dims = op$dims, sigma = 0, arg = "b",
              C0 = 0.5 * mean(b^2), sigma2 = op$sigma2_fun(b), op = op$csr,
              op_norm2 = op$norm2, beta_i = op$max_row2)
  fit <- lowrank_solve(src, list(kind = 1L, lambda = lambda1, lambda2 = lambda2), radius,
                       set, method, rank, max_rank, mu, eps, step_size, inner, batch_size,
                       snapshot_batch_size = 0, control, call, "matrix_sensing", started,
                       init = init)
  if (lambda1 == 0 && is.null(mu) && fit$control$tol > 0 && dual_refit_on() &&
      fit$status %in% c("max_iter", "max_time", "converged"))
    fit <- sensing_refit(fit, op, b, lambda2, radius, set, max_rank, fit$control)
  finish_fit(fit, started)
}

# The projected-gradient refit of matrix_sensing() without an l1 term (see
# ?matrix_sensing, "Refit"): the objective is smooth, so accelerated
# projected gradient (FISTA, step 1/L, adaptive restart) from the solver's
# iterate, each step one certified weak proximal step (an exact projection
# onto the set, partial SVD), certified by the Frank-Wolfe gap
# <G, X> - min_{S in C} <G, S> at its iterate. Steps until that is below tol
# (relative as in C) or 1000 steps; the fit takes the refit's iterate when
# its gap is the smaller one, and keeps the solver's iterate in its state.
sensing_refit <- function(fit, op, b, lambda2, radius, set, max_rank, control) {
  t0 <- wall_clock()
  psd <- set == "psd"
  dims <- op$dims
  N <- length(b)
  At <- methods::new("dgCMatrix", p = as.integer(op$csr$op_p), i = as.integer(op$csr$op_j),
                     x = as.double(op$csr$op_x), Dim = c(as.integer(prod(dims)), as.integer(N)))
  L <- op$norm2 / N + 2 * lambda2
  value <- function(X) 0.5 * mean((as.vector(Matrix::crossprod(At, as.vector(X))) - b)^2) +
    lambda2 * sum(X^2)
  grad <- function(X) {
    r <- as.vector(Matrix::crossprod(At, as.vector(X))) - b
    matrix(as.vector(At %*% r), dims[1]) / N + 2 * lambda2 * X
  }
  fw_gap <- function(X, G) {
    lin <- if (psd) radius * min(cg_oracle("eigs_sym", A = (G + t(G)) / 2, k = 1L,
                                           which = -1L)$values, 0)
           else -radius * cg_oracle("svds", A = G, k = 1L)$d[1]
    sum(G * X) - lin
  }
  rank <- if (is.na(fit$certified_rank %||% NA)) 1L else fit$certified_rank
  if (is.null(max_rank)) max_rank <- min(dims)
  dense <- FALSE
  project <- function(Y) {
    o <- refit_oracle(A = Y, psd = psd, radius = radius, rank = rank,
                      max_rank = max_rank, dense = dense)
    if (is.null(o)) return(NULL)
    dense <<- isTRUE(o$dense)
    rank <<- max(o$rank, 1L)
    if (!isTRUE(o$certified)) NULL else o$V
  }
  X0 <- fit$solution$X
  dn <- dimnames(X0)
  Xit <- X0
  dimnames(Xit) <- NULL
  obj0 <- fit$trace$objective[1L]
  scale0 <- 1e-3 * max(if (is.finite(obj0)) abs(obj0) else 0, fit$state$cold %||% 0)
  certify <- function(X) {
    G <- grad(X)
    f <- value(X)
    list(X = X, objective = f, gap = fw_gap(X, G), rank = rank)
  }
  run <- accelerated_refit(project(Xit),     # the iterate is feasible: itself unless rounding
                           certify, function(Y) project(Y - grad(Y) / L), control$tol, scale0)
  best <- run$best
  steps <- run$steps
  # at the optimum on the boundary of the ball the projection's threshold
  # tends to 0, so its trailing singular values are tiny but positive: drop
  # those below 1e-6 of the largest when the truncation (feasible: the same
  # vectors, smaller values) keeps the certified gap below tol. Its gap: the
  # smaller of its own Frank-Wolfe gap and F(X_k) - F(X) + gap(X), as
  # F* >= F(X) - gap(X) (the first is loose at objectives near 0)
  if (!is.null(best)) {
    sv <- svd(best$X)
    k <- sum(sv$d > 1e-6 * sv$d[1])
    if (k >= 1L && k < best$rank) {
      Xk <- sv$u[, seq_len(k), drop = FALSE] %*% (sv$d[seq_len(k)] *
              t(sv$v[, seq_len(k), drop = FALSE]))
      if (psd) Xk <- (Xk + t(Xk)) / 2
      fk <- value(Xk)
      gk <- min(fw_gap(Xk, grad(Xk)), fk - best$objective + best$gap)
      if (gk <= control$tol * max(abs(fk), scale0))
        best <- list(X = Xk, objective = fk, gap = max(gk, 0), rank = k, steps = best$steps)
    }
  }
  fit$solver_time <- fit$solver_time + (wall_clock() - t0)
  refit_apply(fit, best, steps, Xit, dn, control, scale0, "projected-gradient refit")
}

# A list of m x d matrices, or an n x (m d) matrix of vectorizations, as the
# CSR arrays of the n x (m d) operator (0-based), with ||A||^2, the largest
# squared row norm, and a function giving E||grad g_i - grad G||^2 at X = 0.
# `dims_arg` names the argument `dims` came from (NULL: the dimensions of M).
linear_operator <- function(A, dims, arg, dims_arg = "dims") {
  if (is.list(A) && !inherits(A, "Matrix") && !is.data.frame(A)) {
    if (length(A) == 0L) stop_arg(arg, "is an empty list")
    d1 <- dim(A[[1]])
    if (is.null(d1)) stop_arg(arg, "must be a list of matrices")
    rows <- lapply(seq_along(A), function(i) {
      Ai <- A[[i]]
      if (!(inherits(Ai, "Matrix") || (is.matrix(Ai) && (is.numeric(Ai) || is.logical(Ai)))))
        stop_arg(arg, "must be a list of numeric matrices (element ", i, " is not)")
      if (!identical(dim(Ai), d1)) stop_arg(arg, "matrices must all have the same dimensions")
      Ai <- methods::as(methods::as(Matrix::Matrix(Ai, sparse = TRUE), "generalMatrix"), "dMatrix")
      if (any(!is.finite(Ai@x))) stop_arg(arg, "contains NA, NaN or Inf")
      Matrix::sparseVector(x = Ai@x[Ai@x != 0] , i = which(as.vector(Ai != 0)), length = prod(d1))
    })
    Amat <- Matrix::sparseMatrix(
      i = rep(seq_along(rows), vapply(rows, function(r) length(r@i), 1L)),
      j = unlist(lapply(rows, function(r) r@i)), x = unlist(lapply(rows, function(r) r@x)),
      dims = c(length(rows), prod(d1)))
    dims <- d1
  } else {
    Amat <- check_design(A, arg)
    if (nrow(Amat) < 1L) stop_arg(arg, "must have at least one row (one per measurement)")
    if (is.null(dims)) stop_arg("dims", "is required when `", arg, "` is a matrix of vectorizations")
    dims <- check_dims(dims)
    if (prod(as.double(dims)) != ncol(Amat)) {
      if (is.null(dims_arg))
        stop_arg(arg, "must have ", prod(as.double(dims)), " columns (the entries of `M`), not ",
                 ncol(Amat))
      stop_arg(dims_arg, "must be c(m, d) with m * d = ncol(", arg, ") = ", ncol(Amat),
               " (got ", dims[1], " x ", dims[2], ")")
    }
    Amat <- methods::as(methods::as(Matrix::Matrix(Amat, sparse = TRUE), "generalMatrix"), "dMatrix")
  }
  At <- methods::as(Matrix::t(Amat), "CsparseMatrix")      # CSR of Amat
  norm2 <- sigma1_squared(Amat)
  check_scale(norm2, arg)
  row2 <- Matrix::rowSums(Amat^2)
  list(n = nrow(Amat), dims = as.integer(dims), norm2 = norm2, max_row2 = max(row2),
       csr = list(op_p = At@p, op_j = At@i, op_x = At@x),
       # sensing at X = 0: grad g_i = -b_i A_i, mean G = -A'b / N
       sigma2_fun = function(b) {
         g <- as.vector(Matrix::crossprod(Amat, b)) / length(b)
         max(mean(b^2 * row2) - sum(g^2), 0)
       })
}
