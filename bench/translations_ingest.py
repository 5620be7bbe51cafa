"""Translated re-posts through the index, in a multilingual index: found, and wrongly linked.

    .venv/bin/python bench/translations_ingest.py [--code-root DIR] [--data-dir ../shared/data]
        [--seed 20201106] [--keep DIR]

Why: bench/robustness.py measures translations one pair per employer, 40 pairs to an index,
so a translation meets little else. A multilingual board holds many ads per employer in
several languages, and anchor keys (`indexer.anchor_keys`) then propose the employer's other
vacancies too. Here every usable row of the EURES translations file (the originals in ten
languages and their English machine translations, each translation posted 0-14 days after
its original) goes through one `jobdedup ingest`, and `jobdedup export` tells:

* recall: the share of originals whose translation ended in their cluster;
* wrong links: postings clustered with a posting of another row (another vacancy), split by
  language (across languages, which only anchor keys can bring, or within one) and by
  employer (the same normalised employer or not), counted as pairs of postings;
* both for all rows and for the rows of employers the classifier never trained on (the
  training split of `python -m classifier.train`), since the model learned from the others.

The CLI runs as a subprocess with --code-root first on PYTHONPATH (default this checkout), so
an export of another commit is measured on the same postings. Reads ../shared/data; never
run as a test.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from itertools import combinations
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def postings(data: Path, seed: int) -> tuple[list[dict[str, Any]], dict[str, str], set[str]]:
    """The postings in date order, each posting's row id, and the held-out rows' ids."""
    from classifier.corpora import gold_exclusions
    from classifier.train import split
    from classifier.translations import _employer, load_translations, posting, translation_pairs

    rows = load_translations(data, gold_exclusions(data))
    pairs = translation_pairs(rows, seed)
    _, held = split(pairs, seed)
    held_rows = {
        str(pairs[i].a["id"]).removeprefix("xl-").removesuffix("-original")
        for i in held
        if pairs[i].kind == "xling_pos"
    }
    rng = random.Random(seed)
    docs: list[dict[str, Any]] = []
    row_of: dict[str, str] = {}
    for row in rows:
        for side, later in (("original", 0), ("en_mt", rng.randint(0, 14))):
            doc = posting(row, side, row, later)
            doc["id"] = f"xl-{row['job_id']}-{side}"
            docs.append(doc)
            row_of[doc["id"]] = row["job_id"]
    employers = {row["job_id"]: _employer(row) for row in rows}
    docs.sort(key=lambda d: (d["posted_at"], d["id"]))
    return docs, {pid: f"{row_of[pid]}\x1f{employers[row_of[pid]]}" for pid in row_of}, held_rows


def run_cli(code_root: Path, args: list[str], data_dir: Path) -> None:
    env = {
        **os.environ,
        "PYTHONPATH": str(code_root),
        "JOBDEDUP_DATA_DIR": str(data_dir),
        "JOBDEDUP_BACKEND": "sqlite",
    }
    subprocess.run(
        [sys.executable, "-m", "service.cli", *args],
        cwd=code_root,
        env=env,
        check=True,
        stdout=subprocess.DEVNULL,
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--code-root", type=Path, default=ROOT)
    parser.add_argument("--data-dir", type=Path, default=ROOT.parent / "shared" / "data")
    parser.add_argument("--seed", type=int, default=20201106)
    parser.add_argument("--keep", type=Path, help="write postings and export here")
    args = parser.parse_args()
    docs, row_of, held = postings(args.data_dir, args.seed)
    work = Path(args.keep or tempfile.mkdtemp(prefix="xl-ingest-"))
    work.mkdir(parents=True, exist_ok=True)
    source = work / "postings.jsonl"
    source.write_text("".join(json.dumps(d, ensure_ascii=False) + "\n" for d in docs))
    index = work / "index"
    shutil.rmtree(index, ignore_errors=True)  # a fresh index: a kept one answers "unchanged"
    started = time.perf_counter()
    decisions = work / "decisions.jsonl"
    run_cli(
        args.code_root.resolve(),
        ["ingest", str(source), "--no-progress", "--out", str(decisions)],
        index,
    )
    took = time.perf_counter() - started
    clusters = work / "clusters.jsonl"
    run_cli(args.code_root.resolve(), ["export", "--out", str(clusters)], index)
    members: dict[str, list[str]] = defaultdict(list)
    for line in clusters.read_text().splitlines():
        item = json.loads(line)
        members[item["cluster_id"]].append(item["id"])
    cluster_of = {pid: cid for cid, ids in members.items() for pid in ids}

    def row(pid: str) -> str:
        return row_of[pid].split("\x1f")[0]

    def employer(pid: str) -> str:
        return row_of[pid].split("\x1f")[1]

    print(f"{len(docs)} postings ({len(docs) // 2} rows, {len(held)} held out) in {took:.1f} s")
    print(f"code: {args.code_root}\n")
    print(
        "| rows | originals | translation found | recall | wrong pairs across languages "
        "(same employer / other) | wrong pairs within a language (same employer / other) |"
    )
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    selections: list[tuple[str, Callable[[str], bool]]] = [
        ("all", lambda r: True),
        ("held-out employers", lambda r: r in held),
    ]
    for name, keep in selections:
        rows = sorted({row(pid) for pid in row_of if keep(row(pid))})
        found = sum(cluster_of[f"xl-{r}-original"] == cluster_of[f"xl-{r}-en_mt"] for r in rows)
        wrong = {"across": [0, 0], "within": [0, 0]}
        for ids in members.values():
            for a, b in combinations(sorted(ids), 2):
                if row(a) == row(b) or not (keep(row(a)) and keep(row(b))):
                    continue
                kind = "across" if a.endswith("-original") != b.endswith("-original") else "within"
                same = employer(a) == employer(b) and bool(employer(a))
                wrong[kind][0 if same else 1] += 1
        print(
            f"| {name} | {len(rows)} | {found} | {found / max(len(rows), 1):.3f} "
            f"| {wrong['across'][0]} / {wrong['across'][1]} "
            f"| {wrong['within'][0]} / {wrong['within'][1]} |"
        )
    print(
        "\nJoins (a posting's best candidate at or above the threshold, what it joined), by "
        "whether that candidate is in the other language:\n"
    )
    print(
        "| rows | joins across languages | right | wrong (same employer / other) "
        "| precision | joins within a language | right | wrong |"
    )
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    verdicts = [json.loads(line) for line in decisions.read_text().splitlines()]
    for name, keep in selections:
        tally = {"across": [0, 0, 0], "within": [0, 0, 0]}  # right, same employer, other
        for verdict in verdicts:
            pid = verdict["id"]
            if verdict["status"] != "duplicate" or not keep(row(pid)):
                continue
            best = max(verdict["candidates"], key=lambda c: c["score"])["id"]
            kind = "across" if pid.endswith("-original") != best.endswith("-original") else "within"
            if row(best) == row(pid):
                tally[kind][0] += 1
            else:
                tally[kind][1 if employer(best) == employer(pid) and employer(pid) else 2] += 1
        cross, same_language = tally["across"], tally["within"]
        print(
            f"| {name} | {sum(cross)} | {cross[0]} | {cross[1]} / {cross[2]} "
            f"| {cross[0] / max(sum(cross), 1):.3f} | {sum(same_language)} "
            f"| {same_language[0]} | {same_language[1] + same_language[2]} |"
        )


if __name__ == "__main__":
    main()
