# Peak memory of each fitting function, as a multiple of the size of its input.
#
# Each case runs in a fresh Rscript process: the input is built, then the
# R heap statistics (gc(reset = TRUE)) and the peak resident set size
# (/proc/self/clear_refs, Linux) are reset, and the fit runs with a few
# iterations (memory, not convergence, is measured: the buffers are all
# allocated before the first iteration). Reported, in multiples of the
# input's size (object.size):
#   heap: the R heap's "max used" during the call minus its use before it
#         (R objects and every buffer of the C solvers, which come from
#         R_alloc), the returned fit included;
#   rss:  the growth of the peak resident set size (VmHWM) over the resident
#         size before the call: the heap plus memory R does not see
#         (RSpectra's and LAPACK's workspaces, allocator slack).
# Two sizes per case show which terms grow with the input.
# Run from the repository root:  Rscript inst/bench/memory.R
# One case:                      Rscript inst/bench/memory.R <case> <size>

cases <- c("sparse_regression", "sparse_regression_dgC", "complete_matrix",
           "lowrank_sparse", "covariance_rows", "sparse_covariance", "lowrank_constrained",
           "matrix_sensing", "robust_pca")

# the input of each case at size 1 or 2 (2 has 4 times the entries)
make_input <- function(case, size) {
  set.seed(1)
  k <- c(1, 2)[size]
  switch(case,
    sparse_regression = {
      n <- 20000 * k^2; p <- 250
      list(X = matrix(rnorm(n * p), n), y = rnorm(n))
    },
    sparse_regression_dgC = {
      n <- 50000 * k^2; p <- 5000
      list(X = Matrix::rsparsematrix(n, p, density = 0.01), y = rnorm(n))
    },
    complete_matrix = {
      m <- 2000 * k; n <- 2000 * k
      list(Y = Matrix::rsparsematrix(m, n, density = 0.1))
    },
    lowrank_sparse = , robust_pca = {
      d <- 1000 * k
      list(M = matrix(rnorm(d * d), d))
    },
    covariance_rows = {
      n <- 20000 * k^2; p <- 200
      list(data = matrix(rnorm(n * p), n))
    },
    sparse_covariance = {        # p x p is the size that matters here
      n <- 500; p <- 1000 * k
      list(data = matrix(rnorm(n * p), n))
    },
    lowrank_constrained = {
      d <- 1000 * k
      list(M = matrix(rnorm(d * d), d),
           A = lapply(1:10, function(i) Matrix::sparseMatrix(i, i, x = 1, dims = c(d, d))))
    },
    matrix_sensing = {
      m <- 50; N <- 20000 * k^2
      list(A = Matrix::rsparsematrix(N, m * m, density = 0.02), b = rnorm(N))
    })
}

fit_case <- function(case, input) {
  ctl <- stochcg::cg_control(max_iter = 3)
  with(input, switch(case,
    sparse_regression = , sparse_regression_dgC =
      # the solver's own memory: an intercept would add a centred copy of a dense X
      stochcg::sparse_regression(X, y, radius = 1, intercept = FALSE, control = ctl, standardize = FALSE),
    complete_matrix = stochcg::complete_matrix(Y, radius = 10, control = ctl),
    lowrank_sparse = stochcg::lowrank_sparse(M, lambda = 0.01, radius = 10, control = ctl),
    covariance_rows = stochcg::lowrank_sparse(stochcg::covariance_rows(data), lambda = 0.01,
                                              radius = 10, set = "psd", control = ctl),
    sparse_covariance = stochcg::sparse_covariance(data, lambda = 0.1, control = ctl),
    lowrank_constrained = stochcg::lowrank_constrained(M, A, b = rep(0.1, length(A)),
                                                       radius = 10, control = ctl),
    matrix_sensing = stochcg::matrix_sensing(A, b, radius = 10,
                                             lambda2 = 0.01, dims = c(50, 50),
                                             control = ctl),
    robust_pca = stochcg::robust_pca(M, radius = 10, radius_sparse = 10, control = ctl)))
}

# input size in bytes (the response vectors of regression count too)
input_bytes <- function(input) sum(vapply(input, function(x) as.double(object.size(x)), 0))

status_kb <- function(field) {
  line <- grep(paste0("^", field, ":"), readLines("/proc/self/status"), value = TRUE)
  as.numeric(gsub("[^0-9]", "", line)) * 1024
}

measure <- function(case, size) {
  input <- make_input(case, size)
  bytes <- input_bytes(input)
  invisible(gc(reset = TRUE)); g0 <- gc(reset = TRUE)
  rss_ok <- tryCatch({cat("5", file = "/proc/self/clear_refs"); TRUE},
                     error = function(e) FALSE)
  rss0 <- if (rss_ok) status_kb("VmRSS") else NA
  secs <- system.time(fit <- suppressWarnings(fit_case(case, input)))[["elapsed"]]
  g1 <- gc()
  # Ncells are 56 bytes, Vcells 8 bytes (64-bit R)
  heap <- (g1["Ncells", 5] - g0["Ncells", 1]) * 56 + (g1["Vcells", 5] - g0["Vcells", 1]) * 8
  rss <- if (rss_ok) status_kb("VmHWM") - rss0 else NA
  data.frame(case = case, size = size, input_mb = round(bytes / 2^20, 1),
             heap_x = round(heap / bytes, 2), rss_x = round(rss / bytes, 2),
             seconds = round(secs, 1))
}

args <- commandArgs(trailingOnly = TRUE)
if (length(args) == 2L) {          # child: one case, one CSV line
  suppressPackageStartupMessages(library(stochcg))
  utils::write.table(measure(args[1], as.integer(args[2])), sep = ",",
                     row.names = FALSE, col.names = FALSE, quote = FALSE)
  quit(save = "no")
}

script <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))
rscript <- file.path(R.home("bin"), "Rscript")
rows <- list()
for (case in cases) for (size in 1:2) {
  out <- system2(rscript, c(script, case, size), stdout = TRUE)
  rows[[length(rows) + 1L]] <- utils::read.csv(text = out[length(out)], header = FALSE,
    col.names = c("case", "size", "input_mb", "heap_x", "rss_x", "seconds"))
}
tab <- do.call(rbind, rows)
cat("Peak memory during the call, in multiples of the input size",
    "(heap: R heap incl. C buffers; rss: peak resident set growth)\n\n")
print(tab, row.names = FALSE)
