package transport

import (
	"io"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/protobuf/types/known/wrapperspb"
)

// swapProxy is an address whose first connection reaches one transport
// and every later one another: a host name that resolved to a restarted
// container's old address, now another node's, and resolves right when
// dialled again.
type swapProxy struct {
	l           net.Listener
	first, rest string
	conns       atomic.Int64
	wg          sync.WaitGroup
}

func startSwapProxy(t *testing.T, first, rest string) *swapProxy {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &swapProxy{l: l, first: first, rest: rest}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			to := p.rest
			if p.conns.Add(1) == 1 {
				to = p.first
			}
			p.wg.Add(1)
			go func() {
				defer p.wg.Done()
				defer c.Close()
				s, err := net.Dial("tcp", to)
				if err != nil {
					return
				}
				defer s.Close()
				go func() { _, _ = io.Copy(s, c); _ = s.Close() }()
				_, _ = io.Copy(c, s)
			}()
		}
	}()
	t.Cleanup(func() { _ = l.Close() })
	return p
}

// TestLinkToTheWrongNodeDialsAgain: a link whose address reaches another
// node than its frames are for (that node's Accept refuses them) has its
// stream ended, drops its connection and dials again, and so reaches the
// right node once the address does. Without the redial gRPC would open
// every new stream on the first connection, and every frame would go to
// the wrong node for as long as the link lived.
func TestLinkToTheWrongNodeDialsAgain(t *testing.T) {
	wrong := start(t, "wrong", Config{Accept: func(to string) bool { return to == "b/s0" }})
	right := start(t, "right", Config{Accept: func(to string) bool { return to == "b/s1" }})
	proxy := startSwapProxy(t, wrong.Addr(), right.Addr())
	a := start(t, "a", Config{})
	deadline := time.Now().Add(patience)
	for i := int64(0); ; i++ {
		if err := a.Send(proxy.l.Addr().String(), "c/s1", "b/s1", wrapperspb.Int64(i)); err != nil {
			t.Fatal(err)
		}
		select {
		case d := <-right.inbox:
			if d.to != "b/s1" {
				t.Fatalf("the right node got a frame for %s", d.to)
			}
			if st := wrong.Stats(); st.Received != 0 || st.Dropped == 0 {
				t.Errorf("the wrong node: %+v; want frames dropped, none handed over", st)
			}
			if n := proxy.conns.Load(); n < 2 {
				t.Errorf("%d connections through the proxy, want a second one", n)
			}
			return
		case d := <-wrong.inbox:
			t.Fatalf("the wrong node's Handler got a frame for %s", d.to)
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("no frame reached the right node within %v: %d connections, a %+v, wrong %+v", patience, proxy.conns.Load(), a.Stats(), wrong.Stats())
		}
	}
}
