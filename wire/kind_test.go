package wire

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/causeway/causeway/wire/fullreppb"
	"github.com/causeway/causeway/wire/karmapb"
)

// TestKindCollisions: a registry refuses two types with one kind, one type
// with two kinds, and kind 0; kindTable itself has none of these (it
// would have stopped the test binary at start).
func TestKindCollisions(t *testing.T) {
	for _, tc := range []struct {
		name    string
		entries []kindMessage
		want    string
	}{
		{"two types, one kind", []kindMessage{{1, &fullreppb.Replicate{}}, {1, &karmapb.RingPut{}}},
			"wire: kind 1 given to both causeway.fullrep.v1.Replicate and causeway.karma.v1.RingPut"},
		{"one type, two kinds", []kindMessage{{1, &fullreppb.Replicate{}}, {2, &fullreppb.Replicate{}}},
			"wire: causeway.fullrep.v1.Replicate given both kind 1 and kind 2"},
		{"kind 0", []kindMessage{{0, &fullreppb.Replicate{}}}, "wire: kind 0 given to causeway.fullrep.v1.Replicate"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := newRegistry(tc.entries); err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Fatalf("newRegistry = %v, want an error starting %q", err, tc.want)
			}
		})
	}
	if _, err := newRegistry(kindTable); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if recover() == nil {
			t.Error("mustRegistry accepted a collision")
		}
	}()
	mustRegistry(append(append([]kindMessage(nil), kindTable...), kindMessage{kindTable[0].kind, &fullreppb.PutReply{}}))
}

// TestEveryMessageHasAKind: every message type of Causeway's packages
// (every package under wire/ is linked into this test through kindTable)
// has a kind, and every package under wire/ has kinds.
func TestEveryMessageHasAKind(t *testing.T) {
	n := 0
	protoregistry.GlobalTypes.RangeMessages(func(mt protoreflect.MessageType) bool {
		if !strings.HasPrefix(string(mt.Descriptor().FullName()), "causeway.") {
			return true
		}
		n++
		if _, ok := KindOf(mt.New().Interface()); !ok {
			t.Errorf("%s has no kind: add it to kindTable (wire/kindtable.go) and docs/formats/wire.md", mt.Descriptor().FullName())
		}
		return true
	})
	if n != len(kindTable) {
		t.Errorf("%d Causeway message types linked, %d kinds", n, len(kindTable))
	}
	dirs, err := filepath.Glob("*pb")
	if err != nil {
		t.Fatal(err)
	}
	pkgs := map[string]bool{}
	for _, e := range kindTable {
		pkgs[filepath.Base(reflect.TypeOf(e.msg).Elem().PkgPath())] = true
	}
	for _, d := range dirs {
		if !pkgs[d] {
			t.Errorf("package wire/%s has no kinds in kindTable", d)
		}
	}
}

// TestFramingBytes: a registered message costs at most 2 bytes of framing
// (issue #17's target is at most 20), and a message type with no kind
// still travels, under its full name.
func TestFramingBytes(t *testing.T) {
	const target = 20
	for _, e := range kindTable {
		m := e.msg.ProtoReflect().Type().New().Interface()
		fill(m.ProtoReflect(), 1)
		size := proto.Size(m)
		b, err := Encode(m)
		if err != nil {
			t.Fatal(err)
		}
		if f := len(b) - size; f > 2 || f > target {
			t.Errorf("%s: %d bytes of framing, want at most 2", e.msg.ProtoReflect().Descriptor().FullName(), f)
		}
	}
}

// TestKindsAreDocumented: docs/formats/wire.md lists every kind with its
// message type, exactly as kindTable has them. Since a kind never
// changes, a failure here that is not a new row is a broken wire format.
func TestKindsAreDocumented(t *testing.T) {
	page, err := os.ReadFile("../docs/formats/wire.md")
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("(?m)^\\| (\\d+) \\| `([a-zA-Z0-9_.]+)` \\|")
	doc := map[Kind]string{}
	for _, m := range row.FindAllStringSubmatch(string(page), -1) {
		k, _ := strconv.Atoi(m[1])
		if _, dup := doc[Kind(k)]; dup {
			t.Errorf("docs/formats/wire.md lists kind %d twice", k)
		}
		doc[Kind(k)] = m[2]
	}
	var diffs []string
	for k, name := range Kinds() {
		if doc[k] != string(name) {
			diffs = append(diffs, fmt.Sprintf("kind %d: kindTable %s, docs %q", k, name, doc[k]))
		}
	}
	for k, name := range doc {
		if _, ok := Kinds()[k]; !ok {
			diffs = append(diffs, fmt.Sprintf("kind %d: docs %s, not in kindTable (kinds are never removed)", k, name))
		}
	}
	sort.Strings(diffs)
	for _, d := range diffs {
		t.Error(d)
	}
}
