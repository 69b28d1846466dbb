package transport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/encoding"
	grpcproto "google.golang.org/grpc/encoding/proto"
	"google.golang.org/grpc/mem"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/causeway/causeway/wire"
	"github.com/causeway/causeway/wire/transportpb"
)

// linkServer serves the Link RPC: the incoming side of the transport.
type linkServer struct {
	transportpb.UnimplementedTransportServer
	t *Transport
}

// Link receives the frames of one incoming stream until it ends or the
// transport closes, and sends back on it the frames Reply queues for the
// node IDs it carried frames from.
func (s *linkServer) Link(stream transportpb.Transport_LinkServer) error {
	t := s.t
	peerAddr := "unknown"
	if p, ok := peer.FromContext(stream.Context()); ok && p.Addr != nil {
		peerAddr = p.Addr.String()
	}
	instance := ""
	if md, ok := metadata.FromIncomingContext(stream.Context()); ok {
		if v := md.Get(instanceKey); len(v) == 1 && len(v[0]) <= 64 {
			instance = v[0]
		}
	}
	back := t.newBackLink(peerAddr, instance)
	back.cert = peerCertName(stream.Context())
	// Receiving blocks, so it runs apart and the handler can return as soon
	// as the transport closes; returning ends the stream, which ends the
	// receiving goroutine. Close waits for it (the server waits for
	// handlers, so this Add happens before Close's Wait). The writer must
	// be done before the handler returns: gRPC forbids sending afterwards.
	done := make(chan error, 1)
	t.recvWG.Add(1)
	go func() {
		defer t.recvWG.Done()
		done <- t.receive(stream, peerAddr, back)
	}()
	wctx, stopWriter := context.WithCancel(stream.Context())
	written := make(chan struct{})
	go func() {
		defer close(written)
		back.write(wctx, stream)
	}()
	var err error
	select {
	case err = <-done:
	case <-t.closing:
		err = status.Error(codes.Unavailable, "transport: closing")
	}
	stopWriter()
	<-written
	t.endBackLink(back)
	return err
}

// receive hands the valid frames of stream to the Handler, in order, and
// drops the others; it claims reply routes on back for their senders. It
// returns when the stream ends.
func (t *Transport) receive(stream grpc.ServerStream, peerAddr string, back *backLink) error {
	for {
		var raw rawFrame
		if err := stream.RecvMsg(&raw); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		if raw.err != nil {
			t.dropped.Add(1)
			t.log.Warn("transport: dropped invalid frame", "peer", peerAddr, "bytes", raw.n, "err", raw.err)
			continue
		}
		for _, f := range raw.frames {
			if stop, err := t.receiveFrame(f, peerAddr, back); stop {
				return err
			}
		}
	}
}

// receiveFrame validates one received frame and hands it to the Handler,
// or drops it. It reports whether the stream ends (the transport is
// closing, or with an error).
func (t *Transport) receiveFrame(f *transportpb.Frame, peerAddr string, back *backLink) (stop bool, err error) {
	from, to, msg, err := checkBatched(f, t.cfg.MaxFrameBytes)
	if err != nil {
		t.dropped.Add(1)
		t.log.Warn("transport: dropped invalid frame", "peer", peerAddr, "bytes", proto.Size(f), "err", err)
		return false, nil
	}
	select {
	case <-t.closing:
		return true, nil
	default:
	}
	if t.cfg.Accept != nil && !t.cfg.Accept(to) {
		t.dropped.Add(1)
		t.log.Warn("transport: a frame for another node: ending the stream so that the sender dials again", "peer", peerAddr, "from", from, "to", to)
		return true, status.Errorf(codes.FailedPrecondition, "%s: frame for %s", ErrWrongNode.Error(), to)
	}
	if t.cfg.Sender != nil && !t.cfg.Sender(from, back.cert) {
		t.dropped.Add(1)
		t.log.Warn("transport: dropped a frame whose sender the connection's certificate does not vouch for", "peer", peerAddr, "from", from, "cert", back.cert)
		return false, nil
	}
	if !t.route(back, from, to, msg) {
		return false, nil
	}
	t.received.Add(1)
	if t.cfg.Handler != nil {
		t.cfg.Handler(from, to, msg)
	}
	return false, nil
}

// ErrWrongNode is why a receiver ends a stream whose frames are for a
// node it is not (Config.Accept); the sender's link dials again.
var ErrWrongNode = errors.New("transport: wrong node at this address")

// wrongNode reports whether err ended a stream because the peer refused
// it as the wrong node.
func wrongNode(err error) bool {
	var se interface{ GRPCStatus() *status.Status }
	if !errors.As(err, &se) {
		return false
	}
	st := se.GRPCStatus()
	return st.Code() == codes.FailedPrecondition && strings.HasPrefix(st.Message(), ErrWrongNode.Error())
}

// route claims the reply route to from for back when Config.Routable
// accepts from, and reports whether the frame goes on to the Handler: not
// when another connection holds the route, when no route is left (the
// sender gets a Refusal) or when the frame is a Goodbye (the route is
// released).
func (t *Transport) route(back *backLink, from, to string, msg proto.Message) bool {
	if t.cfg.Routable == nil || !t.cfg.Routable(from) {
		return true
	}
	if _, ok := msg.(*transportpb.Goodbye); ok {
		t.release(from, back)
		return false
	}
	switch t.claim(from, back) {
	case claimTaken:
		t.dropped.Add(1)
		t.log.Warn("transport: dropped a frame from a node ID another connection holds", "peer", back.peer, "from", from)
		return false
	case claimFull:
		t.dropped.Add(1)
		t.log.Warn("transport: refused a frame from a new node ID: reply routes exhausted", "peer", back.peer, "from", from, "limit", t.cfg.MaxRoutes)
		t.refuse(back, from, to, fmt.Sprintf("%s has as many client sessions as it accepts (limit %d)", to, t.cfg.MaxRoutes))
		return false
	}
	return true
}

// checkFrame validates a parsed frame and decodes its payload.
func checkFrame(f *transportpb.Frame, maxPayload int) (from, to string, msg proto.Message, err error) {
	if err := checkIDs(f.GetFrom(), f.GetTo()); err != nil {
		return "", "", nil, err
	}
	if n := len(f.GetPayload()); n > maxPayload {
		return "", "", nil, fmt.Errorf("transport: payload of %d bytes is over the %d-byte limit", n, maxPayload)
	}
	msg, err = wire.Decode(f.GetPayload())
	if err != nil {
		return "", "", nil, fmt.Errorf("transport: %w", err)
	}
	return f.GetFrom(), f.GetTo(), msg, nil
}

// rawFrame is a message of the Link stream as the server's codec hands it
// over: parsed into the frames it carries, or the reason it could not
// be, so that a malformed message is dropped by receive instead of
// failing inside gRPC, which would end the stream. Tests also send raw
// bytes with it (b).
type rawFrame struct {
	b      []byte // the serialized message to send (Marshal)
	n      int    // the received message's size
	frames []*transportpb.Frame
	err    error
}

// protoCodec is gRPC's protobuf codec, which rawCodec defers to for
// everything but rawFrame.
var protoCodec = encoding.GetCodecV2(grpcproto.Name)

// rawCodec is the server's codec (installed with grpc.ForceServerCodecV2,
// an API gRPC marks experimental): gRPC's protobuf codec, except that a
// rawFrame is (un)marshalled as its bytes, unparsed. Peers still speak
// plain protobuf over the standard application/grpc content type.
type rawCodec struct{}

// Marshal implements encoding.CodecV2.
func (rawCodec) Marshal(v any) (mem.BufferSlice, error) {
	if r, ok := v.(*rawFrame); ok {
		return mem.BufferSlice{mem.SliceBuffer(r.b)}, nil
	}
	return protoCodec.Marshal(v)
}

// Unmarshal implements encoding.CodecV2. A rawFrame gets the frames
// parsed from data (which gRPC frees when Unmarshal returns: the parsed
// frames hold copies), or the parse error; a message in one buffer, the
// usual case, is parsed where it lies, with no copy of the whole.
func (rawCodec) Unmarshal(data mem.BufferSlice, v any) error {
	if r, ok := v.(*rawFrame); ok {
		r.n = data.Len()
		var b []byte
		if len(data) == 1 {
			b = data[0].ReadOnlyData()
		} else {
			b = data.Materialize()
		}
		r.frames, r.err = unmarshalFrames(b)
		return nil
	}
	return protoCodec.Unmarshal(data, v)
}

// Name implements encoding.CodecV2: on the wire, frames are protobuf.
func (rawCodec) Name() string { return grpcproto.Name }

// peerCertName is the common name of the verified certificate the dialing
// peer of a stream presented, or "".
func peerCertName(ctx context.Context) string {
	p, ok := peer.FromContext(ctx)
	if !ok {
		return ""
	}
	ti, ok := p.AuthInfo.(credentials.TLSInfo)
	if !ok || len(ti.State.VerifiedChains) == 0 || len(ti.State.VerifiedChains[0]) == 0 {
		return ""
	}
	return ti.State.VerifiedChains[0][0].Subject.CommonName
}
