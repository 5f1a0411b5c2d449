# fit$time is the wall clock of the call; solver_time and the trace's clock
# leave out evaluations; the default evaluation schedule adapts.

regression_data <- function(n = 200, p = 50, seed = 1) {
  set.seed(seed)
  X <- matrix(rnorm(n * p), n)
  list(X = X, y = drop(X[, 1:3] %*% c(2, -1, 1)) + rnorm(n))
}

test_that("time is the wall clock of the whole call, solver_time the trace's clock", {
  d <- regression_data()
  wall <- system.time(
    fit <- sparse_regression(d$X, d$y, 3, method = "fw",
                             control = cg_control(max_iter = 300, tol = 0, eval_every = 1), standardize = FALSE)
  )[["elapsed"]]
  expect_identical(fit$solver_time, fit$trace$time[nrow(fit$trace)])
  expect_gte(fit$time, fit$solver_time)
  # measured around the call: only the call itself lies outside fit$time
  expect_lte(fit$time, wall + 0.01)
  expect_gte(fit$time, wall - 0.1)
  # one evaluation per iteration: the trace-only work is left out of solver_time
  expect_equal(nrow(fit$trace), 301)
})

test_that("a fixed eval_every gives the fixed schedule, plus the last iteration", {
  d <- regression_data()
  fit <- sparse_regression(d$X, d$y, 3, method = "sfw",
                           control = cg_control(max_iter = 95, tol = 0, eval_every = 10), standardize = FALSE)
  expect_identical(fit$trace$iter, c(seq(0L, 90L, by = 10L), 95L))
})

test_that("the adaptive schedule is geometric in the iterations", {
  d <- regression_data()
  set.seed(2)
  fit <- sparse_regression(d$X, d$y, 3, method = "sfw",
                           control = cg_control(max_iter = 20000, tol = 0), standardize = FALSE)
  it <- fit$trace$iter
  expect_identical(it[c(1, length(it))], c(0L, 20000L))
  # between evaluations at iterations a < b: b - a >= 1 + floor(b / 100),
  # hence at most ~100 rows per e-fold of the iteration count
  gaps <- diff(it[-length(it)])
  expect_true(all(gaps >= 1 + it[-c(1, length(it))] %/% 100))
  expect_lte(length(it), 100 + 100 * log(20000 / 100) + 2)
  expect_null(fit$control$eval_every)
  expect_output(print(cg_control()), "eval_every +adaptive")
})

test_that("a final evaluation meeting the tolerance makes the fit converged", {
  d <- regression_data()
  # a stochastic method checks the gap only at evaluations: with one every
  # 1000 iterations, the loop never sees the small gap before max_iter = 200,
  # the final evaluation does (gap 0.022, objective 0.5)
  set.seed(3)
  fit <- sparse_regression(d$X, d$y, 3, method = "sfw",
                           control = cg_control(max_iter = 200, tol = 0.1, eval_every = 1000), standardize = FALSE)
  expect_identical(fit$trace$iter, c(0L, 200L))
  expect_true(fit$converged)
  expect_identical(fit$status, "converged")
  expect_lte(fit$gap, 0.1 * max(1, abs(fit$objective)))
})

test_that("print shows the solver's time only when it differs from the wall clock", {
  d <- regression_data()
  fit <- sparse_regression(d$X, d$y, 3, face_step = FALSE, control = cg_control(max_iter = 5), standardize = FALSE)
  expect_identical(fit$iterations, 5L)
  fit$time <- 2; fit$solver_time <- 1.95
  expect_output(print(fit), "Iterations: 5 in 2 s\n")
  fit$solver_time <- 0.5
  expect_output(print(fit), "Iterations: 5 in 2 s \\(solver 0\\.5 s; the rest: set-up and trace evaluations\\)")
})

test_that("the default schedule reproduces a fit exactly: stops do not depend on timing", {
  d <- regression_data(n = 2000, p = 50, seed = 3)
  fits <- lapply(1:3, function(i) {
    set.seed(5)
    sparse_regression(d$X, d$y, 1, method = "sfw", control = cg_control(max_iter = 5e4, tol = 1e-4), standardize = FALSE)
  })
  expect_identical(fits[[2]]$iterations, fits[[1]]$iterations)
  expect_identical(coef(fits[[2]]), coef(fits[[1]]))
  expect_identical(coef(fits[[3]]), coef(fits[[1]]))
  expect_lt(fits[[1]]$iterations, 5e4)               # it stopped on tol
  a <- robust_pca(volcano)
  b <- robust_pca(volcano)
  expect_identical(a$iterations, b$iterations)
  expect_identical(as.matrix(a$solution$X), as.matrix(b$solution$X))
})

test_that("a fit that runs out of iterations says how far from tol it is", {
  d <- regression_data()
  set.seed(1)
  fit <- sparse_regression(d$X, d$y, 3, method = "sfw", control = cg_control(max_iter = 50), standardize = FALSE)
  expect_identical(fit$status, "max_iter")
  rel <- fit$gap / max(abs(fit$objective), 1e-3 * abs(fit$trace$objective[1]))
  expect_identical(fit$message, sprintf(
    "reached max_iter = 50 with the relative gap at %.2g > tol = 1e-06: raise max_iter for more accuracy", rel))
  fit0 <- sparse_regression(d$X, d$y, 3, method = "sfw", control = cg_control(max_iter = 50, tol = 0), standardize = FALSE)
  expect_identical(fit0$message, "reached max_iter = 50")
})

test_that("max_iter defaults to the method's own when not given", {
  d <- regression_data()
  expect_null(cg_control()$max_iter)
  expect_output(print(cg_control()), "max_iter +function default")
  ctl <- cg_control(tol = 1e-10)
  expect_identical(sparse_regression(d$X, d$y, 3, control = ctl, standardize = FALSE)$control$max_iter, 100000L)
  expect_identical(sparse_regression(d$X, d$y, 3, method = "sfw", control = ctl, standardize = FALSE)$control$max_iter, 1000L)
  expect_identical(sparse_regression(d$X, d$y, 3, control = cg_control(max_iter = 7), standardize = FALSE)$control$max_iter, 7L)
  expect_identical(robust_pca(volcano, control = list(max_iter = NULL, tol = 1e-3))$control$max_iter, 1000L)
})
