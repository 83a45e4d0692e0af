"""Sentence splitting and tokenization match the benchmarks' Penn-Treebank conventions."""
from __future__ import annotations

from reproducer.data.loaders import load_mr
from reproducer.data.tokenize import normalize, split_sentences, tokenize


def test_normalize_quotes_dashes_and_italics():
    assert normalize("\u201cI\u2019m _very_ tired\u201d\u2014she said\u2026") == "\"I'm very tired\" -- she said..."
    assert normalize("snake_case stays") == "snake_case stays"


def test_treebank_conventions():
    assert tokenize('"I don\'t know," said Mr. Darcy\'s friend--quite.') == \
        ["``", "I", "do", "n't", "know", ",", "''", "said", "Mr.", "Darcy", "'s", "friend", "--", "quite", "."]
    assert tokenize("It CAN'T be.", lowercase=True) == ["it", "ca", "n't", "be", "."]


def test_sentence_splitting_keeps_abbreviations():
    text = 'Mr. Bennet came in. "Have you heard?" she asked. He had not.'
    assert split_sentences(text) == ["Mr. Bennet came in.", '"Have you heard?" she asked.', "He had not."]
    assert split_sentences("   ") == []
    assert split_sentences("To your lawyer. Mr. Troy wished it.") == ["To your lawyer.", "Mr. Troy wished it."]
    assert split_sentences("MR. TROY came. He went.") == ["MR. TROY came.", "He went."]


def test_retokenizing_mr_is_almost_idempotent():
    """The corpus tokenizer reproduces the benchmark's own tokenization (shared vocabulary)."""
    lines = [s.text for s in load_mr()["all"][:2000]]
    same = sum(" ".join(tokenize(x)) == x for x in lines)
    assert same / len(lines) > 0.95


def test_remembered_tokens_are_a_fresh_list_each_call():
    """Tokens are remembered per sentence (chapters tokenize the same pairs for every model); a caller that changes
    its list does not change what the next caller gets."""
    from reproducer.data.tokenize import _tokens

    first = tokenize("A sentence, tokenized twice.")
    first.append("mutated")
    again = tokenize("A sentence, tokenized twice.")
    assert again == ["A", "sentence", ",", "tokenized", "twice", "."] and again is not first
    assert _tokens.cache_info().hits >= 1
    assert tokenize("A sentence, tokenized twice.", lowercase=True)[0] == "a"


def test_every_sentence_of_the_tasks_stays_tokenized_for_the_next_model(monkeypatch):
    """Issue 66: ``--tasks all`` has about 114,000 distinct sentences; the cache held 65,536, so each model a chapter
    scored tokenized every task sentence again (about 20 s a model). Now the first of 120,000 is still remembered."""
    from types import SimpleNamespace

    import reproducer.data.tokenize as tok

    monkeypatch.setattr(tok, "_treebank", lambda: SimpleNamespace(tokenize=str.split))  # fast, for the count only
    tok._tokens.cache_clear()
    try:
        sentences = [f"sentence number {i}" for i in range(120_000)]
        for s in sentences:
            tok.tokenize(s)
        before = tok._tokens.cache_info().hits
        assert tok.tokenize(sentences[0]) == ["sentence", "number", "0"]
        assert tok._tokens.cache_info().hits == before + 1
    finally:
        tok._tokens.cache_clear()  # the next test tokenizes with the real tokenizer


def test_the_stdlib_tokenizer_gives_nltks_tokens():
    """Issue 66: :class:`TreebankTokenizer` runs NLTK's own expressions with the standard ``re`` module (NLTK's ReDoS
    wrapper tripled the cost of a sentence). It must give NLTK's tokens exactly: checked on sentences that exercise
    every rule (quotes of every kind, clitics, contractions, final periods, dashes, brackets, ellipses, symbols) and
    on real lines of five tasks, as written and lower-cased. (All 113,015 distinct sentences of ``--tasks all``, both
    ways, agreed when this was written.)"""
    from nltk.tokenize import NLTKWordTokenizer

    from reproducer.data.loaders import load_sick, load_trec
    from reproducer.data.tokenize import TreebankTokenizer

    tricky = ['"Hello," he said. \'Twas the night; I cannot, won\'t -- gonna wanna go!', "``Quoted'' and 'single' "
              "quotes...", "He'd've (maybe) [surely] {never} <ok> $3.88 for 50% @home #tag & co.", "Ends with a "
              "period.\")", "Dr. Smith's cat's toy isn't 'lost'...  It's here?!", "«chevrons» „low“ ‘curly’ — "
              "dashes – and \u2012figures\u2015.", "More'n gimme lemme gotta d'ye whaddya 'tis 'twas", "a: b, c:1,000",
              "trailing colon:", "multiple  spaces\tand\ttabs .", "*stars* and ... ellipses.... end.", "'",
              "", "   ", "It CAN'T be, can it? \"No.\""]
    lines = [r.text for r in load_mr()["all"][::50]] + [r.text for r in load_trec()["train"][::20]]
    lines += [r.a for r in load_sick()["train"][::20]]
    reference, ours = NLTKWordTokenizer(), TreebankTokenizer()
    for text in tricky + lines:
        for variant in (text, normalize(text), normalize(text).lower()):
            assert ours.tokenize(variant) == reference.tokenize(variant), variant
