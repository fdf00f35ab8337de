package weights

import (
	_ "embed"
	"errors"
	"sync"
)

// The trained models the explainer ships with (README.md in this folder says how they were made). Only
// functions refer to the embedded bytes, never a package-level initialiser, so a binary that imports this
// package without loading the models (the page's app.wasm) does not carry them.
var (
	//go:embed vae.dcw
	vaeBytes []byte
	//go:embed bnn.dcw
	bnnBytes []byte
	//go:embed anchors.dcw
	anchorBytes []byte
	//go:embed global.dcw
	globalBytes []byte
)

type lazy struct {
	once sync.Once
	file *File
	err  error
}

func (l *lazy) load(name string, data []byte) (*File, error) {
	l.once.Do(func() { l.file, l.err = Decode(name, data) })
	return l.file, l.err
}

var vae, bnn, anchors, global lazy

// ShippedVAE returns the shipped VAE, decoded and checked once. The file is shared: do not modify it.
func ShippedVAE() (*File, error) { return vae.load("weights/vae.dcw", vaeBytes) }

// ShippedBNN returns the shipped BNN, decoded and checked once. The file is shared: do not modify it.
func ShippedBNN() (*File, error) { return bnn.load("weights/bnn.dcw", bnnBytes) }

// ShippedAnchors returns the latent codes of low-uncertainty training digits per class that the δ-CLUE
// scheme S2 walks towards (made by `make train` with the shipped models; see README.md).
func ShippedAnchors() (*File, error) { return anchors.load("weights/anchors.dcw", anchorBytes) }

// ShippedGlobal returns GLAM-CLUE's translations for groups of uncertain training digits (package engine/glam;
// made by `make translations` with the shipped models). They are not part of ShippedFingerprint: a share link
// names the models a search ran on, and the translations do not change a search.
func ShippedGlobal() (*File, error) { return global.load("weights/global.dcw", globalBytes) }

// ShippedFingerprint is the Fingerprint of the shipped VAE, BNN and anchors: what share links carry.
func ShippedFingerprint() (uint32, error) {
	v, err1 := ShippedVAE()
	b, err2 := ShippedBNN()
	a, err3 := ShippedAnchors()
	if err := errors.Join(err1, err2, err3); err != nil {
		return 0, err
	}
	return Fingerprint(v, b, a), nil
}
