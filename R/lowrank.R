# Factored low-rank matrices X = u diag(d) t(v).
#
# Solvers keep matrix iterates as atoms (u: m x K with unit columns, weights
# w, v: n x K) so that no m x n matrix is ever formed. `lowrank_compress()`
# turns such atoms into the canonical thin-SVD form that fits return; the
# methods below evaluate, multiply and print that form without densifying it.
#
# S4 note: in R < 4.4 `%*%` is a primitive that dispatches only on S4 objects,
# so a plain S3 list never reaches a method. Every `lowrank` object therefore
# carries the S4 bit (`asS4()`) on top of its S3 class registered with
# `setOldClass()`; S3 dispatch (print, dim, predict, ...) is unaffected, and
# `inherits(x, "lowrank")` holds, but testthat's expect_s3_class() rejects
# S4-bit objects (test with inherits() or expect_s4_class()). Always build
# objects through `lowrank()` or `new_lowrank()` so the bit is set.

#' @importFrom methods setOldClass setMethod signature show
NULL

setOldClass("lowrank")

#' Factored low-rank matrices
#'
#' A `lowrank` object stores an \eqn{m \times n}{m x n} matrix in factored
#' form \eqn{X = U \mathrm{diag}(d) V^\top}{X = u diag(d) t(v)} without ever
#' forming it. Matrix iterates of every solver in this package are returned
#' this way, in thin-SVD form (`u` and `v` with orthonormal columns, `d`
#' positive and decreasing). Entries, products and the dense matrix are
#' available through [predict.lowrank()], `%*%` and [as.matrix()].
#'
#' `lowrank()` only checks and stores its arguments; it does not
#' orthogonalize them, so `d` are singular values only when `u` and `v` have
#' orthonormal columns. Methods that report singular values (`print()`)
#' compute them from the factors when they are not. Factors whose product
#' could overflow double precision (when
#' \eqn{\sum_k |d_k| \|u_k\| \|v_k\|}{sum_k |d[k]| ||u[, k]|| ||v[, k]||},
#' a bound on every entry and on the norm of \eqn{X}, is not finite) are
#' rejected by `lowrank()` and by every method, rather than giving infinite
#' entries or failing inside an SVD.
#'
#' Products with a `lowrank` object are computed in factored form, e.g.
#' `x %*% y` as `u %*% (d * (t(v) %*% y))`, in
#' \eqn{O((m + n) r k)}{O((m + n) r k)} operations for a \eqn{k}-column `y`,
#' and return a dense matrix. The product of two `lowrank` objects is again a
#' `lowrank` object (in thin-SVD form).
#'
#' @param u Numeric matrix, \eqn{m \times r}{m x r} (a vector is taken as one
#'   column).
#' @param d Numeric vector of length \eqn{r}, the weights of the rank-one
#'   terms.
#' @param v Numeric matrix, \eqn{n \times r}{n x r} (a vector is taken as one
#'   column).
#' @param x,object A `lowrank` object (for `%*%`, either operand may be one).
#' @param y A matrix, vector, `Matrix` object or `lowrank` object.
#' @param digits Number of significant digits to print, a whole number from
#'   1 to 22.
#' @param ... Unused.
#'
#' @returns `lowrank()` returns an object of class `lowrank`: a list with
#'   elements `u`, `d` and `v` as given (stored as double). `dim()` returns
#'   `c(m, n)`; `as.matrix()` the dense \eqn{m \times n}{m x n} matrix; `t()`
#'   the transpose as a `lowrank` object; `print()` returns `x` invisibly.
#'
#' @seealso [predict.lowrank()] for entries at (row, column) pairs.
#' @examples
#' set.seed(1)
#' u <- qr.Q(qr(matrix(rnorm(20), 10, 2)))
#' v <- qr.Q(qr(matrix(rnorm(16), 8, 2)))
#' X <- lowrank(u, c(3, 1), v)
#' X
#' dim(X)
#' all.equal(as.matrix(X), u %*% diag(c(3, 1)) %*% t(v))
#' X %*% rep(1, 8)          # dense 10 x 1 result, computed in factored form
#' dim(t(X))
#' @export
lowrank <- function(u, d, v) {
  u <- as_factor_matrix(u, "u")
  v <- as_factor_matrix(v, "v")
  if (!is.numeric(d)) {
    stop("`d` must be a numeric vector.", call. = FALSE)
  }
  x <- new_lowrank(u, as.double(d), v)
  check_lowrank(x)
  x
}

# The one validator of lowrank objects, used by lowrank() and by every
# method before it reads the factors: a lowrank object is a plain list that
# users can build or modify by hand, and factors of the wrong shape would
# make products fail obscurely or predict() read out of bounds. Checks u
# (m x k) and v (n x k) numeric matrices, d a numeric vector of length k, all
# finite, without allocating anything of their size. `arg` names the
# argument in the message (NULL: the message is about u, d, v themselves).
check_lowrank <- function(x, arg = NULL) {
  fail <- function(...) {
    if (is.null(arg)) stop(..., call. = FALSE)
    stop_arg(arg, "is not a valid lowrank object: ", ...)
  }
  if (!is.list(x) || !inherits(x, "lowrank"))
    fail("it must be a lowrank object made by lowrank().")
  u <- x[["u"]]; d <- x[["d"]]; v <- x[["v"]]
  for (f in c("u", "v")) {
    if (!is.matrix(x[[f]]) || !is.numeric(x[[f]]))
      fail(sprintf("`%s` must be a numeric matrix.", f))
  }
  if (!is.numeric(d) || !is.null(dim(d))) fail("`d` must be a numeric vector.")
  for (f in c("u", "d", "v")) {
    if (!all_finite(x[[f]]))
      fail(sprintf("`%s` must contain only finite values (no NA, NaN or Inf).", f))
  }
  for (f in c("u", "v")) {
    if (ncol(x[[f]]) != length(d))
      fail(sprintf("`%s` has %d columns but `d` has length %d; they must match.",
                   f, ncol(x[[f]]), length(d)))
  }
  # bounds every entry of u diag(d) t(v) and its Frobenius norm, hence every
  # sum the methods form (products, the SVD core in print())
  if (!is.finite(sum(abs(d) * column_norms(u) * column_norms(v))))
    fail("`d` is too large in scale: the product u diag(d) t(v) overflows ",
         "double precision; rescale the factors.")
  invisible(x)
}

# Euclidean norms of the columns of a finite matrix, scaled so that squaring
# large entries does not overflow.
column_norms <- function(a) {
  vapply(seq_len(ncol(a)), function(k) {
    s <- if (nrow(a) > 0L) max(abs(a[, k])) else 0
    if (s == 0) 0 else s * sqrt(sum((a[, k] / s)^2))
  }, 0)
}

# Unchecked constructor for internal use (solvers, compression, products).
# Sets the S4 bit so that the `%*%` methods are reached (see the note above).
new_lowrank <- function(u, d, v) {
  asS4(structure(list(u = u, d = d, v = v), class = "lowrank"))
}

# Coerce a factor argument to a double matrix; a vector becomes one column.
as_factor_matrix <- function(x, arg) {
  if (inherits(x, "Matrix")) x <- as.matrix(x)
  if (is.data.frame(x) || !(is.numeric(x) || is.logical(x))) {
    stop(sprintf("`%s` must be a numeric matrix.", arg), call. = FALSE)
  }
  if (is.null(dim(x))) x <- matrix(x, ncol = 1L)
  if (length(dim(x)) != 2L) {
    stop(sprintf("`%s` must be a numeric matrix (two dimensions).", arg),
         call. = FALSE)
  }
  storage.mode(x) <- "double"
  dimnames(x) <- NULL
  x
}

#' Compress a factored sum of atoms into thin-SVD form
#'
#' Given \eqn{X = \sum_k d_k u_k v_k^\top}{X = sum_k d[k] u[, k] v[, k]'} with
#' arbitrary (non-orthogonal, possibly repeated) atoms, returns the thin SVD
#' of \eqn{X}: QR-factorize \eqn{u = Q_u R_u}{u = Qu Ru} and
#' \eqn{v = Q_v R_v}{v = Qv Rv}, take the SVD of the small core
#' \eqn{R_u \mathrm{diag}(d) R_v^\top}{Ru diag(d) Rv'} and map its singular
#' vectors back. Cost \eqn{O((m + n) K^2 + K^3)}{O((m + n) K^2 + K^3)}; the
#' \eqn{m \times n}{m x n} matrix is never formed.
#'
#' @param u,d,v Factors as in [lowrank()], with \eqn{K} columns / entries.
#' @param tol Relative threshold: singular values `<= tol * max(d)` are
#'   dropped (numerically zero directions, e.g. repeated atoms).
#' @returns A `lowrank` object whose `u`, `v` have orthonormal columns and
#'   whose `d` is positive and decreasing (rank 0 if all weights vanish).
#' @keywords internal
#' @noRd
lowrank_compress <- function(u, d, v, tol = 1e-12) {
  u <- as_factor_matrix(u, "u")
  v <- as_factor_matrix(v, "v")
  d <- as.double(d)
  m <- nrow(u)
  n <- nrow(v)
  if (length(d) == 0L || m == 0L || n == 0L) {
    return(new_lowrank(matrix(0, m, 0L), numeric(0), matrix(0, n, 0L)))
  }
  qu <- qr(u)
  qv <- qr(v)
  # qr() pivots columns (u[, pivot] = Q R), so undo the pivot on R's columns
  # to get u = Q R[, order(pivot)] with columns matching d.
  ru <- qr.R(qu)[, order(qu$pivot), drop = FALSE]
  rv <- qr.R(qv)[, order(qv$pivot), drop = FALSE]
  core <- ru %*% (d * t(rv))
  s <- svd(core)
  keep <- if (length(s$d) > 0L && max(s$d) > 0) {
    s$d > tol * max(s$d)
  } else {
    logical(length(s$d))
  }
  new_lowrank(qr.Q(qu) %*% s$u[, keep, drop = FALSE],
              s$d[keep],
              qr.Q(qv) %*% s$v[, keep, drop = FALSE])
}

# TRUE when x is already in thin-SVD form (orthonormal factors, d >= 0
# decreasing), so that d are its singular values.
lowrank_is_svd <- function(x, tol = 1e-8) {
  r <- length(x$d)
  if (r == 0L) return(TRUE)
  eye <- diag(r)
  all(x$d >= 0) && !is.unsorted(rev(x$d)) &&
    max(abs(crossprod(x$u) - eye)) <= tol &&
    max(abs(crossprod(x$v) - eye)) <= tol
}

# Singular values of a lowrank object, without forming the matrix.
lowrank_singular_values <- function(x) {
  if (lowrank_is_svd(x)) return(x$d)
  lowrank_compress(x$u, x$d, x$v)$d
}

# Nuclear norm (internal generic so other parts can add methods, e.g. for
# sparse matrices). For the compressed form it is sum(d).
nuclear_norm <- function(x, ...) UseMethod("nuclear_norm")

nuclear_norm.lowrank <- function(x, ...) sum(lowrank_singular_values(x))

#' @rdname lowrank
#' @method dim lowrank
#' @export
dim.lowrank <- function(x) {
  check_lowrank(x, "x")
  c(nrow(x$u), nrow(x$v))
}

#' @rdname lowrank
#' @method print lowrank
#' @export
print.lowrank <- function(x, digits = 4L, ...) {
  check_lowrank(x, "x")
  check_count(digits, "digits")
  check_number(digits, "digits", max = 22)   # the range format() accepts
  dims <- c(nrow(x$u), nrow(x$v))
  s <- lowrank_singular_values(x)
  cat(sprintf("<lowrank matrix: %d x %d, rank %d>\n", dims[1], dims[2],
              length(s)))
  if (length(s) > 0L) {
    shown <- s[seq_len(min(5L, length(s)))]
    cat("Singular values:", vapply(shown, format, "", digits = digits),
        if (length(s) > 5L) "..." else NULL, "\n")
  }
  invisible(x)
}

# Auto-printing of S4-bit objects goes through show(); route it to print().
#' @rdname lowrank
#' @export
setMethod("show", "lowrank", function(object) print.lowrank(object))

#' @rdname lowrank
#' @method as.matrix lowrank
#' @export
as.matrix.lowrank <- function(x, ...) {
  check_lowrank(x, "x")
  x$u %*% (x$d * t(x$v))
}

#' @rdname lowrank
#' @method t lowrank
#' @export
t.lowrank <- function(x) {
  check_lowrank(x, "x")
  new_lowrank(x$v, x$d, x$u)
}

# Products in factored form -----------------------------------------------

# Number of rows of a product operand (a vector counts as a column).
operand_nrow <- function(y) if (is.null(dim(y))) length(y) else nrow(y)
operand_ncol <- function(y) if (is.null(dim(y))) length(y) else ncol(y)

# The non-lowrank operand of a product: a numeric (or logical) vector or
# matrix, or a Matrix object; `arg` is "x" or "y".
check_operand <- function(z, arg) {
  ok <- inherits(z, "Matrix") ||
    (is.atomic(z) && (is.numeric(z) || is.logical(z)) && length(dim(z)) <= 2L)
  if (!ok)
    stop_arg(arg, "must be a numeric vector or matrix, or a Matrix object ",
             "(got ", if (is.null(z)) "NULL" else class(z)[1L], ")")
  invisible(z)
}

# Dense results: a Matrix operand would otherwise give a dense Matrix class.
as_dense_result <- function(z) if (inherits(z, "Matrix")) as.matrix(z) else z

#' @rdname lowrank
#' @export
setMethod("%*%", signature("lowrank", "ANY"), function(x, y) {
  check_lowrank(x, "x")
  check_operand(y, "y")
  if (operand_nrow(y) != nrow(x$v)) {
    stop(sprintf(paste("non-conformable arguments: the lowrank matrix has %d",
                       "columns but `y` has %d rows."),
                 nrow(x$v), operand_nrow(y)), call. = FALSE)
  }
  # t(v) %*% y rather than crossprod(): %*% also dispatches for Matrix y.
  as_dense_result(x$u %*% (x$d * (t(x$v) %*% y)))
})

#' @rdname lowrank
#' @export
setMethod("%*%", signature("ANY", "lowrank"), function(x, y) {
  check_lowrank(y, "y")
  check_operand(x, "x")
  # A vector on the left is a row vector, as for base %*%.
  if (is.null(dim(x))) x <- matrix(x, nrow = 1L)
  if (operand_ncol(x) != nrow(y$u)) {
    stop(sprintf(paste("non-conformable arguments: `x` has %d columns but",
                       "the lowrank matrix has %d rows."),
                 operand_ncol(x), nrow(y$u)), call. = FALSE)
  }
  xu <- as_dense_result(x %*% y$u)
  (xu * rep(y$d, each = nrow(xu))) %*% t(y$v)
})

#' @rdname lowrank
#' @export
setMethod("%*%", signature("lowrank", "lowrank"), function(x, y) {
  check_lowrank(x, "x")
  check_lowrank(y, "y")
  if (nrow(x$v) != nrow(y$u)) {
    stop(sprintf(paste("non-conformable arguments: %d columns on the left,",
                       "%d rows on the right."), nrow(x$v), nrow(y$u)),
         call. = FALSE)
  }
  # u1 diag(d1) (v1' u2) diag(d2) v2' stays rank <= min(r1, r2).
  inner <- x$d * crossprod(x$v, y$u) * rep(y$d, each = length(x$d))
  s <- svd(inner)
  lowrank_compress(x$u %*% s$u, s$d, y$v %*% s$v)
})

#' Entries of a low-rank matrix at (row, column) pairs
#'
#' Evaluates \eqn{X_{ij} = \sum_k u_{ik} d_k v_{jk}}{X[i, j] = sum_k u[i, k]
#' d[k] v[j, k]} for each requested pair in \eqn{O(r)} operations, without
#' forming the dense matrix. This is how fits of [complete_matrix()] predict
#' held-out entries.
#'
#' @param object A [lowrank] object.
#' @param i Integer row indices, or a two-column matrix or data frame of
#'   (row, column) pairs (a data frame may name them `row` and `col`), in
#'   which case `j` is omitted.
#' @param j Integer column indices, the same length as `i`.
#' @param ... Unused.
#' @returns A numeric vector with one value per pair.
#' @examples
#' X <- lowrank(matrix(1:6, 3, 2), c(2, 1), matrix(1:8, 4, 2))
#' predict(X, c(1, 3), c(2, 4))
#' as.matrix(X)[cbind(c(1, 3), c(2, 4))]
#' predict(X, data.frame(row = 2, col = 1))
#' @method predict lowrank
#' @export
predict.lowrank <- function(object, i, j, ...) {
  check_lowrank(object, "object")
  dims <- c(nrow(object$u), nrow(object$v))
  if (missing(j)) {
    if (missing(i)) {
      stop("`i` is required: row indices, or a two-column set of pairs.",
           call. = FALSE)
    }
    p <- index_pairs(i, "i")
  } else {
    p <- list(i = i, j = j)
    if (length(i) != length(j)) {
      stop(sprintf("`i` and `j` must have the same length (%d and %d).",
                   length(i), length(j)), call. = FALSE)
    }
  }
  ii <- check_index(p$i, dims[1], "i", "row")
  jj <- check_index(p$j, dims[2], if (missing(j)) "i" else "j", "column")
  lowrank_entries(object, ii, jj)
}

# Entries of a validated lowrank object at validated integer pairs: one O(r)
# inner product per pair, in C (which checks the shapes again).
lowrank_entries <- function(x, i, j) {
  u <- x$u; v <- x$v
  if (!is.double(u)) storage.mode(u) <- "double"   # integer factors built by hand
  if (!is.double(v)) storage.mode(v) <- "double"
  .Call(C_cg_lowrank_entries, u, as.double(x$d), v, as.integer(i), as.integer(j))
}

# Split a two-column matrix or data frame of (row, col) pairs; `arg` names
# the user's argument in error messages.
index_pairs <- function(pairs, arg) {
  if (is.data.frame(pairs)) {
    if (all(c("row", "col") %in% names(pairs))) {
      return(list(i = pairs[["row"]], j = pairs[["col"]]))
    }
    if (ncol(pairs) == 2L) return(list(i = pairs[[1L]], j = pairs[[2L]]))
    stop(sprintf("`%s` must have columns `row` and `col`.", arg),
         call. = FALSE)
  }
  if (is.matrix(pairs) && ncol(pairs) == 2L) {
    return(list(i = pairs[, 1L], j = pairs[, 2L]))
  }
  stop(sprintf(paste("`%s` must be a data frame with columns `row` and",
                     "`col`, or a two-column matrix of (row, column) pairs."),
               arg), call. = FALSE)
}

# Check 1-based indices: numeric, whole, no NA, within 1..n.
check_index <- function(idx, n, arg, what) {
  if (!(is.numeric(idx) || is.logical(idx) && all(is.na(idx)))) {
    stop(sprintf("`%s`: %s indices must be numeric.", arg, what),
         call. = FALSE)
  }
  if (anyNA(idx)) {
    stop(sprintf("`%s`: %s indices must not be NA.", arg, what),
         call. = FALSE)
  }
  if (any(idx != round(idx))) {
    stop(sprintf("`%s`: %s indices must be whole numbers.", arg, what),
         call. = FALSE)
  }
  bad <- idx < 1 | idx > n
  if (any(bad)) {
    stop(sprintf("`%s`: %s indices must lie in 1..%d (found %s).", arg, what,
                 n, format(idx[bad][1L])), call. = FALSE)
  }
  as.integer(idx)
}
