package node

import (
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"google.golang.org/protobuf/proto"
)

// metrics are a node's Prometheus metrics, in a registry of its own (so
// that several nodes can run in one process), each labelled with the node
// ID.
type metrics struct {
	reg         *prometheus.Registry
	received    byType
	sent        byType
	dropped     *prometheus.CounterVec // by reason
	writes      prometheus.Counter
	batches     *prometheus.CounterVec // by sync
	syncs       prometheus.Counter
	visible     prometheus.Counter
	replyTracks prometheus.GaugeFunc
	incarnation prometheus.Gauge
}

func newMetrics(nodeID string, queueDepth, sessionAddrs func() float64) *metrics {
	reg := prometheus.NewRegistry()
	labels := prometheus.Labels{"node": nodeID}
	m := &metrics{
		reg: reg,
		received: byType{vec: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "causeway_messages_received_total", Help: "Protocol messages received, by message type.", ConstLabels: labels,
		}, []string{"type"})},
		sent: byType{vec: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "causeway_messages_sent_total", Help: "Protocol messages handed to the transport, by message type.", ConstLabels: labels,
		}, []string{"type"})},
		dropped: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "causeway_messages_dropped_total", Help: "Protocol messages dropped by the node host, by reason.", ConstLabels: labels,
		}, []string{"reason"}),
		writes: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "causeway_storage_writes_total", Help: "Storage writes applied.", ConstLabels: labels,
		}),
		batches: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "causeway_storage_batches_total", Help: "Storage batches applied (one per Ready that persists), by whether they were synced.", ConstLabels: labels,
		}, []string{"sync"}),
		syncs: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "causeway_storage_syncs_total", Help: "Write-ahead log syncs of the group commit, each shared by every synced batch applied since the previous one.", ConstLabels: labels,
		}),
		visible: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "causeway_writes_visible_total", Help: "Writes the node reported readable.", ConstLabels: labels,
		}),
	}
	m.incarnation = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "causeway_node_incarnation", Help: "The node's boot counter: 1 on its first start, one more at each restart.", ConstLabels: labels,
	})
	queue := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "causeway_queue_depth", Help: "Inputs waiting in the node's queue.", ConstLabels: labels,
	}, queueDepth)
	m.replyTracks = prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "causeway_client_sessions", Help: "Client sessions connected to the node (reply routes).", ConstLabels: labels,
	}, sessionAddrs)
	reg.MustRegister(m.received.vec, m.sent.vec, m.dropped, m.writes, m.batches, m.syncs, m.visible, queue, m.replyTracks, m.incarnation,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	// Every drop reason appears from the start, at zero.
	for _, r := range []string{dropUnknownNode, dropWrongNode, dropSendFailed, dropQueueClosed, dropLinkCut, dropNoRoute, dropRefused} {
		m.dropped.WithLabelValues(r)
	}
	return m
}

// Drop reasons.
const (
	dropUnknownNode = "unknown_destination" // no address for the destination
	dropWrongNode   = "wrong_node"          // a frame addressed to another node
	dropSendFailed  = "send_failed"         // the transport refused it (queue full, closed)
	dropQueueClosed = "stopped"             // arrived while the node was stopping
	dropLinkCut     = "link_cut"            // from a datacenter cut off by the link controls (cut_in)
	dropNoRoute     = "session_gone"        // a reply for a session whose connection has closed
	dropRefused     = "refused"             // a client frame over a limit, answered with a Refusal
)

// byType is a counter by message type. Every frame counts once, so the
// counter of each type is looked up by the message's Go type, once:
// CounterVec.WithLabelValues hashes the label and takes a lock per call.
type byType struct {
	vec *prometheus.CounterVec
	m   sync.Map // protoreflect.MessageType → prometheus.Counter
}

// inc counts one message of msg's type.
func (b *byType) inc(msg proto.Message) {
	if msg == nil {
		b.vec.WithLabelValues(typeName(msg)).Inc()
		return
	}
	t := msg.ProtoReflect().Type()
	c, ok := b.m.Load(t)
	if !ok {
		c, _ = b.m.LoadOrStore(t, b.vec.WithLabelValues(typeName(msg)))
	}
	c.(prometheus.Counter).Inc()
}

// typeName is the label of a message's type.
func typeName(m proto.Message) string {
	if m == nil {
		return "nil"
	}
	return string(proto.MessageName(m))
}
