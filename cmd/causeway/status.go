package main

import (
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/causeway/causeway/cluster"
)

// statusRecord is one node as `cluster status -w json` prints it.
type statusRecord struct {
	Node   string `json:"node"`
	Addr   string `json:"addr"`
	HTTP   string `json:"http"`
	PID    int    `json:"pid,omitempty"`
	Health string `json:"health"`
	// The rest is what the node reported at /status; absent when it did
	// not answer.
	Incarnation uint64     `json:"incarnation,omitempty"`
	Started     *time.Time `json:"started,omitempty"`
	UptimeS     *float64   `json:"uptime_s,omitempty"`
	DataBytes   *uint64    `json:"data_bytes,omitempty"`
}

func statusRecords(st []cluster.NodeStatus) []statusRecord {
	out := make([]statusRecord, len(st))
	for i, s := range st {
		out[i] = statusRecord{Node: s.ID, Addr: s.Addr, HTTP: s.HTTP, PID: s.PID, Health: s.Health}
		if in := s.Info; in != nil {
			out[i].Incarnation, out[i].Started, out[i].UptimeS, out[i].DataBytes = in.Incarnation, &in.Started, &in.UptimeS, in.DataBytes
		}
	}
	return out
}

// printStatus prints one line per node: ID, address, pid, health,
// incarnation, uptime and data size.
func printStatus(w io.Writer, st []cluster.NodeStatus) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NODE\tADDR\tPID\tHEALTH\tINCARNATION\tUPTIME\tDATA")
	for _, s := range st {
		inc, up, data := "-", "-", "-"
		if in := s.Info; in != nil {
			inc = fmt.Sprint(in.Incarnation)
			up = (time.Duration(in.UptimeS * float64(time.Second))).Round(time.Second).String()
			if in.DataBytes != nil {
				data = byteSize(*in.DataBytes)
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", s.ID, s.Addr, pidText(s.PID), s.Health, inc, up, data)
	}
	_ = tw.Flush()
}

// byteSize formats n bytes with a binary unit: "512 B", "3.2 MiB".
func byteSize(n uint64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := uint64(unit), 0
	for m := n / unit; m >= unit && exp < 5; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}
