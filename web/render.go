package web

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/gloss-dev/gloss/attribution"
	"github.com/gloss-dev/gloss/fault"
	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/review"
	"github.com/gloss-dev/gloss/schemas"
	"github.com/gloss-dev/gloss/why"
)

//go:embed templates/*.html
var templateFS embed.FS

// assetFS holds the stylesheet and scripts, and under vendor/ what make
// builds from the npm registry (mermaid, highlight.js, marked, DOMPurify);
// a build without them still serves every page, with diagrams and
// markdown shown as source and code uncoloured.
//
//go:embed assets
var assetFS embed.FS

type pages struct {
	byName map[string]*template.Template
}

var funcs = template.FuncMap{
	"short": gitops.ShortID,
	"age":   age,
	"day": func(t string) string {
		if len(t) >= 10 {
			return t[:10]
		}
		return t
	},
	"join":      strings.Join,
	"add":       func(a, b int) int { return a + b },
	"hasPrefix": strings.HasPrefix,
	"markdown":  renderMarkdown,
	"pct":       pct,
	"sum":       func(t attribution.Totals) int { return t.Human + t.AI + t.Mixed + t.Unknown },
	"refname":   func(r string) string { return strings.TrimPrefix(r, "refs/notes/") },
	"rankTitle": review.RankTitle,
	"sub":       func(a, b int) int { return a - b },
	"shortSession": func(s string) string {
		if len(s) > 12 {
			return s[:12] + "…"
		}
		return s
	},
	"inFile": func(path string, r *why.RegionView) regionIn { return regionIn{Path: path, R: r} },
}

// loadPages parses each page with the shared layout.
func loadPages() (*pages, error) {
	names, err := fs.Glob(templateFS, "templates/*.html")
	if err != nil {
		return nil, err
	}
	p := &pages{byName: map[string]*template.Template{}}
	for _, n := range names {
		base := strings.TrimSuffix(strings.TrimPrefix(n, "templates/"), ".html")
		if base == "layout" {
			continue
		}
		t, err := template.New("layout.html").Funcs(funcs).ParseFS(templateFS, "templates/layout.html", n)
		if err != nil {
			return nil, fmt.Errorf("template %s: %w", n, err)
		}
		p.byName[base] = t
	}
	return p, nil
}

// view is what every page template gets.
type view struct {
	Title   string
	Nav     string // which nav entry is current
	Scripts []string
	Data    any
}

// page renders a page, or its JSON twin when ?format=json: then twin is
// written in the shared encoding, the bytes the CLI's --json prints.
func (s *Server) page(w http.ResponseWriter, r *http.Request, name string, v view, twin any) {
	if r.URL.Query().Get("format") == "json" {
		writeJSON(w, twin)
		return
	}
	t := s.pages.byName[name]
	if t == nil {
		s.fail(w, r, fmt.Errorf("no page %s", name))
		return
	}
	var buf bytes.Buffer
	if d, ok := v.Data.(fileData); ok {
		buf.Grow(len(d.HunksHTML) + 16<<10)
	}
	if err := t.Execute(&buf, v); err != nil {
		s.fail(w, r, fmt.Errorf("render %s: %w", name, err))
		return
	}
	for _, sc := range v.Scripts {
		if sc == "vendor/mermaid.min.js" {
			w.Header().Set("Content-Security-Policy", csp(true))
		}
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	writeProgressively(w, buf.Bytes())
}

// firstScreenHunks is how many hunks of a file page go out before the
// rest: more than a screen holds.
const firstScreenHunks = 60

// writeProgressively sends a page's head and its first screen of hunks
// and flushes them, then the rest: the browser paints the first screen of
// a long file while the megabytes after it are still on their way.
func writeProgressively(w http.ResponseWriter, page []byte) {
	cut, from := -1, 0
	for range firstScreenHunks {
		i := bytes.Index(page[from:], []byte(`<div class="hunk`))
		if i < 0 {
			break
		}
		cut, from = from+i, from+i+1
	}
	if cut <= 0 || len(page) < 256<<10 {
		_, _ = w.Write(page)
		return
	}
	_, _ = w.Write(page[:cut])
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
	_, _ = w.Write(page[cut:])
}

// writeJSON writes v as the CLI's --json does: the shared encoding and a
// newline.
func writeJSON(w http.ResponseWriter, v any) {
	data, err := schemas.Encode(v)
	if err != nil {
		refuse(w, http.StatusInternalServerError, err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(append(data, '\n'))
}

// fail answers an error with the status its kind maps to: JSON for the
// twins (the CLI's error object), a page for people.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, err error) {
	code := http.StatusInternalServerError
	kind := "internal"
	switch fault.KindOf(err) {
	case fault.Usage:
		code, kind = http.StatusBadRequest, "usage"
	case fault.NotFound:
		code, kind = http.StatusNotFound, "not_found"
	case fault.Conflict:
		code, kind = http.StatusConflict, "conflict"
	case fault.Check:
		code, kind = http.StatusUnprocessableEntity, "check"
	}
	if errors.Is(err, fs.ErrNotExist) {
		code, kind = http.StatusNotFound, "not_found"
	}
	if code == http.StatusInternalServerError {
		slog.Error("serve", "path", r.URL.Path, "err", err)
	}
	if r.URL.Query().Get("format") == "json" {
		w.WriteHeader(code)
		writeJSON(w, schemas.ErrorOutput{Schema: "gloss-error/v1", Error: err.Error(), Kind: kind})
		return
	}
	w.WriteHeader(code)
	t := s.pages.byName["error"]
	if t == nil || t.Execute(w, view{Title: http.StatusText(code), Data: err.Error()}) != nil {
		fmt.Fprintln(w, err)
	}
}

// age says how long ago an RFC 3339 time was, the way a gutter shows it.
func age(t string) string {
	tt, err := time.Parse(time.RFC3339, t)
	if err != nil {
		return ""
	}
	d := time.Since(tt)
	switch {
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	case d < 60*24*time.Hour:
		return fmt.Sprintf("%dd", int(d.Hours()/24))
	case d < 2*365*24*time.Hour:
		return fmt.Sprintf("%dmo", int(d.Hours()/24/30))
	}
	return fmt.Sprintf("%dy", int(d.Hours()/24/365))
}
