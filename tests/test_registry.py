"""One lazy registry for probes, debiasing methods, aligners and augmenters (``name.vN``)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from mtdebias.errors import ConfigError
from mtdebias.probes.registry import ALIGNERS, AUGMENTERS, DEBIAS_METHODS, PROBES, REGISTRIES

ROOT = Path(__file__).resolve().parents[1]


def test_one_naming_scheme_with_the_old_names_as_aliases():
    """Every versioned entry's unversioned name is an alias without being written anywhere."""
    for registry in REGISTRIES.values():
        for name in registry.entries:
            base, _, version = name.rpartition(".v")
            assert base and version.isdigit(), name
        for alias, target in registry.all_aliases().items():
            assert target in registry.entries and registry.canonical(alias) == target
    assert PROBES.canonical("winomt") == "winomt.v1" and DEBIAS_METHODS.canonical("hard") == "hard.v1"
    assert ALIGNERS.canonical("fast_align.v1") == "fast_align.v1" and "switch_entity" in AUGMENTERS


def test_unknown_names_get_a_did_you_mean():
    with pytest.raises(ConfigError, match=r"unknown probe 'name_gendr' \(did you mean 'name_gender'\?\)"):
        PROBES.canonical("name_gendr")
    with pytest.raises(ConfigError, match=r"debias.method: unknown debiasing method 'lace' \(did you mean 'leace'\?\)"):
        DEBIAS_METHODS.canonical("lace", where="debias.method")


def test_every_entry_loads():
    from mtdebias.probes.winomt.probe import WinoMTProbe

    assert PROBES.load("winomt") == WinoMTProbe.from_options
    for registry in REGISTRIES.values():
        for name in registry.entries:
            assert callable(registry.load(name)), name


def test_naming_and_validating_imports_nothing_heavy():
    """Entries are strings: the registry, and a recipe validated against it, import no probe,
    suite, eraser, augmenter, torch, numpy or aligner backend (the pipeline checks the suite).
    The aligners' table is imported (it is in ``mtdebias.align.aligners``, which needs only the
    standard library until an aligner runs), and so is the debiasing methods' table; the probes'
    table is ``mtdebias.probes.registry`` (with the package's ``__init__``, a docstring)."""
    code = ("import sys; from mtdebias.probes.registry import PROBES; from mtdebias.recipe import load_recipe; "
            "load_recipe('recipes/quickstart.toml'); "
            "print(sorted(m for m in sys.modules if m.startswith(('mtdebias.probes', 'mtdebias.evaluation.suite', "
            "'mtdebias.augment', 'mtdebias.debias.', 'torch', 'numpy', 'systran_align', 'eflomal')) "
            "and m not in ('mtdebias.debias.methods', 'mtdebias.probes', 'mtdebias.probes.registry')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.strip() == "[]"


def test_an_alias_is_pinned_and_says_when_a_newer_version_exists():
    from mtdebias.probes.registry import Registry

    registry = Registry("probe", {"x.v1": "mtdebias.errors:InputError", "x.v2": "mtdebias.errors:ConfigError"})
    with pytest.warns(UserWarning, match="'x' means x.v1; x.v2 exists too"):
        assert registry.canonical("x") == "x.v1"
    assert registry.canonical("x.v2") == "x.v2"


def test_the_registry_gathers_the_tables_the_packages_dispatch_on():
    """Aligners and debiasing methods are named in their own packages (which pick from them
    without importing the registry); the registry lists those very tables, not copies."""
    from mtdebias.align.aligners import ALIGNERS as aligners_table
    from mtdebias.debias.methods import DEBIAS_METHODS as debias_table

    assert REGISTRIES["aligner"] is aligners_table is ALIGNERS
    assert REGISTRIES["debias"] is debias_table is DEBIAS_METHODS
