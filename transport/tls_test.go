package transport

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
	"net"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/types/known/wrapperspb"
)

// testCA is a certificate authority made for one test.
type testCA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	pool *x509.CertPool
}

func newSerial(t *testing.T) *big.Int {
	t.Helper()
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 64))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func newCA(t *testing.T, name string) *testCA {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          newSerial(t),
		Subject:               pkix.Name{CommonName: name},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return &testCA{cert: cert, key: key, pool: pool}
}

// issue makes a node certificate, good as server (for 127.0.0.1) and as
// client.
func (ca *testCA) issue(t *testing.T, name string) tls.Certificate {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: newSerial(t),
		Subject:      pkix.Name{CommonName: name},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1)},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

// mtls returns the server and client TLS configurations of a node holding
// cert and trusting ca.
func mtls(cert tls.Certificate, ca *testCA) (server, client *tls.Config) {
	server = &tls.Config{
		Certificates: []tls.Certificate{cert},
		ClientCAs:    ca.pool,
		ClientAuth:   tls.RequireAndVerifyClientCert,
		MinVersion:   tls.VersionTLS13,
	}
	client = &tls.Config{
		Certificates: []tls.Certificate{cert},
		RootCAs:      ca.pool,
		MinVersion:   tls.VersionTLS13,
	}
	return server, client
}

func TestMutualTLS(t *testing.T) {
	ca, otherCA := newCA(t, "causeway test CA"), newCA(t, "another CA")
	aServer, aClient := mtls(ca.issue(t, "a"), ca)
	bServer, bClient := mtls(ca.issue(t, "b"), ca)
	a := start(t, "a", Config{TLS: aServer, ClientTLS: aClient})
	b := start(t, "b", Config{TLS: bServer, ClientTLS: bClient})

	sendInts(t, a.Transport, b.Addr(), "dc1/s0", "dc2/s0", 0, 3)
	b.expectInts(t, "dc1/s0", 0, 1, 2)
	sendInts(t, b.Transport, a.Addr(), "dc2/s0", "dc1/s0", 0, 3)
	a.expectInts(t, "dc2/s0", 0, 1, 2)

	// A node whose certificate comes from another CA trusts b's
	// certificate, but b does not trust it: nothing it sends gets through,
	// and its link keeps failing and retrying.
	rogueServer, rogueClient := mtls(otherCA.issue(t, "rogue"), otherCA)
	rogueClient.RootCAs = ca.pool
	rogue := start(t, "rogue", Config{TLS: rogueServer, ClientTLS: rogueClient})
	down := linkEvents(rogue.Transport)
	if err := rogue.Send(b.Addr(), "dc3/s0", "dc2/s0", wrapperspb.Int64(666)); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		t.Logf("rogue link failure %d: %v", i, waitEvent(t, down, "failure of the rogue link"))
	}
	if st := rogue.Stats(); st.Reconnects < 2 {
		t.Errorf("rogue stats %+v, want reconnect attempts", st)
	}
	// a's link still works, and b only ever heard from a.
	sendInts(t, a.Transport, b.Addr(), "dc1/s0", "dc2/s0", 3, 4)
	b.expectInts(t, "dc1/s0", 3)
	if n := len(b.inbox); n != 0 {
		t.Fatalf("b's handler got %d more messages: %v", n, (<-b.inbox).msg)
	}
	if st := b.Stats(); st.Received != 4 {
		t.Errorf("b received %d frames, want only a's 4", st.Received)
	}
}

// TestSenderBoundToCertificate: with Config.Sender, a frame claiming to
// come from a node is taken only on a stream whose peer holds that node's
// certificate; a client's certificate can send as its sessions, not as
// the node.
func TestSenderBoundToCertificate(t *testing.T) {
	ca := newCA(t, "causeway test CA")
	srvServer, srvClient := mtls(ca.issue(t, "dc2/s0"), ca)
	nodeServer, nodeClient := mtls(ca.issue(t, "dc1/s0"), ca)
	_, clientClient := mtls(ca.issue(t, "client"), ca)
	srv := start(t, "srv", Config{TLS: srvServer, ClientTLS: srvClient, Sender: func(from, peer string) bool {
		return from != "dc1/s0" || peer == "dc1/s0"
	}})
	node := start(t, "node", Config{TLS: nodeServer, ClientTLS: nodeClient})
	cli := start(t, "cli", Config{Self: dialOnly, ClientTLS: clientClient})

	sendInts(t, node.Transport, srv.Addr(), "dc1/s0", "dc2/s0", 0, 1)
	srv.expectInts(t, "dc1/s0", 0)
	sendInts(t, cli.Transport, srv.Addr(), "dc1/s0", "dc2/s0", 666, 667) // forged
	sendInts(t, cli.Transport, srv.Addr(), "dc1/c1", "dc2/s0", 1, 2)     // its own session
	srv.expectInts(t, "dc1/c1", 1)
	if w := strings.Join(srv.logs.warnings(), "\n"); !strings.Contains(w, "does not vouch for") {
		t.Errorf("no warning about the forged sender; warnings:\n%s", w)
	}
}
