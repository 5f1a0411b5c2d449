# What glmnet users expect of sparse_regression(): families, observation
# weights, standardization and penalty factors (issue 25). Each case becomes
# a problem the solvers know, prepared once (for a path: once for all its
# radii), and the fits come back on the original scale:
#  - "none": gaussian, unweighted, no scaling: regression_core() as it is;
#  - "scale": gaussian, columns scaled (standardize, positive penalty
#    factors): regression_core() on X diag(cs) (a sparse X stays sparse);
#  - "project": gaussian with weights or unpenalized columns, X dense: the
#    rows scaled by sqrt(w), then X and y projected onto the complement of
#    the unpenalized columns [1, Z] (a QR), whose least squares the
#    projection minimizes out exactly: regression_core() without intercept;
#  - "glm": binomial and poisson, and gaussian with weights or unpenalized
#    columns on a sparse X: the pairwise Frank-Wolfe of src/prob_glm.c.
# In every case theta = pf * sd * beta (the penalized coefficients on the
# radius' scale) lies in the plain l1 ball, and the stated problem's
# objective and duality gap are those of the problem solved.

regression_families <- c("gaussian", "binomial", "poisson")

# the response of the family, as doubles (binomial: 0/1 from numbers,
# logicals or a two-level factor, the second level 1, as glmnet)
check_response <- function(y, family, n, w = NULL) {
  if (family == "binomial" && is.factor(y)) {
    lev <- levels(droplevels(y))
    if (length(lev) != 2L) stop_arg("y", "must have two classes for family = \"binomial\"")
    if (anyNA(y)) stop_arg("y", "contains NA")
    y <- as.double(y == lev[2L])
  }
  y <- check_vector(y, "y", n)
  pos <- if (is.null(w)) rep(TRUE, n) else w > 0
  if (family == "binomial") {
    if (any(y != 0 & y != 1))
      stop_arg("y", "must be 0 or 1 (or a two-level factor) for family = \"binomial\"")
    if (length(unique(y[pos])) < 2L)
      stop_arg("y", "must hold both classes (0 and 1) for family = \"binomial\"")
  } else if (family == "poisson") {
    if (any(y < 0)) stop_arg("y", "must be non-negative counts for family = \"poisson\"")
    if (all(y[pos] == 0)) stop_arg("y", "is zero everywhere: no Poisson fit exists")
  }
  y
}

# observation weights: NULL (all 1) or non-negative, rescaled to sum to n
check_obs_weights <- function(weights, n) {
  if (is.null(weights)) return(NULL)
  if (!is.numeric(weights) || length(weights) != n)
    stop_arg("weights", "must be a numeric vector of length ", n, " (one per row of `X`), ",
             "not of length ", length(weights))
  if (anyNA(weights) || any(!is.finite(weights))) stop_arg("weights", "contains NA, NaN or Inf")
  if (any(weights < 0)) stop_arg("weights", "must be non-negative")
  if (!any(weights > 0)) stop_arg("weights", "must have a positive entry")
  w <- as.double(weights) * (n / sum(weights))
  if (all(w == 1)) NULL else w
}

# penalty factors: NULL (all 1) or non-negative, rescaled to sum to p (as glmnet)
check_penalty_factor <- function(pf, p) {
  if (is.null(pf)) return(NULL)
  if (!is.numeric(pf) || length(pf) != p)
    stop_arg("penalty.factor", "must be a numeric vector of length ", p,
             " (one per column of `X`), not of length ", length(pf))
  if (anyNA(pf) || any(!is.finite(pf))) stop_arg("penalty.factor", "contains NA, NaN or Inf")
  if (any(pf < 0)) stop_arg("penalty.factor", "must be non-negative")
  if (!any(pf > 0)) stop_arg("penalty.factor", "must have a positive entry (all zero: no ball)")
  pf <- as.double(pf) * (p / sum(pf))
  if (all(pf == 1)) NULL else pf
}

# weighted column means and (1/n, as glmnet) standard deviations around
# them (glmnet's, with or without an intercept); a sparse X stays sparse
column_moments <- function(X, w) {
  n <- nrow(X)
  # a dense X: the centred two-pass sums in one pass of C over X, no
  # temporaries (src/regression_data.c: crossprod(wv, X) / n, then
  # colSums(wv * Xb * Xb) / n with Xb = X - 1 m', bit for bit; in R by
  # blocks of columns they were a quarter of a binomial fit's R preparation
  # at 5000 x 50 and a fifth of a standardized CV's allocation)
  if (is.matrix(X) && is.double(X))
    return(.Call(C_cg_column_moments, X, if (is.null(w)) NULL else as.double(w)))
  wv <- if (is.null(w)) rep(1, n) else w
  if (!inherits(X, "Matrix")) {
    m1 <- as.vector(crossprod(wv, X)) / n
    Xb <- X - rep(m1, each = n)
    v <- as.vector(colSums(wv * Xb * Xb)) / n
  } else {
    m1 <- as.vector(as.matrix(Matrix::crossprod(wv, X))) / n
    m2 <- as.vector(as.matrix(Matrix::crossprod(wv, X^2))) / n
    v <- pmax(m2 - m1^2, 0)
  }
  list(mean = m1, sd = sqrt(v))
}

# the columns of X (dense, or any Matrix: a sparse X stays sparse) times cs;
# the one implementation, for regression and covariance
scale_columns <- function(X, cs) {
  if (inherits(X, "dgCMatrix")) {
    X@x <- X@x * rep(cs, diff(X@p))
    return(X)
  }
  if (inherits(X, "Matrix")) return(X %*% Matrix::Diagonal(x = cs))
  # (a double matrix: X * rep(cs, each = n) in C, without the n x p rep())
  if (is.matrix(X) && is.double(X)) return(.Call(C_cg_scale_columns, X, as.double(cs), NULL))
  X * rep(cs, each = nrow(X))
}

# The problem of a call, prepared once: list(kind, X, y, intercept, cs,
# pen, w, family, ...) (see the top of this file)
regression_prepare <- function(X, y, family, w, standardize, pf, intercept, method) {
  n <- nrow(X); p <- ncol(X)
  sparse <- inherits(X, "Matrix")
  pen <- if (is.null(pf)) rep(TRUE, p) else pf > 0
  if (family == "gaussian" && is.null(w) && all(pen) && !standardize && is.null(pf))
    return(list(kind = "none"))
  mom <- if (standardize || intercept) column_moments(X, w)
  sd <- if (standardize) mom$sd else rep(1, p)
  cs <- numeric(p)
  ok <- pen & sd > 0
  cs[ok] <- 1 / ((if (is.null(pf)) 1 else pf[ok]) * sd[ok])
  kind <- if (family != "gaussian" || (sparse && (!is.null(w) || !all(pen)))) "glm"
          else if (is.null(w) && all(pen)) "scale" else "project"
  if (kind == "glm" && method != "pfw")
    stop_arg("method", "= \"", method, "\" supports family = \"gaussian\" only",
             if (family == "gaussian") " without weights or unpenalized columns on a sparse `X`",
             " (use \"pfw\")")
  prep <- list(kind = kind, family = family, n = n, p = p, pen = pen, cs = cs,
               w = w, y = y, intercept = intercept,
               xbar = if (intercept) mom$mean else rep(0, p),
               names = colnames(X), standardize = standardize, pf = pf)
  if (intercept) prep$x_center <- stats::setNames(prep$xbar, prep$names)
  if (kind == "scale") {
    if (!sparse && intercept) {
      # scaled and centred in one copy of X (regression_core() would centre
      # another): its centring goes along as `intercept`
      # ((X * rep(cs, each = n))[, j] - xs[j], in one pass of C)
      xs <- cs * prep$xbar
      ybar <- mean(y)
      prep$X <- .Call(C_cg_scale_columns, X, cs, xs)
      prep$yc <- y - ybar
      prep$centring <- structure(list(xbar = xs, ybar = ybar, y = y),
                                 class = "regression_centring")
    } else {
      prep$X <- scale_columns(X, cs)
    }
    return(prep)
  }
  U <- cbind(if (intercept) rep(1, n), as.matrix(X[, !pen, drop = FALSE]))
  storage.mode(U) <- "double"
  dimnames(U) <- NULL
  Xp <- if (all(pen)) X else X[, pen, drop = FALSE]     # no copy when all are penalized
  if (kind == "project") {
    sw <- if (is.null(w)) rep(1, n) else sqrt(w)
    Xw <- scale_columns(Xp, cs[pen]) * sw
    yw <- sw * y
    if (ncol(U)) {
      QR <- qr(sw * U)
      Q <- qr.Q(QR)[, seq_len(QR$rank), drop = FALSE]
      Xw <- Xw - Q %*% crossprod(Q, Xw)
      yw <- yw - drop(Q %*% crossprod(Q, yw))
      prep$qr <- QR
    }
    prep$sw <- sw
    prep$X <- Xw
    prep$yp <- as.vector(yw)
    prep$Xpen <- Xp
    prep$Z <- X[, !pen, drop = FALSE]
    return(prep)
  }
  # glm
  prep$U <- U
  prep$Xpen <- Xp
  # a sparse X by rows too: a pairwise step updates the gradient on the
  # rows it changed (src/prob_glm.c, "lazy")
  if (sparse) prep$Xrows <- methods::as(Matrix::t(Xp), "CsparseMatrix")
  prep$Z <- X[, !pen, drop = FALSE]
  wv <- if (is.null(w)) rep(1, n) else w
  prep$data_key <- glm_data_key(prep)
  prep$offset <- switch(family,
    gaussian = sum(wv * y^2) / (2 * n),
    binomial = 0,
    poisson = sum(wv * ifelse(y > 0, y * log(y) - y, 0)) / n)
  prep$null_objective <- glm_null_objective(prep)
  prep
}

# the coefficients on the radius' scale (theta) of beta, the original ones
to_theta <- function(beta, prep) {
  th <- numeric(sum(prep$pen))
  cs <- prep$cs[prep$pen]
  ok <- cs > 0
  th[ok] <- beta[prep$pen][ok] / cs[ok]
  th
}

# a warm start given to sparse_regression() on the problem prepared: a fit
# keeps its theta (so that a resumed fit continues exactly); a vector is on
# the original scale
prepared_init <- function(init, prep) {
  if (is.null(init) || prep$kind == "none") return(init)
  if (inherits(init, "sparse_regression_fit")) {
    th <- init$theta
    if (is.null(th) || length(th) != sum(prep$pen)) {
      beta <- fit_solution(init)
      if (!is.numeric(beta) || length(beta) != prep$p)
        stop_arg("init", "is a fit with ", length(beta), " coefficients, but `X` has ",
                 prep$p, " columns")
      th <- to_theta(beta, prep)
    }
    init$solution$beta <- th
    return(init)
  }
  if (is.numeric(init) && is.null(dim(init))) {
    if (length(init) != prep$p)
      stop_arg("init", "must have length ", prep$p, " (one per column of `X`), not ",
               length(init))
    if (!all_finite(init)) stop_arg("init", "contains NA, NaN or Inf")
    return(to_theta(init, prep))
  }
  stop_arg("init", "must be NULL, a fit of sparse_regression() or a numeric vector")
}

# The fit of sparse_regression() (one radius) or its cg_path (several).
regression_fit <- function(X, y, radius, family, weights, standardize, penalty.factor,
                           intercept, init, solver, call, started) {
  family <- match_choice(family, regression_families, "family")
  if (inherits(intercept, "regression_centring"))     # data centred already
    return(do.call(regression_core, c(list(X = X, y = y, radius = radius, init = init,
                                           intercept = intercept, call = call,
                                           started = started), solver), quote = TRUE))
  X <- check_design(X, "X")
  n <- nrow(X); p <- ncol(X)
  if (n < 1L || p < 1L) stop_arg("X", "must have at least one row and one column")
  check_flag(standardize, "standardize")
  check_flag(intercept, "intercept")
  w <- check_obs_weights(weights, n)
  y <- check_response(y, family, n, w)
  pf <- check_penalty_factor(penalty.factor, p)
  if (missing(radius)) stop_arg("radius", "is missing, with no default")
  method <- match_choice(solver$method, c("pfw", "sfw", "fw", "spg"), "method")
  prep <- regression_prepare(X, y, family, w, standardize, pf, intercept, method)
  if (prep$kind == "none")
    return(do.call(regression_core, c(list(X = X, y = y, radius = radius, init = init,
                                           intercept = intercept, call = call,
                                           started = started), solver), quote = TRUE))
  prepared_fit(prep, radius, init, solver, call, started)
}

# the fit (or path) of a prepared problem, on the original scale
prepared_fit <- function(prep, radius, init, solver, call, started = wall_clock()) {
  force(started)
  init <- prepared_init(init, prep)
  if (prep$kind == "glm") {
    # (the call goes into no argument list that do.call() would evaluate)
    face_step <- solver$face_step %||% TRUE
    check_flag(face_step, "face_step")
    args <- list(prep = prep, control = solver$control %||% cg_control(),
                 face_step = face_step)
    if (length(radius) > 1L)
      return(theta_summary(glm_path(prep, radius, init, args$control, call, started,
                                    face_step)))
    return(glm_fit(prep, radius, init, args$control, call, started, face_step))
  }
  core <- c(list(X = prep$X, y = if (prep$kind == "project") prep$yp else prep$yc %||% prep$y,
                 radius = radius, init = init,
                 intercept = prep$centring %||% (prep$kind == "scale" && prep$intercept),
                 call = call, started = started), solver)
  res <- do.call(regression_core, core, quote = TRUE)
  if (inherits(res, "cg_path")) {
    res$fits <- lapply(res$fits, original_scale, prep = prep)
    return(theta_summary(res))
  }
  original_scale(res, prep)
}

# the column scales 1 / (pf sd) of columns with standard deviations sd (0
# where sd is 0; pf NULL: all 1), as src/regression_data.c computes them
# for a dense fold (column_scales())
column_scale_factors <- function(sd, pf) {
  # (no penalty factors and no constant column: the same numbers in one
  # vector, not five; min() allocates nothing)
  if (is.null(pf) && isTRUE(min(sd) > 0)) return(1 / sd)
  cs <- numeric(length(sd))
  ok <- sd > 0
  cs[ok] <- 1 / ((if (is.null(pf)) 1 else pf[ok]) * sd[ok])
  cs
}

# The path of a CV fold's least squares with column scales (standardize,
# positive penalty factors), from the fold's data `d` of fold_data(): its
# rows centred (or implicitly, sparse) and its X'X / n, both shared along
# the grid; the scales are the training rows' standard deviations, applied
# to a copy of X and to X'X / n.
scaled_fold_path <- function(d, pf, standardize, names, radius, init, solver, sd = NULL,
                             scaled = FALSE) {
  X <- d$X
  p <- ncol(X)
  cen <- if (inherits(d$intercept, "regression_centring")) d$intercept
  # (sd: the fold's column sds when the caller kept them from an earlier
  # group of radii)
  if (is.null(sd)) sd <- if (standardize) column_moments(X, NULL)$sd else rep(1, p)
  cs <- column_scale_factors(sd, pf)
  prep <- list(kind = "scale", family = "gaussian", n = nrow(X), p = p, pen = rep(TRUE, p),
               cs = cs, w = NULL, intercept = !is.null(cen),
               xbar = if (is.null(cen)) rep(0, p) else cen$xbar, names = names,
               standardize = standardize, pf = pf)
  if (prep$intercept) prep$x_center <- stats::setNames(prep$xbar, names)
  if (!is.null(cen)) cen$xbar <- cen$xbar * cs
  # (scaled: d$X and d$gram are scaled by cs already, cv_sparse_regression())
  gram <- d$gram
  if (is.matrix(gram) && !scaled) gram <- gram * tcrossprod(cs)
  solver$gram <- gram
  args <- c(list(X = if (scaled) X else scale_columns(X, cs), y = d$y,
                 intercept = cen %||% FALSE), solver)
  # several radii: regression_core()'s path ("pfw": one solver call)
  # (a piece of one radius warm-started from the fold's previous piece: a
  # lean path of one radius, regression_core())
  one <- length(radius) == 1L && !is.null(init) && isTRUE(attr(solver$control, "lean_path")) &&
    is_pfw(solver$method %||% "pfw")
  res <- if (length(radius) > 1L || one)
    do.call(regression_core, c(args, list(radius = radius, init = prepared_init(init, prep))),
            quote = TRUE)
  else fit_path(regression_core, args, radius, prepared_init(init, prep))
  res$fits <- lapply(res$fits, original_scale, prep = prep)
  theta_summary(res)
}

# a path's l1 norms: of the coefficients the radius bounds (theta)
theta_summary <- function(path) {
  # (a CV fold's lean summary has no l1 norms: path_ended())
  if (length(path$fits) && "l1_norm" %in% names(path$summary))
    path$summary$l1_norm <- l1_nonzero(lapply(path$fits, function(f) f$theta))$l1
  path
}

# a gaussian fit of the prepared problem on the original scale
original_scale <- function(fit, prep) {
  theta <- fit$solution$beta
  if (all(prep$pen)) {
    beta <- prep$cs * theta
  } else {
    beta <- numeric(prep$p)
    beta[prep$pen] <- prep$cs[prep$pen] * theta
  }
  if (prep$kind == "project") {
    fitted <- as.vector(as.matrix(prep$Xpen %*% beta[prep$pen]))
    if (!is.null(prep$qr)) {
      b <- qr.coef(prep$qr, prep$sw * (prep$y - fitted))
      b[is.na(b)] <- 0
      a <- if (prep$intercept) b[1L] else 0
      gam <- if (prep$intercept) b[-1L] else b
      beta[!prep$pen] <- gam
      fitted <- fitted + a + as.vector(as.matrix(prep$Z %*% gam))
    } else a <- 0
    fit$intercept <- a
    fit$fitted.values <- fitted
    fit$y <- prep$y
    if (prep$intercept) fit$notes <- c(fit$notes, beta = sprintf("intercept %s",
                                                                 format(a, digits = 4)))
  }
  names(beta) <- prep$names
  fit$solution$beta <- beta
  fit$theta <- theta
  if (prep$intercept) fit$x_center <- prep_x_center(prep)
  fit$family <- prep$family
  fit$weights <- prep$w
  fit$standardize <- prep$standardize
  fit$penalty.factor <- prep$pf
  # (a CV fold's lean fit, regression_core(): no notes)
  if (!isTRUE(fit$lean)) fit$notes <- c(fit$notes, beta = prepared_note(prep, theta))
  fit
}

# the column means of a prepared problem, named (made once per problem:
# the fits of a path share the vector)
prep_x_center <- function(prep) prep$x_center %||% stats::setNames(prep$xbar, prep$names)

# what print() says of beta: the family, and the l1 norm the radius bounds
prepared_note <- function(prep, theta) {
  scaled <- c(if (prep$standardize) "standardized", if (!is.null(prep$pf)) "penalty factors")
  sprintf("%sl1 norm %s on the radius' scale%s%s",
          if (prep$family != "gaussian") paste0("family ", prep$family, "; ") else "",
          format(sum(abs(theta)), digits = 4),
          if (length(scaled)) paste0(" (", paste(scaled, collapse = ", "), ")") else "",
          if (!all(prep$pen)) sprintf(", %d unpenalized", sum(!prep$pen)) else "")
}

# one glm fit (src/prob_glm.c) of the prepared problem at `radius`
glm_fit <- function(prep, radius, init = NULL, control = cg_control(), call = NULL,
                    started = wall_clock(), face_step = TRUE) {
  force(started)
  check_radius(radius)
  control <- glm_control(control)
  st <- glm_start(prep, radius, init, face_step)
  fit <- cg_run(st$spec, control, "sparse_regression", call, started)
  glm_finish(fit, prep, st, init, radius, started)
}

# a glm fit's control checked (as_control()), or the checked copy a CV
# keeps with it (attribute "checked", cv_sparse_regression(): the same
# control for every piece of every fold; checked anew per piece it was 2%
# of a binomial CV on Pima)
glm_control <- function(control) {
  attr(control, "checked") %||% as_control(control, max_iter = 1e5)
}

# The path of glm fits at increasing `radii` in one solver call (as the
# least squares' "pfw" path, regression_path()): the problem is set up once
# and, after each radius, warm-started at the next from the solution
# (cg_glm_restart(), the same start as a separate fit with init = that
# fit), without the set-up and checks of a call per radius.
glm_path <- function(prep, radii, init = NULL, control = cg_control(), call = NULL,
                     started = wall_clock(), face_step = TRUE) {
  force(started)
  radii <- check_radii(radii)
  # (a CV fold's path, cv_sparse_regression(): fits but the last hold only
  # what the CV reads, as regression_core()'s lean_fit)
  lean <- isTRUE(attr(control, "lean_path"))
  stop_ratio <- attr(control, "path_stop_ratio")
  control <- glm_control(control)
  st <- glm_start(prep, radii[1L], init, face_step)
  # (the tol scale of every warm start: the null model's objective)
  spec <- spec_defaults(st$spec)
  spec$cold_objective <- glm_null_objective(prep)
  # (a lean path: C returns the fits before the last as theta and b alone,
  # cg_glm_beta(), where glm_lean_fit() reads no more)
  if (lean) spec$path_lean <- TRUE
  # (cv_sparse_regression()'s default radii: the path ends after its first
  # fit that explains more than 99.9% of the null deviance, glmnet's rule;
  # the objective is half the mean deviance)
  if (!is.null(stop_ratio)) spec$path_stop_objective <- stop_ratio * spec$cold_objective
  fits <- path_fits(spec, control, radii, init, call,
    step = function(k, prev) if (k > 1L) {
      st$exact <<- FALSE
      st$iter0 <<- as.integer(prev$iterations)
      st$key$radius <<- as.double(radii[k])
    },
    # (the last fit lean too, with the solver's state the next piece
    # continues: glm_start() reads no more of it; made whole by
    # glm_finish() it was a tenth of a CV on MASS::epil)
    lean = if (lean) function(res, k, prev, n_res) {
      fit <- glm_lean_fit(res, prep, st$iter0, radii[k])
      if (k == n_res) {
        # (the loop's own state sits beside the solution: cg_result())
        sol <- res$solution
        sol$state_loop <- res$state_loop
        fit$state <- glm_state(sol, st$key)
      }
      fit
    },
    finish = function(fit, k, prev, started) glm_finish(fit, prep, st, prev, radii[k], started))
  # (a fold's path: the summary cv_radius() reads, lean_summary())
  path_ended(fits, radii, init, call, started, spec$path_stop_objective, lean = lean)
}

# a glm fit's solver state for an exact continuation (init = ): the
# solution's state_* parts present and the state's key (glm_start())
glm_state <- function(sol, key) {
  state <- c(sol[c("state_eta", "state_b", "state_support", "state_glm", "state_g",
                   "state_gq", "state_H", "state_loop")], list(key = key))
  state[!vapply(state, is.null, NA)]
}

# the spec of a glm fit at `radius` from `init` (NULL, a fit or theta), with
# what glm_finish() needs: exact (init continues exactly), iter0 (the
# init's iterations, counted on) and the state's key
glm_start <- function(prep, radius, init, face_step) {
  Xp <- prep$Xpen
  n <- prep$n; pp <- ncol(Xp); q <- ncol(prep$U)
  spec <- list(problem = "glm", method = "pfw", step = "line_search", n = n, p = pp, q = q,
               family = c(gaussian = 0L, binomial = 2L, poisson = 1L)[[prep$family]],
               sparse = inherits(Xp, "Matrix"), radius = as.double(radius),
               loss_offset = as.double(prep$offset), col_scale = as.double(prep$cs[prep$pen]),
               U = prep$U, y = as.double(prep$y),
               weights = if (is.null(prep$w)) rep(1, n) else prep$w, face_step = face_step)
  if (spec$sparse) {
    spec[c("col_p", "col_i", "col_x")] <- list(Xp@p, Xp@i, Xp@x)
    if (!is.null(prep$Xrows))
      spec[c("row_p", "row_j", "row_x")] <- list(prep$Xrows@p, prep$Xrows@i, prep$Xrows@x)
  } else {
    spec$X <- Xp
  }
  # what a state belongs to (see "Warm starts" in ?sparse_regression): the
  # data the C side sees and every setting its iteration reads
  key <- list(data = prep$data_key %||% glm_data_key(prep),
              family = spec$family, radius = spec$radius, face_step = face_step)
  iter0 <- 0L
  exact <- FALSE
  if (!is.null(init)) {
    st <- if (inherits(init, "sparse_regression_fit")) init$state
    exact <- !is.null(st) && identical(st$key, key)
    if (exact) {
      # the same problem: its run continues exactly (theta, b as they were)
      check_glm_state(st, init, n, pp, q)
      spec$init_beta <- init$solution$beta
      spec$init_b <- st$state_b
      parts <- c("state_eta", "state_support", "state_glm", "state_g", "state_gq", "state_H")
      parts <- parts[!vapply(st[parts], is.null, NA)]
      spec[parts] <- st[parts]
      if (!is.null(st$state_loop)) spec$state_loop <- st$state_loop
      iter0 <- as.integer(init$iterations)
      spec$iter_offset <- iter0
    } else {
      th <- if (inherits(init, "sparse_regression_fit")) init$solution$beta else init
      th <- as.double(th)
      l1 <- sum(abs(th))
      if (l1 > radius) th <- th * (radius / l1)
      spec$init_beta <- th
      if (inherits(init, "sparse_regression_fit") && length(init$b) == q) {
        spec$init_b <- as.double(init$b)
        iter0 <- as.integer(init$iterations)
      }
    }
    spec$cold_objective <- glm_null_objective(prep)
  }
  list(spec = spec, exact = exact, iter0 = iter0, key = key)
}

# the fit on the original scale from the solver's result at `radius`
# (st: glm_start()'s)
glm_finish <- function(fit, prep, st, init, radius, started) {
  sol <- fit$solution
  iter0 <- st$iter0
  # iterations count on from the init's (as a path's summary reads them)
  if (iter0 > 0L) fit <- continue_trace(fit, init, list(iter = iter0, exact = st$exact))
  # the solver's state, for init = (fit$state <- NULL frees it)
  fit$state <- glm_state(sol, st$key)
  theta <- sol$beta
  beta <- glm_beta(prep, theta, sol$b)
  b <- sol$b
  a <- if (prep$intercept) b[1L] else 0
  names(beta) <- prep$names
  fit$solution <- list(beta = beta)
  fit$theta <- theta
  fit$b <- b
  fit$face_steps <- sol$face_steps
  fit$intercept <- a
  if (prep$intercept) fit$x_center <- prep_x_center(prep)
  fit$linear.predictors <- sol$eta
  fit$fitted.values <- family_mean(prep$family, sol$eta)
  fit$y <- prep$y
  fit$radius <- radius
  fit$nobs <- prep$n
  fit$family <- prep$family
  fit$weights <- prep$w
  fit$standardize <- prep$standardize
  fit$penalty.factor <- prep$pf
  fit$notes <- c(if (st$exact) continued_note(iter0)
                 else if (iter0 > 0L) sprintf("warm start from a fit of %d iterations", iter0),
                 beta = prepared_note(prep, theta))
  class(fit) <- c("sparse_regression_fit", "cg_fit")
  finish_fit(fit, started)
}

# the coefficients on the original scale of a glm fit's theta (penalized)
# and b (intercept, unpenalized columns); with every column penalized one
# product (no p-vector temporaries per fit)
glm_beta <- function(prep, theta, b) {
  if (all(prep$pen) && length(b) == as.integer(prep$intercept)) return(prep$cs * theta)
  beta <- numeric(prep$p)
  beta[prep$pen] <- prep$cs[prep$pen] * theta
  beta[!prep$pen] <- if (prep$intercept) b[-1L] else b
  beta
}

# A fold's fit along a CV's glm path (glm_path(), lean): the coefficients,
# intercept, iterations (from the warm start's: iter0) and status that
# glm_finish() gives, without trace, notes, state or fitted values
glm_lean_fit <- function(res, prep, iter0, radius) {
  tr <- res$trace
  last <- length(tr$objective)
  sol <- res$solution
  theta <- sol$beta
  b <- sol$b
  beta <- glm_beta(prep, theta, b)
  names(beta) <- prep$names
  fit <- list(solution = list(beta = beta), objective = tr$objective[last], gap = tr$gap[last],
              problem = "sparse_regression", converged = identical(res$status, "converged"),
              status = res$status, iterations = res$iterations + iter0, time = tr$time[last],
              theta = theta, b = b, intercept = if (prep$intercept) b[1L] else 0,
              radius = radius, nobs = prep$n, family = prep$family, lean = TRUE)
  if (prep$intercept) fit$x_center <- prep_x_center(prep)
  class(fit) <- c("sparse_regression_fit", "cg_fit")
  fit
}

# the data the C side of glm_fit() sees, told apart by a few sums (kept in
# the prepared problem: one pass over X for all the fits of a path)
glm_data_key <- function(prep) {
  c(regression_fingerprint(prep$Xpen), fingerprint(as.double(prep$y)),
    fingerprint(if (is.null(prep$w)) rep(1, prep$n) else prep$w), fingerprint(prep$U),
    fingerprint(as.double(prep$cs[prep$pen])))
}

# a kept state of glm_fit() checked before C reads it: a state altered by
# hand is an error naming `init` (C checks the support against theta)
check_glm_state <- function(st, init, n, p, q) {
  ok <- is.double(st$state_eta) && length(st$state_eta) == n && all_finite(st$state_eta) &&
    is.integer(st$state_support) && !anyNA(st$state_support) &&
    is.double(st$state_glm) && length(st$state_glm) == 10L && all_finite(st$state_glm) &&
    is.double(init$solution$beta) && length(init$solution$beta) == p &&
    all_finite(init$solution$beta) && is.double(st$state_b) && length(st$state_b) == q &&
    all_finite(st$state_b) &&
    # ([[ ]]: st$state_g would match state_glm partially)
    (is.null(st[["state_g"]]) || (is.double(st[["state_g"]]) && length(st[["state_g"]]) == p)) &&
    (is.null(st[["state_gq"]]) ||
       (is.double(st[["state_gq"]]) && length(st[["state_gq"]]) == q)) &&
    (is.null(st[["state_H"]]) ||
       (is.double(st[["state_H"]]) && length(st[["state_H"]]) == q * q)) &&
    (is.null(st$state_loop) || (is.double(st$state_loop) && all_finite(st$state_loop))) &&
    is.numeric(init$iterations) && length(init$iterations) == 1L && !is.na(init$iterations) &&
    init$iterations >= 0
  if (!ok) stop_arg("init", "has an invalid `state` (altered by hand?)")
}

# the objective of the null model (intercept only, or 0): tol's scale for
# warm starts, as the gaussian's objective at 0
glm_null_objective <- function(prep) {
  # (kept by regression_prepare(): a CV's fold problem is fitted along
  # several pieces of the grid, each a path that reads it)
  if (!is.null(prep$null_objective)) return(prep$null_objective)
  w <- if (is.null(prep$w)) rep(1, prep$n) else prep$w
  y <- prep$y
  m <- if (prep$intercept) sum(w * y) / sum(w) else
    switch(prep$family, gaussian = 0, binomial = 0.5, poisson = 1)
  dev <- heldout_loss(prep$family)(y, rep(m, length(y)))
  sum(w * dev) / (2 * prep$n)
}

# the mean of the family at the linear predictor
family_mean <- function(family, eta) {
  switch(family, gaussian = eta, binomial = stats::plogis(eta), poisson = exp(eta))
}

# default radii of a prepared problem (see ?cv_sparse_regression): as the
# gaussian's, of one Newton step from the null model for the other families
prepared_radii <- function(prep, nradius, ratio) {
  if (prep$kind == "scale")
    return(default_regression_radii(prep$X, prep$y, nradius, ratio, prep$intercept))
  if (prep$kind == "project")
    return(default_regression_radii(prep$X, prep$yp, nradius, ratio, FALSE))
  n <- prep$n
  w <- if (is.null(prep$w)) rep(1, n) else prep$w
  m <- sum(w * prep$y) / n
  v <- switch(prep$family, gaussian = 1, binomial = m * (1 - m), poisson = m)
  Xt <- scale_columns(prep$Xpen, prep$cs[prep$pen])
  z <- (prep$y - m) / v
  if (is.null(prep$w) && prep$intercept && ncol(prep$U) == 1L) {
    # the intercept alone: centred implicitly (a sparse X stays sparse)
    top <- sum(abs(least_squares(Xt, z - mean(z), Matrix::colMeans(Xt))))
  } else {
    sw <- sqrt(w)
    Xt <- as.matrix(Xt) * sw
    z <- sw * z
    if (ncol(prep$U)) {
      Q <- qr.Q(qr(sw * prep$U))
      Xt <- Xt - Q %*% crossprod(Q, Xt)
      z <- z - drop(Q %*% crossprod(Q, z))
    }
    top <- sum(abs(least_squares(Xt, z)))
  }
  if (!is.finite(top) || top <= 0)
    stop_arg("radius", "has no default: the gradient at the null model is zero; give the radii")
  top * exp(seq(log(ratio), 0, length.out = nradius))
}
