# beta0 = "auto" against a grid, per homotopy method and SDP problem class
# (issue 11): after a fixed iteration budget, the error
#   err = |f - f*| / |f*| + infeasibility / scale
# (scale: sqrt(n) for k-means, n^2/2 for sparsest cut, max(1, ||b||) for
# sdp_solve, the scales `tol` uses) for beta0 on a grid 10^(-3..2) by
# half decades and for "auto"; "auto" passes when its err is within a factor
# 2 of the grid's best. f*: Rcsdp (interior point) where it runs (k-means,
# MaxCut, small cuts); for the sparsest cut of Zachary's karate club (17952
# triangle rows, too many for Rcsdp) a 30000-iteration CGAL run, whose
# certified lower bound brackets it (printed). The first four problems
# calibrated the "auto" rule of the smoothing methods (see check_beta0() in
# R/kmeans-sdp.R); the "held_out" ones test it.
#
# Run from the repository root:  Rscript inst/bench/sdp_beta0.R
# Environment: SDPBETA_ITERS (budget, default 1000), SDPBETA_OUT (csv path),
# SDPBETA_METHODS, SDPBETA_PROBLEMS, SDPBETA_LOG10GRID (comma-separated subsets).
suppressPackageStartupMessages(library(stochcg))
source("tests/testthat/helper-sdp.R")            # ref_kmeans_rcsdp()
iters <- as.integer(Sys.getenv("SDPBETA_ITERS", "1000"))
out <- Sys.getenv("SDPBETA_OUT", "inst/extdata/sdp_beta0.csv")   # read by the homotopy-sdp vignette
env_list <- function(name, default) {
  v <- Sys.getenv(name, "")
  if (nzchar(v)) strsplit(v, ",")[[1]] else default
}
methods <- env_list("SDPBETA_METHODS", c("cgal", "hsagcgm_v1", "hsagcgm_v2", "h1sfw", "hspider"))
grid <- 10^as.numeric(env_list("SDPBETA_LOG10GRID", seq(-3, 2, by = 0.5)))
keep <- env_list("SDPBETA_PROBLEMS", NULL)        # NULL: every problem
seeds <- as.integer(env_list("SDPBETA_SEEDS", 1:3))
ctl <- cg_control(max_iter = iters, tol = 0, eval_every = max(1L, iters %/% 100L))

ref_maxcut_rcsdp <- function(C) {          # min <C, X> s.t. diag X = 1, X psd
  n <- nrow(C)
  stm <- Rcsdp::simple_triplet_sym_matrix
  A <- lapply(seq_len(n), function(i) list(stm(i, i, 1, n = n)))
  old <- setwd(tempdir()); on.exit(setwd(old), add = TRUE)
  o <- Rcsdp::csdp(list(-C), A, rep(1, n), list(type = "s", size = n),
                   control = Rcsdp::csdp.control(printlevel = 0))
  -o$pobj
}

# MaxCut SDP of a G(n, p) graph through sdp_solve: min <-L/4, X>, diag X = 1
maxcut_problem <- function(seed, n, p) {
  set.seed(seed)
  A <- matrix(rbinom(n * n, 1, p), n); A[lower.tri(A, TRUE)] <- 0; A <- A + t(A)
  C <- -(diag(rowSums(A)) - A) / 4
  E <- lapply(seq_len(n), function(i) { M <- matrix(0, n, n); M[i, i] <- 1; M })
  list(fstar = ref_maxcut_rcsdp(C), scale = sqrt(n),
       run = function(method, beta0) sdp_solve(C, E, rep(1, n), trace_bound = n, method = method,
                                               beta0 = beta0, control = ctl))
}

problems <- list()
set.seed(30); xi <- as.matrix(iris[sample(150, 30), 1:4])
problems$kmeans_iris <- list(
  fstar = ref_kmeans_rcsdp(as.matrix(dist(xi))^2, 3)$value, scale = sqrt(30),
  run = function(method, beta0) kmeans_sdp(xi, 3, method = method, beta0 = beta0,
                                           control = ctl))
set.seed(1); lab <- rep(1:3, each = 10)
xp <- rbind(c(0, 0), c(8, 0), c(0, 8))[lab, ] + matrix(rnorm(60), 30)
problems$kmeans_planted <- list(
  fstar = ref_kmeans_rcsdp(as.matrix(dist(xp))^2, 3)$value, scale = sqrt(30),
  run = function(method, beta0) kmeans_sdp(xp, 3, method = method, beta0 = beta0,
                                           control = ctl))
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

set.seed(31); xh <- as.matrix(iris[sample(150, 40), 1:4])
problems$kmeans_iris40 <- list(
  fstar = ref_kmeans_rcsdp(as.matrix(dist(xh))^2, 3)$value, scale = sqrt(40),
  run = function(method, beta0) kmeans_sdp(xh, 3, method = method, beta0 = beta0,
                                           control = ctl))
problems$maxcut25 <- maxcut_problem(4, 25, 0.2)
if (requireNamespace("igraph", quietly = TRUE)) {
  for (gname in c("Krackhardt_Kite", "Frucht")) local({
    Ag <- as.matrix(igraph::as_adjacency_matrix(igraph::make_graph(gname), sparse = FALSE))
    problems[[paste0("cut_", gname)]] <<- list(
      fstar = ref_cut_rcsdp(Ag)$value, scale = nrow(Ag)^2 / 2,
      run = function(method, beta0) sparsest_cut_sdp(Ag, method = method, beta0 = beta0,
                                                     control = ctl))
  })
}

# held out of the fit of the "auto" rules: one new problem per class
set.seed(32); xf <- scale(as.matrix(faithful))[sample(nrow(faithful), 40), ]
problems$held_out_kmeans_faithful40 <- list(
  fstar = ref_kmeans_rcsdp(as.matrix(dist(xf))^2, 2)$value, scale = sqrt(40),
  run = function(method, beta0) kmeans_sdp(xf, 2, method = method, beta0 = beta0, control = ctl))
problems$held_out_maxcut30 <- maxcut_problem(5, 30, 0.15)
if (requireNamespace("igraph", quietly = TRUE)) {
  Ah <- as.matrix(igraph::as_adjacency_matrix(igraph::make_graph("Heawood"), sparse = FALSE))
  problems$held_out_cut_Heawood <- list(
    fstar = ref_cut_rcsdp(Ah)$value, scale = nrow(Ah)^2 / 2,
    run = function(method, beta0) sparsest_cut_sdp(Ah, method = method, beta0 = beta0, control = ctl))
}

rows <- list()
for (p in if (is.null(keep)) names(problems) else intersect(names(problems), keep)) {
  pr <- problems[[p]]
  for (m in methods) for (b in c(grid, NA)) for (sd in if (m == "cgal") seeds[1] else seeds) {
    set.seed(sd)
    fit <- pr$run(m, if (is.na(b)) "auto" else b)
    tr <- fit$trace
    tail_err <- with(tr[tr$iter > 0.8 * iters, ],
                     abs(objective - pr$fstar) / abs(pr$fstar) + infeasibility / pr$scale)
    rows[[length(rows) + 1]] <- data.frame(
      problem = p, method = m, seed = sd, beta0 = if (is.na(b)) "auto" else format(b, digits = 3),
      beta0_used = fit$beta0,
      resid = abs(fit$objective - pr$fstar) / abs(pr$fstar),
      infeas = fit$infeasibility / pr$scale, seconds = fit$time,
      err_tail = stats::median(tail_err))
  }
}
res <- do.call(rbind, rows)
res$err_last <- res$resid + res$infeas
res$err <- res$err_tail
write.csv(res, out, row.names = FALSE)
# per problem, method and beta0: the mean over seeds (cgal is deterministic)
agg <- aggregate(cbind(err, err_last, beta0_used) ~ problem + method + beta0, res, mean)
summ <- do.call(rbind, lapply(split(agg, list(agg$problem, agg$method), drop = TRUE), function(d) {
  g <- d[d$beta0 != "auto", ]; a <- d[d$beta0 == "auto", ]
  data.frame(problem = d$problem[1], method = d$method[1], best_beta0 = g$beta0[which.min(g$err)],
             auto_beta0 = signif(a$beta0_used, 3),
             best_err = signif(min(g$err), 3), auto_err = signif(a$err, 3),
             ratio = signif(a$err / min(g$err), 3), within_2 = a$err <= 2 * min(g$err))
}))
print(summ, row.names = FALSE)
cat(sprintf("within a factor 2 of the grid's best: %s\n",
            paste(sprintf("%s %d/%d", names(table(summ$method)),
                          tapply(summ$within_2, summ$method, sum), table(summ$method)),
                  collapse = ", ")))
