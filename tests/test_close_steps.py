"""The close-time sequence's own bookkeeping (bitext_spider.resolution)."""

from bitext_spider.resolution import _applied
from bitext_spider.store.records import SiteCandidate


def _cand(i, score, **scores):
    return SiteCandidate(i, 10 + i, f"http://a/en{i}", "en", 20 + i, f"http://a/fr{i}", "fr", score, scores)


def test_the_content_step_applies_its_writes_to_the_list_it_read():
    # The list the step goes on with is the store's state after its updates and deletes.
    read = [_cand(1, 0.5, content_share=0.2), _cand(2, 0.6, content_share=0.3), _cand(3, 0.7)]
    after = _applied(read, [(2, 0.9, {"content_share": 0.8, "content_maturity": 1.0})], [3])
    assert [(c.id, c.score, c.scores) for c in after] == [
        (1, 0.5, {"content_share": 0.2}),
        (2, 0.9, {"content_share": 0.8, "content_maturity": 1.0}),
    ]
    assert after[1].url1 == "http://a/en2" and after[1].page2_id == 22
    assert read[1].score == 0.6  # the rows read are not changed in place
