package certs

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// generate writes a CA, nodes a/s0 and b/s0 and client "client" into a new
// temporary directory.
func generate(t *testing.T, opts Options) string {
	t.Helper()
	dir := t.TempDir()
	opts.Nodes = []string{"a/s0", "b/s0"}
	opts.Clients = []string{"client"}
	if err := Generate(dir, opts); err != nil {
		t.Fatal(err)
	}
	return dir
}

// accepted is what the test server saw of one connection: the handshake's
// error, or the common name of the client that completed it.
type accepted struct {
	peer string
	err  error
}

// serve starts a TLS echo server on 127.0.0.1 with cfg and returns its
// address and a channel receiving one accepted per connection.
func serve(t *testing.T, cfg *tls.Config) (string, <-chan accepted) {
	t.Helper()
	ln, err := tls.Listen("tcp", "127.0.0.1:0", cfg)
	if err != nil {
		t.Fatal(err)
	}
	results := make(chan accepted, 16)
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return // listener closed
			}
			wg.Go(func() {
				defer c.Close()
				tc := c.(*tls.Conn)
				tc.SetDeadline(time.Now().Add(10 * time.Second))
				if err := tc.Handshake(); err != nil {
					results <- accepted{err: err}
					return
				}
				results <- accepted{peer: tc.ConnectionState().PeerCertificates[0].Subject.CommonName}
				io.Copy(tc, tc)
			})
		}
	})
	t.Cleanup(func() {
		ln.Close()
		wg.Wait()
	})
	return ln.Addr().String(), results
}

// exchange dials addr with cfg, writes a message and reads it back. In TLS
// 1.3 the client's handshake finishes before the server has checked the
// client's certificate, so a refusal shows up as an error on the read.
func exchange(addr string, cfg *tls.Config) error {
	c, err := tls.Dial("tcp", addr, cfg)
	if err != nil {
		return err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	msg := []byte("causeway says hello")
	if _, err := c.Write(msg); err != nil {
		return err
	}
	got := make([]byte, len(msg))
	if _, err := io.ReadFull(c, got); err != nil {
		return err
	}
	if !bytes.Equal(got, msg) {
		return &echoError{got}
	}
	return nil
}

type echoError struct{ got []byte }

func (e *echoError) Error() string { return "echo returned " + string(e.got) }

func serverConfig(t *testing.T, dir, name string) *tls.Config {
	t.Helper()
	cfg, err := ServerConfig(dir, name)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

func clientConfig(t *testing.T, dir, name string) *tls.Config {
	t.Helper()
	cfg, err := ClientConfig(dir, name, "")
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// TestValidClientsEcho: a client, and a node dialing another node, both
// complete a handshake and get their bytes echoed, over 127.0.0.1 and the
// default server name "localhost".
func TestValidClientsEcho(t *testing.T) {
	dir := generate(t, Options{})
	addr, results := serve(t, serverConfig(t, dir, "a/s0"))
	for _, name := range []string{"client", "b/s0"} {
		if err := exchange(addr, clientConfig(t, dir, name)); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if r := <-results; r.err != nil || r.peer != name {
			t.Errorf("%s: server saw peer %q, error %v", name, r.peer, r.err)
		}
	}
	// By IP address too: the default hosts include 127.0.0.1.
	cfg, err := ClientConfig(dir, "client", "127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	if err := exchange(addr, cfg); err != nil {
		t.Fatalf("server name 127.0.0.1: %v", err)
	}
	<-results
}

// TestRefusals: the server refuses a client without a certificate, one with
// a certificate from another CA, and one whose certificate has expired;
// and a client refuses a server its certificate was not issued for.
func TestRefusals(t *testing.T) {
	dir := generate(t, Options{})
	addr, results := serve(t, serverConfig(t, dir, "a/s0"))

	refused := func(name string, cfg *tls.Config, want string) {
		t.Helper()
		if err := exchange(addr, cfg); err == nil {
			t.Errorf("%s: exchange succeeded; want it refused", name)
		}
		if r := <-results; r.err == nil || !strings.Contains(r.err.Error(), want) {
			t.Errorf("%s: server handshake error %v; want one containing %q", name, r.err, want)
		}
	}

	// (b) No certificate, though the client trusts the server.
	noCert := clientConfig(t, dir, "client")
	noCert.Certificates = nil
	refused("no certificate", noCert, "didn't provide a certificate")

	// (c) A certificate from a second CA; the client itself trusts the
	// server's CA, so it is the server that says no.
	other := generate(t, Options{})
	otherCA := clientConfig(t, dir, "client")
	otherCA.Certificates = clientConfig(t, other, "client").Certificates
	refused("other CA", otherCA, "unknown authority")

	// (d) Certificates made two days ago that lasted an hour. The expired
	// client dials a server of its own CA; its clock is set back into the
	// hour so that it accepts the (equally expired) server and the refusal
	// is the server's.
	then := time.Now().Add(-48 * time.Hour)
	old := generate(t, Options{Now: func() time.Time { return then }, Validity: time.Hour})
	oldAddr, oldResults := serve(t, serverConfig(t, old, "a/s0"))
	expired := clientConfig(t, old, "client")
	expired.Time = func() time.Time { return then.Add(30 * time.Minute) }
	if err := exchange(oldAddr, expired); err == nil {
		t.Error("expired certificate: exchange succeeded; want it refused")
	}
	if r := <-oldResults; r.err == nil || !strings.Contains(r.err.Error(), "expired") {
		t.Errorf("expired certificate: server handshake error %v; want one about expiry", r.err)
	}
	// The same certificates within their hour work, so expiry was the reason.
	oldServer := serverConfig(t, old, "a/s0")
	oldServer.Time = expired.Time
	oldAddr, oldResults = serve(t, oldServer)
	if err := exchange(oldAddr, expired); err != nil {
		t.Errorf("within validity: %v", err)
	}
	<-oldResults

	// A client refuses a server whose certificate is not for the name it
	// dialed.
	wrongName, err := ClientConfig(dir, "client", "elsewhere.example")
	if err != nil {
		t.Fatal(err)
	}
	if err := exchange(addr, wrongName); err == nil || !strings.Contains(err.Error(), "elsewhere.example") {
		t.Errorf("wrong server name: %v; want a refusal naming it", err)
	}
	<-results
}

// TestRefusesToOverwriteCA (e): a second Generate into the same directory
// fails without Force and leaves the CA alone; with Force it replaces it.
func TestRefusesToOverwriteCA(t *testing.T) {
	dir := generate(t, Options{})
	before, err := os.ReadFile(filepath.Join(dir, "ca.key"))
	if err != nil {
		t.Fatal(err)
	}
	err = Generate(dir, Options{Clients: []string{"client"}})
	if !errors.Is(err, ErrCAExists) || !strings.Contains(err.Error(), "ca.key") || !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("second Generate: %v; want an error saying ca.key already exists", err)
	}
	if after, _ := os.ReadFile(filepath.Join(dir, "ca.key")); !bytes.Equal(before, after) {
		t.Fatal("refused Generate changed ca.key")
	}
	if err := Generate(dir, Options{Clients: []string{"client"}, Force: true}); err != nil {
		t.Fatalf("Generate with Force: %v", err)
	}
	if after, _ := os.ReadFile(filepath.Join(dir, "ca.key")); bytes.Equal(before, after) {
		t.Fatal("Generate with Force kept the old ca.key")
	}
}

// TestFiles (f): the files are where the names say, keys are 0600, and the
// certificates carry the names, usages and hosts they should.
func TestFiles(t *testing.T) {
	dir := t.TempDir()
	// A key left 0644 by something else must come out 0600 when replaced.
	if err := os.WriteFile(filepath.Join(dir, "client.key"), []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := Generate(dir, Options{Nodes: []string{"a/s0"}, Clients: []string{"client"}, Hosts: []string{"node-a.internal", "10.0.0.1"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"ca.key", "a_s0.key", "client.key"} {
		fi, err := os.Stat(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("%s has mode %v; want 0600", f, fi.Mode().Perm())
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if got, want := strings.Join(names, " "), "a_s0.crt a_s0.key ca.crt ca.key client.crt client.key"; got != want {
		t.Errorf("files %q; want %q", got, want)
	}

	node, client := readTestCert(t, dir, "a_s0.crt"), readTestCert(t, dir, "client.crt")
	if node.Subject.CommonName != "a/s0" || client.Subject.CommonName != "client" {
		t.Errorf("common names %q, %q", node.Subject.CommonName, client.Subject.CommonName)
	}
	if !hasUsages(node, x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth) || !hasUsages(client, x509.ExtKeyUsageClientAuth) || hasUsages(client, x509.ExtKeyUsageServerAuth) {
		t.Errorf("usages: node %v, client %v", node.ExtKeyUsage, client.ExtKeyUsage)
	}
	if node.VerifyHostname("node-a.internal") != nil || node.VerifyHostname("10.0.0.1") != nil || node.VerifyHostname("localhost") == nil {
		t.Errorf("node hosts %v %v; want exactly node-a.internal and 10.0.0.1", node.DNSNames, node.IPAddresses)
	}
	if d := node.NotAfter.Sub(node.NotBefore); d < DefaultValidity || d > DefaultValidity+time.Hour {
		t.Errorf("node valid for %v; want about a year", d)
	}
	if node.SerialNumber.Cmp(client.SerialNumber) == 0 {
		t.Error("node and client share a serial number")
	}
}

func readTestCert(t *testing.T, dir, file string) *x509.Certificate {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, file))
	if err != nil {
		t.Fatal(err)
	}
	block, _ := pem.Decode(data)
	if block == nil {
		t.Fatalf("%s: no PEM", file)
	}
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	return cert
}

func hasUsages(c *x509.Certificate, want ...x509.ExtKeyUsage) bool {
	for _, w := range want {
		found := false
		for _, u := range c.ExtKeyUsage {
			found = found || u == w
		}
		if !found {
			return false
		}
	}
	return true
}

// TestLoadErrorsNameTheFile: ServerConfig and ClientConfig say which file is
// missing or bad.
func TestLoadErrorsNameTheFile(t *testing.T) {
	dir := generate(t, Options{})
	other := generate(t, Options{})
	if _, err := ServerConfig(dir, "c/s0"); err == nil || !strings.Contains(err.Error(), "c_s0.crt") {
		t.Errorf("missing node: %v", err)
	}
	if _, err := ClientConfig(t.TempDir(), "client", ""); err == nil || !strings.Contains(err.Error(), "ca.crt") {
		t.Errorf("missing CA: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "b_s0.crt"), []byte("not a certificate"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ServerConfig(dir, "b/s0"); err == nil || !strings.Contains(err.Error(), "b_s0.crt") {
		t.Errorf("garbage certificate: %v", err)
	}
	if err := os.Remove(filepath.Join(dir, "client.key")); err != nil {
		t.Fatal(err)
	}
	if _, err := ClientConfig(dir, "client", ""); err == nil || !strings.Contains(err.Error(), "client.key") {
		t.Errorf("missing key: %v", err)
	}
	// a/s0's key with another CA's a/s0 certificate.
	copyFile(t, filepath.Join(other, "a_s0.key"), filepath.Join(dir, "a_s0.key"))
	if _, err := ServerConfig(dir, "a/s0"); err == nil || !strings.Contains(err.Error(), "a_s0.key") {
		t.Errorf("mismatched key: %v", err)
	}
	// A certificate another CA signed.
	copyFile(t, filepath.Join(other, "a_s0.crt"), filepath.Join(dir, "a_s0.crt"))
	if _, err := ServerConfig(dir, "a/s0"); err == nil || !strings.Contains(err.Error(), "not signed by") {
		t.Errorf("foreign certificate: %v", err)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestBadNames: Generate refuses names it cannot give files of their own,
// before writing anything.
func TestBadNames(t *testing.T) {
	for _, opts := range []Options{
		{Nodes: []string{""}},
		{Nodes: []string{"ca"}},
		{Nodes: []string{"../escape"}},
		{Clients: []string{`a\b`}},
		{Nodes: []string{"a/s0"}, Clients: []string{"a_s0"}},
		{Nodes: []string{"a/s0"}, Hosts: []string{""}},
		{Validity: -time.Hour},
	} {
		dir := t.TempDir()
		if err := Generate(dir, opts); err == nil {
			t.Errorf("%+v: Generate succeeded", opts)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 0 {
			t.Errorf("%+v: refused Generate wrote %d files", opts, len(entries))
		}
	}
}

// TestDefaultHostsCoverLoopback: without Hosts, node certificates are valid
// for localhost and both loopback addresses.
func TestDefaultHostsCoverLoopback(t *testing.T) {
	dir := generate(t, Options{})
	node := readTestCert(t, dir, "a_s0.crt")
	for _, h := range []string{"localhost", "127.0.0.1", "::1"} {
		if err := node.VerifyHostname(h); err != nil {
			t.Errorf("%s: %v", h, err)
		}
	}
}
