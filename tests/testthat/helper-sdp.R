# Reference for the SDP tests: the Peng-Wei k-means SDP solved by Rcsdp
# (interior point, to its default accuracy ~1e-8 relative):
# max <-D/2, X> s.t. X 1 = 1, tr X = k, X_ij - s_ij = 0 (i < j) with s >= 0
# in an LP block.
ref_kmeans_rcsdp <- function(D, k) {
  n <- nrow(D)
  pairs <- which(upper.tri(D), arr.ind = TRUE)
  np <- nrow(pairs)
  stm <- Rcsdp::simple_triplet_sym_matrix
  A <- vector("list", n + 1 + np)
  for (i in seq_len(n)) {
    j <- seq_len(n)
    A[[i]] <- list(stm(pmax(i, j), pmin(i, j), ifelse(j == i, 1, 0.5), n = n), numeric(np))
  }
  A[[n + 1]] <- list(stm(seq_len(n), seq_len(n), rep(1, n), n = n), numeric(np))
  for (p in seq_len(np)) {
    e <- numeric(np); e[p] <- -1
    A[[n + 1 + p]] <- list(stm(pairs[p, 2], pairs[p, 1], 0.5, n = n), e)
  }
  # csdp writes param.csdp into the working directory: work in a temporary one
  old <- setwd(tempdir()); on.exit(setwd(old), add = TRUE)
  out <- Rcsdp::csdp(list(-D / 2, numeric(np)), A, c(rep(1, n), k, numeric(np)),
                     list(type = c("s", "l"), size = c(n, np)),
                     control = Rcsdp::csdp.control(printlevel = 0))
  list(value = -out$pobj, X = as.matrix(out$X[[1]]))
}

# A general reference for small SDPs, solved by SCS (CRAN) to a tight
# tolerance: min <C, X> s.t. <E_i, X> = e_i, <G_j, X> <= g_j, X psd,
# tr X <= trace_bound. E and G are matrices whose rows are the constraint
# matrices vectorized (column-major, symmetric), so <E_i, X> = E[i, ] %*% c(X).
# In SCS's svec (lower triangle by columns, off-diagonals times sqrt(2)),
# <M, X> = svec(M)' svec(X) for symmetric M.
ref_sdp_scs <- function(C, E, e, G, g, trace_bound, eps = 1e-8) {
  n <- nrow(C)
  low <- which(lower.tri(C, diag = TRUE))            # column-major lower triangle
  w <- ifelse(row(C)[low] == col(C)[low], 1, sqrt(2))
  svec <- function(M) M[low] * w                      # one symmetric matrix
  svec_rows <- function(R) sweep(R[, low, drop = FALSE], 2, w, `*`)
  A <- rbind(svec_rows(E), svec_rows(G), svec(diag(n)), -diag(length(low)))
  b <- c(e, g, trace_bound, numeric(length(low)))
  out <- scs::scs(A = Matrix::Matrix(A, sparse = TRUE), b = b, obj = svec(C),
                  cone = list(z = nrow(E), l = nrow(G) + 1L, s = n),
                  control = scs::scs_control(eps_abs = eps, eps_rel = eps, max_iters = 1e6L))
  X <- matrix(0, n, n); X[low] <- out$x / w; X <- X + t(X) - diag(diag(X))
  list(value = sum(C * X), X = X, status = out$info$status)
}

# The sparsest cut SDP (paper 003 eq. 22) of adjacency A for ref_sdp_scs:
# n tr X - <J, X> = n^2 / 2, X_ij + X_jk - X_ik - X_jj <= 0 for all i, j, k.
ref_sparsest_cut_scs <- function(A) {
  n <- nrow(A)
  L <- diag(rowSums(A)) - A
  E <- matrix(c(n * diag(n) - 1), 1)
  idx <- function(i, j) i + n * (j - 1)
  trip <- as.matrix(expand.grid(i = 1:n, j = 1:n, k = 1:n))
  G <- matrix(0, nrow(trip), n * n)
  for (t in seq_len(nrow(trip))) {
    i <- trip[t, 1]; j <- trip[t, 2]; k <- trip[t, 3]
    M <- matrix(0, n, n)
    M[i, j] <- M[i, j] + 0.5; M[j, i] <- M[j, i] + 0.5
    M[j, k] <- M[j, k] + 0.5; M[k, j] <- M[k, j] + 0.5
    M[i, k] <- M[i, k] - 0.5; M[k, i] <- M[k, i] - 0.5
    M[j, j] <- M[j, j] - 1
    G[t, ] <- c(M)
  }
  keep <- rowSums(abs(G)) > 0                         # coinciding indices can cancel
  ref_sdp_scs(L, E, n^2 / 2, G[keep, , drop = FALSE], numeric(sum(keep)), n)
}

# The uniform sparsest cut SDP (paper 003, eq. 22) by Rcsdp: max <-L, X>
# s.t. <n I - J, X> = n^2 / 2, <T_ijk, X> + s_l = 0 (one slack per distinct
# triangle inequality, i < k, j not in {i, k}), tr X + s_0 = n, s >= 0.
ref_cut_rcsdp <- function(A) {
  n <- nrow(A)
  L <- diag(rowSums(A)) - A
  stm <- Rcsdp::simple_triplet_sym_matrix
  tri <- do.call(rbind, lapply(2:n, function(k) do.call(rbind, lapply(seq_len(k - 1), function(i)
    cbind(i, setdiff(seq_len(n), c(i, k)), k)))))
  nl <- nrow(tri) + 1L                               # triangle slacks, then the trace slack
  unit <- function(p) { e <- numeric(nl); e[p] <- 1; e }
  lower <- which(lower.tri(diag(n), diag = TRUE), arr.ind = TRUE)
  Aeq <- list(stm(lower[, 1], lower[, 2], ifelse(lower[, 1] == lower[, 2], n - 1, -1), n = n),
              numeric(nl))
  Atri <- lapply(seq_len(nrow(tri)), function(p) {
    i <- tri[p, 1]; j <- tri[p, 2]; k <- tri[p, 3]
    list(stm(c(max(i, j), max(j, k), k, j), c(min(i, j), min(j, k), i, j), c(0.5, 0.5, -0.5, -1),
             n = n), unit(p))
  })
  Atr <- list(stm(seq_len(n), seq_len(n), rep(1, n), n = n), unit(nl))
  old <- setwd(tempdir()); on.exit(setwd(old), add = TRUE)
  out <- Rcsdp::csdp(list(-L, numeric(nl)), c(list(Aeq), Atri, list(Atr)),
                     c(n^2 / 2, numeric(nrow(tri)), n), list(type = c("s", "l"), size = c(n, nl)),
                     control = Rcsdp::csdp.control(printlevel = 0))
  list(value = -out$pobj, X = as.matrix(out$X[[1]]))
}
