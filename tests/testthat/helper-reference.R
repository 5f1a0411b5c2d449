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

# The exact solution of min 1/(2n)||y - X b||^2 s.t. ||b||_1 <= r when it is
# unique: FISTA (above) finds the support and signs, then the optimality
# conditions on them are solved as a linear system (least squares on the
# support when the constraint is slack; else with the multiplier mu of
# s'b = r), and checked: signs kept, mu >= 0, |X_j'(y - Xb)| / n <= mu off
# the support. Stops if they fail (FISTA not yet accurate enough).
ref_lasso_exact <- function(X, y, r, iters = 20000) {
  X <- as.matrix(X); n <- nrow(X); p <- ncol(X)
  b0 <- ref_lasso_ball(X, y, r, iters)$x
  S <- which(abs(b0) > 1e-6 * max(abs(b0)))
  s <- sign(b0[S])
  A <- crossprod(X[, S, drop = FALSE]) / n
  c <- drop(crossprod(X[, S, drop = FALSE], y)) / n
  b <- numeric(p)
  if (sum(abs(b0)) < r * (1 - 1e-6)) {          # interior: least squares
    b[S] <- solve(A, c); mu <- 0
  } else {
    sol <- solve(rbind(cbind(A, s), c(s, 0)), c(c, r))
    b[S] <- sol[seq_along(S)]; mu <- sol[length(S) + 1]
  }
  g <- abs(drop(crossprod(X, y - X %*% b))) / n
  stopifnot(all(sign(b[S]) == s), mu >= 0, max(g[-S], 0) <= mu + 1e-10,
            sum(abs(b)) <= r * (1 + 1e-12))
  list(beta = b, support = S, objective = sum((y - X %*% b)^2) / (2 * n), mu = mu)
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

# Euclidean projection onto the PSD cone with trace <= r (eigen()).
ref_proj_psd <- function(A, r) {
  e <- eigen((A + t(A)) / 2, symmetric = TRUE)
  lam <- pmax(e$values, 0)
  if (sum(lam) > r) lam <- ref_proj_simplex(e$values, r)
  e$vectors %*% (lam * t(e$vectors))
}

# ---- nonsmooth references: min_{X in C} 1/2 ||X - M||^2 + h(X) with
# h(X) = max_{z in K} <B z, X> - <c, z> (C the nuclear ball or the PSD cone
# with tr <= r), solved exactly through the concave dual
#   phi(z) = min_{X in C} 1/2 ||X - M||^2 + <B z, X> - <c, z>,
# X(z) = P_C(M - B z), grad phi = B'X(z) - c (Lipschitz ||B||^2), by FISTA
# ascent with adaptive restart. Every step has an exact certificate: the
# duality gap F(X(z)) - phi(z) >= F(X(z)) - F*; it runs until that gap is
# below tol * max(1, |F|). No smoothing anywhere.
ref_proj_set <- function(set, r) {
  if (set == "psd") function(A) ref_proj_psd(A, r) else function(A) ref_proj_nuclear(A, r)
}

ref_dual_prox <- function(M, proj, Bz, Btx, projK, c, L, h, z0, tol = 1e-10,
                          iters = 20000) {
  phi_X <- function(z) {
    W <- Bz(z); X <- proj(M - W)
    list(X = X, phi = 0.5 * sum((X - M)^2) + sum(W * X) - sum(c * z))
  }
  z <- y <- z0; tk <- 1
  for (k in seq_len(iters)) {
    X <- proj(M - Bz(y))
    z_new <- projK(y + (Btx(X) - c) / L)
    t_new <- (1 + sqrt(1 + 4 * tk^2)) / 2
    if (sum((y - z_new) * (z_new - z)) > 0) { t_new <- 1; y <- z_new }   # restart
    else y <- z_new + ((tk - 1) / t_new) * (z_new - z)
    z <- z_new; tk <- t_new
    if (k %% 20 == 0) {
      d <- phi_X(z)
      obj <- 0.5 * sum((d$X - M)^2) + h(d$X)
      if (obj - d$phi <= tol * max(1, abs(obj))) break
    }
  }
  d <- phi_X(z)
  obj <- 0.5 * sum((d$X - M)^2) + h(d$X)
  list(X = d$X, objective = obj, gap = obj - d$phi, z = z, iterations = k)
}

# lambda ||X||_1: z = Z with |Z_ij| <= lambda, B the identity
ref_lowrank_l1 <- function(M, lambda, r, set = "nuclear", tol = 1e-10, z0 = 0 * M) {
  ref_dual_prox(M, ref_proj_set(set, r), identity, identity,
                function(Z) pmin(pmax(Z, -lambda), lambda), 0, 1,
                function(X) lambda * sum(abs(X)), z0, tol)
}

# max_i (<A_i, X> - b_i): z in the unit simplex, B z = sum_i z_i A_i (rows of
# Amat are vec(A_i))
ref_lowrank_maxlin <- function(M, Amat, b, r, set = "nuclear", tol = 1e-10) {
  ref_dual_prox(M, ref_proj_set(set, r),
                function(z) matrix(crossprod(Amat, z), nrow(M)),
                function(X) as.vector(Amat %*% as.vector(X)),
                function(z) ref_proj_simplex(z, 1), b, max(svd(Amat)$d)^2,
                function(X) max(Amat %*% as.vector(X) - b),
                rep(1 / length(b), length(b)), tol)
}

# matrix sensing with elastic net, min (1/N) sum 1/2 (<A_i, X> - b_i)^2 +
# l1 ||X||_1 + l2 ||X||_F^2 over C: proximal gradient (FISTA with restart)
# on the smooth part, the prox of l1 ||.||_1 + indicator(C) solved exactly
# by ref_lowrank_l1 (warm-started). Its certificate: with Z = the prox's
# dual point times the step's L (|Z| <= l1), F* >= f(X) - <G, X> +
# min_{S in C} <G + Z, S> (G = grad f(X)); iterates until that gap is below
# tol * max(1, |F|).
ref_sensing <- function(Amat, b, l1, l2, dims, r, tol = 1e-9, iters = 5000) {
  N <- length(b)
  f <- function(X) 0.5 * mean((Amat %*% as.vector(X) - b)^2) + l2 * sum(X^2)
  grad <- function(X) matrix(crossprod(Amat, Amat %*% as.vector(X) - b), dims[1]) / N + 2 * l2 * X
  L <- max(svd(Amat)$d)^2 / N + 2 * l2
  X <- Y <- matrix(0, dims[1], dims[2]); tk <- 1; z <- 0 * X
  for (k in seq_len(iters)) {
    p <- ref_lowrank_l1(Y - grad(Y) / L, l1 / L, r, tol = 1e-13, z0 = z)
    z <- p$z
    t_new <- (1 + sqrt(1 + 4 * tk^2)) / 2
    if (sum((Y - p$X) * (p$X - X)) > 0) { t_new <- 1; Y <- p$X }
    else Y <- p$X + ((tk - 1) / t_new) * (p$X - X)
    X <- p$X; tk <- t_new
    G <- grad(X); Z <- pmin(pmax(L * z, -l1), l1)
    obj <- f(X) + l1 * sum(abs(X))
    lower <- f(X) - sum(G * X) - r * svd(G + Z, 0, 0)$d[1]
    if (obj - lower <= tol * max(1, abs(obj))) break
  }
  list(X = X, objective = obj, gap = obj - lower, iterations = k)
}

# FISTA with a full-SVD projection onto the nuclear ball for a smooth
# objective given by its gradient (used with a much smaller smoothing
# parameter than the solver's, as an accurate reference).
ref_fista_nuclear <- function(grad, obj, dims, r, L, iters = 3000) {
  ref_fista(grad, obj, function(V) ref_proj_nuclear(V, r), matrix(0, dims[1], dims[2]),
            L, iters)
}

huber_grad <- function(X, mu, lambda) lambda * pmin(pmax(X / mu, -1), 1)

# ---- robust PCA (Garber, Kaplan and Sabach) -------------------------------
# min 1/2 ||X + Y - M||_F^2 (+ lambda1 ||Y||_1 + lambda2 ||Y||_F^2 for "enet")
# over ||X||_* <= tau (or X PSD with trace <= tau) and ||Y||_1 <= s ("l1") or
# ||Y||_p <= s with p = 1 + delta ("lp"), all norms entrywise on Y.

# Euclidean projection of y (vector or matrix, entrywise) onto the lp ball
# {||x||_p <= radius}, 1 < p < 2. KKT: x_i = sign(y_i) w_i with
# w_i + lam p w_i^(p-1) = |y_i|, lam >= 0 chosen so that sum w_i^p = radius^p.
# Inner equation in u = w^(p-1): h(u) = u^(1/(p-1)) + lam p u - |y_i| is
# convex and increasing, so Newton started right of the root (at
# min(|y|^(p-1), |y| / (lam p)), both have h >= 0) decreases monotonically to
# it. Outer: safeguarded Newton in log(lam) inside a bisection bracket.
ref_proj_lp_w <- function(a, lam, p) {
  e <- 1 / (p - 1); c <- lam * p
  pos <- a > 0
  u <- numeric(length(a))
  ap <- a[pos]
  u[pos] <- pmin(ap^(p - 1), ap / c)
  for (it in 1:200) {
    up <- u[pos]
    h <- up^e + c * up - ap
    dh <- e * up^(e - 1) + c
    un <- pmax(up - h / dh, 0)
    u[pos] <- un
    if (all(abs(un - up) <= 1e-15 * up)) break
  }
  w <- u^e
  w
}

ref_proj_lp <- function(y, radius, p, lam0 = NULL, return_lambda = FALSE) {
  stopifnot(p > 1, p < 2, radius > 0)
  a <- abs(as.vector(y))
  rp <- radius^p
  if (sum(a^p) <= rp) {
    return(if (return_lambda) list(x = y, lambda = 0) else y)
  }
  phi <- function(lam) {
    w <- ref_proj_lp_w(a, lam, p)
    list(w = w, val = sum(w^p) - rp,
         # d/dlog(lam) of sum w^p: sum p w^(p-1) lam dw/dlam,
         # dw/dlam = -p w / (w^(2-p) + lam p (p-1))
         d = sum(p * w^(p - 1) * lam * (-p * w) / (w^(2 - p) + lam * p * (p - 1))))
  }
  # bracket [lo, hi] in t = log(lam), phi decreasing in lam
  t <- log(if (is.null(lam0) || !(lam0 > 0)) max(a) else lam0)
  f <- phi(exp(t))
  lo <- -Inf; hi <- Inf
  for (it in 1:400) {
    if (f$val > 0) lo <- t else hi <- t
    if (abs(f$val) <= 1e-14 * rp) break
    if (is.finite(lo) && is.finite(hi) && hi - lo < 1e-15 * max(1, abs(t))) break
    tn <- t - f$val / f$d                       # Newton in log(lam)
    if (!is.finite(tn) || tn <= lo || tn >= hi) {
      tn <- if (is.finite(lo) && is.finite(hi)) (lo + hi) / 2 else
        if (is.finite(lo)) lo + 2 else hi - 2
    }
    t <- tn
    f <- phi(exp(t))
  }
  w <- f$w
  nw <- sum(w^p)^(1 / p)
  if (nw > radius) w <- w * (radius / nw)      # feasibility by a relative 1e-15 shrink
  x <- sign(y) * w
  if (is.matrix(y)) x <- matrix(x, nrow(y), ncol(y))
  if (return_lambda) list(x = x, lambda = exp(t)) else x
}

# prox of the Y part: argmin_Y 1/2 ||Y - A||^2 + R_Y(Y)
ref_rpca_prox_y <- function(A, sparse, s = NULL, delta = 0.2, lambda1 = 0,
                            lambda2 = 1, lam0 = NULL) {
  switch(sparse,
    l1 = matrix(ref_proj_l1(as.vector(A), s), nrow(A)),
    lp = ref_proj_lp(A, s, 1 + delta, lam0 = lam0, return_lambda = TRUE),
    enet = sign(A) * pmax(abs(A) - lambda1, 0) / (1 + 2 * lambda2))
}

ref_rpca_proj_x <- function(A, tau, psd = FALSE) {
  if (tau == 0) return(0 * A)
  if (psd) ref_proj_psd(A, tau) else ref_proj_nuclear(A, tau)
}

ref_rpca_penalty <- function(Y, sparse, lambda1 = 0, lambda2 = 0) {
  if (sparse == "enet") lambda1 * sum(abs(Y)) + lambda2 * sum(Y^2) else 0
}

ref_rpca_objective <- function(X, Y, M, sparse = "l1", lambda1 = 0, lambda2 = 0) {
  0.5 * sum((X + Y - M)^2) + ref_rpca_penalty(Y, sparse, lambda1, lambda2)
}

# Frank-Wolfe gap of the joint problem at a feasible (X, Y): with
# G = X + Y - M, gap = <G, X - V> + <G, Y - W> + R_Y(Y) - R_Y(W), where V, W
# minimise <G, V> over the X set and <G, W> + R_Y(W). It bounds
# objective - optimum from above (and equals the primal-dual gap for the dual
# point -G).
ref_rpca_gap <- function(X, Y, M, tau, s = NULL, sparse = "l1", delta = 0.2,
                         lambda1 = 0, lambda2 = 0, psd = FALSE) {
  G <- X + Y - M
  gx <- sum(G * X) + if (psd) {
    tau * max(0, -min(eigen((G + t(G)) / 2, symmetric = TRUE,
                             only.values = TRUE)$values))
  } else tau * svd(G, 0, 0)$d[1]
  gy <- switch(sparse,
    l1 = sum(G * Y) + s * max(abs(G)),
    lp = { p <- 1 + delta; q <- p / (p - 1); sum(G * Y) + s * sum(abs(G)^q)^(1 / q) },
    enet = {
      W <- sign(-G) * pmax(abs(G) - lambda1, 0) / (2 * lambda2)
      sum(G * (Y - W)) + ref_rpca_penalty(Y, "enet", lambda1, lambda2) -
        ref_rpca_penalty(W, "enet", lambda1, lambda2)
    })
  gx + gy
}

# Reference solver: accelerated projected gradient (FISTA, step 1, adaptive
# gradient restart) on X alone for the Moreau-envelope objective
#   F(X) = min_Y 1/2 ||X + Y - M||^2 + R_Y(Y),   grad F(X) = X + Y(X) - M,
# Y(X) = prox_{R_Y}(M - X), which is 1-smooth; the X step is an exact
# projection (full SVD / eigendecomposition). Stops when the joint FW gap of
# (X, Y(X)) is at most tol * max(1, objective); the gap is returned, so
# objective - gap <= optimum <= objective.
ref_rpca <- function(M, tau, s = NULL, sparse = c("l1", "lp", "enet"), delta = 0.2,
                     lambda1 = 0, lambda2 = 0, psd = FALSE, tol = 1e-10,
                     max_iter = 5000, check_every = 10, X0 = NULL,
                     envelope = c("X", "Y")) {
  sparse <- match.arg(sparse)
  envelope <- match.arg(envelope)
  lam_lp <- NULL
  proxy <- function(A) {
    r <- ref_rpca_prox_y(A, sparse, s, delta, lambda1, lambda2, lam0 = lam_lp)
    if (sparse == "lp") { lam_lp <<- if (r$lambda > 0) r$lambda else lam_lp; r$x } else r
  }
  projx <- function(A) ref_rpca_proj_x(A, tau, psd)
  # the feasible pair (X, Y(X)) of the iterate, its objective and FW gap
  pair <- function(U) {
    V <- proxy(M - U)
    if (envelope == "Y") { X <- V; Y <- U } else { X <- U; Y <- V }
    list(X = X, Y = Y,
         objective = ref_rpca_objective(X, Y, M, sparse, lambda1, lambda2),
         gap = ref_rpca_gap(X, Y, M, tau, s, sparse, delta, lambda1, lambda2, psd))
  }
  if (envelope == "Y") {                        # roles swapped: FISTA on Y
    tmp <- projx; projx <- proxy; proxy <- tmp
  }
  X <- if (is.null(X0)) 0 * M else X0
  Z <- X; tk <- 1
  gap <- Inf
  for (k in seq_len(max_iter)) {
    X_new <- projx(M - proxy(M - Z))            # Z - grad F(Z)
    t_new <- (1 + sqrt(1 + 4 * tk^2)) / 2
    if (sum((Z - X_new) * (X_new - X)) > 0) {   # restart the momentum
      t_new <- 1; Z <- X_new
    } else {
      Z <- X_new + ((tk - 1) / t_new) * (X_new - X)
    }
    X <- X_new; tk <- t_new
    if (k %% check_every == 0 || k == max_iter) {
      cur <- pair(X)
      if (cur$gap <= tol * max(1, cur$objective)) break
    }
  }
  c(pair(X), iterations = k)
}

# Plain-R re-implementation of the four iterations (paper Alg. 1 and its
# baselines, Sec. 5 / Table 3) from (X, Y) = (0, 0), for checking the C
# solver step by step over a short horizon. eta(t) is the proximal step size;
# step = "line_search" picks the convex combination by exact line search (for
# the elastic net on the convexity bound (1 - g) h(Y) + g h(W) of the
# penalty), step = "theory" uses eta(t) itself. Returns the objective after
# each iteration and the final (X, Y).
ref_rpca_iterate <- function(M, tau, s = NULL, sparse = "l1", method = "alt_cgpg",
                             iters = 30, delta = 0.2, lambda1 = 0, lambda2 = 0,
                             psd = FALSE, step = "line_search",
                             eta = function(t) 2 / (t + 1)) {
  p <- 1 + delta; q <- p / (p - 1)
  h <- function(Y) ref_rpca_penalty(Y, sparse, lambda1, lambda2)
  lmo_x <- function(G) {
    if (psd) {
      e <- eigen((G + t(G)) / 2, symmetric = TRUE)
      k <- length(e$values)
      if (e$values[k] < 0) tau * tcrossprod(e$vectors[, k]) else 0 * G
    } else {
      sv <- svd(G, 1, 1); -tau * tcrossprod(sv$u, sv$v)
    }
  }
  lmo_y <- function(G) switch(sparse,
    l1 = { W <- 0 * G; k <- which.max(abs(G)); W[k] <- -s * sign(G[k]); W },
    lp = { a <- abs(G)^(q - 1); -s * sign(G) * a / sum(a^p)^(1 / p) },
    enet = sign(-G) * pmax(abs(G) - lambda1, 0) / (2 * lambda2))
  prox_y <- function(A, e) switch(sparse,      # argmin h(W) + e/2 ||W - A||^2
    l1 = matrix(ref_proj_l1(as.vector(A), s), nrow(A)),
    lp = ref_proj_lp(A, s, p),
    enet = sign(A) * pmax(abs(A) - lambda1 / e, 0) / (1 + 2 * lambda2 / e))
  X <- 0 * M; Y <- 0 * M; obj <- numeric(iters)
  for (t in seq_len(iters)) {
    G <- X + Y - M; e <- eta(t)
    if (method == "alt_cgpg") {
      W <- lmo_y(G); V <- ref_rpca_proj_x(X + Y - W - G / e, tau, psd)
    } else if (method == "alt_pgcg") {
      V <- lmo_x(G); W <- prox_y(X + Y - V - G / e, e)
    } else {
      V <- lmo_x(G); W <- lmo_y(G)
    }
    if (step == "theory") {
      g <- e
    } else {
      D <- V - X + W - Y; dd <- sum(D^2)
      g <- if (dd > 0) min(1, max(0, (-sum(G * D) - h(W) + h(Y)) / dd)) else 0
    }
    X <- X + g * (V - X); Y <- Y + g * (W - Y)
    if (method == "cgcg_p") Y <- prox_y(M - X, 1)
    obj[t] <- ref_rpca_objective(X, Y, M, sparse, lambda1, lambda2)
  }
  list(objective = obj, X = X, Y = Y)
}

# ---- robust PCA, penalized form (principal component pursuit) --------------
# min ||L||_* + lambda ||S||_1 subject to L + S = M. Certificate for any L
# and multiplier U: the point (L, M - L) is feasible, and
# Lam = U / max(||U||_2, ||U||_inf / lambda) is dual feasible
# (||Lam||_2 <= 1, ||Lam||_inf <= lambda), so <Lam, M> <= optimum <= f(L, M - L).
ref_pcp_bounds <- function(M, L, U, lambda) {
  sc <- max(svd(U, 0, 0)$d[1], max(abs(U)) / lambda)
  list(objective = sum(svd(L, 0, 0)$d) + lambda * sum(abs(M - L)),
       lower = if (sc > 0) sum(U * M) / sc else 0)
}

# Reference solver: ADMM with rpca's fixed penalty mu = mn / (4 ||M||_1) and
# a full svd() per iteration, until the certified relative gap
# (objective - lower) / objective is at most tol. Returns L, S = M - L (the
# feasible point), objective, lower bound and iterations.
ref_pcp <- function(M, lambda = 1 / sqrt(max(dim(M))), tol = 1e-10, max_iter = 20000) {
  mu <- prod(dim(M)) / (4 * sum(abs(M)))
  S <- U <- 0 * M
  soft <- function(A, t) sign(A) * pmax(abs(A) - t, 0)
  for (k in seq_len(max_iter)) {
    sv <- svd(M - S + U / mu)
    L <- sv$u %*% (pmax(sv$d - 1 / mu, 0) * t(sv$v))
    S <- soft(M - L + U / mu, lambda / mu)
    U <- U + mu * (M - L - S)
    if (k %% 20 == 0 || k == max_iter) {
      b <- ref_pcp_bounds(M, L, U, lambda)
      if (b$objective - b$lower <= tol * b$objective) break
    }
  }
  c(list(L = L, S = M - L), b, iterations = k)
}

# ---- l1-penalized covariance with an eigenvalue floor (Xue, Ma, Zou 2012) ---
# Primal:  P(Sigma) = 1/2 ||Sigma - S||_F^2 + lambda sum_{i != j} |Sigma_ij|
#          over Sigma >= eps I (diagonal unpenalized).
# Dual:    Lagrangian with Lambda >= 0 (PSD) for Sigma - eps I >= 0,
#          g(Lambda) = min_Sigma P(Sigma) - <Lambda, Sigma - eps I>,
#          attained at Sigma(Lambda) = soft_off(S + Lambda, lambda), so
#          g(Lambda) = P(Sigma(Lambda)) - <Lambda, Sigma(Lambda)> + eps tr(Lambda)
#          and g(Lambda) <= P* <= P(Sigma) for every Lambda >= 0 and every
#          feasible Sigma: the gap P(Sigma) - g(Lambda) certifies both.
# KKT:     Sigma >= eps I, Lambda >= 0, Lambda (Sigma - eps I) = 0, and
#          G = Sigma - S - Lambda has G_ii = 0, G_ij = -lambda sign(Sigma_ij) on
#          the support, |G_ij| <= lambda off it.
ref_soft_off <- function(A, t) {
  B <- sign(A) * pmax(abs(A) - t, 0)
  diag(B) <- diag(A)
  B
}

ref_covsp_objective <- function(Sigma, S, lambda) {
  0.5 * sum((Sigma - S)^2) + lambda * (sum(abs(Sigma)) - sum(abs(diag(Sigma))))
}

ref_covsp_dual <- function(Lambda, S, lambda, eps) {
  Sg <- ref_soft_off(S + Lambda, lambda)
  ref_covsp_objective(Sg, S, lambda) - sum(Lambda * Sg) + eps * sum(diag(Lambda))
}

# Projection onto {Sigma >= eps I} (eigenvalues clipped at eps)
ref_proj_floor <- function(A, eps) {
  e <- eigen((A + t(A)) / 2, symmetric = TRUE)
  e$vectors %*% (pmax(e$values, eps) * t(e$vectors))
}

# Reference solver: the ADMM of Xue, Ma and Zou (split Sigma = Theta, Theta
# >= eps I; scaled multiplier U) with a full eigen() per iteration and
# residual balancing of rho. U = V min(d - eps, 0) V' is negative
# semidefinite after every Theta step, so Lambda = -rho U is dual feasible.
# Returned Sigma: the soft-thresholded iterate (exact zeros) with its
# diagonal raised by max(0, eps - lambda_min) so it is feasible; stopped when
# P(Sigma) - g(Lambda) <= tol max(1, P(Sigma)), so
# P(Sigma) - tol max(1, P) <= optimum <= P(Sigma), and the primal and dual
# residuals ||Sigma - Theta||, rho ||Theta - Theta_old|| are at most
# tol max(1, ||S||_F) (the gap alone bounds ||Sigma - Sigma*||_F only by
# sqrt(2 gap); the residuals make the KKT conditions hold to ~tol).
ref_pd_sparse_cov <- function(S, lambda, eps, tol = 1e-10, rho = 1,
                              max_iter = 50000, check_every = 5) {
  S <- (S + t(S)) / 2
  p <- nrow(S)
  Theta <- ref_proj_floor(S, eps)
  U <- matrix(0, p, p)
  nS <- max(1, sqrt(sum(S^2)))
  for (k in seq_len(max_iter)) {
    Sigma <- ref_soft_off((S + rho * (Theta - U)) / (1 + rho), lambda / (1 + rho))
    e <- eigen(Sigma + U, symmetric = TRUE)
    Theta_old <- Theta
    Theta <- e$vectors %*% (pmax(e$values, eps) * t(e$vectors))
    U <- e$vectors %*% (pmin(e$values - eps, 0) * t(e$vectors))
    r <- sqrt(sum((Sigma - Theta)^2))
    s <- rho * sqrt(sum((Theta - Theta_old)^2))
    if (k %% check_every == 0 || k == max_iter) {
      lmin <- min(eigen(Sigma, symmetric = TRUE, only.values = TRUE)$values)
      Sf <- Sigma
      diag(Sf) <- diag(Sf) + max(0, eps - lmin)
      Lambda <- -rho * U
      primal <- ref_covsp_objective(Sf, S, lambda)
      dual <- ref_covsp_dual(Lambda, S, lambda, eps)
      if (primal - dual <= tol * max(1, primal) && max(r, s) <= tol * nS) break
    }
    if (r > 10 * s) {
      rho <- 2 * rho; U <- U / 2
    } else if (s > 10 * r) {
      rho <- rho / 2; U <- 2 * U
    }
  }
  list(Sigma = Sf, Lambda = Lambda, objective = primal, lower = dual,
       gap = primal - dual, residual = max(r, s), iterations = k, rho = rho,
       n_below = sum(e$values < eps))
}

# KKT residuals of a candidate Sigma (and multiplier Lambda). Entries with
# |Sigma_ij| <= zero_tol count as zeros; `tiny` counts nonzeros below zero_tol
# (they should be exact zeros). Without Lambda, one supported on the
# eigenvectors of Sigma within floor_tol of eps is fitted by alternating
# between Lambda = psd(P (Sigma - S + lambda Z) P) and the off-support
# subgradient Z = clip((S + Lambda) / lambda).
ref_covsp_kkt <- function(Sigma, S, lambda, eps, Lambda = NULL,
                          zero_tol = 1e-8, floor_tol = 1e-6) {
  Sigma <- as.matrix(Sigma)
  p <- nrow(S)
  e <- eigen((Sigma + t(Sigma)) / 2, symmetric = TRUE)
  zero <- abs(Sigma) <= zero_tol
  diag(zero) <- FALSE
  offd <- row(S) != col(S)
  Z <- sign(Sigma) * offd
  if (is.null(Lambda)) {
    V <- e$vectors[, e$values <= eps + floor_tol, drop = FALSE]
    Lambda <- matrix(0, p, p)
    if (ncol(V) > 0) {
      for (it in 1:200) {
        if (lambda > 0) Z[zero] <- pmin(pmax((S + Lambda)[zero] / lambda, -1), 1)
        M <- crossprod(V, (Sigma - S + lambda * Z) %*% V)
        em <- eigen((M + t(M)) / 2, symmetric = TRUE)
        Lambda <- V %*% (em$vectors %*% (pmax(em$values, 0) * t(em$vectors))) %*% t(V)
      }
    }
  }
  G <- Sigma - S - Lambda
  supp <- !zero & offd
  list(floor = max(0, eps - min(e$values)),
       lambda_psd = max(0, -min(eigen((Lambda + t(Lambda)) / 2, symmetric = TRUE,
                                      only.values = TRUE)$values)),
       complementary = abs(sum(Lambda * (Sigma - eps * diag(p)))),
       diagonal = max(abs(diag(G))),
       support = if (any(supp)) max(abs(G[supp] + lambda * sign(Sigma[supp]))) else 0,
       off_support = if (any(zero)) max(0, abs(G[zero]) - lambda) else 0,
       tiny = sum(Sigma[zero] != 0),
       zeros = sum(zero) / 2)
}

# ---- sparse plus low rank covariance ----------------------------------------
# Primal:  P(L, R) = 1/2 ||L + R - S||_F^2 + gamma tr(L) + lambda |R|_off
#          over L >= 0 (PSD) and R >= eps I.
# Dual (Fenchel, with G = L + R - S at the optimum): for any W and Lambda
#          with W + gamma I >= 0, Lambda >= 0, diag(W) = diag(Lambda) and
#          |W_ij - Lambda_ij| <= lambda (i != j),
#          D(W, Lambda) = -<W, S> - 1/2 ||W||^2 + eps tr(Lambda) <= P*,
#          since for each term sup_L <-W, L> - gamma tr L = 0 (W + gamma I
#          >= 0) and sup_{R >= eps I} <-W, R> - lambda |R|_off
#          <= sup_R <Lambda - W, R> - lambda |R|_off - eps tr Lambda
#          = -eps tr Lambda (Lambda >= 0 the multiplier of R >= eps I).
# ref_lrsp_dual turns any Lambda >= 0 and candidate G into such a dual
# point: the off-diagonal of W - Lambda clipped to [-lambda, lambda], the
# diagonal of W set to Lambda's, then W and Lambda shifted by t I
# (t = max(0, -gamma - lambda_min(W))) so that W + gamma I >= 0.
ref_lrsp_objective <- function(L, R, S, gamma, lambda) {
  0.5 * sum((L + R - S)^2) + gamma * sum(diag(L)) +
    lambda * (sum(abs(R)) - sum(abs(diag(R))))
}

ref_lrsp_dual <- function(G, Lambda, S, gamma, lambda, eps) {
  p <- nrow(S)
  W <- Lambda + pmin(pmax(G - Lambda, -lambda), lambda)
  diag(W) <- diag(Lambda)
  W <- (W + t(W)) / 2
  t <- max(0, -gamma - min(eigen(W, symmetric = TRUE, only.values = TRUE)$values))
  W <- W + t * diag(p); Lambda <- Lambda + t * diag(p)
  -sum(W * S) - 0.5 * sum(W^2) + eps * sum(diag(Lambda))
}

# the positive part of A - gamma I: the L minimizing the objective given R
# (with A = S - R)
ref_psd_shift <- function(A, gamma) {
  e <- eigen((A + t(A)) / 2, symmetric = TRUE)
  e$vectors %*% (pmax(e$values - gamma, 0) * t(e$vectors))
}

# Reference solver: eliminating L leaves F(R) = min_L (...), 1-smooth with
# gradient L(R) + R - S, L(R) = ref_psd_shift(S - R, gamma); its proximal
# step (step 1) is R = ref_pd_sparse_cov(S - L(Y), lambda, eps) (itself
# solved to a 1e-10 gap with its KKT residuals below 1e-10), accelerated
# (FISTA with adaptive restart). Every iterate (L(R), R) is feasible and
# the Fenchel point above built from G = L + R - S and the prox's
# multiplier Lambda bounds the optimum from below; stops when the gap is at
# most tol max(1, P).
ref_lowrank_sparse_cov <- function(S, gamma, lambda, eps, tol = 1e-10, max_iter = 2000,
                                   inner_tol = tol / 100) {
  S <- (S + t(S)) / 2
  R <- ref_proj_floor(S, eps); Y <- R; tk <- 1
  for (k in seq_len(max_iter)) {
    sp <- ref_pd_sparse_cov(S - ref_psd_shift(S - Y, gamma), lambda, eps, tol = inner_tol)
    R_new <- sp$Sigma
    t_new <- (1 + sqrt(1 + 4 * tk^2)) / 2
    if (sum((Y - R_new) * (R_new - R)) > 0) { t_new <- 1; Y <- R_new }   # restart
    else Y <- R_new + ((tk - 1) / t_new) * (R_new - R)
    R <- R_new; tk <- t_new
    L <- ref_psd_shift(S - R, gamma)
    primal <- ref_lrsp_objective(L, R, S, gamma, lambda)
    dual <- ref_lrsp_dual(L + R - S, sp$Lambda, S, gamma, lambda, eps)
    if (primal - dual <= tol * max(1, primal)) break
  }
  e <- eigen(L, symmetric = TRUE)
  list(L = L, R = R, Sigma = L + R, Lambda = sp$Lambda, objective = primal, lower = dual,
       gap = primal - dual, iterations = k,
       rank = sum(e$values > 1e-9 * max(1, abs(e$values[1]))))
}

# KKT residuals of a candidate (L, R): L >= 0, L = (S - R - gamma I)_+ (L
# optimal given R), and the KKT conditions of R for the floored sparse
# problem with S - L (ref_covsp_kkt, which fits the multiplier).
ref_lrsp_kkt <- function(L, R, S, gamma, lambda, eps, zero_tol = 1e-8) {
  L <- as.matrix(L); R <- as.matrix(R)
  c(list(L_psd = max(0, -min(eigen((L + t(L)) / 2, symmetric = TRUE,
                                   only.values = TRUE)$values)),
         L_step = max(abs(L - ref_psd_shift(S - R, gamma)))),
    ref_covsp_kkt(R, S - L, lambda, eps, zero_tol = zero_tol))
}

# sparse_covariance() on the problem in the data's own units, as stated on
# its help page: no standardization, no shrinkage, and unless given the
# floor of the versions before the data-chosen one (1% of the mean
# variance). The solver tests compare this problem with the references
# above; the defaults (standardize, shrink, floor) have tests of their own.
covariance_raw <- function(data, ..., standardize = FALSE, shrink = 0, floor = NULL, n = NULL) {
  if (is.null(floor) && is.numeric(as.matrix(data))) {
    v <- if (is.null(n)) apply(as.matrix(data), 2L, stats::var) else diag(as.matrix(data))
    if (all(is.finite(v)) && mean(v) > 0) floor <- 0.01 * mean(v)
  }
  sparse_covariance(data, ..., standardize = standardize, shrink = shrink, floor = floor,
                    n = n)
}
