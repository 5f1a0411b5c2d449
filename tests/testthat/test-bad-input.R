# Bad and extreme input, table-driven: every call must stop with an R error
# that names the offending argument (matched by regex), never crash R or
# return a fit of a different problem. Calls from issue 8 and the families
# around each of them (NA/NaN/Inf, empty, wrong dimensions between arguments,
# wrong classes, overflow-scale values, non-integer counts).

ctl <- cg_control(max_iter = 5)
set.seed(11)
M10 <- matrix(rnorm(100), 10)
As <- matrix(rnorm(1000), 40); bs <- rnorm(40)
A1 <- function(d) list(Matrix::sparseMatrix(1, 1, x = 1, dims = d))
X20 <- matrix(rnorm(200), 20); y20 <- rnorm(20)

bad_calls <- list(
  # ---- matrix_sensing: dims must be whole numbers matching ncol(A)
  list(quote(matrix_sensing(As, bs, 5, lambda2 = 0.1, dims = c(2.5, 10), control = ctl)),
       "`dims` must be two whole numbers between 1 and 2147483647 \\(got 2.5, 10\\)"),
  list(quote(matrix_sensing(As, bs, 5, lambda2 = 0.1, dims = c(1.25, 20), method = "scg",
                            control = ctl)),
       "`dims` must be two whole numbers between 1 and"),
  list(quote(matrix_sensing(As, bs, 5, lambda2 = 0.1, dims = c(2^31, 10), control = ctl)),
       "`dims` must be two whole numbers between 1 and 2147483647 \\(got 2147483648, 10\\)"),
  list(quote(matrix_sensing(As, bs, 5, lambda2 = 0.1, dims = c(NA, 5), control = ctl)),
       "`dims` must be two whole numbers c\\(m, n\\)"),
  list(quote(matrix_sensing(As, bs, 5, lambda2 = 0.1, dims = c(5, 5, 1), control = ctl)),
       "`dims` must be two whole numbers c\\(m, n\\)"),
  list(quote(matrix_sensing(As, bs, 5, lambda2 = 0.1, dims = "5x5", control = ctl)),
       "`dims` must be two whole numbers c\\(m, n\\)"),
  list(quote(matrix_sensing(As, bs, 5, lambda2 = 0.1, dims = c(5, 4), control = ctl)),
       "`dims` must be c\\(m, d\\) with m \\* d = ncol\\(A\\) = 25 \\(got 5 x 4\\)"),
  list(quote(matrix_sensing(As * 1e200, bs, 5, lambda2 = 0.1, dims = c(5, 5))),
       "`A` is too large in scale"),
  list(quote(matrix_sensing(As, bs * 1e200, 5, lambda2 = 0.1, dims = c(5, 5))),
       "`b` is too large in scale"),
  # ---- lowrank_constrained: constraint matrices must have M's dimensions
  list(quote(lowrank_constrained(M10, A1(c(20, 20)), 1, 5, control = ctl)),
       "`A` must hold matrices of the dimensions of `M` \\(10 x 10\\), not 20 x 20"),
  list(quote(lowrank_constrained(M10, A1(c(300, 300)), 1, 5, control = ctl)),
       "`A` must hold matrices of the dimensions of `M` \\(10 x 10\\), not 300 x 300"),
  list(quote(lowrank_constrained(M10, A1(c(3, 3)), 1, 5, control = ctl)),
       "`A` must hold matrices of the dimensions of `M` \\(10 x 10\\), not 3 x 3"),
  list(quote(lowrank_constrained(M10, A1(c(10, 5)), 1, 5, control = ctl)),
       "`A` must hold matrices of the dimensions of `M` \\(10 x 10\\), not 10 x 5"),
  list(quote(lowrank_constrained(M10, matrix(1, 2, 50), c(1, 1), 5, control = ctl)),
       "`A` must have 100 columns \\(the entries of `M`\\), not 50"),
  # ---- overflow-scale data: named, not "`mu` must be finite"
  list(quote(lowrank_sparse(M10 * 1e200, 0.1, 5, control = ctl)),
       "`M` is too large in scale: its squared norm overflows double precision"),
  list(quote(lowrank_constrained(M10 * 1e200, A1(c(10, 10)), 1, 5, control = ctl)),
       "`M` is too large in scale"),
  list(quote(sparse_covariance(X20 * 1e160, 0.1, 5, control = ctl)),
       "`data` is too large in scale"),
  list(quote(lowrank_sparse(lowrank_sampler(M10 * 1e200, 1), 0.1, 5, control = ctl)),
       "`M` is too large in scale"),
  # ---- a sampler object built by hand is checked like lowrank_sampler()'s
  list(quote(lowrank_sparse(structure(list(M0 = "a", sigma = 1), class = "cg_sampler"),
                            0.1, 5, control = ctl)),
       "`M\\$M0` must be a numeric matrix"),
  list(quote(lowrank_sparse(structure(list(M0 = M10, sigma = NA), class = "cg_sampler"),
                            0.1, 5, control = ctl)),
       "`M\\$sigma` must be a single number"),
  # ---- complete_matrix dims
  list(quote(complete_matrix(M10, 5, dims = c(10.5, 10), control = ctl)),
       "`dims` must be two whole numbers between 1 and 2147483647 \\(got 10.5, 10\\)"),
  list(quote(complete_matrix(M10, 5, dims = c(NA, 10), control = ctl)),
       "`dims` must be two whole numbers c\\(m, n\\)"),
  list(quote(complete_matrix(M10, 5, dims = c(5, 10), control = ctl)),
       "`dims` is smaller than the largest row or column index in `Y`"),
  list(quote(complete_matrix(data.frame(row = c(1, 3e9), col = 1:2, value = 1:2), 5,
                             control = ctl)),
       "`Y` row and col must be positive whole numbers up to 2147483647")
)

test_that("bad and extreme input gives an error naming the argument", {
  for (case in bad_calls) {
    expect_error(eval(case[[1]]), case[[2]], info = deparse(case[[1]], width.cutoff = 200L)[1])
  }
})
