# sparsest_cut_sdp(): eq. (22) of paper 003 by CGAL. The certified
# sparsity bound must lie below the best cut found by brute force over all
# subsets (graphs of <= 12 nodes); on graphs with a clear bottleneck the
# rounded cut is the best cut.

best_cut <- function(A) {
  n <- nrow(A); best <- Inf
  for (code in 1:(2^(n - 1) - 1)) {            # node n stays outside S: each cut once
    S <- bitwAnd(code, 2^(0:(n - 1))) > 0
    best <- min(best, sum(A[S, !S]) / (sum(S) * (n - sum(S))))
  }
  best
}
graph_from_edges <- function(n, edges) {
  A <- matrix(0, n, n)
  for (e in edges) A[e[1], e[2]] <- A[e[2], e[1]] <- 1
  A
}

test_that("two cliques joined by one edge: the cut between them, bound below the optimum", {
  n <- 10
  edges <- c(combn(5, 2, simplify = FALSE), lapply(combn(5, 2, simplify = FALSE), `+`, 5),
             list(c(5, 6)))
  A <- graph_from_edges(n, edges)
  fit <- sparsest_cut_sdp(A, control = cg_control(max_iter = 3000))
  opt <- best_cut(A)
  expect_equal(opt, 1 / 25)
  expect_equal(fit$sparsity, opt)
  expect_identical(sort(which(fit$cut)) %in% 1:5 | sort(which(fit$cut)) %in% 6:10, rep(TRUE, 5))
  expect_lte(fit$sparsity_bound, opt + 1e-12)       # certified
  expect_gt(fit$sparsity_bound, 0.5 * opt)
  expect_lte(fit$infeasibility, 0.05 * n^2 / 2)
})

test_that("random graphs: the certified bound never exceeds the best cut", {
  set.seed(7)
  for (n in c(7, 9, 11)) {
    A <- matrix(0, n, n)
    A[upper.tri(A)] <- rbinom(n * (n - 1) / 2, 1, 0.4)
    A <- A + t(A)
    if (any(rowSums(A) == 0)) A[cbind(1:(n - 1), 2:n)] <- A[cbind(2:n, 1:(n - 1))] <- 1
    fit <- sparsest_cut_sdp(A, control = cg_control(max_iter = 1500))
    opt <- best_cut(A)
    expect_lte(fit$sparsity_bound, opt + 1e-12)
    expect_gte(fit$sparsity, opt - 1e-12)
    expect_equal(fit$lower_bound, fit$objective - fit$gap)
    # the trace's infeasibility falls; a disconnected graph (opt = 0) is
    # solved exactly without iterating
    tr <- fit$trace
    if (opt > 0) expect_lt(tr$infeasibility[nrow(tr)], tr$infeasibility[2])
    else expect_identical(fit$method, "closed_form")
  }
})

test_that("an igraph graph gives the fit of its adjacency matrix", {
  skip_if_not_installed("igraph")
  g <- igraph::make_graph(~ 1-2, 1-3, 2-3, 3-4, 4-5, 4-6, 5-6)
  A <- as.matrix(igraph::as_adjacency_matrix(g, sparse = FALSE))
  ctl <- cg_control(max_iter = 200)
  a <- sparsest_cut_sdp(g, control = ctl)
  b <- sparsest_cut_sdp(A, control = ctl)
  expect_equal(a$objective, b$objective)
  expect_identical(a$cut, b$cut)
})

test_that("bad input gives an error naming the argument", {
  expect_error(sparsest_cut_sdp(matrix(0, 4, 4)), "`adjacency` has no edges")
  expect_error(sparsest_cut_sdp(matrix(1, 2, 2)), "`adjacency` must be a square matrix of at least 3 nodes")
  A <- matrix(0, 4, 4); A[1, 2] <- 1
  expect_error(sparsest_cut_sdp(A), "`adjacency` must be symmetric")
  A[2, 1] <- 1; A[3, 4] <- A[4, 3] <- -1
  expect_error(sparsest_cut_sdp(A), "`adjacency` must have nonnegative weights")
  expect_error(sparsest_cut_sdp("a"), "`adjacency` must be a numeric matrix")
})

test_that("a random 10-node graph: the SDP value of SCS to 2e-3, feasible to 1e-3, bounds ordered", {
  skip_if_not_installed("scs")
  set.seed(3); n <- 10
  A <- matrix(0, n, n); A[upper.tri(A)] <- rbinom(n * (n - 1) / 2, 1, 0.4); A <- A + t(A)
  ref <- ref_sparsest_cut_scs(A)
  expect_identical(ref$status, "solved")
  fit <- sparsest_cut_sdp(A, control = cg_control(max_iter = 3000, tol = 0))
  expect_lte(abs(fit$objective - ref$value), 2e-3 * ref$value)
  expect_lte(fit$infeasibility, 1e-3 * n^2 / 2)            # relative to ||b|| = n^2 / 2
  expect_lte(fit$lower_bound, ref$value + 1e-6)            # certified
  expect_lte(2 * ref$value / n^2, best_cut(A) + 1e-9)      # the relaxation bounds the cut
  expect_gte(fit$sparsity, best_cut(A) - 1e-12)
})
