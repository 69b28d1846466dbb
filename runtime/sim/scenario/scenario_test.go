package scenario

import (
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"

	_ "github.com/causeway/causeway/protocol/all"
)

// run parses line as a datadriven command and runs it.
func run(t *testing.T, st *state, line string) (string, error) {
	t.Helper()
	fields := strings.Fields(line)
	d := &datadriven.TestData{Pos: "test", Cmd: fields[0]}
	for _, f := range fields[1:] {
		k, v, ok := strings.Cut(f, "=")
		arg := datadriven.CmdArg{Key: k}
		if ok {
			if strings.HasPrefix(v, "(") {
				arg.Vals = strings.Split(strings.Trim(v, "()"), ",")
			} else {
				arg.Vals = []string{v}
			}
		}
		d.CmdArgs = append(d.CmdArgs, arg)
	}
	out, err := st.do(d)
	return st.takeTrace() + out, err
}

func mustRun(t *testing.T, st *state, line string) string {
	t.Helper()
	out, err := run(t, st, line)
	if err != nil {
		t.Fatalf("%s: %v", line, err)
	}
	return out
}

// TestMisuseIsAnError: scripting mistakes fail the test instead of
// printing something a -rewrite would accept.
func TestMisuseIsAnError(t *testing.T) {
	st := &state{t: t}
	mustRun(t, st, "sim protocol=cops")
	mustRun(t, st, "session name=alice dc=a")
	for _, c := range []struct{ line, want string }{
		{"await alice", "no operation outstanding"},
		{"await nobody", "no operation outstanding"},
		{"submit alice", "needs a session name and an operation"},
		{"submit alice scan key=k", "unknown operation"},
		{"submit alice put key=k", "put needs value=V"},
		{"hold from=a", "hold needs kind=K"},
		{"hold kind=Replicate n=2", "hold takes no n"},
		{"unhold kind=Replicate", "no hold rule"},
		{"deliver n=0", "not a positive count"},
		{"drop kind=Replicate size=3", "unknown argument size"},
		{"trace maybe", "trace takes on or off"},
	} {
		if _, err := run(t, st, c.line); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one saying %q", c.line, err, c.want)
		}
	}
	mustRun(t, st, "submit alice put key=k value=v")
	if _, err := run(t, st, "get alice key=k"); err == nil || !strings.Contains(err.Error(), "already has an operation outstanding") {
		t.Errorf("a second operation on a busy session: error %v", err)
	}
	if got := mustRun(t, st, "await alice"); got != "ok (0.5ms)\n" {
		t.Errorf("await = %q", got)
	}
}

// TestSameScriptSameTrace: a script with holds, deliveries and the trace
// on prints the same thing twice.
func TestSameScriptSameTrace(t *testing.T) {
	script := []string{
		"sim protocol=cops jitter=10ms seed=5",
		"session name=alice dc=a",
		"session name=carol dc=c",
		"trace on",
		"hold kind=Replicate to=c",
		"put alice key=X value=x1",
		"put alice key=Y value=y1",
		"run for=300ms",
		"deliver n=1",
		"unhold",
		"run for=2s",
		"get carol key=Y",
	}
	once := func() string {
		st := &state{t: t}
		var b strings.Builder
		for _, l := range script {
			b.WriteString(mustRun(t, st, l))
		}
		return b.String()
	}
	a := once()
	if n := strings.Count(a, "->"); n < 10 {
		t.Fatalf("only %d messages traced:\n%s", n, a)
	}
	if b := once(); a != b {
		t.Errorf("two runs of one script differ:\n%s\n---\n%s", a, b)
	}
}

// TestStabilizeWithHeldRetransmissions: stabilize stops at the first quiet
// step — here a gap between retransmissions that back off — and says how
// many messages it left held; once they flow it goes quiet with none.
func TestStabilizeWithHeldRetransmissions(t *testing.T) {
	st := &state{t: t}
	for _, l := range []string{"sim protocol=cops", "session name=alice dc=a", "hold kind=Replicate to=c", "put alice key=X value=x1"} {
		mustRun(t, st, l)
	}
	if got := mustRun(t, st, "stabilize step=5s limit=5s"); got != "not quiet at 5.001s (4 held)\n" {
		t.Errorf("stabilize for one 5s step = %q, want not quiet, 4 held (the send and 3 retries)", got)
	}
	got := mustRun(t, st, "stabilize")
	if !strings.HasPrefix(got, "quiet at ") || !strings.Contains(got, " held)") {
		t.Errorf("stabilize with a held, retransmitted Replicate = %q", got)
	}
	mustRun(t, st, "unhold")
	mustRun(t, st, "deliver")
	if got := mustRun(t, st, "stabilize"); !strings.HasPrefix(got, "quiet at ") || strings.Contains(got, "held") {
		t.Errorf("stabilize after delivery = %q", got)
	}
}
