"""The notebook pipeline: chapter sources, profiles, freshness of executed notebooks, the runner.

(1) every chapter of ``_toc.yml`` has a source with one ``parameters`` cell and profile entries;
(2) executed notebooks in ``book/`` (full profile) and the nbval references in
    ``tests/notebooks/`` (smoke profile) were produced from the current sources and profiles;
(3) the runner executes a tiny temporary chapter with overrides and provenance, and a failing
    chapter exits non-zero naming chapter, cell and error, leaving no ``<name>.ipynb``.
"""

from __future__ import annotations

import ast
import hashlib
import os
import subprocess
import sys

import nbformat
import pytest

from greenelm_book.running import environment, execute, freshness, runner, toc

ROOT = toc.ROOT
CHAPTERS = toc.chapters()


# ----------------------------------------------------------------------------- (1) sources
def _parameter_defaults(source: str) -> dict:
    out = {}
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and \
                isinstance(node.targets[0], ast.Name):
            try:
                out[node.targets[0].id] = ast.literal_eval(node.value)
            except ValueError:
                out[node.targets[0].id] = ...
    return out


def test_toc_lists_chapters_in_book_folder():
    text = toc.TOC.read_text()
    assert "root: book/intro" in text
    assert CHAPTERS, "_toc.yml lists no chapter"
    assert (ROOT / "book" / "intro.md").is_file()


@pytest.mark.parametrize("name", CHAPTERS)
def test_chapter_source_has_one_parameters_cell(name):
    import jupytext

    src = toc.source_path(name)
    assert src.is_file(), f"_toc.yml lists book/{name} but {src.relative_to(ROOT)} does not exist"
    nb = jupytext.read(src, fmt="py:percent")
    cells = [c for c in nb.cells if "parameters" in c.metadata.get("tags", [])]
    assert len(cells) == 1, f"{name}: {len(cells)} cells tagged 'parameters' (want exactly one)"
    defaults = _parameter_defaults(cells[0].source)
    assert defaults.get("profile") == "smoke", f"{name}: parameters cell must set profile = 'smoke'"
    assert isinstance(defaults.get("seed"), int), f"{name}: parameters cell must set seed = <int>"


@pytest.mark.parametrize("profile", toc.PROFILES)
def test_profiles_cover_the_toc(profile):
    table = toc.load_profile(profile)
    missing = [n for n in CHAPTERS if n not in table]
    assert not missing, f"params/{profile}.yml has no entry for {missing} (use `name: {{}}`)"
    extra = [n for n in table if n not in CHAPTERS]
    assert not extra, f"params/{profile}.yml has entries for chapters not in _toc.yml: {extra}"
    for name in CHAPTERS:
        if not toc.source_path(name).is_file():
            continue  # reported by test_chapter_source_has_one_parameters_cell
        declared = toc.declared_parameters(toc.read_chapter(name))
        unknown = sorted(set(table[name]) - set(declared))
        assert not unknown, f"params/{profile}.yml: {name} has no parameter(s) {unknown}"


# ----------------------------------------------------------------------------- (2) freshness
@pytest.mark.parametrize("folder, profile", [("book", "full"), ("tests/notebooks", "smoke")])
def test_executed_notebooks_are_fresh(folder, profile):
    source_dir = ROOT / folder
    present = [n for n in CHAPTERS if (source_dir / f"{n}.ipynb").is_file()]
    if not present:
        pytest.skip(f"no executed chapters in {folder}/ yet "
                    f"(python -m greenelm_book.running.runner run --profile {profile} --out {folder})")
    stale = freshness.staleness(source_dir)
    assert not stale, (f"stale notebooks in {folder}/ (re-run: python -m greenelm_book.running.runner run "
                       f"--profile {profile} --out {folder} --chapter NAME): {stale}")
    for name in present:
        meta = freshness.provenance(source_dir / f"{name}.ipynb")
        assert meta["profile"] == profile, f"{folder}/{name}.ipynb was run at {meta['profile']}"
        assert not meta.get("overrides"), \
            f"{folder}/{name}.ipynb was run with -p overrides {meta['overrides']}"


# ----------------------------------------------------------------------------- (3) the runner
def test_runner_executes_with_overrides_and_provenance(tiny_executed):
    path = tiny_executed.path
    project = tiny_executed.project
    assert path == tiny_executed.out / "tiny.ipynb" and path.is_file()
    assert not list(tiny_executed.out.glob(".*tmp*")), "temporary files left behind"
    nb = nbformat.read(path, as_version=4)
    meta = nb.metadata["greenelm"]
    sha = hashlib.sha256((project.notebooks / "tiny.py").read_bytes()).hexdigest()
    assert meta["source_sha256"] == sha
    assert meta["profile"] == "smoke"
    # profile entry (width 5), then the override (seed 3), then the injected profile
    assert meta["parameters"] == {"width": 5, "seed": 3, "profile": "smoke"}
    assert meta["overrides"] == {"seed": 3}
    assert meta["greenelm_version"]
    text = "".join(o.get("text", "") for c in nb.cells if c.cell_type == "code"
                   for o in c.get("outputs", []))
    assert "profile=smoke seed=3 width=5" in text
    assert any(o.get("output_type") == "display_data" and "image/png" in o.get("data", {})
               for c in nb.cells if c.cell_type == "code" for o in c.outputs)
    kw = dict(toc=project.toc_tiny, notebooks_dir=project.notebooks, params_dir=project.params)
    assert freshness.stale_chapters(tiny_executed.out, **kw) == []
    # code folded for readers: every code cell hides its source, the parameters cells are removed
    for cell in nb.cells:
        if cell.cell_type == "code":
            tags = set(cell.metadata.get("tags", []))
            params = {"parameters", "injected-parameters"} & tags
            assert ("hide-input" in tags) != bool(params), (cell.source[:40], tags)
            assert ("remove-cell" in tags) == bool(params), (cell.source[:40], tags)
    # the re-run box stands where the parameters cells were, from the provenance
    boxes = [i for i, c in enumerate(nb.cells) if execute.RERUN_TAG in c.metadata.get("tags", [])]
    first = min(i for i, c in enumerate(nb.cells) if "parameters" in c.metadata.get("tags", []))
    assert boxes == [first - 1], boxes
    box = nb.cells[boxes[0]].source.replace(" \\\n    ", " ")   # the commands' lines joined
    assert "runner run --profile smoke --out tests/notebooks --chapter tiny -p seed 3" in box
    assert "-p profile smoke -p seed 3 -p width 5" in box, box
    assert "profile = 'smoke'\nseed = 3\nwidth = 5" in box           # sorted: the same from JSON
    assert meta["compute"]["memoized"] == 0 and meta["compute"]["seconds"] > 0


def test_fold_code_keeps_the_chapters_own_tags_and_removes_test_printouts():
    from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

    nb = new_notebook(cells=[new_code_cell("x = 1"), new_code_cell("# NBVAL_CHECK_OUTPUT\nprint(x)"),
                             new_code_cell("glue('x', x)", metadata={"tags": ["remove-cell"]}),
                             new_code_cell("p = 1", metadata={"tags": ["parameters"]}),
                             new_markdown_cell("text")])
    execute.fold_code(nb)
    assert [c.metadata.get("tags") for c in nb.cells] == [
        ["hide-input"], ["remove-cell"], ["remove-cell"], ["parameters"], None]


def test_present_hides_parameters_adds_the_box_and_changes_nothing_else():
    """The build's pass over already-executed notebooks: only tags and the box change, never an
    output or the provenance, and a second pass changes nothing."""
    import copy

    from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

    nb = new_notebook(cells=[
        new_markdown_cell("# T"),
        new_code_cell('profile = "smoke"\nseed = 0\nwidths = [1, 2]  # d', metadata={"tags": ["parameters"]}),
        new_code_cell('# Parameters\nwidths = [5]\nprofile = "full"\n',
                      metadata={"tags": ["injected-parameters"]}),
        new_code_cell("print(widths)", metadata={"tags": ["hide-input"]},
                      outputs=[new_output("stream", name="stdout", text="[5]\n")])])
    nb.metadata["greenelm"] = {"source": "notebooks/t.py", "profile": "full",
                               "parameters": {"widths": [5], "label": "1e3", "jitter": {"a": 1e-05},
                                              "profile": "full"},
                               "overrides": {}}
    before = copy.deepcopy(nb)
    assert execute.present(nb, "t") is True
    assert nb.metadata == before.metadata
    assert [c.get("outputs") for c in nb.cells if c.cell_type == "code"] == \
        [c.get("outputs") for c in before.cells if c.cell_type == "code"]
    assert [c.metadata.get("tags") for c in nb.cells] == [
        None, [execute.RERUN_TAG], ["parameters", "remove-cell"], ["injected-parameters", "remove-cell"],
        ["hide-input"]]
    box = nb.cells[1].source.replace(" \\\n    ", " ")
    assert box.startswith("````{admonition} Re-run this chapter\n:class: dropdown")
    assert "python -m greenelm_book.running.runner run --profile full --out book --chapter t\n" in box
    # a list, a string papermill's -p would read as a number and a mapping go through -y, a float
    # with a decimal point (PyYAML reads 1e-05 as a string)
    assert """-y '{"jitter": {"a": 1.0e-05}}' -y '{"label": "1e3"}' -p profile full -y '{"widths": [5]}'""" \
        in box, box
    assert all(len(line) <= 80 for line in nb.cells[1].source.splitlines() if not line.startswith(
        ("This page", "(add"))), "a command line too long for the page's code column"
    assert "# the chapter's defaults\nseed = 0\n" in box and "widths = [1, 2]" not in box
    assert execute.present(nb, "t") is False
    unstamped = new_notebook(cells=[new_code_cell("p = 1", metadata={"tags": ["parameters"]})])
    execute.present(unstamped)
    assert len(unstamped.cells) == 1 and "remove-cell" in unstamped.cells[0].metadata["tags"]


@pytest.mark.parametrize("folder", ["book", "tests/notebooks"])
def test_committed_chapters_are_presented(folder):
    """Every committed executed chapter already has its page made (parameters hidden, re-run box
    current), so a plain `jupyter-book build .` of a clean checkout shows no parameters cell."""
    for name in CHAPTERS:
        path = ROOT / folder / f"{name}.ipynb"
        if path.is_file():
            nb = nbformat.read(path, as_version=4)
            assert execute.present(nb, name) is False, (
                f"{folder}/{name}.ipynb: parameters shown or re-run box stale (the build fixes it: "
                f"python -m greenelm_book.running.runner html --source {folder})")


def test_compute_time_sums_what_the_cache_recorded(tmp_path, monkeypatch):
    """memoize logs each call when the runner asks; a cached read counts its stored compute time."""
    from greenelm_book.store import results_cache

    monkeypatch.setenv("GREENELM_CACHE", str(tmp_path / "cache"))
    log = tmp_path / "compute.jsonl"
    monkeypatch.setenv(results_cache.COMPUTE_LOG_ENV, str(log))

    def slow():
        import time
        time.sleep(0.05)
        return {"x": 1}

    _, first = results_cache.memoize("t-slow", {"a": 1}, slow)
    _, again = results_cache.memoize("t-slow", {"a": 1}, slow)
    assert not first["cached"] and again["cached"] and again["seconds"] == first["seconds"] >= 0.05
    lines = log.read_text().splitlines()
    assert len(lines) == 2
    got = execute.compute_time(log, wall_seconds=2.0)
    assert got["memoized"] == 2 and got["cached"] == 1
    assert got["seconds"] == pytest.approx(2.0 + first["seconds"], abs=1e-3)
    assert execute.compute_time(tmp_path / "none.jsonl", 1.5) == {
        "seconds": 1.5, "wall_seconds": 1.5, "memoized": 0, "cached": 0, "cached_seconds": 0}


def test_freshness_notices_source_and_profile_changes(tiny_executed, tmp_path):
    project = tiny_executed.project
    changed = tmp_path / "notebooks"
    changed.mkdir()
    (changed / "tiny.py").write_text((project.notebooks / "tiny.py").read_text() + "\n# %%\n1\n")
    kw = dict(toc=project.toc_tiny, params_dir=project.params)
    assert freshness.stale_chapters(tiny_executed.out, notebooks_dir=changed, **kw) == ["tiny"]
    params = tmp_path / "params"
    params.mkdir()
    (params / "smoke.yml").write_text("tiny: {width: 6}\n")
    why = freshness.staleness(tiny_executed.out, toc=project.toc_tiny,
                           notebooks_dir=project.notebooks, params_dir=params)
    assert list(why) == ["tiny"] and "smoke.yml changed" in why["tiny"]
    assert freshness.stale_chapters(tmp_path, **kw, notebooks_dir=project.notebooks) == ["tiny"]


def _cli(*args, cwd=ROOT):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT),
                                                                     os.environ.get("PYTHONPATH")]))}
    return subprocess.run([sys.executable, "-m", "greenelm_book.running.runner", *map(str, args)], cwd=cwd,
                          env=env, capture_output=True, text=True, timeout=300)


def test_failing_chapter_exits_nonzero_naming_chapter_cell_error(tiny_project, tmp_path):
    out = tmp_path / "out"
    proc = _cli("run", "--profile", "smoke", "--out", out, "--chapter", "bad", "--no-progress",
                "--notebooks", tiny_project.notebooks, "--toc", tiny_project.toc,
                "--params", tiny_project.params)
    assert proc.returncode != 0
    # cell 4 of bad.py: markdown, parameters, `x = 1`, then the raise
    assert "chapter bad failed at cell 4: ValueError: boom 0" in proc.stderr, proc.stderr
    assert not (out / "bad.ipynb").exists()
    failed = out / "bad.failed.ipynb"
    assert failed.is_file(), "the partial notebook must be kept for inspection"
    nb = nbformat.read(failed, as_version=4)
    assert any(o.get("output_type") == "error" for c in nb.cells if c.cell_type == "code"
               for o in c.outputs)
    assert not list(out.glob(".*tmp*")), "temporary files left behind"


def test_failure_raises_chapter_error_and_keeps_previous_good_notebook(tiny_project, tmp_path):
    good = tmp_path / "bad.ipynb"
    good.write_text("previous good run")
    (tmp_path / "results").mkdir()
    results = tmp_path / "results" / "bad.json"
    results.write_text('{"previous": "results"}')
    with pytest.raises(execute.ChapterError, match=r"chapter bad failed at cell 4: ValueError") as e:
        execute.execute_chapter("bad", "smoke", tmp_path, notebooks_dir=tiny_project.notebooks,
                               params_dir=tiny_project.params, progress=False)
    assert e.value.cell == 4 and e.value.failed_notebook == tmp_path / "bad.failed.ipynb"
    assert good.read_text() == "previous good run", "a failed run must never replace <name>.ipynb"
    # nor its results: the page and its results file stay from one execution (the run had rewritten them)
    assert results.read_text() == '{"previous": "results"}'
    results.unlink()                                 # a chapter with no results before fails with none after
    with pytest.raises(execute.ChapterError):
        execute.execute_chapter("bad", "smoke", tmp_path, notebooks_dir=tiny_project.notebooks,
                               params_dir=tiny_project.params, progress=False)
    assert not results.exists()


def test_unknown_parameters_are_refused_before_running(tiny_project, tmp_path, capsys):
    with pytest.raises(ValueError, match="unknown parameter"):
        execute.execute_chapter("tiny", "smoke", tmp_path, {"widht": 4},
                               notebooks_dir=tiny_project.notebooks, params_dir=tiny_project.params)
    with pytest.raises(SystemExit, match="widht"):
        runner.main(["run", "--profile", "smoke", "--out", str(tmp_path), "-p", "widht", "4",
                     "--notebooks", str(tiny_project.notebooks), "--toc", str(tiny_project.toc),
                     "--params", str(tiny_project.params)])
    assert not list(tmp_path.iterdir())


def test_parse_value_and_chapters(tiny_project):
    assert toc.parse_value("3") == 3
    assert toc.parse_value("0.5") == 0.5
    assert toc.parse_value("1e-3") == 1e-3
    assert toc.parse_value("[500, 1000]") == [500, 1000]
    assert toc.parse_value("pinv") == "pinv"
    assert toc.parse_value("true") is True
    assert toc.chapters(tiny_project.toc) == ["tiny", "bad"]
    assert toc.load_profile("smoke", tiny_project.params)["tiny"] == {"width": 5}


def test_check_fresh_cli(tiny_executed, capsys):
    project = tiny_executed.project
    common = ["--source", str(tiny_executed.out), "--notebooks", str(project.notebooks),
              "--params", str(project.params)]
    assert runner.main(["check-fresh", "--toc", str(project.toc_tiny), *common]) == 0
    assert runner.main(["check-fresh", "--toc", str(project.toc), *common]) == 1
    assert "bad: " in capsys.readouterr().err


# ----------------------------------------------------------------------------- nbval sanitizer
def test_sanitize_cfg_masks_timings_addresses_and_progress_bars():
    from nbval.plugin import get_sanitize_patterns

    patterns = get_sanitize_patterns((ROOT / "tests" / "sanitize.cfg").read_text())

    def clean(s):
        import re
        for regex, replace in patterns:
            s = re.sub(regex, replace, s)
        return s

    assert clean("fit in 12.3 s, predict 0.45s, solve 1.2e-03 s") == clean(
        "fit in 9.9 s, predict 0.11s, solve 7.0e-05 s")
    assert clean("took 850 ms and 12.5µs") == clean("took 3 ms and 1.0µs")
    assert clean("<Figure at 0x7f3a2b1c9d50>") == clean("<Figure at 0x7f00deadbeef>")
    bar = "100%|██████████| 10/10 [00:01<00:00,  9.50it/s]"
    other = " 40%|████      | 4/10 [00:00<00:01,  4.10it/s]"
    assert clean(f"seeds: {bar}\ndone") == clean(f"seeds: {other}\ndone")
    assert "done" in clean(f"seeds: {bar}\ndone")
    # what must survive: accuracies, counts, words that end in s
    for keep in ("accuracy 97.15 %", "10 samples", "2000 features", "3 seeds"):
        assert clean(keep) == keep


def test_executed_chapter_records_its_machine_and_the_environment_page_lists_it(tiny_executed):
    meta = freshness.provenance(tiny_executed.path)
    assert set(meta["machine"]) == {"cpu", "cores", "memory_gib", "os", "python"}
    assert meta["machine"]["cores"] >= 1
    page = environment.environment_page(tiny_executed.out, tiny_executed.project.toc_tiny)
    row = next(line for line in page.splitlines() if line.startswith("| {doc}`tiny <tiny>`"))
    assert "| smoke |" in row
    assert f"Every chapter's provenance describes one kind of machine, {meta['machine']['cpu']}, " \
        f"{meta['machine']['cores']} cores" in page
    assert f"| {meta['compute']['seconds']:.0f} s |" in row   # recorded compute time, not "not recorded"


def test_environment_page_shows_results_dates_and_unrecorded_compute(tiny_executed, tmp_path):
    """When the values were measured comes from the store's measurement dates (first to last); a result
    stored before results carried provenance (no ``executed``: its ``date`` was the execution's) counts
    as not recorded; a chapter executed before compute time was recorded says so."""
    import json
    import shutil

    out = tmp_path / "out"
    (out / "results").mkdir(parents=True)
    nb = nbformat.read(tiny_executed.path, as_version=4)
    del nb.metadata["greenelm"]["compute"]
    nbformat.write(nb, out / "tiny.ipynb")
    entry = {"values": [1.0], "unit": "%", "setting": {}, "chapter": "tiny", "machine": "m",
             "command": "c"}
    provenance = {"executed": "2026-11-29", "host": None}
    (out / "results" / "tiny.json").write_text(json.dumps({"results": {
        "a": {**entry, **provenance, "date": "2026-11-24"}, "b": {**entry, **provenance, "date": "2026-11-20"}}}))
    page = environment.environment_page(out, tiny_executed.project.toc_tiny)
    row = next(line for line in page.splitlines() if line.startswith("| {doc}`tiny <tiny>`"))
    assert "| 2026-11-20 to 2026-11-24 | not recorded |" in row, row
    (out / "results" / "tiny.json").write_text(json.dumps({"results": {
        "a": {**entry, **provenance, "date": "2026-11-24"}, "b": {**entry, **provenance, "date": ""},
        "c": {**entry, "date": "2026-11-29"}}}))                       # c: stored before provenance
    row = next(line for line in environment.environment_page(out, tiny_executed.project.toc_tiny)
               .splitlines() if line.startswith("| {doc}`tiny <tiny>`"))
    assert "| 2026-11-24; not recorded for 2 | not recorded |" in row, row
    shutil.rmtree(out / "results")
    row = next(line for line in environment.environment_page(out, tiny_executed.project.toc_tiny)
               .splitlines() if line.startswith("| {doc}`tiny <tiny>`"))
    assert "| – | not recorded |" in row, row
    assert "numpy " + __import__("numpy").__version__ in page  # the pinned version is the running one


def test_the_in_place_book_build_reads_no_other_folder():
    """`make book` builds the repository root in place: every folder outside book/ that holds
    documents Sphinx would read (.md, .rst, .ipynb; tracked, or a virtual environment the Makefile
    makes) is in _config.yml's exclude_patterns, or the build warns (and fails) on them."""
    import re

    import yaml

    excluded = set(yaml.safe_load((ROOT / "_config.yml").read_text())["exclude_patterns"])
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True).stdout.split()
    folders = {path.split("/")[0] for path in tracked
               if "/" in path and path.rsplit(".", 1)[-1] in ("md", "rst", "ipynb")}
    makefile = (ROOT / "Makefile").read_text()
    folders |= set(re.findall(r"^(?:VENV|OLDEST_VENV) := (\S+)", makefile, re.M))
    assert folders - {"book"} <= excluded, f"not excluded from the book build: {sorted(folders - {'book'} - excluded)}"


def test_the_committed_generated_pages_are_what_the_runner_writes():
    """book/deviations.md, book/environment.md, book/headline_findings.md and book/scorecard_summary.md are committed, so that `jupyter-book build .`
    of a clean checkout renders the whole book; they must be what `runner html --source book` (or a
    run into book/) would write from the committed chapters and results."""
    from greenelm_book.running.build import generated_pages

    tracked = subprocess.run(["git", "ls-files", "book"], cwd=ROOT, capture_output=True, text=True).stdout.split()
    expected = generated_pages(ROOT / "book")
    assert sorted(expected) == ["book/deviations.md", "book/environment.md", "book/headline_findings.md",
                                "book/scorecard_summary.md"]
    for page, text in expected.items():
        assert page in tracked, f"{page} is not committed"
        assert (ROOT / page).read_text(encoding="utf-8") == text, (
            f"{page} is stale: run python -m greenelm_book.running.runner html --source book and commit it")


def test_book_config_links_the_repository_only_when_told(monkeypatch):
    """The Pages workflow passes the repository's URL; a local build leaves _config.yml as it is;
    a malformed URL is refused with the variable's name."""
    import yaml

    from greenelm_book.running.build import REPOSITORY_ENV, book_config

    monkeypatch.delenv(REPOSITORY_ENV, raising=False)
    assert book_config() == (ROOT / "_config.yml").read_text()
    monkeypatch.setenv(REPOSITORY_ENV, "https://github.com/someone/greenelm")
    config = yaml.safe_load(book_config())
    assert config["repository"]["url"] == "https://github.com/someone/greenelm"
    assert config["html"]["use_repository_button"] is True
    assert config["exclude_patterns"] == yaml.safe_load((ROOT / "_config.yml").read_text())["exclude_patterns"]
    monkeypatch.setenv(REPOSITORY_ENV, "github.com/someone")
    with pytest.raises(ValueError, match=REPOSITORY_ENV):
        book_config()


def test_a_run_removes_the_temporaries_of_killed_runs_and_no_others(tiny_project, tmp_path):
    """A runner killed mid-write leaves its temporary beside the notebooks; the next run into that
    folder removes it (its writer is dead), and keeps a live writer's temporary and other files."""
    from greenelm._cachefiles import writer_id

    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)
    killed = tmp_path / f".tiny.ipynb.{writer_id()}-{int(dead.stdout)}-abc123.tmp"
    live = tmp_path / f".tiny.ipynb.{writer_id()}-{os.getpid()}-def456.tmp"
    other = tmp_path / ".tiny.notes.tmp"
    for path in (killed, live, other):
        path.write_text("partial")
    execute.execute_chapter("tiny", "smoke", tmp_path, notebooks_dir=tiny_project.notebooks,
                            params_dir=tiny_project.params, progress=False)
    assert not killed.exists(), "a dead writer's temporary must be removed"
    assert live.read_text() == "partial" and other.read_text() == "partial"
    assert (tmp_path / "tiny.ipynb").is_file()
