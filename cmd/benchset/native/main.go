// Command native is the native half of `make bench-set` on its own (package nativebench): cmd/benchset builds
// it in each tree it compares, so that each runs its own engine. It prints JSON.
//
//	go run ./cmd/benchset/native [-digit 1735] [-n 100] [-steps 100] [-workers 1] [-runs 1] [-fingerprint]
package main

import "github.com/deltaclue/deltaclue/cmd/benchset/nativebench"

func main() { nativebench.Exit() }
