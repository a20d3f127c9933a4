package schemas_test

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/schemas"
)

type leaf struct {
	List []int `json:"list"`
}

type shape struct {
	Schema  string            `json:"$schema"`
	Items   []string          `json:"items"`
	Counts  map[string]int    `json:"counts"`
	Extra   map[string]any    `json:"extra"`
	Pointer *leaf             `json:"pointer"`
	Any     any               `json:"any"`
	Leaves  []leaf            `json:"leaves"`
	ByName  map[string][]leaf `json:"by_name"`
	Raw     json.RawMessage   `json:"raw,omitempty"`
	Text    string            `json:"text"`
}

func init() {
	schemas.Register(schemas.Entry{Name: "test-shape", Tag: "gloss-test-shape/v1", Description: "A shape with every kind of member.", Type: schemas.TypeOf[shape]()})
}

// Output never contains null: nil slices are [], nil maps {}, nil pointers
// and interfaces are left out, at any depth; and the registered tag wins
// over whatever the value carried.
func TestEncodeWritesNoNull(t *testing.T) {
	v := shape{Schema: "old-tag/v1", Leaves: []leaf{{}}, ByName: map[string][]leaf{"a": nil}, Text: "null"}
	got, err := schemas.Encode(&v)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"$schema":"gloss-test-shape/v1","items":[],"counts":{},"extra":{},"leaves":[{"list":[]}],"by_name":{"a":[]},"text":"null"}`
	if string(got) != want {
		t.Errorf("Encode =\n%s\nwant\n%s", got, want)
	}
	v.Pointer, v.Any = &leaf{List: []int{1}}, map[string]any{"k": nil}
	got, _ = schemas.Encode(v)
	if want := `"pointer":{"list":[1]},"any":{"k":null}`; !contains(got, want) {
		t.Errorf("Encode = %s, want it to contain %s (values of an untyped member are left as they are)", got, want)
	}
}

func contains(b []byte, s string) bool { return strings.Contains(string(b), s) }

// The generated schema is portable and honest about what Encode writes:
// single types, absent-able members not required.
func TestSchemaIsPortable(t *testing.T) {
	s, err := schemas.OutputSchema("test-shape")
	if err != nil {
		t.Fatal(err)
	}
	doc, _ := json.Marshal(s)
	problems, err := schemas.Lint(doc)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
	for _, name := range []string{"pointer", "any", "raw"} {
		if slices.Contains(s.Required, name) {
			t.Errorf("%s is required, but a nil %s is left out", name, name)
		}
	}
	for _, name := range []string{"items", "counts", "leaves", "text"} {
		if !slices.Contains(s.Required, name) {
			t.Errorf("%s is not required, but it is always written", name)
		}
	}
}

// Lint finds what the MCP Inspector's strict mode and Gemini reject.
func TestLintFindsUnportableSchemas(t *testing.T) {
	cases := map[string]string{
		"type list":    `{"type":"object","properties":{"a":{"type":["null","array"],"items":{"type":"string"}}}}`,
		"bare true":    `{"type":"array","items":true}`,
		"untyped":      `{"type":"object","properties":{"a":{"description":"anything"}}}`,
		"const":        `{"type":"string","const":"x"}`,
		"bare false":   `{"type":"object","additionalProperties":false}`,
		"no items":     `{"type":"array"}`,
		"null type":    `{"type":"null"}`,
		"remote $ref":  `{"$ref":"https://example.com/s.json"}`,
		"if/then/else": `{"type":"object","if":{"type":"object"},"then":{"type":"object"}}`,
	}
	for name, doc := range cases {
		problems, err := schemas.Lint([]byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		if len(problems) == 0 {
			t.Errorf("%s: %s passed", name, doc)
		}
	}
	ok := `{"type":"object","properties":{"a":{"anyOf":[{"type":"object"},{"type":"string"}]},"m":{"type":"object","additionalProperties":{"type":"integer"}},"e":{"type":"string","enum":["x"]}},"required":["a"]}`
	if problems, _ := schemas.Lint([]byte(ok)); len(problems) > 0 {
		t.Errorf("portable schema rejected: %v", problems)
	}
	if problems, _ := schemas.LintInput([]byte(ok)); len(problems) != 1 {
		t.Errorf("a map in a Gemini function's parameters: %v, want one problem", problems)
	}
}

// An input keeps its required arguments, pointers and interfaces included,
// and a map of any takes any object.
func TestInputSchemaKeepsRequired(t *testing.T) {
	type input struct {
		Path  string         `json:"path"`
		Value any            `json:"value"`
		Opt   *bool          `json:"opt,omitempty"`
		Op    map[string]any `json:"op,omitempty"`
	}
	s, err := schemas.ForType(reflect.TypeFor[input]())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(s.Required, []string{"path", "value"}) {
		t.Errorf("required = %v, want path and value", s.Required)
	}
	if op := s.Properties["op"]; op.Type != "object" || op.AdditionalProperties != nil {
		t.Errorf("op = %+v, want a plain object", op)
	}
}

type foreignRecord struct {
	Prev *string `json:"prev"`
	Sig  any     `json:"signature"`
	List []int   `json:"list"`
}

func init() {
	schemas.Register(schemas.Entry{Name: "test-foreign", Tag: "foreign/v1", Description: "A record another spec defines.", Type: schemas.TypeOf[foreignRecord](), Verbatim: true})
}

// A format another specification defines keeps its nulls.
func TestVerbatimKeepsNull(t *testing.T) {
	got, err := schemas.Encode(foreignRecord{})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"prev":null,"signature":null,"list":null}`; string(got) != want {
		t.Errorf("Encode = %s, want %s", got, want)
	}
}
