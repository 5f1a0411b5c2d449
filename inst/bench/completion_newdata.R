# cv_complete_matrix()'s defaults on matrices no other test or benchmark of
# the package tunes on, against softImpute's usual tuning, side by side in
# one run (issue 25). Each matrix: 20% of its entries hidden at random
# (seed 1) as the test set; the rest is the training set.
#   tissue    dslabs::tissue_gene_expression$x, 189 x 500 (values ~7: uncentred)
#   gasoline  pls::gasoline NIR spectra, 60 x 401
#   khan      ISLR::Khan xtrain + xtest, 83 x 2308
#   ALL       Biobase::exprs(ALL::ALL), the 5000 genes of largest variance,
#             transposed: 128 x 5000 (skipped when ALL/Biobase are absent)
#   yarn      pls::yarn NIR spectra, 28 x 268
#   nci60, movielens   as in inst/bench/completion_tuning.R (movielens: each
#             user's latest 10% of ratings held out)
# softImpute: si_tune() of completion_tuning.R (effects removed by least
# squares, 12 lambdas from lambda0() down to lambda0 / 100, warm starts, a
# 10% validation subset, rank.max 50, then the chosen lambda refitted).
# stochcg: cv_complete_matrix(train, dims =) with its defaults (center =
# "none"), and with center = "both"; test RMSE of the returned fit
# (radius.1se), its rank, the radii fitted and the position of radius.min
# among them ("edge" when it is the last).
# Seconds: CPU (user + system of this process) and wall; the load is printed.
# Run from the repository root (the library in R_LIBS is the one measured):
#   Rscript inst/bench/completion_newdata.R [label] [set,set,...] [center,center]
# Rows are appended to inst/bench/results/completion_newdata.csv with the
# label (e.g. "main" or "branch"); the .md table is rewritten from the csv.
suppressPackageStartupMessages(library(stochcg))
stopifnot(requireNamespace("softImpute", quietly = TRUE),
          requireNamespace("dslabs", quietly = TRUE),
          requireNamespace("ISLR", quietly = TRUE),
          requireNamespace("pls", quietly = TRUE))

# the peer's procedure, the splits and the timers: the function definitions
# of completion_tuning.R (one implementation; its top-level code not run)
for (e in parse(file.path("inst", "bench", "completion_tuning.R")))
  if (is.call(e) && identical(e[[1]], as.name("<-")) && is.call(e[[3]]) &&
      identical(e[[3]][[1]], as.name("function"))) eval(e)

args <- commandArgs(TRUE)
label <- if (length(args) >= 1L) args[1L] else "run"
e <- new.env()
sets <- list(
  tissue = function() hide_split(dslabs::tissue_gene_expression$x),
  gasoline = function() { utils::data(gasoline, package = "pls", envir = e)
                          hide_split(unclass(e$gasoline$NIR)) },
  khan = function() { utils::data(Khan, package = "ISLR", envir = e)
                      hide_split(rbind(e$Khan$xtrain, e$Khan$xtest)) },
  ALL = function() {
    if (!requireNamespace("ALL", quietly = TRUE) || !requireNamespace("Biobase", quietly = TRUE))
      return(NULL)
    utils::data(ALL, package = "ALL", envir = e)
    X <- t(Biobase::exprs(e$ALL)); v <- apply(X, 2, stats::var)
    hide_split(X[, order(-v)[1:5000]]) },
  yarn = function() { utils::data(yarn, package = "pls", envir = e)
                      hide_split(unclass(e$yarn$NIR)) },
  nci60 = function() nci60_split(),
  movielens = function() movielens_latest())
if (length(args) >= 2L) sets <- sets[strsplit(args[2L], ",")[[1]]]
centers <- if (length(args) >= 3L) strsplit(args[3L], ",")[[1]] else c("none", "both")

rows <- list()
for (nm in names(sets)) {
  d <- sets[[nm]]()
  if (is.null(d)) next
  gc()
  pt <- proc.time(); st <- si_tune(d); t_si <- cpu(pt)
  r_si <- rmse(si_predict(st$full, st$full$fit, d$test), d$test$value)
  ours <- function(center) {
    gc()
    pt <- proc.time(); set.seed(11)
    cvf <- cv_complete_matrix(d$train, dims = c(d$m, d$n), center = center)
    t <- cpu(pt)
    nr <- nrow(cvf$cv); imin <- cvf$index[["min"]]
    data.frame(set = nm, dims = sprintf("%dx%d", d$m, d$n), version = label,
               si_rmse = r_si, si_cpu = t_si[["cpu"]], si_wall = t_si[["wall"]],
               si_rank = sum(st$full$fit$d > 0), center = center,
               rmse = rmse(predict(cvf$fit, d$test), d$test$value),
               cpu = t[["cpu"]], wall = t[["wall"]], rank = cvf$fit$rank,
               radii = nr, min_at = if (imin == nr) "edge" else sprintf("%d of %d", imin, nr),
               radius_min = cvf$radius.min, load = load_now())
  }
  for (cen in centers) {
    r <- ours(cen)
    print(r, row.names = FALSE)
    rows[[length(rows) + 1L]] <- r
  }
}
res <- do.call(rbind, rows)
csv <- file.path("inst", "bench", "results", "completion_newdata.csv")
all <- if (file.exists(csv)) rbind(utils::read.csv(csv, stringsAsFactors = FALSE), res) else res
utils::write.csv(all, csv, row.names = FALSE)
fmt <- function(x, d) formatC(x, digits = d, format = "f")
md <- c("# cv_complete_matrix() defaults on new matrices vs softImpute's tuning", "",
        "Written by inst/bench/completion_newdata.R (header: data and procedures).",
        "CPU and wall seconds; ratio = our CPU / softImpute's CPU.", "",
        paste("| set | dims | version | center | softImpute rmse / CPU / wall / rank |",
              "ours rmse / CPU / wall / rank | rmse vs SI | CPU ratio | radii | min at |",
              "load |"),
        "|---|---|---|---|---|---|---|---|---|---|---|",
        sprintf("| %s | %s | %s | %s | %s / %s / %s / %d | %s / %s / %s / %d | %+.2f%% | %.2f | %d | %s | %.1f |",
                all$set, all$dims, all$version, all$center, fmt(all$si_rmse, 4),
                fmt(all$si_cpu, 1), fmt(all$si_wall, 1), all$si_rank, fmt(all$rmse, 4),
                fmt(all$cpu, 1), fmt(all$wall, 1), all$rank,
                100 * (all$rmse / all$si_rmse - 1), all$cpu / all$si_cpu, all$radii,
                all$min_at, all$load))
writeLines(md, file.path("inst", "bench", "results", "completion_newdata_table.md"))
