package fullrep

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"google.golang.org/protobuf/encoding/protowire"

	pb "github.com/causeway/causeway/wire/fullreppb"
)

// The dependencies of a Replicate travel packed (Replicate.deps, issue
// #17): a dependency list is most of a replicated write's metadata, and
// as repeated Dep messages each cost a key in full, a version of 4–5
// bytes and 4 bytes of tags and lengths. Packed, the dependencies (sorted
// by key, then version, as sessions send them) are, one after another:
//
//	varint(shared<<2 | mode)  shared: bytes the key has in common with the
//	                          previous key (the written key for the first)
//	suffix                    the rest of the key, by mode:
//	                            0: varint(len) bytes
//	                            1: varint(n), the rest is n in decimal
//	                            2: varint(z) varint(n), z ≥ 1 zeros then n
//	zigzag varint(Δcounter)   the written version's Lamport counter minus
//	                          the dependency's (small: a write's counter is
//	                          above its dependencies')
//	varint(origin)            the dependency's origin server index
//
// so that YCSB's keys ("user" and 8 or more digits), which share their
// first bytes and end in a number, cost 3–5 bytes each.

// errDeps is the error of every malformed packed dependency list.
var errDeps = errors.New("fullrep: malformed packed dependencies")

// maxSuffixDigits bounds the decimal suffixes packed as numbers, and
// maxZeros their leading zeros.
const (
	maxSuffixDigits = 19
	maxZeros        = 64
)

// appendDeps appends deps, packed, for a write of key at version.
func appendDeps(b []byte, key string, version uint64, deps []*pb.Dep) []byte {
	prev := key
	for _, d := range deps {
		shared := commonPrefix(prev, d.Key)
		suffix := d.Key[shared:]
		zeros, n, numeric := decimal(suffix)
		switch {
		case !numeric:
			b = protowire.AppendVarint(b, uint64(shared)<<2)
			b = protowire.AppendString(b, suffix)
		case zeros == 0:
			b = protowire.AppendVarint(b, uint64(shared)<<2|1)
			b = protowire.AppendVarint(b, n)
		default:
			b = protowire.AppendVarint(b, uint64(shared)<<2|2)
			b = protowire.AppendVarint(b, uint64(zeros))
			b = protowire.AppendVarint(b, n)
		}
		b = protowire.AppendVarint(b, protowire.EncodeZigZag(int64(version>>serverBits-d.Version>>serverBits)))
		b = protowire.AppendVarint(b, d.Version&(1<<serverBits-1))
		prev = d.Key
	}
	return b
}

// decodeDeps unpacks the dependencies of a write of key at version.
//
// It allocates a fixed number of times, not per dependency (the seven
// receivers of every replicated write decode it): the keys are spelled
// one after another in one strings.Builder, whose string (not a copy of
// its buffer) each dependency's key is a part of, and the Deps are one
// array.
func decodeDeps(b []byte, key string, version uint64) ([]*pb.Dep, error) {
	type decoded struct {
		end     int // the key is keys[start:end], start the previous end
		version uint64
	}
	var small [16]decoded
	ds := small[:0]
	var keys strings.Builder // only appended to: each String() is a prefix of the last
	keys.Grow(len(key) + 2*len(b))
	keys.WriteString(key)
	prevStart, prevEnd := 0, len(key) // the previous key, in keys
	bad := false
	next := func() uint64 {
		v, n := protowire.ConsumeVarint(b)
		if n < 0 {
			bad, b = true, nil
			return 0
		}
		b = b[n:]
		return v
	}
	for len(b) > 0 {
		head := next()
		shared, mode := head>>2, head&3
		if bad || shared > uint64(prevEnd-prevStart) {
			return nil, fmt.Errorf("%w: a key shares %d bytes with the %d-byte key before it", errDeps, shared, prevEnd-prevStart)
		}
		start := keys.Len()
		keys.WriteString(keys.String()[prevStart : prevStart+int(shared)])
		switch mode {
		case 0:
			s, n := protowire.ConsumeBytes(b)
			if n < 0 {
				return nil, fmt.Errorf("%w: truncated key", errDeps)
			}
			b = b[n:]
			keys.Write(s)
		case 1, 2:
			zeros := uint64(0)
			if mode == 2 {
				if zeros = next(); zeros == 0 || zeros > maxZeros {
					return nil, fmt.Errorf("%w: %d leading zeros", errDeps, zeros)
				}
			}
			v := next()
			if bad {
				return nil, fmt.Errorf("%w: truncated key", errDeps)
			}
			for ; zeros > 0; zeros-- {
				keys.WriteByte('0')
			}
			var digits [20]byte
			keys.Write(strconv.AppendUint(digits[:0], v, 10))
		default:
			return nil, fmt.Errorf("%w: key mode %d", errDeps, mode)
		}
		delta, origin := next(), next()
		if bad || origin >= 1<<serverBits {
			return nil, fmt.Errorf("%w: truncated or damaged version", errDeps)
		}
		counter := int64(version>>serverBits) - protowire.DecodeZigZag(delta)
		if counter <= 0 || counter >= 1<<(64-serverBits) {
			return nil, fmt.Errorf("%w: impossible version", errDeps)
		}
		ds = append(ds, decoded{end: keys.Len(), version: uint64(counter)<<serverBits | origin})
		prevStart, prevEnd = start, keys.Len()
	}
	if len(ds) == 0 {
		return nil, nil
	}
	all := keys.String()
	slab := make([]pb.Dep, len(ds))
	deps := make([]*pb.Dep, len(ds))
	start := len(key)
	for i, d := range ds {
		slab[i].Key, slab[i].Version = all[start:d.end], d.version
		deps[i] = &slab[i]
		start = d.end
	}
	return deps, nil
}

// commonPrefix is the length of the longest common prefix of a and b.
func commonPrefix(a, b string) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// decimal splits s into leading zeros and the number the rest spells,
// when s is digits only and the rest is a number's canonical spelling of
// at most maxSuffixDigits digits ("0" alone, or no leading zero). A
// suffix of zeros only is its zeros but one, then 0.
func decimal(s string) (zeros int, n uint64, ok bool) {
	if s == "" || len(s) > maxZeros {
		return 0, 0, false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, 0, false
		}
	}
	for zeros < len(s)-1 && s[zeros] == '0' {
		zeros++
	}
	rest := s[zeros:]
	if len(rest) > maxSuffixDigits {
		return 0, 0, false
	}
	n, err := strconv.ParseUint(rest, 10, 64)
	return zeros, n, err == nil
}
