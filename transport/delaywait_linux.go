//go:build linux

package transport

import (
	"encoding/binary"
	"runtime"
	"time"

	"golang.org/x/sys/unix"
)

// prepareWaiterThread pins the delay line's goroutine to its OS thread
// and sets that thread's timer slack to 1 ns (the default, 50 µs, is what
// the kernel may add to every sleep). The thread is never unpinned, so it
// ends with the goroutine and its slack with it.
func prepareWaiterThread() {
	runtime.LockOSThread()
	_ = unix.Prctl(unix.PR_SET_TIMERSLACK, 1, 0, 0, 0)
}

// fdWaiter sleeps in ppoll on an eventfd: the timeout has nanosecond
// resolution (Go's own timers round sub-millisecond sleeps up to a
// millisecond when the process is idle), and writing the eventfd wakes
// it.
type fdWaiter struct{ fd int }

func newWaiter() waiter {
	fd, err := unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
	if err != nil {
		return newChanWaiter()
	}
	return &fdWaiter{fd: fd}
}

func (w *fdWaiter) wait(d time.Duration) {
	var ts *unix.Timespec
	if d >= 0 {
		t := unix.NsecToTimespec(d.Nanoseconds())
		ts = &t
	}
	fds := []unix.PollFd{{Fd: int32(w.fd), Events: unix.POLLIN}}
	n, err := unix.Ppoll(fds, ts, nil)
	if err == nil && n > 0 {
		var b [8]byte
		_, _ = unix.Read(w.fd, b[:]) // reset the counter
	}
}

func (w *fdWaiter) wake() {
	var b [8]byte
	binary.NativeEndian.PutUint64(b[:], 1)
	_, _ = unix.Write(w.fd, b[:])
}

func (w *fdWaiter) close() { _ = unix.Close(w.fd) }
