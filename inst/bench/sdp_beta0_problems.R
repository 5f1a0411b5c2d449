# The SDPs of the beta0 benchmarks (sourced by inst/bench/sdp_beta0.R,
# sdp_beta0_windows.R and sdp_beta0_signals.R, from the repository root): `problems`, a
# named list of list(fstar, scale, run = function(method, beta0)), each run
# with the caller's `ctl`; `keep` (NULL: all) skips the karate club's long
# reference run when it is not wanted. Problems named held_out_ were not used
# to fit any constant of the "auto" rules (check_beta0() in R/kmeans-sdp.R);
# the last four were added after the rules were fixed (issue 11).
source("tests/testthat/helper-sdp.R")            # ref_kmeans_rcsdp(), ref_cut_rcsdp()

ref_maxcut_rcsdp <- function(C) {          # min <C, X> s.t. diag X = 1, X psd
  n <- nrow(C)
  stm <- Rcsdp::simple_triplet_sym_matrix
  A <- lapply(seq_len(n), function(i) list(stm(i, i, 1, n = n)))
  old <- setwd(tempdir()); on.exit(setwd(old), add = TRUE)
  o <- Rcsdp::csdp(list(-C), A, rep(1, n), list(type = "s", size = n),
                   control = Rcsdp::csdp.control(printlevel = 0))
  -o$pobj
}

# the k-means SDP of the rows of x into k clusters; the sparsest cut SDP of
# igraph's graph `name`
kmeans_problem <- function(x, k) list(
  fstar = ref_kmeans_rcsdp(as.matrix(dist(x))^2, k)$value, scale = sqrt(nrow(x)),
  run = function(method, beta0) kmeans_sdp(x, k, method = method, beta0 = beta0, control = ctl))
cut_problem <- function(name) {
  A <- as.matrix(igraph::as_adjacency_matrix(igraph::make_graph(name), sparse = FALSE))
  list(fstar = ref_cut_rcsdp(A)$value, scale = nrow(A)^2 / 2,
       run = function(method, beta0) sparsest_cut_sdp(A, method = method, beta0 = beta0,
                                                      control = ctl))
}

# MaxCut SDP of a graph through sdp_solve: min <-L/4, X>, diag X = 1; of a
# G(n, p) graph drawn with `seed`, or of adjacency `A`
maxcut_problem <- function(seed, n, p, A = NULL) {
  if (is.null(A)) {
    set.seed(seed)
    A <- matrix(rbinom(n * n, 1, p), n); A[lower.tri(A, TRUE)] <- 0; A <- A + t(A)
  }
  n <- nrow(A)
  C <- -(diag(rowSums(A)) - A) / 4
  E <- lapply(seq_len(n), function(i) { M <- matrix(0, n, n); M[i, i] <- 1; M })
  list(fstar = ref_maxcut_rcsdp(C), scale = sqrt(n),
       run = function(method, beta0) sdp_solve(C, E, rep(1, n), trace_bound = n, method = method,
                                               beta0 = beta0, control = ctl))
}

problems <- list()
set.seed(30); problems$kmeans_iris <- kmeans_problem(as.matrix(iris[sample(150, 30), 1:4]), 3)
set.seed(1); lab <- rep(1:3, each = 10)
problems$kmeans_planted <- kmeans_problem(
  rbind(c(0, 0), c(8, 0), c(0, 8))[lab, ] + matrix(rnorm(60), 30), 3)
problems$maxcut_sdp_solve <- maxcut_problem(3, 20, 0.3)
if (requireNamespace("igraph", quietly = TRUE) && (is.null(keep) || "cut_karate" %in% keep)) {
  karate <- igraph::make_graph("Zachary")
  # beta0 = 1: its certificate was the tighter (lower bound 15.9446, against
  # 15.933 with "auto")
  long <- sparsest_cut_sdp(karate, beta0 = 1, control = cg_control(max_iter = 30000, tol = 0))
  cat(sprintf("karate f*: CGAL 30000 iterations %.6g, certified lower bound %.6g, infeasibility %.3g\n",
              long$objective, long$lower_bound, long$infeasibility))
  problems$cut_karate <- list(
    fstar = long$objective, scale = 34^2 / 2,
    run = function(method, beta0) sparsest_cut_sdp(karate, method = method, beta0 = beta0,
                                                   control = ctl))
}
set.seed(31); problems$kmeans_iris40 <- kmeans_problem(as.matrix(iris[sample(150, 40), 1:4]), 3)
problems$maxcut25 <- maxcut_problem(4, 25, 0.2)
if (requireNamespace("igraph", quietly = TRUE))
  for (gname in c("Krackhardt_Kite", "Frucht")) problems[[paste0("cut_", gname)]] <- cut_problem(gname)

# held out of the fit of the "auto" rules: one new problem per class
set.seed(32)
problems$held_out_kmeans_faithful40 <- kmeans_problem(
  scale(as.matrix(faithful))[sample(nrow(faithful), 40), ], 2)
problems$held_out_maxcut30 <- maxcut_problem(5, 30, 0.15)
if (requireNamespace("igraph", quietly = TRUE)) problems$held_out_cut_Heawood <- cut_problem("Heawood")

# held out, added after the rules were fixed: k-means of 40 olive oils (8
# fatty acids, standardized; 3 regions), the MaxCut SDP of Zachary's karate
# club, the sparsest cuts of the Chvatal and Herschel graphs
if (requireNamespace("dslabs", quietly = TRUE)) {
  xo <- scale(as.matrix(dslabs::olive[, 3:10]))
  set.seed(33); problems$held_out_kmeans_olive40 <- kmeans_problem(xo[sample(nrow(xo), 40), ], 3)
}
if (requireNamespace("igraph", quietly = TRUE)) {
  problems$held_out_maxcut_karate <- maxcut_problem(
    A = as.matrix(igraph::as_adjacency_matrix(igraph::make_graph("Zachary"), sparse = FALSE)))
  for (gname in c("Chvatal", "Herschel")) problems[[paste0("held_out_cut_", gname)]] <- cut_problem(gname)
}
