package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/causeway/causeway/certs"
)

// TestCertsWritesFilesAndRefusesToOverwrite runs `causeway certs` twice on
// one directory: the first run writes the CA and the named pairs, the second
// refuses without --force and succeeds with it.
func TestCertsWritesFilesAndRefusesToOverwrite(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "certs")
	args := []string{"certs", "--dir", dir, "--nodes", "a/s0,b/s0", "--clients", "client", "--hosts", "localhost,127.0.0.1"}
	code, out, errOut := causeway(t, args...)
	if code != 0 {
		t.Fatalf("certs: exit %d\n%s\n%s", code, out, errOut)
	}
	for _, f := range []string{"ca.crt", "ca.key", "a_s0.crt", "a_s0.key", "b_s0.crt", "b_s0.key", "client.crt", "client.key"} {
		fi, err := os.Stat(filepath.Join(dir, f))
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		if strings.HasSuffix(f, ".key") && fi.Mode().Perm() != 0o600 {
			t.Errorf("%s has mode %v; want 0600", f, fi.Mode().Perm())
		}
		if !strings.Contains(out, f) {
			t.Errorf("output does not mention %s:\n%s", f, out)
		}
	}
	caKey, err := os.ReadFile(filepath.Join(dir, "ca.key"))
	if err != nil {
		t.Fatal(err)
	}

	code, _, errOut = causeway(t, args...)
	if code != 2 || !strings.Contains(errOut, "already holds a CA") || !strings.Contains(errOut, "--force") {
		t.Errorf("second run: exit %d, stderr %q; want exit 2 and a message pointing at --force", code, errOut)
	}
	if after, _ := os.ReadFile(filepath.Join(dir, "ca.key")); string(after) != string(caKey) {
		t.Error("refused second run changed ca.key")
	}
	// --if-missing: a run at every container start makes them once.
	if code, out, _ := causeway(t, append(args, "--if-missing")...); code != 0 || !strings.Contains(out, "nothing written") {
		t.Errorf("--if-missing on a DIR with a CA: exit %d, %q; want 0 and nothing written", code, out)
	}
	if after, _ := os.ReadFile(filepath.Join(dir, "ca.key")); string(after) != string(caKey) {
		t.Error("--if-missing changed ca.key")
	}

	if code, out, errOut := causeway(t, append(args, "--force")...); code != 0 {
		t.Errorf("--force: exit %d\n%s\n%s", code, out, errOut)
	}
}

func TestCertsBadArgumentsExitTwo(t *testing.T) {
	for _, args := range [][]string{
		{"certs"},
		{"certs", "--dir", t.TempDir(), "--nodes", "ca"},
		{"certs", "--dir", t.TempDir(), "stray"},
	} {
		if code, _, errOut := causeway(t, args...); code != 2 || errOut == "" {
			t.Errorf("%v: exit %d, stderr %q; want 2 and an error message", args, code, errOut)
		}
	}
}

// TestCertsAddNode adds a node certificate under an existing CA: the CA
// and the other pairs stay, and the new pair is signed by that CA.
func TestCertsAddNode(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "certs")
	if code, out, errOut := causeway(t, "certs", "--dir", dir, "--nodes", "a/s0"); code != 0 {
		t.Fatalf("certs: exit %d\n%s%s", code, out, errOut)
	}
	caKey, _ := os.ReadFile(filepath.Join(dir, "ca.key"))
	aCrt, _ := os.ReadFile(filepath.Join(dir, "a_s0.crt"))

	code, out, errOut := causeway(t, "certs", "--dir", dir, "--add-node", "d/s0", "--hosts", "localhost,127.0.0.1")
	if code != 0 || !strings.Contains(out, "d_s0.crt, d_s0.key") {
		t.Fatalf("certs --add-node: exit %d\n%s%s", code, out, errOut)
	}
	if after, _ := os.ReadFile(filepath.Join(dir, "ca.key")); string(after) != string(caKey) {
		t.Error("--add-node replaced the CA")
	}
	if after, _ := os.ReadFile(filepath.Join(dir, "a_s0.crt")); string(after) != string(aCrt) {
		t.Error("--add-node replaced a_s0.crt")
	}
	if _, err := certs.ServerConfig(dir, "d/s0"); err != nil {
		t.Errorf("the added node's pair does not load against ca.crt: %v", err)
	}

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"certs", "--dir", dir, "--add-node", "d/s0"}, "--force"},
		{[]string{"certs", "--dir", t.TempDir(), "--add-node", "d/s0"}, "holds no CA"},
		{[]string{"certs", "--dir", dir, "--add-node", "e/s0", "--nodes", "f/s0"}, "one kind or the other"},
	} {
		if code, _, errOut := causeway(t, tc.args...); code != 2 || !strings.Contains(errOut, "certs:") || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, code, errOut, tc.want)
		}
	}
	if code, out, errOut := causeway(t, "certs", "--dir", dir, "--add-node", "d/s0", "--force"); code != 0 {
		t.Errorf("--add-node --force: exit %d\n%s%s", code, out, errOut)
	}
	if after, _ := os.ReadFile(filepath.Join(dir, "ca.key")); string(after) != string(caKey) {
		t.Error("--add-node --force replaced the CA")
	}
}
