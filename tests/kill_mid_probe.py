"""``python tests/kill_mid_probe.py ARGS``: ``mtdebias ARGS`` with the hf-causal translator's
``translate`` logging how many sources each call decodes (one line per call in the file
``$MTDEBIAS_TEST_CALLS``) and, at the call numbered ``$MTDEBIAS_TEST_KILL_AT``, SIGKILLing its own
process, as a user's kill or an OOM would: no handler, no cleanup runs."""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from mtdebias.cli import main  # noqa: E402
from mtdebias.translators import hf_causal  # noqa: E402

_translate = hf_causal.HFCausalTranslator.translate


def translate(self, sources, *args, **kwargs):
    log = Path(os.environ["MTDEBIAS_TEST_CALLS"])
    with log.open("a", encoding="utf-8") as handle:
        handle.write(f"{len(sources)}\n")
    if str(len(log.read_text(encoding="utf-8").split())) == os.environ.get("MTDEBIAS_TEST_KILL_AT"):
        os.kill(os.getpid(), signal.SIGKILL)
    return _translate(self, sources, *args, **kwargs)


hf_causal.HFCausalTranslator.translate = translate

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
