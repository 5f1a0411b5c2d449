# Where a binomial/Poisson CV's CPU goes: the solver's .Call against the R
# side (issue 25, branch glmr; inst/bench/results/cv_glm_glmr.md). For
# MASS::epil (Poisson) and Pima x2 (binomial, the 7 scores and their
# pairwise products), cv_glm_glmover.R's split and folds: after a warm-up,
# `reps` (STOCHCG_BENCH_REPS, default 30) calls of cv.glmnet, then of
# cv_sparse_regression() with path_results() (the one .Call of every path)
# replaced in the namespace by a copy that adds up the CPU seconds of its
# .Call; per CV: cv.glmnet's CPU, ours, of which C (the .Call, including
# its result lists) and R (the rest). One build per process: run it with
# each build's library, alternated, and compare the R column.
#
# Run from the repository root:  Rscript inst/bench/cv_glm_rside.R
suppressPackageStartupMessages(library(stochcg))
stopifnot(requireNamespace("glmnet", quietly = TRUE), requireNamespace("MASS", quietly = TRUE))
Sys.setenv(STOCHCG_BENCH_DEFS_ONLY = "1")
source("inst/bench/cv_regression_wide.R")        # split_case()
products <- function(X) {
  X <- scale(X)
  P <- combn(ncol(X), 2, function(ij) X[, ij[1]] * X[, ij[2]])
  unname(cbind(X, P))
}
cases <- list(
  epil = function() {
    d <- MASS::epil
    X <- model.matrix(y ~ (lbase + lage + trt + V4)^2 + factor(subject), d)[, -1]
    list(X = X[, colSums(X != 0) > 0], y = d$y, family = "poisson")
  },
  "Pima x2" = function() {
    d <- rbind(MASS::Pima.tr, MASS::Pima.te)
    list(X = products(as.matrix(d[, 1:7])), y = as.double(d$type == "Yes"), family = "binomial")
  })
reps <- as.integer(Sys.getenv("STOCHCG_BENCH_REPS", "30"))
ns <- asNamespace("stochcg")
C_path <- get("C_cg_solve_path_call", ns)
orig <- get("path_results", ns)
c_cpu <- 0
timed <- function(spec, control, radii) {
  t_call <- wall_clock()
  t0 <- proc.time()
  results <- .Call(C_path, spec, run_settings(control), as.double(radii))
  t1 <- proc.time() - t0
  c_cpu <<- c_cpu + t1[[1]] + t1[[2]]
  list(results = results, per_fit = (wall_clock() - t_call) / length(radii),
       n = sum(!vapply(results, is.null, NA)))
}
environment(timed) <- ns
cpu <- function(f) {
  invisible(gc())
  t0 <- proc.time(); for (i in seq_len(reps)) f(); t <- proc.time() - t0
  (t[[1]] + t[[2]]) / reps
}
res <- NULL
for (name in names(cases)) {
  d <- cases[[name]]()
  sp <- split_case(d, 1)
  ours <- function() suppressWarnings(cv_sparse_regression(sp$X, sp$y, folds = sp$foldid,
                                                           family = d$family))
  theirs <- function() glmnet::cv.glmnet(sp$X, sp$y, foldid = sp$foldid, family = d$family)
  ours(); theirs()
  g <- cpu(theirs)
  unlockBinding("path_results", ns)
  assign("path_results", timed, ns)
  c_cpu <- 0
  o <- tryCatch(cpu(ours), finally = assign("path_results", orig, ns))
  res <- rbind(res, data.frame(data = name, glmnet = g, ours = o, C = c_cpu / reps,
                               R = o - c_cpu / reps,
                               load = as.numeric(strsplit(readLines("/proc/loadavg"), " ")[[1]][1])))
}
print(res, digits = 3)
