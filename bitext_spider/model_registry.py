"""The crawl's translation models, one per language pair, loaded from and saved to the database.

Tomás et al., *WebMining* (section 2.3) train the model on the fly; keeping its state per language
pair in the database (``translation_models``) lets a resumed or repeated crawl continue from it.
Snapshots go through the store's writer thread at most every ``save_interval`` seconds per model,
and every changed model is saved when the crawl closes.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from bitext_spider.store import ModelRecord, Store
from matchers.translation_model import TranslationModel

logger = logging.getLogger(__name__)


def pair_key(lang_a: str, lang_b: str) -> tuple[str, str]:
    """Models are kept for the sorted language pair; ``lang1`` is the model's first side."""
    return (lang_a, lang_b) if lang_a <= lang_b else (lang_b, lang_a)


class ModelRegistry:
    def __init__(
        self,
        store: Store,
        submit: Callable[[ModelRecord], None],
        save_interval: float = 30.0,
    ) -> None:
        self.store = store
        self.submit = submit
        self.save_interval = save_interval
        self._models: dict[tuple[str, str], TranslationModel] = {}
        self._saved_at: dict[tuple[str, str], float] = {}
        self._dirty: set[tuple[str, str]] = set()
        self._lock = threading.Lock()

    def get(self, lang_a: str, lang_b: str) -> TranslationModel:
        key = pair_key(lang_a, lang_b)
        with self._lock:
            model = self._models.get(key)
            if model is None:
                state = self.store.load_model(*key)
                model = None
                if state is not None:
                    try:
                        model = TranslationModel.from_bytes(state)
                        logger.info("translation model %s-%s: resumed (%d sentence pairs seen)",
                                    *key, model.sentences_seen)
                    except Exception as exc:  # a corrupt snapshot costs the training, not the crawl
                        logger.warning("translation model %s-%s: stored state unreadable (%s); starting anew",
                                       *key, exc)
                if model is None:
                    model = TranslationModel(*key)
                self._models[key] = model
                self._saved_at[key] = time.monotonic()
            return model

    def updated(self, lang_a: str, lang_b: str) -> None:
        """Note that a model changed; snapshot it if its last snapshot is old enough."""
        key = pair_key(lang_a, lang_b)
        now = time.monotonic()
        with self._lock:
            self._dirty.add(key)
            if now - self._saved_at.get(key, 0.0) < self.save_interval:
                return
            self._saved_at[key] = now
            self._dirty.discard(key)
            model = self._models[key]
        self.submit(self._record(key, model))

    @staticmethod
    def _record(key: tuple[str, str], model: TranslationModel) -> ModelRecord:
        return ModelRecord(key[0], key[1], model.pairs_seen, model.sentences_seen, model.to_bytes())

    def stop_snapshots(self) -> None:
        """From now on changes are only saved by :meth:`save_all` (the writer thread is closing)."""
        with self._lock:
            self.save_interval = float("inf")

    def save_all(self) -> int:
        """Write every model changed since its last snapshot (at close)."""
        with self._lock:
            records = [self._record(k, self._models[k]) for k in sorted(self._dirty)]
            self._dirty.clear()
        if records:
            self.store.save_models(records)
        return len(records)

    def __iter__(self):  # type: ignore[no-untyped-def]
        with self._lock:
            return iter(list(self._models.items()))
