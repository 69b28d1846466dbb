package scenario

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/cockroachdb/datadriven"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/runtime/sim"
)

// message runs hold, unhold, held, deliver, drop and trace.
func (st *state) message(d *datadriven.TestData) (string, error) {
	switch d.Cmd {
	case "trace":
		if len(d.CmdArgs) != 1 || (d.CmdArgs[0].Key != "on" && d.CmdArgs[0].Key != "off") {
			return "", fmt.Errorf("trace takes on or off")
		}
		st.tracing = d.CmdArgs[0].Key == "on"
		return "ok\n", nil
	case "held":
		return heldLines(st.sim.Held()), nil
	}
	f, n, err := filter(d)
	if err != nil {
		return "", err
	}
	switch d.Cmd {
	case "hold":
		if f.Kind == "" {
			return "", fmt.Errorf("hold needs kind=K (kind=* holds every kind)")
		}
		if n != 0 {
			return "", fmt.Errorf("hold takes no n")
		}
		st.sim.Hold(f)
		return "ok\n", nil
	case "unhold":
		if n != 0 {
			return "", fmt.Errorf("unhold takes no n")
		}
		removed := 0
		if len(d.CmdArgs) == 0 {
			removed = st.sim.UnholdAll()
		} else {
			removed = st.sim.Unhold(f)
		}
		if removed == 0 {
			return "", fmt.Errorf("no hold rule %v to remove (rules: %v)", f, st.sim.HoldRules())
		}
		return fmt.Sprintf("removed %d\n", removed), nil
	case "deliver":
		out := st.sim.Deliver(f, n)
		st.sim.RunUntil(st.sim.Now())
		return heldLines(out), nil
	default: // drop
		return heldLines(st.sim.Drop(f, n)), nil
	}
}

// filter reads kind=, from=, to= and n= (0 if absent).
func filter(d *datadriven.TestData) (sim.Filter, int, error) {
	var f sim.Filter
	n := 0
	for _, a := range d.CmdArgs {
		if len(a.Vals) != 1 {
			return f, 0, fmt.Errorf("%s: %s needs one value", d.Cmd, a.Key)
		}
		v := a.Vals[0]
		if v == "*" && a.Key != "n" {
			v = "" // the same as leaving the field out, so unhold finds the rule
		}
		switch a.Key {
		case "kind":
			f.Kind = v
		case "from":
			f.From = v
		case "to":
			f.To = v
		case "n":
			var err error
			if n, err = strconv.Atoi(v); err != nil || n <= 0 {
				return f, 0, fmt.Errorf("%s: n=%s is not a positive count", d.Cmd, v)
			}
		default:
			return f, 0, fmt.Errorf("%s: unknown argument %s (kind, from, to, n)", d.Cmd, a.Key)
		}
	}
	return f, n, nil
}

func heldLines(ms []sim.HeldMessage) string {
	if len(ms) == 0 {
		return "none\n"
	}
	var b strings.Builder
	for _, m := range ms {
		b.WriteString(m.String())
		b.WriteString("\n")
	}
	return b.String()
}

// heldNote says how many messages are held, if any.
func (st *state) heldNote() string {
	if n := len(st.sim.Held()); n > 0 {
		return fmt.Sprintf(" (%d held)", n)
	}
	return ""
}

// traced is the simulator's trace hook: it keeps the line while tracing.
func (st *state) traced(_ time.Duration, m protocol.Message) {
	if st.tracing {
		st.trace = append(st.trace, fmt.Sprintf("%s -> %s %s", m.From, m.To, sim.FormatMessage(m.Body)))
	}
}
