package gitops

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"strconv"
	"strings"
)

// Git's own diff, parsed: the blame cache passes attribution through the
// hunks of `git diff -U0` run with blame's settings.

// fileDiff is one file of a parsed `git diff -U0`.
type fileDiff struct {
	oldPath, newPath string // "" for an added or deleted side
	binary           bool
	hunks            []Hunk
}

// commitDiff runs git's own diff between from and to (to "" is the working
// tree) with the settings blame uses, and parses its hunks.
func (r *Repo) commitDiff(ctx context.Context, from, to string, paths []string, renames bool) ([]fileDiff, error) {
	args := []string{"diff", "-U0", "--no-color", "--no-ext-diff", "--no-textconv", "--diff-algorithm=myers",
		"--src-prefix=a/", "--dst-prefix=b/", "--no-relative"}
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
	return parseUnifiedDiff(out)
}

// parseUnifiedDiff reads the file headers and hunk headers of git's diff
// output; the changed lines themselves are not needed.
func parseUnifiedDiff(out []byte) ([]fileDiff, error) {
	var files []fileDiff
	var cur *fileDiff
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 256<<20)
	for sc.Scan() {
		line := sc.Bytes()
		switch {
		case bytes.HasPrefix(line, []byte("diff --git ")):
			files = append(files, fileDiff{})
			cur = &files[len(files)-1]
		case cur == nil:
		case bytes.HasPrefix(line, []byte("--- ")):
			cur.oldPath = diffPath(string(line[4:]), "a/")
		case bytes.HasPrefix(line, []byte("+++ ")):
			cur.newPath = diffPath(string(line[4:]), "b/")
		case bytes.HasPrefix(line, []byte("rename from ")):
			cur.oldPath = unquote(string(line[len("rename from "):]))
		case bytes.HasPrefix(line, []byte("rename to ")):
			cur.newPath = unquote(string(line[len("rename to "):]))
		case bytes.HasPrefix(line, []byte("Binary files ")):
			cur.binary = true
		case bytes.HasPrefix(line, []byte("@@ ")):
			h, err := parseHunkHeader(string(line))
			if err != nil {
				return nil, err
			}
			cur.hunks = append(cur.hunks, h)
		}
	}
	return files, sc.Err()
}

func diffPath(s, prefix string) string {
	if s == "/dev/null" {
		return ""
	}
	s = unquote(s)
	return strings.TrimPrefix(s, prefix)
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

// parseHunkHeader reads "@@ -a[,b] +c[,d] @@".
func parseHunkHeader(line string) (Hunk, error) {
	f := strings.Fields(line)
	if len(f) < 3 {
		return Hunk{}, fmt.Errorf("bad hunk header %q", line)
	}
	os, ol, err1 := rangeOf(strings.TrimPrefix(f[1], "-"))
	ns, nl, err2 := rangeOf(strings.TrimPrefix(f[2], "+"))
	if err1 != nil || err2 != nil {
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
