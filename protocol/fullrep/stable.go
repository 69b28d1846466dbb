package fullrep

// Stable versions (COPS §5.3, client metadata garbage collection): a
// version committed in every DC can be depended on by no put, since every
// dep_check for it would succeed at once. A server knows this of the
// versions it minted itself — every other DC has acknowledged them — and
// tells the other DCs in each Replicate it sends (Replicate.stable: its
// frontier); the key's shard in another DC, which receives the Replicates
// of every origin of the versions it serves, keeps the highest frontier of
// each origin. A GetReply says whether the version it returns is stable,
// and a session adds only unstable versions to its nearest dependencies.
// A frontier only ever grows: a server mints every new version above
// every frontier it has sent (its Lamport counter is above them), and
// keeps an outgoing write until all DCs acknowledge it, across restarts.

// frontier is this server's stable frontier: the Lamport counter of the
// oldest version it minted that some DC has not acknowledged, or, when all
// have been, one more than its counter. Every version it minted with a
// lower counter is committed in every DC.
func (s *server) frontier() uint64 {
	for len(s.outOrder) > 0 {
		if o := s.out[s.outOrder[0]]; o != nil {
			return o.msg.Version >> serverBits
		}
		s.outOrder = s.outOrder[1:]
	}
	return s.clock + 1
}

// isStable reports whether version, as far as this server knows, is
// committed in every DC. Version 0 (a loaded value) is in every DC from
// the start; sessions never depend on it anyway.
func (s *server) isStable(version uint64) bool {
	if !s.mode.Causal || version == 0 {
		return false
	}
	origin, counter := originOf(version)
	return counter < s.knownFrontier(origin)
}
