#' Solve a semidefinite program by a conditional-gradient method
#'
#' Solves the SDP template (2) of paper 003,
#' \deqn{\min_X \langle C, X\rangle \;\; \text{s.t.}\;\; \langle A_i, X\rangle
#'   = b_i \text{ or } \le b_i,\; X \succeq 0,\; \mathrm{tr}\,X = \alpha
#'   \text{ (or } \le \alpha),}{min <C, X> s.t. <A_i, X> = b_i or <= b_i, X
#'   psd, tr X = alpha (or <= alpha),}
#' by the conditional-gradient augmented Lagrangian (`method = "cgal"`, see
#' [kmeans_sdp()] for the algorithm, its normalization and `beta0`): one
#' smallest eigenvector of an \eqn{n \times n}{n x n} matrix per iteration,
#' the constraints applied as one sparse matrix.
#'
#' The problem is solved in normalized units: \eqn{C / \|C\|_F}{C /
#' ||C||_F}, \eqn{X / \alpha}{X / alpha}, the constraint map divided by its
#' operator norm (largest singular value of the \eqn{m \times n^2}{m x n^2}
#' constraint matrix). `gap` is the objective minus a Lagrangian lower bound
#' on the optimum (weak duality with the method's multipliers, one smallest
#' eigenvalue), so `lower_bound` is certified; `infeasibility` is the
#' distance of \eqn{(\langle A_i, X\rangle)_i}{(<A_i, X>)_i} to the
#' constraint set, and `converged` needs both the relative gap and the
#' infeasibility relative to \eqn{\max(1, \|b\|)}{max(1, ||b||)} below
#' `control$tol`.
#'
#' **Infeasible constraints.** For feasible problems the certified lower
#' bound never exceeds \eqn{\alpha \lambda_{\max}(C)}{alpha lambda_max(C)},
#' the largest value of \eqn{\langle C, X\rangle}{<C, X>} over the
#' spectrahedron (its positive part when `trace = "<="`). A bound above it
#' proves that no \eqn{X} meets the constraints: the fit then has status
#' `"infeasible"`, says so in its message and warns.
#'
#' Memory: three dense \eqn{n \times n}{n x n} arrays (cost, iterate,
#' gradient) and the constraint matrix (twice, by columns and by rows, for
#' the sampling methods, which read single rows and keep
#' \eqn{(\langle A_i, X\rangle)_i}{(<A_i, X>)_i} only for the trace).
#'
#' @param C The cost: a symmetric \eqn{n \times n}{n x n} numeric matrix or
#'   `Matrix`.
#' @param A The constraints: a list of \eqn{m} symmetric \eqn{n \times
#'   n}{n x n} matrices (dense or `Matrix`), or a sparse \eqn{m \times
#'   n^2}{m x n^2} matrix whose row \eqn{i} is the column-major
#'   \eqn{\mathrm{vec}(A_i)}{vec(A_i)}; `NULL` or an empty list for none.
#' @param b Right-hand sides, length \eqn{m}.
#' @param type `"="` or `"<="`, one per constraint or one for all.
#' @param trace_bound \eqn{\alpha > 0}{alpha > 0}.
#' @param trace `"="` (default) or `"<="`: the trace constraint.
#' @param method `"cgal"` (default), `"hsagcgm_v1"`, `"hsagcgm_v2"`,
#'   `"h1sfw"` or `"hspider"` (see [kmeans_sdp()]); the last three sample
#'   constraint rows (at least one is needed).
#' @param batch_size For `"hsagcgm_v2"` and `"h1sfw"`: rows drawn per iteration
#'   (default 5% of \eqn{m}).
#' @param beta0 `"auto"` (default; the rules of [kmeans_sdp()], adaptive for
#'   `"hsagcgm_v1"`) or a positive number, in normalized units.
#' @param init `NULL`, or a previous fit of this function on the same
#'   problem: its state (the iterate, the multipliers, the iteration count,
#'   the last `beta0`, and the sampling methods' estimator) starts this fit,
#'   which continues it: with the same settings and the whole state, the fit
#'   of one longer run, bit for bit, as for [kmeans_sdp()] (whose `init`
#'   says more). The state is kept in `fit$state`: the iterate (\eqn{n^2}
#'   doubles) and \eqn{2m} for \eqn{A W} and the multipliers; the sampling
#'   methods add their estimate (\eqn{n^2}), `"hspider"` the previous
#'   iterate (\eqn{n^2}) and `"hsagcgm_v2"` its SAG table (\eqn{m} doubles
#'   when \eqn{m \le 2 n^2}{m <= 2 n^2}, else two per stored entry); set it
#'   to `NULL` to drop it.
#' @param control Solver settings from [cg_control()] (`tol` default here
#'   `1e-3`, `max_iter` 5000).
#' @returns A fit of class `c("sdp_fit", "cg_fit")`: `solution$X` a
#'   [lowrank] (eigen-factors of the final iterate, eigenvalues below
#'   \eqn{10^{-8}}{1e-8} times the largest dropped), `dual` (the method's
#'   multipliers, in the units of the stated problem, clipped to
#'   \eqn{\ge 0}{>= 0} on inequality rows), `lower_bound`, `infeasibility`.
#' @references Yurtsever, A., Fercoq, O. and Cevher, V. (2019). A
#'   conditional-gradient-based augmented Lagrangian framework. ICML.
#' @examples
#' # the MaxCut SDP of the complete graph K_6: max 1/4 sum W_ij (1 - X_ij)
#' # with diag X = 1, i.e. min <W/4, X>; its value is n^2/4 = 9
#' n <- 6
#' W <- matrix(1, n, n) - diag(n)
#' A <- lapply(seq_len(n), function(i) { E <- matrix(0, n, n); E[i, i] <- 1; E })
#' fit <- sdp_solve(W / 4, A, b = rep(1, n), trace_bound = n)
#' sum(W) / 4 - fit$objective        # the cut value: 9
#' @export
sdp_solve <- function(C, A, b, type = "=", trace_bound, trace = c("=", "<="),
                      method = c("cgal", "hsagcgm_v1", "hsagcgm_v2", "h1sfw", "hspider"),
                      beta0 = "auto", batch_size = NULL, init = NULL,
                      control = cg_control()) {
  started <- wall_clock()
  call <- match.call()
  if (!(is.matrix(C) && is.numeric(C)) && !inherits(C, "Matrix"))
    stop_arg("C", "must be a numeric matrix or a Matrix object")
  n <- nrow(C)
  if (n < 1L || ncol(C) != n) stop_arg("C", "must be a square matrix")
  C <- as.matrix(C)
  if (!all_finite(C)) stop_arg("C", "contains NA, NaN or Inf")
  if (!is_symmetric_matrix(C, tol = 1e-8)) stop_arg("C", "must be symmetric")
  C <- (C + t(C)) / 2
  Amat <- constraint_matrix(A, n)
  m <- nrow(Amat)
  if (!is.numeric(b) || length(b) != m || !all_finite(b))
    stop_arg("b", "must be ", m, " finite numbers (one per constraint)")
  if (!is.character(type) || !all(type %in% c("=", "<=")) || !(length(type) %in% c(1L, m)))
    stop_arg("type", "must be \"=\" or \"<=\", one per constraint or one for all")
  check_number(trace_bound, "trace_bound", min = 0, strict_min = TRUE)
  trace <- match_choice(trace, c("=", "<="), "trace")
  method <- match_choice(method, homotopy_methods, "method")
  if (m == 0L && method %in% c("hsagcgm_v2", "h1sfw", "hspider"))
    stop_arg("method", "\"", method, "\" samples constraint rows, and there are none: use \"cgal\"")
  batch <- row_batch(batch_size, max(m, 1L))
  control <- as_control(control, max_iter = 5000L, tol = 1e-3)
  alpha <- as.double(trace_bound)
  norm_C <- sqrt(sum(C^2))
  if (!(norm_C > 0)) norm_C <- 1
  norm_A <- if (m > 0L) operator_norm(Amat) else 1
  if (!(norm_A > 0)) norm_A <- 1
  s <- 1 / norm_A
  An <- Amat * s
  b0 <- check_beta0(beta0, method, function() {
    if (m == 0L) return(NA)
    e <- min_eigen(C / norm_C)
    W1 <- if (trace == "=" || e$value < 0) tcrossprod(e$vector) else matrix(0, n, n)
    z <- as.vector(An %*% as.vector(W1))
    bn <- as.double(b) * s / alpha
    eq <- rep_len(type, m) == "="
    r <- z - ifelse(eq, bn, pmin(z, bn))
    sqrt(sum(as.vector(Matrix::crossprod(An, r))^2))
  })
  spec <- list(problem = "sdp", method = method, C = C / norm_C,
               A_p = An@p, A_i = An@i, A_x = An@x,
               b = as.double(b) * s / alpha, eq = as.integer(rep_len(type, m) == "="),
               trace_eq = trace == "=", obj_scale = norm_C * alpha,
               infeas_scale = alpha * norm_A, b_norm = sqrt(sum(b^2)), beta0 = b0[["beta0"]],
               batch_constraints = batch, beta0_adapt = b0[["adapt"]])
  if (method %in% c("hsagcgm_v2", "h1sfw", "hspider")) {   # the rows, for sampling
    At <- Matrix::t(An)
    spec$At_p <- At@p; spec$At_i <- At@i; spec$At_x <- At@x
  }
  fit <- sdp_run(spec, control, "sdp_solve", "sdp_fit", call, started, init, n, m,
                 data = c(n, m, sum(C), sum(An@x), sum(An@i), sum(b), trace == "=", spec$eq))
  fit$infeasibility <- fit$trace$infeasibility[nrow(fit$trace)]
  X <- alpha * fit$solution$W
  y <- norm_C * s * fit$solution$y
  y[spec$eq == 0L] <- pmax(y[spec$eq == 0L], 0)
  fit$solution <- list(X = psd_factors(X))
  fit$dual <- y
  fit$lower_bound <- fit$objective - fit$gap
  fit <- certify_infeasible(fit, C, alpha, trace)
  class(fit) <- c("sdp_fit", "cg_fit")
  finish_fit(fit, started)
}

# Infeasibility certificate: the Lagrangian bound is a lower bound on <C, X>
# over every feasible X, while <C, X> <= alpha lambda_max(C) (or its
# positive part when tr X <= alpha) over the whole spectrahedron. A bound
# above that maximum proves that no X satisfies the constraints.
certify_infeasible <- function(fit, C, alpha, trace) {
  if (!is.finite(fit$lower_bound)) return(fit)
  n <- nrow(C)
  top <- if (n <= 200L) eigen(C, symmetric = TRUE, only.values = TRUE)$values[1L] else
    RSpectra::eigs_sym(C, 1L, which = "LA", opts = list(retvec = FALSE))$values[1L]
  top <- alpha * if (trace == "<=") max(top, 0) else top
  margin <- 1e-6 * max(1, abs(top))
  if (fit$lower_bound > top + margin) {
    fit$status <- "infeasible"
    fit$converged <- FALSE
    fit$message <- sprintf(paste0("the constraints cannot be met: the certified lower bound %s ",
                                  "exceeds %s, the largest value of <C, X> over the ",
                                  "spectrahedron (infeasibility %s)"),
                           fmt_num(fit$lower_bound), fmt_num(top), fmt_num(fit$infeasibility, 3))
    warning("sdp_solve: ", fit$message, call. = FALSE)
  }
  fit
}

# the m x n^2 constraint matrix (dgCMatrix, row i = vec(A_i), symmetrized)
constraint_matrix <- function(A, n) {
  if (is.null(A) || (is.list(A) && length(A) == 0L))
    return(Matrix::sparseMatrix(i = integer(0), j = integer(0), x = numeric(0),
                                dims = c(0L, n * n)))
  if (is.list(A)) {
    parts <- lapply(seq_along(A), function(k) {
      Ak <- A[[k]]
      if (!(is.matrix(Ak) && is.numeric(Ak)) && !inherits(Ak, "Matrix"))
        stop_arg("A", "must be a list of numeric matrices (element ", k, " is not)")
      if (nrow(Ak) != n || ncol(Ak) != n)
        stop_arg("A", "must hold ", n, " x ", n, " matrices (element ", k, " is ",
                 nrow(Ak), " x ", ncol(Ak), ")")
      T <- methods::as(methods::as(Matrix::Matrix((Ak + t(Ak)) / 2, sparse = TRUE),
                                   "generalMatrix"), "TsparseMatrix")
      if (!all_finite(T@x)) stop_arg("A", "contains NA, NaN or Inf (element ", k, ")")
      list(i = rep(k, length(T@x)), j = T@i + 1L + n * T@j, x = T@x)
    })
    return(Matrix::sparseMatrix(i = unlist(lapply(parts, `[[`, "i")),
                                j = unlist(lapply(parts, `[[`, "j")),
                                x = unlist(lapply(parts, `[[`, "x")),
                                dims = c(length(A), n * n)))
  }
  if ((is.matrix(A) && is.numeric(A)) || inherits(A, "Matrix")) {
    if (ncol(A) != n * n) stop_arg("A", "must have n^2 = ", n * n, " columns (vec of each A_i)")
    A <- methods::as(methods::as(Matrix::Matrix(A, sparse = TRUE), "generalMatrix"),
                     "CsparseMatrix")
    if (!all_finite(A@x)) stop_arg("A", "contains NA, NaN or Inf")
    # symmetrize each row: vec(A_i) and vec(A_i') averaged
    perm <- as.vector(t(matrix(seq_len(n * n), n)))
    return((A + A[, perm, drop = FALSE]) / 2)
  }
  stop_arg("A", "must be a list of matrices or an m x n^2 matrix")
}

# largest singular value of a sparse matrix
operator_norm <- function(A) {
  if (min(dim(A)) <= 50L) {
    G <- if (nrow(A) <= ncol(A)) Matrix::tcrossprod(A) else Matrix::crossprod(A)
    return(sqrt(max(eigen(as.matrix(G), symmetric = TRUE, only.values = TRUE)$values)))
  }
  RSpectra::svds(A, 1L, nu = 0L, nv = 0L)$d[1L]
}

# X (symmetric psd up to rounding) as a lowrank u diag(d) u'
psd_factors <- function(X) {
  n <- nrow(X)
  k <- 50L
  repeat {         # top-k eigenpairs, k doubled until the rank is covered
    e <- if (n <= 1000L || 2L * k >= n) eigen(X, symmetric = TRUE) else
      RSpectra::eigs_sym(X, k, which = "LA")
    tol <- 1e-8 * max(e$values[1L], 0)
    if (length(e$values) == n || e$values[k] <= tol) break
    k <- 2L * k
  }
  keep <- e$values > tol
  lowrank(e$vectors[, keep, drop = FALSE], e$values[keep], e$vectors[, keep, drop = FALSE])
}

# One SDP fit through cg_run, continuing `init` (a previous fit of class
# `class`) when given: its state (raw iterate, A W, multipliers, penalty,
# passes; hspider's previous iterate), its iteration count (the methods'
# schedules count on) and, when the run continues it exactly (same problem
# `data` and settings, and the whole state), its last beta0 (an adapted
# "auto" goes on) and the sampling methods' row estimator (state_solver:
# E and the SAG table). The state is moved from the solution into
# fit$state; key$parts names its parts, and a continued fit's trace joins
# its init's. `rows`: the constraint rows the sampling methods draw from.
sdp_run <- function(spec, control, problem, class, call, started, init, n, rows, data) {
  key <- list(method = spec$method, beta0 = spec$beta0, adapt = spec$beta0_adapt,
              batch = spec$batch_constraints, data = data)
  start <- NULL
  if (!is.null(init)) {
    if (!inherits(init, class)) stop_arg("init", "must be NULL or a fit of ", problem, "()")
    st <- init$state
    if (is.null(st$state_W) || length(st$state_W) != as.double(n) * n)
      stop_arg("init", "has no state for a problem of this size (a fit of other data, or ",
               "its `state` dropped?)")
    if (!identical(st$key$data, data)) stop_arg("init", "is a fit of another problem")
    parts <- st$key$parts
    st <- st[!vapply(st, is.null, NA)]
    iter <- as.integer(init$iterations)
    exact <- identical(st$key[names(key)], key) && is.character(parts) &&
      all(parts %in% names(st))
    if (!is.null(st$state_W_prev) && length(st$state_W_prev) != as.double(n) * n)
      stop_arg("init", "has an invalid `state$state_W_prev` (altered by hand?)")
    if (!is.null(st$state_Md) && (length(st$state_Md) != as.double(n) * n ||
                                  !is.double(st$state_Md) || any(st$state_Md > 0)))
      stop_arg("init", "has an invalid `state$state_Md` (altered by hand?)")
    if (exact && !is.null(st$state_solver)) check_rows_state(st$state_solver, n, rows)
    start <- list(iter = iter, exact = exact)
    # a warm start restarts the estimator (another method's or settings' is no use)
    keep <- setdiff(names(st), c("key", if (!exact) "state_solver"))
    spec <- c(spec, st[keep], list(iter_offset = iter))
    if (exact && is.numeric(init$beta0)) spec$beta0 <- init$beta0
  }
  fit <- cg_run(spec, control, problem, call, started)
  sol <- fit$solution
  is_state <- startsWith(names(sol), "state_")
  state <- sol[is_state]
  key$parts <- names(state)[!vapply(state, is.null, NA)]
  fit$state <- c(state, list(key = key))
  fit$solution <- sol[!is_state]
  if (!is.null(start)) {
    fit <- continue_trace(fit, init, start)
    fit$notes <- c(fit$notes, if (start$exact) continued_note(start$iter) else sprintf(
      "warm start from a fit of %d iterations with other settings or part of its state dropped",
      start$iter))
  }
  fit
}

# The sampling methods' estimator state of an init (E, n^2 values; the SAG
# table over the `rows` constraint rows, dense or its nonzero entries),
# checked in R so that a state altered by hand is an error naming `init`
check_rows_state <- function(s, n, rows) {
  real <- function(x, len = length(x)) is.double(x) && length(x) == len && all_finite(x)
  ok <- is.list(s) && real(s$E, as.double(n) * n) && (is.null(s$sag) || real(s$sag, rows)) &&
    (is.null(s$sag_rows) || (real(s$sag_rows) && real(s$sag_vals, length(s$sag_rows)) &&
                              !is.unsorted(s$sag_rows, strictly = TRUE) &&
                              all(s$sag_rows >= 0 & s$sag_rows < rows &
                                  s$sag_rows == floor(s$sag_rows) & s$sag_vals != 0)))
  if (!ok) stop_arg("init", "has an invalid `state$state_solver` (altered by hand?)")
  invisible(s)
}

#' @method print sdp_fit
#' @export
print.sdp_fit <- function(x, ...) {
  cat(fit_header(x), sep = "\n")
  cat(sprintf("SDP with %d constraints: value %s, certified lower bound %s (weak duality)\n",
              length(x$dual), fmt_num(x$objective), fmt_num(x$lower_bound)))
  invisible(x)
}
