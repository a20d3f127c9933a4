// Notebook: BM25 search as you type, through the same call as
// git gloss note search --json. Without scripts the form submits.
(function () {
  "use strict";
  var q = document.getElementById("q");
  var out = document.getElementById("results");
  if (!q || !out || !window.fetch) return;
  var timer = 0, seq = 0;
  function render(res) {
    out.textContent = "";
    var h = document.createElement("h2");
    h.textContent = res.total + " result(s) for \u201c" + res.query + "\u201d";
    out.appendChild(h);
    var ol = document.createElement("ol");
    ol.className = "hits";
    res.results.forEach(function (r) {
      var li = document.createElement("li");
      var a = document.createElement("a");
      a.href = "/note/" + r.p.split("/").map(encodeURIComponent).join("/");
      a.textContent = r.t || r.p;
      li.appendChild(a);
      var p = document.createElement("span");
      p.className = "dim";
      p.textContent = " " + r.p;
      li.appendChild(p);
      li.appendChild(document.createElement("br"));
      var ex = document.createElement("span");
      ex.className = "excerpt";
      ex.textContent = r.ex || "";
      li.appendChild(ex);
      ol.appendChild(li);
    });
    out.appendChild(ol);
  }
  q.addEventListener("input", function () {
    clearTimeout(timer);
    timer = setTimeout(function () {
      var text = q.value.trim();
      var mine = ++seq;
      if (!text) { out.textContent = ""; return; }
      fetch("/notebook/search?format=json&q=" + encodeURIComponent(text), { credentials: "same-origin" })
        .then(function (r) { return r.ok ? r.json() : null; })
        .then(function (res) { if (res && mine === seq) render(res); })
        .catch(function () {});
    }, 120);
  });
})();
