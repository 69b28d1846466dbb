package protocol

import (
	"encoding/binary"
	"fmt"
)

// TokenDep is one dependency ⟨key, version⟩ a session token names.
type TokenDep struct {
	Key     string
	Version uint64
}

// EncodeDepsState encodes the state most dependency-tracking sessions
// carry in a token (the part inside EncodeToken's envelope): a state
// version byte of the protocol's choosing, a clock (a Lamport clock or
// the highest version seen, as the protocol defines it) and the one-hop
// dependencies, which the caller sorts so that equal sessions give equal
// tokens:
//
//	stateVersion          1 byte
//	clock                 uvarint
//	len(deps)             uvarint, then for each dependency:
//	  len(key), key       uvarint and bytes
//	  version             uvarint (> 0)
func EncodeDepsState(stateVersion byte, clock uint64, deps []TokenDep) []byte {
	b := []byte{stateVersion}
	b = binary.AppendUvarint(b, clock)
	b = binary.AppendUvarint(b, uint64(len(deps)))
	for _, d := range deps {
		b = binary.AppendUvarint(b, uint64(len(d.Key)))
		b = append(b, d.Key...)
		b = binary.AppendUvarint(b, d.Version)
	}
	return b
}

// DecodeDepsState decodes a state made by EncodeDepsState with
// stateVersion. possible, when set, says whether a dependency's version
// can go with the clock (e.g. version ≤ clock); a version of 0 is always
// refused. Its errors wrap ErrBadToken and say what is wrong.
func DecodeDepsState(state []byte, stateVersion byte, possible func(clock, version uint64) bool) (clock uint64, deps []TokenDep, err error) {
	bad := func(what string, args ...any) error {
		return fmt.Errorf("%w: %s", ErrBadToken, fmt.Sprintf(what, args...))
	}
	if len(state) == 0 {
		return 0, nil, bad("no session state")
	}
	if state[0] != stateVersion {
		return 0, nil, bad("session state version %d, this build reads version %d", state[0], stateVersion)
	}
	rest := state[1:]
	next := func() (uint64, bool) {
		v, w := binary.Uvarint(rest)
		if w <= 0 {
			return 0, false
		}
		rest = rest[w:]
		return v, true
	}
	clock, ok := next()
	n, ok2 := next()
	// Each dependency takes at least two bytes: a bound on n before
	// anything is allocated.
	if !ok || !ok2 || n > uint64(len(rest))/2 {
		return 0, nil, bad("truncated or damaged session state")
	}
	deps = make([]TokenDep, 0, n)
	for i := uint64(0); i < n; i++ {
		kl, ok := next()
		if !ok || kl > uint64(len(rest)) {
			return 0, nil, bad("truncated or damaged dependency %d", i+1)
		}
		key := string(rest[:kl])
		rest = rest[kl:]
		v, ok := next()
		if !ok {
			return 0, nil, bad("truncated or damaged dependency %d", i+1)
		}
		if v == 0 || (possible != nil && !possible(clock, v)) {
			return 0, nil, bad("dependency %d (key %q) has an impossible version", i+1, key)
		}
		deps = append(deps, TokenDep{Key: key, Version: v})
	}
	if len(rest) != 0 {
		return 0, nil, bad("%d bytes of garbage after the session state", len(rest))
	}
	return clock, deps, nil
}
