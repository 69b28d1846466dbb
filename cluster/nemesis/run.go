package nemesis

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/causeway/causeway/bench"
	"github.com/causeway/causeway/client"
	"github.com/causeway/causeway/cluster"
	"github.com/causeway/causeway/workload"
)

// Spec describes a live nemesis run.
type Spec struct {
	// Config is the running cluster; Target acts on it.
	Config *cluster.Config
	Target Target
	// Schedule is carried out from the start of the run.
	Schedule Schedule
	// Workload, Clients, Seed and OpTimeout are the background bench's
	// (bench.LiveSpec); Clients 0 skips the bench.
	Workload  workload.Workload
	Clients   int
	Seed      uint64
	OpTimeout time.Duration
	// Tail is how long the workloads go on after the schedule's last
	// event (default 2s), so that the history covers the recovery.
	Tail time.Duration
	// Writers is the number of ack-log writer sessions per datacenter
	// (default 1), each the only writer of Keys keys (default 4).
	Writers, Keys int
	// WriterRate caps each ack-log writer's puts per second (0: as fast
	// as the store acknowledges, one put after another). A writer waits
	// for each put's answer before the next, but a store that
	// acknowledges before it replicates (all of them: causal+ answers in
	// the local DC) can acknowledge faster than it replicates; a writer
	// above the replication rate of its own session tests the backlog,
	// not the durability, and its last writes arrive long after the heal
	// (karma: one write per intra-ring hop per thread, issue 12).
	WriterRate float64
	// Quiesce bounds the read-back: every acknowledged write must be read
	// from every datacenter within it after the heal (default 60s).
	Quiesce time.Duration
	// History, when set, receives the bench's history.
	History io.Writer
	// Log, when set, is told what happens, one line at a time.
	Log func(format string, args ...any)
}

// ScheduleChecker is a Target that cannot carry out every event (Docker):
// Run refuses a schedule its Check refuses, before it starts anything.
type ScheduleChecker interface {
	Check(Schedule) error
}

// EventResult is what became of one event.
type EventResult struct {
	At    time.Duration `json:"at_ns"`
	Event string        `json:"event"`
	// Late is how long after its time the event was carried out.
	Late time.Duration `json:"late_ns"`
	Err  string        `json:"error,omitempty"`
}

// Report is the outcome of a run.
type Report struct {
	Protocol string        `json:"protocol"`
	Events   []EventResult `json:"events"`
	// HealErr is what failed when everything was healed at the end.
	HealErr string `json:"heal_error,omitempty"`
	// Bench is the background bench's checked result (nil without one).
	Bench *bench.Result `json:"bench,omitempty"`
	// Puts, Acked and Keys count the ack-log workload.
	Puts  int `json:"puts"`
	Acked int `json:"acked"`
	Keys  int `json:"keys"`
	// ReadBackDCs are the datacenters every key was read back from;
	// ReadBack is how long the read-back took.
	ReadBackDCs []string      `json:"read_back_dcs"`
	ReadBack    time.Duration `json:"read_back_ns"`
	// Lost lists the acknowledged writes some datacenter did not have
	// within Quiesce; Bad the reads that returned what no put wrote.
	Lost []Lost        `json:"lost"`
	Bad  []string      `json:"bad"`
	Took time.Duration `json:"took_ns"`
}

// OK reports whether the run passed: no acknowledged write lost, nothing
// foreign read, the bench's history causal+ (for a protocol that claims
// it) and the cluster healed.
func (r *Report) OK(causal bool) bool {
	return len(r.Lost) == 0 && len(r.Bad) == 0 && r.HealErr == "" &&
		(r.Bench == nil || !causal || r.Bench.Check.OK)
}

// Run carries out spec: the bench and the ack-log writers start, the
// schedule runs, the workloads go on for Tail after its last event, every
// fault is healed (killed nodes restarted, paused ones resumed, links and
// clocks reset), and every key of the ack log is read back from every
// datacenter until each read holds every acknowledged write (or Quiesce
// ends). The error is for a run that could not be carried out at all (the
// cluster unreachable); faults the schedule could not inject are in
// Report.Events.
func Run(ctx context.Context, spec Spec) (*Report, error) {
	logf := spec.Log
	if logf == nil {
		logf = func(string, ...any) {}
	}
	tail := orDefault(spec.Tail, 2*time.Second)
	writers := max(spec.Writers, 1)
	keys := max(spec.Keys, 4)
	quiesce := orDefault(spec.Quiesce, 60*time.Second)
	opTimeout := orDefault(spec.OpTimeout, 5*time.Second)
	cfg := spec.Config
	if c, ok := spec.Target.(ScheduleChecker); ok {
		if err := c.Check(spec.Schedule); err != nil {
			return nil, fmt.Errorf("nemesis: the schedule does not suit the target: %w", err)
		}
	}
	dcs := cfg.Topology.DCNames()
	t0 := time.Now()
	rep := &Report{Protocol: cfg.Protocol}
	duration := spec.Schedule.End() + tail

	// The background bench.
	var benchRes *bench.Result
	var benchErr error
	var bg sync.WaitGroup
	if spec.Clients > 0 {
		bg.Go(func() {
			benchRes, benchErr = bench.RunLive(bench.LiveSpec{Cluster: cfg, Workload: spec.Workload, Seed: spec.Seed,
				Duration: duration, Clients: spec.Clients, OpTimeout: opTimeout, Ceiling: -1, History: spec.History})
		})
	}

	// The ack-log writers.
	log := &AckLog{}
	run := fmt.Sprintf("n%06x", rand.Uint32()&0xffffff)
	conns := map[string]*client.Cluster{}
	defer func() {
		for _, c := range conns {
			_ = c.Close()
		}
	}()
	for _, dc := range dcs {
		c, err := client.DialConfig(cfg, dc, client.DialOptions{OpTimeout: opTimeout})
		if err != nil {
			return nil, fmt.Errorf("nemesis: dial %s: %w", dc, err)
		}
		conns[dc] = c
	}
	stopWriters := make(chan struct{})
	for _, dc := range dcs {
		for i := range writers {
			s, err := conns[dc].NewSession()
			if err != nil {
				return nil, fmt.Errorf("nemesis: session in %s: %w", dc, err)
			}
			name := fmt.Sprintf("%s-%s-w%d", run, dc, i)
			bg.Go(func() {
				defer s.Close()
				write(s, writerSpec{name: name, dc: dc, keys: keys, timeout: opTimeout, rate: spec.WriterRate}, log, stopWriters, t0)
			})
		}
	}

	// The schedule.
	x := newExecutor(cfg, spec.Target)
	for _, e := range spec.Schedule {
		if wait := time.Until(t0.Add(e.At)); wait > 0 {
			select {
			case <-time.After(wait):
			case <-ctx.Done():
			}
		}
		if ctx.Err() != nil {
			break
		}
		late := max(time.Since(t0)-e.At, 0)
		er := EventResult{At: e.At, Event: e.String(), Late: late}
		if err := x.apply(ctx, e); err != nil {
			er.Err = err.Error()
			logf("%6.1fs %s: FAILED: %v", time.Since(t0).Seconds(), e, err)
		} else {
			logf("%6.1fs %s", time.Since(t0).Seconds(), e)
		}
		rep.Events = append(rep.Events, er)
	}
	if wait := time.Until(t0.Add(duration)); wait > 0 && ctx.Err() == nil {
		select {
		case <-time.After(wait):
		case <-ctx.Done():
		}
	}
	hctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cluster.DefaultUpTimeout+10*time.Second)
	if err := x.healAll(hctx); err != nil {
		rep.HealErr = err.Error()
		logf("%6.1fs heal all: FAILED: %v", time.Since(t0).Seconds(), err)
	} else {
		logf("%6.1fs healed: every node up, no link rule, no clock offset", time.Since(t0).Seconds())
	}
	cancel()
	close(stopWriters)
	bg.Wait()
	if benchErr != nil {
		return nil, fmt.Errorf("nemesis: bench: %w", benchErr)
	}
	rep.Bench = benchRes
	puts := log.Puts()
	rep.Puts, rep.Acked, rep.Keys = len(puts), log.Acked(), len(log.Keys())
	logf("%6.1fs ack log: %d puts, %d acknowledged, %d keys; reading every key back from %v",
		time.Since(t0).Seconds(), rep.Puts, rep.Acked, rep.Keys, dcs)

	r0 := time.Now()
	readers := map[string]Reader{}
	for _, dc := range dcs {
		r := &sessionReader{conn: conns[dc]}
		defer r.close()
		readers[dc] = r
	}
	rep.Lost, rep.Bad = readBack(ctx, log, readers, quiesce, opTimeout, progressEvery, func(elapsed time.Duration, missing []Lost) {
		logf("%6.1fs read back: %.0fs in, %d acknowledged elements still missing%s",
			time.Since(t0).Seconds(), elapsed.Seconds(), len(missing), firstMissing(missing))
	})
	rep.ReadBackDCs = dcs
	rep.ReadBack = time.Since(r0)
	rep.Took = time.Since(t0)
	logf("%6.1fs read back in %.1fs: %d acknowledged writes lost, %d bad reads",
		time.Since(t0).Seconds(), rep.ReadBack.Seconds(), len(rep.Lost), len(rep.Bad))
	return rep, nil
}

// firstMissing names the oldest acknowledged element still missing, if
// any: which writer, which DC misses it, and when it was acknowledged.
func firstMissing(missing []Lost) string {
	if len(missing) == 0 {
		return ""
	}
	first := slices.MinFunc(missing, func(a, b Lost) int { return cmp.Compare(a.Done, b.Done) })
	return fmt.Sprintf(", the oldest %s", first)
}

// orDefault is d, or def when d is not positive.
func orDefault(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}

// writerSpec is one ack-log writer's part of a Spec.
type writerSpec struct {
	name, dc string
	keys     int
	timeout  time.Duration
	// rate caps the writer's puts per second (0: no cap).
	rate float64
	// wait pauses for d, or until stop; false when stopped (nil: a
	// timer). Tests replace it.
	wait func(d time.Duration, stop <-chan struct{}) bool
}

// waitOrStop pauses for d, or until stop; false when stopped.
func waitOrStop(d time.Duration, stop <-chan struct{}) bool {
	select {
	case <-stop:
		return false
	case <-time.After(d):
		return true
	}
}

// putter is the part of a session a writer uses; *client.Session is one.
type putter interface {
	Put(ctx context.Context, key string, value []byte) error
}

// interval is the least time from one put's start to the next one's
// under rate puts per second (0: none).
func interval(rate float64) time.Duration {
	if rate <= 0 {
		return 0
	}
	return time.Duration(float64(time.Second) / rate)
}

// write is one ack-log writer: the only writer of its keys, it puts to
// them in turn until stop, each put the grow-only set of every element it
// has tried to add to the key (acknowledged or not: a put that timed out
// may have taken effect, and a later set must contain it). It waits for
// each put's answer, and starts puts at most w.rate a second.
func write(s putter, w writerSpec, log *AckLog, stop <-chan struct{}, t0 time.Time) {
	sets := make([][]uint64, w.keys)
	every := interval(w.rate)
	wait := w.wait
	if wait == nil {
		wait = waitOrStop
	}
	for seq := uint64(1); ; seq++ {
		select {
		case <-stop:
			return
		default:
		}
		k := int(seq) % w.keys
		key := fmt.Sprintf("%s-k%d", w.name, k)
		sets[k] = append(sets[k], seq)
		ctx, cancel := context.WithTimeout(context.Background(), w.timeout+time.Second)
		start := time.Now()
		issued := start.Sub(t0)
		err := s.Put(ctx, key, EncodeSet(w.name, sets[k]))
		cancel()
		p := Put{Writer: w.name, DC: w.dc, Key: key, Elem: seq, Acked: err == nil, Issued: issued, Done: time.Since(t0)}
		if err != nil {
			p.Err = err.Error()
			if errors.Is(err, client.ErrClosed) {
				return
			}
		}
		log.Add(p)
		pause := every - time.Since(start)
		if err != nil {
			// Do not spin on a DC that answers at once that it is down.
			pause = max(pause, 100*time.Millisecond)
		}
		if pause > 0 && !wait(pause, stop) {
			return
		}
	}
}

// sessionReader reads through a session of its DC, opening a new one when
// the last ended: a session ends when its node is unreachable (as a node
// restarted by the heal may still be), and the read-back must go on
// reading until Quiesce ends.
type sessionReader struct {
	conn *client.Cluster
	s    *client.Session
}

// Get reads key in a session of the reader's DC.
func (r *sessionReader) Get(ctx context.Context, key string) ([]byte, bool, error) {
	if r.s == nil {
		s, err := r.conn.NewSession()
		if err != nil {
			return nil, false, err
		}
		r.s = s
	}
	v, found, err := r.s.Get(ctx, key)
	if err != nil {
		r.close() // the next read starts a new session
	}
	return v, found, err
}

func (r *sessionReader) close() {
	if r.s != nil {
		_ = r.s.Close()
		r.s = nil
	}
}

// Reader reads a key in one datacenter; *client.Session is one.
type Reader interface {
	Get(ctx context.Context, key string) ([]byte, bool, error)
}

// ReadBack reads every key of log from every datacenter of readers until
// each read holds every acknowledged put to the key (AckLog.Verify), or
// quiesce ends. It returns what the last read of each (datacenter, key)
// missed, and the reads that returned values no put wrote.
func ReadBack(ctx context.Context, log *AckLog, readers map[string]Reader, quiesce, opTimeout time.Duration) ([]Lost, []string) {
	return readBack(ctx, log, readers, quiesce, opTimeout, 0, nil)
}

// progressEvery is how often Run logs the read-back's progress.
const progressEvery = 10 * time.Second

// readBack is ReadBack that tells progress, after a round of reads at
// most every `every`, what is still missing: a write late in some DC
// shows when it arrives (or that it never does), which tells a slow
// replication from a lost write.
func readBack(ctx context.Context, log *AckLog, readers map[string]Reader, quiesce, opTimeout, every time.Duration, progress func(elapsed time.Duration, missing []Lost)) ([]Lost, []string) {
	start := time.Now()
	deadline := start.Add(quiesce)
	lastProgress := start
	type pending struct{ dc, key string }
	var todo []pending
	for _, dc := range slices.Sorted(maps.Keys(readers)) {
		for _, k := range log.Keys() {
			todo = append(todo, pending{dc, k})
		}
	}
	var lost []Lost
	var bad, foreign []string
	for {
		lost, bad = nil, nil
		var next []pending
		for _, p := range todo {
			rctx, cancel := context.WithTimeout(ctx, opTimeout)
			v, found, err := readers[p.dc].Get(rctx, p.key)
			cancel()
			if err != nil {
				next = append(next, p)
				bad = append(bad, fmt.Sprintf("%s read in %s: %v", p.key, p.dc, err))
				continue
			}
			l, err := log.Verify(p.dc, p.key, v, found)
			if err != nil {
				foreign = append(foreign, err.Error())
				continue // a foreign value does not heal by waiting
			}
			if len(l) > 0 {
				next = append(next, p)
				lost = append(lost, l...)
			}
		}
		todo = next
		if len(todo) == 0 || time.Now().After(deadline) || ctx.Err() != nil {
			return lost, append(foreign, bad...)
		}
		if progress != nil && time.Since(lastProgress) >= every {
			lastProgress = time.Now()
			progress(lastProgress.Sub(start), lost)
		}
		select {
		case <-time.After(200 * time.Millisecond):
		case <-ctx.Done():
		}
	}
}
