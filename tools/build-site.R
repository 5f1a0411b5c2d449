# Build the pkgdown site into docs/ without network access (no CRAN or
# GitHub lookups, no external search index).
# Usage: Rscript tools/build-site.R    (from the repository root)
if (!requireNamespace("pkgdown", quietly = TRUE))
  stop("the site needs pkgdown (Debian: r-cran-pkgdown)")
Sys.setenv(R_PKGDOWN_OFFLINE = "true")    # pkgdown skips its network checks
options(repos = c(CRAN = "@CRAN@"))        # and never asks a repository
pkgdown::build_site(".", preview = FALSE, install = FALSE, new_process = FALSE)
cat("site built in", normalizePath("docs"), "\n")
