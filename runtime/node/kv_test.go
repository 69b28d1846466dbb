package node

import (
	"context"
	"fmt"

	"github.com/causeway/causeway/protocol"
)

// kvSession is the little of package client these tests need: package
// client imports this one (client.Dial), so these tests cannot import it.
type kvSession struct {
	s  *Session
	dc string
}

func newKV(s *Session, dc string) *kvSession { return &kvSession{s: s, dc: dc} }

// opError is a failed reply's code; the tests compare it with errors.Is.
type opError protocol.ErrCode

func (e opError) Error() string { return protocol.ErrCode(e).String() }

var (
	errTimeout     error = opError(protocol.ErrTimeout)
	errUnavailable error = opError(protocol.ErrUnavailable)
	errUnsupported error = opError(protocol.ErrUnsupported)
)

func (k *kvSession) DC() string { return k.dc }

func (k *kvSession) do(ctx context.Context, req protocol.Request) (protocol.Reply, error) {
	rep, err := k.s.Do(ctx, req)
	if err != nil {
		return rep, fmt.Errorf("%v: %w", req.Op, err)
	}
	if rep.Err != protocol.OK {
		return rep, fmt.Errorf("%v: %w", req.Op, opError(rep.Err))
	}
	return rep, nil
}

func (k *kvSession) Get(ctx context.Context, key string) ([]byte, bool, error) {
	rep, err := k.do(ctx, protocol.Request{Op: protocol.OpGet, Key: key})
	return rep.Value, err == nil && rep.Value != nil, err
}

func (k *kvSession) Put(ctx context.Context, key string, value []byte) error {
	_, err := k.do(ctx, protocol.Request{Op: protocol.OpPut, Key: key, Value: value})
	return err
}

func (k *kvSession) ReadTxn(ctx context.Context, keys ...string) ([]protocol.KV, error) {
	rep, err := k.do(ctx, protocol.Request{Op: protocol.OpReadTxn, Keys: keys})
	return rep.Reads, err
}
