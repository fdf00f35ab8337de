// Package watsplit cuts the dense kernel's text out of matmul.wat: the module up to its image layers' marker,
// closed. It serves mkwasm.go, which writes matmul_dense.wasm, and the test that checks that file.
package watsplit

import (
	"bytes"
	"errors"
)

// Marker begins the line from which matmul.wat holds what only convolutional models call.
const Marker = ";; ==== image layers ===="

// Dense is the module text full without its image layers: everything before the line holding Marker, then the
// module's closing parenthesis.
func Dense(full []byte) ([]byte, error) {
	i := bytes.Index(full, []byte(Marker))
	if i < 0 {
		return nil, errors.New("matmul.wat has no line " + Marker)
	}
	i = bytes.LastIndexByte(full[:i], '\n') + 1
	return append(bytes.TrimRight(full[:i:i], " \n"), "\n)\n"...), nil
}
