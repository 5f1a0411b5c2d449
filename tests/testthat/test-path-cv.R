# Paths over radii (fit_path) and K-fold cross-validation (cv_radius):
# warm starts, the one-SE rule, fold ids, the CV aggregation, choices on
# simulated data, predict/coef from the chosen fit, interrupts, bad input.

reg_data <- function(n = 120, p = 20, seed = 1) {
  set.seed(seed)
  X <- matrix(rnorm(n * p), n, p)
  beta <- c(3, -2, 1.5, 1, rep(0, p - 4))
  list(X = X, y = drop(X %*% beta + rnorm(n)), beta = beta)
}

comp_data <- function(m = 30, n = 24, N = 500, sd = 0.3, seed = 2) {
  set.seed(seed)
  truth <- tcrossprod(matrix(rnorm(m * 2), m), matrix(rnorm(n * 2), n))
  obs <- data.frame(row = sample(m, N, TRUE), col = sample(n, N, TRUE))
  obs$value <- truth[cbind(obs$row, obs$col)] + rnorm(N, sd = sd)
  list(obs = obs, truth = truth, dims = c(m, n))
}

test_that("sparse_regression(init = fit) continues a fw run as one longer run", {
  d <- reg_data(n = 60, p = 80)
  for (step in c("standard", "line_search")) {     # "standard" counts iterations
    run <- function(k, init = NULL)
      sparse_regression(d$X, d$y, 6, method = "fw", step = step, init = init,
                        control = cg_control(max_iter = k, tol = 0), intercept = FALSE, standardize = FALSE)
    first <- run(15)
    resumed <- run(10, init = first)
    long <- run(25)
    expect_equal(long$iterations, 25L)
    expect_equal(resumed$iterations, 25L)
    expect_equal(resumed$trace$iter[nrow(resumed$trace)], 25)
    expect_equal(coef(resumed), coef(long), tolerance = 1e-12)
    expect_equal(resumed$objective, long$objective, tolerance = 1e-12)
    expect_false(isTRUE(all.equal(coef(first), coef(long))))   # the 10 steps did move it
  }
})

test_that("every sparse_regression method resumed by init = fit equals one long run", {
  # fit$state: pfw's kept gradient, support order, cached Gram columns,
  # face-step credit and counters; the stochastic methods' sampler and
  # running statistics (Gram S, b, S beta, or the drawn rows' fitted values)
  d <- reg_data(n = 60, p = 25)
  Xs <- Matrix::Matrix(d$X * (abs(d$X) > 0.8), sparse = TRUE)
  ctl <- function(k) cg_control(max_iter = k, tol = 0, eval_every = 1L)
  fit <- function(X, method, ..., radius = 6)
    function(k, init = NULL) sparse_regression(X, d$y + 3, radius, method = method,
                                               batch_size = 4, init = init, ...,
                                               control = ctl(k), standardize = FALSE)
  cases <- list(
    pfw = fit(d$X, "pfw"), pfw_plain = fit(d$X, "pfw", face_step = FALSE),
    pfw_sparse = fit(Xs, "pfw", face_step = FALSE, radius = 2),
    pfw_no_intercept = fit(d$X, "pfw", intercept = FALSE),
    fw = fit(d$X, "fw"), fw_sparse = fit(Xs, "fw"),
    sfw = fit(d$X, "sfw"), sfw_sparse = fit(Xs, "sfw"),
    sfw_residual = fit(d$X, "sfw", gram = FALSE),
    sfw_replace = fit(d$X, "sfw", sampling = "replace", step = "standard"),
    sfw_stream = fit(Xs, "sfw", sampling = "stream", gram = FALSE, intercept = FALSE),
    spg = fit(d$X, "spg"), spg_sparse = fit(Xs, "spg", gram = FALSE),
    spg_replace = fit(d$X, "spg", sampling = "replace"))
  k1 <- 8L; k2 <- 12L
  for (label in names(cases)) {
    run <- cases[[label]]
    r <- expect_exact_resume(run, k1, k2, label = label)
    expect_identical(r$second$intercept, r$long$intercept, label = label)
    expect_identical(r$second$face_steps, r$long$face_steps, label = label)
    expect_identical(r$second$trace$iter, 0:(k1 + k2), label = label)
    # without its state: a warm start (so said) from beta, whose statistics
    # (or gradient, support order and credit) restart: another run
    warm <- warm_resume(run, k1, k2)
    expect_match(warm$notes, "^warm start from a fit of 8 iterations.* \\(of other data",
                 all = FALSE, label = label)
    expect_false(identical(warm$solution, r$long$solution) &&
                   identical(warm$trace$n_grad, r$long$trace$n_grad[-(1:k1)]), label = label)
  }
  # the stochastic methods: the restarted statistics change beta itself
  for (label in c("sfw", "sfw_residual", "spg", "pfw"))
    expect_false(identical(warm_resume(cases[[label]], k1, k2)$solution,
                           expect_exact_resume(cases[[label]], k1, k2)$long$solution),
                 label = label)
})

test_that("pfw resumed across its gradient refresh (every 10000 steps) equals one long run", {
  # the loop refreshes the kept gradient at global iterations 10000, 20000,
  # ...: a resumed run must refresh where the long one does, not at its start
  set.seed(3)               # two correlated columns: 10^4 steps do not converge
  X <- matrix(rnorm(80 * 30), 80); X[, 2] <- X[, 1] + 0.1 * rnorm(80)
  y <- drop(X[, 1:4] %*% c(3, -2, 1.5, 1) + rnorm(80))
  run <- function(k, init = NULL)
    sparse_regression(X, y, 5, face_step = FALSE, init = init,
                      control = cg_control(max_iter = k, tol = 0, eval_every = 1L), standardize = FALSE)
  for (k1 in c(9995L, 10000L)) expect_exact_resume(run, k1, 10L, label = k1)
})

test_that("a changed setting or other data make init a warm start; a bad state names init", {
  d <- reg_data(n = 60, p = 25)
  ctl <- cg_control(max_iter = 10, tol = 0, eval_every = 1L)
  set.seed(1)
  first <- sparse_regression(d$X, d$y, 6, method = "sfw", control = ctl, standardize = FALSE)
  warm_note <- "^warm start from a fit of 10 iterations"
  others <- list(
    radius = function(i) sparse_regression(d$X, d$y, 5, method = "sfw", init = i, control = ctl, standardize = FALSE),
    method = function(i) sparse_regression(d$X, d$y, 6, method = "spg", init = i, control = ctl, standardize = FALSE),
    K = function(i) sparse_regression(d$X, d$y, 6, method = "sfw", K = 3, init = i, control = ctl, standardize = FALSE),
    batch = function(i) sparse_regression(d$X, d$y, 6, method = "sfw", batch_size = 2,
                                          init = i, control = ctl, standardize = FALSE),
    gram = function(i) sparse_regression(d$X, d$y, 6, method = "sfw", gram = FALSE, init = i,
                                         control = ctl, standardize = FALSE),
    intercept = function(i) sparse_regression(d$X, d$y, 6, method = "sfw", intercept = FALSE,
                                              init = i, control = ctl, standardize = FALSE),
    data = function(i) sparse_regression(d$X, d$y + 1e-3, 6, method = "sfw", init = i,
                                         control = ctl, standardize = FALSE))
  for (k in names(others)) {
    f <- others[[k]](first)
    expect_match(f$notes, warm_note, all = FALSE, label = k)
    expect_false(any(grepl("continued exactly", f$notes)), label = k)
    expect_identical(f$trace$iter[1], 10L, label = k)   # counted on, not joined
    expect_identical(nrow(f$trace), 11L, label = k)
  }
  again <- function(i) sparse_regression(d$X, d$y, 6, method = "sfw", init = i, control = ctl, standardize = FALSE)
  bad <- first; bad$state$state_S <- bad$state$state_S[-1]
  expect_error(again(bad), "^`init` has an invalid `state` \\(altered by hand\\?\\)$")
  bad <- first; bad$state$state_order <- as.double(bad$state$state_order)
  expect_error(again(bad), "^`init` has an invalid `state`")
  bad <- first; bad$state$state_pos <- NULL
  expect_error(again(bad), "^`init` has an invalid `state`")
  pf <- sparse_regression(d$X, d$y, 6, control = ctl, standardize = FALSE)
  bad <- pf; bad$state$state_g[2] <- NA
  expect_error(sparse_regression(d$X, d$y, 6, init = bad, control = ctl, standardize = FALSE),
               "^`init` has an invalid `state`")
})

test_that("sparse_regression(init = vector) starts there, scaled into the ball", {
  d <- reg_data()
  opt <- sparse_regression(d$X, d$y, 5, control = cg_control(tol = 1e-12), intercept = FALSE, standardize = FALSE)
  # from the optimum: nothing to do
  again <- sparse_regression(d$X, d$y, 5, init = coef(opt), control = cg_control(tol = 1e-10), intercept = FALSE, standardize = FALSE)
  expect_lte(again$iterations, 2L)
  expect_equal(coef(again), coef(opt), tolerance = 1e-6)
  # outside the ball: scaled onto the sphere, then solved to the same optimum
  big <- sparse_regression(d$X, d$y, 5, init = 3 * coef(opt), method = "fw",
                           control = cg_control(max_iter = 0), intercept = FALSE, standardize = FALSE)
  expect_equal(coef(big), coef(opt), tolerance = 1e-12)     # 3 beta scaled back by 1/3
  expect_match(big$notes, "scaled from l1 norm 15 into the ball", fixed = TRUE)
})

test_that("a regression path equals separate fits each warm-started by the previous", {
  d <- reg_data()
  r <- c(4, 1, 2, 6)
  path <- sparse_regression(d$X, d$y, radius = r, intercept = FALSE, standardize = FALSE)
  expect_s3_class(path, "cg_path")
  expect_equal(path$radius, sort(r))
  prev <- NULL
  for (k in seq_along(path$radius)) {
    f <- sparse_regression(d$X, d$y, path$radius[k], init = prev, intercept = FALSE, standardize = FALSE)
    expect_identical(coef(path, radius = path$radius[k]), coef(f))
    expect_identical(path$fits[[k]]$objective, f$objective)
    prev <- f
  }
  s <- path$summary
  expect_equal(s$l1_norm, vapply(path$fits, function(f) sum(abs(coef(f))), 0))
  expect_equal(s$nonzero, vapply(path$fits, function(f) sum(coef(f) != 0), 0L))
  expect_equal(s$iterations[2], path$fits[[2]]$iterations - path$fits[[1]]$iterations)
  B <- coef(path)
  expect_equal(dim(B), c(20L, 4L))
  expect_identical(B[, 3], coef(path$fits[[3]]))
  P <- predict(path, d$X[1:5, ])
  expect_equal(P[, 2], drop(d$X[1:5, ] %*% coef(path$fits[[2]])))
  expect_identical(predict(path, d$X[1:5, ], index = 4), predict(path$fits[[4]], d$X[1:5, ]))
  out <- capture.output(print(path))
  expect_match(out[1], "sparse_regression path: 4 radii from 1 to 6")
})

test_that("warm starts past interpolation keep the cold start's scale of tol", {
  # n < p: from radius 5 on the fits interpolate (objective ~ 0). A warm
  # start there has no scale of its own; tol stays relative to the objective
  # at 0 (||y||^2 / 2n), as for a cold start, and every fit converges.
  set.seed(5)
  X <- matrix(rnorm(20 * 50), 20, 50)
  y <- drop(X[, 1:3] %*% c(2, -1, 1) + rnorm(20, sd = 0.5))
  path <- sparse_regression(X, y, radius = c(2, 5, 10, 20, 40), intercept = FALSE, standardize = FALSE)
  expect_true(all(path$summary$converged))
  expect_lt(max(path$summary$objective[-1]), 1e-12)
  expect_lt(max(path$summary$iterations[3:5]), 1000)
  expect_match(path$fits[[4]]$message, sprintf(
    "below tol x |objective at start| / 1000 = %.3g$", 1e-6 * 1e-3 * sum(y^2) / 40), fixed = FALSE)
})

test_that("a completion path equals separate warm-started fits", {
  d <- comp_data()
  ctl <- cg_control(max_iter = 40)
  path <- complete_matrix(d$obs, radius = c(10, 30, 20), method = "fw", dims = d$dims,
                          control = ctl)
  prev <- NULL
  for (k in 1:3) {
    f <- complete_matrix(d$obs, path$radius[k], method = "fw", dims = d$dims, init = prev,
                         control = ctl)
    expect_identical(as.matrix(coef(path, index = k)), as.matrix(coef(f)))
    prev <- f
  }
  expect_equal(path$summary$rank, vapply(path$fits, function(f) f$rank, 0L))
  new <- data.frame(row = 1:4, col = 4:1)
  expect_identical(predict(path, new, radius = 20), predict(path$fits[[2]], new))
  expect_equal(dim(predict(path, new)), c(4L, 3L))
})

test_that("one_se_rule picks the simplest model within one SE of the minimum", {
  cvm  <- c(5.0, 3.0, 2.25, 2.0, 2.1, 2.05)
  cvsd <- c(0.4, 0.3, 0.30, 0.3, 0.3, 0.30)
  # minimum 2.0 at 4; band 2.0 + 0.3 = 2.3: 2.25 (position 3) is the first within it
  expect_identical(one_se_rule(cvm, cvsd), c(min = 4L, "1se" = 3L))
  # ties at the minimum go to the simplest; the band uses the SE at the minimum
  expect_identical(one_se_rule(c(3, 1, 1, 2), c(9, 0.5, 0, 0)), c(min = 2L, "1se" = 2L))
  expect_identical(one_se_rule(c(1.4, 1, 2), c(0, 0.5, 0)), c(min = 2L, "1se" = 1L))
  expect_identical(one_se_rule(c(NA, 2, 1), c(NA, 0, 2)), c(min = 3L, "1se" = 2L))
  expect_error(one_se_rule(c(NA, NA), c(1, 1)),
               "^`cvm` must be a numeric vector with a finite value$")
  expect_error(one_se_rule(1:3, 1:2),
               "^`cvsd` must be a numeric vector of the length of `cvm` \\(3\\)$")
})

test_that("cv_sparse_regression uses the fold ids given and aggregates as cv.glmnet", {
  d <- reg_data()
  foldid <- rep(c(3, 1, 2), length.out = 120)
  foldid[1:5] <- 1                      # unequal fold sizes: weights matter
  r <- c(1, 2, 4, 6, 8)
  cvfit <- cv_sparse_regression(d$X, d$y, radius = r, folds = foldid, intercept = FALSE, standardize = FALSE)
  expect_identical(cvfit$foldid, as.integer(foldid))
  expect_equal(cvfit$folds, 3L)
  for (k in 1:3) {
    tr <- foldid != k
    path <- sparse_regression(d$X[tr, ], d$y[tr], radius = r, control = cg_control(progress = FALSE), intercept = FALSE, standardize = FALSE)
    mse <- vapply(path$fits, function(f)
      mean((d$y[!tr] - d$X[!tr, ] %*% coef(f))^2), 0)
    expect_equal(unname(cvfit$fold_loss[, k]), mse, tolerance = 1e-12)
  }
  w <- tabulate(foldid)
  cvm <- apply(cvfit$fold_loss, 1, weighted.mean, w = w)
  cvsd <- sqrt(apply((cvfit$fold_loss - cvm)^2, 1, weighted.mean, w = w) / 2)
  expect_equal(cvfit$cv$cvm, cvm)
  expect_equal(cvfit$cv$cvsd, cvsd)
  pick <- one_se_rule(cvm, cvsd)
  expect_identical(cvfit$index, pick)
  expect_equal(cvfit$radius.1se, r[pick[["1se"]]])
  full <- sparse_regression(d$X, d$y, radius = r, control = cg_control(progress = FALSE), intercept = FALSE, standardize = FALSE)
  expect_identical(coef(cvfit$fit), coef(full$fits[[pick[["1se"]]]]))
})

test_that("cv_sparse_regression chooses a radius near the truth's l1 norm", {
  d <- reg_data(n = 200, p = 30, seed = 3)
  set.seed(4)
  cvfit <- cv_sparse_regression(d$X, d$y, folds = 5, intercept = FALSE, standardize = FALSE)
  l1 <- sum(abs(d$beta))                               # 7.5
  # the lasso shrinks: the 1se choice lies a little inside the truth's ball
  expect_gte(cvfit$radius.1se, 0.75 * l1)
  expect_lte(cvfit$radius.1se, 1.05 * l1)
  expect_lte(cvfit$radius.1se, cvfit$radius.min)
  expect_gte(cvfit$radius.min, 0.85 * l1)
  expect_lte(cvfit$radius.min, 1.2 * l1)
  expect_true(all(coef(cvfit)[1:4] != 0))               # the true support kept at 1se
  # the 30 default radii, and 4 between two of them per refinement at the
  # one-SE edge (here one: the curve falls into the band in one step)
  grid <- stochcg:::default_regression_radii(d$X, d$y, 30L, 0.01)
  expect_identical(cvfit$cv$radius[cvfit$cv$radius %in% grid], grid)
  # (and first radius 0, the null model)
  expect_identical(cvfit$cv$radius[1], 0)
  expect_equal(nrow(cvfit$cv), 35L)
  expect_true(all(diff(cvfit$cv$radius) > 0))
  # predict and coef from the cg_cv object are those of the chosen fits
  newx <- d$X[1:7, ]
  expect_identical(predict(cvfit, newx), predict(cvfit$path$fits[[cvfit$index[["1se"]]]], newx))
  expect_identical(predict(cvfit, newx, s = "radius.min"),
                   predict(cvfit$path$fits[[cvfit$index[["min"]]]], newx))
  expect_identical(coef(cvfit, s = "radius.min"), coef(cvfit$path$fits[[cvfit$index[["min"]]]]))
  expect_identical(coef(cvfit, s = cvfit$cv$radius[3]), coef(cvfit$path$fits[[3]]))
  out <- capture.output(print(cvfit))
  expect_match(out[1], "sparse_regression: 5-fold cross-validation over 35 radii, mean squared error")
  expect_match(out[3], "^radius.min")
})

test_that("cv_sparse_regression's choices agree with cv.glmnet on the same folds", {
  skip_if_not_installed("glmnet")
  d <- reg_data(n = 200, p = 30, seed = 3)
  set.seed(4)
  foldid <- sample(rep_len(1:5, 200))
  cvfit <- cv_sparse_regression(d$X, d$y, folds = foldid, intercept = FALSE, standardize = FALSE)
  g <- glmnet::cv.glmnet(d$X, d$y, foldid = foldid, intercept = FALSE, standardize = FALSE,
                         thresh = 1e-12)
  # the lasso in penalized form is the l1-ball problem at radius
  # ||beta_lambda||_1: compare the curves in radius space. Our 1se choice
  # lies in glmnet's one-SE region (its curve, on a grid about 10 times
  # finer than ours, linear between grid points, within the minimum plus
  # the SE there); the radii agree to a step of our grid (17%).
  l1 <- colSums(abs(as.matrix(g$glmnet.fit$beta)))
  at <- function(x, y, r) stats::approx(x, y, xout = r, ties = mean)$y
  i <- which(g$lambda == g$lambda.min)
  expect_lte(at(l1, g$cvm, cvfit$radius.1se), g$cvm[i] + g$cvsd[i])
  expect_equal(cvfit$radius.1se, l1[g$lambda == g$lambda.1se], tolerance = 0.1,
               ignore_attr = TRUE)
  expect_equal(min(cvfit$cv$cvm), min(g$cvm), tolerance = 0.01)
})

# the n >> p design of the refinement tests: 10 true coefficients among 60
# correlated columns, 400 rows, 5 folds
refine_design <- function() {
  set.seed(1)
  n <- 400; p <- 60
  X <- matrix(rnorm(n * 5), n) %*% matrix(rnorm(5 * p), 5) + matrix(rnorm(n * p), n)
  beta <- c(rnorm(10, sd = 2), rep(0, p - 10))
  list(X = X, y = drop(X %*% beta + rnorm(n)), beta = beta, folds = rep_len(1:5, n))
}

test_that("at n >> p the default grid is refined at the one-SE edge: the 1se fit is as sparse as the truth", {
  # 10 true coefficients among 60 correlated columns, 400 rows: the CV
  # error falls steeply until the radius reaches about the truth's l1 norm,
  # where the noise variables enter; the plain grid's step (17%) jumps from
  # far above the one-SE band to past that elbow
  d <- refine_design(); X <- d$X; y <- d$y; folds <- d$folds; beta <- d$beta
  n <- nrow(X); p <- ncol(X)
  op <- options(stochcg.cv_refine = FALSE)          # the plain grid
  old <- tryCatch(cv_sparse_regression(X, y, folds = folds, standardize = FALSE),
                  finally = options(op))
  new <- cv_sparse_regression(X, y, folds = folds, standardize = FALSE)
  nnz <- function(f) sum(f$fit$solution$beta != 0)
  expect_gt(nnz(old), 2 * 10)                # the plain grid: past the elbow
  expect_lte(nnz(new), 1.5 * 10)             # refined: within 1.5x the true support
  big <- abs(beta) > 0.2                     # 9 of the 10 (the tenth: 0.076)
  expect_true(all(new$fit$solution$beta[big] != 0))
  # the plain grid's radii are all there, with the same fold losses and
  # fits; the others come in fours, log-spaced between two neighbours
  m <- match(old$cv$radius, new$cv$radius)
  expect_false(anyNA(m))
  expect_identical(new$fold_loss[m, ], old$fold_loss)
  expect_identical(lapply(new$path$fits[m], coef), lapply(old$path$fits, coef))
  extra <- setdiff(new$cv$radius, old$cv$radius)
  expect_true(length(extra) %in% c(4L, 8L))
  for (b in split(extra, rep(seq_len(length(extra) / 4), each = 4))) {
    lo <- max(new$cv$radius[new$cv$radius < min(b) & !new$cv$radius %in% b])
    hi <- min(new$cv$radius[new$cv$radius > max(b) & !new$cv$radius %in% b])
    expect_equal(b, exp(seq(log(lo), log(hi), length.out = 6))[2:5], tolerance = 1e-14)
  }
  # refined until the CV error falls by at most one SE (the minimum's)
  # from the one-SE radius's predecessor to it, or twice
  i <- new$index[["min"]]; j <- new$index[["1se"]]
  expect_true(length(extra) == 8L || new$cv$cvm[j - 1] - new$cv$cvm[j] <= new$cv$cvsd[i])
  expect_true(all(new$cv$converged))
  # cv.glmnet on the same folds: its 1se fit has 14 nonzeros here (the
  # plain grid's: 24)
  skip_if_not_installed("glmnet")
  g <- glmnet::cv.glmnet(X, y, foldid = folds, standardize = FALSE)
  nz_g <- g$nzero[g$lambda == g$lambda.1se]
  expect_lte(nnz(new), 1.5 * nz_g)
  expect_gte(nnz(new), nz_g / 1.5)
})

test_that("the default radii rise to the l1 norm of the least-squares solution", {
  d <- reg_data(n = 80, p = 10)
  top <- sum(abs(qr.solve(d$X, d$y)))
  expect_equal(stochcg:::default_regression_radii(d$X, d$y, 5, 0.01),
               top * 0.01^((4:0) / 4), tolerance = 1e-10)
  # n <= p: ridge with penalty 0.01 mean(diag(X'X))
  w <- reg_data(n = 8, p = 12)
  G <- crossprod(w$X)
  ridge <- solve(G + diag(0.01 * mean(diag(G)), 12), crossprod(w$X, w$y))
  expect_equal(stochcg:::least_squares(w$X, w$y), drop(ridge), tolerance = 1e-10)
  # the n x n form for p > 2000 gives the same ridge solution
  set.seed(9)
  Xw <- matrix(rnorm(5 * 2001), 5, 2001); yw <- rnorm(5)
  Gw <- crossprod(Xw)
  expect_equal(stochcg:::least_squares(Xw, yw),
               drop(solve(Gw + diag(0.01 * mean(diag(Gw)), 2001), crossprod(Xw, yw))),
               tolerance = 1e-8)
  # conjugate gradients (least_squares' branch for n^2 p > 1e9): the n x n
  # ridge system, of X and of the centred X - 1 xbar' (products by X only)
  set.seed(10)
  Xc <- matrix(rnorm(30 * 200), 30) + 2; yc <- rnorm(30)
  for (xbar in list(NULL, colMeans(Xc))) {
    Z <- if (is.null(xbar)) Xc else sweep(Xc, 2, xbar)
    K <- tcrossprod(Z)
    a <- solve(K + diag(0.01 * sum(diag(K)) / 200, 30), yc)
    expect_equal(stochcg:::ridge_cg(Xc, yc, xbar), a, tolerance = 1e-8)
  }
})

test_that("cv_complete_matrix chooses a radius that predicts held-out entries", {
  d <- comp_data(N = 500)
  set.seed(5)
  cvfit <- suppressWarnings(   # some fits stop at max_iter: said by a warning
    cv_complete_matrix(d$obs, folds = 4, nradius = 8, dims = d$dims, method = "fw",
                       center = "both", control = cg_control(max_iter = 150)))
  expect_s3_class(cvfit, "cg_cv")
  expect_equal(length(cvfit$foldid), 500L)
  # fold 2 by hand: the path on the other entries, squared error on its own
  tr <- cvfit$foldid != 2
  path <- complete_matrix(d$obs[tr, ], radius = cvfit$cv$radius, method = "fw", dims = d$dims,
                          center = "both", control = cg_control(max_iter = 150, progress = FALSE))
  test <- d$obs[!tr, ]
  mse <- vapply(path$fits, function(f) mean((test$value - predict(f, test))^2), 0)
  expect_equal(unname(cvfit$fold_loss[, 2]), mse, tolerance = 1e-12)
  # the chosen fit recovers unseen cells of the truth far better than the
  # most constrained fit, and within 10% of the best fit of the path whose
  # ball constraint is active (past it, at 500 entries of 720 cells, the
  # optimum interpolates the data and is not unique: which interpolant a
  # solver lands on decides its error on unseen cells, 0.49-0.51 here)
  set.seed(6)
  new <- data.frame(row = sample(30, 300, TRUE), col = sample(24, 300, TRUE))
  err <- function(f) sqrt(mean((predict(f, new) - d$truth[cbind(new$row, new$col)])^2))
  errs <- vapply(cvfit$path$fits, err, 0)
  active <- cvfit$path$summary$nuclear_norm >= (1 - 1e-6) * cvfit$path$summary$radius
  expect_gt(sum(active), 3L)
  expect_lt(err(cvfit$fit), 0.4 * errs[1])
  expect_lt(err(cvfit$fit), 1.1 * min(errs[active]))
  expect_lte(cvfit$radius.1se, cvfit$radius.min)
  expect_identical(predict(cvfit, new), predict(cvfit$fit, new))
  expect_equal(cvfit$cv$rank, cvfit$path$summary$rank)
})

test_that("cv_complete_matrix scores binomial folds by the deviance", {
  set.seed(7)
  obs <- data.frame(row = rep(1:15, each = 12), col = rep(1:12, 15))
  obs$value <- rbinom(180, 1, plogis(0.3 * (obs$row - 8) - 0.3 * (obs$col - 6)))
  foldid <- rep(1:3, 60)
  cvfit <- suppressWarnings(
    cv_complete_matrix(obs, radius = c(1, 4), folds = foldid, family = "binomial",
                       method = "fw", center = "none", control = cg_control(max_iter = 30)))
  expect_identical(cvfit$loss, "mean deviance")
  tr <- foldid != 3
  f <- complete_matrix(obs[tr, ], 4, family = "binomial", method = "fw", dims = c(15, 12),
                       init = complete_matrix(obs[tr, ], 1, family = "binomial", method = "fw",
                                              dims = c(15, 12),
                                              control = cg_control(max_iter = 30)),
                       control = cg_control(max_iter = 30))
  p <- predict(f, obs[!tr, ], type = "response")
  y <- obs$value[!tr]
  expect_equal(unname(cvfit$fold_loss[2, 3]), mean(-2 * (y * log(p) + (1 - y) * log(1 - p))),
               tolerance = 1e-12)
})

test_that("an interrupted path keeps its finished fits; an interrupted CV says where", {
  calls <- 0L
  fake <- function(radius, init) {
    calls <<- calls + 1L
    list(radius = radius, objective = 1 / radius, gap = 0, converged = TRUE,
         iterations = 1L, time = 0, solution = list(beta = c(radius, 0)),
         status = if (calls == 3L) "interrupted" else "converged", problem = "fake")
  }
  expect_warning(path <- stochcg:::fit_path(fake, list(), 1:4),
                 "^path interrupted by the user at radius 3 of 4 \\(3\\); the path holds the 2 fits finished before it$")
  expect_false(path$complete)
  expect_equal(path$radius, 1:2)
  expect_equal(path$summary$nonzero, c(1L, 1L))
  # CV: a fold whose path was interrupted stops the CV with the folds done
  n_paths <- 0L
  fit_units <- function(rows, radius, init = NULL) {
    n_paths <<- n_paths + 1L
    list(radius = radius, complete = n_paths < 3L, fits = list(),
         summary = data.frame(converged = rep(TRUE, length(radius))))
  }
  loss_units <- function(path, rows) c(1, 2)
  err <- tryCatch(stochcg:::cv_radius(fit_units, loss_units, c(1, 2, 3, 1, 2, 3), c(1, 2),
                                      "mse", "fake", cg_control(progress = FALSE), NULL, 0),
                  error = function(e) e)
  expect_s3_class(err, "cg_cv_interrupt")
  expect_identical(conditionMessage(err), paste(
    "cross-validation interrupted by the user (fold 2 of 3); the condition's `partial`",
    "holds the folds finished"))
  expect_equal(err$partial$fold_loss[, 1], c(1, 2))
  expect_true(all(is.na(err$partial$fold_loss[, 2:3])))
})

test_that("progress gives one message per fold, the fits inside stay quiet", {
  d <- reg_data(n = 30, p = 5)
  msgs <- character(0)
  withCallingHandlers(
    cv_sparse_regression(d$X, d$y, radius = c(1, 2), folds = rep(1:3, 10),
                         control = cg_control(progress = TRUE), intercept = FALSE, standardize = FALSE),
    message = function(m) { msgs <<- c(msgs, conditionMessage(m)); invokeRestart("muffleMessage") })
  expect_length(msgs, 4L)
  expect_match(msgs[1], "^CV: path of 2 radii on all the data in ")
  for (k in 1:3) expect_match(msgs[k + 1L], sprintf("^CV fold %d of 3: 2 fits in ", k))
})

test_that("plots of paths and CV curves draw", {
  d <- reg_data()
  path <- sparse_regression(d$X, d$y, radius = c(1, 3, 5), intercept = FALSE, standardize = FALSE)
  cvfit <- cv_sparse_regression(d$X, d$y, radius = c(1, 3, 5), folds = 3, intercept = FALSE, standardize = FALSE)
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off())
  expect_identical(plot(path), path)
  expect_identical(plot(cvfit), cvfit)
  expect_error(plot(path, what = "rank"), "^`what` = \"rank\" is for matrix paths$")
})

test_that("bad input to paths and cross-validation is rejected naming the argument", {
  d <- reg_data(n = 30, p = 5)
  expect_error(sparse_regression(d$X, d$y, radius = c(1, -1), intercept = FALSE, standardize = FALSE),
               "^`radius` must be positive finite numbers$")
  expect_error(sparse_regression(d$X, d$y, radius = c(1, 2, 1), intercept = FALSE, standardize = FALSE), "^`radius` has repeated values$")
  expect_error(sparse_regression(d$X, d$y, 1, init = 1:3, intercept = FALSE, standardize = FALSE),
               "^`init` must have length 5 \\(one per column of `X`\\), not 3$")
  expect_error(sparse_regression(d$X, d$y, 1, init = "a", intercept = FALSE, standardize = FALSE),
               "^`init` must be NULL, a fit of sparse_regression\\(\\) or a numeric vector$")
  expect_error(sparse_regression(d$X, d$y, 1, init = c(1, NA, 0, 0, 0), intercept = FALSE, standardize = FALSE),
               "^`init` contains NA, NaN or Inf$")
  other <- sparse_regression(d$X[, 1:3], d$y, 1, intercept = FALSE, standardize = FALSE)
  expect_error(sparse_regression(d$X, d$y, 1, init = other, intercept = FALSE, standardize = FALSE),
               "^`init` is a fit with 3 coefficients, but `X` has 5 columns$")
  path <- sparse_regression(d$X, d$y, radius = c(1, 2), intercept = FALSE, standardize = FALSE)
  expect_error(coef(path, radius = 1.5),
               "^`radius` must be one of the path's radii \\(1, 2\\), not 1.5$")
  expect_error(coef(path, index = 3), "^`index` must be at most 2$")
  expect_error(cv_sparse_regression(d$X, d$y, folds = 1, intercept = FALSE, standardize = FALSE), "^`folds` must be at least 2$")
  expect_error(cv_sparse_regression(d$X, d$y, folds = 31, intercept = FALSE, standardize = FALSE),
               "^`folds` must be at most the number of rows \\(30\\)$")
  expect_error(cv_sparse_regression(d$X, d$y, folds = rep(1:2, 10), intercept = FALSE, standardize = FALSE),
               "^`folds` must have one fold id per row \\(30\\), not 20$")
  expect_error(cv_sparse_regression(d$X, d$y, folds = rep(c(1, 3), 15), intercept = FALSE, standardize = FALSE),
               "^`folds` ids must be 1, \\.\\.\\., K with every fold used \\(fold 2 is empty\\)$")
  expect_error(cv_sparse_regression(d$X, d$y, folds = rep(1.5, 30), intercept = FALSE, standardize = FALSE),
               "^`folds` ids must be whole numbers from 1$")
  expect_error(cv_sparse_regression(d$X, d$y, radius = 2, intercept = FALSE, standardize = FALSE),
               "^`radius` must hold at least two values to choose from$")
  expect_error(cv_sparse_regression(d$X, d$y, init = rep(0, 5), intercept = FALSE, standardize = FALSE),
               "^`init` is not used by cross-validation \\(the path warm-starts itself\\)$")
  expect_error(cv_sparse_regression(d$X, d$y, nradius = 1, intercept = FALSE, standardize = FALSE), "^`nradius` must be at least 2$")
  expect_error(cv_sparse_regression(d$X, rep(0, 30), intercept = FALSE, standardize = FALSE),
               "^`radius` has no default: X'y is zero \\(is `y` zero\\?\\); give the radii$")
  cvfit <- cv_sparse_regression(d$X, d$y, radius = c(1, 2), folds = 3, intercept = FALSE, standardize = FALSE)
  expect_error(predict(cvfit, d$X, s = "lambda.min"),
               "^`s` must be one of \"radius.1se\", \"radius.min\", not \"lambda.min\"$")
  expect_error(coef(cvfit, s = 3), "^`s` must be one of the path's radii \\(1, 2\\), not 3$")
  c <- comp_data(N = 60)
  expect_error(cv_complete_matrix(c$obs, box = c(0, 1)),
               "^`box` is not available in cross-validation")
  expect_error(complete_matrix(c$obs, radius = c(1, 2), lambda = 0.1),
               "^`radius` must be a single number with `box` or `lambda`")
  expect_error(cv_complete_matrix(c$obs, folds = 61),
               "^`folds` must be at most the number of observed entries \\(60\\)$")
  expect_error(cv_complete_matrix(c$obs, folds = 1:3),
               "^`folds` must have one fold id per observed entry \\(60\\), not 3$")
})

test_that("short pieces end the CV's paths exactly where the stopping rule fires", {
  # a fake engine (no solver): every fit is its radius, the held-out loss a
  # prescribed curve, its minimum (radius 10) at the end of a piece of 5,
  # radii 11-13 above the minimum plus one SE. Pieces of 5 fit 11-15 on
  # all the data and in every fold; short pieces (designs of >= 1e6
  # entries) only 11-13, the three the rule needs.
  fitted <- new.env()
  fitted$r <- numeric(0)
  fit_units <- function(rows, radius, init) {
    if (is.null(rows)) fitted$r <- c(fitted$r, radius)
    list(fits = as.list(radius), radius = radius, complete = TRUE, time = 0,
         summary = data.frame(converged = rep(TRUE, length(radius))))
  }
  curve <- c(10:1, 3, 4, 5, 6, 7, 8, 9, 10)
  loss_units <- function(path, rows) curve[unlist(path$fits)] + rows[1] / 1000
  foldid <- rep(1:5, 4)
  run <- function(short) {
    fitted$r <- numeric(0)
    cv <- stochcg:::cv_radius(fit_units, loss_units, foldid, as.numeric(seq_along(curve)),
                              "loss", "fake", cg_control(), NULL, 0, early_stop = TRUE,
                              short_pieces = short)
    list(cv = cv, fitted = fitted$r)
  }
  long <- run(FALSE)
  short <- run(TRUE)
  expect_identical(long$fitted, as.numeric(1:15))
  expect_identical(short$fitted, as.numeric(1:13))
  expect_identical(short$cv$radius.min, 10)
  expect_identical(short$cv$radius.min, long$cv$radius.min)
  expect_identical(short$cv$radius.1se, long$cv$radius.1se)
  expect_identical(short$cv$cv, long$cv$cv[1:13, ])
})

test_that("the default grid stops past the CV minimum; the choice is the full grid's", {
  # a weak signal among many noise variables: the CV error rises well past
  # its minimum, towards the least-squares fit that ends the default grid
  set.seed(1)
  X <- matrix(rnorm(60 * 45), 60)
  d <- list(X = X, y = X[, 1] + rnorm(60, sd = 2))
  folds <- rep(1:5, 12)
  grid <- stochcg:::default_regression_radii(d$X, d$y, 30L, 0.01)
  early0 <- cv_sparse_regression(d$X, d$y, folds = folds, intercept = FALSE, standardize = FALSE)
  whole <- cv_sparse_regression(d$X, d$y, radius = grid, folds = folds, intercept = FALSE, standardize = FALSE)   # given radii: all
  # the default grid's first row, radius 0 (the zero model), is not in the
  # given grid: the rows after it are compared; here the zero model is the
  # CV minimum (the signal is weak), and the choices among the other rows
  # are the full grid's
  expect_identical(early0$cv$radius[1], 0)
  expect_identical(early0$radius.min, 0)
  early <- early0
  early$cv <- early0$cv[-1, ]
  k <- nrow(early$cv)
  pick <- one_se_rule(early$cv$cvm, early$cv$cvsd)
  early$radius.min <- early$cv$radius[pick[["min"]]]
  early$radius.1se <- early$cv$radius[pick[["1se"]]]
  early$path$fits <- early0$path$fits[-1]
  expect_lt(k, 30L)
  # pieces of 5 radii while the minimum is at the last radius, then only
  # the radii the rule needs: the path ends at most 4 radii after the first
  # radius where the rule (3 radii in a row above the minimum plus one SE,
  # on the curve so far) holds
  fires <- vapply(seq_len(k), function(j) {
    i <- which.min(whole$cv$cvm[seq_len(j)])
    j - i >= 3L && all(whole$cv$cvm[(j - 2):j] > whole$cv$cvm[i] + whole$cv$cvsd[i])
  }, NA)
  expect_true(fires[k])
  expect_lte(k - which(fires)[1], 4L)
  expect_equal(early$cv$radius, grid[seq_len(k)])
  expect_equal(early$cv$cvm, whole$cv$cvm[seq_len(k)], tolerance = 1e-10)
  # stopped because the last 3 radii lie above the minimum plus one SE
  i <- which.min(early$cv$cvm)
  expect_true(all(early$cv$cvm[(k - 2):k] > early$cv$cvm[i] + early$cv$cvsd[i]))
  expect_identical(early$radius.min, whole$radius.min)
  expect_identical(early$radius.1se, whole$radius.1se)
  expect_length(early$path$fits, k)
})

test_that("CV on a correlated design: every fit converges; shared Gram matrices change nothing", {
  # AR(1) columns with correlation 0.95: at the weakly constrained radii
  # pairwise steps alone need more than 2000 steps (28 of the 180 fits)
  set.seed(3)
  n <- 150; p <- 30
  Z <- matrix(rnorm(n * p), n, p)
  X <- Z
  for (j in 2:p) X[, j] <- 0.95 * X[, j - 1] + sqrt(1 - 0.95^2) * Z[, j]
  y <- drop(X %*% rnorm(p) + rnorm(n))
  folds <- rep(1:5, 30)
  ctl <- cg_control(tol = 1e-9, max_iter = 2000)
  shared <- expect_silent(cv_sparse_regression(X, y, folds = folds, control = ctl, intercept = FALSE, standardize = FALSE))
  expect_true(all(shared$cv$converged))
  # each fold's X'X / n (full data's less the held-out rows') against the
  # Gram columns each fit computes itself
  own <- cv_sparse_regression(X, y, folds = folds, gram = FALSE, control = ctl, intercept = FALSE, standardize = FALSE)
  expect_equal(shared$cv$radius, own$cv$radius)
  expect_equal(shared$cv$cvm, own$cv$cvm, tolerance = 1e-7)
  expect_identical(shared$index, own$index)
  # the fits along a fold's path, resumed chunk by chunk, reach the optimum
  # of a separate fit at the same radius
  r <- shared$radius.1se
  alone <- sparse_regression(X[folds != 2, ], y[folds != 2], r, control = ctl, intercept = FALSE, standardize = FALSE)
  expect_equal(unname(shared$fold_loss[shared$index[["1se"]], 2]),
               mean((y[folds == 2] - predict(alone, X[folds == 2, ]))^2), tolerance = 1e-6)
})

# ---- intercept --------------------------------------------------------------

test_that("a fw run with an intercept resumed by init = fit equals one long run", {
  d <- reg_data()
  y <- d$y + 5
  run <- function(k, init = NULL)
    sparse_regression(d$X, y, 6, method = "fw", step = "standard", init = init,
                      control = cg_control(max_iter = k, tol = 0), standardize = FALSE)
  first <- run(15)
  resumed <- run(10, init = first)
  long <- run(25)
  expect_identical(resumed$solution, long$solution)
  expect_identical(resumed$intercept, long$intercept)
  expect_identical(resumed$objective, long$objective)
  expect_identical(resumed$iterations, long$iterations)
  last <- function(f) unlist(f$trace[nrow(f$trace), c("iter", "objective", "gap")])
  expect_identical(last(resumed), last(long))
  # a cold start of 10 iterations is elsewhere: init carries the run
  expect_false(identical(run(10)$solution, long$solution))
})

test_that("cv_sparse_regression centres each fold by its training rows; the curve is glmnet's at our radii", {
  skip_if_not_installed("glmnet")
  x <- scale(as.matrix(mtcars[, -1])); y <- mtcars$mpg
  set.seed(11)
  foldid <- sample(rep_len(1:5, 32))
  r <- c(2, 4, 6)
  cvfit <- cv_sparse_regression(x, y, radius = r, folds = foldid,
                                control = cg_control(tol = 1e-12), standardize = FALSE)
  # each fold: glmnet with an intercept on the training rows, at the
  # lambda whose solution has l1 norm r (bisection), scored on the fold
  glmnet_at <- function(X, y, r) {
    lo <- 1e-6; hi <- 20
    for (it in 1:60) {
      mid <- sqrt(lo * hi)
      b <- as.vector(coef(glmnet::glmnet(X, y, standardize = FALSE, thresh = 1e-16,
                                         lambda = mid)))
      if (sum(abs(b[-1])) > r) lo <- mid else hi <- mid
    }
    b
  }
  for (k in 1:5) {
    tr <- foldid != k
    loss <- vapply(r, function(rr) {
      b <- glmnet_at(x[tr, ], y[tr], rr)
      mean((y[!tr] - b[1] - x[!tr, ] %*% b[-1])^2)
    }, 0)
    # glmnet's l1 norm within 1e-12 relative of r after 60 halvings; its
    # coefficients to ~1e-7: 1.8e-6 measured on losses of 2 to 55
    expect_equal(cvfit$fold_loss[, k], loss, tolerance = 1e-6, ignore_attr = TRUE)
    # the fold's fits centre by its own rows' means, never the held-out rows'
    path <- sparse_regression(x[tr, ], y[tr], radius = r, control = cg_control(tol = 1e-12), standardize = FALSE)
    expect_equal(cvfit$fold_loss[, k],
                 vapply(path$fits, function(f) mean((y[!tr] - predict(f, x[!tr, ]))^2), 0),
                 tolerance = 1e-10, ignore_attr = TRUE)
  }
  expect_identical(cvfit$path$fits[[1]]$x_center, colMeans(x))
})

test_that("cv_sparse_regression with an intercept on mtcars: several nonzeros, glmnet's CV error", {
  skip_if_not_installed("glmnet")
  x <- scale(as.matrix(mtcars[, -1])); y <- mtcars$mpg
  set.seed(11)
  foldid <- sample(rep_len(1:5, 32))
  cvfit <- cv_sparse_regression(x, y, folds = foldid, standardize = FALSE)
  g <- glmnet::cv.glmnet(x, y, foldid = foldid, standardize = FALSE, thresh = 1e-12)
  expect_gte(cvfit$cv$nonzero[cvfit$index[["min"]]], 3)
  # our curve is over the radius, glmnet's over lambda (see
  # ?cv_sparse_regression): the minima differ (ours 7.9, glmnet's 9.3 on
  # these folds; 6 to 17% lower on four fold draws), never ours above
  expect_lte(min(cvfit$cv$cvm), 1.05 * min(g$cvm))
  expect_gte(min(cvfit$cv$cvm), 0.7 * min(g$cvm))
  # the problem the intercept fixes: predicting ~0 for mpg ~ 20
  off <- cv_sparse_regression(x, y, folds = foldid, intercept = FALSE, standardize = FALSE)
  expect_gt(min(off$cv$cvm), 20 * min(cvfit$cv$cvm))
  # coef and predict at the choices carry the intercept
  b <- coef(cvfit, s = "radius.min")
  expect_identical(names(b)[1], "(Intercept)")
  expect_equal(predict(cvfit, x[1:4, ], s = "radius.min"),
               b[1] + drop(x[1:4, ] %*% b[-1]), tolerance = 1e-13, ignore_attr = TRUE)
  expect_error(cv_sparse_regression(x, y, intercept = NA, standardize = FALSE), "^`intercept` must be TRUE or FALSE$")
})

test_that("with an intercept the default radii are those of the centred data", {
  d <- reg_data(n = 80, p = 10)
  X <- d$X + 3; y <- d$y + 7
  top <- sum(abs(coef(lm(y ~ X))[-1]))
  expect_equal(stochcg:::default_regression_radii(X, y, 5, 0.01, intercept = TRUE),
               top * 0.01^((4:0) / 4), tolerance = 1e-10)
  # the n x n and diagonal forms of the centred least squares (p > 2000)
  set.seed(9)
  Xw <- matrix(rnorm(5 * 2001), 5, 2001) + 2; yw <- rnorm(5) + 1
  Xc <- sweep(Xw, 2, colMeans(Xw)); yc <- yw - mean(yw)
  expect_equal(stochcg:::least_squares(Xw, yc, colMeans(Xw)),
               stochcg:::least_squares(Xc, yc), tolerance = 1e-8)
  Xs <- Matrix::rsparsematrix(2100, 2001, 0.002)
  ys <- rnorm(2100)
  Xsc <- sweep(as.matrix(Xs), 2, Matrix::colMeans(Xs))
  expect_equal(stochcg:::least_squares(Xs, ys - mean(ys), Matrix::colMeans(Xs)),
               stochcg:::least_squares(Xsc, ys - mean(ys)), tolerance = 1e-10)
})

test_that("a CV at n > p computes X'X once for its default radii and its folds: the same numbers", {
  # the radii from the X'X the folds share equal those least_squares()
  # computes itself, and lm's; the folds' shared Gram matrices give the
  # fits each computes alone
  d <- reg_data(n = 120, p = 12)
  X <- d$X + 2; y <- d$y + 1
  folds <- rep(1:4, 30)
  cv <- cv_sparse_regression(X, y, folds = folds, standardize = FALSE, nradius = 8)
  grid <- stochcg:::default_regression_radii(X, y, 8, 0.01, intercept = TRUE)
  fitted <- cv$cv$radius[cv$cv$radius %in% grid]
  expect_gte(length(fitted), 3)
  expect_identical(fitted, grid[seq_along(fitted)])
  expect_equal(max(grid), sum(abs(coef(lm(y ~ X))[-1])), tolerance = 1e-10)
  own <- cv_sparse_regression(X, y, folds = folds, standardize = FALSE, nradius = 8, gram = FALSE)
  expect_identical(cv$cv$radius, own$cv$radius)
  expect_equal(cv$cv$cvm, own$cv$cvm, tolerance = 1e-7)
})

test_that("a fold sharing X'X / n carries its X'y / n, computed once: the fold's paths unchanged", {
  # fold_data() at n > p gives each fold's X'X / n its X'y / n (of the
  # fold's centred, scaled rows as the solver gets them), which every piece
  # of the fold's path passes to the solver instead of a pass over the rows
  d <- reg_data(n = 150, p = 20)
  X <- d$X + 1; y <- d$y + 2
  rows <- setdiff(seq_len(150), seq(1, 150, by = 5))
  for (scale in list(NULL, list(standardize = TRUE, pf = NULL))) {
    data_of <- stochcg:::fold_data(X, y, list(), 5L, intercept = TRUE, scale = scale)
    f <- data_of(rows)
    on.exit(stochcg:::fold_data_release(data_of), add = TRUE)
    xty <- attr(f$gram, "stochcg_fold_xty", exact = TRUE)
    expect_length(xty, 20)
    # against R's crossprod of the fold's centred (scaled) rows
    Xc <- X[rows, ] - rep(colMeans(X[rows, ]), each = length(rows))
    if (!is.null(scale)) Xc <- Xc * rep(1 / f$sd, each = length(rows))
    expect_equal(xty, as.vector(crossprod(Xc, y[rows] - mean(y[rows]))) / length(rows),
                 tolerance = 1e-13)
    # a fold's path (several radii, then a piece of one radius from its
    # last fit) with the X'y / n given or computed by the solver: identical
    path <- function(gram, radius, init = NULL)
      stochcg:::regression_core(f$X, f$y, radius = radius, intercept = f$intercept, gram = gram,
                                init = init, control = cg_control(tol = 1e-9))
    bare <- f$gram
    attr(bare, "stochcg_fold_xty") <- NULL
    r <- c(0.2, 0.6, 1.5) * max(abs(xty)) * 10
    a <- path(f$gram, r); b <- path(bare, r)
    expect_identical(lapply(a$fits, function(x) x$solution$beta),
                     lapply(b$fits, function(x) x$solution$beta))
    expect_true(all(a$summary$converged))
    a1 <- path(f$gram, 2 * r[3], a$fits[[3]]); b1 <- path(bare, 2 * r[3], b$fits[[3]])
    expect_identical(a1$fits[[1]]$solution$beta, b1$fits[[1]]$solution$beta)
    expect_identical(a1$fits[[1]]$iterations, b1$fits[[1]]$iterations)
  }
})

test_that("cv and paths on a sparse X with an intercept equal the dense ones", {
  d <- reg_data(n = 120, p = 20)
  Xd <- (d$X + 1) * (abs(d$X) > 0.7)
  Xs <- Matrix::Matrix(Xd, sparse = TRUE)
  folds <- rep_len(1:4, 120)
  ctl <- cg_control(tol = 1e-12)
  a <- cv_sparse_regression(Xs, d$y, folds = folds, nradius = 10, control = ctl, standardize = FALSE)
  b <- cv_sparse_regression(Xd, d$y, folds = folds, nradius = 10, control = ctl, standardize = FALSE)
  expect_equal(a$cv$radius, b$cv$radius, tolerance = 1e-12)
  expect_equal(a$fold_loss, b$fold_loss, tolerance = 1e-10)
  expect_equal(coef(a), coef(b), tolerance = 1e-10)
})

test_that("cv_complete_matrix extends its default radii upward while the minimum is at the top", {
  set.seed(2)
  m <- 40; n <- 30                          # rank 2; 150 entries
  truth <- tcrossprod(matrix(rnorm(m * 2), m), matrix(rnorm(n * 2), n))
  obs <- data.frame(row = sample(m, 150, TRUE), col = sample(n, 150, TRUE))
  obs$value <- truth[cbind(obs$row, obs$col)] + rnorm(150, sd = 0.05)
  # plain FW budgets (no subspace refit), on whose fits this grid's CV
  # minimum lies beyond the default grid (the extension logic is the test)
  old <- options(stochcg.refit_steps = 0L)
  on.exit(options(old))
  run <- function(radius = NULL) {
    set.seed(11)                            # the same folds for both calls
    suppressWarnings(cv_complete_matrix(obs, radius = radius, folds = 4, nradius = 6,
                                        method = "fw", center = "both",
                                        control = cg_control(max_iter = 100, tol = 0)))
  }
  ext <- run()
  grid <- ext$cv$radius[1:6]
  expect_lt(max(grid), sum(svd(truth)$d))   # the default grid stops short of the truth
  # given those radii, the minimum sits at the top: no extension
  given <- run(grid)
  expect_identical(nrow(given$cv), 6L)
  expect_identical(given$radius.min, max(grid))
  # by default the grid went on in its own spacing until the minimum was inside,
  # and found a better radius beyond the default grid
  expect_gt(nrow(ext$cv), 6L)
  expect_equal(diff(log(ext$cv$radius)), rep(log(grid[2] / grid[1]), nrow(ext$cv) - 1L),
               tolerance = 1e-12)
  expect_gt(ext$radius.min, max(grid))
  expect_lt(ext$radius.min, max(ext$cv$radius))
  expect_lt(min(ext$cv$cvm), min(given$cv$cvm))
})

test_that("p >> n paths up to interpolation converge, with KKT on every coordinate", {
  # supports of more columns than rows (a singular Gram block) near the
  # interpolating radii: the face steps drop columns along null directions
  set.seed(11)
  n <- 30; p <- 300
  X <- matrix(rnorm(n * 3), n) %*% matrix(rnorm(3 * p), 3) + matrix(rnorm(n * p), n)
  y <- drop(X[, 1:5] %*% c(2, -2, 1, 1, -1) + rnorm(n))
  r <- stochcg:::default_regression_radii(X, y, 20L, 0.01, intercept = TRUE)
  path <- sparse_regression(X, y, radius = r, standardize = FALSE)
  expect_true(all(path$summary$converged))
  Xc <- scale(X, scale = FALSE); yc <- y - mean(y)
  for (k in seq_along(r)) {
    b <- path$fits[[k]]$solution$beta
    g <- drop(crossprod(Xc, Xc %*% b - yc)) / n         # on all p coordinates
    lam <- max(abs(g))
    gap <- sum(g * b) + r[k] * lam                       # the exact duality gap
    expect_lte(gap, path$fits[[k]]$gap + 1e-12)
    expect_lte(gap, 1e-6 * max(path$fits[[k]]$objective, 1e-3 * sum(yc^2) / (2 * n)) + 1e-15)
    S <- b != 0
    if (sum(abs(b)) < r[k] * (1 - 1e-9)) next            # inside the ball: g ~ 0
    # on the sphere: g_j = -lam sign(b_j) on the support (to sqrt of the gap)
    expect_lt(max(abs(g[S] + lam * sign(b[S]))), 1e-4 * lam + sqrt(max(gap, 0)))
  }
  # the one-call path gives the fits of separate calls warm-started in turn
  prev <- NULL
  for (k in c(1, 2)) {
    f <- sparse_regression(X, y, r[k], init = prev, standardize = FALSE)
    expect_equal(coef(f), coef(path$fits[[k]]), tolerance = 1e-12)
    prev <- f
  }
})

test_that("the default grid's paths end as glmnet's, after 99.9% of the variance explained", {
  set.seed(12)
  n <- 40; p <- 200
  X <- matrix(rnorm(n * p), n)
  y <- drop(X[, 1:5] %*% c(3, -2, 2, 1, -1) + rnorm(n, sd = 0.3))
  folds <- rep(1:4, 10)
  cvfit <- suppressWarnings(cv_sparse_regression(X, y, folds = folds, standardize = FALSE))
  obj0 <- sum((y - mean(y))^2) / (2 * n)
  obj <- cvfit$path$summary$objective
  k <- length(obj)
  expect_lt(k, 30L)                                 # ended before the grid's top
  expect_true(all(obj[-k] > 1e-3 * obj0))           # no earlier fit explained 99.9%
  expect_lte(obj[k], 1e-3 * obj0)
  expect_true(all(cvfit$cv$converged))
  # each fold's losses are those of its own path, up to its end, and past
  # it (it explained 99.9% of its y) the loss of its last fit
  r <- cvfit$cv$radius[-1]                 # (radius 0, the null model: its own test)
  for (f in 1:4) {
    tr <- folds != f
    path <- sparse_regression(X[tr, ], y[tr], radius = r, standardize = FALSE)
    o0 <- sum((y[tr] - mean(y[tr]))^2) / (2 * sum(tr))
    end <- which(path$summary$objective <= 1e-3 * o0)[1]
    if (is.na(end)) end <- length(r)
    mse <- vapply(path$fits, function(fit) mean((y[!tr] - predict(fit, X[!tr, ]))^2), 0)
    expect_equal(unname(cvfit$fold_loss[-1, f]), c(mse[seq_len(end)], rep(mse[end], length(r) - end)),
                 tolerance = 1e-8)
  }
})

test_that("the folds' lean fits give the CV of whole fits exactly, unconverged fits counted", {
  # p >> n with an intercept, the default grid (pieces warm-started from
  # the previous piece's last fit, paths ended by glmnet's rule), raw and
  # standardized; option stochcg.lean_cv = FALSE makes every fold fit whole
  set.seed(21)
  n <- 40; p <- 300
  X <- matrix(rnorm(n * p), n)
  y <- drop(X[, 1:6] %*% c(3, -2, 2, 1, -1, 1) + rnorm(n))
  folds <- rep(1:5, 8)
  same_cv <- function(lean, whole) {
    expect_identical(lean$cv, whole$cv)
    expect_identical(lean$fold_loss, whole$fold_loss)
    expect_identical(lean$index, whole$index)
    expect_identical(lean$fit$solution, whole$fit$solution)
    expect_identical(lean$fit$intercept, whole$fit$intercept)
    expect_identical(lapply(lean$path$fits, `[[`, "solution"),
                     lapply(whole$path$fits, `[[`, "solution"))
  }
  whole_cv <- function(...) {
    old <- options(stochcg.lean_cv = FALSE)
    on.exit(options(old))
    cv_sparse_regression(...)
  }
  for (std in c(FALSE, TRUE)) {
    lean <- cv_sparse_regression(X, y, folds = folds, standardize = std)
    whole <- whole_cv(X, y, folds = folds, standardize = std)
    expect_gt(nrow(lean$cv), 5L)             # more than one piece of the grid
    same_cv(lean, whole)
  }
  # a budget too small for every fit: the same fits counted as unconverged,
  # in the same warning
  ctl <- cg_control(max_iter = 15)
  msg <- function(f) tryCatch({ f(); NA_character_ }, warning = conditionMessage)
  m_lean <- msg(function() cv_sparse_regression(X, y, folds = folds, control = ctl))
  m_whole <- msg(function() whole_cv(X, y, folds = folds, control = ctl))
  expect_match(m_lean, "^[0-9]+ of [0-9]+ fits did not reach tol")
  expect_identical(m_lean, m_whole)
  lean <- suppressWarnings(cv_sparse_regression(X, y, folds = folds, control = ctl))
  whole <- suppressWarnings(whole_cv(X, y, folds = folds, control = ctl))
  expect_false(all(lean$cv$converged))
  same_cv(lean, whole)
  # the glm families' fold paths (glm_path()), lean the same way
  yb <- as.numeric(y > median(y))
  for (ctl in list(cg_control(), cg_control(max_iter = 3))) {
    lean <- suppressWarnings(cv_sparse_regression(X, yb, family = "binomial", folds = folds,
                                                  control = ctl))
    whole <- suppressWarnings(whole_cv(X, yb, family = "binomial", folds = folds,
                                       control = ctl))
    same_cv(lean, whole)
  }
  expect_false(all(lean$cv$converged))
  # Poisson counts with zeros (the held-out deviance's y = 0 terms), fold
  # paths lean to their last fit: the CV of whole fits
  yp <- rpois(n, exp(0.3 * X[, 1] - 0.3 * X[, 2]))
  expect_true(any(yp == 0))
  lean <- cv_sparse_regression(X, yp, family = "poisson", folds = folds)
  whole <- whole_cv(X, yp, family = "poisson", folds = folds)
  expect_gt(nrow(lean$cv), 5L)
  same_cv(lean, whole)
})

test_that("the held-out Poisson deviance is stats::poisson()'s unit deviance", {
  set.seed(23)
  y <- c(0, 0, rpois(30, 3), 0)
  mu <- exp(rnorm(length(y)))
  dev <- getFromNamespace("heldout_loss", "stochcg")("poisson")
  expect_equal(dev(y, mu), stats::poisson()$dev.resids(y, mu, 1), tolerance = 1e-15)
  expect_identical(dev(y, mu)[y == 0], 2 * mu[y == 0])
})

test_that("a lean fold path's results from C: state only in the last, the same named coefficients", {
  # regression_core() with control attribute lean_path (what cv_sparse_regression()
  # sets on its folds' fits): the C side returns the fits before the last
  # without solver state or trace rows; the coefficients, names included,
  # objectives, gaps and iterations are those of the whole path's fits
  set.seed(22)
  n <- 30; p <- 80
  X <- matrix(rnorm(n * p), n, dimnames = list(NULL, paste0("x", seq_len(p))))
  y <- drop(X[, 1:3] %*% c(2, -1, 1) + rnorm(n))
  radii <- c(0.5, 1, 2, 3)
  ctl <- cg_control()
  attr(ctl, "lean_path") <- TRUE
  got <- new.env()
  ns <- asNamespace("stochcg")
  suppressMessages(trace("path_results", print = FALSE, where = ns,
                         exit = bquote(assign("results", returnValue(), envir = .(got)))))
  on.exit(suppressMessages(untrace("path_results", where = ns)))
  lean <- stochcg:::regression_core(X, y, radii, control = ctl)
  res <- got$results$results
  whole <- stochcg:::regression_core(X, y, radii)
  expect_length(res, length(radii))
  for (k in 1:3) {
    expect_named(res[[k]]$solution, "beta")
    expect_named(res[[k]]$trace, c("time", "objective", "gap"))
    expect_length(res[[k]]$trace$objective, 1L)
  }
  expect_length(res[[4]]$solution$state_g, p)        # the last: whole, its state
  for (k in seq_along(radii)) {
    expect_identical(lean$fits[[k]]$solution$beta, whole$fits[[k]]$solution$beta)
    expect_identical(lean$fits[[k]][c("objective", "gap", "iterations", "intercept")],
                     whole$fits[[k]][c("objective", "gap", "iterations", "intercept")])
    expect_identical(!is.null(lean$fits[[k]]$state), k == length(radii))
  }
})

test_that("the refinement's fold paths start from each fold's own fit at the smaller radius", {
  # the n >> p design of the refinement test above: each fold's refined
  # path (4 radii between radius[j - 1] and radius[j]) warm-started from
  # that fold's grid fit at radius[j - 1] (its coefficients exactly), in
  # fewer iterations than from zero, each fit certified as the cold ones
  d <- refine_design(); X <- d$X; y <- d$y; folds <- d$folds; beta <- d$beta
  n <- nrow(X); p <- ncol(X)
  calls <- new.env()
  # (each fold path's task and result, recorded by a trace on the task)
  calls$log <- list()
  suppressMessages(trace("cv_fold_path", where = asNamespace("stochcg"), print = FALSE,
                         exit = bquote({
                           e <- .(calls)
                           e$log[[length(e$log) + 1L]] <- list(k = task$k, init = task$init,
                                                               radius = radius,
                                                               path = returnValue())
                         })))
  on.exit(suppressMessages(untrace("cv_fold_path", where = asNamespace("stochcg"))),
          add = TRUE)
  run <- function(warm) {
    calls$log <- list()
    op <- options(stochcg.cv_refine_warm = warm)
    on.exit(options(op))
    cv <- cv_sparse_regression(X, y, folds = folds, standardize = FALSE)
    list(cv = cv, log = calls$log)
  }
  warm <- run(TRUE)
  cold <- run(FALSE)
  expect_identical(warm$cv$radius.min, cold$cv$radius.min)
  expect_identical(warm$cv$radius.1se, cold$cv$radius.1se)
  expect_identical(warm$cv$cv$radius, cold$cv$cv$radius)
  # the refinement's fold paths: 4 radii closer than the grid's steps
  is_ref <- function(e) length(e$radius) == 4L && all(diff(log(e$radius)) < log(1.1))
  rw <- Filter(is_ref, warm$log)
  rc <- Filter(is_ref, cold$log)
  expect_gte(length(rw), 5L)                       # every fold, at least one round
  expect_identical(length(rw), length(rc))
  its <- function(e) e$path$fits[[length(e$path$fits)]]$iterations -
    (if (is.null(e$init)) 0L else e$init$iterations)
  for (i in seq_along(rw)) {
    e <- rw[[i]]
    expect_null(rc[[i]]$init)                      # cold: from zero
    expect_false(is.null(e$init))
    # the fold's own fit at the radius below: the same fold's earlier fit
    # at that radius, coefficients identical
    lo <- e$init$radius
    expect_lt(lo, e$radius[1])
    src <- NULL
    for (f in warm$log) if (f$k == e$k) for (g in f$path$fits)
      if (identical(g$radius, lo)) src <- g
    expect_false(is.null(src))
    expect_identical(unname(e$init$solution$beta), unname(src$solution$beta))
    expect_identical(e$init$iterations, src$iterations)
    # certified as the cold fits: converged, gap within tol of the larger
    # of the objective and the objective at zero (the cold start's scale)
    tr <- folds != e$k
    f0 <- sum((y[tr] - mean(y[tr]))^2) / (2 * sum(tr))
    for (g in c(e$path$fits, rc[[i]]$path$fits)) {
      expect_true(g$converged)
      expect_lte(g$gap, warm$cv$tol * max(abs(g$objective), f0))
    }
  }
  # from the fold's fit at the smaller radius: fewer iterations in all
  expect_lt(sum(sapply(rw, its)), sum(sapply(rc, its)))
})

test_that("a fold's fit kept for the refinement comes back with the same coefficients", {
  f <- list(solution = list(beta = c(a = 0, b = 1.5, c = 0, d = -2)), theta = c(0, 3, 0, -4),
            iterations = 7L, state = list(ws = 1L), lean = TRUE)
  keep <- stochcg:::cv_fit_keep
  back <- stochcg:::cv_fit_restore
  small <- keep(f)                  # 4 coefficients: kept as they are
  expect_identical(small$solution$beta, f$solution$beta)
  expect_null(small$state)          # never the solver state
  expect_identical(back(small), small)
  # 200 coefficients (named, a -0 among the zeros): packed to the entries
  # other than +0, and back identical(), the -0 with its sign
  b <- numeric(200); b[c(3, 150)] <- c(1.5, -2); b[7] <- -0
  names(b) <- paste0("x", 1:200)
  g <- list(solution = list(beta = b), theta = unname(2 * b), iterations = 7L,
            state = list(ws = 1L), lean = TRUE)
  big <- keep(g)
  expect_false(is.double(big$solution$beta))
  expect_identical(big$solution$beta$i, c(3L, 7L, 150L))
  expect_null(big$state)
  r <- back(big)
  expect_identical(r$solution$beta, g$solution$beta)
  expect_identical(r$theta, g$theta)
  expect_identical(1 / r$solution$beta[[7]], -Inf)
  expect_identical(r$iterations, 7L)
  expect_null(keep(NULL))
})

test_that("a warm fold fit at an interpolating radius of a p >> n design takes few steps", {
  # 25 x 300, skewed (log-normal) columns, standardized (the default): the
  # fold-4 path over the CV's radii reaches a radius where the fold's 22
  # rows are fitted exactly with the l1 norm inside the ball. There the
  # face step's Gram blocks are singular, and a null-space move that
  # changed the objective by 5.5e-21 (a near-null vector) against a
  # rounding bound of 5.2e-21 was refused: that fit took 251 pairwise
  # steps warm (37 cold). Moves within 1e-10 of the Frank-Wolfe gap: 12.
  set.seed(3)
  n <- 25; p <- 300
  X <- exp(matrix(rnorm(n * p), n))
  y <- log(X[, 1]) + rnorm(n, sd = 0.3)
  set.seed(3)
  foldid <- sample(rep_len(1:10, n))
  cv <- suppressWarnings(cv_sparse_regression(X, y, folds = foldid))
  r <- cv$cv$radius[-1]                    # (radius 0: the null model)
  for (k in 1:10) {
    i <- foldid != k
    path <- sparse_regression(X[i, ], y[i], radius = r)
    s <- path$summary
    expect_true(all(s$converged))
    # the certificate of the stated problem: gap <= tol x the objective's
    # scale (a thousandth of the zero iterate's objective near an exact fit)
    y0 <- y[i] - mean(y[i])
    expect_true(all(s$gap <= 1e-6 * pmax(s$objective, 1e-3 * sum(y0^2) / (2 * sum(i)))))
    expect_lte(max(s$iterations), 100)
  }
  # fold 4 interpolates at the last radius, inside the ball
  i <- foldid != 4
  last <- sparse_regression(X[i, ], y[i], radius = r)$summary[length(r), ]
  expect_lt(last$objective, 1e-20)
  expect_lt(last$l1_norm, r[length(r)])
})

test_that("a glm fold path's lean last fit keeps the whole fit's solver state", {
  # glm_path() with control attribute lean_path (cv_sparse_regression()'s
  # folds): the last fit is lean but carries the state glm_finish() keeps
  # for an exact continuation (the loop's scalars state_loop hold clock-
  # driven counters: present in both, not compared; state_glm's 4th and 5th,
  # rows read and reported, count the work of the results made, which a
  # lean path makes fewer of)
  set.seed(24)
  n <- 60; p <- 20
  X <- matrix(rnorm(n * p), n)
  yb <- rbinom(n, 1, plogis(X[, 1] - X[, 2]))
  ns <- asNamespace("stochcg")
  prep <- ns$regression_prepare(X, yb, "binomial", NULL, TRUE, NULL, TRUE, "pfw")
  ctl <- cg_control()
  lean_ctl <- ctl
  attr(lean_ctl, "lean_path") <- TRUE
  r <- c(0.5, 1, 2)
  whole <- ns$glm_path(prep, r, control = ctl)
  lean <- ns$glm_path(prep, r, control = lean_ctl)
  w <- whole$fits[[3]]; l <- lean$fits[[3]]
  expect_true(isTRUE(l$lean))
  expect_identical(names(l$state), names(w$state))
  expect_true("state_loop" %in% names(l$state))
  parts <- setdiff(names(w$state), c("state_loop", "state_glm"))
  expect_identical(l$state[parts], w$state[parts])
  expect_identical(l$state$state_glm[-(4:5)], w$state$state_glm[-(4:5)])
  expect_identical(l$theta, w$theta)
  expect_identical(l$iterations, w$iterations)
})

test_that("cv_sparse_regression's default grid starts at radius 0, the null model, scored on the folds", {
  # no signal: y independent of X (binomial and gaussian)
  set.seed(31)
  n <- 60; p <- 100
  X <- matrix(rnorm(n * p), n, p)
  folds <- rep_len(1:10, n)
  yb <- rbinom(n, 1, 0.4)
  yg <- rnorm(n)
  for (fam in c("binomial", "gaussian")) {
    y <- if (fam == "binomial") yb else yg
    cv <- cv_sparse_regression(X, y, folds = folds, family = fam)
    expect_identical(cv$cv$radius[1], 0)
    expect_gt(cv$cv$radius[2], 0)
    # each fold's null fit: the mean of its training rows' y
    dev <- if (fam == "binomial") function(t, mu) -2 * (t * log(mu) + (1 - t) * log(1 - mu))
           else function(t, mu) (t - mu)^2
    L0 <- vapply(1:10, function(k) mean(dev(y[folds == k], mean(y[folds != k]))), 0)
    expect_equal(unname(cv$fold_loss[1, ]), L0, tolerance = 1e-14)
    expect_equal(cv$cv$cvm[1], sum(L0 * tabulate(folds)) / n, tolerance = 1e-14)
    # chosen: the full-data fit is the null model, in closed form
    expect_identical(cv$radius.1se, 0)
    expect_identical(cv$cv$nonzero[cv$index[["1se"]]], 0L)
    b <- coef(cv)
    expect_true(all(b[-1] == 0))
    expect_equal(unname(b[1]), if (fam == "binomial") qlogis(mean(y)) else mean(y),
                 tolerance = 1e-14)
    expect_identical(coef(cv, s = 0), b)
    expect_equal(unname(predict(cv, X[1:3, ], type = "response")), rep(mean(y), 3),
                 tolerance = 1e-14)
    expect_identical(cv$fit$gap, 0)
    grDevices::pdf(NULL)
    expect_identical(plot(cv), cv)         # radius 0 drawn on the log axis
    grDevices::dev.off()
  }
  # without an intercept (gaussian): the zero model, its loss the mean of y^2
  cv0 <- cv_sparse_regression(X, yg, folds = folds, intercept = FALSE)
  expect_identical(cv0$cv$radius[1], 0)
  expect_equal(unname(cv0$fold_loss[1, ]),
               vapply(1:10, function(k) mean(yg[folds == k]^2), 0), tolerance = 1e-14)
  # an unpenalized column stays in at radius 0: no null point then
  cvpf <- cv_sparse_regression(X, yg, folds = folds, penalty.factor = c(0, rep(1, p - 1)))
  expect_gt(cvpf$cv$radius[1], 0)
  # given radii: as given
  cvr <- cv_sparse_regression(X, yg, folds = folds, radius = c(0.1, 0.5, 1))
  expect_identical(cvr$cv$radius, c(0.1, 0.5, 1))
})

test_that("cv_sparse_regression chooses the null model where cv.glmnet does (same folds)", {
  skip_if_not_installed("glmnet")
  set.seed(32)
  n <- 80; p <- 200
  X <- matrix(rnorm(n * p), n, p)
  folds <- rep_len(1:10, n)
  for (fam in c("binomial", "gaussian")) {
    y <- if (fam == "binomial") rbinom(n, 1, 0.5) else rnorm(n)
    g <- glmnet::cv.glmnet(X, y, foldid = folds, family = fam)
    cv <- cv_sparse_regression(X, y, folds = folds, family = fam)
    # glmnet's one-SE choice is its lambda_max (the null model) here, and so is ours
    expect_identical(g$index[["1se", 1]], 1L)
    expect_identical(cv$radius.1se, 0)
    expect_equal(unname(coef(cv)), as.vector(coef(g, s = "lambda.1se")), tolerance = 1e-10)
  }
})
