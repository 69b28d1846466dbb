package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"sync/atomic"
	"syscall"
)

// exitInterrupted is the exit status of a run stopped by Ctrl-C (128 +
// SIGINT, as shells report it) that otherwise completed: its summary was
// printed and its history written, but it did not run its full length.
const exitInterrupted = 130

// interruptContext returns a context that the first SIGINT or SIGTERM
// cancels, telling stderr what happens next; stop releases the signals.
// After the first signal the default handling is back, so a second
// Ctrl-C kills the process at once.
func interruptContext(parent context.Context, stderr io.Writer, cmdName string) (context.Context, func()) {
	ctx, stop := signal.NotifyContext(parent, os.Interrupt, syscall.SIGTERM)
	var released atomic.Bool
	context.AfterFunc(ctx, func() {
		stop()
		if released.Load() || parent.Err() != nil {
			return
		}
		fmt.Fprintf(stderr, "\ncauseway %s: interrupted: finishing the operations under way, then the summary so far (Ctrl-C again to abort)\n", cmdName)
	})
	return ctx, func() { released.Store(true); stop() }
}

// pendingFile is an output file written under a temporary name in its
// directory and renamed into place by commit: an interrupted or failed
// run never leaves a truncated or empty file under the name asked for
// (an empty history would pass the checker).
type pendingFile struct {
	*os.File
	path string
	done bool
}

// createPending creates the temporary file for path.
func createPending(path string) (*pendingFile, error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".partial-*")
	if err != nil {
		return nil, err
	}
	// CreateTemp makes the file private; the history is an ordinary output.
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	return &pendingFile{File: f, path: path}, nil
}

// commit closes the file and renames it to its path.
func (p *pendingFile) commit() error {
	if p.done {
		return nil
	}
	p.done = true
	if err := p.File.Close(); err != nil {
		os.Remove(p.File.Name())
		return err
	}
	return os.Rename(p.File.Name(), p.path)
}

// discard removes the file unless commit was called; for defer.
func (p *pendingFile) discard() {
	if p.done {
		return
	}
	p.done = true
	p.File.Close()
	os.Remove(p.File.Name())
}
