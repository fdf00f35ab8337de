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
	// web/worker.js passes on every kernel function the worker imports, through a trampoline of 9 numbers.
	const trampolines, arity = "WebAssembly.Module.imports(module)", 9
	if !strings.Contains(string(script), trampolines) {
		t.Fatalf("web/worker.js does not pass on the kernel's functions the worker imports (%s)", trampolines)
	}
	for _, dir := range []string{"web", filepath.Join("web", "fashion")} {
		b, err := os.ReadFile(filepath.Join(site, dir, "worker.wasm"))
		if err != nil {
			t.Fatal(err)
		}
		worker, err := readWasm(b)
		if err != nil {
			t.Fatalf("%s/worker.wasm: %v", dir, err)
		}
		if !slices.Contains(worker.imports, "deltaclue_kernel.matmul_add") {
			t.Fatalf("%s/worker.wasm does not import deltaclue_kernel.matmul_add (built without -tags wasmsimd?); its imports: %v", dir, worker.imports)
		}
		k, err := os.ReadFile(filepath.Join(site, dir, "matmul.wasm"))
		if err != nil {
			t.Fatalf("the site has no matmul.wasm beside %s/worker.wasm: %v", dir, err)
		}
		kern, err := readWasm(k)
		if err != nil {
			t.Fatalf("%s/matmul.wasm: %v", dir, err)
		}
		// Every function the worker imports from the kernel module (the element-wise loops too) is in the kernel
		// beside it, and no longer than the trampolines pass: a missing one would leave the worker unable to start.
		var fromKernel []string
		for _, imp := range worker.imports {
			name, ok := strings.CutPrefix(imp, "deltaclue_kernel.")
			if !ok {
				continue
			}
			fromKernel = append(fromKernel, name)
			if !slices.Contains(kern.exports, name) {
				t.Errorf("%s/worker.wasm imports %s, which the matmul.wasm beside it does not export (it exports %v)", dir, imp, kern.exports)
			}
			if n := worker.params[imp]; n > arity || n == 0 {
				t.Errorf("%s/worker.wasm imports %s with %d parameters; web/worker.js's trampolines pass %d", dir, imp, n, arity)
			}
		}
		t.Logf("%s: worker.wasm imports %v from matmul.wasm (%d bytes), which exports %v", dir, fromKernel, len(k), kern.exports)
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

// wasmModule is what the tests read of a WebAssembly module: its imports ("module.name", with their functions'
// parameter counts) and exports.
type wasmModule struct {
	imports []string
	params  map[string]int // an imported function's parameters, by "module.name"
	exports []string
}

// readWasm reads a module's type, import and export sections.
func readWasm(b []byte) (*wasmModule, error) {
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
	skip := func(n uint64) {
		if uint64(len(p)) < n {
			p = nil
			return
		}
		p = p[n:]
	}
	m := &wasmModule{params: map[string]int{}}
	var types []int // each function type's parameter count
	for len(p) > 0 {
		id := p[0]
		p = p[1:]
		size := uleb()
		if p == nil || uint64(len(p)) < size {
			return nil, bad
		}
		rest := p[size:]
		p = p[:size]
		switch id {
		case 1: // types: 0x60, parameters, results
			for n := uleb(); n > 0 && p != nil; n-- {
				skip(1)
				np := uleb()
				skip(np)
				skip(uleb())
				types = append(types, int(np))
			}
		case 2: // imports
			for n := uleb(); n > 0 && p != nil; n-- {
				mod, field := name(), name()
				if len(p) < 1 {
					return nil, bad
				}
				kind := p[0]
				p = p[1:]
				switch kind {
				case 0: // function: type index
					if t := uleb(); t < uint64(len(types)) {
						m.params[mod+"."+field] = types[t]
					}
				case 1: // table: element type, limits
					skip(1)
					if flags := p; len(flags) > 0 {
						skip(1)
						uleb()
						if flags[0]&1 != 0 {
							uleb()
						}
					}
				case 2: // memory: limits
					if flags := p; len(flags) > 0 {
						skip(1)
						uleb()
						if flags[0]&1 != 0 {
							uleb()
						}
					}
				case 3: // global: value type, mutability
					skip(2)
				default:
					return nil, bad
				}
				m.imports = append(m.imports, mod+"."+field)
			}
		case 7: // exports: name, kind, index
			for n := uleb(); n > 0 && p != nil; n-- {
				m.exports = append(m.exports, name())
				skip(1)
				uleb()
			}
		}
		if p == nil {
			return nil, bad
		}
		p = rest
	}
	return m, nil
}
