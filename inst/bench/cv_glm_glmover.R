# The binomial/Poisson CV's R side (issue 25, branch glmover): one process
# per build, alternated by the caller (STOCHCG_BENCH_LIB names the library
# in the output). Per data set: one warm-up call of each, then `reps`
# (STOCHCG_BENCH_REPS, default 3) calls of cv.glmnet and of
# cv_sparse_regression, alternated, each after a full gc() (not timed: a
# clean heap, as cv_regression_cases.R's STOCHCG_BENCH_GC=1); medians of
# CPU (user + sys) and wall seconds, our CV's gc.time() (median, and the
# means of CPU and GC: a full collection, ~0.17 s here, is rare), the
# X-sized allocations on R's heap of one CV (Rprofmem), and the CV object
# saved (STOCHCG_BENCH_SAVE, an .rds) for an identical() check between builds.
#
# Run from the repository root:  Rscript inst/bench/cv_glm_glmover.R
# (STOCHCG_BENCH_DATA = "epil,Pima x2" for a subset)
suppressPackageStartupMessages(library(stochcg))
stopifnot(requireNamespace("glmnet", quietly = TRUE))
Sys.setenv(STOCHCG_BENCH_DEFS_ONLY = "1")
source("inst/bench/cv_regression_wide.R")        # split_case()
for (e in parse("inst/bench/cv_regression_grid.R"))
  if (is.call(e) && identical(e[[1]], as.name("<-")) && identical(e[[2]], as.name("glm_sim")))
    eval(e)
pkg <- function(p, name, make) function() {
  if (!requireNamespace(p, quietly = TRUE)) return(NULL)
  e <- new.env()
  utils::data(list = name, package = p, envir = e)
  make(e[[name]])
}
products <- function(X) {
  X <- scale(X)
  P <- combn(ncol(X), 2, function(ij) X[, ij[1]] * X[, ij[2]])
  unname(cbind(X, P))
}
cases <- list(
  epil = list("poisson", pkg("MASS", "epil", function(d) {
    X <- model.matrix(y ~ (lbase + lage + trt + V4)^2 + factor(subject), d)[, -1]
    list(X = X[, colSums(X != 0) > 0], y = d$y)
  })),
  "Pima x2" = list("binomial", pkg("MASS", "Pima.tr", function(d) {
    d <- rbind(d, MASS::Pima.te)
    list(X = products(as.matrix(d[, 1:7])), y = as.double(d$type == "Yes"))
  })),
  brca = list("binomial", pkg("dslabs", "brca", function(d)
    list(X = d$x, y = as.double(d$y == "M")))),
  quine = list("poisson", pkg("MASS", "quine", function(d) {
    X <- model.matrix(Days ~ Eth * Sex * Age * Lrn, d)[, -1]
    list(X = X[, colSums(X != 0) > 0], y = d$Days)
  })),
  "binomial 200x2000" = list("binomial", glm_sim(200, 2000, "binomial")),
  "poisson 200x2000" = list("poisson", glm_sim(200, 2000, "poisson")),
  "Khan class 2" = list("binomial", pkg("ISLR", "Khan", function(d)
    list(X = rbind(d$xtrain, d$xtest), y = as.double(c(d$ytrain, d$ytest) == 2)))),
  "binomial 2000x100" = list("binomial", glm_sim(2000, 100, "binomial")),
  # two sets no other bench uses (added by glmpois): MASS::biopsy (malignant,
  # the 9 cytology scores and their pairwise products; rows without NA) and
  # boot::aids (reported AIDS cases by quarter of diagnosis and reporting delay)
  "biopsy x2" = list("binomial", pkg("MASS", "biopsy", function(d) {
    d <- d[stats::complete.cases(d), ]
    list(X = products(as.matrix(d[, 2:10])), y = as.double(d$class == "malignant"))
  })),
  aids = list("poisson", pkg("boot", "aids", function(d) {
    X <- model.matrix(y ~ factor(time) + factor(delay) + dud, d)[, -1]
    list(X = X[, colSums(X != 0) > 0], y = d$y)
  })))
only <- Sys.getenv("STOCHCG_BENCH_DATA")
if (nzchar(only)) cases <- cases[intersect(names(cases), strsplit(only, ",")[[1]])]
reps <- as.integer(Sys.getenv("STOCHCG_BENCH_REPS", "3"))
lib <- Sys.getenv("STOCHCG_BENCH_LIB", "installed")

big_allocations <- function(f, bytes) {
  file <- tempfile(); on.exit(unlink(file))
  utils::Rprofmem(file, threshold = bytes); f(); utils::Rprofmem(NULL)
  out <- readLines(file)
  sum(grepl("^[0-9]+ :", out) & suppressWarnings(as.numeric(sub(" :.*", "", out))) >= bytes)
}
# STOCHCG_BENCH_GC=0: no gc() before a timed call (the calls one after the
# other, as a user's session runs them: each pays the collections that the
# allocations so far trigger)
clean <- !identical(Sys.getenv("STOCHCG_BENCH_GC"), "0")
timed_cpu <- function(f) {
  if (clean) invisible(gc())
  g0 <- gc.time()[1]; t0 <- proc.time(); f(); t <- proc.time() - t0
  c(cpu = t[["user.self"]] + t[["sys.self"]], wall = t[["elapsed"]], gc = gc.time()[1] - g0)
}
res <- NULL
saved <- list()
for (name in names(cases)) {
  family <- cases[[name]][[1]]
  d <- cases[[name]][[2]]()
  if (is.null(d)) next
  sp <- split_case(d, 1)
  ours <- function() suppressWarnings(cv_sparse_regression(sp$X, sp$y, folds = sp$foldid,
                                                           family = family))
  theirs <- function() glmnet::cv.glmnet(sp$X, sp$y, foldid = sp$foldid, family = family)
  cv <- ours(); invisible(theirs())
  saved[[name]] <- cv
  nbig <- big_allocations(ours, 8 * floor(nrow(sp$X) * 0.85) * ncol(sp$X))
  o <- g <- NULL
  for (r in seq_len(reps)) { g <- rbind(g, timed_cpu(theirs)); o <- rbind(o, timed_cpu(ours)) }
  med <- function(m, k) stats::median(m[, k])
  res <- rbind(res, data.frame(data = name, n = nrow(sp$X), p = ncol(sp$X), family = family,
    cpu = med(o, "cpu"), wall = med(o, "wall"), gc = med(o, "gc"),
    cpu_mean = mean(o[, "cpu"]), gc_mean = mean(o[, "gc"]),
    glmnet_cpu = med(g, "cpu"), ratio = med(o, "cpu") / med(g, "cpu"),
    x_allocs = nbig, load = as.numeric(strsplit(readLines("/proc/loadavg"), " ")[[1]][1]),
    check.names = FALSE))
}
res$build <- lib
print(res, digits = 4)
out <- Sys.getenv("STOCHCG_BENCH_SAVE")
if (nzchar(out)) saveRDS(list(table = res, cv = saved), out)
