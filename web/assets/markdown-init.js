// Renders the markdown of a note or of a document's blocks. The server
// sends each source escaped in a <pre class="md-source" data-markdown=KIND>,
// which is what the page shows with scripts off or in a binary built
// without marked and DOMPurify (vendor/, built in by make). Here marked
// (CommonMark and GitHub's tables, task lists and strikethrough) renders
// it, raw HTML in the source is shown as text rather than passed on (as
// goldmark did on the server before: a note is data, not markup), and
// DOMPurify sanitizes what marked made (javascript: links and the like)
// before it enters the page. Runs before mermaid-init.js, which draws the
// ```mermaid blocks this leaves as <pre><code class="language-mermaid">.
(function () {
  "use strict";
  var marked = window.marked, purify = window.DOMPurify;
  if (!marked || !marked.Marked || !purify || !purify.isSupported) return;

  function esc(s) {
    return String(s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
  }

  var base = {
    gfm: true,
    renderer: {
      // Raw HTML of the note, block or inline: shown as its text.
      html: function (token) {
        return esc(token.text);
      },
      // GFM task-list boxes are read-only; give them a name a screen
      // reader can say.
      checkbox: function (token) {
        return '<input type="checkbox" disabled=""' + (token.checked ? ' checked="" aria-label="done"' : ' aria-label="not done"') + "> ";
      }
    }
  };

  // [[id]] in a document block links to the block with that id on the page.
  var blockRef = {
    name: "blockRef",
    level: "inline",
    start: function (src) {
      var i = src.indexOf("[[");
      return i < 0 ? undefined : i;
    },
    tokenizer: function (src) {
      var m = /^\[\[([A-Za-z0-9_.:-]+)\]\]/.exec(src);
      if (m) return { type: "blockRef", raw: m[0], id: m[1] };
    },
    renderer: function (token) {
      return '<a href="#b-' + esc(token.id) + '">[[' + esc(token.id) + "]]</a>";
    }
  };

  var renderers = {
    note: new marked.Marked(base),
    doc: new marked.Marked(base, { extensions: [blockRef] })
  };

  var sources = document.querySelectorAll("pre.md-source[data-markdown]");
  for (var i = 0; i < sources.length; i++) {
    var pre = sources[i];
    var md = renderers[pre.getAttribute("data-markdown")];
    if (!md) continue;
    var frag;
    try {
      frag = purify.sanitize(md.parse(pre.textContent), { RETURN_DOM_FRAGMENT: true });
    } catch (e) {
      continue; // the source stays as served
    }
    pre.replaceWith(frag);
  }
})();
