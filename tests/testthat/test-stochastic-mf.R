# stochastic_mf(): paper 002 (Zhao, Haskell and Feng). The C kernels (prox
# operators, BSUM, the variance-reduced estimator) against closed forms and
# plain-R references written here; recovery of planted dictionaries.

smf_spec <- function(model, d, k, n = 100, ...) {
  a <- list(...)
  stochcg:::smf_model_spec(model, d, n, k, a, list(max_abs = 1, Y = diag(d)))$spec
}
`%||%` <- function(a, b) if (is.null(a)) b else a
prox_c <- function(spec, x, which, step, d, k)
  stochcg:::smf_prox(spec, x, which, step, d, k)
coefficients_c <- function(spec, W, Y, tol = 1e-12, max_iter = 100000L) {
  args <- c(list(d = nrow(W), n = ncol(Y), k = ncol(W), W = W, Y = Y, bsum_tol = tol,
                 bsum_max_iter = as.integer(max_iter)), spec)
  .Call(stochcg:::C_cg_smf_kernel, "coefficients", args)
}
soft <- function(x, t) sign(x) * pmax(abs(x) - t, 0)
# expressed variance of the span of What for the span of Wtrue (Xu et al.)
expressed_variance <- function(Wtrue, What) {
  U <- qr.Q(qr(Wtrue)); Q <- qr.Q(qr(What))
  sum(crossprod(Q, U)^2) / ncol(U)
}

test_that("coefficient prox operators match their closed forms", {
  set.seed(1)
  d <- 6; k <- 7; x <- rnorm(k, sd = 2); t <- 0.37
  expect_equal(prox_c(smf_spec("odl", d, k, lambda = 0.8), x, "h", t, d, k),
               soft(x, 0.8 * t), tolerance = 1e-15)
  expect_equal(prox_c(smf_spec("orpca", d, k, lambda1 = 0.8), x, "h", t, d, k),
               x / (1 + 0.8 * t), tolerance = 1e-15)
  # onmf: argmin_{z >= 0} 1/2 (z - x)^2 + t lambda / 2 z^2, coordinate-wise by optimize()
  got <- prox_c(smf_spec("onmf", d, k, lambda = 0.8), x, "h", t, d, k)
  ref <- vapply(x, function(xi) optimize(function(z) 0.5 * (z - xi)^2 + 0.4 * t * z^2,
                                         c(0, 10), tol = 1e-12)$minimum, 0)
  expect_equal(got, ref, tolerance = 1e-7)
  # ornmf: the box [0, M]
  expect_equal(prox_c(smf_spec("ornmf", d, k, M = 1.5), x, "h", t, d, k),
               pmin(pmax(x, 0), 1.5), tolerance = 1e-15)
  # ossl: block soft thresholding; checked by the optimality conditions
  groups <- c(1, 1, 2, 2, 2, 3, 4); lam <- c(0.5, 30, 0.1, 2)
  p <- prox_c(smf_spec("ossl", d, k, groups = groups, lambda = lam), x, "h", t, d, k)
  for (g in 1:4) {
    j <- groups == g
    if (all(p[j] == 0)) {
      expect_lte(sqrt(sum(x[j]^2)), t * lam[g] + 1e-12)
    } else {
      expect_equal(x[j] - p[j], t * lam[g] * p[j] / sqrt(sum(p[j]^2)), tolerance = 1e-12)
    }
  }
  expect_true(any(p == 0) && any(p != 0))   # both cases occur
})

test_that("outlier prox operators match brute force", {
  set.seed(2)
  d <- 9; k <- 2; x <- rnorm(d, sd = 3)
  expect_equal(prox_c(smf_spec("orpca", d, k, lambda2 = 0.7), x, "r", 1, d, k),
               soft(x, 0.7), tolerance = 1e-15)
  expect_equal(prox_c(smf_spec("odl", d, k), x, "r", 1, d, k), rep(0, d))
  got <- prox_c(smf_spec("ornmf", d, k, lambda = 0.7, M_prime = 2), x, "r", 1, d, k)
  ref <- vapply(x, function(xi) optimize(function(z) 0.5 * (z - xi)^2 + 0.7 * abs(z),
                                         c(-2, 2), tol = 1e-12)$minimum, 0)
  expect_equal(got, ref, tolerance = 1e-6)
  expect_true(any(abs(got) == 2))          # the box is active somewhere
})

test_that("dictionary projections are the Euclidean projections onto C", {
  set.seed(3)
  d <- 5; k <- 4
  V <- matrix(rnorm(d * k, sd = 2), d)
  # odl: columns scaled into the unit ball
  P <- matrix(prox_c(smf_spec("odl", d, k), V, "dict", 0.5, d, k), d)
  expect_equal(P, sweep(V, 2, pmax(1, sqrt(colSums(V^2))), "/"), tolerance = 1e-15)
  # orpca: psi = lambda1 / (2n) ||W||^2 on a free W: shrinkage by 1 + eta lambda1 / n
  P <- matrix(prox_c(smf_spec("orpca", d, k, n = 10, lambda1 = 2), V, "dict", 0.5, d, k), d)
  expect_equal(P, V / (1 + 0.5 * 2 / 10), tolerance = 1e-15)
  # onmf (simplex) and ornmf (nonnegative part of the ball): the variational
  # inequality <v - p, z - p> <= 0 for many points z of the set, p in the set
  check_projection <- function(spec, feasible, draw) {
    P <- matrix(prox_c(spec, V, "dict", 0, d, k), d)
    for (j in seq_len(k)) {
      expect_true(feasible(P[, j]))
      for (rep in 1:200) {
        z <- draw()
        expect_lte(sum((V[, j] - P[, j]) * (z - P[, j])), 1e-12)
      }
    }
  }
  check_projection(smf_spec("onmf", d, k),
                   function(p) all(p >= 0) && abs(sum(p) - 1) < 1e-12,
                   function() { z <- rexp(d) * (runif(d) < 0.6); if (sum(z) == 0) z[1] <- 1
                                z / sum(z) })
  check_projection(smf_spec("ornmf", d, k),
                   function(p) all(p >= 0) && sum(p^2) <= 1 + 1e-12,
                   function() { z <- abs(rnorm(d)) * (runif(d) < 0.6)
                                z / max(1, sqrt(sum(z^2))) * runif(1)^0.2 })
})

test_that("the prox of the max-row-norm and quadratic psi (omrmd, ssodl, olrr)", {
  set.seed(13)
  d <- 5; k <- 3; n <- 10
  V <- matrix(rnorm(d * k, sd = 2), d)
  # subgradient inequality of the prox p of F: F(z) >= F(p) + <V - p, z - p>
  check_prox <- function(P, F, draw) {
    for (rep in 1:300) {
      z <- draw()
      expect_gte(F(z) - F(P) - sum((V - P) * (z - P)), -1e-9)
    }
  }
  # omrmd: eta psi = eta lambda1 / (2n) max_i ||w_i||^2, C free
  spec <- smf_spec("omrmd", d, k, n = n, lambda1 = 30)
  eta <- 0.8; t <- eta * 30 / n
  P <- matrix(prox_c(spec, V, "dict", eta, d, k), d)
  rows <- sqrt(rowSums(P^2)); cap <- max(rows)
  expect_gt(sum(abs(rows - cap) < 1e-12), 1)              # several rows cut to the cap
  expect_lt(cap, max(sqrt(rowSums(V^2))))
  check_prox(P, function(W) t / 2 * max(rowSums(W^2)),
             function() P + matrix(rnorm(d * k, sd = runif(1, 0.001, 1)), d))
  # olrr: quadratic psi, C free: (I + eta Q)^{-1} V
  Y <- matrix(rnorm(d * 40), d); A <- matrix(rnorm(d * d), d); B <- matrix(rnorm(2 * d), 2)
  spec <- smf_spec("olrr", d, k, n = 40, lambda3 = 2, A = A, B = B)
  Q <- (tcrossprod(A %*% Y) + 2 * crossprod(B)) / 40^2
  ospec <- stochcg:::smf_model_spec("olrr", d, 40, k, list(lambda3 = 2, A = A, B = B),
                                    list(Y = Y, max_abs = 1))$spec
  expect_equal(ospec$Q, Q, tolerance = 1e-12)
  P <- matrix(prox_c(ospec, V, "dict", eta, d, k), d)
  expect_equal(P, solve(diag(d) + eta * Q, V), tolerance = 1e-9)
  # ssodl: quadratic psi lambda1/2 tr(W'LW) on simplex columns
  L <- stochcg:::smf_laplacian(d)
  spec <- smf_spec("ssodl", d, k, lambda1 = 3, laplacian = L)
  P <- matrix(prox_c(spec, V, "dict", eta, d, k), d)
  expect_true(all(P >= 0))
  expect_equal(colSums(P), rep(1, k), tolerance = 1e-12)
  check_prox(P, function(W) eta * 3 / 2 * sum(W * (L %*% W)),
             function() { Z <- matrix(rexp(d * k) * (runif(d * k) < 0.7), d) + 1e-3
                          sweep(Z, 2, colSums(Z), "/") })
})

test_that("the default Laplacians of ssodl: chain and image grid", {
  L <- stochcg:::smf_laplacian(4)
  expect_equal(L, matrix(c(1, -1, 0, 0, -1, 2, -1, 0, 0, -1, 2, -1, 0, 0, -1, 1), 4))
  G <- stochcg:::smf_laplacian(6, c(2, 3))          # 2 x 3 grid: 7 edges
  expect_equal(rowSums(G), rep(0, 6))
  expect_equal(sum(diag(G)), 2 * 7)
  expect_equal(diag(G), c(2, 2, 3, 3, 2, 2))         # corners 2, middle column 3
})

# Proximal gradient on (h, r) jointly, many iterations: an accurate
# reference solution of sub-problem (2), independent of BSUM.
reference_subproblem <- function(model, W, y, pars, iters = 20000) {
  k <- ncol(W); d <- nrow(W)
  step <- 1 / (max(eigen(crossprod(W), only.values = TRUE)$values) + 1)
  prox_h <- switch(model,
    odl = function(h) soft(h, step * pars$lambda),
    onmf = function(h) pmax(h, 0) / (1 + step * pars$lambda),
    orpca = function(h) h / (1 + step * pars$lambda1),
    ornmf = function(h) pmin(pmax(h, 0), pars$M),
    omrmd = function(h) h / max(1, sqrt(sum(h^2))),
    ossl = function(h) {
      for (g in unique(pars$groups)) {
        j <- pars$groups == g; lam <- pars$lambda[g]; nrm <- sqrt(sum(h[j]^2))
        h[j] <- if (nrm > step * lam) h[j] * (1 - step * lam / nrm) else 0
      }
      h
    })
  prox_r <- switch(model,
    odl = , onmf = , ossl = function(r) 0 * r,
    orpca = , omrmd = function(r) soft(r, step * pars$lambda2),
    ornmf = function(r) pmin(pmax(soft(r, step * pars$lambda), -pars$M_prime), pars$M_prime))
  value <- function(h, r) 0.5 * sum((y - W %*% h - r)^2) + switch(model,
    odl = pars$lambda * sum(abs(h)), onmf = pars$lambda / 2 * sum(h^2),
    orpca = pars$lambda1 / 2 * sum(h^2) + pars$lambda2 * sum(abs(r)),
    omrmd = pars$lambda2 * sum(abs(r)),
    ornmf = pars$lambda * sum(abs(r)),
    ossl = sum(vapply(unique(pars$groups), function(g)
      pars$lambda[g] * sqrt(sum(h[pars$groups == g]^2)), 0)))
  h <- rep(0, k); r <- rep(0, d)
  for (i in seq_len(iters)) {
    e <- drop(W %*% h + r - y)
    h <- prox_h(h - step * drop(crossprod(W, e)))
    r <- prox_r(r - step * e)
  }
  list(h = h, r = r, value = value(h, r))
}

test_that("BSUM solves sub-problem (2) as an accurate reference solver does", {
  set.seed(4)
  d <- 8; k <- 3
  W <- matrix(rnorm(d * k), d)
  Wn <- abs(W); Wn <- sweep(Wn, 2, sqrt(colSums(Wn^2)), "/")
  y <- drop(W %*% c(1.5, 0, -2)); y[2] <- y[2] + 6          # one outlier
  yn <- drop(Wn %*% c(1, 2, 0.5)); yn[3] <- yn[3] - 4
  cases <- list(
    list(model = "odl", W = W, y = y, pars = list(lambda = 0.3)),
    list(model = "onmf", W = Wn, y = yn, pars = list(lambda = 0.2)),
    list(model = "orpca", W = W, y = y, pars = list(lambda1 = 0.3, lambda2 = 0.5)),
    list(model = "ornmf", W = Wn, y = yn, pars = list(lambda = 0.5, M = 1.8, M_prime = 3)),
    list(model = "ossl", W = W, y = y, pars = list(groups = c(1, 1, 2), lambda = c(0.4, 9))),
    list(model = "omrmd", W = W, y = y, pars = list(lambda2 = 0.5)))
  for (cs in cases) {
    spec <- do.call(smf_spec, c(list(cs$model, d, k), cs$pars))
    got <- coefficients_c(spec, cs$W, matrix(cs$y))
    ref <- reference_subproblem(cs$model, cs$W, cs$y, cs$pars)
    expect_equal(drop(got$H), ref$h, tolerance = 1e-6, info = cs$model)
    expect_equal(got$loss, ref$value, tolerance = 1e-9, info = cs$model)
    if (cs$model %in% c("orpca", "ornmf", "omrmd")) {
      expect_equal(drop(got$R), ref$r, tolerance = 1e-6, info = cs$model)
      expect_gt(sum(got$R != 0), 0)
    } else {
      expect_null(got$R)
    }
  }
})

test_that("orpca and olrr sub-problems are solved exactly (Newton) on Synth-like columns", {
  # the Synth data of Section 5.1 (d = 50, k = 5, outlier density 0.3,
  # magnitude 10): BSUM (5)-(6) left ~95% of such columns at 200 rounds;
  # the Newton path must satisfy the optimality conditions of (2),
  #   r = soft(y - W h, lambda2),  lambda1 h = W'(y - W h - r),
  # to rounding, in few iterations, and reach the minimum that a
  # quasi-Newton run (optim, BFGS) on the reduced Huber objective finds
  set.seed(11)
  d <- 50; k <- 5; n <- 40
  W <- matrix(rnorm(d * k, 0.5, sqrt(1 / sqrt(k))), d)
  Y <- W %*% matrix(rnorm(k * n, 0.5, sqrt(1 / sqrt(k))), k)
  out <- sample(d * n, 0.3 * d * n)
  Y[out] <- Y[out] + runif(length(out), -10, 10)
  l1 <- 1 / sqrt(d); l2 <- 1 / sqrt(d)
  for (model in c("orpca", "olrr")) {
    spec <- smf_spec(model, d, k, lambda1 = l1, lambda2 = l2)
    got <- coefficients_c(spec, W, Y, tol = 1e-12, max_iter = 200L)
    expect_lte(max(got$iterations), 30, label = model)
    E <- Y - W %*% got$H
    expect_lt(max(abs(got$R - soft(E, l2))), 1e-10 * max(abs(Y)))
    expect_lt(max(abs(l1 * got$H - crossprod(W, E - got$R))), 1e-9 * max(abs(Y)))
    huber <- function(e) ifelse(abs(e) <= l2, e^2 / 2, l2 * abs(e) - l2^2 / 2)
    for (j in 1:5) {
      Fh <- function(h) sum(huber(Y[, j] - W %*% h)) + l1 / 2 * sum(h^2)
      gr <- function(h) {
        e <- drop(Y[, j] - W %*% h)
        l1 * h - drop(crossprod(W, pmin(pmax(e, -l2), l2)))
      }
      ref <- optim(rep(0, k), Fh, gr, method = "BFGS",
                   control = list(reltol = 1e-15, maxit = 10000))
      expect_equal(got$loss[j], ref$value, tolerance = 1e-9)
      expect_lte(got$loss[j], ref$value + 1e-12 * abs(ref$value))
    }
  }
})

test_that("onmf and ornmf sub-problems are solved exactly (projected Newton)", {
  # nonnegative Synth-like columns; ornmf with outliers (lambda = 0 on h,
  # where most entries are outliers at h = 0 and W'DW is nearly singular).
  # Optimality of (2) over the box H: r = prox(y - W h) and h = P_H(h - g),
  # g = lambda h - W'(y - W h - r), to rounding, in few iterations
  set.seed(12)
  d <- 60; k <- 5; n <- 40
  W <- abs(matrix(rnorm(d * k, 0.5, sqrt(1 / sqrt(k))), d))
  Y <- W %*% abs(matrix(rnorm(k * n, 0.5, sqrt(1 / sqrt(k))), k))
  out <- sample(d * n, 0.2 * d * n)
  Yo <- Y; Yo[out] <- pmax(Yo[out] + runif(length(out), -10, 10), 0)
  cases <- list(
    list(model = "onmf", Y = Y, pars = list(lambda = 0.05), lam = 0.05, hi = Inf),
    list(model = "ornmf", Y = Yo, pars = list(lambda = 0.1, M = Inf, M_prime = max(Yo)),
         lam = 0, hi = Inf),
    list(model = "ornmf", Y = Yo, pars = list(lambda = 0.1, M = 1.2, M_prime = 3),
         lam = 0, hi = 1.2))
  for (cs in cases) {
    spec <- do.call(smf_spec, c(list(cs$model, d, k), cs$pars))
    got <- coefficients_c(spec, W, cs$Y, tol = 1e-12, max_iter = 200L)
    expect_lte(max(got$iterations), 40, label = cs$model)
    R <- if (is.null(got$R)) 0 else got$R
    E <- cs$Y - W %*% got$H
    if (!is.null(got$R)) {
      Mp <- cs$pars$M_prime
      expect_lt(max(abs(got$R - pmin(pmax(soft(E, cs$pars$lambda), -Mp), Mp))), 1e-10 * max(Yo))
    }
    G <- cs$lam * got$H - crossprod(W, E - R)
    proj <- pmin(pmax(got$H - G, 0), cs$hi)
    expect_lt(max(abs(proj - got$H)), 1e-9 * max(abs(cs$Y)), label = cs$model)
    expect_true(all(got$H >= 0 & got$H <= cs$hi))
    if (is.finite(cs$hi)) expect_gt(sum(got$H == cs$hi), 0)     # the upper bound is active
  }
})

test_that("the gradient (7) is the derivative of g: finite differences", {
  set.seed(5)
  d <- 6; k <- 2; n <- 5
  Y <- matrix(rnorm(d * n), d)
  for (model in c("odl", "orpca")) {
    spec <- smf_spec(model, d, k, n = n)
    W0 <- matrix(rnorm(d * k), d); W1 <- matrix(rnorm(d * k), d)
    args <- c(list(problem = "smf", d = d, n = n, k = k, W = W0, Y = Y,
                   W_now = W1, batch = 0:(n - 1L), gap_eta = -1, bsum_tol = 1e-14,
                   bsum_max_iter = 100000L), spec)
    res <- .Call(stochcg:::C_cg_smf_kernel, "vr_estimate", args)
    g <- function(W) mean(coefficients_c(spec, W, Y, tol = 1e-14)$loss)
    num <- W1
    for (a in seq_along(W1)) {
      e <- replace(0 * W1, a, 1e-5)
      num[a] <- (g(W1 + e) - g(W1 - e)) / 2e-5
    }
    expect_equal(res$G, num, tolerance = 1e-6, info = model)
    # a batch of every column: the estimate is the full gradient itself
    expect_equal(res$V, res$G, tolerance = 1e-12, info = model)
  }
})

test_that("the variance-reduced estimate is unbiased (Lemma 2): exact average over all batches", {
  set.seed(6)
  d <- 7; k <- 3; n <- 6; b <- 2
  Y <- matrix(rnorm(d * n), d)
  Y[sample(d * n, 5)] <- 8
  for (model in c("odl", "onmf", "orpca")) {
    spec <- smf_spec(model, d, k, n = n)
    Yin <- if (model == "onmf") abs(Y) else Y
    W0 <- matrix(prox_c(spec, abs(matrix(rnorm(d * k), d)), "dict", 0, d, k), d)
    W1 <- matrix(prox_c(spec, W0 + 0.3 * matrix(rnorm(d * k), d), "dict", 0, d, k), d)
    batches <- combn(n, b) - 1L
    Vs <- lapply(seq_len(ncol(batches)), function(i) {
      args <- c(list(problem = "smf", d = d, n = n, k = k, W = W0, Y = Yin, W_now = W1,
                     batch = batches[, i], gap_eta = -1, bsum_tol = 1e-13,
                     bsum_max_iter = 100000L), spec)
      .Call(stochcg:::C_cg_smf_kernel, "vr_estimate", args)
    })
    G <- Vs[[1]]$G
    average <- Reduce(`+`, lapply(Vs, `[[`, "V")) / length(Vs)
    expect_equal(average, G, tolerance = 1e-10, info = model)
    # ... while single batches scatter around it
    spread <- vapply(Vs, function(v) sqrt(sum((v$V - G)^2)), 0)
    expect_gt(max(spread), 1e-3 * sqrt(sum(G^2)))
  }
})

# Plain-R references of the three loops, drawing the same batches (the C
# sampler is a partial Fisher-Yates shuffle on R_unif_index, as
# sample.int(m, 1) is) and solving the columns with the C BSUM kernel.
draw_batch <- function(perm, b) {
  for (i in seq_len(b)) {
    j <- i - 1 + sample.int(length(perm) - i + 1, 1)
    t <- perm[i]; perm[i] <- perm[j]; perm[j] <- t
  }
  perm
}

# Alg. S-2 (smm) in plain R: the sufficient statistics A_t, B_t over the
# minibatches of draw_batch(), W the minimizer of the surrogate from
# solve_W(A, B, N) with N = t b samples seen
smm_reference <- function(spec, Y, W0, b, iters, tol, solve_W) {
  W <- W0; perm <- seq_len(ncol(Y)); A <- 0; Bt <- 0
  for (t in seq_len(iters)) {
    perm <- draw_batch(perm, b); Yb <- Y[, perm[1:b], drop = FALSE]
    cf <- coefficients_c(spec, W, Yb, tol = tol, max_iter = 200L)
    A <- A + tcrossprod(cf$H); Bt <- Bt + (Yb - cf$R) %*% t(cf$H)
    W <- solve_W(A, Bt, t * b)
  }
  W
}

gradient_stats <- function(spec, W, Y, tol = 1e-6) {
  cf <- coefficients_c(spec, W, Y, tol = tol, max_iter = 200L)
  R <- if (is.null(cf$R)) 0 else cf$R
  (W %*% tcrossprod(cf$H) - (Y - R) %*% t(cf$H)) / ncol(Y)     # eq. (7), averaged
}

test_that("vr, sgd and smm follow Algorithms 1, S-3 and S-2 step by step", {
  set.seed(11)
  d <- 6; k <- 2; n <- 30; b <- 4; m <- 3; iters <- 7
  Y <- matrix(rnorm(d * n), d)
  W0 <- matrix(rnorm(d * k), d); W0 <- sweep(W0, 2, sqrt(colSums(W0^2)), "/")
  prox_dict <- function(spec, W, eta) matrix(prox_c(spec, W, "dict", eta, d, k), d)

  # vr on odl, option II, given step
  spec <- smf_spec("odl", d, k, n = n); eta <- 0.3
  set.seed(5)
  fit <- stochastic_mf(Y, k, model = "odl", method = "vr", batch_size = b, inner = m, step_size = eta,
                       init = W0, control = cg_control(max_iter = iters, progress = FALSE))
  set.seed(5)
  W <- W0; perm <- seq_len(n); t <- 0
  while (t < iters) {
    Ws <- W; G0 <- gradient_stats(spec, Ws, Y)
    for (inner in seq_len(m)) {
      if (t == iters) break
      perm <- draw_batch(perm, b); B <- Y[, perm[1:b], drop = FALSE]
      V <- gradient_stats(spec, W, B) - gradient_stats(spec, Ws, B) + G0
      W <- prox_dict(spec, W - eta * V, eta)
      t <- t + 1
    }
  }
  expect_equal(unname(fit$solution$W), W, tolerance = 1e-10)
  expect_equal(fit$iterations, iters)
  # data passes: 3 snapshots (n each) and 7 batches
  expect_equal(fit$trace$epoch[nrow(fit$trace)], (3 * n + iters * b) / n)

  # sgd on orpca: gamma_t = beta / (b t + beta'), prox of gamma_t psi + delta_C
  spec <- smf_spec("orpca", d, k, n = n)
  set.seed(6)
  # the reference's weights (the defaults scale with the data)
  fit <- stochastic_mf(Y, k, model = "orpca", method = "sgd", batch_size = b, beta = 2,
                       beta_prime = 10, init = W0, lambda1 = spec$h_lambda,
                       lambda2 = spec$r_lambda,
                       control = cg_control(max_iter = iters, progress = FALSE))
  set.seed(6)
  W <- W0; perm <- seq_len(n)
  for (t in 0:(iters - 1)) {
    perm <- draw_batch(perm, b)
    gamma <- 2 / (b * t + 10)
    W <- prox_dict(spec, W - gamma * gradient_stats(spec, W, Y[, perm[1:b], drop = FALSE]),
                   gamma)
  }
  expect_equal(unname(fit$solution$W), W, tolerance = 1e-10)
  expect_equal(fit$step, 2 / (b * (iters - 1) + 10))

  # smm on orpca (C free: the surrogate's minimizer is B_t (A_t + N c I)^-1)
  set.seed(7)
  fit <- stochastic_mf(Y, k, model = "orpca", method = "smm", batch_size = b, init = W0,
                       lambda1 = spec$h_lambda, lambda2 = spec$r_lambda, bsum_tol = 1e-10, control = cg_control(max_iter = iters, progress = FALSE))
  set.seed(7)
  W <- smm_reference(spec, Y, W0, b, iters, 1e-10,
                     function(A, Bt, N) Bt %*% solve(A + N * spec$psi_ridge * diag(k)))
  expect_equal(unname(fit$solution$W), W, tolerance = 1e-7)
})

test_that("smm with a coupled psi (olrr) minimizes the surrogate exactly", {
  set.seed(14)
  d <- 5; k <- 2; n <- 30; b <- 4; iters <- 5
  Y <- matrix(rnorm(d * n), d)
  W0 <- matrix(rnorm(d * k), d)
  spec <- stochcg:::smf_model_spec("olrr", d, n, k, list(lambda3 = 2),
                                   list(Y = Y, max_abs = 1))$spec
  set.seed(8)
  fit <- stochastic_mf(Y, k, model = "olrr", method = "smm", batch_size = b, init = W0,
                       lambda3 = 2, bsum_tol = 1e-12,
                       control = cg_control(max_iter = iters, progress = FALSE))
  set.seed(8)
  # stationarity of (1/N)(tr(W'W A)/2 - tr(W'B)) + tr(W'QW)/2: W A / N + Q W = B / N
  W <- smm_reference(spec, Y, W0, b, iters, 1e-12, function(A, Bt, N)
    matrix(solve(kronecker(A / N, diag(d)) + kronecker(diag(k), spec$Q), c(Bt / N)), d))
  expect_equal(unname(fit$solution$W), W, tolerance = 1e-7)
})

test_that("option I returns a uniformly drawn iterate, evaluated last", {
  set.seed(12)
  Y <- matrix(rnorm(6 * 20), 6)
  picked <- vapply(1:200, function(seed) {
    set.seed(seed)
    fit <- stochastic_mf(Y, 2, method = "vr", output = "random", inner = 2, batch_size = 3,
                         control = cg_control(max_iter = 4, eval_every = 1, progress = FALSE))
    tr <- fit$trace
    expect_equal(fit$objective, tr$objective[nrow(tr)])
    expect_equal(fit$objective, mean(predict(fit)$loss), tolerance = 1e-10)
    # the output is one of the iterates W^{s,t}, t >= 1 (rows 2-5; row 6 repeats it)
    hit <- which(abs(tr$objective[2:5] - fit$objective) <= 1e-14 * fit$objective)
    expect_length(hit, 1L)
    hit[1]
  }, 0L)
  counts <- tabulate(picked, 4)
  expect_gt(chisq.test(counts)$p.value, 0.01)
})

planted_odl <- function(seed, d = 20, k = 3, n = 300) {
  set.seed(seed)
  W <- matrix(rnorm(d * k), d); W <- sweep(W, 2, sqrt(colSums(W^2)), "/")
  H <- matrix(rnorm(k * n, sd = 2) * (runif(k * n) < 0.5), k)
  list(W = W, Y = W %*% H)
}

# The paper's budget (S = 10 outer iterations of m = 0.5 n^(1/3) steps) is
# for n = 10^5; at n = 300 it is 40 steps in all, so vr gets S = 40 here.
test_that("odl recovers a planted dictionary (vr, sgd) and its span (all methods)", {
  p <- planted_odl(7)
  for (method in c("vr", "smm", "sgd")) {
    set.seed(1)
    fit <- stochastic_mf(p$Y, k = 3, model = "odl", method = method, outer = 40,
                         control = cg_control(progress = FALSE))
    expect_s3_class(fit, c("stochastic_mf_fit", "cg_fit"))
    expect_gt(expressed_variance(p$W, fit$solution$W), 0.999)
    expect_true(all(sqrt(colSums(fit$solution$W^2)) <= 1 + 1e-12))     # in C
    if (method != "smm")
      expect_gt(min(apply(abs(crossprod(p$W, fit$solution$W)), 1, max)), 0.99)
  }
})

test_that("onmf recovers planted nonnegative atoms", {
  set.seed(8)
  d <- 25; k <- 3; n <- 400
  W <- matrix(runif(d * k)^3, d); W <- sweep(W, 2, colSums(W), "/")
  Y <- W %*% matrix(rexp(k * n), k)
  for (method in c("vr", "sgd")) {
    set.seed(2)
    fit <- stochastic_mf(Y, k = k, model = "onmf", method = method, lambda = 1e-3,
                         outer = 40, control = cg_control(progress = FALSE))
    Wh <- fit$solution$W
    expect_true(all(Wh >= 0))
    expect_equal(colSums(Wh), rep(1, k), tolerance = 1e-12, ignore_attr = TRUE)
    expect_gt(expressed_variance(W, Wh), 0.999)
    expect_gt(min(apply(cor(W, Wh), 1, max)), 0.99)
  }
})

planted_rpca <- function(seed, d = 20, k = 3, n = 300, density = 0.05) {
  set.seed(seed)
  U <- matrix(rnorm(d * k), d)
  L <- U %*% matrix(rnorm(k * n), k)
  S <- matrix(0, d, n)
  idx <- sample(d * n, round(density * d * n))
  S[idx] <- sample(c(-1, 1), length(idx), TRUE) * runif(length(idx), 5, 10)
  list(U = U, Y = L + S, S = S, idx = idx)
}

test_that("the default onmf ridge leaves noiseless planted NMF data nearly exact", {
  # the ridge lambda/2 ||h||^2 is only there to keep h unique; at the
  # earlier default d^(-3/2) it biased the fit (about 4% relative error on
  # such data at any number of passes)
  set.seed(22)
  d <- 30; k <- 3; n <- 300
  W <- matrix(runif(d * k)^3, d)
  W <- sweep(W, 2, colSums(W), "/")
  Y <- W %*% matrix(rexp(k * n), k)
  err <- function(lambda) {
    set.seed(2)
    fit <- stochastic_mf(Y, k, model = "onmf", lambda = lambda, outer = 60,
                         control = cg_control(progress = FALSE))
    norm(Y - fitted(fit), "F") / norm(Y, "F")
  }
  e_default <- err(NULL)
  expect_lt(e_default, 0.01)
  expect_gt(err(d^(-3 / 2)), 3 * e_default)
})

test_that("the default onmf call on expression-scale data is a sensible NMF", {
  # values in the thousands, d >> n, as in NMF::esGolub: before, the default
  # start projected raw columns onto the simplex (keeping their few largest
  # entries) and the paper's lambda = 1/sqrt(d) made the ridge on h (h ~ the
  # column sums) dominate; the fit had ~95% zero atoms and 0.62-0.74
  # relative error against 0.43 for a rank-k SVD (esGolub, k = 5)
  set.seed(21)
  d <- 400; k <- 4; n <- 40
  W <- matrix(rgamma(d * k, 2), d)
  Y <- W %*% matrix(rexp(k * n, 1 / 300), k) + matrix(rexp(d * n, 1 / 300), d)
  set.seed(1)
  fit <- stochastic_mf(Y, k, model = "onmf", control = cg_control(progress = FALSE))
  expect_equal(fit$lambda, 0.01 * d^(-3 / 2))
  s <- svd(Y)
  svd_err <- norm(Y - s$u[, 1:k] %*% (s$d[1:k] * t(s$v[, 1:k])), "F") / norm(Y, "F")
  err <- norm(Y - fitted(fit), "F") / norm(Y, "F")
  expect_lt(err, 1.1 * svd_err)
  expect_lt(mean(fit$solution$W == 0), 0.2)
  # the data start: a column's nonnegative part scaled to sum 1
  pars <- stochcg:::smf_model_spec("onmf", d, n, k, list())
  data <- stochcg:::smf_data(Y)
  set.seed(5)
  W0 <- stochcg:::smf_init("data", data, k, pars)
  set.seed(5)
  cols <- sample.int(n, k)
  expect_equal(W0, sweep(Y[, cols], 2, colSums(Y[, cols]), "/"), tolerance = 1e-12,
               ignore_attr = TRUE)
})

test_that("orpca recovers the planted subspace and finds the outliers", {
  p <- planted_rpca(9)
  for (method in c("vr", "sgd")) {
    set.seed(3)
    fit <- stochastic_mf(p$Y, k = 3, model = "orpca", method = method, outer = 40,
                         control = cg_control(progress = FALSE))
    expect_gt(expressed_variance(p$U, fit$solution$W), 0.9999)
    R <- predict(fit)$R
    found <- R != 0
    expect_gt(mean(found[p$idx]), 0.99)                    # recall
    expect_gt(mean(p$S[found] != 0), 0.99)                 # precision
  }
})

test_that("ornmf finds outliers in nonnegative data", {
  set.seed(10)
  d <- 20; k <- 3; n <- 300
  W <- matrix(runif(d * k)^4, d); W <- sweep(W, 2, sqrt(colSums(W^2)), "/")
  Y <- W %*% matrix(runif(k * n, 0, 3), k)
  idx <- sample(d * n, 0.03 * d * n)
  Y[idx] <- Y[idx] + 8
  set.seed(4)
  fit <- stochastic_mf(Y, k = k, model = "ornmf", lambda = 0.5, outer = 40,
                       control = cg_control(progress = FALSE))
  Wh <- fit$solution$W
  expect_true(all(Wh >= 0) && all(colSums(Wh^2) <= 1 + 1e-12))
  R <- predict(fit)$R
  expect_true(all(abs(R) <= fit$M_prime))
  found <- R > 1
  expect_gt(mean(found[idx]), 0.85)                        # recall
  expect_gt(mean(seq_along(Y) %in% idx & found) / mean(found), 0.95)   # precision
})

test_that("ssodl recovers smooth planted atoms; omrmd the subspace and the outliers", {
  set.seed(15)
  d <- 36; k <- 3; n <- 400
  bars <- sapply(1:3, function(i) { a <- matrix(0, 6, 6); a[, 2 * i] <- 1; c(a) / 6 })
  Y <- bars %*% matrix(rexp(k * n), k)
  set.seed(2)
  fit <- stochastic_mf(Y, k, model = "ssodl", lambda1 = 1e-3, lambda2 = 1e-3, outer = 40,
                       image_dims = c(6, 6), control = cg_control(progress = FALSE))
  expect_gt(expressed_variance(bars, fit$solution$W), 0.999)
  expect_gt(min(apply(cor(bars, fit$solution$W), 1, max)), 0.99)
  p <- planted_rpca(16)
  set.seed(3)
  fit <- stochastic_mf(p$Y, k = 3, model = "omrmd", outer = 40,
                       control = cg_control(progress = FALSE))
  expect_gt(expressed_variance(p$U, fit$solution$W), 0.9999)
  cf <- predict(fit)
  expect_true(all(sqrt(colSums(cf$H^2)) <= 1 + 1e-12))   # H: the unit ball
  found <- cf$R != 0
  expect_gt(mean(found[p$idx]), 0.99)
  expect_gt(mean(p$S[found] != 0), 0.9)
})

# Issue 28: the robust models' defaults separate gross outliers. Planted
# nonnegative rank-4 data (codes with density 0.5, noise 1% of sd(W H)),
# 10% of the entries replaced by outliers uniform in [-20, 20] sd(W H).
planted_gross <- function(seed, d = 30, n = 800, k = 4, frac = 0.1, mag = 20) {
  set.seed(seed)
  W <- matrix(runif(d * k), d)
  L <- W %*% matrix(rexp(k * n) * (runif(k * n) < 0.5), k)
  Y <- L + 0.01 * sd(L) * matrix(rnorm(d * n), d)
  idx <- sample(d * n, round(frac * d * n))
  Y[idx] <- runif(length(idx), -mag, mag) * sd(L)
  list(W = W, Y = Y, idx = idx)
}

test_that("orpca and ornmf with their defaults recover a dictionary under gross outliers", {
  # with the old defaults (vr, lambda = 1/sqrt(d) whatever the data's scale,
  # k raw columns as the start) this data gave EV 0.37 (orpca) and 0.50 (ornmf)
  p <- planted_gross(11)
  n <- ncol(p$Y)
  for (model in c("orpca", "ornmf")) {
    set.seed(1)
    fit <- stochastic_mf(p$Y, 4, model = model, control = cg_control(progress = FALSE))
    expect_equal(fit$method, "sgd", info = model)
    expect_gt(expressed_variance(p$W, fit$solution$W), 0.99)
    # within 3 passes in all (the scale's columns counted)
    budget <- floor((3 - fit$scale_columns / n) * n / fit$batch_size)
    set.seed(1)
    early <- stochastic_mf(p$Y, 4, model = model,
                           control = cg_control(max_iter = budget, progress = FALSE))
    expect_lte(tail(early$trace$epoch, 1) + early$scale_columns / n, 3)
    expect_gt(expressed_variance(p$W, early$solution$W), 0.95)
    # the outliers found: the planted ones, and few others
    found <- predict(fit)$R != 0
    expect_gt(mean(found[p$idx]), 0.8, label = paste(model, "recall"))
    expect_gt(mean(seq_along(p$Y) %in% p$idx & found) / mean(found), 0.8,
              label = paste(model, "precision"))
  }
})

test_that("ornmf's data start survives dense gross outliers", {
  # d = 200: 40 gross entries (50x) in each column. The cleaned columns
  # picked by SPA alone gave a start of EV 0.30, and 3 passes 0.94-0.98 by
  # seed (sgd's first step from 5 columns); the start refined on the scale's
  # sample, and sgd's first step from that sample: 0.97 and 0.986-0.993
  p <- planted_gross(22, d = 200, n = 400, frac = 0.2, mag = 50)
  n <- ncol(p$Y)
  set.seed(1)
  start <- stochastic_mf(p$Y, 4, model = "ornmf",
                         control = cg_control(max_iter = 0, progress = FALSE))
  expect_gt(expressed_variance(p$W, start$solution$W), 0.95)
  budget <- floor((3 - start$scale_columns / n) * n / start$batch_size)
  for (seed in 1:3) {
    set.seed(seed)
    fit <- stochastic_mf(p$Y, 4, model = "ornmf",
                         control = cg_control(max_iter = budget, progress = FALSE))
    expect_lte(tail(fit$trace$epoch, 1) + fit$scale_columns / n, 3)
    expect_gt(expressed_variance(p$W, fit$solution$W), 0.975, label = paste("seed", seed))
  }
})

test_that("orpca's data start survives many moderate outliers", {
  # 20% of the entries 5x: most are within 3 robust row scales (which they
  # inflate), so the top singular vectors of the cleaned sample had EV 0.63
  # and sgd lost an atom for every seed (EV 0.80); the low-rank part of
  # robust_pca() of the sample: 0.999 and 0.996-0.998
  p <- planted_gross(22, n = 500, k = 5, frac = 0.2, mag = 5)
  n <- ncol(p$Y)
  start <- stochastic_mf(p$Y, 5, model = "orpca",
                         control = cg_control(max_iter = 0, progress = FALSE))
  expect_gt(expressed_variance(p$W, start$solution$W), 0.95)
  expect_match(start$notes, "robust_pca\\(\\) \\(50 ADMM iterations\\) of 500 evenly spaced",
               all = FALSE)
  budget <- floor((3 - start$scale_columns / n) * n / start$batch_size)
  for (seed in 1:3) {
    set.seed(seed)
    fit <- stochastic_mf(p$Y, 5, model = "orpca",
                         control = cg_control(max_iter = budget, progress = FALSE))
    expect_lte(tail(fit$trace$epoch, 1) + fit$scale_columns / n, 3)
    expect_gt(expressed_variance(p$W, fit$solution$W), 0.975, label = paste("seed", seed))
  }
})

test_that("the robust models' defaults scale with the data", {
  p <- planted_gross(12, n = 300)
  x <- c(p$Y)                  # d = 30, n = 300: the scale reads every column
  s <- 1.4826 * median(abs(x - median(x)))
  fits <- lapply(c(1, 1000), function(a) {
    set.seed(3)
    stochastic_mf(a * p$Y, 4, model = "ornmf", outer = 2, control = cg_control(progress = FALSE))
  })
  expect_equal(fits[[1]]$lambda, 0.3 * s, tolerance = 1e-12)
  expect_equal(fits[[2]]$lambda, 1000 * 0.3 * s, tolerance = 1e-12)
  # ornmf's problem is the same up to scale (W in a bounded set): the same W
  expect_equal(fits[[2]]$solution$W, fits[[1]]$solution$W, tolerance = 1e-6)
  fits <- lapply(c(1, 1000), function(a) {
    set.seed(3)
    stochastic_mf(a * p$Y, 4, model = "orpca", outer = 2, control = cg_control(progress = FALSE))
  })
  fit <- fits[[1]]
  expect_equal(c(fit$lambda1, fit$lambda2), c(s / sqrt(30), 0.3 * s), tolerance = 1e-12)
  expect_equal(fit$lambda_scale, s, tolerance = 1e-12)
  # orpca's problem is the same for c Y up to W -> sqrt(c) W, and so is its
  # data start (one in the data's units was not: EV 0.34-0.52 on tissue
  # data at 1000 times its scale, 0.97 at 1)
  expect_equal(fits[[2]]$solution$W / sqrt(1000), fit$solution$W, tolerance = 1e-6)
})

test_that("a robust fit reports the outliers it found", {
  p <- planted_gross(13, n = 300)
  for (model in c("orpca", "ornmf")) {
    set.seed(2)
    fit <- stochastic_mf(p$Y, 4, model = model, outer = 3, control = cg_control(progress = FALSE))
    count <- sum(predict(fit)$R != 0)         # the same W, solved again
    expect_equal(fit$outliers, count)
    expect_equal(fit$outlier_fraction, count / length(p$Y))
    expect_output(print(fit), sprintf("outliers: %d nonzero entries of R \\(%.3g%% of the d x n",
                                      count, 100 * count / length(p$Y)))
  }
  set.seed(2)
  fit <- stochastic_mf(p$Y, 4, model = "odl", outer = 1, control = cg_control(progress = FALSE))
  expect_null(fit$outliers)
})
