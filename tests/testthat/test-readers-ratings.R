# Ratings triples read block by block (entry_reader(), complete_matrix()):
# a fit from an SQLite table or an HDF5 file equals the fit from the same
# entries as a data frame read by the same blocks, bit for bit.

ratings_data <- function(m = 50, n = 30, N = 1500, seed = 1) {
  set.seed(seed)
  truth <- tcrossprod(matrix(rnorm(m * 2), m), matrix(rnorm(n * 2), n))
  obs <- data.frame(row = sample(m, N, TRUE), col = sample(n, N, TRUE))
  obs$value <- truth[cbind(obs$row, obs$col)] + 0.5 * obs$row / m + rnorm(N, sd = 0.2)
  obs
}

sqlite_table <- function(obs, table = "ratings") {
  con <- DBI::dbConnect(RSQLite::SQLite(), tempfile(fileext = ".sqlite"))
  DBI::dbWriteTable(con, table, obs)
  con
}

fit_of <- function(Y, seed = 7, ...) {
  set.seed(seed)
  complete_matrix(Y, radius = 40, ..., control = cg_control(max_iter = 120, eval_every = 10))
}

test_that("one block of a data frame gives the in-memory fit bit for bit", {
  obs <- ratings_data()
  # the block sampler with one block draws the ordinary sampler's permutation
  a <- fit_of(obs, method = "sfw")
  b <- fit_of(entry_reader(obs, block_size = nrow(obs)), method = "sfw", dims = c(50, 30))
  expect_identical(as.matrix(b$solution$X), as.matrix(a$solution$X))
  # the reader numbers the cells in sorted order, the data frame path in
  # order of appearance: the full-data sums add in another order
  expect_equal(b$trace$objective, a$trace$objective, tolerance = 1e-13)
  # the objective is that of the returned X on all the entries (gaussian)
  pred <- predict(b, obs[c("row", "col")])
  expect_equal(b$objective, sum((obs$value - pred)^2) / (2 * nrow(obs)), tolerance = 1e-10)
  expect_gte(b$gap, 0)
})

test_that("the cells and dimensions found block by block are those of the entries", {
  obs <- ratings_data()
  obs <- obs[obs$row <= 47 & obs$col <= 28, ]       # dims from the data: 47 x 28
  obs$row[1] <- 47L; obs$col[2] <- 28L
  r <- entry_reader(obs, block_size = 173)
  a <- fit_of(r, method = "sfw", center = "both")
  expect_identical(a$reader$cells, nrow(unique(obs[c("row", "col")])))
  expect_identical(a$dims, c(47L, 28L))
  # the same fit with the dimensions given (the cells do not depend on how
  # they were found)
  b <- fit_of(r, method = "sfw", center = "both", dims = c(47, 28))
  expect_identical(b$solution, a$solution)
  expect_identical(b$trace$objective, a$trace$objective)
  # larger dims: empty rows and columns, the same cells
  d <- fit_of(r, method = "sfw", dims = c(60, 40))
  expect_identical(d$reader$cells, a$reader$cells)
  expect_identical(dim(as.matrix(d$solution$X)), c(60L, 40L))
})

test_that("entries that change between the passes give an error naming `Y`", {
  obs <- ratings_data(N = 400)
  r <- entry_reader(obs, block_size = 100)          # 4 blocks
  # a source whose blocks change after `after` reads (S3 `[` of a test class)
  changing <- function(after, column) {
    calls <- 0
    registerS3method("[", "stochcg_test_changing", function(x, i, j, drop) {
      calls <<- calls + 1
      out <- as.data.frame(unclass(x))[i, , drop = FALSE]
      if (calls > after) out[[column]] <- out[[column]] %% max(out[[column]]) + 1L
      out
    })
    r$source <- structure(obs, class = c("stochcg_test_changing", "data.frame"))
    r
  }
  # the second of the passes that find the cells
  expect_error(complete_matrix(changing(4, "col"), radius = 5, method = "sfw", dims = c(50, 30)),
               "`Y` gave other entries in its second pass than in its first")
  # the solver's pass for the per-cell totals
  expect_error(complete_matrix(changing(8, "row"), radius = 5, method = "sfw", dims = c(50, 30)),
               "returned an entry at block 1 of 4 that was not there in the first pass")
})

test_that("sfw and fw from SQLite and HDF5 equal the data frame read by the same blocks", {
  skip_if_not_installed("RSQLite")
  skip_if_not_installed("DBI")
  obs <- ratings_data()
  con <- sqlite_table(obs)
  on.exit(DBI::dbDisconnect(con))
  for (args in list(list(method = "sfw"), list(method = "sfw", center = "both"),
                    list(method = "fw", center = "both"),
                    list(method = "sfw", sampling = "replace", batch_size = 40))) {
    ref <- do.call(fit_of, c(list(entry_reader(obs, block_size = 200)), args))
    db <- do.call(fit_of, c(list(entry_reader(con, table = "ratings", block_size = 200)), args))
    expect_identical(db$solution, ref$solution)
    expect_identical(db$center, ref$center)
    expect_identical(db$trace$objective, ref$trace$objective)
    expect_identical(db$trace$gap, ref$trace$gap)
    expect_equal(db$reader$n_blocks, 8L)
  }
  # several blocks draw otherwise than one block (the in-memory order)
  expect_false(identical(ref$solution, fit_of(obs, method = "fw", center = "both")$solution))
  skip_if_not_installed("HDF5Array")
  f <- tempfile(fileext = ".h5")
  HDF5Array::writeHDF5Array(as.matrix(obs), f, "ratings", chunkdim = c(100L, 3L))
  rh <- entry_reader(f, name = "ratings")
  expect_equal(rh$block_size, 1500L)                # whole chunks, at most N
  for (r in list(entry_reader(f, name = "ratings", block_size = 200),
                 entry_reader(HDF5Array::HDF5Array(f, "ratings"), block_size = 200))) {
    h5 <- fit_of(r, method = "sfw", center = "both")
    ref <- fit_of(entry_reader(obs, block_size = 200), method = "sfw", center = "both")
    expect_identical(h5$solution, ref$solution)
    expect_identical(h5$trace$objective, ref$trace$objective)
  }
  # three 1-d data sets
  g <- tempfile(fileext = ".h5")
  for (v in names(obs)) HDF5Array::writeHDF5Array(array(obs[[v]]), g, v, chunkdim = 100L)
  h3 <- fit_of(entry_reader(g, name = c("row", "col", "value"), block_size = 200),
               method = "sfw")
  expect_identical(h3$solution, fit_of(entry_reader(obs, block_size = 200),
                                       method = "sfw")$solution)
})

test_that("bad entries give an R error naming the argument", {
  skip_if_not_installed("RSQLite")
  skip_if_not_installed("DBI")
  obs <- ratings_data(N = 300)
  con <- sqlite_table(obs)
  on.exit(DBI::dbDisconnect(con))
  DBI::dbWriteTable(con, "nocol", obs[c("row", "value")])
  expect_error(entry_reader(con, table = "nocol"), "`table` `nocol` has no column `col`")
  expect_error(entry_reader(con, table = "absent"), "`table` `absent` is not a table")
  expect_error(entry_reader(con), "`table` must be the name")
  bad <- obs; bad$value[123] <- NA
  DBI::dbWriteTable(con, "na", bad)
  expect_error(complete_matrix(entry_reader(con, table = "na", block_size = 100), radius = 5,
                               method = "sfw"),
               "`Y` column `value` contains NA, NaN or Inf \\(block 2, entries 101 to 200\\)")
  bad <- obs; bad$row <- bad$row + 0.5
  DBI::dbWriteTable(con, "frac", bad)
  expect_error(complete_matrix(entry_reader(con, table = "frac"), radius = 5, method = "sfw"),
               "`Y` column `row` must hold positive whole numbers")
  bad <- obs; bad$col[7] <- NA
  expect_error(complete_matrix(entry_reader(bad), radius = 5, method = "sfw"),
               "`Y` column `col` contains NA")
  bad <- obs; bad$col <- as.character(bad$col)
  expect_error(complete_matrix(entry_reader(bad), radius = 5, method = "sfw"),
               "`Y` column `col` must hold whole numbers, not character")
  DBI::dbExecute(con, "DELETE FROM ratings WHERE rowid = 5")
  expect_error(entry_reader(con, table = "ratings"), "`table` `ratings` must have rowids 1, 2")
  expect_error(entry_reader(obs[1:2]), "`x` has no column `value`")
  r <- entry_reader(obs)
  expect_error(complete_matrix(r, radius = 5, method = "spg"), "`method` must be \"sfw\" or")
  expect_error(complete_matrix(r, radius = c(1, 5), method = "sfw"), "`radius` must be a single")
  expect_error(complete_matrix(r, radius = 5, method = "sfw", dims = c(10, 10)),
               "`dims` is smaller than the largest")
  expect_error(complete_matrix(r, radius = 5, method = "sfw", family = "binomial"),
               "`Y` must hold 0/1 values")
  expect_error(complete_matrix(block_reader(matrix(1, 3, 3)), radius = 5),
               "`Y` is a reader by rows; complete_matrix\\(\\) reads entries")
  expect_error(entry_reader(obs, block_size = 0), "`block_size`")
})
