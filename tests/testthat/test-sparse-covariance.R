# covariance_raw(): the eigenvalue-floored l1 covariance (Xue, Ma and Zou
# 2012) and the low-rank plus sparse covariance, checked against the
# references of helper-reference.R (ref_pd_sparse_cov: ADMM with full
# eigendecompositions to a 1e-10 gap; ref_lowrank_sparse_cov: accelerated
# proximal steps with that ADMM as the prox, to a 1e-10 gap; both tested in
# test-covariance-reference.R), against closed forms, and for bad input.
#
# Tolerances. "tight" fits (control tol 1e-10) must match the reference to
# max |Sigma - ref| <= 1e-6 max |S| and its objective to 1e-8 relative.
# Fits with the default control must be converged and certified: their
# gap must bound their suboptimality (fit$gap >= fit$objective - ref
# objective), and since the objective is 1-strongly convex in Sigma (also
# for Sigma = L + R), ||Sigma - Sigma*||_F <= sqrt(2 gap), so
# ||Sigma - ref||_F <= sqrt(2 fit$gap) + sqrt(2 ref$gap).

tight <- cg_control(tol = 1e-10)
`%||%` <- function(a, b) if (is.null(a)) b else a

# n x p rows: a banded (AR-like) covariance with unequal variances, plus
# an optional column of tiny variance (`tiny` = its standard deviation)
cov_rows <- function(n, p, seed, tiny = NULL) {
  set.seed(seed)
  C <- toeplitz(0.6^(0:(p - 1)))
  X <- matrix(rnorm(n * p), n) %*% chol(C) %*% diag(sqrt(seq(0.5, 2, length.out = p)))
  if (!is.null(tiny)) X[, p] <- tiny * rnorm(n)
  X
}

# rows from a k-factor model with heteroscedastic noise
factor_rows <- function(n, p, seed, k = 2) {
  set.seed(seed)
  B <- matrix(rnorm(p * k), p) * 1.5
  matrix(rnorm(n * k), n) %*% t(B) +
    matrix(rnorm(n * p), n) %*% diag(sqrt(seq(0.3, 1, length.out = p)))
}

dense <- function(A) unname(as.matrix(A))
min_eig <- function(A) min(eigen(dense(A), symmetric = TRUE, only.values = TRUE)$values)
offdiag <- function(A) { A <- dense(A); A[row(A) != col(A)] }

# the storage rule of the contract: a Matrix is a dsCMatrix, otherwise a
# base matrix; symmetric either way
expect_cov_storage <- function(A, info = NULL) {
  if (inherits(A, "Matrix")) {
    expect_s4_class(A, "dsCMatrix")
  } else {
    expect_true(is.matrix(A) && is.double(A), info = info)
  }
  expect_identical(dense(A), t(dense(A)), info = info)
}

# cases: (n, p, seed, lambda, floor, binds); floor NULL = the default
# 0.01 mean(diag(S)); `binds` = whether the floor is active at the
# reference solution (checked below on the reference itself)
sparse_cases <- list(
  list(n = 40, p = 10, seed = 1, lambda = 0.05, floor = NULL, binds = FALSE),
  list(n = 60, p = 15, seed = 2, lambda = 0.2, floor = NULL, binds = FALSE),
  list(n = 8, p = 12, seed = 3, lambda = 0.02, floor = NULL, binds = TRUE),
  list(n = 8, p = 12, seed = 3, lambda = 0.1, floor = 0.2, binds = TRUE),
  list(n = 30, p = 20, seed = 4, lambda = 0.1, floor = 0.5, binds = TRUE),
  list(n = 100, p = 25, seed = 5, lambda = 0.3, floor = 0.05, binds = FALSE)
)
case_info <- function(cs) sprintf("n %d p %d seed %d lambda %g floor %s", cs$n, cs$p,
                                  cs$seed, cs$lambda, format(cs$floor %||% "default"))

test_that("sparse: agrees with the reference (floor binding or not), gap bounds suboptimality", {
  for (cs in sparse_cases) {
    info <- case_info(cs)
    X <- cov_rows(cs$n, cs$p, cs$seed)
    S <- cov(X)
    fit <- covariance_raw(X, cs$lambda, floor = cs$floor, control = tight)
    eps <- if (is.null(cs$floor)) 0.01 * mean(diag(S)) else cs$floor
    expect_equal(fit$floor, eps, tolerance = 1e-12, info = info)
    ref <- ref_pd_sparse_cov(S, cs$lambda, eps)
    # the case is what it claims to be
    if (cs$binds) {
      expect_equal(min_eig(ref$Sigma), eps, tolerance = 1e-9, info = info)
    } else {
      expect_gt(min_eig(ref$Sigma), eps * (1 + 1e-3))
    }
    expect_true(fit$converged, info = info)
    expect_identical(fit$structure, "sparse")
    expect_equal(fit$lambda, cs$lambda)
    expect_identical(fit$gamma, NA_real_)
    expect_identical(fit$nobs, as.integer(cs$n))
    expect_cov_storage(fit$solution$Sigma, info)
    expect_identical(coef(fit), fit$solution$Sigma)
    expect_lte(max(abs(dense(fit$solution$Sigma) - ref$Sigma)), 1e-6 * max(abs(S)))
    expect_equal(fit$objective, ref$objective, tolerance = 1e-8, info = info)
    expect_gte(fit$gap, fit$objective - ref$objective - 1e-12 * max(1, ref$objective))
    expect_lte(fit$gap, 1e-10 * max(1, abs(fit$objective)))
    # the stated objective of the returned Sigma
    expect_equal(fit$objective, ref_covsp_objective(dense(fit$solution$Sigma), S, cs$lambda),
                 tolerance = 1e-10, info = info)
    # KKT of the fit itself (multiplier fitted by ref_covsp_kkt)
    k <- ref_covsp_kkt(fit$solution$Sigma, S, cs$lambda, eps)
    expect_lte(k$floor, 1e-8 * eps)
    expect_lte(max(k$diagonal, k$support, k$off_support), 1e-6 * max(abs(S)))
    expect_identical(k$tiny, 0L)

    # default control: converged and certified
    fd <- covariance_raw(X, cs$lambda, floor = cs$floor)
    expect_true(fd$converged, info = info)
    expect_lte(fd$gap, 1e-6 * max(1, abs(fd$objective)))
    expect_gte(fd$gap, fd$objective - ref$objective - 1e-12 * max(1, ref$objective))
    expect_lte(norm(dense(fd$solution$Sigma) - ref$Sigma, "F"),
               sqrt(2 * max(fd$gap, 0)) + sqrt(2 * max(ref$gap, 0)) + 1e-12)
  }
})

test_that("sparse: positive definite above the floor, min_eigen certified", {
  for (cs in sparse_cases) {
    info <- case_info(cs)
    X <- cov_rows(cs$n, cs$p, cs$seed)
    for (ctl in list(tight, cg_control())) {
      fit <- covariance_raw(X, cs$lambda, floor = cs$floor, control = ctl)
      lmin <- min_eig(fit$solution$Sigma)
      expect_gte(lmin, fit$floor * (1 - 1e-8))
      expect_gte(fit$min_eigen, fit$floor)
      expect_lte(fit$min_eigen, lmin + 1e-10 * max(abs(cov(X))))
    }
  }
  # a floor far above the spectrum of S: Sigma = floor I + (what is above)
  X <- cov_rows(30, 8, 6)
  fit <- covariance_raw(X, 0.05, floor = 10, control = tight)
  expect_gte(min_eig(fit$solution$Sigma), 10 * (1 - 1e-8))
  ref <- ref_pd_sparse_cov(cov(X), 0.05, 10)
  expect_lte(max(abs(dense(fit$solution$Sigma) - ref$Sigma)), 1e-6 * 10)
})

test_that("sparse at p >> n: the floor binding in many directions from a cold start, the reference's solution", {
  # p = 150 > 32 (Lanczos, not LAPACK), one component, n = 10: the first dual
  # step starts from 2 pairs and grows k (cg_eigs_beyond, extrapolating the
  # count) to the 14-15 eigenvalues below the floor, each later step from
  # the last count; every pair below the floor must be found, or the
  # projection, and so the fit, differs from the reference's
  set.seed(21)
  n <- 10; p <- 150
  X <- matrix(rnorm(n * 4), n) %*% matrix(rnorm(4 * p), 4) + 0.5 * matrix(rnorm(n * p), n)
  X <- scale(X)
  S <- cov(X)
  lambda <- 0.4
  expect_identical(max(stochcg:::threshold_components(S, lambda)), 1L)
  for (eps in c(0.01, 0.05)) {
    ref <- ref_pd_sparse_cov(S, lambda, eps)
    # the case is what it claims: the floor binds in more than 10 directions
    expect_gt(sum(eigen(ref$Sigma, symmetric = TRUE, only.values = TRUE)$values <
                    eps * (1 + 1e-6)), 10L)
    fit <- covariance_raw(X, lambda, floor = eps, control = tight)
    expect_true(fit$converged)
    expect_gt(fit$dual_rank, 10L)
    expect_lte(max(abs(dense(fit$solution$Sigma) - ref$Sigma)), 1e-6 * max(abs(S)))
    expect_equal(fit$objective, ref$objective, tolerance = 1e-8)
    expect_gte(fit$gap, fit$objective - ref$objective - 1e-12 * max(1, ref$objective))
    expect_gte(min_eig(fit$solution$Sigma), eps * (1 - 1e-8))
  }
})

test_that("sparse: exact zeros where the reference has them, nonzeros where it has them", {
  for (cs in sparse_cases) {
    info <- case_info(cs)
    X <- cov_rows(cs$n, cs$p, cs$seed)
    S <- cov(X)
    eps <- if (is.null(cs$floor)) 0.01 * mean(diag(S)) else cs$floor
    ref <- ref_pd_sparse_cov(S, cs$lambda, eps)
    # the subgradient of the reference, G = Sigma - S - Lambda: a zero with
    # |G_ij| well inside lambda is a zero of every near-optimal dual point
    G <- ref$Sigma - S - ref$Lambda
    offd <- row(S) != col(S)
    zero_in <- offd & abs(ref$Sigma) < 1e-9 & abs(G) <= 0.9 * cs$lambda
    zero_deep <- offd & abs(ref$Sigma) < 1e-9 & abs(G) <= 0.5 * cs$lambda
    big <- offd & abs(ref$Sigma) > 1e-4 * max(abs(S))
    expect_gt(sum(zero_in), 0)                    # the case has zeros to check
    expect_gt(sum(big), 0)
    fit <- covariance_raw(X, cs$lambda, floor = cs$floor, control = tight)
    Sg <- dense(fit$solution$Sigma)
    expect_identical(sum(Sg[zero_in] != 0), 0L, info = info)
    expect_identical(sign(Sg[big]), sign(ref$Sigma[big]), info = info)
    fd <- covariance_raw(X, cs$lambda, floor = cs$floor)
    Sd <- dense(fd$solution$Sigma)
    expect_identical(sum(Sd[zero_deep] != 0), 0L, info = info)
    # what the fit reports as its sparsity
    expect_equal(fit$sparsity, mean(Sg[offd] == 0), tolerance = 1e-12)
  }
})

test_that("sparse: lambda >= max |S_ij| (i != j) gives diag(max(S_ii, floor)), stored sparse", {
  # KKT: Sigma = D = diag(max(S_ii, eps)) with Lambda = diag(max(eps - S_ii, 0))
  # >= 0, Lambda (D - eps I) = 0, G = D - S - Lambda zero on the diagonal and
  # -S_ij off it, |S_ij| <= lambda
  X <- cov_rows(30, 10, 7, tiny = 0.01)         # one variance far below the floor
  S <- cov(X)
  eps <- 0.01 * mean(diag(S))
  expect_lt(S[10, 10], eps / 10)                # the floor binds on it
  lam_max <- max(abs(offdiag(S)))
  for (lam in c(lam_max, 1.5 * lam_max, 1e6)) {
    for (ctl in list(tight, cg_control())) {
      fit <- covariance_raw(X, lam, control = ctl)
      Sg <- fit$solution$Sigma
      expect_s4_class(Sg, "dsCMatrix")            # p nonzeros of p^2
      expect_identical(sum(offdiag(Sg) != 0), 0L)
      expect_equal(diag(dense(Sg)), pmax(diag(S), eps), tolerance = 1e-10)
      expect_true(fit$converged)
      expect_equal(fit$sparsity, 1)
    }
  }
  # from a given covariance too, with the floor given
  fit <- covariance_raw(S, 2 * lam_max, n = 30, floor = 0.5)
  expect_identical(sum(offdiag(fit$solution$Sigma) != 0), 0L)
  expect_equal(diag(dense(fit$solution$Sigma)), pmax(diag(S), 0.5), tolerance = 1e-10)
})

test_that("sparse: the diagonal is not penalized", {
  # floor inactive: Lambda = 0, so G_ii = 0 gives Sigma_ii = S_ii and the
  # answer is S soft-thresholded off the diagonal (when that is above the
  # floor); with the floor active, Sigma_ii = S_ii + Lambda_ii >= S_ii
  for (cs in sparse_cases) {
    info <- case_info(cs)
    X <- cov_rows(cs$n, cs$p, cs$seed)
    S <- cov(X)
    fit <- covariance_raw(X, cs$lambda, floor = cs$floor, control = tight)
    Sg <- dense(fit$solution$Sigma)
    if (!cs$binds) {
      expect_equal(Sg, ref_soft_off(S, cs$lambda), tolerance = 1e-10, info = info)
      expect_equal(diag(Sg), diag(S), tolerance = 1e-12, info = info)
    } else {
      expect_true(all(diag(Sg) >= diag(S) - 1e-8 * max(abs(S))), info = info)
    }
  }
})

test_that("sparse: lambda = 0 gives the sample covariance with eigenvalues floored", {
  for (cs in list(c(n = 8, p = 12, seed = 8), c(n = 50, p = 10, seed = 9))) {
    X <- cov_rows(cs[["n"]], cs[["p"]], cs[["seed"]])
    S <- cov(X)
    e <- eigen(S, symmetric = TRUE)
    for (eps in list(NULL, 0.3)) {
      fl <- if (is.null(eps)) 0.01 * mean(diag(S)) else eps
      expected <- e$vectors %*% (pmax(e$values, fl) * t(e$vectors))
      fit <- covariance_raw(X, 0, floor = eps, control = tight)
      expect_false(inherits(fit$solution$Sigma, "Matrix"))   # dense
      expect_lte(max(abs(dense(fit$solution$Sigma) - expected)), 1e-6 * max(abs(S)))
      fd <- covariance_raw(X, 0, floor = eps)
      expect_true(fd$converged)
      expect_lte(norm(dense(fd$solution$Sigma) - expected, "F"), sqrt(2 * max(fd$gap, 0)) + 1e-10)
    }
  }
  # n > p and a floor below the spectrum: S itself
  X <- cov_rows(200, 6, 10)
  S <- cov(X)
  fit <- covariance_raw(X, 0, floor = 1e-3)
  expect_equal(dense(fit$solution$Sigma), S, tolerance = 1e-10)
})

test_that("sparse: a covariance input with n, and a dgCMatrix of rows, give the fit from the rows", {
  for (cs in sparse_cases[c(1, 3, 4)]) {
    info <- case_info(cs)
    X <- cov_rows(cs$n, cs$p, cs$seed)
    S <- cov(X)
    f_rows <- covariance_raw(X, cs$lambda, floor = cs$floor, control = tight)
    f_cov <- covariance_raw(S, cs$lambda, floor = cs$floor, n = cs$n, control = tight)
    expect_identical(f_cov$nobs, as.integer(cs$n))
    expect_equal(f_cov$floor, f_rows$floor, tolerance = 1e-12)
    expect_equal(dense(f_cov$solution$Sigma), dense(f_rows$solution$Sigma),
                 tolerance = 1e-8, info = info)
    expect_equal(f_cov$objective, f_rows$objective, tolerance = 1e-10, info = info)
  }
  # sparse rows
  X <- cov_rows(40, 12, 11)
  X[abs(X) < 0.8] <- 0
  Xs <- Matrix::Matrix(X, sparse = TRUE)
  expect_s4_class(Xs, "dgCMatrix")
  for (lam in c(0.02, 0.1)) {
    fd <- covariance_raw(X, lam, control = tight)
    fs <- covariance_raw(Xs, lam, control = tight)
    expect_equal(dense(fs$solution$Sigma), dense(fd$solution$Sigma), tolerance = 1e-8)
    expect_equal(fs$floor, fd$floor, tolerance = 1e-12)
    expect_lte(max(abs(dense(fs$solution$Sigma) -
                       ref_pd_sparse_cov(cov(X), lam, fd$floor)$Sigma)), 1e-6 * max(abs(cov(X))))
  }
  # column names carry over to Sigma, and none are made up
  expect_null(dimnames(covariance_raw(X, 0.1)$solution$Sigma))
  expect_null(dimnames(covariance_raw(X, 0.1, structure = "lowrank+sparse",
                                         gamma = 1)$solution$Sigma))
  colnames(X) <- paste0("v", 1:12)
  fit <- covariance_raw(X, 0.1)
  expect_identical(dimnames(fit$solution$Sigma), list(colnames(X), colnames(X)))
})

# ---- lowrank+sparse

lrsp_cases <- list(
  list(n = 40, p = 10, seed = 1, gamma = 1, lambda = 0.2, floor = 0.05),
  list(n = 8, p = 12, seed = 2, gamma = 1, lambda = 0.1, floor = 0.05),   # floor binds
  list(n = 60, p = 15, seed = 3, gamma = 1, lambda = 0.3, floor = 0.05),
  list(n = 60, p = 15, seed = 3, gamma = 2, lambda = 0.3, floor = NULL)
)
lrsp_info <- function(cs) sprintf("n %d p %d seed %d gamma %g lambda %g floor %s", cs$n, cs$p,
                                  cs$seed, cs$gamma, cs$lambda,
                                  format(cs$floor %||% "default"))

test_that("lowrank+sparse: agrees with the reference (Sigma, L, S), L PSD of the reference's rank", {
  for (cs in lrsp_cases) {
    info <- lrsp_info(cs)
    X <- factor_rows(cs$n, cs$p, cs$seed)
    S <- cov(X)
    fit <- covariance_raw(X, cs$lambda, structure = "lowrank+sparse", gamma = cs$gamma,
                             floor = cs$floor, control = tight)
    eps <- if (is.null(cs$floor)) 0.01 * mean(diag(S)) else cs$floor
    expect_equal(fit$floor, eps, tolerance = 1e-12)
    ref <- ref_lowrank_sparse_cov(S, cs$gamma, cs$lambda, eps)
    expect_gte(ref$rank, 1L)                      # the case has a factor part
    tol <- 1e-6 * max(abs(S))
    sol <- fit$solution
    expect_true(inherits(sol$L, "lowrank"))
    expect_false(inherits(sol$Sigma, "Matrix"))
    expect_cov_storage(sol$S, info)
    expect_lte(max(abs(dense(sol$Sigma) - ref$Sigma)), tol)
    expect_lte(max(abs(dense(sol$L) - ref$L)), tol)
    expect_lte(max(abs(dense(sol$S) - ref$R)), tol)
    expect_equal(dense(sol$Sigma), as.matrix(sol$L) + dense(sol$S), tolerance = 1e-12)
    expect_identical(coef(fit), sol$Sigma)
    # L: PSD, u = v, of the reference's rank
    expect_identical(sol$L$u, sol$L$v)
    expect_true(all(sol$L$d > 0))
    expect_identical(length(sol$L$d), ref$rank)
    expect_identical(fit$rank, ref$rank)
    expect_gte(min_eig(as.matrix(sol$L)), -1e-10 * max(abs(S)))
    # the sparse part above the floor, Sigma above min_eigen >= floor
    expect_gte(min_eig(sol$S), eps * (1 - 1e-8))
    expect_gte(fit$min_eigen, eps)
    expect_lte(fit$min_eigen, min_eig(sol$Sigma) + 1e-10 * max(abs(S)))
    # exact zeros of the sparse part where the reference's are deep
    G <- ref$L + ref$R - S - ref$Lambda
    zero_in <- row(S) != col(S) & ref$R == 0 & abs(G) <= 0.9 * cs$lambda
    expect_identical(sum(dense(sol$S)[zero_in] != 0), 0L, info = info)
    # objective and gap
    expect_identical(fit$structure, "lowrank+sparse")
    expect_equal(fit$gamma, cs$gamma)
    expect_equal(fit$objective, ref$objective, tolerance = 1e-8, info = info)
    expect_equal(fit$objective, ref_lrsp_objective(as.matrix(sol$L), dense(sol$S), S,
                                                   cs$gamma, cs$lambda), tolerance = 1e-10)
    expect_gte(fit$gap, fit$objective - ref$objective - 1e-12 * max(1, ref$objective))
    expect_true(fit$converged, info = info)
    # KKT of the fit itself: L optimal given R, R optimal given L
    k <- ref_lrsp_kkt(sol$L, sol$S, S, cs$gamma, cs$lambda, eps)
    expect_lte(max(k$L_step, k$diagonal, k$support, k$off_support), 1e-6 * max(abs(S)))
    expect_lte(k$floor, 1e-8 * eps)
    # from the covariance with n: the same fit
    fc <- covariance_raw(S, cs$lambda, structure = "lowrank+sparse", gamma = cs$gamma,
                            floor = cs$floor, n = cs$n, control = tight)
    expect_equal(dense(fc$solution$Sigma), dense(sol$Sigma), tolerance = 1e-8, info = info)
    expect_identical(fc$rank, fit$rank)
    # default control
    fd <- covariance_raw(X, cs$lambda, structure = "lowrank+sparse", gamma = cs$gamma,
                            floor = cs$floor)
    expect_true(fd$converged, info = info)
    expect_lte(fd$gap, 1e-6 * max(1, abs(fd$objective)))
    expect_gte(fd$gap, fd$objective - ref$objective - 1e-12 * max(1, ref$objective))
    expect_lte(norm(dense(fd$solution$Sigma) - ref$Sigma, "F"),
               sqrt(2 * max(fd$gap, 0)) + sqrt(2 * max(ref$gap, 0)) + 1e-12)
  }
})

test_that("lowrank+sparse at p >> n, floor binding: the reference's solution, the gap certified", {
  # n = 6, p = 40 on the correlation scale (S of rank 5): the floor binds,
  # the regime where the R steps' stopping test counts
  # the floor raise's cost to the outer certificate (delta tr(R - eps I),
  # about p / tr Lambda times its cost to the R step's own gap). The fit,
  # whatever its inner schedule, must reach the independent reference's
  # (plain R accelerated proximal gradient with full eigendecompositions):
  # Sigma = L + R is unique (1/2 ||L + R - S||^2 is 1-strongly convex in
  # the sum), so ||Sigma - Sigma_ref||_F <= sqrt(2 gap) + sqrt(2 gap_ref).
  X <- scale(factor_rows(6, 40, 4))
  S <- cov(X); eps <- 0.01; gam <- 8; lam <- 0.3
  ref <- ref_lowrank_sparse_cov(S, gam, lam, eps)
  expect_gte(ref$rank, 1L)
  expect_gte(sum(eigen(ref$R, symmetric = TRUE, only.values = TRUE)$values < eps * (1 + 1e-6)),
             2L)                                 # the floor binds
  for (ctl in list(cg_control(), tight)) {
    fit <- sparse_covariance(X, lam, structure = "lowrank+sparse", gamma = gam, floor = eps,
                             standardize = FALSE, shrink = 0, control = ctl)
    expect_true(fit$converged)
    expect_lte(fit$gap, (ctl$tol %||% 1e-6) * abs(fit$objective))
    # the gap bounds the fit's excess over the reference's objective
    expect_gte(fit$gap, fit$objective - ref$objective - 1e-12 * abs(ref$objective))
    expect_lte(norm(dense(fit$solution$Sigma) - ref$Sigma, "F"),
               sqrt(2 * fit$gap) + sqrt(2 * max(ref$gap, 0)) + 1e-12)
    expect_identical(fit$rank, ref$rank)
    expect_gte(fit$min_eigen, eps)
    expect_gte(min_eig(fit$solution$S), eps * (1 - 1e-8))
  }
  expect_lte(max(abs(dense(fit$solution$Sigma) - ref$Sigma)), 1e-6 * max(abs(S)))
})

test_that("lowrank+sparse at p >> n: every cut point is feasible and its gap a true bound", {
  # Runs cut after k outer steps (tol = 0: every evaluation also tries the
  # dual point W = R(Lambda) - S + Lr + delta Q + t I, Q on Lr's
  # eigenvectors, whose gap pays the floor raise delta on rank(Lr)
  # directions instead of p). The returned point must be feasible (its
  # sparse part's smallest eigenvalue, by eigen(), at least the floor), its
  # objective that of the stated problem at that point, and every trace
  # row's gap at least the row's objective less the independent reference's
  # optimum (ref_lowrank_sparse_cov, plain R with full eigendecompositions).
  X <- scale(factor_rows(6, 40, 4))
  S <- cov(X); eps <- 0.01; gam <- 8; lam <- 0.3
  ref <- ref_lowrank_sparse_cov(S, gam, lam, eps)
  raised <- 0L
  for (k in c(1:8, 12)) {
    info <- sprintf("max_iter %d", k)
    fit <- sparse_covariance(X, lam, structure = "lowrank+sparse", gamma = gam, floor = eps,
                             standardize = FALSE, shrink = 0,
                             control = cg_control(max_iter = k, tol = 0, eval_every = 1))
    R <- dense(fit$solution$S); L <- dense(fit$solution$L)
    lmin <- min_eig(R)
    expect_gte(lmin, eps * (1 - 1e-10))
    raised <- raised + (lmin <= eps * (1 + 1e-8))   # the floor raise was active
    expect_equal(fit$objective, ref_lrsp_objective(L, R, S, gam, lam), tolerance = 1e-10,
                 info = info)
    tr <- fit$trace
    expect_true(all(tr$gap >= tr$objective - ref$objective - 1e-12 * abs(ref$objective)),
                info = info)
    expect_gte(fit$gap, fit$objective - ref$objective - 1e-12 * abs(ref$objective))
  }
  expect_gte(raised, 3L)
})

test_that("lowrank+sparse at p >> n: a run stops only with its floor raise delta <= 1e-2 floor", {
  # The cheap dual point (delta Q on Lr's eigenvectors) certifies the
  # objective without paying the raise delta on all p directions; the R
  # steps must still end with delta <= 1e-2 eps (RAISE_FRAC in
  # src/prob_covariance.c), since delta raises every eigenvalue of the
  # estimate. Without that rule these two runs stopped at delta = 0.013 and
  # 0.016 eps (branch lrsrepair, 2616992). The point returned (R(Lambda) +
  # delta I, from the solver's own parts) must be feasible by eigen() and
  # its gap a true bound against the independent reference's optimum.
  eps <- 0.01; gam <- 8; lam <- 0.3; tol <- 1e-4
  for (seed in 4:5) {
    info <- sprintf("seed %d", seed)
    S <- cov(scale(factor_rows(6, 40, seed)))
    p <- nrow(S)
    spec <- list(problem = "covariance", method = "apg", S = S, lowrank = TRUE,
                 lambda = lam, gamma = gam, floor = eps, inner_tol = tol / 10,
                 max_inner = 500L, gap_goal = tol, max_rank = as.integer(p),
                 floor_cap = as.integer(p))
    fit <- stochcg:::cg_run(spec, stochcg:::as_control(cg_control(tol = tol)),
                            "sparse_covariance", NULL, stochcg:::wall_clock())
    expect_identical(fit$status, "converged", info = info)
    sol <- fit$solution
    expect_gte(length(sol$L_d), 1L)                   # the cheap point applies (L != 0)
    expect_lte(sol$delta, 1e-2 * eps, label = info)
    R <- as.matrix(Matrix::forceSymmetric(
      methods::new("dgCMatrix", i = sol$R_i, p = sol$R_p, x = sol$R_x, Dim = c(p, p)), "U"))
    Rf <- R + sol$delta * diag(p)
    expect_gte(min_eig(Rf), eps * (1 - 1e-10))
    L <- sol$L_u %*% (sol$L_d * t(sol$L_u))
    ref <- ref_lowrank_sparse_cov(S, gam, lam, eps)
    expect_equal(fit$objective, ref_lrsp_objective(L, Rf, S, gam, lam), tolerance = 1e-10,
                 info = info)
    expect_lte(fit$gap, tol * abs(fit$objective))
    expect_gte(fit$gap, fit$objective - ref$objective - 1e-12 * abs(ref$objective))
  }
})

test_that("lowrank+sparse: gamma >= lambda_max(S) gives L = 0 and the sparse estimate", {
  X <- factor_rows(40, 10, 12)
  S <- cov(X)
  gmax <- max(eigen(S, symmetric = TRUE, only.values = TRUE)$values)
  for (lam in c(0.05, 0.3)) {
    fs <- covariance_raw(X, lam, control = tight)
    for (gam in c(gmax, 10 * gmax)) {
      fit <- covariance_raw(X, lam, structure = "lowrank+sparse", gamma = gam,
                               control = tight)
      expect_identical(fit$rank, 0L)
      expect_length(fit$solution$L$d, 0L)
      expect_identical(max(abs(as.matrix(fit$solution$L))), 0)
      expect_lte(max(abs(dense(fit$solution$Sigma) - dense(fs$solution$Sigma))),
                 1e-6 * max(abs(S)))
      expect_lte(max(abs(dense(fit$solution$S) - dense(fs$solution$Sigma))),
                 1e-6 * max(abs(S)))
      expect_equal(fit$objective, fs$objective, tolerance = 1e-8)
    }
  }
})

test_that("lowrank+sparse: compound symmetry S = a I + b 11' (closed form, as a covariance)", {
  # see test-covariance-reference.R: gamma <= lambda (p - 1), b (p - 1) gives
  # L = (b - gamma / (p - 1)) 11', R = (a + gamma / (p - 1)) I
  p <- 6; a <- 1; b <- 0.5
  S <- a * diag(p) + b * matrix(1, p, p)
  for (cs in list(c(0.3, 0.1), c(1, 0.3))) {
    gam <- cs[1]; lam <- cs[2]
    fit <- covariance_raw(S, lam, structure = "lowrank+sparse", gamma = gam, n = 50,
                             floor = 0.05, control = tight)
    expect_lte(max(abs(as.matrix(fit$solution$L) - (b - gam / (p - 1)))), 1e-6)
    expect_lte(max(abs(dense(fit$solution$S) - (a + gam / (p - 1)) * diag(p))), 1e-6)
    expect_identical(sum(offdiag(fit$solution$S) != 0), 0L)
    expect_s4_class(fit$solution$S, "dsCMatrix")   # diagonal: p nonzeros of p^2
    expect_identical(fit$rank, 1L)
    expect_identical(fit$nobs, 50L)
  }
})

# ---- cross-validation (tiny: p = 8, n = 60, folds = 3)
# The column names of fit$cv, in one place:
cv_col_lambda <- "lambda"     # the penalty value of the row
cv_col_gamma <- "gamma"       # the trace penalty ("lowrank+sparse")
cv_col_loglik <- "loglik"     # mean held-out Gaussian log-likelihood
cv_cols_volatile <- character(0)   # columns allowed to differ between runs (timings)

test_that("CV: reproducible, picks the grid value of largest held-out log-likelihood", {
  X <- cov_rows(60, 8, 13)
  S <- cov(X)
  run <- function(...) { set.seed(3); covariance_raw(X, folds = 3, ...) }
  a <- run(); b <- run()
  expect_false(is.null(a$cv))
  expect_identical(a$lambda, b$lambda)
  keep <- setdiff(names(a$cv), cv_cols_volatile)
  expect_identical(a$cv[keep], b$cv[keep])
  expect_identical(dense(a$solution$Sigma), dense(b$solution$Sigma))
  cv <- a$cv
  expect_true(all(c(cv_col_lambda, cv_col_loglik) %in% names(cv)))
  expect_true(any(abs(cv[[cv_col_lambda]] - a$lambda) <= 1e-12 * max(1, a$lambda)))
  best <- cv[[cv_col_lambda]][which.max(cv[[cv_col_loglik]])]
  expect_equal(a$lambda, best, tolerance = 1e-12)
  ll <- cv[[cv_col_loglik]]                      # NA where a fold path stopped early
  expect_true(all(is.finite(ll[!is.na(ll)])))
  expect_gte(sum(!is.na(ll)), 2L)
  expect_gt(length(unique(cv[[cv_col_lambda]])), 1L)
  # the documented default grid starts where the estimate is diagonal,
  # max |S_ij| (i != j)
  expect_gte(max(cv[[cv_col_lambda]]), max(abs(offdiag(S))) * (1 - 1e-12))
  # the final fit is the single fit at the chosen lambda on all rows (both
  # within their certified gaps of the one optimum)
  f1 <- covariance_raw(X, a$lambda)
  expect_null(f1$cv)
  expect_true(a$converged)
  expect_lte(norm(dense(a$solution$Sigma) - dense(f1$solution$Sigma), "F"),
             sqrt(2 * max(a$gap, 0)) + sqrt(2 * max(f1$gap, 0)) + 1e-12)
  # a numeric vector: CV over exactly those values
  grid <- c(0.3, 0.01, 0.1, 0.03)
  v <- run(lambda = grid)
  expect_setequal(unique(v$cv[[cv_col_lambda]]), grid)
  expect_true(v$lambda %in% grid)
  expect_equal(v$lambda, v$cv[[cv_col_lambda]][which.max(v$cv[[cv_col_loglik]])])
  # a different seed may split differently, but the choice is still in the grid
  set.seed(4)
  expect_true(covariance_raw(X, grid, folds = 3)$lambda %in% grid)
  # lowrank+sparse over given vectors: the pairs CV'd are the grid, the
  # chosen pair the best of them
  w <- run(lambda = c(0.3, 0.05), structure = "lowrank+sparse", gamma = c(5, 1))
  wc <- w$cv
  expect_true(all(c(cv_col_lambda, cv_col_gamma, cv_col_loglik) %in% names(wc)))
  expect_setequal(unique(wc[[cv_col_lambda]]), c(0.3, 0.05))
  expect_setequal(unique(wc[[cv_col_gamma]]), c(5, 1))
  i <- which.max(wc[[cv_col_loglik]])
  expect_equal(c(w$lambda, w$gamma), c(wc[[cv_col_lambda]][i], wc[[cv_col_gamma]][i]))
  expect_identical(w$structure, "lowrank+sparse")
})

test_that("CV needs the rows: a covariance input with lambda = \"cv\" or a vector is an error", {
  X <- cov_rows(60, 8, 13)
  S <- cov(X)
  expect_error(covariance_raw(S, n = 60), "^`lambda`")
  expect_error(covariance_raw(S, "cv", n = 60), "^`lambda`")
  expect_error(covariance_raw(S, c(0.1, 0.2), n = 60), "^`lambda`")
  expect_error(covariance_raw(S, 0.1, structure = "lowrank+sparse", n = 60), "^`gamma`")
})

# ---- bad input: each error names the argument (stop_arg: "`arg` ...")

test_that("bad input gives an error naming the argument", {
  X <- cov_rows(20, 6, 14)
  S <- cov(X)
  Xna <- X; Xna[3, 2] <- NA
  Xinf <- X; Xinf[1, 1] <- Inf
  Xnan <- X; Xnan[2, 2] <- NaN
  Sns <- S; Sns[1, 2] <- Sns[1, 2] + 0.5
  bad <- list(
    list(quote(covariance_raw(Xna, 0.1)), "^`data`"),
    list(quote(covariance_raw(Xinf, 0.1)), "^`data`"),
    list(quote(covariance_raw(Xnan, 0.1)), "^`data`"),
    list(quote(covariance_raw(matrix("a", 5, 3), 0.1)), "^`data`"),
    list(quote(covariance_raw(X[1, , drop = FALSE], 0.1)), "^`data`"),
    list(quote(covariance_raw(X, -0.1)), "^`lambda`"),
    list(quote(covariance_raw(X, NA)), "^`lambda`"),
    list(quote(covariance_raw(X, Inf)), "^`lambda`"),
    list(quote(covariance_raw(X, "auto")), "^`lambda`"),
    list(quote(covariance_raw(X, c(0.1, -1))), "^`lambda`"),
    list(quote(covariance_raw(X, 0.1, floor = -1)), "^`floor`"),
    list(quote(covariance_raw(X, 0.1, floor = 0)), "^`floor`"),
    list(quote(covariance_raw(X, 0.1, floor = NA)), "^`floor`"),
    list(quote(covariance_raw(X, 0.1, floor = c(1, 2))), "^`floor`"),
    list(quote(covariance_raw(X, 0.1, structure = "sparce")), "^`structure`"),
    list(quote(covariance_raw(X, 0.1, structure = "lowrank")), "^`structure`"),
    list(quote(covariance_raw(X, 0.1, gamma = 1)), "^`gamma`"),
    list(quote(covariance_raw(X, 0.1, structure = "lowrank+sparse", gamma = -1)),
         "^`gamma`"),
    list(quote(covariance_raw(X, 0.1, structure = "lowrank+sparse", gamma = NA)),
         "^`gamma`"),
    list(quote(covariance_raw(S[, -1], 0.1, n = 20)), "^`data`"),
    list(quote(covariance_raw(Sns, 0.1, n = 20)), "^`data`"),
    list(quote(covariance_raw(S - diag(10, 6), 0.1, n = 20)), "^`data`"),   # variances < 0
    list(quote(covariance_raw(matrix(1, 5, 3), 0.1)), "^`(data|floor)`"),   # default floor 0
    list(quote(covariance_raw(S, 0.1, n = 1)), "^`n`"),
    list(quote(covariance_raw(S, 0.1, n = 0)), "^`n`"),
    list(quote(covariance_raw(S, 0.1, n = 2.5)), "^`n`"),
    list(quote(covariance_raw(S, 0.1, n = NA)), "^`n`"),
    list(quote(covariance_raw(X, folds = 1)), "^`folds`"),
    list(quote(covariance_raw(X, folds = 21)), "^`data` has 20 rows, fewer than the 21 folds"),
    list(quote(covariance_raw(X, c(0.1, 0.2), folds = 0)), "^`folds`"),
    list(quote(covariance_raw(X, cores = 0)), "^`cores`"),
    list(quote(covariance_raw(X, cores = 1.5)), "^`cores`"),
    list(quote(covariance_raw(X, cores = NA)), "^`cores`"),
    list(quote(covariance_raw(X, cores = "2")), "^`cores`"),
    list(quote(covariance_raw(X, 0.1, cores = c(1, 2))), "^`cores`"),
    list(quote(covariance_raw(X, 0.1, control = list(tol = -1))), "^`tol`"),
    list(quote(covariance_raw(X, 0.1, control = "a")), "^`control`")
  )
  for (case in bad) {
    expect_error(eval(case[[1]]), case[[2]], info = deparse(case[[1]], width.cutoff = 200L)[1])
  }
})

test_that("gamma = \"cv\" (the contract's default) is accepted and unused for \"sparse\"", {
  X <- cov_rows(20, 6, 15)
  expect_identical(dense(covariance_raw(X, 0.1, gamma = "cv")$solution$Sigma),
                   dense(covariance_raw(X, 0.1)$solution$Sigma))
})

test_that("single fits leave the RNG state and options alone", {
  X <- cov_rows(8, 12, 16)                       # floor binding: eigensolver used
  set.seed(17)
  seed <- .Random.seed
  opts <- options()
  fit <- covariance_raw(X, 0.02)
  fit2 <- covariance_raw(X, 0.1, structure = "lowrank+sparse", gamma = 1)
  expect_identical(.Random.seed, seed)
  expect_identical(options(), opts)
  expect_equal(min_eig(fit$solution$Sigma), fit$floor, tolerance = 1e-6)   # it binds
})

# ---- "sparse" splits over the connected components of |S_ij| > lambda

# labels by breadth-first search in R (the reference for the C union-find)
ref_components <- function(S, lambda) {
  A <- abs(S) > lambda
  diag(A) <- FALSE
  lab <- integer(nrow(S)); k <- 0L
  for (s in seq_len(nrow(S))) {
    if (lab[s]) next
    k <- k + 1L; lab[s] <- k; queue <- s
    while (length(queue)) {
      nb <- which(A[queue[1L], ] & lab == 0L)
      lab[nb] <- k; queue <- c(queue[-1L], nb)
    }
  }
  lab
}

test_that("components of the thresholded graph match a breadth-first search", {
  set.seed(11)
  for (p in c(1, 2, 7, 40)) {
    B <- matrix(rnorm(p * p), p); S <- (B + t(B)) / 2
    for (lambda in c(0, 0.8, 1.5, 2.5, Inf)) {
      expect_identical(stochcg:::threshold_components(S, lambda), ref_components(S, lambda),
                       info = sprintf("p %d lambda %g", p, lambda))
    }
  }
  # entries equal to lambda are not edges (|S_ij| > lambda); integer input
  S <- matrix(c(2L, 1L, 0L, 1L, 2L, 1L, 0L, 1L, 2L), 3)
  expect_identical(stochcg:::threshold_components(S, 1), 1:3)
  expect_identical(stochcg:::threshold_components(S, 0.5), rep(1L, 3))
})

# two correlated groups (6 and 5 variables), 3 weak independent variables and
# a constant column (zero variance, below the floor): 5 components at lambda 0.3
split_rows <- function(seed) {
  set.seed(seed)
  g1 <- matrix(rnorm(12 * 6), 12) %*% chol(toeplitz(0.7^(0:5)))
  g2 <- matrix(rnorm(12 * 5), 12) %*% chol(toeplitz((-0.6)^(0:4)))
  cbind(g1, 0.3 * matrix(rnorm(12 * 3), 12), g2, 5)
}

test_that("sparse: the split fit solves the whole problem (reference, KKT, objective of Sigma)", {
  X <- split_rows(3)
  S <- cov(X); p <- ncol(X)
  for (lambda in c(0.3, 0.6)) {
    info <- sprintf("lambda %g", lambda)
    lab <- ref_components(S, lambda)
    expect_gt(max(lab), 1L)                    # the case splits
    fit <- covariance_raw(X, lambda, floor = 0.2, control = tight)
    expect_identical(unname(fit$components),
                     c(max(lab), max(tabulate(lab)), sum(tabulate(lab) == 1L)), info = info)
    ref <- ref_pd_sparse_cov(S, lambda, 0.2)
    expect_true(fit$converged, info = info)
    expect_lte(max(abs(dense(fit$solution$Sigma) - ref$Sigma)), 1e-6 * max(abs(S)))
    expect_equal(fit$objective, ref$objective, tolerance = 1e-8, info = info)
    expect_equal(fit$objective, ref_covsp_objective(dense(fit$solution$Sigma), S, lambda),
                 tolerance = 1e-10, info = info)
    expect_gte(fit$gap, fit$objective - ref$objective - 1e-12 * ref$objective)
    expect_equal(fit$trace$objective[nrow(fit$trace)], fit$objective)
    expect_equal(fit$trace$gap[nrow(fit$trace)], fit$gap)
    # exact zeros between components, the constant column floored
    Sg <- dense(fit$solution$Sigma)
    expect_true(all(Sg[outer(lab, lab, "!=")] == 0), info = info)
    expect_identical(Sg[p, p], 0.2)
    expect_equal(fit$min_eigen, min_eig(Sg), tolerance = 1e-8)
    expect_cov_storage(fit$solution$Sigma, info)
    # the unsplit solver on the whole matrix agrees
    whole <- stochcg:::covariance_solve(S, lambda, NULL, "sparse", 0.2, tight)
    expect_lte(max(abs(dense(whole$solution$Sigma) - Sg)), 1e-6 * max(abs(S)))
    # the dual (warm start) is block diagonal and includes the floored constant column
    W <- fit$warm$dual_v %*% (fit$warm$dual_d * t(fit$warm$dual_v))
    expect_true(all(abs(W[outer(lab, lab, "!=")]) < 1e-12), info = info)
    expect_equal(W[p, p], 0.2 - S[p, p])
  }
})

test_that("sparse: the S statistics computed once (CV folds) give the per-fit numbers", {
  # covariance_S_stats(): fingerprint and sum(S^2) of the fits of one S;
  # the objective of a split fit adds 1/2 S_ij^2 between components from it
  X <- split_rows(5)
  S <- cov(X)
  st <- stochcg:::covariance_S_stats(S)
  expect_identical(st$sumsq(), sum(S^2))
  for (lambda in c(0.3, 0.6)) {
    a <- stochcg:::covariance_fit(S, lambda, NULL, "sparse", 0.2, tight)
    b <- stochcg:::covariance_fit(S, lambda, NULL, "sparse", 0.2, tight, S_stats = st)
    expect_gt(a$components[1], 1)
    expect_identical(b$objective, a$objective)
    expect_identical(b$gap, a$gap)
    expect_identical(b$trace$objective, a$trace$objective)
    expect_identical(b$solution$Sigma, a$solution$Sigma)
    expect_identical(b$state$key, a$state$key)
    # (a wrong sum would move the objective by half the error)
    off <- st; off$sumsq <- function() sum(S^2) + 2
    c2 <- stochcg:::covariance_fit(S, lambda, NULL, "sparse", 0.2, tight, S_stats = off)
    expect_equal(c2$objective - a$objective, 1, tolerance = 1e-12)
  }
})

test_that("sparse: a warm start across a change of components gives the cold fit", {
  X <- split_rows(4)
  S <- cov(X)
  # a dense dual from a small lambda (one component) warm-starts a split fit
  f1 <- stochcg:::covariance_fit(S, 0.05, NULL, "sparse", 0.3, tight)
  expect_equal(unname(f1$components %||% c(1, ncol(X), 0))[1], max(ref_components(S, 0.05)))
  for (lambda in c(0.3, 0.6)) {
    cold <- stochcg:::covariance_fit(S, lambda, NULL, "sparse", 0.3, tight)
    warm <- stochcg:::covariance_fit(S, lambda, NULL, "sparse", 0.3, tight, warm = f1$warm)
    expect_true(warm$converged)
    expect_lte(max(abs(dense(warm$solution$Sigma) - dense(cold$solution$Sigma))),
               1e-6 * max(abs(S)))
  }
})

test_that("sparse: the screened soft-threshold pass (floor binding, few candidates) matches the reference", {
  # AR(1) rows, lambda well above most |S_ij| and a floor that binds: the
  # pass computes (S + Lambda)_ij only where |S_ij| + s_i s_j >= lambda
  # (s_i^2 = sum_k |d_k| V_ik^2 of the dual V diag(d) V'), skipping the
  # others as exact zeros; here most entries are skipped
  set.seed(11)
  n <- 200; p <- 80
  X <- matrix(rnorm(n * p), n) %*% chol(toeplitz(0.85^(0:(p - 1))))
  S <- cov(X); lambda <- 0.45; eps <- 0.6
  fit <- covariance_raw(X, lambda, floor = eps, control = tight)
  expect_true(fit$converged)
  # the case is what it claims: the floor binds, one component, and the
  # screen keeps under a quarter of the entries (the screened branch)
  expect_gt(fit$dual_rank, 0L)
  V <- fit$warm$dual_v; d <- fit$warm$dual_d
  s <- sqrt(rowSums(sweep(V^2, 2L, abs(d), `*`)))
  expect_lt(mean(abs(S) + outer(s, s) >= lambda), 0.25)
  ref <- ref_pd_sparse_cov(S, lambda, eps)
  expect_equal(min_eig(ref$Sigma), eps, tolerance = 1e-9)
  expect_lte(max(abs(dense(fit$solution$Sigma) - ref$Sigma)), 1e-6 * max(abs(S)))
  expect_equal(fit$objective, ref$objective, tolerance = 1e-8)
  expect_gte(fit$gap, fit$objective - ref$objective - 1e-12 * max(1, ref$objective))
  expect_gte(fit$min_eigen, eps * (1 - 1e-12))
})

test_that("max_time is kept inside a step: a Lanczos run past it stops, the fit is certified", {
  # a time limit already spent when the first step starts: without the
  # deadline inside the eigen-solves the first step (its Lanczos runs) would
  # complete (iterations 1); with it the step is cut at its first product
  set.seed(3)
  n <- 20; p <- 120
  X <- matrix(rnorm(n * p), n); X[, 2:p] <- X[, 2:p] + 0.9 * X[, 1]
  for (structure in c("sparse", "lowrank+sparse")) {
    gamma <- if (structure == "sparse") NULL else 5
    full <- covariance_raw(X, 0.3, structure, gamma = gamma)
    expect_true(full$converged, info = structure)
    expect_gt(full$iterations, 0L)
    cut <- covariance_raw(X, 0.3, structure, gamma = gamma,
                             control = cg_control(max_time = 1e-6))
    expect_identical(cut$status, "max_time", info = structure)
    expect_false(cut$converged)
    expect_identical(cut$iterations, 0L, info = structure)
    expect_match(cut$message, "reached max_time", fixed = TRUE)   # not an error
    # the start point, certified: finite objective and gap bounding its
    # distance to the optimum, positive definite above the floor
    expect_true(is.finite(cut$objective) && is.finite(cut$gap))
    expect_gte(cut$gap, cut$objective - full$objective - 1e-8 * abs(full$objective))
    expect_gte(cut$min_eigen, cut$floor * (1 - 1e-12))
    expect_gte(min_eig(cut$solution$Sigma), cut$floor * (1 - 1e-8))
  }
})

test_that("the floor's rank cap: exactly cap directions fit, cap + 1 is an error naming it", {
  # lambda = 0: the answer is S with its eigenvalues raised to the floor, the
  # dual eps - ev over the 41 eigenvalues below it (distinct, p = 100: the
  # Lanczos path, k doubling 2, 4, ..., 32, then cap + 1)
  set.seed(5)
  p <- 100
  Q <- qr.Q(qr(matrix(rnorm(p * p), p)))
  ev <- c(seq(0.001, 0.008, length.out = 41), seq(1, 3, length.out = 59))
  S <- Q %*% (ev * t(Q)); S <- (S + t(S)) / 2
  eps <- 0.01
  run <- function(cap) {
    spec <- list(problem = "covariance", method = "dual_apg", S = S, lowrank = FALSE,
                 lambda = 0, gamma = 0, floor = eps, inner_tol = 1e-7, max_inner = 500L,
                 gap_goal = 1e-6, max_rank = as.integer(cap))
    suppressWarnings(stochcg:::cg_run(spec, stochcg:::as_control(cg_control()),
                                      "sparse_covariance", NULL, stochcg:::wall_clock()))
  }
  ok <- run(41)
  expect_identical(ok$status, "converged")
  expect_equal(sort(ok$solution$dual_d), sort(eps - ev[1:41]), tolerance = 1e-8)
  over <- run(40)
  expect_identical(over$status, "error")
  expect_match(over$message, "the floor is active in more than 40 directions", fixed = TRUE)
  # the 42nd eigenvalue just above the floor (by 1e-9): cap = 41 still fits,
  # with the same pairs, and cap = 40 is still an error
  ev2 <- c(ev[1:41], eps * (1 + 1e-7), ev[43:p])
  S <- Q %*% (ev2 * t(Q)); S <- (S + t(S)) / 2
  edge <- run(41)
  expect_identical(edge$status, "converged")
  expect_equal(sort(edge$solution$dual_d), sort(eps - ev2[1:41]), tolerance = 1e-8)
  expect_identical(run(40)$status, "error")
})

test_that("sparse: every trace row certifies its point, bounded rows and a run cut by max_iter included", {
  # Evaluations that cannot stop the run take lambda_min(R(Lambda)) from
  # Weyl's inequality on the last Lanczos value (no eigen-solve): the point
  # gets a larger diagonal raise, so each row's objective is that of a
  # feasible point and its gap must still bound the suboptimality. p = 70 >
  # 2 (rank + 2) + 20, so the certificates go through Lanczos.
  X <- cov_rows(15, 70, 11)
  S <- cov(X)
  for (lambda in c(0.05, 0.1)) {
    info <- sprintf("lambda %g", lambda)
    ref <- ref_pd_sparse_cov(S, lambda, 0.01 * mean(diag(S)))
    full <- covariance_raw(X, lambda)
    cut <- covariance_raw(X, lambda, control = cg_control(max_iter = 4))
    expect_true(full$converged, info = info)
    expect_gt(full$iterations, 4L)      # (so `cut` ends on max_iter)
    expect_gt(full$dual_rank, 0L)       # the floor binds
    expect_identical(cut$status, "max_iter", info = info)
    for (fit in list(full, cut)) {
      tr <- fit$trace
      expect_true(all(tr$objective >= ref$objective * (1 - 1e-12)), info = info)
      expect_true(all(tr$gap >= tr$objective - ref$objective - 1e-12 * ref$objective),
                  info = info)
      # the returned point is the last row's, its min_eigen computed exactly
      Sg <- dense(fit$solution$Sigma)
      expect_equal(fit$objective, ref_covsp_objective(Sg, S, lambda), tolerance = 1e-10,
                   info = info)
      expect_equal(fit$min_eigen, min_eig(Sg), tolerance = 1e-8, info = info)
      expect_gte(min_eig(Sg), fit$floor * (1 - 1e-10))
    }
  }
})

test_that("init: a previous fit warm-starts the solver and reaches the same estimate", {
  set.seed(21)
  p <- 30
  Sigma0 <- 0.6^abs(outer(1:p, 1:p, "-"))
  x <- matrix(rnorm(20 * p), 20) %*% chol(Sigma0)     # n < p: the floor is active
  ctl <- cg_control(tol = 1e-8)
  fitc <- function(lambda, init = NULL) covariance_raw(x, lambda = lambda, floor = 0.3,
                                                          init = init, control = ctl)
  a <- fitc(0.026)
  cold <- fitc(0.02)
  warm <- fitc(0.02, init = a)
  expect_gt(cold$iterations, 5L)                      # a real solve, not a closed form
  # both certified to tol: their objectives agree within the two gaps
  expect_lte(abs(warm$objective - cold$objective), warm$gap + cold$gap)
  expect_lte(max(abs(as.matrix(warm$solution$Sigma) - as.matrix(cold$solution$Sigma))), 1e-6)
  # continuing a converged fit at its own penalty stops at once, where it stopped
  again <- fitc(0.02, init = cold)
  expect_identical(again$iterations, cold$iterations)
  expect_identical(again$status, "converged")
  expect_identical(again$solution$Sigma, cold$solution$Sigma)
  expect_error(covariance_raw(x, lambda = 0.02, init = list()),
               "^`init` must be NULL or a fit of sparse_covariance\\(\\)$")
  expect_error(covariance_raw(x, lambda = 0.02, structure = "lowrank+sparse", gamma = 1,
                                 init = a),
               "^`init` is a fit of structure \"sparse\", not \"lowrank\\+sparse\"$")
  expect_error(covariance_raw(x[, -1], lambda = 0.02, init = a),
               "^`init` is a fit of 30 variables, but `data` has 29$")
  expect_error(covariance_raw(x, init = a),
               "^`init` is used only with single penalties")
})

test_that("init: a continued fit equals one longer run (sparse with components, lowrank+sparse)", {
  set.seed(2)
  n <- 15; p <- 40                          # n < p and a high floor: the floor binds
  x <- matrix(rnorm(n * p), n)
  x[, 1:10] <- x[, 1:10] + 2 * rnorm(n); x[, 21:26] <- x[, 21:26] + rnorm(n)
  same <- function(a, b) {
    expect_identical(a$solution, b$solution)
    expect_identical(a$objective, b$objective)
    expect_identical(a$gap, b$gap)
    expect_identical(a$min_eigen, b$min_eigen)
    expect_identical(a$iterations, b$iterations)
    expect_identical(a$trace[c("iter", "epoch", "objective", "gap")],
                     b$trace[c("iter", "epoch", "objective", "gap")])
  }
  for (structure in c("sparse", "lowrank+sparse")) {
    fitk <- function(k, init = NULL, tol = 0, every = 5)
      covariance_raw(x, lambda = 0.54, structure = structure,
                        gamma = if (structure != "sparse") 2, floor = 0.6, init = init,
                        control = cg_control(max_iter = k, tol = tol, eval_every = every))
    long <- fitk(60)
    first <- fitk(25)                      # ends between two evaluations' iterations
    second <- fitk(35, init = first)
    same(second, long)
    expect_match(paste(capture.output(print(second)), collapse = "\n"),
                 "continued exactly from a fit of 25 iterations")
    # teeth: the dual and L alone (the state dropped) are a warm start, another path
    warm_only <- first
    warm_only$state <- NULL
    warm <- fitk(35, init = warm_only)
    expect_false(identical(warm$solution$Sigma, long$solution$Sigma))
    if (structure == "sparse") {
      expect_gt(max(abs(as.matrix(warm$solution$Sigma) - as.matrix(long$solution$Sigma))), 0.1)
      # it splits into components, each continued from its own state
      expect_gt(long$components[["count"]], 1)
    }
    expect_match(paste(capture.output(print(warm)), collapse = "\n"), "warm start from a fit")
  }
  # with a tolerance and the adaptive schedule: stops where the long run stops
  fitt <- function(k, init = NULL)
    covariance_raw(x, lambda = 0.54, floor = 0.6, init = init,
                      control = cg_control(max_iter = k, tol = 1e-9))
  long <- fitt(5000)
  resumed <- fitt(5000, init = fitt(9))
  expect_identical(long$status, "converged")
  expect_gt(long$iterations, 9L)
  expect_identical(resumed$iterations, long$iterations)
  expect_identical(resumed$solution, long$solution)
  expect_identical(resumed$gap, long$gap)
})

test_that("several lambdas without cross-validation: a warm-started path", {
  set.seed(22)
  p <- 15
  x <- matrix(rnorm(40 * p), 40) %*% chol(0.5^abs(outer(1:p, 1:p, "-")))
  lam <- c(0.05, 0.2, 0.1)
  path <- covariance_raw(x, lambda = lam, folds = NULL)
  expect_s3_class(path, "cg_path")
  expect_identical(path$lambda, sort(lam, decreasing = TRUE))     # most regularized first
  f1 <- covariance_raw(x, lambda = 0.2)
  f2 <- covariance_raw(x, lambda = 0.1, init = f1)
  expect_identical(coef(path, lambda = 0.1), coef(f2))
  expect_identical(names(path$summary)[1], "lambda")
  expect_true(all(diff(path$summary$zeros) <= 0))               # smaller lambda, fewer zeros
  expect_error(coef(path, lambda = 0.3), "must be one of the path's values")
  expect_error(covariance_raw(x, lambda = lam, folds = NULL, structure = "lowrank+sparse"),
               "^`gamma` must be a single number for a path over `lambda`$")
  grDevices::pdf(NULL); on.exit(grDevices::dev.off())
  expect_identical(plot(path), path)
  expect_output(print(path), "sparse_covariance path: 3 values of lambda from 0.2 to 0.05")
})

test_that("lowrank+sparse at p > 2n multiplies by S through the centred data: the same fit", {
  # covariance_raw(rows) passes S = Z Z' (Z the centred rows / sqrt(n - 1))
  # to the solver's Lanczos runs; given S itself (n = ) it uses the dense S
  set.seed(5)
  n <- 12; p <- 40
  x <- matrix(rnorm(n * p), n) + tcrossprod(rnorm(n), rnorm(p))
  expect_identical(dim(stochcg:::covariance_factor(x)), as.integer(c(p, n)))
  expect_null(stochcg:::covariance_factor(x[, 1:20]))      # n >= p / 2: not worth it
  ctl <- cg_control(tol = 0, max_iter = 200)     # the same path, step for step
  rows <- covariance_raw(x, lambda = 0.3, structure = "lowrank+sparse", gamma = 2,
                            floor = 0.2, control = ctl)
  dense <- covariance_raw(cov(x), lambda = 0.3, structure = "lowrank+sparse", gamma = 2,
                             floor = 0.2, n = n, control = ctl)
  expect_gt(rows$rank, 0)
  expect_lt(rows$gap, 1e-6 * rows$objective)
  expect_identical(rows$rank, dense$rank)
  expect_equal(rows$objective, dense$objective, tolerance = 1e-12)
  expect_equal(as.matrix(rows$solution$Sigma), as.matrix(dense$solution$Sigma), tolerance = 1e-10)
})

test_that("lowrank+sparse: the floor binding on variables with no off-diagonal above lambda (closed form in the R step) agrees with the reference", {
  # variables with every |(S - L)_ij| <= lambda, i != j, are solved in closed
  # form in the R step (the dual's diagonal max(floor - T_jj, 0)); the
  # eigenproblems run on the others. Here some of those variables (tiny
  # noise: their variance is the factor's) have the floor binding, and the
  # rest keep a factored dual; p = 60 > 32 so the rest goes through Lanczos
  # (cases where the certificate reaches tol = 1e-10 before and after this
  # path: at seed 3, gamma = lambda_1 / 30, lambda = 0.3 neither does)
  for (cs in list(list(seed = 1, gdiv = 4, lambda = 0.6), list(seed = 2, gdiv = 10, lambda = 0.6),
                  list(seed = 4, gdiv = 30, lambda = 0.6))) {
    set.seed(cs$seed)
    n <- 10; p <- 60
    B <- matrix(rnorm(p), p) * 1.5
    noise <- c(rep(0.05, 20), sqrt(seq(0.3, 1, length.out = p - 20)))
    X <- matrix(rnorm(n), n) %*% t(B) + matrix(rnorm(n * p), n) %*% diag(noise)
    S <- cov(X)
    gamma <- max(eigen(S, symmetric = TRUE, only.values = TRUE)$values) / cs$gdiv
    eps <- 0.05
    info <- sprintf("seed %d gamma %g lambda %g", cs$seed, gamma, cs$lambda)
    fit <- covariance_raw(X, cs$lambda, structure = "lowrank+sparse", gamma = gamma,
                             floor = eps, control = tight)
    st <- fit$state$parts[[1L]]$solver
    expect_gt(sum(st$state_single), 0L)            # the closed-form path was taken
    expect_gt(sum(st$state_ell > 0), 0L)            # with the floor binding there
    expect_true(all(st$state_ell[st$state_single == 0L] == 0))
    ref <- ref_lowrank_sparse_cov(S, gamma, cs$lambda, eps)
    tol <- 1e-6 * max(abs(S))
    expect_true(fit$converged, info = info)
    expect_lte(max(abs(dense(fit$solution$Sigma) - ref$Sigma)), tol)
    expect_lte(max(abs(dense(fit$solution$S) - ref$R)), tol)
    expect_identical(fit$rank, ref$rank)
    expect_equal(fit$objective, ref$objective, tolerance = 1e-8, info = info)
    expect_gte(fit$gap, fit$objective - ref$objective - 1e-12 * max(1, ref$objective))
    expect_gte(min_eig(fit$solution$S), eps * (1 - 1e-8))
    # a continued fit equals one longer run (the diagonal part is in the state)
    ctl <- function(k) cg_control(max_iter = k, tol = 0, eval_every = 2)
    long <- sparse_covariance(X, cs$lambda, structure = "lowrank+sparse", gamma = gamma,
                              floor = eps, control = ctl(12))
    first <- sparse_covariance(X, cs$lambda, structure = "lowrank+sparse", gamma = gamma,
                               floor = eps, control = ctl(5))
    second <- sparse_covariance(X, cs$lambda, structure = "lowrank+sparse", gamma = gamma,
                                floor = eps, control = ctl(7), init = first)
    expect_identical(second$solution, long$solution)
    expect_identical(second$gap, long$gap)
  }
})
