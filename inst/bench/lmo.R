# Tolerance of the rank-one LMO inside Frank-Wolfe, on MovieLens 100k.
# Frank-Wolfe needs only an approximate linear minimization oracle; a looser
# Lanczos tolerance saves matrix-vector products. The table compares the
# package default (1e-4) with tighter ones (1e-7, 1e-10):
# solver seconds, products, and the objective and true duality gap reached
# (the trace's gap is always computed at 1e-10).
# Run from the repository root:  Rscript inst/bench/lmo.R
suppressPackageStartupMessages(library(stochcg))
if (!requireNamespace("dslabs", quietly = TRUE)) {
  message("dslabs not installed: skipping"); quit(status = 0)
}
ml <- dslabs::movielens
ratings <- data.frame(row = match(ml$userId, sort(unique(ml$userId))),
                      col = match(ml$movieId, sort(unique(ml$movieId))),
                      value = ml$rating)
dims <- c(max(ratings$row), max(ratings$col))

run <- function(method, tol, iters) {
  old <- options(stochcg.lmo_tol = tol); on.exit(options(old))
  set.seed(1)
  fit <- complete_matrix(ratings, radius = 500, center = "both", dims = dims,
                         method = method, batch_size = 2000,
                         control = cg_control(max_iter = iters, eval_every = iters, tol = 0))
  data.frame(method = method, lmo_tol = tol, iterations = iters,
             solver_s = round(fit$solver_time, 2), n_matvec = tail(fit$trace$n_matvec, 1),
             per_lmo = round(tail(fit$trace$n_matvec, 1) / iters, 1),
             objective = signif(fit$objective, 7), gap = signif(fit$gap, 3))
}
grid <- expand.grid(tol = c(1e-10, 1e-7, 1e-4), method = c("fw", "sfw"),
                    iters = c(100, 300), stringsAsFactors = FALSE)
rows <- do.call(rbind, Map(run, grid$method, grid$tol, grid$iters))
cat(sprintf("LMO tolerance, MovieLens 100k (%d x %d, %d ratings), radius 500\n\n",
            dims[1], dims[2], nrow(ratings)))
print(rows, row.names = FALSE)
dir.create("inst/bench/results", showWarnings = FALSE, recursive = TRUE)
md <- c("| method | LMO tol | iterations | solver s | matvecs | per LMO | objective | gap |",
        "|---|---|---|---|---|---|---|---|",
        sprintf("| %s | %g | %d | %.2f | %d | %.1f | %.7g | %.3g |", rows$method,
                rows$lmo_tol, rows$iterations, rows$solver_s, as.integer(rows$n_matvec),
                rows$per_lmo, rows$objective, rows$gap))
writeLines(md, "inst/bench/results/lmo.md")
