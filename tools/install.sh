#!/usr/bin/env bash
# Install everything stochcg needs (Debian binaries), then the package itself.
# Usage: bash tools/install.sh        (from the repository root)
set -euo pipefail
cd "$(dirname "$0")/.."
SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
DEBS="r-base-dev r-cran-matrix r-cran-rspectra r-cran-testthat r-cran-cli \
      r-cran-knitr r-cran-rmarkdown pandoc r-cran-dslabs r-cran-huge \
      r-cran-glmnet r-cran-mass r-cran-igraph \
      r-cran-rcsdp r-cran-nmf r-cran-corpcor r-cran-pkgdown \
      r-bioc-delayedarray r-bioc-hdf5array r-bioc-rhdf5 \
      r-cran-future r-cran-future.apply r-cran-progressr r-cran-dbi r-cran-rsqlite"
missing=""
for p in $DEBS; do dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"; done
if [ -n "$missing" ]; then
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing
fi
# the peers the tests and benchmarks compare with that Debian does not
# package (CRAN; tests skip them if CRAN cannot be reached; POET and PDSCE
# only for inst/bench/covariance.R)
# (from the repository R is configured with, getOption("repos"))
$SUDO Rscript -e 'if (any(getOption("repos") == "@CRAN@")) message("no CRAN mirror set in options(repos): rpca, softImpute, scs, POET, PDSCE not installed") else
  for (p in c("rpca", "softImpute", "scs", "POET", "PDSCE")) if (!requireNamespace(p, quietly = TRUE))
  try(install.packages(p, quiet = TRUE))' || true
R CMD INSTALL --no-multiarch --with-keep.source . >/tmp/stochcg-install.log 2>&1 || {
  cat /tmp/stochcg-install.log; exit 1; }
echo "stochcg installed: $(Rscript -e 'cat(format(packageVersion("stochcg")))')"
