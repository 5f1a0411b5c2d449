# Stochastic matrix factorization (paper 002, Sec. 5 at reduced scale).
#
# Part A: stochastic_mf()'s three methods, vr (Algorithm 1), smm (Alg. S-2)
# and sgd (Alg. S-3), each with its defaults (b = ceiling(0.2 n^(2/3)), m =
# ceiling(0.5 n^(1/3)); vr's step 1/L at each snapshot and sgd's beta, beta'
# from the first statistics; see ?stochastic_mf), on the same data and the
# same budget of data passes. Data: the paper's Synth generator (d x k'
# planted W and H with entries N(0.5, 1/sqrt(k')), plus outliers of density
# rho_s uniform on [-10, 10]; here d = 50, n = 2000, k' = 5, rho_s = 0.1) for
# orpca; the same without outliers for odl; for onmf and ornmf |W| with
# nonnegative atoms and exponential coefficients (ornmf: plus the same
# outliers, made nonnegative by max(., 0)). k = 5, the models' default
# lambdas except onmf lambda = 1e-3 (its coefficients are O(1)).
# Each method also runs on a small step grid (see below), as the paper tunes
# vr's eta and sgd's beta by hand. Reported per (model, method, step): f* =
# the best objective any run reached,
# then the data passes and solver seconds until the trace first has
# (f - f*) / |f*| <= 1e-3 (NA: never within the budget), the final relative
# suboptimality and proximal gradient mapping norm. Target: vr reaches 1e-3
# in <= half the data passes of smm and of sgd (met / not met per model, with
# every method's defaults and with each method's best step of the grid; a
# method that never gets there counts as not reaching it, so vr meets the
# target against it if vr itself gets there).
#
# Part B: ONMF (vr, defaults) against the NMF package's batch algorithms
# ("brunet", "lee", "snmf/r", each with its defaults and seed = 1) on the
# same data and k: NMF::esGolub (5000 genes x 38 samples, k = 5) and
# dslabs::tissue_gene_expression (500 genes x 189 samples, log2 expression,
# k = 5). Relative reconstruction error ||Y - W H||_F / ||Y||_F and
# wall-clock seconds of the call (NMF: nmf(); ONMF: stochastic_mf() with
# outer = each value of a grid, each from seed 1; the time ONMF needs for
# an NMF method's final error is that of the cheapest call reaching it).
# Target: ONMF reaches that error in <= the NMF method's seconds (met / not
# met per data set and NMF method).
#
# One run per cell (seed 1); the machine is shared, so seconds are rough.
# Run from the repository root:  Rscript inst/bench/smf.R
# Writes inst/bench/results/smf.csv (part A) and smf_nmf.csv (part B) when
# SMFBENCH_WRITE=1. Environment: SMFBENCH_N (default 2000), SMFBENCH_D
# (default 50), SMFBENCH_PASSES (outer S, default 20), SMFBENCH_MODELS
# (comma-separated, default odl,onmf,orpca,ornmf), SMFBENCH_EVALS (full-pass
# trace evaluations per run, default 40), SMFBENCH_PARTS (default A,B),
# SMFBENCH_ONMF_OUTER (Part B's grid of outer, default 5,10,20,40,80,160,320).
# Larger n (results/smf.md, "Larger n"):
#   SMFBENCH_N=20000 SMFBENCH_D=100 SMFBENCH_MODELS=odl,orpca SMFBENCH_PARTS=A Rscript inst/bench/smf.R
suppressPackageStartupMessages(library(stochcg))
n <- as.integer(Sys.getenv("SMFBENCH_N", "2000"))
S <- as.integer(Sys.getenv("SMFBENCH_PASSES", "20"))
write <- Sys.getenv("SMFBENCH_WRITE", "0") == "1"
d <- as.integer(Sys.getenv("SMFBENCH_D", "50")); kp <- 5L; k <- 5L
n_evals <- as.integer(Sys.getenv("SMFBENCH_EVALS", "40"))
parts <- strsplit(Sys.getenv("SMFBENCH_PARTS", "A,B"), ",")[[1]]

synth <- function(seed, outliers) {
  set.seed(seed)
  W <- matrix(rnorm(d * kp, 0.5, sqrt(1 / sqrt(kp))), d)
  H <- matrix(rnorm(kp * n, 0.5, sqrt(1 / sqrt(kp))), kp)
  Y <- W %*% H
  if (outliers > 0) {
    idx <- sample(d * n, floor(outliers * d * n))
    Y[idx] <- Y[idx] + runif(length(idx), -10, 10)
  }
  Y
}
nonneg <- function(seed, outliers = 0) {
  set.seed(seed)
  W <- matrix(runif(d * kp)^3, d); W <- sweep(W, 2, colSums(W), "/")
  Y <- W %*% matrix(rexp(kp * n), kp)
  if (outliers > 0) {
    idx <- sample(d * n, floor(outliers * d * n))
    Y[idx] <- pmax(Y[idx] + runif(length(idx), -10, 10), 0)
  }
  Y
}

cases <- list(
  list(model = "odl", Y = synth(1, 0), args = list()),
  list(model = "onmf", Y = nonneg(2), args = list(lambda = 1e-3)),
  # the paper's weights and minibatch: the defaults of orpca and ornmf now
  # scale with the data and use sgd with b = 5 (issue 28); the recorded
  # results were made with these
  list(model = "orpca", Y = synth(3, 0.1), args = list(lambda1 = 1 / sqrt(d),
       lambda2 = 1 / sqrt(d), batch_size = ceiling(0.2 * n^(2 / 3)))),
  list(model = "ornmf", Y = nonneg(4, 0.1), args = list(lambda = 1 / sqrt(d),
       batch_size = ceiling(0.2 * n^(2 / 3)))))

models <- strsplit(Sys.getenv("SMFBENCH_MODELS", "odl,onmf,orpca,ornmf"), ",")[[1]]
cases <- Filter(function(cs) cs$model %in% models, cases)
if (!"A" %in% parts) cases <- list()
rows <- list()
b <- ceiling(0.2 * n^(2 / 3)); m <- ceiling(0.5 * n^(1 / 3))
for (cs in cases) {
  # the step grid of the paper's protocol (Sec. 5: each method's step chosen
  # for its best convergence): vr eta = c eta0 (eta0 = vr's default step at
  # the first snapshot), sgd beta = c n eta0 with beta' = n (c = 1 is close
  # to sgd's default); smm has no step
  set.seed(1)
  eta0 <- do.call(stochastic_mf, c(list(cs$Y, k, model = cs$model, method = "vr", outer = 1,
    control = cg_control(max_iter = 1, progress = FALSE)), cs$args))$step
  configs <- list(
    list(method = "vr", step = "default", args = list()),
    list(method = "vr", step = "2 eta0", args = list(step_size = 2 * eta0)),
    list(method = "vr", step = "4 eta0", args = list(step_size = 4 * eta0)),
    list(method = "vr", step = "8 eta0", args = list(step_size = 8 * eta0)),
    list(method = "smm", step = "default", args = list()),
    list(method = "sgd", step = "default", args = list()),
    list(method = "sgd", step = "4 n eta0", args = list(beta = 4 * n * eta0, beta_prime = n)),
    list(method = "sgd", step = "16 n eta0", args = list(beta = 16 * n * eta0, beta_prime = n)))
  fits <- lapply(configs, function(cf) {
    iters <- if (cf$method == "vr") S * m else ceiling(S * (n + m * b) / b)
    set.seed(1)
    do.call(stochastic_mf, c(list(cs$Y, k, model = cs$model, method = cf$method, outer = S,
      control = cg_control(tol = 0, eval_every = max(1L, iters %/% n_evals), progress = FALSE)),
      cs$args, cf$args))
  })
  fstar <- min(vapply(fits, function(f) min(f$trace$objective, na.rm = TRUE), 0))
  for (i in seq_along(fits)) {
    tr <- fits[[i]]$trace
    rel <- (tr$objective - fstar) / abs(fstar)
    hit <- which(rel <= 1e-3)[1]
    rows[[length(rows) + 1]] <- data.frame(
      model = cs$model, method = configs[[i]]$method, step = configs[[i]]$step,
      f_star = signif(fstar, 6),
      passes_to_1e3 = if (is.na(hit)) NA else round(tr$epoch[hit], 2),
      seconds_to_1e3 = if (is.na(hit)) NA else round(tr$time[hit], 3),
      passes = round(tr$epoch[nrow(tr)], 1),
      seconds = round(tr$time[nrow(tr)], 2),
      final_rel_subopt = signif(rel[nrow(tr)], 3),
      final_gap = signif(tr$gap[nrow(tr)], 3),
      bsum_capped = fits[[i]]$bsum_capped)
  }
}
if (length(rows)) {
res <- do.call(rbind, rows)
cat(sprintf(paste0("Part A: stochastic_mf, d = %d, n = %d, k = %d, b = %d, m = %d, S = %d outer ",
                   "iterations (vr) and the same data passes (smm, sgd)\n"), d, n, k, b, m, S))
print(res, row.names = FALSE)
cat("\nTarget: vr reaches 1e-3 in <= half the data passes of smm and of sgd\n")
best <- function(r) if (all(is.na(r$passes_to_1e3))) NA else min(r$passes_to_1e3, na.rm = TRUE)
for (mdl in unique(res$model)) {
  for (proto in c("defaults", "best step of the grid")) {
    r <- res[res$model == mdl & (proto != "defaults" | res$step == "default"), ]
    p <- vapply(c("vr", "smm", "sgd"), function(mt) best(r[r$method == mt, ]), 0)
    vs <- function(o) !is.na(p[["vr"]]) && (is.na(p[[o]]) || p[["vr"]] <= p[[o]] / 2)
    cat(sprintf("  %-6s %-22s passes vr %5s smm %5s sgd %5s: vs smm %-7s vs sgd %s\n", mdl, proto,
                p[["vr"]], p[["smm"]], p[["sgd"]],
                if (vs("smm")) "met" else "NOT met", if (vs("sgd")) "met" else "NOT met"))
  }
}
if (write) utils::write.csv(res, "inst/bench/results/smf.csv", row.names = FALSE)
}

# ---- Part B: ONMF against NMF's batch algorithms
if ("B" %in% parts && requireNamespace("NMF", quietly = TRUE)) {
  suppressPackageStartupMessages(library(NMF))
  data_sets <- list(esGolub = {
    e <- new.env(); utils::data("esGolub", package = "NMF", envir = e)
    Biobase::exprs(e$esGolub)
  })
  if (requireNamespace("dslabs", quietly = TRUE)) {
    e <- new.env(); utils::data("tissue_gene_expression", package = "dslabs", envir = e)
    data_sets$tissue <- t(e$tissue_gene_expression$x)
  }
  outer_grid <- as.integer(strsplit(Sys.getenv("SMFBENCH_ONMF_OUTER", "5,10,20,40,80,160,320"),
                                    ",")[[1]])
  rows <- list()
  for (nm in names(data_sets)) {
    Y <- data_sets[[nm]]
    normY <- norm(Y, "F")
    relerr <- function(Yhat) norm(Y - Yhat, "F") / normY
    # one stochastic_mf() call per budget, each from seed 1 (the call a user
    # makes): its relative reconstruction error and wall-clock seconds
    onmf <- do.call(rbind, lapply(outer_grid, function(S) {
      set.seed(1)
      t0 <- proc.time()[["elapsed"]]
      fit <- stochastic_mf(Y, 5, model = "onmf", outer = S,
                           control = cg_control(tol = 0, progress = FALSE))
      sec <- proc.time()[["elapsed"]] - t0
      data.frame(outer = S, error = relerr(fitted(fit)), seconds = sec)
    }))
    for (alg in c("brunet", "lee", "snmf/r")) {
      t0 <- proc.time()[["elapsed"]]
      nf <- NMF::nmf(Y, 5, alg, seed = 1)
      sec <- proc.time()[["elapsed"]] - t0
      err <- relerr(NMF::fitted(nf))
      hit <- which(onmf$error <= err)[1]
      rows[[length(rows) + 1]] <- data.frame(
        data = nm, d = nrow(Y), n = ncol(Y), nmf_method = alg, nmf_error = signif(err, 6),
        nmf_seconds = round(sec, 2),
        onmf_default_error = signif(onmf$error[onmf$outer == 10], 6),
        onmf_default_seconds = round(onmf$seconds[onmf$outer == 10], 2),
        onmf_outer_to_nmf_error = if (is.na(hit)) NA else onmf$outer[hit],
        onmf_error_there = if (is.na(hit)) NA else signif(onmf$error[hit], 6),
        onmf_seconds_to_nmf_error = if (is.na(hit)) NA else round(onmf$seconds[hit], 2),
        target = if (!is.na(hit) && onmf$seconds[hit] <= sec) "met" else "NOT met")
    }
    cat(sprintf("\nONMF on %s (outer, relative error, seconds of the call):\n", nm))
    print(transform(onmf, error = signif(error, 6), seconds = round(seconds, 2)),
          row.names = FALSE)
  }
  resB <- do.call(rbind, rows)
  cat(sprintf(paste0("\nPart B: ONMF (vr, defaults; outer = %s) against NMF::nmf, k = 5, ",
                     "relative reconstruction error; ONMF's time to an NMF method's error is ",
                     "that of the cheapest call of the grid reaching it\n"),
              paste(outer_grid, collapse = ", ")))
  print(resB, row.names = FALSE)
  if (write) utils::write.csv(resB, "inst/bench/results/smf_nmf.csv", row.names = FALSE)
}
