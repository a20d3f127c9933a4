package attribution

import (
	"bytes"
	"crypto/sha1"
	"encoding/gob"
	"encoding/hex"
	"hash"
	"strconv"
	"time"

	"github.com/gloss-dev/gloss/annotate"
	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/notes"
)

// blameView is what blame adds to git blame's answer: each line's
// contributor and each hunk's intent. A whole file names hundreds of
// commits, whose notes (attribution and annotations) cost more to read and
// decode than the cached blame itself, so the view is kept in gloss's
// cache beside the blames, keyed by the blamed lines and the tips of both
// notes refs: any new record, sync or rewrite gives a new key.
type blameView struct {
	Contributors []Contributor
	Line         []uint16    // per blamed line: index into Contributors
	Intents      [][2]string // per hunk: intent and annotation id
	ValidUntil   int64       // unix seconds; 0 forever. The earliest expiry among the records used
}

// viewCacheVersion changes when the view's shape or its derivation does.
const viewCacheVersion = "gloss-blame-view v1"

// cachedView returns the view of a blame, from the cache when it holds it.
func cachedView(repo *gitops.Repo, b *gitops.Blame) *blameView {
	key := viewKey(repo, b)
	if data := repo.LoadCached("attribution", key); data != nil {
		var v blameView
		if gob.NewDecoder(bytes.NewReader(data)).Decode(&v) == nil && len(v.Line) == len(b.Lines) && (v.ValidUntil == 0 || time.Now().Unix() < v.ValidUntil) {
			return &v
		}
	}
	v := buildView(repo, b)
	if len(v.Contributors) <= 1<<16 {
		var buf bytes.Buffer
		if gob.NewEncoder(&buf).Encode(v) == nil {
			repo.StoreCached("attribution", key, buf.Bytes())
		}
	}
	return v
}

// viewKey names a blame's view: the blamed lines (commit, path and line
// at that commit) and the tips of the notes refs the view is read from.
func viewKey(repo *gitops.Repo, b *gitops.Blame) string {
	h := sha1.New()
	h.Write([]byte(viewCacheVersion + "\x00"))
	for _, ref := range []string{Ref, notes.Annotations} {
		tip, _ := repo.RefTarget(ref)
		h.Write([]byte(tip + "\x00"))
	}
	writeLines(h, b)
	return hex.EncodeToString(h.Sum(nil))
}

func writeLines(h hash.Hash, b *gitops.Blame) {
	var buf []byte
	for _, l := range b.Lines {
		buf = append(buf[:0], l.Commit...)
		buf = append(buf, 0)
		buf = append(buf, l.OrigPath...)
		buf = append(buf, 0)
		buf = strconv.AppendInt(buf, int64(l.OrigLine), 10)
		buf = strconv.AppendInt(append(buf, ' '), int64(l.Line), 10)
		buf = append(buf, '\n')
		h.Write(buf)
	}
}

// buildView reads the attribution and annotation notes of the blamed
// commits (one pass over each ref) and looks every line up.
func buildView(repo *gitops.Repo, b *gitops.Blame) *blameView {
	var commits []string
	seen := map[string]bool{}
	for _, l := range b.Lines {
		if l.Commit != gitops.Uncommitted && !seen[l.Commit] {
			seen[l.Commit] = true
			commits = append(commits, l.Commit)
		}
	}
	attrs, err := readAttribution(repo, commits)
	if err != nil {
		attrs = nil
	}
	now := time.Now()
	in, until := newIntents(repo, commits, now)
	v := &blameView{Line: make([]uint16, len(b.Lines)), ValidUntil: until}
	index := map[Contributor]int{}
	for i, l := range b.Lines {
		c := unknownLine
		if l.Commit == gitops.Uncommitted {
			c = uncommittedLine
		} else if got := attrs[l.Commit].line(l.OrigPath, l.OrigLine); got != nil {
			c = *got
		}
		k, ok := index[c]
		if !ok {
			k = len(v.Contributors)
			index[c] = k
			v.Contributors = append(v.Contributors, c)
		}
		v.Line[i] = uint16(min(k, 1<<16-1))
		if i == 0 || l.Commit != b.Lines[i-1].Commit || l.Line != b.Lines[i-1].Line+1 {
			var intent [2]string
			if l.Commit != gitops.Uncommitted {
				intent[0], intent[1] = in.at(l.Commit, l.OrigPath, l.OrigLine)
			}
			v.Intents = append(v.Intents, intent)
		}
	}
	return v
}

// intents finds the annotation covering a blamed line.
type intents struct {
	byCommit map[string][]annotate.Decoded
}

// newIntents reads the live annotations of commits; until is the earliest
// expiry to come among them (0 when none expires), after which the answer
// may change.
func newIntents(repo *gitops.Repo, commits []string, now time.Time) (*intents, int64) {
	in := &intents{byCommit: map[string][]annotate.Decoded{}}
	recs, err := notes.Open(repo, notes.Annotations).Read(commits)
	if err != nil {
		return in, 0
	}
	var until int64
	for c, rs := range recs {
		live := annotate.Live(rs, now)
		in.byCommit[c] = live
		for _, d := range live {
			exp := ""
			if d.Region != nil {
				exp = d.Region.Expires
			} else if d.Summary != nil {
				exp = d.Summary.Expires
			}
			if t, err := annotate.ParseExpiry(exp); exp != "" && err == nil && (until == 0 || t.Unix() < until) {
				until = t.Unix()
			}
		}
	}
	return in, until
}
