# The default sparse_covariance(train) (structure "sparse", CV included) with
# two builds of the package side by side, one case at a time, alternating
# builds, each fit in its own Rscript child (its CPU seconds = user + system
# of the fit, its wall clock), next to corpcor::cov.shrink on the same split.
# Written for the count growth of cg_eigs_beyond (issue 24: the first dual step
# of a fold fit doubled k from a small hint, 2.9 times the products of its
# last run), but it compares any two builds.
#
#   COVGROW_LIBS="main=/tmp/lib_main,branch=/tmp/lib_branch" \
#     Rscript inst/bench/covariance_sparse_growth.R
#
# COVGROW_CASES: "data:split,..." (default below), data one of golub3051
# (multtest::golub, 38 x 3051), khan (ISLR::Khan, 83 x 2308), colon
# (plsgenomics::Colon, 62 x 2000), nci60 (ISLR::NCI60, 64 x 6830; used by no
# test or other bench), lymphoma (spls::lymphoma, 62 x 4026), prostate
# (spls::prostate, 102 x 6033), srbct (plsgenomics::SRBCT, 83 x 2308: Khan's
# study, other preprocessing; used by no test or other bench), sim5000 (the
# 3-factor plus MA(1) model of covariance_lowrank_cv.R, p = 5000, 75 rows: 60
# training rows, the issue's target shape); split r1, r2, r3 = set.seed(1), (2), (3) 80/20 rows,
# standardized by the training mean and sd (as inst/bench/covariance.R).
# Held-out log-likelihood: mean over the held-out rows of log N(x; 0, Sigma).
# Writes inst/bench/results/covariance_sparse_growth.md (COVGROW_OUT).

args <- commandArgs(trailingOnly = TRUE)

gene_data <- function(name) {
  e <- new.env()
  X <- switch(name,
    golub3051 = { data(golub, package = "multtest", envir = e); t(e$golub) },
    khan = { data(Khan, package = "ISLR", envir = e); rbind(e$Khan$xtrain, e$Khan$xtest) },
    colon = { data(Colon, package = "plsgenomics", envir = e); e$Colon$X },
    nci60 = { data(NCI60, package = "ISLR", envir = e); e$NCI60$data },
    lymphoma = { data(lymphoma, package = "spls", envir = e); e$lymphoma$x },
    prostate = { data(prostate, package = "spls", envir = e); e$prostate$x },
    srbct = { data(SRBCT, package = "plsgenomics", envir = e); e$SRBCT$X },
    sim5000 = {                   # covariance_lowrank_cv.R's 3-factor + MA(1) model, 75 rows
      set.seed(24); p <- 5000; B <- matrix(rnorm(p * 3), p, 3)
      Z <- matrix(rnorm(75 * (p + 1)), 75, p + 1)
      matrix(rnorm(75 * 3), 75, 3) %*% t(B) + Z[, -1] + 0.5 * Z[, -(p + 1)]
    },
    stop("unknown data set ", name))
  X <- as.matrix(X); storage.mode(X) <- "double"; dimnames(X) <- NULL
  X
}
make_split <- function(data, split) {
  X <- gene_data(data)
  set.seed(as.integer(sub("^r", "", split)))
  tr <- setdiff(seq_len(nrow(X)), sample(nrow(X), round(0.2 * nrow(X))))
  m <- colMeans(X[tr, ]); s <- apply(X[tr, ], 2, sd)
  keep <- s > 0
  list(train = unname(scale(X[tr, keep], m[keep], s[keep])),
       test = unname(scale(X[-tr, keep], m[keep], s[keep])))
}
gauss_loglik <- function(test, Sigma) {
  ch <- tryCatch(chol(Sigma), error = function(e) NULL)
  if (is.null(ch)) return(-Inf)
  z <- backsolve(ch, t(test), transpose = TRUE)
  mean(-0.5 * (ncol(test) * log(2 * pi) + 2 * sum(log(diag(ch))) + colSums(z^2)))
}
cpu <- function(t) sum(t[c("user.self", "sys.self")])

if (length(args) == 3L && args[1L] == "worker") {       # one fit, one line out
  s <- make_split(args[2L], args[3L])
  if (identical(Sys.getenv("COVGROW_EST"), "cov_shrink")) {
    t0 <- proc.time()
    S <- corpcor::cov.shrink(s$train, verbose = FALSE)
    t1 <- proc.time() - t0
    lam <- NA_real_; shr <- attr(S, "lambda"); S <- matrix(S, nrow(S))
  } else {
    suppressPackageStartupMessages(library(stochcg))
    set.seed(7)
    t0 <- proc.time()
    f <- sparse_covariance(s$train)
    t1 <- proc.time() - t0
    S <- as.matrix(f$solution$Sigma); lam <- f$lambda; shr <- f$shrink
  }
  cat(sprintf("RESULT %.3f %.3f %.10g %.10g %.6f\n", cpu(t1), t1[["elapsed"]], lam, shr,
              gauss_loglik(s$test, S)))
  quit(save = "no")
}
`%||%` <- function(a, b) if (is.null(a)) b else a

libs <- strsplit(strsplit(Sys.getenv("COVGROW_LIBS"), ",")[[1L]], "=")
if (!length(libs)) stop("set COVGROW_LIBS=\"name=/path/lib,name=/path/lib\"")
cases <- strsplit(strsplit(Sys.getenv("COVGROW_CASES",
                                      "khan:r1,colon:r1,nci60:r1,golub3051:r2"), ",")[[1L]], ":")
script <- normalizePath(sub("^--file=", "", grep("^--file=", commandArgs(), value = TRUE)))
out <- Sys.getenv("COVGROW_OUT", "inst/bench/results/covariance_sparse_growth.md")

run_child <- function(lib, data, split, est = "") {
  env <- c(if (nzchar(lib)) paste0("R_LIBS=", lib), paste0("COVGROW_EST=", est))
  t0 <- proc.time()
  o <- suppressWarnings(system2("nice", c("-n", "5", "Rscript", script, "worker", data, split),
                                stdout = TRUE, stderr = TRUE, env = env))
  r <- grep("^RESULT", o, value = TRUE)
  if (!length(r)) return(c(NA, NA, NA, NA, NA))
  suppressWarnings(as.numeric(strsplit(r, " ")[[1L]][-1L]))    # ("NA": cov.shrink's lambda)
}

rows <- list()
for (cs in cases) {
  load <- as.numeric(strsplit(readLines("/proc/loadavg"), " ")[[1L]][1L])
  sh <- run_child("", cs[1L], cs[2L], "cov_shrink")
  res <- lapply(libs, function(l) run_child(l[2L], cs[1L], cs[2L]))
  for (i in seq_along(libs)) {
    r <- res[[i]]
    rows[[length(rows) + 1L]] <- data.frame(
      data = cs[1L], split = cs[2L], build = libs[[i]][1L], load = load,
      cpu = r[1L], wall = r[2L], lambda = r[3L], shrink = r[4L], loglik = r[5L],
      cov_shrink_cpu = sh[1L], cov_shrink_loglik = sh[5L])
  }
  print(do.call(rbind, tail(rows, length(libs))), row.names = FALSE)
}
tab <- do.call(rbind, rows)
fmt <- function(x, d) formatC(x, digits = d, format = "f")
md <- c("# sparse_covariance() default: two builds side by side (inst/bench/covariance_sparse_growth.R)",
        "",
        sprintf("Builds: %s. R %s, reference BLAS; %s. Each fit alone in a child process, the builds alternating per case (same load: 1-minute load average in `load`); CPU = user + system seconds of the fit, wall = its elapsed seconds; cov.shrink = corpcor::cov.shrink on the same split.",
                paste(vapply(libs, paste, "", collapse = " = "), collapse = "; "),
                getRversion(), format(Sys.time(), "%Y-%m-%d %H:%M UTC", tz = "UTC")),
        "",
        "| data | split | build | load | CPU s | wall s | lambda | shrink | held-out loglik/row | cov.shrink CPU s | cov.shrink loglik/row |",
        "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|",
        sprintf("| %s | %s | %s | %.1f | %s | %s | %.4g | %.3g | %s | %s | %s |", tab$data, tab$split,
                tab$build, tab$load, fmt(tab$cpu, 1), fmt(tab$wall, 1), tab$lambda, tab$shrink,
                fmt(tab$loglik, 3), fmt(tab$cov_shrink_cpu, 1), fmt(tab$cov_shrink_loglik, 1)))
writeLines(md, out)
cat(md, sep = "\n")
