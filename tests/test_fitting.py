import pytest

from bot.judge.fitting import split_sentences, split_to_fit


def words(text: str) -> int:
    return len(text.split())


def test_sentences_are_split_but_not_at_abbreviations():
    text = "Dr. Smith met Mr. Jones, e.g. in Prague. They talked! Did they agree? Yes (mostly)."
    assert split_sentences(text) == ["Dr. Smith met Mr. Jones, e.g. in Prague.", "They talked!",
                                     "Did they agree?", "Yes (mostly)."]


def test_a_snippet_that_fits_is_left_whole():
    assert split_to_fit("One two three. Four five.", 10, words) == ["One two three. Four five."]


def test_an_over_long_snippet_is_split_between_sentences_and_keeps_every_word():
    text = " ".join(f"Sentence number {i} has six words." for i in range(10))
    parts = split_to_fit(text, 13, words)
    assert len(parts) == 5
    assert all(words(part) <= 13 for part in parts)
    assert " ".join(parts).split() == text.split()
    assert all(part.endswith("words.") for part in parts)


def test_a_single_over_long_sentence_is_cut_between_words():
    text = "word " * 25 + "end."
    parts = split_to_fit(text.strip(), 10, words)
    assert all(words(part) <= 10 for part in parts)
    assert " ".join(parts).split() == text.split()


def test_no_room_at_all_is_an_error():
    with pytest.raises(ValueError, match="no room"):
        split_to_fit("text", 0, words)
