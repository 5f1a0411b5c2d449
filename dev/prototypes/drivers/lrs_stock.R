setwd("/work/wt-covref/inst/bench/prototypes")
source("covsp-data.R"); source("covlrs-prototype.R")
suppressWarnings(library(POET))
d <- stock_split(100); X <- d$train; n <- nrow(X); eps <- 1e-2
set.seed(2); fold <- sample(rep(1:5, length.out = n))
ev <- eigen(d$S, TRUE, TRUE)$values; cat("top eigenvalues of S:", round(ev[1:8], 2), "\n")
gammas <- c(0.5, 1, 2, 4, 8); lams <- c(0.02, 0.05, 0.1, 0.2, 0.3)
cv <- array(NA, c(5, length(gammas), length(lams))); t0 <- proc.time()[3]
for (k in 1:5) {
  tr <- X[fold != k, ]; va <- X[fold == k, ]
  m <- colMeans(tr); tr <- sweep(tr, 2, m); va <- sweep(va, 2, m)
  S <- crossprod(tr) / nrow(tr); Sv <- crossprod(va) / nrow(va)
  for (i in seq_along(gammas)) { w <- NULL
    for (j in rev(seq_along(lams))) {
      f <- lrs_fit(S, gammas[i], lams[j], eps, tol = 1e-7, warm = w); w <- f$warm
      cv[k, i, j] <- loglik(f$Sigma, Sv)
    }}
}
cat("CV seconds", proc.time()[3] - t0, "\n")
m <- apply(cv, 2:3, mean); dimnames(m) <- list(gamma = gammas, lambda = lams); print(round(m, 2))
b <- which(m == max(m), arr.ind = TRUE)
f <- lrs_fit(d$S, gammas[b[1]], lams[b[2]], eps)
R <- f$R; offd <- row(R) != col(R)
same <- outer(d$sector, d$sector, "==")
cat(sprintf("CV gamma %g lambda %g: rank(L) %d, iters %d, sec %.2f, zeros in R %.3f, nonzeros of R within sector %.3f (all pairs %.3f), lmin %.4f, test ll %.2f, Frob %.2f\n",
  gammas[b[1]], lams[b[2]], f$rank, f$iterations, f$seconds, mean(R[offd] == 0), mean(same[offd & R != 0]), mean(same[offd]),
  min(eigen(f$Sigma, TRUE, TRUE)$values), loglik(f$Sigma, d$Stest), sqrt(sum((f$Sigma - d$Stest)^2))))
ld <- f$loadings; cat("loading signs of factor 1 (share positive):", mean(ld[, 1] > 0), "\n")
if (ncol(ld) > 1) for (j in 2:ncol(ld)) { a <- tapply(ld[, j], d$sector, mean); cat("factor", j, "top sectors by mean loading:", names(sort(abs(a), TRUE))[1:2], "\n") }
t0 <- proc.time()[3]; K <- POETKhat(t(d$train))$K1HL
po <- POET(t(d$train), K = K)
cat(sprintf("POET K=%d (POETKhat) sec %.2f: test ll %.2f Frob %.2f zeros in u %.3f\n", K, proc.time()[3]-t0,
  loglik(po$SigmaY, d$Stest), sqrt(sum((po$SigmaY - d$Stest)^2)), mean(po$SigmaU[offd] == 0)))
for (K in 1:4) { po <- POET(t(d$train), K = K)
  cat(sprintf("POET K=%d: test ll %.2f Frob %.2f\n", K, loglik(po$SigmaY, d$Stest), sqrt(sum((po$SigmaY - d$Stest)^2)))) }
