"""Nearest-centroid classification of Palmer penguin species with k-fold cross-validation.

Python 3 standard library only. Reads ../../data/penguins.csv (relative to the code folder),
streams its learning curve (one JSON line per step) to $YOURA_METRICS_FILE and writes the final metrics to
$YOURA_RESULTS_DIR/experiment_results.json.
"""
import argparse
import csv
import json
import os
import random
import statistics


def load(path, columns):
    rows = []
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            if all(r[c] not in ("NA", "") for c in columns + ["species"]):
                rows.append(r)
    return rows


def fit_predict(train, test, columns, standardize):
    x = [[float(r[c]) for c in columns] for r in train]
    mu = [statistics.mean(col) for col in zip(*x)] if standardize else [0.0] * len(columns)
    sd = [statistics.pstdev(col) or 1.0 for col in zip(*x)] if standardize else [1.0] * len(columns)

    def z(r):
        return [(float(r[c]) - m) / s for c, m, s in zip(columns, mu, sd)]

    centroids = {}
    for species in sorted({r["species"] for r in train}):
        pts = [z(r) for r in train if r["species"] == species]
        centroids[species] = [statistics.mean(col) for col in zip(*pts)]
    correct = 0
    for r in test:
        v = z(r)
        guess = min(centroids, key=lambda s: sum((a - b) ** 2 for a, b in zip(v, centroids[s])))
        correct += guess == r["species"]
    return correct / len(test)


def cross_validate(rows, columns, standardize, folds, seed, emit, label):
    """Mean accuracy over the folds, with a learning curve: each fold's classifier is also
    fitted on the first 20, 40, 60 and 80 % of its training rows, and every step of the
    curve (mean over folds) goes to the metrics stream."""
    order = list(range(len(rows)))
    random.Random(seed).shuffle(order)
    parts = [order[i::folds] for i in range(folds)]
    fractions = [0.2, 0.4, 0.6, 0.8, 1.0]
    curve = [[] for _ in fractions]
    for part in parts:
        held = set(part)
        train = [rows[i] for i in order if i not in held]
        test = [rows[i] for i in part]
        for j, f in enumerate(fractions):
            curve[j].append(fit_predict(train[: max(3, int(len(train) * f))], test, columns, standardize))
    for j, f in enumerate(fractions):
        emit({"step": j + 1, "model": label, "train_fraction": f, "accuracy": round(statistics.mean(curve[j]), 4)})
    return statistics.mean(curve[-1])


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--features", default="bill_length_mm,bill_depth_mm")
    p.add_argument("--standardize", action="store_true")
    p.add_argument("--compare", default="", help="a feature to add; reports the accuracy gain")
    p.add_argument("--by", default="", help="a column to split by; reports the minimum accuracy")
    p.add_argument("--folds", type=int, default=5)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--repeats", type=int, default=1, help="repeat the cross-validation with seeds seed, seed+1, ...; report the mean (and the gain's range)")
    args = p.parse_args()
    columns = args.features.split(",")
    needed = columns + ([args.compare] if args.compare else []) + ([args.by] if args.by else [])
    rows = load(os.path.join("..", "..", "data", "penguins.csv"), needed)
    metrics_path = os.environ.get("YOURA_METRICS_FILE", "metrics.jsonl")
    out = open(metrics_path, "a")

    def emit(record):
        out.write(json.dumps(record) + "\n")
        out.flush()

    def quiet(record):
        pass

    def repeated(cols, label):
        """The accuracy for each seed; only the first seed's learning curve is streamed."""
        return [cross_validate(rows, cols, args.standardize, args.folds, args.seed + i, emit if i == 0 else quiet, label)
                for i in range(max(1, args.repeats))]

    bases = repeated(columns, "base")
    base = statistics.mean(bases)
    final = {"accuracy": round(base, 4), "n": len(rows)}
    if args.repeats > 1:
        final["repeats"] = args.repeats
    if args.compare:
        mores = repeated(columns + [args.compare], "with_" + args.compare)
        more = statistics.mean(mores)
        final["accuracy_with_" + args.compare] = round(more, 4)
        final["gain"] = round(more - base, 4)
        if args.repeats > 1:
            gains = [m - b for m, b in zip(mores, bases)]
            final["gain_min"] = round(min(gains), 4)
            final["gain_max"] = round(max(gains), 4)
    if args.by:
        groups = sorted({r[args.by] for r in rows})
        per = {}
        for g in groups:
            sub = [r for r in rows if r[args.by] == g]
            per[g] = cross_validate(sub, columns, args.standardize, args.folds, args.seed, emit, args.by + "=" + g)
        final["min_group_accuracy"] = round(min(per.values()), 4)
        final["group_accuracy"] = {g: round(a, 4) for g, a in per.items()}
    results_dir = os.environ.get("YOURA_RESULTS_DIR", ".")
    with open(os.path.join(results_dir, "experiment_results.json"), "w") as f:
        json.dump({"metrics": final, "features": columns, "standardized": args.standardize}, f, indent=2)
    print("final:", json.dumps(final))


if __name__ == "__main__":
    main()
