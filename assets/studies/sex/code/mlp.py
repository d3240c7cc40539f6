"""A small neural network telling a Palmer penguin's sex from its body measurements.

Python 3 standard library only. Reads ../../data/penguins.csv (relative to the code folder):
the birds with every measurement and a recorded sex. One hidden layer of tanh units and a
logistic output, trained by full-batch gradient descent for --epochs epochs on each training
fold. The first fold of the first seed streams its curve (one JSON line per epoch: training
loss, training accuracy and the held-out fold's accuracy) to $YOURA_METRICS_FILE, so the curve
is watched while it trains.

Seeds come from $YOURA_SEEDS (comma-separated), else --seed. For each seed and fold it writes
one row of `repeats` to $YOURA_RESULTS_DIR/experiment_results.json: the network's held-out
accuracy and the majority-sex baseline on the same fold, and, where asked, the paired gain of
adding the species (--compare-species) and the lowest within-group accuracy (--by). It never
averages repeats: youra computes the means and intervals.
"""
import argparse
import csv
import json
import math
import os
import random
import statistics

MEASUREMENTS = "bill_length_mm,bill_depth_mm,flipper_length_mm,body_mass_g"


def load(path, columns):
    with open(path, newline="") as f:
        return [r for r in csv.DictReader(f) if all(r[c] not in ("NA", "") for c in columns + ["sex", "species"])]


def train_and_score(train, test, columns, args, seed, species, emit=None):
    """Held-out correctness of a network fitted on `train` (one bool per test row)."""
    rnd = random.Random(seed)
    kinds = sorted({r["species"] for r in train}) if species else []

    def raw(r):
        return [float(r[c]) for c in columns] + [1.0 if r["species"] == k else 0.0 for k in kinds]

    x = [raw(r) for r in train]
    if args.standardize:
        mu = [statistics.mean(col) for col in zip(*x)]
        sd = [statistics.pstdev(col) or 1.0 for col in zip(*x)]
    else:
        mu, sd = [0.0] * len(x[0]), [1.0] * len(x[0])

    def z(v):
        return [(a - m) / s for a, m, s in zip(v, mu, sd)]

    x = [z(v) for v in x]
    y = [1.0 if r["sex"] == "male" else 0.0 for r in train]
    d, hid, n = len(x[0]), args.hidden, len(x)
    w1 = [[rnd.gauss(0, 1 / math.sqrt(d)) for _ in range(d)] for _ in range(hid)]
    b1 = [0.0] * hid
    w2 = [rnd.gauss(0, 1 / math.sqrt(hid)) for _ in range(hid)]
    b2 = 0.0

    def forward(v):
        h = [math.tanh(sum(w * a for w, a in zip(w1[j], v)) + b1[j]) for j in range(hid)]
        return h, max(-30.0, min(30.0, sum(w * a for w, a in zip(w2, h)) + b2))

    for epoch in range(args.epochs):
        g1 = [[0.0] * d for _ in range(hid)]
        gb1 = [0.0] * hid
        g2 = [0.0] * hid
        gb2 = loss = 0.0
        right = 0
        for v, t in zip(x, y):
            h, o = forward(v)
            p = 1 / (1 + math.exp(-o))
            loss -= t * math.log(p + 1e-12) + (1 - t) * math.log(1 - p + 1e-12)
            right += (p >= 0.5) == (t == 1.0)
            g = p - t
            gb2 += g
            for j in range(hid):
                g2[j] += g * h[j]
                gh = g * w2[j] * (1 - h[j] * h[j])
                gb1[j] += gh
                row = g1[j]
                for k in range(d):
                    row[k] += gh * v[k]
        b2 -= args.lr * gb2 / n
        for j in range(hid):
            w2[j] -= args.lr * g2[j] / n
            b1[j] -= args.lr * gb1[j] / n
            for k in range(d):
                w1[j][k] -= args.lr * g1[j][k] / n
        if emit:
            held = [(forward(z(raw(r)))[1] >= 0) == (r["sex"] == "male") for r in test]
            emit({"step": epoch + 1, "epoch": epoch + 1, "loss": round(loss / n, 4),
                  "train_accuracy": round(right / n, 4), "accuracy": round(sum(held) / len(test), 4)})
    return [(forward(z(raw(r)))[1] >= 0) == (r["sex"] == "male") for r in test]


def fold_rows(rows, columns, args, seed, emit):
    order = list(range(len(rows)))
    random.Random(seed).shuffle(order)
    parts = [order[i::args.folds] for i in range(args.folds)]
    out = []
    for fold, part in enumerate(parts):
        held = set(part)
        train = [rows[i] for i in order if i not in held]
        test = [rows[i] for i in part]
        right = train_and_score(train, test, columns, args, seed * 100 + fold, args.species,
                                emit if fold == 0 else None)
        males = sum(r["sex"] == "male" for r in train)
        majority = "male" if males * 2 >= len(train) else "female"
        row = {
            "seed": seed,
            "fold": fold,
            "accuracy": sum(right) / len(test),
            "accuracy_majority": sum(r["sex"] == majority for r in test) / len(test),
        }
        if args.compare_species:
            more = train_and_score(train, test, columns, args, seed * 100 + fold, True)
            row["accuracy_with_species"] = sum(more) / len(test)
            row["gain"] = (sum(more) - sum(right)) / len(test)
        if args.by:
            groups = {}
            for r, ok in zip(test, right):
                groups.setdefault(r[args.by], []).append(ok)
            row["min_group_accuracy"] = min(sum(v) / len(v) for v in groups.values())
        out.append(row)
    return out


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--features", default=MEASUREMENTS)
    p.add_argument("--standardize", action="store_true")
    p.add_argument("--species", action="store_true", help="the species as one-hot inputs too")
    p.add_argument("--compare-species", action="store_true", help="report the gain of adding the species")
    p.add_argument("--by", default="", help="a column to split by; reports the lowest group accuracy")
    p.add_argument("--hidden", type=int, default=6)
    p.add_argument("--epochs", type=int, default=60)
    p.add_argument("--lr", type=float, default=0.5)
    p.add_argument("--folds", type=int, default=5)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()
    columns = args.features.split(",")
    rows = load(os.path.join("..", "..", "data", "penguins.csv"), columns)
    metrics = open(os.environ.get("YOURA_METRICS_FILE", "metrics.jsonl"), "a")

    def emit(record):
        metrics.write(json.dumps(record) + "\n")
        metrics.flush()

    seeds = [int(s) for s in os.environ.get("YOURA_SEEDS", "").split(",") if s.strip()] or [args.seed]
    repeats = []
    for i, seed in enumerate(seeds):
        repeats.extend(fold_rows(rows, columns, args, seed, emit if i == 0 else None))
        print("seed", seed, "done", flush=True)
    with open(os.path.join(os.environ.get("YOURA_RESULTS_DIR", "."), "experiment_results.json"), "w") as f:
        json.dump({"repeats": repeats, "features": columns, "standardized": args.standardize,
                   "hidden": args.hidden, "epochs": args.epochs, "partitions": args.folds}, f, indent=1)
    print("seeds", ",".join(map(str, seeds)), "rows", len(repeats))


if __name__ == "__main__":
    main()
