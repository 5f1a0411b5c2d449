# Online robust factorization against batch robust PCA (issue 28):
# stochastic_mf(model = "orpca") and "ornmf" with their defaults (sgd,
# minibatch 5, lambda2 / lambda = 0.3 s with s the robust scale of the
# entries; data start from the scale's sample of columns, in memory:
# orpca's the top k singular vectors of the low-rank part of robust_pca()
# of it (50 ADMM iterations), ornmf's k cleaned columns by successive
# projection refined by vr of the model on it, and sgd's first step from
# that sample) and with the old defaults (vr with the
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
# read once for the robust scale (fit$scale_columns / n; ornmf's start
# works on those columns in memory and reads no more: its cost is in the
# CPU seconds). "3 passes" runs
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

# tissue: which reference is fair to ornmf. An NMF's span can differ from
# PCA's; but if a rank-5 NMF of PCP's low-rank part spans PCP's subspace,
# that subspace is within ornmf's reach. And the model's own batch answer:
# ornmf run 60 passes on the corrupted matrix.
set.seed(1)
Wp <- stochastic_mf(pmax(as.matrix(r$value$solution$X), 0), k, model = "onmf", outer = 60,
                    control = cg_control(progress = FALSE))$solution$W
set.seed(1)
Wl <- stochastic_mf(Y, k, model = "ornmf", outer = 60,
                    control = cg_control(progress = FALSE))$solution$W
Ul <- qr.Q(qr(Wl))
tissue_ref <- c(nmf_of_pcp = ev(Ur, Wp), ornmf60_vs_pcp = ev(Ur, Wl))
print(tissue_ref)

# seeds: every set at 3 passes with solver seeds 1-5 (set.seed before the
# call; it draws the minibatches and the start's vr); set C also with the
# data seeds 1, 2, 3, 5 (the table above: 4)
seed_sets <- c(lapply(seq_along(cases), function(i) c(cases[[i]], seed = i)),
               lapply(c(1, 2, 3, 5), function(s) c(cases[[4]], seed = s)))
seed_rows <- list()
ev3 <- function(Yx, model, U, seed) {
  n <- ncol(Yx); d <- nrow(Yx)
  cols <- min(n, max(50, ceiling(2e4 / d)))
  set.seed(seed)
  f <- stochastic_mf(Yx, k, model = model, control = cg_control(
    progress = FALSE, max_iter = floor((3 - cols / n) * n / 5)))
  if (is.list(U)) vapply(U, function(u) ev(u, f$solution$W), 0) else ev(U, f$solution$W)
}
for (cs in seed_sets) {
  g <- gen(cs$seed, cs$d, cs$n, cs$frac, cs$mag, isTRUE(cs$issue))
  for (model in c("orpca", "ornmf")) {
    t0 <- proc.time()
    e <- vapply(1:5, function(s) ev3(g$Y, model, g$U, s), 0)
    t <- proc.time() - t0
    seed_rows[[length(seed_rows) + 1L]] <- data.frame(
      data = sprintf("%s (data seed %d)", cs$name, cs$seed), fit = model,
      evs = paste(sprintf("%.4f", e), collapse = " "), min = min(e),
      cpu = (t[["user.self"]] + t[["sys.self"]]) / 5, wall = t[["elapsed"]] / 5)
  }
}
tissue_seeds <- list()
for (model in c("orpca", "ornmf")) {
  t0 <- proc.time()
  e <- sapply(1:5, function(s) ev3(Y, model, list(Ur, Ul), s))
  t <- proc.time() - t0
  seed_rows[[length(seed_rows) + 1L]] <- data.frame(
    data = "tissue (vs PCP)", fit = model, evs = paste(sprintf("%.4f", e[1, ]), collapse = " "),
    min = min(e[1, ]), cpu = (t[["user.self"]] + t[["sys.self"]]) / 5, wall = t[["elapsed"]] / 5)
  seed_rows[[length(seed_rows) + 1L]] <- data.frame(
    data = "tissue (vs ornmf, 60 passes)", fit = model,
    evs = paste(sprintf("%.4f", e[2, ]), collapse = " "), min = min(e[2, ]), cpu = NA, wall = NA)
}
seeds <- do.call(rbind, seed_rows)
print(seeds, digits = 4)
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
                ev_clean[["pcp"]]),
        "",
        sprintf(paste("tissue references: a rank-5 NMF (onmf, 60 passes) of PCP's low-rank part",
                      "(its nonnegative part) has EV %.5f against PCP's subspace; ornmf run 60",
                      "passes on the corrupted matrix %.4f."), tissue_ref[["nmf_of_pcp"]],
                tissue_ref[["ornmf60_vs_pcp"]]),
        "",
        "## Seeds: 3 passes, solver seeds 1-5 (set.seed before the call)", "",
        "| data | fit | EV, seeds 1-5 | min | CPU s / run | wall s / run |",
        "|---|---|---|---|---|---|",
        sprintf("| %s | %s | %s | %.4f | %s | %s |", seeds$data, seeds$fit, seeds$evs, seeds$min,
                ifelse(is.na(seeds$cpu), "", sprintf("%.2f", seeds$cpu)),
                ifelse(is.na(seeds$wall), "", sprintf("%.2f", seeds$wall))),
        "",
        "## Notes (ornmf, issue 28 follow-up)",
        "",
        "Start of ornmf: the k columns that successive projection picks from the cleaned sample are",
        "refined by the model itself, vr on the raw sample in memory (about 3000 columns' worth of",
        "passes; no data read, so the passes above are unchanged; the CPU column includes it), and",
        "sgd's first step is 1/L of the start over that sample instead of over the first minibatch of",
        "5 columns. Before: at 3 passes ornmf was 0.9531-0.9995 over the 7 planted sets x solver seeds",
        "1-3, and 0.885-0.899 on tissue; the SPA start alone had EV 0.25-0.33 on C-shaped data (d = 200,",
        "20% of 50x: 40 gross entries a column; the cleaning leaves some and clips the codes' large",
        "entries), and sgd had to find atoms and average its minibatch noise with one step. After: see",
        "the seeds table (all planted >= 0.98, tissue 0.956-0.971 against PCP).",
        "",
        "Reference for ornmf on tissue: PCP's top-5 subspace is fair to an NMF here. A rank-5 NMF",
        "(onmf) of PCP's low-rank part spans it to EV 0.99997 (line above), so the span of a",
        "nonnegative rank-5 factorization is not what separates ornmf from PCP on this matrix; ornmf's",
        "own long-run answer (60 passes on the corrupted matrix) has 0.977 against it. Both numbers",
        "are shown per seed: the 3-pass fits have 0.956-0.971 against PCP and 0.983-0.993 against",
        "ornmf's 60-pass answer.",
        "",
        "## Notes (orpca, issue 28 follow-up)",
        "",
        "Start of orpca: the top k singular vectors of the low-rank part of batch PCP (robust_pca(),",
        "50 ADMM iterations, on the sample over its robust scale) of the scale's sample of columns,",
        "in memory (no data read: the passes are unchanged; the CPU column includes it, 0.07-0.5 s),",
        "atom norms sqrt(singular value / sqrt(columns)) (the start, like the problem, is the same for",
        "c Y up to W -> sqrt(c) W). Before: the top k singular vectors of that sample cleaned at 3",
        "robust row scales, norms singular value / sqrt(columns). At 20% of 5x outliers most outliers",
        "are within 3 row scales (which they inflate): that start had EV 0.56 on set A (0.55-0.75 on",
        "16 data seeds of that shape at n = 500 and 1000; 0.68 on tissue against PCP), and sgd",
        "recovered the missing atom for some solver seeds only: A seed 5 had 0.7981 at 3 passes",
        "(0.799 at the default budget), tissue seed 4 0.9171; below 0.95 for some seed on 10 of the",
        "16 data seeds. PCP's start: 0.990-0.999 on those (0.88 on tissue, whose sample is 50 of its",
        "189 columns). Before, orpca seeds 1-5 at 3 passes (min over seeds): issue 0.9996, A 0.7981,",
        "B 0.9996, C 0.9976, D 0.9994, E 0.9991, F 0.9999, C data seeds 1/2/3/5 0.9981/0.9980/",
        "0.9975/0.9974, tissue 0.9171; after: the seeds table. Also tried: vr of the model on the",
        "sample from the old start (as ornmf's): start EV 0.81 on A, atoms lost on 2 of 6 A-shaped",
        "data seeds; with sgd's first step from the sample: an atom lost on A with seed 1. Norms of",
        "the ridge problem's balanced factorization (singular value of all n columns less lambda1):",
        "E seed 3 lost an atom (0.854).")
dir.create("inst/bench/results", showWarnings = FALSE, recursive = TRUE)
writeLines(md, "inst/bench/results/smf_outliers.md")
