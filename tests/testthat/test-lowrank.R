# Factored low-rank matrices: compression to thin SVD, entries, products,
# constructor checks. Dense computations are the reference.

random_atoms <- function(m, n, K, seed = 1) {
  set.seed(seed)
  u <- matrix(rnorm(m * K), m, K)
  u <- sweep(u, 2, sqrt(colSums(u^2)), "/")   # unit columns, as solvers give
  v <- matrix(rnorm(n * K), n, K)
  v <- sweep(v, 2, sqrt(colSums(v^2)), "/")
  list(u = u, w = runif(K, 0.1, 2), v = v)
}

test_that("lowrank_compress reproduces a sum of non-orthogonal atoms", {
  a <- random_atoms(12, 8, 5)
  dense <- a$u %*% (a$w * t(a$v))
  x <- lowrank_compress(a$u, a$w, a$v)
  expect_true(inherits(x, "lowrank"))
  expect_equal(as.matrix(x), dense, tolerance = 1e-10)
  expect_equal(x$d, svd(dense)$d[1:5], tolerance = 1e-10)
  # thin-SVD form: orthonormal factors, decreasing positive d
  expect_equal(crossprod(x$u), diag(5), tolerance = 1e-10)
  expect_equal(crossprod(x$v), diag(5), tolerance = 1e-10)
  expect_false(is.unsorted(rev(x$d)))
})

test_that("lowrank_compress drops repeated atoms and finds the true rank", {
  a <- random_atoms(10, 9, 3, seed = 2)
  # FW iterates revisit atoms: repeat each atom with split weights, and add
  # an atom that is a linear combination inside the same row/col spaces
  u <- cbind(a$u, a$u, a$u[, 1])
  v <- cbind(a$v, a$v, a$v[, 1])
  w <- c(a$w / 2, a$w / 2, 0.3)
  dense <- u %*% (w * t(v))
  x <- lowrank_compress(u, w, v)
  expect_length(x$d, 3L)
  expect_equal(dim(x$u), c(10L, 3L))
  expect_equal(as.matrix(x), dense, tolerance = 1e-10)
  expect_equal(x$d, svd(dense)$d[1:3], tolerance = 1e-10)
})

test_that("lowrank_compress handles more atoms than rows and zero weights", {
  a <- random_atoms(4, 6, 10, seed = 3)
  dense <- a$u %*% (a$w * t(a$v))
  x <- lowrank_compress(a$u, a$w, a$v)
  expect_length(x$d, 4L)
  expect_equal(as.matrix(x), dense, tolerance = 1e-10)
  expect_equal(x$d, svd(dense)$d, tolerance = 1e-10)

  z <- lowrank_compress(a$u, rep(0, 10), a$v)
  expect_length(z$d, 0L)
  expect_equal(dim(z), c(4L, 6L))
  expect_equal(as.matrix(z), matrix(0, 4, 6))

  e <- lowrank_compress(matrix(0, 4, 0), numeric(0), matrix(0, 6, 0))
  expect_equal(dim(e), c(4L, 6L))
  expect_equal(predict(e, 1:2, 2:3), c(0, 0))
})

test_that("negative weights are absorbed into the singular vectors", {
  a <- random_atoms(7, 5, 2, seed = 4)
  w <- c(2, -1)
  dense <- a$u %*% (w * t(a$v))
  x <- lowrank_compress(a$u, w, a$v)
  expect_true(all(x$d > 0))
  expect_equal(as.matrix(x), dense, tolerance = 1e-10)
})

test_that("lowrank objects carry the S4 bit that %*% dispatch needs", {
  # R < 4.4 dispatches %*% only on S4 objects; losing the bit (e.g. by
  # building the list by hand) would silently break products.
  x <- lowrank(1:3, 2, 1:4)
  expect_true(isS4(x))
  expect_true(isS4(t(x)))
  expect_true(isS4(lowrank_compress(1:3, 2, 1:4)))
  x$d <- 3
  expect_true(isS4(x))
  expect_equal(x %*% diag(4), 3 * outer(1:3, 1:4))
})

test_that("dim, as.matrix and t agree with the dense matrix", {
  a <- random_atoms(6, 4, 3, seed = 5)
  x <- lowrank(a$u, a$w, a$v)
  dense <- a$u %*% diag(a$w) %*% t(a$v)
  expect_equal(dim(x), c(6L, 4L))
  expect_equal(nrow(x), 6L)
  expect_equal(ncol(x), 4L)
  expect_equal(as.matrix(x), dense, tolerance = 1e-12)
  expect_true(inherits(t(x), "lowrank"))
  expect_equal(as.matrix(t(x)), t(dense), tolerance = 1e-12)
})

test_that("predict at pairs equals the dense entries", {
  a <- random_atoms(9, 7, 4, seed = 6)
  x <- lowrank_compress(a$u, a$w, a$v)
  dense <- as.matrix(x)
  set.seed(7)
  i <- sample(9, 30, replace = TRUE)
  j <- sample(7, 30, replace = TRUE)
  expect_equal(predict(x, i, j), dense[cbind(i, j)], tolerance = 1e-12)
  expect_equal(predict(x, cbind(i, j)), dense[cbind(i, j)], tolerance = 1e-12)
  expect_equal(predict(x, data.frame(col = j, row = i)), dense[cbind(i, j)],
               tolerance = 1e-12)
  expect_equal(predict(x, data.frame(i, j)), dense[cbind(i, j)],
               tolerance = 1e-12)
  expect_identical(predict(x, integer(0), integer(0)), numeric(0))
})

test_that("predict checks its indices", {
  x <- lowrank(diag(3)[, 1:2], c(2, 1), diag(4)[, 1:2])
  expect_error(predict(x, 4, 1), "`i`: row indices must lie in 1\\.\\.3")
  expect_error(predict(x, 1, 5), "`j`: column indices must lie in 1\\.\\.4")
  expect_error(predict(x, 0, 1), "`i`.*1\\.\\.3")
  expect_error(predict(x, 1.5, 1), "`i`: row indices must be whole")
  expect_error(predict(x, NA_real_, 1), "`i`: row indices must not be NA")
  expect_error(predict(x, 1:2, 1), "same length")
  expect_error(predict(x, cbind(1, 1, 1)), "two-column")
  expect_error(predict(x, cbind(1, 9)), "`i`: column indices must lie in")
})

test_that("%*% equals the dense product on both sides", {
  a <- random_atoms(8, 6, 3, seed = 8)
  x <- lowrank(a$u, a$w, a$v)
  dense <- as.matrix(x)
  set.seed(9)
  y <- matrix(rnorm(6 * 2), 6, 2)
  z <- matrix(rnorm(3 * 8), 3, 8)
  expect_equal(x %*% y, dense %*% y, tolerance = 1e-12)
  expect_equal(z %*% x, z %*% dense, tolerance = 1e-12)
  expect_equal(x %*% y[, 1], dense %*% y[, 1], tolerance = 1e-12)
  expect_equal(z[1, ] %*% x, z[1, ] %*% dense, tolerance = 1e-12)
  # Matrix operands give base dense matrices
  ys <- Matrix::Matrix(y, sparse = TRUE)
  expect_true(is.matrix(x %*% ys))
  expect_equal(x %*% ys, dense %*% y, tolerance = 1e-12)
  # lowrank times lowrank stays factored
  p <- x %*% t(x)
  expect_true(inherits(p, "lowrank"))
  expect_equal(as.matrix(p), dense %*% t(dense), tolerance = 1e-10)
  expect_error(x %*% matrix(1, 5, 1), "non-conformable")
  expect_error(matrix(1, 1, 5) %*% x, "non-conformable")
})

test_that("lowrank() checks its arguments", {
  u <- matrix(1, 3, 2)
  v <- matrix(1, 4, 2)
  expect_error(lowrank(u, 1, v), "`u` has 2 columns but `d` has length 1")
  expect_error(lowrank(u, c(1, 2), v[, 1]),
               "`v` has 1 columns but `d` has length 2")
  expect_error(lowrank(replace(u, 1, NA), c(1, 2), v), "`u` must contain only finite")
  expect_error(lowrank(u, c(1, Inf), v), "`d` must contain only finite")
  expect_error(lowrank(u, c(1, 2), replace(v, 2, NaN)), "`v` must contain only finite")
  expect_error(lowrank(u, "a", v), "`d` must be a numeric vector")
  expect_error(lowrank(letters, 1, 1), "`u` must be a numeric matrix")
  expect_error(lowrank(u, c(1, 2), data.frame(v)), "`v` must be a numeric matrix")
  x <- lowrank(1:3, 2, 1:4)          # vectors are single columns
  expect_equal(as.matrix(x), 2 * outer(1:3, 1:4))
})

test_that("print shows dimensions, rank and singular values", {
  x <- lowrank(diag(4)[, 1:2], c(3, 0.5), diag(5)[, 1:2])
  expect_output(print(x), "4 x 5, rank 2")
  expect_output(print(x), "Singular values: 3 0\\.5")
  # auto-printing goes through show() for S4-bit objects
  expect_output(show(x), "lowrank matrix")
  # non-orthogonal factors: printed values are the true singular values
  y <- lowrank(cbind(c(1, 0), c(1, 0)), c(1, 1), cbind(c(1, 0), c(1, 0)))
  expect_output(print(y), "rank 1>\\s+Singular values: 2")
  expect_output(expect_invisible(print(x)))
})

test_that("nuclear_norm is the sum of singular values", {
  a <- random_atoms(6, 5, 4, seed = 10)
  dense <- a$u %*% (a$w * t(a$v))
  expect_equal(nuclear_norm(lowrank_compress(a$u, a$w, a$v)),
               sum(svd(dense)$d), tolerance = 1e-10)
  expect_equal(nuclear_norm(lowrank(a$u, a$w, a$v)), sum(svd(dense)$d),
               tolerance = 1e-10)
})
