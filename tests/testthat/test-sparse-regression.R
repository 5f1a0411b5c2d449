# Least squares over the l1 ball: closed forms, a FISTA reference, the
# duality-gap certificate, reproducibility and input checks.

make_regression <- function(n = 120, p = 30, seed = 1) {
  set.seed(seed)
  X <- matrix(rnorm(n * p), n, p)
  beta <- c(2, -1.5, 1, rep(0, p - 3))
  list(X = X, y = drop(X %*% beta + rnorm(n, sd = 0.5)), beta = beta)
}

test_that("orthogonal design: solution is the l1 projection of X'y/n", {
  set.seed(3)
  n <- 40; p <- 10
  Q <- qr.Q(qr(matrix(rnorm(n * p), n, p))) * sqrt(n)   # X'X/n = I
  y <- rnorm(n) + Q[, 1] * 2
  b <- drop(crossprod(Q, y)) / n
  target <- ref_proj_l1(b, 1)
  # spg with the whole data in one batch: one step x = P(x - (x - b)) = P(b)
  fit <- sparse_regression(Q, y, radius = 1, method = "spg", batch_size = n,
                           control = cg_control(max_iter = 3), intercept = FALSE, standardize = FALSE)
  expect_equal(unname(coef(fit)), target, tolerance = 1e-12)
  fit_fw <- sparse_regression(Q, y, radius = 1, method = "fw",
                              control = cg_control(max_iter = 5000, tol = 1e-10), intercept = FALSE, standardize = FALSE)
  expect_lt(max(abs(coef(fit_fw) - target)), 1e-4)
})

test_that("interior optimum: fw reproduces least squares (lm without intercept)", {
  d <- make_regression()
  ols <- unname(coef(lm(d$y ~ d$X - 1)))
  fit <- sparse_regression(d$X, d$y, radius = 1.5 * sum(abs(ols)), method = "fw",
                           control = cg_control(max_iter = 20000, tol = 1e-9), intercept = FALSE, standardize = FALSE)
  expect_lt(max(abs(coef(fit) - ols)), 1e-3)
})

test_that("fw, sfw and spg reach the FISTA reference; gap certifies fw", {
  d <- make_regression()
  r <- 3                                   # active constraint
  ref <- ref_lasso_ball(d$X, d$y, r)
  ctl <- cg_control(max_iter = 4000, tol = 0, eval_every = 100)
  L <- max(eigen(crossprod(d$X) / nrow(d$X), only.values = TRUE)$values)
  for (m in c("fw", "sfw", "spg")) for (step in c("line_search", "standard", "sfw")) {
    set.seed(10)
    fit <- sparse_regression(d$X, d$y, radius = r, method = m, step = step, control = ctl, intercept = FALSE, standardize = FALSE)
    expect_gte(fit$objective, ref$objective - 1e-9)        # cannot beat the optimum
    expect_lte(sum(abs(coef(fit))), r * (1 + 1e-12))        # feasible
    # the reported gap is a certificate: f(beta) - f* <= gap
    expect_gte(fit$gap, fit$objective - ref$objective - 1e-10)
    # Jaggi (2013): f - f* <= 2 C_f / (t + 2) with C_f <= L diam^2, diam = 2r
    expect_lte(fit$objective - ref$objective, 2 * L * (2 * r)^2 / (4000 + 2))
    if (step != "line_search")      # open-loop steps: close to the optimum
      expect_lt(fit$objective - ref$objective, 1e-4 * ref$objective)
  }
  fit <- sparse_regression(d$X, d$y, radius = r, method = "fw",
                           control = cg_control(max_iter = 1e5, tol = 1e-4), intercept = FALSE, standardize = FALSE)
  expect_true(fit$converged)
  expect_lte(fit$gap, 1e-4 * max(1, fit$objective))
  expect_lte(fit$objective - ref$objective, fit$gap)
})

# ---- pairwise Frank-Wolfe, the default
sparse_design <- function(d) Matrix::Matrix(d$X * (abs(d$X) > 0.8), sparse = TRUE)

test_that("pfw is the default and reaches the exact solution, support included", {
  d <- make_regression()
  ctl <- cg_control(tol = 1e-14)
  for (X in list(d$X, sparse_design(d))) {
    ref <- ref_lasso_exact(X, d$y, 3)
    fit <- sparse_regression(X, d$y, 3, control = ctl, intercept = FALSE, standardize = FALSE)
    expect_identical(fit$method, "pfw")
    expect_identical(fit$status, "converged")
    expect_lt(max(abs(coef(fit) - ref$beta)), 1e-6)
    expect_identical(which(coef(fit) != 0), ref$support)      # exact zeros elsewhere
    expect_lte(sum(abs(coef(fit))), 3 * (1 + 1e-12))
    # the gap certifies the objective
    expect_lte(fit$gap, 1e-14 * max(1, fit$objective))
    expect_lte(fit$objective - ref$objective, fit$gap + 1e-15)
  }
})

test_that("pfw: sparse and dense storage of the same design give the same fit", {
  # (not the same path: at the optimum all active vertices tie for the away
  # step, so rounding picks among them)
  d <- make_regression()
  Xs <- sparse_design(d)
  ctl <- cg_control(tol = 1e-14)
  fs <- sparse_regression(Xs, d$y, 3, control = ctl, intercept = FALSE, standardize = FALSE)
  fd <- sparse_regression(as.matrix(Xs), d$y, 3, control = ctl, intercept = FALSE, standardize = FALSE)
  expect_equal(coef(fs), coef(fd), tolerance = 1e-10)
  expect_equal(fs$objective, fd$objective, tolerance = 1e-14)
})

test_that("pfw: interior optimum is least squares (lm without intercept)", {
  d <- make_regression()
  ols <- unname(coef(lm(d$y ~ d$X - 1)))
  r <- 1.5 * sum(abs(ols))
  fit <- sparse_regression(d$X, d$y, r, control = cg_control(tol = 1e-14, max_iter = 1e4), intercept = FALSE, standardize = FALSE)
  expect_identical(fit$status, "converged")
  expect_lt(max(abs(coef(fit) - ols)), 1e-6)
  expect_lt(sum(abs(coef(fit))), r)
})

test_that("pfw: duplicated columns (solution not unique) reach the optimal objective", {
  d <- make_regression()
  X2 <- cbind(d$X, d$X[, 1:3])                 # the signal columns twice
  ref <- ref_lasso_exact(d$X, d$y, 3)          # same optimal value as without copies
  fit <- sparse_regression(X2, d$y, 3, control = cg_control(tol = 1e-14), intercept = FALSE, standardize = FALSE)
  expect_identical(fit$status, "converged")
  expect_equal(fit$objective, ref$objective, tolerance = 1e-12)
  # the coefficients of each column and its copy add up to the unique fit
  b <- coef(fit)
  expect_lt(max(abs(b[1:30] + c(b[31:33], rep(0, 27)) - ref$beta)), 1e-6)
})

test_that("pfw: an early stop reports an honest gap and status", {
  d <- make_regression()
  ref <- ref_lasso_exact(d$X, d$y, 3)
  fit <- sparse_regression(d$X, d$y, 3, face_step = FALSE,
                           control = cg_control(max_iter = 5, tol = 1e-12), intercept = FALSE, standardize = FALSE)
  expect_identical(fit$status, "max_iter")
  expect_false(fit$converged)
  expect_gte(fit$gap, fit$objective - ref$objective)
  expect_gt(fit$gap, 1e-12 * max(1, fit$objective))
})

test_that("pfw matches glmnet at the radius of its solution", {
  skip_if_not_installed("glmnet")
  d <- make_regression(n = 200, p = 60, seed = 7)
  for (X in list(d$X, sparse_design(d))) {
    g <- glmnet::glmnet(X, d$y, standardize = FALSE, intercept = FALSE,
                        thresh = 1e-14, lambda = 0.05)
    b <- as.vector(coef(g))[-1]
    fit <- sparse_regression(X, d$y, sum(abs(b)), control = cg_control(tol = 1e-14), intercept = FALSE, standardize = FALSE)
    expect_lt(max(abs(coef(fit) - b)), 1e-6)
    expect_identical(which(coef(fit) != 0), which(b != 0))
  }
})

# An AR(1) design with correlation 0.95 between neighbouring columns
# (condition number of X'X about 700): pairwise steps alone slow down at
# weakly constrained radii
correlated_design <- function(n = 200, p = 40, rho = 0.95, seed = 3) {
  set.seed(seed)
  Z <- matrix(rnorm(n * p), n, p)
  X <- Z
  for (j in 2:p) X[, j] <- rho * X[, j - 1] + sqrt(1 - rho^2) * Z[, j]
  list(X = X, y = drop(X %*% rnorm(p) + rnorm(n)))
}

test_that("pfw's face step reaches the lasso optimum (KKT) at weak radii in few steps", {
  d <- correlated_design()
  n <- nrow(d$X)
  r_ls <- sum(abs(qr.solve(d$X, d$y)))          # the constraint binds below r_ls
  for (r in c(0.6, 0.9, 0.99) * r_ls) {
    fit <- sparse_regression(d$X, d$y, r, control = cg_control(tol = 1e-12), intercept = FALSE, standardize = FALSE)
    plain <- sparse_regression(d$X, d$y, r, face_step = FALSE,
                               control = cg_control(tol = 1e-12), intercept = FALSE, standardize = FALSE)
    expect_true(fit$converged && plain$converged)
    expect_lte(fit$iterations, 400)             # 42, 100, 263 measured
    expect_gt(plain$iterations, 10 * fit$iterations)
    expect_gt(fit$face_steps, 0)
    # KKT of least squares over the l1 ball with the constraint active: on
    # the support g_j = -nu sign(b_j), off it |g_j| <= nu, ||b||_1 = r
    b <- coef(fit)
    g <- drop(crossprod(d$X, d$X %*% b - d$y)) / n
    S <- b != 0
    nu <- max(abs(g))
    expect_lt(max(abs(g[S] + nu * sign(b[S]))), 1e-9 * nu)
    expect_lte(max(abs(g[!S]), 0), nu)
    expect_equal(sum(abs(b)), r, tolerance = 1e-12)
    # both certified: the same optimum within their gaps
    expect_lte(abs(fit$objective - plain$objective), fit$gap + plain$gap)
  }
  # past r_ls the optimum is interior: least squares
  fit <- sparse_regression(d$X, d$y, 1.5 * r_ls, control = cg_control(tol = 1e-12), intercept = FALSE, standardize = FALSE)
  expect_true(fit$converged)
  expect_lte(fit$iterations, 400)               # 138 measured (plain pfw: 19879)
  expect_lt(max(abs(coef(fit) - qr.solve(d$X, d$y))), 1e-8)
  # from the sphere (1.5 times the least-squares fit): the face step leaves
  # it for the interior (its multiplier on the sphere is negative)
  ols <- qr.solve(d$X, d$y)
  fit <- sparse_regression(d$X, d$y, 1.5 * r_ls, init = 1.5 * ols,
                           control = cg_control(tol = 1e-12), intercept = FALSE, standardize = FALSE)
  expect_true(fit$converged)
  expect_lte(fit$iterations, 200)               # 74 measured (plain pfw: 17937)
  expect_lt(max(abs(coef(fit) - ols)), 1e-8)
})

test_that("a path's shared Gram matrix gives the fits of separate calls", {
  d <- correlated_design(p = 20)
  G <- crossprod(d$X) / nrow(d$X)
  r <- sum(abs(qr.solve(d$X, d$y))) * c(0.2, 0.5, 0.9)
  path <- sparse_regression(d$X, d$y, radius = r, intercept = FALSE, standardize = FALSE)
  prev <- NULL
  for (k in seq_along(r)) {
    f <- sparse_regression(d$X, d$y, r[k], gram = G, init = prev, intercept = FALSE, standardize = FALSE)
    expect_identical(coef(path$fits[[k]]), coef(f))
    # the Gram columns computed as visited: the same optimum up to rounding
    own <- sparse_regression(d$X, d$y, r[k], init = prev, intercept = FALSE, standardize = FALSE)
    expect_equal(coef(own), coef(f), tolerance = 1e-8)
    prev <- f
  }
  expect_error(sparse_regression(d$X, d$y, 1, gram = 2 * G, intercept = FALSE, standardize = FALSE),
               "`gram` is not crossprod(X) / nrow(X) of this `X`", fixed = TRUE)
  G[2, 3] <- NaN
  expect_error(sparse_regression(d$X, d$y, 1, gram = G, intercept = FALSE, standardize = FALSE),
               "`gram` is not crossprod(X) / nrow(X) of this `X`", fixed = TRUE)
  expect_error(sparse_regression(d$X, d$y, 1, gram = G[-1, ], intercept = FALSE, standardize = FALSE),
               "`gram` must be TRUE, FALSE, NULL or the 20 x 20 matrix crossprod(X) / nrow(X)",
               fixed = TRUE)
  expect_error(sparse_regression(d$X, d$y, 1, method = "fw", gram = G, intercept = FALSE, standardize = FALSE),
               "`gram` can be a matrix only for method = \"pfw\"", fixed = TRUE)
  expect_error(sparse_regression(d$X, d$y, 1, face_step = NA, intercept = FALSE, standardize = FALSE),
               "`face_step` must be TRUE or FALSE", fixed = TRUE)
})

test_that("pfw takes only exact line search", {
  d <- make_regression()
  expect_error(sparse_regression(d$X, d$y, 3, step = "sfw", intercept = FALSE, standardize = FALSE),
               "`step` must be \"line_search\" for method = \"pfw\"")
})

test_that("trace objective matches the solution and the columns are complete", {
  d <- make_regression()
  set.seed(2)
  fit <- sparse_regression(d$X, d$y, radius = 3, method = "sfw",
                           control = cg_control(max_iter = 50, eval_every = 7), intercept = FALSE, standardize = FALSE)
  expect_named(fit$trace, c("iter", "epoch", "time", "objective", "gap",
                            "infeasibility", "n_grad", "n_lmo", "svd_rank", "n_matvec"))
  expect_equal(fit$trace$iter, c(0, 7 * 1:7, 50))
  expect_equal(fit$objective, sum((d$y - d$X %*% coef(fit))^2) / (2 * nrow(d$X)))
  expect_equal(fit$fitted.values, drop(d$X %*% coef(fit)))
  expect_true(all(diff(fit$trace$time) >= 0))
  # default batch ceiling(120/500) = 1 row per iteration until the data run out
  expect_equal(fit$trace$n_grad, pmin(fit$trace$iter, 120))
  expect_equal(fit$trace$n_lmo, fit$trace$iter)
})

test_that("sparse and dense designs give the same fit", {
  d <- make_regression()
  Xs <- Matrix::Matrix(d$X * (abs(d$X) > 0.8), sparse = TRUE)
  for (m in c("fw", "sfw", "spg")) {
    # a fixed schedule: stochastic methods test tol at evaluations, and the
    # adaptive schedule's evaluations depend on timing
    ctl <- cg_control(max_iter = 200, eval_every = 10)
    set.seed(5); fd <- sparse_regression(as.matrix(Xs), d$y, 3, method = m, control = ctl, intercept = FALSE, standardize = FALSE)
    set.seed(5); fs <- sparse_regression(Xs, d$y, 3, method = m, control = ctl, intercept = FALSE, standardize = FALSE)
    expect_equal(coef(fs), coef(fd), tolerance = 1e-10)
  }
})

test_that("Gram and residual representations give the same iterates", {
  d <- make_regression()
  Xs <- Matrix::Matrix(d$X * (abs(d$X) > 0.8), sparse = TRUE)
  for (X in list(d$X, Xs)) for (m in c("fw", "sfw", "spg"))
    for (sampling in c("shuffle", "replace")) {
      ctl <- cg_control(max_iter = 150, eval_every = 50)
      set.seed(4); a <- sparse_regression(X, d$y, 3, method = m, sampling = sampling,
                                          batch_size = 3, gram = TRUE, control = ctl, intercept = FALSE, standardize = FALSE)
      set.seed(4); b <- sparse_regression(X, d$y, 3, method = m, sampling = sampling,
                                          batch_size = 3, gram = FALSE, control = ctl, intercept = FALSE, standardize = FALSE)
      expect_equal(coef(b), coef(a), tolerance = 1e-9)
      expect_equal(b$trace$objective, a$trace$objective, tolerance = 1e-9)
    }
})

test_that("set.seed reproduces a stochastic fit bit for bit", {
  d <- make_regression()
  run <- function(seed) {
    set.seed(seed)
    sparse_regression(d$X, d$y, 3, method = "sfw", batch_size = 4,
                      control = cg_control(max_iter = 100), intercept = FALSE, standardize = FALSE)
  }
  a <- run(7); b <- run(7); c <- run(8)
  expect_identical(coef(a), coef(b))
  expect_identical(a$trace$objective, b$trace$objective)
  expect_false(identical(coef(a), coef(c)))
})

test_that("sampling modes: stream takes rows in order, replace never exhausts", {
  d <- make_regression()
  ctl <- cg_control(max_iter = 30, eval_every = 10)
  f1 <- sparse_regression(d$X, d$y, 3, method = "sfw", sampling = "stream",
                          batch_size = 2, control = ctl, intercept = FALSE, standardize = FALSE)
  f2 <- sparse_regression(d$X[1:60, ], d$y[1:60], 3, method = "sfw", sampling = "stream",
                          batch_size = 2, control = ctl, intercept = FALSE, standardize = FALSE)
  expect_identical(coef(f1), coef(f2))     # only the first 60 rows were used
  f3 <- sparse_regression(d$X, d$y, 3, method = "sfw", sampling = "replace", batch_size = 10,
                          control = cg_control(max_iter = 30, eval_every = 30), intercept = FALSE, standardize = FALSE)
  expect_equal(tail(f3$trace$epoch, 1), 300 / 120)
})

test_that("bad input is rejected with a message naming the argument", {
  d <- make_regression()
  X <- d$X; y <- d$y
  Xna <- X; Xna[3, 2] <- NA
  expect_error(sparse_regression(Xna, y, 1, intercept = FALSE, standardize = FALSE), "`X` contains NA")
  expect_error(sparse_regression(X, y[-1], 1, intercept = FALSE, standardize = FALSE), "`y` must have length 120")
  expect_error(sparse_regression(X, y, c(0, 1), intercept = FALSE, standardize = FALSE), "`radius` must be positive")
  expect_error(sparse_regression(X, y, -2, intercept = FALSE, standardize = FALSE), "`radius` must be greater than 0")
  expect_error(sparse_regression(X, y, Inf, intercept = FALSE, standardize = FALSE), "`radius` must be finite")
  expect_error(sparse_regression(X, y, intercept = FALSE, standardize = FALSE), "`radius` is missing")
  expect_error(sparse_regression(X, y, 1, method = "newton", intercept = FALSE, standardize = FALSE), "`method` must be one of")
  expect_error(sparse_regression("a", y, 1, intercept = FALSE, standardize = FALSE), "`X` must be a numeric matrix")
  expect_error(sparse_regression(X, c(y[-1], NA), 1, intercept = FALSE, standardize = FALSE), "`y` contains NA")
  expect_error(sparse_regression(X, y, 1, batch_size = 0, intercept = FALSE, standardize = FALSE), "`batch_size` must be at least 1")
  expect_error(sparse_regression(X, y, 1, K = 1.5, intercept = FALSE, standardize = FALSE), "`K` must be a whole number")
  expect_error(sparse_regression(X, y, 1, control = cg_control(max_iter = -1), intercept = FALSE, standardize = FALSE),
               "`max_iter` must be at least 0")
  expect_error(cg_control(tol = NA), "`tol` must be a single number")
  expect_error(sparse_regression(X, y, 1, step = "armijo", intercept = FALSE, standardize = FALSE), "`step` must be one of")
  expect_error(sparse_regression(X, y, 1, gram = NA, intercept = FALSE, standardize = FALSE), "`gram` must be TRUE or FALSE")
})

# ---- intercept --------------------------------------------------------------
# Columns and response with nonzero means: an intercept matters
offset_regression <- function(n = 200, p = 60, seed = 7) {
  set.seed(seed)
  X <- matrix(rnorm(n * p), n, p) + rep(seq(-3, 3, length.out = p), each = n)
  list(X = X, y = drop(X[, 1:3] %*% c(2, -1.5, 1)) + 10 + rnorm(n))
}
centre_cols <- function(X) sweep(X, 2, colMeans(X))

test_that("an intercept fit is the centred data's fit, with a = ybar - xbar'beta", {
  d <- offset_regression()
  Xc <- centre_cols(d$X); yc <- d$y - mean(d$y)
  for (m in c("pfw", "fw", "sfw", "spg")) {
    ctl <- if (m == "pfw") cg_control(tol = 1e-12) else cg_control(max_iter = 200, tol = 0)
    set.seed(2); fit <- sparse_regression(d$X, d$y, 3, method = m, control = ctl, standardize = FALSE)
    set.seed(2); ref <- sparse_regression(Xc, yc, 3, method = m, control = ctl, intercept = FALSE, standardize = FALSE)
    expect_identical(fit$solution$beta, ref$solution$beta, info = m)
    expect_identical(fit$objective, ref$objective, info = m)
    expect_identical(fit$gap, ref$gap, info = m)
    expect_identical(fit$iterations, ref$iterations, info = m)
    expect_identical(fit$intercept, mean(d$y) - sum(colMeans(d$X) * fit$solution$beta))
    expect_identical(fit$x_center, colMeans(d$X))
    expect_identical(ref$intercept, 0)
    expect_null(ref$x_center)
  }
  # without the intercept the fit is another (worse) one: the test has teeth
  raw <- sparse_regression(d$X, d$y, 3, intercept = FALSE, control = cg_control(tol = 1e-12), standardize = FALSE)
  expect_gt(raw$objective, 1.5 * fit$objective)
  expect_gt(max(abs(raw$solution$beta - fit$solution$beta)), 0.1)
})

test_that("intercept fits match glmnet(intercept = TRUE), dense and sparse", {
  skip_if_not_installed("glmnet")
  d <- offset_regression()
  keep <- abs(d$X - rep(seq(-3, 3, length.out = 60), each = 200)) > 0.8
  for (X in list(d$X, Matrix::Matrix(d$X * keep, sparse = TRUE))) {
    g <- glmnet::glmnet(X, d$y, standardize = FALSE, intercept = TRUE,
                        thresh = 1e-14, lambda = 0.05)
    b <- as.vector(coef(g))                  # intercept first, as coef(fit)
    fit <- sparse_regression(X, d$y, sum(abs(b[-1])), control = cg_control(tol = 1e-14), standardize = FALSE)
    expect_true(fit$converged)
    # glmnet's coordinate descent stops at thresh on the objective's
    # change, not on the coefficients: 2.7e-8 and 1.2e-7 measured
    expect_lt(max(abs(coef(fit) - b)), 1e-6)
    expect_identical(names(coef(fit))[1], "(Intercept)")
    expect_identical(which(fit$solution$beta != 0), which(b[-1] != 0))
    # the objective is that of the stated problem, the intercept included:
    # glmnet's point (optimal to ~1e-7 in beta) is no better than ours
    obj_g <- sum((d$y - b[1] - as.vector(as.matrix(X %*% b[-1])))^2) / (2 * 200)
    expect_lte(fit$objective, obj_g + 1e-12)
    expect_equal(fit$objective, obj_g, tolerance = 1e-9)
  }
})

test_that("predict, fitted, residuals and coef include the intercept", {
  d <- offset_regression(n = 80, p = 10)
  fit <- sparse_regression(d$X, d$y, 2, control = cg_control(tol = 1e-12), standardize = FALSE)
  a <- fit$intercept; beta <- fit$solution$beta
  expect_true(a != 0)
  expect_identical(coef(fit), c("(Intercept)" = a, beta))
  new <- d$X[1:7, ] + 1
  expect_equal(predict(fit, new), a + drop(new %*% beta), tolerance = 1e-14)
  expect_equal(predict(fit, Matrix::Matrix(new, sparse = TRUE)), a + drop(new %*% beta),
               tolerance = 1e-14)
  expect_equal(fitted(fit), a + drop(d$X %*% beta), tolerance = 1e-13)
  expect_equal(predict(fit), fitted(fit))
  expect_equal(residuals(fit), d$y - a - drop(d$X %*% beta), tolerance = 1e-13)
  expect_identical(fit$y, d$y)
  # the stated objective at (a, beta)
  expect_equal(fit$objective, sum(residuals(fit)^2) / (2 * 80), tolerance = 1e-12)
  expect_match(capture.output(print(fit))[7], "beta: .*; intercept ")
  off <- sparse_regression(d$X, d$y, 2, intercept = FALSE, standardize = FALSE)
  expect_identical(coef(off), off$solution$beta)
  expect_equal(predict(off, new), drop(new %*% off$solution$beta), tolerance = 1e-14)
  expect_error(sparse_regression(d$X, d$y, 2, intercept = NA, standardize = FALSE),
               "^`intercept` must be TRUE or FALSE$")
  expect_error(sparse_regression(d$X, d$y, 2, intercept = "yes", standardize = FALSE),
               "^`intercept` must be TRUE or FALSE$")
  expect_error(sparse_regression(d$X, d$y, c(1, 2), intercept = 1:2, standardize = FALSE),
               "^`intercept` must be TRUE or FALSE$")
})

test_that("shifting y by a constant changes only the intercept", {
  d <- offset_regression()
  f1 <- sparse_regression(d$X, d$y, 3, control = cg_control(tol = 1e-13), standardize = FALSE)
  f2 <- sparse_regression(d$X, d$y + 1000, 3, control = cg_control(tol = 1e-13), standardize = FALSE)
  # the centred responses agree to rounding (ulps of 1000): 3.6e-15 measured
  expect_equal(f2$solution$beta, f1$solution$beta, tolerance = 1e-12)
  expect_equal(f2$intercept - f1$intercept, 1000, tolerance = 1e-12)
  expect_equal(f2$objective, f1$objective, tolerance = 1e-12)
  expect_equal(residuals(f2), residuals(f1), tolerance = 1e-10)
})

test_that("a sparse X is centred implicitly: every method and representation, and paths", {
  d <- offset_regression()
  keep <- abs(d$X - rep(seq(-3, 3, length.out = 60), each = 200)) > 0.8
  Xd <- d$X * keep
  Xs <- Matrix::Matrix(Xd, sparse = TRUE)
  for (m in c("pfw", "fw", "sfw", "spg")) for (g in c(TRUE, FALSE)) {
    ctl <- if (m == "pfw") cg_control(tol = 1e-12) else cg_control(max_iter = 300, tol = 0)
    set.seed(3); a <- sparse_regression(Xs, d$y, 2.5, method = m, gram = g, control = ctl, standardize = FALSE)
    set.seed(3); b <- sparse_regression(Xd, d$y, 2.5, method = m, gram = g, control = ctl, standardize = FALSE)
    info <- paste(m, g)
    # the same iterates up to rounding (dense: X - 1 xbar' in R; sparse:
    # products corrected by xbar in C): 1.8e-15 measured; pfw converges in
    # a different number of steps (33, 23) at the same point
    expect_equal(coef(a), coef(b), tolerance = 1e-12, info = info)
    expect_equal(a$objective, b$objective, tolerance = 1e-12, info = info)
    expect_equal(fitted(a), fitted(b), tolerance = 1e-12, info = info)
    if (m != "pfw") expect_identical(a$iterations, b$iterations, info = info)
    expect_true(inherits(a$call$X, "name"))   # X given as it is, not densified
  }
  # paths share the centred X'X / n
  pa <- sparse_regression(Xs, d$y, c(1, 2, 4), control = cg_control(tol = 1e-12), standardize = FALSE)
  pb <- sparse_regression(Xd, d$y, c(1, 2, 4), control = cg_control(tol = 1e-12), standardize = FALSE)
  expect_equal(coef(pa), coef(pb), tolerance = 1e-12)
  expect_identical(rownames(coef(pa))[1], "(Intercept)")
  expect_equal(dim(coef(pa)), c(61L, 3L))
  expect_identical(stochcg:::regression_gram(Xs, colMeans(Xd)),
                   stochcg:::regression_gram(Xs, colMeans(Xd)))
  expect_equal(stochcg:::regression_gram(Xs, colMeans(Xd)),
               crossprod(centre_cols(Xd)) / 200, tolerance = 1e-12)
  # a gram matrix of the uncentred X is refused
  expect_error(sparse_regression(Xs, d$y, 2, gram = crossprod(Xd) / 200, standardize = FALSE),
               "^`gram` is not crossprod\\(X\\) / nrow\\(X\\) of this `X`$")
})

test_that("pfw from a support of more columns than rows (a singular face) converges", {
  # 120 nonzero coefficients at n = 25: the face steps first drop columns
  # along null directions of X_S (no change of the fit), then solve
  set.seed(5)
  n <- 25; p <- 120
  X <- matrix(rnorm(n * 3), n) %*% matrix(rnorm(3 * p), 3) + matrix(rnorm(n * p), n)
  y <- drop(X[, 1:4] %*% c(2, -1, 1, 1) + rnorm(n, sd = 0.5))
  Xc <- scale(X, scale = FALSE); yc <- y - mean(y)
  for (r in c(3, 30)) {          # a lasso solution, and past interpolation
    f <- sparse_regression(X, y, radius = r, init = rep(c(1, -1), p / 2) * r / (2 * p),
                           standardize = FALSE)
    expect_true(f$converged)
    b <- f$solution$beta
    g <- drop(crossprod(Xc, Xc %*% b - yc)) / n
    gap <- sum(g * b) + r * max(abs(g))           # on all p coordinates
    expect_lte(gap, 1e-6 * max(f$objective, 1e-3 * sum(yc^2) / (2 * n)) + 1e-15)
    expect_lte(sum(b != 0), n - 1)                # a support of independent columns
  }
  ref <- sparse_regression(X, y, radius = 3, control = cg_control(tol = 1e-12),
                           standardize = FALSE)
  expect_equal(f$objective, 0, tolerance = 1e-10)
  expect_equal(sparse_regression(X, y, 3, init = rep(0.01, p), standardize = FALSE)$objective,
               ref$objective,
               tolerance = 1e-6)
})

# ---- the working set of "pfw" (dense X, p >= 200; prob_regression.c, ws_screen)

# the gradient X'(X b - y) / n of the stated problem, in R: its KKT
# conditions over all columns and its Frank-Wolfe gap at radius r
kkt_r <- function(X, y, b, r) {
  g <- drop(crossprod(X, X %*% b - y)) / nrow(X)
  lam <- max(abs(g))
  list(g = g, lam = lam, gap = sum(g * b) + r * lam)
}

unscreened <- function(expr) {
  old <- options(stochcg.screen = FALSE)
  on.exit(options(old))
  expr
}

test_that("pfw's working set gives the unscreened solution, certified over all columns", {
  set.seed(21)
  n <- 50; p <- 300
  X <- matrix(rnorm(n * p), n)
  y <- drop(X[, 1:6] %*% c(3, -2, 2, 1.5, -1, 1) + rnorm(n, sd = 0.5))
  ctl <- cg_control(tol = 1e-10)
  for (r in c(2, 6, 9)) {             # below interpolation: a unique solution
    a <- sparse_regression(X, y, r, intercept = FALSE, standardize = FALSE, control = ctl)
    b <- unscreened(sparse_regression(X, y, r, intercept = FALSE, standardize = FALSE,
                                      control = ctl))
    expect_true(a$converged && b$converged)
    expect_false(is.null(a$screen))             # screened: a working set was used
    expect_lt(a$screen[["working_set"]], p)
    expect_null(b$screen)
    expect_equal(coef(a), coef(b), tolerance = 1e-7)
    expect_equal(a$objective, b$objective, tolerance = 1e-10)
    # the certificate is the full problem's: its gap and KKT over all p
    k <- kkt_r(X, y, coef(a), r)
    expect_lt(abs(a$gap - k$gap), 1e-9)   # both about 0: absolute
    expect_lte(k$gap, 1e-10 * sum(y^2) / (2 * n) + 1e-12)
    on <- coef(a) != 0
    expect_true(all(abs(k$g) <= k$lam * (1 + 1e-8)))
    expect_equal(unname(k$g[on]), -k$lam * sign(unname(coef(a)[on])), tolerance = 1e-5)
  }
})

test_that("a column the start set leaves out is brought in by the KKT check", {
  # x1 alone is uncorrelated with y (y follows x2 - x1, x2 = x1 + 0.3 z):
  # at beta = 0 its |x1'y| ranks far below the 16 largest the first check
  # takes, yet the solution needs it (to cancel x1's part of x2)
  set.seed(4)
  n <- 100; p <- 300
  X <- matrix(rnorm(n * p), n)
  z <- rnorm(n)
  X[, 2] <- X[, 1] + 0.3 * z
  y <- drop(10 * (X[, 2] - X[, 1])) + 0.1 * rnorm(n)
  g0 <- abs(drop(crossprod(X, y)))
  expect_gt(rank(-g0)[1], 16)                      # not in the start set
  r <- 15
  a <- sparse_regression(X, y, r, intercept = FALSE, standardize = FALSE,
                         control = cg_control(tol = 1e-10))
  b <- unscreened(sparse_regression(X, y, r, intercept = FALSE, standardize = FALSE,
                                    control = cg_control(tol = 1e-10)))
  expect_true(a$converged)
  expect_lt(coef(a)[1], -1)                        # x1 is in the solution
  expect_gt(a$screen[["kkt_added"]], 0)            # added by a later check
  expect_equal(coef(a), coef(b), tolerance = 1e-7)
  k <- kkt_r(X, y, coef(a), r)
  expect_true(all(abs(k$g) <= k$lam * (1 + 1e-8)))
  expect_lt(abs(a$gap - k$gap), 1e-9)   # both about 0: absolute
})

test_that("with a working set, a path equals warm-started fits and init = fit continues exactly", {
  set.seed(22)
  n <- 40; p <- 250
  X <- matrix(rnorm(n * p), n)
  y <- drop(X[, 1:5] %*% c(3, -2, 2, 1, -1) + rnorm(n))
  r <- c(1, 3, 6, 9)
  path <- sparse_regression(X, y, radius = r, standardize = FALSE)
  prev <- NULL
  for (k in seq_along(r)) {
    f <- sparse_regression(X, y, r[k], init = prev, standardize = FALSE)
    expect_false(is.null(f$screen))
    expect_identical(coef(path, radius = r[k]), coef(f))
    expect_identical(path$fits[[k]]$objective, f$objective)
    prev <- f
  }
  run <- function(k, init = NULL)
    sparse_regression(X, y, 8, init = init, standardize = FALSE,
                      control = cg_control(max_iter = k, tol = 0, eval_every = 1L))
  expect_exact_resume(run, 6L, 10L, label = "pfw screened")
})

test_that("n > p: the kept face factor and the Gram-column gradient give glmnet's lasso (KKT)", {
  skip_if_not_installed("glmnet")
  # correlated columns, n > p: no working set; the full gradient and the
  # evaluation go through the support's Gram columns, the face steps
  # update one Cholesky factor along the path (and past r_ls the solution
  # has every column: the factor grows to p)
  d <- correlated_design(n = 300, p = 60, rho = 0.9, seed = 5)
  X <- d$X; y <- d$y; n <- nrow(X)
  r_ls <- sum(abs(qr.solve(X, y)))
  r <- r_ls * c(0.1, 0.3, 0.6, 0.9, 0.99)
  path <- sparse_regression(X, y, r, intercept = FALSE, standardize = FALSE,
                            control = cg_control(tol = 1e-12))
  obj0 <- sum(y^2) / (2 * n)
  for (k in seq_along(r)) {
    f <- path$fits[[k]]
    b <- coef(f)
    expect_true(f$converged)
    kk <- kkt_r(X, y, b, r[k])
    # the reported objective and gap are those of the stated problem
    expect_lt(abs(f$objective - sum((y - X %*% b)^2) / (2 * n)), 1e-12 * obj0)
    expect_lt(abs(f$gap - kk$gap), 1e-10 * obj0)
    expect_lt(kk$gap, 1e-11 * obj0)
    # on the support |g_j| = lambda, the sign opposite beta_j's
    nz <- b != 0
    expect_lt(max(abs(kk$g[nz] + kk$lam * sign(b[nz]))), 1e-9 * kk$lam)
    # glmnet's penalized solution at that multiplier (thresh 1e-14; its
    # coordinate descent stops on the objective's change), and ours no
    # worse for its objective
    g <- glmnet::glmnet(X, y, lambda = kk$lam, intercept = FALSE, standardize = FALSE,
                        thresh = 1e-14, maxit = 1e6)
    bg <- as.vector(as.matrix(g$beta))
    expect_lt(max(abs(bg - b)), 1e-4)                # (1.5e-5 measured)
    pen <- function(v) sum((y - X %*% v)^2) / (2 * n) + kk$lam * sum(abs(v))
    expect_lte(pen(b), pen(bg) + 1e-12 * obj0)
  }
  expect_gt(sum(coef(path$fits[[5]]) != 0), 40)
  # the factor is in a fit's state: an interrupted fit continues exactly
  fit <- sparse_regression(X, y, r[4], intercept = FALSE, standardize = FALSE)
  expect_gt(length(fit$state$state_face_idx), 0L)
  expect_length(fit$state$state_face_L,
                length(fit$state$state_face_idx) * (length(fit$state$state_face_idx) + 1) / 2)
  run <- function(k, init = NULL)
    sparse_regression(X, y, r[4], init = init, intercept = FALSE, standardize = FALSE,
                      control = cg_control(max_iter = k, tol = 0, eval_every = 1L))
  expect_exact_resume(run, 25L, 20L, label = "pfw kept face factor")
  # a state with a broken factor is refused
  bad <- fit; bad$state$state_face_L <- bad$state$state_face_L[-1]
  expect_error(sparse_regression(X, y, r[4], init = bad, intercept = FALSE, standardize = FALSE),
               "invalid regression state")
})

test_that("sparse_regression(radius = 0) is the null model in closed form", {
  set.seed(33)
  X <- matrix(rnorm(50 * 8), 50, 8)
  w <- runif(50)
  for (fam in c("gaussian", "binomial", "poisson")) {
    y <- switch(fam, gaussian = rnorm(50, 3), binomial = rbinom(50, 1, 0.3),
                poisson = rpois(50, 2))
    m <- sum(w * y) / sum(w)
    f0 <- sparse_regression(X, y, 0, family = fam, weights = w)
    b <- coef(f0)
    expect_true(all(b[-1] == 0))
    expect_equal(unname(b[1]), switch(fam, gaussian = m, binomial = qlogis(m), poisson = log(m)),
                 tolerance = 1e-14)
    expect_identical(f0$gap, 0)
    expect_true(f0$converged)
    # its objective: the loss at beta = 0, as the solver's at a tiny radius
    ft <- sparse_regression(X, y, 1e-10, family = fam, weights = w)
    expect_equal(f0$objective, ft$objective, tolerance = 1e-8)
    expect_equal(unname(predict(f0, X[1:2, ], type = "response")), rep(m, 2), tolerance = 1e-14)
    # without an intercept: the zero model
    z <- sparse_regression(X, y, 0, family = fam, intercept = FALSE)
    expect_true(all(coef(z) == 0))
    expect_equal(z$objective, sparse_regression(X, y, 1e-10, family = fam,
                                                intercept = FALSE)$objective, tolerance = 1e-8)
  }
  expect_error(sparse_regression(X, rnorm(50), 0, penalty.factor = c(0, rep(1, 7))),
               "`radius` = 0 \\(the null model\\) needs every `penalty.factor` > 0")
})
