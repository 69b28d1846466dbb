// Package depwait tracks writes that wait for dependencies: COPS's
// put_after / dep_check (Lloyd et al., SOSP 2011, §4.2–§4.3) as used by
// protocol/fullrep's resumed sessions, and Karma's put-after and
// notify-after (karma.txt §4.1.2, §4.2) as used by protocol/karma. Each waiting write names the
// dependencies still missing, and one check is outstanding per dependency
// however many writes wait on it, retransmitted with backoff until it is
// answered (protocol.Retry).
//
// # Messages
//
// None of its own: D is the protocol's dependency type, the protocol sends
// and answers the checks (fullreppb.DepCheck/DepOK, karmapb.DepCheck/DepOK),
// and writes and dependencies are named as the protocol chooses: by
// strings in a Table (typically "key@version"), or by any comparable key
// in a Keyed (fullrep's {key, version} struct, which spares its hot path
// building and hashing strings), retransmitted in the order of the names'
// spelling either way.
//
// # Deviations
//
// COPS sends one dep_check per dependency of each replicated write; with
// Wait's first result a caller can check a dependency shared by several
// waiting writes once (karma does), which saves messages and changes
// nothing a client can observe. A caller whose checks list several
// dependencies and are answered only when all are met must not share
// them: fullrep's servers, whose DepChecks list every dependency a write
// has on one owner server, keep per-write state of their own instead;
// fullrep's resumed sessions, one waiting "write" each, use a Table.
package depwait
