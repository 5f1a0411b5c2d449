# A few cv_regression_wide.R cases timed more steadily: each case's CV, ours
# and cv.glmnet() (the same folds), alternated REPS times in one process,
# median CPU seconds (user + sys) of each and their ratio, with our mean GC
# seconds per CV and the 1-minute load. For comparing two builds, run it
# once per build's library, alternating the processes (see
# results/cv_regression_lassor2.md), e.g.
#   R_LIBS=/tmp/lib_a STOCHCG_BENCH_NOTE=a Rscript inst/bench/cv_regression_cases.R
# Cases (STOCHCG_BENCH_CASES, comma-separated): std1000 / std200 (the
# standardized defaults of both on simulated 1000 x 200 / 200 x 2000, all
# rows), s4000 / s2000 / s160 / s80 / s40 (simulated 5000 x 500, 2000 x 5000, 200 x 5000,
# 100 x 2000, 50 x 500: 80% training rows, standardize = FALSE), colon /
# khan / prostate (gene 1 as response, as cv_regression_wide.R).
suppressPackageStartupMessages(library(stochcg))
stopifnot(requireNamespace("glmnet", quietly = TRUE))
Sys.setenv(STOCHCG_BENCH_DEFS_ONLY = "1", STOCHCG_BENCH_SIZES = "none")
source("inst/bench/cv_regression_wide.R")       # simulated(), split_case(), datasets
make_case <- function(case) {
  std <- c(std1000 = "1000x200", std200 = "200x2000")
  sims <- c(s4000 = "5000x500", s2000 = "2000x5000", s160 = "200x5000", s80 = "100x2000", s40 = "50x500")
  real <- c(prostate = "prostate gene 1", khan = "Khan gene 1", colon = "Colon gene 1")
  if (case %in% names(std)) {
    np <- as.integer(strsplit(std[[case]], "x")[[1]])
    d <- simulated(np[1], np[2])()
    set.seed(1)
    return(list(X = d$X, y = d$y, f = sample(rep_len(1:10, np[1])), std = TRUE))
  }
  d <- if (case %in% names(sims)) {
    np <- as.integer(strsplit(sims[[case]], "x")[[1]])
    simulated(np[1], np[2])()
  } else if (case %in% names(real) && !is.null(datasets[[real[[case]]]])) datasets[[real[[case]]]]()
  if (is.null(d)) return(NULL)
  sp <- split_case(d)
  list(X = sp$X, y = sp$y, f = sp$foldid, std = FALSE)
}
cases <- strsplit(Sys.getenv("STOCHCG_BENCH_CASES", "std1000,std200,s4000,s160,s80,s40,prostate,khan,colon"), ",")[[1]]
reps <- max(1L, as.integer(Sys.getenv("STOCHCG_BENCH_REPS", "5")))
# STOCHCG_BENCH_GC=1: a full collection (not timed) before every timed call,
# so that neither call pays for the other's garbage (alternated in one
# process, a call that allocates less on R's heap leaves the collections to
# the next: cv_regression_lassokeep.md)
clean <- identical(Sys.getenv("STOCHCG_BENCH_GC"), "1")
cpu <- function(f) { t0 <- proc.time(); f(); t <- proc.time() - t0; t[["user.self"]] + t[["sys.self"]] }
res <- NULL
for (case in cases) {
  D <- make_case(case)
  if (is.null(D)) next
  ours <- function() suppressWarnings(cv_sparse_regression(D$X, D$y, folds = D$f, standardize = D$std))
  theirs <- function() glmnet::cv.glmnet(D$X, D$y, foldid = D$f, standardize = D$std)
  invisible(ours()); invisible(theirs())
  co <- cg <- gcs <- numeric(reps)
  for (i in seq_len(reps)) {
    if (clean) invisible(gc())
    g0 <- gc.time()[1]
    co[i] <- cpu(ours)
    gcs[i] <- gc.time()[1] - g0
    if (clean) invisible(gc())
    cg[i] <- cpu(theirs)
  }
  row <- data.frame(case = case, n = nrow(D$X), p = ncol(D$X), cpu_cg = stats::median(co),
                    cpu_glmnet = stats::median(cg), cpu_ratio = stats::median(co) / stats::median(cg),
                    gc_cg = mean(gcs), load = strsplit(readLines("/proc/loadavg"), " ")[[1]][1])
  print(row, digits = 3)
  res <- rbind(res, row)
}
dir.create("inst/bench/results", showWarnings = FALSE, recursive = TRUE)
writeLines(c(bench_header("cv_sparse_regression against cv.glmnet: medians of alternated calls"),
             sprintf("`inst/bench/cv_regression_cases.R`, %d calls of each per case%s.", reps,
                     if (clean) ", a full collection before each" else ""), "",
             md_shown(res)), "inst/bench/results/cv_regression_cases.md")
