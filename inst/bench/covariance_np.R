# Covariance estimators at n > p: held-out Gaussian log-likelihood per row of
# stochcg::sparse_covariance()'s default call, two builds side by side (e.g.
# main and a branch), against the sample covariance, corpcor::cov.shrink,
# POET, PDSCE (lambda by 5-fold CV on held-out log-likelihood) and huge's
# graphical lasso (EBIC): the peers are inst/bench/covariance.R's, read from
# that file (one definition of each).
#
# Data sets (n > p, observations in rows, numeric columns; none used by the
# package's tests or its other covariance benchmarks but brca, issue 24's
# 30-variable set):
#  - brca:     dslabs::brca$x (569 x 30);
#  - College:  ISLR::College, numeric columns (777 x 17);
#  - Hitters:  ISLR::Hitters, rows without NA, numeric columns (263 x 17);
#  - Pima:     rbind(MASS::Pima.tr, MASS::Pima.te), numeric columns (532 x 7);
#  - yeast:    spls::yeast$x (542 x 106);
#  - olive:    dslabs::olive, the 8 fatty acids (572 x 8);
#  - Carseats: ISLR::Carseats, numeric columns (400 x 8);
#  - Smarket:  ISLR::Smarket, numeric columns (1250 x 8);
#  - crabs:    MASS::crabs, FL RW CL CW BD (200 x 5).
# Splits s = 1..5: set.seed(s); sample(n, round(0.2 n)) rows held out. Every
# variable is centred and scaled by its TRAINING mean and sd (so peers that
# work on the correlation scale -- huge, PDSCE's lambda grid -- get the
# scale they expect), and every log-likelihood is reported on the DATA's
# scale: the standardized rows' log-likelihood plus the log-Jacobian
# -sum(log sd), the same for every estimator. For a scale-equivariant
# estimator (the sample covariance, sparse_covariance's default) this is
# heldout_loglik(Sigma fitted to the raw training rows, test rows centred by
# the training means). The stochcg fits are called after the split's
# sample() with no further set.seed(), as issue 24's brca numbers were.
# CPU = user + system seconds of the fit (stochcg's in a child R process per
# build; its folds run sequentially: no future plan).
#
# Run from the repository root:
#   COVNP_LIBS="main=/tmp/lib_main,branch=/tmp/lib_branch" Rscript inst/bench/covariance_np.R
# (builds: name=library pairs; default: the installed stochcg as "installed").
# Writes inst/bench/results/covariance_np.csv and prints the tables.
args <- commandArgs(trailingOnly = TRUE)
`%||%` <- function(a, b) if (is.null(a)) b else a

np_sets <- function() {
  num <- function(d) {
    d <- as.data.frame(d)
    X <- as.matrix(d[, vapply(d, is.numeric, NA), drop = FALSE])
    storage.mode(X) <- "double"
    X
  }
  e <- new.env()
  data(yeast, package = "spls", envir = e)
  list(brca = dslabs::brca$x,
       College = num(ISLR::College),
       Hitters = num(stats::na.omit(ISLR::Hitters)),
       Pima = num(rbind(MASS::Pima.tr, MASS::Pima.te)),
       yeast = e$yeast$x,
       olive = num(dslabs::olive),
       Carseats = num(ISLR::Carseats),
       Smarket = num(ISLR::Smarket),
       crabs = num(MASS::crabs)[, c("FL", "RW", "CL", "CW", "BD")])
}
np_split <- function(X, s) {
  n <- nrow(X)
  set.seed(s)
  te <- sample(n, round(0.2 * n))
  tr <- setdiff(seq_len(n), te)
  m <- colMeans(X[tr, , drop = FALSE]); sd <- apply(X[tr, , drop = FALSE], 2, sd)
  list(train = scale(X[tr, , drop = FALSE], m, sd), test = scale(X[te, , drop = FALSE], m, sd),
       logjac = -sum(log(sd)))
}
cpu_of <- function(expr) {
  t0 <- proc.time()
  v <- force(expr)
  list(value = v, cpu = sum((proc.time() - t0)[c("user.self", "sys.self")]))
}

# ---- child: the stochcg default on every set and split, with one build ----
if (length(args) >= 1 && args[1] == "--child") {
  suppressPackageStartupMessages(library(stochcg))
  sets <- np_sets()
  rows <- list()
  for (nm in names(sets)) for (s in 1:5) {
    sp <- np_split(sets[[nm]], s)
    r <- cpu_of(sparse_covariance(sp$train))
    f <- r$value
    rows[[length(rows) + 1L]] <- data.frame(
      set = nm, split = s, estimator = args[3],
      loglik = heldout_loglik(f$solution$Sigma, sp$test) + sp$logjac, cpu = r$cpu,
      note = sprintf("lambda = %.3g, shrink = %.3g%s", f$lambda, f$shrink,
                     if (isTRUE(attr(f$cv, "sample_kept"))) ", sample kept" else ""))
  }
  saveRDS(do.call(rbind, rows), args[2])
  quit(save = "no")
}

# ---- parent ----------------------------------------------------------------
script <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))
bench_dir <- dirname(normalizePath(script))
# the peers of covariance.R: its `estimators` list and gauss_loglik()
exprs <- parse(file.path(bench_dir, "covariance.R"))
for (e in exprs) {
  if (is.call(e) && identical(e[[1]], as.name("<-")) &&
      as.character(e[[2]]) %in% c("estimators", "gauss_loglik", "has_structure"))
    eval(e, globalenv())
}
peers <- c("sample", "cov_shrink", "POET", "PDSCE_llcv", "glasso_huge")
if (!requireNamespace("PDSCE", quietly = TRUE)) peers <- setdiff(peers, "PDSCE_llcv")
if (!requireNamespace("POET", quietly = TRUE)) peers <- setdiff(peers, "POET")
if (!requireNamespace("huge", quietly = TRUE)) peers <- setdiff(peers, "glasso_huge")

libs <- Sys.getenv("COVNP_LIBS", "")
builds <- if (nzchar(libs)) {
  kv <- strsplit(strsplit(libs, ",")[[1]], "=")
  stats::setNames(vapply(kv, `[`, "", 2L), vapply(kv, `[`, "", 1L))
} else c(installed = "")
load0 <- as.numeric(strsplit(readLines("/proc/loadavg"), " ")[[1]][1])

sets <- np_sets()
rows <- list()
for (nm in names(sets)) for (s in 1:5) {
  sp <- np_split(sets[[nm]], s)
  for (est in peers) {
    r <- tryCatch(cpu_of(suppressWarnings(estimators[[est]](sp$train))),
                  error = function(e) list(value = NULL, cpu = NA, err = conditionMessage(e)))
    ll <- if (is.null(r$value)) NA_real_ else gauss_loglik(sp$test, r$value$Sigma) + sp$logjac
    rows[[length(rows) + 1L]] <- data.frame(set = nm, split = s, estimator = est, loglik = ll,
                                            cpu = r$cpu, note = r$value$note %||% r$err %||% "")
  }
}
for (b in names(builds)) {
  out <- tempfile(fileext = ".rds")
  env <- if (nzchar(builds[[b]])) paste0("R_LIBS=", builds[[b]]) else character(0)
  status <- system2(file.path(R.home("bin"), "Rscript"),
                    c(shQuote(script), "--child", shQuote(out), shQuote(paste0("stochcg_", b))),
                    env = env)
  if (status != 0L || !file.exists(out)) stop("the stochcg child for build ", b, " failed")
  rows[[length(rows) + 1L]] <- readRDS(out)
}
res <- do.call(rbind, rows)
load1 <- as.numeric(strsplit(readLines("/proc/loadavg"), " ")[[1]][1])
dir.create(file.path(bench_dir, "results"), showWarnings = FALSE)
utils::write.csv(res, file.path(bench_dir, "results", "covariance_np.csv"), row.names = FALSE)

# mean per row over the 5 splits (and mean CPU per fit)
ests <- unique(res$estimator)
mean_of <- function(v) tapply(v, list(factor(res$set, names(sets)), factor(res$estimator, ests)), mean)
ll <- mean_of(res$loglik); cpu <- mean_of(res$cpu)
cat(sprintf("\nload average %.1f at the start, %.1f at the end; R %s\n", load0, load1,
            getRversion()))
cat("\nMean held-out log-likelihood per row over 5 splits (data scale); in brackets mean CPU s per fit\n\n")
cat("| set | n x p |", paste(ests, collapse = " | "), "| best peer | ",
    paste(sprintf("%s >= best peer", grep("^stochcg_", ests, value = TRUE)), collapse = " | "),
    " |\n", sep = "")
cat("|---|---|", strrep("---:|", length(ests)), "---|", strrep("---|", sum(grepl("^stochcg_", ests))),
    "\n", sep = "")
for (nm in names(sets)) {
  pk <- peers[which.max(ll[nm, peers])]
  ours <- grep("^stochcg_", ests, value = TRUE)
  cat(sprintf("| %s | %d x %d | %s | %s | %s |\n", nm, nrow(sets[[nm]]), ncol(sets[[nm]]),
              paste(sprintf("%.3f (%.2f)", ll[nm, ], cpu[nm, ]), collapse = " | "), pk,
              paste(ifelse(ll[nm, ours] >= ll[nm, pk] - 1e-9, "yes", "NO"), collapse = " | ")))
}
cat("\nPer split (stochcg builds and the sample covariance):\n\n")
for (nm in names(sets)) for (s in 1:5) {
  r <- res[res$set == nm & res$split == s, ]
  cat(sprintf("%-8s s%d  sample %9.3f  %s\n", nm, s, r$loglik[r$estimator == "sample"],
              paste(sprintf("%s %9.3f [%s]", sub("^stochcg_", "", r$estimator[grepl("^stochcg_", r$estimator)]),
                            r$loglik[grepl("^stochcg_", r$estimator)],
                            r$note[grepl("^stochcg_", r$estimator)]), collapse = "  ")))
}
