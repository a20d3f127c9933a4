// Stats page: the page comes with what the hooks recorded; the
// line-by-line count (git gloss stats, seconds on a long history gloss
// has not seen) is fetched after and put in its section. Without this
// script the section keeps its link to the page with the count.
(function () {
  "use strict";
  var sec = document.getElementById("lines");
  var src = sec && sec.dataset.src;
  if (!src) return;
  var wait = document.getElementById("lines-wait");
  fetch(src, { credentials: "same-origin" }).then(function (r) {
    if (!r.ok) return r.text().then(function (t) { throw new Error(t.trim() || "the server answered " + r.status); });
    return r.text();
  }).then(function (html) {
    if (wait) wait.remove();
    sec.insertAdjacentHTML("beforeend", html);
    delete sec.dataset.src;
    sec.dataset.complete = "";
  }).catch(function (err) {
    if (wait) wait.insertBefore(document.createTextNode("The count did not come: " + err.message + ". "), wait.firstChild);
  });
})();
