"""Hardening: each way of misusing the library or the command line ends in a clear error (or warning), never a
traceback or a wrong answer. One test (or a few) per case of the issue's table."""
from __future__ import annotations

import http.server
import os
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest
import torch

from reproducer.__main__ import build_parser
from reproducer.__main__ import main as cli
from reproducer.data import registry as reg
from reproducer.data.vocab import SPECIALS, Vocabulary
from reproducer.errors import DataError, DegenerateEmbeddingWarning, MirrorUnreachableError, ReproducerError

WORDS = ["a", "good", "film", "bad", "plot"]


def run_cli(*args: str, **kwargs) -> subprocess.CompletedProcess:
    """``python -m reproducer ARGS`` in a fresh interpreter (the environment of this test)."""
    return subprocess.run([sys.executable, "-m", "reproducer", *args], capture_output=True, text=True, timeout=300,
                          **kwargs)


def assert_one_line_error(proc: subprocess.CompletedProcess, *fragments: str, code: int = 2) -> None:
    """The command failed with ``code`` and one ``error:`` line naming every fragment, no traceback."""
    assert proc.returncode == code, proc.stderr
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), proc.stderr
    for fragment in fragments:
        assert fragment in lines[0]


# -- encoders used below ---------------------------------------------------------------------------------------------

def toy_vocab() -> Vocabulary:
    return Vocabulary(list(SPECIALS) + WORDS)


def token_encoder(name: str = "toy"):
    from reproducer.encoders.recurrent import RecurrentConfig, RecurrentEncoder
    from reproducer.encoders.trained import TokenEncoder

    torch.manual_seed(0)
    vocab = toy_vocab()
    return TokenEncoder(RecurrentEncoder(RecurrentConfig(len(vocab), word_dim=6, hidden=5)), vocab, name,
                        device="cpu")


def view_set():
    from reproducer.encoders.layers import fixed_embedding
    from reproducer.encoders.multiview import LinearView, ViewSet, recurrent_view

    torch.manual_seed(0)
    vocab = toy_vocab()
    embed = fixed_embedding(np.random.default_rng(0).normal(size=(len(vocab), 6)).astype(np.float32))
    return ViewSet({"f": recurrent_view(embed, 4), "g": LinearView(embed, 4)}, vocab, "toy-MV", device="cpu")


def word_vectors():
    from reproducer.data.vectors import WordVectors

    return WordVectors(WORDS, np.random.default_rng(0).normal(size=(len(WORDS), 4)), name="toy")


class StubModel:
    """Stands in for sentence-transformers' model (MiniLM's weights are an optional extra)."""

    def encode(self, sentences, **kwargs):
        return np.ones((len(sentences), 3), dtype=np.float32)


def minilm_wrapper():
    from reproducer.encoders.minilm import MiniLMEncoder

    encoder = MiniLMEncoder.__new__(MiniLMEncoder)
    encoder.model = StubModel()
    return encoder


def every_encoder():
    from reproducer.encoders.bow import RandomEncoder, sif_encoder, word_average_encoder
    from reproducer.encoders.trained import ConcatEncoder

    views = view_set()
    return {
        "word-average": lambda: word_average_encoder(word_vectors()),
        "sif": lambda: sif_encoder(word_vectors(), {w: i + 1 for i, w in enumerate(WORDS)}),
        "random": lambda: RandomEncoder(dim=8, buckets=16),
        "minilm": minilm_wrapper,
        "token": token_encoder,
        "concat": lambda: ConcatEncoder([token_encoder("p"), token_encoder("q")], "pq"),
        "view-set": lambda: views,
        "view": lambda: views.encoders("supervised")["f"],
        "ensemble": lambda: views.encoders("unsupervised")["ensemble"],
    }


ENCODERS = every_encoder()


# -- 1. --json target checked before evaluating ----------------------------------------------------------------------

def test_an_unwritable_json_target_fails_before_evaluating(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    proc = run_cli("evaluate", "--encoder", "glove-bow", "--tasks", "STS16", "--quiet",
                   "--json", str(blocker / "out.json"))
    assert_one_line_error(proc, str(blocker), "--json")
    assert "STS16" not in proc.stdout, "nothing was evaluated"
    proc = run_cli("evaluate", "--encoder", "glove-bow", "--tasks", "STS16", "--quiet", "--json", str(tmp_path))
    assert_one_line_error(proc, "is a folder")


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write into any folder")
def test_a_read_only_json_folder_fails_before_evaluating(tmp_path):
    folder = tmp_path / "read-only"
    folder.mkdir()
    folder.chmod(0o500)
    proc = run_cli("evaluate", "--encoder", "glove-bow", "--tasks", "STS16", "--quiet",
                   "--json", str(folder / "sub" / "out.json"))
    assert_one_line_error(proc, "not writable")


def test_check_writable_accepts_new_folders(tmp_path):
    from reproducer.files import check_writable

    assert check_writable(tmp_path / "new" / "deeper" / "out.json") == tmp_path / "new" / "deeper" / "out.json"
    assert not (tmp_path / "new").exists(), "checking creates nothing"


# -- 2, 3. encode() takes a list of str ------------------------------------------------------------------------------

@pytest.mark.parametrize("kind", ENCODERS)
def test_every_encoder_refuses_a_lone_string(kind):
    encoder = ENCODERS[kind]()
    with pytest.raises(ReproducerError, match=r"takes a list of sentences, got a str; wrap it: encode\(\[\.\.\.\]\)"):
        encoder.encode("a good film")
    assert len(encoder.encode(["a good film", "a bad plot"])) == 2


@pytest.mark.parametrize("kind", ENCODERS)
@pytest.mark.parametrize("bad, problem", [(None, "sentence 1 is NoneType"), (b"a film", "sentence 1 is bytes"),
                                          ("a \ud800 film", "sentence 1 has a lone surrogate")])
def test_every_encoder_names_a_bad_sentence(kind, bad, problem):
    with pytest.raises(ReproducerError, match=problem):
        ENCODERS[kind]().encode(["a good film", bad])


def test_check_sentences():
    from reproducer.encoders.inputs import check_sentences

    assert check_sentences(("a", "b")) == ["a", "b"]
    assert check_sentences(np.array(["a", "b"])) == ["a", "b"]
    assert check_sentences([]) == []
    with pytest.raises(ReproducerError, match="got a bytes"):
        check_sentences(b"a film")
    with pytest.raises(ReproducerError, match="got int"):
        check_sentences(3)
    with pytest.raises(ReproducerError, match=r"sentence 2 has a lone surrogate '\\udcff' at character 2 in 'ab"):
        check_sentences(["ok", "x", b"ab\xff".decode("utf-8", "surrogateescape")])


# -- 4. degenerate and non-finite embeddings -------------------------------------------------------------------------

def mock_task(name="mock-sts"):
    from reproducer.data.loaders import Pair
    from reproducer.evaluate import Task
    from reproducer.evaluate import protocols as P

    pairs = [Pair("a cat", "a cat", 5.0), Pair("a dog", "a cat", 1.0), Pair("good dog", "bad cat", 0.0)]

    def run(data, embed, config):
        return P.cosine_correlations(embed([p.a for p in data]), embed([p.b for p in data]),
                                     np.array([p.label for p in data]))
    return Task(name, lambda: pairs, run, "pearson", "similarity", "mock", "-")


class ConstantEncoder:
    name = "constant"

    def __init__(self, value: float = 0.0):
        self.value = value

    def encode(self, sentences, batch_size=128, show_progress_bar=False):
        return np.full((len(sentences), 3), self.value)


def test_constant_vectors_warn_that_the_encoder_is_degenerate():
    from reproducer.evaluate import evaluate

    for value in (0.0, 0.5):
        with pytest.warns(DegenerateEmbeddingWarning,
                          match="constant is degenerate.*on task mock-sts.*the same vector for all 4"):
            evaluate(ConstantEncoder(value), [mock_task()], "prototype", progress=False)


def test_non_finite_vectors_are_an_error_naming_the_task():
    from reproducer.evaluate import evaluate

    with pytest.raises(ReproducerError, match="NaN or infinite values on task mock-sts"):
        evaluate(ConstantEncoder(np.inf), [mock_task()], "prototype", progress=False)


def test_the_cli_prints_the_degenerate_warning(tmp_path, capsys):
    encoder = token_encoder()
    with torch.no_grad():
        for p in encoder.module.parameters():
            p.zero_()  # every sentence -> the zero vector
    path = encoder.save(tmp_path / "zero.pt")
    assert cli(["evaluate", "--encoder", str(path), "--tasks", "STS16", "--quiet", "--device", "cpu"]) == 0
    err = capsys.readouterr().err
    assert "warning: toy is degenerate" in err and "STS16" in err and "Traceback" not in err


# -- 5. devices, and options that apply only to multi-view encoders --------------------------------------------------

def test_an_unavailable_or_unknown_device_is_a_clear_error(monkeypatch):
    from reproducer.runtime import default_device

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setattr(torch.backends.mps, "is_available", lambda: False)
    for device in ("cuda", "cuda:0", "mps"):
        with pytest.raises(ReproducerError, match=r"not available on this machine.*--device cpu"):
            default_device(device)
    with pytest.raises(ReproducerError, match="Unknown device 'gpu'"):
        default_device("gpu")
    assert default_device("cpu") == default_device(torch.device("cpu")) == torch.device("cpu")
    assert default_device() == torch.device("cpu")


def test_a_cuda_index_beyond_the_gpus_is_refused(monkeypatch):
    from reproducer.runtime import default_device

    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 1)
    assert default_device("cuda:0") == torch.device("cuda:0")
    with pytest.raises(ReproducerError, match="cuda:3.*1 GPU"):
        default_device("cuda:3")


def test_the_cli_refuses_cuda_without_it(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    path = token_encoder().save(tmp_path / "toy.pt")
    assert cli(["evaluate", "--encoder", str(path), "--device", "cuda", "--tasks", "STS16", "--quiet"]) == 2
    assert "CUDA is not available" in capsys.readouterr().err


@pytest.mark.parametrize("option", [["--view", "f"], ["--pooling", "supervised"]])
def test_view_options_need_a_multiview_encoder(tmp_path, capsys, option):
    from reproducer.encoders.trained import ConcatEncoder

    token = token_encoder().save(tmp_path / "toy.pt")
    concat = ConcatEncoder([token_encoder("p"), token_encoder("q")], "pq").save(tmp_path / "pq.pt")
    for encoder in ("glove-bow", str(token), str(concat)):
        assert cli(["evaluate", "--encoder", encoder, *option, "--tasks", "STS16", "--quiet", "--device", "cpu"]) == 2
        assert "apply only to multi-view (consensus) encoders" in capsys.readouterr().err


def test_view_options_still_reach_a_multiview_encoder(tmp_path):
    from reproducer.encoders.bundles import load_encoder

    path = view_set().save(tmp_path / "mv.pt")
    assert load_encoder(path, device="cpu", view="g", pooling="supervised").name == "toy-MV.g"


# -- 6. data list --verify -------------------------------------------------------------------------------------------

def test_verify_names_each_damaged_or_missing_file_and_fails(fake_mirror):
    _, cache = fake_mirror
    reg.fetch("word_eval", progress=False)
    assert run_cli("data", "list", "--verify").returncode == 0, "a complete cache (others not fetched) passes"
    damaged = cache / "word_eval" / "simlex999.txt"
    damaged.write_bytes(damaged.read_bytes()[:-1] + b"!")
    (cache / "word_eval" / "wordsim353.tsv").unlink()
    proc = run_cli("data", "list", "--verify")
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert f"{damaged}: checksum mismatch" in proc.stdout
    assert f"{cache / 'word_eval' / 'wordsim353.tsv'}: missing" in proc.stdout
    assert "2 file(s) failed verification" in proc.stderr and "data fetch word_eval" in proc.stderr


def test_problems_reports_why(fake_mirror):
    _, cache = fake_mirror
    reg.fetch("word_freq", progress=False)
    gz = next(p for p in (cache / "word_freq").iterdir() if p.name.endswith(".gz"))
    gz.write_bytes(gz.read_bytes()[:100])
    assert reg.problems("word_freq") == {gz: "truncated gzip file"}
    assert set(reg.problems("word_eval").values()) == {"missing"}


# -- 7. a stalled HTTP mirror ----------------------------------------------------------------------------------------

class StallingHandler(http.server.BaseHTTPRequestHandler):
    """Sends the headers and half the body, then stalls until the test ends."""

    release = threading.Event()

    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Length", "1000")
        self.end_headers()
        self.wfile.write(b"x" * 500)
        self.wfile.flush()
        self.release.wait(30)

    def log_message(self, *args):
        pass


def test_a_stalled_mirror_is_reported_not_raised(fake_mirror, monkeypatch):
    monkeypatch.setattr(reg, "_TIMEOUT", 0.5)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), StallingHandler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        monkeypatch.setenv("REPRODUCER_DATA_MIRROR", f"http://127.0.0.1:{server.server_port}")
        t0 = time.perf_counter()
        with pytest.raises(MirrorUnreachableError, match=r"127\.0\.0\.1.*word_eval/.*stalled or dropped.*retry"):
            reg.fetch("word_eval", progress=False)
        assert time.perf_counter() - t0 < 10
    finally:
        StallingHandler.release.set()
        server.shutdown()
        server.server_close()
    _, cache = fake_mirror
    assert not list(cache.rglob("*.part")), "the half file is removed"


# -- 8. REPRODUCER_DATA_DIR is a file --------------------------------------------------------------------------------

def test_a_data_dir_that_is_a_file_is_a_clear_error(tmp_path, monkeypatch, capsys):
    blocker = tmp_path / "data.txt"
    blocker.write_text("")
    for value in (blocker, blocker / "sub"):
        monkeypatch.setenv("REPRODUCER_DATA_DIR", str(value))
        with pytest.raises(DataError, match=f"REPRODUCER_DATA_DIR.*{blocker} is a file, not a folder"):
            reg.data_dir()
    assert cli(["data", "fetch", "word_eval", "--quiet"]) == 2
    assert "is a file, not a folder" in capsys.readouterr().err


# -- 9. --max-books --------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("books", [0, -1])
def test_max_books_must_be_positive(books, capsys):
    from reproducer.data.corpus import CorpusConfig

    with pytest.raises(ReproducerError, match=f"max_books must be None .all books. or at least 1, got {books}"):
        CorpusConfig(max_books=books)
    assert CorpusConfig(max_books=1).max_books == 1 and CorpusConfig().max_books is None
    for command in (["corpus", "build"], ["corpus", "stats"], ["vectors", "word2vec"], ["bench", "train"],
                    ["bench", "widths"]):
        with pytest.raises(SystemExit) as exit_:
            build_parser().parse_args([*command, "--max-books", str(books)])
        assert exit_.value.code == 2
        assert f"must be a positive integer, got {books!r}" in capsys.readouterr().err.replace("'", "")


# -- 10. stale temporary files ---------------------------------------------------------------------------------------

def test_a_fetch_removes_stale_temporary_files_only(fake_mirror):
    _, cache = fake_mirror
    folder = cache / "word_eval"
    folder.mkdir(parents=True)
    stale, fresh = folder / ".simlex999.txt.k1ll3d.part", folder / ".simlex999.txt.wr1t1n.part"
    stale.write_bytes(b"")
    fresh.write_bytes(b"")  # a concurrent fetch still writing
    old = time.time() - 2 * 3600
    os.utime(stale, (old, old))
    reg.fetch("word_eval", progress=False)
    assert not stale.exists() and fresh.exists()


# -- 11. a closed pipe -----------------------------------------------------------------------------------------------

def test_a_closed_pipe_ends_quietly():
    proc = subprocess.Popen([sys.executable, "-m", "reproducer", "data", "list"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    proc.stdout.close()  # as `| head -0` would: every write fails with EPIPE
    _, err = proc.communicate(timeout=120)
    assert err == b"" and proc.returncode == 141


# -- 12. file modes follow the umask ---------------------------------------------------------------------------------

@pytest.mark.parametrize("mask, mode", [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_written_files_follow_the_umask(tmp_path, mask, mode):
    from reproducer.files import write_json

    old = os.umask(mask)
    try:
        write_json(tmp_path / "r.json", {"a": 1})
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "r.json").stat().st_mode) == mode


def test_fetched_files_follow_the_umask(fake_mirror):
    _, cache = fake_mirror
    old = os.umask(0o022)
    try:
        reg.fetch("word_eval", progress=False)
    finally:
        os.umask(old)
    assert {stat.S_IMODE(p.stat().st_mode) for p in (cache / "word_eval").iterdir()} == {0o644}


def test_umask_is_read_without_changing_it():
    from reproducer.files import current_umask

    old = os.umask(0o027)
    try:
        assert current_umask() == 0o027
        assert current_umask() == 0o027
    finally:
        os.umask(old)


def test_folders_made_through_a_temporary_folder_follow_the_umask(tmp_path):
    import tempfile

    from reproducer.files import follow_umask

    old = os.umask(0o022)
    try:
        folder = Path(tempfile.mkdtemp(dir=tmp_path))
        follow_umask(folder)
    finally:
        os.umask(old)
    assert stat.S_IMODE(folder.stat().st_mode) == 0o755

