// Package nemesis is the live half of Causeway's fault matrix: it carries
// out a fault schedule against a running cluster — real processes — while
// a checked benchmark runs in the background, then heals everything and
// reads back every acknowledged write from every datacenter. `causeway
// nemesis` runs it against a `causeway cluster up` cluster; `make
// torture-live` runs a bounded schedule against cops and karma.
//
// # The schedule
//
// A YAML list of events, each a time `at` from the start of the run and
// one action (Parse; the format page docs/formats/nemesis.md has
// examples):
//
//   - {at: 1s, kill: "node:a/s0"}                  # kill -9
//   - {at: 3s, restart: "node:a/s0"}               # start it again, wait for /healthz
//   - {at: 4s, pause: "dc:b"}                      # SIGSTOP
//   - {at: 6s, resume: "dc:b"}                     # SIGCONT
//   - {at: 7s, partition: {dc: c}}                 # c cut off from every DC, both ways
//   - {at: 7s, delay: {dc: a, add_ms: 200}}        # congestion in and out of a
//   - {at: 8s, clock_skew: {target: "node:a/s1", ms: -2000}}
//   - {at: 10s, heal: all}                         # or: partitions
//
// Targets are the simulator's (package faults): dc:NAME, zone:DC/front|back,
// node:DC/NAME, with * wildcards, resolved against the cluster's nodes.
// Partitions and delays are the link controls of `causeway cluster
// partition|delay` (cluster.PlanLinks), applied to the nodes that are up;
// a node restarted during a partition gets its part of the link faults in
// force again (a node's rules live in its memory). Clock skew sets the
// offset the node's runtime adds to the time it hands the protocol
// (cluster.AdminClockPath), as the simulator's clock_skew fault does.
//
// A Target carries the events out: Local is a cluster of local processes
// (pid files, signals, cluster.Up for restarts, the nodes' admin
// endpoints); Docker is the Docker Compose cluster of deploy/compose.yaml,
// faulted through the Docker daemon's Engine API (docker kill, start,
// pause, unpause, network disconnect and connect; `causeway nemesis
// --docker-project`, make docker-nemesis with the schedule
// deploy/nemesis.yaml). Docker has no operation for added delay, clock
// skew or a partition of some peers or one direction: it refuses such
// schedules before the run starts (ScheduleChecker).
//
// # Why the command is `causeway nemesis` and not `torture --live`
//
// `causeway torture` draws schedules from a seed and runs thousands of
// them in virtual time, shrinking failures; a live run takes wall-clock
// minutes, is not reproducible, and needs a running cluster. They share
// the idea, not the flags or the loop, so they are two commands.
//
// # Lost acknowledged writes: the ack log of grow-only sets
//
// A checker over the bench's history finds causal anomalies among the
// operations it saw, but a write that was acknowledged and then lost
// (unsynced, overwritten by an older version after a restart, dropped by
// a partition's replication) shows only if some later read should have
// returned it — and under a workload of plain overwrites a lost write
// hides behind the next write to the same key: every DC converges to the
// newer value and nothing ever contradicts the loss.
//
// So beside the bench, the run has writer sessions (Spec.Writers per DC)
// that each own a few keys of their own — the only writer of each — and
// write grow-only sets: the n-th put to a key writes every element the
// writer has tried to add to it, its own included (EncodeSet:
// "gset:W:1,4,7"). Every put is recorded in an AckLog with whether it was
// acknowledged. A put that timed out may or may not have taken effect; its
// element stays in every later set, so sets only grow. After the heal, each
// DC must read each key with a set that contains the element of every
// acknowledged put to it (AckLog.Verify), and only elements that were put.
// Since a later set contains every earlier element, a lost write cannot
// hide behind a later overwrite: the newest acknowledged put's element is
// in the value only if a write at least that new survived, and an older
// version winning over a newer one (a last-writer-wins order broken by a
// restart or a clock skew) drops elements and shows. One writer per key
// keeps the sets honest under causal+ stores that resolve concurrent
// writes by last-writer-wins: two writers of one key would legitimately
// overwrite each other's elements.
//
// The read-back polls (ReadBack): replication after a heal takes time, so
// a key counts as lost only if a DC still misses an acknowledged element
// when Spec.Quiesce ends. A write still on its way when Quiesce ends is
// reported as lost too: the report's read-back time says how close the
// run came, and every 10 s Run logs the oldest acknowledged element still
// missing, so a write that arrives late shows apart from one that never
// does.
//
// # The writers' rate
//
// A writer waits for each put's answer before the next, but that is no
// back-pressure on replication: every causal+ store here acknowledges a
// put in the writer's DC before it has replicated it. A writer that puts
// faster than its session's writes replicate builds a backlog that
// drains only after the workload stops, and the read-back then measures
// the backlog, not whether a write was lost. Karma's rings that span
// datacenters store a thread's writes one intra-ring hop after another
// (protocol/karma, "Deliberate deviations", issue 12): on local3 the ring
// of a and b stores about 47 of one session's writes a second, and faults
// slow it further (retransmission waits that follow the backlogged
// acknowledgement time). Unpaced, the writers put about 130 times a
// second, and four live runs of the default schedule read everything back
// only 27, 64, 75 and 76 s after the heal (the last: its write of 1.5 s
// still missing in b 30 s into the read-back, 693 elements after 61 s);
// three of eight missed the default minute.
//
// So writers are paced (Spec.WriterRate; causeway nemesis --writer-rate,
// default 20 puts a second per writer: 60 a second on local3, about 1,100
// acknowledged puts over the default schedule). At that rate karma's
// read-back of the default schedule takes about 8 s, cops's well under a
// second, and the test keeps its point: each writer still has many
// acknowledged puts in the air through every fault of the schedule, and a
// lost one shows in every later set (TestReadBackCatchesALostAcknowledgedWrite).
// --writer-rate 0 restores the unpaced writer, to measure a backlog.
package nemesis
