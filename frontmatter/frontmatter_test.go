package frontmatter_test

import (
	"errors"
	"testing"

	"github.com/gloss-dev/gloss/frontmatter"
)

func TestParseKeepsBodyAndEditsInPlace(t *testing.T) {
	src := "---\n# a comment\ntitle: Hello\ntags: [a, b]\n---\nbody line\n\n---\nnot frontmatter\n"
	d, err := frontmatter.Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if string(d.Body) != "body line\n\n---\nnot frontmatter\n" {
		t.Errorf("body = %q", d.Body)
	}
	if frontmatter.String(d.FM, "title") != "Hello" || len(frontmatter.Strings(d.FM, "tags")) != 2 {
		t.Errorf("values: %q %v", frontmatter.String(d.FM, "title"), frontmatter.Strings(d.FM, "tags"))
	}
	if err := frontmatter.Set(d.FM, "status", "done"); err != nil {
		t.Fatal(err)
	}
	frontmatter.Delete(d.FM, "tags")
	out, err := frontmatter.Render(d.FM, d.Body)
	if err != nil {
		t.Fatal(err)
	}
	want := "---\n# a comment\ntitle: Hello\nstatus: done\n---\nbody line\n\n---\nnot frontmatter\n"
	if string(out) != want {
		t.Errorf("render:\n%s\nwant:\n%s", out, want)
	}
	if d, _ := frontmatter.Parse([]byte("no frontmatter\n")); d.FM != nil || string(d.Body) != "no frontmatter\n" {
		t.Errorf("plain file: %+v", d)
	}
}

func TestRefusals(t *testing.T) {
	for name, src := range map[string]string{
		"unclosed":   "---\ntitle: x\n",
		"alias":      "---\na: &x 1\nb: *x\n---\n",
		"custom tag": "---\na: !!python/object:os.system x\n---\n",
		"local tag":  "---\na: !secret x\n---\n",
		"list":       "---\n- a\n- b\n---\n",
		"bad yaml":   "---\na: [\n---\n",
		"map key":    "---\n? [a, b]\n: c\n---\n",
	} {
		if _, err := frontmatter.Parse([]byte(src)); !errors.Is(err, frontmatter.ErrInvalid) {
			t.Errorf("%s: %v, want ErrInvalid", name, err)
		}
	}
}
