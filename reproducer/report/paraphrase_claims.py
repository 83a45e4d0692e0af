"""Wieting et al.'s (2016) claims checked on our numbers (:func:`claims`), and the chapter's summary of how the
recurrent models fare (:func:`recurrent_summary`). Thresholds follow the paper's wording; see
:mod:`reproducer.report.claims` for the verdicts."""
from __future__ import annotations

import pandas as pd

from reproducer.report.claims import verdict

#: The models the paper groups as averaging and as recurrent (Table 2's comparison).
AVERAGING = ["PP", "proj", "iRNN"]
RECURRENT = ["RNN", "LSTM (no o.g.)", "LSTM (o.g.)"]


def claims(means: pd.Series, in_domain: pd.Series, initial_in_domain: float, table7: pd.DataFrame,
           figure1: pd.DataFrame, table5: pd.DataFrame, norms: pd.DataFrame, share: dict, n_pairs: int) -> pd.DataFrame:
    """One row per claim (``claim``, ``outcome``, ``numbers``). ``means``: Table 2's mean over the datasets per model;
    ``in_domain``: Table 3's test score of each trained model, ``initial_in_domain`` the initial vectors'; ``table7``:
    models × length bins; ``figure1``: ``order, pairs, mean r``; ``table5``: models × SICK-R / SICK-E / SST2 (PP
    first); ``norms``, ``share``: section 6 (:func:`~reproducer.report.similarity_tables.reweighting_table`);
    ``n_pairs``: the full training set."""
    m = means
    spread = in_domain.max() - in_domain.min()
    lstm_bins = table7.loc[["LSTM (no o.g.)", "LSTM (o.g.)"]].max()
    random = figure1[figure1.order == "random"].sort_values("pairs")
    by_order = figure1.pivot(index="pairs", columns="order", values="mean r")
    supervised = list(table5.index)
    lstms = [n for n in supervised if n.startswith("LSTM")]
    others = [n for n in supervised if n != "PP"]
    gain = {c: norms.loc["PP", c] - norms.loc["initial vectors", c] for c in ("ours", "paper")}
    return pd.DataFrame([
        {"claim": "Averaging models (PP, proj, iRNN) beat the RNN and both LSTMs on the mean out-of-domain score",
         "outcome": verdict(min(m[n] for n in AVERAGING) > max(m[n] for n in RECURRENT)),
         "numbers": ", ".join(f"{n} {m[n]:.1f}" for n in AVERAGING + RECURRENT)},
        {"claim": "LSTM without output gate beats LSTM with it (Table 2 mean)",
         "outcome": verdict(m["LSTM (no o.g.)"] > m["LSTM (o.g.)"]),
         "numbers": f"{m['LSTM (no o.g.)']:.1f} vs {m['LSTM (o.g.)']:.1f}"},
        {"claim": "All trained models are within a few points of each other in domain (Pavlick pairs, test half)",
         "outcome": verdict(spread <= 5),
         "numbers": f"spread {spread:.1f} points: " + ", ".join(f"{n} {v:.1f}" for n, v in in_domain.items())},
        {"claim": "PP beats its own initial vectors (Table 2 mean)",
         "outcome": verdict(m["PP"] > m["initial vectors"]),
         "numbers": f"PP {m['PP']:.1f} vs initial vectors {m['initial vectors']:.1f}"},
        {"claim": "PP beats both LSTMs in every length bin (Table 7)",
         "outcome": verdict(bool((table7.loc["PP"] > lstm_bins).all())),
         "numbers": ", ".join(f"{b}: {table7.loc['PP', b]:.1f} vs {lstm_bins[b]:.1f}" for b in table7.columns)},
        {"claim": "More training pairs help (Figure 1 rises, random order)",
         "outcome": verdict(random["mean r"].iloc[-1] > random["mean r"].iloc[0]),
         "numbers": " → ".join(f"{p:,}: {r:.1f}" for p, r in zip(random.pairs, random["mean r"]))},
        {"claim": "Supervised: an LSTM beats word averaging on SST-2 while averaging wins on SICK (Table 5)",
         "outcome": verdict(table5.loc[lstms, "SST2"].max() > table5.loc["PP", "SST2"]
                            and table5.loc["PP", "SICK-R"] >= table5.loc[others, "SICK-R"].max()),
         "numbers": "SST-2: " + ", ".join(f"{n} {table5.loc[n, 'SST2']:.1f}" for n in supervised)
                    + "; SICK-R: " + ", ".join(f"{n} {table5.loc[n, 'SICK-R']:.1f}" for n in supervised)},
        {"claim": "Every trained model beats the averaged initial vectors in domain (Table 3, Pavlick test half)",
         "outcome": verdict(in_domain.min() > initial_in_domain),
         "numbers": f"best trained {in_domain.max():.1f}, worst {in_domain.min():.1f}, initial vectors "
                    f"{initial_in_domain:.1f}"},
        {"claim": "Randomly ordered pairs beat confidence-ordered ones on the smaller subsets (Figure 1)",
         "outcome": verdict(bool((by_order.random - by_order.ordered).drop(n_pairs).gt(0).all())),
         "numbers": ", ".join(f"{n:,}: {r:.1f} vs {o:.1f}" for n, (o, r) in by_order.drop(n_pairs).iterrows())},
        {"claim": "Reweighting the initial vectors by PP's norms recovers most of PP's gain (section 6)",
         "outcome": verdict(gain["ours"] > 0 and share["ours"] > 0.5),
         "numbers": f"ours {share['ours']:.0%} of {gain['ours']:.1f} points (paper {share['paper']:.0%} of "
                    f"{gain['paper']:.1f})"},
    ])


def recurrent_summary(means: pd.Series, paper_means: pd.Series, n_datasets: int, best: dict, delta: float,
                      table5: pd.DataFrame, paper5: pd.DataFrame, epochs: int) -> str:
    """Markdown: how far the recurrent models trail the averaging ones out of domain (ours and the paper's), the
    RNN's training loss against PP's and the margin 2δ, and the best LSTM against PP on SST-2 after ``epochs``."""
    lstm_sst = table5.loc[[n for n in table5.index if n.startswith("LSTM")], "SST2"]
    gap_ours = min(means[n] for n in AVERAGING) - max(means[n] for n in RECURRENT)
    gap_paper = min(paper_means[n] for n in AVERAGING) - max(paper_means[n] for n in RECURRENT)
    return (f"**The recurrent models in numbers.** Out of domain (mean of {n_datasets} datasets) the worst averaging "
            f"model leads the best recurrent one by {gap_ours:.1f} points (paper: {gap_paper:.1f}). The randomly "
            f"initialised RNN ({means['RNN']:.1f}; paper {paper_means['RNN']:.1f}) is the clearest failure: after "
            f"{best['RNN']['steps']} steps its training loss is still {best['RNN']['losses'][-1]['loss']:.2f} "
            f"(PP: {best['PP']['losses'][-1]['loss']:.2f}; 2δ = {2 * delta:.1f} means positives no closer than "
            f"negatives). Supervised on SST-2 (Table 5) after {epochs} epoch(s), the best LSTM reaches "
            f"{lstm_sst.max():.1f}% against PP's {table5.loc['PP', 'SST2']:.1f}% (paper: "
            f"{paper5.loc[lstm_sst.index, 'SST2'].max():.1f}% vs {paper5.loc['PP', 'SST2']:.1f}%).")
