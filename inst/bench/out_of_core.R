# Out-of-core fits from HDF5 files (issue 27): sparse regression by "sfw" on
# a tall design, and stochastic_mf(model = "onmf") on a sparse-ish matrix,
# both read block by block (R/readers.R). Not run in CI: it writes its own
# data (hundreds of MB at the default sizes) to a temporary directory.
#
# Usage (from the repository root, with stochcg and HDF5Array installed):
#   Rscript inst/bench/out_of_core.R [n] [p] [d] [N] [density]
#     n x p:  the regression design (default 2e6 x 50, 800 MB; the issue's
#             target is 5e7 x 50, 20 GB)
#     d x N:  the factorization data, `density` nonzero (default 2000 x
#             20000, 5%; the target is 20000 x 200000)
# Each measurement runs in its own Rscript process, so that its peak
# resident set size (VmHWM of /proc/self/status) is its own:
#   floor:  one read of the file, block by block (reader_block(), the blocks
#           the fit uses) -- the cost of a data pass;
#   exact:  X'X and X'y accumulated block by block, then the exact solution
#           at the radius (pfw on the p x p problem, tol 1e-13);
#   sfw:    sparse_regression(H, y, radius, method = "sfw"), defaults;
#   sfw_ydisk: the same with y on disk too (a 1-d HDF5 data set, read with
#           X's blocks: no n-vector of y in memory); the fit must equal
#           sfw's bit for bit, and the peak RSS drop by about y's 8n bytes;
#   sfw_before, sfw_ydisk_before: sfw and sfw_ydisk under another build of
#           stochcg, side by side in one run: set STOCHCG_BENCH_BEFORE_LIB
#           to its library (R_LIBS) to compare a change (e.g. the readers'
#           test schedule, the moments pass in C);
#   smf_floor, onmf: the same for stochastic_mf().
# Targets (issue 27): peak RSS < 1 GB; the coefficients within the stated
# tolerance of the exact solution (the fit's gap bounds f - f*, and
# ||theta - theta*||_2 <= sqrt(2 gap / lambda_min) on the radius' scale);
# seconds per data pass within 2x of the floor; onmf within 2x of one read
# per data pass.

args <- commandArgs(trailingOnly = TRUE)
suppressPackageStartupMessages({
  library(stochcg)
  library(HDF5Array)
  library(rhdf5)
})

vmhwm_mb <- function() {
  s <- readLines("/proc/self/status")
  as.numeric(sub("[^0-9]*([0-9]+).*", "\\1", grep("^VmHWM", s, value = TRUE))) / 1024
}
cpu <- function() sum(proc.time()[c("user.self", "sys.self")])
timed <- function(expr) {
  c0 <- cpu(); w0 <- proc.time()[["elapsed"]]; g0 <- gc.time()[1L]
  val <- force(expr)
  list(value = val, cpu = cpu() - c0, wall = proc.time()[["elapsed"]] - w0,
       gc = gc.time()[1L] - g0)
}

# the read floor: three passes over the file, block by block as the fits
# read it; the fastest pass (the first also pays for opening the file and
# for R compiling the reader's functions, which the fits pay once)
# (STOCHCG_BENCH_FLOOR_PASSES of them; `read` reads block k as the fit
# does: dense, or sparse from a sparse file)
read_passes <- function(r, read = reader_block) {
  np <- as.integer(Sys.getenv("STOCHCG_BENCH_FLOOR_PASSES", "3"))
  t <- lapply(seq_len(np), function(i) timed(for (k in seq_len(r$n_blocks)) read(r, k)))
  best <- which.min(vapply(t, `[[`, 0, "cpu"))
  list(cpu = min(vapply(t, `[[`, 0, "cpu")), wall = min(vapply(t, `[[`, 0, "wall")),
       gc = t[[best]]$gc, first_wall = t[[1]]$wall, blocks = r$n_blocks,
       block_size = r$block_size)
}

# a d x N matrix, `dens` nonzero (non-negative: a rank-10 product, masked),
# written to `file` in the 10x Genomics sparse layout (what
# HDF5Array::TENxMatrix() reads: group "matrix" with data, indices (0-based
# rows), indptr, shape), `step` columns at a time with rhdf5 (never whole in
# memory; see tests/testthat/test-readers.R for why not writeTENxMatrix())
write_tenx <- function(file, d, N, dens, step = 2000L, chunk = 2^16) {
  set.seed(43)
  counts <- rbinom(N, d, dens)
  total <- sum(as.double(counts))
  h5createFile(file)
  h5createGroup(file, "matrix")
  h5createDataset(file, "matrix/data", dims = total, chunk = min(chunk, total), level = 0,
                  storage.mode = "double")
  h5createDataset(file, "matrix/indices", dims = total, chunk = min(chunk, total), level = 0,
                  storage.mode = "integer")
  h5write(c(0, cumsum(as.double(counts))), file, "matrix/indptr")
  h5write(as.integer(c(d, N)), file, "matrix/shape")
  Wt <- matrix(rexp(d * 10), d, 10)
  at <- 0
  for (s in seq(1, N, by = step)) {
    cols <- s:min(N, s + step - 1)
    cnt <- counts[cols]
    i <- unlist(lapply(cnt, function(c) sort.int(sample.int(d, c))), use.names = FALSE)
    H <- matrix(rexp(10 * length(cols)), length(cols), 10)
    val <- rowSums(Wt[i, , drop = FALSE] * H[rep.int(seq_along(cols), cnt), , drop = FALSE])
    idx <- at + seq_along(val)
    h5write(val, file, "matrix/data", index = list(idx))
    h5write(i - 1L, file, "matrix/indices", index = list(idx))
    at <- at + length(val)
  }
  invisible(total)
}

# ---- matrix completion from ratings on disk (issue 27):
#   Rscript inst/bench/out_of_core.R --ratings [N] [m] [n] [iterations]
# writes N ratings (default 2e7; the issue's target is 1e8) of an m x n
# matrix (default 2e5 x 2e4: almost every rating its own cell, as in
# ratings data) to an SQLite table and to three 1-d HDF5 data sets, then,
# each in its own process (peak RSS its own):
#   r_floor_db, r_floor_h5: one read of the entries block by block
#     (reader_block(), checked as the fit reads them) -- a data pass;
#   r_sfw_db, r_sfw_h5: complete_matrix(entry_reader(...), method = "sfw",
#     dims = c(m, n)) for `iterations` iterations (default 100: one pass at
#     the default batch of N / 100);
#   r_memory: the table read into a data frame (DBI::dbReadTable), then the
#     in-memory complete_matrix(df, method = "sfw") with the same settings
#     (skipped with STOCHCG_BENCH_RATINGS_MEMORY=0);
#   r_sfw_h5_before: r_sfw_h5 under another build of stochcg, side by side
#     in one run, when STOCHCG_BENCH_BEFORE_LIB names its library (R_LIBS).
# Results: inst/bench/results/out_of_core_ratings.md (or the file named by
# STOCHCG_BENCH_RATINGS_OUT in that folder). STOCHCG_BENCH_RATINGS_DB=0: HDF5
# only (no SQLite table, no SQLite phases: half the time at large N).
if (length(args) && args[1] %in% c("--ratings", "--rphase", "--rwrite")) {
  suppressPackageStartupMessages({ library(DBI); library(RSQLite) })
  `%||%` <- function(a, b) if (is.null(a)) b else a
  if (args[1] == "--rphase") {
    phase <- args[2]; dir <- args[3]
    meta <- readRDS(file.path(dir, "meta.rds"))
    con <- dbConnect(SQLite(), meta$db)
    reader <- function(kind) if (kind == "db") entry_reader(con, table = "ratings")
                             else entry_reader(meta$h5, name = c("row", "col", "value"))
    ctl <- cg_control(max_iter = meta$iter, eval_every = meta$iter)
    fit_out <- function(t) {
      f <- t$value
      list(cpu = t$cpu, wall = t$wall, objective = f$objective, gap = f$gap,
           iterations = f$iterations, passes = f$reader$passes %||% NA,
           cells = f$reader$cells %||% NA, block_size = f$reader$block_size %||% NA,
           d = f$solution$X$d)
    }
    set.seed(3)
    out <- switch(phase,
      r_floor_db = read_passes(reader("db")),
      r_floor_h5 = read_passes(reader("h5")),
      r_sfw_db = fit_out(timed(complete_matrix(reader("db"), radius = meta$radius,
                                               method = "sfw", dims = meta$dims,
                                               center = meta$center, control = ctl))),
      r_sfw_h5 =, r_sfw_h5_before = fit_out(timed(complete_matrix(reader("h5"),
                                               radius = meta$radius,
                                               method = "sfw", dims = meta$dims,
                                               center = meta$center, control = ctl))),
      r_sfw_h5_low = fit_out(timed(complete_matrix(reader("h5"), radius = meta$radius,
                                                   method = "sfw", dims = meta$dims,
                                                   center = meta$center, control = ctl,
                                                   memory = "low"))),
      r_memory = {
        t_read <- timed(dbReadTable(con, "ratings"))
        df <- t_read$value
        o <- fit_out(timed(complete_matrix(df, radius = meta$radius, method = "sfw",
                                           dims = meta$dims, center = meta$center,
                                           control = ctl)))
        o$read_wall <- t_read$wall; o$read_cpu <- t_read$cpu
        o
      })
    dbDisconnect(con)
    out$rss_mb <- vmhwm_mb()
    saveRDS(out, file.path(dir, paste0(phase, ".rds")))
    quit(save = "no")
  }
  num <- function(i, default) if (length(args) >= i) as.numeric(args[i]) else default
  N <- num(2, 2e7); m <- num(3, 2e5); n <- num(4, 2e4); iter <- num(5, 100)
  with_db <- Sys.getenv("STOCHCG_BENCH_RATINGS_DB") != "0"
  # STOCHCG_BENCH_RATINGS_DIR: write the data there (or reuse them when its
  # meta.rds is for the same N, m, n) and keep them, so that one file serves
  # several runs (the 1e8 file takes minutes to write); --rwrite only writes
  keep_dir <- Sys.getenv("STOCHCG_BENCH_RATINGS_DIR")
  dir <- if (nzchar(keep_dir)) keep_dir else tempfile("out_of_core_ratings_")
  dir.create(dir, showWarnings = FALSE)
  self <- normalizePath(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)))
  load_txt <- function() paste(trimws(readLines("/proc/loadavg")), collapse = " ")
  db <- file.path(dir, "ratings.sqlite"); h5 <- file.path(dir, "ratings.h5")
  chunk <- 2^16
  meta_file <- file.path(dir, "meta.rds")
  old <- if (file.exists(meta_file)) readRDS(meta_file)
  if (!is.null(old) && identical(old$N, N) && identical(old$dims, c(m, n)) &&
      (!with_db || isTRUE(old$with_db))) {
    t_write <- list(wall = old$write_wall)
  } else {
    unlink(c(db, h5, meta_file))
    con <- dbConnect(SQLite(), db)
    h5createFile(h5)
    for (v in c("row", "col", "value"))
      h5createDataset(h5, v, dims = N, chunk = chunk, level = 0,
                      storage.mode = if (v == "value") "double" else "integer")
    # ratings 1..5 from a rank-5 model plus user and item effects, written a
    # million at a time (never whole in memory)
    set.seed(44)
    k <- 5
    U <- matrix(rnorm(m * k, sd = 0.4), m); V <- matrix(rnorm(n * k, sd = 0.4), n)
    a <- rnorm(m, sd = 0.5); b <- rnorm(n, sd = 0.5)
    step <- 2^20
    t_write <- timed(for (s in seq(1, N, by = step)) {
      idx <- s:min(N, s + step - 1)
      i <- sample.int(m, length(idx), TRUE); j <- sample.int(n, length(idx), TRUE)
      eta <- 3.5 + a[i] + b[j] + rowSums(U[i, , drop = FALSE] * V[j, , drop = FALSE])
      val <- pmin(5, pmax(1, round(eta + rnorm(length(idx), sd = 0.8))))
      if (with_db)
        dbWriteTable(con, "ratings", data.frame(row = i, col = j, value = val), append = TRUE)
      h5write(i, h5, "row", index = list(idx)); h5write(j, h5, "col", index = list(idx))
      h5write(val, h5, "value", index = list(idx))
    })
    dbDisconnect(con)
    rm(U, V, a, b); invisible(gc())
  }
  # STOCHCG_BENCH_RATINGS_CENTER: the fits' `center` (default "both";
  # memory = "low" needs "none")
  center <- Sys.getenv("STOCHCG_BENCH_RATINGS_CENTER", "both")
  saveRDS(list(db = db, h5 = h5, dims = c(m, n), radius = 2 * sqrt(N), iter = iter,
               N = N, with_db = with_db, write_wall = t_write$wall, center = center),
          meta_file)
  if (args[1] == "--rwrite") quit(save = "no")
  # STOCHCG_BENCH_RATINGS_LOW=1: also r_sfw_h5_low, the HDF5 fit with
  # memory = "low" (statistics recomputed from the file), after r_sfw_h5 on
  # the same file; STOCHCG_BENCH_RATINGS_PHASES: a comma-separated list of
  # the phases to run instead (e.g. "r_floor_h5,r_sfw_h5_low" at 1e8, where
  # the default mode needs ~9.5 GB)
  with_low <- Sys.getenv("STOCHCG_BENCH_RATINGS_LOW") == "1"
  only <- Sys.getenv("STOCHCG_BENCH_RATINGS_PHASES")
  before_lib <- Sys.getenv("STOCHCG_BENCH_BEFORE_LIB")
  with_memory <- Sys.getenv("STOCHCG_BENCH_RATINGS_MEMORY") != "0"
  run_phase <- function(phase) {
    env <- if (phase == "r_sfw_h5_before") paste0("R_LIBS=", before_lib) else character()
    rc <- system2(file.path(R.home("bin"), "Rscript"), c(self, "--rphase", phase, dir),
                  env = env)
    if (rc != 0) stop("phase ", phase, " failed")
    readRDS(file.path(dir, paste0(phase, ".rds")))
  }
  load_before <- load_txt()
  res <- list()
  phases <- c(if (with_db) c("r_floor_db", "r_sfw_db"), "r_floor_h5", "r_sfw_h5",
              if (with_low) "r_sfw_h5_low",
              if (nzchar(before_lib)) "r_sfw_h5_before", if (with_memory && with_db) "r_memory")
  if (nzchar(only)) phases <- strsplit(only, ",")[[1L]]
  for (ph in phases) {
    res[[ph]] <- run_phase(ph)
    res[[ph]]$load <- load_txt()
  }
  load_after <- load_txt()
  sizes <- file.size(c(db, h5)) / 2^20
  if (with_low || nzchar(only)) {    # default vs low memory, one row per phase
    fl0 <- res$r_floor_h5
    base <- if (is.null(fl0)) NA else fl0$rss_mb
    cells <- NA
    for (r in res) if (!is.null(r$cells) && !is.na(r$cells)) cells <- r$cells
    row <- function(ph) {
      r <- res[[ph]]
      fit <- !is.null(r$objective)
      sprintf("| %s | %.1f | %.1f | %s | %.0f | %s | %s | %s | %s | %s |", ph, r$cpu, r$wall,
              if (fit) sprintf("%.2f", r$passes) else "1", r$rss_mb,
              if (fit && !is.na(base)) sprintf("%.1f", (r$rss_mb - base) * 2^20 / r$cells)
              else "", if (fit) sprintf("%.8g", r$objective) else "",
              if (fit) sprintf("%.4g", r$gap) else "",
              if (fit) sprintf("%d / %d", r$iterations, length(r$d)) else "", r$load)
    }
    lines <- c(
      "# Matrix completion from ratings on disk: default vs memory = \"low\"", "",
      sprintf(paste("Run %s; load (1/5/15 min) before: %s. N = %.0f ratings of a %.0f x %.0f",
                    "matrix, %s distinct cells, HDF5 %.0f MB (written in %.0f s);",
                    "`complete_matrix(entry_reader(h5), method = \"sfw\", center = \"%s\",",
                    "radius = %.0f)`, %d iterations (batch N / 100), cg_control(eval_every =",
                    "%d): one full-data evaluation at the end. Each phase in its own",
                    "process, one after the other: RSS is its peak (VmHWM)."),
              format(Sys.time(), "%Y-%m-%d %H:%M UTC", tz = "UTC"), load_before, N, m, n,
              format(cells), sizes[2], t_write$wall, center, 2 * sqrt(N), iter, iter),
      "", paste("| phase | CPU s | wall s | passes | peak RSS MB | bytes per cell above the",
                "floor's process | objective | gap | iterations / rank | load after |"),
      "|---|---|---|---|---|---|---|---|---|---|",
      vapply(names(res), row, ""))
    out_name <- Sys.getenv("STOCHCG_BENCH_RATINGS_OUT", "out_of_core_ratings_low.md")
    out <- file.path(dirname(self), "results", out_name)
    rds <- Sys.getenv("STOCHCG_BENCH_RATINGS_RDS")
    if (nzchar(rds))
      saveRDS(list(N = N, m = m, n = n, iter = iter, res = res, load_before = load_before,
                   load_after = load_after), rds)
    writeLines(lines, out)
    cat(lines, sep = "\n")
    if (!nzchar(keep_dir)) unlink(dir, recursive = TRUE)
    quit(save = "no")
  }
  fl <- function(r) sprintf("| %s | %.1f | %.1f | 1 | %.1f | %.1f | %.0f MB |", r$name, r$wall,
                            r$cpu, r$wall, r$cpu, r$rss_mb)
  ft <- function(r, name) sprintf("| %s | %.1f | %.1f | %.2f | %.1f | %.1f | %.0f MB |", name,
                                  r$wall, r$cpu, r$passes, r$wall / r$passes,
                                  r$cpu / r$passes, r$rss_mb)
  if (!with_db) {         # HDF5 only: the SQLite rows say NA
    res$r_floor_db <- list(wall = NA, cpu = NA, rss_mb = NA)
    res$r_sfw_db <- list(wall = NA, cpu = NA, passes = NA, rss_mb = NA, objective = NA,
                         cells = res$r_sfw_h5$cells, block_size = res$r_sfw_h5$block_size)
  }
  res$r_floor_db$name <- "floor: one read of the SQLite table, block by block"
  res$r_floor_h5$name <- "floor: one read of the HDF5 data sets, block by block"
  mem <- res$r_memory
  bef <- res$r_sfw_h5_before
  fit_rss <- max(res$r_sfw_db$rss_mb, res$r_sfw_h5$rss_mb, na.rm = TRUE)
  base_rss <- max(res$r_floor_db$rss_mb, res$r_floor_h5$rss_mb, na.rm = TRUE)
  per_rating <- (fit_rss - base_rss) * 2^20 / N
  extra_gb <- per_rating * 1e8 / 2^30
  lines <- c(
    "# Matrix completion from ratings on disk (inst/bench/out_of_core.R --ratings)", "",
    sprintf("Run %s; load (1/5/15 min) before: %s; after: %s. 2 cores shared.",
            format(Sys.time(), "%Y-%m-%d %H:%M UTC", tz = "UTC"), load_before, load_after),
    sprintf(paste("N = %.0f ratings (1..5, rank 5 plus effects) of a %.0f x %.0f matrix in",
                  "%d distinct cells; SQLite file %.0f MB, HDF5 %.0f MB (three 1-d data",
                  "sets, chunks of %d); written in %.0f s. `complete_matrix(method = \"sfw\",",
                  "center = \"both\", radius = %.0f)`, %d iterations (batch N / 100: one pass), default blocks",
                  "of %d entries. Each row ran in its own process: RSS is its peak (VmHWM)."),
            N, m, n, res$r_sfw_db$cells, sizes[1], sizes[2], chunk, t_write$wall,
            2 * sqrt(N), iter, res$r_sfw_db$block_size),
    "", "| phase | wall s | CPU s | passes | wall s / pass | CPU s / pass | peak RSS |",
    "|---|---|---|---|---|---|---|",
    fl(res$r_floor_db), ft(res$r_sfw_db, "sfw from the SQLite table (entry_reader)"),
    fl(res$r_floor_h5), ft(res$r_sfw_h5, "sfw from HDF5 (entry_reader)"),
    if (!is.null(bef)) ft(bef, "sfw from HDF5, before (STOCHCG_BENCH_BEFORE_LIB)"),
    if (!is.null(mem)) c(
      sprintf("| in memory: dbReadTable() | %.1f | %.1f | 1 | | | |", mem$read_wall,
              mem$read_cpu),
      sprintf("| in memory: complete_matrix(data frame), after the read | %.1f | %.1f | | | | %.0f MB |",
              mem$wall, mem$cpu, mem$rss_mb)),
    "", sprintf(paste("Objective after %d iterations: SQLite %.6f, HDF5 %.6f (the same",
                      "draws: identical)%s%s."),
                iter, res$r_sfw_db$objective, res$r_sfw_h5$objective,
                if (is.null(bef)) "" else sprintf(", before %.6f (gap %.4g vs %.4g)",
                                                  bef$objective, bef$gap, res$r_sfw_h5$gap),
                if (is.null(mem)) "" else sprintf(", in memory %.6f (other draws: one block of N)",
                                                  mem$objective)),
    sprintf(paste("Peak RSS above the floor's process per distinct cell: %.0f bytes",
                  "(SQLite), %.0f (HDF5)%s."),
            (res$r_sfw_db$rss_mb - base_rss) * 2^20 / res$r_sfw_db$cells,
            (res$r_sfw_h5$rss_mb - base_rss) * 2^20 / res$r_sfw_h5$cells,
            if (is.null(bef)) "" else sprintf(", before %.0f (HDF5)",
                                              (bef$rss_mb - base_rss) * 2^20 / bef$cells)),
    sprintf(paste("Passes of the reader fits: 2 (the cells) + 1 (per-cell totals) + the",
                  "draws; the full-data evaluations use the per-cell totals and read",
                  "nothing. Reading is a small share of a fit: its passes times the",
                  "floor's CPU are %.1f s of %.1f s (SQLite) and %.1f s of %.1f s (HDF5);",
                  "the rest is the solver's work per iteration (the LMO on the touched",
                  "cells, the effects' sweeps).%s"),
            res$r_sfw_db$passes * res$r_floor_db$cpu, res$r_sfw_db$cpu,
            res$r_sfw_h5$passes * res$r_floor_h5$cpu, res$r_sfw_h5$cpu,
            if (is.null(mem)) "" else sprintf(paste(
              " The in-memory fit took %.1f s of CPU (not profiled: its draws shuffle all N",
              "entries as one block, the reader's stay within a block, and its cells are",
              "numbered in order of appearance rather than sorted)."), mem$cpu)),
    "", "| target (issue 27) | at this scale | |", "|---|---|---|",
    sprintf(paste("| 1e8 ratings: peak RSS < 2 GB plus the factors | %.0f MB for %.0e ratings;",
                  "above the floor's process (R, DBI, HDF5Array: %.0f MB) %.0f MB, %.0f bytes",
                  "per rating: at 1e8, %.1f GB | %s |"),
            fit_rss, N, base_rss, fit_rss - base_rss, per_rating, extra_gb,
            if (extra_gb < 2) "met (extrapolated)" else "not met (extrapolated linearly)"),
    if (!is.null(mem))
      sprintf(paste("| the same, in memory (data frame) | %.0f MB; %.0f bytes per rating above",
                    "the floor's process: at 1e8, %.1f GB | |"), mem$rss_mb,
              (mem$rss_mb - base_rss) * 2^20 / N, (mem$rss_mb - base_rss) * 2^20 / N * 1e8 / 2^30))
  if (!with_db) lines <- lines[!grepl("^\\| (floor: one read of the SQLite|sfw from the SQLite)",
                                     lines)]
  out_name <- Sys.getenv("STOCHCG_BENCH_RATINGS_OUT", "out_of_core_ratings.md")
  out <- file.path(dirname(self), "results", out_name)
  rds <- Sys.getenv("STOCHCG_BENCH_RATINGS_RDS")   # the raw results, for a summary
  if (nzchar(rds))
    saveRDS(list(N = N, m = m, n = n, iter = iter, res = res, load_before = load_before,
                 load_after = load_after), rds)
  writeLines(lines, out)
  cat(lines, sep = "\n")
  if (!nzchar(keep_dir)) unlink(dir, recursive = TRUE)
  quit(save = "no")
}

# the 10x file as a TENxMatrix (rhdf5::h5errorHandling("normal") first:
# see ?block_reader)
tenx <- function(file) {
  rhdf5::h5errorHandling("normal")
  TENxMatrix(file, "matrix")
}

# ---- a phase, in its own process: Rscript out_of_core.R --phase <name> <dir>
if (length(args) && args[1] == "--phase") {
  phase <- args[2]; dir <- args[3]
  meta <- readRDS(file.path(dir, "meta.rds"))
  out <- switch(phase,
    floor = {
      r <- block_reader(HDF5Array(meta$xfile, "X"))
      read_passes(r)
    },
    exact = {
      r <- block_reader(HDF5Array(meta$xfile, "X"))
      y <- readRDS(meta$yfile)
      p <- r$dim[2]; n <- r$dim[1]
      t <- timed({
        G <- matrix(0, p, p); b <- numeric(p); s <- numeric(p)
        for (k in seq_len(r$n_blocks)) {
          B <- reader_block(r, k)
          rows <- ((k - 1) * r$block_size + 1):min(n, k * r$block_size)
          G <- G + crossprod(B); b <- b + drop(crossprod(B, y[rows])); s <- s + colSums(B)
        }
        xbar <- s / n; ybar <- mean(y)
        Gc <- G / n - tcrossprod(xbar)                  # centred X'X / n
        bc <- b / n - xbar * ybar                       # centred X'y / n
        cs <- 1 / sqrt(diag(Gc))                        # standardize = TRUE
        Gs <- Gc * tcrossprod(cs); bs <- bc * cs
        # the same minimizer from a p x p design: ||Rt - z||^2 = n (t'Gs t - 2 bs't) + c
        R <- chol(Gs); z <- backsolve(R, bs, transpose = TRUE)
        ex <- sparse_regression(R, z, radius = meta$radius, standardize = FALSE,
                                intercept = FALSE, control = cg_control(tol = 1e-13))
        theta <- ex$solution$beta
        list(theta = theta, beta = cs * theta, intercept = ybar - sum(xbar * cs * theta),
             fstar = (drop(crossprod(theta, Gs %*% theta)) - 2 * sum(bs * theta) +
                        mean((y - ybar)^2)) / 2,
             lambda_min = min(eigen(Gs, symmetric = TRUE, only.values = TRUE)$values))
      })
      c(t$value, list(cpu = t$cpu, wall = t$wall))
    },
    sfw = , sfw_tol0 = , sfw_before = , sfw_ydisk = , sfw_ydisk_before = {
      H <- HDF5Array(meta$xfile, "X")
      y <- if (phase %in% c("sfw_ydisk", "sfw_ydisk_before")) HDF5Array(meta$yh5, "y")
           else readRDS(meta$yfile)
      set.seed(1)
      # sfw_tol0: no gap tests (tol = 0), so the trace's evaluations, each a
      # pass over the file, stay within the schedule's share of the time
      ctl <- if (phase == "sfw_tol0") cg_control(tol = 0) else cg_control()
      t <- timed(sparse_regression(H, y, radius = meta$radius, method = "sfw", control = ctl))
      f <- t$value
      list(cpu = t$cpu, wall = t$wall, gc = t$gc, beta = f$solution$beta, theta = f$theta,
           intercept = f$intercept, objective = f$objective, gap = f$gap,
           iterations = f$iterations, passes = f$reader$passes, message = f$message)
    },
    smf_floor = {
      r <- block_reader(tenx(meta$yfile_smf), by = "cols")
      read_passes(r, stochcg:::reader_block_sparse)
    },
    onmf = {
      H <- tenx(meta$yfile_smf)
      set.seed(1)
      t <- timed(stochastic_mf(H, k = 10, model = "onmf", outer = meta$outer))
      f <- t$value
      list(cpu = t$cpu, wall = t$wall, passes = f$reader$passes, objective = f$objective,
           gap = f$gap, iterations = f$iterations, block_size = f$reader$block_size,
           n_blocks = f$reader$n_blocks)
    })
  out$rss_mb <- vmhwm_mb()
  saveRDS(out, file.path(dir, paste0(phase, ".rds")))
  quit(save = "no")
}

# ---- the driver
num <- function(i, default) if (length(args) >= i) as.numeric(args[i]) else default
write_only <- length(args) && args[1] == "--write"
if (write_only) args <- args[-1]
n <- num(1, 2e6); p <- num(2, 50); d <- num(3, 2000); N <- num(4, 20000); dens <- num(5, 0.05)
# STOCHCG_BENCH_DIR: keep the data there (and reuse files already written
# with the same sizes) instead of a temporary directory deleted at the end;
# `--write` first only writes them. STOCHCG_BENCH_PHASES: the phases to run
# (comma separated; default all).
keep_dir <- Sys.getenv("STOCHCG_BENCH_DIR")
dir <- if (nzchar(keep_dir)) keep_dir else tempfile("out_of_core_")
dir.create(dir, showWarnings = FALSE, recursive = TRUE)
if (!nzchar(keep_dir)) on.exit(unlink(dir, recursive = TRUE), add = TRUE)
self <- normalizePath(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)))
load_txt <- function() paste(trimws(readLines("/proc/loadavg")), collapse = " ")

# the regression design: correlated columns with means and scales, 5
# nonzero coefficients; written 10 chunks at a time (never whole in memory)
chunk <- 10000L
xfile <- file.path(dir, sprintf("X_%.0f_%d.h5", n, p))
yfile <- file.path(dir, sprintf("y_%.0f_%d.rds", n, p))
wfile <- file.path(dir, sprintf("write_%.0f_%d.rds", n, p))
if (!file.exists(wfile)) {
  unlink(xfile)
  h5createFile(xfile)
  h5createDataset(xfile, "X", dims = c(n, p), chunk = c(min(chunk, n), p), level = 0,
                  storage.mode = "double")
  set.seed(42)
  beta_true <- c(3, -2, 1.5, 1, -1, rep(0, p - 5))
  mu <- rnorm(p, sd = 2); sc <- exp(rnorm(p, sd = 0.5))
  y <- numeric(n)
  step <- 10L * chunk
  t_write <- system.time(for (s in seq(1, n, by = step)) {
    rows <- s:min(n, s + step - 1)
    Z <- matrix(rnorm(length(rows) * p), length(rows))
    Z[, -1] <- 0.6 * Z[, -1] + 0.8 * Z[, 1]          # correlated with the first
    X <- sweep(sweep(Z, 2, sc, "*"), 2, mu, "+")
    y[rows] <- drop(X %*% beta_true) + rnorm(length(rows), sd = 2)
    h5write(X, xfile, "X", index = list(rows, NULL))
  })[["elapsed"]]
  saveRDS(y, yfile)
  rm(y, X, Z); invisible(gc())
  saveRDS(t_write, wfile)
}
t_write <- readRDS(wfile)
# y as a 1-d HDF5 data set too (chunks of X's rows), for sfw_ydisk
yh5 <- file.path(dir, sprintf("y_%.0f_%d.h5", n, p))
if (!file.exists(yh5)) {
  y <- readRDS(yfile)
  h5createFile(yh5)
  h5createDataset(yh5, "y", dims = n, chunk = min(chunk, n), level = 0,
                  storage.mode = "double")
  h5write(y, yh5, "y")
  rm(y); invisible(gc())
}

# the factorization data: d x N, `dens` nonzero (non-negative), in the 10x
# Genomics sparse layout (group "matrix": data, indices, indptr, shape),
# read by HDF5Array::TENxMatrix(); written a block of columns at a time
yfile_smf <- file.path(dir, sprintf("Y10x_%d_%.0f_%g.h5", d, N, dens))
wfile_smf <- file.path(dir, sprintf("write10x_%d_%.0f_%g.rds", d, N, dens))
if (!file.exists(wfile_smf)) {
  unlink(yfile_smf)
  t_write_smf <- system.time(write_tenx(yfile_smf, d, N, dens))[["elapsed"]]
  saveRDS(t_write_smf, wfile_smf)
}
t_write_smf <- readRDS(wfile_smf)
if (write_only) quit(save = "no")
radius <- 5
outer <- as.numeric(Sys.getenv("STOCHCG_BENCH_OUTER", "3"))
saveRDS(list(xfile = xfile, yfile = yfile, yh5 = yh5, yfile_smf = yfile_smf, radius = radius,
             outer = outer), file.path(dir, "meta.rds"))

before_lib <- Sys.getenv("STOCHCG_BENCH_BEFORE_LIB")
run_phase <- function(phase) {
  env <- if (phase %in% c("sfw_before", "sfw_ydisk_before")) paste0("R_LIBS=", before_lib)
         else character()
  rc <- system2(file.path(R.home("bin"), "Rscript"), c(self, "--phase", phase, dir), env = env)
  if (rc != 0) stop("phase ", phase, " failed")
  readRDS(file.path(dir, paste0(phase, ".rds")))
}
load_before <- load_txt()
res <- list()
# the fits between two floors, so that a change of load shows
phases <- Sys.getenv("STOCHCG_BENCH_PHASES",
                     paste0("floor,exact,sfw_before,sfw,sfw_ydisk_before,sfw_ydisk,sfw_tol0,",
                            "smf_floor,onmf,floor2"))
phases <- strsplit(phases, ",")[[1]]
if (!nzchar(before_lib)) phases <- setdiff(phases, c("sfw_before", "sfw_ydisk_before"))
for (ph in phases) {
  res[[ph]] <- run_phase(if (ph == "floor2") "floor" else ph)
  cat(ph, "done", format(Sys.time(), "%H:%M:%S"), "\n")
  saveRDS(res, file.path(dir, "res.rds"))
}
load_after <- load_txt()

mb <- function(bytes) sprintf("%.0f MB", bytes / 2^20)
yes <- function(ok) if (isTRUE(ok)) "met" else "not met"
floor_row <- function(r, what, unit) if (!is.null(r))
  sprintf("| %s (fastest of %d passes, %d blocks of %d %s) | %.1f | %.1f | %s | 1 | %.1f | %.1f | %.0f MB |",
          what, as.integer(Sys.getenv("STOCHCG_BENCH_FLOOR_PASSES", "3")), r$blocks,
          r$block_size, unit, r$wall, r$cpu, gc_txt(r), r$wall, r$cpu, r$rss_mb)
fit_row <- function(r, what) if (!is.null(r))
  sprintf("| %s, %d iterations | %.1f | %.1f | %s | %.2f | %.1f | %.1f | %.0f MB |", what,
          r$iterations, r$wall, r$cpu, gc_txt(r), r$passes, r$wall / r$passes, r$cpu / r$passes,
          r$rss_mb)
gc_txt <- function(r) if (is.null(r$gc)) "" else sprintf("%.1f", r$gc)
floors <- Filter(Negate(is.null), res[c("floor", "floor2")])
floor_wall <- if (length(floors)) min(vapply(floors, `[[`, 0, "wall")) else NA
floor_cpu <- if (length(floors)) min(vapply(floors, `[[`, 0, "cpu")) else NA
ex <- res$exact; sf <- res$sfw
lines <- c(
  "# Out-of-core fits from HDF5 (inst/bench/out_of_core.R)", "",
  sprintf("Run %s; load (1/5/15 min) before: %s; after: %s. 2 cores shared.",
          format(Sys.time(), "%Y-%m-%d %H:%M UTC", tz = "UTC"), load_before, load_after),
  if (!is.null(sf) || !is.null(res$floor))
    sprintf(paste("Regression design %.0f x %d doubles (%s on disk, uncompressed, chunks of",
                  "%d rows; written in %.0f s), radius %g, standardize and intercept (defaults)."),
            n, p, mb(file.size(xfile)), chunk, t_write, radius),
  if (!is.null(res$onmf) || !is.null(res$smf_floor))
    sprintf(paste("Factorization data %d x %.0f, %g%% nonzero, in the 10x Genomics sparse",
                  "layout (%s on disk, uncompressed; written in %.0f s), read by",
                  "HDF5Array::TENxMatrix() as sparse blocks; onmf k = 10, outer = %g."),
            d, N, 100 * dens, mb(file.size(yfile_smf)), t_write_smf, outer),
  paste("Each row ran in its own process: RSS is its peak (VmHWM), R itself with HDF5Array",
        "loaded included (the read floor's process, holding one block, is the baseline)."),
  "", "| phase | wall s | CPU s | GC s | passes | wall s / pass | CPU s / pass | peak RSS |",
  "|---|---|---|---|---|---|---|---|",
  floor_row(res$floor, "read floor", "rows"),
  floor_row(res$floor2, "read floor again (after the fits)", "rows"),
  if (!is.null(ex))
    sprintf("| exact: X'X, X'y block by block + pfw on p x p | %.1f | %.1f | | 1 | | | %.0f MB |",
            ex$wall, ex$cpu, ex$rss_mb),
  fit_row(sf, "sparse_regression(method = \"sfw\")"),
  if (!is.null(res$sfw_before))
    fit_row(res$sfw_before, sprintf("same, before (the build in %s): %s", before_lib,
                                    res$sfw_before$message)),
  fit_row(res$sfw_ydisk, "same, y on disk too (1-d HDF5, read with X's blocks)"),
  if (!is.null(res$sfw_ydisk_before))
    fit_row(res$sfw_ydisk_before, sprintf("same, y on disk, before (the build in %s)",
                                          before_lib)),
  fit_row(res$sfw_tol0, "same, cg_control(tol = 0)"),
  floor_row(res$smf_floor, "smf read floor, sparse blocks", "columns"),
  fit_row(res$onmf, "stochastic_mf(model = \"onmf\")"))
if (!is.null(sf) && !is.null(ex)) {
  f_gap <- sf$objective - ex$fstar
  theta_err <- sqrt(sum((sf$theta - ex$theta)^2))
  theta_bound <- sqrt(2 * sf$gap / ex$lambda_min)
  lines <- c(lines,
    "", "Accuracy of the sfw fit against the exact solution (from X'X, X'y):", "",
    sprintf("- status: %s", sf$message),
    sprintf("- objective - f* = %.3g; the fit's gap %.3g (bounds it: %s)", f_gap, sf$gap,
            if (f_gap <= sf$gap * (1 + 1e-9) + 1e-12) "yes" else "NO"),
    sprintf("- ||theta - theta*||_2 = %.3g on the radius' scale; stated bound sqrt(2 gap / lambda_min) = %.3g (lambda_min %.3g)",
            theta_err, theta_bound, ex$lambda_min),
    sprintf("- max |beta - beta*| = %.3g on the original scale; |intercept - a*| = %.3g",
            max(abs(sf$beta - ex$beta)), abs(sf$intercept - ex$intercept)),
    if (!is.null(res$sfw_tol0))
      sprintf("- with tol = 0: objective - f* = %.3g, gap %.3g, ||theta - theta*||_2 = %.3g",
              res$sfw_tol0$objective - ex$fstar, res$sfw_tol0$gap,
              sqrt(sum((res$sfw_tol0$theta - ex$theta)^2))))
}
yd <- res$sfw_ydisk
if (!is.null(sf) && !is.null(yd))
  lines <- c(lines, "", sprintf(paste(
    "y on disk vs in memory: coefficients %s, objective %s, gap %s; peak RSS %.0f MB -> %.0f MB",
    "(%.0f MB less; y itself is 8n bytes = %.0f MB)."),
    if (identical(sf$beta, yd$beta)) "identical" else "DIFFERENT",
    if (identical(sf$objective, yd$objective)) "identical" else "DIFFERENT",
    if (identical(sf$gap, yd$gap)) "identical" else "DIFFERENT",
    sf$rss_mb, yd$rss_mb, sf$rss_mb - yd$rss_mb, 8 * n / 2^20))
lines <- c(lines, "", "| target (issue 27) | measured | |", "|---|---|---|",
  if (!is.null(yd)) sprintf("| sfw peak RSS < 1 GB, y on disk | %.0f MB | %s |", yd$rss_mb,
                            yes(yd$rss_mb < 1024)),
  if (!is.null(sf)) sprintf("| sfw peak RSS < 1 GB | %.0f MB | %s |", sf$rss_mb,
                            yes(sf$rss_mb < 1024)),
  if (!is.null(sf) && !is.null(ex))
    sprintf("| coefficients within the stated tolerance of the exact solution | err %.3g <= bound %.3g, f - f* %.3g <= gap %.3g | %s |",
            theta_err, theta_bound, f_gap, sf$gap,
            yes(theta_err <= theta_bound && f_gap <= sf$gap * (1 + 1e-9) + 1e-12)),
  if (!is.null(sf) && length(floors))
    sprintf("| sfw seconds per data pass within 2x of the read floor | %.2fx (wall), %.2fx (CPU); the whole fit %.2f floors (wall) | %s |",
            sf$wall / sf$passes / floor_wall, sf$cpu / sf$passes / floor_cpu,
            sf$wall / floor_wall, yes(sf$wall / sf$passes <= 2 * floor_wall)),
  if (!is.null(yd) && length(floors))
    sprintf("| the same, y on disk (both targets in one configuration) | %.2fx (wall), %.2fx (CPU)%s | %s |",
            yd$wall / yd$passes / floor_wall, yd$cpu / yd$passes / floor_cpu,
            if (is.null(res$sfw_ydisk_before)) "" else
              sprintf("; before %.2fx (wall), %.2fx (CPU)",
                      res$sfw_ydisk_before$wall / res$sfw_ydisk_before$passes / floor_wall,
                      res$sfw_ydisk_before$cpu / res$sfw_ydisk_before$passes / floor_cpu),
            yes(yd$wall / yd$passes <= 2 * floor_wall && yd$rss_mb < 1024)),
  if (!is.null(res$onmf) && !is.null(res$smf_floor))
    sprintf("| onmf seconds per data pass within 2x of one read | %.2fx (wall), %.2fx (CPU) | %s |",
            res$onmf$wall / res$onmf$passes / res$smf_floor$wall,
            res$onmf$cpu / res$onmf$passes / res$smf_floor$cpu,
            yes(res$onmf$wall / res$onmf$passes <= 2 * res$smf_floor$wall)))
cat(lines, sep = "\n")
out <- file.path("inst", "bench", "results", Sys.getenv("STOCHCG_BENCH_OUT", "out_of_core.md"))
if (dir.exists(dirname(out))) writeLines(lines, out)
