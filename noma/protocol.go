package noma

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/gloss-dev/gloss/buildinfo"
	"github.com/gloss-dev/gloss/fault"
	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/lazyregexp"
	"github.com/gloss-dev/gloss/schemas"
)

// The Annex B protocol: the requests and answers of read_doc, list_ids,
// validate_doc and patch_block, and the Store operations that serve them
// (Read, IDs, Check, Patch). Patch writes one transcript record per op.

// ProtocolVersion is the Noma Agent Protocol version of transcripts.
const ProtocolVersion = "1.0"

// MaxContentBytes is the largest document patch_block accepts.
const MaxContentBytes = 1_000_000

func (s *Store) parse(file string) (string, string, *Node, error) {
	rel, src, err := s.readDocument(file)
	if err != nil {
		return rel, "", nil, err
	}
	doc, err := Parse(src)
	if err != nil {
		return rel, src, nil, fault.Usagef("%s: %v", rel, err)
	}
	return rel, src, doc, nil
}

// Block is one block of read_doc.
type Block struct {
	Type       string   `json:"type"`
	ChildCount int      `json:"childCount"`
	Lines      [2]int   `json:"lines" jsonschema:"first and last line, 1-based, inclusive"`
	Patchable  bool     `json:"patchable" jsonschema:"the block has a non-empty id that ops can address"`
	ID         *string  `json:"id,omitempty"`
	Hash       string   `json:"hash,omitempty" jsonschema:"sha256 of the block's source lines: pass a prefix as base_hash"`
	Aliases    []string `json:"aliases,omitempty"`
	Title      string   `json:"title,omitempty"`
	Level      int      `json:"level,omitempty"`
	Name       string   `json:"name,omitempty"`
	Attrs      any      `json:"attrs,omitempty" jsonschema:"directive attributes (without id), in source order"`
}

// ReadResult is read_doc's answer.
type ReadResult struct {
	Blocks []Block `json:"blocks"`
}

// IDsResult is list_ids's answer.
type IDsResult struct {
	IDs     []string          `json:"ids"`
	Aliases map[string]string `json:"aliases"`
}

// CheckResult is validate_doc's answer.
type CheckResult struct {
	OK          bool         `json:"ok"`
	Diagnostics []Diagnostic `json:"diagnostics"`
}

// attrObject is an ordered JSON object of attributes.
type attrObject []Attr

func (a attrObject) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, x := range a {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(x.Key)
		v, err := json.Marshal(x.Value)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// ReadDoc lists a document's blocks in pre-order.
func ReadDoc(src string) (*ReadResult, error) {
	doc, err := Parse(src)
	if err != nil {
		return nil, err
	}
	lines := strings.Split(src, "\n")
	res := &ReadResult{Blocks: []Block{}}
	for _, c := range doc.Children {
		Walk(c, func(n *Node) bool {
			b := Block{Type: n.Type, ChildCount: len(n.Children), Lines: [2]int{n.Line, n.EndLine}, Patchable: n.HasID && n.ID != ""}
			if n.HasID {
				id := n.ID
				b.ID = &id
				b.Hash = blockHash(lines, n)
			}
			b.Aliases = n.Aliases
			if n.Type == TypeSection {
				b.Title, b.Level = n.Title, n.Level
			}
			if n.Type == TypeDirective {
				b.Name = n.Name
				var attrs attrObject
				for _, a := range n.Attrs {
					if a.Key != "id" {
						attrs = append(attrs, a)
					}
				}
				if len(attrs) > 0 {
					b.Attrs = attrs
				}
			}
			res.Blocks = append(res.Blocks, b)
			return true
		})
	}
	return res, nil
}

// ListIDs lists a document's ids in order and its aliases.
func ListIDs(doc *Node) *IDsResult {
	res := &IDsResult{IDs: []string{}, Aliases: map[string]string{}}
	seen := map[string]bool{}
	Walk(doc, func(n *Node) bool {
		if n.HasID && n.ID != "" && !seen[n.ID] {
			seen[n.ID] = true
			res.IDs = append(res.IDs, n.ID)
		}
		for _, a := range n.Aliases {
			if _, ok := res.Aliases[a]; !ok && n.HasID {
				res.Aliases[a] = n.ID
			}
		}
		return true
	})
	return res
}

// Check validates a document.
func Check(doc *Node, opts ValidateOptions) *CheckResult {
	ds := Validate(doc, opts)
	if ds == nil {
		ds = []Diagnostic{}
	}
	return &CheckResult{OK: Summary(ds) != "error", Diagnostics: ds}
}

// readDocument reads a document for read_doc, list_ids and validate_doc.
// A book manifest (Annex B: a path ending in .yml or .yaml, any case) is
// refused as Patch refuses it: it is YAML, not Noma source, and read as
// paragraphs it would look like a document.
func (s *Store) readDocument(file string) (rel, src string, err error) {
	rel, err = s.Rel(file)
	if err != nil {
		return "", "", err
	}
	if isBookManifest(rel) {
		return "", "", fault.Usagef("%s: book manifests are not documents (unsupported_op)", rel)
	}
	return s.ReadSource(rel)
}

// Read is read_doc on a file.
func (s *Store) Read(file string) (*ReadResult, error) {
	rel, src, err := s.readDocument(file)
	if err != nil {
		return nil, err
	}
	res, err := ReadDoc(src)
	if err != nil {
		return nil, fault.Usagef("%s: %v", rel, err)
	}
	return res, nil
}

// IDs is list_ids on a file.
func (s *Store) IDs(file string) (*IDsResult, error) {
	_, _, doc, err := s.parse(file)
	if err != nil {
		return nil, err
	}
	return ListIDs(doc), nil
}

// Check is validate_doc on a file.
func (s *Store) Check(file string, opts ValidateOptions) (*CheckResult, error) {
	_, _, doc, err := s.parse(file)
	if err != nil {
		return nil, err
	}
	return Check(doc, opts), nil
}

// Actor is who made a patch.
type Actor struct {
	Kind    string `json:"kind" jsonschema:"human, agent or tool"`
	Name    string `json:"name"`
	Model   string `json:"model,omitempty"`
	Version string `json:"version,omitempty"`
}

// The default actor of a patch lives here, in two forms. A request that
// names nobody (the MCP tools, where agents patch) is an unknown agent's;
// a patch made from the command line is by the person running gloss
// (LocalActor).
const (
	defaultKind = "agent"
	unknownName = "unknown"
)

// requestActor is who made the patch req asks for.
func requestActor(req PatchRequest) Actor {
	if req.Actor == nil || req.Actor.Name == "" {
		return Actor{Kind: defaultKind, Name: unknownName}
	}
	a := *req.Actor
	if a.Kind == "" {
		a.Kind = defaultKind
	}
	return a
}

// LocalActor is the actor of a patch made by whoever runs gloss: of the
// given kind, named name, else by git config user.name, else by $USER,
// else unknown.
func LocalActor(ctx context.Context, repo *gitops.Repo, kind, name string) *Actor {
	if name == "" {
		name, _, _ = repo.ConfigGet(ctx, "user.name")
	}
	if name == "" {
		name = os.Getenv("USER")
	}
	if name == "" {
		name = unknownName
	}
	return &Actor{Kind: kind, Name: name}
}

// PatchRequest is one patch_block call (or, with several ops, an atomic
// patch_block_list).
type PatchRequest struct {
	File        string
	Ops         []Op
	OpErrs      []*PatchError // shape errors per op, from DecodeOps
	Reason      string
	ExpectedSHA string
	Actor       *Actor
	BaseSHA256  string
	BaseHash    string
	ParentOpID  string
	// Strict refuses a patch whose result has validation errors.
	Strict bool
}

// Request inputs whose shape the library checks, for every front door.
var (
	reSHA8   = lazyregexp.New(`^[0-9a-fA-F]{8}$`)
	reSHA256 = lazyregexp.New(`^[0-9a-fA-F]{64}$`)
	reHex864 = lazyregexp.New(`^[0-9a-fA-F]{8,64}$`)
	reUUID   = lazyregexp.New(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)
)

// check refuses malformed preconditions before anything is read.
func (req *PatchRequest) check() error {
	switch {
	case req.ExpectedSHA != "" && !reSHA8.MatchString(req.ExpectedSHA):
		return fault.Usagef("expected_sha must be 8 hex digits")
	case req.BaseSHA256 != "" && !reSHA256.MatchString(req.BaseSHA256):
		return fault.Usagef("base_sha256 must be 64 hex digits")
	case req.BaseHash != "" && !reHex864.MatchString(req.BaseHash):
		return fault.Usagef("base_hash must be 8 to 64 hex digits")
	case req.ParentOpID != "" && !reUUID.MatchString(req.ParentOpID):
		return fault.Usagef("parent_op_id must be a UUID")
	}
	return nil
}

// docExt keeps a document's real location a document: a link named
// x.noma that resolves to README.md is refused.
func docExt(given, real string) error {
	if path.Ext(given) != path.Ext(real) {
		return fault.Usagef("%s resolves to %s, which is not the same kind of file", given, real)
	}
	return nil
}

// PatchResult is patch_block's answer: ok with the new state, or a
// protocol error {ok:false, error, code}.
type PatchResult struct {
	OK             bool          `json:"ok"`
	Error          string        `json:"error,omitempty"`
	Code           string        `json:"code,omitempty"`
	PostValidation string        `json:"post_validation,omitempty" jsonschema:"ok, warn or error"`
	Transcript     any           `json:"transcript_entry,omitempty" jsonschema:"the transcript record written (the last one for a list)"`
	Diagnostics    *[]Diagnostic `json:"diagnostics,omitempty" jsonschema:"the post-patch diagnostics (ok:true only)"`
	Entries        int           `json:"entries,omitempty" jsonschema:"patch_block_list: how many ops were applied"`
}

// taggedDiag is a diagnostic with its phase: the validator's object with
// phase last, or a synthetic one with phase first.
type taggedDiag struct {
	d         Diagnostic
	phase     string
	synthetic bool
}

func (t taggedDiag) MarshalJSON() ([]byte, error) {
	if t.synthetic {
		return json.Marshal(struct {
			Phase    string `json:"phase"`
			Severity string `json:"severity"`
			Code     string `json:"code"`
			Message  string `json:"message"`
		}{t.phase, t.d.Severity, t.d.Code, t.d.Message})
	}
	data, err := json.Marshal(t.d)
	if err != nil {
		return nil, err
	}
	ph, _ := json.Marshal(t.phase)
	return append(append(data[:len(data)-1], []byte(`,"phase":`)...), append(ph, '}')...), nil
}

func tag(ds []Diagnostic, phase string) []any {
	out := make([]any, 0, len(ds))
	for _, d := range ds {
		out = append(out, taggedDiag{d: d, phase: phase})
	}
	return out
}

func synthetic(code, msg string) any {
	return taggedDiag{d: Diagnostic{Severity: SevError, Code: code, Message: msg}, phase: "pre", synthetic: true}
}

func sha(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

func isBookManifest(rel string) bool {
	l := strings.ToLower(rel)
	return strings.HasSuffix(l, ".yml") || strings.HasSuffix(l, ".yaml")
}

// Patch runs a patch request: the ops are applied to the document in
// memory, all or nothing; each attempted op gets a transcript record.
// Protocol failures are a PatchResult with OK false; an error return is a
// system fault (unreadable file, hostile path, failed write).
func (s *Store) Patch(req PatchRequest) (*PatchResult, error) {
	start := time.Now()
	rel, err := s.Rel(req.File)
	if err != nil {
		return nil, err
	}
	if err := docExt(req.File, rel); err != nil {
		return nil, err
	}
	if isBookManifest(rel) {
		return nil, fault.Usagef("%s: book manifests are not patchable (unsupported_op)", rel)
	}
	// Only a document gets a transcript: a patch aimed at any other file
	// (a.go) is refused before anything is recorded, so that no stray
	// <file>.patches appears beside it.
	if !strings.HasSuffix(rel, ".noma") {
		return nil, fault.Usagef("%s is not a Noma document: patches apply to .noma files", fault.Quote(rel))
	}
	if err := req.check(); err != nil {
		return nil, err
	}
	// One writer at a time per document: the lock covers the read, the
	// transcript append and the document write, and recovers what a killed
	// writer left half done.
	w, err := s.beginWrite(rel)
	if err != nil {
		return nil, err
	}
	defer w.end()
	_, src, err := s.ReadSource(rel)
	if err != nil {
		return nil, err
	}
	actor := requestActor(req)
	switch actor.Kind {
	case "human", "agent", "tool":
	default:
		return nil, fault.Usagef("actor.kind must be human, agent or tool")
	}
	if len(req.Ops) == 0 {
		return nil, fault.Usagef("no ops to apply")
	}
	if req.BaseHash != "" {
		for i := range req.Ops {
			req.Ops[i].BaseHash = req.BaseHash
		}
	}
	preSHA := sha(src)
	uri := (&url.URL{Scheme: "file", Path: filepath.ToSlash(filepath.Join(s.tree.Dir(), rel))}).String()
	base := func(op Op) *Record {
		r := &Record{ProtocolVersion: ProtocolVersion, ToolVersion: buildinfo.Version, OpID: newUUID(),
			TS: s.Now().UTC().Format("2006-01-02T15:04:05.000Z"), Actor: actor, DocURI: uri,
			PreSHA256: preSHA, PostSHA256: preSHA, PreSHA: preSHA[:8], PostSHA: preSHA[:8], Op: opJSON(op),
			Reason: req.Reason, ParentOpID: req.ParentOpID, BaseSHA256: req.BaseSHA256}
		return r
	}
	var records []*Record
	var newText *string // the document's new text, written after its records
	finish := func(res *PatchResult) (*PatchResult, error) {
		el := float64(time.Since(start).Microseconds()) / 1000
		for _, r := range records {
			r.ElapsedMS = el
		}
		last, err := w.commit(records, newText)
		if err != nil {
			return nil, err
		}
		if last != nil && res.OK {
			res.Transcript = last
		}
		return res, nil
	}
	reject := func(failed int, code, msg string, preVal string, preDiags []Diagnostic) (*PatchResult, error) {
		for i, op := range req.Ops {
			r := base(op)
			r.PatchResult = "rejected"
			r.PreValidation, r.PostValidation = preVal, preVal
			c, m := code, msg
			if i != failed {
				c, m = CodeOpListAborted, fmt.Sprintf("op %d of the list failed (%s); nothing was applied", failed, code)
			}
			r.Diagnostics = append(tag(preDiags, "pre"), synthetic(c, m))
			records = append(records, r)
		}
		return finish(&PatchResult{OK: false, Error: msg, Code: code})
	}
	if len(src) > MaxContentBytes {
		return reject(0, CodeInvalidContent, "content_too_large", "ok", nil)
	}
	if req.ExpectedSHA != "" && req.ExpectedSHA != preSHA[:8] {
		return reject(0, CodeSHAMismatch, "sha_mismatch", "ok", nil)
	}
	preDoc, perr0 := Parse(src)
	if perr0 != nil {
		return nil, fault.Usagef("%s: %v", rel, perr0)
	}
	preDiags := Validate(preDoc, ValidateOptions{})
	preVal := Summary(preDiags)
	p := NewPatcher(src)
	steps := make([]string, 0, len(req.Ops)+1)
	steps = append(steps, preSHA)
	for i, op := range req.Ops {
		var e error
		if req.OpErrs != nil && req.OpErrs[i] != nil {
			e = req.OpErrs[i]
		} else {
			e = p.Apply(op)
		}
		if e != nil {
			var pe *PatchError
			if !errors.As(e, &pe) {
				return nil, e
			}
			return reject(i, pe.Code, pe.Message, preVal, preDiags)
		}
		if len(req.Ops) > 1 {
			steps = append(steps, sha(p.Text()))
		}
	}
	warns := s.capabilityWarnings(rel, req.Ops)
	out := p.Text()
	postSHA := sha(out)
	postDoc, err := Parse(out)
	var postDiags []Diagnostic
	if err != nil {
		postDiags = []Diagnostic{{Severity: SevError, Code: "invalid_content", Message: "the result does not parse: " + err.Error()}}
	} else {
		postDiags = Validate(postDoc, ValidateOptions{})
	}
	postVal := Summary(postDiags)
	if req.Strict && postVal == "error" && postSHA != preSHA {
		return reject(0, CodeInvalidContent, "strict: the result has validation errors", preVal, preDiags)
	}
	result := "applied"
	if postSHA == preSHA {
		result = "noop"
	} else {
		newText = &out
	}
	// one record per op, each with its own intermediate hashes
	if len(req.Ops) == 1 {
		steps = append(steps, postSHA)
	}
	for i, op := range req.Ops {
		r := base(op)
		r.PreSHA256, r.PreSHA = steps[i], steps[i][:8]
		r.PostSHA256, r.PostSHA = steps[i+1], steps[i+1][:8]
		r.PatchResult = "applied"
		if result == "noop" || r.PreSHA256 == r.PostSHA256 {
			r.PatchResult = "noop"
		}
		r.PreValidation, r.PostValidation = preVal, postVal
		diags := append(tag(preDiags, "pre"), tag(postDiags, "post")...)
		if req.BaseSHA256 != "" && req.BaseSHA256 != preSHA && i == 0 {
			diags = append(diags, taggedDiag{d: Diagnostic{Severity: SevWarning, Code: "base_sha_drift", Message: "the document changed since base_sha256"}, phase: "pre", synthetic: true})
		}
		diags = append(diags, warns[i]...)
		if len(diags) > 0 {
			r.Diagnostics = diags
		}
		records = append(records, r)
	}
	if postDiags == nil {
		postDiags = []Diagnostic{}
	}
	res := &PatchResult{OK: true, PostValidation: postVal, Diagnostics: &postDiags}
	if len(req.Ops) > 1 {
		res.Entries = len(req.Ops)
	}
	return finish(res)
}

func opJSON(op Op) any {
	if op.fields == nil {
		return map[string]any{"op": op.Name}
	}
	return op
}

func init() {
	schemas.Register(
		schemas.Entry{Name: "doc-read", Tag: "noma-read-doc/v1", Description: "read_doc / git gloss doc read: a document's blocks in pre-order (Annex B).", Type: schemas.TypeOf[ReadResult]()},
		schemas.Entry{Name: "doc-ids", Tag: "noma-list-ids/v1", Description: "list_ids / git gloss doc ids: ids in document order and aliases (Annex B).", Type: schemas.TypeOf[IDsResult]()},
		schemas.Entry{Name: "doc-check", Tag: "noma-validate-doc/v1", Description: "validate_doc / git gloss doc check: ok and diagnostics (Annex B).", Type: schemas.TypeOf[CheckResult]()},
		schemas.Entry{Name: "doc-patch", Tag: "noma-patch-block/v1", Description: "patch_block / git gloss doc patch: the new state, or {ok:false, error, code} (Annex B).", Type: schemas.TypeOf[PatchResult]()},
		schemas.Entry{Name: "doc-transcript-record", Tag: "noma-transcript/v1.0", Description: "One record of a <file>.patches transcript.", Type: schemas.TypeOf[Record](), Verbatim: true},
		schemas.Entry{Name: "doc-verify", Tag: "gloss-doc-verify/v1", Description: "git gloss doc verify: the Annex C conformance run.", Type: schemas.TypeOf[VerifyReport]()},
		schemas.Entry{Name: "doc-transcript", Tag: "noma-transcript-read/v1", Description: "transcript_read / git gloss doc log: a document's transcript records.", Type: schemas.TypeOf[TranscriptResult]()},
		schemas.Entry{Name: "doc-replay", Tag: "noma-replay/v1", Description: "git gloss doc replay: the transcript re-applied from its base.", Type: schemas.TypeOf[ReplayResult]()},
	)
}
