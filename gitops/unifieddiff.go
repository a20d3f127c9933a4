package gitops

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"strconv"
	"strings"
)

// The one parser of unified diffs: git's own (the blame cache passes
// attribution through the hunks of `git diff -U0` run with blame's
// settings; stats counts the lines a range added) and other tools' (an
// agent's tool reports the diff of the edit it made).

// FileDiff is one file of a unified diff.
type FileDiff struct {
	// OldPath and NewPath are the file's paths before and after, as the
	// repository spells them: unquoted (git C-quotes unusual names), with
	// git's a/ and b/ prefixes dropped, and "" for the missing side of an
	// added or deleted file.
	OldPath, NewPath string
	Binary           bool
	Hunks            []DiffHunk
}

// DiffHunk is one hunk of a FileDiff: the ranges of its header, and the
// new-side numbers of the lines it adds.
type DiffHunk struct {
	Hunk
	Added []int
}

// Ranges returns the hunks' header ranges.
func (f *FileDiff) Ranges() []Hunk {
	out := make([]Hunk, len(f.Hunks))
	for i, h := range f.Hunks {
		out[i] = h.Hunk
	}
	return out
}

// Added returns the new-side numbers of every line the file's hunks add,
// in order.
func (f *FileDiff) Added() []int {
	var out []int
	for _, h := range f.Hunks {
		out = append(out, h.Added...)
	}
	return out
}

// diffArgs are the options every diff gloss parses is run with: no colour,
// no external diff or textconv, git's a/ and b/ prefixes whatever
// diff.noprefix or diff.mnemonicPrefix say, paths from the root.
var diffArgs = []string{"--no-color", "--no-ext-diff", "--no-textconv", "--src-prefix=a/", "--dst-prefix=b/", "--no-relative"}

// commitDiff runs git's own diff between from and to (to "" is the working
// tree) with the settings blame uses, and parses its hunks.
func (r *Repo) commitDiff(ctx context.Context, from, to string, paths []string, renames bool) ([]FileDiff, error) {
	args := append([]string{"diff", "-U0", "--diff-algorithm=myers"}, diffArgs...)
	if renames {
		args = append(args, "-M")
	} else {
		args = append(args, "--no-renames")
	}
	args = append(args, from)
	if to != "" {
		args = append(args, to)
	}
	if len(paths) > 0 {
		args = append(append(args, "--"), paths...)
	}
	out, err := r.Git(ctx, args...)
	if err != nil {
		return nil, err
	}
	return ParseUnifiedDiff(out)
}

// Diff runs `git diff -U0 <args>` with the options of diffArgs (args are
// revisions, diff options such as -M, and "--" with paths) and parses it.
func (r *Repo) Diff(ctx context.Context, args ...string) ([]FileDiff, error) {
	out, err := r.Git(ctx, append(append([]string{"diff", "-U0"}, diffArgs...), args...)...)
	if err != nil {
		return nil, err
	}
	return ParseUnifiedDiff(out)
}

// ParseUnifiedDiff reads a unified diff: git's (a "diff --git" header per
// file, with its extended headers) or another tool's (files that start
// at "--- "). A hunk's body is read by its header's counts, so a removed
// line that reads "-- x" is not taken for a file header.
func ParseUnifiedDiff(data []byte) ([]FileDiff, error) {
	var p diffParser
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 256<<20)
	for sc.Scan() {
		if err := p.line(sc.Text()); err != nil {
			return nil, err
		}
	}
	return p.files, sc.Err()
}

type diffParser struct {
	files   []FileDiff
	cur     *FileDiff
	git     bool // cur began with "diff --git": its paths carry a/ and b/
	sawOld  bool // cur has its "--- " line
	oldLeft int  // lines of the current hunk's old side still to come
	newLeft int  // and of its new side
	n       int  // the new-side number of the next body line
}

func (p *diffParser) start(git bool) {
	p.files = append(p.files, FileDiff{})
	p.cur, p.git, p.sawOld = &p.files[len(p.files)-1], git, false
}

func (p *diffParser) line(l string) error {
	if p.oldLeft > 0 || p.newLeft > 0 {
		if p.body(l) {
			return nil
		}
		p.oldLeft, p.newLeft = 0, 0 // a short hunk: read the line as a header
	}
	switch {
	case strings.HasPrefix(l, "diff --git "):
		p.start(true)
		p.cur.OldPath, p.cur.NewPath = gitHeaderPaths(l[len("diff --git "):])
	case strings.HasPrefix(l, "--- ") && (p.cur == nil || p.sawOld || len(p.cur.Hunks) > 0):
		p.start(false)
		p.sawOld = true
		p.cur.OldPath = p.headerPath(l[4:], "a/")
	case p.cur == nil && !strings.HasPrefix(l, "@@ "):
	case strings.HasPrefix(l, "--- "):
		p.sawOld = true
		p.cur.OldPath = p.headerPath(l[4:], "a/")
	case strings.HasPrefix(l, "+++ "):
		p.cur.NewPath = p.headerPath(l[4:], "b/")
	case strings.HasPrefix(l, "rename from "), strings.HasPrefix(l, "copy from "):
		_, name, _ := strings.Cut(l, " from ")
		p.cur.OldPath = unquote(name)
	case strings.HasPrefix(l, "rename to "), strings.HasPrefix(l, "copy to "):
		_, name, _ := strings.Cut(l, " to ")
		p.cur.NewPath = unquote(name)
	case strings.HasPrefix(l, "new file mode "):
		p.cur.OldPath = ""
	case strings.HasPrefix(l, "deleted file mode "):
		p.cur.NewPath = ""
	case strings.HasPrefix(l, "Binary files "), l == "GIT binary patch":
		p.cur.Binary = true
	case strings.HasPrefix(l, "@@ "):
		h, err := parseHunkHeader(l)
		if err != nil {
			return err
		}
		if p.cur == nil { // hunks without file headers: one file
			p.start(false)
		}
		p.cur.Hunks = append(p.cur.Hunks, DiffHunk{Hunk: h})
		p.oldLeft, p.newLeft, p.n = h.OldLines, h.NewLines, h.NewStart
	}
	return nil
}

// body reads one line of a hunk's body; false when it is none (the hunk
// was shorter than its header said).
func (p *diffParser) body(l string) bool {
	h := &p.cur.Hunks[len(p.cur.Hunks)-1]
	switch {
	case strings.HasPrefix(l, "+") && p.newLeft > 0:
		h.Added = append(h.Added, p.n)
		p.n++
		p.newLeft--
	case strings.HasPrefix(l, "-") && p.oldLeft > 0:
		p.oldLeft--
	case strings.HasPrefix(l, `\`): // "\ No newline at end of file"
	case (l == "" || l[0] == ' ') && p.oldLeft > 0 && p.newLeft > 0:
		// context; an empty line is one whose space a tool trimmed
		p.n++
		p.oldLeft--
		p.newLeft--
	default:
		return false
	}
	return true
}

// headerPath reads the name of a "--- " or "+++ " line: /dev/null is no
// file; git quotes unusual names and ends one holding a space with a tab;
// other tools follow the name with a tab and a label.
func (p *diffParser) headerPath(s, prefix string) string {
	name := s
	if q, err := strconv.QuotedPrefix(s); err == nil {
		name = unquote(q)
	} else if i := strings.IndexByte(s, '\t'); i >= 0 {
		name = s[:i]
	}
	if name == "/dev/null" {
		return ""
	}
	if p.git {
		name = strings.TrimPrefix(name, prefix)
	}
	return name
}

// gitHeaderPaths reads "a/OLD b/NEW" of a "diff --git" line, the only
// place a binary or mode-only change names its file. Unquoted names may
// hold spaces, so they are told apart only when both are the same name
// (a rename says its names in "rename from/to" lines).
func gitHeaderPaths(s string) (old, new string) {
	if q, err := strconv.QuotedPrefix(s); err == nil {
		rest := strings.TrimPrefix(s[len(q):], " ")
		if r, err := strconv.QuotedPrefix(rest); err == nil {
			rest = unquote(r)
		}
		return strings.TrimPrefix(unquote(q), "a/"), strings.TrimPrefix(rest, "b/")
	}
	if strings.HasSuffix(s, `"`) {
		if i := strings.LastIndex(s, ` "`); i >= 0 {
			return strings.TrimPrefix(s[:i], "a/"), strings.TrimPrefix(unquote(s[i+1:]), "b/")
		}
	}
	if len(s)%2 == 1 {
		a, b := s[:len(s)/2], s[len(s)/2+1:]
		if strings.HasPrefix(a, "a/") && strings.HasPrefix(b, "b/") && a[2:] == b[2:] {
			return a[2:], b[2:]
		}
	}
	return "", ""
}

// unquote undoes git's C-style quoting of unusual paths.
func unquote(s string) string {
	if len(s) >= 2 && s[0] == '"' {
		if u, err := strconv.Unquote(s); err == nil {
			return u
		}
	}
	return s
}

// HunkAdded returns the new-side numbers of the lines a hunk's body adds,
// the hunk starting at line newStart of the new side: for hunks that
// come as lists of lines (jsdiff's structuredPatch) rather than as a
// diff's text.
func HunkAdded(newStart int, body []string) []int {
	added := []int{}
	n := newStart
	for _, l := range body {
		switch {
		case strings.HasPrefix(l, "+"):
			added = append(added, n)
			n++
		case strings.HasPrefix(l, "-"), strings.HasPrefix(l, `\`):
		default:
			n++
		}
	}
	return added
}

// parseHunkHeader reads "@@ -a[,b] +c[,d] @@".
func parseHunkHeader(line string) (Hunk, error) {
	f := strings.Fields(line)
	if len(f) < 3 {
		return Hunk{}, fmt.Errorf("bad hunk header %q", line)
	}
	os, ol, err1 := rangeOf(strings.TrimPrefix(f[1], "-"))
	ns, nl, err2 := rangeOf(strings.TrimPrefix(f[2], "+"))
	if err1 != nil || err2 != nil || ol < 0 || nl < 0 {
		return Hunk{}, fmt.Errorf("bad hunk header %q", line)
	}
	return Hunk{OldStart: os, OldLines: ol, NewStart: ns, NewLines: nl}, nil
}

func rangeOf(s string) (start, count int, err error) {
	a, b, found := strings.Cut(s, ",")
	if start, err = strconv.Atoi(a); err != nil {
		return 0, 0, err
	}
	count = 1
	if found {
		count, err = strconv.Atoi(b)
	}
	return start, count, err
}
