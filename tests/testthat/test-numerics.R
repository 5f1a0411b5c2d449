# Numerical failures, overflow, trace growth and interrupts in the C run
# layer: step arithmetic in double, non-finite objectives, gaps, gradients and
# sampler values stop a run with status "error" and a message saying what
# overflowed, the trace grows as needed, and an error or Ctrl-C inside an R
# sampler or a long kernel returns the last complete iterate.

# the fit and the messages of the warnings it raised
with_warnings <- function(expr) {
  msgs <- character()
  fit <- withCallingHandlers(expr, warning = function(w) {
    msgs <<- c(msgs, conditionMessage(w))
    invokeRestart("muffleWarning")
  })
  list(fit = fit, warnings = msgs)
}

# a failed fit: status "error" with its reason in the message and warning
expect_failure_fit <- function(res, pattern) {
  expect_identical(res$fit$status, "error")
  expect_false(res$fit$converged)
  expect_match(res$fit$message, pattern)
  expect_length(res$warnings, 1L)
  expect_match(res$warnings, pattern)
}

make_regression <- function(n = 200, p = 20, seed = 1) {
  set.seed(seed)
  X <- matrix(rnorm(n * p), n)
  list(X = X, y = drop(X[, 1:3] %*% c(1, -1, 2) + rnorm(n)))
}

make_completion <- function(m = 30, n = 20, seed = 3) {
  set.seed(seed)
  L <- tcrossprod(matrix(rnorm(m * 2), m), matrix(rnorm(n * 2), n))
  Y <- matrix(rpois(m * n, exp(L / 3)), m)
  keep <- sample(m * n, 400)
  data.frame(row = row(Y)[keep], col = col(Y)[keep], value = Y[keep])
}

test_that("sFW step arithmetic is in double: K = .Machine$integer.max stays in the ball", {
  d <- make_regression()
  fit <- sparse_regression(d$X, d$y, 3, method = "sfw", K = .Machine$integer.max,
                           control = cg_control(max_iter = 50), standardize = FALSE)
  beta <- fit$solution$beta
  expect_lte(sum(abs(beta)), 3 * (1 + 1e-12))
  # K -> Inf makes the step K / (t + K - 1) -> 1: every iterate is the last
  # LMO vertex, up to (t - 1) / K = 2.3e-8 of the previous one
  expect_equal(max(abs(beta)), 3, tolerance = 1e-7)
  expect_lt(sum(abs(beta)) - max(abs(beta)), 1e-6)
})

test_that("an overflowed objective never converges: robust_pca(M * 1e300)", {
  set.seed(2)
  M <- matrix(rnorm(50 * 40), 50)
  res <- with_warnings(robust_pca(M * 1e300, 30, 50))
  expect_failure_fit(res, "objective is Inf at iteration 0: it overflowed double precision")
  expect_identical(res$fit$iterations, 0L)
  expect_true(all(is.finite(as.matrix(res$fit$solution$X))))
  # every method
  for (method in c("alt_pgcg", "cgcg", "cgcg_p", "altmin"))
    expect_failure_fit(with_warnings(robust_pca(M * 1e300, 30, 50, method = method)),
                       "objective is Inf at iteration 0")
})

test_that("radius 1e308 stops with the overflow named, for every problem", {
  d <- make_regression()
  for (method in c("pfw", "sfw", "fw", "spg")) {
    res <- with_warnings(sparse_regression(d$X, d$y, 1e308, method = method, standardize = FALSE))
    expect_failure_fit(res, "duality gap is Inf at iteration 0: it overflowed")
    expect_true(all(is.finite(res$fit$solution$beta)))
  }
  set.seed(4)
  M <- matrix(rnorm(400), 20)
  for (method in c("svrgcg", "scg", "scgs", "fw"))
    expect_failure_fit(with_warnings(lowrank_sparse(M, 0.1, 1e308, method = method)),
                       "duality gap is Inf at iteration 0")
  expect_failure_fit(with_warnings(robust_pca(M, 1e308, 50)), "duality gap is Inf")
  df <- make_completion()
  # eval_every = 10: the step of iteration 2 meets the overflow before an
  # evaluation does (the default schedule evaluates at iteration 1)
  # sfw (the default before issue 25; fw's line search takes tiny steps and
  # does not overflow)
  res <- with_warnings(complete_matrix(df, 1e308, dims = c(30, 20), method = "sfw",
                                       control = cg_control(eval_every = 10)))
  expect_failure_fit(res, "Frank-Wolfe gap is not finite at iteration 2: it overflowed")
  expect_identical(res$fit$iterations, 1L)
})

test_that("data scaled by 1e200: the objective or the gradient overflow is named", {
  d <- make_regression()
  expect_failure_fit(with_warnings(sparse_regression(d$X * 1e200, d$y * 1e200, 3, standardize = FALSE)),
                     "objective is Inf at iteration 0")
  # the objective is finite at 0 but X'X overflows once beta moves
  for (method in c("sfw", "spg")) {
    res <- with_warnings(sparse_regression(d$X * 1e200, d$y, 3, method = method,
                                           control = cg_control(eval_every = 10), standardize = FALSE))
    expect_failure_fit(res, "gradient X'\\(X beta - y\\) / n overflowed double precision")
    expect_true(all(is.finite(res$fit$solution$beta)))
  }
  res <- with_warnings(sparse_regression(d$X * 1e200, d$y, 3, standardize = FALSE))      # pfw
  expect_failure_fit(res, "Gram column X'x_[0-9]+ / n overflowed double precision")
  expect_identical(res$fit$iterations, 0L)
  df <- make_completion()
  df$value <- df$value * 1e200
  expect_failure_fit(with_warnings(complete_matrix(df, 10, dims = c(30, 20))),
                     "objective overflowed double precision")
  set.seed(2)
  expect_failure_fit(with_warnings(robust_pca(matrix(rnorm(600), 30) * 1e200, 30, 50,
                                              method = "altmin")),
                     "objective is Inf at iteration 0")
})

test_that("a non-finite line search step is never taken", {
  set.seed(1)
  M <- matrix(rnorm(400), 20)
  # the elastic net's CG point -soft(G, l1) / (2 l2) is ~1e300: its penalty
  # overflows and the exact step is NaN
  for (method in c("alt_cgpg", "cgcg", "cgcg_p")) {
    res <- with_warnings(robust_pca(M, 30, sparse = "enet", lambda1 = 1e-300,
                                    lambda2 = 1e-300, method = method))
    expect_failure_fit(res, "step size is not finite at iteration 1")
    expect_identical(res$fit$iterations, 0L)
    expect_true(all(is.finite(as.matrix(res$fit$solution$Y))))
  }
})

test_that("factored iterates stay finite with a radius near .Machine$double.xmax", {
  # atom weights are stored divided by a common scale: gamma * 1e308 / scale
  # overflowed and the fit came back with Inf weights
  set.seed(3)
  L <- tcrossprod(matrix(rnorm(60), 30), matrix(rnorm(40), 20))
  Y <- matrix(rbinom(600, 1, plogis(L)), 30)
  keep <- sample(600, 400)
  df <- data.frame(row = row(Y)[keep], col = col(Y)[keep], value = Y[keep])
  fit <- complete_matrix(df, 1e308, family = "binomial", dims = c(30, 20),
                         control = cg_control(max_iter = 20))
  expect_identical(fit$status, "max_iter")
  expect_gt(length(fit$solution$X$d), 0L)
  expect_true(all(is.finite(fit$solution$X$d)))
  expect_true(is.finite(fit$objective))
})

test_that("Poisson completion with a huge radius reports exp() overflow", {
  df <- make_completion()
  for (method in c("sfw", "fw")) {
    res <- with_warnings(complete_matrix(df, 1e4, family = "poisson", method = method,
                                         dims = c(30, 20)))
    expect_failure_fit(res, paste0("exp\\(\\) overflowed in the Poisson likelihood: an ",
                                   "entry of the fit is [0-9.e+]+ .* reduce the radius"))
    expect_gte(res$fit$iterations, 1L)
    X <- as.matrix(res$fit$solution$X)
    expect_true(all(is.finite(X)))
    expect_lte(sum(svd(X)$d), 1e4 * (1 + 1e-9))
  }
})

# an R sampler that misbehaves on its call `bad` (lowrank_sparse makes two
# calls of its own first); each good call draws rnorm(400) and nothing else
# in the fit draws from R's RNG
make_sampler <- function(M, bad, what) {
  calls <- 0
  list(f = function(k) {
    calls <<- calls + 1
    if (calls == bad) {
      if (what == "stop") stop("boom")
      if (what == "interrupt") tools::pskill(Sys.getpid(), tools::SIGINT)
      if (what == "interrupt_inside") {
        tools::pskill(Sys.getpid(), tools::SIGINT)
        Sys.sleep(5)                    # R sees the interrupt here
        stop("not reached")
      }
      if (what == "NA") return(M * NA)
      if (what == "Inf") return(M / 0)
      if (what == "string") return("a")
      if (what == "closure") return(mean)
    }
    M + matrix(rnorm(length(M)), nrow(M)) / sqrt(k)
  }, calls = function() calls)
}

test_that("sampler values are checked on every call: NA, Inf, wrong type", {
  set.seed(4)
  M <- matrix(rnorm(400), 20)
  for (method in c("svrgcg", "scg", "scgs")) {
    for (what in c("NA", "Inf")) {
      s <- make_sampler(M, 5, what)
      res <- with_warnings(lowrank_sparse(s$f, 0.1, 5, method = method))
      expect_failure_fit(res, "sampler `M\\(k\\)` returned NA, NaN or Inf at its call 3")
      expect_identical(s$calls(), 5)
      expect_true(all(is.finite(res$fit$solution$X)))
    }
  }
  s <- make_sampler(M, 4, "string")
  expect_failure_fit(with_warnings(lowrank_sparse(s$f, 0.1, 5, method = "scg")),
                     paste0("must return a numeric 20 x 20 matrix; its call 2 by the ",
                            "solver \\(k = [0-9]+\\) returned a character of length 1"))
  s <- make_sampler(M, 4, "closure")
  expect_failure_fit(with_warnings(lowrank_sparse(s$f, 0.1, 5, method = "scg")),
                     "returned a closure of length 1")
})

test_that("an error in the sampler stops the fit with its message; RNG kept", {
  set.seed(4)
  M <- matrix(rnorm(400), 20)
  for (method in c("svrgcg", "scg", "scgs")) {
    s <- make_sampler(M, 5, "stop")
    set.seed(11)
    res <- with_warnings(lowrank_sparse(s$f, 0.1, 5, method = method))
    after <- .Random.seed
    expect_failure_fit(res, "sampler `M\\(k\\)` failed at its call 3 by the solver .*: boom")
    expect_true(all(is.finite(res$fit$solution$X)))
    # four good calls drew from R's RNG, and .Random.seed shows all of them
    set.seed(11)
    for (i in 1:4) rnorm(400)
    expect_identical(after, .Random.seed)
  }
})

test_that("Ctrl-C in an R sampler returns the last complete iterate", {
  skip_on_os("windows")
  set.seed(4)
  M <- matrix(rnorm(400), 20)
  for (what in c("interrupt", "interrupt_inside")) {
    s <- make_sampler(M, 5, what)
    set.seed(12)
    res <- with_warnings(lowrank_sparse(s$f, 0.1, 5, method = "scg",
                                        control = cg_control(max_iter = 100)))
    after <- .Random.seed
    expect_identical(res$fit$status, "interrupted")
    expect_identical(res$warnings, "fit interrupted after 2 iterations")
    # the interrupted iteration 3 left no trace: X is the iterate of a run
    # stopped at max_iter = 2 from the same seed
    s2 <- make_sampler(M, 0, "none")
    set.seed(12)
    ref <- lowrank_sparse(s2$f, 0.1, 5, method = "scg", control = cg_control(max_iter = 2))
    expect_identical(res$fit$solution$X, ref$solution$X)
    expect_true(all(is.finite(res$fit$solution$X)))
    # every draw made before the interrupt is in .Random.seed. R acts on a
    # pending interrupt at its next check, which for "interrupt" may fall
    # inside the sampler's remaining R code (before its rnorm(): 4 draws) or
    # after it returns (5); where depends on R's global evaluation count,
    # which earlier (timing-dependent) work moves. Either is a clean stop.
    draws <- if (what == "interrupt") 4:5 else 4L
    states <- lapply(draws, function(d) {
      set.seed(12)
      for (i in seq_len(d)) rnorm(400)
      .Random.seed
    })
    expect_true(any(vapply(states, identical, NA, after)))
  }
  # R is still usable: a fit after the interrupts runs to its end
  # (all 20 iterations; the dual refit on a matrix may then certify tol)
  fit <- lowrank_sparse(M, 0.1, 5, control = cg_control(max_iter = 20))
  expect_identical(fit$iterations, 20L)
  expect_true(fit$status %in% c("max_iter", "converged"))
})

test_that("Ctrl-C during a long fit is seen inside kernels; the iterate is kept", {
  skip_on_os("windows")
  skip_on_cran()
  set.seed(6)
  n <- 400
  M <- matrix(rnorm(n * n), n) + tcrossprod(matrix(rnorm(n * 3), n))
  system(sprintf("(sleep 1; kill -INT %d)", Sys.getpid()), wait = FALSE)
  res <- with_warnings(robust_pca(M, 10 * n, n, method = "cgcg",
                                  control = cg_control(max_iter = 1e6, tol = 0,
                                                       max_time = 60)))
  expect_identical(res$fit$status, "interrupted")
  expect_match(res$warnings, "^fit interrupted after [0-9]+ iterations$")
  expect_lt(res$fit$time, 60)
  X <- as.matrix(res$fit$solution$X)
  expect_true(all(is.finite(X)))
  expect_lte(sum(svd(X)$d), 10 * n * (1 + 1e-8))
})

test_that("the trace grows as needed: max_iter = .Machine$integer.max, eval_every = 1", {
  d <- make_regression(n = 50, p = 5)
  fit <- sparse_regression(d$X, d$y, 3, method = "fw",
                           control = cg_control(max_iter = .Machine$integer.max,
                                                eval_every = 1, tol = 1e-4), standardize = FALSE)
  expect_identical(fit$status, "converged")
  expect_identical(max(fit$trace$iter), fit$iterations)
  expect_gte(nrow(fit$trace), fit$iterations + 1)
  fit <- sparse_regression(d$X, d$y, 3, method = "sfw",
                           control = cg_control(max_iter = .Machine$integer.max,
                                                eval_every = 1, tol = 0, max_time = 0.2), standardize = FALSE)
  expect_identical(fit$status, "max_time")
  expect_identical(fit$trace$iter, 0:fit$iterations)
  # past the first allocation (1024 rows): every row kept, in order
  fit <- sparse_regression(d$X, d$y, 3, method = "sfw",
                           control = cg_control(max_iter = 3000, eval_every = 1, tol = 0), standardize = FALSE)
  expect_identical(fit$trace$iter, 0:3000)
  expect_true(all(is.finite(fit$trace$objective)))
})
