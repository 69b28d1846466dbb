package depwait

import (
	"reflect"
	"strconv"
	"testing"
	"time"
)

func TestOneCheckPerDependencyAndReadyInOrder(t *testing.T) {
	tb := New[string]()
	if !tb.Wait("w1", "x@1", "X1", 0) {
		t.Fatal("first waiter of x@1 must send the check")
	}
	if tb.Wait("w2", "x@1", "X1", 0) {
		t.Fatal("a second waiter of x@1 must not send another check")
	}
	if tb.Wait("w1", "x@1", "X1", 0) {
		t.Fatal("the same write naming the same dependency twice must not send again")
	}
	if !tb.Wait("w2", "y@2", "Y2", 0) {
		t.Fatal("first waiter of y@2 must send the check")
	}
	if !tb.Waiting("w1") || !tb.Waiting("w2") || tb.Waiting("w3") || tb.Len() != 2 {
		t.Fatalf("waiting w1=%v w2=%v w3=%v len=%d", tb.Waiting("w1"), tb.Waiting("w2"), tb.Waiting("w3"), tb.Len())
	}
	if got := tb.Satisfied("x@1"); !reflect.DeepEqual(got, []string{"w1"}) {
		t.Fatalf("after x@1: ready %v, want [w1] (w2 still needs y@2)", got)
	}
	if got := tb.Satisfied("x@1"); got != nil {
		t.Fatalf("a duplicate answer made %v ready", got)
	}
	if got := tb.Satisfied("y@2"); !reflect.DeepEqual(got, []string{"w2"}) {
		t.Fatalf("after y@2: ready %v, want [w2]", got)
	}
	if tb.Waiting("w2") || tb.Len() != 0 {
		t.Fatal("table not empty after every dependency was met")
	}
}

func TestResendBacksOff(t *testing.T) {
	tb := New[string]()
	tb.Wait("w", "b", "B", 0)
	tb.Wait("w", "a", "A", 0)
	const first, limit = 100 * time.Millisecond, 300 * time.Millisecond
	var sends []string
	for now := time.Duration(0); now <= time.Second; now += 50 * time.Millisecond {
		tb.Resend(now, first, limit, func(d string) { sends = append(sends, d+"@"+now.String()) })
	}
	// Due at 100ms (wait 100), then 300ms (wait 200), 600ms and 900ms (wait
	// capped at 300); in name order at each.
	want := []string{"A@100ms", "B@100ms", "A@300ms", "B@300ms", "A@600ms", "B@600ms", "A@900ms", "B@900ms"}
	if !reflect.DeepEqual(sends, want) {
		t.Fatalf("resends %v\nwant    %v", sends, want)
	}
}

// TestKeyedResendsInNameOrder checks that a Keyed table retransmits in the
// order of its names' spelling, not of the keys' fields: "a@10" (version
// 16) before "a@f" (15), and "a0@3" before "a@…" ('0' < '@').
func TestKeyedResendsInNameOrder(t *testing.T) {
	type ver struct {
		key string
		v   uint64
	}
	name := func(k ver) string { return k.key + "@" + strconv.FormatUint(k.v, 16) }
	tb := NewKeyed[ver, string](name)
	for _, d := range []ver{{"a", 15}, {"a", 16}, {"a0", 3}} {
		tb.Wait(ver{"w", 0}, d, name(d), 0)
	}
	var sends []string
	tb.Resend(time.Second, time.Millisecond, time.Second, func(d string) { sends = append(sends, d) })
	if want := []string{"a0@3", "a@10", "a@f"}; !reflect.DeepEqual(sends, want) {
		t.Fatalf("resends %v, want %v", sends, want)
	}
}
