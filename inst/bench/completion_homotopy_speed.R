# Iterations per second of complete_matrix(box = c(1, 5)) by "hsagcgm" and
# "shcgm" on MovieLens (dslabs::movielens, the 200 and 600 most rated
# movies, all ratings), the two methods alternated (3 rounds of 300
# iterations each) so that load on a shared machine hits both alike; also
# the Lanczos products per rank-one LMO. Writes
# inst/bench/results/completion_homotopy_speed.md.
#   Rscript inst/bench/completion_homotopy_speed.R
suppressPackageStartupMessages(library(stochcg))
ml <- dslabs::movielens
rows <- list()
for (movies in c(200L, 600L)) {
  top <- as.integer(names(sort(table(ml$movieId), decreasing = TRUE))[seq_len(movies)])
  d <- ml[ml$movieId %in% top, ]
  d <- data.frame(row = match(d$userId, sort(unique(d$userId))),
                  col = match(d$movieId, sort(unique(d$movieId))), value = d$rating)
  dims <- c(max(d$row), max(d$col))
  zeta <- 7e3 * sqrt(prod(dims) / (943 * 1682))
  for (round in 1:3) for (method in c("hsagcgm", "shcgm")) {
    set.seed(round)
    f <- complete_matrix(d, zeta, box = c(1, 5), method = method, dims = dims,
                         control = cg_control(max_iter = 300L, eval_every = 300L))
    tr <- f$trace[nrow(f$trace), ]
    rows[[length(rows) + 1L]] <- data.frame(size = sprintf("%d x %d", dims[1], dims[2]),
      method = method, iter_per_s = 300 / f$solver_time, matvec_per_lmo = tr$n_matvec / tr$n_lmo)
  }
}
res <- do.call(rbind, rows)
agg <- aggregate(cbind(iter_per_s, matvec_per_lmo) ~ size + method, res, median)
print(agg, row.names = FALSE)
lines <- c("# complete_matrix(box = c(1, 5)): iterations per second (median of 3 x 300)", "",
           "| size | method | iterations / s | Lanczos products per LMO |", "|---|---|---|---|",
           sprintf("| %s | %s | %.1f | %.1f |", agg$size, agg$method, agg$iter_per_s,
                   agg$matvec_per_lmo))
dir.create("inst/bench/results", showWarnings = FALSE, recursive = TRUE)
writeLines(lines, "inst/bench/results/completion_homotopy_speed.md")
