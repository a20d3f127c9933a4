package noma

import (
	"strconv"
	"strings"

	"github.com/gloss-dev/gloss/lazyregexp"
)

var reManyNewlines = lazyregexp.New(`\n{3,}`)

// Render writes a document back as .noma source. The output is
// normalised (tables re-padded, lists renumbered, breaks as ---), so
// patching never goes through it; render(parse(x)) re-parses to the same
// tree.
func Render(doc *Node) string {
	var parts []string
	head := "" // the frontmatter, kept byte for byte: blank lines can be YAML content
	for i, c := range doc.Children {
		if c.Type == TypeFrontmatter {
			if strings.Trim(c.Raw, "\n") != "" {
				head = renderNode(c, 2, doc.Meta)
			}
			continue
		}
		if i == 0 && c.Type == TypeBreak {
			// "---" on line 1 would open frontmatter on re-parse
			parts = append(parts, "***")
			continue
		}
		parts = append(parts, renderNode(c, 2, doc.Meta))
	}
	out := strings.Join(parts, "\n\n")
	out = reManyNewlines.ReplaceAllString(out, "\n\n")
	out = strings.TrimRight(out, "\n")
	switch {
	case head == "" && out == "":
		return ""
	case head == "":
		return out + "\n"
	case out == "":
		return head + "\n"
	}
	return head + "\n\n" + out + "\n"
}

func renderNode(n *Node, depth int, meta map[string]any) string {
	switch n.Type {
	case TypeFrontmatter:
		return "---\n" + n.Raw + "\n---"
	case TypeSection:
		var b strings.Builder
		lvl := min(max(n.Level, 1), 6)
		b.WriteString(strings.Repeat("#", lvl) + " " + n.Title)
		var attrs []Attr
		if n.HasID && n.ID != Slugify(n.Title) {
			attrs = append(attrs, Attr{"id", n.ID})
		}
		derivable := map[string]bool{}
		for _, a := range frontmatterAliases(meta) {
			derivable[a] = true
		}
		if f, ok := meta["filename"].(string); ok {
			derivable[filenameAlias(f)] = true
		}
		var own []string
		for _, a := range n.Aliases {
			if !derivable[a] {
				own = append(own, a)
			}
		}
		if len(own) > 0 {
			attrs = append(attrs, Attr{"aliases", strings.Join(own, ",")})
		}
		if len(attrs) > 0 {
			b.WriteString(" " + formatAttrs(attrs))
		}
		for _, c := range n.Children {
			b.WriteString("\n\n" + renderNode(c, depth, meta))
		}
		return b.String()
	case TypeDirective:
		// A content line made only of colons (or an opener at too shallow
		// a depth) must not close the directive on re-parse: use a deeper
		// fence than any such line (the reference does not; DEVIATIONS.md).
		if r := colonLines(n, depth); r >= depth {
			depth = r + 1
		}
		fence := strings.Repeat(":", depth)
		open := fence + n.Name + formatAttrs(n.Attrs)
		if len(n.Children) == 0 {
			if n.Body != "" {
				return open + "\n" + n.Body + "\n" + fence
			}
			return open + "\n" + fence
		}
		parts := make([]string, len(n.Children))
		for i, c := range n.Children {
			parts[i] = renderNode(c, depth+1, meta)
		}
		return open + "\n" + strings.Join(parts, "\n\n") + "\n" + fence
	case TypeParagraph:
		return n.Text
	case TypeCode:
		return "```" + n.Lang + "\n" + n.Text + "\n```"
	case TypeList:
		lines := make([]string, len(n.Children))
		for i, it := range n.Children {
			if n.Ordered {
				lines[i] = strconv.Itoa(i+1) + ". " + it.Text
			} else {
				lines[i] = "- " + it.Text
			}
		}
		return strings.Join(lines, "\n")
	case TypeListItem:
		return "- " + n.Text
	case TypeQuote:
		ql := strings.Split(n.Text, "\n")
		for i, l := range ql {
			if l == "" {
				ql[i] = ">"
			} else {
				ql[i] = "> " + l
			}
		}
		return strings.Join(ql, "\n")
	case TypeBreak:
		return "---"
	case TypeTable:
		return renderTable(n)
	}
	return ""
}

func renderTable(n *Node) string {
	cols := len(n.Header)
	w := make([]int, cols)
	for i := range w {
		w[i] = 3
	}
	measure := func(row []string) {
		for i := 0; i < cols && i < len(row); i++ {
			if l := utf16Len(row[i]); l > w[i] {
				w[i] = l
			}
		}
	}
	measure(n.Header)
	for _, r := range n.Rows {
		measure(r)
	}
	row := func(cells []string) string {
		var b strings.Builder
		b.WriteString("|")
		for i := 0; i < cols; i++ {
			c := ""
			if i < len(cells) {
				c = cells[i]
			}
			b.WriteString(" " + c + strings.Repeat(" ", w[i]-utf16Len(c)) + " |")
		}
		return b.String()
	}
	lines := []string{row(n.Header)}
	var sep strings.Builder
	sep.WriteString("|")
	for i := 0; i < cols; i++ {
		a := ""
		if i < len(n.Align) {
			a = n.Align[i]
		}
		var s string
		switch a {
		case "center":
			s = ":" + strings.Repeat("-", max(3, w[i]-2)) + ":"
		case "right":
			s = strings.Repeat("-", max(3, w[i]-1)) + ":"
		case "left":
			s = ":" + strings.Repeat("-", max(3, w[i]-1))
		default:
			s = strings.Repeat("-", max(3, w[i]))
		}
		sep.WriteString(" " + s + " |")
	}
	lines = append(lines, sep.String())
	for _, r := range n.Rows {
		lines = append(lines, row(r))
	}
	return strings.Join(lines, "\n")
}

// colonLines is the longest colon run among the colon-only and opener
// lines in n's descendant paragraphs that have at least min colons.
func colonLines(n *Node, min int) int {
	best := 0
	for _, c := range n.Children {
		switch c.Type {
		case TypeParagraph:
			for _, l := range strings.Split(c.Text, "\n") {
				if r := colonRun(l); r >= min && r > best && (isColonOnly(l) || matchOpener(l) != nil) {
					best = r
				}
			}
		case TypeDirective:
			best = max(best, colonLines(c, min))
		}
	}
	return best
}
