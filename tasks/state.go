package tasks

import (
	"slices"
	"strings"

	"github.com/gloss-dev/gloss/fault"
)

// transitions is Chant's state machine: from a stored status, the statuses
// a change may lead to (a status may always stay as it is). force skips it.
var transitions = map[string][]string{
	"pending":         {"in_progress", "cancelled"},
	"in_progress":     {"completed", "failed", "needs_attention", "paused", "cancelled"},
	"failed":          {"pending", "in_progress"},
	"needs_attention": {"pending", "in_progress"},
	"paused":          {"in_progress", "cancelled"},
	"completed":       {"pending"},
	"cancelled":       {"pending"},
}

// storedStatuses can be written; ready and blocked are computed on read.
var storedStatuses = []string{"pending", "in_progress", "paused", "completed", "failed", "needs_attention", "cancelled"}

// checkStatus validates a status given by a caller.
func checkStatus(st string) error {
	switch {
	case st == "ready" || st == "blocked":
		return fault.Usagef("Invalid status: %s. It is computed from dependencies and never stored; use pending", st)
	case !slices.Contains(storedStatuses, st):
		return fault.Usagef("Invalid status: %s. Must be one of: %s", st, strings.Join(Statuses, ", "))
	}
	return nil
}

// canTransition checks the state machine.
func canTransition(from, to string, force bool) error {
	if force || from == to || slices.Contains(transitions[from], to) {
		return nil
	}
	return fault.Checkf("Invalid transition from %s to %s", from, to)
}

// graph is every task by id, for dependency questions.
type graph struct {
	byID map[string]*Task
	kids map[string][]*Task // driver id → its direct members, in id order
}

func newGraph(all []*Task) graph {
	g := graph{byID: make(map[string]*Task, len(all)), kids: map[string][]*Task{}}
	for _, t := range all { // all is sorted, so every kids list is too
		g.add(t)
	}
	return g
}

// add puts a task in the graph (after the ones already there).
func (g graph) add(t *Task) {
	g.byID[t.ID] = t
	if d := driverOf(t.ID); d != "" {
		g.kids[d] = append(g.kids[d], t)
	}
}

// done reports whether a dependency counts as satisfied.
func done(t *Task) bool { return t != nil && (t.Status == "completed" || t.Status == "cancelled") }

// driverOf is the driver of a member id (a.1 → a), "" for others. Only a
// numeric suffix makes a member: a hand-named task such as "v1.2-upgrade"
// has no driver.
func driverOf(id string) string {
	i := strings.LastIndexByte(id, '.')
	if i <= 0 || i == len(id)-1 {
		return ""
	}
	for _, c := range id[i+1:] {
		if c < '0' || c > '9' {
			return ""
		}
	}
	return id[:i]
}

// members lists the direct members of a driver, in order.
func (g graph) members(id string) []*Task { return g.kids[id] }

// blockers lists why t is blocked: an approval required and not granted
// (Chant's is_blocked, for a pending task), unmet dependencies (missing ones
// included), and for a member, its driver's unmet dependencies that are not
// the driver's own members.
func (g graph) blockers(t *Task) []string {
	var out []string
	if t.Status == "pending" && t.Approval.awaiting() {
		out = append(out, t.Approval.gate())
	}
	for _, d := range t.DependsOn {
		if dep, ok := g.byID[d]; !ok {
			out = append(out, d+" (missing)")
		} else if !done(dep) {
			out = append(out, d+" ("+dep.Status+")")
		}
	}
	if drv := g.byID[driverOf(t.ID)]; drv != nil {
		for _, d := range drv.DependsOn {
			if driverOf(d) == drv.ID {
				continue
			}
			if dep, ok := g.byID[d]; !ok || !done(dep) {
				out = append(out, d+" (dependency of "+drv.ID+")")
			}
		}
	}
	return out
}

// blocked is computed, never stored.
func (g graph) blocked(t *Task) bool {
	return (t.Status == "pending" || t.Status == "failed") && len(g.blockers(t)) > 0
}

// ready: pending or failed, not blocked, earlier siblings done, and a task
// with members and criteria waits for all of its members.
func (g graph) ready(t *Task) bool {
	if t.Archived || t.parseErr != nil || (t.Status != "pending" && t.Status != "failed") || g.blocked(t) || t.Type == "group" {
		return false
	}
	if drv := driverOf(t.ID); drv != "" && len(t.DependsOn) == 0 {
		for _, sib := range g.members(drv) {
			if CompareIDs(sib.ID, t.ID) >= 0 {
				break
			}
			if !done(sib) {
				return false
			}
		}
	}
	if ms := g.members(t.ID); len(ms) > 0 && criteriaOf(t.Body).Total > 0 {
		for _, m := range ms {
			if !done(m) {
				return false
			}
		}
	}
	return true
}

// effective is the status a reader sees: stored, or ready/blocked.
func (g graph) effective(t *Task) string {
	switch {
	case g.blocked(t):
		return "blocked"
	case t.Status == "pending" && g.ready(t):
		return "ready"
	}
	return t.Status
}

// checkCycle refuses depends_on lists that would make a cycle, naming it:
// "Circular dependency detected: a -> b -> a".
func (g graph) checkCycle(id string, deps []string) error {
	depsOf := func(x string) []string {
		if x == id {
			return deps
		}
		if t := g.byID[x]; t != nil {
			return t.DependsOn
		}
		return nil
	}
	var path []string
	onPath, finished := map[string]bool{}, map[string]bool{}
	var dfs func(x string) bool
	dfs = func(x string) bool {
		path = append(path, x)
		onPath[x] = true
		for _, n := range depsOf(x) {
			if n == id {
				path = append(path, n)
				return true
			}
			if !onPath[n] && !finished[n] && dfs(n) {
				return true
			}
		}
		onPath[x], finished[x] = false, true
		path = path[:len(path)-1]
		return false
	}
	if dfs(id) {
		return fault.Usagef("Circular dependency detected: %s", strings.Join(path, " -> "))
	}
	return nil
}
