package karma

import (
	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/storage"
)

// commitClock is a Lamport clock over commit events, kept by every middle
// man and client coordinator and carried on the messages that order
// commits (see "Commit clock" in doc.go). It is separate from the write
// versions, which CCs mint when a put enters a write buffer: a version
// says which write wins, the commit clock says when a version became
// readable in a ring, which is what a get-transaction's snapshot needs.
//
// The clock must never run backwards across a crash, since replies have
// promised validity up to the times they carried. It is persisted as a
// lease: a synced high-water mark clockLease ahead, renewed when the clock
// passes it; a restarted node resumes from the mark.
//
// A CC's counter of write versions is the same kind of clock under its own
// key (versionClockKey): a version must exceed every version its thread
// has seen, before a crash of the CC too, or last-writer-wins would let an
// older write beat a causally later one.
type commitClock struct {
	now  uint64
	mark uint64
	key  string // of the persisted mark: clockKey unless set
}

// clockLease is how far ahead of the clock its persisted mark runs.
const clockLease = 1 << 12

// clockKey is the storage key of the persisted mark of the commit clock,
// versionClockKey that of a CC's version counter.
const clockKey, versionClockKey = "c", "v"

func (l *commitClock) storageKey() string {
	if l.key == "" {
		return clockKey
	}
	return l.key
}

// observe advances the clock to at least c.
func (l *commitClock) observe(c uint64) {
	if c > l.now {
		l.now = c
	}
}

// tick advances the clock and returns the new time.
func (l *commitClock) tick() uint64 {
	l.now++
	return l.now
}

// persist renews the lease in r when the clock has reached its mark.
func (l *commitClock) persist(r *protocol.Ready) {
	if l.now >= l.mark {
		l.mark = l.now + clockLease
		r.Write(storage.Write{Kind: storage.Put, Key: l.storageKey(), Version: l.mark}, true)
		r.Write(storage.Write{Kind: storage.DeleteBelow, Key: l.storageKey(), Version: l.mark}, true)
	}
}

// recoverClock reloads the mark stored under key after a restart: the
// clock resumes there.
func recoverClock(st storage.Reader, key string) commitClock {
	l := commitClock{key: key}
	_ = st.Scan(key, func(r storage.Record) error {
		if r.Key == key {
			l.now, l.mark = r.Version, r.Version
		}
		return nil
	})
	return l
}
