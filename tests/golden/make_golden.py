"""Writes the golden fixtures of tests/test_golden_probes.py: for every shipped probe, a small set
of stored attempts (≤ 200), the options the probe is built with, and the signature and every
metric (value, ci, n) the probe gave them at commit aab7484, before issue 41 moved the probes into
one folder each. It was run at that commit (``PYTHONPATH=. python tests/golden/make_golden.py``;
the imports are today's paths); the test re-scores the attempts with the code of the day and
compares exactly, so a refactor that changes a number or a signature fails it. Run it again only
for a deliberate change of a probe (a new version). Not run by pytest (no ``test_`` prefix).

Real attempts come from the quickstart runs in /work/main/runs where they exist (quality,
name_gender, winomt, ambiguity); the other probes are run here on scripted translators whose
output is a fixed function of the source sentence (no randomness, no model)."""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
RUNS = Path("/work/main/runs/quickstart-vanilla-seed1/eval/step-0000650")
QUICKDATA = Path("/work/main/runs/quickstart-data")
SHIPPED = ROOT / "mtdebias" / "data"
TRANSLATOR = "golden:scripted"  # the signature every stored attempt is signed with


def pick(source: str, choices: list):
    """A fixed choice among ``choices`` for ``source`` (the same on every machine and run)."""
    return choices[int(hashlib.sha256(source.encode()).hexdigest(), 16) % len(choices)]


def score_of(source: str, target: str):
    """A fixed log-probability for each (source, target): one piece per word."""
    from mtdebias.translators.base import Scored

    words = target.split() + ["</s>"]
    tokens = tuple(-(int(hashlib.sha256(f"{source}\x00{w}".encode()).hexdigest(), 16) % 400) / 100 for w in words)
    return Scored(sum(tokens), tokens, tuple(words))


class Scripted:
    def __init__(self, translate=None, respond=None, score=None):
        self._translate, self._respond, self._score = translate, respond, score

    def translate(self, sources, beam=5):
        return [self._translate(s) for s in sources]

    def respond(self, prompts, max_new_tokens=16):
        return [self._respond(p) for p in prompts]

    def score(self, sources, targets):
        if self._score is None:
            from mtdebias.translators.base import UnsupportedCall

            raise UnsupportedCall("scripted translator does not score")
        return [self._score(s, t) for s, t in zip(sources, targets)]

    def sample(self, sources, n=128, epsilon=0.02, temperature=1.0, seed=0):
        from mtdebias.translators.base import UnsupportedCall

        raise UnsupportedCall("scripted translator does not sample")

    def signature(self):
        return TRANSLATOR


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def write_file(name: str, text: str) -> str:
    """A data file of the fixture, its path relative to the repository root (as options name it)."""
    path = HERE / "data" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return str(path.relative_to(ROOT))


def cases():
    """probe name → (options, attempts or a scripted translator)."""
    shipped = str((SHIPPED / "templates").relative_to(ROOT))
    # quality: the first 150 pairs of the quickstart test set, as the quickstart run stored them
    quality = read_jsonl(RUNS / "quality.attempts.jsonl")[:150]
    src = write_file("quality.en", "".join(a["source"] + "\n" for a in quality))
    ref = write_file("quality.de", "".join(a["reference"] + "\n" for a in quality))
    yield "quality.v1", {"src": src, "ref": ref, "lang": "de", "beam": 4}, quality
    yield "winomt.v1", {"lang": "de", "data": f"{shipped}/winomt_synth_en.txt", "pro": "", "anti": "", "beam": 1,
                        "resamples": 300}, read_jsonl(RUNS / "winomt_synth.attempts.jsonl")
    # name_gender: every pronoun attempt (they decide which templates are kept) and every fourth
    # name attempt of the first kept template, 190 in all
    rows = read_jsonl(RUNS / "name_gender.attempts.jsonl")
    kept = next(a["template"] for a in rows if a["kind"] != "pronoun")
    named = [a for a in rows if a["kind"] != "pronoun" and a["template"] == kept]
    name_gender = [a for a in rows if a["kind"] == "pronoun"] + named[::4]
    yield "name_gender.v1", {"lang": "de", "templates": f"{shipped}/name_gender_synth_de.tsv", "names_limit": 100,
                             "beam": 1, "resamples": 300}, name_gender
    yield "ambiguity.v1", {"lang": "de", "data": f"{shipped}/winomt_synth_en.txt", "pro": "", "anti": "",
                           "references": f"{shipped}/winomt_synth_refs_de.tsv", "similarity": "cosine-e5-small",
                           "n": 8, "limit": 30, "alpha": 1.0}, read_jsonl(RUNS / "ambiguity.attempts.jsonl")
    yield "sentiment.v1", {"lang": "zh", "fillers_limit": 4, "resamples": 300}, "sentiment"
    yield "wsd_bias.v1", {"lang": "de", "wordnet": False, "limit": 150, "resamples": 300}, "wsd"
    yield "gest.v1", {"lang": "pl", "limit": 150, "resamples": 300}, "gest"
    yield "gest_pref.v1", {"lang": "ru", "data": str((SHIPPED / "gest" / "choice_ru.csv").relative_to(ROOT)),
                           "limit": 150, "resamples": 300}, "gest_pref"
    yield "gest_choice.v1", {"lang": "ru", "data": str((SHIPPED / "gest" / "choice_ru.csv").relative_to(ROOT)),
                             "limit": 150, "resamples": 300}, "gest_choice"


def scripted(kind: str, probe):
    if kind == "sentiment":
        by_source = {}
        from mtdebias.probes.sentiment.probe import fill

        for filler, template in probe.items():
            by_source[fill(template.template, filler.text)] = (filler, template)

        def translate(source):
            filler, template = by_source[source]
            word = pick(source, [template.positive[0], template.negative[0], template.positive[0] + template.negative[0], "好"])
            return f"{filler.text}很{word}。"
        return Scripted(translate)
    if kind == "wsd":
        sentences = {}
        for item in probe.items():
            side = item.targets.get("de")
            if side is None:
                sentences[item.sentence] = [item.sentence]
                continue
            good, bad = side.good[0], side.bad[0].lemma
            # a sentence naming the good sense, one naming the bad one, one naming both, one neither,
            # the item's own forced-decoding sentences and a copy of the English (left out as invalid)
            sentences[item.sentence] = [f"Wir haben gestern lange über {good} gesprochen.",
                                        f"Wir haben gestern lange über {bad} gesprochen.",
                                        f"Wir haben gestern über {good} und {bad} gesprochen.",
                                        "Wir haben gestern lange darüber gesprochen.",
                                        *side.good_sentences[:1], *side.bad_sentences[:1], item.sentence]
        return Scripted(lambda s: pick(s, sentences[s]), score=score_of)
    if kind == "gest":
        return Scripted(lambda s: pick(s, ["Zawsze byłem silny.", "Zawsze byłam miła.", "Tam.", "Byłem tam."]))
    if kind == "gest_pref":
        return Scripted(score=score_of)
    if kind == "gest_choice":
        return Scripted(respond=lambda p: pick(p, ["(a)", "(b)", "I prefer (b).", "Neither."]))
    raise ValueError(kind)


def declared(probe, names: list[str]) -> dict:
    """What the probe declares of each metric it gave (its spec's fields and the label a reader
    sees) and of itself (headline, quality metrics, plots of its own, unsigned options, alias)."""
    from mtdebias.probes.base import metric_label

    def spec(name):
        s = probe.spec(name)
        return None if s is None else {"pattern": s.pattern, "better": s.better, "test": s.test,
                                       "bounds": list(s.bounds) if s.bounds else None, "nan": s.nan,
                                       "undefined": s.undefined, "label": metric_label(type(probe), name),
                                       "definition": s.definition, "source": s.source, "interval": s.interval}
    return {"specs": {name: spec(name) for name in names},
            "headline": [[h.metric, h.label] for h in probe.headline],
            "quality": [[h.metric, h.label] for h in probe.quality],
            "own_plots": list(probe.own_plots), "unsigned": list(probe.unsigned)}


def main() -> None:
    sys.path.insert(0, str(ROOT))
    from mtdebias.probes.registry import PROBES
    from mtdebias.probes.base import Attempts

    import os

    os.chdir(ROOT)
    for name, options, source in cases():
        probe = PROBES.load(name)(**options)
        if isinstance(source, str):
            items = probe.items()
            attempts = probe.run(scripted(source, probe), items)
            settings = attempts.settings
            rows = list(attempts)
        else:
            rows, settings = source, {}
        assert len(rows) <= 200, (name, len(rows))
        scored = Attempts(rows, settings=settings)
        metrics = [m.to_dict() for m in probe.metrics(scored)]
        folder = HERE / name
        folder.mkdir(exist_ok=True)
        (folder / "attempts.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n"
                                                       for r in rows), encoding="utf-8")
        expected = {"options": options, "settings": settings, "translator": TRANSLATOR,
                    "signature": probe.signature(Scripted(), scored), "metrics": metrics,
                    **declared(probe, [m["metric"] for m in metrics]),
                    "degenerate": probe.degenerate(probe.metrics(scored, ci=False))}
        (folder / "expected.json").write_text(json.dumps(expected, ensure_ascii=False, indent=1) + "\n",
                                              encoding="utf-8")
        print(name, len(rows), "attempts,", len(metrics), "metrics")


if __name__ == "__main__":
    main()
