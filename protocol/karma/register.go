package karma

import "github.com/causeway/causeway/protocol"

// Names of the registered variants.
const (
	NameKarma   = "karma"
	NameKarmaNC = "karma-nc"
	NameCOPSPR  = "cops-pr"
)

func init() {
	protocol.Register(New(Mode{Name: NameKarma, Caches: true,
		Summary: "Karma: rings, write buffers, dynamic ring restrictions, causal DC caches (karma.txt §3–§4.3)"}, Options{}))
	protocol.Register(New(Mode{Name: NameKarmaNC,
		Summary: "Karma-NC: Karma without caches (karma.txt §5)"}, Options{}))
	protocol.Register(New(Mode{Name: NameCOPSPR, OwnRing: true,
		Summary: "COPS-PR: COPS over Karma's rings, clients bound to their DC's ring, write buffers, no caches (karma.txt §5)"}, Options{}))
}

// Tags implements protocol.Tagger: drr (Karma, Karma-NC) and cache_hit
// (Karma).
func (p *Protocol) Tags() []string {
	var tags []string
	if !p.mode.OwnRing {
		tags = append(tags, "drr")
	}
	if p.mode.Caches {
		tags = append(tags, "cache_hit")
	}
	return tags
}
