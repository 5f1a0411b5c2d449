setwd("/work/wt-covref/inst/bench/prototypes")
source("covsp-data.R"); source("covsp-solvers.R")
args <- commandArgs(TRUE); p <- as.integer(args[1]); eps <- as.numeric(args[2])
d <- stock_split(p); X <- d$train; n <- nrow(X)
set.seed(2); fold <- sample(rep(1:5, length.out = n))
off <- d$S; diag(off) <- 0; lmax <- max(abs(off))
lams <- lmax * 10^seq(0, -2, length.out = 13)
solve1 <- function(S, lam, warm) {
  sc <- screen(S, lam, eps)
  if (sc$ok) return(list(Sigma = sc$Sigma, screened = TRUE, below = 0, warm = warm, iterations = 0, seconds = 0))
  f <- dual_fista(S, lam, eps, gap_tol = 1e-7, warm = warm)
  c(f, screened = FALSE)
}
cvll <- matrix(NA, 5, length(lams)); scr <- matrix(NA, 5, length(lams)); nb <- matrix(NA, 5, length(lams))
t0 <- proc.time()[3]
for (k in 1:5) {
  tr <- X[fold != k, ]; va <- X[fold == k, ]
  m <- colMeans(tr); tr <- sweep(tr, 2, m); va <- sweep(va, 2, m)
  S <- crossprod(tr) / nrow(tr); Sv <- crossprod(va) / nrow(va)
  warm <- NULL
  for (j in seq_along(lams)) {
    f <- solve1(S, lams[j], warm); warm <- f$warm
    cvll[k, j] <- loglik(f$Sigma, Sv); scr[k, j] <- f$screened; nb[k, j] <- tail(f$below, 1)
  }
}
cvsec <- proc.time()[3] - t0
jbest <- which.max(colMeans(cvll))
cat(sprintf("p %d eps %g  CV seconds %.1f\n", p, eps, cvsec))
print(data.frame(lambda = signif(lams, 3), cv_ll = round(colMeans(cvll), 2), screened = colMeans(scr), below_at_opt = apply(nb, 2, max)))
S <- d$S
f <- solve1(S, lams[jbest], NULL)
Sig <- as.matrix(f$Sigma)
cat(sprintf("CV lambda %.4f: screened %s, below %d, iters %d, sec %.2f, zeros %.3f, lmin %.4f, test ll %.2f, Frob to test S %.2f\n",
  lams[jbest], f$screened, tail(f$below, 1), f$iterations, f$seconds, mean(Sig[row(Sig)!=col(Sig)] == 0),
  min(eigen(Sig, TRUE, TRUE)$values), loglik(Sig, d$Stest), sqrt(sum((Sig - d$Stest)^2))))
cat(sprintf("sample cov: test ll %.2f, Frob %.2f\n", loglik(S, d$Stest), sqrt(sum((S - d$Stest)^2))))
