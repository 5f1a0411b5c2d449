#!/usr/bin/env bash
# Install what the benchmarks in inst/bench/ read beyond tools/install.sh:
# the peers and the public data sets that no test needs (the test suite and
# CI do not run this). Usage: bash tools/install-bench.sh   (repository root)
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/install.sh
SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
# Debian: Bioconductor data (ALL, multtest's golub, Biobase), glasso
DEBS="r-bioc-all r-bioc-multtest r-bioc-biobase r-cran-glasso"
missing=""
for p in $DEBS; do dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"; done
if [ -n "$missing" ]; then
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing
fi
# CRAN: gene-expression data (spls: lymphoma, prostate; ISLR: Khan, NCI60;
# plsgenomics: Colon, SRBCT, leukemia) and peers Debian does not package
$SUDO Rscript -e 'for (p in c("spls", "ISLR", "plsgenomics", "spcov", "lars", "rpca", "softImpute", "scs", "POET", "PDSCE"))
  if (!requireNamespace(p, quietly = TRUE)) install.packages(p, quiet = TRUE)   # getOption("repos")
  miss <- Filter(function(p) !requireNamespace(p, quietly = TRUE),
                 c("spls", "ISLR", "plsgenomics", "ALL", "multtest", "glasso"))
  if (length(miss)) stop("not installed: ", paste(miss, collapse = ", "))'
echo "benchmark packages installed"
