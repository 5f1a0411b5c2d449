# Issue 27, "Beyond one machine": the default cross-validated
# sparse_covariance(X) at p = 5000, n = 60 (the simulated 3-factor plus MA(1)
# training rows of covariance_lowrank_cv.R, sim_split()) with its folds
# under future plans, side by side in one run:
#   sequential     plan(sequential) (the default now: the folds in this process)
#   multicore2     plan(multicore, workers = 2) (forked workers)
#   multisession2  plan(cluster) of 2 background R sessions (= multisession;
#                  made with parallelly so that the workers' CPU can be read)
#   old_forks      the package as installed in CVFUT_OLD_LIB (main before
#                  the change: the folds forked by parallel::mclapply on 2
#                  cores, its default at p >= 300), if that variable is set
# Each run is a child process (`Rscript inst/bench/cv_future.R --child
# <mode>`); wall and CPU seconds of the call (CPU: this process plus its
# forked children, or plus the multisession workers' /proc CPU), the
# 1-minute load at its start and end, and whether its CV table and estimate
# are identical() to the sequential run's. Writes
# inst/bench/results/cv_future.md. Run from the package root (stochcg
# installed, with future.apply and parallelly):
#   CVFUT_OLD_LIB=/tmp/lib_main Rscript inst/bench/cv_future.R
# (CVFUT_P, CVFUT_N change the shape; CVFUT_MODES the modes run,
# CVFUT_REPS the repetitions, default 2.)
args <- commandArgs(TRUE)
p <- as.integer(Sys.getenv("CVFUT_P", "5000"))
n <- as.integer(Sys.getenv("CVFUT_N", "60"))
load1 <- function() as.numeric(strsplit(readLines("/proc/loadavg"), " ")[[1]][1])
# covariance_lowrank_cv.R's generator, evaluated from its source (not duplicated)
for (e in parse("inst/bench/covariance_lowrank_cv.R", keep.source = FALSE))
  if (is.call(e) && identical(e[[1]], as.name("<-")) && identical(e[[2]], as.name("sim_split")))
    eval(e)

if (identical(args[1], "--child")) {
  mode <- args[2]; out <- args[3]
  suppressPackageStartupMessages(library(stochcg))
  X <- sim_split(p = p, n = n)$train
  proc_cpu <- function(pids) sum(vapply(pids, function(pid) {
    f <- sprintf("/proc/%d/stat", pid)
    if (!file.exists(f)) return(NA_real_)
    st <- strsplit(sub("^.*\\) ", "", readLines(f)), " ")[[1]]
    (as.numeric(st[12]) + as.numeric(st[13])) / 100    # utime + stime, clock ticks
  }, 0))
  pids <- integer(0)
  if (mode == "multicore2") future::plan(future::multicore, workers = 2)
  if (mode == "multisession2") {
    cl <- parallelly::makeClusterPSOCK(2L)
    pids <- unlist(parallel::clusterCall(cl, Sys.getpid))
    future::plan(future::cluster, workers = cl)
  }
  worker_cpu0 <- proc_cpu(pids)
  load0 <- load1()
  t0 <- proc.time()
  set.seed(1)
  fit <- sparse_covariance(X)
  pt <- proc.time() - t0
  cpu <- sum(pt[c("user.self", "sys.self", "user.child", "sys.child")], na.rm = TRUE) +
    proc_cpu(pids) - worker_cpu0
  saveRDS(list(mode = mode, version = format(packageVersion("stochcg")),
               lib = dirname(find.package("stochcg")), wall = pt[["elapsed"]], cpu = cpu,
               load = sprintf("%.1f-%.1f", load0, load1()), cv = fit$cv,
               Sigma = fit$solution$Sigma, lambda = fit$lambda, shrink = fit$shrink,
               fits = sum(fit$cv$n_folds, na.rm = TRUE)), out)
  quit(save = "no")
}

modes <- c("sequential", "multicore2", "multisession2",
           if (nzchar(Sys.getenv("CVFUT_OLD_LIB"))) "old_forks")
if (nzchar(Sys.getenv("CVFUT_MODES"))) modes <- strsplit(Sys.getenv("CVFUT_MODES"), ",")[[1]]
reps <- as.integer(Sys.getenv("CVFUT_REPS", "2"))
res <- list()
# the modes interleaved, their order rotated each repetition (the load of
# the shared machine drifts)
for (rep in seq_len(reps)) for (mode in modes[(seq_along(modes) + rep - 2L) %% length(modes) + 1L]) {
  out <- tempfile(fileext = ".rds")
  env <- if (mode == "old_forks") paste0("R_LIBS=", Sys.getenv("CVFUT_OLD_LIB")) else character()
  system2("Rscript", c("inst/bench/cv_future.R", "--child", mode, out), env = env)
  r <- readRDS(out)
  r$rep <- rep
  res[[length(res) + 1L]] <- r
  cat(sprintf("%-14s rep %d  wall %6.1f s  CPU %6.1f s  load %s\n", mode, rep, r$wall, r$cpu,
              r$load))
}
ref <- Filter(function(r) r$mode == "sequential", res)[[1]]
same <- function(r) identical(r$cv, ref$cv) && identical(r$Sigma, ref$Sigma)
rows <- vapply(res, function(r) sprintf("| %s | %d | %.1f | %.1f | %s | %d | %.4g | %.3g | %s |",
                                         r$mode, r$rep, r$wall, r$cpu, r$load, r$fits,
                                         r$lambda, r$shrink, same(r)), "")
med <- vapply(modes, function(m) {
  rr <- Filter(function(r) r$mode == m, res)
  sprintf("| %s | %.1f | %.1f |", m, stats::median(vapply(rr, `[[`, 0, "wall")),
          stats::median(vapply(rr, `[[`, 0, "cpu")))
}, "")
md <- c("# The default covariance CV under future plans (issue 27)", "",
        sprintf(paste("`inst/bench/cv_future.R`, %s, R %s; `sparse_covariance(X)` (defaults:",
                      "5 folds, shrinkage and lambda chosen by CV) on the simulated p = %d,",
                      "n = %d training rows of `covariance_lowrank_cv.R` (3 factors plus MA(1)",
                      "noise), `set.seed(1)`. One child process per row, run one after the",
                      "other (%d repetitions, the modes interleaved); wall and CPU seconds of",
                      "the call (CPU: the process, its forked children and the multisession",
                      "workers), 1-minute load average at the call's start and end on the 2",
                      "cores shared with other jobs. `identical`: CV table (with its",
                      "attributes) and estimate identical() to the first sequential row's."),
                format(Sys.Date()), getRversion(), p, n, reps), "",
        "| folds run by | rep | wall s | CPU s | load | fold fits | lambda | shrink | identical |",
        "|---|---:|---:|---:|---|---:|---:|---:|---|", rows, "",
        "Medians:", "", "| folds run by | wall s | CPU s |", "|---|---:|---:|", med)
writeLines(md, "inst/bench/results/cv_future.md")
cat(md, sep = "\n")
