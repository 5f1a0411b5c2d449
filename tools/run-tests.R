# Full test job: R CMD build + R CMD check (no ERROR/WARNING allowed), then the
# testthat suite on the installed package. Ends with "N passed, N failed".
# Usage: Rscript tools/run-tests.R    (from the repository root)
run <- function(cmd, args) {
  out <- suppressWarnings(system2(cmd, args, stdout = TRUE, stderr = TRUE))
  list(out = out, status = attr(out, "status") %||% 0L)
}
`%||%` <- function(a, b) if (is.null(a)) b else a
root <- normalizePath(".")
tmp <- tempfile("stochcg-check"); dir.create(tmp)
owd <- setwd(tmp)
Sys.setenv("_R_CHECK_FORCE_SUGGESTS_" = "false")
b <- run(file.path(R.home("bin"), "R"), c("CMD", "build", shQuote(root)))
cat(b$out, sep = "\n")
if (b$status != 0) stop("R CMD build failed")
tarball <- list.files(tmp, pattern = "^stochcg_.*\\.tar\\.gz$")
# the tarball ships what users run: no build products, no benchmark results
# or exploratory prototypes, and stays small
files <- utils::untar(tarball, list = TRUE)
size_mb <- file.size(tarball) / 2^20
stray <- grep("^stochcg/(inst/bench/(results|prototypes)/|dev/|docs/|src/.*\\.(o|so)$)",
              files, value = TRUE)
cat(sprintf("Tarball %s: %.2f MB, %d files%s\n", tarball, size_mb, length(files),
            if (length(stray)) paste0("; should not ship: ", paste(head(stray, 5), collapse = ", "))
            else ""))
tarball_bad <- size_mb > 5 || length(stray) > 0
chk <- run(file.path(R.home("bin"), "R"),
           c("CMD", "check", "--no-manual", "--no-tests", tarball))
cat(chk$out, sep = "\n")
check_bad <- any(grepl("^Status:.*(ERROR|WARNING)", chk$out)) || chk$status != 0
setwd(owd)

library(testthat)
res <- as.data.frame(test_dir(file.path(root, "tests", "testthat"),
                              package = "stochcg", load_package = "installed",
                              reporter = "summary", stop_on_failure = FALSE))
n_fail <- sum(res$failed) + sum(res$error)
n_skip <- sum(res$skipped)
n_pass <- sum(res$nb) - sum(res$failed) - sum(res$skipped)
if (check_bad) cat("R CMD check reported an ERROR or WARNING (see above)\n")
if (tarball_bad) cat("The tarball is larger than 5 MB or ships files it should not (see above)\n")
line <- sprintf("%d passed, %d failed", n_pass, n_fail + check_bad + tarball_bad)
if (n_skip > 0) line <- paste0(line, sprintf(", %d skipped", n_skip))
cat(line, "\n", sep = "")
quit(status = if (n_fail > 0 || check_bad || tarball_bad) 1L else 0L)
