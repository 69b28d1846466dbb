package node

import (
	"context"
	"testing"
	"time"
)

// TestKarmaNodesGetTheirRoles runs karma-nc, whose nodes are of two roles
// (storage servers with their middle men, and client coordinators), in
// node hosts: a put and a get through a coordinator work only if each host
// built its node from the node's role (a coordinator built as a middle man
// answers no session).
func TestKarmaNodesGetTheirRoles(t *testing.T) {
	tc := newCluster(t, "karma-nc")
	tc.start()
	ctx, cancel := context.WithTimeout(context.Background(), patience) // a hang guard
	defer cancel()

	alice := tc.session("a", DialOptions{OpTimeout: 2 * time.Second})
	if err := alice.Put(ctx, "x", []byte("x1")); err != nil {
		t.Fatalf("put through a coordinator: %v", err)
	}
	if v, found, err := alice.Get(ctx, "x"); err != nil || !found || string(v) != "x1" {
		t.Fatalf("alice reads her own write: %q %v %v", v, found, err)
	}
}
