"""Pairs through a third language: on a multilingual site the versions of one document are all
translations of each other, so when page A pairs with B and B pairs with C (C in a third
language), A and C are a candidate pair too.

The page filters and the content filter judge each language pair on its own, and a rare pair
(Galician-Japanese on a 19-language site) has a young translation model and few structure
matches, while each of its pages pairs well with the site's main languages.  Kit & Ng (URL pairing
patterns, section 5, future work 4) point at multilingual sites as the case their bilingual keys
do not cover; their URL keys pair such pages only when the URLs say so.  Proposals are made only
for slots the one-to-one resolution left empty (A has no partner in C's language and C none in
A's), and each is judged with all the evidence of the decision, so a contradicting trained model
or a too-short page still turns it down.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class PivotProposal:
    url1: str
    lang1: str
    url2: str
    lang2: str
    pivots: tuple[str, ...]  # the pages B that pair with both, sorted
    shared: int  # languages in which both pages have a partner (the pivots' possible number)

    @property
    def support(self) -> float:
        """k / (k + 1) for k pivot pages (one 0.5, two 0.67, four 0.8), times the share of the
        languages both pages have partners in where the partner is the same page: a wrong pair
        on the way gives one pivot where the two pages' other partners disagree."""
        k = len(self.pivots)
        return k / (k + 1) * k / max(k, self.shared)


def pivot_proposals(pairs: Iterable[tuple[str, str, str, str]]) -> list[PivotProposal]:
    """Proposals from final pairs (url1, lang1, url2, lang2), one per page and language at most:
    the partner most pivots agree on (ties: the smaller URL), in a deterministic order."""
    lang_of: dict[str, str] = {}
    partner: dict[str, dict[str, str]] = defaultdict(dict)  # page -> {other language: partner}
    for u1, l1, u2, l2 in pairs:
        lang_of[u1], lang_of[u2] = l1, l2
        partner[u1][l2] = u2
        partner[u2][l1] = u1
    votes: dict[tuple[str, str], dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    for a, mine in partner.items():
        la = lang_of[a]
        for b in mine.values():
            for lc, c in partner[b].items():
                if c == a or lc == la or lc in mine or la in partner[c]:
                    continue
                votes[(a, lc)][c].add(b)
    chosen: dict[frozenset[str], PivotProposal] = {}
    for (a, _lc), options in sorted(votes.items()):
        c, via = min(options.items(), key=lambda kv: (-len(kv[1]), kv[0]))
        key = frozenset((a, c))
        if key not in chosen:
            (u1, l1), (u2, l2) = sorted(((a, lang_of[a]), (c, lang_of[c])))
            shared = len(partner[a].keys() & partner[c].keys())
            chosen[key] = PivotProposal(u1, l1, u2, l2, tuple(sorted(via)), shared)
    return [chosen[k] for k in sorted(chosen, key=lambda k: sorted(k))]
