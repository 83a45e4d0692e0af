"""Data: the dataset registry, loaders, the Gutenberg corpus, vocabulary and word vectors."""
from reproducer.data.registry import all_datasets, data_dir, dataset, fetch, mirror, require, status

__all__ = ["all_datasets", "data_dir", "dataset", "fetch", "mirror", "require", "status"]
