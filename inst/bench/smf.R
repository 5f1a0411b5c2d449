# Stochastic matrix factorization (paper 002, Sec. 5 at reduced scale):
# stochastic_mf()'s three methods, vr (Algorithm 1), smm (Alg. S-2) and sgd
# (Alg. S-3), each with its defaults (b = 0.2 n^(2/3), m = 0.5 n^(1/3); vr's
# step 1/L and sgd's beta, beta' from the first statistics; see
# ?stochastic_mf), on the same data and the same budget of data passes.
#
# Data: the paper's Synth generator (d x k' planted W and H with entries
# N(0.5, 1/sqrt(k')), plus outliers of density rho_s uniform on [-M, M];
# here d = 50, n = 2000, k' = 5, rho_s = 0.1, M = 10) for orpca; the same
# without outliers for odl; for onmf |W| with simplex columns and
# exponential coefficients. k = 5, lambda = 1/sqrt(d) (odl, orpca), onmf
# lambda = 1e-3 (its coefficients are O(1)).
#
# Reported per (model, method): f* = the best objective any method reached,
# then the data passes and solver seconds until the trace first has
# (f - f*) / |f*| <= 1e-3 (NA: never within the budget), the final relative
# suboptimality, and the final proximal gradient mapping norm (stationarity,
# each method's own trace step). The full objective is evaluated every few
# iterations (trace-only work, not in the seconds). One run per cell
# (seed 1); the machine is shared, so seconds are rough.
#
# Run from the repository root:  Rscript inst/bench/smf.R
# Environment: SMFBENCH_N (default 2000), SMFBENCH_PASSES (outer S, default
# 20), SMFBENCH_MODELS (comma-separated, default odl,onmf,orpca).
suppressPackageStartupMessages(library(stochcg))
n <- as.integer(Sys.getenv("SMFBENCH_N", "2000"))
S <- as.integer(Sys.getenv("SMFBENCH_PASSES", "20"))
d <- 50L; kp <- 5L; k <- 5L

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
nonneg <- function(seed) {
  set.seed(seed)
  W <- matrix(runif(d * kp)^3, d); W <- sweep(W, 2, colSums(W), "/")
  W %*% matrix(rexp(kp * n), kp)
}

cases <- list(
  list(model = "odl", Y = synth(1, 0), args = list()),
  list(model = "onmf", Y = nonneg(2), args = list(lambda = 1e-3)),
  list(model = "orpca", Y = synth(3, 0.1), args = list()))

models <- strsplit(Sys.getenv("SMFBENCH_MODELS", "odl,onmf,orpca"), ",")[[1]]
cases <- Filter(function(cs) cs$model %in% models, cases)
rows <- list()
for (cs in cases) {
  fits <- list()
  for (method in c("vr", "smm", "sgd")) {
    b <- ceiling(0.2 * n^(2 / 3)); m <- ceiling(0.5 * n^(1 / 3))
    iters <- if (method == "vr") S * m else ceiling(S * (n + m * b) / b)
    set.seed(1)
    fits[[method]] <- do.call(stochastic_mf, c(list(cs$Y, k, model = cs$model,
      method = method, outer = S, control = cg_control(
        tol = 0, eval_every = max(1L, iters %/% 40L), progress = FALSE)), cs$args))
  }
  fstar <- min(vapply(fits, function(f) min(f$trace$objective), 0))
  for (method in names(fits)) {
    tr <- fits[[method]]$trace
    rel <- (tr$objective - fstar) / abs(fstar)
    hit <- which(rel <= 1e-3)[1]
    rows[[length(rows) + 1]] <- data.frame(
      model = cs$model, method = method, f_star = signif(fstar, 6),
      passes_to_1e3 = if (is.na(hit)) NA else round(tr$epoch[hit], 2),
      seconds_to_1e3 = if (is.na(hit)) NA else round(tr$time[hit], 3),
      passes = round(tr$epoch[nrow(tr)], 1),
      seconds = round(tr$time[nrow(tr)], 2),
      final_rel_subopt = signif(rel[nrow(tr)], 3),
      final_gap = signif(tr$gap[nrow(tr)], 3))
  }
}
res <- do.call(rbind, rows)
cat(sprintf("stochastic_mf: d = %d, n = %d, k = %d, S = %d outer iterations (vr) and the same data passes (smm, sgd)\n",
            d, n, k, S))
print(res, row.names = FALSE)
