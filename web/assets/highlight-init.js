// File page: colours the source with highlight.js (vendor/highlight.min.js,
// built in by make). The server sends the lines escaped, one .l element
// per line across the hunks' code cells, which carry the language as a
// class. The whole file is highlighted at once, so strings and comments
// spanning lines keep their colour, and the result is cut back into lines,
// closing the spans open at each line's end and reopening them on the
// next. Without highlight.js the page stays as served, uncoloured.
// file.js loads this after the first screen is painted, and calls
// glossHighlight once the whole file is on the page.
(function () {
  "use strict";
  window.glossHighlight = highlight;

  function highlight() {
    var hljs = window.hljs;
    if (!hljs) return;
    var first = document.querySelector("pre.code[class*='language-']");
    if (!first) return;
    var m = /(?:^|\s)language-([\w-]+)/.exec(first.className);
    if (!m || !hljs.getLanguage(m[1])) return;
    var lines = document.querySelectorAll("pre.code .l");
    var text = [];
    for (var i = 0; i < lines.length; i++) text.push(lines[i].textContent.replace(/\n$/, ""));
    var out;
    try {
      out = hljs.highlight(text.join("\n"), { language: m[1], ignoreIllegals: true }).value;
    } catch (e) {
      return;
    }
    var split = splitLines(out);
    if (split.length !== lines.length) return; // never colour the wrong line
    for (var j = 0; j < lines.length; j++) lines[j].innerHTML = split[j] + "\n";
  }

  // splitLines cuts highlight.js's HTML (text escaped by it, markup only
  // <span class="..."> and </span>) at each newline.
  function splitLines(html) {
    var re = /<span class="[^"]*">|<\/span>|\n/g;
    var res = [], open = [], cur = "", last = 0, t;
    while ((t = re.exec(html))) {
      cur += html.slice(last, t.index);
      last = re.lastIndex;
      if (t[0] === "\n") {
        res.push(cur + "</span>".repeat(open.length));
        cur = open.join("");
      } else if (t[0] === "</span>") {
        open.pop();
        cur += t[0];
      } else {
        open.push(t[0]);
        cur += t[0];
      }
    }
    res.push(cur + html.slice(last) + "</span>".repeat(open.length));
    return res;
  }
})();
