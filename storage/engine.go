// Package storage holds Causeway's versioned key-value engines: the Engine
// interface every protocol node persists through, an in-memory
// implementation (used by the simulator, with crash semantics) and a durable
// Pebble implementation (used by live servers).
//
// A key holds many versions. Versions are uint64 chosen by the protocol
// (Lamport timestamps, hybrid clocks, …); larger is newer. Readers ask for
// the latest version or the latest version at or before a given one, and
// protocols garbage-collect old versions with DeleteBelow.
package storage

import "errors"

// Version orders the versions of one key; larger is newer.
type Version = uint64

// WriteKind says what a Write does.
type WriteKind uint8

const (
	// Put stores Value as version Version of Key.
	Put WriteKind = iota
	// DeleteBelow removes every version of Key strictly older than Version.
	DeleteBelow
	// Delete removes every version of Key.
	Delete
	// DeleteVersion removes version Version of Key, if stored, and no
	// other. Unlike Delete and DeleteBelow it never reads: a protocol that
	// knows which version it stored (a record it wrote at version 0 and now
	// retires) names it, and the engine deletes that one entry blindly.
	DeleteVersion
)

// Write is one mutation; Engine.Apply applies a slice of them atomically.
type Write struct {
	Kind    WriteKind
	Key     string
	Version Version
	Value   []byte
}

// Record is one stored version of a key.
type Record struct {
	Key     string
	Version Version
	Value   []byte
}

// ErrClosed is returned by every method of a closed engine.
var ErrClosed = errors.New("storage: engine closed")

// Reader is the read side of an engine. Protocol nodes receive a Reader when
// they are created so that they can rebuild their state after a restart.
type Reader interface {
	// Get returns the latest version of key. found is false when the key
	// has no version.
	Get(key string) (rec Record, found bool, err error)
	// GetAt returns the latest version of key that is <= v.
	GetAt(key string, v Version) (rec Record, found bool, err error)
	// Scan calls fn with the latest version of every key that starts with
	// prefix, in ascending key order. It stops at the first error fn returns
	// and returns it.
	Scan(prefix string, fn func(Record) error) error
}

// Engine is a versioned key-value store.
type Engine interface {
	Reader
	// Apply applies writes atomically, in order. When sync is true the
	// writes (and every write applied before them) are durable when Apply
	// returns; otherwise they may be lost by a crash.
	Apply(writes []Write, sync bool) error
	// Close releases the engine. Unsynced writes may be lost.
	Close() error
}
