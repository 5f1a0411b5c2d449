# Paths: one problem solved at a sequence of radii, in increasing order, each
# fit warm-started (init =) from the previous one. fit_path() is the one
# engine; sparse_regression() and complete_matrix() call it when given
# several radii, and the cross-validation engine (R/cv.R) calls it per fold.

#' Paths of fits over a sequence of radii
#'
#' Given several radii, [sparse_regression()], [complete_matrix()] and
#' [robust_pca()] (its nuclear-norm bound, the sparse part's fixed) return,
#' and given several `lambda` with `folds = NULL`, [sparse_covariance()]
#' (a path over the penalty, from the largest down; `coef(path, lambda = )`)
#' a `cg_path`: the problem solved at each radius in increasing order (the
#' most constrained first, like glmnet's decreasing `lambda`), each fit
#' warm-started by `init` from the previous one, whose solution lies in the
#' next, larger ball. The fits are ordinary [cg_fit] objects.
#'
#' `print()` shows the summary table; `plot()` draws, for regression, the
#' coefficient paths against the radius (each coefficient a line, as
#' glmnet's `plot(fit, xvar = "norm")`: at the solution the l1 norm of the
#' coefficients is the radius while the constraint binds), and for
#' completion and robust PCA the objective and the rank against the radius. `coef()` and
#' `predict()` take a `radius` of the path (or `index`); without one,
#' `coef()` gives the matrix of coefficients (one column per radius, the
#' intercept in the first row when the fits have one) for
#' regression and `predict()` one column of predictions per radius.
#'
#' A warm-started fit counts its step rule from its init's iterations (see
#' the warm starts of [complete_matrix()] and [sparse_regression()]), so
#' along a path of `"sfw"` fits (step \eqn{K/(t+K-1)}{K / (t + K - 1)}) the
#' later fits take shorter steps: on a small completion problem a path of 4
#' radii at 300 iterations each ended within 5% of the objectives of cold
#' starts with the same budget, slightly above them. Exact line search
#' (`"fw"`, `"pfw"`) does not depend on the count.
#'
#' An interrupt (Ctrl-C) during a path stops it with a warning; the path
#' returned holds the fits finished before it.
#'
#' @returns A list of class `cg_path` with elements `fits` (the fits, one
#'   per radius, in increasing order), `radius` (the radii),
#'   `summary` (a data frame with one row per radius: `radius`, `objective`,
#'   `gap`, `converged`, `nonzero` (regression: nonzero coefficients) or
#'   `rank` (completion: rank of `X`), `l1_norm` or `nuclear_norm` of the
#'   solution, `iterations` (of this fit, not counting its warm start's) and
#'   `time` (seconds)), `problem`, `complete` (`FALSE` after an interrupt),
#'   `time` (seconds of the whole path) and `call`.
#' @param x,object A `cg_path`.
#' @param radius One radius of the path (it must be one of `object$radius`,
#'   to a relative tolerance of \eqn{10^{-8}}), or `NULL`.
#' @param index Alternatively, the position of the fit in the path.
#' @param lambda For a path over `lambda` ([sparse_covariance()]): one of
#'   its values (as `radius` for the others).
#' @param what For `plot()`: `"coef"` (regression default), `"objective"`,
#'   `"rank"` (completion default: both) or `"gap"`.
#' @param ... For `predict()`, the new data (`newx` for regression,
#'   `newdata` for completion) and further arguments of
#'   [predict.sparse_regression_fit()] or [predict.complete_matrix_fit()];
#'   for `plot()`, graphical parameters; unused otherwise.
#' @seealso [sparse_regression()], [complete_matrix()], [cv_sparse_regression()].
#' @examples
#' set.seed(1)
#' X <- matrix(rnorm(100 * 10), 100, 10)
#' y <- drop(X[, 1:3] %*% c(3, -2, 1.5) + rnorm(100))
#' path <- sparse_regression(X, y, radius = c(0.5, 1, 2, 4, 6, 8))
#' path
#' plot(path)
#' coef(path, radius = 4)
#' head(predict(path, X[1:3, ]))
#' @name cg_path
NULL

# The radii of a path: positive, finite, distinct, in increasing order.
check_radii <- function(radius, arg = "radius") {
  if (!is.numeric(radius) || length(radius) < 1L || anyNA(radius) ||
      any(!is.finite(radius)) || any(radius <= 0))
    stop_arg(arg, "must be positive finite numbers")
  r <- as.double(radius)
  # (radii in increasing order already, as every piece of a CV's grid:
  # sort(unique()) would return them as they are; it was 2.5% of a CV at
  # 66 x 2307)
  if (!is.unsorted(r, strictly = TRUE)) return(r)
  r <- sort(unique(r))
  if (length(r) < length(radius))
    stop_arg(arg, "has repeated values")
  r
}

# Solve fun(args..., <param> = v, init = previous fit) along the values,
# the most constrained first: radii in increasing order, penalties
# (param "lambda": sparse_covariance) in decreasing order. `init` is the warm
# start of the first fit. An interrupted fit ends the path with a warning,
# keeping the fits finished before it.
fit_path <- function(fun, args, radius, init = NULL, call = NULL, started = wall_clock(),
                     param = "radius") {
  force(started)
  values <- check_radii(radius, param)
  if (param != "radius") values <- rev(values)
  n_total <- length(values)
  fits <- vector("list", n_total)
  done <- 0L
  prev <- init
  for (k in seq_along(values)) {
    fit <- withCallingHandlers(
      do.call(fun, c(args, stats::setNames(list(values[k], prev), c(param, "init")))),
      warning = function(w) if (grepl("^fit interrupted after", conditionMessage(w)))
        invokeRestart("muffleWarning"))
    if (identical(fit$status, "interrupted")) {
      warning(sprintf(paste("path interrupted by the user at %s %d of %d (%s);",
                            "the path holds the %d fits finished before it"),
                      param, k, length(values), format(values[k], digits = 4), done),
              call. = FALSE)
      break
    }
    # say where a fit's warm start came from in the path's terms (the
    # solvers' own note, "a fit of 86 iterations of other data or
    # settings", could not be placed)
    previous <- if (k > 1L) values[k - 1L] else if (is.list(init)) init[[param]]
    if (is.numeric(previous) && length(previous) == 1L)
      fit$notes <- path_notes(fit$notes, param, previous)
    fits[[k]] <- fit
    # a solver state (fit$state: dense arrays for some methods) continues
    # only its own problem; the next value's fit has used this one's, so
    # only the last fit keeps it
    if (k > 1L && !is.null(fits[[k - 1L]]$state)) fits[[k - 1L]]$state <- NULL
    done <- k
    prev <- fit
  }
  new_path(fits[seq_len(done)], values[seq_len(done)], param, init, done == n_total, call,
           started)
}

# the cg_path of the fits done at `values` (complete: all the values asked)
new_path <- function(fits, values, param, init, complete, call, started, lean = FALSE) {
  out <- list(fits = fits, param = param,
              summary = if (lean) lean_summary(fits, param) else path_summary(fits, init, param),
              problem = if (length(fits)) fits[[1L]]$problem else NA_character_,
              complete = complete, time = wall_clock() - started, call = call)
  out[[param]] <- values
  structure(out, class = "cg_path")
}

# a path fit's notes, its warm-start note replaced by one naming the
# path's previous value
path_notes <- function(notes, param, previous) {
  warm <- grepl("^warm start from a fit", notes)
  if (!any(warm)) return(notes)
  notes[warm] <- sprintf("warm-started from this path's fit at %s %s", param,
                         format(previous, digits = 4))
  notes
}

# A "pfw" regression path in one solver call (?sparse_regression, "Paths"):
# `spec` is the first fit's, at radii[1] from `init` (`start`: its reading
# by regression_start()); the C side solves it, then each next radius
# warm-started from the last solution, keeping the Gram columns computed.
# finish(fit, init, start, radius, started) makes each fit as
# sparse_regression() makes a single one: the fits are those of separate
# calls each warm-started from the previous (up to the rounding of a Gram
# column computed once rather than again, when the cache is full).
# lean_fit(res, iter0, radius, keep_state), when given (a CV fold's path),
# makes the fits that end with "converged", "max_iter" or "max_time" as
# regression_core() describes; the others (interrupted, failed) as finish().
regression_path <- function(spec, control, radii, finish, init, start, call, started, p,
                            stop_ratio = NULL, lean_fit = NULL) {
  spec <- spec_defaults(spec)
  spec$cold_objective <- spec$cold_objective %||% (sum(spec$y^2) / (2 * spec$n))
  # end the path after the first fit that leaves at most stop_ratio of the
  # objective at 0 (cv_sparse_regression's default radii)
  if (!is.null(stop_ratio)) spec$path_stop_objective <- stop_ratio * spec$cold_objective
  fits <- path_fits(spec, control, radii, init, call,
    lean = if (!is.null(lean_fit)) function(res, k, prev, n_res) {
      # (the iterations count from the warm start's, as continue_trace())
      iter0 <- if (k > 1L) prev$iterations else if (is.null(start)) 0L else start$iter
      lean_fit(res, iter0, radii[k], keep_state = k == n_res)
    },
    finish = function(fit, k, prev, started) {
      if (k > 1L) start <<- regression_start(prev, p, radii[k])
      finish(fit, prev, start, radii[k], started)
    })
  path_ended(fits, radii, init, call, started, spec$path_stop_objective,
             lean = !is.null(lean_fit))
}

# The cg_path of a one-call path's fits at the first of `radii`; with
# stop_objective (a path told to end after its first fit whose objective is
# at most that: glmnet's rule on cv_sparse_regression()'s default radii),
# a path that ended so is complete and says so (`stopped`).
# lean = TRUE (a CV fold's path of lean fits): its summary only what the CV
# reads (lean_summary()).
path_ended <- function(fits, radii, init, call, started, stop_objective = NULL, lean = FALSE) {
  done <- length(fits)
  stopped <- !is.null(stop_objective) && done > 0L &&
    !identical(fits[[done]]$status, "interrupted") &&
    fits[[done]]$objective <= stop_objective
  path <- new_path(fits, radii[seq_len(done)], "radius", init,
                   done == length(radii) || stopped, call, started, lean)
  if (stopped) path$stopped <- TRUE
  path
}

# The loop of a one-call path (regression_path(), least squares; glm_path(),
# the GLM families): the C side solves the whole path (path_results()),
# then each radius's result becomes a fit. The hooks say what differs:
# step(k, prev) readies radius k's start from the previous fit (GLM: its
# state key; NULL: nothing), lean(res, k, prev, n_res) a CV fold's lean fit
# of a result that ended "converged", "max_iter" or "max_time" (or NULL:
# the whole fit), finish(fit, k, prev, started) the whole fit from the
# solver's (as a separate call warm-started from prev would make it). Only
# the last fit keeps the solver's state (as fit_path()). Returns the fits
# made, in order (fewer than the radii after an early end or an interrupt).
path_fits <- function(spec, control, radii, init, call, finish, lean = NULL, step = NULL) {
  pr <- path_results(spec, control, radii)
  results <- pr$results; per_fit <- pr$per_fit; n_res <- pr$n
  fits <- vector("list", length(radii))
  done <- 0L
  prev <- init
  for (k in seq_along(radii)) {
    res <- results[[k]]
    if (is.null(res)) break
    if (!is.null(step)) step(k, prev)
    if (!is.null(lean) && res$status %in% c("converged", "max_iter", "max_time")) {
      fit <- lean(res, k, prev, n_res)
      if (!is.null(fit)) {
        fits[[k]] <- prev <- fit
        done <- k
        next
      }
    }
    fit <- path_fit_at(
      finish(cg_result(res, spec, control, "sparse_regression", call, wall_clock() - per_fit),
             k, prev, wall_clock() - per_fit),
      k, radii, init, done)
    if (is.null(fit)) break
    fits[[k]] <- fit
    if (k > 1L) fits[[k - 1L]]$state <- NULL     # as fit_path(): the last keeps it
    done <- k
    prev <- fit
  }
  fits[seq_len(done)]
}

# the values a path runs over, and their name ("radius", or "lambda")
path_param <- function(x) x$param %||% "radius"
path_values <- function(x) x[[path_param(x)]]

# one row per fit; a warm-started fit counts iterations from its init's
path_summary <- function(fits, init = NULL, param = "radius") {
  if (!length(fits))
    return(data.frame(radius = numeric(0), objective = numeric(0), gap = numeric(0),
                      converged = logical(0), iterations = integer(0), time = numeric(0)))
  prev_iter <- c(if (inherits(init, "cg_fit")) init$iterations else 0L,
                 vapply(fits, function(f) as.double(f$iterations), 0))[seq_along(fits)]
  # (a list made a data frame once, list2DF: data.frame() and `$<-` on it
  # took a sixth of a CV at 40 x 500, a summary per fold and piece)
  out <- list(
    value = vapply(fits, function(f) as.double(f[[param]]), 0),
    objective = vapply(fits, function(f) as.double(f$objective), 0),
    gap = vapply(fits, function(f) as.double(f$gap), 0),
    converged = vapply(fits, function(f) isTRUE(f$converged), NA))
  main <- lapply(fits, fit_solution)
  if (is.numeric(main[[1L]]) && is.null(dim(main[[1L]]))) {
    # (both in one pass of C per fit: the vectors b != 0 and abs(b) of
    # every fit of every fold's piece were a tenth of a CV's allocation)
    s <- l1_nonzero(main)
    out$nonzero <- s$nonzero
    out$l1_norm <- s$l1
  } else if (inherits(main[[1L]], "lowrank")) {
    out$rank <- vapply(main, function(X) sum(X$d > 0), 0L)
    out$nuclear_norm <- vapply(main, function(X) sum(X$d), 0)
  } else if (!is.null(fits[[1L]]$sparsity)) {   # a covariance: its off-diagonal zeros
    out$zeros <- vapply(fits, function(f) as.double(f$sparsity), 0)
  }
  out$iterations <- as.integer(vapply(fits, function(f) as.double(f$iterations), 0) - prev_iter)
  out$time <- vapply(fits, function(f) as.double(f$time), 0)
  names(out)[1L] <- param
  list2DF(out)
}

# A CV fold's path's summary: one row per fit, the value and whether it
# converged, all cv_radius() reads of it (the whole summary, its l1 norms,
# nonzeros and iterations, for every piece of every fold, was 6% of a CV at
# 1000 x 200)
lean_summary <- function(fits, param = "radius") {
  out <- list(value = vapply(fits, function(f) as.double(f[[param]]), 0),
              converged = vapply(fits, function(f) isTRUE(f$converged), NA))
  names(out)[1L] <- param
  list2DF(out)
}

# list(nonzero = sum(b != 0), l1 = sum(abs(b))) of each vector b of a list,
# the same numbers as those R expressions (src/regression_data.c)
l1_nonzero <- function(vs) {
  s <- if (all(vapply(vs, is.double, NA))) .Call(C_cg_l1_nonzero, vs)
  s %||% list(nonzero = vapply(vs, function(b) sum(b != 0), 0L),
              l1 = vapply(vs, function(b) sum(abs(b)), 0))
}

#' @rdname cg_path
#' @method print cg_path
#' @export
print.cg_path <- function(x, ...) {
  s <- x$summary
  v <- path_values(x)
  cat(sprintf("%s path: %d %s from %s to %s, warm-started in %s order, %s s\n",
              fmt_problem(x$problem), nrow(s),
              if (path_param(x) == "radius") "radii" else paste("values of", path_param(x)),
              fmt_num(v[1L], 4), fmt_num(v[length(v)], 4),
              if (path_param(x) == "radius") "increasing" else "decreasing", fmt_num(x$time, 3)))
  if (!isTRUE(x$complete)) cat("Interrupted: the path holds the fits finished before it\n")
  if (nrow(s) && !all(s$converged))
    cat(sprintf("%d of %d fits did not reach tol (see x$fits[[k]]$message)\n",
                sum(!s$converged), nrow(s)))
  print(s, digits = 4, row.names = FALSE)
  invisible(x)
}

#' @rdname cg_path
#' @method summary cg_path
#' @export
summary.cg_path <- function(object, ...) object$summary

# position of `radius` (or `index`) in a path's radii
path_index <- function(path_radius, radius = NULL, index = NULL, arg = "radius",
                       param = "radius") {
  if (!is.null(index)) {
    if (!is.null(radius)) stop_arg("index", "cannot be given together with `radius`")
    check_count(index, "index", max = length(path_radius))
    return(as.integer(index))
  }
  # (0: the null model of a cv_sparse_regression() path, where it has one)
  check_number(radius, arg, min = 0, strict_min = !any(path_radius == 0))
  k <- which(abs(path_radius - radius) <= 1e-8 * radius)
  if (length(k) != 1L)
    stop_arg(arg, "must be one of the path's ", if (param == "radius") "radii" else "values",
             " (", paste(format(path_radius, digits = 4),
             collapse = ", "), "), not ", format(radius, digits = 6))
  k
}

#' @rdname cg_path
#' @method coef cg_path
#' @export
coef.cg_path <- function(object, radius = NULL, index = NULL, lambda = NULL, ...) {
  if (path_param(object) == "lambda") radius <- lambda
  if (!length(object$fits)) stop_arg("object", "is an empty path")
  if (is.null(radius) && is.null(index)) {
    main <- lapply(object$fits, fit_solution)
    if (!is.numeric(main[[1L]]))
      stop_arg("radius", "must be given for a path of matrix fits (one coefficient per radius)")
    B <- do.call(cbind, main)
    if (!is.null(object$fits[[1L]]$x_center))   # regression intercepts: first row, as glmnet
      B <- rbind("(Intercept)" = vapply(object$fits, regression_intercept, 0), B)
    colnames(B) <- format(path_values(object), digits = 4)
    return(B)
  }
  coef(object$fits[[path_index(path_values(object), radius, index, path_param(object),
                                           path_param(object))]])
}

#' @rdname cg_path
#' @method predict cg_path
#' @export
predict.cg_path <- function(object, ..., radius = NULL, index = NULL, lambda = NULL) {
  if (path_param(object) == "lambda") radius <- lambda
  if (!length(object$fits)) stop_arg("object", "is an empty path")
  if (!is.null(radius) || !is.null(index))
    return(predict(object$fits[[path_index(path_values(object), radius, index,
                                           path_param(object), path_param(object))]], ...))
  P <- do.call(cbind, lapply(object$fits, function(f) predict(f, ...)))
  colnames(P) <- format(path_values(object), digits = 4)
  P
}

#' @rdname cg_path
#' @importFrom graphics matplot
#' @method plot cg_path
#' @export
plot.cg_path <- function(x, what = NULL, ...) {
  s <- x$summary
  if (!nrow(s)) stop_arg("x", "is an empty path")
  regression <- "nonzero" %in% names(s)
  covariance <- "zeros" %in% names(s)
  v <- s[[path_param(x)]]
  if (is.null(what))
    what <- if (regression) "coef" else if (covariance) c("objective", "zeros") else
      c("objective", "rank")
  what <- match_choices(what, c("coef", "objective", "rank", "zeros", "gap"), "what")
  if ("coef" %in% what && !regression) stop_arg("what", "= \"coef\" is for regression paths")
  if ("rank" %in% what && regression) stop_arg("what", "= \"rank\" is for matrix paths")
  op <- par(mfrow = c(1L, length(what)))
  on.exit(par(op))
  main <- sprintf("%s path", fmt_problem(x$problem))
  for (w in what) {
    if (w == "coef") {
      B <- do.call(cbind, lapply(x$fits, fit_solution))   # the l1-bounded coefficients
      args <- utils_modify(list(xlab = "radius (l1 norm bound)", ylab = "coefficients",
                                main = main, type = "l", lty = 1), list(...))
      do.call(matplot, c(list(v, t(B)), args))
      graphics::abline(h = 0, col = "grey")
      # number of nonzero coefficients along the top, as glmnet
      axis(3, at = v, labels = s$nonzero, cex.axis = 0.7, mgp = c(3, 0.5, 0))
    } else {
      y <- s[[w]]
      ok <- is.finite(y) & (w != "gap" | y > 0)
      if (!any(ok)) {
        plot(c(0, 1), c(0, 1), type = "n", axes = FALSE, xlab = path_param(x), ylab = w,
             main = main)
        text(0.5, 0.5, sprintf("%s not available", w))
        next
      }
      args <- utils_modify(list(xlab = path_param(x), ylab = w, main = main, type = "b",
                                pch = 20, log = if (w == "gap") "y" else ""), list(...))
      do.call(plot, c(list(v[ok], y[ok]), args))
    }
  }
  invisible(x)
}

# The fit at radius k of a one-call path (regression_path(), the GLM
# paths): `fit` is evaluated here (a promise), with the per-fit interrupt
# warning muffled; NULL, with one warning for the path, if it was
# interrupted; else the fit with its warm-start note (as fit_path()).
path_fit_at <- function(fit, k, radii, init, done) {
  fit <- withCallingHandlers(fit,
    warning = function(w) if (grepl("^fit interrupted after", conditionMessage(w)))
      invokeRestart("muffleWarning"))
  if (identical(fit$status, "interrupted")) {
    warning(sprintf(paste("path interrupted by the user at radius %d of %d (%s);",
                          "the path holds the %d fits finished before it"),
                    k, length(radii), format(radii[k], digits = 4), done), call. = FALSE)
    return(NULL)
  }
  previous <- if (k > 1L) radii[k - 1L] else if (is.list(init)) init$radius
  if (is.numeric(previous) && length(previous) == 1L)
    fit$notes <- path_notes(fit$notes, "radius", previous)
  fit
}

# The one C call of a one-call path: its results (NULL past an early end),
# the seconds per fit, the number of fits made
path_results <- function(spec, control, radii) {
  t_call <- wall_clock()
  results <- .Call(C_cg_solve_path_call, spec, run_settings(control), as.double(radii))
  list(results = results, per_fit = (wall_clock() - t_call) / length(radii),
       n = sum(!vapply(results, is.null, NA)))
}
