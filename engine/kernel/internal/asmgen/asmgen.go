// Package asmgen writes the amd64 SIMD kernels of package kernel: matmul_amd64.s (the micro-kernels) and
// matmul_amd64_decl.go (their Go declarations and a dispatch by block shape). `go generate ./engine/kernel/` runs it
// (through mkasm.go); kernel's TestAsmUpToDate fails if the committed files differ from what it writes.
//
// Every micro-kernel computes, for a block of R rows and V vectors of W columns (W = 8 for AVX2's YMM, 16 for
// AVX-512's ZMM),
//
//	c[r][j] += float32(a[r][p] * b[p][j])   for p = 0, 1, …, kc-1 in that order,
//
// with the c tile loaded into R·V accumulator registers before the p loop and stored after it. Each p step loads
// the V vectors b[p][j:j+V·W] (VMOVUPS), broadcasts a[r][p] (VBROADCASTSS), multiplies (VMULPS, which rounds the
// product to float32) and adds (VADDPS) — two instructions, never a fused multiply-add — so every lane performs
// exactly the scalar sequence of the package's determinism contract. The kernels never reorder or split p.
package asmgen

import (
	"bytes"
	"fmt"
	"go/format"
	"strings"
)

// ISA describes one instruction set's kernel family.
type ISA struct {
	Name   string // "avx2" or "avx512"
	Width  int    // float32 lanes per vector register: 8 (YMM) or 16 (ZMM)
	Regs   int    // vector registers: 16 or 32
	Rows   int    // rows of the main kernel; kernels for 1..Rows-1 rows handle row tails
	Vecs   int    // vectors per row (columns per kernel = Vecs·Width)
	Unroll int    // p steps per loop iteration: 1 or 2
	Table  bool   // also the table kernels: row p of b at b + offs[p] (MatMulAddRows), not b + p·ldb
	Init   bool   // also the init kernels: the tile starts from init[r] in every column (MatMulInitT), not from c
}

// AVX2 and AVX512 are the shipped configurations (measured on a Zen 5 EPYC; see engine/README.md).
var (
	AVX2   = ISA{Name: "avx2", Width: 8, Regs: 16, Rows: 6, Vecs: 2, Unroll: 2}
	AVX512 = ISA{Name: "avx512", Width: 16, Regs: 32, Rows: 8, Vecs: 3, Unroll: 2, Table: true, Init: true}
)

// KernelName is the Go name of the kernel for rows rows and vecs vectors (masked: the column-tail variant).
func (s ISA) KernelName(rows, vecs int, masked bool) string {
	return s.kernelName("K", rows, vecs, masked)
}

// TableName is KernelName's for the table kernel (b's rows through a table of offsets).
func (s ISA) TableName(rows, vecs int, masked bool) string {
	return s.kernelName("T", rows, vecs, masked)
}

// InitName is KernelName's for the init kernel (the tile starting from a value a row).
func (s ISA) InitName(rows, vecs int, masked bool) string {
	return s.kernelName("I", rows, vecs, masked)
}

// Kernel variants: plain, b's rows through a table, the tile from init values.
const (
	plain = iota
	table
	initial
)

func (s ISA) kernelName(kind string, rows, vecs int, masked bool) string {
	n := fmt.Sprintf("%s%s%dx%d", s.Name, kind, rows, vecs)
	if masked {
		n += "M"
	}
	return n
}

func (s ISA) reg(i int) string {
	if s.Width == 8 {
		return fmt.Sprintf("Y%d", i)
	}
	return fmt.Sprintf("Z%d", i)
}

// Vector registers: accumulator (r, v) is register r·Vecs+v, counting up from 0; the b vectors, the broadcast
// a value and the product are the last Vecs+2 registers.
func (s ISA) acc(r, v int) string { return s.reg(r*s.Vecs + v) }
func (s ISA) breg(v int) string   { return s.reg(s.Regs - 2 - s.Vecs + v) }
func (s ISA) bcast() string       { return s.reg(s.Regs - 2) }
func (s ISA) tmp() string         { return s.reg(s.Regs - 1) }

// with returns s for a kernel of vecs vectors (a column tail of fewer vectors than the main kernel).
func (s ISA) with(vecs int) ISA {
	s.Vecs = vecs
	return s
}

// groupReg is the pointer register of a's rows 3g, 3g+1, 3g+2 (addressed as (R), (R)(SI*1), (R)(SI*2)).
var groupReg = []string{"DI", "R8", "R9", "R10"}

// rowAddr addresses row r of a 3-row group structure based at group registers base[g], stride register stride.
func rowAddr(disp int, base []string, stride string, r int) string {
	d := ""
	if disp != 0 {
		d = fmt.Sprint(disp)
	}
	switch r % 3 {
	case 0:
		return fmt.Sprintf("%s(%s)", d, base[r/3])
	case 1:
		return fmt.Sprintf("%s(%s)(%s*1)", d, base[r/3], stride)
	default:
		return fmt.Sprintf("%s(%s)(%s*2)", d, base[r/3], stride)
	}
}

type writer struct{ bytes.Buffer }

func (w *writer) op(format string, args ...any) { fmt.Fprintf(&w.Buffer, "\t"+format+"\n", args...) }
func (w *writer) label(l string)                { fmt.Fprintf(&w.Buffer, "%s:\n", l) }
func (w *writer) comment(c string)              { fmt.Fprintf(&w.Buffer, "\t// %s\n", c) }

// kernel writes one micro-kernel. Arguments (ABI0, 8 bytes each): a, b, c pointers to the block's top-left
// elements; kc >= 1 the p steps; lda, ldb, ldc the row strides in elements; blocks >= 1 the number of R-row blocks
// (consecutive, R·lda and R·ldc apart) sharing the same b; masked kernels add mask (AVX2: *[Vecs·8]int32 lane
// masks, all-ones = column present; AVX-512: uint64 whose low Vecs·16 bits select columns). A table kernel
// takes offs *int32 in ldb's place: row p of b starts offs[p] values past b (R11 walks the table, R13 holds the
// offset of the step), every other step as the plain kernel's. An init kernel takes init *float32 after blocks
// (the mask after it): its accumulators start from init[r] in every column (VBROADCASTSS) instead of c's values,
// and init moves on R values a block, in its argument slot.
func (s ISA) kernel(w *writer, rows int, masked bool, variant int) {
	name := s.KernelName(rows, s.Vecs, masked)
	switch variant {
	case table:
		name = s.TableName(rows, s.Vecs, masked)
	case initial:
		name = s.InitName(rows, s.Vecs, masked)
	}
	R, V, W := rows, s.Vecs, s.Width
	groups := (R + 2) / 3
	frame, maskOff := 64, 64
	if variant == initial {
		frame, maskOff = 72, 72
	}
	if masked {
		frame += 8
	}
	vbytes := 4 * W
	zmm := W == 16

	switch variant {
	case table:
		fmt.Fprintf(&w.Buffer, "// func %s(a, b, c *float32, kc, lda int, offs *int32, ldc, blocks int", name)
	case initial:
		fmt.Fprintf(&w.Buffer, "// func %s(a, b, c *float32, kc, lda, ldb, ldc, blocks int, init *float32", name)
	default:
		fmt.Fprintf(&w.Buffer, "// func %s(a, b, c *float32, kc, lda, ldb, ldc, blocks int", name)
	}
	if masked {
		if zmm {
			fmt.Fprintf(&w.Buffer, ", mask uint64")
		} else {
			fmt.Fprintf(&w.Buffer, ", mask *[%d]int32", V*W)
		}
	}
	fmt.Fprintf(&w.Buffer, ")\nTEXT ·%s(SB), NOSPLIT, $0-%d\n", name, frame)
	w.op("MOVQ a+0(FP), DI")
	w.op("MOVQ c+16(FP), CX")
	w.op("MOVQ lda+32(FP), SI")
	w.op("SHLQ $2, SI")
	if variant != table {
		w.op("MOVQ ldb+40(FP), R11")
		w.op("SHLQ $2, R11")
	}
	w.op("MOVQ ldc+48(FP), DX")
	w.op("SHLQ $2, DX")
	w.op("MOVQ blocks+56(FP), R12")
	if masked && zmm {
		w.comment("k1.. = the column masks of the V vectors")
		w.op("MOVQ mask+%d(FP), R13", maskOff)
		for v := 0; v < V; v++ {
			w.op("KMOVW R13, K%d", v+1)
			if v < V-1 {
				w.op("SHRQ $16, R13")
			}
		}
	}
	w.label(name + "_block")
	for g := 1; g < groups; g++ {
		w.op("LEAQ (%s)(SI*2), %s", groupReg[g-1], groupReg[g])
		w.op("ADDQ SI, %s", groupReg[g])
	}
	// c tile: AX walks c's row groups (3 rows each: (AX), (AX)(DX*1), (AX)(DX*2)).
	cAddr := func(r, v int) string {
		return rowAddr(v*vbytes, []string{"AX", "AX", "AX", "AX"}, "DX", r)
	}
	nextCGroup := func() {
		w.op("LEAQ (AX)(DX*2), AX")
		w.op("ADDQ DX, AX")
	}
	if variant == initial {
		w.comment("the accumulators from init: row r's value in every column")
		w.op("MOVQ init+64(FP), R13")
		for r := 0; r < R; r++ {
			w.op("VBROADCASTSS %d(R13), %s", 4*r, s.acc(r, 0))
			for v := 1; v < V; v++ {
				w.op("VMOVAPS %s, %s", s.acc(r, 0), s.acc(r, v))
			}
		}
	} else {
		w.comment("load the c tile into the accumulators")
	}
	if masked && !zmm {
		w.op("MOVQ mask+64(FP), R13")
		for v := 0; v < V; v++ {
			w.op("VMOVUPS %d(R13), %s", v*vbytes, s.breg(v))
		}
	}
	w.op("MOVQ CX, AX")
	for r := 0; r < R && variant != initial; r++ {
		if r > 0 && r%3 == 0 {
			nextCGroup()
		}
		for v := 0; v < V; v++ {
			switch {
			case masked && zmm:
				w.op("VMOVUPS.Z %s, K%d, %s", cAddr(r, v), v+1, s.acc(r, v))
			case masked:
				w.op("VMASKMOVPS %s, %s, %s", cAddr(r, v), s.breg(v), s.acc(r, v))
			default:
				w.op("VMOVUPS %s, %s", cAddr(r, v), s.acc(r, v))
			}
		}
	}
	w.op("MOVQ b+8(FP), BX")
	if variant == table {
		w.op("MOVQ offs+40(FP), R11")
	}

	body := func(u int) {
		bAddr := func(v int) string {
			d := ""
			if v > 0 {
				d = fmt.Sprint(v * vbytes)
			}
			switch {
			case variant == table:
				return d + "(BX)(R13*4)"
			case u == 0:
				return d + "(BX)"
			}
			return d + "(BX)(R11*1)"
		}
		if variant == table {
			w.op("MOVLQSX %d(R11), R13", 4*u)
		}
		for v := 0; v < V; v++ {
			if masked && zmm {
				w.op("VMOVUPS.Z %s, K%d, %s", bAddr(v), v+1, s.breg(v))
			} else {
				// AVX2 masked kernels read b from a zero-padded packed panel: plain loads.
				w.op("VMOVUPS %s, %s", bAddr(v), s.breg(v))
			}
		}
		for r := 0; r < R; r++ {
			w.op("VBROADCASTSS %s, %s", rowAddr(4*u, groupReg, "SI", r), s.bcast())
			for v := 0; v < V; v++ {
				w.op("VMULPS %s, %s, %s", s.breg(v), s.bcast(), s.tmp())
				w.op("VADDPS %s, %s, %s", s.tmp(), s.acc(r, v), s.acc(r, v))
			}
		}
	}
	advance := func(steps int) {
		for g := 0; g < groups; g++ {
			w.op("ADDQ $%d, %s", 4*steps, groupReg[g])
		}
		switch {
		case variant == table:
			w.op("ADDQ $%d, R11", 4*steps)
		case steps == 1:
			w.op("ADDQ R11, BX")
		default:
			w.op("LEAQ (BX)(R11*2), BX")
		}
	}
	w.op("MOVQ kc+24(FP), AX")
	if s.Unroll == 2 {
		w.op("SHRQ $1, AX")
		w.op("JZ %s_odd", name)
		w.label(name + "_loop")
		body(0)
		body(1)
		advance(2)
		w.op("DECQ AX")
		w.op("JNZ %s_loop", name)
		w.label(name + "_odd")
		w.op("MOVQ kc+24(FP), AX")
		w.op("ANDQ $1, AX")
		w.op("JZ %s_store", name)
		body(0)
		advance(1)
	} else {
		w.label(name + "_loop")
		body(0)
		advance(1)
		w.op("DECQ AX")
		w.op("JNZ %s_loop", name)
	}
	w.label(name + "_store")
	w.comment("store the tile")
	if masked && !zmm {
		w.op("MOVQ mask+64(FP), R13")
		for v := 0; v < V; v++ {
			w.op("VMOVUPS %d(R13), %s", v*vbytes, s.breg(v))
		}
	}
	w.op("MOVQ CX, AX")
	for r := 0; r < R; r++ {
		if r > 0 && r%3 == 0 {
			nextCGroup()
		}
		for v := 0; v < V; v++ {
			switch {
			case masked && zmm:
				w.op("VMOVUPS %s, K%d, %s", s.acc(r, v), v+1, cAddr(r, v))
			case masked:
				w.op("VMASKMOVPS %s, %s, %s", s.acc(r, v), s.breg(v), cAddr(r, v))
			default:
				w.op("VMOVUPS %s, %s", s.acc(r, v), cAddr(r, v))
			}
		}
	}
	w.comment("next block: a += R·lda (undoing the p loop's kc·4), c += R·ldc")
	w.op("MOVQ kc+24(FP), R13")
	w.op("SHLQ $2, R13")
	w.op("SUBQ R13, DI")
	w.op("IMUL3Q $%d, SI, R13", R)
	w.op("ADDQ R13, DI")
	w.op("IMUL3Q $%d, DX, R13", R)
	w.op("ADDQ R13, CX")
	if variant == initial {
		w.op("ADDQ $%d, init+64(FP)", 4*R)
	}
	w.op("DECQ R12")
	w.op("JNZ %s_block", name)
	w.op("VZEROUPPER")
	w.op("RET")
	w.WriteString("\n")
}

const header = `// Code generated by mkasm.go (package engine/kernel/internal/asmgen); DO NOT EDIT.
`

// Asm returns matmul_amd64.s.
func Asm(isas ...ISA) []byte {
	var w writer
	w.WriteString(header)
	w.WriteString("\n//go:build amd64 && !purego\n\n#include \"textflag.h\"\n\n")
	w.WriteString(doc)
	for _, s := range isas {
		if s.Rows*s.Vecs+s.Vecs+2 > s.Regs || s.Rows > 3*len(groupReg) {
			panic("asmgen: " + s.Name + " block does not fit the registers")
		}
		for vecs := s.Vecs; vecs >= 1; vecs-- {
			for rows := s.Rows; rows >= 1; rows-- {
				s.with(vecs).kernel(&w, rows, false, plain)
				s.with(vecs).kernel(&w, rows, true, plain)
				if s.Table {
					s.with(vecs).kernel(&w, rows, false, table)
					s.with(vecs).kernel(&w, rows, true, table)
				}
				if s.Init {
					s.with(vecs).kernel(&w, rows, false, initial)
					s.with(vecs).kernel(&w, rows, true, initial)
				}
			}
		}
	}
	return w.Bytes()
}

const doc = `// Micro-kernels of package kernel (see internal/asmgen for the generator and the exact contract). Registers:
// DI, R8, R9, R10 point at a's row groups (rows 3g..3g+2 at (R), (R)(SI*1), (R)(SI*2)), SI = lda·4, BX walks the
// b panel (R11 = ldb·4 per p step), CX is the c block, DX = ldc·4, AX counts p steps (and addresses c's row
// groups around the loop), R12 counts row blocks, R13 is scratch. Vector registers: the accumulators from 0, the
// b vectors, then the broadcast a value and the product.

`

// Decl returns matmul_amd64_decl.go.
func Decl(isas ...ISA) []byte {
	var b strings.Builder
	b.WriteString(header)
	b.WriteString("\n//go:build amd64 && !purego\n\npackage kernel\n")
	for _, s := range isas {
		fmt.Fprintf(&b, "\n// %s: blocks of %d rows × %d columns (%d vectors of %d); narrower kernels (fewer vectors) for column tails.\nconst (\n\t%sRows = %d\n\t%sVecs = %d\n\t%sWidth = %d\n\t%sCols = %d\n)\n",
			s.Name, s.Rows, s.Vecs*s.Width, s.Vecs, s.Width, s.Name, s.Rows, s.Name, s.Vecs, s.Name, s.Width, s.Name, s.Vecs*s.Width)
		for vecs := s.Vecs; vecs >= 1; vecs-- {
			maskType := fmt.Sprintf("*[%d]int32", vecs*s.Width)
			if s.Width == 16 {
				maskType = "uint64"
			}
			for rows := s.Rows; rows >= 1; rows-- {
				fmt.Fprintf(&b, "\n//go:noescape\nfunc %s(a, b, c *float32, kc, lda, ldb, ldc, blocks int)\n", s.KernelName(rows, vecs, false))
				fmt.Fprintf(&b, "\n//go:noescape\nfunc %s(a, b, c *float32, kc, lda, ldb, ldc, blocks int, mask %s)\n", s.KernelName(rows, vecs, true), maskType)
				if s.Table {
					fmt.Fprintf(&b, "\n//go:noescape\nfunc %s(a, b, c *float32, kc, lda int, offs *int32, ldc, blocks int)\n", s.TableName(rows, vecs, false))
					fmt.Fprintf(&b, "\n//go:noescape\nfunc %s(a, b, c *float32, kc, lda int, offs *int32, ldc, blocks int, mask %s)\n", s.TableName(rows, vecs, true), maskType)
				}
				if s.Init {
					fmt.Fprintf(&b, "\n//go:noescape\nfunc %s(a, b, c *float32, kc, lda, ldb, ldc, blocks int, init *float32)\n", s.InitName(rows, vecs, false))
					fmt.Fprintf(&b, "\n//go:noescape\nfunc %s(a, b, c *float32, kc, lda, ldb, ldc, blocks int, init *float32, mask %s)\n", s.InitName(rows, vecs, true), maskType)
				}
			}
		}
		maskType := fmt.Sprintf("*[%d]int32", s.Vecs*s.Width)
		if s.Width == 16 {
			maskType = "uint64"
		}
		fmt.Fprintf(&b, "\n// %sKernel runs the %s kernel of rows (1..%d) rows and vecs (1..%d) vectors on blocks blocks of rows rows.\n", s.Name, s.Name, s.Rows, s.Vecs)
		fmt.Fprintf(&b, "func %sKernel(rows, vecs int, a, b, c *float32, kc, lda, ldb, ldc, blocks int) {\n\tswitch rows<<8 | vecs {\n", s.Name)
		for vecs := s.Vecs; vecs >= 1; vecs-- {
			for rows := s.Rows; rows >= 1; rows-- {
				fmt.Fprintf(&b, "\tcase %d<<8 | %d:\n\t\t%s(a, b, c, kc, lda, ldb, ldc, blocks)\n", rows, vecs, s.KernelName(rows, vecs, false))
			}
		}
		b.WriteString("\tdefault:\n\t\tpanic(\"kernel: bad block shape\")\n\t}\n}\n")
		fmt.Fprintf(&b, "\n// %sKernelMasked is %sKernel for a column tail: only the columns selected by mask are read from c and written", s.Name, s.Name)
		if s.Width == 8 {
			b.WriteString(" (mask: the first vecs·8 lanes; b must be a zero-padded panel of vecs·8 columns).\n")
		} else {
			b.WriteString(" (mask: 16 bits per vector, lowest first; masked-off columns of b are not read either).\n")
		}
		fmt.Fprintf(&b, "func %sKernelMasked(rows, vecs int, a, b, c *float32, kc, lda, ldb, ldc, blocks int, mask %s) {\n\tswitch rows<<8 | vecs {\n", s.Name, maskType)
		for vecs := s.Vecs; vecs >= 1; vecs-- {
			arg := "mask"
			if s.Width == 8 && vecs < s.Vecs {
				arg = fmt.Sprintf("(*[%d]int32)(mask[:%d])", vecs*s.Width, vecs*s.Width)
			}
			for rows := s.Rows; rows >= 1; rows-- {
				fmt.Fprintf(&b, "\tcase %d<<8 | %d:\n\t\t%s(a, b, c, kc, lda, ldb, ldc, blocks, %s)\n", rows, vecs, s.KernelName(rows, vecs, true), arg)
			}
		}
		b.WriteString("\tdefault:\n\t\tpanic(\"kernel: bad block shape\")\n\t}\n}\n")
		if s.Table {
			s.variantDispatch(&b, maskType, "Table", "for b's rows through a table of offsets: row p of b at b + offs[p]",
				"kc, lda int, offs *int32, ldc, blocks int", "kc, lda, offs, ldc, blocks", s.TableName)
		}
		if s.Init {
			s.variantDispatch(&b, maskType, "Init", "with the tile starting from init[r] in every column of row r, not from c",
				"kc, lda, ldb, ldc, blocks int, init *float32", "kc, lda, ldb, ldc, blocks, init", s.InitName)
		}
	}
	out, err := format.Source([]byte(b.String()))
	if err != nil {
		panic("asmgen: " + err.Error())
	}
	return out
}

// variantDispatch writes a kernel variant's two dispatches by block shape, plain and masked: s.Name+variant and
// s.Name+variant+"Masked", taking rows, vecs, a, b, c and then params (passed on as args), each switching to the
// kernel kernelName names.
func (s ISA) variantDispatch(b *strings.Builder, maskType, variant, doc, params, args string, kernelName func(rows, vecs int, masked bool) string) {
	for _, masked := range []bool{false, true} {
		name, mask, arg, of := s.Name+variant, "", "", s.Name+"Kernel"
		if masked {
			name, mask, arg, of = name+"Masked", ", mask "+maskType, ", mask", of+"Masked"
		}
		fmt.Fprintf(b, "\n// %s is %s %s.\n", name, of, doc)
		fmt.Fprintf(b, "func %s(rows, vecs int, a, b, c *float32, %s%s) {\n\tswitch rows<<8 | vecs {\n", name, params, mask)
		for vecs := s.Vecs; vecs >= 1; vecs-- {
			for rows := s.Rows; rows >= 1; rows-- {
				fmt.Fprintf(b, "\tcase %d<<8 | %d:\n\t\t%s(a, b, c, %s%s)\n", rows, vecs, kernelName(rows, vecs, masked), args, arg)
			}
		}
		b.WriteString("\tdefault:\n\t\tpanic(\"kernel: bad block shape\")\n\t}\n}\n")
	}
}
