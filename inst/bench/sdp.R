# k-means SDP (Peng-Wei relaxation, paper 003 eq. 20): stochcg's kmeans_sdp()
# (CGAL, defaults) against Rcsdp (interior point, CRAN/Debian r-cran-rcsdp),
# on iris subsamples and on planted Gaussian mixtures.
#
# Reported per (data, n): the optimum f* (Rcsdp's value where it ran, else
# the planted partition's k-means cost, which is the SDP optimum when the
# relaxation is tight: the certified lower bound shows how close), and for
# stochcg the seconds (and iterations) until the trace first has
# |objective - f*| / f* <= 1e-2 and infeasibility / sqrt(n) <= 1e-2, with
# the final certified lower bound. Rcsdp runs where it would finish within
# the cap (its constraint count ~ n^2 / 2 makes it O(n^6)); SCS is not on
# Debian and is left out (issue 11 quotes 5.8 s at n = 150, 84 s at n = 300).
#
# Run from the repository root:  Rscript inst/bench/sdp.R
# Environment: SDPBENCH_N (comma-separated sizes), SDPBENCH_RCSDP_MAX (largest
# n for Rcsdp, default 90).
suppressPackageStartupMessages(library(stochcg))
sizes <- as.integer(strsplit(Sys.getenv("SDPBENCH_N", "30,60,90,150,300,500,1000"), ",")[[1]])
rcsdp_max <- as.integer(Sys.getenv("SDPBENCH_RCSDP_MAX", "90"))
has_rcsdp <- requireNamespace("Rcsdp", quietly = TRUE)

# Peng-Wei SDP for Rcsdp: max <-D/2, X> s.t. X 1 = 1, tr X = k,
# X_ij - s_ij = 0 (i < j, s >= 0 in an LP block)
rcsdp_kmeans <- function(D, k) {
  n <- nrow(D)
  pairs <- which(upper.tri(D), arr.ind = TRUE)
  np <- nrow(pairs)
  stm <- Rcsdp::simple_triplet_sym_matrix
  zero_l <- numeric(np)                     # "l" blocks are vectors
  A <- vector("list", n + 1 + np)
  for (i in seq_len(n)) {      # row sums: (e_i 1' + 1 e_i') / 2, upper triangle given
    j <- seq_len(n)
    v <- ifelse(j == i, 1, 0.5)
    A[[i]] <- list(stm(pmax(i, j), pmin(i, j), v, n = n), zero_l)
  }
  A[[n + 1]] <- list(stm(seq_len(n), seq_len(n), rep(1, n), n = n), zero_l)
  for (p in seq_len(np)) {
    i <- pairs[p, 1]; j <- pairs[p, 2]
    e <- numeric(np); e[p] <- -1
    A[[n + 1 + p]] <- list(stm(j, i, 0.5, n = n), e)
  }
  b <- c(rep(1, n), k, rep(0, np))
  C <- list(-D / 2, rep(0, np))
  K <- list(type = c("s", "l"), size = c(n, np))
  old <- setwd(tempdir()); on.exit(setwd(old), add = TRUE)   # csdp writes param.csdp
  t0 <- proc.time()[["elapsed"]]
  out <- Rcsdp::csdp(C, A, b, K, control = Rcsdp::csdp.control(printlevel = 0))
  list(value = -out$pobj, seconds = proc.time()[["elapsed"]] - t0)
}

planted <- function(n, k = 3, seed = 1) {
  set.seed(seed)
  centers <- matrix(c(0, 0, 10, 0, 0, 10, 10, 10)[seq_len(2 * k)], k, byrow = TRUE)
  lab <- rep(seq_len(k), length.out = n)
  list(x = centers[lab, ] + matrix(rnorm(2 * n), n), labels = lab)
}
kcost <- function(x, lab) sum(vapply(split(seq_len(nrow(x)), lab), function(i)
  sum(sweep(x[i, , drop = FALSE], 2, colMeans(x[i, , drop = FALSE]))^2), 0))

rows <- list()
for (n in sizes) {
  if (n <= 150) {
    set.seed(n); x <- as.matrix(iris[sample(150, n), 1:4]); data <- "iris"; fstar_planted <- NA
  } else {
    pl <- planted(n); x <- pl$x; data <- "planted (3 clusters)"; fstar_planted <- kcost(x, pl$labels)
  }
  D <- as.matrix(dist(x))^2
  rc <- if (has_rcsdp && n <= rcsdp_max) tryCatch(rcsdp_kmeans(D, 3), error = function(e) NULL) else NULL
  fstar <- if (!is.null(rc)) rc$value else fstar_planted
  set.seed(1)
  fit <- kmeans_sdp(x, 3, control = cg_control(max_iter = 20000, max_time = 300, eval_every = 10,
                                                progress = FALSE))
  tr <- fit$trace
  ok <- which(abs(tr$objective - fstar) / abs(fstar) <= 1e-2 & tr$infeasibility / sqrt(n) <= 1e-2)
  hit <- if (length(ok)) ok[1] else NA
  rows[[length(rows) + 1]] <- data.frame(
    data = data, n = n, constraints = n * n + n, f_star = signif(fstar, 7),
    f_star_from = if (!is.null(rc)) "Rcsdp" else if (!is.na(fstar_planted)) "planted partition"
                  else "none (Rcsdp capped)",
    rcsdp_s = if (!is.null(rc)) round(rc$seconds, 2) else NA,
    stochcg_s_to_1e2 = if (is.na(hit)) NA else round(tr$time[hit], 2),
    iters_to_1e2 = if (is.na(hit)) NA else tr$iter[hit],
    final_rel_err = signif(abs(fit$objective - fstar) / abs(fstar), 2),
    final_infeas = signif(fit$infeasibility / sqrt(n), 2),
    lower_bound_gap = signif((fstar - fit$lower_bound) / abs(fstar), 2),
    stochcg_total_s = round(fit$time, 1), peak_MB = round(4 * 8 * n^2 / 2^20, 1))
  print(rows[[length(rows)]])
}
tab <- do.call(rbind, rows)
out <- file.path("inst", "bench", "results", "sdp.md")
md <- c("# k-means SDP: stochcg (CGAL) vs Rcsdp", "",
        sprintf("Run of %s, 2 cores, reference BLAS. Columns: see inst/bench/sdp.R. peak_MB is the", format(Sys.Date())),
        "solver's four n x n arrays.", "",
        paste("|", paste(names(tab), collapse = " | "), "|"),
        paste("|", paste(rep("---", ncol(tab)), collapse = " | "), "|"),
        apply(tab, 1, function(r) paste("|", paste(r, collapse = " | "), "|")))
writeLines(md, out)
cat(md, sep = "\n")
