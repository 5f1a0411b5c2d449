#' Matrix completion over the nuclear-norm ball by (stochastic) Frank-Wolfe
#'
#' Fits a low-rank matrix \eqn{\theta} (m x n) to observed entries
#' \eqn{(i_k, j_k, y_k)}, \eqn{k = 1..N}, by
#' \deqn{\min_\theta \frac{1}{N}\sum_k \left[A(\theta_{i_k j_k}) - y_k
#' \theta_{i_k j_k}\right] \quad\text{s.t.}\quad \|\theta\|_* \le r,}{min
#' 1/N sum_k [A(theta_ik,jk) - y_k theta_ik,jk]  s.t.  ||theta||_* <= r,}
#' the exponential-family likelihood of Lafond, Wai and Moulines (2015,
#' section 3.2): \eqn{A(x) = x^2/2} for `"gaussian"` (the objective is then
#' reported as \eqn{\frac{1}{2N}\sum (y_k - \theta_{i_k j_k})^2}),
#' \eqn{e^x} for `"poisson"` and \eqn{\log(1 + e^x)} for `"binomial"`
#' (1-bit completion, \eqn{y \in \{0, 1\}}). With `center = "mean"` or
#' `"both"` the linear predictor is \eqn{\eta_{ij} = \mu + \theta_{ij}}{eta_ij
#' = mu + theta_ij} or \eqn{\mu + a_i + b_j + \theta_{ij}}{mu + a_i + b_j +
#' theta_ij}, with an intercept and row and column effects that are not
#' penalized, fitted jointly with \eqn{\theta}{theta} (see "Effects").
#'
#' The stochastic method streams observed entries, `batch_size` per
#' iteration, and keeps the gradient sparse on the entries drawn so far; the
#' iterate is stored as rank-one atoms plus its values on those entries, so an
#' iteration costs \eqn{O(|\Omega| + m + n)} plus the rank-one SVD of a sparse
#' matrix (Lanczos through 'RSpectra'). `"fw"` uses every entry at each
#' iteration; `"spg"` is the stochastic projected-gradient baseline of the
#' paper (dense iterate and a full SVD per iteration).
#'
#' @section Low rank:
#' A Frank-Wolfe step adds a rank-one atom, so after \eqn{T} steps the
#' iterate could have rank \eqn{\min(T, m, n)} even when the solution has
#' low rank. `"fw"` and `"sfw"` keep it low: whenever the number of atoms
#' doubles, and after the last iteration, the atoms are rewritten as the thin
#' SVD of their sum (exact: QR of the factors and the SVD of a small core,
#' \eqn{O((m + n) k^2)}{O((m + n) k^2)} for \eqn{k} atoms), then
#' projected-gradient steps on the singular values over
#' \eqn{\{d \ge 0, \sum d \le r\}}{{d >= 0, sum d <= r}} move weight to
#' the useful directions and drop those whose weight reaches zero. These
#' steps only decrease the (estimated) objective, so nothing is truncated:
#' `fit$objective` and `fit$gap` are those of the returned `X`.
#' `fit$rank` is its rank and `fit$dropped` the number of atoms dropped.
#' A run stopped before `max_iter` (by `tol`, `max_time` or an interrupt)
#' skips the final step: its rank can be up to about twice that of the last
#' compression. On planted low-rank data the rank is that of the optimum
#' (tested); on MovieLens 41, where softImpute at the same nuclear norm has
#' 47 (`inst/bench/completion_rank.R`).
#'
#' @section Effects:
#' For every family, `center = "mean"` adds a free intercept \eqn{\mu}{mu}
#' and `center = "both"` an intercept plus row effects \eqn{a}{a} and
#' column effects \eqn{b}{b}, and the problem becomes
#' \deqn{\min_{\theta, \mu, a, b} \frac{1}{N}\sum_k \left[A(\eta_k) - y_k
#' \eta_k\right] + \frac{\rho}{2N}(\|a\|^2 + \|b\|^2) \quad\text{s.t.}\quad
#' \|\theta\|_* \le r,}{min over theta, mu, a, b of 1/N sum_k [A(eta_k) -
#' y_k eta_k] + rho / (2N) (||a||^2 + ||b||^2) s.t. ||theta||_* <= r,}
#' \eqn{\eta_k = \mu + a_{i_k} + b_{j_k} + \theta_{i_k j_k}}{eta_k = mu +
#' a_(i_k) + b_(j_k) + theta_(i_k j_k)}, \eqn{\rho}{rho} = `effects_ridge`
#' (default 0: effects not penalized). The effects are fitted jointly with
#' \eqn{\theta}{theta}: before each gradient they are moved toward their
#' minimizer for the current \eqn{\theta}{theta} by block-coordinate Newton
#' sweeps (the intercept, or each row's then each column's effect; one
#' sweep per gradient, up to 100 at the first; \eqn{O(|\Omega|)}{O(|Omega|)} each,
#' on the same statistics as the gradient), so that each Frank-Wolfe step
#' is a step on \eqn{\phi(\theta)}{phi(theta)}, the objective minimized
#' over the effects. The reported `gap` bounds the objective minus the
#' optimum of this joint problem: at each evaluation the effects are
#' minimized in full for the current \eqn{\theta}{theta} on all the data (a
#' copy; the iterate keeps its own), and the gap is the objective minus
#' that minimum plus the Frank-Wolfe gap of \eqn{\phi}{phi} there. It is a
#' bound up to the accuracy of that inner minimization (sweeps until one
#' decreases the loss by less than \eqn{10^{-15}}{1e-15} per observation).
#' The effects of the rows (columns) with observations sum to zero; those
#' of rows (columns) without any are zero.
#'
#' Before, the effects were removed by least squares before the fit (and
#' only for gaussian). For gaussian data the joint fit differs: it reaches a
#' lower objective at the same radius, since \eqn{\theta}{theta} no longer
#' has to fit what the effects absorb (MovieLens, 50 `"fw"` iterations:
#' objective 0.21661 against 0.21804 and test RMSE 0.8813 against 0.8823
#' at radius 463; 0.8798 against 0.8810 at 695;
#' `inst/bench/results/completion_effects.md`). The old fit is the
#' `center = "none"` fit of the residuals of
#' `lm(value ~ factor(row) + factor(col))`. With `"sfw"` and `"spg"` the
#' effects, like the gradient, use the entries drawn so far (the estimated
#' objective): before the first pass over the data (100 iterations at the
#' default batch size) they rest on few entries per row and column, so
#' short runs predict worse than with effects removed beforehand
#' (MovieLens, `"sfw"`, 25 iterations: test RMSE 0.97 against 0.90,
#' `inst/bench/results/movielens.md`); from one pass on they use every
#' entry (200 iterations at radius 463: 0.8818 against 0.8832).
#'
#' Without a ridge, the effect of a row or column whose binary values are
#' all 1 (or all 0), or whose Poisson counts are all 0, is infinite at the
#' optimum; the sweeps stop moving it once its loss is below
#' \eqn{10^{-13}}{1e-13} per observation (an effect near \eqn{\pm 30}{+-30}
#' for binomial), and the objective is within that of its infimum. On
#' MovieLens (ratings \eqn{\ge 4}{>= 4}) half the movies are such, and a
#' small ridge predicts better. Held-out AUC, best over radii
#' (`inst/bench/completion_effects.R`): 0.790 with `effects_ridge = 1`,
#' 0.774 without, 0.767 uncentred; additive effects only: 0.770 (logistic),
#' 0.785 (logistic, ridge 1), 0.778 (least squares on the 0/1 values).
#'
#' @section Warm starts:
#' `init = fit`, a previous fit of the same data and settings (family,
#' center, method, radius, step rule, batch size, sampling,
#' `effects_ridge`), continues that run exactly: the run resumes from the
#' solver's state kept in `fit$state` (the iterate before the final rank
#' compression, the effects, the drawn statistics, the sampler's
#' permutation and position, the iteration count for the step rule), so
#' `control$max_iter` more iterations give the fit of one run of
#' `fit$iterations + max_iter` iterations (bit for bit for `"fw"` and
#' `"sfw"`, tested; `"spg"` resumes from the thin SVD of its dense iterate,
#' the same up to rounding). For the stochastic methods
#' this needs the RNG stream to continue: nothing else may draw random
#' numbers between the two calls (with `sampling = "replace"`; the
#' permutation of `"shuffle"` is kept in the fit). The trace continues the
#' init's (iterations and work counters count from it). With other data or
#' settings on a matrix of the same size, `init` is a warm start: its
#' \eqn{X}{X} (scaled into the ball if its nuclear norm exceeds `radius`)
#' and, for the same `center`, its effects start the run, and a step rule
#' other than the line search starts where its step equals the exact line
#' search's at that start (for `"gaussian"`; the others count on from the
#' fit's iterations), so that the first steps do not discard it. (Counting
#' on along a path shrank the steps ever more: on a 15-radius path the
#' 13th fit's gap was 7 times that of a cold start.)
#'
#' @section Default method:
#' `"fw"` (Frank-Wolfe on all the entries, exact line search for gaussian,
#' and the subspace refit below) is the default since issue 25: at
#' softImpute's chosen nuclear norm it reached softImpute's test RMSE in 10
#' iterations and 1.1 s of CPU on MovieLens (softImpute's own fit: 2.9 s),
#' in 10 iterations and 1.6 s on the NCI60 imputation (1.7 s), and in 5
#' iterations and 0.1 to 0.2 s on simulated 2000 x 300, 1000 x 1000 and
#' 300 x 3000 matrices (0.9 to 2.1 s)
#' (`inst/bench/results/completion_tuning.md`, one run, side by side), and
#' its gap falls far faster than plain Frank-Wolfe's \eqn{O(1/t)}{O(1/t)}.
#' Before it, `"sfw"` was the default: on MovieLens 1000 iterations of
#' `"sfw"` ended at a lower objective than 1000 of plain `"fw"` in less
#' than half the time (`inst/bench/completion_rank.R`), but neither reached
#' `tol = 1e-6` (gap about \eqn{3 \times 10^{-3}}{3e-3} of the objective
#' after 1000 iterations). `"sfw"` remains the method for streamed data
#' (it uses `batch_size` entries per iteration). The gap is a certificate:
#' `fit$objective - gap` is a lower bound on the optimum (up to the
#' accuracy of the gradient's top singular value: Lanczos to a residual of
#' \eqn{10^{-10}}{1e-10} of the value, or \eqn{10^{-8}}{1e-8} when near the
#' optimum the top of the gradient's spectrum is a cluster of about the
#' iterate's rank and the first does not converge: on MovieLens after 50
#' iterations at radius 463 the gap was \eqn{7.4634 \times 10^{-7}}{7.4634e-7}
#' against \eqn{7.4652 \times 10^{-7}}{7.4652e-7} from a dense SVD); with the default
#' `cg_control()` the fit stops at a relative gap of \eqn{10^{-6}}{1e-6},
#' which takes more iterations than the held-out error needs (set `tol`,
#' e.g. \eqn{10^{-2}}{1e-2} as [cv_complete_matrix()] does, or `max_iter`).
#' `"spg"` (a full SVD per iteration) is the paper's baseline.
#'
#' @section Subspace refit (`"fw"`):
#' After each Frank-Wolfe step (exact line search), `"fw"` decreases the
#' objective over the part of the ball spanned by the iterate's current
#' singular subspaces: with \eqn{X = U\,\mathrm{diag}(w)\,V'}{X = U diag(w)
#' V'} (thin SVD of the atoms, \eqn{k}{k} columns) it takes up to 10
#' projected-gradient steps on the core \eqn{S}{S} of \eqn{U S V'}{U S V'}
#' over \eqn{\{\|S\|_* \le r\}}{{||S||_* <= r}} (Barzilai-Borwein step
#' lengths, the projection by a \eqn{k \times k}{k x k} SVD, exact line
#' search for gaussian, halving for the other families; the effects held
#' fixed). The bases are first widened by the next singular vectors of the
#' gradient that the LMO's Lanczos run finds with the top one: the top 8
#' pairs, or at a rank \eqn{k > 32}{k > 32} the top \eqn{k/4}{k/4} (at most
#' 32, and at most \eqn{\min(m, n)/4}{min(m, n) / 4}), each side on its own, so the
#' row space keeps growing when the column space is full, as for a 64 x
#' 6830 matrix. (At a rank in the tens seven new directions per iteration
#' found the solution's subspace slowly: on the simulated 2000 x 300 rank-10
#' matrix of `inst/bench/completion_tuning.R`, whose solution at the chosen
#' radius has rank 83, the gap after 30 iterations was 0.023 with seven and
#' 0.004 with the growing block.) Only the new atom of each step is
#' orthonormalized against the factors the last refit returned (a full
#' compression every 32 iterations), and the products with the core run on
#' the smaller side of the matrix. This is the "rank-k solve, then FW" of
#' in-face Frank-Wolfe (Freund, Grigas and Mazumder 2017): every point of
#' the subspace problem is in the ball, each step only decreases the
#' objective, and the gap is that of the returned `X`, the top singular
#' value of the full gradient as before, so the certificate is unchanged.
#' Directions whose singular value the projection puts at zero are dropped,
#' so the rank stays that of the solution. An iteration costs the LMO plus
#' \eqn{O(|\Omega| k + \min(m, n) k^2)}{O(|Omega| k + min(m, n) k^2)} per
#' refit step, plus \eqn{O((m + n) k^2)}{O((m + n) k^2)} once for the
#' returned factors. The rank is that of the stated problem's solution,
#' which for noisy data at the radius that predicts best is often far above
#' the signal's: on the simulated rank-10 matrix above the solution at
#' radius 4091 (run to a relative gap of \eqn{2 \times 10^{-4}}{2e-4}) has 10
#' singular values from 184 to 318 and 73 more from 0.26 to 54, which carry
#' 40% of the nuclear norm; truncating them would change the problem (use
#' `max_rank` to cap it, as softImpute's `rank.max`). On the data of
#' `inst/bench/completion_tuning.R` it reaches
#' softImpute's held-out RMSE in 10 to 20 iterations
#' (`inst/bench/results/completion_tuning.md`), where plain Frank-Wolfe
#' took hundreds; `options(stochcg.refit_steps = 0)` gives plain
#' Frank-Wolfe.
#'
#' `max_rank` (with `"fw"`) caps the rank: the refit projects onto the
#' ball intersected with rank at most `max_rank` (the largest singular
#' values kept, then projected), so every returned iterate has rank at most
#' `max_rank`, like softImpute's `rank.max`. That set is not convex: when
#' the solution of the stated problem has a higher rank the run cannot reach
#' it, and `gap`, still the duality gap of the nuclear-ball problem at the
#' returned `X` (an honest bound on its distance to the uncapped optimum),
#' stays above `tol` (tested).
#'
#' @section Box constraints and l1 penalty:
#' With `box = c(lo, hi)` the problem is paper 003's eq. (18),
#' \deqn{\min_X \frac{1}{2N}\sum_k (X_{i_k j_k} - y_k)^2 \;\;\text{s.t.}\;\;
#' \|X\|_* \le r,\; lo \le X_{ij} \le hi \text{ for all } i, j,}{min 1/(2N)
#' sum_k (X_ik,jk - y_k)^2 s.t. ||X||_* <= r, lo <= X_ij <= hi for all i, j,}
#' and with `lambda` eq. (19), the same loss plus
#' \eqn{\lambda \sum_{ij} |X_{ij}|}{lambda sum_ij |X_ij|} over all entries
#' (the paper's loss is the plain sum: its \eqn{\lambda}{lambda} is this
#' one times \eqn{2N}{2N}). Both are solved by homotopy conditional
#' gradient: g (the box's indicator, or the l1 term) is smoothed with
#' parameter \eqn{\beta_k}{beta_k}, whose gradient is
#' \eqn{(X - \mathrm{prox}_{\beta_k g}(X)) / \beta_k}{(X - prox_(beta_k g)(X)) /
#' beta_k}: \eqn{(X - \mathrm{proj_{box}}(X))/\beta_k}{(X - proj_box(X)) /
#' beta_k} for the box, the Moreau envelope's
#' \eqn{(X - \mathrm{soft}(X, \beta_k\lambda))/\beta_k}{(X - soft(X,
#' beta_k lambda)) / beta_k} for l1, computed in full each iteration.
#' `"hsagcgm"` (default here) is H-SAG-CGM with Variant 1 (Dresdner et al.
#' 2022, Alg. 1): a SAG table over the observed entries (zero at the start),
#' `batch_size` iid entries (default 1000, the paper's) refreshed per
#' iteration, step \eqn{2/(k+1)}{2/(k+1)}, \eqn{\beta_k = \beta_0 /
#' \sqrt{k+1}}{beta_k = beta0 / sqrt(k + 1)}. `"shcgm"` is SHCGM
#' (Locatello et al. 2019): \eqn{d_k = (1-\rho_k) d_{k-1} + \rho_k}{d_k =
#' (1 - rho_k) d_(k-1) + rho_k} times the minibatch gradient, with the
#' schedules of that paper and its authors' code, \eqn{\rho_k = 4/(k+7)^{2/3}}{rho_k
#' = 4 / (k + 7)^(2/3)}, step \eqn{9/(k+8)}{9/(k+8)} and \eqn{\beta_k =
#' \beta_0/\sqrt{k+8}}{beta_k = beta0 / sqrt(k + 8)}. The next iterate is a
#' Frank-Wolfe step toward \eqn{-r u v'}{-r u v'}, \eqn{(u, v)}{(u, v)} the
#' top singular pair of the gradient estimate (Lanczos).
#'
#' `beta0 = "auto"` is \eqn{N}{N}, the number of observations, for
#' `"hsagcgm"`: the smoothing term \eqn{\mathrm{dist}^2/(2\beta)}{dist^2 /
#' (2 beta)} then weighs a violated entry like an observed residual in the
#' loss, and the choice is scale-free (ratings times \eqn{c}{c}, box and
#' radius times \eqn{c}{c}: the same iterates up to \eqn{c}{c}); for
#' `"shcgm"` it is \eqn{20N}{20 N}, the paper's \eqn{\beta_0 = 10}{beta0 =
#' 10} for its unscaled loss. Grid check on MovieLens with the box
#' \eqn{[1, 5]}{[1, 5]} and with the paper's \eqn{\lambda}{lambda}
#' (`inst/bench/completion_homotopy.R`; 660 users x 200 most rated movies,
#' 24418 training ratings, 1000 iterations, \eqn{\beta_0/N \in \{1/16,
#' \ldots, 8, 20\}}{beta0 / N in {1/16, ..., 8, 20}}, error = relative
#' objective residual against a Davis-Yin solution + relative
#' infeasibility, over the last 20% of the iterations, mean of 3 seeds):
#' "auto" is within a factor 1.4 of the grid's best for both methods and
#' both problems; `"shcgm"` at \eqn{N}{N} was 7.6 times the best on the box
#' (its iterates stay far outside the box for longer at small
#' \eqn{\beta_0}{beta0}), which is why its "auto" differs
#' (`inst/bench/results/completion_homotopy.md`). There is no duality
#' certificate: `fit$gap` is
#' `NA` and the status is `"max_iter"` or `"max_time"`. The trace's
#' `objective` is that of the stated problem (for the box the loss alone,
#' with `infeasibility` the Frobenius distance of \eqn{X}{X} to the box and
#' `infeasibility_rel` that distance over \eqn{\|X\|_F}{||X||_F}; for l1 the
#' penalized objective); `rmse_train` is the RMSE on the observed entries,
#' and with `test` given `rmse_test` the RMSE on those held-out entries
#' (evaluation work, excluded from the trace's `time`). `epoch` counts passes
#' over the observed entries, `n_grad` the entries drawn. `center` must be
#' `"none"` (the box applies to the fitted matrix itself).
#'
#' `init` = a previous fit with `box` or `lambda` of the same data and
#' settings (method, `box` or `lambda`, radius, `beta0`, `batch_size`,
#' `test`) continues it exactly, as one longer run, bit for bit (tested),
#' when nothing draws random numbers between the two calls (`set.seed()`
#' before the first): `fit$state` keeps the dense iterate \eqn{X}{X}
#' (\eqn{mn} doubles), its atoms as the steps left them (\eqn{m + n + 1}
#' doubles each), the epochs, and f's estimator: SHCGM's average (one
#' double per observed cell) or H-SAG-CGM's SAG table (one per observation,
#' and its sums per cell). With other settings, or that estimator dropped
#' from `fit$state`, `init` is a warm start: its \eqn{X}{X} (scaled into
#' the ball if its nuclear norm exceeds `radius`), the estimator restarted,
#' the schedules counted on from its iterations. `fit$state <- NULL` drops
#' the state (a fit without it cannot start a fit with `box` or `lambda`).
#'
#' @section Memory:
#' On top of `Y`, about 200 bytes per observed entry, 15 to 17 times the size
#' of a `dgCMatrix` `Y` (12 bytes per entry; `inst/bench/memory.R`): the entries
#' in triplet form and their cell indices in R, and 14 doubles per cell of
#' statistics, iterate values and scratch in the C solver (16 with
#' `center`, plus the effects, \eqn{O(m + n)}{O(m + n)}). The iterate is a
#' sum of rank-one atoms, at most about twice its rank plus 8 between
#' compressions (see "Low rank"), each \eqn{m + n}{m + n} doubles. `method = "spg"` keeps a
#' dense \eqn{m \times n}{m x n} iterate and computes full SVDs: about ten
#' \eqn{m \times n}{m x n} matrices of doubles. With `box` or `lambda`
#' (`"hsagcgm"`, `"shcgm"`) g acts on every entry, so the iterate is
#' necessarily dense, as in the paper: two \eqn{m \times n}{m x n} matrices
#' of doubles (the iterate and the gradient estimate), plus one double per
#' observation (the SAG table) and the rank-one atoms of the fit (compressed
#' to thin SVD when their count doubles).
#'
#' @section Ratings on disk:
#' `Y = entry_reader(...)` streams the observed entries (ratings triples)
#' from an SQLite table, an HDF5 file or a data frame, block by block (see
#' [entry_reader()]), for `method = "sfw"` (and `"fw"`), a single `radius`,
#' without `init`, `box` or `lambda`. Two passes over the blocks find the
#' distinct cells (and, without `dims`, the dimensions) and check every
#' entry; the solver reads the blocks once more
#' in order for the per-cell totals, then its stochastic method draws the
#' entries through the block sampler: blocks in random order, the entries
#' of a block in random order, each block read once per pass (the draws
#' differ from those of the data frame path, which shuffles all N entries
#' as one block). The full-data evaluations (objective, gap) use the
#' per-cell totals and read nothing. A fit from the table or the file
#' equals the fit from the same entries as a data frame read by the same
#' blocks, under the same seed, bit for bit (tested).
#'
#' What stays in memory: never the N entries, but the solver's statistics
#' per distinct cell -- 6 doubles and 7 or 8 integers, about 80 bytes (the
#' cell's row and column and its place among the touched cells; the
#' counts (32-bit) and sums of the drawn and of all entries; the iterate's
#' value and the gradient there; two scratch values shared in turns by the
#' evaluations, the effects and the rank control) -- the effects and the
#' factors (\eqn{O(m + n)}{O(m + n)} per atom; between compressions the
#' solver holds up to about twice the rank in atoms), and one block; while
#' the cells are found, one integer per entry (the rows grouped by
#' column, collected before the solver starts). For ratings, where almost
#' every cell is rated once, that is still proportional to N: about 97
#' bytes per rating measured from 1e6 to 2e7 ratings
#' (`inst/bench/results/out_of_core_ratings_1e8.md`), about 9.5 GB at 1e8
#' ratings; `memory = "low"` (below) keeps 12 bytes per cell instead. The
#' fit has no
#' `obs`, `fitted.values` or `state` (`fitted()` needs the entries;
#' `predict(fit, newdata)` works); `fit$reader` gives the reader's blocks,
#' the distinct cells, the passes over the entries and the `memory` mode.
#'
#' `memory = "low"` trades reads and CPU for memory: the solver keeps no
#' statistics per cell, only each cell's row (its column is a column
#' pointer's range) and one double, this iteration's gradient there -- 12
#' bytes per distinct cell instead of about 100 -- and recomputes what an
#' iteration needs from the file: the block sampler draws whole blocks, so
#' the entries drawn so far are the blocks begun plus a prefix of the
#' current one, and the paper's estimate \eqn{S_2 A'(	heta) - S_1}{S2
#' A'(theta) - S1} is one pass over them with \eqn{	heta}{theta} at each
#' entry computed from the atoms (\eqn{O(rank)}{O(rank)}). A pass is made for
#' each gradient, each exact line search (`step = "line_search"`), each step
#' of the rank control and each full-data evaluation (the objective summed
#' per entry in double precision, the full gradient into the same buffer and
#' Lanczos on it), so one epoch of `"sfw"` reads about half the file per
#' iteration. The draws are those of the default mode and the fit equals it
#' up to rounding (the iterate's value at a cell is recomputed from the
#' atoms rather than updated step by step; tested to 1e-8 on the objective),
#' and `objective`, `gap` and `converged` certify the same stated problem on
#' all the entries. Measured at 1e8 ratings of a 1e5 x 1e4 matrix: see
#' `inst/bench/results/out_of_core_ratings_1e8.md`. It is for `method =
#' "sfw"` with `center = "none"` and `sampling = "shuffle"` or `"stream"`
#' (the effects' sweeps and `"fw"`'s subspace refit need the per-cell
#' statistics; blocks drawn with replacement are not a set of blocks begun);
#' other settings give an error naming the argument.
#'
#' @param Y Observed entries: a sparse `dgCMatrix` whose stored entries are
#'   the observations, a numeric matrix with `NA` for missing entries, a
#'   data frame with columns `row`, `col`, `value` (or its first three columns
#'   in that order), 1-based, or a reader of entries from [entry_reader()]
#'   (an SQLite table or an HDF5 file, read block by block; see "Ratings on
#'   disk").
#' @param radius Radius \eqn{r > 0} of the nuclear-norm ball, or several
#'   radii: a [cg_path] of fits, solved in increasing order, each
#'   warm-started (`init`) from the previous one. [cv_complete_matrix()]
#'   chooses the radius by cross-validation.
#' @param family `"gaussian"`, `"poisson"` or `"binomial"`.
#' @param center `"none"`, `"mean"` (a free intercept) or `"both"`
#'   (intercept plus row and column effects), fitted jointly with the
#'   low-rank part for every family (see "Effects"). `predict()` and
#'   `fitted()` include them.
#' @param method `"fw"` (default; see "Default method"), `"sfw"` or `"spg"`
#'   for the plain problem; `"hsagcgm"` (default with `box` or `lambda`) or
#'   `"shcgm"`, which require `box` or `lambda` (see "Box constraints and
#'   l1 penalty").
#' @param batch_size Observed entries drawn per iteration by stochastic
#'   methods; default `ceiling(N / 100)`, and `min(N, 1000)` (the paper's
#'   1000 iid draws) for `"hsagcgm"` and `"shcgm"`.
#' @param sampling `"shuffle"` (without replacement, random order),
#'   `"stream"` (in the order given) or `"replace"` (with replacement).
#' @param step `"line_search"` (exact, gaussian only; default for `"fw"`),
#'   `"standard"` (\eqn{2/(t+1)}) or `"sfw"` (\eqn{K/(t+K-1)}, default for
#'   `"sfw"`). Line search falls back to `"standard"` for other families.
#' @param K Step parameter of `step = "sfw"`.
#' @param step_size Step of `"spg"`; `NULL` for \eqn{1/L} of the current
#'   estimate.
#' @param dims `c(m, n)`; by default taken from `Y` (for a data frame, the
#'   largest row and column index).
#' @param box `NULL` or `c(lo, hi)`, `lo < hi`: every entry of the fit is
#'   constrained to \eqn{[lo, hi]}{[lo, hi]} (paper 003 eq. 18).
#' @param lambda `NULL` or a number \eqn{\ge 0}{>= 0}: the weight of the l1
#'   penalty on all entries (eq. 19). Not together with `box`.
#' @param beta0 Initial smoothing of `"hsagcgm"` and `"shcgm"`: `"auto"`
#'   (\eqn{N}{N}, see "Box constraints and l1 penalty") or a positive
#'   number.
#' @param test `NULL`, or held-out entries in the form of `Y` (for
#'   `"hsagcgm"` and `"shcgm"`): the trace then has their RMSE per row,
#'   `rmse_test`.
#' @param init `NULL`, or a previous fit of `complete_matrix()` on a matrix
#'   of the same size to continue (same data and settings: exactly) or to
#'   start from (see "Warm starts"; with `box` or `lambda`, a previous fit
#'   with `box` or `lambda`, see "Box constraints and l1 penalty").
#' @param max_rank `NULL` (no cap) or a whole number: the largest rank of
#'   the iterate, for `method = "fw"` (see "Subspace refit"); a cap on the
#'   memory and time per iteration when the useful rank is known.
#' @param effects_ridge Ridge weight \eqn{\rho \ge 0}{rho >= 0} on the row
#'   and column effects (`center = "both"`), on the scale of one
#'   observation's loss: the objective gains \eqn{\rho/(2N)(\|a\|^2 +
#'   \|b\|^2)}{rho / (2N) (||a||^2 + ||b||^2)}. Default 0 (not penalized).
#' @param memory For `Y` a reader of entries: `"fast"` (default) keeps the
#'   paper's drawn statistics per distinct cell in memory (about 100 bytes per
#'   cell, each block read once per pass of draws); `"low"` keeps 12 bytes per
#'   cell and recomputes the statistics from the file every iteration (several
#'   times the reads and CPU), for data whose cells do not fit in memory (see
#'   "Ratings on disk"). A choice, not a size threshold: the two modes agree
#'   only up to rounding and differ several-fold in time, so the user decides
#'   which to pay, and a fit does not change its numbers when the data grow
#'   past a limit.
#' @param control Solver settings from [cg_control()].
#' @returns A fit of class `c("complete_matrix_fit", "cg_fit")`; see
#'   [cg_fit]. `solution$X` is a [lowrank] object in thin-SVD form (the
#'   low-rank part, without the effects), `rank` its rank and `dropped` the
#'   number of atoms dropped (`NA` for `"spg"`); `center` the effects
#'   (`type`, `mean`, `row`, `col`), `effects_ridge`, `state` the solver's
#'   state for `init` (about 28 bytes per observed cell and 4 per
#'   observation). `predict(fit, newdata)` gives values at (row, col) pairs,
#'   `clip = c(lo, hi)` limits them to a bounded scale; `fitted()` and
#'   `residuals()` work as for [glm()] (see [fitted.complete_matrix_fit()]).
#'   With `box` or `lambda` also `infeasibility`, `infeasibility_rel`
#'   (box; `NA` for l1), `beta0`, `box`, `lambda`, and `gap` is `NA`;
#'   `state` then holds the dense iterate and f's estimator (see "Box
#'   constraints and l1 penalty").
#' @references Lafond, J., Wai, H.-T. and Moulines, E. (2015). Convergence
#'   analysis of a stochastic projection-free algorithm. arXiv:1510.01171.
#'
#'   Dresdner, G., Vladarean, M.-L., Rätsch, G., Locatello, F., Cevher, V. and
#'   Yurtsever, A. (2022). Faster one-sample stochastic conditional gradient
#'   method for composite convex minimization. AISTATS.
#'
#'   Locatello, F., Yurtsever, A., Fercoq, O. and Cevher, V. (2019).
#'   Stochastic conditional gradient method for composite convex
#'   minimization. NeurIPS.
#' @examples
#' set.seed(1)
#' m <- 60; n <- 40
#' truth <- tcrossprod(matrix(rnorm(m * 2), m), matrix(rnorm(n * 2), n))
#' obs <- data.frame(row = sample(m, 1200, TRUE), col = sample(n, 1200, TRUE))
#' obs$value <- truth[cbind(obs$row, obs$col)] + rnorm(1200, sd = 0.1)
#' fit <- complete_matrix(obs, radius = sum(svd(truth)$d), method = "fw",
#'                        control = cg_control(max_iter = 300))
#' fit
#' fit$rank
#' predict(fit, data.frame(row = 1:3, col = 1:3))
#' truth[cbind(1:3, 1:3)]
#' predict(fit, data.frame(row = 1:3, col = 1:3), clip = c(-1, 1))
#' # a path over radii, each fit warm-started from the previous one
#' path <- complete_matrix(obs, radius = c(5, 10, 20, 40), method = "fw",
#'                         control = cg_control(max_iter = 100))
#' path
#'
#' # 1-bit completion with row and column effects, resumed for 200 more
#' # iterations (the same as one run of 500)
#' bits <- transform(obs, value = as.numeric(value > 0))
#' fit1 <- complete_matrix(bits, radius = 20, family = "binomial", center = "both",
#'                         method = "fw", control = cg_control(max_iter = 300))
#' fit1
#' fit2 <- complete_matrix(bits, radius = 20, family = "binomial", center = "both",
#'                         method = "fw", init = fit1, control = cg_control(max_iter = 200))
#' c(fit1$gap, fit2$gap)
#' head(fitted(fit2))           # probabilities at the observed entries
#'
#' # every entry in [-1, 1] (paper 003 eq. 18), by H-SAG-CGM
#' boxed <- complete_matrix(obs, radius = sum(svd(truth)$d), box = c(-1, 1),
#'                          batch_size = 100, beta0 = 1000,
#'                          control = cg_control(max_iter = 2000))
#' boxed$infeasibility_rel        # relative distance of X to the box
#' range(as.matrix(boxed$solution$X))
#' @export
complete_matrix <- function(Y, radius, family = c("gaussian", "poisson", "binomial"),
                            center = c("none", "mean", "both"),
                            method = c("fw", "sfw", "spg", "hsagcgm", "shcgm"),
                            batch_size = NULL,
                            sampling = c("shuffle", "stream", "replace"),
                            step = NULL, K = 2L, step_size = NULL, dims = NULL,
                            box = NULL, lambda = NULL, beta0 = "auto", test = NULL,
                            init = NULL, effects_ridge = 0, max_rank = NULL,
                            memory = c("fast", "low"), control = cg_control()) {
  started <- wall_clock()
  call <- match.call()
  memory <- match_choice(memory, c("fast", "low"), "memory")
  if (memory == "low" && !inherits(Y, "cg_reader"))
    stop_arg("memory", "= \"low\" is for `Y` a reader of entries (entry_reader()): it ",
             "re-reads the entries from their file")
  if (!missing(radius) && length(radius) > 1L) {     # a path: one fit per radius
    if (inherits(Y, "cg_reader"))
      stop_arg("radius", "must be a single number when `Y` is a reader of entries")
    if (!is.null(box) || !is.null(lambda))
      stop_arg("radius", "must be a single number with `box` or `lambda` (a path ",
               "is for the plain problem)")
    args <- mget(c("Y", "family", "center", "method", "batch_size", "sampling", "step",
                   "K", "step_size", "dims", "effects_ridge", "max_rank", "control"))
    return(fit_path(complete_matrix, args, radius, init, call, started))
  }
  # ---- error checking
  family <- match_choice(family, c("gaussian", "poisson", "binomial"), "family")
  center <- match_choice(center, c("none", "mean", "both"), "center")
  composite <- check_composite(box, lambda)
  if (composite != "none" && missing(method)) method <- "hsagcgm"
  method <- match_choice(method, c("sfw", "fw", "spg", "hsagcgm", "shcgm"), "method")
  homotopy <- method %in% c("hsagcgm", "shcgm")
  if (composite != "none" && !homotopy)
    stop_arg("method", "must be \"hsagcgm\" or \"shcgm\" with `", composite,
             "` (\"", method, "\" solves only the nuclear-ball problem)")
  if (composite == "none" && homotopy)
    stop_arg("method", "= \"", method, "\" needs `box` or `lambda`; for the plain ",
             "problem use \"sfw\", \"fw\" or \"spg\"")
  if (homotopy && !missing(sampling) && !identical(sampling, "replace"))
    stop_arg("sampling", "must be \"replace\" for method = \"", method,
             "\" (iid draws, as in the paper)")
  sampling <- if (homotopy) "replace" else
    match_choice(sampling, c("shuffle", "stream", "replace"), "sampling")
  if (inherits(Y, "cg_reader")) {         # entries read block by block (R/readers.R)
    if (!identical(Y$by, "entries"))
      stop_arg("Y", "is a reader by ", Y$by, "; complete_matrix() reads entries: use ",
               "entry_reader()")
    if (homotopy) stop_arg("method", "must be \"sfw\" or \"fw\" when `Y` is a reader of entries")
    if (missing(radius)) stop_arg("radius", "is missing, with no default")
    return(reader_completion(Y, radius, family, center, method, batch_size, sampling, step, K,
                             step_size, dims, init, effects_ridge, max_rank, control, call,
                             started, memory))
  }
  obs <- observed_entries(Y, dims)
  N <- length(obs$value)
  if (missing(radius)) stop_arg("radius", "is missing, with no default")
  check_radius(radius)
  if (homotopy) {
    if (family != "gaussian") stop_arg("family", "must be \"gaussian\" with `", composite, "`")
    if (center != "none") stop_arg("center", "must be \"none\" with `", composite, "`")
    if (prod(as.double(obs$dims)) > .Machine$integer.max)
      stop_arg("method", "= \"", method, "\" keeps a dense m x n iterate: ", obs$dims[1],
               " x ", obs$dims[2], " is too large")
    beta0 <- completion_beta0(beta0, N, method)
    if (is.null(batch_size)) batch_size <- min(N, 1000L)
  }
  if (!is.null(test)) {
    if (!homotopy) stop_arg("test", "is only for method = \"hsagcgm\" or \"shcgm\"")
    test <- observed_entries(test)
    if (any(test$dims > obs$dims))
      stop_arg("test", "has a row or column index beyond the ", obs$dims[1], " x ",
               obs$dims[2], " matrix of `Y` (give `dims`)")
  }
  if (family == "binomial" && !all(obs$value %in% c(0, 1)))
    stop_arg("Y", "must hold 0/1 values for family = \"binomial\"")
  if (family == "poisson" && any(obs$value < 0))
    stop_arg("Y", "must hold non-negative counts for family = \"poisson\"")
  check_number(effects_ridge, "effects_ridge", min = 0)
  if (!is.null(max_rank)) {
    check_count(max_rank, "max_rank", min = 1)
    if (method != "fw")
      stop_arg("max_rank", "needs method = \"fw\" (the cap acts in its subspace refit)")
  }
  if (effects_ridge > 0 && center != "both")
    stop_arg("effects_ridge", "applies to row and column effects: it needs center = \"both\"")
  step <- default_step(method, step)
  check_count(K, "K")
  if (is.null(batch_size)) batch_size <- max(1L, ceiling(N / 100))
  check_count(batch_size, "batch_size")
  check_step_size(step_size, method)
  if (method == "spg" && prod(as.double(obs$dims)) > .Machine$integer.max)
    stop_arg("method", "= \"spg\" keeps a dense m x n iterate: ", obs$dims[1], " x ",
             obs$dims[2], " is too large; use \"sfw\" or \"fw\"")
  control <- as_control(control)

  # ---- problem spec (0-based indices for C); repeated observations of a
  # cell are summed by the solver, as in the paper's statistics S1, S2.
  # Effects (center) are fitted jointly by the solver, on the raw values.
  key <- (obs$row - 1) + obs$dims[1] * (obs$col - 1)
  ukey <- unique(key)
  spec <- c(completion_settings(method, step, K, step_size, family, radius, control,
                                max_rank, batch_size, N, sampling),
            list(m = obs$dims[1], n = obs$dims[2], cell = match(key, ukey) - 1L,
                 cell_row = as.integer(ukey %% obs$dims[1]),
                 cell_col = as.integer(ukey %/% obs$dims[1]), y = obs$value,
                 dense_iterate = method == "spg"))
  run_key <- NULL
  start <- NULL
  if (!homotopy) {
    spec$center <- match(center, c("none", "mean", "both")) - 1L
    spec$effects_ridge <- as.double(effects_ridge)
    run_key <- list(family = family, center = center, method = method, step = step,
                    K = as.integer(K), eta = spec$eta, radius = as.double(radius),
                    batch_size = spec$batch_size, sampling = spec$sampling,
                    effects_ridge = as.double(effects_ridge),
                    refit = spec$refit, max_rank = spec$max_rank,
                    dims = obs$dims, data = data_fingerprint(obs))
    if (!is.null(init)) {
      start <- completion_start(init, obs$dims, run_key, radius, center)
      spec <- c(spec, start$spec)
      spec$max_iter <- as.integer(start$iter + control$max_iter)
    }
  }
  if (homotopy) {
    spec$method <- if (method == "hsagcgm") "hsagcgm_v1" else "shcgm"
    spec$composite <- if (composite == "box") 1L else 2L
    spec$lo <- if (composite == "box") as.double(box[1]) else -Inf
    spec$hi <- if (composite == "box") as.double(box[2]) else Inf
    spec$lambda <- if (composite == "lambda") as.double(lambda) else 0
    spec$beta0 <- beta0
    if (!is.null(test)) {
      spec$test_at <- as.integer((test$row - 1) + obs$dims[1] * (test$col - 1))
      spec$test_y <- test$value
    }
    run_key <- list(method = method, box = box, lambda = lambda, radius = as.double(radius),
                    beta0 = beta0, batch_size = spec$batch_size, dims = obs$dims,
                    data = data_fingerprint(obs),
                    test = if (!is.null(test)) data_fingerprint(test))
    if (!is.null(init)) {
      start <- composite_start(init, obs$dims, run_key, radius, composite, length(ukey))
      spec <- c(spec, start$spec)
    }
  }
  fit <- cg_run(spec, control, "complete_matrix", call, started)

  sol <- fit$solution
  fit <- completion_solution(fit)
  if (homotopy) {
    fit$method <- method
    fit$dropped <- NA_integer_
    fit$gap_note <- "no certificate for the homotopy methods"
    fit$beta0 <- beta0
    fit$box <- box
    fit$lambda <- lambda
    fit$trace$infeasibility_rel <- fit$trace$infeasibility / pmax(sol$xnorm, 1e-300)
    fit$trace$rmse_train <- sol$rmse_train
    if (!is.null(test)) fit$trace$rmse_test <- sol$rmse_test
    fit$state <- c(sol$state, list(key = run_key))
    if (!is.null(start)) fit <- continue_trace(fit, init, start)
    last <- nrow(fit$trace)
    fit$infeasibility <- fit$trace$infeasibility[last]
    fit$infeasibility_rel <- fit$trace$infeasibility_rel[last]
    fit$center <- list(type = "none", mean = 0, row = numeric(obs$dims[1]),
                       col = numeric(obs$dims[2]))
  } else {
    fit$center <- list(type = center, mean = sol$mu, row = sol$row, col = sol$col)
    fit$state <- c(sol$state, list(key = run_key))
    if (!is.null(start)) fit <- continue_trace(fit, init, start)
  }
  fit$effects_ridge <- effects_ridge
  fit$notes <- c(completion_model_note(family, fit$center, effects_ridge),
                 if (!is.null(start)) start$note,
                 if (!is.na(fit$dropped))
                   sprintf(paste("rank %d: %d atoms dropped when their weight reached zero",
                                 "(descent steps; no truncation, the objective and gap are",
                                 "those of X)"), fit$rank, fit$dropped))
  fit$family <- family
  fit$dims <- obs$dims
  fit$radius <- radius
  fit$obs <- data.frame(row = obs$row, col = obs$col, value = obs$value)
  class(fit) <- c("complete_matrix_fit", "cg_fit")
  fit$linear.predictors <- predict(fit, fit$obs, type = "link")
  fit$fitted.values <- family_linkinv(family)(fit$linear.predictors)
  finish_fit(fit, started)
}

# The line print() shows for the model: family and effects.
completion_model_note <- function(family, center, effects_ridge = 0) {
  link <- switch(family, gaussian = "identity", poisson = "log", binomial = "logit")
  eff <- switch(center$type,
    none = "no effects (center = \"none\")",
    mean = sprintf("intercept %s (center = \"mean\")", format(center$mean, digits = 4)),
    both = sprintf(paste("intercept %s + row effects (sd %s) + column effects (sd %s),",
                         "each summing to zero (center = \"both\")"),
                   format(center$mean, digits = 4),
                   format(stats::sd(center$row[center$row != 0]), digits = 3),
                   format(stats::sd(center$col[center$col != 0]), digits = 3)))
  if (effects_ridge > 0) eff <- sprintf("%s, ridge %s on the row and column effects", eff,
                                        format(effects_ridge, digits = 4))
  sprintf("family %s (%s link); %s, fitted jointly with X", family, link, eff)
}

# A few sums that tell data sets apart (a resumed run must see the same data).
data_fingerprint <- function(obs) {
  w <- ((obs$row * 7919 + obs$col) %% 1009) + 1
  c(length(obs$value), sum(obs$row), sum(obs$col), sum(obs$value), sum(w * obs$value))
}

# Warm start from `init`, a previous fit of complete_matrix() on a matrix of
# the same size. With the same data and settings (run_key) the run continues
# exactly: the solver state before the final weight steps, the drawn
# statistics and the sampler, the iteration count. Otherwise the fit's X
# (scaled into the ball if needed) and effects start the run, and the step
# rule counts from its iterations.
completion_start <- function(init, dims, run_key, radius, center) {
  if (!inherits(init, "complete_matrix_fit"))
    stop_arg("init", "must be NULL or a fit of complete_matrix()")
  if (!identical(suppressWarnings(as.integer(init$dims)), as.integer(dims)))
    stop_arg("init", "is a fit of a ", paste(init$dims, collapse = " x "),
             " matrix, but `Y` is ", dims[1], " x ", dims[2])
  X <- init$solution$X
  check_lowrank(X, "init$solution$X")
  if (!identical(c(nrow(X$u), nrow(X$v)), as.integer(dims)))
    stop_arg("init", "has a solution `X` of the wrong size (a fit altered by hand?)")
  st <- init$state
  exact <- !is.null(st) && identical(st$key, run_key)
  iter <- if (is.null(st)) 0L else as.integer(st$iter)
  eff <- init$center
  same_center <- identical(eff$type, center) && center != "none"
  if (same_center)
    for (part in list(list("mean", 1), list("row", dims[1]), list("col", dims[2]))) {
      x <- eff[[part[[1]]]]
      if (!is.numeric(x) || length(x) != part[[2]] || !all_finite(x))
        stop_arg("init", "has an invalid `center$", part[[1]], "`: it must be a finite ",
                 "numeric vector of length ", part[[2]], " (a fit altered by hand?)")
    }
  spec <- list(iter_offset = iter,
               init_mu = if (same_center) as.double(eff$mean) else 0,
               init_row = if (same_center) as.double(eff$row) else numeric(dims[1]),
               init_col = if (same_center) as.double(eff$col) else numeric(dims[2]))
  if (exact) {
    spec <- c(spec, list(init_u = st$u, init_w = st$w, init_v = st$v, init_scale = st$scale,
                         init_kept = st$kept, init_dropped = st$dropped,
                         state_cnt = st$cnt, state_sy = st$sy, state_touched = st$touched,
                         state_order = st$order, state_pos = st$pos, state_drawn = st$drawn,
                         state_th = st$th, state_polished_mu = st$polished_mu,
                         state_polished_row = st$polished_row,
                         state_polished_col = st$polished_col))
    if (run_key$method == "spg") {       # dense iterate: from the fit's own X
      spec[c("init_u", "init_w", "init_v")] <- list(X$u, X$d, X$v)
      spec$init_scale <- 1
    }
    note <- continued_note(iter)
  } else {
    d <- X$d
    if (sum(d) > radius) d <- d * (radius / sum(d))
    spec <- c(spec, list(init_u = X$u, init_w = as.double(d), init_v = X$v, init_scale = 1,
                         init_kept = length(d), init_dropped = 0L, warm_start = TRUE))
    note <- sprintf(paste("warm start from a fit of %d iterations with other data or",
                          "settings (its X%s)"), iter, if (same_center) " and effects" else "")
  }
  list(spec = spec, iter = iter, exact = exact, note = note)
}

# init with `box` or `lambda`: a previous such fit of a matrix of the same
# size. With the same data and settings (run_key) and its whole state, the
# run continues exactly: the dense iterate, its atoms as the steps left
# them, the atom count at the last compression, the epochs and f's
# estimator (vf: hsagcgm's SAG sums or shcgm's average; alpha: hsagcgm's
# table, one value per observation). Otherwise a warm start: the iterate
# (scaled into the ball if needed) with the estimator restarted; the
# schedules count from its iterations either way.
composite_start <- function(init, dims, run_key, radius, composite, cells) {
  if (!inherits(init, "complete_matrix_fit"))
    stop_arg("init", "must be NULL or a fit of complete_matrix()")
  if (!identical(suppressWarnings(as.integer(init$dims)), as.integer(dims)))
    stop_arg("init", "is a fit of a ", paste(init$dims, collapse = " x "),
             " matrix, but `Y` is ", dims[1], " x ", dims[2])
  st <- init$state
  if (is.null(st$X))
    stop_arg("init", "must be a fit with `box` or `lambda` (its `state` kept) to start a fit ",
             "with `", composite, "`")
  k <- length(st$w)
  ok <- is.double(st$X) && identical(dim(st$X), as.integer(dims)) && all_finite(st$X) &&
    is.double(st$u) && length(st$u) == dims[1] * k && is.double(st$v) &&
    length(st$v) == dims[2] * k && all_finite(c(st$u, st$v, st$w)) &&
    is.numeric(st$scale) && length(st$scale) == 1L && is.finite(st$scale) && st$scale > 0 &&
    is.numeric(st$k_compress) && length(st$k_compress) == 1L && st$k_compress >= 0 &&
    is.numeric(st$drawn) && length(st$drawn) == 1L && is.finite(st$drawn) && st$drawn >= 0
  if (!ok) stop_arg("init", "has an invalid `state` (altered by hand?)")
  exact <- identical(st$key, run_key) && !is.null(st$vf) &&
    (run_key$method == "shcgm" || !is.null(st$alpha))
  if (exact && !(is.double(st$vf) && length(st$vf) == cells && all_finite(st$vf) &&
                 (is.null(st$alpha) || (is.double(st$alpha) &&
                                        length(st$alpha) == run_key$data[1] &&
                                        all_finite(st$alpha)))))
    stop_arg("init", "has an invalid `state` (altered by hand?)")
  iter <- as.integer(init$iterations)
  spec <- list(iter_offset = iter, init_u = st$u, init_w = st$w, init_v = st$v,
               init_scale = st$scale, state_X = st$X,
               state_k_compress = as.integer(st$k_compress), state_drawn = st$drawn)
  if (exact) {
    spec <- c(spec, list(state_vf = st$vf, state_alpha = st$alpha))
  } else {
    nuc <- sum(init$solution$X$d)            # ||X||_* (thin SVD of the atoms)
    if (nuc > radius) {                      # into the ball: X and its atoms alike
      spec$state_X <- st$X * (radius / nuc)
      spec$init_scale <- st$scale * (radius / nuc)
    }
  }
  list(spec = spec, iter = iter, exact = exact, note = if (exact) continued_note(iter)
    else sprintf(paste("warm start from a fit of %d iterations with other data or settings,",
                       "or part of its state dropped (its X; the estimator restarted)"), iter))
}

# Observed entries as list(row, col, value, dims) with 1-based indices.
observed_entries <- function(Y, dims = NULL) {
  if (inherits(Y, "sparseMatrix")) {
    if (!methods::is(Y, "dMatrix") && !methods::is(Y, "lMatrix") && !methods::is(Y, "iMatrix"))
      stop_arg("Y", "must hold numeric values (a pattern matrix has none)")
    Y <- methods::as(methods::as(methods::as(Y, "CsparseMatrix"), "generalMatrix"), "dMatrix")
    Y <- methods::as(Y, "TsparseMatrix")
    out <- list(row = Y@i + 1L, col = Y@j + 1L, value = as.double(Y@x), dims = dim(Y))
  } else if (is.data.frame(Y)) {
    if (ncol(Y) < 3L) stop_arg("Y", "data frame must have columns row, col, value")
    cols <- if (all(c("row", "col", "value") %in% names(Y))) Y[c("row", "col", "value")]
            else Y[1:3]
    idx <- lapply(cols[1:2], function(v) {
      if (!is.numeric(v) || anyNA(v) || any(v < 1) || any(v != round(v)) ||
          any(v > .Machine$integer.max))
        stop_arg("Y", "row and col must be positive whole numbers up to ", .Machine$integer.max)
      as.integer(v)
    })
    if (!is.numeric(cols[[3]])) stop_arg("Y", "value column must be numeric")
    out <- list(row = idx[[1]], col = idx[[2]], value = as.double(cols[[3]]),
                dims = c(max(idx[[1]], 0L), max(idx[[2]], 0L)))
  } else if (is.matrix(Y) && (is.numeric(Y) || is.logical(Y))) {
    if (any(is.nan(Y))) stop_arg("Y", "contains NaN; mark missing entries with NA")
    w <- which(!is.na(Y), arr.ind = TRUE)
    out <- list(row = unname(w[, 1]), col = unname(w[, 2]),
                value = as.double(Y[w]), dims = dim(Y))
  } else {
    stop_arg("Y", "must be a dgCMatrix, a matrix with NA for missing entries, ",
             "or a data frame (row, col, value)")
  }
  if (length(out$value) == 0L) stop_arg("Y", "has no observed entries")
  if (any(!is.finite(out$value))) stop_arg("Y", "contains NaN or Inf among observed values")
  if (!is.null(dims)) {
    dims <- check_dims(dims)
    if (any(c(max(out$row), max(out$col)) > dims))
      stop_arg("dims", "is smaller than the largest row or column index in `Y`")
    out$dims <- as.integer(dims)
  }
  out$dims <- as.integer(out$dims)
  check_dims_memory(out, if (is.null(dims)) "Y" else "dims")
  out
}

# The sizes that dims imply are known before anything is allocated: every
# method keeps O(m + n) vectors per row and column (effects, index
# pointers, the Lanczos basis of the rank-one LMO, the factored iterate's
# columns), at least 32 doubles each. Beyond the memory available that is
# an error now, not a failed allocation of gigabytes later (row indices
# up to 1e9 for two ratings grew R to 15.8 GB before it failed).
check_dims_memory <- function(obs, arg) {
  need <- 8 * 32 * (as.double(obs$dims[1]) + obs$dims[2])
  avail <- available_memory()
  if (is.na(avail) || need <= avail) return(invisible(NULL))
  distinct <- c(length(unique(obs$row)), length(unique(obs$col)))
  sparse_ids <- obs$dims > 100 * distinct
  stop_arg(arg, "gives a ", obs$dims[1], " x ", obs$dims[2], " matrix, whose rows and ",
           "columns alone need at least ", format_bytes(need), " (32 doubles each) where ",
           format_bytes(avail), " are available",
           if (any(sparse_ids)) paste0(": the ", c("row", "column")[which(sparse_ids)[1]],
             " indices run up to ", obs$dims[which(sparse_ids)[1]], " for ",
             distinct[which(sparse_ids)[1]], " distinct values; number them 1, 2, ... ",
             "(e.g. match(id, unique(id)))"))
}

# bytes of memory available (Linux: MemAvailable of /proc/meminfo), NA if unknown
available_memory <- function() {
  info <- tryCatch(suppressWarnings(readLines("/proc/meminfo", n = 5L)),
                   error = function(e) character())
  line <- grep("^MemAvailable:", info, value = TRUE)
  if (length(line) != 1L) return(NA_real_)
  kb <- suppressWarnings(as.numeric(sub("^MemAvailable:\\s*([0-9]+).*$", "\\1", line)))
  if (is.na(kb)) NA_real_ else kb * 1024
}

format_bytes <- function(b) {
  units <- c("bytes", "KB", "MB", "GB", "TB")
  k <- max(0, min(length(units) - 1, floor(log(max(b, 1), 1024))))
  sprintf("%.3g %s", b / 1024^k, units[k + 1])
}

# Grand mean and row/column effects by least squares on the observed entries
# (Gauss-Seidel sweeps of the two-way additive model). Group sums are sparse
# incidence products, so a sweep costs O(N).
center_effects <- function(obs, type, sweeps = 100L) {
  m <- obs$dims[1]; n <- obs$dims[2]; N <- length(obs$value)
  eff <- list(type = type, mean = 0, row = numeric(m), col = numeric(n))
  if (type == "none") return(eff)
  eff$mean <- mean(obs$value)
  if (type == "mean") return(eff)
  r <- obs$value - eff$mean
  by_row <- Matrix::sparseMatrix(i = obs$row, j = seq_len(N), x = 1, dims = c(m, N))
  by_col <- Matrix::sparseMatrix(i = obs$col, j = seq_len(N), x = 1, dims = c(n, N))
  nr <- pmax(Matrix::rowSums(by_row), 1); nc <- pmax(Matrix::rowSums(by_col), 1)
  for (s in seq_len(sweeps)) {
    a_old <- eff$row
    eff$row <- as.vector(by_row %*% (r - eff$col[obs$col])) / nr
    eff$col <- as.vector(by_col %*% (r - eff$row[obs$row])) / nc
    if (max(abs(eff$row - a_old)) < 1e-10 * (1 + max(abs(eff$row)))) break
  }
  eff
}

# Lanczos tolerance of the rank-one LMO inside the iterations (the trace's
# duality gap always uses 1e-10). Frank-Wolfe needs only an approximate LMO;
# inst/bench/lmo.R measures the trade-off. Advanced users may set
# options(stochcg.lmo_tol = ...).
lmo_tolerance <- function() {
  tol <- getOption("stochcg.lmo_tol", 1e-4)
  if (!is.numeric(tol) || length(tol) != 1L || !(tol > 0 && tol < 1))
    stop("option `stochcg.lmo_tol` must be a number in (0, 1)", call. = FALSE)
  as.double(tol)
}

# which nonsmooth term g the problem has: "none", "box" or "lambda"
check_composite <- function(box, lambda) {
  if (!is.null(box)) {
    if (!is.numeric(box) || length(box) != 2L || anyNA(box) || !all(is.finite(box)))
      stop_arg("box", "must be c(lo, hi): two finite numbers")
    if (!(box[1] < box[2])) stop_arg("box", "must be c(lo, hi) with lo < hi")
  }
  if (!is.null(lambda)) {
    check_number(lambda, "lambda", min = 0)
    if (!is.null(box))
      stop_arg("lambda", "cannot be combined with `box`: give one of them")
  }
  if (!is.null(box)) "box" else if (!is.null(lambda)) "lambda" else "none"
}

# beta0 of the homotopy methods. "auto": N, the number of observations, for
# hsagcgm; 20 N, the paper's beta0 = 10 for its unscaled loss, for shcgm
# (its smoothing starts at beta0 / sqrt(8) and the grid check wants the
# larger value); see ?complete_matrix, "Box constraints and l1 penalty".
completion_beta0 <- function(beta0, N, method) {
  if (identical(beta0, "auto")) return(as.double(if (method == "shcgm") 20 * N else N))
  if (!is.numeric(beta0) || length(beta0) != 1L || !is.finite(beta0) || beta0 <= 0)
    stop_arg("beta0", "must be \"auto\" or a positive number")
  as.double(beta0)
}

#' Fitted values and residuals of a matrix completion fit
#'
#' At the observed entries (in the order of `object$obs`), as for [glm()]:
#' `fitted()` gives the mean of the family (`type = "response"`, default:
#' identity, `exp` or `plogis` of the linear predictor) or the linear
#' predictor \eqn{\mu + a_i + b_j + X_{ij}}{mu + a_i + b_j + X_ij}
#' (`type = "link"`), effects included; `residuals()` gives \eqn{y -}{y -}
#' the fitted mean (`"response"`) or that divided by the standard deviation
#' of the family at the fitted mean (`"pearson"`: 1, \eqn{\sqrt{\hat
#' y}}{sqrt(fitted)}, \eqn{\sqrt{\hat y (1 - \hat y)}}{sqrt(fitted (1 -
#' fitted))}). Values at other entries: [predict()][predict.complete_matrix_fit()].
#'
#' @param object A `complete_matrix_fit` (see [cg_fit]).
#' @param type See above.
#' @param ... Unused.
#' @returns A numeric vector, one value per observed entry.
#' @examples
#' set.seed(2)
#' obs <- data.frame(row = rep(1:20, each = 15), col = rep(1:15, 20))
#' obs$value <- rbinom(300, 1, plogis(0.1 * obs$row - 0.1 * obs$col))
#' fit <- complete_matrix(obs, radius = 2, family = "binomial", center = "both",
#'                        method = "fw", control = cg_control(max_iter = 50))
#' head(fitted(fit))                  # probabilities
#' head(fitted(fit, type = "link"))   # log-odds
#' head(residuals(fit))
#' @seealso [predict.complete_matrix_fit()], [cg_fit].
#' @method fitted complete_matrix_fit
#' @export
fitted.complete_matrix_fit <- function(object, type = c("response", "link"), ...) {
  type <- match_choice(type, c("response", "link"), "type")
  eta <- object$linear.predictors
  if (is.null(eta)) stop("this complete_matrix fit stores no fitted values.", call. = FALSE)
  if (type == "link") eta else family_linkinv(object$family)(eta)
}

#' @rdname fitted.complete_matrix_fit
#' @importFrom stats residuals
#' @method residuals complete_matrix_fit
#' @export
residuals.complete_matrix_fit <- function(object, type = c("response", "pearson"), ...) {
  type <- match_choice(type, c("response", "pearson"), "type")
  y <- object$obs$value
  if (is.null(y)) stop("this complete_matrix fit stores no observed values.", call. = FALSE)
  mu <- fitted.complete_matrix_fit(object, "response")
  r <- y - mu
  if (type == "response") return(r)
  r / sqrt(switch(object$family %||% "gaussian", gaussian = 1, poisson = mu,
                  binomial = mu * (1 - mu)))
}

# Projected-gradient steps on the core of the thin SVD after each "fw"
# step (the subspace refit; see ?complete_matrix, "Subspace refit").
# options(stochcg.refit_steps = 0) gives plain Frank-Wolfe with line search.
refit_steps <- function() {
  s <- getOption("stochcg.refit_steps", 10L)
  if (!is.numeric(s) || length(s) != 1L || is.na(s) || s < 0 || s != round(s))
    stop("option `stochcg.refit_steps` must be a whole number >= 0", call. = FALSE)
  as.integer(s)
}

# Singular pairs of the gradient per "fw" iteration (the top one is the
# LMO's; the others widen the refit's subspace). 8 reached softImpute's
# held-out RMSE in half the iterations of 4 on NCI60
# (inst/bench/completion_tuning.R), at about the same Lanczos cost (its
# Krylov space has 20 vectors either way). The C code widens by more at
# high rank: max(q, rank / 4) pairs, up to min(4 q, min(m, n) / 4) (see
# ?complete_matrix, "Subspace refit"). options(stochcg.refit_block = 1)
# widens by nothing.
refit_block <- function() {
  q <- getOption("stochcg.refit_block", 8L)
  if (!is.numeric(q) || length(q) != 1L || is.na(q) || q < 1 || q != round(q))
    stop("option `stochcg.refit_block` must be a whole number >= 1", call. = FALSE)
  as.integer(q)
}

# The solver settings of a completion spec (the data's fields are added by
# the caller): shared by ratings in memory and ratings read from disk
completion_settings <- function(method, step, K, step_size, family, radius, control,
                                max_rank, batch_size, N, sampling) {
  list(problem = "completion", method = method, step = step,
       K = as.integer(K), eta = if (is.null(step_size)) -1 else step_size,
       family = match(family, c("gaussian", "poisson", "binomial")) - 1L,
       radius = as.double(radius),
       lmo_tol = lmo_tolerance(), max_iter = as.integer(control$max_iter),
       refit = if (method != "fw") 0L
               else max(refit_steps(), if (is.null(max_rank)) 0L else 1L),
       refit_block = refit_block(),
       max_rank = as.integer(if (is.null(max_rank)) 0L else max_rank),
       batch_size = as.integer(min(batch_size, N)),
       sampling = if (method == "fw") 1L else sampling_code(sampling))
}

# The C result's factors as the fit's solution (a thin SVD as returned --
# compressing again would cost as much as an SVD of the iterate -- unless
# its compression failed), its rank and the dropped atoms
completion_solution <- function(fit) {
  sol <- fit$solution
  fit$solution <- list(X = if (isTRUE(sol$svd_form)) new_lowrank(sol$u, sol$w, sol$v)
                           else lowrank_compress(sol$u, sol$w, sol$v))
  fit$rank <- length(fit$solution$X$d)
  fit$dropped <- sol$dropped
  fit
}
