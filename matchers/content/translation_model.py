"""IBM-1 word translation model of one language pair, trained by incremental EM as pages pair up.

Tomás et al., *WebMining*, section 2.3: sentence pairs are scored with an IBM-1-like model,
eq. (1) ``Pr(f|e) = alpha^|m-l| prod_j sum_i p(f_j|e_i)``, whose parameters are estimated by an
incremental EM: "each time two webpages are detected as parallel ... the counts obtained in the
previous expectation are kept and incremented applying the actual estimation of the parameters to
the new parallel page.  After that, in the estimation phase, the parameters are re-estimated using
the counts just taken.  Initially, all word-to-word translation probabilities are initialized
equiprobably, except when the source and target words are the same that are initialized to 1."

Decisions:

* **Both directions.**  ``t21 = t(w2 | w1)`` and ``t12 = t(w1 | w2)``, each with a NULL word
  (index 0 of either vocabulary), are trained from the same sentence pairs.  A sentence pair is
  scored by the mean of the two directions' per-word log-likelihood ratios (:meth:`score`): one
  direction alone rewards a short sentence that explains a few words of a long one.
* **Initial distribution** ``t0(f|e) = uniform`` (a constructor argument, about 1 / vocabulary),
  ``1`` for identical strings (numbers, names, URLs) and ``uniform`` for the NULL word.
* **Re-estimation with smoothing.**  ``t(f|e) = (c(f,e) + lam * t0(f|e)) / (c(e) + lam)`` with
  ``c`` the kept expected counts, ``c(e) = sum_f c(f,e)`` and ``lam = smoothing`` pseudo-counts of
  the initial distribution.  A word never seen keeps ``t0`` exactly, identical tokens stay strong
  until about ``lam`` counts of evidence say otherwise, and ``sum_f t(f|e) = (c(e) + lam *
  sum_f t0) / (c(e) + lam)`` tends to 1 as evidence grows (``sum_f t0`` is about 1, about 2 for a
  word with an identical counterpart): a near-proper distribution.  The M-step is this closed form
  applied on demand to the current counts, so re-estimating "all parameters" costs nothing.
* **Background.**  A likelihood needs an alternative to be a score: ``bg(f) = sum_e P1(e) t(f|e)``,
  the model's probability of ``f`` given a random word of the other language (``P1`` the unigram
  of the training tokens).  Untrained it is ``uniform`` (so unrelated words are neutral); trained
  it tends to the unigram of ``f``, so frequent words (punctuation, articles) are no evidence and
  unrelated content words are evidence against.  Recomputed lazily, once per model change, in one
  pass over the counts.
* **The E-step** follows IBM-1 (Brown et al. 1993, Model 1): the posterior that ``e_i`` generated
  ``f_j`` is ``t(f_j|e_i) / sum_i' t(f_j|e_i')`` over ``e``'s words and NULL; ``update`` runs it on
  the new pairs with the current parameters and adds the result to the kept counts (one
  incremental EM step per page pair, as the paper says).

The count tables, their memory and their merging across processes: matchers.content.model_counts.
"""

from __future__ import annotations

import json
import struct
import zlib
from collections.abc import Sequence
from itertools import repeat

import numpy as np

from matchers.content.estep import Parameters, _add_totals, _lookup_counts, update_counts
from matchers.content.model_counts import (
    _LOW,
    Lexicon,
    LocalTables,
    ModelCounts,
    Store,
    TableSource,
    _empty_store,
    _load_npz,
    _map_words,
    _merge_sorted,
    _npz,
    _store,
    background,
    dense_tables,
    padded,
    word_backgrounds,
)
from matchers.content.training_pairs import TrainingPairs, pair_offsets, vocabulary_ids

FORMAT_VERSION = 1
_MAGIC = b"BXTM"
NULL = "\x00NULL"  # index 0 of both vocabularies; no tokenizer produces it
# Delta merged (and pruned) past max(this, main / 8): lower prunes young models early, costing pairs.
# Pending summed past max(this, pending / 4): small, as a crawl holds a model per language pair.
_DELTA_MIN, _PENDING_MIN = 1 << 16, 1 << 14



class TranslationModel:
    """IBM-1 translation probabilities for ``(lang1, lang2)``, both directions, trained incrementally."""

    def __init__(
        self,
        lang1: str = "",
        lang2: str = "",
        *,
        uniform: float = 5e-5,
        smoothing: float = 1.0,
        min_count: float = 0.01,
        max_entries: int = 4_000_000,
    ) -> None:
        """``uniform``: the initial ``t(f|e)`` of different words, about 1 / vocabulary size;
        ``smoothing``: pseudo-counts of the initial distribution in the re-estimation;
        ``min_count``, ``max_entries``: bounds of the counts table (see the module docstring)."""
        if not 0.0 < uniform < 1.0:
            raise ValueError("uniform must be in (0, 1)")
        if smoothing <= 0.0:
            raise ValueError("smoothing must be positive")
        self.lang1 = lang1
        self.lang2 = lang2
        self.uniform = float(uniform)
        self.smoothing = float(smoothing)
        self.min_count = float(min_count)
        self.max_entries = int(max_entries)
        self.pairs_seen = 0
        self.sentences_seen = 0
        self._words1: list[str] = [NULL]
        self._words2: list[str] = [NULL]
        self._index1: dict[str, int] = {NULL: 0}
        self._index2: dict[str, int] = {NULL: 0}
        self._same1 = np.full(1, -1, np.int64)  # model id of the identical lang2 word
        self._same2 = np.full(1, -1, np.int64)
        self._tot1 = np.zeros(1)  # c(e) of t21, NULL included
        self._tot2 = np.zeros(1)  # c(f) of t12
        self._uni1 = np.zeros(1)  # training tokens per word (the background's unigram)
        self._uni2 = np.zeros(1)
        self._main = _empty_store()
        self._delta = _empty_store()
        self._version = 0
        self._bg: tuple[int, np.ndarray, np.ndarray, float, float, float, float] | None = None
        self._main_rows: tuple[np.ndarray, np.ndarray] | None = None  # (main keys, each row's start)
        self.clear_pending()
        # Until first cleared, an empty model's pending counts are its tables (less the entries
        # pruned below min_count): not kept twice.
        self._pending_all = True

    # -- inspection ----------------------------------------------------------------------------
    @property
    def vocab_sizes(self) -> tuple[int, int]:
        return len(self._words1) - 1, len(self._words2) - 1

    @property
    def num_entries(self) -> int:
        """Stored co-occurrence entries (a pair may sit in both tables until they merge)."""
        return len(self._main[0]) + len(self._delta[0])

    def expected_counts(self, w1: str, w2: str) -> tuple[float, float]:
        """Kept expected counts ``(c(w2, w1) of t21, c(w1, w2) of t12)``; :data:`NULL` allowed."""
        g1, g2 = self._index1.get(w1, -1), self._index2.get(w2, -1)
        if g1 < 0 or g2 < 0:
            return 0.0, 0.0
        key, c21, c12 = np.array([(g1 << 32) | g2], np.int64), np.zeros(1), np.zeros(1)
        for table in (self._main, self._delta):
            _lookup_counts(key, *table, c21, c12)
        return float(c21[0]), float(c12[0])

    def total_counts(self, w1: str | None = None, w2: str | None = None) -> float:
        """``c(w1)`` of t21 (given ``w1``) or ``c(w2)`` of t12 (given ``w2``)."""
        if (w1 is None) == (w2 is None):
            raise ValueError("give exactly one of w1, w2")
        if w1 is not None:
            g = self._index1.get(w1, -1)
            return float(self._tot1[g]) if g >= 0 else 0.0
        g = self._index2.get(w2, -1)  # type: ignore[arg-type]
        return float(self._tot2[g]) if g >= 0 else 0.0

    def prob21(self, w2: str, w1: str) -> float:
        """``t(w2 | w1)``; ``w1`` may be :data:`NULL`."""
        return float(self.local_tables([w1] if w1 != NULL else [], [w2], np.float64).t21[1 if w1 != NULL else 0, 1])

    def prob12(self, w1: str, w2: str) -> float:
        """``t(w1 | w2)``; ``w2`` may be :data:`NULL`."""
        return float(self.local_tables([w1], [w2] if w2 != NULL else [], np.float64).t12[1, 1 if w2 != NULL else 0])

    # -- lookups for the aligner ---------------------------------------------------------------
    def lexicon(self, words1: Sequence[str], words2: Sequence[str]) -> Lexicon:
        """Resolve two vocabularies (distinct tokens, no NULL) against the model."""
        words1, words2 = list(words1), list(words2)
        idx1, idx2 = self._index1, self._index2
        size1, size2 = len(words1), len(words2)
        # map() over the bound lookups: the aligner resolves a few hundred words a page this way.
        gid1 = np.fromiter(map(idx1.get, words1, repeat(-1, size1)), np.int64, size1)
        gid2 = np.fromiter(map(idx2.get, words2, repeat(-1, size2)), np.int64, size2)
        pos2 = dict(zip(words2, range(size2), strict=True))
        same1 = np.fromiter(map(pos2.get, words1, repeat(-1, size1)), np.int64, size1)
        bg1g, bg2g, base1, base2, n1, n2 = self._background()
        bg1, bg2 = word_backgrounds(gid1, bg1g, base1), word_backgrounds(gid2, bg2g, base2)
        # An unseen word still gets the identity bonus of a seen identical word of the other side.
        # Word by word, not over the vocabulary: a page has few unseen words, the model many words.
        if n1 > 0 and n2 > 0:
            lam, lam1 = self.smoothing, self.smoothing * (1.0 - self.uniform)
            for j in np.flatnonzero(gid2 < 0).tolist():
                e = idx1.get(words2[j], -1)
                if e > 0:
                    bg2[j] += lam1 * (self._uni1[e] / (self._tot1[e] + lam)) / n1
            for i in np.flatnonzero(gid1 < 0).tolist():
                f = idx2.get(words1[i], -1)
                if f > 0:
                    bg1[i] += lam1 * (self._uni2[f] / (self._tot2[f] + lam)) / n2
        return Lexicon(words1, words2, gid1, gid2, same1, bg1, bg2)

    def tables(
        self, lex: Lexicon, rows: np.ndarray | None = None, cols: np.ndarray | None = None, dtype: type = np.float32
    ) -> LocalTables:
        """Dense ``t21``/``t12`` for the ``rows`` of ``lex.words1`` and ``cols`` of ``lex.words2``.

        One pass over the learned entries of the rows' words (each row is a contiguous slice of the
        sorted table; a long row is binary-searched for the columns instead of scanned), no
        per-cell dictionary lookups.
        """
        rows = np.arange(len(lex.words1)) if rows is None else np.asarray(rows, np.int64)
        cols = np.arange(len(lex.words2)) if cols is None else np.asarray(cols, np.int64)
        t21, t12 = dense_tables(self.table_source(lex), rows, cols, dtype)
        return LocalTables(t21, t12, lex.bg1[rows], lex.bg2[cols])

    def table_source(self, lex: Lexicon) -> TableSource:
        """What :func:`~matchers.content.model_counts.dense_tables` fills the tables of
        ``lex``'s documents from (the aligner calls it inside its own kernel)."""
        return TableSource(lex.gid1, lex.gid2, lex.same1, *self._main[:3], self._row_starts(), *self._delta,
                           self._tot1, self._tot2, self.smoothing, self.uniform)

    def _row_starts(self) -> np.ndarray:
        """Where each lang1 word's entries start in the main table (and where the last ends): the
        main table changes only when the delta is merged into it, while every alignment looks up
        the rows of a page's words, so they are found once, not searched each time."""
        keys = self._main[0]
        cached = self._main_rows
        if cached is None or cached[0] is not keys:
            n1 = int(keys[-1] >> 32) + 1 if len(keys) else 0
            cached = self._main_rows = (keys, np.searchsorted(keys, np.arange(n1 + 1, dtype=np.int64) << 32))
        return cached[1]

    def local_tables(self, words1: Sequence[str], words2: Sequence[str], dtype: type = np.float32) -> LocalTables:
        """:meth:`tables` for two whole vocabularies."""
        return self.tables(self.lexicon(words1, words2), dtype=dtype)

    def score(self, s1: Sequence[str], s2: Sequence[str]) -> float:
        """Mean of the two directions' per-word log-likelihood ratios against the background (nats).

        Per direction, IBM-1 with the uniform alignment prior: ``log(sum_i t(f_j|e_i) / (l + 1))
        - log bg(f_j)`` averaged over the ``f_j``.  Positive: the other sentence explains the words
        better than a random one would.  0 when a side is empty.
        """
        if not s1 or not s2:
            return 0.0
        pos1 = {w: i for i, w in enumerate(dict.fromkeys(s1), 1)}
        pos2 = {w: j for j, w in enumerate(dict.fromkeys(s2), 1)}
        tab = self.local_tables(list(pos1), list(pos2), np.float64)
        i1 = np.array([pos1[w] for w in s1])
        i2 = np.array([pos2[w] for w in s2])
        a = tab.t21[0, i2] + tab.t21[i1][:, i2].sum(axis=0)
        b = tab.t12[i1, 0] + tab.t12[:, i2][i1].sum(axis=1)
        la = np.mean(np.log(a / (len(s1) + 1)) - np.log(tab.bg2[i2 - 1]))
        lb = np.mean(np.log(b / (len(s2) + 1)) - np.log(tab.bg1[i1 - 1]))
        return float(0.5 * (la + lb))

    # -- training ------------------------------------------------------------------------------
    def update(self, sentence_pairs: Sequence[tuple[Sequence[str], Sequence[str]]], documents: int = 1) -> None:
        """:meth:`update_pairs` with the pairs given as token lists."""
        self.update_pairs([TrainingPairs.from_words(sentence_pairs)], documents)

    def update_pairs(self, batch: Sequence[TrainingPairs], documents: int = 1) -> None:
        """One incremental EM step on the aligned sentence pairs of ``documents`` page pairs.

        E-step on the new pairs with the current parameters, counts added to the kept ones; the
        M-step is the closed-form re-estimation applied on every later lookup.
        """
        self.pairs_seen += int(documents)
        self._ppairs += int(documents)
        n_pairs = sum(len(p) for p in batch)
        if not n_pairs:
            return
        firsts, seconds = [p.first for p in batch], [p.second for p in batch]
        ids1 = vocabulary_ids(firsts, self._index1, self._words1)
        ids2 = vocabulary_ids(seconds, self._index2, self._words2)
        off1, off2 = pair_offsets(firsts), pair_offsets(seconds)
        self._grow()
        params = Parameters(*self._main, *self._delta, self._tot1, self._tot2, self._same1, self.smoothing,
                            self.uniform)
        (ukeys, n21, n12), delta = update_counts(ids1, off1, ids2, off2, params)
        _add_totals(ukeys, n21, n12, ids1, ids2, self._tot1, self._tot2, self._uni1, self._uni2, self._ptot1,
                    self._ptot2, self._puni1, self._puni2)
        self._absorb(delta)
        if not self._pending_all:
            self._add_pending(ukeys, n21, n12)
        self.sentences_seen += n_pairs
        self._psent += n_pairs
        self._version += 1

    def prune(self, max_entries: int | None = None, min_count: float | None = None) -> None:
        """Merge the tables, drop entries whose counts are both below ``min_count`` and keep at
        most ``max_entries`` of the largest (defaults: the model's settings)."""
        self._compact(max_entries, min_count)

    # -- merging -------------------------------------------------------------------------------
    @property
    def has_pending(self) -> bool:
        """Whether :meth:`update` was called since the model was loaded or its pending counts cleared."""
        return self._psent > 0 or self._ppairs > 0

    @property
    def pending_seen(self) -> tuple[int, int]:
        """``(pairs_seen, sentences_seen)`` of the pending counts."""
        return self._ppairs, self._psent

    def pending_counts(self) -> ModelCounts:
        """The counts :meth:`update` added since the model was loaded or they were last cleared.

        Only the words of the pending training tokens (and NULL) come along: every pending entry
        joins two of them, so the vocabulary handed out is the size of the pending training, not
        of the model.  Unpruned (unless they outgrew the model's table, see :meth:`_add_pending`):
        ``min_count`` applies where they are added.
        """
        keys, c21, c12 = self._pending_table()
        sel1 = np.concatenate([[0], np.flatnonzero(self._puni1[1:] > 0) + 1]).astype(np.int64)
        sel2 = np.concatenate([[0], np.flatnonzero(self._puni2[1:] > 0) + 1]).astype(np.int64)
        pos1 = np.full(len(self._words1), -1, np.int64)
        pos2 = np.full(len(self._words2), -1, np.int64)
        pos1[sel1] = np.arange(len(sel1))
        pos2[sel2] = np.arange(len(sel2))
        e, f = pos1[keys >> 32], pos2[keys & _LOW]
        if len(keys) and (e.min() < 0 or f.min() < 0):  # pragma: no cover - an invariant of update()
            raise AssertionError("pending count of a word without pending tokens")
        # pos is increasing on sel, so the remapped keys stay sorted.
        return ModelCounts(
            self.lang1, self.lang2, [self._words1[i] for i in sel1.tolist()], [self._words2[i] for i in sel2.tolist()],
            (e << 32) | f, c21, c12, self._ptot1[sel1].copy(), self._ptot2[sel2].copy(),
            self._puni1[sel1].copy(), self._puni2[sel2].copy(), self._psent, self._ppairs,
        )

    def counts(self) -> ModelCounts:
        """All of the model's kept counts (main and delta tables summed), with its vocabularies."""
        keys, c21, c12 = _merge_sorted(*self._main, *self._delta)
        return ModelCounts(
            self.lang1, self.lang2, list(self._words1), list(self._words2), keys, c21, c12,
            self._tot1.copy(), self._tot2.copy(), self._uni1.copy(), self._uni2.copy(),
            self.sentences_seen, self.pairs_seen,
        )

    def add_counts(self, counts: ModelCounts) -> None:
        """Add expected counts gathered elsewhere (another process's pending counts, another
        model's :meth:`counts`), their words mapped to this model's ids by string.

        Not pending: these counts are someone else's training.  New words get ids (and identity
        links, :meth:`_grow`) as in training.  The remapped keys are sorted and merged into the
        delta table, which is compacted (``min_count``, ``max_entries``) when it is large enough.
        """
        if (counts.lang1, counts.lang2) != (self.lang1, self.lang2):
            raise ValueError(f"counts of {counts.lang1}-{counts.lang2} cannot go into a {self.lang1}-{self.lang2} model")
        if counts.empty:
            return
        self._own_pending()
        map1 = _map_words(counts.words1, self._words1, self._index1)
        map2 = _map_words(counts.words2, self._words2, self._index2)
        self._grow()
        self._tot1[map1] += counts.tot1
        self._tot2[map2] += counts.tot2
        self._uni1[map1] += counts.uni1
        self._uni2[map2] += counts.uni2
        keys = (map1[counts.keys >> 32] << 32) | map2[counts.keys & _LOW]
        c21, c12 = np.asarray(counts.c21, np.float64), np.asarray(counts.c12, np.float64)
        if len(keys) > 1 and not bool(np.all(keys[1:] > keys[:-1])):
            order = np.argsort(keys, kind="stable")
            keys, c21, c12 = keys[order], c21[order], c12[order]
        self._absorb(_merge_sorted(*self._delta, keys, c21, c12))
        self.sentences_seen += int(counts.sentences)
        self.pairs_seen += int(counts.pairs)
        self._version += 1

    def merge(self, other: TranslationModel) -> None:
        """Add all of ``other``'s counts into this model (:meth:`add_counts` of :meth:`counts`)."""
        self.add_counts(other.counts())

    # -- serialization -------------------------------------------------------------------------
    def to_bytes(self) -> bytes:
        """Versioned snapshot with everything training needs to continue, bit for bit.

        Layout: magic, format byte, length of part A, part A = zlib(npz of the vocabularies, the
        per-word arrays and the sorted keys as first differences, which compress ~6x), part B =
        npz of the counts, stored raw: float64 counts barely compress and zlib would triple the
        time.  About 17 bytes per entry.
        """
        meta = {
            "format": FORMAT_VERSION, "lang1": self.lang1, "lang2": self.lang2, "uniform": self.uniform,
            "smoothing": self.smoothing, "min_count": self.min_count, "max_entries": self.max_entries, "pairs_seen": self.pairs_seen,
            "sentences_seen": self.sentences_seen, "version": self._version,
            "words1": self._words1[1:], "words2": self._words2[1:],
        }
        small = {
            "meta": np.frombuffer(json.dumps(meta, ensure_ascii=False).encode(), np.uint8),
            "tot1": self._tot1, "tot2": self._tot2, "uni1": self._uni1, "uni2": self._uni2,
            "main_keys": np.diff(self._main[0], prepend=np.int64(0)),
            "delta_keys": np.diff(self._delta[0], prepend=np.int64(0)),
        }
        counts = {"main_c21": self._main[1], "main_c12": self._main[2],
                  "delta_c21": self._delta[1], "delta_c12": self._delta[2]}
        part_a = zlib.compress(_npz(small), 1)
        return _MAGIC + bytes([FORMAT_VERSION]) + struct.pack("<Q", len(part_a)) + part_a + _npz(counts)

    @classmethod
    def from_bytes(cls, data: bytes) -> TranslationModel:
        if data[:4] != _MAGIC:
            raise ValueError("not a translation model snapshot")
        if data[4] != FORMAT_VERSION:
            raise ValueError(f"translation model format {data[4]} unsupported (expected {FORMAT_VERSION})")
        (n,) = struct.unpack("<Q", data[5:13])
        arrays = _load_npz(zlib.decompress(data[13:13 + n])) | _load_npz(data[13 + n:])
        meta = json.loads(arrays["meta"].tobytes().decode())
        m = cls(meta["lang1"], meta["lang2"], uniform=meta["uniform"], smoothing=meta["smoothing"],
                min_count=meta["min_count"], max_entries=meta["max_entries"])
        m.pairs_seen, m.sentences_seen, m._version = meta["pairs_seen"], meta["sentences_seen"], meta["version"]
        m._words1, m._words2 = [NULL, *meta["words1"]], [NULL, *meta["words2"]]
        m._index1 = dict(zip(m._words1, range(len(m._words1)), strict=True))
        m._index2 = dict(zip(m._words2, range(len(m._words2)), strict=True))
        if len(m._index1) != len(m._words1) or len(m._index2) != len(m._words2):
            raise ValueError("translation model snapshot has a repeated word")
        m._grow()
        m._tot1, m._tot2 = arrays["tot1"].astype(np.float64), arrays["tot2"].astype(np.float64)
        m._uni1, m._uni2 = arrays["uni1"].astype(np.float64), arrays["uni2"].astype(np.float64)
        if not (len(m._tot1) == len(m._uni1) == len(m._words1) and len(m._tot2) == len(m._uni2) == len(m._words2)):
            raise ValueError("translation model snapshot is inconsistent")
        m._main = _store(np.cumsum(arrays["main_keys"]), arrays["main_c21"], arrays["main_c12"])
        m._delta = _store(np.cumsum(arrays["delta_keys"]), arrays["delta_c21"], arrays["delta_c12"])
        m._pending_all = False
        return m

    # -- internals -----------------------------------------------------------------------------
    def clear_pending(self) -> None:
        """Forget the pending counts (they are stored now)."""
        self._pending_all = False
        self._pmain = _empty_store()  # sorted, summed
        self._pchunks: list[Store] = []  # each update's counts, merged into _pmain in bulk
        self._pchunk_n = 0
        self._ptot1 = np.zeros(len(self._words1))
        self._ptot2 = np.zeros(len(self._words2))
        self._puni1 = np.zeros(len(self._words1))
        self._puni2 = np.zeros(len(self._words2))
        self._psent = 0
        self._ppairs = 0

    def _absorb(self, delta: Store) -> None:
        """Take the delta table with an update's counts added; it is merged into the main one past
        an eighth of it."""
        self._delta = delta
        if len(self._delta[0]) > max(_DELTA_MIN, len(self._main[0]) // 8):
            self._compact()

    def _add_pending(self, keys: np.ndarray, c21: np.ndarray, c12: np.ndarray) -> None:
        # An update only appends its counts (sorted, distinct keys); they are summed into the
        # pending table past a quarter of it, so keeping them costs an update about its own size.
        self._pchunks.append((keys, c21, c12))
        self._pchunk_n += len(keys)
        if self._pchunk_n <= max(_PENDING_MIN, len(self._pmain[0]) // 4):
            return
        keys, c21, c12 = self._pending_table()
        # Pending counts are exact while they are cleared every save interval.  Should they
        # outgrow the model's own table (saves failing, a very long interval), entries below
        # min_count go, as in the model's tables, their mass kept in c(e) through _ptot.
        if self.min_count > 0 and len(keys) > max(_DELTA_MIN, self.num_entries):
            keep = np.maximum(c21, c12) >= self.min_count
            self._pmain = (keys[keep], c21[keep], c12[keep])

    def _own_pending(self) -> None:
        """From now on pending counts are kept apart (other training joins the tables)."""
        if self._pending_all and (self._psent or self._ppairs):
            self._pmain = _merge_sorted(*self._main, *self._delta)
        self._pending_all = False

    def _pending_table(self) -> Store:
        """The pending counts as one sorted table (the appended updates summed in)."""
        if self._pending_all:
            return _merge_sorted(*self._main, *self._delta)
        chunks = self._pchunks
        if chunks:
            # Pairwise merges of the sorted chunks (linear each, log2(chunks) rounds): cheaper
            # than sorting their concatenation.
            while len(chunks) > 1:
                chunks = [_merge_sorted(*chunks[i], *chunks[i + 1]) if i + 1 < len(chunks) else chunks[i]
                          for i in range(0, len(chunks), 2)]
            self._pmain = _merge_sorted(*self._pmain, *chunks[0])
            self._pchunks, self._pchunk_n = [], 0
        return self._pmain

    def _grow(self) -> None:
        """Extend the per-word arrays to the vocabularies, identity links included."""
        n1, n2 = len(self._words1), len(self._words2)
        old1, old2 = len(self._tot1), len(self._tot2)
        if n1 == old1 and n2 == old2:
            return
        self._tot1, self._uni1 = padded(self._tot1, n1, 0.0), padded(self._uni1, n1, 0.0)
        self._tot2, self._uni2 = padded(self._tot2, n2, 0.0), padded(self._uni2, n2, 0.0)
        self._ptot1, self._puni1 = padded(self._ptot1, n1, 0.0), padded(self._puni1, n1, 0.0)
        self._ptot2, self._puni2 = padded(self._ptot2, n2, 0.0), padded(self._puni2, n2, 0.0)
        self._same1, self._same2 = padded(self._same1, n1, -1), padded(self._same2, n2, -1)
        # New words of either side against the whole other vocabulary (one dictionary lookup per
        # new word; a string is at most once per side, so the links are a partial bijection).
        get2, get1 = self._index2.get, self._index1.get
        f = np.array([get2(w, -1) for w in self._words1[old1:]], np.int64)
        e = np.arange(old1, n1)[f > 0]
        f = f[f > 0]
        self._same1[e], self._same2[f] = f, e
        e = np.array([get1(w, -1) for w in self._words2[old2:]], np.int64)
        f = np.arange(old2, n2)[e > 0]
        e = e[e > 0]
        self._same1[e], self._same2[f] = f, e

    def _compact(self, max_entries: int | None = None, min_count: float | None = None) -> None:
        keys, c21, c12 = _merge_sorted(*self._main, *self._delta)
        weight = np.maximum(c21, c12)
        floor = self.min_count if min_count is None else float(min_count)
        if floor > 0:
            keep = weight >= floor
            keys, c21, c12, weight = keys[keep], c21[keep], c12[keep], weight[keep]
        limit = self.max_entries if max_entries is None else int(max_entries)
        if len(keys) > limit:
            keep_n = limit * 3 // 4 if max_entries is None else limit  # headroom before the next prune
            cut = np.partition(weight, len(weight) - keep_n)[len(weight) - keep_n] if keep_n > 0 else np.inf
            keep = weight > cut
            # Ties at the cut fill the remaining room in key order, so the result is deterministic.
            ties = np.flatnonzero(weight == cut)[: max(0, keep_n - int(keep.sum()))]
            keep[ties] = True
            keys, c21, c12 = keys[keep], c21[keep], c12[keep]
        self._main = (keys, c21, c12)
        self._main_rows = None  # the old table's row starts, and the table itself, can go
        self._delta = _empty_store()
        self._version += 1

    def _background(self) -> tuple[np.ndarray, np.ndarray, float, float, float, float]:
        """Per-word backgrounds (bg1 over lang1 words, bg2 over lang2), those of unseen words and
        the training tokens of each side, once per model change."""
        cached = self._bg
        if cached is None or cached[0] != self._version:
            cached = self._bg = (self._version, *background(
                *self._main, *self._delta, self._tot1, self._tot2, self._uni1, self._uni2, self._same1, self._same2,
                self.smoothing, self.uniform))
        return cached[1:]


