#' Low-rank plus sparse matrix estimation
#'
#' Estimates a matrix that is at once low-rank and sparse,
#' \deqn{\min_X \tfrac12 \|X - E[M]\|_F^2 + \lambda \|X\|_1}{min_X 1/2 ||X - E[M]||^2 + lambda ||X||_1}
#' over the nuclear-norm ball \eqn{\|X\|_* \le \tau}{||X||_* <= tau}
#' (`set = "nuclear"`, Garber and Kaplan 2019, eq. 7) or over positive
#' semidefinite matrices with \eqn{\mathrm{tr}(X) \le \tau}{tr(X) <= tau}
#' (`set = "psd"`, eq. 2). `M` is a matrix (deterministic), a Gaussian
#' sampler made by [lowrank_sampler()] (noisy observations
#' \eqn{M_0 + \sigma Q}), or an R function `function(k)` returning the mean of
#' `k` fresh observations, so data from any source can stream in.
#'
#' `method = "svrgcg"` is the variance-reduced generalized conditional
#' gradient (their Alg. 1; Alg. 2 for finite sums in [sparse_covariance()]).
#' Each inner iteration computes a rank-\eqn{r} SVD (eigendecomposition for the
#' PSD set) of \eqn{A_t = X_t - (\hat\nabla + \nabla R_\mu(X_t))/(2\beta\eta)}
#' and projects its \eqn{r} leading values onto the simplex: the *weak
#' proximal oracle*. The rank is **certified**: starting from `rank`, \eqn{r}
#' grows until \eqn{\sigma_{r+1}(A_t)} is at most the projection threshold, when
#' the rank-\eqn{r} step equals the exact proximal step; the certified rank
#' is kept for the next iteration and recorded in the trace (`svd_rank`
#' counts the singular triplets computed, `n_lmo` their running total, the
#' paper's "rank-one SVD" count). The l1 term is smoothed by the Huber
#' function with parameter \eqn{\mu}{mu} for the gradient steps; the trace
#' and `objective` report the stated (nonsmooth) objective.
#'
#' **Certificate.** `gap` bounds objective \eqn{-} optimum of the *stated*
#' problem, whatever \eqn{\mu}{mu}: with the Huber gradient
#' \eqn{Z = \lambda\,\mathrm{clip}(X/\mu, -1, 1)}{Z = lambda clip(X / mu, -1, 1)}
#' as a dual point (\eqn{\|Z\|_\infty \le \lambda}{|Z| <= lambda}), weak duality gives
#' \deqn{F(X) - F^* \le \langle \nabla F_\mu(X), X - S\rangle + \lambda
#' \sum_{|x_{ij}| < \mu} \left(|x_{ij}| - x_{ij}^2/\mu\right),}{F(X) - F* <=
#' <grad F_mu(X), X - S> + lambda sum_{|x_ij| < mu} (|x_ij| - x_ij^2 / mu),}
#' the Frank-Wolfe gap of the smoothed objective (\eqn{S} its linear
#' minimizer over the set) plus a residual that is zero for entries that are
#' 0 or at least \eqn{\mu}{mu} in size. It is computed with the exact mean
#' (the target for samplers), and "converged" means it is below `tol`.
#'
#' **Smoothing continuation (default).** One fixed \eqn{\mu}{mu} solves a
#' different problem (the issue-9 instance, `d = 40`, `lambda = 2`, ended
#' 2.4\% above the stated optimum with every method). Without `mu`, the
#' solver starts from the theory value below and halves \eqn{\mu}{mu}
#' whenever the smoothed gap falls below the residual, i.e. when the
#' smoothing dominates the error (checked at each snapshot of `"svrgcg"`,
#' every 10 iterations of `"scg"` and `"scgs"`, every iteration of `"fw"`);
#' the step \eqn{\eta}{eta} (`step_size`) and the epoch length \eqn{T} follow
#' \eqn{\beta(\mu)}{beta(mu)} (given `step_size` and `inner` are those of the
#' starting \eqn{\mu}{mu}), and SCGS restarts. The check uses the exact
#' gradient when the data are held (a matrix, the rows of `data`), else the
#' last snapshot of a stream (`"svrgcg"` only; `"scg"` and `"scgs"` keep
#' \eqn{\mu}{mu} fixed on streams). Passing `mu` keeps it fixed, the paper's
#' setting; the certificate is still that of the stated problem, so such a
#' fit reports a gap that includes the smoothing bias.
#'
#' **Dual refit (a matrix `M`, default).** With `M` a matrix, `mu = NULL`
#' and `tol > 0`, the solver's iterate is followed by a refit that returns
#' the answer in the form the problem has. The stated problem is the
#' proximal map at `M` of \eqn{\lambda\|\cdot\|_1}{lambda ||.||_1} plus the
#' set's indicator, whose dual over the box \eqn{|Z_{ij}| \le \lambda}{|Z| <= lambda},
#' \eqn{D(Z) = \frac12 \mathrm{dist}(M - Z, C)^2 + \langle Z, M\rangle -
#' \frac12\|Z\|^2 \le F^*}{D(Z) = 1/2 dist(M - Z, C)^2 + <Z, M> - 1/2 ||Z||^2 <= F*},
#' is smooth with the 1-Lipschitz gradient \eqn{P_C(M - Z)}{P_C(M - Z)}.
#' Accelerated projected gradient ascent on it (FISTA, step 1, adaptive
#' restart), started from the Huber gradient at the iterate, takes one
#' certified weak proximal step per step (the solver's oracle, partial
#' SVD); the returned `X` is \eqn{P_C(M - Z)}{P_C(M - Z)}, of exactly the
#' certified rank (`certified_rank`), and `gap` is \eqn{F(X) - D(Z)}{F(X) - D(Z)},
#' an exact bound. It steps until that is below `tol` (relative as for
#' the solver) or 1000 steps, and is kept when its gap is below the
#' iterate's (`fit$refit`: `used`, `steps`, the solver's own objective and
#' gap; the trace is the solver's). Why: the smoothed iterate averages
#' many proximal points, so its rank was 2-3 times the solution's (14 vs 5
#' on `cor(spls::mice$y)` at `lambda = 0.1`, `radius = 20`, PSD) and its
#' Frank-Wolfe-type certificate stalled near a relative 1e-5, so that no
#' default call reported converged; with the refit those calls converge at
#' `tol = 1e-6` with the exact rank, for 10-30\% more time
#' (`inst/bench/results/lowrank_defaults.md`). A continuation (`init`)
#' goes on from the solver's iterate, which the state keeps (`X_iter`: one
#' more \eqn{m \times n}{m x n} matrix). `options(stochcg.lowrank_refit =
#' FALSE)` returns the iterate.
#'
#' **Default method and why.** `"svrgcg"` with continuation: on the issue-9
#' instance it reaches 1e-3 of the stated optimum in 0.09 s (certified at
#' 1e-3 in 0.14 s) while `"scgs"` takes 11 s and `"fw"` and `"scg"` do not
#' get there in 20000 iterations; on the PSD test instance it is 25 times
#' faster than `"fw"` and `"scgs"` (`inst/bench/smoothed_defaults.R`).
#'
#' Defaults follow the paper's theory (Theorem 3, Corollary 3):
#' \eqn{\alpha = 1}, \eqn{\beta = 1 + \lambda/\mu}, step
#' \eqn{\eta = \alpha/(2\beta)}, \eqn{T = \lceil 8\beta\ln 8/(3\alpha)\rceil + 1}
#' inner iterations per epoch, \eqn{k_t = 32} samples per inner iteration and
#' snapshot samples \eqn{k_s = 32\sigma^2 2^{s-1}/C_0}, with
#' \eqn{C_0 = \frac12\|E M\|^2 \ge f(0) - f^*} (estimated from a pilot draw
#' for samplers) and \eqn{\mu = \varepsilon/(\lambda mn)},
#' \eqn{\varepsilon = } `eps` \eqn{\times C_0}: the smoothing then costs at most
#' \eqn{\varepsilon/2}{eps/2} in objective, and `mu` scales with the data
#' (the paper's experiments take \eqn{\varepsilon/(mn)}, the same at
#' \eqn{\lambda = 1}; at the scale of daily stock returns, \eqn{\lambda
#' \approx 10^{-5}}, it left 1000 iterations at a relative gap of 5.8).
#' `step_size`, `inner`, `batch_size` and `snapshot_batch_size` override them. For this loss the
#' inner-loop correction \eqn{\nabla g_i(X_t) - \nabla g_i(X_s) = X_t - X_s}
#' does not depend on the sample, so it is computed exactly; the \eqn{k_t}
#' samples the algorithm prescribes are still counted in `n_grad`.
#'
#' Baselines: `"scg"`, stochastic Frank-Wolfe with minibatches
#' \eqn{\lceil(\sigma(t+1)/(LD))^2\rceil} and step \eqn{2/(t+1)} (Hazan and Luo
#' 2016); `"scgs"`, stochastic conditional gradient sliding (Lan and Zhou
#' 2016: \eqn{\gamma_k = 3/(k+2)}, \eqn{\beta_k = 4L/(k+2)}, inner
#' conditional-gradient steps until the Wolfe gap is below
#' \eqn{LD^2/(k(k+1))}, batches \eqn{\lceil\sigma^2(k+2)^3/(L^2D^2)\rceil});
#' and `"fw"`, deterministic Frank-Wolfe on the smoothed objective (needs the
#' exact mean: `M` a matrix). Here \eqn{L = \beta} and \eqn{D = 2\tau}.
#'
#' @section Memory:
#' `M` is read where it is, never copied. The C solver keeps seven dense
#' \eqn{m \times n}{m x n} matrices (the iterate, the snapshot and minibatch
#' means, the gradient, the proximal argument and point, and the full
#' gradient for the trace), and the estimate is returned as one more: on top
#' of `M` the call uses about 9 times its size (`inst/bench/memory.R`), plus
#' \eqn{O((m + n) r)}{O((m + n) r)} for the rank-\eqn{r} SVDs, or a dense copy
#' and a full SVD (several \eqn{m \times n}{m x n} matrices more) once
#' \eqn{2r \ge \min(m, n)}{2 r >= min(m, n)}. A [lowrank_sampler()] needs
#' the same (its `M0` is read in place). The fit may keep one more
#' \eqn{m \times n}{m x n} matrix in `fit$state` (see `init`), and the dual
#' refit (see there) about six more while it runs and one in the state.
#'
#' @param M A numeric matrix, a [lowrank_sampler()], a function of `k`
#'   returning the mean of `k` observations (a matrix of fixed dimensions),
#'   or [covariance_rows()] of a data matrix (the sample covariance as a
#'   finite sum over its rows, the paper's Alg. 2).
#' @param lambda Weight \eqn{\lambda \ge 0} of the l1 term.
#' @param radius \eqn{\tau > 0}: nuclear-norm (or trace) bound.
#' @param set `"nuclear"` or `"psd"` (then `M` must be square; it is
#'   symmetrized).
#' @param method `"svrgcg"` (default), `"scg"`, `"scgs"` or `"fw"`.
#' @param rank Starting rank of the weak proximal oracle (certified upward).
#' @param max_rank Largest rank the oracle may use (default: full).
#' @param mu Huber smoothing parameter, kept fixed; `NULL` (default) starts
#'   from the theory value below and decreases it (continuation).
#' @param eps Accuracy relative to \eqn{C_0} that sets the starting `mu`.
#' @param step_size SVRGCG step \eqn{\eta}; `NULL` for the theory value above.
#' @param inner Inner iterations per epoch \eqn{T}; `NULL` for the theory value.
#' @param batch_size Samples per inner iteration \eqn{k_t}; `NULL` for the theory
#'   value.
#' @param snapshot_batch_size Samples of the first snapshot \eqn{k_1} (doubling
#'   every epoch, at most `1e8`); `NULL` for the theory value. `0` takes the
#'   exact mean, available only when `M` is a matrix.
#' @param init `NULL`, or a previous fit of the same function on a matrix
#'   of the same size. A fit of the same data (the same matrix, sampler,
#'   function `M` or rows of `data`; `A` and `b`), penalty, set, radius,
#'   method and settings as given (`rank`, `max_rank`, `mu`, `eps`,
#'   `step_size`, `inner`, `batch_size`, `snapshot_batch_size`) that kept its
#'   solver state `fit$state` is continued exactly: with `set.seed()` before
#'   the first fit only, the run goes on as one longer run would, bit for bit
#'   (tested for every method; the random numbers continue the stream, and
#'   the draws a function `M` makes for the defaults are undone). SVRGCG goes
#'   on mid-epoch from the fit's snapshot, step and epoch length, SCG counts
#'   its batches, steps and smoothing checks on from the fit's iterations,
#'   SCGS goes on from its prox-center and stage, and continuation from the
#'   fit's `mu`; the trace continues the fit's iteration numbers and
#'   counters, and `tol` is tested at the iterations of the longer run.
#'   The state is a few numbers, plus one \eqn{m \times n}{m x n} matrix of
#'   doubles for SVRGCG with sampled snapshots (the snapshot mean of a
#'   sampler, a function or `covariance_rows()` with `snapshot_batch_size >
#'   0`; `matrix_sensing()`'s snapshot point) and for SCGS (its prox-center);
#'   `fit$state <- NULL` drops it. A fit stopped by an error or an interrupt
#'   keeps none. Any other fit is a warm start (along a sequence of radii or
#'   penalties): its `X`, scaled into this fit's set when it lies outside,
#'   starts the solver, a fit with continuation goes on from its final
#'   `mu`, and the schedules count on from its iterations (SVRGCG starts a
#'   new epoch). The fit's `notes` say which.
#' @param target Optional exact \eqn{E[M]} used only to evaluate the objective
#'   in the trace when `M` is a function (otherwise the trace objective is
#'   `NA` for function samplers).
#' @param control Solver settings from [cg_control()]; `max_iter` counts inner
#'   iterations (proximal or Frank-Wolfe steps).
#' @returns A fit of class `c("lowrank_sparse_fit", "cg_fit")` (see
#'   [cg_fit]); `solution$X` is the estimate (a dense matrix),
#'   `certified_rank` the rank certified by the last proximal step, `mu` the
#'   final smoothing parameter, `smoothing` a list with `mu_start`, `mu`
#'   and `continuation` (`TRUE` unless `mu` was given), and `state` the
#'   solver state for `init` (see there).
#' @references Garber, D. and Kaplan, A. (2019). Fast stochastic algorithms
#'   for low-rank and nonsmooth matrix problems. AISTATS.
#' @examples
#' set.seed(1)
#' d <- 40
#' Y <- matrix(rbinom(d * 2, 1, 0.2) * sample(1:5, d * 2, TRUE), d, 2)
#' M0 <- tcrossprod(Y)
#' N <- matrix(rnorm(d * d), d)
#' fit <- lowrank_sparse(M0 + (N + t(N)) / 2, lambda = 0.5,
#'                       radius = sum(diag(M0)), set = "psd",
#'                       control = cg_control(max_iter = 200))
#' fit
#' fit$certified_rank
#' # streaming noisy observations M0 + 5 Q from the C oracle
#' fit_s <- lowrank_sparse(lowrank_sampler(M0, sigma = 5), lambda = 0.5,
#'                         radius = sum(diag(M0)), set = "psd",
#'                         control = cg_control(max_iter = 200))
#' fit_s$objective
#' @export
lowrank_sparse <- function(M, lambda, radius, set = c("nuclear", "psd"),
                           method = c("svrgcg", "scg", "scgs", "fw"), rank = 1L,
                           max_rank = NULL, mu = NULL, eps = 0.01, step_size = NULL,
                           inner = NULL, batch_size = NULL, snapshot_batch_size = NULL,
                           target = NULL, init = NULL, control = cg_control()) {
  started <- wall_clock()
  call <- match.call()
  set <- match_choice(set, c("nuclear", "psd"), "set")
  method <- match_choice(method, c("svrgcg", "scg", "scgs", "fw"), "method")
  src <- lowrank_source(M, set, target)
  check_number(lambda, "lambda", min = 0)
  lowrank_solve(src, list(kind = 0L, lambda = lambda), radius, set, method, rank,
                max_rank, mu, eps, step_size, inner, batch_size, snapshot_batch_size, control, call,
                "lowrank_sparse", started, init = init)
}

#' Gaussian observation oracle for [lowrank_sparse()]
#'
#' Observations \eqn{M_i = M_0 + \sigma Q_i} with \eqn{Q_i} i.i.d. standard
#' Gaussian matrices, drawn in C through R's random number generator (the mean
#' of a minibatch of \eqn{k} is drawn directly as
#' \eqn{M_0 + \sigma Q/\sqrt{k}}, which has the same distribution).
#' @param M0 The mean matrix.
#' @param sigma Noise level \eqn{\sigma \ge 0}.
#' @returns An object of class `cg_sampler`.
#' @examples
#' s <- lowrank_sampler(diag(3), sigma = 5)
#' str(s)
#' # a fit that sees only noisy draws of diag(3): the estimate is close to it
#' set.seed(1)
#' fit <- lowrank_sparse(s, lambda = 0.1, radius = 3, set = "psd", batch_size = 50,
#'                       control = cg_control(max_iter = 100))
#' round(as.matrix(fit$solution$X), 2)
#' @export
lowrank_sampler <- function(M0, sigma) {
  M0 <- check_design(M0, "M0")
  check_number(sigma, "sigma", min = 0)
  structure(list(M0 = as.matrix(M0), sigma = as.double(sigma)), class = "cg_sampler")
}

#' Sample covariance as a finite sum, for [lowrank_sparse()]
#'
#' The paper's covariance model (Garber and Kaplan 2019, eq. 7, Alg. 2):
#' \eqn{E[M]} is the sample covariance of the rows of `data`, a finite sum
#' over rows \eqn{M_i = \frac{n}{n-1}(x_i - \bar x)(x_i - \bar x)^\top}
#' whose mean is `cov(data)`. Given as `M` to [lowrank_sparse()], SVRGCG
#' takes full snapshots and minibatch gradients (for `"scg"`) are one BLAS
#' call on the centred rows of the batch, never a \eqn{p \times p} matrix per
#' sample. `data` may be dense or a sparse `Matrix` (kept sparse). This
#' estimates a sparse low-rank matrix; for a covariance estimate to use as
#' one (positive definite, exact zeros, free diagonal) see
#' [sparse_covariance()].
#'
#' @section Memory:
#' `data` is read where it is, never copied. On top of it the fit uses about
#' 1.6 to 2.2 times the size of a dense `data` (`inst/bench/memory.R`): the C
#' solver's minibatch buffer of \eqn{n \times p}{n x p} doubles (dense, also
#' for a sparse `data`, whose minibatches it densifies), the row distances to
#' the mean (computed by blocks of columns), and seven
#' \eqn{p \times p}{p x p} matrices as in [lowrank_sparse()]. A sparse
#' `data` adds one copy of it by rows.
#'
#' @param data An \eqn{n \times p} numeric matrix or `Matrix` of observations
#'   (rows), \eqn{n \ge 2}. Not a reader ([block_reader()], a
#'   `DelayedArray`): the solvers draw single rows at random, with
#'   replacement, from memory; for data on disk, [sparse_covariance()]
#'   forms the sample covariance in one pass over the file.
#' @returns An object of class `cg_rows`, for `M` in [lowrank_sparse()].
#' @examples
#' set.seed(2)
#' n <- 300; p <- 20
#' L <- matrix(0, p, 2); L[1:5, 1] <- 2; L[6:10, 2] <- 1.5
#' data <- matrix(rnorm(n * 2), n) %*% t(L) + matrix(rnorm(n * p, sd = 0.5), n)
#' fit <- lowrank_sparse(covariance_rows(data), lambda = 0.05, radius = 25,
#'                       control = cg_control(max_iter = 300))
#' fit
#' @export
covariance_rows <- function(data) {
  if (is_reader_input(data))
    stop_arg("data", "is read from disk (a reader): covariance_rows() draws single rows at ",
             "random from memory; for data on disk, sparse_covariance(data, lambda = ) forms ",
             "the covariance in one pass over the file")
  data <- check_design(data, "data")
  n <- nrow(data); p <- ncol(data)
  if (n < 2L || p < 1L) stop_arg("data", "must have at least two rows and one column")
  xbar <- Matrix::colMeans(data)
  sparse <- inherits(data, "Matrix")
  S <- sample_covariance(data, xbar)
  # squared distances of the rows to the mean, for E||M_i - S||^2 (by blocks
  # of columns: no temporary of the size of data)
  r2 <- numeric(n)
  for (cols in column_blocks(data)) {
    B <- data[, cols, drop = FALSE]
    r2 <- r2 + if (sparse) Matrix::rowSums(B^2) - 2 * as.vector(B %*% xbar[cols]) + sum(xbar[cols]^2)
               else rowSums(sweep(B, 2, xbar[cols])^2)
  }
  cfac <- n / (n - 1)
  src <- list(source = 3L, M = S, sigma = 0, dims = c(p, p), C0 = 0.5 * sum(S^2), arg = "data",
              sigma2 = max(cfac^2 * mean(r2^2) - sum(S^2), 0),
              dimnames = list(colnames(data), colnames(data)),
              rows = c(list(nobs = n, sparse = sparse, xbar = as.double(xbar),
                            max_batch = as.integer(max(n, 32L))),
                       if (sparse) {
                         Xr <- methods::as(Matrix::t(data), "CsparseMatrix")
                         list(row_p = Xr@p, row_j = Xr@i, row_x = Xr@x)
                       } else list(data = data)))
  structure(src, class = "cg_rows")
}

# cov(data) (divisor n - 1), exactly symmetric, with one p x p array where
# possible: a dense data with n <= p is centred in a copy (no larger than the
# result) and crossprod'ed (dsyrk); otherwise the crossproduct minus
# n xbar xbar' (a sparse data stays sparse)
sample_covariance <- function(data, xbar = Matrix::colMeans(data)) {
  n <- nrow(data)
  if (!inherits(data, "Matrix") && n <= ncol(data))
    return(crossprod(sweep(data, 2L, xbar) / sqrt(n - 1)))
  S <- as.matrix(Matrix::crossprod(data))
  (S - n * tcrossprod(xbar)) / (n - 1)
}

# ---- internal: where E[M] comes from (source codes of src/prob_lowrank.c)
lowrank_source <- function(M, set, target) {
  if (inherits(M, "cg_rows")) {
    if (!is.null(target)) stop_arg("target", "is used only when `M` is a function")
    return(unclass(M))
  }
  if (inherits(M, "cg_sampler")) {   # re-checked: a user may build one by hand
    M0 <- as.matrix(check_design(M$M0, "M$M0"))
    check_number(M$sigma, "M$sigma", min = 0)
    out <- list(source = 1L, M = M0, sigma = M$sigma, dims = dim(M0),
                C0 = 0.5 * (sum(M0^2) + M$sigma^2 * length(M0)),
                sigma2 = M$sigma^2 * length(M0))
  } else if (is.function(M)) {
    # the pilot draws use the RNG: an exact continuation undoes them
    # (lowrank_solve), so that its run draws what one longer run would
    seed <- get0(".Random.seed", envir = globalenv(), inherits = FALSE)
    pilot <- tryCatch(lapply(1:2, function(i) M(1L)), error = function(e)
      stop_arg("M", "must be a function of k returning a matrix; M(1) failed: ",
               conditionMessage(e)))
    ok <- vapply(pilot, function(p) is.numeric(p) && is.matrix(p) && all(is.finite(p)), NA)
    if (!all(ok)) stop_arg("M", "must return a finite numeric matrix when called as M(k)")
    if (!identical(dim(pilot[[1]]), dim(pilot[[2]])))
      stop_arg("M", "returned matrices of different dimensions")
    if (!is.null(target)) {
      target <- check_design(target, "target")
      if (!identical(dim(target), dim(pilot[[1]])))
        stop_arg("target", "must have the dimensions of M(k)")
    }
    out <- list(source = 2L, M = if (is.null(target)) NULL else as.matrix(target),
                sampler = M, dims = dim(pilot[[1]]), sigma = 0,
                C0 = 0.5 * sum(pilot[[1]]^2),
                sigma2 = 0.5 * sum((pilot[[1]] - pilot[[2]])^2), seed = seed)
  } else {
    if (!is.null(target)) stop_arg("target", "is used only when `M` is a function")
    M <- as.matrix(check_design(M, "M"))
    out <- list(source = 0L, M = M, sigma = 0, dims = dim(M), C0 = 0.5 * sum(M^2),
                sigma2 = 0)
  }
  if (any(out$dims < 1L)) stop_arg("M", "must have at least one row and column")
  if (set == "psd") {
    if (out$dims[1] != out$dims[2]) stop_arg("M", "must be square for set = \"psd\"")
    if (out$source == 0L && !is_symmetric_matrix(out$M, tol = 1e-8))
      stop_arg("M", "must be symmetric for set = \"psd\"")
  }
  out
}

# What a run's state belongs to: the data the solver reads (fingerprints of
# its arrays; a function sampler itself), the penalty, the set and radius,
# the method, and the settings as given (NULL: the theory value, which the
# same data give again).
lowrank_key <- function(src, reg, problem, method, set, radius, rank, max_rank, mu, eps,
                        step_size, inner, batch_size, snapshot_batch_size) {
  num <- function(x) if (is.numeric(x)) as.double(x) else x      # 1L and 1 alike
  arrays <- c(list(M = if (src$source != 2L) src$M), Filter(is.numeric, src$rows), src$op,
              reg$op)
  list(problem = problem, method = method, set = set, source = src$source,
       loss = src$loss %||% 0L, data = lapply(Filter(Negate(is.null), arrays), fingerprint),
       sampler = src$sampler, sigma = num(src$sigma),
       penalty = c(reg$kind, num(reg$lambda), num(reg$lambda2)),
       settings = lapply(list(radius = radius, rank = rank, max_rank = max_rank, mu = mu,
                              eps = eps, step_size = step_size, inner = inner,
                              batch_size = batch_size,
                              snapshot_batch_size = snapshot_batch_size), num))
}

# The start from `init`, a previous fit of the same function on a matrix of
# the same size. A fit of the same data and settings (`key`) that kept its
# state (`fit$state`), and whose X is the one it ended with, continues
# exactly: from its X as it is (a projection could move its bits), the
# solver's state and its iteration count. Any other fit is a warm start:
# its X, scaled into the set of this radius, and its final smoothing
# parameter when it used continuation; schedules count on from its
# iterations.
lowrank_start <- function(init, problem, dims, set, radius, key) {
  if (is.null(init)) return(list())
  if (!inherits(init, paste0(problem, "_fit")))
    stop_arg("init", "must be NULL or a fit of ", problem, "()")
  X <- init$solution$X
  st <- init$state
  # a dual refit returned its projection; the solver goes on from its iterate
  if (!is.null(st$X_iter) && identical(st$X_refit, fingerprint(X))) X <- st$X_iter
  if (!is.matrix(X) || !is.numeric(X) || !identical(dim(X), as.integer(dims)))
    stop_arg("init", "is not a fit of a ", dims[1], " x ", dims[2], " matrix")
  if (!all_finite(X)) stop_arg("init", "has a solution `X` with NA, NaN or Inf")
  storage.mode(X) <- "double"
  dimnames(X) <- NULL
  iter <- init$iterations
  if (!is.numeric(iter) || length(iter) != 1L || !is.finite(iter) || iter < 0) iter <- 0L
  iter <- as.integer(iter)
  same <- !is.null(st) && identical(st$key, key)
  if (same && identical(st$X_check, fingerprint(X))) {
    lowrank_check_state(st, prod(dims))
    return(list(X = X, iter = iter, exact = TRUE, state = st, note = continued_note(iter)))
  }
  size <- if (set == "psd") {
    X <- (X + t(X)) / 2
    e <- eigen(X, symmetric = TRUE)
    X <- e$vectors %*% (pmax(e$values, 0) * t(e$vectors))       # onto the PSD cone
    sum(pmax(e$values, 0))
  } else sum(svd(X, 0, 0)$d)
  if (size > radius) X <- X * (radius / size)
  mu <- if (isTRUE(init$smoothing$continuation)) init$smoothing$mu
  why <- if (is.null(st)) "without a solver state" else if (same) "whose X was changed"
         else "with other data or settings"
  list(X = X, mu = mu, iter = iter, exact = FALSE, note = sprintf(
    "warm start from a fit of %d iterations %s (its X%s; schedules counted on from %d)",
    iter, why, if (is.null(mu)) "" else " and final mu", iter))
}

# The solver state a fit keeps (fit$state) must be what lowrank_solve made:
# the C side checks values again, this names `init` for a state altered by
# hand.
lowrank_check_state <- function(st, mn) {
  scalar <- function(x) is.numeric(x) && length(x) == 1L && is.finite(x)
  array <- function(x) is.null(x) || (is.double(x) && length(x) == mn)
  ok <- all(vapply(st[c("iter", "mu", "mu_start", "C0", "sigma2", "cold", "state_snapshot",
                        "state_rank", "state_used", "state_calls", "state_mu0",
                        "state_svd_rank")], scalar, NA)) &&
    st$iter >= 0 && st$iter <= .Machine$integer.max && st$mu > 0 && st$mu_start > 0 &&
    (!identical(st$key$method, "scgs") || !is.null(st$state_center)) &&
    is.logical(st$state_certified) && length(st$state_certified) == 1L &&
    all(vapply(st[c("state_Mbar", "state_Xs", "state_gtil", "state_center")], array, NA)) &&
    (if (is.null(st$state_loop)) identical(st$key$method, "fw")   # fw's loop keeps none
     else is.double(st$state_loop) && length(st$state_loop) == 6L &&
       all(is.finite(st$state_loop)) && all(st$state_loop[1:2] >= 0) &&
       st$state_loop[2] < max(st$state_loop[4], 1))    # the position inside its epoch
  # the snapshot arrays a sampled snapshot (2) or sensing's snapshot point needs
  need <- if (ok) c(state_Mbar = st$key$loss == 0L && st$state_snapshot == 2,
                    state_Xs = st$key$loss == 1L && st$state_snapshot > 0,
                    state_gtil = st$key$loss == 1L && st$state_snapshot == 2)
  ok <- ok && !any(need & vapply(st[names(need)], is.null, NA))
  if (!ok) stop_arg("init", "has an invalid `state` (altered by hand?); set it to NULL for a ",
                    "warm start from its X")
  invisible(st)
}

# Put the RNG state back to `seed` (NULL: none had been made yet).
restore_seed <- function(seed) {
  if (!is.null(seed)) assign(".Random.seed", seed, envir = globalenv())
  else if (exists(".Random.seed", envir = globalenv(), inherits = FALSE))
    rm(".Random.seed", envir = globalenv())
}

# Shared by every problem of this family: validation of the scalar
# arguments, theory defaults, spec, fit. `reg` describes the nonsmooth term:
# kind 0 = lambda ||X||_1, 1 = elastic net (lambda, lambda2), 2 = max of
# linear forms (op = CSR operator with op_b, op_norm2 = ||A||^2). `src$loss`
# is 0 (1/2 ||X - E M||^2) or 1 (sensing, op in src, op_norm2, beta_i =
# max ||A_i||^2).
lowrank_solve <- function(src, reg, radius, set, method, rank, max_rank, mu,
                          eps, step_size, inner, batch_size, snapshot_batch_size, control, call,
                          problem, started, init = NULL) {
  if (missing(radius)) stop_arg("radius", "is missing, with no default")
  check_radius(radius)
  dims <- src$dims
  check_count(rank, "rank")
  key <- lowrank_key(src, reg, problem, method, set, radius, rank, max_rank, mu, eps,
                     step_size, inner, batch_size, snapshot_batch_size)
  if (is.null(max_rank)) max_rank <- min(dims)
  check_count(max_rank, "max_rank")
  check_number(eps, "eps", min = 0, strict_min = TRUE)
  control <- as_control(control)
  loss <- src$loss %||% 0L
  if (method == "fw" && src$source %in% 1:2)
    stop_arg("method", "= \"fw\" needs the exact mean: give `M` as a matrix")
  start <- lowrank_start(init, problem, dims, set, radius, key)
  st <- start$state
  if (isTRUE(start$exact)) {
    # the first fit's pilot estimates (a function sampler's are random) give
    # the same defaults; the pilot's draws are undone, so that the run draws
    # what one longer run would
    src$C0 <- st$C0
    src$sigma2 <- st$sigma2
    if (src$source == 2L) restore_seed(src$seed)
  }

  check_scale(src$C0 + src$sigma2, src$arg %||% "M")
  # theory defaults (Theorem 3, Corollaries 3-4 of Garber and Kaplan 2019)
  C0 <- max(src$C0, .Machine$double.eps)
  gamma_smooth <- if (reg$kind == 2L) max(log(length(reg$op$op_b)), 1) else prod(dims)
  # no `mu`: continuation from the theory value (mu halves whenever the
  # smoothed gap falls below the smoothing's dual residual, src/smooth.c);
  # a given `mu` stays fixed (the paper's setting)
  mu_auto <- is.null(mu)
  # the defaults below follow the starting mu: an exact continuation's is the
  # fit's (the C side goes on from its final mu); a warm start goes on from
  # the final mu of the fit
  if (isTRUE(start$exact)) mu <- st$mu_start
  else if (mu_auto && !is.null(start$mu)) mu <- start$mu
  if (is.null(mu)) {
    # the smoothing's cost in objective is at most lambda mu / 2 per entry
    # (Huber; mu log(m) for log-sum-exp): mu = eps C0 / (lambda m n) keeps it
    # below eps C0 and scales with the data (M -> sM, lambda -> s lambda
    # give mu -> s mu, the same iterates scaled); the paper's eps C0 / (m n)
    # is this at lambda = 1, and on data of small scale (stock-return
    # covariances, lambda ~ 1e-5) it made beta = 1 + lambda / mu ~ 1e4
    by_lambda <- reg$kind != 2L && reg$lambda > 0
    mu <- eps * C0 / (gamma_smooth * if (by_lambda) reg$lambda else 1)
    if (!(is.finite(mu) && mu > 0)) {
      formula <- sprintf("eps * C0 / %s%s", if (by_lambda) "(lambda * " else "",
                         paste0(signif(gamma_smooth, 3), if (by_lambda) ")" else ""))
      if (by_lambda && mu == 0 && eps * C0 > 0)
        stop_arg("lambda", "is out of range: the default `mu` = ", formula, " is 0; give ",
                 "`lambda` on the scale of `M` or `mu` itself")
      stop_arg("eps", "is out of range: the default `mu` = ", formula, " is ", mu,
               "; give a smaller `eps` or `mu` itself")
    }
  }
  check_number(mu, "mu", min = 0, strict_min = TRUE)
  lambda2 <- reg$lambda2 %||% 0
  # smoothness of the regularizer: beta_R = lip_reg / mu (+ 2 lambda2)
  lip_reg <- if (reg$kind == 2L) reg$op_norm2 else reg$lambda
  beta_R <- lip_reg / mu + 2 * lambda2
  if (loss == 0L) {
    alpha <- 1; beta_G <- 1; beta_i <- 1
  } else {
    alpha <- 2 * lambda2; beta_G <- src$op_norm2 / length(src$op$op_b); beta_i <- src$beta_i
    if (method == "svrgcg" && alpha <= 0)
      stop_arg("lambda2", "must be positive for method = \"svrgcg\" (strong convexity)")
  }
  alpha <- max(alpha, .Machine$double.eps)
  beta <- beta_G + beta_R
  if (is.null(step_size)) {
    step_size <- alpha / (2 * beta)
    if (!(is.finite(step_size) && step_size > 0))
      stop("the default step `step_size` = alpha / (2 beta) is ", step_size, " (alpha = ", signif(alpha, 3),
           ", beta = ", signif(beta, 3), "): the penalty weights or the smoothing `mu` are ",
           "out of scale; give `step_size` or rescale them", call. = FALSE)
  }
  check_number(step_size, "step_size", min = 0, max = 1, strict_min = TRUE)
  if (is.null(inner)) inner <- min(ceiling(8 * beta * log(8) / (3 * alpha)) + 1, 1e7)
  check_count(inner, "inner", min = 2)
  if (is.null(batch_size)) batch_size <- min(max(1, ceiling(32 * beta_i^2 / alpha^2)), 1e7)
  check_count(batch_size, "batch_size")
  stochastic_src <- src$source %in% 1:3 || loss == 1L
  if (is.null(snapshot_batch_size))
    snapshot_batch_size <- if (src$source %in% 1:2) min(1e8, max(1, ceiling(32 * src$sigma2 / C0))) else 0
  # 0 = the exact mean, which only a matrix or the rows of `data` give
  check_count(snapshot_batch_size, "snapshot_batch_size", min = if (src$source %in% 1:2) 1 else 0,
              max = 1e8)

  spec <- list(problem = "lowrank", method = method, step = "standard", K = 2L,
               eta = as.double(step_size), m = dims[1], n = dims[2],
               set = if (set == "psd") 1L else 0L, source = src$source,
               loss = as.integer(loss), reg = as.integer(reg$kind),
               lambda = as.double(reg$lambda %||% 0), lambda2 = as.double(lambda2),
               mu = as.double(mu), mu_auto = mu_auto,
               lip_loss = as.double(beta_G + 2 * lambda2), lip_reg = as.double(lip_reg),
               radius = as.double(radius),
               rank = as.integer(min(rank, max_rank)), max_rank = as.integer(max_rank),
               M = src$M, sigma = as.double(src$sigma %||% 0),
               inner = as.integer(inner), batch_inner = as.integer(batch_size),
               batch_snapshot = as.double(snapshot_batch_size), scale = 1 / (2 * beta * step_size),
               scg_c = if (stochastic_src) src$sigma2 / (beta * 2 * radius)^2 else 0,
               lipschitz = beta, diam2 = (2 * radius)^2,
               scgs_c = if (stochastic_src) src$sigma2 / (beta^2 * (2 * radius)^2) else 0)
  if (src$source == 2L) {
    spec$sampler_call <- as.call(list(src$sampler, 1L))
    spec$env <- environment()
  }
  if (src$source == 3L) spec <- c(spec, src$rows)
  if (!is.null(src$op)) spec <- c(spec, src$op, max_batch = as.integer(max(length(src$op$op_b), 32L)))
  if (!is.null(reg$op)) spec <- c(spec, reg$op)
  spec$init_X <- start$X
  spec$iter_offset <- start$iter
  if (!is.null(start$X)) spec$cold_objective <- C0    # the scale of tol at the cold start
  if (isTRUE(start$exact)) {                           # the fit's final mu, counts, state
    spec[c("mu", "iter_offset", "cold_objective")] <- list(st$mu, as.integer(st$iter), st$cold)
    spec <- c(spec, st[startsWith(names(st), "state_") & names(st) != "state_center"])
    if (!is.null(st$state_center)) spec$state_solver <- list(center = st$state_center)
  }
  fit <- cg_run(spec, control, problem, call, started)
  sol <- fit$solution
  X <- sol$X
  dimnames(X) <- src$dimnames
  fit$certified_rank <- sol$certified_rank
  fit$radius <- radius; fit$set <- set; fit$mu <- sol$mu
  # smoothed: FALSE when there is no nonsmooth term (l1 weight 0), and mu
  # plays no part
  fit$smoothing <- list(mu_start = mu, mu = sol$mu, continuation = mu_auto,
                        smoothed = reg$kind == 2L || reg$lambda > 0)
  fit$solution <- list(X = X)
  fit$parameters <- list(step_size = step_size, inner = inner, batch_size = batch_size,
                         snapshot_batch_size = snapshot_batch_size, alpha = alpha, beta = beta)
  # the solver state for an exact continuation, of a run that ended at a
  # complete iteration (an interrupt or a failure may leave a snapshot half
  # drawn); `cold` is what tol was relative to at the start
  if (fit$status %in% c("max_iter", "max_time", "converged")) {
    obj0 <- fit$trace$objective[1L]
    # the loop's state (fw keeps none): its scalars, scgs' prox-center
    loop <- if (!is.null(sol$state_loop))
      list(state_loop = sol$state_loop, state_center = sol$state_solver$center)
    fit$state <- c(sol$state, loop, list(
      key = key, iter = (spec$iter_offset %||% 0L) + fit$iterations, mu = sol$mu,
      mu_start = mu, C0 = src$C0, sigma2 = src$sigma2,
      cold = max(if (is.finite(obj0)) abs(obj0) else 0, spec$cold_objective %||% 0),
      X_check = fingerprint(sol$X)))
  }
  if (!is.null(init)) fit$notes <- start$note
  if (isTRUE(start$exact)) fit <- continue_trace(fit, init, start)
  if (src$source == 0L && loss == 0L && reg$kind == 0L && problem == "lowrank_sparse" &&
      mu_auto && control$tol > 0 && fit$status %in% c("max_iter", "max_time", "converged") && dual_refit_on())
    fit <- lowrank_dual_refit(fit, src$M, reg$lambda, radius, set, max_rank, control,
                              spec$cold_objective %||% 0)
  class(fit) <- c(paste0(problem, "_fit"), "cg_fit")
  finish_fit(fit, started)
}

# The dual refit of lowrank_sparse() on a matrix `M` (see ?lowrank_sparse,
# "Dual refit"). The stated problem is the proximal map at M of
# lambda ||.||_1 plus the set's indicator; its dual over the box |Z| <= lambda,
#   D(Z) = 1/2 dist(M - Z, C)^2 + <Z, M> - 1/2 ||Z||^2 (<= F(X) for X in C),
# is concave with the 1-Lipschitz gradient P_C(M - Z). Accelerated projected
# gradient ascent (FISTA, step 1, adaptive restart) from the Huber gradient at the solver's
# iterate, each step one certified weak proximal step (the solver's
# oracle): X = P_C(M - Z) has exactly the certified rank, and F(X) - D(Z)
# bounds F(X) - F*. Steps until that is below tol (relative as in C) or
# control$max_iter steps; the fit takes the projection when its certificate
# is the smaller one, and keeps the solver's iterate in its state for init.
lowrank_dual_refit <- function(fit, M, lambda, radius, set, max_rank, control, cold) {
  t0 <- wall_clock()
  psd <- set == "psd"
  if (psd) M <- (M + t(M)) / 2
  X0 <- fit$solution$X
  mu <- fit$mu
  dn <- dimnames(X0)
  Xit <- X0
  dimnames(Xit) <- NULL
  obj0 <- fit$trace$objective[1L]
  scale0 <- 1e-3 * max(if (is.finite(obj0)) abs(obj0) else 0, cold)
  rank <- if (is.na(fit$certified_rank %||% NA)) 1L else fit$certified_rank
  project <- function(Z) {
    o <- refit_oracle(A = M - Z, psd = psd, radius = radius, rank = rank,
                      max_rank = max_rank, dense = dense)
    if (is.null(o)) return(NULL)
    dense <<- isTRUE(o$dense)
    rank <<- max(o$rank, 1L)
    if (!isTRUE(o$certified)) NULL else o$V
  }
  dense <- FALSE
  # (max 1000 steps, not max_iter: init = continues the same refit)
  certify <- function(Z) {
    P <- project(Z)
    if (is.null(P)) return(NULL)               # rank capped: no exact projection
    B <- M - Z
    FP <- 0.5 * sum((P - M)^2) + lambda * sum(abs(P))
    list(X = P, objective = FP, rank = rank,
         gap = FP - (0.5 * sum((P - B)^2) + sum(Z * M) - 0.5 * sum(Z^2)))
  }
  step <- function(Y) {
    PY <- project(Y)
    if (is.null(PY)) NULL else pmin(pmax(Y + PY, -lambda), lambda)
  }
  run <- accelerated_refit(lambda * pmin(pmax(Xit / mu, -1), 1), certify, step,
                           control$tol, scale0)
  fit$solver_time <- fit$solver_time + (wall_clock() - t0)     # the refit is solver work
  refit_apply(fit, run$best, run$steps, Xit, dn, control, scale0, "dual refit")
}

# The accelerated steps of both refits (FISTA with adaptive restart) from
# x: certify(x) gives the certified point of iterate x (list(X, objective,
# gap, rank); NULL: no exact projection, stop), step(y) the projected step
# from the extrapolated point y (NULL: stop). Until the gap is below tol
# (relative, as in C) or max_steps steps; the best certified point and the
# steps taken.
accelerated_refit <- function(x, certify, step, tol, scale0, max_steps = 1000L) {
  xold <- x
  tk <- 1
  best <- NULL
  steps <- 0L
  repeat {
    if (is.null(x)) break
    cert <- certify(x)
    if (is.null(cert)) break
    if (is.null(best) || cert$gap < best$gap)
      best <- list(X = cert$X, objective = cert$objective, gap = max(cert$gap, 0),
                   rank = cert$rank, steps = steps)
    if (cert$gap <= tol * max(abs(cert$objective), scale0) || steps >= max_steps) break
    tn <- (1 + sqrt(1 + 4 * tk^2)) / 2
    y <- x + ((tk - 1) / tn) * (x - xold)
    tk <- tn
    xnew <- step(y)
    if (is.null(xnew)) break
    xold <- x
    x <- xnew
    if (sum((y - x) * (x - xold)) > 0) { tk <- 1; xold <- x }   # adaptive restart
    steps <- steps + 1L
  }
  list(best = best, steps = steps)
}

# A refit's result into the fit (lowrank_dual_refit, sensing_refit): taken
# when its certified gap is below the solver's; the solver's iterate stays
# in the state for init (X_iter, and X_refit to recognize the fit's X).
refit_apply <- function(fit, best, steps, Xit, dn, control, scale0, kind) {
  if (is.null(best) || !(best$gap < fit$gap %||% Inf)) {
    fit$refit <- list(kind = kind, steps = steps, used = FALSE)
    return(fit)
  }
  X <- best$X
  dimnames(X) <- dn
  fit$solution$X <- X
  fit$objective <- best$objective
  fit$gap <- best$gap
  fit$certified_rank <- best$rank
  fit$refit <- list(kind = kind, steps = best$steps, used = TRUE,
                    solver_objective = fit$trace$objective[nrow(fit$trace)],
                    solver_gap = fit$trace$gap[nrow(fit$trace)])
  scale <- max(abs(best$objective), scale0)
  if (best$gap <= control$tol * scale) {
    fit$status <- "converged"
    fit$converged <- TRUE
    fit$message <- sprintf("duality gap %.3g below tol x %s = %.3g, after a %s of %d steps",
                           best$gap, if (scale0 > abs(best$objective))
                             "|objective at start| / 1000" else "|objective|",
                           control$tol * scale, kind, best$steps)
  } else {
    fit$message <- paste0(sub(" with the relative gap.*$", "", fit$message),
                          sprintf(" and a %s of %d steps", kind, best$steps),
                          unfinished_hint(best$gap, scale, control, "max_iter"))
  }
  if (!is.null(fit$state)) {
    fit$state$X_iter <- Xit
    fit$state$X_refit <- fingerprint(X)
  }
  fit
}

# one certified weak proximal step for a refit (the exact projection of A
# onto the set, with its rank); where the partial decomposition fails
# (clustered eigenvalues near the threshold: a yarn NIR covariance), the
# full one, as the solver does once 2 r >= min(m, n), and then for the
# rest of the refit (`dense`: each failed partial run costs many products)
refit_oracle <- function(A, psd, radius, rank, max_rank, dense = FALSE) {
  o <- if (!dense) tryCatch(withCallingHandlers(
    cg_oracle("weak_prox", A = A, psd = psd, radius = radius, rank = rank,
              max_rank = max_rank),
    warning = function(w) invokeRestart("muffleWarning")), error = function(e) NULL)
  if (!is.null(o)) return(o)
  onto <- function(l) {            # onto {l >= 0, sum(l) <= radius}
    l <- pmax(l, 0)
    if (sum(l) > radius) l <- cg_oracle("proj_simplex", y = l, radius = radius)$x
    l
  }
  if (psd) {
    e <- eigen((A + t(A)) / 2, symmetric = TRUE)
    l <- onto(e$values)
    k <- sum(l > 0)
    V <- e$vectors[, seq_len(k), drop = FALSE]
    list(V = V %*% (l[seq_len(k)] * t(V)), rank = k, certified = k <= max_rank, dense = TRUE)
  } else {
    sv <- svd(A)
    d <- onto(sv$d)
    k <- sum(d > 0)
    list(V = sv$u[, seq_len(k), drop = FALSE] %*% (d[seq_len(k)] *
           t(sv$v[, seq_len(k), drop = FALSE])), rank = k, certified = k <= max_rank,
         dense = TRUE)
  }
}

# options(stochcg.lowrank_refit = FALSE) returns the solver's iterate
dual_refit_on <- function() {
  on <- getOption("stochcg.lowrank_refit", TRUE)
  if (!(isTRUE(on) || isFALSE(on)))
    stop("option `stochcg.lowrank_refit` must be TRUE or FALSE", call. = FALSE)
  on
}
