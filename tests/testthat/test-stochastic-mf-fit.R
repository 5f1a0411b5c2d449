# stochastic_mf(): the fit object (gap, trace, predict, fitted, print, plot),
# sparse input, reproducibility and bad input.

small_data <- function(seed = 1, d = 12, n = 80, k = 2) {
  set.seed(seed)
  W <- matrix(rnorm(d * k), d)
  W %*% matrix(rnorm(k * n), k) + 0.01 * matrix(rnorm(d * n), d)
}

# the fit and the messages of the warnings it raised
with_warnings_smf <- function(expr) {
  msgs <- character()
  fit <- withCallingHandlers(expr, warning = function(w) {
    msgs <<- c(msgs, conditionMessage(w))
    invokeRestart("muffleWarning")
  })
  list(fit = fit, warnings = msgs)
}

test_that("gap is ||G(W)|| ||W|| / f_ref, G the proximal gradient mapping at the returned W", {
  Y <- small_data()
  f_ref <- sum(Y^2) / (2 * ncol(Y))
  for (model in c("odl", "orpca")) {
    set.seed(2)
    fit <- stochastic_mf(Y, 2, model = model, control = cg_control(progress = FALSE))
    W <- unname(fit$solution$W)
    spec <- stochcg:::smf_fit_spec(fit)
    cf <- predict(fit)
    R <- if (is.null(cf$R)) 0 else cf$R
    G <- (W %*% tcrossprod(cf$H) - (Y - R) %*% t(cf$H)) / ncol(Y)
    eta <- fit$gap_step
    Z <- matrix(stochcg:::smf_prox(spec, W - eta * G, "dict", eta, nrow(W), 2), nrow(W))
    mapping <- sqrt(sum((W - Z)^2)) / eta
    expect_equal(fit$mapping_norm, mapping, tolerance = 1e-8, info = model)
    expect_equal(fit$gap_reference, f_ref, tolerance = 1e-12, info = model)
    expect_equal(fit$gap, mapping * sqrt(sum(W^2)) / f_ref, tolerance = 1e-8, info = model)
    expect_equal(fit$trace$gap[nrow(fit$trace)], fit$gap)
    psi <- if (model == "orpca") fit$lambda1 / (2 * ncol(Y)) * sum(W^2) else 0
    expect_equal(fit$objective, mean(cf$loss) + psi, tolerance = 1e-10, info = model)
  }
})

test_that("gap does not change when the data are scaled (bounded dictionary set)", {
  Y <- abs(small_data(seed = 5))
  gaps <- vapply(c(1, 1e4), function(s) {
    set.seed(6)
    # lambda scaled with the data keeps the problem the same up to scale
    fit <- stochastic_mf(s * Y, 2, model = "odl", lambda = s * 0.1, outer = 3,
                         control = cg_control(progress = FALSE))
    c(fit$gap, fit$mapping_norm)
  }, c(0, 0))
  expect_equal(gaps[1, 2], gaps[1, 1], tolerance = 1e-6)       # relative: the same
  expect_equal(gaps[2, 2] / gaps[2, 1], 1e8, tolerance = 1e-6)  # raw: scale^2
})

test_that("tol bounds the relative gap: the run stops at the first test below it", {
  Y <- small_data(seed = 7, n = 200)
  set.seed(8)
  ref <- stochastic_mf(Y, 2, model = "odl", outer = 30,
                       control = cg_control(tol = 0, eval_every = 5, progress = FALSE))
  tol <- signif(ref$trace$gap[6], 3) * 1.01     # met first at or before row 6
  first <- which(ref$trace$gap <= tol)[1]
  set.seed(8)
  fit <- stochastic_mf(Y, 2, model = "odl", outer = 30,
                       control = cg_control(tol = tol, eval_every = 5, progress = FALSE))
  expect_true(fit$converged)
  expect_equal(fit$iterations, ref$trace$iter[first])
  expect_lte(fit$gap, tol)
  expect_match(fit$message, "stationarity .* below tol = ")
  expect_output(print(fit), "Certificate: stationarity .*f_ref = \\|\\|Y\\|\\|\\^2 / \\(2n\\); no duality gap")
})

test_that("the trace counts data passes, samples and sub-problems", {
  Y <- small_data(n = 64)
  set.seed(3)
  fit <- stochastic_mf(Y, 2, method = "vr", outer = 10, control = cg_control(progress = FALSE))
  b <- fit$batch_size; m <- fit$inner; n <- ncol(Y)
  expect_equal(b, ceiling(0.2 * 64^(2 / 3)))
  expect_equal(m, ceiling(0.5 * 64^(1 / 3)))
  expect_equal(fit$iterations, 10 * m)
  last <- fit$trace[nrow(fit$trace), ]
  expect_equal(last$epoch, 10 * (n + m * b) / n)
  expect_equal(last$samples, 10 * (n + m * b))
  expect_equal(last$n_grad, 10 * (n + 2 * m * b))
  expect_true(all(diff(fit$trace$epoch) >= 0))
  set.seed(3)
  fit <- stochastic_mf(Y, 2, method = "smm", control = cg_control(progress = FALSE))
  expect_equal(fit$iterations, ceiling(10 * (n + m * b) / b))
  expect_equal(fit$trace$samples[nrow(fit$trace)], fit$iterations * b)
})

test_that("set.seed reproduces a fit; a dgCMatrix gives the dense fit", {
  Y <- small_data()
  Y[abs(Y) < 0.8] <- 0
  S <- Matrix::Matrix(Y, sparse = TRUE)
  for (method in c("vr", "smm", "sgd")) {
    set.seed(4); a <- stochastic_mf(Y, 2, model = "orpca", method = method,
                                    control = cg_control(max_iter = 30, eval_every = 5, progress = FALSE))
    set.seed(4); b <- stochastic_mf(Y, 2, model = "orpca", method = method,
                                    control = cg_control(max_iter = 30, eval_every = 5, progress = FALSE))
    set.seed(4); s <- stochastic_mf(S, 2, model = "orpca", method = method,
                                    control = cg_control(max_iter = 30, eval_every = 5, progress = FALSE))
    expect_identical(a$solution$W, b$solution$W)
    expect_equal(s$solution$W, a$solution$W, tolerance = 1e-10)
    expect_equal(s$trace$objective, a$trace$objective, tolerance = 1e-10)
    # the stationarity measure and its reference ||Y||^2 / (2n) from the CSC columns
    expect_equal(s$trace$gap, a$trace$gap, tolerance = 1e-8)
    expect_equal(s$gap_reference, sum(Y^2) / (2 * ncol(Y)), tolerance = 1e-14)
  }
  set.seed(5)
  fit <- stochastic_mf(S, 2, model = "odl", control = cg_control(progress = FALSE))
  expect_equal(predict(fit, S[, 1:7])$H, predict(fit, Y[, 1:7])$H, tolerance = 1e-12)
})

test_that("predict, fitted, print and plot", {
  Y <- small_data()
  Y[3, 5] <- 40
  set.seed(6)
  fit <- stochastic_mf(Y, 2, model = "orpca", image_dims = c(3, 4),
                       control = cg_control(progress = FALSE))
  p <- predict(fit, Y[, 1:6])
  expect_equal(dim(p$H), c(2L, 6L))
  expect_equal(dim(p$R), c(12L, 6L))
  expect_gt(p$R[3, 5], 30)                      # the planted outlier
  expect_equal(p$H, predict(fit)$H[, 1:6])
  expect_equal(predict(fit, Y[, 2])$H, p$H[, 2, drop = FALSE], ignore_attr = TRUE)
  expect_equal(fitted(fit), fit$solution$W %*% predict(fit)$H, ignore_attr = TRUE)
  expect_equal(fitted(fit, outliers = TRUE) - fitted(fit), predict(fit)$R,
               ignore_attr = TRUE)
  out <- capture.output(print(fit))
  # sgd: the robust models' default method since issue 28 (was vr)
  expect_match(out[1], "stochastic_mf fit \\(method \"sgd\"\\)")
  expect_true(any(grepl(paste0("^Certificate: stationarity [0-9.e-]+ \\(\\|\\|G\\(W\\)\\|\\| ",
                               "\\|\\|W\\|\\| / f_ref"), out)))
  expect_false(any(grepl("[Dd]uality gap [0-9]", c(out, capture.output(print(summary(fit)))))))
  expect_true(any(grepl("model orpca, k = 2", out)))
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off())
  expect_identical(plot(fit), fit)                       # atoms as 3 x 4 images
  expect_identical(plot(fit, type = "trace"), fit)
  expect_identical(plot(fit, type = "trace", against = "time"), fit)
  expect_error(plot(fit, type = "trace", against = "n_lmo"), "`against` must be one of")
  set.seed(6)
  odl <- stochastic_mf(Y, 2, control = cg_control(progress = FALSE))
  expect_null(predict(odl)$R)
  expect_error(plot(odl, type = "atoms"), "`image_dims` is needed")
})

test_that("bad input gives errors naming the argument", {
  Y <- small_data()
  ctl <- cg_control(max_iter = 2, progress = FALSE)
  expect_error(stochastic_mf(replace(Y, 3, NA), 2), "`Y` contains NA")
  expect_error(stochastic_mf(Y, 0), "`k` must be at least 1")
  expect_error(stochastic_mf(Y, 1.5), "`k` must be a whole number")
  expect_error(stochastic_mf(Y, 2, model = "pca"), "`model` must be one of")
  expect_error(stochastic_mf(Y, 2, method = "fw"), "`method` must be one of")
  expect_error(stochastic_mf(Y, 2, lambda = -1), "`lambda` must be at least 0")
  expect_error(stochastic_mf(Y, 2, lambda1 = 1), "`lambda1` is not a parameter of model = \"odl\"")
  expect_error(stochastic_mf(Y, 2, model = "orpca", lambda = 1), "`lambda` is not a parameter")
  expect_error(stochastic_mf(Y, 2, model = "ssodl", laplacian = diag(3)), "`laplacian` must be a 12 x 12")
  expect_error(stochastic_mf(Y, 2, model = "ssodl", laplacian = -diag(12)),
               "`laplacian` must be positive semidefinite")
  expect_error(stochastic_mf(Y, 2, model = "olrr", A = diag(3)), "`A` must be a finite numeric matrix with 12 rows")
  expect_error(stochastic_mf(Y, 2, model = "olrr", B = diag(3)), "`B` must be a finite numeric matrix with 12 columns")
  expect_error(stochastic_mf(Y, 2, M = 3), "`M` is not a parameter")
  expect_error(stochastic_mf(Y, 2, model = "ornmf", M = 0), "`M` must be greater than 0")
  expect_error(stochastic_mf(Y, 3, model = "ossl", groups = c(1, 2, 1)), "`groups` must keep")
  expect_error(stochastic_mf(Y, 3, model = "ossl", groups = 1:2), "`groups` must give")
  expect_error(stochastic_mf(Y, 3, model = "ossl", groups = c(1, 1, 2), lambda = 1:3),
               "`lambda` must be one nonnegative number or one per group \\(2\\)")
  expect_error(stochastic_mf(Y, 2, batch_size = ncol(Y) + 1), "`batch_size` must be at most")
  expect_error(stochastic_mf(Y, 2, inner = 0), "`inner` must be at least 1")
  expect_error(stochastic_mf(Y, 2, step_size = 0), "`step_size` must be greater than 0")
  expect_error(stochastic_mf(Y, 2, method = "smm", step_size = 1), "`step_size` is used only by")
  expect_error(stochastic_mf(Y, 2, beta = 1), "`beta` is used only by")
  expect_error(stochastic_mf(Y, 2, method = "sgd", output = "random"), "`output` \"random\"")
  expect_error(stochastic_mf(Y, 2, output = "best"), "`output` must be one of")
  expect_error(stochastic_mf(Y, 2, init = matrix(1, 3, 2)), "`init` must be \"data\", \"ones\", a ")
  expect_error(stochastic_mf(Y, 2, init = matrix(0, nrow(Y), 2)), "`init` is zero")
  expect_error(stochastic_mf(Y, 2, image_dims = c(5, 5)), "`image_dims` must multiply")
  expect_error(stochastic_mf(Y, 2, bsum_tol = -1), "`bsum_tol` must be at least 0")
  set.seed(7)
  fit <- stochastic_mf(Y, 2, control = ctl)
  expect_error(predict(fit, Y[-1, ]), "`newY` must have 12 rows")
  expect_error(fitted(fit, outliers = NA), "`outliers` must be TRUE or FALSE")
})

test_that("a data function Y(idx) gives the fit of the matrix, read in minibatches", {
  Y <- small_data()
  widths <- integer()
  f <- function(idx) { widths <<- c(widths, length(idx)); Y[, idx, drop = FALSE] }
  for (method in c("vr", "smm", "sgd")) {
    set.seed(4); a <- stochastic_mf(Y, 2, model = "orpca", method = method,
                                    control = cg_control(max_iter = 20, eval_every = 5, progress = FALSE))
    widths <- integer()
    set.seed(4); b <- stochastic_mf(f, 2, n = ncol(Y), model = "orpca", method = method,
                                    control = cg_control(max_iter = 20, eval_every = 5, progress = FALSE))
    expect_identical(b$solution$W, a$solution$W)
    expect_identical(b$trace$objective, a$trace$objective)
    expect_identical(b$trace$gap, a$trace$gap)           # f_ref from the calls' columns
    # full passes of 80 columns, minibatches of b columns, nothing else
    expect_true(all(widths %in% c(1L, 2L, ncol(Y), a$batch_size)))
  }
  expect_equal(fitted(b), fitted(a))
  expect_equal(predict(b)$R, predict(a)$R)
})

test_that("a failing or malformed data function stops the run with a clear message", {
  Y <- small_data()
  ctl <- cg_control(progress = FALSE)
  failing <- function(idx) if (length(idx) == ncol(Y)) stop("disk error") else Y[, idx, drop = FALSE]
  set.seed(1)
  expect_warning(fit <- stochastic_mf(failing, 2, n = ncol(Y), control = ctl),
                 "the data function `Y\\(idx\\)` failed at its call 1 by the solver \\(80 columns\\): disk error")
  expect_identical(fit$status, "error")
  short <- function(idx) Y[-1, idx, drop = FALSE]
  expect_error(stochastic_mf(function(idx) stop("no"), 2, n = 80), "`Y` failed when called as Y\\(1\\): no")
  expect_error(stochastic_mf(function(idx) Y[, idx], 2, n = 80), "`Y` must return a numeric matrix")
  wrong <- function(idx) if (length(idx) > 3) Y[-1, idx, drop = FALSE] else Y[, idx, drop = FALSE]
  set.seed(1)
  expect_warning(fit <- stochastic_mf(wrong, 2, n = 80, control = ctl),
                 "must return a numeric 12 x 80 matrix")
  nan <- function(idx) { X <- Y[, idx, drop = FALSE]; if (length(idx) > 3) X[1] <- NaN; X }
  set.seed(1)
  expect_warning(stochastic_mf(nan, 2, n = 80, control = ctl), "returned NA, NaN or Inf")
  expect_error(stochastic_mf(function(idx) Y[, idx, drop = FALSE], 2), "`n` must be given")
  expect_error(stochastic_mf(Y, 2, n = 80), "`n` is only for `Y` given as a function")
  expect_error(stochastic_mf(function(idx) Y[, idx, drop = FALSE], 2, n = 80, model = "ornmf"),
               "`M_prime` must be given")
  expect_error(stochastic_mf(function(idx) Y[, idx, drop = FALSE], 2, n = 80, model = "olrr"),
               "`Y` must be a matrix for model = \"olrr\"")
})

test_that("the fit reports sub-problems stopped by bsum_max_iter", {
  Y <- small_data()
  set.seed(1)
  fit <- stochastic_mf(Y, 2, model = "orpca", bsum_max_iter = 2,
                       control = cg_control(max_iter = 5, progress = FALSE))
  expect_equal(fit$bsum_capped, 1)
  expect_equal(fit$bsum_iterations, 2)
  expect_true(any(grepl("BSUM stopped at bsum_max_iter = 2 for 100% of the columns",
                        capture.output(print(fit)))))
  set.seed(1)
  fit <- stochastic_mf(Y, 2, model = "odl", bsum_tol = 1e-4,
                       control = cg_control(max_iter = 5, progress = FALSE))
  expect_lt(fit$bsum_capped, 0.1)
  expect_false(any(grepl("BSUM stopped", capture.output(print(fit)))))
  # the default control: no tolerance on the gap; a given outer: the whole
  # budget, no stop on the objective
  set.seed(1)
  fit <- stochastic_mf(Y, 2, outer = 10)
  expect_identical(fit$control$tol, 0)
  expect_identical(fit$status, "max_iter")
  expect_equal(fit$iterations, 10 * fit$inner)
  expect_identical(fit$ftol, 0)
})

test_that("the default vr run stops where f is flat: an exact NMF is fitted", {
  # exact rank-4 nonnegative data, alike atoms on the simplex (onmf's C)
  set.seed(11)
  W <- abs(matrix(rnorm(10 * 4), 10)) + 0.5
  W <- sweep(W, 2, colSums(W), "/")
  Y <- W %*% matrix(rexp(4 * 100), 4)
  rel <- function(f) norm(Y - fitted(f), "F") / norm(Y, "F")
  set.seed(1)
  fit <- stochastic_mf(Y, 4, model = "onmf")
  # the old default (10 outer iterations): relative error 0.0114, max_iter;
  # this one 0.0015
  expect_true(fit$converged)
  expect_lt(rel(fit), 0.003)
  expect_lte(abs(fit$objective_change), fit$ftol)
  expect_identical(fit$ftol, 1e-4)
  expect_match(fit$message, "within ftol = 1e-04", fixed = TRUE)
  # it stopped at an outer iteration's snapshot, within the cap: the same
  # dictionary as a run given that many outer iterations
  S <- fit$iterations / fit$inner
  expect_equal(S, round(S))
  expect_lt(S, fit$outer)
  set.seed(1)
  given <- stochastic_mf(Y, 4, model = "onmf", outer = S)
  expect_identical(given$status, "max_iter")
  expect_equal(given$solution$W, fit$solution$W)
  expect_equal(given$objective, fit$objective)
})

test_that("Ctrl-C in a data function returns the last complete dictionary; RNG kept", {
  skip_on_os("windows")
  Y <- small_data()
  n <- ncol(Y)
  # Y(idx) is called once by the checks (Y(1)), once for the start, once
  # for the trace at iteration 0, then once per minibatch (sgd; the trace is
  # evaluated only at the end here): call 3 + t reads iteration t's batch
  for (what in c("interrupt", "interrupt_inside")) {
    calls <- 0
    Yf <- function(idx) {
      calls <<- calls + 1
      if (calls == 3 + 5) {
        tools::pskill(Sys.getpid(), tools::SIGINT)
        if (what == "interrupt_inside") {
          Sys.sleep(5)                  # R sees the interrupt here
          stop("not reached")
        }
      }
      Y[, idx, drop = FALSE]
    }
    ctl <- cg_control(max_iter = 50, eval_every = 1000, progress = FALSE)
    set.seed(12)
    res <- with_warnings_smf(stochastic_mf(Yf, 2, method = "sgd", n = n, batch_size = 8,
                                           control = ctl))
    after <- .Random.seed
    expect_identical(res$fit$status, "interrupted")
    expect_identical(res$warnings, "fit interrupted after 4 iterations")
    # the dictionary of a run stopped at max_iter = 4 from the same seed
    set.seed(12)
    ref <- stochastic_mf(Y, 2, method = "sgd", batch_size = 8,
                         control = cg_control(max_iter = 4, eval_every = 1000,
                                              progress = FALSE))
    expect_identical(res$fit$solution$W, ref$solution$W)
    # every draw made before the interrupt is in .Random.seed: the reference
    # run's, then iteration 5's batch (a partial Fisher-Yates shuffle)
    for (i in 0:7) sample.int(n - i, 1)
    expect_identical(after, .Random.seed)
  }
  # R is still usable: a fit after the interrupts runs to its end
  fit <- stochastic_mf(Y, 2, control = cg_control(max_iter = 5, progress = FALSE))
  expect_identical(fit$status, "max_iter")
})

test_that("init = a vr fit continues it: the W of one run with both runs' outer iterations", {
  set.seed(31)
  Y <- matrix(rnorm(10 * 60), 10)
  run <- function(outer, init = "data") stochastic_mf(Y, 3, model = "odl", outer = outer, init = init)
  set.seed(5); long <- run(6)
  set.seed(5); first <- run(3); second <- run(3, init = first)   # RNG stream continues
  expect_identical(second$solution$W, long$solution$W)
  expect_identical(second$objective, long$objective)
  # sgd from a fit: a warm start, the objective no worse than the fit's start
  sg <- stochastic_mf(Y, 3, model = "odl", method = "sgd", init = long, outer = 1)
  expect_lte(sg$trace$objective[1], long$objective * (1 + 1e-12))
  expect_error(stochastic_mf(Y, 2, init = long),
               "`init` must be \"data\", \"ones\", a 10 x 2 numeric matrix or a stochastic_mf\\(\\) fit")
})

# ---- exact continuation (init = a fit): k1 + k2 iterations in two runs are
# the one run of k1 + k2, bit for bit (the same arithmetic on the same
# state, and the same random numbers: set.seed once, no RNG use between)

# (expect_same_run(): helper-resume.R)

resume_data <- function() {
  set.seed(31)
  Y <- matrix(rnorm(10 * 60), 10)
  # ornmf: its data start runs vr on the scale's sample and sets sgd's beta
  list(odl = Y, onmf = abs(Y), ornmf = abs(Y))
}

test_that("init = an sgd or smm fit continues it exactly (odl, onmf, ornmf; automatic and given beta)", {
  data <- resume_data()
  configs <- list(sgd = list(method = "sgd"), sgd_beta = list(method = "sgd", beta = 2),
                  smm = list(method = "smm"))
  k1 <- 7L; k2 <- 11L
  for (model in names(data)) for (cf in names(configs)) {
    label <- paste(model, cf)
    run <- function(k, init = "data")
      stochastic_mf(data[[model]], 3, model = model, method = configs[[cf]]$method,
                    beta = configs[[cf]]$beta, init = init,
                    control = cg_control(max_iter = k, eval_every = 1, progress = FALSE))
    set.seed(5); whole <- run(k1 + k2); seed_whole <- .Random.seed
    set.seed(5); first <- run(k1); seed_first <- .Random.seed
    part <- run(k2, init = first)
    expect_same_run(part, whole, label)
    expect_identical(.Random.seed, seed_whole, label = label)   # the same draws
    expect_identical(part$trace$iter, 0:(k1 + k2), label = label)
    expect_true(any(grepl("continued exactly from a fit of 7 iterations", part$notes)),
                label = label)
    # the state the loop carries: sgd's resolved beta (the given one, or from
    # the first minibatch's curvature), smm's sums over the k1 + k2 batches
    if (cf == "smm") {
      expect_identical(part$state$state_count, (k1 + k2) * as.double(part$batch_size))
      expect_identical(dim(part$state$state_A), c(3L, 3L))
    } else {
      expect_identical(part$state$state_beta, first$state$state_beta, label = label)
      if (cf == "sgd_beta") expect_identical(part$state$state_beta, 2)
    }
    # teeth: without its state the fit is a warm start from its W (sgd's
    # steps from t = 0, smm's sums from zero): another run
    assign(".Random.seed", seed_first, envir = globalenv())
    no_state <- first
    no_state$state <- NULL
    warm <- run(k2, init = no_state)
    expect_false(identical(warm$solution$W, whole$solution$W), label = label)
    expect_identical(warm$iterations, k2, label = label)
    expect_identical(warm$trace$iter, 0:k2, label = label)
    expect_true(any(grepl("warm start from the W of a fit of 7 iterations", warm$notes)),
                label = label)
    # it starts at first's W (projected onto C again: equal up to rounding)
    expect_equal(warm$trace$objective[1], first$objective, tolerance = 1e-12, label = label)
  }
})

test_that("the carried state matters: sgd's automatic beta is reused, smm's sums restored", {
  Y <- resume_data()$odl
  ctl <- function(k) cg_control(max_iter = k, eval_every = 1, progress = FALSE)
  for (method in c("sgd", "smm")) {
    run <- function(k, init = "data") stochastic_mf(Y, 3, method = method, init = init,
                                                    control = ctl(k))
    set.seed(8); whole <- run(12)
    set.seed(8); first <- run(5); seed_first <- .Random.seed
    expect_same_run(run(7, init = first), whole, method)
    # the same exact continuation with one part dropped: beta re-estimated
    # from the resumed run's first batch, or the sums restarted
    drop <- if (method == "sgd") "state_beta" else c("state_A", "state_B", "state_count")
    first$state[drop] <- NULL
    assign(".Random.seed", seed_first, envir = globalenv())
    partial <- run(7, init = first)
    expect_true(any(grepl("continued exactly", partial$notes)), label = method)
    expect_false(identical(partial$solution$W, whole$solution$W), label = method)
  }
})

test_that("vr continues exactly within an outer iteration and with output = \"random\"", {
  Y <- resume_data()$odl
  for (output in c("last", "random")) {
    # inner = 3: k1 = 7 stops one step into the third outer iteration, whose
    # snapshot (W0, its full gradient, the step) the fit keeps
    run <- function(k, init = "data") stochastic_mf(Y, 3, inner = 3, output = output,
      init = init, control = cg_control(max_iter = k, eval_every = 1, progress = FALSE))
    set.seed(6); whole <- run(17); seed_whole <- .Random.seed
    set.seed(6); first <- run(7); seed_first <- .Random.seed
    expect_identical(first$state$state_inner_done, 1, label = output)
    part <- run(10, init = first)
    expect_same_run(part, whole, output)
    expect_identical(.Random.seed, seed_whole, label = output)
    # an outer iteration completed: no snapshot kept, the next run takes one
    expect_null(run(6, init = run(6))$state$state_W0)
    if (output == "random") {
      # option I returns the kept iterate, drawn by reservoir sampling over
      # all k1 + k2 iterates: the fit keeps its last iterate apart
      expect_false(identical(unname(first$solution$W), first$state$state_W))
      expect_identical(unname(first$solution$W), first$state$state_Wout)
    }
    # teeth: a warm start from the returned W takes a new snapshot
    first$state <- NULL
    assign(".Random.seed", seed_first, envir = globalenv())
    warm <- run(10, init = first)
    expect_false(identical(warm$solution$W, whole$solution$W), label = output)
  }
})

test_that("init: other settings or data are a warm start; a bad state errors naming `init`", {
  Y <- resume_data()$odl
  ctl <- cg_control(max_iter = 6, eval_every = 1, progress = FALSE)
  set.seed(4)
  fit <- stochastic_mf(Y, 3, method = "smm", control = ctl)
  warm_note <- "warm start from the W of a fit of 6 iterations"
  others <- list(
    method = stochastic_mf(Y, 3, method = "sgd", init = fit, control = ctl),
    batch_size = stochastic_mf(Y, 3, method = "smm", batch_size = 5, init = fit, control = ctl),
    lambda = stochastic_mf(Y, 3, method = "smm", lambda = 0.1, init = fit, control = ctl),
    data = stochastic_mf(Y + 1e-9, 3, method = "smm", init = fit, control = ctl))
  for (o in names(others)) {
    expect_true(any(grepl(warm_note, others[[o]]$notes)), label = o)
    expect_identical(others[[o]]$iterations, 6L, label = o)
    expect_identical(others[[o]]$trace$iter, 0:6, label = o)
  }
  # `inner` and `outer` only set smm's budget: still the same run
  same <- stochastic_mf(Y, 3, method = "smm", inner = 7, outer = 2, init = fit, control = ctl)
  expect_true(any(grepl("continued exactly from a fit of 6 iterations", same$notes)))
  # from fit's W, on the same problem (the start projected onto C again)
  for (o in c("method", "batch_size"))
    expect_equal(others[[o]]$trace$objective[1], fit$objective, tolerance = 1e-12, label = o)
  bad <- function(f) expect_error(stochastic_mf(Y, 3, method = "smm", init = f, control = ctl),
                                  "^`init` has an invalid `state` \\(altered by hand\\?\\)")
  f <- fit; f$state$state_perm <- rev(f$state$state_perm)[-1]; bad(f)
  f <- fit; f$state$state_A <- f$state$state_A[1:2, 1:2]; bad(f)
  f <- fit; f$state$state_count <- NULL; bad(f)          # the sums without their count
  f <- fit; f$state$state_columns <- -1; bad(f)
  vr <- function(init, k) stochastic_mf(Y, 3, inner = 3, init = init,
                                        control = cg_control(max_iter = k, progress = FALSE))
  f <- vr("data", 4); f$state$state_inner_done <- 3; expect_error(vr(f, 1), "^`init` has an invalid")
  f <- fit; f$iterations <- NA; bad(f)
  expect_error(stochastic_mf(Y, 3, init = list(W = 1)),
               "^`init` must be \"data\", \"ones\", a 10 x 3 numeric matrix")
})

test_that("init: vr's step and sgd's beta (the loop's state_loop) are what continue the run", {
  # the dispatcher carries the loop's scalars; the fit names them: the same
  # fit with one doubled is still continued "exactly", and is another run
  Y <- resume_data()$odl
  ctl <- function(k) cg_control(max_iter = k, eval_every = 1, progress = FALSE)
  for (cf in list(c("vr", "state_eta"), c("sgd", "state_beta"))) {
    run <- function(k, init = "data")
      stochastic_mf(Y, 3, method = cf[1], inner = 3, init = init, control = ctl(k))
    set.seed(9); whole <- run(12)
    set.seed(9); first <- run(7); rng <- .Random.seed
    expect_same_run(run(5, init = first), whole, cf[1])
    expect_gt(first$state[[cf[2]]], 0)
    first$state[[cf[2]]] <- 2 * first$state[[cf[2]]]
    assign(".Random.seed", rng, envir = globalenv())
    other <- run(5, init = first)
    expect_true(any(grepl("continued exactly from a fit of 7 iterations", other$notes)),
                label = cf[1])
    expect_false(identical(other$solution$W, whole$solution$W), label = cf[1])
  }
})
