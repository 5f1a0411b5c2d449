# Robust PCA on real matrices: stochcg::robust_pca with its defaults against
# rpca::rpca with its defaults, side by side in one R process.
#
# Matrices:
#  - stock:   daily log-returns of the 100 S&P 500 stocks of the package's
#             vignette (huge::stockdata, sample(452, 100) under set.seed(1)),
#             all 1257 days, columns standardized (1257 x 100);
#  - volcano: datasets::volcano, the Maunga Whau height grid (87 x 61);
#  - tissue:  dslabs::tissue_gene_expression$x, 189 samples x 500 genes,
#             columns standardized.
# For each: rpca::rpca(M) (principal component pursuit, lambda =
# 1/sqrt(max(m, n)), ADMM with a fixed penalty and a full svd() per
# iteration, stops at ||M - L - S||_F <= 1e-7 ||M||_F); then
#  - robust_pca(M): the penalized form, the same problem and lambda (ADMM
#    with the certified partial SVD, stops when its duality gap is below
#    1e-6 relative);
#  - robust_pca(M, tau, s) with tau = ||L_rpca||_*, s = ||S_rpca||_1: the
#    constrained form (Douglas-Rachford / ADMM, stops when the Frank-Wolfe
#    gap is below 1e-6 x max(1, objective): an absolute 1e-6 here, where the
#    optimum is ~0).
# Reported: wall-clock seconds of each call; ||L - L_rpca||_F / ||L_rpca||_F
# and the same for S; rank of L; fraction of nonzero entries of S; status.
# Below the table: the distance of each answer to a tight penalized fit
# (tol = 1e-10; where rpca stops at max.iter its own error shows there), and
# rpca's PCP objective against the certified lower bound of robust_pca(M).
#
# Run from the repository root:  Rscript inst/bench/robust_pca_real.R
suppressPackageStartupMessages(library(stochcg))
if (!requireNamespace("rpca", quietly = TRUE)) stop("the benchmark needs the rpca package")
out_dir <- file.path("inst", "bench", "results")
dir.create(out_dir, showWarnings = FALSE, recursive = TRUE)

stock_matrix <- function() {
  e <- new.env()
  data(stockdata, package = "huge", envir = e)
  set.seed(1)
  pick <- sample(ncol(e$stockdata$data), 100)
  M <- scale(diff(log(e$stockdata$data[, pick])))
  dimnames(M) <- NULL
  M
}
tissue_matrix <- function() {
  e <- new.env()
  data(tissue_gene_expression, package = "dslabs", envir = e)
  M <- scale(e$tissue_gene_expression$x)
  dimnames(M) <- NULL
  M
}
data_sets <- list(stock = stock_matrix, volcano = function() volcano + 0,
                  tissue = tissue_matrix)

rel <- function(A, B) norm(A - B, "F") / norm(B, "F")
wall <- function(expr) {
  t0 <- proc.time()[["elapsed"]]
  value <- suppressWarnings(expr)
  list(value = value, seconds = proc.time()[["elapsed"]] - t0)
}
rank_of <- function(L) {
  d <- svd(L, 0, 0)$d
  sum(d > 1e-9 * d[1])
}

rows <- list(); notes <- character()
for (nm in names(data_sets)) {
  M <- data_sets[[nm]]()
  lambda <- 1 / sqrt(max(dim(M)))
  r <- wall(rpca::rpca(M))
  L0 <- r$value$L; S0 <- r$value$S
  rows[[length(rows) + 1]] <- data.frame(
    data = nm, dims = paste(dim(M), collapse = " x "), solver = "rpca::rpca(M)",
    seconds = r$seconds, iterations = r$value$convergence$iterations,
    rel_L = 0, rel_S = 0, rank = rank_of(L0), nonzero_S = mean(S0 != 0),
    status = if (r$value$convergence$converged) "converged" else "max.iter")
  tau <- sum(svd(L0, 0, 0)$d); s <- sum(abs(S0))
  fits <- list("robust_pca(M)" = wall(robust_pca(M)),
               "robust_pca(M, tau, s)" = wall(robust_pca(M, tau, s)))
  for (k in names(fits)) {
    f <- fits[[k]]$value
    L <- as.matrix(f$solution$X); S <- as.matrix(f$solution$Y)
    rows[[length(rows) + 1]] <- data.frame(
      data = nm, dims = paste(dim(M), collapse = " x "), solver = k,
      seconds = fits[[k]]$seconds, iterations = f$iterations,
      rel_L = rel(L, L0), rel_S = rel(S, S0), rank = length(f$solution$X$d),
      nonzero_S = mean(S != 0), status = f$status)
  }
  # who is nearer the optimum: both against a tight penalized fit (tol 1e-10)
  tight <- robust_pca(M, control = cg_control(tol = 1e-10, max_iter = 5000))
  Lt <- as.matrix(tight$solution$X); St <- as.matrix(tight$solution$Y)
  near <- function(L, S) sprintf("L %.1e, S %.1e", rel(L, Lt), rel(S, St))
  notes <- c(notes, sprintf(
    "- %s: distance to a tight robust_pca(M) fit (tol = 1e-10, gap %.1e): rpca %s; robust_pca(M) %s; robust_pca(M, tau, s) %s",
    nm, tight$gap / tight$objective, near(L0, S0),
    near(as.matrix(fits[[1]]$value$solution$X), as.matrix(fits[[1]]$value$solution$Y)),
    near(as.matrix(fits[[2]]$value$solution$X), as.matrix(fits[[2]]$value$solution$Y))))
  # rpca's objective against the certified lower bound of the penalized fit
  pen <- fits[["robust_pca(M)"]]$value
  f_rpca <- sum(svd(L0, 0, 0)$d) + lambda * sum(abs(S0))
  notes <- c(notes, sprintf(
    "- %s: PCP objective rpca %.10g, robust_pca(M) %.10g (gap %.2g, so the optimum is >= %.10g); rpca final delta %.2g",
    nm, f_rpca, pen$objective, pen$gap, pen$objective - pen$gap,
    r$value$convergence$final.delta))
}
tab <- do.call(rbind, rows)
fmt <- tab
fmt$seconds <- sprintf("%.2f", tab$seconds)
fmt$rel_L <- ifelse(tab$rel_L == 0, "(ref)", sprintf("%.1e", tab$rel_L))
fmt$rel_S <- ifelse(tab$rel_S == 0, "(ref)", sprintf("%.1e", tab$rel_S))
fmt$nonzero_S <- sprintf("%.3f", tab$nonzero_S)
md <- c("| data | dims | solver | seconds | iterations | rel. diff. L | rel. diff. S | rank L | nonzero S | status |",
        "|---|---|---|---:|---:|---:|---:|---:|---:|---|",
        sprintf("| %s | %s | %s | %s | %d | %s | %s | %d | %s | %s |", fmt$data, fmt$dims,
                fmt$solver, fmt$seconds, as.integer(fmt$iterations), fmt$rel_L, fmt$rel_S,
                as.integer(fmt$rank), fmt$nonzero_S, fmt$status))
info <- c(sprintf("Run %s, R %s, rpca %s, stochcg %s, %s.", format(Sys.time(), "%Y-%m-%d"),
                  getRversion(), utils::packageVersion("rpca"),
                  utils::packageVersion("stochcg"), sessionInfo()$BLAS),
          "Relative differences are to rpca's L and S; seconds are wall clock of the whole call.")
cat(md, "", notes, sep = "\n")
writeLines(c("# Robust PCA on real matrices against rpca", "", info, "", md, "", notes),
           file.path(out_dir, "robust_pca_real.md"))
