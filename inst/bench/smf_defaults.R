# Default method of stochastic_mf() (see ?stochastic_mf, "Default method"):
# every method with its default (automatic) step, plus sgd with 4 times
# its default step (the step of inst/bench/smf.R's grid that was best on
# most of its models, "4 n eta0"), on data sets not in inst/bench/smf.R:
# NMF::esGolub and dslabs::tissue_gene_expression (onmf, k = 5; odl on
# tissue with k = 10, as the vignette) and the Synth generators of smf.R
# with other seeds (d = 50, n = 2000). 20 outer iterations' worth of data
# passes (22); f* = the lowest objective any of the four runs reached;
# reported: final (f - f*) / |f*|, data passes until the trace first has
# (f - f*) / |f*| <= 1e-3 (NA: never; trace rows on the adaptive schedule,
# so passes are those of the first row below), solver seconds.
# Run from the repository root:  Rscript inst/bench/smf_defaults.R
suppressPackageStartupMessages(library(stochcg))
e <- new.env(); utils::data("tissue_gene_expression", package = "dslabs", envir = e)
tissue <- t(e$tissue_gene_expression$x)
e <- new.env(); utils::data("esGolub", package = "NMF", envir = e)
golub <- Biobase::exprs(e$esGolub)
d <- 50; kp <- 5; n <- 2000
synth <- function(seed, outliers) {
  set.seed(seed)
  W <- matrix(rnorm(d * kp, 0.5, sqrt(1 / sqrt(kp))), d)
  Y <- W %*% matrix(rnorm(kp * n, 0.5, sqrt(1 / sqrt(kp))), kp)
  if (outliers > 0) { idx <- sample(d * n, floor(outliers * d * n)); Y[idx] <- Y[idx] + runif(length(idx), -10, 10) }
  Y
}
nonneg <- function(seed, outliers = 0) {
  set.seed(seed)
  W <- matrix(runif(d * kp)^3, d); W <- sweep(W, 2, colSums(W), "/")
  Y <- W %*% matrix(rexp(kp * n), kp)
  if (outliers > 0) { idx <- sample(d * n, floor(outliers * d * n)); Y[idx] <- pmax(Y[idx] + runif(length(idx), -10, 10), 0) }
  Y
}
cases <- list(
  list("onmf esGolub", golub, "onmf", 5), list("onmf tissue", tissue, "onmf", 5),
  list("odl tissue", tissue, "odl", 10), list("odl synth11", synth(11, 0), "odl", 5),
  list("onmf synth12", nonneg(12), "onmf", 5), list("orpca synth13", synth(13, 0.1), "orpca", 5),
  list("ornmf synth14", nonneg(14, 0.1), "ornmf", 5))
S <- 20
for (cs in cases) {
  Y <- cs[[2]]; model <- cs[[3]]; k <- cs[[4]]; nn <- ncol(Y)
  set.seed(1)
  # the paper's weights and minibatch for orpca and ornmf, whose defaults now
  # scale with the data and use sgd with b = 5 (issue 28): the recorded
  # results were made with these
  pa <- if (model == "orpca") list(lambda1 = 1 / sqrt(nrow(Y)), lambda2 = 1 / sqrt(nrow(Y))) else
    if (model == "ornmf") list(lambda = 1 / sqrt(nrow(Y))) else list()
  if (model %in% c("orpca", "ornmf")) pa$batch_size <- ceiling(0.2 * nn^(2 / 3))
  eta0 <- do.call(stochastic_mf, c(list(Y, k, model = model, method = "vr", outer = 1,
    control = cg_control(max_iter = 1, progress = FALSE)), pa))$step
  cfg <- list(vr = list(method = "vr"), sgd = list(method = "sgd"),
              sgd4 = list(method = "sgd", beta = 4 * nn * eta0, beta_prime = nn),
              smm = list(method = "smm"))
  fits <- lapply(cfg, function(a) { set.seed(1); do.call(stochastic_mf, c(list(Y, k, model = model, outer = S,
    control = cg_control(tol = 0, progress = FALSE)), a, pa)) })
  fstar <- min(sapply(fits, function(f) min(f$trace$objective)))
  out <- t(sapply(fits, function(f) { rel <- (f$trace$objective - fstar) / abs(fstar); h <- which(rel <= 1e-3)[1]
    c(final = signif(rel[length(rel)], 3), passes_1e3 = if (is.na(h)) NA else round(f$trace$epoch[h], 1), sec = round(f$solver_time, 2)) }))
  cat("\n==", cs[[1]], "n =", nn, "\n"); print(out)
}
