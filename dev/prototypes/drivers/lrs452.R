setwd("/work/wt-covref/inst/bench/prototypes")
source("covsp-data.R"); source("covlrs-prototype.R")
d <- stock_split(452); S <- d$S; eps <- 0.01
for (g in c(8, 16, 32)) for (lam in c(0.1, 0.2)) {
  f <- lrs_fit(S, g, lam, eps, tol = 1e-7)
  R <- f$R; offd <- row(R) != col(R); same <- outer(d$sector, d$sector, "==")
  cat(sprintf("gamma %g lam %.2f rank %d iters %d sec %.1f zerosR %.3f within-sector share of nonzeros %.3f (base %.3f) test ll %.1f\n", g, lam, f$rank, f$iterations, f$seconds,
    mean(R[offd]==0), mean(same[offd & R != 0]), mean(same[offd]), loglik(f$Sigma, d$Stest)))
}
suppressWarnings(library(POET))
for (K in 1:3) { t0 <- proc.time()[3]; po <- POET(t(d$train), K = K)
  cat(sprintf("POET K=%d sec %.1f test ll %.1f\n", K, proc.time()[3]-t0, loglik(po$SigmaY, d$Stest))) }
