# Completion fits of this build against another, identical() or not:
#   R_LIBS=<lib> Rscript dev/compare_completion.R save <file.rds>   (each build)
#   Rscript dev/compare_completion.R compare <a.rds> <b.rds>
# sfw/fw x center none/mean/both x gaussian/binomial/poisson, in memory and
# from a reader (data frame), plus resume (init), max_rank, effects_ridge;
# eval_every = 5 (a fixed schedule: no trace rows by the clock); times,
# calls and fit$reader$memory (a field added with memory = "low") ignored.
args <- commandArgs(TRUE)
strip <- function(f) {
  f$time <- NULL; f$call <- NULL; f$timing <- NULL; f$solver_time <- NULL
  if (!is.null(f$trace)) f$trace$time <- NULL
  f$reader$memory <- NULL          # new in mcfile ("fast" for these fits)
  f
}
if (args[1] == "save") {
  suppressPackageStartupMessages(library(stochcg))
  set.seed(1)
  m <- 60; n <- 40; N <- 1500
  i <- sample.int(m, N, TRUE); j <- sample.int(n, N, TRUE)
  eta <- 0.3 * (rnorm(m)[i] + rnorm(n)[j]) + 0.5 * rowSums(matrix(rnorm(m * 2), m)[i, ] *
                                                             matrix(rnorm(n * 2), n)[j, ])
  ys <- list(gaussian = eta + rnorm(N, sd = 0.3), binomial = as.numeric(runif(N) < plogis(eta)),
             poisson = rpois(N, exp(eta)))
  out <- list()
  for (fam in names(ys)) for (meth in c("sfw", "fw")) for (cen in c("none", "mean", "both")) {
    df <- data.frame(row = i, col = j, value = ys[[fam]])
    ctl <- cg_control(max_iter = 60, eval_every = 5)
    set.seed(7)
    f <- complete_matrix(df, radius = 15, family = fam, method = meth, center = cen,
                         dims = c(m, n), control = ctl)
    out[[paste(fam, meth, cen, "memory")]] <- strip(f)
    set.seed(7)
    g <- complete_matrix(entry_reader(df, block_size = 400), radius = 15, family = fam,
                         method = meth, center = cen, dims = c(m, n), control = ctl)
    out[[paste(fam, meth, cen, "reader")]] <- strip(g)
    if (meth == "sfw") {
      set.seed(7)
      h <- complete_matrix(df, radius = 15, family = fam, method = meth, center = cen,
                           dims = c(m, n), control = cg_control(max_iter = 30, eval_every = 5))
      h2 <- complete_matrix(df, radius = 15, family = fam, method = meth, center = cen,
                            dims = c(m, n), init = h, control = cg_control(max_iter = 30, eval_every = 5))
      out[[paste(fam, meth, cen, "resumed")]] <- strip(h2)
    }
  }
  df <- data.frame(row = i, col = j, value = ys$gaussian)
  set.seed(7)
  out$max_rank <- strip(complete_matrix(df, radius = 15, method = "fw", max_rank = 2,
                                        dims = c(m, n), control = cg_control(max_iter = 40, eval_every = 5)))
  set.seed(7)
  out$ridge <- strip(complete_matrix(df, radius = 15, method = "sfw", center = "both",
                                     effects_ridge = 0.1, dims = c(m, n),
                                     control = cg_control(max_iter = 40, eval_every = 5)))
  saveRDS(out, args[2])
} else {
  a <- readRDS(args[2]); b <- readRDS(args[3])
  stopifnot(identical(names(a), names(b)))
  same <- vapply(names(a), function(k) identical(a[[k]], b[[k]]), NA)
  for (k in names(a)[!same]) {
    cat("DIFFERS:", k, "\n"); print(all.equal(a[[k]], b[[k]]))
  }
  cat(sum(same), "of", length(same), "fits identical()\n")
}
