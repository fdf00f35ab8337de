package anchors

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/deltaclue/deltaclue/weights"
)

// TestShippedAnchorsAreWhatTheShippedModelsMake regenerates the anchors from the shipped VAE and BNN and the
// training split of `make data`, and checks that the committed weights/anchors.dcw is that file byte for byte.
func TestShippedAnchorsAreWhatTheShippedModelsMake(t *testing.T) {
	if runtime.GOOS == "js" {
		t.Skip("SKIPPED: native only (7,000 digits through the models; the engine's bits are checked in WASM elsewhere)")
	}
	root := filepath.Join("..", "..")
	vae, err := weights.ShippedVAE()
	if err != nil {
		t.Fatal(err)
	}
	bnn, err := weights.ShippedBNN()
	if err != nil {
		t.Fatal(err)
	}
	train, err := ReadTrain(filepath.Join(root, "data"), vae.Manifest.Dataset)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("the training split is missing under CI: %v", err)
		}
		t.Skipf("SKIPPED: cannot check the shipped anchors without the training split: %v", err)
	}
	got, err := Make(vae, bnn, train, vae.Manifest.Dataset)
	if err != nil {
		t.Fatal(err)
	}
	shipped, err := os.ReadFile(filepath.Join(root, "weights", weights.BundleAnchors))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, shipped) {
		t.Fatalf("weights/anchors.dcw (%d bytes) is not what the shipped models make (%d bytes): run `make anchors`", len(shipped), len(got))
	}
	f, err := weights.Decode("anchors", got)
	if err != nil {
		t.Fatal(err)
	}
	if f.Manifest.Training["vae_payload_sha256"] != vae.Manifest.PayloadSHA || f.Manifest.Training["bnn_payload_sha256"] != bnn.Manifest.PayloadSHA {
		t.Error("the anchors do not name the shipped models they were made with")
	}
	again, _ := Make(vae, bnn, train, vae.Manifest.Dataset)
	if !bytes.Equal(got, again) {
		t.Error("two runs made different anchors")
	}
}
