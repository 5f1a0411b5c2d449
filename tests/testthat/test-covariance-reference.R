# The reference for the eigenvalue-floored l1-penalized covariance (Xue, Ma
# and Zou 2012; ref_pd_sparse_cov and ref_covsp_kkt in helper-reference.R)
# checked against closed forms, weak duality and its own KKT conditions, so
# that the package's estimator can later be tested against it.

covsp_data <- function(p, n, seed, scale = 1) {
  set.seed(seed)
  X <- matrix(rnorm(n * p), n) %*% diag(sqrt(seq(0.2, 2, length.out = p)) * scale)
  X[, 2] <- X[, 1] + 0.3 * X[, 2]               # a strong correlation
  crossprod(scale(X, scale = FALSE)) / n
}

test_that("lambda = 0 gives the sample covariance with eigenvalues clipped at eps", {
  S <- covsp_data(8, 5, 1)                       # rank 4: the floor is active
  eps <- 0.1
  fit <- ref_pd_sparse_cov(S, 0, eps)
  e <- eigen(S, symmetric = TRUE)
  expected <- e$vectors %*% (pmax(e$values, eps) * t(e$vectors))
  expect_equal(fit$Sigma, expected, tolerance = 1e-8)
  expect_gte(min(eigen(fit$Sigma, symmetric = TRUE)$values), eps - 1e-12)
  expect_lte(fit$gap, 1e-10 * max(1, fit$objective))
})

test_that("lambda >= max |S_ij| (i != j) gives diag(S) with the floor", {
  S <- covsp_data(8, 20, 2, scale = 0.5)         # some variances below eps
  eps <- 0.2
  off <- S; diag(off) <- 0
  expect_true(any(diag(S) < eps))
  for (lam in c(1.01, 1.5) * max(abs(off))) {
    fit <- ref_pd_sparse_cov(S, lam, eps)
    expect_equal(fit$Sigma, diag(pmax(diag(S), eps)), tolerance = 1e-9)
    expect_true(all(fit$Sigma[row(S) != col(S)] == 0))   # exact zeros
  }
})

test_that("a 2 x 2 case solved by hand", {
  # S = [a c; c a] with c > lambda: soft-thresholding gives eigenvalues
  # a +- (c - lambda). If a - c + lambda < eps the floor binds along
  # (1, -1) / sqrt(2): Sigma = [d o; o d] with d - o = eps minimizing
  # (d - a)^2 + (o - c)^2 + 2 lambda o, so o = (a + c - eps - lambda) / 2,
  # d = eps + o, and the multiplier is Lambda = (d - a) [1 -1; -1 1] >= 0.
  a <- 1; cc <- 0.9; lam <- 0.1
  S <- matrix(c(a, cc, cc, a), 2)
  eps <- 0.5
  o <- (a + cc - eps - lam) / 2; d <- eps + o
  fit <- ref_pd_sparse_cov(S, lam, eps)
  expect_equal(fit$Sigma, matrix(c(d, o, o, d), 2), tolerance = 1e-9)
  expect_equal(fit$Lambda, (d - a) * matrix(c(1, -1, -1, 1), 2), tolerance = 1e-7)
  # floor inactive: the soft-thresholded S
  fit <- ref_pd_sparse_cov(S, lam, 0.1)
  expect_equal(fit$Sigma, matrix(c(a, cc - lam, cc - lam, a), 2), tolerance = 1e-9)
  # lambda >= |c|: diagonal
  fit <- ref_pd_sparse_cov(S, 0.95, eps)
  expect_identical(fit$Sigma[1, 2], 0)
  expect_equal(diag(fit$Sigma), c(a, a), tolerance = 1e-12)
})

test_that("weak duality: g(Lambda) <= P(Sigma) for any Lambda >= 0 and feasible Sigma", {
  S <- covsp_data(6, 4, 3)
  eps <- 0.1; lam <- 0.05
  set.seed(4)
  for (i in 1:20) {
    A <- matrix(rnorm(36), 6); Lambda <- tcrossprod(A[, 1:2]) * runif(1)
    B <- matrix(rnorm(36), 6); Sigma <- crossprod(B) / 6 + eps * diag(6)
    expect_lte(ref_covsp_dual(Lambda, S, lam, eps),
               ref_covsp_objective(Sigma, S, lam) + 1e-12)
  }
})

test_that("KKT conditions hold at the reference on random inputs (p > n and p < n)", {
  cases <- expand.grid(seed = 1:3, n = c(6, 40), lam = c(0.02, 0.1, 0.3))
  for (i in seq_len(nrow(cases))) {
    cs <- cases[i, ]
    S <- covsp_data(12, cs$n, cs$seed)
    eps <- 0.05
    fit <- ref_pd_sparse_cov(S, cs$lam, eps)
    info <- sprintf("seed %d n %d lambda %g", cs$seed, cs$n, cs$lam)
    expect_lte(fit$gap, 1e-10 * max(1, fit$objective))
    for (k in list(ref_covsp_kkt(fit$Sigma, S, cs$lam, eps, fit$Lambda),
                   ref_covsp_kkt(fit$Sigma, S, cs$lam, eps))) {
      expect_lte(k$floor, 1e-12)
      expect_lte(k$lambda_psd, 1e-10)
      expect_lte(k$complementary, 1e-8)
      expect_lte(max(k$diagonal, k$support, k$off_support), 1e-6)
      expect_identical(k$tiny, 0L)
    }
    # no feasible perturbation of the solution does better
    set.seed(i)
    for (j in 1:5) {
      E <- matrix(rnorm(144), 12) * 1e-3; E <- E + t(E)
      expect_gte(ref_covsp_objective(ref_proj_floor(fit$Sigma + E, eps), S, cs$lam),
                 fit$objective - 1e-10 * max(1, fit$objective))
    }
  }
})

test_that("the KKT check rejects wrong candidates", {
  S <- covsp_data(12, 6, 1)
  eps <- 0.05; lam <- 0.1
  fit <- ref_pd_sparse_cov(S, lam, eps)
  k <- ref_covsp_kkt(ref_proj_floor(S, eps), S, lam, eps)          # lambda ignored
  expect_gt(max(k$diagonal, k$support, k$off_support), 1e-3)
  wrong <- fit$Sigma; wrong[1, 2] <- wrong[2, 1] <- wrong[1, 2] + 1e-3
  k <- ref_covsp_kkt(wrong, S, lam, eps, fit$Lambda)
  expect_gt(max(k$support, k$off_support), 5e-4)
  k <- ref_covsp_kkt(ref_soft_off(S, lam), S, lam, eps)           # not feasible
  expect_gt(k$floor, 1e-3)
})

# ---- the sparse plus low-rank reference (ref_lowrank_sparse_cov,
# ref_lrsp_dual, ref_lrsp_kkt)

lrsp_data <- function(p, n, seed, k = 2) {
  set.seed(seed)
  B <- matrix(rnorm(p * k), p) * 1.5
  X <- matrix(rnorm(n * k), n) %*% t(B) +
    matrix(rnorm(n * p), n) %*% diag(sqrt(seq(0.3, 1, length.out = p)))
  cov(X)
}

test_that("lowrank+sparse reference: gamma >= lambda_max(S) gives L = 0 and the sparse estimator", {
  # L = 0 iff S - R* - gamma I <= 0; with R* >= eps I, S - R* <= S - eps I
  S <- lrsp_data(10, 8, 1)
  eps <- 0.05
  for (lam in c(0.05, 0.3)) {
    gam <- max(eigen(S, symmetric = TRUE, only.values = TRUE)$values)
    fit <- ref_lowrank_sparse_cov(S, gam, lam, eps)
    sp <- ref_pd_sparse_cov(S, lam, eps)
    expect_identical(max(abs(fit$L)), 0)
    expect_equal(fit$R, sp$Sigma, tolerance = 1e-9)
    expect_lte(fit$gap, 1e-10 * max(1, fit$objective))
  }
})

test_that("lowrank+sparse reference: lambda = 0 gives L = 0 and the floored S", {
  # R = proj_floor(S) makes L + R - S = V min(d - eps, 0) V' <= 0, so
  # S - R - gamma I <= 0 and L = 0 is optimal for every gamma > 0
  S <- lrsp_data(8, 5, 2)                        # rank 4: the floor binds
  for (gam in c(0.1, 2)) {
    fit <- ref_lowrank_sparse_cov(S, gam, 0, 0.1)
    expect_identical(max(abs(fit$L)), 0)
    expect_equal(fit$R, ref_proj_floor(S, 0.1), tolerance = 1e-9)
  }
})

test_that("lowrank+sparse reference: compound symmetry S = a I + b 11' solved by hand", {
  # Moving t 11' from L to R (diagonal free) saves gamma p t and costs
  # lambda p (p - 1) t. If gamma <= lambda (p - 1) and gamma <= b (p - 1):
  #   L = (b - gamma / (p - 1)) 11', R = (a + gamma / (p - 1)) I
  # (L = (S - R - gamma I)_+, S - L has off-diagonal gamma / (p - 1) <= lambda
  # so R is diagonal). If gamma >= lambda (p - 1) (and b > lambda): L = 0 and R
  # has diagonal a + b, off-diagonal b - lambda (then S - R - gamma I =
  # lambda 11' - (lambda + gamma) I <= 0). The floor binds in neither.
  p <- 6; a <- 1; b <- 0.5
  S <- a * diag(p) + b * matrix(1, p, p)
  J <- matrix(1, p, p)
  for (cs in list(c(0.3, 0.1), c(0.3, 0.3), c(1, 0.3), c(1, 0.1), c(2, 0.05))) {
    gam <- cs[1]; lam <- cs[2]
    fit <- ref_lowrank_sparse_cov(S, gam, lam, 0.05)
    if (gam <= lam * (p - 1)) {
      L <- (b - gam / (p - 1)) * J; R <- (a + gam / (p - 1)) * diag(p); rank <- 1L
    } else {
      L <- 0 * J; R <- (b - lam) * J + (a + lam) * diag(p); rank <- 0L
    }
    info <- sprintf("gamma %g lambda %g", gam, lam)
    expect_equal(fit$L, L, tolerance = 1e-9, info = info)
    expect_equal(fit$R, R, tolerance = 1e-9, info = info)
    expect_identical(fit$rank, rank, info = info)
    expect_equal(fit$objective, ref_lrsp_objective(L, R, S, gam, lam), tolerance = 1e-10,
                 info = info)
  }
})

test_that("lowrank+sparse reference: weak duality of the Fenchel point", {
  S <- lrsp_data(6, 4, 3)
  eps <- 0.1; lam <- 0.05; gam <- 0.5
  set.seed(5)
  for (i in 1:20) {
    A <- matrix(rnorm(36), 6); Lambda <- tcrossprod(A[, 1:2]) * runif(1)
    G <- matrix(rnorm(36), 6); G <- G + t(G)
    B <- matrix(rnorm(36), 6); R <- crossprod(B) / 6 + eps * diag(6)
    C <- matrix(rnorm(12), 6); L <- tcrossprod(C) * runif(1)
    expect_lte(ref_lrsp_dual(G, Lambda, S, gam, lam, eps),
               ref_lrsp_objective(L, R, S, gam, lam) + 1e-12)
  }
})

test_that("lowrank+sparse reference: KKT and certified gap on factor data (floor binding or not)", {
  cases <- list(c(p = 12, n = 8, seed = 2, gamma = 1, lambda = 0.1),
                c(p = 10, n = 40, seed = 1, gamma = 1, lambda = 0.2),
                c(p = 15, n = 60, seed = 3, gamma = 1, lambda = 0.3))
  eps <- 0.05
  for (cs in cases) {
    S <- lrsp_data(cs[["p"]], cs[["n"]], cs[["seed"]])
    fit <- ref_lowrank_sparse_cov(S, cs[["gamma"]], cs[["lambda"]], eps)
    info <- paste(names(cs), cs, collapse = " ")
    expect_lte(fit$gap, 1e-10 * max(1, fit$objective))
    expect_gte(fit$rank, 1L)                      # a factor part
    k <- ref_lrsp_kkt(fit$L, fit$R, S, cs[["gamma"]], cs[["lambda"]], eps)
    expect_lte(k$L_psd, 1e-12)
    expect_lte(k$L_step, 1e-8)
    expect_lte(k$floor, 1e-12)
    expect_lte(k$lambda_psd, 1e-10)
    expect_lte(max(k$diagonal, k$support, k$off_support), 1e-8)
    expect_identical(k$tiny, 0L)
    # no feasible perturbation does better
    set.seed(cs[["seed"]])
    p <- cs[["p"]]
    for (j in 1:5) {
      E <- matrix(rnorm(p * p), p) * 1e-3; E <- E + t(E)
      F <- matrix(rnorm(p * p), p) * 1e-3; F <- F + t(F)
      expect_gte(ref_lrsp_objective(ref_proj_floor(fit$L + E, 0), ref_proj_floor(fit$R + F, eps),
                                    S, cs[["gamma"]], cs[["lambda"]]),
                 fit$objective - 1e-10 * max(1, fit$objective))
    }
  }
  # the floor binds in the first case (p > n)
  S <- lrsp_data(12, 8, 2)
  fit <- ref_lowrank_sparse_cov(S, 1, 0.1, eps)
  expect_equal(min(eigen(fit$R, symmetric = TRUE, only.values = TRUE)$values), eps,
               tolerance = 1e-9)
})

test_that("lowrank+sparse KKT check rejects wrong candidates", {
  S <- lrsp_data(10, 40, 1)
  eps <- 0.05; gam <- 1; lam <- 0.2
  fit <- ref_lowrank_sparse_cov(S, gam, lam, eps)
  k <- ref_lrsp_kkt(0 * S, fit$R, S, gam, lam, eps)          # L dropped
  expect_gt(k$L_step, 1e-2)
  L2 <- fit$L * 1.01; R2 <- fit$R - 0.01 * fit$L               # same Sigma, split moved
  k <- ref_lrsp_kkt(L2, R2, S, gam, lam, eps)
  expect_gt(max(k$L_step, k$diagonal, k$support, k$off_support, k$floor), 1e-4)
  expect_gt(ref_lrsp_objective(L2, R2, S, gam, lam), fit$objective + 1e-8)
})
