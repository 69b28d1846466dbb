//go:build linux

package transport

import (
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// timerWaiter sleeps on a timerfd read through Go's network poller: the
// timer has nanosecond resolution and no timer slack (Go's own timers
// round sub-millisecond sleeps up to a millisecond when the process is
// idle), and while it waits the goroutine is parked like one waiting on
// a socket, holding no thread. (The waiter it replaces slept in ppoll on
// an eventfd from a goroutine locked to its thread: every wake-up of the
// line took a P back from a blocking system call, and each such call
// also woke the runtime's sysmon thread, which then polls every 20 µs —
// with six node processes on two cores, a fifth of their CPU samples.)
type timerWaiter struct {
	fd int
	f  *os.File
}

func newWaiter() waiter {
	fd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
	if err != nil {
		return newChanWaiter()
	}
	// A non-blocking descriptor makes a File the poller serves.
	return &timerWaiter{fd: fd, f: os.NewFile(uintptr(fd), "delay-line-timerfd")}
}

func (w *timerWaiter) arm(d time.Duration) {
	var spec unix.ItimerSpec // zero: disarmed
	if d >= 0 {
		spec.Value = unix.NsecToTimespec(max(d.Nanoseconds(), 1)) // 0 would disarm
	}
	_ = unix.TimerfdSettime(w.fd, 0, &spec, nil)
}

func (w *timerWaiter) wait() {
	var b [8]byte
	_, _ = w.f.Read(b[:]) // the count of expirations; an error once closed
}

func (w *timerWaiter) close() { _ = w.f.Close() }
