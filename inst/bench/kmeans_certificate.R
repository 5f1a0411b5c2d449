# kmeans_sdp() with its defaults on small public data sets (none used by the
# tests): does the fit stop CERTIFIED (converged: |gap| and infeasibility
# within tol = 1e-3) before max_iter, and how far is the certified lower
# bound from the objective? Prints a markdown table (rel_gap = gap /
# |objective|; negative: the nearly feasible iterate's objective lies below
# the certified bound), CPU (user + sys) and wall seconds of each fit.
# Run from the package root:
#   Rscript inst/bench/kmeans_certificate.R
# With STOCHCG_COMPARE_LIB=/path/to/other/library each set is also fitted by
# the stochcg installed there, side by side in the same run (one child
# Rscript per fit, alternating), e.g. to compare a branch with main.
sets <- list(
  iris = function() list(as.matrix(iris[, 1:4]), 3),
  faithful = function() list(scale(as.matrix(faithful)), 2),
  USArrests = function() list(scale(as.matrix(USArrests)), 4),
  swiss = function() list(scale(as.matrix(swiss)), 3),
  planted300 = function() { set.seed(5); cen <- matrix(rnorm(15, sd = 3), 3)
                            list(cen[rep(1:3, each = 100), ] + matrix(rnorm(1500), 300), 3) },
  ruspini = function() list(scale(as.matrix(cluster::ruspini)), 4),
  mtcars = function() list(scale(as.matrix(mtcars)), 3))
one <- function(nm) {
  suppressPackageStartupMessages(library(stochcg))
  s <- sets[[nm]]()
  set.seed(1)
  t0 <- proc.time()
  f <- kmeans_sdp(s[[1]], s[[2]])
  t <- proc.time() - t0
  sprintf("| %s | %d | %d | %d | %s | %.6g | %.6g | %.2e | %.2f | %.2f |", nm, nrow(s[[1]]),
          s[[2]], f$iterations, f$converged, f$objective, f$lower_bound,
          f$gap / abs(f$objective), t[["user.self"]] + t[["sys.self"]], t[["elapsed"]])
}
args <- commandArgs(TRUE)
if (length(args) == 2 && args[1] == "--one") {
  cat(one(args[2]), "\n")
} else {
  other <- Sys.getenv("STOCHCG_COMPARE_LIB")
  self <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))
  libs <- c(if (nzchar(other)) c(compare = other), this = Sys.getenv("R_LIBS"))
  cat("| data | n | k | iterations | converged | objective | lower_bound | rel_gap | cpu_s | wall_s | build |\n",
      "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n", sep = "")
  for (nm in names(sets)) for (b in names(libs)) {
    line <- if (length(libs) == 1) one(nm) else
      system2(file.path(R.home("bin"), "Rscript"), c(self, "--one", nm), stdout = TRUE,
              env = paste0("R_LIBS=", libs[[b]]))
    cat(trimws(line[length(line)]), " ", b, " |\n", sep = "")
  }
  cat("\nload:", readLines("/proc/loadavg", warn = FALSE), "\n")
}
