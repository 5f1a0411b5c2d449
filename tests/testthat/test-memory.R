# No hidden copies of the user's data: tracemem() reports every duplication
# of a traced object, and a fit must read its input where it is (the C side
# through read-only pointers, R without `storage.mode<-` on a double matrix,
# whose ALTREP wrapper R copies in full for a writable pointer). Inputs have
# more than 64 entries, so R would wrap them; fits run two iterations.

skip_if_not(capabilities("profmem"), "R built without memory profiling (tracemem)")

ctl <- cg_control(max_iter = 2)

# the "tracemem[" lines printed while fit(x) runs, x traced
copies_of <- function(x, fit) {
  tracemem(x)
  on.exit(untracemem(x))
  out <- capture.output(suppressWarnings(fit(x)))
  out[grepl("tracemem[", out, fixed = TRUE)]
}

set.seed(8)
X <- matrix(rnorm(3000), 150, 20); y <- rnorm(150)
Xs <- Matrix::rsparsematrix(150, 20, density = 0.3)
M <- matrix(rnorm(900), 30, dimnames = list(paste0("r", 1:30), paste0("c", 1:30)))
S <- crossprod(M)                                   # symmetric, with dimnames
Y <- M; Y[sample(900, 300)] <- NA
Ys <- Matrix::rsparsematrix(30, 30, density = 0.3)
A <- lapply(1:3, function(i) Matrix::sparseMatrix(i, i, x = 1, dims = c(30, 30)))
Ad <- matrix(rnorm(200 * 100), 200); b <- rnorm(200)
Asp <- Matrix::rsparsematrix(200, 100, density = 0.2)

test_that("the copy detector sees a copy", {
  expect_length(copies_of(X, function(x) { x[1] <- 0; x }), 1L)
})

test_that("dense inputs are not copied by any fitting function", {
  cases <- list(   # input, fit
    # (intercept = TRUE centres a dense X in one copy: the test below)
    sparse_regression = list(X, function(x) sparse_regression(x, y, 1, control = ctl,
                                                              intercept = FALSE, standardize = FALSE)),
    sparse_regression_spg = list(X, function(x) sparse_regression(x, y, 1, method = "spg",
                                                                  control = ctl,
                                                                  intercept = FALSE, standardize = FALSE)),
    complete_matrix = list(Y, function(x) complete_matrix(x, 1, control = ctl)),
    lowrank_sparse = list(M, function(x) lowrank_sparse(x, 0.1, 1, control = ctl)),
    lowrank_sparse_psd = list(S, function(x) lowrank_sparse(x, 0.1, 1, set = "psd",
                                                            control = ctl)),
    lowrank_sampler = list(M, function(x) lowrank_sparse(lowrank_sampler(x, 1), 0.1, 1,
                                                         control = ctl)),
    covariance_rows = list(X, function(x) lowrank_sparse(covariance_rows(x), 0.1, 1,
                                                         set = "psd", control = ctl)),
    sparse_covariance = list(X, function(x) sparse_covariance(x, 0.1, control = ctl)),
    lowrank_constrained = list(M, function(x) lowrank_constrained(x, A, rep(1, 3), 1,
                                                                  control = ctl)),
    matrix_sensing = list(Ad, function(x) matrix_sensing(x, b, 1, lambda2 = 0.1,
                                                         dims = c(10, 10), control = ctl)),
    robust_pca = list(M, function(x) robust_pca(x, 1, 1, control = ctl)),
    robust_pca_psd = list(S, function(x) robust_pca(x, 1, 1, psd = TRUE, control = ctl)),
    robust_pca_theory = list(M, function(x) robust_pca(x, 1, 1, step = "theory",
                                                       control = ctl)))
  for (nm in names(cases)) {
    expect_identical(copies_of(cases[[nm]][[1]], cases[[nm]][[2]]), character(0), info = nm)
  }
})

# the allocations of at least `bytes` made while f() runs (Rprofmem)
big_allocations <- function(f, bytes) {
  file <- tempfile()
  on.exit(unlink(file))
  utils::Rprofmem(file, threshold = bytes)
  suppressWarnings(f())
  utils::Rprofmem(NULL)
  out <- readLines(file)
  out[grepl("^[0-9]+ :", out) & as.numeric(sub(" :.*", "", out)) >= bytes]
}

test_that("sparse_regression's intercept centres a dense X in exactly one new matrix", {
  # X is never duplicated (tracemem) and its centred copy is the only
  # allocation of its size (made in one pass of C: src/regression_data.c)
  Xl <- matrix(rnorm(1100 * 1000), 1100, 1000); yl <- rnorm(1100)
  fit <- function(x) sparse_regression(x, yl, 1, control = ctl, standardize = FALSE)
  expect_length(copies_of(Xl, fit), 0L)
  expect_length(big_allocations(function() fit(Xl), 8 * length(Xl)), 1L)
  expect_length(copies_of(X, function(x) sparse_regression(x, y, 1, control = ctl,
                                                           standardize = FALSE)), 0L)
  # a CV fold's training rows: taken, centred (and, standardized, scaled)
  # into one new matrix each, the folds' and the full data's (11 with 10
  # folds); standardized, one more: the full data's prepared problem. The
  # folds' 10 are made outside R's heap (src/regression_data.c,
  # cg_fold_real): R sees only the full data's (with the option
  # stochcg.fold_external = FALSE, all 11 as before)
  Xc <- matrix(rnorm(2000 * 500), 2000, 500); yc <- rnorm(2000)
  ids <- rep_len(1:10, 2000)
  for (ext in c(TRUE, FALSE)) for (std in c(FALSE, TRUE)) {
    old <- options(stochcg.fold_external = ext)
    big <- big_allocations(function()
      cv_sparse_regression(Xc, yc, folds = ids, standardize = std, radius = c(0.5, 1),
                           control = ctl), 8 * 1800 * 500)
    options(old)
    expect_length(big, (if (std) 1L + 1L else 1L) + if (ext) 0L else 10L)
  }
  # freed when the CV ends, also when it ends by an error (none left live;
  # with a given grid of two radii each fold's copy is made once)
  live <- function() .Call(stochcg:::C_cg_fold_live)
  before <- live()
  made <- 0L
  trace_made <- function(m) if (grepl("^CV fold", conditionMessage(m))) made <<- live() - before
  cv <- withCallingHandlers(
    cv_sparse_regression(Xc[1:300, 1:40], yc[1:300], folds = rep_len(1:5, 300), nradius = 6,
                         control = cg_control(progress = TRUE)),
    message = function(m) { trace_made(m); invokeRestart("muffleMessage") })
  expect_gt(made, 0L)
  expect_identical(live(), before)
  res <- tryCatch(withCallingHandlers(
    cv_sparse_regression(Xc[1:300, 1:40], yc[1:300], folds = rep_len(1:5, 300), nradius = 6,
                         control = cg_control(progress = TRUE)),
    message = function(m) {
      if (grepl("fold 2 of 5", conditionMessage(m))) stop("abandoned")
      invokeRestart("muffleMessage")
    }),
    error = conditionMessage)
  expect_identical(res, "abandoned")
  expect_identical(live(), before)
})

test_that("a binomial or Poisson CV's fold copies of X are made outside R's heap", {
  # each fold's prepared problem holds its training rows of X: with the
  # folds' copies outside R's heap (cg_fold_real) no allocation of a fold's
  # size is left on R's heap (10 with stochcg.fold_external = FALSE); with a
  # penalty factor 0 the penalized columns are one more copy per fold and
  # one of the full data (R's); the CV's table, radii and coefficients are
  # identical() either way, and nothing is left live (fails on main: 10)
  set.seed(7)
  Xb <- matrix(rnorm(600 * 300), 600, 300); ids <- rep_len(1:10, 600)
  yb <- as.double(Xb[, 1] - Xb[, 2] + rnorm(600) > 0)
  yp <- rpois(600, exp(0.3 * Xb[, 1]))
  live <- function() .Call(stochcg:::C_cg_fold_live)
  for (fam in c("binomial", "poisson")) {
    yf <- if (fam == "binomial") yb else yp
    for (pf in list(NULL, c(0, rep(1, 299)))) {
      cv <- list()
      for (ext in c(TRUE, FALSE)) {
        old <- options(stochcg.fold_external = ext)
        before <- live()
        run <- function() cv[[as.character(ext)]] <<-
          cv_sparse_regression(Xb, yf, folds = ids, family = fam, radius = c(1, 2),
                               penalty.factor = pf, control = ctl)
        # ("new page" lines of Rprofmem: not numbers)
        big <- suppressWarnings(big_allocations(run, 8 * 540 * 299))
        options(old)
        expect_identical(live(), before)
        expect_length(big, (if (ext) 0L else 10L) + if (is.null(pf)) 0L else 11L)
      }
      # (the results: the times differ)
      for (k in c("cv", "fold_loss", "radius.min", "radius.1se"))
        expect_identical(cv[["TRUE"]][[k]], cv[["FALSE"]][[k]], info = k)
      expect_identical(coef(cv[["TRUE"]]), coef(cv[["FALSE"]]))
    }
  }
})

test_that("a CV fold's copy outside R's heap holds R's numbers and is released", {
  # the same doubles and attributes as the copy R makes, centred or not,
  # scaled or not; after cg_fold_release() reading it is an error
  Xf <- matrix(rnorm(60 * 7), 60, 7, dimnames = list(paste0("r", 1:60), paste0("c", 1:7)))
  rows <- sort(sample(60, 45))
  for (cen in c(TRUE, FALSE)) for (sc in list(NULL, list(TRUE, NULL), list(FALSE, runif(7) + 0.5))) {
    a <- .Call(stochcg:::C_cg_centred_rows, Xf, rows, cen, sc, FALSE)
    b <- .Call(stochcg:::C_cg_centred_rows, Xf, rows, cen, sc, TRUE)
    expect_identical(b, a)
    if (!cen && is.null(sc)) expect_identical(b$X[, ], Xf[rows, ])   # X[rows, ] itself
    n_live <- .Call(stochcg:::C_cg_fold_live)
    expect_true(.Call(stochcg:::C_cg_fold_release, b$X))
    expect_identical(.Call(stochcg:::C_cg_fold_live), n_live - 1L)
    invisible(.Call(stochcg:::C_cg_fold_release, b$X))   # again: nothing more to free
    expect_identical(.Call(stochcg:::C_cg_fold_live), n_live - 1L)
    expect_error(sum(b$X), "read after the cross-validation ended")
    expect_false(.Call(stochcg:::C_cg_fold_release, a$X))     # an ordinary matrix: left alone
  }
})

test_that("sparse inputs are not copied", {
  # the slots a dgCMatrix shares with the C side
  expect_identical(copies_of(Xs@x, function(x) sparse_regression(Xs, y, 1, control = ctl, standardize = FALSE)),
                   character(0))
  expect_identical(copies_of(Xs@i, function(x) sparse_regression(Xs, y, 1, control = ctl, standardize = FALSE)),
                   character(0))
  expect_identical(copies_of(Ys@x, function(x) complete_matrix(Ys, 1, control = ctl)),
                   character(0))
  expect_identical(copies_of(Xs@x, function(x) lowrank_sparse(covariance_rows(Xs), 0.1, 1,
                                                               set = "psd", control = ctl)),
                   character(0))
  expect_identical(copies_of(Xs@x, function(x) sparse_covariance(Xs, 0.1, control = ctl)),
                   character(0))
  expect_identical(copies_of(Asp@x, function(x) matrix_sensing(Asp, b, 1, lambda2 = 0.1,
                                                               dims = c(10, 10), control = ctl)),
                   character(0))
})

test_that("the copy-free symmetry test agrees with isSymmetric()", {
  set.seed(9)
  for (n in c(1, 2, 3, 40, 1100)) {         # 1100 columns: several blocks
    B <- matrix(rnorm(n * n), n)
    Sym <- B + t(B)
    for (eps in c(0, 1e-12, 1e-9, 1e-6)) {
      P <- Sym
      P[n, 1] <- P[n, 1] + eps
      expect_identical(is_symmetric_matrix(P, tol = 1e-8),
                       isSymmetric(unname(P), tol = 1e-8), info = paste(n, eps))
    }
  }
  expect_false(is_symmetric_matrix(matrix(1:6, 2)))
  expect_true(is_symmetric_matrix(matrix(0, 5, 5)))
})

test_that("all_finite() finds NA, NaN and Inf without allocating", {
  expect_true(all_finite(X))
  expect_true(all_finite(numeric(0)))
  for (bad in c(NA, NaN, Inf, -Inf)) expect_false(all_finite(replace(X, 7, bad)))
  expect_false(all_finite(c(TRUE, NA)))
})

# ---- the single solve entry checks every array it reads (type, length,
# index ranges, compressed pointers) before any solver work, so a spec that
# slipped past the R checks (as the constraint matrices of issue 8 did) is
# an error, not an out-of-bounds write
solve_spec <- function(spec) cg_run(spec, cg_control(max_iter = 2), "test", NULL, started = 0)

test_that("regression specs are checked", {
  spec <- list(problem = "regression", method = "fw", step = "line_search", n = 4L,
               p = 3L, y = c(1, 2, 3, 4), radius = 1, sparse = FALSE, gram = TRUE,
               batch_size = 4L, sampling = 1L, lipschitz = 1, X = as.double(1:12))
  expect_length(solve_spec(spec)$solution$beta, 3L)          # the valid spec runs
  expect_error(solve_spec(replace(spec, "X", list(as.double(1:11)))),
               "spec element 'X' must have length 12, not 11")
  expect_error(solve_spec(replace(spec, "y", list(1:4))),
               "spec element 'y' must be of type double")
  Xs <- Matrix::sparseMatrix(i = c(1, 2, 4), j = c(1, 3, 2), x = c(1, 2, 3), dims = c(4, 3))
  Xr <- Matrix::t(Xs)
  sparse <- c(replace(spec[names(spec) != "X"], "sparse", list(TRUE)),
              list(row_p = Xr@p, row_j = Xr@i, row_x = Xr@x,
                   col_p = Xs@p, col_i = Xs@i, col_x = Xs@x))
  expect_length(solve_spec(sparse)$solution$beta, 3L)
  expect_error(solve_spec(replace(sparse, "row_j", list(c(0L, 3L, 1L)))),
               "spec element 'row_j': index 3 out of range 0..2")
  expect_error(solve_spec(replace(sparse, "col_p", list(c(0L, 1L, 2L, 4L)))),
               "spec element 'col_p' must start at 0 and end at 3")
  expect_error(solve_spec(replace(sparse, "row_p", list(c(0L, 2L, 1L, 2L, 3L)))),
               "spec element 'row_p' must not decrease")
})

test_that("completion specs are checked", {
  spec <- list(problem = "completion", method = "fw", step = "standard", m = 3L, n = 3L,
               cell = 0:2, cell_row = 0:2, cell_col = c(2L, 0L, 1L), y = c(1, 2, 3),
               family = 0L, radius = 1, dense_iterate = FALSE, lmo_tol = 1e-4,
               batch_size = 3L, sampling = 1L)
  expect_named(solve_spec(spec)$solution, c("u", "w", "v", "dropped", "svd_form", "mu",
                                            "row", "col", "state"))
  expect_error(solve_spec(replace(spec, "center", 3L)), "spec: invalid center")
  fit <- solve_spec(replace(spec, "center", 2L))
  st <- fit$solution$state
  resume <- c(spec, list(center = 2L, iter_offset = st$iter, init_u = st$u, init_w = st$w,
                         init_v = st$v, init_scale = st$scale, init_kept = st$kept,
                         init_dropped = st$dropped, init_mu = 0, init_row = numeric(3),
                         init_col = numeric(3), state_cnt = st$cnt, state_sy = st$sy,
                         state_touched = st$touched, state_order = st$order,
                         state_pos = st$pos, state_drawn = st$drawn, state_th = st$th))
  expect_named(solve_spec(resume)$solution$state, names(st))
  expect_error(solve_spec(replace(resume, "state_touched", list(c(0L, 0L, 1L)))),
               "spec: invalid touched cells")
  expect_error(solve_spec(replace(resume, "state_touched", list(c(0L, 7L)))),
               "spec element 'state_touched': index 7 out of range 0..2")
  expect_error(solve_spec(replace(resume, "init_w", list(c(1, 2)))),
               "spec element 'init_u' must have length 6")
  expect_error(solve_spec(replace(resume, "state_pos", 9L)), "spec: invalid sampler state")
  expect_error(solve_spec(replace(spec, "cell_row", list(c(0L, 3L, 1L)))),
               "spec element 'cell_row': index 3 out of range 0..2")
  expect_error(solve_spec(replace(spec, "cell", list(c(0L, 1L, 5L)))),
               "spec element 'cell': index 5 out of range 0..2")
  expect_error(solve_spec(replace(spec, "cell_col", list(c(0L, NA, 1L)))),
               "spec element 'cell_col' has an NA index")
})

test_that("low-rank specs are checked: constraint entries inside X", {
  # the max of linear forms <A_i, X> of lowrank_constrained, X 10 x 10, with a
  # constraint entry at 250 (a 20 x 20 constraint matrix, issue 8)
  spec <- list(problem = "lowrank", method = "fw", step = "standard", m = 10L, n = 10L,
               set = 0L, source = 0L, loss = 0L, reg = 2L, lambda = 0, lambda2 = 0,
               mu = 0.1, radius = 1, rank = 1L, max_rank = 10L, M = as.double(1:100),
               sigma = 0, op_p = c(0L, 1L), op_j = 250L, op_x = 1, op_b = 0.5)
  expect_error(solve_spec(spec), "spec element 'op_j': index 250 out of range 0..99")
  expect_error(solve_spec(replace(spec, "op_p", list(c(0L, 2L)))),
               "spec element 'op_p' must start at 0 and end at 1")
  ok <- replace(spec, "op_j", list(5L))
  expect_equal(dim(solve_spec(ok)$solution$X), c(10L, 10L))   # the valid spec runs
  expect_error(solve_spec(replace(ok, "M", list(as.double(1:99)))),
               "spec element 'M' must have length 100, not 99")
  expect_error(solve_spec(replace(ok, "M", list(NULL))), "spec element 'M' must be of type double")
  expect_error(solve_spec(replace(ok, c("set", "n", "M"), list(1L, 9L, as.double(1:90)))),
               "square for the PSD set")
})

test_that("robust PCA specs are checked", {
  spec <- list(problem = "robust", method = "altmin", step = "standard",
               M = matrix(0, 0, 3), psd = FALSE, sparse = 0L, tau = 1, s = 1)
  expect_error(solve_spec(spec), "spec element 'M' must not be empty")
  expect_error(solve_spec(replace(spec, "M", list(matrix(1L, 2, 2)))),
               "spec element 'M' must be a double matrix")
})
