package nemesis

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// A value of the ack-log workload is a grow-only set: every put of writer
// W to key K writes every element W has ever tried to add to K, this
// put's included, as
//
//	gset:W:e1,e2,…,en
//
// with the elements (the writer's put sequence numbers, increasing) in
// order. So a read tells which writes it includes, and a later write can
// never make an earlier acknowledged one disappear without the loss
// showing: the later value carries the earlier element.

// valuePrefix starts every ack-log value.
const valuePrefix = "gset:"

// EncodeSet is the value that writer writes to hold elems (increasing).
func EncodeSet(writer string, elems []uint64) []byte {
	var b strings.Builder
	b.WriteString(valuePrefix)
	b.WriteString(writer)
	b.WriteByte(':')
	for i, e := range elems {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatUint(e, 10))
	}
	return []byte(b.String())
}

// DecodeSet parses a value EncodeSet made.
func DecodeSet(v []byte) (writer string, elems []uint64, err error) {
	rest, ok := strings.CutPrefix(string(v), valuePrefix)
	if !ok {
		return "", nil, fmt.Errorf("value %.40q is not an ack-log set (want %sWRITER:E1,E2,…)", v, valuePrefix)
	}
	writer, list, ok := strings.Cut(rest, ":")
	if !ok || writer == "" {
		return "", nil, fmt.Errorf("value %.40q names no writer", v)
	}
	if list == "" {
		return "", nil, fmt.Errorf("value %.40q holds no element", v)
	}
	for f := range strings.SplitSeq(list, ",") {
		e, err := strconv.ParseUint(f, 10, 64)
		if err != nil {
			return "", nil, fmt.Errorf("value %.40q: element %q: %w", v, f, err)
		}
		if len(elems) > 0 && e <= elems[len(elems)-1] {
			return "", nil, fmt.Errorf("value %.40q: elements not increasing at %d", v, e)
		}
		elems = append(elems, e)
	}
	return writer, elems, nil
}

// Put is one put of the ack-log workload.
type Put struct {
	Writer, DC, Key string
	// Elem is the element the put added to the key's set.
	Elem uint64
	// Acked is true when the store acknowledged the put. A put that failed
	// or timed out may or may not have taken effect.
	Acked bool
	// Err is why it was not acknowledged.
	Err string
	// Issued and Done are when the put was issued and answered, from the
	// start of the run: a lost write can be set beside the schedule.
	Issued, Done time.Duration
}

// AckLog records every put of the ack-log workload. It is safe for
// concurrent use.
type AckLog struct {
	mu   sync.Mutex
	puts []Put
}

// Add records a put.
func (l *AckLog) Add(p Put) {
	l.mu.Lock()
	l.puts = append(l.puts, p)
	l.mu.Unlock()
}

// Puts returns every put recorded, in the order recorded.
func (l *AckLog) Puts() []Put {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.puts)
}

// Keys returns every key written, sorted.
func (l *AckLog) Keys() []string {
	seen := map[string]bool{}
	for _, p := range l.Puts() {
		seen[p.Key] = true
	}
	keys := make([]string, 0, len(seen))
	for k := range seen {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// Acked counts the acknowledged puts.
func (l *AckLog) Acked() int {
	n := 0
	for _, p := range l.Puts() {
		if p.Acked {
			n++
		}
	}
	return n
}

// Lost is an acknowledged put that a read in some DC did not include.
type Lost struct {
	Put
	// ReadDC is the datacenter whose read missed it, and Read what it
	// returned ("(not found)" or the value).
	ReadDC, Read string
}

func (l Lost) String() string {
	return fmt.Sprintf("%s: element %d (put by %s in %s at %.1fs, acknowledged at %.1fs) missing from the read in %s, which returned %.80s",
		l.Key, l.Elem, l.Writer, l.DC, l.Issued.Seconds(), l.Done.Seconds(), l.ReadDC, l.Read)
}

// Verify checks one read of key in datacenter dc against the log: the
// value read (found false: the key was absent) must be a set of key's
// writer that includes every element of an acknowledged put to key, and
// only elements the writer tried to add. It returns the acknowledged puts
// the read misses, and an error when the value is not one the workload
// could have written (a corrupt or foreign value).
func (l *AckLog) Verify(dc, key string, value []byte, found bool) ([]Lost, error) {
	var puts []Put
	for _, p := range l.Puts() {
		if p.Key == key {
			puts = append(puts, p)
		}
	}
	read := "(not found)"
	var have map[uint64]bool
	if found {
		read = string(value)
		writer, elems, err := DecodeSet(value)
		if err != nil {
			return nil, fmt.Errorf("%s read in %s: %w", key, dc, err)
		}
		tried := map[uint64]bool{}
		for _, p := range puts {
			if p.Writer != writer {
				return nil, fmt.Errorf("%s read in %s: value of writer %s, but %s writes the key", key, dc, writer, p.Writer)
			}
			tried[p.Elem] = true
		}
		have = map[uint64]bool{}
		for _, e := range elems {
			if !tried[e] {
				return nil, fmt.Errorf("%s read in %s: element %d was never put", key, dc, e)
			}
			have[e] = true
		}
	}
	var lost []Lost
	for _, p := range puts {
		if p.Acked && !have[p.Elem] {
			lost = append(lost, Lost{Put: p, ReadDC: dc, Read: read})
		}
	}
	return lost, nil
}
