//go:build !glosstest

package main

// startProfile profiles only in a build with the glosstest tag
// (profile.go): the release binary has no profiling switch.
func startProfile() (stop func()) { return func() {} }
