# Data for the sparse-covariance prototypes (issue 10 groundwork).
# stock100: the vignette's 100 stocks (set.seed(1), ordered by sector);
# stock452: all stocks. Daily log-returns of all 1258 days (1257 returns),
# train = first 628 days, test = the rest; columns centred and scaled by
# the training mean / sd (so S_train is the training correlation matrix).
# band2000: p = 2000, n = 500 draws of N(0, Sigma0), Sigma0 banded
# (1 on the diagonal, 0.4 at lag 1, 0.2 at lag 2; lambda_min 0.4).
stock_split <- function(p = 100) {
  data(stockdata, package = "huge", envir = environment())
  if (p == 100) {
    set.seed(1)
    pick <- sample(ncol(stockdata$data), 100)
  } else pick <- seq_len(ncol(stockdata$data))
  sector <- stockdata$info[pick, 2]
  pick <- pick[order(sector)]
  sector <- stockdata$info[pick, 2]
  R <- diff(log(stockdata$data[, pick]))
  ntr <- floor(nrow(R) / 2)
  tr <- R[seq_len(ntr), ]; te <- R[-seq_len(ntr), ]
  m <- colMeans(tr); s <- apply(tr, 2, sd)
  tr <- sweep(sweep(tr, 2, m), 2, s, "/"); te <- sweep(sweep(te, 2, m), 2, s, "/")
  list(train = tr, test = te, sector = sector, S = crossprod(tr) / nrow(tr),
       Stest = crossprod(te) / nrow(te))
}

band_data <- function(p = 2000, n = 500, seed = 1) {
  set.seed(seed)
  Sigma0 <- Matrix::bandSparse(p, k = 0:2, diagonals = list(rep(1, p), rep(0.4, p - 1),
                                                             rep(0.2, p - 2)), symmetric = TRUE)
  R <- Matrix::chol(Sigma0)
  X <- matrix(rnorm(n * p), n) %*% R
  X <- as.matrix(X)
  X <- scale(X, scale = FALSE)
  list(train = X, S = crossprod(X) / n, Sigma0 = Sigma0)
}

# held-out Gaussian log-likelihood per row (test data already centred)
loglik <- function(Sigma, Stest) {
  Sigma <- as.matrix(Sigma)
  R <- chol(Sigma)
  p <- nrow(Sigma)
  -0.5 * (p * log(2 * pi) + 2 * sum(log(diag(R))) + sum(diag(chol2inv(R) %*% Stest)))
}
