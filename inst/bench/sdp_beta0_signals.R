# Per-instance signals for beta0 of the smoothing methods (issue 11), tried
# and rejected: would any of them pick, from one problem's runs, a beta0
# whose error is within a factor 2 of the best? On the training problems of
# inst/bench/sdp_beta0.R (seed 1, beta0 on quarter decades 10^-3.5 .. 10^1),
# each signal picks the beta0 that minimizes it among the runs, and we count
# the problems where that beta0's error (the benchmark's, which needs f*) is
# within a factor 2 of the best of these runs. The signals need no f*:
#   certificate   gap / |f| + infeasibility / scale, the gap the trace's
#                 weak-duality bound with the smoothing's multipliers y_k
#                 (over iterations 801-1000, and at a 250-iteration pilot)
#   drift         2.41 |f(0.9 K) - f(0.45 K)| / |f| + infeasibility / scale:
#                 |f_k - f*| if f_k = f* + c / sqrt(k), which both error
#                 terms of the homotopy follow (K = 1000 and a 250 pilot)
#   merit         f + 3 y_hat dist(A w, K), an exact penalty (>= f* for every
#                 w once 3 y_hat >= ||y*||), y_hat = max (f* - f) / dist over
#                 the runs: an oracle for ||y*||, the signal's best case
# and (printed last) CGAL's multipliers after 1000 iterations: if beta0* =
# c g / ||y*|| (paper 003's Cor. 4.2 with g for the problem's scale), the
# products best beta0 x ||y_cgal|| / g would agree across problems.
# Note that a signal picking the minimizer among all grid runs is a full grid
# search (19 runs): "auto" could afford a few pilots at most.
# Run from the repository root:  Rscript inst/bench/sdp_beta0_signals.R
suppressPackageStartupMessages(library(stochcg))
options(width = 200)
iters <- 1000L
ctl <- cg_control(max_iter = iters, tol = 0, eval_every = iters %/% 100L)
keep <- c("kmeans_iris", "kmeans_planted", "maxcut_sdp_solve", "cut_karate", "kmeans_iris40",
          "maxcut25", "cut_Krackhardt_Kite", "cut_Frucht")        # the training problems
source("inst/bench/sdp_beta0_problems.R")
problems <- problems[intersect(names(problems), keep)]
methods <- c("hsagcgm_v1", "hsagcgm_v2", "hspider", "h1sfw")
grid <- 10^seq(-3.5, 1, by = 0.25)

runs <- list()
for (p in names(problems)) for (m in methods) for (b in grid) {
  set.seed(1)
  tr <- problems[[p]]$run(m, b)$trace
  runs[[length(runs) + 1]] <- data.frame(problem = p, method = m, beta0 = b,
                                         fstar = problems[[p]]$fstar, scale = problems[[p]]$scale,
                                         tr[c("iter", "objective", "gap", "infeasibility")])
}
d <- do.call(rbind, runs)
d$err <- abs(d$objective - d$fstar) / abs(d$fstar) + d$infeasibility / d$scale

med <- function(x, v, lo, hi) stats::median(v[x$iter > lo & x$iter <= hi])
drift <- function(x, K) {
  a <- med(x, x$objective, 0.4 * K, 0.5 * K); b <- med(x, x$objective, 0.8 * K, K)
  2.41 * abs(a - b) / abs(b) + med(x, x$infeasibility, 0.8 * K, K) / x$scale[1]
}
signals <- list(
  certificate = function(x, K) med(x, pmax(x$gap, 0) / abs(x$objective) +
                                     x$infeasibility / x$scale, 0.8 * K, K),
  drift = drift,
  merit = function(x, K) med(x, x$objective + 3 * x$y_hat * x$infeasibility, 0.8 * K, K))
out <- list()
for (m in methods) for (p in names(problems)) {
  x <- d[d$method == m & d$problem == p, ]
  t <- x[x$iter > 800 & x$infeasibility > 0, ]
  x$y_hat <- max((t$fstar - t$objective) / t$infeasibility)
  runs_b <- split(x, x$beta0)
  err <- vapply(runs_b, function(r) med(r, r$err, 800, 1000), 0)
  lb <- log10(as.numeric(names(runs_b)))
  for (s in names(signals)) for (K in c(1000, 250)) {
    v <- vapply(runs_b, signals[[s]], 0, K = K)
    out[[length(out) + 1]] <- data.frame(method = m, problem = p, signal = s, K = K,
                                         off = lb[which.min(v)] - lb[which.min(err)],
                                         ratio = err[which.min(v)] / min(err))
  }
}
out <- do.call(rbind, out)
summ <- aggregate(cbind(within_2 = ratio <= 2, problems = 1) ~ signal + K + method, out, sum)
summ$median_decades_off <- aggregate(off ~ signal + K + method, out, function(o) median(o))$off
print(summ[order(summ$signal, -summ$K, summ$method), ], row.names = FALSE)

# CGAL's multipliers: best beta0 x ||y_cgal|| / g per method, in decades
ctl <- cg_control(max_iter = iters, tol = 0)
ycg <- vapply(problems, function(pr) {
  st <- pr$run("cgal", "auto")$state
  sqrt(sum(unlist(st[grep("^state_[yY]", names(st))])^2))
}, 0)
ctl <- cg_control(max_iter = 1L, tol = 0)
g <- vapply(problems, function(pr) 2 * pr$run("hspider", "auto")$beta0, 0)   # hspider: 0.5 g
best <- aggregate(cbind(best = log10(beta0)) ~ problem + method,
                  do.call(rbind, lapply(split(d, list(d$problem, d$method), drop = TRUE), function(x) {
                    e <- vapply(split(x, x$beta0), function(r) med(r, r$err, 800, 1000), 0)
                    data.frame(problem = x$problem[1], method = x$method[1],
                               beta0 = as.numeric(names(e))[which.min(e)])
                  })), identity)
best$product <- round(best$best + log10(ycg[best$problem]) - log10(g[best$problem]), 2)
w <- reshape(best[c("problem", "method", "product")], direction = "wide", idvar = "problem",
             timevar = "method")
names(w) <- sub("product.", "", names(w), fixed = TRUE)
w$log10_y_cgal <- round(log10(ycg[w$problem]), 2)
print(w, row.names = FALSE)
cat("spread (max - min, decades):", paste(sprintf("%s %.2f", methods,
    vapply(methods, function(m) diff(range(w[[m]])), 0)), collapse = ", "), "\n")
