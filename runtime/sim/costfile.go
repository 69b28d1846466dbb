package sim

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"gopkg.in/yaml.v3"
)

// LoadCostModel resolves the --cost flag: "" or "simple" is the simple form (nil),
// "default" is DefaultCostModel, anything else a YAML file whose entries
// override the default model's, for example
//
//	roles: {cache: 0.05}
//	classes: {control: 0.1}
//	kinds: {RingGetReply: client}
//	per_kb: 0.2
func LoadCostModel(nameOrPath string) (*CostModel, error) {
	switch nameOrPath {
	case "", "simple":
		return nil, nil
	case "default":
		return DefaultCostModel(), nil
	}
	data, err := os.ReadFile(nameOrPath)
	if err != nil {
		return nil, fmt.Errorf("cost model: %w", err)
	}
	m, err := ParseCostModel(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", nameOrPath, err)
	}
	return m, nil
}

// ParseCostModel reads a cost model in YAML: its entries override those
// of DefaultCostModel (maps entry by entry); unknown fields are errors.
func ParseCostModel(data []byte) (*CostModel, error) {
	m := DefaultCostModel()
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(m); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("cost model: %w", err)
	}
	if err := m.Validate(); err != nil {
		return nil, err
	}
	return m, nil
}
