// Package layout holds no code: its test keeps the repository's layout, which the compiler does not.
package layout

import (
	"bufio"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// pageImporters are the only folders outside app/ that may import the page package itself: its WASM entry point
// and the static-site generator that renders it. No folder outside app/ may import a package under app/.
var pageImporters = []string{"wasm/app", "cmd/site"}

// moduleRoot is the folder of go.mod above this test's, and the module's path.
func moduleRoot(t *testing.T) (string, string) {
	t.Helper()
	dir, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	for {
		f, err := os.Open(filepath.Join(dir, "go.mod"))
		if err == nil {
			defer f.Close()
			s := bufio.NewScanner(f)
			for s.Scan() {
				if rest, ok := strings.CutPrefix(strings.TrimSpace(s.Text()), "module "); ok {
					return dir, strings.Trim(strings.TrimSpace(rest), `"`)
				}
			}
			t.Fatalf("%s/go.mod names no module", dir)
		}
		up := filepath.Dir(dir)
		if up == dir {
			t.Fatal("no go.mod above the test's folder")
		}
		dir = up
	}
}

// TestOnlyThePageImportsApp (issue 40: the page is only the page): app/ holds the page and the packages only the
// page uses. What the page shares with the worker, the CLI or the tools lives beside them (engine/clue/sharelink,
// engine/clue/figures, engine/clue/raster, wasm/worker/searchworker, internal/gallery), so outside app/ only
// wasm/app and cmd/site import the page package, and nothing imports a package under it. Every Go file is read,
// whatever its build tags (the page's js-only files and the native tests alike).
func TestOnlyThePageImportsApp(t *testing.T) {
	root, module := moduleRoot(t)
	page := module + "/app"
	files := 0
	found := map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := filepath.ToSlash(strings.TrimPrefix(strings.TrimPrefix(path, root), string(filepath.Separator)))
		if d.IsDir() {
			// What go build never reads: hidden folders, testdata, and the git-ignored data/ and build/.
			name := d.Name()
			if path != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" ||
				name == "node_modules" || rel == "data" || rel == "build") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || !d.Type().IsRegular() {
			return nil
		}
		dir := filepath.ToSlash(filepath.Dir(rel))
		if dir == "app" || strings.HasPrefix(dir, "app/") {
			return nil
		}
		files++
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			t.Errorf("%s: %v", rel, err)
			return nil
		}
		for _, spec := range f.Imports {
			p, err := strconv.Unquote(spec.Path.Value)
			if err != nil || (p != page && !strings.HasPrefix(p, page+"/")) {
				continue
			}
			switch {
			case p == page && slices.Contains(pageImporters, dir):
				found[dir] = true
			case p == page:
				t.Errorf("%s imports the page (%s): only %s may; move what it takes from the page out of app/", rel, p, strings.Join(pageImporters, " and "))
			default:
				t.Errorf("%s imports %s, a package under app/: outside app/ nothing may; move that package beside what it belongs to", rel, p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// The check must be looking at the real tree: the page's own importers are there.
	for _, dir := range pageImporters {
		if !found[dir] {
			t.Errorf("%s does not import the page: the check is not looking at the real tree", dir)
		}
	}
	if files < 100 {
		t.Fatalf("only %d Go files outside app/: the check is not looking at the real tree", files)
	}
}

// TestEachFileHasARoom (issue 40, part 3): no Go file of the page's (app/ and its packages, tests aside) is over
// 400 lines, and the page's component (app.Explainer) has at most 20 fields: the page's state lives in app/core,
// and each panel's methods in the panel's file.
func TestEachFileHasARoom(t *testing.T) {
	root, _ := moduleRoot(t)
	const maxLines, maxFields = 400, 20
	err := filepath.WalkDir(filepath.Join(root, "app"), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if n := strings.Count(string(b), "\n"); n > maxLines {
			rel, _ := filepath.Rel(root, path)
			t.Errorf("%s has %d lines: a file of the page's has at most %d", rel, n, maxLines)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(root, "app", "explainer.go"), nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	fields := -1
	for _, decl := range f.Decls {
		g, ok := decl.(*ast.GenDecl)
		if !ok {
			continue
		}
		for _, spec := range g.Specs {
			if ts, ok := spec.(*ast.TypeSpec); ok && ts.Name.Name == "Explainer" {
				if st, ok := ts.Type.(*ast.StructType); ok {
					fields = 0
					for _, fl := range st.Fields.List {
						fields += max(len(fl.Names), 1)
					}
				}
			}
		}
	}
	switch {
	case fields < 0:
		t.Fatal("app/explainer.go declares no struct Explainer")
	case fields > maxFields:
		t.Errorf("the page's component has %d fields: at most %d", fields, maxFields)
	}
	t.Logf("the component has %d fields (app.Compo counted)", fields)
}
