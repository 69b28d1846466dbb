package node

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/causeway/causeway/cluster"
)

// TestClockSkewShiftsOnlyTheMachinesTime: the skew moves the time handed
// to the state machine (local), forwards or backwards, never below 0, and
// leaves the time timers run on (now) alone.
func TestClockSkewShiftsOnlyTheMachinesTime(t *testing.T) {
	var skew atomic.Int64
	c := clock{base: time.Hour, start: time.Now(), skew: &skew}
	skew.Store(int64(30 * time.Minute))
	before := c.now()
	local := c.local()
	after := c.now()
	if local < before+30*time.Minute || local > after+30*time.Minute {
		t.Errorf("skew +30m: local %v, now between %v and %v", local, before, after)
	}
	skew.Store(int64(-2 * time.Hour))
	if got := c.local(); got != 0 {
		t.Errorf("skew -2h on a clock at 1h: local %v, want 0 (never negative)", got)
	}
	if c.now() < time.Hour {
		t.Errorf("now %v moved with the skew", c.now())
	}
	if got := (clock{base: time.Hour, start: time.Now()}).local(); got < time.Hour {
		t.Errorf("no skew: local %v, want at least 1h", got)
	}
}

// TestClockOffsetEndpoint sets, reads and clears a node's clock offset at
// cluster.AdminClockPath, and is refused out-of-range or malformed offsets.
func TestClockOffsetEndpoint(t *testing.T) {
	tc := newCluster(t, "cops")
	tc.startAdmin("a/s0")
	do := func(method, body string) (int, string) {
		t.Helper()
		req, err := http.NewRequest(method, "http://"+tc.cfg.Node("a/s0").HTTP+cluster.AdminClockPath, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		resp, err := (&http.Client{Timeout: 5 * time.Second}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		data, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(data)
	}
	offset := func(body string) int64 {
		t.Helper()
		var c cluster.ClockOffset
		if err := json.Unmarshal([]byte(body), &c); err != nil || c.Node != "a/s0" {
			t.Fatalf("answer %q: %v", body, err)
		}
		return c.OffsetMS
	}
	if code, body := do(http.MethodPost, `{"offset_ms": -2500}`); code != http.StatusOK || offset(body) != -2500 {
		t.Fatalf("POST -2500: %d %s", code, body)
	}
	if code, body := do(http.MethodGet, ""); code != http.StatusOK || offset(body) != -2500 {
		t.Fatalf("GET: %d %s", code, body)
	}
	for _, bad := range []string{`{"offset_ms": 3600001}`, `{"offset_ms": -3600001}`, `{"offset": 5}`, ``, `{"offset_ms": 1} {}`} {
		if code, body := do(http.MethodPost, bad); code != http.StatusBadRequest || !strings.Contains(body, "error") {
			t.Errorf("POST %q: %d %s, want 400 with an error", bad, code, body)
		}
	}
	if code, body := do(http.MethodDelete, ""); code != http.StatusOK || offset(body) != 0 {
		t.Fatalf("DELETE: %d %s", code, body)
	}
	// The client helper sets it on every node named.
	for _, r := range cluster.SetClockOffset(t.Context(), tc.cfg, []string{"a/s0"}, 700) {
		if r.Err != nil {
			t.Fatalf("SetClockOffset: %v", r.Err)
		}
	}
	if _, body := do(http.MethodGet, ""); offset(body) != 700 {
		t.Fatalf("after SetClockOffset 700: %s", body)
	}
}
