# The default CV (cv_sparse_regression(), standardize = TRUE, and FALSE)
# against glmnet::cv.glmnet() (same folds, same standardize), cold and warm
# (issue 25, branch lassostd). A CV is the first heavy call of a fresh R
# session more often than not, and the first calls of a process pay the
# heap's growth: R's full collections, each marking the ~2 million cons
# cells of the loaded namespaces (stochcg, Matrix, glmnet). Whichever
# allocates first pays them, so each design x standardize x build runs in
# two fresh processes: one with ours first ("first = ours"), one with
# cv.glmnet() first ("first = glmnet"); then, in the same process, two
# more calls of each alternated ("warm": the sums' ratio). Builds
# alternated per design (LIBS = comma-separated library paths, LABELS
# their labels). CPU = user + sys seconds (proc.time()); a full gc() before
# every call; `gcs`: R's collections during our cold call (gcinfo()).
#
#   LIBS=/tmp/lib_main,/tmp/lib_branch LABELS=main,branch \\
#     Rscript inst/bench/cv_regression_lassostd.R
#   (CASES=a,b to select; OUT = the .rds of the table)
args <- commandArgs(trailingOnly = TRUE)
interp <- "inst/bench/cv_regression_interp.R"
defs <- function() {
  src <- readLines(interp)
  e <- new.env()
  eval(parse(text = src[grep("^defs <- function", src):(grep("^if \\(length\\(args\\)", src) - 1L)]), e)
  e$defs()
}

if (length(args) && args[1] == "worker") {
  suppressPackageStartupMessages({ library(stochcg); library(glmnet) })
  d <- defs()[[args[2]]]()
  sp <- split_case(d)
  std <- as.logical(args[3]); first <- args[4]
  cpu <- function(t) t[["user.self"]] + t[["sys.self"]]
  ncv <- 0L
  ours <- function(count = FALSE) {
    gc()
    if (count) { out <- utils::capture.output(type = "message", invisible({ gcinfo(TRUE)
      t <- system.time(cv <- cv_sparse_regression(sp$X, sp$y, folds = sp$foldid, standardize = std))
      gcinfo(FALSE) })); ncv <<- sum(grepl("^Garbage collection", out)) }
    else t <- system.time(cv <- cv_sparse_regression(sp$X, sp$y, folds = sp$foldid, standardize = std))
    c(cpu = cpu(t), wall = t[["elapsed"]], rows = nrow(cv$cv))
  }
  glm <- function() {
    gc()
    t <- system.time(glmnet::cv.glmnet(sp$X, sp$y, foldid = sp$foldid, standardize = std))
    c(cpu = cpu(t), wall = t[["elapsed"]])
  }
  if (first == "ours") { o1 <- ours(TRUE); g1 <- glm() } else { g1 <- glm(); o1 <- ours(TRUE) }
  o2 <- ours(); g2 <- glm(); o3 <- ours(); g3 <- glm()
  saveRDS(data.frame(design = args[2], n = nrow(sp$X), p = ncol(sp$X), std = std,
                     first = first, build = args[5], rows = o1[["rows"]], gcs = ncv,
                     cold_cpu = o1[["cpu"]], cold_glmnet = g1[["cpu"]],
                     cold_ratio = o1[["cpu"]] / g1[["cpu"]], cold_wall = o1[["wall"]],
                     warm_cpu = (o2[["cpu"]] + o3[["cpu"]]) / 2,
                     warm_glmnet = (g2[["cpu"]] + g3[["cpu"]]) / 2,
                     warm_ratio = (o2[["cpu"]] + o3[["cpu"]]) / (g2[["cpu"]] + g3[["cpu"]]),
                     warm_wall = (o2[["wall"]] + o3[["wall"]]) / 2,
                     load = strsplit(readLines("/proc/loadavg"), " ")[[1]][1]), args[6])
  quit(save = "no")
}

libs <- strsplit(Sys.getenv("LIBS"), ",")[[1]]
stopifnot(length(libs) >= 1)
labels <- if (nzchar(Sys.getenv("LABELS"))) strsplit(Sys.getenv("LABELS"), ",")[[1]] else basename(libs)
cases <- c("NCI60", "prostate", "riboflavin", "SRBCT", "colon", "lymphoma", "leukemia",
           "khan", "s50x500", "s100x2000")
only <- Sys.getenv("CASES"); if (nzchar(only)) cases <- strsplit(only, ",")[[1]]
me <- "inst/bench/cv_regression_lassostd.R"
rows <- list()
i <- 0L
for (cs in cases) for (std in c(TRUE, FALSE)) for (first in c("ours", "glmnet")) {
  i <- i + 1L
  for (l in if (i %% 2) seq_along(libs) else rev(seq_along(libs))) {
    f <- tempfile(fileext = ".rds")
    st <- system2("Rscript", c(me, "worker", cs, std, first, labels[l], f),
                  env = paste0("R_LIBS=", libs[l]))
    if (st != 0 || !file.exists(f)) { cat(cs, std, first, labels[l], "failed\n"); next }
    x <- readRDS(f); print(x, row.names = FALSE, digits = 3); flush.console()
    rows[[length(rows) + 1L]] <- x
  }
}
tab <- do.call(rbind, rows)
saveRDS(tab, Sys.getenv("OUT", "/tmp/cv_regression_lassostd.rds"))
cat("\nload:", readLines("/proc/loadavg"), "\n")
print(tab, row.names = FALSE, digits = 3)
