"""Exceptions raised by the library. Each message says what happened and what to do about it."""
from __future__ import annotations


class ReproducerError(Exception):
    """Base class of every error this library raises on purpose."""


class DataError(ReproducerError):
    """A dataset could not be fetched, verified or read."""


class UnknownDatasetError(DataError, KeyError):
    """A dataset name that is not in the registry."""

    def __str__(self) -> str:  # KeyError would repr() the message
        return str(self.args[0])


class MirrorUnreachableError(DataError):
    """The data source (mirror directory, mirror URL or upstream URL) could not be read."""


class ChecksumMismatchError(DataError):
    """A file's SHA-256 differs from the registry's."""

    def __init__(self, file: str, expected: str, actual: str, hint: str = ""):
        self.file, self.expected, self.actual = file, expected, actual
        super().__init__(
            f"Checksum mismatch for {file}: expected sha256 {expected}, got {actual}. {hint}".strip()
        )


class TruncatedGzipError(DataError):
    """A gzip file ends before its end-of-stream marker (an interrupted download or copy)."""


class NotCachedError(DataError):
    """A dataset is needed but not in the local cache, and fetching it needs the user's say-so."""


class DamagedResultError(ReproducerError):
    """A stored result that cannot be trusted (its shared gold scores missing or changed): the results cache computes
    it again."""


class ReproducerWarning(UserWarning):
    """Base class of the warnings this library gives: the run goes on, but its numbers may mean little."""


class DegenerateEmbeddingWarning(ReproducerWarning):
    """An encoder gave the same vector for every sentence of a task: its scores are those of chance."""
