"""Scrapyd deployment, end to end: a real Scrapyd started from a temporary directory on 127.0.0.1, the
egg built by ``scrapyd-deploy --build-egg`` from (a copy of) the project root and uploaded through
``addversion.json``, crawls scheduled through ``schedule.json`` with spider arguments and
``setting=BITEXT_DB_URL=...``, waited for with ``listjobs.json``, and the pairs read from the database.

Skipped only when the Scrapyd server cannot be started (see tests/scrapyd_server.py).
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest
from scrapyd_server import scrapyd_server
from support import PROJECT, gold_of, pairs_of, stat

from bitext_spider.demo.loopback_server import free_port, serve_site
from bitext_spider.demo.site import generate_site

# Crawls in subprocesses or against servers: the full tier only (pytest -m "not slow" skips them).
pytestmark = pytest.mark.slow


SPIDER = "site"
FAST = ["AUTOTHROTTLE_START_DELAY=0", "LOG_LEVEL=INFO", "BITEXT_LOGSTATS_INTERVAL=1"]



@pytest.fixture(scope="module")
def node(tmp_path_factory, egg):
    with scrapyd_server(tmp_path_factory.mktemp("scrapyd")) as n:
        answer = n.post("addversion.json", [("project", PROJECT), ("version", "1")],
                        files={"egg": ("project.egg", egg.read_bytes())})
        assert answer.get("status") == "ok", answer
        assert answer.get("spiders") == 2, answer  # site, and warc (bitext mine-warc's)
        yield n


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    root = tmp_path_factory.mktemp("site")
    port = free_port()
    info = generate_site(root, base_url=f"http://127.0.0.1:{port}", n_docs=14, langs=("en", "fr"), seed=3)
    with serve_site(root, port=port):
        yield info


def schedule(node, db: str, **spider_args: str) -> str:
    fields = [("project", PROJECT), ("spider", SPIDER), ("setting", f"BITEXT_DB_URL={db}")]
    fields += [("setting", s) for s in FAST]
    fields += list(spider_args.items())
    answer = node.post("schedule.json", fields)
    assert answer.get("status") == "ok", answer
    return answer["jobid"]


def run_job(node, db: str, **spider_args: str) -> str:
    job = schedule(node, db, **spider_args)
    node.wait_for_job(PROJECT, job)
    return node.job_log(PROJECT, SPIDER, job)


def assert_pairs(site, db: str, log: str) -> None:
    assert "'finish_reason': 'finished'" in log, log[-4000:]
    assert stat(log, "bitext/failed") is None
    # The workers start from the egg too (their code is on a path only the crawl process has).
    assert stat(log, "bitext/errors/parse_worker") is None and stat(log, "bitext/errors/structure_worker") is None
    assert stat(log, "bitext/time/parse_cpu_ms")  # counted from the parse workers' answers
    found = pairs_of(db)
    gold = gold_of(site)
    tp = len(found & gold)
    assert tp / len(gold) >= 0.9, (tp, len(gold), log[-3000:])
    assert tp / len(found) >= 0.8, (tp, len(found))
    assert stat(log, "bitext/pairs") == len(found)


def test_egg_ships_the_code_the_settings_entry_point_and_the_data(egg, tmp_path):
    """Activated the way Scrapyd's runner activates it, from a directory without the sources."""
    code = textwrap.dedent(f"""
        import importlib.resources, os
        from scrapyd.runner import activate_egg
        activate_egg({str(egg)!r})
        assert os.environ["SCRAPY_SETTINGS_MODULE"] == "bitext_spider.settings", os.environ["SCRAPY_SETTINGS_MODULE"]
        import bitext_spider, bitext_spider.settings, matchers, pipelines, bitext_spider.spiders.site
        for m in (bitext_spider, matchers, pipelines):
            assert m.__file__.startswith({str(egg)!r}), m.__file__
        data = importlib.resources.files("bitext_spider") / "data"
        assert (data / "tmx14.dtd").read_text("utf-8").strip()
        assert (data / "demo_lexicon.tsv").read_text("utf-8").strip()
        from bitext_spider.demo.site import load_lexicon
        assert load_lexicon()
        print("ok")
    """)
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and proc.stdout.strip().endswith("ok"), proc.stderr[-3000:]


def test_scheduled_crawl_with_inline_seed_urls(node, site, tmp_path):
    db = f"sqlite:///{tmp_path / 'inline.db'}"
    log = run_job(node, db, seeds=f"{site.base_url}/", langs="en,fr")
    assert_pairs(site, db, log)


def test_scheduled_crawl_with_a_seeds_file(node, site, tmp_path):
    db = f"sqlite:///{tmp_path / 'file.db'}"
    log = run_job(node, db, seeds=str(site.seeds_path), langs="en,fr")
    assert_pairs(site, db, log)


def test_a_failed_job_is_visible_as_failed(node, tmp_path):
    missing = tmp_path / "missing-seeds.txt"
    log = run_job(node, f"sqlite:///{tmp_path / 'failed.db'}", seeds=str(missing), langs="en,fr")
    assert f"ERROR: bitext job failed: seeds file not found: {missing}" in log, log[-3000:]
    assert stat(log, "bitext/failed") == 1
    assert "'finish_reason': 'bitext_failed: seeds file not found" in log
    assert "'finish_reason': 'finished'" not in log


def test_a_job_whose_database_cannot_be_opened_is_visible_as_failed(node, site, tmp_path):
    db = f"sqlite:///{tmp_path / 'no-such-dir' / 'x.db'}"
    log = run_job(node, db, seeds=f"{site.base_url}/", langs="en,fr")
    missing = tmp_path / "no-such-dir"
    assert (f"ERROR: bitext job failed: cannot create the SQLite database {missing / 'x.db'}: the directory "
            f"{missing} does not exist") in log, log[-3000:]
    assert stat(log, "bitext/failed") == 1
    assert "'finish_reason': 'finished'" not in log
