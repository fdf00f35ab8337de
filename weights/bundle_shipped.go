package weights

// ShippedBundle is the shipped models as one bundle: what the site serves as web/models.bin. Like the
// Shipped functions, it is the only reference to the embedded bytes, so a binary that never calls it (the
// search worker, which receives the bundle from the page) does not carry the models.
func ShippedBundle() []byte {
	return EncodeBundle([]BundleFile{{DescriptionFile, digitsJSON}, {BundleVAE, vaeBytes}, {BundleBNN, bnnBytes}, {BundleAnchors, anchorBytes}, {BundleGlobal, globalBytes}})
}
