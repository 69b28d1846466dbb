package storage

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"
)

// PebbleOptions configures OpenPebble. The zero value opens a store on the
// real disk with logging disabled.
type PebbleOptions struct {
	// FS is the filesystem the store lives on; nil means the real disk
	// (vfs.Default). Tests use vfs.NewMem or vfs.NewCrashableMem.
	FS vfs.FS
	// Logger receives Pebble's log messages; nil discards them.
	Logger pebble.Logger
}

// Pebble is a durable Engine backed by a Pebble LSM store, used by live
// servers. It is safe for concurrent use.
//
// Every version of a key is one Pebble entry. The Pebble key is the user key
// escaped so that the encoding preserves order and prefixes (0x00 becomes
// 0x00 0xFF, and 0x00 0x01 terminates the key), followed by the bitwise
// complement of the version as 8 big-endian bytes, so that the versions of
// one key are adjacent and sorted newest first.
type Pebble struct {
	mu       sync.Mutex
	idle     sync.Cond // signalled when inflight drops to zero
	closed   bool
	inflight int // operations using db
	db       *pebble.DB

	// wmu serializes the Applies that write. known is, for keys that a
	// DeleteBelow read or pruned, their live versions as of the last
	// commit, so that the next DeleteBelow deletes them without reading
	// the key (an iterator steps over every deleted version of the key
	// still in the memtable: thousands for a key written often); pending
	// is what the Apply in progress learns. Both belong to wmu's holder.
	wmu     sync.Mutex
	known   map[string]liveVersions
	pending map[string]pendingVersions
}

var _ Engine = (*Pebble)(nil)

// OpenPebble opens the store in dir, creating it if it does not exist.
func OpenPebble(dir string, opts PebbleOptions) (*Pebble, error) {
	po := &pebble.Options{
		FS:                 opts.FS,
		FormatMajorVersion: pebble.FormatNewest,
		// Every replicated write carries a DeleteBelow (the key's older
		// versions). As range deletions, thousands of them in each flushed
		// table had Pebble's table statistics estimate, for each, the
		// bytes it would reclaim in every level beneath: 5-8% of a live
		// node's CPU (docs/performance.md, fourth round). They are point
		// deletions now (deleteVersions), but the statistics only steer
		// which compaction runs first: they stay off.
		DisableTableStats: true,
	}
	if opts.Logger != nil {
		po.Logger = opts.Logger
	} else {
		po.LoggerAndTracer = quietLogger{}
	}
	if po.FS == nil {
		po.FS = vfs.Default
	}
	db, err := pebble.Open(dir, po)
	if err != nil {
		return nil, fmt.Errorf("storage: open pebble store %q: %w", dir, err)
	}
	p := &Pebble{db: db}
	p.idle.L = &p.mu
	return p, nil
}

// DiskSpaceUsage returns the bytes the store occupies on disk: its
// write-ahead log and tables, live and not yet deleted (Pebble's
// Metrics.DiskSpaceUsage).
func (p *Pebble) DiskSpaceUsage() (uint64, error) {
	if err := p.acquire(); err != nil {
		return 0, err
	}
	defer p.release()
	return p.db.Metrics().DiskSpaceUsage(), nil
}

// quietLogger discards Pebble's logs. Fatalf still panics, because Pebble
// relies on it not returning.
type quietLogger struct{}

var _ pebble.LoggerAndTracer = quietLogger{}

func (quietLogger) Infof(string, ...any)                   {}
func (quietLogger) Errorf(string, ...any)                  {}
func (quietLogger) Eventf(context.Context, string, ...any) {}
func (quietLogger) IsTracingEnabled(context.Context) bool  { return false }
func (quietLogger) Fatalf(format string, args ...any) {
	panic(fmt.Sprintf("pebble: "+format, args...))
}

// acquire registers an operation on db; release must follow. Close waits
// for registered operations instead of pulling the DB from under them
// (Pebble panics on use of a closed DB).
func (p *Pebble) acquire() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return ErrClosed
	}
	p.inflight++
	return nil
}

func (p *Pebble) release() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.inflight--
	if p.inflight == 0 {
		p.idle.Broadcast()
	}
}

// Get implements Reader.
func (p *Pebble) Get(key string) (Record, bool, error) {
	return p.get(key, ^Version(0))
}

// GetAt implements Reader.
func (p *Pebble) GetAt(key string, v Version) (Record, bool, error) {
	return p.get(key, v)
}

func (p *Pebble) get(key string, v Version) (Record, bool, error) {
	if err := p.acquire(); err != nil {
		return Record{}, false, err
	}
	defer p.release()
	lower := encodeKeyPrefix(nil, key)
	upper := keyPrefixEnd(lower)
	it, err := p.db.NewIter(&pebble.IterOptions{LowerBound: lower, UpperBound: upper})
	if err != nil {
		return Record{}, false, err
	}
	// Versions sort newest first, so the first entry at or after (key, v) is
	// the newest version <= v.
	var ok bool
	if v == ^Version(0) {
		ok = it.First()
	} else {
		ok = it.SeekGE(appendVersion(lower, v))
	}
	var rec Record
	if ok {
		_, ver, derr := decodeKey(it.Key())
		if derr != nil {
			err = derr
		} else {
			rec = Record{Key: key, Version: ver, Value: append([]byte{}, it.Value()...)}
		}
	}
	if cerr := it.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return Record{}, false, err
	}
	return rec, ok, nil
}

// Scan implements Reader. It reads a consistent snapshot taken when it
// starts. fn may read from and write to p, but must not Close it.
func (p *Pebble) Scan(prefix string, fn func(Record) error) (err error) {
	if err := p.acquire(); err != nil {
		return err
	}
	defer p.release()
	lower := escapeKey(nil, prefix)
	it, err := p.db.NewIter(&pebble.IterOptions{LowerBound: lower, UpperBound: prefixEnd(lower)})
	if err != nil {
		return err
	}
	defer func() {
		if cerr := it.Close(); err == nil {
			err = cerr
		}
	}()
	var last []byte // encoded key prefix of the last key passed to fn
	for ok := it.First(); ok; ok = it.Next() {
		k := it.Key()
		if last != nil && bytes.HasPrefix(k, last) && len(k) == len(last)+8 {
			continue // an older version of the same key
		}
		user, ver, err := decodeKey(k)
		if err != nil {
			return err
		}
		last = append(last[:0], k[:len(k)-8]...)
		if err := fn(Record{Key: user, Version: ver, Value: append([]byte{}, it.Value()...)}); err != nil {
			return err
		}
	}
	return nil
}

// Apply implements Engine. The writes go into one Pebble batch, committed
// with pebble.Sync when sync is true and pebble.NoSync otherwise. A batch
// with an unknown WriteKind is rejected as a whole.
//
// Apply(nil, true) only syncs: it makes every write applied before it
// durable (Pebble skips an empty batch, so it commits a log-only record,
// DB.LogData, with pebble.Sync: the write-ahead log is synced up to it).
// The node host's group commit (runtime/node) relies on it, calling it
// while other goroutines keep applying unsynced writes.
//
// Applies that write are serialized (p.wmu), so that the versions they
// remember (known) follow the order of the commits.
func (p *Pebble) Apply(writes []Write, sync bool) error {
	if err := p.acquire(); err != nil {
		return err
	}
	defer p.release()
	if len(writes) == 0 {
		if !sync {
			return nil
		}
		return p.db.LogData(nil, pebble.Sync)
	}
	p.wmu.Lock()
	defer p.wmu.Unlock()
	err := p.apply(writes, sync, false)
	if errors.Is(err, errNeedIndex) {
		err = p.apply(writes, sync, true)
	}
	return err
}

// errNeedIndex is apply's way of asking to be run again with an indexed
// batch: a DeleteBelow on a key whose versions it no longer knew had to
// read them.
var errNeedIndex = errors.New("storage: indexed batch needed")

// maxKnown bounds how many keys' versions the store remembers
// (Pebble.known); past it, it forgets them all and learns them again.
const maxKnown = 1 << 16

// liveVersions are the versions of one key stored live (not deleted), when
// there are at most len(v) of them.
type liveVersions struct {
	n uint8
	v [2]Version
}

// add records a put of version v; it reports false when the key would
// have more live versions than liveVersions holds.
func (l *liveVersions) add(v Version) bool {
	for _, x := range l.v[:l.n] {
		if x == v {
			return true
		}
	}
	if int(l.n) == len(l.v) {
		return false
	}
	l.v[l.n] = v
	l.n++
	return true
}

// remove records the deletion of version v.
func (l *liveVersions) remove(v Version) {
	for i, x := range l.v[:l.n] {
		if x == v {
			l.n--
			l.v[i] = l.v[l.n]
			l.v[l.n] = 0
			return
		}
	}
}

// pendingVersions is what one Apply learns about a key, kept until its
// batch commits: its live versions (known), or that they are unknown.
type pendingVersions struct {
	live  liveVersions
	known bool
}

// apply fills one batch with writes and commits it. DeleteBelow finds the
// versions it deletes from p.known when the key's live versions are known
// (a plain batch: no read), and otherwise reads them from the store and
// the batch (an indexed batch: deleteVersions) and learns them. Delete
// always reads; DeleteVersion never does (one point tombstone for the
// version it names). Without indexed it returns errNeedIndex when it would
// have to read, before committing anything.
func (p *Pebble) apply(writes []Write, sync, indexed bool) error {
	if !indexed {
		indexed = p.needsIndex(writes)
	}
	var b *pebble.Batch
	if indexed {
		b = p.db.NewIndexedBatch()
	} else {
		b = p.db.NewBatch()
	}
	defer b.Close()
	if p.pending == nil {
		p.pending = map[string]pendingVersions{}
	}
	clear(p.pending)
	lookup := func(key string) pendingVersions {
		if pv, ok := p.pending[key]; ok {
			return pv
		}
		live, ok := p.known[key]
		return pendingVersions{live: live, known: ok}
	}
	var buf []byte
	for _, w := range writes {
		var err error
		buf = encodeKeyPrefix(buf[:0], w.Key)
		switch w.Kind {
		case Put:
			err = b.Set(appendVersion(buf, w.Version), w.Value, nil)
			if pv := lookup(w.Key); pv.known {
				pv.known = pv.live.add(w.Version)
				p.pending[w.Key] = pv
			}
		case DeleteBelow:
			if w.Version == 0 {
				continue
			}
			pv := lookup(w.Key)
			if pv.known {
				var keep liveVersions
				for _, v := range pv.live.v[:pv.live.n] {
					if v >= w.Version {
						keep.add(v)
					} else if err = b.Delete(appendVersion(buf, v), nil); err != nil {
						break
					}
				}
				p.pending[w.Key] = pendingVersions{live: keep, known: true}
				break
			}
			if !indexed {
				return errNeedIndex
			}
			var live []Version
			live, err = deleteVersions(b, buf, keyPrefixEnd(buf), w.Version)
			pv = pendingVersions{known: true}
			for _, v := range live {
				if !pv.live.add(v) {
					pv.known = false
				}
			}
			p.pending[w.Key] = pv
		case Delete:
			if !indexed {
				return errNeedIndex
			}
			_, err = deleteVersions(b, buf, keyPrefixEnd(buf), ^Version(0))
			// Forgotten rather than known empty: most deleted keys
			// (a cops server's r/ records) are never written again.
			p.pending[w.Key] = pendingVersions{}
		case DeleteVersion:
			// The one entry named, whether or not it is stored: a
			// tombstone over nothing costs less than the read that
			// would tell (docs/performance.md, session 14).
			err = b.Delete(appendVersion(buf, w.Version), nil)
			if pv := lookup(w.Key); pv.known {
				pv.live.remove(w.Version)
				p.pending[w.Key] = pv
			}
		default:
			err = fmt.Errorf("storage: unknown write kind %d", w.Kind)
		}
		if err != nil {
			return err
		}
	}
	opts := pebble.NoSync
	if sync {
		opts = pebble.Sync
	}
	if err := b.Commit(opts); err != nil {
		clear(p.known) // whatever the batch did, nothing is learnt from it
		return err
	}
	if p.known == nil || len(p.known)+len(p.pending) > maxKnown {
		p.known = make(map[string]liveVersions, len(p.pending))
	}
	for k, pv := range p.pending {
		if pv.known {
			p.known[k] = pv.live
		} else {
			delete(p.known, k)
		}
	}
	return nil
}

// needsIndex reports whether writes must go into an indexed batch: a
// Delete, or a DeleteBelow of a key whose live versions p.known does not
// hold, reads the key's versions.
func (p *Pebble) needsIndex(writes []Write) bool {
	for _, w := range writes {
		switch w.Kind {
		case Delete:
			return true
		case DeleteBelow:
			if _, ok := p.known[w.Key]; !ok && w.Version != 0 {
				return true
			}
		}
	}
	return false
}

// deleteVersions deletes, one point tombstone each, the entries of b's
// view (the store and the batch's earlier writes) in [lower, upper) whose
// versions are below below: a
// DeleteBelow's older versions of one key, or a Delete's every version.
// A range deletion would need no read, but every replicated write carries
// a DeleteBelow, and thousands of range tombstones in the memtable and in
// each flushed table cost every later write, read and compaction more
// than the seek this costs: a key has one or two stored versions, each
// deleted once (docs/performance.md, "Point deletions"). It returns the
// versions at or above below that it left. Delete too: a
// cops server deletes an outgoing write's record once every replica has
// it, and each range deletion added to the memtable made the next
// iterator on it (the next put's DeleteBelow) fragment every range
// deletion the memtable held again: 13% of a live node's CPU, growing
// with the memtable (BenchmarkPebbleServerWrites: 1.36 ms -> 16 µs per
// step).
func deleteVersions(b *pebble.Batch, lower, upper []byte, below Version) (live []Version, err error) {
	it, err := b.NewIter(&pebble.IterOptions{LowerBound: lower, UpperBound: upper})
	if err != nil {
		return nil, err
	}
	var victims [][]byte
	for ok := it.First(); ok; ok = it.Next() {
		k := it.Key()
		if v := ^binary.BigEndian.Uint64(k[len(k)-8:]); v >= below {
			live = append(live, v)
			continue
		}
		victims = append(victims, bytes.Clone(k))
	}
	if err := it.Close(); err != nil {
		return nil, err
	}
	for _, k := range victims {
		if err := b.Delete(k, nil); err != nil {
			return nil, err
		}
	}
	return live, nil
}

// Close implements Engine. It waits for operations in progress, then closes
// the Pebble store. Writes that were not synced may be lost.
func (p *Pebble) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return ErrClosed
	}
	p.closed = true
	for p.inflight > 0 {
		p.idle.Wait()
	}
	p.mu.Unlock()
	return p.db.Close()
}

// Key encoding.

// escapeKey appends the escaped form of key to dst: 0x00 becomes 0x00 0xFF.
// Escaping preserves order and prefixes.
func escapeKey(dst []byte, key string) []byte {
	for i := 0; i < len(key); i++ {
		c := key[i]
		if c == 0 {
			dst = append(dst, 0, 0xFF)
		} else {
			dst = append(dst, c)
		}
	}
	return dst
}

// encodeKeyPrefix appends the escaped key and its 0x00 0x01 terminator: the
// common prefix of the Pebble keys of all versions of key, and of no other
// key's. The terminator sorts before any escaped byte, so a key sorts before
// its extensions.
func encodeKeyPrefix(dst []byte, key string) []byte {
	return append(escapeKey(dst, key), 0, 1)
}

// appendVersion appends ^v in big-endian, so newer versions sort first.
func appendVersion(dst []byte, v Version) []byte {
	return binary.BigEndian.AppendUint64(dst, ^v)
}

// keyPrefixEnd returns the smallest byte string greater than every Pebble
// key starting with the given encoded key prefix (which ends with 0x00
// 0x01).
func keyPrefixEnd(kp []byte) []byte {
	end := bytes.Clone(kp)
	end[len(end)-1]++ // 0x00 0x01 -> 0x00 0x02
	return end
}

// prefixEnd returns the smallest byte string greater than every string with
// the given prefix, or nil (no bound) if there is none.
func prefixEnd(prefix []byte) []byte {
	end := bytes.Clone(prefix)
	for i := len(end) - 1; i >= 0; i-- {
		if end[i] != 0xFF {
			end[i]++
			return end[:i+1]
		}
	}
	return nil
}

var errBadKey = errors.New("storage: malformed pebble key")

// decodeKey splits a Pebble key into the user key and version.
func decodeKey(k []byte) (string, Version, error) {
	if len(k) < 10 {
		return "", 0, errBadKey
	}
	v := ^binary.BigEndian.Uint64(k[len(k)-8:])
	esc := k[:len(k)-8]
	if esc[len(esc)-2] != 0 || esc[len(esc)-1] != 1 {
		return "", 0, errBadKey
	}
	esc = esc[:len(esc)-2]
	user := make([]byte, 0, len(esc))
	for i := 0; i < len(esc); i++ {
		c := esc[i]
		if c == 0 {
			if i+1 >= len(esc) || esc[i+1] != 0xFF {
				return "", 0, errBadKey
			}
			i++
		}
		user = append(user, c)
	}
	return string(user), v, nil
}
