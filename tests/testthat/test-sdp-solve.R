# sdp_solve(): the SDP template by CGAL, on problems with a closed-form
# optimum (MaxCut of the complete graph, no constraints), on the k-means SDP
# of planted clusters written as a generic SDP (inequality rows), and for
# bad input. The lower bound is certified: it must never exceed the optimum.

unit_diag <- function(n) lapply(seq_len(n), function(i) { E <- matrix(0, n, n); E[i, i] <- 1; E })

test_that("MaxCut SDP of the complete graph: value n^2 / 4, optimal X has X 1 = 0", {
  for (n in c(6, 9)) {
    W <- matrix(1, n, n) - diag(n)
    fit <- sdp_solve(W / 4, unit_diag(n), rep(1, n), trace_bound = n,
                     control = cg_control(max_iter = 5000))
    opt <- -n / 4                                    # min <W/4, X>
    expect_lte(abs(fit$objective - opt), 1e-3 * abs(opt))
    expect_lte(fit$lower_bound, opt + 1e-10)          # certified
    expect_gt(fit$lower_bound, opt - 0.02 * abs(opt))
    expect_lte(fit$infeasibility, 1e-2)
    X <- as.matrix(fit$solution$X)
    # <W/4, X> = (1'X1 - tr X) / 4: optimal iff X 1 = 0 (not unique)
    expect_lte(sqrt(sum((X %*% rep(1, n))^2)), 0.05 * n)
    expect_equal(sum(diag(X)), n, tolerance = 1e-10)
    expect_length(fit$dual, n)
  }
})

test_that("no constraints: alpha lambda_min(C) (trace =), 0 for psd C (trace <=)", {
  set.seed(1)
  B <- matrix(rnorm(100), 10); C <- B + t(B)
  fit <- sdp_solve(C, NULL, numeric(0), trace_bound = 2)
  expect_true(fit$converged)
  expect_equal(fit$objective, 2 * min(eigen(C, symmetric = TRUE)$values), tolerance = 1e-10)
  expect_lte(abs(fit$gap), 1e-8)
  f2 <- sdp_solve(C + 20 * diag(10), list(), numeric(0), trace_bound = 2, trace = "<=")
  expect_true(f2$converged)
  expect_equal(f2$objective, 0)
  expect_identical(length(f2$solution$X$d), 0L)
})

test_that("the k-means SDP as a generic SDP (n row sums, n^2 inequality rows) finds planted clusters", {
  set.seed(5)
  truth <- rep(1:2, c(5, 7))
  x <- rbind(c(0, 0), c(9, 0))[truth, ] + matrix(rnorm(24), 12)
  n <- nrow(x)
  D <- as.matrix(dist(x))^2
  rows <- lapply(seq_len(n), function(i) { E <- matrix(0, n, n); E[i, ] <- 1; E })  # (X 1)_i
  nonneg <- lapply(seq_len(n * n), function(e) { E <- matrix(0, n, n); E[e] <- -1; E })
  fit <- sdp_solve(D / 2, c(rows, nonneg), c(rep(1, n), rep(0, n * n)),
                   type = c(rep("=", n), rep("<=", n * n)), trace_bound = 2,
                   control = cg_control(max_iter = 20000, tol = 1e-6))
  Xs <- Reduce(`+`, lapply(1:2, function(c) { v <- as.numeric(truth == c); tcrossprod(v) / sum(v) }))
  cost <- sum(D * Xs) / 2
  expect_lte(abs(fit$objective - cost), 1e-2 * cost)
  expect_lte(fit$lower_bound, cost)
  expect_lte(max(abs(as.matrix(fit$solution$X) - Xs)), 1e-2)
  expect_true(all(fit$dual[-(1:n)] >= 0))             # inequality multipliers
  # the same problem through kmeans_sdp()
  set.seed(1)
  km <- kmeans_sdp(x, 2, control = cg_control(max_iter = 20000, tol = 1e-6))
  expect_lte(abs(km$objective - fit$objective), 1e-2 * cost)
})

test_that("constraints as a list or as an m x n^2 matrix give the same fit", {
  n <- 5
  W <- matrix(1, n, n) - diag(n)
  A <- unit_diag(n)
  M <- t(vapply(A, as.vector, numeric(n * n)))
  ctl <- cg_control(max_iter = 300)
  a <- sdp_solve(W / 4, A, rep(1, n), trace_bound = n, control = ctl)
  b <- sdp_solve(W / 4, M, rep(1, n), trace_bound = n, control = ctl)
  b2 <- sdp_solve(W / 4, Matrix::Matrix(M, sparse = TRUE), rep(1, n), trace_bound = n, control = ctl)
  expect_equal(a$objective, b$objective, tolerance = 1e-12)
  expect_equal(a$objective, b2$objective, tolerance = 1e-12)
})

test_that("bad input gives an error naming the argument", {
  n <- 4
  C <- diag(n); A <- unit_diag(n)
  expect_error(sdp_solve(matrix(1:6, 2), A, rep(1, n), trace_bound = 1), "`C` must be a square matrix")
  expect_error(sdp_solve(matrix(c(1, 2, 0, 1), 2), NULL, numeric(0), trace_bound = 1),
               "`C` must be symmetric")
  expect_error(sdp_solve(C, A, rep(1, 3), trace_bound = 1), "`b` must be 4 finite numbers")
  expect_error(sdp_solve(C, A, rep(1, n), type = ">=", trace_bound = 1), "`type` must be")
  expect_error(sdp_solve(C, A, rep(1, n), trace_bound = 0), "`trace_bound`")
  expect_error(sdp_solve(C, list(diag(3)), 1, trace_bound = 1),
               "`A` must hold 4 x 4 matrices \\(element 1 is 3 x 3\\)")
  expect_error(sdp_solve(C, matrix(0, 2, 5), c(1, 1), trace_bound = 1),
               "`A` must have n\\^2 = 16 columns")
  expect_error(sdp_solve(C, A, rep(1, n), trace_bound = 1, beta0 = 0), "`beta0`")
})

test_that("a random SDP with equality and inequality rows agrees with SCS to 1e-3", {
  skip_if_not_installed("scs")
  set.seed(11); n <- 8
  sym <- function() { B <- matrix(rnorm(n * n), n); (B + t(B)) / 2 }
  C <- sym(); Z <- matrix(rnorm(n * 3), n); X0 <- Z %*% t(Z); X0 <- X0 / sum(diag(X0))
  Eq <- replicate(3, sym(), simplify = FALSE); Iq <- replicate(4, sym(), simplify = FALSE)
  e <- vapply(Eq, function(M) sum(M * X0), 0)              # X0 is feasible
  g <- vapply(Iq, function(M) sum(M * X0), 0) + 0.1
  ref <- ref_sdp_scs(C, t(vapply(Eq, c, numeric(n * n))), e, t(vapply(Iq, c, numeric(n * n))), g, 2)
  expect_identical(ref$status, "solved")
  fit <- sdp_solve(C, c(Eq, Iq), c(e, g), type = rep(c("=", "<="), c(3, 4)), trace_bound = 2,
                   trace = "<=", control = cg_control(max_iter = 10000, tol = 0))
  expect_lte(abs(fit$objective - ref$value), 1e-3 * abs(ref$value))
  expect_lte(fit$lower_bound, ref$value + 1e-6)            # certified (SCS to 1e-8)
  expect_gt(fit$lower_bound, ref$value - 1e-2 * abs(ref$value))
  expect_lte(fit$infeasibility, 1e-3)
  expect_lte(max(abs(as.matrix(fit$solution$X) - ref$X)), 0.02)
})

test_that("infeasible constraints are certified: status \"infeasible\" with a warning", {
  # tr X = 1 and <I, X> = 5 cannot both hold
  expect_warning(fit <- sdp_solve(diag(3), list(diag(3)), 5, trace_bound = 1),
                 "the constraints cannot be met: the certified lower bound")
  expect_identical(fit$status, "infeasible")
  expect_false(fit$converged)
  expect_gt(fit$lower_bound, 1)                   # alpha lambda_max(C) = 1
  # a feasible problem never triggers it (the bound is certified)
  expect_silent(f2 <- sdp_solve(diag(3), list(diag(3)), 1, trace_bound = 1))
  expect_false(identical(f2$status, "infeasible"))
})

test_that("the solution's eigen-factors keep every eigenvalue above 1e-8 of the top one, n > 1000", {
  # psd_factors() takes the top eigenpairs by Lanczos beyond n = 1000,
  # doubling k from 50 while the last one is still above the cut
  set.seed(7)
  n <- 1001; r <- 70
  U <- qr.Q(qr(matrix(rnorm(n * r), n)))
  d <- seq(2, 1, length.out = r)
  lr <- stochcg:::psd_factors(U %*% (d * t(U)))
  expect_identical(ncol(lr$u), 70L)
  expect_equal(sort(lr$d), sort(d), tolerance = 1e-8)
})

# hsagcgm_v1 (paper 003, Alg. 1 Variant 1) in plain R, in sdp_solve's
# normalized units (C / ||C||_F, rows over ||A||, W = X / trace_bound, tr W
# = 1), for unit-diagonal rows diag X = 1: smoothing beta_k = beta0 /
# sqrt(k + 1), step 2 / (k + 1). `adapt` > 0: the adaptive beta0 of "auto"
# (cg_solve_homotopy): at k = 128, 256, ..., beta0 <- min(beta0, max(beta0
# / 4, adapt / ||y||)), y = (A W - b) / beta_(k-1).
ref_hsagcgm_v1 <- function(C, alpha, beta0, iters, adapt = 0) {
  n <- nrow(C)
  Cn <- C / sqrt(sum(C^2))                   # ||A|| = 1 for the unit-diagonal rows
  b <- rep(1 / alpha, n)
  W <- diag(n) / n
  check <- 128
  for (t in seq_len(iters) - 1) {
    k <- t + 1
    if (adapt > 0 && k == check) {
      y <- sqrt(sum((diag(W) - b)^2)) * sqrt(k) / beta0
      beta0 <- min(beta0, max(beta0 / 4, adapt / y))
      check <- 2 * check
    }
    V <- Cn + diag(diag(W) - b) * sqrt(k + 1) / beta0
    u <- eigen(V, symmetric = TRUE)$vectors[, n]
    W <- W + 2 / (k + 1) * (tcrossprod(u) - W)
  }
  list(X = alpha * W, beta0 = beta0)
}

test_that("hsagcgm_v1: a number is the paper's schedule, \"auto\" the documented adaptive beta0", {
  set.seed(3)
  n <- 6
  C <- crossprod(matrix(rnorm(n * n), n)) - 2 * diag(n)      # distinct eigenvalues
  E <- lapply(seq_len(n), function(i) { M <- matrix(0, n, n); M[i, i] <- 1; M })
  run <- function(beta0, iters) sdp_solve(C, E, rep(1, n), trace_bound = n, method = "hsagcgm_v1",
                                          beta0 = beta0, control = cg_control(max_iter = iters, tol = 0))
  X_of <- function(fit) as.matrix(fit$solution$X)
  fit <- run(0.05, 300)
  ref <- ref_hsagcgm_v1(C, n, 0.05, 300)
  expect_equal(X_of(fit), ref$X, tolerance = 1e-7)   # X keeps eigenvalues above 1e-8 of the top
  expect_identical(fit$beta0, 0.05)                          # a number stays fixed
  # "auto": starts at twice the pull rule 0.4 g^1.6, then c = 0.14 g over ||y||
  Cn <- C / sqrt(sum(C^2))
  v <- eigen(Cn, symmetric = TRUE)$vectors[, n]
  g <- sqrt(sum((diag(tcrossprod(v)) - 1 / n)^2))            # ||A'(A W1 - b)||, A' diagonal
  auto <- run("auto", 600)
  ref <- ref_hsagcgm_v1(C, n, 2 * 0.4 * g^1.6, 600, adapt = 0.14 * g)
  expect_equal(auto$beta0, ref$beta0, tolerance = 1e-10)
  expect_lt(auto$beta0, 2 * 0.4 * g^1.6)                     # it did adapt (downward)
  expect_equal(X_of(auto), ref$X, tolerance = 1e-7)
  expect_identical(X_of(run("auto", 600)), X_of(auto))      # deterministic
  # a check costs one pass over the rows: 600 gradients + checks at 128, 256, 512
  expect_equal(max(auto$trace$n_grad), 603)
})

test_that("hsagcgm_v1 with adaptive beta0 on the MaxCut SDP of K_8 (optimum -2): error below 0.01", {
  n <- 8
  W <- matrix(1, n, n) - diag(n)
  E <- lapply(seq_len(n), function(i) { M <- matrix(0, n, n); M[i, i] <- 1; M })
  fit <- sdp_solve(W / 4, E, rep(1, n), trace_bound = n, method = "hsagcgm_v1",
                   control = cg_control(max_iter = 1000, tol = 0))
  err <- abs(fit$objective + 2) / 2 + fit$infeasibility / sqrt(n)   # the bench's error
  expect_lt(err, 0.01)
})
