package cluster_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/causeway/causeway/cluster"
)

func ptr[T any](v T) *T { return &v }

// TestPlanLinks checks which node gets which change for a fault between
// one datacenter and others, in each direction.
func TestPlanLinks(t *testing.T) {
	cfg, _ := plan(t, "cops") // local3: a, b, c, two servers each
	cut, ms := ptr(true), ptr(int64(300))
	for _, tc := range []struct {
		name  string
		fault cluster.LinkFault
		// want is each DC's change, as "peers cut_out cut_in delay".
		want map[string]string
	}{
		{"partition", cluster.LinkFault{DC: "c", Cut: cut},
			map[string]string{"a": "c true true -", "b": "c true true -", "c": "a,b true true -"}},
		{"from a only", cluster.LinkFault{DC: "c", Peers: []string{"a"}, Cut: cut},
			map[string]string{"a": "c true true -", "c": "a true true -"}},
		{"leaving c", cluster.LinkFault{DC: "c", Direction: cluster.Out, Cut: cut},
			map[string]string{"a": "c - true -", "b": "c - true -", "c": "a,b true - -"}},
		{"entering c", cluster.LinkFault{DC: "c", Direction: cluster.In, Cut: cut},
			map[string]string{"a": "c true - -", "b": "c true - -", "c": "a,b - true -"}},
		{"congestion", cluster.LinkFault{DC: "a", DelayMS: ms},
			map[string]string{"a": "b,c - - 300", "b": "a - - 300", "c": "a - - 300"}},
		{"congestion entering a", cluster.LinkFault{DC: "a", Direction: cluster.In, DelayMS: ms},
			map[string]string{"b": "a - - 300", "c": "a - - 300"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := cluster.PlanLinks(cfg, tc.fault)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			for _, id := range cfg.NodeIDs() {
				c, ok := p[id]
				if !ok {
					continue
				}
				dc, _, _ := strings.Cut(id, "/")
				s := strings.Join(c.PeersDC, ",") + " " + opt(c.CutOut) + " " + opt(c.CutIn) + " " + opt(c.DelayMS)
				if prev, seen := got[dc]; seen && prev != s {
					t.Errorf("the nodes of %s get different changes: %s, %s", dc, prev, s)
				}
				got[dc] = s
				if err := c.Validate(cfg.Topology, dc); err != nil {
					t.Errorf("%s's change is invalid: %v", id, err)
				}
			}
			if len(got) != len(tc.want) {
				t.Errorf("changes for DCs %v, want %v", got, tc.want)
			}
			for dc, w := range tc.want {
				if got[dc] != w {
					t.Errorf("%s: %q, want %q", dc, got[dc], w)
				}
			}
		})
	}
	for _, tc := range []struct {
		name  string
		fault cluster.LinkFault
		want  string
	}{
		{"unknown DC", cluster.LinkFault{DC: "zz", Cut: cut}, `unknown datacenter "zz" (datacenters: a, b, c)`},
		{"unknown peer", cluster.LinkFault{DC: "a", Peers: []string{"q"}, Cut: cut}, `unknown datacenter "q"`},
		{"itself", cluster.LinkFault{DC: "a", Peers: []string{"a"}, Cut: cut}, "from itself"},
		{"twice", cluster.LinkFault{DC: "a", Peers: []string{"b", "b"}, Cut: cut}, "listed twice"},
		{"bad direction", cluster.LinkFault{DC: "a", Direction: "sideways", Cut: cut}, "not one of both, out, in"},
		{"nothing", cluster.LinkFault{DC: "a"}, "nothing to change"},
		{"negative delay", cluster.LinkFault{DC: "a", DelayMS: ptr(int64(-1))}, "not between"},
	} {
		if _, err := cluster.PlanLinks(cfg, tc.fault); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error with %q", tc.name, err, tc.want)
		}
	}
	heal := cluster.HealCuts(cfg)
	if c := heal["b/s1"]; !slices.Equal(c.PeersDC, []string{"a", "c"}) || c.CutOut == nil || *c.CutOut || c.CutIn == nil || *c.CutIn || c.DelayMS != nil {
		t.Errorf("HealCuts for b/s1: %+v", c)
	}
	if len(heal) != len(cfg.Nodes) {
		t.Errorf("HealCuts has %d nodes, want %d", len(heal), len(cfg.Nodes))
	}
}

func opt[T any](p *T) string {
	if p == nil {
		return "-"
	}
	b, _ := json.Marshal(*p)
	return string(b)
}

// TestSetLinksReportsEachNode points the nodes of a cluster file at fake
// HTTP servers: one applies the change, one refuses it, one has no link
// controls, one is not there. Each outcome names its node and why.
func TestSetLinksReportsEachNode(t *testing.T) {
	cfg, _ := plan(t, "cops")
	var (
		mu  sync.Mutex
		got []cluster.LinkChange // what the fakes received
	)
	fake := func(code int, body string) string {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != cluster.AdminLinksPath {
				http.NotFound(w, r)
				return
			}
			if r.Method == http.MethodPost {
				data, _ := io.ReadAll(r.Body)
				var c cluster.LinkChange
				if err := json.Unmarshal(data, &c); err != nil {
					t.Errorf("the request body is not a LinkChange: %s", data)
				}
				mu.Lock()
				got = append(got, c)
				mu.Unlock()
			}
			w.WriteHeader(code)
			_, _ = io.WriteString(w, body)
		}))
		t.Cleanup(srv.Close)
		return strings.TrimPrefix(srv.URL, "http://")
	}
	cfg.Nodes[0].HTTP = fake(200, `{"node":"a/s0","dc":"a","links":[{"dc":"c","cut_out":true,"cut_in":true,"delay_ms":0}],"dropped_out":3,"dropped_in":1}`)
	cfg.Nodes[1].HTTP = fake(400, `{"error":"peers_dc: unknown datacenter \"zz\""}`)
	cfg.Nodes[2].HTTP = fake(404, "404 page not found")
	dead := httptest.NewServer(http.NotFoundHandler())
	cfg.Nodes[3].HTTP = strings.TrimPrefix(dead.URL, "http://")
	dead.Close()
	cfg.Nodes = cfg.Nodes[:4]

	yes := true
	change := cluster.LinkChange{PeersDC: []string{"c"}, CutOut: &yes, CutIn: &yes}
	plan := map[string]cluster.LinkChange{}
	for _, n := range cfg.Nodes {
		plan[n.ID] = change
	}
	res := cluster.SetLinks(context.Background(), cfg, plan)
	if len(res) != 4 {
		t.Fatalf("%d results, want 4", len(res))
	}
	if r := res[0]; r.Err != nil || r.State == nil || r.State.DroppedOut != 3 || len(r.State.Links) != 1 || !r.State.Links[0].CutIn {
		t.Errorf("%s: %+v %v", r.ID, r.State, r.Err)
	}
	mu.Lock()
	if len(got) != 3 {
		t.Errorf("the three listening nodes received %d changes", len(got))
	}
	for _, c := range got {
		if c.CutOut == nil || !*c.CutOut || c.DelayMS != nil || !slices.Equal(c.PeersDC, []string{"c"}) {
			t.Errorf("a node received %+v", c)
		}
	}
	mu.Unlock()
	for i, want := range []string{"", `400 Bad Request: peers_dc: unknown datacenter "zz"`, "--admin", "unreachable"} {
		r := res[i]
		if r.ID != cfg.Nodes[i].ID {
			t.Errorf("result %d is for %s, want %s (file order)", i, r.ID, cfg.Nodes[i].ID)
		}
		if want == "" {
			continue
		}
		if r.Err == nil || !strings.Contains(r.Err.Error(), want) || !strings.Contains(r.Err.Error(), r.ID) {
			t.Errorf("%s: %v, want an error naming it with %q", r.ID, r.Err, want)
		}
	}
	// Nodes absent from the plan are not asked.
	if res := cluster.SetLinks(context.Background(), cfg, map[string]cluster.LinkChange{"a/s0": change}); len(res) != 1 || res[0].ID != "a/s0" {
		t.Errorf("SetLinks with a plan of one node: %+v", res)
	}
}
