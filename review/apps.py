from django.apps import AppConfig


class ReviewConfig(AppConfig):
    name = "review"
    verbose_name = "Tinjauan redaksi"

    def ready(self) -> None:
        from . import audit

        audit.register()
