package repro

import (
	"math"
	"strconv"

	"gonum.org/v1/plot"
)

// plots draws Figs. 1–3 into the report's directory.
func (c *c3Runner) plots() (map[string]figure, error) {
	fig1 := []string{protoC3, protoLQ, protoQ, protoEQ}
	fig2 := []string{protoC3}
	if c.saturn {
		fig2 = append(fig2, protoSaturn)
	}
	return drawFigures(c.opts.Dir, []figSpec{
		{"fig1", func() ([]*chart, error) { return c.plotModes("Fig. 1", fig1) }},
		{"fig2", func() ([]*chart, error) { return c.plotModes("Fig. 2", fig2) }},
		{"fig3", c.plotFig3},
	})
}

// plotModes draws one of Figs. 1 and 2 for protos: throughput against
// latency and the per-operation latency at the middle load, in the local
// mode (panels a, b) and the remote mode (d, e).
func (c *c3Runner) plotModes(title string, protos []string) ([]*chart, error) {
	var panels []*chart
	for _, m := range []struct{ mode, tl, op string }{
		{modeLocal, "(a) local mode", "(b) local mode"},
		{modeRemote, "(d) remote mode", "(e) remote mode"},
	} {
		var lines []series
		for _, p := range protos {
			s := series{name: c3Names[p]}
			for i := range c.clients {
				if r := c.get(m.mode, p, i); r != nil {
					s.xs = append(s.xs, r.res.ThroughputOpsS)
					s.ys = append(s.ys, meanLatency(r))
				}
			}
			if len(s.xs) > 0 {
				lines = append(lines, s)
			}
		}
		tl, err := linePlot(title+m.tl+": throughput vs latency", "throughput (ops/s)", "mean latency (ms)", lines)
		if err != nil {
			return nil, err
		}
		var bars []series
		mid := c.mid()
		for _, p := range protos {
			r := c.get(m.mode, p, mid)
			s := series{name: c3Names[p], ys: []float64{0, 0, 0}}
			if r != nil {
				s.ys = []float64{r.res.LatencyMs["get"].Mean, r.res.LatencyMs["put"].Mean, migrateMean(r)}
			}
			bars = append(bars, s)
		}
		op, err := barPlot(title+m.op+": mean latency per operation, "+strconv.Itoa(c.clients[mid])+" clients",
			"mean latency (ms)", []string{"read", "write", "migrate"}, bars)
		if err != nil {
			return nil, err
		}
		panels = append(panels, tl, op)
	}
	return panels, nil
}

// plotFig3 draws the mean visibility of each protocol against the load,
// on a log axis as the paper, in the local mode, with the mean one-way
// bound.
func (c *c3Runner) plotFig3() ([]*chart, error) {
	var lines []series
	lo, hi := math.Inf(1), 0.0
	for _, p := range c.protos {
		s := series{name: c3Names[p]}
		for i, n := range c.clients {
			if v := visMean(c.get(modeLocal, p, i)); v > 0 {
				s.xs = append(s.xs, float64(n))
				s.ys = append(s.ys, v)
				lo, hi = min(lo, v), max(hi, v)
			}
		}
		if len(s.xs) > 0 {
			lines = append(lines, s)
		}
	}
	bound := series{name: "one-way bound (C3's writes)"}
	for i, n := range c.clients {
		if b := visBound(c.get(modeLocal, protoC3, i)); b > 0 {
			bound.xs = append(bound.xs, float64(n))
			bound.ys = append(bound.ys, b)
			lo, hi = min(lo, b), max(hi, b)
		}
	}
	if len(bound.xs) > 0 {
		lines = append(lines, bound)
	}
	ch, err := linePlot("Fig. 3: mean visibility (local mode)", "clients", "mean visibility from issue (ms, log)", lines)
	if err != nil {
		return nil, err
	}
	if hi > 0 {
		ch.Y.Scale = plot.LogScale{}
		ch.Y.Tick.Marker = plot.LogTicks{Prec: -1}
		ch.Y.Min, ch.Y.Max = lo/1.5, hi*1.5
	}
	return []*chart{ch}, nil
}
