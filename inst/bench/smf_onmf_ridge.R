# The default ridge of stochastic_mf(model = "onmf") (see ?stochastic_mf):
# relative reconstruction error ||Y - W H||_F / ||Y||_F of the default call
# (vr) with lambda = c d^(-3/2), c in 1 (the earlier default), 0.1, 0.01
# (the default now), 0.001 and 0 (no ridge), after outer = 10 and 100,
# seed 1, k = 5, on dslabs::tissue_gene_expression (500 x 189),
# NMF::esGolub (5000 x 38) and noiseless planted NMF data (inst/bench/smf.R's
# nonneg generator, seed 2, d = 50, n = 2000); the first line of each
# block gives the rank-5 SVD's error. Results: inst/bench/results/smf.md.
# Run from the repository root:  Rscript inst/bench/smf_onmf_ridge.R
suppressPackageStartupMessages(library(stochcg))
e <- new.env(); utils::data("tissue_gene_expression", package = "dslabs", envir = e)
Ys <- list(tissue = t(e$tissue_gene_expression$x))
e <- new.env(); utils::data("esGolub", package = "NMF", envir = e)
Ys$esGolub <- Biobase::exprs(e$esGolub)
d <- 50; kp <- 5; n <- 2000
set.seed(2)
W <- matrix(runif(d * kp)^3, d); W <- sweep(W, 2, colSums(W), "/")
Ys$synth <- W %*% matrix(rexp(kp * n), kp)
run <- function(Y, ...) {
  set.seed(1); t0 <- proc.time()[[3]]
  f <- stochastic_mf(Y, 5, model = "onmf", ..., control = cg_control(tol = 0, progress = FALSE))
  s <- proc.time()[[3]] - t0
  c(err = norm(Y - fitted(f), "F") / norm(Y, "F"), solver = f$solver_time, gap = f$gap)
}
for (nm in names(Ys)) {
  Y <- Ys[[nm]]; d <- nrow(Y)
  cat(nm, dim(Y), "svd5 err", sqrt(sum(svd(Y)$d[-(1:5)]^2)) / norm(Y, "F"), "\n")
  res <- NULL
  for (mult in c(1, 0.1, 0.01, 1e-3, 0)) for (S in c(10, 100)) 
    res <- rbind(res, c(mult = mult, S = S, run(Y, lambda = mult * d^-1.5, outer = S)))
  print(res, digits = 4)
}
