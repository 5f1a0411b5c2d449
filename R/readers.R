# Readers: one interface through which the stochastic methods draw their
# data block by block, wherever the data are (issue 27). A reader cuts a
# matrix into blocks of consecutive rows (`by = "rows"`: the observations of
# sparse_regression()) or columns (`by = "cols"`: the samples of
# stochastic_mf()) and reads one block at a time; the solver calls it once
# per block drawn and once per block of a full-data pass, never per row or
# per iteration. Adding a format is one method of block_reader(); an
# in-memory matrix is one more reader, and a fit from a file equals the fit
# from the same matrix in memory read by the same blocks, with the same
# seed, bit for bit (the draws depend only on the block structure and R's
# RNG: src/prob_sampler.h, the block sampler).

#' Read a matrix block by block, for the stochastic methods
#'
#' Wraps a matrix, in memory or on disk, as a reader from which
#' [sparse_regression()] (`method = "sfw"`, `"fw"`, `"spg"`) and
#' [stochastic_mf()] draw their minibatches block by block: blocks of
#' `block_size` consecutive rows (`by = "rows"`) or columns (`by = "cols"`).
#' The stochastic methods take the blocks in random order and the rows (or
#' columns) of a block in random order (a block-shuffle), so that each block
#' of the file is read once per pass; the full-data evaluations (objective,
#' gap) read the blocks in order. Passing a `DelayedArray` to those
#' functions makes a reader with the default block size.
#'
#' [sparse_covariance()] reads the blocks of rows of a reader once, in
#' order, for the sample covariance, then fits from it (a given `lambda`:
#' its cross-validation needs the rows in memory).
#'
#' Formats: a numeric `matrix`, a `dgCMatrix` (each block made dense when
#' read) and a `DelayedArray`, which includes an `HDF5Array` /
#' `HDF5Matrix` (Bioconductor's on-disk matrices, e.g. from
#' `HDF5Array::writeHDF5Array()`; needs the Suggests
#' package DelayedArray) and a sparse one such as a `TENxMatrix` (the 10x
#' Genomics sparse layout of single-cell counts, `HDF5Array::TENxMatrix(file,
#' "matrix")`). A block is made of whole chunks of the file
#' (`DelayedArray::chunkdim()`): the default block size is the smallest
#' multiple of the chunk length along `by` whose block holds at least
#' \eqn{2^{20}}{2^20} values (8 MB), so that a read touches each chunk once.
#' A dense HDF5 data set as stored (`HDF5Array::HDF5Array()`, no delayed
#' operations) is read by `HDF5Array::h5mread()` directly, one hyperslab per
#' block (the values `DelayedArray::extract_array()` gives, without its
#' dispatch per block); other `DelayedArray`s through `extract_array()`.
#'
#' A sparse `DelayedArray` (`DelayedArray::is_sparse()`, e.g. a
#' `TENxMatrix`) read by columns is read as sparse blocks
#' (`DelayedArray::extract_sparse_array()`), never as dense \eqn{d \times}{d
#' x} `block_size` matrices, and [stochastic_mf()] solves its columns as
#' sparse ones; its default block holds about \eqn{2^{20}}{2^20} nonzeros
#' (judged from the first block). `reader_block()` still gives a dense
#' block. With HDF5Array 1.26 and rhdf5 2.42 (Debian 12), `TENxMatrix()`
#' fails with "h5checktype(). Argument not of class H5IdComponent" when an
#' earlier HDF5 call in the session failed (rhdf5's `H5Dopen()` then returns
#' `FALSE` where HDF5Array expects an error): call
#' `rhdf5::h5errorHandling("normal")` just before `TENxMatrix()`; and
#' `HDF5Array::writeTENxMatrix()` fails there for matrices with fewer than
#' 16384 entries or 4095 columns (a chunk longer than the data set's maximum,
#' which rhdf5 replaces by 0): write the layout (`data`, `indices`,
#' `indptr`, `shape` in a group) with `rhdf5::h5write()`, as
#' `inst/bench/out_of_core.R` does.
#'
#' For [sparse_regression()], the response `y` may be a reader too (by
#' rows, one column; it is re-cut into `X`'s blocks) or a `DelayedArray`
#' vector or one-column matrix: each block of `y` is read with the same
#' rows of `X`. What stays in memory during such a fit: the
#' \eqn{p \times p}{p x p} statistics, the coefficients and two blocks of
#' `X` with their responses; never a whole column or `y`.
#'
#' The draws depend only on the block structure (the dimensions and
#' `block_size`) and R's random number generator, not on where the data
#' are: a fit from an HDF5 file equals the fit from the same matrix in
#' memory read with the same `block_size`, under the same seed, bit for bit.
#'
#' @param x A numeric matrix, a `dgCMatrix`, or a `DelayedArray` (e.g. an
#'   `HDF5Matrix`).
#' @param block_size Rows (or columns) per block, a positive whole number;
#'   `NULL` for the default (see Details). Larger blocks read faster; the
#'   draws mix only within a block and across the order of the blocks.
#' @param by `"rows"` (the observations are rows: `sparse_regression()`) or
#'   `"cols"` (the samples are columns: `stochastic_mf()`).
#' @returns A reader, of class `c("<kind>_reader", "cg_reader")`: a list
#'   with `dim`, `by`, `block_size`, `n_blocks`, `chunkdim` (the file's,
#'   `NULL` in memory) and `dimnames`; `reader_block(reader, k)` gives block
#'   `k` as a dense double matrix.
#' @seealso [sparse_regression()], [stochastic_mf()].
#' @examples
#' X <- matrix(rnorm(200 * 5), 200, 5)
#' r <- block_reader(X, block_size = 50)
#' r
#' dim(reader_block(r, 4))
#' @export
block_reader <- function(x, block_size = NULL, by = c("rows", "cols")) {
  by <- match_choice(by, c("rows", "cols"), "by")
  if (inherits(x, "cg_reader")) {
    if (!identical(x$by, by))
      stop_arg("x", "is a reader by ", x$by, ", but ", by, " are needed")
    if (!is.null(block_size)) x <- make_reader(x$kind, x$source, x$dim, by,
                                               block_size, x$chunkdim, x$dimnames,
                                               isTRUE(x$sparse))
    return(x)
  }
  UseMethod("block_reader")
}

#' @rdname block_reader
#' @export
block_reader.default <- function(x, block_size = NULL, by = c("rows", "cols")) {
  by <- match_choice(by, c("rows", "cols"), "by")
  if (is.data.frame(x) || is.logical(x) || is.integer(x)) x <- check_design(x, "x")
  if (!is.numeric(x) || !is.matrix(x))
    stop_arg("x", "must be a numeric matrix, a dgCMatrix or a DelayedArray (e.g. an ",
             "HDF5Matrix), not ", class(x)[1L])
  make_reader("matrix", x, dim(x), by, block_size, NULL, dimnames(x))
}

#' @rdname block_reader
#' @export
block_reader.dgCMatrix <- function(x, block_size = NULL, by = c("rows", "cols")) {
  by <- match_choice(by, c("rows", "cols"), "by")
  make_reader("dgCMatrix", x, dim(x), by, block_size, NULL, dimnames(x))
}

#' @rdname block_reader
#' @export
block_reader.DelayedArray <- function(x, block_size = NULL, by = c("rows", "cols")) {
  by <- match_choice(by, c("rows", "cols"), "by")
  if (!requireNamespace("DelayedArray", quietly = TRUE))
    stop_arg("x", "is a DelayedArray, which needs the package DelayedArray")
  if (length(dim(x)) != 2L) stop_arg("x", "must be a matrix (2 dimensions), not ",
                                     length(dim(x)))
  if (!DelayedArray::type(x) %in% c("double", "integer", "logical"))
    stop_arg("x", "must be numeric, not of type ", DelayedArray::type(x))
  # a sparse file (e.g. HDF5Array::TENxMatrix(), the 10x Genomics layout):
  # blocks of columns are read as sparse matrices (reader_block_sparse()),
  # never as dense d x block ones; the default block holds about 2^20
  # nonzeros (from the first block's share of them)
  sparse <- by == "cols" && isTRUE(DelayedArray::is_sparse(x))
  if (sparse && is.null(block_size)) {
    unit <- as.integer(DelayedArray::chunkdim(x)[2L] %||% 1L)
    first <- unit * max(1, ceiling(2^20 / (unit * as.double(nrow(x)))))
    first <- min(first, ncol(x))
    nz <- length(sparse_extract(x, seq_len(first))@x)
    per_col <- max(nz / first, 1)
    block_size <- unit * max(1, ceiling(2^20 / (unit * per_col)))
  }
  make_reader("DelayedArray", x, dim(x), by, block_size, DelayedArray::chunkdim(x),
              dimnames(x), sparse = sparse)
}

# columns `idx` of a sparse DelayedArray as a dgCMatrix (double), without
# a dense copy
sparse_extract <- function(x, idx) {
  S <- methods::as(DelayedArray::extract_sparse_array(x, list(NULL, idx)), "dgCMatrix")
  S@Dimnames <- list(NULL, NULL)
  S
}

# the reader of `source` (kind: "matrix", "dgCMatrix", "DelayedArray")
make_reader <- function(kind, source, dims, by, block_size, chunkdim, dimnames,
                        sparse = FALSE) {
  dims <- as.integer(dims)
  if (length(dims) != 2L || any(dims < 1L))
    stop_arg("x", "must have at least one row and one column")
  m <- if (by == "rows") 1L else 2L
  along <- dims[m]; other <- dims[3L - m]
  unit <- if (is.null(chunkdim)) 1L else as.integer(chunkdim[m])
  if (is.null(block_size)) {
    block_size <- unit * max(1, ceiling(2^20 / (unit * as.double(other))))
  } else {
    check_count(block_size, "block_size")
  }
  block_size <- as.integer(min(block_size, along))
  structure(list(kind = kind, source = source, dim = dims, by = by,
                 block_size = block_size, n_blocks = as.integer(ceiling(along / block_size)),
                 chunkdim = chunkdim, dimnames = dimnames, sparse = sparse,
                 h5 = if (kind == "DelayedArray" && !sparse) h5_dataset(source)),
            class = c(paste0(kind, "_reader"), "cg_reader"))
}

# list(filepath, name) of a DelayedArray that is a dense HDF5 data set as
# stored (HDF5Array::HDF5Array(), no delayed operations, read as doubles),
# else NULL. Its blocks are read by HDF5Array::h5mread() directly, as one
# hyperslab: the values DelayedArray::extract_array() gives, without its
# method dispatch and index expansion per block (for y, read four times per
# fit in blocks of a few hundred KB, those were most of the read's cost and
# of its R allocations).
h5_dataset <- function(x) {
  s <- tryCatch(x@seed, error = function(e) NULL)
  if (is.null(s) || !methods::is(s, "HDF5ArraySeed") ||
      !"counts" %in% names(formals(HDF5Array::h5mread))) return(NULL)
  if (methods::.hasSlot(s, "as_sparse") && isTRUE(s@as_sparse)) return(NULL)
  if (methods::.hasSlot(s, "type") && !is.na(s@type) && s@type != "double") return(NULL)
  if (!identical(dim(s), dim(x))) return(NULL)
  list(filepath = s@filepath, name = s@name)
}

# the rows (by = "rows") or columns `idx` (consecutive) of reader$h5
h5_block <- function(reader, idx) {
  first <- idx[1L]; len <- length(idx)
  h5 <- reader$h5
  if (length(dim(reader$source)) == 1L) {   # a vector (y): one column
    out <- HDF5Array::h5mread(h5$filepath, h5$name, starts = list(first), counts = list(len))
    dim(out) <- c(len, 1L)
    return(out)
  }
  if (reader$by == "rows")
    HDF5Array::h5mread(h5$filepath, h5$name, starts = list(first, NULL),
                       counts = list(len, NULL))
  else HDF5Array::h5mread(h5$filepath, h5$name, starts = list(NULL, first),
                          counts = list(NULL, len))
}

#' @rdname block_reader
#' @param reader A reader from `block_reader()`.
#' @param k The block, from 1 to `reader$n_blocks`.
#' @export
reader_block <- function(reader, k) {
  if (!inherits(reader, "cg_reader")) stop_arg("reader", "must be a reader from block_reader()")
  check_count(k, "k", max = reader$n_blocks)
  if (identical(reader$by, "entries")) return(entry_block(reader, k, "reader"))
  idx <- block_index(reader, k)
  out <- switch(reader$kind,
    matrix = if (reader$by == "rows") reader$source[idx, , drop = FALSE]
             else reader$source[, idx, drop = FALSE],
    dgCMatrix = as.matrix(if (reader$by == "rows") reader$source[idx, , drop = FALSE]
                          else reader$source[, idx, drop = FALSE]),
    DelayedArray = if (!is.null(reader$h5)) h5_block(reader, idx)
      else if (length(dim(reader$source)) == 1L)      # a vector (y): one column
        matrix(DelayedArray::extract_array(reader$source, list(idx)))
      else DelayedArray::extract_array(
        reader$source, if (reader$by == "rows") list(idx, NULL) else list(NULL, idx)))
  if (!is.double(out)) storage.mode(out) <- "double"
  # (only when there are any: on a block still referenced elsewhere, as
  # extract_array()'s is, `dimnames<-` copies it)
  if (!is.null(dimnames(out))) dimnames(out) <- NULL
  out
}

# block k of a reader by columns as a dgCMatrix: read sparse from a sparse
# file (reader$sparse), else made sparse from the dense block
reader_block_sparse <- function(reader, k) {
  idx <- block_index(reader, k)
  if (isTRUE(reader$sparse)) return(sparse_extract(reader$source, idx))
  if (reader$kind == "dgCMatrix") {
    S <- reader$source[, idx, drop = FALSE]
    S@Dimnames <- list(NULL, NULL)
    return(S)
  }
  methods::as(reader_block(reader, k), "CsparseMatrix")
}

# the rows (or columns) of block k
block_index <- function(reader, k) {
  along <- reader$dim[if (reader$by == "cols") 2L else 1L]
  first <- (k - 1L) * reader$block_size + 1L
  first:min(along, k * reader$block_size)
}

#' @export
print.cg_reader <- function(x, ...) {
  if (identical(x$by, "entries")) {
    cat(sprintf("<%s reader> %.0f entries (row, col, value), %d blocks of %d\n", x$kind,
                as.double(x$dim[1L]), x$n_blocks, x$block_size))
    return(invisible(x))
  }
  cat(sprintf("<%s reader> %d x %d, %d blocks of %d %s%s%s\n", x$kind, x$dim[1L], x$dim[2L],
              x$n_blocks, x$block_size, x$by, if (isTRUE(x$sparse)) ", read sparse" else "",
              if (is.null(x$chunkdim)) "" else
                sprintf(" (file chunks %s)", paste(x$chunkdim, collapse = " x "))))
  invisible(x)
}

# the reader of a function's argument `arg` (a reader, or a DelayedArray
# read by its default blocks)
as_reader <- function(x, by, arg) {
  if (inherits(x, "cg_reader") && !identical(x$by, by))
    stop_arg(arg, "is a reader by ", x$by, "; here the ", if (by == "rows") "observations are rows"
             else "samples are columns", ": use block_reader(..., by = \"", by, "\")")
  block_reader(x, by = by)
}

# is `x` data the readers take and the in-memory code does not (a reader
# or a DelayedArray)?
is_reader_input <- function(x) {
  inherits(x, "cg_reader") || methods::is(x, "DelayedArray")
}

# One pass over the blocks of `reader`, in order: checks every value is
# finite (an error naming `arg` and the block) and returns the column means
# and standard deviations (divisor n) along `by`'s other dimension (of the
# columns for by = "rows"), the largest absolute value and, with gram =
# TRUE, the crossproduct X'X (by = "rows" only); with cov = TRUE, the
# sample covariance (divisor n - 1). Sums are taken around the first
# block's means, so that large means do not cancel the variances (nor the
# covariances). With `y` (by = "rows", a function of k giving block k's
# responses: y_blocks()), also X'(y - ycenter) (`xty`) and ||y - ycenter||^2
# (`yy`, summed as the C side did: cg_y_pass()).
reader_moments <- function(reader, arg, gram = FALSE, sums = TRUE, cov = FALSE, y = NULL,
                           ycenter = 0) {
  n <- if (reader$by == "rows") reader$dim[1L] else reader$dim[2L]
  p <- if (reader$by == "rows") reader$dim[2L] else reader$dim[1L]
  # the accumulators, added to block by block in C (cg_moments_block(), src/
  # regression_data.c: R's expressions, bit for bit, without their
  # block-sized temporaries); changed in place: `acc` is never copied
  acc <- .Call(C_cg_moments_new, p, gram && sums, cov && sums)
  max_abs <- 0
  nnz <- 0
  for (k in seq_len(reader$n_blocks)) {
    if (!sums && isTRUE(reader$sparse)) {      # a sparse file: its nonzeros only
      S <- reader_block_sparse(reader, k)
      if (!identical(dim(S), c(p, length(block_index(reader, k)))))
        stop_arg(arg, "gave a block ", k, " of dimensions ", paste(dim(S), collapse = " x "),
                 " (not those of the reader)")
      if (!all_finite(S@x)) {
        idx <- range(block_index(reader, k))
        stop_arg(arg, "contains NA, NaN or Inf (in block ", k, ", ", reader$by, " ", idx[1L],
                 " to ", idx[2L], ")")
      }
      if (length(S@x)) max_abs <- max(max_abs, abs(range(S@x)))
      nnz <- nnz + sum(S@x != 0)
      next
    }
    B <- reader_block(reader, k)
    if (!identical(dim(B), if (reader$by == "rows") c(length(block_index(reader, k)), p)
                           else c(p, length(block_index(reader, k)))))
      stop_arg(arg, "gave a block ", k, " of dimensions ", paste(dim(B), collapse = " x "),
               " (not those of the reader)")
    if (sums && reader$by == "cols") B <- t(B)
    if (!.Call(C_cg_moments_block, acc, B, sums)) {
      idx <- range(block_index(reader, k))
      stop_arg(arg, "contains NA, NaN or Inf (in block ", k, ", ", reader$by, " ", idx[1L],
               " to ", idx[2L], ")")
    }
    if (sums && !is.null(y)) .Call(C_cg_moments_y, acc, B, y(k), as.double(ycenter))
    # unbound before the next block is read: a block still bound when R
    # collects garbage for the next outlives its young generation and needs
    # a fuller (costlier) collection to go
    B <- NULL
  }
  sc <- acc$scal
  max_abs <- max(max_abs, sc[1L])
  nnz <- nnz + sc[2L]
  if (!sums) return(list(n = n, p = p, max_abs = max_abs, nnz = nnz))
  s1 <- acc$s1
  mean <- acc$shift + s1 / n
  var <- pmax(acc$s2 / n - (s1 / n)^2, 0)
  C <- acc$cov
  if (cov) {
    d <- s1 / n
    C <- (C - n * tcrossprod(d)) / (n - 1)
    C <- (C + t(C)) / 2                     # exactly symmetric
  }
  list(n = n, p = p, mean = mean, sd = sqrt(var), max_abs = max_abs, gram = acc$gram, cov = C,
       xty = if (!is.null(y)) acc$xty, yy = if (!is.null(y)) sc[3L])
}

# The response of a reader regression, by X's blocks of rows: `y` in memory
# (a numeric vector) or on disk (a DelayedArray / HDF5Array vector or n x 1
# matrix, or a reader by rows of one column), read block by block with X so
# that no n-vector of y is ever in memory. Returns list(block = function(k)
# (block k's responses as doubles, checked: their number, and finite, an
# error naming `y` and the block), disk).
y_blocks <- function(y, X) {
  n <- X$dim[1L]
  if (!is_reader_input(y)) {
    y <- check_vector(y, "y", n)
    return(list(block = function(k) y[block_index(X, k)], disk = FALSE))
  }
  if (inherits(y, "cg_reader")) {
    if (!identical(y$by, "rows") || y$dim[2L] != 1L)
      stop_arg("y", "must be a reader by rows of one column (the responses), not ",
               y$dim[1L], " x ", y$dim[2L], " by ", y$by)
    len <- y$dim[1L]
  } else {
    if (!requireNamespace("DelayedArray", quietly = TRUE))
      stop_arg("y", "is a DelayedArray, which needs the package DelayedArray")
    d <- dim(y)
    if (!(length(d) == 1L || (length(d) == 2L && d[2L] == 1L)))
      stop_arg("y", "must be a vector or a one-column matrix, not ",
               paste(d, collapse = " x "))
    if (!DelayedArray::type(y) %in% c("double", "integer", "logical"))
      stop_arg("y", "must be numeric, not of type ", DelayedArray::type(y))
    len <- d[1L]
  }
  if (len != n) stop_arg("y", "must have length ", n, " (the rows of `X`; got ", len, ")")
  yr <- if (inherits(y, "cg_reader")) block_reader(y, block_size = X$block_size)
        else if (length(dim(y)) == 1L)
          make_reader("DelayedArray", y, c(n, 1L), "rows", X$block_size,
                      DelayedArray::chunkdim(y), NULL)
        else block_reader(y, block_size = X$block_size)
  block <- function(k) {
    v <- reader_block(yr, k)      # doubles, as a one-column matrix (no as.double() copy)
    idx <- block_index(X, k)
    if (length(v) != length(idx))
      stop_arg("y", "gave ", length(v), " values for block ", k, " of ", length(idx), " rows")
    if (!all_finite(v))
      stop_arg("y", "contains NA, NaN or Inf (in block ", k, ", rows ", idx[1L], " to ",
               idx[length(idx)], ")")
    v
  }
  list(block = block, disk = TRUE)
}

# mean(y) from y's blocks, bit for bit (cg_y_pass(): R's long double sum
# and its correction pass; two reads of y on disk)
y_mean <- function(yb, nb, n) {
  st <- NULL
  for (k in seq_len(nb)) st <- .Call(C_cg_y_pass, yb$block(k), st, 1L, n, 0)
  for (k in seq_len(nb)) st <- .Call(C_cg_y_pass, yb$block(k), st, 2L, n, 0)
  .Call(C_cg_y_pass, NULL, st, 0L, n, 0)[[1L]]
}

# sparse_regression() with X a reader or a DelayedArray: least squares over
# the (scaled) l1 ball by sfw, fw or spg drawing rows block by block
# (src/prob_regression.c, "reader"). Centring and scaling are implicit (the
# C side centres and scales each block as it reads it): X is never copied.
reader_regression <- function(X, y, radius, family, weights, standardize, penalty.factor,
                              intercept, init, solver, call, started) {
  X <- as_reader(X, "rows", "X")
  family <- match_choice(family, regression_families, "family")
  if (family != "gaussian")
    stop_arg("family", "must be \"gaussian\" when `X` is read from disk (a reader)")
  if (!is.null(weights)) stop_arg("weights", "must be NULL when `X` is read from disk (a reader)")
  methods <- c("pfw", "sfw", "fw", "spg")
  # the default on disk is "sfw" ("pfw" reads columns of X at will)
  method <- if (identical(solver$method, methods)) "sfw"
            else match_choice(solver$method, methods, "method")
  if (method == "pfw")
    stop_arg("method", "must be \"sfw\", \"fw\" or \"spg\" when `X` is read from disk ",
             "(\"pfw\", the default, needs X in memory)")
  n <- X$dim[1L]; p <- X$dim[2L]
  yb <- y_blocks(y, X)
  rm(y)
  check_flag(standardize, "standardize")
  check_flag(intercept, "intercept")
  pf <- check_penalty_factor(penalty.factor, p)
  if (!is.null(pf) && any(pf == 0))
    stop_arg("penalty.factor", "must be positive when `X` is read from disk (a reader)")
  if (missing(radius)) stop_arg("radius", "is missing, with no default")
  if (length(radius) != 1L)
    stop_arg("radius", "must be a single radius when `X` is read from disk (a reader)")
  check_radius(radius)
  sampling <- match_choice(solver$sampling %||% "shuffle", c("shuffle", "stream", "replace"),
                           "sampling")
  step <- default_step(method, solver$step)
  K <- solver$K %||% 2L
  check_count(K, "K")
  batch_size <- solver$batch_size %||% max(1L, ceiling(n / 500))
  check_count(batch_size, "batch_size")
  check_step_size(solver$step_size, method)
  gram <- solver$gram %||% TRUE
  check_flag(gram, "gram")
  if (!gram) stop_arg("gram", "must be TRUE when `X` is read from disk (a reader)")
  if (p > 16000L) stop_arg("X", "has ", p, " columns; a reader needs p^2 doubles (p <= 16000)")
  control <- as_control(solver$control %||% cg_control(), max_iter = 1000)

  # one pass: every value finite, the column means and sds, X'(y - ybar)
  # (the gradient at the cold start: its evaluation reads nothing more),
  # and X'X for spg's step 1 / L. y stays uncentred (the C side centres it
  # as it uses it): no second n-vector in memory. y on disk is read with
  # X's blocks (and twice before, alone, for its mean): no n-vector at all.
  ybar <- if (intercept) y_mean(yb, X$n_blocks, n) else 0
  mom <- reader_moments(X, "X", gram = method == "spg", y = yb$block, ycenter = ybar)
  xbar <- if (intercept) mom$mean else rep(0, p)
  sd <- if (standardize) mom$sd else rep(1, p)   # around the mean, as glmnet
  cs <- numeric(p)
  ok <- sd > 0
  cs[ok] <- 1 / ((if (is.null(pf)) 1 else pf[ok]) * sd[ok])
  # the centred, scaled X'(y - ybar) / n: centring X subtracts xbar 1'(y -
  # ybar) = 0
  xty0 <- cs * mom$xty / n
  names <- X$dimnames[[2L]]
  prep <- list(kind = "scale", family = "gaussian", n = n, p = p, pen = rep(TRUE, p), cs = cs,
               w = NULL, intercept = intercept, xbar = xbar, names = names,
               standardize = standardize, pf = pf)
  theta0 <- if (!is.null(init)) reader_init(init, prep, radius)
  lipschitz <- 1
  if (method == "spg") {
    G <- (mom$gram / n - tcrossprod(xbar)) * tcrossprod(cs)
    lipschitz <- max(eigen(G, symmetric = TRUE, only.values = TRUE)$values[1L],
                     .Machine$double.eps)
  }
  reads <- 0
  fetch <- if (yb$disk) function(k) {     # X's block, its responses as attribute "y"
    reads <<- reads + 1                    # (no copy of the block, as cbind() made;
    yk <- yb$block(k)                      # y first: nothing allocated while B is held)
    B <- reader_block(X, k)
    attr(B, "y") <- yk
    B
  } else function(k) {
    reads <<- reads + 1
    reader_block(X, k)
  }
  # y in memory goes to C whole (its environment keeps it anyway)
  y_mem <- if (!yb$disk) environment(yb$block)$y
  spec <- list(problem = "regression", method = method, step = step, K = as.integer(K),
               eta = if (is.null(solver$step_size)) -1 else solver$step_size,
               n = n, p = p, y = y_mem, yy = as.double(mom$yy),
               y_center = as.double(ybar), xty0 = as.double(xty0),
               radius = as.double(radius), sparse = FALSE,
               gram = TRUE, face_step = FALSE, batch_size = as.integer(min(batch_size, n)),
               sampling = if (method == "fw") 1L else sampling_code(sampling),
               lipschitz = lipschitz, reader_call = as.call(list(fetch, 1L)),
               reader_env = environment(), block_rows = X$block_size,
               x_scale = as.double(cs))
  if (intercept) spec$x_center <- as.double(xbar)
  if (!is.null(theta0)) {
    # the step rule counts on from a fit's iterations (as in memory), and a
    # warm start keeps the cold start's scale of tol
    iter <- if (inherits(init, "sparse_regression_fit")) init$iterations else 0L
    if (!is.numeric(iter) || length(iter) != 1L || is.na(iter) || iter < 0)
      stop_arg("init", "has an invalid `iterations` (a fit altered by hand?)")
    spec[c("init_beta", "iter_offset", "cold_objective")] <-
      list(theta0, as.integer(iter), mom$yy / (2 * n))
  }
  fit <- cg_run(spec, control, "sparse_regression", call, started)
  theta <- fit$solution$beta
  beta <- cs * theta
  names(beta) <- names
  fit$solution <- list(beta = beta)
  fit$theta <- theta
  fit$intercept <- ybar - sum(xbar * beta)
  if (intercept) {
    fit$x_center <- stats::setNames(xbar, names)
    fit$notes <- c(fit$notes, beta = sprintf("intercept %s", format(fit$intercept, digits = 4)))
  }
  fit$notes <- c(fit$notes, beta = prepared_note(prep, theta),
                 data = sprintf("X%s read by %d blocks of %d rows",
                                if (yb$disk) " and y" else "", X$n_blocks, X$block_size))
  fit$family <- "gaussian"
  fit$standardize <- standardize
  fit$penalty.factor <- pf
  fit$radius <- radius
  fit$nobs <- n
  # passes over the file: the solver's (blocks drawn and evaluations) and
  # the first, for the moments
  fit$reader <- c(X[c("kind", "dim", "by", "block_size", "n_blocks", "chunkdim")],
                  list(passes = 1 + reads / X$n_blocks, y_on_disk = yb$disk))
  class(fit) <- c("sparse_regression_fit", "cg_fit")
  finish_fit(fit, started)
}

# a warm start for a reader fit: the coefficients (of a fit, or a vector on
# the original scale) on the radius' scale, scaled into the ball
reader_init <- function(init, prep, radius) {
  beta <- if (inherits(init, "sparse_regression_fit")) fit_solution(init) else init
  if (!is.numeric(beta) || !is.null(dim(beta)) || length(beta) != prep$p)
    stop_arg("init", "must be NULL, a fit of sparse_regression() or a numeric vector of ",
             "length ", prep$p)
  if (!all_finite(beta)) stop_arg("init", "contains NA, NaN or Inf")
  th <- to_theta(as.double(beta), prep)
  l1 <- sum(abs(th))
  if (l1 > radius) th <- th * (radius / l1)
  th
}

# stochastic_mf()'s data (smf_data()) from a reader or a DelayedArray, by
# columns: the columns idx through the data-function mechanism (Y(idx),
# src/prob_smf.c), served from the block that holds them (the last block
# read is kept: a minibatch of the block sampler, spec$block_cols, lies in
# one block or two consecutive draws, and a full pass reads the columns in
# order), so each block is read once per pass. One pass first checks the
# values and finds the largest.
reader_smf_data <- function(Y, n, arg) {
  if (!is.null(n)) stop_arg("n", "is only for `", arg, "` given as a function")
  reader <- as_reader(Y, "cols", arg)
  d <- reader$dim[1L]; n <- reader$dim[2L]
  mom <- reader_moments(reader, arg, sums = FALSE)
  check_scale(mom$max_abs^2 * d, arg)
  bs <- reader$block_size
  # sparse data (a dgCMatrix, or at most 25% nonzero) go to the solver as
  # sparse columns (CSC), whose sub-problems cost O(nnz) where dense ones
  # cost O(d); option stochcg.reader_sparse (TRUE / FALSE) overrides
  sparse <- getOption("stochcg.reader_sparse") %||%
    (reader$kind == "dgCMatrix" || isTRUE(reader$sparse) || mom$nnz <= 0.25 * as.double(d) * n)
  cache <- new.env(parent = emptyenv())
  cache$k <- 0L
  cache$reads <- 0
  # the block of column b (read once while the minibatches stay in it)
  # (a sparse file's block is read as a dgCMatrix: cache$S, and cache$B
  # stays NULL)
  block <- function(b) {
    if (cache$k != b) {
      if (isTRUE(reader$sparse)) {
        cache$S <- reader_block_sparse(reader, b)
        cache$B <- NULL
      } else {
        cache$B <- reader_block(reader, b)
        cache$S <- NULL
      }
      cache$k <- b
      cache$reads <- cache$reads + 1
    }
  }
  fetch <- function(idx) {              # dense columns, for R and the dense solver
    blk <- (idx - 1L) %/% bs + 1L
    out <- matrix(0, d, length(idx))
    for (b in unique(blk)) {
      block(b)
      sel <- blk == b
      cols <- idx[sel] - (b - 1L) * bs
      out[, sel] <- if (is.null(cache$B)) as.matrix(cache$S[, cols, drop = FALSE])
                    else cache$B[, cols, drop = FALSE]
    }
    out
  }
  fetch_sparse <- function(idx) {       # list(p, i, x) of the columns, 0-based
    blk <- (idx - 1L) %/% bs + 1L
    parts <- lapply(unique(blk), function(b) {
      block(b)
      if (is.null(cache$S)) cache$S <- methods::as(cache$B, "CsparseMatrix")
      cache$S[, idx[blk == b] - (b - 1L) * bs, drop = FALSE]
    })
    M <- if (length(parts) == 1L) parts[[1L]] else do.call(cbind, parts)
    pos <- unlist(lapply(unique(blk), function(b) which(blk == b)))
    if (is.unsorted(pos)) M <- M[, order(pos), drop = FALSE]   # back to the order of idx
    list(M@p, M@i, M@x)
  }
  list(d = d, n = n, fun = fetch, fetch = fetch, max_abs = mom$max_abs, reader = reader,
       passes = function() 1 + cache$reads / reader$n_blocks,
       spec = list(Y_call = as.call(list(if (sparse) fetch_sparse else fetch, 1L)),
                   env = baseenv(), block_cols = bs, Y_sparse = sparse))
}

# ---- covariance from a reader (sparse_covariance(), issue 27) -----------
# The sample covariance S (divisor n - 1) of the rows of a reader in one
# pass over its blocks, in order: the column sums and the crossproduct
# around the first block's means (reader_moments()), memory O(p^2), never
# the n x p data. sparse_covariance() then fits from S as from a covariance
# given with `n`.
reader_covariance <- function(x, arg) {
  r <- as_reader(x, "rows", arg)
  if (r$dim[1L] < 2L) stop_arg(arg, "must have at least two rows (observations)")
  if (as.double(r$dim[2L])^2 > 2^31 - 1)
    stop_arg(arg, "has ", r$dim[2L], " columns; its covariance needs p^2 doubles ",
             "(p <= 46340)")
  mom <- reader_moments(r, arg, cov = TRUE)
  nm <- r$dimnames[[2L]]
  if (!is.null(nm)) dimnames(mom$cov) <- list(nm, nm)
  list(S = mom$cov, n = r$dim[1L], passes = 1)
}

# ---------------------------------------------------------------- entries
# Ratings triples (row, col, value) read block by block, for
# complete_matrix(): the reader cuts the N entries into blocks of
# `block_size` consecutive entries (by = "entries") and reads one at a time.

#' Read ratings triples block by block, for matrix completion
#'
#' Wraps observed entries (row, column, value) -- ratings -- in memory or
#' on disk as a reader of blocks of `block_size` consecutive entries, from
#' which [complete_matrix()] (`method = "sfw"` or `"fw"`) streams them: the
#' stochastic method draws the blocks in random order and the entries of a
#' block in random order (the block sampler of [block_reader()]), so that
#' each block is read once per pass.
#'
#' Formats, by what users have:
#' * a data frame with columns `row`, `col`, `value` (named by `columns`),
#'   in memory;
#' * a table of an SQLite database (a `DBIConnection` from
#'   `DBI::dbConnect(RSQLite::SQLite(), file)`, Suggests packages DBI and
#'   RSQLite) named by `table`; a block is a range of its `rowid`s, which
#'   must run 1, 2, ..., N without gaps (a table filled by
#'   `DBI::dbWriteTable()` or `INSERT`s, without deletions; `VACUUM` does not
#'   renumber: copy the table with `CREATE TABLE t2 AS SELECT ...`);
#' * an HDF5 file (a path; Suggests package HDF5Array) with the entries as
#'   one N x 3 data set (`name`, columns row, col, value) or as three 1-d
#'   data sets of length N (`name = c(row = , col = , value = )`), or
#'   directly an N x 3 `HDF5Matrix` / `DelayedArray`. With no `block_size`,
#'   a block is a whole number of the file's chunks along the entries.
#'
#' The draws depend only on N, `block_size` and R's random number
#' generator, not on where the entries are: a fit from the SQLite table or
#' the HDF5 file equals the fit from the same entries as a data frame read
#' with the same `block_size`, under the same seed, bit for bit.
#'
#' Row and column ids must be whole numbers from 1 (number them 1, 2, ...
#' with `match(id, unique(id))` first if they are not), values finite.
#' These are checked block by block, and an error names the block.
#'
#' @param x A data frame, a `DBIConnection` to SQLite, the path of an HDF5
#'   file, or an N x 3 `DelayedArray` (e.g. an `HDF5Matrix`).
#' @param block_size Entries per block, a positive whole number; `NULL`
#'   for the default (\eqn{2^{18}}{2^18} entries, rounded up to whole
#'   chunks of an HDF5 file). Larger blocks read faster; the draws mix only
#'   within a block and across the order of the blocks.
#' @param table For a `DBIConnection`: the name of the table.
#' @param name For an HDF5 file: the data set of the N x 3 entries, or the
#'   three 1-d data sets `c(row = , col = , value = )`.
#' @param columns The names of the row, column and value columns (data
#'   frame or table).
#' @returns A reader of class `c("<kind>_reader", "cg_reader")` with `by =
#'   "entries"`, `dim = c(N, 3)`, `block_size` and `n_blocks`;
#'   `reader_block(reader, k)` gives block `k` as a data frame `row`, `col`,
#'   `value`.
#' @seealso [complete_matrix()], [block_reader()].
#' @examples
#' obs <- data.frame(row = rep(1:20, 10), col = rep(1:10, each = 20),
#'                   value = rnorm(200))
#' r <- entry_reader(obs, block_size = 64)
#' r
#' head(reader_block(r, 2))
#' @export
entry_reader <- function(x, block_size = NULL, table = NULL, name = NULL,
                         columns = c("row", "col", "value")) {
  if (inherits(x, "cg_reader")) {
    if (!identical(x$by, "entries")) stop_arg("x", "is a reader by ", x$by, ", not of entries")
    if (!is.null(block_size)) x <- make_entry_reader(x$kind, x$source, x$dim[1L], block_size,
                                                     x$chunk, x$columns)
    return(x)
  }
  if (!is.character(columns) || length(columns) != 3L || anyNA(columns))
    stop_arg("columns", "must be three names: the row, column and value columns")
  if (is.data.frame(x)) {
    miss <- setdiff(columns, names(x))
    if (length(miss)) stop_arg("x", "has no column ", paste0("`", miss, "`", collapse = ", "),
                               " (see `columns`)")
    if (nrow(x) == 0L) stop_arg("x", "has no entries")
    return(make_entry_reader("data.frame", x[columns], nrow(x), block_size, 1L, columns))
  }
  if (inherits(x, "DBIConnection")) {
    if (!requireNamespace("DBI", quietly = TRUE))
      stop_arg("x", "is a DBI connection, which needs the package DBI")
    if (!is.character(table) || length(table) != 1L || is.na(table))
      stop_arg("table", "must be the name of a table of `x`")
    if (!DBI::dbExistsTable(x, table)) stop_arg("table", "`", table, "` is not a table of `x`")
    miss <- setdiff(columns, DBI::dbListFields(x, table))
    if (length(miss)) stop_arg("table", "`", table, "` has no column ",
                               paste0("`", miss, "`", collapse = ", "), " (see `columns`)")
    tq <- DBI::dbQuoteIdentifier(x, table)
    rng <- tryCatch(DBI::dbGetQuery(x, paste("SELECT min(rowid) AS a, max(rowid) AS b,",
                                             "count(*) AS n FROM", tq)),
                    error = function(e) stop_arg("x", "must be an SQLite connection (a block ",
                                                 "is a range of rowids): ", conditionMessage(e)))
    N <- as.double(rng$n)
    if (N == 0) stop_arg("table", "`", table, "` has no entries")
    if (rng$a != 1 || rng$b != N)
      stop_arg("table", "`", table, "` must have rowids 1, 2, ..., N without gaps (rowids ",
               rng$a, " to ", rng$b, " for ", N, " rows); copy it with CREATE TABLE ... AS ",
               "SELECT")
    if (N > .Machine$integer.max) stop_arg("table", "has more than ", .Machine$integer.max,
                                           " entries")
    sql <- paste0("SELECT ", paste(DBI::dbQuoteIdentifier(x, columns), collapse = ", "),
                  " FROM ", tq, " WHERE rowid BETWEEN ? AND ? ORDER BY rowid")
    return(make_entry_reader("DBI", list(con = x, sql = sql), N, block_size, 1L, columns))
  }
  if (is.character(x) && length(x) == 1L) {
    if (!requireNamespace("HDF5Array", quietly = TRUE))
      stop_arg("x", "is an HDF5 file, which needs the package HDF5Array")
    if (!file.exists(x)) stop_arg("x", "file `", x, "` does not exist")
    if (!is.character(name) || !length(name) %in% c(1L, 3L) || anyNA(name))
      stop_arg("name", "must name the N x 3 data set of the entries, or three 1-d data sets")
    sets <- lapply(name, function(nm) tryCatch(HDF5Array::HDF5Array(x, nm),
      error = function(e) stop_arg("name", "`", nm, "` is not a data set of `", x, "`")))
    if (length(sets) == 1L) x <- sets[[1L]]
    else {
      lens <- vapply(sets, function(s) length(dim(s)) == 1L, TRUE)
      if (!all(lens)) stop_arg("name", "must name three 1-d data sets (row, col, value)")
      N <- length(sets[[1L]])
      if (any(vapply(sets, length, 1) != N))
        stop_arg("name", "data sets of different lengths: ",
                 paste(vapply(sets, length, 1), collapse = ", "))
      chunk <- as.integer(DelayedArray::chunkdim(sets[[1L]])[1L] %||% 1L)
      return(make_entry_reader("HDF5", sets, N, block_size, chunk, columns))
    }
  }
  if (methods::is(x, "DelayedArray")) {
    if (length(dim(x)) != 2L || ncol(x) != 3L)
      stop_arg("x", "must be an N x 3 matrix of entries (row, col, value), not ",
               paste(dim(x), collapse = " x "))
    chunk <- as.integer(DelayedArray::chunkdim(x)[1L] %||% 1L)
    return(make_entry_reader("HDF5", list(x), nrow(x), block_size, chunk, columns))
  }
  stop_arg("x", "must be a data frame, a DBI connection to SQLite with `table`, the path of ",
           "an HDF5 file with `name`, or an N x 3 DelayedArray; not ", class(x)[1L])
}

make_entry_reader <- function(kind, source, N, block_size, chunk, columns) {
  chunk <- max(1L, as.integer(chunk))
  if (is.null(block_size)) {
    block_size <- chunk * max(1, ceiling(2^18 / chunk))
  } else {
    check_count(block_size, "block_size")
  }
  block_size <- as.integer(min(block_size, N))
  structure(list(kind = kind, source = source, dim = c(as.integer(N), 3L), by = "entries",
                 block_size = block_size, n_blocks = as.integer(ceiling(N / block_size)),
                 chunk = chunk, columns = columns, chunkdim = NULL, dimnames = NULL),
            class = c(paste0(kind, "_reader"), "cg_reader"))
}

# block k of an entries reader: data.frame(row, col, value), ids integer,
# checked (an error naming `arg` and the block)
entry_block <- function(reader, k, arg = "Y") {
  idx <- block_index(reader, k)
  a <- idx[1L]; b <- idx[length(idx)]
  src <- reader$source
  out <- switch(reader$kind,
    data.frame = unname(as.list(src[idx, , drop = FALSE])),
    DBI = unname(as.list(DBI::dbGetQuery(src$con, src$sql, params = list(a, b)))),
    HDF5 = if (length(src) == 1L) {
      M <- DelayedArray::extract_array(src[[1L]], list(idx, NULL))
      list(M[, 1L], M[, 2L], M[, 3L])
    } else lapply(src, function(s) as.vector(DelayedArray::extract_array(s, list(idx)))))
  where <- sprintf(" (block %d, entries %.0f to %.0f)", k, a, b)
  if (length(out[[1L]]) != length(idx))
    stop_arg(arg, "gave ", length(out[[1L]]), " entries for block ", k, " of ",
             length(idx), " (changed while being read?)")
  ids <- lapply(1:2, function(j) {
    v <- out[[j]]
    if (!is.numeric(v) && !is.logical(v))
      stop_arg(arg, "column `", reader$columns[j], "` must hold whole numbers, not ",
               class(v)[1L], where)
    if (anyNA(v)) stop_arg(arg, "column `", reader$columns[j], "` contains NA", where)
    if (any(v < 1) || any(v != round(v)) || any(v > .Machine$integer.max))
      stop_arg(arg, "column `", reader$columns[j], "` must hold positive whole numbers up to ",
               .Machine$integer.max, where)
    as.integer(v)
  })
  v <- out[[3L]]
  if (!is.numeric(v) && !is.logical(v))
    stop_arg(arg, "column `", reader$columns[3L], "` must be numeric, not ", class(v)[1L], where)
  v <- as.double(v)
  if (!all_finite(v))
    stop_arg(arg, "column `", reader$columns[3L], "` contains NA, NaN or Inf", where)
  data.frame(row = ids[[1L]], col = ids[[2L]], value = v)
}

# complete_matrix() with Y a reader of entries: two passes find the
# distinct cells (and the dimensions, without `dims`) and check every
# block; the C side then reads the blocks once more in order for the
# per-cell totals, and its stochastic method draws the entries through the
# block sampler (src/prob_completion.c, "reader"). In memory: the cells and
# the solver's per-cell statistics, O(cells + m + n), and one block at a
# time; the passes that find the cells hold one integer per entry (the
# rows grouped by column) until they are sorted and made unique.
reader_completion <- function(Y, radius, family, center, method, batch_size, sampling, step, K,
                              step_size, dims, init, effects_ridge, max_rank, control, call,
                              started, memory = "fast") {
  if (!method %in% c("sfw", "fw"))
    stop_arg("method", "must be \"sfw\" or \"fw\" when `Y` is a reader of entries")
  if (!is.null(init)) stop_arg("init", "must be NULL when `Y` is a reader of entries")
  low <- memory == "low"
  if (low) {                # what the statistics recomputed from the file support
    if (method != "sfw")
      stop_arg("method", "must be \"sfw\" with memory = \"low\" (\"fw\"'s subspace refit ",
               "needs the per-cell statistics)")
    if (center != "none")
      stop_arg("center", "must be \"none\" with memory = \"low\" (the effects' sweeps ",
               "need the per-cell statistics)")
    if (sampling == "replace")
      stop_arg("sampling", "must be \"shuffle\" or \"stream\" with memory = \"low\" (the ",
               "drawn entries are the blocks begun, each drawn once)")
  }
  if (missing(radius)) stop_arg("radius", "is missing, with no default")
  check_radius(radius)
  N <- Y$dim[1L]
  nb <- Y$n_blocks
  dims_given <- !is.null(dims)
  check_value <- function(v, k) {
    if (family == "binomial" && !all(v %in% c(0, 1)))
      stop_arg("Y", "must hold 0/1 values for family = \"binomial\" (block ", k, ")")
    if (family == "poisson" && any(v < 0))
      stop_arg("Y", "must hold non-negative counts for family = \"poisson\" (block ", k, ")")
  }
  dims_in <- if (dims_given) as.integer(check_dims(dims))
  # memory = "low": the garbage of each block read (its data frame, the
  # checks' temporaries, the matrix for C) collected before the next, by a
  # minor collection (milliseconds): R lets garbage grow to a share of its
  # largest heap so far -- at 1e8 ratings that of the cells' passes, which
  # hold one integer per entry -- and the blocks read ~70 times per epoch
  # filled it (a 1e8 fit's peak was 2.05 GB before, the solver's arrays
  # ~1.6 GB of it)
  collect <- if (low) function() invisible(gc(full = FALSE)) else function() NULL
  # the cells, in C (src/prob_completion.c, cg_entry_cells()): two passes
  # (entries per column, and the largest ids without `dims`; then each
  # entry's row into its column), each block checked here in the first
  scan <- function(k, pass) {
    collect()
    B <- entry_block(Y, k)
    if (dims_given && (any(B$row > dims_in[1L]) || any(B$col > dims_in[2L])))
      stop_arg("dims", "is smaller than the largest row or column index in `Y` (block ", k, ")")
    if (pass == 1L) check_value(B$value, k)
    list(B$row, B$col)
  }
  found <- .Call(C_cg_entry_cells, scan, environment(), nb, dims_in, !low)
  cell_row <- found[[1L]]                     # 0-based, sorted by column then row
  cell_col <- found[[2L]]                     # NULL for memory = "low"
  cell_colptr <- found[[4L]]                  # the cells of column j: [colptr[j], colptr[j + 1])
  dims <- found[[3L]]
  rm(found)
  # the passes' one integer per entry (R_alloc'd in the call) is garbage
  # now; collect it before the solver allocates its per-cell arrays, or the
  # peak holds both (4 bytes per entry, about a fifth of the fit's memory
  # at one entry per cell)
  invisible(gc(verbose = FALSE))
  cells <- length(cell_row)
  check_dims_memory(list(dims = dims, row = cell_row, col = cell_col),
                    if (dims_given) "dims" else "Y")
  if (is.null(batch_size)) batch_size <- max(1L, ceiling(N / 100))
  check_count(batch_size, "batch_size")
  step <- default_step(method, step)
  check_count(K, "K")
  check_step_size(step_size, method)
  check_number(effects_ridge, "effects_ridge", min = 0)
  if (effects_ridge > 0 && center != "both")
    stop_arg("effects_ridge", "applies to row and column effects: it needs center = \"both\"")
  if (!is.null(max_rank)) {
    check_count(max_rank, "max_rank", min = 1)
    if (method != "fw")
      stop_arg("max_rank", "needs method = \"fw\" (the cap acts in its subspace refit)")
  }
  control <- as_control(control)
  reads <- 0
  fetch <- function(k) {                    # block k as (row, col, value)
    reads <<- reads + 1
    collect()
    B <- entry_block(Y, k)
    cbind(B$row, B$col, B$value)
  }
  spec <- c(completion_settings(method, step, K, step_size, family, radius, control,
                                max_rank, batch_size, N, sampling),
            list(m = dims[1L], n = dims[2L],
               cell_row = cell_row, cell_col = cell_col,
               cell_colptr = if (low) cell_colptr, low_memory = low,
               n_entries = as.integer(N), dense_iterate = FALSE,
               center = match(center, c("none", "mean", "both")) - 1L,
               effects_ridge = as.double(effects_ridge),
               reader_call = as.call(list(fetch, 1L)), reader_env = environment(),
               block_size = Y$block_size))
  fit <- cg_run(spec, control, "complete_matrix", call, started)
  sol <- fit$solution
  fit <- completion_solution(fit)
  fit$center <- list(type = center, mean = sol$mu, row = sol$row, col = sol$col)
  fit$state <- NULL                         # no resume from a reader (init = NULL)
  fit$effects_ridge <- effects_ridge
  fit$notes <- c(completion_model_note(family, fit$center, effects_ridge),
                 sprintf(paste("rank %d: %d atoms dropped when their weight reached zero",
                               "(descent steps; no truncation, the objective and gap are",
                               "those of X)"), fit$rank, fit$dropped),
                 data = sprintf("Y: %.0f entries in %d cells, read by %d blocks of %d",
                                as.double(N), cells, nb, Y$block_size))
  fit$family <- family
  fit$dims <- dims
  fit$radius <- radius
  # passes over the entries: the cells' (and the dimensions'), then the
  # solver's (per-cell totals and blocks drawn)
  fit$reader <- list(kind = Y$kind, n_entries = N, cells = cells, block_size = Y$block_size,
                     n_blocks = nb, passes = 2 + reads / nb, memory = memory)
  class(fit) <- c("complete_matrix_fit", "cg_fit")
  finish_fit(fit, started)
}
