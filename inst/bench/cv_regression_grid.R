# The default radius grid of cv_sparse_regression() before and after its
# refinement at the one-SE edge (issue 25), side by side with cv.glmnet in
# one run: the same 10 fold ids, an intercept for all three, 80% of the rows
# for training and 20% for the test MSE of the one-SE fits. "old" is the
# plain 30-radius grid (options(stochcg.cv_refine = FALSE)), "new" the
# default (up to 2 refinements of 4 radii where the CV curve falls by more
# than one SE into the one-SE band in one step).
# Designs: simulated n >> p and p >> n (the generator of
# cv_regression_wide.R: 5 common factors, 10 true coefficients, noise sd 1),
# gene-expression sets (riboflavin from hdi or STOCHCG_RIBOFLAVIN, Colon,
# Khan) with standardize = FALSE for both, and the real n > p designs of
# cv_regression.R (Boston with squares and interactions, stock returns) with
# the standardized defaults of both. CPU seconds (user + sys) and wall
# seconds of one call each, the load average at the start of each row.
#
# Run from the repository root:  Rscript inst/bench/cv_regression_grid.R
suppressPackageStartupMessages(library(stochcg))
stopifnot(requireNamespace("glmnet", quietly = TRUE))
Sys.setenv(STOCHCG_BENCH_DEFS_ONLY = "1")
source("inst/bench/cv_regression_wide.R")        # datasets, simulated(), timed(), fmt(), md_table()
# STOCHCG_BENCH_REPS = k: median of k calls (read by cv_regression_wide.R's timed())
# the two data builders of cv_regression.R (its definitions only)
for (e in parse("inst/bench/cv_regression.R"))
  if (is.call(e) && identical(e[[1]], as.name("<-")) && is.name(e[[2]]) &&
      as.character(e[[2]]) %in% c("boston_x2", "stock_returns")) eval(e)

# GLMs: 10 true coefficients among independent columns, sd 2 (binomial) and
# 0.5 (poisson) on the linear predictor
glm_sim <- function(n, p, family) function() {
  set.seed(3)
  X <- matrix(rnorm(n * p), n)
  eta <- drop(X[, 1:10] %*% rnorm(10, sd = if (family == "poisson") 0.5 else 2))
  list(X = X, y = if (family == "binomial") rbinom(n, 1, plogis(eta)) else rpois(n, exp(eta)))
}
cases <- list(
  list("simulated 5000x500", simulated(5000, 500), FALSE),
  list("simulated 2000x5000", simulated(2000, 5000), FALSE),
  list("simulated 200x5000", simulated(200, 5000), FALSE),
  list("simulated 100x2000", simulated(100, 2000), FALSE),
  list("simulated 1000x200", simulated(1000, 200), FALSE),
  list("simulated 1000x200 (std)", simulated(1000, 200), TRUE),
  list("simulated 75x4000 (std)", simulated(75, 4000), TRUE),
  list("riboflavin", datasets$riboflavin, FALSE),
  list("Colon gene 1", datasets[["Colon gene 1"]], FALSE),
  list("Khan gene 1", datasets[["Khan gene 1"]], FALSE),
  list("Boston x2 (std)", if (requireNamespace("MASS", quietly = TRUE)) boston_x2, TRUE),
  list("stockdata (std)", if (requireNamespace("huge", quietly = TRUE)) stock_returns, TRUE),
  list("binomial 2000x100 (std)", glm_sim(2000, 100, "binomial"), TRUE, "binomial"),
  list("poisson 2000x100 (std)", glm_sim(2000, 100, "poisson"), TRUE, "poisson"))
only <- Sys.getenv("STOCHCG_BENCH_DATA")
if (nzchar(only)) cases <- Filter(function(cs) cs[[1]] %in% strsplit(only, ",")[[1]], cases)

run_grid_case <- function(name, make, std, family = "gaussian", seed = 1) {
  if (is.null(make)) return(NULL)
  d <- make()
  if (is.null(d)) return(NULL)
  sp <- split_case(d, seed)
  X <- sp$X; y <- sp$y; Xt <- sp$Xt; yt <- sp$yt; foldid <- sp$foldid
  g <- timed(function() glmnet::cv.glmnet(X, y, foldid = foldid, standardize = std,
                                           family = family))
  ours <- function(refine) {
    old <- options(stochcg.cv_refine = refine); on.exit(options(old))
    timed(function() suppressWarnings(cv_sparse_regression(X, y, folds = foldid,
                                                           standardize = std, family = family)))
  }
  o_old <- ours(FALSE); o_new <- ours(TRUE)
  G <- g$value; A <- o_old$value; B <- o_new$value
  # test loss: mean squared error, or mean deviance (binomial, poisson)
  dev <- function(mu) switch(family, gaussian = (yt - mu)^2,
                             binomial = -2 * (yt * log(mu) + (1 - yt) * log(1 - mu)),
                             poisson = 2 * (ifelse(yt > 0, yt * log(yt / mu), 0) - (yt - mu)))
  mse <- function(f) mean(dev(predict(f, Xt, type = "response")))
  data.frame(data = name, n = nrow(X), p = ncol(X),
             nnz_old = sum(A$fit$solution$beta != 0), nnz_new = sum(B$fit$solution$beta != 0),
             nnz_glmnet = G$nzero[G$lambda == G$lambda.1se],
             mse_old = mse(A), mse_new = mse(B),
             mse_glmnet = mean(dev(as.vector(predict(G, Xt, s = "lambda.1se", type = "response")))),
             cpu_old = o_old$cpu, cpu_new = o_new$cpu, cpu_glmnet = g$cpu,
             ratio_old = o_old$cpu / g$cpu, ratio_new = o_new$cpu / g$cpu,
             wall_old = o_old$wall, wall_new = o_new$wall, wall_glmnet = g$wall,
             radii_old = nrow(A$cv), radii_new = nrow(B$cv),
             unconv_new = sum(!B$cv$converged), load = sp$load, row.names = NULL)
}

res <- NULL
for (cs in cases) {
  row <- run_grid_case(cs[[1]], cs[[2]], cs[[3]], if (length(cs) > 3L) cs[[4]] else "gaussian")
  if (is.null(row)) next
  print(row, digits = 3)
  res <- rbind(res, row)
  out <- c(bench_header("cv_sparse_regression's default grid before/after the one-SE refinement, with cv.glmnet"),
           paste("`inst/bench/cv_regression_grid.R`. Same 10 fold ids, intercept for all, 80% of",
                 "the rows for training (n is theirs). `old`: the plain 30-radius grid",
                 "(`options(stochcg.cv_refine = FALSE)`), `new`: the default with the refinement.",
                 "`nnz_*`: nonzero coefficients of the one-SE fit; `mse_*`: its test MSE on the",
                 "20% held out (mean deviance for the binomial and poisson rows); `cpu_*` CPU seconds (user + sys) and `wall_*` wall seconds of one",
                 "CV call; `ratio_*`: ours / cv.glmnet in CPU; `radii_*`: radii fitted; `unconv_new`:",
                 "radii with a fit short of tol; `load`: 1-minute load average (2 shared cores).",
                 "Rows marked (std): the standardized defaults of both; the others standardize = FALSE."),
           "", md_shown(res))
  dir.create("inst/bench/results", showWarnings = FALSE, recursive = TRUE)
  writeLines(out, "inst/bench/results/cv_regression_grid.md")
}
cat(readLines("inst/bench/results/cv_regression_grid.md"), sep = "\n")
