# Run: R_LIBS=<lib> R -d valgrind --vanilla -f dev/valgrind_covariance_lowrank_floor.R
# lowrank+sparse at p >> n with the floor binding: the certificate's (b)
# point (delta Q) path, lrsstop2 (no rank-one raises)
library(stochcg)
factor_rows <- function(n, p, seed, k = 2) {
  set.seed(seed)
  B <- matrix(rnorm(p * k), p) * 1.5
  matrix(rnorm(n * k), n) %*% t(B) +
    matrix(rnorm(n * p), n) %*% diag(sqrt(seq(0.3, 1, length.out = p)))
}
eps <- 0.01; gam <- 8; lam <- 0.3; tol <- 1e-4
for (seed in 4:5) {
  S <- cov(scale(factor_rows(6, 40, seed)))
  p <- nrow(S)
  spec <- list(problem = "covariance", method = "apg", S = S, lowrank = TRUE,
               lambda = lam, gamma = gam, floor = eps, inner_tol = tol / 10,
               max_inner = 500L, gap_goal = tol, max_rank = as.integer(p),
               floor_cap = as.integer(p))
  fit <- stochcg:::cg_run(spec, stochcg:::as_control(cg_control(tol = tol)),
                          "sparse_covariance", NULL, stochcg:::wall_clock())
  cat(seed, fit$status, fit$objective, fit$gap, fit$solution$delta / eps, length(fit$solution$L_d), "\n")
}
# public API, small CV
X <- factor_rows(8, 30, 7)
f <- sparse_covariance(X, structure = "lowrank+sparse")
cat("cv", f$lambda, f$gamma, f$rank, f$converged, "\n")
