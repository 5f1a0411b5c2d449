# Linearly constrained low-rank estimation (log-sum-exp smoothing) and
# matrix sensing with elastic net: reference solutions by FISTA on a much
# more finely smoothed objective; the fits must be within their duality gap
# plus both smoothing errors.

test_that("lowrank_constrained reaches the reference within gap + smoothing", {
  set.seed(11)
  d <- 12
  u <- rnorm(d); M <- tcrossprod(u) + matrix(rnorm(d * d, sd = 0.1), d)
  A <- lapply(1:4, function(i) { Z <- matrix(0, d, d); Z[i, i] <- 1; Z })
  b <- rep(0.3, 4)
  tau <- sum(u^2)
  Amat <- t(vapply(A, as.vector, numeric(d * d)))
  f_orig <- function(X) 0.5 * sum((X - M)^2) + max(Amat %*% as.vector(X) - b)
  mu_ref <- 1e-5
  grad <- function(X) {
    s <- as.vector(Amat %*% as.vector(X) - b) / mu_ref
    w <- exp(s - max(s)); w <- w / sum(w)
    X - M + matrix(crossprod(Amat, w), d)
  }
  ref <- ref_fista_nuclear(grad, f_orig, c(d, d), tau, L = 1 + 1 / mu_ref, iters = 20000)
  ref_err <- mu_ref * log(4)
  for (method in c("svrgcg", "fw", "scgs")) {
    fit <- lowrank_constrained(M, A, b, tau, method = method,
                               control = cg_control(max_iter = 3000, tol = 1e-8))
    expect_equal(fit$objective, f_orig(fit$solution$X), tolerance = 1e-10)
    expect_gte(fit$objective, ref$objective - ref_err - 1e-8)
    expect_lte(fit$objective - ref$objective, fit$gap + fit$mu * log(4) + ref_err + 1e-8)
  }
  # the list form and the matrix-of-vectorizations form agree
  f1 <- lowrank_constrained(M, A, b, tau, control = cg_control(max_iter = 50))
  f2 <- lowrank_constrained(M, Matrix::Matrix(Amat, sparse = TRUE), b, tau,
                            control = cg_control(max_iter = 50))
  expect_equal(f2$solution$X, f1$solution$X, tolerance = 1e-12)
})

test_that("matrix_sensing reaches the reference within gap + smoothing", {
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
  mu_ref <- 1e-6
  grad <- function(X) matrix(crossprod(Amat, Amat %*% as.vector(X) - b), m) / N +
    huber_grad(X, mu_ref, l1) + 2 * l2 * X
  L <- max(svd(Amat)$d)^2 / N + l1 / mu_ref + 2 * l2
  ref <- ref_fista_nuclear(grad, f_orig, c(m, m), tau, L, iters = 20000)
  ref_err <- l1 * m * m * mu_ref / 2
  for (method in c("svrgcg", "scg", "fw")) {
    set.seed(13)
    fit <- matrix_sensing(Amat, b, tau, l1, l2, dims = c(m, m), method = method,
                          eps = 1e-3,
                          control = cg_control(max_iter = 4000, tol = 1e-8, eval_every = 100))
    expect_equal(fit$objective, f_orig(fit$solution$X), tolerance = 1e-10)
    expect_gte(fit$objective, ref$objective - ref_err - 1e-8)
    expect_lte(fit$objective - ref$objective,
               fit$gap + l1 * m * m * fit$mu / 2 + ref_err + 1e-8)
  }
  # the theory step alpha / (2 beta) is very conservative here; a practical
  # step reaches the optimum of the smoothed problem to the gap tolerance
  set.seed(13)
  fit <- matrix_sensing(Amat, b, tau, l1, l2, dims = c(m, m), eps = 1e-3, eta = 0.05,
                        control = cg_control(max_iter = 4000, tol = 1e-8, eval_every = 10))
  expect_true(fit$converged)
  expect_lt(fit$objective - ref$objective, 1e-3 * ref$objective)
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
  expect_error(matrix_sensing(matrix(1, 5, 9), rnorm(5), 1, dims = c(3, 3)),
               "`lambda2` must be positive")
  expect_error(matrix_sensing(matrix(1, 5, 9), rnorm(5), 1, lambda1 = -1, dims = c(3, 3)),
               "`lambda1` must be at least 0")
})
