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

# ---- hand-built and modified objects: every method checks the shapes first

# valid 3 x 4 rank-2 object, then one broken copy per way of breaking it
good_lowrank <- function() lowrank(matrix(1:6, 3), c(2, 1), matrix(1:8, 4))
bad_lowranks <- function() {
  x <- good_lowrank()
  list(
    d_longer = list(replace(x, "d", list(c(2, 1, 5))),       # issue 8: read past u
                    "`u` has 2 columns but `d` has length 3"),
    d_shorter = list(replace(x, "d", list(2)), "`u` has 2 columns but `d` has length 1"),
    v_columns = list(replace(x, "v", list(matrix(1, 4, 3))),
                     "`v` has 3 columns but `d` has length 2"),
    u_vector = list(replace(x, "u", list(1:6)), "`u` must be a numeric matrix"),
    v_missing = list(replace(x, "v", list(NULL)), "`v` must be a numeric matrix"),
    u_text = list(replace(x, "u", list(matrix("a", 3, 2))), "`u` must be a numeric matrix"),
    d_matrix = list(replace(x, "d", list(matrix(1, 1, 2))), "`d` must be a numeric vector"),
    u_na = list(replace(x, "u", list(replace(x$u, 2, NA))),
                "`u` must contain only finite values"),
    d_inf = list(replace(x, "d", list(c(2, Inf))), "`d` must contain only finite values"),
    v_nan = list(replace(x, "v", list(replace(x$v, 5, NaN))),
                 "`v` must contain only finite values"),
    not_list = list(structure(1:3, class = "lowrank"), "must be a lowrank object"))
}

test_that("replace() keeps the lowrank object a lowrank object (test premise)", {
  x <- replace(good_lowrank(), "d", list(c(2, 1, 5)))
  expect_true(inherits(x, "lowrank") && isS4(x))
})

test_that("every lowrank method rejects a broken object, naming the argument", {
  prefix <- function(arg) paste0("`", arg, "` is not a valid lowrank object: ")
  for (case in names(bad_lowranks())) {
    b <- bad_lowranks()[[case]]
    x <- b[[1]]; msg <- b[[2]]
    re <- function(arg) paste0(prefix(arg), ".*", msg)
    expect_error(predict(x, 1, 1), re("object"), info = case)
    expect_error(predict(x, cbind(1:3, 1:3)), re("object"), info = case)
    expect_error(as.matrix(x), re("x"), info = case)
    expect_error(t(x), re("x"), info = case)
    expect_error(dim(x), re("x"), info = case)
    expect_error(print(x), re("x"), info = case)
    if (isS4(x)) {                       # %*% reaches the methods only then
      expect_error(x %*% diag(4), re("x"), info = case)
      expect_error(diag(3) %*% x, re("y"), info = case)
      expect_error(x %*% t(good_lowrank()), re("x"), info = case)
      expect_error(t(good_lowrank()) %*% x, re("y"), info = case)
    }
  }
})

test_that("predict reads only inside the factors, whatever the object says", {
  x <- good_lowrank()
  # the C entry checks shapes and indices itself, without R's checks
  entries <- function(u, d, v, i, j) .Call(C_cg_lowrank_entries, u, d, v, i, j)
  expect_equal(entries(x$u, x$d, x$v, 3L, 4L), as.matrix(x)[3, 4])
  expect_error(entries(x$u, c(2, 1, 5), x$v, 1L, 1L), "`d` must be a double vector of length")
  expect_error(entries(x$u, x$d, matrix(1, 4, 3), 1L, 1L), "`d` must be a double vector")
  expect_error(entries(as.vector(x$u), x$d, x$v, 1L, 1L), "`u` and `v` must be double matrices")
  expect_error(entries(x$u, x$d, x$v, 4L, 1L), "index pair 1 out of range 1..3 x 1..4")
  expect_error(entries(x$u, x$d, x$v, c(1L, 1L), c(1L, 5L)), "index pair 2 out of range")
  expect_error(entries(x$u, x$d, x$v, NA_integer_, 1L), "index pair 1 out of range")
  expect_error(entries(x$u, x$d, x$v, 1L, 1:2), "same length")
  expect_error(entries(x$u, x$d, x$v, 1, 1), "integer vectors")
  # integer factors (a hand-modified object) are read correctly
  y <- replace(x, "u", list(matrix(1:6, 3)))
  expect_equal(predict(y, 2, 3), as.matrix(x)[2, 3])
})

test_that("fit methods check a solution the user modified", {
  set.seed(12)
  obs <- data.frame(row = rep(1:6, 5), col = rep(1:5, each = 6), value = rnorm(30))
  fit <- complete_matrix(obs, radius = 2, method = "fw", control = cg_control(max_iter = 3))
  bad <- fit
  bad$solution$X$d <- c(bad$solution$X$d, 1)
  expect_error(predict(bad, data.frame(row = 1, col = 1)),
               "`object\\$solution\\$X` is not a valid lowrank object: `u` has")
  expect_error(print(bad), "`solution\\$X` is not a valid lowrank object")
  expect_error(summary(bad), "`solution\\$X` is not a valid lowrank object")
  # a smaller X than the fit's dims: indices valid for dims would read past X
  small <- fit
  small$solution$X <- lowrank(fit$solution$X$u[1:3, , drop = FALSE], fit$solution$X$d,
                              fit$solution$X$v)
  expect_error(predict(small, data.frame(row = 6, col = 1)),
               "`object` has dims 6 x 5 but its solution `X` is 3 x 5")

  M <- tcrossprod(1:8, 8:1) + diag(8)
  rfit <- robust_pca(M, radius = 50, radius_sparse = 5, control = cg_control(max_iter = 3))
  rbad <- rfit
  rbad$solution$X$d <- c(rbad$solution$X$d, 1, 1)
  expect_error(fitted(rbad), "`object\\$solution\\$X` is not a valid lowrank object")
  expect_error(plot(rbad, type = "images"), "`x\\$solution\\$X` is not a valid lowrank object")
  rbad <- rfit
  rbad$solution$Y <- rbad$solution$Y[1:4, ]
  expect_error(fitted(rbad), "`object\\$solution\\$Y` must be a matrix of the dimensions of `X` \\(8 x 8\\)")
  expect_error(plot(rbad, type = "images"), "`x\\$solution\\$Y` must be a matrix")
})
