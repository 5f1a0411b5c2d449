# Rank of completion fits on MovieLens (dslabs::movielens), against
# softImpute: test RMSE, rank and seconds, same train/test split and
# centering for all.
#
# Run from the repository root (after R CMD INSTALL .):
#   Rscript inst/bench/completion_rank.R
# Writes inst/bench/results/completion_rank.md. About 5-8 minutes on 2 cores.
#
# Protocol (as inst/bench/movielens.R)
# * 90/10 random split (set.seed(2024)); test entries whose user or movie is
#   absent from train are dropped.
# * Grand mean + user + movie effects by least squares on train
#   (center = "both"); softImpute fits the centred residuals and is charged
#   the time of that centering.
# * softImpute (als): lambda = lambda0 * 0.35 (its best test RMSE in
#   movielens.R), rank.max = 60, so that its rank is set by lambda, not by
#   the cap. stochcg: radius = the nuclear norm of that softImpute fit (the
#   same size of solution), default settings (method "sfw", cg_control()),
#   then "fw" and shorter sfw runs.
# * Predictions clipped to [0.5, 5] (predict(clip = )). Seconds: wall clock
#   of the whole call; for stochcg also the solver time (fit$solver_time, without
#   trace evaluations).
# * Objective and duality gap of stochcg fits are those of the returned X
#   (gap = <grad, X - S>, an upper bound on objective - optimum). The lower
#   bound max(objective - gap) over the fits bounds the optimum from below.

suppressPackageStartupMessages(library(stochcg))
if (!requireNamespace("softImpute", quietly = TRUE)) stop("needs the softImpute package")
out_dir <- file.path("inst", "bench", "results")
dir.create(out_dir, showWarnings = FALSE, recursive = TRUE)
t_script <- proc.time()[["elapsed"]]

source(file.path("inst", "bench", "movielens-split.R"))
split <- movielens_split()
train <- split$train; test <- split$test; m <- split$m; n <- split$n
rmse <- function(p) sqrt(mean((p - test$value)^2))
clip <- c(0.5, 5)
wall <- function(expr) {
  t <- system.time(val <- expr, gcFirst = FALSE)[["elapsed"]]
  list(value = val, time = t)
}
rows <- list()
add <- function(...) rows[[length(rows) + 1L]] <<- data.frame(...)

# ---- softImpute on the centred residuals
cen <- wall({
  eff <- stochcg:::center_effects(list(row = train$row, col = train$col,
                                       value = train$value, dims = c(m, n)), "both")
  resid <- train$value - eff$mean - eff$row[train$row] - eff$col[train$col]
  softImpute::Incomplete(train$row, train$col, resid)
})
base <- eff$mean + eff$row[test$row] + eff$col[test$col]
lam <- softImpute::lambda0(cen$value) * 0.35
si <- wall(softImpute::softImpute(cen$value, rank.max = 60, lambda = lam, type = "als",
                                  maxit = 500))
s <- si$value
si_pred <- pmin(pmax(base + softImpute::impute(s, test$row, test$col), clip[1]), clip[2])
radius <- sum(s$d)
add(method = "softImpute als", setting = sprintf("lambda = %.2f (lambda0 * 0.35), rank.max = 60", lam),
    seconds = si$time + cen$time, solver_seconds = si$time, rank = sum(s$d > 0),
    test_rmse = rmse(si_pred), objective = NA, gap = NA, dropped = NA)
cat(sprintf("softImpute: rank %d, nuclear norm %.1f, RMSE %.4f, %.2f s\n",
            sum(s$d > 0), radius, rmse(si_pred), si$time + cen$time))

# ---- stochcg
run <- function(label, method, control) {
  set.seed(1)
  r <- wall(complete_matrix(train, radius = radius, center = "both", method = method,
                            dims = c(m, n), control = control))
  f <- r$value
  e <- rmse(predict(f, test[c("row", "col")], clip = clip))
  cat(sprintf("%-40s rank %3d  RMSE %.4f  obj %.6f  gap %.2e  %6.1f s (solver %6.1f)\n",
              label, f$rank, e, f$objective, f$gap, r$time, f$solver_time))
  add(method = paste("stochcg", method), setting = label, seconds = r$time,
      solver_seconds = f$solver_time, rank = f$rank, test_rmse = e, objective = f$objective,
      gap = f$gap, dropped = f$dropped)
  invisible(f)
}
ctl <- function(...) utils::modifyList(cg_control(progress = FALSE), list(...))
run("default: cg_control()", "sfw", ctl())
run("max_iter = 300, eval_every = 300", "sfw", ctl(max_iter = 300, eval_every = 300))
run("max_iter = 1000, eval_every = 1000", "sfw", ctl(max_iter = 1000, eval_every = 1000))
run("max_iter = 1000, eval_every = 1000", "fw", ctl(max_iter = 1000, eval_every = 1000))

res <- do.call(rbind, rows)
lower <- max(res$objective - res$gap, na.rm = TRUE)
fmt <- function(x, d) ifelse(is.na(x), "", formatC(x, format = "f", digits = d))
tab <- data.frame(method = res$method, setting = res$setting, rank = res$rank,
                  test_RMSE = fmt(res$test_rmse, 4), seconds = fmt(res$seconds, 1),
                  solver_s = fmt(res$solver_seconds, 1), objective = fmt(res$objective, 6),
                  gap = ifelse(is.na(res$gap), "", formatC(res$gap, format = "e", digits = 1)),
                  above_lower_bound = ifelse(is.na(res$objective), "",
                                             formatC(res$objective - lower, format = "e", digits = 1)),
                  atoms_dropped = ifelse(is.na(res$dropped), "", res$dropped))
md_table <- function(df) c(paste("|", paste(names(df), collapse = " | "), "|"),
                           paste("|", paste(rep("---", ncol(df)), collapse = " | "), "|"),
                           apply(df, 1, function(r) paste("|", paste(r, collapse = " | "), "|")))
total <- proc.time()[["elapsed"]] - t_script
md <- c("# Completion rank on MovieLens: stochcg vs softImpute", "",
        sprintf("Generated by `Rscript inst/bench/completion_rank.R` on %s; R %s, stochcg %s, softImpute %s; BLAS: %s.",
                format(Sys.time(), "%Y-%m-%d %H:%M"), getRversion(), packageVersion("stochcg"),
                packageVersion("softImpute"), basename(extSoftVersion()[["BLAS"]])), "",
        sprintf(paste("Data: dslabs::movielens, %d users x %d movies, train %d, test %d (seed 2024).",
                      "softImpute fits the residuals of least-squares mean + user + movie effects,",
                      "stochcg fits the same effects jointly (center = \"both\"); predictions",
                      "clipped to [0.5, 5]. stochcg radius = %.1f, the nuclear norm of the softImpute",
                      "fit. Seconds: wall clock of the whole call (2 shared cores); solver_s excludes",
                      "trace evaluations. `gap` bounds objective - optimum; `above_lower_bound` is",
                      "objective - max(objective - gap) = %.6f over the stochcg fits."),
                m, n, nrow(train), nrow(test), radius, lower), "",
        md_table(tab), "", sprintf("Total script time: %.0f s.", total))
writeLines(md, file.path(out_dir, "completion_rank.md"))
cat("\n", md_table(tab), sep = "\n")
cat(sprintf("\nWrote %s (%.0f s)\n", file.path(out_dir, "completion_rank.md"), total))
