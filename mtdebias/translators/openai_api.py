"""Any OpenAI-compatible ``/v1/chat/completions`` server behind the translator protocol: vLLM,
llama.cpp's server, TGI, Ollama, or a hosted API. ``openai:MODEL@URL`` (``URL`` ends in ``/v1``).

* **Key**: read from the environment variable ``api_key_env`` names (default
  ``OPENAI_API_KEY``); never put in signatures, logs, caches or results.
* **Robust**: bounded concurrency; 429 and 5xx retried with exponential backoff (honouring
  ``Retry-After``; no wait longer than ``timeout``, a longer ``Retry-After`` is an error);
  timeouts; a malformed response (not UTF-8, not JSON, too deep, no completion) is a one-line
  error naming the server, and nothing of it is stored.
* **Each request once**: responses are cached on disk (``cache_dir``; the runner gives each
  run's own, inside the run store) keyed by the request body, appended under a lock as they
  arrive, so an interrupted or repeated evaluation resends nothing it already has. Each line is
  :func:`~mtdebias.store.atomic.json_line` (whatever a reply holds, it stays one line and reads back
  the same); a line cut by a kill is skipped, and the next append starts a line of its own.
* **Bounded**: each request has one total deadline (``timeout`` seconds, however slowly the
  server sends) and a reply-size limit (``max_reply_bytes``); a body cut short is retried, then
  a clear error. Ctrl-C stops within a second: the requests in flight are cut, and what was
  stored before stays whole (the cache is appended line by line under a lock).
* **Nothing secret echoed**: server text shown in an error (or stored) has the key's value and
  ``Authorization`` / ``api-key`` values replaced by ``[redacted]`` first.
* **The model that answered**: each reply's ``model`` is recorded (``served_models``, which the
  runner stores in the results' meta); a name other than the one asked for is a warning, or an
  error with ``strict_model=True``.
* **Counted**: requests sent, cache hits and tokens (``usage``), for the results.
* ``sample`` asks for ``n`` completions at ``temperature``/``top_p`` — the server's sampler, not
  ε-sampling, and the signature says so. A server that ignores ``n`` (llama.cpp's) answers with
  fewer choices: the missing ones are then asked for one request each, with seeds
  ``seed+1, seed+2, …``. ``score`` sums the prompt log-probabilities of the
  translation given after the prompt, where the server returns them (vLLM's
  ``prompt_logprobs``), and is refused with a clear message where it does not.
"""

from __future__ import annotations

import datetime
import difflib
import email.utils
import hashlib
import http.client
import json
import math
import os
import re
import socket
import threading
import time
import urllib.parse
import warnings
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
from pathlib import Path
from typing import Any, Sequence

from ..store.atomic import json_line
from ..errors import ConfigError, MtdebiasError, disk_full_as
from ..store.locking import FileLock, check_lock_folder
from ..options import Range
from ..signature import hash_json
from ..textio import open_append, read_bytes, visible
from .base import DEFAULT_EPSILON, BaseTranslator, Scored, UnsupportedCall
from .llm_prompt import DEFAULT_TEMPLATE, TranslationPrompt, load_examples

OPTIONS = ("src_lang", "tgt_lang", "prompt", "system", "examples", "api_key_env", "concurrency", "retries",
           "timeout", "max_tokens", "top_p", "cache_dir", "backoff", "max_reply_bytes", "strict_model")
RETRIED = {429, 500, 502, 503, 504}
MAX_REPLY_BYTES = 16 * 2 ** 20  # a 256-token reply is a few kB; 128 samples or prompt log-probs stay well under
_CHUNK = 65536
MAX_DEPTH = 64  # JSON nesting of a reply: a completion with prompt log-probabilities is 5 deep


class _Retry(Exception):
    """A failure worth another try (connection dropped, deadline passed, body cut short)."""


class _Stopped(Exception):
    """The translator is being stopped (Ctrl-C in the main thread): give up at once."""


class OpenAITranslator(BaseTranslator):
    # the allowed range of each numeric option (its type is __init__'s annotation), checked with
    # every option's type before anything is sent (mtdebias/options.py)
    option_ranges = {"concurrency": Range(1), "retries": Range(0, why="0 sends each request once"),
                     "timeout": Range(0, low_open=True, high=86400, high_open=False, why="seconds, at most a day"),
                     "max_tokens": Range(1), "top_p": Range(0, low_open=True, high=1, high_open=False),
                     "backoff": Range(0, high=3600, high_open=False, why="seconds"), "max_reply_bytes": Range(1)}

    def __init__(self, model: str, base_url: str, *, tgt_lang: str, src_lang: str = "en",
                 prompt: str = DEFAULT_TEMPLATE, system: str | None = None, examples: Any = None,
                 api_key_env: str = "OPENAI_API_KEY", concurrency: int = 4, retries: int = 5, timeout: float = 120.0,
                 max_tokens: int = 256, top_p: float = 1.0, cache_dir: str | Path | None = None, backoff: float = 1.0,
                 max_reply_bytes: int = MAX_REPLY_BYTES, strict_model: bool = False):
        if not model or not base_url.startswith(("http://", "https://")):
            raise ConfigError(f"openai:{model}@{base_url}: expected openai:MODEL@http(s)://HOST/v1")
        self.model, self.base_url = model, base_url.rstrip("/")
        self.prompt = TranslationPrompt(src_lang, tgt_lang, template=prompt, system=system,
                                        examples=load_examples(examples))
        self._key = os.environ.get(api_key_env)  # kept here only: never serialised anywhere
        self.concurrency, self.retries, self.timeout, self.backoff = max(1, concurrency), retries, timeout, backoff
        self.max_tokens, self.top_p = max_tokens, top_p
        self.max_reply_bytes, self.strict_model = int(max_reply_bytes), bool(strict_model)
        self.served_models: set[str] = set()  # the ``model`` of every reply received
        self._warned: set[str] = set()
        self._url = urllib.parse.urlsplit(f"{self.base_url}/chat/completions")
        self._stop = threading.Event()
        self._open: set[socket.socket] = set()  # sockets of the requests in flight, cut on stop
        self._open_lock = threading.Lock()
        self.usage = {"requests": 0, "cached": 0, "retries": 0, "prompt_tokens": 0, "completion_tokens": 0}
        self._cache_path = Path(cache_dir) / "responses.jsonl" if cache_dir else None
        if self._cache_path and not self._cache_path.parent.is_dir():  # a link to a folder is the user's choice
            check_lock_folder(self._cache_path.parent, "the folder of cached responses")
        self._cache: dict[str, dict] = _read_cache(self._cache_path) if self._cache_path else {}
        self.prompt_hash = hash_json([self.prompt.messages("{source}")])[:12]

    @classmethod
    def from_spec(cls, rest: str, **options: Any) -> "OpenAITranslator":
        model, _, url = rest.partition("@")
        for key in options:
            if key not in OPTIONS:
                close = difflib.get_close_matches(key, OPTIONS, n=1)
                raise ConfigError(f"openai: unknown option {key!r}",
                                  hint=f"did you mean '{close[0]}'?" if close else f"options: {', '.join(OPTIONS)}")
        if "tgt_lang" not in options:
            raise ConfigError("openai: no target language", hint="give tgt_lang (a suite's --set tgt_lang=de, or --lang)")
        return cls(model, url, **options)

    # -- requests --------------------------------------------------------------------------
    def _post(self, body: dict) -> dict:
        """One request, from the cache when it has been answered before."""
        key = hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()
        if key in self._cache:
            self.usage["cached"] += 1
            if isinstance(self._cache[key].get("model"), str):  # checked when it was received
                self.served_models.add(self._cache[key]["model"])
            return self._cache[key]
        data = json.dumps(body).encode()
        headers = {"Content-Type": "application/json"}
        if self._key:
            headers["Authorization"] = f"Bearer {self._key}"
        for attempt in range(self.retries + 1):
            if self._stop.is_set():
                raise _Stopped()
            try:
                status, reply_headers, raw = self._exchange(data, headers)
            except _Retry as exc:
                if attempt == self.retries:
                    raise MtdebiasError(f"{self.base_url}: no answer after {self.retries + 1} tries ({exc}); "
                                        "responses received so far are cached: rerun to continue") from None
                wait_s = self._backoff(attempt)
            else:
                if status == 200:
                    break
                if status not in RETRIED or attempt == self.retries:
                    raise MtdebiasError(f"{self.base_url}: HTTP {status} for model {self.model}: "
                                        f"{self._shown(raw[:300])}")
                wait_s = self._retry_wait(status, reply_headers.get("Retry-After"), self._backoff(attempt))
            self.usage["retries"] += 1
            if self._stop.wait(wait_s):
                raise _Stopped()
        self.usage["requests"] += 1
        response = self._parse(raw)
        self._check_model(response)
        self._count_tokens(response.get("usage"))
        self._store(key, response)
        return response

    def _backoff(self, attempt: int) -> float:
        """The wait before try ``attempt + 2``: ``backoff`` doubled per try, but never longer than
        ``timeout`` (many retries would otherwise wait hours, or overflow a float, in silence)."""
        return min(self.backoff * 2.0 ** min(attempt, 64), self.timeout)

    def _retry_wait(self, status: int, header: str | None, default: float) -> float:
        """The seconds to wait before retrying an HTTP ``status`` whose reply says ``Retry-After:
        header``. A wait longer than ``timeout`` is not waited for (a server saying "come back in
        a day", or forever, would hold the run without a word): an error saying what it asked."""
        asked = _retry_after(header)
        if asked is None:
            return default
        if asked > self.timeout:
            raise MtdebiasError(f"{self.base_url}: HTTP {status} for model {self.model}, and the server asks to wait "
                                f"'{visible(str(header).strip()[:60])}' before retrying (Retry-After), longer than "
                                f"timeout={self.timeout:g} s: not waited for; responses received so far are cached: "
                                "rerun later (or raise timeout to wait that long)")
        return asked

    def _count_tokens(self, usage: Any) -> None:
        """Add a reply's ``usage`` to the counts; what is not a token count (a server's NaN, a
        string, a number past any real count) is left out with one warning, as the counts are
        bookkeeping and the reply itself is sound."""
        def odd(what: str, value: Any, expected: str) -> None:
            if what not in self._warned:
                self._warned.add(what)
                warnings.warn(f"{self.base_url}: the reply's {what} is {visible(repr(value)[:60])}, {expected}: left "
                              "out of the token counts of the results", stacklevel=4)

        if usage is None:
            return
        if not isinstance(usage, dict):
            odd("usage", usage, "not an object of token counts")
            return
        for name in ("prompt_tokens", "completion_tokens"):
            value = usage.get(name)
            if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 2 ** 53:
                self.usage[name] += value
            elif value is not None:
                odd(f"usage.{name}", value, "not a token count")

    def _exchange(self, data: bytes, headers: dict) -> tuple[int, Any, bytes]:
        """POST ``data`` once: (status, headers, body), within one deadline of ``timeout`` seconds
        for the whole exchange (each socket wait is given what is left of it) and reading at most
        ``max_reply_bytes``. A dropped connection, the deadline or a body cut short is a _Retry."""
        deadline = time.monotonic() + self.timeout

        def left() -> float:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise _Retry(f"no complete reply within {self.timeout:g} s")
            return remaining

        kind = http.client.HTTPSConnection if self._url.scheme == "https" else http.client.HTTPConnection
        connection, sock, reply = kind(self._url.hostname, self._url.port, timeout=left()), None, None
        try:
            connection.connect()
            sock = connection.sock  # kept: the reply takes it over from the connection
            with self._open_lock:
                self._open.add(sock)
            if self._stop.is_set():  # stopped between the caller's check and the line above
                raise _Stopped()
            path = self._url.path + (f"?{self._url.query}" if self._url.query else "")
            connection.request("POST", path, body=data, headers=headers)
            sock.settimeout(left())
            reply = connection.getresponse()
            declared = reply.getheader("Content-Length")
            if declared and declared.isdigit() and int(declared) > self.max_reply_bytes:
                raise self._too_big(int(declared))
            chunks, size = [], 0
            while True:
                sock.settimeout(left())
                chunk = reply.read1(_CHUNK)
                if not chunk:
                    break
                size += len(chunk)
                if size > self.max_reply_bytes:
                    raise self._too_big(size)
                chunks.append(chunk)
            if declared and declared.isdigit() and size < int(declared):  # read1 does not check this
                raise http.client.IncompleteRead(b"".join(chunks), int(declared) - size)
            return reply.status, reply.headers, b"".join(chunks)
        except (http.client.IncompleteRead, http.client.RemoteDisconnected) as exc:
            if self._stop.is_set():
                raise _Stopped() from None
            raise _Retry(f"the reply was cut short ({type(exc).__name__})") from None
        except (OSError, http.client.HTTPException) as exc:
            if self._stop.is_set():
                raise _Stopped() from None
            if isinstance(exc, TimeoutError):  # a socket wait given the rest of the deadline ran out
                raise _Retry(f"no complete reply within {self.timeout:g} s") from None
            # http.client's text may quote the server's (a bad status line): shown, not obeyed
            raise _Retry(visible(str(exc)[:200]) or type(exc).__name__) from None
        finally:
            with self._open_lock:
                self._open.discard(sock)
            if reply is not None:
                reply.close()
            connection.close()
            if sock is not None:
                sock.close()

    def _too_big(self, size: int) -> MtdebiasError:
        return MtdebiasError(f"{self.base_url}: the reply for model {self.model} is larger than max_reply_bytes="
                             f"{self.max_reply_bytes} ({size} bytes or more; asked for at most {self.max_tokens} "
                             "tokens); nothing of it was stored (raise max_reply_bytes if such replies are expected)")

    def _shown(self, raw: bytes) -> str:
        """Server text as an error message shows it: redacted, and on one line that cannot drive
        the terminal (its control characters and line breaks written visibly)."""
        return visible(self._redact(raw.decode(errors="replace")))

    def _redact(self, text: str) -> str:
        """``text`` with the key's value and anything said after ``Authorization``/``api-key``
        replaced: a server or proxy that echoes the request must not put the key on stderr."""
        if self._key:
            text = text.replace(self._key, "[redacted]")
        return _SECRET.sub(lambda m: m.group(1) + "[redacted]", text)

    def _check_model(self, response: dict) -> None:
        served = response.get("model")
        if not isinstance(served, str) or not served:
            return  # the server does not say (llama.cpp's older builds)
        self.served_models.add(served)
        # a hosted API answers a name with a dated snapshot of it (gpt-4o → gpt-4o-2024-08-06)
        if served == self.model or served.startswith(self.model + "-"):
            return
        message = (f"{self.base_url}: asked for model {self.model!r}, the reply names {served!r} (the results "
                   "are stored under the name asked for; the served name is in their meta)")
        if self.strict_model:
            raise MtdebiasError(message + "; nothing of it was stored (strict_model=true refuses this)")
        if served not in self._warned:
            self._warned.add(served)
            warnings.warn(message, stacklevel=2)

    def _parse(self, raw: bytes) -> dict:
        try:
            text = raw.decode("utf-8-sig")
        except UnicodeDecodeError as exc:  # the server's fault, not an input file's
            raise MtdebiasError(f"{self.base_url}: the reply for model {self.model} is not valid UTF-8 (byte "
                                f"{raw[exc.start:exc.start + 1]!r} at offset {exc.start}); nothing of it was stored "
                                "(check the server's encoding, or its logs)") from None
        try:
            response = json.loads(text)
        except (ValueError, RecursionError) as exc:  # also a number of more than 4300 digits
            why = exc.msg if isinstance(exc, json.JSONDecodeError) else (
                "nested too deeply" if isinstance(exc, RecursionError) else "a number too long to read")
            raise self._malformed(f"not JSON: {why}", raw) from None
        if _deeper_than(response, MAX_DEPTH):  # a depth the cache could not write back, or read
            raise self._malformed(f"nested deeper than {MAX_DEPTH} levels", raw)
        problem = _completion_problem(response)
        if problem:
            raise self._malformed(f"no choices[].message.content: {problem}", raw)
        return response

    def _malformed(self, why: str, raw: bytes) -> MtdebiasError:
        return MtdebiasError(f"{self.base_url}: malformed response for model {self.model} ({why}); nothing of it "
                             f"was stored: '{self._shown(raw[:200])}'")

    def _store(self, key: str, response: dict) -> None:
        self._cache[key] = response
        if self._cache_path is None:
            return
        self._cache_path.parent.mkdir(parents=True, exist_ok=True)
        line = json_line({"key": key, "response": response})  # a reply's depth is bounded (_parse)
        if self._key:  # a reply that echoes the key keeps it out of the file (header names are left: a
            line = line.replace(self._key, "[redacted]")  # translation may well say "bearer")
        with FileLock(self._cache_path.with_name(".responses.lock")):  # concurrent evaluators append whole lines
            # never through a link or into a FIFO: the append would land in a file of the user's
            with disk_full_as(self._cache_path), os.fdopen(open_append(self._cache_path, what="the response "
                                                                       "cache", read=True), "a+b") as handle:
                end = handle.seek(0, os.SEEK_END)
                handle.seek(max(end - 1, 0))  # "a+b": read from here, while every write appends
                if end and handle.read(1) != b"\n":
                    # a run killed while appending (SIGKILL: no cleanup) cut its last line: this one
                    # starts on a line of its own, and the cut line stays apart, read as damaged
                    line = "\n" + line
                    warnings.warn(f"{self._cache_path}: its last line was cut short (a run killed while writing "
                                  "it); that line is left apart and its request is sent again", stacklevel=2)
                try:
                    handle.write(line.encode("utf-8"))
                    handle.flush()
                    os.fsync(handle.fileno())
                except BaseException:
                    handle.truncate(end)  # no half line for the next append to run into
                    raise

    def _all(self, bodies: list[dict]) -> list[dict]:
        """Every body's reply, ``concurrency`` at a time. On an error or Ctrl-C the requests not
        started are dropped and those in flight are cut (their sockets shut), so the command
        ends within a second instead of waiting for a slow server."""
        pool = ThreadPoolExecutor(max_workers=self.concurrency)
        futures = [pool.submit(self._post, body) for body in bodies]
        try:
            while True:  # short waits: the main thread stays responsive to Ctrl-C
                done, pending = wait(futures, timeout=0.2, return_when=FIRST_EXCEPTION)
                if not pending or any(f.exception() is not None for f in done):
                    break
            return [future.result() for future in futures]
        except BaseException:
            self._halt(pool)
            raise
        finally:
            pool.shutdown(wait=False, cancel_futures=True)

    def _halt(self, pool: ThreadPoolExecutor) -> None:
        self._stop.set()
        pool.shutdown(wait=False, cancel_futures=True)
        with self._open_lock:
            for sock in list(self._open):
                try:
                    sock.shutdown(socket.SHUT_RDWR)  # wakes the thread blocked reading it
                except OSError:
                    pass
        pool.shutdown(wait=True)  # each worker now returns at once (or finishes a cache line)
        self._stop.clear()

    def _body(self, messages: list[dict], **extra: Any) -> dict:
        return {"model": self.model, "messages": messages, "max_tokens": self.max_tokens, **extra}

    # -- protocol --------------------------------------------------------------------------
    def translate(self, sources: Sequence[str], beam: int = 5) -> list[str]:
        """Greedy (temperature 0) chat completions; ``beam`` does not apply to a chat API."""
        replies = self._all([self._body(self.prompt.messages(s), temperature=0.0) for s in sources])
        return [r["choices"][0]["message"]["content"].strip() for r in replies]

    def respond(self, prompts: Sequence[str], max_new_tokens: int = 16) -> list[str]:
        replies = self._all([{"model": self.model, "messages": [{"role": "user", "content": p}],
                              "max_tokens": max_new_tokens, "temperature": 0.0} for p in prompts])
        return [r["choices"][0]["message"]["content"].strip() for r in replies]

    def sample(self, sources: Sequence[str], n: int = 128, epsilon: float = DEFAULT_EPSILON,
               temperature: float = 1.0, seed: int = 0) -> list[list[str]]:
        """``n`` completions per source from the server's sampler at ``temperature``/``top_p``
        (not ε-sampling: ``epsilon`` has no API parameter; the signature records this)."""
        def body(source: str, k: int, seed_k: int) -> dict:
            return self._body(self.prompt.messages(source), n=k, temperature=temperature, top_p=self.top_p,
                              seed=seed_k)

        replies = self._all([body(s, n, seed) for s in sources])
        texts = [[c["message"]["content"].strip() for c in reply["choices"]][:n] for reply in replies]
        # a server that ignores n (llama.cpp's) answers once: ask for the rest one by one, each
        # with its own seed, or every "sample" would be the same completion
        extra = [(i, seed + j) for i, got in enumerate(texts) for j in range(len(got), n)]
        if extra:
            more = self._all([body(sources[i], 1, seed_j) for i, seed_j in extra])
            for (i, _), reply in zip(extra, more):
                texts[i].append(reply["choices"][0]["message"]["content"].strip())
        return texts

    def score(self, sources: Sequence[str], targets: Sequence[str]) -> list[Scored]:
        """Log-probability of each target as the assistant's reply, from the server's prompt
        log-probabilities (vLLM: ``prompt_logprobs`` with ``continue_final_message``). The same
        chat with an empty reply says how many prompt tokens come before the translation, so no
        detokenisation is guessed (byte-level pieces do not decode one by one)."""

        def body(source: str, reply: str) -> dict:
            return self._body(self.prompt.messages(source) + [{"role": "assistant", "content": reply}], max_tokens=1,
                              temperature=0.0, prompt_logprobs=0, add_generation_prompt=False,
                              continue_final_message=True)

        replies = self._all([body(s, t) for s, t in zip(sources, targets)] + [body(s, "") for s in sources])
        out = []
        for k, target in enumerate(targets):
            full, prefix = replies[k].get("prompt_logprobs"), replies[len(targets) + k].get("prompt_logprobs")
            if not full or not prefix:
                raise UnsupportedCall(f"{self.base_url} returns no prompt log-probabilities, so translations cannot "
                                      "be scored (vLLM does, with prompt_logprobs); probes that force-decode "
                                      "(gest_pref, the word-sense BAD-over-GOOD rate) cannot use this server")
            if not isinstance(full, list) or not isinstance(prefix, list):
                raise self._bad_logprobs(f"a {type(full if not isinstance(full, list) else prefix).__name__}, "
                                         "not a list")
            try:
                out.append(_target_logprobs(full, len(prefix), target))
            except _BadLogprobs as exc:
                raise self._bad_logprobs(str(exc)) from None
        return out

    def _bad_logprobs(self, why: str) -> MtdebiasError:
        return MtdebiasError(f"{self.base_url}: malformed prompt_logprobs from model {self.model} ({why}); expected "
                             "vLLM's list with one {token_id: {\"logprob\": NUMBER, \"decoded_token\": TEXT}} per "
                             "prompt token (the first null): check the server's version or use another for scoring")

    def signature(self) -> str:
        return (f"openai:{self.model}@{self.base_url}:prompt-{self.prompt_hash}"
                f":sampling=openai-n-temperature,top_p={self.top_p:g}")


# what follows "Authorization", "api-key" or "Bearer" in echoed text (headers, or JSON of them)
_SECRET = re.compile(r"((?:authorization|api[-_]?key|bearer)\W{0,4}(?:bearer\s+)?)[^\s\"',;}]+", re.IGNORECASE)


def _retry_after(value: str | None) -> float | None:
    """The seconds a ``Retry-After`` header asks to wait: a number of seconds, or an HTTP date (a
    date past is no wait); inf for "inf" or a number past any date. None where there is nothing to
    go by (no header, a negative number, NaN, text that is neither): the backoff applies."""
    value = (value or "").strip()
    if not value:
        return None
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value)
            if when.tzinfo is None:  # "-0000": a date in UTC, the server's zone unknown
                when = when.replace(tzinfo=datetime.timezone.utc)
            return max(0.0, when.timestamp() - time.time())
        except (TypeError, ValueError, IndexError, OverflowError):
            return None
    return seconds if seconds >= 0 else None  # NaN is not >= 0 either


class _BadLogprobs(Exception):
    """prompt_logprobs that are not vLLM's list (the caller names the server)."""


def _target_logprobs(entries: list, before: int, target: str) -> Scored:
    """The log-probabilities of the prompt tokens after the first ``before`` (the chat up to the
    reply): vLLM lists, per prompt token, {token_id: {"logprob", "decoded_token"}}, the first null."""
    if len(entries) <= before:
        raise _BadLogprobs(f"its prompt tokens for {visible(target[:80])!r} are no more than the chat's without it")
    logprobs, pieces = [], []
    for number, entry in enumerate(entries[before:], before + 1):
        if entry is None:
            continue
        chosen = next(iter(entry.values()), None) if isinstance(entry, dict) else None
        logprob = chosen.get("logprob") if isinstance(chosen, dict) else None
        # -inf is a sound log-probability (a token the model rules out); NaN and +inf are not
        if isinstance(logprob, bool) or not isinstance(logprob, (int, float)) or not logprob < math.inf:
            raise _BadLogprobs(f"prompt token {number} is {visible(repr(entry)[:80])}")
        logprobs.append(float(logprob))
        pieces.append(str(chosen.get("decoded_token", "")))
    return Scored(sum(logprobs), tuple(logprobs), tuple(pieces))


def _deeper_than(value: Any, limit: int) -> bool:
    """Whether JSON ``value`` nests more than ``limit`` arrays or objects deep (walked without
    recursion, so no depth makes it fail)."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (list, dict)):
            if depth > limit:
                return True
            stack.extend((child, depth + 1) for child in (item.values() if isinstance(item, dict) else item))
    return False


def _completion_problem(response: Any) -> str | None:
    """What keeps ``response`` from being a chat completion (None when it is one): an object with
    a non-empty list of choices, each with a message whose content is text."""
    if not isinstance(response, dict):
        return f"the reply is a JSON {type(response).__name__}, not an object"
    choices = response.get("choices")
    if not isinstance(choices, list) or not choices:
        return "'choices' is missing, empty or not a list"
    for number, choice in enumerate(choices):
        message = choice.get("message") if isinstance(choice, dict) else None
        if not isinstance(message, dict) or not isinstance(message.get("content"), str):
            return f"choice {number} has no message.content text"
    return None


def _read_cache(path: Path) -> dict[str, dict]:
    """The replies cached in ``path`` by request key. A line ends at "\\n" alone (a reply may
    hold U+2028, which str.splitlines would split at). A line that is not a whole record is
    skipped, its request sent again: a line cut by a killed run (set apart by the append after
    it), or the last one without its "\\n", which another evaluator may be appending right now."""
    if not os.path.lexists(path):
        return {}
    cache = {}
    # read as it is appended to, never through a link: refused here, before any request is sent
    for line in read_bytes(path, os.O_RDONLY | os.O_NOFOLLOW, what="the response cache").split(b"\n")[:-1]:
        try:
            record = json.loads(line)
        except (ValueError, RecursionError):  # not JSON, or not UTF-8
            continue
        if isinstance(record, dict) and isinstance(record.get("key"), str) \
                and _completion_problem(record.get("response")) is None:
            cache[record["key"]] = record["response"]
    return cache
