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
#' @section Vocabulary:
#' One name per idea across the package's functions:
#' \tabular{ll}{
#'   \strong{name} \tab \strong{meaning} \cr
#'   `radius` \tab bound of the constraint set: the nuclear-norm ball (or the
#'     trace of a PSD set) for matrices, the \eqn{\ell_1}{l1} ball for
#'     [sparse_regression()] \cr
#'   `radius_sparse` \tab the second bound of [robust_pca()]: the
#'     \eqn{\ell_1}{l1} (or \eqn{\ell_{1+\delta}}{l_(1+delta)}) ball of the sparse part \cr
#'   `lambda` (`lambda1`, `lambda2`) \tab penalty weights; two of them for two
#'     terms (elastic net) \cr
#'   `set` \tab the constraint set of a matrix estimate: `"nuclear"`
#'     (default everywhere) or `"psd"` \cr
#'   `method` \tab the algorithm, by the short name of its paper (see each function) \cr
#'   `batch_size` \tab samples (rows, entries, columns or constraints) drawn
#'     per iteration by a stochastic method; `snapshot_batch_size` for
#'     SVRGCG's snapshots \cr
#'   `step` \tab a step RULE (`"line_search"`, `"standard"`, ...); `step_size`
#'     a constant step length \cr
#'   `inner` \tab iterations per epoch of a variance-reduced method \cr
#'   `rank`, `max_rank` \tab starting rank and cap of a partial SVD \cr
#'   `init` \tab warm start: a previous fit (continued) or a compatible estimate \cr
#'   `folds` \tab cross-validation folds: a number or a vector of fold ids \cr
#'   `control` \tab [cg_control()]: `max_iter`, `max_time`, `tol`,
#'     `eval_every`, `progress`, `verbose` \cr
#' }
#' Data arguments keep the name of the object they are: `X`, `y` (a design
#' and a response), `Y` (observed entries or columns of samples), `M` (a
#' matrix to decompose or its sampler), `data` (observations in rows), `x`
#' (points to cluster), `adjacency` (a graph), `C`, `A`, `b` (an SDP).
#'
#' Every fit is a `cg_fit` (see [cg_fit]) whose `solution` holds the
#' estimates in one shape per kind: a coefficient vector is a numeric
#' vector; a matrix estimated under a nuclear-norm or trace bound (and only
#' low rank by construction) is a [lowrank()] object (`u`, `d`, `v`;
#' `as.matrix()` gives the dense matrix): [complete_matrix()],
#' [robust_pca()]'s `X`, [sdp_solve()]; a sparse part is a `dgCMatrix`
#' (`dsCMatrix` when symmetric); a matrix that is neither (the
#' sparse-plus-low-rank estimates of [lowrank_sparse()],
#' [lowrank_constrained()], [matrix_sensing()], a dictionary `W`, the
#' \eqn{n \times n}{n x n} co-membership matrix of [kmeans_sdp()] and
#' [sparsest_cut_sdp()], whose rounding reads its entries) is a base
#' matrix. The trace's `epoch` column counts passes over the data (full
#' gradients' worth of samples), so it equals `iter` for deterministic
#' methods: traces of different methods share one axis.
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
