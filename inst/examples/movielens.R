# Main example: complete the MovieLens 100k ratings matrix (dslabs::movielens)
# with stochastic Frank-Wolfe over the nuclear-norm ball, and report the
# held-out RMSE on a 10% test split.
# Run from the repository root:  Rscript inst/examples/movielens.R
suppressPackageStartupMessages(library(stochcg))
if (!requireNamespace("dslabs", quietly = TRUE))
  stop("this example needs the dslabs package (Debian: r-cran-dslabs)")

ml <- dslabs::movielens
ratings <- data.frame(row = match(ml$userId, sort(unique(ml$userId))),
                      col = match(ml$movieId, sort(unique(ml$movieId))),
                      value = ml$rating)
dims <- c(max(ratings$row), max(ratings$col))
set.seed(2015)
test <- sample(nrow(ratings), round(0.1 * nrow(ratings)))
train <- ratings[-test, ]
cat(sprintf("MovieLens: %d users x %d movies, %d training and %d test ratings\n",
            dims[1], dims[2], nrow(train), length(test)))

rmse <- function(fit) {
  pred <- predict(fit, ratings[test, ], clip = c(0.5, 5))   # ratings run 0.5 to 5
  sqrt(mean((pred - ratings$value[test])^2))
}

base <- complete_matrix(train, radius = 1e-8, center = "both", dims = dims,
                        method = "fw", control = cg_control(max_iter = 1))
cat(sprintf("Baseline (user + movie effects only): test RMSE %.4f\n\n", rmse(base)))

fit <- complete_matrix(train, radius = 700, center = "both", dims = dims,
                       method = "sfw", batch_size = 2000,
                       control = cg_control(max_iter = 200))
print(fit)
cat(sprintf("\nLow-rank fit: test RMSE %.4f (rank of the solution %d)\n",
            rmse(fit), length(fit$solution$X$d)))
