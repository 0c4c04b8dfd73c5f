"""The evaluation report: tables and real plots (matplotlib) from the stored
runs, answers and lookups. ``build_report`` gathers it; ``write_report``
writes Markdown, HTML and PNG files (``make report``); the editor UI shows
the same report with the plots inline.
"""

from __future__ import annotations

import base64
import html
import io
import statistics
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # no display on servers and CI
import matplotlib.pyplot as plt  # noqa: E402
from django.db.models import QuerySet  # noqa: E402
from django.utils import formats, timezone  # noqa: E402

from review.evaluation.retrieval_runs import MEASURES  # noqa: E402
from review.labels import label  # noqa: E402
from review.lookup_times import lookup_stats  # noqa: E402
from review.models import Answer, EvalRun, EvidenceLookup  # noqa: E402
from review.reviewing import Reader, answers_visible_to, can_review, lookups_visible_to  # noqa: E402

STAGES = ("embed", "sql", "rerank", "expand", "context", "generate", "validate", "persist")
MODE_COLORS = {"lexical": "#8aa9d6", "vector": "#6cbf8e", "hybrid": "#1f5fbf", "hybrid+rerank": "#a35b00"}


@dataclass
class Table:
    header: list[str]
    rows: list[list[str]]
    # Run ids, measure names, engine names: for staff, behind "rincian teknis".
    technical: bool = False


@dataclass
class Section:
    title: str
    text: str = ""
    tables: list[Table] = field(default_factory=list)
    figures: list[tuple[str, bytes]] = field(default_factory=list)  # (name, PNG)
    technical: bool = False  # the whole section is detail for staff (run against run, chunking trials)


@dataclass
class Report:
    generated_at: str
    sections: list[Section]


# The answers table's measures, as the editor reads them.
MEASURE_LABELS = {
    "decision_accuracy": "akurasi keputusan",
    "answer_in_claims": "jawaban di klaim",
    "wrong_refusal_rate": "salah menolak",
    "refusal_rate_unanswerable": "menolak yang tak terjawab",
    "answered_unanswerable": "menjawab yang tak terjawab",
    "confident_wrong_rate": "yakin tetapi salah",
    "status_accuracy": "akurasi status",
    "conflict_precision": "presisi konflik",
    "conflict_recall": "recall konflik",
    "citation_validity": "kutipan sah",
    "claim_support_rate": "klaim didukung",
    "claim_precision": "presisi klaim",
    "answers_with_offtopic_claim": "jawaban dengan klaim melenceng",
    "gold_cited_rate": "bukti emas dikutip",
}
BY_LABELS = {"editor": "editor", "category": "kategori"}
# Search modes and answer engines, as the report's reader says them.
MODE_LABELS = {
    "lexical": "kata persis",
    "vector": "makna",
    "hybrid": "gabungan",
    "hybrid+rerank": "gabungan + urut ulang",
}
ENGINE_LABELS = {
    "answerer": "kutipan, dinilai penilai fitur",
    "extractive": "kutipan, dinilai penilai fitur",  # the answerer's name in runs stored before 2026-12-07
    "reader": "kutipan, dinilai model pembaca",
    "sentence": "kalimat terdekat, sebelum penilai",
    "cosine": "kalimat paling mirip maknanya",
}


def _engine(name: str) -> str:
    base = name.partition("@")[0]
    return ENGINE_LABELS.get(base, "model bahasa" if base not in ("", "?") else "tidak diketahui")


def _legend_below(ax: plt.Axes, columns: int) -> None:
    """The legend under the plot, clear of every bar (saved with bbox_inches="tight")."""
    ax.legend(ncol=max(columns, 1), fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.14), frameon=False)


NO_DATA = "(belum ada data)"


def _num(value: float, places: int) -> str:
    """A number as Indonesian writes it (93,2), like the rest of the desk."""
    return formats.number_format(value, decimal_pos=places, use_l10n=True)


def _when(generated_at: str) -> str:
    """``generated_at`` (ISO, kept for machines) as the reader's local date and time."""
    moment = timezone.localtime(datetime.fromisoformat(generated_at))
    return formats.date_format(moment, "DATETIME_FORMAT", use_l10n=True)


def _png(fig: plt.Figure) -> bytes:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=110, bbox_inches="tight")
    plt.close(fig)
    return buffer.getvalue()


def _source(run: EvalRun) -> str:
    return run.eval_set.name if run.eval_set else Path(run.dataset).name or "?"


def _latest_retrieval_runs() -> list[EvalRun]:
    """The newest retrieval run of each evaluation set or dataset."""
    seen, runs = set(), []
    for run in EvalRun.objects.filter(kind="retrieval").select_related("eval_set").order_by("-created_at")[:200]:
        if _source(run) not in seen:
            seen.add(_source(run))
            runs.append(run)
    return sorted(runs, key=_source)


def _retrieval_section(runs: list[EvalRun]) -> Section:
    section = Section(
        "Mutu pencarian per cara mencari",
        "Pertanyaan uji yang sama untuk tiap cara mencari (kata persis, makna, gabungan); "
        "uji terbaru per set. Makin tinggi makin baik: bukti yang benar ada di urutan atas.",
    )
    names = [str(m) for m in MEASURES]
    rows = []
    for run in runs:
        for mode, values in run.metrics.items():
            if "all" in values:
                rows.append(
                    [_source(run), f"#{run.pk}", mode, str(values["queries"])]
                    + [_num(values["all"][n], 4) for n in names]
                    + [_num(values["latency_ms"]["p50"], 0), _num(values["latency_ms"]["p95"], 0)]
                )
    section.tables.append(Table(["sumber", "run", "mode", "kueri", *names, "p50 ms", "p95 ms"], rows, technical=True))
    if rows:
        fig, ax = plt.subplots(figsize=(8, 3.6))
        sources = [_source(r) for r in runs]
        modes = [m for m in MODE_COLORS if any(m in r.metrics and "all" in r.metrics[m] for r in runs)]
        width = 0.8 / max(len(modes), 1)
        for i, mode in enumerate(modes):
            values = [r.metrics.get(mode, {}).get("all", {}).get("nDCG@10", 0) for r in runs]
            ax.bar(
                [x + i * width for x in range(len(runs))],
                values,
                width,
                label=MODE_LABELS[mode],
                color=MODE_COLORS[mode],
            )
        ax.set_xticks([x + width * (len(modes) - 1) / 2 for x in range(len(runs))], sources)
        ax.set_ylabel("mutu urutan (nDCG@10)")
        ax.set_ylim(0, 1)
        _legend_below(ax, len(modes))
        ax.set_title("Mutu urutan bukti per cara mencari")
        section.figures.append(("ndcg_by_mode", _png(fig)))
    for run in runs:
        categories = sorted({c for v in run.metrics.values() if "by_category" in v for c in v["by_category"]})
        if len(categories) < 2:
            continue
        fig, ax = plt.subplots(figsize=(8, 3.6))
        modes = [m for m in MODE_COLORS if "by_category" in run.metrics.get(m, {})]
        width = 0.8 / max(len(modes), 1)
        for i, mode in enumerate(modes):
            values = [run.metrics[mode]["by_category"].get(c, {}).get("nDCG@10", 0) for c in categories]
            ax.bar(
                [x + i * width for x in range(len(categories))],
                values,
                width,
                label=MODE_LABELS[mode],
                color=MODE_COLORS[mode],
            )
        ax.set_xticks(
            [x + width * (len(modes) - 1) / 2 for x in range(len(categories))],
            [c.replace("_", "\n") for c in categories],
            fontsize=8,
        )
        ax.set_ylim(0, 1)
        ax.set_ylabel("mutu urutan (nDCG@10)")
        _legend_below(ax, len(modes))
        ax.set_title(f"Mutu urutan bukti per jenis pertanyaan — {_source(run)}")
        section.figures.append((f"ndcg_by_category_{_source(run)}", _png(fig)))
    return section


def _latency_section(answers: QuerySet[Answer]) -> Section:
    section = Section("Latensi per tahap", "Waktu tiap tahap jawaban yang tersimpan (milidetik).")
    timings: dict[str, list[float]] = {s: [] for s in STAGES}
    for answer_timings in answers.order_by("-created_at").values_list("timings_ms", flat=True)[:500]:
        for stage in STAGES:
            if stage in (answer_timings or {}):
                timings[stage].append(float(answer_timings[stage]))
    present = [s for s in STAGES if timings[s]]
    section.tables.append(
        Table(
            ["tahap", "jawaban", "p50 ms", "p95 ms"],
            [
                [
                    label(s),
                    str(len(timings[s])),
                    _num(statistics.median(timings[s]), 0),
                    _num(sorted(timings[s])[min(len(timings[s]) - 1, int(0.95 * len(timings[s])))], 0),
                ]
                for s in present
            ],
        )
    )
    if present:
        fig, ax = plt.subplots(figsize=(8, 3.2))
        ax.barh([label(s) for s in present], [statistics.median(timings[s]) for s in present], color="#1f5fbf")
        ax.set_xlabel("median (milidetik)")
        ax.invert_yaxis()
        ax.set_title("Alur jawaban: median waktu per tahap")
        section.figures.append(("latency_by_stage", _png(fig)))
    else:
        section.text += " Belum ada jawaban."
    return section


def _lookup_section(lookups: QuerySet[EvidenceLookup]) -> Section:
    # The definition is review/lookups.py's, said as /waktu/ says it.
    section = Section(
        "Waktu mencari bukti",
        "Waktu editor benar-benar melihat bukti sebuah klaim sampai memutuskannya: hanya selama klaim tampak "
        "di tab yang sedang dibuka dan editor aktif dalam semenit terakhir, dijumlahkan bila dibuka lagi. "
        "Satu catatan per editor per klaim; keputusan tanpa halaman jawaban (mis. lewat API) tidak diukur "
        "dan tidak dihitung. Dalam detik.",
    )
    for by in ("editor", "category"):
        stats = lookup_stats(by, lookups=lookups)  # measured records only: an empty duration is "not measured"
        section.tables.append(
            Table(
                [BY_LABELS[by], "klaim", "median s", "p90 s", "didukung", "perlu ditinjau"],
                [
                    [
                        s.label,
                        str(s.count),
                        _num(s.median_s, 1),
                        _num(s.p90_s, 1),
                        str(s.supported),
                        str(s.needs_review),
                    ]
                    for s in stats
                ],
            )
        )
        if stats:
            fig, ax = plt.subplots(figsize=(8, 0.5 + 0.45 * len(stats)))
            labels = [s.label for s in stats]
            ax.barh(labels, [s.p90_s for s in stats], color="#c9d8f2", label="p90")
            ax.barh(labels, [s.median_s for s in stats], color="#1f5fbf", label="median")
            ax.invert_yaxis()
            ax.set_xlabel("detik")
            _legend_below(ax, 2)
            ax.set_title(f"Waktu mencari bukti per {BY_LABELS[by]}")
            section.figures.append((f"lookup_by_{by}", _png(fig)))
    return section


def _comparison_section() -> Section:
    section = Section(
        "Perbandingan antar-uji",
        "Dua uji pencarian terbaru dari set yang sama, pertanyaan demi pertanyaan.",
        technical=True,
    )
    from review.evaluation.retrieval_runs import runs_compare

    by_source: dict[str, list[EvalRun]] = {}
    for run in EvalRun.objects.filter(kind="retrieval").select_related("eval_set").order_by("-created_at")[:200]:
        by_source.setdefault(_source(run), []).append(run)
    rows = []
    for source, runs in sorted(by_source.items()):
        if len(runs) < 2:
            continue
        newer, older = runs[0], runs[1]
        for mode, deltas in runs_compare(a=older, b=newer).items():
            better = sum(d.delta > 0 for d in deltas)
            worse = sum(d.delta < 0 for d in deltas)
            mean = sum(d.delta for d in deltas) / max(len(deltas), 1)
            rows.append(
                [source, f"#{older.pk} → #{newer.pk}", mode, str(len(deltas)), str(better), str(worse), f"{mean:+.4f}"]
            )
            if mode == "hybrid" and deltas:
                fig, ax = plt.subplots(figsize=(4, 4))
                ax.scatter([d.before for d in deltas], [d.after for d in deltas], s=14, color="#1f5fbf", alpha=0.7)
                ax.plot([0, 1], [0, 1], color="#999", linewidth=1)
                ax.set_xlabel(f"run #{older.pk} nDCG@10")
                ax.set_ylabel(f"run #{newer.pk} nDCG@10")
                ax.set_title(f"{source}, hibrida, per kueri")
                section.figures.append((f"compare_{source}", _png(fig)))
    section.tables.append(
        Table(["sumber", "run", "mode", "kueri", "lebih baik", "lebih buruk", "rerata Δ nDCG@10"], rows)
    )
    if not rows:
        section.text += " Belum ada sumber dengan dua run."
    return section


def _answers_section() -> Section:
    section = Section(
        "Evaluasi jawaban",
        "Uji jawaban terbaru per set uji, tiap cara menjawab berdampingan: seberapa sering "
        "keputusannya (menjawab atau menolak) tepat dan jawabannya ada di klaim.",
    )
    keys = (
        "decision_accuracy",
        "answer_in_claims",
        "wrong_refusal_rate",
        "refusal_rate_unanswerable",
        "answered_unanswerable",
        "confident_wrong_rate",
        "status_accuracy",
        "conflict_precision",
        "conflict_recall",
        "citation_validity",
        "claim_support_rate",
        "claim_precision",
        "answers_with_offtopic_claim",
        "gold_cited_rate",
    )
    seen, rows = set(), []
    for run in EvalRun.objects.filter(kind="answers").select_related("eval_set").order_by("-created_at")[:50]:
        if _source(run) in seen:
            continue
        seen.add(_source(run))
        # Runs before the side-by-side evaluation hold one generator's metrics at the top level.
        by_generator = run.metrics if "cases" not in run.metrics else {run.config.get("generator", "?"): run.metrics}
        for generator, metrics in by_generator.items():
            rows.append(
                [_source(run), f"#{run.pk}", _engine(generator), str(metrics.get("cases"))]
                + ["—" if metrics.get(k) is None else _num(metrics[k], 3) for k in keys]
            )
    section.tables.append(Table(["set", "uji", "cara menjawab", "kasus", *(MEASURE_LABELS[k] for k in keys)], rows))
    return section


def _chunking_section() -> Section | None:
    runs = EvalRun.objects.filter(kind="retrieval", label__startswith="chunking:").order_by("label", "-created_at")
    latest: dict[str, EvalRun] = {}
    for run in runs:
        latest.setdefault(run.label, run)
    if not latest:
        return None
    section = Section(
        "Eksperimen pemotongan",
        "Pertanyaan yang sama pada dokumen yang sama, dipotong dengan "
        "pengaturan berbeda, tiap pengaturan koleksinya sendiri (hibrida).",
        technical=True,
    )
    rows = []
    for name, run in sorted(latest.items()):
        values = run.metrics.get("hybrid", {}).get("all", {})
        rows.append(
            [
                name.removeprefix("chunking:"),
                f"#{run.pk}",
                str(run.config["index"]["active_chunks"]),
                _num(values.get("nDCG@10", 0), 4),
                _num(values.get("R@10", 0), 4),
                _num(values.get("RR@10", 0), 4),
            ]
        )
    section.tables.append(Table(["pengaturan", "run", "potongan", "nDCG@10", "R@10", "MRR@10"], rows))
    fig, ax = plt.subplots(figsize=(7, 3))
    ax.bar([r[0] for r in rows], [float(r[3]) for r in rows], color="#1f5fbf")
    ax.set_ylim(0, 1)
    ax.set_ylabel("nDCG@10 (hybrid)")
    ax.tick_params(axis="x", labelsize=8)
    ax.set_title("Pengaturan pemotongan")
    section.figures.append(("chunking", _png(fig)))
    return section


def build_report(viewer: Reader | None = None) -> Report:
    """The whole archive's report (``make report``), or, for ``viewer``, one
    computed only from the answers and claims that viewer may see, with the
    lookup times only for reviewers."""
    sections = [_retrieval_section(_latest_retrieval_runs()), _answers_section(), _comparison_section()]
    chunking = _chunking_section()
    if chunking:
        sections.append(chunking)
    if viewer is None:
        sections += [_latency_section(Answer.objects.all()), _lookup_section(EvidenceLookup.objects.all())]
    else:
        sections.append(_latency_section(answers_visible_to(viewer)))
        if can_review(viewer):
            sections.append(_lookup_section(lookups_visible_to(viewer)))
    return Report(timezone.now().isoformat(timespec="seconds"), sections)


def _md_table(table: Table) -> str:
    if not table.rows:
        return f"_{NO_DATA}_\n"
    lines = ["| " + " | ".join(table.header) + " |", "|" + "---|" * len(table.header)]
    lines += ["| " + " | ".join(row) + " |" for row in table.rows]
    return "\n".join(lines) + "\n"


def _html_table(table: Table) -> str:
    if not table.rows:
        return f"<p><em>{NO_DATA}</em></p>"
    head = "".join(f"<th scope='col'>{html.escape(h)}</th>" for h in table.header)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>" for row in table.rows)
    # The wrapper scrolls a wide table inside the page instead of widening it (a phone).
    table_html = f"<table class='table'><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
    return f"<div class='table-wrap'>{table_html}</div>"


def report_html(report: Report, *, inline: bool, image_dir: str = "", technical: bool = True) -> str:
    """The report's body; images inline (base64) for the UI, or as files.
    ``technical``: the reader is staff, and sees run ids, measure names and
    the sections comparing runs, folded under "rincian teknis" in the UI;
    others see the figures and tables in plain words only."""
    parts = [f"<p class='meta'>Dibuat {html.escape(_when(report.generated_at))}</p>"]
    for section in report.sections:
        if section.technical and not technical:
            continue
        body = [f"<p>{html.escape(section.text)}</p>"]
        plain = [t for t in section.tables if not t.technical]
        detail = [t for t in section.tables if t.technical] if technical else []
        body += [_html_table(t) for t in plain]
        figures = []
        for name, png in section.figures:
            src = f"data:image/png;base64,{base64.b64encode(png).decode()}" if inline else f"{image_dir}{name}.png"
            figures.append(f"<figure><img src='{src}' alt='{html.escape(_alt(section, name))}'></figure>")
        if section.technical and inline:
            body = [_technical(body + figures)]
            figures = []
        elif detail and inline:
            body.append(_technical([_html_table(t) for t in detail]))
        else:
            body += [_html_table(t) for t in detail]
        if not plain and not detail and not figures and not section.technical:
            body.append(f"<p><em>{NO_DATA}</em></p>")  # nothing this reader may see yet
        parts.append(f"<h2>{html.escape(section.title)}</h2>")
        parts += body + figures
    return "\n".join(parts)


def _technical(parts: list[str]) -> str:
    return "<details class='technical'><summary>rincian teknis</summary>" + "".join(parts) + "</details>"


def _alt(section: Section, name: str) -> str:
    """A figure's text alternative: what it shows, not its file name."""
    return f"Grafik: {section.title}" + (
        f" ({name.rsplit('_', 1)[-1]})" if name.startswith("ndcg_by_category_") else ""
    )


def write_report(report: Report, directory: Path) -> list[Path]:
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    md = [f"# Laporan evaluasi Nalarku\n\nDibuat {_when(report.generated_at)}.\n"]
    for section in report.sections:
        md.append(f"## {section.title}\n\n{section.text}\n")
        md += [_md_table(t) for t in section.tables]
        for name, png in section.figures:
            path = directory / f"{name}.png"
            path.write_bytes(png)
            written.append(path)
            md.append(f"![{name}]({name}.png)\n")
    (directory / "report.md").write_text("\n".join(md), encoding="utf-8")
    page = (
        "<!doctype html><html lang='id'><meta charset='utf-8'><title>Laporan evaluasi Nalarku</title>"
        "<style>body{font:15px/1.5 system-ui,sans-serif;max-width:1100px;margin:2rem auto;padding:0 1rem}"
        "table{border-collapse:collapse;margin:.6rem 0}td,th{border-bottom:1px solid #ddd;padding:.3rem .5rem;"
        "text-align:left}</style><h1>Laporan evaluasi Nalarku</h1>" + report_html(report, inline=False)
    )
    (directory / "report.html").write_text(page, encoding="utf-8")
    return [directory / "report.md", directory / "report.html", *written]
