setwd("/work/wt-covref/inst/bench/prototypes")
source("covsp-data.R"); source("covsp-solvers.R")
b <- readRDS("/tmp/band2000.rds"); S <- b$S; eps <- 1e-2
for (lam in c(0.1, 0.15)) { t0 <- proc.time()[3]; sc <- screen(S, lam, eps); cat("screen lam", lam, "ok", sc$ok, "sec", proc.time()[3]-t0, "\n") }
lam <- 0.05
t0 <- proc.time()[3]; sc <- screen(S, lam, eps); cat("screen lam", lam, "ok", sc$ok, "sec", proc.time()[3]-t0, "\n")
f <- dual_fista(S, lam, eps, gap_tol = 1e-10, verbose = TRUE)
cat("DFISTA band2000 iters", f$iterations, "sec", f$seconds, "obj", format(f$objective, digits = 15), "gap", f$gap, "below", range(f$below), "nops", f$nops, "\n")
saveRDS(f[c("objective","gap","iterations","below","nops","seconds")], "/tmp/band_dfista.rds")
a <- admm_partial(S, lam, eps, tol = 1e-8, gap_tol = 1e-10, verbose = TRUE)
cat("ADMM band2000 iters", a$iterations, "sec", a$seconds, "obj", format(a$objective, digits = 15), "gap", a$gap, "below", range(a$below), "nops", a$nops, "\n")
saveRDS(a[c("objective","gap","iterations","below","nops","seconds")], "/tmp/band_admm.rds")
