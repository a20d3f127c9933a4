package agent

import (
	"bytes"
	"encoding/json"
	"strings"
)

// Finding where an edit is in a file. Agents describe edits as text
// (old_string/new_string, whole contents, patch hunks), not line numbers,
// so gloss finds the text in the file: before an edit in today's file (to
// know which regions the agent is about to change), after it in the new
// file (to know which lines the agent wrote).

// lineOf returns the 1-based line of byte offset off in content.
func lineOf(content string, off int) int {
	return strings.Count(content[:off], "\n") + 1
}

// locate returns the line ranges where text occurs in content: the first
// occurrence, or every one when all is set. The range covers every line
// the text touches, even partly.
func locate(content, text string, all bool) []LineRange {
	if text == "" {
		return nil
	}
	var out []LineRange
	from := 0
	for {
		i := strings.Index(content[from:], text)
		if i < 0 {
			break
		}
		start := from + i
		end := start + len(text)
		last := end
		if last > start && content[last-1] == '\n' {
			last-- // text ending with a newline ends on the line before
		}
		out = append(out, LineRange{Start: lineOf(content, start), End: lineOf(content, last)})
		if !all {
			break
		}
		from = end
	}
	return out
}

// locateLines finds a block of lines (a patch hunk's side) in the file's
// lines, comparing without surrounding whitespace as patch tools do when
// an exact match fails. It returns the index of the block's first line, or
// -1.
func locateLines(lines, block []string) int {
	if len(block) == 0 || len(block) > len(lines) {
		return -1
	}
	for _, cmp := range []func(a, b string) bool{
		func(a, b string) bool { return a == b },
		func(a, b string) bool { return strings.TrimSpace(a) == strings.TrimSpace(b) },
	} {
	outer:
		for i := 0; i+len(block) <= len(lines); i++ {
			for j, b := range block {
				if !cmp(lines[i+j], b) {
					continue outer
				}
			}
			return i
		}
	}
	return -1
}

// mergeLineRanges sorts ranges and joins those that overlap or touch.
func mergeLineRanges(rs []LineRange) []LineRange {
	if len(rs) == 0 {
		return nil
	}
	for i := 1; i < len(rs); i++ {
		for j := i; j > 0 && rs[j].Start < rs[j-1].Start; j-- {
			rs[j], rs[j-1] = rs[j-1], rs[j]
		}
	}
	out := []LineRange{rs[0]}
	for _, r := range rs[1:] {
		last := &out[len(out)-1]
		if r.Start <= last.End+1 {
			last.End = max(last.End, r.End)
			continue
		}
		out = append(out, r)
	}
	return out
}

// beforeRanges returns the lines of today's content an edit is about to
// change; whole is set when the edit replaces the file (or nothing could
// be found), so the caller should consider the whole file.
func beforeRanges(content string, op FileOp) (rs []LineRange, whole bool) {
	switch {
	case op.Content != nil:
		return nil, true
	case len(op.Hunks) > 0:
		lines := splitLines(content)
		for _, h := range op.Hunks {
			if i := locateLines(lines, h.Old); i >= 0 {
				rs = append(rs, LineRange{Start: i + 1, End: i + len(h.Old)})
			}
		}
	default:
		for _, r := range op.Replaces {
			rs = append(rs, locate(content, r.Old, r.All)...)
		}
	}
	if len(rs) == 0 {
		return nil, true
	}
	return mergeLineRanges(rs), false
}

// afterRanges returns the lines of the new content the edit wrote.
func afterRanges(content string, op FileOp) []LineRange {
	var rs []LineRange
	switch {
	case op.Added != nil:
		n := len(splitLines(content))
		for _, l := range op.Added {
			if l >= 1 && l <= n {
				rs = append(rs, LineRange{Start: l, End: l})
			}
		}
	case op.Content != nil:
		if n := len(splitLines(content)); n > 0 {
			rs = append(rs, LineRange{Start: 1, End: n})
		}
	case op.Cell != nil:
		rs = locateCell(content, *op.Cell)
	case len(op.Hunks) > 0:
		lines := splitLines(content)
		for _, h := range op.Hunks {
			i := locateLines(lines, h.New)
			if i < 0 {
				continue
			}
			for j, added := range h.Added {
				if added {
					rs = append(rs, LineRange{Start: i + j + 1, End: i + j + 1})
				}
			}
		}
	default:
		for _, r := range op.Replaces {
			rs = append(rs, locate(content, r.New, r.All)...)
		}
	}
	return mergeLineRanges(rs)
}

// locateCell finds a notebook cell's source in the .ipynb text: nbformat
// keeps it as a list of JSON strings, one line each ("x = 1\n",), or as
// one string. The list form is found line for line, compared without the
// indentation and the trailing comma; the one-string form is the line
// that holds it.
func locateCell(content, source string) []LineRange {
	if source == "" {
		return nil
	}
	var block []string
	for rest := source; rest != ""; {
		line, after, found := strings.Cut(rest, "\n")
		if found {
			line += "\n"
		}
		block = append(block, jsonString(line))
		rest = after
	}
	lines := splitLines(content)
	trimmed := make([]string, len(lines))
	for i, l := range lines {
		trimmed[i] = strings.TrimSuffix(strings.TrimSpace(l), ",")
	}
	if i := locateLines(trimmed, block); i >= 0 {
		return []LineRange{{Start: i + 1, End: i + len(block)}}
	}
	whole := jsonString(source)
	for i, l := range lines {
		if strings.Contains(l, whole) {
			return []LineRange{{Start: i + 1, End: i + 1}}
		}
	}
	return nil
}

// jsonString encodes s as JavaScript's JSON.stringify does (no HTML
// escapes), which is how notebook editors write it.
func jsonString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}
