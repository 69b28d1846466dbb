package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/causeway/causeway/cluster"
)

// TestClusterLinkArguments checks the refusals of cluster partition, heal,
// delay and links, in-process, on a cluster file whose nodes do not run.
func TestClusterLinkArguments(t *testing.T) {
	dir := savedLocal3Cluster(t, "cops")
	empty := t.TempDir()
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"partition without dir", []string{"cluster", "partition", "--dc", "c"}, 2, "--dir is required"},
		{"partition without cluster", []string{"cluster", "partition", "--dir", empty, "--dc", "c"}, 2, "no cluster in"},
		{"partition without dc", []string{"cluster", "partition", "--dir", dir}, 2, "--dc is required (datacenters: a, b, c)"},
		{"partition of an unknown dc", []string{"cluster", "partition", "--dir", dir, "--dc", "zz"}, 2, `unknown datacenter "zz"`},
		{"partition from an unknown dc", []string{"cluster", "partition", "--dir", dir, "--dc", "c", "--from-dc", "a,q"}, 2, `unknown datacenter "q"`},
		{"partition from itself", []string{"cluster", "partition", "--dir", dir, "--dc", "c", "--from-dc", "c"}, 2, "cut from itself"},
		{"partition sideways", []string{"cluster", "partition", "--dir", dir, "--dc", "c", "--direction", "up"}, 2, "not one of both, out, in"},
		{"partition with an argument", []string{"cluster", "partition", "--dir", dir, "--dc", "c", "now"}, 2, "unknown command"},
		{"delay without add", []string{"cluster", "delay", "--dir", dir, "--dc", "c"}, 2, "--add is required"},
		{"negative delay", []string{"cluster", "delay", "--dir", dir, "--dc", "c", "--add", "-5ms"}, 2, "cluster delay: --add -5ms: must not be negative"},
		{"fractional delay", []string{"cluster", "delay", "--dir", dir, "--dc", "c", "--add", "1500us"}, 2, "whole number of milliseconds"},
		{"huge delay", []string{"cluster", "delay", "--dir", dir, "--dc", "c", "--add", "2h"}, 2, "not between"},
		{"delay that is no duration", []string{"cluster", "delay", "--dir", dir, "--dc", "c", "--add", "slow"}, 2, "slow"},
		{"heal without dir", []string{"cluster", "heal"}, 2, "--dir is required"},
		{"links without cluster", []string{"cluster", "links", "--dir", empty}, 2, "no cluster in"},
		// The nodes are not running: every one fails, by name.
		{"partition of a stopped cluster", []string{"cluster", "partition", "--dir", dir, "--dc", "c"}, 1, "6 of 6 nodes failed"},
		{"heal of a stopped cluster", []string{"cluster", "heal", "--dir", dir}, 1, "c/s1 unreachable"},
		{"links of a stopped cluster", []string{"cluster", "links", "--dir", dir}, 1, "a/s0 unreachable"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errOut := causeway(t, tc.args...)
			if code != tc.code || !strings.Contains(errOut, tc.want) {
				t.Errorf("exit %d, stderr %q; want exit %d and %q", code, errOut, tc.code, tc.want)
			}
		})
	}
	for _, cmd := range []string{"partition", "heal", "delay", "links"} {
		if code, out, _ := causeway(t, "cluster", cmd, "--help"); code != 0 || !strings.Contains(out, "Exit status") {
			t.Errorf("cluster %s --help: exit %d\n%s", cmd, code, out)
		}
	}
}

// liveCluster is a local cluster run by the causeway binary, for tests.
type liveCluster struct {
	t        *testing.T
	ctx      context.Context
	bin, dir string
}

// buildCauseway builds the causeway binary into a temporary directory.
func buildCauseway(t *testing.T, ctx context.Context) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "causeway")
	if out, err := exec.CommandContext(ctx, "go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// upCluster starts a local3 cluster of protocol in a new directory with
// args added to cluster up, and stops it at the end of the test.
func upCluster(t *testing.T, ctx context.Context, bin, protocol string, args ...string) *liveCluster {
	t.Helper()
	lc := &liveCluster{t: t, ctx: ctx, bin: bin, dir: filepath.Join(t.TempDir(), protocol)}
	t.Cleanup(func() {
		// Whatever happened, leave no process behind.
		if _, err := os.Stat(filepath.Join(lc.dir, cluster.FileName)); err == nil {
			if code, out, errOut := lc.run("cluster", "down", "--dir", lc.dir); code != 0 {
				t.Errorf("cleanup: cluster down: exit %d\n%s%s", code, out, errOut)
			}
		}
		if t.Failed() {
			logs, _ := filepath.Glob(filepath.Join(lc.dir, "logs", "*.log"))
			for _, l := range logs {
				data, _ := os.ReadFile(l)
				t.Logf("%s:\n%s", l, data)
			}
		}
	})
	lc.expect(0, "created cluster", append([]string{"cluster", "up", "--topology", "local3", "--protocol", protocol, "--dir", lc.dir}, args...)...)
	return lc
}

// run runs the binary and returns its exit code and output.
func (lc *liveCluster) run(args ...string) (int, string, string) {
	lc.t.Helper()
	return runBinary(lc.ctx, lc.t, lc.bin, args...)
}

// expect runs the binary and fails the test unless it exits with
// wantCode and its output contains wantOut; it returns stdout.
func (lc *liveCluster) expect(wantCode int, wantOut string, args ...string) string {
	lc.t.Helper()
	code, out, errOut := lc.run(args...)
	if code != wantCode || !strings.Contains(out+errOut, wantOut) {
		lc.t.Fatalf("causeway %s: exit %d, want %d and %q\nstdout:\n%s\nstderr:\n%s",
			strings.Join(args, " "), code, wantCode, wantOut, out, errOut)
	}
	return out
}

// put writes key=value from a session in dc; it must be acknowledged.
func (lc *liveCluster) put(dc, key, value string) {
	lc.t.Helper()
	lc.expect(0, "ok", "put", "--cluster", lc.dir, "--dc", dc, "--timeout", "5s", key, value)
}

// get reads key from a session in dc; it must answer.
func (lc *liveCluster) get(dc, key string) string {
	lc.t.Helper()
	return strings.TrimSpace(lc.expect(0, "", "get", "--cluster", lc.dir, "--dc", dc, "--timeout", "5s", key))
}

// eventually polls a get of key in dc until it returns want, within
// deadline; it returns how long that took.
func (lc *liveCluster) eventually(dc, key, want string, deadline time.Duration) time.Duration {
	lc.t.Helper()
	start := time.Now()
	for {
		got := lc.get(dc, key)
		if got == want {
			return time.Since(start)
		}
		if time.Since(start) > deadline {
			lc.t.Fatalf("get %s in %s: %q after %v, want %q", key, dc, got, deadline, want)
		}
	}
}

// droppedOut is the number of frames the nodes dropped on cut links.
func (lc *liveCluster) droppedOut() uint64 {
	lc.t.Helper()
	cfg, err := cluster.Load(lc.dir)
	if err != nil {
		lc.t.Fatal(err)
	}
	var n uint64
	for _, r := range cluster.Links(lc.ctx, cfg) {
		if r.Err != nil {
			lc.t.Fatal(r.Err)
		}
		n += r.State.DroppedOut
	}
	return n
}

// catchUp bounds how long a datacenter may take to see a write once the
// partition is healed: the protocols retransmit with backoff (fullrep:
// 0.5s doubling up to 8s), so a short partition is caught up within a few
// seconds. It is a hang guard, not a measurement.
const catchUp = 20 * time.Second

// TestPartitionLiveCluster runs real local3 clusters of processes and cuts
// DC c off from a and b with 'cluster partition' (karma.txt §2's partition
// modes; the availability a partitioned DC keeps is the point of causal+
// consistency, COPS §2): cops keeps serving on both sides and catches up
// after 'cluster heal', with a live benchmark across the partition and
// the heal checked for causal+ consistency; 'cluster delay' slows c's
// links down; eventual keeps serving too.
func TestPartitionLiveCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs multi-process clusters")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute) // a hang guard
	t.Cleanup(cancel)
	bin := buildCauseway(t, ctx)

	t.Run("cops", func(t *testing.T) {
		// With tls: the partition commands present the admin certificate.
		lc := upCluster(t, ctx, bin, "cops", "--tls")
		lc.put("a", "x", "x0")
		lc.eventually("c", "x", "x0", catchUp)

		out := lc.expect(0, "c: cut", "cluster", "partition", "--dir", lc.dir, "--dc", "c")
		for _, want := range []string{"a/s0", "b/s1", "c/s1", "a: cut, b: cut"} {
			if !strings.Contains(out, want) {
				t.Errorf("partition output lacks %q:\n%s", want, out)
			}
		}
		lc.put("a", "x", "x1") // acknowledged in a: cops acks locally
		if got := lc.get("c", "x"); got != "x0" {
			t.Fatalf("get x in c during the partition = %q, want the old x0", got)
		}
		lc.put("c", "y", "y1")
		if got := lc.get("c", "y"); got != "y1" {
			t.Fatalf("get y in c after c's own put = %q, want y1", got)
		}
		if got := lc.get("a", "y"); got != "(not found)" {
			t.Fatalf("get y in a during the partition = %q: the put in c crossed the partition", got)
		}
		lc.expect(0, "c: cut", "cluster", "links", "--dir", lc.dir)
		var links []linksRecord
		if err := json.Unmarshal([]byte(lc.expect(0, "", "cluster", "links", "--dir", lc.dir, "-w", "json")), &links); err != nil || len(links) != 6 {
			t.Fatalf("cluster links -w json: %v, %d nodes", err, len(links))
		}
		for _, l := range links {
			cuts := 0
			for _, r := range l.Links {
				if r.CutOut && r.CutIn {
					cuts++
				}
			}
			if want := map[bool]int{true: 2, false: 1}[strings.HasPrefix(l.Node, "c/")]; cuts != want || l.Error != "" {
				t.Errorf("%s during the partition: %+v; want %d links cut both ways", l.Node, l, want)
			}
		}
		lc.expect(0, "NODE", "cluster", "heal", "--dir", lc.dir)
		lc.eventually("c", "x", "x1", catchUp)
		lc.eventually("a", "y", "y1", catchUp)
		if out := lc.expect(0, "", "cluster", "links", "--dir", lc.dir); strings.Contains(out, "cut") {
			t.Errorf("links after heal:\n%s", out)
		}

		// Congestion: c's traffic waits 300ms more each way.
		lc.expect(0, "c: +300ms", "cluster", "delay", "--dir", lc.dir, "--dc", "c", "--add", "300ms")
		start := time.Now()
		lc.put("a", "z", "z1")
		lc.eventually("c", "z", "z1", catchUp)
		if took, min := time.Since(start), 300*time.Millisecond+60*time.Millisecond; took < min {
			t.Errorf("z1 visible in c %v after the put, before the 300ms added to the 60ms one-way delay", took)
		}
		lc.expect(0, "NODE", "cluster", "heal", "--dir", lc.dir)

		// A live benchmark across a partition and its heal.
		history := filepath.Join(t.TempDir(), "h.jsonl")
		var benchOut, benchErr bytes.Buffer
		bench := exec.CommandContext(ctx, bin, "bench", "--cluster", lc.dir, "--duration", "2s", "--clients", "6",
			"--ceiling", "0s", "--op-timeout", "2s", "--json", "--history", history)
		bench.Stdout, bench.Stderr = &benchOut, &benchErr
		before := lc.droppedOut()
		if err := bench.Start(); err != nil {
			t.Fatal(err)
		}
		lc.expect(0, "c: cut", "cluster", "partition", "--dir", lc.dir, "--dc", "c")
		// Wait until the benchmark's replication has hit the cut links.
		for lc.droppedOut() < before+5 {
			if ctx.Err() != nil {
				t.Fatal("the benchmark's writes never reached the cut links")
			}
			time.Sleep(20 * time.Millisecond) // polling counters: nothing to wait on
		}
		lc.expect(0, "NODE", "cluster", "heal", "--dir", lc.dir)
		err := bench.Wait()
		if err != nil || !strings.Contains(benchOut.String(), `"ok": true`) {
			t.Fatalf("bench across the partition: %v\nstdout:\n%s\nstderr:\n%s", err, benchOut.String(), benchErr.String())
		}
		var res struct {
			Ops    int64            `json:"ops"`
			Errors map[string]int64 `json:"errors"`
		}
		if err := json.Unmarshal(benchOut.Bytes(), &res); err != nil || res.Ops == 0 {
			t.Fatalf("bench result (%v): %s", err, benchOut.String())
		}
		t.Logf("bench across the partition: %d operations, errors %v", res.Ops, res.Errors)
		lc.expect(0, "", "check", history)
	})

	t.Run("eventual", func(t *testing.T) {
		lc := upCluster(t, ctx, bin, "eventual", "--wan-delay=false", "--admin")
		lc.put("a", "x", "x0")
		lc.eventually("c", "x", "x0", catchUp)
		lc.expect(0, "c: cut", "cluster", "partition", "--dir", lc.dir, "--dc", "c")
		lc.put("a", "x", "x1")
		if got := lc.get("c", "x"); got != "x0" {
			t.Fatalf("get x in c during the partition = %q, want the old x0", got)
		}
		lc.put("c", "y", "y1")
		if got := lc.get("a", "x"); got != "x1" {
			t.Fatalf("get x in a during the partition = %q, want x1", got)
		}
		lc.expect(0, "NODE", "cluster", "heal", "--dir", lc.dir)
		lc.eventually("c", "x", "x1", catchUp)
	})
}
