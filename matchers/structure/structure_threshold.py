"""Edit-distance threshold that grows with the size of the pages compared.

Tomás et al., *WebMining*, section 4 and Figure 3: "if the size of the webpages is large the edit
distance threshold can be increased. Thus, we decided to use a threshold that depends on the
number of tags" of the bigger page.  The paper shows the curve but gives no formula; we use

    threshold(T) = ratio * T        (T = tokens in the longer tag sequence, ratio = 0.30)

Why linear: every token of the longer sequence costs at most 1 to edit, so T bounds the distance
and a constant fraction of it means the same thing for a 40-token page and a 4,000-token page.
Sublinear curves (c * T**p, p < 1) and tag-count lines with an intercept were measured on the
development site and admitted more false pairs for the same recall (docs/evaluation.md).  The
normalized similarity ``1 - distance / T`` is the structure score kept with every candidate and
used to rank candidates in the one-to-one resolution.
"""

from __future__ import annotations

import numpy as np

from matchers.structure.edit_distance import SCALE


def longer_length(len_a: int, len_b: np.ndarray) -> np.ndarray:
    return np.maximum(np.asarray(len_b, dtype=np.int64), int(len_a))


def scaled_limits(len_a: int, len_b: np.ndarray, ratio: float) -> np.ndarray:
    """Per-candidate threshold in the kernel's integer units (costs x SCALE), as int32."""
    t = longer_length(len_a, len_b)
    return np.floor(ratio * t * SCALE + 1e-9).astype(np.int32)


def similarity(distance_scaled: np.ndarray, len_a: int, len_b: np.ndarray) -> np.ndarray:
    """``1 - distance / T`` in [0, 1]; 1 means identical tag sequences."""
    t = longer_length(len_a, len_b).astype(np.float64)
    d = np.asarray(distance_scaled, dtype=np.float64) / SCALE
    with np.errstate(divide="ignore", invalid="ignore"):
        s = 1.0 - d / t
    return np.clip(np.where(t > 0, s, 1.0), 0.0, 1.0)
