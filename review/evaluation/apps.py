from django.apps import AppConfig


class EvaluationConfig(AppConfig):
    """Evaluation sets, runs, the judge, reports and their ``eval_*``
    commands; the models (EvalSet, EvalRun …) are the review app's."""

    name = "review.evaluation"
    label = "evaluation"
    verbose_name = "Evaluasi"
