package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/gloss-dev/gloss/atomicfile"
	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/why"
)

// ExecuteCommand runs the server's one command, gloss.showRecords: the
// full records of an anchor (no budget), as a markdown page the editor
// opens beside the code. The page is written under the git dir
// (gloss/lsp/), never into the working tree, and the command's result is
// the same markdown, for a client that shows it itself.
func (s *server) ExecuteCommand(ctx context.Context, p *protocol.ExecuteCommandParams) (protocol.LSPAny, error) {
	if p.Command != CommandShowRecords {
		return nil, jsonrpcInvalidParams(fmt.Sprintf("gloss lsp: unknown command %q (the server has %s)", p.Command, CommandShowRecords))
	}
	var u string
	var anchor string
	var line int
	if len(p.Arguments) != 3 || json.Unmarshal(p.Arguments[0], &u) != nil || json.Unmarshal(p.Arguments[1], &anchor) != nil || json.Unmarshal(p.Arguments[2], &line) != nil {
		return nil, jsonrpcInvalidParams("gloss lsp: gloss.showRecords takes [document uri, anchor name, line]")
	}
	d, err := s.document(uri.URI(u))
	if err != nil {
		return nil, err
	}
	var page, file string
	err = s.withView(d, func(v *view) error {
		regions, err := v.fullRecords(ctx, anchor)
		if err != nil {
			return err
		}
		page = recordsPage(v.d.rel, anchor, regions, s.webLink(v.rs, v.d.rel, line))
		file, err = writePage(v.rs.repo, v.d.rel, anchor, page)
		return err
	})
	if err != nil {
		return nil, answerError(err)
	}
	s.mu.Lock()
	canShow := s.caps.showDocument
	s.mu.Unlock()
	if canShow {
		yes := true
		if r, err := s.client.ShowDocument(ctx, &protocol.ShowDocumentParams{URI: uri.File(file), TakeFocus: &yes}); err != nil || !r.Success {
			s.notify(protocol.MessageTypeInfo, "gloss: the records of "+anchor+" are in "+file)
		}
	} else {
		s.notify(protocol.MessageTypeInfo, "gloss: the records of "+anchor+" are in "+file)
	}
	return jsonValue(page), nil
}

// fullRecords are every record in force for an anchor of the buffer (no
// budget), or with anchor "", those about the whole file.
func (v *view) fullRecords(ctx context.Context, anchor string) ([]why.RegionView, error) {
	if anchor == "" {
		res, err := v.wholeFile(ctx)
		if err != nil {
			return nil, err
		}
		var out []why.RegionView
		for _, r := range res.Regions {
			if r.Scope == "file" || r.Scope == "directory" {
				out = append(out, r)
			}
		}
		return out, nil
	}
	res, err := why.Read(ctx, v.rs.repo, why.Query{Path: v.d.rel, Anchor: anchor, Content: v.d.text, ContentBlame: v.contentBlame(ctx)})
	if err != nil {
		return nil, err
	}
	if len(res.Resolved.Anchors) == 0 {
		return nil, nil // not in the buffer (any more): the read fell back to the whole file
	}
	return res.Regions, nil
}

// recordsPage is the full records of an anchor, as markdown.
func recordsPage(rel, anchor string, regions []why.RegionView, web string) string {
	var b strings.Builder
	title := anchor
	if title == "" {
		title = "the whole file"
	}
	fmt.Fprintf(&b, "# %s — %s\n\n", inline(title), inline(rel))
	if len(regions) == 0 {
		b.WriteString("No decisions are in force for it.\n")
	}
	for _, r := range regions {
		title := firstLine(r.Intent)
		if title == "" {
			title = "record " + r.ID
		}
		fmt.Fprintf(&b, "## %s\n\n", inline(title))
		fmt.Fprintf(&b, "_%s · id %s_\n\n", recordBy(r), r.ID)
		if r.Reasoning != "" {
			fmt.Fprintf(&b, "%s\n\n", inline(r.Reasoning))
		}
		list := func(head string, items []string) {
			if len(items) == 0 {
				return
			}
			fmt.Fprintf(&b, "**%s**\n\n", head)
			for _, it := range items {
				fmt.Fprintf(&b, "- %s\n", it)
			}
			b.WriteString("\n")
		}
		var cons, rej, deps []string
		for _, c := range r.Constraints {
			cons = append(cons, inline(c.Text)+" _("+c.Source+")_")
		}
		for _, a := range r.RejectedAlternatives {
			t := inline(a.Text)
			if a.Reason != "" {
				t += " — " + inline(a.Reason)
			}
			rej = append(rej, t)
		}
		for _, dep := range r.Deps {
			deps = append(deps, inline(strings.TrimSpace(dep.File+" "+dep.Anchor+" "+dep.Nature)))
		}
		risks := make([]string, len(r.Risks))
		for i, k := range r.Risks {
			risks[i] = inline(k)
		}
		list("Constraints", cons)
		list("Rejected alternatives", rej)
		list("Risks", risks)
		list("Depends on", deps)
		if len(r.Tags) > 0 {
			fmt.Fprintf(&b, "Tags: %s\n\n", inline(strings.Join(r.Tags, ", ")))
		}
	}
	if web != "" {
		fmt.Fprintf(&b, "[Open the file in gloss serve](%s)\n", web)
	}
	return b.String()
}

// safeName keeps letters, digits, dot, dash and underscore of a name.
func safeName(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '-' {
			return r
		}
		return '_'
	}, s)
}

// writePage writes the page under the git dir, named for the file and
// the anchor, and returns its path.
func writePage(repo *gitops.Repo, rel, anchor, page string) (string, error) {
	dir := filepath.Join(repo.GitDir(), "gloss", "lsp")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("records page: %w", err)
	}
	name := safeName(rel + "." + anchor)
	if anchor == "" {
		name = safeName(rel)
	}
	if len(name) > 150 {
		name = name[len(name)-150:]
	}
	file := filepath.Join(dir, name+".md")
	if err := atomicfile.Write(file, []byte(page), 0o644); err != nil {
		return "", fmt.Errorf("records page: %w", err)
	}
	return file, nil
}
