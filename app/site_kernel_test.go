//go:build !js

package app

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestSiteWorkerImportsSIMDKernel: each served models' search worker imports the WebAssembly SIMD matmul kernel
// (deltaclue_kernel.matmul_add, engine/kernel), which web/worker.js instantiates from the matmul.wasm beside it
// in every engine and without which it refuses to start. A worker.wasm built without the wasmsimd tag would
// quietly run the pure-Go kernel, several times slower, with the same results; this is what would notice. The
// kernel beside each worker exports everything the worker imports from it (the digits' is the dense kernel,
// Fashion's the whole), and web/worker.js passes each on.
func TestSiteWorkerImportsSIMDKernel(t *testing.T) {
	site := buildSite(t)
	script, err := os.ReadFile(filepath.Join(site, "web", "worker.js"))
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{"web", filepath.Join("web", "fashion")} {
		b, err := os.ReadFile(filepath.Join(site, dir, "worker.wasm"))
		if err != nil {
			t.Fatal(err)
		}
		imports, err := wasmNames(b, wasmImportSection)
		if err != nil {
			t.Fatalf("%s/worker.wasm: %v", dir, err)
		}
		if !slices.Contains(imports, "deltaclue_kernel.matmul_add") {
			t.Fatalf("%s/worker.wasm does not import deltaclue_kernel.matmul_add (built without -tags wasmsimd?); its imports: %v", dir, imports)
		}
		k, err := os.ReadFile(filepath.Join(site, dir, "matmul.wasm"))
		if err != nil {
			t.Fatalf("the site has no matmul.wasm beside %s/worker.wasm: %v", dir, err)
		}
		exports, err := wasmNames(k, wasmExportSection)
		if err != nil {
			t.Fatalf("%s/matmul.wasm: %v", dir, err)
		}
		// Every function the worker imports from the kernel module (the element-wise loops too) is in the kernel
		// beside it and passed on by web/worker.js: a missing one would leave the worker unable to start.
		var fromKernel []string
		for _, imp := range imports {
			name, ok := strings.CutPrefix(imp, "deltaclue_kernel.")
			if !ok {
				continue
			}
			fromKernel = append(fromKernel, name)
			if !slices.Contains(exports, name) {
				t.Errorf("%s/worker.wasm imports %s, which the matmul.wasm beside it does not export (it exports %v)", dir, imp, exports)
			}
			if !strings.Contains(string(script), "kernel.exports."+name+"(") {
				t.Errorf("%s/worker.wasm imports %s, which web/worker.js does not pass on from matmul.wasm", dir, imp)
			}
		}
		t.Logf("%s: worker.wasm imports %v from matmul.wasm (%d bytes), which exports %v", dir, fromKernel, len(k), exports)
	}
}

// TestSiteWorkerKnowsTheModelsHash: the site's worker.wasm carries the SHA-256 of the models.bin served beside
// it (cmd/site stamps it), so that a worker handed the bundle with that hash, worked out natively by the page's
// loader, skips the files' own payload hashes (wasm/worker's hashed). Without the stamp every worker would hash
// the bundle again in unoptimised WebAssembly, most of its start, and nothing else would notice.
func TestSiteWorkerKnowsTheModelsHash(t *testing.T) {
	site := buildSite(t)
	models, err := os.ReadFile(filepath.Join(site, "web", "models.bin"))
	if err != nil {
		t.Fatal(err)
	}
	worker, err := os.ReadFile(filepath.Join(site, "web", "worker.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(models)
	if !bytes.Contains(worker, []byte(hex.EncodeToString(sum[:]))) {
		t.Errorf("worker.wasm does not carry models.bin's SHA-256 %x (cmd/site's -X main.ModelsSHA256)", sum)
	}
	script, err := os.ReadFile(filepath.Join(site, "web", "worker.js"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(script), "self.deltaclueModelsDigest =") {
		t.Error("web/worker.js does not hand the worker the bundle's digest")
	}
}

// The sections wasmNames reads.
const (
	wasmImportSection = 2
	wasmExportSection = 7
)

// wasmNames lists a WebAssembly module's imports ("module.name") or exports ("name").
func wasmNames(b []byte, section byte) ([]string, error) {
	if len(b) < 8 || string(b[:4]) != "\x00asm" {
		return nil, errors.New("not a WebAssembly module")
	}
	p := b[8:]
	bad := errors.New("the module is cut short or malformed")
	uleb := func() uint64 {
		v, n := binary.Uvarint(p)
		if n <= 0 {
			p = nil
			return 0
		}
		p = p[n:]
		return v
	}
	name := func() string {
		n := uleb()
		if uint64(len(p)) < n {
			p = nil
			return ""
		}
		s := string(p[:n])
		p = p[n:]
		return s
	}
	for len(p) > 0 {
		id := p[0]
		p = p[1:]
		size := uleb()
		if p == nil || uint64(len(p)) < size {
			return nil, bad
		}
		if id != section {
			p = p[size:]
			continue
		}
		p = p[:size]
		var out []string
		count := uleb()
		for n := count; n > 0 && p != nil && section == wasmExportSection; n-- {
			field := name()
			if len(p) < 1 {
				return nil, bad
			}
			p = p[1:] // kind
			uleb()    // index
			if p == nil {
				return nil, bad
			}
			out = append(out, field)
		}
		for n := count; n > 0 && p != nil && section == wasmImportSection; n-- {
			mod, field := name(), name()
			if len(p) < 1 {
				return nil, bad
			}
			kind := p[0]
			p = p[1:]
			switch kind {
			case 0: // function: type index
				uleb()
			case 1: // table: element type, limits
				if len(p) < 2 {
					return nil, bad
				}
				flags := p[1]
				p = p[2:]
				uleb()
				if flags&1 != 0 {
					uleb()
				}
			case 2: // memory: limits
				if len(p) < 1 {
					return nil, bad
				}
				flags := p[0]
				p = p[1:]
				uleb()
				if flags&1 != 0 {
					uleb()
				}
			case 3: // global: value type, mutability
				if len(p) < 2 {
					return nil, bad
				}
				p = p[2:]
			default:
				return nil, bad
			}
			if p == nil {
				return nil, bad
			}
			out = append(out, mod+"."+field)
		}
		return out, nil
	}
	return nil, nil
}
