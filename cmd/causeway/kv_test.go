package main

import (
	"strings"
	"testing"

	"github.com/causeway/causeway/runtime/node/nodetest"
)

// tokenOf returns the token a command printed on stderr.
func tokenOf(t *testing.T, stderr string) string {
	t.Helper()
	for _, line := range strings.Split(stderr, "\n") {
		if tok, ok := strings.CutPrefix(line, "session-token: "); ok && tok != "" {
			return tok
		}
	}
	t.Fatalf("no session-token line on stderr:\n%s", stderr)
	return ""
}

// TestSessionTokenAcrossDCs: with WAN delay on (a->c 60 ms one way), a
// put in a followed at once by a get in c with the put's session token
// returns the value, since the get waits for it; the get prints a token
// of its own. Transactions are refused by cops with exit 1.
func TestSessionTokenAcrossDCs(t *testing.T) {
	dir := nodetest.StartLocal(t, "local3", "cops")
	expect := func(wantCode int, wantOut, wantErr string, args ...string) (string, string) {
		t.Helper()
		code, out, errOut := causeway(t, args...)
		if code != wantCode || !strings.Contains(out, wantOut) || !strings.Contains(errOut, wantErr) {
			t.Fatalf("causeway %s: exit %d, want %d, stdout %q (want %q), stderr %q (want %q)",
				strings.Join(args, " "), code, wantCode, out, wantOut, errOut, wantErr)
		}
		return out, errOut
	}
	// No token unless asked for.
	if _, errOut := expect(0, "ok", "", "put", "--cluster", dir, "--dc", "a", "k", "v0"); errOut != "" {
		t.Errorf("put without --print-token printed %q on stderr", errOut)
	}
	_, errOut := expect(0, "ok", "session-token: ", "put", "--print-token", "--cluster", dir, "--dc", "a", "k", "v1")
	token := tokenOf(t, errOut)
	out, errOut := expect(0, "v1", "session-token: ", "get", "--print-token", "--cluster", dir, "--dc", "c", "--session-token", token, "k")
	if strings.TrimSpace(out) != "v1" {
		t.Errorf("stdout %q, want just the value", out)
	}
	// Chained: the token of the get in c carries the put too; back in a
	// a put, then in b a read of both keys.
	_, errOut = expect(0, "ok", "session-token: ", "put", "--print-token", "--cluster", dir, "--dc", "a", "--session-token", tokenOf(t, errOut), "k2", "w1")
	expect(0, "w1", "", "get", "--cluster", dir, "--dc", "b", "--session-token", tokenOf(t, errOut), "k2")

	expect(1, "", "read_txn: operation not supported by protocol cops", "txn", "--cluster", dir, "--dc", "a", "get", "k", "k2")
	expect(1, "", "write_txn: operation not supported by protocol cops", "txn", "--cluster", dir, "--dc", "a", "put", "k=1", "k2=2")
	expect(2, "", "is not KEY=VALUE", "txn", "--cluster", dir, "--dc", "a", "put", "k")
	expect(2, "", "written twice", "txn", "--cluster", dir, "--dc", "a", "put", "k=1", "k=2")
	expect(2, "", "txn needs", "txn", "--cluster", dir, "--dc", "a", "get")
	expect(2, "", "resume session: invalid session token: not a Causeway session token", "get", "--cluster", dir, "--dc", "c", "--session-token", "bm90IGEgdG9rZW4", "k")
	expect(2, "", "not URL-safe base64", "get", "--cluster", dir, "--dc", "c", "--session-token", "!!", "k")
}

// TestSessionTokenWithoutState: a token that names karma but holds no
// session is refused as a bad argument before any node is contacted (so
// none runs here).
func TestSessionTokenWithoutState(t *testing.T) {
	dir := savedLocal3Cluster(t, "karma")
	code, out, errOut := causeway(t, "get", "--cluster", dir, "--dc", "a", "--session-token", "Y3cBBWthcm1h", "k")
	if code != 2 || out != "" || !strings.Contains(errOut, "invalid session token") {
		t.Errorf("exit %d, stdout %q, stderr %q; want exit 2 and the token's refusal", code, out, errOut)
	}
}

// TestK2TransactionsLive: a live k2 cluster on local3 (k2.txt §III-C,
// §V) takes a write-only transaction in a and answers read-only
// transactions with its values, in a and, resumed by token, in c (a DC
// that may hold only the keys' metadata, so the read may fetch from a
// replica DC).
func TestK2TransactionsLive(t *testing.T) {
	dir := nodetest.StartLocal(t, "local3", "k2")
	var put okResult
	decode(t, mustRun(t, 0, "txn", "--cluster", dir, "--dc", "a", "--print-token", "-w", "json", "put", "x=1", "y=2", "z=3"), &put)
	if put.SessionToken == "" {
		t.Fatalf("txn put --print-token -w json = %+v, want a token", put)
	}
	if out := mustRun(t, 0, "txn", "--cluster", dir, "--dc", "a", "--session-token", put.SessionToken, "get", "x", "y", "z"); out != "x=1\ny=2\nz=3\n" {
		t.Errorf("txn get in a = %q", out)
	}
	if out := mustRun(t, 0, "txn", "--cluster", dir, "--dc", "c", "--session-token", put.SessionToken, "get", "z", "x"); out != "z=3\nx=1\n" {
		t.Errorf("txn get in c with a's token = %q", out)
	}
}
