package workload

import (
	"math"
	"reflect"
	"strconv"
	"testing"

	"github.com/causeway/causeway/protocol"
)

// TestC3RemoteRuns checks c3-remote's alternation: runs of local keys
// with a mean of C3LocalRun operations, excursions of remote keys with a
// mean of C3RemoteRun, every key of an excursion in one replica group,
// and half the operations writes.
func TestC3RemoteRuns(t *testing.T) {
	const ops = 200_000
	w := mustLookup(t, "c3-remote")
	c := w.NewClient("r", newRand(5))
	c.SetPlacement(evenLocal(t))
	// Remote (odd) keys fall in three groups.
	group := func(key string) string { return strconv.FormatInt(keyIndex(t, key)%3, 10) }
	c.SetGroup(group)
	var localRuns, remoteRuns []int
	run, remote, excursion, puts := 0, false, "", 0
	for i := range ops {
		req := c.Next()
		if req.Op == protocol.OpPut {
			puts++
		}
		isRemote := keyIndex(t, req.Key)%2 == 1
		if i > 0 && isRemote != remote {
			if remote {
				remoteRuns = append(remoteRuns, run)
			} else {
				localRuns = append(localRuns, run)
			}
			run = 0
		}
		if isRemote && run == 0 {
			excursion = group(req.Key)
		}
		if isRemote && group(req.Key) != excursion {
			t.Fatalf("op %d: key %s of group %s in an excursion to group %s", i, req.Key, group(req.Key), excursion)
		}
		run++
		remote = isRemote
	}
	mean := func(xs []int) float64 {
		s := 0
		for _, x := range xs {
			s += x
		}
		return float64(s) / float64(len(xs))
	}
	// A remote run of 0 (e^-5 of them) joins two local runs.
	if m := mean(localRuns); math.Abs(m-C3LocalRun) > 0.05*C3LocalRun {
		t.Errorf("mean local run %.1f over %d runs, want about %d", m, len(localRuns), C3LocalRun)
	}
	if m := mean(remoteRuns); math.Abs(m-C3RemoteRun) > 0.05*C3RemoteRun {
		t.Errorf("mean remote run %.2f over %d runs, want about %d", m, len(remoteRuns), C3RemoteRun)
	}
	if f := float64(puts) / ops; math.Abs(f-0.5) > 0.01 {
		t.Errorf("%.3f of operations are writes, want 0.5", f)
	}
}

// TestC3LocalMode checks c3-local: every key local, half writes, the
// documented key space and value size.
func TestC3LocalMode(t *testing.T) {
	w := mustLookup(t, "c3-local")
	if w.RecordCount != C3Records || w.ValueSize != C3ValueSize || w.Theta() != ZipfianConstant {
		t.Fatalf("c3-local: %d keys of %d B, zipf %v", w.RecordCount, w.ValueSize, w.Theta())
	}
	c := w.NewClient("l", newRand(6))
	c.SetPlacement(evenLocal(t))
	puts := 0
	for range 10_000 {
		req := c.Next()
		if keyIndex(t, req.Key)%2 != 0 {
			t.Fatalf("c3-local drew remote key %s", req.Key)
		}
		if req.Op == protocol.OpPut {
			puts++
			if len(req.Value) != C3ValueSize {
				t.Fatalf("value of %d bytes, want %d", len(req.Value), C3ValueSize)
			}
		}
	}
	if f := float64(puts) / 10_000; math.Abs(f-0.5) > 0.02 {
		t.Errorf("%.3f writes, want 0.5", f)
	}
}

// TestC3RemoteDeterministic checks that the remote mode's requests are a
// function of the seed alone.
func TestC3RemoteDeterministic(t *testing.T) {
	w := mustLookup(t, "c3-remote")
	gen := func(seed uint64) []protocol.Request {
		c := w.NewClient("d", newRand(seed))
		c.SetPlacement(evenLocal(t))
		c.SetGroup(func(key string) string { return strconv.FormatInt(keyIndex(t, key)%3, 10) })
		out := make([]protocol.Request, 2000)
		for i := range out {
			out[i] = c.Next()
		}
		return out
	}
	if a, b := gen(9), gen(9); !reflect.DeepEqual(a, b) {
		t.Error("same seed, different requests")
	}
	if a, b := gen(9), gen(10); reflect.DeepEqual(a, b) {
		t.Error("different seeds, same requests")
	}
}

// TestPoisson checks the sampler's mean and variance, small and large
// means alike.
func TestPoisson(t *testing.T) {
	r := newRand(3)
	for _, lambda := range []float64{0, 0.5, 5, 95, 1200} {
		const n = 20_000
		sum, sq := 0.0, 0.0
		for range n {
			x := float64(poisson(r, lambda))
			sum += x
			sq += x * x
		}
		mean := sum / n
		variance := sq/n - mean*mean
		tol := 4 * math.Sqrt(lambda/n) // four standard errors of the mean
		if math.Abs(mean-lambda) > tol+1e-9 || math.Abs(variance-lambda) > 0.1*lambda+1e-9 {
			t.Errorf("Poisson(%v): mean %.3f variance %.3f", lambda, mean, variance)
		}
	}
}

// TestRunsValidate rejects negative run means.
func TestRunsValidate(t *testing.T) {
	w := mustLookup(t, "c3-remote")
	w.RemoteRun = -1
	if w.Validate() == nil {
		t.Error("RemoteRun -1 accepted")
	}
}

// TestC3RemoteStartsMidRun checks that clients start at a random point
// of their first local run: a client that runs fewer operations than
// C3LocalRun leaves home in about half the cases, not almost never.
func TestC3RemoteStartsMidRun(t *testing.T) {
	w := mustLookup(t, "c3-remote")
	const clients, ops = 400, 72 // c3.txt §5.2's per-thread count at 350 threads
	left := 0
	for i := range clients {
		c := w.NewClient("s"+strconv.Itoa(i), newRand(uint64(100+i)))
		c.SetPlacement(evenLocal(t))
		for range ops {
			if keyIndex(t, c.Next().Key)%2 == 1 {
				left++
				break
			}
		}
	}
	// The first excursion comes after U(0, ~95) operations: before the
	// 72nd in about 72/95 of the clients.
	if f := float64(left) / clients; f < 0.6 || f > 0.9 {
		t.Errorf("%.2f of clients left home within %d operations, want about %.2f", f, ops, float64(ops)/C3LocalRun)
	}
}
