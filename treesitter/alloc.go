package treesitter

/*
#include <stddef.h>
// From tree-sitter's api.h: NULL functions restore the C library's
// malloc, calloc, realloc and free.
void ts_set_allocator(void *(*new_malloc)(size_t), void *(*new_calloc)(size_t, size_t),
                      void *(*new_realloc)(void *, size_t), void (*new_free)(void *));
static void gloss_use_libc_allocator(void) { ts_set_allocator(NULL, NULL, NULL, NULL); }
*/
import "C"

// The Go bindings route every allocation tree-sitter makes through Go
// callbacks (so that a program may plug in its own allocator), a cgo
// round trip per malloc that made parsing several times slower. gloss
// plugs in nothing, so it hands tree-sitter the C library's allocator
// back once, before any parse.
func init() {
	C.gloss_use_libc_allocator()
}
