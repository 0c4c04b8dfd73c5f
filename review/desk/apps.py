from django.apps import AppConfig


class DeskConfig(AppConfig):
    """The editor's desk: its pages, template tags (``{% load nalarku %}``) and
    nothing stored of its own (the models are the review app's)."""

    name = "review.desk"
    label = "desk"
    verbose_name = "Meja redaksi"
