// Package archtest checks the layering rules of DESIGN.md against the real
// import graph (see layers_test.go), so that a shortcut across layers fails
// the tests instead of slipping in. It has no code of its own.
package archtest
