"""The rendered book in a real browser (headless Chromium driven by selenium).

``test_reference_book_in_browser`` builds the book from the smoke reference notebooks in
``tests/notebooks/`` with ``greenelm_book.running.build.build_html`` (jupyter-book, warnings are errors),
serves it from a local http.server and opens the intro and every chapter page at 1280 × 800: the
title loads, each chapter shows at least one figure that decoded (natural width > 0), no page
shows an error output, raw TeX or a literal MyST role, no table is wider than the text column,
the scorecard has a row for every claim of the paper, and the intro's bibliography renders; no
chapter shows its parameters cells, and each has a folded *Re-run this chapter* box that opens
on the runner's command. ``test_tiny_book_in_browser`` does the same on a
tiny temporary chapter, so the build configuration and these checks are exercised even before
the references exist.

Skipped (with the reason) when the references do not exist yet, or when chromium, chromedriver
or selenium are missing (``make system-deps`` installs the Debian packages).
"""

from __future__ import annotations

import functools
import http.server
import shutil
import tempfile
import threading
from contextlib import contextmanager
from pathlib import Path

import pytest

from greenelm_book.running import build, execute, toc

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
BOOK_TITLE = "Green-ELM, reproduced"
PAGE_TIMEOUT = 30


def _require_browser():
    for path, package in ((CHROMIUM, "chromium"), (CHROMEDRIVER, "chromium-driver")):
        if not path.exists():
            pytest.skip(f"{path} not found (apt-get install {package}, or make system-deps)")
    pytest.importorskip("selenium", reason="selenium is not installed (pip install -e '.[test]')")


@contextmanager
def _serve(folder: Path):
    """Serve ``folder`` on 127.0.0.1 at a free port from a thread; yield the base URL."""

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):  # keep the test output clean
            pass

    handler = functools.partial(Quiet, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


@contextmanager
def _chromium():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="greenelm-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--no-first-run", "--window-size=1280,800", f"--user-data-dir={profile}"):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
    driver.set_page_load_timeout(PAGE_TIMEOUT)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def _open(driver, url: str) -> None:
    from selenium.webdriver.support.ui import WebDriverWait

    driver.get(url)
    WebDriverWait(driver, PAGE_TIMEOUT).until(
        lambda d: d.execute_script("return document.readyState") == "complete")


def _error_outputs(driver) -> list[str]:
    """Descriptions of every error-looking output on the current page."""
    found = driver.execute_script("""
        const out = [];
        for (const el of document.querySelectorAll('.output.error, .output.traceback'))
            out.push('error output: ' + el.innerText.slice(0, 300));
        for (const el of document.querySelectorAll('.output.stderr'))
            if (el.innerText.includes('Error')) out.push('stderr: ' + el.innerText.slice(0, 300));
        if (document.body.innerText.includes('Traceback (most recent call last)'))
            out.push('a traceback in the page text');
        return out;""")
    return list(found)


def _rendering_problems(driver) -> list[str]:
    """Formulas MathJax did not typeset (raw TeX left on the page) and literal MyST roles."""
    typeset = driver.execute_async_script("""
        const done = arguments[arguments.length - 1];
        const start = Date.now();
        (function wait() {
            const mj = window.MathJax;
            if (mj && mj.startup && mj.startup.promise) mj.startup.promise.then(() => done(true));
            else if (Date.now() - start > 10000) done(!document.querySelector('.math'));
            else setTimeout(wait, 100);
        })();""")
    if not typeset:
        return ["MathJax never loaded: formulas show as raw TeX"]
    return list(driver.execute_script("""
        const out = [];
        for (const el of document.querySelectorAll('.math'))
            if (!el.querySelector('mjx-container')) out.push('formula not typeset: ' + el.innerText.slice(0, 80));
        const text = document.body.innerText;
        for (const role of ['{glue', '{cite}', '{doc}', '{math}'])
            if (text.includes(role)) out.push('a literal MyST role on the page: ' + role);
        return out;"""))


def _wide_tables(driver) -> list[str]:
    """Tables wider than the page's text column (the article) at this window size."""
    return list(driver.execute_script("""
        const article = document.querySelector('article.bd-article, main article, article');
        if (!article) return ['no article element'];
        const style = getComputedStyle(article);
        const column = article.getBoundingClientRect().width
            - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
        const out = [];
        document.querySelectorAll('article table').forEach((t, i) => {
            const width = t.getBoundingClientRect().width;
            if (width > column + 2) {
                const head = (t.querySelector('tr') || t).innerText.replace(/\\s+/g, ' ').slice(0, 60);
                out.push(`table ${i + 1} is ${Math.round(width)} px wide, the column ${Math.round(column)} px (${head})`);
            }
        });
        return out;"""))


#: chapters without a figure (the rest must show at least one)
NO_FIGURE = {"conclusion"}


def _figures(driver) -> list[dict]:
    """The output images of the page once loaded: src, complete, naturalWidth."""
    from selenium.webdriver.support.ui import WebDriverWait

    script = """return Array.from(document.querySelectorAll('.cell_output img, .output img'))
                  .map(i => ({src: i.getAttribute('src'), complete: i.complete,
                              width: i.naturalWidth}));"""
    WebDriverWait(driver, PAGE_TIMEOUT).until(
        lambda d: all(img["complete"] for img in d.execute_script(script)))
    return driver.execute_script(script)


def _rerun_box(driver) -> list[str]:
    """No parameters cell on the page; one folded *Re-run this chapter* box that opens on a click
    and shows the runner's command."""
    out = []
    if driver.find_elements("css selector", ".tag_parameters, .tag_injected-parameters"):
        out.append("a parameters cell is shown")
    boxes = [b for b in driver.find_elements("css selector", "div.admonition.dropdown")
             if "Re-run this chapter" in b.text]
    if len(boxes) != 1:
        return out + [f"{len(boxes)} 'Re-run this chapter' boxes (want one)"]
    box = boxes[0]
    if "greenelm_book.running.runner run" in box.text:
        out.append("the re-run box is not folded")
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", box)
    box.find_element("css selector", "button, .admonition-title").click()
    try:
        from selenium.webdriver.support.ui import WebDriverWait

        WebDriverWait(driver, 5).until(lambda d: "greenelm_book.running.runner run" in box.text)
    except Exception:
        out.append("the re-run box does not open on the runner's command")
    return out


def check_book(html: Path, names: list[str], driver=None) -> None:
    """Open the intro and every chapter page of the built book at ``html`` and check them
    (in ``driver`` when given, else in a fresh headless Chromium)."""
    assert (html / "book" / "intro.html").is_file(), f"no intro page in {html}"
    if driver is None:
        with _chromium() as fresh:
            return check_book(html, names, fresh)
    problems: list[str] = []
    with _serve(html) as base:
        _open(driver, f"{base}/index.html")  # the redirect to the root page
        assert driver.current_url.endswith("book/intro.html"), driver.current_url
        assert BOOK_TITLE in driver.title, driver.title
        citations = driver.execute_script(
            "return Array.from(document.querySelectorAll('.citation-list .citation'))"
            ".map(e => e.innerText);")
        assert citations, "the intro's bibliography did not render"
        assert any("LeCun" in c for c in citations), citations
        assert not any("?" == c.strip() for c in citations)
        problems += [f"intro: {p}" for p in _error_outputs(driver) + _rendering_problems(driver)]

        for page in [p for p in toc.pages() if (html / p).with_suffix(".html").is_file()]:
            name = Path(page).stem
            _open(driver, f"{base}/{Path(page).with_suffix('.html')}")
            if not driver.find_elements("css selector", "article h1, main h1"):
                problems.append(f"{name}: page did not load properly (title {driver.title!r})")
                continue
            problems += [f"{name}: {p}" for p in _error_outputs(driver) + _rendering_problems(driver)]
            if name == "api" and not driver.find_elements("css selector", 'dt[id="greenelm.ELMClassifier"]'):
                problems.append("api: the ELMClassifier entry is missing (autodoc did not run)")

        for name in names:
            _open(driver, f"{base}/book/{name}.html")
            title = driver.title
            if BOOK_TITLE not in title or "404" in title or not driver.find_elements(
                    "css selector", "article h1, main h1"):
                problems.append(f"{name}: page did not load properly (title {title!r})")
                continue
            figures = _figures(driver)
            if name not in NO_FIGURE and not any(f["width"] > 0 for f in figures):
                problems.append(f"{name}: no figure rendered (images: {figures})")
            broken = [f["src"] for f in figures if f["width"] == 0]
            if broken:
                problems.append(f"{name}: images that did not decode: {broken}")
            problems += [f"{name}: {p}" for p in _error_outputs(driver) + _rendering_problems(driver)
                         + _wide_tables(driver)]
            problems += [f"{name}: {p}" for p in _rerun_box(driver)]
            if name == "scorecard":
                shown = set(driver.execute_script(
                    "return Array.from(document.querySelectorAll('tr[id^=\"claim-\"]')).map(r => r.id.slice(6));"))
                from greenelm_book.paper import CLAIMS
                missing = [c.id for c in CLAIMS if c.id not in shown]
                if missing:
                    problems.append(f"scorecard: {len(missing)} claim rows missing, e.g. {missing[:3]}")
    assert not problems, "\n".join(problems)


def test_reference_book_in_browser():
    source = toc.ROOT / "tests" / "notebooks"
    names = toc.chapters()
    if not any((source / f"{n}.ipynb").is_file() for n in names):
        pytest.skip("no smoke reference notebooks in tests/notebooks/ yet (make them with: "
                    "python -m greenelm_book.running.runner run --profile smoke --out tests/notebooks)")
    _require_browser()
    html = build.build_html(source, quiet=True)
    check_book(html, names)


def _broken_chapter():
    """A hand-made "executed" notebook with a traceback, an Error on stderr, a literal glue role
    (a stray backtick), no figure, a parameters cell (the build hides it) and no provenance (so
    no re-run box)."""
    import nbformat
    from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

    cell = new_code_cell("1/0", outputs=[
        new_output("stream", name="stderr", text="RuntimeError: something broke\n"),
        new_output("error", ename="ZeroDivisionError", evalue="division by zero",
                   traceback=["Traceback (most recent call last):", "ZeroDivisionError"])])
    stray = new_markdown_cell("A stray backtick prints the role: ``{glue:text}`value:.2f``.")
    wide = "<table>" + "<tr>" + "".join(f"<td>a-long-unbreakable-cell-{i}</td>" for i in range(30)) + "</tr></table>"
    table = new_code_cell("wide", outputs=[new_output("display_data", data={"text/html": wide})])
    params = new_code_cell('profile = "smoke"', metadata={"tags": ["parameters"]})
    nb = new_notebook(cells=[new_markdown_cell("# Broken"), params, stray, cell, table])
    nb.metadata["kernelspec"] = dict(execute.KERNELSPEC)
    return nbformat.writes(nb)


def test_tiny_book_in_browser(tiny_executed, tmp_path):
    _require_browser()
    source = tmp_path / "tiny-book"
    source.mkdir()
    shutil.copy2(tiny_executed.path, source / "tiny.ipynb")
    (source / "broken.ipynb").write_text(_broken_chapter())
    toc = tmp_path / "_toc.yml"
    toc.write_text(tiny_executed.project.toc_tiny.read_text() + "  - file: book/broken\n")
    html = build.build_html(source, toc=toc, build_root=tmp_path / "_build", quiet=True)
    assert html == tmp_path / "_build" / "tiny-book" / "html"
    page = (html / "book" / "tiny.html").read_text()
    assert '<span class="output text_plain">5</span>' in page, "the {glue:} role did not render"
    assert "tag_parameters" not in (html / "book" / "broken.html").read_text(), \
        "the build did not hide the parameters cell of a notebook executed without the runner"
    shown = html / "book" / "shown.html"
    shown.write_text('<html><body><h1>x</h1><div class="cell tag_parameters">profile = 1</div></body></html>')
    with _chromium() as driver:
        check_book(html, ["tiny"], driver)
        with _serve(html) as base:
            _open(driver, f"{base}/book/shown.html")
            assert _rerun_box(driver) == ["a parameters cell is shown",
                                          "0 'Re-run this chapter' boxes (want one)"]
        # the checks do catch a broken page
        with pytest.raises(AssertionError) as caught:
            check_book(html, ["broken"], driver)
    message = str(caught.value)
    for expected in ("broken: no figure rendered", "broken: error output",
                     "broken: a traceback in the page text", "broken: a literal MyST role on the page: {glue",
                     "broken: table 1 is", "broken: 0 'Re-run this chapter' boxes"):
        assert expected in message, message
    # stderr (progress bars) stays in the notebook but is not rendered (_config.yml nb_output_stderr)
    assert "something broke" not in (html / "book" / "broken.html").read_text()
