//go:build !denseonly

package weights

// TablesLeftOut says that this build reads no table (tables_dense.go); this one reads them.
const TablesLeftOut = false
