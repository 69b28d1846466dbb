package cluster

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/causeway/causeway/certs"
	"github.com/causeway/causeway/internal/quietsysmon"
	"github.com/causeway/causeway/topology"
)

// A local cluster lives in one directory:
//
//	DIR/cluster.yaml        the configuration (Plan, Save)
//	DIR/data/<stem>/        each node's Pebble store
//	DIR/logs/<stem>.log     each node process's stdout and stderr (appended)
//	DIR/pids/<stem>.pid     each running node process's pid
//	DIR/certs/              certificates, when created with TLS
//
// where <stem> is the node ID with "/" replaced by "_" (Stem).

const (
	// DefaultUpTimeout bounds how long Up waits for every node to answer
	// /healthz.
	DefaultUpTimeout = 30 * time.Second
	// DefaultDownTimeout is how long Down waits after SIGTERM before it
	// sends SIGKILL.
	DefaultDownTimeout = 10 * time.Second
	// killWait is how long Down waits for processes to go after SIGKILL.
	killWait = 5 * time.Second
	// pollEvery is how often Up and Down look at the nodes again.
	pollEvery = 50 * time.Millisecond
	// tailBytes is how much of a log Up quotes when a node fails.
	tailBytes = 4096
)

// LogPath is where the process of node id logs.
func LogPath(dir, id string) string { return filepath.Join(dir, "logs", Stem(id)+".log") }

// PIDPath is the pid file of node id.
func PIDPath(dir, id string) string { return filepath.Join(dir, "pids", Stem(id)+".pid") }

// UpOptions says how Up creates and starts a cluster.
type UpOptions struct {
	// Topology (a preset name or a YAML file) and Protocol are required
	// when dir holds no cluster.yaml yet. With an existing file they may be
	// given, and must then agree with it.
	Topology string
	Protocol string
	// TLS (default false) and WANDelay (default true) set those fields of
	// a new cluster; for an existing one, nil keeps the file's value and
	// anything else must agree with it. A new TLS cluster gets its
	// certificates made in dir/certs (one per node, plus ClientCertName).
	TLS      *bool
	WANDelay *bool
	// Command is the server command; Up appends "--config PATH --node ID".
	// Default: this executable with the argument "server".
	Command []string
	// Env is added to the environment of the server processes. Unless it
	// or this process's environment sets GOMAXPROCS, Up sets it to
	// NodeProcs(len(cfg.Nodes)) (see there); unless their GODEBUG sets
	// schedtrace, Up adds NodeSchedtrace to it (see there).
	Env []string
	// Timeout bounds the wait for every node to answer /healthz (default
	// DefaultUpTimeout).
	Timeout time.Duration
	// Only, if set, limits Up to these node IDs: only they are started
	// (if not running) and waited for, so that a node restarted while
	// another is paused or cut off (a live nemesis) does not wait for it.
	Only []string
}

// ConfigError is the error Up returns when the options or the cluster
// file are at fault (a missing or contradicting option, an unknown
// topology or protocol, an invalid file); nothing was started.
type ConfigError struct{ Err error }

func (e *ConfigError) Error() string { return e.Err.Error() }
func (e *ConfigError) Unwrap() error { return e.Err }

// UpReport says what Up did.
type UpReport struct {
	Config *Config
	// Created is true when Up wrote a new cluster.yaml.
	Created bool
	// Started lists the nodes Up started; Running those that were running
	// already (and were left alone).
	Started, Running []string
}

// Up starts every node of the cluster in dir that is not running, each as
// its own process (in a new session, so that it outlives the caller),
// and waits until every node answers /healthz. If dir has no cluster.yaml,
// Up first plans one (Plan) from opts.Topology and opts.Protocol and saves
// it; otherwise it restarts the same nodes on the same ports and data.
//
// If a node exits or is not ready in time, Up stops the processes it
// started and returns an error naming the first such node, with the tail
// of its log.
func Up(ctx context.Context, dir string, opts UpOptions) (*UpReport, error) {
	if dir == "" {
		return nil, &ConfigError{errors.New("cluster: no directory given")}
	}
	cfg, created, err := prepare(dir, opts)
	if err != nil {
		return nil, &ConfigError{err}
	}
	rep := &UpReport{Config: cfg, Created: created}
	command := opts.Command
	if len(command) == 0 {
		exe, err := os.Executable()
		if err != nil {
			return nil, fmt.Errorf("cluster: finding this executable: %w", err)
		}
		command = []string{exe, "server"}
	}
	cfgPath, err := filepath.Abs(filepath.Join(dir, FileName))
	if err != nil {
		return nil, fmt.Errorf("cluster: %w", err)
	}
	for _, sub := range []string{"logs", "pids"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			return nil, fmt.Errorf("cluster: %w", err)
		}
	}

	env := opts.Env
	if !setsProcs(os.Environ()) && !setsProcs(env) {
		env = append(slices.Clone(env), "GOMAXPROCS="+strconv.Itoa(NodeProcs(len(cfg.Nodes))))
	}
	if godebug, ok := quietsysmon.Env(append(os.Environ(), env...)); ok {
		env = append(slices.Clone(env), godebug)
	}
	procs := map[string]*proc{}
	stopStarted := func() {
		for _, id := range rep.Started {
			p := procs[id]
			_ = p.cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-p.done:
			case <-time.After(DefaultDownTimeout):
				_ = p.cmd.Process.Kill()
				<-p.done
			}
			_ = os.Remove(PIDPath(dir, id))
		}
	}
	nodes := cfg.Nodes
	if len(opts.Only) > 0 {
		nodes = nil
		for _, n := range cfg.Nodes {
			if slices.Contains(opts.Only, n.ID) {
				nodes = append(nodes, n)
			}
		}
		if len(nodes) != len(opts.Only) {
			return nil, &ConfigError{fmt.Errorf("cluster: only %v: not every one is a node of the cluster (nodes: %s)", opts.Only, strings.Join(cfg.NodeIDs(), ", "))}
		}
	}
	for _, n := range nodes {
		if pid, ok := readPID(PIDPath(dir, n.ID)); ok && running(pid, n.ID) {
			rep.Running = append(rep.Running, n.ID)
			continue
		}
		p, err := startNode(dir, cfgPath, n.ID, command, env)
		if err != nil {
			stopStarted()
			return nil, err
		}
		procs[n.ID] = p
		rep.Started = append(rep.Started, n.ID)
	}

	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = DefaultUpTimeout
	}
	hc, err := cfg.HTTPClient(time.Second)
	if err != nil {
		stopStarted()
		return nil, err
	}
	// restart starts a node that was running when Up looked but has exited
	// since: a process killed just before Up (kill -9, then cluster up) can
	// still be dying when its pid is probed, and waiting for its /healthz
	// would wait out the whole timeout for a process that is gone.
	restart := func(n Node) (*proc, error) {
		p, err := startNode(dir, cfgPath, n.ID, command, env)
		if err != nil {
			return nil, err
		}
		procs[n.ID] = p
		rep.Started = append(rep.Started, n.ID)
		rep.Running = slices.DeleteFunc(rep.Running, func(id string) bool { return id == n.ID })
		return p, nil
	}
	if err := waitReady(ctx, dir, cfg, hc, nodes, procs, restart, timeout); err != nil {
		stopStarted()
		return nil, err
	}
	return rep, nil
}

// NodeProcs is the GOMAXPROCS that Up gives each of n node processes it
// starts on this machine: its cores shared among them, at least one.
// Each Go process otherwise runs as many threads as the machine has
// cores, and n of them on fewer cores spend their time waking threads of
// their own to steal each other's goroutines (a futex wake and a context
// switch per hand-off between goroutines): with six nodes on two cores,
// one each served 1.35× the operations (docs/performance.md).
func NodeProcs(n int) int {
	return max(1, runtime.NumCPU()/max(n, 1))
}

// NodeSchedtrace is the GODEBUG setting that Up adds for the node
// processes it starts, unless their GODEBUG sets schedtrace: it keeps the
// Go runtime's sysmon thread from polling every 20 µs each time a node is
// woken (internal/quietsysmon).
const NodeSchedtrace = quietsysmon.Setting

// setsProcs reports whether env sets GOMAXPROCS.
func setsProcs(env []string) bool {
	return slices.ContainsFunc(env, func(kv string) bool { return strings.HasPrefix(kv, "GOMAXPROCS=") })
}

// prepare loads dir's cluster.yaml, checking opts against it, or plans
// and saves a new one.
func prepare(dir string, opts UpOptions) (cfg *Config, created bool, err error) {
	path := filepath.Join(dir, FileName)
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		if opts.Topology == "" || opts.Protocol == "" {
			return nil, false, fmt.Errorf("cluster: %s does not exist: a topology and a protocol are needed to create a cluster", path)
		}
		topo, err := topology.Lookup(opts.Topology)
		if err != nil {
			return nil, false, fmt.Errorf("cluster: %w", err)
		}
		cfg, err := Plan(topo, opts.Protocol, dir)
		if err != nil {
			return nil, false, err
		}
		if opts.WANDelay != nil {
			cfg.WANDelay = *opts.WANDelay
		}
		if opts.TLS != nil && *opts.TLS {
			cfg.TLS = true
			abs, err := filepath.Abs(dir)
			if err != nil {
				return nil, false, fmt.Errorf("cluster: %w", err)
			}
			cfg.CertsDir = filepath.Join(abs, "certs")
			if _, err := os.Stat(filepath.Join(cfg.CertsDir, certs.CAName+".key")); errors.Is(err, fs.ErrNotExist) {
				if err := certs.Generate(cfg.CertsDir, certs.Options{Nodes: cfg.NodeIDs(), Clients: []string{ClientCertName, AdminCertName}}); err != nil {
					return nil, false, fmt.Errorf("cluster: %w", err)
				}
			}
		}
		if err := cfg.Save(path); err != nil {
			return nil, false, err
		}
		return cfg, true, nil
	} else if err != nil {
		return nil, false, fmt.Errorf("cluster: %w", err)
	}
	cfg, err = Load(path)
	if err != nil {
		return nil, false, err
	}
	if opts.Protocol != "" && opts.Protocol != cfg.Protocol {
		return nil, false, fmt.Errorf("cluster: protocol %s contradicts %s, which runs %s", opts.Protocol, path, cfg.Protocol)
	}
	if opts.Topology != "" {
		topo, err := topology.Lookup(opts.Topology)
		if err != nil {
			return nil, false, fmt.Errorf("cluster: %w", err)
		}
		if topo.Name != cfg.Topology.Name {
			return nil, false, fmt.Errorf("cluster: topology %s contradicts %s, which runs on topology %s", topo.Name, path, cfg.Topology.Name)
		}
		a, errA := topo.Marshal()
		b, errB := cfg.Topology.Marshal()
		if errA != nil || errB != nil || !bytes.Equal(a, b) {
			return nil, false, fmt.Errorf("cluster: topology %s differs from the topology %s in %s", opts.Topology, cfg.Topology.Name, path)
		}
	}
	if opts.TLS != nil && *opts.TLS != cfg.TLS {
		return nil, false, fmt.Errorf("cluster: tls %v contradicts %s, which has tls: %v", *opts.TLS, path, cfg.TLS)
	}
	if opts.WANDelay != nil && *opts.WANDelay != cfg.WANDelay {
		return nil, false, fmt.Errorf("cluster: wan_delay %v contradicts %s, which has wan_delay: %v", *opts.WANDelay, path, cfg.WANDelay)
	}
	return cfg, false, nil
}

// proc is a node process started by Up.
type proc struct {
	cmd  *exec.Cmd
	done chan struct{} // closed when the process has exited
	err  error         // how it exited; set before done is closed
}

// startNode starts the process of node id, logging to its log file, and
// writes its pid file.
func startNode(dir, cfgPath, id string, command, env []string) (*proc, error) {
	logf, err := os.OpenFile(LogPath(dir, id), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("cluster: node %s: %w", id, err)
	}
	defer logf.Close() // the child has its own descriptor
	args := append(slices.Clone(command[1:]), "--config", cfgPath, "--node", id)
	cmd := exec.Command(command[0], args...)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.Env = append(os.Environ(), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} // not killed with the caller's terminal
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("cluster: starting node %s: %w", id, err)
	}
	p := &proc{cmd: cmd, done: make(chan struct{})}
	// Reap the process if it exits while this process lives (a zombie
	// would look alive).
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	if err := writePID(PIDPath(dir, id), cmd.Process.Pid); err != nil {
		_ = cmd.Process.Kill()
		<-p.done
		return nil, fmt.Errorf("cluster: node %s: %w", id, err)
	}
	return p, nil
}

// waitReady polls the /healthz of every node of nodes until all answer
// 200. A node in procs that exits fails the wait at once; a node Up found
// running (not in procs) whose process has gone since is started again by
// restart.
func waitReady(ctx context.Context, dir string, cfg *Config, hc *http.Client, nodes []Node, procs map[string]*proc, restart func(Node) (*proc, error), timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	ready := map[string]bool{}
	tick := time.NewTicker(pollEvery)
	defer tick.Stop()
	for {
		for _, n := range nodes {
			if ready[n.ID] {
				continue
			}
			if p := procs[n.ID]; p != nil {
				select {
				case <-p.done:
					return fmt.Errorf("cluster: node %s exited before it was ready (%v); the end of %s:\n%s",
						n.ID, exitText(p.err), LogPath(dir, n.ID), tail(LogPath(dir, n.ID)))
				default:
				}
			}
			if healthy(ctx, hc, cfg.NodeURL(n, "/healthz")) {
				ready[n.ID] = true
				continue
			}
			if procs[n.ID] == nil {
				if pid, ok := readPID(PIDPath(dir, n.ID)); !ok || !running(pid, n.ID) {
					if _, err := restart(n); err != nil {
						return err
					}
				}
			}
		}
		if len(ready) == len(nodes) {
			return nil
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			for _, n := range nodes {
				if !ready[n.ID] {
					why := fmt.Sprintf("within %v", timeout)
					if ctx.Err() != nil {
						why = ctx.Err().Error()
					}
					return fmt.Errorf("cluster: node %s not ready (%s: %s does not answer ok); the end of %s:\n%s",
						n.ID, why, cfg.NodeURL(n, "/healthz"), LogPath(dir, n.ID), tail(LogPath(dir, n.ID)))
				}
			}
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
		}
	}
}

func exitText(err error) string {
	if err == nil {
		return "exit status 0"
	}
	return err.Error()
}

// healthy reports whether url (a node's /healthz) answers 200.
func healthy(ctx context.Context, hc *http.Client, url string) bool {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return false
	}
	resp, err := hc.Do(req)
	if err != nil {
		return false
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// tail returns the last lines of the file at path (at most tailBytes).
func tail(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return "  (" + err.Error() + ")"
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return "  (" + err.Error() + ")"
	}
	off := max(st.Size()-tailBytes, 0)
	buf := make([]byte, st.Size()-off)
	if _, err := f.ReadAt(buf, off); err != nil && !errors.Is(err, io.EOF) {
		return "  (" + err.Error() + ")"
	}
	if off > 0 {
		if i := bytes.IndexByte(buf, '\n'); i >= 0 {
			buf = buf[i+1:]
		}
	}
	s := strings.TrimRight(string(buf), "\n")
	if s == "" {
		return "  (empty)"
	}
	return "  " + strings.ReplaceAll(s, "\n", "\n  ")
}

// NodeDown says what Down did to one node.
type NodeDown struct {
	ID  string
	PID int // 0: no process was running
	// Result is "stopped" (exited after SIGTERM), "killed" (needed
	// SIGKILL) or "not running".
	Result string
}

// Down stops every node process of the cluster in dir: SIGTERM, then, for
// those still running after timeout (default DefaultDownTimeout), SIGKILL.
// It removes the pid files of the processes that are gone. Pid files whose
// process is gone, or is no longer a node process of this node, are
// removed without signalling anything.
func Down(dir string, timeout time.Duration) ([]NodeDown, error) {
	cfg, err := Load(filepath.Join(dir, FileName))
	if err != nil {
		return nil, err
	}
	if timeout <= 0 {
		timeout = DefaultDownTimeout
	}
	out := make([]NodeDown, len(cfg.Nodes))
	alive := map[int]int{} // index in out -> pid
	for i, n := range cfg.Nodes {
		out[i] = NodeDown{ID: n.ID, Result: "not running"}
		pid, ok := readPID(PIDPath(dir, n.ID))
		if !ok || !running(pid, n.ID) {
			_ = os.Remove(PIDPath(dir, n.ID))
			continue
		}
		out[i].PID = pid
		if err := syscall.Kill(pid, syscall.SIGTERM); err != nil && !errors.Is(err, syscall.ESRCH) {
			return out, fmt.Errorf("cluster: stopping node %s (pid %d): %w", n.ID, pid, err)
		}
		alive[i] = pid
		out[i].Result = "stopped"
	}
	waitGone := func(d time.Duration) {
		deadline := time.Now().Add(d)
		for len(alive) > 0 {
			for i, pid := range alive {
				if !running(pid, cfg.Nodes[i].ID) {
					delete(alive, i)
					_ = os.Remove(PIDPath(dir, cfg.Nodes[i].ID))
				}
			}
			if len(alive) == 0 || time.Now().After(deadline) {
				return
			}
			time.Sleep(pollEvery) // polling another process's exit: there is nothing to wait on
		}
	}
	waitGone(timeout)
	for i, pid := range alive {
		_ = syscall.Kill(pid, syscall.SIGKILL)
		out[i].Result = "killed"
	}
	waitGone(killWait)
	if len(alive) > 0 {
		var still []string
		for i, pid := range alive {
			still = append(still, fmt.Sprintf("%s (pid %d)", cfg.Nodes[i].ID, pid))
		}
		slices.Sort(still)
		return out, fmt.Errorf("cluster: still running after SIGKILL: %s", strings.Join(still, ", "))
	}
	return out, nil
}

// NodeStatus is the state of one node of a local cluster.
type NodeStatus struct {
	ID, Addr, HTTP string
	// PID is the node's process, 0 if none is running.
	PID int
	// Up is true when the node answers /healthz with 200.
	Up bool
	// Health is HealthUp, HealthStarting or HealthDown.
	Health string
	// Info is what the node said at StatusPath; nil when it did not
	// answer.
	Info *NodeInfo
}

// Status reports every node of the cluster in dir, in file order.
func Status(ctx context.Context, dir string) (*Config, []NodeStatus, error) {
	cfg, err := Load(filepath.Join(dir, FileName))
	if err != nil {
		return nil, nil, err
	}
	out := make([]NodeStatus, len(cfg.Nodes))
	hc, err := cfg.HTTPClient(time.Second)
	if err != nil {
		return nil, nil, err
	}
	var wg sync.WaitGroup
	for i, n := range cfg.Nodes {
		out[i] = NodeStatus{ID: n.ID, Addr: n.Addr, HTTP: n.HTTP}
		if pid, ok := readPID(PIDPath(dir, n.ID)); ok && running(pid, n.ID) {
			out[i].PID = pid
		}
		wg.Go(func() {
			out[i].Up = healthy(ctx, hc, cfg.NodeURL(n, "/healthz"))
			out[i].Info, _ = nodeInfo(ctx, hc, cfg.NodeURL(n, StatusPath))
			switch {
			case out[i].Up:
				out[i].Health = HealthUp
			case out[i].Info != nil:
				out[i].Health = HealthStarting
			default:
				out[i].Health = HealthDown
			}
		})
	}
	wg.Wait()
	return cfg, out, nil
}

// NodePID returns the pid of the running process of node id of the
// cluster in dir, and whether there is one (its pid file names a live
// process serving id).
func NodePID(dir, id string) (int, bool) {
	pid, ok := readPID(PIDPath(dir, id))
	if !ok || !running(pid, id) {
		return 0, false
	}
	return pid, true
}

func writePID(path string, pid int) error {
	return os.WriteFile(path, []byte(strconv.Itoa(pid)+"\n"), 0o644)
}

func readPID(path string) (int, bool) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil || pid <= 0 {
		return 0, false
	}
	return pid, true
}

// running reports whether pid is a live (not zombie) process serving node
// id. Where /proc exists the process's command line must hold
// "--node ID", so that a recycled pid is not taken for the node.
func running(pid int, id string) bool {
	if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	if _, err := os.Stat("/proc/self"); err != nil {
		return true // no /proc: trust the signal probe
	}
	proc := filepath.Join("/proc", strconv.Itoa(pid))
	stat, err := os.ReadFile(filepath.Join(proc, "stat"))
	if err != nil {
		return false
	}
	// "pid (comm) S …": the state follows the last ')'.
	if i := bytes.LastIndexByte(stat, ')'); i >= 0 && i+2 < len(stat) && stat[i+2] == 'Z' {
		return false
	}
	cmdline, err := os.ReadFile(filepath.Join(proc, "cmdline"))
	if err != nil {
		return false
	}
	args := strings.Split(strings.TrimRight(string(cmdline), "\x00"), "\x00")
	for i := 0; i+1 < len(args); i++ {
		if args[i] == "--node" && args[i+1] == id {
			return true
		}
	}
	return false
}
