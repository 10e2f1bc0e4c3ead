"""Authority records written to hurt a reader: what benchmarks/bounded_parse.py measures and the soak serves.

Each is (body, content type) for a record about ``subject`` (the URI naming its identifier):

- ``quadratic_literal``: RDF/XML with one long multi-line literal (rdflib's RDF/XML reader joins its character
  chunks quadratically: 2 MB took 46 s unbounded);
- ``billion_laughs``: RDF/XML whose DTD declares entities that expand to each other ten times a level;
- ``wide_turtle``: 18.3 MB of Turtle in 19,000 facts of the subject, each under its own predicate with a 900-character
  literal (under the triple cap; the matching cascade once embedded every fact again for each statement);
- ``dump_turtle``: 19.5 MB of Turtle, 250,014 triples (a dump, not a record: refused at the cap);
- ``hostile_contexts``: JSON-LD naming scoped and imported contexts at addresses refbot refuses (another loopback
  port, a link-local address, a local file).
"""

from __future__ import annotations

import json

RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
WORDS = ("archive", "letters", "committee", "catalogue", "edition", "correspondence", "manuscript", "collection",
         "volume", "register", "inventory", "portrait")


def quadratic_literal(subject: str, megabytes: float = 2.0) -> tuple[bytes, str]:
    line = b"a line of a very long note that the record keeps in one literal\n"
    text = line * int(megabytes * 1024 * 1024 / len(line))
    body = (f'<?xml version="1.0" encoding="UTF-8"?>\n<rdf:RDF xmlns:rdf="{RDF}" '
            f'xmlns:s="http://schema.org/"><rdf:Description rdf:about="{subject}"><s:description>').encode() \
        + text + b"</s:description></rdf:Description></rdf:RDF>\n"
    return body, "application/rdf+xml"


def billion_laughs(subject: str, levels: int = 9) -> tuple[bytes, str]:
    entities = ['<!ENTITY l0 "lol lol lol lol lol lol lol lol lol lol">']
    entities += [f'<!ENTITY l{n} "{f"&l{n - 1};" * 10}">' for n in range(1, levels + 1)]
    body = (f'<?xml version="1.0"?>\n<!DOCTYPE rdf:RDF [{"".join(entities)}]>\n<rdf:RDF xmlns:rdf="{RDF}" '
            f'xmlns:s="http://schema.org/"><rdf:Description rdf:about="{subject}">'
            f'<s:description>&l{levels};</s:description></rdf:Description></rdf:RDF>\n')
    return body.encode(), "application/rdf+xml"


def wide_turtle(subject: str, facts: int = 19_000, literal: int = 900) -> tuple[bytes, str]:
    lines = ["@prefix v: <https://vocab.example/terms/> ."]
    for number in range(facts):
        words = " ".join(WORDS[(number + k) % len(WORDS)] for k in range(literal // 9))[:literal]
        lines.append(f'<{subject}> v:note{number} "{number} {words}" .')
    return ("\n".join(lines) + "\n").encode(), "text/turtle"


def dump_turtle(subject: str, triples: int = 250_014) -> tuple[bytes, str]:
    lines = ["@prefix v: <https://vocab.example/terms/> ."]
    lines += [f'<{subject}/part/{number}> v:mentions "entry {number}" .' for number in range(triples)]
    return ("\n".join(lines) + "\n").encode(), "text/turtle"


def hostile_contexts(subject: str, refused_port_url: str, local_file: str) -> tuple[bytes, str]:
    """A record whose terms come from contexts refbot will not fetch: it must be refused, nothing asked."""
    record = {
        "@context": {"@version": 1.1, "@import": refused_port_url,
                     "knows": {"@id": "http://schema.org/knows", "@context": "http://169.254.169.254/context"},
                     "Person": {"@id": "http://schema.org/Person", "@context": local_file}},
        "@id": subject, "@type": "Person", "born": "1968-02-11",
        "knows": {"@id": subject + "/friend", "born": "1970-05-01"},
    }
    return json.dumps(record).encode(), "application/ld+json"
