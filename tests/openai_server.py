"""A small OpenAI-compatible server for the tests: ``/v1/chat/completions`` served by a real
(tiny) transformers chat model, as vLLM or llama.cpp's server would serve a bigger one.

Used because no OpenAI-compatible server installs offline here (llama-cpp-python builds from
source, vLLM has no CPU wheel for this Python); it speaks the same JSON: ``messages``,
``temperature``/``top_p``/``n``/``max_tokens``, ``usage``, and vLLM's ``prompt_logprobs`` with
``continue_final_message`` for scoring. Switches make it fail as real servers do: ``script``
(status codes to answer first, e.g. 429), ``malformed`` (a 200 with a body that is not a
completion), ``die_after`` (stop answering after N completions, as a killed server does) and
``ignore_n`` (one choice whatever ``n`` asks, as llama.cpp's server does).

:class:`ScriptedServer` needs no model: each test scripts the raw status, headers and bytes
it sends (a reply dripped, cut short, malformed), through :func:`send` and :func:`completion`.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def completion(text="Hallo.", model="tiny", n=1):
    return json.dumps({"object": "chat.completion", "model": model,
                       "choices": [{"index": i, "message": {"role": "assistant", "content": text}} for i in range(n)],
                       "usage": {"prompt_tokens": 3, "completion_tokens": 1}}).encode()


class ScriptedServer:
    """Answers each POST with ``behaviour(handler, body)``; counts the requests it got."""

    def __init__(self, behaviour):
        self.requests = 0
        self.stop = threading.Event()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                server.requests += 1
                try:
                    behaviour(self, body)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up, as it should

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def __enter__(self):
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        self.httpd.shutdown()
        self.httpd.server_close()


def send(handler, data: bytes, status: int = 200, length: int | None = None, headers=()):
    handler.send_response(status)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(data) if length is None else length))
    for key, value in headers:
        handler.send_header(key, value)
    handler.end_headers()
    handler.wfile.write(data)
    handler.wfile.flush()


class TinyChatServer:
    def __init__(self, model_dir):
        from mtdebias.translators.hf_causal import HFCausalTranslator

        self.llm = HFCausalTranslator(model_dir, tgt_lang="de", device="cpu")
        self.requests = 0  # completions answered (not counting scripted failures)
        self.script: list[int] = []
        self.malformed = False
        self.die_after: int | None = None
        self.ignore_n = False
        self.seeds: list[int] = []  # the seed of every sampled completion asked for
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # quiet
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                with server._lock:
                    status = server.script.pop(0) if server.script else 200
                    if status == 200 and server.die_after is not None and server.requests >= server.die_after:
                        self.close_connection = True
                        self.connection.close()  # a dead server: the client sees the connection drop
                        return
                    if status != 200:
                        self._send(status, {"error": {"message": "scripted failure"}}, {"Retry-After": "0"})
                        return
                    server.requests += 1
                    if server.malformed:
                        self._send(200, {"id": "x", "object": "chat.completion", "result": "no choices here"})
                        return
                    self._send(200, server.complete(body))

            def _send(self, status, payload, headers=None):
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for key, value in (headers or {}).items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self._thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()

    def complete(self, body: dict) -> dict:
        import torch  # here: the scripted server above needs no torch

        with torch.inference_mode():
            return self._complete(body, torch)

    def _complete(self, body: dict, torch) -> dict:
        llm, tokenizer = self.llm, self.llm.tokenizer
        messages = body["messages"]
        if body.get("continue_final_message"):
            text = tokenizer.apply_chat_template(messages, tokenize=False, continue_final_message=True)
            ids = tokenizer(text, add_special_tokens=False, return_tensors="pt")["input_ids"]
            logprobs = torch.log_softmax(llm.model(ids).logits.float(), dim=-1)[0]
            entries = [None] + [{str(int(t)): {"logprob": float(logprobs[i, t]), "decoded_token": tokenizer.decode([t])}}
                                for i, t in enumerate(ids[0, 1:].tolist())]
            choice = {"index": 0, "message": {"role": "assistant", "content": ""}, "finish_reason": "length"}
            return {"object": "chat.completion", "choices": [choice], "prompt_logprobs": entries,
                    "usage": {"prompt_tokens": ids.shape[1], "completion_tokens": 0}}
        text = tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
        ids = tokenizer(text, add_special_tokens=False, return_tensors="pt")["input_ids"]
        n, temperature = int(body.get("n", 1)), float(body.get("temperature", 1.0))
        n = 1 if self.ignore_n else n
        if temperature > 0:
            self.seeds.append(int(body.get("seed", 0)))
            torch.manual_seed(int(body.get("seed", 0)))
        out = llm.model.generate(ids, attention_mask=torch.ones_like(ids), do_sample=temperature > 0,
                                 temperature=temperature if temperature > 0 else None,
                                 top_p=float(body.get("top_p", 1.0)) if temperature > 0 else None,
                                 num_return_sequences=n, max_new_tokens=min(int(body.get("max_tokens", 32)), 32),
                                 eos_token_id=llm.end_ids, pad_token_id=tokenizer.pad_token_id or llm.end_ids[0])
        replies = [tokenizer.decode(row[ids.shape[1]:], skip_special_tokens=True).strip() for row in out]
        return {"object": "chat.completion", "model": body["model"],
                "choices": [{"index": i, "message": {"role": "assistant", "content": r}, "finish_reason": "stop"}
                            for i, r in enumerate(replies)],
                "usage": {"prompt_tokens": ids.shape[1], "completion_tokens": int((out[:, ids.shape[1]:] != 0).sum())}}
