package node

import (
	"context"
	"crypto/tls"
	"net"
	"net/http"
	"path"
	"strings"

	"github.com/causeway/causeway/cluster"
)

// The node's http address is the cluster's trust boundary as much as its
// transport address: with tls: true it serves HTTPS only, with the
// node's certificate, and asks for a client certificate of the cluster's
// CA. authorize then requires one:
//
//   - /admin/* (the link and clock controls) answer only a client
//     presenting the cluster.AdminCertName certificate (403 otherwise);
//   - /healthz, /metrics and /status answer any certificate of the CA,
//     or none when Options.MetricsInsecure says so (401 otherwise).
//
// A plain HTTP request to the port gets no answer at all: the connection
// is closed after the failed handshake (tlsOnly), not answered with
// net/http's plaintext "400 Client sent an HTTP request to an HTTPS
// server".
//
// Without tls the port serves plain HTTP to anyone, and the admin
// endpoints (Options.Admin) with it: RunWithOptions logs that loudly.

// connKey keys the connection in a request's context (http.Server's
// ConnContext), where authorize finds its TLS state.
type connKey struct{}

// tlsOnly is a server-side TLS connection that net/http does not know
// for one: it cannot answer a plaintext request in plaintext. Its
// handshake runs on first read, under the server's read deadline.
type tlsOnly struct{ *tls.Conn }

// tlsOnlyListener wraps the accepted connections of a listener in TLS.
type tlsOnlyListener struct {
	net.Listener
	cfg *tls.Config
}

// Accept implements net.Listener.
func (l tlsOnlyListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return tlsOnly{tls.Server(c, l.cfg)}, nil
}

// httpTLS is the node's HTTPS configuration: its transport's server
// configuration, with the client certificate asked for but checked by
// authorize (so that the metrics can be opened to clients without one).
func httpTLS(server *tls.Config) *tls.Config {
	c := server.Clone()
	c.ClientAuth = tls.VerifyClientCertIfGiven
	return c
}

// connContext records the connection in the request context.
func connContext(ctx context.Context, c net.Conn) context.Context {
	return context.WithValue(ctx, connKey{}, c)
}

// peerName is the common name of the verified client certificate of r's
// connection, and whether there is one.
func peerName(r *http.Request) (string, bool) {
	c, ok := r.Context().Value(connKey{}).(tlsOnly)
	if !ok {
		return "", false
	}
	st := c.ConnectionState()
	if len(st.VerifiedChains) == 0 || len(st.VerifiedChains[0]) == 0 {
		return "", false
	}
	return st.VerifiedChains[0][0].Subject.CommonName, true
}

// authorize guards next as the package comment above says, when the node
// serves HTTPS (h.https).
func (h *host) authorize(next http.Handler) http.Handler {
	if !h.https {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name, ok := peerName(r)
		// The path as the mux will route it too (it redirects an unclean
		// one there).
		clean := path.Clean("/" + r.URL.Path)
		switch {
		case clean == "/admin" || strings.HasPrefix(clean, "/admin/") || strings.HasPrefix(r.URL.Path, "/admin/"):
			if !ok || name != cluster.AdminCertName {
				h.log.Warn("admin request refused: no admin certificate", "remote", r.RemoteAddr, "method", r.Method, "path", r.URL.Path, "cert", name)
				writeError(w, http.StatusForbidden, "%s requires the cluster's %q client certificate", r.URL.Path, cluster.AdminCertName)
				return
			}
		case !ok && !h.metricsInsecure:
			writeError(w, http.StatusUnauthorized, "%s requires a client certificate of the cluster's CA (or the node's --metrics-insecure)", r.URL.Path)
			return
		}
		next.ServeHTTP(w, r)
	})
}
