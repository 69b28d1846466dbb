package faults

import (
	"encoding/json"

	"gopkg.in/yaml.v3"

	"github.com/causeway/causeway/topology"
)

// MarshalJSON writes the event with the fields and values of the YAML
// format ({"at": "1.5s", "crash": "dc:tokyo"}), so that a schedule saved
// from a result JSON (bench.Result.FaultSchedule) is a faults file: YAML
// is a superset of JSON, and Load reads it back.
func (e Event) MarshalJSON() ([]byte, error) {
	y, err := yaml.Marshal(e)
	if err != nil {
		return nil, err
	}
	var v map[string]any
	if err := yaml.Unmarshal(y, &v); err != nil {
		return nil, err
	}
	return json.Marshal(v)
}

// UnmarshalJSON reads an event written by MarshalJSON (or any JSON object
// with the YAML format's fields). It does not validate the event against
// a topology: Parse does.
func (e *Event) UnmarshalJSON(data []byte) error {
	var ev Event
	if err := topology.DecodeYAML(data, (*eventFields)(&ev)); err != nil {
		return err
	}
	*e = ev
	return nil
}

// eventFields is Event without its JSON methods, for decoding.
type eventFields Event
