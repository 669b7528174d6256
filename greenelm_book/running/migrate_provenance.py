"""Give the results stored before results carried their provenance the measurement date and host their
records allow (:mod:`greenelm_book.store.results`, *Provenance*); nothing is measured or recomputed.

    python -m greenelm_book.running.migrate_provenance [OUT ...]     # default: book tests/notebooks

For every result of ``OUT/results/<chapter>.json`` written before results had ``executed`` and ``host``:

* ``executed`` is its old ``date`` (the day of the execution that recorded it);
* ``date``, the day its values were measured, is recovered from what its setting says of the
  measurement (a benchmark report's date, run records' ``computed_at``: :func:`measured_date`), else it
  is the execution's day when that execution read nothing from the results cache (its provenance's
  ``compute["cached"]`` is 0: every value was measured by it), else ``""``: not recorded (a cache entry
  written before manifests carried ``computed_at`` does not say when it was computed);
* a timing's ``host`` is the benchmark report's (the headline ratios: :func:`greenelm_book.bench.quiet_ratio`),
  the host its setting names, or, for a value that execution measured, the machine its provenance
  records (CPU, cores, kernel; BLAS and GEMM rate not recorded); else None (not recorded).

Values, settings, answers and reads are left exactly as they are (checked), so each page still shows what
its results hold: the page's ``own_results_sha256`` and the summaries' ``results_sha256`` are moved to the
migrated files' digests. A file already migrated is left alone. Prints what it did, per chapter (its
output on the committed book and smoke references: ``book/results/provenance-migration.log``).
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

from ..bench import QUIET_RATIO_KEYS, kernel_release, quiet_ratio
from ..store.results import _setting_host, is_timing, load_all, measured_date
from .freshness import results_sha256
from .toc import ROOT

__all__ = ["migrate_entry", "migrate_folder"]


def _execution(notebook: Path) -> tuple[bool, dict | None]:
    """(whether the execution that wrote ``notebook`` read nothing from the cache, its machine as a host)."""
    if not notebook.is_file():
        return False, None
    meta = json.loads(notebook.read_text(encoding="utf-8")).get("metadata", {}).get("greenelm", {})
    compute, machine = meta.get("compute"), meta.get("machine")
    fresh = isinstance(compute, dict) and compute.get("cached") == 0
    host = None if not machine else {"cpu": machine.get("cpu"), "cores": machine.get("cores"),
                                     "kernel": kernel_release(machine.get("os")), "blas": None, "gemm_gflops": None}
    return fresh, host


def migrate_entry(key: str, entry: dict, fresh: bool, machine_host: dict | None) -> dict:
    """``entry`` (a stored result written before provenance) with ``executed``, the recovered ``date``
    and ``host`` (module docstring); an entry that has ``executed`` already is returned as it is."""
    if "executed" in entry:
        return entry
    setting, timing = entry["setting"], is_timing(key, str(entry["unit"]))
    date, host = measured_date(setting), None
    if date:
        quiet = {k: n for n, k in QUIET_RATIO_KEYS.items()}.get(key)
        if quiet and str(setting.get("source", "")).endswith("headline_ratios.json"):
            host = (quiet_ratio(quiet) or {}).get("host")
        host = host or _setting_host(setting)
    elif fresh:
        date, host = entry["date"], machine_host
    return {**entry, "date": date, "executed": entry["date"], "host": host if timing else None}


def _same_content(before: dict, after: dict) -> bool:
    """Whether two loads of one results file agree on everything but the provenance fields."""
    if before["answers"] != after["answers"] or before["reads"] != after["reads"]:
        return False
    return all((a.values, a.unit, a.setting, a.chapter, a.machine, a.command) ==
               (b.values, b.unit, b.setting, b.chapter, b.machine, b.command)
               for a, b in zip(before["results"].values(), after["results"].values())) and \
        list(before["results"]) == list(after["results"])


def migrate_folder(out: str | Path) -> list[str]:
    """Migrate every results file of ``out/results`` (module docstring); returns one line per chapter."""
    out = Path(out)
    folder = out / "results"
    paths = sorted(folder.glob("*.json"))
    before_all = load_all(folder)
    summaries = {}                                   # notebook -> the digest it recorded over the others
    for notebook in sorted(out.glob("*.ipynb")):
        meta = json.loads(notebook.read_text(encoding="utf-8")).get("metadata", {}).get("greenelm", {})
        if meta.get("results_sha256") == results_sha256(out, exclude=[notebook.stem]):
            summaries[notebook] = meta["results_sha256"]
    lines = []
    for path in paths:
        text = path.read_text(encoding="utf-8")
        payload = json.loads(text)
        if json.dumps(payload, indent=1, ensure_ascii=False) + "\n" != text:
            raise ValueError(f"{path}: not written as ChapterResults writes; not migrated")
        fresh, machine_host = _execution(out / f"{path.stem}.ipynb")
        payload["results"] = {k: migrate_entry(k, e, fresh, machine_host) for k, e in payload["results"].items()}
        new_text = json.dumps(payload, indent=1, ensure_ascii=False) + "\n"
        if new_text == text:
            lines.append(f"{path}: already migrated")
            continue
        path.write_text(new_text, encoding="utf-8")
        if not _same_content(before_all[path.stem], load_all(folder)[path.stem]):
            path.write_text(text, encoding="utf-8")
            raise AssertionError(f"{path}: the migration changed more than the provenance fields; restored")
        notebook = out / f"{path.stem}.ipynb"
        old, new = hashlib.sha256(text.encode()).hexdigest(), hashlib.sha256(new_text.encode()).hexdigest()
        if notebook.is_file() and old in (nb_text := notebook.read_text(encoding="utf-8")):
            notebook.write_text(nb_text.replace(old, new), encoding="utf-8")
        results = payload["results"].values()
        dated = sum(bool(r["date"]) for r in results)
        hosts = sum(r["host"] is not None for r in results)
        how = ("its execution read nothing from the cache" if fresh else
               "its execution read from the cache: only dates its results' settings give")
        lines.append(f"{path}: {len(payload['results'])} results, {dated} with a measurement date ({how}), "
                     f"{hosts} timings with a host")
    for notebook, old in summaries.items():
        new = results_sha256(out, exclude=[notebook.stem])
        notebook.write_text(notebook.read_text(encoding="utf-8").replace(old, new), encoding="utf-8")
        lines.append(f"{notebook}: results_sha256 moved to the migrated results")
    return lines


def main(argv=None) -> int:
    outs = (sys.argv[1:] if argv is None else argv) or ["book", "tests/notebooks"]
    for out in outs:
        for line in migrate_folder(ROOT / out):
            print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
