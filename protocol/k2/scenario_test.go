package k2_test

import (
	"testing"

	_ "github.com/causeway/causeway/protocol/all"
	"github.com/causeway/causeway/runtime/sim/scenario"
)

// TestScenarios runs the datadriven scenarios in testdata/ (see package
// scenario for the commands; -rewrite regenerates the expected output).
func TestScenarios(t *testing.T) { scenario.RunDir(t, "testdata") }
