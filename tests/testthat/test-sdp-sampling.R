# The sampling homotopy methods on the three SDP problems: hsagcgm_v2
# (paper 003, Alg. 1 Variant 2), h1sfw and hspider (Vladarean et al. 2020).
# Each reaches a stated accuracy against a closed form or Rcsdp after a
# fixed budget (the budgets and bounds reflect each method's rate: H-1SFW's
# is O(k^(-1/6))); the SAG table, dense or hashed, is the full gradient when
# every row is redrawn; the epoch and n_grad columns count the rows read;
# set.seed() reproduces a run.

sampling <- c("hsagcgm_v2", "h1sfw", "hspider")
unit_rows <- function(n) lapply(seq_len(n), function(i) { E <- matrix(0, n, n); E[i, i] <- 1; E })
graph8 <- function() {
  A <- matrix(0, 8, 8)
  for (e in list(c(1, 2), c(1, 3), c(2, 3), c(3, 4), c(4, 5), c(5, 6), c(6, 7), c(7, 8), c(5, 8),
                 c(1, 4), c(6, 8)))
    A[e[1], e[2]] <- A[e[2], e[1]] <- 1
  A
}

test_that("MaxCut SDP of K_8 (optimum -2, closed form): each sampling method nears it", {
  n <- 8
  W <- matrix(1, n, n) - diag(n)
  budget <- c(hsagcgm_v2 = 5000, h1sfw = 2000, hspider = 2000)
  resid <- c(hsagcgm_v2 = 0.12, h1sfw = 0.015, hspider = 0.005)
  infeas <- c(hsagcgm_v2 = 0.05, h1sfw = 0.1, hspider = 0.007)
  for (m in sampling) {
    set.seed(1)
    fit <- sdp_solve(W / 4, unit_rows(n), rep(1, n), trace_bound = n, method = m,
                     control = cg_control(max_iter = budget[[m]], tol = 0))
    expect_identical(fit$method, m)
    expect_lte(abs(fit$objective + 2) / 2, resid[[m]])
    expect_lte(fit$infeasibility, infeas[[m]])
    expect_lte(fit$lower_bound, -2 + 1e-8)             # certified whatever the method
    expect_equal(max(fit$trace$n_grad) / max(fit$trace$epoch), n)   # epochs: rows read / m
  }
})

test_that("k-means SDP of planted clusters (optimum: the planted cost): each sampling method nears it", {
  set.seed(6)
  truth <- rep(1:2, c(8, 10))
  x <- rbind(c(0, 0), c(10, 0))[truth, ] + matrix(rnorm(36), 18)
  D <- as.matrix(dist(x))^2
  cost <- sum(vapply(1:2, function(c) sum(D[truth == c, truth == c]) / (2 * sum(truth == c)), 0))
  # beta0 set: "auto" is calibrated on other problems (inst/bench/sdp_beta0.R)
  beta0 <- list(hsagcgm_v2 = 0.4, h1sfw = 0.1, hspider = 0.1)
  budget <- c(hsagcgm_v2 = 2000, h1sfw = 3000, hspider = 3000)
  resid <- c(hsagcgm_v2 = 0.2, h1sfw = 0.75, hspider = 0.05)
  infeas <- c(hsagcgm_v2 = 0.06, h1sfw = 0.15, hspider = 0.01)
  for (m in sampling) {
    set.seed(1)
    fit <- kmeans_sdp(x, 2, method = m, beta0 = beta0[[m]],
                      control = cg_control(max_iter = budget[[m]], tol = 0))
    expect_lte(abs(fit$objective - cost) / cost, resid[[m]])
    expect_lte(fit$infeasibility / sqrt(18), infeas[[m]])
    expect_identical(fit$labels, as.integer(factor(truth, levels = unique(truth))))
    expect_lte(fit$lower_bound, cost)
  }
})

test_that("sparsest cut SDP of an 8-node graph: each sampling method nears Rcsdp's value", {
  skip_if_not_installed("Rcsdp")
  A <- graph8()
  ref <- ref_cut_rcsdp(A)
  # the reference is feasible: equality and the triangle inequalities
  expect_equal(8 * sum(diag(ref$X)) - sum(ref$X), 32, tolerance = 1e-6)
  resid <- c(hsagcgm_v2 = 0.02, h1sfw = 0.08, hspider = 0.01)
  infeas <- c(hsagcgm_v2 = 0.003, h1sfw = 0.015, hspider = 0.003)
  # beta0 set (the methods are tested here, "auto" by inst/bench/sdp_beta0.R):
  # c g^1.5, g = 8 / (4 ||8 I - J||_F) the pull, c = 0.35 (0.18 for h1sfw)
  g <- 8 / (4 * sqrt(8 * 49 + 8 * 7))
  beta0 <- c(hsagcgm_v2 = 0.35, h1sfw = 0.18, hspider = 0.35) * g^1.5
  for (m in sampling) {
    set.seed(1)
    fit <- sparsest_cut_sdp(A, method = m, beta0 = beta0[[m]],
                            control = cg_control(max_iter = 2000, tol = 0))
    expect_lte(abs(fit$objective - ref$value) / ref$value, resid[[m]])
    expect_lte(fit$infeasibility / 32, infeas[[m]])
    expect_lte(fit$lower_bound, ref$value + 1e-8)
  }
  # cgal reaches it too, with its certificate
  fit <- sparsest_cut_sdp(A, control = cg_control(max_iter = 3000, tol = 0))
  expect_lte(abs(fit$objective - ref$value) / ref$value, 2e-3)
  expect_gte(fit$lower_bound, 0.99 * ref$value)
})

test_that("the SAG table with every row redrawn is hsagcgm_v1: dense (sdp_solve) and hashed (sparsest cut)", {
  ctl <- cg_control(max_iter = 40, tol = 0)
  # weighted graphs without symmetries: distinct eigenvalues, so that the
  # LMO's eigenvector does not amplify rounding
  set.seed(12)
  n <- 6
  W <- matrix(runif(n * n), n); W <- (W + t(W)) / 2; diag(W) <- 0
  v1 <- sdp_solve(W / 4, unit_rows(n), rep(1, n), trace_bound = n, method = "hsagcgm_v1",
                  beta0 = 0.3, control = ctl)
  set.seed(2)     # 30 m draws miss a given row with probability e^-30
  v2 <- sdp_solve(W / 4, unit_rows(n), rep(1, n), trace_bound = n, method = "hsagcgm_v2",
                  beta0 = 0.3, batch = 30 * n, control = ctl)
  expect_lte(max(abs(as.matrix(v1$solution$X) - as.matrix(v2$solution$X))), 1e-10)
  expect_equal(max(v2$trace$epoch), 40 * 30)
  # sparsest cut, n = 7: m = 105 rows > 2 n^2, so the table is hashed
  set.seed(11)
  A <- matrix(runif(49), 7) * matrix(rbinom(49, 1, 0.6), 7); A <- A + t(A); diag(A) <- 0
  c1 <- sparsest_cut_sdp(A, method = "hsagcgm_v1", beta0 = 0.01, control = ctl)
  set.seed(3)
  c2 <- sparsest_cut_sdp(A, method = "hsagcgm_v2", beta0 = 0.01, batch_size = 30 * 105, control = ctl)
  expect_lte(max(abs(c1$solution$X - c2$solution$X)), 1e-10)
  expect_equal(max(c2$trace$epoch), 40 * 30)
  expect_gt(max(abs(c1$solution$X)), 0.1)              # not the trivial X = 0
})

test_that("the trace counts the rows read: hspider's full passes at k = 1, 2, 4, ..., h1sfw's batches", {
  A <- graph8()[1:7, 1:7]
  m <- 105
  set.seed(1)
  fit <- sparsest_cut_sdp(A, method = "hspider", beta0 = 0.01,
                          control = cg_control(max_iter = 300, eval_every = 1, tol = 0))
  # iteration k reads all m rows when k is a power of 2 or K >= m, else 2 K
  # rows (each drawn row at two iterates), K the largest power of 2 <= k
  k <- 1:300
  K <- 2^floor(log2(k))
  reads <- ifelse(k == K | K >= m, m, 2 * K)
  tr <- fit$trace[fit$trace$iter > 0, ]
  expect_equal(tr$n_grad, cumsum(reads)[tr$iter])
  expect_equal(tr$epoch, cumsum(reads)[tr$iter] / m)
  set.seed(1)
  f1 <- sparsest_cut_sdp(A, method = "h1sfw", batch_size = 7, control = cg_control(max_iter = 50, tol = 0))
  expect_equal(max(f1$trace$n_grad), 50 * 7)
})

test_that("set.seed() reproduces each sampling method; another seed gives another run", {
  A <- graph8()
  ctl <- cg_control(max_iter = 100, eval_every = 10, tol = 0)   # a fixed trace schedule
  for (m in sampling) {
    set.seed(5); a <- sparsest_cut_sdp(A, method = m, batch_size = 3, control = ctl)
    set.seed(5); b <- sparsest_cut_sdp(A, method = m, batch_size = 3, control = ctl)
    set.seed(6); d <- sparsest_cut_sdp(A, method = m, batch_size = 3, control = ctl)
    expect_identical(a$solution$X, b$solution$X)
    expect_identical(a$trace$objective, b$trace$objective)
    expect_gt(max(abs(a$solution$X - d$solution$X)), 1e-8)
  }
})

test_that("beta0 = \"auto\": the pull rule, by method", {
  A <- graph8()
  ctl <- cg_control(max_iter = 5)
  fro <- sqrt(8 * 49 + 8 * 7)                      # ||n I - J||_F, n = 8
  expect_equal(sparsest_cut_sdp(A, control = ctl)$beta0, 0.09 / (8 / (4 * fro))^2)
  g <- 8 / (4 * fro)
  # hsagcgm_v1 starts at twice its rule, adapted from k = 128 on (test-sdp-solve.R)
  expect_equal(sparsest_cut_sdp(A, method = "hsagcgm_v1", control = ctl)$beta0, 2 * 0.4 * g^1.6)
  expect_equal(sparsest_cut_sdp(A, method = "hsagcgm_v2", control = ctl)$beta0, 4.5 * g^2.4)
  expect_equal(sparsest_cut_sdp(A, method = "h1sfw", control = ctl)$beta0, 0.32 * g^1.8)
  expect_equal(sparsest_cut_sdp(A, method = "hspider", control = ctl)$beta0, 0.5 * g)
  expect_equal(sparsest_cut_sdp(A, method = "hspider", beta0 = 2, control = ctl)$beta0, 2)
  # cgal: at least 1 (the k-means and MaxCut pulls are large); none: moot (1)
  expect_equal(kmeans_sdp(matrix(c(1:6, 2, 1, 4, 3, 6, 5), 6), 2, control = ctl)$beta0, 1)
  expect_equal(sdp_solve(diag(3), NULL, numeric(0), trace_bound = 1, control = ctl)$beta0, 1)
})

test_that("bad input: a method or batch a problem cannot use gives an error naming it", {
  x <- matrix(rnorm(20), 10)
  expect_error(kmeans_sdp(x, 2, method = "shcgm"), "`method` must be one of .*\"hspider\"")
  expect_error(sdp_solve(diag(3), NULL, numeric(0), trace_bound = 1, method = "h1sfw"),
               "`method` \"h1sfw\" samples constraint rows, and there are none")
  expect_error(sparsest_cut_sdp(graph8(), method = "hspider", batch_size = 0), "`batch_size`")
  expect_error(sdp_solve(diag(3), list(diag(3)), 1, trace_bound = 1, method = "hsagcgm_v2",
                         batch_size = 1.5), "`batch_size` must be a whole number")
  expect_error(sparsest_cut_sdp(graph8(), method = "h1sfw", beta0 = "Auto"), "`beta0`")
})

# init = on the sampling methods: set.seed(s); one run of k1 + k2 iterations
# against k1, then k2 more from init = the first. The fit's state carries the
# row estimator (E; the SAG table, dense for k-means and sdp_solve, hashed
# for the 8-node sparsest cut), hspider's previous iterate, and the R side
# draws nothing else from the RNG between the runs (kmeans_sdp's rounding
# puts the stream back), so the draws, and every number, are one long run's.
sdp_resume_cases <- function() {
  set.seed(3)
  C <- crossprod(matrix(rnorm(36), 6))
  list(kmeans = function(m, k, init = NULL)
         kmeans_sdp(iris[1:30, 1:4], 3, method = m, init = init, control = resume_ctl(k)),
       cut = function(m, k, init = NULL)
         sparsest_cut_sdp(graph8(), method = m, init = init, control = resume_ctl(k)),
       sdp = function(m, k, init = NULL)
         sdp_solve(C, unit_rows(6), rep(1, 6), trace_bound = 6, method = m, init = init,
                   control = resume_ctl(k)))
}
# a trace row every 4 iterations: the boundaries below (32, 40) are rows of both runs
resume_ctl <- function(k) cg_control(max_iter = k, tol = 0, eval_every = 4)

expect_same_run <- function(second, long, k1, label) {
  for (el in c("solution", "objective", "gap", "lower_bound", "infeasibility", "iterations",
               "beta0", "state", "labels", "cost", "cut", "sparsity", "dual"))
    expect_identical(second[[el]], long[[el]], label = paste(label, el))
  for (col in c("iter", "epoch", "objective", "gap", "infeasibility", "n_grad", "n_lmo"))
    expect_identical(second$trace[[col]], long$trace[[col]], label = paste(label, "trace", col))
  # products: the resumed run evaluates its start again (the first run's
  # last row), work one run does not do; the same from there on
  d <- second$trace$n_matvec - long$trace$n_matvec
  after <- second$trace$iter >= k1
  expect_identical(d[!after], rep(0, sum(!after)), label = paste(label, "n_matvec before"))
  expect_gt(d[after][1], 0)
  expect_identical(d[after], rep(d[after][1], sum(after)), label = paste(label, "n_matvec after"))
  expect_match(second$notes, "continued exactly from a fit of", all = FALSE)
}

test_that("init: the sampling methods continue exactly (k-means, sparsest cut, sdp_solve; inside an hspider epoch and at its start)", {
  cases <- sdp_resume_cases()
  for (p in names(cases)) for (m in sampling) for (k1 in c(40, 32)) {
    f <- cases[[p]]
    set.seed(7); long <- f(m, k1 + 20)
    set.seed(7); first <- f(m, k1); second <- f(m, 20, init = first)
    expect_same_run(second, long, k1, paste(p, m, k1))
  }
  # the SAG tables: k-means' dense (m = n + n^2 values), the cut's hashed
  set.seed(7); km <- cases$kmeans("hsagcgm_v2", 10)
  expect_length(km$state$state_solver$sag, 30 + 30^2)
  set.seed(7); cut <- cases$cut("hsagcgm_v2", 10)
  expect_null(cut$state$state_solver$sag)
  expect_gt(length(cut$state$state_solver$sag_rows), 0)
  expect_lt(length(cut$state$state_solver$sag_rows), 8 * 7 * 6 / 2)
})

test_that("init: the estimator state has teeth; a state altered by hand is an error naming init", {
  f <- sdp_resume_cases()$kmeans
  for (m in sampling) {
    set.seed(7); long <- f(m, 60)
    set.seed(7); first <- f(m, 40)
    # without the estimator (or hspider's previous iterate): a warm start,
    # with the same draws but restarted estimates
    drops <- list("state_solver", if (m == "hspider") "state_W_prev")
    for (drop in Filter(Negate(is.null), drops)) {
      cut_first <- first
      cut_first$state[[drop]] <- NULL
      warm <- f(m, 20, init = cut_first)
      expect_match(warm$notes, "warm start from a fit of 40 iterations", all = FALSE)
      expect_gt(max(abs(warm$solution$X - long$solution$X)), 1e-6, label = paste(m, drop))
      expect_identical(warm$iterations, 60L)
    }
  }
  bad <- first
  bad$state$state_solver$E <- bad$state$state_solver$E[-1]
  expect_error(f("hspider", 5, init = bad), "^`init` has an invalid `state\\$state_solver`")
  bad <- first
  bad$state$state_W_prev <- 1
  expect_error(f("hspider", 5, init = bad), "^`init` has an invalid `state\\$state_W_prev`")
  g <- sdp_resume_cases()$cut
  set.seed(7); first <- g("hsagcgm_v2", 10)
  bad <- first
  bad$state$state_solver$sag_rows <- rev(bad$state$state_solver$sag_rows)
  expect_error(g("hsagcgm_v2", 5, init = bad), "^`init` has an invalid `state\\$state_solver`")
  bad <- first
  bad$state$state_solver$sag_rows[1] <- 8 * 7 * 6 / 2          # past the last row
  bad$state$state_solver$sag_rows <- sort(bad$state$state_solver$sag_rows)
  expect_error(g("hsagcgm_v2", 5, init = bad), "^`init` has an invalid `state\\$state_solver`")
  # fit$state <- NULL drops it all
  first$state <- NULL
  expect_error(g("hsagcgm_v2", 5, init = first), "^`init` has no state")
})

test_that("kmeans_sdp draws from R's RNG only in its solver (the rounding puts the stream back)", {
  x <- iris[1:30, 1:4]
  set.seed(2); before <- .Random.seed
  kmeans_sdp(x, 3, control = cg_control(max_iter = 10))      # cgal draws nothing
  expect_identical(.Random.seed, before)
})

test_that("init: the estimator's arrays (the loop's state_solver) are what continue the run", {
  # the dispatcher carries them; the same fit with E doubled is still
  # continued "exactly", and is another run (k = 41: no full pass)
  f <- sdp_resume_cases()$kmeans
  for (m in sampling) {
    set.seed(7); long <- f(m, 60)
    set.seed(7); first <- f(m, 40); rng <- .Random.seed
    expect_identical(f(m, 20, init = first)$solution$X, long$solution$X, label = m)
    first$state$state_solver$E <- 2 * first$state$state_solver$E
    assign(".Random.seed", rng, envir = globalenv())
    other <- f(m, 20, init = first)
    expect_match(other$notes, "continued exactly from a fit of 40", all = FALSE, label = m)
    expect_gt(max(abs(other$solution$X - long$solution$X)), 1e-6, label = m)
  }
})
