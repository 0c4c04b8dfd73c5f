"""Django admin for the archive: documents with their revision history,
chunks per revision (read-only), access groups, relations, embedding spaces,
ingestion status and errors, and a re-index action."""

from __future__ import annotations

import json
import tempfile
from functools import partial
from pathlib import Path

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.options import IS_POPUP_VAR
from django.contrib.admin.templatetags.admin_urls import add_preserved_filters
from django.contrib.auth.base_user import AbstractBaseUser
from django.db import models
from django.db.models import Count, Q, QuerySet
from django.http import HttpRequest, HttpResponseRedirect
from django.urls import reverse
from django.utils.html import format_html

from . import ingestion, sources
from .converters import MAX_FILE_BYTES, Converted
from .fetching import url_refusal
from .models import (
    Chunk,
    ContentFormat,
    Document,
    EmbeddingSpace,
    Relation,
    Revision,
    RevisionStatus,
    SourceType,
)
from .tasks import index_after_commit, index_later

STATUS_COLOURS = {
    RevisionStatus.ACTIVE: "#1b7a3a",
    RevisionStatus.SUPERSEDED: "#5b6475",
    RevisionStatus.PENDING: "#a35b00",
    RevisionStatus.INDEXING: "#1f5fbf",
    RevisionStatus.FAILED: "#b3261e",
}


class ReaderScoped:
    """For ModelAdmins and inlines: staff who are not superusers manage only
    what their groups may read — changelists, change pages (a hidden object
    is "not found"), search results, and the document choices in forms.
    ``scope`` narrows a QuerySet to what ``user`` may see."""

    def scope(self, queryset: QuerySet, user: AbstractBaseUser) -> QuerySet:
        raise NotImplementedError

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        queryset = super().get_queryset(request)  # type: ignore[misc]
        return queryset if request.user.is_superuser else self.scope(queryset, request.user)

    def formfield_for_foreignkey(self, db_field, request: HttpRequest, **kwargs):  # noqa: ANN001, ANN201
        if db_field.related_model is Document and not request.user.is_superuser:
            kwargs["queryset"] = Document.objects.visible_to(request.user)
        return super().formfield_for_foreignkey(db_field, request, **kwargs)  # type: ignore[misc]


class ByDocument(ReaderScoped):
    """Scoped through the object's ``document`` foreign key."""

    def scope(self, queryset: QuerySet, user: AbstractBaseUser) -> QuerySet:
        return queryset.filter(document__in=Document.objects.visible_to(user))


class ByRelationEnds(ReaderScoped):
    """A relation names both of its documents: both must be readable (an
    unresolved target is only a key the source itself declares)."""

    def scope(self, queryset: QuerySet, user: AbstractBaseUser) -> QuerySet:
        visible = Document.objects.visible_to(user)
        return queryset.filter(Q(target=None) | Q(target__in=visible), source__in=visible)


def status_badge(revision: Revision) -> str:
    """The status, with how far long work has got ("OCR: 4 dari 12 halaman
    pindaian") while it runs, or that a scan waits for the worker's OCR."""
    badge = format_html(
        '<strong style="color:{}">{}</strong>',
        STATUS_COLOURS.get(revision.status, "#000"),
        revision.get_status_display(),
    )
    if revision.progress and revision.status in (RevisionStatus.PENDING, RevisionStatus.INDEXING):
        return format_html('{}<br><span class="help">{}</span>', badge, revision.progress)
    return badge


class RevisionInline(ByDocument, admin.TabularInline):
    model = Revision
    extra = 0
    can_delete = False
    show_change_link = True
    fields = ("number", "title", "document_date", "fetched_at", "indexed_at", "status_display", "error")
    readonly_fields = fields
    ordering = ("-number",)

    def has_add_permission(self, request: HttpRequest, obj: Document | None = None) -> bool:
        return False  # new revisions go through the revision form, which enqueues them

    @admin.display(description="status")
    def status_display(self, obj: Revision) -> str:
        return status_badge(obj)


class RelationInline(ByRelationEnds, admin.TabularInline):
    model = Relation
    fk_name = "source"
    extra = 0
    fields = ("type", "target_key", "target", "note")
    readonly_fields = ("target",)


def upload_read(upload) -> tuple[Converted, str]:  # noqa: ANN001
    """An uploaded file's text and format, read the way every intake reads
    files (``sources.read_document_file``); a file of no known format, too
    large or unreadable is refused with its name and the reason."""
    fmt = sources.FORMAT_BY_SUFFIX.get(Path(upload.name).suffix.lower())
    if fmt is None:
        raise forms.ValidationError(
            {"upload": f"{upload.name}: format tidak dikenal; gunakan .pdf, .docx, .md, .html atau .txt"}
        )
    if upload.size > MAX_FILE_BYTES:
        raise forms.ValidationError(
            {"upload": f"{upload.name}: {upload.size / 1048576:.1f} MB; batasnya {MAX_FILE_BYTES // 1048576} MB"}
        )
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / Path(upload.name).name
        path.write_bytes(upload.read())
        try:
            # A scan is not OCR'd in this request: the worker reads it.
            loaded = sources.read_document_file(path, fmt, ocr=False)
        except ValueError as exc:
            raise forms.ValidationError({"upload": f"{upload.name}: {exc}"}) from None
    return loaded, fmt


class UploadInput(forms.ClearableFileInput):
    """The file input, telling static/js/admin-upload.js which format each
    suffix means, so the form's format follows the file chosen (the server
    takes the file's format whatever the select says)."""

    def __init__(self, attrs: dict | None = None) -> None:
        super().__init__({"data-formats": json.dumps(sources.FORMAT_BY_SUFFIX), **(attrs or {})})


def upload_field() -> forms.FileField:
    return forms.FileField(
        label="Berkas",
        required=False,
        widget=UploadInput,
        help_text="PDF (hasil pindai dibaca dengan OCR), DOCX, Markdown, HTML atau teks; "
        f"paling besar {MAX_FILE_BYTES // 1048576} MB. Mengganti isi teks; formatnya mengikuti berkas.",
    )


def check_fetched_url(form: forms.ModelForm, data: dict, *, fetched: bool) -> None:
    """A URL the document will be fetched from is refused on save for the
    reason its fetch would be (an internal address, a port not allowed),
    rather than left to fail at the first fetch. Checked when the URL or the
    interval changes only, so a document saved before this check can still
    be edited; its fetches are refused all the same."""
    url = data.get("url")
    if not url or not fetched or not {"url", "fetch_every_hours"} & set(form.changed_data):
        return
    if reason := url_refusal(url):
        form.add_error("url", f"URL ini tidak dapat diambil: {reason}")


# A document neither public nor shared with a group is read by superusers
# only: the answers an admin gets from it, no editor will ever see.
NOBODY_READS = (
    "Dokumen ini belum terlihat oleh siapa pun selain superuser: centang Publik atau pilih grup yang boleh membacanya."
)
READERS_HELP = {
    "public": "Terlihat oleh semua pengguna. Tanpa centang ini dan tanpa grup, dokumen ini belum terlihat oleh "
    "siapa pun selain superuser: tidak ada editor yang dapat melihatnya.",
    "groups": "Grup yang boleh membaca dokumen ini. Biarkan kosong hanya bila dokumen ini publik.",
}


def nobody_reads(document: Document) -> bool:
    return not document.public and not document.groups.exists()


class ReadersHelp:
    """Says on the form who will read the document, and what leaving both empty means."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        for name, text in READERS_HELP.items():
            self.fields[name].help_text = text


class ReadersFilter(admin.SimpleListFilter):
    """Who may read each document: lists those nobody but superusers can see."""

    title = "pembaca"
    parameter_name = "pembaca"

    def lookups(self, request: HttpRequest, model_admin: admin.ModelAdmin) -> list[tuple[str, str]]:
        return [("tidak-ada", "belum terlihat oleh siapa pun"), ("publik", "publik"), ("grup", "hanya grup")]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Document]) -> QuerySet[Document]:
        shared = Document.groups.through.objects.values("document_id")
        if self.value() == "tidak-ada":
            return queryset.filter(public=False).exclude(pk__in=shared)
        if self.value() == "publik":
            return queryset.filter(public=True)
        if self.value() == "grup":
            return queryset.filter(public=False, pk__in=shared)
        return queryset


class DocumentChangeForm(ReadersHelp, forms.ModelForm):
    """A saved document; its URL is checked when it is one to re-fetch."""

    class Meta:
        model = Document
        fields = ("key", "title", "url", "source_type", "collection", "public", "groups", "fetch_every_hours")
        field_classes = {"url": partial(forms.URLField, assume_scheme="https")}  # as DocumentAddForm's

    def clean(self) -> dict:
        data = super().clean()
        check_fetched_url(self, data, fetched=bool(data.get("fetch_every_hours")))
        return data


class DocumentAddForm(ReadersHelp, forms.ModelForm):
    """A new document with its first revision, typed or uploaded, in one
    form. The revision goes through the same intake as every other
    (``ingestion.revision_submit``, then the index task): it is not written
    here. Left empty, the document is one to be fetched from its URL."""

    upload = upload_field()
    content = forms.CharField(
        label="Isi",
        required=False,
        widget=forms.Textarea(attrs={"rows": 12}),
        help_text="Teks revisi pertama (Markdown, HTML atau teks biasa), atau unggah berkas di atas.",
    )
    format = forms.ChoiceField(label="Format", choices=ContentFormat.choices, initial=ContentFormat.MARKDOWN)
    document_date = forms.DateField(
        label="Tanggal dokumen",
        required=False,
        widget=admin.widgets.AdminDateWidget,
        help_text="Kapan dokumen ini terbit atau berlaku (bukan tanggal diunggah).",
    )

    class Meta:
        model = Document
        fields = ("key", "title", "url", "source_type", "collection", "public", "groups", "fetch_every_hours")
        # As DocumentAdmin's formfield_overrides: a bare host means https.
        field_classes = {"url": partial(forms.URLField, assume_scheme="https")}

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        self.converted: Converted | None = None

    def clean(self) -> dict:
        data = super().clean()
        upload = data.get("upload")
        if upload:
            self.converted, data["format"] = upload_read(upload)
            data["content"] = self.converted.text
        elif not (data.get("content") or "").strip() and not data.get("url"):
            raise forms.ValidationError(
                {"content": "isi kosong: tempel teks atau unggah berkas (atau isi URL sumber untuk diambil)"}
            )
        typed = upload or (data.get("content") or "").strip()
        check_fetched_url(self, data, fetched=bool(data.get("fetch_every_hours")) or not typed)
        return data

    def first_revision(self) -> ingestion.RevisionInput | None:
        """The first revision for the intake, or None (nothing typed or uploaded)."""
        data, converted = self.cleaned_data, self.converted
        if converted is None and not (data.get("content") or "").strip():
            return None
        return ingestion.RevisionInput(
            key=data["key"],
            title=data["title"],
            content=data["content"],
            format=data["format"],
            source_type=data["source_type"].pk,
            url=data.get("url") or "",
            document_date=data.get("document_date"),
            groups=[g.name for g in data.get("groups") or []],
            public=bool(data.get("public")),
            collection=data.get("collection") or "editorial",
            page_starts=converted.page_starts if converted else [],
            ocr_pages=converted.ocr_pages if converted else [],
            scan=converted.scan if converted else None,
        )


@admin.register(Document)
class DocumentAdmin(ReaderScoped, admin.ModelAdmin):
    list_display = ("key", "title", "source_type", "public", "group_list", "current", "revision_count", "collection")
    list_filter = ("source_type", ReadersFilter, "groups", "collection", "fetch_status")
    search_fields = ("key", "title", "url")
    filter_horizontal = ("groups",)
    readonly_fields = (
        "current_revision",
        "created_at",
        "updated_at",
        "last_fetched_at",
        "fetch_status",
        "fetch_error",
        "etag",
        "last_modified",
    )
    fieldsets = [
        (
            None,
            {
                "fields": (
                    "key",
                    "title",
                    "url",
                    "source_type",
                    "collection",
                    "public",
                    "groups",
                    "current_revision",
                    "created_at",
                    "updated_at",
                )
            },
        ),
        (
            "Pengambilan dari URL",
            {
                "fields": (
                    "fetch_every_hours",
                    "last_fetched_at",
                    "fetch_status",
                    "fetch_error",
                    "etag",
                    "last_modified",
                )
            },
        ),
    ]
    inlines = [RevisionInline, RelationInline]
    actions = ["fetch_now"]
    form = DocumentChangeForm

    class Media:
        js = ["js/admin-upload.js"]

    # Django 6's default, now: a bare host typed as the URL means https.
    formfield_overrides = {models.URLField: {"assume_scheme": "https"}}

    def get_form(self, request: HttpRequest, obj: Document | None = None, **kwargs: object):  # noqa: ANN201
        if obj is None:
            kwargs["form"] = DocumentAddForm
        return super().get_form(request, obj, **kwargs)

    def get_fieldsets(self, request: HttpRequest, obj: Document | None = None) -> list:
        if obj is not None:
            return self.fieldsets
        return [
            (None, {"fields": ("key", "title", "url", "source_type", "collection", "public", "groups")}),
            (
                "Revisi pertama",
                {
                    "fields": ("upload", "content", "format", "document_date"),
                    "description": "Unggah berkas atau tempel teksnya; revisi ini diindeks di latar belakang.",
                },
            ),
            ("Pengambilan dari URL", {"fields": ("fetch_every_hours",)}),
        ]

    def get_readonly_fields(self, request: HttpRequest, obj: Document | None = None) -> tuple[str, ...]:
        return self.readonly_fields if obj is not None else ()

    def get_inlines(self, request: HttpRequest, obj: Document | None = None) -> list:
        return self.inlines if obj is not None else [RelationInline]  # no revisions before the first

    def save_model(self, request: HttpRequest, obj: Document, form, change: bool) -> None:  # noqa: ANN001
        """A new document with a first revision is created by the intake
        (``revision_submit``), which also adds the revision and is followed
        by the index task after commit; ``obj`` then stands for that row."""
        first = form.first_revision() if not change else None
        if first is None:
            super().save_model(request, obj, form, change)
            return
        result = ingestion.revision_submit(data=first)
        index_after_commit(result.revision.pk)
        saved = result.document
        saved.fetch_every_hours = obj.fetch_every_hours
        saved.save(update_fields=["fetch_every_hours"])
        for field in Document._meta.concrete_fields:
            setattr(obj, field.attname, getattr(saved, field.attname))
        obj._state.adding, obj._state.db = False, saved._state.db
        waits = " Berkasnya hasil pindai: worker membacanya dengan OCR dulu." if first.scan is not None else ""
        obj.submit_outcome = (
            f"Dokumen {saved.key} dibuat; revisi {result.revision.key} diantrikan untuk diindeks.{waits}"
        )

    def response_add(self, request: HttpRequest, obj: Document, post_url_continue: str | None = None):  # noqa: ANN201
        """To the new document itself, with its revision and status, not the list."""
        if IS_POPUP_VAR in request.POST or "_addanother" in request.POST:
            return super().response_add(request, obj, post_url_continue)
        self.message_user(request, getattr(obj, "submit_outcome", f"Dokumen {obj.key} dibuat."), messages.SUCCESS)
        return HttpResponseRedirect(
            reverse("admin:retrieval_document_change", args=[obj.pk], current_app=self.admin_site.name)
        )

    def scope(self, queryset: QuerySet, user: AbstractBaseUser) -> QuerySet:
        return queryset.filter(pk__in=Document.objects.visible_to(user).values("pk"))

    def get_queryset(self, request: HttpRequest) -> QuerySet[Document]:
        return (
            super()
            .get_queryset(request)
            .select_related("current_revision")
            .prefetch_related("groups")
            .annotate(revision_total=Count("revisions"))
        )

    @admin.display(description="grup")
    def group_list(self, obj: Document) -> str:
        names = ", ".join(g.name for g in obj.groups.all())
        return names or ("—" if obj.public else "tak seorang pun (bukan publik, tanpa grup)")

    @admin.display(description="revisi aktif")
    def current(self, obj: Document) -> str:
        return f"r{obj.current_revision.number}" if obj.current_revision else "—"

    @admin.display(description="revisi", ordering="revision_total")
    def revision_count(self, obj: Document) -> int:
        return obj.revision_total

    @admin.action(description="Ambil ulang dari URL sekarang", permissions=["change"])
    def fetch_now(self, request: HttpRequest, queryset: QuerySet[Document]) -> None:
        from .fetching import Fetcher, document_fetch

        outcomes: dict[str, list[str]] = {}
        with Fetcher() as fetcher:
            for document in queryset.exclude(url=""):
                status, revision_id = document_fetch(document, fetcher=fetcher)
                if revision_id is not None:
                    index_after_commit(revision_id)
                outcomes.setdefault(status, []).append(document.key)
        names = {
            "changed": "berubah, revisi baru diantrikan",
            "unchanged": "tidak berubah",
            "not_modified": "tidak berubah (304)",
            "failed": "gagal (lihat galat pengambilan)",
        }
        for status, keys in outcomes.items():
            level = messages.ERROR if status == "failed" else messages.SUCCESS
            self.message_user(request, f"{names[status]}: {', '.join(keys)}", level)
        if not outcomes:
            self.message_user(request, "Tidak ada dokumen terpilih yang punya URL.", messages.WARNING)

    def change_view(self, request: HttpRequest, object_id: str, form_url: str = "", extra_context: dict | None = None):  # noqa: ANN201
        """The document's page links to the form for its next revision (for those who may add one)."""
        extra_context = dict(extra_context or {})
        if request.user.has_perm("retrieval.add_revision"):
            url = reverse("admin:retrieval_revision_add", current_app=self.admin_site.name)
            extra_context["add_revision_url"] = f"{url}?document={object_id}"
        return super().change_view(request, object_id, form_url, extra_context)

    def changelist_view(self, request: HttpRequest, extra_context: dict | None = None):  # noqa: ANN201
        """The list says when documents are read by nobody, with the way to them."""
        unread = (
            self.get_queryset(request)
            .filter(public=False)
            .exclude(pk__in=Document.groups.through.objects.values("document_id"))
            .count()
        )
        if unread and request.GET.get(ReadersFilter.parameter_name) != "tidak-ada":
            self.message_user(
                request,
                format_html(
                    '{} dokumen belum terlihat oleh siapa pun selain superuser. <a href="?{}=tidak-ada">Tampilkan</a>',
                    unread,
                    ReadersFilter.parameter_name,
                ),
                messages.WARNING,
            )
        return super().changelist_view(request, extra_context)

    def save_related(self, request: HttpRequest, form, formsets, change: bool) -> None:  # noqa: ANN001
        super().save_related(request, form, formsets, change)
        if nobody_reads(form.instance):
            self.message_user(request, NOBODY_READS, messages.WARNING)
        # Relations typed in by key resolve to their document when it exists.
        for relation in form.instance.relations_out.filter(target=None):
            relation.target = Document.objects.filter(key=relation.target_key).first()
            relation.save(update_fields=["target"])


class ChunkInline(ByDocument, admin.TabularInline):
    model = Chunk
    extra = 0
    can_delete = False
    fields = ("key", "kind", "heading_path", "token_count", "char_start", "char_end", "text")
    readonly_fields = fields

    def has_add_permission(self, request: HttpRequest, obj: Revision | None = None) -> bool:
        return False


class RevisionAddForm(forms.ModelForm):
    """A new revision from pasted text or an uploaded file (.pdf, .docx,
    .md, .html, .txt): the file's text replaces the pasted one and sets the
    format; a file that cannot be read is refused with its name and the reason."""

    upload = upload_field()

    class Meta:
        model = Revision
        fields = ("document", "title", "format", "document_date", "content")

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        self.fields["content"].required = False
        # The title typed here is the only title this form changes: left
        # empty, the revision takes the document's, which stays as it is.
        self.fields["title"].required = False
        self.fields["title"].help_text = (
            "Judul pada revisi ini; juga menjadi judul dokumen bila isinya "
            "berubah. Kosongkan untuk memakai judul dokumen sekarang."
        )
        self.page_starts: list[int] = []
        self.ocr_pages: list[int] = []
        self.scan: bytes | None = None  # a scanned PDF, read with OCR by the worker

    def clean(self) -> dict:
        data = super().clean()
        upload = data.get("upload")
        if upload:
            loaded, fmt = upload_read(upload)
            data["content"], data["format"], self.page_starts = loaded.text, fmt, loaded.page_starts
            self.ocr_pages, self.scan = loaded.ocr_pages, loaded.scan
            self.instance.content, self.instance.format = loaded.text, fmt
        elif not (data.get("content") or "").strip():
            raise forms.ValidationError({"content": "isi kosong: tempel teks atau unggah berkas"})
        return data


@admin.register(Revision)
class RevisionAdmin(ByDocument, admin.ModelAdmin):
    # Status and error first after the title, and no "fetched" column (the
    # date hierarchy above the list is by it): the list fits a 1366 px screen.
    list_display = ("__str__", "title", "status_display", "short_error", "document_date", "indexed_at", "attempts")
    list_filter = ("status", "format", "document__source_type")
    search_fields = ("document__key", "title", "error")
    list_select_related = ("document",)
    actions = ["reindex"]
    inlines = [ChunkInline]
    date_hierarchy = "fetched_at"

    class Media:
        css = {"all": ["css/admin.css"]}
        js = ["js/admin-upload.js"]

    def get_fields(self, request: HttpRequest, obj: Revision | None = None) -> tuple[str, ...]:
        if obj is None:
            return ("document", "title", "format", "document_date", "content", "upload")
        return (
            "document",
            "number",
            "title",
            "format",
            "document_date",
            "fetched_at",
            "indexed_at",
            "status",
            "progress",
            "error",
            "attempts",
            "chunker_version",
            "content_hash",
            "content",
        )

    def get_readonly_fields(self, request: HttpRequest, obj: Revision | None = None) -> tuple[str, ...]:
        if obj is None:
            return ()
        # A saved revision is history: new content means a new revision.
        return self.get_fields(request, obj)

    def get_inlines(self, request: HttpRequest, obj: Revision | None = None) -> list:
        return self.inlines if obj is not None else []  # a new revision has no chunks yet

    def get_form(self, request: HttpRequest, obj: Revision | None = None, **kwargs: object):  # noqa: ANN201
        if obj is None:
            kwargs["form"] = RevisionAddForm
        return super().get_form(request, obj, **kwargs)

    def save_model(self, request: HttpRequest, obj: Revision, form, change: bool) -> None:  # noqa: ANN001
        """A new revision goes through the ingestion service, which keeps the
        numbering and enqueues it. Content equal to the newest revision's
        changes nothing — no revision, and the document keeps its title and
        settings; ``obj`` then stands for that newest revision."""
        if change:
            return
        document = obj.document
        data = ingestion.RevisionInput(
            key=document.key,
            title=obj.title or document.title,
            content=obj.content,
            format=obj.format,
            source_type=document.source_type_id,
            url=document.url,
            document_date=obj.document_date,
            groups=list(document.groups.values_list("name", flat=True)),
            public=document.public,
            collection=document.collection,
            page_starts=getattr(form, "page_starts", []),
            ocr_pages=getattr(form, "ocr_pages", []),
            scan=getattr(form, "scan", None),
        )
        result = ingestion.revision_submit(data=data, update_unchanged=False)
        if result.revision is not None:
            index_after_commit(result.revision.pk)
        saved = result.revision or document.revisions.order_by("-number").first()
        # The form's instance becomes the saved row, so the admin's history
        # entry and redirects name the real revision ("D03:r4", not "D03:rNone").
        for field in Revision._meta.concrete_fields:
            setattr(obj, field.attname, getattr(saved, field.attname))
        obj._state.adding, obj._state.db = False, saved._state.db
        if result.revision is None:
            obj.submit_outcome = (
                messages.WARNING,
                f"Isi sama dengan revisi terakhir ({saved.key}); tidak ada revisi baru dan dokumen tidak diubah.",
            )
        else:
            waits = (
                " Berkasnya hasil pindai: worker membacanya dengan OCR dulu (kemajuannya di kolom status)."
                if (getattr(form, "scan", None) is not None)
                else ""
            )
            obj.submit_outcome = (
                messages.SUCCESS,
                f"Revisi {saved.key} ditambahkan dan diantrikan untuk diindeks.{waits}",
            )

    def log_addition(self, request: HttpRequest, obj: Revision, message: object):  # noqa: ANN201
        if getattr(obj, "submit_outcome", (None,))[0] == messages.WARNING:
            return None  # nothing was added
        return super().log_addition(request, obj, message)

    def response_add(
        self,
        request: HttpRequest,
        obj: Revision,  # noqa: ANN201
        post_url_continue: str | None = None,
    ):
        """Only the service's outcome as the message: Django's own ("… berhasil
        ditambahkan") would also follow an upload that added nothing."""
        outcome = getattr(obj, "submit_outcome", None)
        if outcome is None or IS_POPUP_VAR in request.POST:
            return super().response_add(request, obj, post_url_continue)
        self.message_user(request, outcome[1], outcome[0])
        if "_addanother" in request.POST:
            context = {"preserved_filters": self.get_preserved_filters(request), "opts": self.opts}
            return HttpResponseRedirect(add_preserved_filters(context, request.path))
        if "_continue" in request.POST:
            return HttpResponseRedirect(
                reverse("admin:retrieval_revision_change", args=[obj.pk], current_app=self.admin_site.name)
            )
        # To the revision's document: its revisions newest first, with their status.
        return HttpResponseRedirect(
            reverse("admin:retrieval_document_change", args=[obj.document_id], current_app=self.admin_site.name)
        )

    @admin.display(description="status")
    def status_display(self, obj: Revision) -> str:
        return status_badge(obj)

    @admin.display(description="galat")
    def short_error(self, obj: Revision) -> str:
        if len(obj.error) <= 60:
            return obj.error
        return format_html('<span title="{}">{}…</span>', obj.error, obj.error[:60])

    @admin.action(description="Indeks ulang revisi terpilih", permissions=["change"])
    def reindex(self, request: HttpRequest, queryset: QuerySet[Revision]) -> None:
        queued = failed = 0
        for revision_id in queryset.values_list("pk", flat=True):
            ingestion.revision_reopen(revision_id=revision_id)
            if index_later(revision_id, force=True):
                queued += 1
            else:
                failed += 1
        if queued:
            messages.success(request, f"{queued} revisi diantrikan untuk diindeks ulang.")
        if failed:
            messages.error(
                request,
                f"{failed} revisi tidak dapat diantrikan: broker (Redis) tidak terjangkau. "
                "Revisi tetap menunggu dan akan diambil oleh sweep.",
            )


@admin.register(Chunk)
class ChunkAdmin(ByDocument, admin.ModelAdmin):
    list_display = ("key", "kind", "heading_path", "token_count")
    list_filter = ("kind", "revision__status")
    search_fields = ("key", "heading_path", "text")
    list_select_related = ("revision",)
    readonly_fields = (
        "revision",
        "document",
        "position",
        "key",
        "kind",
        "heading_path",
        "text",
        "token_count",
        "char_start",
        "char_end",
    )

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Chunk | None = None) -> bool:
        return False


@admin.register(Relation)
class RelationAdmin(ByRelationEnds, admin.ModelAdmin):
    list_display = ("source", "type", "target_key", "target", "note")
    list_filter = ("type",)
    search_fields = ("source__key", "target_key")
    readonly_fields = ("target",)

    def save_model(self, request: HttpRequest, obj: Relation, form, change: bool) -> None:  # noqa: ANN001
        obj.target = Document.objects.filter(key=obj.target_key).first()
        super().save_model(request, obj, form, change)


@admin.register(EmbeddingSpace)
class EmbeddingSpaceAdmin(admin.ModelAdmin):
    list_display = ("__str__", "is_active", "vectors", "created_at")
    readonly_fields = ("provider", "model", "version", "dimensions", "is_active", "created_at")

    def get_queryset(self, request: HttpRequest) -> QuerySet[EmbeddingSpace]:
        return super().get_queryset(request).annotate(vector_total=Count("embeddings"))

    @admin.display(description="vektor")
    def vectors(self, obj: EmbeddingSpace) -> int:
        return obj.vector_total

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False


@admin.register(SourceType)
class SourceTypeAdmin(admin.ModelAdmin):
    """The source-type vocabulary: labels editors read and the authority
    rank that orders evidence for questions about the present."""

    list_display = ("key", "label", "authority", "created_by_ingest", "document_count")
    list_editable = ("label", "authority")
    list_filter = ("created_by_ingest",)
    search_fields = ("key", "label")

    class Media:
        css = {"all": ["css/admin.css"]}  # a narrower label input: the document count stays in view

    def get_queryset(self, request: HttpRequest) -> QuerySet[SourceType]:
        # Counted over what this admin may read: a count of hidden documents is a leak.
        visible = Document.objects.visible_to(request.user).values("pk")
        return (
            super()
            .get_queryset(request)
            .annotate(visible_documents=Count("documents", filter=Q(documents__in=visible)))
        )

    @admin.display(description="dokumen", ordering="visible_documents")
    def document_count(self, obj: SourceType) -> int:
        return obj.visible_documents

    def get_readonly_fields(self, request: HttpRequest, obj: SourceType | None = None) -> tuple[str, ...]:
        return ("key",) if obj else ()  # documents refer to the key
