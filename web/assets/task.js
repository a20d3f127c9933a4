// Task page: a running task's log streams in (server-sent events).
(function () {
  "use strict";
  var log = document.getElementById("log");
  if (!log || log.dataset.live !== "true" || !window.EventSource) return;
  var state = document.getElementById("logstate");
  log.textContent = "";
  var es = new EventSource("/task/" + encodeURIComponent(log.dataset.id) + "/log");
  es.addEventListener("log", function (ev) {
    log.textContent += ev.data + "\n";
    log.scrollTop = log.scrollHeight;
  });
  es.addEventListener("end", function () {
    es.close();
    if (state) state.textContent = "the run has ended";
  });
})();
