// File page: keyboard navigation between hunks and annotations, and a
// click on a hunk's gutter opens its annotation. Without this script the
// gutter links still jump to the annotation and <details> still opens.
(function () {
  "use strict";
  // Long lines wrap or scroll, as the person chose last time (kept in
  // this browser's storage for every file page of every repository).
  var wrap = document.getElementById("wrap");
  var blame = document.querySelector(".blame");
  if (wrap && blame) {
    document.getElementById("wrapctl").hidden = false;
    var stored = null;
    try { stored = window.localStorage.getItem("gloss.wrap"); } catch (e) { /* storage off */ }
    wrap.checked = stored === "1";
    blame.classList.toggle("wrapcode", wrap.checked);
    wrap.addEventListener("change", function () {
      blame.classList.toggle("wrapcode", wrap.checked);
      try { window.localStorage.setItem("gloss.wrap", wrap.checked ? "1" : "0"); } catch (e) { /* storage off */ }
    });
  }
  var hunks = [];
  var current = -1;
  function select(i, scroll) {
    if (i < 0 || i >= hunks.length) return;
    if (current >= 0) hunks[current].classList.remove("current");
    current = i;
    var h = hunks[i];
    h.classList.add("current");
    var g = h.querySelector(".gutter");
    if (g) g.focus({ preventScroll: true });
    if (scroll !== false) h.scrollIntoView({ block: "center" });
  }
  // card is the annotation a hunk opens: its own, else, in a function
  // with decisions, the card heading the function.
  function card(h) {
    var d = h.querySelector("details.ann");
    if (!d && h.parentNode.classList.contains("scope")) d = h.parentNode.querySelector(":scope > details.scopecard");
    return d;
  }
  function open(i) {
    var d = hunks[i] && card(hunks[i]);
    if (d) d.open = !d.open;
  }
  function step(dir, annotatedOnly) {
    var i = current;
    for (;;) {
      i += dir;
      if (i < 0 || i >= hunks.length) return;
      if (!annotatedOnly || hunks[i].classList.contains("annotated") || hunks[i].classList.contains("scopestart")) return select(i);
    }
  }
  // bind takes the hunks on the page (again after the rest of a long
  // file came) and makes their gutters open their cards.
  function bind() {
    hunks = Array.prototype.slice.call(document.querySelectorAll(".hunk"));
    hunks.forEach(function (h, i) {
      var g = h.querySelector(".gutter");
      if (!g || g.dataset.bound) return;
      g.dataset.bound = "1";
      g.addEventListener("click", function (e) {
        e.preventDefault();
        select(i, false);
        open(i);
      });
    });
  }
  // jump selects the hunk of the line the address names (#L120); false
  // when that line is not on the page (yet).
  var jumped = false;
  function jump() {
    var m = /^#L(\d+)$/.exec(location.hash);
    if (!m) return true;
    var n = +m[1];
    for (var i = 0; i < hunks.length; i++) {
      if (+hunks[i].dataset.start <= n && n <= +hunks[i].dataset.end) {
        select(i, false);
        var l = document.getElementById("L" + n);
        if (l && jumped === null) l.scrollIntoView({ block: "center" });
        return true;
      }
    }
    return false;
  }
  // A long file's page holds its first screen; the rest is fetched once
  // that is painted and appended, then coloured and bound. Should it
  // fail (the file changed meanwhile), the note says so and keeps the
  // link to the whole file.
  function rest() {
    var src = blame && blame.dataset.rest;
    if (!src) return Promise.resolve();
    var note = document.getElementById("rest");
    return fetch(src, { credentials: "same-origin" }).then(function (r) {
      if (!r.ok) throw new Error(r.status === 409 ? "the file changed since this page was sent: reload it" : "the server answered " + r.status);
      return r.text();
    }).then(function (html) {
      blame.insertAdjacentHTML("beforeend", html);
      delete blame.dataset.rest;
      blame.dataset.complete = "";
      if (note) note.remove();
      bind();
      if (!jumped) {
        jumped = null; // the browser did not scroll to it: we do
        jump();
      }
    }).catch(function (err) {
      if (note) note.insertBefore(document.createTextNode("The rest of the file did not come: " + err.message + ". "), note.firstChild);
    });
  }
  bind();
  // script loads one script of the page's own.
  function script(src) {
    return new Promise(function (done, fail) {
      var s = document.createElement("script");
      s.src = src;
      s.onload = done;
      s.onerror = fail;
      document.head.appendChild(s);
    });
  }
  // After the first screen is painted — neither the rest's megabytes nor
  // highlight.js's grammars may hold its first frame back — the rest of
  // a long file is fetched and highlight.js loaded; once both are in,
  // the whole file is coloured at once.
  function later() {
    var srcs = blame && blame.dataset.highlight ? blame.dataset.highlight.split(" ") : [];
    var loaded = srcs.reduce(function (p, src) { return p.then(function () { return script(src); }); }, Promise.resolve());
    Promise.all([loaded, rest()]).then(function () {
      if (srcs.length && window.glossHighlight) window.glossHighlight();
    }, function () { /* said in the page, or left uncoloured */ });
  }
  requestAnimationFrame(function () { setTimeout(later, 0); });
  document.addEventListener("keydown", function (e) {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    var t = e.target;
    if (t && (t.tagName === "INPUT" || t.tagName === "TEXTAREA")) return;
    switch (e.key) {
      case "j": step(1, false); break;
      case "k": step(-1, false); break;
      case "n": step(1, true); break;
      case "p": step(-1, true); break;
      case "Enter": if (current >= 0 && t && t.classList && t.classList.contains("gutter")) open(current); else return; break;
      default: return;
    }
    e.preventDefault();
  });
  jumped = jump();
})();
