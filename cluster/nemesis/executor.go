package nemesis

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/causeway/causeway/cluster"
)

// executor carries out a schedule's events on a Target and remembers what
// it broke, so that "heal: all" and the end of a run can mend it.
type executor struct {
	cfg    *cluster.Config
	target Target
	killed map[string]bool // nodes killed and not restarted
	paused map[string]bool // nodes stopped and not resumed
	skewed map[string]bool // nodes with a clock offset
	// links are the link faults in force, in order: a restarted node
	// (whose rules were in its memory) gets its part of them again.
	links []cluster.LinkFault
}

func newExecutor(cfg *cluster.Config, t Target) *executor {
	return &executor{cfg: cfg, target: t, killed: map[string]bool{}, paused: map[string]bool{}, skewed: map[string]bool{}}
}

// apply carries out one event. Every node of a target is tried; the error
// joins what failed.
func (x *executor) apply(ctx context.Context, e Event) error {
	each := func(target string, f func(id string) error) error {
		ids, err := Nodes(target, x.cfg)
		if err != nil {
			return err
		}
		var errs []error
		for _, id := range ids {
			errs = append(errs, f(id))
		}
		return errors.Join(errs...)
	}
	switch {
	case e.Kill != "":
		return each(e.Kill, func(id string) error {
			if x.killed[id] {
				return nil
			}
			if x.paused[id] {
				// SIGKILL ends a stopped process too.
				delete(x.paused, id)
			}
			x.killed[id] = true
			return x.target.Kill(ctx, id)
		})
	case e.Restart != "":
		ids, err := Nodes(e.Restart, x.cfg)
		if err != nil {
			return err
		}
		var down []string
		for _, id := range ids {
			if x.killed[id] {
				down = append(down, id)
			}
		}
		return x.restart(ctx, down)
	case e.Pause != "":
		return each(e.Pause, func(id string) error {
			if x.killed[id] || x.paused[id] {
				return nil
			}
			x.paused[id] = true
			return x.target.Pause(ctx, id)
		})
	case e.Resume != "":
		return each(e.Resume, func(id string) error {
			if !x.paused[id] {
				return nil
			}
			delete(x.paused, id)
			return x.target.Resume(ctx, id)
		})
	case e.Partition != nil:
		return x.link(ctx, e.Partition.fault())
	case e.Delay != nil:
		return x.link(ctx, e.Delay.fault())
	case e.Heal == "partitions":
		x.links = slices.DeleteFunc(x.links, func(f cluster.LinkFault) bool { return f.Cut != nil })
		return x.target.Links(ctx, x.up(cluster.HealCuts(x.cfg)))
	case e.Heal == "all":
		return x.healAll(ctx)
	case e.ClockSkew != nil:
		ids, err := Nodes(e.ClockSkew.Target, x.cfg)
		if err != nil {
			return err
		}
		for _, id := range ids {
			x.skewed[id] = e.ClockSkew.Ms != 0
		}
		return x.target.ClockOffset(ctx, x.upIDs(ids), e.ClockSkew.Ms)
	}
	return fmt.Errorf("event %v has no action", e)
}

// link applies a link fault to the nodes that are up and remembers it.
func (x *executor) link(ctx context.Context, f cluster.LinkFault) error {
	plan, err := cluster.PlanLinks(x.cfg, f)
	if err != nil {
		return err
	}
	x.links = append(x.links, f)
	return x.target.Links(ctx, x.up(plan))
}

// restart starts the killed nodes ids again and gives them their part of
// the link faults in force.
func (x *executor) restart(ctx context.Context, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	if err := x.target.Restart(ctx, ids); err != nil {
		return err
	}
	for _, id := range ids {
		delete(x.killed, id)
		delete(x.skewed, id) // a new process starts at offset 0
	}
	var errs []error
	for _, f := range x.links {
		plan, err := cluster.PlanLinks(x.cfg, f)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		mine := map[string]cluster.LinkChange{}
		for _, id := range ids {
			if c, ok := plan[id]; ok {
				mine[id] = c
			}
		}
		if len(mine) > 0 {
			errs = append(errs, x.target.Links(ctx, mine))
		}
	}
	return errors.Join(errs...)
}

// healAll resumes every paused node, restarts every killed one, removes
// every link rule and every clock offset.
func (x *executor) healAll(ctx context.Context) error {
	var errs []error
	for _, id := range slices.Sorted(maps.Keys(x.paused)) {
		errs = append(errs, x.target.Resume(ctx, id))
		delete(x.paused, id)
	}
	x.links = nil
	errs = append(errs, x.restart(ctx, slices.Sorted(maps.Keys(x.killed))))
	errs = append(errs, x.target.ResetLinks(ctx))
	var skewed []string
	for id, on := range x.skewed {
		if on {
			skewed = append(skewed, id)
		}
	}
	if len(skewed) > 0 {
		slices.Sort(skewed)
		errs = append(errs, x.target.ClockOffset(ctx, skewed, 0))
	}
	clear(x.skewed)
	return errors.Join(errs...)
}

// up keeps the part of plan for nodes that are neither killed nor paused
// (they cannot answer; a restarted node gets its rules on restart, a
// paused one keeps the rules it had).
func (x *executor) up(plan map[string]cluster.LinkChange) map[string]cluster.LinkChange {
	out := map[string]cluster.LinkChange{}
	for id, c := range plan {
		if !x.killed[id] && !x.paused[id] {
			out[id] = c
		}
	}
	return out
}

// upIDs keeps the nodes of ids that are neither killed nor paused.
func (x *executor) upIDs(ids []string) []string {
	return slices.DeleteFunc(slices.Clone(ids), func(id string) bool { return x.killed[id] || x.paused[id] })
}
