"""Language codes compared by base language: ``pt-BR`` and ``pt`` are one language, as are the
deprecated codes and the codes they were replaced by (``iw`` and ``he``)."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from types import MappingProxyType

# Deprecated or macro-language codes that mean the same language as the code they map to.
ALIASES: Mapping[str, str] = MappingProxyType(
    {"iw": "he", "ji": "yi", "in": "id", "jw": "jv", "mo": "ro", "fil": "tl", "nb": "no"}
)


def primary_subtag(code: str) -> str:
    """Primary subtag, lower case, no aliases: ``pt_BR`` -> ``pt`` (how ``BITEXT_LANGS`` is read)."""
    return str(code).strip().lower().replace("_", "-").split("-")[0]


@functools.lru_cache(maxsize=4096)  # a site has few distinct codes; the decision asks millions of times
def base_language(code: str) -> str:
    """Primary subtag, lower case, aliases resolved: ``pt-BR`` -> ``pt``, ``iw`` -> ``he``, ``nb`` -> ``no``."""
    base = code.strip().lower().replace("_", "-").split("-", 1)[0]
    return ALIASES.get(base, base)


def same_language(a: str, b: str) -> bool:
    """Same base language; never for an empty, undetermined (``und``) or ``x-default`` code."""
    ba, bb = base_language(a), base_language(b)
    return ba == bb and ba not in ("", "und", "x")
