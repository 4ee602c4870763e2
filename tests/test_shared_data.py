"""The ``shared_data`` helper: missing development data skips a test locally and fails it in CI."""

from __future__ import annotations

import sys

import pytest


@pytest.fixture
def helper(shared_data, tmp_path, monkeypatch):
    conftest = sys.modules[shared_data.__module__]
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "here.tsv").write_text("x\n", encoding="utf-8")
    monkeypatch.setattr(conftest, "SHARED_DIR", tmp_path)
    return shared_data


def test_present_file_is_returned(helper, tmp_path, monkeypatch):
    monkeypatch.setenv("CI", "true")
    assert helper("data/here.tsv") == tmp_path / "data" / "here.tsv"


@pytest.mark.parametrize("ci", ["", "0", "false"])
def test_missing_file_skips_outside_ci(helper, monkeypatch, ci):
    monkeypatch.setenv("CI", ci)
    with pytest.raises(pytest.skip.Exception, match="data/gone.tsv"):
        helper("data/gone.tsv")


@pytest.mark.parametrize("ci", ["true", "True", "1"])
def test_missing_file_fails_in_ci(helper, monkeypatch, ci):
    monkeypatch.setenv("CI", ci)
    with pytest.raises(pytest.fail.Exception, match="data/gone.tsv.*CI must provide it"):
        helper("data/gone.tsv")
