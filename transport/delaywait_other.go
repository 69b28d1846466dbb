//go:build !linux

package transport

func prepareWaiterThread() {}

func newWaiter() waiter { return newChanWaiter() }
