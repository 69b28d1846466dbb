package node

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/causeway/causeway/cluster"
	"github.com/causeway/causeway/transport"
	"github.com/causeway/causeway/wire/transportpb"
)

// startAdmin runs the given nodes of tc (all when none is given) with the
// link controls on, and waits until they answer /healthz.
func (tc *testCluster) startAdmin(ids ...string) {
	tc.t.Helper()
	if len(ids) == 0 {
		ids = tc.cfg.NodeIDs()
	}
	opts := DefaultOptions()
	opts.Admin = true
	for _, id := range ids {
		ctx, cancel := context.WithCancel(context.Background())
		rn := &runningNode{cancel: cancel, done: make(chan error, 1)}
		tc.mu.Lock()
		tc.running[id] = rn
		tc.mu.Unlock()
		go func() { rn.done <- RunWithOptions(ctx, tc.cfg, id, tc.log.With("test_node", id), opts) }()
	}
	for _, id := range ids {
		tc.waitHealthy(id)
	}
}

// adminDo sends method with body to node id's link controls and returns
// the status and body of the answer.
func (tc *testCluster) adminDo(id, method, body string) (int, string) {
	tc.t.Helper()
	return tc.httpDo(nil, id, method, cluster.AdminLinksPath, body)
}

// httpDo sends method with body to path on node id's http address with hc
// (nil: the cluster commands' client, cluster.Config.HTTPClient) and
// returns the status and body of the answer.
func (tc *testCluster) httpDo(hc *http.Client, id, method, path, body string) (int, string) {
	tc.t.Helper()
	if hc == nil {
		var err error
		if hc, err = tc.cfg.HTTPClient(5 * time.Second); err != nil {
			tc.t.Fatal(err)
		}
	}
	req, err := http.NewRequest(method, tc.cfg.NodeURL(*tc.cfg.Node(id), path), strings.NewReader(body))
	if err != nil {
		tc.t.Fatal(err)
	}
	resp, err := hc.Do(req)
	if err != nil {
		tc.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		tc.t.Fatal(err)
	}
	return resp.StatusCode, string(data)
}

// linkState GETs node id's link state.
func (tc *testCluster) linkState(id string) cluster.LinkState {
	tc.t.Helper()
	code, body := tc.adminDo(id, http.MethodGet, "")
	var st cluster.LinkState
	if code != http.StatusOK || json.Unmarshal([]byte(body), &st) != nil {
		tc.t.Fatalf("GET %s on %s: %d %s", cluster.AdminLinksPath, id, code, body)
	}
	return st
}

// TestLinkControlsRefuseGarbage sends the link controls malformed and
// invalid requests: each gets a 4xx naming the problem, nothing changes,
// and the node carries on.
func TestLinkControlsRefuseGarbage(t *testing.T) {
	tc := newCluster(t, "cops")
	tc.startAdmin("a/s0")
	for _, c := range []struct {
		name, method, body string
		code               int
		want               string
	}{
		{"empty body", "POST", "", 400, "empty body"},
		{"not JSON", "POST", "cut c please", 400, "invalid JSON"},
		{"binary", "POST", "\xff\xfe\x00\x01", 400, "invalid JSON"},
		{"array", "POST", `[{"peers_dc":["c"],"cut_out":true}]`, 400, "invalid JSON"},
		{"null", "POST", `null`, 400, "peers_dc: missing"},
		{"truncated", "POST", `{"peers_dc":["c"],"cut_out":tr`, 400, "invalid JSON"},
		{"trailing data", "POST", `{"peers_dc":["c"],"cut_out":true} {"peers_dc":["b"]}`, 400, "more after the object"},
		{"unknown field", "POST", `{"peers_dc":["c"],"cut":true}`, 400, `unknown field "cut"`},
		{"wrong type", "POST", `{"peers_dc":"c","cut_out":true}`, 400, "peers_dc"},
		{"string bool", "POST", `{"peers_dc":["c"],"cut_out":"yes"}`, 400, "cut_out"},
		{"no peers", "POST", `{"peers_dc":[],"cut_out":true}`, 400, "peers_dc: missing"},
		{"unknown DC", "POST", `{"peers_dc":["zz"],"cut_out":true}`, 400, `unknown datacenter "zz" (datacenters: a, b, c)`},
		{"own DC", "POST", `{"peers_dc":["a"],"cut_in":true}`, 400, "own datacenter"},
		{"twice", "POST", `{"peers_dc":["c","c"],"cut_out":true}`, 400, "listed twice"},
		{"nothing to do", "POST", `{"peers_dc":["c"]}`, 400, "nothing to change"},
		{"negative delay", "POST", `{"peers_dc":["c"],"delay_ms":-1}`, 400, "delay_ms: -1 is not between"},
		{"huge delay", "POST", `{"peers_dc":["c"],"delay_ms":99999999999}`, 400, "delay_ms"},
		{"fractional delay", "POST", `{"peers_dc":["c"],"delay_ms":1.5}`, 400, "delay_ms"},
		{"overflowing delay", "POST", `{"peers_dc":["c"],"delay_ms":1e300}`, 400, "delay_ms"},
		{"several problems", "POST", `{"peers_dc":["zz","a"],"delay_ms":-5}`, 400, "own datacenter"},
		{"too large", "POST", `{"peers_dc":["` + strings.Repeat("c", 100<<10) + `"]}`, 413, "body over"},
		{"wrong method", "PUT", `{"peers_dc":["c"],"cut_out":true}`, 405, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, body := tc.adminDo("a/s0", c.method, c.body)
			msg := body
			if code == 400 || code == 413 {
				var e struct{ Error string }
				if err := json.Unmarshal([]byte(body), &e); err != nil || e.Error == "" {
					t.Errorf("the error is not a JSON {\"error\": ...}: %s", body)
				}
				msg = e.Error
			}
			if code != c.code || !strings.Contains(msg, c.want) {
				t.Errorf("%s: %d %s; want %d and %q", c.method, code, body, c.code, c.want)
			}
		})
	}
	if st := tc.linkState("a/s0"); len(st.Links) != 0 || st.Node != "a/s0" || st.DC != "a" {
		t.Errorf("refused requests changed the links: %+v", st)
	}
	if code, body, err := tc.httpGet("a/s0", "/healthz"); err != nil || code != 200 {
		t.Errorf("/healthz after the garbage: %d %q %v", code, body, err)
	}

	// A valid change, then another that leaves the cut alone, then reset.
	code, body := tc.adminDo("a/s0", "POST", `{"peers_dc":["c","b"],"cut_out":true,"delay_ms":300}`)
	if code != 200 {
		t.Fatalf("valid POST: %d %s", code, body)
	}
	if code, body = tc.adminDo("a/s0", "POST", `{"peers_dc":["b"],"delay_ms":0,"cut_out":false}`); code != 200 {
		t.Fatalf("valid POST: %d %s", code, body)
	}
	want := []cluster.LinkRule{{DC: "c", CutOut: true, DelayMS: 300}}
	if st := tc.linkState("a/s0"); !slices.Equal(st.Links, want) {
		t.Errorf("links %+v, want %+v", st.Links, want)
	}
	if code, body = tc.adminDo("a/s0", "DELETE", ""); code != 200 || !strings.Contains(body, `"links": []`) {
		t.Errorf("DELETE: %d %s", code, body)
	}
}

// TestLinkControlsOffByDefault: Run (DefaultOptions) serves no link
// controls.
func TestLinkControlsOffByDefault(t *testing.T) {
	tc := newCluster(t, "cops")
	tc.start("a/s0")
	if code, body := tc.adminDo("a/s0", "POST", `{"peers_dc":["c"],"cut_out":true}`); code != http.StatusNotFound {
		t.Errorf("POST without Options.Admin: %d %s, want 404", code, body)
	}
}

// TestPartitionAcrossNodeHosts cuts DC c off with the plan 'causeway
// cluster partition' uses: cops keeps serving on both sides (puts are
// acknowledged locally, c reads what it had), and after the heal each
// side sees the other's writes.
func TestPartitionAcrossNodeHosts(t *testing.T) {
	tc := newCluster(t, "cops")
	tc.startAdmin()
	ctx, cancel := context.WithTimeout(context.Background(), patience) // a hang guard
	defer cancel()
	alice := tc.session("a", DialOptions{OpTimeout: 2 * time.Second})
	carol := tc.session("c", DialOptions{OpTimeout: 2 * time.Second})
	if err := alice.Put(ctx, "x", []byte("x0")); err != nil {
		t.Fatal(err)
	}
	eventually(ctx, t, carol, "x", "x0")

	cut := true
	plan, err := cluster.PlanLinks(tc.cfg, cluster.LinkFault{DC: "c", Cut: &cut})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range cluster.SetLinks(ctx, tc.cfg, plan) {
		if r.Err != nil {
			t.Fatal(r.Err)
		}
	}
	if err := alice.Put(ctx, "x", []byte("x1")); err != nil {
		t.Fatalf("put in a during the partition: %v", err)
	}
	if v, found, err := carol.Get(ctx, "x"); err != nil || !found || string(v) != "x0" {
		t.Fatalf("get in c during the partition: %q %v %v; want the old x0", v, found, err)
	}
	if err := carol.Put(ctx, "y", []byte("y1")); err != nil {
		t.Fatalf("put in c during the partition: %v", err)
	}
	// The replication of x1 to c is dropped by the transport of x's shard
	// in a (it may be sent just after the acknowledgement).
	owner := fmt.Sprintf("a/s%d", tc.cfg.Topology.ServerIndex("a", "x"))
	for tc.linkState(owner).DroppedOut == 0 {
		if ctx.Err() != nil {
			t.Fatalf("%s dropped nothing on its cut links", owner)
		}
		time.Sleep(10 * time.Millisecond) // polling a counter: nothing to wait on
	}

	// Inbound: a client of c that addresses a node of a is not heard; one
	// of b is.
	pongs := make(chan string, 4)
	probe, err := transport.New(transport.Config{Self: "127.0.0.1:0", Handler: func(_, to string, msg proto.Message) {
		if _, ok := msg.(*transportpb.Pong); ok {
			pongs <- to
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer probe.Close()
	before := tc.linkState("a/s0").DroppedIn
	fromC := string(SessionID("c", "p1"))
	fromB := string(SessionID("b", "p2"))
	for _, from := range []string{fromC, fromB} {
		if err := probe.Send(tc.cfg.Node("a/s0").Addr, from, "a/s0", &transportpb.Ping{Id: 1}); err != nil {
			t.Fatal(err)
		}
	}
	select {
	case to := <-pongs:
		if to != fromB {
			t.Fatalf("a/s0 answered %s across the partition", to)
		}
	case <-ctx.Done():
		t.Fatal("a/s0 did not answer a client of b")
	}
	// Frames of one link arrive in order: c's ping, sent first, was dropped.
	if st := tc.linkState("a/s0"); st.DroppedIn != before+1 {
		t.Errorf("a/s0 dropped %d frames from c, want 1", st.DroppedIn-before)
	}

	for _, r := range cluster.ResetLinks(ctx, tc.cfg) {
		if r.Err != nil {
			t.Fatal(r.Err)
		}
	}
	eventually(ctx, t, carol, "x", "x1")
	eventually(ctx, t, alice, "y", "y1")
}

// TestAddressBookLinkRules checks which transport links a rule cuts,
// including the addresses of client sessions learned after it, and the
// delays it adds.
func TestAddressBookLinkRules(t *testing.T) {
	cfg := planLocal3(t, "cops")
	b := newAddressBook(cfg, "a")
	cuts := map[string]bool{}
	b.cut = func(addr string, cut bool) {
		if cut {
			cuts[addr] = true
		} else {
			delete(cuts, addr)
		}
	}
	yes, no, ms := true, false, int64(300)
	b.changeLinks(cluster.LinkChange{PeersDC: []string{"c"}, CutOut: &yes, DelayMS: &ms})
	c0, c1 := cfg.Node("c/s0").Addr, cfg.Node("c/s1").Addr
	if len(cuts) != 2 || !cuts[c0] || !cuts[c1] {
		t.Errorf("cut %v, want c's two nodes", cuts)
	}
	if d := b.delay(c0); d != 60*time.Millisecond+300*time.Millisecond {
		t.Errorf("delay a->c = %v, want 60ms + 300ms", d)
	}
	if d := b.delay(cfg.Node("b/s0").Addr); d != 20*time.Millisecond {
		t.Errorf("delay a->b = %v, want 20ms", d)
	}
	// A reply to a session of c waits out the same delay.
	if d := b.delay(string(SessionID("c", "c1"))); d != 360*time.Millisecond {
		t.Errorf("delay to a session of c = %v, want 360ms", d)
	}
	// cut_in alone cuts no link.
	b.changeLinks(cluster.LinkChange{PeersDC: []string{"b"}, CutIn: &yes})
	if !b.cutIn("b") || b.cutIn("c") || b.cutIn("a") || len(cuts) != 2 {
		t.Errorf("cutIn b %v c %v a %v, cuts %v", b.cutIn("b"), b.cutIn("c"), b.cutIn("a"), cuts)
	}
	b.changeLinks(cluster.LinkChange{PeersDC: []string{"c"}, CutOut: &no})
	if len(cuts) != 0 {
		t.Errorf("cut_out false left %v cut", cuts)
	}
	if d := b.delay(c0); d != 360*time.Millisecond {
		t.Errorf("healing the cut changed the added delay: %v", d)
	}
	want := []cluster.LinkRule{{DC: "b", CutIn: true}, {DC: "c", DelayMS: 300}}
	if got := b.linkRules(); !slices.Equal(got, want) {
		t.Errorf("rules %+v, want %+v", got, want)
	}
	b.changeLinks(cluster.LinkChange{PeersDC: []string{"c"}, CutOut: &yes})
	b.resetLinks()
	if got := b.linkRules(); len(got) != 0 || len(cuts) != 0 || b.delay(c0) != 60*time.Millisecond || b.cutIn("b") {
		t.Errorf("after reset: rules %+v, cuts %v, delay %v", got, cuts, b.delay(c0))
	}
	// Without wan_delay, only the added delay.
	cfg.WANDelay = false
	nb := newAddressBook(cfg, "a")
	nb.changeLinks(cluster.LinkChange{PeersDC: []string{"c"}, DelayMS: &ms})
	if d := nb.delay(c0); d != 300*time.Millisecond {
		t.Errorf("delay without wan_delay = %v, want the 300ms added", d)
	}
}
