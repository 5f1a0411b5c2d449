# cv_sparse_regression() for family = "binomial" and "poisson" against
# cv.glmnet (issue 25): the default radius grid as it was ("main": its top
# the l1 norm of one Newton step from the null model, no radii beyond it:
# options(stochcg.cv_extend = FALSE), on the build run) and as it is (the
# grid goes on upward while the CV minimum is at its largest radius, the
# paths ending after their first fit that explains 99.9% of the null
# deviance, glmnet's rule), side by side with
# cv.glmnet in one run: the same 10 fold ids, the standardized defaults of
# both (intercept, standardize = TRUE), 80% of the rows for training and
# 20% for the test deviance of the one-SE fits.
# Designs: simulated n >> p and p >> n (10 true coefficients among
# independent columns, sd 2 (binomial) and 0.5 (poisson) on the linear
# predictor), Colon (plsgenomics; tumour vs normal) and Khan (ISLR; class 2
# vs the rest) gene expression, dslabs::brca (569 x 30), MASS's Pima
# diabetes data with the pairwise products of its 7 columns, MASS::quine
# (days absent, Poisson, all interactions of its 4 factors).
# CPU seconds (user + sys) and wall seconds of one call each (or medians
# of STOCHCG_BENCH_REPS calls), the load average at the start of each row.
#
# Run from the repository root:  Rscript inst/bench/cv_glm.R
# (STOCHCG_BENCH_OUT: the results file, default inst/bench/results/cv_glm.md;
# with a build before the option existed both columns are that build's)
suppressPackageStartupMessages(library(stochcg))
stopifnot(requireNamespace("glmnet", quietly = TRUE))
Sys.setenv(STOCHCG_BENCH_DEFS_ONLY = "1")
source("inst/bench/cv_regression_wide.R")        # timed(), fmt(), md_table()

# glm_sim(): the simulated GLM designs of cv_regression_grid.R (its definition only)
for (e in parse("inst/bench/cv_regression_grid.R"))
  if (is.call(e) && identical(e[[1]], as.name("<-")) && identical(e[[2]], as.name("glm_sim")))
    eval(e)
pkg_data <- function(pkg, name, make) function() {
  if (!requireNamespace(pkg, quietly = TRUE)) return(NULL)
  e <- new.env()
  utils::data(list = name, package = pkg, envir = e)
  make(e[[name]])
}
products <- function(X) {          # the columns and their pairwise products
  X <- scale(X)
  P <- combn(ncol(X), 2, function(ij) X[, ij[1]] * X[, ij[2]])
  unname(cbind(X, P))
}
cases <- list(
  list("binomial 2000x100", glm_sim(2000, 100, "binomial"), "binomial"),
  list("poisson 2000x100", glm_sim(2000, 100, "poisson"), "poisson"),
  list("binomial 5000x50", glm_sim(5000, 50, "binomial"), "binomial"),
  list("binomial 200x2000", glm_sim(200, 2000, "binomial"), "binomial"),
  list("poisson 200x2000", glm_sim(200, 2000, "poisson"), "poisson"),
  list("Colon", pkg_data("plsgenomics", "Colon", function(d) list(X = d$X, y = as.double(d$Y == 2))),
       "binomial"),
  list("Khan class 2", pkg_data("ISLR", "Khan", function(d)
    list(X = rbind(d$xtrain, d$xtest), y = as.double(c(d$ytrain, d$ytest) == 2))), "binomial"),
  list("brca", pkg_data("dslabs", "brca", function(d) list(X = d$x, y = as.double(d$y == "M"))),
       "binomial"),
  list("Pima x2", pkg_data("MASS", "Pima.tr", function(d) {
    d <- rbind(d, MASS::Pima.te)
    list(X = products(as.matrix(d[, 1:7])), y = as.double(d$type == "Yes"))
  }), "binomial"),
  list("quine", pkg_data("MASS", "quine", function(d) {
    X <- model.matrix(Days ~ Eth * Sex * Age * Lrn, d)[, -1]
    list(X = X[, colSums(X != 0) > 0], y = d$Days)
  }), "poisson"))
only <- Sys.getenv("STOCHCG_BENCH_DATA")
if (nzchar(only)) cases <- Filter(function(cs) cs[[1]] %in% strsplit(only, ",")[[1]], cases)

run_glm_case <- function(name, make, family, seed = 1) {
  d <- make()
  if (is.null(d)) return(NULL)
  sp <- split_case(d, seed)
  X <- sp$X; y <- sp$y; Xt <- sp$Xt; yt <- sp$yt; foldid <- sp$foldid
  g <- timed(function() glmnet::cv.glmnet(X, y, foldid = foldid, family = family))
  ours <- function(extend) {
    old <- options(stochcg.cv_extend = extend); on.exit(options(old))
    timed(function() suppressWarnings(cv_sparse_regression(X, y, folds = foldid,
                                                           family = family)))
  }
  o_old <- ours(FALSE); o_new <- ours(TRUE)
  G <- g$value; A <- o_old$value; B <- o_new$value
  dev <- function(mu) switch(family,
                             binomial = -2 * (yt * log(mu) + (1 - yt) * log(1 - mu)),
                             poisson = 2 * (ifelse(yt > 0, yt * log(yt / mu), 0) - (yt - mu)))
  tdev <- function(f) mean(dev(predict(f, Xt, type = "response")))
  top <- function(cv) cv$cv$radius[nrow(cv$cv)]
  data.frame(data = name, n = nrow(X), p = ncol(X),
             nnz_main = sum(A$fit$solution$beta != 0), nnz_new = sum(B$fit$solution$beta != 0),
             nnz_glmnet = G$nzero[G$lambda == G$lambda.1se],
             dev_main = tdev(A), dev_new = tdev(B),
             dev_glmnet = mean(dev(as.vector(predict(G, Xt, s = "lambda.1se", type = "response")))),
             min_at_top_main = A$index[["min"]] == nrow(A$cv),
             cpu_main = o_old$cpu, cpu_new = o_new$cpu, cpu_glmnet = g$cpu,
             ratio_main = o_old$cpu / g$cpu, ratio_new = o_new$cpu / g$cpu,
             wall_main = o_old$wall, wall_new = o_new$wall, wall_glmnet = g$wall,
             radii_main = nrow(A$cv), radii_new = nrow(B$cv),
             unconv_new = sum(!B$cv$converged), load = sp$load, row.names = NULL)
}

out_file <- Sys.getenv("STOCHCG_BENCH_OUT", "inst/bench/results/cv_glm.md")
res <- NULL
for (cs in cases) {
  row <- run_glm_case(cs[[1]], cs[[2]], cs[[3]])
  if (is.null(row)) next
  print(row, digits = 3)
  res <- rbind(res, row)
  out <- c(bench_header("cv_sparse_regression for binomial and poisson: the grid past its top, with cv.glmnet"),
           paste("`inst/bench/cv_glm.R`. Same 10 fold ids, standardized defaults of both,",
                 "80% of the rows for training (n is theirs). `main`: the default grid as on",
                 "main, on the build run (`options(stochcg.cv_extend = FALSE)`: no radius past",
                 "the top, no deviance rule), `new`: the grid going on upward while the CV",
                 "minimum is at its largest radius, the paths ending at 99.9% of the null",
                 "deviance explained.",
                 "`nnz_*`: nonzero coefficients of the one-SE fit; `dev_*`: its mean test",
                 "deviance on the 20% held out; `min_at_top_main`: main's CV minimum at its",
                 "largest radius; `cpu_*` CPU seconds (user + sys) and `wall_*` wall seconds",
                 "of one CV call; `ratio_*`: ours / cv.glmnet in CPU; `radii_*`: radii fitted;",
                 "`unconv_new`: radii with a fit short of tol; `load`: 1-minute load average",
                 "(2 shared cores)."),
           "", md_shown(res))
  dir.create("inst/bench/results", showWarnings = FALSE, recursive = TRUE)
  writeLines(out, out_file)
}
cat(readLines(out_file), sep = "\n")
