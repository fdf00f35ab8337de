//go:build ignore

// mkasm writes matmul_amd64.s and matmul_amd64_decl.go from internal/asmgen (run by go generate, see gen.go).
// The flags override the shipped blockings, for measuring others (TestAsmUpToDate then fails, as it should).
package main

import (
	"flag"
	"fmt"
	"log"
	"os"

	"github.com/deltaclue/deltaclue/engine/kernel/internal/asmgen"
)

func main() {
	avx2, avx512 := asmgen.AVX2, asmgen.AVX512
	flag.Func("avx2", "AVX2 blocking rows×vecs×unroll, e.g. 6x2x2", parse(&avx2))
	flag.Func("avx512", "AVX-512 blocking rows×vecs×unroll, e.g. 8x3x2", parse(&avx512))
	flag.Parse()
	if err := os.WriteFile("matmul_amd64.s", asmgen.Asm(avx2, avx512), 0o644); err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile("matmul_amd64_decl.go", asmgen.Decl(avx2, avx512), 0o644); err != nil {
		log.Fatal(err)
	}
}

func parse(s *asmgen.ISA) func(string) error {
	return func(v string) error {
		_, err := fmt.Sscanf(v, "%dx%dx%d", &s.Rows, &s.Vecs, &s.Unroll)
		return err
	}
}
