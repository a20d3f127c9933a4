package noma

import (
	"path"
	"slices"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/gloss-dev/gloss/fault"
	"github.com/gloss-dev/gloss/lazyregexp"
)

// A book manifest (Annex B) lists chapter documents. The reference CLI
// validates a book as one document: the chapters' blocks concatenated,
// each chapter's headings below its title scoped by the chapter's slug
// (the original id kept as an alias), the manifest's title and author as
// metadata (loadBook in
// https://github.com/ferax564/noma/blob/95319db/src/book.ts). The MCP
// tools refuse manifests (Annex B); `git gloss doc check` reads them.

// CheckBook validates a book manifest as the reference CLI's `noma check`
// does.
func (s *Store) CheckBook(file string, opts ValidateOptions) (*CheckResult, error) {
	doc, err := s.LoadBook(file)
	if err != nil {
		return nil, err
	}
	return Check(doc, opts), nil
}

// IsBookManifest says whether a path names a book manifest (.yml or
// .yaml, any case), as the reference's isBookManifestPath.
func IsBookManifest(p string) bool { return isBookManifest(p) }

// LoadBook assembles a book's chapters into one document. Chapter paths
// are relative to the manifest and must stay in its directory, as the
// reference's default (it has --allow-external-paths; gloss does not).
func (s *Store) LoadBook(file string) (*Node, error) {
	rel, err := s.Rel(file)
	if err != nil {
		return nil, err
	}
	_, raw, err := s.ReadSource(rel)
	if err != nil {
		return nil, err
	}
	var manifest map[string]any
	if err := yaml.Unmarshal([]byte(raw), &manifest); err != nil || manifest == nil {
		return nil, fault.Usagef("book manifest must be a YAML object: %s", rel)
	}
	var chapters []string
	if list, ok := manifest["chapters"].([]any); ok {
		for _, c := range list {
			if s, ok := c.(string); ok {
				chapters = append(chapters, s)
			}
		}
	}
	if len(chapters) == 0 {
		return nil, fault.Usagef("book manifest has no chapters: %s", rel)
	}
	meta := map[string]any{}
	for _, k := range []string{"title", "author"} {
		if v, ok := manifest[k].(string); ok {
			meta[k] = v
		}
	}
	meta["book"] = map[string]any{"chapters": len(chapters), "manifest": rel}
	book := &Node{Type: TypeDocument, Meta: meta}
	base := path.Dir(rel)
	for _, ch := range chapters {
		p := path.Clean(path.Join(base, ch))
		if path.IsAbs(ch) || (base != "." && !strings.HasPrefix(p, base+"/")) || strings.HasPrefix(p, "../") || p == ".." {
			return nil, fault.Usagef("chapter path escapes the manifest directory: %s", ch)
		}
		_, src, err := s.ReadSource(p)
		if err != nil {
			return nil, err
		}
		doc, err := Parse(src)
		if err != nil {
			return nil, fault.Usagef("%s: %v", p, err)
		}
		scopeHeadingIDs(doc, chapterSlug(p, doc))
		for _, c := range doc.Children {
			if c.Type != TypeFrontmatter {
				book.Children = append(book.Children, c)
			}
		}
	}
	return book, nil
}

var (
	reSlugLead = lazyregexp.New(`^\d+[-_]`)
	reSlugRun  = lazyregexp.New(`[^a-z0-9-]+`)
)

// chapterSlug is the chapter's title id, or its file name made a slug.
func chapterSlug(p string, doc *Node) string {
	for _, c := range doc.Children {
		if c.Type == TypeSection && c.Level == 1 {
			if c.HasID && c.ID != "" {
				return c.ID
			}
			break
		}
	}
	stem := reSlugLead.ReplaceAllString(strings.TrimSuffix(strings.TrimSuffix(path.Base(p), ".noma"), ".NOMA"), "")
	return strings.Trim(reSlugRun.ReplaceAllString(strings.ToLower(stem), "-"), "-")
}

// scopeHeadingIDs prefixes every heading id below the chapter title with
// the chapter's slug, keeping the original as an alias.
func scopeHeadingIDs(doc *Node, slug string) {
	Walk(doc, func(n *Node) bool {
		if n.Type != TypeSection || n.Level == 1 || !n.HasID || n.ID == "" || strings.HasPrefix(n.ID, slug+"/") {
			return true
		}
		orig := n.ID
		n.ID = slug + "/" + orig
		if !slices.Contains(n.Aliases, orig) {
			n.Aliases = append(n.Aliases, orig)
		}
		return true
	})
}
