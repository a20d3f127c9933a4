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
  // A note is anyone's text. "strict" escapes labels and turns off click
  // handlers, but HTML labels are still parsed into the page to be
  // measured (an <img onerror> in a label got that far, stopped only by
  // the Content Security Policy): labels are drawn as SVG text instead,
  // so a label's markup is only ever text.
  window.mermaid.initialize({
    startOnLoad: false,
    securityLevel: "strict",
    htmlLabels: false,
    flowchart: { htmlLabels: false },
    theme: dark ? "dark" : "default",
  });
  window.mermaid.run({ querySelector: ".mermaid" });
})();
