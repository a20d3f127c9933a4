package gitops

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// The queue pops in the order a stable sort by its order gives, whatever
// the order of pushes, with pushes between pops.
func TestPqueuePopsInOrder(t *testing.T) {
	type item struct{ key, seq int }
	rng := rand.New(rand.NewPCG(1, 2))
	q := pqueue[item]{first: func(a, b item) bool {
		if a.key != b.key {
			return a.key > b.key
		}
		return a.seq < b.seq
	}}
	var pushed, popped []item
	for seq := 0; seq < 2000; seq++ {
		it := item{rng.IntN(50), seq}
		q.push(it)
		pushed = append(pushed, it)
		if rng.IntN(3) == 0 {
			popped = append(popped, q.pop())
		}
	}
	for q.len() > 0 {
		popped = append(popped, q.pop())
	}
	if len(popped) != len(pushed) {
		t.Fatalf("popped %d of %d", len(popped), len(pushed))
	}
	// Every pop is the first of what was queued at that moment: replay.
	var queued []item
	i := 0
	rng = rand.New(rand.NewPCG(1, 2))
	for seq := 0; seq < 2000; seq++ {
		queued = append(queued, item{rng.IntN(50), seq})
		if rng.IntN(3) == 0 {
			i = checkFirst(t, &queued, popped, i, q.first)
		}
	}
	for len(queued) > 0 {
		i = checkFirst(t, &queued, popped, i, q.first)
	}
}

func checkFirst[T comparable](t *testing.T, queued *[]T, popped []T, i int, first func(a, b T) bool) int {
	t.Helper()
	best := 0
	for j, it := range *queued {
		if first(it, (*queued)[best]) {
			best = j
		}
	}
	if popped[i] != (*queued)[best] {
		t.Fatalf("pop %d = %v, want %v", i, popped[i], (*queued)[best])
	}
	*queued = slices.Delete(*queued, best, best+1)
	return i + 1
}
