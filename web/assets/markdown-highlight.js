// Colours the fenced code blocks of rendered markdown (notes, document
// blocks) with highlight.js (vendor/highlight.min.js, built in by make).
// Runs after markdown-init.js, which made the blocks, and mermaid-init.js,
// which took the diagrams' blocks away. A language highlight.js does not
// know stays plain, as does everything without highlight.js.
(function () {
  "use strict";
  var hljs = window.hljs;
  if (!hljs) return;
  var blocks = document.querySelectorAll(".md pre > code[class*='language-']");
  for (var i = 0; i < blocks.length; i++) {
    var code = blocks[i];
    var m = /(?:^|\s)language-([\w+#.-]+)/.exec(code.className);
    if (!m || m[1] === "mermaid" || !hljs.getLanguage(m[1])) continue;
    try {
      code.innerHTML = hljs.highlight(code.textContent, { language: m[1], ignoreIllegals: true }).value;
    } catch (e) {
      // left plain
    }
  }
})();
