# Independent reference solvers written plainly in R (full projections, many
# iterations), used to check the C solvers. Slow but accurate.

ref_proj_simplex <- function(v, z) {
  u <- sort(v, decreasing = TRUE)
  css <- cumsum(u)
  rho <- max(which(u - (css - z) / seq_along(u) > 0))
  pmax(v - (css[rho] - z) / rho, 0)
}

ref_proj_l1 <- function(v, r) {
  if (sum(abs(v)) <= r) return(v)
  sign(v) * ref_proj_simplex(abs(v), r)
}

ref_proj_nuclear <- function(A, r) {
  s <- svd(A)
  d <- if (sum(s$d) <= r) s$d else ref_proj_simplex(s$d, r)
  s$u %*% (d * t(s$v))
}

# FISTA for f(x) = smooth(x) over a set with projection `proj`
ref_fista <- function(grad, obj, proj, x0, L, iters = 5000) {
  x <- x0; yk <- x0; tk <- 1
  for (k in seq_len(iters)) {
    x_new <- proj(yk - grad(yk) / L)
    t_new <- (1 + sqrt(1 + 4 * tk^2)) / 2
    yk <- x_new + ((tk - 1) / t_new) * (x_new - x)
    x <- x_new; tk <- t_new
  }
  list(x = x, objective = obj(x))
}

ref_lasso_ball <- function(X, y, r, iters = 5000) {
  n <- nrow(X)
  S <- crossprod(X) / n; b <- drop(crossprod(X, y)) / n
  L <- max(eigen(S, symmetric = TRUE, only.values = TRUE)$values)
  ref_fista(function(x) drop(S %*% x) - b,
            function(x) sum((y - X %*% x)^2) / (2 * n),
            function(v) ref_proj_l1(v, r), numeric(ncol(X)), L, iters)
}

# completion losses: A(x) - y x, averaged over observed entries
ref_family <- list(
  gaussian = list(loss = function(x, y) (y - x)^2 / 2, mean = identity, curv = 1),
  poisson  = list(loss = function(x, y) exp(x) - y * x, mean = exp, curv = NA),
  binomial = list(loss = function(x, y) log1p(exp(x)) - y * x, mean = plogis,
                  curv = 1 / 4))

# observed cells must be distinct (the reference gradient assumes it)
ref_completion <- function(obs, r, family = "gaussian", dims, iters = 3000, L = NULL) {
  fam <- ref_family[[family]]
  idx <- cbind(obs$row, obs$col); N <- nrow(obs)
  grad <- function(X) {
    G <- matrix(0, dims[1], dims[2])
    G[idx] <- (fam$mean(X[idx]) - obs$value) / N   # cells are distinct
    G
  }
  obj <- function(X) mean(fam$loss(X[idx], obs$value))
  stopifnot(!anyDuplicated(idx))
  if (is.null(L)) L <- fam$curv / N
  ref_fista(grad, obj, function(V) ref_proj_nuclear(V, r),
            matrix(0, dims[1], dims[2]), L, iters)
}

# Exact solution of min 1/2 ||X - M||^2 + lambda ||X||_1 over the nuclear
# ball (or the PSD cone with tr <= r): the prox of lambda ||.||_1 + indicator
# at M, by the proximal Dykstra algorithm (full SVD / eigendecomposition).
ref_proj_psd <- function(A, r) {
  e <- eigen((A + t(A)) / 2, symmetric = TRUE)
  lam <- pmax(e$values, 0)
  if (sum(lam) > r) lam <- ref_proj_simplex(e$values, r)
  e$vectors %*% (lam * t(e$vectors))
}

ref_lowrank_sparse <- function(M, lambda, r, set = "nuclear", iters = 5000) {
  proj <- if (set == "psd") function(A) ref_proj_psd(A, r) else function(A) ref_proj_nuclear(A, r)
  soft <- function(A) sign(A) * pmax(abs(A) - lambda, 0)
  x <- M; p <- 0 * M; q <- 0 * M
  for (k in seq_len(iters)) {
    y <- soft(x + p); p <- x + p - y
    x_new <- proj(y + q); q <- y + q - x_new
    if (max(abs(x_new - x)) < 1e-13 * max(1, max(abs(x)))) { x <- x_new; break }
    x <- x_new
  }
  list(X = x, objective = 0.5 * sum((x - M)^2) + lambda * sum(abs(x)))
}

# FISTA with a full-SVD projection onto the nuclear ball for a smooth
# objective given by its gradient (used with a much smaller smoothing
# parameter than the solver's, as an accurate reference).
ref_fista_nuclear <- function(grad, obj, dims, r, L, iters = 3000) {
  ref_fista(grad, obj, function(V) ref_proj_nuclear(V, r), matrix(0, dims[1], dims[2]),
            L, iters)
}

huber_grad <- function(X, mu, lambda) lambda * pmin(pmax(X / mu, -1), 1)
