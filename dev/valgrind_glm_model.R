# Valgrind run of the dense model step's active set (issue 25, glmpois):
# p >> n Poisson and binomial fits and a small Poisson CV (the active set's
# factor extended as coordinates enter, refactored after sign flips, the
# pairwise fallback where it fails).
#   R_LIBS=/tmp/lib_x R -d "valgrind --leak-check=full" --vanilla -f dev/valgrind_glm_model.R
suppressPackageStartupMessages(library(stochcg))
set.seed(2)
n <- 80; p <- 400
X <- matrix(rnorm(n * p), n)
eta <- drop(X[, 1:8] %*% rep(c(0.4, -0.3), 4))
yp <- rpois(n, exp(eta))
for (r in c(0.5, 2, 6)) {
  f <- sparse_regression(X, yp, radius = r, family = "poisson",
                         control = cg_control(tol = 1e-10, max_iter = 1e4))
  cat("poisson", r, f$converged, f$iterations, sum(coef(f) != 0), "\n")
}
yb <- rbinom(n, 1, plogis(2 * eta))
f <- sparse_regression(X, yb, radius = 4, family = "binomial")
cat("binomial", f$converged, f$iterations, "\n")
cv <- cv_sparse_regression(X, yp, folds = rep_len(1:3, n), family = "poisson")
cat("cv", nrow(cv$cv), cv$radius.min, "\n")
