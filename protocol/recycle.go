package protocol

// Recycler is implemented by nodes and sessions that reuse the slices of
// the Readies they return. A runtime that has acted on a Ready in full —
// applied its writes, handed out its messages, timers, replies and
// visibility reports, keeping none of its slices (the elements it copied
// out, a message's Body or a reply's Value, stay its own) — may hand it
// back with Recycle; the node's next Ready then appends to the same
// backing arrays instead of allocating new ones. A runtime that never
// calls Recycle loses nothing: the node allocates as before.
//
// Recycle must be called at most once per Ready, only with a Ready the
// same node returned, and the runtime must not read the Ready afterwards.
type Recycler interface {
	Recycle(r Ready)
}

// ReadyPool keeps a few recycled Readies for a node to fill next. A node
// embeds it (which makes it a Recycler) and starts each input with Take
// instead of a zero Ready. It keeps more than one because a runtime may
// hand a node its next input before it has applied (and recycled) the
// Ready of the last one: the simulator does, when a busy node's next
// input is due at the time its outputs leave.
type ReadyPool struct {
	spare [maxSpares]Ready
	n     int // spares held: spare[:n]
}

// maxSpares bounds the Readies a ReadyPool keeps.
const maxSpares = 4

// Take returns an empty Ready, with the slices of the last one recycled
// when there is one.
func (p *ReadyPool) Take() Ready {
	if p.n == 0 {
		return Ready{}
	}
	p.n--
	r := p.spare[p.n]
	p.spare[p.n] = Ready{}
	return r
}

// Recycle implements Recycler: r's slices are cleared (so the pool holds
// no message, value or key alive) and kept for the next Take, unless the
// pool is full.
func (p *ReadyPool) Recycle(r Ready) {
	if p.n == maxSpares {
		return
	}
	clear(r.Persist.Writes)
	clear(r.After.Messages)
	clear(r.After.Timers)
	clear(r.After.Replies)
	clear(r.After.Visible)
	p.spare[p.n] = Ready{
		Persist: Persist{Writes: r.Persist.Writes[:0]},
		After: Effects{
			Messages: r.After.Messages[:0],
			Timers:   r.After.Timers[:0],
			Replies:  r.After.Replies[:0],
			Visible:  r.After.Visible[:0],
		},
	}
	p.n++
}
