# Build the pkgdown site into docs/ without network access (no CRAN or
# GitHub lookups, no external search index).
# Usage: Rscript tools/build-site.R    (from the repository root)
if (!requireNamespace("pkgdown", quietly = TRUE))
  stop("the site needs pkgdown (Debian: r-cran-pkgdown)")
options(pkgdown.internet = FALSE)          # no CRAN / Bioconductor link lookups
pkgdown::build_site(".", preview = FALSE, install = FALSE, new_process = FALSE)
cat("site built in", normalizePath("docs"), "\n")
