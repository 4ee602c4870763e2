"""The crawl's translation models: one per site and language pair, folded into the stored model.

Tomás et al., *WebMining* (section 2.3) train the model on the fly, crawling one website; keeping
its state per language pair in the database (``translation_models``) lets a later crawl start from
what earlier crawls learned.

**A site's model** is the stored model of its language pair as this process first read it (the
*base*, read once per language pair and then kept for the whole crawl) plus that site's own
training, and nothing else: neither the training of other sites in the same process nor that of
other processes.  So a site's content decisions, at arrival and at close, depend only on its own
pages (in their order) and the base, and a site's pairs are the same whichever sites share its
process or Scrapyd node: sharding sites over nodes (``bitext schedule``) gives the single-node
result.  WebMining's crawl is one site too; what a site cannot learn from its neighbours in this
crawl it gets from the next crawl's base.

**Saving.**  A site's training (its pending counts, :meth:`TranslationModel.pending_counts`) is
added to its ``site_models`` row every ``save_interval`` seconds and at close, so a killed crawl
resumes with it (a resumed site's model is the base plus its stored row).  The row is a model
snapshot with ``min_count`` 0: the counts are kept exactly.

**Folding.**  :meth:`fold` adds the site rows of a language pair to the stored model, in site-key
order, and deletes them in the same transaction (a compare-and-set on the model's version
``(sentences_seen, pairs_seen)`` and on each row's, retried after a lost race), so training is
neither lost nor counted twice.  A crawl folds its sites at close (``BITEXT_CONTENT_MODEL_FOLD``),
its sites' new training straight into the models (:meth:`save_and_fold`: the same sums, without
writing and reading their rows back);
``bitext schedule`` turns that off on the nodes and folds once all jobs ended, so that every job
reads the same base however their starts and ends interleave.  ``bitext db fold`` folds what a
crashed run left.

Threads: the content stage updates models from one worker thread and calls :meth:`updated` right
after, so a save never races an update of the same model; the other readers (the close steps) run
after the last item.  :meth:`get` may be called from any thread.
"""

from __future__ import annotations

import logging
import random
import threading
import time
from collections.abc import Callable, Collection, Iterator
from typing import TypeVar

from bitext_spider.store.database import Store
from bitext_spider.store.records import ModelRecord, StoredSiteModel
from matchers.content.model_counts import ModelCounts
from matchers.content.model_priming import SentencePairs, prime
from matchers.content.translation_model import TranslationModel

logger = logging.getLogger(__name__)

# Lost compare-and-set races before a save or fold gives up.
_ATTEMPTS = 20
# Language pairs saved or folded in one transaction at close.  Few transactions: a site can have
# hundreds of language pairs, and on SQLite a commit cost about 20 ms (the W3C site's 187 models
# take 8 transactions, where four pairs to one took 47 and the close about a second longer).  And
# a bounded amount of models in memory at once (a site's models can weigh hundreds of MB encoded):
# at most _TOGETHER_ENTRIES table entries (about 17 bytes each encoded) where the models are in
# memory, else _TOGETHER_UNSIZED pairs.
_TOGETHER = 64
_TOGETHER_ENTRIES = 1_000_000
_TOGETHER_UNSIZED = 4

Pair = tuple[str, str]
_T = TypeVar("_T")


def pair_key(lang_a: str, lang_b: str) -> Pair:
    """Models are kept for the sorted language pair; ``lang1`` is the model's first side."""
    return (lang_a, lang_b) if lang_a <= lang_b else (lang_b, lang_a)


def counts_container(lang1: str, lang2: str) -> TranslationModel:
    """A model used as a sum of expected counts: nothing pruned."""
    return TranslationModel(lang1, lang2, min_count=0.0)


class ModelRegistry:
    def __init__(self, store: Store, save_interval: float = 30.0) -> None:
        self.store = store
        self.save_interval = save_interval
        # The stored model of each language pair at first use, kept all crawl: decoded (what
        # sites that have not trained read) and as stored (what a site's own copy starts from).
        self._bases: dict[Pair, TranslationModel] = {}
        self._base_states: dict[Pair, bytes | None] = {}
        self._models: dict[tuple[int, Pair], TranslationModel] = {}
        self._untrained: set[tuple[int, Pair]] = set()  # sites reading the base (no row at first use)
        # The language pairs each site has a training row of, read at the site's first model: a
        # site's rows are its own crawl's (one process), so this stays true for the pairs whose
        # model is not in memory yet, and a site of hundreds of language pairs asks once.
        self._site_rows: dict[int, set[Pair]] = {}
        self._saved_at: dict[tuple[int, Pair], float] = {}
        self._dirty: set[tuple[int, Pair]] = set()
        self._lock = threading.Lock()  # the dictionaries above
        self._save_lock = threading.Lock()  # one save at a time (the content thread and close)
        self.saves = 0  # site rows written
        self.lost_races = 0  # compare-and-set writes another writer beat (then retried)
        self.folded_sites = 0
        self.folded_sentences = 0
        # A dictionary's entries for a language pair (matchers.content.model_priming), or None:
        # every model read or copied here is primed with them, the stored ones never are.
        self.primer: Callable[[str, str], SentencePairs | None] | None = None
        self._priming: dict[Pair, SentencePairs | None] = {}

    def _prime(self, pair: Pair, model: TranslationModel) -> TranslationModel:
        if self.primer is None:
            return model
        if pair not in self._priming:
            self._priming[pair] = self.primer(*pair)
        pairs = self._priming[pair]
        if pairs:
            prime(model, pairs)
        return model

    def get(self, lang_a: str, lang_b: str, site_id: int) -> TranslationModel:
        """The model site ``site_id`` judges ``lang_a``-``lang_b`` pages with: read it, do not
        train it (:meth:`trainable`).  Until the site trains, this is the base, shared by the
        sites of the process (a stored model can weigh 100 MB decoded)."""
        key = (site_id, pair_key(lang_a, lang_b))
        with self._lock:
            model = self._models.get(key)
            if model is not None:
                return model
            base = self._base(key[1])
            if key in self._untrained:
                return base
            # A resumed site has saved training of its own.
            if key[1] not in self._rows_of(site_id):
                self._untrained.add(key)
                return base
            return self._own(key)

    def _rows_of(self, site_id: int) -> set[Pair]:
        rows = self._site_rows.get(site_id)
        if rows is None:
            rows = self._site_rows[site_id] = set(self.store.site_model_pairs([site_id]))
        return rows

    def trainable(self, lang_a: str, lang_b: str, site_id: int) -> TranslationModel:
        """The site's own copy of its model, to :meth:`TranslationModel.update` (then call
        :meth:`updated`); :meth:`get` returns it from then on."""
        key = (site_id, pair_key(lang_a, lang_b))
        with self._lock:
            model = self._models.get(key)
            return model if model is not None else self._own(key)

    def _base(self, pair: Pair) -> TranslationModel:
        model = self._bases.get(pair)
        if model is None:
            row = self.store.model_row(*pair)
            self._base_states[pair] = row.state if row is not None else None
            model = _decode(pair, row.state) if row is not None else None
            if model is None:
                model = TranslationModel(*pair)
            elif model.sentences_seen:
                logger.info("translation model %s-%s: resumed (%d sentence pairs seen)", *pair, model.sentences_seen)
            self._bases[pair] = self._prime(pair, model)
        return model

    def _own(self, key: tuple[int, Pair]) -> TranslationModel:
        site_id, pair = key
        self._base(pair)
        state = self._base_states[pair]
        model = _decode(pair, state) if state is not None else None
        if model is None:
            model = TranslationModel(*pair)
        own = self.store.site_model_row(site_id, *pair) if pair in self._rows_of(site_id) else None
        if own is not None:
            counts = _decode(pair, own.state)
            if counts is not None:
                model.add_counts(counts.counts())  # not pending: it is stored already
                logger.info("translation model %s-%s of site %d: resumed with its %d saved sentence pairs",
                            *pair, site_id, counts.sentences_seen)
        self._models[key] = self._prime(pair, model)
        self._saved_at[key] = time.monotonic()
        return model

    def updated(self, lang_a: str, lang_b: str, site_id: int, snapshot: bool = True) -> None:
        """Note that a site's model changed; save its training if its last save is old enough
        (``snapshot``; without it the training waits for :meth:`save_all` or :meth:`save_and_fold`).

        Call it from the thread that updates the models, right after the update."""
        key = (site_id, pair_key(lang_a, lang_b))
        now = time.monotonic()
        with self._lock:
            self._dirty.add(key)
            if not snapshot or now - self._saved_at.get(key, 0.0) < self.save_interval:
                return
            self._saved_at[key] = now
        self._save(key)

    def stop_snapshots(self) -> None:
        """From now on changes are only saved by :meth:`save_all` (the crawl is closing)."""
        with self._lock:
            self.save_interval = float("inf")

    def save_all(self) -> int:
        """Save every site's training not yet saved (at close, when no update runs any more).
        Returns the number saved; one that could not be saved is logged and stays dirty."""
        with self._lock:
            keys = sorted(self._dirty)
        saved = 0
        for group in _groups(keys, lambda k: [k], self._entries):
            together = self._save_together(group)
            saved += together if together is not None else sum(self._save(k) for k in group)
        return saved

    def _save_together(self, keys: list[tuple[int, Pair]]) -> int | None:
        """Save ``keys`` in one read and one transaction (a site can have hundreds of language
        pairs, and a transaction each cost more than the counts); None when another writer
        changed one of the rows meanwhile or the write failed, for :meth:`_save` to take them
        one by one."""
        with self._save_lock:
            with self._lock:
                todo = [(k, m) for k in keys if (m := self._models.get(k)) is not None and m.has_pending]
                self._dirty.difference_update(keys)
            if not todo:
                return 0
            try:
                rows = self.store.site_model_rows([(k[0], *k[1]) for k, _ in todo])
                writes = []
                for (site_id, pair), model in todo:
                    row = rows.pop((site_id, *pair), None)
                    counts = _decode(pair, row.state) if row is not None else None
                    if counts is None:
                        counts = counts_container(*pair)
                    counts.add_counts(model.pending_counts())
                    writes.append((site_id, _record(pair, counts), row.version if row is not None else None))
                written = self.store.replace_site_models(writes)
            except Exception:
                logger.exception("translation models: saving %d sites' training together failed; saved one by one",
                                 len(todo))
                written = False
            if not written:
                with self._lock:
                    self._dirty.update(k for k, _ in todo)
                return None
            for _, model in todo:
                model.clear_pending()
            self.saves += len(todo)
            return len(todo)

    def _entries(self, key: tuple[int, Pair]) -> int:
        model = self._models.get(key)
        return model.num_entries if model is not None else 0

    def save_and_fold(self, site_ids: Collection[int]) -> tuple[int, int]:
        """:meth:`save_all` then :meth:`fold` of ``site_ids``, the crawl's close: the training of
        those sites goes into the stored models without the round trip through ``site_models``
        (each site's counts are summed as their row would hold them, then added in site-key
        order, so the models are the ones the two steps give).  Returns (trainings saved, sites'
        trainings folded)."""
        ids = set(site_ids)
        with self._lock:
            keys = sorted(k for k in self._dirty if k[0] in ids)
        by_pair: dict[Pair, list[tuple[int, Pair]]] = {}
        for key in keys:
            by_pair.setdefault(key[1], []).append(key)
        saved = folded = 0
        for group in _groups(sorted(by_pair), by_pair.__getitem__, self._entries):
            together = self._save_and_fold_together(group, [k for p in group for k in by_pair[p]], ids)
            if together is None:  # another writer changed a row: the two steps, with their retries
                saved += sum(self._save(k) for p in group for k in by_pair[p])
                folded += sum(self._fold_pair(p, ids) for p in group)
            else:
                saved += together[0]
                folded += together[1]
        saved += self.save_all()  # other sites' training (none in a crawl's close)
        folded += self.fold(ids)  # rows saved earlier for pairs with nothing new
        return saved, folded

    def _save_and_fold_together(
        self, pairs: list[Pair], keys: list[tuple[int, Pair]], site_ids: Collection[int]
    ) -> tuple[int, int] | None:
        with self._save_lock:
            with self._lock:
                todo = {k: m for k in keys if (m := self._models.get(k)) is not None and m.has_pending}
                self._dirty.difference_update(keys)
            try:
                rows = self.store.site_models(site_ids, pairs=pairs)
                stored_rows = self.store.model_rows(pairs)
                site_keys = self.store.site_keys({k[0] for k in todo})
                folds = []
                sentences: dict[Pair, int] = {}
                for pair in pairs:
                    # Per site, what its row would hold: the saved row plus the new training (a
                    # site without a row: its new training as it is, the counts a row would hold).
                    sites: dict[int, tuple[str, TranslationModel | ModelCounts | None, StoredSiteModel | None]] = {}
                    for row in rows:
                        if (row.lang1, row.lang2) == pair:
                            sites[row.site_id] = (row.site_key, _decode(pair, row.model.state), row)
                    for (site_id, p), model in todo.items():
                        if p != pair:
                            continue
                        key, counts, row = sites.get(site_id, (site_keys.get(site_id, ""), None, None))
                        if row is None:
                            sites[site_id] = (key, model.pending_counts(), None)
                            continue
                        if counts is None:
                            counts = counts_container(*pair)
                        counts.add_counts(model.pending_counts())
                        sites[site_id] = (key, counts, row)
                    stored = stored_rows.get(pair)
                    merged = _decode(pair, stored.state) if stored is not None else None
                    if merged is None:
                        merged = TranslationModel(*pair)
                    sentences[pair] = 0
                    for _key, counts, _row in sorted(sites.values(), key=lambda v: v[0]):
                        if isinstance(counts, ModelCounts):
                            merged.add_counts(counts)
                            sentences[pair] += counts.sentences
                        elif counts is not None:
                            merged.add_counts(counts.counts())
                            sentences[pair] += counts.sentences_seen
                    folds.append((_record(pair, merged), stored.version if stored is not None else None,
                                  [row for _k, _c, row in sites.values() if row is not None], len(sites)))
                written = self.store.fold_many_site_models([f[:3] for f in folds])
            except Exception:
                logger.exception("translation models: saving and folding %d language pairs together failed; "
                                 "one by one", len(pairs))
                written = False
            if not written:
                with self._lock:
                    self._dirty.update(todo)
                self.lost_races += 1
                return None
            for model in todo.values():
                model.clear_pending()
            self.saves += len(todo)
            n_folded = 0
            for record, _, _, n_sites in folds:
                self._folded(record, n_sites, sentences[(record.lang1, record.lang2)])
                n_folded += n_sites
            return len(todo), n_folded

    # -- saving a site's training ---------------------------------------------------------------
    def _save(self, key: tuple[int, Pair]) -> bool:
        with self._save_lock:
            with self._lock:
                model = self._models.get(key)
                self._dirty.discard(key)
            if model is None or not model.has_pending:
                return False
            try:
                self._add_to_row(key, model)
            except Exception:
                # The pending counts stay with the model: the next save adds them.
                logger.exception("translation model %s-%s of site %d: saving failed; retried at the next save",
                                 *key[1], key[0])
                with self._lock:
                    self._dirty.add(key)
                return False
            self.saves += 1
            return True

    def _add_to_row(self, key: tuple[int, Pair], model: TranslationModel) -> None:
        site_id, pair = key
        pending = model.pending_counts()
        for attempt in range(_ATTEMPTS):
            row = self.store.site_model_row(site_id, *pair)
            counts = _decode(pair, row.state) if row is not None else None
            if counts is None:  # no row, or an unreadable one: overwritten
                counts = counts_container(*pair)
            counts.add_counts(pending)
            if self.store.replace_site_model(site_id, _record(pair, counts), row.version if row else None):
                model.clear_pending()
                return
            self.lost_races += 1  # another crawl of the same site wrote its row meanwhile
            time.sleep(random.uniform(0.005, 0.02) * (attempt + 1))
        raise RuntimeError(f"lost {_ATTEMPTS} races to other writers")

    # -- folding the sites' training into the stored models -------------------------------------
    def fold(self, site_ids: Collection[int] | None = None) -> int:
        """Add the saved training of ``site_ids`` (all sites: ``None``) to the stored models and
        delete it from ``site_models``, in site-key order.  Returns the site rows folded.

        Only what is stored is folded: call :meth:`save_all` first.  The models in memory are
        not changed (the sites keep judging with their own)."""
        folded = 0
        pairs = self.store.site_model_pairs(site_ids)
        for start in range(0, len(pairs), _TOGETHER_UNSIZED):
            group = pairs[start:start + _TOGETHER_UNSIZED]
            together = self._fold_together(group, site_ids)
            folded += together if together is not None else sum(self._fold_pair(pair, site_ids) for pair in group)
        return folded

    def _fold_together(self, pairs: list[Pair], site_ids: Collection[int] | None) -> int | None:
        """:meth:`fold` in one read of the site rows, one of the models and one transaction; None
        when another writer changed a row meanwhile (then :meth:`_fold_pair` takes the pairs one
        by one, with its retries)."""
        if not pairs:
            return 0
        by_pair: dict[Pair, list[StoredSiteModel]] = {}
        for row in self.store.site_models(site_ids, pairs=pairs):
            by_pair.setdefault((row.lang1, row.lang2), []).append(row)
        stored_rows = self.store.model_rows(list(by_pair))
        folds = []
        sentences: dict[Pair, int] = {}
        for pair, rows in sorted(by_pair.items()):
            stored = stored_rows.get(pair)
            model = _decode(pair, stored.state) if stored is not None else None
            if model is None:
                model = TranslationModel(*pair)
            sentences[pair] = 0
            for row in rows:  # site-key order: the same sum whichever process folds
                counts = _decode(pair, row.model.state)
                if counts is not None:
                    model.add_counts(counts.counts())
                    sentences[pair] += counts.sentences_seen
            folds.append((_record(pair, model), stored.version if stored is not None else None, rows))
        if not self.store.fold_many_site_models(folds):
            self.lost_races += 1
            return None
        for record, _, rows in folds:
            self._folded(record, len(rows), sentences[(record.lang1, record.lang2)])
        return sum(len(rows) for _, _, rows in folds)

    def _folded(self, record: ModelRecord, sites: int, sentences: int) -> None:
        self.folded_sites += sites
        self.folded_sentences += sentences
        logger.info("translation model %s-%s: folded %d sites' training (%d sentence pairs; %d seen in all)",
                    record.lang1, record.lang2, sites, sentences, record.sentences_seen)

    def _fold_pair(self, pair: Pair, site_ids: Collection[int] | None) -> int:
        for attempt in range(_ATTEMPTS):
            rows = self.store.site_models(site_ids, pair)
            if not rows:
                return 0
            stored = self.store.model_row(*pair)
            model = _decode(pair, stored.state) if stored is not None else None
            if model is None:  # an unreadable stored state is replaced, as a crawl would
                model = TranslationModel(*pair)
            sentences = 0
            for row in rows:  # site-key order: the same sum whichever process folds
                counts = _decode(pair, row.model.state)
                if counts is not None:
                    model.add_counts(counts.counts())
                    sentences += counts.sentences_seen
            record = _record(pair, model)
            if self.store.fold_site_models(record, stored.version if stored else None, rows):
                self._folded(record, len(rows), sentences)
                return len(rows)
            self.lost_races += 1
            time.sleep(random.uniform(0.005, 0.02) * (attempt + 1))
        raise RuntimeError(f"folding {pair[0]}-{pair[1]}: lost {_ATTEMPTS} races to other writers")


def _decode(pair: Pair, state: bytes) -> TranslationModel | None:
    try:
        return TranslationModel.from_bytes(state)
    except Exception as exc:  # a corrupt snapshot costs the training, not the crawl
        logger.warning("translation model %s-%s: stored state unreadable (%s); starting anew", *pair, exc)
        return None


def _groups(items: list[_T], keys: Callable[[_T], list[tuple[int, Pair]]],
            entries: Callable[[tuple[int, Pair]], int]) -> Iterator[list[_T]]:
    """``items`` in order, in groups of at most ``_TOGETHER`` whose models (``keys(item)``) hold
    at most ``_TOGETHER_ENTRIES`` entries together (a larger model goes alone)."""
    group: list[_T] = []
    total = 0
    for item in items:
        n = sum(entries(k) for k in keys(item))
        if group and (len(group) >= _TOGETHER or total + n > _TOGETHER_ENTRIES):
            yield group
            group, total = [], 0
        group.append(item)
        total += n
    if group:
        yield group


def _record(pair: Pair, model: TranslationModel) -> ModelRecord:
    return ModelRecord(pair[0], pair[1], model.pairs_seen, model.sentences_seen, model.to_bytes())

