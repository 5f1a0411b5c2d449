# Readers (R/readers.R): data drawn block by block from a file equal the
# same data drawn from memory by the same blocks, bit for bit.

h5_matrix <- function(x, chunkdim) {
  f <- tempfile(fileext = ".h5")
  HDF5Array::writeHDF5Array(x, f, name = "x", chunkdim = chunkdim)
}

regression_data <- function(n = 600, p = 12, seed = 1) {
  set.seed(seed)
  X <- matrix(rnorm(n * p), n, p)
  X[, 2] <- 4 * X[, 2] + 3                   # a scale and a mean to remove
  y <- drop(X[, 1:3] %*% c(2, -0.5, 1) + rnorm(n))
  list(X = X, y = y)
}

test_that("block_reader() reads the same blocks from memory and from HDF5", {
  skip_if_not_installed("HDF5Array")
  d <- regression_data(n = 230, p = 7)
  H <- h5_matrix(d$X, c(50, 7))
  rm <- block_reader(d$X, block_size = 50)
  rh <- block_reader(H, block_size = 50)
  expect_equal(rh$n_blocks, 5L)
  for (k in 1:5) {
    rows <- ((k - 1) * 50 + 1):min(230, k * 50)
    expect_identical(reader_block(rm, k), unname(d$X[rows, , drop = FALSE]))
    expect_identical(reader_block(rh, k), reader_block(rm, k))
  }
  # the default block: whole chunks, at least 2^20 values (or all rows)
  expect_equal(block_reader(H)$block_size, 230L)
  big <- h5_matrix(matrix(0, 3000, 400), c(100, 400))
  expect_equal(block_reader(big)$block_size, 2700L)       # 27 chunks of 100 rows
  expect_equal(block_reader(big)$block_size %% 100L, 0L)
  # columns, and a dgCMatrix made dense block by block
  rc <- block_reader(Matrix::Matrix(d$X, sparse = TRUE), block_size = 3, by = "cols")
  expect_identical(reader_block(rc, 3), unname(d$X[, 7, drop = FALSE]))
})

test_that("sfw, fw and spg from an HDF5 file equal the in-memory fit bit for bit", {
  skip_if_not_installed("HDF5Array")
  d <- regression_data()
  H <- h5_matrix(d$X, c(50, ncol(d$X)))
  ctl <- cg_control(max_iter = 200, eval_every = 10)
  for (m in c("sfw", "fw", "spg")) {
    set.seed(7)
    fm <- sparse_regression(block_reader(d$X, block_size = 50), d$y, radius = 2, method = m,
                            batch_size = 7, control = ctl)
    seed_m <- .Random.seed
    set.seed(7)
    fh <- sparse_regression(block_reader(H, block_size = 50), d$y, radius = 2, method = m,
                            batch_size = 7, control = ctl)
    expect_identical(coef(fh), coef(fm), label = m)
    expect_identical(fh$trace$objective, fm$trace$objective, label = m)
    expect_identical(fh$trace$gap, fm$trace$gap, label = m)
    if (m != "fw") expect_gte(nrow(fm$trace), 10L)   # several streamed evaluations
    # the same draws: the RNG is where the in-memory fit left it
    expect_identical(.Random.seed, seed_m, label = m)
  }
  # the other samplers, and a dgCMatrix read by the same blocks
  for (smp in c("stream", "replace")) {
    set.seed(9)
    fm <- sparse_regression(block_reader(d$X, block_size = 50), d$y, radius = 2,
                            sampling = smp, control = ctl)
    set.seed(9)
    fh <- sparse_regression(block_reader(H, block_size = 50), d$y, radius = 2,
                            sampling = smp, control = ctl)
    expect_identical(coef(fh), coef(fm), label = smp)
  }
  set.seed(9)
  fs <- sparse_regression(block_reader(Matrix::Matrix(d$X, sparse = TRUE), block_size = 50),
                          d$y, radius = 2, control = ctl)
  set.seed(9)
  fd <- sparse_regression(block_reader(d$X, block_size = 50), d$y, radius = 2, control = ctl)
  expect_identical(coef(fs), coef(fd))
  # with the default method ("sfw" on disk) and the file's default blocks
  set.seed(3)
  f1 <- sparse_regression(H, d$y, radius = 2, control = ctl)
  set.seed(3)
  f2 <- sparse_regression(block_reader(d$X, block_size = block_reader(H)$block_size), d$y,
                          radius = 2, control = ctl)
  expect_identical(f1$method, "sfw")
  expect_identical(coef(f1), coef(f2))
})

test_that("a reader fit solves the stated problem: streamed objective and gap", {
  skip_if_not_installed("HDF5Array")
  d <- regression_data()
  H <- h5_matrix(d$X, c(50, ncol(d$X)))
  set.seed(2)
  fw <- sparse_regression(block_reader(H, block_size = 50), d$y, radius = 2, method = "fw",
                          control = cg_control(max_iter = 2000, tol = 1e-9))
  ref <- sparse_regression(d$X, d$y, radius = 2, control = cg_control(tol = 1e-12))
  # the objective streamed block by block is the stated one at the coefficients
  a <- coef(fw)[1]; beta <- coef(fw)[-1]
  expect_equal(fw$objective, mean((d$y - a - d$X %*% beta)^2) / 2, tolerance = 1e-12)
  # the gap certifies it: within the gap of the optimum (pfw's, to 1e-12);
  # plain Frank-Wolfe is sublinear (a gap near 1e-3 after 2000 steps), and
  # the coefficients' error is of order the square root of the gap
  expect_lt(fw$gap, 2e-3)
  expect_lte(fw$objective - ref$objective, fw$gap + 1e-12)
  expect_gte(fw$objective - ref$objective, -1e-10)
  expect_equal(unname(coef(fw)), unname(coef(ref)), tolerance = sqrt(fw$gap))
  # standardize = FALSE, no intercept: the plain l1 ball
  set.seed(2)
  f0 <- sparse_regression(block_reader(H, block_size = 50), d$y, radius = 1.5, method = "fw",
                          standardize = FALSE, intercept = FALSE,
                          control = cg_control(max_iter = 2000, tol = 1e-9))
  r0 <- sparse_regression(d$X, d$y, radius = 1.5, standardize = FALSE, intercept = FALSE,
                          control = cg_control(tol = 1e-12))
  expect_identical(names(coef(f0))[1], names(coef(r0))[1])    # no intercept
  expect_lt(f0$gap, 1e-2)
  expect_lte(f0$objective - r0$objective, f0$gap + 1e-12)
  expect_gte(f0$objective - r0$objective, -1e-10)
})

test_that("stochastic_mf from an HDF5 file equals the in-memory fit bit for bit", {
  skip_if_not_installed("HDF5Array")
  set.seed(1)
  Y <- matrix(pmax(rnorm(30 * 400), 0), 30, 400)
  H <- h5_matrix(Y, c(30, 25))
  ctl <- cg_control(eval_every = 1)
  for (m in c("vr", "smm", "sgd")) {
    set.seed(5)
    fm <- stochastic_mf(block_reader(Y, block_size = 25, by = "cols"), k = 4, model = "onmf",
                        method = m, outer = 2, control = ctl)
    seed_m <- .Random.seed
    set.seed(5)
    fh <- stochastic_mf(block_reader(H, block_size = 25, by = "cols"), k = 4, model = "onmf",
                        method = m, outer = 2, control = ctl)
    expect_identical(fh$solution$W, fm$solution$W, label = m)
    expect_identical(fh$trace$objective, fm$trace$objective, label = m)
    expect_identical(.Random.seed, seed_m, label = m)
  }
  # predict() reads block by block: the codes of the matrix in memory
  expect_identical(predict(fh)$H, predict(fh, Y)$H)
})

test_that("stochastic_mf's tests from a reader are a data pass apart; memory and file alike", {
  skip_if_not_installed("HDF5Array")
  set.seed(1)
  Y <- matrix(pmax(rnorm(30 * 400), 0), 30, 400)
  H <- h5_matrix(Y, c(30, 25))
  # batch 10: a pass is ceiling(400 / 10) = 40 iterations; each test reads
  # the whole file, so below 400 iterations (where 10% of them exceed a
  # pass) tests fall on multiples of 40, never closer
  for (cfg in list(list("sgd", 0.1), list("smm", 0.03))) {
    run <- function(data) {
      set.seed(5)
      stochastic_mf(data, k = 4, model = "onmf", method = cfg[[1]], batch_size = 10,
                    outer = 50, control = cg_control(tol = cfg[[2]]))
    }
    fm <- run(block_reader(Y, block_size = 25, by = "cols"))
    fh <- run(block_reader(H, block_size = 25, by = "cols"))
    expect_identical(fh$iterations, fm$iterations, label = cfg[[1]])
    expect_identical(fh$solution$W, fm$solution$W, label = cfg[[1]])
    expect_true(fm$converged, label = cfg[[1]])
    expect_lt(fm$iterations, 400L, label = cfg[[1]])
    expect_identical(fm$iterations %% 40L, 0L, label = cfg[[1]])
    expect_lte(fm$gap, cfg[[2]], label = cfg[[1]])
  }
})

test_that("sparse data from HDF5 go to stochastic_mf as sparse columns, same fit", {
  skip_if_not_installed("HDF5Array")
  set.seed(3)
  Y <- abs(as.matrix(Matrix::rsparsematrix(40, 300, 0.05)))   # 5% nonzero: CSC columns
  H <- h5_matrix(Y, c(40, 25))
  ctl <- cg_control(eval_every = 1)
  fit <- function(data, sparse = NULL) {
    old <- options(stochcg.reader_sparse = sparse)
    on.exit(options(old))
    set.seed(5)
    stochastic_mf(data, k = 3, model = "onmf", outer = 2, control = ctl)
  }
  fh <- fit(block_reader(H, block_size = 50, by = "cols"))
  fm <- fit(block_reader(Y, block_size = 50, by = "cols"))
  fs <- fit(block_reader(Matrix::Matrix(Y, sparse = TRUE), block_size = 50, by = "cols"))
  expect_identical(fh$solution$W, fm$solution$W)
  expect_identical(fh$trace$objective, fm$trace$objective)
  expect_identical(fs$solution$W, fm$solution$W)
  # the dense columns of the same blocks: the same draws, and sums that
  # differ only by the exact zeros they skip (and the BLAS's grouping)
  fd <- fit(block_reader(Y, block_size = 50, by = "cols"), sparse = FALSE)
  expect_equal(fd$solution$W, fm$solution$W, tolerance = 1e-12)
  expect_equal(fd$trace$objective, fm$trace$objective, tolerance = 1e-12)
})

# the 10x Genomics sparse layout (what HDF5Array::TENxMatrix() reads),
# written with rhdf5 (writeTENxMatrix() fails for small matrices with
# HDF5Array 1.26 / rhdf5 2.42: see ?block_reader)
tenx_matrix <- function(M) {
  f <- tempfile(fileext = ".h5")
  rhdf5::h5createFile(f)
  rhdf5::h5createGroup(f, "matrix")
  rhdf5::h5write(M@x, f, "matrix/data")
  rhdf5::h5write(M@i, f, "matrix/indices")
  rhdf5::h5write(M@p, f, "matrix/indptr")
  rhdf5::h5write(dim(M), f, "matrix/shape")
  rhdf5::h5errorHandling("normal")       # see ?block_reader
  HDF5Array::TENxMatrix(f, "matrix")
}

test_that("a 10x sparse HDF5 file is read as sparse blocks: the in-memory fit bit for bit", {
  skip_if_not_installed("HDF5Array")
  set.seed(3)
  M <- abs(Matrix::rsparsematrix(40, 300, 0.05))
  T <- tenx_matrix(M)
  r <- block_reader(T, block_size = 50, by = "cols")
  expect_true(r$sparse)
  # blocks come back sparse, equal to the matrix's columns
  for (k in c(1L, 6L)) {
    B <- stochcg:::reader_block_sparse(r, k)
    expect_s4_class(B, "dgCMatrix")
    expect_identical(B, M[, ((k - 1) * 50 + 1):(k * 50)])
  }
  expect_identical(reader_block(r, 2), as.matrix(M[, 51:100]))
  ctl <- cg_control(eval_every = 1)
  fits <- lapply(list(r, block_reader(M, block_size = 50, by = "cols"),
                      block_reader(as.matrix(M), block_size = 50, by = "cols")), function(data) {
    set.seed(5)
    f <- stochastic_mf(data, k = 3, model = "onmf", outer = 2, control = ctl)
    list(W = f$solution$W, obj = f$trace$objective, seed = .Random.seed)
  })
  expect_identical(fits[[1]], fits[[2]])
  expect_identical(fits[[1]], fits[[3]])
  # the default block: about 2^20 nonzeros (here all 300 columns)
  expect_identical(block_reader(T, by = "cols")$block_size, 300L)
  # NA in the file names Y and the block
  M2 <- M; M2@x[length(M2@x)] <- NA
  expect_error(stochastic_mf(block_reader(tenx_matrix(M2), block_size = 50, by = "cols"),
                             k = 3, model = "onmf"), "`Y` contains NA, NaN or Inf \\(in block 6")
})

test_that("readers leave the RNG alone; bad input names the argument", {
  skip_if_not_installed("HDF5Array")
  d <- regression_data(n = 100, p = 5)
  H <- h5_matrix(d$X, c(20, 5))
  set.seed(11)
  before <- .Random.seed
  r <- block_reader(H, block_size = 20)
  for (k in seq_len(r$n_blocks)) reader_block(r, k)
  expect_identical(.Random.seed, before)
  Xna <- d$X
  Xna[57, 3] <- NA
  Hna <- h5_matrix(Xna, c(20, 5))
  expect_error(sparse_regression(Hna, d$y, radius = 1, method = "sfw"),
               "`X` contains NA, NaN or Inf (in block 1, rows 1 to 100)", fixed = TRUE)
  expect_error(stochastic_mf(h5_matrix(t(Xna), c(5, 20)), k = 2),
               "`Y` contains NA, NaN or Inf (in block", fixed = TRUE)
  expect_error(sparse_regression(H, d$y[-1], radius = 1, method = "sfw"), "`y`")
  expect_error(sparse_regression(H, d$y, radius = 1, method = "pfw"), "`method` must be")
  expect_error(sparse_regression(H, d$y, radius = 1, gram = FALSE), "`gram` must be TRUE")
  expect_error(sparse_regression(H, d$y, radius = c(1, 2)), "`radius` must be a single")
  expect_error(sparse_regression(H, d$y, radius = 1, family = "binomial"), "`family`")
  expect_error(sparse_regression(H, d$y, radius = 1, weights = rep(1, 100)), "`weights`")
  expect_error(block_reader(d$X, block_size = 0), "`block_size`")
  expect_error(reader_block(r, 6), "`k`")
  expect_error(block_reader(list(1, 2)), "`x` must be a numeric matrix")
  expect_error(sparse_regression(block_reader(H, block_size = 20, by = "cols"), d$y, radius = 1),
               "`X` is a reader by cols")
})

# ---- tests spaced by the data's passes (src/solve_run.c, test_every_min)

test_that("a reader's gap tests are a data pass apart; memory and file stop alike", {
  skip_if_not_installed("HDF5Array")
  d <- regression_data()                      # n = 600: ceiling(600 / 7) = 86
  H <- h5_matrix(d$X, c(50, ncol(d$X)))
  ctl <- cg_control(tol = 1e-3, max_iter = 5000)
  set.seed(4)
  fm <- sparse_regression(block_reader(d$X, block_size = 50), d$y, radius = 2,
                          method = "sfw", batch_size = 7, control = ctl)
  set.seed(4)
  fh <- sparse_regression(block_reader(H, block_size = 50), d$y, radius = 2,
                          method = "sfw", batch_size = 7, control = ctl)
  expect_identical(coef(fh), coef(fm))
  expect_identical(fh$iterations, fm$iterations)
  expect_identical(c(fh$objective, fh$gap), c(fm$objective, fm$gap))
  # no test before the 86 iterations that draw one pass (each would read
  # the file); from then on S and b are X'X and X'y, tests read nothing
  # and follow the plain schedule (the next test at the least t with t -
  # last >= 1 + t %/% 10); it stopped on tol at one of them
  sched <- 86L
  while (length(sched) < 100L) {
    last <- sched[length(sched)]; t <- last + 1L
    while (t - last < 1L + t %/% 10L) t <- t + 1L
    sched <- c(sched, t)
  }
  expect_true(fm$converged)
  expect_true(fm$iterations %in% sched)
  expect_lte(fm$gap, 1e-3 * fm$objective)
  # two passes over the file: the moments (with X'y: the cold start's
  # evaluation) and the draws; no evaluation read it
  expect_identical(fh$reader$passes, 2)
  # and the gap certifies it against the exact optimum (pfw, in memory)
  ref <- sparse_regression(d$X, d$y, radius = 2, control = cg_control(tol = 1e-12))
  expect_lte(fm$objective - ref$objective, fm$gap + 1e-12)
  expect_gte(fm$objective - ref$objective, -1e-10)
  # the objective and gap from the statistics are those of the fit's
  # coefficients, computed directly
  Xs <- scale(d$X, colMeans(d$X), apply(d$X, 2, function(x) sqrt(mean((x - mean(x))^2))))
  r <- (d$y - mean(d$y)) - drop(Xs %*% fm$theta)
  g <- -drop(crossprod(Xs, r)) / nrow(d$X)
  expect_equal(fm$objective, sum(r^2) / (2 * nrow(d$X)), tolerance = 1e-12)
  expect_equal(fm$gap, sum(g * fm$theta) + 2 * max(abs(g)), tolerance = 1e-9)
})

# ---- sparse_covariance() from a reader: the covariance in one pass

test_that("sparse_covariance() from HDF5 equals the in-memory fit", {
  skip_if_not_installed("HDF5Array")
  set.seed(1)
  p <- 15; n <- 300
  X <- matrix(rnorm(n * p), n) %*% chol(toeplitz(c(1, 0.5, 0.25, rep(0, p - 3))))
  X[, 3] <- 10 * X[, 3] + 50                 # a scale and a large mean
  H <- h5_matrix(X, c(40, p))
  # the streamed covariance (around the first block's means) is cov()'s
  expect_equal(stochcg:::reader_covariance(H, "data")$S, cov(X), tolerance = 1e-13)
  fm <- sparse_covariance(X, lambda = 0.1)
  fh <- sparse_covariance(H, lambda = 0.1)
  expect_equal(as.matrix(coef(fh)), unname(as.matrix(coef(fm))), tolerance = 1e-10)
  expect_identical(fh$nobs, fm$nobs)
  expect_equal(fh$floor, fm$floor, tolerance = 1e-12)
  expect_true(fh$converged)
  # file and memory read by the same blocks: the same fit, bit for bit
  fr <- sparse_covariance(block_reader(X, block_size = 40), lambda = 0.1)
  fb <- sparse_covariance(block_reader(H, block_size = 40), lambda = 0.1)
  expect_identical(unname(as.matrix(coef(fb))), unname(as.matrix(coef(fr))))
  # lowrank+sparse at given penalties, and a path over lambda
  fl <- sparse_covariance(H, lambda = 0.05, structure = "lowrank+sparse", gamma = 0.5)
  fl0 <- sparse_covariance(X, lambda = 0.05, structure = "lowrank+sparse", gamma = 0.5)
  expect_equal(as.matrix(coef(fl)), unname(as.matrix(coef(fl0))), tolerance = 1e-10)
  ph <- sparse_covariance(H, lambda = c(0.2, 0.1), folds = NULL)
  pm <- sparse_covariance(X, lambda = c(0.2, 0.1), folds = NULL)
  expect_equal(as.matrix(coef(ph, lambda = 0.2)), unname(as.matrix(coef(pm, lambda = 0.2))),
               tolerance = 1e-10)
})

test_that("a covariance from disk takes given penalties; bad input names the argument", {
  skip_if_not_installed("HDF5Array")
  set.seed(2)
  X <- matrix(rnorm(60 * 4), 60, 4)
  H <- h5_matrix(X, c(20, 4))
  expect_error(sparse_covariance(H), "`lambda` must be given", fixed = TRUE)
  expect_error(sparse_covariance(H, lambda = c(0.1, 0.2)), "`lambda` must be given")
  expect_error(sparse_covariance(H, lambda = 0.1, n = 60), "`n` must be NULL")
  expect_error(sparse_covariance(H, lambda = 0.1, shrink = "cv"), "`shrink` must be a number")
  expect_error(sparse_covariance(H, lambda = 0.1, structure = "auto"), "`structure`")
  expect_error(sparse_covariance(H, lambda = 0.1, structure = "lowrank+sparse"),
               "`gamma` must be a number")
  expect_error(sparse_covariance(block_reader(H, by = "cols"), lambda = 0.1),
               "`data` is a reader by cols")
  Xna <- X
  Xna[33, 2] <- NaN
  expect_error(sparse_covariance(h5_matrix(Xna, c(20, 4)), lambda = 0.1),
               "`data` contains NA, NaN or Inf (in block 1, rows 1 to 60)", fixed = TRUE)
  expect_error(covariance_rows(H), "`data` is read from disk (a reader)", fixed = TRUE)
})

test_that("y on disk, read with X's blocks, gives the fit of y in memory bit for bit", {
  skip_if_not_installed("HDF5Array")
  d <- regression_data(n = 430)
  d$y <- d$y + 40                            # a mean the intercept carries
  f <- tempfile(fileext = ".h5")
  H <- HDF5Array::writeHDF5Array(d$X, f, name = "x", chunkdim = c(50L, ncol(d$X)))
  Y1 <- HDF5Array::writeHDF5Array(array(d$y), f, name = "y", chunkdim = 30L)   # 1-d
  Y2 <- HDF5Array::writeHDF5Array(matrix(d$y), f, name = "y2", chunkdim = c(50L, 1L))
  ys <- list(vector = Y1, column = Y2, reader = block_reader(Y2, block_size = 17))
  ctl <- cg_control(max_iter = 150, eval_every = 10)
  for (m in c("sfw", "fw", "spg")) for (icpt in c(TRUE, FALSE)) {
    set.seed(4)
    fm <- sparse_regression(block_reader(H, block_size = 50), d$y, radius = 2, method = m,
                            batch_size = 9, intercept = icpt, control = ctl)
    seed_m <- .Random.seed
    expect_false(fm$reader$y_on_disk)
    for (nm in names(ys)) {
      lab <- paste(m, icpt, nm)
      set.seed(4)
      fd <- sparse_regression(block_reader(H, block_size = 50), ys[[nm]], radius = 2,
                              method = m, batch_size = 9, intercept = icpt, control = ctl)
      expect_true(fd$reader$y_on_disk, label = lab)
      expect_identical(coef(fd), coef(fm), label = lab)
      expect_identical(fd$trace$objective, fm$trace$objective, label = lab)
      expect_identical(fd$trace$gap, fm$trace$gap, label = lab)
      expect_identical(fd$objective, fm$objective, label = lab)
      expect_identical(.Random.seed, seed_m, label = lab)
    }
  }
  # the streamed objective is the stated one (y read with the blocks; the
  # last fit: spg without intercept)
  expect_length(coef(fd), ncol(d$X))
  expect_equal(fd$objective, mean((d$y - d$X %*% coef(fd))^2) / 2, tolerance = 1e-12)
  # ybar from the blocks is mean(y), bit for bit (long double sums carried)
  yb <- y_blocks(Y1, block_reader(H, block_size = 50))
  expect_identical(y_mean(yb, 9L, 430L), mean(d$y))
  # a warm start (its tol scale from y'y of the blocks), other samplers
  for (smp in c("stream", "replace")) {
    set.seed(8)
    wm <- sparse_regression(block_reader(H, block_size = 50), d$y, radius = 3, sampling = smp,
                            init = fm, control = ctl)
    set.seed(8)
    wd <- sparse_regression(block_reader(H, block_size = 50), Y1, radius = 3, sampling = smp,
                            init = fm, control = ctl)
    expect_identical(coef(wd), coef(wm), label = smp)
    expect_identical(wd$trace$gap, wm$trace$gap, label = smp)
  }
})

test_that("bad y on disk: errors name `y` and the block", {
  skip_if_not_installed("HDF5Array")
  d <- regression_data(n = 100, p = 5)
  f <- tempfile(fileext = ".h5")
  H <- HDF5Array::writeHDF5Array(d$X, f, name = "x", chunkdim = c(20L, 5L))
  yna <- d$y
  yna[67] <- NA
  Yna <- HDF5Array::writeHDF5Array(array(yna), f, name = "yna", chunkdim = 20L)
  expect_error(sparse_regression(block_reader(H, block_size = 20), Yna, radius = 1),
               "`y` contains NA, NaN or Inf (in block 4, rows 61 to 80)", fixed = TRUE)
  Yna2 <- HDF5Array::writeHDF5Array(matrix(yna), f, name = "yna2", chunkdim = c(20L, 1L))
  expect_error(sparse_regression(block_reader(H, block_size = 20), Yna2, radius = 1,
                                 intercept = FALSE),
               "`y` contains NA, NaN or Inf (in block 4, rows 61 to 80)", fixed = TRUE)
  Ys <- HDF5Array::writeHDF5Array(array(d$y[-1]), f, name = "ys", chunkdim = 20L)
  expect_error(sparse_regression(H, Ys, radius = 1),
               "`y` must have length 100 (the rows of `X`; got 99)", fixed = TRUE)
  Y2 <- HDF5Array::writeHDF5Array(cbind(d$y, d$y), f, name = "y2c", chunkdim = c(20L, 2L))
  expect_error(sparse_regression(H, Y2, radius = 1),
               "`y` must be a vector or a one-column matrix, not 100 x 2", fixed = TRUE)
  expect_error(sparse_regression(H, block_reader(d$X[, 1:2]), radius = 1),
               "`y` must be a reader by rows of one column (the responses), not 100 x 2 by rows",
               fixed = TRUE)
  Y1 <- HDF5Array::writeHDF5Array(array(d$y), f, name = "y", chunkdim = 20L)
  expect_error(sparse_regression(d$X, Y1, radius = 1, method = "sfw"),
               "`y` can be read from disk only with `X` read from disk", fixed = TRUE)
})

# reader_moments() as it was written in R before its block step went to C
# (cg_moments_block(), cg_moments_y()): R's expressions per block
moments_in_r <- function(reader, gram = FALSE, sums = TRUE, cov = FALSE, y = NULL,
                         ycenter = 0) {
  n <- if (reader$by == "rows") reader$dim[1L] else reader$dim[2L]
  p <- if (reader$by == "rows") reader$dim[2L] else reader$dim[1L]
  s1 <- s2 <- numeric(p)
  shift <- NULL
  G <- if (gram) matrix(0, p, p)
  C <- if (cov) matrix(0, p, p)
  xty <- if (!is.null(y)) numeric(p)
  yy <- 0
  max_abs <- 0
  nnz <- 0
  for (k in seq_len(reader$n_blocks)) {
    B <- reader_block(reader, k)
    max_abs <- max(max_abs, abs(range(B)))
    nnz <- nnz + sum(B != 0)
    if (!sums) next
    if (reader$by == "cols") B <- t(B)
    if (is.null(shift)) shift <- colMeans(B)
    D <- B - rep(shift, each = nrow(B))
    s1 <- s1 + colSums(D)
    s2 <- s2 + colSums(D * D)
    if (gram) G <- G + crossprod(B)
    if (cov) C <- C + crossprod(D)
    if (!is.null(y)) {
      yk <- y(k)
      xty <- xty + drop(crossprod(B, yk - ycenter))
      for (e in yk - ycenter) yy <- yy + e * e   # in order, in double
    }
  }
  if (!sums) return(list(n = n, p = p, max_abs = max_abs, nnz = nnz))
  mean <- shift + s1 / n
  var <- pmax(s2 / n - (s1 / n)^2, 0)
  if (cov) {
    d <- s1 / n
    C <- (C - n * tcrossprod(d)) / (n - 1)
    C <- (C + t(C)) / 2
  }
  list(n = n, p = p, mean = mean, sd = sqrt(var), max_abs = max_abs, gram = G, cov = C,
       xty = xty, yy = if (!is.null(y)) yy)
}

test_that("the moments pass in C gives R's expressions bit for bit", {
  d <- regression_data(n = 437, p = 9, seed = 3)
  d$X[5:40, 4] <- 0                          # zeros to count
  d$X[, 7] <- d$X[, 7] * 1e6 - 3e7           # a large mean
  d$y <- d$y + 25
  for (bs in c(437L, 100L, 33L)) {
    r <- block_reader(d$X, block_size = bs)
    yb <- y_blocks(d$y, r)$block
    ybar <- mean(d$y)
    for (g in c(TRUE, FALSE)) for (cv in c(TRUE, FALSE)) {
      lab <- paste(bs, g, cv)
      expect_identical(reader_moments(r, "X", gram = g, cov = cv, y = yb, ycenter = ybar),
                       moments_in_r(r, gram = g, cov = cv, y = yb, ycenter = ybar), label = lab)
      expect_identical(reader_moments(r, "X", gram = g, cov = cv),
                       moments_in_r(r, gram = g, cov = cv), label = lab)
    }
    expect_identical(reader_moments(r, "X", sums = FALSE), moments_in_r(r, sums = FALSE))
    rc <- block_reader(t(d$X), block_size = bs, by = "cols")
    expect_identical(reader_moments(rc, "X", gram = TRUE, cov = TRUE),
                     moments_in_r(rc, gram = TRUE, cov = TRUE), label = paste("cols", bs))
    expect_identical(reader_moments(rc, "X", sums = FALSE), moments_in_r(rc, sums = FALSE))
  }
  # the numbers themselves: means, sds (divisor n), X'X, covariance, X'(y - ybar)
  mom <- reader_moments(block_reader(d$X, block_size = 50L), "X", gram = TRUE, cov = TRUE,
                        y = y_blocks(d$y, block_reader(d$X, block_size = 50L))$block,
                        ycenter = mean(d$y))
  expect_equal(mom$mean, colMeans(d$X), tolerance = 1e-14)
  expect_equal(mom$sd, sqrt(colMeans(sweep(d$X, 2, colMeans(d$X))^2)), tolerance = 1e-10)
  expect_equal(mom$gram, crossprod(d$X), tolerance = 1e-14)
  expect_equal(mom$cov, cov(d$X), tolerance = 1e-10)
  expect_equal(mom$xty, drop(crossprod(d$X, d$y - mean(d$y))), tolerance = 1e-10)
  expect_equal(mom$yy, sum((d$y - mean(d$y))^2), tolerance = 1e-13)
  expect_identical(mom$max_abs, max(abs(d$X)))
  expect_identical(reader_moments(block_reader(d$X, block_size = 50L), "X", sums = FALSE)$nnz,
                   as.double(sum(d$X != 0)))
  # a non-finite value: the error names the argument and the block
  X <- d$X
  X[250, 3] <- NaN
  expect_error(reader_moments(block_reader(X, block_size = 100L), "X"),
               "`X` contains NA, NaN or Inf (in block 3, rows 201 to 300)", fixed = TRUE)
  expect_error(reader_moments(block_reader(X, block_size = 100L), "X", sums = FALSE),
               "`X` contains NA, NaN or Inf (in block 3, rows 201 to 300)", fixed = TRUE)
})

test_that("an HDF5 data set as stored is read by h5mread(): the blocks of extract_array()", {
  skip_if_not_installed("HDF5Array")
  d <- regression_data(n = 230, p = 7, seed = 5)
  f <- tempfile(fileext = ".h5")
  H <- HDF5Array::writeHDF5Array(d$X, f, name = "x", chunkdim = c(20L, 7L))
  Y1 <- HDF5Array::writeHDF5Array(array(d$y), f, name = "y", chunkdim = 30L)
  Ht <- HDF5Array::writeHDF5Array(t(d$X), f, name = "xt", chunkdim = c(7L, 20L))
  Xi <- matrix(as.integer(round(d$X * 10)), nrow(d$X))     # stored as integers
  Hi <- HDF5Array::writeHDF5Array(Xi, f, name = "xi", chunkdim = c(20L, 7L))
  cases <- list(rows = block_reader(H, block_size = 45), cols = block_reader(Ht, 45, "cols"),
                y = y_blocks(Y1, block_reader(H, block_size = 45)),
                delayed = block_reader(H * 1, block_size = 45),
                integer = block_reader(Hi, block_size = 45))
  expect_false(is.null(cases$rows$h5))
  expect_false(is.null(cases$cols$h5))
  expect_null(cases$delayed$h5)                # a delayed operation: extract_array()
  for (k in 1:6) {
    idx <- ((k - 1) * 45 + 1):min(230, k * 45)
    expect_identical(reader_block(cases$rows, k), d$X[idx, , drop = FALSE])
    expect_identical(reader_block(cases$rows, k),
                     DelayedArray::extract_array(H, list(idx, NULL)))
    expect_identical(reader_block(cases$cols, k), t(d$X)[, idx, drop = FALSE])
    expect_identical(cases$y$block(k), matrix(d$y[idx]))
    expect_identical(reader_block(cases$delayed, k), d$X[idx, , drop = FALSE])
    expect_identical(reader_block(cases$integer, k), Xi[idx, , drop = FALSE] + 0)
  }
})
