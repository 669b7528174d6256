"""The book's command line: execute chapters, check their freshness, build the HTML book.

The work is done by :mod:`greenelm_book.running.toc` (chapters and profiles), :mod:`greenelm_book.running.execute`
(papermill execution and provenance), :mod:`greenelm_book.running.freshness`,
:mod:`greenelm_book.running.environment` (the environment page) and :mod:`greenelm_book.running.build` (the HTML
book); this module is their command line. Run from anywhere (the kernel's working directory is
the repository root)::

    python -m greenelm_book.running.runner run --profile {smoke,full} --out DIR [--chapter NAME ...] [-p KEY VALUE ...]
                                   [--stale-only] [--recompute | --stored-only] [--record DIR | --no-record]
    python -m greenelm_book.running.runner html --source DIR        # DIR = book: in place -> _build/html
    python -m greenelm_book.running.runner check-fresh --source book
    python -m greenelm_book.running.runner prune-record [--dry-run]  # entries of book/cache no chapter uses
    python -m greenelm_book.running.runner refresh-prose --out DIR --chapter NAME [--chapter NAME ...]

``refresh-prose`` applies a prose-only edit of a chapter's source to its executed notebook without
executing it (:mod:`greenelm_book.running.prose`): when the source's code cells are exactly the
executed ones, the notebook takes the source's markdown, its glue references checked against
what its outputs glue, and its provenance restamped (``source_sha256``, ``prose_refreshed_at``);
a changed code cell or a glue name no output glues is refused, the notebook left as it was. For a
chapter whose execution re-measures timings (hardware, streaming) this is how its words change.

Every subcommand also takes ``--notebooks DIR``, ``--toc FILE`` and ``--params DIR`` to point it
at another project (the tests use a temporary one). ``run`` executes the summary chapters (the
scorecard and the conclusion) after all the others whatever their place in the toc.

The cache of record (``book/cache``, :mod:`greenelm_book.store.results_cache`): every run reads it
(after the local cache, before computing); only ``run --profile full --out book`` writes it (or
``--record DIR`` for another folder; ``--no-record`` never). ``--recompute`` recomputes every
result, ignoring the record and the local cache (``make book-full``); without it a chapter is
re-executed from stored results where their keys match (``make book``: minutes); ``--stored-only``
refuses to compute anything the results caches hold: a chapter that needs a computation no store
holds fails, its page left as it was. Timings that a chapter takes afresh on every execution by design
(the hardware chapter's solves and footprints, in isolated processes; the streaming chapter's
benchmark; the scale-out fits) are measured again under ``--stored-only`` too: re-executing those
chapters is a re-measurement (minutes), to run alone. After a run
that wrote the record with no failure, the entries no chapter of the toc uses are pruned (listed).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from .build import BuildError, build_html, write_generated_pages
from .execute import ChapterError, execute_chapter
from .freshness import provenance, staleness
from .prose import ProseRefreshError, refresh_prose
from ..store.results_cache import RECORD, prune_record
from .toc import (
    BOOK,
    SUMMARY_CHAPTERS,
    chapters,
    declared_parameters,
    execution_order,
    load_profile,
    parse_value,
    read_chapter,
    relative,
)


def _select(all_names: list[str], wanted: list[str] | None) -> list[str]:
    if not wanted:
        return all_names
    unknown = [w for w in wanted if w not in all_names]
    if unknown:
        raise SystemExit(f"error: unknown chapter(s) {unknown}; the toc lists {all_names}")
    return [n for n in all_names if n in wanted]  # toc order


def record_for(profile: str, out: Path, record: Path | None = None, no_record: bool = False) -> Path | None:
    """The cache of record a run writes: ``record`` when given, else ``book/cache`` for the full
    profile into ``book/``, else none (smoke runs, other folders, ``no_record``)."""
    if no_record:
        return None
    if record is not None:
        return Path(record)
    return RECORD if profile == "full" and Path(out).resolve() == BOOK.resolve() else None


def _print_err(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def _cmd_run(args) -> int:
    names = execution_order(_select(chapters(args.toc), args.chapter))
    table = load_profile(args.profile, args.params)
    overrides = {k: parse_value(v) for k, v in (args.p or [])}
    # an override applies to each selected chapter that declares it; one no chapter declares is
    # a typo, and an error
    declared = {n: set(declared_parameters(read_chapter(n, args.notebooks))) for n in names}
    unused = [k for k in overrides if not any(k in d for d in declared.values())]
    if unused:
        raise SystemExit(f"error: no selected chapter has parameter(s) {unused}")
    for name in names:  # a typo in the profile stops the run before anything executes
        unknown = sorted(set(table.get(name) or {}) - declared[name])
        if unknown:
            raise SystemExit(f"error: params/{args.profile}.yml: chapter {name} has no "
                             f"parameter(s) {unknown}")
    out = Path(args.out)
    if args.record is not None and args.no_record:
        raise SystemExit("error: --record and --no-record contradict each other")
    record = record_for(args.profile, out, args.record, args.no_record)
    if args.recompute and args.stored_only:
        raise SystemExit("error: --recompute and --stored-only contradict each other")
    since = time.time() if args.recompute else None
    if record is not None:
        print(f"cache of record: {relative(record)} (read and written)", flush=True)
    if since is not None:
        print("recomputing every result: the local cache and the cache of record are ignored", flush=True)
    stale = staleness(out, toc=args.toc, notebooks_dir=args.notebooks,
                      params_dir=args.params) if args.stale_only else {}
    failures = []
    for i, name in enumerate(names, 1):
        ov = {k: v for k, v in overrides.items() if k in declared[name]}
        if args.stale_only and name in SUMMARY_CHAPTERS:    # the chapters above may have changed results
            stale = staleness(out, toc=args.toc, notebooks_dir=args.notebooks, params_dir=args.params)
        if args.stale_only and name not in stale:
            meta = provenance(out / f"{name}.ipynb") or {}
            if meta.get("profile") == args.profile and meta.get("overrides", {}) == ov:
                print(f"[{i}/{len(names)}] {name}: up to date, skipped", flush=True)
                continue
        shown = {**(table.get(name) or {}), **ov}
        print(f"[{i}/{len(names)}] {name} (profile {args.profile}"
              + (f", {shown}" if shown else "") + ")", flush=True)
        t0 = time.perf_counter()
        try:
            path = execute_chapter(name, args.profile, out, ov, notebooks_dir=args.notebooks,
                                   profile_params=table, progress=not args.no_progress,
                                   record=record, recompute_since=since, stored_only=args.stored_only,
                                   report=_print_err)
        except ChapterError as exc:
            print(str(exc), file=sys.stderr, flush=True)
            failures.append(name)
            if not args.keep_going:
                break
            continue
        print(f"    -> {relative(path)} ({time.perf_counter() - t0:.1f} s)", flush=True)
    if out.resolve() == BOOK.resolve() and args.toc is None:
        # the committed generated pages (environment, scorecard summary) follow the chapters
        for path in write_generated_pages(BOOK):
            print(f"    -> {relative(path)}", flush=True)
    if failures:
        print(f"error: failed chapter(s): {', '.join(failures)}", file=sys.stderr)
        return 1
    if record is not None:
        removed = prune_record(chapters(args.toc), record)
        if removed:
            print(f"cache of record: pruned {len(removed)} entr{'y' if len(removed) == 1 else 'ies'} no "
                  f"chapter uses: {', '.join(removed)}", flush=True)
    return 0


def _cmd_prune_record(args) -> int:
    folder = Path(args.record) if args.record is not None else RECORD
    names = chapters(args.toc)
    removed = prune_record(names, folder, dry_run=args.dry_run)
    verb = "would remove" if args.dry_run else "removed"
    for entry in removed:
        print(f"  {verb} {entry}")
    print(f"{relative(folder)}: {verb} {len(removed)} entr{'y' if len(removed) == 1 else 'ies'} no chapter "
          f"of the toc uses")
    return 0


def _cmd_refresh_prose(args) -> int:
    names = _select(chapters(args.toc), args.chapter)
    for name in names:
        try:
            path = refresh_prose(name, Path(args.out), notebooks_dir=args.notebooks)
        except ProseRefreshError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 1
        print(f"{name}: prose refreshed -> {relative(path)} (nothing executed)", flush=True)
    return 0


def _cmd_html(args) -> int:
    try:
        html = build_html(Path(args.source), toc=args.toc)
    except BuildError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(html)
    return 0


def _cmd_check_fresh(args) -> int:
    stale = staleness(Path(args.source), toc=args.toc, notebooks_dir=args.notebooks,
                      params_dir=args.params)
    if stale:
        print(f"{len(stale)} stale chapter(s) in {args.source}:", file=sys.stderr)
        for name, why in stale.items():
            print(f"  {name}: {why}", file=sys.stderr)
        return 1
    print(f"all {len(chapters(args.toc))} chapter(s) in {args.source} are fresh")
    return 0


def main(argv: list[str] | None = None) -> int:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--notebooks", type=Path, default=None,
                        help="folder of chapter sources (default: notebooks/)")
    common.add_argument("--toc", type=Path, default=None, help="toc file (default: _toc.yml)")
    common.add_argument("--params", type=Path, default=None,
                        help="folder of profiles <profile>.yml (default: params/)")
    parser = argparse.ArgumentParser(prog="python -m greenelm_book.running.runner", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)

    run = sub.add_parser("run", parents=[common], help="execute chapters with papermill")
    run.add_argument("--profile", required=True, help="smoke | full (params/<profile>.yml)")
    run.add_argument("--out", required=True, help="folder for the executed <name>.ipynb")
    run.add_argument("--chapter", action="append", metavar="NAME",
                     help="run only this chapter (repeatable; default: all, in toc order)")
    run.add_argument("-p", nargs=2, action="append", metavar=("KEY", "VALUE"),
                     help="override a parameter of the selected chapters (VALUE parsed as YAML)")
    run.add_argument("--keep-going", action="store_true",
                     help="run the remaining chapters after a failure (exit status still 1)")
    run.add_argument("--stale-only", action="store_true",
                     help="skip chapters whose notebook in --out is fresh for these settings")
    run.add_argument("--recompute", action="store_true",
                     help="recompute every result, ignoring the local cache and the cache of record")
    run.add_argument("--stored-only", action="store_true",
                     help="execute from stored results only: a computation that neither the local cache nor the "
                          "cache of record holds fails the chapter instead of running (its page is left as it was); "
                          "timings a chapter takes afresh on every execution (hardware, streaming, scale_out) are "
                          "still measured")
    run.add_argument("--record", type=Path, default=None,
                     help="cache of record to write (default: book/cache for --profile full --out book)")
    run.add_argument("--no-record", action="store_true", help="write no cache of record")
    run.add_argument("--no-progress", action="store_true", help="no papermill progress bar")
    run.set_defaults(func=_cmd_run)

    prune = sub.add_parser("prune-record", parents=[common],
                           help="remove the cache of record's entries no chapter of the toc uses")
    prune.add_argument("--record", type=Path, default=None, help="the record's folder (default: book/cache)")
    prune.add_argument("--dry-run", action="store_true", help="list them, remove nothing")
    prune.set_defaults(func=_cmd_prune_record)

    prose = sub.add_parser("refresh-prose", parents=[common],
                           help="give an executed chapter its source's edited markdown without executing it "
                                "(refused when a code cell changed or a glue name is missing)")
    prose.add_argument("--out", required=True, help="folder of the executed <name>.ipynb (book, tests/notebooks)")
    prose.add_argument("--chapter", action="append", metavar="NAME", required=True,
                       help="the chapter whose prose changed (repeatable)")
    prose.set_defaults(func=_cmd_refresh_prose)

    html = sub.add_parser("html", parents=[common], help="build the HTML book (warnings = errors)")
    html.add_argument("--source", default="book", help="folder of executed chapters")
    html.set_defaults(func=_cmd_html)

    fresh = sub.add_parser("check-fresh", parents=[common],
                           help="exit 1 when an executed chapter is missing or out of date")
    fresh.add_argument("--source", default="book", help="folder of executed chapters")
    fresh.set_defaults(func=_cmd_check_fresh)

    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except (FileNotFoundError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
