"""The paper's claims (greenelm_book.paper.CLAIMS): well formed, located in the paper's source,
equal to the constants they cite, and covering every chapter of the book."""

from __future__ import annotations

import math
import re
from collections import Counter
from pathlib import Path

import pytest

from greenelm_book import paper
from greenelm_book.paper import CHAPTERS, CLAIMS, KINDS, SECTIONS, resolve_source

ROOT = Path(__file__).resolve().parent.parent
TEX_PATH = Path("/work/shared/paper/green-elm.tex")
NUMERIC = {"accuracy", "time", "ratio", "difference", "parameter"}
UNITS = {"accuracy": {"%"}, "time": {"s"}, "ratio": {"×"}, "difference": {"points"}}
#: Exponents read off O-notation (O(Nd²) → 2 in d): no digit of theirs is printed as such.
NOT_PRINTED = {c.id for c in CLAIMS if c.id.startswith("complexity_")}
#: The paper's macros, expanded so that titles and captions read as printed.
MACROS = {r"{\name}": "Green-ELM", r"\name{}": "Green-ELM", r"{\mhat}": "One-Shot Linear Matrix Solver",
          r"{\galactic}": "High-Dimensional", r"\-": ""}

REQUIRED = {
    # every cell of Tables I-VI
    "table1_mnist_sgd_accuracy", "table1_mnist_sgd_seconds", "table1_mnist_pinv_d2000_accuracy",
    "table1_mnist_pinv_d2000_seconds", "table1_fashion_sgd_accuracy", "table1_fashion_sgd_seconds",
    *(f"table1_fashion_{s}_d{d}_{w}" for s, d in (("pinv", 500), ("pinv", 1000), ("pinv", 4000), ("lu", 4000))
      for w in ("accuracy", "seconds")),
    *(f"table2_{s}_{w}" for s in ("sgd", "pinv_d4000", "lud_d4000", "cholesky_d4000") for w in ("accuracy", "seconds")),
    "table3_alpha", "table3_beta", "table3_c_mnist", "table3_c_fashion", "table3_c_cifar10",
    *(f"table4_{s}_d2000_{w}" for s in ("pinv", "lu", "cholesky") for w in ("seconds", "accuracy")),
    *(f"table5_{r}_{w}" for r in ("sgd", "oracle", "streaming_cpu", "streaming_cuda") for w in ("latency", "accuracy")),
    *(f"table6_{r}_{w}" for r in ("sgd_mlp", "elm_raw", "sgd_conv", "elm_conv")
      for w in ("accuracy", "train_seconds", "total_seconds")), "table6_elm_conv_feature_seconds",
    # the scaling figure and its baselines, Table III's model and the hypothesis
    *(f"fig_scaling_{n}_d{d}_accuracy" for n in ("mnist", "fashion", "cifar10") for d in (500, 1000, 2000, 4000)),
    "fig_scaling_mnist_sgd_baseline_accuracy", "fig_scaling_fashion_sgd_baseline_accuracy",
    "fig_scaling_cifar10_cnn_baseline_accuracy", "accuracy_near_logarithmic_in_d", "scaling_hypothesis_gamma",
    "scaling_model_complexity_index", "algorithm2_gives_table3",
    # the abstract, the speed-ups and the gains
    "abstract_mnist_d4000_accuracy", "abstract_fashion_accuracy", "abstract_mnist_d2000_accuracy",
    "abstract_mnist_d2000_seconds", "speedup_vs_sgd_mnist_d2000", "cifar10_raw_speedup_vs_sgd",
    "pinv_over_cholesky_speedup_d4000", "mnist_d4000_beats_sgd_by_1_26", "gain_d500_to_d2000", "gain_d2000_to_d4000",
    # rotation, entropy and the MNIST Sea
    "rotation_benchmark_angle", "rotation_advantage_15deg", "rotation_clean_comparable", "rotation_higher_across_range",
    "weights_dense", "high_entropy_all_regimes", "mnist_sea_stars_entropy", "mnist_sea_stars_geometry",
    "mnist_sea_distributed_over_sgd", "sea_ones_low_entropy_island", "sea_stars_apart_from_digits",
    # complexity, solvers, streaming, storage, energy, Table VI's totals, future work
    *(f"complexity_{p}_exponent_{a}" for p in ("features", "gram", "solve") for a in ("n", "d")),
    "table4_stability_ranking", "decomposition_slight_accuracy_degradation", "streaming_rls_exact",
    "streaming_update_cost_b3", "streaming_float64_mitigates_drift", "streaming_sgd_catastrophic_forgetting",
    "streaming_no_sample_retention", "w1_from_seed_storage", "energy_per_prediction_reduced", "energy_not_measured",
    "elm_conv_total_time_parity", "ultra_wide_million_dimensions",
}


@pytest.fixture(scope="module")
def tex() -> str:
    if not TEX_PATH.exists():
        pytest.skip(f"the paper's source {TEX_PATH} is not on this machine: locations are not checked")
    text = TEX_PATH.read_text(encoding="utf-8")
    for macro, expansion in MACROS.items():
        text = text.replace(macro, expansion)
    return text


def _block(tex: str, start: int, begin: str, end: str) -> str:
    """The text from the ``begin`` at or before ``start`` to the next ``end``."""
    first = tex.rfind(begin, 0, start + len(begin))
    last = tex.find(end, start)
    return tex[first:last] if first >= 0 and last >= 0 else ""


def _numbered(tex: str, env: str, number: int) -> str:
    starts = [m.start() for m in re.finditer(rf"\\begin\{{{env}\}}", tex)]
    return _block(tex, starts[number - 1], rf"\begin{{{env}}}", rf"\end{{{env}}}") if number <= len(starts) else ""


def locate(tex: str, where: str) -> str:
    """The source text of one location named in a claim's ``where`` ('' when it is not found)."""
    if where == "Abstract":
        return _block(tex, tex.find(r"\begin{abstract}"), r"\begin{abstract}", r"\end{abstract}")
    if m := re.fullmatch(r"Table (I|II|III|IV|V|VI)(?: \(note †\))?", where):
        label = tex.find(rf"\label{{{paper.TABLE_LABELS[m.group(1)]}}}")
        return _block(tex, label, r"\begin{table", r"\end{table") if label >= 0 else ""
    if m := re.fullmatch(r'Fig\. "(.+)"', where):
        starts = (s.start() for s in re.finditer(r"\\begin\{figure", tex))
        blocks = (_block(tex, start, r"\begin{figure", r"\end{figure") for start in starts)
        return next((b for b in blocks if m.group(1) in b[b.find(r"\caption"):]), "")
    if m := re.fullmatch(r'Sec\. "(.+)"', where):
        title = re.search(r"\\(?:sub)*section\*?\{" + re.escape(m.group(1)), tex)
        if title is None:
            return ""
        following = re.compile(r"\\(?:sub)*section\*?\{").search(tex, title.end())
        return tex[title.start():following.start() if following else len(tex)]
    if m := re.fullmatch(r'(Remark|Proof) "(.+)"', where):
        env = m.group(1).lower()
        head = re.search(rf"\\begin\{{{env}\}}\[(?:\\textbf\{{)?" + re.escape(m.group(2)), tex)
        return _block(tex, head.start(), rf"\begin{{{env}}}", rf"\end{{{env}}}") if head else ""
    if m := re.fullmatch(r"(Listing|Algorithm) (\d)", where):
        return _numbered(tex, {"Listing": "lstlisting", "Algorithm": "algorithm"}[m.group(1)], int(m.group(2)))
    raise ValueError(f"where {where!r}: not a location this test can read")


def printed_forms(value: float) -> set[str]:
    """The ways the paper may print ``value`` (97.15, 1.50, 2.4000, 7, 15, …)."""
    return {f"{value:g}", f"{value:.1f}", f"{value:.2f}", f"{value:.4f}"}


def test_ids_unique_and_snake_case():
    counts = Counter(c.id for c in CLAIMS)
    assert [i for i, n in counts.items() if n > 1] == []
    assert [c.id for c in CLAIMS if not re.fullmatch(r"[a-z][a-z0-9]*(_[a-z0-9]+)*", c.id)] == []


def test_required_claims_present():
    assert REQUIRED - {c.id for c in CLAIMS} == set()


@pytest.mark.parametrize("claim", CLAIMS, ids=lambda c: c.id)
def test_fields(claim):
    assert claim.kind in KINDS and claim.chapter in CHAPTERS and claim.section in SECTIONS
    assert claim.statement.strip() and claim.where.strip()
    if claim.kind == "qualitative":
        assert claim.value is None and claim.unit == ""
    else:
        assert isinstance(claim.value, float) and math.isfinite(claim.value)
        assert claim.unit in UNITS.get(claim.kind, {claim.unit}), f"{claim.kind} in {claim.unit!r}"
        assert claim.unit or claim.kind == "parameter"   # only a dimensionless parameter has no unit


@pytest.mark.parametrize("claim", [c for c in CLAIMS if c.source], ids=lambda c: c.id)
def test_value_equals_cited_constant(claim):
    cited = resolve_source(claim.source)
    if claim.kind == "qualitative":
        assert cited is True or isinstance(cited, str), f"{claim.source} = {cited!r} does not assert the claim"
    else:
        assert claim.value == pytest.approx(float(cited), abs=0, rel=1e-12)


def test_every_cell_of_the_constant_tables_is_a_claim():
    cited = {c.source for c in CLAIMS}
    cells = (
        [f"TABLE_I[dataset={r.dataset}, solver={r.solver}" + (f", n_hidden={r.n_hidden}]" if r.solver != "sgd" else "]")
         + f".{f}" for r in paper.TABLE_I.itertuples() for f in ("accuracy", "train_seconds")]
        + [f"FIG_SCALING[dataset={r.dataset}, n_hidden={r.n_hidden}].accuracy" for r in paper.FIG_SCALING.itertuples()]
        + [f'FIG_SCALING_BASELINES["{k}"]' for k in paper.FIG_SCALING_BASELINES]
        + [f"TABLE_II[solver={s}].{f}" for s in paper.TABLE_II.solver for f in ("accuracy", "seconds")]
        + [f'TABLE_III["{k}"]' for k in paper.TABLE_III]
        + [f"TABLE_IV[solver={s}].{f}" for s in paper.TABLE_IV.solver for f in ("accuracy", "seconds")]
        + [f"TABLE_VI[model={r.model}].{f}" for r in paper.TABLE_VI.itertuples()
           for f in ("accuracy", "feature_seconds", "train_seconds", "total_seconds") if not math.isnan(getattr(r, f))])
    assert [cell for cell in cells if cell not in cited] == []
    assert len([c for c in CLAIMS if c.source.startswith("TABLE_V[")]) == 2 * len(paper.TABLE_V)


def test_the_papers_derived_numbers_follow_from_its_cells():
    """Differences and ratios the text prints, from the cells they are computed from (printed precision)."""
    value = {c.id: c.value for c in CLAIMS}
    assert value["gain_d500_to_d2000"] == pytest.approx(value["fig_scaling_mnist_d2000_accuracy"]
                                                        - value["fig_scaling_mnist_d500_accuracy"], abs=0.005)
    assert value["gain_d2000_to_d4000"] == pytest.approx(value["fig_scaling_mnist_d4000_accuracy"]
                                                         - value["fig_scaling_mnist_d2000_accuracy"], abs=0.005)
    assert value["mnist_d4000_beats_sgd_by_1_26"] == pytest.approx(
        value["abstract_mnist_d4000_accuracy"] - value["table1_mnist_sgd_accuracy"], abs=0.005)
    assert value["speedup_vs_sgd_mnist_d2000"] == pytest.approx(
        value["table1_mnist_sgd_seconds"] / value["table1_mnist_pinv_d2000_seconds"], abs=0.05)
    assert value["cifar10_raw_speedup_vs_sgd"] == pytest.approx(
        value["table6_sgd_mlp_train_seconds"] / value["table6_elm_raw_train_seconds"], abs=0.05)
    assert value["pinv_over_cholesky_speedup_d4000"] == pytest.approx(
        value["table2_pinv_d4000_seconds"] / value["table2_cholesky_d4000_seconds"], abs=0.005)
    assert value["cholesky_accuracy_cost_0_01"] == pytest.approx(
        value["table2_pinv_d4000_accuracy"] - value["table2_cholesky_d4000_accuracy"], abs=1e-9)
    assert value["table6_elm_conv_total_seconds"] == pytest.approx(
        value["table6_elm_conv_feature_seconds"] + value["table6_elm_conv_train_seconds"], abs=1e-9)


def test_self_contradictions_are_two_claims_that_say_so():
    """Where the paper prints two values for one quantity, both are claims and each names the other."""
    by_id = {c.id: c for c in CLAIMS}
    for first, second in (("table1_mnist_pinv_d2000_seconds", "table4_pinv_d2000_seconds"),
                          ("table1_mnist_pinv_d2000_accuracy", "table4_pinv_d2000_accuracy"),
                          ("table1_mnist_sgd_accuracy", "fig_scaling_mnist_sgd_baseline_accuracy"),
                          ("table6_sgd_conv_accuracy", "fig_scaling_cifar10_cnn_baseline_accuracy")):
        a, b = by_id[first], by_id[second]
        assert a.value != b.value
        assert f"{b.value:g}" in a.statement or f"{a.value:g}" in b.statement


@pytest.mark.parametrize("claim", CLAIMS, ids=lambda c: c.id)
def test_where_is_in_the_paper(claim, tex):
    places = claim.where.split("; ")
    texts = [locate(tex, place) for place in places]
    assert [p for p, t in zip(places, texts) if not t] == [], f"{claim.id}: not found in {TEX_PATH.name}"
    if claim.value is not None and claim.id not in NOT_PRINTED:
        forms = printed_forms(claim.value)
        assert any(form in t for form in forms for t in texts), \
            f"{claim.id}: none of {sorted(forms)} is printed at {claim.where}"


def test_sections_are_the_papers(tex):
    titles = re.findall(r"\\section\{([^}]*)\}", tex)
    assert [s for s in SECTIONS if s != "Abstract" and s not in titles] == []


def test_table_names_and_compiled_numbers(tex):
    """The book's table names map to distinct labels, and LaTeX (source order) numbers them as stated."""
    order = [m.group(1) for m in re.finditer(r"\\label\{((?:tab|table):[^}]*)\}", tex)]
    roman = ("I", "II", "III", "IV", "V", "VI")
    compiled = {name: roman[order.index(label)] for name, label in paper.TABLE_LABELS.items()}
    assert compiled == paper.COMPILED_TABLE_NUMBER
    assert "Solver Performance" in locate(tex, "Table IV") and "Streaming" in locate(tex, "Table V")
    assert "Flattened Raw-Pixel" in locate(tex, "Table VI")


def test_every_book_chapter_has_a_claim():
    toc = (ROOT / "_toc.yml").read_text(encoding="utf-8")
    from greenelm_book.running.toc import SUMMARY_CHAPTERS

    # the scorecard and the conclusion measure nothing: they summarise the other chapters' answers
    chapters = [ch for ch in re.findall(r"^\s*- file: book/(\w+)\s*$", toc, flags=re.MULTILINE)
                if ch not in SUMMARY_CHAPTERS]
    assert chapters, "no executed chapter found in _toc.yml"
    assert set(chapters) <= set(CHAPTERS)
    assert [ch for ch in chapters if not any(c.chapter == ch for c in CLAIMS)] == []


@pytest.mark.parametrize("section,count", sorted(Counter(c.section for c in CLAIMS).items()),
                         ids=lambda x: str(x))
def test_claims_per_section(section, count):
    """One test per section; its id gives the section's number of claims."""
    assert section in SECTIONS and count > 0


@pytest.mark.parametrize("source,words", [
    ("TABLE_I[dataset=mnist].accuracy", "selects 2 rows"),
    ("TABLE_I[model=x].accuracy", "selects 0 rows"),
    ("TABLE_I[colour=red].accuracy", "column=value pairs"),
    ('HEADLINE["no_such_key"]', "has no key"),
    ("NOT_A_CONSTANT[x=1]", "constant of greenelm_book.paper"),
    ("TABLE_IV[solver=lu].volume", "no field 'volume'"),
])
def test_resolve_source_names_the_problem(source, words):
    with pytest.raises(ValueError, match=re.escape(words)) as error:
        resolve_source(source)
    assert repr(source) in str(error.value)


def test_resolve_source_refuses_a_whole_table():
    with pytest.raises(TypeError, match="whole row or table") as error:
        resolve_source('HARDWARE_CLAIMS["complexity"]')
    assert "HARDWARE_CLAIMS" in str(error.value)
