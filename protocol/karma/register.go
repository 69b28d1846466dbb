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

// Tags implements protocol.Tagger: drr (Karma, Karma-NC), cache_hit
// (Karma), and for all three inflight_read (a get read an in-flight value
// from a ring) and wb_hit (the session's write buffer answered a get).
func (p *Protocol) Tags() []string {
	tags := []string{"inflight_read", "wb_hit"}
	if !p.mode.OwnRing {
		tags = append(tags, "drr")
	}
	if p.mode.Caches {
		tags = append(tags, "cache_hit")
	}
	return tags
}
