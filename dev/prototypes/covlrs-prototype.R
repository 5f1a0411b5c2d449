# Prototype of structure = "lowrank+sparse":
#   min 1/2 ||L + R - S||_F^2 + gamma tr(L) + lambda |R|_{1,off}
#   subject to L >= 0 (PSD), R >= eps I   (so Sigma = L + R >= eps I)
# Exact block minimization (jointly convex, smooth coupling, separable
# nonsmooth parts, so alternating minimization converges):
#   L-step: L = V (d - gamma)_+ V' over the eigenpairs of S - R above gamma
#           (partial, eigs_sym "LA", k doubled until one falls below gamma);
#   R-step: the "sparse" problem for S - L (screen, else dual_fista warm).
source("covsp-solvers.R")

eig_above <- function(A, thr, k0 = 4) {
  p <- nrow(A); k <- k0
  repeat {
    k <- min(k, p - 1)
    e <- RSpectra::eigs_sym(A, k, which = "LA", opts = list(tol = 1e-10, ncv = min(p, max(2 * k + 1, 20))))
    if (min(e$values) <= thr || k >= p - 1) break
    k <- 2 * k
  }
  keep <- e$values > thr
  list(values = e$values[keep], vectors = e$vectors[, keep, drop = FALSE])
}

lrs_objective <- function(L, R, S, gamma, lambda)
  0.5 * sum((L + R - S)^2) + gamma * sum(diag(L)) + lambda * (sum(abs(R)) - sum(abs(diag(R))))

lrs_fit <- function(S, gamma, lambda, eps, tol = 1e-9, max_iter = 2000, warm = NULL) {
  p <- nrow(S)
  R <- if (is.null(warm)) diag(diag(S)) else warm$R
  wR <- if (is.null(warm)) NULL else warm$wR
  fold <- Inf; rank <- 4; t0 <- proc.time()[3]
  for (it in seq_len(max_iter)) {
    e <- eig_above(S - R, gamma, rank + 2)
    rank <- length(e$values)
    L <- lr(e$vectors, e$values - gamma)
    sc <- screen(S - L, lambda, eps)
    if (sc$ok) R <- sc$Sigma else {
      f <- dual_fista(S - L, lambda, eps, gap_tol = 1e-10, warm = wR); wR <- f$warm
      R <- as.matrix(f$Sigma)
    }
    fnew <- lrs_objective(L, R, S, gamma, lambda)
    if (fold - fnew <= tol * max(1, fnew)) break
    fold <- fnew
  }
  list(L = L, R = R, Sigma = L + R, rank = rank, loadings = e$vectors %*% diag(sqrt(e$values - gamma), rank),
       objective = fnew, iterations = it, seconds = proc.time()[3] - t0, warm = list(R = R, wR = wR))
}
