package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/causeway/causeway/cluster"
	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/protocol/chain"
	"github.com/causeway/causeway/topology"
)

// TestChainReactionLiveServerKilled runs ChainReaction as a real cluster of
// processes (chainreaction-1dc: R 6, k 3) and kills node k of key x's chain
// (kill -9) while a benchmark runs (chainreaction.txt §3.7): the
// benchmark's history must pass the checker, the put of x that node k
// acknowledged before it died must not be lost, and x's repaired chain
// must take and serve a new put.
func TestChainReactionLiveServerKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs a multi-process cluster")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute) // a hang guard
	t.Cleanup(cancel)
	bin := buildCauseway(t, ctx)
	lc := upCluster(t, ctx, bin, "chainreaction", "--topology", "chainreaction-1dc")

	p, err := protocol.Lookup("chainreaction")
	if err != nil {
		t.Fatal(err)
	}
	tp, err := topology.Preset("chainreaction-1dc")
	if err != nil {
		t.Fatal(err)
	}
	l := p.(*chain.Protocol).Layout(tp)
	c, full := l.Chain(l.InitialView(), "x")
	victim := c[l.ReplyIndex(c, full)] // node k: it answers x's puts

	lc.put("dc1", "x", "x1") // acknowledged by node k

	history := filepath.Join(t.TempDir(), "h.jsonl")
	var benchOut, benchErr bytes.Buffer
	bench := exec.CommandContext(ctx, bin, "bench", "--cluster", lc.dir, "--duration", "4s", "--clients", "6",
		"--ceiling", "0s", "--op-timeout", "10s", "--json", "--history", history)
	bench.Stdout, bench.Stderr = &benchOut, &benchErr
	if err := bench.Start(); err != nil {
		t.Fatal(err)
	}
	pid, ok := cluster.NodePID(lc.dir, string(victim))
	if !ok {
		t.Fatalf("no running process for %s", victim)
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	err = bench.Wait()
	var res struct {
		Ops    int64            `json:"ops"`
		Errors map[string]int64 `json:"errors"`
		Check  struct {
			OK bool `json:"ok"`
		} `json:"check"`
	}
	if jerr := json.Unmarshal(benchOut.Bytes(), &res); err != nil || jerr != nil || res.Ops == 0 || !res.Check.OK {
		t.Fatalf("bench with %s killed: %v, %v, %d operations, check ok %v\nstdout:\n%s\nstderr:\n%s",
			victim, err, jerr, res.Ops, res.Check.OK, benchOut.String(), benchErr.String())
	}
	t.Logf("bench with %s killed: %d operations, errors %v", victim, res.Ops, res.Errors)
	// A get sent to the dead node fails at once as unavailable (and ends
	// its session). A fresh session fetches the master's view and reads
	// away from the servers the master is pinging (chain.Client.Fetch),
	// so gets fail only until someone reports the dead node (its
	// predecessor after 900 ms of silence, a session's put after a
	// retransmission timeout): 9-16 in 4 s on an idle machine, against
	// 22-37 when every fresh session started from the initial view; 23 of
	// 221 operations under -race beside the other packages. How many
	// depends on how many sessions start before the report, i.e. on the
	// machine's speed, so the bound here only catches reads that keep
	// failing after the repair (a quarter of the operations); the
	// scenarios fresh_session_view and fresh_session_suspects
	// (protocol/chainreaction) test the fetch itself, deterministically.
	if n := res.Errors["get"]; n > res.Ops/4 {
		t.Errorf("%d of %d operations were gets that failed with %s killed, want at most a quarter", n, res.Ops, victim)
	}
	lc.expect(0, "", "check", history)

	// The write node k acknowledged survives it; the repaired chain (node
	// k's successor moved up, the next server appended) takes a new one.
	if got := retryUnavailable(lc, "get", "x"); got != "x1" {
		t.Fatalf("get x after %s was killed = %q, want the acknowledged x1", victim, got)
	}
	// The get continues the put's session (its token): a fresh session
	// may read any node of the chain, one the lazy propagation of x2 has
	// not reached yet (causal+ orders a session's operations, not
	// separate processes by wall-clock time).
	_, errOut := retryUnavailableOut(lc, "put", "--print-token", "x", "x2")
	token, ok := strings.CutPrefix(strings.TrimSpace(errOut), "session-token: ")
	if !ok {
		t.Fatalf("put --print-token printed no token on stderr: %q", errOut)
	}
	if got := retryUnavailable(lc, "get", "--session-token", token, "x"); got != "x2" {
		t.Fatalf("get x in the session that put x2 on the repaired chain = %q", got)
	}
}

// retryUnavailable runs `causeway get|put … args` on lc until it succeeds,
// and returns its output. A new CLI session fetches the master's view
// first (chain.Client.Fetch), which lists the killed node until the
// master removes it: an operation whose request goes there meanwhile
// fails at once as unavailable (the live transport cannot reach it) and
// is run again, with another session, until catchUp has passed.
func retryUnavailable(lc *liveCluster, op string, args ...string) string {
	lc.t.Helper()
	out, _ := retryUnavailableOut(lc, op, args...)
	return out
}

// retryUnavailableOut is retryUnavailable returning stderr too.
func retryUnavailableOut(lc *liveCluster, op string, args ...string) (string, string) {
	lc.t.Helper()
	deadline := time.Now().Add(catchUp)
	for {
		code, out, errOut := lc.run(append([]string{op, "--cluster", lc.dir, "--dc", "dc1", "--timeout", "5s"}, args...)...)
		if code == 0 {
			return strings.TrimSpace(out), errOut
		}
		if !strings.Contains(errOut, "unavailable") || time.Now().After(deadline) {
			lc.t.Fatalf("%s %v: exit %d\n%s%s", op, args, code, out, errOut)
		}
	}
}
