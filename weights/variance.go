package weights

import _ "embed"

// The log-variance head of the shipped VAE's encoder (StackEncoderLogVar), kept out of vae.dcw: the engine, the
// page and the search use only the encoder mean, and only measuring the VAE's ELBO (package training) needs the
// head. Nothing but ShippedVAELogVar refers to these bytes, so the page's binaries, which never call it, do not
// carry them.
var (
	//go:embed vae_logvar.dcw
	vaeLogVarBytes []byte
	vaeLogVar      lazy
)

// ShippedVAELogVar returns the log-variance head of the shipped VAE's encoder, decoded and checked once (the
// file is shared: do not modify it). Its manifest's compaction record names the same float32 source as the
// VAE's.
func ShippedVAELogVar() (*File, error) {
	return vaeLogVar.load("weights/vae_logvar.dcw", vaeLogVarBytes)
}
