package weights

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"github.com/deltaclue/deltaclue/internal/digest"
	"slices"
)

// A models bundle carries the weights files the search needs in one download, so that a page fetches them once
// and hands the same bytes to every worker:
//
//	offset  size  field
//	0       8     magic "DCBUNDLE"
//	8       4     number of files N (uint32, little-endian), at most MaxBundleFiles
//	then N times: name length (uint16), name (UTF-8), file length L (uint32), L bytes: a weights file
//
// Its integrity is the page's to check (the build records the bundle's SHA-256); each file inside still
// carries its own payload hash, which Decode checks (OpenHashedBundle relies on the bundle's hash instead).
const (
	BundleMagic    = "DCBUNDLE"
	MaxBundleFiles = 16
)

// BundleFile is one named weights file of a bundle.
type BundleFile struct {
	Name string
	Data []byte
}

// EncodeBundle writes files as a bundle, in the order given.
func EncodeBundle(files []BundleFile) []byte {
	var b bytes.Buffer
	b.WriteString(BundleMagic)
	binary.Write(&b, binary.LittleEndian, uint32(len(files)))
	for _, f := range files {
		binary.Write(&b, binary.LittleEndian, uint16(len(f.Name)))
		b.WriteString(f.Name)
		binary.Write(&b, binary.LittleEndian, uint32(len(f.Data)))
		b.Write(f.Data)
	}
	return b.Bytes()
}

// DecodeBundle splits a bundle into its files (sharing data's memory), with an error that says what is wrong.
func DecodeBundle(data []byte) ([]BundleFile, error) {
	if len(data) < len(BundleMagic)+4 || string(data[:len(BundleMagic)]) != BundleMagic {
		return nil, fmt.Errorf("the models bundle is not one (no %q header)", BundleMagic)
	}
	rest := data[len(BundleMagic):]
	n := binary.LittleEndian.Uint32(rest)
	rest = rest[4:]
	if n > MaxBundleFiles {
		return nil, fmt.Errorf("the models bundle claims %d files, at most %d are allowed", n, MaxBundleFiles)
	}
	files := make([]BundleFile, 0, n)
	for i := uint32(0); i < n; i++ {
		if len(rest) < 2 {
			return nil, fmt.Errorf("the models bundle is cut short in file %d's name", i)
		}
		nl := int(binary.LittleEndian.Uint16(rest))
		rest = rest[2:]
		if len(rest) < nl+4 {
			return nil, fmt.Errorf("the models bundle is cut short in file %d's name", i)
		}
		name := string(rest[:nl])
		rest = rest[nl:]
		fl := binary.LittleEndian.Uint32(rest)
		rest = rest[4:]
		if uint64(len(rest)) < uint64(fl) {
			return nil, fmt.Errorf("the models bundle is cut short in %s (%d of %d bytes)", name, len(rest), fl)
		}
		files = append(files, BundleFile{Name: name, Data: rest[:fl:fl]})
		rest = rest[fl:]
	}
	if len(rest) != 0 {
		return nil, fmt.Errorf("the models bundle has %d bytes after its last file", len(rest))
	}
	return files, nil
}

// The names of the shipped models in a bundle.
const (
	BundleVAE     = "vae.dcw"
	BundleBNN     = "bnn.dcw"
	BundleAnchors = "anchors.dcw"
	BundleGlobal  = "global.dcw" // GLAM-CLUE's translations: optional, a bundle without them still opens
)

// Bundle is the models of an opened bundle; Global is nil when the bundle has no translations.
type Bundle struct {
	VAE, BNN, Anchors, Global *File
	// Description says what the models explain, checked against the files: the bundle's own (DescriptionFile),
	// or, for a bundle made before descriptions, the digits' (DigitsDescription).
	Description *Description
	// Files are every weights file of the bundle by name.
	Files map[string]*File
}

// OpenBundleFiles decodes and checks every model of a bundle, as OpenBundle (hashed false) or OpenHashedBundle
// (hashed true) does, including the optional translations, and the description against them.
func OpenBundleFiles(data []byte, hashed bool) (*Bundle, error) {
	found, desc, err := openBundleDescribed(data, hashed)
	if err != nil {
		return nil, err
	}
	return &Bundle{VAE: found[BundleVAE], BNN: found[BundleBNN], Anchors: found[BundleAnchors], Global: found[BundleGlobal],
		Description: desc, Files: found}, nil
}

// OpenBundle decodes and checks the VAE, BNN and anchors of a bundle.
func OpenBundle(data []byte) (vae, bnn, anchors *File, err error) {
	return three(openBundle(data, false))
}

// OpenHashedBundle is OpenBundle for a bundle whose SHA-256 the caller has matched against the one a build
// recorded for it: every check is made but the files' payload hashes, which the bundle's hash covers. A search
// worker starts this way when the page hashed the bundle natively (SubtleCrypto): in WebAssembly, before the
// browser has optimised it, SHA-256 was most of a worker's start (about 120 of 190 ms under Node).
func OpenHashedBundle(data []byte) (vae, bnn, anchors *File, err error) {
	return three(openBundle(data, true))
}

func three(found map[string]*File, err error) (vae, bnn, anchors *File, _ error) {
	if err != nil {
		return nil, nil, nil, err
	}
	return found[BundleVAE], found[BundleBNN], found[BundleAnchors], nil
}

// openBundle decodes every file of a bundle by name, and checks that the three the search needs are there.
func openBundle(data []byte, hashed bool) (map[string]*File, error) {
	found, _, err := openBundleDescribed(data, hashed)
	return found, err
}

// openBundleDescribed is openBundle with the bundle's description, checked against its files.
func openBundleDescribed(data []byte, hashed bool) (map[string]*File, *Description, error) {
	files, err := DecodeBundle(data)
	if err != nil {
		return nil, nil, err
	}
	found := map[string]*File{}
	var desc *Description
	for _, f := range files {
		if _, dup := found[f.Name]; dup || (f.Name == DescriptionFile && desc != nil) {
			return nil, nil, fmt.Errorf("the models bundle holds %s twice", f.Name)
		}
		if f.Name == DescriptionFile {
			if desc, err = ParseDescription(f.Data); err != nil {
				return nil, nil, fmt.Errorf("the models bundle's %s: %w", DescriptionFile, err)
			}
			continue
		}
		if found[f.Name], err = decode("models bundle: "+f.Name, f.Data, hashed); err != nil {
			return nil, nil, err
		}
	}
	own := desc != nil
	if !own {
		desc = DigitsDescription() // every bundle made before descriptions was the digits'
	}
	if err := desc.Check(found); err != nil {
		if !own {
			return nil, nil, fmt.Errorf("the models bundle has no %s, and is not the digits' models: %w", DescriptionFile, err)
		}
		return nil, nil, fmt.Errorf("the models bundle's %s: %w", DescriptionFile, err)
	}
	// A bundle made before descriptions has always had the anchors of scheme S2; one with its own description
	// may leave them out (S2 is then unavailable).
	required := []string{BundleVAE, BundleBNN, BundleAnchors}
	if own {
		required = nil
	}
	for _, name := range required {
		if found[name] == nil {
			return nil, nil, fmt.Errorf("the models bundle has no %s", name)
		}
	}
	return found, desc, nil
}

// Fingerprint identifies the bundle's models, as share links carry it: a bundle described as the digits are
// (weights/digits.json: the shipped bundle, and every bundle made before descriptions) keeps the fingerprint its
// links have always carried, Fingerprint(VAE, BNN, anchors); any other mixes in its description and every file
// it holds, so that the same weights described otherwise (other class names, another network) are other models.
func (b *Bundle) Fingerprint() uint32 {
	if b.VAE != nil && b.BNN != nil && b.Anchors != nil {
		implied, _ := json.Marshal(DigitsDescription())
		own, _ := json.Marshal(b.Description)
		if string(implied) == string(own) {
			return Fingerprint(b.VAE, b.BNN, b.Anchors)
		}
	}
	own, _ := json.Marshal(b.Description)
	names := make([]string, 0, len(b.Files))
	for name := range b.Files {
		names = append(names, name)
	}
	slices.Sort(names)
	files := make([]*File, 0, len(names)+1)
	files = append(files, &File{Manifest: Manifest{PayloadSHA: fmt.Sprintf("%x", digest.Sum256(own))}})
	for _, name := range names {
		files = append(files, b.Files[name])
	}
	return Fingerprint(files...)
}
