# kmeans_sdp() with its defaults on small public data sets (none used by the
# tests): does the fit stop CERTIFIED (converged: |gap| and infeasibility
# within tol = 1e-3) before max_iter, and how far is the certified lower
# bound from the objective? Prints a markdown table (rel_gap = gap /
# |objective|; negative: the nearly feasible iterate's objective lies below
# the certified bound). Run from the package root:
#   Rscript inst/bench/kmeans_certificate.R
suppressPackageStartupMessages(library(stochcg))
sets <- list(
  iris = list(as.matrix(iris[, 1:4]), 3),
  faithful = list(scale(as.matrix(faithful)), 2),
  USArrests = list(scale(as.matrix(USArrests)), 4),
  swiss = list(scale(as.matrix(swiss)), 3),
  planted300 = local({ set.seed(5); cen <- matrix(rnorm(15, sd = 3), 3)
                       list(cen[rep(1:3, each = 100), ] + matrix(rnorm(1500), 300), 3) }))
cat("| data | n | k | iterations | converged | objective | lower_bound | rel_gap | seconds |\n",
    "| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n", sep = "")
for (nm in names(sets)) {
  s <- sets[[nm]]
  set.seed(1)
  t0 <- proc.time()
  f <- kmeans_sdp(s[[1]], s[[2]])
  t <- proc.time() - t0
  cat(sprintf("| %s | %d | %d | %d | %s | %.4g | %.4g | %.2e | %.2f |\n", nm, nrow(s[[1]]), s[[2]],
              f$iterations, f$converged, f$objective, f$lower_bound, f$gap / abs(f$objective),
              t[["elapsed"]]))
}
cat("\nload:", readLines("/proc/loadavg", warn = FALSE), "\n")
