# sparse_regression() as glmnet users expect it (issue 25): family,
# weights, standardize, penalty.factor. Each fit is checked against glmnet
# at a matched l1 norm: glmnet's solution at a lambda, its l1 norm on our
# radius' scale, sum_j pf_j sd_j |beta_j| (pf rescaled to sum to p, sd the
# weighted 1/n standard deviation when standardized), is our radius, and at
# that radius the constrained problem has glmnet's solution.

family_data <- function(n = 80, p = 25, seed = 1) {
  set.seed(seed)
  X <- matrix(rnorm(n * p), n, p) %*% diag(exp(seq(-1.5, 1.5, length.out = p)))
  X[, 3] <- X[, 3] + 5                         # a column far from zero mean
  eta <- drop(X[, 1:4] %*% c(1.5, -1, 0.4, 0.3))
  list(X = X, n = n, p = p,
       y = eta + rnorm(n),
       yb = rbinom(n, 1, plogis(eta / 2)),
       yp = rpois(n, exp(0.3 * eta / max(abs(eta)) * 3)),
       w = runif(n, 0.2, 3))
}

# the l1 norm of glmnet's coefficients on our radius' scale
matched_radius <- function(X, beta, w = NULL, pf = NULL, standardize = TRUE) {
  X <- as.matrix(X)
  n <- nrow(X); p <- ncol(X)
  w <- if (is.null(w)) rep(1 / n, n) else w / sum(w)
  pf <- if (is.null(pf)) rep(1, p) else pf * p / sum(pf)
  sd <- if (standardize) {
    xm <- colSums(w * X)
    sqrt(colSums(w * sweep(X, 2, xm)^2))
  } else rep(1, p)
  sum(pf * sd * abs(beta))
}

glmnet_coef <- function(...) {
  g <- glmnet::glmnet(..., thresh = 1e-14, maxit = 1e6)
  as.vector(stats::coef(g))
}

tight <- cg_control(tol = 1e-12, max_iter = 1e6)

test_that("gaussian, standardize = TRUE by default: glmnet's solution at the matched radius", {
  skip_if_not_installed("glmnet")
  d <- family_data()
  b <- glmnet_coef(d$X, d$y, lambda = 0.08)
  r <- matched_radius(d$X, b[-1])
  fit <- sparse_regression(d$X, d$y, radius = r, control = tight)
  expect_true(fit$converged)
  expect_lt(max(abs(coef(fit) - b)), 1e-5)
  expect_true(fit$standardize)
  # the radius bounds the standardized coefficients: theta
  expect_equal(sum(abs(fit$theta)), r, tolerance = 1e-10)
  # raw scale: different problem, different solution
  raw <- sparse_regression(d$X, d$y, radius = r, standardize = FALSE, control = tight)
  expect_gt(max(abs(coef(raw) - b)), 1e-2)
})

test_that("intercept = FALSE: glmnet standardizes by the centred standard deviation still", {
  skip_if_not_installed("glmnet")
  d <- family_data()
  X <- d$X + 1                                 # columns away from zero mean
  b <- glmnet_coef(X, d$y, lambda = 0.08, intercept = FALSE)
  fit <- sparse_regression(X, d$y, radius = matched_radius(X, b[-1]), intercept = FALSE,
                           control = tight)
  expect_lt(max(abs(coef(fit) - b[-1])), 1e-5)
  b <- glmnet_coef(X, d$yb, family = "binomial", lambda = 0.03, intercept = FALSE)
  fit <- sparse_regression(X, d$yb, radius = matched_radius(X, b[-1]), intercept = FALSE,
                           family = "binomial", control = tight)
  expect_true(fit$converged)
  expect_lt(max(abs(coef(fit) - b[-1])), 1e-5)
})

test_that("standardize = TRUE: rescaling a column rescales its coefficient, nothing else", {
  d <- family_data()
  X2 <- d$X
  X2[, 2] <- 1000 * X2[, 2]
  f1 <- sparse_regression(d$X, d$y, radius = 2, control = tight)
  f2 <- sparse_regression(X2, d$y, radius = 2, control = tight)
  b1 <- coef(f1); b2 <- coef(f2)
  b2[3] <- b2[3] * 1000                      # the intercept comes first
  expect_lt(max(abs(b1 - b2)), 1e-7)
  yb <- d$yb
  g1 <- sparse_regression(d$X, yb, radius = 1, family = "binomial", control = tight)
  g2 <- sparse_regression(X2, yb, radius = 1, family = "binomial", control = tight)
  b1 <- coef(g1); b2 <- coef(g2)
  b2[3] <- b2[3] * 1000
  expect_lt(max(abs(b1 - b2)), 1e-7)
})

test_that("penalty.factor with a zero and unequal factors: glmnet's solution", {
  skip_if_not_installed("glmnet")
  d <- family_data()
  pf <- c(0, 2, 1, 0.5, rep(1, d$p - 4))
  for (standardize in c(TRUE, FALSE)) {
    b <- glmnet_coef(d$X, d$y, lambda = 0.08, penalty.factor = pf, standardize = standardize)
    r <- matched_radius(d$X, b[-1], pf = pf, standardize = standardize)
    fit <- sparse_regression(d$X, d$y, radius = r, penalty.factor = pf,
                             standardize = standardize, control = tight)
    expect_true(fit$converged)
    expect_lt(max(abs(coef(fit) - b)), 1e-5)
    expect_true(coef(fit)[2] != 0)           # unpenalized: never zero here
  }
  # factors are rescaled to sum to p: a multiple gives the same fit
  f1 <- sparse_regression(d$X, d$y, radius = 2, penalty.factor = pf, control = tight)
  f2 <- sparse_regression(d$X, d$y, radius = 2, penalty.factor = 3 * pf, control = tight)
  expect_equal(coef(f1), coef(f2), tolerance = 1e-10)
})

test_that("observation weights: glmnet's solution; integer weights equal repeated rows", {
  skip_if_not_installed("glmnet")
  d <- family_data()
  b <- glmnet_coef(d$X, d$y, lambda = 0.08, weights = d$w)
  r <- matched_radius(d$X, b[-1], w = d$w)
  fit <- sparse_regression(d$X, d$y, radius = r, weights = d$w, control = tight)
  expect_true(fit$converged)
  expect_lt(max(abs(coef(fit) - b)), 1e-5)
  # weights 2 on the first 10 rows = those rows twice
  w <- c(rep(2, 10), rep(1, d$n - 10))
  fw <- sparse_regression(d$X, d$y, radius = 3, weights = w, control = tight)
  rows <- c(1:10, seq_len(d$n))
  fr <- sparse_regression(d$X[rows, ], d$y[rows], radius = 3, control = tight)
  expect_lt(max(abs(coef(fw) - coef(fr))), 1e-7)
})

test_that("binomial: glmnet's solution at the matched radius; a factor response is the same", {
  skip_if_not_installed("glmnet")
  d <- family_data()
  b <- glmnet_coef(d$X, d$yb, family = "binomial", lambda = 0.03)
  r <- matched_radius(d$X, b[-1])
  fit <- sparse_regression(d$X, d$yb, radius = r, family = "binomial", control = tight)
  expect_true(fit$converged)
  expect_lt(max(abs(coef(fit) - b)), 1e-5)
  # the gap certifies: objective (half the mean deviance) minus glmnet's
  eta <- drop(b[1] + d$X %*% b[-1])
  ref <- mean(-(d$yb * eta - log1p(exp(eta))))
  expect_lte(fit$objective - ref, fit$gap + 1e-12)
  expect_equal(fit$objective, mean(-(d$yb * fit$linear.predictors -
                                      log1p(exp(fit$linear.predictors)))), tolerance = 1e-12)
  # plain pairwise steps (no face steps) reach the same solution, in more steps
  plain <- sparse_regression(d$X, d$yb, radius = r, family = "binomial", face_step = FALSE,
                             control = tight)
  expect_true(plain$converged)
  expect_lt(max(abs(coef(plain) - b)), 1e-5)
  expect_gt(fit$face_steps, 0)
  expect_identical(plain$face_steps, 0)
  expect_lt(fit$iterations, plain$iterations)
  yf <- factor(ifelse(d$yb == 1, "yes", "no"))
  ff <- sparse_regression(d$X, yf, radius = r, family = "binomial", control = tight)
  expect_equal(coef(ff), coef(fit), tolerance = 1e-12)
  # predict: link and response
  expect_equal(predict(fit, d$X[1:5, ]), drop(b[1] + d$X[1:5, ] %*% b[-1]), tolerance = 1e-5)
  expect_equal(predict(fit, d$X[1:5, ], type = "response"),
               plogis(predict(fit, d$X[1:5, ])), tolerance = 1e-14)
  expect_equal(predict(fit, type = "response"), fitted(fit))
  expect_equal(predict(fit), fit$linear.predictors)
  expect_output(print(fit), "family binomial")
  # weights and penalty factors with the binomial family
  pf <- c(0, rep(1, d$p - 1))
  b <- glmnet_coef(d$X, d$yb, family = "binomial", lambda = 0.03, weights = d$w,
                   penalty.factor = pf)
  r <- matched_radius(d$X, b[-1], w = d$w, pf = pf)
  fit <- sparse_regression(d$X, d$yb, radius = r, family = "binomial", weights = d$w,
                           penalty.factor = pf, control = tight)
  expect_true(fit$converged)
  expect_lt(max(abs(coef(fit) - b)), 1e-5)
})

test_that("poisson: glmnet's solution at the matched radius", {
  skip_if_not_installed("glmnet")
  d <- family_data()
  for (standardize in c(TRUE, FALSE)) {
    b <- glmnet_coef(d$X, d$yp, family = "poisson", lambda = 0.05, standardize = standardize)
    r <- matched_radius(d$X, b[-1], standardize = standardize)
    fit <- sparse_regression(d$X, d$yp, radius = r, family = "poisson",
                             standardize = standardize, control = tight)
    expect_true(fit$converged)
    expect_lt(max(abs(coef(fit) - b)), 1e-5)
  }
  expect_equal(predict(fit, d$X[1:3, ], type = "response"),
               exp(drop(b[1] + d$X[1:3, ] %*% b[-1])), tolerance = 1e-5)
})

test_that("a sparse dgCMatrix X stays sparse and gives glmnet's solutions", {
  skip_if_not_installed("glmnet")
  d <- family_data()
  set.seed(3)
  Xd <- d$X * (matrix(runif(d$n * d$p), d$n, d$p) < 0.3)
  Xs <- Matrix::Matrix(Xd, sparse = TRUE)
  # gaussian standardized: column scaling of the dgCMatrix
  b <- glmnet_coef(Xs, d$y, lambda = 0.08)
  fit <- sparse_regression(Xs, d$y, radius = matched_radius(Xd, b[-1]), control = tight)
  expect_lt(max(abs(coef(fit) - b)), 1e-5)
  # gaussian with weights and an unpenalized column (src/prob_glm.c)
  pf <- c(0, rep(1, d$p - 1))
  b <- glmnet_coef(Xs, d$y, lambda = 0.08, weights = d$w, penalty.factor = pf)
  r <- matched_radius(Xd, b[-1], w = d$w, pf = pf)
  fit <- sparse_regression(Xs, d$y, radius = r, weights = d$w, penalty.factor = pf,
                           control = tight)
  expect_true(fit$converged)
  expect_lt(max(abs(coef(fit) - b)), 1e-5)
  dense <- sparse_regression(Xd, d$y, radius = r, weights = d$w, penalty.factor = pf,
                             control = tight)
  expect_lt(max(abs(coef(dense) - coef(fit))), 1e-6)
  # binomial, weighted
  b <- glmnet_coef(Xs, d$yb, family = "binomial", lambda = 0.03, weights = d$w)
  fit <- sparse_regression(Xs, d$yb, radius = matched_radius(Xd, b[-1], w = d$w),
                           family = "binomial", weights = d$w, control = tight)
  expect_true(fit$converged)
  expect_lt(max(abs(coef(fit) - b)), 1e-5)
})

test_that("paths of the families warm-start and equal single fits; coef() on the original scale", {
  d <- family_data()
  path <- sparse_regression(d$X, d$yb, radius = c(0.5, 1, 2), family = "binomial",
                            control = tight)
  expect_s3_class(path, "cg_path")
  single <- sparse_regression(d$X, d$yb, radius = 1, family = "binomial", control = tight)
  expect_lt(max(abs(coef(path, radius = 1) - coef(single))), 1e-7)
  expect_equal(path$summary$l1_norm, c(0.5, 1, 2), tolerance = 1e-10)
  expect_equal(nrow(coef(path)), d$p + 1L)
  gp <- sparse_regression(d$X, d$y, radius = c(1, 3), weights = d$w, control = tight)
  g1 <- sparse_regression(d$X, d$y, radius = 3, weights = d$w, control = tight)
  expect_lt(max(abs(coef(gp, radius = 3) - coef(g1))), 1e-7)
})

test_that("cv_sparse_regression: families scored by held-out deviance, weights and factors passed", {
  d <- family_data(n = 90)
  folds <- rep(1:3, length.out = d$n)
  radii <- c(0.3, 1, 2)
  cv <- cv_sparse_regression(d$X, d$yb, radius = radii, folds = folds, family = "binomial",
                             control = tight)
  expect_identical(cv$loss, "binomial deviance")
  # fold 2's loss at radius 1: the fit on the other rows, scored by hand
  tr <- folds != 2
  f <- sparse_regression(d$X[tr, ], d$yb[tr], radius = 1, family = "binomial", control = tight)
  mu <- predict(f, d$X[!tr, ], type = "response")
  yt <- d$yb[!tr]
  expect_equal(unname(cv$fold_loss[2, 2]), mean(-2 * (yt * log(mu) + (1 - yt) * log(1 - mu))),
               tolerance = 1e-6)
  expect_equal(coef(cv$path, radius = 1),
               coef(sparse_regression(d$X, d$yb, radius = 1, family = "binomial",
                                      control = tight)), tolerance = 1e-6)
  # least squares, standardized by default: each fold by its training rows'
  # standard deviations (dense and sparse X, shared X'X / n along the grid)
  Xsp <- Matrix::Matrix(d$X * (abs(d$X) > 0.5), sparse = TRUE)
  for (XX in list(d$X, Xsp)) {
    cvg <- cv_sparse_regression(XX, d$y, radius = radii, folds = folds, control = tight)
    f <- sparse_regression(XX[tr, ], d$y[tr], radius = 1, control = tight)
    expect_equal(unname(cvg$fold_loss[2, 2]), mean((d$y[!tr] - predict(f, XX[!tr, ]))^2),
                 tolerance = 1e-6)
    expect_equal(coef(cvg$path, radius = 2),
                 coef(sparse_regression(XX, d$y, radius = 2, control = tight)), tolerance = 1e-6)
  }
  # weighted gaussian with a penalty factor: the weighted held-out error
  pf <- c(0, rep(1, d$p - 1))
  cvw <- cv_sparse_regression(d$X, d$y, radius = radii, folds = folds, weights = d$w,
                              penalty.factor = pf, control = tight)
  f <- sparse_regression(d$X[tr, ], d$y[tr], radius = 2, weights = d$w[tr],
                         penalty.factor = pf, control = tight)
  wt <- d$w[!tr]
  expect_equal(unname(cvw$fold_loss[3, 2]),
               sum(wt * (d$y[!tr] - predict(f, d$X[!tr, ]))^2) / sum(wt), tolerance = 1e-6)
  # default radii on the standardized scale: a rescaled column changes nothing
  X2 <- d$X
  X2[, 5] <- X2[, 5] * 100
  set.seed(2); c1 <- cv_sparse_regression(d$X, d$yp, folds = folds, family = "poisson",
                                          nradius = 5)
  set.seed(2); c2 <- cv_sparse_regression(X2, d$yp, folds = folds, family = "poisson",
                                          nradius = 5)
  expect_equal(c1$cv$radius, c2$cv$radius, tolerance = 1e-8)
  expect_identical(c1$loss, "Poisson deviance")
  # misclassification rate: fold 2 at radius 1 by hand
  cvc <- cv_sparse_regression(d$X, d$yb, radius = radii, folds = folds, family = "binomial",
                              type.measure = "class", control = tight)
  f <- sparse_regression(d$X[tr, ], d$yb[tr], radius = 1, family = "binomial", control = tight)
  expect_equal(unname(cvc$fold_loss[2, 2]),
               mean((predict(f, d$X[!tr, ], type = "response") > 0.5) != (d$yb[!tr] == 1)))
  expect_identical(cvc$loss, "misclassification error")
  expect_error(cv_sparse_regression(d$X, d$y, folds = 3, type.measure = "class"),
               "^`type.measure` = \"class\" is for family = \"binomial\"$")
})

test_that("bad family input names the argument", {
  d <- family_data(n = 20, p = 5)
  X <- d$X; y <- d$y
  expect_error(sparse_regression(X, y, 1, weights = rep(1, 19)),
               "^`weights` must be a numeric vector of length 20 \\(one per row of `X`\\), not of length 19$")
  expect_error(sparse_regression(X, y, 1, weights = c(-1, rep(1, 19))),
               "^`weights` must be non-negative$")
  expect_error(sparse_regression(X, y, 1, weights = c(NA, rep(1, 19))),
               "^`weights` contains NA, NaN or Inf$")
  expect_error(sparse_regression(X, y, 1, penalty.factor = rep(1, 4)),
               "^`penalty.factor` must be a numeric vector of length 5 \\(one per column of `X`\\), not of length 4$")
  expect_error(sparse_regression(X, y, 1, penalty.factor = c(-1, 1, 1, 1, 1)),
               "^`penalty.factor` must be non-negative$")
  expect_error(sparse_regression(X, y, 1, penalty.factor = rep(0, 5)),
               "^`penalty.factor` must have a positive entry")
  expect_error(sparse_regression(X, y, 1, family = "binomial"),
               "^`y` must be 0 or 1 \\(or a two-level factor\\) for family = \"binomial\"$")
  expect_error(sparse_regression(X, rep(1, 20), 1, family = "binomial"),
               "^`y` must hold both classes")
  expect_error(sparse_regression(X, c(-1, rpois(19, 2)), 1, family = "poisson"),
               "^`y` must be non-negative counts for family = \"poisson\"$")
  expect_error(sparse_regression(X, y, 1, family = "gamma"), "^`family` must be one of")
  expect_error(sparse_regression(X, d$yb, 1, family = "binomial", method = "sfw"),
               "^`method` = \"sfw\" supports family = \"gaussian\" only")
  expect_error(sparse_regression(X, y, 1, standardize = NA), "^`standardize` must be TRUE or FALSE$")
  expect_error(cv_sparse_regression(X, y, folds = 2, weights = rep(1, 3)), "^`weights` must")
  expect_error(predict(sparse_regression(X, y, 1), X, type = "class"), "^`type` must be one of")
})

test_that("init: a standardized fit resumes exactly; a vector is on the original scale", {
  d <- family_data()
  ctl <- function(k) cg_control(max_iter = k, eval_every = 3, tol = 0)
  a <- sparse_regression(d$X, d$y, radius = 4, face_step = FALSE, control = ctl(6))
  expect_identical(a$iterations, 6L)
  b <- sparse_regression(d$X, d$y, radius = 4, face_step = FALSE, init = a, control = ctl(4))
  one <- sparse_regression(d$X, d$y, radius = 4, face_step = FALSE, control = ctl(10))
  expect_identical(coef(b), coef(one))
  expect_match(b$notes[1], "^continued exactly")
  # a coefficient vector (original scale) at the solution stays there
  full <- sparse_regression(d$X, d$yb, radius = 2, family = "binomial", control = tight)
  warm <- sparse_regression(d$X, d$yb, radius = 2, family = "binomial",
                            init = coef(full)[-1], control = tight)
  expect_lt(max(abs(coef(warm) - coef(full))), 1e-8)
  expect_lte(warm$iterations, 2L)
})

test_that("poisson on a sparse X with weights and an unpenalized column: glmnet's solution", {
  skip_if_not_installed("glmnet")
  d <- family_data()
  set.seed(5)
  Xd <- d$X * (matrix(runif(d$n * d$p), d$n, d$p) < 0.4)
  Xs <- Matrix::Matrix(Xd, sparse = TRUE)
  pf <- c(0, rep(1, d$p - 1))
  b <- glmnet_coef(Xs, d$yp, family = "poisson", lambda = 0.05, weights = d$w,
                   penalty.factor = pf)
  r <- matched_radius(Xd, b[-1], w = d$w, pf = pf)
  fit <- sparse_regression(Xs, d$yp, radius = r, family = "poisson", weights = d$w,
                           penalty.factor = pf, control = tight)
  expect_true(fit$converged)
  expect_gt(fit$face_steps, 0)
  expect_lt(max(abs(coef(fit) - b)), 1e-5)
})

test_that("binomial and poisson fits resume exactly (init = fit): as one longer run", {
  d <- family_data()
  Xs <- Matrix::Matrix(d$X * (abs(d$X) > 0.7), sparse = TRUE)
  pf <- c(0, rep(1, d$p - 1))                  # a second unpenalized column: q = 2
  for (family in c("binomial", "poisson")) for (sparse in c(FALSE, TRUE))
    for (face in c(TRUE, FALSE)) {
      y <- if (family == "binomial") d$yb else d$yp
      XX <- if (sparse) Xs else d$X
      run <- function(k, init = NULL)
        sparse_regression(XX, y, radius = 6, family = family, weights = d$w,
                          penalty.factor = pf, face_step = face, init = init,
                          control = cg_control(max_iter = k, eval_every = 1, tol = 0))
      label <- paste(family, sparse, face)
      r <- expect_exact_resume(run, 4, 5, label = label)
      expect_identical(r$second$face_steps, r$long$face_steps, label = label)
      # without its state: a warm start (another run), said in the notes
      w <- warm_resume(run, 4, 5)
      expect_match(w$notes[1], "^warm start from a fit of 4 iterations", label = label)
    }
  # a state altered by hand is an error naming init
  f <- sparse_regression(d$X, d$yb, radius = 2, family = "binomial",
                         control = cg_control(max_iter = 3))
  f$state$state_eta <- f$state$state_eta[-1]
  expect_error(sparse_regression(d$X, d$yb, radius = 2, family = "binomial", init = f),
               "^`init` has an invalid `state` \\(altered by hand\\?\\)$")
})

test_that("weighted CV: fold losses aggregated by the folds' weight sums, as cv.glmnet", {
  d <- family_data(n = 90)
  folds <- rep(1:3, length.out = d$n)
  w <- d$w * ifelse(folds == 1, 4, 1)          # fold 1 weighs far more than its size
  W <- vapply(1:3, function(k) sum(w[folds == k]), 0)
  for (family in c("gaussian", "binomial")) {
    y <- if (family == "binomial") d$yb else d$y
    cv <- cv_sparse_regression(d$X, y, radius = c(0.5, 1, 2), folds = folds, family = family,
                               weights = w, control = tight)
    L <- cv$fold_loss
    cvm <- drop(L %*% W) / sum(W)
    expect_equal(cv$cv$cvm, cvm, tolerance = 1e-12)
    expect_equal(cv$cv$cvsd, sqrt(drop(((L - cvm)^2) %*% W) / sum(W) / 2), tolerance = 1e-12)
    # (by fold sizes the curve would differ: the test can fail)
    expect_gt(max(abs(rowMeans(L) - cvm)), 1e-6)
  }
  # the aggregation is cv.glmnet's: its per-fold weighted losses (from its
  # prevalidated predictions) through ours give its cvm and cvsd
  skip_if_not_installed("glmnet")
  g <- glmnet::cv.glmnet(d$X, d$y, weights = w, foldid = folds, keep = TRUE,
                         lambda = c(0.3, 0.1, 0.03))
  Lg <- sapply(1:3, function(k) {
    i <- folds == k
    colSums(w[i] * (d$y[i] - g$fit.preval[i, , drop = FALSE])^2) / sum(w[i])
  })
  cu <- cv_curve(Lg, cv_fold_weights(folds, w))
  expect_equal(unname(cu$cvm), unname(g$cvm), tolerance = 1e-12)
  expect_equal(unname(cu$cvsd), unname(g$cvsd), tolerance = 1e-12)
})

test_that("a warm-started glm path counts each fit's own iterations", {
  d <- family_data()
  Xs <- Matrix::Matrix(d$X * (abs(d$X) > 0.7), sparse = TRUE)
  path <- sparse_regression(Xs, d$yb, radius = c(0.5, 1, 2, 4), family = "binomial")
  it <- path$summary$iterations
  expect_true(all(it >= 0))
  expect_identical(sum(it), path$fits[[4]]$iterations)
  # the key of a state: a dgCMatrix's integer parts (its column pointers
  # pass 46340 at 5000 x 2000, 1% nonzero) without integer overflow
  expect_no_warning(fp <- stochcg:::fingerprint(c(50000L, 2L)))
  expect_identical(fp, stochcg:::fingerprint(c(50000, 2)))
})

test_that("a glm path in one solver call equals the chain of warm-started single fits", {
  d <- family_data()
  Xs <- Matrix::Matrix(d$X * (abs(d$X) > 0.7), sparse = TRUE)
  r <- c(0.5, 1, 2, 4)
  for (family in c("binomial", "poisson")) for (XX in list(d$X, Xs)) {
    y <- if (family == "binomial") d$yb else d$yp
    path <- sparse_regression(XX, y, radius = r, family = family, weights = d$w)
    prev <- NULL
    for (k in seq_along(r)) {
      f <- sparse_regression(XX, y, radius = r[k], family = family, weights = d$w, init = prev)
      expect_identical(coef(f), coef(path$fits[[k]]))
      expect_identical(f$iterations, path$fits[[k]]$iterations)
      expect_identical(f$gap, path$fits[[k]]$gap)
      prev <- f
    }
    expect_true(all(path$summary$converged))
    # the last fit keeps its state: it resumes exactly
    expect_false(is.null(path$fits[[4]]$state))
    expect_null(path$fits[[3]]$state)
  }
})

test_that("sparse X, lazy pairwise steps: glmnet's solution, a certificate of the stated problem", {
  skip_if_not_installed("glmnet")
  set.seed(8)
  n <- 400; p <- 300
  Xs <- Matrix::rsparsematrix(n, p, density = 0.03)
  beta <- numeric(p); beta[1:10] <- rnorm(10, sd = 2)
  y <- rbinom(n, 1, plogis(as.vector(Xs %*% beta)))
  Xd <- as.matrix(Xs)
  b <- glmnet_coef(Xs, y, family = "binomial", lambda = 0.01)
  r <- matched_radius(Xd, b[-1])
  fit <- sparse_regression(Xs, y, radius = r, family = "binomial", control = tight)
  expect_true(fit$converged)
  expect_gt(sum(b != 0), 40)
  expect_lt(max(abs(coef(fit) - b)), 1e-5)
  # the objective and gap are those of the coefficients reported (b
  # minimized at theta), and the gap bounds the distance to glmnet's optimum
  eta <- drop(coef(fit)[1] + Xd %*% coef(fit)[-1])
  obj <- mean(pmax(eta, 0) + log1p(exp(-abs(eta))) - y * eta)
  expect_equal(fit$objective, obj, tolerance = 1e-12)
  expect_equal(fit$linear.predictors, eta, tolerance = 1e-10)
  eg <- drop(b[1] + Xd %*% b[-1])
  ref <- mean(pmax(eg, 0) + log1p(exp(-abs(eg))) - y * eg)
  expect_lte(fit$objective - ref, fit$gap + 1e-12)
  # lazy: far fewer passes over X than steps
  expect_lt(fit$trace$epoch[nrow(fit$trace)], fit$iterations / 2)
  # the dense X (a pass over X per step) reaches the same solution
  dense <- sparse_regression(Xd, y, radius = r, family = "binomial", control = tight)
  expect_lt(max(abs(coef(dense) - coef(fit))), 1e-6)
})

test_that("sparse X, a large support (face steps by conjugate gradients): glmnet's solution", {
  skip_if_not_installed("glmnet")
  set.seed(8)
  n <- 600; p <- 500
  Xs <- Matrix::rsparsematrix(n, p, density = 0.02)
  beta <- numeric(p); beta[1:10] <- rnorm(10, sd = 2)
  y <- rbinom(n, 1, plogis(as.vector(Xs %*% beta)))
  b <- glmnet_coef(Xs, y, family = "binomial", lambda = 0.008)
  r <- matched_radius(as.matrix(Xs), b[-1])
  fit <- sparse_regression(Xs, y, radius = r, family = "binomial", control = tight)
  expect_true(fit$converged)
  expect_gt(sum(b != 0), 200)          # faces of more than 32 coordinates
  expect_gt(fit$face_steps, 0)
  expect_lt(max(abs(coef(fit) - b)), 1e-5)
})

test_that("dense n >> p, model steps (several coefficients a step): glmnet's solution, the gap", {
  skip_if_not_installed("glmnet")
  set.seed(31)
  n <- 1500; p <- 40
  X <- matrix(rnorm(n * p), n, p) %*% chol(0.6^abs(outer(1:p, 1:p, "-")))
  eta <- drop(X[, 1:12] %*% rnorm(12, sd = 0.4))
  ys <- list(binomial = rbinom(n, 1, plogis(eta)), poisson = rpois(n, exp(0.3 + 0.5 * eta)))
  for (family in names(ys)) {
    y <- ys[[family]]
    b <- glmnet_coef(X, y, family = family, lambda = 0.004)
    r <- matched_radius(X, b[-1])
    fit <- sparse_regression(X, y, radius = r, family = family, control = tight)
    expect_true(fit$converged, label = family)
    nnz <- sum(b[-1] != 0)
    expect_gt(nnz, 20, label = family)
    # a pairwise step adds at most one coefficient: fewer iterations than
    # nonzeros, the model steps found several at a time
    expect_lt(fit$iterations, nnz, label = family)
    expect_gt(fit$face_steps, 0, label = family)
    expect_lt(max(abs(coef(fit) - b)), 1e-5, label = family)
    # the certificate recomputed in R: the Frank-Wolfe gap of the theta
    # (standardized) problem at the reported coefficients, the intercept
    # minimized (its gradient zero)
    lp <- drop(coef(fit)[1] + X %*% coef(fit)[-1])
    mu <- if (family == "binomial") plogis(lp) else exp(lp)
    expect_lt(abs(mean(mu - y)), 1e-9, label = family)
    sdv <- sqrt(colMeans(sweep(X, 2, colMeans(X))^2))
    g <- drop(crossprod(X, mu - y)) / n / sdv
    gap <- sum(g * fit$theta) + r * max(abs(g))
    expect_lt(abs(fit$gap - gap), 1e-6 * gap + 1e-14, label = family)
    expect_lt(gap, 1e-10, label = family)
    # plain pairwise steps: the same solution
    plain <- sparse_regression(X, y, radius = r, family = family, face_step = FALSE,
                               control = tight)
    expect_lt(max(abs(coef(plain) - coef(fit))), 1e-6, label = family)
  }
})

test_that("dense p >> n Poisson and binomial, model steps solved by the active set: glmnet's solution", {
  # (issue 25, glmpois: the model step's quadratic on ~2 |S| columns, ill
  # conditioned near interpolation, solved exactly by an active set)
  skip_if_not_installed("glmnet")
  set.seed(32)
  n <- 100; p <- 1000
  X <- matrix(rnorm(n * p), n, p)
  eta <- drop(X[, 1:10] %*% rep(c(0.5, -0.4), 5))
  ys <- list(poisson = rpois(n, exp(eta / 2)), binomial = rbinom(n, 1, plogis(eta)))
  for (family in names(ys)) {
    y <- ys[[family]]
    lam <- if (family == "poisson") 0.02 else 0.01
    b <- glmnet_coef(X, y, family = family, lambda = lam)
    r <- matched_radius(X, b[-1])
    fit <- sparse_regression(X, y, radius = r, family = family, control = tight)
    expect_true(fit$converged, label = family)
    nnz <- sum(b[-1] != 0)
    expect_gt(nnz, 25, label = family)
    expect_lt(fit$iterations, nnz, label = family)
    expect_lt(max(abs(coef(fit) - b)), 1e-5, label = family)
    lp <- drop(coef(fit)[1] + X %*% coef(fit)[-1])
    mu <- if (family == "binomial") plogis(lp) else exp(lp)
    sdv <- sqrt(colMeans(sweep(X, 2, colMeans(X))^2))
    g <- drop(crossprod(X, mu - y)) / n / sdv
    gap <- sum(g * fit$theta) + r * max(abs(g))
    expect_lt(abs(fit$gap - gap), 1e-6 * gap + 1e-14, label = family)
    expect_lt(gap, 1e-10, label = family)
  }
})

test_that("the designs prepared in C are R's expressions bit for bit", {
  # column means and sds, the centred rows of a fold, the scaled columns and
  # the fingerprint: src/regression_data.c against the R expressions they
  # replace (the fits' results, and their states' keys, depend on every bit)
  set.seed(11)
  for (k in 1:12) {
    n <- c(1, 3, 40, 200, 1500)[1 + k %% 5]; p <- c(1, 7, 300)[1 + k %% 3]
    X <- matrix(rnorm(n * p, sd = 10^runif(1, -3, 6)), n, p,
                dimnames = if (k %% 2) list(paste0("r", seq_len(n)), paste0("c", seq_len(p))))
    w <- if (k %% 3) runif(n, 0, 3)
    wv <- if (is.null(w)) rep(1, n) else w
    m1 <- as.vector(crossprod(wv, X)) / n
    Xb <- X - rep(m1, each = n)
    mom <- stochcg:::column_moments(X, w)
    expect_identical(mom, list(mean = m1, sd = sqrt(as.vector(colSums(wv * Xb * Xb)) / n)))
    rows <- sort(sample(n, max(1, n - n %/% 3)))
    Xr <- X[rows, , drop = FALSE]
    xbar <- as.double(colMeans(Xr))
    y <- rnorm(n)
    cen <- stochcg:::regression_centring(X, y, rows)
    expect_identical(cen$X, Xr - rep(xbar, each = length(rows)))
    expect_identical(cen$centring$xbar, xbar)
    expect_identical(cen$y, y[rows] - mean(y[rows]))
    # a standardized fold: its centred rows scaled by 1 / (pf sd) in the same copy
    pf <- if (k %% 4) runif(p, 0.5, 2)
    Xc <- Xr - rep(xbar, each = length(rows))
    sdc <- stochcg:::column_moments(Xc, NULL)$sd
    csc <- numeric(p); ok <- sdc > 0
    csc[ok] <- 1 / ((if (is.null(pf)) 1 else pf[ok]) * sdc[ok])
    sc <- stochcg:::regression_centring(X, y, rows, list(standardize = TRUE, pf = pf))
    expect_identical(sc$X, Xc * rep(csc, each = length(rows)))
    expect_identical(sc$scales, list(sd = sdc, cs = csc))
    cs <- runif(p)
    expect_identical(stochcg:::scale_columns(X, cs), X * rep(cs, each = n))
    rs <- rowSums(X); csum <- colSums(X)
    expect_identical(stochcg:::fingerprint(X),
                     c(dim(X), sum(rs), sum(rs * rs), sum(rs * seq_len(n)),
                       sum(csum * seq_len(p)), sum(csum * (seq_len(p) %% 7 + 1))))
    # a fold's X'X / m from the full data's X'X and its held-out rows
    # (cv_sparse_regression() at n > p: the expressions R's fold_data() used)
    # (R's crossprod() itself: dense_crossprod() may be the C routine)
    xtx <- function(A) { G <- crossprod(A); dimnames(G) <- NULL; G }
    full <- xtx(X)
    held <- seq_len(n)[-rows]
    m <- length(rows)
    G0 <- (full - xtx(X[-rows, , drop = FALSE])) / m
    # ref: dsyrk's numbers by C (on the reference BLAS, as fold_data() calls
    # it), or dsyrk itself
    for (ref in unique(c(FALSE, stochcg:::ref_blas()))) {
      fg <- function(xb, cs) .Call(stochcg:::C_cg_fold_gram, X, held, full, m, xb, cs, ref)
      expect_identical(fg(NULL, NULL), G0)
      expect_identical(fg(xbar, NULL), G0 - tcrossprod(xbar))
      expect_identical(fg(xbar, csc), (G0 - tcrossprod(xbar)) * tcrossprod(csc))
      expect_identical(fg(NULL, csc), G0 * tcrossprod(csc))
    }
    # crossprod(X) and X[, nz] %*% b[nz] by C (used on the reference BLAS)
    if (stochcg:::ref_blas()) {
      expect_identical(stochcg:::dense_crossprod(X), full)
      expect_identical(.Call(stochcg:::C_cg_crossprod, X), full)
      expect_identical(.Call(stochcg:::C_cg_tcrossprod, X), unname(tcrossprod(X)))
      v <- rnorm(n)
      expect_identical(.Call(stochcg:::C_cg_gemv, X, v, TRUE), as.vector(crossprod(X, v)))
      b <- ifelse(runif(p) < 0.4, rnorm(p), 0)
      expect_identical(.Call(stochcg:::C_cg_gemv, X, b, FALSE), as.vector(X %*% b))
      nz <- which(b != 0)
      expect_identical(stochcg:::support_fitted(X, b), as.vector(X[, nz, drop = FALSE] %*% b[nz]))
      expect_identical(stochcg:::support_fitted(X, b, all = TRUE), as.vector(X %*% b))
    }
  }
  # held-out rows not all finite: NULL (fold_data() keeps the R expressions)
  X[2, 1] <- NA
  for (ref in c(FALSE, TRUE))
    expect_null(.Call(stochcg:::C_cg_fold_gram, X, 2L, crossprod(X[-1, ]), 1, NULL, NULL, ref))
  # where R's products would not call the BLAS (an entry not finite, or a
  # pair of entries whose sum overflows): NULL from C, and R's numbers
  expect_null(.Call(stochcg:::C_cg_crossprod, X))
  expect_null(.Call(stochcg:::C_cg_tcrossprod, X))
  expect_false(.Call(stochcg:::C_cg_blas_safe, X))
  expect_null(.Call(stochcg:::C_cg_gemv, diag(2), c(NA, 1), FALSE))
  expect_null(.Call(stochcg:::C_cg_gemv, diag(2), c(NA, 1), TRUE))
  X[1:2, 1] <- 1e308           # finite, but their sum is not
  expect_null(.Call(stochcg:::C_cg_crossprod, X))
  expect_null(.Call(stochcg:::C_cg_support_fitted, X, c(1, rep(0, ncol(X) - 1)), FALSE))
  # predict()'s X %*% b reads every column: a non-finite entry in a zero
  # coefficient's column sends it to R (whose product gives NaN there)
  Y <- matrix(rnorm(12), 4, 3); Y[2, 3] <- NaN
  b <- c(1.5, -2, 0)
  expect_identical(.Call(stochcg:::C_cg_support_fitted, Y, b, FALSE), as.vector(Y[, 1:2] %*% b[1:2]))
  expect_null(.Call(stochcg:::C_cg_support_fitted, Y, b, TRUE))
  expect_identical(stochcg:::support_fitted(Y, b, all = TRUE), as.vector(Y %*% b))
})

test_that("crossprod(X) and the support's X b by C: every block shape, exact sums", {
  # integer-valued entries: every order of summation gives the exact sums,
  # so the 4 x 4 blocks, the edge blocks and the mirrored triangle are
  # checked against R on any BLAS
  set.seed(12)
  for (n in c(0, 1, 2, 5, 33)) for (p in c(1, 2, 3, 4, 5, 7, 8, 9, 13)) {
    X <- matrix(as.double(sample(-20:20, n * p, replace = TRUE)), n, p)
    G <- .Call(stochcg:::C_cg_crossprod, X)
    expect_identical(G, unname(crossprod(X)), label = sprintf("%d x %d", n, p))
    expect_identical(.Call(stochcg:::C_cg_tcrossprod, X), unname(tcrossprod(X)))
    expect_identical(.Call(stochcg:::C_cg_tcrossprod, t(X)), unname(crossprod(X)))
    v <- as.double(sample(-5:5, n, replace = TRUE))
    expect_identical(.Call(stochcg:::C_cg_gemv, X, v, TRUE), as.vector(crossprod(X, v)))
    b <- as.double(sample(c(-3:3, 0, 0), p, replace = TRUE))
    expect_identical(.Call(stochcg:::C_cg_gemv, X, b, FALSE), as.vector(X %*% b))
    for (all in c(FALSE, TRUE))
      expect_identical(.Call(stochcg:::C_cg_support_fitted, X, b, all), as.vector(X %*% b))
  }
})

test_that("binomial CV, strong signal at n >> p: the grid goes past its top to the CV minimum", {
  skip_if_not_installed("glmnet")
  # 8 true coefficients of sd 2 on the logit: the default grid's top (the
  # l1 norm of one Newton step from the null model, whose variance 1/4 is
  # far above the fit's) lies below the CV minimum. The plain grid stopped
  # there (its minimum at its last radius): a one-SE choice of 7 nonzeros
  # against cv.glmnet's 12, test deviance 0.662 against 0.591.
  set.seed(1)
  n <- 600; p <- 40
  X <- matrix(rnorm(2 * n * p), 2 * n)
  y <- rbinom(2 * n, 1, plogis(drop(X[, 1:8] %*% rnorm(8, sd = 2))))
  tr <- seq_len(n)
  folds <- rep_len(1:10, n)
  cv <- cv_sparse_regression(X[tr, ], y[tr], folds = folds, family = "binomial")
  g <- glmnet::cv.glmnet(X[tr, ], y[tr], foldid = folds, family = "binomial")
  # the minimum inside the grid; the plain 30 radii (no refinement, no
  # radii past the top) with their CV errors among the rows, its minimum
  # at its last radius; past it the grid's own log spacing
  expect_lt(cv$index[["min"]], nrow(cv$cv))
  r <- cv$cv$radius
  old <- options(stochcg.cv_extend = FALSE, stochcg.cv_refine = FALSE)
  plain <- cv_sparse_regression(X[tr, ], y[tr], folds = folds, family = "binomial")
  options(stochcg.cv_refine = TRUE)
  main <- cv_sparse_regression(X[tr, ], y[tr], folds = folds, family = "binomial")
  options(old)
  # (the first row: radius 0, the null model)
  expect_identical(plain$cv$radius[1], 0)
  rp <- plain$cv$radius[-1]
  expect_identical(length(rp), 30L)
  expect_identical(plain$index[["min"]], 31L)
  expect_identical(main$index[["min"]], nrow(main$cv))
  expect_true(all(rp %in% r))
  expect_equal(cv$cv$cvm[match(rp, r)], plain$cv$cvm[-1], tolerance = 1e-12)
  step <- rp[30] / rp[29]
  past <- rp[30] * step^(1:3)
  expect_lt(max(vapply(past, function(x) min(abs(r - x)), 0)), 1e-12 * rp[30])
  # the one-SE choice: within 1.5x of cv.glmnet's nonzeros, test deviance
  # within 0.01 of cv.glmnet's (the plain grid's was 0.07 above)
  nz <- sum(coef(cv)[-1] != 0)
  nz_g <- g$nzero[[g$index[2]]]
  expect_lte(nz, 1.5 * nz_g)
  expect_gte(nz, nz_g / 1.5)
  dev <- function(mu) mean(-2 * (y[-tr] * log(mu) + (1 - y[-tr]) * log(1 - mu)))
  d_ours <- dev(predict(cv, X[-tr, ], type = "response"))
  d_g <- dev(drop(predict(g, X[-tr, ], s = "lambda.1se", type = "response")))
  expect_lt(d_ours, d_g + 0.01)
  expect_gt(dev(predict(main, X[-tr, ], type = "response")), d_g + 0.05)
  # the binomial fit at the l1 norm of cv.glmnet's one-SE solution (n >> p,
  # face steps once the support is found): glmnet's coefficients
  b <- glmnet_coef(X[tr, ], y[tr], family = "binomial", lambda = g$lambda.1se)
  fit <- sparse_regression(X[tr, ], y[tr], radius = matched_radius(X[tr, ], b[-1]),
                           family = "binomial", control = tight)
  expect_true(fit$converged)
  expect_lt(max(abs(coef(fit) - b)), 1e-5)
  expect_gt(fit$face_steps, 0)
})

test_that("binomial CV, separable classes: the default path ends by glmnet's deviance rule", {
  # two classes separated by the first column with a margin: the deviance
  # falls to zero along the radius, and the held-out deviance with it, so
  # the CV minimum would be at the top however far the grid went. As
  # glmnet's, the paths end after their first fit that explains more than
  # 99.9% of the null deviance (the plain grid, 30 radii from one Newton
  # step's l1 norm, ended at 5% of it, its minimum at its top).
  set.seed(4)
  n <- 50; p <- 20
  X <- matrix(rnorm(n * p), n)
  X[, 1] <- X[, 1] + sign(X[, 1])
  y <- as.double(X[, 1] > 0)
  folds <- rep_len(1:5, n)
  old <- options(stochcg.cv_refine = FALSE)
  cv <- cv_sparse_regression(X, y, folds = folds, family = "binomial")
  options(old)
  m <- mean(y)
  null <- -(m * log(m) + (1 - m) * log(1 - m))          # half the null deviance
  obj <- cv$path$summary$objective
  k <- length(obj)
  expect_gt(k, 30L)
  expect_lte(obj[k], 1e-3 * null)
  expect_gt(obj[k - 1L], 1e-3 * null)
  expect_identical(nrow(cv$cv), k)
  expect_true(all(cv$cv$converged))
  # the objective is half the mean deviance of the full-data fit
  eta <- drop(predict(cv$path$fits[[k]], X))
  expect_equal(obj[k], mean(-(y * eta - log1p(exp(eta)))), tolerance = 1e-10)
  # given radii are all fitted, past that point too
  r <- c(cv$cv$radius[k - 1L], cv$cv$radius[k], 2 * cv$cv$radius[k])
  cvr <- cv_sparse_regression(X, y, radius = r, folds = folds, family = "binomial")
  expect_identical(nrow(cvr$cv), 3L)
})

test_that("a singular face (collinear columns) still takes face steps: certified, far fewer steps", {
  # MASS::epil with the patient as a factor: its dummies sum to the
  # intercept and the baseline, age and treatment are constant within a
  # patient, so the face Hessian on a large support is singular. The face
  # step then solves with a tiny ridge (issue 25, glmcd); it refused the
  # step before and the fit crawled on pairwise steps (6668 iterations here
  # against 195).
  skip_if_not_installed("MASS")
  d <- MASS::epil
  X <- model.matrix(y ~ (lbase + lage + trt + V4)^2 + factor(subject), d)[, -1]
  set.seed(1)
  rows <- sort(sample(nrow(X), 189))
  X <- X[rows, ]
  y <- d$y[rows]
  X <- X[, colSums(X != 0) > 0]
  ctl <- cg_control(tol = 1e-10, max_iter = 1e6)
  fit <- sparse_regression(X, y, radius = 10, family = "poisson", control = ctl)
  plain <- sparse_regression(X, y, radius = 10, family = "poisson", face_step = FALSE,
                             control = ctl)
  expect_true(fit$converged)
  expect_true(plain$converged)
  # both certified: each objective within its gap of the optimum
  expect_lte(abs(fit$objective - plain$objective), fit$gap + plain$gap)
  expect_lt(fit$iterations, plain$iterations / 20)
  expect_gt(fit$face_steps, 0)
  expect_equal(fit$objective, mean(exp(fit$linear.predictors) - y * fit$linear.predictors) +
                 mean(ifelse(y > 0, y * log(y), 0) - y), tolerance = 1e-10)
})
