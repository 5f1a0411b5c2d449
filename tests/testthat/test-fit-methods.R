# Methods for cg_fit objects, tested on hand-built fits with known values.

fake_trace <- function(n = 11, objective = 10 / seq_len(n), gap = 5 / seq_len(n)^2) {
  data.frame(iter = seq_len(n) - 1L, epoch = (seq_len(n) - 1) / 10,
             time = (seq_len(n) - 1) * 0.01, objective = objective, gap = gap,
             infeasibility = NA_real_, n_grad = (seq_len(n) - 1) * 100,
             n_lmo = seq_len(n) - 1, svd_rank = 1L,
             n_matvec = (seq_len(n) - 1) * 7)
}

fake_control <- list(max_iter = 10L, max_time = Inf, tol = 1e-6,
                     eval_every = 1L, progress = FALSE, verbose = FALSE)

fake_regression_fit <- function() {
  beta <- c(1.5, 0, -0.5, 0, 0)
  X <- matrix(c(1, 0, 2, 1, 1,
                0, 1, 1, 0, 3,
                2, 2, 0, 1, 1), nrow = 3, byrow = TRUE)
  structure(list(
    solution = list(beta = beta), objective = 0.25, gap = 1e-4,
    infeasibility = NA_real_, trace = fake_trace(), method = "sfw",
    problem = "sparse_regression", control = fake_control,
    converged = TRUE, status = "converged",
    message = "duality gap below tol", iterations = 10L, time = 0.1,
    call = quote(sparse_regression(X, y, radius = 2, standardize = FALSE)),
    fitted.values = drop(X %*% beta), radius = 2, nobs = 3L),
    class = c("sparse_regression_fit", "cg_fit"))
}

fake_completion_fit <- function(center_type = "both", family = "gaussian") {
  u <- cbind(c(1, 0, 0, 0), c(0, 1, 0, 0))
  v <- cbind(c(0, 0, 1), c(1, 0, 0))
  X <- lowrank(u, c(2, 0.5), v)         # X[1, 3] = 2, X[2, 1] = 0.5
  center <- switch(center_type,
    none = list(type = "none", mean = 0, row = numeric(4), col = numeric(3)),
    mean = list(type = "mean", mean = 3, row = numeric(4), col = numeric(3)),
    both = list(type = "both", mean = 3, row = c(0.1, 0.2, 0.3, 0.4),
                col = c(-1, -2, -3)))
  obs <- data.frame(row = c(1L, 2L, 4L), col = c(3L, 1L, 2L))
  structure(list(
    solution = list(X = X), objective = 1.5, gap = NA_real_,
    infeasibility = NA_real_, trace = fake_trace(), method = "fw",
    problem = "complete_matrix", control = fake_control,
    converged = FALSE, status = "max_iter",
    message = "reached max_iter = 10", iterations = 10L, time = 0.2,
    call = quote(complete_matrix(Y, radius = 3)),
    family = family, dims = c(4L, 3L), radius = 3, center = center,
    fitted.values = c(2, 0.5, 0), obs = obs),
    class = c("complete_matrix_fit", "cg_fit"))
}

test_that("print shows problem, method, status, objective, gap, solution", {
  fit <- fake_regression_fit()
  expect_output(print(fit), "sparse_regression fit \\(method \"sfw\"\\)")
  expect_output(print(fit), "Status: converged -- duality gap below tol")
  expect_output(print(fit), "Iterations: 10 in 0\\.1 s")
  expect_output(print(fit), "Objective: 0\\.25")
  expect_output(print(fit), "Certificate: duality gap 1e-04 \\(objective minus optimum is at most this\\)")
  expect_output(print(fit), "beta: 2 of 5 nonzero, l1 norm 2 \\(radius 2\\)")
  expect_false(any(grepl("Infeasibility", capture.output(print(fit)))))
  expect_output(expect_invisible(print(fit)))

  cfit <- fake_completion_fit()
  expect_output(print(cfit), "Status: max_iter -- reached max_iter = 10")
  expect_output(print(cfit), "Certificate: none \\(not evaluated\\)")
  expect_output(print(cfit),
    "X: 4 x 3 low-rank matrix, rank 2, nuclear norm 2\\.5 \\(radius 3\\)")
})

test_that("print reports infeasibility and extra solution parts", {
  fit <- fake_regression_fit()
  fit$infeasibility <- 0.003
  fit$solution$S <- matrix(c(0, 1, 0, 2), 2, 2)
  expect_output(print(fit), "Infeasibility: 0\\.003")
  expect_output(print(fit), "S: 2 x 2 matrix, 2 nonzero")
})

test_that("summary picks evenly spaced evaluated trace rows and work totals", {
  fit <- fake_regression_fit()
  s <- summary(fit)
  expect_s3_class(s, "summary.cg_fit")
  expect_equal(s$trace$iter, c(0L, 2L, 4L, 6L, 8L, 10L))
  expect_equal(s$n_trace, 11L)
  expect_false("infeasibility" %in% names(s$trace))   # all NA: dropped
  expect_equal(s$work, c(n_grad = 1000, n_lmo = 10, n_matvec = 70))
  expect_output(print(s), "Convergence trace \\(6 of 11 rows\\)")
  expect_output(print(s), "Work: n_grad = 1000, n_lmo = 10, n_matvec = 70")
  expect_output(print(s), "Status: converged")

  # rows where the objective was not evaluated are skipped
  fit$trace$objective[c(2, 3, 5, 6, 8, 9)] <- NA
  s2 <- summary(fit)
  expect_equal(s2$trace$iter, c(0L, 3L, 6L, 9L, 10L))
  expect_true(all(!is.na(s2$trace$objective)))
})

test_that("plot runs for every panel combination and restores par()", {
  fit <- fake_regression_fit()
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off())
  old <- graphics::par("mfrow")
  expect_no_error(plot(fit))
  expect_no_error(plot(fit, what = "gap",
                       against = c("iter", "time", "n_grad", "n_matvec")))
  expect_no_error(plot(fit, what = "objective", against = "time", col = 2,
                       type = "b"))
  expect_equal(graphics::par("mfrow"), old)
  # objective not positive: linear scale; gap never evaluated: empty panel
  fit$trace$objective <- seq(-1, 1, length.out = 11)
  fit$trace$gap <- NA_real_
  expect_no_error(plot(fit))
  expect_error(plot(fit, what = "bogus"), "`what` must be one or more of")
  fit$trace <- fit$trace[0, ]
  expect_error(plot(fit), "`x` has an empty trace")
})

test_that("log scale is chosen only for positive evaluated values", {
  expect_true(trace_log_scale(c(3, 2, 1)))
  expect_true(trace_log_scale(c(NA, 3, NA, 1e-8)))
  expect_false(trace_log_scale(c(3, 0, 1)))
  expect_false(trace_log_scale(c(-1, 2)))
  expect_false(trace_log_scale(c(NA_real_, NA_real_)))
  expect_false(trace_log_scale(numeric(0)))
})

test_that("coef and fitted return the stored estimate and fitted values", {
  fit <- fake_regression_fit()
  expect_identical(coef(fit), c(1.5, 0, -0.5, 0, 0))
  expect_identical(fitted(fit), c(0.5, -0.5, 3))
  cfit <- fake_completion_fit()
  expect_true(inherits(coef(cfit), "lowrank"))
  fit$fitted.values <- NULL
  expect_error(fitted(fit), "stores no fitted values")
})

test_that("predict.sparse_regression_fit computes newx %*% beta", {
  fit <- fake_regression_fit()
  newx <- rbind(a = c(1, 1, 1, 1, 1), b = c(2, 0, 4, 0, 0))
  expect_equal(predict(fit, newx), c(a = 1, b = 1))
  expect_equal(predict(fit, Matrix::Matrix(newx, sparse = TRUE)),
               c(a = 1, b = 1))
  expect_equal(predict(fit, c(0, 0, 2, 0, 0)), -1)
  expect_equal(predict(fit), fitted(fit))
  expect_error(predict(fit, matrix(1, 2, 4)),
               "`newx` must have 5 columns \\(one per coefficient\\), not 4")
  expect_error(predict(fit, 1:3), "`newx` must be a numeric matrix")
  expect_error(predict(fit, matrix("a", 1, 5)), "`newx` must be a numeric")
})

test_that("predict.complete_matrix_fit adds back the centering", {
  nd <- data.frame(row = c(1, 2, 3, 4), col = c(3, 1, 3, 2))
  lr <- c(2, 0.5, 0, 0)                   # lowrank part at the pairs

  fit <- fake_completion_fit("none")
  expect_equal(predict(fit, nd), lr)
  fit <- fake_completion_fit("mean")
  expect_equal(predict(fit, nd), lr + 3)
  fit <- fake_completion_fit("both")
  expect_equal(predict(fit, nd),
               lr + 3 + c(0.1, 0.2, 0.3, 0.4) + c(-3, -1, -3, -2))
  # a two-column matrix gives the same values; default is the observed set
  expect_equal(predict(fit, cbind(nd$row, nd$col)), predict(fit, nd))
  expect_equal(predict(fit), predict(fit, fit$obs))
})

test_that("predict.complete_matrix_fit maps through the family mean", {
  nd <- data.frame(row = c(1, 2), col = c(3, 1))
  eta <- c(2, 0.5) + 3 + c(0.1, 0.2) + c(-3, -1)
  g <- fake_completion_fit("both", "gaussian")
  expect_equal(predict(g, nd, type = "response"), eta)
  p <- fake_completion_fit("both", "poisson")
  expect_equal(predict(p, nd, type = "link"), eta)
  expect_equal(predict(p, nd, type = "response"), exp(eta))
  b <- fake_completion_fit("both", "binomial")
  expect_equal(predict(b, nd, type = "response"), 1 / (1 + exp(-eta)))
  expect_error(predict(b, nd, type = "probability"), "`type` must be one of")
})

test_that("predict.complete_matrix_fit checks newdata", {
  fit <- fake_completion_fit()
  expect_error(predict(fit, data.frame(row = 5, col = 1)),
               "`newdata`: row indices must lie in 1\\.\\.4 \\(found 5\\)")
  expect_error(predict(fit, data.frame(row = 1, col = 0)),
               "`newdata`: column indices must lie in 1\\.\\.3")
  expect_error(predict(fit, data.frame(i = 1, j = 1)),
               "`newdata` must have columns `row` and `col`")
  expect_error(predict(fit, cbind(1, 1, 1)), "`newdata` must be .*two-column")
  expect_error(predict(fit, list(row = 1, col = 1)), "`newdata` must be a data frame")
  expect_error(predict(fit, data.frame(row = NA, col = 1)),
               "`newdata`: row indices must not be NA")
  expect_error(predict(fit, cbind(1.5, 1)), "`newdata`: row indices must be whole")
})

test_that("fitted, residuals and predict where they make sense, a clear error elsewhere", {
  set.seed(11)
  X <- matrix(rnorm(60 * 6), 60)
  y <- drop(X[, 1:2] %*% c(2, -1) + rnorm(60, sd = 0.1))
  rf <- sparse_regression(X, y, radius = 3, standardize = FALSE)
  expect_equal(residuals(rf), y - rf$intercept - drop(X %*% rf$solution$beta),
               tolerance = 1e-12)
  expect_equal(fitted(rf) + residuals(rf), y, tolerance = 1e-12)

  M <- crossprod(matrix(rnorm(40), 4))
  lf <- lowrank_sparse(M, 0.1, 3, control = cg_control(max_iter = 20))
  expect_identical(fitted(lf), as.matrix(lf$solution$X))

  Y <- matrix(abs(rnorm(8 * 30)), 8)
  sf <- stochastic_mf(Y, 2, model = "onmf")
  expect_equal(residuals(sf), Y - fitted(sf), tolerance = 1e-12, ignore_attr = TRUE)

  sc <- sparse_covariance(matrix(rnorm(40 * 5), 40), lambda = 0.1)
  expect_identical(fitted(sc), sc$solution$Sigma)

  sd3 <- sdp_solve(diag(3), list(diag(3)), 1, trace_bound = 1,
                   control = cg_control(max_iter = 5))
  expect_error(fitted(sd3), paste0("^this sdp_solve fit has no fitted values \\(it fits no ",
                                   "data\\): its estimate is coef\\(fit\\)$"))
})

test_that("kmeans_sdp: fitted centres and classes, predict assigns to the nearest centre", {
  set.seed(12)
  centres <- rbind(c(0, 0), c(6, 0), c(0, 6))
  x <- centres[rep(1:3, each = 10), ] + matrix(rnorm(60, sd = 0.3), 30)
  fit <- kmeans_sdp(x, 3)
  lab <- fit$labels
  # the rounded clusters are the planted ones, and the centres their means
  expect_identical(sum(table(lab, rep(1:3, each = 10)) > 0), 3L)   # one label per group
  expect_equal(unname(fitted(fit)), unname(apply(x, 2, function(v) ave(v, lab))),
               tolerance = 1e-12)
  expect_identical(fitted(fit, method = "classes"), lab)
  expect_identical(predict(fit, x), lab)
  expect_identical(predict(fit, centres + 0.1), lab[c(1, 11, 21)])
  expect_error(predict(fit, x[, 1, drop = FALSE]), "^`newdata` must be a numeric matrix with 2 columns$")
  fd <- kmeans_sdp(dist(x), 3)
  expect_identical(fitted(fd, "classes"), fd$labels)
  expect_error(fitted(fd), "made from a dist object: it has labels")
  expect_error(predict(fd, x), "made from a dist object: it has no centres")
})
