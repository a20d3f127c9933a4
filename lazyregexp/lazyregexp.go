// Package lazyregexp holds regular expressions that are compiled the first
// time they are used rather than when the program starts.
//
// Every git-gloss process runs every package's initialisation, and the
// ones that run most often — a git hook, an agent's hook — use few of
// gloss's patterns. Compiling them all at start cost about a millisecond
// of each such process; a package-level pattern declared with New costs
// nothing until a match needs it. (The go command keeps an internal
// package of the same name for the same reason.)
package lazyregexp

import (
	"errors"
	"regexp"
	"sync"
)

// Regexp is a regexp.Regexp compiled on first use. Its methods are those
// of regexp.Regexp that gloss uses.
type Regexp struct {
	expr string
	once sync.Once
	rx   *regexp.Regexp
}

// all is every pattern New made, for Check.
var (
	allMu sync.Mutex
	all   []*Regexp
)

// New returns the pattern expr, to be compiled when first used. An
// invalid expr panics then, as regexp.MustCompile would at start; Check
// lets a test find it first.
func New(expr string) *Regexp {
	r := &Regexp{expr: expr}
	allMu.Lock()
	all = append(all, r)
	allMu.Unlock()
	return r
}

// Check compiles every pattern made so far (those of every package linked
// into the program) and returns the errors of those that do not compile.
func Check() error {
	allMu.Lock()
	defer allMu.Unlock()
	var errs []error
	for _, r := range all {
		if _, err := regexp.Compile(r.expr); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Regexp returns the compiled pattern.
func (r *Regexp) Regexp() *regexp.Regexp {
	r.once.Do(func() { r.rx = regexp.MustCompile(r.expr) })
	return r.rx
}

// String returns the source text of the pattern.
func (r *Regexp) String() string { return r.expr }

func (r *Regexp) MatchString(s string) bool { return r.Regexp().MatchString(s) }

func (r *Regexp) FindString(s string) string { return r.Regexp().FindString(s) }

func (r *Regexp) FindStringSubmatch(s string) []string { return r.Regexp().FindStringSubmatch(s) }

func (r *Regexp) FindStringSubmatchIndex(s string) []int {
	return r.Regexp().FindStringSubmatchIndex(s)
}

func (r *Regexp) FindAllString(s string, n int) []string { return r.Regexp().FindAllString(s, n) }

func (r *Regexp) FindAllStringIndex(s string, n int) [][]int {
	return r.Regexp().FindAllStringIndex(s, n)
}

func (r *Regexp) FindAllStringSubmatch(s string, n int) [][]string {
	return r.Regexp().FindAllStringSubmatch(s, n)
}

func (r *Regexp) FindAllStringSubmatchIndex(s string, n int) [][]int {
	return r.Regexp().FindAllStringSubmatchIndex(s, n)
}

func (r *Regexp) ReplaceAllString(src, repl string) string {
	return r.Regexp().ReplaceAllString(src, repl)
}

func (r *Regexp) ReplaceAllStringFunc(src string, repl func(string) string) string {
	return r.Regexp().ReplaceAllStringFunc(src, repl)
}

func (r *Regexp) Split(s string, n int) []string { return r.Regexp().Split(s, n) }
