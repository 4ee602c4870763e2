"""``bitext schedule`` on two real Scrapyd nodes sharing one real PostgreSQL database: the sites
are sharded whole over the nodes and the pairs equal those of a single-node run of the same seeds."""

from __future__ import annotations

import pytest
from pg_server import create_database, postgres_server
from scrapyd_server import scrapyd_server
from support import PROJECT, gold_of, pairs_of

from bitext_spider.commands import cli
from bitext_spider.commands.schedule import job_stats, shard_sites
from bitext_spider.crawl.seeds import parse_seeds_text
from bitext_spider.demo.loopback_server import free_port, serve_site
from bitext_spider.demo.site import generate_site
from bitext_spider.store.database import Store

# Crawls in subprocesses or against servers: the full tier only (pytest -m "not slow" skips them).
pytestmark = pytest.mark.slow

FAST = ["-s", "AUTOTHROTTLE_START_DELAY=0", "-s", "LOG_LEVEL=INFO"]
# Pages in one order per site (a site's pairs depend on its pages' order, not on other sites').  The
# content filter is on, with a model that counts as trained after 20 sentence pairs, so that on
# these small sites content decides too: each site judges with its own training only.
DETERMINISTIC = ["-s", "CONCURRENT_REQUESTS=1", "-s", "BITEXT_CONTENT_MATURE_SENTENCES=20"]


def test_sharding_keeps_sites_whole_and_balanced():
    report = parse_seeds_text("http://a.test/ http://a.example/\nhttp://b.test/\nhttp://c.test/\n")
    shards = shard_sites(report.sites, ["http://n1", "http://n2"])
    assert [[s.key for s in sh.sites] for sh in shards] == [
        [report.sites[0].key, report.sites[2].key], [report.sites[1].key]]
    assert shards[0].seeds == "http://a.test/ http://a.example/;http://c.test/"


def test_job_stats_from_a_scrapy_log():
    log = "... {'bitext/pages': 12,\n 'bitext/pairs': 5,\n 'finish_reason': 'finished',\n 'x': 1}"
    assert job_stats(log) == {"bitext/pages": "12", "bitext/pairs": "5", "finish_reason": "finished"}


def _upload(node, egg_path):
    answer = node.post("addversion.json", [("project", PROJECT), ("version", "1")],
                       files={"egg": ("project.egg", egg_path.read_bytes())})
    assert answer.get("status") == "ok", answer


@pytest.fixture(scope="module")
def two_sites(tmp_path_factory):
    infos, servers = [], []
    for seed in (5, 6):
        root = tmp_path_factory.mktemp(f"site{seed}")
        port = free_port()
        infos.append(generate_site(root, base_url=f"http://127.0.0.1:{port}", n_docs=10, langs=("en", "fr"),
                                   seed=seed, extras=False))
        servers.append(serve_site(root, port=port))
    for s in servers:
        s.__enter__()
    yield infos
    for s in servers:
        s.__exit__(None, None, None)


def test_schedule_on_two_nodes_equals_one_node(egg, two_sites, tmp_path_factory, tmp_path, capsys):  # noqa: F811
    seeds = tmp_path / "seeds.txt"
    seeds.write_text("".join(f"{info.base_url}/\n" for info in two_sites), encoding="utf-8")
    gold = set().union(*(gold_of(info) for info in two_sites))
    with postgres_server() as server, scrapyd_server(tmp_path_factory.mktemp("n1")) as n1, \
            scrapyd_server(tmp_path_factory.mktemp("n2")) as n2:
        _upload(n1, egg)
        _upload(n2, egg)
        shared = create_database(server)
        code = cli.main(["schedule", "--nodes", f"{n1.url},{n2.url}", "--seeds", str(seeds), "--langs", "en,fr",
                         "--db", shared, "--timeout", "600", *FAST, *DETERMINISTIC])
        out = capsys.readouterr()
        assert code == 0, out.out + out.err
        lines = out.out.strip().splitlines()
        assert len(lines) == 2 and all("\tok" in line and "1 sites" in line for line in lines), out.out
        assert "2 finished" in out.err
        single = f"sqlite:///{tmp_path / 'single.db'}"
        code = cli.main(["schedule", "--nodes", n1.url, "--seeds", str(seeds), "--langs", "en,fr", "--db", single,
                         "--timeout", "600", *FAST, *DETERMINISTIC])
        assert code == 0
        two_nodes, one_node = pairs_of(shared), pairs_of(single)
        models = []
        for url in (shared, single):
            store = Store(url, create=False)
            models.append(store.model_row("en", "fr"))
            assert store.site_models() == []  # folded by bitext schedule once the jobs ended
            store.close()
    assert two_nodes == one_node
    # Content was trained and the folded model is the same sum whichever node trained which site.
    assert models[0].sentences_seen > 20 and models[0].state == models[1].state
    assert len(two_nodes & gold) >= 0.9 * len(gold)


def test_schedule_reports_an_unreachable_node(tmp_path, capsys):
    seeds = tmp_path / "seeds.txt"
    seeds.write_text("http://127.0.0.1:9/\n", encoding="utf-8")
    code = cli.main(["schedule", "--nodes", f"http://127.0.0.1:{free_port()}", "--seeds", str(seeds)])
    assert code == 2 and "schedule.json" in capsys.readouterr().err
