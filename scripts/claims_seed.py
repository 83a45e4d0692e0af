"""Train and score one seed of chapter 01 as its own unit: ``python scripts/claims_seed.py PRESET SEED``.

Chapter 01's default run trains uni-skip and bi-skip for seed 0 and then for each claims seed (about 6 hours in all on
2 CPU cores), longer than one working session; its checkpoints are git-ignored, so a seed cut off halfway is trained
again. This trains one seed whole: exactly what the notebook computes for it — seed 0, the run's own models with their
neighbours and searches (its units cell); a claims seed K, what its claims-seeds cell computes in the same sibling run
(folder ``results/01_skip_thoughts/<preset>+seed=K/``) — under the same result keys, so executing the notebook
afterwards reuses every result and trains only what is missing. A seed whose results are current is reused, not trained again
(``[reused]`` lines): run it at ``quick`` on a current checkout to check that the keys still agree with the notebook.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

def main(argv: list[str] | None = None) -> int:
    from reproducer.notebook import default_parameters, notebook_path, start
    from reproducer.papers.registry import preset as preset_of
    from reproducer.papers.skip_thoughts import chapter as skip_thoughts

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("preset", choices=["quick", "default", "paper"])
    parser.add_argument("seed", type=int, help="0: the notebook's own models; 1 .. seeds - 1: a claims seed")
    args = parser.parse_args(argv)
    # the notebook's parameters cell's defaults: the sibling run's key is made from them
    parameters = {**default_parameters(notebook_path("01_skip_thoughts")), "preset": args.preset}
    if not 0 <= args.seed < parameters["seeds"]:
        parser.error(f"seed must be 0 (the notebook's own models) or a claims seed, 1 to {parameters['seeds'] - 1}")
    run = start("01_skip_thoughts", parameters)
    settings = preset_of("skip-thought", args.preset)
    # as the notebook's set-up cell (not smoke: its tasks, pool and queries are the full ones)
    models = skip_thoughts.SkipThoughtModels(run, settings, tasks=list(skip_thoughts.TASKS),
                                             seed=0, progress=True, pool_size=parameters["pool_size"],
                                             n_queries=parameters["n_queries"], extra_tasks=None)
    models.declare()
    which = next(m for m in models.seeds(parameters["seeds"]) if m.seed == args.seed)
    print(f"seed {args.seed}: {which.run.dir}, {settings.max_steps:,} steps a model", flush=True)
    for name in (*skip_thoughts.SEED_MODELS, *skip_thoughts.BASELINES):  # as the notebook's units or claims-seeds cell
        which.unit(name, neighbours=which is models)
        print(f"seed {args.seed}: {name} done", flush=True)
    return 0


if __name__ == "__main__":  # the corpus is built by worker processes that import this module again
    sys.exit(main())
