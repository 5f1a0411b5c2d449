# The one internal dispatcher: every problem function validates its input,
# builds a `spec` (a plain list the C side reads by name) and calls cg_run().
# cg_run() makes the single .Call and assembles the parts of the fit that all
# problems share; the caller adds its problem-specific elements and returns
# finish_fit(fit, started), `started` being wall_clock() on entry.

# gap_relative: the problem's gap is already scale-free (P->gap_relative in
# C) and tol bounds it directly; gap_name names it in messages.
cg_run <- function(spec, control, problem, call, started, gap_relative = FALSE,
                   gap_name = "duality gap") {
  stopifnot(is.list(spec), inherits(control, "cg_control"))
  control <- as_control(control)      # settings still NULL: the common defaults
  spec <- spec_defaults(spec)
  # RSpectra warns when a Lanczos run does not converge; the C side handles
  # that itself (a wider subspace, or the failure channel), so the warning
  # would only alarm
  res <- withCallingHandlers(.Call(C_cg_solve_call, spec, run_settings(control)),
    warning = function(w)
      if (grepl("eigenvalue\\(s\\) converged, less than", conditionMessage(w)))
        invokeRestart("muffleWarning"))
  cg_result(res, spec, control, problem, call, started, gap_relative, gap_name)
}

spec_defaults <- function(spec) {
  spec$K <- as.integer(spec$K %||% 2L)
  spec$eta <- as.double(spec$eta %||% -1)
  spec$step <- spec$step %||% "standard"
  spec
}

# the control list as C reads it
run_settings <- function(control) {
  settings <- unclass(control)
  settings$eval_every <- control$eval_every %||% 0L   # 0: adaptive schedule
  settings
}

# the fit from the result of one solve (cg_run(), and each radius of a
# regression path, R/path.R)
cg_result <- function(res, spec, control, problem, call, started, gap_relative = FALSE,
                      gap_name = "duality gap") {
  # (list2DF: as.data.frame() and a row's `[` took a quarter of the time of a
  # warm-started regression fit along a path)
  trace <- list2DF(res$trace)
  last <- lapply(trace, function(col) col[length(col)])
  status <- res$status
  scale <- if (gap_relative) 1 else tol_scale(trace, spec$cold_objective %||% 0)
  message <- switch(status,
    converged = if (gap_relative) sprintf("%s %.3g below tol = %g", gap_name, last$gap,
                                          control$tol)
      else sprintf("%s %.3g below tol x %s = %.3g", gap_name, last$gap,
                   if (scale > abs(last$objective)) "|objective at start| / 1000"
                   else "|objective|", control$tol * scale),
    max_iter = paste0(sprintf("reached max_iter = %d", control$max_iter),
                      unfinished_hint(last$gap, scale, control, "max_iter")),
    max_time = paste0(sprintf("reached max_time = %g s", control$max_time),
                      unfinished_hint(last$gap, scale, control, "max_time")),
    interrupted = "interrupted by the user; the fit holds the last iterate",
    error = sprintf("stopped after %d iterations: %s; the fit holds the last iterate",
                    res$iterations,
                    if (nzchar(res$message)) res$message else "numerical failure"))
  if (status == "interrupted") warning("fit interrupted after ", res$iterations,
                                       " iterations", call. = FALSE)
  if (status == "error") warning(message, call. = FALSE)
  fit <- list(solution = res$solution, objective = last$objective, gap = last$gap,
              infeasibility = NA_real_, trace = trace, method = spec$method,
              problem = problem, control = control,
              converged = identical(status, "converged"), status = status,
              message = message, iterations = res$iterations,
              time = wall_clock() - started, solver_time = last$time, call = call)
  # homotopy methods: the beta0 the last iteration used (adaptive "auto" rescales it)
  if (!is.na(res$beta0)) fit$beta0 <- res$beta0
  # the solver loop's own state for an exact continuation (src/stochcg.h,
  # cg_loop_state: its scalars state_loop, its arrays state_solver), with
  # the problem's state_* parts of the solution; given back in a spec as is
  for (part in c("state_loop", "state_solver"))
    if (!is.null(res[[part]])) fit$solution[[part]] <- res[[part]]
  fit
}

wall_clock <- function() proc.time()[["elapsed"]]

# A fit whose solution is known exactly without iterating (gap 0, one trace
# row at iteration 0): the same fields as cg_run()'s, method "closed_form"
closed_form_fit <- function(solution, objective, problem, message, call, started,
                            control = cg_control()) {
  trace <- data.frame(iter = 0L, epoch = 0, time = 0, objective = objective, gap = 0,
                      infeasibility = NA_real_, n_grad = 0, n_lmo = 0, svd_rank = 0L,
                      n_matvec = 0)
  list(solution = solution, objective = objective, gap = 0, infeasibility = NA_real_,
       trace = trace, method = "closed_form", problem = problem, control = control,
       converged = TRUE, status = "converged", message = message, iterations = 0L,
       time = wall_clock() - started, solver_time = 0, call = call)
}

# how far a run that ran out of budget is from its tolerance, and what to do
# (scale: what tol is relative to, tol_scale() or 1)
unfinished_hint <- function(gap, scale, control, budget) {
  if (is.na(gap) || control$tol <= 0) return("")
  sprintf(" with the relative gap at %.2g > tol = %g: raise %s for more accuracy",
          gap / scale, control$tol, budget)
}

# what `tol` is relative to (as in C, cg_run_small_gap): the objective, or
# a thousandth of the starting one if larger (optima near zero); a warm
# start's starting objective is at least the cold start's, `cold_objective`
tol_scale <- function(trace, cold_objective = 0) {
  obj0 <- trace$objective[1L]
  max(abs(trace$objective[nrow(trace)]),
      1e-3 * max(if (is.finite(obj0)) abs(obj0) else 0, cold_objective))
}

# `time` is the wall clock of the whole call, from argument checks to the
# finished fit; `solver_time` (the trace's clock) leaves out evaluations.
finish_fit <- function(fit, started) {
  fit$time <- max(wall_clock() - started, fit$solver_time)
  fit
}

`%||%` <- function(a, b) if (is.null(a)) b else a

sampling_code <- function(sampling) {
  match(sampling, c("shuffle", "stream", "replace")) - 1L
}

# default step rule per method (see ?sparse_regression)
default_step <- function(method, step, arg = "step") {
  if (is.null(step)) return(if (method == "fw") "line_search" else "sfw")
  match_choice(step, c("line_search", "standard", "sfw"), arg)
}

# A resumed fit's trace continues its init's: iterations and work counters
# count from there; an exact continuation keeps the init's rows before it.
# the note of a fit that continued `iter` iterations of its init exactly
continued_note <- function(iter)
  sprintf("continued exactly from a fit of %d iterations (as one longer run)", as.integer(iter))

continue_trace <- function(fit, init, start) {
  tr <- fit$trace
  tr$iter <- tr$iter + start$iter
  fit$iterations <- fit$iterations + start$iter
  if (start$exact && is.data.frame(init$trace) && nrow(init$trace) > 0L) {
    prev <- init$trace
    last <- prev[nrow(prev), ]
    for (k in c("time", "n_grad", "n_lmo", "n_matvec"))
      if (k %in% names(tr)) tr[[k]] <- tr[[k]] + last[[k]]
    prev <- prev[prev$iter < start$iter, intersect(names(tr), names(prev)), drop = FALSE]
    tr <- rbind(prev, tr)
    rownames(tr) <- NULL
  }
  fit$trace <- tr
  fit
}
