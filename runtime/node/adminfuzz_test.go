package node

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/causeway/causeway/cluster"
	"github.com/causeway/causeway/topology"
	"github.com/causeway/causeway/transport"
)

// adminHost is a node host of local3's a/s0 with only what the admin
// endpoints use (its address book, a transport that sends nowhere), and
// their handlers.
func adminHost(f *testing.F) (*host, http.Handler) {
	topo, err := topology.Preset("local3")
	if err != nil {
		f.Fatal(err)
	}
	cfg, err := cluster.Plan(topo, "cops", f.TempDir())
	if err != nil {
		f.Fatal(err)
	}
	tr, err := transport.New(transport.Config{Self: "127.0.0.1:0", Handler: func(string, string, proto.Message) {}})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { _ = tr.Close() })
	book := newAddressBook(cfg, "a")
	book.cut = func(addr string, cut bool) {
		if cut {
			tr.Cut(addr)
		} else {
			tr.Heal(addr)
		}
	}
	h := &host{id: "a/s0", log: slog.New(slog.DiscardHandler), book: book, tr: tr}
	h.ready.Store(true)
	mux := http.NewServeMux()
	h.handleAdmin(mux)
	h.handleClock(mux)
	return h, mux
}

// FuzzAdminJSON: any body POSTed to the link controls or the clock offset
// (unauthenticated JSON from the network) is either refused with a 4xx
// and a JSON {"error": …}, or accepted with 200 and the node's state, in
// which a clock offset stays within its bounds. Nothing panics or answers
// 5xx.
func FuzzAdminJSON(f *testing.F) {
	h, mux := adminHost(f)
	for _, s := range []struct {
		clock bool
		body  string
	}{
		{false, `{"peers_dc": ["c"], "cut_out": true, "cut_in": true}`},
		{false, `{"peers_dc": ["b", "c"], "delay_ms": 300}`},
		{false, `{"peers_dc": ["a"], "cut_out": false}`},
		{false, `{"peers_dc": ["c"], "delay_ms": -1}`},
		{false, `{"peers_dc": [], "bogus": 1}`},
		{false, `{"peers_dc": ["c"]} {}`},
		{true, `{"offset_ms": -2000}`},
		{true, `{"offset_ms": 3600001}`},
		{true, `{"offset_ms": 1e3}`},
		{true, `{"node": "x", "offset_ms": 5}`},
		{true, ``},
		{true, `null`},
	} {
		f.Add(s.clock, s.body)
	}
	f.Fuzz(func(t *testing.T, clock bool, body string) {
		path := cluster.AdminLinksPath
		if clock {
			path = cluster.AdminClockPath
		}
		rec := httptest.NewRecorder()
		mux.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, path, strings.NewReader(body)))
		switch {
		case rec.Code == http.StatusOK && clock:
			var c cluster.ClockOffset
			if err := json.Unmarshal(rec.Body.Bytes(), &c); err != nil || c.OffsetMS < -cluster.MaxClockOffsetMS || c.OffsetMS > cluster.MaxClockOffsetMS {
				t.Fatalf("POST %s %q accepted: %s (%v)", path, body, rec.Body, err)
			}
			if got := h.clockOffset().OffsetMS; got != c.OffsetMS {
				t.Fatalf("answered offset %d, node has %d", c.OffsetMS, got)
			}
		case rec.Code == http.StatusOK:
			var st cluster.LinkState
			if err := json.Unmarshal(rec.Body.Bytes(), &st); err != nil || st.Node != "a/s0" {
				t.Fatalf("POST %s %q accepted: %s (%v)", path, body, rec.Body, err)
			}
			for _, r := range st.Links {
				if r.DC == "a" || !h.book.topo.HasDC(r.DC) || r.DelayMS < 0 || r.DelayMS > cluster.MaxAddedDelayMS {
					t.Fatalf("POST %q left a rule %+v", body, r)
				}
			}
		case rec.Code >= 400 && rec.Code < 500:
			var e struct {
				Error string `json:"error"`
			}
			if err := json.Unmarshal(rec.Body.Bytes(), &e); err != nil || e.Error == "" {
				t.Fatalf("POST %s %q refused with %d but no error: %s", path, body, rec.Code, rec.Body)
			}
		default:
			t.Fatalf("POST %s %q: status %d: %s", path, body, rec.Code, rec.Body)
		}
	})
}

// FuzzAdminWithoutCertificate: on a node serving HTTPS, no request to
// /admin/* from a client without the admin certificate, whatever its
// method, path and body, gets anything but 403 or changes the node's
// links or clock.
func FuzzAdminWithoutCertificate(f *testing.F) {
	h, mux := adminHost(f)
	h.https = true
	guarded := h.authorize(mux)
	f.Add(http.MethodPost, "links", `{"peers_dc": ["c"], "cut_out": true, "cut_in": true}`)
	f.Add(http.MethodPost, "clock", `{"offset_ms": 2000}`)
	f.Add(http.MethodDelete, "links", ``)
	f.Add(http.MethodPost, "links/../links", `{"peers_dc": ["b"], "delay_ms": 300}`)
	f.Add(http.MethodPut, "%2e%2e/admin/links", `{}`)
	f.Fuzz(func(t *testing.T, method, sub, body string) {
		req, err := http.NewRequest(method, "http://a-s0"+"/admin/"+sub, strings.NewReader(body))
		if err != nil {
			return // not a request a client could send
		}
		rec := httptest.NewRecorder()
		guarded.ServeHTTP(rec, req)
		if rec.Code != http.StatusForbidden {
			t.Fatalf("%s /admin/%s %q without a certificate: status %d: %s", method, sub, body, rec.Code, rec.Body)
		}
		if len(h.book.linkRules()) != 0 || h.clockOffset().OffsetMS != 0 {
			t.Fatalf("%s /admin/%s %q without a certificate changed the node: links %+v clock %+v", method, sub, body, h.book.linkRules(), h.clockOffset())
		}
	})
}
