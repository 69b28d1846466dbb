package node

import (
	"net"
	"strconv"
	"strings"
	"testing"

	"github.com/causeway/causeway/protocol"
)

// FuzzSessionAddr: the reply address a node takes from the sender of a
// frame (any bytes a client sends) is either rejected or a host:port with
// a host and a port in 1..65535 that SessionID encodes back to itself.
func FuzzSessionAddr(f *testing.F) {
	for _, s := range []string{
		string(SessionID("a", "c1-0000abcd", "127.0.0.1:4567")),
		"a/x@y@[::1]:80", "a/s0", "a/c1@127.0.0.1", "a/c1@:80", "a/c1@127.0.0.1:99999",
		"a/c1@h:+80", "a/c1@[::1%eth0]:1", "@h:1", "a@h:1", "/@h:1", "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, id string) {
		addr, ok := SessionAddr(protocol.NodeID(id))
		if !ok {
			if addr != "" {
				t.Fatalf("SessionAddr(%q) = %q, false", id, addr)
			}
			return
		}
		if !strings.HasSuffix(id, "@"+addr) || strings.Contains(addr, "@") {
			t.Fatalf("SessionAddr(%q) = %q: not what follows the last '@'", id, addr)
		}
		host, port, err := net.SplitHostPort(addr)
		n, perr := strconv.Atoi(port)
		if err != nil || host == "" || perr != nil || n < 1 || n > 65535 {
			t.Fatalf("SessionAddr(%q) = %q: not host:port with a port in 1..65535", id, addr)
		}
		again, ok := SessionAddr(SessionID("a", "c1", addr))
		if !ok || again != addr {
			t.Fatalf("SessionAddr(SessionID(a, c1, %q)) = %q, %v", addr, again, ok)
		}
	})
}
