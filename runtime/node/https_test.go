package node

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/causeway/causeway/certs"
	"github.com/causeway/causeway/cluster"
	"github.com/causeway/causeway/transport"
	"github.com/causeway/causeway/wire/fullreppb"
)

// TestHTTPSTrustBoundary runs a tls cluster with the admin endpoints on:
// plain HTTP gets no answer, HTTPS without a certificate gets neither an
// admin action nor the metrics, the data client's certificate reads the
// metrics but takes no admin action, and only the admin certificate
// changes the links.
func TestHTTPSTrustBoundary(t *testing.T) {
	tc := newCluster(t, "cops")
	tc.useTLS()
	tc.startAdmin("a/s0")
	n := tc.cfg.Node("a/s0")

	// Plain HTTP: the connection is closed, nothing comes back in clear.
	conn, err := net.DialTimeout("tcp", n.HTTP, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.WriteString(conn, "POST /admin/links HTTP/1.1\r\nHost: x\r\nContent-Length: 34\r\n\r\n{\"peers_dc\":[\"c\"],\"cut_out\":true}\n"); err != nil {
		t.Fatal(err)
	}
	clear, _ := io.ReadAll(conn)
	conn.Close()
	if len(clear) != 0 {
		t.Errorf("plain HTTP was answered in clear: %q", clear)
	}

	pool := x509.NewCertPool()
	caPEM, err := os.ReadFile(filepath.Join(tc.cfg.CertsDir, certs.CAName+".crt"))
	if err != nil || !pool.AppendCertsFromPEM(caPEM) {
		t.Fatalf("CA: %v", err)
	}
	anonymous := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{
		RootCAs: pool, ServerName: certs.DefaultServerName, MinVersion: tls.VersionTLS13}}}
	clientTLS, err := certs.ClientConfig(tc.cfg.CertsDir, cluster.ClientCertName, "")
	if err != nil {
		t.Fatal(err)
	}
	dataClient := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: clientTLS}}
	cut := `{"peers_dc": ["c"], "cut_out": true}`
	for _, tcase := range []struct {
		who          string
		hc           *http.Client
		method, path string
		want         int
	}{
		{"no certificate", anonymous, http.MethodPost, cluster.AdminLinksPath, http.StatusForbidden},
		{"no certificate", anonymous, http.MethodPost, cluster.AdminClockPath, http.StatusForbidden},
		{"no certificate", anonymous, http.MethodGet, "/metrics", http.StatusUnauthorized},
		{"no certificate", anonymous, http.MethodGet, "/healthz", http.StatusUnauthorized},
		{"no certificate", anonymous, http.MethodGet, cluster.StatusPath, http.StatusUnauthorized},
		{"client certificate", dataClient, http.MethodPost, cluster.AdminLinksPath, http.StatusForbidden},
		{"client certificate", dataClient, http.MethodGet, "/metrics", http.StatusOK},
	} {
		code, body := tc.httpDo(tcase.hc, "a/s0", tcase.method, tcase.path, cut)
		if code != tcase.want {
			t.Errorf("%s: %s %s answered %d %s, want %d", tcase.who, tcase.method, tcase.path, code, body, tcase.want)
		}
	}
	if st := tc.linkState("a/s0"); len(st.Links) != 0 {
		t.Fatalf("a request without the admin certificate changed the links: %+v", st.Links)
	}
	// The admin certificate (cluster.Config.HTTPClient) does.
	if code, body := tc.adminDo("a/s0", http.MethodPost, cut); code != http.StatusOK {
		t.Fatalf("admin: %d %s", code, body)
	}
	if st := tc.linkState("a/s0"); len(st.Links) != 1 || !st.Links[0].CutOut {
		t.Errorf("the admin's cut is not in force: %+v", st.Links)
	}
}

// TestMetricsInsecure: with Options.MetricsInsecure the health, metrics
// and status answer a client without a certificate, the admin endpoints
// still do not.
func TestMetricsInsecure(t *testing.T) {
	ok := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })
	for _, tcase := range []struct {
		insecure bool
		path     string
		want     int
	}{
		{true, "/metrics", http.StatusOK},
		{true, "/healthz", http.StatusOK},
		{true, cluster.StatusPath, http.StatusOK},
		{true, cluster.AdminLinksPath, http.StatusForbidden},
		{false, "/metrics", http.StatusUnauthorized},
		{false, cluster.AdminClockPath, http.StatusForbidden},
	} {
		h := &host{https: true, metricsInsecure: tcase.insecure, log: slog.New(slog.DiscardHandler)}
		w := httptest.NewRecorder()
		h.authorize(ok).ServeHTTP(w, httptest.NewRequest(http.MethodGet, tcase.path, nil))
		if w.Code != tcase.want {
			t.Errorf("metrics insecure %v, %s without a certificate: %d %s, want %d", tcase.insecure, tcase.path, w.Code, strings.TrimSpace(w.Body.String()), tcase.want)
		}
	}
}

// TestClientCannotForgeANode: on a tls cluster a client holding the
// client certificate that sends a replication message as node b/s0 has it
// dropped: the write never becomes readable.
func TestClientCannotForgeANode(t *testing.T) {
	tc := newCluster(t, "cops")
	tc.useTLS()
	tc.start()
	ctx, cancel := context.WithTimeout(context.Background(), patience) // a hang guard
	defer cancel()
	clientTLS, err := certs.ClientConfig(tc.cfg.CertsDir, cluster.ClientCertName, "")
	if err != nil {
		t.Fatal(err)
	}
	forger, err := transport.New(transport.Config{ClientTLS: clientTLS})
	if err != nil {
		t.Fatal(err)
	}
	defer forger.Close()
	for _, id := range []string{"a/s0", "a/s1"} {
		if err := forger.Send(tc.cfg.Node(id).Addr, "b/s0", id, &fullreppb.Replicate{Key: "forged", Value: []byte("evil"), Version: 1 << 40}); err != nil {
			t.Fatal(err)
		}
	}
	alice := tc.session("a", DialOptions{OpTimeout: 2 * time.Second})
	deadline := time.Now().Add(time.Second)
	for time.Now().Before(deadline) {
		if v, found, err := alice.Get(ctx, "forged"); err == nil && found {
			t.Fatalf("a forged replication was applied: %q", v)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if !strings.Contains(tc.logs.String(), "does not vouch for") {
		t.Error("the nodes did not log the forged sender")
	}
}
