# Matrix completion with box constraints (paper 003 eq. 18) and with an l1
# penalty (eq. 19) on MovieLens (dslabs::movielens, the `movies` most rated
# movies, 90/10 split, 1000 iid ratings per iteration as in the paper):
#  1. long runs of hsagcgm and shcgm (`iters` iterations) at the paper's
#     beta0 (10 for its loss sum (.)^2, i.e. 20 N for the package's loss
#     sum (.)^2 / (2N)) and, for the box, at beta0 = N (hsagcgm's "auto"): train and
#     test RMSE and infeasibility every iters / 20 iterations, written to
#     inst/extdata/completion_homotopy.csv (read by the vignette
#     homotopy-completion);
#  2. the beta0 grid check of "auto" (see below), written to
#     inst/bench/results/completion_homotopy.md.
#   Rscript inst/bench/completion_homotopy.R [iters = 5000] [movies = 200]
# Environment: COMPLETION_PARTS (default "long,grid") picks the parts.
suppressPackageStartupMessages(library(stochcg))
args <- commandArgs(trailingOnly = TRUE)
iters <- if (length(args)) as.integer(args[1]) else 5000L
movies <- if (length(args) > 1) as.integer(args[2]) else 200L
ml <- dslabs::movielens
top <- as.integer(names(sort(table(ml$movieId), decreasing = TRUE))[seq_len(movies)])
d <- ml[ml$movieId %in% top, ]
d <- data.frame(row = match(d$userId, sort(unique(d$userId))),
                col = match(d$movieId, sort(unique(d$movieId))), value = d$rating)
dims <- c(max(d$row), max(d$col))
set.seed(42)
held <- sample(nrow(d), round(0.1 * nrow(d)))
train <- d[-held, ]; test <- d[held, ]
N <- nrow(train)
# the paper's zeta = 7e3 for 943 x 1682 scaled with sqrt(m n) (the nuclear
# norm of a constant matrix); its lambda = 0.1 divided by 2N
zeta <- 7e3 * sqrt(prod(dims) / (943 * 1682))
lambda <- 0.1 / (2 * N)
header <- sprintf("MovieLens, %d most rated movies: %d x %d, %d training / %d test ratings, zeta %.0f",
                  movies, dims[1], dims[2], N, nrow(test), zeta)
cat(header, "\n")

fit <- function(method, problem, beta0, T, every, seed = 1) {
  set.seed(seed)
  args <- list(train, zeta, method = method, dims = dims, beta0 = beta0, test = test,
               batch_size = 1000, control = cg_control(max_iter = T, eval_every = every))
  if (problem == "box") args$box <- c(1, 5) else args$lambda <- lambda
  do.call(complete_matrix, args)
}

parts <- Sys.getenv("COMPLETION_PARTS", "long,grid")

# ---- 1. long runs
if (grepl("long", parts)) {
runs <- list(c("box", "paper"), c("box", "N"), c("l1", "paper"))
long <- do.call(rbind, lapply(runs, function(r) do.call(rbind, lapply(c("hsagcgm", "shcgm"),
  function(m) {
    f <- fit(m, r[1], if (r[2] == "paper") 20 * N else N, iters, iters / 20)
    tr <- f$trace
    cat(sprintf("%-4s %-5s %-8s %6.1f it/s  final test RMSE %.4f\n", r[1], r[2], m,
                iters / f$solver_time, tr$rmse_test[nrow(tr)]))
    data.frame(problem = r[1], beta0 = r[2], method = m, iter = tr$iter,
               objective = tr$objective, rmse_train = tr$rmse_train,
               rmse_test = tr$rmse_test, infeasibility = tr$infeasibility,
               infeasibility_rel = tr$infeasibility_rel,
               iter_per_s = iters / f$solver_time)
  }))))
dir.create("inst/bench/results", showWarnings = FALSE, recursive = TRUE)
write.csv(long, "inst/extdata/completion_homotopy.csv", row.names = FALSE)
}

# ---- 2. beta0 grid: err = |f - f*| / f* + infeasibility / ||X||_F after
# 1000 iterations (the median over the last 20% of them, mean of 3 seeds),
# hsagcgm and shcgm, beta0 / N in 2^(-4..3) and 20, against "auto" (hsagcgm
# N, shcgm 20 N).
# f*: Davis-Yin three-operator splitting in plain R (full SVDs; the
# reference of tests/testthat/test-complete-matrix-homotopy.R), run until
# its objective changes by less than 1e-9 relative.
if (grepl("grid", parts)) {
  cnt <- sy <- matrix(0, dims[1], dims[2])
  for (k in seq_len(N)) {
    i <- train$row[k]; j <- train$col[k]
    cnt[i, j] <- cnt[i, j] + 1; sy[i, j] <- sy[i, j] + train$value[k]
  }
  proj_nuclear <- function(X, r) {
    s <- svd(X); d <- s$d
    if (sum(d) > r) {
      cs <- cumsum(d); k <- max(which(d - (cs - r) / seq_along(d) > 0))
      d <- pmax(d - (cs[k] - r) / k, 0)
    }
    s$u %*% (d * t(s$v))
  }
  objective <- function(X, problem) {
    l <- sum((X[cbind(train$row, train$col)] - train$value)^2) / (2 * N)
    if (problem == "l1") l + lambda * sum(abs(X)) else l
  }
  davis_yin <- function(prox_g, problem, max_iter = 6000) {
    step <- N / max(cnt); z <- matrix(0, dims[1], dims[2]); f_old <- Inf
    for (t in seq_len(max_iter)) {
      xb <- prox_g(z, step)
      xa <- proj_nuclear(2 * xb - z - step * (cnt * xb - sy) / N, zeta)
      z <- z + xa - xb
      if (t %% 50 == 0) {
        f <- objective(xa, problem)
        if (abs(f_old - f) < 1e-9 * f && max(abs(xa - xb)) < 1e-6) break
        f_old <- f
      }
    }
    list(f = objective(xa, problem), iters = t, gap_xa_xb = max(abs(xa - xb)))
  }
  ref <- list(box = davis_yin(function(z, s) pmin(pmax(z, 1), 5), "box"),
              l1 = davis_yin(function(z, s) sign(z) * pmax(abs(z) - s * lambda, 0), "l1"))
  for (p in names(ref)) cat(sprintf("f* %s: %.7g (Davis-Yin, %d iterations, |xa - xb| %.1e)\n",
                                    p, ref[[p]]$f, ref[[p]]$iters, ref[[p]]$gap_xa_xb))
  grid <- c(2^(-4:3), 20)
  g <- do.call(rbind, lapply(c("box", "l1"), function(p) do.call(rbind, lapply(c("hsagcgm", "shcgm"),
    function(m) do.call(rbind, lapply(c(grid, NA), function(b) do.call(rbind, lapply(1:3, function(sd) {
      f <- fit(m, p, if (is.na(b)) "auto" else b * N, 1000L, 10L, seed = sd)
      tr <- f$trace[f$trace$iter > 800, ]
      infeas <- if (p == "box") tr$infeasibility_rel else 0
      data.frame(problem = p, method = m, beta0_over_N = if (is.na(b)) "auto" else format(b),
                 seed = sd, err = stats::median(abs(tr$objective - ref[[p]]$f) / ref[[p]]$f + infeas),
                 rmse_test = tr$rmse_test[nrow(tr)])
    }))))))))
  agg <- aggregate(cbind(err, rmse_test) ~ problem + method + beta0_over_N, g, mean)
  summ <- do.call(rbind, lapply(split(agg, list(agg$problem, agg$method)), function(d) {
    gr <- d[d$beta0_over_N != "auto", ]; a <- d[d$beta0_over_N == "auto", ]
    data.frame(problem = d$problem[1], method = d$method[1],
               best = gr$beta0_over_N[which.min(gr$err)], best_err = signif(min(gr$err), 3),
               auto_err = signif(a$err, 3), ratio = signif(a$err / min(gr$err), 3),
               within_2 = a$err <= 2 * min(gr$err))
  }))
  print(summ, row.names = FALSE)
  lev <- c(vapply(grid, format, ""), "auto")
  tab <- sapply(lev, function(b) sapply(split(agg, list(agg$problem, agg$method)),
                                        function(d) signif(d$err[d$beta0_over_N == b], 3)))
  lines <- c("# beta0 grid for complete_matrix(box = c(1, 5) / lambda), hsagcgm and shcgm", "",
             header, "",
             paste("1000 iterations, 1000 ratings per iteration; \"auto\" is beta0 = N (hsagcgm), 20 N (shcgm). err =",
                   "|f - f*| / f* + infeasibility / ||X||_F, median over iterations 801-1000,",
                   "mean of 3 seeds; f* by Davis-Yin splitting:",
                   sprintf("box %.7g, l1 %.7g.", ref$box$f, ref$l1$f)), "",
             "| problem | method | best beta0 / N | best err | auto err | ratio | within 2 |",
             "|---|---|---|---|---|---|---|",
             sprintf("| %s | %s | %s | %.3g | %.3g | %.2f | %s |", summ$problem, summ$method,
                     summ$best, summ$best_err, summ$auto_err, summ$ratio, summ$within_2),
             "", "err by beta0 / N:", "",
             paste("| problem.method |", paste(colnames(tab), collapse = " | "), "|"),
             paste0(paste(rep("|---", ncol(tab) + 1), collapse = ""), "|"),
             sprintf("| %s | %s |", rownames(tab), apply(tab, 1, paste, collapse = " | ")))
  writeLines(lines, "inst/bench/results/completion_homotopy.md")
  write.csv(g, "inst/extdata/completion_beta0.csv", row.names = FALSE)   # read by the homotopy-sdp vignette
}
