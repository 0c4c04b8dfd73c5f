/* The API docs page (templates/ninja/swagger.html): Swagger UI with the
 * session's CSRF token on every request, so "Coba" (Try it out) works for a
 * logged-in user on POST endpoints, and its labels in Indonesian.
 *
 * Swagger UI has no translations; its labels are fixed English strings in
 * its components. They are replaced where they appear as whole text nodes
 * (never inside code, JSON or inputs), and again whenever Swagger UI
 * re-renders them. */
(function () {
  "use strict";
  var csrfToken = document.body.dataset.csrfToken;
  var config = JSON.parse(document.getElementById("swagger-settings").textContent);
  config.dom_id = "#swagger-ui";
  config.presets = [SwaggerUIBundle.presets.apis, SwaggerUIBundle.SwaggerUIStandalonePreset];
  config.requestInterceptor = function (req) {
    // Only this site's own requests: the token never goes to another origin.
    var url = new URL(req.url, window.location.href);
    if (csrfToken && url.origin === window.location.origin) req.headers["X-CSRFToken"] = csrfToken;
    return req;
  };

  var LABELS = {
    "Try it out": "Coba",
    "Cancel": "Batal",
    "Reset": "Atur ulang",
    "Execute": "Jalankan",
    "Clear": "Bersihkan",
    "Authorize": "Otorisasi",
    "Logout": "Keluar",
    "Close": "Tutup",
    "Available authorizations": "Otorisasi yang tersedia",
    "Authorized": "Terotorisasi",
    "Value:": "Nilai:",
    "Parameters": "Parameter",
    "No parameters": "Tanpa parameter",
    "Request body": "Badan permintaan",
    "Responses": "Respons",
    "Response content type": "Jenis isi respons",
    "Code": "Kode",
    "Description": "Keterangan",
    "Name": "Nama",
    "Links": "Tautan",
    "No links": "Tanpa tautan",
    "Example Value": "Contoh nilai",
    "Edit Value": "Ubah nilai",
    "Schema": "Skema",
    "Schemas": "Skema",
    "Server response": "Respons server",
    "Response body": "Badan respons",
    "Response headers": "Header respons",
    "Request URL": "URL permintaan",
    "Request duration": "Lama permintaan",
    "Details": "Rincian",
    "Download": "Unduh",
    "Media type": "Jenis media",
    "Controls Accept header.": "Mengatur header Accept.",
    "required": "wajib",
    "Send empty value": "Kirim nilai kosong",
    "Undocumented": "Tak terdokumentasi",
    "Loading...": "Memuat…",
    "Servers": "Server",
    "Expand all": "Buka semua",
    "Collapse all": "Tutup semua",
    "Failed to fetch.": "Gagal mengambil.",
    "default": "Operasi",
  };
  var SKIP = "pre, code, textarea, input, select, .microlight, .model-box, .response-col_description__inner";

  function translateText(node) {
    // The generated curl repeats the headers sent, the session's CSRF token
    // among them: a secret of this session, and of no use to a script,
    // which sends Authorization: Bearer <token> instead.
    if (csrfToken && node.nodeValue.indexOf(csrfToken) !== -1) {
      node.nodeValue = node.nodeValue.split(csrfToken).join("<token CSRF sesi>");
    }
    var text = node.nodeValue;
    var key = text.trim();
    if (!key || !Object.prototype.hasOwnProperty.call(LABELS, key)) return;
    var parent = node.parentElement;
    if (!parent || parent.closest(SKIP)) return;
    node.nodeValue = text.replace(key, LABELS[key]);
  }
  function translateTree(root) {
    if (root.nodeType === Node.TEXT_NODE) return translateText(root);
    if (root.nodeType !== Node.ELEMENT_NODE) return;
    var walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (var node = walker.nextNode(); node; node = walker.nextNode()) translateText(node);
    // "Controls <code>Accept</code> header.": three nodes, so not a label above.
    root.querySelectorAll(".response-control-media-type__accept-message").forEach(function (el) {
      if (el.textContent.indexOf("Controls") !== -1) el.innerHTML = "Mengatur header <code>Accept</code>.";
    });
    root.querySelectorAll("[aria-label]").forEach(function (el) {
      var label = el.getAttribute("aria-label");
      if (label === "Remove authorization") el.setAttribute("aria-label", "Hapus otorisasi");
      if (label === "Apply credentials") el.setAttribute("aria-label", "Terapkan kredensial");
    });
  }
  var target = document.getElementById("swagger-ui");
  new MutationObserver(function (mutations) {
    mutations.forEach(function (m) {
      if (m.type === "characterData") translateText(m.target);
      m.addedNodes.forEach(translateTree);
    });
  }).observe(target, { childList: true, subtree: true, characterData: true });

  window.ui = SwaggerUIBundle(config);
})();
