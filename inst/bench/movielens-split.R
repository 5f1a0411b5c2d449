# The MovieLens 100k (dslabs::movielens) split shared by the completion
# benchmarks (sourced from the repository root): users and movies
# re-indexed to 1..m, 1..n; a 90/10 random split (set.seed(seed)); test
# entries whose user or movie never appears in the training set dropped
# (their prediction would be pure row/column effect extrapolation).
movielens_split <- function(seed = 2024) {
  if (!requireNamespace("dslabs", quietly = TRUE)) stop("needs the dslabs package")
  ml <- dslabs::movielens
  user <- match(ml$userId, sort(unique(ml$userId)))
  movie <- match(ml$movieId, sort(unique(ml$movieId)))
  set.seed(seed)
  test_idx <- sample(nrow(ml), round(0.1 * nrow(ml)))
  train <- data.frame(row = user[-test_idx], col = movie[-test_idx],
                      value = ml$rating[-test_idx])
  test <- data.frame(row = user[test_idx], col = movie[test_idx],
                     value = ml$rating[test_idx])
  keep <- test$row %in% train$row & test$col %in% train$col
  list(train = train, test = test[keep, ], m = max(user), n = max(movie),
       n_ratings = nrow(ml), n_drop = sum(!keep))
}
