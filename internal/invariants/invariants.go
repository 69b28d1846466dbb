//go:build !causeway_invariants

// Package invariants turns on expensive self-checks inside protocols, as
// Pebble's internal/invariants does: code guarded by
//
//	if invariants.Enabled { … }
//
// is compiled away in normal builds and runs under
// `go test -tags causeway_invariants` (make seeds does). A failed
// self-check panics: it is a bug in the protocol, found where it happens
// rather than later by the checker.
package invariants

// Enabled is true when built with the causeway_invariants tag.
const Enabled = false
