# Valgrind the lassokeep paths (issue 25): the regression problem's arrays
# outside R's heap (src/prob_regression.c reg_alloc, released by
# dispatch.c after a single fit's result, after a path, and on an R error
# inside the build), a CV's fold copies of X outside R's heap
# (src/regression_data.c cg_fold_real: released at the CV's end, after an
# aborted CV, or by the finalizer), and a fold's one-radius lean pieces.
#   R -d "valgrind --leak-check=full" --vanilla -f dev/valgrind_lassokeep.R
suppressPackageStartupMessages(library(stochcg))
set.seed(1)
X <- matrix(rnorm(60 * 300), 60, 300)
y <- drop(X[, 1:3] %*% c(2, -1, 1)) + rnorm(60)
# single fits (pfw with a working set and face steps, pfw on a Gram matrix, sfw)
f1 <- sparse_regression(X, y, 3); f2 <- sparse_regression(X[, 1:40], y, 3)
f3 <- sparse_regression(X, y, 3, method = "sfw", control = cg_control(max_iter = 50))
f4 <- sparse_regression(X, y, 5, init = f1)          # warm start: ws and factor carried
print(c(f1$objective, f2$objective, f3$objective, f4$objective))
# a path and the default CVs: p > n (working set), n > p (shared Gram), standardized
p1 <- sparse_regression(X, y, c(1, 2, 4, 8))
cv1 <- cv_sparse_regression(X, y, folds = rep_len(1:5, 60), nradius = 12)
Xn <- matrix(rnorm(400 * 30), 400, 30); yn <- drop(Xn[, 1:4] %*% c(1, -1, 2, 1)) + rnorm(400)
cv2 <- cv_sparse_regression(Xn, yn, folds = rep_len(1:5, 400), nradius = 12, standardize = FALSE)
cv3 <- cv_sparse_regression(Xn, yn, folds = rep_len(1:5, 400), nradius = 12, intercept = FALSE)
# n * p >= 1e6: short pieces, a fold's one-radius pieces as lean paths
Xs <- matrix(rnorm(5000 * 200), 5000, 200); ys <- drop(Xs[, 1:10] %*% rnorm(10)) + rnorm(5000)
cv4 <- cv_sparse_regression(Xs, ys, folds = rep_len(1:4, 5000), nradius = 15)
print(c(cv1$radius.1se, cv2$radius.1se, cv3$radius.1se, cv4$radius.1se))
# an R error inside the problem's build, after its arrays were allocated
spec <- list(problem = "regression", method = "pfw", step = "line_search", K = 2L, eta = -1,
             n = 60L, p = 300L, y = y, radius = 3, sparse = FALSE, gram = FALSE,
             face_step = TRUE, screen = TRUE, batch_size = 1L, sampling = 1L, lipschitz = 1,
             X = X, init_beta = numeric(300), state_g = numeric(3))
print(tryCatch(.Call(stochcg:::C_cg_solve_call, spec, stochcg:::run_settings(stochcg:::as_control(cg_control(), max_iter = 1e5))),
               error = conditionMessage))
# a CV aborted by an R error mid-way (its on.exit releases the fold copies)
print(tryCatch(withCallingHandlers(
  cv_sparse_regression(X, y, folds = rep_len(1:5, 60), nradius = 12,
                       control = cg_control(progress = TRUE)),
  message = function(m) if (grepl("fold 3 of 5", conditionMessage(m))) stop("abandoned")),
  error = conditionMessage))
# fold copies dropped without a release (the finalizer frees them), and one
# released and then collected (no double free)
a <- .Call(stochcg:::C_cg_centred_rows, X, 1:50, TRUE, NULL, TRUE)
b <- .Call(stochcg:::C_cg_centred_rows, X, 2:51, TRUE, list(TRUE, NULL), TRUE)
print(.Call(stochcg:::C_cg_fold_release, b$X))
print(tryCatch(sum(b$X), error = conditionMessage))
rm(a, b); invisible(gc())
# serialized (a future's worker gets a plain copy)
d <- .Call(stochcg:::C_cg_centred_rows, X, 1:50, TRUE, NULL, TRUE)
e <- unserialize(serialize(d$X, NULL))
print(identical(e, d$X)); rm(d, e); invisible(gc())
