setwd("/work/wt-covref/inst/bench/prototypes")
source("covsp-data.R"); source("covsp-solvers.R"); source("covsp-dual-fw.R"); source("../../../tests/testthat/helper-reference.R")
d <- stock_split(452); S <- d$S; eps <- 1e-2; lam <- 0.19
r <- ref_pd_sparse_cov(S, lam, eps)
cat("ref tr(Lambda)", sum(diag(r$Lambda)), "obj", r$objective, "\n")
print(dual_fw(S, lam, eps, tau = 2 * sum(diag(r$Lambda)), iters = 300, ref = r$objective))
