# kmeans_sdp(): the Peng-Wei k-means SDP by CGAL. Checked on planted
# well-separated clusters, where the relaxation is tight (its solution is
# the block matrix of the planted partition, its value the partition's
# k-means cost), and by the certified lower bound, which must lie below
# the cost of every partition whatever the iterate.

planted <- function(seed, sizes = c(8, 10, 12), sep = 12) {
  set.seed(seed)
  centers <- rbind(c(0, 0), c(sep, 0), c(0, sep), c(sep, sep))[seq_along(sizes), ]
  truth <- rep(seq_along(sizes), sizes)
  list(x = centers[truth, ] + matrix(rnorm(2 * length(truth)), ncol = 2), truth = truth)
}
block_X <- function(labels) {
  Reduce(`+`, lapply(unique(labels), function(c) {
    v <- as.numeric(labels == c)
    tcrossprod(v) / sum(v)
  }))
}
# The certified bound recomputed in R from multipliers Z <= 0 of X >= 0 (on
# the scaled C = D / ||D||_F, weight 1 / sqrt(2)), the row sums kept exact:
# <N, 11'>/(nk) + (1 - 1/k) lambda_min(P N P on 1-perp), N = C + Z / sqrt(2),
# on the scale of 1/2 <D, X>
projected_bound <- function(D, k, Z) {
  n <- nrow(D)
  normD <- sqrt(sum(D^2))
  N <- D / normD + (1 / sqrt(2)) * Z
  P <- diag(n) - matrix(1 / n, n, n)
  E <- eigen(P %*% N %*% P, symmetric = TRUE)
  lam <- min(E$values[abs(colSums(E$vectors)) < 1e-8])
  0.5 * normD * k * (sum(N) / (n * k) + (1 - 1 / k) * lam)
}

kmeans_cost <- function(x, labels) {
  sum(vapply(split(seq_len(nrow(x)), labels), function(i)
    sum(sweep(x[i, , drop = FALSE], 2, colMeans(x[i, , drop = FALSE]))^2), 0))
}

test_that("planted clusters: the SDP solution is the planted block matrix, labels exact", {
  for (seed in 1:2) {
    p <- planted(seed)
    n <- nrow(p$x)
    set.seed(10)
    fit <- kmeans_sdp(p$x, 3, control = cg_control(max_iter = 20000))
    cost <- kmeans_cost(p$x, p$truth)
    expect_s3_class(fit, "kmeans_sdp_fit")
    expect_identical(fit$labels, as.integer(factor(p$truth, levels = unique(p$truth))))
    expect_equal(fit$cost, cost, tolerance = 1e-10)
    expect_lte(max(abs(fit$solution$X - block_X(p$truth))), 1e-3)
    expect_lte(abs(fit$objective - cost), 1e-2 * cost)
    expect_lte(fit$infeasibility, 1e-3 * sqrt(n))
    # certified: the lower bound is below the SDP value, itself <= cost
    expect_lte(fit$lower_bound, cost)
    expect_gt(fit$lower_bound, 0.8 * cost)
    expect_equal(fit$lower_bound, fit$objective - fit$gap)
  }
})

test_that("the lower bound holds at every iterate and tightens; infeasibility falls", {
  set.seed(2)
  x <- as.matrix(iris[sample(150, 40), 1:4])
  best <- min(replicate(5, stats::kmeans(x, 3, nstart = 20)$tot.withinss))
  for (iters in c(20, 200, 2000)) {
    fit <- kmeans_sdp(x, 3, control = cg_control(max_iter = iters))
    expect_lte(fit$lower_bound, best)                    # below every partition's cost
    expect_lte(fit$lower_bound, fit$cost)
    expect_identical(fit$status, "max_iter")
  }
  tr <- fit$trace
  expect_false(anyNA(tr$infeasibility))
  expect_lt(tr$infeasibility[nrow(tr)], tr$infeasibility[2] / 10)
  lb <- tr$objective - tr$gap
  expect_true(all(lb[-1] <= best))
  expect_gt(lb[nrow(tr)], lb[2])
  # the objective is the k-means cost of X: 1/2 <D, X>
  D <- as.matrix(dist(x))^2
  expect_equal(fit$objective, 0.5 * sum(D * fit$solution$X), tolerance = 1e-10)
  expect_equal(sum(diag(fit$solution$X)), 3, tolerance = 1e-10)
})

test_that("a dist object, a data frame and a matrix give the same fit; RNG use is reproducible", {
  p <- planted(3, sizes = c(6, 7), sep = 10)
  ctl <- cg_control(max_iter = 300)
  set.seed(4); a <- kmeans_sdp(p$x, 2, control = ctl)
  set.seed(4); b <- kmeans_sdp(dist(p$x), 2, control = ctl)
  set.seed(4); d <- kmeans_sdp(as.data.frame(p$x), 2, control = ctl)
  # dist() rounds differently from the Gram formula (1e-16 relative), and
  # 300 iterations amplify that to about 1e-5 in X
  expect_lte(max(abs(a$solution$X - b$solution$X)), 1e-3)
  expect_identical(a$solution$X, d$solution$X)
  expect_identical(a$labels, b$labels)
  expect_identical(a$labels, d$labels)
})

test_that("bad input gives an error naming the argument", {
  x <- matrix(rnorm(20), 10)
  expect_error(kmeans_sdp(x, 10), "`k` must be smaller than the number of points \\(10\\)")
  expect_error(kmeans_sdp(x, 1), "`k`")
  expect_error(kmeans_sdp(x, 2, beta0 = -1), "`beta0` must be \"auto\" or a positive number")
  expect_error(kmeans_sdp(x, 2, method = "sdpt3"), "`method`")
  x[3, 1] <- NA
  expect_error(kmeans_sdp(x, 2), "`x` contains NA, NaN or Inf")
  expect_error(kmeans_sdp(matrix(1, 5, 2), 2), "`x` has all points equal")
  expect_error(kmeans_sdp(iris, 3), "`x` must have numeric columns only")
  expect_error(kmeans_sdp(letters, 3), "`x` must be a numeric matrix")
})

test_that("hsagcgm_v2 with every constraint redrawn each iteration is hsagcgm_v1 (SAG table bookkeeping)", {
  p <- planted(6, sizes = c(4, 6), sep = 8)
  n <- nrow(p$x); m <- n + n^2
  # tol = 0: all 60 iterations (with tol the certified partition ends both early)
  ctl <- cg_control(max_iter = 60, tol = 0)
  # one beta0 for both ("auto" differs by method)
  v1 <- kmeans_sdp(p$x, 2, method = "hsagcgm_v1", beta0 = 0.1, control = ctl)
  set.seed(3)
  # 25 m draws with replacement miss a given constraint with probability e^-25
  v2 <- kmeans_sdp(p$x, 2, method = "hsagcgm_v2", beta0 = 0.1, batch_size = 25 * m, control = ctl)
  expect_lte(max(abs(v1$solution$X - v2$solution$X)), 1e-10)
  expect_equal(max(v2$trace$epoch), 60 * 25 * m / m)
  expect_equal(max(v1$trace$epoch), 60)
  # a small batch is a different (stochastic) run, reproducible by set.seed
  set.seed(4); a <- kmeans_sdp(p$x, 2, method = "hsagcgm_v2", batch_size = 5, control = ctl)
  set.seed(4); b <- kmeans_sdp(p$x, 2, method = "hsagcgm_v2", batch_size = 5, control = ctl)
  expect_identical(a$solution$X, b$solution$X)
  expect_gt(max(abs(a$solution$X - v1$solution$X)), 1e-6)
})

test_that("hsagcgm_v1 (plain penalty homotopy) recovers planted clusters with a strong penalty", {
  p <- planted(1)
  set.seed(1)
  fit <- kmeans_sdp(p$x, 3, method = "hsagcgm_v1", beta0 = 0.1, control = cg_control(max_iter = 5000))
  expect_identical(fit$labels, as.integer(factor(p$truth, levels = unique(p$truth))))
  expect_lte(fit$lower_bound, kmeans_cost(p$x, p$truth))
  expect_error(kmeans_sdp(p$x, 3, method = "hsagcgm_v2", batch_size = 0), "`batch_size`")
})

test_that("iris subsample: the SDP value of Rcsdp, certified lower bound below it", {
  skip_if_not_installed("Rcsdp")
  set.seed(30)
  x <- as.matrix(iris[sample(150, 30), 1:4])
  D <- as.matrix(dist(x))^2
  ref <- ref_kmeans_rcsdp(D, 3)
  fit <- kmeans_sdp(x, 3, control = cg_control(max_iter = 20000))
  expect_lte(abs(fit$objective - ref$value), 2e-3 * ref$value)
  expect_lte(fit$lower_bound, ref$value)
  expect_gte(fit$cost, ref$value)
  expect_lte(fit$infeasibility, 1e-3 * sqrt(30))
  # the reference itself: feasible, and its value is 1/2 <D, X>
  expect_equal(ref$value, sum(D * ref$X) / 2, tolerance = 1e-6)
  expect_lte(max(abs(rowSums(ref$X) - 1)), 1e-6)
})

test_that("the certified bound keeps the row sums exact: valid, above the bound at y", {
  skip_if_not_installed("Rcsdp")
  set.seed(31)
  x <- as.matrix(iris[sample(150, 40), 1:4])
  D <- as.matrix(dist(x))^2
  n <- nrow(D); k <- 3
  ref <- ref_kmeans_rcsdp(D, k)
  fit <- kmeans_sdp(x, k)
  expect_lte(fit$lower_bound, ref$value)
  # the bound at the final multipliers, in R: with W 1 = 1/k kept exact it is
  # <N, 11'>/(nk) + (1 - 1/k) lambda_min(P N P on 1-perp), N = C - Z; never
  # below the Lagrangian bound at the method's own row-sum multipliers y
  st <- fit$state
  normD <- sqrt(sum(D^2)); a <- 1 / sqrt(2 * n)
  Z <- pmin(matrix(st$state_Y, n), 0)
  projected <- projected_bound(D, k, Z)
  N <- D / normD + (1 / sqrt(2)) * Z
  y <- st$state_y
  V <- N + a / 2 * (outer(y, rep(1, n)) + outer(rep(1, n), y))
  at_y <- 0.5 * normD * k * (min(eigen(V, symmetric = TRUE, only.values = TRUE)$values) -
                             sum(y) * a / k)
  expect_lte(projected, ref$value)
  expect_gte(projected, at_y)
  expect_lte(projected, fit$lower_bound + 1e-8 * ref$value)
})

test_that("iris with the defaults: certified to tol before max_iter", {
  # with the bound at the method's own row-sum multipliers this ran to
  # max_iter = 5000 at a relative gap of 3.6%
  x <- as.matrix(iris[, 1:4])
  set.seed(3)
  fit <- kmeans_sdp(x, 3)
  expect_true(fit$converged)
  expect_lt(fit$iterations, 5000)
  expect_lte(fit$gap, 1e-3 * abs(fit$objective))
  expect_lte(fit$infeasibility, 1e-3 * sqrt(150))
  expect_lte(fit$lower_bound, stats::kmeans(x, 3, nstart = 20)$tot.withinss)
})

test_that("the polished bound: below Rcsdp's optimum, its multipliers valid, the fit's best", {
  skip_if_not_installed("Rcsdp")
  set.seed(32)
  x <- scale(as.matrix(USArrests))[sample(50, 30), ]
  D <- as.matrix(dist(x))^2
  n <- nrow(D); k <- 4
  ref <- ref_kmeans_rcsdp(D, k)
  fit <- kmeans_sdp(x, k)
  expect_lte(fit$lower_bound, ref$value)
  # the bound at the polished multipliers, recomputed in R from the state:
  # N = C + c Md (Md <= 0), the row sums kept exact
  st <- fit$state
  expect_false(is.null(st$state_Md))
  Md <- matrix(st$state_Md, n)
  expect_lte(max(Md), 0)
  polished <- projected_bound(D, k, Md)
  expect_lte(polished, ref$value)
  expect_lte(polished, fit$lower_bound + 1e-8 * ref$value)
  # polished from the method's multipliers of the last test (the final
  # state's): above their bound, and at least halfway to the optimum
  # (measured: 28.47 vs 28.14 at min(Y, 0), Rcsdp 28.56)
  at_Y <- projected_bound(D, k, pmin(matrix(st$state_Y, n), 0))
  expect_gte(polished, at_Y)
  expect_lte(ref$value - polished, 0.5 * (ref$value - at_Y))
})

test_that("planted clusters (n = 300) with the defaults: certified to tol before max_iter", {
  # with the method's own multipliers of X >= 0 alone this ran to max_iter
  # = 5000 at a relative gap of 1.05% (inst/bench/kmeans_certificate.R)
  set.seed(5)
  cen <- matrix(rnorm(15, sd = 3), 3)
  x <- cen[rep(1:3, each = 100), ] + matrix(rnorm(1500), 300)
  set.seed(1)
  fit <- kmeans_sdp(x, 3)
  expect_true(fit$converged)
  expect_lt(fit$iterations, 5000)
  expect_lte(abs(fit$gap), 1e-3 * abs(fit$objective))
  expect_lte(fit$infeasibility, 1e-3 * sqrt(300))
  expect_lte(fit$lower_bound, stats::kmeans(x, 3, nstart = 20)$tot.withinss)
})

test_that("init: a cgal fit continued equals one longer run (k-means, sparsest cut, sdp_solve)", {
  ctl <- function(k) cg_control(max_iter = k, tol = 0, eval_every = 10)
  same <- function(a, b) {
    expect_identical(a$solution, b$solution)
    expect_identical(a$objective, b$objective)
    expect_identical(a$gap, b$gap)
    expect_identical(a$trace$iter, b$trace$iter)
    expect_identical(a$trace$gap, b$trace$gap)
    expect_identical(a$iterations, b$iterations)
  }
  x <- iris[1:40, 1:4]
  long <- kmeans_sdp(x, 3, control = ctl(60))
  second <- kmeans_sdp(x, 3, init = kmeans_sdp(x, 3, control = ctl(30)), control = ctl(30))
  same(second, long)
  expect_match(paste(capture.output(print(second)), collapse = "\n"),
               "continued exactly from a fit of 30 iterations")
  # the deterministic H-SAG-CGM v1 too
  v1 <- function(k, init = NULL) kmeans_sdp(x, 3, method = "hsagcgm_v1", beta0 = 0.1,
                                            init = init, control = ctl(k))
  same(v1(30, init = v1(30)), v1(60))
  # and its adaptive "auto", lowered at k = 128 and 256: across the checks
  va <- function(k, init = NULL) kmeans_sdp(x, 3, method = "hsagcgm_v1", init = init,
                                            control = ctl(k))
  long_a <- va(300)
  expect_lt(long_a$beta0, va(100)$beta0)          # a check lowered it after iteration 100
  same(va(150, init = va(150)), long_a)
  # resumed just before a check (k = 128, which reads the last penalty; a
  # trace row every iteration, so that 127 is a row of both runs)
  va1 <- function(k, init = NULL) kmeans_sdp(x, 3, method = "hsagcgm_v1", init = init,
                                             control = cg_control(max_iter = k, tol = 0,
                                                                  eval_every = 1))
  long_1 <- va1(140)
  expect_lt(long_1$beta0, va1(127)$beta0)
  same(va1(13, init = va1(127)), long_1)
  expect_identical(va(150, init = va(150))$beta0, long_a$beta0)
  A <- as.matrix(igraph::as_adjacency_matrix(igraph::make_graph("Frucht")))
  cut <- function(k, init = NULL) sparsest_cut_sdp(A, init = init, control = ctl(k))
  same(cut(20, init = cut(20)), cut(40))
  set.seed(3)
  C <- crossprod(matrix(rnorm(36), 6))
  As <- lapply(1:6, function(i) { E <- matrix(0, 6, 6); E[i, i] <- 1; E })
  sdp <- function(k, init = NULL) sdp_solve(C, As, rep(1, 6), trace_bound = 6, init = init,
                                           control = ctl(k))
  same(sdp(20, init = sdp(20)), sdp(40))
  # with tol > 0 the bound's polished multipliers are part of the state
  ctl_t <- function(k) cg_control(max_iter = k, tol = 1e-3, eval_every = 10)
  xs <- scale(as.matrix(USArrests))[1:30, ]
  long_t <- kmeans_sdp(xs, 4, control = ctl_t(400))
  expect_false(is.null(long_t$state$state_Md))
  same(kmeans_sdp(xs, 4, init = kmeans_sdp(xs, 4, control = ctl_t(200)), control = ctl_t(200)),
       long_t)
  bad <- long_t
  bad$state$state_Md[1] <- 1     # positive multipliers would void the bound
  expect_error(kmeans_sdp(xs, 4, init = bad),
               "^`init` has an invalid `state\\$state_Md` \\(altered by hand\\?\\)$")
  # other settings: a warm start; other data: an error
  warm <- kmeans_sdp(x, 3, beta0 = 2, init = long, control = ctl(10))
  expect_match(paste(capture.output(print(warm)), collapse = "\n"), "warm start from a fit of 60")
  expect_error(kmeans_sdp(iris[2:41, 1:4], 3, init = long), "^`init` is a fit of another problem$")
  expect_error(kmeans_sdp(x, 3, init = list()), "^`init` must be NULL or a fit of kmeans_sdp\\(\\)$")
  expect_error(kmeans_sdp(iris[1:30, 1:4], 3, init = long),
               "^`init` has no state for a problem of this size")
})

test_that("the bound is polished only up to n = 500 (dense eigendecompositions)", {
  # above 500 points dsyevr per polish step cost more than it saved (a
  # planted n = 2000 default fit took 2.2x main's CPU for the same gap);
  # two overlapping clusters are nearly feasible within 100 iterations, where
  # the polish runs at n = 500 and not at n = 501 (far-apart ones stop
  # earlier, certified by their partition, without a polish)
  polished <- function(n) {
    set.seed(3)
    lab <- rep(1:2, length.out = n)
    x <- cbind(3 * lab, 0) + matrix(rnorm(2 * n), ncol = 2)
    !is.null(kmeans_sdp(x, 2, control = cg_control(max_iter = 100))$state$state_Md)
  }
  expect_true(polished(500))
  expect_false(polished(501))
})

test_that("planted n = 400 with the defaults: the rounded partition certified, returned as X", {
  # the generator of inst/bench/sdp.R; on main this ran to max_iter = 5000 at
  # a relative gap of 2.6% (inst/bench/kmeans_large.R)
  set.seed(1)
  lab <- rep(1:3, length.out = 400)
  x <- matrix(c(0, 0, 10, 0, 0, 10), 3, byrow = TRUE)[lab, ] + matrix(rnorm(800), 400)
  cost <- kmeans_cost(x, lab)
  fit <- kmeans_sdp(x, 3)
  expect_true(fit$converged)
  expect_lt(fit$iterations, 200)
  expect_identical(fit$labels, lab)
  # the solution is the partition's X: feasible, its value the k-means cost
  expect_equal(unname(fit$solution$X), block_X(lab), tolerance = 1e-12)
  expect_identical(fit$infeasibility, 0)
  expect_equal(fit$objective, cost, tolerance = 1e-10)
  # the certified bound: below the cost (a feasible value), within tol of it
  expect_lte(fit$lower_bound, cost)
  expect_gte(fit$lower_bound, (1 - 1e-3) * cost)
})

test_that("the partition certificate: its bound below Rcsdp's optimum, the value Rcsdp's", {
  skip_if_not_installed("Rcsdp")
  for (seed in 1:2) {
    p <- planted(seed)
    D <- as.matrix(dist(p$x))^2
    ref <- ref_kmeans_rcsdp(D, 3)
    fit <- kmeans_sdp(p$x, 3)
    expect_true(fit$converged)
    expect_identical(fit$infeasibility, 0)
    expect_lte(fit$lower_bound, ref$value * (1 + 1e-7))
    expect_lte(abs(fit$objective - ref$value), 1e-3 * ref$value)
    expect_lte(max(abs(fit$solution$X - ref$X)), 1e-3)
  }
})

test_that("the rounded labels are a fixed point of Lloyd's step on the data", {
  # USArrests, k = 5, stopped early (a relaxation that is not tight): the
  # eigenvector rounding left points nearer another cluster's mean (cost
  # 49.46); each point is now in the cluster of its nearest mean, and the
  # cost is the labels' within-cluster sum of squares
  x <- scale(USArrests)
  f <- kmeans_sdp(x, 5, control = cg_control(max_iter = 300, progress = FALSE))
  C <- rowsum(x, f$labels) / as.vector(table(f$labels))
  d2 <- sapply(seq_len(5), function(c) rowSums(sweep(x, 2, C[c, ])^2))
  expect_identical(max.col(-d2, ties.method = "first"), f$labels)
  expect_equal(f$cost, sum(d2[cbind(seq_len(nrow(x)), f$labels)]), tolerance = 1e-10)
  expect_lt(f$cost, 49.4)
})
