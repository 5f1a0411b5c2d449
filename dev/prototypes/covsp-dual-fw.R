# (c') Frank-Wolfe on the dual: max g(Lambda) over {Lambda >= 0, tr Lambda <= tau}.
# grad g = eps I - soft(S + Lambda); LMO = tau v v' with v the eigenvector of
# the smallest eigenvalue of soft(S + Lambda) (0 if that is >= eps); exact
# line search by bisection on the concave piecewise-quadratic step.
# Lambda kept as atoms (rank grows by one per iteration at most).
dual_fw <- function(S, lambda, eps, tau, iters = 300, every = 25, ref = NULL) {
  p <- nrow(S); Av <- matrix(0, p, 0); w <- numeric(0); t0 <- proc.time()[3]; out <- NULL
  for (it in seq_len(iters)) {
    Lam <- lr(Av, w)
    Sg <- soft_off(S + Lam, lambda)
    SgS <- as_sp(Sg)
    e <- eigs_sa(function(x, args) as.numeric(SgS %*% x), 1, p)
    v <- e$vectors[, 1]
    Hd <- if (e$values < eps) tau else 0
    D <- Hd * tcrossprod(v) - Lam
    fwgap <- sum((eps * diag(p) - Sg) * D)
    if (fwgap <= 0) break
    lo <- 0; hi <- 1
    for (b in 1:30) { m <- (lo + hi) / 2
      if (sum((eps * diag(p) - soft_off(S + Lam + m * D, lambda)) * D) > 0) lo <- m else hi <- m }
    gm <- (lo + hi) / 2
    w <- c((1 - gm) * w, gm * Hd); Av <- cbind(Av, v)
    keep <- w > 1e-14; w <- w[keep]; Av <- Av[, keep, drop = FALSE]
    if (it %% every == 0) {
      Lam <- lr(Av, w); Sg <- soft_off(S + Lam, lambda)
      P <- objective(fix_floor(as_sp(Sg), eps), S, lambda)
      out <- rbind(out, data.frame(iter = it, sec = proc.time()[3] - t0, fwgap = fwgap, atoms = length(w),
                                   primal_relerr = if (is.null(ref)) NA else (P - ref) / ref))
    }
  }
  out
}
