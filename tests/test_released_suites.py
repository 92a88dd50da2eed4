"""The released-model suites (eval/released/*.toml) run at the sizes their comments state, and
the Makefile has one target per suite that scores both released models with it."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from mtdebias.evaluation.runner import build_probes
from mtdebias.evaluation.suite import load_suite

REPO = Path(__file__).resolve().parents[1]
SUITES = sorted((REPO / "eval" / "released").glob("*.toml"))
SIZE = re.compile(r"^# size: ([\d,]+) items", re.M)


def stated_sizes(path: Path) -> dict[str, int]:
    """label → the size its `# size: N items` comment states, read from each [[probe]] block."""
    out = {}
    for block in path.read_text(encoding="utf-8").split("[[probe]]")[1:]:
        label = re.search(r'^label = "([^"]+)"', block, re.M).group(1)
        sizes = SIZE.findall(block)
        assert len(sizes) == 1, f"{path.name}: probe {label} states its size once (# size: N items)"
        out[label] = int(sizes[0].replace(",", ""))
    return out


@pytest.mark.parametrize("path", SUITES, ids=lambda p: p.stem)
def test_each_probe_runs_the_size_its_comment_states(path):
    stated = stated_sizes(path)
    suite = load_suite(path)
    assert set(stated) == {spec.label for spec in suite.probes}
    built = build_probes(suite, {})  # probes whose data is absent (../shared, the Bible) are left out
    if not built:
        pytest.skip(f"{path.name}: no probe's data is present here")
    for spec, probe in built:
        assert len(probe.items()) == stated[spec.label], f"{path.name}: {spec.label}"
        assert spec.options.get("beam", 1) == 1  # greedy, as the Makefile's max_new_tokens = 64 assumes


def test_every_language_with_a_winomt_detector_has_a_full_winomt_suite():
    from mtdebias.lang.languages import LANGUAGES

    detectors = {code for code, language in LANGUAGES.items() if language.detector}
    with_winomt = {path.stem for path in SUITES if 'type = "winomt.v1"' in path.read_text(encoding="utf-8")}
    assert with_winomt == detectors
    from mtdebias.translators.llm_prompt import load_examples

    english = None
    for path in SUITES:  # every suite's few-shot file: the same three English sentences, translated
        examples = load_examples(str(REPO / "eval" / "released" / f"examples_{path.stem}.tsv"))
        assert len(examples) == 3 and all(target.strip() for _, target in examples)
        english = english or [source for source, _ in examples]
        assert [source for source, _ in examples] == english


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_one_make_target_per_suite_scores_both_models_on_the_route_given():
    def dry_run(target: str) -> str:
        # -n prints the recipes (those of missing prerequisites too) and runs none
        done = subprocess.run(["make", "-n", target, "ROUTE=some-route"], cwd=REPO, capture_output=True,
                              text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        return done.stdout

    every = dry_run("real-llms")
    for path in SUITES:
        commands = [line for line in dry_run(f"real-llms-{path.stem}").splitlines() if " eval " in line]
        assert len(commands) == 2, commands
        for model, command in zip(("gemma-3-270m-q4_k_m.gguf", "smollm2-135m-instruct-q4_1.gguf"), commands):
            assert f"eval some-route:runs/released/{model} --suite eval/released/{path.stem}.toml" in command
            assert f"tgt_lang={path.stem}" in command and "max_new_tokens=64" in command
            assert command in every
    assert "real-llms-table" in every


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_each_winomt_target_runs_its_suites_winomt_probe_alone_on_both_models():
    for path in SUITES:
        if 'type = "winomt.v1"' not in path.read_text(encoding="utf-8"):
            continue
        done = subprocess.run(["make", "-n", f"real-llms-winomt-{path.stem}", "ROUTE=some-route"], cwd=REPO,
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        commands = [line for line in done.stdout.splitlines() if " eval " in line]
        assert len(commands) == 2, commands
        for model, command in zip(("gemma-3-270m-q4_k_m.gguf", "smollm2-135m-instruct-q4_1.gguf"), commands):
            # the full suite's probe, by its label: stored as `make real-llms-LANG` stores it
            assert f"eval some-route:runs/released/{model} --suite eval/released/{path.stem}.toml" in command
            assert command.endswith(f"--only winomt_{path.stem}")
        assert f'label = "winomt_{path.stem}"' in path.read_text(encoding="utf-8")
