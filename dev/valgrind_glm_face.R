# Valgrind run of the dense GLM face/model steps changed by issue 25 glmcd:
# the Hessians by cg_syrk_upper_more over row blocks (n = 600: blocks of 256
# and a remainder), a small Poisson CV, and the ridge on a singular face
# (MASS::epil with the patient as a factor, radius 10).
#   R_LIBS=/tmp/lib_x R -d "valgrind --leak-check=full" --vanilla -f dev/valgrind_glm_face.R
suppressPackageStartupMessages(library(stochcg))
set.seed(1)
n <- 600; p <- 12
X <- matrix(rnorm(n * p), n)
y <- rbinom(n, 1, plogis(X[, 1] - X[, 2]))
f <- sparse_regression(X, y, radius = 2, family = "binomial")
cat("binomial", f$converged, f$face_steps, "\n")
yp <- rpois(n, exp(0.3 * X[, 1]))
cv <- cv_sparse_regression(X[1:300, ], yp[1:300], folds = rep_len(1:3, 300), family = "poisson", radius = c(0.2, 0.5, 1))
cat("cv", nrow(cv$cv), "\n")
d <- MASS::epil
Xe <- model.matrix(y ~ (lbase + lage + trt + V4)^2 + factor(subject), d)[, -1]
set.seed(1); rows <- sort(sample(nrow(Xe), 189)); Xe <- Xe[rows, ]; ye <- d$y[rows]
Xe <- Xe[, colSums(Xe != 0) > 0]
fe <- sparse_regression(Xe, ye, radius = 10, family = "poisson", control = cg_control(tol = 1e-10, max_iter = 1e5))
cat("epil", fe$converged, fe$iterations, fe$face_steps, "\n")
