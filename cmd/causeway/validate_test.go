package main

import (
	"errors"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// commands returns every runnable command of the tree under root.
func commands(root *cobra.Command) []*cobra.Command {
	var out []*cobra.Command
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Runnable() && c.HasParent() {
			out = append(out, c)
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	return out
}

// flagsOf returns every flag cmd accepts, its own and inherited ones.
func flagsOf(cmd *cobra.Command) []*pflag.Flag {
	var out []*pflag.Flag
	cmd.LocalFlags().VisitAll(func(f *pflag.Flag) { out = append(out, f) })
	cmd.InheritedFlags().VisitAll(func(f *pflag.Flag) { out = append(out, f) })
	return out
}

// nonsense returns the values of numeric flag f that must be refused: a
// negative one (unless f is unsigned, where the parser refuses it), and
// zero unless zero means something for f.
func nonsense(f *pflag.Flag) []string {
	elem := strings.TrimSuffix(f.Value.Type(), "Slice")
	unit := ""
	if elem == "duration" {
		unit = "s"
	}
	var vals []string
	if !strings.HasPrefix(elem, "uint") {
		vals = append(vals, "-1"+unit)
	}
	if !zeroOK(f) {
		vals = append(vals, "0"+unit)
	}
	return vals
}

// TestEveryNumericFlagRejectsNonsense walks the whole command tree, so
// that a flag added later is covered too: every numeric flag of every
// command, given a negative value or a zero that means nothing, makes the
// command exit 2 naming itself and the flag, before any work (nothing on
// stdout, and the flags are checked before the positional arguments).
func TestEveryNumericFlagRejectsNonsense(t *testing.T) {
	checked := 0
	for _, cmd := range commands(newRoot()) {
		name := commandName(cmd)
		for _, f := range flagsOf(cmd) {
			if !isNumeric(f) {
				continue
			}
			for _, v := range nonsense(f) {
				args := append(strings.Fields(name), "--"+f.Name+"="+v)
				t.Run(strings.Join(args, " "), func(t *testing.T) {
					code, stdout, stderr := causeway(t, args...)
					want := "causeway: " + name + ": --" + f.Name + " "
					if code != 2 || !strings.HasPrefix(stderr, want) || stdout != "" {
						t.Errorf("exit %d, stdout %q, stderr %q; want exit 2, nothing on stdout and an error starting %q",
							code, stdout, stderr, want)
					}
				})
				checked++
			}
		}
	}
	t.Logf("%d values checked", checked)
	if checked < 40 {
		t.Fatalf("only %d values checked: the walk missed the commands' flags", checked)
	}
}

// TestMeaningfulZerosAndPositivesPass: zero where it means something (a
// seed, no jitter, a delay removed) and positive values are accepted.
func TestMeaningfulZerosAndPositivesPass(t *testing.T) {
	check := func(args ...string) error {
		cmd := &cobra.Command{Use: "x"}
		fl := cmd.Flags()
		fl.Uint64("seed", 1, "")
		fl.Duration("jitter", 0, "")
		fl.Int("records", 0, "")
		fl.Float64("rate", 0, "")
		fl.IntSlice("threads", nil, "")
		fl.Int("own-zero", 5, "")
		allowZero(fl, "own-zero")
		if err := fl.Parse(args); err != nil {
			t.Fatal(err)
		}
		return checkFlags(cmd)
	}
	for _, args := range [][]string{
		{"--seed=0", "--jitter=0s", "--own-zero=0"},
		{"--records=3", "--rate=0.5", "--threads=1,2"},
		{}, // defaults are never checked
	} {
		if err := check(args...); err != nil {
			t.Errorf("%v: %v", args, err)
		}
	}
	for _, args := range [][]string{{"--records=0"}, {"--rate=-0.5"}, {"--threads=4,0"}, {"--jitter=-1ms"}, {"--own-zero=-1"}} {
		var ee *exitError
		if err := check(args...); !errors.As(err, &ee) || ee.code != 2 {
			t.Errorf("%v: %v, want a usage error", args, err)
		}
	}
}

// TestEveryNameFlagIsCheckedFirst: a flag that names a protocol (or a
// list of them), topology, workload or cost model is checked before any
// work, in every command that has one: `demo --protocols cops,bar` fails
// at once instead of after running cops.
func TestEveryNameFlagIsCheckedFirst(t *testing.T) {
	checked := 0
	for _, cmd := range commands(newRoot()) {
		name := commandName(cmd)
		for _, f := range flagsOf(cmd) {
			if nameCheckers[f.Name] == nil {
				continue
			}
			vals := []string{"no-such-thing"}
			if f.Name == "protocols" {
				vals = []string{"cops,bar", "cops,,karma", "cops,cops"}
			}
			for _, v := range vals {
				args := append(strings.Fields(name), "--"+f.Name+"="+v)
				code, stdout, stderr := causeway(t, args...)
				want := "causeway: " + name + ": --" + f.Name + " "
				if code != 2 || !strings.HasPrefix(stderr, want) || stdout != "" {
					t.Errorf("causeway %s: exit %d, stdout %q, stderr %q; want exit 2 and an error starting %q",
						strings.Join(args, " "), code, stdout, stderr, want)
				}
				checked++
			}
		}
	}
	if checked < 8 {
		t.Fatalf("only %d values checked: the walk missed the name flags", checked)
	}
}

// TestErrorsNameTheCommandAndExitCodes: an error a command returns
// without naming itself gets its name; an unclassified error is a runtime
// failure (1), a command-line mistake cobra finds is bad input (2).
func TestErrorsNameTheCommandAndExitCodes(t *testing.T) {
	root := newRoot()
	up, _, err := root.Find([]string{"cluster", "up"})
	if err != nil {
		t.Fatal(err)
	}
	for msg, want := range map[string]string{
		"no such file":           "cluster up: no such file",
		"cluster up: --dir …":    "cluster up: --dir …",
		"up: already named":      "up: already named",
		"--protocol x: unknown":  "cluster up: --protocol x: unknown",
		"clusterwide: something": "cluster up: clusterwide: something",
	} {
		if got := nameCommand(up, msg); got != want {
			t.Errorf("nameCommand(cluster up, %q) = %q, want %q", msg, got, want)
		}
	}
	if code, _ := classify(errors.New("disk full")); code != 1 {
		t.Errorf("an unclassified error exits %d, want 1", code)
	}
	for _, args := range [][]string{
		{"no-such-command"},
		{"sim", "extra-argument"},
		{"check"},
		{"sim", "--duration", "soon"},
		{"sim", "--no-such-flag"},
	} {
		code, _, stderr := causeway(t, args...)
		if code != 2 || !strings.HasPrefix(stderr, "causeway: ") {
			t.Errorf("causeway %v: exit %d, stderr %q; want exit 2", args, code, stderr)
		}
		if len(args) > 1 && !strings.HasPrefix(stderr, "causeway: "+args[0]+": ") {
			t.Errorf("causeway %v: stderr %q does not name the command", args, stderr)
		}
	}
}
