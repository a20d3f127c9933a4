package gitops

// pqueue is a binary heap of T that pops first the item first orders
// before all others. The graph walks keep thousands of commits queued and
// push and pop per commit, so it is a plain slice heap of values (no
// interface calls, as container/heap would make).
type pqueue[T any] struct {
	items []T
	first func(a, b T) bool // a pops before b
}

func (q *pqueue[T]) len() int { return len(q.items) }

func (q *pqueue[T]) push(it T) {
	q.items = append(q.items, it)
	h := q.items
	for i := len(h) - 1; i > 0; {
		up := (i - 1) / 2
		if !q.first(h[i], h[up]) {
			break
		}
		h[up], h[i] = h[i], h[up]
		i = up
	}
}

func (q *pqueue[T]) pop() T {
	h := q.items
	top := h[0]
	last := len(h) - 1
	h[0] = h[last]
	h = h[:last]
	for i := 0; ; {
		next, l, r := i, 2*i+1, 2*i+2
		if l < len(h) && q.first(h[l], h[next]) {
			next = l
		}
		if r < len(h) && q.first(h[r], h[next]) {
			next = r
		}
		if next == i {
			break
		}
		h[i], h[next] = h[next], h[i]
		i = next
	}
	q.items = h
	return top
}
