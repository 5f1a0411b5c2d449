# Issue 24: the spectrum of sparse_covariance()'s estimate chosen by the
# data -- shrinkage toward the diagonal scored in closed form, the floor
# below the target's smallest eigenvalue -- and standardization.

# the Gaussian log-likelihood of each row of x under N(0, Sigma), from
# determinant() and solve(): independent of the package's Cholesky paths
direct_loglik_rows <- function(Sigma, x) {
  ld <- determinant(Sigma, logarithm = TRUE)$modulus[1]
  q <- rowSums((x %*% solve(Sigma)) * x)
  -0.5 * (ncol(x) * log(2 * pi) + ld + q)
}

test_that("the Schafer-Strimmer intensity equals corpcor::estimate.lambda (p > n and n > p)", {
  skip_if_not_installed("corpcor")
  set.seed(1)
  for (dims in list(c(12, 40), c(80, 6))) {
    x <- matrix(rnorm(prod(dims)), dims[1]) %*% diag(seq(1, 3, length.out = dims[2]))
    x[, 2] <- x[, 1] + 0.3 * x[, 2]
    expect_equal(stochcg:::shrinkage_intensity(x),
                 corpcor::estimate.lambda(x, verbose = FALSE), tolerance = 1e-10)
  }
})

test_that("the lambda = 0 slice scores each shrinkage in closed form (floor clipping included)", {
  set.seed(2)
  for (dims in list(c(15, 30), c(60, 8))) {
    n <- dims[1]; p <- dims[2]
    x <- matrix(rnorm(n * p), n) %*% diag(runif(p, 0.5, 3))
    x[, 3] <- x[, 2] + 0.1 * x[, 3]
    test <- matrix(rnorm(7 * p), 7) %*% diag(runif(p, 0.5, 3))
    mu <- colMeans(x)
    sp <- stochcg:::correlation_spectrum(x, mu)
    tc <- sweep(test, 2, mu)
    rhos <- c(0.1, 0.5, 0.9)
    floors <- c(0.6, 0.2, 0.05)                  # 0.6 > 0.1: clips T's small eigenvalues
    vs <- c(0, 0.4)                              # the variances shrunk toward their median
    got <- stochcg:::shrink_slice_rows(sp, tc, rhos, floors, standardize = TRUE, vs)
    R <- cor(x)
    for (v in seq_along(vs)) {
      var <- apply(x, 2, var)
      sd <- sqrt((1 - vs[v]) * var + vs[v] * median(var))
      for (k in seq_along(rhos)) {
        Tm <- (1 - rhos[k]) * R + rhos[k] * diag(p)
        e <- eigen(Tm, symmetric = TRUE)
        Tc <- e$vectors %*% (pmax(e$values, floors[k]) * t(e$vectors))
        expect_equal(got[, (v - 1) * 3 + k], direct_loglik_rows(Tc * tcrossprod(sd), tc),
                     tolerance = 1e-9)
      }
    }
  }
})

test_that("lambda = 0 in closed form equals the solver's fit of the same problem", {
  set.seed(3)
  for (dims in list(c(12, 25), c(50, 10))) {
    x <- matrix(rnorm(prod(dims)), dims[1])
    x[, 2] <- x[, 1] + 0.2 * x[, 2]
    for (fl in c(0.05, 0.5)) {                  # not binding, binding
      fit <- sparse_covariance(x, lambda = 0, shrink = 0.3, floor = fl)
      expect_identical(fit$method, "closed_form")
      Tm <- stochcg:::shrink_target(cor(x), rep(1, ncol(x)), 0.3)
      ref <- sparse_covariance(Tm, lambda = 0, n = nrow(x), floor = fl, standardize = FALSE,
                               control = cg_control(tol = 1e-12))
      sd <- apply(x, 2, sd)
      expect_equal(as.matrix(fit$solution$Sigma),
                   as.matrix(ref$solution$Sigma) * tcrossprod(sd), tolerance = 1e-7)
      expect_gte(fit$min_eigen, fl * (1 - 1e-12))
      expect_equal(fit$min_eigen, min(eigen(as.matrix(ref$solution$Sigma), only.values = TRUE,
                                            symmetric = TRUE)$values), tolerance = 1e-7)
    }
  }
})

test_that("shrink_var returns the correlation-scale estimate on variances shrunk toward the median", {
  set.seed(10)
  x <- matrix(rnorm(30 * 6), 30) %*% diag(c(0.1, 1, 2, 5, 9, 30))
  fit <- sparse_covariance(x, lambda = 0, shrink = 0.2, shrink_var = 0.3)
  v <- apply(x, 2, var)
  sd <- sqrt(0.7 * v + 0.3 * median(v))
  expect_equal(as.matrix(fit$solution$Sigma),
               (0.8 * cor(x) + 0.2 * diag(6)) * tcrossprod(sd), tolerance = 1e-10)
  expect_equal(fit$shrink_var, 0.3)
  expect_error(sparse_covariance(x, lambda = 0, shrink_var = 0.3, standardize = FALSE),
               "^`shrink_var` applies only with standardize = TRUE")
})

test_that("scale equivariance: X %*% diag(c) gives diag(c) Sigma diag(c)", {
  set.seed(4)
  x <- matrix(rnorm(40 * 12), 40) %*% chol(toeplitz(c(1, 0.5, 0.2, rep(0, 9))))
  cc <- c(1e-3, 1, 50, rep(c(2, 0.1, 7), 3))
  for (lam in list("cv", 0.2)) {
    set.seed(9); a <- sparse_covariance(x, lambda = lam)
    set.seed(9); b <- sparse_covariance(x %*% diag(cc), lambda = lam)
    expect_equal(b$lambda, a$lambda)
    expect_equal(b$shrink, a$shrink)
    expect_equal(as.matrix(b$solution$Sigma),
                 as.matrix(a$solution$Sigma) * tcrossprod(cc), tolerance = 1e-8)
  }
})

test_that("n << p: positive definite, certified, exact zeros at a given lambda; the default is PD", {
  set.seed(5)
  n <- 15; p <- 60
  x <- matrix(rnorm(n * p), n) %*% chol(toeplitz(c(1, 0.5, rep(0, p - 2))))
  fit <- sparse_covariance(x, lambda = 0.3)
  S <- as.matrix(fit$solution$Sigma)
  expect_gte(fit$min_eigen, fit$floor * (1 - 1e-10))
  Rfit <- S / tcrossprod(sqrt(diag(S)) * 0 + fit$scale)
  expect_gte(min(eigen(Rfit, symmetric = TRUE, only.values = TRUE)$values),
             fit$min_eigen * (1 - 1e-8))
  expect_gt(fit$sparsity, 0.5)
  expect_equal(sum(S[upper.tri(S)] == 0) / choose(p, 2), fit$sparsity)
  set.seed(1)
  d <- sparse_covariance(x)
  expect_true(d$converged)
  expect_false(is.null(chol(as.matrix(d$solution$Sigma))))
  expect_gte(d$min_eigen, d$floor * (1 - 1e-10))
})

test_that("the default floor does not clip real small eigenvalues, nor inflate small variances", {
  set.seed(6)
  n <- 400; p <- 6
  z <- matrix(rnorm(n * p), n)
  z[, 2] <- z[, 1] + 0.02 * z[, 2]            # correlation 0.9998: an eigenvalue near 2e-4
  fit <- sparse_covariance(z, lambda = 0, shrink = 0)
  expect_equal(as.matrix(fit$solution$Sigma), cov(z), tolerance = 1e-10)
  expect_lt(fit$floor, min(eigen(cor(z), only.values = TRUE)$values))
  counts <- matrix(rpois(30 * 8, c(0.05, 0.1, 40, 500)), 30, byrow = TRUE)   # unstandardized
  counts[1, ] <- counts[1, ] + 1
  f2 <- sparse_covariance(counts, lambda = 0.1)
  expect_equal(diag(as.matrix(f2$solution$Sigma)), apply(counts, 2, var), tolerance = 1e-10)
})

test_that("CV: l1 path on a banded truth, shrinkage on a dense factor truth; each beats the other's family", {
  set.seed(7)
  p <- 80; n <- 100
  band <- toeplitz(c(1, 0.6, 0.3, rep(0, p - 3)))
  x <- matrix(rnorm((n + 1000) * p), n + 1000) %*% chol(band)
  tr <- x[1:n, ]; te <- sweep(x[-(1:n), ], 2, colMeans(tr))
  set.seed(1); fit <- sparse_covariance(tr)
  expect_gt(fit$lambda, 0); expect_identical(fit$shrink, 0)
  expect_gt(fit$sparsity, 0.5)
  set.seed(1); shr <- sparse_covariance(tr, lambda = 0)     # the best shrinkage estimate
  expect_gt(heldout_loglik(fit$solution$Sigma, te), heldout_loglik(shr$solution$Sigma, te))
  # three factors at p = 200, n = 30: shrinkage, better than the l1 path alone
  B <- matrix(rnorm(200 * 3), 200)
  y <- matrix(rnorm(530 * 3), 530) %*% t(B) + matrix(rnorm(530 * 200), 530)
  tr <- y[1:30, ]; te <- sweep(y[-(1:30), ], 2, colMeans(tr))
  set.seed(1); fit <- sparse_covariance(tr)
  expect_identical(fit$lambda, 0); expect_gt(fit$shrink, 0)
  set.seed(1); l1 <- sparse_covariance(tr, shrink = 0)
  expect_gt(heldout_loglik(fit$solution$Sigma, te), heldout_loglik(l1$solution$Sigma, te))
  expect_true(any(fit$cv$lambda == 0 & fit$cv$chosen))
})

test_that("bad data: a factor column and an NA are named; shrink is checked", {
  d <- data.frame(a = rnorm(10), grp = factor(rep(1:2, 5)), b = rnorm(10))
  expect_error(sparse_covariance(d),
               "^`data` must be numeric, but column `grp` \\(2\\) is factor")
  d$grp <- NULL; d$b[4] <- NA
  expect_error(sparse_covariance(d), "^`data` contains NA, NaN or Inf \\(first in column `b` \\(2\\)\\)")
  x <- matrix(rnorm(40), 10)
  expect_error(sparse_covariance(x, shrink = 1), "^`shrink` must be \"cv\" or numbers in \\[0, 1\\)")
  expect_error(sparse_covariance(x, shrink = "cv", structure = "lowrank+sparse", gamma = 1),
               "^`shrink` is chosen by cross-validation only for structure = \"sparse\"")
  expect_error(sparse_covariance(cov(x), lambda = 0, shrink = "cv", n = 10),
               "^`shrink` can be chosen by cross-validation only from the observations")
})

test_that("print shows the shrinkage and the scale of the floor", {
  set.seed(8)
  x <- matrix(rnorm(30 * 5), 30)
  out <- capture.output(print(sparse_covariance(x, lambda = 0, shrink = 0.2)))
  expect_true(any(grepl("shrink = 0.2 (target (1 - shrink) S + shrink diag(S))", out, fixed = TRUE)))
  expect_true(any(grepl("on the correlation scale", out, fixed = TRUE)))
})

test_that("plot of a default CV fit: the lambda path and the shrinkage panel, par restored", {
  set.seed(11)
  x <- matrix(rnorm(30 * 8), 30)
  fit <- sparse_covariance(x)
  expect_gt(sum(fit$cv$lambda == 0), 1)
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off())
  before <- graphics::par("mfrow")
  expect_identical(plot(fit), fit)
  expect_identical(graphics::par("mfrow"), before)
})

# The per-row held-out log-likelihoods, pooled over the CV's folds (fold by
# fold, rows in order), of the lambda = 0 estimate at shrinkage rho: per
# fold, T = (1 - rho) R + rho I of the training rows' correlation matrix
# with its eigenvalues raised to `floor`, on the training sd's, at the
# held-out rows centred by the training means (independent of
# shrink_slice_rows(): eigen() and direct_loglik_rows())
pooled_shrink_rows <- function(x, foldid, rho, floor) {
  unlist(lapply(sort(unique(foldid)), function(k) {
    tr <- x[foldid != k, , drop = FALSE]
    e <- eigen((1 - rho) * cor(tr) + rho * diag(ncol(x)), symmetric = TRUE)
    sd <- apply(tr, 2, sd)
    Sig <- (e$vectors %*% (pmax(e$values, floor) * t(e$vectors))) * tcrossprod(sd)
    direct_loglik_rows(Sig, sweep(x[foldid == k, , drop = FALSE], 2, colMeans(tr)))
  }))
}

test_that("n > p: the sample covariance is kept unless the CV's maximum beats it by one paired SE", {
  p <- 6; n <- 150
  kept <- c()
  for (seed in c(1, 3)) {
    set.seed(seed)
    x <- matrix(rnorm(n * p), n) %*% chol(toeplitz(0.6^(0:(p - 1))))
    set.seed(1); fit <- sparse_covariance(x, lambda = 0)
    cv <- fit$cv; foldid <- attr(cv, "foldid")
    m <- which.max(ifelse(cv$n_folds == max(cv$n_folds), cv$loglik, -Inf))   # the CV's maximum
    i0 <- which(cv$lambda == 0 & cv$shrink == 0 & cv$shrink_var == 0)
    expect_gt(cv$shrink[m], 0)
    r0 <- pooled_shrink_rows(x, foldid, 0, cv$floor[i0])
    rm_ <- pooled_shrink_rows(x, foldid, cv$shrink[m], cv$floor[m])
    # the reference reproduces the table's fold means
    fold_mean <- function(r) mean(tapply(r, sort(foldid), mean))
    expect_equal(fold_mean(rm_), cv$loglik[m], tolerance = 1e-8)
    expect_equal(fold_mean(r0), cv$loglik[i0], tolerance = 1e-8)
    d <- r0 - rm_
    beaten <- mean(d) < -sd(d) / sqrt(length(d))
    expect_identical(attr(cv, "sample_kept"), !beaten)
    expect_identical(which(cv$chosen), if (beaten) m else i0)
    if (beaten) {
      expect_identical(fit$shrink, cv$shrink[m])
    } else {
      expect_identical(fit$shrink, 0)
      expect_equal(as.matrix(fit$solution$Sigma), cov(x), tolerance = 1e-10, ignore_attr = TRUE)
    }
    kept <- c(kept, !beaten)
  }
  expect_identical(kept, c(TRUE, FALSE))        # both outcomes are exercised
  # not where S is singular (p > n), nor with rule = "1se" or a given shrink
  set.seed(4); z <- matrix(rnorm(20 * 30), 20)
  set.seed(1); f <- sparse_covariance(z, lambda = 0)
  expect_null(attr(f$cv, "sample_kept"))
  set.seed(1); f <- sparse_covariance(x, lambda = 0, rule = "1se")
  expect_null(attr(f$cv, "sample_kept"))
  set.seed(1); f <- sparse_covariance(x, lambda = 0, shrink = c(0, 0.05, 0.1))
  expect_null(attr(f$cv, "sample_kept"))
})
