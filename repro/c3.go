package repro

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/topology"
	"github.com/causeway/causeway/workload"
)

// The reproduction of c3.txt §5: C3 against Saturn and Cassandra at three
// consistency levels on the paper's nine Azure DCs (c3-azure9), in the
// local and remote modes of §5.2, at seven loads, each client running a
// fixed number of operations.

// c3.txt §5.2's setup.
const (
	// c3PaperOps is the operations of one run: 25,000 per YCSB instance,
	// four instances in each of nine DCs.
	c3PaperOps = 900_000
	// c3PaperInstances is the YCSB instances (4 per DC).
	c3PaperInstances = 36
	// DefaultC3Scale is the default of Options.Scale.
	DefaultC3Scale = 100
	// DefaultC3ServiceTime is repro c3's default Options.ServiceTime: a
	// storage server's time per write (see DefaultCostModel for the
	// layer's).
	DefaultC3ServiceTime = 100 * time.Microsecond
	// c3Cap is the most virtual time a run may take; runs end when every
	// client has run its operations, long before.
	c3Cap = 10 * time.Minute
	// c3OpTimeout lets Saturn's migrations, which queue behind its
	// backlog (§5.3.2), complete rather than fail.
	c3OpTimeout = 30 * time.Second
)

// c3PaperThreads are §5.2's threads per YCSB instance, Table 3's columns.
var c3PaperThreads = []int{50, 100, 150, 200, 250, 300, 350}

// The protocols of the reproduction: c3.txt's C-C3, C-SAT, E-LQ, E-Q and
// E-EQ.
const (
	protoC3     = "c3"
	protoSaturn = "saturn"
	protoLQ     = "cassandra-lq"
	protoQ      = "cassandra-q"
	protoEQ     = "cassandra-eq"
)

// c3Names are the paper's names of our protocols.
var c3Names = map[string]string{protoC3: "C-C3", protoSaturn: "C-SAT", protoLQ: "E-LQ", protoQ: "E-Q", protoEQ: "E-EQ"}

// c3PaperVisibility is Table 3: mean visibility in ms at each of
// c3PaperThreads.
var c3PaperVisibility = map[string][]float64{
	protoC3:     {6656, 5881, 6765, 6772, 6663, 6688, 6867},
	protoSaturn: {17244, 22446, 23870, 24905, 25481, 27050, 27991},
	protoEQ:     {86, 99, 108, 108, 104, 95, 94},
	protoLQ:     {200, 353, 415, 372, 390, 306, 333},
	protoQ:      {87, 100, 112, 105, 110, 97, 110},
}

// The two modes of §5.2, by workload preset.
const (
	modeLocal  = "c3-local"
	modeRemote = "c3-remote"
)

// c3Runner runs the C3 reproduction and keeps its runs by mode, protocol
// and load (index into clients).
type c3Runner struct {
	runner
	protos  []string
	clients []int
	// ops is each client's operation count, by load.
	ops []int
	// saturn is false when no protocol "saturn" is registered.
	saturn bool
	byMode map[string]map[string][]*run
}

// C3 reproduces c3.txt §5 (Figs. 1–3, Table 3) on c3-azure9 and writes
// Dir/report.md and the plots.
func C3(opts Options) error {
	_, err := c3Repro(opts)
	return err
}

// c3Repro runs the reproduction and returns the runner with every run.
func c3Repro(opts Options) (*c3Runner, error) {
	if opts.ServiceTime <= 0 {
		opts.ServiceTime = DefaultC3ServiceTime
	}
	opts = opts.withDefaults()
	if opts.Scale <= 0 {
		opts.Scale = DefaultC3Scale
	}
	topo, err := topology.Preset("c3-azure9")
	if err != nil {
		return nil, err
	}
	c := &c3Runner{runner: runner{opts: opts, topo: topo, jitter: 20 * time.Millisecond}}
	c.simulate = c.sim
	c.protos = []string{protoC3}
	if _, err := protocol.Lookup(protoSaturn); err == nil {
		c.saturn = true
		c.protos = append(c.protos, protoSaturn)
	}
	c.protos = append(c.protos, protoLQ, protoQ, protoEQ)
	c.clients = c3Clients(opts)
	for _, n := range c.clients {
		c.ops = append(c.ops, max(1, (c3PaperOps/opts.Scale+n-1)/n))
	}
	c.total = 2 * len(c.protos) * len(c.clients)
	if err := os.MkdirAll(filepath.Join(opts.Dir, RunsDir), 0o755); err != nil {
		return nil, err
	}
	if err := c.runAll(); err != nil {
		return nil, err
	}
	figs, err := c.plots()
	if err != nil {
		return nil, err
	}
	f, err := os.Create(filepath.Join(opts.Dir, "report.md"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	c.write(f, figs)
	return c, f.Close()
}

// c3Clients is the loads of the reproduction: Options.Clients, or
// §5.2's 1,800 … 12,600 clients divided by Options.Scale (at least one
// per DC).
func c3Clients(opts Options) []int {
	if len(opts.Clients) > 0 {
		return slices.Sorted(slices.Values(opts.Clients))
	}
	var out []int
	for _, th := range c3PaperThreads {
		out = append(out, max(9, th*c3PaperInstances/opts.Scale))
	}
	return slices.Compact(out)
}

// runAll runs every protocol at every load in both modes.
func (c *c3Runner) runAll() error {
	c.byMode = map[string]map[string][]*run{}
	for _, mode := range []string{modeLocal, modeRemote} {
		w, err := workload.Lookup(mode)
		if err != nil {
			return err
		}
		c.byMode[mode] = map[string][]*run{}
		for _, p := range c.protos {
			for i, n := range c.clients {
				r, err := c.simulate(spec{protocol: p, workload: w, threads: n, duration: c3Cap,
					opsPerClient: c.ops[i], opTimeout: c3OpTimeout})
				if err != nil {
					if errors.Is(err, ErrInterrupted) {
						return err
					}
					return fmt.Errorf("repro c3: %w", err)
				}
				c.byMode[mode][p] = append(c.byMode[mode][p], r)
			}
		}
	}
	return nil
}

// get returns the run of proto in mode at load i, or nil.
func (c *c3Runner) get(mode, proto string, i int) *run {
	rs := c.byMode[mode][proto]
	if i < 0 || i >= len(rs) {
		return nil
	}
	return rs[i]
}

// mid is the load of the per-operation figures: the paper's 9,000
// clients scaled, or the middle load.
func (c *c3Runner) mid() int {
	want := 9000 / c.opts.Scale
	for i, n := range c.clients {
		if n == want {
			return i
		}
	}
	return len(c.clients) / 2
}

// paperThreads is the paper's threads per instance for load i, when the
// loads are the scaled paper's (0 otherwise).
func (c *c3Runner) paperThreads(i int) int {
	if len(c.opts.Clients) > 0 || i >= len(c3PaperThreads) || len(c.clients) != len(c3PaperThreads) {
		return 0
	}
	return c3PaperThreads[i]
}

// meanLatency is a run's mean operation latency: the mean of its read
// and write means (the mix is 50/50; a migration counts in the operation
// that needed it).
func meanLatency(r *run) float64 {
	if r == nil {
		return 0
	}
	g, p := r.res.LatencyMs["get"].Mean, r.res.LatencyMs["put"].Mean
	return (g + p) / 2
}

// visMean is a run's mean visibility from issue, and visBound the mean
// of its writes' one-way bounds (0 when none was recorded).
func visMean(r *run) float64 {
	if r == nil || r.res.VisibilityFromIssueMs == nil {
		return 0
	}
	return r.res.VisibilityFromIssueMs.Mean
}

func visBound(r *run) float64 {
	if r == nil || r.res.VisibilityBoundMs == nil {
		return 0
	}
	return r.res.VisibilityBoundMs.Mean
}

// migrateMean is a run's mean migration time (0: none).
func migrateMean(r *run) float64 {
	if r == nil {
		return 0
	}
	return metric(r, "migrate_ms_mean")
}
