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
  list(quote(lowrank_sparse(covariance_rows(X20 * 1e160), 0.1, 5, control = ctl)),
       "`data` is too large in scale"),
  list(quote(sparse_covariance(X20 * 1e160, 0.1, control = ctl)),
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
       "`Y` row and col must be positive whole numbers up to 2147483647"),
  # ---- found by a red-team run of ~1300 calls (each in its own R process)
  # the exact mean (snapshot_batch = 0) exists only for a matrix M
  list(quote(lowrank_sparse(lowrank_sampler(M10, 100), 0.1, 5, snapshot_batch_size = 0,
                            control = ctl)),
       "`snapshot_batch_size` must be at least 1"),
  list(quote(lowrank_sparse(function(k) M10, 0.1, 5, snapshot_batch_size = 0, target = M10,
                            control = ctl)),
       "`snapshot_batch_size` must be at least 1"),
  list(quote(lowrank_sparse(lowrank_sampler(M10, 1), 0.1, 5, snapshot_batch_size = 2.5,
                            control = ctl)),
       "`snapshot_batch_size` must be a whole number"),
  list(quote(lowrank_sparse(lowrank_sampler(M10, 1), 0.1, 5, snapshot_batch_size = 3e9,
                            control = ctl)),
       "`snapshot_batch_size` must be at most 1e\\+08"),
  list(quote(lowrank_sparse(M10, 0.1, 5, target = M10 * 100, control = ctl)),
       "`target` is used only when `M` is a function"),
  list(quote(lowrank_sparse(function() M10, 0.1, 5, control = ctl)),
       "`M` must be a function of k returning a matrix; M\\(1\\) failed: unused argument"),
  # defaults derived from out-of-scale arguments say which
  list(quote(lowrank_sparse(M10, 0.1, 5, eps = 1e308, control = ctl)),
       "`eps` is out of range: the default `mu` = eps \\* C0 / \\(lambda \\* 100\\) is Inf"),
  # (mu takes lambda in: an out-of-scale lambda is named there, before the step)
  list(quote(lowrank_sparse(M10, 1e308, 5, control = ctl)),
       "`lambda` is out of range: the default `mu` = eps \\* C0 / \\(lambda \\* 100\\) is 0"),
  list(quote(matrix_sensing(As, bs, 5, lambda2 = 1e308, dims = c(5, 5), control = ctl)),
       "the default step `step_size` = alpha / \\(2 beta\\) is NaN"),
  list(quote(matrix_sensing(As[0, , drop = FALSE], bs[0], 5, lambda2 = 0.1, dims = c(5, 5))),
       "`A` must have at least one row"),
  list(quote(lowrank_constrained(M10, list(array(1, c(10, 10, 1))), 1, 5, control = ctl)),
       "`A` must be a list of numeric matrices \\(element 1 is not\\)"),
  list(quote(lowrank_constrained(M10, list(diag(10), matrix("a", 10, 10)), 1:2, 5,
                                 control = ctl)),
       "`A` must be a list of numeric matrices \\(element 2 is not\\)"),
  # completion input
  list(quote(complete_matrix({Z <- M10; Z[1, 1] <- NaN; Z}, 5, control = ctl)),
       "`Y` contains NaN; mark missing entries with NA"),
  list(quote(complete_matrix(methods::as(Matrix::Matrix(M10 > 0, sparse = TRUE), "nMatrix"),
                             5, control = ctl)),
       "`Y` must hold numeric values \\(a pattern matrix has none\\)"),
  list(quote(complete_matrix(data.frame(row = c(1, 5e4), col = c(1, 5e4), value = 1:2), 1,
                             method = "spg")),
       "`method` = \"spg\" keeps a dense m x n iterate: 50000 x 50000 is too large"),
  # arguments a method would ignore
  list(quote(complete_matrix(M10, 5, step_size = 0.1, control = ctl)),
       "`step_size` is used only by method = \"spg\""),
  list(quote(sparse_regression(X20, y20, 3, method = "sfw", step_size = 0.1, standardize = FALSE)),
       "`step_size` is used only by method = \"spg\""),
  # control: lists and hand-edited objects are checked like cg_control()'s
  list(quote(sparse_regression(X20, y20, 3, control = list(foo = 1), standardize = FALSE)),
       "`control` has unknown settings: foo \\(known: max_iter, max_time, tol"),
  list(quote(sparse_regression(X20, y20, 3, control = list(1), standardize = FALSE)),
       "`control` must be a named list of settings of cg_control\\(\\)"),
  list(quote(sparse_regression(X20, y20, 3, control = "a", standardize = FALSE)),
       "`control` must be made by cg_control\\(\\)"),
  list(quote(sparse_regression(X20, y20, 3, control = structure(
         list(max_iter = 20L, max_time = Inf, tol = NA_real_, eval_every = 1L,
              progress = FALSE, verbose = FALSE), class = "cg_control"), standardize = FALSE)),
       "`tol` must be a single number"),
  list(quote(sparse_regression(X20, y20, 3, control = structure(
         list(max_iter = -1L), class = "cg_control"), standardize = FALSE)),
       "`max_iter` must be at least 0")
)

test_that("bad and extreme input gives an error naming the argument", {
  for (case in bad_calls) {
    expect_error(eval(case[[1]]), case[[2]], info = deparse(case[[1]], width.cutoff = 200L)[1])
  }
})

test_that("degenerate but valid input fits: an all-zero sensing operator, a control list", {
  fit <- matrix_sensing(As * 0, bs, 5, lambda2 = 0.1, dims = c(5, 5), control = ctl)
  expect_identical(fit$parameters$batch_size, 1)
  expect_identical(sum(abs(as.matrix(fit$solution$X))), 0)   # X = 0 is optimal
  fit <- sparse_regression(X20, y20, 3, method = "fw", control = list(max_iter = 7, tol = 0), standardize = FALSE)
  expect_identical(fit$iterations, 7L)
})

# ---- methods of fits and lowrank objects: bad arguments and fits or
# lowrank objects altered by hand
set.seed(12)
Xm <- matrix(rnorm(60), 12)
sr_fit <- sparse_regression(Xm, rnorm(12), 2, control = ctl, standardize = FALSE)
cm_fit <- complete_matrix(data.frame(row = rep(1:6, 5), col = rep(1:5, each = 6),
                                     value = rnorm(30)), 3, center = "both", control = ctl)
lr <- lowrank(matrix(rnorm(20), 10, 2), c(2, 1), matrix(rnorm(16), 8, 2))
no_solution <- replace(sr_fit, "solution", list(list()))
char_beta <- sr_fit; char_beta$solution$beta <- "a"
empty_sr <- structure(list(), class = c("sparse_regression_fit", "cg_fit"))
no_row <- cm_fit; no_row$center$row <- NULL
short_row <- cm_fit; short_row$center$row <- short_row$center$row[1:3]
na_col <- cm_fit; na_col$center$col[2] <- NA
huge_lr <- lr; huge_lr$d <- c(1e308, 1e308)
obj_re <- "`object` has an invalid solution: `beta` must be a finite numeric vector"
center_re <- function(part, n)
  sprintf("`object` has an invalid `center\\$%s`: it must be a finite numeric vector of length %d",
          part, n)
operand_re <- function(arg, got)
  sprintf("`%s` must be a numeric vector or matrix, or a Matrix object \\(got %s\\)", arg, got)

bad_method_calls <- list(
  list(quote(print(lr, digits = "a")), "`digits` must be a single number"),
  list(quote(print(lr, digits = NA)), "`digits` must be a single number"),
  list(quote(print(lr, digits = 0)), "`digits` must be at least 1"),
  list(quote(print(lr, digits = 2.5)), "`digits` must be a whole number"),
  list(quote(print(lr, digits = 30)), "`digits` must be at most 22"),
  list(quote(predict(cm_fit, type = "nonsense")),
       '`type` must be one of "link", "response", not "nonsense"'),
  list(quote(predict(cm_fit, type = NA)), '`type` must be one of "link", "response"'),
  list(quote(plot(sr_fit, what = "nonsense")),
       '`what` must be one or more of "objective", "gap", "infeasibility", not "nonsense"'),
  list(quote(plot(sr_fit, what = c("obj", NA))), "`what` must be one or more of"),
  list(quote(plot(sr_fit, against = "nonsense")),
       '`against` must be one or more of "iter", "time", "n_grad", "n_lmo", "n_matvec", not "nonsense"'),
  list(quote(plot(sr_fit, against = 1)), "`against` must be one or more of"),
  list(quote(summary(sr_fit, rows = NA)), "`rows` must be a single number"),
  list(quote(summary(sr_fit, rows = "a")), "`rows` must be a single number"),
  list(quote(summary(sr_fit, rows = -3)), "`rows` must be at least 1"),
  list(quote(summary(sr_fit, rows = 2.5)), "`rows` must be a whole number"),
  list(quote(coef(no_solution)),
       "`object` has no solution: its `solution` element is missing or empty"),
  list(quote(predict(char_beta, Xm)), obj_re),
  list(quote(predict(char_beta)), obj_re),
  list(quote(predict(empty_sr, Xm)), "`object` has no solution"),
  list(quote(predict(no_row)), center_re("row", 6)),
  list(quote(predict(short_row, data.frame(row = 5, col = 1))), center_re("row", 6)),
  list(quote(predict(na_col, data.frame(row = 1, col = 1))), center_re("col", 5)),
  list(quote(rep("a", 8) %*% lr), operand_re("x", "character")),
  list(quote(NULL %*% lr), operand_re("x", "NULL")),
  list(quote(lr %*% rep("a", 8)), operand_re("y", "character")),
  list(quote(lr %*% data.frame(a = 1:8)), operand_re("y", "data.frame")),
  list(quote(lr %*% as.list(1:8)), operand_re("y", "list")),
  list(quote(lr %*% array(1, c(8, 1, 1))), operand_re("y", "array")),
  list(quote(lowrank(matrix(1, 10, 2), c(1e308, 1e308), matrix(1, 8, 2))),
       "`d` is too large in scale: the product u diag\\(d\\) t\\(v\\) overflows double precision"),
  list(quote(print(huge_lr)), "`x` is not a valid lowrank object: `d` is too large in scale"),
  list(quote(as.matrix(huge_lr)), "`x` is not a valid lowrank object: `d` is too large in scale")
)

test_that("methods of fits and lowrank objects give errors naming the argument", {
  for (case in bad_method_calls) {
    expect_error(eval(case[[1]]), case[[2]], info = deparse(case[[1]], width.cutoff = 200L)[1])
  }
  # what the checks must still accept: partial matching, several choices,
  # Matrix and 0-column operands, finite factors of large scale
  expect_identical(coef(sr_fit), c("(Intercept)" = sr_fit$intercept, sr_fit$solution$beta))
  expect_equal(predict(sr_fit, Xm), sr_fit$intercept + as.vector(Xm %*% sr_fit$solution$beta))
  expect_equal(dim(lr %*% matrix(0, 8, 0)), c(10L, 0L))
  expect_equal(lr %*% Matrix::Diagonal(8), as.matrix(lr))
  expect_equal(nrow(summary(sr_fit, rows = 2)$trace), 2L)
  expect_equal(as.matrix(lowrank(1, 1e300, 1)), matrix(1e300))
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off())
  expect_identical(plot(sr_fit, what = "obj", against = c("iter", "time")), sr_fit)
})
