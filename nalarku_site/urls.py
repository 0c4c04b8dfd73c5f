from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.templatetags.static import static
from django.urls import path
from django.views.generic import RedirectView

from nalarku_site import health, metrics
from review.api import views as review_api
from review.desk import accounts, views

admin.site.site_header = "Nalarku — administrasi arsip"
admin.site.site_title = "Nalarku"

urlpatterns = [
    path("", views.home, name="home"),
    path("tanya/", views.ask, name="ask"),
    path("pertanyaan/<int:pk>/", views.question, name="question"),
    path("pertanyaan/<int:pk>/jalankan/", views.question_run_now, name="question-run"),
    path("jawaban/<int:pk>/", views.answer_detail, name="answer"),
    path("jawaban/<int:pk>/ekspor/", views.answer_export, name="answer-export"),
    path("klaim/<int:pk>/nilai/", views.claim_decide, name="claim-decide"),
    path("klaim/<int:pk>/buka/", views.claim_evidence_opened, name="claim-opened"),
    path("klaim/<int:pk>/lihat/", views.claim_looked, name="claim-looked"),
    path("klaim/<int:pk>/kasus/", views.claim_to_case, name="claim-case"),
    path("bukti/<str:evidence_id>/", views.evidence, name="evidence"),
    path("antrean/", views.review_queue, name="queue"),
    path("riwayat/", views.history, name="history"),
    path("waktu/", views.lookup_dashboard, name="dashboard"),
    path("laporan/", views.report, name="report"),
    path("cari/", views.search_page, name="search"),
    path("arsip/", views.archive, name="archive"),
    path("dokumen/<str:key>/", views.document_detail, name="document"),
    path("dokumen/<str:key>/r<int:number>/", views.revision_detail, name="revision"),
    path("dokumen/<str:key>/beda/", views.revision_diff, name="diff"),
    # The JSON API (django-ninja) by its plain names (api-search, api-ask,
    # api-claim-review, and the schema and docs), each path on its own like
    # every other page of the site; then namespaced, which the docs page
    # reverses its schema's URL through.
    *(path(f"api/{p.pattern}", p.callback, name=p.name) for p in review_api.api.urls[0]),
    path("api/", review_api.api.urls),
    path("masuk/", auth_views.LoginView.as_view(), name="login"),
    path("keluar/", accounts.LogoutView.as_view(), name="logout"),
    # The admin's "Keluar" posts here: the same sign-out, which says so.
    path("admin/logout/", accounts.LogoutView.as_view()),
    path("admin/", admin.site.urls),
    # Load-balancer probes: no login, no detail (nalarku_site/health.py).
    path("healthz", health.healthz, name="healthz"),
    path("readyz", health.readyz, name="readyz"),
    path("metrics", metrics.metrics_view, name="metrics"),
    # Browsers ask for /favicon.ico on pages without a <link rel=icon> (admin, raw files).
    path("favicon.ico", RedirectView.as_view(url=static("favicon.svg"), permanent=True)),
]
