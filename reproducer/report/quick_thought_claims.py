"""Logeswaran & Lee's (2018) claims checked on our Quick-Thoughts numbers: :func:`quick_thought_claims`, one row per
claim with its verdict and the numbers behind it (shown with :func:`reproducer.report.claims.claim_table`), and
:func:`in_numbers`, the chapter's closing paragraph."""
from __future__ import annotations

import pandas as pd

from reproducer.report.analogies import category_share
from reproducer.report.claims import verdict
from reproducer.report.efficiency import faster


def quick_thought_claims(*, speed: tuple[float, float], paper_speed: float, qt: dict, st: dict, tasks: list[str],
                         family_mean: pd.Series, sts: pd.DataFrame, analogy: dict) -> pd.DataFrame:
    """The chapter's claims, from: ``speed``, QT's speed ratio over exact- and sampled-softmax skip-thought (NaN: not
    measured) and the paper's ``paper_speed``; ``qt`` and ``st``, the training records of the efficiency study (their
    last evaluation scores ``tasks``); ``family_mean``, the mean classification accuracy of uni-QT, bi-QT, combine-QT
    and MC-QT; ``sts``, Table 8 (rows ``("ours", ...)`` and ``("paper", ...)``, column ``Overall``); ``analogy``, the
    :func:`~reproducer.report.analogies.analogy_study` of uni-QT, MC-QT and ST. Columns: claim, outcome, numbers."""
    exact, sampled = speed
    final = pd.DataFrame({"uni-QT": qt["evals"][-1], "ST": st["evals"][-1]}).T[tasks]
    wins = int((final.loc["uni-QT"] >= final.loc["ST"]).sum())
    ours_sts = sts.loc["ours", "Overall"]
    paper_sts = sts.loc["paper", "Overall"]
    questions = analogy["questions"]
    return pd.DataFrame([
        {"claim": "QT trains faster than ST at equal encoder size (sentences/second)",
         "outcome": verdict(faster(exact, sampled)),
         "numbers": f"{exact:.1f}× vs exact-softmax ST, {sampled:.1f}× vs sampled-softmax ST (paper: {paper_speed:.1f}×)"},
        {"claim": "At equal training time QT scores at least as well as ST on most tasks",
         "outcome": verdict(wins > len(tasks) / 2),
         "numbers": f"after {qt['seconds']:.0f} s: QT ≥ ST on {wins} of {len(tasks)} tasks ("
                    + ", ".join(f"{t} {final.loc['uni-QT', t]:.3g} vs {final.loc['ST', t]:.3g}" for t in tasks) + ")"},
        {"claim": "combine-QT ≥ uni-QT and bi-QT on average",
         "outcome": verdict(family_mean["combine-QT"] >= max(family_mean["uni-QT"], family_mean["bi-QT"])),
         "numbers": f"mean accuracy combine {family_mean['combine-QT']:.1f}, uni {family_mean['uni-QT']:.1f}, "
                    f"bi {family_mean['bi-QT']:.1f}"},
        {"claim": "QT (RNN) beats skip-thought on STS14 (Table 8)",
         "outcome": verdict(ours_sts["QT (RNN) = combine-QT"] > ours_sts["ST (this chapter)"]),
         "numbers": f"Overall (wmean) r: combine-QT {ours_sts['QT (RNN) = combine-QT']:.2f}, "
                    f"ST {ours_sts['ST (this chapter)']:.2f} (paper: {paper_sts['QT (RNN)']:.2f} vs "
                    f"{paper_sts['Skip-Thoughts']:.2f})"},
        {"claim": "QT retrieves sentence analogies better than ST (Table 6)",
         "outcome": verdict(bool(questions) and analogy["uni-QT"]["accuracy"] > analogy["ST"]["accuracy"]),
         "numbers": (f"same encoder: uni-QT {100 * analogy['uni-QT']['accuracy']:.1f}% vs "
                     f"ST {100 * analogy['ST']['accuracy']:.1f}% of {len(questions)} questions "
                     f"(MC-QT {100 * analogy['MC-QT']['accuracy']:.1f}%)") if questions else "no questions at this preset"},
        {"claim": "MC-QT is the best of the family",
         "outcome": verdict(family_mean.idxmax() == "MC-QT"),
         "numbers": ", ".join(f"{n} {v:.1f}" for n, v in family_mean.sort_values(ascending=False).items())},
    ])


#: The models of the analogy summary, in its order.
ANALOGY_MODELS = ("uni-QT", "MC-QT", "ST", "glove-bow")
#: BookCorpus's sentences and the paper's uni-QT GRU width, which the summary compares ours with.
BOOKCORPUS_SENTENCES, PAPER_HIDDEN = 74e6, 1200


def in_numbers(comparison: pd.DataFrame, qt: dict, corpus_sentences: int, hidden: int, exact_speed: float,
               analogy: dict) -> str:
    """The closing bullets (Markdown): the mean gap of our Quick-Thoughts accuracies to the paper's (``comparison``:
    the published-vs-ours frame with an ``encoder`` column) beside the setting (uni-QT's training record ``qt``, a
    corpus of ``corpus_sentences``, GRU width ``hidden``), the speed-up over exact-softmax skip-thought, MC-QT's
    vectors, and, when there are questions, the analogies (the *family* share and each model's accuracy)."""
    acc = comparison[(comparison.metric == "acc") & comparison.encoder.str.contains("QT")].dropna(subset=["ours"])
    analogies = (
        f"- **Analogies**: {category_share(analogy, 'family', 'uni-QT'):.0%} of our questions are from the *family* "
        "category (the corpus is fiction: *he/she*, *his/her*, *king/queen*), so the overall accuracy mostly measures "
        "that category. Overall: "
        + ", ".join(f"{n} {100 * analogy[n]['accuracy']:.1f}%" for n in ANALOGY_MODELS)
        + ". Word averaging is a strong reference here: a one-word substitution moves an average along that word "
        "pair's difference, exactly what the analogy arithmetic assumes.") if analogy["questions"] else ""
    return (
        f"- **The gap to the paper is the setting.** Our Quick-Thoughts models are {-acc['diff'].mean():.1f} accuracy points "
        f"below the paper's on average ({len(acc)} published accuracies; range {acc['diff'].min():+.1f} to "
        f"{acc['diff'].max():+.1f}), after {qt['seconds']:.0f} s of CPU training on "
        f"{qt['examples'] / corpus_sentences:.1%} of one epoch of a corpus "
        f"{BOOKCORPUS_SENTENCES / corpus_sentences:.0f}× smaller than BookCorpus (74M sentences), with encoders "
        f"{PAPER_HIDDEN / hidden:.0f}× narrower. The comparisons *within* this chapter (same data, same budget) are the "
        "meaningful ones.\n"
        f"- **Speed.** The objective is where the paper says it is: without decoders, QT processes "
        f"{exact_speed:.1f}× as many sentences per second as exact-softmax skip-thought with the same encoder on this CPU.\n"
        f"- **MC-QT** reads fixed GloVe 6B 50d vectors (400k words) in one channel; the paper used GloVe 840B 300d "
        "(~3M words), a much richer input: our channel is smaller than the paper's in both width and coverage.\n"
        + analogies)
