package node

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/causeway/causeway/cluster"
)

// The link controls (cluster.AdminLinksPath, served with Options.Admin):
// partitions and congestion between this node and other datacenters, set
// at run time. cluster/links.go documents the endpoint and the meaning of
// a rule; this file keeps the rules in the address book and serves them.
//
// A rule applies to every destination of a datacenter, server nodes and
// client sessions alike (a session's datacenter is in its ID): the
// address book knows each node address's datacenter and cuts the
// transport's link to every node of a datacenter whose rule says cut_out;
// a reply to a session of such a datacenter is dropped when it is sent
// (host.send). The rule's delay is added to every frame (delay). cut_in
// is checked on receipt (host.receive), by the sender's datacenter.

// linkRule is the rule of this node's links to one other datacenter.
type linkRule struct {
	cutOut, cutIn bool
	delay         time.Duration
}

// linkRules are the rules by datacenter; a datacenter with no rule is
// absent. A published linkRules is never modified.
type linkRules map[string]linkRule

// maxAdminBody bounds the body of a request to the link controls.
const maxAdminBody = 64 << 10

// rule returns the rule of the links to dc.
func (b *addressBook) rule(dc string) linkRule {
	if r := b.rules.Load(); r != nil {
		return (*r)[dc]
	}
	return linkRule{}
}

// cutIn reports whether frames from datacenter dc are to be dropped.
func (b *addressBook) cutIn(dc string) bool { return b.rule(dc).cutIn }

// applyCutLocked cuts or heals the link to addr, of datacenter dc, as
// dc's rule says. The caller holds b.mu.
func (b *addressBook) applyCutLocked(addr, dc string) {
	if b.cut != nil {
		b.cut(addr, b.rule(dc).cutOut)
	}
}

// changeLinks applies a validated change.
func (b *addressBook) changeLinks(c cluster.LinkChange) {
	b.mu.Lock()
	defer b.mu.Unlock()
	next := linkRules{}
	if r := b.rules.Load(); r != nil {
		for dc, rule := range *r {
			next[dc] = rule
		}
	}
	for _, dc := range c.PeersDC {
		r := next[dc]
		if c.CutOut != nil {
			r.cutOut = *c.CutOut
		}
		if c.CutIn != nil {
			r.cutIn = *c.CutIn
		}
		if c.DelayMS != nil {
			r.delay = time.Duration(*c.DelayMS) * time.Millisecond
		}
		if r == (linkRule{}) {
			delete(next, dc)
		} else {
			next[dc] = r
		}
	}
	b.rules.Store(&next)
	if c.CutOut != nil {
		b.applyCutsLocked(c.PeersDC)
	}
}

// resetLinks removes every rule.
func (b *addressBook) resetLinks() {
	b.mu.Lock()
	defer b.mu.Unlock()
	var dcs []string
	if r := b.rules.Load(); r != nil {
		for dc := range *r {
			dcs = append(dcs, dc)
		}
	}
	b.rules.Store(&linkRules{})
	b.applyCutsLocked(dcs)
}

// applyCutsLocked brings the links to every known address of the
// datacenters dcs in line with their rules. The caller holds b.mu.
func (b *addressBook) applyCutsLocked(dcs []string) {
	for addr, dc := range b.nodeDC {
		if slices.Contains(dcs, dc) {
			b.applyCutLocked(addr, dc)
		}
	}
}

// linkRules lists the rules by datacenter name.
func (b *addressBook) linkRules() []cluster.LinkRule {
	out := []cluster.LinkRule{} // [] rather than null in JSON
	if r := b.rules.Load(); r != nil {
		for dc, rule := range *r {
			out = append(out, cluster.LinkRule{DC: dc, CutOut: rule.cutOut, CutIn: rule.cutIn, DelayMS: rule.delay.Milliseconds()})
		}
	}
	slices.SortFunc(out, func(a, b cluster.LinkRule) int { return strings.Compare(a.DC, b.DC) })
	return out
}

// handleAdmin registers the link controls on mux. Other methods than
// these get 405 from the mux, with an Allow header.
func (h *host) handleAdmin(mux *http.ServeMux) {
	path := cluster.AdminLinksPath
	mux.HandleFunc("GET "+path, h.whenReady(func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, h.linkState())
	}))
	mux.HandleFunc("DELETE "+path, h.whenReady(func(w http.ResponseWriter, _ *http.Request) {
		h.book.resetLinks()
		h.log.Info("link rules removed: every link healed, no added delay")
		writeJSON(w, http.StatusOK, h.linkState())
	}))
	mux.HandleFunc("POST "+path, h.whenReady(h.postLinks))
}

// postLinks decodes, validates and applies a cluster.LinkChange.
func (h *host) postLinks(w http.ResponseWriter, r *http.Request) {
	var c cluster.LinkChange
	if !decodeAdminBody(w, r, &c, `{"peers_dc": ["c"], "cut_out": true, "cut_in": true}`, "the fields are peers_dc, cut_out, cut_in and delay_ms") {
		return
	}
	if err := c.Validate(h.book.topo, h.id.DC()); err != nil {
		writeError(w, http.StatusBadRequest, "%s", strings.ReplaceAll(err.Error(), "\n", "; "))
		return
	}
	h.book.changeLinks(c)
	st := h.linkState()
	h.log.Info("link rules changed", "peers_dc", c.PeersDC, "cut_out", optText(c.CutOut), "cut_in", optText(c.CutIn),
		"delay_ms", optText(c.DelayMS), "rules", st.Links)
	writeJSON(w, http.StatusOK, st)
}

// whenReady answers 503 until the node has started (the transport the
// rules act on exists from then on).
func (h *host) whenReady(f http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if !h.ready.Load() {
			writeError(w, http.StatusServiceUnavailable, "node %s is starting", h.id)
			return
		}
		f(w, r)
	}
}

// linkState is the node's answer to the link controls.
func (h *host) linkState() cluster.LinkState {
	return cluster.LinkState{
		Node:       string(h.id),
		DC:         h.id.DC(),
		Links:      h.book.linkRules(),
		DroppedOut: h.tr.Stats().Cut + h.droppedOut.Load(),
		DroppedIn:  h.droppedIn.Load(),
	}
}

// writeJSON writes v as the JSON body of a response with status code.
func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
}

// writeError writes {"error": "..."} with status code.
func writeError(w http.ResponseWriter, code int, format string, args ...any) {
	writeJSON(w, code, struct {
		Error string `json:"error"`
	}{fmt.Sprintf(format, args...)})
}

// optText is how a field of a change is logged: its value, or "unchanged".
func optText[T any](p *T) any {
	if p == nil {
		return "unchanged"
	}
	return *p
}
