//go:build !js

package app

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The page's budgets: the page component's fields (app.Compo counts as one) and the lines of a non-test Go file
// anywhere under app/. Both grew back once (24 fields, files of 500 lines); what belongs together is grouped into
// a type with its own methods, and a file too long is split by what its parts do.
const (
	maxExplainerFields = 20
	maxFileLines       = 400
)

// TestExplainerFields: the page component has at most maxExplainerFields fields.
func TestExplainerFields(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "explainer.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var fields *ast.FieldList
	ast.Inspect(f, func(n ast.Node) bool {
		if ts, ok := n.(*ast.TypeSpec); ok && ts.Name.Name == "Explainer" {
			if st, ok := ts.Type.(*ast.StructType); ok {
				fields = st.Fields
			}
		}
		return fields == nil
	})
	if fields == nil {
		t.Fatal("app/explainer.go declares no Explainer struct: the budget has nothing to hold (update this test if the page component moved)")
	}
	n := 0
	for _, fl := range fields.List {
		n += max(len(fl.Names), 1) // an embedded field (app.Compo) has no name and counts as one
	}
	if n < 2 {
		t.Fatalf("Explainer has %d fields: the test no longer reads the page component", n)
	}
	if n > maxExplainerFields {
		t.Errorf("Explainer has %d fields, more than its budget of %d: group the state that belongs together into one type with its own methods (as amortisedView or searchWorkers)", n, maxExplainerFields)
	}
	t.Logf("Explainer: %d fields of %d", n, maxExplainerFields)
}

// TestFileLines: no non-test Go file under app/ is longer than maxFileLines.
func TestFileLines(t *testing.T) {
	files := 0
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		files++
		if n := bytes.Count(b, []byte("\n")); n > maxFileLines {
			t.Errorf("app/%s has %d lines, more than the budget of %d: split it into files by what their parts do", filepath.ToSlash(path), n, maxFileLines)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files <= 20 {
		t.Fatalf("found %d non-test Go files under app/, expected more than 20: the walk no longer reads the package", files)
	}
	t.Logf("%d non-test Go files under app/", files)
}
