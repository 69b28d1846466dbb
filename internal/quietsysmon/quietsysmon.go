// Package quietsysmon keeps the Go runtime's sysmon thread from polling
// every 20 µs in a process that goes idle and is woken thousands of times
// a second: a node, and the bench client.
//
// sysmon sleeps deeply while no goroutine runs; the next system call (a
// node's read of the frame that woke it) wakes it and resets its interval
// to 20 µs, which it keeps while the process is busy, doubling it only
// after 50 polls that found nothing to do. A node started that over at
// every wake: sysmon was a fifth of the nodes' CPU and most of their
// context switches, and 14% of the bench client's (docs/performance.md,
// session 16). With GODEBUG's schedtrace set, sysmon never sleeps deeply
// (so as to print the trace on time), nothing resets its interval, and it
// grows to 10 ms and stays there. Setting's period is the largest GODEBUG
// takes, about 24.9 days of the machine's monotonic clock: a process
// started on a machine up longer than that prints one scheduler line to
// its standard error at start, and another every 24.9 days.
//
// What the 10 ms interval changes: sysmon takes the P of a goroutine
// blocked in a system call after 10-20 ms instead of 20 µs (a node runs
// one P, so its other goroutines wait for a WAL fdatasync, 0.1-1 ms here,
// instead of running on another thread meanwhile); a goroutine that runs
// 10 ms without yielding is preempted as before; the network is polled by
// sysmon every 10 ms when no P does, as before.
package quietsysmon

import (
	"os"
	"strings"
	"syscall"
)

// Setting is what Env adds to GODEBUG.
const Setting = "schedtrace=2147483647"

// Env returns the GODEBUG variable for a process whose environment is
// environ (later entries win), with Setting added to what environ's
// GODEBUG sets; false if that sets schedtrace already.
func Env(environ []string) (string, bool) {
	cur := ""
	for _, kv := range environ {
		if v, ok := strings.CutPrefix(kv, "GODEBUG="); ok {
			cur = v
		}
	}
	for _, f := range strings.Split(cur, ",") {
		if strings.HasPrefix(f, "schedtrace=") {
			return "", false
		}
	}
	if cur == "" {
		return "GODEBUG=" + Setting, true
	}
	return "GODEBUG=" + cur + "," + Setting, true
}

// Reexec runs this executable again in place of the process, with the
// same arguments and Setting added to GODEBUG, unless GODEBUG sets
// schedtrace already (so the second run goes on): the runtime reads
// GODEBUG's schedtrace only when the process starts. It returns only if
// there is nothing to do or the exec failed (the process then goes on as
// it is). Call it first thing in main, before any other goroutine.
func Reexec() {
	godebug, ok := Env(os.Environ())
	if !ok {
		return
	}
	exe, err := os.Executable()
	if err != nil {
		return
	}
	_ = syscall.Exec(exe, os.Args, append(os.Environ(), godebug))
}
