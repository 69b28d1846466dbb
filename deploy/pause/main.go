// Command pause does nothing until it receives SIGTERM or SIGINT, then
// exits 0. It is the process of the client container of
// deploy/compose.yaml, which only exists so that `docker exec` can run
// causeway commands inside the cluster's network: the image is FROM
// scratch, with no shell and no sleep.
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	c := make(chan os.Signal, 1)
	signal.Notify(c, syscall.SIGTERM, syscall.SIGINT)
	<-c
}
