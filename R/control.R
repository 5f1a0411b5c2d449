#' Control settings shared by all solvers
#'
#' @param max_iter Maximum number of iterations (a non-negative integer).
#'   `NULL` (the default): the method's own default, 1000, or \eqn{10^5}
#'   for [sparse_regression()]'s `"pfw"`, whose steps cost \eqn{O(p)}.
#' @param max_time Maximum solver time in seconds (time spent on trace-only
#'   evaluations is not counted). `Inf` for no limit. Checked between
#'   iterations, and for [sparse_covariance()], whose one step can be many
#'   Lanczos runs, inside them too: a step cut there is dropped, the fit
#'   keeps (and certifies) the last complete iterate.
#' @param tol Stopping tolerance on the duality gap (an upper bound on the
#'   objective's distance to the optimum of the stated problem), relative to
#'   `|objective|`, or to a thousandth of the objective at the start (the
#'   zero iterate) when that is larger: rescaling the data does not change
#'   where a fit stops, and an optimum near zero (an exact fit, as in robust
#'   PCA with tight bounds) needs no gap below rounding error. Deterministic methods check the exact gap every
#'   iteration; stochastic methods check the true (full-data) gap at the
#'   scheduled evaluations. `0` disables the test. `NULL` (the default):
#'   the function's own default, `1e-6`, or `1e-3` for the SDP functions
#'   ([sdp_solve()], [kmeans_sdp()], [sparsest_cut_sdp()]) and `0` for
#'   [stochastic_mf()] (see their help). A setting left `NULL` keeps the
#'   function's default when another is given: `cg_control(max_iter =
#'   20000)` changes the iteration budget only.
#' @param eval_every When to evaluate the full objective and duality gap
#'   (always at the first and the last iteration). `NULL` (the default)
#'   adapts the schedule. Evaluations a run may stop on (with `tol > 0`) come
#'   at most 10% of the iterations apart (every iteration up to 10), at
#'   iterations fixed by the iteration count, so that `set.seed()`
#'   reproduces a fit exactly; in between, rows for the trace only, geometric
#'   in the iterations (about 100 per e-fold of the iteration count) and
#'   only while evaluations take at most 10% of the wall time so far. These
#'   never change the fit. A count fixes the schedule: every `eval_every`
#'   iterations, whatever it costs (for plots against iterations, or to
#'   compare methods at the same iterations). Evaluations are excluded from
#'   the solver time (the trace's `time` column and the fit's
#'   `solver_time`), never from the fit's `time`. When an evaluation costs
#'   far more than an iteration (stochastic methods with small minibatches),
#'   `tol = 0` leaves only the budgeted trace rows.
#' @param progress Show a one-line progress display for fits that run longer
#'   than about two seconds. Defaults to `interactive()`.
#' @param verbose Print each trace row as it is recorded.
#' @returns A list of class `cg_control`.
#' @examples
#' cg_control(max_iter = 200, eval_every = 5)
#' @export
cg_control <- function(max_iter = NULL, max_time = Inf, tol = NULL,
                       eval_every = NULL, progress = interactive(),
                       verbose = FALSE) {
  if (!is.null(max_iter)) {
    check_count(max_iter, "max_iter", min = 0)
    max_iter <- as.integer(max_iter)
  }
  check_number(max_time, "max_time", min = 0, finite = FALSE)
  if (!is.null(tol)) check_number(tol, "tol", min = 0)
  if (!is.null(eval_every)) {
    check_count(eval_every, "eval_every", min = 1)
    eval_every <- as.integer(eval_every)
  }
  check_flag(progress, "progress")
  check_flag(verbose, "verbose")
  structure(list(max_iter = max_iter, max_time = as.double(max_time),
                 tol = if (!is.null(tol)) as.double(tol), eval_every = eval_every,
                 progress = progress, verbose = verbose),
            class = "cg_control")
}

#' @export
print.cg_control <- function(x, ...) {
  cat("<cg_control>\n")
  shown <- vapply(names(x), function(k) if (!is.null(x[[k]])) format(x[[k]])
                  else if (k %in% c("max_iter", "tol")) "function default" else "adaptive", "")
  cat(sprintf("  %-10s %s\n", names(x), shown), sep = "")
  invisible(x)
}

# `max_iter` and `tol`: the function's (method's) defaults, filled in where
# the user gave none (NULL max_iter: left for the fits to fill)
as_control <- function(control, max_iter = 1000L, tol = 1e-6) {
  if (is.null(control)) control <- cg_control()
  # a list, or a cg_control edited by hand: checked again by cg_control()
  if (!is.list(control)) stop_arg("control", "must be made by cg_control()")
  settings <- names(formals(cg_control))
  given <- names(control)
  if (length(control) > 0L && (is.null(given) || any(!nzchar(given))))
    stop_arg("control", "must be a named list of settings of cg_control()")
  unknown <- setdiff(given, settings)
  if (length(unknown) > 0L)
    stop_arg("control", "has unknown settings: ", paste(unknown, collapse = ", "),
             " (known: ", paste(settings, collapse = ", "), ")")
  control <- do.call(cg_control, unclass(control))
  if (is.null(control$max_iter) && !is.null(max_iter)) control$max_iter <- as.integer(max_iter)
  if (is.null(control$tol)) control$tol <- as.double(tol)
  control
}
