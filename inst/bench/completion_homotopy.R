# Matrix completion with box constraints (paper 003 eq. 18) and with an l1
# penalty (eq. 19) on MovieLens (dslabs::movielens, the `movies` most rated
# movies, 90/10 split): iterations per second, RMSE and infeasibility of
# hsagcgm and shcgm at the paper's beta0 (20 N in the package's units) and
# the beta0 grid check of beta0 = "auto" (N). Prints two tables.
#   Rscript inst/bench/completion_homotopy.R [iterations] [movies]
suppressPackageStartupMessages(library(stochcg))
args <- commandArgs(trailingOnly = TRUE)
iters <- if (length(args)) as.integer(args[1]) else 1000L
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
# the paper's zeta = 7e3 for 943 x 1682, scaled with sqrt(m n) (the nuclear
# norm of a constant matrix), and lambda = 0.1 for its loss sum (.)^2,
# divided by 2N for the package's loss sum (.)^2 / (2N)
zeta <- 7e3 * sqrt(prod(dims) / (943 * 1682))
lambda <- 0.1 / (2 * N)
cat(sprintf("MovieLens, most rated movies: %d x %d, %d training ratings, %d iterations, zeta %.0f\n",
            dims[1], dims[2], N, iters, zeta))

run <- function(method, problem, beta0 = "auto") {
  set.seed(1)
  args <- list(train, zeta, method = method, dims = dims, beta0 = beta0, test = test,
               control = cg_control(max_iter = iters, eval_every = iters))
  if (problem == "box") args$box <- c(1, 5) else args$lambda <- lambda
  f <- do.call(complete_matrix, args)
  tr <- f$trace[nrow(f$trace), ]
  data.frame(problem = problem, method = method, beta0_over_N = f$beta0 / N,
             iter_per_s = round(iters / f$solver_time, 1), objective = signif(f$objective, 5),
             rmse_train = round(tr$rmse_train, 4), rmse_test = round(tr$rmse_test, 4),
             infeasibility = signif(f$infeasibility, 4),
             infeasibility_rel = signif(f$infeasibility_rel, 3))
}

res <- do.call(rbind, lapply(c("box", "l1"), function(p)
  rbind(run("hsagcgm", p, 20 * N), run("shcgm", p, 20 * N))))
print(res, row.names = FALSE)

cat("\nbeta0 grid (hsagcgm; \"auto\" is N):\n")
grid <- N * c(2^(-3:2), 20)
g <- do.call(rbind, lapply(c("box", "l1"), function(p)
  do.call(rbind, lapply(grid, function(b) run("hsagcgm", p, b)))))
print(g, row.names = FALSE)
best <- sapply(split(g, g$problem), function(x)
  if (x$problem[1] == "box") x$beta0_over_N[which.min(x$rmse_test)]
  else x$beta0_over_N[which.min(x$objective)])
cat("\nbest beta0 / N on the grid (box: test RMSE, l1: objective):",
    paste(names(best), best, collapse = ", "), "; auto: 1\n")
