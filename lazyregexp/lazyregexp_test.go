package lazyregexp

import (
	"fmt"
	"regexp"
	"sync"
	"testing"
)

func TestCompiledOnFirstUseOnly(t *testing.T) {
	r := New(`a(b+)c`)
	if r.rx != nil {
		t.Fatal("compiled before use")
	}
	if got := r.FindStringSubmatch("xabbcx"); len(got) != 2 || got[1] != "bb" {
		t.Fatalf("FindStringSubmatch = %q", got)
	}
	first := r.Regexp()
	if r.Regexp() != first {
		t.Fatal("compiled twice")
	}
}

// Concurrent first uses compile once and all see the compiled pattern.
func TestConcurrentFirstUse(t *testing.T) {
	r := New(`^[a-z]+$`)
	var wg sync.WaitGroup
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if !r.MatchString("gloss") {
				t.Error("no match")
			}
		}()
	}
	wg.Wait()
}

// Each method answers what regexp.Regexp's does.
func TestMethodsAgreeWithRegexp(t *testing.T) {
	const expr, s = `(\w)(\d)`, "a1 b2 c3"
	r, want := New(expr), regexp.MustCompile(expr)
	eq := func(name string, got, exp any) {
		t.Helper()
		if g, e := fmtAny(got), fmtAny(exp); g != e {
			t.Errorf("%s = %s, regexp says %s", name, g, e)
		}
	}
	eq("MatchString", r.MatchString(s), want.MatchString(s))
	eq("FindString", r.FindString(s), want.FindString(s))
	eq("FindStringSubmatchIndex", r.FindStringSubmatchIndex(s), want.FindStringSubmatchIndex(s))
	eq("FindAllString", r.FindAllString(s, -1), want.FindAllString(s, -1))
	eq("FindAllStringIndex", r.FindAllStringIndex(s, 2), want.FindAllStringIndex(s, 2))
	eq("FindAllStringSubmatch", r.FindAllStringSubmatch(s, -1), want.FindAllStringSubmatch(s, -1))
	eq("FindAllStringSubmatchIndex", r.FindAllStringSubmatchIndex(s, -1), want.FindAllStringSubmatchIndex(s, -1))
	eq("ReplaceAllString", r.ReplaceAllString(s, "$2$1"), want.ReplaceAllString(s, "$2$1"))
	up := func(m string) string { return m + m }
	eq("ReplaceAllStringFunc", r.ReplaceAllStringFunc(s, up), want.ReplaceAllStringFunc(s, up))
	eq("Split", r.Split(s, -1), want.Split(s, -1))
	eq("String", r.String(), want.String())
}

func fmtAny(v any) string { return fmt.Sprintf("%#v", v) }

func TestCheckFindsABadPattern(t *testing.T) {
	if err := Check(); err != nil {
		t.Fatalf("before: %v", err)
	}
	bad := New(`a(b`)
	defer func() {
		allMu.Lock()
		all = all[:len(all)-1]
		allMu.Unlock()
	}()
	if err := Check(); err == nil {
		t.Fatalf("Check passed %q", bad.String())
	}
}
