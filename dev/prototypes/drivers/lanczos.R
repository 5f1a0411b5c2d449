setwd("/work/wt-covref/inst/bench/prototypes")
source("covsp-data.R"); source("covsp-solvers.R")
d <- stock_split(452); S <- d$S
for (cfg in list(c(1e-10, 20), c(1e-10, 60), c(1e-6, 20), c(1e-6, 60))) {
  eigs_sa <- function(f, k, p, tol = 1e-10) {
    e <- suppressWarnings(RSpectra::eigs_sym(f, k, which = "SA", n = p, opts = list(tol = cfg[1], maxitr = 5000, ncv = min(p, max(2*k+1, cfg[2])))))
    if (e$nconv < k) stop("nc"); e }
  for (cs in list(c(0.06, 0.01), c(0.19, 0.1))) {
    f <- tryCatch(dual_fista(S, cs[1], cs[2], gap_tol = 1e-10, max_iter = 300), error = function(e) NULL)
    if (is.null(f)) { cat("fail\n"); next }
    cat(sprintf("tol %g ncv %d | lam %.2f eps %.2f: %d it, %.1f s, %.0f mv/it, gap %.1e\n", cfg[1], cfg[2], cs[1], cs[2], f$iterations, f$seconds, f$nops / f$iterations, f$gap))
  }
}
