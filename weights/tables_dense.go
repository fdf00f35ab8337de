//go:build denseonly

package weights

// TablesLeftOut says that this build (the dense-only worker: the digits' first visit) reads no table: a model of
// rows is served the full worker (Description.DenseOnly), so the table's checks are left out of it.
const TablesLeftOut = true
