package lsp

import (
	"bytes"

	"github.com/sergi/go-diff/diffmatchpatch"
)

// lineMap relates the lines of an editor's buffer to those of the saved
// file: which buffer lines are unsaved edits, and where the others are in
// the file. Line attribution (who wrote a line, which commit) is recorded
// for committed lines and blamed on the saved file, so a buffer line is
// looked up at its file line.
type lineMap struct {
	toFile  []int // per buffer line (index line-1): its line in the file, 0 when unsaved
	changed bool  // some line differs
}

// newLineMap diffs the buffer against the saved file line by line
// (sergi/go-diff's diff-match-patch over lines), after setting aside the
// common head and tail, which is all of it but the edit in the usual case.
func newLineMap(file, buffer []byte) lineMap {
	fl, bl := splitKeep(file), splitKeep(buffer)
	m := lineMap{toFile: make([]int, len(bl))}
	head := 0
	for head < len(fl) && head < len(bl) && bytes.Equal(fl[head], bl[head]) {
		m.toFile[head] = head + 1
		head++
	}
	tail := 0
	for tail < len(fl)-head && tail < len(bl)-head && bytes.Equal(fl[len(fl)-1-tail], bl[len(bl)-1-tail]) {
		m.toFile[len(bl)-1-tail] = len(fl) - tail
		tail++
	}
	if head+tail == len(fl) && head+tail == len(bl) {
		return m
	}
	m.changed = true
	midF, midB := fl[head:len(fl)-tail], bl[head:len(bl)-tail]
	if len(midF) == 0 || len(midB) == 0 {
		return m // pure insertion or deletion: the middle lines stay 0
	}
	dmp := diffmatchpatch.New()
	dmp.DiffTimeout = 0
	a, b, _ := dmp.DiffLinesToRunes(string(bytes.Join(midF, nil)), string(bytes.Join(midB, nil)))
	fi, bi := head, head
	for _, d := range dmp.DiffMainRunes(a, b, false) {
		n := len([]rune(d.Text))
		switch d.Type {
		case diffmatchpatch.DiffEqual:
			for k := 0; k < n; k++ {
				m.toFile[bi+k] = fi + k + 1
			}
			fi, bi = fi+n, bi+n
		case diffmatchpatch.DiffDelete:
			fi += n
		case diffmatchpatch.DiffInsert:
			bi += n
		}
	}
	return m
}

// fileLine is the saved file's line of buffer line l (1-based), or 0
// when the line is an unsaved edit or out of range.
func (m lineMap) fileLine(l int) int {
	if l < 1 || l > len(m.toFile) {
		return 0
	}
	return m.toFile[l-1]
}

// splitKeep splits text into lines, each with its newline, as the
// diff's line mode compares them.
func splitKeep(text []byte) [][]byte {
	var out [][]byte
	for len(text) > 0 {
		i := bytes.IndexByte(text, '\n')
		if i < 0 {
			out = append(out, text)
			break
		}
		out = append(out, text[:i+1])
		text = text[i+1:]
	}
	return out
}
