# sparse_regression(family = "binomial" / "poisson") and
# cv_sparse_regression() with those families against glmnet (issue 25).
#
# Both with their defaults otherwise: standardize = TRUE and an intercept;
# glmnet thresh 1e-7, ours tol 1e-6 (relative gap, method "pfw").
#
# Table 1, single fits at a matched l1 norm: glmnet's coefficients b at a
# lambda (a fraction of lambda_max, glmnet's single-lambda call) give the
# radius sum_j sd_j |b_j| (sd: the columns' standard deviations, divisor
# n), at which the constrained problem has glmnet's solution. Accuracy
# against a tight glmnet reference (thresh 1e-14) at that lambda:
# diff_ours = max |coef(ours) - coef(ref)|, diff_glmnet = the same for
# glmnet's default call; obj_diff = our objective (half the mean deviance)
# minus that of the reference coefficients (negative: ours lower); gap =
# our certified duality gap.
#
# Table 2, cross-validation: cv.glmnet(X, y, family, foldid) against
# cv_sparse_regression(X, y, family = , folds = foldid), the same 10 fold
# ids, each on its own grid (glmnet 100 lambdas, ours 30 radii with the
# grid stopped past the CV minimum); min_cvm = the minimum CV deviance of
# each, nnz_1se = nonzeros of the one-standard-error model, unconv = our
# radii with a fit (fold or full data) that did not reach tol.
#
# Data: Colon (plsgenomics; 62 tissues x 2000 genes, tumour or normal) and
# Khan (ISLR; 63 x 2308, tumour class 2 against the rest) with their binary
# labels; simulated: dense p >> n (100 x 2000, 5 common factors, 10 true
# coefficients), dense n >> p (5000 x 50, AR(0.5) columns) and a sparse
# dgCMatrix (5000 x 2000, 1% nonzero, 20 true coefficients), each with a
# binary outcome (binomial) and a count outcome (poisson).
#
# Times: wall and CPU (user + sys) seconds, the better of `reps` calls
# (single fits; 1 call for CV), ours and glmnet's side by side in one run,
# with the load average (2 cores shared with other jobs: ratios count).
#
# Run from the repository root:  Rscript inst/bench/glm_regression.R
# (STOCHCG_BENCH_DATA="Colon,sparse 5000x2000" for a subset;
#  STOCHCG_BENCH_CV=0 to skip table 2)
suppressPackageStartupMessages({
  library(stochcg)
  library(Matrix)
})
stopifnot(requireNamespace("glmnet", quietly = TRUE))

# the better of `reps` timings; a call under 0.05 s is timed as the mean of
# enough calls to take 0.2 s (the clock's resolution is 1 ms)
best <- function(f, reps = 3) {
  t0 <- proc.time(); v <- f(); t <- proc.time() - t0
  inner <- if (t[["elapsed"]] < 0.05) ceiling(0.2 / max(t[["elapsed"]], 1e-3)) else 1
  wall <- cpu <- numeric(reps)
  for (k in seq_len(reps)) {
    t0 <- proc.time(); for (i in seq_len(inner)) v <- f(); t <- proc.time() - t0
    wall[k] <- t[["elapsed"]] / inner; cpu[k] <- (t[["user.self"]] + t[["sys.self"]]) / inner
  }
  list(value = v, wall = min(wall), cpu = min(cpu))
}
load_now <- function() strsplit(readLines("/proc/loadavg"), " ")[[1]][1]

# half the mean deviance at coefficients (a, b): the stated objective
objective <- function(family, X, y, a, b) {
  eta <- a + as.vector(as.matrix(X %*% b))
  if (family == "binomial") mean(pmax(eta, 0) + log1p(exp(-abs(eta))) - y * eta)
  else mean(exp(eta) - y * eta + ifelse(y > 0, y * log(y) - y, 0))
}

# ---- data
datasets <- list()
if (requireNamespace("plsgenomics", quietly = TRUE)) datasets$Colon <- function() {
  e <- new.env(); utils::data("Colon", package = "plsgenomics", envir = e)
  list(X = e$Colon$X, y = list(binomial = as.double(e$Colon$Y == 2)))
}
if (requireNamespace("ISLR", quietly = TRUE)) datasets$Khan <- function() {
  e <- new.env(); utils::data("Khan", package = "ISLR", envir = e)
  list(X = e$Khan$xtrain, y = list(binomial = as.double(e$Khan$ytrain == 2)))
}
outcomes <- function(eta, seed) {
  set.seed(seed)
  list(binomial = rbinom(length(eta), 1, plogis(eta)),
       poisson = rpois(length(eta), exp(0.5 + 0.5 * pmin(eta / sd(eta), 3))))
}
datasets[["dense 100x2000"]] <- function() {
  set.seed(1)
  n <- 100; p <- 2000
  X <- matrix(rnorm(n * 5), n) %*% matrix(rnorm(5 * p), 5) + matrix(rnorm(n * p), n)
  list(X = X, y = outcomes(drop(X[, 1:10] %*% rnorm(10, sd = 0.7)), 2))
}
datasets[["dense 5000x50"]] <- function() {
  set.seed(3)
  n <- 5000; p <- 50
  X <- matrix(rnorm(n * p), n, p) %*% chol(0.5^abs(outer(1:p, 1:p, "-")))
  beta <- numeric(p); beta[sample(p, 10)] <- rnorm(10, sd = 0.5)
  list(X = X, y = outcomes(drop(X %*% beta), 4))
}
datasets[["sparse 5000x2000"]] <- function() {
  set.seed(5)
  n <- 5000; p <- 2000
  X <- Matrix::rsparsematrix(n, p, density = 0.01)
  beta <- numeric(p); beta[sample(p, 20)] <- rnorm(20, sd = 2)
  list(X = X, y = outcomes(as.vector(X %*% beta), 6))
}
only <- Sys.getenv("STOCHCG_BENCH_DATA")
if (nzchar(only)) datasets <- datasets[names(datasets) %in% strsplit(only, ",")[[1]]]

# ---- table 1: single fits at matched l1 norms
single <- function(name, X, y, family, frac) {
  n <- nrow(X)
  xm <- Matrix::colMeans(X)
  sdv <- sqrt(pmax(Matrix::colMeans(X^2) - xm^2, 0))
  ref_path <- glmnet::glmnet(X, y, family = family, nlambda = 5)
  lam <- frac * max(ref_path$lambda)
  ref <- glmnet::glmnet(X, y, family = family, lambda = lam, thresh = 1e-14, maxit = 1e6)
  bref <- as.vector(coef(ref))
  r <- sum(sdv * abs(bref[-1]))
  if (r <= 0) return(NULL)
  load <- load_now()
  g <- best(function() glmnet::glmnet(X, y, family = family, lambda = lam))
  o <- best(function() sparse_regression(X, y, radius = r, family = family))
  bg <- as.vector(coef(g$value)); b <- coef(o$value)
  data.frame(data = name, family = family, n = n, p = ncol(X), lambda = frac,
             radius = signif(r, 4), nnz_glmnet = sum(bref[-1] != 0), nnz_ours = sum(b[-1] != 0),
             diff_ours = signif(max(abs(b - bref)), 2),
             diff_glmnet = signif(max(abs(bg - bref)), 2),
             obj_diff = signif(objective(family, X, y, b[1], b[-1]) -
                                 objective(family, X, y, bref[1], bref[-1]), 2),
             gap = signif(o$value$gap, 2), status = o$value$status,
             iter = o$value$iterations, face = o$value$face_steps,
             wall_glmnet = signif(g$wall, 3), wall_ours = signif(o$wall, 3),
             cpu_glmnet = signif(g$cpu, 3), cpu_ours = signif(o$cpu, 3),
             cpu_ratio = round(o$cpu / max(g$cpu, 1e-4), 2), load = load)
}

# ---- table 2: CV
cross <- function(name, X, y, family) {
  set.seed(10)
  foldid <- sample(rep_len(1:10, nrow(X)))
  load <- load_now()
  g <- best(function() glmnet::cv.glmnet(X, y, family = family, foldid = foldid), reps = 1)
  o <- best(function() suppressWarnings(cv_sparse_regression(X, y, family = family,
                                                             folds = foldid)), reps = 1)
  cg <- g$value; co <- o$value
  fit1se <- co$fit %||% co$path$fits[[which(co$cv$radius == co$radius.1se)[1]]]
  unconv <- sum(!co$cv$converged)
  data.frame(data = name, family = family, n = nrow(X), p = ncol(X),
             min_cvm_glmnet = signif(min(cg$cvm), 4), min_cvm_ours = signif(min(co$cv$cvm), 4),
             nnz_1se_glmnet = cg$nzero[cg$index[2]],
             nnz_1se_ours = co$cv$nonzero[which(co$cv$radius == co$radius.1se)[1]],
             radii = nrow(co$cv), unconv_radii = unconv,
             wall_glmnet = round(g$wall, 2), wall_ours = round(o$wall, 2),
             cpu_glmnet = round(g$cpu, 2), cpu_ours = round(o$cpu, 2),
             cpu_ratio = round(o$cpu / max(g$cpu, 1e-2), 2), load = load)
}
`%||%` <- function(a, b) if (is.null(a)) b else a

t1 <- list(); t2 <- list()
for (name in names(datasets)) {
  d <- datasets[[name]]()
  for (family in names(d$y)) {
    y <- d$y[[family]]
    for (frac in c(0.5, 0.2, 0.1, 0.05)) {
      row <- single(name, d$X, y, family, frac)
      if (!is.null(row)) { print(row, row.names = FALSE); t1[[length(t1) + 1]] <- row }
    }
    if (Sys.getenv("STOCHCG_BENCH_CV") != "0") {
      row <- cross(name, d$X, y, family)
      print(row, row.names = FALSE)
      t2[[length(t2) + 1]] <- row
    }
  }
}
tab1 <- do.call(rbind, t1)
tab2 <- if (length(t2)) do.call(rbind, t2)

md_table <- function(d) {
  c(paste0("| ", paste(names(d), collapse = " | "), " |"),
    paste0("|", paste(rep("---", ncol(d)), collapse = "|"), "|"),
    apply(d, 1, function(row) paste0("| ", paste(trimws(row), collapse = " | "), " |")))
}
cat("\nSingle fits at glmnet's l1 norms\n"); print(tab1, row.names = FALSE)
if (!is.null(tab2)) { cat("\nCross-validation\n"); print(tab2, row.names = FALSE) }
out <- c("# Binomial and Poisson lasso against glmnet (inst/bench/glm_regression.R)", "",
         sprintf("R %s, glmnet %s, stochcg %s; %s. Load average (1 min) in each row; 2 cores shared.",
                 getRversion(), utils::packageVersion("glmnet"), utils::packageVersion("stochcg"),
                 format(Sys.time(), "%Y-%m-%d %H:%M UTC", tz = "UTC")), "",
         "See the script's header for the definitions of the columns.", "",
         "## Single fits at glmnet's l1 norms (best of 3 calls)", "", md_table(tab1),
         if (!is.null(tab2)) c("", "## Cross-validation, the same 10 folds (one call each)", "",
                               md_table(tab2)))
if (!nzchar(only)) {
  dir.create("inst/bench/results", showWarnings = FALSE, recursive = TRUE)
  writeLines(out, "inst/bench/results/glm_regression.md")
} else writeLines(out, file.path(tempdir(), "glm_regression.md"))
