// Package modeldata exports a data set of Debian's r-cran-modeldata with Rscript and checks the export by its
// SHA-256: what `make data DATASET=credit` and `make data DATASET=concrete` start from (internal/credit,
// internal/concrete). Everything after the export is Go, and the data folder keeps the export, so later runs need
// no R.
package modeldata

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os/exec"
	"strings"
)

// Set is one of the package's data sets as the project exports it.
type Set struct {
	Name    string // R's name of the data set: "credit_data"
	Program string // the R program Rscript runs, writing the CSV file to its standard output
	SHA256  string // the export's SHA-256 with the package version the project was made with
	Version string // that version: "r-cran-modeldata 1.1.0-1"
	Record  string // where the hash is recorded, for the sentence that refuses another: "credit.ExportSHA256"
	Doc     string // the document that gives the rows' counts, to check another export's rows against
}

// Export runs the set's Program with Rscript and returns its output, saying what to install when R or the
// package is missing.
func (s Set) Export() ([]byte, error) {
	rscript, err := exec.LookPath("Rscript")
	if err != nil {
		return nil, fmt.Errorf("%s is exported with Rscript, which is not on PATH: apt-get install r-cran-modeldata (it brings r-base-core)", s.Name)
	}
	var stderr bytes.Buffer
	cmd := exec.Command(rscript, "--vanilla", "-e", s.Program)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("Rscript could not export %s (%v: %s): apt-get install r-cran-modeldata", s.Name, err, strings.TrimSpace(stderr.String()))
	}
	if len(out) == 0 {
		return nil, errors.New("Rscript exported nothing of " + s.Name)
	}
	return out, nil
}

// Check checks an export's SHA-256 against the set's.
func (s Set) Check(b []byte) error {
	if got := SHA256(b); got != s.SHA256 {
		return fmt.Errorf("%s as exported has SHA-256 %.12s…, not the %.12s… of %s's: another version of the package or of R gives other bytes, so check its rows (%s) and record the new hash as %s", s.Name, got, s.SHA256, s.Version, s.Doc, s.Record)
	}
	return nil
}

// SHA256 is b's SHA-256 in hexadecimal.
func SHA256(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
