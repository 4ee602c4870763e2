"""The decision at close hands its decisions to the store in batches, with the same outcome."""

from __future__ import annotations

from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import numpy as np

from matchers.content.translation_model import TranslationModel
from matchers.site.page_index import PageFeatures, SiteIndex
from matchers.site.site_decision import decide_site
from matchers.site.site_evidence import SiteEvidence

S = "http://s.test"
CFG = SimpleNamespace(
    content_enabled=False, content_required=False, content_sentence_threshold=0.5, content_min_sentences=2,
    content_mature_sentences=1000, structure_max_ratio=0.3, threshold_min_pairs=10_000, threshold_step=0.01,
    threshold_delta=0.05,
)


@dataclass
class Candidate:
    id: int
    url1: str
    lang1: str
    url2: str
    lang2: str
    scores: dict[str, Any] = field(default_factory=dict)


class Models:
    def get(self, lang_a: str, lang_b: str, site_id: int) -> TranslationModel:
        return TranslationModel(lang_a, lang_b)


def _site(n: int) -> tuple[SiteIndex, SiteEvidence, list[Candidate]]:
    index, ev = SiteIndex("s"), SiteEvidence()
    rng = np.random.default_rng(3)
    candidates = []
    for i in range(n):
        tokens = rng.integers(-40, 40, size=60).astype(np.int32)
        for lang in ("en", "fr"):
            url = f"{S}/{lang}/page{i}.html"
            index.register(PageFeatures(url, lang, 1000, 900, 60, 5, tokens))
            other = f"{S}/{'fr' if lang == 'en' else 'en'}/page{i}.html"
            # Every third pair is joined by hreflang links only: the decision proposes it.
            links = [(other, "", "fr" if lang == "en" else "en")] if i % 3 == 0 else []
            ev.add(url, lang, links, [], [])
        if i % 3:
            candidates.append(Candidate(len(candidates) + 1, f"{S}/en/page{i}.html", "en", f"{S}/fr/page{i}.html",
                                        "fr", {"structure": 0.9, "edit_distance": 0.1}))
            candidates.append(Candidate(len(candidates) + 1, f"{S}/en/page{i}.html", "en",
                                        f"{S}/fr/page{(i + 1) % n}.html", "fr", {"edit_distance": 0.6}))
    return index, ev, candidates


def test_decisions_saved_in_batches_are_the_decisions_made_at_once():
    index, ev, candidates = _site(13)
    at_once = decide_site(1, candidates, index, ev, Models(), CFG)
    assert at_once.counts["proposed"] == 5 and at_once.counts["accepted"] >= 8

    index, ev, candidates = _site(13)
    batches: list[list[Any]] = []
    batched = decide_site(1, candidates, index, ev, Models(), CFG, save=lambda rows: batches.append(list(rows)),
                          save_every=5)
    assert batched.decided == [] and batched.counts == at_once.counts
    assert len(at_once.decided) == 21 and [len(b) for b in batches] == [5, 5, 5, 5, 1]
    assert [row for b in batches for row in b] == at_once.decided
