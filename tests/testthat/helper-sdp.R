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
