package modelsource

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/deltaclue/deltaclue/internal/dataset"
)

// A table's models folder keeps its test rows as test.csv: written with the bundle, read back the same rows and
// labels; a broken file is refused naming it.
func TestTableFolderRows(t *testing.T) {
	m, err := Open(Credit)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := WriteDir(dir, m.Bytes, m.Test); err != nil {
		t.Fatal(err)
	}
	back, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	want, got := m.Test.(*dataset.Table), back.Test.(*dataset.Table)
	if got.Len() != want.Len() || !slices.Equal(got.Labels, want.Labels) || !slices.Equal(got.Rows[7], want.Rows[7]) {
		t.Fatalf("read back %d rows (row 7 %v), wrote %d (%v)", got.Len(), got.Rows[7], want.Len(), want.Rows[7])
	}
	if err := os.WriteFile(filepath.Join(dir, TestRowsFile), []byte("Age,class\n30,good\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(dir); err == nil || !strings.Contains(err.Error(), TestRowsFile) || !strings.Contains(err.Error(), "no column") {
		t.Fatalf("a test.csv without most columns: %v", err)
	}
}
