package cassandra

import "github.com/causeway/causeway/protocol"

// The presets' protocol names.
const (
	NameLQ = "cassandra-lq"
	NameQ  = "cassandra-q"
	NameEQ = "cassandra-eq"
	NameE  = "cassandra-e"
	NameL  = "cassandra-l"
)

// The presets registered as protocols: c3.txt §5.1's three baselines and
// chainreaction.txt's two Cassandra configurations.
var (
	// LQ is c3.txt's E-LQ: LOCAL_QUORUM reads and writes, TWO for a key
	// not replicated in the client's DC.
	LQ = Preset{Name: NameLQ,
		Summary: "Cassandra model, LOCAL_QUORUM (TWO for remote keys): c3.txt E-LQ, eventual",
		Multi:   Setting{Read: LocalQuorum, Write: LocalQuorum}}
	// Q is c3.txt's E-Q: QUORUM over all replicas.
	Q = Preset{Name: NameQ,
		Summary: "Cassandra model, QUORUM over every replica: c3.txt E-Q, eventual",
		Multi:   Setting{Read: Quorum, Write: Quorum, RemoteRead: Quorum, RemoteWrite: Quorum}}
	// EQ is c3.txt's E-EQ: EACH_QUORUM writes, LOCAL_QUORUM reads (TWO
	// for remote keys).
	EQ = Preset{Name: NameEQ,
		Summary: "Cassandra model, EACH_QUORUM writes, LOCAL_QUORUM reads: c3.txt E-EQ, eventual",
		Multi:   Setting{Read: LocalQuorum, Write: EachQuorum, RemoteWrite: EachQuorum}}
	// E is chainreaction.txt's Cassandra-E: on one site RF 6, writes at
	// THREE and reads at ONE; on several DCs 4 replicas each, TWO / ONE.
	E = Preset{Name: NameE,
		Summary: "Cassandra model, ChainReaction's Cassandra-E: W3/R1 of 6 on one site, TWO/ONE of 4 per DC, eventual",
		Single:  &Setting{RF: 6, Read: One, Write: Three, RemoteRead: One, RemoteWrite: Three},
		Multi:   Setting{RF: 4, Read: One, Write: Two, RemoteRead: One, RemoteWrite: Two}}
	// L is chainreaction.txt's Cassandra-L: on one site RF 6, writes and
	// reads at QUORUM (4 of 6); on several DCs 4 replicas each,
	// EACH_QUORUM.
	L = Preset{Name: NameL,
		Summary: "Cassandra model, ChainReaction's Cassandra-L: W4/R4 of 6 on one site, EACH_QUORUM of 4 per DC, eventual",
		Single:  &Setting{RF: 6, Read: Quorum, Write: Quorum, RemoteRead: Quorum, RemoteWrite: Quorum},
		Multi:   Setting{RF: 4, Read: EachQuorum, Write: EachQuorum, RemoteRead: EachQuorum, RemoteWrite: EachQuorum}}
)

func init() {
	for _, p := range []Preset{LQ, Q, EQ, E, L} {
		protocol.Register(New(p))
	}
}
