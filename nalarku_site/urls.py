from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import path

from review import api as review_api
from review import views as review_views

admin.site.site_header = "Nalarku — administrasi arsip"
admin.site.site_title = "Nalarku"

urlpatterns = [
    path("", review_views.home, name="home"),
    path("masuk/", auth_views.LoginView.as_view(), name="login"),
    path("keluar/", auth_views.LogoutView.as_view(), name="logout"),
    path("api/search", review_api.search_api, name="api-search"),
    path("api/ask", review_api.ask_api, name="api-ask"),
    path("admin/", admin.site.urls),
]
