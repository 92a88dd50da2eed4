"""Any OpenAI-compatible ``/v1/chat/completions`` server behind the translator protocol: vLLM,
llama.cpp's server, TGI, Ollama, or a hosted API. ``openai:MODEL@URL`` (``URL`` ends in ``/v1``).

* **Key**: read from the environment variable ``api_key_env`` names (default
  ``OPENAI_API_KEY``); never put in signatures, logs, caches or results.
* **Robust**: bounded concurrency; 429 and 5xx retried with exponential backoff (honouring
  ``Retry-After``); timeouts; a malformed response is an error and nothing of it is stored.
* **Each request once**: responses are cached on disk (``cache_dir``; the runner gives each
  run's own, inside the run store) keyed by the request body, appended under a lock as they
  arrive, so an interrupted or repeated evaluation resends nothing it already has.
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

import difflib
import hashlib
import http.client
import json
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

from ..errors import ConfigError, MtdebiasError, disk_full_as
from ..locking import FileLock
from ..options import Range
from ..signature import hash_json
from .base import DEFAULT_EPSILON, Scored, UnsupportedCall
from .llm_prompt import DEFAULT_TEMPLATE, TranslationPrompt, load_examples

OPTIONS = ("src_lang", "tgt_lang", "prompt", "system", "examples", "api_key_env", "concurrency", "retries",
           "timeout", "max_tokens", "top_p", "cache_dir", "backoff", "max_reply_bytes", "strict_model")
RETRIED = {429, 500, 502, 503, 504}
MAX_REPLY_BYTES = 16 * 2 ** 20  # a 256-token reply is a few kB; 128 samples or prompt log-probs stay well under
_CHUNK = 65536


class _Retry(Exception):
    """A failure worth another try (connection dropped, deadline passed, body cut short)."""


class _Stopped(Exception):
    """The translator is being stopped (Ctrl-C in the main thread): give up at once."""


class OpenAITranslator:
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
        self._cache: dict[str, dict] = {}
        if self._cache_path and self._cache_path.is_file():
            for line in self._cache_path.read_text(encoding="utf-8").splitlines():
                try:
                    record = json.loads(line)
                except json.JSONDecodeError:  # a line cut by a kill: that request is simply sent again
                    continue
                self._cache[record["key"]] = record["response"]
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
                wait_s = self.backoff * 2 ** attempt
            else:
                if status == 200:
                    break
                if status not in RETRIED or attempt == self.retries:
                    raise MtdebiasError(f"{self.base_url}: HTTP {status} for model {self.model}: "
                                        f"{self._redact(raw[:300].decode(errors='replace'))}")
                wait_s = _retry_after(reply_headers.get("Retry-After"), self.backoff * 2 ** attempt)
            self.usage["retries"] += 1
            if self._stop.wait(wait_s):
                raise _Stopped()
        self.usage["requests"] += 1
        response = self._parse(raw)
        self._check_model(response)
        usage = response.get("usage") or {}
        self.usage["prompt_tokens"] += int(usage.get("prompt_tokens") or 0)
        self.usage["completion_tokens"] += int(usage.get("completion_tokens") or 0)
        self._store(key, response)
        return response

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
            raise _Retry(str(exc) or type(exc).__name__) from None
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
            response = json.loads(raw)
            choices = response["choices"]
            if not isinstance(choices, list) or not choices:
                raise KeyError("choices")
            for choice in choices:
                if not isinstance(choice["message"]["content"], str):
                    raise KeyError("content")
        except (json.JSONDecodeError, KeyError, TypeError) as exc:
            raise MtdebiasError(f"{self.base_url}: malformed response for model {self.model} (no "
                                f"choices[].message.content: {exc}); nothing of it was stored: "
                                f"{self._redact(raw[:200].decode(errors='replace'))!r}") from None
        return response

    def _store(self, key: str, response: dict) -> None:
        self._cache[key] = response
        if self._cache_path is None:
            return
        self._cache_path.parent.mkdir(parents=True, exist_ok=True)
        line = json.dumps({"key": key, "response": response}, ensure_ascii=False)
        if self._key:  # a reply that echoes the key keeps it out of the file (header names are left: a
            line = line.replace(self._key, "[redacted]")  # translation may well say "bearer")
        line += "\n"
        with FileLock(self._cache_path.with_name(".responses.lock")):  # concurrent evaluators append whole lines
            with disk_full_as(self._cache_path), open(self._cache_path, "ab") as handle:
                end = handle.seek(0, os.SEEK_END)
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
            out.append(_target_logprobs(full, len(prefix), target))
        return out

    def signature(self) -> str:
        return (f"openai:{self.model}@{self.base_url}:prompt-{self.prompt_hash}"
                f":sampling=openai-n-temperature,top_p={self.top_p:g}")


# what follows "Authorization", "api-key" or "Bearer" in echoed text (headers, or JSON of them)
_SECRET = re.compile(r"((?:authorization|api[-_]?key|bearer)\W{0,4}(?:bearer\s+)?)[^\s\"',;}]+", re.IGNORECASE)


def _retry_after(value: str | None, default: float) -> float:
    try:
        return max(0.0, float(value)) if value else default
    except ValueError:  # an HTTP date: not worth parsing for a retry
        return default


def _target_logprobs(entries: list, before: int, target: str) -> Scored:
    """The log-probabilities of the prompt tokens after the first ``before`` (the chat up to the
    reply): vLLM lists, per prompt token, {token_id: {"logprob", "decoded_token"}}, the first null."""
    if len(entries) <= before:
        raise MtdebiasError(f"the server's prompt tokens for {target!r} are no longer than the chat without it")
    chosen = [next(iter(entry.values())) for entry in entries[before:] if entry]
    return Scored(sum(float(t["logprob"]) for t in chosen), tuple(float(t["logprob"]) for t in chosen),
                  tuple(str(t.get("decoded_token", "")) for t in chosen))
