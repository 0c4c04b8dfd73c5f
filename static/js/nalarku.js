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
