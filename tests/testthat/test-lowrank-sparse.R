# Low-rank + sparse estimation (Garber and Kaplan 2019): the certified-rank
# weak proximal oracle against the exact projection, inequality (5), fits
# against an exact (dual, certified) nonsmooth reference at 1e-3 with gaps
# that bound objective - optimum of the stated problem, the stochastic
# oracles, covariance_rows, reproducibility and bad input.

make_lowrank_sparse <- function(d = 30, r = 2, seed = 1, noise = 1) {
  set.seed(seed)
  Y <- matrix(rbinom(d * r, 1, 0.3) * sample(1:5, d * r, TRUE), d, r)
  M0 <- tcrossprod(Y)
  N <- matrix(rnorm(d * d, sd = noise), d)
  list(M0 = M0, M = M0 + (N + t(N)) / 2, tau = sum(diag(M0)))
}

test_that("certified-rank weak prox equals the exact projection", {
  set.seed(2)
  for (trial in 1:20) {
    m <- sample(8:40, 1); n <- sample(8:40, 1)
    A <- matrix(rnorm(m * n), m) + 3 * tcrossprod(rnorm(m), rnorm(n))
    tau <- runif(1, 1, 0.5 * sum(svd(A)$d))
    w <- stochcg:::cg_oracle("weak_prox", A = A, radius = tau, rank = 1L,
                              max_rank = 0L, psd = 0L)
    expect_true(w$certified)
    expect_equal(w$V, ref_proj_nuclear(A, tau), tolerance = 1e-8)
    S <- crossprod(matrix(rnorm(n * n), n)) - 2 * diag(n)
    tau2 <- runif(1, 0.5, 0.5 * sum(pmax(eigen(S)$values, 0)))
    w2 <- stochcg:::cg_oracle("weak_prox", A = S, radius = tau2, rank = 1L,
                               max_rank = 0L, psd = 1L)
    expect_true(w2$certified)
    expect_equal(w2$V, ref_proj_psd(S, tau2), tolerance = 1e-8)
    # the certified rank covers the rank of the exact projection
    exact_rank <- sum(svd(ref_proj_nuclear(A, tau))$d > 1e-8 * tau)
    expect_gte(w$rank, exact_rank)
    expect_equal(sum(svd(w$V)$d > 1e-8 * tau), exact_rank)
  }
})

test_that("rank-r oracle satisfies the weak-prox inequality (5) for rank-r points", {
  # projecting the rank-r truncation of A is at least as close to A as any
  # feasible point of rank <= r (Garber and Kaplan 2019, eq. 5)
  set.seed(3)
  for (trial in 1:20) {
    m <- 25; n <- 20; r <- sample(1:4, 1); tau <- 10
    A <- matrix(rnorm(m * n, sd = 2), m)
    w <- stochcg:::cg_oracle("weak_prox", A = A, radius = tau, rank = r,
                              max_rank = r, psd = 0L)
    expect_lte(w$rank, r)
    expect_lte(sum(svd(w$V)$d), tau * (1 + 1e-10))
    for (k in 1:10) {               # random feasible points of rank r
      Z <- matrix(rnorm(m * r), m) %*% matrix(rnorm(r * n), r)
      Z <- Z * runif(1, 0, tau) / sum(svd(Z)$d)
      expect_lte(sum((w$V - A)^2), sum((Z - A)^2) + 1e-9)
    }
  }
})

# the certificate of the stated problem at X (smooth.c): the smoothed
# Frank-Wolfe gap plus the Huber dual residual, in plain R
certificate_l1 <- function(X, M, lambda, tau, mu, set) {
  G <- X - M + huber_grad(X, mu, lambda)
  min_s <- if (set == "psd") tau * min(0, eigen((G + t(G)) / 2, TRUE, only.values = TRUE)$values)
           else -tau * svd(G, 0, 0)$d[1]
  sum(G * X) - min_s + lambda * sum(ifelse(abs(X) < mu, abs(X) - X^2 / mu, 0))
}

test_that("the default fit reaches the exact nonsmooth optimum; its gap certifies it", {
  for (set in c("nuclear", "psd")) {
    d <- make_lowrank_sparse(seed = 4)
    lambda <- 0.5
    ref <- ref_lowrank_l1(d$M, lambda, d$tau, set)
    expect_lt(ref$gap, 1e-9 * ref$objective)             # the reference is certified
    fit <- lowrank_sparse(d$M, lambda, d$tau, set = set,
                          control = cg_control(max_iter = 5000, tol = 1e-4))
    expect_true(fit$converged)
    expect_true(fit$smoothing$continuation)
    expect_lt(fit$mu, fit$smoothing$mu_start)             # continuation moved mu
    expect_lte(fit$gap, 1e-4 * max(1, abs(fit$objective)))
    expect_gte(fit$gap, fit$objective - ref$objective - 1e-9)
    expect_lt(fit$objective - ref$objective, 1e-3 * ref$objective)
    expect_lt(norm(fit$solution$X - ref$X, "F"), 1e-3 * norm(ref$X, "F"))
    # every evaluated gap is an upper bound on objective - optimum
    tr <- fit$trace
    expect_true(all(tr$gap >= tr$objective - ref$objective - 1e-9))
    # the solver's last gap is the closed form at its iterate and final mu
    # (a dual refit returns its projection and keeps the iterate in the state)
    Xit <- if (isTRUE(fit$refit$used)) fit$state$X_iter else fit$solution$X
    expect_equal(fit$trace$gap[nrow(fit$trace)],
                 certificate_l1(Xit, d$M, lambda, d$tau, fit$mu, set), tolerance = 1e-7)
    expect_lte(fit$gap, fit$trace$gap[nrow(fit$trace)])
    norm_ok <- if (set == "psd") {
      ev <- eigen(fit$solution$X, symmetric = TRUE, only.values = TRUE)$values
      min(ev) > -1e-8 && sum(ev) <= d$tau * (1 + 1e-8)
    } else sum(svd(fit$solution$X)$d) <= d$tau * (1 + 1e-8)
    expect_true(norm_ok)
    for (m in c("fw", "scg", "scgs")) {   # slower methods: the certificate holds
      f2 <- lowrank_sparse(d$M, lambda, d$tau, set = set, method = m,
                           control = cg_control(max_iter = 300, tol = 0))
      expect_true(all(f2$trace$gap >= f2$trace$objective - ref$objective - 1e-9))
      expect_gte(f2$objective, ref$objective - 1e-9)
    }
  }
})

test_that("a given mu stays fixed (the paper's setting) and the gap still certifies", {
  d <- make_lowrank_sparse(seed = 4)
  ref <- ref_lowrank_l1(d$M, 0.5, d$tau)
  fit <- lowrank_sparse(d$M, 0.5, d$tau, mu = 0.2,
                        control = cg_control(max_iter = 2000, tol = 1e-7))
  expect_identical(fit$mu, 0.2)
  expect_false(fit$smoothing$continuation)
  # the smoothed problem's optimum is not the stated one: not converged,
  # and the reported gap covers the distance to the stated optimum
  expect_false(fit$converged)
  expect_gt(fit$objective - ref$objective, 1e-3 * ref$objective)
  expect_gte(fit$gap, fit$objective - ref$objective - 1e-9)
  expect_equal(fit$gap, certificate_l1(fit$solution$X, d$M, 0.5, d$tau, 0.2, "nuclear"),
               tolerance = 1e-7)
})

test_that("issue 9 instance: the default reaches the stated optimum, not the smoothed one", {
  # Garber and Kaplan Sec. 5 generator at d = 40, lambda = 2: with a fixed mu
  # every method ended 2.4-2.6% above the optimum while claiming convergence
  set.seed(1)
  d <- 40; r <- 10
  Y <- matrix(rbinom(d * r, 1, 1 / sqrt(d)) * sample(1:10, d * r, TRUE), d, r)
  M <- tcrossprod(Y) + matrix(rnorm(d * d), d); tau <- sum(Y^2)
  ref <- ref_lowrank_l1(M, 2, tau)
  fit <- lowrank_sparse(M, 2, tau, control = cg_control(tol = 1e-3))
  expect_true(fit$converged)
  expect_lte(fit$gap, 1e-3 * fit$objective)
  expect_gte(fit$gap, fit$objective - ref$objective - 1e-9)
  expect_lt(fit$objective - ref$objective, 1e-3 * ref$objective)
  fixed <- lowrank_sparse(M, 2, tau, mu = fit$smoothing$mu_start,
                          control = cg_control(tol = 1e-3))
  expect_false(fixed$converged)            # its gap no longer hides the bias
  expect_gte(fixed$gap, fixed$objective - ref$objective - 1e-9)
})

test_that("stochastic oracles: C sampler and R function reach the optimum", {
  d <- make_lowrank_sparse(seed = 5)
  lambda <- 0.5
  ref <- ref_lowrank_l1(d$M0, lambda, d$tau, "psd")
  set.seed(6)
  fit <- lowrank_sparse(lowrank_sampler(d$M0, sigma = 5), lambda, d$tau, set = "psd",
                        control = cg_control(max_iter = 600, eval_every = 100, tol = 0))
  expect_lt(fit$objective - ref$objective, 0.01 * ref$objective)
  expect_gte(fit$objective, ref$objective - 1e-8 * ref$objective)
  # snapshot sizes double every epoch
  expect_gt(tail(fit$trace$n_grad, 1), 1000)
  f <- function(k) d$M0 + 5 * matrix(rnorm(length(d$M0)), nrow(d$M0)) / sqrt(k)
  set.seed(6)
  fit_r <- lowrank_sparse(f, lambda, d$tau, set = "psd", target = d$M0,
                          control = cg_control(max_iter = 600, eval_every = 100, tol = 0))
  expect_lt(fit_r$objective - ref$objective, 0.01 * ref$objective)
  fit_na <- lowrank_sparse(f, lambda, d$tau, set = "psd",
                           control = cg_control(max_iter = 20))
  expect_true(is.na(fit_na$objective))
})

test_that("set.seed reproduces a stochastic fit; RNG advances", {
  d <- make_lowrank_sparse(seed = 7)
  run <- function(seed) {
    set.seed(seed)
    lowrank_sparse(lowrank_sampler(d$M0, 3), 0.5, d$tau, method = "scg",
                   control = cg_control(max_iter = 30))
  }
  a <- run(1); b <- run(1); c <- run(2)
  expect_identical(a$solution$X, b$solution$X)
  expect_false(identical(a$solution$X, c$solution$X))
})

test_that("covariance_rows: covariance of the rows, dense and sparse data agree", {
  set.seed(8)
  n <- 200; p <- 15
  L <- matrix(0, p, 2); L[1:4, 1] <- 2; L[5:8, 2] <- 1.5
  data <- matrix(rnorm(n * 2), n) %*% t(L) + matrix(rnorm(n * p, sd = 0.5), n)
  lambda <- 0.05; tau <- 20
  ref <- ref_lowrank_l1(cov(data), lambda, tau, "psd")
  fit <- lowrank_sparse(covariance_rows(data), lambda, tau, set = "psd",
                        control = cg_control(max_iter = 4000, tol = 1e-4))
  expect_true(fit$converged)
  expect_lte(fit$gap, 1e-4 * max(1, abs(fit$objective)))
  expect_gte(fit$gap, fit$objective - ref$objective - 1e-9)
  expect_lt(fit$objective - ref$objective, 1e-3 * ref$objective)
  expect_lt(norm(fit$solution$X - ref$X, "F"), 1e-3 * norm(ref$X, "F"))
  # gradients: the full snapshot counts n, each inner iteration its batch
  expect_equal(fit$trace$n_grad[1], 0)
  ds <- data; ds[abs(ds) < 0.7] <- 0
  sp <- Matrix::Matrix(ds, sparse = TRUE)
  set.seed(9); f1 <- lowrank_sparse(covariance_rows(ds), lambda, tau, set = "psd",
                                    method = "scg", control = cg_control(max_iter = 40))
  set.seed(9); f2 <- lowrank_sparse(covariance_rows(sp), lambda, tau, set = "psd",
                                    method = "scg", control = cg_control(max_iter = 40))
  expect_equal(f2$solution$X, f1$solution$X, tolerance = 1e-10)
})

test_that("bad input is rejected with a message naming the argument", {
  d <- make_lowrank_sparse(seed = 10)
  expect_error(lowrank_sparse(d$M, -1, 5), "`lambda` must be at least 0")
  expect_error(lowrank_sparse(d$M, 1, 0), "`radius` must be greater than 0")
  expect_error(lowrank_sparse(d$M, 1), "`radius` is missing")
  expect_error(lowrank_sparse(d$M, 1, 5, set = "box"), "`set` must be one of")
  expect_error(lowrank_sparse(d$M, 1, 5, method = "sgd"), "`method` must be one of")
  expect_error(lowrank_sparse(d$M[, -1], 1, 5, set = "psd"), "`M` must be square")
  expect_error(lowrank_sparse(d$M + upper.tri(d$M), 1, 5, set = "psd"), "`M` must be symmetric")
  Mna <- d$M; Mna[1, 2] <- NA
  expect_error(lowrank_sparse(Mna, 1, 5), "`M` contains NA")
  expect_error(lowrank_sparse(lowrank_sampler(d$M0, 1), 1, 5, method = "fw"),
               "`method` = \"fw\" needs the exact mean")
  expect_error(lowrank_sampler(d$M0, -1), "`sigma` must be at least 0")
  expect_error(lowrank_sparse(function(k) "a", 1, 5), "`M` must return a finite numeric matrix")
  expect_error(lowrank_sparse(d$M, 1, 5, rank = 0), "`rank` must be at least 1")
  expect_error(lowrank_sparse(d$M, 1, 5, step_size = 2), "`step_size` must be at most 1")
  expect_error(covariance_rows(matrix(1, 1, 3)), "`data` must have at least two rows")
})

test_that("init: a previous fit warm-starts lowrank_sparse, scaled into a smaller ball", {
  set.seed(41)
  M <- tcrossprod(matrix(rnorm(20 * 2), 20)) + matrix(rnorm(400, sd = 0.1), 20)
  run <- function(k, init = NULL, radius = 10)
    lowrank_sparse(M, 0.05, radius, method = "fw", mu = 0.01, init = init,
                   control = cg_control(max_iter = k, tol = 0))
  long <- run(80)
  first <- run(40)
  second <- run(40, init = first)
  # fw's step rule counts on: the continued run is the longer one (exactly,
  # from the fit's state: see the tests below), its trace joined to first's
  expect_identical(second$trace$objective[second$trace$iter == 40], first$objective)
  expect_identical(second$solution$X, long$solution$X)
  expect_identical(second$objective, long$objective)
  # a smaller ball: a warm start from first's X scaled into it
  small <- run(5, init = first, radius = 2)
  expect_match(small$notes, "^warm start from a fit of 40 iterations with other data or settings")
  expect_identical(small$iterations, 5L)
  expect_lte(sum(svd(as.matrix(small$solution$X), 0, 0)$d), 2 * (1 + 1e-8))
  expect_error(lowrank_sparse(M, 0.05, 10, init = list()),
               "^`init` must be NULL or a fit of lowrank_sparse\\(\\)$")
  expect_error(lowrank_sparse(M[-1, ], 0.05, 10, init = first),
               "^`init` is not a fit of a 19 x 20 matrix$")
})

test_that("init: svrgcg resumed for k2 iterations equals one run of k1 + k2", {
  # fit$state holds what the iterations read besides X: the epoch, the
  # position in it, the snapshot mean (a sampled one: m x n doubles), the
  # step and epoch length (rescaled with mu), mu, the rank hint and the
  # counters; the RNG stream goes on. So a resumed fit is the longer run, bit
  # for bit, whether it stops at an epoch's end or mid-epoch.
  d <- make_lowrank_sparse(d = 12, seed = 21)
  ctl <- function(k, every = 1L) cg_control(max_iter = k, tol = 0, eval_every = every)
  run_mu <- function(mu) function(k, init = NULL, every = 1L)
    lowrank_sparse(lowrank_sampler(d$M, 0.5), 0.3, d$tau, inner = 6, mu = mu, init = init,
                   control = ctl(k, every))
  auto <- run_mu(NULL)        # continuation (the default)
  # epochs of T - 1 = 5 inner iterations: 60 ends the 12th; mu halves at
  # the 21st snapshot (after 100), when the epoch length grows to 10 and
  # the step shrinks
  fits <- expect_exact_resume(auto, 60, 60, seed = 22, label = "auto, epoch end")
  loop <- fits$first$state$state_loop          # c(epoch, done, eta, T, ...)
  expect_identical(loop[1:2], c(12, 5))
  expect_identical(loop[4], 6)
  expect_lt(fits$long$smoothing$mu, fits$long$smoothing$mu_start)
  expect_identical(fits$first$smoothing$mu, fits$long$smoothing$mu_start)
  expect_length(fits$first$state$state_Mbar, 144L)   # a sampled snapshot is kept
  fits <- expect_exact_resume(auto, 105, 15, seed = 22, label = "auto, mid-epoch")
  loop <- fits$first$state$state_loop
  expect_lt(loop[2], loop[4] - 1)                      # mid-epoch
  expect_gt(loop[4], 6)                                # after mu's halving
  expect_lt(fits$first$smoothing$mu, fits$first$smoothing$mu_start)
  # the evaluation schedule does not touch the iterate: the adaptive one
  # (trace rows when time allows) continues to the same fit
  set.seed(22)
  first <- auto(105, every = NULL)
  adaptive <- auto(15, first, every = NULL)
  expect_identical(adaptive$solution$X, fits$long$solution$X)
  expect_identical(adaptive$state, fits$long$state)
  # with a tolerance (the adaptive schedule of tests, counted from the cold
  # start): the resumed fit stops where the longer one does
  run_tol <- function(k, init = NULL)
    lowrank_sparse(lowrank_sampler(d$M, 0.5), 0.3, d$tau, init = init,
                   control = cg_control(max_iter = k, tol = 1e-3))
  set.seed(24)
  long <- run_tol(5000)
  expect_true(long$converged)
  set.seed(24)
  resumed <- run_tol(5000, init = run_tol(long$iterations %/% 2))
  expect_true(resumed$converged)
  expect_identical(resumed$iterations, long$iterations)
  expect_identical(resumed$solution$X, long$solution$X)
  # a fixed mu (the paper's setting), at an epoch's end and mid-epoch
  fixed <- run_mu(0.2)
  expect_exact_resume(fixed, 30, 20, seed = 23, label = "fixed mu, epoch end")
  fits <- expect_exact_resume(fixed, 33, 17, seed = 23, label = "fixed mu, mid-epoch")
  expect_identical(fits$first$state$state_loop[2], 3)
  # teeth: without the state the fit is a warm start (new epoch and
  # snapshot, counts from 0, the trace not joined): another run
  set.seed(22)
  long <- auto(120)
  for (k1 in c(60, 105)) {
    warm <- warm_resume(auto, k1, 120 - k1, seed = 22)
    expect_false(identical(warm$solution$X, long$solution$X))
    expect_identical(warm$iterations, as.integer(120 - k1))
    expect_match(warm$notes, "^warm start from a fit of \\d+ iterations without a solver state")
  }
})

test_that("init: svrgcg resumes exactly on every source of M", {
  d <- make_lowrank_sparse(d = 10, seed = 24)
  ctl <- function(k) cg_control(max_iter = k, tol = 0, eval_every = 1L)
  # an R function: its RNG draws continue; the pilot draws of the resumed
  # call are undone (one longer run has made them once)
  f <- function(k) d$M + matrix(rnorm(100), 10) / sqrt(k)
  fun <- function(k, init = NULL)
    lowrank_sparse(f, 0.3, d$tau, inner = 5, target = d$M0, init = init, control = ctl(k))
  fits <- expect_exact_resume(fun, 23, 20, seed = 25, label = "function")
  expect_length(fits$first$state$state_Mbar, 100L)
  expect_false(identical(warm_resume(fun, 23, 20, seed = 25)$solution$X, fits$long$solution$X))
  # the rows of a data matrix (finite sum) with sampled snapshots
  set.seed(26)
  data <- matrix(rnorm(80 * 10), 80) %*% chol(d$M0 + diag(10))
  rows <- function(k, init = NULL)
    lowrank_sparse(covariance_rows(data), 0.3, d$tau, inner = 5, snapshot_batch_size = 20,
                   init = init, control = ctl(k))
  fits <- expect_exact_resume(rows, 17, 20, seed = 27, label = "rows")
  expect_false(identical(warm_resume(rows, 17, 20, seed = 27)$solution$X, fits$long$solution$X))
  # a matrix: the snapshot is its exact mean, recomputed, not kept
  mat <- function(k, init = NULL)
    lowrank_sparse(d$M, 0.3, d$tau, inner = 5, init = init, control = ctl(k))
  fits <- expect_exact_resume(mat, 17, 20, label = "matrix")
  expect_null(fits$first$state$state_Mbar)
  # with tol > 0 each fit ends with the dual refit: the continuation goes on
  # from the solver's iterate (kept in the state), not the refit's projection
  refit <- function(k, init = NULL)
    lowrank_sparse(d$M, 0.3, d$tau, inner = 5, init = init,
                   control = cg_control(max_iter = k, tol = 1e-12, eval_every = 1L))
  fits <- expect_exact_resume(refit, 17, 20, label = "matrix, refit")
  expect_true(fits$first$refit$used)
  expect_false(identical(fits$first$solution$X, fits$first$state$X_iter))
  # the PSD set (the warm start would project X onto the cone again)
  psd <- function(k, init = NULL)
    lowrank_sparse(lowrank_sampler(d$M, 0.5), 0.3, d$tau, set = "psd", inner = 5, init = init,
                   control = ctl(k))
  expect_exact_resume(psd, 17, 20, seed = 28, label = "psd")
})

test_that("init: scg and scgs resumed for k2 iterations equal one run of k1 + k2", {
  d <- make_lowrank_sparse(d = 12, seed = 29)
  ctl <- function(k) cg_control(max_iter = k, tol = 0, eval_every = 1L)
  set.seed(30)
  data <- matrix(rnorm(80 * 12), 80) %*% chol(d$M0 + diag(12))
  # scg on the rows of data: batches ~ (t + 1)^2 and the continuation
  # checks (every 10 iterations) count on from the fit's iterations; the
  # batch constant is rescaled with mu (eps = 3 at lambda = 3: the starting
  # mu = eps C0 / (lambda m n) of eps = 1 before mu took lambda in). On the nuclear ball mu halves at
  # the check of iteration 40, after k1 = 25, on the PSD set at 20, before.
  scg <- function(k, init = NULL, set = "nuclear")
    lowrank_sparse(covariance_rows(data), 3, d$tau, set = set, method = "scg", eps = 3,
                   init = init, control = ctl(k))
  fits <- expect_exact_resume(scg, 25, 30, seed = 31, label = "scg")
  expect_lt(fits$long$smoothing$mu, fits$first$smoothing$mu)
  # scg's state is small (mu's start, the batch constant, the counts): on
  # the nuclear ball a warm start takes the same steps, but its trace starts
  # over; on the PSD set it re-projects X and is another run
  warm <- warm_resume(scg, 25, 30, seed = 31)
  expect_identical(warm$iterations, 30L)
  expect_identical(warm$trace$iter, 0:30)
  scg_psd <- function(k, init = NULL) scg(k, init, set = "psd")
  fits <- expect_exact_resume(scg_psd, 25, 30, seed = 31, label = "scg psd")
  expect_lt(fits$first$smoothing$mu, fits$first$smoothing$mu_start)
  expect_false(identical(warm_resume(scg_psd, 25, 30, seed = 31)$solution$X,
                         fits$long$solution$X))
  # scgs: the prox-center x_k (m x n doubles), the stage's iteration count
  # (it restarts when mu halves) and L(mu), on a sampler and on a matrix
  scgs <- function(M) function(k, init = NULL)
    lowrank_sparse(M, 0.3, d$tau, method = "scgs", init = init, control = ctl(k))
  for (src in list(lowrank_sampler(d$M, 0.5), d$M)) {
    run <- scgs(src)
    fits <- expect_exact_resume(run, 25, 30, seed = 32, label = "scgs")
    expect_length(fits$first$state$state_center, 144L)
    expect_false(identical(warm_resume(run, 25, 30, seed = 32)$solution$X, fits$long$solution$X))
  }
})

test_that("init: the state belongs to one problem and settings; bad state is an error", {
  d <- make_lowrank_sparse(d = 10, seed = 33)
  ctl <- cg_control(max_iter = 12, tol = 0, eval_every = 1L)
  run <- function(init = NULL, lambda = 0.3, M = lowrank_sampler(d$M, 0.5), ...)
    lowrank_sparse(M, lambda, d$tau, inner = 5, init = init, control = ctl, ...)
  set.seed(34)
  first <- run()
  expect_false(is.null(first$state))
  warm <- function(fit) expect_match(fit$notes, "^warm start from a fit of 12 iterations")
  # another penalty, other data, another setting: warm starts, counts from 0
  other <- run(first, lambda = 0.4)
  warm(other)
  expect_match(other$notes, "with other data or settings")
  expect_identical(other$trace$iter, 0:12)
  warm(run(first, M = lowrank_sampler(d$M + 1e-9, 0.5)))
  warm(run(first, step_size = first$parameters$step_size))   # given, not the default
  warm(run(first, method = "scgs"))
  # its X changed by hand: not the iterate the state belongs to
  moved <- first
  moved$solution$X[1] <- moved$solution$X[1] + 1e-12
  expect_match(run(moved)$notes, "whose X was changed")
  # a state altered by hand is an error naming init
  bad <- first
  bad$state$state_loop <- bad$state$state_loop[1:3]
  expect_error(run(bad), "^`init` has an invalid `state` \\(altered by hand\\?\\); set it to NULL")
  bad <- first
  bad$state$state_Mbar <- 1:3
  expect_error(run(bad), "^`init` has an invalid `state`")
  bad$state["state_Mbar"] <- list(NULL)             # a sampled snapshot needs its mean
  expect_error(run(bad), "^`init` has an invalid `state`")
  # a run stopped by a failure keeps no state (it may have stopped inside
  # an iteration): here the sampler fails at the solver's third call
  calls <- 0
  f <- function(k) {
    calls <<- calls + 1
    if (calls > 4) stop("no more data")
    d$M
  }
  expect_warning(failed <- lowrank_sparse(f, 0.3, d$tau, inner = 5, control = ctl),
                 "no more data")
  expect_identical(failed$status, "error")
  expect_null(failed$state)
})

test_that("init: the loop's own state (state_loop, scgs' prox-center) is what continues the run", {
  # The dispatcher moves every loop's state between R and C (cg_loop_state):
  # here the same fit with one part of it changed to another valid value is
  # still continued "exactly" from that state, and is another run; fw's loop
  # keeps none and continues exactly without
  d <- make_lowrank_sparse(d = 10, seed = 35)
  ctl <- function(k) cg_control(max_iter = k, tol = 0, eval_every = 1L)
  run <- function(method, mu = 0.2) function(k, init = NULL)
    lowrank_sparse(lowrank_sampler(d$M, 0.5), 0.3, d$tau, method = method, inner = 6, mu = mu,
                   init = init, control = ctl(k))
  altered <- function(f, k1, k2, seed, change) {
    set.seed(seed); long <- f(k1 + k2)
    set.seed(seed); first <- f(k1)
    rng <- .Random.seed
    expect_identical(f(k2, first)$solution$X, long$solution$X)
    alt <- change(first)
    assign(".Random.seed", rng, envir = globalenv())
    other <- f(k2, alt)
    expect_match(other$notes, "^continued exactly from a fit of")
    expect_false(identical(other$solution$X, long$solution$X))
    first
  }
  # svrgcg, 14 = 5 + 5 + 4 inner iterations (T - 1 = 5): epoch 3, position 4
  first <- altered(run("svrgcg"), 14, 9, 36, function(f) {
    f$state$state_loop[2] <- 0; f })                   # the epoch's start
  expect_identical(first$state$state_loop[1:2], c(3, 4))
  altered(run("svrgcg"), 14, 9, 36, function(f) {
    f$state$state_loop[3] <- f$state$state_loop[3] / 2; f })    # another step
  altered(run("scg", mu = NULL), 12, 8, 37, function(f) {
    f$state$state_loop[5] <- 1000 * f$state$state_loop[5]; f })  # batches of 1 grow
  first <- altered(run("scgs", mu = NULL), 12, 8, 38, function(f) {
    f$state$state_center <- as.vector(f$solution$X); f })      # prox-center
  expect_length(first$state$state_center, 100L)
  # a position past its epoch's end: an error naming init
  bad <- first
  bad$state$state_loop[2] <- 100
  expect_error(run("scgs", mu = NULL)(3, bad), "^`init` has an invalid `state`")
  fw <- function(k, init = NULL)
    lowrank_sparse(d$M, 0.3, d$tau, method = "fw", init = init, control = ctl(k))
  fits <- expect_exact_resume(fw, 9, 6, label = "fw")
  expect_null(fits$first$state$state_loop)
})

test_that("defaults on a matrix: converged, certified against the exact prox, with its rank (audit 36, gap 7)", {
  # before the dual refit every call below stopped at max_iter (tol 1e-6),
  # and the first and last returned X of rank 5 and 22 (exact: 4 and 18)
  numrank <- function(X) { d <- svd(X, 0, 0)$d; sum(d > 1e-6 * d[1]) }
  set.seed(1)
  x <- matrix(rnorm(50 * 3), 50) %*% matrix(rnorm(3 * 30), 3) + matrix(rnorm(50 * 30), 50)
  cases <- list(list(M = scale(state.x77), lambda = 0.2, tau = 10, set = "nuclear"),
                list(M = scale(swiss), lambda = 0.2, tau = 8, set = "nuclear"),
                list(M = cor(mtcars), lambda = 0.1, tau = 5, set = "psd"),
                list(M = cor(x), lambda = 0.1, tau = 20, set = "psd"))
  for (cs in cases) {
    ref <- ref_lowrank_l1(unname(cs$M), cs$lambda, cs$tau, cs$set, tol = 1e-10)
    expect_lt(ref$gap, 1e-9 * ref$objective)
    fit <- lowrank_sparse(cs$M, cs$lambda, cs$tau, set = cs$set)
    expect_true(fit$converged)
    expect_true(fit$refit$used)
    expect_lte(fit$gap, 1e-6 * abs(fit$objective))
    # the gap bounds the distance to the exact optimum, which is nonnegative
    expect_gte(fit$gap, fit$objective - ref$objective - 1e-9)
    expect_gte(fit$objective, ref$objective - 1e-9)
    X <- unname(fit$solution$X)
    expect_identical(numrank(X), numrank(ref$X))
    expect_identical(fit$certified_rank, numrank(ref$X))
    expect_lt(norm(X - ref$X, "F"), 1e-2 * norm(ref$X, "F"))
    if (cs$set == "psd") {
      ev <- eigen(X, symmetric = TRUE, only.values = TRUE)$values
      expect_gt(min(ev), -1e-8)
      expect_lte(sum(ev), cs$tau * (1 + 1e-8))
    } else expect_lte(sum(svd(X, 0, 0)$d), cs$tau * (1 + 1e-8))
    out <- capture.output(print(fit))
    expect_match(out, "rank [0-9]+: X is the dual refit's point",
                 all = FALSE)
    expect_false(any(grepl("smoothed", out)))
  }
  # off by option: the solver's iterate as before (not certified at tol here)
  old <- options(stochcg.lowrank_refit = FALSE)
  on.exit(options(old))
  it <- lowrank_sparse(scale(state.x77), 0.2, 10)
  expect_null(it$refit)
  expect_false(it$converged)
  expect_gt(numrank(it$solution$X), 4L)
  options(old)
  # a given mu is the paper's fixed-smoothing setting: no refit
  expect_null(lowrank_sparse(scale(state.x77), 0.2, 10, mu = 0.01,
                             control = cg_control(max_iter = 50))$refit)
})
