"""Shared test helpers.

``shared_data``: development data kept next to the repository (``../shared``: a real site with
its gold standard, dictionaries, the reference scorer), never copied into it.  A test asks for a
file with ``shared_data("data/dics/en-fr.dic")``; when it is missing the test is skipped locally
but fails in CI (``CI`` set to ``true``, as CI services do), so a CI run cannot pass while
silently skipping them.  ``BITEXT_SHARED_DIR`` points at another copy of that folder.
"""

from __future__ import annotations

import os
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
