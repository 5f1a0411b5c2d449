# complete_matrix() with box constraints (paper 003 eq. 18) or an l1 penalty
# (eq. 19) by H-SAG-CGM (Variant 1) and SHCGM, against an accurate
# reference: Davis-Yin three-operator splitting in plain R (exact full SVD
# projection onto the nuclear ball, exact prox of g) run to 1e-11.

proj_nuclear <- function(X, r) {
  s <- svd(X)
  d <- s$d
  if (sum(d) > r) {
    cs <- cumsum(d)
    k <- max(which(d - (cs - r) / seq_along(d) > 0))
    d <- pmax(d - (cs[k] - r) / k, 0)
  }
  s$u %*% (d * t(s$v))
}

# min 1/(2N) sum (X_ij - y)^2 + g(X) s.t. ||X||_* <= r; prox_g(Z, step)
reference_fit <- function(obs, dims, r, prox_g, iters = 30000) {
  N <- nrow(obs)
  cnt <- sy <- matrix(0, dims[1], dims[2])
  for (k in seq_len(N)) {
    i <- obs$row[k]; j <- obs$col[k]
    cnt[i, j] <- cnt[i, j] + 1; sy[i, j] <- sy[i, j] + obs$value[k]
  }
  step <- N / max(cnt)                 # 1 / L
  z <- matrix(0, dims[1], dims[2])
  for (t in seq_len(iters)) {
    xb <- prox_g(z, step)
    xa <- proj_nuclear(2 * xb - z - step * (cnt * xb - sy) / N, r)
    z <- z + xa - xb
  }
  xb
}

small_problem <- function() {
  set.seed(2)
  m <- 8; n <- 6
  truth <- tcrossprod(matrix(rnorm(m * 2), m), matrix(rnorm(n * 2), n))
  obs <- data.frame(row = rep(1:m, n), col = rep(1:n, each = m))[sample(m * n, 36), ]
  obs$value <- truth[cbind(obs$row, obs$col)] + rnorm(36, sd = 0.1)
  list(obs = obs, dims = c(m, n), radius = 0.5 * sum(svd(truth)$d))
}
loss <- function(X, obs) sum((X[cbind(obs$row, obs$col)] - obs$value)^2) / (2 * nrow(obs))

test_that("box: H-SAG-CGM and SHCGM reach the reference solution and become feasible", {
  p <- small_problem()
  ref <- reference_fit(p$obs, p$dims, p$radius, function(z, s) pmin(pmax(z, -1), 1))
  f_ref <- loss(ref, p$obs)
  on_obs <- cbind(p$obs$row, p$obs$col)
  set.seed(3)
  fit <- complete_matrix(p$obs, p$radius, box = c(-1, 1), method = "hsagcgm",
                         batch_size = 4, beta0 = 16, dims = p$dims,
                         control = cg_control(max_iter = 20000))
  X <- as.matrix(fit$solution$X)
  expect_equal(fit$objective, loss(X, p$obs), tolerance = 1e-8)
  expect_lt(abs(fit$objective / f_ref - 1), 0.01)            # loss within 1%
  expect_lt(max(abs(X[on_obs] - ref[on_obs])), 0.06)          # observed entries
  expect_equal(fit$infeasibility, sqrt(sum((X - pmin(pmax(X, -1), 1))^2)),
               tolerance = 1e-6)
  expect_lt(fit$infeasibility, 0.03)
  tr <- fit$trace
  expect_gt(tr$infeasibility[which.min(abs(tr$iter - 200))], 5 * fit$infeasibility)
  expect_equal(fit$infeasibility_rel, fit$infeasibility / sqrt(sum(X^2)), tolerance = 1e-6)
  expect_true(is.na(fit$gap))
  expect_equal(tr$n_grad, 4 * tr$iter)
  expect_equal(tr$epoch, 4 * tr$iter / 36)
  expect_equal(fit$status, "max_iter")

  set.seed(3)
  fs <- complete_matrix(p$obs, p$radius, box = c(-1, 1), method = "shcgm",
                        batch_size = 4, beta0 = 16, dims = p$dims,
                        control = cg_control(max_iter = 20000))
  Xs <- as.matrix(fs$solution$X)
  expect_lt(abs(fs$objective / f_ref - 1), 0.01)
  expect_lt(max(abs(Xs[on_obs] - ref[on_obs])), 0.2)
  expect_lt(fs$infeasibility, 0.03)
})

test_that("l1: H-SAG-CGM reaches the reference, SHCGM more slowly (the paper's claim)", {
  p <- small_problem()
  lam <- 0.02
  ref <- reference_fit(p$obs, p$dims, p$radius,
                       function(z, s) sign(z) * pmax(abs(z) - s * lam, 0))
  F_ref <- loss(ref, p$obs) + lam * sum(abs(ref))
  set.seed(4)
  fit <- complete_matrix(p$obs, p$radius, lambda = lam, method = "hsagcgm",
                         batch_size = 4, beta0 = 72, dims = p$dims,
                         control = cg_control(max_iter = 20000))
  X <- as.matrix(fit$solution$X)
  expect_equal(fit$objective, loss(X, p$obs) + lam * sum(abs(X)), tolerance = 1e-8)
  expect_lt(fit$objective / F_ref - 1, 0.003)
  expect_gt(fit$objective / F_ref - 1, -1e-6)   # F_ref is the optimum
  expect_lt(norm(X - ref, "F") / norm(ref, "F"), 0.02)
  expect_true(all(is.na(fit$trace$infeasibility)))
  set.seed(4)
  fs <- complete_matrix(p$obs, p$radius, lambda = lam, method = "shcgm",
                        batch_size = 4, beta0 = 72, dims = p$dims,
                        control = cg_control(max_iter = 20000))
  expect_lt(fs$objective / F_ref - 1, 0.03)
  expect_gt(fs$objective, fit$objective)
})

test_that("an inactive box gives the plain completion fit", {
  p <- small_problem()
  plain <- complete_matrix(p$obs, p$radius, method = "fw", dims = p$dims,
                           control = cg_control(max_iter = 5000, tol = 1e-7))
  set.seed(5)
  fit <- complete_matrix(p$obs, p$radius, box = c(-50, 50), method = "hsagcgm",
                         batch_size = 36, dims = p$dims,
                         control = cg_control(max_iter = 20000))
  expect_equal(fit$infeasibility, 0)
  expect_lt(fit$objective - (plain$objective - plain$gap), 2e-3 * plain$objective)
  on_obs <- data.frame(row = p$obs$row, col = p$obs$col)
  expect_lt(max(abs(predict(fit, on_obs) - predict(plain, on_obs))), 0.05)
})

test_that("homotopy completion fits are reproducible with set.seed and predict", {
  p <- small_problem()
  # a fixed evaluation schedule: the adaptive one adds trace rows by wall time
  ctl <- cg_control(max_iter = 300, eval_every = 10)
  run <- function() complete_matrix(p$obs, p$radius, box = c(-1, 1), method = "shcgm",
                                    batch_size = 3, dims = p$dims,
                                    control = ctl)
  set.seed(9); a <- run()
  set.seed(9); b <- run()
  expect_identical(a$trace$objective, b$trace$objective)
  expect_identical(a$solution$X, b$solution$X)
  X <- as.matrix(a$solution$X)
  expect_equal(predict(a, data.frame(row = 1:3, col = c(2, 4, 6))), X[cbind(1:3, c(2, 4, 6))])
  expect_equal(a$beta0, 20 * 36)                            # "auto" of shcgm: 20 N
  held <- data.frame(row = 1:4, col = 1:4, value = c(1, 2, 3, 4))
  set.seed(9)
  w <- complete_matrix(p$obs, p$radius, box = c(-1, 1), method = "shcgm", batch_size = 3,
                       dims = p$dims, test = held, control = ctl)
  expect_identical(w$trace$objective, a$trace$objective)
  expect_equal(w$trace$rmse_test[nrow(w$trace)], sqrt(mean((X[cbind(1:4, 1:4)] - 1:4)^2)))
  expect_equal(w$trace$rmse_train, sqrt(2 * w$trace$objective))
})

test_that("box and lambda are checked with clear errors", {
  p <- small_problem()
  cm <- function(...) complete_matrix(p$obs, p$radius, dims = p$dims, ...)
  expect_error(cm(box = c(2, 1)), "^`box` must be c\\(lo, hi\\) with lo < hi$")
  expect_error(cm(box = c(1, 1)), "^`box` must be c\\(lo, hi\\) with lo < hi$")
  expect_error(cm(box = c(1, NA)), "^`box` must be c\\(lo, hi\\): two finite numbers$")
  expect_error(cm(box = 1), "^`box` must be c\\(lo, hi\\): two finite numbers$")
  expect_error(cm(lambda = -0.1), "^`lambda` must be at least 0$")
  expect_error(cm(lambda = c(1, 2)), "^`lambda` must be a single number$")
  expect_error(cm(box = c(0, 1), lambda = 1),
               "^`lambda` cannot be combined with `box`: give one of them$")
  expect_error(cm(box = c(0, 1), method = "sfw"),
               "^`method` must be \"hsagcgm\" or \"shcgm\" with `box` \\(\"sfw\" solves only the nuclear-ball problem\\)$")
  expect_error(cm(lambda = 1, method = "fw"),
               "^`method` must be \"hsagcgm\" or \"shcgm\" with `lambda`")
  expect_error(cm(method = "hsagcgm"),
               "^`method` = \"hsagcgm\" needs `box` or `lambda`; for the plain problem use \"sfw\", \"fw\" or \"spg\"$")
  expect_error(cm(box = c(0, 1), method = "cgal"), "^`method` must be one of")
  expect_error(cm(box = c(0, 1), beta0 = 0), "^`beta0` must be \"auto\" or a positive number$")
  expect_error(cm(box = c(0, 1), center = "mean"), "^`center` must be \"none\" with `box`$")
  expect_error(cm(box = c(0, 1), sampling = "shuffle"),
               "^`sampling` must be \"replace\" for method = \"hsagcgm\"")
  expect_error(cm(test = p$obs), "^`test` is only for method = \"hsagcgm\" or \"shcgm\"$")
  expect_error(cm(box = c(0, 1), test = data.frame(row = 9, col = 1, value = 1)),
               "^`test` has a row or column index beyond the 8 x 6 matrix")
})

test_that("the method tables decide where shcgm and cgal apply; composite specs are checked", {
  solve <- function(spec) stochcg:::cg_run(spec, cg_control(max_iter = 2), "test", NULL,
                                           started = 0)
  spec <- list(problem = "completion", method = "shcgm", step = "standard", m = 3L, n = 3L,
               cell = 0:2, cell_row = 0:2, cell_col = c(2L, 0L, 1L), y = c(1, 2, 3),
               family = 0L, radius = 1, dense_iterate = FALSE, lmo_tol = 1e-4,
               batch_size = 3L, sampling = 2L, composite = 1L, lo = 0, hi = 2,
               lambda = 0, beta0 = 1)
  expect_named(solve(spec)$solution, c("u", "w", "v", "dropped", "svd_form", "xnorm",
                                       "rmse_train", "rmse_test", "state"))
  expect_error(solve(replace(spec, "method", "cgal")),
               "method 'cgal' does not apply to problem 'completion'")
  expect_error(solve(replace(spec, "method", "hsagcgm_v2")),
               "method 'hsagcgm_v2' does not apply to problem 'completion'")
  expect_error(solve(c(spec, list(test_at = 9L, test_y = 1))),
               "spec element 'test_at': index 9 out of range 0..8")
  expect_error(solve(replace(spec, "family", 1L)),
               "spec: composite completion needs the gaussian family and atoms")
  # exact f (the SDPs): no loss estimator, so no shcgm
  expect_error(sdp_solve(diag(2), list(diag(2)), b = 1, trace_bound = 1, method = "cgal",
                         control = cg_control(max_iter = 2)), NA)
  sdp_spec <- list(problem = "sdp", method = "shcgm", step = "standard", C = diag(2),
                   A_p = c(0L, 1L, 1L, 1L, 2L), A_i = c(0L, 0L), A_x = c(1, 1), b = 1,
                   eq = 1L, trace_eq = TRUE, obj_scale = 1, infeas_scale = 1, b_norm = 1,
                   beta0 = 1)
  expect_error(solve(sdp_spec), "method 'shcgm' does not apply to problem 'sdp'")
  expect_error(solve(replace(sdp_spec, "method", "cgal")), NA)
})

test_that("plot shows the infeasibility of box fits by default", {
  p <- small_problem()
  set.seed(1)
  fit <- complete_matrix(p$obs, p$radius, box = c(-1, 1), batch_size = 4, dims = p$dims,
                         control = cg_control(max_iter = 50))
  expect_equal(stochcg:::default_plot_what(fit), c("objective", "infeasibility"))
  fit_l1 <- complete_matrix(p$obs, p$radius, lambda = 0.1, batch_size = 4, dims = p$dims,
                            control = cg_control(max_iter = 50))
  expect_equal(stochcg:::default_plot_what(fit_l1), c("objective", "gap"))
  file <- tempfile(fileext = ".png")
  grDevices::png(file)
  expect_identical(plot(fit), fit)
  grDevices::dev.off()
  unlink(file)
  expect_error(plot(fit, what = "nonsense"),
               '`what` must be one or more of "objective", "gap", "infeasibility"')
})

test_that("init: hsagcgm and shcgm (box and l1) continue exactly, as one longer run", {
  p <- small_problem()
  held <- data.frame(row = 1:4, col = 1:4, value = c(1, 2, 3, 4))
  for (method in c("hsagcgm", "shcgm")) for (comp in c("box", "lambda")) {
    # a trace row every 10 iterations: 40 is a row of both runs
    f <- function(k, init = NULL)
      complete_matrix(p$obs, p$radius, box = if (comp == "box") c(-1, 1),
                      lambda = if (comp == "lambda") 0.01, method = method, batch_size = 3,
                      dims = p$dims, test = held, init = init,
                      control = cg_control(max_iter = k, eval_every = 10, tol = 0))
    set.seed(5); long <- f(70)
    set.seed(5); first <- f(40); second <- f(30, init = first)
    label <- paste(method, comp)
    for (el in c("solution", "objective", "infeasibility", "iterations", "state",
                 "fitted.values"))
      expect_identical(second[[el]], long[[el]], label = paste(label, el))
    # every trace column but the clock (rmse_train, rmse_test, epochs, work)
    cols <- setdiff(names(long$trace), "time")
    expect_identical(second$trace[cols], long$trace[cols], label = label)
    expect_match(second$notes, "continued exactly from a fit of 40 iterations", all = FALSE)
    # teeth: without f's estimator (the SHCGM average, or H-SAG-CGM's SAG
    # table and its sums) the same draws give another run: a warm start
    drops <- if (method == "hsagcgm") c("vf", "alpha") else "vf"
    for (drop in drops) {
      cut <- first
      cut$state[[drop]] <- NULL
      warm <- f(30, init = cut)
      expect_match(warm$notes, "warm start from a fit of 40 iterations", all = FALSE)
      expect_gt(max(abs(as.matrix(warm$solution$X) - as.matrix(long$solution$X))), 1e-6,
                label = paste(label, "without", drop))
    }
  }
  # other settings: a warm start from the iterate (scaled into a smaller ball)
  set.seed(5)
  small <- complete_matrix(p$obs, p$radius / 4, box = c(-1, 1), method = "shcgm",
                           batch_size = 3, dims = p$dims, init = second,
                           control = cg_control(max_iter = 5))
  expect_match(small$notes, "warm start from a fit of 70 iterations", all = FALSE)
  expect_lte(sum(small$solution$X$d), p$radius / 4 * (1 + 1e-12))
  expect_identical(small$iterations, 75L)
})

test_that("init with box or lambda: bad init is an error naming it", {
  p <- small_problem()
  ctl <- cg_control(max_iter = 5)
  box <- function(init) complete_matrix(p$obs, p$radius, box = c(-1, 1), method = "hsagcgm",
                                        dims = p$dims, init = init, control = ctl)
  set.seed(1); fit <- box(NULL)
  bad <- fit; bad$state$X <- bad$state$X[, -1]
  expect_error(box(bad), "^`init` has an invalid `state` \\(altered by hand\\?\\)$")
  bad <- fit; bad$state$vf <- bad$state$vf[-1]
  expect_error(box(bad), "^`init` has an invalid `state` \\(altered by hand\\?\\)$")
  bad <- fit; bad$state <- NULL
  expect_error(box(bad), "^`init` must be a fit with `box` or `lambda`")
  expect_error(complete_matrix(p$obs, p$radius, box = c(-1, 1), dims = p$dims + 1, init = fit),
               "^`init` is a fit of a 8 x 6 matrix, but `Y` is 9 x 7$")
})
