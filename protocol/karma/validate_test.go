package karma_test

import (
	"strings"
	"testing"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/topology"
)

// TestEveryDCMustBeInARing: Karma, Karma-NC and COPS-PR refuse a topology
// with a DC in no ring (its servers would store nothing, and COPS-PR
// could bind its clients to no ring), naming the DC; full replication
// protocols do not care.
func TestEveryDCMustBeInARing(t *testing.T) {
	topo, err := topology.Parse([]byte(`name: ringless-c
datacenters:
  - {name: a, servers: 1}
  - {name: b, servers: 1}
  - {name: c, servers: 1}
rtt_ms: {a-b: 40, a-c: 120, b-c: 90}
placement:
  rings: [[a], [b]]
`))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"karma", "karma-nc", "cops-pr"} {
		p, err := protocol.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Validate(topo); err == nil || !strings.Contains(err.Error(), "datacenter c ") {
			t.Errorf("%s on a topology whose DC c is in no ring: %v, want a refusal naming c", name, err)
		}
	}
	cops, err := protocol.Lookup("cops")
	if err != nil {
		t.Fatal(err)
	}
	if err := cops.Validate(topo); err != nil {
		t.Errorf("cops: %v", err)
	}
	local3, err := topology.Preset("local3")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"karma", "karma-nc", "cops-pr"} {
		p, _ := protocol.Lookup(name)
		if err := p.Validate(local3); err != nil {
			t.Errorf("%s on local3: %v", name, err)
		}
	}
}
