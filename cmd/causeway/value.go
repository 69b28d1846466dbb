package main

import (
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"os"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/causeway/causeway/client"
	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/wire"
)

// maxValueBytes bounds a value the CLI writes: a message carrying it must
// fit in one wire frame (wire.MaxFrameBytes), with room for the key and
// the protocol's metadata.
const maxValueBytes = wire.MaxFrameBytes - 1<<20

// value is one key's value as the client commands print it in JSON: Value
// when it is valid UTF-8, else ValueBase64 (standard encoding, padded);
// neither when the key was not found (never written, or deleted).
type value struct {
	Key         string  `json:"key"`
	Found       bool    `json:"found"`
	Value       *string `json:"value,omitempty"`
	ValueBase64 *string `json:"value_base64,omitempty"`
	raw         []byte
}

// makeValue builds the value of key as a read returned it.
func makeValue(key string, v []byte, found bool) value {
	out := value{Key: key, Found: found, raw: v}
	if !found {
		return out
	}
	if utf8.Valid(v) {
		s := string(v)
		out.Value = &s
	} else {
		s := base64.StdEncoding.EncodeToString(v)
		out.ValueBase64 = &s
	}
	return out
}

// checkValue says why the CLI will not write v: an empty value (a read
// could not tell it from a missing key), or one that starts with the
// tombstone prefix (a read would take it for a delete).
func checkValue(v []byte) error {
	switch {
	case len(v) == 0:
		return client.ErrEmptyValue
	case protocol.IsTombstone(v):
		return client.ErrReservedValue
	case len(v) > maxValueBytes:
		return fmt.Errorf("value of %d bytes is over the %d-byte limit", len(v), maxValueBytes)
	}
	return nil
}

// readValue returns the value put writes: args[1], standard input when
// args[1] is "-", or the contents of file. Every problem is a bad input
// (exit 2), found before any node is contacted.
func readValue(cmd *cobra.Command, args []string, file string) ([]byte, error) {
	var v []byte
	var err error
	from := "VALUE"
	switch {
	case file != "":
		from = "--file " + file
		var f *os.File
		if f, err = os.Open(file); err == nil {
			v, err = readAtMost(f)
			_ = f.Close()
		}
	case args[1] == "-":
		from = "standard input"
		v, err = readAtMost(cmd.InOrStdin())
	default:
		v = []byte(args[1])
	}
	if err != nil {
		return nil, usageErrorf("put: %s: %v", from, err)
	}
	if err := checkValue(v); err != nil {
		return nil, usageErrorf("put: key %q: %s: %v", args[0], from, err)
	}
	return v, nil
}

// errTooLong reports a value over maxValueBytes.
var errTooLong = fmt.Errorf("value over the %d-byte limit", maxValueBytes)

// readAtMost reads r to its end, refusing more than maxValueBytes.
func readAtMost(r io.Reader) ([]byte, error) {
	v, err := io.ReadAll(io.LimitReader(r, maxValueBytes+1))
	if err == nil && len(v) > maxValueBytes {
		err = errTooLong
	}
	return v, err
}

// writeValueFile writes v to file (get --file).
func writeValueFile(file string, v []byte) error {
	if err := os.WriteFile(file, v, 0o644); err != nil {
		return errors.New("--file: " + err.Error())
	}
	return nil
}
