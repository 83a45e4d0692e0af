"""Training data for a model with a pre-trained channel (MC-QT, Logeswaran & Lee 2018): the corpus as ids of a big
vocabulary — the trained words, then every other word with a pre-trained vector — beside the small vocabulary whose
embeddings are trained from scratch."""
from __future__ import annotations

from reproducer.data.batches import TokenizedCorpus
from reproducer.data.training_data import TrainingData
from reproducer.data.vectors import pretrained_channel


def with_pretrained_channel(corpus, data: TrainingData, vectors) -> TrainingData:
    """``data`` (``corpus`` as ids of its small ``data.vocab``) for a two-channel model: ``tokenized`` becomes
    ``corpus`` as ids of the big vocabulary of :func:`~reproducer.data.vectors.pretrained_channel` (``data.vocab``
    then every other word of the :class:`~reproducer.data.vectors.WordVectors` ``vectors``, so the small ids keep
    their meaning), and ``pretrained = (big vocabulary, rows)`` holds the fixed vectors (zero rows for words without
    one)."""
    channel = pretrained_channel(data.vocab, vectors)
    return TrainingData(tokenized=TokenizedCorpus.from_corpus(corpus, channel[0]), vocab=data.vocab, pretrained=channel)
