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
