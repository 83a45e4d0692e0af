"""Training-throughput benchmark: objectives of the same width trained for the same time, one after the other.

Logeswaran & Lee (2018, section 4.2, Figure 2) compare Quick-Thoughts with skip-thought at equal encoder
size: QT needs no decoder and no softmax over the vocabulary, so it processes more sentences per second.
Zhang et al. (2018, section 4.4) compare minutes per 1000 batches of the mean-max AAE with skip-thought.
``bench_train`` measures both on this machine: each objective trains for ``seconds`` of training time, in its own
process (so each peak memory is its own), one after the other (never two at once), on the same corpus and
vocabulary. Widths: the GRU encoders (QT, skip-thought) have ``hidden`` units, skip-thought's decoders too; the
mean-max AAE has ``d_m = hidden``, ``d_f = 2 hidden``, 8 heads; the mean-max RAE a BiLSTM of ``hidden / 2`` per
direction and an LSTM decoder of ``hidden``. Skip-thought and the autoencoders predict the same ``vocab_size`` words
(exact softmax unless ``n_sampled``); the autoencoders read fixed random vectors of ``word_dim`` (their values do not
change the cost). Batch sizes are each paper's (QT 400, skip-thought 128, AAE/RAE 64) unless ``batch_size``.

    python -m reproducer bench train --objectives quick_thought,skip_thought --hidden 600 --seconds 60 --json out.json
    python -m reproducer bench train --objectives aae,rae,skip_thought --batch-size 64 --hidden 256 --vocab 10000
"""
from __future__ import annotations

import multiprocessing as mp
import resource
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from reproducer.errors import ReproducerError

OBJECTIVES = ("quick_thought", "skip_thought", "aae", "rae")
BATCH = {"quick_thought": 400, "skip_thought": 128, "aae": 64, "rae": 64}


def _peak_rss() -> int:
    """This process's peak resident memory in bytes. On Linux ``VmHWM`` (reset by ``exec``): ``ru_maxrss``
    would report the parent's peak when the parent is larger, e.g. a notebook kernel spawning the benchmark."""
    status = Path("/proc/self/status")
    if status.is_file():
        for line in status.read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * (1 if sys.platform == "darwin" else 1024)


def _run_one(objective: str, hidden: int, word_dim: int, vocab_size: int, seconds: float, max_books: int | None,
             n_sampled: int, seed: int, device: str | None, batch_size: int = 0) -> dict:
    import torch

    from reproducer.data.batches import ContiguousSampler, SentenceSampler, TokenizedCorpus, TripleSampler
    from reproducer.data.corpus import CorpusConfig, load_corpus
    from reproducer.data.vocab import Vocabulary
    from reproducer.encoders.attention import AAEConfig
    from reproducer.objectives.autoencoder import MeanMaxAAE
    from reproducer.encoders.recurrent import RecurrentConfig
    from reproducer.objectives.quick_thought import QuickThought
    from reproducer.objectives.skip_thought import SkipThought, SkipThoughtConfig
    from reproducer.runtime import default_device, seed_everything
    from reproducer.train import TrainConfig, train

    seed_everything(seed)
    corpus = load_corpus("train", CorpusConfig(max_books=max_books), progress=False)
    vocab = Vocabulary.build(corpus.sentences, max_size=vocab_size)
    tokenized = TokenizedCorpus.from_corpus(corpus, vocab)
    encoder = RecurrentConfig(len(vocab), word_dim, hidden)
    batch_size = batch_size or BATCH[objective]
    if objective == "quick_thought":
        model, batches = QuickThought.recurrent(encoder), ContiguousSampler(tokenized, batch_size, seed=seed).batch
    elif objective in ("aae", "rae"):
        vectors = torch.randn(len(vocab), word_dim).numpy()
        model = MeanMaxAAE(vectors, AAEConfig(len(vocab), word_dim, hidden, 2 * hidden, max_len=33,
                                              family=objective.upper()))
        batches = SentenceSampler(tokenized, batch_size, eos=vocab.eos_id, seed=seed).batch
    else:
        model = SkipThought(SkipThoughtConfig(encoder, hidden))
        batches = TripleSampler(tokenized, vocab, batch_size, seed=seed, n_sampled=n_sampled).batch
    device = default_device(device)
    if device.type == "cuda":
        torch.cuda.reset_peak_memory_stats(device)
    t0 = time.perf_counter()
    log = train(model, batches, TrainConfig(lr=5e-4, max_seconds=seconds, log_every=10, seed=seed), device=device,
                progress=False)
    peak = torch.cuda.max_memory_allocated(device) if device.type == "cuda" else _peak_rss()
    return {"objective": objective, "batch_size": batch_size, "steps": log.step, "training_seconds": log.seconds,
            "minutes_per_1000_batches": log.seconds / log.step * 1000 / 60,
            "wall_seconds": time.perf_counter() - t0, "sentences_per_second": log.examples_per_second,
            "final_loss": log.losses[-1]["loss"] if log.losses else None, "peak_memory_bytes": int(peak),
            "memory_kind": "cuda max allocated" if device.type == "cuda" else "process max RSS",
            "parameters": sum(p.numel() for p in model.parameters() if p.requires_grad), "device": str(device),
            "softmax": "in-batch" if objective == "quick_thought" else "sampled" if n_sampled and objective ==
            "skip_thought" else "exact"}


def bench_train(objectives=OBJECTIVES, *, hidden: int = 600, word_dim: int = 300, vocab_size: int = 20000,
                seconds: float = 60, max_books: int | None = None, n_sampled: int = 0, seed: int = 0,
                device: str | None = None, batch_size: int = 0) -> dict:
    """Train each objective for ``seconds`` in a fresh process, one after the other; return the
    measurements and the speed ratio (sentences per second) of the first objective to each other one.
    ``batch_size`` 0: each paper's batch size."""
    unknown = [o for o in objectives if o not in OBJECTIVES]
    if unknown or not objectives:
        raise ReproducerError(f"Unknown objectives {unknown}; choose from {', '.join(OBJECTIVES)}.")
    runs = []
    for objective in objectives:
        with ProcessPoolExecutor(max_workers=1, mp_context=mp.get_context("spawn")) as pool:
            runs.append(pool.submit(_run_one, objective, hidden, word_dim, vocab_size, seconds, max_books, n_sampled,
                                    seed, device, batch_size).result())
    first = runs[0]
    ratios = {f"{first['objective']}/{r['objective']}": first["sentences_per_second"] / r["sentences_per_second"]
              for r in runs[1:]}
    return {"settings": {"hidden": hidden, "word_dim": word_dim, "vocab_size": vocab_size, "seconds": seconds,
                         "max_books": max_books, "n_sampled": n_sampled, "seed": seed, "batch_size": batch_size},
            "runs": runs, "speed_ratio": ratios}
