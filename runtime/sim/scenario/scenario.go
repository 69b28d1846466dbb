// Package scenario runs datadriven protocol scenarios in the simulator:
// a protocol test writes, in a testdata file, a story of client operations,
// network faults and individual messages step by step, and the expected
// output of each step. Every scenario is recorded as a history that the
// `check` command hands to the causal+ checker, so a scenario can show an
// anomaly (or its absence) the same way the randomized tests and the demo
// do. `go test ./protocol/P -rewrite` regenerates the expected output.
//
// Commands (arguments are datadriven key=value pairs):
//
//	sim protocol=P [topology=T] [seed=N] [jitter=D] [service=D] [cost=C]
//	                           start a simulation (topology: a preset; default
//	                           local3; jitter default none, so runs are exact;
//	                           cost: "default" or a cost-model file, priced in
//	                           units of service, see sim.CostModel)
//	session name=S dc=D        add a client session S in datacenter D
//
// Operations. A session has one operation outstanding at a time.
//
//	put S key=K value=V        submit a put and run until it completes
//	get S key=K                submit a get and run until it completes
//	txn S keys=(K1,K2,…)       a read-only transaction (read_txn); output
//	                           "K1=V1 K2=V2 …"
//	wtxn S K1=V1 K2=V2 …       a write-only transaction (write_txn)
//	submit S put|get|txn|wtxn … start an operation (arguments as above) and
//	                           run only what is due now: the session sends
//	                           its request, nothing waits for the answer
//	await S                    run until S's outstanding operation completes
//	                           (at most a virtual minute) and print its result;
//	                           an error if S has nothing outstanding. put, get
//	                           and txn are submit followed by await.
//	move S dc=D                move session S to datacenter D with a session
//	                           token: S's later operations run in D (the
//	                           history keeps one session S)
//
// Operation output is "ok", "K=V" (or "K=<none>") or "error: …", followed
// by the operation's latency in virtual milliseconds (from submit to
// completion) and the protocol's tags for it, if any (e.g. [drr]: made
// under a ring restriction). An operation enters the history when it
// completes, awaited or not.
//
// Time and faults:
//
//	run for=D                  advance virtual time by D
//	stabilize [step=D] [limit=D]
//	                           run until a whole step (default 1s) passes with
//	                           no message sent, giving up after limit
//	                           (default 1m, in whole steps);
//	                           unlike quiesce it heals nothing and delivers no
//	                           held message
//	partition groups=(a,b)     cut every link between the listed groups,
//	          groups=(c)       both directions (repeat groups=… per group)
//	oneway from=a to=b         cut the link from a to b only
//	crash target=T             crash nodes (targets as in faults: dc:b, node:b/s0)
//	restart target=T           restart crashed nodes
//	heal [what=partitions|all] heal (default all)
//	skew target=T ms=N         offset the local clock of T's nodes by N ms
//	quiesce                    heal everything and run until the network is
//	                           quiet and every protocol.Quiescer holds, else
//	                           list what does not (held messages stay held)
//
// Messages. A filter is kind=K (the short name of the message's protobuf
// type, e.g. RingPut), from=F and to=T, each a node id (a/cc0), a
// datacenter (a) or * (the default); n=N takes only the first N matches.
//
//	hold kind=K [from=F] [to=T]    from now on, hold every message that
//	                               matches when it arrives (after its network
//	                               delay) instead of handing it to its receiver
//	unhold [kind=K] [from] [to]    remove the rule with exactly these fields,
//	                               or, with no argument, every rule; held
//	                               messages stay held
//	held [brief]                   list held messages in arrival order
//	deliver [kind] [from] [to] [n] [brief]
//	                               make matching held messages (default all)
//	                               arrive now, in arrival order, print them, and
//	                               run what is due now; a message to a node
//	                               that crashed and restarted meanwhile reaches
//	                               the new incarnation, one to a node that is
//	                               down or across a cut link is lost
//	drop [kind] [from] [to] [n] [brief]
//	                               discard matching held messages, print them
//	trace on|off                   while on, every message handed to a node is
//	                               printed, as it happens, before the output of
//	                               the command during which it happened
//
// A message is printed in one line, "from -> to Kind field:value …" (see
// sim.FormatMessage: only populated fields, long byte values abbreviated);
// brief prints "from -> to Kind" only, for files whose expected output
// must not depend on field values such as request ids.
// Since a held message waits at its receiver, a sender's retransmissions
// are held too while the rule is installed, and they count as messages
// sent: `stabilize` goes quiet only in a gap between them (its output
// says how many messages are held), so `run for=D` is the way to let a
// known amount of time pass while messages are held.
//
// Inspection:
//
//	replicas key=K             the value of K at every server, by node
//	check                      run the causal+ checker on the history so far
package scenario

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"

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
			return st.takeTrace() + out
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
	pending  map[string]*pendingOp
	ops      []history.Op
	tracing  bool
	trace    []string // trace lines of the current command
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
	case "put", "get", "txn", "wtxn":
		return st.op(d)
	case "submit":
		return st.submitCmd(d)
	case "await":
		return st.awaitCmd(d)
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
	case "stabilize":
		return st.stabilize(d)
	case "partition", "oneway", "crash", "restart", "heal", "skew":
		return st.fault(d)
	case "quiesce":
		quiet, problems := st.sim.QuiesceChecked(time.Second, 10*time.Minute)
		if !quiet {
			return "the network did not go quiet within 10 minutes\n", nil
		}
		out := fmt.Sprintf("quiet at %v%s\n", st.sim.Now(), st.heldNote())
		for _, p := range problems {
			out += p.Error() + "\n"
		}
		return out, nil
	case "hold", "unhold", "held", "deliver", "drop", "trace":
		return st.message(d)
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
			v, err := st.duration(d, a.key)
			if err != nil {
				return "", err
			}
			*a.dst = v
		}
	}
	var costName string
	if d.HasArg("cost") {
		d.ScanArgs(st.t, "cost", &costName)
	}
	cost, err := sim.LoadCostModel(costName)
	if err != nil {
		return "", err
	}
	p, err := protocol.Lookup(name)
	if err != nil {
		return "", err
	}
	tp, err := topology.Lookup(topo)
	if err != nil {
		return "", err
	}
	s, err := sim.New(sim.Config{Topology: tp, Protocol: p, Seed: seed, Jitter: jitter, ServiceTime: service, Cost: cost, OpTimeout: 10 * time.Second,
		WireRoundTrip: true})
	if err != nil {
		return "", err
	}
	*st = state{t: st.t, sim: s, proto: p, topo: tp, sessions: map[string]protocol.NodeID{},
		moves: map[string]int{}, pending: map[string]*pendingOp{}}
	s.SetTrace(st.traced)
	return fmt.Sprintf("%s on %s (%s)\n", p.Name(), tp.Name, p.Guarantee()), nil
}

// duration parses the argument key as a time.Duration.
func (st *state) duration(d *datadriven.TestData, key string) (time.Duration, error) {
	var s string
	d.ScanArgs(st.t, key, &s)
	v, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("%s=%s: %w", key, s, err)
	}
	return v, nil
}

func (st *state) stabilize(d *datadriven.TestData) (string, error) {
	step, limit := time.Second, opLimit
	var err error
	if d.HasArg("step") {
		if step, err = st.duration(d, "step"); err != nil {
			return "", err
		}
	}
	if d.HasArg("limit") {
		if limit, err = st.duration(d, "limit"); err != nil {
			return "", err
		}
	}
	if !st.sim.RunUntilQuiet(step, limit) {
		return fmt.Sprintf("not quiet at %v%s\n", st.sim.Now(), st.heldNote()), nil
	}
	return fmt.Sprintf("quiet at %v%s\n", st.sim.Now(), st.heldNote()), nil
}

// fault carries out partition, oneway, crash, restart, heal and skew.
func (st *state) fault(d *datadriven.TestData) (string, error) {
	switch d.Cmd {
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
	case "oneway":
		var from, to string
		d.ScanArgs(st.t, "from", &from)
		d.ScanArgs(st.t, "to", &to)
		st.sim.Inject(faults.Event{PartitionOneway: &faults.Oneway{From: []string{from}, To: []string{to}}})
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
	case "skew":
		var target string
		var ms float64
		d.ScanArgs(st.t, "target", &target)
		d.ScanArgs(st.t, "ms", &ms)
		if _, err := faults.ParseTarget(target); err != nil {
			return "", err
		}
		st.sim.Inject(faults.Event{ClockSkew: &faults.Skew{Target: target, Ms: ms}})
	case "heal":
		what := "all"
		if d.HasArg("what") {
			d.ScanArgs(st.t, "what", &what)
		}
		st.sim.Inject(faults.Event{Heal: what})
	}
	return "ok\n", nil
}

// takeTrace returns the trace lines of the command just run and forgets
// them.
func (st *state) takeTrace() string {
	if len(st.trace) == 0 {
		return ""
	}
	s := strings.Join(st.trace, "\n") + "\n"
	st.trace = nil
	return s
}
