setwd("/work/wt-covref/inst/bench/prototypes")
source("../../../tests/testthat/helper-reference.R")
b <- readRDS("/tmp/band2000.rds"); S <- b$S
t0 <- proc.time()[3]; r <- ref_pd_sparse_cov(S, 0.05, 1e-2, check_every = 5); tr <- proc.time()[3] - t0
cat("REF band2000 lam 0.05 iters", r$iterations, "sec", tr, "gap", r$gap, "obj", r$objective, "nbelow", r$n_below,
    "rank Lambda", sum(eigen(r$Lambda, TRUE, TRUE)$values > 1e-8), "\n")
saveRDS(r, "/tmp/band_ref.rds")
