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
)

var (
	shippedVAE = sync.OnceValues(func() (*File, error) { return Decode("weights/vae.dcw", vaeBytes) })
	shippedBNN = sync.OnceValues(func() (*File, error) { return Decode("weights/bnn.dcw", bnnBytes) })
)

// ShippedVAE returns the shipped VAE, decoded and checked once. The file is shared: do not modify it.
func ShippedVAE() (*File, error) { return shippedVAE() }

// ShippedBNN returns the shipped BNN, decoded and checked once. The file is shared: do not modify it.
func ShippedBNN() (*File, error) { return shippedBNN() }
