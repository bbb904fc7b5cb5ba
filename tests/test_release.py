"""A release a team can pin: one version, project URLs, a changelog, and artifacts that build,
pass `twine check --strict`, install and run (the slow test; scripts/release_check.sh)."""

from __future__ import annotations

import re
import subprocess
import tomllib
from pathlib import Path

import pytest

import prefixlint

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())


def test_the_version_has_one_home_and_the_changelog_knows_it():
    assert PYPROJECT["project"]["dynamic"] == ["version"] and "version" not in PYPROJECT["project"]
    assert PYPROJECT["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "prefixlint.__version__"}
    assert re.fullmatch(r"\d+\.\d+\.\d+", prefixlint.__version__)
    headings = re.findall(r"^## (\S+)", (ROOT / "CHANGELOG.md").read_text(), re.MULTILINE)
    assert prefixlint.__version__ in headings


def test_project_urls_point_at_the_repository_the_examples_pin():
    urls = PYPROJECT["project"]["urls"]
    assert urls["Repository"] == prefixlint.REPOSITORY
    owner_name = prefixlint.REPOSITORY.removeprefix("https://github.com/")
    readme = (ROOT / "README.md").read_text()
    assert f"repo: {prefixlint.REPOSITORY}\n    rev: v{prefixlint.__version__}" in readme
    assert f"uses: {owner_name}@v{prefixlint.__version__}" in readme
    assert "OWNER/" not in readme and "pre-commit try-repo" in readme and "repo: local" in readme


def test_every_package_ships():
    listed = set(PYPROJECT["tool"]["setuptools"]["packages"])
    found = {".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "prefixlint").rglob("__init__.py")}
    assert found - {"prefixlint.catalog"} <= listed, sorted(found - listed)


@pytest.mark.slow
def test_the_wheel_and_sdist_build_pass_twine_and_run(tmp_path):
    pytest.importorskip("build")
    pytest.importorskip("twine")
    result = subprocess.run(["bash", str(ROOT / "scripts" / "release_check.sh"), str(tmp_path)],
                            capture_output=True, text=True, timeout=1200)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.count("PASSED") == 2
    for suffix in ("py3-none-any.whl", "tar.gz"):
        assert re.search(rf"prefixlint-{re.escape(prefixlint.__version__)}[-.].*{re.escape(suffix)}: installs, "
                         rf"prefixlint {re.escape(prefixlint.__version__)}, check samples/ -> \d+ findings in \d+ files",
                         result.stdout), result.stdout
