"""The claims scorecard of chapter 06: every claim that the papers' chapters judged (each chapter's ``claims.json``, written
by :func:`reproducer.report.claims.check` and ``run.record("claims", …)``) in one table, with the paper it comes
from and a link to the chapter, and the outcomes counted per paper.

- :func:`scorecard`: the claims of every chapter at one preset, read from ``results/<chapter>/<preset>/claims.json``.
- :func:`paper_counts`: each outcome per paper, and how many were decided.
- :func:`scorecard_table`: the scorecard as a Styler (outcomes coloured, the chapter as a link).
- :func:`verdicts`: the scorecard in one screen: per paper, then the book's own questions, each claim's short name,
  its outcome and a one-line reason (shown by :meth:`reproducer.report.page.Page.verdicts`).
- :func:`across_presets`: each claim's outcome at two presets side by side (what longer training changes).
- :func:`stable_summary`: what holds, fails or leans against the paper at both presets (generated, not written).
- :func:`undecided_summary`: why the inconclusive claims are undecided, from their seeds.
- :func:`seeds_summary`: where the claims' training noise comes from (seeds at the claims' own preset, or another).
- :func:`multiplicity`: each claim's p-value equivalent and its outcome after Holm's correction across the scorecard.
- :func:`stale`: where chapter 06's recorded scorecard at a preset no longer says what the chapters' claims say.
"""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from reproducer.errors import ReproducerError
from reproducer.files import read_json, stored_json
from reproducer.papers.registry import DECLARATIONS
from reproducer.report.claims import BOOK, COLOURS, DECIDED, short_claim, verdict_reason


def chapters() -> dict[str, tuple[str, str]]:
    """The chapters whose claims the scorecard collects, one per declared paper (:mod:`reproducer.papers`), in
    chapter order: folder name → (paper's citation, short title)."""
    return {p.chapter: (p.citation, p.title) for p in DECLARATIONS.values()}


#: The outcomes in the order the counts show them.
OUTCOMES = tuple(COLOURS)  # reproduced, not reproduced, smaller than published, inconclusive, not checked
#: The columns of :func:`scorecard`.
COLUMNS = ["paper", "chapter", "claim", "outcome", "ours", "threshold", "paper's effect", "published", "numbers", "noise",
           "bootstrap", "value", "low", "high", "threshold value", "at most", "effect value", "seed values", "source",
           "trend", "direction", "slope", "slope low", "slope high", "crossing", "trend budgets"]  # the trend: issue 70
#: The row of :func:`paper_counts` that counts the book's own claims (training beats the same encoder untrained, and
#: the checks no paper states): short, so that the counts stay in the text column (issue 69).
BOOK_ROW = f"{BOOK} questions"


def scorecard(preset: str = "default", root: str | Path = "results", missing: str = "raise") -> pd.DataFrame:
    """Every claim of the papers' chapters (:func:`chapters`) at ``preset``: one row per claim (columns :data:`COLUMNS`; ``published`` is the
    paper's number as the chapter states it, ``chapter`` the chapter's folder), in chapter order. ``root`` is the
    results folder. A chapter without ``claims.json`` raises (``missing="raise"``) or is left out
    (``missing="skip"``, e.g. at ``smoke``, where a chapter may not have run)."""
    if missing not in ("raise", "skip"):
        raise ValueError(f"missing must be 'raise' or 'skip', got {missing!r}")
    frames = []
    for chapter, (paper, _) in chapters().items():
        path = Path(root) / chapter / preset / "claims.json"
        if stored_json(path) is None:
            if missing == "raise":
                raise ReproducerError(f"No claims for chapter {chapter} at the {preset!r} preset ({path} is missing): "
                                      f"execute notebooks/{chapter}.ipynb with -p preset {preset} first.")
            continue
        rows = pd.DataFrame(read_json(path))
        unknown = set(rows.get("outcome", pd.Series(dtype=str))) - set(OUTCOMES)
        if "claim" not in rows or "outcome" not in rows or unknown:
            raise ReproducerError(f"{path} is not a claims table (needs 'claim' and 'outcome' in {', '.join(OUTCOMES)}"
                                  f"{'; got ' + ', '.join(sorted(unknown)) if unknown else ''}).")
        frames.append(rows.rename(columns={"paper": "published"}).assign(paper=paper, chapter=chapter))
    if not frames:
        return pd.DataFrame(columns=COLUMNS)
    card = pd.concat(frames, ignore_index=True).reindex(columns=COLUMNS)
    card["source"] = card["source"].astype(object).fillna("paper")  # rows written before the book asked its own
    return card


#: The folder of chapter 06, whose ``scorecard.json`` records the scorecard it showed.
COMPARISON = "06_comparison"
#: The fields of a claim that the recorded scorecard must carry as its chapter states them (:func:`stale`).
CURRENT = ("outcome", "value", "low", "high")


def stale(preset: str, root: str | Path = "results") -> list[str]:
    """What chapter 06's recorded scorecard at ``preset`` (``<root>/06_comparison/<preset>/scorecard.json``) gets
    wrong about the chapters' current claims (:func:`scorecard`): a claim it lacks, one no chapter makes any more, or
    one whose outcome or interval (:data:`CURRENT`) has changed since — one line each; empty when chapter 06 is
    current (issue 68: the quick scorecard had 59 rows while the chapters had 67). A preset chapter 06 never ran at
    is stale only if some chapter has claims at it."""
    card = scorecard(preset, root, missing="skip")
    path = Path(root) / COMPARISON / preset / "scorecard.json"
    if stored_json(path) is None:
        return [f"no scorecard at {preset!r}, but chapters {', '.join(sorted(set(card['chapter'])))} have claims"
                ] if len(card) else []
    theirs = {(r["chapter"], r["claim"]): r for r in card.to_dict(orient="records")}
    ours = {(r["chapter"], r["claim"]): r for r in read_json(path)}
    lines = [f"{c}: {k!r} is missing from the scorecard" for (c, k) in theirs.keys() - ours.keys()]
    lines += [f"{c}: {k!r} is no longer a claim of the chapter" for (c, k) in ours.keys() - theirs.keys()]
    for key in theirs.keys() & ours.keys():
        changed = [f for f in CURRENT if not _same(theirs[key].get(f), ours[key].get(f))]
        if changed:
            lines.append(f"{key[0]}: {key[1]!r} changed ({', '.join(f'{f} {ours[key].get(f)!r} -> {theirs[key].get(f)!r}' for f in changed)})")
    return sorted(lines)


def _same(a, b) -> bool:
    """Two stored fields alike: equal, or both missing (``None``/NaN)."""
    return (pd.isna(a) and pd.isna(b)) or a == b


def claim_groups(card: pd.DataFrame) -> pd.Series:
    """Each claim's group in the counts and the verdict: its paper, or :data:`BOOK_ROW` for the book's own claims."""
    own = card.get("source", pd.Series("paper", index=card.index)).eq(BOOK)
    return card["paper"].where(~own, BOOK_ROW)


def group_order() -> list[str]:
    """The groups in the order the book shows them: the papers in chapter order, then the book's own questions."""
    return [p for p, _ in chapters().values()] + [BOOK_ROW]


def paper_counts(card: pd.DataFrame, outcome: str = "outcome") -> pd.DataFrame:
    """The outcomes of ``card`` (:func:`scorecard`) counted per paper (the papers' own claims), in chapter order,
    the book's own claims of every chapter in one row (:data:`BOOK_ROW`, when there are any), with ``decided``
    (reproduced, not reproduced, smaller than published), ``claims`` and a ``total`` row. ``outcome``: the column
    counted (``"outcome (Holm)"``: after Holm's correction, :func:`multiplicity`)."""
    paper = claim_groups(card)
    order = [p for p in group_order() if p in set(paper)]
    table = (pd.crosstab(paper, card[outcome]).reindex(index=order, columns=list(OUTCOMES), fill_value=0)
             if len(card) else pd.DataFrame(columns=list(OUTCOMES)))
    table["decided"] = table[list(DECIDED)].sum(axis=1)
    table["claims"] = table[list(OUTCOMES)].sum(axis=1)
    table.loc["total"] = table.sum()
    table.columns.name = None
    return table.astype(int)


def scorecard_table(card: pd.DataFrame, link: str = "{chapter}.html"):
    """``card`` as a Styler: paper, claim, outcome (coloured as in every chapter), ours with its 95% interval, the
    threshold the wording sets, the paper's own effect, the noise the interval holds (its sources, the number of
    training seeds and their preset), and the chapter as a link (``link`` formats its target from the chapter's folder
    name; the default works from the book's pages, which sit side by side). The paper's sentence and the numbers
    behind each outcome are in the chapter's own claims table: here they would make every row several lines taller."""
    shown = card[["paper", "claim", "outcome", "ours", "threshold", "paper's effect", "noise", "chapter"]].copy()
    shown["chapter"] = [f'<a href="{link.format(chapter=c)}">{c[:2]}</a>' for c in shown["chapter"]]
    return shown.style.hide(axis="index").map(COLOURS.get, subset=["outcome"]).format(na_rep="")


def verdicts(card: pd.DataFrame) -> pd.DataFrame:
    """``card`` (:func:`scorecard`) as the one-screen verdict (issue 69): ``group`` (the paper, in chapter order; the
    book's own claims of every chapter last, as :data:`BOOK_ROW`), the claim's short name (:func:`short_claim`), its
    ``outcome``, a one-line ``reason`` (:func:`verdict_reason`) and the ``chapter`` it is judged in."""
    if card.empty:
        return pd.DataFrame(columns=["group", "claim", "outcome", "reason", "chapter"])
    order = {p: i for i, p in enumerate(group_order())}
    frame = pd.DataFrame({"group": claim_groups(card), "claim": card["claim"].map(short_claim),
                          "outcome": card["outcome"], "reason": [verdict_reason(row) for _, row in card.iterrows()],
                          "chapter": card["chapter"]})
    rank = frame["group"].map(lambda g: order.get(g, len(order)))
    return frame.assign(_rank=rank).sort_values("_rank", kind="stable").drop(columns="_rank").reset_index(drop=True)


def across_presets(root: str | Path = "results", presets: tuple[str, str] = ("quick", "default"),
                   changed_only: bool = True) -> pd.DataFrame:
    """Each claim's outcome and our number at two presets side by side (``presets``: the shorter training first), to
    show which outcomes longer training moves. Claims are matched by chapter and wording; a claim checked at one
    preset only is left out, as are chapters missing at either. ``changed_only`` keeps the claims whose outcome
    differs. Columns: paper, claim, then ``outcome`` and ``ours`` under each preset's name, and ``chapter``."""
    first, second = (scorecard(p, root, missing="skip") for p in presets)
    keys = ["paper", "chapter", "claim"]
    both = first[keys + ["outcome", "ours"]].merge(second[keys + ["outcome", "ours"]], on=keys,
                                                   suffixes=tuple(f" ({p})" for p in presets))
    if changed_only:
        both = both[both[f"outcome ({presets[0]})"] != both[f"outcome ({presets[1]})"]]
    return both[["paper", "claim", *(f"{c} ({p})" for p in presets for c in ("outcome", "ours")), "chapter"]
                ].reset_index(drop=True)


def _wrong_side(row) -> bool:
    """Whether a claim row's point value lies on the side of its threshold the paper's claim denies."""
    value, threshold = row["value"], row["threshold value"]
    return bool(pd.notna(value) and (value > threshold if row["at most"] else value < threshold))


def stable_summary(root: str | Path = "results", presets: tuple[str, str] = ("quick", "default")) -> str:
    """Markdown, generated from the claims of both ``presets``: the claims *reproduced* at both (what holds at every
    budget we tried), those *not reproduced* or *smaller than published* at both, and those undecided whose point value
    leans against the paper at both (candidates for a real disagreement that a larger run should settle); empty when
    either preset has no claims."""
    cards = [scorecard(p, root, missing="skip") for p in presets]  # each read once: outcomes and raw values
    keys = ["chapter", "claim"]
    raw = ["outcome", "value", "threshold value", "at most"]
    both = cards[0][keys + raw].merge(cards[1][keys + raw], on=keys, suffixes=tuple(f" ({p})" for p in presets))
    if both.empty:
        return ""
    first, second = (f"outcome ({p})" for p in presets)

    def listed(rows) -> str:
        return "; ".join(f"{r.claim} (chapter {r.chapter[:2]})" for r in rows.itertuples()) or "none"

    def wrong_side(row, p) -> bool:
        return _wrong_side({c: row[f"{c} ({p})"] for c in raw[1:]})

    same = both[both[first] == both[second]]
    held = same[same[first] == "reproduced"]
    against = same[same[first].isin(["not reproduced", "smaller than published"])]
    leaning = both[[all(wrong_side(row, p) for p in presets) and "inconclusive" in (row[first], row[second])
                    for _, row in both.iterrows()]]
    return (f"- **What holds at both budgets** ({len(held)} claims *reproduced* at `{presets[0]}` and at "
            f"`{presets[1]}`): {listed(held)}.\n"
            f"- **Against the paper at both budgets** ({len(against)}): {listed(against)}.\n"
            f"- **Leaning against the paper, undecided** ({len(leaning)}: the point value on the side the paper denies "
            f"at both budgets, the interval wide): {listed(leaning)}.")


def undecided_summary(card: pd.DataFrame) -> str:
    """Markdown: why the *inconclusive* claims of ``card`` (:func:`scorecard`) are undecided, counted from their
    numbers: the claims whose training seeds all fall on one side of the threshold (the interval is wide because of
    the test items' noise and Student's t with few seeds), those whose seeds straddle it (the seeds disagree), and
    those with no seeds (the test items' noise alone)."""
    from scipy import stats

    open_ = card[card["outcome"] == "inconclusive"]
    if open_.empty:
        return "No claim is inconclusive at this preset."
    one_side, straddle, none, widths = 0, 0, 0, set()
    for _, row in open_.iterrows():
        seeds = row["seed values"] if isinstance(row["seed values"], list) else []
        if len(seeds) < 2:
            none += 1
            continue
        sides = {v >= row["threshold value"] for v in seeds}
        if len(sides) == 1:
            one_side += 1
            widths.add(len(seeds))
        else:
            straddle += 1
    t = ", ".join(f"t = {stats.t.ppf(0.975, n - 1):.1f} for {n} seeds" for n in sorted(widths))
    return (f"Of the **{len(open_)} inconclusive** claims, **{one_side}** have every training seed on the same side of "
            f"the threshold: their intervals straddle it because of the test items' noise and Student's t with so few "
            f"seeds ({t}), not because the seeds disagree; more seeds at this budget would narrow them. **{straddle}** "
            f"have seeds on both sides (the seeds disagree), and **{none}** have no seeds (the test items' noise alone).")


def seeds_summary(card: pd.DataFrame, preset: str) -> str:
    """Markdown: where the training noise of ``card``'s claims (:func:`scorecard` at ``preset``) comes from, counted
    from their noise column: how many claims are the mean over seeds trained at ``preset`` itself (the runs the claim
    is about), how many are one run judged on the spread of seeds trained elsewhere or around it (e.g. shorter runs:
    not the spread of the ``preset`` runs), and how many have no training seeds (test items or timing repeats
    alone)."""
    import re

    found = card["noise"].map(lambda noise: re.search(r"(the mean of )?\d+ training seeds at `(\w+)`", noise))
    own = int(sum(bool(m and m[1] and m[2] == preset) for m in found))
    none = int(sum(m is None for m in found))
    other = len(card) - own - none
    text = (f"Of the **{len(card)}** claims at `{preset}`, **{own}** are the mean over training seeds trained at "
            f"`{preset}` itself, as long as the runs the claims are about")
    if other:
        borrowed = sorted({m[2] for m in found if m and not (m[1] and m[2] == preset)})
        text += (f"; **{other}** are one run judged on the spread of seeds trained at "
                 + " or ".join(f"`{b}`" for b in borrowed)
                 + (" (shorter runs, whose spread is not that of the runs the claims are about)"
                    if any(b != preset for b in borrowed) else ""))
    return text + f"; **{none}** have no training seeds (the test items' noise, or timing repeats, alone)."


#: The level of every interval (95%) and the family-wise error rate Holm's correction keeps.
LEVEL = 0.05


def p_equivalent(row) -> float:
    """A claim row's two-sided p-value equivalent for the boundary that decided it: the distance from the value to the
    threshold (*reproduced*, *not reproduced*, *inconclusive*) or to the paper's effect (*smaller than published*),
    in standard errors read off the side of its 95% interval that faces that boundary (the interval's half-width over
    1.96: the same normal reading as the interval, so p < 0.05 exactly when the interval excludes the boundary). NaN
    for a row without an interval or a needed number."""
    from scipy import stats

    value, low, high = (row.get(k) for k in ("value", "low", "high"))
    if any(pd.isna(x) for x in (value, low, high)):
        return float("nan")
    boundary = row.get("effect value") if row["outcome"] == "smaller than published" else row.get("threshold value")
    if pd.isna(boundary):
        return float("nan")
    half = (value - low) if boundary < value else (high - value)
    if half <= 0:
        return 0.0 if boundary != value else 1.0
    z = abs(value - boundary) / (half / stats.norm.ppf(1 - LEVEL / 2))
    return float(2 * stats.norm.sf(z))


def holm(p: pd.Series) -> pd.Series:
    """Holm's step-down adjusted p-values (the family: every finite ``p``; NaN stays NaN)."""
    finite = p.dropna().sort_values()
    m = len(finite)
    adjusted = (finite * (m - pd.Series(range(m), index=finite.index))).cummax().clip(upper=1.0)
    return adjusted.reindex(p.index)


def multiplicity(card: pd.DataFrame) -> pd.DataFrame:
    """``card`` with ``p`` (:func:`p_equivalent`), ``p (Holm)`` (:func:`holm` across the whole scorecard: with ~70
    decisions at 95%, about 3-4 would be wrong by chance alone) and ``outcome (Holm)``: a decided outcome whose
    adjusted p is not below :data:`LEVEL` becomes *inconclusive*; the others (and a row without a p) are unchanged."""
    out = card.copy()
    out["p"] = [p_equivalent(row) for _, row in card.iterrows()] if len(card) else []
    out["p (Holm)"] = holm(out["p"].astype(float))
    held = out["outcome"].isin(DECIDED) & (out["p (Holm)"] >= LEVEL)  # a row without p (stored before): kept
    out["outcome (Holm)"] = out["outcome"].where(~held, "inconclusive")
    return out


def holm_summary(card: pd.DataFrame) -> str:
    """What Holm's correction (:func:`multiplicity`, already applied to ``card``) changes, in one Markdown line: the
    decided outcomes that stand and those that become *inconclusive* (named), among the claims with a p."""
    tested = card["p"].notna()
    decided = card["outcome"].isin(DECIDED)
    fall = card[decided & (card["outcome (Holm)"] == "inconclusive")]
    text = (f"**Chance, counted:** {int(tested.sum())} claims are tests at 95%; Holm's correction across all of them "
            f"keeps the family-wise error at 5%. Of the {int(decided.sum())} decided outcomes, "
            f"**{int(decided.sum()) - len(fall)} stand** after it")
    if fall.empty:
        return text + "; none becomes inconclusive."
    return text + f" and **{len(fall)} become inconclusive**: " + "; ".join(
        f"{r.claim} ({r.outcome}, p = {r.p:.3f}, after Holm {r['p (Holm)']:.2f})" for _, r in fall.iterrows()) + "."
