"""Wieting et al.'s (2016) claims judged against their noise, each on every training seed's evidence with its test
items resampled: Table 2's mean over our datasets (:func:`paraphrase_claims`, with :func:`suite_samples`: the datasets
resampled), Figure 1 and section 6 (:func:`figure1_claims`, the same), and Tables 3, 7 and 5 with each model's stored
replicates (:func:`in_domain_claims`, :func:`length_bin_claim`, :func:`shortest_bin_claims`, :func:`supervised_claims`); and the chapter's summary of
how the recurrent models fare (:func:`recurrent_summary`). Thresholds follow the paper's wording."""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd

from reproducer.report.claims import Claim

#: The averaging and the recurrent models (the architectures of section 3; DAN averages, the iRNN is recurrent).
AVERAGING = ["PP", "proj", "DAN"]
RECURRENT = ["RNN", "iRNN", "LSTM (no o.g.)", "LSTM (o.g.)"]
#: Section 5.1: "our two simplest models: the paragram-phrase embeddings (PP) and our projection model (proj.)".
SIMPLEST = ["PP", "proj"]


#: The sample of Table 2 that counts, dataset by dataset, whether PP or proj beats every other model (× 100: a share).
WINS = "PP or proj best"
#: Section 4.2.2's two other counts of datasets, as samples of Table 2 (× 100: a share): (name, winner, loser).
DATASET_WINS = (("no o.g. beats o.g.", "LSTM (no o.g.)", "LSTM (o.g.)"),
                ("LSTM (no o.g.) beats initial vectors", "LSTM (no o.g.)", "initial vectors"))


def suite_samples(suites: dict[str, list[dict]], datasets: list) -> dict:
    """The :class:`~reproducer.report.claims.Evidence` samples of Table 2: (model, ``"T2"``) → its score × 100 on each
    of ``datasets`` ((task, dataset) pairs, in one order for every model: resampling them is paired), and, when every
    model of section 3 is there, (:data:`WINS`, ``"T2"``) → 100 where the better of PP and proj is above every other
    model on that dataset, else 0 (a tie is not a win, as the paper counts its 5 exceptions); likewise each count of
    :data:`DATASET_WINS` whose two models are there."""
    samples = {(name, "T2"): pd.DataFrame(suite).set_index(["task", "dataset"]).score.reindex(datasets).to_numpy()
               for name, suite in suites.items()}
    for count, winner, loser in DATASET_WINS:
        if (winner, "T2") in samples and (loser, "T2") in samples:
            samples[count, "T2"] = 100.0 * (samples[winner, "T2"] > samples[loser, "T2"])
    if all((n, "T2") in samples for n in AVERAGING + RECURRENT):
        others = [n for n in AVERAGING + RECURRENT if n not in SIMPLEST]
        best_simple = np.maximum.reduce([samples[n, "T2"] for n in SIMPLEST])
        samples[WINS, "T2"] = 100.0 * (best_simple > np.maximum.reduce([samples[n, "T2"] for n in others]))
    return samples


#: Table 2's means over its 22 datasets in the paper (Pearson's r × 100, our plain mean of the printed rows):
#: the paper's effects of the claims on Table 2.
PAPER_T2_MEANS = {"PP": 65.69, "proj": 66.04, "DAN": 63.70, "RNN": 52.62, "iRNN": 65.74, "LSTM (no o.g.)": 55.70,
                  "LSTM (o.g.)": 49.19, "paragram-sl999": 54.99, "GloVe": 50.74}


def paraphrase_claims() -> list:
    """Wieting et al.'s claims on Table 2 as :class:`~reproducer.report.claims.Claim` (judged on each seed's evidence:
    :func:`suite_samples`, the datasets resampled), each with the paper's sentence and effect: PP and proj outperform
    the other models on most datasets (the share of datasets they win: the paper counts 17 of 22), the iRNN is next
    best, removing the output gate helps, PP beats its initial vectors and GloVe averaging (the mean over the
    datasets)."""
    def mean(ev, name, r=False):
        return ev.score(name, "T2", r)

    def means(names):
        return lambda ev: ", ".join(f"{n} {mean(ev, n):.1f}" for n in names)

    others = [n for n in AVERAGING + RECURRENT if n not in SIMPLEST]
    rest = [n for n in AVERAGING + RECURRENT if n not in SIMPLEST and n != "iRNN"]  # after PP and proj: every other
    paper = PAPER_T2_MEANS
    claims = [
        Claim("PP and proj outperform the other models out of domain on most datasets (section 4.2.2, Table 2: the "
              "share of datasets where the better of the two beats every other model)",
              lambda ev, r: mean(ev, WINS, r), threshold=50.0, unit="{:.1f}%", effect=100 * 17 / 22,
              paper="\"They outperform the other models on all but 5 of the 22 datasets\" (section 4.2.2): 17 of 22",
              numbers=lambda ev: f"won on {mean(ev, WINS):.1f}% of our datasets; means: " + means(SIMPLEST + others)(ev)),
        Claim("The iRNN is next best after PP and proj: it beats DAN, the RNN and both LSTMs (section 4.2.2, Table 2 "
              "mean; the smallest gap)",
              lambda ev, r: np.stack([mean(ev, "iRNN", r) - np.asarray(mean(ev, n, r)) for n in rest]),
              effect=paper["iRNN"] - max(paper[n] for n in rest), every_column=True,
              paper="\"The iRNN model has the next best performance, while the LSTM models lag behind\" (section "
                    "4.2.2)", numbers=means(["iRNN", *rest])),
        Claim("LSTM without output gate beats LSTM with it (section 4.2.2, Table 2 mean)",
              lambda ev, r: mean(ev, "LSTM (no o.g.)", r) - mean(ev, "LSTM (o.g.)", r),
              effect=paper["LSTM (no o.g.)"] - paper["LSTM (o.g.)"],
              paper="\"Removing the output gate improves performance on 18 of the 22 datasets\" (section 4.2.2)",
              numbers=means(["LSTM (no o.g.)", "LSTM (o.g.)"])),
        Claim("Removing the output gate improves the LSTM on most datasets (section 4.2.2, Table 2: the share of "
              "datasets where the LSTM without output gate beats the one with it)",
              lambda ev, r: mean(ev, DATASET_WINS[0][0], r), threshold=50.0, unit="{:.1f}%", effect=100 * 18 / 22,
              paper="\"Removing the output gate improves performance on 18 of the 22 datasets\" (section 4.2.2)",
              numbers=lambda ev: f"better on {mean(ev, DATASET_WINS[0][0]):.1f}% of our datasets"),
        Claim("The LSTM without output gate beats the initial vectors (paragram-sl999) on more than half of the "
              "datasets (section 4.2.2, Table 2: the share it wins)",
              lambda ev, r: mean(ev, DATASET_WINS[1][0], r), threshold=50.0, unit="{:.1f}%", effect=100 * 12 / 22,
              paper="\"The LSTM without output gate also performs reasonably well compared to our strong "
                    "paragram-sl999 addition baseline, beating it on 12 of the 22 datasets\" (section 4.2.2)",
              numbers=lambda ev: f"won on {mean(ev, DATASET_WINS[1][0]):.1f}% of our datasets; means: "
                                 + means(["LSTM (no o.g.)", "initial vectors"])(ev)),
        Claim("Word averaging beats the best LSTM on average out of domain (abstract, Table 2 mean: PP minus the "
              "better LSTM)",
              lambda ev, r: mean(ev, "PP", r) - np.maximum(mean(ev, "LSTM (no o.g.)", r), mean(ev, "LSTM (o.g.)", r)),
              effect=paper["PP"] - paper["LSTM (no o.g.)"],
              paper="\"models based on word averaging [...] beating the best LSTM model by 16.5 Pearson's r on "
                    "average\" (abstract: their XXL models; Table 2's PP minus the LSTM without output gate: 65.69 vs "
                    "55.70, the effect used)", numbers=means(["PP", "LSTM (no o.g.)", "LSTM (o.g.)"])),
        Claim("PP beats its own initial vectors (section 1, Table 2 mean)",
              lambda ev, r: mean(ev, "PP", r) - mean(ev, "initial vectors", r),
              effect=paper["PP"] - paper["paragram-sl999"],
              paper="\"learning word embeddings in the context of vector averaging performs much better than simply "
                    "averaging pretrained, state-of-the-art word embeddings\" (section 1)",
              numbers=means(["PP", "initial vectors"])),
        Claim("PP beats GloVe averaging out of domain (section 1, Table 2 mean)",
              lambda ev, r: mean(ev, "PP", r) - mean(ev, "GloVe", r), effect=paper["PP"] - paper["GloVe"],
              paper="\"Our average Pearson's r over all 22 SemEval datasets is 17.1 points higher than averaging GloVe "
                    "vectors\" (section 1: their XXL model; Table 2's PP: 65.69 vs 50.74)",
              numbers=means(["PP", "GloVe"])),
    ]
    return [replace(c, resampled="datasets") for c in claims]  # the suite's datasets are what the bootstrap draws


def supervised_key(column: str) -> str:
    """The evidence key of a model's Table 5 test score on one task (e.g. ``"Table 5 SST2"``)."""
    return f"Table 5 {column}"


def supervised_claims(models: list[str]) -> list:
    """Wieting et al.'s claims on Table 5 (section 4.4) as :class:`~reproducer.report.claims.Claim`, on each seed's
    supervised test scores of ``models`` (PP first) with replicates that resample the test records alike for every
    model and seed (:func:`~reproducer.papers.paraphrastic.supervised.score_replicates`; the keys
    :func:`supervised_key`): the LSTM beats averaging on SST-2 (the better LSTM minus PP), and averaging wins on SICK-R
    and SICK-E (PP minus the best other model). Without an LSTM or another model (``smoke``), only the claims it can
    read."""
    def score(ev, name, column, r=False):
        return np.asarray(ev.score(name, supervised_key(column), r))

    def best(ev, names, column, r):
        return np.maximum.reduce([score(ev, n, column, r) for n in names])

    lstms = [n for n in models if n.startswith("LSTM")]
    others = [n for n in models if n != "PP"]

    def scores(names, column):
        return lambda ev: f"{column}: " + ", ".join(f"{n} {float(score(ev, n, column)):.1f}" for n in names)

    sst = Claim("Supervised: an LSTM beats word averaging on SST-2 (Table 5: the best LSTM minus PP)",
                lambda ev, r: best(ev, lstms, "SST2", r) - score(ev, "PP", "SST2", r), effect=6.2, unit="{:+.1f}",
                paper="\"for sentiment classification, the LSTM is much stronger than the averaging models\" "
                      "(section 4.4; Table 5: 89.2 vs 83.0)", numbers=scores(["PP", *lstms], "SST2"))
    claims = [sst] if lstms else []
    # the paper's PP, DAN and proj (the two next best, DAN ahead on both) and PP minus the best other model
    for column, (paper_pp, paper_dan, paper_proj, effect) in {"SICK-R": ("86.40", "85.96", "85.93", 0.44),
                                                              "SICK-E": ("84.6", "84.5", "84.0", 0.1)}.items():
        claims.append(Claim(
            f"Supervised: word averaging wins on {column} (Table 5: PP minus the best other model)",
            lambda ev, r, column=column: np.stack([score(ev, "PP", column, r) - score(ev, n, column, r)
                                                   for n in others]), effect=effect, every_column=True,
            unit="{:+.1f}", numbers=scores(models, column),
            paper="\"using word averaging as the compositional architecture outperforms the other architectures for "
                  f"similarity and entailment\" (section 4.4; Table 5: {paper_pp} vs DAN {paper_dan}, proj "
                  f"{paper_proj})"))
    return [replace(c, budget_free=SUPERVISED_BUDGET) for c in claims] if others else []


#: The evidence key of Table 3's score: Spearman's ρ × 100 on the Pavlick test half, with replicates that resample its
#: pairs (:func:`~reproducer.evaluate.similarity.pavlick_test_score`).
IN_DOMAIN = "PPDB test"


def in_domain_claims(models: list[str]) -> list:
    """Wieting et al.'s claims on Table 3 as :class:`~reproducer.report.claims.Claim`, on each seed's
    :data:`IN_DOMAIN` scores of the trained ``models`` and of the initial vectors (the same resampled pairs for every
    model and seed): all within a few points (the spread, at most 5), the LSTMs best (the better LSTM minus the best
    other trained model) and every trained model above the initial vectors (the worst minus the initial vectors)."""
    def score(ev, name, r=False):
        return np.asarray(ev.score(name, IN_DOMAIN, r))

    def best(ev, names, r):
        return np.maximum.reduce([score(ev, n, r) for n in names])

    def worst(ev, names, r):
        return np.minimum.reduce([score(ev, n, r) for n in names])

    lstms = [n for n in models if n.startswith("LSTM")]
    others = [n for n in models if n not in lstms]

    def scores(names):
        return lambda ev: ", ".join(f"{n} {float(score(ev, n)):.1f}" for n in names)

    claims = [
        Claim("All trained models are within a few points of each other in domain (Table 3, Pavlick test half: the "
              "spread, at most 5 points)", lambda ev, r: best(ev, models, r) - worst(ev, models, r), threshold=5.0,
              at_most=True, effect=2.9, unit="{:+.1f}", numbers=scores(models),
              paper="\"very similar performance across models on the in-domain PPDB tasks\" (section 4.2.2; Table 3, "
                    "Pavlick test: 58.4 to 61.3)"),
        Claim("The LSTMs are best in domain (Table 3, Pavlick test half: the better LSTM minus the best other trained "
              "model)", lambda ev, r: best(ev, lstms, r) - best(ev, others, r), effect=1.0, unit="{:+.1f}",
              numbers=scores(models),
              paper="\"with the LSTM models slightly outperforming the others\" (section 4.2.2; Table 3, Pavlick test: "
                    "61.3 vs RNN 60.3)"),
        Claim("Every trained model beats the averaged initial vectors in domain (Table 3; the worst trained model "
              "minus the initial vectors)",
              lambda ev, r: np.stack([score(ev, n, r) - score(ev, "initial vectors", r) for n in models]),
              effect=3.1, unit="{:+.1f}", numbers=scores([*models, "initial vectors"]), every_column=True,
              paper="\"all found hyperparameters that comfortably beat the paragram-sl999 addition baseline\" "
                    "(section 5; Table 3, Pavlick test: proj 58.4 vs 55.3)"),
    ]
    return claims if lstms and others else claims[::2]  # smoke trains no LSTM besides PP


#: The models Table 7's claim compares, PP first.
LENGTH_CLAIM_MODELS = ("PP", "LSTM (no o.g.)", "LSTM (o.g.)")


def length_key(bin_label: str) -> str:
    """The evidence key of a model's score in one length bin of Table 7 (e.g. ``"Table 7 ≤4"``)."""
    return f"Table 7 {bin_label}"


def length_bin_claim(bins: list[str]) -> Claim:
    """Section 5's claim on Table 7 as a :class:`~reproducer.report.claims.Claim`: PP beats both LSTMs in every length
    bin of ``bins`` (the smallest gap, PP minus the better LSTM, over the bins), on each seed's scores per bin with
    replicates that resample the bin's pairs alike for every model and seed
    (:func:`~reproducer.evaluate.length_bins.length_bin_replicates`)."""
    pp, lstms = LENGTH_CLAIM_MODELS[0], LENGTH_CLAIM_MODELS[1:]

    def score(ev, name, label, r=False):
        return np.asarray(ev.score(name, length_key(label), r))

    def gap(ev, label, r=False):
        return score(ev, pp, label, r) - np.maximum.reduce([score(ev, n, label, r) for n in lstms])

    return Claim("PP beats both LSTMs in every length bin (Table 7; the smallest gap)",
                 lambda ev, r: np.stack([score(ev, pp, b, r) - score(ev, n, b, r) for b in bins for n in lstms]),
                 effect=9.3, unit="{:+.1f}", every_column=True,
                 paper="\"they are still outperformed, at all lengths, by the paragram-phrase model\" (section 5; "
                       "Table 7: smallest gap in the ≤ 4 bin, 72.7 vs 63.4)",
                 numbers=lambda ev: "PP minus the better LSTM: " + ", ".join(f"{b} {float(gap(ev, b)):+.1f}"
                                                                               for b in bins))


def shortest_bin_claims(bins: list[str]) -> list[Claim]:
    """Section 5's other reading of Table 7 as a :class:`~reproducer.report.claims.Claim`: both LSTMs score higher
    on the shortest pairs (the first of ``bins``, shortest first) than in any longer bin (the smallest gap over the
    LSTMs and the longer bins), on the same per-bin scores and replicates as :func:`length_bin_claim`; none with
    fewer than two bins (a tiny test set)."""
    lstms, shortest, longer = LENGTH_CLAIM_MODELS[1:], bins[0], bins[1:]

    def score(ev, name, label, r=False):
        return np.asarray(ev.score(name, length_key(label), r))

    def numbers(ev):
        return "; ".join(f"{n}: " + ", ".join(f"{b} {float(score(ev, n, b)):.1f}" for b in bins) for n in lstms)

    if not longer:
        return []
    return [Claim("The LSTMs do better on the shortest pairs than on any longer ones (Table 7: each LSTM's r in the "
                  "shortest bin minus its r in each longer bin; the smallest gap)",
                  lambda ev, r: np.stack([score(ev, n, shortest, r) - score(ev, n, b, r)
                                          for n in lstms for b in longer]),
                  effect=3.2, unit="{:+.1f}", every_column=True, numbers=numbers,
                  paper="\"while the LSTM models do perform better on the shortest text pairs\" (section 5; Table 7: "
                        "the smallest gap, the LSTM without output gate, 63.4 at ≤ 4 tokens vs 60.2 at 8)")]


#: Why Table 5's and Figure 1's claims are not read along the step budget (issue 70): their models train for their own
#: epochs, whatever the preset's steps (``supervised_epochs``, ``figure_epochs``).
SUPERVISED_BUDGET = ("Table 5 trains fresh supervised models for a fixed number of epochs on each task, whatever "
                     "the step budget")
FIGURE1_BUDGET = "Figure 1 trains PP for a fixed number of epochs on each subset, whatever the step budget"

#: The paper's smallest training subset in Figure 1 (section 5.2.1: "just 92 phrase pairs").
PAPER_FEW_PAIRS = 92
#: The suite of the initial vectors reweighted by PP's norms (section 6), in the claims' evidence.
REWEIGHTED = "initial × PP weight"


def figure1_name(order: str, pairs: int) -> str:
    """The name of PP's suite at one point of Figure 1 in the claims' evidence (e.g. ``"PP on 633 random pairs"``)."""
    return f"PP on {pairs} {order} pairs"


def figure1_claims(sizes: list[int]) -> list:
    """Wieting et al.'s claims on Figure 1 and section 6 as :class:`~reproducer.report.claims.Claim`, on the same
    evidence as :func:`paraphrase_claims` (each point's similarity suite, :func:`figure1_name`; ``sizes``: Figure 1's
    subset sizes, the full set last): performance continually increases with more pairs (the smallest rise between
    neighbouring random subsets), a few pairs already help (the smallest random subset of at least
    :data:`PAPER_FEW_PAIRS` against the initial vectors), random order is usually better than confidence order (the
    mean gap over the smaller subsets), and section 6's share of PP's gain that reweighting the initial vectors by PP's
    norms recovers. Every score is a mean over the datasets, resampled alike for every point and model."""
    def mean(ev, name, r=False):
        return np.asarray(ev.score(name, "T2", r))

    def point(ev, order, n, r=False):
        return mean(ev, figure1_name(order, n), r)

    sizes = sorted(sizes)
    few = next((n for n in sizes if n >= PAPER_FEW_PAIRS), None)  # none: a tiny training set (smoke)
    smaller = sizes[:-1]

    def rise(ev, r):  # one rise per neighbouring pair of subsets (the claim: the smallest of their seed means)
        return np.stack([point(ev, "random", b, r) - point(ev, "random", a, r) for a, b in zip(sizes, sizes[1:])])

    def share(ev, r):
        initial = mean(ev, "initial vectors", r)
        return (mean(ev, REWEIGHTED, r) - initial) / (mean(ev, "PP", r) - initial)

    def points(order):
        return lambda ev: f"{order}: " + ", ".join(f"{n} pairs {float(point(ev, order, n)):.1f}" for n in sizes)

    claims = [
        Claim("Performance continually increases with more training pairs (Figure 1, random order: the smallest rise "
              "from one subset to the next)", rise, every_column=True,
              paper="\"performance continually increases as more training data is added\" (section 5.2.1, Figure 1)",
              numbers=points("random"), unit="{:+.1f}"),
        Claim(f"A few pairs already help: PP trained on the smallest random subset with at least the paper's "
              f"{PAPER_FEW_PAIRS} pairs beats its initial vectors (Figure 1: the gain, mean r × 100)",
              lambda ev, r: point(ev, "random", few, r) - mean(ev, "initial vectors", r), effect=4.0,
              paper="\"the sizable improvement (4 points) over the paragram-sl999 baseline by training on just 92 "
                    "phrase pairs from PPDB\" (section 5.2.1)",
              numbers=lambda ev: f"PP on {few} random pairs {float(point(ev, 'random', few)):.1f}, initial vectors "
                                 f"{float(mean(ev, 'initial vectors')):.1f}", unit="{:+.1f}"),
        Claim("Randomly ordered pairs are usually slightly better than confidence-ordered ones on the smaller subsets "
              "(Figure 1: the mean gap)",
              lambda ev, r: np.mean([point(ev, "random", n, r) - point(ev, "ordered", n, r) for n in smaller], axis=0),
              paper="\"Performance of the randomly permuted data is usually slightly better than that of the ordered "
                    "data\" (section 5.2.1)",
              numbers=lambda ev: points("random")(ev) + "; " + points("ordered")(ev), unit="{:+.1f}"),
        Claim("At least 64.76% of PP's improvement over its initial vectors is due to weighting tokens (section 6: "
              "the share reweighting by PP's norms recovers)", share, threshold=0.6476, effect=0.6476, unit="{:.1%}",
              paper="\"at least 64.76% of the improvement over the initial paragram-sl999 vectors is due to "
                    "weighting tokens by their importance\" (section 6)",
              numbers=lambda ev: f"initial vectors {float(mean(ev, 'initial vectors')):.1f}, reweighted "
                                 f"{float(mean(ev, REWEIGHTED)):.1f}, PP {float(mean(ev, 'PP')):.1f}"),
    ]
    kept = [c for c in claims if few is not None or not c.claim.startswith("A few pairs")]
    return [replace(c, resampled="datasets",  # the suite's datasets are what the bootstrap draws
                    budget_free="" if c.claim.startswith("At least") else FIGURE1_BUDGET) for c in kept]


def recurrent_summary(means: pd.Series, paper_means: pd.Series, n_datasets: int, best: dict, delta: float,
                      table5: pd.DataFrame, paper5: pd.DataFrame, epochs: int) -> str:
    """Markdown: how far the recurrent models trail the averaging ones out of domain (ours and the paper's), the
    RNN's training loss against PP's and the margin 2δ, and the best LSTM against PP on SST-2 after ``epochs``."""
    lstm_sst = table5.loc[[n for n in table5.index if n.startswith("LSTM")], "SST2"]
    worst, best_recurrent = min(AVERAGING, key=means.get), max(RECURRENT, key=means.get)
    gap_ours = means[worst] - means[best_recurrent]
    gap_paper = min(paper_means[n] for n in AVERAGING) - max(paper_means[n] for n in RECURRENT)
    return (f"**The recurrent models in numbers.** Out of domain (mean of {n_datasets} datasets) the worst averaging "
            f"model ({worst}) {'leads' if gap_ours >= 0 else 'trails'} the best recurrent one ({best_recurrent}) by "
            f"{abs(gap_ours):.1f} points (paper: the worst averaging model {gap_paper:+.1f}). The randomly "
            f"initialised RNN ({means['RNN']:.1f}; paper {paper_means['RNN']:.1f}) is the clearest failure: after "
            f"{best['RNN']['steps']} steps its training loss is still {best['RNN']['losses'][-1]['loss']:.2f} "
            f"(PP: {best['PP']['losses'][-1]['loss']:.2f}; 2δ = {2 * delta:.1f} means positives no closer than "
            f"negatives). Supervised on SST-2 (Table 5) after {epochs} epoch(s), the best LSTM reaches "
            f"{lstm_sst.max():.1f}% against PP's {table5.loc['PP', 'SST2']:.1f}% (paper: "
            f"{paper5.loc[lstm_sst.index, 'SST2'].max():.1f}% vs {paper5.loc['PP', 'SST2']:.1f}%).")
