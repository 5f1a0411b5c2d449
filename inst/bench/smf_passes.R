# stochastic_mf's default stop (outer = NULL: vr until f changes by <= 1e-4
# over an outer iteration, within a data-size cap) against the old default
# (outer = 10, identical to giving outer = 10 now) and NMF::nmf (lee,
# brunet) on data sets outside the tests, plus two of the bench's shapes.
# Relative error ||Y - fitted|| / ||Y||, CPU s (user + sys), passes.
# Rscript inst/bench/smf_passes.R  (writes inst/bench/results/smf_passes.csv)
suppressPackageStartupMessages({ library(stochcg); library(NMF) })
cpu <- function(expr) { t0 <- proc.time(); v <- force(expr); t1 <- proc.time() - t0
  list(v = v, cpu = t1[[1]] + t1[[2]], wall = t1[[3]]) }
sets <- list()
sets$UScereal <- list(Y = t(as.matrix(MASS::UScereal[, sapply(MASS::UScereal, is.numeric)])), k = 3)
data(gasoline, package = "pls")
sets$gasoline <- list(Y = t(unclass(gasoline$NIR) - min(gasoline$NIR)), k = 3)
sets$Boston <- list(Y = t(as.matrix(MASS::Boston)), k = 3)
sets$USArrests <- list(Y = t(as.matrix(USArrests)), k = 2)
e <- new.env(); utils::data("tissue_gene_expression", package = "dslabs", envir = e)
sets$tissue <- list(Y = t(e$tissue_gene_expression$x), k = 5)
e <- new.env(); utils::data("esGolub", package = "NMF", envir = e)
sets$esGolub <- list(Y = Biobase::exprs(e$esGolub), k = 5, nmf = FALSE)
planted <- function(d, n, kp, seed) { set.seed(seed)
  W <- abs(matrix(rnorm(d * kp), d)); W %*% matrix(rexp(kp * n), kp) + 0.01 * abs(matrix(rnorm(d * n), d)) }
sets$planted2000 <- list(Y = planted(50, 2000, 5, 3), k = 5, nmf = FALSE)
sets$planted20000 <- list(Y = planted(100, 20000, 5, 4), k = 5, nmf = FALSE)
only <- commandArgs(TRUE)
if (length(only)) sets <- sets[only]
rows <- list()
for (nm in names(sets)) {
  s <- sets[[nm]]; Y <- s$Y; rel <- function(F) norm(Y - F, "F") / norm(Y, "F")
  for (model in c("onmf", "odl")) for (what in c("outer=10 (old default)", "default")) {
    set.seed(1)
    r <- cpu(if (what == "default") stochastic_mf(Y, s$k, model = model)
             else stochastic_mf(Y, s$k, model = model, outer = 10))
    f <- r$v
    rows[[length(rows) + 1]] <- data.frame(data = nm, d = nrow(Y), n = ncol(Y), k = s$k,
      fit = paste(model, what), rel_err = signif(rel(fitted(f)), 4), cpu = round(r$cpu, 3),
      wall = round(r$wall, 3), passes = round(max(f$trace$epoch), 1), status = f$status,
      bsum_capped = round(f$bsum_capped, 3))
  }
  if (!isFALSE(s$nmf)) for (meth in c("lee", "brunet")) {
    r <- cpu(nmf(Y, s$k, method = meth, seed = 1))
    rows[[length(rows) + 1]] <- data.frame(data = nm, d = nrow(Y), n = ncol(Y), k = s$k,
      fit = paste("NMF", meth), rel_err = signif(rel(fitted(r$v)), 4), cpu = round(r$cpu, 3),
      wall = round(r$wall, 3), passes = NA, status = "", bsum_capped = NA)
  }
  print(do.call(rbind, rows[vapply(rows, function(x) x$data == nm, NA)]), row.names = FALSE)
}
tab <- do.call(rbind, rows)
cat("load:", system("uptime", intern = TRUE), "\n")
dir.create("inst/bench/results", showWarnings = FALSE)
write.csv(tab, sprintf("inst/bench/results/smf_passes%s.csv",
                       if (length(only)) paste0("_", paste(only, collapse = "_")) else ""),
          row.names = FALSE)
