package attribution

import (
	"github.com/gloss-dev/gloss/capture"
)

// compute decides the contributor of every line the target commit
// introduced (gathered by input.gather), in named stages, each with its own table test (compute_test.go):
//
//  1. changedLines: the lines the commit introduced, and their hashes;
//  2. indexClaims: the captured edits by file and line hash;
//  3. matchLines: a line carried over from the commit's sources (a
//     rewrite or a squash), else one whose text a source or an agent's
//     edit wrote;
//  4. dropTrivialRuns: a run of lines matched by the capture that holds
//     none of the agent's real lines ("}", a blank) proves nothing;
//  5. fillBlocks: in a block of added lines with the agent's, a line
//     between them or where the agent's edit left its lines is mixed;
//     other lines of a commit with captured lines are the person's;
//     without capture, an agent-authored annotation of the region, then
//     the commit's author, trailers and the agent run's environment, else
//     the person.
func compute(in *input, comp computation) *Record {
	claims := indexClaims(comp.claims)
	env := comp.env
	if env == nil {
		env = func(string) string { return "" }
	}
	d := defaults{captured: claims.matchAny(in.files), signal: signalOf(in.commit, env), regions: agentRegions(in.annotations)}
	d.person = Contributor{Type: Human, Basis: BasisAuthor}
	if d.captured {
		d.person.Basis = BasisCapture
	}
	b := newBuilder(in.commit.ID, comp.source)
	b.rec.DerivedFrom = comp.derived
	b.rec.Supersedes = comp.supersedes
	for _, f := range in.files {
		m := matchLines(f, comp.carried[f.path], comp.byHash[f.path], claims.byHash[f.path])
		dropTrivialRuns(f, m)
		fillBlocks(f, m, claims.written[f.path], d)
		b.add(f.path, f.lines, m.cs)
	}
	rec := b.record()
	return &rec
}

// claimIndex is the captured edits by file: the latest edit that wrote
// each line hash, and the line ranges the edits left.
type claimIndex struct {
	byHash  map[string]map[string]*capture.Edit
	written map[string][][2]int
}

func indexClaims(claims []capture.Edit) claimIndex {
	ix := claimIndex{byHash: map[string]map[string]*capture.Edit{}, written: map[string][][2]int{}}
	for i := range claims {
		cl := &claims[i]
		for _, r := range cl.Lines {
			ix.written[cl.File] = append(ix.written[cl.File], [2]int{r.Start, r.End})
		}
		m := ix.byHash[cl.File]
		if m == nil {
			m = map[string]*capture.Edit{}
			ix.byHash[cl.File] = m
		}
		for _, h := range cl.Hashes {
			m[h] = cl
		}
	}
	return ix
}

// matchAny reports whether a captured edit wrote one of the files' real
// (non-trivial) lines: then the commit's other lines are the person's.
func (ix claimIndex) matchAny(files []fileLines) bool {
	for _, f := range files {
		for i, h := range f.hashes {
			if ix.byHash[f.path][h] != nil && !f.trivial[i] {
				return true
			}
		}
	}
	return false
}

// matched is what matchLines decided of one file's lines, parallel to
// its lines.
type matched struct {
	cs        []Contributor
	decided   []bool
	byCapture []bool
}

// matchLines decides the lines of f that a source or the capture names:
// a carried contributor first, then a source's contributor of the same
// text (not a person's), then the latest captured edit of that text.
func matchLines(f fileLines, carried lineMap, sources map[string]*Contributor, edits map[string]*capture.Edit) matched {
	m := matched{cs: make([]Contributor, len(f.lines)), decided: make([]bool, len(f.lines)), byCapture: make([]bool, len(f.lines))}
	for i, l := range f.lines {
		if l <= len(carried) && carried[l-1] != nil {
			m.cs[i], m.decided[i] = *carried[l-1], true
			continue
		}
		if c := sources[f.hashes[i]]; c != nil && c.Type != Human {
			m.cs[i], m.decided[i] = *c, true
			continue
		}
		if cl := edits[f.hashes[i]]; cl != nil {
			m.cs[i] = Contributor{Type: AI, Agent: cl.Agent, Model: cl.Model, Session: cl.Session, Basis: BasisCapture}
			m.decided[i], m.byCapture[i] = true, true
		}
	}
	return m
}

// dropTrivialRuns undoes the capture's match of a run of consecutive
// lines that are all trivial ("}", a blank): their text alone proves
// nothing. A run with one of the agent's real lines is kept whole.
func dropTrivialRuns(f fileLines, m matched) {
	for s := 0; s < len(f.lines); {
		if !m.byCapture[s] {
			s++
			continue
		}
		e, real := s, !f.trivial[s]
		for e+1 < len(f.lines) && m.byCapture[e+1] && f.lines[e+1] == f.lines[e]+1 {
			e++
			real = real || !f.trivial[e]
		}
		for i := s; i <= e && !real; i++ {
			m.byCapture[i], m.decided[i] = false, false
		}
		s = e + 1
	}
}

// defaults is what decides a line nothing matched.
type defaults struct {
	captured bool         // the commit has captured lines
	signal   *Contributor // the commit's own agent signal
	regions  regionsByAgent
	person   Contributor
}

// fillBlocks decides the lines left, by blocks of consecutive added
// lines: in a block with the agent's lines, a line whose text is not the
// agent's but that lies between them, or where an agent's edit left its
// lines (written), is mixed — a person changed it; the person's lines
// around them are not.
func fillBlocks(f fileLines, m matched, written [][2]int, d defaults) {
	for s := 0; s < len(f.lines); {
		e := s
		for e+1 < len(f.lines) && f.lines[e+1] == f.lines[e]+1 {
			e++
		}
		first, last := -1, -1
		for i := s; i <= e; i++ {
			if m.byCapture[i] {
				if first < 0 {
					first = i
				}
				last = i
			}
		}
		var agent *Contributor
		if first >= 0 {
			agent = &m.cs[first]
		}
		for i := s; i <= e; i++ {
			if m.decided[i] {
				continue
			}
			switch {
			case agent != nil && (first < i && i < last || within(written, f.lines[i])):
				m.cs[i] = Contributor{Type: Mixed, Agent: agent.Agent, Model: agent.Model, Session: agent.Session, Basis: BasisCapture}
			case d.captured:
				m.cs[i] = d.person
			default:
				m.cs[i] = d.fallback(f.path, f.lines[i])
			}
		}
		s = e + 1
	}
}

// fallback is the contributor of a line of a commit without captured
// lines: an agent-authored annotation of its region, else the commit's
// own signal, else the person.
func (d defaults) fallback(path string, line int) Contributor {
	if a := d.regions.at(path, line); a != nil {
		return *a
	}
	if d.signal != nil {
		return *d.signal
	}
	return d.person
}

// within reports whether line is in one of ranges.
func within(ranges [][2]int, line int) bool {
	for _, r := range ranges {
		if r[0] <= line && line <= r[1] {
			return true
		}
	}
	return false
}
