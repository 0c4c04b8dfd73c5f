// Nalarku's own script (served from 'self', so the CSP holds): errors that
// htmx does not swap are said in place, and fields with a limit count down.
(function () {
  "use strict";

  function say(message) {
    var box = document.getElementById("flash");
    if (!box) return;
    box.textContent = message;
    box.hidden = false;
  }

  document.addEventListener("htmx:responseError", function (event) {
    var status = event.detail.xhr ? event.detail.xhr.status : 0;
    say(status >= 500
      ? "Terjadi kesalahan di server (" + status + "). Tidak ada yang hilang; coba lagi sebentar lagi."
      : "Permintaan ditolak (" + status + "). Muat ulang halaman lalu coba lagi.");
  });
  document.addEventListener("htmx:sendError", function () {
    say("Server tidak dapat dihubungi. Periksa sambungan lalu coba lagi.");
  });
  document.addEventListener("htmx:beforeRequest", function () {
    var box = document.getElementById("flash");
    if (box) box.hidden = true;
  });

  // <textarea data-limit="2000" aria-describedby="x-count"> with <span id="x-count">:
  // the count as the editor types; over the limit the server refuses, nothing is cut.
  function count(field) {
    var limit = parseInt(field.getAttribute("data-limit"), 10);
    var out = document.getElementById(field.id + "-count");
    if (!out || !limit) return;
    var length = field.value.length;
    out.textContent = length + " / " + limit + " karakter" + (length > limit ? " — terlalu panjang" : "");
    out.classList.toggle("error", length > limit);
  }
  document.addEventListener("input", function (event) {
    if (event.target.matches && event.target.matches("[data-limit]")) count(event.target);
  });
  function init() {
    document.querySelectorAll("[data-limit]").forEach(count);
  }
  document.addEventListener("DOMContentLoaded", init);
  document.addEventListener("htmx:afterSettle", init);
})();

// Reviewing from the keyboard, on an answer's page: d = didukung,
// t = perlu ditinjau, j / k = next / previous claim. After a decision the
// focus moves to the next claim not yet decided.
(function () {
  "use strict";

  function claims() { return Array.prototype.slice.call(document.querySelectorAll("[data-claim]")); }
  function current() {
    var active = document.activeElement;
    var row = active && active.closest ? active.closest("[data-claim]") : null;
    return row || claims()[0] || null;
  }
  function focusRow(row) { if (row) { row.focus(); row.scrollIntoView({block: "nearest"}); } }
  function typing(target) {
    return target && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName));
  }

  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey || typing(event.target)) return;
    var rows = claims();
    if (!rows.length) return;
    var row = current(), index = rows.indexOf(row);
    if (event.key === "j") { focusRow(rows[Math.min(index + 1, rows.length - 1)]); event.preventDefault(); }
    else if (event.key === "k") { focusRow(rows[Math.max(index - 1, 0)]); event.preventDefault(); }
    else if (event.key === "d" || event.key === "t") {
      var button = row && row.querySelector('[data-decide="' + (event.key === "d" ? "supported" : "needs_review") + '"]');
      if (button) { button.click(); event.preventDefault(); }
    }
  });

  // The decided claim is swapped in anew (htmx:load fires on the new row;
  // the old one, and the form that asked, are gone): move on to the next
  // undecided claim.
  var deciding = false;
  document.addEventListener("htmx:beforeRequest", function (event) {
    var form = event.detail.elt;
    deciding = !!(form && form.querySelector && form.querySelector("[data-decide]"));
  });
  document.addEventListener("htmx:load", function (event) {
    var row = event.detail.elt;
    if (!deciding || !row || !row.hasAttribute || !row.hasAttribute("data-claim")) return;
    deciding = false;
    var rows = claims(), index = rows.indexOf(row);
    var next = rows.slice(index + 1).concat(rows.slice(0, index)).filter(function (r) {
      return r.getAttribute("data-status") === "pending";
    })[0];
    focusRow(next || row);
  });
})();
