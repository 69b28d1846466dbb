package protocol

import (
	"bytes"
	"strconv"
)

// LoadedPrefix starts every loaded value (Dataset.Value). No workload write
// starts with it: a written value starts with its ID, which never contains
// '#'. Histories record a read of a loaded value as the key's initial
// state (null).
const LoadedPrefix = "#loaded#"

// IsLoaded reports whether v is a loaded value (starts with LoadedPrefix).
func IsLoaded(v []byte) bool { return bytes.HasPrefix(v, []byte(LoadedPrefix)) }

// Dataset describes the records a run starts with, as YCSB's load phase
// writes them, without storing them: key i of Records is KeyPrefix followed
// by i in decimal, zero-padded to at least KeyDigits digits, and its loaded
// value (Value) is derived from the key. A simulated node holding a replica
// of a loaded key that has no stored version answers a read with the
// loaded value, at the lowest possible version, so that any written
// version wins over it; the value travels in the reply like any other, so
// its bytes count on the wire. A nil *Dataset holds nothing.
type Dataset struct {
	// Records is the number of loaded keys, indexes 0 .. Records-1.
	Records int64
	// KeyPrefix and KeyDigits give the key format.
	KeyPrefix string
	KeyDigits int
	// ValueSize is the size of each loaded value in bytes (never shorter
	// than LoadedPrefix, the key and '#').
	ValueSize int
	// Warm, when set, is a warm-up that has already happened: the indexes
	// of the records its reads touched, each once, least recently read
	// first (workload.Workload.WarmOrder). A protocol with a cache may
	// start each cache as those reads, with no write among them, would
	// have left it: the loaded values of the most recently read keys it
	// would cache (k2's LRU, a fast warm-up for k2.txt §VII-B's long
	// one). Nil: caches start empty. Only the simulator sets it.
	Warm []int64
}

// Has reports whether key is one of the dataset's records.
func (d *Dataset) Has(key string) bool {
	if d == nil || len(key) <= len(d.KeyPrefix) || key[:len(d.KeyPrefix)] != d.KeyPrefix {
		return false
	}
	digits := key[len(d.KeyPrefix):]
	if len(digits) < d.KeyDigits || len(digits) > 19 {
		return false
	}
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return false
		}
	}
	if len(digits) > d.KeyDigits && digits[0] == '0' {
		return false // not the canonical spelling of its index
	}
	i, err := strconv.ParseInt(digits, 10, 64)
	return err == nil && i < d.Records
}

// Value returns key's loaded value: LoadedPrefix, the key, '#', then
// padding up to ValueSize bytes; nil when key is not a record.
func (d *Dataset) Value(key string) []byte {
	if !d.Has(key) {
		return nil
	}
	n := max(d.ValueSize, len(LoadedPrefix)+len(key)+1)
	b := make([]byte, n)
	i := copy(b, LoadedPrefix)
	i += copy(b[i:], key)
	b[i] = '#'
	// Padding: 'a'+i%26 at offset i. Once 26 bytes of it are written the
	// rest repeats them, copied in doubling runs.
	j := i + 1
	for ; j < n && j < i+1+26; j++ {
		b[j] = 'a' + byte(j%26)
	}
	for j < n {
		j += copy(b[j:], b[i+1:j])
	}
	return b
}

// Key returns the name of record i: KeyPrefix followed by i in decimal,
// zero-padded to at least KeyDigits digits.
func (d *Dataset) Key(i int64) string {
	digits := strconv.FormatInt(i, 10)
	for len(digits) < d.KeyDigits {
		digits = "0" + digits
	}
	return d.KeyPrefix + digits
}
