# k-means SDP (Peng-Wei relaxation, paper 003 eq. 20): stochcg's kmeans_sdp()
# with its defaults (CGAL) against the two solvers an R user has: Rcsdp
# (interior point, Debian r-cran-rcsdp) and SCS (operator splitting with a
# full eigendecomposition per iteration, CRAN package scs), on real data
# (iris, dslabs::olive) and planted Gaussian mixtures for large n.
#
# Per (data, n): the reference optimum f* (Rcsdp where it runs, else SCS at
# tolerance 1e-5 / 1e-4 where that finishes within the cap, else for planted
# mixtures the planted partition's k-means cost, which is the SDP optimum when
# the relaxation is tight), then one row per solver:
#   seconds    stochcg: solver seconds until the trace first has
#              |objective - f*| / f* <= 1e-2 and infeasibility / sqrt(n) <=
#              1e-2; the peers: their whole solve at the stated tolerance
#   rel_err    |value - f*| / f* of the returned point
#   infeas     dist((X 1, X), {1} x R+) / sqrt(n) of the returned point (for
#              SCS also its PSD and trace residuals: SCS's X satisfies them
#              only to its tolerance)
#   peak_MB    growth of the resident set during the solve (each solve in a
#              forked process, whose high-water mark starts at its RSS)
# Each solve is capped at SDPBENCH_CAP seconds (default 600); a peer is not
# started where its measured growth (Rcsdp ~ n^6, SCS ~ n^4 from the last
# size it ran) predicts more than the cap.
#
# Run from the repository root:  Rscript inst/bench/sdp.R
# Environment: SDPBENCH_CASES (comma-separated data:n, default below),
# SDPBENCH_CAP, SDPBENCH_OURS_TIME (kmeans_sdp's max_time, default 300),
# SDPBENCH_OUT (the results file).
suppressPackageStartupMessages(library(stochcg))
cases <- strsplit(Sys.getenv("SDPBENCH_CASES",
  "iris:30,iris:60,iris:90,iris:150,olive:150,olive:300,planted:500,planted:1000,planted:2000"), ",")[[1]]
cap <- as.numeric(Sys.getenv("SDPBENCH_CAP", "600"))
ours_time <- as.numeric(Sys.getenv("SDPBENCH_OURS_TIME", "300"))   # max_time of kmeans_sdp
out <- Sys.getenv("SDPBENCH_OUT", file.path("inst", "bench", "results", "sdp.md"))
has_rcsdp <- requireNamespace("Rcsdp", quietly = TRUE)
has_scs <- requireNamespace("scs", quietly = TRUE)

# --- peers -----------------------------------------------------------------
# Rcsdp: max <-D/2, X> s.t. X 1 = 1, tr X = k, X_ij - s_ij = 0 (i < j, s >= 0
# in an LP block)
rcsdp_kmeans <- function(D, k) {
  n <- nrow(D)
  pairs <- which(upper.tri(D), arr.ind = TRUE)
  np <- nrow(pairs)
  stm <- Rcsdp::simple_triplet_sym_matrix
  zero_l <- numeric(np)                     # "l" blocks are vectors
  A <- vector("list", n + 1 + np)
  for (i in seq_len(n)) {      # row sums: (e_i 1' + 1 e_i') / 2, upper triangle given
    j <- seq_len(n)
    A[[i]] <- list(stm(pmax(i, j), pmin(i, j), ifelse(j == i, 1, 0.5), n = n), zero_l)
  }
  A[[n + 1]] <- list(stm(seq_len(n), seq_len(n), rep(1, n), n = n), zero_l)
  for (p in seq_len(np)) {
    e <- numeric(np); e[p] <- -1
    A[[n + 1 + p]] <- list(stm(pairs[p, 2], pairs[p, 1], 0.5, n = n), e)
  }
  old <- setwd(tempdir()); on.exit(setwd(old), add = TRUE)   # csdp writes param.csdp
  out <- Rcsdp::csdp(list(-D / 2, zero_l), A, c(rep(1, n), k, rep(0, np)),
                     list(type = c("s", "l"), size = c(n, np)),
                     control = Rcsdp::csdp.control(printlevel = 0))
  list(value = -out$pobj, X = as.matrix(out$X[[1]]), status = out$status)
}

# SCS: x = svec(X) (lower triangle by columns, off-diagonals times sqrt(2));
# zero cone X 1 = 1, tr X = k; nonnegative cone X_ij >= 0 (i > j); PSD cone.
scs_kmeans <- function(D, k, eps) {
  n <- nrow(D)
  J <- rep(seq_len(n), times = n:1)
  I <- unlist(lapply(seq_len(n), function(j) j:n))
  nv <- length(I); off <- I != J
  coef <- ifelse(off, 1 / sqrt(2), 1)                     # X_ij = coef * x
  Az <- Matrix::sparseMatrix(i = c(I, J[off], rep(n + 1, sum(!off))),
                             j = c(seq_len(nv), which(off), which(!off)),
                             x = c(coef, coef[off], rep(1, sum(!off))), dims = c(n + 1, nv))
  Al <- Matrix::sparseMatrix(i = seq_len(sum(off)), j = which(off), x = -coef[off],
                             dims = c(sum(off), nv))
  A <- rbind(Az, Al, -Matrix::Diagonal(nv))
  obj <- ifelse(off, D[cbind(I, J)] * coef, 0)            # 1/2 <D, X>
  out <- scs::scs(A = as(A, "CsparseMatrix"), b = c(rep(1, n), k, rep(0, sum(off) + nv)),
                  obj = obj, cone = list(z = n + 1L, l = sum(off), s = n),
                  control = scs::scs_control(eps_abs = eps, eps_rel = eps, time_limit_secs = cap))
  X <- matrix(0, n, n); X[cbind(I, J)] <- out$x * coef; X[cbind(J, I)] <- X[cbind(I, J)]
  list(value = sum(obj * out$x), X = X, status = out$info$status)
}

# --- measurement helpers ---------------------------------------------------
rss_mb <- function() {
  s <- readLines("/proc/self/status")
  v <- as.numeric(sub("[^0-9]*([0-9]+).*", "\\1", s[grepl("^Vm(HWM|RSS)", s)])) / 1024
  c(hwm = v[1], rss = v[2])
}
# run f() in a forked process: its value, elapsed seconds and peak RSS growth
measured <- function(f) {
  job <- parallel::mcparallel({
    m0 <- rss_mb()
    t0 <- proc.time()[["elapsed"]]
    val <- tryCatch(f(), error = function(e) e)
    list(val = val, seconds = proc.time()[["elapsed"]] - t0, peak = rss_mb()[["hwm"]] - m0[["rss"]])
  })
  out <- parallel::mccollect(job, wait = FALSE, timeout = cap + 60)
  if (is.null(out)) { tools::pskill(job$pid); parallel::mccollect(job); return(NULL) }
  out <- out[[1]]
  if (inherits(out$val, "error")) { message("  failed: ", conditionMessage(out$val)); return(NULL) }
  out
}
infeas <- function(X, k) {
  n <- nrow(X)
  c(lin = sqrt(sum((rowSums(X) - 1)^2) + sum(pmin(X, 0)^2)) / sqrt(n),
    psd_trace = sqrt(sum(pmin(eigen(X, symmetric = TRUE, only.values = TRUE)$values, 0)^2) +
                     (sum(diag(X)) - k)^2) / sqrt(n))
}
kcost <- function(x, lab) sum(vapply(split(seq_len(nrow(x)), lab), function(i)
  sum(sweep(x[i, , drop = FALSE], 2, colMeans(x[i, , drop = FALSE]))^2), 0))

# --- data ------------------------------------------------------------------
planted <- function(n, k = 3, seed = 1) {
  set.seed(seed)
  centers <- matrix(c(0, 0, 10, 0, 0, 10), k, byrow = TRUE)
  lab <- rep(seq_len(k), length.out = n)
  list(x = centers[lab, ] + matrix(rnorm(2 * n), n), labels = lab)
}
olive_x <- function() {
  e <- new.env(); data("olive", package = "dslabs", envir = e)
  scale(as.matrix(e$olive[, 3:10]))            # the eight fatty acids, standardized
}
case_data <- function(name, n) {
  if (name == "iris") { set.seed(n); return(list(x = as.matrix(iris[sample(150, n), 1:4]))) }
  if (name == "olive") { xo <- olive_x(); set.seed(n); return(list(x = xo[sample(nrow(xo), n), ])) }
  pl <- planted(n); list(x = pl$x, planted_cost = kcost(pl$x, pl$labels))
}

# --- run -------------------------------------------------------------------
rows <- list()
last <- list(rcsdp = NULL, scs = NULL)         # (n, seconds) of the last completed run
predicted <- function(prev, n, power) if (is.null(prev)) 0 else prev[2] * (n / prev[1])^power
add_row <- function(...) {
  rows[[length(rows) + 1]] <<- data.frame(...)
  print(rows[[length(rows)]], row.names = FALSE)
}
for (cs in cases) {
  name <- sub(":.*", "", cs); n <- as.integer(sub(".*:", "", cs)); k <- 3
  d <- case_data(name, n); x <- d$x
  D <- as.matrix(dist(x))^2
  message(sprintf("%s n = %d", name, n))
  rc <- NULL; sc3 <- NULL; sc2 <- NULL; ref <- NULL; fstar_from <- NA
  if (has_rcsdp && predicted(last$rcsdp, n, 6) <= cap) {
    rc <- measured(function() rcsdp_kmeans(D, k))
    if (!is.null(rc)) { last$rcsdp <- c(n, rc$seconds); ref <- rc$val$value; fstar_from <- "Rcsdp" }
  }
  if (has_scs && predicted(last$scs, n, 4) <= cap) {
    sc3 <- measured(function() scs_kmeans(D, k, 1e-3))
    if (!is.null(sc3)) {
      last$scs <- c(n, sc3$seconds)
      sc2 <- measured(function() scs_kmeans(D, k, 1e-2))
      if (is.null(ref)) {                       # a tighter SCS solve as the reference
        tight <- if (n <= 150) 1e-5 else 1e-4
        if (predicted(last$scs, n, 4) * 3 <= cap) {
          st <- measured(function() scs_kmeans(D, k, tight))
          if (!is.null(st) && st$val$status == "solved") {
            ref <- st$val$value; fstar_from <- sprintf("SCS %g", tight)
          }
        }
      }
    }
  }
  if (is.null(ref) && !is.null(d$planted_cost)) { ref <- d$planted_cost; fstar_from <- "planted partition" }
  if (is.null(ref) && !is.null(sc3) && sc3$val$status == "solved") {
    ref <- sc3$val$value; fstar_from <- "SCS 1e-3"        # accurate to ~1e-3, enough to judge 1e-2
  }
  fstar <- if (is.null(ref)) NA else ref
  peer_row <- function(label, r) {
    if (is.null(r)) return(invisible())
    inf <- infeas(r$val$X, k)
    add_row(data = name, n = n, constraints = n * n + n, f_star = signif(fstar, 7), f_star_from = fstar_from,
            solver = label, seconds = round(r$seconds, 2), iterations = NA, seconds_stays = NA,
            rel_err = signif(abs(r$val$value - fstar) / abs(fstar), 2),
            infeas = signif(inf[["lin"]], 2), psd_trace_resid = signif(inf[["psd_trace"]], 2),
            lower_bound_below_f = NA, peak_MB = round(r$peak, 1), status = r$val$status)
  }
  peer_row("Rcsdp", rc); peer_row("SCS eps 1e-3", sc3); peer_row("SCS eps 1e-2", sc2)
  ours <- measured(function() {
    set.seed(1)
    kmeans_sdp(x, k, control = cg_control(max_iter = 20000, max_time = min(cap, ours_time), eval_every = 10,
                                          progress = FALSE))
  })
  fit <- ours$val; tr <- fit$trace
  within <- abs(tr$objective - fstar) / abs(fstar) <= 1e-2 & tr$infeasibility / sqrt(n) <= 1e-2
  ok <- which(within)
  hit <- if (length(ok)) ok[1] else NA
  # from where on the trace stays within 1e-2 (the objective of an infeasible
  # iterate can cross f* on its way: the first hit alone can be a crossing)
  stay <- if (isTRUE(within[length(within)])) max(c(0, which(!within))) + 1 else NA
  add_row(data = name, n = n, constraints = n * n + n, f_star = signif(fstar, 7), f_star_from = fstar_from,
          solver = "stochcg cgal", seconds = if (is.na(hit)) NA else round(tr$time[hit], 2),
          iterations = if (is.na(hit)) NA else tr$iter[hit],
          seconds_stays = if (is.na(stay)) NA else round(tr$time[stay], 2),
          rel_err = signif(abs(fit$objective - fstar) / abs(fstar), 2),
          infeas = signif(fit$infeasibility / sqrt(n), 2), psd_trace_resid = 0,
          lower_bound_below_f = signif((fstar - fit$lower_bound) / abs(fstar), 2),
          peak_MB = round(ours$peak, 1),
          status = sprintf("%d its, %.1f s wall", fit$iterations, fit$time))
}
tab <- do.call(rbind, rows)
md <- c("# k-means SDP: stochcg (CGAL) vs Rcsdp and SCS", "",
        sprintf("Run of %s, 2 cores, reference BLAS, cap %g s per solve. Columns: see inst/bench/sdp.R.",
                format(Sys.Date()), cap),
        sprintf("Load average at the end: %s (other jobs shared the 2 cores: all times inflated alike).",
                paste(readLines("/proc/loadavg"), collapse = "")),
        "stochcg's `seconds` is the solver time until the trace first has relative error and",
        "infeasibility / sqrt(n) <= 1e-2, `seconds_stays` from when on it stays there to the end of the",
        sprintf("run; its `rel_err`, `infeas` are those of the final iterate (max_time %g s). The peers'", ours_time),
        "`seconds` are their whole solve at the stated tolerance.", "",
        paste("|", paste(names(tab), collapse = " | "), "|"),
        paste("|", paste(rep("---", ncol(tab)), collapse = " | "), "|"),
        apply(tab, 1, function(r) paste("|", paste(trimws(r), collapse = " | "), "|")))
writeLines(md, out)
cat(md, sep = "\n")
