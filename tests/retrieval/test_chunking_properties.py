"""Property-based tests for the chunker (hypothesis).

What "a chunk maps back to its source" means is defined in the docstring of
``retrieval.chunking``; ``assert_maps_back`` below checks exactly that:

* Markdown and plain text: ``text`` is the repeated context (each span in
  ``repeated`` sliced from the source, one per line) followed by the verbatim
  slice ``source[char_start:char_end]``.
* HTML: the words of ``text`` (without the ``-``/``1.``/``|``/``|---|``
  markers the chunker adds) are the words of the visible text inside the repeated spans
  and then inside ``[char_start, char_end)``.
* Own spans are ordered and never overlap; repeated spans lie before the own span.

Generated documents are built from unique words (``w17``), so "no text is
lost or duplicated" is checked word by word: every body word lies in exactly
one chunk's own span and is in that chunk's text; every heading word is in a
breadcrumb or, for a heading with no text under it, in the text of the chunk
whose span holds it — so every non-empty line of a source reaches some
chunk's text or breadcrumb. Most examples count tokens as whitespace words (fast,
deterministic); a few use the embedding model's own tokenizer.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass

import pytest
from bs4 import BeautifulSoup, NavigableString
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from retrieval.chunking import ChunkDraft, ChunkingError, chunk_document
from retrieval.embeddings import token_count

FAST = settings(max_examples=100, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])


def words(text: str) -> int:
    return len(text.split())


# --- what every chunking must satisfy ---------------------------------------------


def visible_words(fragment: str) -> list[str]:
    """Words a reader sees in an HTML fragment, computed independently of the
    chunker: same rules (comments, hidden and non-content elements are not text)."""
    from retrieval.chunking import _HTML_SKIP, _hidden

    soup = BeautifulSoup(fragment, "html.parser")
    for tag in soup.find_all(lambda t: t.name in _HTML_SKIP or _hidden(t)):
        if not tag.decomposed:
            tag.decompose()
    text = " ".join(s for s in soup.descendants if type(s) is NavigableString)
    return text.split()


# List marks, cell pipes and the rule under a table's header row (``|---|---|``).
_MARKER = re.compile(r"^(?:\||-|\d+\.|\|(?:---\|)+)$")


def unmarked(words_: list[str]) -> list[str]:
    """Words without the chunker's markers; a ``|`` it escaped in a table cell reads as ``|``."""
    return [w.replace("\\|", "|") for w in words_ if not _MARKER.match(w)]


def assert_maps_back(source: str, fmt: str, chunks: list[ChunkDraft]) -> None:
    previous_end = 0
    for chunk in chunks:
        assert 0 <= previous_end <= chunk.char_start < chunk.char_end <= len(source), chunk
        for a, b in chunk.repeated:
            assert 0 <= a < b <= chunk.char_start
        if fmt in ("markdown", "text"):
            prefix = "".join(source[a:b] + "\n" for a, b in chunk.repeated)
            assert chunk.text == prefix + source[chunk.char_start : chunk.char_end]
        else:
            expected = [
                w for a, b in [*chunk.repeated, (chunk.char_start, chunk.char_end)] for w in visible_words(source[a:b])
            ]
            assert unmarked(chunk.text.split()) == unmarked(expected)
        previous_end = chunk.char_end
    assert [c.position for c in chunks] == list(range(1, len(chunks) + 1))


def assert_size(chunks: list[ChunkDraft], count, max_tokens: int) -> None:
    for chunk in chunks:
        assert chunk.token_count == count(chunk.text)
        # Over the limit only when one indivisible part is too big by itself.
        assert chunk.token_count <= max_tokens or chunk.parts == 1, chunk


def chunk_or_nothing(source: str, fmt: str, max_tokens: int, count=words) -> list[ChunkDraft]:
    try:
        return chunk_document(source, fmt, count=count, max_tokens=max_tokens, title="T")
    except ChunkingError:
        return []  # the one error the chunker may raise: no text


# --- structured documents of unique words -------------------------------------------


@dataclass
class Doc:
    blocks: list[tuple]  # ("heading", level, words) | ("para", sentences) | ("list", lead, items)
    #                      | ("table", lead, header, rows) | ("code", lines)


def doc_strategy() -> st.SearchStrategy[Doc]:
    counter = iter(range(10**9))

    def word_list(min_size: int, max_size: int) -> st.SearchStrategy[list[str]]:
        return st.lists(st.just(0), min_size=min_size, max_size=max_size).map(
            lambda xs: [f"w{next(counter)}" for _ in xs]
        )

    sentence = word_list(1, 12).map(lambda ws: ws[:-1] + [ws[-1] + "."])
    lead = st.one_of(
        st.none(),
        st.lists(sentence, min_size=1, max_size=3).map(
            lambda ss: ss[:-1] + [ss[-1][:-1] + [ss[-1][-1].rstrip(".") + ":"]]
        ),
    )
    block = st.one_of(
        st.tuples(st.just("heading"), st.integers(1, 3), word_list(1, 4)),
        st.tuples(st.just("para"), st.lists(sentence, min_size=1, max_size=8)),
        st.tuples(st.just("list"), lead, st.lists(word_list(1, 8), min_size=1, max_size=10)),
        st.tuples(st.just("table"), lead, word_list(2, 3), st.lists(word_list(2, 3), min_size=1, max_size=10)),
        st.tuples(st.just("code"), st.lists(word_list(1, 6), min_size=1, max_size=12)),
    )
    return st.lists(block, min_size=1, max_size=8).map(Doc)


def _cells(ws: list[str], width: int) -> list[str]:
    return (ws + [""] * width)[: max(width, 1)] if width else ws


def render_markdown(doc: Doc, crlf: bool = False) -> str:
    out = []
    for kind, *rest in doc.blocks:
        if kind == "heading":
            out.append("#" * rest[0] + " " + " ".join(rest[1]))
        elif kind == "para":
            out.append(" ".join(" ".join(s) for s in rest[0]))
        elif kind == "list":
            lead, items = rest
            body = "\n".join(f"- {' '.join(i)}" for i in items)
            out.append((" ".join(" ".join(s) for s in lead) + "\n\n" if lead else "") + body)
        elif kind == "table":
            lead, header, rows = rest
            width = len(header)
            lines = ["| " + " | ".join(header) + " |", "|" + "---|" * width]
            lines += ["| " + " | ".join((r + ["x"] * width)[:width]) + " |" for r in rows]
            out.append((" ".join(" ".join(s) for s in lead) + "\n\n" if lead else "") + "\n".join(lines))
        else:
            out.append("```\n" + "\n".join("  ".join(line) for line in rest[0]) + "\n```")
    text = "\n\n".join(out) + "\n"
    return text.replace("\n", "\r\n") if crlf else text


def render_html(doc: Doc) -> str:
    out = ["<html><head><title>judul</title></head><body>"]
    for kind, *rest in doc.blocks:
        if kind == "heading":
            out.append(f"<h{rest[0]}>{' '.join(rest[1])}</h{rest[0]}>")
        elif kind == "para":
            out.append("<p>" + " ".join(f"<b>{s[0]}</b> {' '.join(s[1:])}" for s in rest[0]) + "</p>")
        elif kind == "list":
            lead, items = rest
            if lead:
                out.append("<p>" + " ".join(" ".join(s) for s in lead) + "</p>")
            out.append("<ol>" + "".join(f"<li>{' '.join(i)}</li>" for i in items) + "</ol>")
        elif kind == "table":
            lead, header, rows = rest
            if lead:
                out.append("<div>" + " ".join(" ".join(s) for s in lead) + "</div>")
            out.append(
                "<table><tr>"
                + "".join(f"<th>{h}</th>" for h in header)
                + "</tr>"
                + "".join("<tr>" + "".join(f"<td>{c}</td>" for c in r) + "</tr>" for r in rows)
                + "</table>"
            )
        else:
            out.append("<pre>" + "\n".join(html.escape(" ".join(line)) for line in rest[0]) + "</pre>")
        out.append("<!-- komentar --><span hidden>tersembunyi</span>\n")
    out.append("</body></html>")
    return "".join(out)


def render_text(doc: Doc) -> str:
    out = []
    for kind, *rest in doc.blocks:
        if kind in ("heading", "code"):
            lines = [rest[1]] if kind == "heading" else rest[0]
            out.append("\n".join(" ".join(line) for line in lines))
        elif kind == "para":
            out.append(" ".join(" ".join(s) for s in rest[0]))
        else:
            lead, items = rest[0], rest[-1]
            body = "\n".join(f"{n}. {' '.join(i)}" for n, i in enumerate(items, start=1))
            out.append((" ".join(" ".join(s) for s in lead) + "\n" if lead else "") + body)
    return "\n\n".join(out)


def heading_words(doc: Doc, fmt: str) -> set[str]:
    if fmt == "text":  # plain text has no headings
        return set()
    return {w for kind, *rest in doc.blocks if kind == "heading" for w in rest[1]}


def assert_every_word_once(source: str, fmt: str, doc: Doc, chunks: list[ChunkDraft]) -> None:
    headings = heading_words(doc, fmt)
    crumbs = {w for c in chunks for part in c.heading_path for w in part.split()}
    for word in re.findall(r"\bw\d+\b", source):
        position = re.search(rf"\b{word}\b", source).start()
        owners = [c for c in chunks if c.char_start <= position < c.char_end]
        if word in headings:
            # Never lost: carried as a breadcrumb, or — a heading with no text
            # under it that left the breadcrumb — in the text of the chunk whose
            # span holds it.
            in_text = [c for c in owners if word in re.findall(r"w\d+", c.text)]
            assert len(owners) <= 1 and (word in crumbs or in_text), (word, owners)
            continue
        assert len(owners) == 1, (word, owners)
        assert word in re.findall(r"w\d+", owners[0].text), (word, owners[0].text)
        # Repeated context aside, no chunk holds the word a second time.
        others = [c for c in chunks if c is not owners[0] and word in re.findall(r"w\d+", c.text)]
        assert all(any(a <= position < b for a, b in c.repeated) for c in others), (word, others)
    # Headings with text under them are carried as breadcrumbs.
    assert crumbs <= headings | {"T"}


RENDER = {"markdown": render_markdown, "html": render_html, "text": render_text}


@pytest.mark.parametrize("fmt", ["markdown", "html", "text"])
@FAST
@given(doc=doc_strategy(), max_tokens=st.integers(3, 80))
def test_structured_documents_map_back_without_loss(fmt, doc, max_tokens):
    source = RENDER[fmt](doc)
    chunks = chunk_or_nothing(source, fmt, max_tokens)
    assert chunks or all(kind == "heading" for kind, *_ in doc.blocks) and fmt != "text"
    assert_maps_back(source, fmt, chunks)
    assert_every_word_once(source, fmt, doc, chunks)
    assert_size(chunks, words, max_tokens)


@settings(FAST, max_examples=40)
@given(doc=doc_strategy(), max_tokens=st.integers(3, 80))
def test_crlf_markdown_is_sliced_exactly(doc, max_tokens):
    source = render_markdown(doc, crlf=True)
    chunks = chunk_or_nothing(source, "markdown", max_tokens)
    assert_maps_back(source, "markdown", chunks)
    assert_every_word_once(source, "markdown", doc, chunks)


def test_split_table_repeats_its_header_at_its_own_span():
    rows = "\n".join(f"| r{n} | nilai {n} |" for n in range(12))
    source = f"Tabel berikut:\n\n| Kode | Arti |\n|---|---|\n{rows}\n"
    chunks = chunk_document(source, "markdown", count=words, max_tokens=20)
    assert len(chunks) > 2
    header = source.index("| Kode"), source.index("|---|---|") + len("|---|---|")
    lead = 0, len("Tabel berikut:")
    for chunk in chunks[1:]:
        assert [source[a:b] for a, b in chunk.repeated] == ["Tabel berikut:", "| Kode | Arti |", "|---|---|"]
        assert chunk.repeated == (
            lead,
            (header[0], source.index("\n", header[0])),
            (source.index("|---|---|"), header[1]),
        )
    assert_maps_back(source, "markdown", chunks)


def test_split_list_keeps_its_whole_lead_in_paragraph():
    # Regression: a split list kept only the last sentence of its lead-in;
    # the sentences before it ("Pertama ...") were in no chunk at all.
    items = "\n".join(f"- langkah nomor {n} dikerjakan" for n in range(10))
    source = f"Pertama baca panduan. Lalu ikuti langkah:\n\n{items}\n"
    chunks = chunk_document(source, "markdown", count=words, max_tokens=15)
    assert chunks[0].text.startswith("Pertama baca panduan. Lalu ikuti langkah:")
    assert all(c.text.startswith("Lalu ikuti langkah:\n- langkah") for c in chunks[1:])
    assert_maps_back(source, "markdown", chunks)


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        # Regression: loose text was placed at its parent's start, before "isi".
        ("<div>sebelum<p>isi</p>sesudah</div>", ["sebelum", "isi", "sesudah"]),
        # Regression: text after a block inside an unclosed heading was dropped.
        ("<h1>T<p>x</p>sesudah</h1>", ["x", "sesudah"]),
        # Regression: a nested table's cells were repeated as rows of the outer one.
        ("<table><tr><td>a<table><tr><td>dalam</td></tr></table></td></tr></table>", ["a", "dalam"]),
    ],
)
def test_html_text_in_document_order_once(source, expected):
    chunks = chunk_document(source, "html", count=words, max_tokens=50)
    assert unmarked(" ".join(c.text for c in chunks).split()) == expected
    assert_maps_back(source, "html", chunks)


def test_lone_cr_line_breaks_in_markdown():
    # Regression: markdown-it treats a lone CR as a line break, our offsets did
    # not, so spans pointed at the wrong lines and "# H" was chunk text.
    chunks = chunk_document("a\rb\r\r# H\r\rc d", "markdown", count=words, max_tokens=50)
    assert [(c.breadcrumb, c.text) for c in chunks] == [("", "a\rb"), ("H", "c d")]


# --- any input at all -----------------------------------------------------------------

markup_text = st.lists(
    st.sampled_from(
        list("ab .:-|#*`>\n\r\t1<>/=\"'&;!?")
        + [
            "<p>",
            "</p>",
            "<li>",
            "<ul>",
            "</ul>",
            "<ol>",
            "<h1>",
            "</h1>",
            "<table>",
            "<tr>",
            "<td>",
            "<th>",
            "</td>",
            "<pre>",
            "</pre>",
            "<!--",
            "-->",
            "&amp;",
            "&#",
            "&#x41;",
            "\x00",
            "\u2028",
            "\x85",
            "\x0b",
            "é",
            "日本",
            "<div hidden>",
            "</div>",
            "<b>",
            "<script>",
            "</script>",
            "```",
            "---",
            "| a | b |\n|---|---|\n",
            "\r\n",
            "<br>",
            "<![CDATA[x]]>",
            "<span style='display:none'>",
            "</span>",
            "&nbsp;",
            "&lt;",
            "&notanentity;",
            "&amp",
        ]
    ),
    max_size=120,
).map("".join)


@pytest.mark.parametrize("fmt", ["markdown", "html", "text"])
@FAST
@given(source=st.one_of(st.text(max_size=400), markup_text), max_tokens=st.integers(1, 40))
@example(source="a\u2028- b\u2028- c", max_tokens=5)  # plain text: str.index crashed on \u2028 lines
@example(source="x:\r\n- a\r\n- b", max_tokens=5)
@example(source="<p>a &amp b</p>", max_tokens=5)
@example(source="<table><tr><td><table><tr><td>dalam</td></tr></table></td></tr></table>", max_tokens=5)
@example(source="<div>sebelum<p>isi</p>sesudah</div>", max_tokens=5)
@example(source="a\rb\r\rc", max_tokens=5)
@example(source="<h1>T<p>x</p>sesudah</h1>", max_tokens=5)
@example(source="0&#0;", max_tokens=5)  # a reference at the very end had an empty span
@example(source="", max_tokens=5)
@example(source=" \n\t\r\n ", max_tokens=5)
@example(source="\x00", max_tokens=5)
def test_any_input_maps_back_or_is_refused_cleanly(fmt, source, max_tokens):
    chunks = chunk_or_nothing(source, fmt, max_tokens)
    assert_maps_back(source, fmt, chunks)
    assert_size(chunks, words, max_tokens)


@pytest.mark.parametrize("fmt", ["markdown", "html", "text"])
def test_pathological_shapes(fmt):
    deep_md = "".join("  " * n + "- lapis\n" for n in range(300))
    deep_html = "<ul><li>lapis" * 1500 + "</li></ul>" * 1500
    nested_divs = "<div>" * 3000 + "dalam" + "</div>" * 3000
    huge_line = "kata " * 20000
    for source in (deep_md, deep_html, nested_divs, huge_line, "\x00" * 100, "a" * 100000):
        chunks = chunk_or_nothing(source, fmt, 50)
        assert_maps_back(source, fmt, chunks)
        assert_size(chunks, words, 50)


# --- the real tokenizer -----------------------------------------------------------------

REAL_DOC = (
    """# Panduan

Untuk mengganti kata sandi, buka menu Profil. Lalu ikuti langkah berikut:

"""
    + "\n".join(f"{n}. Langkah ke-{n}: klik tombol ERR_CONN_RESET lalu tunggu sinkronisasi." for n in range(1, 30))
    + """

| Kode | Arti |
|---|---|
"""
    + "\n".join(f"| LD-40{n:02d} | Kuota penyimpanan habis untuk akun nomor {n} |" for n in range(40))
    + "\n"
)


@pytest.mark.parametrize("fmt", ["markdown", "text"])
def test_real_tokenizer_respects_the_limit(fmt, count):
    chunks = chunk_document(REAL_DOC, fmt, count=count, max_tokens=64)
    assert len(chunks) > 3
    assert_maps_back(REAL_DOC, fmt, chunks)
    assert_size(chunks, count, 64)


def test_real_tokenizer_html(count):
    rows = "".join(f"<tr><td>LD-40{n:02d}</td><td>Kuota habis &amp; akun {n}</td></tr>" for n in range(40))
    source = (
        f"<h1>Kode</h1><p>Daftar kode galat: </p><table><tr><th>Kode</th><th>Arti</th></tr>{rows}"
        "</table><p>" + " ".join(f"Kalimat {n} tentang baterai." for n in range(60)) + "</p>"
    )
    chunks = chunk_document(source, "html", count=count, max_tokens=48)
    assert len(chunks) > 3
    assert_maps_back(source, "html", chunks)
    assert_size(chunks, count, 48)


@settings(max_examples=15, deadline=None, derandomize=True)
@given(doc=doc_strategy())
def test_real_tokenizer_on_generated_documents(doc):
    count = token_count
    source = render_markdown(doc)
    chunks = chunk_or_nothing(source, "markdown", 40, count)
    assert_maps_back(source, "markdown", chunks)
    assert_every_word_once(source, "markdown", doc, chunks)
    assert_size(chunks, count, 40)


def test_a_table_header_never_stands_alone():
    """A header too long to share a chunk with its first row takes that row
    along, over the limit: a chunk of column names only says nothing."""
    header = "| " + " | ".join(f"kolom{n} keterangan panjang" for n in range(6)) + " |"
    rows = "\n".join("| " + " | ".join(f"nilai{r}{n}" for n in range(6)) + " |" for r in range(4))
    source = f"# Data\n\n{header}\n|{'---|' * 6}\n{rows}\n"
    chunks = chunk_document(source, "markdown", count=words, max_tokens=20)
    tables = [c for c in chunks if c.kind == "table"]
    assert all("nilai" in c.text for c in tables), [c.text for c in tables]
    assert tables[0].text.startswith(header) and "nilai00" in tables[0].text and tables[0].parts == 1
    assert_size(chunks, words, 20)
