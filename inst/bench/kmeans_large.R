# kmeans_sdp() with its defaults (cgal, beta0 "auto", max_iter 5000, tol
# 1e-3) as n grows: planted Gaussian mixtures of inst/bench/sdp.R's
# generator (three well-separated clusters in 2-D: the relaxation is tight,
# its solution the planted partition) at n = 150, 400, 1000, 2000, and real
# sets (iris, faithful, ruspini, swiss, USArrests, and the larger olive
# (dslabs, 572 x 8, k = 3), palmerpenguins (333 x 4, k = 3) and mnist_27
# (dslabs, 800 x 2, k = 2), which no other bench uses), and a p >> n
# mixture (highdim400: 400 x 1000, k = 4, unequal sizes). Does the fit stop
# CERTIFIED (converged) before max_iter, how far apart are its value and its
# certified lower bound, and how do they compare with references: the SDP
# optimum by Rcsdp where it finishes quickly (n <= 80: its Schur complement
# has the n^2 / 2 pair constraints as rows), the planted partition's cost
# (the SDP optimum when the relaxation is tight), and stats::kmeans(nstart =
# 20)'s cost against the cost of the fit's rounded labels.
# Run from the package root:
#   Rscript inst/bench/kmeans_large.R
# With STOCHCG_COMPARE_LIB=/path/to/other/library each set is also fitted by
# the stochcg installed there, side by side in the same run (one child
# Rscript per fit, alternating), e.g. to compare a branch with main.
# KMLARGE_SETS="planted400,iris" selects sets; KMLARGE_OUT names the
# results file (default inst/bench/results/kmeans_large_table.md).
planted <- function(n, k = 3, seed = 1) {      # inst/bench/sdp.R's generator
  set.seed(seed)
  centers <- matrix(c(0, 0, 10, 0, 0, 10), k, byrow = TRUE)
  lab <- rep(seq_len(k), length.out = n)
  list(centers[lab, ] + matrix(rnorm(2 * n), n), k, lab)
}
dslabs_set <- function(name) { e <- new.env(); utils::data(list = name, package = "dslabs", envir = e); e[[name]] }
sets <- list(
  planted150 = function() planted(150), planted400 = function() planted(400),
  planted1000 = function() planted(1000), planted2000 = function() planted(2000),
  iris = function() list(as.matrix(iris[, 1:4]), 3),
  faithful = function() list(scale(as.matrix(faithful)), 2),
  ruspini = function() list(scale(as.matrix(cluster::ruspini)), 4),
  swiss = function() list(scale(as.matrix(swiss)), 3),
  USArrests = function() list(scale(as.matrix(USArrests)), 4),
  penguins = function() list(scale(as.matrix(na.omit(as.data.frame(
    palmerpenguins::penguins)[, 3:6]))), 3),
  olive = function() list(scale(as.matrix(dslabs_set("olive")[, 3:10])), 3),
  mnist27 = function() list(scale(as.matrix(dslabs_set("mnist_27")$train[, 2:3])), 2),
  # p >> n: 400 points in 1000 dimensions, 4 clusters of unequal sizes
  highdim400 = function() {
    set.seed(7); lab <- rep(1:4, c(40, 80, 120, 160))
    cen <- matrix(rnorm(4 * 1000, sd = 0.5), 4)
    list(cen[lab, ] + matrix(rnorm(400 * 1000), 400), 4, lab)
  })
kcost <- function(x, lab) sum(vapply(split(seq_len(nrow(x)), lab), function(i)
  sum(sweep(x[i, , drop = FALSE], 2, colMeans(x[i, , drop = FALSE]))^2), 0))
one <- function(nm) {
  suppressPackageStartupMessages(library(stochcg))
  s <- sets[[nm]]()
  set.seed(1)
  t0 <- proc.time()
  f <- kmeans_sdp(s[[1]], s[[2]])
  t <- proc.time() - t0
  n <- nrow(s[[1]])
  sprintf("| %s | %d | %d | %d | %s | %.7g | %.7g | %.2e | %.1e | %.7g | %.2f | %.2f |", nm, n,
          s[[2]], f$iterations, f$converged, f$objective, f$lower_bound,
          f$gap / abs(f$objective), f$infeasibility / sqrt(n), f$cost,
          t[["user.self"]] + t[["sys.self"]], t[["elapsed"]])
}
# references: Rcsdp's SDP value (n <= 80), the planted cost, kmeans(nstart = 20)
reference <- function(nm) {
  s <- sets[[nm]]()
  x <- s[[1]]; k <- s[[2]]
  set.seed(1)
  km <- stats::kmeans(x, k, nstart = 20)$tot.withinss
  sdp <- NA
  if (nrow(x) <= 80 && requireNamespace("Rcsdp", quietly = TRUE)) {
    source("tests/testthat/helper-sdp.R", local = TRUE)   # ref_kmeans_rcsdp()
    sdp <- ref_kmeans_rcsdp(as.matrix(dist(x))^2, k)$value
  }
  c(kmeans20 = km, rcsdp = sdp, planted = if (length(s) > 2) kcost(x, s[[3]]) else NA)
}
args <- commandArgs(TRUE)
if (length(args) == 2 && args[1] == "--one") {
  cat(one(args[2]), "\n")
} else {
  other <- Sys.getenv("STOCHCG_COMPARE_LIB")
  self <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))
  libs <- c(if (nzchar(other)) c(compare = other), this = Sys.getenv("R_LIBS"))
  pick <- Sys.getenv("KMLARGE_SETS")
  todo <- if (nzchar(pick)) strsplit(pick, ",")[[1]] else names(sets)
  out <- Sys.getenv("KMLARGE_OUT", "inst/bench/results/kmeans_large_table.md")
  lines <- c("| data | n | k | iterations | converged | objective | lower_bound | rel_gap | rel_infeas | rounded_cost | cpu_s | wall_s | build |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
  refs <- character()
  cat(lines, sep = "\n")
  for (nm in todo) {
    r <- reference(nm)
    refs <- c(refs, sprintf("| %s | %.7g | %.7g | %.7g |", nm, r[["rcsdp"]], r[["planted"]], r[["kmeans20"]]))
    for (b in names(libs)) {
      line <- if (length(libs) == 1) one(nm) else
        system2(file.path(R.home("bin"), "Rscript"), c(self, "--one", nm), stdout = TRUE,
                env = paste0("R_LIBS=", libs[[b]]))
      row <- paste0(trimws(line[length(line)]), " ", b, " |")
      cat(row, "\n", sep = "")
      lines <- c(lines, row)
    }
  }
  load <- paste("load (1, 5, 15 min) at the end:", paste(strsplit(readLines("/proc/loadavg", warn = FALSE), " ")[[1]][1:3], collapse = " "))
  refs <- c("| data | rcsdp_sdp_value | planted_cost | kmeans_nstart20_cost |", "| --- | --- | --- | --- |", refs)
  cat("\n", refs, "", load, sep = "\n")
  writeLines(c(lines, "", refs, "", load), out)
}
