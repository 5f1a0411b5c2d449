# No hidden copies of the user's data: tracemem() reports every duplication
# of a traced object, and a fit must read its input where it is (the C side
# through read-only pointers, R without `storage.mode<-` on a double matrix,
# whose ALTREP wrapper R copies in full for a writable pointer). Inputs have
# more than 64 entries, so R would wrap them; fits run two iterations.

skip_if_not(capabilities("profmem"), "R built without memory profiling (tracemem)")

ctl <- cg_control(max_iter = 2)

# the "tracemem[" lines printed while fit(x) runs, x traced
copies_of <- function(x, fit) {
  tracemem(x)
  on.exit(untracemem(x))
  out <- capture.output(suppressWarnings(fit(x)))
  out[grepl("tracemem[", out, fixed = TRUE)]
}

set.seed(8)
X <- matrix(rnorm(3000), 150, 20); y <- rnorm(150)
Xs <- Matrix::rsparsematrix(150, 20, density = 0.3)
M <- matrix(rnorm(900), 30, dimnames = list(paste0("r", 1:30), paste0("c", 1:30)))
S <- crossprod(M)                                   # symmetric, with dimnames
Y <- M; Y[sample(900, 300)] <- NA
Ys <- Matrix::rsparsematrix(30, 30, density = 0.3)
A <- lapply(1:3, function(i) Matrix::sparseMatrix(i, i, x = 1, dims = c(30, 30)))
Ad <- matrix(rnorm(200 * 100), 200); b <- rnorm(200)
Asp <- Matrix::rsparsematrix(200, 100, density = 0.2)

test_that("the copy detector sees a copy", {
  expect_length(copies_of(X, function(x) { x[1] <- 0; x }), 1L)
})

test_that("dense inputs are not copied by any fitting function", {
  cases <- list(   # input, fit
    sparse_regression = list(X, function(x) sparse_regression(x, y, 1, control = ctl)),
    sparse_regression_spg = list(X, function(x) sparse_regression(x, y, 1, method = "spg",
                                                                  control = ctl)),
    complete_matrix = list(Y, function(x) complete_matrix(x, 1, control = ctl)),
    lowrank_sparse = list(M, function(x) lowrank_sparse(x, 0.1, 1, control = ctl)),
    lowrank_sparse_psd = list(S, function(x) lowrank_sparse(x, 0.1, 1, set = "psd",
                                                            control = ctl)),
    lowrank_sampler = list(M, function(x) lowrank_sparse(lowrank_sampler(x, 1), 0.1, 1,
                                                         control = ctl)),
    sparse_covariance = list(X, function(x) sparse_covariance(x, 0.1, 1, control = ctl)),
    lowrank_constrained = list(M, function(x) lowrank_constrained(x, A, rep(1, 3), 1,
                                                                  control = ctl)),
    matrix_sensing = list(Ad, function(x) matrix_sensing(x, b, 1, lambda2 = 0.1,
                                                         dims = c(10, 10), control = ctl)),
    robust_pca = list(M, function(x) robust_pca(x, 1, 1, control = ctl)),
    robust_pca_psd = list(S, function(x) robust_pca(x, 1, 1, psd = TRUE, control = ctl)),
    robust_pca_theory = list(M, function(x) robust_pca(x, 1, 1, step = "theory",
                                                       control = ctl)))
  for (nm in names(cases)) {
    expect_identical(copies_of(cases[[nm]][[1]], cases[[nm]][[2]]), character(0), info = nm)
  }
})

test_that("sparse inputs are not copied", {
  # the slots a dgCMatrix shares with the C side
  expect_identical(copies_of(Xs@x, function(x) sparse_regression(Xs, y, 1, control = ctl)),
                   character(0))
  expect_identical(copies_of(Xs@i, function(x) sparse_regression(Xs, y, 1, control = ctl)),
                   character(0))
  expect_identical(copies_of(Ys@x, function(x) complete_matrix(Ys, 1, control = ctl)),
                   character(0))
  expect_identical(copies_of(Xs@x, function(x) sparse_covariance(Xs, 0.1, 1, control = ctl)),
                   character(0))
  expect_identical(copies_of(Asp@x, function(x) matrix_sensing(Asp, b, 1, lambda2 = 0.1,
                                                               dims = c(10, 10), control = ctl)),
                   character(0))
})

test_that("the copy-free symmetry test agrees with isSymmetric()", {
  set.seed(9)
  for (n in c(1, 2, 3, 40, 1100)) {         # 1100 columns: several blocks
    B <- matrix(rnorm(n * n), n)
    Sym <- B + t(B)
    for (eps in c(0, 1e-12, 1e-9, 1e-6)) {
      P <- Sym
      P[n, 1] <- P[n, 1] + eps
      expect_identical(is_symmetric_matrix(P, tol = 1e-8),
                       isSymmetric(unname(P), tol = 1e-8), info = paste(n, eps))
    }
  }
  expect_false(is_symmetric_matrix(matrix(1:6, 2)))
  expect_true(is_symmetric_matrix(matrix(0, 5, 5)))
})

test_that("all_finite() finds NA, NaN and Inf without allocating", {
  expect_true(all_finite(X))
  expect_true(all_finite(numeric(0)))
  for (bad in c(NA, NaN, Inf, -Inf)) expect_false(all_finite(replace(X, 7, bad)))
  expect_false(all_finite(c(TRUE, NA)))
})
