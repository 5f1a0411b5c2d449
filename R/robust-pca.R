#' Robust PCA: low-rank plus sparse decomposition
#'
#' Splits a matrix `M` into a low-rank part `X` and a sparse part `Y`.
#'
#' **Penalized form** (`robust_pca(M)`: neither `radius` nor `radius_sparse` given):
#' principal component pursuit (PCP, Candes, Li, Ma and Wright 2011), the
#' problem `rpca::rpca()` solves,
#' \deqn{\min_{X, Y} \|X\|_* + \lambda \|Y\|_1 \quad \text{subject to }
#'   X + Y = M,}{min ||X||_* + lambda ||Y||_1 subject to X + Y = M,}
#' with \eqn{\lambda = 1/\sqrt{\max(m, n)}}{lambda = 1 / sqrt(max(m, n))}
#' by default (`lambda1`). No bound is needed.
#'
#' **Constrained form** (`radius` \eqn{= \tau}{= tau} and `radius_sparse` \eqn{= s}{= s} given):
#' \deqn{\min_{X, Y} \tfrac12 \|X + Y - M\|_F^2 + R_Y(Y) \quad
#'   \text{subject to } \|X\|_* \le \tau,}{min 1/2 ||X + Y - M||_F^2 + R_Y(Y) subject to ||X||_* <= tau,}
#' with `Y` in an \eqn{\ell_1}{l1} ball (`sparse = "l1"`, the classical
#' robust PCA of Garber, Kaplan and Sabach, eq. 2), an
#' \eqn{\ell_{1+\delta}}{l_(1+delta)} ball (`"lp"`, a strongly convex set,
#' Sec. 3.2.3) or penalized by the elastic net \eqn{\lambda_1\|Y\|_1 +
#' \lambda_2\|Y\|_F^2}{lambda1 ||Y||_1 + lambda2 ||Y||_F^2} (`"enet"`,
#' Sec. 3.2.4; `radius` only). With `psd = TRUE` the low-rank part is instead
#' positive semidefinite with trace at most `radius` (a corrupted covariance
#' matrix). The residual `M - X - Y` may be nonzero at the optimum (noisy
#' data). With `radius` and `radius_sparse` taken from a PCP solution the two forms have
#' the same solution.
#'
#' Only one of `radius` and `radius_sparse` is an error (for `sparse = "l1"` and `"lp"`
#' both bounds are needed; `"enet"` needs `radius`), as is the penalized form
#' with a method other than `"admm"`, `psd = TRUE` or another `sparse` model.
#'
#' @section Default method:
#' `"admm"`, the alternating direction method of multipliers (ADMM), for
#' both forms: on real matrices it reached the optimum far faster than the
#' paper's conditional-gradient methods, which take thousands of iterations
#' there (`inst/bench/robust_pca_real.R`: on 1257 x 100 daily stock returns
#' `"alt_cgpg"` stopped at relative error 0.78 in `X` after 2000
#' iterations), and matched `rpca::rpca()` to better than `1e-3` in about
#' its time or less. Each iteration costs one singular value decomposition
#' of the rank found: a partial (Lanczos) SVD whose rank grows until the
#' first dropped singular value is below the threshold, so the step is exact
#' (certified), and a dense LAPACK SVD only when that rank reaches half of
#' \eqn{\min(m, n)}{min(m, n)}.
#' \describe{
#'   \item{Penalized form}{ADMM on the augmented Lagrangian of PCP (the
#'     inexact augmented Lagrangian method of Lin, Chen and Ma, what `rpca`
#'     runs with a full SVD): \eqn{X} by singular value thresholding at
#'     \eqn{1/\rho}{1/rho}, \eqn{Y} by soft thresholding at
#'     \eqn{\lambda/\rho}{lambda/rho}, then the multiplier \eqn{U}, with
#'     over-relaxation 1.7 (Boyd et al. 2011, Sec. 3.4.3; 35-45% fewer
#'     iterations on volcano and the gene-expression matrix, 18% more on
#'     the stock returns). The
#'     penalty starts at `rpca`'s \eqn{mn / (4\|M\|_1)}{mn / (4 ||M||_1)} and
#'     is rebalanced every iteration (doubled or halved when the primal
#'     residual and the dual residual differ by 10 times; Boyd et al. 2011,
#'     Sec. 3.4.1). `gap` is the duality gap
#'     \eqn{\|X\|_* + \lambda\|M - X\|_1 - \langle \Lambda, M\rangle +
#'     \lambda\|M - X - Y\|_1}{||X||_* + lambda ||M - X||_1 - <Lambda, M> +
#'     lambda ||M - X - Y||_1} with \eqn{\Lambda = U / \max(\|U\|_2,
#'     \|U\|_\infty/\lambda)}{Lambda = U / max(||U||_2, ||U||_inf / lambda)}
#'     dual feasible: it bounds at once `objective` minus the optimum, the
#'     same for the feasible point \eqn{(X, M - X)}, and
#'     \eqn{\lambda\|M - X - Y\|_1}{lambda ||M - X - Y||_1}; `converged`
#'     means `gap <= tol * max(1, objective)`. `infeasibility` is
#'     \eqn{\|M - X - Y\|_F / \|M\|_F}{||M - X - Y||_F / ||M||_F}.}
#'   \item{Constrained form}{ADMM (Douglas-Rachford splitting) on
#'     \eqn{F(W) + G(V)} subject to \eqn{W = V}, with \eqn{W, V} copies of
#'     \eqn{(X, Y)}, \eqn{F} the least-squares term (its prox is closed form)
#'     and \eqn{G} the constraints (the exact projections onto the nuclear
#'     ball or PSD set and the \eqn{\ell_1}{l1} / \eqn{\ell_p}{lp} ball, or
#'     the elastic-net prox). The returned point is the last projection, so
#'     it is feasible, `X` has the certified rank and `Y` is sparse. The
#'     penalty starts small (0.03: a long Douglas-Rachford step, right when
#'     `M` nearly lies in the sum of the sets) and is rebalanced as above,
#'     every 10th iteration, on normalized residuals, which raises it for
#'     noisy data; the iteration is over-relaxed (1.6). `gap` is the
#'     joint Frank-Wolfe gap below (an upper bound on objective minus
#'     optimum); as the optimum is often near 0 here, `converged` usually
#'     means `gap <= tol * ||M||_F^2 / 2000`, a thousandth of the objective
#'     at \eqn{X = Y = 0}{X = Y = 0} (see `tol` in [cg_control()]).}
#' }
#' Measured before choosing (plain R prototypes with a full SVD, then the C
#' code, on the stock, volcano and gene-expression matrices): the inexact ALM
#' with a geometrically growing penalty (rho = 1.2 to 1.5, Lin et al.'s
#' setting) stalled at 1e-2 (stock) to 4e-2 (volcano, in `S`) from `rpca`'s
#' solution after 500 iterations, as the penalty grows too fast for the
#' multiplier to converge; the fixed or balanced penalty reached 3e-5. For
#' the constrained form ADMM with a fixed step needed the step tuned to the
#' data (Douglas-Rachford step 1 stalled at 0.12 from `rpca`'s `L` on the
#' stock matrix, step 100 reached 6e-5 in 150 iterations but stalled on noisy
#' bounds); the balanced penalty reached both.
#'
#' @section Methods:
#' The paper's methods solve the constrained form only. All four start from \eqn{(X, Y) = (0, 0)} and keep \eqn{Z = X + Y} and
#' `Y` as dense buffers (a few \eqn{m \times n}{m x n} arrays in all; `X` is
#' never formed inside the iteration). Each iteration computes a new point for
#' each block and then moves both blocks by one convex combination.
#' \describe{
#'   \item{`"alt_cgpg"`}{Algorithm 1 of the paper (ALT-CGPG): `Y` by a
#'     conditional-gradient (linear minimization) step, then `X` by a
#'     proximal step at \eqn{Z - W - \nabla/\eta_t}{Z - W - grad / eta_t}
#'     computed by a rank-`r` SVD and a projection of its singular values
#'     (the weak proximal oracle, Sec. 3.2.1). The rank `r` starts at `rank`
#'     and grows until it is certified: when the \eqn{(r+1)}-th singular
#'     value is below the projection threshold the rank-`r` step equals the
#'     exact projection. Fits the high signal-to-noise regime
#'     \eqn{\|Y^*\|_1 \ll \|X^*\|_*}{||Y*||_1 << ||X*||_*} (rate
#'     \eqn{O(s^2/t)}{O(s^2 / t)}, Theorem 1).}
#'   \item{`"alt_pgcg"`}{The roles swapped (ALT-PGCG): `X` by a rank-one
#'     conditional-gradient step and `Y` by a proximal step (projection onto
#'     the ball, or elastic-net shrinkage). Fits the low signal-to-noise
#'     regime (rate \eqn{O(\tau^2/t)}{O(tau^2 / t)}) and needs only
#'     rank-one SVDs.}
#'   \item{`"cgcg"`}{Conditional gradient on both blocks: the standard
#'     Frank-Wolfe method on the product set (baseline).}
#'   \item{`"cgcg_p"`}{FW-P of Mu et al. (2016): `cgcg` followed by an exact
#'     minimization over `Y` with `X` fixed (baseline).}
#'   \item{`"altmin"`}{Alternating exact minimization (block coordinate
#'     descent, not one of the paper's methods): `X` is set to the projection
#'     of `M - Y` onto its set, by the same certified rank-`r` oracle as
#'     `alt_cgpg`, then `Y` to the projection (or elastic-net shrinkage) of
#'     `M - X`. Each iteration costs about what one `alt_cgpg` iteration
#'     costs; with exact bounds on a well-separated low-rank plus sparse
#'     matrix it converged linearly and far faster than the conditional
#'     gradient methods in our benchmark (`inst/bench/robust_pca.R`), though
#'     only an \eqn{O(1/t)}{O(1/t)} rate is guaranteed in general.}
#' }
#' With `step = "line_search"` (the paper's Sec. 5), the proximal step uses
#' \eqn{\eta_t = 2/(t+1)} and the convex combination is chosen by exact line
#' search (for the elastic net, on the convexity bound of the penalty along
#' the segment, so the objective still decreases). With `step = "theory"` the
#' combination uses \eqn{\eta_t} itself, set by Theorem 4 (\eqn{\eta_t = 1/2}
#' for \eqn{t \le t_0}, then \eqn{2/(t - t_0 + 4)}), Theorem 5 for the
#' \eqn{\ell_{1+\delta}}{l_(1+delta)} ball (\eqn{1/(t + 5)}) or Theorem 6 for
#' the elastic net (fixed \eqn{\min(1, 2\lambda_2)/2}), with
#' \eqn{\alpha = \beta = 1}; `cgcg` and `cgcg_p` then use \eqn{2/(t+1)}.
#'
#' The trace reports the objective and the joint Frank-Wolfe duality gap
#' \eqn{\langle\nabla, (X, Y) - (S_X, S_Y)\rangle + R_Y(Y) - R_Y(S_Y)},
#' an upper bound on the distance to the optimal value (its rank-one SVD is
#' trace-only work, excluded from the solver time).
#'
#' @section Memory:
#' `M` is read where it is, never copied (a `Matrix` is made dense first).
#' The C solver keeps five dense \eqn{m \times n}{m x n} matrices
#' (\eqn{Z = X + Y}, `Y`, the gradient, and the two blocks' new points),
#' and `"admm"` one more for the penalized form (the multiplier) or two for
#' the constrained form (the scaled duals of both blocks); `X`
#' is returned as a truncated SVD and `Y` as a `dgCMatrix` (12 bytes per
#' nonzero). On top of `M` the paper's methods use about 5 to 6 times its
#' size (`inst/bench/memory.R`), `"admm"` one or two times more, plus \eqn{O((m + n) r)}{O((m + n) r)} for the
#' rank-\eqn{r} SVDs, or a dense copy and a full SVD (several
#' \eqn{m \times n}{m x n} matrices more) once
#' \eqn{2r \ge \min(m, n)}{2 r >= min(m, n)}.
#'
#' A fit keeps its solver state for `init` in `fit$state`: the dense
#' \eqn{m \times n}{m x n} matrix \eqn{Z = X + Y} of doubles, and for
#' `"admm"` its duals too, one more such matrix for the penalized form (the
#' multiplier) and two for the constrained form, `Y` being taken from
#' `solution$Y`, which holds it exactly. `fit$state <- NULL` frees them;
#' `init` is then a warm start. Along a path over several radii only the
#' last fit keeps its state.
#'
#' @param M Numeric matrix (or `Matrix` object, made dense) to decompose.
#' @param radius Positive bound on the nuclear norm of `X` (on its trace when
#'   `psd = TRUE`), or `NULL` (default) with `radius_sparse = NULL` for the penalized
#'   form. Several bounds give a [cg_path]: one fit per bound, in increasing
#'   order, each warm-started from the previous one (`radius_sparse` fixed).
#' @param radius_sparse Positive radius of the ball of `Y` for `sparse = "l1"` and
#'   `"lp"`, or `NULL` (default) with `radius = NULL` for the penalized form;
#'   must be `NULL` for `"enet"`.
#' @param sparse Model for `Y`: `"l1"` (default), `"lp"` or `"enet"`.
#' @param method `"admm"` (default; see Default method), `"alt_cgpg"`,
#'   `"alt_pgcg"`, `"cgcg"`, `"cgcg_p"` or `"altmin"` (see Methods).
#' @param rank Starting rank of the proximal step on `X` (`admm`,
#'   `alt_cgpg`, `altmin`); set it to the expected rank of the low-rank
#'   part.
#' @param max_rank Cap on that rank (default `min(dim(M))`). `max_rank =
#'   rank` gives the paper's fixed rank-`r` SVD, without the certificate.
#' @param delta For `sparse = "lp"`: `Y` lies in the \eqn{\ell_p}{lp} ball
#'   with \eqn{p = 1 + \delta}{p = 1 + delta}, \eqn{0 < \delta < 1}.
#' @param lambda1,lambda2 For `sparse = "enet"`: the penalty weights
#'   (`lambda1 >= 0`, `lambda2 > 0`). For the penalized form: `lambda1 > 0`
#'   is the weight \eqn{\lambda}{lambda} of \eqn{\|Y\|_1}{||Y||_1} (default
#'   \eqn{1/\sqrt{\max(m, n)}}{1 / sqrt(max(m, n))}), `lambda2` unused.
#' @param psd If `TRUE`, `X` is symmetric positive semidefinite with trace at
#'   most `radius`; `M` must be symmetric.
#' @param step `"line_search"` (default) or `"theory"`; see Methods
#'   (unused by `"admm"`).
#' @param init `NULL`, or a previous `robust_pca()` fit of a matrix of the
#'   same dimensions. A fit of the same `M`, form, bounds or penalties,
#'   `max_rank`, `method` and (for the conditional-gradient methods) `step`
#'   and `options(stochcg.lmo_tol)` is continued exactly: from its solver
#'   state `fit$state` (the dense iterate \eqn{Z = X + Y}, the SVD rank
#'   hint and the iteration count, from which the step sizes
#'   \eqn{\eta_t}{eta_t} count on; for `"admm"` also the multipliers and the
#'   penalty) the run goes on as one longer run would, bit for bit (tested
#'   for every method), its trace continuing the fit's iteration numbers and
#'   counters; `rank` is then unused (the fit's rank hint goes on). Any
#'   other fit (or one whose `state` was set to `NULL`) is a warm start,
#'   said in `notes`: its `X` and `Y` start this fit (e.g. along a sequence
#'   of bounds or penalties), the iteration count at 0; for the
#'   constrained form they are first scaled into the sets (`X` into the
#'   nuclear-norm ball, `Y` into its ball), and ADMM's multipliers start at
#'   zero, its penalty at its default.
#' @param control Solver control from [cg_control()]: iterations, time
#'   budget, `tol` on the duality gap relative to the objective (see [cg_control()]),
#'   `eval_every` (trace and stopping checks).
#' @returns A fit of class `c("robust_pca_fit", "cg_fit")` (see [cg_fit]):
#'   `solution$X` is a [lowrank()] object, `solution$Y` a sparse
#'   `dgCMatrix`; `objective` and `gap` are those of the form solved (see
#'   Default method), `infeasibility` is \eqn{\|M - X - Y\|_F /
#'   \|M\|_F}{||M - X - Y||_F / ||M||_F} for the penalized form (`NA`
#'   otherwise), `form` is `"penalized"` or `"constrained"`; also
#'   `certified_rank` (the number of singular values kept by the last
#'   proximal step on `X` when it was certified exact, `NA` if not certified
#'   or not used; it is the rank of `X` itself only for `"admm"` and
#'   `"altmin"`, whose `X` is that step's result), `X_tail` (relative
#'   Frobenius norm of the part of the final `X` iterate dropped when it was
#'   truncated to a low-rank factorization; `options(stochcg.lowrank_tol)`,
#'   default `1e-8`), and the arguments `radius`, `radius_sparse`, `sparse`, `delta`,
#'   `lambda1` (the lambda used, for the penalized form), `lambda2`, `psd`,
#'   `step`; `state` (the solver's state for `init`; see Memory). `fitted()` returns `X + Y` as a
#'   dense matrix; `plot(fit, type = "images")` draws both parts.
#' @references Candes, E. J., Li, X., Ma, Y. and Wright, J. (2011) Robust
#'   principal component analysis? J. ACM 58(3). Lin, Z., Chen, M. and Ma,
#'   Y. (2010) The augmented Lagrange multiplier method for exact recovery of
#'   corrupted low-rank matrices. arXiv:1009.5055. Boyd, S. et al. (2011)
#'   Distributed optimization and statistical learning via the alternating
#'   direction method of multipliers. Found. Trends Mach. Learn. 3(1).
#'   Garber, D., Kaplan, A. and Sabach, S. Improved complexities of
#'   conditional gradient-type methods with applications to robust matrix
#'   recovery problems. Mu, C., Zhang, Y., Wright, J. and Goldfarb, D. (2016)
#'   Scalable robust matrix recovery: Frank-Wolfe meets proximal methods.
#'   SIAM J. Sci. Comput.
#' @seealso [cg_fit], [plot.robust_pca_fit()], [lowrank_sparse()] for one
#'   matrix that is both low rank and sparse.
#' @examples
#' set.seed(1)
#' n <- 60; r <- 3
#' L <- tcrossprod(matrix(rnorm(n * r), n), matrix(rnorm(n * r), n))
#' S <- matrix(0, n, n)
#' idx <- sample(n * n, 150)
#' S[idx] <- 10 * sign(rnorm(150))
#' M <- L + S
#' # no bound needed: principal component pursuit, lambda = 1 / sqrt(60)
#' fit <- robust_pca(M)
#' fit
#' rel <- function(f) norm(as.matrix(f$solution$X) - L, "F") / norm(L, "F")
#' rel(fit)                        # the planted low-rank part is recovered
#' # the constrained form with the bounds of the truth, by the default ADMM
#' # and by the paper's Algorithm 1 (alt_cgpg, slower)
#' tau <- sum(svd(L)$d); s <- sum(abs(S))
#' fit2 <- robust_pca(M, tau, s)
#' fit3 <- robust_pca(M, tau, s, method = "alt_cgpg", rank = r,
#'                    control = cg_control(max_iter = 300))
#' c(admm = rel(fit2), alt_cgpg = rel(fit3))
#' plot(fit, type = "images")
#' @export
robust_pca <- function(M, radius = NULL, radius_sparse = NULL, sparse = c("l1", "lp", "enet"),
                       method = c("admm", "alt_cgpg", "alt_pgcg", "cgcg", "cgcg_p",
                                  "altmin"),
                       rank = 1L, max_rank = NULL, delta = 0.2, lambda1 = NULL,
                       lambda2 = NULL, psd = FALSE,
                       step = c("line_search", "theory"), init = NULL,
                       control = cg_control()) {
  started <- wall_clock()
  call <- match.call()
  if (length(radius) > 1L) {      # a path over the nuclear-norm bound, warm-started
    args <- mget(c("M", "radius_sparse", "sparse", "method", "rank", "max_rank", "delta",
                   "lambda1", "lambda2", "psd", "step", "control"))
    return(fit_path(robust_pca, args, radius, init, call, started))
  }
  sparse <- match_choice(sparse, c("l1", "lp", "enet"), "sparse")
  method <- match_choice(method, c("admm", "alt_cgpg", "alt_pgcg", "cgcg", "cgcg_p",
                                    "altmin"), "method")
  step <- match_choice(step, c("line_search", "theory"), "step")
  if (missing(M)) stop_arg("M", "is missing, with no default")
  M <- check_design(M, "M")
  if (inherits(M, "Matrix")) M <- as.matrix(M)
  dims <- dim(M)
  if (any(dims < 1L)) stop_arg("M", "must have at least one row and column")
  if (prod(as.double(dims)) > .Machine$integer.max)
    stop_arg("M", "has more than 2^31 - 1 entries")
  check_flag(psd, "psd")
  if (psd) {
    if (dims[1] != dims[2]) stop_arg("M", "must be square for psd = TRUE")
    if (!is_symmetric_matrix(M, tol = 1e-8)) stop_arg("M", "must be symmetric for psd = TRUE")
  }
  # neither bound: the penalized form (PCP), for the l1 model and admm only
  penalized <- is.null(radius) && is.null(radius_sparse) && sparse == "l1"
  if (penalized) {
    if (method != "admm")
      stop_arg("radius", "is required for method = \"", method, "\" (the paper's methods ",
               "solve the constrained form); give neither `radius` nor `radius_sparse` only with ",
               "method = \"admm\"")
    if (psd) stop_arg("radius", "is required for psd = TRUE")
    if (!is.null(lambda2)) stop_arg("lambda2", "is used only with sparse = \"enet\"")
    if (is.null(lambda1)) lambda1 <- 1 / sqrt(max(dims))
    check_number(lambda1, "lambda1", min = 0, strict_min = TRUE)
  } else {
    if (is.null(radius))
      stop_arg("radius", "is required ",
               if (sparse == "l1") paste("when `radius_sparse` is given (the constrained form); give",
                                         "neither `radius` nor `radius_sparse` for the penalized form")
               else paste0("for sparse = \"", sparse, "\""))
    check_radius(radius, "radius")
  }
  if (sparse == "enet") {
    if (!is.null(radius_sparse)) stop_arg("radius_sparse", "must be NULL for sparse = \"enet\" (a penalty, not a ball)")
    if (is.null(lambda1)) stop_arg("lambda1", "is required for sparse = \"enet\"")
    if (is.null(lambda2)) stop_arg("lambda2", "is required for sparse = \"enet\"")
    check_number(lambda1, "lambda1", min = 0)
    check_number(lambda2, "lambda2", min = 0, strict_min = TRUE)
  } else if (!penalized) {
    if (is.null(radius_sparse))
      stop_arg("radius_sparse", "is required when `radius` is given (the constrained form)",
               if (sparse == "l1") "; give neither `radius` nor `radius_sparse` for the penalized form")
    check_radius(radius_sparse, "radius_sparse")
    if (!is.null(lambda1))
      stop_arg("lambda1", "is used only with sparse = \"enet\" or the penalized form ",
               "(neither `radius` nor `radius_sparse`)")
    if (!is.null(lambda2)) stop_arg("lambda2", "is used only with sparse = \"enet\"")
  }
  check_number(delta, "delta", min = 0, max = 1, strict_min = TRUE)
  if (delta >= 1) stop_arg("delta", "must be less than 1")
  check_count(rank, "rank")
  if (is.null(max_rank)) max_rank <- min(dims)
  check_count(max_rank, "max_rank")
  rank <- min(rank, max_rank, min(dims))
  control <- as_control(control)
  lowrank_tol <- getOption("stochcg.lowrank_tol", 1e-8)
  if (!is.numeric(lowrank_tol) || length(lowrank_tol) != 1L || !(lowrank_tol > 0 && lowrank_tol < 1))
    stop("option `stochcg.lowrank_tol` must be a number in (0, 1)", call. = FALSE)

  # what a state belongs to: the problem (data, form, bounds, penalties),
  # the method and the settings its iteration reads (admm has no step rule
  # and no linear minimization oracle)
  cg_method <- method != "admm"
  key <- list(data = fingerprint(M), method = method, penalized = penalized, radius = radius,
              radius_sparse = radius_sparse, sparse = sparse, delta = delta, lambda1 = lambda1,
              lambda2 = lambda2, psd = psd, max_rank = as.integer(max_rank),
              step = if (cg_method) step, lmo_tol = if (cg_method) lmo_tolerance())
  start <- robust_start(init, M, penalized, radius, radius_sparse, sparse, delta, psd, key)
  steps <- robust_steps(M, radius, radius_sparse, sparse, method, step, delta, lambda1, lambda2,
                        psd, control)
  spec <- c(list(problem = "robust", method = method,
                 step = if (step == "line_search") "line_search" else "standard", M = M,
                 tau = as.double(radius %||% 0), s = as.double(radius_sparse %||% 0),
                 sparse = match(sparse, c("l1", "lp", "enet")) - 1L,
                 p = 1 + delta, lambda1 = as.double(if (penalized) 0 else lambda1 %||% 0),
                 lambda2 = as.double(lambda2 %||% 0), psd = psd,
                 admm = method == "admm", pcp = penalized,
                 lambda = as.double(if (penalized) lambda1 else 0),
                 rho = admm_penalty(M, penalized),
                 rank = as.integer(rank), max_rank = as.integer(max_rank),
                 lmo_tol = lmo_tolerance(), lowrank_tol = as.double(lowrank_tol)),
            start$spec, steps)
  fit <- cg_run(spec, control, "robust_pca", call, started)
  sol <- fit$solution
  fit$state <- c(sol[startsWith(names(sol), "state_")], list(key = key))
  if (sol$status != 0L) stop("the SVD of the final low-rank part failed", call. = FALSE)
  X <- new_lowrank(sol$u, sol$d, sol$v)
  Y <- methods::new("dgCMatrix", i = sol$Y_i, p = sol$Y_p, x = sol$Y_x,
                    Dim = as.integer(dims),
                    Dimnames = if (is.null(dimnames(M))) list(NULL, NULL) else dimnames(M))
  fit$solution <- list(X = X, Y = Y)
  # NA where no proximal step on X certifies a rank
  fit$certified_rank <- if (method %in% c("alt_cgpg", "altmin", "admm")) sol$certified_rank
                        else NA_integer_
  fit$X_tail <- sol$tail
  fit$infeasibility <- sol$infeasibility
  fit$form <- if (penalized) "penalized" else "constrained"
  # list() assignment keeps the NULL ones (radius_sparse for "enet", lambdas otherwise)
  fit[c("radius", "radius_sparse", "sparse", "delta", "lambda1", "lambda2", "psd", "step")] <-
    list(radius, radius_sparse, sparse, delta, lambda1, lambda2, psd, step)
  fit$notes <- robust_notes(fit)
  if (isTRUE(start$exact)) {
    fit <- continue_trace(fit, init, start)
    fit$notes <- c(fit$notes, continued_note(start$iter))
  }
  fit$notes <- c(fit$notes, start$note)
  class(fit) <- c("robust_pca_fit", "cg_fit")
  finish_fit(fit, started)
}

# The start from `init`. A fit of the same problem, method and settings
# (`key`) that kept its state continues exactly: its state (dense Z = X + Y,
# the rank hint, admm's duals and penalty; Y from its solution, stored
# exactly) and its iteration count, from which the step sizes count on.
# Otherwise a warm start: its X and Y as dense matrices, scaled into
# the constraint sets of the constrained form (the paper's methods keep their
# iterates feasible by convex combinations from a feasible start).
robust_start <- function(init, M, penalized, radius, radius_sparse, sparse, delta, psd,
                         key = NULL) {
  if (is.null(init)) return(list(spec = list()))
  if (!inherits(init, "robust_pca_fit")) stop_arg("init", "must be NULL or a fit of robust_pca()")
  robust_parts(init, "init")
  dims <- dim(M)
  if (!identical(dim(init$solution$Y), as.integer(dims)))
    stop_arg("init", "is a fit of a ", paste(dim(init$solution$Y), collapse = " x "),
             " matrix, but `M` is ", dims[1], " x ", dims[2])
  if (psd && !isTRUE(init$psd)) stop_arg("init", "must be a fit with psd = TRUE when psd = TRUE")
  # the constrained form's objective at (0, 0), the scale of tol (a warm start
  # at an optimum near zero leaves none); the penalized form's ADMM scales
  # by its own objective
  cold <- if (penalized) 0 else 0.5 * sum(M^2)
  st <- init$state
  if (identical(st$key, key)) {
    check_robust_state(st, dims, key)
    Y <- as.matrix(init$solution$Y)
    storage.mode(Y) <- "double"
    iter <- as.integer(st$state_iters)
    spec <- c(st[setdiff(names(st), "key")],
              list(state_Y = Y, iter_offset = iter, cold_objective = cold))
    return(list(spec = spec, iter = iter, exact = TRUE))
  }
  X <- as.matrix(init$solution$X)
  Y <- as.matrix(init$solution$Y)
  if (!penalized) {
    nx <- if (psd) sum(diag(X)) else sum(init$solution$X$d)
    if (nx > radius) X <- X * (radius / nx)
    if (sparse != "enet") {
      ny <- if (sparse == "l1") sum(abs(Y)) else sum(abs(Y)^(1 + delta))^(1 / (1 + delta))
      if (ny > radius_sparse) Y <- Y * (radius_sparse / ny)
    }
  }
  storage.mode(X) <- "double"; storage.mode(Y) <- "double"
  list(spec = list(init_X = X, init_Y = Y, cold_objective = cold,
                   init_nuclear = if (penalized) sum(init$solution$X$d)),
       exact = FALSE, note = paste("warm start from the X and Y of a fit (of another problem,",
                                   "method or settings, or its state dropped)"))
}

# A kept state that would continue a run must be the one the run left (the
# C side reads it as is): an error naming `init` for one altered by hand
check_robust_state <- function(st, dims, key) {
  mn <- prod(as.double(dims))
  dense <- function(x) is.double(x) && length(x) == mn && all(is.finite(x))
  scalar <- function(x, lo, hi) is.numeric(x) && length(x) == 1L && isTRUE(is.finite(x) && x >= lo && x <= hi)
  ok <- dense(st$state_Z) && scalar(st$state_iters, 0, .Machine$integer.max) &&
    scalar(st$state_rank, 0, key$max_rank) && scalar(st$state_svd_rank, 0, Inf) &&
    is.logical(st$state_certified) && length(st$state_certified) == 1L
  if (ok && key$method == "admm")
    ok <- dense(st$state_U1) && (key$penalized || dense(st$state_U2)) &&
      scalar(st$state_rho, .Machine$double.xmin, Inf) && scalar(st$state_nuclear, -Inf, Inf)
  if (!ok) stop_arg("init", "has an invalid `state` (altered by hand?)")
}

# Starting ADMM penalty (residual balancing adapts it): for the penalized
# form rpca's mu = mn / (4 ||M||_1), in the units of the multiplier; for the
# constrained form the penalty is scale-free, and a small one (a long
# Douglas-Rachford step) suits the common case where M nearly lies in the
# sum of the two sets; the balancing raises it when the residual is large.
admm_penalty <- function(M, penalized) {
  if (!penalized) return(0.03)          # with DR_RELAX in src/prob_robust.c
  a <- sum(abs(M))
  if (a > 0) prod(as.double(dim(M))) / (4 * a) else 1
}

# Step sizes of solve_alt.c: eta_t = eta0 for t <= t0, then eta_a / (t - t0 + eta_c).
# Line search: the proximal step uses 2 / (t + 1) (Sec. 5). Theory (alpha =
# beta = 1): Theorem 4 for a compact CG block (t0 from Lemma 1 with C the
# gap at (0, 0), Remark 3), Theorem 5 for the lp ball, Theorem 6 for the
# elastic net; plain CG methods use 2 / (t + 1).
robust_steps <- function(M, tau, s, sparse, method, step, delta, lambda1, lambda2,
                         psd, control) {
  standard <- list(eta0 = 1, t0 = 0L, eta_a = 2, eta_c = 1)
  if (step == "line_search" || method %in% c("cgcg", "cgcg_p", "altmin", "admm"))
    return(standard)
  if (method == "alt_cgpg" && sparse == "lp")
    return(list(eta0 = 1, t0 = 0L, eta_a = 1, eta_c = 5))
  if (method == "alt_cgpg" && sparse == "enet")
    return(list(eta0 = min(1, 2 * lambda2) / 2, t0 = .Machine$integer.max, eta_a = 1,
                eta_c = 1))
  # Theorem 4: C >= f(0, 0) - f*, the duality gap at the start
  top <- if (psd) {
    max(cg_oracle("eigs_sym", A = M, k = 1L, which = 1L)$values, 0)
  } else {
    cg_oracle("svds", A = M, k = 1L)$d
  }
  q <- (1 + delta) / delta
  gap_y <- switch(sparse, l1 = s * max(abs(M)), lp = s * sum(abs(M)^q)^(1 / q),
                  enet = sum(pmax(abs(M) - lambda1, 0)^2) / (4 * lambda2))
  C <- tau * top + gap_y
  diam <- if (method == "alt_cgpg") 2 * s else if (psd) sqrt(2) * tau else 2 * tau
  t0 <- max(0, ceiling(2 * log(2 * C / diam^2)))
  list(eta0 = 0.5, t0 = as.integer(min(t0, .Machine$integer.max)), eta_a = 2, eta_c = 4)
}

# lines for print(): the norms of both parts against their bounds, the rank
# of the returned X, and a certified rank only where X is the certified step
# itself (admm, altmin: X is the last exact projection or thresholding; the
# conditional-gradient methods return a combination of many such points)
robust_notes <- function(fit) {
  Y <- fit$solution$Y
  ynorm <- if (identical(fit$form, "penalized")) {
    sprintf("||Y||_1 = %s (penalized form, lambda = %s)", format(sum(abs(Y@x)), digits = 4),
            format(fit$lambda1, digits = 4))
  } else switch(fit$sparse,
    l1 = sprintf("||Y||_1 = %s (radius_sparse %s)", format(sum(abs(Y@x)), digits = 4),
                 format(fit$radius_sparse, digits = 4)),
    lp = sprintf("||Y||_%s = %s (radius_sparse %s)", format(1 + fit$delta),
                 format(sum(abs(Y@x)^(1 + fit$delta))^(1 / (1 + fit$delta)), digits = 4),
                 format(fit$radius_sparse, digits = 4)),
    enet = sprintf("elastic net lambda1 = %s, lambda2 = %s",
                   format(fit$lambda1, digits = 4), format(fit$lambda2, digits = 4)))
  xline <- if (fit$method %in% c("admm", "altmin")) {
    if (is.na(fit$certified_rank))
      "the last proximal step was capped by max_rank (not certified exact)"
    else sprintf("the last proximal step's exact result (sigma_%d below its threshold)",
                 fit$certified_rank + 1L)
  } else sprintf("the final iterate truncated (dropped part: %.2g of ||X||_F)", fit$X_tail)
  c(X = xline, Y = ynorm, separation_note(fit))
}

# A decomposition that is not low rank plus sparse says so: with Y more
# than half nonzero or X of rank above a third of min(m, n) (PCP's default
# lambda on gene-expression matrices: Y 82-84% nonzero, X of rank 33 of 63;
# rpca gives the same), the bounds (or lambda1) are what separates the parts.
separation_note <- function(fit) {
  Y <- fit$solution$Y
  dense <- length(Y@x) / prod(dim(Y))
  r <- length(fit$solution$X$d)
  full <- min(dim(Y))
  if (dense <= 0.5 && r <= full / 3) return(NULL)
  sprintf(paste0("not a low-rank plus sparse split: Y is %.0f%% nonzero and X has rank %d of %d; ",
                 "give the bounds (radius = a nuclear norm, radius_sparse = an l1 norm) ",
                 "or a larger lambda1 for a sparser Y"), 100 * dense, r, full)
}

# The two parts of a fit a user may have modified: a valid lowrank X and a
# matrix Y of the same dimensions.
robust_parts <- function(fit, arg) {
  X <- fit$solution$X; Y <- fit$solution$Y
  check_lowrank(X, paste0(arg, "$solution$X"))
  if (!(is.matrix(Y) || inherits(Y, "Matrix")) || !identical(dim(Y), dim(X)))
    stop_arg(paste0(arg, "$solution$Y"), "must be a matrix of the dimensions of `X` (",
             nrow(X$u), " x ", nrow(X$v), ")")
  invisible(fit)
}

#' @rdname robust_pca
#' @param object A `robust_pca_fit`.
#' @param ... Unused.
#' @method fitted robust_pca_fit
#' @export
fitted.robust_pca_fit <- function(object, ...) {
  robust_parts(object, "object")
  as.matrix(object$solution$X) + as.matrix(object$solution$Y)
}

#' Plot a robust PCA fit
#'
#' `type = "trace"` draws the convergence panels of [plot.cg_fit()];
#' `type = "images"` draws the low-rank part `X` and the sparse part `Y` side
#' by side as images (rows top to bottom), on one color scale centered at
#' zero. Matrices larger than `max_cells` per side are shown on an evenly
#' spaced subset of rows and columns (said in the titles).
#'
#' @param x A `robust_pca_fit`.
#' @param type `"trace"` (default) or `"images"`.
#' @param max_cells Largest number of rows and columns drawn per image.
#' @param ... Passed to [plot.cg_fit()] (for `"trace"`) or [graphics::image()].
#' @returns `x`, invisibly.
#' @examples
#' set.seed(2)
#' L <- tcrossprod(matrix(rnorm(80), 40), matrix(rnorm(80), 40))
#' S <- matrix(0, 40, 40); S[sample(1600, 60)] <- 8
#' fit <- robust_pca(L + S, sum(svd(L)$d), sum(abs(S)), rank = 2, method = "altmin",
#'                   control = cg_control(max_iter = 200))
#' plot(fit, type = "images")
#' plot(fit, against = "time")
#' @importFrom graphics image
#' @importFrom grDevices hcl.colors
#' @method plot robust_pca_fit
#' @export
plot.robust_pca_fit <- function(x, type = c("trace", "images"), max_cells = 400L, ...) {
  type <- match_choice(type, c("trace", "images"), "type")
  if (type == "trace") return(NextMethod())
  check_count(max_cells, "max_cells", min = 2)
  robust_parts(x, "x")
  X <- x$solution$X; Y <- x$solution$Y
  dims <- dim(Y)
  rows <- unique(round(seq(1, dims[1], length.out = min(dims[1], max_cells))))
  cols <- unique(round(seq(1, dims[2], length.out = min(dims[2], max_cells))))
  Xs <- X$u[rows, , drop = FALSE] %*% (X$d * t(X$v[cols, , drop = FALSE]))
  Ys <- as.matrix(Y[rows, cols, drop = FALSE])
  sub <- if (length(rows) < dims[1] || length(cols) < dims[2])
    sprintf(" (%d x %d of %d x %d shown)", length(rows), length(cols), dims[1], dims[2]) else ""
  lim <- max(abs(Xs), abs(Ys), .Machine$double.eps)
  old <- par(mfrow = c(1, 2), mar = c(1, 1, 3, 1))
  on.exit(par(old))
  pal <- hcl.colors(64, "Blue-Red 3")
  show <- function(A, main) {
    image(t(A[nrow(A):1, , drop = FALSE]), zlim = c(-lim, lim), col = pal, axes = FALSE,
          main = main, ...)
  }
  show(Xs, sprintf("low-rank X (rank %d)%s", length(X$d), sub))
  show(Ys, sprintf("sparse Y (%d nonzero)", length(Y@x)))
  invisible(x)
}
