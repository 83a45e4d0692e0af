"""The claims of a paper checked on our numbers: one row per claim with its outcome and the numbers behind it."""
from __future__ import annotations

import pandas as pd

#: Colours of the outcome column (green, red, grey).
COLOURS = {"reproduced": "color: #1a7f37; font-weight: bold", "not reproduced": "color: #b42318; font-weight: bold",
           "not checked": "color: #666666"}


def verdict(ok: bool | None) -> str:
    """``"reproduced"``, ``"not reproduced"``, or ``"not checked"`` when a needed number is missing (``None``)."""
    return "not checked" if ok is None else "reproduced" if ok else "not reproduced"


def claim_table(claims: pd.DataFrame):
    """``claims`` (columns ``claim``, ``outcome``, ``numbers``) as a Styler: no index, outcomes coloured."""
    unknown = set(claims["outcome"]) - set(COLOURS)
    if unknown:
        raise ValueError(f"Outcomes must be made by verdict(): got {sorted(unknown)}.")
    return claims.style.hide(axis="index").map(COLOURS.get, subset=["outcome"])
