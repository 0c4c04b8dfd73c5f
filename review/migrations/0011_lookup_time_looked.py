# Lookup time measured by the desk's page: one record per editor and claim,
# the looking reported by the browser added up (review/lookups.py).

from django.conf import settings
from django.db import migrations, models


def one_record_per_editor_claim(apps, schema_editor):
    """Records made before this migration (one per decision) are merged per
    editor and claim: the first shown and opened times, the last decision
    and its outcome, the durations added up. Nothing measured is dropped."""
    EvidenceLookup = apps.get_model("review", "EvidenceLookup")
    kept: dict[tuple[int, int], object] = {}
    for lookup in EvidenceLookup.objects.order_by("shown_at", "pk"):
        key = (lookup.editor_id, lookup.claim_id)
        first = kept.setdefault(key, lookup)
        if first is lookup:
            continue
        if lookup.opened_at and (first.opened_at is None or lookup.opened_at < first.opened_at):
            first.opened_at = lookup.opened_at
        if lookup.decided_at and (first.decided_at is None or lookup.decided_at > first.decided_at):
            first.decided_at, first.outcome = lookup.decided_at, lookup.outcome
        if lookup.duration_ms is not None:
            first.duration_ms = (first.duration_ms or 0) + lookup.duration_ms
        first.save(update_fields=["opened_at", "decided_at", "outcome", "duration_ms"])
        lookup.delete()


class Migration(migrations.Migration):
    dependencies = [
        ("review", "0010_question_asked_again_from"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.RemoveConstraint(
            model_name="evidencelookup",
            name="lookup_one_open",
        ),
        migrations.AddField(
            model_name="evidencelookup",
            name="looked_ms",
            field=models.PositiveIntegerField(default=0, verbose_name="waktu melihat (ms)"),
        ),
        migrations.AddField(
            model_name="evidencelookup",
            name="seen_at",
            field=models.DateTimeField(blank=True, null=True, verbose_name="pertama terlihat"),
        ),
        migrations.RunPython(one_record_per_editor_claim, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name="evidencelookup",
            constraint=models.UniqueConstraint(fields=("editor", "claim"), name="lookup_one_per_editor_claim"),
        ),
    ]
