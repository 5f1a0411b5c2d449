# Cross-validation of sparse_covariance(): heldout_loglik() against a direct
# computation, the default grids, the fold bookkeeping of covariance_cv()
# against folds recomputed by hand, and the print / plot methods.

# direct Gaussian log-likelihood: solve() and determinant(), row by row
direct_loglik <- function(Sigma, x) {
  Sigma <- as.matrix(Sigma)
  p <- ncol(Sigma)
  ld <- as.numeric(determinant(Sigma, logarithm = TRUE)$modulus)
  mean(apply(x, 1, function(r) -0.5 * (p * log(2 * pi) + ld + sum(r * solve(Sigma, r)))))
}

cv_data <- function(n = 60, p = 8, seed = 1) {
  set.seed(seed)
  matrix(rnorm(n * p), n) %*% chol(0.5^abs(outer(seq_len(p), seq_len(p), "-")))
}

test_that("heldout_loglik: closed form, dense and dsCMatrix agree", {
  set.seed(3)
  p <- 7
  A <- crossprod(matrix(rnorm(p * p), p)) / p + diag(p)
  A[abs(A) < 0.3 & row(A) != col(A)] <- 0          # exact zeros, still PD
  expect_gt(min(eigen(A, TRUE, TRUE)$values), 0)
  x <- matrix(rnorm(5 * p), 5)
  ref <- direct_loglik(A, x)
  As <- Matrix::Matrix(A, sparse = TRUE)
  expect_s4_class(As, "dsCMatrix")
  expect_equal(heldout_loglik(A, x), ref, tolerance = 1e-12)
  expect_equal(heldout_loglik(As, x), ref, tolerance = 1e-12)
  # a general sparse matrix (dgCMatrix) and a dense Matrix give the same
  expect_equal(heldout_loglik(methods::as(As, "generalMatrix"), x), ref, tolerance = 1e-12)
  expect_equal(heldout_loglik(Matrix::Matrix(A), x), ref, tolerance = 1e-12)
  # one row as a vector
  expect_equal(heldout_loglik(As, x[2, ]), direct_loglik(A, x[2, , drop = FALSE]),
               tolerance = 1e-12)
  # diagonal closed form
  d <- c(1, 2, 4)
  y <- matrix(c(1, -1, 2, 0, 1, 1), 2, byrow = TRUE)
  expect_equal(heldout_loglik(Matrix::Diagonal(3, d), y),
               -0.5 * (3 * log(2 * pi) + sum(log(d)) + mean(colSums(t(y)^2 / d))))
})

test_that("heldout_loglik is -Inf, not an error, when Sigma is not positive definite", {
  x <- matrix(c(1, 2, 3, 0, 1, 0), 2, byrow = TRUE)
  indef <- diag(c(1, 1, -1))
  singular <- matrix(1, 3, 3)                        # rank 1, PSD
  expect_identical(heldout_loglik(indef, x), -Inf)
  expect_identical(heldout_loglik(singular, x), -Inf)
  expect_identical(heldout_loglik(Matrix::Matrix(indef, sparse = TRUE), x), -Inf)
  expect_identical(heldout_loglik(Matrix::Matrix(diag(c(1, 0, 1)), sparse = TRUE), x), -Inf)
})

test_that("heldout_loglik: bad input", {
  A <- diag(3)
  expect_error(heldout_loglik(A, matrix(0, 2, 4)), "`x` must have 3 columns")
  expect_error(heldout_loglik(A, 1:2), "`x` must be a numeric matrix with 3 columns")
  expect_error(heldout_loglik(matrix(0, 2, 3), matrix(0, 1, 2)), "`Sigma` must be a square matrix")
  expect_error(heldout_loglik("a", 1), "`Sigma` must be a numeric matrix")
  expect_error(heldout_loglik(A, matrix(c(NA, 0, 0), 1)), "`x` contains NA")
})

test_that("default grids: lambda from max |S_ij| off the diagonal, gamma from lambda_1(S)", {
  X <- cv_data()
  S <- stats::cov(X)
  off <- abs(S); diag(off) <- 0
  lam <- default_lambdas(S, nrow(X))
  expect_length(lam, 15L)
  expect_equal(lam[1], max(off))
  expect_equal(lam[15], 0.01 * max(off))                     # n > p
  expect_equal(default_lambdas(S, 5L)[15], 0.1 * max(off))   # n <= p
  expect_true(all(diff(log(lam)) < 0))
  expect_equal(diff(range(diff(log(lam)))), 0, tolerance = 1e-10)   # log-spaced
  l1 <- max(eigen(S, TRUE, TRUE)$values)
  gam <- default_gammas(S)
  expect_equal(gam[c(1, 5)], l1 * c(1 / 2, 1 / 100))
  # RSpectra path (p > 50) agrees with eigen()
  set.seed(4)
  B <- crossprod(matrix(rnorm(80 * 60), 80))
  expect_equal(top_eigenvalue(B), max(eigen(B, TRUE, TRUE)$values), tolerance = 1e-7)
  # at lambda_max the fit is diagonal: the top of the grid is the diagonal answer
  fit <- covariance_fit(S, lam[1], NULL, "sparse", 0.01, cg_control(), dimnames = list(NULL, NULL))
  expect_equal(offdiag_zero_fraction(fit$solution$Sigma), 1)
})

test_that("offdiag_zero_fraction counts both triangles of symmetric storage", {
  A <- diag(4); A[1, 2] <- A[2, 1] <- 0.5; A[3, 4] <- A[4, 3] <- 0.1
  expect_equal(offdiag_zero_fraction(A), 1 - 4 / 12)
  expect_equal(offdiag_zero_fraction(Matrix::Matrix(A, sparse = TRUE)), 1 - 4 / 12)
  expect_equal(offdiag_zero_fraction(methods::as(Matrix::Matrix(A, sparse = TRUE), "generalMatrix")),
               1 - 4 / 12)
})

test_that("covariance_cv: balanced reproducible folds, loglik = folds recomputed by hand", {
  X <- cv_data(n = 50, p = 6)
  lams <- c(0.3, 0.1, 0.02)
  set.seed(11)
  cv <- covariance_cv(X, "sparse", lambdas = lams, floor = 0.05, folds = 3,
                      control = cg_control(progress = FALSE))
  set.seed(11)
  cv2 <- covariance_cv(X, "sparse", lambdas = rev(lams), floor = 0.05, folds = 3,
                       control = cg_control(progress = FALSE))
  expect_identical(cv, cv2)                           # set.seed reproduces; grid sorted
  expect_equal(cv$lambda, sort(lams, decreasing = TRUE))
  expect_true(all(is.na(cv$gamma)) && all(is.na(cv$rank)))
  foldid <- attr(cv, "foldid")
  expect_equal(sort(as.vector(table(foldid))), c(16L, 17L, 17L))
  expect_identical(cv$n_folds, rep(3, 3))
  # each fold: training covariance (divisor n_k - 1), test rows centred by
  # the training mean, a cold-started fit
  ll <- matrix(NA, 3, 3)
  for (k in 1:3) {
    tr <- X[foldid != k, ]; te <- X[foldid == k, ]
    mu <- colMeans(tr)
    for (j in 1:3) {
      f <- covariance_fit(stats::cov(tr), cv$lambda[j], NULL, "sparse", 0.05,
                          cg_control(tol = 1e-10), dimnames = list(NULL, NULL))
      ll[j, k] <- direct_loglik(f$solution$Sigma, sweep(te, 2, mu))
    }
  }
  expect_equal(attr(cv, "fold_loglik"), ll, tolerance = 1e-6)
  expect_equal(cv$loglik, rowMeans(ll), tolerance = 1e-6)
  expect_equal(cv$se, apply(ll, 1, stats::sd) / sqrt(3), tolerance = 1e-5)
  expect_identical(which(cv$chosen), which.max(rowMeans(ll)))
})

test_that("early stop of the lambda path: same choice, skipped points have no mean", {
  # one test row per fit: the 10% rule alone (NA = not fitted or not finite)
  path <- function(v) lapply(v, function(x) if (is.na(x)) NULL else x)
  expect_false(past_peak(path(c(-10, -9, -30, NA))))     # one fall only
  expect_false(past_peak(path(c(-10, -10.2, -10.5))))    # within 10% of the best
  expect_true(past_peak(path(c(-10, -9, -10, -12))))     # two falls, 3 below -9
  expect_true(past_peak(path(c(-10, NA, -11, -12))))     # NA (not converged) ignored
  expect_false(past_peak(path(c(-10, -11, NA))))
  # several test rows: two falls, each fit below the best by more than two
  # paired standard errors (but by less than 10%)
  rows <- c(-100, -120, -90, -110)
  worse <- function(by) rows - by + c(0.1, -0.1, 0.05, -0.05)
  expect_true(past_peak(list(rows, worse(1), worse(2))))
  # the same means, but the differences are noise across rows
  noisy <- function(by) rows - by + c(8, -8, 6, -6)
  expect_false(past_peak(list(rows, noisy(1), noisy(2))))
  # significant but only at the last fit
  expect_false(past_peak(list(rows, rows - c(2, -1, 1.5, -0.6), worse(2))))
  set.seed(1)
  X <- cv_data(n = 30, p = 20, seed = 1)
  set.seed(1)
  a <- covariance_cv(X, "sparse", folds = 3, progress = FALSE)
  set.seed(1)
  b <- covariance_cv(X, "sparse", folds = 3, progress = FALSE, early_stop = FALSE)
  expect_gt(attr(a, "skipped"), 0)
  expect_identical(attr(b, "skipped"), 0L)
  full <- a$n_folds == 3
  expect_true(all(is.na(a$loglik[!full])))
  expect_equal(a$loglik[full], b$loglik[full])
  expect_identical(which(a$chosen), which(b$chosen))
  # the skipped points are worse, in every fold, than the chosen one
  fa <- attr(b, "fold_loglik")
  expect_true(all(fa[!full, ] < rep(fa[which(b$chosen), ], each = sum(!full))))
})

test_that("pooled early stop: the folds' rows together show the fall past the peak", {
  # 3 folds of 4 rows; each fold's path fell once (a fold's own rule waits
  # for two falls), by 1 per row at the third lambda
  base <- list(c(-100, -120, -90, -110), c(-95, -105, -115, -125), c(-80, -130, -99, -101))
  fold_path <- function(b, at3) list(b, b + 0.5, b + 0.5 - at3)
  jitter <- c(0.1, -0.1, 0.05, -0.05)
  rows <- lapply(base, function(b) fold_path(b, 1 + jitter))
  expect_false(any(vapply(rows, past_peak, NA)))
  expect_true(pooled_past_peak(rows))
  # the same means, but the differences are noise across the pooled rows
  noisy <- lapply(base, function(b) fold_path(b, 1 + c(8, -8, 6, -6)))
  expect_false(pooled_past_peak(noisy))
  # the best is the last scored lambda, or the curve rose at the last one
  expect_false(pooled_past_peak(lapply(base, function(b) list(b, b + 0.5))))
  rising <- lapply(base, function(b) list(b, b + 5 + jitter, b + 1 + jitter, b + 2 + jitter))
  expect_false(pooled_past_peak(rising))
  expect_true(pooled_past_peak(lapply(rising, function(r) r[1:3])))
  # a lambda some fold did not score (NULL) is left out of the comparison
  gap <- rows; gap[[2]][3] <- list(NULL)
  expect_false(pooled_past_peak(gap))
  gap <- lapply(rows, function(r) c(r[1:2], list(NULL), r[3]))
  gap[[1]][[3]] <- gap[[1]][[2]]
  expect_true(pooled_past_peak(gap))
  expect_false(pooled_past_peak(list(list(base[[1]]), list(base[[2]]))))
  # rounds: three lambdas, then 2, 4, 8, ...
  expect_identical(path_rounds(15L), list(1:3, 4:5, 6:9, 10:15))
  expect_identical(path_rounds(4L), list(1:3, 4L))
  expect_identical(path_rounds(2L), list(1:2))
  expect_identical(path_rounds(1L), list(1L))
})

test_that("early stop across folds: the full grid's choice with fewer fits", {
  # p > n and n > p, default grids: the stop saves fits, never the choice
  for (cfg in list(c(30, 20, 2), c(20, 40, 1), c(40, 30, 2))) {
    X <- cv_data(n = cfg[1], p = cfg[2], seed = cfg[3])
    calls <- list()
    counting <- function(S, lambda, ...) {
      calls[[length(calls) + 1L]] <<- lambda
      covariance_fit(S, lambda, ...)
    }
    set.seed(1)
    a <- covariance_cv(X, "sparse", folds = 3, progress = FALSE, fit_one = counting)
    n_a <- length(calls); calls <- list()
    set.seed(1)
    b <- covariance_cv(X, "sparse", folds = 3, progress = FALSE, early_stop = FALSE,
                       fit_one = counting)
    expect_identical(length(calls), 45L)
    expect_lt(n_a, 30L)
    expect_identical(which(a$chosen), which(b$chosen))
    full <- a$n_folds == 3
    expect_equal(a$loglik[full], b$loglik[full])
    expect_identical(attr(a, "skipped"), 45L - n_a)
  }
})

test_that("a fold whose own path ended stops the path for every fold (same choice)", {
  # a fake engine: Sigma = s I with s prescribed per fold and lambda (the
  # fold recognised by its S[1, 1]); fold 1 falls from its first lambda on
  # (its own rule ends its path after the first round, lambdas 1-3), folds 2
  # and 3 rise (their rules and the pooled rule go on)
  X <- cv_data(n = 30, p = 6, seed = 4)
  foldid <- rep(1:3, 10)
  s11 <- vapply(1:3, function(k) fold_moments(X, foldid != k)$S[1, 1], 0)
  scales <- rbind(c(1, 2, 4, 8, 16, 32), c(8, 4, 2, 1, 1, 1), c(8, 4, 2, 1, 1, 1))
  lambdas <- c(0.6, 0.5, 0.4, 0.3, 0.2, 0.1)
  calls <- integer(0)
  fake <- function(S, lambda, ...) {
    k <- which.min(abs(s11 - S[1, 1]))
    calls <<- c(calls, k)
    list(solution = list(Sigma = scales[k, match(lambda, lambdas)] * diag(ncol(S))),
         warm = NULL, converged = TRUE, status = "converged")
  }
  a <- covariance_cv(X, "sparse", lambdas = lambdas, foldid = foldid, folds = 3,
                     progress = FALSE, fit_one = fake)
  n_a <- length(calls); calls <- integer(0)
  b <- covariance_cv(X, "sparse", lambdas = lambdas, foldid = foldid, folds = 3,
                     progress = FALSE, early_stop = FALSE, fit_one = fake)
  fb <- attr(b, "fold_loglik")
  # the premise: fold 1's own rule, on its rows, ends its path after lambda 3
  # (folds 2 and 3 would go on); the pooled rows still rise
  rows <- lapply(1:3, function(k) {
    m <- fold_moments(X, foldid != k)
    lapply(1:3, function(li) loglik_rows(scales[k, li] * diag(6), m$test))
  })
  expect_true(past_peak(rows[[1]]))
  expect_false(past_peak(rows[[2]]) || past_peak(rows[[3]]))
  expect_false(pooled_past_peak(rows))
  expect_true(all(fold_path_ended(lapply(rows, function(r)
    list(failed = FALSE, path_rows = list(r)))) == c(TRUE)))
  # no fold fits past the first round (before: folds 2 and 3 fitted 4-6)
  expect_identical(n_a, 9L)
  expect_identical(attr(a, "skipped"), 9L)
  expect_true(all(is.na(a$loglik[4:6])))
  # the choice and its numbers: those of the full grid among the lambdas
  # fold 1's rule lets every fold score
  expect_equal(a$loglik[1:3], rowMeans(fb[1:3, ]), tolerance = 1e-12)
  expect_identical(which(a$chosen), which.max(rowMeans(fb[1:3, ])))
})

test_that("lowrank+sparse: a fold's ended path stops every fold at the next lambda", {
  # the fake engine above (Sigma = s I per fold and lambda, as R = s I and
  # L = 0) for "lowrank+sparse", whose rounds after the first (lambdas 1-2)
  # are one lambda each: fold 1 peaks at lambda 2 and its own rule ends its
  # path after lambda 4 (two falls, more than 10% below), inside the second
  # round of path_rounds() (1-3, 4-5, 6); folds 2 and 3 rise, and the pooled
  # rows do not show a fall at the looks (lambdas 2, 3 and 5)
  X <- cv_data(n = 30, p = 6, seed = 4)
  foldid <- rep(1:3, 10)
  s11 <- vapply(1:3, function(k) fold_moments(X, foldid != k)$S[1, 1], 0)
  scales <- rbind(c(0.5, 1, 2, 4, 8, 16), c(8, 4, 2, 1, 1, 1), c(8, 4, 2, 1, 1, 1))
  lambdas <- c(0.6, 0.5, 0.4, 0.3, 0.2, 0.1)
  calls <- integer(0)
  fake <- function(S, lambda, ...) {
    k <- which.min(abs(s11 - S[1, 1]))
    calls <<- c(calls, k)
    list(solution = list(S = scales[k, match(lambda, lambdas)] * diag(ncol(S)), L = NULL),
         warm = NULL, converged = TRUE, status = "converged")
  }
  cv_lr <- function(...) covariance_cv(X, "lowrank+sparse", lambdas = lambdas, gammas = 1,
                                       foldid = foldid, folds = 3, progress = FALSE,
                                       fit_one = fake, ...)
  a <- cv_lr()
  calls_a <- calls; calls <- integer(0)
  b <- cv_lr(early_stop = FALSE)
  fb <- attr(b, "fold_loglik")
  rows <- lapply(1:3, function(k) {
    m <- fold_moments(X, foldid != k)
    lapply(1:6, function(li) loglik_rows(scales[k, li] * diag(6), m$test))
  })
  # the premise
  expect_false(past_peak(rows[[1]][1:3]))
  expect_true(past_peak(rows[[1]][1:4]))
  expect_false(past_peak(rows[[2]][1:4]) || past_peak(rows[[3]][1:4]))
  expect_false(pooled_past_peak(lapply(rows, `[`, 1:2), first_fall = 0.01) ||
                 pooled_past_peak(lapply(rows, `[`, 1:3)) ||
                 pooled_past_peak(lapply(rows, `[`, 1:4)))
  # every fold fits lambdas 1-4 and no more (in rounds 1-3, 4-5 folds 2
  # and 3 would fit lambda 5 before the stop could be seen)
  expect_identical(sort(calls_a), rep(1:3, each = 4))
  expect_identical(attr(a, "skipped"), 6L)
  expect_true(all(is.na(a$loglik[5:6])))
  # the full grid's choice and its numbers
  expect_identical(which(a$chosen), which.max(rowMeans(fb)))
  expect_equal(a$loglik[1:4], rowMeans(fb[1:4, ]), tolerance = 1e-12)
  # the first pooled look is after two lambdas: a path falling at the
  # second in every fold stops there
  scales[] <- rep(c(1, 2, 4, 8, 16, 32), each = 3)
  rows <- lapply(1:3, function(k) {
    m <- fold_moments(X, foldid != k)
    lapply(1:2, function(li) loglik_rows(scales[k, li] * diag(6), m$test))
  })
  expect_true(pooled_past_peak(rows))
  # ... by more than 1% of its mean: a fall of 1e-6, however consistent over
  # the rows (significant to the paired test), is not a stop there
  base <- rows[[1]][[1]]
  tiny <- list(list(base, base - 1e-6 * abs(base) * (1 + seq_along(base) / 100)))
  expect_true(pooled_past_peak(tiny))
  expect_false(pooled_past_peak(tiny, first_fall = 0.01))
  big <- list(list(base, base - 0.03 * abs(base) * (1 + seq_along(base) / 100)))
  expect_true(pooled_past_peak(big, first_fall = 0.01))
  calls <- integer(0)
  a <- cv_lr()
  expect_identical(sort(calls), rep(1:3, each = 2))
  expect_identical(which(a$chosen), 1L)
})

# (folds run through the future framework: tests in test-parallel.R)

test_that("a failed fit ends its fold's lambda path; the failure is reported", {
  X <- cv_data(n = 30, p = 10, seed = 2)
  lambdas <- c(0.4, 0.3, 0.2, 0.1, 0.05)
  calls <- numeric(0)
  failing <- function(S, lambda, ...) {
    calls <<- c(calls, lambda)
    if (lambda < 0.25) stop("the floor is active in more than 256 directions")
    covariance_fit(S, lambda, ...)
  }
  set.seed(3)
  expect_warning(cv <- covariance_cv(X, "sparse", lambdas = lambdas, folds = 3,
                                     progress = FALSE, fit_one = failing),
                 "3 of 15 cross-validation fits gave no held-out log-likelihood: 3 failed")
  expect_identical(calls, rep(c(0.4, 0.3, 0.2), 3))   # 0.1 and 0.05 never tried
  expect_identical(attr(cv, "skipped"), 6L)
  expect_true(all(is.na(cv$loglik[3:5])))
  expect_true(all(is.finite(cv$loglik[1:2])))
})

test_that("cv_select: a single value is not cross-validated; grids are", {
  X <- cv_data(n = 40, p = 5)
  sel <- cv_select(X, "sparse", lambda = 0.1)
  expect_identical(sel[c("lambda", "gamma", "cv", "warm")],
                   list(lambda = 0.1, gamma = NA_real_, cv = NULL, warm = NULL))
  sel <- cv_select(X, "lowrank+sparse", lambda = 0.1, gamma = 2)
  expect_null(sel$cv)
  expect_identical(sel$gamma, 2)
  set.seed(5)
  sel <- cv_select(X, "lowrank+sparse", lambda = c(0.2, 0.05), gamma = c(1, 0.3), folds = 3,
                   control = cg_control(progress = FALSE))
  expect_identical(nrow(sel$cv), 4L)
  expect_setequal(sel$cv$gamma, c(1, 0.3))
  b <- which(sel$cv$chosen)
  expect_identical(c(sel$lambda, sel$gamma), c(sel$cv$lambda[b], sel$cv$gamma[b]))
  expect_identical(b, which.max(sel$cv$loglik))
  expect_true(all(sel$cv$rank >= 0))
  expect_error(cv_select(X, "sparse", lambda = "aic"), "`lambda` must be \"cv\"")
  expect_error(cv_select(X, "sparse", lambda = c(0.1, -1)), "`lambda` must be \"cv\"")
  expect_error(covariance_cv(X, "sparse", lambdas = c(0.2, 0.1), folds = 41),
               "^`data` has 40 rows, fewer than the 41 folds of the cross-validation \\(`folds`\\)")
  # the default five folds on two rows: the message says what to give
  expect_error(sparse_covariance(as.matrix(swiss)[1:2, ]),
               "^`data` has 2 rows, fewer than the 5 folds .*give fewer folds, or `lambda` and `shrink`")
})

test_that("covariance_cv: fits that do not converge give NA and one warning", {
  # p > n and a small lambda: the floor binds, one dual step is not enough;
  # a lambda above max |S_ij| is screened (diagonal) and converges at once
  X <- cv_data(n = 12, p = 20, seed = 2)
  S <- stats::cov(X); off <- abs(S); diag(off) <- 0
  lams <- c(2 * max(off), 1e-3)
  set.seed(1)
  expect_warning(
    cv <- covariance_cv(X, "sparse", lambdas = lams, floor = 0.1, folds = 3,
                        control = cg_control(max_iter = 1, progress = FALSE)),
    "3 of 6 cross-validation fits gave no held-out log-likelihood: 3 did not converge")
  expect_identical(cv$n_folds, c(3, 0))
  expect_true(is.na(cv$loglik[2]) && is.finite(cv$loglik[1]))
  expect_identical(cv$chosen, c(TRUE, FALSE))
})

test_that("print, summary and plot of a cross-validated fit", {
  X <- cv_data(n = 60, p = 8)
  set.seed(2)
  fit <- covariance_raw(X, lambda = c(0.4, 0.2, 0.1, 0.05), folds = 3,
                           control = cg_control(progress = FALSE))
  expect_s3_class(fit$cv, "data.frame")
  expect_identical(fit$lambda, fit$cv$lambda[fit$cv$chosen])
  out <- capture.output(print(fit))
  expect_match(out, "lambda = .* \\(chosen by 3-fold CV over 4 values\\)", all = FALSE)
  z <- offdiag_zero_fraction(fit$solution$Sigma)
  expect_match(out, sprintf("%.1f%% of off-diagonal entries are exactly zero", 100 * z),
               fixed = TRUE, all = FALSE)
  expect_match(out, "smallest eigenvalue of Sigma: .*floor", all = FALSE)
  expect_identical(summary(fit)$header, out)
  pdf(NULL)
  on.exit(dev.off())
  mar <- par("mar")
  expect_invisible(plot(fit))
  expect_identical(par("mar"), mar)
  single <- covariance_raw(X, lambda = 0.1)
  expect_null(single$cv)
  expect_false(any(grepl("chosen by", capture.output(print(single)))))
  expect_error(plot(single, what = "cv"), "`x` has no cross-validation results")
  expect_error(plot(fit, what = c("cv", "gap")), "`what` \"cv\" cannot be combined")
})

test_that("print of a lowrank+sparse fit: rank and trace of L", {
  X <- cv_data(n = 60, p = 8)
  f <- matrix(rnorm(60), 60)
  X <- X + f %*% matrix(1, 1, 8)                     # one common factor
  fit <- covariance_raw(X, lambda = 0.1, structure = "lowrank+sparse", gamma = 1)
  out <- capture.output(print(fit))
  L <- fit$solution$L
  expect_match(out, sprintf("L (factor part): rank %d, trace %s", sum(L$d > 0),
                            format(sum(diag(as.matrix(L))), digits = 4)),
               fixed = TRUE, all = FALSE)
  expect_match(out, "of off-diagonal entries of the sparse part S are exactly zero",
               all = FALSE)
})

test_that("rule = \"1se\": the sparsest estimate within one standard error of the best", {
  set.seed(23)
  p <- 12
  x <- matrix(rnorm(60 * p), 60) %*% chol(0.5^abs(outer(1:p, 1:p, "-")))
  lam <- c(0.4, 0.3, 0.2, 0.15, 0.1, 0.05)
  set.seed(1); fmax <- covariance_raw(x, lambda = lam, folds = 4)
  set.seed(1); f1se <- covariance_raw(x, lambda = lam, folds = 4, rule = "1se")
  cv <- f1se$cv
  best <- which.max(ifelse(cv$n_folds == max(cv$n_folds), cv$loglik, -Inf))
  expect_identical(fmax$lambda, cv$lambda[best])            # the same folds and table
  within <- which(cv$n_folds == max(cv$n_folds) & cv$loglik >= cv$loglik[best] - cv$se[best])
  expect_identical(f1se$lambda, cv$lambda[within][which.max(cv$zeros[within])])
  expect_gt(f1se$lambda, fmax$lambda)                        # 0.2 against 0.15 here
  expect_identical(which(cv$chosen), match(f1se$lambda, cv$lambda))
  expect_error(covariance_raw(x, lambda = lam, rule = "min"),
               "^`rule` must be one of \"max\", \"1se\", not \"min\"$")
})

test_that("the held-out log-likelihood of R + U diag(d) U' without forming it equals the dense one", {
  # cv_fold() scores "lowrank+sparse" fits by the determinant lemma and
  # Woodbury on R's sparse Cholesky factor (loglik_rows_lowrank()); the
  # dense Sigma's Cholesky gives the same numbers
  set.seed(3)
  n <- 12; p <- 60
  x <- matrix(rnorm(n * p), n) + tcrossprod(rnorm(n), rnorm(p))
  fit <- sparse_covariance(x, lambda = 0.3, structure = "lowrank+sparse", gamma = 2,
                           floor = 0.2)
  expect_s4_class(fit$solution$S, "dsCMatrix")
  expect_gt(fit$rank, 1L)
  xt <- matrix(rnorm(5 * p), 5)
  dense_ll <- stochcg:::loglik_rows(fit$solution$Sigma, xt)
  lr_ll <- stochcg:::loglik_rows_lowrank(fit$solution$S, fit$solution$L$u,
                                         fit$solution$L$d, xt)
  expect_equal(lr_ll, dense_ll, tolerance = 1e-10)
  # a dense sparse part and an empty L take the dense route: the same
  expect_equal(stochcg:::loglik_rows_lowrank(as.matrix(fit$solution$S), fit$solution$L$u,
                                             fit$solution$L$d, xt), dense_ll, tolerance = 1e-10)
  expect_equal(stochcg:::loglik_rows_lowrank(fit$solution$S, matrix(0, p, 0), numeric(0), xt),
               stochcg:::loglik_rows(fit$solution$S, xt), tolerance = 1e-12)
  # closed form: R = I, L = 3 e1 e1' (Sigma = diag(4, 1, ..., 1))
  R <- Matrix::Diagonal(4, 1); R <- methods::as(methods::as(R, "CsparseMatrix"), "symmetricMatrix")
  x1 <- rbind(c(2, 1, 0, 0))
  want <- -0.5 * (4 * log(2 * pi) + log(4) + 2^2 / 4 + 1)
  expect_equal(stochcg:::loglik_rows_lowrank(R, cbind(c(1, 0, 0, 0)), 3, x1), want,
               tolerance = 1e-14)
})

test_that("lowrank+sparse CV fold fits: the floor's cap is separate from L's rank", {
  set.seed(3); p <- 60; n <- 20
  X <- matrix(rnorm(n * 2), n) %*% matrix(rnorm(2 * p), 2) + matrix(rnorm(n * p), n)
  S <- cor(X); Z <- t(scale(X)) / sqrt(n - 1)
  # the floor binds in 37 directions: past a cap of 2 the fit fails, named
  full <- covariance_fit(S, 0.05, 2, "lowrank+sparse", 0.3, cg_control(), nobs = n, S_factor = Z)
  expect_true(full$converged)
  expect_gt(full$dual_rank, 2L)
  capped <- suppressWarnings(covariance_fit(S, 0.05, 2, "lowrank+sparse", 0.3, cg_control(),
                                            nobs = n, S_factor = Z, floor_rank = 2L))
  expect_identical(capped$status, "error")
  expect_match(capped$message, "the floor is active in more than 2 directions")
  # L of rank 14 is not limited by that cap; sigma = FALSE forms no dense Sigma
  lr <- covariance_fit(S, 0.3, 0.5, "lowrank+sparse", 0.01, cg_control(), nobs = n,
                       S_factor = Z, floor_rank = 2L, sigma = FALSE)
  ref <- covariance_fit(S, 0.3, 0.5, "lowrank+sparse", 0.01, cg_control(), nobs = n, S_factor = Z)
  expect_true(lr$converged)
  expect_gt(lr$rank, 2L)
  expect_null(lr$solution$Sigma)
  expect_equal(as.matrix(lr$solution$S) + tcrossprod(lr$solution$L$u * rep(sqrt(lr$solution$L$d), each = p)),
               ref$solution$Sigma, tolerance = 1e-12, ignore_attr = TRUE)
})
