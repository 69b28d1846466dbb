// Package workload generates the client requests of a key-value store
// benchmark, following the YCSB core workloads.
//
// A Workload describes an operation mix, a key space and a key popularity
// distribution; Lookup returns the presets (ycsb-a, ycsb-b, ycsb-c, ycsb-d,
// ycsb-f, ycsb-95-5, read-txn, write-txn, txn, k2-default, k2-tao,
// c3-local, c3-remote, ChainReaction's cr-* workloads of chainreaction.go)
// and any "ycsb-R-W" read/update mix. Each client of a run gets its own Client, which turns a
// seeded *rand.Rand into a deterministic sequence of protocol.Requests.
// Every value a client writes is unique across the run: it starts with the
// ID "<session>-<seq>", which ValueID recovers, so a checker can tell which
// write a read observed.
//
// Popularity: zipfian (scrambled, as YCSB), zipf (the zipf law over
// exactly the keys, K2's) and latest take any zipf constant ≥ 0.5
// (Workload.ZipfConstant; K2 uses 0.9 to 1.4): YCSB's
// generator for its default 0.99, an exact rejection-inversion sampler for
// any other (zipf.go). YCSB D inserts keys beyond the records and reads
// the latest; F's read-modify-write is a get then a put of the same key.
// Multi-key operations (read_txn, write_txn) touch TxnKeys distinct keys.
//
// Placement: a client given an oracle (Client.SetPlacement, "is this key
// stored in my DC") draws, for a workload with LocalKeys, only local keys,
// except a RemoteFraction of operations whose keys are all remote, or
// runs of Poisson(LocalRun) local operations alternating with excursions
// of Poisson(RemoteRun) operations on one remote replica group
// (Client.SetGroup; C3's local and remote modes, excursion.go); redraws
// are bounded, so it never hangs.
//
// Load phase: Dataset describes the initial records, Key(0) ..
// Key(RecordCount-1), each with a loaded value derived from its key
// (protocol.Dataset). The simulator serves them without storing them;
// `causeway load` writes them to a live cluster.
package workload

import (
	"bytes"
	"cmp"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/causeway/causeway/protocol"
)

// Key popularity distributions accepted in Workload.Distribution.
const (
	// DistZipfian picks keys with a scrambled zipfian popularity over the
	// initial RecordCount keys.
	DistZipfian = "zipfian"
	// DistUniform picks keys uniformly over all keys the client knows of
	// (the initial records and its own inserts).
	DistUniform = "uniform"
	// DistLatest picks keys with a zipfian popularity skewed toward the
	// keys the client inserted most recently.
	DistLatest = "latest"
	// DistZipf picks key i of the initial RecordCount keys with
	// probability proportional to (i+1)^-theta: the zipf law over exactly
	// the keys, as Eiger's benchmark with SNOW's zipf generator draws them
	// (k2.txt §VII-B). DistZipfian draws YCSB's ranks over ten billion
	// items and hashes them onto the keys, which for theta < 1 leaves most
	// draws (75% at 0.9 over 100,000 keys) spread evenly; DistZipf keeps
	// the skew the constant names. Placement hashes key names, so Key(0),
	// the hottest, lands on no particular server.
	DistZipf = "zipf"
)

// Defaults used by the presets.
const (
	// DefaultRecordCount is the number of keys in the initial key space.
	DefaultRecordCount = 10000
	// DefaultValueSize is the size of each written value in bytes.
	DefaultValueSize = 200
	// DefaultTxnKeys is the number of keys per transaction.
	DefaultTxnKeys = 4
)

// KeyPrefix starts every key name; Key appends the zero-padded index.
const KeyPrefix = "user"

// keyDigits is the minimum number of digits of a key's index.
const keyDigits = 8

// Workload describes a benchmark's operation mix and key space. The
// proportions are of operations (a read-modify-write is one operation but
// two requests) and must sum to 1.
type Workload struct {
	// Name identifies the workload, e.g. "ycsb-a".
	Name string
	// Summary is a one-line human description.
	Summary string
	// RecordCount is the number of keys initially in the key space,
	// Key(0) .. Key(RecordCount-1).
	RecordCount int
	// ValueSize is the size in bytes of each written value (values are
	// never shorter than their ID plus '#').
	ValueSize int
	// ReadProportion is the share of single-key gets.
	ReadProportion float64
	// UpdateProportion is the share of single-key puts to existing keys
	// (with UpdateKeys above 1, of batches of them).
	UpdateProportion float64
	// InsertProportion is the share of puts to new keys beyond the
	// initial key space.
	InsertProportion float64
	// ReadModifyWriteProportion is the share of read-modify-writes: a get
	// of a key followed by a put of the same key.
	ReadModifyWriteProportion float64
	// ReadTxnProportion is the share of multi-key read transactions.
	ReadTxnProportion float64
	// WriteTxnProportion is the share of multi-key write transactions.
	WriteTxnProportion float64
	// DeleteProportion is the share of deletes of existing keys: puts of
	// a tombstone (protocol.Tombstone) whose ID is the client's next value
	// ID, recorded in histories as op "del".
	DeleteProportion float64
	// TxnKeys is the number of distinct keys per transaction.
	TxnKeys int
	// UpdateKeys, when above 1, makes each update a batch of that many
	// independent single-key puts of distinct keys, issued one after
	// another by the client: the "simple write" of Eiger's benchmark,
	// which K2 runs with "5 keys per operation" (k2.txt §VII-B). The
	// puts are separate operations in the history (none is atomic with
	// another); 0 or 1 is one put.
	UpdateKeys int
	// TxnKeysMax, when above TxnKeys, makes each transaction draw its
	// number of keys uniformly in [TxnKeys, TxnKeysMax] (chainreaction.txt
	// §7.3: "2 to 5 keys").
	TxnKeysMax int
	// Distribution is the key popularity: DistZipfian, DistZipf,
	// DistUniform or DistLatest.
	Distribution string
	// ZipfConstant is the skew (theta) of DistZipfian, DistZipf and DistLatest, at
	// least MinZipfConstant; 0 means ZipfianConstant (0.99). Constants
	// above 1 are fine (the K2 paper uses 1.2 and 1.4).
	ZipfConstant float64
	// LocalKeys restricts each client to keys stored in its datacenter
	// (C3's local mode), given the client's placement oracle
	// (Client.SetPlacement), except for a RemoteFraction of operations,
	// whose keys are all stored elsewhere (C3's remote mode). Without an
	// oracle, or with LocalKeys false, keys are drawn unrestricted.
	LocalKeys bool
	// RemoteFraction is the share of operations that make a remote
	// excursion when LocalKeys is set, in [0, 1].
	RemoteFraction float64
	// LocalRun and RemoteRun, when RemoteRun > 0 and LocalKeys is set,
	// replace RemoteFraction's independent draws by runs (c3.txt §5.2's
	// remote mode): a run of Poisson(LocalRun) operations on local keys,
	// then a remote excursion of Poisson(RemoteRun) operations whose keys
	// are all stored where the excursion's first key is (one replica
	// group, Client.SetGroup), and so on (excursion.go); the first local
	// run starts at a uniform point of its length. A client of a
	// migrating protocol thus migrates out and back about once per
	// LocalRun+RemoteRun operations.
	LocalRun, RemoteRun float64
}

// Theta returns the workload's zipf constant (ZipfConstant, or
// ZipfianConstant when unset).
func (w Workload) Theta() float64 {
	if w.ZipfConstant == 0 {
		return ZipfianConstant
	}
	return w.ZipfConstant
}

// preset builds a workload with the default key space.
func preset(name, summary string, read, update, insert, rmw float64, dist string) Workload {
	return Workload{
		Name:                      name,
		Summary:                   summary,
		RecordCount:               DefaultRecordCount,
		ValueSize:                 DefaultValueSize,
		ReadProportion:            read,
		UpdateProportion:          update,
		InsertProportion:          insert,
		ReadModifyWriteProportion: rmw,
		TxnKeys:                   DefaultTxnKeys,
		Distribution:              dist,
	}
}

// presets are the named workloads.
var presets = map[string]Workload{
	"ycsb-a": preset("ycsb-a", "YCSB A, update heavy: 50% reads / 50% updates, zipfian",
		0.5, 0.5, 0, 0, DistZipfian),
	"ycsb-b": preset("ycsb-b", "YCSB B, read mostly: 95% reads / 5% updates, zipfian",
		0.95, 0.05, 0, 0, DistZipfian),
	"ycsb-c": preset("ycsb-c", "YCSB C, read only: 100% reads, zipfian",
		1, 0, 0, 0, DistZipfian),
	"ycsb-d": preset("ycsb-d", "YCSB D, read latest: 95% reads / 5% inserts, latest",
		0.95, 0, 0.05, 0, DistLatest),
	"ycsb-f": preset("ycsb-f", "YCSB F, read-modify-write: 50% reads / 50% read-modify-writes, zipfian",
		0.5, 0, 0, 0.5, DistZipfian),
	"ycsb-95-5": preset("ycsb-95-5", "karma.txt §5 default: 95% reads / 5% puts, zipfian, 200-byte values",
		0.95, 0.05, 0, 0, DistZipfian),
	"read-txn": withReadTxns(preset("read-txn", "get-transactions (karma.txt §4.5): 75% gets / 15% puts / 10% read_txn of 4 keys, zipfian",
		0.75, 0.15, 0, 0, DistZipfian), 0.10),
	"txn": withWriteTxns(withReadTxns(preset("txn", "multi-key operations: 45% gets / 5% puts / 45% read_txn / 5% write_txn of 4 distinct keys, zipfian",
		0.45, 0.05, 0, 0, DistZipfian), 0.45), 0.05),
	"k2-default": k2Workload("k2-default",
		"K2's default (k2.txt §VII-B): 1M keys, 128 B values, 5 keys per op, zipf 1.2; 99% read_txn, 0.5% write_txn, 0.5% simple writes (5 independent single-key puts each)",
		0.005, 0.005, K2TxnKeys),
	"k2-tao": k2Workload("k2-tao",
		"K2's TAO workload (k2.txt §VII-C): k2-default's keys, sizes and skew with 0.2% writes, all single-key puts (no write_txn)",
		0.002, 0, 1),
	"write-txn": withWriteTxns(preset("write-txn", "multi-key writes: 90% gets / 10% write_txn of 4 distinct keys, zipfian",
		0.9, 0, 0, 0, DistZipfian), 0.1),
}

// K2's workloads (k2.txt §VII-B): Eiger's benchmark with SNOW's zipf.
const (
	// K2Records is K2's key count.
	K2Records = 1_000_000
	// K2ValueSize is K2's value size in bytes.
	K2ValueSize = 128
	// K2TxnKeys is the number of distinct keys per K2 operation.
	K2TxnKeys = 5
	// K2Zipf is K2's default zipf constant.
	K2Zipf = 1.2
)

// k2Workload is K2's benchmark: every read is a read-only transaction of
// K2TxnKeys keys, write_txns write K2TxnKeys keys, and with write_txns
// in the mix (k2-default) each update is Eiger's "simple write", a batch
// of K2TxnKeys independent single-key puts ("5 keys per operation",
// k2.txt §VII-B); k2-tao's writes are single-key puts. TAO's value sizes and keys per operation are not
// published (k2.txt cites them without numbers; Eiger's code withholds its
// distributions), so k2-tao keeps k2-default's 128 B values and 5-key
// reads, changing only the write mix.
func k2Workload(name, summary string, puts, writeTxns float64, updateKeys int) Workload {
	w := preset(name, summary, 0, puts, 0, 0, DistZipf)
	w.RecordCount = K2Records
	w.ValueSize = K2ValueSize
	w.TxnKeys = K2TxnKeys
	w.UpdateKeys = updateKeys
	w.ZipfConstant = K2Zipf
	w.ReadTxnProportion = 1 - puts - writeTxns
	w.WriteTxnProportion = writeTxns
	return w
}

// withReadTxns gives w a share of read-only transactions.
func withReadTxns(w Workload, share float64) Workload {
	w.ReadTxnProportion = share
	return w
}

// withWriteTxns gives w a share of write-only transactions.
func withWriteTxns(w Workload, share float64) Workload {
	w.WriteTxnProportion = share
	return w
}

// Names returns the preset workload names, sorted. Lookup also accepts
// "ycsb-R-W" for any R+W=100.
func Names() []string {
	return slices.Sorted(maps.Keys(presets))
}

// Lookup returns the named workload: a preset (see Names) or "ycsb-R-W",
// R% reads and W% updates with R+W=100 over a zipfian key space.
func Lookup(name string) (Workload, error) {
	if w, ok := presets[name]; ok {
		return w, nil
	}
	if rest, ok := strings.CutPrefix(name, "ycsb-"); ok {
		if rs, ws, ok := strings.Cut(rest, "-"); ok && isDigits(rs) && isDigits(ws) {
			r, errR := strconv.Atoi(rs)
			w, errW := strconv.Atoi(ws)
			if errR != nil || errW != nil || r+w != 100 {
				return Workload{}, fmt.Errorf("workload %q: ycsb-R-W needs R+W=100; valid: %s, or ycsb-R-W with R+W=100",
					name, strings.Join(Names(), ", "))
			}
			canon := fmt.Sprintf("ycsb-%d-%d", r, w)
			return preset(canon, fmt.Sprintf("%d%% reads / %d%% updates, zipfian", r, w),
				float64(r)/100, float64(w)/100, 0, 0, DistZipfian), nil
		}
	}
	return Workload{}, fmt.Errorf("unknown workload %q; valid: %s, or ycsb-R-W with R+W=100",
		name, strings.Join(Names(), ", "))
}

// isDigits reports whether s is a non-empty string of ASCII digits of a
// sane length.
func isDigits(s string) bool {
	if s == "" || len(s) > 9 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// Validate reports whether the workload can generate requests.
func (w Workload) Validate() error {
	if w.RecordCount < 1 {
		return fmt.Errorf("workload %q: RecordCount %d < 1", w.Name, w.RecordCount)
	}
	if w.ValueSize < 0 {
		return fmt.Errorf("workload %q: ValueSize %d < 0", w.Name, w.ValueSize)
	}
	props := []struct {
		name string
		p    float64
	}{
		{"ReadProportion", w.ReadProportion},
		{"UpdateProportion", w.UpdateProportion},
		{"InsertProportion", w.InsertProportion},
		{"ReadModifyWriteProportion", w.ReadModifyWriteProportion},
		{"ReadTxnProportion", w.ReadTxnProportion},
		{"WriteTxnProportion", w.WriteTxnProportion},
		{"DeleteProportion", w.DeleteProportion},
	}
	sum := 0.0
	for _, p := range props {
		if !(p.p >= 0 && p.p <= 1) {
			return fmt.Errorf("workload %q: %s %v not in [0, 1]", w.Name, p.name, p.p)
		}
		sum += p.p
	}
	if math.Abs(sum-1) > 1e-6 {
		return fmt.Errorf("workload %q: proportions sum to %v, not 1", w.Name, sum)
	}
	if w.UpdateKeys < 0 || w.UpdateKeys > w.RecordCount {
		return fmt.Errorf("workload %q: UpdateKeys %d not in [0, RecordCount=%d]", w.Name, w.UpdateKeys, w.RecordCount)
	}
	if w.ReadTxnProportion > 0 || w.WriteTxnProportion > 0 {
		if w.TxnKeys < 1 || w.TxnKeys > w.RecordCount {
			return fmt.Errorf("workload %q: TxnKeys %d not in [1, RecordCount=%d]", w.Name, w.TxnKeys, w.RecordCount)
		}
		if w.TxnKeysMax > w.RecordCount {
			return fmt.Errorf("workload %q: TxnKeysMax %d above RecordCount=%d", w.Name, w.TxnKeysMax, w.RecordCount)
		}
	}
	switch w.Distribution {
	case DistZipfian, DistZipf, DistUniform, DistLatest:
	default:
		return fmt.Errorf("workload %q: unknown distribution %q (want %s, %s, %s or %s)",
			w.Name, w.Distribution, DistZipfian, DistZipf, DistUniform, DistLatest)
	}
	if w.ZipfConstant != 0 && !(w.ZipfConstant >= MinZipfConstant && w.ZipfConstant <= 100) {
		return fmt.Errorf("workload %q: ZipfConstant %v not in [%v, 100]", w.Name, w.ZipfConstant, MinZipfConstant)
	}
	if !(w.RemoteFraction >= 0 && w.RemoteFraction <= 1) {
		return fmt.Errorf("workload %q: RemoteFraction %v not in [0, 1]", w.Name, w.RemoteFraction)
	}
	return w.validateRuns()
}

// Key returns the name of the key with index i: KeyPrefix followed by i
// zero-padded to at least 8 digits, e.g. Key(42) == "user00000042".
func Key(i int64) string {
	var buf [len(KeyPrefix) + 20]byte
	b := append(buf[:0], KeyPrefix...)
	var digits [20]byte
	d := strconv.AppendInt(digits[:0], i, 10)
	for n := len(d); n < keyDigits; n++ {
		b = append(b, '0')
	}
	b = append(b, d...)
	return string(b)
}

// MakeValue returns a value with the given ID: id, then '#', then padding
// up to size bytes. The value is never shorter than len(id)+1 bytes. id must
// not contain '#'.
func MakeValue(id string, size int) []byte {
	n := len(id) + 1
	if size > n {
		n = size
	}
	b := make([]byte, n)
	copy(b, id)
	b[len(id)] = '#'
	for i := len(id) + 1; i < n; i++ {
		b[i] = 'a' + byte(i%26)
	}
	return b
}

// ValueID returns the ID of a value made by MakeValue: the bytes before the
// first '#', or the whole value if it has none.
func ValueID(v []byte) string {
	if i := bytes.IndexByte(v, '#'); i >= 0 {
		return string(v[:i])
	}
	return string(v)
}

// op is one kind of workload operation.
type op int

const (
	opRead op = iota
	opUpdate
	opInsert
	opRMW
	opReadTxn
	opWriteTxn
	// opDelete is last, so that a workload without deletes draws exactly
	// as it did before deletes existed.
	opDelete
	numOps
)

// Client generates one client's requests. It is deterministic given its
// workload, session and random source, and not safe for concurrent use.
type Client struct {
	w       Workload
	session string
	rng     *rand.Rand

	// cum holds the cumulative operation proportions, indexed by op.
	cum [numOps]float64

	// inserts hands out the indexes of new keys, starting at RecordCount;
	// its Last is the highest key index the client knows of.
	inserts *Counter
	// zipf picks keys for DistZipfian and DistZipf, latest for DistLatest.
	zipf   Generator
	latest *Latest

	// seq counts the client's writes.
	seq uint64

	// queued are requests an earlier draw already decided: the put that
	// completes a read-modify-write, the rest of an update batch
	// (Workload.UpdateKeys).
	queued []protocol.Request

	// local is the placement oracle (SetPlacement); placed is set while
	// the current operation's keys must satisfy local(key) == wantLocal.
	local     func(key string) bool
	placed    bool
	wantLocal bool

	// group is the replica-group oracle (SetGroup); runs is the state of
	// LocalRun/RemoteRun's alternation.
	group func(key string) string
	runs  runState
}

// maxPlacementDraws bounds the draws for a key that satisfies the
// operation's placement mode; if none does, the last draw is used.
const maxPlacementDraws = 64

// SetPlacement gives the client its placement oracle: local(key) reports
// whether key is stored in the client's datacenter. It matters only for a
// workload with LocalKeys (see Workload.LocalKeys); the workload package
// knows nothing of protocols, so the driver derives local from where the
// protocol places the key's replicas.
func (c *Client) SetPlacement(local func(key string) bool) {
	c.local = local
}

// NewClient returns a request generator for one client. session names the
// client in value IDs and must be unique within the run and must not
// contain '#'; rng is the client's only source of randomness. NewClient
// panics if the workload is invalid, session contains '#', or rng is nil.
func (w Workload) NewClient(session string, rng *rand.Rand) *Client {
	if err := w.Validate(); err != nil {
		panic("workload: NewClient: " + err.Error())
	}
	if strings.Contains(session, "#") {
		panic(fmt.Sprintf("workload: NewClient: session %q contains '#'", session))
	}
	if rng == nil {
		panic("workload: NewClient: nil rng")
	}
	c := &Client{
		w:       w,
		session: session,
		rng:     rng,
		inserts: NewCounter(int64(w.RecordCount)),
	}
	props := [numOps]float64{
		opRead:     w.ReadProportion,
		opUpdate:   w.UpdateProportion,
		opInsert:   w.InsertProportion,
		opRMW:      w.ReadModifyWriteProportion,
		opReadTxn:  w.ReadTxnProportion,
		opWriteTxn: w.WriteTxnProportion,
		opDelete:   w.DeleteProportion,
	}
	sum := 0.0
	for i, p := range props {
		sum += p
		c.cum[i] = sum
	}
	switch w.Distribution {
	case DistZipfian:
		c.zipf = NewScrambledZipfianTheta(0, int64(w.RecordCount)-1, w.Theta())
	case DistZipf:
		c.zipf = NewZipfianTheta(0, int64(w.RecordCount)-1, w.Theta())
	case DistLatest:
		c.latest = NewLatestTheta(c.inserts, w.Theta())
	}
	return c
}

// Next returns the client's next request. A read-modify-write yields two
// consecutive requests: a get, then a put of the same key.
func (c *Client) Next() protocol.Request {
	if len(c.queued) > 0 {
		req := c.queued[0]
		c.queued = c.queued[1:]
		return req
	}
	kind := c.chooseOp()
	c.placed = c.local != nil && c.w.LocalKeys
	switch {
	case c.placed && c.w.RemoteRun > 0:
		c.wantLocal = c.nextInRun()
	case c.placed:
		c.wantLocal = !(c.rng.Float64() < c.w.RemoteFraction)
	}
	switch kind {
	case opUpdate:
		if c.w.UpdateKeys <= 1 {
			return c.put(c.drawKey())
		}
		first := protocol.Request{}
		for i, k := range c.distinctKeys(c.w.UpdateKeys) {
			if i == 0 {
				first = c.put(k)
			} else {
				c.queued = append(c.queued, c.put(k))
			}
		}
		return first
	case opInsert:
		return c.put(c.inserts.Next(c.rng))
	case opDelete:
		c.seq++
		id := c.session + "-" + strconv.FormatUint(c.seq, 10)
		return protocol.Request{Op: protocol.OpPut, Key: Key(c.drawKey()), Value: protocol.Tombstone(id)}
	case opRMW:
		k := c.drawKey()
		c.queued = append(c.queued, c.put(k))
		return protocol.Request{Op: protocol.OpGet, Key: Key(k)}
	case opReadTxn:
		idx := c.distinctKeys(c.txnKeys())
		keys := make([]string, len(idx))
		for i, k := range idx {
			keys[i] = Key(k)
		}
		return protocol.Request{Op: protocol.OpReadTxn, Keys: keys}
	case opWriteTxn:
		idx := c.distinctKeys(c.txnKeys())
		writes := make([]protocol.KV, len(idx))
		for i, k := range idx {
			writes[i] = protocol.KV{Key: Key(k), Value: c.nextValue()}
		}
		return protocol.Request{Op: protocol.OpWriteTxn, Writes: writes}
	default:
		return protocol.Request{Op: protocol.OpGet, Key: Key(c.drawKey())}
	}
}

// txnKeys draws how many keys the next transaction has.
func (c *Client) txnKeys() int {
	n := c.w.TxnKeys
	if c.w.TxnKeysMax > n {
		n += c.rng.IntN(c.w.TxnKeysMax - n + 1)
	}
	return n
}

// drawKey draws the index of an existing key for the current operation:
// from the workload's distribution, redrawn (up to maxPlacementDraws
// times) until it satisfies the operation's placement mode.
func (c *Client) drawKey() int64 {
	k := c.nextKeyIndex()
	if !c.placed {
		return k
	}
	for i := 1; i < maxPlacementDraws && !c.fits(Key(k)); i++ {
		k = c.nextKeyIndex()
	}
	c.joinExcursion(Key(k))
	return k
}

// fits reports whether key satisfies the current operation's placement
// mode: local or remote as wanted and, in a remote excursion, stored
// where the excursion's keys are.
func (c *Client) fits(key string) bool {
	if c.local(key) != c.wantLocal {
		return false
	}
	return c.wantLocal || c.runs.group == "" || c.group == nil || c.group(key) == c.runs.group
}

// chooseOp draws the next operation kind.
func (c *Client) chooseOp() op {
	u := c.rng.Float64() * c.cum[numOps-1]
	for i, cum := range c.cum {
		if u < cum {
			return op(i)
		}
	}
	// Rounding at the top end: take the last operation with a share.
	for i := numOps - 1; i > 0; i-- {
		if c.cum[i] > c.cum[i-1] {
			return i
		}
	}
	return opRead
}

// put returns a put of key index k with a fresh value.
func (c *Client) put(k int64) protocol.Request {
	return protocol.Request{Op: protocol.OpPut, Key: Key(k), Value: c.nextValue()}
}

// nextValue returns a value with the client's next unique ID.
func (c *Client) nextValue() []byte {
	c.seq++
	var buf [20]byte
	id := c.session + "-" + string(strconv.AppendUint(buf[:0], c.seq, 10))
	return MakeValue(id, c.w.ValueSize)
}

// nextKeyIndex draws the index of an existing key from the workload's
// distribution.
func (c *Client) nextKeyIndex() int64 {
	switch {
	case c.latest != nil:
		return c.latest.Next(c.rng)
	case c.zipf != nil:
		return c.zipf.Next(c.rng)
	default:
		return c.rng.Int64N(c.inserts.Last() + 1)
	}
}

// distinctKeys draws n distinct key indexes. After a few repeated draws it
// falls back to probing upward from the last draw, so it terminates even
// under heavy skew; n must not exceed the key space (Validate ensures it).
func (c *Client) distinctKeys(n int) []int64 {
	const maxDraws = 32
	space := c.inserts.Last() + 1
	idx := make([]int64, 0, n)
	for len(idx) < n {
		k := c.drawKey()
		for tries := 0; slices.Contains(idx, k); tries++ {
			if tries < maxDraws {
				k = c.drawKey()
			} else {
				k = (k + 1) % space
			}
		}
		idx = append(idx, k)
	}
	return idx
}

// Dataset describes the workload's initial records, Key(0) ..
// Key(RecordCount-1), for the load phase: the simulator hands it to every
// node (each loaded key starts with Dataset.Value(key), derived from the
// key, ValueSize bytes long), and `causeway load` writes those values to a
// live cluster. Keys inserted during the run are not loaded.
func (w Workload) Dataset() *protocol.Dataset {
	return &protocol.Dataset{Records: int64(w.RecordCount), KeyPrefix: KeyPrefix, KeyDigits: keyDigits, ValueSize: w.ValueSize}
}

// WarmOrder draws reads read operations' keys as a client of w would (a
// read_txn's distinct keys when w has read transactions, else one key),
// with no write among them, and returns the indexes of the keys they
// touched, each once, least recently read first: what an LRU cache fed
// by those reads holds is the tail of the list (protocol.Dataset.Warm).
// It is deterministic in rng.
func (w Workload) WarmOrder(reads int, rng *rand.Rand) []int64 {
	c := w.NewClient("warm", rng)
	last := make(map[int64]int, min(reads*max(1, w.TxnKeys), w.RecordCount))
	n := 0 // draws so far: a key's last is its latest draw's number
	for range reads {
		keys := []int64{0}
		if w.ReadTxnProportion > 0 {
			keys = c.distinctKeys(c.txnKeys())
		} else {
			keys[0] = c.drawKey()
		}
		for _, k := range keys {
			n++
			last[k] = n
		}
	}
	order := make([]int64, 0, len(last))
	for k := range last {
		order = append(order, k)
	}
	slices.SortFunc(order, func(a, b int64) int { return cmp.Compare(last[a], last[b]) })
	return order
}
