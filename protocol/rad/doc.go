// Package rad registers the "rad" protocol: RAD, K2's baseline.
package rad
