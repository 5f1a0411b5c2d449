# Internal access to the C oracles (LMOs, projections, prox operators, partial
# SVD / eigensolvers), for tests and benchmarks. Not exported.

# Arguments that the C side reads as integers; every other number is double.
.oracle_int_args <- c("k", "which", "equality", "rank", "max_rank", "psd")

#' Call one C oracle
#'
#' @param name oracle name, e.g. `"lmo_l1"`, `"proj_simplex"`, `"svds"`.
#' @param ... named arguments of the oracle. `A` may be a base matrix, a
#'   `dgCMatrix`, a `dgTMatrix` or any other `Matrix` object.
#' @returns a named list; indices (`idx`) are 1-based.
#' @keywords internal
#' @noRd
cg_oracle <- function(name, ...) {
  args <- list(...)
  if (length(args) && (is.null(names(args)) || any(names(args) == "")))
    stop("all oracle arguments must be named", call. = FALSE)
  for (nm in names(args)) {
    a <- args[[nm]]
    args[[nm]] <- if (nm %in% c("A", "X")) {
      .oracle_matrix(a, sparse_ok = nm == "A")
    } else if (nm %in% .oracle_int_args) {
      as.integer(a)
    } else {
      as.double(a)
    }
  }
  .Call(C_cg_oracle_call, as.character(name), args)
}

# Base matrices pass as double matrices; sparse Matrix objects become 0-based
# CSC lists (or COO lists for triplet storage), which the C side checks.
.oracle_matrix <- function(A, sparse_ok = TRUE) {
  if (sparse_ok && inherits(A, "TsparseMatrix")) {
    A <- methods::as(methods::as(A, "generalMatrix"), "dMatrix")
    return(list(row = as.integer(A@i), col = as.integer(A@j),
                val = as.double(A@x), m = nrow(A), n = ncol(A)))
  }
  if (sparse_ok && inherits(A, "sparseMatrix")) {
    A <- methods::as(methods::as(methods::as(A, "CsparseMatrix"),
                                 "generalMatrix"), "dMatrix")
    return(list(p = as.integer(A@p), i = as.integer(A@i), x = as.double(A@x),
                m = nrow(A), n = ncol(A)))
  }
  if (is.list(A) && !is.null(names(A))) {
    for (f in intersect(names(A), c("p", "i", "row", "col", "m", "n")))
      A[[f]] <- as.integer(A[[f]])
    for (f in intersect(names(A), c("x", "val"))) A[[f]] <- as.double(A[[f]])
    return(A)
  }
  A <- as.matrix(A)
  if (!is.double(A)) storage.mode(A) <- "double"   # never copy a double matrix
  A
}
