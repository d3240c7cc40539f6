"""Nearest-centroid classification of Palmer penguin species with k-fold cross-validation.

Python 3 standard library only. Reads ../../data/penguins.csv (relative to the code folder) and
streams its learning curve (one JSON line per step, first seed only) to $YOURA_METRICS_FILE.

Seeds come from $YOURA_SEEDS (comma-separated), else --seed. With one seed the run is one
measurement: the mean over the folds goes to $YOURA_RESULTS_DIR/experiment_results.json as
{"metrics": ...}. With several seeds it reports repeats, as youra's results schema asks: one
row per (seed, fold), with the rule's accuracy, the majority-class and linear-discriminant
baselines on the same fold, and (--compare, --by) the paired gain and the lowest within-group
accuracy of that fold. It never averages repeats: youra computes the means and intervals.
"""
import argparse
import csv
import json
import math
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


def lda_predict(train, test, columns):
    """Fisher's linear discriminant: class means, one pooled covariance, class priors."""
    k = len(columns)
    classes = sorted({r["species"] for r in train})
    means, counts = {}, {}
    cov = [[0.0] * k for _ in range(k)]
    for c in classes:
        pts = [[float(r[col]) for col in columns] for r in train if r["species"] == c]
        m = [statistics.mean(col) for col in zip(*pts)]
        means[c], counts[c] = m, len(pts)
        for p in pts:
            for i in range(k):
                for j in range(k):
                    cov[i][j] += (p[i] - m[i]) * (p[j] - m[j])
    dof = len(train) - len(classes)
    inv = invert([[v / dof for v in row] for row in cov])
    weights = {c: [sum(inv[i][j] * means[c][j] for j in range(k)) for i in range(k)] for c in classes}

    def score(x, c):
        w = weights[c]
        return (sum(a * b for a, b in zip(w, x)) - 0.5 * sum(a * b for a, b in zip(w, means[c]))
                + math.log(counts[c] / len(train)))

    out = []
    for r in test:
        x = [float(r[col]) for col in columns]
        out.append(max(classes, key=lambda c: score(x, c)) == r["species"])
    return out


def invert(m):
    """Gauss-Jordan inverse of a small square matrix."""
    n = len(m)
    a = [row[:] + [1.0 if i == j else 0.0 for j in range(n)] for i, row in enumerate(m)]
    for i in range(n):
        p = max(range(i, n), key=lambda r: abs(a[r][i]))
        a[i], a[p] = a[p], a[i]
        d = a[i][i]
        a[i] = [x / d for x in a[i]]
        for r in range(n):
            if r != i:
                f = a[r][i]
                a[r] = [x - f * y for x, y in zip(a[r], a[i])]
    return [row[n:] for row in a]


def centroid_right(train, test, columns, standardize):
    """Whether the nearest-centroid rule gets each test row right."""
    x = [[float(r[c]) for c in columns] for r in train]
    mu = [statistics.mean(col) for col in zip(*x)] if standardize else [0.0] * len(columns)
    sd = [statistics.pstdev(col) or 1.0 for col in zip(*x)] if standardize else [1.0] * len(columns)

    def z(r):
        return [(float(r[c]) - m) / s for c, m, s in zip(columns, mu, sd)]

    centroids = {}
    for species in sorted({r["species"] for r in train}):
        pts = [z(r) for r in train if r["species"] == species]
        centroids[species] = [statistics.mean(col) for col in zip(*pts)]
    return [min(centroids, key=lambda s: sum((a - b) ** 2 for a, b in zip(z(r), centroids[s]))) == r["species"]
            for r in test]


def fold_rows(rows, args, columns, seed, emit):
    """One row per fold of one seed's cross-validation: the rule, its baselines on the same
    fold and, where asked, the paired gain and the lowest within-group accuracy. The first
    seed's learning curve (the rule refitted on 20..100 % of each training fold) is streamed."""
    order = list(range(len(rows)))
    random.Random(seed).shuffle(order)
    parts = [order[i::args.folds] for i in range(args.folds)]
    fractions = [0.2, 0.4, 0.6, 0.8, 1.0]
    arms = [("base", columns)] + ([("with_" + args.compare, columns + [args.compare])] if args.compare else [])
    curves = {label: [[] for _ in fractions] for label, _ in arms}
    curve = curves["base"]
    out = []
    for fold, part in enumerate(parts):
        held = set(part)
        train = [rows[i] for i in order if i not in held]
        test = [rows[i] for i in part]
        if emit:
            for label, cols in arms:
                for j, f in enumerate(fractions[:-1] if label == "base" else fractions):
                    share = train[: max(3, int(len(train) * f))]
                    curves[label][j].append(fit_predict(share, test, cols, args.standardize))
        right = centroid_right(train, test, columns, args.standardize)
        curve[-1].append(sum(right) / len(test))
        counts = {}
        for r in train:
            counts[r["species"]] = counts.get(r["species"], 0) + 1
        majority = max(sorted(counts), key=lambda s: counts[s])
        row = {
            "seed": seed,
            "fold": fold,
            "accuracy": sum(right) / len(test),
            "accuracy_majority": sum(r["species"] == majority for r in test) / len(test),
            "accuracy_lda": sum(lda_predict(train, test, columns)) / len(test),
        }
        if args.compare:
            more = centroid_right(train, test, columns + [args.compare], args.standardize)
            row["accuracy_with_" + args.compare] = sum(more) / len(test)
            row["gain"] = (sum(more) - sum(right)) / len(test)
        if args.by:
            groups = {}
            for r, ok in zip(test, right):
                groups.setdefault(r[args.by], []).append(ok)
            row["min_group_accuracy"] = min(sum(v) / len(v) for v in groups.values())
        out.append(row)
    if emit:
        for label, _ in arms:
            for j, f in enumerate(fractions):
                emit({"step": j + 1, "model": label, "train_fraction": f,
                      "accuracy": round(statistics.mean(curves[label][j]), 4)})
    return out


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
    args = p.parse_args()
    columns = args.features.split(",")
    needed = columns + ([args.compare] if args.compare else []) + ([args.by] if args.by else [])
    rows = load(os.path.join("..", "..", "data", "penguins.csv"), needed)
    metrics_path = os.environ.get("YOURA_METRICS_FILE", "metrics.jsonl")
    out = open(metrics_path, "a")

    def emit(record):
        out.write(json.dumps(record) + "\n")
        out.flush()

    seeds = [int(s) for s in os.environ.get("YOURA_SEEDS", "").split(",") if s.strip()] or [args.seed]
    results_dir = os.environ.get("YOURA_RESULTS_DIR", ".")
    if len(seeds) > 1:
        repeats = []
        for i, seed in enumerate(seeds):
            repeats.extend(fold_rows(rows, args, columns, seed, emit if i == 0 else None))
        with open(os.path.join(results_dir, "experiment_results.json"), "w") as f:
            json.dump({"repeats": repeats, "features": columns, "standardized": args.standardize,
                       "partitions": args.folds}, f, indent=1)  # partitions: the folds of each seed
        print("seeds", ",".join(map(str, seeds)), "rows", len(repeats))
        return
    args.seed = seeds[0]
    base = cross_validate(rows, columns, args.standardize, args.folds, args.seed, emit, "base")
    final = {"accuracy": round(base, 4), "n": len(rows)}
    if args.compare:
        more = cross_validate(rows, columns + [args.compare], args.standardize, args.folds, args.seed, emit,
                              "with_" + args.compare)
        final["accuracy_with_" + args.compare] = round(more, 4)
        final["gain"] = round(more - base, 4)
    if args.by:
        groups = sorted({r[args.by] for r in rows})
        per = {}
        for g in groups:
            sub = [r for r in rows if r[args.by] == g]
            per[g] = cross_validate(sub, columns, args.standardize, args.folds, args.seed, emit, args.by + "=" + g)
        final["min_group_accuracy"] = round(min(per.values()), 4)
        final["group_accuracy"] = {g: round(a, 4) for g, a in per.items()}
    with open(os.path.join(results_dir, "experiment_results.json"), "w") as f:
        json.dump({"metrics": final, "features": columns, "standardized": args.standardize}, f, indent=2)
    print("final:", json.dumps(final))


if __name__ == "__main__":
    main()
