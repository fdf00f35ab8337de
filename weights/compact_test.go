package weights

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"strings"
	"testing"
)

// goldenShipped is the SHA-256 of the float32 bits the shipped files (vae, vae_logvar, bnn, anchors) decode
// to, every tensor in manifest order. The test runs natively and under Node (GOOS=js), so the decoded models
// are bit for bit the same on both; gomlx (package training) loads these same values.
const goldenShipped = "bf0c5d1f0af25e929f33cad8f0abf73bc429d2fbddce3c0c11bfd2257570ed04"

func TestShippedDecodeGolden(t *testing.T) {
	vae, err1 := ShippedVAE()
	logVar, err2 := ShippedVAELogVar()
	bnn, err3 := ShippedBNN()
	anchors, err4 := ShippedAnchors()
	for _, err := range []error{err1, err2, err3, err4} {
		if err != nil {
			t.Fatal(err)
		}
	}
	h := sha256.New()
	for _, f := range []*File{vae, logVar, bnn, anchors} {
		for _, n := range f.Named() {
			binary.Write(h, binary.LittleEndian, n.Values)
		}
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != goldenShipped {
		t.Errorf("the shipped models decode to bits hashing to %s, want %s", got, goldenShipped)
	}
	// The VAE that the page loads has no log-variance head; vae_logvar.dcw has it, for the same encoder.
	for _, tn := range vae.Manifest.Tensors {
		if strings.HasPrefix(tn.Name, StackEncoderLogVar+"/") {
			t.Errorf("%s carries %s", vae.Name, tn.Name)
		}
	}
	a := vae.Manifest.Architecture
	if _, err := logVar.MLP(StackEncoderLogVar, []int{a.Layers[len(a.Layers)-1], a.Latent}); err != nil {
		t.Error(err)
	}
	if logVar.Manifest.Compaction == nil || vae.Manifest.Compaction == nil || logVar.Manifest.Compaction.Source != vae.Manifest.Compaction.Source {
		t.Errorf("%s and %s do not name the same float32 source", vae.Name, logVar.Name)
	}
}
