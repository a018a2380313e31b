// The console works without JavaScript; this file only adds conveniences:
// copy buttons for secrets, and a confirmation before destructive forms are sent.
"use strict";
document.addEventListener("click", function (event) {
  var button = event.target.closest("button[data-copy]");
  if (!button) return;
  var field = document.getElementById(button.getAttribute("data-copy"));
  if (!field) return;
  field.select();
  var done = function () {
    button.textContent = button.getAttribute("data-copied") || "Copied";
  };
  if (navigator.clipboard && window.isSecureContext) {
    navigator.clipboard.writeText(field.value).then(done, function () {
      document.execCommand("copy");
      done();
    });
  } else {
    document.execCommand("copy");
    done();
  }
});
document.addEventListener("submit", function (event) {
  var question = event.target.getAttribute("data-confirm");
  if (question && !window.confirm(question)) event.preventDefault();
});
// The browser's time zone, for times shown in it (console/times.py reads the pm_tz cookie and
// checks it against the zones it knows; without it, Europe/Berlin).
(function () {
  try {
    var zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    if (!zone || !/^[A-Za-z][A-Za-z0-9_+\-\/]{0,63}$/.test(zone)) return;
    if (document.cookie.split("; ").indexOf("pm_tz=" + zone) !== -1) return;
    var secure = window.location.protocol === "https:" ? "; Secure" : "";
    document.cookie = "pm_tz=" + zone + "; Path=/; Max-Age=31536000; SameSite=Lax" + secure;
  } catch (ignored) {
    // no Intl: the server's default zone stays
  }
})();
// The OAuth consent page's sentence of what the client will be able to do, kept to the ticks
// (console/pages/oauth_consent.summary writes it for the ticks the page opens with).
(function () {
  var said = document.getElementById("consent-summary");
  var form = said && said.closest("form");
  if (!form) return;
  var listed = function (items) {
    if (items.length < 2) return items.join("");
    return items.slice(0, -1).join(", ") + " " + said.getAttribute("data-and") + " " + items[items.length - 1];
  };
  var update = function () {
    var ticked = Array.prototype.filter.call(form.querySelectorAll("input[name=scope]"), function (box) {
      return box.checked;
    });
    var kinds = ticked.map(function (box) { return box.getAttribute("data-kind"); });
    var parts = [];
    ["read", "write"].forEach(function (wide) {
      var areas = ticked.filter(function (box) {
        return box.getAttribute("data-kind") === wide && box.hasAttribute("data-area");
      }).map(function (box) { return box.getAttribute("data-area"); });
      var whole = ticked.some(function (box) { return box.value === wide; });
      if (whole) parts.push(said.getAttribute("data-" + wide + "-all"));
      else if (areas.length) parts.push(said.getAttribute("data-" + wide).replace("{areas}", listed(areas)));
    });
    ["destructive", "admin"].forEach(function (risky) {
      if (kinds.indexOf(risky) !== -1) parts.push(said.getAttribute("data-" + risky));
    });
    said.textContent = parts.length
      ? said.getAttribute("data-before") + listed(parts) + said.getAttribute("data-after")
      : said.getAttribute("data-nothing");
  };
  form.addEventListener("change", update);
})();
