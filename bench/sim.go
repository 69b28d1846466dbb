package bench

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/causeway/causeway/check"
	"github.com/causeway/causeway/faults"
	"github.com/causeway/causeway/history"
	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/runtime/sim"
	"github.com/causeway/causeway/topology"
	"github.com/causeway/causeway/workload"
)

// SimSpec describes one simulated benchmark run.
type SimSpec struct {
	Protocol protocol.Protocol
	Topology *topology.Topology
	Workload workload.Workload
	Seed     uint64
	// Duration is the virtual time during which clients issue operations.
	Duration time.Duration
	// Clients is the number of closed-loop client sessions, spread
	// round-robin over the datacenters.
	Clients int
	// ServiceTime is each server node's time per input (0: infinitely fast).
	ServiceTime time.Duration
	// Cost, when set, prices inputs by role, message kind and bytes in
	// units of ServiceTime (see sim.Config.Cost); nil: every input costs
	// ServiceTime × NodeSpec.Cost.
	Cost *sim.CostModel
	// Jitter overrides the topology's one-way jitter (see sim.Config).
	Jitter    time.Duration
	OpTimeout time.Duration
	Faults    faults.Schedule
	// History, when set, receives the history as JSON Lines.
	History io.Writer
	// Progress, when set, is called as virtual time advances (every 1/50
	// of Duration); it cannot change the run's result.
	Progress func(Progress)
	// Context, when set, interrupts the run when it is done (Ctrl-C):
	// clients stop issuing operations at the next 1/50 of Duration, and
	// the run drains, quiesces and is checked as if Duration had been that
	// long; the result says Interrupted.
	Context context.Context
	// Timeline, when positive, is the interval width of the result's
	// per-interval throughput and latency series (Result.Timeline).
	Timeline time.Duration
	// ClientRate, when positive, caps each session at that many operations
	// per second, like a YCSB thread with a target rate (but without
	// catching up after a slow operation): an operation that started at t
	// is followed at t+1/ClientRate, or at once if that has passed.
	// Sessions start spread over the first interval. 0: a closed loop that
	// issues the next operation as soon as the last one completes.
	ClientRate float64
	// OpenLoop, with ClientRate, makes each session's schedule fixed:
	// operation k is due at its start offset + k/ClientRate whatever
	// happened before, a session behind schedule issues at once until it
	// has caught up, and latencies count from when an operation was due
	// (Recorder.DoneIntended). An overloaded system then shows growing
	// latency at the offered rate instead of a lower rate (causeway sim
	// and bench --target).
	OpenLoop bool
	// OpsPerClient, when positive, stops each session after that many
	// operations, as YCSB's operationcount does (c3.txt §5.2 runs a fixed
	// count): the run ends once every session is done, or at Duration
	// (then a cap) if that comes first, and its throughput counts up to the
	// last completion. Progress then reports the share of the operations
	// done, as a share of Duration.
	OpsPerClient int
	// NoLoad skips the load phase: keys start absent instead of holding
	// the workload's loaded values (Workload.Dataset).
	NoLoad bool
	// WANByKind, when set, counts the messages delivered across DCs and
	// their bytes by kind into the result's WANByKind (a trace hook on
	// every delivery: it slows the run a little).
	WANByKind bool
	// OnDone, when set, sees every completed operation with its reply (the
	// history keeps only whether it failed) that was issued at or after
	// Warmup: torture's availability verdict tells an unsupported
	// operation from an unavailable one, and a report keeps what it plots
	// of the operations its result measures.
	OnDone func(dc string, req protocol.Request, rep protocol.Reply, start, end time.Duration)
	// Warmup, when positive, leaves the operations issued before it out of
	// the result's metrics (Recorder.SetWarmup) and of OnDone: they run and
	// are checked, and throughput is over Duration - Warmup. It must be
	// below Duration. It is the one warm-up of every run (sim --warmup,
	// the reproductions).
	Warmup time.Duration
	// WarmReads, when positive, starts the run after a warm-up of that
	// many read operations per DC that the simulator does not run: their
	// keys are drawn from the workload (Workload.WarmOrder, seeded by
	// Seed) and handed to every node in the dataset (Dataset.Warm), and a
	// protocol with a cache starts it as those reads would have left it
	// (k2's LRU holds the loaded values of the most recently read keys it
	// would have fetched). With the load phase only (not NoLoad).
	WarmReads int
	// CheckShared, for tests, checks that no node modifies a message body
	// the protocol lets receivers share (sim.Config.CheckShared): RunSim
	// panics, or fails, when one did.
	CheckShared bool
}

// progressSteps is how many times a run reports progress.
const progressSteps = 50

// RunSim runs spec in the simulator and returns its checked result. While
// it runs, the garbage collector's target is SimGCPercent unless GOGC is
// set.
func RunSim(spec SimSpec) (*Result, error) {
	if spec.Clients <= 0 {
		return nil, fmt.Errorf("bench: need at least one client")
	}
	if spec.Duration <= 0 {
		return nil, fmt.Errorf("bench: duration must be positive")
	}
	if spec.Warmup < 0 || spec.Warmup >= spec.Duration {
		return nil, fmt.Errorf("bench: warm-up %v must be at least 0 and below the duration %v", spec.Warmup, spec.Duration)
	}
	defer tuneGCForSim()() // SimGCPercent
	rec := NewRecorder(spec.Protocol, spec.Topology)
	rec.SetProcessing(2 * spec.ServiceTime)
	rec.SetWarmup(spec.Warmup)
	var served func(time.Duration, protocol.NodeID, bool, time.Duration, time.Duration)
	if spec.ServiceTime > 0 {
		rec.measureSojourn()
		served = rec.Served
	}
	if spec.Timeline > 0 {
		rec.RecordTimeline(spec.Timeline, spec.Duration)
	}
	if spec.Progress != nil {
		rec.watch()
	}
	s, err := sim.New(sim.Config{
		Topology: spec.Topology, Protocol: spec.Protocol, Seed: spec.Seed,
		Jitter: spec.Jitter, ServiceTime: spec.ServiceTime, Cost: spec.Cost, OpTimeout: spec.OpTimeout,
		Faults: spec.Faults, Observer: rec, Loaded: spec.loaded(), CheckShared: spec.CheckShared,
		Served: served,
	})
	if err != nil {
		return nil, err
	}
	// Each operation goes to the checker's columns as it completes
	// (check.Stream: what check.CheckReader would read back from the
	// history file, without the JSON round trip), and to spec.History
	// when it is set.
	cs := check.NewStream()
	var hw *history.Writer
	if spec.History != nil {
		hw = history.NewWriter(spec.History)
	}
	var byKind *WANByKind
	if spec.WANByKind {
		byKind = &WANByKind{}
		traceWANByKind(s, byKind)
	}
	dcs := spec.Topology.DCNames()
	d := &simDriver{spec: &spec, s: s, rec: rec, cs: cs, hw: hw, byKind: byKind}
	if spec.ClientRate > 0 {
		d.interval = time.Duration(float64(time.Second) / spec.ClientRate)
	}
	for i := 0; i < spec.Clients; i++ {
		name := fmt.Sprintf("c%d", i)
		dc := dcs[i%len(dcs)]
		id, err := s.AddSession(dc, name)
		if err != nil {
			return nil, err
		}
		gen := spec.Workload.NewClient(name, sim.NewRand(spec.Seed, "workload/"+name))
		gen.SetPlacement(Placement(spec.Protocol, spec.Topology, dc))
		gen.SetGroup(Group(spec.Protocol, spec.Topology))
		offset := d.interval * time.Duration(i) / time.Duration(spec.Clients)
		c := &simClient{d: d, name: name, dc: dc, id: id, gen: gen, due: offset}
		c.nextFn, c.doneFn = c.next, c.done // bound once, not per operation
		s.At(offset, c.nextFn)
	}
	step := spec.Duration / progressSteps
	if step <= 0 {
		step = spec.Duration
	}
	ran, interrupted := spec.Duration, false
	for t := step; ; t += step {
		if t > spec.Duration {
			t = spec.Duration
		}
		s.RunUntil(t)
		if spec.Progress != nil {
			spec.Progress(rec.progress(spec.progressAt(t, rec), spec.Duration))
		}
		if spec.OpsPerClient > 0 && d.finished == spec.Clients {
			ran = max(d.lastEnd, time.Microsecond)
			break
		}
		if t == spec.Duration {
			break
		}
		if spec.Context != nil && spec.Context.Err() != nil {
			ran, interrupted = t, true
			break
		}
	}
	d.stopped = true
	// Let outstanding operations finish (they answer within OpTimeout),
	// then heal everything and let replication settle.
	timeout := spec.OpTimeout
	if timeout <= 0 {
		timeout = 5 * time.Second
	}
	s.RunUntil(s.Now() + timeout + time.Second)
	quiet, unquiescent := s.QuiesceChecked(time.Second, 120*time.Second)
	if err := s.SharedIntact(); err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	if hw != nil {
		if err := hw.Flush(); err != nil {
			return nil, err
		}
	}
	res := &Result{
		Protocol: spec.Protocol.Name(), Guarantee: spec.Protocol.Guarantee().String(),
		Topology: spec.Topology.Name, Workload: spec.Workload.Name,
		Seed: spec.Seed, Runtime: "sim", DurationS: ran.Seconds(), Clients: spec.Clients,
		Interrupted: interrupted, WarmupS: spec.Warmup.Seconds(),
	}
	rec.fill(res, max(ran-spec.Warmup, 0))
	st := s.Stats()
	res.Messages, res.WANBytes, res.UnroutedReplies = &st.Messages, &st.WANBytes, &st.NoRoute
	res.MetadataBytesPerWrite = metadataPerWrite(st)
	res.WANFrameBytes, res.FramingBytesPerMessage = &st.WANFrameBytes, framingPerMessage(st)
	res.WANByKind = byKind
	res.Faults = s.FaultLog
	res.FaultSchedule = spec.Faults
	cr, err := cs.Check(check.Options{})
	if err != nil {
		return nil, fmt.Errorf("bench: the recorded history does not parse (a bug): %w", err)
	}
	res.Check = checkResult(cr, Divergence(spec.Protocol, spec.Topology, s.Replicas(), quiet))
	res.Check.addQuiescence(Quiescence(unquiescent, quiet))
	return res, nil
}

// progressAt is the clock a progress report shows at t: t, or with
// OpsPerClient the share of all operations completed, as a share of
// Duration.
func (spec SimSpec) progressAt(t time.Duration, rec *Recorder) time.Duration {
	if spec.OpsPerClient <= 0 {
		return t
	}
	p := rec.progress(t, spec.Duration)
	total := float64(spec.OpsPerClient) * float64(spec.Clients)
	return time.Duration(float64(spec.Duration) * min(1, float64(p.Ops+p.Errors)/total))
}

// loaded returns the dataset the run starts with, nil with NoLoad.
func (spec SimSpec) loaded() *protocol.Dataset {
	if spec.NoLoad {
		return nil
	}
	d := spec.Workload.Dataset()
	if spec.WarmReads > 0 {
		d.Warm = spec.Workload.WarmOrder(spec.WarmReads, sim.NewRand(spec.Seed, "warm-reads"))
	}
	return d
}

// checkRun runs the checker and adds the runtime's divergence findings.
func checkRun(h *history.History, divergent []check.Violation) CheckResult {
	return checkResult(check.Check(h, check.Options{}), divergent)
}

// checkResult adds the runtime's divergence findings to the checker's
// result.
func checkResult(cr check.Result, divergent []check.Violation) CheckResult {
	converged := len(divergent) == 0
	out := CheckResult{OK: cr.OK && converged, Operations: cr.Operations, Total: cr.Total,
		Violations: cr.Violations, Converged: &converged}
	// An empty list, never null: a reader iterates it without a check.
	out.Violations = append(append([]check.Violation{}, out.Violations...), divergent...)
	out.Total += len(divergent)
	return out
}
