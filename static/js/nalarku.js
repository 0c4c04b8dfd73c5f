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

  // 401 (session ended) and 403 (refused) from review/htmx_errors.py: one line,
  // said where the action was — the claim's alert line, else the banner —
  // and nothing is swapped, so the claim row and what was typed stay.
  function sayAt(element, message, loginUrl) {
    var row = element && element.closest ? element.closest("[data-claim]") : null;
    var line = row ? row.querySelector("[role=alert]") : null;
    var box = line || document.getElementById("flash");
    if (!box) return;
    box.textContent = message + (loginUrl ? " " : "");
    if (loginUrl) {
      var link = document.createElement("a");
      link.href = loginUrl;
      link.textContent = "Masuk lagi";
      box.appendChild(link);
    }
    box.hidden = false;
  }
  document.addEventListener("htmx:beforeSwap", function (event) {
    var xhr = event.detail.xhr;
    if (!xhr || (xhr.status !== 401 && xhr.status !== 403)) return;
    event.detail.shouldSwap = false;
    var plain = /^text\/plain/.test(xhr.getResponseHeader("Content-Type") || "");
    var message = plain && xhr.responseText ? xhr.responseText
      : (xhr.status === 401 ? "Sesi berakhir — masuk lagi." : "Tidak diizinkan.");
    // A 403 for a session that changed (signed out or in as someone else in
    // another tab) carries the login link too; a plain refusal does not.
    var login = xhr.getResponseHeader("X-Nalarku-Login") || (xhr.status === 401 ? "/masuk/" : null);
    sayAt(event.detail.requestConfig ? event.detail.requestConfig.elt : event.detail.elt, message, login);
    if (login) {  // the nav's "Keluar (…)" no longer holds
      var logout = document.querySelector(".topbar nav form.inline");
      if (logout) logout.style.display = "none";
    }
  });

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

  // A filter form that pushes its URL (history's filters) stays in the page
  // while its results are swapped. htmx's Back restores a snapshot of the
  // page's HTML, where a field holds its attribute, not what was chosen. The
  // snapshot is taken just before the next URL is pushed, when the fields
  // already hold the new choice: so the fields' attributes are set to the
  // values in the URL being saved (the ones its results were asked with),
  // and what the editor has just chosen is put back once it is taken.
  document.addEventListener("htmx:beforeHistorySave", function (event) {
    var asked = new URL(event.detail.path, location.href).searchParams;
    var live = [];
    document.querySelectorAll("form[hx-push-url]").forEach(function (form) {
      var fields = form.querySelectorAll("input[name], select[name], textarea[name]");
      // A URL that names none of the form's fields is the page as served:
      // its attributes are already the ones it was served with.
      if (!Array.prototype.some.call(fields, function (f) { return asked.has(f.name); })) return;
      fields.forEach(function (field) {
        var values = asked.getAll(field.name);
        // A form leaves an unticked box out of its URL; any other field left
        // out (a default the server chose) keeps the attribute it was served with.
        if (!values.length && field.type !== "checkbox") return;
        if (field.type === "checkbox" || field.type === "radio") {
          live.push([field, field.checked]);
          field.toggleAttribute("checked", values.indexOf(field.value) >= 0);
        } else if (field.tagName === "SELECT") {
          live.push([field, Array.prototype.map.call(field.options, function (o) { return o.selected; })]);
          Array.prototype.forEach.call(field.options, function (o) {
            o.toggleAttribute("selected", values.indexOf(o.value) >= 0);
          });
        } else {
          live.push([field, field.value]);
          if (field.tagName === "TEXTAREA") field.textContent = values[0] || "";
          else field.setAttribute("value", values[0] || "");
        }
      });
    });
    queueMicrotask(function () {
      live.forEach(function (pair) {
        var field = pair[0], value = pair[1];
        if (field.type === "checkbox" || field.type === "radio") field.checked = value;
        else if (field.tagName === "SELECT") {
          Array.prototype.forEach.call(field.options, function (o, n) { o.selected = value[n]; });
        } else field.value = value;
      });
    });
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
  // What is open on a wide screen but would push the claims screens down on
  // a phone (a conflict's sides): folded there, one tap away.
  var narrow = window.matchMedia("(max-width: 800px)");
  function foldNarrow() {
    if (!narrow.matches) return;
    document.querySelectorAll("details[data-fold-narrow][open]").forEach(function (d) { d.open = false; });
  }
  document.addEventListener("DOMContentLoaded", init);
  document.addEventListener("DOMContentLoaded", foldNarrow);
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
    return active && active.closest ? active.closest("[data-claim]") : null;
  }
  function focusRow(row) { if (row) { row.focus(); row.scrollIntoView({block: "nearest"}); } }
  function typing(target) {
    return target && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName));
  }

  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey || typing(event.target)) return;
    var rows = claims();
    if (!rows.length) return;
    // Before any claim has the focus, j and k go to the first claim (not
    // the second), and d / t judge the first claim.
    var row = current(), index = rows.indexOf(row);
    if (event.key === "j") { focusRow(row ? rows[Math.min(index + 1, rows.length - 1)] : rows[0]); event.preventDefault(); }
    else if (event.key === "k") { focusRow(row ? rows[Math.max(index - 1, 0)] : rows[0]); event.preventDefault(); }
    else if (event.key === "d" || event.key === "t") {
      var target = row || rows[0];
      var button = target.querySelector('[data-decide="' + (event.key === "d" ? "supported" : "needs_review") + '"]');
      if (button) { button.click(); event.preventDefault(); }
    }
  });

  // The decided claim is swapped in anew (htmx:load fires on the new row;
  // the old one, and the form that asked, are gone): move on to the next
  // undecided claim. Only a decision button (clicked, or pressed by d / t)
  // moves on; saving a note (its button, or Enter in the note) keeps the
  // editor in the note.
  var deciding = false, noting = false, pressed = null;
  document.addEventListener("click", function (event) {
    pressed = event.target && event.target.closest ? event.target.closest("button") : null;
  }, true);
  document.addEventListener("htmx:beforeRequest", function () {
    deciding = !!(pressed && pressed.hasAttribute("data-decide"));
    noting = !!(pressed && pressed.hasAttribute("data-note-save"));
  });
  document.addEventListener("htmx:load", function (event) {
    var row = event.detail.elt;
    if (!row || !row.hasAttribute || !row.hasAttribute("data-claim")) return;
    if (noting) {
      noting = false;
      var note = row.querySelector("input[name=note]");
      if (note) note.focus();
      return;
    }
    if (!deciding) return;
    deciding = false;
    var rows = claims(), index = rows.indexOf(row);
    var next = rows.slice(index + 1).concat(rows.slice(0, index)).filter(function (r) {
      return r.getAttribute("data-status") === "pending";
    })[0];
    focusRow(next || row);
  });
})();

// A decision on a claim resting on a revision no longer in force comes back
// as a question (review/desk/views.py claim_decide): the focus goes to its
// "Ya, tetap nilai" button, so the keyboard review goes on with Enter (or
// Batal). Once confirmed, the focus moves on to the next undecided claim.
(function () {
  "use strict";

  var confirming = false;
  document.addEventListener("click", function (event) {
    var button = event.target && event.target.closest ? event.target.closest("button") : null;
    confirming = !!(button && button.hasAttribute("data-confirm-decide"));
  }, true);
  document.addEventListener("htmx:load", function (event) {
    var row = event.detail.elt;
    if (!row || !row.hasAttribute || !row.hasAttribute("data-claim")) return;
    var ask = row.querySelector("[data-confirm-decide]");
    if (ask) { ask.focus(); return; }
    if (!confirming) return;
    confirming = false;
    var rows = Array.prototype.slice.call(document.querySelectorAll("[data-claim]"));
    var index = rows.indexOf(row);
    var next = rows.slice(index + 1).concat(rows.slice(0, index)).filter(function (r) {
      return r.getAttribute("data-status") === "pending";
    })[0] || row;
    next.focus();
    next.scrollIntoView({block: "nearest"});
  });
  // Without script, the answer page that asks comes whole: its question has the focus.
  document.addEventListener("DOMContentLoaded", function () {
    var ask = document.querySelector("[data-confirm-decide]");
    if (ask) ask.focus();
  });
})();

// The lookup clock (review/desk/lookups.py says what the figure means): for
// each claim row an editor may judge (data-lookup), the milliseconds it was
// on screen in a visible tab while the editor was active (mouse, keys,
// scroll or touch within the last IDLE_MS). It pauses otherwise. What it
// measured goes with the next decision or note of that claim and, when the
// tab is hidden or the page is left, in a beacon, so that a reopened answer
// adds only the time actually spent looking.
(function () {
  "use strict";

  var IDLE_MS = 60000, TICK_MS = 1000;
  var clocks = {};  // beacon URL -> {row, onScreen, looked (not yet sent), firstSeen}
  var lastInput = Date.now(), lastTick = Date.now();
  var observer = "IntersectionObserver" in window ? new IntersectionObserver(function (entries) {
    entries.forEach(function (entry) {
      var clock = clocks[entry.target.getAttribute("data-lookup")];
      if (!clock || clock.row !== entry.target) return;
      clock.onScreen = entry.isIntersecting;
      if (clock.onScreen) seen(clock, Date.now());
    });
  }) : null;

  function watch(root) {
    if (!root || !root.querySelectorAll) return;
    var rows = Array.prototype.slice.call(root.querySelectorAll("[data-lookup]"));
    if (root.hasAttribute && root.hasAttribute("data-lookup")) rows.push(root);
    rows.forEach(function (row) {
      var url = row.getAttribute("data-lookup");
      var clock = clocks[url] || (clocks[url] = {looked: 0, firstSeen: null, onScreen: false});
      if (clock.row === row) return;
      clock.row = row;  // a row swapped in anew (after a decision) keeps its clock
      clock.onScreen = !observer;
      if (observer) observer.observe(row);
    });
  }

  function tick() {
    var now = Date.now();
    // A sleeping laptop or a throttled background tab leaves a long gap: never counted.
    var step = Math.min(Math.max(now - lastTick, 0), 2 * TICK_MS);
    lastTick = now;
    if (document.visibilityState !== "visible" || now - lastInput >= IDLE_MS) return;
    Object.keys(clocks).forEach(function (url) {
      var clock = clocks[url];
      if (!clock.onScreen || !document.contains(clock.row)) return;
      if (seen(clock, now)) clock.looked += Math.min(step, now - clock.firstSeen);
    });
  }

  // The clock of a claim starts when it is first on screen in a visible tab
  // (a decision made in the first second is measured too); false until then.
  function seen(clock, now) {
    if (clock.firstSeen === null && document.visibilityState === "visible") clock.firstSeen = now;
    return clock.firstSeen !== null;
  }

  function report(clock) {
    var sent = {looked_ms: String(Math.round(clock.looked)), seen_ms: String(Math.round(Date.now() - clock.firstSeen))};
    clock.looked = 0;
    return sent;
  }

  function beacons() {
    tick();
    var token = (document.querySelector("input[name=csrfmiddlewaretoken]") || {}).value;
    if (!token || !navigator.sendBeacon) return;
    Object.keys(clocks).forEach(function (url) {
      var clock = clocks[url];
      if (clock.firstSeen === null || clock.looked < 1) return;
      var form = new FormData(), sent = report(clock);
      form.append("csrfmiddlewaretoken", token);
      form.append("looked_ms", sent.looked_ms);
      form.append("seen_ms", sent.seen_ms);
      navigator.sendBeacon(url, form);
    });
  }

  ["mousemove", "mousedown", "keydown", "scroll", "wheel", "touchstart", "focus"].forEach(function (name) {
    window.addEventListener(name, function () { lastInput = Date.now(); }, {capture: true, passive: true});
  });
  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "hidden") beacons();
    else { lastTick = lastInput = Date.now(); }
  });
  window.addEventListener("pagehide", beacons);

  // A decision, a note or a confirmation (the forms with a status or a note)
  // carries what the clock measured for its claim.
  document.addEventListener("htmx:configRequest", function (event) {
    var form = event.detail.elt, row = form && form.closest ? form.closest("[data-lookup]") : null;
    if (!row || event.detail.verb !== "post" || !form.querySelector("[name=status], [name=note]")) return;
    var clock = clocks[row.getAttribute("data-lookup")];
    if (!clock || clock.firstSeen === null) return;
    tick();
    var sent = report(clock);
    event.detail.parameters.looked_ms = sent.looked_ms;
    event.detail.parameters.seen_ms = sent.seen_ms;
  });

  document.addEventListener("DOMContentLoaded", function () { watch(document); });
  document.addEventListener("htmx:load", function (event) { watch(event.detail.elt); });
  setInterval(tick, TICK_MS);
})();
