# Issue 25, gap 8 of the audit: cv_sparse_regression()'s default grid now
# starts at radius 0, the null model (glmnet's lambda_max). Choices on
# no-signal and weak-signal designs: before (options(stochcg.cv_null =
# FALSE): main's CV, identical rows) and after, against cv.glmnet on the
# same folds. Test loss: mean deviance (binomial) or MSE (gaussian) on the
# rows held out of the CV.
#   Rscript inst/bench/cv_nullmodel.R   (writes inst/bench/results/cv_nullmodel.md)
suppressPackageStartupMessages({ library(stochcg); library(glmnet); library(Matrix) })
cpu <- function(expr) { t <- proc.time(); v <- force(expr); list(v = v, t = proc.time() - t) }
loss <- function(fam, y, mu) if (fam == "binomial") {
  mu <- pmin(pmax(mu, 1e-15), 1 - 1e-15); mean(-2 * (y * log(mu) + (1 - y) * log(1 - mu)))
} else mean((y - mu)^2)
data(mice, package = "spls")
designs <- list(
  mice_bin = function(s) {            # the audit's reproducer (s = 1: its split)
    y <- as.numeric(mice$y[, 2] > median(mice$y[, 2]))
    set.seed(s); tr <- sample(60, 42)
    list(X = mice$x, y = y, tr = tr, family = "binomial", seed = s + 1)
  },
  noise_gauss = function(s) {         # no signal, p >> n
    set.seed(100 + s); X <- matrix(rnorm(120 * 500), 120)
    list(X = X, y = rnorm(120), tr = 1:80, family = "gaussian", seed = s)
  },
  weak_sparse_bin = function(s) {     # weak signal, sparse X (dev/compare_regression.R's sparse_bin)
    set.seed(200 + s); X <- rsparsematrix(450, 400, 0.05)
    y <- rbinom(450, 1, plogis(drop(X[, 1:5] %*% c(2, -1, 1, 1, -2))))
    list(X = X, y = y, tr = 1:300, family = "binomial", seed = s)
  })
rows <- list()
for (nm in names(designs)) for (s in 1:3) {
  d <- designs[[nm]](s)
  Xt <- d$X[d$tr, ]; yt <- d$y[d$tr]; Xh <- d$X[-d$tr, ]; yh <- d$y[-d$tr]
  set.seed(d$seed)
  new <- cpu(cv_sparse_regression(Xt, yt, family = d$family))
  op <- options(stochcg.cv_null = FALSE)
  set.seed(d$seed)
  old <- cpu(cv_sparse_regression(Xt, yt, family = d$family))
  options(op)
  g <- cpu(cv.glmnet(Xt, yt, family = d$family, foldid = new$v$foldid))
  tl <- function(cv) loss(d$family, yh, predict(cv, Xh, type = "response"))
  tg <- loss(d$family, yh, drop(predict(g$v, Xh, s = "lambda.1se", type = "response")))
  rows[[length(rows) + 1L]] <- data.frame(
    design = nm, split = s, n = length(d$tr), p = ncol(d$X),
    nz_main = sum(coef(old$v)[-1] != 0), nz_new = sum(coef(new$v)[-1] != 0),
    nz_glmnet = g$v$nzero[[g$v$index[2]]],
    null_cvm = new$v$cv$cvm[1], first_cvm = new$v$cv$cvm[2],
    test_main = tl(old$v), test_new = tl(new$v), test_glmnet = tg,
    cpu_new = sum(new$t[1:2]), cpu_main = sum(old$t[1:2]), cpu_glmnet = sum(g$t[1:2]),
    wall_new = new$t[[3]], wall_glmnet = g$t[[3]])
}
tab <- do.call(rbind, rows)
load <- paste(trimws(system("uptime", intern = TRUE)))
print(tab, digits = 4)
cat(load, "\n")
fmt <- function(x) if (is.numeric(x)) format(signif(x, 4)) else as.character(x)
md <- c("# cv_sparse_regression: the null model (radius 0) in the default grid",
        "", sprintf("`Rscript inst/bench/cv_nullmodel.R`, %s; %s", format(Sys.time(), "%Y-%m-%d %H:%M UTC", tz = "UTC"), load), "",
        "nz_*: nonzero coefficients at the one-SE choice (main = `options(stochcg.cv_null = FALSE)`,",
        "new = the default grid with radius 0, glmnet = cv.glmnet on the same folds); test_*: held-out",
        "mean deviance (binomial) / MSE (gaussian) of that choice; cpu_* (user+sys) and wall_* seconds.", "",
        paste0("| ", paste(names(tab), collapse = " | "), " |"),
        paste0("|", paste(rep("---", ncol(tab)), collapse = "|"), "|"))
for (i in seq_len(nrow(tab))) md <- c(md, paste0("| ", paste(vapply(tab[i, ], fmt, ""), collapse = " | "), " |"))
out <- if (dir.exists("inst/bench/results")) "inst/bench/results/cv_nullmodel.md" else "cv_nullmodel.md"
writeLines(md, out)
cat("written to", out, "\n")
