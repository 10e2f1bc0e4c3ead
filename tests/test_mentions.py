import pytest

from bot.values.names import mentions

TEXT = "Patients with rheumatoid arthritis (RA) received 5-fluorouracil; the Nobel-Prize winning drug helped."


@pytest.mark.parametrize("label, expected", [
    ("RA", True),                       # a short label as a whole word
    ("ra", True),
    ("AR", False),                      # not inside "arthritis"
    ("rheumatoid arthritis", True),
    ("Rheumatoid  Arthritis", True),    # case and spacing
    ("5-fluorouracil", True),
    ("5 fluorouracil", True),           # fuzzy: punctuation differs
    ("Nobel Prize winning", True),
    ("multiple sclerosis", False),
    ("", False),
])
def test_mentions(label, expected):
    assert mentions(label, TEXT) is expected
