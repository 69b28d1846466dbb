package scenario

import (
	"fmt"
	"strings"
	"time"

	"github.com/cockroachdb/datadriven"

	"github.com/causeway/causeway/bench"
	"github.com/causeway/causeway/protocol"
)

// pendingOp is a session's submitted operation; rep is set when it
// completes.
type pendingOp struct {
	cmd   string // put, get, txn or wtxn
	req   protocol.Request
	start time.Duration
	rep   *protocol.Reply
	end   time.Duration
}

// op runs put, get and txn: submit, then await.
func (st *state) op(d *datadriven.TestData) (string, error) {
	if len(d.CmdArgs) == 0 {
		return "", fmt.Errorf("%s needs a session name first", d.Cmd)
	}
	name := d.CmdArgs[0].Key
	if err := st.submit(name, d.Cmd, d.CmdArgs[1:]); err != nil {
		return "", err
	}
	return st.await(name)
}

// submitCmd runs "submit S put|get|txn|wtxn …".
func (st *state) submitCmd(d *datadriven.TestData) (string, error) {
	if len(d.CmdArgs) < 2 {
		return "", fmt.Errorf("submit needs a session name and an operation (put, get, txn or wtxn)")
	}
	if err := st.submit(d.CmdArgs[0].Key, d.CmdArgs[1].Key, d.CmdArgs[2:]); err != nil {
		return "", err
	}
	st.sim.RunUntil(st.sim.Now())
	return "ok\n", nil
}

// awaitCmd runs "await S".
func (st *state) awaitCmd(d *datadriven.TestData) (string, error) {
	if len(d.CmdArgs) == 0 {
		return "", fmt.Errorf("await needs a session name")
	}
	return st.await(d.CmdArgs[0].Key)
}

// submit starts operation cmd with arguments args on session name.
func (st *state) submit(name, cmd string, args []datadriven.CmdArg) error {
	id, ok := st.sessions[name]
	if !ok {
		return fmt.Errorf("no session %q", name)
	}
	if st.pending[name] != nil {
		return fmt.Errorf("session %s already has an operation outstanding (await it first)", name)
	}
	req, err := request(cmd, args)
	if err != nil {
		return err
	}
	p := &pendingOp{cmd: cmd, req: req, start: st.sim.Now()}
	err = st.sim.Submit(id, req, func(now time.Duration, r protocol.Reply) {
		p.rep, p.end = &r, now
		st.ops = append(st.ops, bench.HistoryOp(name, id.DC(), req, r, p.start, now))
	})
	if err != nil {
		return err
	}
	st.pending[name] = p
	return nil
}

// request builds the request of operation cmd from its arguments.
func request(cmd string, args []datadriven.CmdArg) (protocol.Request, error) {
	arg := func(key string) (string, bool) {
		for _, a := range args {
			if a.Key == key && len(a.Vals) == 1 {
				return a.Vals[0], true
			}
		}
		return "", false
	}
	switch cmd {
	case "txn":
		for _, a := range args {
			if a.Key == "keys" && len(a.Vals) > 0 {
				return protocol.Request{Op: protocol.OpReadTxn, Keys: a.Vals}, nil
			}
		}
		return protocol.Request{}, fmt.Errorf("txn needs keys=(k1,k2,…)")
	case "wtxn":
		var writes []protocol.KV
		for _, a := range args {
			if len(a.Vals) == 1 {
				writes = append(writes, protocol.KV{Key: a.Key, Value: []byte(a.Vals[0])})
			}
		}
		if len(writes) == 0 {
			return protocol.Request{}, fmt.Errorf("wtxn needs K1=V1 K2=V2 …")
		}
		return protocol.Request{Op: protocol.OpWriteTxn, Writes: writes}, nil
	case "get", "put":
		key, ok := arg("key")
		if !ok {
			return protocol.Request{}, fmt.Errorf("%s needs key=K", cmd)
		}
		if cmd == "get" {
			return protocol.Request{Op: protocol.OpGet, Key: key}, nil
		}
		v, ok := arg("value")
		if !ok {
			return protocol.Request{}, fmt.Errorf("put needs value=V")
		}
		return protocol.Request{Op: protocol.OpPut, Key: key, Value: []byte(v)}, nil
	}
	return protocol.Request{}, fmt.Errorf("unknown operation %q (put, get, txn or wtxn)", cmd)
}

// await runs until session name's outstanding operation completes, at
// most opLimit of virtual time, and renders its result.
func (st *state) await(name string) (string, error) {
	p := st.pending[name]
	if p == nil {
		return "", fmt.Errorf("session %q has no operation outstanding", name)
	}
	for from, step := st.sim.Now(), st.sim.Now(); p.rep == nil && step < from+opLimit; {
		step += time.Millisecond
		st.sim.RunUntil(step)
	}
	if p.rep == nil {
		return "", fmt.Errorf("%s of %s did not complete within %v of virtual time", p.cmd, name, opLimit)
	}
	delete(st.pending, name)
	return p.result(), nil
}

// result renders a completed operation as one line.
func (p *pendingOp) result() string {
	rep := p.rep
	lat := fmt.Sprintf("(%.1fms)", float64(p.end-p.start)/float64(time.Millisecond))
	if len(rep.Tags) > 0 {
		lat += " [" + strings.Join(rep.Tags, ",") + "]"
	}
	switch {
	case rep.Err != protocol.OK:
		return fmt.Sprintf("error: %v %s\n", rep.Err, lat)
	case p.cmd == "put" || p.cmd == "wtxn":
		return "ok " + lat + "\n"
	case p.cmd == "txn":
		var parts []string
		for _, kv := range rep.Reads {
			v := "<none>"
			if kv.Value != nil {
				v = string(kv.Value)
			}
			parts = append(parts, kv.Key+"="+v)
		}
		return strings.Join(parts, " ") + " " + lat + "\n"
	case rep.Value == nil:
		return fmt.Sprintf("%s=<none> %s\n", p.req.Key, lat)
	default:
		return fmt.Sprintf("%s=%s %s\n", p.req.Key, rep.Value, lat)
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
