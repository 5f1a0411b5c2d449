# Why beta0 = "auto" misses the factor-2 target on some SDPs (issue 11):
# for the smoothing methods, the error of inst/bench/sdp_beta0.R on a grid of
# beta0 four times finer (quarter decades, 10^-4 .. 10^1.5), the window of
# beta0 whose error is within a factor 2 of the best error on that
# benchmark's half-decade grid, and the best any rule c g^p of the pull g
# (the form of check_beta0()) can do: how many problems it can put inside
# their windows at once. Run from the repository root after
# inst/bench/sdp_beta0.R (whose csv gives "auto"'s beta0 and the best
# errors):  Rscript inst/bench/sdp_beta0_windows.R
# Environment: SDPWIN_CSV (the fine-grid errors; problems it already holds
# are not rerun unless SDPWIN_RERUN is set), SDPBETA_PROBLEMS (subset).
suppressPackageStartupMessages(library(stochcg))
options(width = 200)
iters <- 1000L
ctl <- cg_control(max_iter = iters, tol = 0, eval_every = iters %/% 100L)
keep <- local({ v <- Sys.getenv("SDPBETA_PROBLEMS", ""); if (nzchar(v)) strsplit(v, ",")[[1]] })
source("inst/bench/sdp_beta0_problems.R")
if (!is.null(keep)) problems <- problems[intersect(names(problems), keep)]
methods <- c("hsagcgm_v1", "hsagcgm_v2", "hspider", "h1sfw")
csv <- Sys.getenv("SDPWIN_CSV", "inst/bench/results/sdp_beta0_windows.csv")

# runs the problems the csv lacks (all with SDPWIN_RERUN set)
old <- if (file.exists(csv) && !nzchar(Sys.getenv("SDPWIN_RERUN"))) read.csv(csv)
todo <- setdiff(names(problems), old$problem)
grid <- 10^seq(-4, 1.5, by = 0.25)
rows <- list()
for (p in todo) for (m in methods) for (b in grid)
  for (sd in if (m == "hsagcgm_v1") 1L else 1:3) {       # hsagcgm_v1 is deterministic
    set.seed(sd)
    tr <- problems[[p]]$run(m, b)$trace
    e <- with(tr[tr$iter > 0.8 * iters, ], abs(objective - problems[[p]]$fstar) /
                abs(problems[[p]]$fstar) + infeasibility / problems[[p]]$scale)
    rows[[length(rows) + 1]] <- data.frame(problem = p, method = m, seed = sd, beta0 = b,
                                           err = stats::median(e))
  }
if (length(rows)) write.csv(rbind(old, do.call(rbind, rows)), csv, row.names = FALSE)
fine <- aggregate(err ~ problem + method + beta0, read.csv(csv), mean)   # mean over seeds

# the pull g of each problem: hspider's "auto" is 0.5 g (check_beta0)
ctl <- cg_control(max_iter = 1L, tol = 0)
g <- vapply(problems, function(pr) 2 * pr$run("hspider", "auto")$beta0, 0)

bench <- read.csv("inst/extdata/sdp_beta0.csv")
bench <- aggregate(cbind(err, beta0_used) ~ problem + method + beta0, bench, mean)
grid_best <- aggregate(err ~ problem + method, bench[bench$beta0 != "auto", ], min)
auto <- bench[bench$beta0 == "auto", c("problem", "method", "beta0_used", "err")]

# is log10 beta0 = x inside the window of (p, m)? strict: only if the fine
# grid's points on both sides of x (or x itself) are within the factor 2;
# lenient: the error interpolated linearly in log err between them is. The
# truth lies between: the error has a cliff on one side of its best, which
# interpolation smooths over.
inside <- function(d, x, limit, strict) {
  lb <- log10(d$beta0)
  if (x < min(lb) - 1e-9 || x > max(lb) + 1e-9) return(FALSE)
  if (!strict) { o <- order(lb); return(exp(stats::approx(lb[o], log(d$err[o]), x)$y) <= limit) }
  lo <- max(lb[lb <= x + 1e-9]); hi <- min(lb[lb >= x - 1e-9])
  d$err[lb == lo] <= limit && d$err[lb == hi] <= limit
}
tab <- list(); fits <- list()
train <- !startsWith(names(problems), "held_out")
for (m in methods) {
  ds <- lapply(names(problems), function(p) {
    d <- fine[fine$problem == p & fine$method == m, ]
    list(p = p, d = d, limit = 2 * grid_best$err[grid_best$problem == p & grid_best$method == m])
  })
  for (x in ds) {
    w <- log10(x$d$beta0[x$d$err <= x$limit])
    a <- auto[auto$problem == x$p & auto$method == m, ]
    tab[[length(tab) + 1]] <- data.frame(
      method = m, problem = x$p, log10_g = round(log10(g[[x$p]]), 2),
      window = if (length(w)) sprintf("%.2f .. %.2f%s", min(w), max(w),
                                      if (length(w) < (max(w) - min(w)) / 0.25 + 1) " (gaps)" else "")
               else "none",
      auto = round(log10(a$beta0_used), 2), auto_ratio = round(a$err / (x$limit / 2), 2))
  }
  # the rules c g^p that put the most training problems inside their windows
  # (ties: the most of all), lenient and strict
  for (strict in c(FALSE, TRUE)) {
    best <- c(train = -1, all = 0, lc = NA, p = NA)
    for (p in seq(-1, 4, by = 0.02)) for (lc in seq(-4, 3, by = 0.02)) {
      hit <- vapply(ds, function(x) inside(x$d, lc + p * log10(g[[x$p]]), x$limit, strict), TRUE)
      if (sum(hit[train]) > best[["train"]] ||
          (sum(hit[train]) == best[["train"]] && sum(hit) > best[["all"]]))
        best <- c(train = sum(hit[train]), all = sum(hit), lc = lc, p = p)
    }
    fits[[length(fits) + 1]] <- data.frame(
      method = m, membership = if (strict) "strict" else "lenient",
      training = sprintf("%d of %d", best[["train"]], sum(train)),
      all = sprintf("%d of %d", best[["all"]], length(ds)),
      rule = sprintf("%.2g g^%.2f", 10^best[["lc"]], best[["p"]]))
  }
}
tab <- do.call(rbind, tab)
print(tab, row.names = FALSE)
cat("\nThe best rules c g^p (most training problems inside their windows):\n")
print(do.call(rbind, fits), row.names = FALSE)
