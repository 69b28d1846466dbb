package nemesis

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestSetRoundTrip(t *testing.T) {
	v := EncodeSet("w1", []uint64{1, 4, 9})
	if string(v) != "gset:w1:1,4,9" {
		t.Fatalf("EncodeSet = %q", v)
	}
	w, e, err := DecodeSet(v)
	if err != nil || w != "w1" || fmt.Sprint(e) != "[1 4 9]" {
		t.Fatalf("DecodeSet = %q %v %v", w, e, err)
	}
	for _, bad := range []string{"", "hello", "gset:", "gset:w1:", "gset::1", "gset:w:1,x", "gset:w:3,2", "gset:w:1,1"} {
		if _, _, err := DecodeSet([]byte(bad)); err == nil {
			t.Errorf("DecodeSet(%q) succeeded", bad)
		}
	}
}

// store is a fake datacenter: the value of each key, as a read returns it.
type store map[string][]byte

func (s store) Get(_ context.Context, key string) ([]byte, bool, error) {
	v, ok := s[key]
	return v, ok, nil
}

// writes plays a writer's puts into log and returns the value each
// datacenter that received every put would hold.
func writes(log *AckLog, writer, key string, acked ...bool) [][]byte {
	var elems []uint64
	var values [][]byte
	for i, a := range acked {
		e := uint64(i + 1)
		elems = append(elems, e)
		log.Add(Put{Writer: writer, DC: "a", Key: key, Elem: e, Acked: a})
		values = append(values, EncodeSet(writer, elems))
	}
	return values
}

// TestReadBackCatchesALostAcknowledgedWrite plants lost writes in a
// datacenter's answers: the newest acknowledged put missing (the replica
// holds an older set), an older version that won over a newer one, and a
// key that is absent. Each must be reported lost; a datacenter that has
// the newest set, or a newer one from a put that timed out, passes.
func TestReadBackCatchesALostAcknowledgedWrite(t *testing.T) {
	log := &AckLog{}
	k1 := writes(log, "w1", "k1", true, true, true)  // 3 acknowledged
	k2 := writes(log, "w2", "k2", true, true, false) // the 3rd timed out
	_ = writes(log, "w3", "k3", true)

	good := store{"k1": k1[2], "k2": k2[2], "k3": EncodeSet("w3", []uint64{1})}
	alsoGood := store{"k1": k1[2], "k2": k2[1], "k3": EncodeSet("w3", []uint64{1})} // k2's 3rd never took effect
	lostNewest := store{"k1": k1[1], "k2": k2[2], "k3": EncodeSet("w3", []uint64{1})}
	absent := store{"k1": k1[2], "k2": k2[2]}

	ctx := context.Background()
	lost, bad := ReadBack(ctx, log, map[string]Reader{"a": good, "b": alsoGood}, time.Millisecond, time.Second)
	if len(lost) != 0 || len(bad) != 0 {
		t.Fatalf("complete datacenters: lost %v, bad %v", lost, bad)
	}
	lost, bad = ReadBack(ctx, log, map[string]Reader{"a": good, "b": lostNewest, "c": absent}, time.Millisecond, time.Second)
	if len(bad) != 0 {
		t.Fatalf("bad reads %v", bad)
	}
	var got []string
	for _, l := range lost {
		got = append(got, fmt.Sprintf("%s/%s/%d", l.ReadDC, l.Key, l.Elem))
	}
	if want := "b/k1/3 c/k3/1"; strings.Join(got, " ") != want {
		t.Fatalf("lost %v, want %s", got, want)
	}
	if s := lost[0].String(); !strings.Contains(s, "element 3") || !strings.Contains(s, "gset:w1:1,2") {
		t.Errorf("Lost.String() = %q: should name the element and what was read", s)
	}
}

// TestReadBackRefusesForeignValues: a value no put wrote (another writer's,
// an element never put, not a set at all) is reported, not taken for a
// set that holds the writes.
func TestReadBackRefusesForeignValues(t *testing.T) {
	log := &AckLog{}
	writes(log, "w1", "k1", true, true)
	for _, v := range []string{"gset:w2:1,2", "gset:w1:1,2,3", "hello"} {
		lost, bad := ReadBack(context.Background(), log, map[string]Reader{"a": store{"k1": []byte(v)}}, time.Millisecond, time.Second)
		if len(bad) != 1 || len(lost) != 0 {
			t.Errorf("read of %q: lost %v, bad %v; want one bad read", v, lost, bad)
		}
	}
}

// catchingUp is a datacenter that lacks the newest write for its first
// reads, as one still replicating after a heal does.
type catchingUp struct {
	stale, fresh []byte
	reads        int
}

func (c *catchingUp) Get(context.Context, string) ([]byte, bool, error) {
	c.reads++
	if c.reads < 3 {
		return c.stale, true, nil
	}
	return c.fresh, true, nil
}

func TestReadBackWaitsForReplication(t *testing.T) {
	log := &AckLog{}
	v := writes(log, "w1", "k1", true, true)
	dc := &catchingUp{stale: v[0], fresh: v[1]}
	lost, bad := ReadBack(context.Background(), log, map[string]Reader{"b": dc}, time.Minute, time.Second)
	if len(lost) != 0 || len(bad) != 0 || dc.reads != 3 {
		t.Fatalf("lost %v, bad %v after %d reads; want it to read until the write arrived (3 reads)", lost, bad, dc.reads)
	}
}

// TestReadBackTellsWhatIsLate checks that the read-back's progress names
// the acknowledged element a DC still misses while it catches up, and
// stops telling once it has arrived.
func TestReadBackTellsWhatIsLate(t *testing.T) {
	log := &AckLog{}
	v := writes(log, "w1", "k1", true, true)
	dc := &catchingUp{stale: v[0], fresh: v[1]}
	var told []string
	lost, bad := readBack(context.Background(), log, map[string]Reader{"b": dc}, time.Minute, time.Second, 0,
		func(_ time.Duration, missing []Lost) { told = append(told, firstMissing(missing)) })
	if len(lost) != 0 || len(bad) != 0 {
		t.Fatalf("lost %v, bad %v; want everything read back", lost, bad)
	}
	if len(told) != 2 || !strings.Contains(told[0], "k1: element 2") || !strings.Contains(told[0], "missing from the read in b") {
		t.Fatalf("progress %q; want two reports of k1's element 2 missing in b", told)
	}
}
