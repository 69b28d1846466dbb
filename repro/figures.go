package repro

import (
	"fmt"
	"math"
	"strings"

	"github.com/causeway/causeway/workload"
)

// condition is one Karma run of Figs. 11 and 12: a mix at a load.
type condition struct {
	label string
	r     *run
}

// conditions are Karma's 95/5 runs at a third, two thirds and all of the
// saturation threads, then the other mixes at saturation.
func (k *karmaRunner) conditions() []condition {
	var cs []condition
	for i, r := range k.drr {
		cs = append(cs, condition{fmt.Sprintf("95/5 %d%%", []int{33, 66, 100}[i]), r})
	}
	for _, m := range k.mixes[1:] {
		cs = append(cs, condition{mixLabel(m) + " 100%", k.mix["karma"][m]})
	}
	return cs
}

// mixLabel turns "ycsb-80-20" into "80/20".
func mixLabel(m string) string { return strings.ReplaceAll(strings.TrimPrefix(m, "ycsb-"), "-", "/") }

// figSpec names a figure and draws its panels.
type figSpec struct {
	name string
	draw func() ([]*chart, error)
}

// drawFigures draws each figure, saves it into dir and returns them by
// name.
func drawFigures(dir string, specs []figSpec) (map[string]figure, error) {
	figs := map[string]figure{}
	for _, f := range specs {
		ps, err := f.draw()
		if err != nil {
			return nil, fmt.Errorf("repro: %s: %w", f.name, err)
		}
		fig := figure{file: f.name, panels: ps}
		if err := fig.save(dir); err != nil {
			return nil, fmt.Errorf("repro: %s: %w", f.name, err)
		}
		figs[f.name] = fig
	}
	return figs, nil
}

// plots draws every figure into the report's directory and returns them.
func (k *karmaRunner) plots() (map[string]figure, error) {
	specs := []figSpec{
		{"fig7", k.plotFig7}, {"fig8", k.plotFig8}, {"fig9", k.plotFig9}, {"fig10", k.plotFig10},
		{"fig11", k.plotFig11}, {"fig12", k.plotFig12}, {"fig14", k.plotFig14},
	}
	if k.perByteCost() {
		specs = append(specs, figSpec{"object-size", k.plotObjectSize})
	}
	return drawFigures(k.opts.Dir, specs)
}

func (k *karmaRunner) plotFig7() ([]*chart, error) {
	var thr, lat []series
	for _, p := range k.protos {
		t, l := series{name: p}, series{name: p}
		for _, n := range k.sweep[p] {
			r := k.find(p, "ycsb-95-5", n)
			t.xs, t.ys = append(t.xs, float64(n)), append(t.ys, r.res.ThroughputOpsS)
			l.xs, l.ys = append(l.xs, float64(n)), append(l.ys, r.res.LatencyMs["get"].Mean)
		}
		thr, lat = append(thr, t), append(lat, l)
	}
	a, err := linePlot("Fig. 7(a): throughput, 95/5", "client threads (log scale)", "ops/s", thr)
	if err != nil {
		return nil, err
	}
	b, err := linePlot("Fig. 7(b): mean get latency, 95/5", "client threads (log scale)", "ms", lat)
	if err != nil {
		return nil, err
	}
	// The sweep doubles the threads: a log axis spaces its points evenly.
	doublingAxis(a)
	doublingAxis(b)
	return []*chart{a, b}, nil
}

func (k *karmaRunner) plotFig8() ([]*chart, error) {
	c := k.cong
	half := c.bucket.Seconds() / 2
	var thr, lat, baseLat, failed []series
	topThr, topLat, topFailed := 0.0, 0.0, 1.0
	for _, p := range congestionProtos {
		r, base := c.worst(p), c.base[p]
		name := fmt.Sprintf("%s +%v", p, r.delay)
		t, l, bl, f := series{name: name}, series{name: name}, series{name: p + " uncongested"}, series{name: name}
		for i, b := range r.res.Timeline {
			mid := b.StartS + half
			f.xs, f.ys = append(f.xs, mid), append(f.ys, float64(b.Failed))
			topFailed = math.Max(topFailed, float64(b.Failed))
			if bb := base.res.Timeline[i]; bb.Ops > 0 {
				t.xs, t.ys = append(t.xs, mid), append(t.ys, b.ThroughputOpsS/bb.ThroughputOpsS)
				topThr = math.Max(topThr, b.ThroughputOpsS/bb.ThroughputOpsS)
			}
			if b.Issued["get"] > 0 {
				l.xs, l.ys = append(l.xs, mid), append(l.ys, getMean(b))
				topLat = math.Max(topLat, getMean(b))
			}
			if bb := base.res.Timeline[i]; bb.Issued["get"] > 0 {
				bl.xs, bl.ys = append(bl.xs, mid), append(bl.ys, getMean(bb))
			}
		}
		thr, lat, baseLat, failed = append(thr, t), append(lat, l), append(baseLat, bl), append(failed, f)
	}
	a, err := linePlot(fmt.Sprintf("Fig. 8: throughput, %s congested %v–%v", congestedDC, c.from, c.to),
		"time (s)", "throughput / uncongested run's", thr)
	if err != nil {
		return nil, err
	}
	b, err := linePlot("Fig. 8: mean latency of the gets issued (that succeeded)", "time (s)", "ms", append(lat, baseLat...))
	if err != nil {
		return nil, err
	}
	f, err := linePlot("Fig. 8: operations issued that failed (timed out)", "time (s)", fmt.Sprintf("per %v", c.bucket), failed)
	if err != nil {
		return nil, err
	}
	for _, x := range []float64{c.from.Seconds(), c.to.Seconds()} {
		for _, pl := range []struct {
			p   *chart
			top float64
		}{{a, topThr}, {b, topLat}, {f, topFailed}} {
			if err := vline(pl.p, x, pl.top); err != nil {
				return nil, err
			}
		}
	}
	return []*chart{a, b, f}, nil
}

func (k *karmaRunner) plotFig9() ([]*chart, error) {
	var thr, lat []series
	for _, p := range congestionProtos {
		t, l := series{name: p}, series{name: p}
		for _, r := range k.cong.runs[p] {
			tp, lp := k.cong.degradation(r)
			ms := float64(r.delay.Milliseconds())
			t.xs, t.ys = append(t.xs, ms), append(t.ys, tp)
			l.xs, l.ys = append(l.xs, ms), append(l.ys, lp)
		}
		thr, lat = append(thr, t), append(lat, l)
	}
	a, err := linePlot("Fig. 9: throughput degradation while congested", "added delay (ms)", "% below uncongested", thr)
	if err != nil {
		return nil, err
	}
	b, err := linePlot("Fig. 9: get latency degradation while congested", "added delay (ms)", "% above uncongested", lat)
	if err != nil {
		return nil, err
	}
	return []*chart{a, b}, nil
}

func (k *karmaRunner) plotFig10() ([]*chart, error) {
	var labels []string
	for _, m := range k.mixes {
		labels = append(labels, mixLabel(m))
	}
	var ss []series
	for _, p := range []string{"cops", "karma", "cops-pr"} {
		s := series{name: p}
		for _, m := range k.mixes {
			s.ys = append(s.ys, k.mix[p][m].res.ThroughputOpsS)
		}
		ss = append(ss, s)
	}
	p, err := barPlot(fmt.Sprintf("Fig. 10: throughput by get/put mix (%d threads)", k.sat["karma"].threads), "ops/s", labels, ss)
	if err != nil {
		return nil, err
	}
	return []*chart{p}, nil
}

func (k *karmaRunner) plotFig11() ([]*chart, error) {
	var labels []string
	s := series{name: "karma drr_fraction"}
	for _, c := range k.conditions() {
		labels = append(labels, c.label)
		s.ys = append(s.ys, metric(c.r, "drr_fraction"))
	}
	p, err := barPlot("Fig. 11: accesses under a dynamic ring restriction", "fraction of operations", labels, []series{s})
	if err != nil {
		return nil, err
	}
	p.Y.Max = 1
	if err := hline(p, "paper, 95/5: < 0.02", -0.5, float64(len(labels))-0.5, 0.02); err != nil {
		return nil, err
	}
	return []*chart{p}, nil
}

func (k *karmaRunner) plotFig12() ([]*chart, error) {
	var labels []string
	local, hit := series{name: "local fraction"}, series{name: "cache hit fraction"}
	for _, c := range k.conditions() {
		labels = append(labels, c.label)
		local.ys = append(local.ys, deref(c.r.res.LocalFraction))
		hit.ys = append(hit.ys, metric(c.r, "cache_hit_fraction"))
	}
	p, err := barPlot("Fig. 12: Karma operations served in the DC", "fraction of operations", labels, []series{local, hit})
	if err != nil {
		return nil, err
	}
	p.Y.Max = 1
	if err := hline(p, "paper, 95/5 saturation: ~0.77", -0.5, float64(len(labels))-0.5, 0.77); err != nil {
		return nil, err
	}
	return []*chart{p}, nil
}

func (k *karmaRunner) plotFig14() ([]*chart, error) {
	m := newCostModel(k.topo, k.recordCount())
	rows := k.costRows()
	var capex []series
	for _, a := range alphas {
		s := series{name: fmt.Sprintf("Twitter miss %.1f%%, α=%.2f", 100*twitterMissRatio, a)}
		for put := 0.0; put <= 1.0001; put += 0.05 {
			s.xs, s.ys = append(s.xs, put), append(s.ys, 100*m.capexSavings(a, put, twitterMissRatio))
		}
		capex = append(capex, s)
	}
	for _, a := range alphas {
		s := series{name: fmt.Sprintf("our miss, α=%.2f", a)}
		for _, r := range rows {
			s.xs, s.ys = append(s.xs, r.put), append(s.ys, 100*m.capexSavings(a, r.put, r.miss))
		}
		capex = append(capex, s)
	}
	a, err := linePlot("Fig. 14(a): CAPEX savings of Karma over COPS-Ideal", "put fraction", "% saved", capex)
	if err != nil {
		return nil, err
	}
	var labels []string
	model, measured := series{name: "model (measured miss, 200 B)"}, series{name: "measured wan_bytes"}
	for _, r := range rows {
		labels = append(labels, mixLabel(r.mix))
		model.ys = append(model.ys, 100*savings(m.karmaWANBytes(r.put, r.wanGet, 200), m.copsWANBytes(r.put, 200)))
		measured.ys = append(measured.ys, 100*savings(r.karma, r.cops))
	}
	b, err := barPlot("Fig. 14(b): inter-DC bandwidth (OPEX) savings", "% saved", labels, []series{model, measured})
	if err != nil {
		return nil, err
	}
	return []*chart{a, b}, nil
}

func (k *karmaRunner) plotObjectSize() ([]*chart, error) {
	var labels []string
	for _, s := range k.opts.ValueSizes {
		labels = append(labels, workload.SizeString(s))
	}
	var ss []series
	for _, p := range []string{"karma", "cops-pr"} {
		s := series{name: p}
		for _, size := range k.opts.ValueSizes {
			s.ys = append(s.ys, k.sizes[p][size].res.ThroughputOpsS)
		}
		ss = append(ss, s)
	}
	p, err := barPlot(fmt.Sprintf("§6.5: throughput by object size (%d threads)", k.sat["karma"].threads), "ops/s", labels, ss)
	if err != nil {
		return nil, err
	}
	return []*chart{p}, nil
}

// savings is 1 − ours/theirs (0 when theirs is 0).
func savings(ours, theirs float64) float64 {
	if theirs == 0 {
		return 0
	}
	return 1 - ours/theirs
}
