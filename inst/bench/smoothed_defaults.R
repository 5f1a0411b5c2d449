# Which method and smoothing schedule reach the STATED (nonsmooth) optimum of
# the smoothed problems fastest: lowrank_sparse (the issue-9 instance: the
# paper's Sec. 5 generator at d = 40, lambda = 2; the test instance, psd),
# lowrank_sparse(covariance_rows(data)), lowrank_constrained, matrix_sensing. Each method runs
# with its defaults: "auto" = continuation (no `mu` given), "fixed" = the
# paper's fixed mu = eps C0 / (m n) (passed explicitly). The optimum comes
# from an exact dual reference (tests/testthat/helper-reference.R, certified
# to 1e-10). Columns: solver seconds (trace time, evaluations excluded) and
# iterations until the objective is within 1e-3 relative of the optimum, and
# until the certified gap (fit$gap) is below 1e-3 |objective|; "-" = not
# reached within the budget (max_iter 20000, 20 s).
# Run from the repository root:  Rscript inst/bench/smoothed_defaults.R
suppressPackageStartupMessages(library(stochcg))
source("tests/testthat/helper-reference.R")

first <- function(tr, ok) {
  i <- which(ok)[1]
  if (is.na(i)) c(NA, NA) else c(tr$time[i], tr$iter[i])
}

run <- function(name, fitfun, ref, methods) {
  rows <- NULL
  for (method in methods) for (schedule in c("auto", "fixed")) {
    set.seed(1)
    fit <- fitfun(method, schedule)
    tr <- fit$trace[!is.na(fit$trace$objective), ]
    rel <- (tr$objective - ref$objective) / abs(ref$objective)
    a <- first(tr, rel <= 1e-3)
    b <- first(tr, tr$gap <= 1e-3 * pmax(1, abs(tr$objective)))
    rows <- rbind(rows, data.frame(
      problem = name, method = method, schedule = schedule,
      s_to_1e3 = a[1], it_to_1e3 = a[2], s_cert_1e3 = b[1], it_cert_1e3 = b[2],
      final_rel = signif(tail(rel, 1), 3), final_gap_rel = signif(tail(tr$gap / abs(tr$objective), 1), 3),
      bound_holds = all(tr$gap >= tr$objective - ref$objective - 1e-9),
      iters = fit$iterations, secs = round(fit$time, 2)))
  }
  rows
}
ctl <- cg_control(max_iter = 20000, max_time = 20, tol = 0, eval_every = 5)

# 1. the issue's instance: Garber and Kaplan Sec. 5 generator at d = 40
set.seed(1)
d <- 40; r <- 10
Y <- matrix(rbinom(d * r, 1, 1 / sqrt(d)) * sample(1:10, d * r, TRUE), d, r)
M <- tcrossprod(Y) + matrix(rnorm(d * d), d); tau <- sum(Y^2)
mu_paper <- 0.01 * 0.5 * sum(M^2) / d^2
ref <- ref_lowrank_l1(M, 2, tau)
res <- run("lowrank_sparse (paper, d = 40)", function(method, schedule)
  lowrank_sparse(M, 2, tau, method = method, mu = if (schedule == "fixed") mu_paper,
                 control = ctl), ref, c("svrgcg", "scgs", "fw", "scg"))

# 2. the test instance over the PSD set
set.seed(4)
d <- 30
Y <- matrix(rbinom(d * 2, 1, 0.3) * sample(1:5, d * 2, TRUE), d, 2)
M0 <- tcrossprod(Y); N <- matrix(rnorm(d * d), d); Mp <- M0 + (N + t(N)) / 2
ref <- ref_lowrank_l1(Mp, 0.5, sum(diag(M0)), "psd")
res <- rbind(res, run("lowrank_sparse (psd, d = 30)", function(method, schedule)
  lowrank_sparse(Mp, 0.5, sum(diag(M0)), set = "psd", method = method,
                 mu = if (schedule == "fixed") 0.01 * 0.5 * sum(Mp^2) / d^2, control = ctl),
  ref, c("svrgcg", "scgs", "fw")))

# 3. lowrank_sparse on covariance_rows(data) (the paper's covariance model)
set.seed(8)
n <- 200; p <- 15
L <- matrix(0, p, 2); L[1:4, 1] <- 2; L[5:8, 2] <- 1.5
data <- matrix(rnorm(n * 2), n) %*% t(L) + matrix(rnorm(n * p, sd = 0.5), n)
S <- cov(data)
ref <- ref_lowrank_l1(S, 0.05, 20, "psd")
res <- rbind(res, run("lowrank_sparse(covariance_rows) (n = 200, p = 15)", function(method, schedule)
  lowrank_sparse(covariance_rows(data), 0.05, 20, set = "psd", method = method,
                    mu = if (schedule == "fixed") 0.01 * 0.5 * sum(S^2) / p^2, control = ctl),
  ref, c("svrgcg", "scgs", "fw", "scg")))

# 4. lowrank_constrained (the test instance)
set.seed(11)
d <- 12
u <- rnorm(d); M <- tcrossprod(u) + matrix(rnorm(d * d, sd = 0.1), d)
A <- lapply(1:4, function(i) { Z <- matrix(0, d, d); Z[i, i] <- 1; Z })
b <- rep(0.3, 4); tau <- sum(u^2)
Amat <- t(vapply(A, as.vector, numeric(d * d)))
ref <- ref_lowrank_maxlin(M, Amat, b, tau)
C0 <- 0.5 * sum(M^2) + max(-b) + tau
res <- rbind(res, run("lowrank_constrained (d = 12)", function(method, schedule)
  lowrank_constrained(M, A, b, tau, method = method,
                      mu = if (schedule == "fixed") 0.01 * C0 / log(4), control = ctl),
  ref, c("svrgcg", "scgs", "fw")))

# 5. matrix_sensing (the test instance)
set.seed(12)
m <- 8; N <- 300
X0 <- tcrossprod(rnorm(m), rnorm(m))
Amat <- matrix(rnorm(N * m * m), N)
b <- as.vector(Amat %*% as.vector(X0)) + rnorm(N, sd = 0.1)
l1 <- 0.01; l2 <- 0.05; tau <- 0.8 * sum(svd(X0)$d)
ref <- ref_sensing(Amat, b, l1, l2, c(m, m), tau)
res <- rbind(res, run("matrix_sensing (m = 8, N = 300)", function(method, schedule)
  matrix_sensing(Amat, b, tau, l1, l2, dims = c(m, m), method = method,
                 mu = if (schedule == "fixed") 0.01 * 0.5 * mean(b^2) / m^2, control = ctl),
  ref, c("svrgcg", "scgs", "fw", "scg")))

# 6. matrix_sensing, the help example (sparse operator)
set.seed(4)
m <- 15; N <- 400
X0 <- tcrossprod(rnorm(m), rnorm(m))
A <- Matrix::rsparsematrix(N, m * m, density = 0.05)
b <- as.vector(A %*% as.vector(X0)) + rnorm(N, sd = 0.01)
ref <- ref_sensing(as.matrix(A), b, 1e-3, 1e-2, c(m, m), sum(svd(X0)$d), iters = 20000)
res <- rbind(res, run("matrix_sensing (help example, 15 x 15, N = 400)", function(method, schedule)
  matrix_sensing(A, b, sum(svd(X0)$d), 1e-3, 1e-2, dims = c(m, m), method = method,
                 mu = if (schedule == "fixed") 0.01 * 0.5 * mean(b^2) / m^2, control = ctl),
  ref, c("svrgcg", "fw")))

print(res, row.names = FALSE)
f <- function(x, d = 3) ifelse(is.na(x), "-", format(signif(x, d)))
md <- c("| problem | method | mu | s to 1e-3 | iter to 1e-3 | s to certified 1e-3 | iter | final rel. error | final gap / obj | gap >= obj - opt | iterations | s |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
        sprintf("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %d | %.2f |", res$problem,
                res$method, res$schedule, f(res$s_to_1e3), f(res$it_to_1e3, 6), f(res$s_cert_1e3),
                f(res$it_cert_1e3, 6), f(res$final_rel), f(res$final_gap_rel), res$bound_holds,
                as.integer(res$iters), res$secs))
dir.create("inst/bench/results", showWarnings = FALSE, recursive = TRUE)
writeLines(c("# Smoothed problems: time to the stated optimum by method and mu schedule", "",
             "`Rscript inst/bench/smoothed_defaults.R`; budget 20000 iterations or 20 s per run;",
             "auto = continuation (the default), fixed = the paper's fixed mu.", "", md),
           "inst/bench/results/smoothed_defaults.md")
