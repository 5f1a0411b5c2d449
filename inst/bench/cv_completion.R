# Cross-validated matrix completion on MovieLens: cv_complete_matrix()
# against softImpute over a lambda grid with its own warm starts, both
# choosing by 5-fold cross-validation on the SAME folds of the training
# ratings, then refitting on all training ratings; held-out test RMSE of the
# chosen fits and the seconds of each whole procedure.
#
# Data: dslabs::movielens, the 90/10 split of inst/bench/movielens-split.R
# (train 90004 ratings, 671 users x 9066 movies; test 9687).
#
# stochcg: cv_complete_matrix(train, folds = foldid, center = "both") with
# its defaults otherwise (since issue 25: method "fw" with the subspace
# refit, the data-anchored radius grid of 15 radii (ratio 0.02, extended
# while the minimum is at the top), each fit warm-started from the previous
# radius and stopped at the relative gap tol = 1e-2 or 200 iterations).
# (Before: plain fw, 12 radii of ratio 0.05, 40 iterations per radius.)
# softImpute (type "als", rank.max = 40, its default thresh and maxit):
# per fold, the grand mean + user + movie effects fitted by least squares on
# the fold's training ratings (stochcg::center_effects, the centering of
# inst/bench/movielens.R), softImpute on their residuals along the lambda
# grid lambda0 * {0.6, 0.5, 0.42, 0.35, 0.3, 0.25, 0.2} (lambda0 of the
# full training residuals), decreasing, each fit warm-started by
# `warm.start` from the previous one. Both CV curves aggregate as cv.glmnet
# (fold-size-weighted means, standard errors across folds) and choose by
# stochcg::one_se_rule (min and 1se; for softImpute the simplest model is
# the largest lambda). Test predictions are clipped to [0.5, 5].
# Seconds: wall clock and CPU (user + system) of each whole procedure (5
# fold paths, the full-data path, the centering), on 2 shared cores
# (noisy; the load is printed).
#
# Run from the repository root:  Rscript inst/bench/cv_completion.R
suppressPackageStartupMessages(library(stochcg))
stopifnot(requireNamespace("softImpute", quietly = TRUE),
          requireNamespace("dslabs", quietly = TRUE))
source(file.path("inst", "bench", "movielens-split.R"))
split <- movielens_split()
train <- split$train; test <- split$test; m <- split$m; n <- split$n
N <- nrow(train)
set.seed(11)
foldid <- sample(rep_len(1:5, N))
clip <- function(p) pmin(pmax(p, 0.5), 5)
test_rmse <- function(p) sqrt(mean((clip(p) - test$value)^2))
cat(sprintf("MovieLens train %d, test %d; 5 folds\n", N, nrow(test)))

# ------------------------------------------------------------- stochcg
load0 <- sub(".*load average: ([0-9.]+).*", "\\1", system("uptime", TRUE))
st_cg <- system.time(
  cvfit <- cv_complete_matrix(train, folds = foldid, center = "both", dims = c(m, n),
                              control = cg_control(max_iter = 200, tol = 1e-2,
                                                   progress = TRUE))
)
t_cg <- st_cg[["elapsed"]]
cpu_cg <- st_cg[["user.self"]] + st_cg[["sys.self"]]
print(cvfit)
cg_rows <- lapply(c("radius.min", "radius.1se"), function(s) {
  f <- cvfit$path$fits[[cvfit$index[[if (s == "radius.min") "min" else "1se"]]]]
  data.frame(method = "stochcg fw", choice = s, parameter = sprintf("radius %.0f", f$radius),
             rank = f$rank, cv_mse = cvfit$cv$cvm[cvfit$path$radius == f$radius],
             test_rmse = test_rmse(predict(f, test)), seconds = t_cg, cpu = cpu_cg)
})

# ---------------------------------------------------------- softImpute
lam_fac <- c(0.6, 0.5, 0.42, 0.35, 0.3, 0.25, 0.2)
si_path <- function(rows, lam) {          # effects + warm-started softImpute path
  obs <- list(row = train$row[rows], col = train$col[rows], value = train$value[rows],
              dims = c(m, n))
  eff <- stochcg:::center_effects(obs, "both")
  resid <- obs$value - eff$mean - eff$row[obs$row] - eff$col[obs$col]
  x <- softImpute::Incomplete(obs$row, obs$col, resid)
  fits <- vector("list", length(lam))
  warm <- NULL
  for (k in seq_along(lam)) {
    fits[[k]] <- suppressWarnings(softImpute::softImpute(x, rank.max = 40, lambda = lam[k],
                                                         type = "als", warm.start = warm))
    warm <- fits[[k]]
  }
  list(fits = fits, eff = eff)
}
si_predict <- function(path, k, i, j)
  path$eff$mean + path$eff$row[i] + path$eff$col[j] + softImpute::impute(path$fits[[k]], i, j)

st_si <- system.time({
  obs_all <- list(row = train$row, col = train$col, value = train$value, dims = c(m, n))
  eff_all <- stochcg:::center_effects(obs_all, "both")
  lam0 <- softImpute::lambda0(softImpute::Incomplete(
    train$row, train$col, train$value - eff_all$mean - eff_all$row[train$row] -
      eff_all$col[train$col]))
  lam <- lam0 * lam_fac
  fold_loss <- matrix(NA_real_, length(lam), 5)
  for (k in 1:5) {
    t_k <- system.time({
      path <- si_path(which(foldid != k), lam)
      held <- which(foldid == k)
      fold_loss[, k] <- vapply(seq_along(lam), function(l)
        mean((train$value[held] - si_predict(path, l, train$row[held], train$col[held]))^2), 0)
    })[["elapsed"]]
    message(sprintf("softImpute fold %d of 5: %d fits in %.1f s", k, length(lam), t_k))
  }
  w <- tabulate(foldid, 5)
  cvm <- drop(fold_loss %*% w) / sum(w)
  cvsd <- sqrt(drop(((fold_loss - cvm)^2) %*% w) / sum(w) / 4)
  pick <- one_se_rule(cvm, cvsd)          # largest lambda first: simplest first
  full <- si_path(seq_len(N), lam)
})
t_si <- st_si[["elapsed"]]
cpu_si <- st_si[["user.self"]] + st_si[["sys.self"]]
si_rows <- lapply(c("min", "1se"), function(s) {
  k <- pick[[s]]
  data.frame(method = "softImpute als", choice = paste0("lambda.", s),
             parameter = sprintf("lambda0 * %.2f", lam_fac[k]),
             rank = sum(full$fits[[k]]$d > 0), cv_mse = cvm[k],
             test_rmse = test_rmse(si_predict(full, k, test$row, test$col)), seconds = t_si,
             cpu = cpu_si)
})
cat("softImpute CV curve:\n")
print(data.frame(lambda_factor = lam_fac, cvm = cvm, cvsd = cvsd), digits = 4)

res <- do.call(rbind, c(cg_rows, si_rows))
print(res, digits = 4)

fmt <- function(x) if (is.numeric(x)) formatC(x, digits = 4, format = "g") else as.character(x)
md <- res
md[] <- lapply(res, function(col) vapply(col, fmt, ""))
md_table <- function(df) c(paste0("| ", paste(names(df), collapse = " | "), " |"),
                           paste0("|", paste(rep("---", ncol(df)), collapse = "|"), "|"),
                           apply(df, 1, function(r) paste0("| ", paste(r, collapse = " | "), " |")))
cvtab <- cvfit$cv[, c("radius", "cvm", "cvsd", "rank")]
cvtab[] <- lapply(cvtab, function(col) vapply(col, fmt, ""))
out <- c("# Cross-validated completion on MovieLens: cv_complete_matrix against softImpute",
         "", sprintf("R %s, softImpute %s, stochcg %s; %s.", getRversion(),
                     utils::packageVersion("softImpute"), utils::packageVersion("stochcg"),
                     format(Sys.time(), "%Y-%m-%d %H:%M")), "",
         sprintf(paste("Train %d ratings (671 x 9066), test %d; the same 5 folds of the training",
                       "ratings for both; each chooses by its CV curve (min and one-SE rule),",
                       "refits on all training ratings, and is scored on the test ratings",
                       "(clipped to [0.5, 5]). stochcg: the defaults of cv_complete_matrix()",
                       "(fw with the subspace refit, %d radii of the data-anchored grid, each",
                       "fit to the relative gap 1e-2 or 200 iterations, warm starts along the",
                       "path); softImpute: als, rank.max 40, 7 lambdas (lambda0 x 0.6 ... 0.2),",
                       "warm.start along the path, effects by least squares per fold. Seconds:",
                       "the whole procedure, wall clock, and CPU (user + system); 2 shared",
                       "cores, load %s at the start."),
                 N, nrow(test), nrow(cvfit$cv), load0), "",
         md_table(md), "", "stochcg CV curve:", "", md_table(cvtab))
dir.create("inst/bench/results", showWarnings = FALSE)
writeLines(out, "inst/bench/results/cv_completion.md")
cat(out, sep = "\n")
