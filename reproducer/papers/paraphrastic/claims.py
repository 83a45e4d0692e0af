"""Wieting et al.'s (2016) claims judged against their noise: on Table 2's mean over our datasets
(:func:`paraphrase_claims`, with :func:`suite_samples` as the evidence: the datasets resampled) and, without test items,
on the spread over training seeds (:func:`point_claims`); and the chapter's summary of how the recurrent models fare
(:func:`recurrent_summary`). Thresholds follow the paper's wording."""
from __future__ import annotations

import pandas as pd

from reproducer.report.claims import Claim, point_claim

#: The averaging and the recurrent models (the architectures of section 3; DAN averages, the iRNN is recurrent).
AVERAGING = ["PP", "proj", "DAN"]
RECURRENT = ["RNN", "iRNN", "LSTM (no o.g.)", "LSTM (o.g.)"]
#: Section 5.1: "our two simplest models: the paragram-phrase embeddings (PP) and our projection model (proj.)".
SIMPLEST = ["PP", "proj"]


def suite_samples(suites: dict[str, list[dict]], datasets: list) -> dict:
    """The :class:`~reproducer.report.claims.Evidence` samples of Table 2: (model, ``"T2"``) → its score × 100 on each
    of ``datasets`` ((task, dataset) pairs, in one order for every model: resampling them is paired)."""
    return {(name, "T2"): pd.DataFrame(suite).set_index(["task", "dataset"]).score.reindex(datasets).to_numpy()
            for name, suite in suites.items()}


def paraphrase_claims() -> list:
    """Wieting et al.'s claims on Table 2's mean over our datasets as :class:`~reproducer.report.claims.Claim`
    (judged on each seed's evidence: :func:`suite_samples`, the datasets resampled), in the paper's words: PP and proj
    outperform the other models (the smallest gap), the iRNN is next best, the LSTM without output gate beats the one
    with it, PP beats its initial vectors."""
    import numpy as np


    def mean(ev, name, r=False):
        return ev.score(name, "T2", r)

    def means(names):
        return lambda ev: ", ".join(f"{n} {mean(ev, n):.1f}" for n in names)

    others = [n for n in AVERAGING + RECURRENT if n not in SIMPLEST]
    rest = [n for n in RECURRENT if n != "iRNN"]
    return [
        Claim("PP and proj outperform the other models out of domain (section 5.1, Table 2 mean; the smallest gap)",
              lambda ev, r: np.minimum.reduce([np.asarray(mean(ev, n, r)) for n in SIMPLEST])
              - np.maximum.reduce([np.asarray(mean(ev, n, r)) for n in others]),
              paper="\"They outperform the other models on all but 5 of the 22 datasets\" (section 5.1)",
              numbers=means(SIMPLEST + others)),
        Claim("The iRNN is next best: it beats the RNN and both LSTMs (section 5.1, Table 2 mean; the smallest gap)",
              lambda ev, r: mean(ev, "iRNN", r) - np.maximum.reduce([np.asarray(mean(ev, n, r)) for n in rest]),
              paper="\"The iRNN model has the next best performance, while the LSTM models lag behind\" (section 5.1)",
              numbers=means(["iRNN", *rest])),
        Claim("LSTM without output gate beats LSTM with it (Table 2 mean)",
              lambda ev, r: mean(ev, "LSTM (no o.g.)", r) - mean(ev, "LSTM (o.g.)", r),
              paper="Table 2: no o.g. above o.g.", numbers=means(["LSTM (no o.g.)", "LSTM (o.g.)"])),
        Claim("PP beats its own initial vectors (Table 2 mean)",
              lambda ev, r: mean(ev, "PP", r) - mean(ev, "initial vectors", r),
              paper="Table 2: paragram-phrase above paragram-SL999", numbers=means(["PP", "initial vectors"])),
    ]


#: The chapter's claims without test items, each a quantity of one seed's numbers (:func:`point_claims`): claim, how
#: it is measured, the threshold, whether at most, the paper's wording.
POINT_CLAIMS = {
    "in-domain spread": ("All trained models are within a few points of each other in domain (Table 3, Pavlick test "
                         "half: the spread, at most 5 points)", 5.0, True, "all within a few points"),
    "in-domain over initial": ("Every trained model beats the averaged initial vectors in domain (Table 3; the worst "
                               "trained model minus the initial vectors)", 0.0, False, "every model above"),
    "length bins": ("PP beats both LSTMs in every length bin (Table 7; the smallest gap)", 0.0, False,
                    "PP above both LSTMs in every bin"),
    "more pairs": ("Performance continually increases with more training pairs (Figure 1, random order: the "
                   "smallest rise from one subset to the next)", 0.0, False,
                   "\"performance continually increases as more training data is added\" (section 5.1, Figure 1)"),
    "random order": ("Randomly ordered pairs are usually slightly better than confidence-ordered ones on the smaller "
                     "subsets (Figure 1: the mean gap)", 0.0, False,
                     "\"Performance of the randomly permuted data is usually slightly better than that of the ordered "
                     "data\" (section 5.1)"),
    "supervised SST-2": ("Supervised: an LSTM beats word averaging on SST-2 (Table 5: the best LSTM minus PP)", 0.0,
                         False, "an LSTM above PP"),
    "supervised SICK-R": ("Supervised: word averaging wins on SICK-R (Table 5: PP minus the best other model)", 0.0,
                          False, "PP best on SICK-R"),
    "reweighting": ("At least 64.76% of PP's improvement over its initial vectors is due to weighting tokens "
                    "(section 6: the share reweighting by PP's norms recovers)", 0.6476, False,
                    "\"at least 64.76% of the improvement over the initial paragram-sl999 vectors is due to weighting "
                    "tokens by their importance\" (section 6)"),
}


def quantities(numbers: dict) -> dict[str, float]:
    """The :data:`POINT_CLAIMS` quantities of one seed's ``numbers``: ``in_domain`` (Table 3's test score per trained
    model), ``initial_in_domain``, ``table7`` (models × length bins), ``figure1`` (``order, pairs, mean r``),
    ``table5`` (models × SICK-R / SICK-E / SST2, PP first), ``share`` (section 6) and ``n_pairs``."""
    in_domain, table7, fig1, table5 = numbers["in_domain"], numbers["table7"], numbers["figure1"], numbers["table5"]
    lstm_bins = table7.loc[["LSTM (no o.g.)", "LSTM (o.g.)"]].max()
    random = fig1[fig1.order == "random"].sort_values("pairs")
    by_order = fig1.pivot(index="pairs", columns="order", values="mean r").drop(numbers["n_pairs"])
    lstms = [n for n in table5.index if n.startswith("LSTM")]
    others = [n for n in table5.index if n != "PP"]
    return {"in-domain spread": float(in_domain.max() - in_domain.min()),
            "in-domain over initial": float(in_domain.min() - numbers["initial_in_domain"]),
            "length bins": float((table7.loc["PP"] - lstm_bins).min()),
            "more pairs": float(random["mean r"].diff().min()) if len(random) > 1 else float("nan"),
            "random order": float((by_order.random - by_order.ordered).mean()) if len(by_order) else float("nan"),
            "supervised SST-2": float(table5.loc[lstms, "SST2"].max() - table5.loc["PP", "SST2"]),
            "supervised SICK-R": float(table5.loc["PP", "SICK-R"] - table5.loc[others, "SICK-R"].max()),
            "reweighting": float(numbers["share"])}


def point_claims(numbers: dict, seeds: list[dict], paper: dict[str, str] | None = None) -> pd.DataFrame:
    """The :data:`POINT_CLAIMS` judged on the main run's ``numbers`` and the spread of the same quantities over the
    ``seeds``' numbers (:func:`quantities`); ``paper``: the paper's numbers in words, by quantity."""
    ours, per_seed = quantities(numbers), [quantities(s) for s in seeds]
    rows = []
    for key, (claim, threshold, at_most, wording) in POINT_CLAIMS.items():
        values = [q[key] for q in per_seed]
        rows.append(point_claim(claim, ours[key], threshold, at_most=at_most, paper=(paper or {}).get(key, wording),
                                unit="{:.1%}" if key == "reweighting" else "{:+.1f}", noise="one run",
                                spread="training seeds",
                                seed_values=values if len(values) >= 2 else None,
                                numbers="seeds: " + ", ".join(("{:.1%}" if key == "reweighting" else "{:+.1f}")
                                                              .format(v) for v in values) if values else ""))
    return pd.DataFrame(rows)


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
