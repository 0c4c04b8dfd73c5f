from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from retrieval.models import Document, RevisionStatus


@require_GET
@login_required
def home(request: HttpRequest) -> HttpResponse:
    """The reader's view of the archive: only documents their groups may see."""
    documents = (Document.objects.visible_to(request.user)
                 .filter(current_revision__status=RevisionStatus.ACTIVE)
                 .select_related("current_revision").order_by("key"))
    return render(request, "review/home.html", {"documents": documents})
