# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # The frontier: how far does a one-shot readout go?
#
# The paper {cite}`silva2026greenelm` closes with an open question: "Investigating the limits of the
# $Accuracy \propto \log(d)$ relationship. If dimensionality is cheap, can we reach state-of-the-art
# performance by expanding into a million-dimensional hidden space?" This chapter answers it on
# two CPU cores (some of its accuracy-against-seconds points also measured on one GPU, where §1's limit with a held-out ridge was computed), in two steps: the paper's own map made wider, up to its $d \to \infty$ limit; then
# a frozen map built for images, under the same closed-form readout, with no backpropagation and no
# pretrained weights.
#
# ```{admonition} The protocols: how every number below was chosen
# :class: note
# Two protocols choose this chapter's image models, per dataset and seed, on the training images alone.
#
# **The earlier protocol** (its results kept as they were, in their own section): the training images
# are split (seeded) into fit rows and validation rows; every candidate of the grid in
# `params/frontier_protocol.yml` (variant: plain ridge readout, the paper's map at a finite width on the
# image features, or its d → ∞ limit; patch count K, patch size, pooling, the ReLU split's threshold, the
# whitening ε, mirror images, the ridge) is fitted on the fit rows and scored on the validation rows, and
# the best validation accuracy is the pick (a tie goes to the cheaper candidate). That grid was fixed
# before any of its runs, but {glue:text}`grid_history`: its families (the whitened random patches, the
# d → ∞ readout, mirror images) were compared on test-set accuracy in this chapter's earlier frontier
# search. That protocol kept the test set out of every choice within its grid, not out of the choice of
# the grid itself.
#
# **The halving protocol** (successive halving {cite}`jamieson2016nonstochastic,li2018hyperband`): every
# candidate of the grid in `params/frontier_halving.yml`, declared from published settings before any of
# its runs (each range with its source in its section's table, the values no source gives named as this
# book's own), is fitted on a small seeded split of the training images; the best third is kept on a
# split three times larger, and so on to the last rung, whose best is the pick. Every rung's validation
# accuracies and seconds are recorded.
#
# In both, the pick is refitted once on all training images and the test set is scored once, for that
# pick. The test labels are reachable only through one object (`TestGate`) that records every read in a
# ledger (`test-reads.json`, one per protocol, in `book/frontier_protocol/` and `book/frontier_halving/`)
# and refuses a second searched configuration per dataset and seed. Configurations declared in advance
# as fixed measurements (the paper's own map on the pixels, its limit, the gradient-trained opponents, the points of
# accuracy against seconds) read the test set as such and are never picked among. Each protocol's seeds
# are declared in its parameters before they run (how many ran of how many declared: §2's and §3's
# tables); each seed's seconds count every selection fit (every rung), the refit and the scoring, on a
# two-core host (named in its record where the record has one).
# ```

# %% tags=["parameters"]
profile = "smoke"
seed = 0  # part 1: the seed of the paper's map's fixed measurements (W, b and the LOO rows)
ultra_dataset = "mnist"  # part 1: the dataset of the paper's map widened
ultra_goal = 99.5  # part 1's bar for "state of the art" on MNIST (%), declared with the question
records_dir = "book/frontier_protocol"  # the earlier protocol's, the fixed measurements' and the opponents' records
protocol_params = "params/frontier_protocol.yml"  # the earlier protocol's grid and seeds
halving_dir = "book/frontier_halving"  # the halving protocol's records and its ledger
halving_params = "params/frontier_halving.yml"  # its grid, the grid's sources and each dataset's limit
budget_dir = "book/frontier_budget"  # the accuracy-seconds points' records and their ledger
budget_params = "params/frontier_budget.yml"  # the points, declared before any of them runs
gpu_budget_dir = "book/frontier_budget_gpu"  # the same points measured on one GPU: records and ledger

# %%
import matplotlib.pyplot as plt
from IPython.display import Markdown, display

from greenelm_book.bench import QUIET_LOAD, chapter_machine, machine_text
from greenelm_book.chapters import frontier as fc
from greenelm_book.chapters import frontier_sections as fs
from greenelm_book.report import glue, set_style, show_table
from greenelm_book.store.results import ChapterResults

store = ChapterResults("frontier", profile)
set_style()
seeds = fc.planned_seeds(protocol_params)
records = fc.load_records(records_dir, budget_dir)   # opponents at their own schedule: their records, then the fronts' last points
protocol = fc.record_protocol(store, records, seeds)   # each dataset's seeds and opponents, recorded
halving = fs.record_halving(store, fs.halving_records(halving_dir), fs.load_halving_params(halving_params))
glue("grid_history", fc.grid_history())

# %% [markdown]
# ## 1. The paper's map in the ultra-wide regime
#
# The {doc}`scaling-law <scaling>` chapter fitted the paper's map, $\mathrm{relu}(XW + b)$ with
# $W, b \sim \mathcal N(0, 1)$, at every width up to its widest, twice: at the paper's fixed λ = 10⁻³ and
# with λ chosen by exact leave-one-out (LOO) on training rows; the LOO values are read from there. One
# wider model of
# {glue:text}`ultra_name` goes further, d = {glue:text}`ultra_text` ({glue:text}`ultra_minutes`,
# {glue:text}`ultra_peak` GB at peak): float32 features and a float32 Gram, a float64 Cholesky solve per
# λ, λ searched from the scaling chapter's choice at its widest width, ×10 either side, until LOO's
# choice is interior. Its $d \to \infty$ limit is kernel ridge with the degree-1 arc-cosine kernel
# {cite}`cho2009kernel` on all training images (`greenelm.KernelLimitClassifier`, float32, a vanishing
# ridge; {glue:text}`limit_minutes`, {glue:text}`limit_peak` GB at peak). Both are fixed measurements
# declared before they ran.

# %% tags=["remove-cell"]
ultra = fc.ultra_wide_part(store, ultra_dataset, records_dir, seed=seed)
for name, value in fc.ultra_intro_glues(ultra).items():
    glue(name, value)

# %%
fig = fc.plot_ultra_wide(ultra)
plt.show()

# %% [markdown]
# At d = {glue:text}`d_ultra` the paper's map reaches {glue:text}`acc_ultra:.2f` % (λ = {glue:text}`lam_ultra`
# by LOO, interior: {glue:text}`ultra_interior`). The ln d line fitted on the scaling chapter's accuracies at
# d = {glue:text}`fit_widths_text` (λ by LOO at each width; the scaling chapter fits its line at the
# paper's fixed λ, so its predictions differ) {glue:text}`ln_words` it by
# {glue:text}`ln_error_abs:.2f` points; the saturating law
# {glue:text}`sat_words` it by {glue:text}`sat_error_abs:.2f` points. {glue:text}`held_out_sentence`
# The limit itself, {glue:text}`kernel_acc:.2f` %, is {glue:text}`gap_phrase`:
# {glue:text}`limit_sentence` {glue:text}`limit_ridge_sentence` {glue:text}`patches_bar_sentence`

# %% tags=["remove-cell"]
for name, value in fc.ultra_glues(ultra, ultra_goal).items():
    glue(name, value)
glue("held_out_sentence", fc.held_out_sentence(
    ultra, store.get("scaling", f"{ultra_dataset}/green-elm/unit/cholesky/ln-d-fit/held-out-error")))
fc.answer_ultra_wide(store, ultra, ultra_goal)
glue("patches_bar_sentence", fc.patches_bar_sentence(store, ultra_goal))

# %% [markdown]
# ## 2. A frozen map built for images, under the earlier protocol
#
# This section holds **the earlier protocol's results, kept as they were**: every candidate of its grid
# paid the full selection fit, and {glue:text}`grid_history` (the protocol note at the top of the page
# tells how). The halving protocol, on a grid declared in advance from published settings and the book's own
# additions, stands beside it in the
# next section.
#
# `greenelm.RandomPatchFeatures` draws, with the seed, patches of p × p pixels from the training
# images, whitens them (ZCA, ε) and uses them as filters at every position; each response is split
# into $\max(0, z - t)$ and $\max(0, -z - t)$ and mean-pooled over a pool × pool grid, giving
# $2 \cdot K \cdot \mathrm{pool}^2$ features {cite}`coates2011analysis,thiry2021unreasonable`. On these
# features the grid holds three readouts: the plain ridge readout, the paper's map at a finite width
# d, and the paper's map in its d → ∞ limit (`greenelm.KernelLimitClassifier` on the patch features,
# its ridge chosen on held-out rows of the fit rows). The earlier protocol's headline is the pick's test
# accuracy, mean ± sd over the seeds recorded:

# %%
show_table(fc.headline_table(protocol, seeds))

# %% tags=["remove-cell"]
glue("protocol_sentence", fc.protocol_sentence(protocol, seeds))
glue("gains_text", fc.gains_text(records, protocol))

# %% [markdown]
# {glue:text}`protocol_sentence` Each seed's pick, with its validation accuracy and its one test read:

# %% tags=["hide-input"]
show_table(fc.picks_table(protocol), integers=["seed"])

# %% [markdown]
# Each dataset's grid, in **validation** accuracy (mean ± sd over the seeds recorded; no test score),
# with each candidate's selection-fit seconds and how many seeds picked it:

# %% tags=["hide-input"]
for dataset in protocol:
    display(Markdown(f"**{fc.DATASET_NAMES[dataset]}**"))
    display(show_table(fc.grid_view(records, dataset), integers=["picked"]))

# %% [markdown]
# Is a variant better than the plain ridge readout? The book's gain rule (a mean paired difference of
# the seeds' best validation accuracies beyond twice their spread, and beyond the floor where the rule
# sets one, at least three seeds; a side that is the best of more candidates than the other, on the rows
# that judge it, is credited no gain, its best being an upper bound) says:
# {glue:text}`gains_text`
#
# ## 3. The same maps under successive halving, on a grid declared in advance
#
# The halving protocol {cite}`jamieson2016nonstochastic,li2018hyperband` asks the previous section's
# question under a limit of seconds per seed (each dataset's limit in its table): every candidate is
# fitted on a small seeded split of the training images, the best third is kept on a split three times
# larger, and so on to the last rung, whose best is the pick; the pick is refitted once on all training
# images and the test set is scored once, for it. Its grid is declared in `params/frontier_halving.yml`
# from published settings. Each setting, its values in the grid, what each source used, and the values
# no source gives, named as this book's own:

# %% tags=["remove-cell"]
glue("grid_sources", Markdown(fs.sources_table(halving_params)))
glue("grid_size", fs.grid_size_sentence(halving_params))
glue("halving_sentence", fs.halving_sentence(halving, protocol))
glue("quiet_load", f"{QUIET_LOAD:g}")

# %% [markdown]
# ```{glue:md} grid_sources
# :format: myst
# ```
#
# {glue:text}`grid_size`
#
# The earlier protocol's grid has another history: {glue:text}`grid_history`, in this chapter's earlier
# frontier search, which compared its families on test-set accuracy before that protocol existed.
#
# {glue:text}`halving_sentence` The seeds past the first three were declared later, after those had run
# and before any run of their own, for §5, which needs three seeds per dataset whose accuracy-seconds
# points were each measured whole on one machine instance; each needs its own pick, so the protocol runs
# for them too. Per dataset: the two protocols side by side (the earlier one's results
# as they were); each seed's pick under the halving protocol, with its whole protocol's seconds against
# the dataset's limit (judged under the book's quiet rule: a seed's seconds count only if it started with
# the 1- and the 5-minute load averages both at most {glue:text}`quiet_load`); every rung's rows, candidates
# and survivors, in validation accuracy only; and the test reads its ledger lists.

# %% tags=["hide-input"]
for dataset in halving:
    display(Markdown(f"**{fc.DATASET_NAMES[dataset]}**"))
    display(show_table(fs.protocols_table(protocol, halving, dataset)))
    if halving[dataset]["runs"]:
        display(show_table(fs.halving_seeds_table(halving, dataset), integers=["seed"]))
        display(show_table(fs.rungs_table(halving, dataset), integers=["rung", "seeds"]))
    display(Markdown(fs.ledger_sentence(halving_dir, halving, dataset)))

# %% [markdown]
# ## 4. Against gradient-trained networks and the published anchors
#
# The opponent is a published fast-training recipe that runs in torch on the CPU, trained on
# all training images on two CPU cores (where its seconds were measured: under the table), each to its
# own schedule (airbench94 is {cite}`jordan2024airbench`). Each recipe's run is a fixed measurement, declared before it ran;
# a seed's run to the recipe's own schedule is its record here or, where it has none, the same declared
# measurement made as that seed's last point of the recipe's accuracy-seconds front (§5). What each
# trains with, read from its recipe: {glue:text}`opponent_recipes` Each protocol's pick is set against them,
# the halving protocol's beside the earlier one's, paired by seed.
#
# Every accuracy in the table carries, beside its spread over seeds, its test-set sampling error (one
# standard error of an accuracy measured on the dataset's test images), and the book's gain rule
# below counts a difference only beyond both.

# %%
show_table(fc.opponents_view(protocol, halving))

# %% [markdown]
# {glue:text}`opponents_sentence`
#
# The published anchors, each with what it trains, its size and its augmentation, beside this
# book's rows in the same columns. Their settings differ from ours (other encoders, heads, feature
# counts, hardware), so they are context, not a verdict. The book's kernel limit is kernel ridge
# over all training images: its size is an N × N kernel, not a feature count.

# %% tags=["remove-cell"]
glue("opponents_sentence", fc.opponents_sentence(protocol, halving))
glue("opponent_recipes", fc.opponent_recipes_text(protocol))

# %%
show_table(fc.anchor_table(protocol, halving))

# %% [markdown]
# Compute, as each source states it, and this book's seconds on two CPU cores:

# %% tags=["remove-input"]
display(Markdown("\n".join(f"- {line}" for line in fc.anchor_notes(protocol, halving))))

# %% [markdown]
# Sources: {cite}`mcdonnell2015fast`, {cite}`mcdonnell2015enhanced`, {cite}`coates2011analysis`,
# {cite}`thiry2021unreasonable`, {cite}`recht2018cifar`, {cite}`shankar2020neural`,
# {cite}`chen2019cknpytorch`, {cite}`page2018how`, {cite}`jordan2024airbench`.
#
# ## 5. Accuracy against seconds
#
# The design, declared in `params/frontier_budget.yml` before any of its points ran: one figure per
# dataset, test accuracy against training seconds on two CPU cores; a one-shot front (the halving
# protocol's pick refitted on growing training-set sizes and K, K capped at each seed's pick's own; its
# last point is the pick's refit on every training row, read from the protocol's record where that record
# names the seed's machine, else measured again on it), the gradient-trained recipe's front
# (the dataset's opponent at shortened schedules and at its own; for MNIST and Fashion-MNIST the PyTorch
# examples' CNN, trained with Adadelta), and the whole halving protocol (every rung, the refit, the
# scoring) as its own marker. The one-shot seconds are each refit's alone; the answer is given again with
# the choice of the pick (that seed's rungs) added to each one-shot point's seconds. Each point reads the test set once, through its gate; bars are the
# spread over seeds and, pale, the test-set sampling error. A dataset gets its answer by the book's
# gain rule only once three seeds have every point of both fronts measured, each seed's points on
# one machine its records name (a CPU point's record names its processor model, core count and the
# machine's instance, the boot id of the running virtual machine; records written before the instance was recorded name the model and
# cores only, which virtual machines of different speeds share, so their seeds are not compared; each point
# ran alone under the run lock, its loads recorded). Once a dataset is answered, its figure and its answer
# read the compared seeds only; a seed left out is named under the figure, and its points stay in the
# results store.

# %% tags=["hide-input"]
budget = fs.load_budget_params(budget_params)
fronts_by_dataset = {d: fs.budget_fronts(d, budget_dir, budget_params, halving_dir) for d in budget["datasets"]}
display(Markdown(f"{fs.fronts_progress(fronts_by_dataset, budget)} How the two fronts are compared: "
                 f"{fs.CROSSING_RULE}."))
for dataset, fronts in fronts_by_dataset.items():
    fs.record_fronts(store, dataset, fronts, budget_dir)
    display(Markdown(f"**{fc.DATASET_NAMES[dataset]}**"))
    fig = fs.fronts_figure(dataset, fronts)
    if fig is not None:
        plt.show()
    display(Markdown(fs.fronts_text(dataset, fronts, budget)))

# %% [markdown]
# ### The same points on one GPU
#
# The declared points again, each run on one GPU (`--device cuda`): the one-shot model's patch features
# (`RandomPatchFeatures(device="cuda")`) and kernel (`KernelLimitClassifier(device="cuda")`) and the
# recipe's training there, each point's test set read once through its own gate
# (`book/frontier_budget_gpu/test-reads.json`); the recipe's own schedule and the pick's own refit are
# measured there too, not read from the CPU runs. The GPU's host machine applies the mirror view, moves
# the rows to the GPU and the features back, and standardises them, inside the timed seconds. The whole protocol did not run on the GPU, so it has
# no marker; as on the CPU, the one-shot seconds are the refits' alone, the pick's search (made on a CPU)
# not counted in them. GPU seconds are compared only with GPU seconds, never with the CPU's, and under the
# CPU's rule: a seed is compared only where every point names one machine instance, which the GPU points
# measured so far do not (they name the GPU and its host's model and cores). The quiet rule
# reads a CPU's load: on the GPU each invocation of the command ran alone on its machine, its host's loads
# recorded, not judged. The CPU
# fronts are the book's answer to the paper's thesis on the machines it ran on (§5's answers above); the
# GPU's, once a dataset is answered there, a second answer, for a reader with a GPU.

# %% tags=["hide-input"]
gpu_fronts = {d: fs.budget_fronts(d, gpu_budget_dir, budget_params, halving_dir, on_gpu=True)
              for d in budget["datasets"]}
display(Markdown(f"{fs.gpu_fronts_note(gpu_fronts, gpu_budget_dir, len(budget['seeds']))} {fs.gpu_refit_agreement(gpu_fronts, halving_dir)}"))
for dataset, fronts in gpu_fronts.items():
    if not (fronts["one_shot"] or fronts["sgd"]):
        continue
    fs.record_fronts(store, dataset, fronts, gpu_budget_dir)
    display(Markdown(f"**{fc.DATASET_NAMES[dataset]}, on one GPU**"))
    fig = fs.fronts_figure(dataset, fronts)
    plt.show()
    display(Markdown(fs.fronts_text(dataset, fronts, budget)))

# %% [markdown]
# ## What limited us
#
# The machine this page was executed on: {glue:text}`frontier_machine`. The runs whose seconds are shown
# above were measured where their records say: the halving seeds' machines are in their tables, the points'
# under their fronts, and a record that names none is shown as such. The widest Green-ELM here keeps a float32 Gram (4·d² bytes: 4 GB at
# d = 32,000) and a float64 factor (8·d²: 8 GB); a million-dimensional hidden space would need an
# 8 TB float64 Gram, and its limit is computed above without one. {glue:text}`limits_text`

# %% tags=["remove-cell"]
glue("limits_text", fc.limits_text(protocol, ultra))
glue("frontier_machine", machine_text(chapter_machine()))
