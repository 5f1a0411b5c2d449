#' Uniform sparsest cut by its semidefinite relaxation
#'
#' Solves the SDP relaxation of uniform sparsest cut with triangle
#' inequalities (Arora, Rao and Vazirani 2009) in the form of paper 003,
#' eq. (22),
#' \deqn{\min_X \langle L, X\rangle \;\;\text{s.t.}\;\; n\,\mathrm{tr}\,X -
#'   \langle J, X\rangle = n^2/2,\;\; X_{ij} + X_{jk} - X_{ik} - X_{jj} \le
#'   0 \;\forall i,j,k,\;\; X \succeq 0,\; \mathrm{tr}\,X \le n,}{min <L, X>
#'   s.t. n tr X - <J, X> = n^2 / 2, X_ij + X_jk - X_ik - X_jj <= 0 for all
#'   i, j, k, X psd, tr X <= n,}
#' (\eqn{L} the graph Laplacian, \eqn{J} the all-ones matrix) by CGAL or
#' another homotopy method (see [kmeans_sdp()] for the algorithms, the
#' normalization and `beta0`), then rounds it to a cut. The triangle
#' inequalities are evaluated from \eqn{X} by index, never stored as an
#' operator: \eqn{m = n(n-1)(n-2)/2}{m = n (n - 1)(n - 2) / 2} distinct
#' ones (3 per node triple, as paper 003 counts them; \eqn{(i,j,k)} and
#' \eqn{(k,j,i)} coincide, and those with \eqn{j \in \{i, k\}}{j in {i,
#' k}} hold for every psd \eqn{X}). `"cgal"` keeps their multipliers
#' (\eqn{m} doubles: 32 MB at \eqn{n = 200}) and costs \eqn{O(n^3)} per
#' iteration, like `"hsagcgm_v1"`. The sampling methods (`"hsagcgm_v2"`,
#' `"h1sfw"`, `"hspider"`) draw triangle rows and keep the one equality
#' exact; `"hsagcgm_v2"`'s SAG table is hashed over its nonzero entries
#' (violated constraints drawn), never a dense array of \eqn{m}.
#'
#' For a cut \eqn{(S, \bar S)}, the scaled indicator matrix is feasible
#' with \eqn{\langle L, X\rangle = \frac{n^2}{2} |E(S, \bar S)| / (|S||\bar
#' S|)}{<L, X> = n^2/2 |E(S, S')| / (|S| |S'|)} (when \eqn{|\bar S| \ge
#' n/2}{|S'| >= n/2}), so \eqn{2\,\mathrm{SDP}/n^2}{2 SDP / n^2} bounds the
#' uniform sparsest cut from below; `sparsity_bound` is that bound from the
#' certified `lower_bound`. The cut is the best sweep cut (by sparsity)
#' along the top eigenvector of \eqn{X}.
#'
#' @param adjacency The graph: a symmetric nonnegative adjacency (weight)
#'   matrix, dense or `Matrix`, or an `igraph` graph (needs the igraph
#'   package).
#' @inheritParams kmeans_sdp
#' @param control Solver settings from [cg_control()]; `tol` (default here
#'   `1e-3`) bounds the relative gap and the relative infeasibility,
#'   `max_iter` defaults to 2000.
#' @param init `NULL`, or a previous fit of this function on the same
#'   problem: its state (the iterate, the multipliers, the iteration count,
#'   the last `beta0`, and the sampling methods' estimator) starts this fit,
#'   which continues it: with the same settings and the whole state, the fit
#'   of one longer run, bit for bit, as for [kmeans_sdp()] (whose `init`
#'   says more). The state is kept in `fit$state`: the iterate (\eqn{n^2}
#'   doubles), under `"cgal"` the triangle multipliers (\eqn{m} doubles),
#'   under the sampling methods the estimate of the triangle term
#'   (\eqn{n^2}), under `"hspider"` the previous iterate (\eqn{n^2}), and
#'   `"hsagcgm_v2"`'s hashed SAG table, two doubles per stored entry (rows
#'   drawn while violated, at most \eqn{m}); set it to `NULL` to drop it.
#' @param method `"cgal"` (default), `"hsagcgm_v1"`, `"hsagcgm_v2"`,
#'   `"h1sfw"` or `"hspider"` (see [kmeans_sdp()]).
#' @param batch_size For `"hsagcgm_v2"` and `"h1sfw"`: triangle rows drawn per
#'   iteration (default 5% of \eqn{m}).
#' @returns A fit of class `c("sparsest_cut_sdp_fit", "cg_fit")`:
#'   `solution$X`, `cut` (logical, membership of \eqn{S}), `sparsity` (of
#'   the cut: weight across over \eqn{|S||\bar S|}{|S| |S'|}),
#'   `lower_bound`, `sparsity_bound`, `infeasibility`.
#' @references Arora, S., Rao, S. and Vazirani, U. (2009). Expander flows,
#'   geometric embeddings and graph partitioning. J. ACM 56(2).
#' @examples
#' # two triangles joined by one edge: the sparsest cut separates them
#' A <- matrix(0, 6, 6)
#' for (e in list(c(1, 2), c(1, 3), c(2, 3), c(4, 5), c(4, 6), c(5, 6), c(3, 4)))
#'   A[e[1], e[2]] <- A[e[2], e[1]] <- 1
#' fit <- sparsest_cut_sdp(A, control = cg_control(max_iter = 2000))
#' which(fit$cut)
#' c(cut = fit$sparsity, bound = fit$sparsity_bound)
#' @export
sparsest_cut_sdp <- function(adjacency, method = c("cgal", "hsagcgm_v1", "hsagcgm_v2", "h1sfw",
                                                "hspider"),
                             beta0 = "auto", batch_size = NULL, init = NULL,
                             control = cg_control()) {
  started <- wall_clock()
  call <- match.call()
  Wt <- adjacency_matrix(adjacency)
  n <- nrow(Wt)
  method <- match_choice(method, homotopy_methods, "method")
  control <- as_control(control, max_iter = 2000L, tol = 1e-3)
  L <- diag(rowSums(Wt)) - Wt
  norm_L <- sqrt(sum(L^2))
  if (!(norm_L > 0)) stop_arg("adjacency", "has no edges: every cut has sparsity 0")
  comp <- graph_components(Wt)
  if (max(comp) > 1L) return(disconnected_cut(Wt, comp, control, call, started))
  # the pull (see check_beta0): the objective alone picks W1 = 0 (L is psd
  # with L 1 = 0), where only the equality row is violated
  fro <- sqrt(n * (n - 1)^2 + n * (n - 1))
  b0 <- check_beta0(beta0, method, function() n / (4 * fro))
  rows <- n * (n - 1) * (n - 2) / 2                    # the triangle inequalities
  batch <- row_batch(batch_size, rows)
  spec <- list(problem = "sparsest_cut", method = method, C = L / norm_L,
               obj_scale = n * norm_L, beta0 = b0[["beta0"]], batch_constraints = batch,
               beta0_adapt = b0[["adapt"]])
  fit <- sdp_run(spec, control, "sparsest_cut_sdp", "sparsest_cut_sdp_fit", call, started,
                 init, n, rows, data = c(n, sum(L), sum(L * (seq_len(n) %% 7 + 1))))
  fit$infeasibility <- fit$trace$infeasibility[nrow(fit$trace)]
  X <- fit$solution$X
  fit$lower_bound <- fit$objective - fit$gap
  fit$sparsity_bound <- 2 * fit$lower_bound / n^2
  sw <- sweep_cut(X, Wt)
  fit$cut <- stats::setNames(sw$cut, rownames(Wt))
  fit$sparsity <- sw$sparsity
  class(fit) <- c("sparsest_cut_sdp_fit", "cg_fit")
  finish_fit(fit, started)
}

# The connected components of a graph (edges: positive weights), numbered
# from 1 in the order their first node appears
graph_components <- function(Wt) {
  n <- nrow(Wt)
  comp <- integer(n)
  k <- 0L
  for (s in seq_len(n)) {
    if (comp[s] > 0L) next
    k <- k + 1L
    frontier <- s; comp[s] <- k
    while (length(frontier)) {
      nb <- which(colSums(Wt[frontier, , drop = FALSE] > 0) > 0 & comp == 0L)
      comp[nb] <- k
      frontier <- nb
    }
  }
  comp
}

# A disconnected graph: the first component against the rest is a cut of
# sparsity 0, the optimum (every sparsity is >= 0), and its scaled indicator
# matrix X = c^2 v v' (v = 1_S - |S|/n, c^2 = n^2 / (2 |S| |S'|)) is
# feasible for the relaxation (equality row, triangle inequalities: v takes
# two values) with <L, X> = 0, the SDP's optimum (L is psd): no iteration needed.
disconnected_cut <- function(Wt, comp, control, call, started) {
  n <- nrow(Wt)
  cut <- comp == 1L
  v <- as.double(cut) - sum(cut) / n
  X <- (n^2 / (2 * sum(cut) * sum(!cut))) * tcrossprod(v)
  fit <- closed_form_fit(list(X = X), 0, "sparsest_cut_sdp", sprintf(
    "the graph is disconnected (%d components): a component is a cut of sparsity 0, the optimum",
    max(comp)), call, started, control)
  fit$infeasibility <- 0
  fit$lower_bound <- 0
  fit$sparsity_bound <- 0
  fit$cut <- stats::setNames(cut, rownames(Wt))
  fit$sparsity <- 0
  class(fit) <- c("sparsest_cut_sdp_fit", "cg_fit")
  finish_fit(fit, started)
}

adjacency_matrix <- function(adjacency) {
  if (inherits(adjacency, "igraph")) {
    if (!requireNamespace("igraph", quietly = TRUE))
      stop_arg("adjacency", "is an igraph graph but the igraph package is not installed")
    if (igraph::is_directed(adjacency))
      stop_arg("adjacency", "is a directed graph; the sparsest cut is of an undirected one: ",
               "use igraph::as.undirected(adjacency)")
    adjacency <- igraph::as_adjacency_matrix(adjacency, sparse = FALSE,
      attr = if ("weight" %in% igraph::edge_attr_names(adjacency)) "weight" else NULL)
  }
  if (!(is.matrix(adjacency) && (is.numeric(adjacency) || is.logical(adjacency))) &&
      !inherits(adjacency, "Matrix"))
    stop_arg("adjacency", "must be a numeric matrix, a Matrix or an igraph graph")
  A <- as.matrix(adjacency)
  storage.mode(A) <- "double"
  n <- nrow(A)
  if (n < 3L || ncol(A) != n) stop_arg("adjacency", "must be a square matrix of at least 3 nodes")
  if (!all_finite(A)) stop_arg("adjacency", "contains NA, NaN or Inf")
  if (any(A < 0)) stop_arg("adjacency", "must have nonnegative weights")
  if (max(abs(A - t(A))) > 1e-10 * max(1, max(A)))
    stop_arg("adjacency", "must be symmetric (an undirected graph): use (A + t(A)) / 2, ",
             "or igraph::as.undirected(g) for an igraph graph")
  diag(A) <- 0
  A
}

# the sparsest of the n - 1 sweep cuts along the top eigenvector of X
sweep_cut <- function(X, Wt) {
  n <- nrow(X)
  v <- eigen(X, symmetric = TRUE)$vectors[, 1L]
  ord <- order(v)
  best <- list(sparsity = Inf, cut = NULL)
  for (k in seq_len(n - 1L)) {
    S <- logical(n); S[ord[seq_len(k)]] <- TRUE
    sp <- sum(Wt[S, !S]) / (k * (n - k))
    if (sp < best$sparsity) best <- list(sparsity = sp, cut = S)
  }
  best
}

#' @method print sparsest_cut_sdp_fit
#' @export
print.sparsest_cut_sdp_fit <- function(x, ...) {
  cat(fit_header(x), sep = "\n")
  n <- length(x$cut)
  cat(sprintf("Sparsest cut SDP of %d nodes: value %s, certified lower bound %s\n", n,
              fmt_num(x$objective), fmt_num(x$lower_bound)))
  cat(sprintf("Rounded cut: %d | %d nodes, sparsity %s (lower bound on the best cut: %s)\n",
              sum(x$cut), n - sum(x$cut), fmt_num(x$sparsity), fmt_num(x$sparsity_bound)))
  invisible(x)
}
