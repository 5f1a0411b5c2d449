# K-fold cross-validation over a path of radii: cv_sparse_regression()
# (folds of rows) and cv_complete_matrix() (folds of observed entries) are
# thin wrappers around one engine, cv_radius(), which fits the full-data path
# and one path per fold (fit_path(), warm starts along the radii), scores the
# held-out units, aggregates as cv.glmnet does and applies one_se_rule().

#' Choose the l1 radius of a sparse regression by cross-validation
#'
#' K-fold cross-validation of [sparse_regression()] over a sequence of
#' radii, like [glmnet::cv.glmnet()] over its `lambda` sequence: the rows
#' are split into folds; for each fold the path over the radii is fitted on
#' the other rows (in increasing order, each fit warm-started from the
#' previous one) and scored by the mean squared error on the fold's rows.
#' The path on all rows is fitted once more and the fit is taken there at
#' the chosen radius.
#'
#' The CV curve is aggregated as cv.glmnet aggregates it: `cvm` is the mean
#' over folds of each fold's mean held-out loss, weighted by the fold
#' sizes (with `weights`, by the folds' sums of weights, as cv.glmnet), and
#' `cvsd` its standard error, the square root of the weighted
#' variance across folds divided by \eqn{K - 1}{K - 1}. `radius.min`
#' minimizes `cvm`; `radius.1se` is the one-standard-error choice: the
#' smallest radius (the most regularized fit) whose `cvm` is within one
#' `cvsd` (taken at `radius.min`) of the minimum.
#'
#' The default radii are `nradius` values log-spaced from `ratio` times
#' \eqn{r_{\max}}{r_max} up to \eqn{r_{\max}}{r_max}, the l1 norm of the
#' least-squares solution on all rows: at larger radii the constraint does
#' not bind (glmnet's \eqn{\lambda = 0}{lambda = 0}). When it is not unique
#' (\eqn{n \le p}{n <= p}, or \eqn{X^\top X}{X'X} singular) a ridge solution
#' with penalty \eqn{0.01\,\mathrm{mean}(\mathrm{diag}(X^\top X))}{0.01
#' mean(diag(X'X))} stands in for it (by conjugate gradients on the
#' \eqn{n \times n}{n x n} system when \eqn{n^2 p > 10^9}{n^2 p > 1e9}), and when both \eqn{n}{n} and \eqn{p}{p}
#' exceed 2000 that of a design with a diagonal Gram matrix,
#' \eqn{\sum_j |x_j^\top y| / \|x_j\|^2}{sum_j |x_j'y| / ||x_j||^2}. On the
#' data of `inst/bench/cv_regression.R` glmnet's one-SE choices lie at 2%
#' (stock returns) and 4% (Boston with interactions) of
#' \eqn{r_{\max}}{r_max}, inside the default range, whose steps of 17%
#' resolve the CV curve (see the benchmark).
#'
#' The default grid also starts with radius 0, the null model (glmnet's
#' \eqn{\lambda_{\max}}{lambda_max} fit): every coefficient 0 and, with
#' `intercept = TRUE`, the intercept fitted (each fold's: the weighted mean
#' of its training rows' `y` on the link scale; see `sparse_regression(X,
#' y, radius = 0)`), scored on the held-out rows as the other radii. On
#' data without signal it is the minimum or within one SE of it, and
#' `radius.min` / `radius.1se` are then 0: on a median split of an
#' `spls::mice` trait (42 rows, 145 markers) the smallest positive radius
#' kept 2 markers (test deviance 1.393) where cv.glmnet, and now this CV,
#' keeps none (1.386; `inst/bench/results/cv_nullmodel.md`). Its row is
#' added to the others, whose numbers do not change; it is left out with
#' unpenalized columns (a `penalty.factor` of 0, which radius 0 does not
#' remove) and with `options(stochcg.cv_null = FALSE)`. `plot()` draws it
#' one grid step left of the smallest positive radius, labelled 0.
#'
#' Along the default radii, the choice is refined where the grid is too
#' coarse for it: when the CV error falls by more than one standard error
#' (that at the minimum) from the radius before the one-SE choice to it,
#' the curve falls from above the one-SE band into it within one step of
#' the grid, and the choice is the first radius past a steep part of the
#' curve. At \eqn{n \gg p}{n >> p} that is the elbow where the
#' noise variables enter the path (a simulated 4000 x 500 design with 10
#' true coefficients: 19 nonzeros at radius 26.4, 216 at the next radius,
#' 30.9, the one-SE choice; cv.glmnet's one-SE fit has 24). Four radii
#' log-spaced between the two are then fitted (the full-data path and
#' each fold's path warm-started from its own fit at the smaller one;
#' `options(stochcg.cv_refine_warm = FALSE)` starts the folds' paths from
#' zero instead: the refined rows' fits differ within `tol`, the
#' choices were identical on 17 designs) and the choice made again, up to twice (steps of 3.2%, then
#' 0.6%): there the one-SE fit has 24 nonzeros. `cv` and `path` hold the
#' added radii (so more than `nradius` rows); the grid's own rows are
#' those of the plain grid. `options(stochcg.cv_refine = FALSE)` turns the
#' refinement off; given radii are never refined. Before and after, with
#' cv.glmnet, on simulated and real designs:
#' `inst/bench/results/cv_regression_grid.md`.
#'
#' Along the default radii the folds and the full-data path advance five
#' radii at a time while the CV minimum is at the last radius (three, what
#' the rule below needs, on designs of at least \eqn{10^6}{1e6} entries,
#' where a fit costs more than a piece's set-up), and past it
#' only by the radii the stopping rule still needs; they stop once the CV
#' error has stayed above its minimum plus one standard error for the last
#' three radii (as glmnet ends its path early): the weakly constrained fits
#' past the minimum are the slowest and do not change `radius.min` or
#' `radius.1se`. As glmnet's, a path along
#' the default radii also ends after its first fit that explains more than
#' 99.9% of the variance of its `y` (objective at most \eqn{10^{-3}}{1e-3}
#' times that at \eqn{\beta = 0}{beta = 0}; for `"binomial"` and
#' `"poisson"` 99.9% of the null deviance, glmnet's rule for them: with
#' separable classes the deviance falls to zero along the radius, and the
#' CV error with it): the full-data path's end is the
#' grid's, and a fold whose path ended stands for the larger radii with its
#' last fit (as cv.glmnet predicts with a fold's last fit past the end of its
#' path). At \eqn{p \gg n}{p >> n} those radii interpolate or nearly: their
#' fits are the hardest and the CV error there is past its minimum. Given
#' radii are all fitted.
#' With `"pfw"` each piece of a fold's path is one solver call (see the
#' "Paths" of [sparse_regression()]), and with \eqn{p \le 2000}{p <= 2000}
#' and \eqn{p}{p} at most the training rows the fits of a fold share its
#' \eqn{X^\top X/n}{X'X / n}, computed once from the full data's less the
#' held-out rows' (centred by the training rows' means with an intercept).
#'
#' The curve is over the radius, cv.glmnet's over \eqn{\lambda}{lambda}:
#' its fold fits at one \eqn{\lambda}{lambda} have l1 norms that differ
#' from fold to fold and from the full-data fit's, so its curve, placed at
#' the full-data fit's l1 norms, is not ours (on the Boston data of the
#' benchmark, 2% (0.14 SE) above it at our one-SE choice, and its one-SE
#' edge at radius 37.7 where ours is at 36.2) although the fits agree (glmnet's
#' fold solutions at our radii give our curve).
#'
#' An interrupt (Ctrl-C) stops the cross-validation with an error of class
#' `cg_cv_interrupt`, whose element `partial` holds what was done: the
#' held-out losses of the finished folds (a radii x folds matrix, `NA`
#' where not done), the fold ids and, once fitted, the full-data path.
#'
#' @param X,y As in [sparse_regression()].
#' @param family,weights,standardize,penalty.factor As in
#'   [sparse_regression()]. Each fold's problem is made from its training
#'   rows alone (their means, standard deviations, and weights rescaled to
#'   their count), as cv.glmnet's fold fits standardize on theirs; the
#'   held-out loss is the weighted mean squared error (`"gaussian"`) or
#'   the weighted mean deviance (`"binomial"`, `"poisson"`) of the
#'   predicted means, and the default radii are on the radius' scale
#'   (standardized, with the penalty factors): for `"binomial"` and
#'   `"poisson"` \eqn{r_{\max}}{r_max} is the l1 norm of one Newton step
#'   from the intercept-only model, in place of the least-squares solution.
#'   That step takes the null model's variance (1/4 for the binomial), far
#'   above the fitted one's when the signal is strong, so its l1 norm can lie
#'   well below the unpenalized fit's (binomial 1600 x 100 with 10
#'   coefficients of sd 2 on the logit: 5.85 against 27.2) and below the CV
#'   minimum. For these families the default grid therefore goes on upward
#'   in its own log spacing, five radii at a time (at most 30 more), while
#'   the CV minimum is at its largest radius, until a path ends by the
#'   deviance rule (see Details); the grid's own radii and their CV errors
#'   are unchanged. `options(stochcg.cv_extend = FALSE)` turns
#'   this off (the grid before: on that design a one-SE choice of 8
#'   nonzeros and test deviance 0.58 where cv.glmnet's had 22 and 0.51; with
#'   it 39 and 0.50; see `inst/bench/results/cv_glm.md`).
#' @param type.measure The held-out loss: `"deviance"` (the default: the
#'   mean squared error for `"gaussian"`) or, for `"binomial"`, `"class"`,
#'   the misclassification rate of the predicted class (probability above
#'   1/2), as cv.glmnet's. The deviance is the smoother criterion.
#' @param intercept Fit an unpenalized intercept (the default), as
#'   [sparse_regression()]: each fold's fits centre `X` and `y` by the
#'   means of the fold's training rows (never the held-out rows'), and the
#'   default radii are those of the centred data.
#' @param radius The radii to choose from (positive numbers, at least two),
#'   or `NULL` for the default sequence (see Details; it starts with radius
#'   0, the null model).
#' @param folds The number of folds (at least 2; rows are assigned at random
#'   with [sample()], balanced, so `set.seed()` reproduces them), or a fold
#'   id per row (values \eqn{1, \dots, K}{1, ..., K}, each used), as
#'   cv.glmnet's `foldid`.
#' @param nradius,ratio Length and smallest-to-largest ratio of the default
#'   radius sequence (see Details; the refinement at the one-SE edge may add
#'   up to 8 radii).
#' @param ... Further arguments of [sparse_regression()] (e.g. `method`,
#'   `batch_size`); not `init`.
#' @param control Solver settings from [cg_control()] for every fit;
#'   `progress = TRUE` (or `verbose = TRUE`) gives a message per fold.
#' @returns An object of class `cg_cv`: a list with
#' \describe{
#'   \item{`cv`}{Data frame with one row per radius: `radius`, `cvm` (mean
#'     held-out loss), `cvsd` (its standard error), `cvlo`, `cvup`
#'     (`cvm -/+ cvsd`), `nonzero` (nonzero coefficients of the full-data
#'     fit) and `converged` (every fit at this radius, folds and full data,
#'     reached `tol`).}
#'   \item{`radius.min`, `radius.1se`}{The chosen radii (see Details).}
#'   \item{`index`}{Their positions in `cv` and `path`: `c(min = , "1se" = )`.}
#'   \item{`path`}{The [cg_path] of fits on all the data.}
#'   \item{`fit`}{The full-data fit at `radius.1se`.}
#'   \item{`foldid`, `folds`}{The fold of each row, the number of folds.}
#'   \item{`fold_loss`}{Radii x folds matrix of mean held-out losses.}
#'   \item{`loss`}{Name of the loss, `"mean squared error"`,
#'     `"binomial deviance"`, `"Poisson deviance"` or
#'     `"misclassification error"`.}
#'   \item{`problem`, `tol`, `time`, `call`}{The problem name, the
#'     `control$tol` of the fits, seconds of the whole call, the call.}
#' }
#' `plot()` draws the CV curve, `predict()` and `coef()` use the fit at
#' `radius.1se` (or `s = "radius.min"`).
#' @seealso [plot.cg_cv()], [predict.cg_cv()], [sparse_regression()],
#'   [cv_complete_matrix()].
#' @examples
#' set.seed(1)
#' n <- 200; p <- 30
#' X <- matrix(rnorm(n * p), n, p)
#' y <- drop(X[, 1:4] %*% c(3, -2, 1.5, 1) + rnorm(n))
#' cvfit <- cv_sparse_regression(X, y, folds = 5, nradius = 12)
#' cvfit
#' round(coef(cvfit)[1:6], 3)             # at radius.1se
#' plot(cvfit)
#' predict(cvfit, X[1:3, ], s = "radius.min")
#' @export
cv_sparse_regression <- function(X, y, radius = NULL, folds = 10L, nradius = 30L,
                                 ratio = 0.01, ..., family = c("gaussian", "binomial", "poisson"),
                                 weights = NULL, standardize = TRUE, penalty.factor = NULL,
                                 type.measure = c("deviance", "class"),
                                 intercept = TRUE, control = cg_control()) {
  started <- wall_clock()
  call <- match.call()
  # ---- error checking
  X <- check_design(X, "X")
  n <- nrow(X)
  if (n < 2L || ncol(X) < 1L) stop_arg("X", "must have at least two rows and one column")
  family <- match_choice(family, regression_families, "family")
  type.measure <- match_choice(type.measure, c("deviance", "class"), "type.measure")
  if (type.measure == "class" && family != "binomial")
    stop_arg("type.measure", "= \"class\" is for family = \"binomial\"")
  w <- check_obs_weights(weights, n)
  y <- check_response(y, family, n, w)
  pf <- check_penalty_factor(penalty.factor, ncol(X))
  check_flag(standardize, "standardize")
  dots <- list(...)
  if ("init" %in% names(dots)) stop_arg("init", "is not used by cross-validation (the path warm-starts itself)")
  check_flag(intercept, "intercept")
  control <- check_cv_control(control)
  foldid <- make_folds(folds, n)
  method <- match_choice(dots$method %||% "pfw", c("pfw", "sfw", "fw", "spg"), "method")
  # the problem on all rows: its default radii, on the radius' scale
  # (standardized, weighted, penalty factors), and whether the folds need
  # their own preparation (anything but plain least squares)
  prep <- regression_prepare(X, y, family, w, standardize, pf, intercept, method)
  plain <- prep$kind == "none"
  default_grid <- is.null(radius)
  # binomial, poisson: the top of the default grid, one Newton step from the
  # null model, can lie below the CV minimum: the grid goes on upward while
  # the minimum is at its largest radius, and paths end as glmnet's
  extend_grid <- default_grid && family != "gaussian" && !isFALSE(getOption("stochcg.cv_extend"))
  # X'X of all the rows, once, where both the default radii (the
  # least-squares l1 norm, n > p) and the folds' Gram matrices (the full
  # data's less the held-out rows') need it: computed twice it was 11% of a
  # CV at 4000 x 500 (the same numbers either way)
  XtX <- NULL
  if (default_grid) {
    check_count(nradius, "nradius", min = 2)
    check_number(ratio, "ratio", min = 0, max = 1, strict_min = TRUE)
    if (plain && is.matrix(X) && nrow(X) > ncol(X) &&
        shares_gram(method, dots$gram, ncol(X), nrow(X) * (max(foldid) - 1) / max(foldid)))
      XtX <- dense_crossprod(X)
    radius <- if (plain) default_regression_radii(X, y, nradius, ratio, intercept, XtX)
              else prepared_radii(prep, nradius, ratio)
  } else {
    if (length(radius) < 2L) stop_arg("radius", "must hold at least two values to choose from")
    radius <- check_radii(radius)
  }

  if (prep$kind %in% c("none", "scale")) {
    # least squares with column scales (standardize, penalty factors):
    # each fold's data kept scaled by the sds of its training rows, so that
    # every group of radii reuses them (scaling a copy of X per group took
    # 14% of a CV at 200 x 2000)
    data_of <- fold_data(X, y, dots, max(foldid), intercept,
                         if (!plain) list(standardize = standardize, pf = pf), full = XtX)
    on.exit(fold_data_release(data_of), add = TRUE)
    fit_rows <- function(rows, radius, init = NULL) {
      d <- data_of(rows)        # centred by the means of the training rows
      ctl <- quiet_control(control)
      # along the default grid a path ends as glmnet's: after the first fit
      # that explains more than 99.9% of the variance of its y (the full
      # data's: the folds fit the radii up to it; a fold's: its last fit
      # stands for the larger radii, cv_radius())
      if (default_grid) attr(ctl, "path_stop_ratio") <- 1e-3
      # a fold's "pfw" path keeps per fit only what the CV reads (its
      # loss, status and the next piece's warm start: regression_core(),
      # lean_fit); the full-data path's fits are whole
      if (!is.null(rows) && !isFALSE(getOption("stochcg.lean_cv")))
        attr(ctl, "lean_path") <- TRUE
      # (the data made by fold_data() from the checked X, and its fingerprint)
      attr(ctl, "data_fingerprint") <- d$fingerprint
      # least squares with column scales: those of the training rows
      if (!plain)
        return(scaled_fold_path(d, pf, standardize, colnames(X), radius, init,
                                c(dots, list(control = ctl)), sd = d$sd, scaled = TRUE))
      args <- c(list(X = d$X, y = d$y, intercept = d$intercept, standardize = FALSE,
                     control = ctl), dots)
      args$gram <- d$gram
      # several radii: sparse_regression()'s path ("pfw": one solver call);
      # so is a fold's piece of one radius warm-started from its previous
      # piece (regression_core(): lean, as the longer pieces)
      if (length(radius) > 1L ||
          (isTRUE(attr(ctl, "lean_path")) && !is.null(init) && is_pfw(dots$method %||% "pfw"))) {
        # (a fold's centred data: straight to regression_core(), where
        # sparse_regression() and regression_fit() send it, without their
        # per-call checks: 4% of a CV at 66 x 2307)
        if (!is.null(rows) && inherits(d$intercept, "regression_centring"))
          return(do.call(regression_core, c(args[names(args) != "standardize"],
                                            list(radius = radius, init = init)), quote = TRUE))
        return(do.call(sparse_regression, c(args, list(radius = radius, init = init))))
      }
      fit_path(sparse_regression, args, radius, init)
    }
  } else {
    # each fold's problem prepared from its training rows alone (their
    # means, standard deviations, weights rescaled to their count), as
    # cv.glmnet's fold fits standardize on theirs
    solver <- c(dots, list(control = quiet_control(control)))
    # (binomial, poisson: the control as every fit's glm_control() checks
    # it, once)
    if (prep$kind == "glm")
      attr(solver$control, "checked") <- as_control(solver$control, max_iter = 1e5)
    # each fold's prepared problem made once and kept for every piece of
    # the grid while K + 1 copies of X fit in 1 GB (made again per piece,
    # its rows of X, moments and fingerprint were two thirds of a binomial
    # CV's allocation on Colon)
    memo <- list()
    keep <- (max(foldid) + 1) * as.numeric(utils::object.size(X)) <= 2^30
    # a kept fold's rows of a dense X copied outside R's heap, as
    # fold_data()'s (src/regression_data.c, cg_fold_real: the same numbers
    # and attributes as X[rows, , drop = FALSE]), in the process that made
    # the memo (a future's worker copies in R), freed when the CV ends: made
    # by R, the ten copies set off a full collection (~0.17 s) every few
    # CVs run one after the other at p >> n (mean GC per CV 0.056 -> 0.008
    # s at binomial 200 x 2000; the same numbers; cv_glm_glmover.md)
    here <- fold_copies_external()
    fold_x <- function(rows) {
      if (keep && is.matrix(X) && is.double(X) && here())
        .Call(C_cg_centred_rows, X, as.integer(rows), FALSE, NULL, TRUE)$X
      else X[rows, , drop = FALSE]
    }
    on.exit(for (m in memo) .Call(C_cg_fold_release, m$X), add = TRUE)
    fold_prep <- function(rows) {
      for (m in memo) if (identical(m$rows, rows)) return(m$prep)
      wr <- if (is.null(w)) NULL else check_obs_weights(w[rows], length(rows))
      Xr <- fold_x(rows)
      pr <- regression_prepare(Xr, y[rows], family, wr, standardize, pf, intercept, method)
      if (keep) memo[[length(memo) + 1L]] <<- list(rows = rows, prep = pr, X = Xr)
      pr
    }
    fit_rows <- function(rows, radius, init = NULL) {
      pr <- if (is.null(rows)) prep else fold_prep(rows)
      # (a fold's glm path: lean fits, glm_path())
      if (!is.null(rows) && !isFALSE(getOption("stochcg.lean_cv")))
        attr(solver$control, "lean_path") <- TRUE
      # along the default grid a binomial or Poisson path ends as glmnet's:
      # after the first fit that explains more than 99.9% of the null
      # deviance (separable classes, p >> n: the deviance falls to zero
      # along the radius, the CV minimum at the top however far the grid
      # goes), as the least squares' paths above
      if (extend_grid) attr(solver$control, "path_stop_ratio") <- 1e-3
      if (length(radius) > 1L) return(prepared_fit(pr, radius, init, solver, NULL))
      fit_path(function(radius, init) prepared_fit(pr, radius, init, solver, NULL),
               list(), radius, init)
    }
  }
  # held-out loss: (weighted) mean squared error or deviance of the mean,
  # or the misclassification rate (probability above 1/2: class 1)
  dev <- if (type.measure == "class") function(y, mu) as.double((mu > 0.5) != (y == 1))
         else heldout_loss(family)
  # (each fold's held-out rows of X taken once, not per piece of the grid:
  # 9% of a CV at 40 x 1999)
  held <- list()
  keep_held <- as.numeric(utils::object.size(X)) <= 2^30
  loss_rows <- function(path, rows) {
    key <- as.character(rows[1L])
    h <- held[[key]]
    Xt <- if (!is.null(h) && identical(h$rows, rows)) h$X else X[rows, , drop = FALSE]
    if (keep_held && is.null(h)) held[[key]] <<- list(rows = rows, X = Xt)
    m <- length(path$fits)
    if (!m) return(numeric(0))
    nt <- length(rows)
    wt <- if (is.null(w)) rep(1, nt) else w[rows]
    # the fits' held-out means side by side (predict()'s numbers without
    # its checks of newx, the fold's rows of the checked X), their losses
    # in one call of dev() (per fit, with predict(), 13% of a Poisson CV
    # on MASS::epil): each fit's sum as it was
    mu <- unlist(lapply(path$fits, regression_predict, newx = Xt, type = "response"),
                 use.names = FALSE)
    d <- wt * dev(rep(y[rows], m), mu)
    sw <- sum(wt)
    vapply(seq_len(m), function(j) sum(d[(j - 1L) * nt + seq_len(nt)]) / sw, 0)
  }
  loss_name <- if (type.measure == "class") "misclassification error" else
    switch(family, gaussian = "mean squared error", binomial = "binomial deviance",
           poisson = "Poisson deviance")
  res <- cv_radius(fit_rows, loss_rows, foldid, radius, loss_name, "sparse_regression",
                   control, call, started, early_stop = default_grid,
                   fold_weights = cv_fold_weights(foldid, w),
                   refine = if (default_grid && !isFALSE(getOption("stochcg.cv_refine"))) 2L else 0L,
                   extend = if (extend_grid) 30L else 0L,
                   short_pieces = as.double(nrow(X)) * ncol(X) >= 1e6)
  # the default grid starts with radius 0, the null model (glmnet's
  # lambda_max), scored on the same folds in closed form; not with
  # unpenalized columns (penalty.factor 0), which radius 0 keeps
  if (default_grid && all(pf %||% 1 > 0) && !isFALSE(getOption("stochcg.cv_null")))
    res <- cv_with_null(res, y, w, family, intercept, foldid, dev)
  res$time <- wall_clock() - started
  res
}

# cv_sparse_regression()'s CV `res` with the null model (radius 0: every
# coefficient 0, the intercept fitted; null_regression_fit()) as its first
# row: each fold's null fit is the (weighted) mean of its training rows'
# y, scored on its held-out rows by `dev` as loss_rows() scores the others.
# The other rows, their cvm and cvsd, are res's as they were (the null
# row's numbers computed alone); the choices by one_se_rule() over all of
# them: they change only where the null model is the minimum or within one
# SE of it. res unchanged where a fold's null intercept is infinite
# (binomial training rows of one class, Poisson's all 0).
cv_with_null <- function(res, y, w, family, intercept, foldid, dev) {
  K <- res$folds
  L0 <- numeric(K)
  for (k in seq_len(K)) {
    tr <- foldid != k
    te <- !tr
    wt <- if (is.null(w)) rep(1, sum(tr)) else w[tr]
    mu <- if (intercept) sum(wt * y[tr]) / sum(wt)
          else switch(family, gaussian = 0, binomial = 0.5, poisson = 1)
    eta <- switch(family, gaussian = mu, binomial = stats::qlogis(mu), poisson = log(mu))
    if (!is.finite(eta)) return(res)
    wh <- if (is.null(w)) rep(1, sum(te)) else w[te]
    L0[k] <- sum(wh * dev(y[te], rep(mu, sum(te)))) / sum(wh)
  }
  fw <- if (is.null(w)) tabulate(foldid, K) else cv_fold_weights(foldid, w)
  cu <- cv_curve(matrix(L0, 1L), fw)
  fits <- res$path$fits
  null_fit <- null_regression_fit(fits[[1L]], y, w, family, intercept)
  if (is.null(null_fit)) return(res)
  row <- res$cv[1L, , drop = FALSE]
  row$radius <- 0
  row$cvm <- cu$cvm
  row$cvsd <- cu$cvsd
  row$cvlo <- cu$cvm - cu$cvsd
  row$cvup <- cu$cvm + cu$cvsd
  if (!is.null(row$nonzero)) row$nonzero <- 0L
  row$converged <- TRUE
  cv <- rbind(row, res$cv)
  rownames(cv) <- NULL
  s <- res$path$summary
  srow <- s[1L, , drop = FALSE]
  for (nm in names(srow)) srow[[nm]] <- switch(nm, radius = 0, objective = null_fit$objective,
                                              gap = 0, converged = TRUE, nonzero = 0L,
                                              l1_norm = 0, iterations = 0L, time = 0,
                                              NA)
  path <- res$path
  path$fits <- c(list(null_fit), fits)
  path$radius <- c(0, path$radius)
  path$summary <- rbind(srow, s)
  rownames(path$summary) <- NULL
  pick <- one_se_rule(cv$cvm, cv$cvsd)
  res$cv <- cv
  res$radius.min <- cv$radius[pick[["min"]]]
  res$radius.1se <- cv$radius[pick[["1se"]]]
  res$index <- pick
  res$path <- path
  res$fit <- path$fits[[pick[["1se"]]]]
  res$fold_loss <- rbind(L0, res$fold_loss)
  rownames(res$fold_loss) <- NULL
  res
}

#' Choose the nuclear-norm radius of a matrix completion by validation
#'
#' Chooses the radius of [complete_matrix()] by its held-out error along a
#' path of radii: by default (`folds = 1`) on one validation split, a
#' random `holdout` fraction (10%) of the observed entries set aside, as
#' softImpute users tune `lambda`; or by K-fold cross-validation (`folds =
#' K` or fold ids). The path is fitted in increasing order of the radius,
#' each fit warm-started from the previous one and stopped at the
#' certified relative duality gap `control$tol` (default \eqn{10^{-2}}{1e-2},
#' at most 200 iterations), with `method = "fw"` (the subspace refit of
#' [complete_matrix()]) unless another method is given. Held-out entries
#' are scored by the squared error (`family = "gaussian"`) or the deviance
#' (`"binomial"`, `"poisson"`) of the predicted mean.
#'
#' With one validation split the path stops once it has passed the minimum
#' of the held-out error: at the first radius (from the fifth) whose error
#' is above the minimum so far, or below it by less than 2% of the fall
#' since the first radius (the plateau of nearly interpolating fits, the
#' slowest ones); the fall is measured from the held-out error of the row
#' and column effects alone when that is lower than the first radius's (a
#' large mean left unfitted at the first radius would make any later fall
#' look small). Until the error has fallen by 2% of that starting error the
#' path has not begun to fit (the first radii of a small matrix move it by
#' a thousandth, up or down), and only a rise by 2% of it stops the path.
#' Each fit there stops when its gap is below `control$tol`
#' times the part of the loss that the low-rank term explains (the
#' objective of the effects alone minus the previous radius's objective,
#' relative to the latter; `control$tol` itself when that part is larger):
#' a gap relative to the objective alone would leave a warm start already
#' "converged" at the next radius where the objective is large and changes
#' little between radii (a weak signal, few entries). `radius.min` minimizes the held-out error; `radius.1se`
#' is the smallest radius whose error exceeds the minimum's by at most one
#' standard error of the mean per-entry difference between the two (the
#' radii are scored on the same entries, so the comparison is paired; `cvsd`
#' reports each mean's own standard error, which is much larger). The fits
#' on all entries are then made at `radius.1se` and `radius.min` only, each
#' warm-started from the validation fit at that radius: `path` holds those
#' one or two fits, and `rank` in `cv` is the validation fits' rank. With K
#' folds the curve, `radius.min` and `radius.1se` are computed as in
#' [cv_sparse_regression()] and the full-data path is fitted at every
#' radius, each fit to the relative gap `control$tol` (without the scaling
#' above: give a smaller `tol` on data with a weak signal).
#'
#' The default radii are `nradius` values log-spaced from `ratio` times
#' \eqn{r_{\max}}{r_max} to \eqn{r_{\max}}{r_max}, the analogue of
#' softImpute's `lambda0()`, each shifted up by \eqn{r_e}{r_e}:
#' \eqn{r_{\max}}{r_max} is the sum of the
#' \eqn{k = \min(30, \lfloor\min(m, n)/2\rfloor)}{k = min(30, floor(min(m,
#' n) / 2))} largest singular values of the matrix of observed values (zero
#' elsewhere, repeated cells averaged) after their mean, row means and
#' column means are removed; \eqn{r_e}{r_e} is the nuclear norm of the
#' part of those effects that `X` itself has to carry: mean, row and column
#' effects with `center = "none"`, row and column effects with `"mean"`,
#' none with `"both"` (\eqn{r_e = 0}{r_e = 0}). Without the shift an
#' uncentred matrix's grid ends below the radius its mean alone needs (a
#' mean of 7 on a 189 x 500 matrix has nuclear norm about 2000). On MovieLens
#' (`center = "both"`, \eqn{r_{\max} = 769}{r_max = 769}) the validation
#' minimum lies at \eqn{r_{\max}}{r_max}, on the 64 x 6830 NCI60 expression
#' matrix with 20% hidden (\eqn{r_{\max} = 2054}{r_max = 2054}) just above;
#' on small simulated low-rank matrices observed at half the cells, about
#' half of \eqn{r_{\max}}{r_max}; with fewer cells observed it can lie
#' above: while the minimum falls on the largest radius of the default
#' sequence, the sequence goes on upward in the same spacing, up to 15
#' more radii. For `"binomial"` the values are first put on the logit scale
#' (times 4, the slope of the logit at 1/2), for `"poisson"` on the log
#' scale (\eqn{\log(y + 1/2)}{log(y + 1/2)}).
#'
#' Cost: on 2 shared cores (load 6-8) the defaults took 11.1 s of CPU on the
#' NCI60 imputation and 11.1 s on MovieLens 100k, against 26.3 s and 31.4 s
#' for softImpute's tuning (12 lambdas from `lambda0()`, warm starts, a 10%
#' validation subset, `rank.max = 50`), at test RMSE 0.6463 and 0.8971
#' against 0.6474 and 0.8980 (`inst/bench/results/completion_tuning.md`).
#' On simulated rank-10 and rank-5 matrices with 10% of the cells observed
#' and noise they predict better (test RMSE 1.494, 1.166, 1.455 against
#' 1.554, 1.220, 1.515) but take longer: 15.8 s against 6.1 s (2000 x
#' 300), 26.7 s against 7.4 s (1000 x 1000), 11.7 s against 9.5 s (300 x
#' 3000). There the fits past the signal's nuclear norm have rank 84 to
#' 102 (the stated problem's solutions do: noise directions carry 40% of
#' the nuclear norm at the chosen radius), where softImpute stops at its
#' `rank.max`; each iteration's \eqn{O(|\Omega| k + \min(m, n) k^2)}{O(|Omega| k
#' + min(m, n) k^2)} refit work then dominates. `max_rank = 50` bounds that
#' work but did not save time: the capped fits cannot reach `tol` (their
#' gap certifies the uncapped problem) and run to `max_iter` (29.6 s on the
#' 2000 x 300 matrix, test RMSE 1.503; 23.6 s and 1.169 on the 1000 x
#' 1000). K-fold costs about K + 1
#' times one split. `max_time` bounds the whole call; `progress = TRUE` in
#' `control` prints a line per radius (rank, iterations, gap, held-out
#' error, seconds).
#'
#' @param Y Observed entries, as in [complete_matrix()].
#' @param radius The radii to choose from (positive numbers, at least two),
#'   or `NULL` for the default sequence (see Details).
#' @param folds `1` (default): one validation split of `holdout` of the
#'   entries (assigned at random with [sample()], so `set.seed()` reproduces
#'   it). Or the number of folds \eqn{K \ge 2}{K >= 2}, or a fold id per
#'   observed entry in the order of `complete_matrix(Y, ...)$obs`: K-fold
#'   cross-validation.
#' @param holdout The fraction of the observed entries held out when
#'   `folds = 1`.
#' @param nradius,ratio Length and smallest-to-largest ratio of the default
#'   radius sequence.
#' @param family,center,dims As in [complete_matrix()], but `center`
#'   defaults to `"both"` here: the row and column effects are fitted beside
#'   X (and added back by `predict()`), as softImpute users remove them
#'   before tuning `lambda`. On ratings the effects are most of the signal:
#'   with `"none"` (X carries the mean and the effects, [complete_matrix()]'s
#'   default problem) the MovieLens 100k validation path had not reached
#'   softImpute's RMSE after 150 s, where `"both"` matches it in 12 s; on
#'   expression matrices the two are within 1% (tissue, NCI60, Khan) or
#'   `"both"` is better (ALL: 0.4395 against 0.4418;
#'   `inst/bench/results/completion_newdata.md`). Refit with
#'   `complete_matrix(..., center = "both")` to reproduce the chosen fit.
#' @param ... Further arguments of [complete_matrix()] (e.g. `method`,
#'   default `"fw"` here, `batch_size`); not `init`, `box` or `lambda`.
#' @param max_rank `NULL` or the largest rank of every fit (see
#'   [complete_matrix()], "Subspace refit"): a cap, as softImpute's
#'   `rank.max`, when the useful rank is known to be small.
#' @param max_time Seconds for the whole call. On one validation split the
#'   path stops when they are used up, with a warning, and the choice is
#'   among the radii fitted (the fits on all entries are still made); with
#'   K folds the call stops with an error saying so.
#' @param control Solver settings from [cg_control()] for every fit; by
#'   default `max_iter = 200` and `tol = 1e-2` (relative duality gap: the
#'   held-out error no longer changes at that accuracy on the benchmark
#'   data). `progress = TRUE` prints a line per radius (one split) or per
#'   fold.
#' @returns An object of class `cg_cv`, as [cv_sparse_regression()], with a
#'   `rank` column in place of `nonzero`, `loss` `"mean squared error"` or
#'   `"mean deviance"`, and `foldid` per observed entry (for one split: 1
#'   for the held-out entries, 0 for the others; then also `holdout`, the
#'   fraction held out, and an `iterations` column per radius).
#' @seealso [plot.cg_cv()], [predict.cg_cv()], [complete_matrix()].
#' @examples
#' set.seed(1)
#' m <- 40; n <- 30
#' truth <- tcrossprod(matrix(rnorm(m * 2), m), matrix(rnorm(n * 2), n))
#' obs <- data.frame(row = sample(m, 600, TRUE), col = sample(n, 600, TRUE))
#' obs$value <- truth[cbind(obs$row, obs$col)] + rnorm(600, sd = 0.5)
#' # the defaults: one validation split of 10%, gap-stopped fw fits
#' cvfit <- cv_complete_matrix(obs)
#' cvfit
#' plot(cvfit)
#' predict(cvfit, data.frame(row = 1:3, col = 1:3))
#' truth[cbind(1:3, 1:3)]
#' # 4-fold cross-validation over 8 radii
#' cv4 <- cv_complete_matrix(obs, folds = 4, nradius = 8)
#' cv4$radius.1se
#' @export
cv_complete_matrix <- function(Y, radius = NULL, folds = 1L, holdout = 0.1, nradius = 15L,
                               ratio = 0.02, family = c("gaussian", "poisson", "binomial"),
                               center = c("both", "none", "mean"), dims = NULL, ...,
                               max_rank = NULL, max_time = Inf,
                               control = cg_control(max_iter = 200, tol = 1e-2)) {
  started <- wall_clock()
  call <- match.call()
  # ---- error checking
  family <- match_choice(family, c("gaussian", "poisson", "binomial"), "family")
  center <- match_choice(center, c("none", "mean", "both"), "center")
  dots <- list(...)
  bad <- intersect(names(dots), c("init", "box", "lambda"))
  if (length(bad))
    stop_arg(bad[1L], "is not available in cross-validation (the path warm-starts each ",
             "fit, and only the nuclear-ball problem has a radius path)")
  obs <- observed_entries(Y, dims)
  N <- length(obs$value)
  if (N < 2L) stop_arg("Y", "must have at least two observed entries")
  control <- check_cv_control(control)
  check_number(max_time, "max_time", min = 0, strict_min = TRUE, finite = FALSE)
  if (!is.null(max_rank)) check_count(max_rank, "max_rank", min = 1)
  if (is.null(dots$method)) dots$method <- "fw"
  if (!is.null(max_rank)) {
    if (dots$method != "fw")
      stop_arg("max_rank", "needs method = \"fw\" (the cap acts in its subspace refit)")
    dots$max_rank <- max_rank
  }
  holdout_mode <- is.numeric(folds) && length(folds) == 1L && !is.na(folds) && folds == 1
  if (holdout_mode) {
    check_number(holdout, "holdout", min = 0, max = 1, strict_min = TRUE)
    if (holdout >= 1) stop_arg("holdout", "must be a fraction below 1")
    n_val <- round(holdout * N)
    if (n_val < 1L || n_val >= N)
      stop_arg("holdout", "leaves no entry to validate on or to fit (", N, " observed entries)")
    foldid <- integer(N)
    foldid[sample.int(N, n_val)] <- 1L
  } else foldid <- make_folds(folds, N, "observed entry", "observed entries")
  extend <- 0L
  if (is.null(radius)) {
    check_count(nradius, "nradius", min = 2)
    check_number(ratio, "ratio", min = 0, max = 1, strict_min = TRUE)
    radius <- default_completion_radii(obs, family, center, nradius, ratio)
    extend <- 15L
  } else {
    if (length(radius) < 2L) stop_arg("radius", "must hold at least two values to choose from")
    radius <- check_radii(radius)
  }
  entries <- data.frame(row = obs$row, col = obs$col, value = obs$value)
  loss <- heldout_loss(family)
  if (holdout_mode)
    return(holdout_completion(entries, obs$dims, foldid, radius, extend, family, center,
                              dots, loss, control, max_time, call, started))

  # (on the clock of any process: the folds may run in others)
  deadline <- Sys.time() + (max_time - (wall_clock() - started))
  fit_entries <- function(rows, radius, init = NULL) {
    Ys <- if (is.null(rows)) entries else entries[rows, , drop = FALSE]
    ctl <- quiet_control(control)
    left <- as.numeric(difftime(deadline, Sys.time(), units = "secs"))
    if (left <= 0)
      stop(sprintf(paste("cv_complete_matrix: max_time (%s s) reached during the %d-fold",
                         "cross-validation; raise max_time, or use folds = 1 (one",
                         "validation split, which keeps the radii fitted so far)"),
                   format(max_time), max(foldid)), call. = FALSE)
    ctl$max_time <- min(ctl$max_time, left)
    fit_path(complete_matrix, c(list(Y = Ys, family = family, center = center,
                                     dims = obs$dims, control = ctl),
                                dots), radius, init)
  }
  loss_entries <- function(path, rows) {
    test <- entries[rows, , drop = FALSE]
    vapply(path$fits, function(f) mean(loss(test$value, predict(f, test, type = "response"))), 0)
  }
  cv_radius(fit_entries, loss_entries, foldid, radius,
            if (family == "gaussian") "mean squared error" else "mean deviance",
            "complete_matrix", control, call, started, extend = extend)
}

# ---- the engine ---------------------------------------------------------

# K-fold CV along `radius`: fit_units(rows, radius) fits a cg_path on the
# units `rows` (NULL: all), loss_units(path, rows) gives the mean held-out
# loss per radius on `rows`. Aggregation as cv.glmnet (cvcompute): per-fold
# means weighted by fold sizes, standard error sqrt(weighted variance /
# (K - 1)).
cv_radius <- function(fit_units, loss_units, foldid, radius, loss_name, problem, control,
                      call, started, early_stop = FALSE, extend = 0L, fold_weights = NULL,
                      refine = 0L, short_pieces = FALSE) {
  K <- max(foldid)
  progress <- isTRUE(control$progress) || isTRUE(control$verbose)
  fold_loss <- matrix(NA_real_, length(radius), K,
                      dimnames = list(NULL, paste0("fold", seq_len(K))))
  conv <- matrix(NA, length(radius), K + 1L)
  full <- NULL
  partial <- function() list(radius = radius, foldid = foldid, fold_loss = fold_loss,
                             path = full)
  interrupted <- function(where) {
    cond <- structure(class = c("cg_cv_interrupt", "error", "condition"),
                      list(message = sprintf(paste("cross-validation interrupted by the user",
                                                   "(%s); the condition's `partial` holds the",
                                                   "folds finished"), where),
                           call = NULL, partial = partial()))
    stop(cond)
  }
  run_path <- function(rows, r, init) run_units(fit_units, rows, r, init)
  # (the start on the clock of any process: the folds may run in others)
  since <- Sys.time() - (wall_clock() - started)
  w <- fold_weights %||% tabulate(foldid, K)
  curve <- function(L) cv_curve(L, w)
  # The radii in chunks, each path warm-started from its previous chunk's
  # last fit (one chunk: all radii). With early_stop (the default grid), the
  # radii past the CV minimum are left out once the CV error has stayed
  # above the minimum plus one standard error for 3 radii, as glmnet ends
  # its path early: the weakly constrained fits are the slowest.
  # With extend = E (a default grid): while the CV minimum is at the
  # largest radius, the grid goes on upward in its own log spacing, 5 radii
  # at a time, up to E more: a minimum at the grid's edge says the grid
  # stopped short (its top is a heuristic; the paths simply continue).
  chunks <- if (early_stop) pieces_of(seq_along(radius), 5L)
            else list(seq_along(radius))
  ratio_step <- radius[length(radius)] / radius[length(radius) - 1L]
  last <- vector("list", K)
  # With the refinement's folds warm-started (option stochcg.cv_refine_warm,
  # see below): each fold's fits at every radius, compact (cv_fit_keep())
  keep_fits <- refine > 0L && !isFALSE(getOption("stochcg.cv_refine_warm"))
  fold_fits <- vector("list", K)
  ended <- rep(FALSE, K)
  ended_at <- integer(K)
  done <- 0L
  ci <- 0L
  while (ci < length(chunks)) {
    ci <- ci + 1L
    idx <- chunks[[ci]]
    t_full <- wall_clock()
    part <- run_path(NULL, radius[idx], last_fit(full))
    if (!isTRUE(part$complete)) interrupted("fitting the path on all the data")
    # a path that ended itself (the regression's default grid: glmnet's
    # rule) is the last piece, and the folds fit its radii
    last_piece <- isTRUE(part$stopped)
    if (last_piece) {
      idx <- idx[seq_along(part$fits)]
      extend <- 0L
    }
    part$stopped <- NULL
    full <- path_join(full, part)
    conv[idx, K + 1L] <- part$summary$converged
    if (progress)
      message(sprintf("CV: path of %d radii on all the data in %.1f s", length(idx),
                      wall_clock() - t_full))
    # The folds' paths over this piece are independent of each other (each
    # warm-started from its own previous piece): map_tasks() runs them
    # where the user's future::plan() says, each with its own RNG stream
    # (the same results under every plan). Each path is warm-started along
    # its radii, so it is one task.
    todo <- which(!ended)
    paths <- map_tasks(lapply(todo, function(k) list(k = k, init = last[[k]])), cv_fold_path,
                       list(fit_units = fit_units, foldid = foldid, radius = radius[idx],
                            progress = progress, since = since),
                       label = function(i) sprintf("CV fold %d of %d", todo[i], K),
                       until = function(path) !isTRUE(path$complete))
    for (k in seq_len(K)) {
      if (ended[k]) {             # its path ended (see below): its last fit's loss
        fold_loss[idx, k] <- fold_loss[ended_at[k], k]
        conv[idx, k] <- conv[ended_at[k], k]
        next
      }
      test <- which(foldid == k)
      path <- paths[[match(k, todo)]]
      if (!isTRUE(path$complete)) interrupted(sprintf("fold %d of %d", k, K))
      fit_idx <- idx[seq_len(nrow(path$summary))]
      fold_loss[fit_idx, k] <- loss_units(path, test)
      conv[fit_idx, k] <- path$summary$converged
      if (keep_fits) fold_fits[[k]][fit_idx] <- lapply(path$fits, cv_fit_keep)
      # a fold's path that ended itself (the regression's default grid:
      # glmnet's rule) stands for the larger radii with its last fit, whose
      # predictions glmnet's CV uses past the end of a fold's path
      if (isTRUE(path$stopped)) {
        ended[k] <- TRUE
        ended_at[k] <- max(fit_idx)
        rest <- setdiff(idx, fit_idx)
        fold_loss[rest, k] <- fold_loss[ended_at[k], k]
        conv[rest, k] <- conv[ended_at[k], k]
      }
      last[k] <- list(last_fit(path))
    }
    done <- max(idx)
    cu <- curve(fold_loss[seq_len(done), , drop = FALSE])
    i <- which.min(cu$cvm)
    if (last_piece) break
    if (early_stop) {
      above <- cu$cvm > cu$cvm[i] + cu$cvsd[i]
      if (done - i >= 3L && all(above[(done - 2L):done])) break
      # past the minimum, the next piece holds only the radii the rule
      # still needs (3 above the minimum plus one SE in a row): the fits
      # past it are the slowest (at 1600 x 5000 the last 2 of a piece of 5
      # took 2/3 of the CV). With short_pieces also while the minimum is
      # at the piece's end, where pieces of 5 fitted up to 2 radii past
      # the stop (1600 x 5000: 11.0 -> 7.6 CPU s); on small designs a
      # piece's set-up outweighs a fit, so they keep pieces of 5.
      if ((i < done || short_pieces) && ci < length(chunks)) {
        trail <- if (i < done) match(FALSE, rev(above[seq_len(done)])) - 1L else 0L
        rest <- unlist(chunks[-seq_len(ci)], use.names = FALSE)
        need <- min(length(rest), max(1L, 3L - trail))
        chunks <- c(chunks[seq_len(ci)], list(rest[seq_len(need)]),
                    if (length(rest) > need) pieces_of(rest[-seq_len(need)], 5L))
      }
    }
    if (ci == length(chunks) && i == done && extend > 0L) {
      more <- radius[done] * ratio_step^seq_len(min(5L, extend))
      extend <- extend - length(more)
      chunks[[ci + 1L]] <- done + seq_along(more)
      radius <- c(radius, more)
      fold_loss <- rbind(fold_loss, matrix(NA_real_, length(more), K))
      conv <- rbind(conv, matrix(NA, length(more), K + 1L))
    }
  }
  keep <- seq_len(done)
  radius <- radius[keep]
  fold_loss <- fold_loss[keep, , drop = FALSE]
  conv <- conv[keep, , drop = FALSE]
  # With refine = R (a default grid): while the CV error falls by more than
  # one standard error (the minimum's) from the one-SE radius's next
  # smaller radius to it (the grid is coarser than the rule: the curve
  # falls from above the one-SE band into it in one step, as at n >> p
  # where the noise variables enter at the elbow of the path: the one-SE
  # choice is then the first radius past the elbow, far denser than the
  # fit at the elbow), 4 radii log-spaced between the
  # two are fitted (the full-data path warm-started from its fit at the
  # smaller one, and so each fold's path from its own fit there, kept by
  # cv_fit_keep(); with options(stochcg.cv_refine_warm = FALSE) the folds'
  # paths from zero, as before: 3-24% of a CV went to those cold paths),
  # up to R times.
  for (round in seq_len(refine)) {
    cu <- curve(fold_loss)
    pick <- one_se_rule(cu$cvm, cu$cvsd)
    j <- pick[["1se"]]
    se <- cu$cvsd[pick[["min"]]]
    if (j < 2L || !(cu$cvm[j - 1L] - cu$cvm[j] > se)) break
    new <- exp(seq(log(radius[j - 1L]), log(radius[j]), length.out = 6L))[2:5]
    part <- run_path(NULL, new, full$fits[[j - 1L]])
    if (!isTRUE(part$complete)) interrupted("fitting the path on all the data")
    m <- length(part$fits)
    if (m == 0L) break
    new <- new[seq_len(m)]
    part$stopped <- NULL
    before <- seq_len(j - 1L)
    L_new <- matrix(NA_real_, m, K)
    c_new <- matrix(NA, m, K + 1L)
    c_new[, K + 1L] <- part$summary$converged
    # folds whose path ended below radius[j]: their last fit stands for
    # the new radii as for the larger ones
    todo <- which(!ended | ended_at >= j)
    init_of <- function(k) if (keep_fits) cv_fit_restore(fold_fits[[k]][j - 1L][[1L]])
    paths <- map_tasks(lapply(todo, function(k) list(k = k, init = init_of(k))), cv_fold_path,
                       list(fit_units = fit_units, foldid = foldid, radius = new,
                            progress = progress, since = since),
                       label = function(i) sprintf("CV fold %d of %d (refining)", todo[i], K),
                       until = function(path) !isTRUE(path$complete))
    for (k in seq_len(K)) {
      if (!k %in% todo) {
        L_new[, k] <- fold_loss[ended_at[k], k]
        c_new[, k] <- conv[ended_at[k], k]
        if (keep_fits)                     # (its fits' indices move with the radii's)
          fold_fits[[k]] <- c(fold_fits[[k]][before], vector("list", m),
                              fold_fits[[k]][j:length(radius)])
        next
      }
      path <- paths[[match(k, todo)]]
      if (!isTRUE(path$complete)) interrupted(sprintf("fold %d of %d", k, K))
      f <- seq_len(nrow(path$summary))
      L_new[f, k] <- loss_units(path, which(foldid == k))
      c_new[f, k] <- path$summary$converged
      if (keep_fits) {                     # (the new fits, for the next round)
        kept <- vector("list", m)
        kept[f] <- lapply(path$fits, cv_fit_keep)
        fold_fits[[k]] <- c(fold_fits[[k]][before], kept,
                            fold_fits[[k]][j:length(radius)])
      }
      if (length(f) < m) {                 # (its path ended: its last fit)
        L_new[-f, k] <- L_new[length(f), k]
        c_new[-f, k] <- c_new[length(f), k]
      }
    }
    after <- j:length(radius)
    radius <- c(radius[before], new, radius[after])
    fold_loss <- rbind(fold_loss[before, , drop = FALSE], L_new, fold_loss[after, , drop = FALSE])
    conv <- rbind(conv[before, , drop = FALSE], c_new, conv[after, , drop = FALSE])
    full$fits <- c(full$fits[before], part$fits, full$fits[after])
    full$radius <- radius
    full$summary <- rbind(full$summary[before, , drop = FALSE], part$summary,
                          full$summary[after, , drop = FALSE])
    full$time <- full$time + part$time
    ended_at[ended_at >= j] <- ended_at[ended_at >= j] + m
  }
  cu <- curve(fold_loss)
  cvm <- cu$cvm; cvsd <- cu$cvsd
  cv <- data.frame(radius = radius, cvm = cvm, cvsd = cvsd, cvlo = cvm - cvsd,
                   cvup = cvm + cvsd)
  s <- full$summary
  if ("nonzero" %in% names(s)) cv$nonzero <- s$nonzero
  if ("rank" %in% names(s)) cv$rank <- s$rank
  cv$converged <- apply(conv, 1L, all)
  if (!all(is.finite(cvm)))
    stop("cross-validation failed: the held-out loss is not finite at radii ",
         paste(format(radius[!is.finite(cvm)], digits = 4), collapse = ", "),
         call. = FALSE)
  if (!all(cv$converged) && control$tol > 0)      # tol = 0: fixed iteration budgets
    warning(sprintf(paste("%d of %d fits did not reach tol (raise control$max_iter or",
                          "max_time); their held-out losses are used as they are"),
                    sum(!conv), length(conv)), call. = FALSE)
  pick <- one_se_rule(cvm, cvsd)
  structure(list(cv = cv, radius.min = radius[pick[["min"]]],
                 radius.1se = radius[pick[["1se"]]], index = pick, path = full,
                 fit = full$fits[[pick[["1se"]]]], foldid = foldid, folds = K,
                 fold_loss = fold_loss, loss = loss_name, problem = problem, tol = control$tol,
                 time = wall_clock() - started, call = call),
            class = "cg_cv")
}

# the vector i in consecutive pieces of `size` (the last shorter), as
# unname(split(i, ceiling(seq_along(i) / size))) without the factor split()
# makes of the piece numbers (2% of a Poisson CV on MASS::epil)
pieces_of <- function(i, size) {
  lapply(seq.int(1L, by = size, length.out = ceiling(length(i) / size)),
         function(s) i[s:min(s + size - 1L, length(i))])
}

# fit_units(rows, radius, init) with the warning of an interrupted path
# muffled (cv_radius() reports it as its own error)
run_units <- function(fit_units, rows, radius, init) {
  withCallingHandlers(
    fit_units(rows, radius, init),
    warning = function(w) if (grepl("^path interrupted by the user", conditionMessage(w)))
      invokeRestart("muffleWarning"))
}

# One fold's path over a piece of the radii, a task of map_tasks() in
# cv_radius(): fitted on the units outside fold task$k, from its previous
# piece's last fit; the progress message when complete
cv_fold_path <- function(task, fit_units, foldid, radius, progress, since) {
  t_fold <- wall_clock()
  path <- run_units(fit_units, which(foldid != task$k), radius, task$init)
  if (progress && isTRUE(path$complete))
    message(sprintf("CV fold %d of %d: %d fits in %.1f s (%.1f s so far)", task$k,
                    max(foldid), length(radius), wall_clock() - t_fold,
                    as.numeric(difftime(Sys.time(), since, units = "secs"))))
  path
}

# A fold's fit kept for the refinement's warm start (cv_radius()): without
# its solver state (the last fit of a piece keeps one: its working set and
# face factor, large at large supports); its coefficient vectors (beta, and
# theta on the scale of a prepared problem) longer than 64 as their
# nonzeros (src/regression_data.c cg_pack_nonzero: one pass, no p-long
# temporaries). Kept dense below 64 MB in all, every fold fit at every
# radius stayed alive for the whole CV: 24 MB at NCI60 (p = 6829,
# standardized: beta and theta), which set off the full collections that
# took half of the CV's first call in a session
# (cv_regression_lassostd.md). cv_fit_restore() gives back the fit with
# identical() coefficient vectors (a -0 is kept).
cv_fit_keep <- function(fit) {
  if (is.null(fit)) return(NULL)
  # (a lean fit has no state: left as it is, not copied)
  if (!is.null(fit$state)) fit$state <- NULL
  pack <- function(x) {
    if (!is.double(x) || !is.null(dim(x)) || length(x) <= 64L) return(x)
    v <- .Call(C_cg_pack_nonzero, x)
    if (is.null(v)) return(x)
    structure(list(n = length(x), i = v$i, x = v$x, names = names(x)), class = "cg_cv_packed")
  }
  fit$solution$beta <- pack(fit$solution$beta)
  if (!is.null(fit$theta)) fit$theta <- pack(fit$theta)
  fit
}
cv_fit_restore <- function(fit) {
  if (is.null(fit)) return(NULL)
  unpack <- function(v) {
    if (!inherits(v, "cg_cv_packed")) return(v)
    x <- double(v$n)
    x[v$i] <- v$x
    names(x) <- v$names
    x
  }
  fit$solution$beta <- unpack(fit$solution$beta)
  if (!is.null(fit$theta)) fit$theta <- unpack(fit$theta)
  fit
}

# the last fit of a path (the next piece's warm start), NULL if none
last_fit <- function(path) if (length(path$fits)) path$fits[[length(path$fits)]]

# Two consecutive pieces of one path (the second warm-started from the
# first's last fit) as one cg_path.
path_join <- function(a, b) {
  if (is.null(a)) return(b)
  a$fits <- c(a$fits, b$fits)
  a$radius <- c(a$radius, b$radius)
  a$summary <- rbind(a$summary, b$summary)
  a$complete <- a$complete && b$complete
  a$time <- a$time + b$time
  a
}

#' The one-standard-error rule
#'
#' Given a CV curve over models ordered from the simplest (most
#' regularized) to the most complex, returns the position of the minimum of
#' `cvm` and that of the simplest model whose `cvm` is within one standard
#' error of the minimum, \eqn{\mathrm{cvm} \le \mathrm{cvm}_{\min} +
#' \mathrm{cvsd}_{\min}}{cvm <= cvm[min] + cvsd[min]} (Hastie, Tibshirani
#' and Friedman 2009, sec. 7.10; cv.glmnet's `lambda.1se`). Ties at the
#' minimum go to the simplest model. Used by [cv_sparse_regression()] and
#' [cv_complete_matrix()], where the models are the radii in increasing
#' order.
#'
#' @param cvm Mean CV loss per model, simplest first.
#' @param cvsd Its standard error per model (same length).
#' @returns Integer vector `c(min = , "1se" = )`.
#' @examples
#' cvm <- c(5, 3, 2.2, 2.0, 2.1)
#' cvsd <- c(0.3, 0.3, 0.3, 0.3, 0.3)
#' one_se_rule(cvm, cvsd)   # min at 4; 3 is within 2.0 + 0.3
#' @export
one_se_rule <- function(cvm, cvsd) {
  if (!is.numeric(cvm) || length(cvm) < 1L || !any(is.finite(cvm)))
    stop_arg("cvm", "must be a numeric vector with a finite value")
  if (!is.numeric(cvsd) || length(cvsd) != length(cvm))
    stop_arg("cvsd", "must be a numeric vector of the length of `cvm` (", length(cvm), ")")
  ok <- is.finite(cvm)
  imin <- which(ok & cvm <= min(cvm[ok]))[1L]
  band <- cvm[imin] + if (is.finite(cvsd[imin])) cvsd[imin] else 0
  i1se <- which(ok & cvm <= band)[1L]
  c(min = imin, "1se" = i1se)
}

# ---- folds, controls, losses, default radii --------------------------------

# The data of a fold's fits, list(X, y, intercept, gram), from its training
# rows (NULL: all). Along the default grid each fold's path is fitted in
# pieces: its rows of X, and for "pfw" (p <= 2000, p <= rows) its X'X / n (which
# sparse_regression()'s path gives its fits, path_gram(); here the full
# data's minus the held-out rows', n p^2 flops for all the folds together),
# are made once and kept while the folds' copies fit in 1 GB (a copy and
# its centring cost 0.2 s at 1440 x 5000, a piece's fit often less), else
# made again for each piece. Other methods get the `gram` given. With an
# intercept the rows are centred by their own means (as sparse_regression()
# centres a path's data once: `intercept` is then the centring), and so is
# X'X / n. With `scale = list(standardize, pf)` (cv_sparse_regression()'s
# column scales) each fold's columns are scaled by cs = 1 / (pf sd), sd the
# standard deviations of its (centred) training rows (1 without
# standardize), and so is its X'X / n; d$sd holds them.
fold_data <- function(X, y, dots, K, intercept = FALSE, scale = NULL, full = NULL) {
  given <- dots$gram
  # (the training rows' number: about (K - 1) / K of n)
  share <- shares_gram(if (is.null(dots$method)) "pfw" else dots$method, given, ncol(X),
                       nrow(X) * (K - 1) / K)
  p <- ncol(X)
  bytes_x <- if (is.matrix(X)) 8 * length(X) else as.numeric(utils::object.size(X))
  keep <- (K + intercept) * (bytes_x + if (share) 8 * p^2 else 0) <= 2^30
  # the folds' kept copies of a dense X are made outside R's heap, in the
  # process that made this function (not in a future's worker, where no
  # fold_data_release() would free them), and freed by
  # fold_data_release() when the CV ends: made by R, they were what drove
  # its garbage collector (14-28% of a CV's CPU at n > p and on small p >> n
  # designs; cv_regression_lassokeep.md). The same numbers.
  here <- fold_copies_external()
  external <- function(rows) keep && !is.null(rows) && here()
  # X'X of all the rows (given, or computed at the first fold)
  memo <- list()
  make <- function(rows) {
    # the rows taken, centred (an intercept) and scaled (`scale`) in one
    # copy (regression_centring(): one pass of C for a dense X)
    sc <- NULL
    d <- if (intercept) {
      cen <- regression_centring(X, y, rows, scale, external(rows))
      sc <- cen$scales
      list(X = cen$X, y = cen$y, intercept = cen$centring)
    } else if (!is.null(scale) && !inherits(X, "Matrix")) {
      r <- .Call(C_cg_centred_rows, X, if (!is.null(rows)) as.integer(rows), FALSE, scale,
                 external(rows))
      sc <- r[c("sd", "cs")]
      list(X = r$X, y = if (is.null(rows)) y else y[rows], intercept = FALSE)
    } else {
      list(X = if (is.null(rows)) X else X[rows, , drop = FALSE],
           y = if (is.null(rows)) y else y[rows], intercept = FALSE)
    }
    gram <- given
    scaled_gram <- FALSE
    if (share) {
      xbar <- if (intercept) d$intercept$xbar
      # a dense fold's X'X / n in one matrix by C (the held-out rows' X'X
      # and the expressions below, the same numbers; they made five p x p
      # matrices and a copy of the held-out rows: a fifth of a CV's
      # allocation at 4000 x 500); NULL: not finite, the R expressions
      gram <- if (!is.null(rows) && is.matrix(X) && is.double(X) &&
                  (is.null(scale) || !is.null(sc)))
                .Call(C_cg_fold_gram, X, seq_len(nrow(X))[-rows], full, nrow(d$X), xbar,
                      if (!is.null(scale)) sc$cs, ref_blas())
      if (is.null(gram)) {
        XtX <- if (is.null(rows)) full
               else full - dense_crossprod(X[-rows, , drop = FALSE])
        gram <- regression_gram_from(XtX, nrow(d$X), xbar)
      } else scaled_gram <- !is.null(scale)
      # (made here from the fold's rows: regression_core() need not check
      # it against them)
      attr(gram, "stochcg_fold_gram") <- TRUE
      # and the fold's X'y / n, once (a dense X: d$X and d$y as the solver
      # gets them, scaled already): every piece of the fold's path gave the
      # solver's set-up a pass over the fold's rows for it (a fifth of the
      # solver's time at 4000 x 500; cg_regression_xty, the same numbers)
      if (is.matrix(d$X) && is.double(d$X) && (is.null(scale) || !is.null(sc)))
        attr(gram, "stochcg_fold_xty") <- .Call(C_cg_regression_xty, d$X, as.double(d$y))
    }
    d["gram"] <- list(gram)
    if (!is.null(scale)) {
      if (is.null(sc)) {              # a sparse X: scaled here (stays sparse)
        sd <- if (scale$standardize) column_moments(d$X, NULL)$sd else rep(1, ncol(d$X))
        sc <- list(sd = sd, cs = column_scale_factors(sd, scale$pf))
        d$X <- scale_columns(d$X, sc$cs)
      }
      if (is.matrix(d$gram) && !scaled_gram) d$gram <- d$gram * tcrossprod(sc$cs)
      d$sd <- sc$sd
    }
    # read by every piece's fits (their states' key): its fingerprint, taken
    # once (the pieces took it again: 13% of a CV at 40 x 1999). Passed
    # with the fits' control (fit_rows()), not as an attribute of d$X:
    # `attr<-` on a matrix held by two lists copied it, a copy per fold.
    # A fold's copy is made here from X and its rows alone, so the
    # fingerprint of X (taken once per CV) and of the rows tell the folds'
    # data apart as well as one of each copy did (10 passes over a
    # fold-sized copy: 5% of a CV at 4000 x 500); the full data's path,
    # returned to the user (a warm start for sparse_regression() there),
    # keeps the fingerprint of its centred data as sparse_regression()
    # takes it.
    d$fingerprint <- if (is.null(rows)) regression_fingerprint(d$X)
                     else c(-1, x_fingerprint(), fingerprint(as.integer(rows)))
    d
  }
  x_fp <- NULL
  x_fingerprint <- function() {
    if (is.null(x_fp)) x_fp <<- regression_fingerprint(X)
    x_fp
  }
  function(rows) {
    if (share && is.null(full)) full <<- dense_crossprod(X)
    for (m in memo) if (identical(m$rows, rows)) return(m$data)
    d <- make(rows)
    if (keep) memo[[length(memo) + 1L]] <<- list(rows = rows, data = d)
    d
  }
}

# A function telling whether a CV's kept fold copies of X go outside R's
# heap (cg_fold_real) where it is called: only in the process that made it
# (a future's worker copies in R, its copies never released by the CV's
# end), and not with options(stochcg.fold_external = FALSE).
fold_copies_external <- function() {
  pid <- Sys.getpid()
  function() Sys.getpid() == pid && !isFALSE(getOption("stochcg.fold_external"))
}

# Frees the fold copies outside R's heap that the function made by
# fold_data() holds (cg_fold_release(); anything else is left to R): the
# CV's end, on every path (cv_sparse_regression()'s on.exit).
fold_data_release <- function(data_of) {
  for (m in environment(data_of)$memo) .Call(C_cg_fold_release, m$data$X)
  invisible(NULL)
}

# X'X / n of n rows given their X'X (XtX), of the rows centred by their
# means xbar when given (an intercept)
regression_gram_from <- function(XtX, n, xbar = NULL) {
  G <- XtX / n
  if (!is.null(xbar)) G <- G - tcrossprod(xbar)
  G
}

# fold ids 1..K for n units: K given (balanced, random order by sample()),
# or a vector of ids
make_folds <- function(folds, n, unit = "row", units = paste0(unit, "s")) {
  if (!is.numeric(folds) || anyNA(folds))
    stop_arg("folds", "must be a number of folds or a vector of fold ids")
  if (length(folds) == 1L) {
    check_count(folds, "folds", min = 2)
    if (folds > n) stop_arg("folds", "must be at most the number of ", units, " (", n, ")")
    return(sample(rep_len(seq_len(folds), n)))
  }
  if (length(folds) != n)
    stop_arg("folds", "must have one fold id per ", unit, " (", n, "), not ",
             length(folds))
  if (any(folds != round(folds)) || any(folds < 1))
    stop_arg("folds", "ids must be whole numbers from 1")
  folds <- as.integer(folds)
  K <- max(folds)
  if (K < 2L) stop_arg("folds", "must have at least two folds")
  if (any(tabulate(folds, K) == 0L))
    stop_arg("folds", "ids must be 1, ..., K with every fold used (fold ",
             which(tabulate(folds, K) == 0L)[1L], " is empty)")
  folds
}

check_cv_control <- function(control) {
  if (!inherits(control, "cg_control")) stop_arg("control", "must be made by cg_control()")
  as_control(control, max_iter = NULL)     # the fits' tol; their max_iter their own
}

# the fits inside cross-validation print nothing; the engine reports per fold
quiet_control <- function(control) {
  control$progress <- FALSE
  control$verbose <- FALSE
  control
}

# mean held-out loss of the family, per entry: squared error or deviance
heldout_loss <- function(family) {
  switch(family,
    gaussian = function(y, mu) (y - mu)^2,
    binomial = function(y, mu) {
      mu <- pmin(pmax(mu, 1e-15), 1 - 1e-15)
      -2 * (y * log(mu) + (1 - y) * log(1 - mu))
    },
    poisson = function(y, mu) {
      # y log(y / mu), 0 where y is 0: ifelse()'s numbers, computed on the
      # entries y > 0 alone (ifelse() was 6% of a Poisson CV on MASS::epil)
      r <- numeric(length(y))
      pos <- which(y > 0)
      r[pos] <- y[pos] * log(y[pos] / mu[pos])
      2 * (r - (y - mu))
    })
}

# The CV curve from a radii x folds matrix L of per-fold mean held-out
# losses and the folds' weights w, as cv.glmnet's cvcompute: cvm the
# w-weighted mean over folds, cvsd sqrt(w-weighted variance / (K - 1)).
cv_curve <- function(L, w) {
  cvm <- drop(L %*% w) / sum(w)
  list(cvm = cvm, cvsd = sqrt(drop(((L - cvm)^2) %*% w) / sum(w) / (ncol(L) - 1)))
}

# the folds' weights: their observation weights' sums (cv.glmnet's
# tapply(weights, foldid, sum)), or NULL (their sizes) without weights
cv_fold_weights <- function(foldid, w) {
  if (is.null(w)) return(NULL)
  vapply(seq_len(max(foldid)), function(k) sum(w[foldid == k]), 0)
}

# log-spaced up to the l1 norm of the least-squares solution (see
# ?cv_sparse_regression), of the centred data with an intercept
default_regression_radii <- function(X, y, nradius = 30L, ratio = 0.01, intercept = FALSE,
                                     XtX = NULL) {
  top <- sum(abs(if (intercept) least_squares(X, y - mean(y), Matrix::colMeans(X), XtX)
                 else least_squares(X, y, XtX = XtX)))
  if (!is.finite(top) || top <= 0)
    stop_arg("radius", "has no default: X'y is zero (is `y` zero?); give the radii")
  top * exp(seq(log(ratio), 0, length.out = nradius))
}

# The least-squares coefficients, or where they are not unique (n <= p, or
# X'X singular) ridge coefficients with penalty 0.01 mean(diag(X'X)), by
# the p x p (n > p) or the n x n system; when both p and n exceed 2000, those of a
# design with a diagonal Gram matrix, (X'y)_j / ||x_j||^2 (one pass over X).
# With xbar, those of the centred X - 1 xbar' (y centred: Xc'y = X'y),
# without a centred copy of X. XtX: crossprod(X) when the caller has it.
least_squares <- function(X, y, xbar = NULL, XtX = NULL) {
  n <- nrow(X); p <- ncol(X)
  b <- as.vector(as.matrix(Matrix::crossprod(X, y)))
  if (!is.null(xbar)) {
    xbar <- as.double(xbar)
    b <- b - xbar * sum(y)
  }
  if (p <= 2000L && n > p) {
    # (the same numbers as crossprod(); dimnames do not matter here)
    G <- if (is.null(XtX)) dense_crossprod(X) else XtX
    if (!is.null(xbar)) G <- G - n * tcrossprod(xbar)
    R <- tryCatch(chol(G), error = function(e) NULL)
    if (!is.null(R) && min(diag(R)) > 1e-7 * max(diag(R)))
      return(backsolve(R, backsolve(R, b, transpose = TRUE)))
    return(solve(G + diag(0.01 * mean(diag(G)), p), b))
  }
  # n <= p: the same ridge coefficients by the smaller, n x n, system
  # (X'(XX' + l I)^-1 y = (X'X + l I)^-1 X'y; a 50 x 1999 design spent a
  # second on the p x p one)
  if (n <= 2000L && as.double(n)^2 * p > 1e9) {
    # XX' alone costs n^2 p flops (6 s of a CV at 1600 x 5000, longer than
    # cv.glmnet): the same system by conjugate gradients, two products
    # with X an iteration (43 iterations to 1e-6 there)
    a <- ridge_cg(X, y, xbar)
    if (!is.null(a)) {
      out <- as.vector(as.matrix(Matrix::crossprod(X, a)))
      return(if (is.null(xbar)) out else out - xbar * sum(a))
    }
  }
  if (n <= 2000L) {
    # (the numbers of tcrossprod(); by C on the reference BLAS, cg_tcrossprod)
    K <- (if (is.matrix(X) && is.double(X) && ref_blas()) .Call(C_cg_tcrossprod, X)) %||%
      as.matrix(Matrix::tcrossprod(X))
    if (!is.null(xbar)) {            # Xc Xc' = XX' - u 1' - 1 u' + |xbar|^2, u = X xbar
      u <- as.vector(as.matrix(X %*% xbar))
      K <- K - outer(u, rep(1, n)) - outer(rep(1, n), u) + sum(xbar^2)
    }
    a <- solve(K + diag(0.01 * sum(diag(K)) / p, n), y)
    out <- as.vector(as.matrix(Matrix::crossprod(X, a)))
    return(if (is.null(xbar)) out else out - xbar * sum(a))
  }
  d <- Matrix::colSums(X^2)
  if (!is.null(xbar)) d <- d - n * xbar^2
  ifelse(d > 1e-12 * Matrix::colSums(X^2), b / d, 0)
}

# a of (Xc Xc' + l I) a = y with l = 0.01 tr(Xc Xc') / p, Xc = X - 1 xbar'
# (X itself without xbar), by conjugate gradients to a relative residual of
# 1e-10; NULL if 1000 iterations do not reach it
ridge_cg <- function(X, y, xbar = NULL) {
  n <- nrow(X); p <- ncol(X)
  xb <- if (is.null(xbar)) rep(0, p) else xbar
  lam <- 0.01 * (sum(Matrix::colSums(X^2)) - n * sum(xb^2)) / p
  # (a dense double X on the reference BLAS: both products by C, the same
  # numbers, cg_gemv; NULL from it, R's)
  fast <- is.matrix(X) && is.double(X) && ref_blas() && .Call(C_cg_blas_safe, X)
  mv <- function(v) {
    u <- (if (fast) .Call(C_cg_gemv, X, v, TRUE)) %||%
      as.vector(as.matrix(Matrix::crossprod(X, v)))
    u <- u - xb * sum(v)
    ((if (fast) .Call(C_cg_gemv, X, u, FALSE)) %||% as.vector(as.matrix(X %*% u))) -
      sum(xb * u) + lam * v
  }
  a <- numeric(n); r <- as.double(y); d <- r; rs <- sum(r^2); stop_at <- 1e-20 * rs
  for (it in seq_len(1000L)) {
    if (rs <= stop_at) return(a)
    Kd <- mv(d)
    al <- rs / sum(d * Kd)
    a <- a + al * d
    r <- r - al * Kd
    rn <- sum(r^2)
    d <- r + (rn / rs) * d
    rs <- rn
  }
  if (rs <= stop_at) a
}

# log-spaced over the nuclear norm of the observed matrix's top singular
# values after its additive effects, shifted up by the nuclear norm of the
# effects that X itself carries (see ?cv_complete_matrix)
default_completion_radii <- function(obs, family, center, nradius = 15L, ratio = 0.02) {
  z <- switch(family,
    gaussian = obs$value,
    binomial = 4 * (obs$value - mean(obs$value)),
    poisson = log(obs$value + 0.5))
  dims <- obs$dims
  mu <- if (family != "binomial") mean(z) else 0
  z <- z - mu
  # one pass of row means, then column means of what is left
  means <- function(z, idx, len) {
    e <- numeric(len)
    e[unique(idx)] <- rowsum(z, idx, reorder = FALSE) / tabulate(idx, len)[unique(idx)]
    e
  }
  ra <- means(z, obs$row, dims[1])
  z <- z - ra[obs$row]
  cb <- means(z, obs$col, dims[2])
  z <- z - cb[obs$col]
  # The effects X has to carry itself: mean, row and column effects with
  # center = "none", row and column effects with "mean", none with "both".
  # They are u 1' + 1 c' (rank 2): their nuclear norm from the 2 x 2
  # product of the factors' Gram matrices. Without this shift the grid of
  # an uncentred matrix ends below the radius its mean alone needs (a mean
  # of 7 on a 189 x 500 matrix: nuclear norm ~2000).
  u <- switch(center, none = mu + ra, mean = ra, both = numeric(dims[1]))
  cc <- if (center == "both") numeric(dims[2]) else cb
  A <- cbind(u, 1); B <- cbind(1, cc)
  ev <- eigen(crossprod(A) %*% crossprod(B), only.values = TRUE)$values
  offset <- sum(sqrt(pmax(Re(ev), 0)))
  M <- Matrix::sparseMatrix(i = obs$row, j = obs$col, x = z, dims = dims)  # repeats summed
  cnt <- Matrix::sparseMatrix(i = obs$row, j = obs$col, x = 1, dims = dims)
  M@x <- M@x / cnt@x                                                        # their mean
  k <- max(1L, min(30L, min(dims) %/% 2L))
  d <- if (min(dims) <= 50L) svd(as.matrix(M), nu = 0, nv = 0)$d[seq_len(k)] else
    tryCatch(RSpectra::svds(M, k, nu = 0, nv = 0)$d,
             error = function(e) svd(as.matrix(M), nu = 0, nv = 0)$d[seq_len(k)])
  r_max <- sum(d)
  if (!is.finite(r_max) || !is.finite(offset) || r_max + offset <= 0)
    stop_arg("radius", "has no default: the observed values are constant; give the radii")
  if (r_max <= 0) r_max <- offset          # purely additive values
  offset + r_max * exp(seq(log(ratio), 0, length.out = nradius))
}

# ---- methods ---------------------------------------------------------------

# position of the fit chosen by `s`: "radius.1se", "radius.min" or a radius
cv_choice <- function(object, s) {
  if (is.character(s)) {
    s <- match_choice(s, c("radius.1se", "radius.min"), "s")
    i <- object$index[[if (s == "radius.min") "min" else "1se"]]
    # a validation split keeps the fits on all entries at the two choices only
    if (length(object$path$fits) == nrow(object$cv)) return(i)
    return(path_index(object$path$radius, object$cv$radius[i], arg = "s"))
  }
  path_index(object$path$radius, s, arg = "s")
}

#' Print, plot and predict from a cross-validated fit
#'
#' Methods for the `cg_cv` objects of [cv_sparse_regression()] and
#' [cv_complete_matrix()]. `print()` shows the folds, the loss and the rows
#' of the CV table at `radius.min` and `radius.1se`; `summary()` the whole
#' table and the full-data fit at `radius.1se`. `plot()` draws the CV
#' curve, `cvm` with bars of plus and minus one `cvsd`, against the radius
#' (log scale), dashed vertical lines at `radius.min` and `radius.1se`, and
#' along the top the number of nonzero coefficients (regression) or the
#' rank (completion) of the full-data fit. `predict()` and `coef()` use the
#' full-data fit at `s`: by default `radius.1se`, as cv.glmnet.
#'
#' @param x,object A `cg_cv` object.
#' @param s `"radius.1se"` (default), `"radius.min"` or a radius of the path.
#' @param ... For `predict()`, the new data and arguments of the fit's
#'   method ([predict.sparse_regression_fit()],
#'   [predict.complete_matrix_fit()]); for `plot()`, graphical parameters.
#' @returns `print()` and `plot()` return `x` invisibly; `predict()` and
#'   `coef()` what the chosen fit's methods return.
#' @seealso [cv_sparse_regression()], [cv_complete_matrix()], [one_se_rule()].
#' @examples
#' set.seed(2)
#' X <- matrix(rnorm(120 * 15), 120, 15)
#' y <- drop(X[, 1:3] %*% c(2, -1, 1) + rnorm(120))
#' cvfit <- cv_sparse_regression(X, y, folds = 4, nradius = 10)
#' print(cvfit)
#' summary(cvfit)
#' plot(cvfit)
#' coef(cvfit, s = "radius.min")
#' predict(cvfit, X[1:2, ])
#' @method print cg_cv
#' @export
print.cg_cv <- function(x, ...) {
  cat(sprintf("%s: %s over %d radii, %s, %s s\n", fmt_problem(x$problem), cv_design(x),
              nrow(x$cv), x$loss, fmt_num(x$time, 3)))
  rows <- x$cv[x$index, setdiff(names(x$cv), c("cvlo", "cvup")), drop = FALSE]
  rownames(rows) <- c("radius.min", "radius.1se")
  print(rows, digits = 4)
  if (!all(x$cv$converged) && !identical(x$tol, 0))
    cat(sprintf("%d of %d radii have a fit that did not reach tol\n", sum(!x$cv$converged),
                nrow(x$cv)))
  invisible(x)
}

#' @rdname print.cg_cv
#' @method summary cg_cv
#' @export
summary.cg_cv <- function(object, ...) {
  structure(list(cv = object, fit = object$path$fits[[cv_choice(object, "radius.1se")]]),
            class = "summary.cg_cv")
}

#' @rdname print.cg_cv
#' @method print summary.cg_cv
#' @export
print.summary.cg_cv <- function(x, ...) {
  cv <- x$cv
  cat(sprintf("%s: %d-fold cross-validation over %d radii, %s, %s s\n",
              fmt_problem(cv$problem), cv$folds, nrow(cv$cv), cv$loss, fmt_num(cv$time, 3)))
  cat(sprintf("radius.min = %s, radius.1se = %s (the smallest radius within one SE of the minimum)\n\n",
              fmt_num(cv$radius.min, 4), fmt_num(cv$radius.1se, 4)))
  tab <- cv$cv[, setdiff(names(cv$cv), c("cvlo", "cvup")), drop = FALSE]
  mark <- ifelse(seq_len(nrow(tab)) == cv$index[["min"]], "min", "")
  mark[cv$index[["1se"]]] <- paste0(mark[cv$index[["1se"]]], if (nzchar(mark[cv$index[["1se"]]])) "," else "", "1se")
  tab$chosen <- mark
  print(tab, digits = 4, row.names = FALSE)
  if (!all(cv$cv$converged) && !identical(cv$tol, 0))
    cat(sprintf("%d of %d radii have a fit that did not reach tol\n", sum(!cv$cv$converged),
                nrow(cv$cv)))
  cat("\nThe full-data fit at radius.1se (what coef() and predict() use by default):\n")
  cat(fit_header(x$fit), sep = "\n")
  invisible(x)
}

#' @rdname print.cg_cv
#' @method plot cg_cv
#' @export
plot.cg_cv <- function(x, ...) {
  cv <- x$cv
  ok <- is.finite(cv$cvm)
  top <- if (!is.null(cv$nonzero)) cv$nonzero else cv$rank
  # radius 0 (the null model of cv_sparse_regression()'s default grid) has
  # no place on the log scale: drawn one grid step below the smallest
  # positive radius, its tick labelled 0
  r <- cv$radius
  zero <- r == 0
  at0 <- NULL
  if (any(zero)) {
    pos <- sort(r[!zero])
    at0 <- pos[1L] / if (length(pos) > 1L) pos[2L] / pos[1L] else 2
    r[zero] <- at0
  }
  chosen <- c(x$radius.min, x$radius.1se)
  if (!is.null(at0)) chosen[chosen == 0] <- at0
  draw_cv_curve(r[ok], cv$cvm[ok], cv$cvsd[ok],
                chosen = chosen, log = "x",
                top = if (!is.null(top)) top[ok],
                top_label = if (!is.null(cv$nonzero)) "nonzero" else "rank",
                xlab = "radius", ylab = x$loss,
                main = sprintf("%s: %s", fmt_problem(x$problem), cv_design(x)),
                ...)
  if (!is.null(at0)) axis(1, at = at0, labels = "0", cex.axis = 0.8)
  invisible(x)
}

#' @rdname print.cg_cv
#' @method predict cg_cv
#' @export
predict.cg_cv <- function(object, ..., s = "radius.1se") {
  predict(object$path$fits[[cv_choice(object, s)]], ...)
}

#' @rdname print.cg_cv
#' @method coef cg_cv
#' @export
coef.cg_cv <- function(object, s = "radius.1se", ...) {
  coef(object$path$fits[[cv_choice(object, s)]])
}

# "K-fold cross-validation", or the validation split of cv_complete_matrix()
cv_design <- function(x) {
  if (identical(x$folds, 1L))
    sprintf("validation on %s%% of the entries held out", format(100 * x$holdout, digits = 3))
  else sprintf("%d-fold cross-validation", x$folds)
}

# The CV curve: y with bars y -/+ se against x (points joined by lines),
# dashed vertical lines at `chosen`, and `top` (counts) along the top axis.
# Shared by plot.cg_cv() and sparse_covariance's plot_cv() (which draws one
# curve per gamma with add = TRUE and its own axes).
draw_cv_curve <- function(x, y, se, chosen = NULL, top = NULL, top_label = "",
                          add = FALSE, col = "black", dx = 0, log = "", ...) {
  se <- ifelse(is.finite(se), se, 0)
  if (!add) {
    args <- utils_modify(list(type = "n", log = log, ylim = range(c(y - se, y + se))),
                         list(...))
    do.call(plot, c(list(x, y), args))
  }
  o <- order(x)
  lines(x[o], y[o], type = "b", pch = 20, col = col)
  has_se <- se > 0
  xs <- if (log == "x") x * exp(dx) else x + dx
  if (any(has_se))
    segments(xs[has_se], (y - se)[has_se], xs[has_se], (y + se)[has_se], col = col)
  if (length(chosen)) abline(v = chosen[is.finite(chosen)], lty = 2)
  if (length(top)) {
    axis(3, at = x, labels = top, cex.axis = 0.7, mgp = c(3, 0.5, 0))
    if (nzchar(top_label))
      mtext(top_label, side = 3, line = 0.5, cex = 0.7, adj = 1.1,
            at = if (graphics::par("xlog")) 10^graphics::par("usr")[1L]
                 else graphics::par("usr")[1L])
  }
  invisible(NULL)
}

# ---- completion on one validation split -------------------------------

# cv_complete_matrix(folds = 1): the path over `radius` (increasing, each fit
# warm-started from the previous one, each stopping at control$tol or its
# budget) on the entries with foldid 0, scored on those with foldid 1; the
# path stops once the held-out loss has stayed above its minimum for 3
# radii (extend: while the minimum is at the top, up to `extend` more radii
# in the grid's spacing), or when max_time is reached. The standard error of
# the held-out loss is that of the mean of its per-entry losses. The fits
# on all entries are made at radius.1se and radius.min only, each
# warm-started from the validation fit at that radius.
holdout_completion <- function(entries, dims, foldid, radius, extend, family, center, dots,
                               loss, control, max_time, call, started) {
  progress <- isTRUE(control$progress) || isTRUE(control$verbose)
  train <- entries[foldid == 0L, , drop = FALSE]
  test <- entries[foldid == 1L, , drop = FALSE]
  quiet <- quiet_control(control)
  remaining <- function() max_time - (wall_clock() - started)
  fit_at <- function(Ys, r, init, budget, tol = quiet$tol) {
    ctl <- quiet
    ctl$max_time <- min(ctl$max_time, budget)
    ctl$tol <- tol
    do.call(complete_matrix, c(list(Y = Ys, radius = r, family = family, center = center,
                                    dims = dims, init = init, control = ctl), dots))
  }
  ratio_step <- if (length(radius) > 1L) radius[length(radius)] / radius[length(radius) - 1L]
                else 1.5
  fits <- list(); losses <- list(); cvm <- numeric(0); cvsd <- numeric(0)
  timed_out <- FALSE
  # The tolerance of each fit: control$tol times the part of the loss the
  # low-rank term explains, (f0 - f) / f, f0 the objective of the effects
  # alone (a fit at a negligible radius), f the previous radius's
  # objective. A relative gap of tol alone would leave the warm start from
  # the previous radius "converged" where the objective is large and
  # changes little from radius to radius (weak signal, few entries).
  ctl0 <- quiet
  ctl0$max_iter <- 1L
  ctl0$tol <- 0
  fit0 <- function(cen) do.call(complete_matrix, c(list(Y = train, radius = radius[1L] * 1e-9,
                                                        family = family, center = cen,
                                                        dims = dims, control = ctl0), dots))
  e0 <- fit0(center)
  f0 <- e0$objective
  # The plateau rule below measures the held-out loss's fall from that of
  # the row and column effects alone (X = 0 with center = "both"), or from
  # the first radius's if lower: with center = "none" a small first radius
  # leaves the values' mean unfitted, and a fall from there (57.5 to 0.09
  # on an uncentred expression matrix) would make any later fall look like
  # a plateau.
  if (center != "both")
    e0 <- tryCatch(fit0("both"), error = function(e) NULL)
  loss_effects <- if (is.null(e0)) Inf else
    mean(loss(test$value, predict(e0, test, type = "response")))
  tols <- numeric(0)
  k <- 0L
  while (k < length(radius)) {
    if (remaining() <= 0) { timed_out <- TRUE; break }
    k <- k + 1L
    t0 <- wall_clock()
    f_prev <- if (k > 1L) fits[[k - 1L]]$objective else f0
    explained <- if (k > 1L) max(f0 - f_prev, 0) / abs(f_prev) else 0.01
    tols[k] <- min(quiet$tol, quiet$tol * explained)
    f <- fit_at(train, radius[k], if (k > 1L) fits[[k - 1L]], remaining(), tols[k])
    if (identical(f$status, "interrupted"))
      stop(structure(class = c("cg_cv_interrupt", "error", "condition"),
                     list(message = sprintf(paste("cross-validation interrupted by the user",
                                                  "at radius %d; the condition's `partial`",
                                                  "holds the radii finished"), k),
                          call = NULL,
                          partial = list(radius = radius[seq_len(k - 1L)], foldid = foldid,
                                         cvm = cvm, fits = fits))))
    if (k > 1L) fits[[k - 1L]]$state <- NULL
    fits[[k]] <- f
    l <- loss(test$value, predict(f, test, type = "response"))
    losses[[k]] <- l
    cvm[k] <- mean(l)
    cvsd[k] <- stats::sd(l) / sqrt(length(l))
    if (progress)
      message(sprintf(paste("CV radius %d (%s): rank %d, %d iterations, gap %s (%s),",
                            "held-out %s %s, %.1f s (%.1f s so far)"),
                      k, format(radius[k], digits = 4), f$rank, f$iterations,
                      format(f$gap, digits = 2), f$status,
                      if (family == "gaussian") "MSE" else "deviance",
                      format(cvm[k], digits = 5), wall_clock() - t0, wall_clock() - started))
    # past the minimum: the held-out loss rose, or fell by less than 2% of
    # its fall so far below the effects' loss (the plateau of the nearly interpolating fits, which
    # are the slowest: on the simulated data of the benchmark one radius
    # past the plateau took 5 times as long as the whole path before it);
    # the curve of one warm-started path on one split is smooth, so one
    # such radius says it. Until the loss has fallen by 2% of that loss the
    # path has not begun to fit (the first radii of a small or weak-signal
    # matrix move it by 1e-3 of itself, up or down: scale(state.x77) with
    # 30% hidden stopped at its 5th radius on a rise of 1.5e-3, choosing a
    # rank-1 fit, RMSE 0.83 against 0.70 further on): then only a rise by
    # 2% of it ends the path.
    if (k >= 5L) {
      ref <- min(cvm[1L], loss_effects)
      fall <- max(ref - min(cvm[-k]), 0)
      if (if (fall >= 0.02 * ref) cvm[k] > min(cvm[-k]) - 0.02 * fall
          else cvm[k] > min(cvm[-k]) + 0.02 * ref) break
    }
    i <- which.min(cvm)
    if (k == length(radius) && i == k && extend > 0L) {
      radius <- c(radius, radius[k] * ratio_step)
      extend <- extend - 1L
    }
  }
  if (!length(fits))
    stop_arg("max_time", "was reached before the first fit finished; raise it")
  done <- length(fits)
  radius <- radius[seq_len(done)]
  if (timed_out || identical(fits[[done]]$status, "max_time"))
    warning(sprintf(paste("cv_complete_matrix: max_time (%s s) reached after %d radii",
                          "(largest %s); the choice is among the radii fitted, and",
                          "the fits on all entries were made after it"),
                    format(max_time), done, format(radius[done], digits = 4)),
            call. = FALSE)
  pick <- holdout_se_rule(cvm, losses)
  chosen <- sort(unique(pick))
  full <- lapply(chosen, function(i) {
    f <- fit_at(entries, radius[i], fits[[i]], max(remaining(), 0.1 * max_time), tols[i])
    f$state <- NULL
    f
  })
  path <- structure(list(fits = full, param = "radius", summary = path_summary(full),
                         problem = "complete_matrix", complete = TRUE,
                         time = sum(vapply(full, function(f) as.double(f$time), 0)),
                         call = call, radius = radius[chosen]),
                    class = "cg_path")
  conv <- vapply(fits, function(f) isTRUE(f$converged), NA)
  cv <- data.frame(radius = radius, cvm = cvm, cvsd = cvsd, cvlo = cvm - cvsd,
                   cvup = cvm + cvsd,
                   rank = vapply(fits, function(f) as.integer(f$rank), 0L),
                   iterations = vapply(fits, function(f) as.integer(f$iterations), 0L) -
                     c(0L, vapply(fits, function(f) as.integer(f$iterations), 0L))[seq_len(done)],
                   converged = conv)
  if (!all(is.finite(cvm)))
    stop("cross-validation failed: the held-out loss is not finite at radii ",
         paste(format(radius[!is.finite(cvm)], digits = 4), collapse = ", "), call. = FALSE)
  if (!all(conv) && control$tol > 0 && !timed_out)
    warning(sprintf(paste("%d of %d fits did not reach tol (raise control$max_iter or",
                          "max_time); their held-out losses are used as they are"),
                    sum(!conv), length(conv)), call. = FALSE)
  structure(list(cv = cv, radius.min = radius[pick[["min"]]],
                 radius.1se = radius[pick[["1se"]]], index = pick, path = path,
                 fit = full[[match(pick[["1se"]], chosen)]], foldid = foldid, folds = 1L,
                 holdout = mean(foldid == 1L),
                 fold_loss = matrix(cvm, ncol = 1L, dimnames = list(NULL, "holdout")),
                 loss = if (family == "gaussian") "mean squared error" else "mean deviance",
                 problem = "complete_matrix", tol = control$tol,
                 time = wall_clock() - started, call = call),
            class = "cg_cv")
}

# radius.min and radius.1se on one validation split: the losses of the
# radii are paired (the same held-out entries), so a radius is within one
# standard error of the minimum when its mean loss exceeds the minimum's by
# at most the standard error of the mean of the per-entry differences
# (the per-entry standard error of each mean, `cvsd`, is much larger and
# would choose radii far too small)
holdout_se_rule <- function(cvm, losses) {
  imin <- which.min(cvm)
  ok <- vapply(seq_along(cvm), function(k) {
    d <- losses[[k]] - losses[[imin]]
    mean(d) <= stats::sd(d) / sqrt(length(d)) || k == imin
  }, NA)
  c(min = imin, "1se" = which(ok)[1L])
}
