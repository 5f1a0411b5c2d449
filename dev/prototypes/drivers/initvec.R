setwd("/work/wt-covref/inst/bench/prototypes")
source("covsp-data.R"); source("covsp-solvers.R")
d <- stock_split(452); S <- d$S
# same dual FISTA, Lanczos started from the sum of the previous eigenvectors
eig_below_orig <- eig_below
prevV <- NULL
eig_below <- function(A, V, d, eps, k0 = 4, tol = 1e-10) {
  p <- nrow(A)
  f <- function(x, args) as.numeric(A %*% x) + if (length(d)) V %*% (d * crossprod(V, x)) else 0
  k <- max(2, k0); nmv <- 0
  repeat {
    k <- min(k, p - 1)
    iv <- if (!is.null(prevV) && ncol(prevV)) rowSums(prevV) + 1e-3 * rnorm(p) else rnorm(p)
    e <- suppressWarnings(RSpectra::eigs_sym(f, k, which = "SA", n = p, opts = list(tol = tol, maxitr = 3000, ncv = max(2*k+1, 20), initvec = iv)))
    nmv <- nmv + e$nops
    if (e$nconv < k) stop("nc")
    if (max(e$values) >= eps || k >= p - 1) break
    k <- 2 * k
  }
  keep <- e$values < eps
  prevV <<- e$vectors[, keep, drop = FALSE]
  list(values = e$values[keep], vectors = e$vectors[, keep, drop = FALSE], k = k, nops = nmv)
}
for (cs in list(c(0.06, 0.01), c(0.19, 0.1))) {
  set.seed(1); prevV <- NULL
  f <- dual_fista(S, cs[1], cs[2], gap_tol = 1e-10)
  cat(sprintf("initvec: lam %.2f eps %.2f: %d it, %.1f s, %.0f mv/it, gap %.1e\n", cs[1], cs[2], f$iterations, f$seconds, f$nops / f$iterations, f$gap))
}
