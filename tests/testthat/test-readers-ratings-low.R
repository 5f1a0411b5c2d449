# complete_matrix(entry_reader(...), method = "sfw", memory = "low"): the
# drawn statistics recomputed from the file each iteration (12 bytes per
# cell instead of about 100). Same draws as the default mode; the iterate's
# value at a cell is recomputed from the atoms instead of updated step by
# step and the sums run in block order instead of the order of first draw,
# so the fits agree up to rounding (measured: 1e-14 relative on these runs).
# The rank control's discrete decisions (Armijo acceptance, its 1e-12
# relative progress stop) can flip on rounding and then move the iterate by
# about 1e-7 relative and the objective by about 1e-8 (measured on a run
# past one epoch): the tolerances below, 1e-8 on the objective and 1e-6 on
# X relative to its largest entry, admit that and nothing larger (a wrong
# gradient or a missed block moves them by 1e-3 or more).

low_data <- function(m = 50, n = 30, N = 1500, seed = 1) {
  set.seed(seed)
  truth <- tcrossprod(matrix(rnorm(m * 2), m), matrix(rnorm(n * 2), n))
  obs <- data.frame(row = sample(m, N, TRUE), col = sample(n, N, TRUE))
  obs$value <- truth[cbind(obs$row, obs$col)] + 0.5 * obs$row / m + rnorm(N, sd = 0.2)
  obs
}

low_fit <- function(Y, memory, seed = 7, iters = 100, ...) {
  set.seed(seed)
  complete_matrix(Y, radius = 40, method = "sfw", memory = memory, ...,
                  control = cg_control(max_iter = iters, eval_every = 10))
}

expect_close_fits <- function(low, ref) {
  expect_identical(low$iterations, ref$iterations)
  expect_identical(low$rank, ref$rank)
  expect_identical(low$trace$iter, ref$trace$iter)
  expect_equal(low$trace$objective, ref$trace$objective, tolerance = 1e-8)
  expect_equal(low$trace$gap, ref$trace$gap, tolerance = 1e-6)
  Xl <- as.matrix(low$solution$X); Xr <- as.matrix(ref$solution$X)
  expect_lte(max(abs(Xl - Xr)), 1e-6 * max(abs(Xr)))
}

test_that("memory = \"low\" gives the default mode's fit up to rounding", {
  obs <- low_data()
  r <- entry_reader(obs, block_size = 200)
  for (args in list(list(), list(step = "line_search"), list(sampling = "stream"),
                    list(batch_size = 37))) {
    ref <- do.call(low_fit, c(list(r, "fast"), args))
    low <- do.call(low_fit, c(list(r, "low"), args))
    expect_close_fits(low, ref)
    expect_identical(low$reader$memory, "low")
    expect_identical(low$reader$cells, ref$reader$cells)
  }
  # other families (the gradient A'(theta) - y summed per entry)
  bits <- transform(obs, value = as.numeric(value > 0))
  rb <- entry_reader(bits, block_size = 200)
  expect_close_fits(low_fit(rb, "low", family = "binomial"),
                    low_fit(rb, "fast", family = "binomial"))
  set.seed(3)
  counts <- transform(obs, value = rpois(nrow(obs), exp(pmin(value, 3) / 2)))
  rp <- entry_reader(counts, block_size = 200)
  expect_close_fits(low_fit(rp, "low", family = "poisson"),
                    low_fit(rp, "fast", family = "poisson"))
})

test_that("memory = \"low\" certifies the stated problem on all the entries", {
  obs <- low_data(N = 1200)
  m <- 50; n <- 30
  fit <- low_fit(entry_reader(obs, block_size = 150), "low", iters = 60)
  X <- as.matrix(fit$solution$X)
  res <- X[cbind(obs$row, obs$col)] - obs$value
  # the objective: that of the returned X on all N entries
  expect_equal(fit$objective, sum(res^2) / (2 * nrow(obs)), tolerance = 1e-12)
  # the gap: <G, X> + radius * sigma_1(G), G the full gradient (dense here)
  G <- matrix(0, m, n)
  for (k in seq_len(nrow(obs))) G[obs$row[k], obs$col[k]] <- G[obs$row[k], obs$col[k]] + res[k]
  G <- G / nrow(obs)
  expect_equal(fit$gap, sum(G * X) + 40 * svd(G, 0, 0)$d[1], tolerance = 1e-8)
  expect_gt(fit$gap, 0)
})

test_that("memory = \"low\" from an HDF5 file equals the data frame bit for bit", {
  skip_if_not_installed("HDF5Array")
  obs <- low_data()
  g <- tempfile(fileext = ".h5")
  for (v in names(obs)) HDF5Array::writeHDF5Array(array(obs[[v]]), g, v, chunkdim = 100L)
  h5 <- low_fit(entry_reader(g, name = c("row", "col", "value"), block_size = 200), "low")
  df <- low_fit(entry_reader(obs, block_size = 200), "low")
  expect_identical(h5$solution, df$solution)
  expect_identical(h5$trace$objective, df$trace$objective)
  expect_identical(h5$trace$gap, df$trace$gap)
})

test_that("unsupported settings of memory = \"low\" give an error naming the argument", {
  obs <- low_data(N = 300)
  r <- entry_reader(obs, block_size = 100)
  expect_error(complete_matrix(r, radius = 5, method = "sfw", center = "both", memory = "low"),
               "`center` must be \"none\" with memory = \"low\"")
  expect_error(complete_matrix(r, radius = 5, method = "sfw", center = "mean", memory = "low"),
               "`center` must be \"none\" with memory = \"low\"")
  expect_error(complete_matrix(r, radius = 5, method = "fw", memory = "low"),
               "`method` must be \"sfw\" with memory = \"low\"")
  expect_error(complete_matrix(r, radius = 5, method = "sfw", sampling = "replace",
                               memory = "low"),
               "`sampling` must be \"shuffle\" or \"stream\" with memory = \"low\"")
  expect_error(complete_matrix(obs, radius = 5, method = "sfw", memory = "low"),
               "`memory` = \"low\" is for `Y` a reader of entries")
  expect_error(complete_matrix(obs, radius = c(1, 5), method = "sfw", memory = "low"),
               "`memory` = \"low\" is for `Y` a reader of entries")
  expect_error(complete_matrix(r, radius = 5, method = "sfw", memory = "tiny"),
               "`memory` must be one of \"fast\", \"low\"")
})
