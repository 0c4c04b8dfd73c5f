/* Admin forms that take a file (a new document's first revision, a new
 * revision): the format select follows the file chosen — a PDF chosen, the
 * format reads "PDF" — and says so beside it. The server takes the file's
 * format whatever is sent; this keeps the form from showing another. */
(function () {
  "use strict";
  function follow(input) {
    var formats = JSON.parse(input.dataset.formats || "{}");
    var select = input.form && input.form.querySelector("select[name=format]");
    if (!select) return;
    var note = document.createElement("span");
    note.className = "help format-follows";
    note.setAttribute("aria-live", "polite");
    select.insertAdjacentElement("afterend", note);
    input.addEventListener("change", function () {
      var file = input.files && input.files[0];
      var dot = file ? file.name.lastIndexOf(".") : -1;
      var format = dot >= 0 ? formats[file.name.slice(dot).toLowerCase()] : undefined;
      if (format) {
        select.value = format;
        note.textContent = " mengikuti berkas " + file.name;
      } else {
        note.textContent = file ? " format berkas " + file.name + " tidak dikenal" : "";
      }
    });
  }
  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll("input[type=file][data-formats]").forEach(follow);
  });
})();
