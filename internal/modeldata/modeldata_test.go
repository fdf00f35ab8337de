package modeldata

import (
	"strings"
	"testing"
)

// TestCheck: an export is accepted by its recorded SHA-256 only, and another is refused in one sentence that
// names the data set, the version and where to record a new hash.
func TestCheck(t *testing.T) {
	s := Set{Name: "iris", SHA256: SHA256([]byte("a,b\n1,2\n")), Version: "r-cran-modeldata 1.1.0-1", Record: "iris.ExportSHA256", Doc: "docs/x.md"}
	if err := s.Check([]byte("a,b\n1,2\n")); err != nil {
		t.Errorf("the recorded export: %v", err)
	}
	err := s.Check([]byte("a,b\n1,3\n"))
	if err == nil {
		t.Fatal("another export was accepted")
	}
	for _, want := range []string{"iris as exported has SHA-256", "r-cran-modeldata 1.1.0-1's", "check its rows (docs/x.md)", "record the new hash as iris.ExportSHA256"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q does not say %q", err, want)
		}
	}
	if SHA256(nil) != "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" {
		t.Errorf("SHA256 of nothing: %s", SHA256(nil))
	}
}

// TestExportWithoutR: without Rscript on PATH, the export says what to install.
func TestExportWithoutR(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	if _, err := (Set{Name: "concrete"}).Export(); err == nil || !strings.Contains(err.Error(), "concrete is exported with Rscript, which is not on PATH: apt-get install r-cran-modeldata") {
		t.Errorf("without Rscript: %v", err)
	}
}
