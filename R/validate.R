# Argument checks shared by every problem function. Each stops with a message
# that names the argument, so users (and tests) can tell what was wrong.

stop_arg <- function(arg, ...) stop("`", arg, "` ", ..., call. = FALSE)

check_number <- function(x, arg, min = -Inf, max = Inf, finite = TRUE,
                         strict_min = FALSE) {
  if (!is.numeric(x) || length(x) != 1L || is.na(x))
    stop_arg(arg, "must be a single number")
  if (finite && !is.finite(x)) stop_arg(arg, "must be finite")
  if (strict_min && x <= min) stop_arg(arg, "must be greater than ", min)
  if (!strict_min && x < min) stop_arg(arg, "must be at least ", min)
  if (x > max) stop_arg(arg, "must be at most ", max)
  invisible(x)
}

check_count <- function(x, arg, min = 1, max = Inf) {
  check_number(x, arg, min = min, max = max)
  if (x != round(x)) stop_arg(arg, "must be a whole number")
  if (x > .Machine$integer.max) stop_arg(arg, "is too large")
  invisible(x)
}

# c(m, n): two whole numbers in [1, .Machine$integer.max]
check_dims <- function(dims, arg = "dims") {
  if (!is.numeric(dims) || length(dims) != 2L || anyNA(dims))
    stop_arg(arg, "must be two whole numbers c(m, n)")
  if (any(dims < 1) || any(dims != round(dims)) || any(dims > .Machine$integer.max))
    stop_arg(arg, "must be two whole numbers between 1 and ", .Machine$integer.max,
             " (got ", paste(dims, collapse = ", "), ")")
  as.integer(dims)
}

# squared norms of the data must be finite, or every objective overflows
check_scale <- function(value, arg) {
  if (!is.finite(value))
    stop_arg(arg, "is too large in scale: its squared norm overflows double ",
             "precision; rescale the data")
  invisible(value)
}

# the projected-gradient step: used by method "spg" only
check_step_size <- function(step_size, method) {
  if (is.null(step_size)) return(invisible())
  if (method != "spg") stop_arg("step_size", "is used only by method = \"spg\"")
  check_number(step_size, "step_size", min = 0, strict_min = TRUE)
}

check_flag <- function(x, arg) {
  if (!is.logical(x) || length(x) != 1L || is.na(x))
    stop_arg(arg, "must be TRUE or FALSE")
  invisible(x)
}

check_radius <- function(x, arg = "radius") {
  check_number(x, arg, min = 0, strict_min = TRUE)
}

# match.arg with an error that names the argument
match_choice <- function(x, choices, arg) {
  if (!is.character(x) || length(x) < 1L || is.na(x[1L]))
    stop_arg(arg, "must be one of ", paste0('"', choices, '"', collapse = ", "))
  x <- x[1L]
  if (!x %in% choices)
    stop_arg(arg, "must be one of ", paste0('"', choices, '"', collapse = ", "),
             ', not "', x, '"')
  x
}

# base matrix or Matrix; returns a double matrix or a dgCMatrix. A double
# matrix is returned as is, never copied: `storage.mode<-` on it would give
# an ALTREP wrapper that R copies in full the first time C code asks for a
# writable pointer. The checks allocate nothing of the size of X.
check_design <- function(X, arg = "X") {
  if (inherits(X, "Matrix")) {
    X <- methods::as(methods::as(methods::as(X, "CsparseMatrix"), "generalMatrix"),
                     "dMatrix")
    if (!all_finite(X@x)) stop_arg(arg, "contains NA, NaN or Inf")
    return(X)
  }
  if (is.data.frame(X)) {
    # name the columns a user must convert or drop
    bad <- which(!vapply(X, function(col) is.numeric(col) || is.logical(col), NA))
    if (length(bad))
      stop_arg(arg, "must be numeric, but column ", column_label(X, bad[1L]), " is ",
               class(X[[bad[1L]]])[1L],
               if (length(bad) > 1L) sprintf(" (and %d more non-numeric columns)", length(bad) - 1L),
               ": convert it with as.numeric() or drop it")
    X <- as.matrix(X)
  }
  if (!is.matrix(X) || !(is.numeric(X) || is.logical(X)))
    stop_arg(arg, "must be a numeric matrix or a Matrix object")
  if (!all_finite(X)) {
    col <- which(colSums(!is.finite(X)) > 0)[1L]
    stop_arg(arg, "contains NA, NaN or Inf (first in column ", column_label(X, col), ")")
  }
  if (!is.double(X)) storage.mode(X) <- "double"
  X
}

# a column for a message: `name` (its number) or its number alone
column_label <- function(X, j) {
  nm <- colnames(X)[j]
  if (is.null(nm) || is.na(nm) || !nzchar(nm)) as.character(j) else sprintf("`%s` (%d)", nm, j)
}

# TRUE when no entry is NA, NaN or +-Inf; min() and max() scan without
# allocating (is.finite(X) would allocate a logical of the size of X)
all_finite <- function(x) {
  length(x) == 0L || (is.finite(min(x)) && is.finite(max(x)))
}

# isSymmetric(unname(M), tol) without its temporaries of the size of M
# (t(M), the differences, and the copy unname() makes of a matrix with
# dimnames): the same tests (rows 1, 2, n-1, n against the columns, then
# all.equal's mean relative difference over the entries that differ),
# accumulated over blocks of columns.
is_symmetric_matrix <- function(M, tol = 100 * .Machine$double.eps) {
  n <- nrow(M)
  if (n != ncol(M)) return(FALSE)
  if (n > 1L) {
    for (i in unique(c(1L, 2L, n - 1L, n)))
      if (!isTRUE(all.equal(unname(M[i, ]), unname(M[, i]), tolerance = 8 * tol)))
        return(FALSE)
  }
  n_diff <- 0; sum_diff <- 0; sum_abs <- 0
  for (cols in column_blocks(M)) {
    A <- M[, cols, drop = FALSE]
    B <- t(M[cols, , drop = FALSE])
    differ <- A != B
    n_diff <- n_diff + sum(differ)
    sum_diff <- sum_diff + sum(abs(A[differ] - B[differ]))
    sum_abs <- sum_abs + sum(abs(A[differ]))
  }
  if (n_diff == 0) return(TRUE)
  scale <- sum_abs / n_diff
  sum_diff / (if (is.finite(scale) && scale > tol) sum_abs else n_diff) <= tol
}

# column indices of X in blocks of about `entries` entries each, for loops
# that must not allocate temporaries of the size of X
column_blocks <- function(X, entries = 2^20) {
  width <- max(1, floor(entries / max(nrow(X), 1)))
  split(seq_len(ncol(X)), ceiling(seq_len(ncol(X)) / width))
}

check_vector <- function(y, arg, n = NULL) {
  if (!is.numeric(y) && !is.logical(y)) stop_arg(arg, "must be a numeric vector")
  y <- as.double(y)
  if (!all_finite(y)) stop_arg(arg, "contains NA, NaN or Inf")   # no n-long temporaries
  if (!is.null(n) && length(y) != n)
    stop_arg(arg, "must have length ", n, " (got ", length(y), ")")
  y
}

# A few sums that tell data apart (an exact continuation must see the same
# data): of a numeric matrix, or of a vector (its length, and its entries
# weighted by position, so that moved entries show).
fingerprint <- function(x) {
  if (is.matrix(x)) {             # no temporary of the size of x
    # (a double matrix: the same numbers in one pass of C,
    # src/regression_data.c; a tenth of a binomial fit at 5000 x 50)
    if (is.double(x)) return(.Call(C_cg_fingerprint, x))
    rs <- rowSums(x); cs <- colSums(x)
    return(c(dim(x), sum(rs), sum(rs * rs), sum(rs * seq_len(nrow(x))),
             sum(cs * seq_len(ncol(x))), sum(cs * (seq_len(ncol(x)) %% 7 + 1))))
  }
  # integers in double (x * x overflows past 46340): x * 1, a new vector,
  # not a duplicate of x (as.double() is one: tracemem, test-memory.R)
  if (is.integer(x)) x <- x * 1
  c(length(x), sum(x), sum(x * x), sum(x * seq_along(x)))
}
