"""The steps each committed training record reached, and the models whose seeds disagree (issue 67).

A preset's budget is a number of steps, so every training seed of a model at one preset trains the same number of
steps; a record that differs comes from before budgets were steps (it stopped on seconds) and is a unit to retrain.
:func:`training_steps` reads ``results/<chapter>/<preset>[+seed=k]/<model>_training.json`` (plain or compressed) into
a table; :func:`unequal_steps` keeps the (chapter, preset, model) groups whose seeds disagree.
"""
from __future__ import annotations

import re
from pathlib import Path

import pandas as pd

from reproducer.files import COMPRESSED, read_json

#: A run folder of a preset's main run or of one of its training seeds (other parameters make other runs).
RUN_FOLDER = re.compile(r"^(?P<preset>[a-z]+)(\+seed=(?P<seed>\d+))?$")
SUFFIX = "_training.json"
#: A training record's file name, plain or in one of its compressed forms.
RECORD = re.compile(rf"^(?P<model>.+){re.escape(SUFFIX)}({'|'.join(map(re.escape, COMPRESSED))})?$")
COLUMNS = ["chapter", "preset", "seed", "model", "steps", "seconds"]


def _record_name(path: Path) -> str | None:
    """The model's file slug of a training record's path (``uni-QT_training.json.xz`` -> ``uni-QT``), else None."""
    match = RECORD.match(path.name)
    return match["model"] if match else None


def training_steps(results: str | Path) -> pd.DataFrame:
    """One row per training record under ``results`` (chapter folders, then run folders :data:`RUN_FOLDER`):
    :data:`COLUMNS`, the steps and training seconds the record states; sorted by chapter, preset, model, seed."""
    rows = []
    for chapter in sorted(p for p in Path(results).iterdir() if p.is_dir()):
        for run in sorted(p for p in chapter.iterdir() if p.is_dir()):
            match = RUN_FOLDER.match(run.name)
            if not match:
                continue
            for path in sorted(run.iterdir()):
                model = _record_name(path)
                if model is None:
                    continue
                record = read_json(run / f"{model}{SUFFIX}")
                if not isinstance(record, dict) or "step" not in record:
                    continue
                rows.append({"chapter": chapter.name, "preset": match["preset"], "seed": int(match["seed"] or 0),
                             "model": model, "steps": int(record["step"]), "seconds": record.get("seconds")})
    frame = pd.DataFrame(rows, columns=COLUMNS)
    return frame.sort_values(["chapter", "preset", "model", "seed"], ignore_index=True)


def unequal_steps(steps: pd.DataFrame) -> pd.DataFrame:
    """The rows of :func:`training_steps` whose (chapter, preset, model) has seeds at different steps: the units to
    retrain (each group's most common step count is the budget the others missed, where there is one)."""
    groups = steps.groupby(["chapter", "preset", "model"])["steps"]
    return steps[groups.transform("nunique") > 1].reset_index(drop=True)
