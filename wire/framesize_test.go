package wire

import (
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
)

// TestFrameSizeIsEncodedLength: for every protocol message, empty and
// filled, FrameSize equals the length of the frame Encode makes.
func TestFrameSizeIsEncodedLength(t *testing.T) {
	n := 0
	protoregistry.GlobalTypes.RangeMessages(func(mt protoreflect.MessageType) bool {
		if !strings.HasPrefix(string(mt.Descriptor().FullName()), "causeway.") {
			return true
		}
		for _, depth := range []int{0, 1, 2} {
			m := mt.New()
			fill(m, depth)
			if depth == 0 {
				m = mt.New()
			}
			b, err := Encode(m.Interface())
			if err != nil {
				t.Fatal(err)
			}
			if got := FrameSize(m.Interface(), proto.Size(m.Interface())); got != len(b) {
				t.Errorf("%s (depth %d): FrameSize = %d, len(Encode) = %d", mt.Descriptor().FullName(), depth, got, len(b))
			}
		}
		n++
		return true
	})
	if n < 10 {
		t.Fatalf("only %d protocol message types registered", n)
	}
}
