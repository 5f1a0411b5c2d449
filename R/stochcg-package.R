#' stochcg: stochastic and variance-reduced conditional-gradient solvers
#'
#' Frank-Wolfe (conditional-gradient) methods with a C core for sparse and
#' low-rank estimation. Problem-level functions such as [sparse_regression()]
#' and [complete_matrix()] validate their input, build a problem
#' specification and hand it to one C entry point; the result is a `cg_fit`
#' object with a convergence trace (see [cg_fit]). Given several radii they
#' return a [cg_path] of warm-started fits; [cv_sparse_regression()] and
#' [cv_complete_matrix()] choose the radius by K-fold cross-validation.
#'
#' Semidefinite programs by homotopy conditional gradient and CGAL (paper
#' 003): [kmeans_sdp()], [sparsest_cut_sdp()] and the general
#' [sdp_solve()]; their fits report `infeasibility` and a certified
#' `lower_bound` on the optimum.
#'
#' Dictionary learning / stochastic matrix factorization with variance
#' reduction (paper 002): [stochastic_mf()], its fits reporting the
#' proximal gradient mapping norm (stationarity) as `gap`.
#'
#' @examples
#' set.seed(1)
#' X <- matrix(rnorm(40 * 5), 40)
#' y <- X[, 1] - X[, 2] + rnorm(40, sd = 0.5)
#' fit <- sparse_regression(X, y, radius = 2)
#' fit                    # every fit: status, iterations, time, objective, certificate
#' coef(fit)
#' kmeans_sdp(iris[sample(150, 30), 1:4], 3)$labels
#' @keywords internal
#' @useDynLib stochcg, .registration = TRUE, .fixes = "C_"
#' @importFrom RSpectra eigs_sym
"_PACKAGE"
