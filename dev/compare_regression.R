# Are the results of sparse_regression() and cv_sparse_regression() the
# same bit for bit between two builds (issue 25, branch lassor: the R-side
# cost cut must not change a result)?
#
#   R_LIBS=/tmp/lib_old Rscript dev/compare_regression.R run /tmp/old.rds
#   R_LIBS=/tmp/lib_new Rscript dev/compare_regression.R run /tmp/new.rds
#   Rscript dev/compare_regression.R compare /tmp/old.rds /tmp/new.rds
#
# Each case's result is kept whole but for what depends on the clock: every
# element named time / solver_time / call, and the traces (their rows are
# the evaluations made "when time allows", which vary between runs; the
# fits' last rows, objective and gap, are kept as the fits' own elements)
# and the solver states (their evaluation-schedule counters differ between
# two runs of one build: measured on main).
# `compare` prints identical() per case and the largest difference where
# one is not.
args <- commandArgs(trailingOnly = TRUE)

drop_names <- c("time", "solver_time", "call", "trace", "state")
strip <- function(x) {
  if (is.data.frame(x)) return(x[setdiff(names(x), "time")])
  if (is.list(x)) {
    a <- attributes(x)
    x <- x[!names(x) %in% drop_names]
    x <- lapply(x, strip)
    attributes(x) <- c(attributes(x), a[setdiff(names(a), c("names"))])
    if (!is.null(a$names)) names(x) <- a$names[!a$names %in% drop_names]
    return(x)
  }
  x
}

cases <- function() {
  suppressPackageStartupMessages({ library(stochcg); library(Matrix) })
  out <- list()
  sim <- function(n, p, seed = 1) {
    set.seed(seed)
    X <- matrix(rnorm(n * 5), n) %*% matrix(rnorm(5 * p), 5) + matrix(rnorm(n * p), n)
    y <- drop(X[, 1:10] %*% rnorm(10, sd = 2) + rnorm(n))
    list(X = X, y = y)
  }
  e <- new.env(); utils::data("Colon", package = "plsgenomics", envir = e)
  colon <- list(X = e$Colon$X[, -1], y = e$Colon$X[, 1], cls = e$Colon$Y - 1)
  e <- new.env(); utils::data("Khan", package = "ISLR", envir = e)
  khan <- rbind(e$Khan$xtrain, e$Khan$xtest)
  khan <- list(X = khan[, -1], y = khan[, 1],
               cls = as.double(c(e$Khan$ytrain, e$Khan$ytest) == 2))
  ids <- function(n, seed = 1) { set.seed(seed); sample(rep_len(1:10, n)) }
  s40 <- sim(40, 500); s80 <- sim(80, 2000); s60 <- sim(60, 4000); s200 <- sim(200, 2000)
  s1000 <- sim(1000, 200); s4000 <- sim(4000, 50)
  cv <- function(...) suppressWarnings(cv_sparse_regression(...))
  # gaussian, raw scale (standardize = FALSE), as cv_regression_wide.R
  out$colon_raw <- cv(colon$X, colon$y, folds = ids(62), standardize = FALSE)
  out$khan_raw <- cv(khan$X, khan$y, folds = ids(83), standardize = FALSE)
  out$s40_raw <- cv(s40$X, s40$y, folds = ids(40), standardize = FALSE)
  out$s80_raw <- cv(s80$X, s80$y, folds = ids(80), standardize = FALSE)
  # standardized defaults
  out$s60_std <- cv(s60$X, s60$y, folds = ids(60))
  out$s200_std <- cv(s200$X, s200$y, folds = ids(200))
  out$s1000_std <- cv(s1000$X, s1000$y, folds = ids(1000))
  out$colon_std <- cv(colon$X, colon$y, folds = ids(62))
  # n > p: the folds' X'X / n from the full data's (branch lassofold)
  out$s1000_raw <- cv(s1000$X, s1000$y, folds = ids(1000), standardize = FALSE)
  out$s4000_raw <- cv(s4000$X, s4000$y, folds = ids(4000), standardize = FALSE)
  out$s1000_noint <- cv(s1000$X, s1000$y, folds = ids(1000), intercept = FALSE)
  out$s1000_pf2 <- cv(s1000$X, s1000$y, folds = ids(1000), penalty.factor = c(2, rep(1, 199)))
  # no intercept; given radii; lean off
  out$s40_noint <- cv(s40$X, s40$y, folds = ids(40), intercept = FALSE)
  out$s40_given <- cv(s40$X, s40$y, folds = ids(40), radius = c(1, 3, 10, 30, 60))
  op <- options(stochcg.lean_cv = FALSE)
  out$s40_whole <- cv(s40$X, s40$y, folds = ids(40))
  options(op)
  # weights, penalty factors (the "project" kind), sparse X
  set.seed(3); w <- runif(40, 0.5, 2)
  out$s40_w <- cv(s40$X, s40$y, folds = ids(40), weights = w)
  pf <- c(0, rep(1, 499))
  out$s40_pf <- cv(s40$X, s40$y, folds = ids(40), penalty.factor = pf)
  pf2 <- c(2, rep(1, 499))
  out$s40_pf2 <- cv(s40$X, s40$y, folds = ids(40), penalty.factor = pf2)
  set.seed(4)
  Xs <- rsparsematrix(300, 400, 0.05)
  ys <- drop(Xs[, 1:5] %*% c(2, -1, 1, 1, -2)) + rnorm(300)
  out$sparse_std <- cv(Xs, ys, folds = ids(300))
  out$sparse_raw <- cv(Xs, ys, folds = ids(300), standardize = FALSE)
  # binomial and poisson
  out$colon_bin <- cv(colon$X, colon$cls, family = "binomial", folds = ids(62))
  out$khan_bin <- cv(khan$X, khan$cls, family = "binomial", folds = ids(83),
                     type.measure = "class")
  set.seed(5)
  yp <- rpois(80, exp(0.3 * s80$X[, 1] / sd(s80$X[, 1])))
  out$s80_pois <- cv(s80$X, yp, family = "poisson", folds = ids(80))
  set.seed(6)
  yb <- rbinom(4000, 1, plogis(s4000$X[, 1:3] %*% c(0.5, -0.5, 0.3) / 3))
  out$s4000_bin <- cv(s4000$X, yb, family = "binomial", folds = ids(4000))
  ybs <- rbinom(300, 1, plogis(drop(Xs[, 1:5] %*% c(2, -1, 1, 1, -2))))
  out$sparse_bin <- cv(Xs, ybs, family = "binomial", folds = ids(300))
  out$s40_bin_w <- cv(s40$X, as.double(s40$y > 0), family = "binomial", folds = ids(40),
                      weights = w)
  # single fits and paths
  fit <- function(...) suppressWarnings(sparse_regression(...))
  out$f_colon_raw <- fit(colon$X, colon$y, 5000, standardize = FALSE)
  out$f_colon_std <- fit(colon$X, colon$y, 2)
  out$f_s1000_std <- fit(s1000$X, s1000$y, 5)
  out$f_s4000_bin <- fit(s4000$X, yb, 1, family = "binomial")
  out$f_s4000_pois <- fit(s4000$X, rpois(4000, 2), 1, family = "poisson")
  out$f_s40_w <- fit(s40$X, s40$y, 10, weights = w)
  out$f_s40_pf <- fit(s40$X, s40$y, 10, penalty.factor = pf)
  out$f_sparse <- fit(Xs, ys, 3)
  out$f_sparse_bin <- fit(Xs, ybs, 3, family = "binomial")
  out$f_sparse_w <- fit(Xs, ys, 3, weights = runif(300))
  out$p_s80_std <- fit(s80$X, s80$y, c(1, 2, 4, 8))
  out$p_s80_raw <- fit(s80$X, s80$y, c(10, 20, 40), standardize = FALSE)
  out$p_colon_bin <- fit(colon$X, colon$cls, c(0.5, 1, 2, 4), family = "binomial")
  out$f_sfw <- fit(s1000$X, s1000$y, 5, method = "sfw", control = cg_control(max_iter = 200))
  out$f_warm <- fit(s1000$X, s1000$y, 6, init = out$f_s1000_std)
  out$f_resume <- fit(s1000$X, s1000$y, 5, init = fit(s1000$X, s1000$y, 5,
                                                       control = cg_control(max_iter = 5)))
  lapply(out, strip)
}

if (identical(args[1], "run")) {
  res <- cases()
  saveRDS(res, args[2])
  cat(length(res), "cases written to", args[2], "\n")
} else if (identical(args[1], "compare")) {
  a <- readRDS(args[2]); b <- readRDS(args[3])
  stopifnot(identical(names(a), names(b)))
  same <- vapply(names(a), function(k) identical(a[[k]], b[[k]]), NA)
  for (k in names(a)) {
    cat(sprintf("%-14s %s", k, if (same[[k]]) "identical" else "DIFFERENT"))
    if (!same[[k]]) cat(":", paste(utils::head(all.equal(a[[k]], b[[k]]), 3), collapse = "; "))
    cat("\n")
  }
  cat(sprintf("%d of %d cases identical()\n", sum(same), length(same)))
}
