# Issue 26's traps: each test failed before its fix.

test_that("a control setting left NULL keeps the function's default (tol, max_iter)", {
  expect_null(cg_control()$tol)
  expect_output(print(cg_control()), "tol\\s+function default")
  set.seed(1)
  x <- rbind(matrix(rnorm(20), 10), matrix(rnorm(20, 6), 10))
  km <- kmeans_sdp(x, 2, control = cg_control(max_iter = 30))
  expect_identical(km$control$tol, 1e-3)          # was 1e-6 once max_iter was given
  expect_identical(km$control$max_iter, 30L)
  expect_identical(kmeans_sdp(x, 2, control = cg_control(tol = 1e-2))$control$max_iter, 5000L)
  A <- matrix(1, 5, 5); A[1:2, 3:5] <- A[3:5, 1:2] <- 0.1
  expect_identical(sparsest_cut_sdp(A, control = cg_control(max_iter = 20))$control$tol, 1e-3)
  expect_identical(sparsest_cut_sdp(A, control = cg_control(tol = 0.5))$control$max_iter, 2000L)
  Y <- matrix(abs(rnorm(60)), 6, 10)
  expect_identical(stochastic_mf(Y, 2, control = cg_control(max_iter = 5))$control$tol, 0)
  fit <- sparse_regression(x[, 1, drop = FALSE], x[, 2], radius = 1,
                           control = cg_control(max_iter = 50))
  expect_identical(fit$control$tol, 1e-6)
})

test_that("the SDP gap is to the best certified lower bound of the run", {
  skip_if_not_installed("igraph")
  g <- igraph::make_graph("Zachary")
  fit <- sparsest_cut_sdp(g, control = cg_control(max_iter = 400, tol = 0, eval_every = 10))
  lb <- fit$trace$objective - fit$trace$gap
  lb <- lb[!is.na(lb)]
  # every evaluation is a test here: the bound never falls, and the fit's
  # bound is the best of them (the last iterate's own bound alone fell)
  expect_false(is.unsorted(lb))
  expect_equal(fit$lower_bound, max(lb))
  expect_lte(fit$sparsity_bound, fit$sparsity)
  # an exact continuation keeps the best bound
  set.seed(3)
  f1 <- sparsest_cut_sdp(g, control = cg_control(max_iter = 200, tol = 0, eval_every = 10))
  f2 <- sparsest_cut_sdp(g, init = f1, control = cg_control(max_iter = 200, tol = 0,
                                                            eval_every = 10))
  expect_equal(f2$lower_bound, fit$lower_bound, tolerance = 1e-12)
})

test_that("a disconnected graph gives its sparsity-0 cut at once, with a feasible X", {
  A <- matrix(0, 6, 6, dimnames = list(letters[1:6], letters[1:6]))
  for (e in list(c(1, 2), c(1, 3), c(2, 3), c(4, 5), c(4, 6), c(5, 6)))
    A[e[1], e[2]] <- A[e[2], e[1]] <- 1
  fit <- sparsest_cut_sdp(A)
  expect_true(fit$converged)
  expect_identical(fit$iterations, 0L)
  expect_identical(fit$sparsity, 0)
  expect_identical(names(fit$cut), letters[1:6])
  expect_identical(unname(fit$cut), c(TRUE, TRUE, TRUE, FALSE, FALSE, FALSE))
  expect_match(fit$message, "disconnected \\(2 components\\)")
  X <- fit$solution$X
  n <- 6
  expect_equal(n * sum(diag(X)) - sum(X), n^2 / 2)       # the equality row
  expect_lte(sum(diag(X)), n)
  L <- diag(rowSums(A)) - A
  expect_equal(sum(L * X), 0)
  viol <- -Inf
  for (i in 1:n) for (j in 1:n) for (k in 1:n)
    viol <- max(viol, X[i, j] + X[j, k] - X[i, k] - X[j, j])
  expect_lte(viol, 1e-12)
  expect_output(print(fit), "sparsity 0")
})

test_that("the cut keeps vertex names; a directed graph's error says what to do", {
  skip_if_not_installed("igraph")
  g <- igraph::make_graph(~ a - b - c - a, d - e - f - d, c - d)
  fit <- sparsest_cut_sdp(g)
  expect_identical(sort(names(fit$cut)), letters[1:6])
  expect_identical(sort(names(which(fit$cut))), if (fit$cut[["a"]]) c("a", "b", "c") else c("d", "e", "f"))
  gd <- igraph::make_graph(c(1, 2, 2, 3, 3, 1), directed = TRUE)
  expect_error(sparsest_cut_sdp(gd), "`adjacency` is a directed graph.*as.undirected")
  A <- matrix(c(0, 1, 0, 0, 0, 1, 1, 0, 0), 3)
  expect_error(sparsest_cut_sdp(A), "must be symmetric \\(an undirected graph\\): use \\(A \\+ t\\(A\\)\\) / 2")
})

test_that("percent above a bound prints as a percent, and a rounding-level negative gap as 0", {
  above <- stochcg:::fmt_above
  expect_identical(above(2, 1), "100%")
  expect_identical(above(1.05, 1), "5%")
  expect_identical(above(1.234, 1), "23%")
  expect_identical(above(3, 0), "3")             # no percent of a zero bound
  set.seed(2)
  X <- matrix(rnorm(200), 40, 5); y <- X[, 1] + rnorm(40)
  fit <- sparse_regression(X, y, radius = 0.5)
  fit$gap <- -4.3e-7                               # objective 0.85: rounding
  expect_output(print(fit), "duality gap 0 \\(computed -4.3e-07")
  fit$gap <- -0.5 * abs(fit$objective)
  expect_output(print(fit), "lies .* below the certified lower bound")
})

test_that("a trace panel is not dominated by its first iterations", {
  ylim <- stochcg:::trace_ylim
  iter <- 0:100
  y <- c(1000, 500, 100, 3 + exp(-(3:100) / 10))
  r <- ylim(iter, y, rep(TRUE, 101), FALSE)
  expect_lt(r[2], 5)                               # the first values run off the top
  expect_gt(r[1], 2.9)
  expect_null(ylim(iter, 3 + exp(-iter / 10), rep(TRUE, 101), FALSE))   # nothing to cut
})

test_that("a quick stochastic_mf() fit keeps a trace to plot", {
  set.seed(4)
  Y <- abs(matrix(rnorm(20 * 3), 20) %*% matrix(rnorm(3 * 300), 3))
  fit <- stochastic_mf(Y, 3)
  # trace-only rows are allowed 0.05 s of evaluations whatever the 10%
  # budget says (the whole fit takes a few milliseconds): it kept 2 rows
  expect_gte(nrow(fit$trace), 10L)
  expect_false(is.unsorted(fit$trace$iter))
})

test_that("robust_pca() says when its split is not low rank plus sparse", {
  set.seed(6)
  noise <- matrix(rnorm(30 * 40), 30, 40)           # no low-rank plus sparse structure
  fit <- robust_pca(noise)
  expect_output(print(fit), "not a low-rank plus sparse split: Y is [0-9]+% nonzero")
  L <- tcrossprod(matrix(rnorm(30 * 2), 30), matrix(rnorm(40 * 2), 40))
  S <- matrix(0, 30, 40); S[sample(length(S), 30)] <- 10
  ok <- robust_pca(L + S)
  expect_lte(length(ok$solution$X$d), 10L)
  expect_false(any(grepl("not a low-rank plus sparse", ok$notes)))
})

test_that("completion dims beyond memory are an error before anything is allocated", {
  skip_if(is.na(stochcg:::available_memory()))
  # 8 x 32 x 1e9 bytes = 238 GB for the rows alone
  expect_error(complete_matrix(data.frame(row = c(1, 1e9), col = 1:2, value = 1:2), 10),
               "`Y` gives a 1000000000 x 2 matrix, whose rows and columns alone need at least 238 GB.*row indices run up to 1000000000 for 2 distinct values")
  expect_error(complete_matrix(data.frame(row = 1:2, col = 1:2, value = 1:2), 10,
                               dims = c(2, 2e9)), "`dims`")
})

test_that("plot() of a fixed-lambda covariance fit draws the estimate", {
  set.seed(8)
  X <- matrix(rnorm(60 * 12), 60) %*% chol(0.5^abs(outer(1:12, 1:12, "-")))
  fit <- sparse_covariance(X, lambda = 0.2)
  pdf(NULL); on.exit(dev.off())
  expect_identical(plot(fit), fit)
  drawn <- stochcg:::plot_covariance_image(fit$solution$Sigma, 200L)
  R <- cov2cor(fit$solution$Sigma)
  expect_identical(drawn$R == 0, R == 0)            # exact zeros drawn white
  expect_true(all(abs(drawn$R[R != 0]) >= 1 / 21))  # the others never in the white bin
  expect_true(all(abs(drawn$R) <= 1))               # inside the colour breaks
  expect_gt(mean(R[upper.tri(R)] == 0), 0)
  expect_match(drawn$main, sprintf("%.0f%% exact zeros", 100 * mean(R[upper.tri(R)] == 0)))
  expect_error(plot(fit, what = c("estimate", "gap")), "`what` \"estimate\" cannot be combined")
  expect_error(plot(fit, max_vars = 1), "`max_vars`")
})

test_that("summary() of a CV shows its table and chosen fit; path fits say where they started", {
  set.seed(2)
  X <- matrix(rnorm(80 * 10), 80, 10)
  y <- drop(X[, 1:3] %*% c(2, -1, 1) + rnorm(80))
  cvfit <- cv_sparse_regression(X, y, folds = 4, nradius = 8)
  s <- summary(cvfit)
  expect_s3_class(s, "summary.cg_cv")
  out <- capture.output(print(s))
  expect_true(any(grepl("radius.1se = ", out)))
  expect_identical(sum(grepl("1se$", out)), 1L)              # the chosen row is marked
  expect_true(any(grepl("^sparse_regression fit", out)))     # the chosen fit's header
  fit <- cvfit$path$fits[[cvfit$index[["1se"]]]]
  k <- cvfit$index[["1se"]]
  # (from a smaller radius of the path: the previous one, or with the
  # default grid's refinement at the one-SE edge, the fit below the radii
  # added after it, see ?cv_sparse_regression)
  if (k > 1L)
    expect_true(any(vapply(cvfit$path$radius[seq_len(k - 1L)], function(r)
      any(grepl(sprintf("warm-started from this path's fit at radius %s", format(r, digits = 4)),
                fit$notes, fixed = TRUE)), NA)))
  expect_false(any(grepl("of other data or settings", unlist(lapply(cvfit$path$fits, `[[`, "notes")))))
})

test_that("lowrank_sparse() defaults do not depend on the data's units", {
  set.seed(9)
  Y <- matrix(rnorm(200 * 12), 200) %*% diag(seq(0.02, 0.002, length.out = 12))
  M <- cov(Y)                                       # variances ~ 1e-5 .. 4e-4: return-sized
  fits <- lapply(c(1, 1e4), function(s)
    lowrank_sparse(M * s, lambda = 2e-5 * s, radius = sum(diag(M)) * s))
  # the default mu was eps C0 / (m n): at this scale beta = 1 + lambda / mu
  # was ~ 1e3 and 1000 iterations ended far from tol
  expect_equal(fits[[2]]$objective / 1e8, fits[[1]]$objective, tolerance = 1e-6)
  expect_lt(fits[[1]]$gap / fits[[1]]$objective, 0.01)
  expect_equal(fits[[2]]$smoothing$mu_start / 1e4, fits[[1]]$smoothing$mu_start, tolerance = 1e-12)
})
