# cv_complete_matrix() defaults (issue 25): the data-anchored grid, the
# validation split (folds = 1) and its early stop, max_rank, max_time; and
# the fw subspace refit of complete_matrix() against an independent
# reference and its certificate.

cvc_data <- function(m = 30, n = 24, N = 500, sd = 0.3, rank = 2, seed = 2) {
  set.seed(seed)
  truth <- tcrossprod(matrix(rnorm(m * rank), m), matrix(rnorm(n * rank), n))
  obs <- data.frame(row = sample(m, N, TRUE), col = sample(n, N, TRUE))
  obs$value <- truth[cbind(obs$row, obs$col)] + rnorm(N, sd = sd)
  list(obs = obs, truth = truth, dims = c(m, n))
}

test_that("the default grid is anchored on the top singular values of the observed matrix", {
  # a small matrix with distinct cells: the closed form by svd()
  set.seed(1)
  m <- 12; n <- 9
  cells <- sample(m * n, 60)
  obs <- data.frame(row = (cells - 1) %% m + 1, col = (cells - 1) %/% m + 1)
  obs$value <- rnorm(60, 3)
  # gaussian: the mean, then row means, then column means removed
  mu <- mean(obs$value)
  ra <- numeric(m); rm <- tapply(obs$value - mu, obs$row, mean)
  ra[as.integer(names(rm))] <- rm
  z <- obs$value - mu - ra[obs$row]
  cb <- numeric(n); cm <- tapply(z, obs$col, mean)
  cb[as.integer(names(cm))] <- cm
  Z <- matrix(0, m, n)
  Z[cbind(obs$row, obs$col)] <- z - cb[obs$col]
  k <- min(30, min(m, n) %/% 2)
  top <- sum(svd(Z)$d[seq_len(k)])
  # center = "none": shifted by the nuclear norm of the effects X carries
  E <- outer(mu + ra, rep(1, n)) + outer(rep(1, m), cb)
  shift <- sum(svd(E)$d)
  o <- list(row = obs$row, col = obs$col, value = obs$value, dims = c(m, n))
  r <- stochcg:::default_completion_radii(o, "gaussian", "none", nradius = 5, ratio = 0.1)
  expect_equal(r, shift + top * exp(seq(log(0.1), 0, length.out = 5)), tolerance = 1e-10)
  # "mean": the row and column effects only; "both": none
  E0 <- outer(ra, rep(1, n)) + outer(rep(1, m), cb)
  expect_equal(stochcg:::default_completion_radii(o, "gaussian", "mean", 5, 0.1),
               sum(svd(E0)$d) + top * exp(seq(log(0.1), 0, length.out = 5)),
               tolerance = 1e-10)
  expect_equal(stochcg:::default_completion_radii(o, "gaussian", "both", 5, 0.1),
               top * exp(seq(log(0.1), 0, length.out = 5)), tolerance = 1e-10)
  # the validation split starts from that grid
  set.seed(2)
  cvf <- suppressWarnings(cv_complete_matrix(obs, dims = c(m, n), center = "none",
                                             nradius = 5, ratio = 0.1,
                                             control = cg_control(max_iter = 50,
                                                                  progress = FALSE)))
  expect_equal(cvf$cv$radius[1:min(5, nrow(cvf$cv))],
               r[1:min(5, nrow(cvf$cv))], tolerance = 1e-12)
})

test_that("fw with the subspace refit reaches the reference optimum with a valid certificate", {
  d <- cvc_data(m = 20, n = 15, N = 200, rank = 3, seed = 4)
  obs <- d$obs[!duplicated(d$obs[, 1:2]), ]
  r <- 0.6 * sum(svd(d$truth)$d)
  ref <- ref_completion(obs, r, "gaussian", c(20, 15), iters = 4000)
  fit <- complete_matrix(obs, radius = r, method = "fw", dims = c(20, 15),
                         control = cg_control(max_iter = 300, tol = 1e-7, progress = FALSE))
  expect_true(fit$converged)
  expect_lt(fit$objective - ref$objective, 1e-6 * ref$objective)
  expect_gte(fit$gap, fit$objective - ref$objective - 1e-12)       # the gap bounds it
  expect_lte(sum(fit$solution$X$d), r * (1 + 1e-10))                # feasible
  # plain FW (no refit) on the same budget is far from it: the refit is what converges
  old <- options(stochcg.refit_steps = 0L)
  on.exit(options(old))
  plain <- complete_matrix(obs, radius = r, method = "fw", dims = c(20, 15),
                           control = cg_control(max_iter = 300, tol = 1e-7, progress = FALSE))
  expect_false(plain$converged)
  expect_gt(plain$gap, 100 * fit$gap)
})

test_that("the refit's growing block, tall and wide, keeps the certificate and the optimum", {
  # refit_block = 2: the block grows with the rank (k / 4 pairs from rank
  # 12 on, up to min(m, n) / 4), and the dense products run on the smaller
  # side (rows for 40 x 24, columns for 24 x 40); the new atom of each FW
  # step is orthonormalized against the kept factors
  blk <- function(m, n, seed) {
    set.seed(seed)
    truth <- tcrossprod(matrix(rnorm(m * 3), m), matrix(rnorm(n * 3), n))
    cells <- sample(m * n, round(0.5 * m * n))
    obs <- data.frame(row = (cells - 1) %% m + 1, col = (cells - 1) %/% m + 1)
    obs$value <- truth[cbind(obs$row, obs$col)] + rnorm(nrow(obs))
    list(obs = obs, truth = truth)
  }
  old <- options(stochcg.refit_block = 2L)
  on.exit(options(old))
  for (dm in list(c(40, 24), c(24, 40))) {
    d <- blk(dm[1], dm[2], 6)
    r <- 1.6 * sum(svd(d$truth)$d)
    fit <- complete_matrix(d$obs, radius = r, method = "fw", dims = dm,
                           control = cg_control(max_iter = 300, tol = 1e-7, progress = FALSE))
    expect_gte(fit$rank, 13L)                       # the block grew past 2
    # the gap, computed independently: <G, X - S>, S = -r u1 v1' (top pair of G)
    X <- with(fit$solution$X, u %*% (d * t(v)))
    idx <- cbind(d$obs$row, d$obs$col)
    G <- matrix(0, dm[1], dm[2])
    G[idx] <- (X[idx] - d$obs$value) / nrow(d$obs)
    expect_equal(fit$gap, sum(G * X) + r * svd(G, 0, 0)$d[1], tolerance = 1e-6)
    expect_equal(fit$objective, mean((X[idx] - d$obs$value)^2) / 2, tolerance = 1e-10)
    expect_lte(sum(fit$solution$X$d), r * (1 + 1e-10))
    # against the FISTA reference (projection by svd())
    ref <- ref_completion(d$obs, r, "gaussian", dm, iters = 3000)
    expect_lt(abs(fit$objective - ref$objective), 1e-6 * ref$objective)
    expect_gte(fit$gap, fit$objective - ref$objective - 1e-12)
  }
})

test_that("max_rank caps the rank of every iterate; the gap still certifies the ball problem", {
  d <- cvc_data(m = 30, n = 24, N = 600, rank = 4, sd = 0.5, seed = 3)
  r <- sum(svd(d$truth)$d)
  free <- complete_matrix(d$obs, radius = r, method = "fw", dims = d$dims,
                          control = cg_control(max_iter = 100, tol = 0, progress = FALSE))
  expect_gt(free$rank, 2L)
  capped <- complete_matrix(d$obs, radius = r, method = "fw", dims = d$dims, max_rank = 2,
                            control = cg_control(max_iter = 100, tol = 0, eval_every = 1,
                                                 progress = FALSE))
  expect_lte(capped$rank, 2L)
  expect_lte(sum(capped$solution$X$d), r * (1 + 1e-10))
  # the capped fit cannot reach the uncapped optimum: its certified gap
  # stays at least the objective difference
  expect_gte(capped$gap, capped$objective - free$objective - 1e-12)
  expect_gt(capped$objective, free$objective)
  # on a path (each fit a warm start) no fit exceeds it either
  set.seed(1)
  cvf <- suppressWarnings(cv_complete_matrix(d$obs, dims = d$dims, max_rank = 2,
                                             control = cg_control(max_iter = 60,
                                                                  progress = FALSE)))
  expect_true(all(cvf$cv$rank <= 2L))
  expect_lte(cvf$fit$rank, 2L)
  expect_error(complete_matrix(d$obs, radius = r, method = "sfw", max_rank = 2),
               "^`max_rank` needs method = \"fw\"")
  expect_error(complete_matrix(d$obs, radius = r, method = "fw", max_rank = 0),
               "^`max_rank` must be at least 1$")
})

test_that("the validation split stops past the minimum and agrees with an explicit path", {
  d <- cvc_data(N = 500)
  set.seed(5)
  # center = "both": the grid's effects shift is 0 and the first radius's
  # held-out loss is below the effects' (the plateau rule's reference)
  cvf <- suppressWarnings(cv_complete_matrix(d$obs, dims = d$dims, nradius = 15,
                                             center = "both",
                                             control = cg_control(max_iter = 100, tol = 1e-2,
                                                                  progress = FALSE)))
  expect_identical(cvf$folds, 1L)
  expect_equal(sum(cvf$foldid == 1L), 50L)                   # 10% held out
  n <- nrow(cvf$cv)
  # early stop: the last radius no better than the minimum before it (up
  # to 2% of the fall so far), and every radius before it better
  cvm <- cvf$cv$cvm
  expect_gte(cvm[n], min(cvm[-n]) - 0.02 * (cvm[1] - min(cvm[-n])))
  expect_gt(n, 5L)
  for (k in 5:(n - 1)) expect_lte(cvm[k], min(cvm[1:(k - 1)]) - 0.02 * (cvm[1] - min(cvm[1:(k - 1)])))
  # the same radii as an explicit warm-started path on the training entries
  tr <- cvf$foldid == 0L
  path <- complete_matrix(d$obs[tr, ], radius = cvf$cv$radius, method = "fw", dims = d$dims,
                          center = "both",
                          control = cg_control(max_iter = 100, tol = 1e-2, progress = FALSE))
  test <- d$obs[!tr, ]
  mse <- vapply(path$fits, function(f) mean((test$value - predict(f, test))^2), 0)
  expect_equal(cvf$cv$cvm, mse, tolerance = 1e-10)
  expect_identical(cvf$radius.min, cvf$cv$radius[which.min(mse)])
  # the returned fit is the fit on all entries at radius.1se, and predict()
  # of the CV object uses it; radius.min's fit is kept too
  full <- complete_matrix(d$obs, radius = cvf$radius.1se, method = "fw", dims = d$dims,
                          center = "both",
                          control = cg_control(max_iter = 100, tol = 1e-2, progress = FALSE))
  expect_identical(cvf$fit$radius, cvf$radius.1se)
  expect_lte(abs(cvf$fit$objective - full$objective), cvf$fit$gap + full$gap)
  new <- data.frame(row = 1:5, col = 1:5)
  expect_identical(predict(cvf, new), predict(cvf$fit, new))
  expect_identical(predict(cvf, new, s = "radius.min"),
                   predict(cvf$path$fits[[length(cvf$path$fits)]], new))
  expect_lte(cvf$radius.1se, cvf$radius.min)
  expect_match(paste(capture.output(print(cvf)), collapse = "\n"),
               "validation on 10% of the entries held out over")
})

test_that("max_time stops the validation path with a warning, and K-fold with an error", {
  d <- cvc_data(m = 60, n = 50, N = 2500, rank = 3)
  set.seed(1)
  expect_warning(
    cvf <- cv_complete_matrix(d$obs, dims = d$dims, max_time = 0.3,
                              control = cg_control(max_iter = 100000, tol = 1e-12,
                                                   progress = FALSE)),
    "^cv_complete_matrix: max_time \\(0.3 s\\) reached after [0-9]+ radii")
  expect_s3_class(cvf, "cg_cv")
  expect_error(cv_complete_matrix(d$obs, dims = d$dims, folds = 3, max_time = 0.2,
                                  control = cg_control(max_iter = 100000, tol = 1e-12,
                                                       progress = FALSE)),
               "max_time \\(0.2 s\\) reached during the 3-fold cross-validation")
})

test_that("cv_complete_matrix reports bad input by argument", {
  d <- cvc_data(N = 100)
  expect_error(cv_complete_matrix(d$obs, holdout = 0), "^`holdout` must be greater than 0")
  expect_error(cv_complete_matrix(d$obs, holdout = 1), "^`holdout` must be a fraction below 1$")
  expect_error(cv_complete_matrix(d$obs, holdout = 0.001),
               "^`holdout` leaves no entry to validate on or to fit \\(100 observed entries\\)$")
  expect_error(cv_complete_matrix(d$obs, max_time = 0), "^`max_time` must be greater than 0")
  expect_error(cv_complete_matrix(d$obs, max_rank = 1.5), "^`max_rank` must be a whole number$")
  expect_error(cv_complete_matrix(d$obs, max_rank = 2, method = "sfw"),
               "^`max_rank` needs method = \"fw\"")
})

test_that("an uncentred matrix with a large mean: the default CV reaches the signal", {
  # rank 2 + a mean of 20 + noise (sd 0.5), half the cells observed; center
  # = "none" (complete_matrix()'s default problem) makes X carry the mean (nuclear norm 20 sqrt(m n)
  # ~ 980). The grid anchored on the centred values alone ended below it, and
  # the plateau rule, measuring falls from the first radius's loss (the mean
  # unfitted: ~400), stopped the path on a steep fall (1.25 -> 0.98): the
  # chosen fit was 0.90 from the truth (RMSE), now 0.50
  set.seed(5)
  m <- 60; n <- 40
  truth <- 20 + tcrossprod(matrix(rnorm(m * 2), m), matrix(rnorm(n * 2), n))
  cells <- sample(m * n, m * n / 2)
  obs <- data.frame(row = (cells - 1) %% m + 1, col = (cells - 1) %/% m + 1)
  obs$value <- truth[cbind(obs$row, obs$col)] + rnorm(nrow(obs), sd = 0.5)
  set.seed(6)
  cvf <- cv_complete_matrix(obs, dims = c(m, n), center = "none")
  # the grid starts at the effects' nuclear norm
  expect_gt(cvf$cv$radius[1], 20 * sqrt(m * n) * 0.9)
  held <- setdiff(seq_len(m * n), cells)
  w <- arrayInd(held, c(m, n))
  pred <- predict(cvf$fit, data.frame(row = w[, 1], col = w[, 2]))
  expect_lt(sqrt(mean((pred - truth[held])^2)), 0.6)
  # the path stopped on a plateau: the last fall is under 2% of the fall
  # from the first radius's loss
  cvm <- cvf$cv$cvm; k <- length(cvm)
  expect_lt(cvm[k - 1] - cvm[k], 0.02 * (cvm[1] - min(cvm)))  # the default, center = "both", fits the mean as an effect: as close
  set.seed(6)
  cvb <- cv_complete_matrix(obs, dims = c(m, n))
  expect_identical(cvb$fit$center$type, "both")
  predb <- predict(cvb$fit, data.frame(row = w[, 1], col = w[, 2]))
  expect_lt(sqrt(mean((predb - truth[held])^2)), 0.6)
})

test_that("the LMO and the certificate of a short-sided matrix are exact at high rank", {
  # a fit whose solution has high rank: the gradient's top singular values
  # cluster; the certified gap equals <G, X> + r sigma_max(G) with
  # sigma_max from a dense SVD (the FW gap, an upper bound on f - f*)
  set.seed(7)
  m <- 40; n <- 70
  Y <- matrix(rnorm(m * n), m)
  cells <- sample(m * n, 0.7 * m * n)
  obs <- data.frame(row = (cells - 1) %% m + 1, col = (cells - 1) %/% m + 1,
                    value = Y[cells])
  Z <- matrix(0, m, n)
  Z[cells] <- Y[cells]
  r <- 0.8 * sum(svd(Z)$d)
  fit <- complete_matrix(obs, radius = r, dims = c(m, n), method = "fw",
                         control = cg_control(max_iter = 60, tol = 0))
  expect_gt(fit$rank, 20L)
  x <- predict(fit, obs)
  G <- matrix(0, m, n)
  G[cbind(obs$row, obs$col)] <- (x - obs$value) / nrow(obs)
  exact <- sum(G[cbind(obs$row, obs$col)] * x) + r * svd(G, nu = 0, nv = 0)$d[1]
  expect_equal(fit$gap, exact, tolerance = 1e-9)
  expect_gte(fit$gap, exact - 1e-12 * abs(fit$objective))
  # bounded work per iteration (the dense Gram route: 2 products per LMO
  # and per gap evaluation, the rest the line search), not the 48 to 170
  # products per iteration of Lanczos in the cluster
  expect_lte(max(diff(fit$trace$n_matvec) / pmax(diff(fit$trace$n_lmo), 1)), 12)
})
