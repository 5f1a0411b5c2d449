# Linearly constrained low-rank estimation (log-sum-exp smoothing) and
# matrix sensing with elastic net (Huber smoothing): exact nonsmooth
# references (dual and proximal, certified), fits within 1e-3 of them, and
# reported gaps that bound objective - optimum of the stated problem.

test_that("lowrank_constrained reaches the exact reference; its gap certifies it", {
  set.seed(11)
  d <- 12
  u <- rnorm(d); M <- tcrossprod(u) + matrix(rnorm(d * d, sd = 0.1), d)
  A <- lapply(1:4, function(i) { Z <- matrix(0, d, d); Z[i, i] <- 1; Z })
  b <- rep(0.3, 4)
  tau <- sum(u^2)
  Amat <- t(vapply(A, as.vector, numeric(d * d)))
  f_orig <- function(X) 0.5 * sum((X - M)^2) + max(Amat %*% as.vector(X) - b)
  ref <- ref_lowrank_maxlin(M, Amat, b, tau)
  expect_lt(ref$gap, 1e-9 * ref$objective)
  fit <- lowrank_constrained(M, A, b, tau, control = cg_control(max_iter = 5000, tol = 1e-3))
  expect_true(fit$converged)
  expect_equal(fit$objective, f_orig(fit$solution$X), tolerance = 1e-10)
  expect_lte(fit$gap, 1e-3 * max(1, abs(fit$objective)))
  expect_gte(fit$gap, fit$objective - ref$objective - 1e-9)
  expect_lt(fit$objective - ref$objective, 1e-3 * ref$objective)
  expect_lt(norm(fit$solution$X - ref$X, "F"), 1e-3 * norm(ref$X, "F"))
  # the certificate in plain R: smoothed FW gap + max z - <softmax(z / mu), z>
  X <- fit$solution$X; z <- as.vector(Amat %*% as.vector(X) - b)
  p <- exp((z - max(z)) / fit$mu); p <- p / sum(p)
  G <- X - M + matrix(crossprod(Amat, p), d)
  expect_equal(fit$gap, sum(G * X) + tau * svd(G, 0, 0)$d[1] + max(z) - sum(p * z),
               tolerance = 1e-7)
  for (method in c("fw", "scgs")) {       # slower: the certificate holds throughout
    f2 <- lowrank_constrained(M, A, b, tau, method = method,
                              control = cg_control(max_iter = 1000, tol = 0))
    expect_equal(f2$objective, f_orig(f2$solution$X), tolerance = 1e-10)
    expect_true(all(f2$trace$gap >= f2$trace$objective - ref$objective - 1e-9))
  }
  # the list form and the matrix-of-vectorizations form agree
  f1 <- lowrank_constrained(M, A, b, tau, control = cg_control(max_iter = 50))
  f2 <- lowrank_constrained(M, Matrix::Matrix(Amat, sparse = TRUE), b, tau,
                            control = cg_control(max_iter = 50))
  expect_equal(f2$solution$X, f1$solution$X, tolerance = 1e-12)
})

test_that("matrix_sensing reaches the exact reference; its gap certifies it", {
  set.seed(12)
  m <- 8; N <- 300
  X0 <- tcrossprod(rnorm(m), rnorm(m))
  Amat <- matrix(rnorm(N * m * m), N)
  b <- as.vector(Amat %*% as.vector(X0)) + rnorm(N, sd = 0.1)
  l1 <- 0.01; l2 <- 0.05; tau <- 0.8 * sum(svd(X0)$d)
  f_orig <- function(X) {
    r <- Amat %*% as.vector(X) - b
    0.5 * mean(r^2) + l1 * sum(abs(X)) + l2 * sum(X^2)
  }
  ref <- ref_sensing(Amat, b, l1, l2, c(m, m), tau)
  expect_lt(ref$gap, 1e-8 * ref$objective)
  for (method in c("svrgcg", "fw")) {
    set.seed(13)
    fit <- matrix_sensing(Amat, b, tau, l1, l2, dims = c(m, m), method = method,
                          control = cg_control(max_iter = 20000, tol = 1e-5))
    expect_true(fit$converged)
    expect_equal(fit$objective, f_orig(fit$solution$X), tolerance = 1e-10)
    expect_lte(fit$gap, 1e-5 * max(1, abs(fit$objective)))
    expect_gte(fit$gap, fit$objective - ref$objective - 1e-9)
    expect_lt(fit$objective - ref$objective, 1e-3 * ref$objective)
    expect_lt(norm(fit$solution$X - ref$X, "F"), 1e-3 * norm(ref$X, "F"))
    if (method == "svrgcg") {
      # print says what the certified rank is of: the last proximal step,
      # not X (which averages steps and has more, tiny, directions)
      d <- svd(fit$solution$X)$d
      expect_gt(sum(d > 1e-12 * d[1]), fit$certified_rank)
      expect_output(print(fit), sprintf(
        "last proximal step: rank %d, certified exact \\(X combines such steps",
        fit$certified_rank))
    }
  }
  set.seed(13)
  fit <- matrix_sensing(Amat, b, tau, l1, l2, dims = c(m, m), method = "scg",
                        control = cg_control(max_iter = 500, tol = 0, eval_every = 50))
  expect_true(all(fit$trace$gap >= fit$trace$objective - ref$objective - 1e-9))
  # the default method is fw (it needs no lambda2; svrgcg does)
  fit0 <- matrix_sensing(Amat, b, tau, l1, dims = c(m, m), control = cg_control(max_iter = 50))
  expect_identical(fit0$method, "fw")
})

test_that("bad input to the linear problems is rejected by name", {
  M <- diag(3)
  expect_error(lowrank_constrained(M, list(), 1, 1), "`A` is an empty list")
  expect_error(lowrank_constrained(M, list(diag(3), diag(2)), c(1, 1), 1),
               "`A` matrices must all have the same dimensions")
  expect_error(lowrank_constrained(M, list(diag(3)), c(1, 2), 1), "`b` must have length 1")
  expect_error(matrix_sensing(matrix(1, 5, 9), rnorm(5), 1), "`dims` is required")
  expect_error(matrix_sensing(matrix(1, 5, 9), rnorm(5), 1, dims = c(2, 2)),
               "`dims` must be c\\(m, d\\)")
  expect_error(matrix_sensing(matrix(1, 5, 9), rnorm(5), 1, dims = c(3, 3), method = "svrgcg"),
               "`lambda2` must be positive")
  expect_error(matrix_sensing(matrix(1, 5, 9), rnorm(5), 1, lambda1 = -1, dims = c(3, 3)),
               "`lambda1` must be at least 0")
})

test_that("init: matrix_sensing's svrgcg resumed for k2 iterations equals one run of k1 + k2", {
  # the state: the snapshot point X_s (m x d doubles; its gradient over all
  # measurements is recomputed), the epoch and the position in it; the
  # inner minibatches of measurements continue the RNG stream
  set.seed(14)
  m <- 6; N <- 120
  X0 <- tcrossprod(rnorm(m), rnorm(m))
  Amat <- matrix(rnorm(N * m * m), N)
  b <- as.vector(Amat %*% as.vector(X0)) + rnorm(N, sd = 0.1)
  run <- function(k, init = NULL, lambda1 = 0.01)
    matrix_sensing(Amat, b, 0.8 * sum(svd(X0)$d), lambda1, 0.05, dims = c(m, m),
                   method = "svrgcg", inner = 6, batch_size = 20, init = init,
                   control = cg_control(max_iter = k, tol = 0, eval_every = 1L))
  # epochs of 5 inner iterations: 20 ends the 4th, 23 is inside the 5th
  fits <- expect_exact_resume(run, 20, 17, seed = 15, label = "epoch end")
  expect_identical(fits$first$state$state_loop[1:2], c(4, 5))
  expect_length(fits$first$state$state_Xs, m * m)
  expect_null(fits$first$state$state_gtil)
  fits <- expect_exact_resume(run, 23, 14, seed = 15, label = "mid-epoch")
  expect_identical(fits$first$state$state_loop[1:2], c(5, 3))
  # teeth: without the state, a new epoch from a new snapshot point
  warm <- warm_resume(run, 23, 14, seed = 15)
  expect_false(identical(warm$solution$X, fits$long$solution$X))
  expect_match(warm$notes, "^warm start from a fit of 23 iterations without a solver state")
  # another penalty: a warm start, whose note says why
  set.seed(15)
  expect_match(run(5, init = fits$first, lambda1 = 0.02)$notes,
               "^warm start from a fit of 23 iterations with other data or settings")
  expect_error(run(5, init = list()), "^`init` must be NULL or a fit of matrix_sensing\\(\\)$")
})

test_that("init: lowrank_constrained resumes exactly (svrgcg on a sampler, scgs)", {
  set.seed(16)
  d <- 10
  u <- rnorm(d); M <- tcrossprod(u) + matrix(rnorm(d * d, sd = 0.1), d)
  A <- lapply(1:3, function(i) { Z <- matrix(0, d, d); Z[i, i] <- 1; Z })
  for (method in c("svrgcg", "scgs")) {
    run <- function(k, init = NULL)
      lowrank_constrained(lowrank_sampler(M, 0.3), A, b = rep(0.2, 3), radius = sum(u^2),
                          method = method, inner = 5, init = init,
                          control = cg_control(max_iter = k, tol = 0, eval_every = 1L))
    fits <- expect_exact_resume(run, 14, 12, seed = 17, label = method)
    expect_false(identical(warm_resume(run, 14, 12, seed = 17)$solution$X,
                           fits$long$solution$X), label = method)
  }
})

test_that("matrix_sensing defaults without l1 solve a well-posed problem, certified, at its rank (audit 36, gap 6)", {
  # noise-free Gaussian measurements of a rank-2 matrix at radius ||M0||_*:
  # M0 is the unique minimizer (objective 0). Before the refit: max_iter
  # with relative gap 2, recovery error 3.8e-2, rank 8 of 8
  numrank <- function(X) { d <- svd(X, 0, 0)$d; sum(d > 1e-6 * d[1]) }
  set.seed(1)
  s <- svd(scale(state.x77))
  M0 <- s$u[, 1:2] %*% (s$d[1:2] * t(s$v[, 1:2]))
  A <- matrix(rnorm(250 * 400), 250)
  b <- drop(A %*% c(M0))
  fit <- matrix_sensing(A, b, radius = sum(s$d[1:2]), dims = c(50, 8))
  expect_true(fit$converged)
  expect_true(fit$refit$used)
  expect_gte(fit$gap, fit$objective - 0)                  # F* = 0
  expect_lte(fit$gap, 1e-6 * 1e-3 * fit$trace$objective[1])
  # the objective is exactly recomputed at the returned X
  expect_equal(fit$objective, 0.5 * mean((A %*% c(fit$solution$X) - b)^2))
  expect_lt(norm(fit$solution$X - M0, "F") / norm(M0, "F"), 1e-5)
  expect_identical(numrank(fit$solution$X), 2L)
  expect_identical(fit$certified_rank, 2L)
  expect_lte(sum(svd(fit$solution$X, 0, 0)$d), sum(s$d[1:2]) * (1 + 1e-8))
  out <- capture.output(print(fit))
  expect_false(any(grepl("smoothed", out)))                # lambda1 = 0: nothing is
  expect_match(out, "rank 2: X is the projected-gradient refit's point", all = FALSE)
  # the PSD set: a rank-2 PSD matrix from 150 measurements of 20 x 20
  set.seed(2)
  U <- matrix(rnorm(40), 20)
  P0 <- tcrossprod(U)
  A2 <- matrix(rnorm(150 * 400), 150)
  f2 <- matrix_sensing(A2, drop(A2 %*% c(P0)), radius = sum(diag(P0)), set = "psd",
                       dims = c(20, 20))
  expect_true(f2$converged)
  expect_lt(norm(f2$solution$X - P0, "F") / norm(P0, "F"), 1e-4)
  expect_identical(numrank(f2$solution$X), 2L)
  expect_gt(min(eigen(f2$solution$X, symmetric = TRUE, only.values = TRUE)$values), -1e-8)
  # with l1 (no refit) the smoothing line stays
  f3 <- matrix_sensing(A, b, radius = sum(s$d[1:2]), lambda1 = 1e-3, dims = c(50, 8),
                       control = cg_control(max_iter = 50))
  expect_null(f3$refit)
  expect_match(capture.output(print(f3)), "nonsmooth terms are smoothed", all = FALSE)
})
