"""Data: the dataset registry, loaders, the Gutenberg corpus, vocabulary and word vectors."""
from reproducer.data.registry import data_dir, dataset, fetch, mirror, registry, require, status

__all__ = ["data_dir", "dataset", "fetch", "mirror", "registry", "require", "status"]
