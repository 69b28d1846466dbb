package check

import "hash/maphash"

// valueSet interns a history's values (up to one per operation) without a
// Go string per value: their bytes sit end to end in one slice and the
// index is keyed by a 64-bit hash, so that neither holds a pointer per
// value for the GC to mark (millions, in a long history), and a lookup
// touches a small map entry instead of a string header and its bytes.
type valueSet struct {
	seed maphash.Seed
	// byHash maps a hash to the first value ID with that hash; other holds
	// the values whose hash an earlier, different value has.
	byHash map[uint64]int32
	other  map[string]int32
	// Value id is data[off[id]:off[id+1]].
	data []byte
	off  []int
}

func newValueSet() *valueSet {
	return &valueSet{seed: maphash.MakeSeed(), byHash: map[uint64]int32{}, off: []int{0}}
}

// len is the number of values.
func (vs *valueSet) len() int { return len(vs.off) - 1 }

// bytes is value id's text, aliasing the set's storage.
func (vs *valueSet) bytes(id int32) []byte { return vs.data[vs.off[id]:vs.off[id+1]] }

// text is value id's text.
func (vs *valueSet) text(id int32) string { return string(vs.bytes(id)) }

// lookup returns s's ID, if s is in the set.
func (vs *valueSet) lookup(s string) (int32, bool) {
	id, ok := vs.byHash[maphash.String(vs.seed, s)]
	if !ok {
		return 0, false
	}
	if string(vs.bytes(id)) == s {
		return id, true
	}
	id, ok = vs.other[s]
	return id, ok
}

// intern returns s's ID, adding s if it is new.
func (vs *valueSet) intern(s string) int32 {
	h := maphash.String(vs.seed, s)
	first, taken := vs.byHash[h]
	if taken {
		if string(vs.bytes(first)) == s {
			return first
		}
		if id, ok := vs.other[s]; ok {
			return id
		}
	}
	id := int32(vs.len())
	vs.data = append(vs.data, s...)
	vs.off = append(vs.off, len(vs.data))
	if !taken {
		vs.byHash[h] = id
		return id
	}
	if vs.other == nil {
		vs.other = map[string]int32{}
	}
	vs.other[s] = id
	return id
}
