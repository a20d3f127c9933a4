// Package blake3 computes BLAKE3-256 digests, the hash NotarAI writes in
// its snapshots (spec drift compares files by it).
//
// It is the portable form of the BLAKE3 specification (Aumasson et al.,
// 2020): one compression at a time, no SIMD. gloss hashes the few files a
// spec covers, where that is fast enough (BenchmarkSum), and every process
// start is not taxed: the assembly implementations (lukechampine.com/blake3,
// github.com/zeebo/blake3) detect the CPU through
// github.com/klauspost/cpuid when the program starts, whose CPUID
// instructions trap to the hypervisor on a virtual machine and took a
// quarter of `git gloss --version`'s start there. The tests check every
// length across chunk and tree boundaries against lukechampine.com/blake3.
package blake3

import (
	"encoding/binary"
	"hash"
	"math/bits"
)

// Size is the length of a digest in bytes; BlockSize is the block BLAKE3
// compresses.
const (
	Size      = 32
	BlockSize = 64
	chunkSize = 1024
)

// The domain flags of the compression function.
const (
	chunkStart = 1 << 0
	chunkEnd   = 1 << 1
	parent     = 1 << 2
	root       = 1 << 3
)

// iv is BLAKE3's initial chaining value (SHA-256's).
var iv = [8]uint32{
	0x6A09E667, 0xBB67AE85, 0x3C6EF372, 0xA54FF53A,
	0x510E527F, 0x9B05688C, 0x1F83D9AB, 0x5BE0CD19,
}

// schedule[r] is the order in which round r reads the message words: the
// specification's permutation applied r times.
var schedule = [7][16]uint8{
	{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
	{2, 6, 3, 10, 7, 0, 4, 13, 1, 11, 12, 5, 9, 14, 15, 8},
	{3, 4, 10, 12, 13, 2, 7, 14, 6, 5, 9, 0, 11, 15, 8, 1},
	{10, 7, 12, 9, 14, 3, 13, 15, 4, 0, 11, 2, 5, 8, 1, 6},
	{12, 13, 9, 11, 15, 10, 14, 8, 7, 2, 5, 3, 0, 1, 6, 4},
	{9, 14, 11, 5, 8, 12, 15, 1, 13, 3, 0, 10, 2, 6, 4, 7},
	{11, 15, 5, 0, 1, 9, 8, 6, 14, 10, 2, 12, 3, 4, 7, 13},
}

// g mixes four words of the state with two message words.
func g(s *[16]uint32, a, b, c, d int, mx, my uint32) {
	s[a] += s[b] + mx
	s[d] = bits.RotateLeft32(s[d]^s[a], -16)
	s[c] += s[d]
	s[b] = bits.RotateLeft32(s[b]^s[c], -12)
	s[a] += s[b] + my
	s[d] = bits.RotateLeft32(s[d]^s[a], -8)
	s[c] += s[d]
	s[b] = bits.RotateLeft32(s[b]^s[c], -7)
}

// compress is BLAKE3's compression function: the 16-word output of one
// block under chaining value cv.
func compress(cv *[8]uint32, m *[16]uint32, counter uint64, blockLen, flags uint32) [16]uint32 {
	s := [16]uint32{
		cv[0], cv[1], cv[2], cv[3], cv[4], cv[5], cv[6], cv[7],
		iv[0], iv[1], iv[2], iv[3],
		uint32(counter), uint32(counter >> 32), blockLen, flags,
	}
	for r := range schedule {
		p := &schedule[r]
		g(&s, 0, 4, 8, 12, m[p[0]], m[p[1]])
		g(&s, 1, 5, 9, 13, m[p[2]], m[p[3]])
		g(&s, 2, 6, 10, 14, m[p[4]], m[p[5]])
		g(&s, 3, 7, 11, 15, m[p[6]], m[p[7]])
		g(&s, 0, 5, 10, 15, m[p[8]], m[p[9]])
		g(&s, 1, 6, 11, 12, m[p[10]], m[p[11]])
		g(&s, 2, 7, 8, 13, m[p[12]], m[p[13]])
		g(&s, 3, 4, 9, 14, m[p[14]], m[p[15]])
	}
	for i := range 8 {
		s[i] ^= s[i+8]
		s[i+8] ^= cv[i]
	}
	return s
}

// words reads a block, zero-padded, as little-endian words.
func words(block *[BlockSize]byte) (m [16]uint32) {
	for i := range m {
		m[i] = binary.LittleEndian.Uint32(block[4*i:])
	}
	return m
}

// node is what the last compression of a chunk or a parent takes: from
// it come the node's chaining value or, at the root, the digest.
type node struct {
	cv       [8]uint32
	block    [16]uint32
	counter  uint64
	blockLen uint32
	flags    uint32
}

func (n *node) chainingValue() (cv [8]uint32) {
	out := compress(&n.cv, &n.block, n.counter, n.blockLen, n.flags)
	copy(cv[:], out[:8])
	return cv
}

func parentNode(left, right [8]uint32) node {
	n := node{cv: iv, blockLen: BlockSize, flags: parent}
	copy(n.block[:8], left[:])
	copy(n.block[8:], right[:])
	return n
}

// chunk is the state of the chunk being hashed: up to 1024 bytes, in
// blocks of 64, the last of them held back until more input or the end
// says whether it ends the chunk.
type chunk struct {
	cv       [8]uint32
	counter  uint64
	block    [BlockSize]byte
	blockLen int
	blocks   int // compressed so far
}

func newChunk(counter uint64) chunk { return chunk{cv: iv, counter: counter} }

func (c *chunk) len() int { return c.blocks*BlockSize + c.blockLen }

func (c *chunk) startFlag() uint32 {
	if c.blocks == 0 {
		return chunkStart
	}
	return 0
}

// write takes p, at most what the chunk has room for.
func (c *chunk) write(p []byte) {
	for len(p) > 0 {
		if c.blockLen == BlockSize {
			m := words(&c.block)
			out := compress(&c.cv, &m, c.counter, BlockSize, c.startFlag())
			copy(c.cv[:], out[:8])
			c.blocks++
			c.block = [BlockSize]byte{}
			c.blockLen = 0
		}
		n := copy(c.block[c.blockLen:], p)
		c.blockLen += n
		p = p[n:]
	}
}

func (c *chunk) node() node {
	return node{
		cv:       c.cv,
		block:    words(&c.block),
		counter:  c.counter,
		blockLen: uint32(c.blockLen),
		flags:    c.startFlag() | chunkEnd,
	}
}

// Hasher is a streaming BLAKE3-256 hash; it implements hash.Hash.
type Hasher struct {
	chunk chunk
	// stack holds the chaining values of complete subtrees, largest
	// first: one per bit set in the number of chunks done.
	stack [][8]uint32
}

var _ hash.Hash = (*Hasher)(nil)

// New returns a Hasher of BLAKE3-256.
func New() *Hasher { return &Hasher{chunk: newChunk(0)} }

// Write adds p to the input; it never fails.
func (h *Hasher) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		if h.chunk.len() == chunkSize {
			node := h.chunk.node()
			h.push(node.chainingValue(), h.chunk.counter+1)
			h.chunk = newChunk(h.chunk.counter + 1)
		}
		take := min(chunkSize-h.chunk.len(), len(p))
		h.chunk.write(p[:take])
		p = p[take:]
	}
	return n, nil
}

// push adds a finished chunk's chaining value, merging the subtrees the
// total number of chunks done completes (one per trailing zero bit).
func (h *Hasher) push(cv [8]uint32, total uint64) {
	for total&1 == 0 {
		top := len(h.stack) - 1
		p := parentNode(h.stack[top], cv)
		cv = p.chainingValue()
		h.stack = h.stack[:top]
		total >>= 1
	}
	h.stack = append(h.stack, cv)
}

// Sum appends the digest of the input so far to b; the state is unchanged.
func (h *Hasher) Sum(b []byte) []byte {
	n := h.chunk.node()
	for i := len(h.stack) - 1; i >= 0; i-- {
		n = parentNode(h.stack[i], n.chainingValue())
	}
	out := compress(&n.cv, &n.block, 0, n.blockLen, n.flags|root)
	for _, w := range out[:Size/4] {
		b = binary.LittleEndian.AppendUint32(b, w)
	}
	return b
}

// Reset forgets the input.
func (h *Hasher) Reset() { *h = Hasher{chunk: newChunk(0), stack: h.stack[:0]} }

// Size is the digest's length in bytes.
func (h *Hasher) Size() int { return Size }

// BlockSize is the size of the block BLAKE3 compresses.
func (h *Hasher) BlockSize() int { return BlockSize }

// Sum256 is the BLAKE3-256 digest of data.
func Sum256(data []byte) (sum [Size]byte) {
	h := New()
	h.Write(data)
	h.Sum(sum[:0])
	return sum
}
