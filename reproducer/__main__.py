"""Command-line interface: ``python -m reproducer <group> <command> ...``.

    python -m reproducer data list [--verify]        datasets: files, size, cached or not
    python -m reproducer data fetch [NAMES|all]      copy/download into the cache, verified
    python -m reproducer corpus build [--max-books N] [--cased]
    python -m reproducer corpus stats [--max-books N] [--cased]
    python -m reproducer vectors word2vec [--dim 300 --epochs 5 --max-books N]
    python -m reproducer vectors sanity {glove,word2vec}
    python -m reproducer evaluate --encoder glove-bow --tasks MR,CR|all --config paper|sklearn|prototype --json out.json
    python -m reproducer evaluate --encoder results/.../uni-skip.pt [--expand word2vec] --tasks ...
    python -m reproducer evaluate --encoder results/.../MV.encoder.pt [--pooling supervised] [--view f] --tasks ...
    python -m reproducer evaluate --encoder results/.../mean-max_AAE.encoder.pt --normalize-halves --tasks ...
    python -m reproducer train MODEL --preset default [--seconds S | --steps N] [--seed K] [--out DIR]
    python -m reproducer bench train [--objectives quick-thought,consensus] [--preset default] [--profile-steps 5]
    python -m reproducer bench widths --objectives quick_thought,skip_thought --hidden 600 --seconds 60 --json out.json
    python -m reproducer gpu pack [--scale paper|smoke] [--out build/gpu-pack]   the GPU plan's inputs (CPU machine)
    python -m reproducer gpu run [--plan paper|smoke] [--pack build/gpu-pack] --out DIR   the plan (GPU machine)
    python -m reproducer book check NOTEBOOKS        committed outputs present, conventions followed
    python -m reproducer book smoke NOTEBOOKS [--out DIR]   execute at the smoke preset into DIR (temp)
    python -m reproducer book table CHAPTER N [--preset P] [--out FILE]   regenerate table N of a chapter, as CSV

Every command calls the same library functions the notebooks use.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
import warnings

from reproducer.bench import bench_table, family_objectives
from reproducer.errors import ReproducerError, ReproducerWarning
from reproducer.files import check_folder, check_writable, write_json

_CLOSED_PIPE = 141  # 128 + SIGPIPE: what a shell reports for a command whose reader went away (`| head`)
_INTERRUPTED = 130  # 128 + SIGINT: what a shell reports for a command stopped with Ctrl-C


def _size(n: float) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1000 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1000
    return f"{n:.1f} GB"


def _table(rows: list[list[str]], header: list[str]) -> str:
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows)]
    line = lambda r: "  ".join(str(x).ljust(w) for x, w in zip(r, widths)).rstrip()  # noqa: E731
    return "\n".join([line(header), line(["-" * w for w in widths])] + [line(r) for r in rows])


def _int_in(text: str, low: int, rule: str) -> int:
    """``text`` as an integer of at least ``low``, else argparse's error saying ``must be <rule>``."""
    try:
        value = int(text)
    except ValueError:
        value = low - 1  # not a number: the same message
    if value < low:
        raise argparse.ArgumentTypeError(f"must be {rule}, got {text!r}")
    return value


def positive_int(text: str) -> int:
    """argparse type: an integer of at least 1."""
    return _int_in(text, 1, "a positive integer")


def natural_int(text: str) -> int:
    """argparse type: an integer of at least 0."""
    return _int_in(text, 0, "an integer of at least 0")


def seed_int(text: str) -> int:
    """argparse type: a seed, 0 to 2**32 - 1 (what NumPy's generators take)."""
    value = natural_int(text)
    if value >= 2**32:
        raise argparse.ArgumentTypeError(f"must be at most 2**32 - 1 = {2**32 - 1}, got {text!r}")
    return value


def positive_float(text: str) -> float:
    """argparse type: a finite number above 0."""
    import math

    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"must be a finite number above 0, got {text!r}")
    return value


def _verified(name: str, failed: dict) -> int:
    """The files of dataset ``name`` that pass verification; a dataset with some files on disk but not all good goes
    into ``failed`` (name -> {path: why}). A dataset not fetched at all has not failed."""
    from reproducer.data import dataset
    from reproducer.data.registry import problems

    total, bad = len(dataset(name).files), problems(name)
    if bad and sum(why == "missing" for why in bad.values()) < total:  # some of it is on disk
        failed[name] = bad
    return total - len(bad)


def cmd_data_list(args: argparse.Namespace) -> int:
    from reproducer.data import all_datasets, data_dir, mirror, status

    rows, failed = [], {}
    for name, ds in all_datasets().items():
        total = len(ds.files)
        present = _verified(name, failed) if args.verify else status(name)[0]
        state = "yes" if present == total else ("no" if present == 0 else f"partial ({present}/{total})")
        rows.append([name, str(total), _size(ds.size), state, ds.description])
    print(_table(rows, ["dataset", "files", "size", "verified" if args.verify else "cached", "description"]))
    print(f"\ncache: {data_dir()}\nsource: {mirror() or 'upstream URLs (set REPRODUCER_DATA_MIRROR to use a mirror)'}")
    if not failed:
        return 0
    print("\nfailed verification:")
    for bad in failed.values():
        for path, why in bad.items():
            print(f"{path}: {why}")
    count = sum(len(bad) for bad in failed.values())
    print(f"error: {count} file(s) failed verification; fetch them again: python -m reproducer data fetch "
          f"{' '.join(failed)}", file=sys.stderr)
    return 1


def cmd_data_fetch(args: argparse.Namespace) -> None:
    from reproducer.data import fetch

    names = args.names or ["all"]
    t0 = time.perf_counter()
    paths = fetch(names, force=args.force, progress=not args.quiet)
    for p in paths:
        print(f"ok  {p}")
    print(f"fetched and verified {len(paths)} dataset(s) in {time.perf_counter() - t0:.1f} s")


def _corpus_config(args: argparse.Namespace):
    from reproducer.data.corpus import CorpusConfig

    return CorpusConfig(lowercase=not args.cased, max_books=args.max_books)


def cmd_corpus_build(args: argparse.Namespace) -> None:
    from reproducer.data.corpus import build_corpus

    path = build_corpus(_corpus_config(args), workers=args.workers, rebuild=args.rebuild)
    meta = json.loads((path / "meta.json").read_text())
    print(f"corpus at {path} (built in {meta['build_seconds']:.0f} s with {meta['workers']} workers)")
    cmd_corpus_stats(args)


def cmd_corpus_stats(args: argparse.Namespace) -> None:
    from reproducer.data.corpus import build_corpus

    meta = json.loads((build_corpus(_corpus_config(args)) / "meta.json").read_text())
    if getattr(args, "json", None):
        write_json(args.json, {k: meta[k] for k in ("config", "builder_version", "build_seconds", "workers",
                                                     "stats")})
    keys = list(next(iter(meta["stats"].values())))
    rows = [[k] + [f"{meta['stats'][s][k]:,.1f}" if isinstance(meta['stats'][s][k], float)
                   else f"{meta['stats'][s][k]:,}" for s in meta["stats"]] for k in keys]
    print(_table(rows, ["statistic"] + list(meta["stats"])))


def cmd_vectors_word2vec(args: argparse.Namespace) -> None:
    from reproducer.data.vectors import Word2VecConfig, train_word2vec, word_vector_sanity

    wv = train_word2vec(_corpus_config(args), Word2VecConfig(vector_size=args.dim, epochs=args.epochs),
                        retrain=args.retrain)
    print(f"{wv!r}: trained in {wv.meta['train_seconds']:.0f} s on {wv.meta['corpus_words']:,} tokens")
    _report({"vectors": wv.name, **wv.meta, "sanity": word_vector_sanity(wv)}, args.json)


def cmd_vectors_sanity(args: argparse.Namespace) -> None:
    from reproducer.data.vectors import load_glove, train_word2vec, word_vector_sanity

    wv = load_glove() if args.name == "glove" else train_word2vec()
    _report({"vectors": wv.name, "words": len(wv), "dim": wv.dim, "sanity": word_vector_sanity(wv)}, args.json)


def _report(record: dict, path: str | None) -> None:
    print(json.dumps(record, indent=1))
    if path:
        write_json(path, record)


def cmd_evaluate(args: argparse.Namespace) -> None:
    from reproducer.encoders.baselines import load_baseline
    from reproducer.evaluate import CONFIGS, TASKS, evaluate, resolve_tasks

    tasks = resolve_tasks(args.tasks)  # fail on a bad task name or config before loading the encoder
    if args.config not in CONFIGS:
        raise ReproducerError(f"Unknown evaluation config {args.config!r}; choose one of {', '.join(CONFIGS)}.")
    if args.encoder.endswith(".pt") or "/" in args.encoder:  # a trained encoder saved with its save() method
        from reproducer.encoders.bundles import load_encoder

        options = {"pooling": args.pooling, "view": args.view, "normalize_halves": args.normalize_halves or None}
        encoder = load_encoder(args.encoder, device=args.device, **{k: v for k, v in options.items() if v is not None})
        if args.expand and not getattr(encoder, "expandable", hasattr(encoder, "expanded")):
            raise ReproducerError(f"{encoder.name} reads fixed pre-trained word vectors: it needs no --expand.")
        if args.expand:
            from reproducer.data.vectors import load_glove, train_word2vec

            encoder, reports = encoder.expanded(train_word2vec() if args.expand == "word2vec" else load_glove())
            for report in reports if isinstance(reports, list) else [reports]:
                print(f"vocabulary expansion with {args.expand}: fitted on {report.shared:,} shared words "
                      f"(R² {report.r2:.3f}), {report.added:,} words added")
    elif args.expand or args.normalize_halves:
        option = "--expand" if args.expand else "--normalize-halves"
        raise ReproducerError(f"{option} applies to a trained encoder file, not to a baseline.")
    else:
        from reproducer.encoders.trained import refuse_view_options

        refuse_view_options(args.encoder, {"view": args.view, "pooling": args.pooling})
        encoder = load_baseline(args.encoder)
    t0 = time.perf_counter()
    results = evaluate(encoder, [t.name for t in tasks], args.config, progress=not args.quiet)
    total = time.perf_counter() - t0
    rows = []
    for task, metrics in results.scores.items():
        main = TASKS[task].main_metric
        extra = ", ".join(f"{m}={v:.3f}" for m, v in metrics.items()
                          if m != main and "." not in m and m not in ("n", "epochs"))
        rows.append([task, main, f"{metrics[main]:.3f}", f"{results.seconds[task]:.1f}", extra])
    print(_table(rows, ["task", "metric", "value", "seconds", "other metrics"]))
    print(f"\n{results.encoder}, config {results.config}: {total:.0f} s in all")
    if args.json:
        record = results.to_json()
        record["total_seconds"] = total
        write_json(args.json, record)
        print(f"wrote {args.json}")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m reproducer", description=__doc__.split("\n\n")[0])
    groups = parser.add_subparsers(dest="group", required=True)

    data = groups.add_parser("data", help="the dataset registry").add_subparsers(dest="cmd", required=True)
    p = data.add_parser("list", help="every dataset: files, size, whether it is cached")
    p.add_argument("--verify", action="store_true", help="check every checksum, not only presence")
    p.set_defaults(func=cmd_data_list)
    p = data.add_parser("fetch", help="copy or download datasets into the cache and verify them")
    p.add_argument("names", nargs="*", help="dataset names, or 'all' (default)")
    p.add_argument("--force", action="store_true", help="fetch again even if the cache is valid")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    p.set_defaults(func=cmd_data_fetch)

    corpus = groups.add_parser("corpus", help="the Gutenberg sentence corpus").add_subparsers(dest="cmd", required=True)
    for name, func, help_ in (("build", cmd_corpus_build, "build (or reuse) the tokenized corpus"),
                              ("stats", cmd_corpus_stats, "corpus statistics (Skip-Thoughts Table 1 form)")):
        p = corpus.add_parser(name, help=help_)
        p.add_argument("--max-books", type=positive_int, default=None, help="first N books of each split only")
        p.add_argument("--cased", action="store_true", help="keep case (default: lower-case)")
        if name == "stats":
            p.add_argument("--json", help="also write the statistics to this JSON file")
        if name == "build":
            p.add_argument("--workers", type=int, default=None, help="processes (default: all cores)")
            p.add_argument("--rebuild", action="store_true", help="build even if cached")
        p.set_defaults(func=func)

    vectors = groups.add_parser("vectors", help="word vectors").add_subparsers(dest="cmd", required=True)
    p = vectors.add_parser("word2vec", help="train (or reuse) word2vec on the corpus and check it")
    p.add_argument("--dim", type=positive_int, default=300)
    p.add_argument("--epochs", type=positive_int, default=5)
    p.add_argument("--max-books", type=positive_int, default=None)
    p.add_argument("--cased", action="store_true")
    p.add_argument("--retrain", action="store_true")
    p.add_argument("--json", help="also write the record to this JSON file")
    p.set_defaults(func=cmd_vectors_word2vec)
    p = vectors.add_parser("sanity", help="analogy and word-similarity scores of a set of vectors")
    p.add_argument("name", choices=["glove", "word2vec"])
    p.add_argument("--json", help="also write the scores to this JSON file")
    p.set_defaults(func=cmd_vectors_sanity)
    p = groups.add_parser("evaluate", help="evaluate an encoder on the SentEval-equivalent tasks")
    p.add_argument("--encoder", required=True,
                   help="glove-bow, sif-glove, word2vec-bow, minilm, random-4800, or the path of a trained "
                        "encoder (.pt, written by an encoder's save(): every trained model of the book)")
    p.add_argument("--expand", choices=["word2vec", "glove"],
                   help="vocabulary expansion of a trained encoder (Kiros et al. 2015, 3.1)")
    p.add_argument("--pooling", default=None, choices=["unsupervised", "supervised"],
                   help="consensus-maximisation encoders: Tang & de Sa's pooling rule (Table 2)")
    p.add_argument("--view", default=None,
                   help="consensus-maximisation encoders: f, g (or f1, g2, ...) or ensemble (default)")
    p.add_argument("--normalize-halves", action="store_true",
                   help="mean-max autoencoders: L2-normalise z_max and z_mean separately (the authors' evaluation)")
    p.add_argument("--device", default=None, help="cuda or cpu (default: cuda when available)")
    p.add_argument("--tasks", default="all", help="comma-separated task names, or 'all' (default)")
    p.add_argument("--config", default="paper",
                   help="paper (default): SentEval's PyTorch protocol, what the papers report; fast: SentEval's "
                        "prototyping config; sklearn: SentEval's scikit-learn back end; prototype: the scikit-learn "
                        "one with fewer folds (quick); the list: reproducer.evaluate.CONFIGS")
    p.add_argument("--json", help="write {encoder, config, results, seconds} to this file")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    p.set_defaults(func=cmd_evaluate)

    p = groups.add_parser("train", help="train one model of the book into its chapter's files (resumes)")
    p.add_argument("model", help="a model of reproducer.papers.registry, e.g. uni-QT, 'mean-max AAE', MV, PP")
    p.add_argument("--preset", default="default", help="smoke | default | paper (default: default)")
    budget = p.add_mutually_exclusive_group()
    budget.add_argument("--seconds", type=positive_float, default=None,
                        help="training seconds (replaces the preset's steps; not reproducible: how many steps fit "
                             "in them depends on the machine and its load)")
    budget.add_argument("--steps", type=positive_int, default=None, help="optimiser steps (replaces the preset's budget)")
    p.add_argument("--seed", type=seed_int, default=0)
    p.add_argument("--out", default=None, help="folder of checkpoints/ (default: results/<chapter>/<preset>)")
    p.add_argument("--eval-tasks", default=None, help="comma-separated tasks scored at the preset's evaluation points")
    p.add_argument("--precision", default=None, choices=["auto", "fp32", "bf16", "fp16"],
                   help="autocast (default: the preset's, auto: mixed precision on a GPU, fp32 on a CPU)")
    p.add_argument("--compile", action="store_true", help="torch.compile the model")
    p.add_argument("--device", default=None, help="cuda or cpu (default: cuda when available)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_train)

    bench = groups.add_parser("bench", help="benchmarks").add_subparsers(dest="cmd", required=True)
    p = bench.add_parser("train", help="every objective at a preset: sentences/s, GFLOP/s, %% of sgemm peak, padding")
    p.add_argument("--objectives", default=",".join(family_objectives()),
                   help=f"comma-separated, from: {', '.join(family_objectives())} (default: all)")
    p.add_argument("--preset", default="default", help="model sizes and batch sizes of this preset (default: default)")
    p.add_argument("--seconds", type=positive_float, default=30, help="training seconds per objective (default 30)")
    p.add_argument("--profile-steps", type=natural_int, default=0, help="then profile this many steps: top operators")
    p.add_argument("--max-books", type=positive_int, default=None, help="corpus books (default: the preset's)")
    p.add_argument("--seed", type=seed_int, default=0)
    p.add_argument("--device", default=None, help="cuda or cpu (default: cuda when available)")
    p.add_argument("--json", help="write the measurements to this file")
    p.set_defaults(func=cmd_bench_train)
    p = bench.add_parser("epoch", help="useful TFLOP per epoch of our data at a preset's sizes, and hours on a GPU")
    p.add_argument("--objectives", default=",".join(family_objectives()), help="comma-separated (default: all)")
    p.add_argument("--preset", default="paper")
    p.add_argument("--gpu-tflops", type=positive_float, default=100.0,
                   help="sustained GPU rate assumed (default 100 TFLOP/s)")
    p.add_argument("--json", help="write the rows to this file")
    p.set_defaults(func=cmd_bench_epoch)
    p = bench.add_parser("widths", help="training throughput of objectives at one encoder width (QT vs ST, AAE)")
    p.add_argument("--objectives", default="quick_thought,skip_thought", help="comma-separated: quick_thought, skip_thought, aae, rae (mean-max autoencoders)")
    p.add_argument("--hidden", type=positive_int, default=600, help="GRU width H (default 600)")
    p.add_argument("--word-dim", type=positive_int, default=300, help="word vector size W (default 300)")
    p.add_argument("--vocab", type=positive_int, default=20000, help="vocabulary size incl. specials (default 20000)")
    p.add_argument("--seconds", type=positive_float, default=60, help="training seconds per objective (default 60)")
    p.add_argument("--max-books", type=positive_int, default=None, help="corpus books per split (default: all)")
    p.add_argument("--n-sampled", type=natural_int, default=0, help="skip-thought sampled softmax size (default 0: exact)")
    p.add_argument("--batch-size", type=natural_int, default=0, help="one batch size for all (default 0: each paper's)")
    p.add_argument("--device", default=None, help="cuda or cpu (default: cuda when available)")
    p.add_argument("--json", help="write the measurements to this file")
    p.set_defaults(func=cmd_bench_widths)

    gpu = groups.add_parser("gpu", help="the prepared GPU plan").add_subparsers(dest="cmd", required=True)
    p = gpu.add_parser("pack", help="build the pack the GPU run reads (corpus ids, vocabulary, task data, nltk)")
    p.add_argument("--out", default="build/gpu-pack", help="pack folder (default build/gpu-pack, git-ignored)")
    p.add_argument("--scale", default="paper", choices=["paper", "smoke"], help="paper: the whole corpus; smoke: 3 books")
    p.add_argument("--rebuild", action="store_true", help="build even if a complete pack of this scale is there")
    p.set_defaults(func=cmd_gpu_pack)
    p = gpu.add_parser("run", help="run the GPU plan from a pack: CUDA check, bench, uni-QT at paper sizes, scores")
    p.add_argument("--pack", default="build/gpu-pack", help="the pack folder (default build/gpu-pack)")
    p.add_argument("--out", required=True, help="output folder (on the device machine: $OUT)")
    p.add_argument("--plan", default="paper", choices=["paper", "smoke"], help="paper (a GPU) or smoke (the dry run)")
    p.add_argument("--device", default=None, help="cuda or cpu (default: cuda when available)")
    p.add_argument("--train-steps", type=positive_int, default=None, help="replace every model's training steps")
    p.add_argument("--bench-seconds", type=positive_float, default=None, help="replace the plan's seconds per bench run")
    p.add_argument("--no-check", action="store_true", help="skip the CUDA check (pytest -m cuda)")
    p.set_defaults(func=cmd_gpu_run)

    book = groups.add_parser("book", help="the book's notebooks").add_subparsers(dest="cmd", required=True)
    p = book.add_parser("check", help="fail unless every notebook follows the conventions and has outputs")
    p.add_argument("notebooks", nargs="+")
    p.set_defaults(func=cmd_book_check)
    p = book.add_parser("smoke", help="execute notebooks at the smoke preset into a temporary folder")
    p.add_argument("notebooks", nargs="+")
    p.add_argument("--out", default=None, help="folder for the executed copies and results (default: a temp folder)")
    p.set_defaults(func=cmd_book_smoke)
    p = book.add_parser("table", help="regenerate one table of a chapter from its cached results, as CSV")
    p.add_argument("chapter", help="the chapter's notebook, e.g. 02_quick_thoughts (or a path to an .ipynb)")
    p.add_argument("number", type=positive_int, help="the table's number on its page (its 'Regenerate' line says it)")
    p.add_argument("--preset", default="default", help="the preset whose results are read (default: the book's)")
    p.add_argument("--out", default=None, help="the CSV file (default: the name of the table's download link)")
    p.set_defaults(func=cmd_book_table)
    return parser


def _maybe_write(path: str | None, record) -> int:
    """Write ``record`` as JSON to ``path`` when one is given; the command's exit status."""
    if path:
        write_json(path, record)
        print(f"wrote {path}")
    return 0


def cmd_train(args) -> int:
    from reproducer.train_command import train_model

    summary = train_model(args.model, args.preset, seconds=args.seconds, steps=args.steps, seed=args.seed,
                          out=args.out, eval_tasks=args.eval_tasks.split(",") if args.eval_tasks else None,
                          device=args.device, progress=not args.quiet, precision=args.precision,
                          compile=args.compile or None)
    if summary["processes"] == 1 or int(os.environ.get("RANK", "0")) == 0:
        print(f"{summary['model']}: {summary['steps']} steps ({summary['batches']} batches) in "
              f"{summary['training_seconds']:.1f} s of training on {summary['processes']} process(es), final loss "
              f"{summary['final_loss']}; checkpoint {summary['checkpoint']}, bundle {summary['bundle']}")
    return 0


def cmd_bench_train(args) -> int:
    from reproducer.bench import bench_train

    overrides = {"max_books": args.max_books} if args.max_books else {}
    out = bench_train(args.objectives.split(","), preset=args.preset, seconds=args.seconds, seed=args.seed,
                           device=args.device, profile_steps=args.profile_steps, **overrides)
    print(bench_table(out["runs"]).to_string(index=False))
    for r in out["runs"]:
        if "profile" in r:
            print(f"  {r['objective']:>13}  {r['profile']['matmul_share']:6.1%} of the {r['profile']['time']} time in "
                  "matrix products")
        for op in r.get("profile", {}).get("top", []):
            print(f"  {r['objective']:>13}  {op['share']:6.1%}  {op['ms_per_step']:8.2f} ms/step  {op['op']}")
    return _maybe_write(args.json, out)


def cmd_bench_epoch(args) -> int:
    import pandas as pd

    from reproducer.bench import epoch_cost

    rows = epoch_cost(args.objectives.split(","), preset=args.preset, gpu_flops=args.gpu_tflops * 1e12)
    print(pd.DataFrame(rows).drop(columns=["gpu_flops_assumed"]).round(3).to_string(index=False))
    return _maybe_write(args.json, rows)


def cmd_bench_widths(args) -> int:
    from reproducer.papers.widths import bench_widths

    out = bench_widths(args.objectives.split(","), hidden=args.hidden, word_dim=args.word_dim, vocab_size=args.vocab,
                      seconds=args.seconds, max_books=args.max_books, n_sampled=args.n_sampled, device=args.device,
                      batch_size=args.batch_size)
    rows = [[r["objective"], r["softmax"], str(r["batch_size"]), str(r["steps"]), f"{r['sentences_per_second']:.1f}",
             f"{r['minutes_per_1000_batches']:.1f}", f"{r['peak_memory_bytes'] / 2**20:.0f} MiB"] for r in out["runs"]]
    print(_table(rows, ["objective", "softmax", "batch", "steps", "sentences/s", "min/1000 batches", "peak memory"]))
    for name, ratio in out["speed_ratio"].items():
        print(f"speed ratio {name}: {ratio:.2f}x")
    return _maybe_write(args.json, out)


def cmd_gpu_pack(args) -> int:
    from reproducer.gpu_pack import build_pack

    build_pack(args.out, args.scale, rebuild=args.rebuild)
    return 0


def cmd_gpu_run(args) -> int:
    from reproducer.gpu_run import check_returnable, plan_of, run

    plan = plan_of(args.plan, train_steps=args.train_steps, bench_seconds=args.bench_seconds)
    record = run(args.pack, args.out, plan, device=args.device, check=not args.no_check)
    problems = check_returnable(args.out)
    if problems:
        print(f"warning: {args.out} would not all come back from a device call: {'; '.join(problems)}", file=sys.stderr)
    failed = [name for name, stage in record["stages"].items() if stage["status"] != "ok"]
    return 1 if failed or problems else 0


def _existing_notebooks(paths: list[str]) -> list[str]:
    """``paths`` when every one is a notebook file; :class:`ReproducerError` naming the missing ones otherwise."""
    missing = [p for p in paths if not os.path.isfile(p)]
    if missing:
        raise ReproducerError(f"No such notebook: {', '.join(missing)} (e.g. notebooks/00_data.ipynb).")
    return paths


def cmd_book_check(args) -> int:
    from reproducer.notebook import check_conventions, check_outputs

    _existing_notebooks(args.notebooks)

    for path in args.notebooks:
        check_conventions(path)
    check_outputs(args.notebooks)
    print(f"{len(args.notebooks)} notebooks: conventions followed, outputs committed.")
    return 0


def cmd_book_smoke(args) -> int:
    from reproducer.notebook import smoke

    t0 = time.perf_counter()
    seconds = smoke(_existing_notebooks(args.notebooks), args.out)
    print(f"smoke: {len(seconds)} notebooks in {time.perf_counter() - t0:.1f} s")
    return 0


def cmd_book_table(args) -> int:
    from pathlib import Path

    from reproducer.notebook import notebook_path
    from reproducer.table_command import regenerate_table

    path = Path(args.chapter) if args.chapter.endswith(".ipynb") else notebook_path(args.chapter)
    regenerate_table(path, args.number, args.preset, args.out)
    return 0


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    """The library's warnings as one ``warning:`` line on stderr; any other as Python prints it."""
    if issubclass(category, ReproducerWarning):
        print(f"warning: {message}", file=sys.stderr)
    else:
        sys.stderr.write(warnings.formatwarning(message, category, filename, lineno, line))


def _silence_stdout() -> None:
    """Point stdout at /dev/null once its reader has gone, so that Python's flush at exit stays quiet."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())


def main(argv: list[str] | None = None) -> int:
    """Run one command; its exit status: 0, 1 when a check failed, 2 for an error (one ``error:`` line), 141 when
    the reader of the output went away."""
    args = build_parser().parse_args(argv)
    try:
        with warnings.catch_warnings():
            warnings.showwarning = _show_warning
            if getattr(args, "json", None):
                check_writable(args.json, "--json file")  # before the work, not after it
            if getattr(args, "out", None):
                check_folder(args.out, "--out")
            if getattr(args, "device", None):
                from reproducer.runtime import default_device

                default_device(args.device)  # an unknown or missing device fails now, not after loading
            code = args.func(args) or 0
        sys.stdout.flush()  # a closed pipe fails here, not in Python's flush at exit
    except ReproducerError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        _silence_stdout()
        return _CLOSED_PIPE
    except KeyboardInterrupt:  # Ctrl-C: one line, no traceback; a training run resumes from its last checkpoint
        again = " Run the same command to resume from its last checkpoint." if args.func is cmd_train else ""
        print(f"\ninterrupted.{again}", file=sys.stderr)
        return _INTERRUPTED
    return code


if __name__ == "__main__":
    sys.exit(main())
