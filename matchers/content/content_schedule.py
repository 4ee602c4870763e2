"""How much the content filter trusts a translation model that is still learning.

Tomás et al., *WebMining*, section 2.3: an untrained model cannot tell non-parallel pages apart,
so "very restricted thresholds in previous filters" decide until the model has a good estimation.
The model's maturity (sentence pairs seen against ``BITEXT_CONTENT_MATURE_SENTENCES``) scales the
share of translated sentences a candidate needs and the weight of that share in its ranking score.
"""

from __future__ import annotations

import numpy as np

from matchers.content.translation_model import TranslationModel


def maturity(model: TranslationModel, mature_sentences: int) -> float:
    """How far the model is from trained, 0..1 (sentence pairs seen / ``mature_sentences``)."""
    if mature_sentences <= 0:
        return 1.0
    return min(1.0, model.sentences_seen / mature_sentences)


def required_share(model: TranslationModel, min_share: float, mature_sentences: int) -> float:
    """The share a structure-supported candidate needs: ``min_share`` scaled by model maturity."""
    return min_share * maturity(model, mature_sentences)


def is_mature(model: TranslationModel, mature_sentences: int) -> bool:
    return model.sentences_seen >= mature_sentences


def combined_score(structure: np.ndarray, share: np.ndarray, weight: float = 0.5) -> np.ndarray:
    """Ranking score: ``(1 - weight) * structure + weight * share`` (structure alone without a
    share).  The content weight is half the model's maturity: a young model's shares rank
    candidates no better than chance, as the paper warns."""
    structure = np.nan_to_num(np.asarray(structure, dtype=np.float64), nan=0.0)
    share = np.asarray(share, dtype=np.float64)
    mixed = (1.0 - weight) * structure + weight * np.nan_to_num(share, nan=0.0)
    return np.where(np.isnan(share), structure, mixed)
