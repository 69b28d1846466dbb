package chain_test

import (
	"testing"

	"github.com/causeway/causeway/runtime/sim/scenario"
)

// TestScenarios runs the core's datadriven scenarios in testdata/ (on
// fawn-kv, the core with no more than classic chain replication).
func TestScenarios(t *testing.T) { scenario.RunDir(t, "testdata") }
