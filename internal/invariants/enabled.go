//go:build causeway_invariants

package invariants

// Enabled is true when built with the causeway_invariants tag.
const Enabled = true
