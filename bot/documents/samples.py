"""Known-good documents for each parser: what `refbot doctor` and `preflight` try the stages on, and what tells
a parser that fails on one page (the page's fault) from a parser that no longer works at all (refbot's).

Each sample is built here, by hand, so that trying it needs nothing but the parser it tries.
"""

from __future__ import annotations

from dataclasses import dataclass

PAGE_HTML = """<!doctype html><html lang="en"><head><title>A sample page | refbot doctor</title></head><body>
<nav><a href="/">Home</a> <a href="/news">News</a></nav><article><h1>A sample page</h1>
<p>Marta Novotná received the Purkyně Prize for Chemistry in 2021 for her work on catalysts that turn plastic
waste back into its building blocks, the jury of the Czech Chemical Society said on Monday.</p>
<p>The prize has been awarded every year since 1998 to a chemist who works in the Czech Republic and whose work
has been published in the previous five years; it carries a medal and a grant for the laboratory.</p>
<table><caption>Purkyně Prize for Chemistry</caption><tr><th>Awarded</th><td>2021</td></tr>
<tr><th>Laureate</th><td>Marta Novotná</td></tr></table>
</article><footer>© refbot doctor</footer></body></html>"""
PDF_TEXT = ("Marta Novotna received the Purkyne Prize for Chemistry in 2021 for her work on catalysts that turn "
            "plastic waste back into its building blocks.")


@dataclass(frozen=True)
class Sample:
    content: bytes
    content_type: str
    paragraphs: int  # how many paragraphs (prose and structured blocks) a working parser finds (min_chars 50)
    extractor: str  # the extractor that must have found them
    url: str = "https://example.org/refbot-sample"


def pdf(text: str) -> bytes:
    """A one-page PDF with ``text`` in Helvetica, byte offsets and all."""
    stream = f"BT /F1 10 Tf 40 760 Td ({text}) Tj ET".encode("latin-1")
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>",
               b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
               b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 1200 842] /Resources << /Font << /F1 4 0 R >> >> "
               b"/Contents 5 0 R >>",
               b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
               b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream),
               b"<< /Title (refbot doctor) >>"]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R /Info 6 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


SAMPLES = {
    "text/html": Sample(PAGE_HTML.encode("utf-8"), "text/html", 4, "trafilatura"),  # 2 prose, a table, the title
    "application/pdf": Sample(pdf(PDF_TEXT), "application/pdf", 1, "pdfminer"),
}
