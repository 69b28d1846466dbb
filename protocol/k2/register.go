package k2

import "github.com/causeway/causeway/protocol"

// Names of the two protocols this package registers.
const (
	// Name is K2's CLI name.
	Name = "k2"
	// NameParis is PaRiS*'s CLI name.
	NameParis = "paris"
)

func init() {
	protocol.Register(New(Mode{Name: Name,
		Summary: "K2: partial replication of values on f DCs, full replication of metadata, cache-aware read-only transactions, local write-only transactions (causal+)"}))
	protocol.Register(New(Mode{Name: NameParis, Paris: true,
		Summary: "PaRiS*: K2 without the DC cache, a private cache of each session's writes for 5 s (causal+)"}))
}
