"""Encoder bundles that describe themselves: what a saved encoder is, so that loading it needs no list of kinds.

A bundle is one file of :mod:`reproducer.checkpoints` (a digest verified on loading, ``weights_only=True``) holding
plain data::

    {"format": "reproducer-encoder/2", "kind": "TokenEncoder", "name": "uni-skip",
     "modules": ["reproducer.encoders.trained", "reproducer.encoders.recurrent"],   # where its classes live
     ...what the kind needs: a module spec, a vocabulary, the weights, or the bundles of its parts}

Two registries, filled by the modules that define the classes (so this module imports none of them):

- **encoder kinds** (:func:`encoder_kind`): an encoder class with ``to_bundle()`` and a ``from_bundle(bundle, device,
  **options)`` class method — :class:`~reproducer.encoders.trained.TokenEncoder`,
  :class:`~reproducer.encoders.trained.ConcatEncoder` (e.g. Quick-Thoughts' ``[f; g]``), the consensus views
  (:class:`~reproducer.encoders.multiview.MultiViewEncoder`);
- **module classes** (:func:`savable`): an ``nn.Module`` with ``spec()`` (its constructor's sizes, JSON-like) and a
  ``from_spec(spec)`` class method that builds it with placeholder weights, which the state dict then fills.

:func:`load_encoder` imports the Python modules the bundle names (which registers their classes), then calls the
kind's ``from_bundle``: a new encoder family adds a class and a decorator, nothing here.
"""
from __future__ import annotations

import importlib
from pathlib import Path

from torch import nn

from reproducer import checkpoints
from reproducer.errors import ReproducerError

FORMAT = "reproducer-encoder/2"
_KINDS: dict[str, type] = {}
_MODULES: dict[str, type] = {}


def encoder_kind(cls: type) -> type:
    """Class decorator: ``cls`` (with ``to_bundle`` and ``from_bundle``) can be saved and loaded by name."""
    _KINDS[cls.__name__] = cls
    return cls


def savable(cls: type) -> type:
    """Class decorator: the ``nn.Module`` ``cls`` (with ``spec`` and ``from_spec``) can be rebuilt from a spec."""
    _MODULES[cls.__name__] = cls
    return cls


def module_spec(module: nn.Module) -> dict:
    """``{"class": ..., "module": ..., **module.spec()}``: how to rebuild ``module`` (sub-modules nest)."""
    if type(module).__name__ not in _MODULES:
        raise ReproducerError(f"{type(module).__name__} cannot be saved: give it spec()/from_spec() and @savable.")
    return {"class": type(module).__name__, "module": type(module).__module__, **module.spec()}


def build_module(spec: dict) -> nn.Module:
    """The module a :func:`module_spec` describes, with placeholder weights."""
    _import(spec["module"])
    if spec["class"] not in _MODULES:
        raise ReproducerError(f"Unknown module class {spec['class']!r} in an encoder bundle.")
    return _MODULES[spec["class"]].from_spec(spec)


def python_modules(spec: dict) -> list[str]:
    """Every Python module a nested spec names (the classes a bundle needs registered)."""
    found = [spec["module"]] if isinstance(spec.get("module"), str) else []
    for value in spec.values():
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, dict):
                found += python_modules(item)
    return list(dict.fromkeys(found))


def _import(name: str) -> None:
    if not name.startswith("reproducer."):
        raise ReproducerError(f"An encoder bundle may only name reproducer's own modules, not {name!r}.")
    importlib.import_module(name)


def new_bundle(encoder, **fields) -> dict:
    """The fields every bundle has (format, kind, name, the Python module of the kind) plus ``fields``."""
    return {"format": FORMAT, "kind": type(encoder).__name__, "kind_module": type(encoder).__module__,
            "name": encoder.name, **fields}


def save_encoder(encoder, path: str | Path) -> Path:
    """Write ``encoder.to_bundle()`` atomically to ``path``, with its digest."""
    return checkpoints.save(encoder.to_bundle(), path)


def from_bundle(bundle: dict, device=None, **options):
    """The encoder a bundle dict describes (``options`` go to its kind, e.g. a consensus view or pooling rule)."""
    if not isinstance(bundle, dict) or bundle.get("format") != FORMAT:
        raise ReproducerError("This is not an encoder bundle of this version (a training checkpoint? save the encoder with "
                              "its save() method).")
    missing = [k for k in ("kind", "kind_module", "name") if k not in bundle]
    if missing:
        raise ReproducerError(f"This encoder bundle has no {', '.join(missing)}: it was not written by an encoder's "
                              "save().")
    try:
        _import(bundle["kind_module"])
    except ImportError as e:
        raise ReproducerError(f"This encoder bundle names the module {bundle['kind_module']!r}, which cannot be "
                              f"imported ({e}): it was written by another version of reproducer, or by hand.") from None
    if bundle["kind"] not in _KINDS:
        raise ReproducerError(f"Unknown encoder kind {bundle['kind']!r}.")
    try:
        return _KINDS[bundle["kind"]].from_bundle(bundle, device, **options)
    except KeyError as e:
        raise ReproducerError(f"This {bundle['kind']} bundle has no field {e}: it was written by another version of "
                              "reproducer, or by hand.") from None


def load_encoder(path: str | Path, device=None, **options):
    """The encoder saved at ``path`` by its ``save()`` method, on ``device`` (default: CUDA when available).
    ``options`` are the kind's load-time choices: ``view`` and ``pooling`` for consensus models,
    ``normalize_halves`` for the mean-max autoencoders."""
    path = Path(path)
    bundle = checkpoints.load(path, what="encoder bundle",
                              fix="Delete it and train the model again (python -m reproducer train, or the chapter).")
    try:
        return from_bundle(bundle, device, **options)
    except ReproducerError as e:
        raise ReproducerError(f"{path}: {e}") from e


class ConfiguredModule:
    """Mixin for a module built as ``cls(config_class(**fields))`` whose word table has ``config.vocab_size``
    rows: its spec is the config with the table's current size (vocabulary expansion grows it)."""

    config_class: type

    def spec(self) -> dict:
        return {"config": {**self.config.to_dict(), "vocab_size": self.embed.num_embeddings}}

    @classmethod
    def from_spec(cls, spec: dict):
        return cls(cls.config_class(**spec["config"]))
