package faults

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/causeway/causeway/topology"
)

// TestScheduleJSONIsAFaultsFile checks that a drawn schedule written as
// JSON has the YAML format's fields and values, parses back with Parse as
// a faults file (YAML is a superset of JSON) and decodes back with
// encoding/json, to the same events.
func TestScheduleJSONIsAFaultsFile(t *testing.T) {
	topo, err := topology.Lookup("karma-aws8")
	if err != nil {
		t.Fatal(err)
	}
	for seed := uint64(1); seed <= 20; seed++ {
		s := RandomZones(rand.New(rand.NewPCG(seed, 7)), topo, 3*time.Second)
		s = append(s, Event{At: 2 * time.Second, ClockSkew: &Skew{Target: "dc:tokyo", Ms: -12.5}},
			Event{At: 2 * time.Second, Delay: &Delay{Target: "node:tokyo/s0", AddMs: 10, For: time.Second}})
		sortSchedule(s)
		data, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(data), `"at":"`) || strings.Contains(string(data), `"At"`) {
			t.Fatalf("seed %d: not the faults format: %s", seed, data)
		}
		parsed, err := Parse(data, topo)
		if err != nil {
			t.Fatalf("seed %d: Parse of the JSON: %v\n%s", seed, err, data)
		}
		if !reflect.DeepEqual(parsed, s) {
			t.Fatalf("seed %d: Parse gave\n%v\nwant\n%v", seed, parsed, s)
		}
		var decoded Schedule
		if err := json.Unmarshal(data, &decoded); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(decoded, s) {
			t.Fatalf("seed %d: json.Unmarshal gave\n%v\nwant\n%v", seed, decoded, s)
		}
	}
}
