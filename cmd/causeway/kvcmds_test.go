package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/runtime/node/nodetest"
)

// withStdin runs f with os.Stdin reading data.
func withStdin(t *testing.T, data []byte, f func()) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "stdin")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	in, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	old := os.Stdin
	os.Stdin = in
	defer func() { os.Stdin = old }()
	f()
}

// mustRun runs the CLI and wants exit code want; it returns stdout.
func mustRun(t *testing.T, want int, args ...string) string {
	t.Helper()
	code, out, errOut := causeway(t, args...)
	if code != want {
		t.Fatalf("causeway %s: exit %d, want %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), code, want, out, errOut)
	}
	return out
}

// decode parses one JSON document printed by a -w json command.
func decode(t *testing.T, out string, v any) {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("stdout is not the JSON document expected: %v\n%s", err, out)
	}
}

// TestDelWhereAndValuesOnKarma runs the new key-value commands on a live
// karma cluster (local3: rings {a,b} and {c}): binary values from stdin
// and from a file read back exactly, -w json on put/get/del/txn/where, a
// delete made in a seen in c through the session token, a key brought
// back by a later put, and where's answer for a key with its nodes'
// addresses.
func TestDelWhereAndValuesOnKarma(t *testing.T) {
	dir := nodetest.StartLocal(t, "local3", "karma")
	bin := []byte("\x00\xffbinary\nvalue\x00")
	withStdin(t, bin, func() {
		mustRun(t, 0, "put", "--cluster", dir, "--dc", "a", "b", "-")
	})
	file := filepath.Join(t.TempDir(), "got")
	mustRun(t, 0, "get", "--cluster", dir, "--dc", "a", "--file", file, "b")
	if got, _ := os.ReadFile(file); !bytes.Equal(got, bin) {
		t.Errorf("get --file wrote %q, want %q", got, bin)
	}
	var g value
	decode(t, mustRun(t, 0, "get", "--cluster", dir, "--dc", "a", "-w", "json", "b"), &g)
	if raw, _ := base64.StdEncoding.DecodeString(deref(g.ValueBase64)); !g.Found || g.Value != nil || !bytes.Equal(raw, bin) {
		t.Errorf("get -w json = %+v, want value_base64 of %q", g, bin)
	}
	src := writeFile(t, "v", "from a file")
	mustRun(t, 0, "put", "--cluster", dir, "--dc", "a", "--file", src, "f")
	g = value{}
	decode(t, mustRun(t, 0, "get", "--cluster", dir, "--dc", "a", "-w", "json", "f"), &g)
	if !g.Found || deref(g.Value) != "from a file" || g.ValueBase64 != nil {
		t.Errorf("get -w json = %+v, want value \"from a file\"", g)
	}

	// A put and a delete in a, the delete in the put's session (separate
	// sessions' writes are concurrent: karma's coordinators may order
	// them either way), then a read in c with the session's token.
	var put okResult
	decode(t, mustRun(t, 0, "put", "--cluster", dir, "--dc", "a", "-w", "json", "p", "v0"), &put)
	if put.Op != "put" || len(put.Keys) != 1 || put.Keys[0] != "p" || put.SessionToken != "" {
		t.Errorf("put -w json = %+v (no token unless asked for)", put)
	}
	put = okResult{}
	decode(t, mustRun(t, 0, "put", "--cluster", dir, "--dc", "a", "--print-token", "-w", "json", "k", "v1"), &put)
	if put.SessionToken == "" {
		t.Fatalf("put --print-token -w json = %+v, want a token", put)
	}
	var del okResult
	decode(t, mustRun(t, 0, "del", "--cluster", dir, "--dc", "a", "--session-token", put.SessionToken, "--print-token", "-w", "json", "k"), &del)
	if del.Op != "del" || del.Tombstone == "" || del.SessionToken == "" {
		t.Fatalf("del -w json = %+v, want a tombstone and a token", del)
	}
	out := mustRun(t, 0, "get", "--cluster", dir, "--dc", "c", "--session-token", del.SessionToken, "k")
	if out != "(not found)\n" {
		t.Errorf("get of the deleted key in c = %q", out)
	}
	var rt readTxnResult
	decode(t, mustRun(t, 0, "txn", "--cluster", dir, "--dc", "c", "--session-token", del.SessionToken, "-w", "json", "get", "k", "f"), &rt)
	if len(rt.Reads) != 2 || rt.Reads[0].Found || rt.Reads[0].Key != "k" || !rt.Reads[1].Found || deref(rt.Reads[1].Value) != "from a file" {
		t.Errorf("txn get -w json = %+v, want k not found and f", rt)
	}
	if out := mustRun(t, 0, "txn", "--cluster", dir, "--dc", "c", "--session-token", del.SessionToken, "get", "k", "f"); out != "k (not found)\nf=from a file\n" {
		t.Errorf("txn get = %q", out)
	}
	mustRun(t, 0, "put", "--cluster", dir, "--dc", "a", "--session-token", del.SessionToken, "k", "v2")
	if out := mustRun(t, 0, "get", "--cluster", dir, "--dc", "a", "k"); out != "v2\n" {
		t.Errorf("get after a put following the delete = %q, want v2", out)
	}

	var w whereResult
	decode(t, mustRun(t, 0, "where", "--cluster", dir, "-w", "json", "k"), &w)
	if w.Protocol != "karma" || w.Topology != "local3" || w.Replicas != 2 || w.TotalDCs != 3 || len(w.Nodes) != 2 {
		t.Fatalf("where -w json = %+v, want karma's one replica in each of local3's 2 rings", w)
	}
	for _, n := range w.Nodes {
		if n.Addr == "" || n.Ring == nil || n.Kind != "data" || n.Role != "storage" {
			t.Errorf("where node %+v: want an address, a ring, kind data, role storage", n)
		}
	}
	if rings := [2]int{*w.Nodes[0].Ring, *w.Nodes[1].Ring}; rings != [2]int{0, 1} {
		t.Errorf("rings %v, want one node in each", rings)
	}
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// TestKVBadInput: bad values, flags and formats fail with exit 2 naming
// the command, before any node is contacted (none runs here).
func TestKVBadInput(t *testing.T) {
	dir := savedLocal3Cluster(t, "cops")
	for _, tc := range []struct {
		stdin string
		args  []string
		want  string
	}{
		{"", []string{"put", "k", "-"}, "put: key \"k\": standard input: empty value"},
		{"", []string{"put", "k", "v", "--file", "x"}, "put: with --file, give only KEY"},
		{"", []string{"put", "k"}, "put: want KEY VALUE, KEY - (stdin) or KEY --file FILE"},
		{"", []string{"put", "k", "--file", "/nonexistent/v"}, "put: --file /nonexistent/v: open"},
		{"", []string{"put", "k", protocol.TombstonePrefix + "x"}, "reserved for deletes"},
		{"", []string{"txn", "put", "k=" + protocol.TombstonePrefix}, "txn put: key \"k\": value starts with the tombstone prefix"},
		{"", []string{"txn", "put", "k="}, "txn put: key \"k\": empty value"},
		{"", []string{"get", "-w", "yaml", "k"}, "get: --write-out \"yaml\": must be table or json"},
		{"", []string{"del"}, "del: want KEY (got 0 arguments)"},
		{"", []string{"del", "--dc", "zz", "k"}, "del: unknown datacenter \"zz\""},
	} {
		args := append([]string{tc.args[0], "--cluster", dir, "--dc", "a"}, tc.args[1:]...)
		withStdin(t, []byte(tc.stdin), func() {
			code, out, errOut := causeway(t, args...)
			if code != 2 || out != "" || !strings.Contains(errOut, tc.want) {
				t.Errorf("causeway %q: exit %d, stdout %q, stderr %q; want exit 2 and %q", args, code, out, errOut, tc.want)
			}
		})
	}
	if code, _, errOut := causeway(t, "get", "k"); code != 2 || !strings.Contains(errOut, "get: --cluster (or $CAUSEWAY_CLUSTER) and --dc (or $CAUSEWAY_DC) are required") {
		t.Errorf("get without a cluster: exit %d, %q", code, errOut)
	}
}

// TestEnvDefaults: $CAUSEWAY_CLUSTER and $CAUSEWAY_DC stand for --cluster
// (and the cluster commands' --dir) and --dc; flags win.
func TestEnvDefaults(t *testing.T) {
	dir := savedLocal3Cluster(t, "cops")
	t.Setenv(envCluster, dir)
	t.Setenv(envDC, "zz")
	// The DC of the environment is used (and refused: none is called zz)…
	if code, _, errOut := causeway(t, "get", "k"); code != 2 || !strings.Contains(errOut, `get: unknown datacenter "zz"`) {
		t.Errorf("get with $CAUSEWAY_DC=zz: exit %d, %q", code, errOut)
	}
	// …unless a flag says otherwise; --cluster too.
	if code, _, errOut := causeway(t, "get", "--dc", "yy", "k"); code != 2 || !strings.Contains(errOut, `unknown datacenter "yy"`) {
		t.Errorf("get --dc yy: exit %d, %q", code, errOut)
	}
	if code, _, errOut := causeway(t, "get", "--cluster", t.TempDir(), "k"); code != 2 || strings.Contains(errOut, "datacenter") {
		t.Errorf("get --cluster EMPTYDIR: exit %d, %q; want the cluster file's absence", code, errOut)
	}
	// where reads the cluster of the environment, and --help shows it.
	if out := mustRun(t, 0, "where", "k"); !strings.Contains(out, "protocol cops, topology local3") {
		t.Errorf("where with $CAUSEWAY_CLUSTER: %q", out)
	}
	for _, args := range [][]string{{"put", "--help"}, {"cluster", "status", "--help"}, {"cluster", "partition", "--help"}} {
		out := mustRun(t, 0, args...)
		if !strings.Contains(out, "[$CAUSEWAY_CLUSTER] (default \""+dir+"\")") {
			t.Errorf("causeway %s does not show $CAUSEWAY_CLUSTER's default:\n%s", strings.Join(args, " "), out)
		}
	}
	if out := mustRun(t, 0, "cluster", "partition", "--help"); !strings.Contains(out, "[$CAUSEWAY_DC] (default \"zz\")") {
		t.Errorf("cluster partition --help does not show $CAUSEWAY_DC's default:\n%s", out)
	}
	if out := mustRun(t, 0, "certs", "--help"); strings.Contains(out, dir) {
		t.Errorf("certs --dir (not a cluster) took $CAUSEWAY_CLUSTER:\n%s", out)
	}
}

// TestWhereTopology: where without a cluster, on presets, for protocols
// of each placement.
func TestWhereTopology(t *testing.T) {
	var w whereResult
	decode(t, mustRun(t, 0, "where", "--topology", "karma-aws8", "--protocol", "karma", "-w", "json", "user42"), &w)
	if w.Replicas != 3 || len(w.DCs) != 3 || w.TotalDCs != 8 {
		t.Errorf("karma on karma-aws8: %+v, want one replica in each of 3 rings", w)
	}
	for _, n := range w.Nodes {
		if n.Addr != "" {
			t.Errorf("an address without a cluster: %+v", n)
		}
	}
	w = whereResult{}
	decode(t, mustRun(t, 0, "where", "--topology", "karma-aws8", "--protocol", "cops", "-w", "json", "user42"), &w)
	if w.Replicas != 8 || len(w.DCs) != 8 || w.Nodes[0].Ring != nil {
		t.Errorf("cops on karma-aws8: %+v, want every DC, no rings", w)
	}
	out := mustRun(t, 0, "where", "--topology", "local3", "--protocol", "karma", "user42")
	if !strings.Contains(out, `key "user42": 2 replicas in 2 of 3 datacenters (protocol karma, topology local3)`) || !strings.Contains(out, "DC  NODE") {
		t.Errorf("where table:\n%s", out)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"where", "--topology", "local3", "k"}, "where: --topology and --protocol go together"},
		{[]string{"where", "--topology", "local3", "--protocol", "bar", "k"}, `where: --protocol "bar": unknown protocol "bar"`},
		{[]string{"where", "--cluster", "x", "--topology", "local3", "--protocol", "cops", "k"}, "not both"},
		{[]string{"where", "k"}, "where: give --cluster DIR"},
		{[]string{"where", "--topology", "local3", "--protocol", "cops", "-w", "xml", "k"}, `where: --write-out "xml"`},
	} {
		if code, _, errOut := causeway(t, tc.args...); code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("causeway %q: exit %d, %q; want 2 and %q", tc.args, code, errOut, tc.want)
		}
	}
}

// TestVersion: version prints this binary's Go version, in both formats.
func TestVersion(t *testing.T) {
	var v versionInfo
	decode(t, mustRun(t, 0, "version", "-w", "json"), &v)
	if v.GoVersion != runtime.Version() || v.Version == "" || v.Platform != runtime.GOOS+"/"+runtime.GOARCH {
		t.Errorf("version -w json = %+v", v)
	}
	if out := mustRun(t, 0, "version"); !strings.Contains(out, "go        "+runtime.Version()) {
		t.Errorf("version:\n%s", out)
	}
	if code, _, _ := causeway(t, "version", "extra"); code != 2 {
		t.Errorf("version extra: exit %d, want 2", code)
	}
}

// TestCheckDeletes: `causeway check` reads dels and explains a read of the
// value a delete in its causal past replaced.
func TestCheckDeletes(t *testing.T) {
	ok := writeFile(t, "ok.jsonl", `{"session":"w","dc":"a","op":"put","key":"x","value":"w-1","start_ms":0,"end_ms":1}
{"session":"w","dc":"a","op":"del","key":"x","value":"w-2","start_ms":1,"end_ms":2}
{"session":"r","dc":"b","op":"get","key":"x","value":"w-2","start_ms":3,"end_ms":4}
`)
	mustRun(t, 0, "check", ok)
	stale := writeFile(t, "stale.jsonl", `{"session":"w","dc":"a","op":"put","key":"x","value":"w-1","start_ms":0,"end_ms":1}
{"session":"w","dc":"a","op":"del","key":"x","value":"w-2","start_ms":1,"end_ms":2}
{"session":"r","dc":"b","op":"get","key":"x","value":"w-2","start_ms":3,"end_ms":4}
{"session":"r","dc":"b","op":"get","key":"x","value":"w-1","start_ms":4,"end_ms":5}
`)
	if out := mustRun(t, 1, "check", stale); !strings.Contains(out, "read x=deleted(w-2) (line 3), then read x=w-1 (line 4)") {
		t.Errorf("check of a stale read after a delete:\n%s", out)
	}
}
