//go:build linux && (amd64 || arm64)

package storage

import (
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"unsafe"

	"github.com/cockroachdb/pebble/v2/vfs"
	"golang.org/x/sys/unix"
)

// Syncs through Linux AIO.
//
// A goroutine that calls fdatasync holds its P (a node runs one, see
// cluster.NodeProcs) in a system call for the whole sync, 0.1-1 ms on the
// development machine's disk. Go's sysmon retakes a P held in a system
// call for more than 20 µs and hands it to another thread, which the
// syncing thread must give it back from, and the kernel's work for the
// sync (about 75 µs of CPU each) runs in the node's process. An
// IOCB_CMD_FDSYNC submitted with io_submit returns at once; the kernel
// syncs the file on a worker thread (the same vfs_fsync_range as
// fdatasync) and signals the completion on an eventfd that Go's poller
// watches, so the syncing goroutine waits parked, holding no P. Live,
// local3 cops at 96 clients: node CPU per operation 0.82x, throughput
// 1.11x (docs/performance.md, session 14). Where AIO cannot be set up, or
// refuses a file, the sync is a plain system call.
//
// A synced write is durable exactly as before: the completion of the
// AIO request is the completion of the sync, its error the sync's error.

// aioSyncer syncs files with Linux AIO. One per store; safe for
// concurrent use.
type aioSyncer struct {
	ctx uintptr  // aio_context_t
	efd *os.File // the eventfd completions signal, read through the poller
	// rawEfd is efd's descriptor (efd.Fd() would make it blocking).
	rawEfd uint32
	mu     sync.Mutex
	// waiting holds, by request id, each submitted request's control
	// block (kept reachable while the kernel uses it) and where its
	// result goes.
	waiting map[uint64]*aioRequest
	next    uint64
	err     error // set once the reaper stops on an error
	done    chan struct{}
}

type aioRequest struct {
	cb  iocb
	res chan error
}

// iocb is struct iocb of linux/aio_abi.h on a little-endian machine.
type iocb struct {
	data   uint64
	_      uint32 // aio_key
	_      int32  // aio_rw_flags
	opcode uint16
	_      int16 // aio_reqprio
	fildes uint32
	_      uint64 // aio_buf
	_      uint64 // aio_nbytes
	_      int64  // aio_offset
	_      uint64 // aio_reserved2
	flags  uint32
	resfd  uint32
}

// ioEvent is struct io_event.
type ioEvent struct {
	data uint64
	obj  uint64
	res  int64
	res2 int64
}

const (
	iocbCmdFsync  = 2
	iocbCmdFdsync = 3
	iocbFlagResfd = 1 << 0
	aioMaxEvents  = 64
)

// newAIOSyncer sets up an AIO context and its eventfd, or fails (the
// caller then syncs with plain system calls).
func newAIOSyncer() (*aioSyncer, error) {
	var ctx uintptr
	if _, _, errno := unix.Syscall(unix.SYS_IO_SETUP, aioMaxEvents, uintptr(unsafe.Pointer(&ctx)), 0); errno != 0 {
		return nil, fmt.Errorf("io_setup: %w", errno)
	}
	fd, err := unix.Eventfd(0, unix.EFD_NONBLOCK|unix.EFD_CLOEXEC)
	if err != nil {
		unix.Syscall(unix.SYS_IO_DESTROY, ctx, 0, 0)
		return nil, fmt.Errorf("eventfd: %w", err)
	}
	s := &aioSyncer{ctx: ctx, efd: os.NewFile(uintptr(fd), "aio-eventfd"), rawEfd: uint32(fd), waiting: map[uint64]*aioRequest{}, done: make(chan struct{})}
	go s.reap()
	return s, nil
}

// aioSyncs counts the syncs submitted through AIO (for tests).
var aioSyncs atomic.Uint64

// sync makes fd's data (and with full, its metadata too) durable, as
// fdatasync (fsync) would.
func (s *aioSyncer) sync(fd uintptr, full bool) error {
	aioSyncs.Add(1)
	r := &aioRequest{res: make(chan error, 1)}
	r.cb.opcode = iocbCmdFdsync
	if full {
		r.cb.opcode = iocbCmdFsync
	}
	r.cb.fildes = uint32(fd)
	r.cb.flags = iocbFlagResfd
	r.cb.resfd = s.rawEfd
	s.mu.Lock()
	if s.err != nil {
		s.mu.Unlock()
		return s.err
	}
	s.next++
	r.cb.data = s.next
	s.waiting[r.cb.data] = r
	cbp := &r.cb
	for {
		_, _, errno := unix.Syscall(unix.SYS_IO_SUBMIT, s.ctx, 1, uintptr(unsafe.Pointer(&cbp)))
		if errno == syscall.EINTR {
			continue
		}
		if errno != 0 {
			// Too many requests in flight (EAGAIN), or a file AIO cannot
			// sync (EINVAL): the plain system call decides.
			delete(s.waiting, r.cb.data)
			s.mu.Unlock()
			if full {
				return unix.Fsync(int(fd))
			}
			return unix.Fdatasync(int(fd))
		}
		break
	}
	s.mu.Unlock()
	return <-r.res
}

// reap waits for completions on the eventfd and hands each request its
// result, until the eventfd is closed.
func (s *aioSyncer) reap() {
	defer close(s.done)
	var buf [8]byte
	var events [aioMaxEvents]ioEvent
	for {
		if _, err := s.efd.Read(buf[:]); err != nil {
			s.fail(fmt.Errorf("storage: aio eventfd: %w", err))
			return
		}
		for {
			n, _, errno := unix.Syscall6(unix.SYS_IO_GETEVENTS, s.ctx, 0, aioMaxEvents, uintptr(unsafe.Pointer(&events[0])), uintptr(unsafe.Pointer(&unix.Timespec{})), 0)
			if errno == syscall.EINTR {
				continue
			}
			if errno != 0 {
				s.fail(fmt.Errorf("storage: io_getevents: %w", errno))
				return
			}
			s.mu.Lock()
			for _, ev := range events[:n] {
				r := s.waiting[ev.data]
				delete(s.waiting, ev.data)
				if r == nil {
					continue
				}
				var err error
				if ev.res < 0 {
					err = syscall.Errno(-ev.res)
				}
				r.res <- err
			}
			s.mu.Unlock()
			if n < aioMaxEvents {
				break
			}
		}
	}
}

// fail fails every waiting request and every later one with err.
func (s *aioSyncer) fail(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.err = err
	for id, r := range s.waiting {
		r.res <- err
		delete(s.waiting, id)
	}
}

// close stops the reaper and releases the context. No sync may be in
// progress.
func (s *aioSyncer) close() error {
	err := s.efd.Close()
	<-s.done
	if _, _, errno := unix.Syscall(unix.SYS_IO_DESTROY, s.ctx, 0, 0); errno != 0 && err == nil {
		err = fmt.Errorf("io_destroy: %w", errno)
	}
	return err
}

// aioFS is a vfs.FS whose files opened for writing sync through s.
type aioFS struct {
	vfs.FS
	s *aioSyncer
}

func (fs aioFS) wrap(f vfs.File, err error) (vfs.File, error) {
	if err != nil || f.Fd() == vfs.InvalidFd {
		return f, err
	}
	return aioFile{File: f, s: fs.s}, nil
}

func (fs aioFS) Create(name string, category vfs.DiskWriteCategory) (vfs.File, error) {
	return fs.wrap(fs.FS.Create(name, category))
}

func (fs aioFS) ReuseForWrite(oldname, newname string, category vfs.DiskWriteCategory) (vfs.File, error) {
	return fs.wrap(fs.FS.ReuseForWrite(oldname, newname, category))
}

func (fs aioFS) OpenReadWrite(name string, category vfs.DiskWriteCategory, opts ...vfs.OpenOption) (vfs.File, error) {
	return fs.wrap(fs.FS.OpenReadWrite(name, category, opts...))
}

// aioFile is a file whose Sync and SyncData go through AIO.
type aioFile struct {
	vfs.File
	s *aioSyncer
}

func (f aioFile) Sync() error     { return f.s.sync(f.Fd(), true) }
func (f aioFile) SyncData() error { return f.s.sync(f.Fd(), false) }

// openAIO wraps fs (the real disk) so that its written files sync
// through AIO; without AIO it returns fs and a nil closer.
func openAIO(fs vfs.FS) (vfs.FS, func() error) {
	s, err := newAIOSyncer()
	if err != nil {
		return fs, nil
	}
	return aioFS{FS: fs, s: s}, s.close
}
