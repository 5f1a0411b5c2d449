#' k-means clustering by its semidefinite relaxation
#'
#' Solves the Peng-Wei SDP relaxation of k-means (paper 003, eq. 20),
#' \deqn{\min_X \tfrac12 \langle D, X\rangle \;\; \text{s.t.}\;\; X
#'   \mathbf{1} = \mathbf{1},\; X \ge 0,\; X \succeq 0,\; \mathrm{tr}\, X =
#'   k,}{min 1/2 <D, X> s.t. X 1 = 1, X >= 0 entrywise, X psd, tr X = k,}
#' with \eqn{D} the squared Euclidean distances between the points, by a
#' conditional-gradient method that needs one smallest eigenvector per
#' iteration and never forms the \eqn{n^2 + n} constraints as an operator;
#' then rounds the solution to cluster labels. For a partition into \eqn{k}
#' clusters, \eqn{X = \sum_c 1_c 1_c^\top / |c|}{X = sum_c 1_c 1_c' / |c|}
#' is feasible and \eqn{\tfrac12\langle D, X\rangle}{1/2 <D, X>} is its
#' k-means cost (within-cluster sum of squares), so the SDP value is a lower
#' bound on the best k-means cost, equal to it when the relaxation is tight
#' (well-separated clusters).
#'
#' **Algorithm.** `method = "cgal"` (default) is the conditional-gradient augmented
#' Lagrangian of Yurtsever, Fercoq and Cevher (2019) with the step and dual
#' rules of SketchyCGAL (Yurtsever et al. 2021): penalty \eqn{\beta_t =
#' \beta_0\sqrt{t+1}}{beta_t = beta0 sqrt(t + 1)}, step \eqn{2/(t+1)}, dual
#' ascent with a step bounded so that the multipliers stay bounded. The
#' problem is solved in normalized units (\eqn{D / \|D\|_F}{D / ||D||_F},
#' \eqn{X / k}, constraint map of norm at most 1), where a number sets
#' \eqn{\beta_0}{beta0}. `beta0 = "auto"` follows \eqn{g}, the norm of the
#' constraint gradient \eqn{A^\top(AW_1 - \mathrm{proj}_K(AW_1))}{A'(A W1 -
#' proj_K(A W1))} at the vertex \eqn{W_1}{W1} the cost alone picks (how hard
#' the constraints pull against the unit-norm cost): CGAL
#' \eqn{\min(100, \max(1, 0.09/g^2))}{min(100, max(1, 0.09 / g^2))} (1,
#' the value those authors recommend for normalized problems, unless the
#' pull is weak, as in the sparsest cut), the sampling methods below
#' \eqn{c\, g^p}{c g^p}: `"hsagcgm_v2"` \eqn{4.5\, g^{2.4}}{4.5 g^2.4},
#' `"h1sfw"` \eqn{0.32\, g^{1.8}}{0.32 g^1.8}, `"hspider"` \eqn{0.5\,
#' g}{0.5 g}. For `"hsagcgm_v1"`, "auto" adapts: it starts at \eqn{0.8\,
#' g^{1.6}}{0.8 g^1.6} and at iterations 128, 256, 512, \ldots lowers
#' \eqn{\beta_0}{beta0} (never raises it, at most 4-fold at a time) toward
#' \eqn{0.14\, g / \|y_k\|}{0.14 g / ||y_k||}, where \eqn{y_k = (AW_k -
#' \mathrm{proj}_K(AW_k)) / \beta_k}{y_k = (A W_k - proj_K(A W_k)) / beta_k}
#' estimates the multipliers (paper 003's Corollary 4.2 balances its
#' objective and infeasibility bounds at \eqn{\beta_0}{beta0} of order
#' \eqn{1/\|y^*\|}{1 / ||y*||}); each check reads the constraints once, and
#' the fit's `beta0` is the last value used. A number is used as given, on
#' the paper's schedule. Checked against a grid of \eqn{\beta_0}{beta0} on
#' 15 k-means, MaxCut and sparsest-cut SDPs (`inst/bench/sdp_beta0.R`,
#' error = relative objective residual + infeasibility over the last 20% of
#' 1000 iterations; the rules were fitted on 8, 7 held out, 4 of them added
#' after the rules were fixed): "auto" lands within a factor 2 of the grid's
#' best on all 15 for CGAL, on 11 (`"hsagcgm_v1"`) to 13 (`"hsagcgm_v2"`)
#' for the others, and on 2 or 3 of the last 4. Their error is small only
#' in a narrow window of \eqn{\beta_0}{beta0} (a quarter to half a decade
#' on most of these problems: the objective error changes sign there), and
#' problems with the same \eqn{g}{g} want windows up to 0.75 decades apart
#' (`inst/bench/sdp_beta0_windows.R`; the signals without \eqn{f^*}{f*}
#' tried in `inst/bench/sdp_beta0_signals.R` do not locate them either);
#' pass a number to tune it (see `vignette("homotopy-sdp")`).
#' The methods of
#' paper 003:
#' `"hsagcgm_v1"` (Alg. 1, Variant 1: smoothing \eqn{\beta_k = \beta_0 /
#' \sqrt{k+1}}{beta_k = beta0 / sqrt(k + 1)} of the constraints, their full
#' gradient, no multipliers; the cost is linear, so the SAG estimator of
#' its gradient is exact) and `"hsagcgm_v2"` (Variant 2: a SAG table over
#' the \eqn{n^2 + n} constraints, `batch_size` of them redrawn per iteration).
#' The baselines of paper 003's Fig. 3, from Vladarean, Alacaoglu, Hsieh and
#' Cevher (2020), with the schedules of their code as released with paper
#' 003 (github.com/ratschlab/faster-hcgm-composite, files
#' `sdp/functions/mokhtari_as_constr.m` and `spider_fw.m`, which ran its
#' Fig. 3):
#' `"h1sfw"` (H-1SFW: step \eqn{2/(k+1)}, smoothing \eqn{\beta_k = \beta_0 /
#' (k+1)^{1/6}}{beta_k = beta0 / (k + 1)^(1/6)}, the constraint gradient
#' estimated from `batch_size` constraints and averaged, \eqn{E_k = (1 - \rho_k)
#' E_{k-1} + \rho_k \tilde g_k}{E_k = (1 - rho_k) E_(k-1) + rho_k g_k} with
#' \eqn{\rho_k = 3 / (k+5)^{2/3}}{rho_k = 3 / (k + 5)^(2/3)}) and
#' `"hspider"` (H-SPIDER-FW: epochs of \eqn{K_t = 2^{t-1}}{K_t = 2^(t-1)}
#' iterations, each opening with a full pass over the constraints, then
#' SPIDER corrections from \eqn{\min(m, K_t)}{min(m, K_t)} constraints
#' drawn at the current and the previous iterate; step and smoothing those
#' of H-SAG-CGM, so that full passes fall on iterations 1, 2, 4, 8, ...).
#' Sampled constraints are drawn uniformly with replacement from R's random
#' number generator ([set.seed()] reproduces a fit); the trace's `epoch`
#' counts constraint evaluations over the number of constraints (passes),
#' `n_grad` the evaluations (a SPIDER correction reads each drawn constraint
#' twice). Memory: three dense \eqn{n \times n}{n x n} arrays (the cost,
#' the iterate, the gradient), a fourth for the multipliers of \eqn{X \ge
#' 0} (`"cgal"`) or the previous iterate (`"hspider"`); the sampling methods
#' one more for their estimate, `"hsagcgm_v2"` its table of \eqn{n^2 + n}
#' values.
#'
#' **Certificate.** The trace's `infeasibility` is
#' \eqn{\mathrm{dist}((X\mathbf 1, X), \{\mathbf 1\} \times
#' \mathbf{R}_+^{n\times n})}{dist((X 1, X), {1} x R+)}, and `gap` is the
#' objective minus a Lagrangian lower bound on the SDP optimum (weak duality
#' with multipliers of \eqn{X \ge 0}; the row sums are kept
#' exact, \eqn{X = \mathbf{1}\mathbf{1}'/n + PXP}{X = 11'/n + PXP} with
#' \eqn{P} the projector on the complement of \eqn{\mathbf 1}{1}, so the
#' bound needs one smallest eigenvalue on that complement, moved outward by
#' its tolerance, and equals the best bound over the row-sum multipliers).
#' The multipliers of \eqn{X \ge 0} are the method's, and, on the stopping
#' tests of a nearly feasible iterate (infeasibility within 10 `tol`), ones
#' polished for the bound alone by a few steps of accelerated gradient
#' ascent on a soft-min smoothing of it (the smallest eigenpairs by LAPACK;
#' the iterates are unchanged; up to n = 500 points, above which the dense
#' eigendecompositions cost more than they save): the method's own
#' multipliers lag (USArrests, planted clusters ended at 1% gaps), and every
#' choice gives a valid bound.
#' On every stopping test of an iterate within 5% relative infeasibility,
#' the iterate is also rounded to a partition (its top \eqn{k}
#' eigenvectors, Lloyd's algorithm from farthest-point centres), whose
#' block matrix \eqn{X_p = \sum_c 1_c 1_c' / |c|}{X_p = sum_c 1_c 1_c' / |c|}
#' is feasible, and multipliers of \eqn{X \ge 0} built as in the dual
#' certificate of Iguchi, Mixon, Peterson and Villar (2017): zero inside the
#' clusters, between clusters rank-one blocks whose sums complementary
#' slackness fixes, the trace multiplier the least that keeps them
#' nonnegative (one closed form, then one smallest eigenvalue); when the
#' relaxation is tight (well-separated clusters) they make \eqn{X_p} a
#' minimizer of the Lagrangian and certify it at once. When the partition's cost is within `tol` of the best certified
#' bound, \eqn{X_p} becomes the solution (exactly feasible, so
#' `infeasibility` is 0) and the run stops: on planted mixtures of 400 to
#' 2000 points the method's own multipliers, after 5000 iterations, were
#' still 2-5% below the optimum (`inst/bench/kmeans_large.R`). On data whose
#' relaxation is not tight, the partition's bound is valid but below the
#' optimum, and the run goes on as before.
#' So `objective - gap` is a certified lower bound and the
#' fit is `converged` when both the gap (relative to the objective) and the
#' infeasibility (relative to \eqn{\sqrt n}{sqrt(n)}) are below
#' `control$tol`. The objective of an infeasible iterate can lie below the
#' optimum; the gap bounds the suboptimality as the infeasibility vanishes.
#'
#' **Rounding.** Labels come from k-means ([stats::kmeans()], 10 starts; it
#' draws from R's random number generator, so use [set.seed()]) on the top
#' \eqn{k} eigenvectors of \eqn{X} scaled by the square roots of their
#' eigenvalues, then improved by Lloyd's steps on the distances (each point
#' to its nearest cluster mean, until none moves: never a higher cost; a
#' relaxation that is not tight rounds to a partition that is not a local
#' minimum); `cost` is the k-means cost of those labels, at least the SDP
#' value.
#'
#' @param x Points in rows: a numeric matrix or data frame (\eqn{n \ge 3}
#'   rows), or a `dist` object of Euclidean distances.
#' @param k Number of clusters, \eqn{2 \le k < n}{2 <= k < n}.
#' @param method `"cgal"` (default: with "auto" \eqn{\beta_0}{beta0} it had
#'   the smallest error after 1000 iterations of the five methods on 14 of
#'   the 15 benchmark SDPs of `inst/bench/sdp_beta0.R`, and its dual iterate
#'   tightens the certificate), `"hsagcgm_v1"`, `"hsagcgm_v2"`, `"h1sfw"` or
#'   `"hspider"`.
#' @param batch_size For `"hsagcgm_v2"` and `"h1sfw"`: constraints drawn per
#'   iteration (default 5% of them, the fraction of paper 003's experiments).
#' @param beta0 Starting penalty (CGAL) or smoothing (the others):
#'   `"auto"` (default) or a positive number, in normalized units (see
#'   Details); the fit's `beta0` is the value used (for `"hsagcgm_v1"` with
#'   "auto", the value of the last iteration).
#' @param init `NULL`, or a previous `kmeans_sdp()` fit of the same points
#'   and `k`: its state (the iterate, the multipliers, the iteration count,
#'   the last `beta0`, and the sampling methods' estimator: the constraint
#'   term's estimate, `"hsagcgm_v2"`'s SAG table, `"hspider"`'s previous
#'   iterate) starts this fit, which continues it. With the same method,
#'   `beta0` and `batch_size` and the whole state, every method gives the fit
#'   of one longer run, bit for bit; for the sampling methods, call
#'   `set.seed()` before the first fit and draw no random numbers in between,
#'   so that the continued run draws what the longer run would (the rounding
#'   to labels puts R's random stream back). Other settings, or a state with
#'   a part dropped, give a warm start (estimators restarted). The state is
#'   kept in `fit$state`: \eqn{n^2} doubles (`"hsagcgm_v1"`), \eqn{2 n^2}
#'   (`"cgal"`, `"h1sfw"`) or \eqn{3 n^2} (`"hsagcgm_v2"`, `"hspider"`), and
#'   \eqn{n^2} more once the bound was polished (`tol > 0`); set it to
#'   `NULL` to drop it.
#' @param control Solver settings from [cg_control()]; `tol` (default here
#'   `1e-3`) bounds the relative gap and the relative infeasibility,
#'   `max_iter` defaults to 5000 (the certified gap closes slowly, see Details).
#' @returns A fit of class `c("kmeans_sdp_fit", "cg_fit")` (see [cg_fit]):
#'   `solution$X` the \eqn{n \times n}{n x n} SDP solution (the block
#'   matrix of the rounded partition when that was certified, see
#'   Details), `labels`
#'   (integer, 1 to `k`), `cost` (k-means cost of `labels`), `centers`
#'   (the means of each cluster's points, `NULL` for a `dist` input; see
#'   [fitted.kmeans_sdp_fit()]), `lower_bound`
#'   (`objective - gap`, a lower bound on the SDP value and hence on every
#'   k-means cost), `infeasibility`, `k`, `beta0`.
#' @references Peng, J. and Wei, Y. (2007). Approximating k-means-type
#'   clustering via semidefinite programming. SIAM J. Optim. 18, 186-205.
#'
#'   Yurtsever, A., Fercoq, O. and Cevher, V. (2019). A conditional-gradient-
#'   based augmented Lagrangian framework. ICML.
#'
#'   Yurtsever, A., Tropp, J. A., Fercoq, O., Udell, M. and Cevher, V. (2021).
#'   Scalable semidefinite programming. SIAM J. Math. Data Sci. 3, 171-200.
#'
#'   Iguchi, T., Mixon, D. G., Peterson, J. and Villar, S. (2017). Probably
#'   certifiably correct k-means clustering. Math. Program. 165, 605-642.
#'
#'   Dresdner, G., Vladarean, M.-L., Rätsch, G., Locatello, F., Cevher, V. and
#'   Yurtsever, A. (2022). Faster one-sample stochastic conditional gradient
#'   method for composite convex minimization. AISTATS.
#' @examples
#' set.seed(1)
#' x <- iris[sample(150, 45), 1:4]
#' fit <- kmeans_sdp(x, 3)
#' fit
#' table(fit$labels, iris$Species[as.integer(rownames(x))])
#' c(sdp = fit$objective, lower_bound = fit$lower_bound, rounded = fit$cost)
#' @export
kmeans_sdp <- function(x, k, method = c("cgal", "hsagcgm_v1", "hsagcgm_v2", "h1sfw", "hspider"),
                       beta0 = "auto", batch_size = NULL, init = NULL,
                       control = cg_control()) {
  started <- wall_clock()
  call <- match.call()
  D <- squared_distances(x)
  n <- nrow(D)
  if (n < 3L) stop_arg("x", "must have at least 3 points")
  check_count(k, "k", min = 2)
  if (k >= n) stop_arg("k", "must be smaller than the number of points (", n, ")")
  method <- match_choice(method, homotopy_methods, "method")
  norm_D <- sqrt(sum(D^2))
  if (!(norm_D > 0)) stop_arg("x", "has all points equal: nothing to cluster")
  b0 <- check_beta0(beta0, method, function() kmeans_pull(D / norm_D, k))
  batch <- row_batch(batch_size, n + n^2)
  control <- as_control(control, max_iter = 5000L, tol = 1e-3)
  spec <- list(problem = "kmeans", method = method, C = D / norm_D, k = as.double(k),
               obj_scale = 0.5 * norm_D * k, beta0 = b0[["beta0"]],
               batch_constraints = batch, beta0_adapt = b0[["adapt"]])
  fit <- sdp_run(spec, control, "kmeans_sdp", "kmeans_sdp_fit", call, started, init, n,
                 rows = n + n^2, data = c(n, sum(D), sum(D * (seq_len(n) %% 7 + 1)), k))
  fit$infeasibility <- fit$trace$infeasibility[nrow(fit$trace)]
  X <- fit$solution$X
  dimnames(X) <- list(rownames(D), rownames(D))
  fit$solution <- list(X = X)
  fit$labels <- lloyd_polish(D, round_clusters(X, k), k)
  fit$cost <- partition_cost(D, fit$labels)
  # centres only from points (a dist object has none): for fitted() and predict()
  fit$centers <- if (inherits(x, "dist")) NULL else cluster_centers(x, fit$labels, k)
  fit$lower_bound <- fit$objective - fit$gap
  fit$k <- as.integer(k)
  class(fit) <- c("kmeans_sdp_fit", "cg_fit")
  finish_fit(fit, started)
}

# squared Euclidean distances of the rows of x (a matrix, data frame or dist)
squared_distances <- function(x) {
  if (inherits(x, "dist")) {
    D <- as.matrix(x)^2
  } else {
    if (is.data.frame(x)) {
      if (!all(vapply(x, is.numeric, NA))) stop_arg("x", "must have numeric columns only")
      x <- as.matrix(x)
    }
    if (!is.matrix(x) || !is.numeric(x)) stop_arg("x", "must be a numeric matrix, a data frame or a dist object")
    if (!all_finite(x)) stop_arg("x", "contains NA, NaN or Inf")
    g <- tcrossprod(x)
    sq <- diag(g)
    D <- pmax(outer(sq, sq, "+") - 2 * g, 0)
    diag(D) <- 0
    dimnames(D) <- list(rownames(x), rownames(x))
  }
  if (!all_finite(D)) stop_arg("x", "contains NA, NaN or Inf")
  storage.mode(D) <- "double"
  D
}

# the homotopy methods every SDP problem offers (cgal the default)
homotopy_methods <- c("cgal", "hsagcgm_v1", "hsagcgm_v2", "h1sfw", "hspider")

# rows drawn per iteration by hsagcgm_v2 and h1sfw among m: by default 5%,
# the fraction paper 003's experiments used (batch_factor 0.05 in its code)
row_batch <- function(batch, m) {
  if (is.null(batch)) batch <- ceiling(0.05 * m)
  check_count(batch, "batch_size", min = 1)
  as.integer(min(batch, .Machine$integer.max))
}

# beta0 in normalized units: a positive number, or "auto" (issue 11;
# inst/bench/sdp_beta0.R and its results), from g = pull(), the norm of the
# constraint gradient A'(A W1 - proj_K(A W1)) at W1, the vertex the
# objective alone picks (how hard the constraints pull against the
# unit-norm cost at the start). The best beta0 on a grid falls with g for
# the smoothing methods (g ~ 0.7 MaxCut, 0.47 k-means, 0.04-0.08 sparsest
# cut) and rises for cgal, whose beta0 scales the penalty instead. The
# rules c g^p below (beta0_rules) were fitted to the error of 8 problems,
# the median over the last 20% of 1000 iterations, mean of 3 seeds (the
# last iterate alone swings by a factor 5 between neighbouring beta0), and
# checked on 7 problems held out of the fit. Not refitted after 4 of those
# were added: no rule c g^p fits the windows of beta0 within a factor 2 of
# the best better on the 8 (inst/bench/sdp_beta0_windows.R; the windows are
# narrow and differ between problems of equal g). cgal: 0.09 / g^2 within
# [1, 100] (1, SketchyCGAL's advice for normalized problems, unless the pull
# is weak, as in the sparsest cut). hsagcgm_v1 adapts (beta0_adaptive): it starts at
# `start` times its rule and the solver lowers beta0 toward c g / ||y_k||
# at k = 128, 256, ... (cg_solve_homotopy; y_k the multiplier estimate of
# the smoothing), c fitted on the same 8 problems. Returns c(beta0 = the
# starting value, adapt = c g, 0 when beta0 stays fixed). `pull` is called
# only for "auto".
beta0_rules <- list(hsagcgm_v1 = c(c = 0.4, p = 1.6), hsagcgm_v2 = c(c = 4.5, p = 2.4),
                    h1sfw = c(c = 0.32, p = 1.8), hspider = c(c = 0.5, p = 1))
beta0_adaptive <- list(hsagcgm_v1 = c(c = 0.14, start = 2))
check_beta0 <- function(beta0, method = "cgal", pull = function() 1) {
  if (identical(beta0, "auto")) {
    g <- pull()
    if (!is.finite(g) || g <= 0) return(c(beta0 = 1, adapt = 0))  # no constraint pulls: moot
    if (method == "cgal") return(c(beta0 = min(100, max(1, 0.09 / g^2)), adapt = 0))
    rule <- beta0_rules[[method]]
    adaptive <- beta0_adaptive[[method]]
    if (is.null(adaptive)) return(c(beta0 = unname(rule["c"] * g^rule["p"]), adapt = 0))
    return(c(beta0 = unname(adaptive["start"] * rule["c"] * g^rule["p"]),
             adapt = unname(adaptive["c"] * g)))
  }
  if (!is.numeric(beta0) || length(beta0) != 1L || !is.finite(beta0) || beta0 <= 0)
    stop_arg("beta0", "must be \"auto\" or a positive number")
  c(beta0 = as.double(beta0), adapt = 0)
}

# the unit eigenvector of symmetric C's smallest eigenvalue, and that value
min_eigen <- function(C) {
  if (nrow(C) <= 500L) {
    e <- eigen(C, symmetric = TRUE)
    return(list(value = e$values[nrow(C)], vector = e$vectors[, nrow(C)]))
  }
  e <- RSpectra::eigs_sym(C, 1L, which = "SA")
  list(value = e$values[1L], vector = e$vectors[, 1L])
}

# kmeans_sdp's pull (see check_beta0) in its normalized units: W1 = v v',
# rows a W 1 = a / k and c W >= 0
kmeans_pull <- function(C, k) {
  n <- nrow(C)
  v <- min_eigen(C)$vector
  W <- tcrossprod(v)
  a <- 1 / sqrt(2 * n); cc <- 1 / sqrt(2)
  r <- a * rowSums(W) - a / k
  G <- a / 2 * outer(r, r, "+") + cc * pmin(cc * W, 0)
  sqrt(sum(G^2))
}

# labels 1..k from the top-k eigenvectors of X, scaled by sqrt(eigenvalue)
round_clusters <- function(X, k) {
  e <- if (nrow(X) <= 200L) eigen(X, symmetric = TRUE) else
    RSpectra::eigs_sym(X, k, which = "LA")          # the top k only: no full eigen of n x n
  U <- e$vectors[, seq_len(k), drop = FALSE] %*% diag(sqrt(pmax(e$values[seq_len(k)], 0)), k)
  # X of a partition (the certified one the solver returns): its rows of U
  # take k values up to rounding, which kmeans() handles with warnings
  key <- apply(round(U / max(abs(U), 1e-300), 8), 1L, paste, collapse = " ")
  if (length(unique(key)) == k) return(match(key, unique(key)))
  # kmeans() draws its starts from R's RNG; the user's stream is put back,
  # so that a fit consumes only its solver's draws (a fit continued by
  # init = then draws what one longer run would)
  cl <- with_rng_kept(stats::kmeans(U, k, nstart = 10L)$cluster)
  # numbered by first appearance, so that equal partitions give equal labels
  as.integer(factor(cl, levels = unique(cl)))
}

# Lloyd's steps from `labels` on the squared distances alone (so also for a
# dist input): the squared distance of point i to the mean of cluster c is
# mean_{j in c} D_ij - sum_{j, l in c} D_jl / (2 |c|^2); each point moves to
# its nearest mean, which never raises the k-means cost, until no point
# moves. A rounding of a relaxation that is not tight is not a local
# minimum of the cost (Wage, n = 300, k = 4: 429.6, one step 415.4, against
# kmeans(nstart = 20)'s 413.3); a certified optimal partition stays as is.
lloyd_polish <- function(D, labels, k, max_steps = 100L) {
  cost <- partition_cost(D, labels)
  for (s in seq_len(max_steps)) {
    size <- tabulate(labels, k)
    Z <- outer(labels, seq_len(k), "==") * rep(1 / size, each = length(labels))
    A <- D %*% Z                                        # mean_{j in c} D_ij
    b <- colSums(Z * A) / 2                             # sum_{j,l in c} D_jl / (2 |c|^2)
    dist <- sweep(A, 2L, b)
    dist[cbind(seq_along(labels), labels)] <- dist[cbind(seq_along(labels), labels)] -
      1e-12 * abs(dist[cbind(seq_along(labels), labels)])     # ties: stay
    new <- max.col(-dist, ties.method = "first")
    if (identical(new, labels) || any(tabulate(new, k) == 0L)) break
    new_cost <- partition_cost(D, new)
    if (!(new_cost < cost)) break
    labels <- new; cost <- new_cost
  }
  as.integer(factor(labels, levels = unique(labels)))   # numbered by first appearance
}

# evaluate `expr`, then put R's RNG state back as it was (none: none)
with_rng_kept <- function(expr) {
  env <- globalenv()
  had <- exists(".Random.seed", envir = env, inherits = FALSE)
  if (had) seed <- get(".Random.seed", envir = env, inherits = FALSE)
  on.exit(if (had) assign(".Random.seed", seed, envir = env)
          else if (exists(".Random.seed", envir = env, inherits = FALSE))
            rm(".Random.seed", envir = env))
  expr
}

# k-means cost of a partition from squared distances: sum_c sum_{i,j in c} D_ij / (2 |c|)
partition_cost <- function(D, labels) {
  sum(vapply(split(seq_along(labels), labels), function(i) sum(D[i, i]) / (2 * length(i)), 0))
}

# k x d matrix of cluster means (rows named by cluster)
cluster_centers <- function(x, labels, k) {
  x <- as.matrix(x)
  centers <- rowsum(x, labels, reorder = TRUE) / tabulate(labels, k)
  rownames(centers) <- seq_len(k)
  centers
}

#' Fitted clusters and cluster assignment of new points
#'
#' As for [stats::kmeans()]: `fitted()` gives each training point's cluster
#' centre (`method = "centers"`) or its label (`"classes"`); `predict()`
#' assigns new points to the nearest centre (squared Euclidean distance).
#' The centres are the means of the points of each rounded cluster; a fit on
#' a `dist` object has labels but no centres.
#'
#' @param object A `kmeans_sdp_fit`.
#' @param method `"centers"` (default) or `"classes"`.
#' @param newdata Points in rows, with the columns of the training points.
#' @param ... Unused.
#' @returns `fitted()`: a matrix of centres, one row per training point, or
#'   the integer labels. `predict()`: integer labels of the rows of
#'   `newdata`.
#' @examples
#' set.seed(1)
#' x <- as.matrix(iris[sample(150, 45), 1:4])
#' fit <- kmeans_sdp(x, 3)
#' head(fitted(fit))
#' predict(fit, iris[c(1, 51, 101), 1:4])     # one of each species
#' @method fitted kmeans_sdp_fit
#' @export
fitted.kmeans_sdp_fit <- function(object, method = c("centers", "classes"), ...) {
  method <- match_choice(method, c("centers", "classes"), "method")
  if (method == "classes") return(object$labels)
  if (is.null(object$centers))
    stop("this kmeans_sdp fit was made from a dist object: it has labels (method = ",
         "\"classes\") but no centres", call. = FALSE)
  object$centers[object$labels, , drop = FALSE]
}

#' @rdname fitted.kmeans_sdp_fit
#' @method predict kmeans_sdp_fit
#' @export
predict.kmeans_sdp_fit <- function(object, newdata, ...) {
  C <- object$centers
  if (is.null(C))
    stop("this kmeans_sdp fit was made from a dist object: it has no centres to assign ",
         "new points to", call. = FALSE)
  if (missing(newdata)) stop_arg("newdata", "is missing, with no default")
  if (is.data.frame(newdata)) newdata <- as.matrix(newdata)
  if (is.null(dim(newdata)) && is.numeric(newdata) && length(newdata) == ncol(C))
    newdata <- matrix(newdata, 1L)
  if (!is.matrix(newdata) || !is.numeric(newdata) || ncol(newdata) != ncol(C))
    stop_arg("newdata", "must be a numeric matrix with ", ncol(C), " columns")
  if (!all_finite(newdata)) stop_arg("newdata", "contains NA, NaN or Inf")
  d2 <- outer(rowSums(newdata^2), rowSums(C^2), "+") - 2 * tcrossprod(newdata, C)
  max.col(-d2, ties.method = "first")
}

# how far a value lies above a lower bound: in percent of a positive bound
# (whole percents from 10%, never "1e+02%"), else the difference itself
fmt_above <- function(value, bound) {
  if (!is.finite(bound) || !is.finite(value)) return("NA")
  if (bound <= 0) return(fmt_num(value - bound, 4))
  pct <- 100 * (value - bound) / bound
  if (abs(pct) >= 10) sprintf("%.0f%%", pct) else sprintf("%.2g%%", pct)
}

#' @method print kmeans_sdp_fit
#' @export
print.kmeans_sdp_fit <- function(x, ...) {
  cat(fit_header(x), sep = "\n")
  cat(sprintf("k-means SDP of %d points, k = %d: value %s, certified lower bound %s\n",
              nrow(x$solution$X), x$k, fmt_num(x$objective), fmt_num(x$lower_bound)))
  cat(sprintf("Rounded labels: cluster sizes %s, k-means cost %s (%s above the lower bound)\n",
              paste(tabulate(x$labels, x$k), collapse = " "), fmt_num(x$cost),
              fmt_above(x$cost, x$lower_bound)))
  invisible(x)
}
