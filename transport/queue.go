package transport

import (
	"github.com/causeway/causeway/wire/transportpb"
)

// A link's queue and its write token.
//
// A link's due frames wait in its queue (link.q), in order. Whoever holds
// the link's write token (link.writing) takes them off the head in
// batches (batch.go) and writes them on the link's open stream, and keeps
// writing until the queue is empty before giving the token back: a frame
// queued while someone writes is written by that writer, never stranded,
// and the token holder is the only goroutine writing on the stream, so
// the stream carries the queue's order.
//
// The token is taken by the link's own goroutine when it is woken (kick)
// and, with Config.InlineWrites, by a sender that finds the token free
// and the stream open: it queues its frame and writes the queue itself,
// from its own goroutine, without waking the link's (at most
// maxInlineBatches batches, then it hands what is left over). An idle
// link's frame then costs one hand-off (to gRPC's writer) instead of two;
// a busy link's frames still go in batches, written by whoever holds the
// token. The delay line never writes: it queues the frames that come due
// and wakes the link's goroutine.
//
// When a stream ends, the link's goroutine detaches it (link.out = nil)
// and waits for the token to be given back before it opens the next one:
// a writer whose write failed puts its batch back at the head of the
// queue first, so the next stream writes it, in order, before anything
// queued after it.

// maxInlineBatches bounds the batches a sender writes inline before it
// hands the rest of the queue to the link's goroutine.
const maxInlineBatches = 4

// frameSender is the sending side of an open stream: a link's client
// stream, or the server stream a back link writes on.
type frameSender interface {
	Send(*transportpb.Frame) error
}

// kick wakes the link's goroutine to write the queue.
func (l *link) kick() {
	select {
	case l.wake <- struct{}{}:
	default: // a wake-up is pending already
	}
}

// push appends f (for which room was reserved) to the queue. Unless
// someone holds the write token, it takes it when inline is set and a
// stream is open (it reports true: the caller must then call
// drain(out, maxInlineBatches) with the out it returns, outside any
// lock), else it wakes the link's goroutine.
func (l *link) push(f outFrame, inline bool) (frameSender, bool) {
	l.mu.Lock()
	l.q = append(l.q, f)
	if l.writing {
		l.mu.Unlock()
		return nil, false
	}
	if inline && l.out != nil {
		l.writing = true
		out := l.out
		l.mu.Unlock()
		return out, true
	}
	l.mu.Unlock()
	l.kick()
	return nil, false
}

// take takes the write token for the link's goroutine if it is free and
// a stream is open.
func (l *link) take() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.writing || l.out == nil {
		return false
	}
	l.writing = true
	return true
}

// drain writes the queue on out, batch by batch, holding the write token,
// until the queue is empty, out is detached, limit batches are written
// (limit > 0) or a write fails; then it gives the token back, waking the
// link's goroutine if frames are left. A batch that could not be written
// goes back to the head of the queue. Frames that come due while the link
// is cut are dropped. It returns the failed write's error.
func (l *link) drain(out frameSender, limit int) error {
	t := l.t
	var batch []outFrame
	for n := 0; ; n++ {
		l.mu.Lock()
		if len(l.q) == 0 || l.out == nil || (limit > 0 && n == limit) {
			more := len(l.q) > 0 && l.out != nil
			l.release()
			l.mu.Unlock()
			if more {
				l.kick()
			}
			return nil
		}
		batch = takeBatch(&l.q, batch[:0])
		l.mu.Unlock()
		k := len(batch)
		if t.IsCut(l.addr) {
			// Cut while they waited: lost, as on a partitioned network.
			t.cut.Add(uint64(k))
			l.queued.Add(-int64(k))
			clear(batch)
			continue
		}
		// Counted before the write, so that anyone who has seen a frame
		// arrive sees it counted; a write that fails takes it back.
		t.sent.Add(uint64(k))
		t.messages.Add(1)
		if err := out.Send(packBatch(batch)); err != nil {
			// The stream is dead and the batch was not written: it goes
			// back to the head of the queue, for the next stream.
			t.sent.Add(-uint64(k))
			t.messages.Add(^uint64(0))
			l.mu.Lock()
			l.q = append(batch, l.q...)
			l.release()
			l.mu.Unlock()
			l.kick()
			return err
		}
		l.queued.Add(-int64(k))
		clear(batch) // let the frames be collected
	}
}

// release gives the write token back; l.mu is held.
func (l *link) release() {
	l.writing = false
	if l.detaching {
		l.idle.Broadcast()
	}
}

// attach makes out the stream the queue is written on, and wakes the
// link's goroutine if frames wait.
func (l *link) attach(out frameSender) {
	l.mu.Lock()
	l.out = out
	waiting := len(l.q) > 0
	l.mu.Unlock()
	if waiting {
		l.kick()
	}
}

// detach stops the queue being written on the current stream and waits
// until no one writes on it. The stream's writes must not block for
// ever meanwhile (its context is cancelled, or its peer reads).
func (l *link) detach() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.out = nil
	l.detaching = true
	for l.writing {
		l.idle.Wait()
	}
	l.detaching = false
}
