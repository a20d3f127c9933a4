// Package archtest checks the layering rules of DESIGN.md against the real
// import graph, so that a shortcut across layers fails the tests instead of
// slipping in. table_test.go is the layer table, package by package (its
// layer and exactly the gloss packages it imports); layers_test.go holds the
// table and the code to each other. It has no code of its own.
package archtest
