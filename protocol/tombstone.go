package protocol

import "bytes"

// TombstonePrefix starts every tombstone: the value a delete writes. A
// delete is an ordinary put of Tombstone(id) — no protocol has a delete
// operation of its own, so every protocol replicates, orders and resolves
// deletes exactly as it does writes — and clients read a tombstone as "not
// found". The NUL bytes keep it apart from text values; client.Session.Put
// refuses any value that starts with it, so a tombstone is always a
// delete's.
const TombstonePrefix = "\x00causeway-tombstone\x00"

// Tombstone returns the value a delete with the given ID writes. IDs must be
// unique among a store's deletes (a session's ID and its sequence number,
// say), so that a history can say which delete a read saw, just as unique
// write values say which put it saw.
func Tombstone(id string) []byte {
	return append([]byte(TombstonePrefix), id...)
}

// IsTombstone reports whether v is a tombstone (starts with
// TombstonePrefix).
func IsTombstone(v []byte) bool { return bytes.HasPrefix(v, []byte(TombstonePrefix)) }

// TombstoneID returns the ID of the delete that wrote v, and whether v is a
// tombstone at all.
func TombstoneID(v []byte) (string, bool) {
	if !IsTombstone(v) {
		return "", false
	}
	return string(v[len(TombstonePrefix):]), true
}
