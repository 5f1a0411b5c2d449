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
