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

check_count <- function(x, arg, min = 1) {
  check_number(x, arg, min = min)
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

# base matrix or Matrix; returns list(dense = double matrix) or list(csc = dgCMatrix)
check_design <- function(X, arg = "X") {
  if (inherits(X, "Matrix")) {
    X <- methods::as(methods::as(methods::as(X, "CsparseMatrix"), "generalMatrix"),
                     "dMatrix")
    if (anyNA(X@x) || any(!is.finite(X@x))) stop_arg(arg, "contains NA, NaN or Inf")
    return(X)
  }
  if (is.data.frame(X)) X <- as.matrix(X)
  if (!is.matrix(X) || !(is.numeric(X) || is.logical(X)))
    stop_arg(arg, "must be a numeric matrix or a Matrix object")
  if (anyNA(X) || any(!is.finite(X))) stop_arg(arg, "contains NA, NaN or Inf")
  storage.mode(X) <- "double"
  X
}

check_vector <- function(y, arg, n = NULL) {
  if (!is.numeric(y) && !is.logical(y)) stop_arg(arg, "must be a numeric vector")
  y <- as.double(y)
  if (anyNA(y) || any(!is.finite(y))) stop_arg(arg, "contains NA, NaN or Inf")
  if (!is.null(n) && length(y) != n)
    stop_arg(arg, "must have length ", n, " (got ", length(y), ")")
  y
}
