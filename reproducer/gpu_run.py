"""The GPU plan: one call that uses a rare, short GPU slice well (``make gpu-run``; ``python -m reproducer gpu run``).

A lent GPU comes for about 15 minutes, machine start included, with no network and without our data or
papermill/gensim/nltk. So the plan is prepared here and runs in one call from a pack built on the CPU machine
(:mod:`reproducer.gpu_pack`), importing the library only (never a notebook), in stages that each record their
result even when another fails:

1. **CUDA check** — ``pytest -m cuda`` (``tests/test_cuda.py``): autocast (bf16, fp16 with a gradient scaler),
   batches on the device, evaluation on the device against the CPU, two steps under ``torch.compile``. A broken GPU
   path is caught first; the later stages run anyway and say what failed.
2. **Bench** — every objective of ``bench train`` (:func:`~reproducer.bench.family_objectives`) at the plan's
   presets (the ``paper`` sizes) for a few seconds each, with a few profiled steps, on the pack's corpus: sentences/s
   (overall and after start-up), useful TFLOP/s and that as a percentage of the bf16 matrix-product rate measured in
   the same process.
3. **Train** — three models at the ``paper`` sizes (:data:`~reproducer.gpu_plans.PAPER_MODELS`: uni-QT, the MV
   consensus model, the mean-max AAE), each for a fixed number of steps, the held-out loss recorded along the way,
   then scored on the device with the ``paper`` protocol on its paper's main table (Logeswaran & Lee's Table 1, Tang
   & de Sa's Table 6, Zhang et al.'s Table 1), with per-item outcomes (the claims' bootstrap).

Everything goes to one output folder, within what a device call brings back (at most 8 files of 16 MiB):
``plan.json`` (all measurements, rewritten after every stage), ``summary.md`` (printed last), ``cuda_check.txt``
and per trained model ``<model>.eval.json`` (:class:`~reproducer.evaluate.harness.Results` with items). JSON above
:data:`~reproducer.files.COMPRESS_ABOVE` characters is written as ``.json.gz``, as the repository stores results, so the
folder can be committed as it comes back (``results/gpu/<date>/``). The ``smoke``
plan runs the same stages at smoke sizes on the CPU in seconds: CI's dry run, so the plan cannot rot.
"""
from __future__ import annotations

import dataclasses
import os
import platform
import re
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path

from reproducer.errors import ReproducerError
from reproducer.files import COMPRESS_ABOVE, write_json, write_text
from reproducer.gpu_plans import MAX_FILE_BYTES, MAX_FILES, Plan, PlannedModel, plan_of

ROOT = Path(__file__).resolve().parents[1]


def environment(device) -> dict:
    """What the run ran on: Python, torch, CUDA and cuDNN versions, the GPU's name and memory."""
    import torch

    env = {"python": platform.python_version(), "torch": torch.__version__, "device": str(device),
           "cuda": torch.version.cuda, "cpu_count": os.cpu_count(), "hostname": platform.node()}
    if device.type == "cuda":
        props = torch.cuda.get_device_properties(device)
        env.update(gpu=props.name, gpu_memory_gib=round(props.total_memory / 2**30, 1),
                   multiprocessors=props.multi_processor_count, cudnn=torch.backends.cudnn.version(),
                   bf16=torch.cuda.is_bf16_supported())
    return env


class _Stages:
    """Runs the stages, each timed, each failure recorded (with its traceback) without stopping the others; the
    record is rewritten to ``plan.json`` after every stage, so a run cut off by its time limit keeps what it did."""

    def __init__(self, out: Path, record: dict, progress: bool):
        self.out, self.record, self.progress = out, record, progress

    def run(self, name: str, work) -> object:
        t0 = time.perf_counter()
        self.say(f"== {name}")
        try:
            result, status = work(), "ok"
        except Exception as e:  # noqa: BLE001 -- a stage's failure is a result; the plan goes on
            result, status = None, f"failed: {type(e).__name__}: {e}"
            self.record.setdefault("errors", {})[name] = traceback.format_exc()
            self.say(f"   {status}")
        self.record["stages"][name] = {"status": status, "seconds": round(time.perf_counter() - t0, 1)}
        self.save()
        return result

    def save(self) -> None:
        """``plan.json`` and ``summary.md`` as they stand (``complete`` false until the last stage ends)."""
        write_json(self.out / "plan.json", self.record, compress_above=COMPRESS_ABOVE)
        write_text(self.out / "summary.md", summary(self.record))

    def say(self, text: str) -> None:
        if self.progress:
            print(text, flush=True)


def cuda_check(out: Path, device, timeout: float, site: Path | None) -> dict:
    """``pytest -m cuda tests/test_cuda.py`` on ``device`` in a subprocess (its log to ``out``): passed, failed,
    skipped, the exit status."""
    env = {**os.environ, "REPRODUCER_TEST_DEVICE": str(device), "PYTHONUNBUFFERED": "1"}
    if site is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(site), str(ROOT), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    command = [sys.executable, "-m", "pytest", "-m", "cuda", "-q", "-p", "no:cacheprovider", "-o", "addopts=-ra",
               str(ROOT / "tests" / "test_cuda.py")]
    try:
        done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)
        text, code = done.stdout + done.stderr, done.returncode
    except subprocess.TimeoutExpired as e:  # its captured output may come back as bytes
        parts = [p.decode(errors="replace") if isinstance(p, bytes) else p or "" for p in (e.stdout, e.stderr)]
        text, code = "".join(parts) + f"\n(stopped after {timeout:.0f} s)", None
    write_text(out, text)
    counts = {}
    for word in ("passed", "failed", "skipped", "error"):
        found = re.findall(rf"(\d+) {word}", text)
        counts[word] = int(found[-1]) if found else 0
    return {**counts, "returncode": code, "ok": code == 0}


def bench(plan: Plan, pack, device, say=print, objectives=None) -> list[dict]:
    """Every objective (of :func:`~reproducer.bench.family_objectives`, or those named in ``objectives``) at every
    ``plan.bench_presets`` for ``plan.bench_seconds`` each, on the pack's corpus, in this process (one after the
    other); "% of peak" against the bf16 matrix-product rate on a GPU (fp32 on a CPU: no bf16 speed-up there),
    measured once here. At the last preset (the paper's sizes) each run ends with ``plan.profile_steps`` profiled
    steps (``profile``: top kernels, the share of device time in matrix products, the share of wall time the device
    sat idle). A failing objective is a row with its error."""
    import torch

    from reproducer.bench import family_objectives, measure_objective
    from reproducer.flops import sgemm_peak

    dtype = "bfloat16" if device.type == "cuda" else "float32"
    peak = sgemm_peak(device=device, dtype=dtype)
    say(f"   {dtype} matrix-product rate: {peak / 1e12:.1f} TFLOP/s")
    rows = []
    for preset_name in plan.bench_presets:
        for objective in objectives or family_objectives():
            try:
                profiled = plan.profile_steps if preset_name == plan.bench_presets[-1] else 0
                row = measure_objective(objective, preset_name, plan.bench_seconds, device=str(device),
                                        data_of=pack.training_data, peak=peak, peak_dtype=dtype,
                                        profile_steps=profiled)
            except Exception as e:  # noqa: BLE001 -- e.g. out of memory at one size: the others still count
                row = {"objective": objective, "preset": preset_name, "error": f"{type(e).__name__}: {e}"}
            if device.type == "cuda":
                torch.cuda.empty_cache()
            rows.append(row)
            say(f"   {preset_name:>8} {objective:>13}: " + (row["error"] if "error" in row else
                f"{row['sentences_per_second']:,.0f} sentences/s, {row['gflops_per_second'] / 1e3:.2f} TFLOP/s, "
                f"{row['percent_of_peak']:.1f}% of peak"))
    return rows


def train_and_score(planned: PlannedModel, plan: Plan, pack, device, out: Path, say=print) -> dict:
    """Train ``planned.name`` (a trained variant of the registry) through its family at ``plan.train_preset`` for
    ``planned.steps`` steps on the pack's data for it, the held-out loss at ``plan.eval_points`` points along the way;
    then score it with ``plan.eval_config`` on its tasks (``plan.eval_tasks`` when given), written to
    ``<name>.eval.json``. Mixed precision (``auto``) first; if that fails, fp32 for half the steps (slower: it must
    fit the same slice; the record says so). Returns the training record."""
    from reproducer.evaluate import evaluate
    from reproducer.evaluate.training_curve import held_out_loss
    from reproducer.papers import registry

    name = planned.name
    entry = registry.model(name)
    if entry.variant is None:
        raise ReproducerError(f"{name} is {'a baseline' if entry.family == 'baseline' else 'a combination'}: the "
                              "plan trains a variant of a family.")
    fam, variant = registry.family(entry.family), entry.variant
    failures, steps = {}, planned.steps
    for precision in ("auto", "fp32"):
        settings = registry.preset(fam.name, plan.train_preset, max_seconds=None, max_steps=steps, eval_every=None,
                                   eval_steps=max(1, steps // plan.eval_points), precision=precision)
        data = pack.training_data(fam.name, variant, settings)
        packed = fam.objective().sampler(variant, settings, data, seed=0).steps_per_epoch
        if steps > packed:
            raise ReproducerError(f"{name}: {steps:,} steps of {settings.batch_size} would read the pack's "
                                  f"{pack.meta['train_sentences']:,} training sentences more than once ({packed:,} "
                                  "steps): a pack holds what its scale's plans train on (reproducer.gpu_pack."
                                  "planned_sentences); plan fewer steps, or raise the plan's and build the pack again.")
        valid = pack.training_data(fam.name, variant, settings, split="valid")
        sampler = fam.objective().sampler(variant, settings, valid, seed=0)
        held = [sampler.batch(i) for i in range(plan.held_out_batches)]
        t0 = time.perf_counter()
        try:
            fitted = fam.fit(variant, settings, data, evaluate=held_out_loss(held), device=str(device),
                             progress=False)
            break
        except Exception as e:  # noqa: BLE001 -- e.g. a kernel without bf16: fp32 next, for half the steps
            failures[precision] = f"{type(e).__name__}: {e}"
            steps = max(1, steps // 2)
            say(f"   {name} at precision {precision} failed: {failures[precision]}")
    else:
        raise ReproducerError(f"{name} failed at every precision: {failures}")
    train_wall = time.perf_counter() - t0
    log = fitted.log
    # an epoch of our corpus: the packed part's batches scaled to the whole training split (the pack holds its first
    # books, what the plans read: reproducer.gpu_pack.planned_sentences)
    epoch = fitted.batches.__self__.steps_per_epoch / pack.corpus_fraction
    say(f"   {name}: {log.step:,} steps ({log.step / epoch:.2f} epochs) in {log.seconds:.0f} s of training")
    t0 = time.perf_counter()
    tasks = list(plan.eval_tasks or planned.tasks)
    results = evaluate(fitted.encoder, tasks, plan.eval_config, progress=False)
    written = write_json(out / f"{name}.eval.json", results.to_json(), compress_above=COMPRESS_ABOVE)
    from reproducer.train import resolve_precision

    return {"model": name, "preset": plan.train_preset, "planned_steps": planned.steps, "settings": settings.to_dict(),
            "precision": resolve_precision(settings.precision, device), "failed_precisions": failures,
            "steps": log.step, "epochs": log.step / epoch, "batches_per_epoch": round(epoch),
            "training_seconds": log.seconds, "train_wall_seconds": train_wall,
            "eval_seconds": time.perf_counter() - t0, "sentences_per_second": log.examples_per_second,
            "parameters": log.parameters, "log": log.to_dict(), "scores": results.scores,
            "eval_file": written.name, "eval_config": plan.eval_config}


def summary(record: dict) -> str:
    """One screen of Markdown: where it ran, each stage, the bench table and the trained models' main scores."""
    from reproducer.evaluate.tasks import TASKS

    env, lines = record["environment"], []
    lines.append(f"# GPU plan `{record['plan']['name']}` — {record['started']}")
    lines.append(f"{env.get('gpu', env['device'])}, torch {env['torch']} (CUDA {env.get('cuda')}), Python "
                 f"{env['python']}; {record.get('wall_seconds', 0):.0f} s wall in all")
    if not record.get("complete", True):
        done = ", ".join(record["stages"]) or "none"
        lines.append(f"\n**Incomplete**: this run stopped before its end (cut off, or still running); stages "
                     f"recorded: {done}.")
    lines.append("")
    lines += [f"- {name}: {s['status']} ({s['seconds']:.0f} s)" for name, s in record["stages"].items()]
    check = record.get("cuda_check")
    if check:
        lines.append(f"- CUDA check: {check['passed']} passed, {check['failed']} failed, {check['skipped']} skipped")
    rows = record.get("bench") or []
    if rows:
        lines += ["", "| preset | objective | sentences/s | after start-up | TFLOP/s | % of peak | memory (GiB) |",
                  "|---|---|---|---|---|---|---|"]
        for r in rows:
            if "error" in r:
                lines.append(f"| {r['preset']} | {r['objective']} | {r['error'][:60]} | | | | |")
                continue
            steady = r.get("steady_sentences_per_second")
            lines.append(f"| {r['preset']} | {r['objective']} | {r['sentences_per_second']:,.0f} | "
                         f"{'–' if steady is None else f'{steady:,.0f}'} | {r['gflops_per_second'] / 1e3:.3g} | "
                         f"{r['percent_of_peak']:.1f} | {r['peak_memory_bytes'] / 2**30:.1f} |")
    profiled = [r for r in rows if r.get("profile")]
    if profiled:
        lines += ["", "Where a step's time goes (the last preset, a few profiled steps):", "",
                  "| objective | ms/step | in matrix products | device idle | top kernels |", "|---|---|---|---|---|"]
        for r in profiled:
            prof = r["profile"]
            idle = "–" if prof["idle_share"] is None else f"{100 * prof['idle_share']:.0f}%"
            top = "; ".join(f"{op['op'][:40]} {100 * op['share']:.0f}%" for op in prof["top"][:3])
            lines.append(f"| {r['objective']} | {prof['wall_ms_per_step']:.1f} | {100 * prof['matmul_share']:.0f}% of "
                         f"{prof['time']} time | {idle} | {top} |")
    for model in record.get("models", []):
        lines += ["", f"**{model['model']}** at `{model['preset']}` ({model['precision']}): {model['steps']:,} steps, "
                      f"{model['epochs']:.2f} epochs in {model['training_seconds']:.0f} s"]
        lines.append("  " + ", ".join(f"{task} {m[TASKS[task].main_metric]:.3f}" for task, m in model["scores"].items()))
    return "\n".join(lines) + "\n"


def warn_if_cpu(plan: Plan, device) -> None:
    """A warning when a plan sized for a GPU (``paper``) is asked to run on a CPU (``train`` warns alike)."""
    if plan.name != "smoke" and device.type == "cpu":
        import warnings

        from reproducer.errors import ReproducerWarning

        warnings.warn(f"the {plan.name} plan on a CPU: its stages are sized for a GPU (about "
                      f"{plan.estimate_seconds(7) / 60:.0f} minutes there, far longer here); the smoke plan (--plan "
                      "smoke) is the CPU's dry run.", ReproducerWarning, stacklevel=3)


#: What a run of the plan writes into its folder (JSON possibly compressed): nothing else may be there.
PLAN_FILES = re.compile(r"(plan\.json|summary\.md|cuda_check\.txt|[^/]+\.eval\.json)(\.gz|\.xz)?")


def _clear_previous(out: Path) -> list[str]:
    """Remove what an earlier run of the plan wrote into ``out`` (so a run cut off this time is never mixed with the
    last one's files); :class:`ReproducerError` before any work when ``out`` holds files the plan does not write.
    Returns the removed names."""
    files = [p for p in out.rglob("*") if p.is_file()]
    foreign = sorted(p.relative_to(out).as_posix() for p in files if p.parent != out or not (
        PLAN_FILES.fullmatch(p.name) or (p.name.startswith(".") and p.name.endswith(".part"))))  # a killed write
    if foreign:
        raise ReproducerError(f"{out} holds files the GPU plan does not write ({', '.join(foreign)}): give --out an "
                              "empty folder (its files are what a device call brings back, at most 8).")
    for path in files:
        path.unlink()
    return sorted(p.name for p in files)


def run(pack_dir: str | Path, out: str | Path, plan: str | Plan = "paper", *, device: str | None = None,
        check: bool = True, progress: bool = True) -> dict:
    """Run the plan from the pack in ``pack_dir`` into ``out`` (see the module docstring); returns the record that
    ``plan.json`` holds. ``device``: cuda when available (the plan's point), or cpu (the dry run).

    ``out`` holds this run only: what an earlier run wrote there is removed first, and ``plan.json`` and
    ``summary.md`` are rewritten after every stage with ``complete: false`` until the last one ends (a run cut off by
    its time limit says so). Two runs into one ``out`` are refused; the unpacked pack lives in a temporary folder
    removed at the end."""
    from reproducer.bench import family_objectives
    from reproducer.files import exclusive
    from reproducer.gpu_pack import Pack
    from reproducer.runtime import default_device

    start = time.perf_counter()
    plan = plan_of(plan) if isinstance(plan, str) else plan
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    device = default_device(device)
    pack = Pack(pack_dir)
    if pack.meta["scale"] != plan.pack_scale:
        raise ReproducerError(f"The plan {plan.name!r} reads a {plan.pack_scale!r} pack; {pack_dir} is "
                              f"{pack.meta['scale']!r}. Build it with: python -m reproducer gpu pack --scale "
                              f"{plan.pack_scale}")
    warn_if_cpu(plan, device)
    lock = exclusive(out, f"running the GPU plan into {out}")
    with lock, tempfile.TemporaryDirectory(prefix="reproducer-gpu-") as tmp:
        removed = _clear_previous(out)
        work = Path(tmp)
        with pack.installed(work):
            record = {"plan": dataclasses.asdict(plan), "started": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
                      "complete": False, "environment": environment(device),
                      "pack": {k: v for k, v in pack.meta.items() if k != "files"},
                      "estimate_seconds": plan.estimate_seconds(len(family_objectives())), "stages": {},
                      "replaced": removed}
            stages = _Stages(out, record, progress)
            stages.save()
            stages.say(f"GPU plan {plan.name} on {record['environment'].get('gpu', device)}: estimated "
                       f"{record['estimate_seconds'] / 60:.1f} minutes")
            if check:
                record["cuda_check"] = stages.run("cuda check", lambda: cuda_check(
                    out / "cuda_check.txt", device, plan.check_timeout, work / "site"))
            record["bench"] = stages.run("bench", lambda: bench(plan, pack, device, stages.say))
            record["models"] = []
            for planned in plan.models:
                trained = stages.run(f"train {planned.name}",
                                     lambda: train_and_score(planned, plan, pack, device, out, stages.say))
                if trained:
                    record["models"].append(trained)
            record["wall_seconds"] = time.perf_counter() - start
            record["complete"] = True
            stages.save()
    if progress:
        print(summary(record), flush=True)
    return record


def check_returnable(out: str | Path) -> list[str]:
    """The problems that would keep a device call from bringing ``out`` back (too many files, too large ones, too
    deep); empty when it all comes back."""
    out = Path(out)
    files = [p for p in out.rglob("*") if p.is_file()]
    problems = [f"{len(files)} files, more than {MAX_FILES}"] if len(files) > MAX_FILES else []
    problems += [f"{p.name}: {p.stat().st_size / 2**20:.1f} MiB" for p in files if p.stat().st_size > MAX_FILE_BYTES]
    problems += [f"{p.relative_to(out)}: too deep" for p in files if len(p.relative_to(out).parts) > 3]
    return problems


