//go:build denseonly

package engine

import (
	"strings"
	"testing"

	"github.com/deltaclue/deltaclue/internal/testbundle"
)

// TestDenseOnlyRefusesImageLayers: a worker built for dense models (the digits' site) refuses a convolutional
// model in one sentence, and still runs the digits.
func TestDenseOnlyRefusesImageLayers(t *testing.T) {
	grey, err := testbundle.Grey(1)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := Load(grey.Description, grey.Files); err == nil || !strings.Contains(err.Error(), "was built for dense models and does not run conv2d layers") {
		t.Errorf("a convolutional model on a dense-only build: %v", err)
	}
	if grey.Description.DenseOnly() {
		t.Error("the grey test model says it is dense only")
	}
	v, b := loadShipped(t)
	if v.Latent == 0 || b.Classes != 10 {
		t.Errorf("the digits on a dense-only build: latent %d, %d classes", v.Latent, b.Classes)
	}
}
