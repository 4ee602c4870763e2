"""Every score a candidate pair carries, declared once: its name, what it measures, and who writes
it.  The stages write them into the candidate's scores (``CandidateSet.add_scores`` as pages
arrive, the close-time steps into the stored candidate); ``bitext export candidates`` shows them
in this order; docs/scores.md is generated from this table (``python -m bitext_spider.reference``)
and a test checks that the code writes and reads no other name."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Score:
    name: str  # a ``<...>`` part stands for a family: ``dictionary_<lang>``
    meaning: str
    written_by: str  # the module that computes it


SCORES: tuple[Score, ...] = (
    Score("size_file", "Relative difference of the two pages' sizes (bytes, or script-weighted "
          "characters, the closer).", "matchers/structure/size_ratio.py"),
    Score("size_tags", "Relative difference of the two pages' tag counts.", "matchers/structure/size_ratio.py"),
    Score("size_paragraphs", "Relative difference of the two pages' paragraph counts.",
          "matchers/structure/size_ratio.py"),
    Score("edit_distance", "Weighted edit distance of the two tag sequences (NaN when the banded "
          "search stopped over the limit).", "matchers/structure/structure_filter.py"),
    Score("structure_threshold", "The distance limit for this pair (a share of the longer sequence).",
          "matchers/structure/structure_filter.py"),
    Score("structure", "Structure similarity, 1 - distance / longer sequence.", "matchers/structure/structure_filter.py"),
    Score("chunk_correlation", "Correlation of the lengths of aligned text chunks (STRAND's r).",
          "matchers/structure/structure_filter.py"),
    Score("aligned_chunks", "Text chunks aligned by the edit distance.", "matchers/structure/structure_filter.py"),
    Score("content_share", "Share of the sentence alignment's beads whose translation probability "
          "passes BITEXT_CONTENT_SENTENCE_THRESHOLD.", "matchers/content/content_filter.py"),
    Score("content_mean", "Mean translation probability of the aligned beads.", "matchers/content/content_filter.py"),
    Score("content_maturity", "The translation model's maturity when the content share was judged "
          "(a young judgment is made again at close).", "matchers/content/content_filter.py"),
    Score("score", "The candidate's ranking score: structure mixed with the content share, by the "
          "model's maturity.", "matchers/content/content_filter.py"),
    Score("found_at_close", "1 for a pair found by the content-only search at close.",
          "matchers/content/content_filter.py"),
    Score("bag", "Similarity of the page's translated bag of words to the other page's (TF/IDF; Buck & "
          "Koehn 2016), for a pair found on content alone.", "matchers/content/content_filter.py"),
    Score("bag_mutual", "1 when each page of a pair found on content alone is the other's closest "
          "translated bag of words.", "matchers/content/content_filter.py"),
    Score("dictionary", "1 when both PCB dictionary scores pass their thresholds, 0 when not.",
          "matchers/content/dictionary_judge.py"),
    Score("dictionary_<lang>", "PCB's bag-of-words translation score of the page in <lang> "
          "(Tsvetkov & Wintner, section 3.2.2).", "matchers/content/dictionary_judge.py"),
    Score("proposed", "1 for a pair proposed at close by URL keys, links or a third language, not by the page filters.",
          "matchers/site/site_decision.py"),
    Score("p_d", "Jangeldin & Assylbekov's length-normalised distance of the pair.", "matchers/site/site_decision.py"),
    Score("l_d", "Jangeldin & Assylbekov's log-length feature of the pair.", "matchers/site/site_decision.py"),
    Score("l_d_threshold", "The unsupervised structure threshold (Algorithm 1) for the pair's languages.",
          "matchers/site/site_decision.py"),
    Score("link", "Link evidence: hreflang, language switchers, mutual links (0..1).", "matchers/site/site_decision.py"),
    Score("url_key", "URL pairing-key evidence (Kit & Ng), 0..1.", "matchers/site/site_decision.py"),
    Score("images", "Jaccard similarity of the pages' images, weighted by their rarity on the site.",
          "matchers/site/site_decision.py"),
    Score("pivot", "Support of a pair proposed through a third language: k / (k + 1) for k pages that pair "
          "with both, times the share of their common partner languages where the partner agrees (0 when "
          "a later run no longer proposes it).", "matchers/site/pivot_pairs.py"),
    Score("pivots", "The pages that pair with both pages of a pair proposed through a third language.",
          "matchers/site/pivot_pairs.py"),
    Score("slug", "Share of the words of the two URLs' paths that are not in both and whose translation (the "
          "site's model, or the dictionary) is in the other URL.", "matchers/site/slug_translation.py"),
    Score("fingerprint_ratio", "Edit-distance ratio of the main contents' paragraph fingerprints "
          "(ILSP-FC, section 3.9).", "matchers/site/site_decision.py"),
    Score("decision", "The combined decision: its score, accepted or not, each term, the veto, the "
          "evidence it weighed.", "matchers/site/site_decision.py"),
    Score("x_<name>", "A score of a user's own filter; the decision weighs it (docs/custom_filter.md).",
          "your pipeline"),
)

# The scores ``bitext export candidates`` writes as TSV columns (the JSONL rows have every score).
CANDIDATE_COLUMNS: tuple[str, ...] = (
    "size_file", "size_tags", "size_paragraphs", "edit_distance", "structure_threshold", "structure",
    "content_share", "content_mean",
)


def dictionary_score(lang: str) -> str:
    """The name of the dictionary filter's score of the page in ``lang`` (``dictionary_<lang>``)."""
    return f"dictionary_{lang}"


def declared(name: str) -> Score | None:
    """The declaration of a score name, families (``dictionary_fr``, ``x_topic``) included."""
    for score in SCORES:
        head, sep, _ = score.name.partition("<")
        if score.name == name or (sep and name.startswith(head) and len(name) > len(head)):
            return score
    return None
