# Issue 24: where the dual steps' Lanczos products go (cg_eigs_beyond,
# called by dual_step() and l_step() in src/prob_covariance.c), per dual
# step, on the two fits named in the golub profiles:
#   g3051:  multtest golub (38 x 3051), split r2 as in the lead's g3051b
#           script (20% test rows, 30 training rows standardized), its first
#           24 rows (a fold's size); "sparse", lambda 0.5179, floor 0.01,
#           shrink 0 (the slow fold fits of the default CV);
#   esgolub: NMF::esGolub as in covariance.R / covariance_lowrank_cv.R
#           (28 training rows, 4758 genes), "lowrank+sparse", gamma 270,
#           lambda 0.518 (the slowest fold fit of the lowrank CV).
# For each iteration of the fit: the rank of the dual Lambda (= the
# eigenpairs found below the floor by that dual step; for "lowrank+sparse"
# the low-rank part's rank) and the Lanczos products it took (from the
# fit's trace). Prints the tables, CPU and wall seconds, and writes
# inst/bench/results/covariance_eigs_warm_steps.md. Run from the package
# root: Rscript inst/bench/covariance_eigs_warm.R [g3051] [esgolub]
suppressPackageStartupMessages(library(stochcg))
args <- commandArgs(TRUE)
cases <- if (length(args)) args else c("g3051", "esgolub")
bench_src <- parse("inst/bench/covariance.R", keep.source = FALSE)
for (e in bench_src)
  if (is.call(e) && identical(e[[1]], as.name("<-")) &&
      as.character(e[[2]])[1] %in% c("golub", "standardize"))
    eval(e)
run <- function(case) {
  if (case == "g3051") {
    e <- new.env(); data(golub, package = "multtest", envir = e)
    X <- t(e$golub); storage.mode(X) <- "double"; dimnames(X) <- NULL
    set.seed(2); tr <- setdiff(seq_len(nrow(X)), sample(nrow(X), round(0.2 * nrow(X))))
    Z <- scale(X[tr, ], colMeans(X[tr, ]), apply(X[tr, ], 2, sd))[1:24, ]
    call <- function() sparse_covariance(Z, lambda = 0.5179, floor = 0.01, shrink = 0)
  } else {
    g <- golub(); X <- g$X
    set.seed(2026)
    te <- c(sample(which(g$class == "ALL"), 7), sample(which(g$class == "AML"), 3))
    tr <- setdiff(seq_len(nrow(X)), te)
    Z <- unname(standardize(X[tr, ], X[-tr, ])$train[, ])
    call <- function() sparse_covariance(Z, structure = "lowrank+sparse", lambda = 0.518,
                                         gamma = 270)
  }
  load <- readLines("/proc/loadavg")
  t0 <- proc.time(); fit <- call(); t <- proc.time() - t0
  tr <- fit$trace
  steps <- data.frame(iter = tr$iter, rank = tr$svd_rank,
                      products = diff(c(0, tr$n_matvec)))
  list(case = case, dim = dim(Z), cpu = t[["user.self"]] + t[["sys.self"]],
       wall = t[["elapsed"]], load = strsplit(load, " ")[[1]][1], iterations = fit$iterations,
       status = fit$status, objective = fit$objective, gap = fit$gap,
       products = tail(tr$n_matvec, 1), steps = steps)
}
out <- c("# Lanczos products per dual step (issue 24, covariance_eigs_warm.R)", "",
         sprintf("stochcg %s, %s", packageVersion("stochcg"), format(Sys.time(), "%Y-%m-%d %H:%M")),
         "")
for (case in cases) {
  r <- run(case)
  hdr <- sprintf("## %s (%d x %d): %d iterations, %s, objective %.12g, gap %.3g; %s products; CPU %.1f s, wall %.1f s, load %s",
                 r$case, r$dim[1], r$dim[2], as.integer(r$iterations), r$status, r$objective,
                 r$gap, format(r$products), r$cpu, r$wall, r$load)
  cat(hdr, "\n"); print(r$steps, row.names = FALSE)
  out <- c(out, hdr, "", "| iteration | rank | products |", "|---:|---:|---:|",
           sprintf("| %d | %d | %d |", r$steps$iter, r$steps$rank, as.integer(r$steps$products)), "")
}
if (length(args) == 0L)
  writeLines(out, "inst/bench/results/covariance_eigs_warm_steps.md")
