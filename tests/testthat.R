library(testthat)
library(stochcg)

test_check("stochcg")
