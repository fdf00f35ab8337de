package main

import (
	"errors"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/deltaclue/deltaclue/mnist"
)

// goPrefix matches a Go package's prefix in a message ("mnist: …", "png: invalid format").
var goPrefix = regexp.MustCompile(`(^|[ :(])(mnist|weights|clue|engine|searchworker|image|png|jpeg|figures|app): `)

// TestMessagesHaveNoPackagePrefixes: what the CLI says about bad input names no Go package, and a blank image
// is said in one sentence while errors.Is still finds mnist.ErrEmpty.
func TestMessagesHaveNoPackagePrefixes(t *testing.T) {
	dir := t.TempDir()
	blank := filepath.Join(dir, "blank.png")
	f, _ := os.Create(blank)
	png.Encode(f, image.NewGray(image.Rect(0, 0, 50, 50)))
	f.Close()
	notes := filepath.Join(dir, "notes.png")
	os.WriteFile(notes, []byte("shopping list: eggs, milk, bread"), 0o644)
	cut := filepath.Join(dir, "cut.png")
	b, _ := os.ReadFile(blank)
	os.WriteFile(cut, b[:40], 0o644)

	err := explain([]string{"-png", blank, "-out", filepath.Join(dir, "out")})
	if err == nil || err.Error() != blank+" is empty: it has no ink to read as a digit." || !errors.Is(err, mnist.ErrEmpty) {
		t.Errorf("a blank image: %v", err)
	}
	for _, args := range [][]string{{"-png", blank}, {"-png", notes}, {"-png", cut}, {"-digit", "1", "-delta", "-2"},
		{"-digit", "1", "-n", "0"}, {"-digit", "99999"}, {"-link", "v2.%zz"}} {
		err := explain(append(args, "-out", filepath.Join(dir, "out")))
		if err == nil {
			t.Errorf("explain %v: no error", args)
			continue
		}
		if goPrefix.MatchString(err.Error()) {
			t.Errorf("explain %v: a package prefix in %q", args, err)
		}
		t.Logf("explain %v: deltaclue: %v", args, err)
	}
	var notImage, damaged error = explain([]string{"-png", notes}), explain([]string{"-png", cut})
	for _, err := range []error{notImage, damaged} {
		if !errors.As(err, new(*mnist.FileError)) || errors.Unwrap(errors.Unwrap(err)) == nil {
			t.Errorf("%v: not a FileError wrapping the decoder's error", err)
		}
	}
}
