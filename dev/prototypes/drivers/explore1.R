source("covsp-data.R"); source("../../../tests/testthat/helper-reference.R")
for (p in c(100, 452)) {
d <- stock_split(p); S <- d$S
off <- S; diag(off) <- 0; lmax <- max(abs(off))
cat("p", p, "ntrain", nrow(d$train), "lambda_max", lmax, "eig S range", range(eigen(S, TRUE, TRUE)$values), "\n")
lams <- lmax * 10^seq(-2.5, 0, length.out = 16)
for (lam in lams) {
  St <- ref_soft_off(S, lam); lm <- min(eigen(St, TRUE, TRUE)$values)
  cat(sprintf("lam %.4f nz %.3f lmin(soft) %.4f\n", lam, mean(St[row(St)!=col(St)]!=0), lm))
}
}
