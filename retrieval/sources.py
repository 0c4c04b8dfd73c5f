"""Reading what is to be ingested: JSONL manifests and single files.

Every problem becomes an ``InputProblem`` that names where it is (file and
line) and what is wrong, in words an admin can act on. A bad line never
stops the good ones.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationError,
    field_validator,
    model_validator,
)

from .converters import BINARY_FORMATS, MAX_FILE_BYTES, Converted, convert
from .encodings import UndecodableError, text_decoded
from .ingestion import RevisionInput
from .models import DEFAULT_SOURCE_TYPE, SOURCE_TYPE_KEY, RelationType

MAX_DOCUMENT_BYTES = 4 * 1024 * 1024
FORMAT_BY_SUFFIX = {
    ".md": "markdown",
    ".markdown": "markdown",
    ".html": "html",
    ".htm": "html",
    ".txt": "text",
    ".pdf": "pdf",
    ".docx": "docx",
}


@dataclass(frozen=True)
class InputProblem:
    where: str  # "archive.jsonl line 7", "notes.pdf"
    message: str

    def __str__(self) -> str:
        return f"{self.where}: {self.message}"


class RelationEntry(BaseModel):
    model_config = ConfigDict(extra="forbid")
    type: RelationType
    target: str = Field(min_length=1, max_length=64)


class ManifestEntry(BaseModel):
    """One manifest line: one revision of one document."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    doc_id: str = Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9][A-Za-z0-9_.:-]*$")
    title: str = Field(min_length=1, max_length=500)
    # The revision's content is given in exactly one way: ``content`` (base64
    # for pdf and docx), ``path`` (relative to the manifest), or ``fetch`` from ``url``.
    content: str = ""
    path: str = Field(default="", max_length=1000)
    fetch: bool = False
    fetch_every_hours: int | None = Field(default=None, ge=1, le=24 * 366)
    format: Literal["markdown", "html", "text", "pdf", "docx"] = "markdown"
    # Any key: a type the archive lacks is created (with the lowest authority) and reported.
    source_type: str = DEFAULT_SOURCE_TYPE
    url: str = Field(default="", max_length=1000)
    document_date: date | None = None
    groups: list[str] = Field(default_factory=list)
    public: bool = False
    relations: list[RelationEntry] = Field(default_factory=list)

    @model_validator(mode="after")
    def _storable(self) -> ManifestEntry:
        # PostgreSQL text cannot hold NUL, and a lone surrogate ("\ud800" in
        # JSON) cannot be encoded at all: refuse such a line here, not at insert.
        strings = [self.doc_id, self.title, self.content, self.url, *self.groups, *(r.target for r in self.relations)]
        for value in strings:
            if "\x00" in value:
                raise ValueError("berisi byte NUL")
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                raise ValueError("berisi karakter Unicode yang tidak sah (surrogate tunggal)") from None
        return self

    _page_starts: list[int] = PrivateAttr(default_factory=list)
    _ocr_pages: list[int] = PrivateAttr(default_factory=list)
    _scan: bytes | None = PrivateAttr(default=None)

    @model_validator(mode="after")
    def _one_source(self) -> ManifestEntry:
        given = [
            name for name, value in (("content", self.content), ("path", self.path), ("fetch", self.fetch)) if value
        ]
        if len(given) != 1:
            raise ValueError(
                "isi harus diberikan dengan tepat satu dari content, path atau fetch "
                f"({'tidak ada' if not given else 'ada ' + ', '.join(given)})"
            )
        if self.fetch and not self.url:
            raise ValueError("fetch: true memerlukan url")
        if self.content and self.format not in BINARY_FORMATS:
            check_text(self.content)
        return self

    def resolve(self, base_dir: Path) -> None:
        """Read a ``path`` or decode a base64 ``content`` into the text the
        chunker reads (a fetched line is read later, by the fetcher).
        ValueError says what is wrong."""
        if self.path:
            loaded = read_document_file(base_dir / self.path, self.format, ocr=False)
        elif self.content and self.format in BINARY_FORMATS:
            try:
                data = base64.b64decode(self.content, validate=True)
            except (binascii.Error, ValueError):
                raise ValueError(f"content untuk format {self.format} harus base64 yang sah") from None
            loaded = convert(data, self.format, ocr=False)
        else:
            return
        self.content, self._page_starts, self._ocr_pages = loaded.text, loaded.page_starts, loaded.ocr_pages
        self._scan = loaded.scan  # read with OCR when the revision is indexed

    @field_validator("source_type")
    @classmethod
    def _source_type(cls, value: str) -> str:
        return source_type_key(value)

    @field_validator("groups")
    @classmethod
    def _groups(cls, value: list[str]) -> list[str]:
        names = [name.strip() for name in value]
        if any(not name or len(name) > 150 for name in names):
            raise ValueError("nama grup kosong atau lebih dari 150 karakter")
        return names

    def to_input(self, collection: str = "editorial") -> RevisionInput:
        return RevisionInput(
            key=self.doc_id,
            title=self.title,
            content=self.content,
            format=self.format,
            source_type=self.source_type,
            url=self.url,
            document_date=self.document_date,
            groups=self.groups,
            public=self.public,
            collection=collection,
            page_starts=self._page_starts,
            ocr_pages=self._ocr_pages,
            scan=self._scan,
            relations=[(r.type.value, r.target) for r in self.relations],
        )


def source_type_key(value: str) -> str:
    """A source type's key as stored: lower case; letters, digits, _ and -."""
    key = value.strip().lower()
    if not SOURCE_TYPE_KEY.fullmatch(key):
        raise ValueError(
            f"{value!r} bukan kunci jenis sumber yang sah: pakai huruf kecil, angka, _ atau - "
            "(paling banyak 50 karakter), mis. official_docs"
        )
    return key


def check_text(text: str) -> None:
    """Reject content no reader could use, with the reason."""
    if not text.strip():
        raise ValueError("isi dokumen kosong")
    if "\x00" in text:
        raise ValueError("isi berisi byte NUL: ini tampaknya file biner, bukan teks")
    size = len(text.encode("utf-8"))
    if size > MAX_DOCUMENT_BYTES:
        raise ValueError(
            f"dokumen {size / 1048576:.1f} MB; batasnya {MAX_DOCUMENT_BYTES // 1048576} MB "
            "— pecah menjadi beberapa dokumen"
        )


# pydantic's messages are English; an admin reads these instead (by error
# type, with the context pydantic gives).
_MESSAGES = {
    "missing": "wajib diisi",
    "extra_forbidden": "kolom tidak dikenal",
    "string_type": "harus berupa teks",
    "string_too_short": "tidak boleh kosong",
    "string_too_long": "paling banyak {max_length} karakter",
    "string_pattern_mismatch": "bentuknya tidak sah (huruf, angka, dan . _ : - saja, diawali huruf atau angka)",
    "literal_error": "harus salah satu dari: {expected}",
    "enum": "harus salah satu dari: {expected}",
    "bool_type": "harus true atau false",
    "bool_parsing": "harus true atau false",
    "list_type": "harus berupa daftar [...]",
    "dict_type": "harus berupa objek {{...}}",
    "model_type": "harus berupa objek {{...}}",
    "date_type": "harus tanggal YYYY-MM-DD",
    "date_parsing": "harus tanggal YYYY-MM-DD",
    "date_from_datetime_parsing": "harus tanggal YYYY-MM-DD",
    "date_from_datetime_inexact": "harus tanggal tanpa jam (YYYY-MM-DD)",
}


def _describe(error: ValidationError) -> str:
    parts = []
    for item in error.errors():
        field = ".".join(str(p) for p in item["loc"])
        template = _MESSAGES.get(item["type"])
        if item["type"] == "value_error":  # our own validators speak Indonesian already
            message = str(item["ctx"]["error"]) if "ctx" in item else item["msg"].removeprefix("Value error, ")
        elif template:
            # "'a', 'b' or 'c'": the list pydantic gives, with its one English word
            message = template.format(**{k: str(v).replace(" or ", " atau ") for k, v in item.get("ctx", {}).items()})
        else:
            message = f"nilai tidak sah ({item['type']})"
        parts.append(f"{field}: {message}" if field else message)  # a whole-line rule names no field
    return "; ".join(parts)


def read_manifest(path: Path) -> Iterator[ManifestEntry | InputProblem]:
    """Yield each line of a JSONL manifest as an entry, or as the problem with it.
    Blank lines are skipped; every other line yields exactly one item."""
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, start=1):
            where = f"{path.name} baris {number}"
            if not raw.strip():
                continue
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                yield InputProblem(
                    where, f"bukan UTF-8 yang valid (byte 0x{raw[exc.start]:02x} di kolom {exc.start + 1})"
                )
                continue
            if number == 1:  # a BOM (Windows editors write one) belongs to the file, not the line
                line = line.removeprefix("\ufeff")
            try:
                payload = json.loads(line)
            except json.JSONDecodeError as exc:
                yield InputProblem(where, f"JSON tidak valid: {exc.msg} (kolom {exc.colno})")
                continue
            except RecursionError:
                yield InputProblem(where, "JSON tidak valid: bersarang terlalu dalam")
                continue
            except ValueError as exc:  # e.g. an integer of more than 4300 digits
                yield InputProblem(where, f"JSON tidak valid: {exc}")
                continue
            if not isinstance(payload, dict):
                yield InputProblem(where, "setiap baris harus berupa objek JSON")
                continue
            label = payload.get("doc_id")
            where_doc = f"{where}" + (f" ({label})" if isinstance(label, str) else "")
            try:
                entry = ManifestEntry.model_validate(payload)
                entry.resolve(path.parent)
            except ValidationError as exc:
                yield InputProblem(where_doc, _describe(exc))
                continue
            except ValueError as exc:
                yield InputProblem(where_doc, str(exc))
                continue
            yield entry


def read_document_file(path: Path, fmt: str | None = None, *, ocr: bool = True) -> Converted:
    """The text (and a PDF's pages) of a .md/.html/.txt/.pdf/.docx file;
    ``ValueError`` says why it cannot be used. ``ocr=False``: a scanned PDF
    is left for the worker to read (``Converted.scan``)."""
    if fmt is None and path.suffix.lower() not in FORMAT_BY_SUFFIX:
        raise ValueError(
            f"format tidak dikenal '{path.suffix or '(tanpa ekstensi)'}'; gunakan .md, .html, .txt, .pdf atau .docx"
        )
    fmt = fmt or FORMAT_BY_SUFFIX[path.suffix.lower()]
    if not path.is_file():
        raise ValueError(f"file tidak ditemukan: {path}")
    limit = MAX_FILE_BYTES if fmt in BINARY_FORMATS else MAX_DOCUMENT_BYTES
    if path.stat().st_size > limit:
        raise ValueError(
            f"file {path.stat().st_size / 1048576:.1f} MB; batasnya "
            f"{limit // 1048576} MB — pecah menjadi beberapa dokumen"
        )
    data = path.read_bytes()
    if fmt in BINARY_FORMATS:
        converted = convert(data, fmt, ocr=ocr)
        if converted.scan is None:
            check_text(converted.text)
        return converted
    if b"\x00" in data[:8192]:
        raise ValueError("file biner, bukan teks (berisi byte NUL)")
    try:
        # A <meta> charset, else UTF-8, else the best guess, as a browser
        # reads a file without a server to name its charset.
        text = text_decoded(data)
    except UndecodableError as exc:
        raise ValueError(f"pengodean teks tidak dikenali ({exc}); simpan ulang sebagai UTF-8") from None
    check_text(text)
    return Converted(text)


def format_for(path: Path) -> str:
    return FORMAT_BY_SUFFIX.get(path.suffix.lower(), "text")
