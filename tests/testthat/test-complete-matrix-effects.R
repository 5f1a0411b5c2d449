# complete_matrix() with an intercept or row and column effects fitted
# jointly with the low-rank part (center = "mean" / "both"), every family:
# an independent plain-R reference of the joint problem, glm() for the
# additive model, the certificate, the effects' optimality conditions,
# resuming a fit (init), methods and bad input.

# A planted problem with distinct observed cells, effects, and no row or
# column whose binary values are all equal (its effect would be infinite).
effects_data <- function(family, m = 12, n = 9, frac = 0.8, seed = 1) {
  set.seed(seed)
  L <- tcrossprod(rnorm(m), rnorm(n)) / 2
  a <- rnorm(m, sd = 0.5); b <- rnorm(n, sd = 0.5)
  cells <- sort(sample(m * n, round(frac * m * n)))
  obs <- data.frame(row = (cells - 1) %% m + 1, col = (cells - 1) %/% m + 1)
  eta <- 0.3 + a[obs$row] + b[obs$col] + L[cbind(obs$row, obs$col)]
  obs$value <- switch(family, gaussian = eta + rnorm(nrow(obs), sd = 0.3),
                      poisson = rpois(nrow(obs), exp(eta)),
                      binomial = rbinom(nrow(obs), 1, plogis(eta)))
  # a row or column of equal binary values, or of zero counts, has an
  # infinite effect: change one of its values
  if (family != "gaussian")
    for (g in list(obs$row, obs$col)) for (k in unique(g)) {
      at <- which(g == k)
      if (family == "binomial" && length(unique(obs$value[at])) == 1L)
        obs$value[at[1]] <- 1 - obs$value[at[1]]
      if (family == "poisson" && all(obs$value[at] == 0)) obs$value[at[1]] <- 1
    }
  list(obs = obs, dims = c(m, n))
}

# Reference: accelerated projected gradient (FISTA with backtracking) on
# (X, mu, a, b) jointly, X projected on the nuclear ball by a full SVD, the
# effects free; returns the linear predictor at the observed cells.
ref_joint <- function(obs, r, family, dims, center, iters = 4000) {
  fam <- ref_family[[family]]
  idx <- cbind(obs$row, obs$col); N <- nrow(obs); m <- dims[1]; n <- dims[2]
  unpack <- function(z) list(X = matrix(z[seq_len(m * n)], m, n), mu = z[m * n + 1],
                             a = z[m * n + 1 + seq_len(m)], b = z[m * n + 1 + m + seq_len(n)])
  eta <- function(p) p$X[idx] + p$mu + (if (center == "both") p$a[obs$row] + p$b[obs$col] else 0)
  f <- function(z) mean(fam$loss(eta(unpack(z)), obs$value))
  grad <- function(z) {
    p <- unpack(z); g <- (fam$mean(eta(p)) - obs$value) / N
    G <- matrix(0, m, n); G[idx] <- g
    c(G, sum(g), if (center == "both") c(rowsum(g, factor(obs$row, 1:m))[, 1],
                                         rowsum(g, factor(obs$col, 1:n))[, 1]) else numeric(m + n))
  }
  proj <- function(z) { z[seq_len(m * n)] <- ref_proj_nuclear(matrix(z[seq_len(m * n)], m, n), r); z }
  z <- y <- numeric(m * n + 1 + m + n); tk <- 1; L <- 1
  for (k in seq_len(iters)) {
    gy <- grad(y); fy <- f(y)
    repeat {
      z_new <- proj(y - gy / L)
      d <- z_new - y
      if (f(z_new) <= fy + sum(gy * d) + L / 2 * sum(d^2) + 1e-15) break
      L <- 2 * L
    }
    t_new <- (1 + sqrt(1 + 4 * tk^2)) / 2
    y <- z_new + ((tk - 1) / t_new) * (z_new - z)
    z <- z_new; tk <- t_new
  }
  list(objective = f(z), eta = eta(unpack(z)))
}

test_that("joint effects reach the reference optimum for every family; the gap certifies it", {
  for (family in c("gaussian", "poisson", "binomial")) for (center in c("mean", "both")) {
    d <- effects_data(family)
    if (family == "binomial")             # finite optimum: no all-0 or all-1 row/column
      for (g in list(d$obs$row, d$obs$col))
        expect_true(all(tapply(d$obs$value, g, function(v) length(unique(v)) == 2)))
    r <- 2
    ref <- ref_joint(d$obs, r, family, d$dims, center)
    for (meth in c("fw", "sfw")) {
      set.seed(2)
      fit <- complete_matrix(d$obs, r, family = family, center = center, method = meth,
                             dims = d$dims, batch_size = 20,
                             control = cg_control(max_iter = 4000, tol = 0, eval_every = 1000))
      info <- paste(family, center, meth)
      # the reference objective is an upper bound on the optimum: the gap
      # bounds objective - optimum >= objective - reference
      expect_gte(fit$gap, fit$objective - ref$objective - 1e-10, label = info)
      expect_lt(abs(fit$objective - ref$objective), 1e-5 * abs(ref$objective), label = info)
      expect_lt(fit$gap, 1e-3 * abs(fit$objective), label = info)
      # the optimal linear predictor at the observed cells is unique
      # (strictly convex loss)
      expect_lt(max(abs(fitted(fit, type = "link") - ref$eta)), 0.02, label = info)
      expect_lte(sum(fit$solution$X$d), r * (1 + 1e-10))
      # identifiability: effects sum to zero
      expect_lt(abs(sum(fit$center$row)), 1e-10, label = info)
      expect_lt(abs(sum(fit$center$col)), 1e-10, label = info)
    }
  }
})

test_that("radius near zero: the additive model, as glm() fits it", {
  for (family in c("gaussian", "poisson", "binomial")) {
    d <- effects_data(family, seed = 3)
    fit <- complete_matrix(d$obs, 1e-12, family = family, center = "both", method = "fw",
                           dims = d$dims, control = cg_control(max_iter = 50))
    ref <- glm(value ~ factor(row) + factor(col), data = d$obs,
               family = get(family, mode = "function")(), control = list(epsilon = 1e-14, maxit = 100))
    # the effects' sweeps stop when one gains < 1e-14 per observation:
    # linear predictors within about 1e-6
    expect_equal(fitted(fit), unname(fitted(ref)), tolerance = 1e-6, label = family)
    expect_equal(residuals(fit), unname(residuals(ref, type = "response")), tolerance = 1e-6,
                 label = family)
    expect_equal(residuals(fit, type = "pearson"), unname(residuals(ref, type = "pearson")),
                 tolerance = 1e-6, label = family)
  }
})

test_that("optimality of the effects: residuals sum to zero by row and column", {
  d <- effects_data("binomial", seed = 4)
  fit <- complete_matrix(d$obs, 2, family = "binomial", center = "both", method = "fw",
                         dims = d$dims, control = cg_control(max_iter = 3000, tol = 0))
  res <- residuals(fit)
  expect_lt(max(abs(rowsum(res, d$obs$row))), 1e-4)
  expect_lt(max(abs(rowsum(res, d$obs$col))), 1e-4)
  # a row and a column without observations have effect zero; predictions
  # there are the intercept + the other effect + X
  obs <- d$obs[d$obs$row != 5 & d$obs$col != 3, ]
  fit <- complete_matrix(obs, 2, family = "binomial", center = "both", method = "fw",
                         dims = d$dims, control = cg_control(max_iter = 200))
  expect_identical(fit$center$row[5], 0)
  expect_identical(fit$center$col[3], 0)
  expect_equal(predict(fit, data.frame(row = 5, col = 3)),
               fit$center$mean + as.matrix(fit$solution$X)[5, 3])
  expect_lt(abs(sum(fit$center$row)), 1e-10)
})

test_that("gaussian: joint effects fit at least as well as effects removed first", {
  d <- effects_data("gaussian", m = 20, n = 15, frac = 0.6, seed = 5)
  ctl <- cg_control(max_iter = 2000, tol = 0)
  joint <- complete_matrix(d$obs, 3, center = "both", method = "fw", dims = d$dims, control = ctl)
  e <- stochcg:::center_effects(list(row = d$obs$row, col = d$obs$col, value = d$obs$value,
                                     dims = d$dims), "both")
  res <- transform(d$obs, value = value - e$mean - e$row[row] - e$col[col])
  seq_fit <- complete_matrix(res, 3, method = "fw", dims = d$dims, control = ctl)
  eta_seq <- fitted(seq_fit) + e$mean + e$row[d$obs$row] + e$col[d$obs$col]
  seq_obj <- mean((d$obs$value - eta_seq)^2) / 2        # the joint objective there
  expect_lt(joint$objective, seq_obj - 1e-4)
  expect_gte(seq_obj - (joint$objective - joint$gap), 0)  # and the bound holds
})

test_that("a resumed fit equals one longer run", {
  # "fw" and "sfw": bit for bit (the gap: see below); "spg" resumes from the thin SVD of its
  # dense iterate (rounding: 1e-12). Evaluations every 5 iterations for the
  # trace (none for spg, which converges to a gap of 0 within rounding here)
  d <- effects_data("binomial", m = 15, n = 10, frac = 0.7, seed = 6)
  cases <- list(c("fw", "shuffle"), c("sfw", "shuffle"), c("sfw", "replace"),
                c("sfw", "stream"), c("spg", "shuffle"))
  for (cs in cases) for (center in c("none", "both")) {
    spg <- cs[1] == "spg"
    run <- function(k, init = NULL)
      complete_matrix(d$obs, 3, family = "binomial", center = center, method = cs[1],
                      sampling = cs[2], batch_size = 7, dims = d$dims, init = init,
                      control = cg_control(max_iter = k, tol = 0,
                                           eval_every = if (spg) 1000 else 5))
    set.seed(7); long <- run(60)
    set.seed(7); first <- run(30); second <- run(30, init = first)   # RNG stream continues
    info <- paste(c(cs, center), collapse = " ")
    if (spg) {
      expect_lt(max(abs(as.matrix(second$solution$X) - as.matrix(long$solution$X))), 1e-12,
                label = info)
      expect_lt(max(abs(fitted(second, "link") - fitted(long, "link"))), 1e-12, label = info)
      expect_equal(second$objective, long$objective, tolerance = 1e-12, label = info)
    } else {
      expect_identical(second$solution$X, long$solution$X, label = info)
      expect_identical(second$center, long$center, label = info)
      expect_identical(second$objective, long$objective, label = info)
      # the certificate minimizes the effects from the last evaluation's
      # minimizer (a resumed run's first row re-minimizes from the init's
      # last): the gap is the same up to that minimization's accuracy
      expect_equal(second$gap, long$gap, tolerance = 1e-6, label = info)
    }
    expect_identical(second$iterations, 60L)
    expect_match(paste(capture.output(print(second)), collapse = "\n"),
                 "continued exactly from a fit of 30 iterations")
    if (!spg) {
      expect_identical(second$trace$iter, long$trace$iter)
      expect_equal(second$trace$n_grad, long$trace$n_grad)
      expect_equal(second$trace$n_lmo, long$trace$n_lmo)
      expect_equal(second$trace$epoch, long$trace$epoch)
      expect_identical(second$trace$objective, long$trace$objective)
      expect_equal(second$trace$gap, long$trace$gap, tolerance = 1e-6)
    }
    if (cs[1] == "sfw" && cs[2] == "shuffle" && center == "both") resumed <- second
  }
  # another radius: a warm start, the fit's X scaled into the smaller ball
  warm <- complete_matrix(d$obs, 1, family = "binomial", center = "both", method = "sfw",
                          batch_size = 7, dims = d$dims, init = resumed,
                          control = cg_control(max_iter = 20))
  expect_match(paste(capture.output(print(warm)), collapse = "\n"),
               "warm start from a fit of 60 iterations with other data or settings")
  expect_lte(sum(warm$solution$X$d), 1 + 1e-10)
  expect_identical(warm$trace$iter[1], 60L)
  expect_identical(warm$iterations, 80L)
})

test_that("effects_ridge: the penalized additive model, as a plain-R Newton solve", {
  d <- effects_data("binomial", seed = 8)
  lam <- 2
  fit <- complete_matrix(d$obs, 1e-12, family = "binomial", center = "both",
                         effects_ridge = lam, method = "fw", dims = d$dims,
                         control = cg_control(max_iter = 50))
  # Newton on (mu, a, b): sum of losses + lam / 2 (|a|^2 + |b|^2)
  B <- cbind(1, outer(d$obs$row, 1:12, "==") + 0, outer(d$obs$col, 1:9, "==") + 0)
  P <- diag(c(0, rep(lam, 21)))
  beta <- numeric(22)
  for (k in 1:50) {
    p <- plogis(drop(B %*% beta))
    beta <- beta - solve(crossprod(B, p * (1 - p) * B) + P,
                         crossprod(B, p - d$obs$value) + P %*% beta)[, 1]
  }
  expect_lt(max(abs(fitted(fit, "link") - drop(B %*% beta))), 1e-6)
  expect_equal(fit$objective,
               (sum(log1p(exp(B %*% beta)) - d$obs$value * B %*% beta) +
                  lam / 2 * sum(beta[-1]^2)) / nrow(d$obs), tolerance = 1e-9)
})

test_that("print shows the family and the centering; fitted and predict use the link", {
  d <- effects_data("poisson", seed = 9)
  fit <- complete_matrix(d$obs, 2, family = "poisson", center = "both", method = "fw",
                         dims = d$dims, control = cg_control(max_iter = 30))
  out <- paste(capture.output(print(fit)), collapse = "\n")
  expect_match(out, "family poisson \\(log link\\); intercept .* row effects .* column effects")
  expect_match(paste(capture.output(summary(fit)), collapse = "\n"), "center = \"both\"")
  expect_equal(fitted(fit), exp(fitted(fit, type = "link")))
  expect_equal(predict(fit, d$obs, type = "response"), fitted(fit))
  M <- as.matrix(fit$solution$X) + fit$center$mean + outer(fit$center$row, fit$center$col, "+")
  expect_equal(predict(fit, "all"), M, tolerance = 1e-12)
  expect_equal(residuals(fit), d$obs$value - exp(M[cbind(d$obs$row, d$obs$col)]),
               tolerance = 1e-10)
  fm <- complete_matrix(d$obs, 2, family = "poisson", center = "mean", method = "fw",
                        dims = d$dims, control = cg_control(max_iter = 30))
  expect_match(paste(capture.output(print(fm)), collapse = "\n"), "intercept .* \\(center = \"mean\"\\)")
})

test_that("bad init, center and effects_ridge are rejected with a message naming them", {
  d <- effects_data("gaussian", seed = 10)
  fit <- complete_matrix(d$obs, 2, method = "fw", dims = d$dims, control = cg_control(max_iter = 5))
  expect_error(complete_matrix(d$obs, 2, dims = d$dims, init = list(1)),
               "`init` must be NULL or a fit of complete_matrix\\(\\)", fixed = FALSE)
  expect_error(complete_matrix(d$obs, 2, dims = d$dims + 1, init = fit),
               "`init` is a fit of a 12 x 9 matrix, but `Y` is 13 x 10")
  expect_error(complete_matrix(d$obs, 2, dims = d$dims, box = c(-5, 5), init = fit),
               "^`init` must be a fit with `box` or `lambda` \\(its `state` kept\\) to start a fit with `box`$")
  broken <- fit; broken$center$row <- broken$center$row[-1]
  expect_error(complete_matrix(d$obs, 2, dims = d$dims, init = broken, center = "none",
                               method = "fw"), NA)    # effects unused without centering
  broken <- complete_matrix(d$obs, 2, center = "both", method = "fw", dims = d$dims,
                            control = cg_control(max_iter = 5))
  broken$center$row <- broken$center$row[-1]
  expect_error(complete_matrix(d$obs, 2, center = "both", method = "fw", dims = d$dims,
                               init = broken),
               "`init` has an invalid `center\\$row`: it must be a finite numeric vector of length 12")
  expect_error(complete_matrix(d$obs, 2, center = "rows"),
               "`center` must be one of \"none\", \"mean\", \"both\", not \"rows\"")
  expect_error(complete_matrix(d$obs, 2, center = "both", box = c(0, 1)),
               "`center` must be \"none\" with `box`")
  expect_error(complete_matrix(d$obs, 2, center = "both", effects_ridge = -1),
               "`effects_ridge` must be at least 0")
  expect_error(complete_matrix(d$obs, 2, center = "mean", effects_ridge = 1),
               "`effects_ridge` applies to row and column effects: it needs center = \"both\"")
})

test_that("trace-only rows leave the certificate's effects start alone: seeded fits repeat exactly", {
  # the polish of the effects in an evaluation starts from the last one's
  # minimizer; trace rows (as many as the machine's speed allows) used to
  # move that start, so the gap of the same seeded fit varied in its last
  # digits from run to run
  set.seed(1); m <- 300; n <- 200
  L <- tcrossprod(matrix(rnorm(m * 3), m), matrix(rnorm(n * 3), n)) +
    outer(rnorm(m), rnorm(n), "+") + 3
  keep <- sample(m * n, 12000)
  df <- data.frame(row = row(L)[keep], col = col(L)[keep], value = L[keep] + rnorm(12000))
  runs <- lapply(1:6, function(r) {
    set.seed(2)
    f <- complete_matrix(df, 300, center = "both", method = "sfw", dims = c(m, n),
                         control = cg_control(tol = 1e-3, max_iter = 3000))
    c(f$iterations, f$gap, f$objective)
  })
  for (r in runs[-1]) expect_identical(r, runs[[1]])
})
