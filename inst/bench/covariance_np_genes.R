# The p >> n check of covariance_np.R's change (and covariance.R's n > p
# stock sets): sparse_covariance()'s default on inst/bench/covariance.R's
# gene sets (its splits r1-r3, its
# standardization, folds by set.seed(7), as its stochcg_sparse rows), two
# builds side by side in child processes. Held-out log-likelihood per row,
# the chosen lambda and shrink, and CPU seconds of the fit.
#
# Run from the repository root:
#   COVNP_LIBS="main=/tmp/lib_main,branch=/tmp/lib_branch" \
#   COVNP_GENES="tissue,colon,khan,lymphoma" Rscript inst/bench/covariance_np_genes.R
args <- commandArgs(trailingOnly = TRUE)
script <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))
bench_dir <- dirname(normalizePath(script))
# covariance.R's data and split helpers (one definition)
for (e in parse(file.path(bench_dir, "covariance.R"))) {
  if (is.call(e) && identical(e[[1]], as.name("<-")) &&
      as.character(e[[2]]) %in% c("standardize", "gene_sets", "gene_data", "make_split",
                                  "gauss_loglik", "stock_returns"))
    eval(e, globalenv())
}
genes <- strsplit(Sys.getenv("COVNP_GENES", "tissue,colon,khan,lymphoma"), ",")[[1]]
# covariance.R's splits: r1-r3 on the gene sets, time and random on the
# stock-return sets (n > p: 628 training days of 100 or 452 stocks)
splits_for <- function(g) if (g %in% c("stock100", "stock452")) c("time", "random") else
  c("r1", "r2", "r3")

if (length(args) >= 1 && args[1] == "--child") {
  suppressPackageStartupMessages(library(stochcg))
  rows <- list()
  for (g in genes) for (r in splits_for(g)) {
    s <- make_split(g, r)
    set.seed(7)
    t0 <- proc.time()
    f <- sparse_covariance(s$train)
    cpu <- sum((proc.time() - t0)[c("user.self", "sys.self")])
    rows[[length(rows) + 1L]] <- data.frame(
      set = g, split = r, build = args[3], p = ncol(s$train), n = nrow(s$train),
      loglik = gauss_loglik(s$test, as.matrix(f$solution$Sigma)), lambda = f$lambda,
      shrink = f$shrink, sample_kept = isTRUE(attr(f$cv, "sample_kept")), cpu = cpu)
  }
  saveRDS(do.call(rbind, rows), args[2])
  quit(save = "no")
}

libs <- Sys.getenv("COVNP_LIBS", "")
builds <- if (nzchar(libs)) {
  kv <- strsplit(strsplit(libs, ",")[[1]], "=")
  stats::setNames(vapply(kv, `[`, "", 2L), vapply(kv, `[`, "", 1L))
} else c(installed = "")
load0 <- as.numeric(strsplit(readLines("/proc/loadavg"), " ")[[1]][1])
res <- do.call(rbind, lapply(names(builds), function(b) {
  out <- tempfile(fileext = ".rds")
  env <- if (nzchar(builds[[b]])) paste0("R_LIBS=", builds[[b]]) else character(0)
  st <- system2(file.path(R.home("bin"), "Rscript"),
                c(shQuote(script), "--child", shQuote(out), shQuote(b)), env = env)
  if (st != 0L || !file.exists(out)) stop("the child for build ", b, " failed")
  readRDS(out)
}))
load1 <- as.numeric(strsplit(readLines("/proc/loadavg"), " ")[[1]][1])
cat(sprintf("load average %.1f at the start, %.1f at the end\n\n", load0, load1))
cat("| set | split | p / n_train |", paste(sprintf("%s loglik | %s lambda, shrink | %s CPU s",
                                                    names(builds), names(builds), names(builds)),
                                            collapse = " | "), "|\n", sep = "")
cat("|---|---|---|", strrep("---:|---|---:|", length(builds)), "\n", sep = "")
for (g in genes) for (r in splits_for(g)) {
  x <- res[res$set == g & res$split == r, ]
  cat(sprintf("| %s | %s | %d / %d | %s |\n", g, r, x$p[1], x$n[1],
              paste(sprintf("%.2f | %.3g, %.3g | %.1f", x$loglik, x$lambda, x$shrink, x$cpu),
                    collapse = " | ")))
}
cat("\nMean over splits:\n")
print(stats::aggregate(loglik ~ set + build, res, mean))
