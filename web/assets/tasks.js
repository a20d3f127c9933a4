// Task board: follows the task list live (server-sent events carrying
// task list --json, whose list is named specs as in Chant) and moves the
// cards between columns.
(function () {
  "use strict";
  if (!window.EventSource) return;
  var live = document.getElementById("live");
  var es = new EventSource("/tasks/events");
  es.addEventListener("tasks", function (ev) {
    var list = JSON.parse(ev.data);
    var cols = {};
    document.querySelectorAll(".col").forEach(function (c) {
      cols[c.dataset.status] = c;
      c.querySelector("ul").textContent = "";
    });
    list.specs.forEach(function (t) {
      // The column is gloss's status (ready and blocked computed);
      // status is the stored one, as Chant answers it.
      var col = cols[t.effective_status || t.status];
      if (!col) return;
      var li = document.createElement("li");
      li.className = "taskcard";
      li.dataset.id = t.id;
      var a = document.createElement("a");
      a.href = "/task/" + encodeURIComponent(t.id);
      a.textContent = t.id;
      li.appendChild(a);
      li.appendChild(document.createTextNode(" " + t.title));
      if (t.depends_on && t.depends_on.length) {
        li.appendChild(document.createElement("br"));
        var s = document.createElement("span");
        s.className = "dim";
        s.textContent = "after " + t.depends_on.join(", ");
        li.appendChild(s);
      }
      col.querySelector("ul").appendChild(li);
    });
    Object.keys(cols).forEach(function (k) {
      cols[k].querySelector(".count").textContent = cols[k].querySelectorAll(".taskcard").length;
    });
    if (live) live.textContent = "live · updated " + new Date().toLocaleTimeString();
  });
  es.onerror = function () { if (live) live.textContent = "live updates paused; reload to refresh"; };
})();
