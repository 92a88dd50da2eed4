"""Whatever an OpenAI-compatible server answers (any status, headers, JSON or bytes; issue 40),
the openai backend gives a translation that the response cache and the run store keep and read
back as it was, or one one-line error (an MtdebiasError) naming the server: never another
exception, never a hang. A scripted server on 127.0.0.1 (tests/openai_server.py) sends what
hypothesis draws; each request has a 2 s deadline and one retry."""

from __future__ import annotations

import io
import json
import re
import sys
import warnings

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from mtdebias.cli import main
from mtdebias.errors import MtdebiasError
from mtdebias.store.runs import RunStore
from mtdebias.translators.openai_api import OpenAITranslator
from openai_server import ScriptedServer, send
from test_stored_text import TEXT

SCALARS = st.none() | st.booleans() | st.integers() | st.floats() | TEXT
VALUES = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
                      max_leaves=12)
CONTENT = TEXT | VALUES
CHOICE = st.fixed_dictionaries({"message": st.fixed_dictionaries({"content": CONTENT}) | VALUES}) | VALUES
USAGE = (st.fixed_dictionaries({}, optional={"prompt_tokens": VALUES | st.integers(), "completion_tokens": VALUES})
         | VALUES)
COMPLETION = st.fixed_dictionaries(
    {"choices": st.lists(CHOICE, max_size=3) | VALUES},
    optional={"usage": USAGE, "model": TEXT | VALUES, "prompt_logprobs": VALUES, "id": VALUES})


@st.composite
def bodies(draw) -> bytes:
    kind = draw(st.sampled_from(["completion", "completion", "json", "bytes"]))
    if kind == "bytes":
        return draw(st.binary(max_size=200))
    value = draw(COMPLETION if kind == "completion" else VALUES)
    # raw UTF-8, or ASCII with \u escapes; a lone surrogate sent raw is itself invalid UTF-8
    text = json.dumps(value, ensure_ascii=draw(st.booleans()))
    return text.encode("utf-8", "surrogatepass")


RETRY_AFTER = st.sampled_from(["0", "0.01", "1e9", "inf", "nan", "-1", "soon", "", "Wed, 21 Oct 2015 07:28:00 GMT",
                               "Fri, 31 Dec 9999 23:59:59 GMT"]) | st.text(st.characters(max_codepoint=255,
                                                                                          blacklist_characters="\r\n"),
                                                                            max_size=20)
HEADER_VALUE = st.text(st.characters(max_codepoint=255, blacklist_characters="\r\n"), max_size=20)
HEADERS = st.lists(st.tuples(st.just("Retry-After"), RETRY_AFTER)
                   | st.tuples(st.sampled_from(["Content-Type", "X-Request-Id", "Transfer-Encoding", "Connection"]),
                               HEADER_VALUE), max_size=3)
STATUS = st.sampled_from([200, 200, 200, 429, 500, 503, 400]) | st.integers(100, 599)
REPLIES = st.tuples(STATUS, HEADERS, bodies())
BUDGETS = [pytest.param(40, id="quick"), pytest.param(400, id="many", marks=pytest.mark.slow)]
# what a terminal or a line reader would take for something else than text
UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]")


class Scripted:
    """A server that answers every request with the reply of the current example."""

    def __init__(self):
        self.reply = (200, [], b"")
        self.server = ScriptedServer(self._answer)

    def _answer(self, handler, body):
        status, headers, data = self.reply
        send(handler, data, status=status, headers=headers)


def _expected(status: int, data: bytes) -> str | None:
    """The translation a sound client makes of the reply (None: it must be refused)."""
    if status != 200:
        return None
    try:
        choice = json.loads(data)["choices"][0]
        return choice["message"]["content"].strip()
    except Exception:
        return None


def _each_reply(budget: int, check) -> None:
    """``check(url, scripted, reply)`` for ``budget`` replies drawn by hypothesis, each sent by
    the scripted server at ``url`` (``scripted.reply`` may be changed for what follows)."""
    scripted = Scripted()
    with scripted.server as server:
        @settings(max_examples=budget, deadline=None, database=None, derandomize=budget < 100,
                  suppress_health_check=list(HealthCheck))
        @given(REPLIES)
        def one(drawn):
            scripted.reply = drawn
            check(server.url, scripted, drawn)

        one()


@pytest.mark.timeout(600)
@pytest.mark.parametrize("budget", BUDGETS)
def test_any_reply_is_a_translation_read_back_identically_or_a_one_line_error(tmp_path_factory, budget):
    def check(url, scripted, drawn):
        folder = tmp_path_factory.mktemp("run")
        client = OpenAITranslator.from_spec(f"tiny@{url}", tgt_lang="de", backoff=0.001, timeout=2, retries=1,
                                            cache_dir=folder / "cache")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                out = client.translate(["The dog sleeps."])
            except MtdebiasError as error:
                message = str(error)
                assert message.startswith(f"{url}: ") and not UNSAFE.search(message), message
                assert "\n" not in message
                return
        assert all("\n" not in str(w.message) and not UNSAFE.search(str(w.message)) for w in caught)
        status, _, data = drawn
        assert out == [_expected(status, data)]
        store = RunStore(folder / "store")  # the translation through the run store and back
        store.write_attempts("step-0000001", "quality.v1", [{"hypothesis": out[0]}])
        assert store.read_attempts("step-0000001", "quality.v1") == [{"hypothesis": out[0]}]
        scripted.reply = (500, [], b"gone")  # a rerun is answered by the cache alone
        rerun = OpenAITranslator.from_spec(f"tiny@{url}", tgt_lang="de", backoff=0.001, timeout=2, retries=0,
                                           cache_dir=folder / "cache")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the served model's name was warned about above
            assert rerun.translate(["The dog sleeps."]) == out and rerun.usage["cached"] == 1

    _each_reply(budget, check)


@pytest.mark.timeout(600)
@pytest.mark.parametrize("budget", [pytest.param(15, id="quick"), pytest.param(200, id="many", marks=pytest.mark.slow)])
def test_translate_prints_any_reply_as_one_safe_line_or_one_error_line(budget, monkeypatch, capsys):
    def check(url, scripted, drawn):
        monkeypatch.setattr(sys, "stdin", io.StringIO("The dog sleeps.\n"))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            code = main(["translate", f"openai:tiny@{url}", "--tgt-lang", "de", "--translator-option", "timeout=2",
                         "--translator-option", "retries=1", "--translator-option", "backoff=0.001"])
        out, err = capsys.readouterr()
        if code == 0:
            assert out.count("\n") == 1 and out.endswith("\n") and not UNSAFE.search(out[:-1]), out
        else:
            # one error line, after the line that says how translate decodes (printed before any request)
            notice, _, error = err.partition("\n")
            assert notice.startswith("mtdebias translate: greedy decoding"), err
            assert code == 2 and out == "" and error.count("\n") == 1
            assert error.startswith("mtdebias translate: error: ")
            err = error
            assert not UNSAFE.search(err[:-1]), err

    _each_reply(budget, check)
