#' Stochastic matrix factorization (dictionary learning) with variance reduction
#'
#' Learns a dictionary `W` (\eqn{d \times k}{d x k}) from the columns of a
#' \eqn{d \times n}{d x n} data matrix `Y` (one sample per column), reading
#' the data in minibatches of columns, by the framework of Zhao, Haskell and
#' Feng (paper 002): problem (3),
#' \deqn{\min_{W \in C} f(W) = \frac1n \sum_{j=1}^n \ell(y_j, W) + \psi(W),
#'   \quad \ell(y, W) = \min_{h \in H, r \in R} \tfrac12 \|y - W h - r\|^2 +
#'   \varphi(h) + \phi(r),}{min_{W in C} f(W) = (1/n) sum_j l(y_j, W) +
#'   psi(W),  l(y, W) = min_{h in H, r in R} 1/2 ||y - W h - r||^2 +
#'   varphi(h) + phi(r),}
#' with `h` the coefficients of a column and `r` its outliers (zero for the
#' non-robust models). The models of Section 2 (their defaults follow
#' Section 5, \eqn{\lambda = 1/\sqrt d}{lambda = 1 / sqrt(d)}, except
#' `"onmf"`):
#' \describe{
#'   \item{`"odl"` (P1)}{online dictionary learning: columns of `W` in the
#'     unit \eqn{\ell_2}{l2} ball, \eqn{\varphi = \lambda\|h\|_1}{varphi =
#'     lambda ||h||_1} (`lambda`).}
#'   \item{`"ossl"` (P2)}{online structured sparse learning: `W` free,
#'     \eqn{\varphi = \sum_g \lambda_g \|h_g\|}{varphi = sum_g lambda_g
#'     ||h_g||} over groups of consecutive coefficients (`groups`: a group
#'     label per coefficient, default one group each; `lambda`: one weight,
#'     or one per group).}
#'   \item{`"onmf"` (P3)}{online NMF: columns of `W` nonnegative with
#'     \eqn{\ell_1}{l1} norm 1, \eqn{h \ge 0}{h >= 0},
#'     \eqn{\varphi = \tfrac\lambda2 \|h\|^2}{varphi = lambda/2 ||h||^2},
#'     default \eqn{\lambda = 0.01 d^{-3/2}}{lambda = 0.01 d^(-3/2)} (not
#'     the paper's \eqn{1/\sqrt d}{1/sqrt(d)}: an atom on the simplex spread
#'     over \eqn{d}{d} entries has \eqn{\ell_2}{l2} norm about
#'     \eqn{1/\sqrt d}{1/sqrt(d)}, so its coefficients are
#'     \eqn{\sqrt d}{sqrt(d)} times those of a unit-norm atom and the same
#'     ridge is \eqn{d}{d} times stronger; with \eqn{1/\sqrt d}{1/sqrt(d)}
#'     on `NMF::esGolub` (\eqn{d = 5000}{d = 5000}, \eqn{k = 5}{k = 5}) the
#'     atoms were 97% zeros and the relative reconstruction error 0.66. The
#'     ridge only has to keep each column's coefficients unique (assumption
#'     A4); \eqn{d^{-3/2}}{d^(-3/2)}, the paper's balance carried over, still
#'     biased the fit where the atoms are alike: relative error after 100
#'     passes 0.0568 on `dslabs::tissue_gene_expression` (k = 5) against
#'     0.0535 at 1% of it or with no ridge (and the rank-5 SVD's 0.0535), and
#'     0.045 against 0.001 on noiseless planted NMF data (d = 50, n = 2000),
#'     esGolub unchanged at 0.432; `inst/bench/results/smf.md`).}
#'   \item{`"ssodl"` (P4)}{smooth sparse online dictionary learning: `C`
#'     and `H` as for `"onmf"`, \eqn{\psi = \tfrac{\lambda_1}2
#'     \mathrm{tr}(W'LW)}{psi = lambda1/2 tr(W'LW)} with a positive
#'     semidefinite `laplacian` \eqn{L}{L} (default: the 4-neighbour grid
#'     Laplacian of `image_dims`, else that of the chain \eqn{1, \dots,
#'     d}{1, ..., d}), \eqn{\varphi = \tfrac{\lambda_2}2 \|h\|^2}{varphi =
#'     lambda2/2 ||h||^2}. The proximal step on `W` has no closed form: it is
#'     solved per column by accelerated projected gradient to `bsum_tol`.}
#'   \item{`"orpca"` (P5)}{online robust PCA: `W` free, \eqn{\psi =
#'     \tfrac{\lambda_1}{2n}\|W\|_F^2}{psi = lambda1/(2n) ||W||_F^2},
#'     \eqn{\varphi = \tfrac{\lambda_1}2\|h\|^2}{varphi = lambda1/2
#'     ||h||^2}, \eqn{\phi = \lambda_2 \|r\|_1}{phi = lambda2 ||r||_1}
#'     (`lambda1`, `lambda2`; defaults in units of the data, see Outliers).}
#'   \item{`"omrmd"` (P6)}{online max-norm regularized matrix decomposition:
#'     `W` free, \eqn{\psi = \tfrac{\lambda_1}{2n}\|W\|_{2,\infty}^2}{psi =
#'     lambda1/(2n) ||W||_(2,inf)^2} (the largest squared row norm; its prox
#'     cuts the longest rows to a common length), \eqn{\|h\| \le 1}{||h||
#'     <= 1}, \eqn{\phi = \lambda_2\|r\|_1}{phi = lambda2 ||r||_1}.}
#'   \item{`"olrr"` (P7)}{online low-rank representation: `W` free,
#'     \eqn{\psi = \frac{1}{2n^2}(\|W'AY\|^2 + \lambda_3\|BW\|^2)}{psi =
#'     (||W'AY||^2 + lambda3 ||BW||^2) / (2 n^2)} with `Y` the data and given
#'     `A` (\eqn{d \times d}{d x d}) and `B` (\eqn{\cdot \times d}{. x d}),
#'     both the identity by default (our choice: the paper gives none),
#'     \eqn{\varphi = \tfrac{\lambda_1}2\|h\|^2}{varphi = lambda1/2
#'     ||h||^2}, \eqn{\phi = \lambda_2\|r\|_1}{phi = lambda2 ||r||_1}.
#'     \eqn{\psi}{psi} is the quadratic \eqn{\tfrac12\mathrm{tr}(W'QW)}{1/2
#'     tr(W'QW)}, \eqn{Q}{Q} (\eqn{d \times d}{d x d}) formed once.}
#'   \item{`"ornmf"` (P8)}{online robust NMF: columns of `W` nonnegative in
#'     the unit \eqn{\ell_2}{l2} ball, \eqn{h \in [0, M]^k}{h in [0, M]^k},
#'     \eqn{r \in [-M', M']^d}{r in [-M', M']^d}, \eqn{\phi = \lambda
#'     \|r\|_1}{phi = lambda ||r||_1} (`lambda`, default in units of the
#'     data, see Outliers; `M` default `Inf`, `M_prime` default
#'     `max(abs(Y))`).}
#' }
#' The sub-problem of a column (the paper's (2)) is solved in C by block
#' successive upper-bound minimization (BSUM, eqs. 5-6): a proximal gradient
#' step on `h` with step \eqn{1/\|W\|_2^2}{1 / ||W||_2^2}, then the exact
#' `r`, repeated from \eqn{h = 0, r = 0}{h = 0, r = 0} until the relative
#' change of both is below `bsum_tol` (at most `bsum_max_iter` rounds).
#' Where \eqn{H}{H} is a box and \eqn{\varphi}{varphi} a ridge or zero
#' (`"orpca"`, `"olrr"`, `"onmf"`, `"ssodl"`, `"ornmf"`) BSUM is projected
#' gradient on the \eqn{k}{k}-dimensional objective left when `r` is
#' minimized out (Huber's function of the residual for an \eqn{\ell_1}{l1}
#' `phi`), and converges at that objective's condition number (on the
#' paper's Synth data 95% of the orpca columns and all the ornmf ones
#' stopped at 200 rounds); there the sub-problem is solved instead by
#' Bertsekas' projected Newton on that objective with backtracking, exact
#' once the outlier entries and the active bounds settle (9-15 steps per
#' column there, none capped; each step \eqn{O(dk^2)}{O(d k^2)}, or
#' \eqn{O(k^2)}{O(k^2)} without outliers), with BSUM as the fallback if a
#' Newton system is singular. For `"odl"` (an \eqn{\ell_1}{l1} penalty, no
#' outliers) the sub-problem is a lasso in \eqn{k}{k} coordinates, solved by
#' cyclic coordinate descent on \eqn{W'W}{W'W} (a sweep costs \eqn{O(k^2)}{O(k^2)},
#' as one proximal gradient step) and, after a sweep that left the support
#' and signs of `h` unchanged, the exact solve on them (a Cholesky
#' factorization), kept when the optimality conditions hold; else until the
#' relative change of `h` over a sweep is below `bsum_tol`. Proximal
#' gradient with step \eqn{1/\|W\|_2^2}{1 / ||W||_2^2} (and coordinate
#' descent alone) slows down with the condition number of \eqn{W'W}{W'W}:
#' it stopped at 200 rounds for 92-100\% of the columns on `MASS::UScereal`,
#' `pls::gasoline`, `MASS::Boston` and `dslabs::tissue_gene_expression`,
#' whose atoms are alike (`inst/bench/results/smf_passes.md`). Only
#' running sums \eqn{A = \sum h h'}{A = sum h h'} and \eqn{B = \sum (y - r)
#' h'}{B = sum (y - r) h'} of the solutions are kept (the gradient of
#' \eqn{\ell}{l} summed over those columns is \eqn{W A - B}{W A - B}), never
#' the coefficients: memory is \eqn{O(dk + k^2)}{O(dk + k^2)} plus the
#' data.
#'
#' @section Methods:
#' \describe{
#'   \item{`"vr"` (default; see Default method)}{Algorithm 1 of the paper. Each outer iteration
#'     solves every column at the snapshot \eqn{W^{s,0}}{W^(s,0)} for the
#'     full gradient \eqn{G_{s,0}}{G_(s,0)}; then `inner` (\eqn{m}) inner
#'     iterations each draw `batch_size` (\eqn{b}) columns without replacement,
#'     solve them at the snapshot and at the current \eqn{W}, form the
#'     variance-reduced gradient \eqn{V = \frac1b \sum (\nabla\ell(y_j, W) -
#'     \nabla\ell(y_j, W^{s,0})) + G_{s,0}}{V = (1/b) sum (grad l(y_j, W) -
#'     grad l(y_j, W^(s,0))) + G_(s,0)} and take the proximal step
#'     \eqn{W \leftarrow \mathrm{prox}_{\eta\psi + \delta_C}(W - \eta V)}{W <-
#'     prox_(eta psi + delta_C)(W - eta V)} with a constant step `step_size`.
#'     Defaults from Section 5: \eqn{b = \lceil 0.2 n^{2/3}\rceil}{b = ceiling(0.2
#'     n^(2/3))}, \eqn{m = \lceil 0.5 n^{1/3}\rceil}{m = ceiling(0.5 n^(1/3))},
#'     outer iterations \eqn{S}{S} (`outer`): by default until the objective
#'     stops changing (see Default length). `output = "last"` is
#'     option II (the last iterate, the paper's practice), `"random"` option
#'     I (an iterate \eqn{W^{s,t}}{W^(s,t)}, \eqn{t \ge 1}{t >= 1}, drawn
#'     uniformly; kept by reservoir sampling, so no iterate is stored).}
#'   \item{`"smm"`}{Algorithm S-2, stochastic majorization-minimization
#'     (Mairal et al.'s online dictionary learning): each iteration solves
#'     `batch_size` columns at \eqn{W_t}{W_t}, adds them to the sufficient
#'     statistics \eqn{A_t, B_t}{A_t, B_t} and sets `W` to the minimizer over
#'     `C` of the surrogate \eqn{\frac1N(\tfrac12 \mathrm{tr}(W'WA_t) -
#'     \mathrm{tr}(W'B_t)) + \psi(W)}{(1/N)(1/2 tr(W'W A_t) - tr(W'B_t)) +
#'     psi(W)} (\eqn{N}{N} columns so far), by block coordinate descent over
#'     the columns of `W` (exact per column; sweeps until the relative change
#'     is below `bsum_tol`, at most 50), or, where \eqn{\psi}{psi} couples
#'     the entries of a column or the rows (`"ssodl"`, `"olrr"`,
#'     `"omrmd"`), by accelerated proximal gradient to the same tolerance (at
#'     most 500 iterations).}
#'   \item{`"sgd"`}{Algorithm S-3, proximal stochastic gradient:
#'     \eqn{W \leftarrow \mathrm{prox}_{\gamma_t\psi + \delta_C}(W - \gamma_t
#'     V_t)}{W <- prox_(gamma_t psi + delta_C)(W - gamma_t V_t)} with the
#'     minibatch gradient \eqn{V_t}{V_t} and \eqn{\gamma_t = \beta/(bt +
#'     \beta')}{gamma_t = beta / (b t + beta')} (`beta`, `beta_prime`).}
#' }
#' The paper tunes the steps by hand (`step_size` for vr, \eqn{\beta, \beta'}{beta,
#' beta'} for sgd). The defaults here use the curvature \eqn{L =
#' \lambda_{\max}(\frac1N \sum h_j h_j') + c}{L = lambda_max((1/N) sum h_j
#' h_j') + c} of the first statistics (\eqn{c}{c} the curvature of
#' \eqn{\psi}{psi}): `step_size` = \eqn{1/L}{1/L} at each snapshot (constant
#' within an outer iteration; \eqn{L}{L} grows as the coefficients do, and
#' a step fixed at the start was too long for `"olrr"` there; give `step_size`
#' for the paper's constant step);
#' `beta_prime` = \eqn{n}{n} and `beta` = `beta_prime`/\eqn{L}{L} at the
#' first minibatch (`"ornmf"` from its data start: \eqn{L}{L} over the
#' start's sample, see Outliers; the step starts at \eqn{1/L}{1/L} and decays as
#' \eqn{1/t}{1/t} after about one pass). smm needs no step. By default smm
#' and sgd read as many columns as vr (`outer` \eqn{\times (n + mb)}{x (n +
#' m b)}).
#'
#' @section Outliers (orpca, ornmf):
#' The threshold \eqn{\lambda_2}{lambda2} (`"ornmf"`: \eqn{\lambda}{lambda})
#' is in the units of the data: an entry of \eqn{y - Wh}{y - W h} beyond it
#' is an outlier (\eqn{r = }{r = }soft\eqn{(y - Wh, \lambda_2)}{(y - W h,
#' lambda2)}), so the paper's \eqn{1/\sqrt d}{1/sqrt(d)}, a number, fits
#' only data of a certain scale (the problem is not scale invariant, unlike
#' principal component pursuit's, whose \eqn{\lambda = 1/\sqrt{\max(m,
#' n)}}{lambda = 1/sqrt(max(m, n))} weighs two norms of degree one). The
#' defaults are therefore \eqn{\lambda_2 = \lambda = 0.3 s}{lambda2 = lambda
#' = 0.3 s} and \eqn{\lambda_1 = s/\sqrt d}{lambda1 = s / sqrt(d)} (the
#' paper's value at \eqn{s = 1}{s = 1}), with \eqn{s}{s} (`lambda_scale`)
#' the robust scale \eqn{1.4826\,\mathrm{median}|y_{ij} -
#' \mathrm{median}(y)|}{1.4826 median |y_ij - median(y)|} of the entries,
#' from about \eqn{2\cdot 10^4}{2e4} of them (at least 50 evenly spaced
#' columns, or as many as \eqn{10^6}{1e6} entries allow but \eqn{2k}{2k};
#' all when \eqn{n}{n} is small; `scale_columns` says how many),
#' which gross outliers leave about the same while they are fewer than half
#' the entries (the mean absolute deviation
#' \eqn{\times\sqrt{\pi/2}}{x sqrt(pi/2)} when half the entries or more are
#' equal, e.g. sparse data). `Y` and `c * Y` then give the same `"ornmf"`
#' dictionary. On 17 planted data sets (d = 30-200, n = 1000-10000, 5-20%
#' outliers of 5-50 times the signal's standard deviation, rank 5), with
#' the cleaned k-column start, threshold 0.3 \eqn{s}{s} and \eqn{b = 5}{b = 5}
#' brought both models to expressed variance 0.95 within 3 data passes on 16
#' sets, \eqn{b = 10}{b = 10} on 15, 1 \eqn{s}{s} on 12-13 (an atom lost
#' at 20% of 50x outliers); 0.1 \eqn{s}{s} lost atoms at n = 1000. With
#' the starts below, orpca reached 0.997-1.000 on all 17 within 3 passes,
#' ornmf 0.967-1.000 on 16 and 0.87 on one (d = 200, n = 1000, 20% of 50x
#' outliers); with its refined start (below) ornmf reached 0.981-0.9995
#' within 3 passes on the 7 sets of the bench and on 4 more data seeds of
#' that shape, each with 5 solver seeds; orpca from its PCP start (below)
#' 0.998-1.000 on those 55 runs (from the cleaned-sample start 0.80 with one
#' solver seed on d = 30, n = 1000, 20% of 5x outliers: an atom lost).
#'
#' The old defaults (vr, \eqn{1/\sqrt d}{1/sqrt(d)}, k raw columns as the
#' start) recovered 0.3-0.8 of a planted dictionary under gross outliers
#' (issue 28) for two reasons besides the scale. An outlier's residual only
#' moves `W` by \eqn{\lambda_2 h}{lambda2 h} per step (its loss is
#' linear there): an atom started from a raw column keeps that column's
#' gross entries for hundreds of steps, and vr takes about
#' \eqn{0.45 n^{1/3}}{0.45 n^(1/3)} steps per pass (8 at n = 3000; sgd with
#' \eqn{b = 5}{b = 5}: n / 5). So for `"orpca"` and `"ornmf"` the default
#' method is `"sgd"` with `batch_size` 5, and `init = "data"` starts from
#' the scale's columns, robustly: for `"ornmf"` their entries beyond 3
#' robust row scales (row median and MAD) are set to the row median and
#' k of them picked by successive projection (the longest after projecting
#' out those picked; Gillis and Vavasis 2014), nonnegative parts: k random
#' columns can miss an atom their codes do not use, and sgd then found it
#' late or never (EV 0.69-0.82 for orpca, 0.77-0.99 for ornmf, by seed, at
#' d = 30, n = 1000, 20% outliers; 0.99-1.00 from cleaned starts).
#' `"orpca"` starts from the top `k` left singular vectors of the low-rank
#' part of batch principal component pursuit ([robust_pca()], 50 ADMM
#' iterations, on the columns over \eqn{s}{s}) of the scale's columns, in
#' memory (where that part has rank below `k`, e.g. sparse data, the other
#' atoms come from the cleaned columns), each atom's norm the square root
#' of its singular value over the square root of the number of columns:
#' the problem is the same for \eqn{cY}{c Y} up to \eqn{W \to \sqrt c
#' W}{W -> sqrt(c) W} (\eqn{\lambda_1, \lambda_2}{lambda1, lambda2} scale
#' with \eqn{c}{c}), and so is this start (one in the data's units lost EV
#' at 1000 times the tissue data below: 0.34-0.52 at 3 passes by seed).
#' The top singular vectors of the cleaned columns were a weaker start
#' where outliers are many and moderate (20% of 5x: most lie within 3 row
#' scales, which they inflate): EV 0.55-0.75 on 16 such data sets (d = 30,
#' n = 500 and 1000), and sgd recovered the missing atoms for some solver
#' seeds only: EV below 0.95 at 3 passes (0.63-0.94) for one seed or more
#' of 1-3 (1-5 at n = 1000) on 10 of the 16; PCP's start had 0.990-0.999
#' and 3 passes 0.994-0.999 for every seed. On
#' `dslabs::tissue_gene_expression` (5% outliers, against PCP of all the
#' columns) the start went from 0.68 to 0.88 and orpca at 3 passes from
#' 0.917-0.976 to 0.976-0.979 by seed. The PCP start costs 0.07-0.5 s of
#' CPU in the bench (the sample is about \eqn{2\cdot 10^4}{2e4} entries).
#' `"ornmf"` then refines its successive-projection columns with the
#' model itself, vr on the
#' raw sample (its \eqn{r}{r} takes the outliers) in memory, no data read,
#' as many passes over it as make about 3000 columns; and sgd's first step is
#' \eqn{1/L}{1/L} at that start over the sample, not over the first
#' minibatch of 5 columns. Where each column holds many gross entries
#' (d = 200, 20\% of 50x outliers: 40 a column) the cleaning leaves some
#' and clips the codes' own large entries: the columns picked had EV
#' 0.25-0.33 and sgd had both to find atoms and to average its noise with
#' one step (0.95-0.99 after 3 passes, by seed); refined, the start had
#' 0.96-0.99. On `dslabs::tissue_gene_expression` (189 columns, one
#' start for 3 passes' worth of steps) the refined start took ornmf from
#' 0.885 to 0.956-0.971 (5 seeds) within 3 passes, against batch PCP's
#' top-5 subspace (which a rank-5 NMF of PCP's low-rank part spans to
#' 0.99997; ornmf run 60 passes: 0.977). The start costs the CPU of some
#' 3000 columns' sub-problems whatever \eqn{n}{n}: 0.1-0.5 s more per fit
#' in the bench, 2.3 s more (+45%) at d = 3000, n = 2000 within 3 passes
#' (start EV 0.26 before, 0.98 now).
#' The fit reports the outliers found at the last evaluation: `outliers`
#' (nonzero entries of \eqn{R}{R}) and `outlier_fraction` (of the
#' \eqn{dn}{d n} entries), also printed. Measurements:
#' `inst/bench/smf_outliers.R`, `inst/bench/results/smf_outliers.md`
#' (against batch [robust_pca()]).
#'
#' @section Default method:
#' The default method is `"vr"` (except for `"orpca"` and `"ornmf"`, see
#' Outliers) because, with every method's default
#' (automatic) step, it ended with the lower objective after 22 data passes
#' on 9 of 16 data sets, sgd on 6 (all four orpca sets, odl on
#' `dslabs::tissue_gene_expression` and one of three ornmf sets), one level
#' (`inst/bench/smf.R` at n = 2000, 2e4 and 1e5, `inst/bench/smf_defaults.R`
#' on `NMF::esGolub`, tissue and Synth data with other seeds, and the
#' vignette's runs; `inst/bench/results/smf.md`):
#' e.g. relative suboptimality 1.3e-3 against sgd's 1.7e-3 on odl at n =
#' 1e5, and the best of all methods on esGolub and tissue (onmf), where
#' sgd ended 0.031 and 0.0034 above it. sgd is faster only with a step
#' tuned per data set: with the best of a step grid it came within 1e-3 of
#' the best objective in 1.1-2.2 passes at n = 2e4-1e5 (vr's best: 6.6-19.9
#' passes, or never), but no single step multiple is safe (4 times the
#' default, best on the Synth sets, ended 0.32 above the best on tissue).
#' For `"orpca"` sgd's default was ahead on all four data sets tried (all
#' from the paper's Synth generator), hence its default now.
#' vr's constant step needs no decay schedule; smm was the slowest on most
#' data sets, as in the paper (it ended best on odl tissue). The paper's advantage of vr in data
#' passes did not appear at these sizes: Algorithm 1 takes \eqn{m/(1 +
#' mb/n)}{m / (1 + m b / n)} steps per pass (about 0.45
#' \eqn{n^{1/3}}{n^(1/3)}), sgd \eqn{n/b}{n / b} (5 \eqn{n^{1/3}}{n^(1/3)}).
#'
#' @section Default length:
#' The paper runs a fixed \eqn{S = 10}{S = 10} outer iterations; on small
#' data that stops far from a fit (relative error 0.058 on
#' `t(MASS::UScereal)`, \eqn{k = 3}{k = 3}, against 0.0195 for
#' `NMF::nmf(method = "lee")`; `"odl"` 0.068). With `outer = NULL` (the
#' default) and no `control$max_iter`, vr stops at the snapshot where the
#' objective \eqn{f(W^{s,0})}{f(W^(s,0))} (computed from the snapshot's
#' sub-problems, no extra pass) has changed by at most \eqn{10^{-4}}{1e-4}
#' relative to the last snapshot's (one outer iteration, \eqn{1 + mb/n}{1 +
#' m b / n} data passes) twice in a row (vr's objective is not monotone: one
#' small change can be a turn): status `"converged"`, `objective_change` in
#' the fit. The cap is \eqn{\lceil 5\cdot 10^7 / (dnk)\rceil}{ceiling(5e7 / (d n
#' k))} outer iterations, at least 10 and at most 1000 (a pass costs
#' \eqn{O(dnk)}{O(d n k)}): large data keep a few passes, the online setting
#' (10 from \eqn{dnk = 5\cdot 10^6}{d n k = 5e6} up). On 8 data sets
#' (`inst/bench/smf_passes.R`, `inst/bench/results/smf_passes.md`) the
#' default reached NMF's error or better where the old one did not, e.g.
#' UScereal 0.0193 in 0.03 CPU s. A given `outer` (or `control$max_iter`)
#' runs that budget whole, as before; sgd and smm (and so `"orpca"`,
#' `"ornmf"`) keep 10 outer iterations' worth of data passes.
#'
#' @section Data on disk:
#' With `Y` a `DelayedArray` (e.g. an `HDF5Matrix`) or
#' a [block_reader()] with `by = "cols"`, the columns are read in blocks of
#' whole chunks of the file (`block_size` columns, [block_reader()]). One
#' pass first checks that every value is finite and finds the largest.
#' Minibatches are then drawn by a block-shuffle, epoch after epoch: the
#' blocks in random order, the columns of each block in random order, a
#' minibatch taking the next `batch_size` of them (in place of the
#' uniform minibatches of a matrix in memory), so that each block is read
#' once per pass; the full passes (vr's snapshots, the objective and
#' stationarity of the trace) read the blocks in order. With `tol > 0` in
#' `control`, a test (a full pass) is due at least `ceiling(n /
#' batch_size)` iterations apart, the iterations whose minibatches draw one
#' pass (besides the 10% rule of [cg_control()]); the spacing depends only
#' on `n` and `batch_size`, so a file and the same matrix in memory stop at
#' the same iteration. Sparse data (a
#' `dgCMatrix`, a sparse file such as an `HDF5Array::TENxMatrix()` (10x
#' Genomics layout; read as sparse blocks, never dense ones), or at most
#' 25% nonzero values, counted in the first pass)
#' reach the solver as sparse columns, whose sub-problems cost
#' \eqn{O(\mathrm{nnz})}{O(nnz)} in place of \eqn{O(d)}{O(d)}; the fit is
#' that of the dense columns up to rounding. The draws depend
#' only on the block structure and the seed: a fit from the file equals
#' the fit from `block_reader(Y, block_size = , by = "cols")` of the same
#' matrix in memory, bit for bit. What stays in memory: the dictionary `W`
#' and its \eqn{k \times k}{k x k} and \eqn{d \times k}{d x k} sums (and
#' vr's snapshot), and one block of columns; `predict()` and `fitted()`
#' read block by block but return \eqn{k \times n}{k x n} codes (and
#' \eqn{d \times n}{d x n} fitted values). The fit's `reader` says how the
#' file was read, `reader$passes` how many times. A warm start (`init =` a
#' fit) starts from its `W`; the block sampler's state is not kept, so
#' there is no exact continuation. `model = "olrr"` needs `Y` in memory.
#'
#' @section Convergence measure:
#' The problem is not convex: there is no duality gap and no bound on
#' \eqn{f(W) - \min f}{f(W) - min f}; a fit certifies stationarity only.
#' The measure is that of Theorem 1, the proximal gradient mapping
#' \eqn{G(W) = (W - \mathrm{prox}_{\eta\psi + \delta_C}(W - \eta \nabla
#' g(W))) / \eta}{G(W) = (W - prox_(eta psi + delta_C)(W - eta grad g(W))) /
#' eta}, zero exactly at stationary points (\eqn{\eta}{eta} the given `step_size`,
#' else \eqn{1/L}{1/L} at the starting dictionary, reported as `gap_step`).
#' Its norm has the units of the data and of `W` (6.6e8 on the raw
#' `NMF::esGolub`), so `gap` (and the trace's `gap` column) reports it
#' relative: \deqn{\mathrm{gap} = \|G(W)\|_F \, \|W\|_F / f_{ref}, \quad
#' f_{ref} = \|Y\|_F^2 / (2n),}{gap = ||G(W)||_F ||W||_F / f_ref,  f_ref =
#' ||Y||_F^2 / (2n),} the rate at which a first-order step could still lower
#' \eqn{f}{f} per relative change of `W`, in units of \eqn{f_{ref}}{f_ref}
#' (the objective of the zero dictionary, every column left unexplained): a
#' gap of 1e-3 means moving `W` by 1% of its norm could lower \eqn{f}{f} by
#' at most about 1e-5 \eqn{f_{ref}}{f_ref} to first order. It does not
#' change when `Y` is scaled (models with a bounded dictionary set) or when
#' scale moves between `W` and the coefficients. The raw norm
#' \eqn{\|G(W)\|_F}{||G(W)||_F} is kept as `mapping_norm`, \eqn{f_{ref}}{f_ref}
#' as `gap_reference`. `objective` is \eqn{f(W)}{f(W)}. Both come from a full
#' pass over the data (trace-only work, excluded from the solver time);
#' `converged` means `gap` fell below `tol` (see `control`), or, for the
#' default length of vr, that the objective changed by at most 1e-4 over
#' each of two outer iterations in a row (`message` says which). The trace's `epoch` counts columns read
#' divided by \eqn{n}{n} (data passes; vr reads each minibatch column once
#' and solves it twice), `samples` the columns read, `n_grad` the
#' sub-problems solved.
#'
#' @param Y Data, one sample per column: a numeric matrix, a `Matrix`
#'   object (kept sparse as a `dgCMatrix`), or a function `Y(idx)` returning
#'   the columns `idx` (a vector of indices in `1..n`) as a numeric matrix,
#'   for data that are not held in memory (give `n`). The solvers call it
#'   once per minibatch and, for full passes (vr's snapshots, the trace's
#'   objective), once per 1024 columns; `fitted()` and `predict()` without
#'   `newY` call it for all the columns at once. On disk: a `DelayedArray`
#'   (e.g. an `HDF5Matrix`; Suggests package DelayedArray) or a
#'   [block_reader()] by columns, read block by block (see "Data on disk").
#' @param k Number of atoms (columns of `W`).
#' @param model `"odl"` (default), `"ossl"`, `"onmf"`, `"ssodl"`,
#'   `"orpca"`, `"omrmd"`, `"olrr"` or `"ornmf"`; see Details.
#' @param method `"vr"`, `"smm"` or `"sgd"`; see Methods. Default (`NULL`)
#'   `"vr"`, `"sgd"` for `"orpca"` and `"ornmf"` (see Outliers).
#' @param lambda Regularization weight of `"odl"`, `"onmf"`, `"ornmf"` and
#'   `"ossl"` (per group there); default \eqn{1/\sqrt d}{1 / sqrt(d)}, for
#'   `"onmf"` \eqn{0.01 d^{-3/2}}{0.01 d^(-3/2)} (see Details), for
#'   `"ornmf"` 0.3 times the robust scale of the entries (see Outliers).
#' @param lambda1,lambda2,lambda3 Weights of `"ssodl"`, `"orpca"`,
#'   `"omrmd"` and `"olrr"` (`lambda3`: `"olrr"` only); default
#'   \eqn{1/\sqrt d}{1 / sqrt(d)} each; for `"orpca"` \eqn{s/\sqrt d}{s /
#'   sqrt(d)} and \eqn{0.3 s}{0.3 s}, \eqn{s}{s} the robust scale of the
#'   entries (see Outliers).
#' @param laplacian For `"ssodl"`: the \eqn{d \times d}{d x d} positive
#'   semidefinite matrix \eqn{L}{L}.
#' @param A,B For `"olrr"`: the matrices of \eqn{\psi}{psi}.
#' @param groups For `"ossl"`: a group label per coefficient (length `k`,
#'   equal labels consecutive).
#' @param M,M_prime For `"ornmf"`: bounds of the coefficients and the
#'   outliers.
#' @param batch_size Minibatch size \eqn{b}{b}; default \eqn{\lceil 0.2
#'   n^{2/3}\rceil}{ceiling(0.2 n^(2/3))}, 5 for sgd on `"orpca"` and
#'   `"ornmf"` (see Outliers).
#' @param inner Inner iterations \eqn{m}{m} of `"vr"`.
#' @param outer Outer iterations \eqn{S}{S} of `"vr"`; sets the default
#'   budget of every method (`control$max_iter`). `NULL` (default): vr runs
#'   until its objective changes by at most 1e-4 (relative) over each of two
#'   outer iterations in a row, within a cap that shrinks as \eqn{dnk}{d n k} grows (see
#'   Default length); sgd and smm 10.
#' @param step_size Constant step of `"vr"` (`NULL`: \eqn{1/L}{1/L} at each
#'   snapshot, see Methods).
#' @param beta,beta_prime Step parameters of `"sgd"` (`NULL`: automatic).
#' @param output `"last"` (option II, default) or `"random"` (option I).
#' @param init Starting dictionary: `"data"` (default: `k` distinct random
#'   columns of `Y`, projected onto `C`; for the simplex of `"onmf"` and
#'   `"ssodl"` their nonnegative parts scaled to sum 1, as the projection of
#'   a column summing to much more than 1 keeps only its largest entries;
#'   for `"orpca"` and `"ornmf"` from a sample of columns, `"orpca"` the
#'   top singular vectors of the low-rank part of [robust_pca()] of it,
#'   `"ornmf"` successive projection on it cleaned of gross entries,
#'   refined by vr on it, see Outliers), `"ones"` (the paper's all-ones
#'   start, projected; its columns are equal and, the problem being
#'   symmetric in the atoms, stay equal), a \eqn{d \times k}{d x k}
#'   matrix (projected onto `C`), or a previous `stochastic_mf()` fit. A fit
#'   of the same data (`identical()` to `Y`), model, parameters and settings
#'   (`method`, `k`, `batch_size`, vr's `inner`, `step_size`, `beta`,
#'   `beta_prime`, `output`, `bsum_tol`, `bsum_max_iter`) is continued
#'   exactly from its `state` (see Value): `control$max_iter` more
#'   iterations give, bit for bit, the fit (`W`, objective, gap, trace,
#'   iteration count) of one run of both runs' iterations, provided the RNG
#'   stream continues (`set.seed()` before the first fit, no random numbers
#'   drawn between; the trace rows line up when `eval_every` divides the
#'   first run's iterations). sgd's steps count on from the fit's iterations
#'   with its \eqn{\beta}{beta} (the automatic one is not re-estimated),
#'   smm keeps adding to its sums, vr resumes within an outer iteration with
#'   its snapshot and step, and option I keeps drawing among all iterates.
#'   The note of the fit says "continued exactly". Any other fit (other
#'   data or settings, or `fit$state` set to `NULL`) is a warm start from
#'   its `W`, projected, with a fresh sampler, step counter and statistics.
#' @param bsum_tol,bsum_max_iter Stopping rule of BSUM (see Details).
#' @param n The number of columns when `Y` is a function.
#' @param image_dims Optional `c(rows, cols)` with `rows * cols = d`: each
#'   atom is an image, drawn by `plot(fit, type = "atoms")`.
#' @param control Solver control from [cg_control()]. Its `tol` defaults
#'   here to `0`: the run uses its whole budget (`max_iter`: `outer`
#'   \eqn{\times}{x} `inner` for vr, the same data passes for smm and sgd;
#'   vr with `outer = NULL` stops earlier where the objective is flat, see
#'   Default length),
#'   and the full-pass evaluations of the trace stay within 10% of the wall
#'   time. With `tol > 0` the run stops once `gap` (relative, see
#'   Convergence measure) is below `tol`, tested by a full pass at most 10% of
#'   the iterations apart.
#' @returns A fit of class `c("stochastic_mf_fit", "cg_fit")` (see
#'   [cg_fit]): `solution$W` the dictionary; `objective` \eqn{f(W)}{f(W)};
#'   `gap` the relative stationarity measure (see Convergence measure), with
#'   `mapping_norm` \eqn{\|G(W)\|_F}{||G(W)||_F} and `gap_reference`
#'   \eqn{f_{ref}}{f_ref};
#'   `trace` with the extra column `samples`; `objective_change` (vr: the
#'   relative change of the objective between the last two snapshots, `NA`
#'   before the second) and `ftol` (the change at which the default run
#'   stops, 0 when `outer` or `control$max_iter` was given or the method is
#'   not vr); also `model`, `k`, the model
#'   parameters used (`lambda`, `lambda1`, `lambda2`, `lambda3`, `groups`,
#'   `laplacian`, `A`, `B`, `M`, `M_prime`, as the model has them;
#'   `"orpca"` and `"ornmf"` also `lambda_scale` and `scale_columns`, see
#'   Outliers), for the models with outliers `outliers` and
#'   `outlier_fraction` (nonzero entries of \eqn{R}{R} at the last
#'   evaluation, and their share of the \eqn{dn}{d n} entries), `batch_size`,
#'   `inner`, `outer`, `output`, `step` (vr's last step `step_size`, sgd's last
#'   \eqn{\gamma_t}{gamma_t}, `NA` for smm), `gap_step`, `image_dims`,
#'   `data` (the training data or function, for [fitted()]), `n_samples`,
#'   `bsum_iterations` and `bsum_capped` (the mean BSUM iterations per column
#'   and the share of columns stopped by `bsum_max_iter`, at the last
#'   evaluation: sub-problems not solved to `bsum_tol`; `print()` says so
#'   when over 10%), `model_spec` (the model as the C code reads it) and
#'   `state`, what an exact continuation by `init = fit` needs:
#'   `state_perm` (the sampler's order, 0-based), `state_columns` (columns
#'   read), for sgd `state_beta` (the \eqn{\beta}{beta} used: given, or
#'   resolved from the first minibatch), for smm `state_A`, `state_B` and
#'   `state_count` (the sums \eqn{A_t}{A_t}, \eqn{B_t}{B_t} and their number
#'   of columns \eqn{N}{N}), for vr stopped within an outer iteration
#'   `state_W0`, `state_G0`, `state_eta` and `state_inner_done` (its
#'   snapshot, full gradient, step and inner iterations done), for
#'   `output = "random"` `state_W` and `state_Wout` (the last iterate and the
#'   one kept), and `key` (the settings it belongs to). With `output =
#'   "random"` `solution$W` is the kept iterate; the continuation goes on
#'   from the last.
#'   `predict(fit, newY)` gives the coefficients (and outliers) of new
#'   columns; `fitted(fit)` the reconstruction \eqn{W H}{W H} of the
#'   training columns.
#' @references Zhao, R., Haskell, W. B. and Feng, J. A unified framework for
#'   stochastic matrix factorization via variance reduction. Mairal, J.,
#'   Bach, F., Ponce, J. and Sapiro, G. (2010) Online learning for matrix
#'   factorization and sparse coding. JMLR 11.
#' @seealso [predict.stochastic_mf_fit()], [plot.stochastic_mf_fit()].
#' @examples
#' set.seed(1)
#' W <- abs(matrix(rnorm(30 * 3), 30))
#' W <- sweep(W, 2, colSums(W), "/")              # atoms on the simplex
#' H <- matrix(rexp(3 * 300), 3)
#' fit <- stochastic_mf(W %*% H, k = 3, model = "onmf", lambda = 1e-3)
#' fit
#' # each planted atom against its best match among the learned ones
#' round(apply(cor(W, fit$solution$W), 1, max), 3)
#' @export
stochastic_mf <- function(Y, k, model = "odl", method = NULL, lambda = NULL,
                          lambda1 = NULL, lambda2 = NULL, lambda3 = NULL, groups = NULL,
                          laplacian = NULL, A = NULL, B = NULL, M = NULL, M_prime = NULL,
                          batch_size = NULL, inner = NULL, outer = NULL,
                          step_size = NULL, beta = NULL, beta_prime = NULL,
                          output = "last", init = "data", bsum_tol = 1e-6,
                          bsum_max_iter = 200L, image_dims = NULL, n = NULL,
                          control = cg_control()) {
  started <- wall_clock()
  call <- match.call()
  # ---- error checking and coercion
  model <- match_choice(model, smf_models, "model")
  robust_default <- model %in% smf_robust_models
  method <- match_choice(method %||% if (robust_default) "sgd" else "vr",
                         c("vr", "smm", "sgd"), "method")
  output <- match_choice(output, c("last", "random"), "output")
  if (output == "random" && method != "vr")
    stop_arg("output", "\"random\" (option I) applies to method = \"vr\" only")
  data <- smf_data(Y, n)
  d <- data$d; n <- data$n
  check_count(k, "k")
  k <- as.integer(k)
  if (as.double(d) * k > .Machine$integer.max) stop_arg("k", "makes W too large")
  if (!is.null(image_dims)) {
    image_dims <- check_dims(image_dims, "image_dims")
    if (prod(as.double(image_dims)) != d)
      stop_arg("image_dims", "must multiply to the number of rows of `Y` (", d, ")")
  }
  # the robust models' defaults are in units of a robust scale of the
  # entries, and their data start is cleaned of gross entries (smf_init)
  if (robust_default) data$robust <- smf_robust_stats(data, k)
  pars <- smf_model_spec(model, d, n, k, list(
    lambda = lambda, lambda1 = lambda1, lambda2 = lambda2, lambda3 = lambda3, groups = groups,
    laplacian = laplacian, A = A, B = B, M = M, M_prime = M_prime), data, image_dims)
  b <- if (!is.null(batch_size)) batch_size else if (robust_default && method == "sgd")
    min(smf_robust_batch, n) else ceiling(0.2 * n^(2 / 3))
  check_count(b, "batch_size", max = n)
  m <- if (is.null(inner)) ceiling(0.5 * n^(1 / 3)) else inner
  check_count(m, "inner")
  # outer = NULL: vr runs until f stops changing (smf_ftol), within a cap
  # that shrinks as the data grow (smf_outer_cap); the other methods 10
  # (a budget given as control$max_iter also keeps the old fixed-length run)
  auto_outer <- is.null(outer)
  ftol <- if (auto_outer && method == "vr" && is.null(control$max_iter)) smf_ftol else 0
  if (auto_outer) outer <- if (method == "vr") smf_outer_cap(d, n, k) else 10L
  check_count(outer, "outer")
  for (a in c("step_size", "beta", "beta_prime")) {
    v <- get(a)
    if (!is.null(v)) check_number(v, a, min = 0, strict_min = TRUE)
  }
  if (!is.null(step_size) && method != "vr") stop_arg("step_size", "is used only by method = \"vr\"")
  if ((!is.null(beta) || !is.null(beta_prime)) && method != "sgd")
    stop_arg(if (is.null(beta)) "beta_prime" else "beta",
             "is used only by method = \"sgd\"")
  check_number(bsum_tol, "bsum_tol", min = 0)
  check_count(bsum_max_iter, "bsum_max_iter")
  budget <- if (method == "vr") outer * m else ceiling(outer * (n + m * b) / b)
  # tol = 0 by default: stopping on a relative stationarity measure means
  # little here, and each test is a full pass over the data
  control <- as_control(control, max_iter = min(budget, .Machine$integer.max), tol = 0)
  # what a run's state belongs to, besides the data and the model (the fit's
  # `data` and `model_spec`): the settings its iterations read (`inner`
  # only vr's: for smm and sgd it only sets the budget)
  key <- list(method = method, k = k, batch_size = as.integer(b),
              inner = if (method == "vr") as.integer(m),
              step_size = step_size, beta = beta, beta_prime = as.double(beta_prime %||% n),
              output = output, bsum_tol = as.double(bsum_tol),
              bsum_max_iter = as.integer(bsum_max_iter))
  start <- smf_resume(init, Y, pars$spec, key, d, n, k)
  W0 <- if (isTRUE(start$exact)) start$W else smf_init(init, data, k, pars)
  init_note <- attr(W0, "note")
  # sgd's first step 1 / L: L from the start's sample when it has one
  # (ornmf's data start), else from the first minibatch (-1: in C)
  start_beta <- if (method == "sgd" && !is.null(attr(W0, "step")))
    key$beta_prime * attr(W0, "step") else -1
  attributes(W0)[c("note", "step")] <- NULL

  # ---- the spec
  spec <- c(list(problem = "smf", method = method, d = d, n = n, k = k, W = W0,
                 inner = as.integer(m), batch_inner = as.integer(b),
                 eta = as.double(step_size %||% -1), gap_eta = as.double(step_size %||% -1),
                 sgd_beta = as.double(beta %||% start_beta), sgd_beta_prime = key$beta_prime,
                 smf_output = if (output == "random") 1L else 2L,
                 bsum_tol = as.double(bsum_tol), bsum_max_iter = as.integer(bsum_max_iter),
                 smf_ftol = as.double(ftol)),
            data$spec, pars$spec)
  spec[names(start$spec)] <- start$spec
  fit <- cg_run(spec, control, "stochastic_mf", call, started, gap_relative = TRUE,
                gap_name = "stationarity")
  fit$certificate <- c("stationarity", paste(
    "||G(W)|| ||W|| / f_ref, G the prox-gradient mapping, f_ref = ||Y||^2 / (2n);",
    "no duality gap: not convex"))
  fit$trace$samples <- fit$trace$epoch * n
  fit$step <- if (method == "smm") NA_real_ else fit$solution$step
  fit$gap_step <- fit$solution$gap_step
  fit$mapping_norm <- fit$solution$mapping_norm
  fit$gap_reference <- fit$solution$gap_reference
  fit$objective_change <- fit$solution$snapshot_change
  fit$ftol <- ftol
  if (fit$converged && ftol > 0 && isTRUE(abs(fit$objective_change) <= ftol) &&
      !isTRUE(fit$gap <= fit$control$tol))
    fit$message <- sprintf(paste("objective changed by %.3g (relative) over the last outer",
                                 "iteration, within ftol = %.0e over two in a row"),
                           fit$objective_change, ftol)
  state <- smf_loop_named(fit$solution[startsWith(names(fit$solution), "state_")])
  fit$state <- c(state[!vapply(state, is.null, NA)], list(key = key))
  # a reader's block sampler is not part of the state: no exact continuation
  if (!is.null(data$reader)) {
    fit$state <- NULL
    # passes over the file (the first checked the values)
    fit$reader <- c(data$reader[c("kind", "dim", "by", "block_size", "n_blocks", "chunkdim")],
                    list(passes = data$passes()))
  }
  fit$bsum_iterations <- fit$solution$bsum_iterations
  fit$bsum_capped <- fit$solution$bsum_capped
  if (!is.null(data$robust)) fit$scale_columns <- data$robust$columns
  if (pars$spec$r_kind != smf_codes$r[["none"]]) {
    fit$outliers <- fit$solution$outliers
    fit$outlier_fraction <- fit$outliers / (as.double(d) * n)
  }
  if (isTRUE(fit$bsum_capped > 0.1))
    fit$notes <- sprintf(paste0("BSUM stopped at bsum_max_iter = %d for %.0f%% of the columns ",
                                "at the last evaluation: raise it for exact sub-problems"),
                         as.integer(bsum_max_iter), 100 * fit$bsum_capped)
  W <- fit$solution$W
  rownames(W) <- rownames(Y)
  colnames(W) <- paste0("atom", seq_len(k))
  fit$solution <- list(W = W)
  fit$notes <- c(sprintf("model %s, k = %d, batch_size %d%s", model, k, as.integer(b),
                         if (method == "vr") sprintf(", %d inner x %s%d outer", as.integer(m),
                                                     if (ftol > 0) "at most " else "",
                                                     as.integer(outer)) else ""),
                 if (!is.null(fit$outliers) && is.finite(fit$outliers))
                   sprintf(paste("outliers: %.0f nonzero entries of R (%.3g%% of the d x n",
                                 "entries) at the last evaluation"),
                           fit$outliers, 100 * fit$outlier_fraction),
                 init_note,
                 fit$notes)
  if (!is.null(start)) {
    if (start$exact) fit <- continue_trace(fit, init, start)
    fit$notes <- c(fit$notes, if (start$exact) continued_note(start$iter) else sprintf(
      "warm start from the W of a fit of %d iterations (other data or settings, or no state)",
      start$iter))
  }
  fit <- c(fit, pars$report, list(model = model, k = k, batch_size = as.integer(b),
                                  inner = as.integer(m), outer = as.integer(outer),
                                  output = output, bsum_tol = bsum_tol,
                                  bsum_max_iter = as.integer(bsum_max_iter),
                                  image_dims = image_dims, data = data$reader %||% Y,
                                  n_samples = n,
                                  model_spec = pars$spec))
  class(fit) <- c("stochastic_mf_fit", "cg_fit")
  finish_fit(fit, started)
}

smf_models <- c("odl", "ossl", "onmf", "ssodl", "orpca", "omrmd", "olrr", "ornmf")
# vr's default stop (outer = NULL): the relative change of f between
# consecutive snapshots (one outer iteration, 1 + m b / n data passes) at
# most smf_ftol twice in a row, within smf_outer_cap() outer iterations: about
# smf_outer_work / (d n k) (each pass costs O(d n k)), at least 10 (the
# online setting: large data keep a few passes), at most 1000
# (inst/bench/results/smf_passes.md)
smf_ftol <- 1e-4
smf_outer_work <- 5e7
smf_outer_cap <- function(d, n, k)
  as.integer(min(1000, max(10, ceiling(smf_outer_work / (as.double(d) * n * k)))))
# the robust models whose defaults are scaled to the data (see ?stochastic_mf)
smf_robust_models <- c("orpca", "ornmf")
# their default sgd minibatch, and the outlier threshold lambda2 (orpca) or
# lambda (ornmf) in units of the robust scale of the entries
smf_robust_batch <- 5L
smf_robust_threshold <- 0.3
# ornmf's data start: vr on the scale's sample of columns, as many passes as
# make about this many columns (see smf_init)
smf_robust_refine <- 3000
# orpca's data start: ADMM iterations of robust_pca() on the scale's sample
# (EV of the start the same to 3 digits at 50 and at convergence, 300-600)
smf_robust_pcp_iter <- 50L

# Robust scale of the entries of the data, and robust row centres and
# scales, from evenly spaced columns (no random numbers: an exact
# continuation must draw the same ones), about 2e4 entries but 50 columns
# at least (at most n): scale = 1.4826 median |y_ij - median(y)| (the normal's
# standard deviation when the entries are normal), else (half or more of the
# entries equal, e.g. sparse data) the mean absolute deviation times
# sqrt(pi / 2), else 1.
smf_robust_stats <- function(data, k) {
  d <- data$d; n <- data$n
  # 50 columns at least, but at most 1e6 entries for them (2k columns at
  # least: the starts pick k of them)
  m <- max(ceiling(2e4 / d), min(50, ceiling(1e6 / d)), 2 * k)
  cols <- unique(round(seq(1, n, length.out = min(n, m))))
  X <- data$fetch(cols)
  x <- c(X)
  dev <- abs(x - stats::median(x))
  s <- 1.4826 * stats::median(dev)
  if (!(s > 0)) s <- sqrt(pi / 2) * mean(dev)
  if (!(s > 0)) s <- 1
  centre <- row_medians(X)
  row_scale <- 1.4826 * row_medians(abs(X - centre))
  row_scale[!(row_scale > 0)] <- s
  list(scale = s, centre = centre, row_scale = row_scale, columns = length(cols),
       sample = X)
}

# the median of each row of X, by one sort (apply() calls median() per row)
row_medians <- function(X) {
  m <- ncol(X)
  S <- matrix(X[order(row(X), X)], nrow(X), m, byrow = TRUE)
  if (m %% 2L) S[, (m + 1L) %/% 2L] else (S[, m %/% 2L] + S[, m %/% 2L + 1L]) / 2
}

# the entries of X (columns of the data) beyond 3 robust row scales set to
# the row median; attribute "cleaned": how many
smf_clean_columns <- function(X, rb) {
  bad <- abs(X - rb$centre) > 3 * rb$row_scale
  X[bad] <- rep(rb$centre, ncol(X))[bad]
  attr(X, "cleaned") <- sum(bad)
  X
}

# codes of smf.h
smf_codes <- list(
  dict = c(free = 0L, l2ball = 1L, simplex = 2L, nonneg_l2ball = 3L),
  h = c(l1 = 0L, ridge = 1L, ridge_nonneg = 2L, group = 3L, ball = 4L, box = 5L),
  r = c(none = 0L, l1 = 1L, l1_box = 2L)
)

# dense columns, the CSC arrays of a dgCMatrix (never densified), or a
# function Y(idx) returning the columns idx (with n given)
smf_data <- function(Y, n = NULL, arg = "Y") {
  if (is_reader_input(Y)) return(reader_smf_data(Y, n, arg))   # R/readers.R
  if (is.function(Y)) {
    if (is.null(n)) stop_arg("n", "must be given when `", arg, "` is a function")
    check_count(n, "n")
    first <- tryCatch(Y(1L), error = function(e)
      stop_arg(arg, "failed when called as Y(1): ", conditionMessage(e)))
    if (!(is.numeric(first) || is.logical(first)) || !is.matrix(first) || ncol(first) != 1L ||
        nrow(first) < 1L)
      stop_arg(arg, "must return a numeric matrix with one column per index (Y(1) did not)")
    if (!all_finite(first)) stop_arg(arg, "returned NA, NaN or Inf for Y(1)")
    fetch <- function(idx) {
      X <- Y(idx)
      storage.mode(X) <- "double"
      X
    }
    return(list(d = nrow(first), n = as.integer(n), fun = Y, fetch = fetch, max_abs = NA_real_,
                spec = list(Y_call = as.call(list(Y, 1L)), env = baseenv())))
  }
  if (!is.null(n)) stop_arg("n", "is only for `", arg, "` given as a function")
  Y <- check_design(Y, arg)
  d <- nrow(Y); n <- ncol(Y)
  if (d < 1L || n < 1L) stop_arg(arg, "must have at least one row and one column")
  if (inherits(Y, "dgCMatrix")) {
    max_abs <- if (length(Y@x)) max(abs(Y@x)) else 0
    spec <- list(Yp = Y@p, Yi = Y@i, Yx = Y@x)
  } else {
    max_abs <- max(abs(range(Y)))
    spec <- list(Y = Y)
  }
  check_scale(max_abs^2 * d, arg)
  list(d = d, n = n, spec = spec, Y = Y, max_abs = max_abs,
       fetch = function(idx) as.matrix(Y[, idx, drop = FALSE]))
}

# the parameters each model takes (the others must be NULL)
smf_params <- list(
  odl = "lambda", ossl = c("lambda", "groups"), onmf = "lambda",
  ssodl = c("lambda1", "lambda2", "laplacian"), orpca = c("lambda1", "lambda2"),
  omrmd = c("lambda1", "lambda2"), olrr = c("lambda1", "lambda2", "lambda3", "A", "B"),
  ornmf = c("lambda", "M", "M_prime"))

# The sets and regularizers of a model (paper 002, Section 2) as smf.h codes.
# p: the named list of the model arguments given (NULL: default); data: from
# smf_data(); image_dims for ssodl's default Laplacian.
smf_model_spec <- function(model, d, n, k, p, data = NULL, image_dims = NULL) {
  for (a in names(p)) if (!is.null(p[[a]]) && !a %in% smf_params[[model]])
    stop_arg(a, "is not a parameter of model = \"", model, "\"")
  default <- 1 / sqrt(d)
  # the robust models: in units of the data's robust scale (smf_robust_stats)
  scale <- if (model %in% smf_robust_models) data$robust$scale %||% 1 else 1
  weight <- function(arg, default = 1 / sqrt(d)) {
    x <- p[[arg]] %||% (scale * default)
    check_number(x, arg, min = 0)
    as.double(x)
  }
  spec <- list(dict_set = smf_codes$dict[["free"]], psi_ridge = 0, psi_maxrow = 0,
               h_kind = 0L, h_lambda = 0, h_bound = Inf, r_kind = smf_codes$r[["none"]],
               r_lambda = 0, r_bound = Inf)
  report <- list()
  set <- function(...) {
    v <- list(...)
    spec[names(v)] <<- v
  }
  switch(model,
    odl = {
      lam <- weight("lambda")
      set(dict_set = smf_codes$dict[["l2ball"]], h_kind = smf_codes$h[["l1"]], h_lambda = lam)
      report$lambda <- lam
    },
    onmf = {
      # 1/sqrt(d) is the paper's weight for atoms of unit l2 norm; an atom
      # on the simplex spread over d entries has l2 norm ~ 1/sqrt(d), its
      # coefficients are ~sqrt(d) times larger for the same W h, and the same
      # ridge is then ~d times stronger: d^(-3/2) keeps the paper's balance.
      # That ridge still biased the fit where atoms are alike (W'W nearly
      # singular); 1% of it only keeps h unique (see ?stochastic_mf)
      lam <- p$lambda %||% (0.01 * d^(-3 / 2))
      check_number(lam, "lambda", min = 0)
      lam <- as.double(lam)
      set(dict_set = smf_codes$dict[["simplex"]], h_kind = smf_codes$h[["ridge_nonneg"]],
          h_lambda = lam)
      report$lambda <- lam
    },
    ssodl = {
      l1 <- weight("lambda1"); l2 <- weight("lambda2")
      L <- p$laplacian %||% smf_laplacian(d, image_dims)
      L <- check_psd_matrix(L, d, "laplacian")
      set(dict_set = smf_codes$dict[["simplex"]], h_kind = smf_codes$h[["ridge_nonneg"]],
          h_lambda = l2, Q = l1 * L)
      report[c("lambda1", "lambda2", "laplacian")] <- list(l1, l2, L)
    },
    orpca = {
      l1 <- weight("lambda1"); l2 <- weight("lambda2", smf_robust_threshold)
      set(psi_ridge = l1 / n, h_kind = smf_codes$h[["ridge"]], h_lambda = l1,
          r_kind = smf_codes$r[["l1"]], r_lambda = l2)
      report[c("lambda1", "lambda2", "lambda_scale")] <- list(l1, l2, scale)
    },
    omrmd = {
      l1 <- weight("lambda1"); l2 <- weight("lambda2")
      set(psi_maxrow = l1 / n, h_kind = smf_codes$h[["ball"]], r_kind = smf_codes$r[["l1"]],
          r_lambda = l2)
      report[c("lambda1", "lambda2")] <- list(l1, l2)
    },
    olrr = {
      l1 <- weight("lambda1"); l2 <- weight("lambda2"); l3 <- weight("lambda3")
      A <- p$A %||% diag(d)
      if (!is.numeric(A) || !is.matrix(A) || nrow(A) != d || !all_finite(A))
        stop_arg("A", "must be a finite numeric matrix with ", d, " rows")
      if (ncol(A) != d) stop_arg("A", "must be ", d, " x ", d, " (A multiplies the data)")
      B <- p$B %||% diag(d)
      if (!is.numeric(B) || !is.matrix(B) || ncol(B) != d || !all_finite(B))
        stop_arg("B", "must be a finite numeric matrix with ", d, " columns")
      if (is.null(data$Y)) stop_arg("Y", "must be a matrix for model = \"olrr\" (psi uses it)")
      AY <- as.matrix(A %*% data$Y)
      Q <- (tcrossprod(AY) + l3 * crossprod(B)) / n^2
      set(h_kind = smf_codes$h[["ridge"]], h_lambda = l1, r_kind = smf_codes$r[["l1"]],
          r_lambda = l2, Q = (Q + t(Q)) / 2)
      report[c("lambda1", "lambda2", "lambda3", "A", "B")] <- list(l1, l2, l3, A, B)
    },
    ornmf = {
      lam <- weight("lambda", smf_robust_threshold)
      M <- p$M %||% Inf
      check_number(M, "M", min = 0, strict_min = TRUE, finite = FALSE)
      Mp <- p$M_prime %||% data$max_abs
      if (is.na(Mp)) stop_arg("M_prime", "must be given when `Y` is a function")
      check_number(Mp, "M_prime", min = 0, strict_min = TRUE, finite = FALSE)
      set(dict_set = smf_codes$dict[["nonneg_l2ball"]], h_kind = smf_codes$h[["box"]],
          h_bound = as.double(M), r_kind = smf_codes$r[["l1_box"]], r_lambda = lam,
          r_bound = as.double(Mp))
      report[c("lambda", "M", "M_prime", "lambda_scale")] <- list(lam, as.double(M),
                                                                  as.double(Mp), scale)
    },
    ossl = {
      groups <- p$groups %||% seq_len(k)
      if (length(groups) != k || anyNA(groups))
        stop_arg("groups", "must give a group label to each of the k = ", k, " coefficients")
      runs <- rle(as.character(groups))
      if (anyDuplicated(runs$values))
        stop_arg("groups", "must keep the coefficients of a group consecutive")
      lam <- p$lambda %||% default
      if (!is.numeric(lam) || !(length(lam) %in% c(1L, length(runs$values))) ||
          anyNA(lam) || any(!is.finite(lam)) || any(lam < 0))
        stop_arg("lambda", "must be one nonnegative number or one per group (",
                 length(runs$values), ")")
      lam <- rep_len(as.double(lam), length(runs$values))
      set(h_kind = smf_codes$h[["group"]], group_end = as.integer(cumsum(runs$lengths)),
          group_lambda = lam)
      report[c("lambda", "groups")] <- list(lam, groups)
    })
  spec$h_kind <- as.integer(spec$h_kind)
  list(spec = spec, report = report)
}

# Laplacian of the 4-neighbour grid of image_dims, or of the chain 1..d
smf_laplacian <- function(d, image_dims = NULL) {
  dims <- image_dims %||% c(d, 1L)
  idx <- matrix(seq_len(d), dims[1], dims[2])
  edges <- rbind(cbind(c(idx[-dims[1], ]), c(idx[-1, ])),
                 cbind(c(idx[, -dims[2]]), c(idx[, -1])))
  L <- matrix(0, d, d)
  L[edges] <- -1
  L[edges[, 2:1, drop = FALSE]] <- -1
  diag(L) <- -rowSums(L)
  L
}

# a symmetric positive semidefinite d x d matrix, as a dense double matrix
check_psd_matrix <- function(L, d, arg) {
  if (inherits(L, "Matrix")) L <- as.matrix(L)
  if (!is.numeric(L) || !is.matrix(L) || any(dim(L) != c(d, d)))
    stop_arg(arg, "must be a ", d, " x ", d, " numeric matrix")
  if (!all_finite(L)) stop_arg(arg, "contains NA, NaN or Inf")
  if (!is_symmetric_matrix(L, 1e-10)) stop_arg(arg, "must be symmetric")
  ev <- eigen(L, symmetric = TRUE, only.values = TRUE)$values
  if (min(ev) < -1e-10 * max(1, abs(ev))) stop_arg(arg, "must be positive semidefinite")
  storage.mode(L) <- "double"
  L
}

# A previous fit as `init`: NULL when `init` is no fit. A fit of the same
# data `Y`, model (`model_spec`) and settings (`key`) that kept its state is
# continued exactly (`exact`): its last iterate (unprojected: a projection
# may move the bits of a point already in C), its state for the spec (the
# sampler, the columns read, sgd's beta, smm's sums, vr's snapshot within an
# outer iteration, option I's kept iterate; see cg_smf_solution()), the
# stationarity step of its trace and its iteration count, from which the
# run counts on. Any other fit is a warm start from its W (smf_init()).
smf_resume <- function(init, Y, model_spec, key, d, n, k) {
  if (!inherits(init, "stochastic_mf_fit")) return(NULL)
  iter <- as.integer(init$iterations)
  st <- init$state
  if (is.null(st) || !identical(st$key, key) || !identical(init$model_spec, model_spec) ||
      !identical(init$data, Y))
    return(list(exact = FALSE, iter = iter))
  # [[ ]]: `$` would match state_W0 when there is no state_W
  W <- unname(st[["state_W"]] %||% init$solution$W)
  dims <- list(W = c(d, k), state_W0 = c(d, k), state_G0 = c(d, k), state_B = c(d, k),
               state_Wout = c(d, k), state_A = c(k, k))
  x <- c(list(W = W), st)
  shaped <- vapply(names(dims), function(a) is.null(x[[a]]) ||
                     (is.double(x[[a]]) && identical(dim(x[[a]]), as.integer(dims[[a]]))), NA)
  # the parts restored together (smf_restore in src/prob_smf.c)
  together <- list(c("state_inner_done", "state_eta", "state_W0", "state_G0"),
                   c("state_A", "state_B", "state_count"), c("state_W", "state_Wout"))
  whole <- vapply(together, function(g) length(unique(vapply(st[g], is.null, NA))) == 1L, NA)
  scalar <- vapply(c("state_columns", "state_beta", "state_eta", "state_inner_done",
                     "state_count"), function(a) is.null(st[[a]]) ||
                     (is.double(st[[a]]) && length(st[[a]]) == 1L && isTRUE(st[[a]] >= 0)), NA)
  perm <- st[["state_perm"]]
  if (!all(shaped, whole, scalar) || isTRUE(st[["state_inner_done"]] >= key$inner) ||
      !is.integer(perm) || length(perm) != n ||
      !identical(sort(perm), seq_len(n) - 1L) || length(iter) != 1L || is.na(iter) ||
      !is.numeric(init$gap_step) || length(init$gap_step) != 1L)
    stop_arg("init", "has an invalid `state` (altered by hand?); set it to NULL for a ",
             "warm start from its W")
  list(exact = TRUE, iter = iter, W = W,
       spec = c(st[setdiff(names(st), c("key", "state_W", smf_loop_parts))],
                list(state_loop = c(0, st$state_inner_done %||% 0, st$state_eta %||% 0, 0,
                                    st$state_beta %||% 0, 0),
                     iter_offset = iter, gap_eta = as.double(init$gap_step))))
}

# The loop's scalars (state_loop = c(stage, pos, eta, len, c, lip), see
# cg_loop_state in src/stochcg.h) in a fit's state by name, where they say
# something: sgd's beta (c, once resolved), vr's step and position within
# an outer iteration; after state_columns. smf_resume() packs them back.
smf_loop_parts <- c("state_beta", "state_eta", "state_inner_done")
smf_loop_named <- function(state) {
  loop <- state$state_loop
  inside <- isTRUE(loop[2] > 0)
  named <- list(state_beta = if (isTRUE(loop[5] > 0)) loop[5],
                state_eta = if (inside) loop[3], state_inner_done = if (inside) loop[2])
  state$state_loop <- NULL
  at <- seq_len(match("state_columns", names(state)))
  c(state[at], named, state[-at])
}

# the starting dictionary, projected onto C (the C kernel, so that it is
# exactly the set the solver keeps)
smf_init <- function(init, data, k, pars) {
  d <- data$d; n <- data$n
  if (is.character(init)) {
    init <- match_choice(init, c("data", "ones"), "init")
    rb <- data$robust
    W <- if (init == "ones") matrix(1, d, k) else if (!is.null(rb) &&
                                                     pars$spec$dict_set == smf_codes$dict[["free"]]) {
      # orpca: the top k left singular vectors of the low-rank part of batch
      # principal component pursuit (robust_pca()) of the scale's sample of
      # columns (in memory, no data read; smf_robust_pcp_iter ADMM
      # iterations), with the balanced norms below. k random columns miss an atom their codes do not
      # use; the top k of the sample cleaned at 3 robust row scales kept
      # outliers of 5x (most of them are within 3 row scales, which they
      # inflate): EV 0.56-0.75 at d = 30, 20% of 5x, and sgd lost an atom
      # for some solver seeds (0.80-0.87); PCP's: 0.997-0.999 (0.88 vs 0.68
      # on tissue_gene_expression, against PCP of all its columns). Where
      # that part has rank r < k (e.g. sparse data, all of it in PCP's
      # sparse part), the other k - r come from the sample cleaned at 3
      # robust row scales, PCP's span projected out
      # (PCP on the sample over its robust scale, then scaled back: its
      # ADMM at a fixed iteration count is not scale-equivariant, EV 0.68 at
      # 1000 times the data above)
      S <- rb$sample
      pc <- robust_pca(S / rb$scale,
                       control = cg_control(max_iter = smf_robust_pcp_iter, progress = FALSE))
      sv <- svd(as.matrix(pc$solution$X), nu = min(k, d, ncol(S)), nv = 0)
      sv$d <- sv$d * rb$scale
      r <- sum(sv$d[seq_len(ncol(sv$u))] > 1e-8 * max(sv$d, 0))
      U <- matrix(0, d, k)
      sig <- numeric(k)
      U[, seq_len(r)] <- sv$u[, seq_len(r)]
      sig[seq_len(r)] <- sv$d[seq_len(r)]
      cleaned <- 0
      if (r < k) {
        X <- smf_clean_columns(S, rb)
        cleaned <- attr(X, "cleaned")
        Q <- sv$u[, seq_len(r), drop = FALSE]
        X <- X - Q %*% crossprod(Q, X)
        sx <- svd(X, nu = min(k - r, d, ncol(X)), nv = 0)
        j <- seq_len(ncol(sx$u))
        U[, r + j] <- sx$u
        sig[r + j] <- sx$d[j]
      }
      # atom norms: sqrt of (singular value / sqrt(columns)), the square
      # root of the data's units. The problem is the same for c Y up to
      # W -> sqrt(c) W, h -> sqrt(c) h (lambda1 and lambda2 scale with c), so
      # this start is too; one in the data's units (singular value /
      # sqrt(columns), as before) was not, and orpca lost EV at 1000 times
      # the data (tissue_gene_expression: 0.34-0.52 at 3 passes by seed,
      # 0.97 at 1). The balanced norms of the ridge problem (singular value
      # of all n columns less lambda1) lost an atom at n = 10000 for a seed
      sig <- sig / sqrt(ncol(S))
      U <- sweep(U, 2L, sqrt(sig), "*")
      attr(U, "note") <- sprintf(paste(
        "data start: top %d singular vectors of the low-rank part of robust_pca() (%d ADMM",
        "iterations) of %d evenly spaced columns%s"), r, as.integer(pc$iterations), ncol(S),
        if (r < k) sprintf(paste(", %d more from those columns with %d entries beyond 3",
                                 "robust row scales set to the row median"), k - r, cleaned)
        else "")
      U
    } else if (!is.null(rb) && k <= ncol(rb$sample)) {
      # ornmf: the successive projection algorithm (Araujo et al. 2001;
      # Gillis and Vavasis 2014) on the cleaned sample: k columns, each the
      # longest after projecting out those picked, nonnegative parts; k
      # random columns missed an atom their codes do not use (EV 0.77-0.99
      # by seed at d = 30, n = 1000, 20% outliers; with SPA 0.99)
      X <- smf_clean_columns(rb$sample, rb)
      Rm <- X
      pick <- integer(k)
      for (j in seq_len(k)) {
        len <- colSums(Rm^2)
        len[pick[seq_len(j - 1L)]] <- -1
        pick[j] <- which.max(len)
        u <- Rm[, pick[j]]
        if (sum(u^2) > 0) Rm <- Rm - tcrossprod(u / sum(u^2), crossprod(Rm, u))
      }
      W <- pmax(X[, pick, drop = FALSE], 0)
      # then the model itself, run on that sample (raw: its r takes the
      # outliers) from those columns, smf_robust_refine columns' worth of vr
      # (no data read: the sample is in memory). On d = 200, n = 1000 with
      # 20% of 50x outliers, 40 gross entries a column, the cleaning leaves
      # some and clips the codes' own large entries: the SPA start had EV
      # 0.25-0.33, sgd had to find atoms and average its noise with one step
      # (EV 0.95-0.99 at 3 passes by seed); refined 0.96-0.99
      ep <- max(1L, round(smf_robust_refine / ncol(rb$sample)))
      rp <- pars$report
      fi <- stochastic_mf(rb$sample, k, model = "ornmf", method = "vr", lambda = rp$lambda,
                          M = rp$M, M_prime = rp$M_prime, init = W, outer = ep,
                          control = cg_control(progress = FALSE))
      W <- fi$solution$W
      # vr's last step, 1 / L at W over the sample: sgd's first step (the
      # first minibatch's L, from b = 5 columns, made the step too long by
      # chance, and the good start was lost: EV 0.94-0.95 at 3 passes for
      # some seeds on d = 200, n = 400, 20% of 50x outliers, 0.98-0.99 with
      # this L)
      attr(W, "step") <- fi$step
      attr(W, "note") <- sprintf(paste(
        "data start: %d of %d evenly spaced columns by successive projection, %d of",
        "their %.0f entries beyond 3 robust row scales set to the row median, then %d",
        "vr passes of the model over those columns"), k, ncol(X),
        attr(X, "cleaned"), as.double(d) * ncol(X), as.integer(ep))
      W
    } else {
      cols <- if (k <= n) sample.int(n, k) else sample.int(n, k, replace = TRUE)
      X <- data$fetch(cols)
      # robust models: a gross outlier copied into an atom is unlearned
      # only at the rate lambda2 per step (its residual is an outlier too)
      if (!is.null(rb)) {
        X <- smf_clean_columns(X, rb)
        attr(X, "note") <- sprintf(paste(
          "data start: %d of the %d entries of its %d columns beyond 3 robust row scales",
          "set to the row median"), attr(X, "cleaned"), d * k, k)
      }
      X
    }
  } else {
    if (inherits(init, "stochastic_mf_fit")) init <- init$solution$W
    if (!is.numeric(init) || !is.matrix(init) || !identical(dim(init), c(d, k)))
      stop_arg("init", "must be \"data\", \"ones\", a ", d, " x ", k,
               " numeric matrix or a stochastic_mf() fit with such a W")
    if (!all_finite(init)) stop_arg("init", "contains NA, NaN or Inf")
    W <- init
  }
  note <- attr(W, "note")
  step <- attr(W, "step")
  storage.mode(W) <- "double"
  if (!all_finite(W)) stop_arg("init", "contains NA, NaN or Inf")
  if (identical(init, "data") && pars$spec$dict_set == smf_codes$dict[["simplex"]]) {
    # the Euclidean projection of a data column onto the simplex keeps only
    # its few largest entries when the column sums to much more than 1
    # (expression data: one gene of 5000); its nonnegative part rescaled
    # to sum 1 keeps the column's shape
    W <- pmax(W, 0)
    s <- colSums(W)
    W[, s > 0] <- sweep(W[, s > 0, drop = FALSE], 2, s[s > 0], "/")
  }
  W <- smf_prox(pars$spec, W, "dict", 0, d, k)
  W <- matrix(W, d, k)
  if (all(W == 0)) stop_arg("init", "is zero after projection onto the dictionary set")
  attr(W, "note") <- note
  attr(W, "step") <- step
  W
}

# one proximal operator of a model (sets_smf.c): which "h", "r" or "dict"
# (tol: of the iterative prox of a quadratic psi)
smf_prox <- function(model_spec, x, which, step, d, k, tol = 1e-12) {
  .Call(C_cg_smf_kernel, "prox", c(model_spec, list(
    d = as.integer(d), k = as.integer(k), which = which, step = as.double(step),
    x = as.double(x), bsum_tol = as.double(tol), bsum_max_iter = 1L)))
}

smf_plot_trace <- function(x, against, ...) {
  against <- match_choice(against, c("epoch", "time", "iter"), "against")
  tr <- x$trace
  old <- par(mfrow = c(1, 2))
  on.exit(par(old))
  xlab <- c(epoch = "data passes", time = "time (s)", iter = "iteration")[[against]]
  main <- sprintf("%s (%s)", x$model, x$method)
  for (w in c("objective", "gap")) {
    y <- tr[[w]]
    ok <- is.finite(y) & is.finite(tr[[against]])
    log_y <- all(y[ok] > 0)
    ok <- ok & (!log_y | y > 0)
    args <- utils_modify(list(type = "l", xlab = xlab, main = main, log = if (log_y) "y" else "",
                              ylab = if (w == "gap") "stationarity ||G|| ||W|| / f_ref" else
                                "objective f(W)"), list(...))
    do.call(plot, c(list(tr[[against]][ok], y[ok]), args))
  }
  invisible(x)
}

# the model spec of a fit, for predict()
smf_fit_spec <- function(object) {
  if (!is.list(object$model_spec)) stop_arg("object", "has no model (a fit altered by hand?)")
  object$model_spec
}

#' Coefficients, outliers and reconstructions from a stochastic_mf fit
#'
#' `predict()` solves the sub-problem (2) of each column of `newY` at the
#' learned dictionary by the same BSUM solver as the fit (and its
#' `bsum_tol`, `bsum_max_iter`). `fitted()` is the reconstruction
#' \eqn{W H}{W H} of the training columns, plus the outliers \eqn{R}{R}
#' with `outliers = TRUE` (robust models).
#'
#' @param object A `stochastic_mf_fit`.
#' @param newY New columns: a matrix or `Matrix` with `nrow(W)` rows (a
#'   vector is one column). Default: the training data.
#' @param outliers For `fitted()`: add the outliers of the robust models.
#' @param ... Unused.
#' @returns `predict()`: a list with `H` (\eqn{k \times n'}{k x n'}
#'   coefficients), `R` (\eqn{d \times n'}{d x n'} outliers, `NULL` for the
#'   non-robust models) and `loss` (each column's value of the sub-problem).
#'   `fitted()`: a \eqn{d \times n}{d x n} matrix.
#' @examples
#' set.seed(3)
#' W <- qr.Q(qr(matrix(rnorm(20 * 2), 20)))
#' Y <- W %*% matrix(rnorm(2 * 200), 2)
#' spikes <- cbind(sample(20, 100, TRUE), sample(200, 100, TRUE))
#' Y[spikes] <- 10                                   # outliers
#' fit <- stochastic_mf(Y, k = 2, model = "orpca", outer = 40)
#' p <- predict(fit, Y[, 1:20])
#' dim(p$H)
#' # outlier entries found in the first 20 columns, and those planted there
#' c(found = sum(p$R != 0), planted = sum(Y[, 1:20] == 10))
#' @method predict stochastic_mf_fit
#' @export
predict.stochastic_mf_fit <- function(object, newY = NULL, ...) {
  W <- object$solution$W
  if (is.null(newY)) newY <- object$data
  if (is.function(newY)) newY <- newY(seq_len(object$n_samples))
  if (is_reader_input(newY)) {        # block by block (R/readers.R)
    reader <- block_reader(newY, by = "cols")
    parts <- lapply(seq_len(reader$n_blocks), function(b)
      predict.stochastic_mf_fit(object, reader_block(reader, b)))
    out <- list(H = do.call(cbind, lapply(parts, `[[`, "H")),
                R = if (!is.null(parts[[1L]]$R)) do.call(cbind, lapply(parts, `[[`, "R")),
                loss = unlist(lapply(parts, `[[`, "loss")))
    colnames(out$H) <- reader$dimnames[[2L]]
    return(out)
  }
  if (is.null(dim(newY)) && is.numeric(newY)) newY <- matrix(newY, ncol = 1L)
  data <- smf_data(newY, arg = "newY")
  if (data$d != nrow(W))
    stop_arg("newY", "must have ", nrow(W), " rows (one per row of W), not ", data$d)
  args <- c(list(d = data$d, n = data$n, k = ncol(W), W = unname(W) + 0,
                 bsum_tol = as.double(object$bsum_tol),
                 bsum_max_iter = as.integer(object$bsum_max_iter)),
            data$spec, smf_fit_spec(object))
  res <- .Call(C_cg_smf_kernel, "coefficients", args)
  rownames(res$H) <- colnames(W)
  colnames(res$H) <- colnames(newY)
  if (!is.null(res$R)) dimnames(res$R) <- dimnames(newY)
  res[c("H", "R", "loss")]
}

#' @rdname predict.stochastic_mf_fit
#' @method fitted stochastic_mf_fit
#' @export
fitted.stochastic_mf_fit <- function(object, outliers = FALSE, ...) {
  check_flag(outliers, "outliers")
  p <- predict.stochastic_mf_fit(object)
  out <- object$solution$W %*% p$H
  if (outliers && !is.null(p$R)) out <- out + p$R
  if (!is.function(object$data)) dimnames(out) <- dimnames(object$data)
  out
}

#' @rdname predict.stochastic_mf_fit
#' @method residuals stochastic_mf_fit
#' @export
residuals.stochastic_mf_fit <- function(object, outliers = FALSE, ...) {
  if (is.function(object$data) || inherits(object$data, "cg_reader"))
    stop("this stochastic_mf fit was made from a data function or a reader: residuals() needs the ",
         "columns in memory", call. = FALSE)
  as.matrix(object$data) - fitted.stochastic_mf_fit(object, outliers = outliers)
}

#' Plot a stochastic_mf fit
#'
#' `type = "trace"` draws the objective \eqn{f(W)}{f(W)} and the proximal
#' gradient mapping norm (`gap`, log scale) against data passes (`"epoch"`,
#' default), seconds (`"time"`) or iterations (`"iter"`); `type = "atoms"`
#' draws each atom (column of `W`) as an image of `image_dims` (given to
#' [stochastic_mf()] or here), on a grid, each on its own color scale
#' centered at zero.
#'
#' @param x A `stochastic_mf_fit`.
#' @param type `"atoms"` (default when the fit has `image_dims`) or
#'   `"trace"`.
#' @param image_dims `c(rows, cols)` of an atom's image.
#' @param against For `"trace"`: `"epoch"`, `"time"` or `"iter"`.
#' @param ... Passed to [graphics::plot()] (for `"trace"`) or
#'   [graphics::image()].
#' @returns `x`, invisibly.
#' @examples
#' set.seed(4)
#' bars <- sapply(1:4, function(i) { a <- matrix(0, 6, 6); a[, i + 1] <- 1; c(a) })
#' Y <- bars %*% matrix(rexp(4 * 300), 4)
#' fit <- stochastic_mf(Y, k = 4, model = "onmf", lambda = 1e-3, outer = 40,
#'                      image_dims = c(6, 6))
#' plot(fit)
#' plot(fit, type = "trace")
#' @method plot stochastic_mf_fit
#' @export
plot.stochastic_mf_fit <- function(x, type = NULL, image_dims = x$image_dims,
                                   against = "epoch", ...) {
  type <- match_choice(type %||% if (is.null(image_dims)) "trace" else "atoms",
                       c("trace", "atoms"), "type")
  if (type == "trace") return(smf_plot_trace(x, against, ...))
  W <- x$solution$W
  if (is.null(image_dims)) stop_arg("image_dims", "is needed to draw atoms as images")
  image_dims <- check_dims(image_dims, "image_dims")
  if (prod(as.double(image_dims)) != nrow(W))
    stop_arg("image_dims", "must multiply to nrow(W) = ", nrow(W))
  k <- ncol(W)
  cols <- ceiling(sqrt(k)); rows <- ceiling(k / cols)
  old <- par(mfrow = c(rows, cols), mar = c(0.2, 0.2, 1.2, 0.2))
  on.exit(par(old))
  pal <- hcl.colors(64, "Blue-Red 3")
  for (j in seq_len(k)) {
    A <- matrix(W[, j], image_dims[1], image_dims[2])
    lim <- max(abs(A), .Machine$double.eps)
    image(t(A[nrow(A):1, , drop = FALSE]), zlim = c(-lim, lim), col = pal, axes = FALSE,
          main = colnames(W)[j] %||% paste("atom", j), cex.main = 0.8, ...)
  }
  invisible(x)
}
