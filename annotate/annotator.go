package annotate

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"reflect"
	"strings"
	"syscall"
	"time"

	"github.com/gloss-dev/gloss/editdist"
)

// annotatorInput is what the personal annotator program reads on stdin.
type annotatorInput struct {
	Schema  string          `json:"$schema"`
	Commit  string          `json:"commit"`
	Subject string          `json:"subject"`
	Body    string          `json:"body"`
	Author  string          `json:"author"`
	Files   []annotatorFile `json:"files"`
}

type annotatorFile struct {
	Path    string   `json:"path"`
	Regions []Region `json:"regions"`
}

// runAnnotator runs the user's annotator (git config gloss.annotator) with
// the commit's draft regions as JSON on stdin, and reads contexts back: a
// JSON array, or one JSON object per line, shaped like `git gloss
// annotate`'s input. It runs in its own process group and is killed when
// the hook's time limit is near, so it can never hold a commit up.
func runAnnotator(ctx context.Context, command string, view *commitView, msg message) ([]Context, error) {
	in := annotatorInput{Schema: "gloss-annotator-input/v1", Commit: view.commit.ID, Subject: msg.subject, Body: msg.body, Author: view.commit.AuthorName}
	for _, f := range view.files {
		in.Files = append(in.Files, annotatorFile{Path: f.path, Regions: f.regions})
	}
	data, err := json.Marshal(in)
	if err != nil {
		return nil, err
	}
	if dl, ok := ctx.Deadline(); ok {
		// Leave the hook a moment to write what it has.
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, dl.Add(-500*time.Millisecond))
		defer cancel()
	}
	cmd := exec.CommandContext(ctx, "sh", "-c", command)
	cmd.Dir = view.repo.Root()
	cmd.Stdin = bytes.NewReader(data)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("annotator %q timed out; the commit was annotated without it", command)
		}
		return nil, fmt.Errorf("annotator %q failed: %v: %s", command, err, strings.TrimSpace(stderr.String()))
	}
	return ParseContexts(stdout.Bytes(), Author{Kind: "tool", Name: command})
}

// ParseContexts reads contexts as a JSON array, a single object, or JSON
// Lines, and validates them; contexts without an author get author.
func ParseContexts(data []byte, author Author) ([]Context, error) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return nil, nil
	}
	if data[0] == '[' {
		var cs []Context
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&cs); err != nil {
			return nil, contextsError(err)
		}
		return validated(cs, author)
	}
	var cs []Context
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	for dec.More() {
		var c Context
		if err := dec.Decode(&c); err != nil {
			return nil, contextsError(err)
		}
		cs = append(cs, c)
	}
	return validated(cs, author)
}

// ContextFields are the JSON field names of a Context, as --stdin and
// gloss_annotate take them.
var ContextFields = jsonFields(reflect.TypeOf(Context{}))

// contextsError says what was wrong with the JSON of contexts; an unknown
// field names the closest known one and lists them all.
func contextsError(err error) error {
	msg := err.Error()
	if field, ok := strings.CutPrefix(msg, "json: unknown field "); ok {
		field = strings.Trim(field, `"`)
		hint := ""
		if near := editdist.Nearest(field, ContextFields, 3); near != "" {
			hint = fmt.Sprintf("; did you mean %q?", near)
		}
		return fmt.Errorf("read contexts: unknown field %q%s (fields: %s; see 'git gloss schema annotate-context')",
			field, hint, strings.Join(ContextFields, ", "))
	}
	return fmt.Errorf("read contexts: %w", err)
}

// jsonFields lists the JSON names of a struct type's fields.
func jsonFields(t reflect.Type) []string {
	var names []string
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name != "" && name != "-" {
			names = append(names, name)
		}
	}
	return names
}

func validated(cs []Context, author Author) ([]Context, error) {
	for i := range cs {
		if err := cs[i].Validate(); err != nil {
			return nil, fmt.Errorf("context %d: %w", i+1, err)
		}
		if cs[i].Author == nil {
			a := author
			cs[i].Author = &a
		}
	}
	return cs, nil
}
