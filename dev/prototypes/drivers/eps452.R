setwd("/work/wt-covref/inst/bench/prototypes")
source("covsp-data.R"); source("covsp-solvers.R")
d <- stock_split(452); S <- d$S
for (eps in c(0.01, 0.1, 0.3)) { w <- NULL
 for (lam in c(0.6, 0.41, 0.28, 0.19, 0.13, 0.06)) {
  sc <- screen(S, lam, eps)
  if (sc$ok) { Sig <- sc$Sigma; it <- 0; rk <- 0 } else { f <- dual_fista(S, lam, eps, gap_tol = 1e-8, warm = w); w <- f$warm; Sig <- as.matrix(f$Sigma); it <- f$iterations; rk <- tail(f$below, 1) }
  cat(sprintf("eps %.2f lam %.2f screened %s iters %d below %d zeros %.3f test ll %.1f Frob %.1f\n", eps, lam, sc$ok, it, rk,
      mean(Sig[row(Sig)!=col(Sig)]==0), loglik(Sig, d$Stest), sqrt(sum((Sig-d$Stest)^2))))
 }}
cat(sprintf("sample: test ll %.1f\n", loglik(S, d$Stest)))
