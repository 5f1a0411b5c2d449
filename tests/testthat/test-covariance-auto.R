# structure = "auto": the "sparse" and "lowrank+sparse" cross-validations on
# the same folds, the better held-out log-likelihood wins (issue 24)

auto_data <- function(truth, p = 40, n = 60, n_test = 1000, seed = 11) {
  set.seed(seed)
  m <- n + n_test
  x <- if (truth == "factor") {
    B <- matrix(rnorm(p * 2, sd = 1.5), p, 2)
    z <- matrix(rnorm(m * (p + 1)), m)
    matrix(rnorm(m * 2), m) %*% t(B) + z[, -1] + 0.5 * z[, -(p + 1)]   # + MA(1) noise
  } else {
    matrix(rnorm(m * p), m) %*% chol(toeplitz(c(1, 0.6, 0.3, rep(0, p - 3))))
  }
  list(train = x[1:n, ], test = sweep(x[-(1:n), ], 2, colMeans(x[1:n, ])))
}

test_that("auto picks lowrank+sparse on a factor truth, and beats the sparse default on fresh data", {
  d <- auto_data("factor")
  set.seed(1); auto <- sparse_covariance(d$train, structure = "auto")
  expect_identical(auto$structure, "lowrank+sparse")
  expect_gt(auto$rank, 0L)
  expect_setequal(unique(auto$cv$structure), c("sparse", "lowrank+sparse"))
  expect_identical(sum(auto$cv$chosen), 1L)
  expect_identical(auto$cv$structure[auto$cv$chosen], "lowrank+sparse")
  expect_true(auto$converged)
  # the same folds: the sparse rows are the default CV's table, and the
  # lowrank+sparse rows scored in both agree with that CV's alone
  set.seed(1); sp <- sparse_covariance(d$train)
  rows_s <- auto$cv[auto$cv$structure == "sparse", names(sp$cv)]
  rownames(rows_s) <- NULL
  expect_equal(rows_s$loglik, sp$cv$loglik, tolerance = 1e-12)
  expect_identical(rows_s$lambda, sp$cv$lambda)
  set.seed(1); lr <- sparse_covariance(d$train, structure = "lowrank+sparse")
  rows_l <- auto$cv[auto$cv$structure == "lowrank+sparse", ]
  both <- is.finite(rows_l$loglik) & is.finite(lr$cv$loglik)
  expect_gt(sum(both), 3L)
  expect_equal(rows_l$loglik[both], lr$cv$loglik[both], tolerance = 1e-8)
  expect_equal(auto$lambda, lr$lambda); expect_equal(auto$gamma, lr$gamma)
  expect_equal(as.matrix(auto$solution$Sigma), as.matrix(lr$solution$Sigma), tolerance = 1e-6)
  expect_gt(heldout_loglik(auto$solution$Sigma, d$test),
            heldout_loglik(sp$solution$Sigma, d$test))
})

test_that("auto picks sparse on a banded truth, and beats lowrank+sparse on fresh data", {
  # (at p = 40, n = 100 lowrank+sparse wins here, in CV and on fresh data:
  # its L = 0 end is the sparse family's l1 path, and a few factors help;
  # at n < p the l1 path and shrinkage win)
  d <- auto_data("banded", p = 60, n = 40)
  set.seed(2); auto <- sparse_covariance(d$train, structure = "auto")
  expect_identical(auto$structure, "sparse")
  expect_true(is.na(auto$gamma))
  expect_identical(auto$cv$structure[auto$cv$chosen], "sparse")
  set.seed(2); sp <- sparse_covariance(d$train)
  expect_equal(as.matrix(auto$solution$Sigma), as.matrix(sp$solution$Sigma), tolerance = 1e-10)
  set.seed(2); lr <- sparse_covariance(d$train, structure = "lowrank+sparse")
  expect_gt(heldout_loglik(auto$solution$Sigma, d$test),
            heldout_loglik(lr$solution$Sigma, d$test))
})

test_that("auto needs cross-validation from rows: errors name the argument", {
  x <- matrix(rnorm(200), 20)
  expect_error(sparse_covariance(x, structure = "auto", lambda = 0.1),
               "^`lambda` must be \"cv\" or several values with structure = \"auto\"")
  expect_error(sparse_covariance(cov(x), n = 20, structure = "auto"),
               "^`structure` \"auto\" is chosen by cross-validation")
  expect_error(sparse_covariance(x, structure = "auto", folds = NULL),
               "^`structure` \"auto\" is chosen by cross-validation")
  expect_error(sparse_covariance(x, structure = "auto", lambda = c(0.2, 0.1), folds = NULL),
               "^`structure` \"auto\" is chosen by cross-validation: it needs `folds`")
  expect_error(sparse_covariance(x, structure = "bogus"), "`structure`")
})
