# Matrix completion over the nuclear ball: closed form under full
# observation, an R projected-gradient reference for every family, the
# duality-gap certificate, input formats, centering and input checks.

make_completion <- function(m = 30, n = 20, rank = 2, frac = 0.5, seed = 1,
                            family = "gaussian") {
  set.seed(seed)
  truth <- tcrossprod(matrix(rnorm(m * rank), m), matrix(rnorm(n * rank), n)) / sqrt(rank)
  cells <- sample(m * n, round(frac * m * n))          # distinct cells
  obs <- data.frame(row = (cells - 1) %% m + 1, col = (cells - 1) %/% m + 1)
  eta <- truth[cbind(obs$row, obs$col)]
  obs$value <- switch(family,
    gaussian = eta + rnorm(length(cells), sd = 0.3),
    poisson = rpois(length(cells), exp(eta / 2)),
    binomial = rbinom(length(cells), 1, plogis(2 * eta)))
  list(obs = obs, truth = truth, dims = c(m, n))
}

test_that("full observation, gaussian: solution is the nuclear-ball projection of Y", {
  set.seed(4)
  Y <- matrix(rnorm(15 * 10), 15, 10) + 2
  r <- 0.5 * sum(svd(Y)$d)
  target <- ref_proj_nuclear(Y, r)
  fit <- complete_matrix(Y, radius = r, method = "spg", batch_size = length(Y),
                         control = cg_control(max_iter = 2))
  expect_equal(as.matrix(fit$solution$X), target, tolerance = 1e-10)
  fit_fw <- complete_matrix(Y, radius = r, method = "fw",
                            control = cg_control(max_iter = 3000, tol = 1e-9))
  expect_lt(norm(as.matrix(fit_fw$solution$X) - target, "F") / norm(target, "F"), 2e-3)
  expect_lte(sum(fit_fw$solution$X$d), r * (1 + 1e-10))
})

test_that("all methods reach the reference optimum for each family", {
  for (family in c("gaussian", "poisson", "binomial")) {
    d <- make_completion(family = family, seed = 2)
    r <- 0.6 * sum(svd(d$truth)$d) * if (family == "gaussian") 1 else 0.5
    ref <- ref_completion(d$obs, r, family, d$dims, iters = 2000,
                          L = if (family == "poisson") 4 * max(d$obs$value + 1) / nrow(d$obs) else NULL)
    for (m in c("fw", "sfw", "spg")) {
      set.seed(3)
      fit <- complete_matrix(d$obs, radius = r, family = family, method = m,
                             dims = d$dims,
                             control = cg_control(max_iter = 1500, tol = 0, eval_every = 100))
      info <- paste(family, m)
      expect_gte(fit$objective, ref$objective - 1e-8 * abs(ref$objective))
      expect_lt(fit$objective - ref$objective, 2e-3 * abs(ref$objective) + 1e-6)
      expect_gte(fit$gap, fit$objective - ref$objective - 1e-8)   # certificate
      expect_lte(sum(fit$solution$X$d), r * (1 + 1e-8))
    }
  }
})

test_that("fw stops on the duality gap and the gap bounds suboptimality", {
  d <- make_completion(seed = 5)
  r <- 0.5 * sum(svd(d$truth)$d)
  ref <- ref_completion(d$obs, r, "gaussian", d$dims, iters = 3000)
  fit <- complete_matrix(d$obs, radius = r, method = "fw", dims = d$dims,
                         control = cg_control(max_iter = 20000, tol = 1e-4))
  expect_true(fit$converged)
  expect_identical(fit$status, "converged")
  expect_lte(fit$gap, 1e-4)
  expect_lte(fit$objective - ref$objective, fit$gap + 1e-12)
})

test_that("input formats agree: data frame, sparse matrix, matrix with NA", {
  d <- make_completion(seed = 6)
  Ys <- Matrix::sparseMatrix(i = d$obs$row, j = d$obs$col, x = d$obs$value, dims = d$dims)
  Yna <- matrix(NA_real_, d$dims[1], d$dims[2])
  Yna[cbind(d$obs$row, d$obs$col)] <- d$obs$value
  ctl <- cg_control(max_iter = 100)
  f1 <- complete_matrix(d$obs, 10, method = "fw", dims = d$dims, control = ctl)
  f2 <- complete_matrix(Ys, 10, method = "fw", control = ctl)
  f3 <- complete_matrix(Yna, 10, method = "fw", control = ctl)
  M1 <- as.matrix(f1$solution$X)
  expect_equal(as.matrix(f2$solution$X), M1, tolerance = 1e-8)
  expect_equal(as.matrix(f3$solution$X), M1, tolerance = 1e-8)
  expect_equal(f2$objective, f1$objective, tolerance = 1e-12)
})

test_that("predict and fitted agree with the dense matrix; the effects are included", {
  d <- make_completion(seed = 7)
  obs <- d$obs; obs$value <- obs$value + 3
  fit <- complete_matrix(obs, 8, method = "fw", center = "mean", dims = d$dims,
                         control = cg_control(max_iter = 3000, tol = 1e-9))
  M <- as.matrix(fit$solution$X) + fit$center$mean
  expect_equal(fitted(fit), M[cbind(obs$row, obs$col)], tolerance = 1e-10)
  nd <- data.frame(row = c(1, 30, 5), col = c(1, 20, 7))
  expect_equal(predict(fit, nd), M[cbind(nd$row, nd$col)], tolerance = 1e-10)
  # the intercept is fitted jointly: the mean of y - X at the optimum
  # (the effects are optimal for the X of the last gradient)
  X_obs <- as.matrix(fit$solution$X)[cbind(obs$row, obs$col)]
  expect_equal(fit$center$mean, mean(obs$value - X_obs), tolerance = 1e-6)
  # row/column effects: the least-squares two-way fit of y - X
  fitb <- complete_matrix(obs, 8, method = "fw", center = "both", dims = d$dims,
                          control = cg_control(max_iter = 3000, tol = 1e-9))
  e <- fitb$center
  Xb <- as.matrix(fitb$solution$X)[cbind(obs$row, obs$col)]
  lsq <- lm(value - Xb ~ factor(row) + factor(col), data = obs)
  expect_equal(unname(e$mean + e$row[obs$row] + e$col[obs$col]), unname(fitted(lsq)),
               tolerance = 1e-5)
})

test_that("repeated observations of a cell: objective and optimum over all of them", {
  set.seed(21)
  m <- 12; n <- 9; N <- 400                      # many repeated cells
  truth <- tcrossprod(rnorm(m), rnorm(n))
  obs <- data.frame(row = sample(m, N, TRUE), col = sample(n, N, TRUE))
  obs$value <- truth[cbind(obs$row, obs$col)] + rnorm(N)
  for (family in c("gaussian", "poisson")) {
    if (family == "poisson") obs$value <- rpois(N, exp(truth[cbind(obs$row, obs$col)] / 3))
    fits <- lapply(c("fw", "spg"), function(meth) {
      set.seed(1)
      complete_matrix(obs, 3, family = family, method = meth, dims = c(m, n),
                      control = cg_control(max_iter = 3000, tol = 0, eval_every = 3000))
    })
    for (fit in fits) {
      eta <- predict(fit, obs)
      direct <- switch(family, gaussian = mean((obs$value - eta)^2) / 2,
                       poisson = mean(exp(eta) - obs$value * eta))
      expect_equal(fit$objective, direct, tolerance = 1e-10)
    }
    expect_equal(fits[[1]]$objective, fits[[2]]$objective, tolerance = 1e-4)
  }
})

test_that("binomial predictions on the response scale are probabilities", {
  d <- make_completion(seed = 8, family = "binomial")
  fit <- complete_matrix(d$obs, 5, family = "binomial", method = "fw", dims = d$dims,
                         control = cg_control(max_iter = 100))
  nd <- data.frame(row = 1:4, col = 1:4)
  expect_equal(predict(fit, nd, type = "response"), plogis(predict(fit, nd)))
})

test_that("stochastic completion is reproducible and streams in batches", {
  d <- make_completion(seed = 9)
  run <- function(seed) {
    set.seed(seed)
    complete_matrix(d$obs, 8, method = "sfw", batch_size = 7, dims = d$dims,
                    control = cg_control(max_iter = 40, eval_every = 10))
  }
  a <- run(1); b <- run(1); c <- run(2)
  expect_identical(a$trace, transform(b$trace, time = a$trace$time))
  expect_equal(a$trace$n_grad, pmin(7 * a$trace$iter, nrow(d$obs)))
  expect_false(isTRUE(all.equal(as.matrix(a$solution$X), as.matrix(c$solution$X))))
  expect_true(all(a$trace$svd_rank[-1] == 1))
  expect_true(all(diff(a$trace$n_matvec) > 0))
})

test_that("bad input is rejected with a message naming the argument", {
  d <- make_completion(seed = 10)
  expect_error(complete_matrix(d$obs, 0), "`radius` must be greater than 0")
  expect_error(complete_matrix(d$obs), "`radius` is missing")
  expect_error(complete_matrix(d$obs, 1, family = "gamma"), "`family` must be one of")
  expect_error(complete_matrix(d$obs, 1, method = "als"), "`method` must be one of")
  expect_error(complete_matrix(d$obs[0, ], 1), "`Y` has no observed entries")
  expect_error(complete_matrix(matrix(NA_real_, 3, 3), 1), "`Y` has no observed entries")
  bad <- d$obs; bad$row[1] <- 0
  expect_error(complete_matrix(bad, 1), "`Y` row and col must be positive whole numbers")
  bad <- d$obs; bad$value[2] <- Inf
  expect_error(complete_matrix(bad, 1), "`Y` contains NaN or Inf")
  expect_error(complete_matrix(d$obs, 1, family = "binomial"), "`Y` must hold 0/1 values")
  expect_error(complete_matrix(d$obs, 1, family = "poisson"), "`Y` must hold non-negative")
  expect_error(complete_matrix(d$obs, 1, dims = c(2, 2)), "`dims` is smaller")
  expect_error(complete_matrix(list(1, 2), 1), "`Y` must be a dgCMatrix")
  fit <- complete_matrix(d$obs, 5, method = "fw", control = cg_control(max_iter = 5))
  expect_error(predict(fit, data.frame(row = 100, col = 1)), "newdata")
})

test_that("fw and sfw return the rank of the optimum on planted low-rank data", {
  # rank-3 truth, radius half its nuclear norm: the optimum has rank 3
  # (checked on the reference), while 1000 FW steps add 1000 atoms
  d <- make_completion(m = 40, n = 30, rank = 3, frac = 0.5, seed = 2)
  r <- 0.5 * sum(svd(d$truth)$d)
  ref <- ref_completion(d$obs, r, "gaussian", d$dims, iters = 3000)
  s <- svd(ref$x)$d
  ref_rank <- sum(s > 1e-8 * s[1])
  expect_identical(ref_rank, 3L)
  for (m in c("fw", "sfw")) {
    set.seed(3)
    fit <- complete_matrix(d$obs, radius = r, method = m, dims = d$dims,
                           control = cg_control(max_iter = 1000, tol = 0, eval_every = 100))
    expect_identical(fit$rank, ref_rank)
    expect_identical(length(fit$solution$X$d), ref_rank)
    # sfw adds an atom per step and drops them; fw's subspace refit keeps the
    # iterate on the optimum's subspace, where its FW atoms merge
    if (m == "sfw") expect_gt(fit$dropped, 900)
    expect_lt(fit$objective - ref$objective, 1e-3 * ref$objective)
    expect_gte(fit$gap, fit$objective - ref$objective - 1e-10)   # certificate holds
    expect_lte(sum(fit$solution$X$d), r * (1 + 1e-10))
    expect_match(paste(capture.output(print(fit)), collapse = "\n"),
                 sprintf("rank %d: %d atoms dropped", ref_rank, fit$dropped))
  }
  set.seed(3)
  fit <- complete_matrix(d$obs, radius = r, method = "spg", dims = d$dims,
                         control = cg_control(max_iter = 5))
  expect_identical(fit$rank, length(fit$solution$X$d))
  expect_true(is.na(fit$dropped))
})

test_that("compressing atoms to thin SVD keeps the matrix exactly", {
  set.seed(11)
  for (shape in list(c(30, 20, 8), c(7, 50, 12), c(40, 6, 15))) {
    m <- shape[1]; n <- shape[2]; k <- shape[3]
    u <- matrix(rnorm(m * k), m); v <- matrix(rnorm(n * k), n)
    w <- rnorm(k)                                     # signs of both kinds
    X <- u %*% (w * t(v))
    out <- stochcg:::cg_oracle("atoms_compress", u = u, w = w, v = v)
    Y <- out$u %*% (out$d * t(out$v))
    expect_lt(norm(X - Y, "F") / norm(X, "F"), 1e-10)
    expect_identical(length(out$d), as.integer(min(m, n, k)))
    expect_true(all(out$d > 0) && !is.unsorted(rev(out$d)))
    expect_equal(crossprod(out$u), diag(length(out$d)), tolerance = 1e-12)
    expect_equal(crossprod(out$v), diag(length(out$d)), tolerance = 1e-12)
  }
  # repeated and opposite atoms: the sum has rank 2 and is kept exactly
  u <- matrix(rnorm(20 * 2), 20); v <- matrix(rnorm(10 * 2), 10)
  U <- cbind(u, u[, 1], -u[, 2]); V <- cbind(v, v[, 1], v[, 2])
  w <- c(1, 2, 0.5, 1.5)
  out <- stochcg:::cg_oracle("atoms_compress", u = U, w = w, v = V)
  X <- U %*% (w * t(V))
  expect_identical(length(out$d), 2L)
  expect_lt(norm(X - out$u %*% (out$d * t(out$v)), "F") / norm(X, "F"), 1e-10)
  expect_error(stochcg:::cg_oracle("atoms_compress", u = 1:5, w = c(1, 2), v = 1:4),
               "must hold k = length\\(w\\) >= 1 columns")
})

test_that("predict clips to a bounded scale and predicts the full matrix", {
  d <- make_completion(seed = 12)
  obs <- d$obs; obs$value <- obs$value + 3
  fit <- complete_matrix(obs, 8, method = "fw", center = "both", dims = d$dims,
                         control = cg_control(max_iter = 50))
  nd <- data.frame(row = rep(1:30, 2), col = rep(1:20, 3))
  p <- predict(fit, nd)
  lo <- quantile(p, 0.25); hi <- quantile(p, 0.75)
  pc <- predict(fit, nd, clip = c(lo, hi))
  expect_equal(pc, pmin(pmax(p, lo), hi))
  expect_true(any(pc == lo) && any(pc == hi) && any(pc > lo & pc < hi))
  full <- predict(fit, "all")
  M <- as.matrix(fit$solution$X) + fit$center$mean +
    outer(fit$center$row, fit$center$col, "+")
  expect_equal(full, M, tolerance = 1e-10)
  expect_equal(predict(fit, "all", clip = c(2, 4)), pmin(pmax(M, 2), 4), tolerance = 1e-10)
  fb <- complete_matrix(make_completion(seed = 12, family = "binomial")$obs, 5,
                        family = "binomial", method = "fw", dims = d$dims,
                        control = cg_control(max_iter = 20))
  expect_equal(predict(fb, nd, type = "response", clip = c(0.1, 0.9)),
               pmin(pmax(plogis(predict(fb, nd)), 0.1), 0.9))
  msg <- "`clip` must be NULL or a numeric vector c\\(lo, hi\\) with lo < hi"
  expect_error(predict(fit, nd, clip = 1), msg)
  expect_error(predict(fit, nd, clip = c(5, 1)), msg)
  expect_error(predict(fit, nd, clip = c(1, 1)), msg)
  expect_error(predict(fit, nd, clip = c(NA, 1)), msg)
  expect_error(predict(fit, nd, clip = c("1", "5")), msg)
  expect_error(predict(fit, "some"), "`newdata` must be a data frame .* or \"all\"")
})

test_that("a path's warm starts enter the sfw step schedule afresh: its last fit is as good as a cold one", {
  # Counting the step rule on from the path's total iterations (7000 before
  # the 8th radius) left steps too short to leave the previous radius's
  # optimum: objective 1.8% and gap 2.5 times above a cold start's.
  set.seed(2)
  U <- matrix(rnorm(100 * 3), 100); V <- matrix(rnorm(80 * 3), 80)
  Y <- U %*% t(V) + matrix(rnorm(8000, sd = 0.5), 100)
  Y[sample(8000, 6000)] <- NA
  radii <- exp(seq(log(60), log(229), length.out = 8))
  # sfw (the default before issue 25): its step schedule is the test
  set.seed(1); path <- complete_matrix(Y, radius = radii, method = "sfw")
  set.seed(1); cold <- complete_matrix(Y, radii[8], method = "sfw")
  last <- path$fits[[8]]
  expect_identical(last$iterations, 8000L)
  expect_lte(last$objective, cold$objective * (1 + 1e-3))
  expect_lte(last$gap, 2 * cold$gap)
  # the path names the fit it started from (the solver's own note said
  # "a fit of 7000 iterations of other data or settings")
  expect_match(paste(last$notes, collapse = " "),
               sprintf("warm-started from this path's fit at radius %s", format(radii[7], digits = 4)),
               fixed = TRUE)
})
