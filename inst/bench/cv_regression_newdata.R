# cv_sparse_regression() against cv.glmnet() (the same folds) on designs no
# other bench or test uses (issue 25, helper lassokeep): plsgenomics'
# leukemia (38 x 3051, gene 1 as the response, the others as X), ISLR's
# Hitters (263 x 19 numeric predictors and all their pairwise products: 190
# columns, log salary) and MASS's Boston (506 x 13 and pairwise products: 91
# columns, medv); the standardized defaults of both, 10 folds drawn with
# seed 1. Ours and cv.glmnet() alternated REPS times in one process (the
# first call of each not timed), median CPU seconds (user + sys), our mean
# GC seconds per CV, the 1-minute load. STOCHCG_BENCH_SAVE=<file.rds>
# saves our CVs (radii, curve, choices, coefficients) to compare builds.
#   R_LIBS=<lib> STOCHCG_BENCH_REPS=5 Rscript inst/bench/cv_regression_newdata.R
suppressPackageStartupMessages(library(stochcg))
stopifnot(requireNamespace("glmnet", quietly = TRUE))
Sys.setenv(STOCHCG_BENCH_DEFS_ONLY = "1", STOCHCG_BENCH_SIZES = "none")
source("inst/bench/cv_regression_wide.R")       # bench_header(), md_shown()
pairwise <- function(X) {
  X <- scale(X)
  P <- combn(ncol(X), 2, function(ij) X[, ij[1]] * X[, ij[2]])
  colnames(P) <- combn(colnames(X), 2, paste, collapse = ":")
  unname(cbind(X, P))
}
designs <- list(
  leukemia = function() {
    if (!requireNamespace("plsgenomics", quietly = TRUE)) return(NULL)
    e <- new.env(); utils::data(leukemia, package = "plsgenomics", envir = e)
    list(X = e$leukemia$X[, -1], y = e$leukemia$X[, 1])
  },
  hitters = function() {
    if (!requireNamespace("ISLR", quietly = TRUE)) return(NULL)
    d <- stats::na.omit(ISLR::Hitters)
    num <- vapply(d, is.numeric, NA) & names(d) != "Salary"
    list(X = pairwise(as.matrix(d[, num])), y = log(d$Salary))
  },
  boston = function() {
    d <- MASS::Boston
    list(X = pairwise(as.matrix(d[, names(d) != "medv"])), y = d$medv)
  })
reps <- max(1L, as.integer(Sys.getenv("STOCHCG_BENCH_REPS", "5")))
cpu <- function(f) { t0 <- proc.time(); f(); t <- proc.time() - t0; t[["user.self"]] + t[["sys.self"]] }
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
  saved[[name]] <- list(cv = cv$cv, radius.min = cv$radius.min, radius.1se = cv$radius.1se,
                        fold_loss = cv$fold_loss, coef = coef(cv))
  co <- cg <- gcs <- numeric(reps)
  for (i in seq_len(reps)) {
    g0 <- gc.time()[1]
    co[i] <- cpu(ours)
    gcs[i] <- gc.time()[1] - g0
    cg[i] <- cpu(theirs)
  }
  row <- data.frame(case = name, n = nrow(D$X), p = ncol(D$X), radii = nrow(cv$cv),
                    cpu_cg = stats::median(co), cpu_glmnet = stats::median(cg),
                    cpu_ratio = stats::median(co) / stats::median(cg), gc_cg = mean(gcs),
                    load = strsplit(readLines("/proc/loadavg"), " ")[[1]][1])
  print(row, digits = 3)
  res <- rbind(res, row)
}
if (nzchar(Sys.getenv("STOCHCG_BENCH_SAVE"))) saveRDS(saved, Sys.getenv("STOCHCG_BENCH_SAVE"))
dir.create("inst/bench/results", showWarnings = FALSE, recursive = TRUE)
writeLines(c(bench_header("cv_sparse_regression against cv.glmnet on designs no other bench uses"),
             sprintf("`inst/bench/cv_regression_newdata.R`, %d calls of each per case.", reps), "",
             md_shown(res)), "inst/bench/results/cv_regression_newdata.md")
