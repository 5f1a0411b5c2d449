# cv_sparse_regression() for family = "binomial" and "poisson" against
# cv.glmnet on two data sets no other bench script or test uses (issue 25,
# branch glmspeed): ISLR::Caravan (5822 x 85, caravan insurance bought,
# binomial) and MASS::epil (236 x 61: seizure counts of 59 patients over 4
# visits, Poisson; the patient as a factor, with log baseline, log age,
# treatment, visit 4 and their pairwise interactions). As cv_glm.R: 80% of
# the rows for training, the same 10 fold ids, the standardized defaults of
# both; one call each, CPU (user + sys) and wall seconds, the load average.
# nnz: nonzeros of the one-SE fit; dev: its mean test deviance on the 20%.
#
# Run from the repository root:  Rscript inst/bench/cv_glm_newdata.R
# (STOCHCG_BENCH_DATA="epil,quakes" for a subset)
# (STOCHCG_BENCH_OUT: the results file, default
# inst/bench/results/cv_glm_newdata.md)
suppressPackageStartupMessages(library(stochcg))
stopifnot(requireNamespace("glmnet", quietly = TRUE))
Sys.setenv(STOCHCG_BENCH_DEFS_ONLY = "1")
source("inst/bench/cv_regression_wide.R")        # timed(), split_case(), md_shown()

cases <- list()
if (requireNamespace("ISLR", quietly = TRUE))
  cases$Caravan <- list(family = "binomial", make = function() {
    d <- ISLR::Caravan
    list(X = as.matrix(d[, names(d) != "Purchase"]), y = as.double(d$Purchase == "Yes"))
  })
if (requireNamespace("MASS", quietly = TRUE))
  cases$epil <- list(family = "poisson", make = function() {
    d <- MASS::epil
    X <- model.matrix(y ~ (lbase + lage + trt + V4)^2 + factor(subject), d)[, -1]
    list(X = X[, colSums(X != 0) > 0], y = d$y)
  })
# (branch glmcd, issue 25) dslabs::tissue_gene_expression (189 x 500 gene
# expressions, cerebellum against the six other tissues, binomial, p >> n)
# and datasets::quakes (1000 earthquakes off Fiji: the number of stations
# reporting each, Poisson, n >> p; B-spline bases of latitude, longitude,
# depth and magnitude, 6 columns each, and the pairwise products of the four)
if (requireNamespace("dslabs", quietly = TRUE))
  cases$tissue <- list(family = "binomial", make = function() {
    d <- dslabs::tissue_gene_expression
    list(X = d$x, y = as.double(d$y == "cerebellum"))
  })
cases$quakes <- list(family = "poisson", make = function() {
  d <- datasets::quakes
  v <- scale(as.matrix(d[, c("lat", "long", "depth", "mag")]))
  B <- do.call(cbind, lapply(seq_len(4), function(j) splines::bs(v[, j], df = 6)))
  P <- combn(4, 2, function(ij) v[, ij[1]] * v[, ij[2]])
  list(X = unname(cbind(B, P)), y = d$stations)
})
only <- Sys.getenv("STOCHCG_BENCH_DATA")
if (nzchar(only)) cases <- cases[intersect(names(cases), strsplit(only, ",")[[1]])]

res <- NULL
for (name in names(cases)) {
  cs <- cases[[name]]
  d <- cs$make()
  sp <- split_case(d, 1)
  family <- cs$family
  g <- timed(function() glmnet::cv.glmnet(sp$X, sp$y, foldid = sp$foldid, family = family))
  o <- timed(function() suppressWarnings(cv_sparse_regression(sp$X, sp$y, folds = sp$foldid,
                                                              family = family)))
  G <- g$value; B <- o$value
  yt <- sp$yt
  dev <- function(mu) switch(family,
                             binomial = -2 * (yt * log(mu) + (1 - yt) * log(1 - mu)),
                             poisson = 2 * (ifelse(yt > 0, yt * log(yt / mu), 0) - (yt - mu)))
  row <- data.frame(data = name, family = family, n = nrow(sp$X), p = ncol(sp$X),
                    nnz_ours = sum(B$fit$solution$beta != 0),
                    nnz_glmnet = G$nzero[G$lambda == G$lambda.1se],
                    dev_ours = mean(dev(predict(B, sp$Xt, type = "response"))),
                    dev_glmnet = mean(dev(as.vector(predict(G, sp$Xt, s = "lambda.1se",
                                                            type = "response")))),
                    radius_1se = B$radius.1se, cpu_ours = o$cpu, cpu_glmnet = g$cpu,
                    ratio = o$cpu / g$cpu, wall_ours = o$wall, wall_glmnet = g$wall,
                    radii = nrow(B$cv), unconv = sum(!B$cv$converged), load = sp$load,
                    row.names = NULL)
  print(row, digits = 4)
  res <- rbind(res, row)
}
out_file <- Sys.getenv("STOCHCG_BENCH_OUT", "inst/bench/results/cv_glm_newdata.md")
writeLines(c(bench_header("cv_sparse_regression, binomial and Poisson, on data no other bench uses"),
             "`inst/bench/cv_glm_newdata.R` (see its header for the columns).", "",
             md_shown(res)), out_file)
