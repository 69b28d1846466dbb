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
	}
	f, n, brief, err := filter(d)
	if err != nil {
		return "", err
	}
	switch d.Cmd {
	case "held":
		if n != 0 || f != (sim.Filter{}) {
			return "", fmt.Errorf("held takes no filter (only brief)")
		}
		return heldLines(st.sim.Held(), brief), nil
	case "hold":
		if brief {
			return "", fmt.Errorf("hold takes no brief")
		}
		if f.Kind == "" {
			return "", fmt.Errorf("hold needs kind=K (kind=* holds every kind)")
		}
		if n != 0 {
			return "", fmt.Errorf("hold takes no n")
		}
		st.sim.Hold(f)
		return "ok\n", nil
	case "unhold":
		if n != 0 || brief {
			return "", fmt.Errorf("unhold takes no n or brief")
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
		return heldLines(out, brief), nil
	default: // drop
		return heldLines(st.sim.Drop(f, n), brief), nil
	}
}

// filter reads kind=, from=, to=, n= (0 if absent) and brief.
func filter(d *datadriven.TestData) (f sim.Filter, n int, brief bool, err error) {
	for _, a := range d.CmdArgs {
		if a.Key == "brief" && len(a.Vals) == 0 {
			brief = true
			continue
		}
		if len(a.Vals) != 1 {
			return f, 0, false, fmt.Errorf("%s: %s needs one value", d.Cmd, a.Key)
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
			if n, err = strconv.Atoi(v); err != nil || n <= 0 {
				return f, 0, false, fmt.Errorf("%s: n=%s is not a positive count", d.Cmd, v)
			}
		default:
			return f, 0, false, fmt.Errorf("%s: unknown argument %s (kind, from, to, n, brief)", d.Cmd, a.Key)
		}
	}
	return f, n, brief, nil
}

// heldLines prints messages one per line; brief leaves out their fields.
func heldLines(ms []sim.HeldMessage, brief bool) string {
	if len(ms) == 0 {
		return "none\n"
	}
	var b strings.Builder
	for _, m := range ms {
		if brief {
			fmt.Fprintf(&b, "%s -> %s %s\n", m.From, m.To, m.Kind)
			continue
		}
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
