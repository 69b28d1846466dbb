package nemesis

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"

	"github.com/causeway/causeway/cluster"
)

// Target is what a schedule acts on: the processes and the admin
// endpoints of a running cluster. Local is a `causeway cluster up`
// cluster; another deployment (containers) implements the same methods.
type Target interface {
	// Kill kills node id's process with SIGKILL.
	Kill(ctx context.Context, id string) error
	// Pause stops node id's process (SIGSTOP); Resume continues it
	// (SIGCONT).
	Pause(ctx context.Context, id string) error
	Resume(ctx context.Context, id string) error
	// Restart starts the nodes ids that have no running process and waits
	// until they answer /healthz.
	Restart(ctx context.Context, ids []string) error
	// Links applies a link plan (cluster.PlanLinks); ResetLinks removes
	// every rule of every node.
	Links(ctx context.Context, plan map[string]cluster.LinkChange) error
	ResetLinks(ctx context.Context) error
	// ClockOffset sets the clock offset of nodes ids.
	ClockOffset(ctx context.Context, ids []string, ms int64) error
}

// Local is a cluster of local processes in directory Dir, as `causeway
// cluster up` starts it: pids from its pid files, restarts by cluster.Up,
// links and clocks through every node's admin endpoint.
type Local struct {
	Dir    string
	Config *cluster.Config
	// Command is the server command that restarts a node (cluster.UpOptions.Command):
	// it must serve the admin endpoint. Default: this executable with
	// "server --admin".
	Command []string
	// Env is added to restarted nodes' environment.
	Env []string
}

// signal sends sig to node id's process.
func (l *Local) signal(id string, sig syscall.Signal) error {
	pid, ok := cluster.NodePID(l.Dir, id)
	if !ok {
		return fmt.Errorf("node %s has no running process", id)
	}
	if err := syscall.Kill(pid, sig); err != nil {
		return fmt.Errorf("node %s (pid %d): %v: %w", id, pid, sig, err)
	}
	return nil
}

// Kill implements Target.
func (l *Local) Kill(_ context.Context, id string) error { return l.signal(id, syscall.SIGKILL) }

// Pause implements Target.
func (l *Local) Pause(_ context.Context, id string) error { return l.signal(id, syscall.SIGSTOP) }

// Resume implements Target.
func (l *Local) Resume(_ context.Context, id string) error { return l.signal(id, syscall.SIGCONT) }

// Restart implements Target.
func (l *Local) Restart(ctx context.Context, ids []string) error {
	command := l.Command
	if len(command) == 0 {
		exe, err := os.Executable()
		if err != nil {
			return err
		}
		command = []string{exe, "server", "--admin"}
	}
	_, err := cluster.Up(ctx, l.Dir, cluster.UpOptions{Command: command, Env: l.Env, Only: ids})
	return err
}

// Links implements Target.
func (l *Local) Links(ctx context.Context, plan map[string]cluster.LinkChange) error {
	return joinErrs(cluster.SetLinks(ctx, l.Config, plan))
}

// ResetLinks implements Target.
func (l *Local) ResetLinks(ctx context.Context) error {
	return joinErrs(cluster.ResetLinks(ctx, l.Config))
}

// ClockOffset implements Target.
func (l *Local) ClockOffset(ctx context.Context, ids []string, ms int64) error {
	return joinErrs(cluster.SetClockOffset(ctx, l.Config, ids, ms))
}

func joinErrs(out []cluster.NodeLinks) error {
	var errs []error
	for _, o := range out {
		if o.Err != nil {
			errs = append(errs, o.Err)
		}
	}
	return errors.Join(errs...)
}
