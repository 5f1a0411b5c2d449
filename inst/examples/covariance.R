# Main example: a covariance estimate for gene expression with far more genes
# than samples (dslabs::tissue_gene_expression: 189 samples x 500 genes).
# sparse_covariance() with its defaults chooses the shrinkage and the l1
# penalty by 5-fold cross-validation; the estimate is scored by its
# Gaussian log-likelihood on 20% of the samples held out, next to the sample
# covariance and corpcor's cov.shrink (when installed).
# Run from the repository root:  Rscript inst/examples/covariance.R
suppressPackageStartupMessages(library(stochcg))
if (!requireNamespace("dslabs", quietly = TRUE))
  stop("this example needs the dslabs package (Debian: r-cran-dslabs)")

x <- dslabs::tissue_gene_expression$x
set.seed(1)
test <- sample(nrow(x), round(0.2 * nrow(x)))
train <- x[-test, ]
cat(sprintf("Gene expression: %d training and %d test samples, %d genes\n\n",
            nrow(train), length(test), ncol(x)))

fit <- sparse_covariance(train)
print(fit)

# held-out log-likelihood per test sample, centred by the training means
mu <- colMeans(train)
score <- function(Sigma) heldout_loglik(Sigma, sweep(x[test, ], 2, mu))
scores <- c("sparse_covariance()" = score(fit$solution$Sigma))
S <- cov(train)
scores["sample covariance"] <- tryCatch(score(S), error = function(e) -Inf)
if (requireNamespace("corpcor", quietly = TRUE))
  scores["corpcor::cov.shrink()"] <- score(unclass(corpcor::cov.shrink(train, verbose = FALSE)))
cat("\nHeld-out Gaussian log-likelihood per test sample (higher is better):\n")
print(round(scores, 1))
cat("(the sample covariance is singular with more genes than samples: -Inf)\n")
