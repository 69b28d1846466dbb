//go:build !linux

package transport

func newWaiter() waiter { return newChanWaiter() }
