package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/causeway/causeway/bench"
	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/runtime/sim"
	"github.com/causeway/causeway/topology"
	"github.com/causeway/causeway/workload"
)

// Every command checks the flags given on its command line before it
// does anything else (prepareTree): a number that is negative, or zero
// where zero means nothing, and a protocol, topology, workload or cost
// model that does not exist, are bad input (exit status 2) — never
// silently replaced by a default, and never found after a first run has
// already taken a minute. Flags left out keep their defaults, which may
// be 0 ("the workload's own", say).

// zeroOKAnnotation marks a numeric flag for which 0 is a meaning of its
// own, not a stand-in for the default (see allowZero).
const zeroOKAnnotation = "causeway_zero_ok"

// zeroOKFlags are the flags, by name in every command, for which an
// explicit 0 means something: a seed, "no jitter", "infinitely fast
// servers", "remove the added delay", "explain no violation", "no remote
// operations", "skip the ceiling".
var zeroOKFlags = map[string]bool{
	"seed":            true,
	"jitter":          true,
	"service-time":    true,
	"add":             true,
	"max-violations":  true,
	"remote-fraction": true,
	"ceiling":         true,
}

// allowZero marks flags of fs, by name, as ones for which 0 is
// meaningful, for flags that zeroOKFlags does not name in every command.
func allowZero(fs *pflag.FlagSet, names ...string) {
	for _, n := range names {
		if err := fs.SetAnnotation(n, zeroOKAnnotation, []string{"true"}); err != nil {
			panic(err) // a programming error: no such flag
		}
	}
}

// zeroOK reports whether 0 is a meaningful value of f.
func zeroOK(f *pflag.Flag) bool {
	return zeroOKFlags[f.Name] || f.Annotations[zeroOKAnnotation] != nil
}

// prepareTree makes every command of the tree under root check its flags
// (checkFlags) before its positional arguments, and turns cobra's errors
// about the command line (bad flag values, wrong arguments) into usage
// errors: exit status 2.
func prepareTree(root *cobra.Command) {
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		return usageErrorf("%s: %v", commandName(cmd), err)
	})
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		args := c.Args
		if args != nil || !c.HasSubCommands() {
			// A command with subcommands and no Args of its own keeps
			// cobra's check for unknown subcommands.
			c.Args = func(cmd *cobra.Command, a []string) error {
				if err := checkFlags(cmd); err != nil {
					return err
				}
				if args == nil {
					return nil
				}
				if err := args(cmd, a); err != nil {
					var ee *exitError
					if errors.As(err, &ee) {
						return err
					}
					return usageErrorf("%s: %v", commandName(cmd), err)
				}
				return nil
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

// commandName is cmd's path without the binary's name ("cluster up").
func commandName(cmd *cobra.Command) string {
	if !cmd.HasParent() {
		return cmd.Name()
	}
	return strings.TrimPrefix(cmd.CommandPath(), cmd.Root().Name()+" ")
}

// checkFlags checks the flags set on cmd's command line: required flags
// and flag groups, numbers (checkNumber) and names (checkName). Its
// errors are usage errors naming the command and the flag.
func checkFlags(cmd *cobra.Command) error {
	name := commandName(cmd)
	if err := cmd.ValidateRequiredFlags(); err != nil {
		return usageErrorf("%s: %v", name, err)
	}
	if err := cmd.ValidateFlagGroups(); err != nil {
		return usageErrorf("%s: %v", name, err)
	}
	var bad error
	cmd.Flags().Visit(func(f *pflag.Flag) {
		if bad != nil {
			return
		}
		if err := checkNumber(f); err != nil {
			bad = usageErrorf("%s: --%s %s: %v", name, f.Name, f.Value, err)
		} else if err := checkName(f); err != nil {
			bad = usageErrorf("%s: --%s %q: %v", name, f.Name, f.Value, err)
		}
	})
	if bad != nil {
		return bad
	}
	return checkPairing(cmd)
}

// checkPairing checks that every protocol a command would run (--protocol
// or --protocols) can run on its --topology (Protocol.Validate: Karma's
// family needs every DC in a ring), when the command has both flags and
// either was given: a demo must not find out after its first run.
func checkPairing(cmd *cobra.Command) error {
	fl := cmd.Flags()
	tf := fl.Lookup("topology")
	pf := fl.Lookup("protocols")
	if pf == nil {
		pf = fl.Lookup("protocol")
	}
	if tf == nil || pf == nil || !(tf.Changed || pf.Changed) || tf.Value.String() == "" {
		return nil
	}
	topo, err := topology.Lookup(tf.Value.String())
	if err != nil {
		return nil // checkName reports it when given; a default always loads
	}
	for _, name := range strings.Split(pf.Value.String(), ",") {
		p, err := protocol.Lookup(strings.TrimSpace(name))
		if err != nil {
			continue // the noop ceiling, or a default left empty
		}
		if err := p.Validate(topo); err != nil {
			return usageErrorf("%s: protocol %s cannot run on topology %s: %v", commandName(cmd), p.Name(), topo.Name, err)
		}
	}
	return nil
}

// numericTypes are the pflag value types checkNumber knows, each with
// the slice type of the same element ("intSlice").
var numericTypes = map[string]bool{
	"int": true, "int8": true, "int16": true, "int32": true, "int64": true,
	"uint": true, "uint8": true, "uint16": true, "uint32": true, "uint64": true,
	"float32": true, "float64": true, "duration": true,
}

// isNumeric reports whether f holds a number or a list of numbers.
func isNumeric(f *pflag.Flag) bool {
	return numericTypes[strings.TrimSuffix(f.Value.Type(), "Slice")]
}

// checkNumber rejects a negative value of a numeric flag, and zero unless
// zero means something for it (zeroOK); each element of a list flag is
// checked. Other flags pass.
func checkNumber(f *pflag.Flag) error {
	typ := f.Value.Type()
	elem, isSlice := strings.CutSuffix(typ, "Slice")
	if !numericTypes[elem] {
		return nil
	}
	values := []string{f.Value.String()}
	if isSlice {
		sv, ok := f.Value.(pflag.SliceValue)
		if !ok {
			return nil
		}
		values = sv.GetSlice()
		if len(values) == 0 {
			return errors.New("must list at least one value")
		}
	}
	for _, v := range values {
		sign, err := signOf(elem, v)
		if err != nil {
			return err
		}
		switch {
		case sign < 0 && zeroOK(f):
			return errors.New("must not be negative")
		case sign < 0:
			return errors.New("must be positive")
		case sign == 0 && !zeroOK(f):
			return errors.New("must be positive (leave the flag out for its default)")
		}
	}
	return nil
}

// signOf returns -1, 0 or 1 for the value v of pflag type typ.
func signOf(typ, v string) (int, error) {
	var x float64
	switch typ {
	case "duration":
		d, err := time.ParseDuration(v)
		if err != nil {
			return 0, err
		}
		x = float64(d)
	default:
		var err error
		if x, err = strconv.ParseFloat(v, 64); err != nil {
			return 0, err
		}
	}
	switch {
	case x < 0:
		return -1, nil
	case x == 0:
		return 0, nil
	}
	return 1, nil
}

// nameCheckers check, by flag name in every command, values that name
// something: they must exist before any work starts (and -w/--write-out
// is one of its formats).
var nameCheckers = map[string]func(string) error{
	"protocol":  checkProtocol,
	"protocols": checkProtocols,
	"topology":  func(v string) error { _, err := topology.Lookup(v); return err },
	"workload":  func(v string) error { _, err := workload.Lookup(v); return err },
	"cost":      func(v string) error { _, err := sim.LoadCostModel(v); return err },
	"write-out": func(v string) error {
		if v != outputTable && v != outputJSON {
			return errors.New("must be table or json")
		}
		return nil
	},
}

// selfCheckedAnnotation marks a flag whose command checks its value
// itself, with a rule of its own (torture's --protocol takes "all" or a
// list), so that checkName leaves it alone.
const selfCheckedAnnotation = "causeway_self_checked"

// selfChecked marks flags of fs, by name, as checked by their command.
func selfChecked(fs *pflag.FlagSet, names ...string) {
	for _, n := range names {
		if err := fs.SetAnnotation(n, selfCheckedAnnotation, []string{"true"}); err != nil {
			panic(err) // a programming error: no such flag
		}
	}
}

// checkName checks the value of a flag that names a protocol, topology,
// workload or cost model (nameCheckers).
func checkName(f *pflag.Flag) error {
	check := nameCheckers[f.Name]
	if check == nil || f.Annotations[selfCheckedAnnotation] != nil {
		return nil
	}
	return check(f.Value.String())
}

// checkProtocol accepts a registered protocol, or the live bench's
// no-op ceiling.
func checkProtocol(name string) error {
	if name == bench.NoopProtocol {
		return nil
	}
	_, err := protocol.Lookup(name)
	return err
}

// checkProtocols checks a comma-separated list of protocols: every one
// registered, none twice.
func checkProtocols(list string) error {
	seen := map[string]bool{}
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			return fmt.Errorf("an empty protocol name (valid: %v)", protocol.Names())
		}
		if seen[name] {
			return fmt.Errorf("%s is listed twice", name)
		}
		seen[name] = true
		if _, err := protocol.Lookup(name); err != nil {
			return err
		}
	}
	return nil
}
