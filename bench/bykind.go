package bench

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"slices"
	"text/tabwriter"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/runtime/sim"
)

// WANByKind is a simulation's traffic between DCs broken down by message
// kind (SimSpec.WANByKind, causeway sim --wan-by-kind): where a protocol's
// wide-area bytes go, per put and per operation. It counts the messages
// delivered (handed to a node's Step), so a message lost to a partition or
// a crash is not in it, while wan_bytes counts every message sent.
type WANByKind struct {
	// Puts is the run's completed put operations (acknowledged or not),
	// the denominator of BytesPerPut; Ops all its operations.
	Puts int64 `json:"puts"`
	Ops  int64 `json:"ops"`
	// Kinds maps a message kind (its protobuf type's short name) to the
	// messages of that kind delivered across DCs and their payload bytes.
	Kinds map[string]KindTraffic `json:"kinds"`
}

// KindTraffic is one message kind's WAN traffic.
type KindTraffic struct {
	Messages int64 `json:"messages"`
	Bytes    int64 `json:"bytes"`
}

// traceWANByKind makes s count every message delivered across DCs into
// w's Kinds.
func traceWANByKind(s *sim.Sim, w *WANByKind) {
	w.Kinds = map[string]KindTraffic{}
	s.SetTrace(func(_ time.Duration, m protocol.Message) {
		if m.From.DC() == m.To.DC() {
			return
		}
		k := sim.Kind(m.Body)
		t := w.Kinds[k]
		t.Messages++
		t.Bytes += int64(proto.Size(m.Body))
		w.Kinds[k] = t
	})
}

// WriteKindTable prints r's WAN traffic by kind, largest first, each with
// its bytes per message, per put and per operation; it prints nothing
// when the run did not count it.
func WriteKindTable(w io.Writer, r *Result) error {
	k := r.WANByKind
	if k == nil {
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "wan kind\tmessages\tbytes\tbytes/msg\tmsgs/put\tbytes/put\tbytes/op\t\n")
	per := func(v, n int64) string {
		if n == 0 {
			return "-"
		}
		return fmt.Sprintf("%.1f", float64(v)/float64(n))
	}
	var total KindTraffic
	kinds := slices.SortedFunc(maps.Keys(k.Kinds), func(a, b string) int {
		return cmp.Or(cmp.Compare(k.Kinds[b].Bytes, k.Kinds[a].Bytes), cmp.Compare(a, b))
	})
	row := func(name string, t KindTraffic) {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%s\t%s\t%s\t\n", name, t.Messages, t.Bytes,
			per(t.Bytes, t.Messages), per(t.Messages, k.Puts), per(t.Bytes, k.Puts), per(t.Bytes, k.Ops))
	}
	for _, name := range kinds {
		t := k.Kinds[name]
		total.Messages += t.Messages
		total.Bytes += t.Bytes
		row(name, t)
	}
	row("(all)", total)
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "(delivered between DCs; %d puts, %d operations)\n", k.Puts, k.Ops)
	return err
}
