# Matrix completion with box constraints (paper 003 eq. 18) and with an l1
# penalty (eq. 19) on MovieLens (dslabs::movielens, the `movies` most rated
# movies, 90/10 split, 1000 iid ratings per iteration as in the paper):
#  1. long runs of hsagcgm and shcgm (`iters` iterations) at the paper's
#     beta0 (10 for its loss sum (.)^2, i.e. 20 N for the package's loss
#     sum (.)^2 / (2N)) and, for the box, at beta0 = "auto" (N): train and
#     test RMSE and infeasibility every iters / 20 iterations, written to
#     inst/extdata/completion_homotopy.csv (read by the vignette
#     homotopy-completion);
#  2. the beta0 grid check of "auto": hsagcgm, 1000 iterations, beta0 / N in
#     {1/8, ..., 4, 20}, written to inst/bench/results/completion_homotopy.md.
#   Rscript inst/bench/completion_homotopy.R [iters = 5000] [movies = 200]
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

fit <- function(method, problem, beta0, T, every) {
  set.seed(1)
  args <- list(train, zeta, method = method, dims = dims, beta0 = beta0, test = test,
               batch_size = 1000, control = cg_control(max_iter = T, eval_every = every))
  if (problem == "box") args$box <- c(1, 5) else args$lambda <- lambda
  do.call(complete_matrix, args)
}

# ---- 1. long runs
runs <- list(c("box", "paper"), c("box", "auto"), c("l1", "paper"))
long <- do.call(rbind, lapply(runs, function(r) do.call(rbind, lapply(c("hsagcgm", "shcgm"),
  function(m) {
    f <- fit(m, r[1], if (r[2] == "paper") 20 * N else "auto", iters, iters / 20)
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

# ---- 2. beta0 grid (box: test RMSE; l1: objective)
grid <- N * c(2^(-3:2), 20)
g <- do.call(rbind, lapply(c("box", "l1"), function(p) do.call(rbind, lapply(grid, function(b) {
  f <- fit("hsagcgm", p, b, 1000L, 1000L)
  tr <- f$trace[nrow(f$trace), ]
  data.frame(problem = p, beta0_over_N = b / N, objective = signif(f$objective, 5),
             rmse_train = round(tr$rmse_train, 4), rmse_test = round(tr$rmse_test, 4),
             infeasibility_rel = signif(tr$infeasibility_rel, 3))
}))))
best <- sapply(split(g, g$problem), function(x)
  if (x$problem[1] == "box") x$beta0_over_N[which.min(x$rmse_test)]
  else x$beta0_over_N[which.min(x$objective)])
print(g, row.names = FALSE)
lines <- c("# beta0 grid for complete_matrix(box = c(1, 5) / lambda), method \"hsagcgm\"", "",
           header, "", "1000 iterations, 1000 ratings per iteration; \"auto\" is beta0 = N.", "",
           "| problem | beta0 / N | objective | train RMSE | test RMSE | infeasibility / norm(X) |",
           "|---|---|---|---|---|---|",
           sprintf("| %s | %g | %g | %.4f | %.4f | %s |", g$problem, g$beta0_over_N, g$objective,
                   g$rmse_train, g$rmse_test, format(g$infeasibility_rel)),
           "", sprintf("Best beta0 / N (box: test RMSE; l1: objective): %s.",
                       paste(names(best), best, sep = " ", collapse = ", ")))
writeLines(lines, "inst/bench/results/completion_homotopy.md")
cat(tail(lines, 1), "\n")
