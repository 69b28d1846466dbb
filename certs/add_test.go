package certs

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestAddJoinsTheExistingCA: a node added under an existing CA serves to
// the clients and nodes made before it, and dials them; the CA and the
// other pairs are untouched.
func TestAddJoinsTheExistingCA(t *testing.T) {
	dir := generate(t, Options{})
	read := func(name string) string {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	before := map[string]string{}
	for _, f := range []string{"ca.crt", "ca.key", "a_s0.crt", "a_s0.key", "client.crt"} {
		before[f] = read(f)
	}
	if err := Add(dir, Options{Nodes: []string{"d/s0"}, Hosts: []string{"localhost", "127.0.0.1", "node-d.internal"}}); err != nil {
		t.Fatal(err)
	}
	for f, b := range before {
		if read(f) != b {
			t.Errorf("Add changed %s", f)
		}
	}
	if fi, err := os.Stat(filepath.Join(dir, "d_s0.key")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("d_s0.key: %v, mode %v; want 0600", err, fi.Mode().Perm())
	}

	// The new node serves the old client and the old node...
	addr, results := serve(t, serverConfig(t, dir, "d/s0"))
	for _, name := range []string{"client", "a/s0"} {
		if err := exchange(addr, clientConfig(t, dir, name)); err != nil {
			t.Fatalf("%s to d/s0: %v", name, err)
		}
		if r := <-results; r.err != nil || r.peer != name {
			t.Errorf("d/s0 saw peer %q, error %v; want %s", r.peer, r.err, name)
		}
	}
	// ...and dials an old node.
	addr, results = serve(t, serverConfig(t, dir, "a/s0"))
	if err := exchange(addr, clientConfig(t, dir, "d/s0")); err != nil {
		t.Fatalf("d/s0 to a/s0: %v", err)
	}
	if r := <-results; r.err != nil || r.peer != "d/s0" {
		t.Errorf("a/s0 saw peer %q, error %v; want d/s0", r.peer, r.err)
	}
	leaf, err := readCert(filepath.Join(dir, "d_s0.crt"))
	if err != nil {
		t.Fatal(err)
	}
	if len(leaf.DNSNames) != 2 || leaf.DNSNames[1] != "node-d.internal" {
		t.Errorf("d/s0's DNS names %v; want localhost and node-d.internal", leaf.DNSNames)
	}
}

func TestAddRefusals(t *testing.T) {
	dir := generate(t, Options{})
	if err := Add(t.TempDir(), Options{Nodes: []string{"d/s0"}}); !errors.Is(err, ErrNoCA) {
		t.Errorf("Add without a CA: %v; want ErrNoCA", err)
	}
	crt := func() string { b, _ := os.ReadFile(filepath.Join(dir, "a_s0.crt")); return string(b) }
	old := crt()
	if err := Add(dir, Options{Nodes: []string{"a/s0"}}); !errors.Is(err, ErrPairExists) {
		t.Errorf("Add of an existing node: %v; want ErrPairExists", err)
	}
	if crt() != old {
		t.Error("refused Add replaced a_s0.crt")
	}
	if err := Add(dir, Options{Nodes: []string{"a/s0"}, Force: true}); err != nil || crt() == old {
		t.Errorf("Add with Force: %v, replaced: %v", err, crt() != old)
	}
	if err := Add(dir, Options{Nodes: []string{"ca"}}); err == nil {
		t.Error("Add of a node named ca succeeded")
	}
	if err := Add(dir, Options{}); err == nil {
		t.Error("Add of nothing succeeded")
	}
	// No certificate outlives its CA.
	if err := Add(dir, Options{Clients: []string{"late"}, Validity: 10 * 365 * 24 * time.Hour}); err != nil {
		t.Fatal(err)
	}
	ca, _ := readCert(filepath.Join(dir, "ca.crt"))
	late, _ := readCert(filepath.Join(dir, "late.crt"))
	if late.NotAfter.After(ca.NotAfter) {
		t.Errorf("late.crt ends %v, after its CA (%v)", late.NotAfter, ca.NotAfter)
	}
	// A key that is not the CA's.
	other := generate(t, Options{})
	key, _ := os.ReadFile(filepath.Join(other, "ca.key"))
	if err := os.WriteFile(filepath.Join(dir, "ca.key"), key, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Add(dir, Options{Nodes: []string{"e/s0"}}); err == nil {
		t.Error("Add with another CA's key succeeded")
	}
}
