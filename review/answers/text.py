"""Text signals the answer pipeline explains itself with: sentences, stems
(PostgreSQL's ``indonesian`` configuration, the same as the lexical index),
facts (numbers, dates, identifiers), availability status terms, quantities
with units, and questions about the present."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from django.db import connection

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(“])|\n+")
_LIST_MARK = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+")

STOPWORDS = frozenset(
    """
    yang dan di ke dari untuk pada dengan atau ini itu adalah ialah apa apakah siapa kapan mengapa kenapa
    bagaimana berapa mana sudah belum sekarang saat kini masih akan bisa dapat ada tidak bukan juga sebagai
    oleh dalam atas bahwa karena jika kalau agar supaya sejak hingga sampai para lebih kurang sangat telah
    sedang harus boleh ya nya kah lah pun kan benarkah betulkah menurut kami kita saya anda mereka ia dia the a an of to for in on and or
    is are was were be been what when who which how why does do did now currently still yet it this that
""".split()
)


# Text addressed to a model rather than a reader ("abaikan instruksi
# sebelumnya …", "ignore previous instructions"): it is data to quote at
# most, never a statement of the source, so it never becomes a claim.
_INSTRUCTION = re.compile(
    r"(abaikan|lupakan)\s+(semua\s+|seluruh\s+)?(instruksi|perintah|aturan)"
    r"|(ignore|disregard|forget)\s+(all\s+|any\s+)?(the\s+|your\s+)?(previous|prior|above|earlier|preceding)"
    r"\s+(instructions|prompts?|rules)"
    r"|system\s+prompt|prompt\s+sistem|you\s+are\s+now\b|anda\s+sekarang\s+(adalah|dalam)"
    r"|asisten\s+AI\s+yang\s+membaca|(catatan|pesan|perintah|instruksi)\s+(untuk|bagi|kepada)\s+(asisten|model|AI)"
    r"|(kepada|untuk|bagi)\s+(model\s+bahasa|model\s+AI|asisten\s+AI|chatbot|LLM)\b"
    r"|note\s+to\s+(the\s+|any\s+)?(AI|assistant|language\s+model|LLM)"
    r"|^\W*(system|assistant|user)\s*:|#+\s*(instruction|instruksi)|<\|im_(start|end)\|>"
    r"|^\W*(jawab|jawablah|katakan|katakanlah|tuliskan|tulislah|sebutkan)\s+(saja\s+|hanya\s+)?(bahwa|dengan)"
    r"|^\W*(answer|respond|reply|say|state|tell\s+the\s+user)\s+(only\s+)?(with|that)\b",
    re.I | re.M,
)


def is_instruction(text: str) -> bool:
    return _INSTRUCTION.search(text) is not None


def without_instructions(text: str) -> str:
    """``text`` less its sentences addressed to a model: what a source
    states, the only thing a claim may rest on."""
    return "\n".join(piece for piece in _SENTENCE_END.split(plain(text)) if not is_instruction(piece))


def instructions_blanked(text: str) -> str:
    """``text`` with its sentences addressed to a model turned to spaces:
    what the reader reads, each remaining character where it was (spans
    and units keep their offsets), none of it able to sway the reading."""
    out, at = [], 0
    for mark in [*_SENTENCE_END.finditer(text), None]:
        end = mark.start() if mark else len(text)
        piece = text[at:end]
        out.append(" " * len(piece) if is_instruction(piece) else piece)
        if mark:
            out.append(mark.group())
            at = mark.end()
    return "".join(out)


_MD_LINK = re.compile(r"\[([^\]]+)\]\([^)]*\)")
_MD_STRONG = re.compile(r"\*\*|__|`")
_MD_EM = re.compile(r"(?<![\w*])\*(?=\S)([^*\n]+?)(?<=\S)\*(?![\w*])")
_MD_QUOTE = re.compile(r"^\s*>\s?", re.M)


def plain(text: str) -> str:
    """Markdown emphasis, links and quote marks removed: how a reader sees
    the sentence, and how a claim should read."""
    return _MD_QUOTE.sub("", _MD_EM.sub(r"\1", _MD_STRONG.sub("", _MD_LINK.sub(r"\1", text))))


def sentences(text: str) -> list[str]:
    """The statements of a chunk: its sentences and list items without list
    marks. Headings, fragments under four words, questions and text
    addressed to a model are left out (they assert nothing)."""
    out = []
    for piece in _SENTENCE_END.split(plain(text)):
        piece = _LIST_MARK.sub("", piece.strip()).strip("|").strip()
        if piece.startswith("#") or len(piece.split()) < 4 or "?" in piece or is_instruction(piece):
            continue
        out.append(piece)
    return out


def stems(texts: list[str]) -> list[set[str]]:
    """Content stems of each text, from PostgreSQL in one round trip."""
    if not texts:
        return []
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT tsvector_to_array(to_tsvector('indonesian', t.x)) "
            "FROM unnest(%s::text[]) WITH ORDINALITY AS t(x, n) ORDER BY t.n",
            [texts],
        )
        rows = cursor.fetchall()
    return [{s for s in row[0] if s not in STOPWORDS and len(s) > 1} for row in rows]


# Anything with a digit (numbers, versions, dates, CVE ids, prices) and
# upper-case identifiers joined by _ or - (ERR_CONN_RESET).
_FACT = re.compile(r"(?<![\w])(?:[A-Za-z]*\d[\w.,:/%-]*|[A-Z]{2,}(?:[_-][A-Z0-9]+)+(?![\w]))")
# A compound of a code and a plain lower-case word ("S3-compatible",
# "2FA-nya") names a kind of thing, not one thing: it is a word, not an
# identifier that must appear verbatim.
_WORD_PART = re.compile(r"(?:^|[_-])[a-z]{4,}(?:$|[_-])")


def facts(text: str) -> set[str]:
    return {m.group(0).rstrip(".,:;-/").lower() for m in _FACT.finditer(text)} - {""}


# A lower-case code of short letter groups ending in a number (the region
# id-mks-1, the zone ap-se-3): ``_FACT`` sees only its final digit. Two
# letter groups at least, so an ordinal ("abad ke-19") is no code.
_LOWER_CODE = re.compile(r"(?<![\w-])[a-z]{2,3}(?:-[a-z]{2,3})+-\d+[a-z]?(?![\w-])")


def identifiers(text: str) -> set[str]:
    """Codes and model numbers: letters with digits, ``_`` or ``-`` (KR-220X,
    ERR_CONN_RESET, v4.2.1, id-mks-1), lower-cased; not a code joined to a word."""
    found = {m.group(0) for m in _LOWER_CODE.finditer(text)}
    for match in _FACT.finditer(text):
        raw = match.group(0).rstrip(".,:;-/")
        fact = raw.lower()
        if (
            any(c.isalpha() for c in fact)
            and any(c.isdigit() or c in "_-" for c in fact)
            and not _WORD_PART.search(raw)
        ):
            found.add(fact)
    return found


_NAME_TOKEN = re.compile(r"[^\s()\[\],;:?!]+")


def code_names(text: str) -> dict[str, set[str]]:
    """Product names a code starts and capitalised words finish ("LD-Edge
    X200 Pro", "KR-H7 Ultra"): each name from its last code on, lower-cased,
    with the codes of its run ({"x200 pro": {"x200"}}; "LD-Edge" is a word
    joined to a code, not a code). The
    variant is a thing of its own: what the evidence says of "X200" is not
    said of the "X200 Pro"."""
    codes = identifiers(text)
    names: dict[str, set[str]] = {}
    run: list[str] = []

    def close() -> None:
        last = max((i for i, t in enumerate(run) if t.lower() in codes), default=None)
        if last is not None and last < len(run) - 1:
            names[" ".join(run[last:]).lower()] = {t.lower() for t in run if t.lower() in codes}
        run.clear()

    for match in _NAME_TOKEN.finditer(text):
        token = match.group(0).rstrip(".")
        if token.lower() in codes or (token[:1].isupper() and token.isalpha()):
            run.append(token)
        else:
            close()
        if match.group(0).endswith("."):
            close()  # a name does not run on into the next sentence
    close()
    return names


def fact_present(fact: str, text: str) -> bool:
    """``fact`` occurs in ``text`` as a whole token (30 is not in 300 or 3.0)."""
    return re.search(rf"(?<![\w.,]){re.escape(fact)}(?![\w]|[.,]\d)", text.lower()) is not None


# --- availability status -------------------------------------------------------

STATUS_STAGES = {"private_preview": 1, "public_preview": 2, "generally_available": 3}
STATUS_LABELS = {
    "private_preview": "private preview",
    "public_preview": "public preview (beta)",
    "generally_available": "tersedia untuk semua pelanggan (GA)",
}
_STATUS = {
    "private_preview": re.compile(r"private preview|pratinjau privat", re.I),
    "public_preview": re.compile(r"public preview|pratinjau publik|\bbeta\b", re.I),
    "generally_available": re.compile(
        r"tersedia untuk semua pelanggan|generally available|\bGA\b|"
        r"tersedia secara umum|ketersediaan umum",
        re.I,
    ),
}
# Negated or not-yet mentions ("belum tersedia untuk semua pelanggan", "GA
# ditargetkan paruh kedua 2026") assert no status.
_NEGATION = re.compile(
    r"\b(belum|tidak|bukan|tak|tanpa|not|yet|sebelum|without|akan|rencana\w*|direncanakan|"
    r"target\w*|ditargetkan|diharapkan|will|planned|expected)\b[\w\s]{0,25}$",
    re.I,
)


def availability(text: str) -> str | None:
    """The latest availability stage a text asserts (negated mentions such as
    "belum tersedia untuk semua pelanggan" do not count), or None."""
    found = []
    for status, pattern in _STATUS.items():
        for match in pattern.finditer(text):
            if not _NEGATION.search(text[max(0, match.start() - 30) : match.start()]):
                found.append(status)
                break
    return max(found, key=STATUS_STAGES.__getitem__) if found else None


_AVAILABILITY_QUESTION = re.compile(
    r"\b(tersedia|available|availability|GA|preview|pratinjau|beta|"
    r"terpilih|dicoba|diluncurkan|rilis)\b",
    re.I,
)
_NOT_AVAILABILITY = re.compile(r"\b(berapa|kapan|siapa|di\s?mana|mengapa|kenapa|how\s+(much|many)|when|who)\b", re.I)


def asks_availability(question: str) -> bool:
    """The question asks whether something is available, or at which stage
    ("Apakah Smart Sync sudah GA?"), not for a number or a date about it
    ("Kuota Smart Sync setelah GA berapa GB?")."""
    return bool(_AVAILABILITY_QUESTION.search(question)) and not _NOT_AVAILABILITY.search(question)


# --- quantities and dates ---------------------------------------------------------

_MONTHS = "januari februari maret april mei juni juli agustus september oktober november desember".split()
_QUANTITY = re.compile(
    r"(?<![\w.,])(\d+(?:[.,]\d+)?)\s*(jam|hari|detik|menit|minggu|bulan|tahun|gb|tb|mb|%|persen)\b", re.I
)
_DATE = re.compile(r"\b(\d{1,2})\s+(" + "|".join(_MONTHS) + r")\s+(\d{4})\b|\b(\d{4})-(\d{2})-(\d{2})\b", re.I)
_WORD = re.compile(r"[A-Za-zÀ-ÿ]{4,}")


@dataclass(frozen=True)
class Mention:
    """A value (``30 jam``, ``2026-05-02``) with the words just before it,
    which say what it measures."""

    kind: str  # "number" | "date"
    unit: str
    value: str
    context: frozenset[str]  # numbers: the attribute measured; dates: the events dated
    text: str


# What a date can be the date of; two dates conflict only for the same event.
_EVENTS = {
    "tersed": "available",
    "berlak": "effective",
    "efekti": "effective",
    "mulai": "effective",
    "rilis": "release",
    "dirili": "release",
    "diluncu": "launch",
    "peluncu": "launch",
    "umum": "available",
    "genera": "available",
}


_SEGMENT_START = re.compile(r"[;|\n]|\s[—–]\s|[.!?]\s")
_KEY = re.compile(r"^\W*([^:]{1,60}):")


def _attribute(text: str, start: int) -> frozenset[str]:
    """What a number measures: the key of its "Key: value" segment (a field,
    a table cell under its header), else the last content words before it in
    its sentence; as 5-letter prefixes, so "pemutaran" and "pemutarannya" agree."""
    segment_start = max((m.end() for m in _SEGMENT_START.finditer(text, 0, start)), default=0)
    before = text[segment_start:start]
    key = _KEY.match(before)
    words = _WORD.findall((key.group(1) if key else before).lower())
    words = [w for w in words if w not in STOPWORDS]
    return frozenset(w[:5] for w in (words if key else words[-3:]))


def same_attribute(a: frozenset[str], b: frozenset[str]) -> bool:
    """Two numbers measure the same thing when their attributes are the same
    words, or the shorter one (two words at least) is inside the longer."""
    small, large = sorted((a, b), key=len)
    return bool(small) and (small == large or (len(small) >= 2 and small <= large))


def _events(text: str, start: int) -> frozenset[str]:
    words = _WORD.findall(text[max(0, start - 80) : start].lower())
    return frozenset(event for w in words[-8:] for prefix, event in _EVENTS.items() if w.startswith(prefix))


def mentions(text: str) -> list[Mention]:
    out = []
    for m in _QUANTITY.finditer(text):
        unit = m.group(2).lower().replace("persen", "%")
        out.append(Mention("number", unit, m.group(1).replace(",", "."), _attribute(text, m.start()), m.group(0)))
    for m in _DATE.finditer(text):
        if m.group(1):
            value = f"{m.group(3)}-{_MONTHS.index(m.group(2).lower()) + 1:02d}-{int(m.group(1)):02d}"
        else:
            value = f"{m.group(4)}-{m.group(5)}-{m.group(6)}"
        out.append(Mention("date", "date", value, _events(text, m.start()), m.group(0)))
    return out


# --- questions about the present ---------------------------------------------------

_PRESENT = re.compile(r"\b(sekarang|saat ini|kini|terkini|terbaru|masih|sudah|currently|now|latest|still)\b", re.I)


def asks_about_present(question: str) -> bool:
    return _PRESENT.search(question) is not None


_QUANTITY_QUESTION = re.compile(r"\bberapa\b|\bhow\s+(many|much|long)\b", re.I)


def asks_for_quantity(question: str) -> bool:
    return _QUANTITY_QUESTION.search(question) is not None


# Units of measure a "berapa" question can ask in ("berapa meter", "berapa
# GB"); the answer must be given in it (or its symbol).
_MEASURES = {
    "meter": r"meter|m",
    "kilometer": r"kilometer|km",
    "sentimeter": r"sentimeter|cm",
    "milimeter": r"milimeter|mm",
    "kilogram": r"kilogram|kg",
    "gram": r"gram|g",
    "ton": r"ton",
    "liter": r"liter|l",
    "watt": r"watt|w",
    "volt": r"volt|v",
    "mah": r"mah",
    "inci": r"inci|inch|\"",
    "jam": r"jam",
    "menit": r"menit",
    "detik": r"detik",
    "gb": r"gb",
    "tb": r"tb",
    "mb": r"mb",
    "persen": r"persen|%",
    "milidetik": r"milidetik|ms",
    "mikrodetik": r"mikrodetik|µs|us",
    "hertz": r"hertz|hz",
    "megahertz": r"megahertz|mhz",
    "gigahertz": r"gigahertz|ghz",
    "kbps": r"kbps",
    "mbps": r"mbps",
    "gbps": r"gbps",
    "tops": r"tops",
    "kwh": r"kwh",
    "kilowatt": r"kilowatt|kw",
    "desibel": r"desibel|db",
}
# A price is a quantity too: "berapa harga/biaya/tarif" is answered by an
# amount of money (Rp149.000, 2,5 juta rupiah, USD 20), as "berapa jam" by hours.
_PRICE_WORDS = ("harga", "biaya", "tarif", "ongkos")
_MONEY = re.compile(
    r"(?:(?<!\w)(?:rp|idr|usd|us\$|\$|€)\.?\s?\d|\d\s*(?:rupiah|ribu|juta|miliar|triliun|dolar|dollar)\b)", re.I
)
_MEASURE_QUESTION = re.compile(r"\bberapa\s+(" + "|".join((*_MEASURES, *_PRICE_WORDS)) + r")\b", re.I)


# Each way a unit is written after a number ("%", "g", "ms") and the word
# it stands for; the longest first, so "ms" is read before "m".
_MEASURE_WRITTEN = {
    alt.replace("\\", ""): word for word, alts in reversed(_MEASURES.items()) for alt in alts.split("|")
}
_MEASURE_GIVEN = re.compile(
    r"\d\s*(" + "|".join(re.escape(a) for a in sorted(_MEASURE_WRITTEN, key=len, reverse=True)) + r")(?!\w)", re.I
)


def measure_words(text: str) -> set[str]:
    """The unit words of the numbers ``text`` gives in a unit, however the
    unit is written: "99,9%" gives ‘persen’, "254 g" ‘gram’. A question's
    ‘persen’ is then found in evidence that writes "%", as its ‘jam’ is in
    evidence that writes "jam"."""
    return {_MEASURE_WRITTEN[m.group(1).lower()] for m in _MEASURE_GIVEN.finditer(text)}


def asked_measure(question: str) -> tuple[str, re.Pattern] | None:
    """The unit of measure a "berapa" question asks in, with the pattern of
    a number given in it: ("meter", 10 m / 10 meter); a price asks in money
    ("harga", Rp149.000)."""
    match = _MEASURE_QUESTION.search(question)
    if match is None:
        return None
    word = match.group(1).lower()
    if word in _PRICE_WORDS:
        return word, _MONEY
    return word, re.compile(rf"\d\s*(?:{_MEASURES[word]})(?!\w)", re.I)


_NUMBER = re.compile(r"(?<![\w-])\d+(?:[.,]\d+)*(?![\w-])")


def has_number(text: str) -> bool:
    """A standalone number (26, 1.500, 99,5), not a digit inside LX-700BT."""
    return _NUMBER.search(text) is not None


def idf_weights(terms: set[str], collection: str = "editorial") -> dict[str, float]:
    """BM25 IDF of each stem in the collection. A stem the archive never
    uses weighs most: a question about something absent ("CEO", "LD-4040")
    cannot be covered by any sentence, which is how an extractive answer
    learns to say "not enough evidence"."""
    from retrieval.models import LexicalStats, TermStat

    stats = LexicalStats.objects.filter(collection=collection).first()
    n = stats.chunk_count if stats else 0
    df = dict(TermStat.objects.filter(collection=collection, term__lexeme__in=terms).values_list("term__lexeme", "df"))
    return {t: math.log(1 + (n - df.get(t, 0) + 0.5) / (df.get(t, 0) + 0.5)) for t in terms}


def coverage(question_terms: set[str], terms: set[str], weights: dict[str, float]) -> float:
    """Share of the question's IDF mass that ``terms`` cover."""
    total = sum(weights.get(t, 0.0) for t in question_terms)
    return sum(weights.get(t, 0.0) for t in question_terms & terms) / total if total else 0.0


# --- how a question is asked ----------------------------------------------------------

# Question frames: the words that say what kind of answer is asked for
# (*berapa lama* a duration, *apa saja* a list, *bagaimana cara* a
# procedure), not what the answer is about. The evidence answers "berapa
# lama …" with "berlaku 12 bulan", never with ‘lama’. Closed-class grammar
# of Indonesian and English interrogatives, not a list of failures.
# Degree words only: a unit ("berapa tahun", "berapa GB") is what the answer
# must be given in, and stays a term (see ``asked_measure``).
_DEGREE = "lama|banyak|besar|jauh|kali|tinggi|luas|mahal|cepat|sering|panjang|berat|lebar|dalam|murah|kecil|usia|umur"
_FRAME = re.compile(
    rf"\bberapa\s+(?P<degree>{_DEGREE})\b"
    r"|\b(?:siapa|apa|mana|kapan|berapa|di\s?mana|ke\s?mana)\s+(?P<list>saja)\b"
    r"|\bbagaimana\s+(?P<way>cara(?:nya)?)\b"
    r"|\b(?P<like>seperti)\s+apa\b"
    r"|\b(?P<since>sejak|sampai|hingga|mulai)\s+kapan\b"
    r"|\b(?P<english>how\s+(?:long|many|much|often|far|big|large|old)|what\s+(?:kind|type|sort)\s+of)\b",
    re.I,
)


# The date a question is asked "as of" ("Per awal Oktober 2025, …",
# "tepatnya 20 Maret 2026"): it chooses the revisions in force, and no
# sentence of theirs need repeat it.
_AS_OF_DATE = re.compile(
    r"\b(?:(?:per|pada|tepatnya|tanggal|sejak|hingga|sampai|waktu|saat|as\s+of|on)\s+)?"
    r"(?:(?:awal|akhir|pertengahan|medio|early|late|mid)\s+)?(?:\d{1,2}\s+)?"
    r"(?:januari|februari|maret|april|mei|juni|juli|agustus|september|oktober|november|desember|"
    r"january|february|march|may|june|july|august|october|december)\s+\d{4}\b|\b\d{4}-\d{2}-\d{2}\b",
    re.I,
)


def frame_free(question: str, *, as_of: bool = False) -> str:
    """``question`` with its frame words blanked (same length, so offsets
    hold) and, for a question asked as of a date, its date expressions."""
    out = list(question)
    for match in _FRAME.finditer(question):
        for name, value in match.groupdict().items():
            if value:
                start, end = match.span(name)
                out[start:end] = " " * (end - start)
    for match in _AS_OF_DATE.finditer(question) if as_of else ():
        out[match.start() : match.end()] = " " * (match.end() - match.start())
    return "".join(out)


# Function words of each language; a question whose own function words are
# English, asked of an Indonesian archive, shares no terms with it even when
# it asks exactly what a sentence there says.
_ENGLISH = frozenset(
    """the a an of to for in on at by with from and or is are was were be been being what when who
    whom which how why does do did can could will would should shall may might must there this that these those
    it its my our your their his her has have had get gets got each every any some many much long not no than
    then if about into after before during per""".split()
)
_INDONESIAN = frozenset(
    """yang dan di ke dari untuk pada dengan atau ini itu adalah ialah apa apakah siapa kapan
    mengapa kenapa bagaimana berapa mana sudah belum sekarang masih akan bisa dapat ada tidak bukan juga oleh
    dalam bahwa karena jika kalau saja kah lah nya sejak hingga sampai berapa tersebut para sebagai""".split()
)
_LATIN_WORD = re.compile(r"[A-Za-z]+")


def is_english(question: str) -> bool:
    """More English than Indonesian function words, and at least two."""
    words = [w.lower() for w in _LATIN_WORD.findall(question)]
    english = sum(w in _ENGLISH for w in words)
    return english >= 2 and english > sum(w in _INDONESIAN for w in words)


def inflects(a: str, b: str) -> bool:
    """Two stems are one word inflected or derived in a way the stemmer left
    (‘sinkron’ and ‘sinkronus’, ‘patch’ and ‘patching’): the shorter, four
    letters at least, begins the longer, which adds at most three letters
    (‘data’ and ‘database’ are two words)."""
    short, long_ = sorted((a, b), key=len)
    return (
        short != long_
        and len(short) >= 4
        and long_.startswith(short)
        and len(long_) - len(short) <= 3
        and short.isalpha()
        and long_.isalpha()
    )


def is_protected(word: str, position: int) -> bool:
    """A name, an identifier or a number: what a near miss gets wrong
    (another product, another year), so it must be found, not paraphrased.
    A capitalised word counts only past the question's first word."""
    if any(c.isdigit() for c in word) or (len(word) > 1 and word.isupper()):
        return True
    return position > 0 and word[:1].isupper() and not word.isupper() and len(word) > 1
