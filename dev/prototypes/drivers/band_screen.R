setwd("/work/wt-covref/inst/bench/prototypes")
source("covsp-data.R"); source("covsp-solvers.R")
t0 <- proc.time()[3]; b <- band_data(); cat("data sec", proc.time()[3]-t0, "\n")
S <- b$S; saveRDS(b, "/tmp/band2000.rds")
for (lam in c(0.05, 0.1, 0.15, 0.2, 0.3)) {
  t0 <- proc.time()[3]; St <- as_sp(soft_off(S, lam)); lm <- lambda_min(St)
  Sig0 <- as.matrix(b$Sigma0)
  cat(sprintf("lam %.2f nz/row %.1f lmin(soft) %.4f  ||soft-Sigma0||_F %.2f  sec %.1f\n", lam, (sum(St!=0)-2000)/2000, lm, sqrt(sum((as.matrix(St)-Sig0)^2)), proc.time()[3]-t0))
}
cat("||S - Sigma0||_F", sqrt(sum((S - as.matrix(b$Sigma0))^2)), "\n")
