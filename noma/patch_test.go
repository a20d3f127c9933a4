package noma

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func op(t *testing.T, js string) Op {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(js), &m); err != nil {
		t.Fatal(err)
	}
	o, e := OpFromMap(m)
	if e != nil {
		t.Fatalf("op %s: %v", js, e)
	}
	return o
}

func apply(t *testing.T, src string, ops ...string) (string, error) {
	t.Helper()
	var list []Op
	for _, o := range ops {
		list = append(list, op(t, o))
	}
	return ApplySource(src, list)
}

func code(err error) string {
	var pe *PatchError
	if errors.As(err, &pe) {
		return pe.Code
	}
	if err != nil {
		return "other:" + err.Error()
	}
	return ""
}

func TestPatchCases(t *testing.T) {
	cases := []struct {
		name, src string
		ops       []string
		want      string
		code      string
	}{
		{"crlf untouched lines keep CR", "::c{id=\"a\" x=1}\r\nbody\r\n::\r\n\r\n::d{id=\"b\"}\r\nB\r\n::\r\n",
			[]string{`{"op":"update_attribute","id":"a","key":"x","value":2}`},
			"::c{id=\"a\" x=2}\r\nbody\r\n::\r\n\r\n::d{id=\"b\"}\r\nB\r\n::\r\n", ""},
		{"crlf delete", "::c{id=\"a\"}\r\nA\r\n::\r\n\r\n::c{id=\"b\"}\r\nB\r\n::\r\n",
			[]string{`{"op":"delete_block","id":"a"}`}, "\r\n::c{id=\"b\"}\r\nB\r\n::\r\n", ""},
		{"crlf inserts stay crlf", "::c{id=\"a\"}\r\nA\r\n::\r\n",
			[]string{`{"op":"add_comment","id":"k","target":"a","content":"x\ny"}`, `{"op":"replace_body","id":"k","content":"z"}`},
			"::c{id=\"a\"}\r\nA\r\n::\r\n\r\n::comment{id=\"k\" parent=\"a\"}\r\nz\r\n::\r\n", ""},
		{"first block deleted leaves a leading newline", "::c{id=\"a\"}\nA\n::\n\n::c{id=\"b\"}\nB\n::\n",
			[]string{`{"op":"delete_block","id":"a"}`}, "\n::c{id=\"b\"}\nB\n::\n", ""},
		{"add to empty directive", "::box{id=\"p\"}\n::\n",
			[]string{`{"op":"add_block","parent":"p","content":":::c{id=\"x\"}\nX\n:::\n\n"}`}, "::box{id=\"p\"}\n:::c{id=\"x\"}\nX\n:::\n::\n", ""},
		{"add to empty section", "# S\n",
			[]string{`{"op":"add_block","parent":"s","content":"::c{id=\"x\"}\nX\n::"}`}, "# S\n::c{id=\"x\"}\nX\n::\n", ""},
		// spec §3.1.2: a position outside 0..len(children) is refused like a
		// missing parent (the reference clamps it); len itself is the end
		{"position past the end", "::box{id=\"p\"}\n:::c{id=\"a\"}\nA\n:::\n::\n",
			[]string{`{"op":"add_block","parent":"p","position":2,"content":":::c{id=\"x\"}\nX\n:::"}`}, "", CodeParentMissing},
		{"position -1", "::box{id=\"p\"}\n:::c{id=\"a\"}\nA\n:::\n::\n",
			[]string{`{"op":"add_block","parent":"p","position":-1,"content":":::c{id=\"x\"}\nX\n:::"}`}, "", CodeParentMissing},
		{"position not an integer", "::box{id=\"p\"}\n:::c{id=\"a\"}\nA\n:::\n::\n",
			[]string{`{"op":"add_block","parent":"p","position":0.5,"content":":::c{id=\"x\"}\nX\n:::"}`}, "", CodeInvalidContent},
		{"position at the end", "::box{id=\"p\"}\n:::c{id=\"a\"}\nA\n:::\n::\n",
			[]string{`{"op":"add_block","parent":"p","position":1,"content":":::c{id=\"x\"}\nX\n:::"}`}, "::box{id=\"p\"}\n:::c{id=\"a\"}\nA\n:::\n\n:::c{id=\"x\"}\nX\n:::\n::\n", ""},
		{"move to a position out of range", "::box{id=\"p\"}\n::\n\n::c{id=\"a\"}\nA\n::\n",
			[]string{`{"op":"move_block","id":"a","parent":"p","position":1}`}, "", CodeParentMissing},
		{"alias is not a target", "---\naliases: [al]\n---\n# H\n",
			[]string{`{"op":"update_heading","id":"al","title":"X"}`}, "", CodeTargetMissing},
		{"move into own descendant", "::box{id=\"p\"}\n:::box{id=\"q\"}\n:::\n::\n",
			[]string{`{"op":"move_block","id":"p","parent":"q"}`}, "", CodeInvalidContent},
		{"move a section", "# S\n\n::c{id=\"a\"}\nA\n::\n",
			[]string{`{"op":"move_block","id":"s","parent":"a"}`}, "", CodeInvalidContent},
		{"rename keeps target= and labels, rewrites fences", "::c{id=\"old\"}\nx\n::\n\n::comment{id=\"k\" target=\"old\" ref=old}\nsee [[old|label]] and [[old]]\n::\n\n```\n[[old]]\n```\n",
			[]string{`{"op":"rename_id","from":"old","to":"new"}`},
			"::c{id=\"new\"}\nx\n::\n\n::comment{id=\"k\" target=\"old\" ref=\"new\"}\nsee [[old|label]] and [[new]]\n::\n\n```\n[[new]]\n```\n", ""},
		{"rename a heading", "## Intro\n\nText [[intro]].\n",
			[]string{`{"op":"rename_id","from":"intro","to":"start"}`}, "## Intro {id=\"start\"}\n\nText [[start]].\n", ""},
		{"update_heading pins the old id", "## Old {class=x}\n",
			[]string{`{"op":"update_heading","id":"old","title":"New"}`}, "## New {class=x id=\"old\"}\n", ""},
		{"update_attribute on a section", "# S\n", []string{`{"op":"update_attribute","id":"s","key":"k","value":"v"}`}, "", CodeTargetMissing},
		{"both quotes refused", "::c{id=\"a\"}\n::\n", []string{`{"op":"update_attribute","id":"a","key":"k","value":"it's \"x\""}`}, "", CodeInvalidContent},
		{"replace_body with children", "::c{id=\"a\"}\n:::d\nx\n:::\n::\n", []string{`{"op":"replace_body","id":"a","content":"y"}`}, "", CodeInvalidContent},
		{"replace_body empty", "::c{id=\"a\"}\nold\n::\n", []string{`{"op":"replace_body","id":"a","content":""}`}, "::c{id=\"a\"}\n\n::\n", ""},
		{"baseHash prefix ok", "::claim{id=\"c1\"}\nbody\n::\n", []string{`{"op":"replace_body","id":"c1","content":"x","baseHash":"  08EE29D2 "}`}, "::claim{id=\"c1\"}\nx\n::\n", ""},
		{"baseHash malformed", "::claim{id=\"c1\"}\nbody\n::\n", []string{`{"op":"replace_body","id":"c1","content":"x","baseHash":"xyz"}`}, "", CodeInvalidContent},
		{"baseHash anchor missing", "::claim{id=\"c1\"}\nbody\n::\n", []string{`{"op":"add_block","parent":"zz","content":"::a\n::","baseHash":"08ee29d2"}`}, "", CodeTargetMissing},
		{"comment on a section", "# S\n\nText.\n", []string{`{"op":"add_comment","id":"k","target":"s","content":"Hi"}`}, "# S\n\n::comment{id=\"k\" parent=\"s\"}\nHi\n::\n\nText.\n", ""},
		{"comment id conflict", "::c{id=\"a\"}\n::\n", []string{`{"op":"add_comment","id":"a","target":"a","content":"Hi"}`}, "", CodeIDConflict},
		{"resolve non-comment", "::c{id=\"a\"}\n::\n", []string{`{"op":"resolve_comment","id":"a"}`}, "", CodeInvalidContent},
		{"change request missing from", "::c{id=\"a\"}\n::\n", []string{`{"op":"add_change_request","id":"r","target":"a","action":"replace","to":"x"}`}, "", CodeInvalidContent},
		{"table label column and escape", "::table{id=\"t\" header}\nA | B\n1 | 2\n::\n", []string{`{"op":"update_table_cell","id":"t","row":0,"column":"B","value":"x|y"}`}, "::table{id=\"t\" header}\nA | B\n| 1 | x\\|y |\n::\n", ""},
		{"table last column", "::table{id=\"t\"}\nA\n::\n", []string{`{"op":"delete_table_column","id":"t","column":0}`}, "", CodeInvalidContent},
		{"table row out of range", "::table{id=\"t\"}\nA | B\n::\n", []string{`{"op":"delete_table_row","id":"t","row":1}`}, "", CodeInvalidContent},
		{"not a table", "::c{id=\"t\"}\nA | B\n::\n", []string{`{"op":"delete_table_row","id":"t","row":0}`}, "", CodeInvalidContent},
		{"dataset empty rows", "::dataset{id=\"d\"}\nschema:\n  a: string\n  n: number\nrows: []\n::\n", []string{`{"op":"insert_dataset_row","id":"d","row":0,"cells":["x y","1"]}`}, "::dataset{id=\"d\"}\nschema:\n  a: string\n  n: number\nrows:\n  - [x y, 1]\n::\n", ""},
		{"dataset last row", "::dataset{id=\"d\"}\nrows:\n  - [1]\n::\n", []string{`{"op":"delete_dataset_row","id":"d","row":0}`}, "::dataset{id=\"d\"}\nrows: []\n::\n", ""},
		{"dataset quoting", "::dataset{id=\"d\"}\nrows:\n  - [a, 1, x]  # keep\n::\n", []string{`{"op":"update_dataset_cell","id":"d","row":0,"column":0,"value":"a,b"}`, `{"op":"update_dataset_cell","id":"d","row":0,"column":2,"value":"yes"}`}, "::dataset{id=\"d\"}\nrows:\n  - ['a,b', 1, true]  # keep\n::\n", ""},
		{"dataset csv", "::dataset{id=\"d\" format=csv}\nname,n\nacme,1\n::\n", []string{`{"op":"update_dataset_cell","id":"d","row":0,"column":"name","value":"a, b"}`}, "::dataset{id=\"d\" format=csv}\nname,n\n\"a, b\",1\n::\n", ""},
		{"json rows", "::dataset{id=\"d\" format=json columns=\"name,n\"}\n[\n  [\"a\", 1],\n  [\"b\", 2]\n]\n::\n",
			[]string{`{"op":"update_dataset_cell","id":"d","row":1,"column":"n","value":"3.50"}`, `{"op":"insert_dataset_row","id":"d","row":2,"cells":["c","4"]}`, `{"op":"delete_dataset_row","id":"d","row":0}`},
			"::dataset{id=\"d\" format=json columns=\"name,n\"}\n[\n  [\"b\",3.5],\n  [\"c\",4]\n]\n::\n", ""},
		{"json records", "::dataset{id=\"d\" format=json}\n[\n  {\"name\": \"a\", \"n\": 1}\n]\n::\n",
			[]string{`{"op":"insert_dataset_column","id":"d","column":1,"header":"ok","cells":["yes"]}`, `{"op":"insert_dataset_row","id":"d","row":0,"cells":["z","0","9"]}`, `{"op":"delete_dataset_column","id":"d","column":"n"}`},
			"::dataset{id=\"d\" format=json}\n[\n  { \"name\": \"z\", \"ok\": false },\n  { \"name\": \"a\", \"ok\": true }\n]\n::\n", ""},
		{"json columns and rows", "::dataset{id=\"d\" format=json}\n{\n  \"columns\": [\"a\", \"b\"],\n  \"rows\": [\n    [1, 2]\n  ]\n}\n::\n",
			[]string{`{"op":"delete_dataset_column","id":"d","column":"a"}`},
			"::dataset{id=\"d\" format=json}\n{\n  \"columns\": [\"b\"],\n  \"rows\": [\n    [2]\n  ]\n}\n::\n", ""},
		{"dataset column without schema", "::dataset{id=\"d\"}\nrows:\n  - [1]\n::\n", []string{`{"op":"insert_dataset_column","id":"d","column":1,"header":"x","cells":["1"]}`}, "", CodeInvalidContent},
		{"replace_block with two blocks", "::c{id=\"a\"}\n::\n", []string{`{"op":"replace_block","id":"a","content":"::c{id=\"a\"}\n::\n::d\n::"}`}, "", CodeInvalidContent},
	}
	for _, c := range cases {
		if len(c.ops) == 0 {
			continue
		}
		got, err := apply(t, c.src, c.ops...)
		if code(err) != c.code {
			t.Errorf("%s: error %q, want %q", c.name, code(err), c.code)
			continue
		}
		if c.code == "" && got != c.want {
			t.Errorf("%s:\ngot  %q\nwant %q", c.name, got, c.want)
		}
	}
}

func TestOpShapes(t *testing.T) {
	for js, want := range map[string]string{
		`{"op":"nope"}`: CodeUnsupportedOp,
		`{"op":"update_attribute","id":"a","key":"k","value":null}`:         CodeInvalidContent,
		`{"op":"replace_body","id":"a","body":"x"}`:                         CodeInvalidContent,
		`{"op":"insert_table_row","id":"a","row":"1","cells":[]}`:           CodeInvalidContent,
		`{"op":"add_change_request","id":"a","target":"b","action":"move"}`: CodeInvalidContent,
	} {
		var m map[string]any
		_ = json.Unmarshal([]byte(js), &m)
		if _, e := OpFromMap(m); e == nil || e.Code != want {
			t.Errorf("%s: %v, want %s", js, e, want)
		}
	}
	o := op(t, `{"value":1,"key":"k","junk":true,"id":"a","op":"update_attribute","baseHash":"abcdef12"}`)
	data, _ := json.Marshal(o)
	if string(data) != `{"op":"update_attribute","id":"a","key":"k","value":1,"baseHash":"abcdef12"}` {
		t.Errorf("schema order, unknown keys dropped, baseHash last: %s", data)
	}
	if len(OpNames()) != 25 {
		t.Errorf("%d ops, want 25", len(OpNames()))
	}
}

func TestBlockSourceHash(t *testing.T) {
	h, err := BlockSourceHash("::claim{id=\"c1\"}\nbody\n::\n", "c1")
	if err != nil || h != "08ee29d2399ccc04f1397a6ef1b9a39ecba640f036b39e49296615329c794521" {
		t.Errorf("hash %s %v", h, err)
	}
}

// The attribute fast path (no re-parse) must agree with a full re-parse.
func TestIncrementalMatchesReparse(t *testing.T) {
	src := "::claim{id=\"c1\" a=1}\nbody\n::\n\n::claim{id=\"c2\"}\nx\n::\n"
	p := NewPatcher(src)
	for _, js := range []string{`{"op":"update_attribute","id":"c1","key":"a","value":2}`, `{"op":"remove_attribute","id":"c1","key":"a"}`,
		`{"op":"update_attribute","id":"c2","key":"b","value":"x y"}`, `{"op":"update_attribute","id":"c2","key":"b","value":true}`} {
		if err := p.Apply(op(t, js)); err != nil {
			t.Fatal(err)
		}
		cached, _ := p.Doc()
		fresh, _ := Parse(p.Text())
		if Dump(cached) != Dump(fresh) {
			t.Fatalf("after %s:\ncached %s\nfresh  %s", js, Dump(cached), Dump(fresh))
		}
	}
	if !strings.Contains(p.Text(), `::claim{id="c2" b}`) {
		t.Errorf("text %q", p.Text())
	}
}
