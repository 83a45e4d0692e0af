"""Side by side: the official SentEval and our ``paper`` protocol on the same encoder, same machine.

Maintainer tool behind the agreement table of ``book/evaluation.md``. It runs facebookresearch/SentEval
(fetched read-only, never vendored: a patched *copy* is made in a temporary folder) with the configuration
the literature uses (SentEval's README "default config": ``usepytorch=True, kfold=10``, classifier
``nhid=0, optim=adam, batch_size=64, tenacity=5, epoch_size=4``), its batcher calling our encoder on the
space-joined tokens, then ``reproducer.evaluate.evaluate(encoder, tasks, "paper")`` on the same encoder, and
writes a table: task, metric, SentEval, ours, difference, SentEval seconds, our seconds (encoding included
in both).

    python scripts/senteval_agreement.py --senteval /path/to/SentEval [--encoder glove-bow] [--tasks ...]
    python scripts/senteval_agreement.py --side ours --repeat 3    # our side again, SentEval's stored times kept

Our seconds are each task's median of ``--repeat`` runs one after the other, each starting cold (the tokenizer's cache
cleared), with torch imported before either clock starts.

``--senteval`` is a SentEval checkout or its git directory (e.g. the one ``fetch`` leaves under
``/work/.mirror``). SentEval's result for each task is stored as soon as that task ends
(``results/senteval_agreement/<encoder>.senteval.json``), so an interrupted run resumes; ``--rerun-senteval``
measures it again. The SentEval data folder is the project's cached ``senteval`` dataset (the same files).

The compatibility patches (listed in :data:`PATCHES`, each asserted to apply) only make SentEval run on a CPU
with today's Python, NumPy and PyTorch; none touches its protocol.
"""
from __future__ import annotations

import argparse
import io
import json
import logging
import os
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from reproducer.files import write_json, write_text  # noqa: E402

# SentEval's README, "To produce results that are comparable to the literature, use the default config".
SENTEVAL_PARAMS = {"usepytorch": True, "kfold": 10, "seed": 1111, "batch_size": 128,
                   "classifier": {"nhid": 0, "optim": "adam", "batch_size": 64, "tenacity": 5, "epoch_size": 4}}

# our task name -> SentEval's
TASKS = {"MR": "MR", "CR": "CR", "SUBJ": "SUBJ", "MPQA": "MPQA", "TREC": "TREC", "MRPC": "MRPC",
         "SICK-E": "SICKEntailment", "SICK-R": "SICKRelatedness",
         "STS12": "STS12", "STS13": "STS13", "STS14": "STS14", "STS15": "STS15", "STS16": "STS16"}

_DEVICE = "\nDEVICE = torch.device('cuda' if torch.cuda.is_available() else 'cpu')  # patched: CPU\n"

# (file, old text, new text, why). Each must match at least once, so a changed SentEval fails loudly.
PATCHES = [
    ("senteval/tools/classifier.py", "import torch.nn.functional as F\n", "import torch.nn.functional as F\n" + _DEVICE,
     "a device that exists on a CPU-only machine"),
    ("senteval/tools/classifier.py", ".cuda()", ".to(DEVICE)", "hard-coded CUDA -> DEVICE"),
    ("senteval/tools/classifier.py", "torch.device('cuda')", "DEVICE", "hard-coded CUDA -> DEVICE"),
    ("senteval/tools/classifier.py", "isinstance(devX, torch.cuda.FloatTensor)", "isinstance(devX, torch.Tensor)",
     "the 'already on the device' test, for any device"),
    ("senteval/tools/classifier.py", "torch.FloatTensor(devX)", "torch.as_tensor(devX, dtype=torch.float32)",
     "legacy constructor -> as_tensor (same dtype)"),
    ("senteval/tools/classifier.py", "torch.LongTensor(devy)", "torch.as_tensor(devy, dtype=torch.int64)",
     "legacy constructor -> as_tensor (same dtype)"),
    ("senteval/tools/relatedness.py", "import torch.optim as optim\n", "import torch.optim as optim\n" + _DEVICE,
     "a device that exists on a CPU-only machine"),
    ("senteval/tools/relatedness.py", "assert torch.cuda.is_available(), 'torch.cuda required for Relatedness'",
     "pass", "SICK-R ran only on CUDA"),
    ("senteval/tools/relatedness.py", ".cuda()", ".to(DEVICE)", "hard-coded CUDA -> DEVICE"),
    ("senteval/utils.py", "inspect.getargspec(", "inspect.getfullargspec(", "removed in Python 3.11"),
    ("senteval/sts.py", "np.array([s.split() for s in sent1])", "np.array([s.split() for s in sent1], dtype=object)",
     "ragged arrays need dtype=object since NumPy 1.24"),
    ("senteval/sts.py", "np.array([s.split() for s in sent2])", "np.array([s.split() for s in sent2], dtype=object)",
     "ragged arrays need dtype=object since NumPy 1.24"),
]


def senteval_copy(source: Path, dest: Path) -> tuple[Path, str]:
    """A patched copy of SentEval's package under ``dest``; returns (folder to put on sys.path, commit)."""
    if (source / "senteval" / "engine.py").is_file():  # a work tree
        commit = subprocess.run(["git", "-C", str(source), "rev-parse", "HEAD"], capture_output=True,
                                text=True).stdout.strip() or "unknown"
        files = {p.relative_to(source).as_posix(): p.read_bytes() for p in (source / "senteval").rglob("*.py")}
    else:  # a git directory without a work tree
        git = ["git", f"--git-dir={source}"]
        commit = subprocess.run(git + ["rev-parse", "HEAD"], capture_output=True, text=True, check=True).stdout.strip()
        tar = subprocess.run(git + ["archive", "HEAD", "senteval"], capture_output=True, check=True).stdout
        with tarfile.open(fileobj=io.BytesIO(tar)) as t:
            files = {m.name: t.extractfile(m).read() for m in t.getmembers() if m.isfile()}
    texts = {name: data.decode("utf-8") for name, data in files.items()}
    for name, old, new, why in PATCHES:
        if old not in texts[name]:
            raise SystemExit(f"patch not applicable to {name}: {old!r} ({why}); has SentEval changed?")
        texts[name] = texts[name].replace(old, new)
    for name, text in texts.items():
        path = dest / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return dest, commit


def _plain(x):
    """SentEval's results as JSON: tuples (r, p) -> r, arrays dropped."""
    if isinstance(x, dict):
        return {k: _plain(v) for k, v in x.items() if not isinstance(v, np.ndarray)}
    if isinstance(x, tuple):
        return float(x[0])
    if isinstance(x, (np.floating, np.integer)):
        return x.item()
    return x


def run_senteval(encoder, tasks: list[str], senteval: Path, data: Path, store: Path, rerun: bool) -> dict:
    """Run SentEval task by task (stored after each); returns {task: {"result": ..., "seconds": ...}}."""
    done = json.loads(store.read_text()) if store.is_file() else {"tasks": {}}
    todo = [t for t in tasks if rerun or t not in done["tasks"]]
    if not todo:
        return done
    with tempfile.TemporaryDirectory(prefix="senteval-") as tmp:
        path, commit = senteval_copy(senteval, Path(tmp))
        sys.path.insert(0, str(path))
        import senteval as se_module  # noqa: PLC0415 (the patched copy)
        import torch

        def batcher(params, batch):
            return encoder.encode([" ".join(tokens) for tokens in batch])

        params = {"task_path": str(data), **SENTEVAL_PARAMS}
        done.update({"commit": commit, "params": params, "encoder": encoder.name, "torch": torch.__version__,
                     "threads": torch.get_num_threads(), "patches": [f"{f}: {why}" for f, _, _, why in PATCHES]})
        for task in todo:
            engine = se_module.engine.SE(dict(params), batcher)
            load = os.getloadavg()[0]
            t0 = time.perf_counter()
            result = engine.eval(TASKS[task])
            seconds = time.perf_counter() - t0
            # the 1-minute load average before and after: a busy machine would flatter the speed-up
            done["tasks"][task] = {"result": _plain(result), "seconds": seconds,
                                   "load": [load, os.getloadavg()[0]]}
            write_json(store, done)
            print(f"SentEval {task}: {seconds:.1f} s", flush=True)
    return done


FIXTURES = ROOT / "tests" / "data" / "senteval_fixtures"


def build_fixtures(encoder, senteval: Path) -> None:
    """Small real inputs (subsets of CR, TREC and SICK encoded by ``encoder``, in SentEval's order, stored as
    float16) and what SentEval's own classifier classes make of them, for ``tests/test_senteval_protocol.py``."""
    from reproducer.data.loaders import load_cr, load_sick, load_trec
    from reproducer.evaluate import CONFIGS
    from reproducer.evaluate.protocols import pair_features
    from reproducer.evaluate.tasks import SICK_E_CLASSES, TREC_CLASSES, _labels, _ordered

    paper = CONFIGS["paper"]

    def enc(texts):  # float16 storage; both sides read the same float32 values back
        return encoder.encode(texts).astype(np.float16)

    cr = _ordered(load_cr()["all"], paper, "text")[::9]
    trec = {s: _ordered(load_trec()[s], paper, "text", classes=TREC_CLASSES)[::k]
            for s, k in (("train", 9), ("test", 2))}
    sick = {s: _ordered(load_sick()[s], paper, "a", "b", label="entailment", classes=SICK_E_CLASSES)[::k]
            for s, k in (("train", 9), ("dev", 3), ("test", 16))}
    arrays = {"cr_x": enc([r.text for r in cr]), "cr_y": _labels(cr)}
    for s in trec:
        arrays[f"trec_{s}_x"], arrays[f"trec_{s}_y"] = enc([r.text for r in trec[s]]), _labels(trec[s], classes=TREC_CLASSES)
    for s in sick:
        a, b = enc([r.a for r in sick[s]]).astype(np.float32), enc([r.b for r in sick[s]]).astype(np.float32)
        arrays[f"sick_{s}_x"] = pair_features(a, b).astype(np.float16)
        arrays[f"sick_{s}_e"] = _labels(sick[s], "entailment", SICK_E_CLASSES)
        arrays[f"sick_{s}_r"] = _labels(sick[s], "relatedness").astype(np.float64)
    x = {k: v.astype(np.float32) if v.dtype == np.float16 else v for k, v in arrays.items()}

    with tempfile.TemporaryDirectory(prefix="senteval-") as tmp:
        path, commit = senteval_copy(senteval, Path(tmp))
        sys.path.insert(0, str(path))
        from senteval.sick import SICKRelatednessEval
        from senteval.tools.relatedness import RelatednessPytorch
        from senteval.tools.validation import InnerKFoldClassifier, KFoldClassifier, SplitClassifier

        def config(n_classes):
            return {"nclasses": n_classes, "seed": 1111, "usepytorch": True, "kfold": 10,
                    "classifier": SENTEVAL_PARAMS["classifier"], "nhid": 0}

        expected = {"senteval_commit": commit}
        expected["cv"] = dict(zip(("dev_acc", "acc"), InnerKFoldClassifier(x["cr_x"], x["cr_y"], config(2)).run()))
        dev, test, _ = KFoldClassifier({"X": x["trec_train_x"], "y": x["trec_train_y"]},
                                       {"X": x["trec_test_x"], "y": x["trec_test_y"]}, config(6)).run()
        expected["train_test"] = {"dev_acc": dev, "acc": test}
        split = {"train": "train", "valid": "dev", "test": "test"}
        expected["dev"] = dict(zip(("dev_acc", "acc"), SplitClassifier(
            {k: x[f"sick_{v}_x"] for k, v in split.items()}, {k: x[f"sick_{v}_e"] for k, v in split.items()},
            config(3)).run()))
        labels = SICKRelatednessEval.encode_labels
        data = {k: {"X": x[f"sick_{v}_x"], "y": labels(None, x[f"sick_{v}_r"])} for k, v in split.items()}
        dev_r, yhat = RelatednessPytorch(data["train"], data["valid"], data["test"], x["sick_dev_r"],
                                         {"seed": 1111, "nclasses": 5}).run()
        expected["relatedness"] = {"dev_pearson": float(dev_r),
                                   "pearson": float(np.corrcoef(yhat, x["sick_test_r"])[0, 1])}
    FIXTURES.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(FIXTURES.with_suffix(".npz"), **arrays)
    write_json(FIXTURES.with_suffix(".json"), expected)
    print(json.dumps(expected, indent=1))


# which numbers are compared: (our metric, SentEval's result path, kind)
COMPARED = {
    "classification": [("acc", ("acc",), "accuracy")],
    "MRPC": [("acc", ("acc",), "accuracy"), ("f1", ("f1",), "accuracy")],
    "SICK-R": [("pearson", ("pearson",), "correlation"), ("spearman", ("spearman",), "correlation")],
    "STS": [("wmean.pearson", ("all", "pearson", "wmean"), "correlation"),
            ("wmean.spearman", ("all", "spearman", "wmean"), "correlation")],
}
BOUND = {"accuracy": 0.5, "correlation": 0.005}  # the targets: points of accuracy, correlation units


def compared(task: str):
    if task.startswith("STS"):
        return COMPARED["STS"]
    return COMPARED.get(task, COMPARED["classification"])


def table(ours: dict, senteval: dict, ours_seconds: dict, sklearn: dict) -> list[dict]:
    rows = []
    for task in TASKS:  # the usual order of the tables: classification, pairs, relatedness, STS
        if task not in ours or task not in senteval["tasks"]:
            continue
        record = senteval["tasks"][task]
        for metric, path, kind in compared(task):
            theirs = record["result"]
            for key in path:
                theirs = theirs[key]
            mine = ours[task][metric]
            rows.append({"task": task, "metric": metric, "SentEval": theirs, "ours": mine,
                         "difference": mine - theirs, "within bound": abs(mine - theirs) <= BOUND[kind],
                         "SentEval seconds": record["seconds"], "our seconds": ours_seconds[task],
                         "sklearn - SentEval": sklearn[task][metric] - theirs})
    return rows


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--senteval", type=Path, help="SentEval checkout or git directory (to run SentEval)")
    ap.add_argument("--encoder", default="glove-bow", help="a baseline encoder name (see evaluate --encoder)")
    ap.add_argument("--tasks", default=",".join(TASKS), help="comma-separated, from the 13 classic tasks")
    ap.add_argument("--out", type=Path, default=ROOT / "results" / "senteval_agreement")
    ap.add_argument("--side", choices=("both", "senteval", "ours"), default="both")
    ap.add_argument("--repeat", type=int, default=3,
                    help="our side's runs, one after the other (the median of each task's seconds is reported)")
    ap.add_argument("--rerun-senteval", action="store_true",
                    help="measure SentEval again on --tasks even if stored (the other stored tasks are kept)")
    ap.add_argument("--fixtures", action="store_true", help="only rebuild the small test fixtures (tests/data)")
    ap.add_argument("--render", action="store_true", help="only rewrite the Markdown table from the stored JSON")
    args = ap.parse_args(argv)
    tasks = [t.strip() for t in args.tasks.split(",") if t.strip()]
    unknown = [t for t in tasks if t not in TASKS]
    if unknown:
        raise SystemExit(f"unknown task(s) {unknown}; choose from {', '.join(TASKS)}")
    logging.basicConfig(level=logging.WARNING)
    if args.render:
        summary = json.loads((args.out / f"{args.encoder}.json").read_text())
        return write_text(args.out / f"{args.encoder}.md", markdown(summary))

    from reproducer.data import require
    from reproducer.encoders.baselines import load_baseline
    from reproducer.evaluate import evaluate

    needs_senteval = args.fixtures or (args.side != "ours" and not (
        (args.out / f"{args.encoder}.senteval.json").is_file() and not args.rerun_senteval))
    if needs_senteval and args.senteval is None:
        raise SystemExit("--senteval PATH is needed to run SentEval (a checkout or the git directory of "
                         "facebookresearch/SentEval)")
    encoder = load_baseline(args.encoder)
    if args.fixtures:
        return build_fixtures(encoder, args.senteval)
    store = args.out / f"{args.encoder}.senteval.json"
    t0 = time.perf_counter()
    senteval = {"tasks": {}}
    if args.side in ("both", "senteval"):
        senteval = run_senteval(encoder, tasks, args.senteval, require("senteval"), store, args.rerun_senteval)
    elif store.is_file():
        senteval = json.loads(store.read_text())
    if args.side == "senteval":
        return
    import torch  # noqa: F401  (imported before either timer starts: SentEval's clock starts after its imports too)

    from reproducer.data.tokenize import clear_token_cache

    runs, walls = [], []
    for _ in range(args.repeat):  # one after the other, nothing else running: the median of each task's seconds
        clear_token_cache()  # each run tokenizes every sentence again, as the first did
        t1 = time.perf_counter()
        runs.append(evaluate(encoder, tasks, "paper", progress=False))
        walls.append(time.perf_counter() - t1)
        print(f"ours: {walls[-1]:.1f} s", flush=True)
    results = runs[0]
    if any(run.scores != results.scores for run in runs):
        raise SystemExit("our repeated runs disagree with each other: the protocol is not deterministic")
    results.seconds = {t: float(np.median([run.seconds[t] for run in runs])) for t in tasks}
    ours_total = float(np.median(walls))
    # for contrast: SentEval's scikit-learn back end (our `sklearn` config), the protocol `paper` meant before
    contrast = evaluate(encoder, tasks, "sklearn", progress=False)
    rows = table(results.scores, senteval, results.seconds, contrast.scores)
    senteval_total = sum(senteval["tasks"][t]["seconds"] for t in tasks if t in senteval["tasks"])
    ours_sum = sum(results.seconds[t] for t in tasks)
    summary = {"encoder": args.encoder, "tasks": tasks, "senteval_seconds": senteval_total,
               "ours_seconds": ours_sum, "ours_wall_seconds": ours_total, "ours_runs": args.repeat,
               "ours_run_seconds": [sum(run.seconds[t] for t in tasks) for run in runs],
               "speedup": senteval_total / ours_sum,
               "all_within_bounds": all(r["within bound"] for r in rows), "bounds": BOUND,
               "senteval_run": {k: v for k, v in senteval.items() if k != "tasks"},
               "script_seconds": time.perf_counter() - t0, "rows": rows}
    write_json(args.out / f"{args.encoder}.json", summary)
    write_text(args.out / f"{args.encoder}.md", markdown(summary))
    import pandas as pd

    frame = pd.DataFrame(rows)
    write_text(args.out / f"{args.encoder}.csv", frame.to_csv(index=False, float_format="%.4f"))
    print(frame.to_string(index=False, float_format=lambda v: f"{v:.4f}"))
    print(f"\nSentEval {senteval_total:.0f} s, ours {ours_sum:.1f} s: {summary['speedup']:.1f}x faster; "
          f"all within bounds: {summary['all_within_bounds']}")


def _runs(summary: dict) -> str:
    """How our seconds were measured: the median of repeated runs, with their range."""
    runs = summary.get("ours_run_seconds", [])
    if len(runs) < 2:
        return "one run"
    return f"each task's median of {len(runs)} runs one after the other; the runs took {min(runs):.0f}–{max(runs):.0f} s"


def markdown(summary: dict) -> str:
    """The agreement table and its summary as a Markdown fragment (included by book/evaluation.md)."""
    run = summary["senteval_run"]
    lines = ["| task | metric | SentEval | ours (`paper`) | ours − SentEval | SentEval s | ours s "
             "| `sklearn` − SentEval |", "|---|---|---:|---:|---:|---:|---:|---:|"]
    seen = set()
    for r in summary["rows"]:
        digits = 2 if r["metric"] in ("acc", "f1") else 4
        task, theirs, ours = ("", "", "") if r["task"] in seen else (
            r["task"], f"{r['SentEval seconds']:.1f}", f"{r['our seconds']:.1f}")
        seen.add(r["task"])
        diff, contrast = (0.0 if round(v, digits) == 0 else v for v in (r["difference"], r["sklearn - SentEval"]))
        lines.append(f"| {task} | {r['metric']} | {r['SentEval']:.{digits}f} | {r['ours']:.{digits}f} | "
                     f"{diff:+.{digits}f} | {theirs} | {ours} | {contrast:+.{digits}f} |")
    acc = [abs(r["difference"]) for r in summary["rows"] if r["metric"] in ("acc", "f1")]
    cor = [abs(r["difference"]) for r in summary["rows"] if r["metric"] not in ("acc", "f1")]
    skl = [abs(r["sklearn - SentEval"]) for r in summary["rows"] if r["metric"] in ("acc", "f1")]
    verdict = "every number within" if summary["all_within_bounds"] else "**not** every number within"
    lines += ["", f"Encoder `{summary['encoder']}`; {len(summary['tasks'])} tasks. SentEval (commit "
              f"`{run.get('commit', '?')[:7]}`, PyTorch {run.get('torch', '?')} on the CPU, {run.get('threads', '?')} "
              f"threads) took **{summary['senteval_seconds'] / 60:.1f} min**; our `paper` protocol "
              f"**{summary['ours_seconds']:.0f} s** ({_runs(summary)}) — **{summary['speedup']:.0f}× faster**, encoding "
              f"included in both, imports in neither. "
              f"Largest differences: {max(acc, default=0):.2f} points of accuracy, {max(cor, default=0):.4f} of "
              f"correlation ({verdict} the bounds of ±{BOUND['accuracy']} points and ±{BOUND['correlation']}). "
              f"The last column is the scikit-learn back end (`sklearn`) on the same vectors: an exact-optimum "
              f"probe, largest difference {max(skl, default=0):.2f} points."]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
