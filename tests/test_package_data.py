"""Shipped data is package data: a wheel installed outside the checkout runs a probe on it.

The wheel is built from this checkout without build isolation (offline) and installed with
``--no-deps`` into a fresh venv that sees the test venv's site-packages (torch, numpy, …) but
not the checkout and not its editable install.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import textwrap
import zipfile
from pathlib import Path

from mtdebias import resources

ROOT = Path(__file__).resolve().parents[1]

SCRIPT = textwrap.dedent("""
    import json, re, sys
    import mtdebias
    from mtdebias import resources
    from mtdebias.probes.name_gender.probe import NameGenderProbe, default_template_path, load_gender_templates
    from mtdebias.names import load_name_list
    from toy import TranslateOnly

    templates = load_gender_templates(default_template_path("de"))
    female = set(load_name_list("first_female")) | set(load_name_list("full_female")) | {"she", "She"}

    class Oracle(TranslateOnly):
        # '<subject> ist <noun>.' with the noun in the form of the subject's gender
        def signature(self):
            return "oracle"

        def translate(self, sources, beam=5):
            out = []
            for source in sources:
                for t in templates:
                    pattern = "^" + re.escape(t.template).replace(re.escape("[PERSON]"), "(.+)") + "$"
                    found = re.match(pattern, source, flags=re.IGNORECASE)
                    if found:
                        subject = found.group(1)
                        noun = t.female[0] if subject in female or subject.lower() == "she" else t.male[0]
                        out.append(f"{subject} ist {noun}.")
                        break
                else:
                    raise AssertionError(source)
            return out

    probe = NameGenderProbe.from_options(lang="de", names_limit=3, resamples=0)
    result = probe.evaluate(Oracle())
    print(json.dumps({"module": mtdebias.__file__, "data": str(resources.DATA_ROOT), "templates": len(templates),
                      "metrics": {m.name: m.value for m in result.metrics}}))
""")


def test_wheel_installed_outside_the_checkout_runs_a_probe_on_shipped_data(tmp_path):
    # without PYTHONPATH: a checkout on the path would make pip think mtdebias is installed
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    wheels = tmp_path / "wheels"
    build = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                            "--no-index", "-q", "-w", str(wheels), str(ROOT)],
                           capture_output=True, text=True, cwd=tmp_path, env=env)
    assert build.returncode == 0, build.stderr
    (wheel,) = wheels.glob("mtdebias-*.whl")
    with zipfile.ZipFile(wheel) as archive:  # test fixtures stay out of the package
        assert not [n for n in archive.namelist() if n.startswith(("tests/", "mtdebias/testing"))]

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    install = subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps",
                              "--no-index", "-q", str(wheel)], capture_output=True, text=True, cwd=tmp_path,
                             env=env)
    assert install.returncode == 0, install.stderr
    # the test venv's third-party packages, as a plain path: its .pth files (the editable
    # install of the checkout) are not processed this way
    site = Path(subprocess.check_output([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                                        text=True).strip())
    (site / "shared-deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")

    # the scripted translator's base is a test fixture, not in the wheel: beside the script it
    # is importable (`python -c` puts the working directory first on the path)
    shutil.copy(Path(__file__).with_name("toy.py"), tmp_path / "toy.py")
    out = subprocess.run([str(python), "-c", SCRIPT], capture_output=True, text=True, cwd=tmp_path, env=env)
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout.strip().splitlines()[-1])
    assert Path(report["module"]).is_relative_to(venv), report["module"]  # not the checkout
    assert Path(report["data"]).is_relative_to(venv)
    metrics = report["metrics"]
    # the oracle renders every name in its own gender: all shipped templates pass the he/she
    # filter and every name is right
    assert metrics["templates_kept"] == report["templates"] > 5
    assert metrics["first.acc_f"] == 1.0 and metrics["first.acc_m"] == 1.0
    assert metrics["full.delta_acc"] == 0.0


def test_every_shipped_file_is_package_data():
    """Everything under mtdebias/data is matched by pyproject's package-data glob."""
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert config["tool"]["setuptools"]["package-data"]["mtdebias"] == ["data/**/*"]
    shipped = [p for p in resources.DATA_ROOT.rglob("*") if p.is_file()]
    assert len(shipped) > 40 and resources.data_path("names", "first_female.txt") in shipped
    assert not (ROOT / "data").exists()  # no second copy at the repository root
