"""A name in Latin letters found where a Russian or Greek text writes it by its sound, for the value and for the
subject (pure)."""

from __future__ import annotations

import pytest

from bot.checking.subject_check import NAMED, TRANSCRIBED_NAME, admitting_rule
from bot.datamodel import Value
from bot.values import ALIAS, TRANSCRIBED, value_finder


def item(label: str, *aliases: str) -> Value:
    return Value("wikibase-item", "Q1", label, aliases=aliases)


@pytest.mark.parametrize("label, text, form", [
    ("Gary Cohn", "Автор комиксов Гэри Кон и Пэрис Каллинс создали персонажа Болта.", "Гэри Кон"),
    ("Göttingen", "Вальтер Бааде умер в Гёттингене.", "Гёттингене"),  # declined, a German hard g
    ("Allan Sandage", "Аллан Рекс Сэндидж был докторантом Вальтера Бааде.", "Аллан Рекс Сэндидж"),  # a middle name
    ("A.F.C. Blackpool", "Стюарт Паркер — футболист в клубе ФК «Блэкпул».", "Блэкпул"),  # initials left out
    ("Irlam Town F.C.", "Футболист присоединился к ФК «Эрлам Таун».", "Эрлам Таун"),
    ("SC Wiener Neustadt", "Петер Штёгер связан с клубом СК «Винер-Нойштадт».", "СК «Винер-Нойштадт"),
    ("Manhattan", "Общественные бани расположены на Манхэттене.", "Манхэттене"),
    ("Austin, Texas", "Остин — столица Техаса.", "Остин"),  # the place without its region
    ("Thessaloniki", "Η Θεσσαλονίκη είναι πόλη της Ελλάδας.", "Θεσσαλονίκη"),
])
def test_a_name_is_found_where_another_alphabet_writes_it_by_its_sound(label, text, form):
    found = value_finder(item(label))(text)
    assert found is not None and found.form == form and found.how == f"label, {TRANSCRIBED}"
    assert text[found.start:found.end] == form


@pytest.mark.parametrize("label, text", [
    ("Dallas", "Команда базируется в Сакраменто, Калифорния."),  # another city
    ("Sandage", "Он купил сэндидж."),  # a word in lower case is no name
    ("Rome", "Клуб «Рома» играет в столице."),  # one short name sounds like too many words
    ("Allan Sandage", "Аллан и Сэндидж."),  # a word in lower case between the names: two people
    ("Blackpool", "Blackpul is a town."),  # Latin letters are read as written, not by their sound
])
def test_a_name_is_not_found_by_sounds_it_does_not_have(label, text):
    assert value_finder(item(label))(text) is None


def test_an_alias_is_found_by_its_sound_too():
    found = value_finder(item("Stadio Marc'Antonio Bentegodi", "Bentegodi"))(
        "Домашняя площадка клуба — «Бентегоди».")
    assert found is not None and found.form == "Бентегоди" and found.how == f"{ALIAS}, {TRANSCRIBED}"


def test_a_russian_paragraph_naming_the_subject_by_its_sound_is_about_it():
    text = "Вальтер Бааде родился в Германской империи."
    assert admitting_rule(text, ["Walter Baade"]) == (TRANSCRIBED_NAME, "Walter Baade")
    assert admitting_rule("Walter Baade was born in 1893.", ["Walter Baade"]) == (NAMED, "Walter Baade")
    assert admitting_rule("Эдвин Хаббл родился в Миссури.", ["Walter Baade"]) == ("", "")
