# Tuning and fitting matrix completion, stochcg against softImpute side by
# side in one run (issue 25): the defaults of cv_complete_matrix() against
# softImpute's usual tuning, and complete_matrix() at a given radius against
# softImpute's final fit, by time to the same held-out RMSE.
#
# Data (each: training entries, held-out test entries, never used to tune):
#   nci60      ISLR::NCI60$data, 64 x 6830 expression, 20% of the entries
#              hidden at random (completion as imputation)
#   movielens  dslabs::movielens (671 x 9066, 100k ratings), each user's
#              latest 10% of ratings (at least one) held out
#   sim        2000 x 300 rank-10 matrix + N(0, 1) noise (signal sd about
#              1.8), 10% of the cells observed; test: 20000 other cells
#   sim_square 1000 x 1000 rank 5, otherwise as sim
#   sim_wide   300 x 3000 rank 10, otherwise as sim
#
# softImpute (type "als", rank.max 50, its default thresh and maxit), as its
# users tune it: grand mean + row + column effects removed by least squares
# (stochcg:::center_effects) on the fitting entries, 12 lambdas log-spaced
# from lambda0() down to lambda0 / 100, warm starts along them, scored on a
# random 10% of the training entries; then the chosen lambda refitted on
# all training entries (effects refitted too). Its final fit is also timed
# alone.
# stochcg: cv_complete_matrix(train, center = "both") with its defaults
# (a validation split of 10%, method "fw" with the subspace refit, gap-
# stopped fits, the data-anchored grid, early stop); test RMSE of its fit
# (radius.1se) and of radius.min. Single fit: complete_matrix(method =
# "fw", center = "both") at the nuclear norm of softImpute's final fit,
# with max_iter 5, 10, 15, 20, 30, 50 (separate runs from scratch, tol 0):
# the first that reaches softImpute's test RMSE, its seconds.
#
# Seconds: CPU (user + system of this process: the BLAS is single-threaded)
# and wall; the machine's load is printed. Run from the repository root:
#   Rscript inst/bench/completion_tuning.R
suppressPackageStartupMessages(library(stochcg))
stopifnot(requireNamespace("softImpute", quietly = TRUE),
          requireNamespace("dslabs", quietly = TRUE),
          requireNamespace("ISLR", quietly = TRUE))

# a fraction `hide` of a full matrix's entries as the test set (at random),
# the rest for training
hide_split <- function(X, seed = 1, hide = 0.2) {
  set.seed(seed)
  N <- length(X); idx <- sample(N, round(hide * N))
  w <- arrayInd(seq_len(N), dim(X))
  tr <- setdiff(seq_len(N), idx)
  list(train = data.frame(row = w[tr, 1], col = w[tr, 2], value = X[tr]),
       test = data.frame(row = w[idx, 1], col = w[idx, 2], value = X[idx]),
       m = nrow(X), n = ncol(X))
}
nci60_split <- function(seed = 1, hide = 0.2) hide_split(ISLR::NCI60$data, seed, hide)
movielens_latest <- function(frac = 0.1) {
  ml <- dslabs::movielens
  user <- match(ml$userId, sort(unique(ml$userId)))
  movie <- match(ml$movieId, sort(unique(ml$movieId)))
  o <- order(user, -ml$timestamp)
  rk <- ave(seq_along(o), user[o], FUN = seq_along)
  nu <- tabulate(user)[user[o]]
  held <- logical(nrow(ml)); held[o] <- rk <= pmax(1, round(frac * nu))
  train <- data.frame(row = user[!held], col = movie[!held], value = ml$rating[!held])
  test <- data.frame(row = user[held], col = movie[held], value = ml$rating[held])
  test <- test[test$row %in% train$row & test$col %in% train$col, ]
  list(train = train, test = test, m = max(user), n = max(movie))
}
sim_split <- function(m = 2000, n = 300, rank = 10, frac = 0.1, seed = 7) {
  set.seed(seed)
  L <- tcrossprod(matrix(rnorm(m * rank), m), matrix(rnorm(n * rank), n)) / sqrt(rank) * 1.8
  cells <- sample(m * n, round(frac * m * n) + 20000)
  tr <- cells[seq_len(round(frac * m * n))]; te <- setdiff(cells, tr)
  mk <- function(k) data.frame(row = (k - 1) %% m + 1, col = (k - 1) %/% m + 1,
                               value = L[k] + rnorm(length(k)))
  list(train = mk(tr), test = mk(te), m = m, n = n)
}

cpu <- function(pt) { d <- proc.time() - pt; c(cpu = d[["user.self"]] + d[["sys.self"]],
                                               wall = d[["elapsed"]]) }
load_now <- function() as.numeric(strsplit(sub(".*load average: ", "", system("uptime", TRUE)),
                                           ", ")[[1]][1])

# softImpute on the residuals of the least-squares effects of `tr`
si_fit <- function(tr, dims, lambda, warm = NULL, rank.max = 50) {
  o <- list(row = tr$row, col = tr$col, value = tr$value, dims = dims)
  eff <- stochcg:::center_effects(o, "both")
  res <- tr$value - eff$mean - eff$row[tr$row] - eff$col[tr$col]
  X <- softImpute::Incomplete(tr$row, tr$col, res)
  list(X = X, eff = eff, fit = if (!is.null(lambda))
    softImpute::softImpute(X, rank.max = rank.max, lambda = lambda, type = "als",
                           warm.start = warm))
}
si_predict <- function(s, f, new)
  softImpute::impute(f, new$row, new$col) + s$eff$mean + s$eff$row[new$row] + s$eff$col[new$col]
rmse <- function(p, y) sqrt(mean((p - y)^2))

si_tune <- function(d, seed = 3) {
  dims <- c(d$m, d$n)
  set.seed(seed)
  val <- sample(nrow(d$train), round(0.1 * nrow(d$train)))
  tr <- d$train[-val, ]; va <- d$train[val, ]
  s <- si_fit(tr, dims, NULL)
  lam0 <- softImpute::lambda0(s$X)
  lams <- lam0 * exp(seq(0, log(0.01), length.out = 12))
  warm <- NULL; err <- numeric(0)
  for (l in lams) {
    f <- suppressWarnings(softImpute::softImpute(s$X, rank.max = 50, lambda = l, type = "als",
                                                 warm.start = warm))
    warm <- f
    err <- c(err, rmse(si_predict(s, f, va), va$value))
  }
  best <- which.min(err)
  full <- suppressWarnings(si_fit(d$train, dims, lams[best]))
  list(lambda = lams[best], lam0 = lam0, full = full)
}

# Rscript inst/bench/completion_tuning.R sim  runs some data sets only (no md)
which_data <- commandArgs(TRUE)
all_data <- length(which_data) == 0L
if (all_data) which_data <- c("nci60", "movielens", "sim", "sim_square", "sim_wide")
rows <- list(); single <- list()
for (name in which_data) {
  d <- switch(name, nci60 = nci60_split(), movielens = movielens_latest(), sim = sim_split(),
              sim_square = sim_split(1000, 1000, rank = 5),
              sim_wide = sim_split(300, 3000, rank = 10))
  cat(sprintf("\n== %s: %d x %d, %d training entries, %d test; load %.1f\n", name, d$m, d$n,
              nrow(d$train), nrow(d$test), load_now()))
  # --- softImpute tuning (with its final fit)
  l1 <- load_now(); pt <- proc.time()
  st <- si_tune(d)
  t_si <- cpu(pt)
  p <- si_predict(st$full, st$full$fit, d$test)
  si_rmse <- rmse(p, d$test$value)
  si_rank <- sum(st$full$fit$d > 0); si_nuc <- sum(st$full$fit$d)
  rows[[length(rows) + 1]] <- data.frame(data = name, method = "softImpute tuning",
    choice = sprintf("lambda0 x %.3g", st$lambda / st$lam0), rank = si_rank,
    nuclear = si_nuc, test_rmse = si_rmse, cpu = t_si[["cpu"]], wall = t_si[["wall"]],
    load = l1)
  # --- stochcg cv defaults
  l1 <- load_now(); pt <- proc.time()
  set.seed(11)
  cvf <- cv_complete_matrix(d$train, center = "both", dims = c(d$m, d$n),
                            control = cg_control(max_iter = 200, tol = 1e-2, progress = TRUE))
  t_cg <- cpu(pt)
  for (s in c("radius.1se", "radius.min")) {
    f <- cvf$path$fits[[stochcg:::cv_choice(cvf, s)]]
    rows[[length(rows) + 1]] <- data.frame(data = name,
      method = sprintf("cv_complete_matrix (%s)", s),
      choice = sprintf("radius %.4g (%d radii)", f$radius, nrow(cvf$cv)), rank = f$rank,
      nuclear = sum(f$solution$X$d), test_rmse = rmse(predict(f, d$test), d$test$value),
      cpu = t_cg[["cpu"]], wall = t_cg[["wall"]], load = l1)
  }
  # --- single fits: softImpute's final fit alone, ours at its nuclear norm
  l1 <- load_now(); pt <- proc.time()
  s1 <- suppressWarnings(si_fit(d$train, c(d$m, d$n), st$lambda))
  t1 <- cpu(pt)
  r1 <- rmse(si_predict(s1, s1$fit, d$test), d$test$value)
  single[[length(single) + 1]] <- data.frame(data = name, method = "softImpute final fit",
    setting = sprintf("lambda %.4g", st$lambda), iterations = NA, rank = sum(s1$fit$d > 0),
    test_rmse = r1, cpu = t1[["cpu"]], wall = t1[["wall"]], load = l1)
  for (it in c(5, 10, 15, 20, 30, 50)) {
    l1 <- load_now(); pt <- proc.time()
    f <- complete_matrix(d$train, radius = sum(s1$fit$d), center = "both", method = "fw",
                         dims = c(d$m, d$n),
                         control = cg_control(max_iter = it, tol = 0, eval_every = it,
                                              progress = FALSE))
    tt <- cpu(pt)
    r <- rmse(predict(f, d$test), d$test$value)
    single[[length(single) + 1]] <- data.frame(data = name, method = "complete_matrix fw",
      setting = sprintf("radius %.4g", sum(s1$fit$d)), iterations = it, rank = f$rank,
      test_rmse = r, cpu = tt[["cpu"]], wall = tt[["wall"]], load = l1)
    if (r <= r1) break
  }
  print(do.call(rbind, utils::tail(rows, 3)), digits = 4)
  print(do.call(rbind, Filter(function(x) x$data == name, single)), digits = 4)
}
tab <- do.call(rbind, rows); tab1 <- do.call(rbind, single)
md_table <- function(x) {
  x[] <- lapply(x, function(v) if (is.numeric(v)) format(v, digits = 4) else v)
  c(paste("|", paste(names(x), collapse = " | "), "|"),
    paste("|", paste(rep("---", ncol(x)), collapse = " | "), "|"),
    apply(x, 1, function(r) paste("|", paste(r, collapse = " | "), "|")))
}
out <- c("# Completion tuning and single fits: stochcg against softImpute (issue 25)", "",
         sprintf("R %s, softImpute %s, stochcg %s; %s. One run, side by side; CPU = user + system seconds of the process, wall = elapsed; load = 1-minute load average at the start of each row (2 cores shared).",
                 getRversion(), utils::packageVersion("softImpute"),
                 utils::packageVersion("stochcg"), format(Sys.time(), "%Y-%m-%d %H:%M")),
         "", "Data and procedures: see the header of inst/bench/completion_tuning.R.", "",
         "## Tuning (whole procedure, including the final fit on all training entries)", "",
         md_table(tab), "",
         "## Single fit at the chosen parameter: softImpute's final fit, ours at its nuclear norm (runs of increasing max_iter until its test RMSE is reached)", "",
         md_table(tab1))
dir.create(file.path("inst", "bench", "results"), showWarnings = FALSE)
if (all_data) writeLines(out, file.path("inst", "bench", "results", "completion_tuning.md"))
cat(out, sep = "\n")
