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
	if enum, _ := s.Properties["$schema"]["enum"].([]any); s.Title != "gloss-test-sample/v1" || len(enum) != 1 || enum[0] != "gloss-test-sample/v1" {
		t.Errorf("schema = %s", doc)
	}
	if len(s.Required) != 2 {
		t.Errorf("required = %v, want $schema and text (tags is omitempty)", s.Required)
	}
	if _, err := schemas.Schema("no-such-shape"); err == nil {
		t.Error("unknown shape accepted")
	}
}
