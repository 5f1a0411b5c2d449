# Exact continuation (init =): from the same seed, one run of k1 + k2
# iterations against k1 iterations and then k2 more from that fit. All but
# the clock must be bit-identical: the solution, objective, gap, iteration
# count, the joined trace (every row: run(k, init) should evaluate every
# iteration), the state the fit keeps, and the RNG stream after the fits
# (the resumed run drew what the long one did). Returns the three fits.
expect_exact_resume <- function(run, k1, k2, seed = 1, label = "") {
  set.seed(seed)
  long <- run(k1 + k2)
  rng_long <- runif(1)
  set.seed(seed)
  first <- run(k1)
  second <- run(k2, first)
  rng_resumed <- runif(1)
  expect_identical(long$iterations, as.integer(k1 + k2), label = label)
  expect_same_run(second, long, label)
  expect_identical(rng_resumed, rng_long, label = label)
  expect_match(second$notes, sprintf("^continued exactly from a fit of %d iterations", k1),
               all = FALSE, label = label)
  invisible(list(long = long, first = first, second = second))
}

# The same first fit without its state (`fit$state <- NULL`) is a warm
# start: another run. Returns it, for tests of what differs.
warm_resume <- function(run, k1, k2, seed = 1) {
  set.seed(seed)
  first <- run(k1)
  first$state <- NULL
  run(k2, first)
}

# every part of a fit a continuation must reproduce: the solution, objective,
# gap, iteration count, the trace but its clock, and the state it keeps
expect_same_run <- function(part, whole, label = "") {
  expect_identical(part$solution, whole$solution, label = label)
  expect_identical(part$objective, whole$objective, label = label)
  expect_identical(part$gap, whole$gap, label = label)
  expect_identical(part$iterations, whole$iterations, label = label)
  keep <- setdiff(names(whole$trace), "time")
  expect_identical(part$trace[keep], whole$trace[keep], label = label)
  expect_identical(part$state, whole$state, label = label)
}
