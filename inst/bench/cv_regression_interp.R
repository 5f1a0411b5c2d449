# The default CV (cv_sparse_regression(), standardize = TRUE, and FALSE)
# against glmnet::cv.glmnet() (same folds, same standardize) on p >> n and
# n >> p designs, with the fold fits' iterations (issue 25, branch
# lassointerp: the warm interpolating fold fits that ran to 10^4 pairwise
# steps). Two builds side by side: each design's CVs run in a fresh
# Rscript per build (LIBS = comma-separated library paths, labelled by
# LABELS, else their basenames), alternated, so both see the same load.
# Per design x standardize x build: CPU (user + sys) and wall seconds of
# cv_sparse_regression() and of cv.glmnet() in the same process, their
# ratio, the CV's rows and choices (radius.min, radius.1se), whether every
# fit converged, and the fold fits' iterations: each fold's path replayed
# by sparse_regression() over the CV's final radii (warm along the path as
# the CV's fold paths are; the refinement's radii included in order), the
# largest count and the number of fits above 500.
# The 17 designs of inst/bench/cv_refine_warm.R, and 6 it does not use
# (other genes as the response).
#
#   LIBS=/tmp/lib_main,/tmp/lib_branch LABELS=main,branch \\
#     Rscript inst/bench/cv_regression_interp.R
#   (CASES=a,b to select; OUT = the .rds of the table)
args <- commandArgs(trailingOnly = TRUE)
defs <- function() {
  Sys.setenv(STOCHCG_BENCH_DEFS_ONLY = "1", STOCHCG_BENCH_SIZES = "none")
  if (!nzchar(Sys.getenv("STOCHCG_RIBOFLAVIN")))
    Sys.setenv(STOCHCG_RIBOFLAVIN = "/tmp/rs/riboflavin.RData")
  source("inst/bench/cv_regression_wide.R", local = globalenv())
  sim2 <- function(n, p, seed) simulated(n, p, seed)()
  gene <- function(M, j) list(X = M[, -j], y = M[, j])
  pls <- function(nm, j = 1) function() {
    e <- new.env(); utils::data(list = nm, package = "plsgenomics", envir = e); gene(e[[nm]]$X, j)
  }
  islr <- function(nm, get, j) function() {
    e <- new.env(); utils::data(list = nm, package = "ISLR", envir = e); gene(get(e[[nm]]), j)
  }
  spls <- function(nm, j) function() {
    e <- new.env(); utils::data(list = nm, package = "spls", envir = e); gene(e[[nm]]$x, j)
  }
  list(
    riboflavin = function() ribo(),
    lymphoma = function() datasets[["lymphoma gene 1"]](),
    NCI60 = function() datasets[["NCI60 gene 1"]](),
    colon = function() datasets[["Colon gene 1"]](),
    khan = function() datasets[["Khan gene 1"]](),
    prostate = function() datasets[["prostate gene 1"]](),
    leukemia = pls("leukemia"), SRBCT = pls("SRBCT"),
    s50x500 = function() sim2(50, 500, 1), s100x2000 = function() sim2(100, 2000, 1),
    s200x5000 = function() sim2(200, 5000, 1), s2000x5000 = function() sim2(2000, 5000, 1),
    s5000x500 = function() sim2(5000, 500, 1),
    s100x2000b = function() sim2(100, 2000, 2), s200x5000b = function() sim2(200, 5000, 3),
    s1000x3000b = function() sim2(1000, 3000, 4), s300x1000b = function() sim2(300, 1000, 5),
    # not in any other bench
    leukemia_g2 = pls("leukemia", 2), SRBCT_g2 = pls("SRBCT", 2),
    NCI60_g2 = islr("NCI60", function(d) d$data, 2),
    khan_g2 = islr("Khan", function(d) rbind(d$xtrain, d$xtest), 2),
    prostate_g2 = spls("prostate", 2), colon_g2 = pls("Colon", 2))
}

if (length(args) && args[1] == "worker") {
  # one design, both standardize settings, in this process's build
  suppressPackageStartupMessages({ library(stochcg); library(glmnet) })
  d <- defs()[[args[2]]]()
  sp <- split_case(d)
  cpu_of <- function(t) t[["user.self"]] + t[["sys.self"]]
  rows <- list()
  for (std in c(TRUE, FALSE)) {
    gc(); t0 <- proc.time()
    cv <- suppressWarnings(cv_sparse_regression(sp$X, sp$y, folds = sp$foldid, standardize = std))
    t1 <- proc.time() - t0
    gc(); t0 <- proc.time()
    g <- glmnet::cv.glmnet(sp$X, sp$y, foldid = sp$foldid, standardize = std)
    t2 <- proc.time() - t0
    r <- cv$cv$radius
    its <- unlist(lapply(1:10, function(k) {
      i <- sp$foldid != k
      suppressWarnings(sparse_regression(sp$X[i, ], sp$y[i], radius = r,
                                         standardize = std))$summary$iterations
    }))
    rows[[length(rows) + 1L]] <- data.frame(
      design = args[2], n = nrow(sp$X), p = ncol(sp$X), std = std, build = args[3],
      cpu = cpu_of(t1), glmnet_cpu = cpu_of(t2), ratio = cpu_of(t1) / cpu_of(t2),
      wall = t1[["elapsed"]], glmnet_wall = t2[["elapsed"]], rows = nrow(cv$cv),
      all_conv = all(cv$cv$converged), max_its = max(its), fits_500 = sum(its > 500),
      rmin = cv$radius.min, r1se = cv$radius.1se,
      load = strsplit(readLines("/proc/loadavg"), " ")[[1]][1])
  }
  saveRDS(do.call(rbind, rows), args[4])
  quit(save = "no")
}

libs <- strsplit(Sys.getenv("LIBS"), ",")[[1]]
stopifnot(length(libs) >= 1)
labels <- if (nzchar(Sys.getenv("LABELS"))) strsplit(Sys.getenv("LABELS"), ",")[[1]] else basename(libs)
cases <- names(defs())
only <- Sys.getenv("CASES"); if (nzchar(only)) cases <- strsplit(only, ",")[[1]]
me <- "inst/bench/cv_regression_interp.R"
rows <- list()
for (i in seq_along(cases)) {
  ord <- if (i %% 2) seq_along(libs) else rev(seq_along(libs))
  for (l in ord) {
    f <- tempfile(fileext = ".rds")
    st <- system2("Rscript", c(me, "worker", cases[i], labels[l], f),
                  env = paste0("R_LIBS=", libs[l]))
    if (st != 0 || !file.exists(f)) { cat(cases[i], labels[l], "failed\n"); next }
    x <- readRDS(f); print(x, row.names = FALSE, digits = 4); flush.console()
    rows[[length(rows) + 1L]] <- x
  }
}
tab <- do.call(rbind, rows)
saveRDS(tab, Sys.getenv("OUT", "/tmp/cv_regression_interp.rds"))
# side by side: the builds' CPU, ratio to glmnet, max fold iterations, choices
b <- unique(tab$build)
key <- paste(tab$design, tab$std)
wide <- do.call(rbind, lapply(unique(key), function(k) {
  s <- tab[key == k, ]
  out <- s[1, c("design", "n", "p", "std")]
  for (bb in b) {
    r <- s[s$build == bb, ]
    if (!nrow(r)) next
    out[[paste0("cpu.", bb)]] <- r$cpu; out[[paste0("glmnet.", bb)]] <- r$glmnet_cpu
    out[[paste0("ratio.", bb)]] <- r$ratio
    out[[paste0("maxit.", bb)]] <- r$max_its; out[[paste0("n500.", bb)]] <- r$fits_500
    out[[paste0("conv.", bb)]] <- r$all_conv
  }
  if (length(b) == 2 && all(b %in% s$build))
    out$same_choice <- identical(s$rmin[s$build == b[1]], s$rmin[s$build == b[2]]) &&
      identical(s$r1se[s$build == b[1]], s$r1se[s$build == b[2]])
  out
}))
cat("\nload:", readLines("/proc/loadavg"), "\n")
print(wide, row.names = FALSE, digits = 3)
