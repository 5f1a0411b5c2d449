# The site's reference index (_pkgdown.yml) lists every help topic and
# every vignette: pkgdown::check_pkgdown() fails on one left out.
test_that("_pkgdown.yml lists every help topic and article", {
  skip_if_not_installed("pkgdown")
  root <- normalizePath(test_path("..", ".."), mustWork = FALSE)
  skip_if_not(file.exists(file.path(root, "_pkgdown.yml")), "not run from the source tree")
  expect_no_error(suppressMessages(pkgdown::check_pkgdown(root)))
  # and a topic missing from it is caught (the check can fail)
  tmp <- tempfile("pkg"); dir.create(tmp)
  file.copy(list.files(root, full.names = TRUE, no.. = TRUE), tmp, recursive = TRUE)
  yml <- readLines(file.path(tmp, "_pkgdown.yml"))
  writeLines(yml[!grepl("^\\s+- heldout_loglik$", yml)], file.path(tmp, "_pkgdown.yml"))
  expect_error(suppressMessages(pkgdown::check_pkgdown(tmp)), "heldout_loglik")
})
