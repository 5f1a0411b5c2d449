# Independent tasks (the folds of a cross-validation) through the future
# framework: map_tasks() is lapply() whose tasks run where the user's
# future::plan() says (sequential by default; multisession, multicore, a
# cluster of machines, future.batchtools on a scheduler), with the same
# results under every plan and without the future packages (Suggests only).
#
# Reproducibility: the tasks' random numbers do not come from the caller's
# stream in task order (which would tie the results to the order the tasks
# run in) but from one L'Ecuyer-CMRG stream per task (parallel's
# nextRNGStream()), derived in the calling process from the caller's RNG
# state (one draw, put back); each task sets its stream and puts the
# process's RNG state back when it ends. So the caller's RNG state and kind
# are as they were: the map draws nothing from the caller's stream, and
# tasks drawing nothing give the results they would without streams.
#
# Where the tasks run: in this process by lapply() when future.apply is not
# installed, when the plan is sequential (the same evaluation future's
# sequential plan would make, without its overhead; messages appear as they
# are made and an interrupted task can end the map, see `until`), or when
# options(stochcg.future = FALSE); otherwise by future.apply::future_lapply(),
# one future per task (a slow task does not hold back a chunk of others).
#
# Progress: one progressr update per finished task when progressr is
# installed (seen under progressr::with_progress() or
# progressr::handlers(global = TRUE), from any worker); the solvers' own
# progress messages (control$progress) are unchanged (under a parallel plan
# future relays them when a task ends).

# lapply(X, FUN) with FUN(X[[i]], <args>) for the elements of X, as
# described above. `args`: further arguments of FUN, a list (shipped to the
# workers once per task: keep what a task needs, not the caller's frame);
# `seed`: give each task its own RNG stream (FALSE: the tasks must draw no
# random numbers); `label`: the progress message of task i, a function of
# i; `until`: in this process, a function of a task's result that ends the
# map when TRUE (the tasks after it are not run and their results are
# NULL), e.g. an interrupted fit. Errors in a task are raised here with
# their message.
map_tasks <- function(X, FUN, args = list(), seed = TRUE, label = NULL, until = NULL) {
  n <- length(X)
  if (!n) return(list())
  streams <- if (seed) task_streams(n) else vector("list", n)
  tasks <- lapply(seq_len(n), function(i)
    list(x = X[[i]], stream = streams[[i]], label = if (!is.null(label)) label(i)))
  progress <- if (requireNamespace("progressr", quietly = TRUE))
    progressr::progressor(steps = n)
  if (use_future()) {
    return(tryCatch(
      future.apply::future_lapply(tasks, run_task, .fun = FUN, .args = args,
                                  .progress = progress, future.seed = FALSE,
                                  future.chunk.size = 1L, future.packages = "stochcg"),
      FutureError = function(e)
        stop("a parallel task ended without a result (its worker was killed or ran out ",
             "of memory?): ", conditionMessage(e), call. = FALSE)))
  }
  res <- vector("list", n)
  for (i in seq_len(n)) {
    res[i] <- list(run_task(tasks[[i]], FUN, args, progress))
    if (!is.null(until) && isTRUE(until(res[[i]]))) break
  }
  res
}

# one task: its RNG stream set, FUN run, the process's RNG state put back
# (with_rng_kept()), one progress update
run_task <- function(task, .fun, .args, .progress = NULL) {
  res <- if (is.null(task$stream)) call_task(.fun, task$x, .args) else
    with_rng_kept({
      assign(".Random.seed", task$stream, envir = globalenv())
      call_task(.fun, task$x, .args)
    })
  if (!is.null(.progress)) .progress(message = task$label)
  res
}

# .fun(x, <args>) as the call `.fun(.x, name = name, ...)` of symbols bound
# in an environment, not of the values themselves (do.call() with the values
# would put the data into the call of any error, deparsed when printed);
# `args` must be named
call_task <- function(.fun, x, args) {
  env <- list2env(c(list(.fun = .fun, .x = x), args), parent = emptyenv())
  call <- as.call(c(list(as.name(".fun"), as.name(".x")),
                    stats::setNames(lapply(names(args), as.name), names(args))))
  eval(call, env)
}

# n L'Ecuyer-CMRG streams (.Random.seed vectors) seeded by one draw of the
# caller's stream; the caller's RNG state and kind are put back (the
# streams are a function of the state: a caller drawing between two maps
# gets new ones)
task_streams <- function(n) {
  seed <- with_rng_kept({
    s <- sample.int(.Machine$integer.max, 1L)
    RNGkind("L'Ecuyer-CMRG")
    set.seed(s)
    get(".Random.seed", envir = globalenv())
  })
  streams <- vector("list", n)
  for (i in seq_len(n)) {
    seed <- parallel::nextRNGStream(seed)
    streams[[i]] <- seed
  }
  streams
}

# whether map_tasks() hands its tasks to future.apply (see above)
use_future <- function() {
  isTRUE(getOption("stochcg.future", TRUE)) &&
    requireNamespace("future.apply", quietly = TRUE) &&
    !inherits(future::plan(), "sequential")
}

# The deprecated `cores` of sparse_covariance(): `cores` > 1 runs the call's
# folds under a temporary plan(multicore, workers = cores) (multisession
# where forks are not available), put back when the call ends, unless the
# user has set a parallel plan (which then decides); a message once per
# session says how to set the plan instead. Without the future packages the
# folds run in this process (with a message). Returns the plan to restore
# (NULL: nothing to restore); the caller does on.exit(restore_plan(old)).
plan_for_cores <- function(cores) {
  if (is.null(cores) || cores <= 1) return(NULL)
  if (!requireNamespace("future.apply", quietly = TRUE)) {
    message_once("cores_no_future", sprintf(paste(
      "`cores` = %d: the folds run in parallel through the future framework; install",
      "the future.apply package (and set future::plan()). Running them in this process."),
      as.integer(cores)))
    return(NULL)
  }
  if (!inherits(future::plan(), "sequential")) {
    message_once("cores_plan", paste(
      "`cores` is deprecated and ignored: the folds run on the workers of your",
      "future::plan()"))
    return(NULL)
  }
  fork <- future::supportsMulticore()
  message_once("cores_deprecated", sprintf(paste(
    "`cores` is deprecated: set the plan once instead, e.g. future::plan(%s, workers = %d)",
    "(or a cluster: see vignette(\"beyond-one-machine\", package = \"stochcg\")); this call",
    "uses that plan and puts yours back"),
    if (fork) "future::multicore" else "future::multisession", as.integer(cores)))
  if (fork) future::plan(future::multicore, workers = as.integer(cores))
  else future::plan(future::multisession, workers = as.integer(cores))
}

restore_plan <- function(old) if (!is.null(old)) future::plan(old)

# a message shown once per R session (per `key`)
message_once <- function(key, text) {
  if (isTRUE(shown_once[[key]])) return(invisible(FALSE))
  shown_once[[key]] <- TRUE
  message(text)
  invisible(TRUE)
}
shown_once <- new.env(parent = emptyenv())
