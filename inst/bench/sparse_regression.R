# sparse_regression (least squares over the l1 ball) against glmnet at the
# same l1 radius, on real data and one sparse design.
#
# The two problems are the same: glmnet (standardize = FALSE, intercept =
# FALSE, thresh = 1e-14, one lambda) minimizes 1/(2n)||y - X b||^2 +
# lambda ||b||_1; its solution b_lambda also solves the constrained problem
# with radius = ||b_lambda||_1, which sparse_regression is given. The data
# are centred (and the dense designs' columns standardized), so no intercept
# is needed on either side (intercept = FALSE on both).
#
# Data: MASS::Boston (medv on the other 13 columns, standardized);
# huge::stockdata (daily log return of the first stock on those of the other
# 451, standardized; 1257 days); a sparse dgCMatrix design (n = 5000,
# p = 2000, 2% nonzero, 40 true coefficients, noise sd 1). Lambdas are
# fractions of lambda_max = max|X'y| / n.
#
# Reported per case: support sizes and mismatches (coefficients nonzero in
# one fit and zero in the other), max |b_pfw - b_glmnet|, and the error of
# each against the exact solution: the KKT system on pfw's support and signs
# (X_S'X_S b + n mu s = X_S'y, s'b = r), checked to satisfy the KKT
# conditions (mu >= 0 and |X_j'(y - X b)| / n <= mu off the support).
# Seconds are wall-clock of the whole call, best of 5 runs each.
# sparse_regression runs the default method ("pfw") with
# cg_control(tol = 1e-12, max_iter = 1e5, eval_every = 1e5): the gap is
# still certified at the end (the loop evaluates the exact gap before it
# stops), only the intermediate trace rows are skipped.
# A second table shows the default call (default control) against the
# former default "sfw" and plain "fw", including the cases of issue 9
# (the sparse design; mtcars scaled, radius 6).
#
# A third table: the binomial lasso (family = "binomial", logistic loss)
# against glmnet(family = "binomial") at a matched l1 norm, both with their
# defaults (standardize = TRUE, an intercept): glmnet's coefficients at a
# lambda (thresh = 1e-14) give the radius sum_j sd_j |b_j| (sd: the columns'
# standard deviations, divisor n), and sparse_regression at that radius
# (tol = 1e-10) must find the same coefficients. Data: plsgenomics::Colon
# (62 tissues x 2000 genes, tumour or normal) and ISLR::Khan (63 x 2308,
# tumour class 2 against the rest) at p >> n; a simulated n >> p design
# (n = 20000, p = 100, AR(0.5) correlated columns, 10 true coefficients);
# a sparse dgCMatrix (n = 5000, p = 2000, 2% nonzero, 40 true
# coefficients). Seconds: best of 3 runs, wall clock and CPU (user + sys)
# side by side in one run; the machine's load average is printed with them.
#
# Run from the repository root:  Rscript inst/bench/sparse_regression.R
suppressPackageStartupMessages({
  library(stochcg)
  library(Matrix)
})
stopifnot(requireNamespace("glmnet", quietly = TRUE),
          requireNamespace("MASS", quietly = TRUE),
          requireNamespace("huge", quietly = TRUE))

# best of `reps` runs: the machine may be shared, and the fastest run is the
# least disturbed measure of each contender's own cost
best_time <- function(f, reps = 5) {
  t <- numeric(reps)
  for (k in seq_len(reps)) t[k] <- system.time(out <- f())[["elapsed"]]
  list(value = out, seconds = min(t))
}

# exact solution on a given support and sign pattern; NA if the KKT
# conditions fail there
kkt_solution <- function(X, y, r, support, signs) {
  n <- nrow(X)
  XS <- as.matrix(X[, support, drop = FALSE])
  k <- length(support)
  K <- rbind(cbind(crossprod(XS) / n, signs), c(signs, 0))
  sol <- solve(K, c(drop(crossprod(XS, y)) / n, r))
  b <- numeric(ncol(X)); b[support] <- sol[seq_len(k)]
  mu <- sol[k + 1]
  g <- abs(drop(as.matrix(crossprod(X, y - X %*% b)))) / n
  ok <- mu >= 0 && all(sign(b[support]) == signs) && max(g[-support], 0) <= mu * (1 + 1e-8)
  if (ok) b else rep(NA_real_, ncol(X))
}

objective <- function(X, y, b) sum((y - as.vector(X %*% b))^2) / (2 * nrow(X))

compare <- function(name, X, y, frac) {
  n <- nrow(X)
  lambda <- frac * max(abs(as.vector(crossprod(X, y)))) / n
  gl <- best_time(function()
    glmnet::glmnet(X, y, standardize = FALSE, intercept = FALSE, thresh = 1e-14,
                   lambda = lambda))
  bg <- as.vector(coef(gl$value))[-1]
  r <- sum(abs(bg))
  ctl <- cg_control(tol = 1e-12, max_iter = 1e5, eval_every = 1e5)
  sr <- best_time(function() sparse_regression(X, y, radius = r, intercept = FALSE,
                                               control = ctl, standardize = FALSE))
  fit <- sr$value
  b <- coef(fit)
  S <- which(b != 0)
  exact <- kkt_solution(X, y, r, S, sign(b[S]))
  data.frame(
    data = name, n = n, p = ncol(X), lambda = signif(frac, 2), radius = signif(r, 4),
    nnz_glmnet = sum(bg != 0), nnz_pfw = length(S),
    mismatch = sum((bg != 0) != (b != 0)),
    max_diff = signif(max(abs(b - bg)), 2),
    err_pfw = signif(max(abs(b - exact)), 2),
    err_glmnet = signif(max(abs(bg - exact)), 2),
    obj_diff = signif(fit$objective - objective(X, y, bg), 2),
    gap = signif(fit$gap, 2), status = fit$status, iter = fit$iterations,
    s_glmnet = gl$seconds, s_pfw = sr$seconds,
    ratio = round(sr$seconds / max(gl$seconds, 1e-3), 2))
}

# ---- data
boston <- local({
  B <- MASS::Boston
  list(X = scale(as.matrix(B[, names(B) != "medv"])), y = B$medv - mean(B$medv))
})
stocks <- local({
  e <- new.env()
  utils::data("stockdata", package = "huge", envir = e)
  R <- diff(log(e$stockdata$data))
  list(X = scale(R[, -1]), y = R[, 1] - mean(R[, 1]))
})
synthetic <- local({
  set.seed(2024)
  n <- 5000; p <- 2000
  X <- Matrix::rsparsematrix(n, p, density = 0.02)
  beta <- numeric(p); beta[sample(p, 40)] <- rnorm(40, sd = 2)
  y <- as.vector(X %*% beta) + rnorm(n)
  list(X = X, y = y - mean(y))
})

rows <- list()
for (frac in c(0.1, 0.01)) rows[[length(rows) + 1]] <- compare("Boston", boston$X, boston$y, frac)
for (frac in c(0.3, 0.1, 0.03)) rows[[length(rows) + 1]] <- compare("stockdata", stocks$X, stocks$y, frac)
for (frac in c(0.1, 0.02)) rows[[length(rows) + 1]] <- compare("sparse dgC", synthetic$X, synthetic$y, frac)
tab <- do.call(rbind, rows)

# ---- default calls: pfw (new default) against sfw (former default) and fw
defaults <- function(name, X, y, r) {
  lambda_fit <- NULL
  out <- lapply(c("pfw", "sfw", "fw"), function(m) {
    set.seed(1)
    t <- system.time(fit <- suppressWarnings(sparse_regression(X, y, r, method = m,
                                                                   intercept = FALSE, standardize = FALSE)))[["elapsed"]]
    data.frame(data = name, radius = signif(r, 4), method = m, status = fit$status,
               iter = fit$iterations, objective = signif(fit$objective, 7),
               gap = signif(fit$gap, 2), nnz = sum(coef(fit) != 0), seconds = t)
  })
  do.call(rbind, out)
}
mtcars_s <- list(X = scale(as.matrix(mtcars[, -1])), y = mtcars$mpg - mean(mtcars$mpg))
r_syn <- tab$radius[tab$data == "sparse dgC"][2]
tab2 <- rbind(defaults("mtcars", mtcars_s$X, mtcars_s$y, 6),
              defaults("Boston", boston$X, boston$y, tab$radius[1]),
              defaults("sparse dgC", synthetic$X, synthetic$y, r_syn))

# ---- binomial lasso against glmnet at a matched l1 norm
best_cpu <- function(f, reps = 3) {
  wall <- cpu <- numeric(reps)
  for (k in seq_len(reps)) {
    t <- system.time(out <- f())
    wall[k] <- t[["elapsed"]]; cpu[k] <- t[["user.self"]] + t[["sys.self"]]
  }
  list(value = out, wall = min(wall), cpu = min(cpu))
}
logistic_objective <- function(X, y, a, b) {
  eta <- a + as.vector(X %*% b)
  mean(log1p(exp(-abs(eta))) + pmax(eta, 0) - y * eta)
}
compare_binomial <- function(name, X, y, frac) {
  n <- nrow(X)
  xm <- Matrix::colMeans(X)
  sdv <- sqrt(pmax(Matrix::colMeans(X^2) - xm^2, 0))
  lmax <- max(abs(as.vector(as.matrix(Matrix::crossprod(X, y - mean(y))))) / sdv) / n
  gl <- best_cpu(function() glmnet::glmnet(X, y, family = "binomial", lambda = frac * lmax,
                                           thresh = 1e-14, maxit = 1e6))
  bg <- as.vector(coef(gl$value))
  r <- sum(sdv * abs(bg[-1]))
  ctl <- cg_control(tol = 1e-10, max_iter = 1e6)
  sr <- best_cpu(function() sparse_regression(X, y, radius = r, family = "binomial",
                                              control = ctl))
  fit <- sr$value
  b <- coef(fit)
  data.frame(data = name, n = n, p = ncol(X), lambda = signif(frac, 2), radius = signif(r, 4),
             nnz_glmnet = sum(bg[-1] != 0), nnz_ours = sum(b[-1] != 0),
             max_diff = signif(max(abs(b - bg)), 2),
             obj_diff = signif(fit$objective - logistic_objective(X, y, bg[1], bg[-1]), 2),
             gap = signif(fit$gap, 2), status = fit$status, iter = fit$iterations,
             face = fit$face_steps,
             wall_glmnet = round(gl$wall, 3), wall_ours = round(sr$wall, 3),
             cpu_glmnet = round(gl$cpu, 3), cpu_ours = round(sr$cpu, 3),
             cpu_ratio = round(sr$cpu / max(gl$cpu, 1e-3), 2))
}
bin <- list()
if (requireNamespace("plsgenomics", quietly = TRUE)) {
  e <- new.env()
  utils::data("Colon", package = "plsgenomics", envir = e)
  colon <- list(X = e$Colon$X, y = as.double(e$Colon$Y == 2))
  for (frac in c(0.5, 0.2, 0.1, 0.05))
    bin[[length(bin) + 1]] <- compare_binomial("Colon", colon$X, colon$y, frac)
}
if (requireNamespace("ISLR", quietly = TRUE)) {
  e <- new.env()
  utils::data("Khan", package = "ISLR", envir = e)
  khan <- list(X = e$Khan$xtrain, y = as.double(e$Khan$ytrain == 2))
  for (frac in c(0.5, 0.2, 0.1, 0.05))
    bin[[length(bin) + 1]] <- compare_binomial("Khan", khan$X, khan$y, frac)
}
sim_tall <- local({
  set.seed(7)
  n <- 20000; p <- 100
  X <- matrix(rnorm(n * p), n, p) %*% chol(0.5^abs(outer(1:p, 1:p, "-")))
  beta <- numeric(p); beta[sample(p, 10)] <- rnorm(10)
  list(X = X, y = rbinom(n, 1, plogis(drop(X %*% beta))))
})
for (frac in c(0.5, 0.1, 0.02, 0.005))
  bin[[length(bin) + 1]] <- compare_binomial("simulated n >> p", sim_tall$X, sim_tall$y, frac)
sim_sparse <- local({
  set.seed(11)
  n <- 5000; p <- 2000
  X <- Matrix::rsparsematrix(n, p, density = 0.02)
  beta <- numeric(p); beta[sample(p, 40)] <- rnorm(40, sd = 2)
  list(X = X, y = rbinom(n, 1, plogis(as.vector(X %*% beta))))
})
for (frac in c(0.3, 0.1))
  bin[[length(bin) + 1]] <- compare_binomial("sparse dgC", sim_sparse$X, sim_sparse$y, frac)
tab3 <- do.call(rbind, bin)
load_avg <- tryCatch(readLines("/proc/loadavg")[1], error = function(e) "unknown")

md_table <- function(d) {
  c(paste0("| ", paste(names(d), collapse = " | "), " |"),
    paste0("|", paste(rep("---", ncol(d)), collapse = "|"), "|"),
    apply(d, 1, function(row) paste0("| ", paste(trimws(row), collapse = " | "), " |")))
}
out <- c("# sparse_regression against glmnet at the same l1 radius", "",
         sprintf("R %s, glmnet %s, stochcg %s; %s.", getRversion(),
                 utils::packageVersion("glmnet"), utils::packageVersion("stochcg"),
                 format(Sys.Date())), "",
         "lambda is a fraction of lambda_max; radius = ||b_glmnet(lambda)||_1.",
         "err_* = max |b - b_exact| (KKT solution on pfw's support); seconds: wall clock, best of 5.",
         "sparse_regression: default method pfw, cg_control(tol = 1e-12, max_iter = 1e5, eval_every = 1e5).",
         "", md_table(tab), "",
         paste("## Default calls (control = NULL: tol = 1e-6 relative to max(1, |objective|);",
               "max_iter = 1e5 for pfw, 1000 for sfw and fw)"), "",
         md_table(tab2), "",
         "## Binomial lasso against glmnet(family = \"binomial\") at a matched l1 norm", "",
         paste("Both standardized (their defaults) with an intercept; radius = sum_j sd_j |b_glmnet,j|;",
               "glmnet thresh = 1e-14, sparse_regression tol = 1e-10 (default method pfw)."),
         paste("max_diff = max |coef(ours) - coef(glmnet)| (intercept included); obj_diff = our",
               "objective (mean logistic loss) minus glmnet's at its coefficients (negative: ours lower);",
               "face = face steps taken. Seconds: best of 3, wall and CPU (user + sys), one run;",
               sprintf("load average at the end: %s.", load_avg)), "",
         md_table(tab3))
writeLines(out)
dir.create("inst/bench/results", showWarnings = FALSE, recursive = TRUE)
writeLines(out, "inst/bench/results/sparse_regression.md")
