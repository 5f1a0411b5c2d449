# Prototype solvers (plain R) for the eigenvalue-floored l1-penalized
# covariance  min_{Sigma >= eps I} 1/2 ||Sigma - S||_F^2 + lambda |Sigma|_{1,off}
# that never take a full eigendecomposition: the floor only needs the
# eigenpairs of a (sparse + low-rank) matrix below eps, found by Lanczos
# (RSpectra::eigs_sym, which = "SA") on a matrix-free operator.
library(Matrix)

soft_off <- function(A, t) {
  B <- sign(A) * pmax(abs(A) - t, 0)
  diag(B) <- diag(A)
  B
}
as_sp <- function(A, density = 0.3) {         # sparse storage when it pays
  if (mean(A != 0) < density) as(Matrix(A, sparse = TRUE), "generalMatrix") else A
}
lr <- function(V, d) if (length(d)) V %*% (d * t(V)) else 0   # V diag(d) V'
objective <- function(Sigma, S, lambda) {
  Sigma <- as.matrix(Sigma)
  0.5 * sum((Sigma - S)^2) + lambda * (sum(abs(Sigma)) - sum(abs(diag(Sigma))))
}
dual_value <- function(V, d, S, lambda, eps) {  # g(Lambda), Lambda = V diag(d) V'
  Lam <- lr(V, d)
  Sg <- soft_off(S + Lam, lambda)
  objective(Sg, S, lambda) - sum(Lam * Sg) + eps * sum(d)
}

# Eigenpairs of A + V diag(d) V' (A sparse or dense) with eigenvalue < eps:
# Lanczos for the k smallest, k doubled until one is >= eps (so all below
# eps are found). Returns values, vectors, k used and matvec count.
eig_below <- function(A, V, d, eps, k0 = 4, tol = 1e-10) {
  p <- nrow(A)
  f <- function(x, args) as.numeric(A %*% x) + if (length(d)) V %*% (d * crossprod(V, x)) else 0
  k <- max(2, k0); nmv <- 0
  repeat {
    k <- min(k, p - 1)
    e <- eigs_sa(f, k, p, tol)
    nmv <- nmv + e$nops
    if (max(e$values) >= eps || k >= p - 1) break
    k <- 2 * k
  }
  keep <- e$values < eps
  list(values = e$values[keep], vectors = e$vectors[, keep, drop = FALSE], k = k, nops = nmv)
}

# Lanczos for the k smallest eigenvalues; the small end of a covariance
# spectrum is clustered, so ARPACK may not converge with a small ncv: retry
# with a larger subspace (ncv 20 -> 60 -> 180) before giving up.
eigs_sa <- function(f, k, p, tol = 1e-10) {
  nops <- 0
  for (ncv in c(max(2 * k + 1, 20), max(4 * k, 60), max(8 * k, 180))) {
    e <- suppressWarnings(RSpectra::eigs_sym(f, k, which = "SA", n = p,
                          opts = list(tol = tol, maxitr = 3000, ncv = min(p, ncv))))
    nops <- nops + e$nops
    if (e$nconv >= k) break
  }
  if (e$nconv < k) stop("eigs_sym did not converge")
  e$nops <- nops
  e
}

# (falls back to a dense eigen() when Lanczos fails: at the solution the
# rank(Lambda) smallest eigenvalues form a cluster at eps, which stalls a
# k = 1 Lanczos; a C version should take k = rank(Lambda) + 1 or a Cholesky)
lambda_min <- function(A) {
  e <- tryCatch(eigs_sa(function(x, args) as.numeric(A %*% x), 1, nrow(A))$values,
                error = function(e) NULL)
  if (is.null(e)) {
    message("lambda_min: Lanczos failed, dense eigen()")
    e <- min(eigen(as.matrix(A), TRUE, TRUE)$values)
  }
  e
}

# feasible point with the same zeros: raise the diagonal to the floor
fix_floor <- function(Sigma, eps) {
  lm <- lambda_min(Sigma)
  if (lm < eps) diag(Sigma) <- diag(Sigma) + (eps - lm)
  Sigma
}

# (a) screening: the soft-thresholded S is the answer iff lambda_min >= eps
# (checked by a Cholesky of soft(S) - eps I, sparse when soft(S) is sparse)
screen <- function(S, lambda, eps) {
  St <- soft_off(S, lambda)
  A <- as_sp(St)
  diag(A) <- diag(A) - eps
  ok <- if (inherits(A, "Matrix")) {
    !inherits(tryCatch(Matrix::Cholesky(as(forceSymmetric(A), "CsparseMatrix"), LDL = FALSE),
                       error = function(e) e), "error")
  } else !inherits(tryCatch(chol(A), error = function(e) e), "error")
  list(ok = ok, Sigma = St)
}

# (b) ADMM of Xue-Ma-Zou with the floor projection from eig_below().
# Theta = Sigma + W, W and U low rank (factors); residual balancing on rho.
admm_partial <- function(S, lambda, eps, tol = 1e-7, rho = 1, max_iter = 5000,
                         check_every = 10, gap_tol = 1e-9, warm = NULL, verbose = FALSE) {
  p <- nrow(S); nS <- sqrt(sum(S^2))
  Uv <- matrix(0, p, 0); Ud <- numeric(0)          # U = Uv diag(Ud) Uv'
  Theta <- if (is.null(warm)) S else warm$Theta
  if (!is.null(warm)) { Uv <- warm$Uv; Ud <- warm$Ud; rho <- warm$rho }
  ks <- integer(0); nops <- 0; k0 <- 4; t0 <- proc.time()[3]
  gap <- NA
  for (it in seq_len(max_iter)) {
    Sigma <- as_sp(soft_off((S + rho * (Theta - lr(Uv, Ud))) / (1 + rho), lambda / (1 + rho)))
    e <- eig_below(Sigma, Uv, Ud, eps, k0)
    nops <- nops + e$nops; ks <- c(ks, length(e$values))
    k0 <- length(e$values) + 2
    Unew_v <- e$vectors; Unew_d <- e$values - eps
    Theta_old <- Theta
    Theta <- as.matrix(Sigma) + lr(Uv, Ud) - lr(Unew_v, Unew_d)
    r <- sqrt(sum((lr(Unew_v, Unew_d) - lr(Uv, Ud))^2))
    s <- rho * sqrt(sum((Theta - Theta_old)^2))
    Uv <- Unew_v; Ud <- Unew_d
    if (max(r, s) <= tol * nS || it %% check_every == 0) {
      Sf <- fix_floor(Sigma, eps)
      P <- objective(Sf, S, lambda); g <- dual_value(Uv, -rho * Ud, S, lambda, eps)
      gap <- (P - g) / max(1, P)
      if (verbose) cat(it, "r", r, "s", s, "rho", rho, "rank", length(Ud), "gap", gap, "\n")
      if (max(r, s) <= tol * nS && gap <= gap_tol) break
    }
    if (r > 10 * s) { rho <- 2 * rho; Ud <- Ud / 2 } else if (s > 10 * r) { rho <- rho / 2; Ud <- 2 * Ud }
  }
  list(Sigma = Sf, objective = P, gap = gap, iterations = it, below = ks, nops = nops,
       seconds = proc.time()[3] - t0,
       warm = list(Theta = Theta, Uv = Uv, Ud = Ud, rho = rho))
}

# (c) accelerated projected gradient on the dual, max_{Lambda >= 0} g(Lambda)
# (g concave, grad g = eps I - soft(S + Lambda), 1-Lipschitz, step 1):
# Lambda+ = psd(Y + eps I - soft(S + Y)) = V (eps - d) V' over the eigenpairs
# (d, V) of soft(S + Y) - Y below eps. Lambda stays low rank (factor form);
# function-value restart. Primal: soft(S + Lambda) with the diagonal raised.
dual_fista <- function(S, lambda, eps, gap_tol = 1e-9, max_iter = 5000, check_every = 10,
                       warm = NULL, verbose = FALSE) {
  p <- nrow(S)
  Lv <- matrix(0, p, 0); Ld <- numeric(0)
  if (!is.null(warm)) { Lv <- warm$Lv; Ld <- warm$Ld }
  Pv <- Lv; Pd <- Ld; tk <- 1; gold <- -Inf
  ks <- integer(0); nops <- 0; k0 <- max(4, length(Ld) + 2); t0 <- proc.time()[3]
  for (it in seq_len(max_iter)) {
    tn <- (1 + sqrt(1 + 4 * tk^2)) / 2; beta <- (tk - 1) / tn
    Yv <- cbind(Lv, Pv); Yd <- c((1 + beta) * Ld, -beta * Pd)
    Y <- lr(Yv, Yd)
    SY <- as_sp(soft_off(S + Y, lambda))
    e <- eig_below(SY, Yv, -Yd, eps, k0)
    nops <- nops + e$nops; ks <- c(ks, length(e$values)); k0 <- length(e$values) + 2
    Pv <- Lv; Pd <- Ld
    Lv <- e$vectors; Ld <- eps - e$values
    tk <- tn
    if (it %% check_every == 0) {
      Sg <- soft_off(S + lr(Lv, Ld), lambda)
      g <- objective(Sg, S, lambda) - sum(lr(Lv, Ld) * Sg) + eps * sum(Ld)
      Sf <- fix_floor(as_sp(Sg), eps)
      P <- objective(Sf, S, lambda)
      gap <- (P - g) / max(1, P)
      if (verbose) cat(it, "rank", length(Ld), "P", P, "g", g, "gap", gap, "\n")
      if (gap <= gap_tol) break
      if (g < gold) tk <- 1                        # restart
      gold <- g
    }
  }
  list(Sigma = Sf, objective = P, gap = gap, iterations = it, below = ks, nops = nops,
       seconds = proc.time()[3] - t0, warm = list(Lv = Lv, Ld = Ld))
}
