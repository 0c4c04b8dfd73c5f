"""Bytes of a web page or a text file as text, their encoding found as a
browser finds it.

w3lib's ``html_to_unicode`` is Scrapy's kept implementation of the WHATWG
order: byte-order mark, the Content-Type header's charset (ISO-8859-1 read
as windows-1252, as browsers do), a ``<meta>`` charset in the page. Failing
all three: UTF-8 when the bytes are valid UTF-8, else windows-1252, the
fallback browsers use for an undeclared page in an
Indonesian (or English) locale (WHATWG Encoding, "locale"), and only for
bytes windows-1252 leaves undefined charset-normalizer's guess — a
statistical guess alone read "café" as "cafķ" (windows-1257) — so a legacy
page or file is not turned into replacement characters.
Used for fetched replies (``fetching.py``) and local files (``sources.py``)
alike.
"""

from __future__ import annotations

# What browsers in an Indonesian or English locale assume for a page that
# names no encoding and is not UTF-8.
LOCALE_FALLBACK = "cp1252"


class UndecodableError(ValueError):
    """No encoding reads the bytes without replacement characters."""


def text_decoded(body: bytes, content_type: str | None = None) -> str:
    """``body`` as text; ``content_type`` is the reply's header, if any.
    Raises ``UndecodableError`` when the result would hold U+FFFD that the
    bytes did not spell out themselves."""
    from charset_normalizer import from_bytes
    from w3lib.encoding import html_to_unicode

    def guess(data: bytes) -> str | None:
        for encoding in ("utf-8", LOCALE_FALLBACK):
            try:
                data.decode(encoding)
                return encoding
            except UnicodeDecodeError:
                continue
        best = from_bytes(data).best()
        return best.encoding if best else None

    encoding, text = html_to_unicode(content_type, body, auto_detect_fun=guess)
    if "\ufffd" in text and "\ufffd".encode(encoding, errors="ignore") not in body:
        raise UndecodableError(f"byte yang tidak terbaca sebagai {encoding}")
    return text
