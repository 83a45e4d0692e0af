"""Logeswaran & Lee's (2018) claims checked on our Quick-Thoughts numbers: :func:`quick_thought_claims` (judged
against their noise by :func:`reproducer.report.claims.check`), :func:`speed_claim` and :func:`magnitude_claim` (the
benchmark's repeats), :func:`every_point_claim` (Figure 2's curves, over the training seeds), and :func:`in_numbers`,
the chapter's closing paragraph."""
from __future__ import annotations

import numpy as np
import pandas as pd

from reproducer.evaluate.tasks import points_scale
from reproducer.papers.quick_thoughts.chapter import UNI_QT_F, repeats, speed_ratios, speed_table
from reproducer.report.analogies import category_share
from reproducer.report.claims import (ANALOGY_CATEGORIES, Claim, Evidence, check, point_claim, seeds_point_claim,
                                      worst_column)

FAMILY_MEAN = ("uni-QT", "bi-QT", "combine-QT", "MC-QT")
#: The previous methods MC-QT is compared with (Table 1): chapter 01's skip-thoughts and GloVe averaging.
PRIOR_METHODS = ("uni-skip", "bi-skip", "combine-skip", "glove-bow")
#: Table 1's smallest mean-accuracy gap of a QT variant over the skip-thought of its shape (uni: 84.15 − 83.03).
TABLE1_SMALLEST_GAP = 6.7 / 6
#: What "comparably" allows (issue 68): the largest deficit the sentence covers in Table 1 — combine-QT's TREC, 90.8
#: against combine-skip's 92.2 (the others: uni-QT's TREC −0.8, bi-QT's SUBJ −0.2, combine-QT's SUBJ −0.3). A QT
#: variant at most this far below the skip-thought of its shape on the mean is "comparable".
COMPARABLE_MARGIN = 1.4
#: What the paper says of Figure 2 (Appendix C): the book reads "apparent" as QT at least as good at equal time.
FIGURE2_WORDS = ("\"The speed benefits of our training objective is apparent from these comparisons\" (Appendix C, "
                 "Figure 2: six tasks against training hours)")


def speed_ratios_of(bench: dict) -> list[float]:
    """QT's speed-up over exact-softmax skip-thought in each repeat of the throughput benchmark
    (:func:`~reproducer.papers.quick_thoughts.chapter.measure_throughput`)."""
    return [speed_ratios(speed_table(runs))[0] for runs in repeats(bench)]


#: How each skip-thought the STS14 claim may read is named in its row.
SKIP_THOUGHT_LABELS = {"combine-skip": "chapter 01's combine-skip (Kiros et al.'s model, retrained)",
                       "ST": "this chapter's ST (chapter 01 has not run at this preset)"}


def quick_thought_claims(*, classification: list[str], curve_tasks: list[str], paper_speed: float,
                         paper_sts: pd.Series, minutes: dict[str, float] | None = None,
                         skip_thought: str = "combine-skip") -> list[Claim]:
    """The chapter's claims about trained models, as :class:`~reproducer.report.claims.Claim` (judged by
    :func:`~reproducer.report.claims.check` on the evidence of each seed): Figure 2 at equal training time (uni-QT's
    encoder f against ST on ``curve_tasks``), combine-QT against its parts and MC-QT against the family (mean accuracy
    on ``classification``) and STS14 (Table 8, ``paper_sts``: the paper's Overall row; ``minutes``: each model's
    training minutes, shown beside the family comparisons, whose budgets may differ at ``default``). Table 8 compares
    with Kiros et al.'s skip-thought model: ``skip_thought`` names ours, chapter 01's ``combine-skip`` in the evidence,
    or this chapter's ``"ST"`` where chapter 01 has not run at this preset (the row says which); where it is chapter
    01's, the evidence also holds chapter 01's ``uni-skip`` and ``bi-skip`` (and ``glove-bow``), and two claims of
    section 4.4.1 join: each QT variant comparable to or better than the skip-thought of its shape, and MC-QT above
    the previous methods (:data:`PRIOR_METHODS`). Each row quotes the paper and carries its effect where Table 1
    prints one. The speed claim has no test items: :func:`speed_claim`; the claims on BoW-QT and Table 9's sizes:
    :func:`bow_and_size_claims` and :func:`appendix_claims`; the analogies, which need chapter 01's answers:
    :func:`analogy_claims`."""
    def gap(ev, a, b, tasks, reps):
        return ev.mean(a, tasks, reps) - ev.mean(b, tasks, reps)

    def over_each(ev, model, names, reps):  # model minus each rival: a claim about every column (issue 68)
        return np.stack([ev.mean(model, classification, reps) - np.asarray(ev.mean(n, classification, reps))
                         for n in names])

    def means(ev, names, tasks=classification):
        text = ", ".join(f"{n} {ev.mean(n, tasks):.1f}" for n in names)
        trained = {n: minutes[n] for n in names if minutes and n in minutes}
        return text + (" (minutes trained: " + ", ".join(f"{n} {m:.0f}" for n, m in trained.items()) + ")"
                       if trained else "")

    claims = [
        Claim("At the end of equal training time, QT's encoder scores at least as well as skip-thought's (Figure 2's "
              "last point, scored at the paper protocol; every point: the next claim)",
              lambda ev, r: gap(ev, UNI_QT_F, "ST", curve_tasks, r),
              paper=FIGURE2_WORDS,
              numbers=lambda ev: f"mean over {', '.join(curve_tasks)} (points): uni-QT f {ev.mean(UNI_QT_F, curve_tasks):.1f}, "
                                 f"ST {ev.mean('ST', curve_tasks):.1f}"),
        Claim("combine-QT beats uni-QT and bi-QT (mean accuracy, Table 1; the book's reading of the table)",
              lambda ev, r: over_each(ev, "combine-QT", ("uni-QT", "bi-QT"), r), every_column=True,
              paper="Table 1 (BookCorpus rows, mean of 6 accuracies): combine-QT 85.15 vs uni-QT 84.15, bi-QT 84.08; "
                    "the text states no comparison", effect=85.15 - 84.15,
              numbers=lambda ev: means(ev, ("combine-QT", "uni-QT", "bi-QT"))),
        Claim("MC-QT is the best of the family (mean accuracy, Table 1; the book's reading of the table)",
              lambda ev, r: over_each(ev, "MC-QT", ("uni-QT", "bi-QT", "combine-QT"), r), every_column=True,
              paper="Table 1 (BookCorpus rows, mean of 6 accuracies): MC-QT 86.43 vs combine-QT 85.15", effect=86.43 - 85.15,
              numbers=lambda ev: means(ev, FAMILY_MEAN)),
        Claim(f"QT (RNN) beats skip-thought on STS14 (Table 8, Pearson r × 100; ours: combine-QT against "
              f"{SKIP_THOUGHT_LABELS.get(skip_thought, skip_thought)})",
              lambda ev, r: ev.score("combine-QT", "STS14", r) - ev.score(skip_thought, "STS14", r),
              paper=f"\"Our RNN-based encoder performs strongly compared to other sequence encoders\" (Appendix B); "
                    f"Table 8 (Overall): QT (RNN) {paper_sts['QT (RNN)']:.2f} vs Skip-Thoughts "
                    f"{paper_sts['Skip-Thoughts']:.2f}",
              numbers=lambda ev: f"combine-QT {ev.score('combine-QT', 'STS14') / 100:.2f}, "
                                 f"{skip_thought} {ev.score(skip_thought, 'STS14') / 100:.2f}",
              effect=100 * float(paper_sts["QT (RNN)"] - paper_sts["Skip-Thoughts"])),
    ]
    if skip_thought == "combine-skip":  # chapter 01's three skip-thought models are in the evidence
        pairs = (("uni-QT", "uni-skip"), ("bi-QT", "bi-skip"), ("combine-QT", "combine-skip"))
        claims += [
            Claim("uni-, bi- and combine-QT perform comparably to or better than the skip-thought models of the same "
                  f"shape (Table 1, mean accuracy: the smallest of the three gaps, against chapter 01's models; "
                  f"comparably: at most {COMPARABLE_MARGIN:g} points below, Table 1's largest deficit on a task)",
                  lambda ev, r: np.stack([np.asarray(gap(ev, q, k, classification, r)) for q, k in pairs]),
                  threshold=-COMPARABLE_MARGIN, effect=TABLE1_SMALLEST_GAP, every_column=True,
                  paper="\"Our uni/bi/combine-QT variations perform comparably (and in most cases, better) to the "
                        "skip-thought model\" (section 4.4.1); Table 1: uni +1.12, bi +2.72, combine +1.40 on the "
                        "mean; on single tasks down to −1.4 (combine-QT's TREC, 90.8 vs 92.2)",
                  numbers=lambda ev: "; ".join(f"{q} − {k}: {gap(ev, q, k, classification, False):+.1f}"
                                               for q, k in pairs)),
            Claim("MC-QT outperforms all previous methods (Table 1, mean accuracy; ours: chapter 01's skip-thoughts "
                  "and GloVe averaging)",
                  lambda ev, r: over_each(ev, "MC-QT", PRIOR_METHODS, r), every_column=True,
                  effect=86.43 - 85.33,
                  paper="\"The MC-QT model outperforms all previous methods\" (section 4.4.1); Table 1: MC-QT 86.43 "
                        "vs the best prior, combine-cnn with pre-trained vectors, 85.33",
                  numbers=lambda ev: means(ev, ("MC-QT", *PRIOR_METHODS))),
        ]
    return claims


#: Table 6's retrieval accuracy by category (Google: gram4-superlative, gram3-comparative, family; Microsoft: JJR_JJS,
#: VB_VBD, VBD_VBZ, NN_NNS, JJ_JJS, JJ_JJR).
TABLE6 = {"Combine-skip": (0.00, 0.00, 0.04, 0.12, 0.38, 0.44, 0.00, 0.00, 0.00),
          "MC-QT": (0.04, 0.06, 0.34, 0.18, 0.34, 0.52, 0.06, 0.06, 0.08)}
#: The paper's effect: the mean over Table 6's nine categories of MC-QT's accuracy minus combine-skip's, in points.
TABLE6_GAP = 100 * float(np.mean(np.subtract(TABLE6["MC-QT"], TABLE6["Combine-skip"])))
ANALOGY_CLAIM = ("MC-QT retrieves sentence analogies better than skip-thought (Table 6: MC-QT minus chapter 01's "
                 "combine-skip of the same seed on the same questions, accuracy % averaged over the question "
                 "categories)")
ANALOGY_WORDS = ("\"Our model outperforms skip-thoughts across several categories\" (Appendix A); Table 6: MC-QT above "
                 "combine-skip in 8 of 9 categories, by 7.8 points on their mean (retrieval on Yelp, 0-52% accuracy: "
                 "not comparable with our Gutenberg questions, so no effect size is carried over — issue 68)")


def analogy_claims(seeds: dict[int, dict], budget: str | None = None) -> pd.DataFrame:
    """Appendix A's claim, judged by :func:`~reproducer.report.claims.check` on ``seeds`` (seed → its answers:
    :func:`~reproducer.papers.quick_thoughts.chapter.analogy_answers`, MC-QT's and chapter 01's combine-skip's to the
    same questions, each with its questions' categories): the mean over the question categories of MC-QT's accuracy
    minus combine-skip's (every category weighs the same, as Table 6 reads by category), the mean over the seeds
    given. No effect size: Table 6's gap (:data:`TABLE6_GAP`, Yelp retrieval at 0-52% accuracy) does not carry over
    to our Gutenberg question set (95-99%), so the claim can be reproduced or not, never *smaller than published*. Not checked while no seed has both chapters' answers."""
    if not seeds:
        return pd.DataFrame([point_claim(
            ANALOGY_CLAIM, None, 0.0, paper=ANALOGY_WORDS, unit="{:+.1f}",
            noise="no seed has both chapters' answers to the same questions yet: chapter 01's combine-skip answers "
                  "them when its models train")])
    task = ANALOGY_CATEGORIES

    def numbers(ev):
        n = len(set(next(iter(seeds.values()))["MC-QT"]["categories"]))
        return (f"MC-QT {ev.score('MC-QT', task):.1f}%, combine-skip {ev.score('combine-skip', task):.1f}% (mean of "
                f"{n} categories; seeds {', '.join(map(str, seeds))})")

    claim = Claim(ANALOGY_CLAIM, lambda ev, r: ev.score("MC-QT", task, r) - ev.score("combine-skip", task, r),
                  paper=ANALOGY_WORDS, numbers=numbers, unit="{:+.1f}")
    evidence = [Evidence({}, answers, seed=seed) for seed, answers in seeds.items()]
    return check([claim], evidence[0], evidence, budget=budget)


def bow_and_size_claims(classification: list[str], smallest: str) -> list[Claim]:
    """The claims on QT's bag-of-words variant, against averaged GloVe on STS14 (Table 8), and on ``smallest``, the
    smallest MC-QT of our Table 9, against chapter 01's combine-skip (mean accuracy over ``classification``); every
    training seed trains both (:meth:`~reproducer.papers.quick_thoughts.chapter.QuickThoughtModels.seed_units`)."""
    return [
        Claim("QT's bag-of-words variant performs comparably to prior bag-of-words models on STS14 (Table 8, "
              "Pearson r × 100; ours: BoW-QT against GloVe averaging, at least as high)",
              lambda ev, r: ev.score("BoW-QT", "STS14", r) - ev.score("glove-bow", "STS14", r), effect=0.0,
              paper="\"Our BoW variation performs comparably to prior BoW based models\" (Appendix B); Table 8 "
                    "(Overall): QT (BoW) 0.65 vs CBOW 0.65",
              numbers=lambda ev: f"BoW-QT {ev.score('BoW-QT', 'STS14') / 100:.2f}, GloVe averaging "
                                 f"{ev.score('glove-bow', 'STS14') / 100:.2f}"),
        Claim("A smaller MC-QT still beats skip-thought (Table 9, mean accuracy; ours: the smallest of our sizes "
              "against chapter 01's combine-skip)",
              lambda ev, r: ev.mean(smallest, classification, r) - ev.mean("combine-skip", classification, r),
              effect=84.57 - 83.75,
              paper="\"our 1600-dimensional model and 3200-dimensional model are respectively better than these "
                    "models\" (Appendix D); Table 9: 1600-d 84.57 vs skip-thought 83.75",
              numbers=lambda ev: f"{smallest} {ev.mean(smallest, classification):.1f}, combine-skip "
                                 f"{ev.mean('combine-skip', classification):.1f}"),
    ]


def appendix_claims(classification: list[str], smallest: str, paper_sts: pd.Series, paper_sizes: pd.DataFrame
                    ) -> list[Claim]:
    """Two claims of the appendices on models every training seed trains (issue 68): bag-of-words beats the RNN on
    STS14 (Table 8, ``paper_sts``: its Overall column by model, BoW-QT against combine-QT, the paper's "QT (RNN)"), and
    a smaller MC-QT loses only marginal accuracy (Table 9, ``paper_sizes``:
    :func:`~reproducer.papers.quick_thoughts.chapter.paper_sizes`; MC-QT minus ``smallest``, the smallest of our sizes,
    a third of MC-QT's vector size, mean accuracy over ``classification``, Table 9's benchmarks). "Marginal" is read
    from the paper's own table: the loss it calls marginal at a third of the size (its 4800-d MC-QT against its
    1600-d one) is the margin — a non-inferiority claim, with no effect size of its own."""
    accuracy = paper_sizes.set_index("vector size")["mean accuracy"]
    full, third = float(accuracy[4800]), float(accuracy[1600])
    bow, rnn = float(paper_sts["QT (BoW)"]), float(paper_sts["QT (RNN)"])
    return [
        Claim("Bag-of-words beats the RNN on STS14 (Table 8, Pearson r × 100: BoW-QT minus combine-QT)",
              lambda ev, r: ev.score("BoW-QT", "STS14", r) - ev.score("combine-QT", "STS14", r),
              effect=100 * (bow - rnn),
              paper="\"Bag-of-words models are known to perform strongly in this task as they are better able to "
                    f"encode word identity information\" (Appendix B); Table 8 (Overall): QT (BoW) {bow:.2f} vs "
                    f"QT (RNN) {rnn:.2f}",
              numbers=lambda ev: f"BoW-QT {ev.score('BoW-QT', 'STS14') / 100:.2f}, combine-QT "
                                 f"{ev.score('combine-QT', 'STS14') / 100:.2f}"),
        Claim(f"A smaller MC-QT loses only marginal accuracy (Table 9, mean accuracy: MC-QT minus {smallest}, a third "
              "of its vector size; at most the loss the paper calls marginal at a third of the size)",
              lambda ev, r: ev.mean("MC-QT", classification, r) - ev.mean(smallest, classification, r),
              threshold=full - third, at_most=True,
              paper="\"we are able to reduce the embedding size and train the models more efficiently, at the "
                    "expense of marginal loss in performance in most cases\" (Appendix D); Table 9: 4800-d "
                    f"{full:.2f}, 1600-d {third:.2f} (−{full - third:.2f} at a third of the size)",
              numbers=lambda ev: f"MC-QT {ev.mean('MC-QT', classification):.1f}, {smallest} "
                                 f"{ev.mean(smallest, classification):.1f}"),
    ]


def speed_claim(ratios: list[float], paper_speed: float) -> dict:
    """"QT trains 4.8× faster than skip-thought": QT's speed-up over exact-softmax skip-thought with the same encoder,
    judged on the spread of the benchmark's repeats (:func:`speed_ratios_of`): the value is their mean, so its
    half-width is ``t · s / √n``."""
    value = float(np.mean(ratios))
    return point_claim(f"QT processes ≥ {paper_speed:.1f}× as many sentences per second as skip-thought "
                       "(same encoder, Appendix C)", value, paper_speed,
                       paper="\"The overall training speedup observed for our objective is 4.8x\" (Appendix C: 31 h "
                             "against 6.5 h for one epoch on the same data)", unit="{:.2f}×", effect=paper_speed,
                       numbers=f"{len(ratios)} benchmark repeats: " + ", ".join(f"{r:.2f}×" for r in ratios),
                       seed_values=ratios if len(ratios) >= 2 else None, averaged=True)


#: "An order of magnitude": at least 10×; the paper's own effect on one GPU model (section 4.4): the TensorFlow
#: skip-thoughts' 9 days on a GTX 1080 against MC-QT's 11 hours on the same card.
MAGNITUDE, PAPER_MAGNITUDE = 10.0, 9 * 24 / 11


def magnitude_claim(ratios: list[float]) -> dict:
    """"An order of magnitude faster": the abstract's and the contributions' reading of the speed-up, judged like
    :func:`speed_claim` on the benchmark's repeats (same encoder, per sentence) against :data:`MAGNITUDE`."""
    return point_claim("QT trains an order of magnitude faster than skip-thought: ≥ 10× as many sentences per second "
                       "(same encoder; section 1)", float(np.mean(ratios)), MAGNITUDE,
                       paper="\"We train widely used encoder architectures an order of magnitude faster than previous "
                             "methods\" (section 1); section 4.4: skip-thoughts 9 days on a GTX 1080 (TensorFlow) vs "
                             "MC-QT under 11 hours on the same card, 19.6×",
                       unit="{:.2f}×", effect=PAPER_MAGNITUDE, averaged=True,
                       numbers=f"{len(ratios)} benchmark repeats: " + ", ".join(f"{r:.2f}×" for r in ratios),
                       seed_values=ratios if len(ratios) >= 2 else None)


def point_gaps(qt: dict, st: dict, tasks: list[str]) -> np.ndarray:
    """Figure 2's gaps: at each evaluation point both training records share (``evals``, in order: the same share of
    the equal time budget for both objectives, their steps scored as often), QT's encoder minus ST in the mean score
    over ``tasks`` (points: accuracy in %, correlations × 100); empty without a shared point."""
    pairs = list(zip(qt.get("evals", []), st.get("evals", [])))
    return np.array([np.mean([points_scale(t) * (a[t] - b[t]) for t in tasks]) for a, b in pairs
                     if all(t in a and t in b for t in tasks)])


def lowest_gap(qt: dict, st: dict, tasks: list[str]) -> float:
    """The smallest of :func:`point_gaps` of one run; NaN without a shared point."""
    gaps = point_gaps(qt, st, tasks)
    return float(gaps.min()) if len(gaps) else float("nan")


def every_point_claim(main: tuple[dict, dict], seeds: list[tuple[dict, dict]], tasks: list[str],
                      budget: str | None = None) -> dict:
    """"QT above ST at every point of Figure 2" (Appendix C): the gap at each point averaged over the training seeds'
    records (``seeds``, trained at the preset ``budget``, the main run among them) and the smallest of those means,
    judged on the seeds' spread at that point (:func:`~reproducer.evaluate.uncertainty.worst_column`); the main run's
    smallest gap alone with fewer than two seeds. The curves have no test items to resample."""
    per_seed = [point_gaps(qt, st, tasks) for qt, st in seeds]
    values = None
    if len(per_seed) >= 2 and len({len(g) for g in per_seed}) == 1 and len(per_seed[0]):
        _, _, values = worst_column(per_seed)
    return seeds_point_claim("At every point of Figure 2, QT's encoder scores at least as well as skip-thought's "
                             f"(Appendix C: the smallest gap over the points, mean over {len(tasks)} tasks)",
                             lowest_gap(*main, tasks), values, 0.0, budget=budget, unit="{:+.2f}", paper=FIGURE2_WORDS,
                             numbers=f"{len(main[0].get('evals', []))} points; the smallest mean gap, per seed: "
                                     + ", ".join(f"{v:+.2f}" for v in (values if values is not None else [])))


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
    # MC-QT is printed in two of the paper's tables (the same numbers): each (encoder, task) counts once
    acc = acc.drop_duplicates([c for c in ("encoder", "task") if c in acc])
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
