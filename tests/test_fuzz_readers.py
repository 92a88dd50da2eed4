"""Property-based fuzzing of every reader of user files (issue 34): WinoMT, GEST and word-sense
items, templates, name lists, parallel corpora, recipes, suites and a run's results.jsonl. Each
input is a shipped file of that kind with random damage (a span cut out, random text or bytes
put in, lines swapped), or random text; the reader must either read it or refuse it with an
MtdebiasError (what the CLI prints as one message, exit 2) — never another exception, a crash or
a hang. `make test` tries a few dozen inputs per reader; `make test-slow` many more."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mtdebias.errors import MtdebiasError

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "mtdebias" / "data"


def _winomt(path):
    from mtdebias.probes.winomt.probe import load_winomt
    return load_winomt(path)


def _gest(path):
    from mtdebias.probes.gest.probe import load_gest
    return load_gest(path)


def _gest_choice(path):
    from mtdebias.probes.gest.choice import load_choice_items
    return load_choice_items(path, lang=None)


def _wsd(path):
    from mtdebias.probes.wsd.items import load_items
    return load_items(path, wordnet=False)


def _templates(path):
    from mtdebias.probes.name_gender.probe import load_gender_templates
    return load_gender_templates(path)


def _sentiment(path):
    from mtdebias.probes.sentiment.probe import load_fillers
    return load_fillers(path)


def _names(path):
    from mtdebias.probes.name_gender.probe import read_name_file
    return read_name_file(path)


def _name_list(path):
    from mtdebias.names.lists import load_name_list
    target = path.with_name("first_female.txt")
    path.replace(target)
    return load_name_list("first_female", path.parent)


def _parallel(path):
    from mtdebias.textio import read_parallel
    other = path.with_name("other.txt")
    other.write_text("Eins.\nZwei.\nDrei.\n", encoding="utf-8")
    return read_parallel(path, other, max_chars=200)


def _recipe(path):
    from mtdebias.recipe.load import load_recipe
    return load_recipe(path)


def _suite(path):
    from mtdebias.evaluation.suite import load_suite
    return load_suite(path)


def _results(path):
    from mtdebias.store.runs import RunStore
    store = RunStore(path.parent / "run")
    results = store.eval_dir("step-0000001") / "results.jsonl"
    results.parent.mkdir(parents=True)
    path.replace(results)
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a bad row is a warning naming it: what is checked is no other exception
        return store.results("step-0000001"), store.all_results()


_RESULTS_SAMPLE = (b'{"probe": "quality.v1", "metric": "bleu", "value": 20.5, "ci": null, "n": 2, "signature": "s",'
                   b' "label": "quality", "request": "r"}\n'
                   b'{"probe": "winomt.v1", "metric": "accuracy", "value": NaN, "ci": [0.1, 0.2], "n": 0, "signature": "t"}\n')

# reader, a sample of the file it reads (the first lines of a shipped one), the name to give it
READERS = {
    "winomt": (_winomt, DATA / "templates" / "winomt_synth_en.txt", "winomt.tsv"),
    "gest": (_gest, DATA / "gest" / "gest_1.1.csv", "gest.csv"),
    "gest_choice": (_gest_choice, DATA / "gest" / "gest_1.1.csv", "choice.csv"),
    "wsd_items": (_wsd, DATA / "wsd" / "items.jsonl", "items.jsonl"),
    "name_templates": (_templates, DATA / "templates" / "name_gender_de.tsv", "templates.tsv"),
    "sentiment_fillers": (_sentiment, DATA / "templates" / "sentiment_fillers.tsv", "fillers.tsv"),
    "name_file": (_names, DATA / "names" / "first_female.txt", "names.txt"),
    "name_list": (_name_list, DATA / "names" / "first_female.txt", "names.txt"),
    "parallel": (_parallel, DATA / "templates" / "winomt_synth_en.txt", "source.txt"),
    "recipe": (_recipe, ROOT / "recipes" / "quickstart.toml", "recipe.toml"),
    "suite": (_suite, ROOT / "eval" / "quick.toml", "suite.toml"),
    "results": (_results, None, "results.jsonl"),
}


def _sample(path: Path | None) -> bytes:
    if path is None:
        return _RESULTS_SAMPLE
    return b"".join(path.read_bytes().splitlines(keepends=True)[:12])


PIECES = st.sampled_from([b"\t", b"\n", b",", b'"', b"\x00", b"\x1b", b"\xff", b"\xc3", b"{", b"}", b"[", b"=",
                          b"-1", b"1e308", b"NaN", b"null", b"\xef\xbb\xbf", b"\r\n", b"male", b"female",
                          b"[probes]", b"type = ", b"\\u0000"])
DAMAGE = st.lists(st.tuples(st.floats(0, 1), st.floats(0, 1),
                            st.one_of(PIECES, st.binary(max_size=8),
                                      st.text(max_size=12).map(lambda t: t.encode("utf-8", "surrogatepass")))),
                  min_size=1, max_size=4)


def _damage(sample: bytes, edits) -> bytes:
    data = sample
    for start, length, insert in edits:
        at = int(start * len(data))
        cut = int(length * min(40, len(data) - at)) if len(data) > at else 0
        data = data[:at] + insert + data[at + cut:]
    return data


def _check(reader, name: str, data: bytes) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / name
        path.write_bytes(data)
        try:
            reader(path)
        except MtdebiasError:
            pass  # refused with a message: fine


BUDGETS = [pytest.param(25, id="quick"), pytest.param(600, id="many", marks=pytest.mark.slow)]


@pytest.mark.parametrize("budget", BUDGETS)
@pytest.mark.parametrize("kind", sorted(READERS))
def test_a_damaged_file_is_read_or_refused_with_a_message(kind, budget):
    reader, sample_path, name = READERS[kind]
    sample = _sample(sample_path)
    _check(reader, name, sample)  # the undamaged sample reads (or is refused cleanly)

    @settings(max_examples=budget, deadline=None, database=None, derandomize=budget < 100,
              suppress_health_check=list(HealthCheck))
    @given(DAMAGE)
    def damaged(edits):
        _check(reader, name, _damage(sample, edits))

    damaged()


@pytest.mark.parametrize("budget", [pytest.param(10, id="quick"), pytest.param(300, id="many", marks=pytest.mark.slow)])
@pytest.mark.parametrize("kind", sorted(READERS))
def test_random_bytes_are_read_or_refused_with_a_message(kind, budget):
    reader, _, name = READERS[kind]

    @settings(max_examples=budget, deadline=None, database=None, derandomize=budget < 100,
              suppress_health_check=list(HealthCheck))
    @given(st.binary(max_size=300))
    def anything(data):
        _check(reader, name, data)

    anything()
