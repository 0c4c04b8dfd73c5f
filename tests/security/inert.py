"""What "renders inert" means for a page, checked on its parsed HTML."""

from __future__ import annotations

from bs4 import BeautifulSoup

URL_ATTRIBUTES = ("href", "src", "action", "formaction", "xlink:href", "data", "poster", "srcdoc")
DANGEROUS_SCHEMES = ("javascript:", "vbscript:", "data:text/html")
FORBIDDEN_TAGS = ("iframe", "object", "embed", "base", "frame", "frameset", "applet")


def active_content(html: str) -> list[str]:
    """Everything on the page that could run or navigate on its own: inline
    or foreign scripts, event-handler attributes, script URLs, frames and
    plugins, meta refreshes. Our own pages load scripts only from this origin."""
    found = []
    for tag in BeautifulSoup(html, "html.parser").find_all(True):
        data_block = str(tag.get("type", "")).lower() == "application/json"  # json_script: not executed
        if tag.name == "script" and (tag.string or "").strip() and not data_block:
            found.append(f"inline script: {tag.string.strip()[:60]}")
        source = str(tag.get("src", ""))
        if tag.name == "script" and not data_block and not (source.startswith("/") and not source.startswith("//")):
            found.append(f"script from {source!r}")
        if tag.name in FORBIDDEN_TAGS:
            found.append(f"<{tag.name}>")
        if tag.name == "meta" and str(tag.get("http-equiv", "")).lower() == "refresh":
            found.append("meta refresh")
        for name, value in tag.attrs.items():
            value = " ".join(value) if isinstance(value, list) else str(value)
            if name.lower().startswith("on"):
                found.append(f"{tag.name}[{name}]")
            if name.lower() in URL_ATTRIBUTES and "".join(value.split()).lower().startswith(DANGEROUS_SCHEMES):
                found.append(f"{tag.name}[{name}={value[:40]!r}]")
    return found
