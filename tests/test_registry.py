"""The dataset registry: fetch, verification, caching and the errors users see."""
from __future__ import annotations

import functools
import gzip
import http.server
import re
import threading
from pathlib import Path

import pytest

from reproducer.__main__ import main as cli
from reproducer.data import registry as reg
from reproducer.errors import (
    ChecksumMismatchError,
    MirrorUnreachableError,
    NotCachedError,
    TruncatedGzipError,
    UnknownDatasetError,
)

README_DATASETS = {"senteval", "sst2_sentence", "sick_original", "gutenberg", "ppdb_human",
                   "twitter_url_corpus", "wiki_pool", "word_eval", "word_freq"}


def flip_byte(path: Path, offset: int = 100) -> None:
    data = bytearray(path.read_bytes())
    data[offset] ^= 0xFF
    path.chmod(0o644)
    path.write_bytes(bytes(data))


def test_every_dataset_of_the_data_readme_is_registered():
    assert set(reg.all_datasets()) == README_DATASETS
    for ds in reg.all_datasets().values():
        assert ds.files and ds.description and ds.license
        for f in ds.files:
            assert f.path.startswith(ds.name + "/")
            assert re.fullmatch(r"[0-9a-f]{64}", f.sha256) and f.size > 0


def test_registry_matches_the_mirror_checksums():
    sums = Path(__file__).resolve().parents[2] / "shared" / "data" / "SHA256SUMS"
    if not sums.is_file():
        pytest.skip("no ../shared/data beside the checkout")
    listed = dict(line.split()[::-1] for line in sums.read_text().splitlines())
    registered = {f.path: f.sha256 for ds in reg.all_datasets().values() for f in ds.files}
    assert registered == listed


def test_upstream_urls_are_pinned_to_commits():
    for ds in reg.all_datasets().values():
        for f in ds.files:
            if f.url is not None:
                assert f.url.startswith("https://raw.githubusercontent.com/")
    # the gzip-in-mirror, plain-upstream files carry the checksum of their plain text
    gz = [f for f in reg.dataset("twitter_url_corpus").files if f.plain_sha256]
    assert {Path(f.path).name for f in gz} >= {"a.toks.gz", "b.toks.gz"}


def test_unknown_dataset_names_the_known_ones():
    with pytest.raises(UnknownDatasetError, match="Did you mean senteval"):
        reg.fetch("sentevall")
    with pytest.raises(UnknownDatasetError, match="Known datasets: senteval"):
        reg.dataset("imagenet")


def test_fetch_copies_verifies_and_is_a_noop_when_complete(fake_mirror):
    mirror, cache = fake_mirror
    [path] = reg.fetch("word_eval", progress=False)
    assert path == cache / "word_eval"
    files = sorted(p.name for p in path.iterdir())
    assert files == ["questions-words.txt", "simlex999.txt", "wordsim353.tsv"]
    stamps = {p: p.stat().st_mtime_ns for p in path.iterdir()}
    reg.fetch("word_eval", progress=False)
    assert {p: p.stat().st_mtime_ns for p in path.iterdir()} == stamps, "a complete cache is not rewritten"
    assert not list(cache.rglob("*.part")), "no temporary files are left behind"


def test_a_deleted_file_is_fetched_again_from_a_local_mirror(fake_mirror):
    _, cache = fake_mirror
    reg.fetch("word_eval", progress=False)
    (cache / "word_eval" / "simlex999.txt").unlink()
    assert reg.status("word_eval") == (2, 3)
    reg.require("word_eval")
    assert reg.status("word_eval", verify=True) == (3, 3)


def test_a_missing_dataset_without_a_local_mirror_says_how_to_fetch(fake_mirror, monkeypatch):
    monkeypatch.delenv("REPRODUCER_DATA_MIRROR")
    with pytest.raises(NotCachedError, match=r"python -m reproducer data fetch word_eval"):
        reg.require("word_eval")


def test_a_damaged_cached_file_is_detected_and_repaired(fake_mirror):
    _, cache = fake_mirror
    reg.fetch("word_eval", progress=False)
    target = cache / "word_eval" / "questions-words.txt"
    flip_byte(target)
    assert reg.status("word_eval", verify=True) == (2, 3)
    with pytest.raises(ChecksumMismatchError):
        reg.verify_file(target, next(f for f in reg.dataset("word_eval").files if f.path.endswith("words.txt")))
    reg.fetch("word_eval", progress=False)
    assert reg.status("word_eval", verify=True) == (3, 3)


def test_a_flipped_byte_in_the_mirror_gives_a_checksum_error(fake_mirror):
    mirror, cache = fake_mirror
    flip_byte(mirror / "word_eval" / "simlex999.txt")
    with pytest.raises(ChecksumMismatchError) as err:
        reg.fetch("word_eval", progress=False)
    entry = next(f for f in reg.dataset("word_eval").files if f.path.endswith("simlex999.txt"))
    message = str(err.value)
    assert "simlex999.txt" in message and entry.sha256 in message and err.value.actual in message
    assert err.value.actual != entry.sha256
    assert not (cache / "word_eval" / "simlex999.txt").exists(), "a bad file never reaches the cache"
    assert not list(cache.rglob("*.part"))


def test_a_truncated_gzip_in_the_mirror_is_named_as_such(fake_mirror):
    mirror, cache = fake_mirror
    gz = mirror / "word_freq" / "enwiki_vocab_min200.txt.gz"
    data = gz.read_bytes()
    gz.chmod(0o644)
    gz.write_bytes(data[: len(data) // 2])
    with pytest.raises(TruncatedGzipError, match="truncated gzip"):
        reg.fetch("word_freq", progress=False)
    assert not (cache / "word_freq" / "enwiki_vocab_min200.txt.gz").exists()


def test_a_wrong_mirror_path_is_reported(fake_mirror, monkeypatch, tmp_path):
    monkeypatch.setenv("REPRODUCER_DATA_MIRROR", str(tmp_path / "no-such-mirror"))
    with pytest.raises(MirrorUnreachableError, match="does not exist"):
        reg.fetch("word_eval", progress=False)
    monkeypatch.setenv("REPRODUCER_DATA_MIRROR", str(tmp_path / "mirror"))  # exists, lacks senteval
    with pytest.raises(MirrorUnreachableError, match="has no file senteval/"):
        reg.fetch("senteval", progress=False)


def test_an_unreachable_url_mirror_is_reported(fake_mirror, monkeypatch):
    monkeypatch.setenv("REPRODUCER_DATA_MIRROR", "http://127.0.0.1:9/data")  # discard port: refused
    with pytest.raises(MirrorUnreachableError, match="Could not read http://127.0.0.1:9/data/word_eval/"):
        reg.fetch("word_eval", progress=False)


def test_fetch_from_an_http_mirror(fake_mirror, monkeypatch):
    mirror, cache = fake_mirror
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(mirror))
    handler.log_message = lambda *a, **k: None
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        monkeypatch.setenv("REPRODUCER_DATA_MIRROR", f"http://127.0.0.1:{server.server_port}")
        reg.fetch(["word_eval", "word_freq"], progress=False)
    finally:
        server.shutdown()
    assert reg.status("word_eval", verify=True) == (3, 3)
    assert reg.status("word_freq", verify=True) == (2, 2)


def test_upstream_plain_text_is_verified_then_gzipped(tmp_path, real_cache):
    """Files the mirror stores gzipped come from upstream as plain text: verify, then compress."""
    entry = next(f for f in reg.dataset("word_freq").files if f.path.endswith(".gz"))
    plain = tmp_path / "plain.txt"
    plain.write_bytes(gzip.decompress((real_cache / entry.path).read_bytes()))
    upstream = reg.FileEntry(entry.path, entry.sha256, entry.size, url=plain.as_uri(),
                             plain_sha256=entry.plain_sha256)
    target = tmp_path / "cache" / entry.path
    from tqdm import tqdm

    with tqdm(disable=True) as bar:
        reg._fetch_file(upstream, target, None, bar)
    reg.verify_file(target, upstream)  # different gzip bytes, same content: accepted
    assert gzip.decompress(target.read_bytes()) == plain.read_bytes()

    plain.write_bytes(plain.read_bytes()[:-10])
    with pytest.raises(ChecksumMismatchError, match="Upstream changed"), tqdm(disable=True) as bar:
        reg._fetch_file(upstream, tmp_path / "cache2" / entry.path, None, bar)


def test_files_without_upstream_need_a_mirror(fake_mirror, monkeypatch):
    monkeypatch.delenv("REPRODUCER_DATA_MIRROR")
    with pytest.raises(MirrorUnreachableError, match="no upstream URL"):
        reg.fetch("wiki_pool", progress=False)


def test_cli_list_and_fetch(fake_mirror, capsys):
    assert cli(["data", "fetch", "word_eval", "--quiet"]) == 0
    assert cli(["data", "list"]) == 0
    out = capsys.readouterr().out
    rows = {line.split()[0]: line.split() for line in out.splitlines() if line and line.split()[0] in README_DATASETS}
    assert set(rows) == README_DATASETS
    assert rows["word_eval"][4] == "yes" and rows["senteval"][4] == "no"
    assert cli(["data", "fetch", "nope"]) == 2
    assert "Unknown dataset 'nope'" in capsys.readouterr().err


def test_cache_folder_is_the_checkout_data_folder_unless_overridden(monkeypatch, tmp_path):
    monkeypatch.delenv("REPRODUCER_DATA_DIR", raising=False)
    assert reg.data_dir() == Path(__file__).resolve().parents[1] / "data"
    monkeypatch.setenv("REPRODUCER_DATA_DIR", str(tmp_path / "elsewhere"))
    assert reg.data_dir() == tmp_path / "elsewhere"
