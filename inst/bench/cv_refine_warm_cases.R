# cv_regression_cases.R's cases timed with the refinement's fold paths
# cold (options(stochcg.cv_refine_warm = FALSE)) and warm (TRUE), and
# cv.glmnet on the same folds: the three alternated REPS times in one
# process, a full collection (not timed) before each call; median CPU
# seconds (user + sys) and wall, the ratio to cv.glmnet, whether the
# choices are identical, and how many radii the refinement added.
#   Rscript inst/bench/cv_refine_warm_cases.R   (STOCHCG_BENCH_CASES, _REPS)
suppressPackageStartupMessages(library(stochcg))
stopifnot(requireNamespace("glmnet", quietly = TRUE))
Sys.setenv(STOCHCG_BENCH_DEFS_ONLY = "1", STOCHCG_BENCH_SIZES = "none")
source("inst/bench/cv_regression_wide.R")       # simulated(), split_case(), datasets
make_case <- function(case) {                   # (as cv_regression_cases.R)
  std <- c(std1000 = "1000x200", std200 = "200x2000")
  sims <- c(s4000 = "5000x500", s2000 = "2000x5000", s160 = "200x5000", s80 = "100x2000", s40 = "50x500")
  if (case %in% names(std)) {
    np <- as.integer(strsplit(std[[case]], "x")[[1]])
    d <- simulated(np[1], np[2])()
    set.seed(1)
    return(list(X = d$X, y = d$y, f = sample(rep_len(1:10, np[1])), std = TRUE))
  }
  np <- as.integer(strsplit(sims[[case]], "x")[[1]])
  sp <- split_case(simulated(np[1], np[2])())
  list(X = sp$X, y = sp$y, f = sp$foldid, std = FALSE)
}
cases <- strsplit(Sys.getenv("STOCHCG_BENCH_CASES", "std1000,std200,s4000"), ",")[[1]]
reps <- max(1L, as.integer(Sys.getenv("STOCHCG_BENCH_REPS", "5")))
timed <- function(f) {
  invisible(gc())
  t0 <- proc.time(); v <- f(); t <- proc.time() - t0
  list(v = v, cpu = t[["user.self"]] + t[["sys.self"]], wall = t[["elapsed"]])
}
res <- NULL
for (case in cases) {
  D <- make_case(case)
  ours <- function(warm) function() {
    op <- options(stochcg.cv_refine_warm = warm); on.exit(options(op))
    suppressWarnings(cv_sparse_regression(D$X, D$y, folds = D$f, standardize = D$std))
  }
  theirs <- function() glmnet::cv.glmnet(D$X, D$y, foldid = D$f, standardize = D$std)
  plain <- local({ op <- options(stochcg.cv_refine = FALSE); on.exit(options(op)); ours(FALSE)() })
  invisible(ours(TRUE)()); invisible(theirs())
  cpu <- wall <- matrix(NA, reps, 3, dimnames = list(NULL, c("cold", "warm", "glmnet")))
  for (i in seq_len(reps)) {
    for (j in if (i %% 2) 1:3 else 3:1) {
      r <- timed(switch(j, ours(FALSE), ours(TRUE), theirs))
      cpu[i, j] <- r$cpu; wall[i, j] <- r$wall
      if (j == 1) cold <- r$v
      if (j == 2) warm <- r$v
    }
  }
  med <- apply(cpu, 2, stats::median); medw <- apply(wall, 2, stats::median)
  row <- data.frame(case = case, n = nrow(D$X), p = ncol(D$X), added = nrow(cold$cv) - nrow(plain$cv),
                    same_choice = identical(cold$radius.min, warm$radius.min) &&
                      identical(cold$radius.1se, warm$radius.1se),
                    cpu_cold = med[["cold"]], cpu_warm = med[["warm"]], cpu_glmnet = med[["glmnet"]],
                    ratio_cold = med[["cold"]] / med[["glmnet"]],
                    ratio_warm = med[["warm"]] / med[["glmnet"]],
                    wall_cold = medw[["cold"]], wall_warm = medw[["warm"]], wall_glmnet = medw[["glmnet"]],
                    load = strsplit(readLines("/proc/loadavg"), " ")[[1]][1])
  print(row, digits = 3); flush.console()
  res <- rbind(res, row)
}
print(res, digits = 3, row.names = FALSE)
saveRDS(res, Sys.getenv("OUT", "/tmp/lassorefine_cases.rds"))
