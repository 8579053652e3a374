"""Seeded inspect_ai eval logs shaped like ``inspect log convert --to json`` output
(tests/core/reading/test_inspect_stream.py, ``benchmarks/bench_loaders.py --inspect``).

Each sample carries what a real log holds besides its scores: the chat ``messages``, the model
``output``, ``events`` (a model event per turn, each repeating the conversation so far, as
inspect_ai logs them) and metadata; text is random words with some non-ASCII characters, written
as UTF-8 (not escaped), as inspect_ai writes logs.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

import numpy as np

WORDS = (
    "the model answer is correct because naïve café résumé — “quoted” 日本語 tokens step "
    "therefore we check each option carefully 42 3.14 SQL injection prepared statements 🙂"
).split()
VALUES = ("C", "I", "P", "N")


def _text(rng: np.random.Generator, words: int) -> str:
    return " ".join(rng.choice(WORDS, words))


def _message(rng: np.random.Generator, role: str, words: int) -> dict[str, object]:
    message: dict[str, object] = {
        "id": f"m{rng.integers(10**12)}",
        "content": _text(rng, words),
        "source": "generate" if role == "assistant" else "input",
        "role": role,
    }
    if role == "assistant":
        message["model"] = "gpt-4o-mini-2024-07-18"
    return message


def sample(
    rng: np.random.Generator,
    item: object,
    *,
    epoch: int = 1,
    scorers: Sequence[str] = ("match",),
    turns: int = 3,
    words: int = 40,
) -> dict[str, object]:
    """One sample: ``turns`` user/assistant exchanges, each logged again in a model event."""
    messages = [
        _message(rng, "user" if k % 2 == 0 else "assistant", words) for k in range(2 * turns)
    ]
    events = [
        {
            "timestamp": f"2025-05-12T20:28:{k:02d}.5-04:00",
            "working_start": float(k),
            "event": "model",
            "model": "openai/gpt-4o-mini",
            "input": messages[: 2 * k + 1],
            "tools": [],
            "tool_choice": "none",
            "config": {"temperature": 0.0, "max_tokens": 512},
            "output": {"choices": [{"message": messages[2 * k + 1], "stop_reason": "stop"}]},
            "call": {"request": {"messages": messages[: 2 * k + 1]}, "response": {"id": k}},
        }
        for k in range(turns)
    ]
    return {
        "id": item,
        "epoch": epoch,
        "input": messages[0]["content"],
        "target": "C",
        "messages": messages,
        "output": {
            "model": "gpt-4o-mini-2024-07-18",
            "choices": [{"message": messages[-1], "stop_reason": "stop"}],
            "usage": {"input_tokens": 100, "output_tokens": 40, "total_tokens": 140},
        },
        "scores": {
            name: {
                "value": VALUES[int(rng.integers(3))],
                "answer": _text(rng, 8),
                "explanation": _text(rng, words),
                "metadata": {"grading": messages[-2:]},
            }
            for name in scorers
        },
        "metadata": {"source": "synthetic", "tags": ["a", "b"]},
        "store": {},
        "events": events,
        "model_usage": {"openai/gpt-4o-mini": {"input_tokens": 100, "output_tokens": 40}},
        "total_time": 1.5,
        "working_time": 1.4,
        "uuid": f"u{rng.integers(10**12)}",
        "error_retries": [],
        "attachments": {},
    }


def inspect_log(
    samples: int,
    *,
    seed: int = 0,
    epochs: int = 1,
    scorers: Sequence[str] = ("match",),
    status: str = "success",
    turns: int = 3,
    words: int = 40,
) -> dict[str, object]:
    """A log of ``samples`` samples (ids ``q0``, ``q1`` ...), each ``epochs`` times."""
    rng = np.random.default_rng(seed)
    return {
        "version": 2,
        "status": status,
        "eval": {
            "eval_id": "f9WtbTGsrMUNXppXPbR9sq",
            "task": "security_guide",
            "task_version": 0,
            "model": "openai/gpt-4o-mini",
            "dataset": {"name": "security_guide", "samples": samples},
            "config": {"epochs": epochs},
            "packages": {"inspect_ai": "0.3.95"},
        },
        "plan": {"name": "plan", "steps": [{"solver": "generate", "params": {}}]},
        "results": {"total_samples": samples * epochs, "scores": []},
        "stats": {"started_at": "2025-05-12T20:28:26-04:00"},
        "samples": [
            sample(rng, f"q{i}", epoch=e + 1, scorers=scorers, turns=turns, words=words)
            for e in range(epochs)
            for i in range(samples)
        ],
        "reductions": [{"scorer": scorers[0], "samples": []}],
    }


def log_bytes(log: dict[str, object], indent: int | None = 2) -> bytes:
    """The log as inspect_ai writes it: UTF-8, non-ASCII characters not escaped."""
    return json.dumps(log, indent=indent, ensure_ascii=False).encode()


def log_of_size(megabytes: float, *, seed: int = 0, turns: int = 6, words: int = 120) -> bytes:
    """A log of about ``megabytes`` MB: as many samples as that takes."""
    one = len(log_bytes(inspect_log(1, seed=seed, turns=turns, words=words)))
    n = max(1, round(megabytes * 1e6 / one))
    return log_bytes(inspect_log(n, seed=seed, turns=turns, words=words))
