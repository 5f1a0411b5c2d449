# Cross-validated sparse regression: cv_sparse_regression() against
# glmnet::cv.glmnet(alpha = 1) on real data, with the SAME folds.
#
# The lasso in penalized form (glmnet) and in constrained form
# (sparse_regression) have the same solutions: b_lambda solves the l1-ball
# problem at radius ||b_lambda||_1. The two CV curves are therefore compared
# in radius space: glmnet's fits are placed at the l1 norms of their
# coefficients.
#
# Data (each split at random into a training part, on which both CVs run
# with the same 10 fold ids, and a held-out test part):
#  - Boston: MASS::Boston, medv on the 13 other columns, their squares (not
#    of the 0/1 chas) and all 78 pairwise products (p = 103; the "x2"
#    design of lars::diabetes, built from Boston since lars is not
#    installed); 400 training rows, 106 test rows.
#  - stockdata: huge::stockdata, the daily log return of the first stock on
#    those of the other 451; 1000 training days, 257 test days.
# Preprocessing, identical for both: the columns of X and y are centred, and
# the columns of X scaled, by the training means and standard deviations
# (test rows by the same); glmnet is called with standardize = FALSE and
# intercept = FALSE, and cv_sparse_regression() with intercept = FALSE, so
# both fit the same problem.
#
# Reported per data set: the chosen radii (ours; glmnet's as the l1 norm of
# its lambda.min / lambda.1se coefficients); whether each 1se choice lies in
# the other's one-SE region (the other's CV curve, interpolated linearly in
# radius at that point, is at most its minimum plus the SE there); the edge
# of each one-SE region (the smallest radius where the curve, linear between
# grid points, reaches the minimum plus the SE there); the test
# mean squared error of both 1se fits and its relative difference; the
# seconds of each whole CV call (wall clock and CPU, best of 3; 2 shared
# cores, so absolute times are noisy), with, CPU-independent, the radii whose fits
# (folds or full data) did not all reach tol, the radii fitted (the default
# grid stops past the minimum) and the iterations and face steps of the
# full-data path. Both use their defaults otherwise: glmnet 100 lambdas,
# thresh = 1e-7; cv_sparse_regression 30 radii, method "pfw" (with face
# steps), tol = 1e-6. NA: the point lies outside the other's grid.
#
# Run from the repository root:  Rscript inst/bench/cv_regression.R
suppressPackageStartupMessages(library(stochcg))
stopifnot(requireNamespace("glmnet", quietly = TRUE),
          requireNamespace("MASS", quietly = TRUE),
          requireNamespace("huge", quietly = TRUE))

best_time <- function(f, reps = 3) {
  t <- cpu <- numeric(reps)
  for (k in seq_len(reps)) {
    st <- system.time(out <- f())
    t[k] <- st[["elapsed"]]
    cpu[k] <- st[["user.self"]] + st[["sys.self"]]
  }
  list(value = out, seconds = min(t), cpu = min(cpu))
}

boston_x2 <- function() {
  B <- MASS::Boston
  X <- as.matrix(B[, setdiff(names(B), "medv")])
  sq <- X[, colnames(X) != "chas"]^2
  colnames(sq) <- paste0(colnames(sq), "^2")
  pairs <- utils::combn(ncol(X), 2)
  inter <- X[, pairs[1, ]] * X[, pairs[2, ]]
  colnames(inter) <- paste(colnames(X)[pairs[1, ]], colnames(X)[pairs[2, ]], sep = ":")
  list(X = cbind(X, sq, inter), y = B$medv, n_train = 400L)
}

stock_returns <- function() {
  e <- new.env()
  utils::data("stockdata", package = "huge", envir = e)
  R <- diff(log(e$stockdata$data))
  list(X = R[, -1], y = R[, 1], n_train = 1000L)
}

# centre and scale by the training rows
prepare <- function(d, seed) {
  set.seed(seed)
  n <- nrow(d$X)
  train <- sort(sample(n, d$n_train))
  mu <- colMeans(d$X[train, ]); s <- apply(d$X[train, ], 2, sd)
  keep <- s > 0
  sc <- function(rows) scale(d$X[rows, keep], mu[keep], s[keep])
  ym <- mean(d$y[train])
  list(X = sc(train), y = d$y[train] - ym, Xt = sc(-train), yt = d$y[-train] - ym)
}

# the CV curve at radius r, linear between the grid points (in radius)
# (NA outside the grid: no extrapolation)
curve_at <- function(radius, cvm, r) stats::approx(radius, cvm, xout = r, ties = mean)$y

# the smallest radius where that curve reaches `band` (the one-SE edge)
band_edge <- function(radius, cvm, band) {
  o <- order(radius); r <- radius[o]; v <- cvm[o]
  i <- which(v <= band)[1L]
  if (is.na(i) || i == 1L) return(r[i])
  r[i - 1L] + (v[i - 1L] - band) / (v[i - 1L] - v[i]) * (r[i] - r[i - 1L])
}

run_case <- function(name, d, seed = 1) {
  p <- prepare(d, seed)
  set.seed(seed + 1)
  foldid <- sample(rep_len(1:10, nrow(p$X)))
  g <- best_time(function() glmnet::cv.glmnet(p$X, p$y, foldid = foldid, alpha = 1,
                                               intercept = FALSE, standardize = FALSE))
  ours <- best_time(function() cv_sparse_regression(p$X, p$y, folds = foldid, intercept = FALSE,
                                                    control = cg_control(progress = FALSE), standardize = FALSE))
  G <- g$value; C <- ours$value
  l1_g <- colSums(abs(as.matrix(G$glmnet.fit$beta)))       # per lambda
  g_min <- which(G$lambda == G$lambda.min); g_1se <- which(G$lambda == G$lambda.1se)
  band_g <- G$cvm[g_min] + G$cvsd[g_min]
  c_min <- C$index[["min"]]
  band_c <- C$cv$cvm[c_min] + C$cv$cvsd[c_min]
  ours_in_g <- curve_at(l1_g, G$cvm, C$radius.1se) <= band_g
  g_in_ours <- curve_at(C$cv$radius, C$cv$cvm, l1_g[g_1se]) <= band_c
  mse_g <- mean((p$yt - as.vector(predict(G, p$Xt, s = "lambda.1se")))^2)
  mse_c <- mean((p$yt - predict(C, p$Xt))^2)
  data.frame(
    data = name, n_train = nrow(p$X), n_test = nrow(p$Xt), p = ncol(p$X),
    r1se_cg = C$radius.1se, r1se_glmnet = l1_g[g_1se],
    rmin_cg = C$radius.min, rmin_glmnet = l1_g[g_min],
    nnz_cg = sum(coef(C) != 0), nnz_glmnet = G$nzero[g_1se],
    cg_in_glmnet_1se = ours_in_g, glmnet_in_cg_1se = g_in_ours,
    edge_cg = band_edge(C$cv$radius, C$cv$cvm, band_c),
    edge_glmnet = band_edge(l1_g, G$cvm, band_g),
    cvmin_cg = min(C$cv$cvm), cvmin_glmnet = min(G$cvm),
    test_mse_cg = mse_c, test_mse_glmnet = mse_g, test_rel_diff = mse_c / mse_g - 1,
    s_cg = ours$seconds, s_glmnet = g$seconds, cpu_cg = ours$cpu, cpu_glmnet = g$cpu,
    radii_unconv = sum(!C$cv$converged), radii_fitted = nrow(C$cv),
    iter_path = sum(C$path$summary$iterations),
    face_steps = sum(vapply(C$path$fits, function(f) f$face_steps, 0)), row.names = NULL)
}

res <- rbind(run_case("Boston x2", boston_x2()), run_case("stockdata", stock_returns()))
print(res, digits = 4)

fmt <- function(x) if (is.numeric(x)) formatC(x, digits = 4, format = "g") else as.character(x)
md_table <- function(df) {
  c(paste0("| ", paste(names(df), collapse = " | "), " |"),
    paste0("|", paste(rep("---", ncol(df)), collapse = "|"), "|"),
    apply(df, 1, function(r) paste0("| ", paste(r, collapse = " | "), " |")))
}
shown <- res
shown[] <- lapply(res, function(col) vapply(col, fmt, ""))
shown$test_rel_diff <- sprintf("%+.2f%%", 100 * res$test_rel_diff)
out <- c("# cv_sparse_regression against cv.glmnet (same folds)", "",
         sprintf("R %s, glmnet %s, stochcg %s; %s.", getRversion(),
                 utils::packageVersion("glmnet"), utils::packageVersion("stochcg"),
                 format(Sys.time(), "%Y-%m-%d %H:%M")), "",
         paste("Radii: ours, and glmnet's as the l1 norm of its coefficients at lambda.1se /",
               "lambda.min. `*_in_*_1se`: the 1se choice of one lies within the one-SE",
               "region of the other's CV curve (interpolated linearly in radius; NA outside",
               "its grid). Test MSE of the",
               "1se fits on held-out rows; seconds: wall clock of the whole CV call",
               "(10 folds plus the full-data path), best of 3, on 2 shared cores;",
               "`cpu_*`: CPU seconds (user + sys) of the call, best of 3.",
               "`edge_*`: the smallest radius where each CV curve reaches its minimum plus one SE.",
               "`radii_unconv`: radii with a fit (folds or full data) that did not reach tol;",
               "`radii_fitted`: radii fitted (the default grid stops past the minimum);",
               "`iter_path`, `face_steps`: of the full-data path.",
               "Defaults otherwise: glmnet 100 lambdas; cv_sparse_regression 30 radii, pfw",
               "with face steps, tol 1e-6."),
         "", md_table(shown))
dir.create("inst/bench/results", showWarnings = FALSE)
writeLines(out, "inst/bench/results/cv_regression.md")
cat(out, sep = "\n")
