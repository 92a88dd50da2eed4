"""The documentation site: it builds offline with --strict (a broken link or a missing page
fails), its reference pages are generated from the code, and Chromium renders them."""

from __future__ import annotations

import argparse
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# the reference generator lives beside the MkDocs hook that uses it, outside the package
sys.path.insert(0, str(ROOT / "docs" / "hooks"))


def test_reference_pages_follow_the_code():
    """A new CLI option appears in the reference without editing any page; so do every probe
    and every recipe section."""
    from mtdebias.cli import build_parser
    from docs_reference import cli_reference, probe_reference, recipe_reference, shipped_reference
    from mtdebias.probes.registry import PROBES

    parser = build_parser()
    verbs = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    verbs.choices["eval"].add_argument("--brand-new-option", help="added by this test")
    page = cli_reference(parser)
    assert "`--brand-new-option`" in page and "added by this test" in page
    assert "`--brand-new-option`" not in cli_reference()
    assert "``" not in page  # an empty-string default is no default
    probes = probe_reference()
    assert all(f"## `{name}`" in probes for name in PROBES.entries)
    assert "| `delta_i_*` | lower | bootstrap | not declared |" in probes
    assert "| `delta_h_*` | lower | bootstrap | [-9, 1] or undefined (NaN) |" in probes  # a declared range
    assert "ΔI = (I(y_correct) − I(y_incorrect))" in probes  # definitions from the metric modules' docstrings
    assert "SFII: non-MISS items grouped by μ" in probes and "``" not in probes and ":func:" not in probes
    recipe = recipe_reference()
    for section in ("run", "data", "tokenizer", "model", "train", "augment", "debias", "eval", "ablate"):
        assert f"## `[{section}]`" in recipe
    assert "| `mixed_precision` | str | `'no'` | no, fp16, bf16 |" in recipe
    assert "| `backend` | str | `'hf'` | hf, ct2 |" in recipe  # the suite's keys, from mtdebias/evaluation/suite.py
    assert all(f"`{name}`" in recipe.split("### `[[probe]]`")[1] for name in PROBES.entries)
    shipped = shipped_reference()
    assert all(f"### `recipes/{path.name}`" in shipped for path in (ROOT / "recipes").glob("*.toml"))
    assert all(f"### `eval/{path.name}`" in shipped for path in (ROOT / "eval").glob("*.toml"))
    assert "    make apertium-table" in shipped  # a command in a file's opening comment is a code block


def test_shipped_reference_follows_a_new_recipe(tmp_path):
    from docs_reference import shipped_reference

    (tmp_path / "recipes").mkdir()
    (tmp_path / "eval").mkdir()
    (tmp_path / "recipes" / "mine.toml").write_text(
        '# My recipe.\n#   mtdebias train recipes/mine.toml\n\n[model]\ninit = "some/model"\n'
        '[augment]\nmethod = "switch_entity.v1"\n', encoding="utf-8")
    page = shipped_reference(tmp_path)
    assert "### `recipes/mine.toml`\n\nMy recipe.\n\n    mtdebias train recipes/mine.toml\n" in page
    assert "model: `some/model`; augment: `switch_entity.v1`" in page


def _mkdocs() -> list[str]:
    if importlib.util.find_spec("mkdocs") is None or importlib.util.find_spec("material") is None:
        pytest.skip("mkdocs / mkdocs-material are not installed (pip install 'mtdebias[docs]')")
    return [sys.executable, "-m", "mkdocs"]


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    out = tmp_path_factory.mktemp("site")
    done = subprocess.run([*_mkdocs(), "build", "--strict", "--site-dir", str(out)],
                          cwd=ROOT, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert done.returncode == 0, done.stderr[-3000:]
    return out


def test_strict_build_fails_on_a_page_left_out_of_the_nav_and_on_a_missing_anchor(tmp_path):
    """The guards the site relies on: a page nobody added to the nav, or a link to an anchor that
    does not exist, stops the build (as a missing page does)."""
    shutil.copytree(ROOT / "docs", tmp_path / "docs")
    shutil.copy(ROOT / "mkdocs.yml", tmp_path / "mkdocs.yml")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "PYTHONPATH": str(ROOT)}
    (tmp_path / "docs" / "orphan.md").write_text("# Orphan\n\n[probes](probes.md#no-such-anchor)\n", encoding="utf-8")
    done = subprocess.run([*_mkdocs(), "build", "--strict", "--site-dir", str(tmp_path / "site")],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode != 0
    assert "orphan.md" in done.stderr and "no-such-anchor" in done.stderr, done.stderr[-2000:]


def test_site_builds_strict_with_generated_reference_and_no_web_fonts(site):
    for page in ("index.html", "reference/cli/index.html", "reference/probes/index.html",
                 "reference/recipe/index.html", "reference/shipped/index.html", "quickstart/index.html",
                 "hub-models/index.html"):
        assert (site / page).is_file(), page
    home = (site / "index.html").read_text(encoding="utf-8")
    assert "fonts.googleapis" not in home and "fonts.gstatic" not in home
    assert not (site / "hooks").exists()  # the build hook is not published


def _dom(url: str) -> str:
    profile = tempfile.mkdtemp()
    try:
        done = subprocess.run([shutil.which("chromium"), "--headless", "--no-sandbox", "--disable-gpu",
                               "--disable-quic", "--no-first-run", "--disable-background-networking",
                               "--disable-component-update", "--disable-sync", f"--user-data-dir={profile}",
                               "--dump-dom", url], capture_output=True, text=True, timeout=120, check=True)
    finally:
        shutil.rmtree(profile, ignore_errors=True)
    return done.stdout


@pytest.mark.skipif(shutil.which("chromium") is None, reason="chromium is not installed")
def test_chromium_renders_home_and_reference_with_their_tables(site):
    home = _dom((site / "index.html").resolve().as_uri())
    assert "Start with" in home and "mtdebias" in home
    cli = _dom((site / "reference" / "cli" / "index.html").resolve().as_uri())
    assert cli.count("<table") >= 9  # one per verb at least
    assert "--suite" in cli and "--revision" in cli
    quickstart = _dom((site / "quickstart" / "index.html").resolve().as_uri())
    assert "<table" in quickstart and "quickstart-vanilla" in quickstart  # the generated results block


def test_readme_is_short_and_its_results_are_the_generated_block():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 200
    commands = readme.split("```bash\n", 1)[1].split("```", 1)[0].splitlines()  # the first code block
    assert [line.split()[:2] for line in commands] == [["make", "demo"], ["make", "test"]]
    assert "<!-- begin: quickstart-results -->" in readme and "<!-- end: quickstart-results -->" in readme
    links = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", readme)  # [text](target) and ![alt](image)
    assert links and not [link for link in links if "://" not in link and not (ROOT / link).exists()]
    assert not [line for line in _outside_generated_blocks(readme).splitlines() if line.startswith("| ")]
    # a change the prose quotes ("ΔAcc 0.161 → 0.092") is the table's: both values are in a generated block,
    # or are the two values of a paired test (on the items both models kept) in a page's generated table
    generated = " ".join(body for _, body in re.findall(r"(?s)<!-- begin: ([\w.-]+) -->(.*?)<!-- end: \1 -->", readme))
    tested = {(f"{base:.3f}", f"{variant:.3f}") for page in _TESTED_PAGES
              for base, variant, _ in _paired_rows((ROOT / page).read_text(encoding="utf-8"))}
    quoted = re.findall(r"(-?\d+\.\d+) → (-?\d+\.\d+)", _outside_generated_blocks(readme))
    assert quoted and not [pair for pair in quoted if not all(value in generated for value in pair)
                           and pair not in tested], quoted


# a p-value quoted in prose ("p = 0.028"), and the two values before it that its test compared
# ("0.156 → 0.097", "from 0.156 to 0.097"), in the same sentence
_P_VALUE = re.compile(r"\bp = (\d+(?:\.\d+)?)")
_PAIR = re.compile(r"(-?\d+(?:\.\d+)?)\s+→\s+(-?\d+(?:\.\d+)?)|from\s+(-?\d+(?:\.\d+)?)\s+to\s+(-?\d+(?:\.\d+)?)")
# pages whose prose quotes the paired tests of their generated blocks
_TESTED_PAGES = ("README.md", "docs/quickstart.md", "docs/llm-finetuning.md", "docs/bible.md")


def _prose_pages() -> list[str]:
    """README and every page under docs/: any may quote a p-value, each is checked."""
    return ["README.md"] + sorted(str(path.relative_to(ROOT)) for path in (ROOT / "docs").rglob("*.md"))


def _paired_rows(markdown: str) -> list[tuple[float, float, float]]:
    """(baseline, variant, p) of every row of a generated paired-test table."""
    rows = []
    for _, body in re.findall(r"(?s)<!-- begin: ([\w.-]+) -->(.*?)<!-- end: \1 -->", markdown):
        header: list[str] | None = None
        for line in body.splitlines():
            cells = [cell.strip() for cell in line.strip().strip("|").split("|")] if line.startswith("|") else None
            if cells is None or set(line) <= set("|-"):
                header = None if cells is None else header
                continue
            if header is None:
                header = cells
            elif {"baseline", "variant", "p"} <= set(header):
                values = dict(zip(header, cells))
                if values["p"] == "—":  # a metric undefined for a system: not tested, no p to quote
                    continue
                rows.append((float(values["baseline"]), float(values["variant"]), float(values["p"])))
    return rows


def _quoted_p_values(markdown: str) -> list[tuple[str, tuple[float, float] | None, str]]:
    """(sentence, the two values compared or None, p as written) of every p-value in the prose
    (outside generated blocks and code); a rank correlation's p (after τ) compares no two values."""
    prose = re.sub(r"(?s)```.*?```|`[^`\n]*`", "", _outside_generated_blocks(markdown)).replace("−", "-")
    found = []
    for match in _P_VALUE.finditer(prose):
        start = max(prose.rfind(". ", 0, match.start()), prose.rfind("\n\n", 0, match.start()),
                    prose.rfind("\n* ", 0, match.start()), prose.rfind(";", 0, match.start()))
        sentence = prose[start + 1:match.end()]
        if "τ" in sentence:
            continue
        pairs = _PAIR.findall(sentence)
        last = [value for value in pairs[-1] if value] if pairs else None
        found.append((" ".join(sentence.split()), (float(last[0]), float(last[1])) if last else None, match.group(1)))
    return found


def test_every_p_value_in_the_prose_sits_beside_the_two_values_its_test_compared():
    """A p-value belongs to the two values of one paired test: "ΔAcc 0.161 → 0.097 (p = 0.028)"
    is wrong when the test compared 0.156 and 0.097 on the items both models kept."""
    pages = {name: (ROOT / name).read_text(encoding="utf-8") for name in _prose_pages()}
    everywhere = [row for text in pages.values() for row in _paired_rows(text)]
    wrong = []
    for name, text in pages.items():
        # a page with paired-test tables quotes its own; the README and the others, anyone's
        rows = _paired_rows(text) if name != "README.md" and _paired_rows(text) else everywhere
        for sentence, pair, p in _quoted_p_values(text):
            digits = len(p.split(".")[1]) if "." in p else 0
            ok = pair is not None and any(
                round(base, 3) == round(pair[0], 3) and round(variant, 3) == round(pair[1], 3)
                and abs(row_p - float(p)) <= 0.5 * 10 ** -digits + 1e-9 for base, variant, row_p in rows)
            if not ok:
                wrong.append(f"{name}: {sentence}")
    assert not wrong, wrong


def test_the_prose_p_value_check_finds_a_p_value_beside_the_wrong_values():
    table = ("<!-- begin: x -->\n| seed | variant | baseline | variant | p |\n|---|---|---|---|---|\n"
             "| 1 | a | 0.101 | 0.015 | 0.0070 |\n<!-- end: x -->\n")
    assert _paired_rows(table) == [(0.101, 0.015, 0.007)]
    assert _quoted_p_values(table + "\nIt takes ΔAcc 0.115 → 0.003 (paired p = 0.007).\n")[0][1] == (0.115, 0.003)
    assert _quoted_p_values(table + "\nΔAcc from 0.101 to 0.015 (p = 0.007).\n")[0][1] == (0.101, 0.015)
    assert _quoted_p_values("BLEU is lower (p = 0.14).")[0][1] is None
    assert _paired_rows(table.replace("| 1 | a | 0.101 | 0.015 | 0.0070 |", "| 1 | a | undefined | 0.015 | — |")) == []


def test_the_prose_p_value_check_reads_every_page_of_the_docs():
    pages = _prose_pages()
    assert {"README.md", "docs/quickstart.md", "docs/papers.md", "docs/reports.md"} <= set(pages)
    assert set(_TESTED_PAGES) <= set(pages) and len(pages) == 1 + len(list((ROOT / "docs").rglob("*.md")))


def _outside_generated_blocks(markdown: str) -> str:
    """The text outside the `<!-- begin: X -->` … `<!-- end: X -->` blocks that
    `python -m mtdebias.report.readme` fills: a result table anywhere else was typed by hand."""
    return re.sub(r"(?s)<!-- begin: ([\w.-]+) -->.*?<!-- end: \1 -->", "", markdown)


def test_every_generated_block_names_the_report_it_was_copied_from():
    """Every block between the markers, in the README and in every docs page, is the tool's output:
    its first line names the stored report it was copied from (or, for a benchmark's table, the
    benchmark script that wrote it)."""
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    blocks = [(page.name, marker, body) for page in pages for marker, body in
              re.findall(r"(?s)<!-- begin: ([\w.-]+) -->\n(.*?)<!-- end: \1 -->", page.read_text(encoding="utf-8"))]
    assert {marker for _, marker, _ in blocks} >= {"quickstart-results", "bible-study-results", "bible-results"}
    for page, marker, body in blocks:
        first = body.strip().splitlines()[0] if body.strip() else ""
        by_report = first.startswith("<!-- generated from ") and "mtdebias.report.readme" in first
        by_bench = re.match(r"<!-- generated by `python bench/\w+\.py", first) is not None
        by_registry = first.startswith("<!-- generated by `python docs/hooks/docs_reference.py`")  # the probes table
        assert by_report or by_bench or by_registry, (page, marker, first)


# what Markdown left as text in a rendered paragraph: a list marker starting a line (a list
# indented too little to nest, or not set off by a blank line) or a bold marker it did not pair
_UNRENDERED = re.compile(r"^\s*(?:[*+-]|\d+\.)\s|\*\*", re.M)


def unrendered(markdown_text: str) -> list[str]:
    """Lines of rendered paragraphs that still hold Markdown syntax, rendered with the
    ``markdown`` package and the extensions mkdocs.yml gives the site."""
    import markdown

    html = markdown.markdown(markdown_text, extensions=["tables", "admonition", "toc"])
    found = []
    for paragraph in re.findall(r"<p>(.*?)</p>", html, re.S):
        text = re.sub(r"<code>.*?</code>", "`code`", paragraph, flags=re.S)  # literal syntax in code is meant
        found += [line.strip() for line in text.split("\n") if _UNRENDERED.search(line)]
    return found


def test_the_check_finds_lists_markdown_did_not_render():
    # an item's second paragraph indented 3 spaces: the next item joins that paragraph
    assert unrendered("1. one\n\n   more of one\n2. two:\n   * a\n") == ["2. two:", "* a"]
    assert unrendered("Three things:\n* a\n* b\n") == ["* a", "* b"]
    assert unrendered("a **bold word\n") == ["a **bold word"]
    assert unrendered("1. one\n\n    more of one\n\n2. two:\n    * a\n\nThree things:\n\n* a\n* b `**x`\n") == []


@pytest.mark.parametrize("page", sorted(str(p.relative_to(ROOT)) for p in (ROOT / "docs").rglob("*.md"))
                         + ["README.md"])
def test_every_page_renders_its_lists_and_emphasis(page):
    left = unrendered((ROOT / page).read_text(encoding="utf-8"))
    assert not left, f"{page}: Markdown left as text (nest lists by 4 spaces, set lists off by a blank line): {left}"


# --------------------------------------------------------------------------- docs agree with the Makefile

DURATION = re.compile(r"(?:~|about |around |near |under )?\b\d+(?:[.,]\d+)?(?:\s*[–-]\s*\d+)?\s*(?:min(?:utes?)?|h|hours?)\b"
                      r"|\ban hour\b|\ba minute\b|\b\d+-minute\b")


def make_durations(makefile: Path = ROOT / "Makefile") -> dict[str, str]:
    """target → its `# duration:` phrase (the line above the target, comments and variables between)."""
    out, pending = {}, None
    for line in makefile.read_text(encoding="utf-8").splitlines():
        if line.startswith("# duration: "):
            pending = line.removeprefix("# duration: ").strip()
        elif pending and (target := re.match(r"^([\w-]+):(?!=)", line)):
            out[target.group(1)] = pending
            pending = None
    return out


def doc_pages() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def duration_claims(text: str) -> list[tuple[str, str]]:
    """(target, what follows its mention up to the end of the sentence, table cell or paragraph)
    for every `make TARGET` in ``text`` followed there by a duration."""
    claims = []
    for match in re.finditer(r"make ([\w-]+)(?![\w-])", text):
        rest = text[match.end():match.end() + 240]
        end = min([i for i in (rest.find("\n\n"), rest.find(". "), rest.find(" |"), rest.find("make "))
                   if i >= 0] + [len(rest)])
        window = " ".join(rest[:end].split())
        if DURATION.search(window):
            claims.append((match.group(1), window))
    return claims


def test_durations_are_the_makefiles_word_for_word():
    """issue 43: `make study-llm` was "about an hour", "77 min" and "50 min" on three pages, `make
    demo` 15 or 20 minutes. A duration said after `make TARGET` is the Makefile's phrase for it."""
    durations = make_durations()
    assert {"demo", "test", "study-llm", "real-llms", "llamacpp"} <= set(durations), durations
    wrong = []
    for page in doc_pages():
        for target, window in duration_claims(page.read_text(encoding="utf-8")):
            phrase = durations.get(target)
            left = window.replace(phrase, "") if phrase else window
            if phrase is None or DURATION.search(left):
                wrong.append(f"{page.relative_to(ROOT)}: make {target} … {window!r} (Makefile: {phrase!r})")
    assert wrong == []


def test_the_duration_check_catches_a_stray_figure(tmp_path):
    makefile = tmp_path / "Makefile"
    makefile.write_text("# duration: about 20 min on 2 cores\nX := 1\ndemo: stamp\n\tdo it\n", encoding="utf-8")
    assert make_durations(makefile) == {"demo": "about 20 min on 2 cores"}
    assert duration_claims("`make demo` (about 15 minutes) trains models.") == [
        ("demo", "` (about 15 minutes) trains models.")]
    assert duration_claims("make demo   # runs it (~20 min on 2 cores)\nmake test") == [
        ("demo", "# runs it (~20 min on 2 cores)")]


def test_sizes_in_the_docs_are_the_suites():
    """Sizes of the released-model suites are said as the suite files set them (not-verified.md
    said "6 templates × 20 fillers" of a suite with 4). The suites now run at full size (their
    `size:` lines); a page may still describe the earlier subset run, but only in a paragraph that
    says it was the earlier one."""
    import tomllib

    zh = (ROOT / "eval" / "released" / "zh.toml").read_text(encoding="utf-8")
    sentiment = next(p for p in tomllib.loads(zh)["probe"] if p["type"].startswith("sentiment"))
    assert "templates_limit" not in sentiment and "fillers_limit" not in sentiment  # full size
    full = re.search(r"size: ([\d,]+) items: every template \((\d+)\) × every filler \((\d+)", zh)
    assert full, "eval/released/zh.toml: no size: line for the sentiment probe"
    said = f"{full.group(2)} templates × {full.group(3)} fillers"
    for page in doc_pages():
        for paragraph in page.read_text(encoding="utf-8").split("\n\n"):
            text = " ".join(paragraph.split())
            for found in re.findall(r"\d+ templates × \d+ fillers", text):
                assert found == said or "earlier" in text, \
                    f"{page.relative_to(ROOT)}: {found!r}, but eval/released/zh.toml runs {said!r}"


def test_the_docs_do_not_deny_what_the_readme_shows():
    """Two released models are installed and scored, and the LLM study's table is in the README:
    no page says no model was downloaded, or that the study has not been run."""
    readme = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    assert "<!-- begin: llm-study-results -->" in readme and "<!-- begin: released-llm-results -->" in readme
    for page in doc_pages():
        text = " ".join(page.read_text(encoding="utf-8").split())
        assert "no model was downloaded" not in text, page
        for target, window in [(m.group(1), text[m.end():m.end() + 300]) for m in re.finditer(r"make (study-llm)\b", text)]:
            assert "has not been run" not in window.split(". ")[0], (page, window)


# --------------------------------------------------------------------------- the site's tables and blocks


def test_every_generated_option_row_says_what_the_option_does():
    """issue 43: the probe reference listed e.g. `limit | int | None | None` with no description."""
    from docs_reference import PAGES, _built_in_probes, generate
    from mtdebias.evaluation.suite import probe_options

    empty = []
    for page in PAGES:
        header = None
        for line in generate(page).splitlines():
            if not line.startswith("|"):
                header = None
                continue
            cells = [cell.strip() for cell in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
            if header is None:
                header = cells
            elif not line.startswith("|---") and "what" in header and cells[header.index("what")] in ("", "—"):
                empty.append(f"{page}: {cells[0]}")
    assert empty == []
    for name, probe_class in _built_in_probes():  # no description of an option that is not there
        assert set(getattr(probe_class, "option_help", {})) <= set(probe_options(name)), name


def test_the_probes_table_is_the_registrys():
    """issue 43: the hand-written table left out gest_choice.v1; it is generated now."""
    from docs_reference import PROBES_TABLE, PROBES_TABLE_NOTE, _built_in_probes, probes_table

    text = (ROOT / "docs" / "probes.md").read_text(encoding="utf-8")
    table = probes_table()
    assert f"<!-- begin: {PROBES_TABLE} -->\n{PROBES_TABLE_NOTE}\n{table}\n<!-- end: {PROBES_TABLE} -->" in text, \
        "docs/probes.md's table is stale: run python docs/hooks/docs_reference.py"
    assert all(f"[`{name}`]" in table for name, _ in _built_in_probes()) and "`gest_choice.v1`" in table


def test_the_home_pages_commands_fit_without_a_scrollbar():
    """issue 43: the `make demo` line of the home page was cut behind a horizontal scrollbar. A
    code line of at most 72 characters fits the content column of the site's theme."""
    text = (ROOT / "docs" / "index.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```\w*\n(.*?)```", text, re.S)
    assert blocks and [line for block in blocks for line in block.splitlines() if len(line) > 72] == []


def test_the_site_keeps_table_names_whole(site):
    home = (site / "index.html").read_text(encoding="utf-8")
    assert "assets/extra.css" in home
    css = (site / "assets" / "extra.css").read_text(encoding="utf-8")
    assert "td:first-child code" in css and "white-space: nowrap" in css
