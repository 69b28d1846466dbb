package cluster_test

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/causeway/causeway/client"
	"github.com/causeway/causeway/cluster"
	"github.com/causeway/causeway/runtime/node"
)

// helperEnv makes the test binary act as `causeway server` (value
// "serve") or as a server that fails at once (value "fail"): Up starts
// node processes by running this binary again.
const helperEnv = "CAUSEWAY_CLUSTER_TEST_HELPER"

func TestMain(m *testing.M) {
	switch os.Getenv(helperEnv) {
	case "":
		os.Exit(m.Run())
	case "fail":
		fmt.Fprintln(os.Stderr, "helper: failing on purpose")
		os.Exit(3)
	case "procs":
		fmt.Fprintf(os.Stderr, "helper: GOMAXPROCS=%q\n", os.Getenv("GOMAXPROCS"))
		os.Exit(3)
	case "godebug":
		fmt.Fprintf(os.Stderr, "helper: GODEBUG=%q\n", os.Getenv("GODEBUG"))
		os.Exit(3)
	case "linger":
		os.Exit(linger(os.Args[1:]))
	default:
		os.Exit(serve(os.Args[1:]))
	}
}

// flagValues reads "--config PATH --node ID" as Up passes them.
func flagValues(args []string) (path, id string) {
	for i := 0; i+1 < len(args); i += 2 {
		switch args[i] {
		case "--config":
			path = args[i+1]
		case "--node":
			id = args[i+1]
		}
	}
	return path, id
}

// linger stands in for a node that is dying: it holds the node's HTTP
// address, answers the first request (a /healthz poll) 503 and exits.
func linger(args []string) int {
	path, id := flagValues(args)
	cfg, err := cluster.Load(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, "linger:", err)
		return 2
	}
	n := cfg.Node(id)
	if n == nil {
		fmt.Fprintln(os.Stderr, "linger: no node", id)
		return 2
	}
	ln, err := net.Listen("tcp", n.HTTPListenAddr())
	if err != nil {
		fmt.Fprintln(os.Stderr, "linger:", err)
		return 2
	}
	conn, err := ln.Accept()
	if err != nil {
		return 1
	}
	_, _ = conn.Write([]byte("HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"))
	_ = conn.Close()
	return 0
}

// serve is a minimal `causeway server --config PATH --node ID`.
func serve(args []string) int {
	path, id := flagValues(args)
	log := slog.New(slog.NewJSONHandler(os.Stderr, nil))
	cfg, err := cluster.Load(path)
	if err != nil {
		log.Error("load", "err", err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	if err := node.Run(ctx, cfg, id, log); err != nil {
		log.Error("run", "err", err)
		return 1
	}
	return 0
}

func helper(mode string) cluster.UpOptions {
	f := false
	return cluster.UpOptions{
		Topology: "local3",
		Protocol: "cops",
		WANDelay: &f,
		Command:  []string{os.Args[0]},
		Env:      []string{helperEnv + "=" + mode},
		Timeout:  30 * time.Second, // a hang guard
	}
}

// TestUpStatusDown runs a local cluster of node processes: up, status, a
// put and a get across DCs, down, up again on the same data, down.
func TestUpStatusDown(t *testing.T) {
	dir := t.TempDir()
	t.Cleanup(func() {
		if _, err := cluster.Down(dir, 0); err != nil {
			t.Errorf("cleanup: %v", err)
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a hang guard
	defer cancel()

	rep, err := cluster.Up(ctx, dir, helper("serve"))
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Created || len(rep.Started) != 6 || len(rep.Running) != 0 {
		t.Fatalf("first up: %+v", rep)
	}
	_, st, err := cluster.Status(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range st {
		if !s.Up || s.PID == 0 || s.Health != cluster.HealthUp || s.Info == nil || s.Info.Node != s.ID || s.Info.Incarnation != 1 {
			t.Errorf("after up: %+v (info %+v)", s, s.Info)
		}
		if _, err := os.Stat(cluster.LogPath(dir, s.ID)); err != nil {
			t.Errorf("log of %s: %v", s.ID, err)
		}
	}

	// Up again: nothing to start.
	rep, err = cluster.Up(ctx, dir, cluster.UpOptions{Command: []string{os.Args[0]}, Env: []string{helperEnv + "=serve"}})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Created || len(rep.Started) != 0 || len(rep.Running) != 6 {
		t.Errorf("second up: %+v", rep)
	}
	// Options that contradict the file are refused.
	for _, opts := range []cluster.UpOptions{{Protocol: "eventual"}, {Topology: "chainreaction-2dc"}, {TLS: new(true)}} {
		if _, err := cluster.Up(ctx, dir, opts); err == nil || !strings.Contains(err.Error(), "contradicts") {
			t.Errorf("up with %+v: %v, want a contradiction", opts, err)
		}
	}

	cfg, err := cluster.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	put(ctx, t, cfg, "a", "k", "v1")
	get(ctx, t, cfg, "c", "k", "v1")

	down, err := cluster.Down(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range down {
		if d.Result != "stopped" || d.PID == 0 {
			t.Errorf("down: %+v", d)
		}
		if _, err := os.Stat(cluster.PIDPath(dir, d.ID)); !os.IsNotExist(err) {
			t.Errorf("pid file of %s after down: %v", d.ID, err)
		}
	}
	_, st, err = cluster.Status(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range st {
		if s.Up || s.PID != 0 || s.Health != cluster.HealthDown || s.Info != nil {
			t.Errorf("after down: %+v", s)
		}
	}

	// The same cluster again, on its data.
	if rep, err = cluster.Up(ctx, dir, helper("serve")); err != nil {
		t.Fatal(err)
	}
	if rep.Created || len(rep.Started) != 6 {
		t.Errorf("restart: %+v", rep)
	}
	get(ctx, t, cfg, "a", "k", "v1")
	get(ctx, t, cfg, "b", "k", "v1")
	if _, err := cluster.Down(dir, 0); err != nil {
		t.Fatal(err)
	}
}

// TestUpReportsAFailingNode starts node processes that exit at once: Up
// names a node that exited (whichever it noticed first) and quotes its log.
func TestUpReportsAFailingNode(t *testing.T) {
	dir := t.TempDir()
	t.Cleanup(func() { _, _ = cluster.Down(dir, 0) })
	_, err := cluster.Up(context.Background(), dir, helper("fail"))
	if err == nil {
		t.Fatal("up with failing nodes succeeded")
	}
	for _, want := range []string{"exited before it was ready", "exit status 3", "helper: failing on purpose", filepath.Join(dir, "logs") + "/"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "pids"))
	if len(entries) != 0 {
		t.Errorf("pid files left after a failed up: %v", entries)
	}
	// Without a cluster.yaml, up needs a topology and a protocol.
	if _, err := cluster.Up(context.Background(), t.TempDir(), cluster.UpOptions{Protocol: "cops"}); err == nil || !strings.Contains(err.Error(), "topology") {
		t.Errorf("up without a topology: %v", err)
	}
	if _, err := cluster.Down(t.TempDir(), 0); err == nil {
		t.Error("down of a directory with no cluster: no error")
	}
}

func put(ctx context.Context, t *testing.T, cfg *cluster.Config, dc, key, value string) {
	t.Helper()
	s := session(t, cfg, dc)
	if err := s.Put(ctx, key, []byte(value)); err != nil {
		t.Fatalf("put %s in %s: %v", key, dc, err)
	}
}

// get polls a get of key in dc until it returns want.
func get(ctx context.Context, t *testing.T, cfg *cluster.Config, dc, key, want string) {
	t.Helper()
	s := session(t, cfg, dc)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		v, found, err := s.Get(ctx, key)
		if err == nil && found && string(v) == want {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("get %s in %s: %q %v %v, want %q", key, dc, v, found, err, want)
		case <-tick.C:
		}
	}
}

func session(t *testing.T, cfg *cluster.Config, dc string) *client.Session {
	t.Helper()
	conn, err := node.DialWithOptions(cfg, dc, node.DialOptions{OpTimeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	s, err := conn.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	return client.New(s, conn.Protocol(), dc)
}

// upForRestart brings a local3 cluster of helper processes up in a
// temporary directory (brought down at cleanup) and returns the directory
// and a context bounding the test.
func upForRestart(t *testing.T) (string, context.Context) {
	t.Helper()
	dir := t.TempDir()
	t.Cleanup(func() {
		if _, err := cluster.Down(dir, 0); err != nil {
			t.Errorf("cleanup: %v", err)
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute) // a hang guard
	t.Cleanup(cancel)
	if _, err := cluster.Up(ctx, dir, helper("serve")); err != nil {
		t.Fatal(err)
	}
	return dir, ctx
}

// killNode SIGKILLs the process of node id and returns its pid.
func killNode(t *testing.T, dir, id string) int {
	t.Helper()
	pid, ok := cluster.NodePID(dir, id)
	if !ok {
		t.Fatalf("no pid for %s", id)
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	return pid
}

// TestUpOnlyRestartsOneNodeWhileAnotherIsStopped: Up with Only starts the
// named node alone and waits for it alone, so a node killed while another
// is frozen (SIGSTOP, answering no /healthz) comes back; NodePID follows
// the processes.
func TestUpOnlyRestartsOneNodeWhileAnotherIsStopped(t *testing.T) {
	dir, ctx := upForRestart(t)
	frozen, ok := cluster.NodePID(dir, "b/s0")
	if !ok {
		t.Fatal("no pid for b/s0")
	}
	if err := syscall.Kill(frozen, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = syscall.Kill(frozen, syscall.SIGCONT) }()
	killed := killNode(t, dir, "a/s1")
	opts := helper("serve")
	// Up --only waits for a/s1 alone: a wait for the frozen b/s0 would use
	// up the whole timeout. The timeout is generous because a -race node
	// binary on a loaded CI machine took over 10 s to answer /healthz (and
	// once a minute, with other simulations running beside CI).
	opts.Timeout = 2 * time.Minute
	opts.Only = []string{"a/s1"}
	rep, err := cluster.Up(ctx, dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Started) != 1 || rep.Started[0] != "a/s1" || len(rep.Running) != 0 {
		t.Fatalf("up --only a/s1: %+v", rep)
	}
	if pid, ok := cluster.NodePID(dir, "a/s1"); !ok || pid == killed {
		t.Fatalf("a/s1 after the restart: pid %d (%v), the killed one was %d", pid, ok, killed)
	}
	opts.Only = []string{"a/s9"}
	if _, err := cluster.Up(ctx, dir, opts); err == nil || !strings.Contains(err.Error(), "not every one is a node") {
		t.Fatalf("up --only a/s9: %v", err)
	}
}

// TestUpRestartsANodeThatExitsWhileUpWaits: a node whose process is still
// alive when Up probes its pid but exits while Up waits for its /healthz
// (a kill -9 just before cluster up: the process is still dying) is
// started again instead of being waited for until the timeout. A stand-in
// process (linger) holds a/s1's pid file and HTTP address and exits on the
// first /healthz poll, so Up always sees it running first.
func TestUpRestartsANodeThatExitsWhileUpWaits(t *testing.T) {
	dir, ctx := upForRestart(t)
	killed := killNode(t, dir, "a/s1")
	// The first Up reaps its children: wait until a/s1's process is gone
	// so that its HTTP port is free for the stand-in.
	poll := time.NewTicker(10 * time.Millisecond)
	defer poll.Stop()
	for deadline := time.Now().Add(time.Minute); syscall.Kill(killed, 0) == nil; <-poll.C {
		if time.Now().After(deadline) {
			t.Fatal("a/s1 still alive a minute after SIGKILL")
		}
	}
	stand := exec.Command(os.Args[0], "--config", filepath.Join(dir, cluster.FileName), "--node", "a/s1")
	stand.Env = append(os.Environ(), helperEnv+"=linger")
	stand.Stderr = os.Stderr
	if err := stand.Start(); err != nil {
		t.Fatal(err)
	}
	standDone := make(chan error, 1)
	go func() { standDone <- stand.Wait() }()
	t.Cleanup(func() { _ = stand.Process.Kill(); <-standDone })
	if err := os.WriteFile(cluster.PIDPath(dir, "a/s1"), []byte(strconv.Itoa(stand.Process.Pid)), 0o644); err != nil {
		t.Fatal(err)
	}
	opts := helper("serve")
	opts.Timeout = 30 * time.Second
	opts.Only = []string{"a/s1"}
	rep, err := cluster.Up(ctx, dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Started) != 1 || rep.Started[0] != "a/s1" || len(rep.Running) != 0 {
		t.Fatalf("up --only a/s1 after its process exited while up waited: %+v", rep)
	}
	if pid, ok := cluster.NodePID(dir, "a/s1"); !ok || pid == stand.Process.Pid || pid == killed {
		t.Fatalf("a/s1's pid after up: %d (%v); stand-in %d, killed %d", pid, ok, stand.Process.Pid, killed)
	}
}

// TestUpQuietsSysmon: Up adds NodeSchedtrace to the GODEBUG of the node
// processes, after what the caller's environment or UpOptions.Env sets,
// unless that sets schedtrace itself.
func TestUpQuietsSysmon(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a hang guard
	defer cancel()
	t.Setenv("GODEBUG", "")
	for _, tc := range []struct {
		env  []string
		want string
	}{
		{nil, cluster.NodeSchedtrace},
		{[]string{"GODEBUG=gctrace=1"}, "gctrace=1," + cluster.NodeSchedtrace},
		{[]string{"GODEBUG=schedtrace=1000,scheddetail=1"}, "schedtrace=1000,scheddetail=1"},
	} {
		opts := helper("godebug")
		opts.Env = append(opts.Env, tc.env...)
		_, err := cluster.Up(ctx, t.TempDir(), opts)
		if want := fmt.Sprintf("GODEBUG=%q", tc.want); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("env %v: the node's log says %v; want %s", tc.env, err, want)
		}
	}
}

// TestUpSharesTheCoresAmongNodes: Up gives each node process the
// machine's cores divided by the nodes (GOMAXPROCS, at least 1), unless
// the caller's environment or UpOptions.Env sets GOMAXPROCS.
func TestUpSharesTheCoresAmongNodes(t *testing.T) {
	if got := cluster.NodeProcs(6); got != max(1, runtime.NumCPU()/6) {
		t.Errorf("NodeProcs(6) = %d on %d cores", got, runtime.NumCPU())
	}
	if got := cluster.NodeProcs(0); got != runtime.NumCPU() {
		t.Errorf("NodeProcs(0) = %d on %d cores", got, runtime.NumCPU())
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a hang guard
	defer cancel()
	for _, tc := range []struct {
		env  []string
		want string
	}{
		{nil, strconv.Itoa(cluster.NodeProcs(6))},
		{[]string{"GOMAXPROCS=7"}, "7"},
	} {
		opts := helper("procs")
		opts.Env = append(opts.Env, tc.env...)
		_, err := cluster.Up(ctx, t.TempDir(), opts)
		if want := fmt.Sprintf("GOMAXPROCS=%q", tc.want); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("env %v: the node's log says %v; want %s", tc.env, err, want)
		}
	}
}
