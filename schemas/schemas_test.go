package schemas_test

import (
	"encoding/json"
	"testing"

	"github.com/gloss-dev/gloss/schemas"
)

type sample struct {
	Schema string   `json:"$schema"`
	Text   string   `json:"text"`
	Tags   []string `json:"tags,omitempty"`
}

func init() {
	schemas.Register(schemas.Entry{Name: "test-sample", Tag: "gloss-test-sample/v1", Description: "A test shape.", Type: schemas.TypeOf[sample]()})
}

func TestEncodeIsCompactAndUnescaped(t *testing.T) {
	got, err := schemas.Encode(sample{Schema: "gloss-test-sample/v1", Text: "a < b && c > d"})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"$schema":"gloss-test-sample/v1","text":"a < b && c > d"}`
	if string(got) != want {
		t.Errorf("Encode = %s, want %s", got, want)
	}
}

func TestSchemaPinsTheTag(t *testing.T) {
	doc, err := schemas.Document("test-sample")
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Schema     string                    `json:"$schema"`
		Title      string                    `json:"title"`
		Required   []string                  `json:"required"`
		Properties map[string]map[string]any `json:"properties"`
	}
	if err := json.Unmarshal(doc, &s); err != nil {
		t.Fatal(err)
	}
	if s.Title != "gloss-test-sample/v1" || s.Properties["$schema"]["const"] != "gloss-test-sample/v1" {
		t.Errorf("schema = %s", doc)
	}
	if len(s.Required) != 2 {
		t.Errorf("required = %v, want $schema and text (tags is omitempty)", s.Required)
	}
	if _, err := schemas.Schema("no-such-shape"); err == nil {
		t.Error("unknown shape accepted")
	}
}

// An MCP output schema is the portable form: the tag is an enum, and
// there is no $id.
func TestOutputSchemaIsPortable(t *testing.T) {
	s, err := schemas.OutputSchema("test-sample")
	if err != nil {
		t.Fatal(err)
	}
	doc, _ := json.Marshal(s)
	if problems, _ := schemas.Lint(doc); len(problems) > 0 {
		t.Errorf("%s: %v", doc, problems)
	}
	if p := s.Properties["$schema"]; p.Const != nil || len(p.Enum) != 1 || p.Enum[0] != "gloss-test-sample/v1" || s.ID != "" {
		t.Errorf("output schema = %s", doc)
	}
}
