# Oracles against the mathematics: LMOs against brute force and the
# variational characterisation, projections against plain-R bisection
# references and the obtuse-angle (KKT) condition, prox operators against
# their closed forms.

oracle <- function(...) stochcg:::cg_oracle(...)

# ---------------------------------------------------------------- helpers
# <y - P(y), z - P(y)> <= 0 for every z in a convex set characterises the
# Euclidean projection P(y) onto it.
expect_obtuse <- function(y, p, zs, tol = 1e-10) {
  zs <- matrix(zs, nrow = length(y))
  worst <- max(apply(zs, 2, function(z) sum((y - p) * (z - p))))
  expect_lte(worst, tol * max(1, sum(y^2)))
}
rsimplex <- function(n, radius) { e <- rexp(n); radius * e / sum(e) }
rl1ball <- function(n, radius) {
  sample(c(-1, 1), n, TRUE) * rsimplex(n, radius * runif(1))
}
# plain-R reference: x = clip(y - tau, lo, hi) with sum x = radius, by
# bisection on tau (f is monotone)
proj_by_bisection <- function(y, radius, cap = Inf) {
  f <- function(tau) sum(pmin(pmax(y - tau, 0), cap)) - radius
  lo <- min(y) - min(cap, radius) - 1; hi <- max(y) + 1
  repeat {                       # until the bracket stops shrinking
    mid <- (lo + hi) / 2
    if (mid <= lo || mid >= hi) break
    if (f(mid) > 0) lo <- mid else hi <- mid
  }
  pmin(pmax(y - (lo + hi) / 2, 0), cap)
}

# ---------------------------------------------------------------- l1 LMO
test_that("l1 LMO is the best of the 2n vertices", {
  set.seed(1)
  for (rep in 1:20) {
    n <- sample(1:12, 1); g <- rnorm(n); r <- rexp(1) + 0.1
    V <- cbind(r * diag(n), -r * diag(n))            # all vertices
    best <- V[, which.min(colSums(g * V))]
    res <- oracle("lmo_l1", g = g, radius = r)
    expect_equal(res$s, best)
    expect_equal(sum(g * res$s), -r * max(abs(g)))
    expect_equal(res$s[res$idx], res$val)
  }
})

test_that("l1 LMO breaks ties by smallest index and maps g = 0 to -r e_1", {
  res <- oracle("lmo_l1", g = c(1, -3, 3), radius = 2)
  expect_identical(res$idx, 2L); expect_equal(res$val, 2)
  res <- oracle("lmo_l1", g = c(0, 0, 0), radius = 2)
  expect_identical(res$idx, 1L); expect_equal(res$val, -2)
})

# ---------------------------------------------------------------- lp LMO
test_that("lp LMO attains -r ||g||_q and beats random feasible points", {
  set.seed(2)
  for (p in c(1.2, 1.5, 2, 3, 7)) {
    q <- p / (p - 1)
    n <- 6; g <- rnorm(n); r <- 1.7
    s <- oracle("lmo_lp", g = g, radius = r, p = p)$s
    expect_equal(sum(abs(s)^p)^(1 / p), r)               # on the sphere
    expect_equal(sum(g * s), -r * sum(abs(g)^q)^(1 / q))  # Hoelder equality
    # random points of the ball: never better than s
    X <- matrix(rnorm(n * 2000), n)
    X <- r * sweep(X, 2, colSums(abs(X)^p)^(1 / p), "/") *
      rep(runif(2000)^(1 / n), each = n)
    expect_true(all(colSums(g * X) >= sum(g * s) - 1e-12))
  }
  expect_equal(oracle("lmo_lp", g = c(0, 0), radius = 1, p = 2)$s, c(0, 0))
  g <- c(3, -4)  # p = 2: -r g / ||g||
  expect_equal(oracle("lmo_lp", g = g, radius = 2, p = 2)$s, -2 * g / 5)
})

test_that("lp LMO matches a dense search on the unit sphere for n = 2", {
  set.seed(3)
  for (p in c(1.3, 2.5, 4)) {
    g <- rnorm(2); r <- 1.3
    t <- seq(0, 2 * pi, length.out = 200001)
    B <- rbind(cos(t), sin(t)); B <- r * sweep(B, 2, colSums(abs(B)^p)^(1 / p), "/")
    val <- colSums(g * B)
    s <- oracle("lmo_lp", g = g, radius = r, p = p)$s
    expect_equal(sum(g * s), min(val), tolerance = 1e-8)
    expect_equal(s, B[, which.min(val)], tolerance = 1e-4)
    # and a local optimiser started away from the answer
    obj <- function(a) sum(g * r * c(cos(a), sin(a)) /
                             sum(abs(c(cos(a), sin(a)))^p)^(1 / p))
    opt <- optimize(obj, c(0, 2 * pi), tol = 1e-12)
    expect_gte(opt$objective, sum(g * s) - 1e-10)
  }
})

# --------------------------------------------------- simplex and box LMOs
test_that("simplex LMO is the best vertex, ties to the smallest index", {
  set.seed(4)
  for (rep in 1:20) {
    n <- sample(1:10, 1); g <- rnorm(n); r <- 2.5
    V <- diag(r, n)
    res <- oracle("lmo_simplex", g = g, radius = r)
    expect_equal(res$s, V[, which.min(colSums(g * V))])
    expect_true(all(colSums(g * matrix(replicate(200, rsimplex(n, r)), n)) >= sum(g * res$s) - 1e-12))
  }
  expect_identical(oracle("lmo_simplex", g = c(2, -1, -1), radius = 1)$idx, 2L)
})

test_that("box LMO is the best of the 2^n corners", {
  set.seed(5)
  n <- 5
  corners <- as.matrix(expand.grid(rep(list(0:1), n)))
  for (rep in 1:20) {
    g <- rnorm(n); lo <- -runif(n); hi <- runif(n)
    V <- t(sweep(corners, 2, hi - lo, "*")) + lo
    s <- oracle("lmo_box", g = g, lo = lo, hi = hi)$s
    expect_equal(s, unname(V[, which.min(colSums(g * V))]))
    Z <- matrix(runif(n * 500, lo, hi), n)
    expect_true(all(colSums(g * Z) >= sum(g * s) - 1e-12))
  }
})

# -------------------------------------------------------- simplex projection
test_that("simplex projection matches bisection and the obtuse-angle condition", {
  set.seed(6)
  for (rep in 1:30) {
    n <- sample(1:40, 1); y <- rnorm(n, sd = 2); r <- rexp(1) + 0.01
    x <- oracle("proj_simplex", y = y, radius = r)$x
    expect_true(all(x >= 0)); expect_equal(sum(x), r)
    expect_equal(x, proj_by_bisection(y, r), tolerance = 1e-10)
    expect_obtuse(y, x, replicate(200, rsimplex(n, r)))
  }
  expect_equal(oracle("proj_simplex", y = c(0.2, 0.3, 0.5), radius = 1)$x, c(0.2, 0.3, 0.5))
  expect_equal(oracle("proj_simplex", y = c(0.5, 1.2, -1), radius = 1)$x, c(0.15, 0.85, 0))
  expect_equal(oracle("proj_simplex", y = c(3, 3), radius = 1)$x, c(0.5, 0.5))
  expect_equal(oracle("proj_simplex", y = c(1, 2), radius = 0)$x, c(0, 0))
})

test_that("l1 projection is identity inside and sign * simplex outside", {
  set.seed(7)
  for (rep in 1:30) {
    n <- sample(1:30, 1); y <- rnorm(n); r <- runif(1, 0.1, 2) * sum(abs(y))
    x <- oracle("proj_l1", y = y, radius = r)$x
    if (sum(abs(y)) <= r) {
      expect_identical(x, y)
    } else {
      expect_equal(sum(abs(x)), r)
      expect_equal(x, sign(y) * proj_by_bisection(abs(y), r), tolerance = 1e-10)
    }
    expect_obtuse(y, x, replicate(200, rl1ball(n, r)))
  }
})

test_that("capped simplex projection is feasible and optimal", {
  set.seed(8)
  for (rep in 1:40) {
    n <- sample(1:30, 1); y <- rnorm(n, sd = 2); cap <- runif(1, 0.05, 2)
    r <- runif(1) * n * cap
    x <- oracle("proj_capped_simplex", y = y, radius = r, cap = cap)$x
    expect_true(all(x >= 0 & x <= cap)); expect_equal(sum(x), r)
    expect_equal(x, proj_by_bisection(y, r, cap), tolerance = 1e-9)
    # other feasible points: projections of random vectors
    Z <- replicate(30, proj_by_bisection(rnorm(n, sd = 3), r, cap))
    expect_obtuse(y, x, Z, tol = 1e-9)
  }
  x <- oracle("proj_capped_simplex", y = c(0.5, 1.2, -1, 0.9), radius = 1.5, cap = 0.6)$x
  expect_equal(x, c(0.3, 0.6, 0, 0.6))
  # radius = n cap forces every coordinate to the cap; ties in y are harmless
  expect_equal(oracle("proj_capped_simplex", y = c(1, 1, 1), radius = 3, cap = 1)$x, c(1, 1, 1))
  expect_equal(oracle("proj_capped_simplex", y = c(1, 1, 1), radius = 1, cap = 1)$x, rep(1 / 3, 3))
  expect_error(oracle("proj_capped_simplex", y = 1:3, radius = 4, cap = 1), "radius")
})

test_that("capped simplex with a large cap is the plain simplex projection", {
  set.seed(9)
  y <- rnorm(25); r <- 2
  expect_equal(oracle("proj_capped_simplex", y = y, radius = r, cap = 100)$x,
               oracle("proj_simplex", y = y, radius = r)$x, tolerance = 1e-12)
})

# ------------------------------------------------------- spectrum projection
test_that("spectrum projection: clip, then the simplex only when needed", {
  ps <- function(s, r, eq) oracle("proj_spectrum", s = s, radius = r, equality = eq)$x
  expect_equal(ps(c(3, 1, 0.5), 10, 0), c(3, 1, 0.5))      # inside: unchanged
  expect_equal(ps(c(3, -1, 0.5), 10, 0), c(3, 0, 0.5))     # clip negatives
  expect_equal(ps(c(3, 1, 0.5), 2, 0), c(2, 0, 0))         # outside: simplex
  expect_equal(ps(c(3, 1, 0.5), 10, 1), c(3, 1, 0.5) + 5.5 / 3)
  expect_equal(ps(c(1, -1, -2), 1, 1), c(1, 0, 0))
  set.seed(10)
  for (rep in 1:20) {
    s <- rnorm(8); r <- rexp(1)
    x <- ps(s, r, 0)
    # reference: Euclidean projection onto {x >= 0, sum x <= r}
    ref <- if (sum(pmax(s, 0)) <= r) pmax(s, 0) else proj_by_bisection(s, r)
    expect_equal(x, ref, tolerance = 1e-10)
    Z <- replicate(200, rsimplex(8, r * runif(1)))
    expect_obtuse(s, x, Z)
    expect_equal(ps(s, r, 1), proj_by_bisection(s, r), tolerance = 1e-10)
  }
})

# -------------------------------------------------------- matrix oracles
proj_nuclear_R <- function(Y, r) {
  s <- svd(Y); d <- s$d
  d <- if (sum(d) <= r) d else proj_by_bisection(d, r)
  s$u %*% (d * t(s$v))
}
proj_psd_R <- function(Y, r, equality) {
  e <- eigen((Y + t(Y)) / 2, symmetric = TRUE); w <- e$values
  w <- if (!equality && sum(pmax(w, 0)) <= r) pmax(w, 0) else proj_by_bisection(w, r)
  e$vectors %*% (w * t(e$vectors))
}

test_that("nuclear-ball projection matches an svd() implementation", {
  set.seed(11)
  for (dims in list(c(6, 4), c(4, 6), c(15, 15), c(40, 25))) {
    Y <- matrix(rnorm(prod(dims)), dims[1])
    for (r in c(0.5, 3, 1e3)) {
      X <- oracle("proj_nuclear", X = Y, radius = r)$X
      expect_equal(X, proj_nuclear_R(Y, r), tolerance = 1e-10)
      expect_lte(sum(svd(X)$d), r + 1e-9)
    }
    # obtuse angle against random points of the ball
    X <- oracle("proj_nuclear", X = Y, radius = 2)$X
    Z <- replicate(50, { W <- matrix(rnorm(prod(dims)), dims[1]); 2 * runif(1) * W / sum(svd(W)$d) })
    expect_obtuse(as.vector(Y), as.vector(X), matrix(Z, ncol = 50))
  }
})

test_that("PSD projection matches an eigen() implementation", {
  set.seed(12)
  for (n in c(1, 3, 10, 30)) {
    Y <- matrix(rnorm(n * n), n)
    for (r in c(0.5, 4, 1e3)) for (eq in 0:1) {
      X <- oracle("proj_psd", X = Y, radius = r, equality = eq)$X
      expect_equal(X, proj_psd_R(Y, r, eq), tolerance = 1e-10)
      expect_true(isSymmetric(X))
      w <- eigen(X, symmetric = TRUE, only.values = TRUE)$values
      expect_gte(min(w), -1e-10)
      if (eq) expect_equal(sum(diag(X)), r) else expect_lte(sum(diag(X)), r + 1e-10)
    }
  }
  expect_equal(oracle("proj_psd", X = -diag(3), radius = 1, equality = 0L)$X, matrix(0, 3, 3))
})

test_that("nuclear LMO returns the top singular pair and beats the ball", {
  set.seed(13)
  for (dims in list(c(10, 7), c(120, 80))) {
    G <- matrix(rnorm(prod(dims)), dims[1]); r <- 2
    res <- oracle("lmo_nuclear", A = G, radius = r)
    S <- -r * res$u %*% t(res$v)
    expect_equal(sum(G * S), -r * svd(G)$d[1], tolerance = 1e-10)
    Z <- replicate(100, { W <- matrix(rnorm(prod(dims)), dims[1]); r * W / sum(svd(W)$d) })
    expect_true(all(colSums(as.vector(G) * matrix(Z, ncol = 100)) >= sum(G * S) - 1e-10))
  }
})

test_that("PSD LMO uses the smallest eigenpair and returns 0 when G is PSD", {
  set.seed(14)
  for (n in c(8, 60)) {
    B <- matrix(rnorm(n * n), n); G <- (B + t(B)) / 2
    e <- eigen(G, symmetric = TRUE)
    res <- oracle("lmo_psd", A = G, radius = 3, equality = 0L)
    expect_equal(res$values, min(e$values), tolerance = 1e-10)
    expect_true(res$nonzero)
    v <- res$vectors[, 1]
    expect_equal(abs(sum(v * e$vectors[, n])), 1, tolerance = 1e-8)
    # <G, r v v'> = r lambda_min is the minimum over the spectrahedron
    expect_equal(3 * sum(v * (G %*% v)), 3 * min(e$values), tolerance = 1e-10)
    P <- crossprod(B) + diag(n)          # positive definite: S = 0 is optimal
    expect_false(oracle("lmo_psd", A = P, radius = 3, equality = 0L)$nonzero)
    expect_true(oracle("lmo_psd", A = P, radius = 3, equality = 1L)$nonzero)
  }
})

# ------------------------------------------------------------------- prox
test_that("soft threshold and elastic-net prox match their closed forms", {
  x <- c(-3, -0.5, 0, 0.2, 2)
  expect_equal(oracle("soft_threshold", x = x, lambda = 1)$x, c(-2, 0, 0, 0, 1))
  expect_equal(oracle("soft_threshold", x = x, lambda = 0)$x, x)
  set.seed(15)
  for (rep in 1:20) {
    xi <- rnorm(1, sd = 3); l1 <- rexp(1); l2 <- rexp(1); step <- rexp(1)
    z <- oracle("prox_enet", x = xi, l1 = l1, l2 = l2, step = step)$x
    obj <- function(z) 0.5 * (z - xi)^2 + step * (l1 * abs(z) + l2 * z^2)
    opt <- optimize(obj, c(-abs(xi) - 1, abs(xi) + 1), tol = 1e-12)
    expect_equal(z, opt$minimum, tolerance = 1e-6)
    expect_lte(obj(z), opt$objective + 1e-12)
  }
  expect_equal(oracle("prox_enet", x = x, l1 = 1, l2 = 0.5, step = 2)$x,
               sign(x) * pmax(abs(x) - 2, 0) / 3)
})

# ------------------------------------------------------------- bad input
test_that("the glue rejects unknown oracles and malformed arguments", {
  expect_error(oracle("lmo_nope", g = 1), "unknown oracle")
  expect_error(oracle("lmo_l1", radius = 1), "'g' is missing")
  expect_error(oracle("lmo_lp", g = 1:3, radius = 1, p = 1), "'p'")
  expect_error(oracle("svds", A = matrix(1, 3, 3), k = 4L), "'k'")
  expect_error(oracle("svds", A = list(p = c(0L, 1L), i = 5L, x = 1, m = 2L, n = 1L), k = 1L),
               "out of range")
  expect_error(oracle("proj_psd", X = matrix(1, 2, 3), radius = 1, equality = 0L), "square")
  x <- c(1, -2); oracle("soft_threshold", x = x, lambda = 1)
  expect_identical(x, c(1, -2))    # inputs are never modified
})
