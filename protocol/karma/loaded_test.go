package karma

import (
	"testing"

	"github.com/causeway/causeway/protocol"
)

// TestMiddleManServesLoadedValues drives one middle man with a loaded
// dataset: a never-written record reads as its loaded value at version 0,
// stable (so a DC cache may hold it); a key outside the dataset reads as
// absent; a written version wins over the loaded value; and a
// get-transaction's second round at a time before the write reads the
// loaded value again (the superseded version 0 carries no bytes of its
// own).
func TestMiddleManServesLoadedValues(t *testing.T) {
	h := newMMHarness(t)
	h.cfg.Loaded = &protocol.Dataset{Records: 100, KeyPrefix: "user", KeyDigits: 8, ValueSize: 40}
	h.m = newMiddleMan(h.p, h.cfg)
	const key = "user00000007"
	want := string(h.cfg.Loaded.Value(key))

	g := h.get(key, 0)
	if string(g.Value) != want || g.Version != 0 || g.InFlight {
		t.Fatalf("loaded record read as %q v%d in-flight %v, want %q v0 stable", g.Value, g.Version, g.InFlight, want)
	}
	if !found(g.Version, g.Value) {
		t.Errorf("a loaded value does not count as found")
	}
	if g := h.get("user00000100", 0); g.Value != nil || found(g.Version, g.Value) {
		t.Errorf("key outside the dataset read as %q", g.Value)
	}
	h.get(key, 50) // moves the commit clock to 50
	e1 := h.put(key, "w1", 1)
	if g := h.get(key, 0); string(g.Value) != "w1" {
		t.Errorf("after a write, read %q, want w1", g.Value)
	}
	if g := h.get(key, e1-1); string(g.Value) != want || g.Version != 0 {
		t.Errorf("second round before the write read %q v%d, want the loaded value", g.Value, g.Version)
	}
}

// TestFound checks which ring replies count as data.
func TestFound(t *testing.T) {
	if found(0, nil) || !found(0, []byte("#loaded#k#")) || !found(1, nil) {
		t.Error("found: want absence only for version 0 without a value")
	}
}
