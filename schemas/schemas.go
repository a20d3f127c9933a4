// Package schemas describes every machine-readable shape gloss prints or
// stores, and encodes them. The CLI's `--json` output and the MCP tool
// results go through Encode, which is why they are the same bytes; `git
// gloss schema NAME` and the MCP tools' output schemas come from the same
// registry, generated from the Go types themselves so they cannot drift.
package schemas

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
)

// Entry names one shape.
type Entry struct {
	Name        string       // what `git gloss schema NAME` takes
	Tag         string       // the "$schema" value the shape carries
	Description string       // one line for the listing
	Type        reflect.Type // the Go type it is generated from
	// Raw, when set, is a hand-written JSON Schema document used as it is
	// instead of one generated from Type (the spec file schema, which must
	// stay NotarAI's draft-07 document).
	Raw []byte
	// Verbatim marks a format another specification defines (a Noma
	// transcript record, whose absent values are null): Encode writes it
	// exactly as encoding/json does, and its schema keeps the null types.
	Verbatim bool
}

var (
	mu sync.Mutex
	// pending holds what Register was given and the maps below do not
	// hold yet: registering costs every process start (each capability
	// package registers from its init), indexing only the processes that
	// look a shape up.
	pending  []Entry
	registry = map[string]Entry{}
	cache    = map[string]*jsonschema.Schema{}
	// typeTags maps a registered Go type to its tag; "" when two entries
	// give the same type different tags (then Encode leaves it alone).
	typeTags = map[reflect.Type]string{}
	verbatim = map[reflect.Type]bool{}
)

// Register adds shapes to the registry. Capability packages call it from an
// init function next to the types they describe.
func Register(entries ...Entry) {
	mu.Lock()
	defer mu.Unlock()
	pending = append(pending, entries...)
}

// index moves the pending entries into the maps; the caller holds mu. A
// name registered twice is a programming error, found by the first lookup
// of any process (the schema tests look every shape up).
func index() {
	for _, e := range pending {
		if _, dup := registry[e.Name]; dup {
			panic("schemas: duplicate name " + e.Name)
		}
		registry[e.Name] = e
		if e.Type == nil || e.Tag == "" {
			continue
		}
		t := deref(e.Type)
		if e.Verbatim {
			verbatim[t] = true
			continue
		}
		if old, seen := typeTags[t]; seen && old != e.Tag {
			typeTags[t] = ""
		} else {
			typeTags[t] = e.Tag
		}
	}
	pending = nil
}

// TypeOf is reflect.TypeFor, here so that registrations read naturally:
// schemas.Entry{Type: schemas.TypeOf[Status]()}.
func TypeOf[T any]() reflect.Type { return reflect.TypeFor[T]() }

// All lists the registered shapes by name.
func All() []Entry {
	mu.Lock()
	defer mu.Unlock()
	index()
	out := make([]Entry, 0, len(registry))
	for _, e := range registry {
		out = append(out, e)
	}
	slices.SortFunc(out, func(a, b Entry) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// Lookup returns the entry for name.
func Lookup(name string) (Entry, bool) {
	mu.Lock()
	defer mu.Unlock()
	index()
	e, ok := registry[name]
	return e, ok
}

// Schema returns the JSON Schema of a registered shape. The "$schema"
// property is pinned to the shape's tag.
func Schema(name string) (*jsonschema.Schema, error) {
	e, ok := Lookup(name)
	if !ok {
		return nil, fmt.Errorf("no schema named %q", name)
	}
	mu.Lock()
	defer mu.Unlock()
	if s, ok := cache[name]; ok {
		return s.CloneSchemas(), nil
	}
	if e.Raw != nil {
		var s jsonschema.Schema
		if err := json.Unmarshal(e.Raw, &s); err != nil {
			return nil, fmt.Errorf("schema %s: %w", name, err)
		}
		cache[name] = &s
		return s.CloneSchemas(), nil
	}
	generate := forOutput
	if e.Verbatim {
		generate = func(t reflect.Type) (*jsonschema.Schema, error) {
			return jsonschema.ForType(t, &jsonschema.ForOptions{})
		}
	}
	s, err := generate(e.Type)
	if err != nil {
		return nil, fmt.Errorf("schema %s: %w", name, err)
	}
	s.ID = "https://gloss.dev/schemas/" + e.Tag
	s.Title = e.Tag
	s.Description = e.Description
	if p, ok := s.Properties["$schema"]; ok && e.Tag != "" {
		p.Const = jsonschema.Ptr[any](e.Tag) // OutputSchema makes it an enum
	}
	cache[name] = s
	return s.CloneSchemas(), nil
}

// OutputSchema is the schema of a registered shape as an MCP tool's
// outputSchema: portable, without the id, title and description that the
// tool's own description already covers.
func OutputSchema(name string) (*jsonschema.Schema, error) {
	s, err := Schema(name)
	if err != nil {
		return nil, err
	}
	Portable(s)
	s.ID, s.Title, s.Description = "", "", ""
	return s, nil
}

// Document returns the schema as indented JSON with a meta-schema line, for
// printing.
func Document(name string) ([]byte, error) {
	if e, ok := Lookup(name); ok && e.Raw != nil {
		var buf bytes.Buffer
		if err := json.Indent(&buf, e.Raw, "", "  "); err != nil {
			return nil, err
		}
		return bytes.TrimRight(buf.Bytes(), "\n"), nil
	}
	s, err := Schema(name)
	if err != nil {
		return nil, err
	}
	s.Schema = "https://json-schema.org/draft/2020-12/schema"
	return json.MarshalIndent(s, "", "  ")
}

// Encode is the one JSON encoding of gloss's machine-readable output:
// compact, one line, no HTML escaping (agents read "<" better than
// "\u003c"), without a trailing newline.
//
// It also keeps two promises every output makes: no null anywhere (empty
// arrays are [], see dropNulls), and the "$schema" tag of a registered type
// is the one its registry entry names, so each shape has its own id.
func Encode(v any) ([]byte, error) {
	var buf bytes.Buffer
	if err := encodeTo(&buf, v); err != nil {
		return nil, err
	}
	t := reflect.TypeOf(v)
	data := bytes.TrimRight(buf.Bytes(), "\n")
	if t != nil {
		mu.Lock()
		index()
		exact := verbatim[deref(t)]
		mu.Unlock()
		if exact {
			return data, nil
		}
	}
	data, err := dropNulls(data, t)
	if err != nil {
		return nil, fmt.Errorf("encode %v: %w", t, err)
	}
	return pinTag(data, t), nil
}

func encodeTo(buf *bytes.Buffer, v any) error {
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// encodeString writes s as a JSON string, escaped as Encode escapes.
func encodeString(buf *bytes.Buffer, s string) error {
	if err := encodeTo(buf, s); err != nil {
		return err
	}
	buf.Truncate(buf.Len() - 1) // the encoder's newline
	return nil
}

// pinTag rewrites the leading "$schema" member of data to the tag the
// registry gives type t, when it gives one.
func pinTag(data []byte, t reflect.Type) []byte {
	if t == nil {
		return data
	}
	mu.Lock()
	index()
	tag := typeTags[deref(t)]
	mu.Unlock()
	const prefix = `{"$schema":"`
	if tag == "" || !bytes.HasPrefix(data, []byte(prefix)) {
		return data
	}
	end := bytes.IndexByte(data[len(prefix):], '"')
	if end < 0 || string(data[len(prefix):len(prefix)+end]) == tag {
		return data
	}
	out := make([]byte, 0, len(data)+len(tag))
	out = append(out, prefix...)
	out = append(out, tag...)
	return append(out, data[len(prefix)+end:]...)
}

// Listing is what `git gloss schema --json` and gloss_schema without a
// name print: every registered shape.
type Listing struct {
	Schema  string        `json:"$schema"`
	Schemas []ListingItem `json:"schemas"`
}

// ListingItem is one shape of a Listing.
type ListingItem struct {
	Name        string `json:"name" jsonschema:"what git gloss schema NAME takes"`
	Tag         string `json:"tag" jsonschema:"the $schema value of that shape"`
	Description string `json:"description"`
}

// List returns the registry as a Listing.
func List() *Listing {
	out := &Listing{Schema: "gloss-schemas/v1", Schemas: []ListingItem{}}
	for _, e := range All() {
		out.Schemas = append(out.Schemas, ListingItem{e.Name, e.Tag, e.Description})
	}
	return out
}

// Find returns the entry named nameOrTag, or else the one whose shape
// carries that "$schema" tag: an agent holding a result knows the tag.
func Find(nameOrTag string) (Entry, bool) {
	if e, ok := Lookup(nameOrTag); ok {
		return e, true
	}
	for _, e := range All() {
		if e.Tag == nameOrTag {
			return e, true
		}
	}
	return Entry{}, false
}

// ErrorOutput is what a command run with --json prints on stdout when it
// fails.
type ErrorOutput struct {
	Schema   string `json:"$schema"`
	Error    string `json:"error"`
	Kind     string `json:"kind" jsonschema:"usage, not_found, conflict, check or internal"`
	ExitCode int    `json:"exit_code"`
}

func init() {
	Register(
		Entry{Name: "schemas", Tag: "gloss-schemas/v1", Description: "The registered shapes (git gloss schema --json).", Type: TypeOf[Listing]()},
		Entry{Name: "error", Tag: "gloss-error/v1", Description: "A failed command run with --json: the error, its kind and the exit code.", Type: TypeOf[ErrorOutput]()},
	)
}
