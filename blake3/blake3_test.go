package blake3_test

import (
	"bytes"
	"encoding/hex"
	"math/rand/v2"
	"testing"

	reference "lukechampine.com/blake3"

	"github.com/gloss-dev/gloss/blake3"
)

// input is the specification's test input: byte i is i mod 251.
func input(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i % 251)
	}
	return b
}

// The digests the BLAKE3 specification's test vectors give for the
// empty input and for "abc" are well known; the rest is checked against
// an independent implementation.
func TestKnownDigests(t *testing.T) {
	for in, want := range map[string]string{
		"":    "af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262",
		"abc": "6437b3ac38465133ffb63b75273a8db548c558465d79db03fd359c6cd5bd9d85",
	} {
		sum := blake3.Sum256([]byte(in))
		if got := hex.EncodeToString(sum[:]); got != want {
			t.Errorf("Sum256(%q) = %s, want %s", in, got, want)
		}
	}
}

// lengths crosses every boundary of the hash's tree: a block (64), a
// chunk (1024), and subtrees of 2, 3, 4, 5, 8 and more chunks.
func lengths() []int {
	var ns []int
	for n := 0; n <= 2*1024+130; n++ {
		ns = append(ns, n)
	}
	for _, chunks := range []int{3, 4, 5, 6, 7, 8, 9, 15, 16, 17, 31, 32, 33, 100} {
		for _, d := range []int{-65, -64, -1, 0, 1, 63, 64, 65} {
			ns = append(ns, chunks*1024+d)
		}
	}
	return append(ns, 102400, 1<<20+17)
}

func TestSum256MatchesReference(t *testing.T) {
	data := input(1<<20 + 17)
	for _, n := range lengths() {
		got, want := blake3.Sum256(data[:n]), reference.Sum256(data[:n])
		if got != want {
			t.Fatalf("Sum256 of %d bytes = %x, want %x", n, got, want)
		}
	}
}

// TestStreaming writes the input in random pieces: the digest depends
// on the bytes only, and Sum leaves the state as it was.
func TestStreaming(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	data := input(40 * 1024)
	h := blake3.New()
	for _, n := range []int{0, 1, 64, 1000, 1024, 1025, 5000, 20480, 40 * 1024} {
		for trial := 0; trial < 5; trial++ {
			h.Reset()
			rest := data[:n]
			for len(rest) > 0 {
				k := min(len(rest), rng.IntN(3000)+1)
				h.Write(rest[:k])
				rest = rest[k:]
				if trial == 0 {
					h.Sum(nil) // must not change what follows
				}
			}
			want := reference.Sum256(data[:n])
			if got := h.Sum(nil); !bytes.Equal(got, want[:]) {
				t.Fatalf("streamed %d bytes (trial %d): %x, want %x", n, trial, got, want)
			}
			if got := h.Sum([]byte("x")); !bytes.Equal(got[1:], want[:]) || got[0] != 'x' {
				t.Fatalf("Sum appends to its argument: %x", got)
			}
		}
	}
	if h.Size() != 32 || h.BlockSize() != 64 {
		t.Errorf("Size %d, BlockSize %d", h.Size(), h.BlockSize())
	}
}

// BenchmarkSum hashes a 64 KiB file, the size of a large spec document,
// here and with the assembly implementation.
func BenchmarkSum(b *testing.B) {
	data := input(64 << 10)
	b.Run("gloss", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			blake3.Sum256(data)
		}
	})
	b.Run("lukechampine", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			reference.Sum256(data)
		}
	})
}
