#!/usr/bin/env python3
"""Build the small tokenizer.json that the documentation's model folders use, offline.

The docs show `check` with a model folder (a tokenizer.json and the model's chat template). A
real model's tokenizer is another project's file and megabytes large, so the examples under
docs/examples/check/models/ carry this stand-in instead: a byte-level BPE of 1,000 tokens
trained by Hugging Face `tokenizers` on the text of samples/, with the four special tokens
their chat templates write. Counts differ from a real model's (more, shorter tokens); the
findings and where they are do not depend on it.

    python scripts/example_tokenizer.py             # rewrite the tokenizer.json of every folder
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MODELS = ROOT / "docs" / "examples" / "check" / "models"
SPECIAL = ["<|begin|>", "<|header|>", "<|end_header|>", "<|end|>"]
VOCAB = 1000


def build() -> str:
    """The tokenizer.json text, trained on samples/ in name order (deterministic)."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    texts = [path.read_text(encoding="utf-8") for path in sorted((ROOT / "samples").glob("*.*"))]
    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=VOCAB, special_tokens=SPECIAL, show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tokenizer.train_from_iterator(texts, trainer)
    return tokenizer.to_str(pretty=False)


def main() -> int:
    text = build()
    folders = sorted(path for path in MODELS.iterdir() if path.is_dir())
    for folder in folders:
        (folder / "tokenizer.json").write_text(text + "\n", encoding="utf-8")
        print(f"{folder.relative_to(ROOT)}/tokenizer.json: {len(text):,} bytes", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
