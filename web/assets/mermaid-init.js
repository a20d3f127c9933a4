// Draws the note's mermaid diagrams in place of their source.
(function () {
  "use strict";
  if (!window.mermaid) return;
  var blocks = document.querySelectorAll("code.language-mermaid");
  blocks.forEach(function (code) {
    var div = document.createElement("div");
    div.className = "mermaid";
    div.textContent = code.textContent;
    var pre = code.parentNode;
    pre.parentNode.replaceChild(div, pre);
  });
  var dark = window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches;
  window.mermaid.initialize({ startOnLoad: false, securityLevel: "strict", theme: dark ? "dark" : "default" });
  window.mermaid.run({ querySelector: ".mermaid" });
})();
