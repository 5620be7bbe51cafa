"""Write the held-out translated pairs (employers never seen in training) in gold-dev format.

    python bench/translations_heldout.py OUT.jsonl
    jobdedup evaluate OUT.jsonl

The pairs `python -m classifier.train` holds out from `classifier.translations` (same seed,
same employer split), so any model, the shipped one or an older one, can be scored on the
translated re-posts it was not trained on. Reads ../shared/data; never run as a test.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def main() -> None:
    from classifier.corpora import DEFAULT_DATA_DIR, gold_exclusions
    from classifier.train import DEFAULT_SEED, split
    from classifier.translations import load_translations, translation_pairs

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("out", type=Path)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA_DIR)
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    args = parser.parse_args()
    rows = load_translations(args.data, gold_exclusions(args.data))
    pairs = translation_pairs(rows, args.seed)
    _, held = split(pairs, args.seed)
    with args.out.open("w", encoding="utf-8") as handle:
        for index in held:
            pair = pairs[index]
            label = "duplicate" if pair.label else "not_duplicate"
            line = {"pair_id": f"{pair.kind}-{index}", "a": pair.a, "b": pair.b, "label": label}
            line["type" if pair.label else "reason"] = pair.kind
            handle.write(json.dumps(line, ensure_ascii=False) + "\n")
    print(f"{len(held)} of {len(pairs)} translated pairs held out -> {args.out}")


if __name__ == "__main__":
    main()
