package sim

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// maxBytesShown is the longest bytes value FormatMessage prints whole.
const maxBytesShown = 16

// FormatMessage renders a protocol message in one deterministic line: its
// kind, then every populated field in field-number order as name:value.
// Strings are quoted; bytes are quoted when short and printable, otherwise
// abbreviated to their length and first bytes in hex; nested messages are
// {…}, lists […], maps {k:v …} sorted by key. (prototext is not used: its
// output is deliberately unstable.)
func FormatMessage(m proto.Message) string {
	var b strings.Builder
	b.WriteString(Kind(m))
	if f := formatFields(m.ProtoReflect()); f != "" {
		b.WriteString(" ")
		b.WriteString(f)
	}
	return b.String()
}

// formatFields renders the populated fields of m, space-separated.
func formatFields(m protoreflect.Message) string {
	fields := m.Descriptor().Fields()
	var parts []string
	for i := 0; i < fields.Len(); i++ {
		fd := fields.Get(i)
		if !m.Has(fd) {
			continue
		}
		parts = append(parts, string(fd.Name())+":"+formatField(fd, m.Get(fd)))
	}
	return strings.Join(parts, " ")
}

func formatField(fd protoreflect.FieldDescriptor, v protoreflect.Value) string {
	switch {
	case fd.IsList():
		l := v.List()
		items := make([]string, l.Len())
		for i := range items {
			items[i] = formatScalar(fd, l.Get(i))
		}
		return "[" + strings.Join(items, " ") + "]"
	case fd.IsMap():
		var items []string
		v.Map().Range(func(k protoreflect.MapKey, mv protoreflect.Value) bool {
			items = append(items, formatScalar(fd.MapKey(), k.Value())+":"+formatScalar(fd.MapValue(), mv))
			return true
		})
		sort.Strings(items)
		return "{" + strings.Join(items, " ") + "}"
	}
	return formatScalar(fd, v)
}

func formatScalar(fd protoreflect.FieldDescriptor, v protoreflect.Value) string {
	switch fd.Kind() {
	case protoreflect.MessageKind, protoreflect.GroupKind:
		return "{" + formatFields(v.Message()) + "}"
	case protoreflect.StringKind:
		return strconv.Quote(v.String())
	case protoreflect.BytesKind:
		return formatBytes(v.Bytes())
	case protoreflect.EnumKind:
		if ev := fd.Enum().Values().ByNumber(v.Enum()); ev != nil {
			return string(ev.Name())
		}
		return strconv.Itoa(int(v.Enum()))
	}
	return fmt.Sprint(v.Interface())
}

func formatBytes(b []byte) string {
	if len(b) <= maxBytesShown && utf8.Valid(b) && printable(b) {
		return strconv.Quote(string(b))
	}
	head := b
	if len(head) > 4 {
		head = head[:4]
	}
	return fmt.Sprintf("<%d bytes %x…>", len(b), head)
}

func printable(b []byte) bool {
	for _, r := range string(b) {
		if !strconv.IsPrint(r) {
			return false
		}
	}
	return true
}
