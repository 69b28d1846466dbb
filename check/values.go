package check

import "hash/maphash"

// valueSet interns a history's values (up to one per operation) without a
// Go string per value: their bytes sit end to end in one slice, indexed
// by an open-addressing table of uint64 slots, so that neither holds a
// pointer per value for the GC to mark (millions, in a long history), and
// a lookup touches one slot (a cache line, where a Go map's directory,
// control word and slot are several) before the value's bytes.
type valueSet struct {
	seed maphash.Seed
	// slots is a table of 1<<logSlots slots, at most 3/4 full, probed
	// linearly from the top logSlots bits of a value's hash. A slot holds
	// the hash's top 32 bits and 1 + the value's ID (0: empty). Values
	// whose hashes agree are told apart by their bytes, however many
	// they are. Slots are in the order of their hashes' top bits (but
	// for a probe run that wraps around), so growing the table reads and
	// writes it in order, from the slots alone.
	slots    []uint64
	logSlots uint
	// Value id is data[off[id]:off[id+1]].
	data []byte
	off  []int
	// collide, set by tests, gives every value the same hash.
	collide bool
}

func newValueSet() *valueSet {
	return &valueSet{seed: maphash.MakeSeed(), slots: make([]uint64, 1<<6), logSlots: 6, off: []int{0}}
}

// len is the number of values.
func (vs *valueSet) len() int { return len(vs.off) - 1 }

// bytes is value id's text, aliasing the set's storage.
func (vs *valueSet) bytes(id int32) []byte { return vs.data[vs.off[id]:vs.off[id+1]] }

// text is value id's text.
func (vs *valueSet) text(id int32) string { return string(vs.bytes(id)) }

// sameHash is every value's hash when collide is set.
const sameHash = 0x1234_5678_9abc_def0

func (vs *valueSet) hash(s string) uint64 {
	if vs.collide {
		return sameHash
	}
	return maphash.String(vs.seed, s)
}

// home is where a slot's probe run starts for a hash whose top 32 bits
// are top.
func (vs *valueSet) home(top uint64) int { return int(top >> (32 - vs.logSlots)) }

// find returns s's ID (hash h) if s is in the set, and otherwise -1 and
// the empty slot where it goes.
func (vs *valueSet) find(s string, h uint64) (id int32, slot int) {
	mask := len(vs.slots) - 1
	top := h >> 32
	for i := vs.home(top); ; i = (i + 1) & mask {
		e := vs.slots[i]
		if e == 0 {
			return -1, i
		}
		if e>>32 == top {
			if id := int32(uint32(e)) - 1; string(vs.bytes(id)) == s {
				return id, i
			}
		}
	}
}

// lookup returns s's ID, if s is in the set.
func (vs *valueSet) lookup(s string) (int32, bool) {
	id, _ := vs.find(s, vs.hash(s))
	return id, id >= 0
}

// intern returns s's ID, adding s if it is new.
func (vs *valueSet) intern(s string) int32 {
	h := vs.hash(s)
	id, slot := vs.find(s, h)
	if id >= 0 {
		return id
	}
	id = int32(vs.len())
	vs.data = append(vs.data, s...)
	vs.off = append(vs.off, len(vs.data))
	vs.slots[slot] = h>>32<<32 | uint64(uint32(id+1))
	if 4*vs.len() > 3*len(vs.slots) {
		vs.grow()
	}
	return id
}

// grow doubles the table. A slot's new home is its hash's next top bit
// below its old one, and the old slots are walked in order: the new
// table is written from front to back.
func (vs *valueSet) grow() {
	old := vs.slots
	vs.logSlots++
	vs.slots = make([]uint64, 1<<vs.logSlots)
	mask := len(vs.slots) - 1
	for _, e := range old {
		if e == 0 {
			continue
		}
		i := vs.home(e >> 32)
		for vs.slots[i] != 0 {
			i = (i + 1) & mask
		}
		vs.slots[i] = e
	}
}
