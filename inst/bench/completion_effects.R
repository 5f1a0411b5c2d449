# Joint row/column effects in complete_matrix(): held-out AUC of 1-bit
# completion (MovieLens ratings >= 4) with center = "both" against the
# additive-effects-only model and the uncentred fit, and the gaussian
# change (effects fitted jointly instead of removed beforehand).
#
# Run from the repository root (after R CMD INSTALL .):
#   Rscript inst/bench/completion_effects.R
# Writes inst/bench/results/completion_effects.md and .csv. About 5 minutes.
#
# Protocol
# * dslabs::movielens, the split of inst/bench/movielens-split.R (90/10,
#   seed 2024, test entries of users or movies absent from train dropped);
#   y = rating >= 4.
# * AUC on the test entries (Mann-Whitney, ties counted half) of the
#   linear predictor. Seconds: system.time() elapsed around each whole call
#   (2 shared cores; other jobs were running).
# * Binomial fits: method "fw" (deterministic; since issue 25 with its
#   subspace refit, so 50 iterations where plain fw had 150), tol = 0,
#   radius in {250, 500, 1000, 2000}, and "sfw" (the default method) with
#   max_iter = 1000 at radius 1000. Models:
#   - uncentred: center = "none" (the fit before this change);
#   - centred: center = "both", unpenalized effects fitted jointly;
#   - centred + ridge: center = "both", effects_ridge = 1;
#   - additive effects only: the same two effects models with X ~ 0
#     (radius 1e-9), and the least-squares (linear-probability) effects of
#     the old gaussian centering on the 0/1 values.
#   The grid's best row is chosen on the test AUC, for every model alike.
# * Gaussian (the 0.5-5 star ratings, clipped predictions, test RMSE): the
#   effects fitted jointly (center = "both" now) against the old
#   preprocessing (least-squares effects removed, then center = "none" on
#   the residuals), fw (with the refit), 50 iterations (plain fw had 200),
#   radius 463 and 695 (as movielens.R).
# * Seconds: wall (elapsed) and CPU (user + system) of each call; the
#   1-minute load average is printed.

suppressPackageStartupMessages(library(stochcg))
out_dir <- file.path("inst", "bench", "results")
dir.create(out_dir, showWarnings = FALSE, recursive = TRUE)
t_script <- proc.time()[["elapsed"]]
load0 <- sub(".*load average: ([0-9.]+).*", "\\1", system("uptime", TRUE))

source(file.path("inst", "bench", "movielens-split.R"))
split <- movielens_split()
m <- split$m; n <- split$n
train <- split$train; test <- split$test
bin_train <- transform(train, value = as.numeric(value >= 4))
y_test <- as.numeric(test$value >= 4)
cat(sprintf("MovieLens: train %d, test %d (%d users x %d movies); share >= 4: %.3f\n",
            nrow(train), nrow(test), m, n, mean(bin_train$value)))
sep <- tapply(bin_train$value, bin_train$col, function(v) all(v == 1) || all(v == 0))
cat(sprintf("movies whose training ratings are all >= 4 or all < 4 (infinite unpenalized effect): %d of %d; test entries on them: %d\n",
            sum(sep), length(sep), sum(test$col %in% as.integer(names(sep)[sep]))))

auc <- function(score, y) {
  r <- rank(score); n1 <- sum(y); n0 <- length(y) - n1
  (sum(r[y == 1]) - n1 * (n1 + 1) / 2) / (n1 * n0)
}
rows <- list()
add <- function(...) {
  rows[[length(rows) + 1L]] <<- transform(data.frame(...), objective = as.double(objective), gap = as.double(gap))
  r <- rows[[length(rows)]]
  cat(sprintf("  %-34s %-28s %7.2f s  objective %-10s gap %-9s AUC %.4f\n", r$model, r$setting,
              r$seconds, formatC(r$objective, digits = 6, format = "g"),
              formatC(r$gap, digits = 2, format = "g"), r$auc))
}
timed <- function(expr) {
  st <- system.time(v <- expr, gcFirst = FALSE)
  list(value = v, time = st[["elapsed"]], cpu = st[["user.self"]] + st[["sys.self"]])
}
FW_IT <- 50L
GAU_IT <- 50L
bin_fit <- function(model, center, ridge, radius, method = "fw", it = FW_IT) {
  r <- timed(complete_matrix(bin_train, radius = radius, family = "binomial", center = center,
                             effects_ridge = ridge, method = method, dims = c(m, n),
                             control = cg_control(max_iter = it, tol = 0, eval_every = it)))
  f <- r$value
  add(model = model, setting = sprintf("%s, radius %g, %d it.", method, radius, it),
      seconds = r$time, cpu = r$cpu, objective = f$objective, gap = f$gap,
      auc = auc(predict(f, test), y_test), rank = f$rank)
}

# ---------------------------------------------------------- binomial
cat("binomial (ratings >= 4):\n")
eff <- NULL
r <- timed(eff <- stochcg:::center_effects(list(row = train$row, col = train$col,
                                                  value = bin_train$value, dims = c(m, n)), "both"))
add(model = "additive only, least squares", setting = "old gaussian centering of 0/1",
    seconds = r$time, cpu = r$cpu, objective = NA, gap = NA,
    auc = auc(eff$mean + eff$row[test$row] + eff$col[test$col], y_test), rank = 0L)
bin_fit("additive only, logistic", "both", 0, 1e-9)
bin_fit("additive only, logistic, ridge 1", "both", 1, 1e-9)
radii <- c(250, 500, 1000, 2000)
for (rad in radii) bin_fit("uncentred (center = none)", "none", 0, rad)
for (rad in radii) bin_fit("centred (center = both)", "both", 0, rad)
for (rad in radii) bin_fit("centred + effects_ridge = 1", "both", 1, rad)
set.seed(1)
bin_fit("uncentred (center = none)", "none", 0, 1000, "sfw", 1000L)
set.seed(1)
bin_fit("centred (center = both)", "both", 0, 1000, "sfw", 1000L)
set.seed(1)
bin_fit("centred + effects_ridge = 1", "both", 1, 1000, "sfw", 1000L)
bin <- do.call(rbind, rows)

# ---------------------------------------------------------- gaussian
cat("gaussian (stars), test RMSE:\n")
clip <- function(p) pmin(pmax(p, 0.5), 5)
g_rows <- list()
for (rad in c(463, 695)) {
  ctl <- cg_control(max_iter = GAU_IT, tol = 0, eval_every = GAU_IT)
  a <- timed(complete_matrix(train, radius = rad, center = "both", method = "fw",
                             dims = c(m, n), control = ctl))
  b <- timed({
    e <- stochcg:::center_effects(list(row = train$row, col = train$col, value = train$value,
                                       dims = c(m, n)), "both")
    res <- transform(train, value = value - e$mean - e$row[row] - e$col[col])
    list(e = e, f = complete_matrix(res, radius = rad, method = "fw", dims = c(m, n),
                                    control = ctl))
  })
  pa <- predict(a$value, test)
  pb <- predict(b$value$f, test) + b$value$e$mean + b$value$e$row[test$row] +
    b$value$e$col[test$col]
  # both objectives of the joint problem: the old fit's X and effects
  # evaluated in it (its effects are feasible, so it is an upper bound)
  old_obj <- mean((train$value - (predict(b$value$f, train) + b$value$e$mean +
                                  b$value$e$row[train$row] + b$value$e$col[train$col]))^2) / 2
  for (k in 1:2) {
    g_rows[[length(g_rows) + 1L]] <- data.frame(
      model = c("joint effects (center = both, now)", "effects removed first (before)")[k],
      setting = sprintf("fw, radius %g, %d it.", rad, GAU_IT),
      seconds = c(a$time, b$time)[k], cpu = c(a$cpu, b$cpu)[k], objective = c(a$value$objective, old_obj)[k],
      gap = c(a$value$gap, NA)[k],
      rmse = sqrt(mean((clip(list(pa, pb)[[k]]) - test$value)^2)))
    g <- g_rows[[length(g_rows)]]
    cat(sprintf("  %-36s %-24s %6.2f s  objective %.6f  RMSE %.4f\n", g$model, g$setting,
                g$seconds, g$objective, g$rmse))
  }
}
gau <- do.call(rbind, g_rows)

# ---------------------------------------------------------- write
write.csv(rbind(transform(bin, family = "binomial", rmse = NA),
                transform(gau, family = "gaussian", auc = NA, rank = NA)),
          file.path(out_dir, "completion_effects.csv"), row.names = FALSE)
best <- function(model) { r <- bin[bin$model == model, ]; r[which.max(r$auc), ] }
b_unc <- best("uncentred (center = none)"); b_cen <- best("centred (center = both)")
b_rdg <- best("centred + effects_ridge = 1")
add_ls <- bin[bin$model == "additive only, least squares", ]
add_lg <- bin[bin$model == "additive only, logistic", ]
add_rg <- bin[bin$model == "additive only, logistic, ridge 1", ]
verdict <- c(
  sprintf("uncentred best AUC %.4f (%s); additive only: least squares %.4f, logistic %.4f, logistic with ridge 1 %.4f.",
          b_unc$auc, b_unc$setting, add_ls$auc, add_lg$auc, add_rg$auc),
  sprintf("centred (unpenalized effects) best AUC %.4f (%s): %s the uncentred fit and the logistic additive model, %s the least-squares additive model.",
          b_cen$auc, b_cen$setting, if (b_cen$auc > max(b_unc$auc, add_lg$auc)) "beats" else "does not beat",
          if (b_cen$auc > add_ls$auc) "beats" else "not"),
  sprintf("centred with effects_ridge = 1 best AUC %.4f (%s): %s every additive-only model (best %.4f).",
          b_rdg$auc, b_rdg$setting,
          if (b_rdg$auc > max(add_ls$auc, add_lg$auc, add_rg$auc)) "beats" else "does not beat",
          max(add_ls$auc, add_lg$auc, add_rg$auc)))
f4 <- function(x) ifelse(is.na(x), "", formatC(x, digits = 4, format = "f"))
fg <- function(x) ifelse(is.na(x), "", formatC(x, digits = 3, format = "g"))
md_table <- function(df) {
  c(paste("|", paste(names(df), collapse = " | "), "|"),
    paste("|", paste(rep("---", ncol(df)), collapse = " | "), "|"),
    apply(df, 1, function(r) paste("|", paste(r, collapse = " | "), "|")))
}
md <- c("# Joint row/column effects in complete_matrix() (MovieLens)", "",
        sprintf(paste("Generated by `Rscript inst/bench/completion_effects.R` on %s; R %s, stochcg %s;",
                      "load %s at the start (2 shared cores). fw is the default with its subspace",
                      "refit: %d iterations (plain fw had 150 binomial and 200 gaussian, which",
                      "the refit does not need). Seconds: wall; cpu: user + system."),
                format(Sys.time(), "%Y-%m-%d %H:%M"), getRversion(), packageVersion("stochcg"),
                load0, FW_IT),
        "", sprintf(paste("Split of `inst/bench/movielens-split.R`: train %d, test %d ratings,",
                          "%d users x %d movies; binary y = rating >= 4 (share %.3f). %d of %d",
                          "movies have training ratings all >= 4 or all < 4, so their",
                          "unpenalized logistic effect is infinite (the fit stops it where its",
                          "loss no longer registers); %d test entries fall on them."),
                    nrow(train), nrow(test), m, n, mean(bin_train$value), sum(sep), length(sep),
                    sum(test$col %in% as.integer(names(sep)[sep]))),
        "", "## Binomial: held-out AUC", "", paste0("- ", verdict), "",
        md_table(data.frame(model = bin$model, setting = bin$setting,
                            seconds = formatC(bin$seconds, digits = 2, format = "f"),
                            cpu = formatC(bin$cpu, digits = 2, format = "f"),
                            objective = fg(bin$objective), gap = fg(bin$gap),
                            AUC = f4(bin$auc), rank = bin$rank)),
        "", "## Gaussian: joint effects against effects removed first", "",
        paste("Objective of the joint problem (1/(2N) sum of squares on train) at each fit's",
              "X and effects, and the clipped test RMSE."), "",
        md_table(data.frame(model = gau$model, setting = gau$setting,
                            seconds = formatC(gau$seconds, digits = 2, format = "f"),
                            cpu = formatC(gau$cpu, digits = 2, format = "f"),
                            objective = formatC(gau$objective, digits = 6, format = "f"),
                            gap = fg(gau$gap), test_RMSE = f4(gau$rmse))),
        "", sprintf("Total script time: %.0f s.", proc.time()[["elapsed"]] - t_script))
writeLines(md, file.path(out_dir, "completion_effects.md"))
cat("\n", paste0(verdict, "\n"), sep = "")
