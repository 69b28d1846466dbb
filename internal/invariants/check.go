package invariants

import "fmt"

// Check panics with the formatted message when ok is false. Call it only
// under `if invariants.Enabled`, so that building the message costs
// nothing in normal builds.
func Check(ok bool, format string, args ...any) {
	if !ok {
		panic("invariant violated: " + fmt.Sprintf(format, args...))
	}
}
