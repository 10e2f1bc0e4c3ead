"""A value found as a text in another language writes it: the text's language, the names CLDR gives countries,
languages and currencies there, declined names, dates with the language's month names (pure)."""

from __future__ import annotations

import pytest

from bot.datamodel import Value
from bot.documents.paragraphs import extract
from bot.values import COMMON_NAME, INFLECTED, LITERAL, value_finder
from bot.values.common_names import names_in
from bot.values.language import primary_language, text_language


@pytest.mark.parametrize("declared, language", [("de-AT", "de"), ("pt_BR", "pt"), ("RU", "ru"), ("nb", "no"),
                                                ("", None), ("x", None), ("en-GB-oxendict", "en")])
def test_a_declared_language_is_read_by_its_primary_subtag(declared, language):
    assert primary_language(declared) == language


@pytest.mark.parametrize("text, language", [
    ("Die Mannschaft hat ihren Sitz in Sacramento im Bundesstaat Kalifornien.", "de"),
    ("Тирструп — деревня, которая находится в Дании.", "ru"),
    ("Takım, merkezi Kaliforniya'da bulunan bir basketbol takımıdır.", "tr"),
    ("El equipo tiene su sede en Sacramento, en el estado de California.", "es"),
    ("L'équipe a son siège à Sacramento, dans l'État de Californie.", "fr"),
    ("1943", None),  # too few letters to say
])
def test_a_texts_language_is_identified_from_its_words(text, language):
    assert text_language(text) == language


def test_a_declared_language_wins_over_the_words():
    assert text_language("Die Mannschaft hat ihren Sitz in Sacramento.", "en-US") == "en"


def item(label: str) -> Value:
    return Value("wikibase-item", "Q1", label)


@pytest.mark.parametrize("label, text, form, how", [
    # a country by its Russian name, declined (prepositional case)
    ("Denmark", "Тирструп — деревня, которая находится в Дании.", "Дании", f"{COMMON_NAME}, {INFLECTED}"),
    # a language by its Turkish name; Wikidata's label adds the word "language"
    ("English language", "Teksas'ta en çok konuşulan dil İngilizce olarak bilinir.", "İngilizce", COMMON_NAME),
    # a city by the Turkish name CLDR gives its time zone, with a case ending after an apostrophe
    ("London", "Grup 1962 yılında Londra'da kuruldu.", "Londra", COMMON_NAME),
    # a currency by its Russian name
    ("Euro", "С 2002 года валюта Ирландии — евро, а не фунт.", "евро", COMMON_NAME),
    # a name declined in the text's language (Russian prepositional case)
    ("Австралия", "Перт — крупнейший город на западе Австралии.", "Австралии", f"{LITERAL}, {INFLECTED}"),
    ("Гёттинген", "Вальтер Бааде умер в Гёттингене в 1960 году.", "Гёттинген", LITERAL),  # near enough as written
    ("Соединённые Штаты", "Саранак-Лейк находится на севере Соединенных Штатов.", "Соединенных Штатов",
     f"{LITERAL}, {INFLECTED}"),
])
def test_an_item_is_found_as_the_texts_language_writes_it(label, text, form, how):
    found = value_finder(item(label))(text)
    assert found is not None and (found.form, found.how) == (form, how)
    assert text[found.start:found.end] == form


@pytest.mark.parametrize("label, text", [
    ("Дания", "Эти данные были опубликованы в 2001 году в Москве."),  # "данные" (data): a short stem must be equal
    ("Hungary", "The Hungarian troops crossed the river in 1848."),  # English is not stemmed
    ("Berlin", "Der Verein hat seinen Sitz in München, der Hauptstadt Bayerns."),  # CLDR names no city
])
def test_a_word_that_merely_begins_like_the_name_is_not_it(label, text):
    assert value_finder(item(label))(text) is None


def test_names_in_another_language_are_cldrs_for_countries_languages_currencies_and_cities_only():
    assert names_in("United States", "de") == ("Vereinigte Staaten",)
    assert names_in("London", "tr") == ("Londra",)  # a time zone's city
    assert names_in("Mexico City", "ru") == ("Мехико",)
    assert names_in("Tripoli", "fr") == ()  # "Tripoli (Libye)": the bracket tells it apart, the name is the same
    assert names_in("London", "de") == ()  # the same name
    assert names_in("Munich", "de") == ()  # no time zone's city: Wikidata's labels in the page's language name it
    assert names_in("Irish language", "ru") == ("ирландский",)
    assert names_in("Euro", "ru") == ("евро",)
    assert names_in("Turkmenistan", "de") == ()  # the same as the label: nothing to add
    assert names_in("English", "ru") == ()  # a people or a language: only "… language" is read as a language
    assert names_in("Denmark", "xx") == ()


@pytest.mark.parametrize("text, form", [
    ("Он родился 14 января 1943 года в Праге.", "14 января 1943"),
    ("14 Ocak 1943'te İstanbul'da doğdu ve orada büyüdü.", "14 Ocak 1943"),
])
def test_a_date_is_found_with_the_month_names_of_the_texts_language(text, form):
    found = value_finder(Value("time", "+1943-01-14T00:00:00Z/11", "1943-01-14"))(text)
    assert found is not None and found.form == form


def test_a_page_that_declares_no_language_is_identified_by_its_text():
    sentence = ("Die Mannschaft wurde im Jahr 2004 gegründet und trägt ihre Heimspiele in einer Halle im Norden der "
                "Stadt aus, die sie mit zwei anderen Vereinen teilt.")
    page = f"<html><head><title>Verein</title></head><body><p>{sentence}</p><p>{sentence} Danach</p></body></html>"
    assert extract(page.encode(), "text/html", "https://example.org/").language == "de"
    declared = page.replace("<html>", '<html lang="en">')
    assert extract(declared.encode(), "text/html", "https://example.org/").language == "en"
