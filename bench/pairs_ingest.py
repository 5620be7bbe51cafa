"""Labelled pairs judged end to end: both sides ingested into one fresh index, a pair called a
duplicate when its two postings end in one cluster (`jobdedup ingest` + `export`).

Why beside `jobdedup evaluate`: evaluate scores each pair in isolation, while a user's verdict
comes from the index, where a pair must first become a candidate (band, lookup or block keys,
time window), and where clusters merge or refuse to (the snippet bridging rule). This is the
"ingest + export" row of the measurements.

    python bench/pairs_ingest.py ../shared/data/gold-dev/pairs.jsonl [--keep DIR]

Prints precision, recall and F1, and recall per duplicate type / false-positive rate per
non-duplicate reason. Pairs whose sides share an id with another pair's side are ingested
once (the gold format gives each side its own id).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any


def _jobdedup(args: Sequence[str], data_dir: Path) -> None:
    env = {**os.environ, "JOBDEDUP_DATA_DIR": str(data_dir)}
    command = [sys.executable, "-m", "service.cli", *args]
    subprocess.run(command, check=True, env=env, capture_output=True)


def judge(pairs: Sequence[dict[str, Any]], work: Path) -> dict[str, bool]:
    """pair_id → whether the two sides share a cluster after ingesting every side."""
    postings: dict[str, dict[str, Any]] = {}
    for pair in pairs:
        for side in ("a", "b"):
            postings.setdefault(str(pair[side]["id"]), pair[side])
    ordered = sorted(postings.values(), key=lambda p: (str(p.get("posted_at") or ""), p["id"]))
    feed = work / "postings.jsonl"
    feed.write_text("".join(json.dumps(p, ensure_ascii=False) + "\n" for p in ordered))
    clusters = work / "clusters.jsonl"
    _jobdedup(["ingest", str(feed), "--no-progress"], work / "index")
    _jobdedup(["export", "--out", str(clusters)], work / "index")
    cluster_of = {}
    for line in clusters.read_text().splitlines():
        row = json.loads(line)
        cluster_of[row["id"]] = row["cluster_id"]
    return {
        str(p["pair_id"]): cluster_of[str(p["a"]["id"])] == cluster_of[str(p["b"]["id"])]
        for p in pairs
    }


def report(pairs: Sequence[dict[str, Any]], predicted: dict[str, bool]) -> str:
    """Overall P/R/F1 and per-kind rates, as text."""
    tp = fp = fn = 0
    kinds: dict[str, list[bool]] = defaultdict(list)
    for pair in pairs:
        gold = pair["label"] == "duplicate"
        said = predicted[str(pair["pair_id"])]
        tp += gold and said
        fp += said and not gold
        fn += gold and not said
        kind = ("type " if gold else "reason ") + str(pair.get("type") or pair.get("reason"))
        kinds[kind].append(said)
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    lines = [
        f"pairs {len(pairs)}  precision {precision:.3f}  recall {recall:.3f}  F1 {f1:.3f}"
        f"  (TP {tp}, FP {fp}, FN {fn})",
        "duplicate types: share in one cluster; other reasons: false-positive rate",
    ]
    for kind, verdicts in sorted(kinds.items()):
        share = sum(verdicts) / len(verdicts)
        lines.append(f"  {kind:36s} {share:.3f}  ({len(verdicts)} pairs)")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pairs", type=Path)
    parser.add_argument("--keep", type=Path, help="write the index and files here (kept)")
    args = parser.parse_args(argv)
    pairs = [json.loads(line) for line in args.pairs.read_text().splitlines() if line.strip()]
    if args.keep:
        args.keep.mkdir(parents=True, exist_ok=True)
        print(report(pairs, judge(pairs, args.keep)))
        return
    with tempfile.TemporaryDirectory() as work:
        print(report(pairs, judge(pairs, Path(work))))


if __name__ == "__main__":
    main()
