# One sparse_regression() fit against glmnet() at the same solution, at
# p >> n (issue 25): on the designs of cv_regression_wide.R (the same 80%
# training rows), glmnet() is fitted alone at cv.glmnet's lambda.1se
# (standardize = FALSE, 10 folds; lambda.min where the 1se solution is
# empty), and ours at the l1 norm of that solution. Both from a cold start; best of 5 wall and CPU seconds,
# side by side in one run, with the load average (2 shared cores).
# Also: the exact duality gap of our fit (converged: below tol) and its
# objective against glmnet's at its (less exact) solution.
#
# Run from the repository root:  Rscript inst/bench/regression_single_wide.R
suppressPackageStartupMessages(library(stochcg))
stopifnot(requireNamespace("glmnet", quietly = TRUE))
Sys.setenv(STOCHCG_BENCH_DEFS_ONLY = "1")
source("inst/bench/cv_regression_wide.R")          # datasets, simulated()

best <- function(f, reps = 5) {
  w <- c <- numeric(reps)
  for (k in seq_len(reps)) {
    t0 <- proc.time(); v <- f(); t <- proc.time() - t0
    w[k] <- t[["elapsed"]]; c[k] <- t[["user.self"]] + t[["sys.self"]]
  }
  list(value = v, wall = min(w), cpu = min(c))
}

single_case <- function(name, d, seed = 1) {
  if (is.null(d)) return(NULL)
  set.seed(seed)
  n <- nrow(d$X)
  train <- sort(sample(n, round(0.8 * n)))
  X <- d$X[train, ]; y <- d$y[train]
  foldid <- sample(rep_len(1:10, nrow(X)))
  G <- glmnet::cv.glmnet(X, y, foldid = foldid, standardize = FALSE)
  # lambda.1se, or lambda.min when the 1se solution is empty
  lam <- if (G$nzero[G$lambda == G$lambda.1se] > 0) G$lambda.1se else G$lambda.min
  load <- strsplit(readLines("/proc/loadavg"), " ")[[1]][1]
  g <- best(function() glmnet::glmnet(X, y, lambda = lam, standardize = FALSE))
  bg <- as.vector(g$value$beta)
  r <- sum(abs(bg))                     # the l1 norm of glmnet's solution, fitted alone
  if (!(r > 0)) return(NULL)
  o <- best(function() sparse_regression(X, y, r, standardize = FALSE))
  obj_g <- mean((y - g$value$a0 - X %*% bg)^2) / 2
  data.frame(data = name, n = nrow(X), p = ncol(X), radius = r, nnz_glmnet = sum(bg != 0),
             nnz_cg = sum(o$value$solution$beta != 0),
             s_cg = o$wall, s_glmnet = g$wall, cpu_cg = o$cpu, cpu_glmnet = g$cpu,
             ratio_cpu = o$cpu / max(g$cpu, 1e-3), converged = o$value$converged,
             gap_cg = o$value$gap, obj_cg = o$value$objective, obj_glmnet = obj_g,
             load = load, row.names = NULL)
}

res <- NULL
for (nm in names(datasets)) {
  row <- single_case(nm, datasets[[nm]]())
  if (is.null(row)) next
  print(row, digits = 3)
  res <- rbind(res, row)
}
shown <- res
shown[] <- lapply(res, function(col) vapply(col, fmt, ""))
out <- c("# One sparse_regression() fit against glmnet() at the same l1 norm, p >> n", "",
         sprintf("R %s, glmnet %s, stochcg %s; %s.", getRversion(),
                 utils::packageVersion("glmnet"), utils::packageVersion("stochcg"),
                 format(Sys.time(), "%Y-%m-%d %H:%M")), "",
         paste("`inst/bench/regression_single_wide.R`: glmnet() alone at cv.glmnet's",
               "lambda.1se (standardize = FALSE), ours at the l1 norm of its solution; cold",
               "starts; best of 5 wall (`s_*`) and CPU (`cpu_*`, user + sys) seconds;",
               "`ratio_cpu` ours / glmnet (glmnet's CPU floored at 1 ms); `gap_cg` our exact",
               "duality gap; objectives 1/(2n)||y - a - Xb||^2 of both (the same l1 norm)."),
         "", md_table(shown))
writeLines(out, "inst/bench/results/regression_single_wide.md")
cat(out, sep = "\n")
