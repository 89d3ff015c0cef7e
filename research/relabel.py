"""Can a 224-unit net learn what a wider one knows? Relabels training shards with a teacher's
0-ply probabilities, for a student fit (distillation).

    python research/relabel.py TEACHER.npz OUT SRC[:first[:last]] [SRC ...] [--workers 2]

For each source directory of shards (``bgtui train dataset``; ``first`` and ``last`` slice its
sorted shards), writes ``OUT/<name of SRC>/`` with the same shards (positions, sibling groups,
metadata) whose targets are the teacher's 0-ply probabilities (the bear-off databases where
they apply, as the engine plays), the player on roll's view like every target, and prints each
set's mean squared difference between the teacher and the labels. A shard already written is
skipped, so an interrupted run resumes. The student is then fitted on OUT's directories with
``bgtui train fit`` as on the labels.

Fitted from T2 on U7's own training positions relabelled by U7 (256 units), the 224-unit
student matched U7 to 3.5 millipoints (group-centred, contact) and kept about a third of its
1-ply gain over U1 (docs/lab-notes/2026-12-02-distillation.md).
"""

import argparse
import json
import time
from pathlib import Path

import numpy as np

from bgtui.analysis.atomic import atomic_write
from bgtui.analysis.weights import load_weights, with_databases
from bgtui.training.train import plied_targets, source_shards


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("teacher")
    ap.add_argument("out")
    ap.add_argument("sources", nargs="+")
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args()
    ev = with_databases(load_weights(args.teacher)[0], bearoff=True)
    for spec in args.sources:
        d, shards = source_shards(spec)
        out = Path(args.out) / d.name
        out.mkdir(parents=True, exist_ok=True)
        t, rows, se = time.time(), 0, 0.0
        for s in shards:
            dst = out / s.name
            if dst.exists():
                continue
            with np.load(s, allow_pickle=False) as z:
                arrays = {k: z[k] for k in z.files}
            targets = plied_targets(ev, arrays["positions"], 0, args.workers)
            se += float(((targets - arrays["targets"]) ** 2).sum())
            rows += len(targets)
            meta = json.loads(str(arrays["meta"])) if "meta" in arrays else {}
            meta.update(teacher=str(args.teacher), source=str(s))
            arrays["targets"] = targets
            arrays["meta"] = np.array(json.dumps(meta))
            atomic_write(dst, lambda f, a=arrays: np.savez(f, **a))
        mse = se / max(rows, 1) / 5
        print(f"{spec}: {rows} rows, {time.time() - t:.1f} s, teacher - labels MSE {mse:.6f}")


if __name__ == "__main__":
    main()
