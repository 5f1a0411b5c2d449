# Where the time of a call goes: wall clock (fit$time, measured by
# system.time around the call as well) against the solver's own time
# (fit$solver_time), for the old fixed evaluation schedule (eval_every = 10)
# and the adaptive default (eval_every = NULL: stop tests at most 10% of the
# iterations apart, trace rows within ~10% of the wall time). Each call is
# one a user would make, with the default tol unless said otherwise.
#
# Run from the repository root (after R CMD INSTALL .):
#   Rscript inst/bench/timing.R
# Writes inst/bench/results/timing.md. About 2 minutes on 2 cores.

suppressPackageStartupMessages(library(stochcg))
out_dir <- file.path("inst", "bench", "results")
dir.create(out_dir, showWarnings = FALSE, recursive = TRUE)

# sparse design, l1-constrained least squares (as in the issue's example)
set.seed(1)
n <- 2000; p <- 500
Xs <- Matrix::rsparsematrix(n, p, density = 0.05)
ys <- as.vector(Xs[, 1:10] %*% rnorm(10)) + rnorm(n)

# MovieLens ratings, centered, as in inst/bench/movielens.R
ml <- dslabs::movielens
ml_obs <- data.frame(row = match(ml$userId, sort(unique(ml$userId))),
                     col = match(ml$movieId, sort(unique(ml$movieId))),
                     value = ml$rating)

calls <- list(
  "sparse_regression fw, 1e5 iterations" = function(ctl) {
    ctl$max_iter <- 1e5; ctl$tol <- 1e-12
    sparse_regression(Xs, ys, 5, method = "fw", intercept = FALSE, control = ctl, standardize = FALSE)
  },
  "sparse_regression sfw, 2e4 iterations" = function(ctl) {
    ctl$max_iter <- 2e4      # default tol = 1e-6: stop tests at <= 10% spacing
    sparse_regression(Xs, ys, 5, method = "sfw", intercept = FALSE, control = ctl, standardize = FALSE)
  },
  "complete_matrix sfw (MovieLens), 1000 iterations" = function(ctl) {
    ctl$max_iter <- 1000     # default tol
    complete_matrix(ml_obs, radius = 3000, method = "sfw", center = "both", control = ctl)
  }
)

rows <- list()
for (name in names(calls)) {
  for (schedule in c("eval_every = 10", "adaptive (default)")) {
    ctl <- cg_control(progress = FALSE,
                      eval_every = if (schedule == "eval_every = 10") 10L else NULL)
    set.seed(7)
    wall <- system.time(fit <- calls[[name]](ctl))[["elapsed"]]
    rows[[length(rows) + 1L]] <- data.frame(
      call = name, schedule = schedule, wall_s = wall, fit_time_s = fit$time,
      solver_s = fit$solver_time, trace_rows = nrow(fit$trace),
      rest_share = 1 - fit$solver_time / fit$time,
      objective = fit$objective, gap = fit$gap)
  }
}
tab <- do.call(rbind, rows)
fmt <- function(x, d = 3) formatC(x, digits = d, format = "g")
md <- c("| call | schedule | wall s | fit$time s | solver s | trace rows | share not in solver | objective | gap |",
        "|---|---|---|---|---|---|---|---|---|",
        sprintf("| %s | %s | %s | %s | %s | %d | %s | %s | %s |", tab$call, tab$schedule,
                fmt(tab$wall_s), fmt(tab$fit_time_s), fmt(tab$solver_s), tab$trace_rows,
                sprintf("%.0f%%", 100 * tab$rest_share), fmt(tab$objective, 7), fmt(tab$gap)))
writeLines(md)
writeLines(md, file.path(out_dir, "timing.md"))
