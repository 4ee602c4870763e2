"""The demo generator's parallel lexicon (``data/demo_lexicon.tsv``: real words of each language,
one concept a row) and the grammar tables the renderers read (article forms, adjective endings,
contractions)."""

from __future__ import annotations

import importlib.resources
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import TypeVar

T = TypeVar("T")
LEXICON_RESOURCE = "demo_lexicon.tsv"
CHARSET_DECLARATIONS = ("meta", "header", "none")
LISTING_PAGE_SIZE = 100

_NOUN_CATEGORIES = ("person", "institution", "place", "thing", "food")
_PRICE_KEY = "€{0}.{1}"
# Frequency adverbs go before the verb in en/es/pl ("the museum often offers"); the rest go last.
_PRE_VERB_ADVERBS = frozenset(
    {"also", "often", "always", "usually", "now", "still", "already", "sometimes", "soon"}
)
# German prepositions governing the accusative; all others in the lexicon take the dative.
_DE_ACCUSATIVE_PREPS = frozenset({"für", "ohne", "um", "durch", "gegen"})
_DE_DEFINITE = MappingProxyType(
    {
        "nom": MappingProxyType({"m": "der", "f": "die", "n": "das"}),
        "acc": MappingProxyType({"m": "den", "f": "die", "n": "das"}),
        "dat": MappingProxyType({"m": "dem", "f": "der", "n": "dem"}),
    }
)
_DE_INDEFINITE = MappingProxyType(
    {
        "nom": MappingProxyType({"m": "ein", "f": "eine", "n": "ein"}),
        "acc": MappingProxyType({"m": "einen", "f": "eine", "n": "ein"}),
        "dat": MappingProxyType({"m": "einem", "f": "einer", "n": "einem"}),
    }
)
# Adjective endings after a definite (weak) and an indefinite (mixed) article.
_DE_WEAK = MappingProxyType(
    {
        "nom": MappingProxyType({"m": "e", "f": "e", "n": "e"}),
        "acc": MappingProxyType({"m": "en", "f": "e", "n": "e"}),
        "dat": MappingProxyType({"m": "en", "f": "en", "n": "en"}),
    }
)
_DE_MIXED = MappingProxyType(
    {
        "nom": MappingProxyType({"m": "er", "f": "e", "n": "es"}),
        "acc": MappingProxyType({"m": "en", "f": "e", "n": "es"}),
        "dat": MappingProxyType({"m": "en", "f": "en", "n": "en"}),
    }
)
# Article contractions, applied to whole sentences ("de le musée" -> "du musée").
_CONTRACTIONS: Mapping[str, Mapping[str, str]] = MappingProxyType(
    {
        "fr": MappingProxyType({"à le ": "au ", "de le ": "du ", "de un ": "d'un ", "de une ": "d'une "}),
        "es": MappingProxyType({"a el ": "al ", "de el ": "del "}),
        "it": MappingProxyType(
            {
                "di il ": "del ",
                "di lo ": "dello ",
                "di la ": "della ",
                "di l'": "dell'",
                "a il ": "al ",
                "a lo ": "allo ",
                "a la ": "alla ",
                "a l'": "all'",
                "da il ": "dal ",
                "da lo ": "dallo ",
                "da la ": "dalla ",
                "da l'": "dall'",
                "in il ": "nel ",
                "in lo ": "nello ",
                "in la ": "nella ",
                "in l'": "nell'",
            }
        ),
        "pt": MappingProxyType(
            {"de o ": "do ", "de a ": "da ", "em o ": "no ", "em a ": "na ", "a o ": "ao ", "a a ": "à "}
        ),
        "de": MappingProxyType(
            {
                "in dem ": "im ",
                "an dem ": "am ",
                "zu dem ": "zum ",
                "zu der ": "zur ",
                "von dem ": "vom ",
                "bei dem ": "beim ",
            }
        ),
    }
)
_SPACED_LANGS = frozenset({"en", "fr", "de", "es", "it", "pt", "nl", "pl"})


# --------------------------------------------------------------------------------------------------
# Lexicon


@dataclass(frozen=True)
class Lexicon:
    """A parallel lexicon: concept ids, their words per language and their categories."""

    langs: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    categories: Mapping[str, tuple[int, ...]]
    keys: Mapping[str, int]

    def word(self, concept: int, lang: str) -> str:
        """The word for ``concept`` in ``lang``; ``""`` where the language needs none."""
        cell = self.rows[concept][self.langs.index(lang)]
        return "" if cell == "-" else cell

    def key(self, english: str) -> int:
        """The concept whose English cell is ``english``."""
        return self.keys[english]

    def ids(self, category: str) -> tuple[int, ...]:
        """Concept ids of a category (``noun`` categories, ``verb``, ``adjective``...)."""
        return self.categories[category]


def load_lexicon(path: Path | None = None) -> Lexicon:
    """Read the lexicon TSV (the bundled one by default)."""
    if path is None:
        text = (importlib.resources.files("bitext_spider") / "data" / LEXICON_RESOURCE).read_text("utf-8")
    else:
        text = Path(path).read_text("utf-8")
    lines = text.splitlines()
    langs = tuple(lines[0].split("\t"))
    rows: list[tuple[str, ...]] = []
    categories: dict[str, list[int]] = {}
    keys: dict[str, int] = {}
    category = "misc"
    for line in lines[1:]:
        if line.startswith("#"):
            m = re.fullmatch(r"#\s*\[(\w+)\]\s*", line)
            if m:
                category = m.group(1)
            continue
        if not line.strip():
            continue
        cells = tuple(line.split("\t"))
        if len(cells) != len(langs):
            raise ValueError(f"lexicon line has {len(cells)} cells, expected {len(langs)}: {line!r}")
        categories.setdefault(category, []).append(len(rows))
        keys.setdefault(cells[0], len(rows))
        rows.append(cells)
    return Lexicon(
        langs=langs,
        rows=tuple(rows),
        categories=MappingProxyType({k: tuple(v) for k, v in categories.items()}),
        keys=MappingProxyType(keys),
    )
