# The R-side cost of cv_sparse_regression() and sparse_regression() (issue
# 25): per call, the CPU seconds (user + sys), the garbage collector's CPU
# seconds (gc.time()) and the megabytes R allocated (Rprofmem: every vector
# R or the C code allocated on R's heap, the solver's R_alloc scratch
# included), with the build installed. Run it with two builds (R_LIBS) to
# compare them; the results are the same bit for bit (dev/compare_regression.R).
#
# Cases (10 fold ids drawn with set.seed(1), all rows in the CV):
#  - Colon gene 1: plsgenomics' Colon, the first gene on the other 1999
#    (62 x 1999), standardize = FALSE, as cv_regression_wide.R;
#  - 40 x 500 and 80 x 2000 simulated (5 common factors, 10 true
#    coefficients), standardize = FALSE;
#  - 60 x 4000 and 1000 x 200 simulated, the standardized defaults;
#  - Colon binomial (62 x 2000, tumour class), the defaults;
#  - one binomial fit at radius 1 on 5000 x 50 simulated (5 common
#    factors), the defaults: the R preparation of a single GLM fit;
#  - one gaussian fit on Colon gene 1 at radius 2 (raw scale), and one at
#    radius 5 on 1000 x 200 simulated (standardized).
# Each CV is timed over `reps` calls (STOCHCG_BENCH_REPS, default 10; the
# single fit 20 times as many) after one warm-up call, in one process.
#
# Run from the repository root:
#   R_LIBS=<lib> Rscript inst/bench/regression_overhead.R [label]
# (writes inst/bench/results/regression_overhead_<label>.csv)
suppressPackageStartupMessages(library(stochcg))
label <- commandArgs(TRUE)[1]
if (is.na(label)) label <- "current"
reps <- max(1L, as.integer(Sys.getenv("STOCHCG_BENCH_REPS", "10")))

sim <- function(n, p, seed = 1) {
  set.seed(seed)
  X <- matrix(rnorm(n * 5), n) %*% matrix(rnorm(5 * p), 5) + matrix(rnorm(n * p), n)
  list(X = X, y = drop(X[, 1:10] %*% rnorm(10, sd = 2) + rnorm(n)))
}
e <- new.env()
utils::data("Colon", package = "plsgenomics", envir = e)
colon <- list(X = e$Colon$X[, -1], y = e$Colon$X[, 1])
colon_bin <- list(X = e$Colon$X, y = e$Colon$Y - 1)
ids <- function(n) { set.seed(1); sample(rep_len(1:10, n)) }
cv_case <- function(d, ...) {
  force(d); f <- ids(nrow(d$X)); args <- list(...)
  function() do.call(cv_sparse_regression, c(list(d$X, d$y, folds = f), args))
}
g <- sim(5000, 50)
set.seed(6)
g$y <- rbinom(5000, 1, plogis(drop(g$X[, 1:3] %*% c(0.5, -0.5, 0.3)) / 3))
cases <- list(
  "CV Colon gene 1 (62 x 1999, raw)" = cv_case(colon, standardize = FALSE),
  "CV 40 x 500 (raw)" = cv_case(sim(40, 500), standardize = FALSE),
  "CV 80 x 2000 (raw)" = cv_case(sim(80, 2000), standardize = FALSE),
  "CV 60 x 4000 (standardized)" = cv_case(sim(60, 4000)),
  "CV 1000 x 200 (standardized)" = cv_case(sim(1000, 200)),
  "CV Colon binomial (62 x 2000)" = cv_case(colon_bin, family = "binomial"),
  "fit binomial 5000 x 50" = function() sparse_regression(g$X, g$y, 1, family = "binomial"),
  "fit gaussian Colon gene 1 (raw)" = function() sparse_regression(colon$X, colon$y, 2,
                                                                   standardize = FALSE),
  "fit gaussian 1000 x 200 (standardized)" = local({
    s <- sim(1000, 200)
    function() sparse_regression(s$X, s$y, 5)
  }))

measure <- function(name, f) {
  k <- if (startsWith(name, "fit")) 20L * reps else reps
  invisible(f())
  load <- strsplit(readLines("/proc/loadavg"), " ")[[1]][1]
  gc0 <- gc.time(); t0 <- proc.time()
  for (i in seq_len(k)) f()
  t <- proc.time() - t0
  gct <- gc.time() - gc0
  file <- tempfile()
  utils::Rprofmem(file, threshold = 0)
  invisible(f())
  utils::Rprofmem(NULL)
  l <- readLines(file)
  l <- l[grepl("^[0-9]+ :", l)]
  unlink(file)
  data.frame(case = name, build = label, calls = k,
             cpu_ms = 1000 * (t[["user.self"]] + t[["sys.self"]]) / k,
             wall_ms = 1000 * t[["elapsed"]] / k,
             gc_cpu_ms = 1000 * (gct[[1]] + gct[[2]]) / k,
             alloc_mb = sum(as.numeric(sub(" :.*", "", l))) / 2^20,
             load = load)
}
res <- do.call(rbind, Map(measure, names(cases), cases))
print(res, digits = 3, row.names = FALSE)
dir.create("inst/bench/results", showWarnings = FALSE, recursive = TRUE)
utils::write.csv(res, sprintf("inst/bench/results/regression_overhead_%s.csv", label),
                 row.names = FALSE)
