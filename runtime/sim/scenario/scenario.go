// Package scenario runs datadriven protocol scenarios in the simulator:
// a protocol test writes, in a testdata file, a story of client operations
// and network faults step by step, and the expected output of each step.
// Every scenario is recorded as a history that the `check` command hands to
// the causal+ checker, so a scenario can show an anomaly (or its absence)
// the same way the randomized tests and the demo do.
//
// Commands (arguments are datadriven key=value pairs):
//
//	sim protocol=P [topology=T] [seed=N] [jitter=D] [service=D]
//	                           start a simulation (topology: a preset; default
//	                           local3; jitter default none, so runs are exact)
//	session name=S dc=D        add a client session S in datacenter D
//	put S key=K value=V        submit a put and run until it completes
//	get S key=K                submit a get and run until it completes
//	txn S keys=(K1,K2,…)       a read-only transaction (read_txn); output
//	                           "K1=V1 K2=V2 …"
//	move S dc=D                move session S to datacenter D with a session
//	                           token: S's later operations run in D (the
//	                           history keeps one session S)
//	run for=D                  advance virtual time by D
//	partition groups=(a,b)     cut every link between the listed groups,
//	          groups=(c)       both directions (repeat groups=… per group)
//	oneway from=a to=b         cut the link from a to b only
//	crash target=T             crash nodes (targets as in faults: dc:b, node:b/s0)
//	restart target=T           restart crashed nodes
//	heal [what=partitions|all] heal (default all)
//	replicas key=K             the value of K at every server, by node
//	check                      run the causal+ checker on the history so far
//	quiesce                    heal everything and run until the network is quiet
//	                           and every protocol.Quiescer holds (else lists what not)
//
// Operation output is "ok", "K=V" (or "K=<none>") or "error: …", followed
// by the operation's latency in virtual milliseconds and the protocol's
// tags for it, if any (e.g. [drr]: made under a ring restriction).
package scenario

import (
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"

	"github.com/causeway/causeway/bench"
	"github.com/causeway/causeway/check"
	"github.com/causeway/causeway/faults"
	"github.com/causeway/causeway/history"
	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/runtime/sim"
	"github.com/causeway/causeway/topology"
)

// opLimit bounds how long a scenario operation may take in virtual time.
const opLimit = time.Minute

// RunDir runs every datadriven file under dir.
func RunDir(t *testing.T, dir string) {
	datadriven.Walk(t, dir, func(t *testing.T, path string) {
		st := &state{}
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			st.t = t
			out, err := st.do(d)
			if err != nil {
				d.Fatalf(t, "%v", err)
			}
			return out
		})
	})
}

type state struct {
	t        testing.TB
	sim      *sim.Sim
	proto    protocol.Protocol
	topo     *topology.Topology
	sessions map[string]protocol.NodeID
	moves    map[string]int // how many times each session moved
	ops      []history.Op
}

func (st *state) do(d *datadriven.TestData) (string, error) {
	if d.Cmd != "sim" && st.sim == nil {
		return "", fmt.Errorf("%s: start with a 'sim protocol=…' command", d.Pos)
	}
	switch d.Cmd {
	case "sim":
		return st.start(d)
	case "session":
		var name, dc string
		d.ScanArgs(st.t, "name", &name)
		d.ScanArgs(st.t, "dc", &dc)
		id, err := st.sim.AddSession(dc, name)
		if err != nil {
			return "", err
		}
		st.sessions[name] = id
		return "ok\n", nil
	case "put", "get", "txn":
		return st.op(d)
	case "move":
		return st.move(d)
	case "run":
		var s string
		d.ScanArgs(st.t, "for", &s)
		dur, err := time.ParseDuration(s)
		if err != nil {
			return "", err
		}
		st.sim.RunUntil(st.sim.Now() + dur)
		return fmt.Sprintf("now %v\n", st.sim.Now()), nil
	case "partition":
		var groups [][]string
		for _, a := range d.CmdArgs {
			if a.Key == "groups" {
				groups = append(groups, a.Vals)
			}
		}
		if len(groups) < 2 {
			return "", fmt.Errorf("partition needs at least two groups=(…) arguments")
		}
		st.sim.Inject(faults.Event{Partition: groups})
		return "ok\n", nil
	case "oneway":
		var from, to string
		d.ScanArgs(st.t, "from", &from)
		d.ScanArgs(st.t, "to", &to)
		st.sim.Inject(faults.Event{PartitionOneway: &faults.Oneway{From: []string{from}, To: []string{to}}})
		return "ok\n", nil
	case "crash", "restart":
		var target string
		d.ScanArgs(st.t, "target", &target)
		if _, err := faults.ParseTarget(target); err != nil {
			return "", err
		}
		if d.Cmd == "crash" {
			st.sim.Inject(faults.Event{Crash: target})
		} else {
			st.sim.Inject(faults.Event{Restart: target})
		}
		return "ok\n", nil
	case "heal":
		what := "all"
		if d.HasArg("what") {
			d.ScanArgs(st.t, "what", &what)
		}
		st.sim.Inject(faults.Event{Heal: what})
		return "ok\n", nil
	case "quiesce":
		quiet, problems := st.sim.QuiesceChecked(time.Second, 10*time.Minute)
		if !quiet {
			return "the network did not go quiet within 10 minutes\n", nil
		}
		out := fmt.Sprintf("quiet at %v\n", st.sim.Now())
		for _, p := range problems {
			out += p.Error() + "\n"
		}
		return out, nil
	case "replicas":
		var key string
		d.ScanArgs(st.t, "key", &key)
		return st.replicas(key), nil
	case "check":
		return st.check(), nil
	}
	return "", fmt.Errorf("unknown command %q", d.Cmd)
}

func (st *state) start(d *datadriven.TestData) (string, error) {
	var name string
	topo := "local3"
	var seed uint64 = 1
	d.ScanArgs(st.t, "protocol", &name)
	if d.HasArg("topology") {
		d.ScanArgs(st.t, "topology", &topo)
	}
	if d.HasArg("seed") {
		d.ScanArgs(st.t, "seed", &seed)
	}
	jitter, service := time.Duration(-1), time.Duration(0)
	for _, a := range []struct {
		key string
		dst *time.Duration
	}{{"jitter", &jitter}, {"service", &service}} {
		if d.HasArg(a.key) {
			var s string
			d.ScanArgs(st.t, a.key, &s)
			v, err := time.ParseDuration(s)
			if err != nil {
				return "", err
			}
			*a.dst = v
		}
	}
	p, err := protocol.Lookup(name)
	if err != nil {
		return "", err
	}
	tp, err := topology.Lookup(topo)
	if err != nil {
		return "", err
	}
	s, err := sim.New(sim.Config{Topology: tp, Protocol: p, Seed: seed, Jitter: jitter, ServiceTime: service, OpTimeout: 10 * time.Second})
	if err != nil {
		return "", err
	}
	*st = state{t: st.t, sim: s, proto: p, topo: tp, sessions: map[string]protocol.NodeID{}, moves: map[string]int{}}
	return fmt.Sprintf("%s on %s (%s)\n", p.Name(), tp.Name, p.Guarantee()), nil
}

func (st *state) op(d *datadriven.TestData) (string, error) {
	if len(d.CmdArgs) == 0 {
		return "", fmt.Errorf("%s needs a session name first", d.Cmd)
	}
	name := d.CmdArgs[0].Key
	id, ok := st.sessions[name]
	if !ok {
		return "", fmt.Errorf("no session %q", name)
	}
	var key string
	var req protocol.Request
	switch d.Cmd {
	case "txn":
		for _, a := range d.CmdArgs {
			if a.Key == "keys" {
				req = protocol.Request{Op: protocol.OpReadTxn, Keys: a.Vals}
			}
		}
		if len(req.Keys) == 0 {
			return "", fmt.Errorf("txn needs keys=(k1,k2,…)")
		}
	default:
		d.ScanArgs(st.t, "key", &key)
		req = protocol.Request{Op: protocol.OpGet, Key: key}
	}
	if d.Cmd == "put" {
		var v string
		d.ScanArgs(st.t, "value", &v)
		req = protocol.Request{Op: protocol.OpPut, Key: key, Value: []byte(v)}
	}
	start := st.sim.Now()
	var rep *protocol.Reply
	var end time.Duration
	if err := st.sim.Submit(id, req, func(now time.Duration, r protocol.Reply) { rep, end = &r, now }); err != nil {
		return "", err
	}
	for step := start; rep == nil && step < start+opLimit; {
		step += time.Millisecond
		st.sim.RunUntil(step)
	}
	if rep == nil {
		return "", fmt.Errorf("%s did not complete within %v of virtual time", d.Cmd, opLimit)
	}
	st.ops = append(st.ops, bench.HistoryOp(name, id.DC(), req, *rep, start, end))
	lat := fmt.Sprintf("(%.1fms)", float64(end-start)/float64(time.Millisecond))
	if len(rep.Tags) > 0 {
		lat += " [" + strings.Join(rep.Tags, ",") + "]"
	}
	switch {
	case rep.Err != protocol.OK:
		return fmt.Sprintf("error: %v %s\n", rep.Err, lat), nil
	case d.Cmd == "put":
		return "ok " + lat + "\n", nil
	case d.Cmd == "txn":
		var parts []string
		for _, kv := range rep.Reads {
			v := "<none>"
			if kv.Value != nil {
				v = string(kv.Value)
			}
			parts = append(parts, kv.Key+"="+v)
		}
		return strings.Join(parts, " ") + " " + lat + "\n", nil
	case rep.Value == nil:
		return fmt.Sprintf("%s=<none> %s\n", key, lat), nil
	default:
		return fmt.Sprintf("%s=%s %s\n", key, rep.Value, lat), nil
	}
}

// move takes the token of a session and resumes it, under a new node
// name, in another DC; the scenario's name for it is unchanged.
func (st *state) move(d *datadriven.TestData) (string, error) {
	if len(d.CmdArgs) == 0 {
		return "", fmt.Errorf("move needs a session name first")
	}
	name := d.CmdArgs[0].Key
	id, ok := st.sessions[name]
	if !ok {
		return "", fmt.Errorf("no session %q", name)
	}
	var dc string
	d.ScanArgs(st.t, "dc", &dc)
	token, err := st.sim.SessionToken(id)
	if err != nil {
		return fmt.Sprintf("error: %v\n", err), nil
	}
	st.moves[name]++
	moved, err := st.sim.ResumeSession(dc, fmt.Sprintf("%s.%d", name, st.moves[name]), token)
	if err != nil {
		return fmt.Sprintf("error: %v\n", err), nil
	}
	st.sessions[name] = moved
	return fmt.Sprintf("ok: %s is now %s (token of %d bytes)\n", name, moved, len(token)), nil
}

func (st *state) replicas(key string) string {
	var b strings.Builder
	reps := st.sim.Replicas()
	ids := append([]protocol.NodeID(nil), st.proto.Replicas(st.topo, key)...)
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	for _, id := range ids {
		m, up := reps[id]
		switch v, ok := m[key]; {
		case !up:
			fmt.Fprintf(&b, "%s: down\n", id)
		case !ok:
			fmt.Fprintf(&b, "%s: <none>\n", id)
		default:
			fmt.Fprintf(&b, "%s: %s\n", id, v)
		}
	}
	return b.String()
}

func (st *state) check() string {
	res := check.Check(&history.History{Ops: st.ops}, check.Options{})
	if res.OK {
		return fmt.Sprintf("ok: %d operations, causal+\n", res.Operations)
	}
	var b strings.Builder
	for _, v := range res.Violations {
		fmt.Fprintf(&b, "%s on %s: %s\n", v.Rule, v.Key, v.Explanation)
	}
	return b.String()
}
