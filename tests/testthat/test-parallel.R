# The folds of the cross-validations run through the future framework
# (R/parallel.R, map_tasks()): the same results under plan(sequential), a
# multisession plan of 2 workers and without future; the caller's RNG state
# and kind kept, one L'Ecuyer-CMRG stream per task; one progressr update per
# task; errors from the workers; the deprecated `cores`.

skip_if_not_installed("future.apply")

par_cov_data <- function(n = 20, p = 30, seed = 6) {
  set.seed(seed)
  matrix(rnorm(n * p), n) %*% chol(0.5^abs(outer(seq_len(p), seq_len(p), "-")))
}

par_reg_data <- function(n = 60, p = 15, seed = 2) {
  set.seed(seed)
  X <- matrix(rnorm(n * p), n, p)
  list(X = X, y = drop(X[, 1:3] %*% c(2, -1.5, 1) + rnorm(n)))
}

# evaluate `code` under a future plan, then put the previous plan back
with_plan <- function(strategy, code, ...) {
  old <- future::plan(strategy, ...)
  on.exit(future::plan(old), add = TRUE)
  code
}

# updates signalled by progressr's progressors while evaluating `code`
count_progress <- function(code) {
  old <- options(progressr.enable = TRUE)
  on.exit(options(old), add = TRUE)
  n <- 0
  progressr::with_progress(
    withCallingHandlers(code, progression = function(p)
      if (identical(p$type, "update")) n <<- n + p$amount),
    handlers = progressr::handler_void)
  n
}

test_that("plan(sequential), plan(multisession, workers = 2) and no future give identical CVs", {
  X <- par_cov_data()
  d <- par_reg_data()
  set.seed(5)
  truth <- tcrossprod(matrix(rnorm(40), 20), matrix(rnorm(30), 15))
  obs <- data.frame(row = sample(20, 200, TRUE), col = sample(15, 200, TRUE))
  obs$value <- truth[cbind(obs$row, obs$col)] + rnorm(200, sd = 0.3)
  set.seed(1)
  r <- list(X = matrix(rnorm(400 * 5), 400) %*% matrix(rnorm(5 * 60), 5) +
              matrix(rnorm(400 * 60), 400))
  r$y <- drop(r$X %*% c(rnorm(10, sd = 2), rep(0, 50)) + rnorm(400))
  runs <- function() {
    set.seed(11)
    # p > n: the floor binds in the small-lambda fold fits
    cov <- sparse_covariance(X, floor = 0.3, folds = 4, standardize = FALSE, shrink = 0)
    lr <- sparse_covariance(X, structure = "lowrank+sparse", lambda = c(0.5, 0.3, 0.2),
                            gamma = c(4, 2), floor = 0.3, folds = 4, standardize = FALSE)
    # stochastic fold fits (sfw draws its minibatches from R's RNG) and
    # the default grid's pieces of five radii
    sfw <- cv_sparse_regression(d$X, d$y, folds = 4, nradius = 8, method = "sfw",
                                batch_size = 10,
                                control = cg_control(tol = 0, max_iter = 300))
    pfw <- cv_sparse_regression(d$X, d$y, folds = 4, nradius = 12)
    # the default grid refined at the one-SE edge, each fold's refined path
    # warm-started from its own fit (test-path-cv.R's n >> p design)
    ref <- cv_sparse_regression(r$X, r$y, folds = rep_len(1:5, 400), standardize = FALSE)
    # K-fold completion (its time limit on the clock of every process)
    comp <- cv_complete_matrix(obs, folds = 3, nradius = 4, max_time = 600)
    # a binomial CV: its folds' copies of X outside R's heap in this process
    # (the sequential plan, no future), R's copies in a worker
    glm <- cv_sparse_regression(r$X, as.double(r$y > 0), folds = rep_len(1:5, 400),
                                family = "binomial", nradius = 8)
    list(cov = cov, lr = lr, sfw = sfw, pfw = pfw, ref = ref, comp = comp, glm = glm,
         rng = .Random.seed)
  }
  same <- function(a, b, what) {
    expect_identical(a$cov$cv, b$cov$cv, label = what)   # attributes: foldid, fold_loglik, skipped
    expect_identical(a$cov$solution$Sigma, b$cov$solution$Sigma, label = what)
    expect_identical(c(a$cov$lambda, a$cov$objective), c(b$cov$lambda, b$cov$objective))
    expect_identical(a$lr$cv, b$lr$cv, label = what)
    expect_identical(a$lr$solution, b$lr$solution, label = what)
    for (m in c("sfw", "pfw", "ref", "comp", "glm")) {
      expect_identical(a[[m]]$cv, b[[m]]$cv, label = paste(what, m))
      expect_identical(a[[m]]$fold_loss, b[[m]]$fold_loss, label = paste(what, m))
      expect_identical(coef(a[[m]]), coef(b[[m]]), label = paste(what, m))
    }
    expect_identical(a$rng, b$rng, label = what)   # the caller's stream where it was left
  }
  seq <- with_plan(future::sequential, runs())
  # (the covariance CV scored its path; sfw's CV drew random numbers: its
  # folds' losses change with the caller's seed)
  expect_gt(sum(seq$cov$cv$n_folds), 0)
  expect_gt(nrow(seq$ref$cv), 30L)                 # (the default 30 radii were refined)
  set.seed(12)
  other <- cv_sparse_regression(d$X, d$y, folds = seq$sfw$foldid, nradius = 8, method = "sfw",
                                batch_size = 10, control = cg_control(tol = 0, max_iter = 300))
  expect_false(identical(other$fold_loss, seq$sfw$fold_loss))
  msgs <- character(0)
  n_updates <- NULL
  with_plan(future::multisession, {
    ms <- runs()
    old <- options(stochcg.future = FALSE)       # no future: lapply in this process
    plain <- runs()
    options(old)
    # progress messages from the workers are relayed; one progressr update
    # per fold (3 folds, one piece of radii)
    withCallingHandlers(
      n_updates <- count_progress(
        cv_sparse_regression(d$X, d$y, radius = c(1, 2), folds = rep(1:3, 20),
                             control = cg_control(progress = TRUE))),
      message = function(m) { msgs <<- c(msgs, conditionMessage(m)); invokeRestart("muffleMessage") })
    # fit errors inside the workers are counted, as in this process
    boom <- function(S, lambda, ...) {
      if (lambda < 0.3) stop("boom at a small lambda")
      stochcg:::covariance_fit(S, lambda, ...)
    }
    set.seed(3)
    expect_warning(cv <- stochcg:::covariance_cv(X, "sparse", lambdas = c(0.4, 0.2), folds = 3,
                                                 floor = 0.3, progress = FALSE, fit_one = boom),
                   "3 failed \\(first error: boom at a small lambda\\)")
    expect_true(is.na(cv$loglik[2]))
    # an error of a task itself is raised here with its message
    expect_error(stochcg:::map_tasks(1:3, function(k) if (k == 2) stop("fold 2 broke") else k),
                 "fold 2 broke")
  }, workers = 2)
  same(seq, ms, "multisession")
  same(seq, plain, "no future")
  expect_identical(n_updates, 3)
  expect_length(msgs, 4L)
  expect_match(msgs[1], "^CV: path of 2 radii on all the data in ")
  expect_setequal(substr(msgs[-1], 1, 25), sprintf("CV fold %d of 3: 2 fits in", 1:3))
})

test_that("map_tasks: one L'Ecuyer-CMRG stream per task; the caller's RNG state and kind kept", {
  on.exit(RNGkind("default", "default", "default"), add = TRUE)
  task <- function(i, n) c(i, runif(n))
  for (kind in c("Mersenne-Twister", "Wichmann-Hill", "L'Ecuyer-CMRG")) {
    set.seed(3, kind = kind)
    before <- .Random.seed
    got <- stochcg:::map_tasks(1:3, task, list(n = 2))
    expect_identical(.Random.seed, before, label = kind)
    expect_identical(RNGkind()[1], kind)
    # by hand: one draw of the caller's stream seeds L'Ecuyer-CMRG; task i
    # runs from the i-th nextRNGStream() of it
    s <- sample.int(.Machine$integer.max, 1L)
    RNGkind("L'Ecuyer-CMRG")
    set.seed(s)
    seed <- .Random.seed
    ref <- lapply(1:3, function(i) {
      seed <<- parallel::nextRNGStream(seed)
      assign(".Random.seed", seed, envir = globalenv())
      c(i, runif(2))
    })
    expect_identical(got, ref, label = kind)
  }
  # the tasks' results in order; seed = FALSE: no streams, the caller's
  # state untouched by a map whose tasks draw nothing
  set.seed(1, kind = "default")
  before <- .Random.seed
  expect_identical(stochcg:::map_tasks(list(2, 3), function(x, a) x * a, list(a = 10),
                                       seed = FALSE), list(20, 30))
  expect_identical(.Random.seed, before)
  # `until` ends the map in this process: the later tasks are not run
  ran <- integer(0)
  res <- stochcg:::map_tasks(1:4, function(k) { ran <<- c(ran, k); k },
                             until = function(r) r == 2)
  expect_identical(ran, 1:2)
  expect_identical(res, list(1L, 2L, NULL, NULL))
})

test_that("a CV with given folds and a deterministic method leaves the RNG state alone", {
  d <- par_reg_data()
  set.seed(4)
  before <- .Random.seed
  cvfit <- cv_sparse_regression(d$X, d$y, radius = c(1, 3, 5), folds = rep(1:3, 20))
  expect_identical(.Random.seed, before)
  expect_length(cvfit$radius.min, 1L)
})

test_that("progressr: one update per fold task; none signalled unless enabled", {
  X <- par_cov_data(n = 30, p = 8)
  n <- count_progress(stochcg:::covariance_cv(X, "sparse", lambdas = c(0.4, 0.2, 0.1),
                                              folds = 3, floor = 0.3, early_stop = FALSE,
                                              progress = FALSE))
  expect_identical(n, 3)                         # one round of 3 folds
  d <- par_reg_data()
  n <- count_progress(cv_sparse_regression(d$X, d$y, radius = c(1, 2), folds = 4))
  expect_identical(n, 4)
  # progressr disabled (its default outside interactive sessions): no
  # progression signalled, the messages of control$progress as before
  old <- options(progressr.enable = FALSE)
  on.exit(options(old), add = TRUE)
  seen <- 0
  withCallingHandlers(cv_sparse_regression(d$X, d$y, radius = c(1, 2), folds = 4),
                      progression = function(p) seen <<- seen + 1)
  expect_identical(seen, 0)
})

test_that("a worker that dies is an error naming it", {
  skip_on_os("windows")
  skip_if_not(future::supportsMulticore())
  expect_error(suppressWarnings(with_plan(future::multicore,
    stochcg:::map_tasks(1:2, function(k) if (k == 2) tools::pskill(Sys.getpid()) else k),
    workers = 2)), "^a parallel task ended without a result")
})

test_that("the deprecated `cores`: a temporary plan, the same fit, the plan put back", {
  skip_on_os("windows")
  X <- par_cov_data(n = 24, p = 12, seed = 2)
  fit <- function(...) {
    set.seed(7)
    sparse_covariance(X, folds = 3, ...)
  }
  a <- fit()
  rm(list = ls(stochcg:::shown_once), envir = stochcg:::shown_once)
  expect_silent(sparse_covariance(X, lambda = 0.1, cores = 2))   # no CV: no plan, no message
  expect_message(b <- fit(cores = 2), "^`cores` is deprecated: set the plan once instead")
  expect_silent(fit(cores = 2))                  # the message once per session
  expect_true(inherits(future::plan(), "sequential"))
  expect_identical(b$cv, a$cv)
  expect_identical(b$solution$Sigma, a$solution$Sigma)
  expect_error(fit(cores = 0), "^`cores`")
})
