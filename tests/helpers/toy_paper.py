"""The toy sixth paper of the tests: a declaration and an objective written into a temporary folder that is added to
``reproducer.papers``' search path (the ``sixth_paper`` fixture of ``tests/conftest.py``). Nothing else of the
library names it: what it reaches (the registry, ``fit``, the ``train`` command, ``bench train``, the GPU plan's
bench, the scorecard), it reaches from its declaration alone. Its corpus is the tests' toy books (:class:`ToyBooks`,
also the ``books`` fixture)."""


class ToyBooks:
    """A toy corpus shaped like :class:`~reproducer.data.corpus.Corpus` (``sentences``, ``book_spans``): books of
    ``sizes`` sentences whose words repeat, for contiguous-batch objectives."""

    def __init__(self, sizes=(7, 5, 9)):
        self.sentences, self.book_spans = [], []
        for b, n in enumerate(sizes):
            start = len(self.sentences)
            self.sentences += [f"w{(b * 7 + i) % 13} w{i % 5} x{b}" for i in range(n)]
            self.book_spans.append((b, start, len(self.sentences)))


TOY_OBJECTIVE = '''
"""A toy objective: the contract's smallest instance that trains — a word average that picks its neighbouring
sentences among the batch's (a Quick-Thoughts with f = g), on three tiny books."""
import torch

from reproducer.data.batches import ContiguousSampler, TokenizedCorpus
from reproducer.data.training_data import TrainingData
from reproducer.data.vocab import Vocabulary
from reproducer.encoders.channels import AverageEncoder
from reproducer.encoders.trained import TokenEncoder
from reproducer.fit import Objective
from reproducer.objectives.context import context_loss, context_targets
from reproducer.train import Preset
from toy_paper import ToyBooks  # the tests' toy corpus (tests/helpers is on the path while the tests run)


class ToyModel(torch.nn.Module):
    def __init__(self, vocab_size, dim):
        super().__init__()
        self.f = AverageEncoder(vocab_size, dim)

    def forward(self, batch):
        u = self.f(batch.ids, batch.lengths)
        return context_loss(u @ u.T, context_targets(batch.positions, batch.book_ids, 1))


class Toy(Objective):
    name = "toy-objective"
    presets = {name: Preset(name=name, max_steps=20, lr=0.05, eval_config="smoke")
               for name in ("smoke", "quick", "default", "paper")}
    variants = {"toy": "the only variant"}

    def training_data(self, variant, preset):
        books = ToyBooks(sizes=(9, 7, 11))
        vocab = Vocabulary.build(books.sentences)
        return TrainingData(tokenized=TokenizedCorpus.from_corpus(books, vocab), vocab=vocab)

    def build(self, variant, preset, data, *, device, seed=0):
        model = ToyModel(len(data.vocab), 8).to(device)
        return model, TokenEncoder(model.f, data.vocab, variant, device=device)

    def sampler(self, variant, preset, data, seed=0, encoder=None):
        return ContiguousSampler(data.tokenized, 8, seed=seed)

    def batch_flops(self, module, batch):
        return 2.0 * 3 * len(batch) ** 2 * module.f.output_dim


OBJECTIVE = Toy()
'''

TOY_DECLARATION = '''
from reproducer.declarations import Family, Line, Model, Paper


def load_objective():
    from reproducer.papers.toy_paper.objective import OBJECTIVE

    return OBJECTIVE


PAPER = Paper(
    key="toy2026", citation="Toy et al. 2026", label="Toy 2026", title="A sixth paper", chapter="07_toy",
    families=(Family("toy-objective", load_objective),),
    models=(Model("toy-encoder", "toy-objective", variant="toy", description="a toy"),),
    neighbours="toy-encoder", lines=(Line("toy objective", "toy-objective", "toy", steps_per_second=50.0),),
    bench={"toy": ("toy-objective", "toy")}, tasks=("MR", "STS14"),
)
'''
