package noma

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestConformanceCorpus(t *testing.T) {
	root := filepath.Join("..", "fixtures", "noma-conformance")
	rep, err := Verify(root, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range rep.Fixtures {
		if f.Status != "PASS" {
			t.Errorf("%s %s: %s", f.Status, f.Name, f.Reason)
		}
	}
	if rep.Total != 40 || rep.Passed != 40 {
		t.Errorf("summary: %s", strings.Join(rep.Lines()[len(rep.Lines())-1:], ""))
	}
}
