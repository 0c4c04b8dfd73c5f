"""The layers of the house, declared once, and imports that only point
down (issue 52 item 4). A module belongs to the layer of its longest listed
prefix. An import may reach its own layer or a lower one, never a higher
one; and between the folders of the house (the listed prefixes) there is
no circle, so no two rooms lean on each other."""

from __future__ import annotations

from tests.architecture.test_import_cycles import _cycles, import_graph

# From the top: what a request or a job enters through, down to the records.
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    (
        "site",
        (
            "nalarku_site",  # its __init__ starts Celery's app
            "nalarku_site.urls",
            "nalarku_site.wsgi",
            "nalarku_site.settings",
            "nalarku_site.testenv",
            "nalarku_site.health",
            "nalarku_site.warm",
            "nalarku_site.celery",
        ),
    ),
    (
        "interfaces",
        (
            "review.desk",
            "review.api",
            "review.evaluation",
            "review.management",
            "review.admin",
            "review.admin_axes",
            "review.tasks",
            "review.apps",
            "retrieval.management",
            "retrieval.admin",
            "retrieval.tasks",
            "retrieval.apps",
        ),
    ),
    ("training", ("training",)),
    ("review services", ("review",)),
    ("answer engine", ("answering",)),
    ("retrieval", ("retrieval",)),
    # The records, and what every layer may use: metrics, the read replicas'
    # routing, the embedded database, log filters, backups, and the chunker
    # (pure text → chunks; a revision's row records its version).
    (
        "records and platform",
        (
            "review.models",
            "retrieval.models",
            "retrieval.chunking",
            "nalarku_site.metrics",
            "nalarku_site.replicas",
            "nalarku_site.embedded_db",
            "nalarku_site.log_filters",
            "nalarku_site.formats",
            "nalarku_site.backup",
        ),
    ),
]
RANK = {prefix: n for n, (_, prefixes) in enumerate(LAYERS) for prefix in prefixes}


def room(module: str) -> str:
    """The longest listed prefix that holds ``module``."""
    parts = module.split(".")
    for end in range(len(parts), 0, -1):
        prefix = ".".join(parts[:end])
        if prefix in RANK:
            return prefix
    raise AssertionError(f"{module} is in no layer: add its folder to LAYERS")


def upward(graph: dict[str, set[str]]) -> list[str]:
    found = []
    for module, imports in graph.items():
        for imported in imports:
            if RANK[room(imported)] < RANK[room(module)]:
                found.append(f"{module} → {imported} ({LAYERS[RANK[room(imported)]][0]} is above)")
    return sorted(found)


def folder_circles(graph: dict[str, set[str]]) -> list[list[str]]:
    rooms: dict[str, set[str]] = {room(m): set() for m in graph}
    for module, imports in graph.items():
        rooms[room(module)] |= {room(i) for i in imports if room(i) != room(module)}
    return _cycles(rooms)


def test_imports_point_down():
    assert not upward(import_graph()), "\n".join(upward(import_graph()))


def test_no_circle_between_folders():
    circles = folder_circles(import_graph())
    assert not circles, "; ".join(" ↔ ".join(c) for c in circles)


def test_a_planted_upward_import_and_a_planted_circle_are_found():
    graph = {name: set(imports) for name, imports in import_graph().items()}
    graph["retrieval.search"].add("answering.engine")  # retrieval reaching up into the engine
    assert any(line.startswith("retrieval.search → answering.engine") for line in upward(graph))
    graph = {name: set(imports) for name, imports in import_graph().items()}
    graph["review.evaluation.answer_runs"].add("review.desk.views")
    graph["review.desk.views"].add("review.evaluation.answer_runs")
    assert ["review.desk", "review.evaluation"] in folder_circles(graph)
