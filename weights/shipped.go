package weights

import (
	_ "embed"
	"sync"
)

// The trained models the explainer ships with (README.md in this folder says how they were made).
var (
	//go:embed vae.dcw
	vaeBytes []byte
	//go:embed bnn.dcw
	bnnBytes []byte
	//go:embed anchors.dcw
	anchorBytes []byte
)

var (
	shippedVAE     = sync.OnceValues(func() (*File, error) { return Decode("weights/vae.dcw", vaeBytes) })
	shippedBNN     = sync.OnceValues(func() (*File, error) { return Decode("weights/bnn.dcw", bnnBytes) })
	shippedAnchors = sync.OnceValues(func() (*File, error) { return Decode("weights/anchors.dcw", anchorBytes) })
)

// ShippedVAE returns the shipped VAE, decoded and checked once. The file is shared: do not modify it.
func ShippedVAE() (*File, error) { return shippedVAE() }

// ShippedBNN returns the shipped BNN, decoded and checked once. The file is shared: do not modify it.
func ShippedBNN() (*File, error) { return shippedBNN() }

// ShippedAnchors returns the latent codes of low-uncertainty training digits per class that the δ-CLUE
// scheme S2 walks towards (made by `make train` with the shipped models; see README.md).
func ShippedAnchors() (*File, error) { return shippedAnchors() }
