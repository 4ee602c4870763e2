"""Shared test helpers.

``egg``: the project built as ``scrapyd-deploy`` builds it (module scope, for the Scrapyd tests).

``shared_data``: development data kept next to the repository (``../shared``: a real site with
its gold standard, dictionaries, the reference scorer), never copied into it.  A test asks for a
file with ``shared_data("data/dics/en-fr.dic")``; when it is missing the test is skipped locally
but fails in CI (``CI`` set to ``true``, as CI services do), so a CI run cannot pass while
silently skipping them.  ``BITEXT_SHARED_DIR`` points at another copy of that folder.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

SHARED_DIR = Path(os.environ.get("BITEXT_SHARED_DIR") or Path(__file__).resolve().parents[2] / "shared")


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def require_shared(relative: str) -> Path:
    """The path of ``relative`` under the shared data folder; skip (locally) or fail (CI) if missing."""
    path = SHARED_DIR / relative
    if not path.exists():
        message = f"needs {relative} in the shared data folder {SHARED_DIR} (set BITEXT_SHARED_DIR)"
        if in_ci():
            pytest.fail(f"{message}; CI must provide it", pytrace=False)
        pytest.skip(message)
    return path


@pytest.fixture
def shared_data() -> Callable[[str], Path]:
    return require_shared


_ROOT = Path(__file__).resolve().parents[1]

# What the project root holds that is not part of a build (the copy is built as a user would build it).
_NOT_BUILT = shutil.ignore_patterns(".git", ".venv", "build", "dist", "*.egg-info", "*.egg", "__pycache__",
                                    "*.db", "*.db-*", ".pytest_cache", ".ruff_cache", ".scrapy", "bitext-demo",
                                    "out", "tests", "benchmarks")


@pytest.fixture(scope="module")
def egg(tmp_path_factory) -> Path:
    """Build the egg with ``scrapyd-deploy --build-egg`` run from the root of a copy of the project."""
    src = tmp_path_factory.mktemp("project") / "bitext-spider"
    shutil.copytree(_ROOT, src, ignore=_NOT_BUILT)
    out = src.parent / "bitext_spider.egg"
    proc = subprocess.run([sys.executable, "-m", "scrapyd_client.deploy", "--build-egg", str(out)], cwd=src,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0 and out.is_file(), proc.stdout + proc.stderr
    return out

