"""The openai translator against servers that misbehave (issue 34): a reply dripped a byte at a
time, a body cut short, a reply far larger than asked for, an error that echoes the key, a reply
from another model, and Ctrl-C while requests are in flight. The server is a raw HTTP server
started here on 127.0.0.1, each test scripting what it sends (no model needed)."""

from __future__ import annotations

import json
import os
import signal
import threading
import time
import warnings
from http.server import BaseHTTPRequestHandler

import pytest

from mtdebias.errors import MtdebiasError
from mtdebias.translators.openai_api import OpenAITranslator
from openai_server import ScriptedServer, completion, send

KEY = "sk-test-0123456789abcdef"


def client(url, **options):
    return OpenAITranslator.from_spec(f"tiny@{url}", tgt_lang="de", backoff=0.01, **options)


def test_a_reply_dripped_byte_by_byte_ends_at_the_total_deadline():
    def drip(handler, body):
        handler.send_response(200)
        handler.send_header("Content-Length", "5000")
        handler.end_headers()
        for _ in range(200):  # one byte every 0.2 s: each read is quick, the whole reply takes 40 s
            handler.wfile.write(b" ")
            handler.wfile.flush()
            if handler.server_stop.wait(0.2):
                return

    with ScriptedServer(drip) as server:
        ScriptedServer.server_stop = server.stop
        started = time.monotonic()
        with pytest.raises(MtdebiasError, match=r"no answer after 2 tries \(no complete reply within 1 s\)"):
            client(server.url, timeout=1, retries=1).translate(["The dog sleeps."])
        assert time.monotonic() - started < 4  # two tries of 1 s each, not 40 s


@pytest.fixture(autouse=True)
def _server_stop_on_handler(monkeypatch):
    # handlers reach their server's stop event through this attribute
    monkeypatch.setattr(BaseHTTPRequestHandler, "server_stop", property(lambda self: ScriptedServer.server_stop),
                        raising=False)


def test_a_body_cut_short_is_retried_then_a_clear_error(tmp_path):
    tries = []

    def cut(handler, body):
        tries.append(1)
        if len(tries) == 2:  # the first request's second try is whole
            send(handler, completion())
            return
        send(handler, completion()[:20], length=200)  # declares 200 bytes, sends 20, closes
        handler.close_connection = True

    with ScriptedServer(cut) as server:
        assert client(server.url, retries=2, cache_dir=tmp_path).translate(["The dog sleeps."]) == ["Hallo."]
        # from now on every try is cut
        with pytest.raises(MtdebiasError, match=r"no answer after 2 tries \(the reply was cut short"):
            client(server.url, retries=1).translate(["Another sentence."])
    lines = (tmp_path / "responses.jsonl").read_text().splitlines()
    assert len(lines) == 1 and json.loads(lines[0])["response"]["choices"][0]["message"]["content"] == "Hallo."


@pytest.mark.parametrize("declared", [True, False])
def test_a_reply_larger_than_the_limit_is_refused_and_not_stored(tmp_path, declared):
    big = completion("x" * 200_000)

    def huge(handler, body):
        if declared:
            send(handler, big)
        else:  # no Content-Length: the size is only known while reading
            handler.send_response(200)
            handler.end_headers()
            handler.wfile.write(big)
            handler.close_connection = True

    with ScriptedServer(huge) as server:
        with pytest.raises(MtdebiasError, match="larger than max_reply_bytes=100000 .*nothing of it was stored"):
            client(server.url, max_reply_bytes=100_000, cache_dir=tmp_path).translate(["The dog sleeps."])
        # the default limit (16 MiB) lets an ordinary large reply through
        assert client(server.url).translate(["The dog sleeps."]) == ["x" * 200_000]
    assert not (tmp_path / "responses.jsonl").exists()


def test_an_error_that_echoes_the_key_is_printed_redacted(monkeypatch, capsys):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)

    def echo(handler, body):
        text = (f"bad request; you sent Authorization: {handler.headers['Authorization']} and "
                f'{{"api-key": "other-secret-42"}} and the key again: {KEY}').encode()
        send(handler, text, status=400)

    with ScriptedServer(echo) as server:
        with pytest.raises(MtdebiasError) as error:
            client(server.url).translate(["The dog sleeps."])
    message = str(error.value)
    assert "HTTP 400" in message and "Authorization: Bearer [redacted]" in message
    assert KEY not in message and "other-secret-42" not in message and "again: [redacted]" in message


def test_the_served_model_is_recorded_and_a_mismatch_warned_or_refused(tmp_path):
    def other(handler, body):
        send(handler, completion(model="someone-else-7b"))

    with ScriptedServer(other) as server:
        translator = client(server.url, cache_dir=tmp_path)
        with pytest.warns(UserWarning, match="asked for model 'tiny', the reply names 'someone-else-7b'"):
            assert translator.translate(["The dog sleeps."]) == ["Hallo."]
        assert translator.served_models == {"someone-else-7b"}
        with pytest.raises(MtdebiasError, match="strict_model=true refuses"):
            client(server.url, strict_model=True).translate(["Another one."])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a dated snapshot of the name asked for is the same model
        with ScriptedServer(lambda h, b: send(h, completion(model="tiny-2024-08-06"))) as server:
            client(server.url).translate(["The dog sleeps."])


@pytest.fixture
def ctrl_c_raises():
    """SIGINT raises KeyboardInterrupt, as in a terminal, even in a test run started in the
    background from a script (which ignores SIGINT)."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def test_ctrl_c_stops_within_a_second_while_the_server_hangs(tmp_path, ctrl_c_raises):
    def answer_first_then_hang(handler, body):
        if "first" in json.dumps(body):
            send(handler, completion())
            return
        handler.server_stop.wait(60)  # a server that never answers

    with ScriptedServer(answer_first_then_hang) as server:
        ScriptedServer.server_stop = server.stop
        translator = client(server.url, cache_dir=tmp_path, concurrency=2, timeout=120)
        translator.translate(["first"])
        timer = threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT))
        timer.start()
        started = time.monotonic()
        with pytest.raises(KeyboardInterrupt):
            translator.translate([f"sentence {k}" for k in range(6)])
        assert time.monotonic() - started < 1.5
    lines = (tmp_path / "responses.jsonl").read_text().splitlines()
    assert len(lines) == 1 and all(json.loads(line)["key"] for line in lines)  # whole lines only


def test_eval_on_a_full_disk_stops_with_a_message_and_a_rerun_resumes(tmp_path, monkeypatch, capsys):
    """The audit's case 1: with the run folder on a full disk, eval against a server printed
    nothing for 10 minutes (a lock taken, its owner record failing, the other workers waiting)."""
    import errno

    from mtdebias.cli import main

    monkeypatch.chdir(tmp_path)
    (tmp_path / "src.en").write_text("".join(f"The dog {k} sleeps.\n" for k in range(8)))
    (tmp_path / "ref.de").write_text("".join(f"Der Hund {k} schläft.\n" for k in range(8)))
    (tmp_path / "q.toml").write_text('[suite]\nname = "q"\n\n[[probe]]\ntype = "quality.v1"\nlang = "de"\n'
                                     f'src = "{tmp_path}/src.en"\nref = "{tmp_path}/ref.de"\n')
    with ScriptedServer(lambda handler, body: send(handler, completion())) as server:
        argv = ["eval", "--translator", f"openai:tiny@{server.url}", "--suite", "q.toml",
                "--translator-option", "backoff=0.01", "--set", "tgt_lang=de"]

        def full(*args):
            raise OSError(errno.ENOSPC, "No space left on device")

        with monkeypatch.context() as patch:
            patch.setattr(os, "pwrite", full)  # the lock's owner record, as on the audit's 2 MB tmpfs
            patch.setattr(os, "fsync", full)
            started = time.monotonic()
            assert main(argv) == 2
            assert time.monotonic() - started < 30
        err = capsys.readouterr().err
        assert "error: disk full: " in err and "Traceback" not in err
        assert main(argv) == 0  # space freed: the same command resumes and finishes
        assert "1 scored" in capsys.readouterr().out


# --------------------------------------------------------------------------- what a server may send (issue 40)


@pytest.mark.timeout(60)  # before the fix, a Retry-After of 1e9 slept for 31 years
@pytest.mark.parametrize("header, waited", [
    ("1000000000", False), ("inf", False), ("Fri, 31 Dec 9999 23:59:59 GMT", False), ("6", False),
    ("0.01", True), ("nan", True), ("-5", True), ("soon", True), ("", True), ("1e999x", True),
    ("Wed, 21 Oct 2015 07:28:00 GMT", True),  # a date past: retry now
])
def test_retry_after_is_bounded_by_the_timeout_and_odd_values_fall_back_to_the_backoff(header, waited, tmp_path):
    tries = []

    def busy_once(handler, body):
        tries.append(1)
        if len(tries) == 1:
            send(handler, b'{"error": "slow down"}', status=429, headers=[("Retry-After", header)])
        else:
            send(handler, completion())

    with ScriptedServer(busy_once) as server:
        translator = client(server.url, timeout=5, retries=1, cache_dir=tmp_path)
        if waited:
            assert translator.translate(["The dog sleeps."]) == ["Hallo."]
            assert translator.usage["retries"] == 1
        else:
            with pytest.raises(MtdebiasError) as error:
                translator.translate(["The dog sleeps."])
            message = str(error.value)
            assert message.startswith(f"{server.url}: HTTP 429 for model tiny, and the server asks to wait '{header}' "
                                      "before retrying (Retry-After), longer than timeout=5 s: not waited for")
            assert server.requests == 1


@pytest.mark.timeout(60)  # before the fix, the second try waited 1000 s
def test_the_backoff_between_tries_is_bounded_by_the_timeout():
    tries = []

    def fail_once(handler, body):
        tries.append(1)
        send(handler, completion() if len(tries) > 1 else b"busy", status=200 if len(tries) > 1 else 503)

    with ScriptedServer(fail_once) as server:
        translator = OpenAITranslator.from_spec(f"tiny@{server.url}", tgt_lang="de", backoff=1000, timeout=0.5)
        assert translator.translate(["The dog sleeps."]) == ["Hallo."] and translator.usage["retries"] == 1


@pytest.mark.parametrize("usage", [
    {"prompt_tokens": float("nan"), "completion_tokens": 2}, {"prompt_tokens": "12", "completion_tokens": 2},
    {"prompt_tokens": float("inf"), "completion_tokens": 2}, {"prompt_tokens": 10 ** 30, "completion_tokens": 2},
    {"prompt_tokens": -3, "completion_tokens": 2}, {"prompt_tokens": True, "completion_tokens": 2},
    {"prompt_tokens": [1], "completion_tokens": 2},
])
def test_usage_that_is_not_a_token_count_is_left_out_with_a_warning(usage, tmp_path):
    reply = json.dumps({"choices": [{"message": {"content": "Hallo."}}], "usage": usage}).encode()
    with ScriptedServer(lambda handler, body: send(handler, reply)) as server:
        translator = client(server.url, cache_dir=tmp_path)
        with pytest.warns(UserWarning, match=rf"^{server.url}: the reply's usage.prompt_tokens is .*, not a token"):
            assert translator.translate(["The dog sleeps.", "The cat runs."]) == ["Hallo.", "Hallo."]
        assert translator.usage["prompt_tokens"] == 0 and translator.usage["completion_tokens"] == 4
        rerun = client(server.url, cache_dir=tmp_path)  # stored as it came, and read back
        assert rerun.translate(["The dog sleeps."]) == ["Hallo."] and rerun.usage["cached"] == 1


@pytest.mark.parametrize("usage", ["lots", [1, 2], 7])
def test_usage_that_is_not_an_object_is_left_out_with_a_warning(usage):
    reply = json.dumps({"choices": [{"message": {"content": "Hallo."}}], "usage": usage}).encode()
    with ScriptedServer(lambda handler, body: send(handler, reply)) as server:
        with pytest.warns(UserWarning, match=r"the reply.s usage is .*, not an object of token counts"):
            assert client(server.url).translate(["The dog sleeps."]) == ["Hallo."]


DEEP = b"[" * 100_000 + b"]" * 100_000


@pytest.mark.parametrize("body, why", [
    (DEEP, r"not JSON: nested too deeply"),
    (b'{"choices": [{"message": {"content": "x"}}], "deep": ' + DEEP + b"}", r"not JSON: nested too deeply"),
    # parsed, but too deep for the cache line around it to be written back (or read)
    (b'{"choices": [{"message": {"content": "x"}}], "deep": ' + b"[" * 500 + b"]" * 500 + b"}",
     r"nested deeper than 64 levels"),
    (b'{"choices": [{"message": {"content": "x"}}], "usage": {"prompt_tokens": ' + b"9" * 5000 + b"}}",
     r"not JSON: a number too long to read"),
    (b'{"choices": [{"message": {"content": "Der Hund \xff\xfe"}}]}',
     r"is not valid UTF-8 \(byte b'\\xff' at offset 47\)"),
    (b'"just a string"', r"the reply is a JSON str, not an object"),
    (b'{"choices": [{"message": "x"}]}', r"choice 0 has no message.content text"),
    (b'{"choices": [7]}', r"choice 0 has no message.content text"),
    (b'{"choices": {}}', r"'choices' is missing, empty or not a list"),
])
def test_a_malformed_reply_is_a_one_line_error_naming_the_server(body, why, tmp_path):
    with ScriptedServer(lambda handler, request: send(handler, body)) as server:
        with pytest.raises(MtdebiasError, match=why) as error:
            client(server.url, cache_dir=tmp_path).translate(["The dog sleeps."])
    assert str(error.value).startswith(f"{server.url}: ") and "\n" not in str(error.value)
    assert "nothing of it was stored" in str(error.value) and not (tmp_path / "responses.jsonl").exists()


def test_invalid_utf8_from_a_server_names_the_server_not_an_input_file(monkeypatch, capsys):
    import io
    import sys

    from mtdebias.cli import main

    reply = b'{"choices": [{"message": {"content": "Der Hund \xc3("}}]}'
    with ScriptedServer(lambda handler, body: send(handler, reply)) as server:
        monkeypatch.setattr(sys, "stdin", io.StringIO("The dog sleeps.\n"))
        assert main(["translate", f"openai:tiny@{server.url}", "--tgt-lang", "de"]) == 2
    err = capsys.readouterr().err
    assert f"error: {server.url}: the reply for model tiny is not valid UTF-8" in err
    assert "input file" not in err and "Traceback" not in err


def test_server_text_in_an_error_cannot_drive_the_terminal():
    with ScriptedServer(lambda handler, body: send(handler, b"bad\x1b[2J\nrequest\xc2\x9b", status=400)) as server:
        with pytest.raises(MtdebiasError) as error:
            client(server.url).translate(["The dog sleeps."])
    assert str(error.value).endswith(r"HTTP 400 for model tiny: bad\x1b[2J\x0arequest\x9b")


GOOD = {"7": {"logprob": -1.5, "decoded_token": "Hund"}}


@pytest.mark.parametrize("entries, why", [
    ("abc", "a str, not a list"),
    ({"1": GOOD}, "a dict, not a list"),
    ([None, GOOD, "x"], "prompt token 3 is 'x'"),
    ([None, GOOD, {"7": {"logprob": "abc"}}], "prompt token 3 is"),
    ([None, GOOD, {"7": {"logprob": float("nan")}}], "prompt token 3 is"),
    ([None, GOOD, {"7": {"logprob": float("inf")}}], "prompt token 3 is"),
    ([None, GOOD, {"7": {"logprob": True}}], "prompt token 3 is"),
    ([None, GOOD, {}], "prompt token 3 is {}"),
    ([None, GOOD, {"7": 5}], "prompt token 3 is"),
    ([None, GOOD], "its prompt tokens for 'Der Hund.' are no more than the chat's without it"),
])
def test_malformed_prompt_logprobs_are_a_one_line_error_naming_the_server(entries, why):
    def score(handler, body):
        prefix = body["messages"][-1]["content"] == ""  # the chat without the translation
        send(handler, json.dumps({"choices": [{"message": {"content": ""}}],
                                  "prompt_logprobs": [None, GOOD] if prefix else entries}).encode())

    with ScriptedServer(score) as server:
        with pytest.raises(MtdebiasError) as error:
            client(server.url).score(["The dog."], ["Der Hund."])
    message = str(error.value)
    assert message.startswith(f"{server.url}: malformed prompt_logprobs from model tiny (") and why in message
    assert "\n" not in message


def test_a_log_probability_of_minus_infinity_is_a_score():
    def score(handler, body):
        prefix = body["messages"][-1]["content"] == ""
        entries = [None, GOOD] + ([] if prefix else [{"9": {"logprob": float("-inf"), "decoded_token": "x"}}])
        send(handler, json.dumps({"choices": [{"message": {"content": ""}}], "prompt_logprobs": entries}).encode())

    with ScriptedServer(score) as server:
        [scored] = client(server.url).score(["The dog."], ["x"])
    assert scored.total == float("-inf") and scored.pieces == ("x",)
