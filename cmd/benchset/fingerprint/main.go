// Command fingerprint prints weights.ShippedFingerprint, the models' fingerprint that share links carry. It
// imports nothing but package weights, so that cmd/benchset can learn an older commit's fingerprint even when
// the native benchmark does not compile against that commit's engine.
package main

import (
	"fmt"
	"os"

	"github.com/deltaclue/deltaclue/weights"
)

func main() {
	fp, err := weights.ShippedFingerprint()
	if err != nil {
		fmt.Fprintln(os.Stderr, "fingerprint:", err)
		os.Exit(1)
	}
	fmt.Println(fp)
}
