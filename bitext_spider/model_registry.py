"""The crawl's translation models, one per language pair, loaded from the database and merged back.

Tomás et al., *WebMining* (section 2.3) train the model on the fly; keeping its state per language
pair in the database (``translation_models``) lets a resumed or repeated crawl continue from it.

Several crawler processes (Scrapyd nodes, ``bitext schedule``) may train the same language pair's
model against one database, each on its own sites.  Expected counts are sums over sentence pairs,
so a save *adds* this process's new counts to the stored ones and the process continues from the
sum, everyone's training:

1. if the stored row still has the version (``sentences_seen``, ``pairs_seen``) the model was
   loaded or last saved at, nobody else wrote since: the model is written as it is, the stored
   state plus exactly this process's training (always so for a single process, which therefore
   stores exactly the snapshot it stored before saves merged);
2. otherwise the stored state is read, the model's pending counts (what :meth:`update` added since
   the last load or save, :meth:`TranslationModel.pending_counts`) are added to it, the sum is
   written and the in-memory model becomes the sum (:meth:`TranslationModel.adopt`).

Both writes are a compare-and-set on the version (:meth:`Store.replace_model`), retried after a
lost race, so concurrent writers on SQLite or PostgreSQL never overwrite each other's counts and
no schema change was needed: every write adds training, so the version only grows.

Saves run synchronously in the thread that calls :meth:`updated`, at most every ``save_interval``
seconds per model, and in :meth:`save_all` at close.  The content stage updates models from one
worker thread only and calls :meth:`updated` right after, so no update can land between taking
the pending counts and adopting the merged model (which would need the counts added meanwhile to
be carried over), and no other thread reads a model while the content thread can change it: the
other readers (the close steps) run after the last item.  :meth:`get` may be called from any
thread.
"""

from __future__ import annotations

import logging
import random
import threading
import time

from bitext_spider.store import ModelRecord, Store, StoredModel
from matchers.translation_model import TranslationModel

logger = logging.getLogger(__name__)

# Lost compare-and-set races before a save gives up (its pending counts are kept for the next).
_SAVE_ATTEMPTS = 20


def pair_key(lang_a: str, lang_b: str) -> tuple[str, str]:
    """Models are kept for the sorted language pair; ``lang1`` is the model's first side."""
    return (lang_a, lang_b) if lang_a <= lang_b else (lang_b, lang_a)


class ModelRegistry:
    def __init__(self, store: Store, save_interval: float = 30.0) -> None:
        self.store = store
        self.save_interval = save_interval
        self._models: dict[tuple[str, str], TranslationModel] = {}
        # Version of the stored row each model was loaded or last saved at (None: no row then).
        self._stored: dict[tuple[str, str], tuple[int, int] | None] = {}
        self._saved_at: dict[tuple[str, str], float] = {}
        self._dirty: set[tuple[str, str]] = set()
        self._lock = threading.Lock()  # the dictionaries above
        self._save_lock = threading.Lock()  # one save at a time (the content thread and close)
        self.merges = 0  # saves that found other processes' training and merged with it
        self.merged_sentences = 0  # sentence pairs of other processes' training taken in
        self.lost_races = 0  # compare-and-set writes another writer beat (then retried)

    def get(self, lang_a: str, lang_b: str) -> TranslationModel:
        key = pair_key(lang_a, lang_b)
        with self._lock:
            model = self._models.get(key)
            if model is None:
                row = self.store.model_row(*key)
                if row is not None:
                    model = self._decode(key, row)
                    if model is not None:
                        logger.info("translation model %s-%s: resumed (%d sentence pairs seen)",
                                    *key, model.sentences_seen)
                if model is None:
                    model = TranslationModel(*key)
                self._models[key] = model
                # An unreadable row's version too: the first save then overwrites it.
                self._stored[key] = row.version if row is not None else None
                self._saved_at[key] = time.monotonic()
            return model

    def updated(self, lang_a: str, lang_b: str) -> None:
        """Note that a model changed; merge it into the database if its last save is old enough.

        Call it from the thread that updates the models, right after the update."""
        key = pair_key(lang_a, lang_b)
        now = time.monotonic()
        with self._lock:
            self._dirty.add(key)
            if now - self._saved_at.get(key, 0.0) < self.save_interval:
                return
            self._saved_at[key] = now
        self._save(key)

    def stop_snapshots(self) -> None:
        """From now on changes are only saved by :meth:`save_all` (the crawl is closing)."""
        with self._lock:
            self.save_interval = float("inf")

    def save_all(self) -> int:
        """Merge every model changed since its last save into the database (at close, when no
        update runs any more).  Returns the number saved; a model that could not be saved is
        logged and stays dirty."""
        with self._lock:
            keys = sorted(self._dirty)
        return sum(self._save(k) for k in keys)

    def __iter__(self):  # type: ignore[no-untyped-def]
        with self._lock:
            return iter(list(self._models.items()))

    # -- saving ---------------------------------------------------------------------------------
    def _save(self, key: tuple[str, str]) -> bool:
        with self._save_lock:
            with self._lock:
                model = self._models.get(key)
                self._dirty.discard(key)
            if model is None or not model.has_pending:
                return False
            try:
                self._merge(key, model)
            except Exception:
                # The pending counts stay with the model: the next save adds them.
                logger.exception("translation model %s-%s: saving failed; retried at the next save", *key)
                with self._lock:
                    self._dirty.add(key)
                return False
            return True

    def _merge(self, key: tuple[str, str], model: TranslationModel) -> None:
        expected = self._stored[key]
        for attempt in range(_SAVE_ATTEMPTS):
            # The version alone first: reading the state is only worth it when someone else wrote.
            if self.store.model_version(*key) == expected:
                if self.store.replace_model(self._record(key, model), expected):
                    model.clear_pending()
                    self._stored[key] = (model.sentences_seen, model.pairs_seen)
                    return
            else:
                row = self.store.model_row(*key)
                if row is None:  # the row was deleted since: store the whole model anew
                    expected = None
                    continue
                merged = self._decode(key, row)
                if merged is not None:
                    merged.add_counts(model.pending_counts())
                # An unreadable stored state is overwritten, as a resumed crawl would.
                target = merged if merged is not None else model
                if self.store.replace_model(self._record(key, target), row.version):
                    if merged is not None:
                        others = merged.sentences_seen - model.sentences_seen
                        model.adopt(merged)
                        self.merges += 1
                        self.merged_sentences += others
                        logger.debug("translation model %s-%s: merged %d sentence pairs of other processes "
                                     "(%d seen in all)", *key, others, model.sentences_seen)
                    else:
                        model.clear_pending()
                    self._stored[key] = (model.sentences_seen, model.pairs_seen)
                    return
            self.lost_races += 1
            # Lost the race to another writer: back off and read again.  ``expected`` stays the
            # version of the in-memory model's base, the only one it may overwrite.
            time.sleep(random.uniform(0.005, 0.02) * (attempt + 1))
        raise RuntimeError(f"lost {_SAVE_ATTEMPTS} races to other writers")

    @staticmethod
    def _decode(key: tuple[str, str], row: StoredModel) -> TranslationModel | None:
        try:
            return TranslationModel.from_bytes(row.state)
        except Exception as exc:  # a corrupt snapshot costs the training, not the crawl
            logger.warning("translation model %s-%s: stored state unreadable (%s); starting anew", *key, exc)
            return None

    @staticmethod
    def _record(key: tuple[str, str], model: TranslationModel) -> ModelRecord:
        return ModelRecord(key[0], key[1], model.pairs_seen, model.sentences_seen, model.to_bytes())
