package saturn_test

import (
	"testing"

	"github.com/causeway/causeway/runtime/sim/scenario"
)

// TestScenarios runs the datadriven scenarios in testdata/ (see package
// scenario for the commands).
func TestScenarios(t *testing.T) { scenario.RunDir(t, "testdata") }
