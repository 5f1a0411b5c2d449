# Online robust factorization against batch robust PCA (issue 28):
# stochastic_mf(model = "orpca") and "ornmf" with their defaults (sgd,
# minibatch 5, lambda2 / lambda = 0.3 s with s the robust scale of the
# entries, cleaned data start) and with the old defaults (vr with the
# paper's b and m, lambda1 = lambda2 = lambda = 1 / sqrt(d), k raw data
# columns as start), against batch principal component pursuit
# robust_pca(Y) (its defaults).
#
# Data. Planted: d x n, W (d x 5) uniform in [0, 1], codes exponential
# with density 0.5, plus noise of 1% of sd(W H); then a fraction `frac` of
# the entries replaced by gross outliers uniform in [-mag sd(W H), mag sd(W
# H)] (case "issue": uniform in [-20, 20], the issue's data). Real:
# dslabs::tissue_gene_expression as genes x samples (500 x 189) with 5% of
# the entries shifted by uniform [-10, 10] sd(Y) (k = 5).
#
# Expressed variance (Xu, Caramanis and Mannor): EV(U, W) = ||P_W U||_F^2
# / k, U an orthonormal basis of the reference subspace (the planted
# dictionary's span; on real data the top-k left singular vectors of PCP's
# low-rank part robust_pca(Y)$solution$X), P_W the orthogonal projector on
# the learned dictionary's column space; 1 = the same subspace.
#
# Passes: columns read by the solver / n (the trace's epoch; the trace's
# evaluation passes are not counted, they only report) plus the columns
# read once for the robust scale (fit$scale_columns / n). "3 passes" runs
# stop at the last iteration within 3 passes in all; "default" runs use the
# default budget (outer = 10, about 10 passes). Old defaults: 3 passes is
# 2 outer iterations of vr (2.2 passes), default 10 (11 passes).
# Seconds: CPU (user + sys) and wall of the whole call, one process, side
# by side; the load is printed.
#
# Run from the repository root:  Rscript inst/bench/smf_outliers.R
suppressPackageStartupMessages(library(stochcg))
k <- 5

gen <- function(seed, d, n, frac, mag = NULL, issue = FALSE) {
  set.seed(seed)
  W <- matrix(runif(d * k), d)
  H <- matrix(rexp(k * n) * (runif(k * n) < 0.5), k)
  L <- W %*% H
  Y <- L + 0.01 * sd(L) * matrix(rnorm(d * n), d)
  idx <- sample(d * n, round(frac * d * n))
  M <- if (issue) 20 else mag * sd(L)
  Y[idx] <- runif(length(idx), -M, M)
  list(U = W, Y = Y)
}
ev <- function(U, W) {
  U <- qr.Q(qr(U)); s <- svd(W); Q <- s$u[, s$d > 1e-10 * s$d[1], drop = FALSE]
  sum(crossprod(Q, U)^2) / ncol(U)
}
timed <- function(expr) {
  t0 <- proc.time(); v <- expr; t <- proc.time() - t0
  list(value = v, cpu = t[["user.self"]] + t[["sys.self"]], wall = t[["elapsed"]])
}
# one stochastic_mf run: new or old defaults, 3 passes or the default budget
smf_run <- function(Y, model, new, budget) {
  d <- nrow(Y); n <- ncol(Y)
  args <- list(Y, k, model = model)
  if (!new) {
    args$method <- "vr"
    if (model == "orpca") args[c("lambda1", "lambda2")] <- 1 / sqrt(d) else
      args$lambda <- 1 / sqrt(d)
    set.seed(1); args$init <- Y[, sample.int(n, k)]       # the old start
    if (budget == "3") args$outer <- 2
  }
  if (new && budget == "3") {
    # the columns of the scale count: stop within 3 passes in all
    cols <- min(n, max(50, ceiling(2e4 / d)))
    args$control <- cg_control(progress = FALSE, max_iter = floor((3 - cols / n) * n / 5))
  } else args$control <- cg_control(progress = FALSE)
  set.seed(1)
  r <- timed(do.call(stochastic_mf, args))
  f <- r$value
  passes <- tail(f$trace$epoch, 1) + (f$scale_columns %||% 0) / n
  list(W = f$solution$W, passes = passes, cpu = r$cpu, wall = r$wall,
       outliers = f$outlier_fraction)
}
`%||%` <- function(a, b) if (is.null(a)) b else a

cases <- list(
  list(name = "issue", d = 60, n = 3000, frac = 0.10, issue = TRUE),
  list(name = "A", d = 30, n = 1000, frac = 0.20, mag = 5),
  list(name = "B", d = 30, n = 1000, frac = 0.05, mag = 50),
  list(name = "C", d = 200, n = 1000, frac = 0.20, mag = 50),
  list(name = "D", d = 200, n = 2000, frac = 0.10, mag = 20),
  list(name = "E", d = 30, n = 10000, frac = 0.20, mag = 50),
  list(name = "F", d = 100, n = 5000, frac = 0.05, mag = 5))
cat("load:", system("uptime", intern = TRUE), "\n")
rows <- list()
add <- function(...) rows[[length(rows) + 1L]] <<- data.frame(...)
for (i in seq_along(cases)) {
  cs <- cases[[i]]
  g <- gen(i, cs$d, cs$n, cs$frac, cs$mag, isTRUE(cs$issue))
  label <- sprintf("%s: %d x %d, %g%% outliers, %s", cs$name, cs$d, cs$n, 100 * cs$frac,
                   if (isTRUE(cs$issue)) "U[-20, 20]" else sprintf("%gx", cs$mag))
  for (model in c("orpca", "ornmf")) for (new in c(TRUE, FALSE)) for (budget in c("3", "default")) {
    r <- smf_run(g$Y, model, new, budget)
    add(data = label, fit = sprintf("%s %s defaults", model, if (new) "new" else "old"),
        budget = budget, ev = ev(g$U, r$W), passes = r$passes, outliers = r$outliers,
        cpu = r$cpu, wall = r$wall)
  }
  r <- timed(robust_pca(g$Y))
  Ur <- svd(r$value$solution$X, nu = k, nv = 0)$u
  add(data = label, fit = "robust_pca (batch PCP)", budget = "default", ev = ev(g$U, Ur),
      passes = NA, outliers = mean(as.matrix(r$value$solution$Y) != 0), cpu = r$cpu, wall = r$wall)
  print(do.call(rbind, tail(rows, 9)), digits = 3)
}

# real: tissue_gene_expression with injected outliers; reference PCP's subspace
e <- new.env(); utils::data("tissue_gene_expression", package = "dslabs", envir = e)
Y0 <- t(e$tissue_gene_expression$x)
set.seed(7); idx <- sample(length(Y0), round(0.05 * length(Y0)))
Y <- Y0; Y[idx] <- Y[idx] + runif(length(idx), -10, 10) * sd(Y0)
label <- "tissue: 500 x 189, 5% shifted by U[-10, 10] sd"
r <- timed(robust_pca(Y))
Ur <- svd(r$value$solution$X, nu = k, nv = 0)$u
U0 <- svd(Y0, nu = k, nv = 0)$u
add(data = label, fit = "robust_pca (batch PCP)", budget = "default", ev = ev(Ur, Ur),
    passes = NA, outliers = mean(as.matrix(r$value$solution$Y) != 0), cpu = r$cpu, wall = r$wall)
clean <- list()
for (model in c("orpca", "ornmf")) {
  for (new in c(TRUE, FALSE)) for (budget in c("3", "default")) {
    f <- smf_run(Y, model, new, budget)
    add(data = label, fit = sprintf("%s %s defaults", model, if (new) "new" else "old"),
        budget = budget, ev = ev(Ur, f$W), passes = f$passes, outliers = f$outliers,
        cpu = f$cpu, wall = f$wall)
  }
  # the same model on the clean matrix: what the outliers cost the model
  clean[[model]] <- smf_run(Y0, model, TRUE, "default")$W
}
res <- do.call(rbind, rows)
print(res, digits = 3)
ev_clean <- c(orpca = ev(U0, clean$orpca), ornmf = ev(U0, clean$ornmf),
              pcp = ev(U0, Ur))
cat("tissue: EV against the clean matrix's top-5 subspace: new-default fit of the clean",
    "matrix orpca", round(ev_clean[["orpca"]], 4), "ornmf", round(ev_clean[["ornmf"]], 4),
    "; PCP of the corrupted matrix", round(ev_clean[["pcp"]], 4), "\n")

md <- c("# Online robust factorization vs batch robust PCA (inst/bench/smf_outliers.R)", "",
        paste("Load:", system("uptime", intern = TRUE)), "",
        "EV = ||P_W U||_F^2 / k against the planted dictionary (real data: PCP's top-5 subspace).",
        "Passes = solver's columns read / n + the robust scale's columns / n.",
        "Outliers: share of the d x n entries with a nonzero outlier (R of the fit, S of PCP).", "",
        "| data | fit | budget | EV | passes | outliers | CPU s | wall s |",
        "|---|---|---|---|---|---|---|---|",
        sprintf("| %s | %s | %s | %.4f | %s | %.3f | %.2f | %.2f |", res$data, res$fit,
                res$budget, res$ev, ifelse(is.na(res$passes), "batch",
                                            sprintf("%.2f", res$passes)),
                res$outliers, res$cpu, res$wall), "",
        sprintf(paste("tissue: EV against the clean matrix's top-5 subspace: orpca (new",
                      "defaults) on the clean matrix %.4f, ornmf %.4f; PCP of the corrupted",
                      "matrix %.4f."), ev_clean[["orpca"]], ev_clean[["ornmf"]],
                ev_clean[["pcp"]]))
dir.create("inst/bench/results", showWarnings = FALSE, recursive = TRUE)
writeLines(md, "inst/bench/results/smf_outliers.md")
