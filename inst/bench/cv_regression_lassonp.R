# cv_sparse_regression() against cv.glmnet() (the same folds) on three
# designs no other bench or test uses (issue 25, helper lassonp): pls'
# gasoline (60 NIR spectra x 401 wavelengths, octane: p >> n, columns
# highly correlated), ISLR's College (777 x 17 numeric predictors and their
# pairwise products: 153 columns, log applications: n > p) and a simulated
# 3000 x 300 design with AR(1) correlated columns (rho 0.8, 15 nonzero
# coefficients, noise sd 3: n > p); the standardized defaults of both, 10
# folds drawn with seed 1. Ours and cv.glmnet() alternated REPS times in one
# process after one untimed call of each, a full collection (not timed)
# before every timed call; median CPU seconds (user + sys) and wall seconds
# of each, the 1-minute load. STOCHCG_BENCH_SAVE=<file.rds> saves our CVs
# (the cg_cv objects without their clocks and calls, and the 1se
# coefficients) to compare two builds with identical().
#   R_LIBS=<lib> STOCHCG_BENCH_REPS=5 Rscript inst/bench/cv_regression_lassonp.R
suppressPackageStartupMessages(library(stochcg))
stopifnot(requireNamespace("glmnet", quietly = TRUE))
Sys.setenv(STOCHCG_BENCH_DEFS_ONLY = "1", STOCHCG_BENCH_SIZES = "none")
source("inst/bench/cv_regression_wide.R")       # bench_header(), md_shown()
pairwise <- function(X) {
  X <- scale(X)
  P <- combn(ncol(X), 2, function(ij) X[, ij[1]] * X[, ij[2]])
  unname(cbind(X, P))
}
designs <- list(
  gasoline = function() {
    if (!requireNamespace("pls", quietly = TRUE)) return(NULL)
    e <- new.env(); utils::data(gasoline, package = "pls", envir = e)
    list(X = unclass(e$gasoline$NIR), y = e$gasoline$octane)
  },
  college = function() {
    if (!requireNamespace("ISLR", quietly = TRUE)) return(NULL)
    d <- ISLR::College
    num <- vapply(d, is.numeric, NA) & names(d) != "Apps"
    list(X = pairwise(as.matrix(d[, num])), y = log(d$Apps))
  },
  ar3000 = function() {
    set.seed(7)
    n <- 3000; p <- 300
    Z <- matrix(rnorm(n * p), n)
    X <- Z
    for (j in 2:p) X[, j] <- 0.8 * X[, j - 1] + sqrt(1 - 0.8^2) * Z[, j]
    beta <- numeric(p); beta[seq(5, p, by = 20)] <- c(2, -1.5, 1, -0.8, 0.6)
    list(X = X, y = drop(X %*% beta + 3 * rnorm(n)))
  })
reps <- max(1L, as.integer(Sys.getenv("STOCHCG_BENCH_REPS", "5")))
times <- function(f) {
  invisible(gc())
  t0 <- proc.time(); f(); t <- proc.time() - t0
  c(cpu = t[["user.self"]] + t[["sys.self"]], wall = t[["elapsed"]])
}
strip_cv <- function(cv) {
  cv$time <- NULL; cv$call <- NULL
  cv$path$time <- NULL; cv$path$call <- NULL
  cv$path$summary$time <- NULL
  cv$path$fits <- lapply(cv$path$fits, function(f) f$solution$beta)
  cv$fit <- cv$fit$solution$beta
  cv
}
res <- NULL
saved <- list()
for (name in names(designs)) {
  D <- designs[[name]]()
  if (is.null(D)) next
  set.seed(1)
  f <- sample(rep_len(1:10, nrow(D$X)))
  ours <- function() suppressWarnings(cv_sparse_regression(D$X, D$y, folds = f))
  theirs <- function() glmnet::cv.glmnet(D$X, D$y, foldid = f)
  cv <- ours(); invisible(theirs())
  saved[[name]] <- list(cv = strip_cv(cv), coef = coef(cv))
  co <- cg <- matrix(0, reps, 2)
  for (i in seq_len(reps)) {
    co[i, ] <- times(ours)
    cg[i, ] <- times(theirs)
  }
  row <- data.frame(case = name, n = nrow(D$X), p = ncol(D$X), radii = nrow(cv$cv),
                    cpu_cg = stats::median(co[, 1]), cpu_glmnet = stats::median(cg[, 1]),
                    cpu_ratio = stats::median(co[, 1]) / stats::median(cg[, 1]),
                    wall_cg = stats::median(co[, 2]), wall_glmnet = stats::median(cg[, 2]),
                    load = strsplit(readLines("/proc/loadavg"), " ")[[1]][1])
  print(row, digits = 3)
  res <- rbind(res, row)
}
if (nzchar(Sys.getenv("STOCHCG_BENCH_SAVE"))) saveRDS(saved, Sys.getenv("STOCHCG_BENCH_SAVE"))
dir.create("inst/bench/results", showWarnings = FALSE, recursive = TRUE)
writeLines(c(bench_header("cv_sparse_regression against cv.glmnet on three more designs no other bench uses"),
             sprintf(paste("`inst/bench/cv_regression_lassonp.R`, %d calls of each per case,",
                           "a full collection before each."), reps), "",
             md_shown(res)), "inst/bench/results/cv_regression_lassonp_designs.md")
