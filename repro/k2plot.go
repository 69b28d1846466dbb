package repro

import (
	"fmt"

	"github.com/causeway/causeway/protocol"
	k2p "github.com/causeway/causeway/protocol/k2"
)

// cdfPoints is how many points a CDF line has at most.
const cdfPoints = 200

// plots draws the K2 report's figures into Dir.
func (k *k2Runner) plots() (map[string]figure, error) {
	figs := map[string]figure{}
	for _, f := range []struct {
		name string
		draw func() ([]*chart, error)
	}{
		{"fig8", k.plotFig8}, {"fig8-local", k.plotLocal}, {"fig9", k.plotFig9}, {"staleness", k.plotStaleness},
	} {
		ps, err := f.draw()
		if err != nil {
			return nil, fmt.Errorf("repro: %s: %w", f.name, err)
		}
		fig := figure{file: f.name, panels: ps}
		if err := fig.save(k.opts.Dir); err != nil {
			return nil, fmt.Errorf("repro: %s: %w", f.name, err)
		}
		figs[f.name] = fig
	}
	return figs, nil
}

// plotFig8 draws one CDF panel per Fig. 8 setting and TAO.
func (k *k2Runner) plotFig8() ([]*chart, error) {
	var panels []*chart
	for _, s := range k.settings {
		if !s.fig8 {
			continue
		}
		var ss []series
		for _, proto := range k2Protos {
			xs, ys := cdf(rots(k.lat[s.id][proto]), cdfPoints)
			ss = append(ss, series{name: proto, xs: xs, ys: ys})
		}
		c, err := linePlot(fmt.Sprintf("%s: %s", s.id, s.label), "read-only transaction latency (ms)", "CDF", ss)
		if err != nil {
			return nil, err
		}
		c.Y.Max = 1
		panels = append(panels, c)
	}
	return panels, nil
}

// plotLocal draws the all-local share per setting and protocol.
func (k *k2Runner) plotLocal() ([]*chart, error) {
	var labels []string
	var ss []series
	for _, proto := range k2Protos {
		ss = append(ss, series{name: proto})
	}
	for _, s := range k.settings {
		if !s.fig8 {
			continue
		}
		labels = append(labels, s.id)
		for i, proto := range k2Protos {
			ss[i].ys = append(ss[i].ys, allLocal(k.lat[s.id][proto]))
		}
	}
	c, err := barPlot("Read-only transactions with no wide-area round", "fraction", labels, ss)
	if err != nil {
		return nil, err
	}
	c.Y.Max = 1
	if err := hline(c, "paper: k2 19–83% (lower bound)", -0.5, float64(len(labels))-0.5, 0.19); err != nil {
		return nil, err
	}
	return []*chart{c}, nil
}

// plotFig9 draws k2's peak throughput over rad's per setting, ours and
// the paper's.
func (k *k2Runner) plotFig9() ([]*chart, error) {
	var labels []string
	ours, paper := series{name: "ours"}, series{name: "paper"}
	for _, s := range k.settings {
		if s.fig9 == "" || s.paperK2 == 0 {
			continue
		}
		labels = append(labels, s.fig9)
		ours.ys = append(ours.ys, k.peak[s.id]["k2"].throughput()/k.peak[s.id]["rad"].throughput())
		paper.ys = append(paper.ys, s.paperK2/s.paperRAD)
	}
	c, err := barPlot("Fig. 9: peak throughput, k2 / rad", "ratio", labels, []series{ours, paper})
	if err != nil {
		return nil, err
	}
	if err := hline(c, "equal", -0.5, float64(len(labels))-0.5, 1); err != nil {
		return nil, err
	}
	return []*chart{c}, nil
}

// plotStaleness draws the CDF of k2's staleness per write share.
func (k *k2Runner) plotStaleness() ([]*chart, error) {
	var ss []series
	for _, sr := range k.stalenessRuns() {
		xs, ys := cdf(sr.r.ops.metrics[protocol.OpReadTxn][k2p.MetricStaleness], cdfPoints)
		ss = append(ss, series{name: sr.label, xs: xs, ys: ys})
	}
	c, err := linePlot("§VII-D: staleness of k2's read-only transactions", "staleness (ms)", "CDF", ss)
	if err != nil {
		return nil, err
	}
	c.Y.Max = 1
	return []*chart{c}, nil
}
