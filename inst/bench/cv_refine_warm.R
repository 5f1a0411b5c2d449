# The CV refinement's fold paths warm-started from each fold's own fit at
# the smaller radius (options(stochcg.cv_refine_warm = TRUE), cv_radius())
# against cold fold paths (FALSE): radius.min / radius.1se must be
# identical; CPU medians over alternated reps, same process. The 17 designs
# of the lead's stop-rule check (real gene-expression sets, plsgenomics,
# simulated), standardize = FALSE and TRUE.
# Run from the package root: Rscript inst/bench/cv_refine_warm.R
# (CASES=a,b to select; REPS=3; STOCHCG_RIBOFLAVIN=path of riboflavin.RData)
suppressPackageStartupMessages(library(stochcg))
Sys.setenv(STOCHCG_BENCH_DEFS_ONLY = "1", STOCHCG_BENCH_SIZES = "none")
if (!nzchar(Sys.getenv("STOCHCG_RIBOFLAVIN"))) Sys.setenv(STOCHCG_RIBOFLAVIN = "/tmp/rs/riboflavin.RData")
source("inst/bench/cv_regression_wide.R")
sim2 <- function(n, p, seed) simulated(n, p, seed)()
pls <- function(nm) function() {
  e <- new.env(); utils::data(list = nm, package = "plsgenomics", envir = e); gene_response(e[[nm]]$X)
}
extra <- list(
  riboflavin = function() ribo(),
  lymphoma = function() datasets[["lymphoma gene 1"]](),
  NCI60 = function() datasets[["NCI60 gene 1"]](),
  colon = function() datasets[["Colon gene 1"]](),
  khan = function() datasets[["Khan gene 1"]](),
  prostate = function() datasets[["prostate gene 1"]](),
  leukemia = pls("leukemia"), SRBCT = pls("SRBCT"),
  s50x500 = function() sim2(50, 500, 1), s100x2000 = function() sim2(100, 2000, 1),
  s200x5000 = function() sim2(200, 5000, 1), s2000x5000 = function() sim2(2000, 5000, 1),
  s5000x500 = function() sim2(5000, 500, 1),
  s100x2000b = function() sim2(100, 2000, 2), s200x5000b = function() sim2(200, 5000, 3),
  s1000x3000b = function() sim2(1000, 3000, 4), s300x1000b = function() sim2(300, 1000, 5))
only <- Sys.getenv("CASES"); if (nzchar(only)) extra <- extra[strsplit(only, ",")[[1]]]
REPS <- as.integer(Sys.getenv("REPS", "3"))
cpu_of <- function(t) t[["user.self"]] + t[["sys.self"]]
rows <- list()
for (nm in names(extra)) {
  d <- tryCatch(extra[[nm]](), error = function(e) NULL)
  if (is.null(d)) { cat(nm, "missing\n"); next }
  sp <- split_case(d)
  for (std in c(FALSE, TRUE)) {
    reps <- if (ncol(sp$X) * nrow(sp$X) > 2e6) 1L else REPS
    cpu <- wall <- matrix(NA, reps, 2); res <- vector("list", 2)
    for (r in seq_len(reps)) for (j in if (r %% 2) 1:2 else 2:1) {
      options(stochcg.cv_refine_warm = j == 2)
      gc()
      t0 <- proc.time()
      cv <- suppressWarnings(cv_sparse_regression(sp$X, sp$y, folds = sp$foldid, standardize = std))
      t <- proc.time() - t0
      cpu[r, j] <- cpu_of(t); wall[r, j] <- t[["elapsed"]]; res[[j]] <- cv
    }
    same <- identical(res[[1]]$radius.min, res[[2]]$radius.min) &&
      identical(res[[1]]$radius.1se, res[[2]]$radius.1se)
    row <- data.frame(design = nm, n = nrow(sp$X), p = ncol(sp$X), standardize = std,
                      rows_cold = nrow(res[[1]]$cv), rows_warm = nrow(res[[2]]$cv),
                      same_choice = same,
                      max_cvm_rel = if (nrow(res[[1]]$cv) == nrow(res[[2]]$cv))
                        max(abs(res[[1]]$cv$cvm - res[[2]]$cv$cvm) / res[[1]]$cv$cvm) else NA,
                      cpu_cold = median(cpu[, 1]), cpu_warm = median(cpu[, 2]),
                      wall_cold = median(wall[, 1]), wall_warm = median(wall[, 2]), reps = reps)
    print(row, row.names = FALSE); flush.console()
    rows[[length(rows) + 1L]] <- row
  }
}
tab <- do.call(rbind, rows)
cat("\nload:", readLines("/proc/loadavg"), "\n")
print(tab, row.names = FALSE, digits = 4)
saveRDS(tab, Sys.getenv("OUT", "/tmp/lassorefine_17.rds"))
