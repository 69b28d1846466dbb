package sim

import "github.com/causeway/causeway/protocol"

// DefaultCostModel returns the default cost model (--cost default): the one
// place where the defaults live, with their reasons. Factors are relative
// to Config.ServiceTime, the cost of one storage operation on a storage
// server (what the simple form charges for every input). ARCHITECTURE.md
// ("The cost model") summarises this table.
//
// The papers report no per-message CPU costs, so the factors are
// judgments, chosen to remove the simple form's known bias (an
// acknowledgement costing as much as a storage read overcharges protocols
// with many small control messages, status.md #3) rather than measured.
// Each returned model is a fresh copy that the caller may change.
func DefaultCostModel() *CostModel {
	return &CostModel{
		Roles: map[protocol.Role]float64{
			// A storage server runs the storage engine (Cassandra in
			// karma.txt §5, an HDD-backed store in chainreaction.txt §7):
			// the unit.
			protocol.RoleStorage: 1,
			// A coordinator keeps per-session state and a synced write
			// buffer: its writes cost what a storage write costs, its
			// routing is priced by ClassClient.
			protocol.RoleCoordinator: 1,
			// karma.txt §5's caches hold objects in memory where a storage
			// server runs Cassandra: a tenth (Karma's NodeSpec.Cost says
			// the same for its cache nodes).
			protocol.RoleCache: 0.1,
			// C3's causality layer (c3.txt §3.2, Alg. 1; protocol/c3's
			// RoleLayer, named here to keep the simulator free of
			// protocol imports) does tiny in-memory metadata work per
			// label — compare a vector, bump a counter, queue an id — with
			// no storage engine, and §5.2 runs it beside a Cassandra
			// node with 100 of its 256 tokens: priced like a cache, a
			// tenth. Every DC's layer sees a label for every write of the
			// system, so this matters once labels dominate; measured on
			// `causeway repro c3` (c3-azure9, 18–126 clients), factors 1,
			// 0.3 and 0.1 gave C3 the same mean visibility within 3% at
			// 100 µs and at 1 ms service times: the storage servers,
			// which take each write twice (data, then ExecuteWrite),
			// saturate first.
			protocol.Role("causality-layer"): 0.1,
			// Saturn's serializer (protocol/saturn's RoleSerializer) is
			// C3's layer modified (c3.txt §5.1): the same price, so that
			// repro c3 compares the algorithms, not their nodes' speed.
			protocol.Role("serializer"): 0.1,
		},
		Classes: map[Class]float64{
			// A read or a write touches the store: the unit. The papers
			// give no split between them; a synced write's disk time is
			// amortised by group commit.
			ClassRead:  1,
			ClassWrite: 1,
			// A client request at a coordinator or proxy: decode, session
			// lookup, a forward and later a reply — half a storage
			// operation, more than an acknowledgement.
			ClassClient: 0.5,
			// An acknowledgement, notification or dependency check is an
			// RPC's receive and dispatch plus an in-memory update: a
			// quarter. This is what stops acknowledgements costing as much
			// as reads.
			ClassControl: 0.25,
			// A timer scans in-memory tables (retransmissions, leases):
			// like a control message. Messages it sends are charged where
			// they land.
			ClassTimer: 0.25,
			// An unlisted kind is charged as a storage operation, so that
			// forgetting a kind overcharges rather than hides work.
			ClassOther: 1,
		},
		Kinds: defaultKinds(),
		// 1 GbE (the papers' testbeds) moves 1000 bytes in 8 µs: 8% of the
		// CLI's default 100 µs service time. Scaling it with ServiceTime
		// keeps a slowed-down run (repro's 2 ms) proportionate.
		PerKB: 0.08,
	}
}

// defaultKinds classifies every message of the registered protocols by
// short name. Names shared by several protocols (DepCheck, DepOK) mean the
// same work in each; a protocol whose short name would collide with a
// different class lists its full name instead.
func defaultKinds() map[string]Class {
	return map[string]Class{
		// fullrep (eventual, cops): sessions talk to their DC's servers.
		"GetRequest":   ClassRead,
		"PutRequest":   ClassWrite,
		"GetReply":     ClassControl, // to a session: never charged
		"PutReply":     ClassControl, // to a session: never charged
		"Replicate":    ClassWrite,
		"ReplicateAck": ClassControl,
		"DepCheck":     ClassControl, // also karma's
		"DepOK":        ClassControl, // also karma's

		// cassandra (cassandra-*, and c3's datastore).
		"ClientRead":    ClassClient,
		"ClientWrite":   ClassClient,
		"Mutation":      ClassWrite,
		"MutationAck":   ClassControl,
		"ReadCmd":       ClassRead,
		"ReadResp":      ClassControl,
		"ExecuteWrite":  ClassWrite, // applies held data to the store
		"WriteExecuted": ClassControl,
		"LayerWrite":    ClassControl,
		"LayerDone":     ClassControl,

		// c3: labels between causality layers, client migration.
		"Label":           ClassControl,
		"LabelAck":        ClassControl,
		"ClientMigrate":   ClassClient,
		"MigrateResponse": ClassControl,
		"MigrateWatch":    ClassClient,

		// k2 (k2, paris).
		"ReadReq":         ClassRead,
		"ReadAtReq":       ClassRead,
		"ReadAtReply":     ClassControl,
		"Fetch":           ClassRead,
		"FetchReply":      ClassControl,
		"WriteReq":        ClassWrite,
		"Yes":             ClassControl,
		"CommitAck":       ClassControl,
		"Status":          ClassControl,
		"Replicated":      ClassControl,
		"Phase1":          ClassWrite,
		"Phase1Ack":       ClassControl,
		"RemoteTxn":       ClassControl,
		"RemoteTxnAck":    ClassControl,
		"RemotePrepare":   ClassWrite,
		"RemotePrepared":  ClassControl,
		"RemoteCommit":    ClassWrite,
		"RemoteCommitAck": ClassControl,

		// karma (karma, karma-nc, cops-pr).
		"ClientGet":     ClassClient,
		"ClientTxn":     ClassClient,
		"ClientAdopt":   ClassClient,
		"ClientPut":     ClassWrite, // a synced write-buffer append at the CC
		"ClientReply":   ClassControl,
		"RingGet":       ClassRead,
		"RingGetReply":  ClassControl,
		"RingPut":       ClassWrite,
		"RingPutAck":    ClassControl,
		"Stable":        ClassControl,
		"CacheGet":      ClassRead,
		"CacheGetReply": ClassControl,
		"CacheFill":     ClassWrite,
		"Invalidate":    ClassControl,
		"InvalidateAck": ClassControl,
		"MigrateReq":    ClassControl,
		"MigrateOK":     ClassControl,
		"ProbeReq":      ClassControl, // §6.2's latency probe, answered at once
		"ProbeResp":     ClassControl,
		"ResendReq":     ClassControl, // an MM asks a CC for a write it lost (resend.go)

		// rad (Eiger over replica groups); Replicate, ReplicateAck,
		// DepCheck and DepOK as fullrep's.
		"ReadRequest":  ClassRead,
		"ReadReply":    ClassControl, // to a session: never charged
		"WriteRequest": ClassWrite,   // a synced prepare
		"WriteReply":   ClassControl, // to a session: never charged
		"Prepared":     ClassControl,
		"Prepare":      ClassWrite, // a synced prepare record
		"Commit":       ClassWrite,
		"Abort":        ClassControl,
		"Notify":       ClassControl,
		// chain core (fawn-kv, chainreaction): sessions talk to chain
		// nodes; the master is charged as a storage node.
		"Put":            ClassWrite,
		"Get":            ClassRead,
		"Update":         ClassWrite,
		"StableAck":      ClassControl,
		"KAck":           ClassControl,
		"PushAck":        ClassControl,
		"Stabilize":      ClassRead,
		"StabilizeReply": ClassControl,
		"View":           ClassControl,
		"ViewRequest":    ClassControl,
		"ViewAck":        ClassControl,
		"Suspect":        ClassControl,
		"Ping":           ClassControl,
		"Pong":           ClassControl,
		"Join":           ClassControl,
		"Synced":         ClassControl,
		"JoinDone":       ClassControl,
		"Announce":       ClassControl,
		// chainreaction's get-transactions (§5): the sequencer routes puts
		// and hands out snapshots; heads serve the reads.
		"SeqPut":        ClassClient,
		"SeqRequest":    ClassClient,
		"SeqReply":      ClassControl,
		"HeadRead":      ClassRead,
		"HeadReadReply": ClassControl,
	}
}
