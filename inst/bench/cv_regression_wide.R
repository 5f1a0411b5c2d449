# cv_sparse_regression() against glmnet::cv.glmnet() at p >> n (issue 25):
# the same 10 fold ids, an intercept for both, glmnet with standardize =
# FALSE (ours fits the raw scale), defaults otherwise (glmnet 100 lambdas,
# thresh 1e-7; ours 30 radii, "pfw", tol 1e-6, the grid stopped past the CV
# minimum). Companion of cv_regression.R (p <= 451, Boston and stock returns).
#
# Data: real gene-expression designs shipped by installed R packages, with a
# gene as the continuous response (the first column of the matrix; X = the
# other columns), and riboflavin (hdi; 71 x 4088, the log production rate as
# response), read from the hdi package when installed, else from the file
# named by the environment variable STOCHCG_RIBOFLAVIN (its data/
# riboflavin.RData); simulated designs: n x p Gaussian with 5 common factors
# (correlated columns), 10 true coefficients, noise sd 1.
# Each data set: 80% training rows (CV there), 20% test rows (test MSE of
# the 1se fits). Times: wall and CPU (user + sys) seconds of one call each
# (`cv_cpu_ratio`: ours / glmnet in CPU seconds, steadier under load),
# side by side in one run, with the load average (2 cores shared with other
# jobs: ratios are what count). `unconv`: fits (folds and full data) that
# did not reach tol. Single fit: sparse_regression() at our 1se radius on the
# training rows, against glmnet() at the lambda whose solution has that l1
# norm (found on glmnet's own path, then fitted alone with lambda = it).
#
# Run from the repository root:  Rscript inst/bench/cv_regression_wide.R
suppressPackageStartupMessages(library(stochcg))
stopifnot(requireNamespace("glmnet", quietly = TRUE))

# STOCHCG_BENCH_REPS = k: each call timed k times, the median wall and CPU
# seconds reported (steadier under load; default 1)
reps <- max(1L, as.integer(Sys.getenv("STOCHCG_BENCH_REPS", "1")))
timed <- function(f) {
  wall <- cpu <- numeric(reps)
  for (r in seq_len(reps)) {
    t0 <- proc.time(); v <- f(); t <- proc.time() - t0
    wall[r] <- t[["elapsed"]]; cpu[r] <- t[["user.self"]] + t[["sys.self"]]
  }
  list(value = v, wall = stats::median(wall), cpu = stats::median(cpu))
}

gene_response <- function(M) list(X = M[, -1], y = M[, 1])
datasets <- list()
add_pkg <- function(name, pkg, get) {
  if (!requireNamespace(pkg, quietly = TRUE)) return(invisible())
  e <- new.env()
  ok <- tryCatch({ utils::data(list = get$data, package = pkg, envir = e); TRUE },
                 error = function(err) FALSE)
  if (ok) datasets[[name]] <<- function() get$make(e[[get$data]])
}
ribo <- function() {
  e <- new.env()
  if (requireNamespace("hdi", quietly = TRUE)) utils::data("riboflavin", package = "hdi", envir = e)
  else if (nzchar(Sys.getenv("STOCHCG_RIBOFLAVIN"))) load(Sys.getenv("STOCHCG_RIBOFLAVIN"), envir = e)
  else return(NULL)
  X <- unclass(e$riboflavin$x)
  list(X = matrix(as.double(X), nrow(X)), y = e$riboflavin$y)
}
datasets$riboflavin <- ribo
add_pkg("Colon gene 1", "plsgenomics", list(data = "Colon", make = function(d) gene_response(d$X)))
add_pkg("lymphoma gene 1", "spls", list(data = "lymphoma", make = function(d) gene_response(d$x)))
add_pkg("Khan gene 1", "ISLR", list(data = "Khan", make = function(d) gene_response(rbind(d$xtrain, d$xtest))))
add_pkg("prostate gene 1", "spls", list(data = "prostate", make = function(d) gene_response(d$x)))
add_pkg("NCI60 gene 1", "ISLR", list(data = "NCI60", make = function(d) gene_response(d$data)))
simulated <- function(n, p, seed = 1) {
  force(n); force(p); force(seed)
  function() {
  set.seed(seed)
  X <- matrix(rnorm(n * 5), n) %*% matrix(rnorm(5 * p), 5) + matrix(rnorm(n * p), n)
  y <- drop(X[, 1:10] %*% rnorm(10, sd = 2) + rnorm(n))
  list(X = X, y = y)
  }
}
sizes <- list(c(50, 500), c(100, 2000), c(200, 5000), c(500, 20000), c(2000, 5000), c(5000, 500))
only <- Sys.getenv("STOCHCG_BENCH_SIZES")        # e.g. "50x500,200x5000" for a subset
for (s in sizes) {
  nm <- sprintf("simulated %dx%d", s[1], s[2])
  if (!nzchar(only) || sprintf("%dx%d", s[1], s[2]) %in% strsplit(only, ",")[[1]])
    datasets[[nm]] <- simulated(s[1], s[2])
}

run_case <- function(name, d, seed = 1) {
  if (is.null(d)) return(NULL)
  sp <- split_case(d, seed)
  X <- sp$X; y <- sp$y; Xt <- sp$Xt; yt <- sp$yt; foldid <- sp$foldid
  g <- timed(function() glmnet::cv.glmnet(X, y, foldid = foldid, standardize = FALSE))
  o <- timed(function() suppressWarnings(cv_sparse_regression(X, y, folds = foldid, standardize = FALSE)))
  G <- g$value; C <- o$value
  r1 <- C$radius.1se
  # single fit at our 1se radius: glmnet at the lambda with that l1 norm
  gp <- glmnet::glmnet(X, y, standardize = FALSE)
  l1 <- colSums(abs(as.matrix(gp$beta)))
  lam <- if (r1 >= max(l1)) min(gp$lambda) else
    exp(stats::approx(l1, log(gp$lambda), xout = r1, ties = mean)$y)
  s_g <- timed(function() glmnet::glmnet(X, y, lambda = lam, standardize = FALSE))
  s_o <- timed(function() sparse_regression(X, y, r1, standardize = FALSE))
  data.frame(data = name, n = nrow(X), p = ncol(X),
             cv_s_cg = o$wall, cv_s_glmnet = g$wall, cv_cpu_cg = o$cpu, cv_cpu_glmnet = g$cpu,
             cv_ratio = o$wall / g$wall, cv_cpu_ratio = o$cpu / g$cpu,
             test_mse_cg = mean((yt - predict(C, Xt))^2),
             test_mse_glmnet = mean((yt - as.vector(predict(G, Xt, s = "lambda.1se")))^2),
             nnz_cg = sum(C$fit$solution$beta != 0), nnz_glmnet = G$nzero[G$lambda == G$lambda.1se],
             unconv = sum(!C$cv$converged), radii = nrow(C$cv),
             fit_s_cg = s_o$wall, fit_s_glmnet = s_g$wall, fit_ratio = s_o$wall / s_g$wall,
             fit_conv = s_o$value$converged,
             load = sp$load, row.names = NULL)
}

fmt <- function(x) {
  if (!is.numeric(x)) return(as.character(x))
  if (isTRUE(x == round(x)) && abs(x) < 1e6) return(format(x, scientific = FALSE))
  formatC(x, digits = 3, format = "g")
}
md_table <- function(df) {
  c(paste0("| ", paste(names(df), collapse = " | "), " |"),
    paste0("|", paste(rep("---", ncol(df)), collapse = "|"), "|"),
    apply(df, 1, function(r) paste0("| ", paste(r, collapse = " | "), " |")))
}
# a results file's table: every column formatted by fmt()
md_shown <- function(df) {
  df[] <- lapply(df, function(col) vapply(col, fmt, ""))
  md_table(df)
}
# a results file's first lines: title, versions, time and STOCHCG_BENCH_NOTE
bench_header <- function(title) {
  c(paste("#", title), "",
    sprintf("R %s, glmnet %s, stochcg %s; %s; %s.", getRversion(),
            utils::packageVersion("glmnet"), utils::packageVersion("stochcg"),
            format(Sys.time(), "%Y-%m-%d %H:%M"), Sys.getenv("STOCHCG_BENCH_NOTE")), "")
}
# a data set's 80% training rows (sorted) and 20% held out, 10 fold ids of
# the training rows, and the 1-minute load average now
split_case <- function(d, seed = 1) {
  set.seed(seed)
  n <- nrow(d$X)
  train <- sort(sample(n, round(0.8 * n)))
  list(X = d$X[train, ], y = d$y[train], Xt = d$X[-train, ], yt = d$y[-train],
       foldid = sample(rep_len(1:10, length(train))),
       load = strsplit(readLines("/proc/loadavg"), " ")[[1]][1])
}

# The standardized defaults of both (cv.glmnet(X, y, foldid) against
# cv_sparse_regression(X, y, folds = foldid): standardize = TRUE, intercept),
# on simulated designs (all rows in the CV): wall and CPU seconds, one run.
std_sizes <- list(c(60, 4000), c(200, 2000), c(1000, 200))
std_case <- function(n, p, seed = 1) {
  d <- simulated(n, p, seed)()
  set.seed(seed)
  foldid <- sample(rep_len(1:10, n))
  load <- strsplit(readLines("/proc/loadavg"), " ")[[1]][1]
  g <- timed(function() glmnet::cv.glmnet(d$X, d$y, foldid = foldid))
  o <- timed(function() suppressWarnings(cv_sparse_regression(d$X, d$y, folds = foldid)))
  data.frame(n = n, p = p, cv_s_cg = o$wall, cv_s_glmnet = g$wall, cv_cpu_cg = o$cpu,
             cv_cpu_glmnet = g$cpu, cv_cpu_ratio = o$cpu / g$cpu,
             unconv = sum(!o$value$cv$converged), radii = nrow(o$value$cv),
             load = load, row.names = NULL)
}
std_res <- NULL

# the table so far, written after each data set
write_results <- function(res, echo = FALSE) {
  shown <- if (is.null(res)) data.frame(data = character(0)) else res
  out <- c(bench_header("cv_sparse_regression against cv.glmnet at p >> n (same folds)"),
           paste("`inst/bench/cv_regression_wide.R`. Intercept for both, glmnet standardize =",
                 "FALSE, 10 folds (the same ids), 80% of the rows for training. `cv_s_*`: wall",
                 sprintf("seconds of one CV call%s, `cv_cpu_*`: CPU seconds (user + sys), `cv_ratio` ours /",
                         if (reps > 1L) sprintf(" (median of %d calls)", reps) else ""),
                 "glmnet (wall), `cv_cpu_ratio` (CPU); test MSE of the 1se fits on the 20% held out; `unconv`: radii",
                 "with a fit that did not reach tol, of `radii` fitted. `fit_*`: one fit at our",
                 "1se radius against glmnet at the lambda of that l1 norm. `load`: 1-minute",
                 "load average at the start of the row (2 cores shared with other jobs)."),
           "", md_shown(shown))
  if (!is.null(std_res)) {
    out <- c(out, "", "## Standardized defaults of both (standardize = TRUE)", "",
             paste("`cv.glmnet(X, y, foldid = ids)` against `cv_sparse_regression(X, y, folds =",
                   "ids)`, both at their defaults (standardized, intercept), simulated designs",
                   "as above with all n rows in the CV."), "", md_shown(std_res))
  }
  dir.create("inst/bench/results", showWarnings = FALSE, recursive = TRUE)
  writeLines(out, "inst/bench/results/cv_regression_wide.md")
  if (echo) cat(out, sep = "\n")
}

# (regression_single_wide.R reads the definitions above only)
if (!nzchar(Sys.getenv("STOCHCG_BENCH_DEFS_ONLY"))) {
res <- NULL
only_data <- Sys.getenv("STOCHCG_BENCH_DATA")   # e.g. "riboflavin,Khan gene 1"
for (nm in names(datasets)) {
  if (nzchar(only_data) && !startsWith(nm, "simulated") &&
      !nm %in% strsplit(only_data, ",")[[1]]) next
  row <- run_case(nm, datasets[[nm]]())
  if (is.null(row)) next
  print(row, digits = 3)
  res <- rbind(res, row)
  write_results(res)
}
if (!nzchar(Sys.getenv("STOCHCG_BENCH_NO_STD"))) for (s in std_sizes) {
  row <- std_case(s[1], s[2])
  print(row, digits = 3)
  std_res <- rbind(std_res, row)
  write_results(res)
}
write_results(res, echo = TRUE)
}
