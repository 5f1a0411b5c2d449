setwd("/work/wt-covref/inst/bench/prototypes")
source("covsp-data.R"); source("covsp-solvers.R"); source("../../../tests/testthat/helper-reference.R")
cases <- list(c(100, 0.1, 0.25), c(100, 0.25, 0.01), c(452, 0.6, 0.01), c(452, 0.41, 0.01), c(452, 0.19, 0.01), c(452, 0.06, 0.01), c(452, 0.19, 0.1))
rows <- NULL
for (cs in cases) {
  d <- stock_split(cs[1]); S <- d$S; lam <- cs[2]; eps <- cs[3]
  t0 <- proc.time()[3]; r <- ref_pd_sparse_cov(S, lam, eps); tr <- proc.time()[3] - t0
  t0 <- proc.time()[3]; sc <- screen(S, lam, eps); ts <- proc.time()[3] - t0
  row <- data.frame(p = cs[1], lambda = lam, eps = eps, ref_iter = r$iterations, ref_sec = round(tr, 2),
                    rank_Lambda = sum(eigen(r$Lambda, TRUE, TRUE)$values > 1e-8), screen_ok = sc$ok, screen_sec = round(ts, 3))
  if (sc$ok) {
    row$screen_relerr <- (objective(sc$Sigma, S, lam) - r$objective) / r$objective
    row$admm <- row$dfista <- "screened"
  } else {
    row$screen_relerr <- NA
    a <- admm_partial(S, lam, eps, tol = 1e-8, gap_tol = 1e-10)
    f <- dual_fista(S, lam, eps, gap_tol = 1e-10)
    row$admm <- sprintf("%d it, %.2f s, below %d-%d, %.0f mv/it, err %.1e", a$iterations, a$seconds, min(a$below), max(a$below), a$nops / a$iterations, (a$objective - r$objective) / r$objective)
    row$dfista <- sprintf("%d it, %.2f s, below %d-%d, %.0f mv/it, err %.1e", f$iterations, f$seconds, min(f$below), max(f$below), f$nops / f$iterations, (f$objective - r$objective) / r$objective)
  }
  print(row); rows <- rbind(rows, row)
}
saveRDS(rows, "/tmp/table_stock.rds")
knitr::kable(rows)
