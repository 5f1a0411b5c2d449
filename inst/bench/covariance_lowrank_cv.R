# Issue 24: sparse_covariance(X, structure = "lowrank+sparse") with its
# default cross-validation at p ~ 5000, n < 60, on two cases:
#   golub: NMF::esGolub as in covariance.R (log2, 28 training rows, genes
#          constant in training dropped: 4758; standardized by the training
#          rows; 10 test rows);
#   sim:   p = 5000, n = 60 training + 40 test rows of a 3-factor model
#          (N(0, 1) loadings) plus MA(1) noise (tridiagonal covariance).
# Prints the call's wall and CPU seconds (own + forked folds), the CV's
# choice and the held-out log-likelihood per test row; with FITLOG set,
# one line per fit made inside the CV (seconds, iterations, Lanczos
# products, rank, status). Run from the package root:
#   Rscript inst/bench/covariance_lowrank_cv.R golub|sim
suppressPackageStartupMessages(library(stochcg))
`%||%` <- function(a, b) if (is.null(a)) b else a
golub_split <- function() {
  e <- new.env()
  data(esGolub, package = "NMF", envir = e)
  es <- e$esGolub
  X <- t(log2(Biobase::exprs(es))); dimnames(X) <- NULL
  cls <- as.character(es$ALL.AML)
  set.seed(2026)
  te <- c(sample(which(cls == "ALL"), 7), sample(which(cls == "AML"), 3))
  tr <- setdiff(seq_len(nrow(X)), te)
  m <- colMeans(X[tr, ]); s <- apply(X[tr, ], 2, sd); keep <- s > 0
  list(train = unname(scale(X[tr, keep], m[keep], s[keep])[, ]),
       test = unname(scale(X[-tr, keep], m[keep], s[keep])[, ]))
}
sim_split <- function(p = 5000, n = 60, nt = 40) {
  set.seed(24)
  B <- matrix(rnorm(p * 3), p, 3)
  gen <- function(m) {
    Z <- matrix(rnorm(m * (p + 1)), m, p + 1)
    matrix(rnorm(m * 3), m, 3) %*% t(B) + Z[, -1] + 0.5 * Z[, -(p + 1)]
  }
  list(train = gen(n), test = gen(nt))
}
fitlog <- Sys.getenv("FITLOG")
if (nzchar(fitlog)) {
  orig <- stochcg:::covariance_fit
  assignInNamespace("covariance_fit", function(S, lambda, gamma, structure, floor, control, ...) {
    t0 <- proc.time()[["elapsed"]]
    f <- orig(S, lambda, gamma, structure, floor, control, ...)
    cat(sprintf("pid %d gamma %.4g lambda %.4g: %.2f s, iter %d inner %s matvec %s rank %s %s\n",
                Sys.getpid(), gamma %||% NA, lambda, proc.time()[["elapsed"]] - t0,
                as.integer(f$iterations), format(f$inner_iterations %||% NA),
                format(tail(f$trace$n_matvec, 1)), format(f$rank), f$status),
        file = fitlog, append = TRUE)
    f
  }, "stochcg")
}
case <- commandArgs(TRUE)[1]
s <- if (identical(case, "golub")) golub_split() else sim_split()
t0 <- proc.time()
f <- sparse_covariance(s$train, structure = "lowrank+sparse", control = cg_control(progress = TRUE))
pt <- proc.time() - t0
ll <- heldout_loglik(f$solution$Sigma, sweep(s$test, 2, colMeans(s$train)))
cat(sprintf("%s (p = %d, n = %d): %.1f s, CPU %.1f s; lambda %.5g gamma %.5g rank %d; %d CV fits (%d skipped); held-out log-likelihood per row %.4f\n",
            case, ncol(s$train), nrow(s$train), pt[["elapsed"]], sum(pt[c(1, 2, 4, 5)], na.rm = TRUE),
            f$lambda, f$gamma, f$rank, sum(f$cv$n_folds), attr(f$cv, "skipped"), ll))
