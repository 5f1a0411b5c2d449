# Methods shared by every solver's result (class c("<problem>_fit", "cg_fit")).
# Solvers build the fit; everything here only reads it.

#' Fitted conditional-gradient models
#'
#' @description
#' Every problem-level function of the package (e.g. [sparse_regression()],
#' [complete_matrix()]) returns a fit of class `c("<problem>_fit", "cg_fit")`,
#' for example `c("sparse_regression_fit", "cg_fit")`. Fits have `print()`,
#' [summary()][summary.cg_fit()], [plot()][plot.cg_fit()],
#' [coef()][coef.cg_fit()] and [fitted()][fitted.cg_fit()] methods, and
#' [predict()][predict.sparse_regression_fit()] methods where predicting makes
#' sense.
#'
#' The reported `gap` is always the true Frank-Wolfe duality gap at the
#' returned iterate, computed with a full gradient; a gap computed from a
#' stochastic gradient is not a certificate and is never reported. When the
#' full gradient was not evaluated, `gap` is `NA`. For the semidefinite
#' programs ([kmeans_sdp()], [sdp_solve()], [sparsest_cut_sdp()]) `gap` is
#' the objective minus a certified Lagrangian lower bound on the optimum
#' (`lower_bound`), which bounds the suboptimality as the `infeasibility`
#' vanishes; `converged` needs both below `tol`. [stochastic_mf()] solves a
#' non-convex problem: its `gap` is the norm of the proximal gradient
#' mapping (a stationarity measure, zero exactly at stationary points), not
#' a duality gap.
#'
#' @returns A fit is a list with elements:
#' \describe{
#'   \item{`solution`}{Named list of estimates. The first element is the main
#'     estimate: the numeric coefficient vector `beta` for regression, a
#'     [lowrank] object `X` for matrix problems; further elements hold other
#'     parts (e.g. `Y` for robust PCA, `W` for factorization).}
#'   \item{`objective`}{Objective value at the solution.}
#'   \item{`gap`}{Frank-Wolfe duality gap at the solution, or `NA`.}
#'   \item{`infeasibility`}{Constraint violation (semidefinite programs);
#'     `NA` otherwise.}
#'   \item{`trace`}{Data frame with one row per recorded iteration and
#'     columns `iter`, `epoch` (passes over the data), `time` (solver seconds
#'     so far), `objective`, `gap`, `infeasibility`, `n_grad` (stochastic
#'     gradients used so far), `n_lmo` (linear minimization oracle calls),
#'     `svd_rank` (rank of the partial SVD in the last oracle) and `n_matvec`
#'     (matrix-vector products so far). `objective` and `gap` are `NA` in
#'     rows where they were not evaluated (see `eval_every` in `control`).}
#'   \item{`method`}{Name of the algorithm, e.g. `"sfw"`.}
#'   \item{`problem`}{Name of the problem, e.g. `"sparse_regression"`,
#'     `"complete_matrix"`.}
#'   \item{`control`}{List of the control settings used: `max_iter`,
#'     `max_time`, `tol`, `eval_every`, `progress`, `verbose`.}
#'   \item{`converged`}{`TRUE` if the stopping tolerance was met.}
#'   \item{`status`}{One of `"converged"`, `"max_iter"`, `"max_time"`,
#'     `"interrupted"` (Ctrl-C, also inside a sampler or a long SVD),
#'     `"error"` (a numerical failure, e.g. an objective or gradient that
#'     overflowed, or an error in a sampler; also given as a warning). After
#'     an interrupt or an error the fit holds the last complete iterate.}
#'   \item{`message`}{Human-readable explanation of `status`; for `"error"`
#'     it says what failed and what to change.}
#'   \item{`iterations`}{Number of iterations run (integer).}
#'   \item{`time`}{Wall-clock seconds of the whole call: argument checks,
#'     set-up, the solver, the trace evaluations and the assembly of the fit.}
#'   \item{`solver_time`}{Seconds spent in the solver's own iterations, the
#'     trace's `time` clock: it leaves out the evaluations made only for the
#'     trace, so that methods compare by their own work.}
#'   \item{`call`}{The matched call.}
#' }
#' Regression fits (`sparse_regression_fit`) also hold `intercept` (the
#' unpenalized intercept \eqn{a}{a}, 0 with `intercept = FALSE`),
#' `x_center` (the column means of `X` the fit centred by, or `NULL`),
#' `fitted.values` (numeric, \eqn{a + X\beta}{a + X beta} on the training
#' rows), `y`, `radius` (the \eqn{\ell_1}{l1} ball radius) and `nobs`
#' (number of observations).
#'
#' Matrix completion fits (`complete_matrix_fit`) also hold
#' \describe{
#'   \item{`family`}{`"gaussian"`, `"poisson"` or `"binomial"`.}
#'   \item{`dims`}{`c(m, n)`, the size of the completed matrix.}
#'   \item{`radius`}{The nuclear-norm ball radius.}
#'   \item{`center`}{List with `type` (`"none"`, `"mean"` or `"both"`),
#'     `mean` (a number), `row` (numeric, length \eqn{m}) and `col` (numeric,
#'     length \eqn{n}): the intercept and effects fitted jointly with `X`,
#'     included by [predict()][predict.complete_matrix_fit()].}
#'   \item{`fitted.values`, `linear.predictors`}{At the observed entries, as
#'     in [glm()]: the fitted mean (response scale) and the linear
#'     predictor, effects included.}
#'   \item{`obs`}{Data frame with columns `row`, `col` and `value` of the
#'     observed entries, in the order of `fitted.values`.}
#'   \item{`state`}{The solver's state, for `init` (see [complete_matrix()]).}
#'   \item{`rank`}{Rank of `solution$X`.}
#'   \item{`dropped`}{Number of atoms dropped during the run by the
#'     rank control of `"fw"` and `"sfw"` (see [complete_matrix()]), `NA`
#'     for `"spg"`.}
#' }
#'
#' Fits of [lowrank_sparse()] (also on [covariance_rows()]), [lowrank_constrained()]
#' and [matrix_sensing()] also have:
#' \describe{
#'   \item{`certified_rank`}{Rank certified by the last weak proximal step of
#'     `"svrgcg"` (the rank-\eqn{r} step equalled the exact proximal step), or
#'     `NA`.}
#'   \item{`radius`, `set`, `mu`}{Constraint radius, `"nuclear"` or `"psd"`,
#'     and the final smoothing parameter.}
#'   \item{`smoothing`}{List: `mu_start`, `mu` (final) and `continuation`
#'     (`TRUE` when `mu` was decreased automatically, i.e. not given).}
#'   \item{`parameters`}{The SVRGCG parameters used: `step_size`, `inner`,
#'     `batch_size`, `snapshot_batch_size`, `alpha`, `beta`.}
#' }
#' For these fits `objective` is the stated nonsmooth objective and `gap`
#' bounds objective minus optimum of that stated problem (the smoothed
#' Frank-Wolfe gap plus the smoothing's dual residual at the solution; see
#' [lowrank_sparse()]).
#' @seealso [summary.cg_fit()], [plot.cg_fit()], [coef.cg_fit()],
#'   [predict.sparse_regression_fit()], [predict.complete_matrix_fit()],
#'   [lowrank()].
#' @examples
#' set.seed(1)
#' X <- matrix(rnorm(100 * 20), 100, 20)
#' y <- drop(X[, 1:3] %*% c(3, -2, 1.5) + rnorm(100))
#' fit <- sparse_regression(X, y, radius = 6)
#' names(fit)
#' c(objective = fit$objective, gap = fit$gap, converged = fit$converged)
#' tail(fit$trace, 3)
#' @name cg_fit
NULL

# One-line description of a solution component (vector, lowrank, matrix).
describe_component <- function(name, value, radius = NULL) {
  rad <- if (is.null(radius)) "" else sprintf(" (radius %s)", format(radius, digits = 4))
  if (inherits(value, "lowrank")) {
    check_lowrank(value, paste0("solution$", name))
    dims <- c(nrow(value$u), nrow(value$v))
    s <- lowrank_singular_values(value)
    sprintf("%s: %d x %d low-rank matrix, rank %d, nuclear norm %s%s",
            name, dims[1], dims[2], length(s), format(sum(s), digits = 4),
            rad)
  } else if (is.numeric(value) && is.null(dim(value))) {
    sprintf("%s: %d of %d nonzero, l1 norm %s%s", name,
            sum(value != 0), length(value),
            format(sum(abs(value)), digits = 4), rad)
  } else if (is.matrix(value) || inherits(value, "Matrix")) {
    nnz <- if (inherits(value, "sparseMatrix")) {
      Matrix::nnzero(value)
    } else {
      sum(as.matrix(value) != 0)
    }
    sprintf("%s: %d x %d matrix, %d nonzero (%s)", name, nrow(value),
            ncol(value), nnz, fmt_share(nnz / prod(dim(value))))
  } else {
    sprintf("%s: object of class %s", name, class(value)[1L])
  }
}

# A share as a percentage that never rounds to 0% or 100% when it is not.
fmt_share <- function(z) {
  if (is.na(z)) return("NA")
  s <- sprintf("%.3g%%", 100 * z)
  if (z > 0 && s == "0%") s <- "<0.001%"
  if (z < 1 && s == "100%") s <- ">99.9%"
  s
}

# Format a number for the header lines; NA stays readable.
fmt_num <- function(x, digits = 6) {
  if (is.null(x) || length(x) == 0L || is.na(x)) return("NA")
  format(x, digits = digits)
}

# The certificate line. A negative duality gap is not a bound to print as
# is: within rounding of the objective it is 0; larger, the objective lies
# below the certified lower bound, which only an infeasible iterate can
# (the SDPs' homotopy iterates: their infeasibility line follows).
fmt_certificate <- function(x, cert) {
  gap <- x$gap %||% NA
  if (is.na(gap)) return(sprintf("Certificate: none (%s)", x$gap_note %||% "not evaluated"))
  if (gap >= 0 || !identical(cert[1], "duality gap"))
    return(sprintf("Certificate: %s %s (%s)", cert[1], fmt_num(gap, 4), cert[2]))
  if (-gap <= 1e-6 * max(abs(x$objective), 1))
    return(sprintf("Certificate: duality gap 0 (computed %s: rounding; the objective is optimal to that)",
                   fmt_num(gap, 2)))
  sprintf(paste("Certificate: the objective lies %s below the certified lower bound %s:",
                "the iterate is not yet feasible"), fmt_num(-gap, 4), fmt_num(x$objective - gap))
}

# Header lines shared by print() and print(summary()): one layout for every
# fit. Problem and method, status, iterations and wall time, objective, the
# certificate and what it certifies (`x$certificate`: c(name, meaning) set
# at fit time where `gap` is not a duality gap), then one line per part of
# the solution (shape, rank, sparsity), with the fit's notes on a part
# (notes named like the part) on that part's line.
fit_header <- function(x) {
  cert <- x$certificate %||% c("duality gap", "objective minus optimum is at most this")
  lines <- c(
    sprintf("%s fit (method \"%s\")", fmt_problem(x$problem), x$method),
    sprintf("Status: %s%s", x$status,
            if (nzchar(x$message %||% "")) paste0(" -- ", x$message) else ""),
    sprintf("Iterations: %s in %s s%s", fmt_num(x$iterations),
            fmt_num(x$time, 3), fmt_solver_time(x$time, x$solver_time)),
    sprintf("Objective: %s", fmt_num(x$objective)),
    fmt_certificate(x, cert)
  )
  if (!is.na(x$infeasibility %||% NA)) {
    lines <- c(lines, sprintf("Infeasibility: %s", fmt_num(x$infeasibility, 4)))
  }
  sol <- x$solution
  notes <- x$notes
  if (length(sol) > 0L) {
    nms <- names(sol) %||% rep("", length(sol))
    nms[!nzchar(nms)] <- paste0("[[", which(!nzchar(nms)), "]]")
    desc <- vapply(seq_along(sol), function(k) {
      # the radius constrains the main estimate only
      d <- describe_component(nms[k], sol[[k]], if (k == 1L) x$radius else NULL)
      on_part <- names(notes) %in% nms[k]
      if (any(on_part)) d <- paste(c(d, notes[on_part]), collapse = "; ")
      d
    }, "")
    if (!is.null(names(notes))) notes <- notes[!names(notes) %in% nms]
    lines <- c(lines, "Solution:", paste0("  ", desc))
    # smoothed composite fits: exact zeros are rare, so say what is small
    # (not after lowrank_sparse's dual refit: X is then an exact projection)
    # (nor without a nonsmooth term: matrix_sensing(lambda1 = 0))
    refit <- isTRUE(x$refit$used)
    if (!is.null(x$mu) && is.matrix(sol[[1]]) && !refit && !isFALSE(x$smoothing$smoothed)) {
      X <- sol[[1]]
      lines <- c(lines, sprintf(
        "  %d of %d entries above mu = %s in absolute value (nonsmooth terms are smoothed)",
        sum(abs(X) > x$mu), length(X), format(x$mu, digits = 3)))
    }
    # NA: not certified (rank capped), or no proximal step on X (methods
    # with rank-one steps only), where the line would say nothing
    prox <- x$method %in% c("svrgcg", "alt_cgpg", "altmin")
    # robust PCA says what its certified rank means in its notes
    if (!is.null(x$certified_rank) && (prox || !is.na(x$certified_rank)) &&
        !inherits(x, "robust_pca_fit"))
      # X moves part way towards each proximal point, so its own rank can
      # exceed the step's (matrix_sensing: a certified step of rank 1, X of
      # numerical rank 8): say what is certified, of what
      lines <- c(lines, if (refit)
        sprintf("  rank %s: X is the %s's point (%d steps)",
                fmt_num(x$certified_rank), x$refit$kind, x$refit$steps)
      else if (is.na(x$certified_rank))
        "  last proximal step: rank not certified (capped by max_rank)"
      else sprintf("  last proximal step: rank %s, certified exact (X combines such steps; its own rank can be higher)",
                   fmt_num(x$certified_rank)))
  }
  # problem-specific lines made at fit time
  if (length(notes)) lines <- c(lines, paste0("  ", notes))
  lines
}

# the solver's own time, when the rest of the call is a noticeable share
fmt_solver_time <- function(time, solver_time) {
  if (is.null(solver_time) || is.na(solver_time) || is.na(time) ||
      time - solver_time <= max(0.1 * time, 0.005)) return("")
  sprintf(" (solver %s s; the rest: set-up and trace evaluations)",
          fmt_num(solver_time, 3))
}

fmt_problem <- function(problem) {
  if (is.null(problem) || !nzchar(problem)) "cg" else problem
}


#' Print and summarize a fitted model
#'
#' `print()` shows one screen: problem, method, status and message,
#' iterations, time (wall clock, and the solver's own time when the two
#' differ by more than 10%), final objective, duality gap and a one-line
#' description of each part of the solution (number of nonzeros and
#' \eqn{\ell_1}{l1} norm for vectors; rank and nuclear norm for low-rank
#' matrices). `summary()` adds a short table of the convergence trace at
#' about six evenly spaced evaluated iterations and the work counters.
#'
#' @param x,object A [cg_fit] object (for `print.summary.cg_fit()`, a
#'   `summary.cg_fit` object).
#' @param rows Approximate number of trace rows to show: a whole number, at
#'   least 1.
#' @param ... Unused.
#' @returns `print()` returns its argument invisibly. `summary()` returns an
#'   object of class `summary.cg_fit`: a list with `header` (character lines
#'   as printed by `print()`), `trace` (the selected rows of the trace, a data
#'   frame), `n_trace` (number of rows in the full trace) and `work` (named
#'   numeric vector of the final `n_grad`, `n_lmo` and `n_matvec`).
#' @seealso [cg_fit] for the elements of a fit, [plot.cg_fit()].
#' @examples
#' set.seed(1)
#' X <- matrix(rnorm(100 * 20), 100, 20)
#' y <- drop(X[, 1:3] %*% c(3, -2, 1.5) + rnorm(100))
#' fit <- sparse_regression(X, y, radius = 6)
#' print(fit)
#' summary(fit, rows = 3)
#' @method print cg_fit
#' @export
print.cg_fit <- function(x, ...) {
  cat(fit_header(x), sep = "\n")
  invisible(x)
}

#' @rdname print.cg_fit
#' @method summary cg_fit
#' @export
summary.cg_fit <- function(object, rows = 6L, ...) {
  check_count(rows, "rows")
  tr <- object$trace
  shown <- NULL
  n_trace <- 0L
  work <- c(n_grad = NA_real_, n_lmo = NA_real_, n_matvec = NA_real_)
  if (is.data.frame(tr) && nrow(tr) > 0L) {
    n_trace <- nrow(tr)
    shown <- tr[trace_rows(tr, rows), intersect(c("iter", "epoch", "time",
      "objective", "gap", "infeasibility", "n_grad", "svd_rank"), names(tr)),
      drop = FALSE]
    # columns that are NA throughout say nothing (e.g. infeasibility
    # outside SDPs)
    keep <- vapply(shown, function(col) !all(is.na(col)), TRUE)
    shown <- shown[, keep, drop = FALSE]
    rownames(shown) <- NULL
    # counters are cumulative, so the total is the largest recorded value
    for (k in names(work)) {
      if (k %in% names(tr) && any(!is.na(tr[[k]]))) {
        work[[k]] <- max(tr[[k]], na.rm = TRUE)
      }
    }
  }
  structure(list(header = fit_header(object), trace = shown,
                 n_trace = n_trace, work = work),
            class = "summary.cg_fit")
}

# About `rows` evenly spaced trace rows, first and last included, among the
# rows where the objective was evaluated (all rows if none was).
trace_rows <- function(tr, rows = 6L) {
  cand <- seq_len(nrow(tr))
  if ("objective" %in% names(tr) && any(!is.na(tr$objective))) {
    cand <- which(!is.na(tr$objective))
  }
  k <- min(rows, length(cand))
  cand[unique(round(seq(1, length(cand), length.out = k)))]
}

#' @rdname print.cg_fit
#' @method print summary.cg_fit
#' @export
print.summary.cg_fit <- function(x, ...) {
  cat(x$header, sep = "\n")
  if (!is.null(x$trace) && nrow(x$trace) > 0L) {
    cat(sprintf("Convergence trace (%d of %d rows):\n", nrow(x$trace),
                x$n_trace))
    print(x$trace, digits = 4, row.names = FALSE)
  } else {
    cat("Convergence trace: empty\n")
  }
  cat(sprintf("Work: n_grad = %s, n_lmo = %s, n_matvec = %s\n",
              fmt_num(x$work[["n_grad"]]), fmt_num(x$work[["n_lmo"]]),
              fmt_num(x$work[["n_matvec"]])))
  invisible(x)
}

#' Plot the convergence of a fit
#'
#' Draws one base-graphics panel per combination of `what` and `against`:
#' the objective or the duality gap along the trace, against iterations,
#' solver time, stochastic gradients used or matrix-vector products (SVD
#' work). The gap is drawn on a log scale, skipping rows where it was not
#' evaluated or is not positive; the objective is drawn on a log scale when
#' all its evaluated values are positive and on a linear scale otherwise.
#' The graphics parameters are restored on exit.
#'
#' @param x A [cg_fit] object.
#' @param what Which quantities to plot; one or more of `"objective"`,
#'   `"gap"` and `"infeasibility"` (constrained problems: SDPs, completion
#'   with a box). Default `c("objective", "gap")`, or `c("objective",
#'   "infeasibility")` for fits without a gap whose trace has an
#'   infeasibility.
#' @param against Horizontal axis; one or more of `"iter"`, `"time"`,
#'   `"n_grad"`, `"n_lmo"` (LMOs, or rank-one SVD equivalents for proximal
#'   steps), `"n_matvec"` (default `"iter"`).
#' @param ... Further graphical parameters passed to [plot()], e.g. `col`,
#'   `type`, `main`.
#' @returns `x`, invisibly.
#' @seealso [cg_fit], [summary.cg_fit()].
#' @examples
#' set.seed(1)
#' X <- matrix(rnorm(100 * 20), 100, 20)
#' y <- drop(X[, 1:3] %*% c(3, -2, 1.5) + rnorm(100))
#' fit <- sparse_regression(X, y, radius = 6)
#' plot(fit)                         # objective and certified gap by iteration
#' plot(fit, what = "gap", against = "time")
#' @importFrom graphics par plot text
#' @method plot cg_fit
#' @export
plot.cg_fit <- function(x, what = c("objective", "gap"),
                        against = c("iter", "time", "n_grad", "n_lmo", "n_matvec"),
                        ...) {
  what <- if (missing(what)) default_plot_what(x) else
    match_choices(what, c("objective", "gap", "infeasibility"), "what")
  # one default axis; all four panels at once are rarely wanted
  against <- if (missing(against)) "iter" else {
    match_choices(against, c("iter", "time", "n_grad", "n_lmo", "n_matvec"),
                  "against")
  }
  tr <- x$trace
  if (!is.data.frame(tr) || nrow(tr) == 0L) {
    stop("`x` has an empty trace; nothing to plot.", call. = FALSE)
  }
  op <- par(mfrow = c(length(against), length(what)))   # quantities side by side
  on.exit(par(op))
  xlabs <- c(iter = "iteration", time = "time (s)",
             n_grad = "stochastic gradients", n_lmo = "LMOs / rank-one SVDs",
             n_matvec = "matrix-vector products")
  ylabs <- c(objective = "objective", gap = "duality gap", infeasibility = "infeasibility")
  for (a in against) {
    for (w in what) {
      xv <- tr[[a]]
      yv <- tr[[w]]
      if (is.null(xv)) xv <- rep(NA_real_, nrow(tr))
      if (is.null(yv)) yv <- rep(NA_real_, nrow(tr))
      log_y <- if (w %in% c("gap", "infeasibility")) TRUE else trace_log_scale(yv)
      ok <- is.finite(xv) & is.finite(yv) & (!log_y | yv > 0)
      defaults <- list(xlab = xlabs[[a]], ylab = ylabs[[w]],
                       main = sprintf("%s (%s)", fmt_problem(x$problem),
                                      x$method),
                       type = "l", log = if (log_y) "y" else "")
      defaults$ylim <- trace_ylim(tr$iter, yv, ok, log_y)
      args <- utils_modify(defaults, list(...))
      if (!any(ok)) {
        # keep the panel grid aligned: an empty panel with a note
        plot(c(0, 1), c(0, 1), type = "n", axes = FALSE, xlab = args$xlab,
             ylab = args$ylab, main = args$main)
        text(0.5, 0.5, sprintf("%s not evaluated", ylabs[[w]]))
        next
      }
      do.call(plot, c(list(xv[ok], yv[ok]), args))
    }
  }
  invisible(x)
}

# the panels of plot(fit) by default: objective and gap, or the
# infeasibility in place of a gap the fit does not have
default_plot_what <- function(x) {
  tr <- x$trace
  no_gap <- is.data.frame(tr) && all(is.na(tr$gap)) && any(is.finite(tr$infeasibility))
  if (no_gap) c("objective", "infeasibility") else c("objective", "gap")
}

# match.arg(several.ok = TRUE) (partial matching included) with an error
# that names the argument and lists the choices
match_choices <- function(x, choices, arg) {
  hit <- if (is.character(x)) pmatch(x, choices, duplicates.ok = TRUE) else NA
  if (length(x) < 1L || anyNA(hit))
    stop_arg(arg, "must be one or more of ",
             paste0('"', choices, '"', collapse = ", "),
             if (is.character(x) && length(x) >= 1L)
               paste0(', not "', x[is.na(hit)][1L], '"'))
  unique(choices[hit])
}

# The main estimate of a fit, object$solution[[1]]; a fit whose solution was
# removed or emptied by hand gets an error naming `object`, not "subscript
# out of bounds".
fit_solution <- function(object) {
  sol <- object$solution
  if (!is.list(sol) || length(sol) == 0L)
    stop_arg("object", "has no solution: its `solution` element is missing ",
             "or empty (a fit altered by hand?)")
  sol[[1L]]
}

# The y range of a trace panel: all of it, unless the first 5% of the
# iterations span more than 10 times the range of the rest (a homotopy
# method's first iterates): then the rest's, so the convergence shows and
# those first values run off the top of the panel. NULL: plot()'s own.
trace_ylim <- function(iter, y, ok, log_y) {
  if (sum(ok) < 3L || !any(is.finite(iter[ok]))) return(NULL)
  late <- ok & is.finite(iter) & iter >= 0.05 * max(iter[ok])
  if (sum(late) < 2L) return(NULL)
  tf <- if (log_y) log10 else identity
  width <- function(v) diff(range(tf(v)))
  if (!(width(y[ok]) > 10 * width(y[late]))) return(NULL)
  r <- range(tf(y[late])); r <- r + c(-0.05, 0.05) * max(diff(r), 1e-12 * max(abs(r), 1))
  if (log_y) 10^r else r
}

# Log scale for a trace column: only if it has evaluated values and all of
# them are positive (an objective can be zero or negative).
trace_log_scale <- function(y) {
  y <- y[is.finite(y)]
  length(y) > 0L && all(y > 0)
}

# modifyList() lives in utils, which the package does not import.
utils_modify <- function(x, val) {
  for (nm in names(val)) x[[nm]] <- val[[nm]]
  x
}

#' Extract estimates, fitted values and residuals
#'
#' `coef()` returns the main estimate of a fit, the first element of its
#' `solution`: the coefficient vector for regression, a [lowrank] object for
#' matrix problems, `Sigma` for a covariance; for a regression with an
#' intercept, `c("(Intercept)" = a, beta)` (as [lm()] and glmnet, the
#' intercept first), \eqn{\beta}{beta} alone with `intercept = FALSE`.
#' `fitted()` returns what the
#' model fits to the data: \eqn{a + X\beta}{a + X beta} for regression, the estimate
#' of \eqn{E[M]} as a dense matrix for [lowrank_sparse()],
#' [lowrank_constrained()] and [matrix_sensing()], the covariance `Sigma` for
#' [sparse_covariance()]. `residuals()` of a regression is \eqn{y - a -
#' X\beta}{y - a - X beta}. Fits of other families have their own methods: see
#' [fitted.complete_matrix_fit()], [robust_pca()], [predict.stochastic_mf_fit()],
#' [fitted.kmeans_sdp_fit()]; an SDP from [sdp_solve()] or
#' [sparsest_cut_sdp()] fits no data, and `fitted()` says so.
#'
#' @param object A [cg_fit] object.
#' @param ... Unused.
#' @returns `coef()`: the main estimate, `object$solution[[1]]`. `fitted()`:
#'   a numeric vector (regression) or matrix. `residuals()`: a numeric vector.
#' @seealso [cg_fit].
#' @examples
#' set.seed(1)
#' X <- matrix(rnorm(100 * 20), 100, 20)
#' y <- drop(X[, 1:3] %*% c(3, -2, 1.5) + rnorm(100))
#' fit <- sparse_regression(X, y, radius = 6)
#' round(coef(fit), 2)               # exact zeros outside the support
#' head(fitted(fit))
#' sd(residuals(fit))                # about the noise level, 1
#' @importFrom stats coef fitted residuals
#' @method coef cg_fit
#' @export
coef.cg_fit <- function(object, ...) fit_solution(object)

#' @rdname coef.cg_fit
#' @method coef sparse_regression_fit
#' @export
coef.sparse_regression_fit <- function(object, ...) {
  beta <- fit_solution(object)
  if (is.null(object$x_center)) return(beta)
  c("(Intercept)" = regression_intercept(object), beta)   # first, as lm and glmnet
}

# the intercept a of a regression fit (0 without one), checked
regression_intercept <- function(object) {
  a <- object$intercept %||% 0
  if (!is.numeric(a) || length(a) != 1L || !is.finite(a))
    stop_arg("object", "has an invalid `intercept` (a fit altered by hand?)")
  a
}

#' @rdname coef.cg_fit
#' @method fitted cg_fit
#' @export
fitted.cg_fit <- function(object, ...) {
  if (!is.null(object$fitted.values)) return(object$fitted.values)
  # denoising problems: the estimate of E[M] is what the model fits to M
  if (inherits(object, c("lowrank_sparse_fit", "lowrank_constrained_fit",
                         "matrix_sensing_fit")))
    return(as.matrix(object$solution$X))
  if (inherits(object, "sparse_covariance_fit")) return(object$solution$Sigma)
  if (inherits(object, "sparse_regression_fit"))
    stop("this sparse_regression fit stores no fitted values", call. = FALSE)
  stop(sprintf(paste("this %s fit has no fitted values (it fits no data):",
                     "its estimate is coef(fit)"), fmt_problem(object$problem)),
       call. = FALSE)
}

#' @rdname coef.cg_fit
#' @method residuals sparse_regression_fit
#' @export
residuals.sparse_regression_fit <- function(object, ...) {
  if (is.null(object$y)) stop("this sparse_regression fit stores no response `y`", call. = FALSE)
  object$y - fitted.cg_fit(object)
}

#' Predict from a sparse regression fit
#'
#' @param object A `sparse_regression_fit` object (see [cg_fit]).
#' @param newx Numeric matrix or `Matrix` object with one column per
#'   coefficient (a vector is taken as a single row). If omitted, the fitted
#'   values on the training data are returned.
#' @param type `"link"` (the default, as glmnet): the linear predictor
#'   `intercept + newx %*% beta`; `"response"`: the mean of the family at it
#'   (the probability for `family = "binomial"`, `exp()` of it for
#'   `"poisson"`; the same as `"link"` for `"gaussian"`).
#' @param ... Unused.
#' @returns Numeric vector `intercept + newx %*% beta` (`fit$intercept`, 0
#'   for a fit with `intercept = FALSE`), or its mean with `type =
#'   "response"`, named by the row names of `newx` if it has any. Without
#'   `newx`, the same on the training rows.
#' @seealso [cg_fit].
#' @examples
#' set.seed(1)
#' X <- matrix(rnorm(100 * 20), 100, 20)
#' y <- drop(X[, 1:3] %*% c(3, -2, 1.5) + rnorm(100))
#' fit <- sparse_regression(X, y, radius = 6)
#' predict(fit, X[1:3, ])
#' @importFrom stats predict
#' @method predict sparse_regression_fit
#' @export
predict.sparse_regression_fit <- function(object, newx, type = c("link", "response"), ...) {
  type <- match_choice(type, c("link", "response"), "type")
  family <- object$family %||% "gaussian"
  # checked before `newx`, whose message would otherwise blame the user's data
  beta <- regression_beta(object)
  if (missing(newx)) {
    if (family == "gaussian" || type == "response") return(fitted.cg_fit(object))
    return(object$linear.predictors)
  }
  p <- length(beta)
  if (is.data.frame(newx)) newx <- as.matrix(newx)
  if (is.null(dim(newx))) {
    if (!is.numeric(newx) || length(newx) != p) {
      stop(sprintf(paste("`newx` must be a numeric matrix with %d columns",
                         "(one per coefficient) or a vector of length %d."),
                   p, p), call. = FALSE)
    }
    newx <- matrix(newx, nrow = 1L)
  }
  if (!(is.numeric(newx) || inherits(newx, "Matrix"))) {
    stop("`newx` must be a numeric matrix or a Matrix object.", call. = FALSE)
  }
  if (ncol(newx) != p) {
    stop(sprintf("`newx` must have %d columns (one per coefficient), not %d.",
                 p, ncol(newx)), call. = FALSE)
  }
  out <- regression_predict(object, newx, type, beta)
  names(out) <- rownames(newx)
  out
}

# a regression fit's coefficients, checked: a finite numeric vector
regression_beta <- function(object) {
  beta <- fit_solution(object)
  if (!is.numeric(beta) || !is.null(dim(beta)) || !all_finite(beta))
    stop_arg("object", "has an invalid solution: `beta` must be a finite ",
             "numeric vector (a fit altered by hand?)")
  beta
}

# predict()'s numbers for a regression fit and a checked newx (a numeric
# matrix or Matrix of its columns): the intercept plus newx beta, the
# family's mean for type "response" (cv_sparse_regression()'s held-out
# rows: its fits', without predict()'s argument checks per fit)
regression_predict <- function(object, newx, type = "link", beta = regression_beta(object)) {
  # (support_fitted(): newx %*% beta's numbers without its pass over the
  # zero coefficients' columns, for a dense newx; a double beta as it is:
  # as.double() copied a named beta, p doubles per held-out prediction of
  # a CV)
  out <- regression_intercept(object) +
    support_fitted(newx, if (is.double(beta)) beta else as.double(beta), all = TRUE)
  if (type == "response") out <- family_mean(object$family %||% "gaussian", out)
  out
}

#' Predict entries from a matrix completion fit
#'
#' Evaluates the completed matrix at (row, column) pairs in \eqn{O(r)}
#' operations per pair, adds back the centering removed before fitting
#' (overall mean, and row and column effects for `center = "both"`) and, for
#' `type = "response"`, maps through the inverse link of the family
#' (identity for gaussian, `exp` for poisson, `plogis` for binomial).
#' Ratings on a bounded scale (e.g. 1 to 5 stars) are predicted with
#' `clip = c(1, 5)`: values are then limited to that range.
#'
#' @param object A `complete_matrix_fit` object (see [cg_fit]).
#' @param newdata A data frame with columns `row` and `col`, or a two-column
#'   integer matrix of (row, column) pairs; indices are 1-based. If omitted,
#'   the observed entries `object$obs` are used. `"all"` predicts the whole
#'   \eqn{m \times n}{m x n} matrix (dense: use it only for matrices that
#'   fit in memory).
#' @param type `"link"` (default) for the linear predictor, `"response"` for
#'   the mean of the family.
#' @param clip `NULL` (default: no clipping) or `c(lo, hi)` with
#'   `lo < hi`: predictions (on the scale of `type`) below `lo` become `lo`,
#'   above `hi` become `hi`.
#' @param ... Unused.
#' @returns Numeric vector with one prediction per pair, or for
#'   `newdata = "all"` the \eqn{m \times n}{m x n} matrix.
#' @seealso [cg_fit], [predict.lowrank()].
#' @examples
#' set.seed(1)
#' obs <- data.frame(row = sample(30, 400, TRUE), col = sample(20, 400, TRUE))
#' obs$value <- pmin(pmax(round(3 + obs$row / 15 - obs$col / 20 + rnorm(400, sd = 0.5)), 1), 5)
#' fit <- complete_matrix(obs, radius = 20, center = "both", method = "fw",
#'                        control = cg_control(max_iter = 100))
#' new <- data.frame(row = c(1, 30), col = c(20, 1))
#' predict(fit, new)                    # effects + low-rank part
#' predict(fit, new, clip = c(1, 5))    # on the rating scale
#' @method predict complete_matrix_fit
#' @export
predict.complete_matrix_fit <- function(object, newdata,
                                        type = c("link", "response"), clip = NULL, ...) {
  type <- match_choice(type, c("link", "response"), "type")
  if (!is.null(clip) && (!is.numeric(clip) || length(clip) != 2L || anyNA(clip) ||
                         !(clip[1] < clip[2])))
    stop_arg("clip", "must be NULL or a numeric vector c(lo, hi) with lo < hi")
  all_cells <- !missing(newdata) && identical(newdata, "all")
  if (all_cells) {
    dims <- as.double(object$dims)
    if (length(dims) != 2L || anyNA(dims) || prod(dims) > .Machine$integer.max)
      stop_arg("newdata", "= \"all\" needs a fit of at most ", .Machine$integer.max,
               " cells; predict at (row, col) pairs instead")
    newdata <- cbind(rep(seq_len(dims[1]), dims[2]), rep(seq_len(dims[2]), each = dims[1]))
  }
  if (missing(newdata)) {
    newdata <- object$obs
    if (is.null(newdata)) {
      stop("`newdata` is required: this fit stores no observed entries.",
           call. = FALSE)
    }
  }
  if (!(is.data.frame(newdata) || is.matrix(newdata))) {
    stop(paste("`newdata` must be a data frame with columns `row` and `col`,",
               "a two-column integer matrix, or \"all\"."), call. = FALSE)
  }
  if (is.data.frame(newdata) && !all(c("row", "col") %in% names(newdata))) {
    stop("`newdata` must have columns `row` and `col`.", call. = FALSE)
  }
  pairs <- index_pairs(newdata, "newdata")
  X <- fit_solution(object)
  check_lowrank(X, "object$solution$X")
  dims <- c(nrow(X$u), nrow(X$v))
  if (!is.null(object$dims) && !identical(suppressWarnings(as.integer(object$dims)), dims))
    stop_arg("object", "has dims ", paste(object$dims, collapse = " x "),
             " but its solution `X` is ", dims[1], " x ", dims[2])
  i <- check_index(pairs$i, dims[1], "newdata", "row")
  j <- check_index(pairs$j, dims[2], "newdata", "column")
  eta <- lowrank_entries(X, i, j) + center_offset(object$center, i, j, dims)
  out <- if (type == "link") eta else family_linkinv(object$family)(eta)
  if (!is.null(clip)) out <- pmin(pmax(out, clip[1]), clip[2])
  if (all_cells) out <- matrix(out, dims[1], dims[2])
  out
}

# Centering removed before the fit, at pairs (i, j) of an m x n = dims
# matrix. The effects are checked against dims: indexing a shortened
# center$row would give NA, a removed one numeric(0).
center_offset <- function(center, i, j, dims) {
  type <- center$type %||% "none"
  if (type %in% c("mean", "both")) check_center(center$mean, 1, "mean")
  if (type == "both") {
    check_center(center$row, dims[1], "row")
    check_center(center$col, dims[2], "col")
  }
  switch(type,
    none = 0,
    mean = center$mean,
    both = center$mean + center$row[i] + center$col[j],
    stop(sprintf("unknown centering type \"%s\" in the fit.", type),
         call. = FALSE)
  )
}

check_center <- function(x, n, part) {
  if (!is.numeric(x) || length(x) != n || !all_finite(x))
    stop_arg("object", "has an invalid `center$", part, "`: it must be a ",
             "finite numeric vector of length ", n, " (a fit altered by hand?)")
}

# Inverse link (mean function) of a family given by name.
family_linkinv <- function(family) {
  name <- if (is.list(family)) family$family else family
  switch(name %||% "gaussian",
    gaussian = identity,
    poisson = exp,
    binomial = stats::plogis,
    stop(sprintf("unknown family \"%s\" in the fit.", name), call. = FALSE)
  )
}

# ---- sparse_covariance() fits ----------------------------------------------

#' Print, summarize and plot a sparse covariance fit
#'
#' Methods for the fits of [sparse_covariance()] (class
#' `c("sparse_covariance_fit", "cg_fit")`). `print()` shows the lines of
#' [print.cg_fit()] (status, time, objective, duality gap, the parts of the
#' solution) followed by the estimator's own: the structure, \eqn{p} and
#' \eqn{n}, `lambda` (and `gamma`), saying when they were chosen by
#' cross-validation and over how many values, the eigenvalue floor, the
#' fraction of off-diagonal entries that are exactly zero (of `Sigma` for
#' `"sparse"`, of the sparse part `S` for `"lowrank+sparse"`), the certified
#' smallest eigenvalue of `Sigma` against the floor and, for
#' `"lowrank+sparse"`, the rank and trace of `L`. `summary()` adds the
#' convergence trace as [summary.cg_fit()] does.
#'
#' `plot()` draws, for a fit whose `lambda` (or `gamma`) was chosen by
#' cross-validation, the CV curve (the default, `what = "cv"`): the mean
#' held-out Gaussian log-likelihood per test row (see [heldout_loglik()])
#' with bars of plus and minus one standard error across folds, against
#' \eqn{\log\lambda}{log(lambda)} (against \eqn{\log\gamma}{log(gamma)} when
#' only `gamma` was cross-validated), one line per value of `gamma` for
#' `"lowrank+sparse"`, and a dashed vertical line at the chosen value. The
#' top axis gives the percentage of exact zeros off the diagonal at each
#' grid point. Grid points where every fold failed are left out. For a fit
#' at one given `lambda` (no CV) it draws the estimate (the default, `what =
#' "estimate"`): the correlation matrix of `Sigma` as an image, exact zeros
#' white, positive entries red and negative blue, the first `max_vars`
#' variables when there are more (a fixed-lambda fit converges in a few
#' outer iterations, so its convergence panels are a point or two). With
#' `what = "objective"` or `"gap"` it draws the convergence panels of
#' [plot.cg_fit()]. The graphics parameters are restored on exit.
#'
#' @section The cross-validation table:
#' `fit$cv` (when `lambda` or `gamma` was chosen by cross-validation) is a
#' data frame with one row per grid point and columns `lambda`, `gamma`
#' (`NA` for `"sparse"`), `loglik` (mean over the folds of the held-out
#' Gaussian log-likelihood per test row, [heldout_loglik()], the test rows
#' centred by the training mean of their fold), `se` (its standard error
#' across folds), `n_folds` (folds whose fit converged; a fit that failed or
#' did not converge counts as missing, with a warning), `zeros` (mean
#' fraction of exact zeros off the diagonal: of `Sigma` for `"sparse"`, of
#' the sparse part `S` for `"lowrank+sparse"`), `rank` (mean rank of `L`;
#' `NA` for `"sparse"`) and `chosen` (`TRUE` in the row of the largest
#' `loglik` among the grid points all folds scored). Along each fold's path
#' the smaller values of `lambda` are not fitted once the held-out
#' log-likelihood has fallen at two consecutive values to more than 10%
#' below the best of the path (denser, slower fits that cannot be chosen):
#' `loglik` is `NA` at such grid points. Its attributes hold
#' `folds` (the number of folds), `foldid` (the fold of each row of the
#' data, drawn with [sample()]: `set.seed()` reproduces it) and
#' `fold_loglik` (the grid points x folds matrix of held-out
#' log-likelihoods).
#'
#' Default grids, functions of the sample covariance \eqn{S} of all rows:
#' for `lambda`, 15 values (8 for `"lowrank+sparse"`) log-spaced from
#' \eqn{\max_{i \ne j} |S_{ij}|}{max |S_ij| off the diagonal}, where the
#' estimate becomes diagonal, down to 1% of it when \eqn{n > p} and 10%
#' when \eqn{n \le p} (a singular \eqn{S}: below that, fits are slow,
#' the floor binding in many directions, and score poorly); for `gamma`, 5
#' values log-spaced from \eqn{\lambda_1(S)/2}{lambda_1(S) / 2} down to
#' \eqn{\lambda_1(S)/100}{lambda_1(S) / 100} (\eqn{L = 0} once
#' \eqn{\gamma \ge \lambda_1(S)}{gamma >= lambda_1(S)}). Each fold
#' fits the path from the largest `lambda` down, each fit warm-started by
#' the previous one.
#'
#' @param x,object A `sparse_covariance_fit` (for `print.summary...`, see
#'   [print.cg_fit()]).
#' @param what `"cv"` for the cross-validation curve, `"estimate"` for an
#'   image of the estimate, or one or both of `"objective"` and `"gap"` for
#'   the convergence panels of [plot.cg_fit()]. Default: `"cv"` when the fit
#'   has cross-validation results (`x$cv`), else `"estimate"`.
#' @param max_vars For `what = "estimate"`: the image shows the first
#'   `max_vars` variables at most.
#' @param ... For `summary()`, `rows` as in [summary.cg_fit()]; for `plot()`,
#'   `against` (convergence panels) and further graphical parameters passed
#'   to [plot()], e.g. `main`, `col`, `ylim`.
#' @returns `print()` and `plot()` return `x` invisibly; `summary()` an
#'   object of class `summary.cg_fit` whose `header` holds the lines printed
#'   by `print()`.
#' @seealso [sparse_covariance()], [cg_fit], [heldout_loglik()].
#' @examples
#' set.seed(1)
#' p <- 8
#' Sigma0 <- 0.5^abs(outer(1:p, 1:p, "-"))
#' data <- matrix(rnorm(60 * p), 60) %*% chol(Sigma0)
#' fit <- sparse_covariance(data, lambda = c(0.4, 0.2, 0.1, 0.05), folds = 3)
#' fit
#' plot(fit)
#' @method print sparse_covariance_fit
#' @export
print.sparse_covariance_fit <- function(x, ...) {
  cat(covariance_header(x), sep = "\n")
  invisible(x)
}

#' @rdname print.sparse_covariance_fit
#' @method summary sparse_covariance_fit
#' @export
summary.sparse_covariance_fit <- function(object, ...) {
  out <- NextMethod()
  out$header <- covariance_header(object)
  out
}

# print.cg_fit's lines plus the estimator's own; fits without a `structure`
# (made by hand, or by older versions) get the cg_fit lines only
covariance_header <- function(x) {
  lines <- fit_header(x)
  if (is.null(x$structure)) return(lines)
  # the call's time includes the cross-validation
  if (!is.null(x$cv))
    lines <- sub("the rest: set-up and trace evaluations", "the rest: cross-validation and set-up",
                 lines, fixed = TRUE)
  Sigma <- x$solution$Sigma
  p <- if (is.null(Sigma)) NA_integer_ else nrow(Sigma)
  lr <- identical(x$structure, "lowrank+sparse")
  cv <- x$cv
  # (structure = "auto": the table holds both families; the values counted
  # are those of the winner's)
  both <- is.data.frame(cv) && length(unique(cv$structure)) > 1L
  own <- if (both) cv$structure == x$structure else TRUE
  tuned <- function(par) {
    if (!is.data.frame(cv) || is.null(cv[[par]])) return("")
    values <- unique(cv[[par]][own][!is.na(cv[[par]][own])])
    if (length(values) < 2L) return("")
    k <- attr(cv, "folds")
    sprintf(" (chosen by %s CV over %d values)",
            if (is.null(k)) "K-fold" else paste0(k, "-fold"), length(values))
  }
  pct <- function(z) {
    if (is.na(z)) return("NA")
    # never round to 100% or 0% when it is not exactly that
    s <- sprintf("%.1f%%", 100 * z)
    if (s == "100.0%" && z < 1) s <- ">99.9%"
    if (s == "0.0%" && z > 0) s <- "<0.1%"
    s
  }
  n_txt <- if (is.null(x$nobs) || is.na(x$nobs)) "n not given" else
    sprintf("n = %s observations", fmt_num(x$nobs))
  lines <- c(lines,
    sprintf("Covariance estimate: structure \"%s\"%s, p = %s variables, %s",
            x$structure, if (both) " (chosen by CV against the other structure)" else "",
            fmt_num(p), n_txt),
    sprintf("  lambda = %s%s", fmt_num(x$lambda, 4), tuned("lambda")),
    if (lr) sprintf("  gamma = %s%s", fmt_num(x$gamma, 4), tuned("gamma")),
    if (!is.null(x$shrink))
      sprintf("  shrink = %s (target (1 - shrink) S + shrink diag(S))%s", fmt_num(x$shrink, 4),
              tuned("shrink")),
    sprintf("  floor = %s (smallest eigenvalue allowed%s)", fmt_num(x$floor, 4),
            if (isTRUE(x$standardize)) ", on the correlation scale" else ""))
  if (is.data.frame(cv) && any(cv$chosen %in% TRUE)) {
    b <- which(cv$chosen %in% TRUE)[1L]
    lines <- c(lines, sprintf("  held-out log-likelihood per row at the chosen value: %s (se %s%s)",
                              fmt_num(cv$loglik[b], 5), fmt_num(cv$se[b], 3),
                              if (isTRUE(x$standardize)) "; of the standardized folds" else ""))
  }
  part <- if (lr) x$solution$S else Sigma
  if (!is.null(part) && !is.na(p) && p > 1L)
    lines <- c(lines, sprintf("  %s of off-diagonal entries%s are exactly zero",
                              pct(x$sparsity %||% offdiag_zero_fraction(part)),
                              if (lr) " of the sparse part S" else ""))
  me <- x$min_eigen
  if (!is.null(me)) {
    lines <- c(lines, if (is.na(me)) "  smallest eigenvalue of Sigma: not certified" else
      sprintf("  smallest eigenvalue of Sigma: %s (certified; %s the floor %s)",
              fmt_num(me, 4), if (!is.null(x$floor) && !is.na(x$floor) &&
                                   me < x$floor * (1 - 1e-8)) "BELOW" else "at or above",
              fmt_num(x$floor, 4)))
  }
  if (lr && inherits(x$solution$L, "lowrank"))
    lines <- c(lines, sprintf("  L (factor part): rank %d, trace %s",
                              lowrank_rank(x$solution$L),
                              fmt_num(lowrank_trace(x$solution$L), 4)))
  lines
}

#' @rdname print.sparse_covariance_fit
#' @importFrom graphics abline axis legend lines mtext segments
#' @method plot sparse_covariance_fit
#' @export
plot.sparse_covariance_fit <- function(x, what = NULL, max_vars = 200L, ...) {
  if (is.null(what)) what <- if (is.null(x$cv)) "estimate" else "cv"
  what <- match_choices(what, c("cv", "estimate", "objective", "gap"), "what")
  single <- intersect(what, c("cv", "estimate"))
  if (length(single) == 0L) return(plot.cg_fit(x, what = what, ...))
  if (length(what) > 1L)
    stop_arg("what", "\"", single[1], "\" cannot be combined with another panel ",
             "(one plot each)")
  if (what == "estimate") {
    check_count(max_vars, "max_vars", min = 2)
    plot_covariance_image(x$solution$Sigma, max_vars, ...)
    return(invisible(x))
  }
  if (!is.data.frame(x$cv) || nrow(x$cv) == 0L)
    stop_arg("x", "has no cross-validation results (`x$cv` is NULL): the fit ",
             "was made with a single value of lambda",
             if (identical(x$structure, "lowrank+sparse")) " and of gamma")
  cv <- x$cv
  # the shrinkage estimates (lambda = 0 rows, one per shrink) get a panel of
  # their own beside the lambda path; the path's panel marks the best of them
  shrink_rows <- if (!is.null(cv$shrink)) which(cv$lambda == 0 & is.finite(cv$loglik))
  path <- cv[cv$lambda > 0, , drop = FALSE]
  has_path <- any(is.finite(path$loglik))
  if (length(shrink_rows) > 1L) {
    op <- par(mfrow = c(1L, if (has_path) 2L else 1L))
    on.exit(par(op))
    best <- shrink_rows[which.max(cv$loglik[shrink_rows])]
    if (has_path) {
      ok <- is.finite(path$loglik)
      pse <- ifelse(is.finite(path$se), path$se, 0)
      plot_cv(path, x$lambda, x$gamma, x$structure %||% "sparse",
              ylim = range(c(path$loglik[ok] - pse[ok], path$loglik[ok] + pse[ok],
                             cv$loglik[best])), ...)
      abline(h = cv$loglik[best], lty = 3, col = "grey40")
      mtext(sprintf("dotted: best shrinkage estimate (shrink = %s)", fmt_num(cv$shrink[best], 3)),
            side = 1, line = 4, cex = 0.7, adj = 1)
    }
    i <- shrink_rows[order(cv$shrink[shrink_rows])]
    # (the smallest shrinkages of a singular S score orders of magnitude
    # lower: the window keeps those within half of |best| of it)
    top <- cv$loglik[best]
    near <- i[cv$loglik[i] >= top - 0.5 * abs(top)]
    sei <- ifelse(is.finite(cv$se), cv$se, 0)
    draw_cv_curve(cv$shrink[i], cv$loglik[i], cv$se[i],
                  ylim = range(c(cv$loglik[near] - sei[near], cv$loglik[near] + sei[near])),
                  chosen = if (identical(x$lambda, 0)) x$shrink, xlab = "shrink (lambda = 0)",
                  ylab = "held-out log-likelihood per row",
                  main = sprintf("shrinkage: %d-fold cross-validation",
                                 attr(cv, "folds") %||% NA_integer_))
    return(invisible(x))
  }
  plot_cv(cv, x$lambda, x$gamma, x$structure %||% "sparse", ...)
  invisible(x)
}

# The estimate as an image: its correlation matrix (first max_vars
# variables), exact zeros white, red positive, blue negative, variable 1 at
# the top left as the matrix prints
plot_covariance_image <- function(Sigma, max_vars, ...) {
  p <- nrow(Sigma)
  k <- min(p, max_vars)
  S <- as.matrix(Sigma[seq_len(k), seq_len(k), drop = FALSE])
  d <- sqrt(pmax(diag(S), .Machine$double.xmin))
  R <- pmin(pmax(S / outer(d, d), -1), 1)        # (rounding past +-1 would draw white)
  zeros <- mean(R[upper.tri(R)] == 0)
  breaks <- seq(-1, 1, length.out = 22)
  cols <- grDevices::hcl.colors(21, "Blue-Red 3")
  cols[11] <- "white"                          # the bin around 0
  R[R == 0] <- 0; R[R != 0 & abs(R) < 1 / 21] <- sign(R[R != 0 & abs(R) < 1 / 21]) / 20
  op <- par(mar = c(2, 2, 4, 2) + 0.1)
  on.exit(par(op))
  defaults <- list(x = seq_len(k), y = seq_len(k), z = t(R[k:1, , drop = FALSE]),
                   col = cols, breaks = breaks, axes = FALSE, xlab = "", ylab = "",
                   main = sprintf("correlation of Sigma%s\n%.0f%% exact zeros off the diagonal",
                                  if (k < p) sprintf(" (first %d of %d variables)", k, p) else "",
                                  100 * zeros), useRaster = k > 100)
  args <- utils_modify(defaults, list(...))
  do.call(graphics::image, args)
  graphics::box()
  invisible(list(R = R, main = args$main))       # what was drawn (tests)
}

# the CV curve(s) of a cv data frame (see cv_select())
plot_cv <- function(cv, lambda, gamma, structure, ...) {
  dots <- list(...)
  dots$against <- NULL                       # convergence-panel argument
  nl <- length(unique(cv$lambda)); ngm <- length(unique(cv$gamma[!is.na(cv$gamma)]))
  by_gamma <- nl < 2L && ngm >= 2L           # only gamma was cross-validated
  xvar <- if (by_gamma) "gamma" else "lambda"
  group <- if (by_gamma || ngm < 2L) rep(1, nrow(cv)) else cv$gamma
  ok <- is.finite(cv$loglik) & cv[[xvar]] > 0
  if (!any(ok)) stop_arg("x", "has no finite held-out log-likelihood to plot")
  xv <- log(cv[[xvar]]); y <- cv$loglik
  se <- ifelse(is.finite(cv$se), cv$se, 0)
  groups <- sort(unique(group[ok]), decreasing = TRUE)
  cols <- if (length(groups) > 1L) hcl.colors(length(groups), "Dark 3") else "black"
  op <- par(mar = c(5, 4.5, 4, 2) + 0.1)
  on.exit(par(op))
  defaults <- list(xlab = sprintf("log(%s)", xvar), ylab = "held-out log-likelihood per row",
                   main = sprintf("%s: %d-fold cross-validation", structure,
                                  attr(cv, "folds") %||% NA_integer_),
                   type = "n", xlim = range(xv[ok]),
                   ylim = range(c(y[ok] - se[ok], y[ok] + se[ok])))
  args <- utils_modify(defaults, dots)
  do.call(plot, c(list(xv[ok], y[ok]), args))
  # bars of neighbouring curves side by side, not on top of each other
  width <- diff(range(xv[ok])) %||% 0
  for (g in seq_along(groups)) {
    i <- which(ok & group == groups[g])
    draw_cv_curve(xv[i], y[i], se[i], add = TRUE, col = cols[g],
                  dx = 0.006 * width * (g - (length(groups) + 1) / 2))
  }
  chosen <- if (by_gamma) gamma else lambda
  if (!is.null(chosen) && length(chosen) == 1L && is.finite(chosen) && chosen > 0)
    abline(v = log(chosen), lty = 2)
  if (length(groups) > 1L)
    legend("bottomleft", legend = sprintf("gamma = %s", format(groups, digits = 3)),
           col = cols, lty = 1, pch = 20, bty = "n", cex = 0.8)
  # exact zeros off the diagonal along the top (one group: its own curve)
  if (length(groups) == 1L && any(is.finite(cv$zeros[ok]))) {
    i <- which(ok & is.finite(cv$zeros))
    axis(3, at = xv[i], labels = sprintf("%.0f", 100 * cv$zeros[i]), cex.axis = 0.7,
         mgp = c(3, 0.5, 0))
    mtext(if (structure == "lowrank+sparse") "% zeros in S" else "% zeros",
          side = 3, line = 0.5, at = graphics::par("usr")[1L], adj = 1.1, cex = 0.7)
  }
  invisible(NULL)
}
