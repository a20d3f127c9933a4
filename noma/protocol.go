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
	rel, err := s.patchTarget(&req)
	if err != nil {
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
	run := &patchRun{s: s, req: req, w: w, start: start, actor: actor, preSHA: sha(src), preVal: "ok",
		uri: (&url.URL{Scheme: "file", Path: filepath.ToSlash(filepath.Join(s.tree.Dir(), rel))}).String()}
	if len(src) > MaxContentBytes {
		return run.reject(0, CodeInvalidContent, "content_too_large")
	}
	if req.ExpectedSHA != "" && req.ExpectedSHA != run.preSHA[:8] {
		return run.reject(0, CodeSHAMismatch, "sha_mismatch")
	}
	preDoc, err := Parse(src)
	if err != nil {
		return nil, fault.Usagef("%s: %v", rel, err)
	}
	run.preDiags = Validate(preDoc, ValidateOptions{})
	run.preVal = Summary(run.preDiags)
	p := NewPatcher(src)
	steps, failed, err := applyOps(p, req.Ops, req.OpErrs, run.preSHA)
	if err != nil {
		var pe *PatchError
		if !errors.As(err, &pe) {
			return nil, err
		}
		return run.reject(failed, pe.Code, pe.Message)
	}
	warns := s.capabilityWarnings(rel, req.Ops)
	out := p.Text()
	postSHA := sha(out)
	postDiags := resultDiagnostics(out)
	postVal := Summary(postDiags)
	if req.Strict && postVal == "error" && postSHA != run.preSHA {
		return run.reject(0, CodeInvalidContent, "strict: the result has validation errors")
	}
	if postSHA != run.preSHA {
		run.newText = &out
	}
	run.addApplied(append(steps, postSHA), postVal, postDiags, warns)
	if postDiags == nil {
		postDiags = []Diagnostic{}
	}
	res := &PatchResult{OK: true, PostValidation: postVal, Diagnostics: &postDiags}
	if len(req.Ops) > 1 {
		res.Entries = len(req.Ops)
	}
	return run.finish(res)
}

// patchTarget resolves the document a request patches, and refuses what
// can be refused before anything is locked or recorded: a name that
// resolves to another kind of file, a book manifest, a file that is not a
// Noma document, malformed preconditions.
func (s *Store) patchTarget(req *PatchRequest) (string, error) {
	rel, err := s.Rel(req.File)
	if err != nil {
		return "", err
	}
	if err := docExt(req.File, rel); err != nil {
		return "", err
	}
	if isBookManifest(rel) {
		return "", fault.Usagef("%s: book manifests are not patchable (unsupported_op)", rel)
	}
	// Only a document gets a transcript: a patch aimed at any other file
	// (a.go) is refused before anything is recorded, so that no stray
	// <file>.patches appears beside it.
	if !strings.HasSuffix(rel, ".noma") {
		return "", fault.Usagef("%s is not a Noma document: patches apply to .noma files", fault.Quote(rel))
	}
	if err := req.check(); err != nil {
		return "", err
	}
	return rel, nil
}

// applyOps applies ops to p in order; an op whose shape did not decode
// (opErrs) fails with that error. It returns the document's hashes before
// the first op (preSHA) and after each op but the last, whose hash is the
// result's; or the index of the op that failed and its error, after which
// p is not to be written.
func applyOps(p *Patcher, ops []Op, opErrs []*PatchError, preSHA string) (steps []string, failed int, err error) {
	steps = make([]string, 0, len(ops)+1)
	steps = append(steps, preSHA)
	for i, op := range ops {
		var e error
		if opErrs != nil && opErrs[i] != nil {
			e = opErrs[i]
		} else {
			e = p.Apply(op)
		}
		if e != nil {
			return nil, i, e
		}
		if i < len(ops)-1 {
			steps = append(steps, sha(p.Text()))
		}
	}
	return steps, 0, nil
}

// resultDiagnostics validates a patch's result; a result that does not
// parse is one invalid_content error.
func resultDiagnostics(out string) []Diagnostic {
	doc, err := Parse(out)
	if err != nil {
		return []Diagnostic{{Severity: SevError, Code: "invalid_content", Message: "the result does not parse: " + err.Error()}}
	}
	return Validate(doc, ValidateOptions{})
}

// patchRun is one patch request under way: what all its transcript
// records share, and the records and the document text it will write.
type patchRun struct {
	s      *Store
	req    PatchRequest
	w      *docWriter
	start  time.Time
	actor  Actor
	uri    string
	preSHA string
	// preVal and preDiags are the document's validation before the ops:
	// "ok" and none for a request refused before it was validated.
	preVal   string
	preDiags []Diagnostic

	records []*Record
	newText *string // the document's new text, written after its records
}

// record starts op's transcript record, its hashes the document's before
// the patch until the op's own are known.
func (r *patchRun) record(op Op) *Record {
	return &Record{ProtocolVersion: ProtocolVersion, ToolVersion: buildinfo.Version, OpID: newUUID(),
		TS: r.s.Now().UTC().Format("2006-01-02T15:04:05.000Z"), Actor: r.actor, DocURI: r.uri,
		PreSHA256: r.preSHA, PostSHA256: r.preSHA, PreSHA: r.preSHA[:8], PostSHA: r.preSHA[:8], Op: opJSON(op),
		Reason: r.req.Reason, ParentOpID: r.req.ParentOpID, BaseSHA256: r.req.BaseSHA256}
}

// reject records every op as rejected and answers with the protocol
// error: the op that failed (index failed) carries code and msg, the
// others say the list was aborted because of it.
func (r *patchRun) reject(failed int, code, msg string) (*PatchResult, error) {
	for i, op := range r.req.Ops {
		rec := r.record(op)
		rec.PatchResult = "rejected"
		rec.PreValidation, rec.PostValidation = r.preVal, r.preVal
		c, m := code, msg
		if i != failed {
			c, m = CodeOpListAborted, fmt.Sprintf("op %d of the list failed (%s); nothing was applied", failed, code)
		}
		rec.Diagnostics = append(tag(r.preDiags, "pre"), synthetic(c, m))
		r.records = append(r.records, rec)
	}
	return r.finish(&PatchResult{OK: false, Error: msg, Code: code})
}

// addApplied records every op as applied, or as a noop when it left the
// document as it was: steps are the document's hashes before the first op
// and after each. The first record warns when the document is not the
// base the request was made against.
func (r *patchRun) addApplied(steps []string, postVal string, postDiags []Diagnostic, warns [][]any) {
	noop := steps[len(steps)-1] == r.preSHA
	for i, op := range r.req.Ops {
		rec := r.record(op)
		rec.PreSHA256, rec.PreSHA = steps[i], steps[i][:8]
		rec.PostSHA256, rec.PostSHA = steps[i+1], steps[i+1][:8]
		rec.PatchResult = "applied"
		if noop || rec.PreSHA256 == rec.PostSHA256 {
			rec.PatchResult = "noop"
		}
		rec.PreValidation, rec.PostValidation = r.preVal, postVal
		diags := append(tag(r.preDiags, "pre"), tag(postDiags, "post")...)
		if r.req.BaseSHA256 != "" && r.req.BaseSHA256 != r.preSHA && i == 0 {
			diags = append(diags, taggedDiag{d: Diagnostic{Severity: SevWarning, Code: "base_sha_drift", Message: "the document changed since base_sha256"}, phase: "pre", synthetic: true})
		}
		diags = append(diags, warns[i]...)
		if len(diags) > 0 {
			rec.Diagnostics = diags
		}
		r.records = append(r.records, rec)
	}
}

// finish stamps the records with the time the patch took, writes them and
// the new text (if any) under the lock, and hands the last record to an
// answer that succeeded.
func (r *patchRun) finish(res *PatchResult) (*PatchResult, error) {
	el := float64(time.Since(r.start).Microseconds()) / 1000
	for _, rec := range r.records {
		rec.ElapsedMS = el
	}
	last, err := r.w.commit(r.records, r.newText)
	if err != nil {
		return nil, err
	}
	if last != nil && res.OK {
		res.Transcript = last
	}
	return res, nil
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
