"""The feature-trained answer model has one name, "answerer": stored answers
named its engine "extractive" and its missing artefact "scorer_unavailable".
Values only; no schema change."""

from django.db import migrations

RENAMES = {"extractive": "answerer"}
FLAGS = {"scorer_unavailable": "answerer_unavailable"}


def _rename(apps, names: dict[str, str], flags: dict[str, str]) -> None:
    answer = apps.get_model("review", "Answer")
    for old, new in names.items():
        answer.objects.filter(generator=old).update(generator=new)
    for old, new in flags.items():
        for row in answer.objects.filter(degraded__contains=[old]).only("id", "degraded"):
            row.degraded = [new if flag == old else flag for flag in row.degraded]
            row.save(update_fields=["degraded"])


def forwards(apps, schema_editor) -> None:  # noqa: ANN001
    _rename(apps, RENAMES, FLAGS)


def backwards(apps, schema_editor) -> None:  # noqa: ANN001
    _rename(apps, {v: k for k, v in RENAMES.items()}, {v: k for k, v in FLAGS.items()})


class Migration(migrations.Migration):
    dependencies = [("review", "0013_plain_names")]
    operations = [migrations.RunPython(forwards, backwards)]
