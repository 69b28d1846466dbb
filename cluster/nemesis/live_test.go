package nemesis

import (
	"context"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"testing"
	"time"

	"github.com/causeway/causeway/cluster"
	"github.com/causeway/causeway/runtime/node"
	"github.com/causeway/causeway/workload"
)

// helperEnv makes the test binary act as `causeway server --admin`:
// cluster.Up starts (and the nemesis restarts) node processes by running
// this binary again.
const helperEnv = "CAUSEWAY_NEMESIS_TEST_HELPER"

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) == "" {
		os.Exit(m.Run())
	}
	os.Exit(serve(os.Args[1:]))
}

// serve is a minimal `causeway server --admin --config PATH --node ID`.
func serve(args []string) int {
	var path, id string
	for i := 0; i+1 < len(args); i++ {
		switch args[i] {
		case "--config":
			path = args[i+1]
		case "--node":
			id = args[i+1]
		}
	}
	log := slog.New(slog.NewJSONHandler(os.Stderr, nil))
	cfg, err := cluster.Load(path)
	if err != nil {
		log.Error("load", "err", err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	opts := node.DefaultOptions()
	opts.Admin = true
	if err := node.RunWithOptions(ctx, cfg, id, log, opts); err != nil {
		log.Error("run", "err", err)
		return 1
	}
	return 0
}

// TestLiveScheduleOnCops runs a short schedule of every kind of fault
// against a real local3 cops cluster (six processes): a kill -9 and a
// restart, a pause, a partition with a restart inside it, a delay and a
// clock skew, under a bench; it must lose no acknowledged write and pass
// the checker. About 15 s.
func TestLiveScheduleOnCops(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a six-process cluster")
	}
	dir := t.TempDir()
	up := cluster.UpOptions{Topology: "local3", Protocol: "cops", Command: []string{os.Args[0], "--"},
		Env: []string{helperEnv + "=1"}}
	rep, err := cluster.Up(context.Background(), dir, up)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if _, err := cluster.Down(dir, 5*time.Second); err != nil {
			t.Errorf("down: %v", err)
		}
	})
	cfg := rep.Config
	sched, err := Parse([]byte(`
- {at: 500ms, kill: "node:a/s0"}
- {at: 1s, pause: "node:b/s1"}
- {at: 1500ms, restart: "node:a/s0"}
- {at: 2s, resume: "node:b/s1"}
- {at: 2s, partition: {dc: c}}
- {at: 2500ms, kill: "node:c/s1"}
- {at: 3s, restart: "node:c/s1"}
- {at: 3s, delay: {dc: a, add_ms: 100}}
- {at: 3s, clock_skew: {target: "node:b/*", ms: -1500}}
- {at: 4s, heal: all}
`), cfg)
	if err != nil {
		t.Fatal(err)
	}
	w, err := workload.Lookup("ycsb-50-50")
	if err != nil {
		t.Fatal(err)
	}
	w.RecordCount = 100
	res, err := Run(context.Background(), Spec{Config: cfg, Schedule: sched, Workload: w, Clients: 3, Seed: 1,
		Tail: time.Second, Quiesce: 30 * time.Second, OpTimeout: 2 * time.Second,
		Target: &Local{Dir: dir, Config: cfg, Command: up.Command, Env: up.Env},
		Log:    func(format string, args ...any) { t.Logf(format, args...) }})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range res.Events {
		if e.Err != "" {
			t.Errorf("%s: %s", e.Event, e.Err)
		}
	}
	if res.Acked == 0 || res.Keys == 0 || res.Bench == nil || res.Bench.Ops == 0 {
		t.Fatalf("nothing ran: %d acked puts on %d keys, bench %+v", res.Acked, res.Keys, res.Bench)
	}
	for _, l := range res.Lost {
		t.Errorf("lost: %s", l)
	}
	for _, b := range res.Bad {
		t.Errorf("bad read: %s", b)
	}
	if !res.OK(true) {
		t.Fatalf("the run failed: heal %q, checker %v", res.HealErr, res.Bench.Check.OK)
	}
	// Every node is up again, with no link rule and no clock offset.
	_, st, err := cluster.Status(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range st {
		if !n.Up {
			t.Errorf("node %s is %s after the heal", n.ID, n.Health)
		}
	}
	for _, l := range cluster.Links(context.Background(), cfg) {
		if l.Err != nil || len(l.State.Links) != 0 {
			t.Errorf("node %s after the heal: rules %v, err %v", l.ID, l.State, l.Err)
		}
	}
	t.Logf("live nemesis on cops: %d puts, %d acked, bench %d ops in %v", res.Puts, res.Acked, res.Bench.Ops, res.Took.Round(time.Millisecond))
}
