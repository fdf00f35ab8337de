//go:build amd64 && !purego

#include "textflag.h"

// The element-wise loops of package kernel in AVX-512 and AVX2 (see loops_amd64.go): gathers and scatter-adds
// through a map of positions (−1 for the padding), the rectifier's forward pass and its backward masks. Every
// lane does the scalar loop's operation on the same operands (a copy of bits, one float32 addition x + d with x
// in the order the Go loop's compiled code adds them, an integer mask), so the results are the Go loops' bits. No fused multiply-add, no reordering of sums:
// the scatter-adds run a block of positions in order, and a block whose positions repeat one runs lane by lane.
// Each routine runs whole blocks of 16 (AVX-512) or 8 (AVX2) values; the caller's Go loop does the rest. The runs'
// (gatherRuns512, sumRuns512) and the depthwise rows (depthwise512), AVX-512 only, run whatever they are given.

// 0, 1, …, 15: a run of consecutive positions is its first plus these.
DATA iota16<>+0(SB)/4, $0
DATA iota16<>+4(SB)/4, $1
DATA iota16<>+8(SB)/4, $2
DATA iota16<>+12(SB)/4, $3
DATA iota16<>+16(SB)/4, $4
DATA iota16<>+20(SB)/4, $5
DATA iota16<>+24(SB)/4, $6
DATA iota16<>+28(SB)/4, $7
DATA iota16<>+32(SB)/4, $8
DATA iota16<>+36(SB)/4, $9
DATA iota16<>+40(SB)/4, $10
DATA iota16<>+44(SB)/4, $11
DATA iota16<>+48(SB)/4, $12
DATA iota16<>+52(SB)/4, $13
DATA iota16<>+56(SB)/4, $14
DATA iota16<>+60(SB)/4, $15
GLOBL iota16<>(SB), RODATA|NOPTR, $64

// RELU_BITS_512 sets Z0, the bits u of 16 values, to u &^ (neg &^ nan) (ReluBits): neg all ones where the sign
// bit is set, nan all ones where 0x7f800000 − (u & 0x7fffffff) is negative. Z30 holds 0x7fffffff and Z29
// 0x7f800000 in every lane; Z1 and Z2 are scratch.
#define RELU_BITS_512 \
	VPSRAD $31, Z0, Z1; \
	VPANDD Z30, Z0, Z2; \
	VPSUBD Z2, Z29, Z2; \
	VPSRAD $31, Z2, Z2; \
	VPANDND Z1, Z2, Z1; \
	VPANDND Z0, Z1, Z0

// RELU_BITS_256 is RELU_BITS_512 in AVX2 for Y0, with 0x7fffffff in Y15 and 0x7f800000 in Y14.
#define RELU_BITS_256 \
	VPSRAD $31, Y0, Y1; \
	VPAND Y15, Y0, Y2; \
	VPSUBD Y2, Y14, Y2; \
	VPSRAD $31, Y2, Y2; \
	VPANDN Y1, Y2, Y1; \
	VPANDN Y0, Y1, Y0

// Both AVX-512 routines below split a block of 16 positions into groups that one masked load or store serves:
// the −1s (padding), then up to four times, from the first lane t left (position v), the lanes whose positions
// are v − t plus their lane (a run: a window's row inside the image, as a convolution of stride 1 reads it).
// Lanes left after four groups, or once a group holds fewer than 4 lanes (scattered positions, as a stride of 2
// gives: there the groups' chain of dependent instructions measured slower than the Go loop), go through
// VPGATHERDD (the gather) or one by one (the scatter-add).
//
// Registers: DI dst, SI src, DX idx, CX blocks; Z0 the block's positions, R8 its lanes left, R9 groups left,
// BX the first lane left, R10 a group's base, R11 its lanes, R13 scratch; Z31 −1, Z30 iota16, Z28 +0.

// func gatherIdx512(dst, src *float32, idx *int32, blocks int)
//
// dst[i] = src[idx[i]], or +0 where idx[i] is −1, for 16·blocks values: every value copied, bits and all.
TEXT ·gatherIdx512(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ idx+16(FP), DX
	MOVQ blocks+24(FP), CX
	VPTERNLOGD $0xff, Z31, Z31, Z31 // −1 in every lane
	VMOVDQU32 iota16<>(SB), Z30
	VPXORD Z28, Z28, Z28
g512_loop:
	VMOVDQU32 (DX), Z0
	VPCMPEQD Z31, Z0, K1 // the padding: +0
	VMOVDQU32 Z28, K1, (DI)
	KMOVW K1, R8
	NOTL R8
	ANDL $0xffff, R8
	JZ g512_next
	MOVQ $4, R9
g512_group:
	TZCNTL R8, BX
	MOVLQSX (DX)(BX*4), R10
	SUBQ BX, R10 // v − t
	VPBROADCASTD R10, Z1
	VPADDD Z30, Z1, Z1
	VPCMPEQD Z1, Z0, K1
	KMOVW K1, R11
	ANDL R8, R11
	POPCNTL R11, R13
	CMPL R13, $4
	JLT g512_rest // (scattered positions: VPGATHERDD)
	KMOVW R11, K1
	VMOVDQU32.Z (SI)(R10*4), K1, Z4
	VMOVDQU32 Z4, K1, (DI)
	XORL R11, R8
	JZ g512_next
	DECQ R9
	JNZ g512_group
g512_rest:
	KMOVW R8, K1
	KMOVW R8, K2
	VPGATHERDD (SI)(Z0*4), K1, Z4
	VMOVDQU32 Z4, K2, (DI)
g512_next:
	ADDQ $64, DI
	ADDQ $64, DX
	DECQ CX
	JNZ g512_loop
	VZEROUPPER
	RET

// func scatterIdx512(dst, src *float32, idx *int32, blocks int)
//
// dst[idx[i]] += src[i] for i = 0, 1, … in order where idx[i] is not −1, for 16·blocks values (needs AVX512CD):
// each sum dst + src, as the Go loop adds. A block that is one run is one masked load, add and store; a block
// whose positions are distinct (VPCONFLICTD) runs by groups, in any order, each position once; any other block
// runs lane by lane in order.
TEXT ·scatterIdx512(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ idx+16(FP), DX
	MOVQ blocks+24(FP), CX
	VPTERNLOGD $0xff, Z31, Z31, Z31
	VMOVDQU32 iota16<>(SB), Z30
s512_loop:
	VMOVDQU32 (DX), Z0
	VPCMPGTD Z31, Z0, K3 // positions > −1
	KMOVW K3, R8
	TESTL R8, R8
	JZ s512_next
	TZCNTL R8, BX
	MOVLQSX (DX)(BX*4), R10
	SUBQ BX, R10 // v − t
	VPBROADCASTD R10, Z1
	VPADDD Z30, Z1, Z1
	VPCMPEQD Z1, Z0, K1
	KMOVW K1, R11
	ANDL R8, R11
	CMPL R11, R8
	JNE s512_split
	VMOVUPS (SI), Z3 // one run holds every position
	KMOVW R11, K1 // (not K1 itself: a −1 before a run from 0 is one of its lanes)
	VMOVUPS.Z (DI)(R10*4), K1, Z4
	VADDPS Z3, Z4, Z4
	VMOVUPS Z4, K1, (DI)(R10*4)
	JMP s512_next
s512_split:
	POPCNTL R11, R13
	CMPL R13, $4
	JLT s512_all // (scattered positions: one by one)
	VPCONFLICTD.Z Z0, K3, Z4 // each lane's earlier lanes of the same position (the padding zeroed)
	VPTESTMD Z4, Z4, K2
	KORTESTW K2, K2
	JNZ s512_all
	VMOVUPS (SI), Z3
	MOVQ $4, R9
	JMP s512_run
s512_group:
	TZCNTL R8, BX
	MOVLQSX (DX)(BX*4), R10
	SUBQ BX, R10 // v − t
	VPBROADCASTD R10, Z1
	VPADDD Z30, Z1, Z1
	VPCMPEQD Z1, Z0, K1
	KMOVW K1, R11
	ANDL R8, R11
	POPCNTL R11, R13
	CMPL R13, $4
	JLT s512_lanes
s512_run:
	KMOVW R11, K1
	VMOVUPS.Z (DI)(R10*4), K1, Z4
	VADDPS Z3, Z4, Z4
	VMOVUPS Z4, K1, (DI)(R10*4)
	XORL R11, R8
	JZ s512_next
	DECQ R9
	JNZ s512_group
s512_all: // every lane in order, as the Go loop (its branches predicted as well as the Go loop's)
	MOVLQSX 0(DX), AX
	TESTQ AX, AX
	JS s512_skip0
	VMOVSS (DI)(AX*4), X5
	VADDSS 0(SI), X5, X5
	VMOVSS X5, (DI)(AX*4)
s512_skip0:
	MOVLQSX 4(DX), AX
	TESTQ AX, AX
	JS s512_skip1
	VMOVSS (DI)(AX*4), X5
	VADDSS 4(SI), X5, X5
	VMOVSS X5, (DI)(AX*4)
s512_skip1:
	MOVLQSX 8(DX), AX
	TESTQ AX, AX
	JS s512_skip2
	VMOVSS (DI)(AX*4), X5
	VADDSS 8(SI), X5, X5
	VMOVSS X5, (DI)(AX*4)
s512_skip2:
	MOVLQSX 12(DX), AX
	TESTQ AX, AX
	JS s512_skip3
	VMOVSS (DI)(AX*4), X5
	VADDSS 12(SI), X5, X5
	VMOVSS X5, (DI)(AX*4)
s512_skip3:
	MOVLQSX 16(DX), AX
	TESTQ AX, AX
	JS s512_skip4
	VMOVSS (DI)(AX*4), X5
	VADDSS 16(SI), X5, X5
	VMOVSS X5, (DI)(AX*4)
s512_skip4:
	MOVLQSX 20(DX), AX
	TESTQ AX, AX
	JS s512_skip5
	VMOVSS (DI)(AX*4), X5
	VADDSS 20(SI), X5, X5
	VMOVSS X5, (DI)(AX*4)
s512_skip5:
	MOVLQSX 24(DX), AX
	TESTQ AX, AX
	JS s512_skip6
	VMOVSS (DI)(AX*4), X5
	VADDSS 24(SI), X5, X5
	VMOVSS X5, (DI)(AX*4)
s512_skip6:
	MOVLQSX 28(DX), AX
	TESTQ AX, AX
	JS s512_skip7
	VMOVSS (DI)(AX*4), X5
	VADDSS 28(SI), X5, X5
	VMOVSS X5, (DI)(AX*4)
s512_skip7:
	MOVLQSX 32(DX), AX
	TESTQ AX, AX
	JS s512_skip8
	VMOVSS (DI)(AX*4), X5
	VADDSS 32(SI), X5, X5
	VMOVSS X5, (DI)(AX*4)
s512_skip8:
	MOVLQSX 36(DX), AX
	TESTQ AX, AX
	JS s512_skip9
	VMOVSS (DI)(AX*4), X5
	VADDSS 36(SI), X5, X5
	VMOVSS X5, (DI)(AX*4)
s512_skip9:
	MOVLQSX 40(DX), AX
	TESTQ AX, AX
	JS s512_skip10
	VMOVSS (DI)(AX*4), X5
	VADDSS 40(SI), X5, X5
	VMOVSS X5, (DI)(AX*4)
s512_skip10:
	MOVLQSX 44(DX), AX
	TESTQ AX, AX
	JS s512_skip11
	VMOVSS (DI)(AX*4), X5
	VADDSS 44(SI), X5, X5
	VMOVSS X5, (DI)(AX*4)
s512_skip11:
	MOVLQSX 48(DX), AX
	TESTQ AX, AX
	JS s512_skip12
	VMOVSS (DI)(AX*4), X5
	VADDSS 48(SI), X5, X5
	VMOVSS X5, (DI)(AX*4)
s512_skip12:
	MOVLQSX 52(DX), AX
	TESTQ AX, AX
	JS s512_skip13
	VMOVSS (DI)(AX*4), X5
	VADDSS 52(SI), X5, X5
	VMOVSS X5, (DI)(AX*4)
s512_skip13:
	MOVLQSX 56(DX), AX
	TESTQ AX, AX
	JS s512_skip14
	VMOVSS (DI)(AX*4), X5
	VADDSS 56(SI), X5, X5
	VMOVSS X5, (DI)(AX*4)
s512_skip14:
	MOVLQSX 60(DX), AX
	TESTQ AX, AX
	JS s512_skip15
	VMOVSS (DI)(AX*4), X5
	VADDSS 60(SI), X5, X5
	VMOVSS X5, (DI)(AX*4)
s512_skip15:
	JMP s512_next
s512_lanes: // the lanes left in R8, in order
	TZCNTL R8, BX
	MOVLQSX (DX)(BX*4), AX
	VMOVSS (DI)(AX*4), X5 // (VEX-encoded: legacy SSE beside dirty ZMM state ran 3× slower)
	VADDSS (SI)(BX*4), X5, X5
	VMOVSS X5, (DI)(AX*4)
	BLSRL R8, R8
	JNZ s512_lanes
s512_next:
	ADDQ $64, SI
	ADDQ $64, DX
	DECQ CX
	JNZ s512_loop
	VZEROUPPER
	RET

// func gatherIdx256(dst, src *float32, idx *int32, blocks int)
//
// gatherIdx512 in AVX2, 8 values a block.
TEXT ·gatherIdx256(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ idx+16(FP), DX
	MOVQ blocks+24(FP), CX
	VPCMPEQD Y15, Y15, Y15 // −1 in every lane
	VMOVDQU iota16<>(SB), Y14
g256_loop:
	VMOVDQU (DX), Y0
	MOVLQSX (DX), AX
	TESTQ AX, AX
	JS g256_gather
	VMOVD AX, X1
	VPBROADCASTD X1, Y1
	VPADDD Y14, Y1, Y1
	VPCMPEQD Y1, Y0, Y1
	VMOVMSKPS Y1, BX
	CMPL BX, $0xff
	JNE g256_gather
	VMOVDQU (SI)(AX*4), Y2
	VMOVDQU Y2, (DI)
	JMP g256_next
g256_gather:
	VPCMPGTD Y15, Y0, Y3 // positions > −1
	VPXOR Y2, Y2, Y2
	VPGATHERDD Y3, (SI)(Y0*4), Y2
	VMOVDQU Y2, (DI)
g256_next:
	ADDQ $32, DI
	ADDQ $32, DX
	DECQ CX
	JNZ g256_loop
	VZEROUPPER
	RET

// func scatterIdx256(dst, src *float32, idx *int32, blocks int)
//
// scatterIdx512 in AVX2 (which has no scatter), 8 values a block: a block of 8 consecutive positions is a load,
// an add and a store; any other runs lane by lane in order, unrolled (as the Go loop, its branches predicted as
// well as the Go loop's).
TEXT ·scatterIdx256(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ idx+16(FP), DX
	MOVQ blocks+24(FP), CX
	VMOVDQU iota16<>(SB), Y14
s256_loop:
	MOVLQSX (DX), AX
	TESTQ AX, AX
	JS s256_lanes
	VMOVDQU (DX), Y0
	VMOVD AX, X1
	VPBROADCASTD X1, Y1
	VPADDD Y14, Y1, Y1
	VPCMPEQD Y1, Y0, Y1
	VMOVMSKPS Y1, BX
	CMPL BX, $0xff
	JNE s256_lanes
	VMOVUPS (DI)(AX*4), Y2
	VADDPS (SI), Y2, Y2
	VMOVUPS Y2, (DI)(AX*4)
	JMP s256_next
s256_lanes:
	MOVLQSX 0(DX), AX
	TESTQ AX, AX
	JS s256_skip0
	VMOVSS (DI)(AX*4), X5
	VADDSS 0(SI), X5, X5
	VMOVSS X5, (DI)(AX*4)
s256_skip0:
	MOVLQSX 4(DX), AX
	TESTQ AX, AX
	JS s256_skip1
	VMOVSS (DI)(AX*4), X5
	VADDSS 4(SI), X5, X5
	VMOVSS X5, (DI)(AX*4)
s256_skip1:
	MOVLQSX 8(DX), AX
	TESTQ AX, AX
	JS s256_skip2
	VMOVSS (DI)(AX*4), X5
	VADDSS 8(SI), X5, X5
	VMOVSS X5, (DI)(AX*4)
s256_skip2:
	MOVLQSX 12(DX), AX
	TESTQ AX, AX
	JS s256_skip3
	VMOVSS (DI)(AX*4), X5
	VADDSS 12(SI), X5, X5
	VMOVSS X5, (DI)(AX*4)
s256_skip3:
	MOVLQSX 16(DX), AX
	TESTQ AX, AX
	JS s256_skip4
	VMOVSS (DI)(AX*4), X5
	VADDSS 16(SI), X5, X5
	VMOVSS X5, (DI)(AX*4)
s256_skip4:
	MOVLQSX 20(DX), AX
	TESTQ AX, AX
	JS s256_skip5
	VMOVSS (DI)(AX*4), X5
	VADDSS 20(SI), X5, X5
	VMOVSS X5, (DI)(AX*4)
s256_skip5:
	MOVLQSX 24(DX), AX
	TESTQ AX, AX
	JS s256_skip6
	VMOVSS (DI)(AX*4), X5
	VADDSS 24(SI), X5, X5
	VMOVSS X5, (DI)(AX*4)
s256_skip6:
	MOVLQSX 28(DX), AX
	TESTQ AX, AX
	JS s256_skip7
	VMOVSS (DI)(AX*4), X5
	VADDSS 28(SI), X5, X5
	VMOVSS X5, (DI)(AX*4)
s256_skip7:
s256_next:
	ADDQ $32, SI
	ADDQ $32, DX
	DECQ CX
	JNZ s256_loop
	VZEROUPPER
	RET

// func reluRows512(in, dst *float32, acc *uint32, rows, w, ld int)
//
// For each of rows rows (ld values apart in in and dst) and the first w columns (a multiple of 16): dst = in's
// bits &^ (neg &^ nan), acc[j] |= dst's bits (ReluBits, as reluRowsGo).
TEXT ·reluRows512(SB), NOSPLIT, $0-48
	MOVQ in+0(FP), SI
	MOVQ dst+8(FP), DI
	MOVQ acc+16(FP), DX
	MOVQ rows+24(FP), CX
	MOVQ w+32(FP), R8
	MOVQ ld+40(FP), R9
	SHLQ $2, R9
	MOVL $0x7fffffff, AX
	VPBROADCASTD AX, Z30
	MOVL $0x7f800000, AX
	VPBROADCASTD AX, Z29
r512_row:
	XORQ BX, BX
r512_col:
	VMOVDQU32 (SI)(BX*4), Z0
	RELU_BITS_512
	VMOVDQU32 Z0, (DI)(BX*4)
	VPORD (DX)(BX*4), Z0, Z0
	VMOVDQU32 Z0, (DX)(BX*4)
	ADDQ $16, BX
	CMPQ BX, R8
	JLT r512_col
	ADDQ R9, SI
	ADDQ R9, DI
	DECQ CX
	JNZ r512_row
	VZEROUPPER
	RET

// func reluRows256(in, dst *float32, acc *uint32, rows, w, ld int)
//
// reluRows512 in AVX2 (w a multiple of 8).
TEXT ·reluRows256(SB), NOSPLIT, $0-48
	MOVQ in+0(FP), SI
	MOVQ dst+8(FP), DI
	MOVQ acc+16(FP), DX
	MOVQ rows+24(FP), CX
	MOVQ w+32(FP), R8
	MOVQ ld+40(FP), R9
	SHLQ $2, R9
	MOVL $0x7fffffff, AX
	VMOVD AX, X15
	VPBROADCASTD X15, Y15
	MOVL $0x7f800000, AX
	VMOVD AX, X14
	VPBROADCASTD X14, Y14
r256_row:
	XORQ BX, BX
r256_col:
	VMOVDQU (SI)(BX*4), Y0
	RELU_BITS_256
	VMOVDQU Y0, (DI)(BX*4)
	VPOR (DX)(BX*4), Y0, Y0
	VMOVDQU Y0, (DX)(BX*4)
	ADDQ $8, BX
	CMPQ BX, R8
	JLT r256_col
	ADDQ R9, SI
	ADDQ R9, DI
	DECQ CX
	JNZ r256_row
	VZEROUPPER
	RET

// func addWherePositive512(dx, d, h *float32, blocks int)
//
// dx += d where h > 0 (ordered: not for a NaN h), dx kept elsewhere, 16 values a block.
TEXT ·addWherePositive512(SB), NOSPLIT, $0-32
	MOVQ dx+0(FP), DI
	MOVQ d+8(FP), SI
	MOVQ h+16(FP), DX
	MOVQ blocks+24(FP), CX
	VPXORD Z31, Z31, Z31
a512_loop:
	VMOVUPS (DX), Z0
	VCMPPS $0x1e, Z31, Z0, K1 // h > 0, ordered
	VMOVUPS (DI), Z1
	VMOVUPS (SI), Z2
	VADDPS Z1, Z2, K1, Z1 // d + dx, as addWherePositiveGo's compiled loop adds (a NaN's payload: d's)
	VMOVUPS Z1, (DI)
	ADDQ $64, DI
	ADDQ $64, SI
	ADDQ $64, DX
	DECQ CX
	JNZ a512_loop
	VZEROUPPER
	RET

// func addWherePositive256(dx, d, h *float32, blocks int)
//
// addWherePositive512 in AVX2, 8 values a block: the sum's bits and-ed with the mask, or-ed with dx's and-not.
TEXT ·addWherePositive256(SB), NOSPLIT, $0-32
	MOVQ dx+0(FP), DI
	MOVQ d+8(FP), SI
	MOVQ h+16(FP), DX
	MOVQ blocks+24(FP), CX
	VXORPS Y15, Y15, Y15
a256_loop:
	VMOVUPS (DX), Y0
	VCMPPS $0x1e, Y15, Y0, Y0 // h > 0, ordered
	VMOVUPS (DI), Y1
	VMOVUPS (SI), Y2
	VADDPS Y1, Y2, Y2 // d + dx, as addWherePositiveGo's compiled loop adds
	VANDPS Y0, Y2, Y2
	VANDNPS Y1, Y0, Y1     // dx &^ mask
	VORPS Y1, Y2, Y2
	VMOVUPS Y2, (DI)
	ADDQ $32, DI
	ADDQ $32, SI
	ADDQ $32, DX
	DECQ CX
	JNZ a256_loop
	VZEROUPPER
	RET

// func maskPositive512(dx, d, h *float32, blocks int)
//
// dx = d where h > 0 (ordered), +0 elsewhere, 16 values a block.
TEXT ·maskPositive512(SB), NOSPLIT, $0-32
	MOVQ dx+0(FP), DI
	MOVQ d+8(FP), SI
	MOVQ h+16(FP), DX
	MOVQ blocks+24(FP), CX
	VPXORD Z31, Z31, Z31
m512_loop:
	VMOVUPS (DX), Z0
	VCMPPS $0x1e, Z31, Z0, K1
	VMOVDQU32.Z (SI), K1, Z1
	VMOVDQU32 Z1, (DI)
	ADDQ $64, DI
	ADDQ $64, SI
	ADDQ $64, DX
	DECQ CX
	JNZ m512_loop
	VZEROUPPER
	RET

// func maskPositive256(dx, d, h *float32, blocks int)
TEXT ·maskPositive256(SB), NOSPLIT, $0-32
	MOVQ dx+0(FP), DI
	MOVQ d+8(FP), SI
	MOVQ h+16(FP), DX
	MOVQ blocks+24(FP), CX
	VXORPS Y15, Y15, Y15
m256_loop:
	VMOVUPS (DX), Y0
	VCMPPS $0x1e, Y15, Y0, Y0
	VANDPS (SI), Y0, Y1
	VMOVUPS Y1, (DI)
	ADDQ $32, DI
	ADDQ $32, SI
	ADDQ $32, DX
	DECQ CX
	JNZ m256_loop
	VZEROUPPER
	RET

// func setWherePositive512(dx, d, h *float32, blocks int)
//
// dx = d where h > 0 (ordered) and d is not -0, +0 elsewhere: what adding d onto +0 gives, by the bits, as
// setWherePositiveGo computes it. 16 values a block.
TEXT ·setWherePositive512(SB), NOSPLIT, $0-32
	MOVQ dx+0(FP), DI
	MOVQ d+8(FP), SI
	MOVQ h+16(FP), DX
	MOVQ blocks+24(FP), CX
	VPXORD Z31, Z31, Z31
	MOVL $0x80000000, AX
	VPBROADCASTD AX, Z30
s512_loop:
	VMOVUPS (DX), Z0
	VCMPPS $0x1e, Z31, Z0, K1 // h > 0, ordered
	VMOVDQU32 (SI), Z1
	VPCMPEQD Z30, Z1, K2 // d is -0
	KANDNW K1, K2, K3 // h > 0 and d is not -0
	VMOVDQU32.Z Z1, K3, Z2
	VMOVDQU32 Z2, (DI)
	ADDQ $64, DI
	ADDQ $64, SI
	ADDQ $64, DX
	DECQ CX
	JNZ s512_loop
	VZEROUPPER
	RET

// func setWherePositive256(dx, d, h *float32, blocks int)
//
// setWherePositive512 in AVX2, 8 values a block: d and-ed with the mask, and-not with d's -0 lanes.
TEXT ·setWherePositive256(SB), NOSPLIT, $0-32
	MOVQ dx+0(FP), DI
	MOVQ d+8(FP), SI
	MOVQ h+16(FP), DX
	MOVQ blocks+24(FP), CX
	VXORPS Y15, Y15, Y15
	MOVL $0x80000000, AX
	MOVL AX, X14
	VPBROADCASTD X14, Y14
s256_loop:
	VMOVUPS (DX), Y0
	VCMPPS $0x1e, Y15, Y0, Y0 // h > 0, ordered
	VMOVUPS (SI), Y1
	VPCMPEQD Y14, Y1, Y2 // d is -0
	VANDPS Y0, Y1, Y1
	VANDNPS Y1, Y2, Y1 // (d & mask) &^ (-0 lanes)
	VMOVUPS Y1, (DI)
	ADDQ $32, DI
	ADDQ $32, SI
	ADDQ $32, DX
	DECQ CX
	JNZ s256_loop
	VZEROUPPER
	RET

// func relu512(dst, in *float32, blocks int)
//
// dst = in's bits &^ (neg &^ nan) (ReluBits), 16 values a block: reluRows512 without the columns' OR.
TEXT ·relu512(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ in+8(FP), SI
	MOVQ blocks+16(FP), CX
	MOVL $0x7fffffff, AX
	VPBROADCASTD AX, Z30
	MOVL $0x7f800000, AX
	VPBROADCASTD AX, Z29
u512_loop:
	VMOVDQU32 (SI), Z0
	RELU_BITS_512
	VMOVDQU32 Z0, (DI)
	ADDQ $64, SI
	ADDQ $64, DI
	DECQ CX
	JNZ u512_loop
	VZEROUPPER
	RET

// func relu256(dst, in *float32, blocks int)
//
// relu512 in AVX2, 8 values a block.
TEXT ·relu256(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ in+8(FP), SI
	MOVQ blocks+16(FP), CX
	MOVL $0x7fffffff, AX
	VMOVD AX, X15
	VPBROADCASTD X15, Y15
	MOVL $0x7f800000, AX
	VMOVD AX, X14
	VPBROADCASTD X14, Y14
u256_loop:
	VMOVDQU (SI), Y0
	RELU_BITS_256
	VMOVDQU Y0, (DI)
	ADDQ $32, SI
	ADDQ $32, DI
	DECQ CX
	JNZ u256_loop
	VZEROUPPER
	RET

// 0, 2, …, 30: VPERMT2PS's indices of the even values of two vectors.
DATA evens32<>+0(SB)/4, $0
DATA evens32<>+4(SB)/4, $2
DATA evens32<>+8(SB)/4, $4
DATA evens32<>+12(SB)/4, $6
DATA evens32<>+16(SB)/4, $8
DATA evens32<>+20(SB)/4, $10
DATA evens32<>+24(SB)/4, $12
DATA evens32<>+28(SB)/4, $14
DATA evens32<>+32(SB)/4, $16
DATA evens32<>+36(SB)/4, $18
DATA evens32<>+40(SB)/4, $20
DATA evens32<>+44(SB)/4, $22
DATA evens32<>+48(SB)/4, $24
DATA evens32<>+52(SB)/4, $26
DATA evens32<>+56(SB)/4, $28
DATA evens32<>+60(SB)/4, $30
GLOBL evens32<>(SB), RODATA|NOPTR, $64

// 0, 0, 1, 1, …, 15, 15: VPERMPS's indices spreading a vector's values over the even lanes of two (the first
// 16 for the first vector, the next 16 for the second).
DATA pairs32<>+0(SB)/4, $0
DATA pairs32<>+4(SB)/4, $0
DATA pairs32<>+8(SB)/4, $1
DATA pairs32<>+12(SB)/4, $1
DATA pairs32<>+16(SB)/4, $2
DATA pairs32<>+20(SB)/4, $2
DATA pairs32<>+24(SB)/4, $3
DATA pairs32<>+28(SB)/4, $3
DATA pairs32<>+32(SB)/4, $4
DATA pairs32<>+36(SB)/4, $4
DATA pairs32<>+40(SB)/4, $5
DATA pairs32<>+44(SB)/4, $5
DATA pairs32<>+48(SB)/4, $6
DATA pairs32<>+52(SB)/4, $6
DATA pairs32<>+56(SB)/4, $7
DATA pairs32<>+60(SB)/4, $7
DATA pairs32<>+64(SB)/4, $8
DATA pairs32<>+68(SB)/4, $8
DATA pairs32<>+72(SB)/4, $9
DATA pairs32<>+76(SB)/4, $9
DATA pairs32<>+80(SB)/4, $10
DATA pairs32<>+84(SB)/4, $10
DATA pairs32<>+88(SB)/4, $11
DATA pairs32<>+92(SB)/4, $11
DATA pairs32<>+96(SB)/4, $12
DATA pairs32<>+100(SB)/4, $12
DATA pairs32<>+104(SB)/4, $13
DATA pairs32<>+108(SB)/4, $13
DATA pairs32<>+112(SB)/4, $14
DATA pairs32<>+116(SB)/4, $14
DATA pairs32<>+120(SB)/4, $15
DATA pairs32<>+124(SB)/4, $15
GLOBL pairs32<>(SB), RODATA|NOPTR, $128

// func gatherRuns512(dst, src *float32, runs *run, n int)
//
// For each of the n runs (Index.WithRuns: i0, j0, lanes | s<<16, loads), dst[i0+u] = src[j0+s·u] for its lanes
// u, or +0 where s = 0 (the padding): one masked load and store, or at a stride of 2 two masked loads of the 32
// values from j0 (only those the run reads: the loads' lanes) and their even lanes by VPERMT2PS.
TEXT ·gatherRuns512(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ runs+16(FP), DX
	MOVQ n+24(FP), CX
	VPXORD Z28, Z28, Z28
	VMOVDQU32 evens32<>(SB), Z29
gr512_loop:
	MOVL 0(DX), AX // i0
	MOVL 4(DX), BX // j0
	MOVL 8(DX), R10 // lanes | s<<16
	KMOVW R10, K1
	SHRL $16, R10
	CMPL R10, $1
	JNE gr512_other
	VMOVUPS.Z (SI)(BX*4), K1, Z0
	VMOVUPS Z0, K1, (DI)(AX*4)
	JMP gr512_next
gr512_other:
	JLT gr512_zero
	MOVL 12(DX), R11 // loads
	KMOVW R11, K2
	SHRL $16, R11
	KMOVW R11, K3
	VMOVUPS.Z (SI)(BX*4), K2, Z0
	VMOVUPS.Z 64(SI)(BX*4), K3, Z1
	VPERMT2PS Z1, Z29, Z0 // lane u: value 2u of the 32
	VMOVUPS Z0, K1, (DI)(AX*4)
	JMP gr512_next
gr512_zero:
	VMOVUPS Z28, K1, (DI)(AX*4)
gr512_next:
	ADDQ $16, DX
	DECQ CX
	JNZ gr512_loop
	VZEROUPPER
	RET

// func sumRuns512(dst, src *float32, sums *sumRun, n int, taps *int32)
//
// For each of the n sums (Index.WithRuns: d0, lanes, first, ntaps), its positions' values of dst (loaded once:
// at a stride of 2, the 16 from d0 where the lanes spread, their even lanes by VPERMPS) plus each tap's values
// of src, from taps[first+t] on, in the taps' order (the map's), each sum dst + src as the Go loop adds; then
// stored where they were loaded. Two sums in a row at a stride of 1 with as many taps run together (two chains of
// additions, not one waiting on each sum before it): their positions are distinct, so neither reads what the
// other stores.
TEXT ·sumRuns512(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ sums+16(FP), DX
	MOVQ n+24(FP), CX
	MOVQ taps+32(FP), R8
	VMOVDQU32 evens32<>(SB), Z29
	VMOVDQU32 pairs32<>(SB), Z27
sum_loop:
	CMPQ CX, $2
	JLT sum_one
	MOVL 12(DX), R11
	CMPL R11, 28(DX) // as many taps
	JNE sum_one
	MOVL 4(DX), R10
	ORL 20(DX), R10
	SHRL $16, R10 // neither spread
	JNZ sum_one
	MOVL 0(DX), AX
	MOVL 16(DX), R9
	MOVL 8(DX), BX
	LEAQ (R8)(BX*4), BX
	MOVL 24(DX), R13
	LEAQ (R8)(R13*4), R13
	KMOVW 4(DX), K1
	KMOVW 20(DX), K2
	VMOVUPS.Z (DI)(AX*4), K1, Z0
	VMOVUPS.Z (DI)(R9*4), K2, Z2
sum_pair_taps:
	MOVL (BX), R12
	MOVL (R13), R14
	VMOVUPS.Z (SI)(R12*4), K1, Z1
	VMOVUPS.Z (SI)(R14*4), K2, Z3
	VADDPS Z1, Z0, Z0
	VADDPS Z3, Z2, Z2
	ADDQ $4, BX
	ADDQ $4, R13
	DECL R11
	JNZ sum_pair_taps
	VMOVUPS Z0, K1, (DI)(AX*4)
	VMOVUPS Z2, K2, (DI)(R9*4)
	ADDQ $32, DX
	SUBQ $2, CX
	JNZ sum_loop
	VZEROUPPER
	RET
sum_one:
	MOVL 0(DX), AX // d0
	MOVL 4(DX), R10 // lanes | spread lanes<<16
	MOVL 8(DX), BX // first
	MOVL 12(DX), R11 // ntaps
	LEAQ (R8)(BX*4), BX
	KMOVW R10, K1
	SHRL $16, R10
	JNZ sum_two
	VMOVUPS.Z (DI)(AX*4), K1, Z0
	JMP sum_taps
sum_two:
	KMOVW R10, K2
	VMOVUPS.Z (DI)(AX*4), K2, Z2
	VPERMPS Z2, Z29, Z0 // lane u: value 2u
sum_taps: // each tap's values, in the taps' order
	MOVL (BX), R12
	VMOVUPS.Z (SI)(R12*4), K1, Z1
	VADDPS Z1, Z0, Z0
	ADDQ $4, BX
	DECL R11
	JNZ sum_taps
	TESTL R10, R10
	JNZ sum_store2
	VMOVUPS Z0, K1, (DI)(AX*4)
	JMP sum_next
sum_store2:
	VPERMPS Z0, Z27, Z2 // lane 2u: value u
	VMOVUPS Z2, K2, (DI)(AX*4)
sum_next:
	ADDQ $16, DX
	DECQ CX
	JNZ sum_loop
	VZEROUPPER
	RET

// func depthwise512(dst, src, w *float32, taps *int32, masks *uint16, ntaps, rows, blocks, outW, inH, inW, yLo, yHi int, init float32, add bool)
//
// Depthwise's loop: for each output row y and block of 16 outputs from x0, the sum from init over the taps t in
// order (taps: DY, and the offset DY·inW + DX) whose row y + DY lies in the input: the 16 values from
// (y·inW + x0) + offset, those the tap's mask keeps (the others +0), times w[t], added; then stored under the
// block's mask, or added to dst's values there (dst + sum). Rows yLo … yHi−1 read inside the input at every
// tap: there four rows run at once (four chains of additions, not one waiting on each sum before it).
//
// Registers: DI dst, SI src, R8 w, R9 taps, R10 masks, R11 ntaps, R14 an input row's bytes, CX y, R12 the
// block, R13 its masks, BX the tap, DX the block's first input place (then an output row's bytes), AX scratch;
// Z31 init, Z0–Z3 the sums.
TEXT ·depthwise512(SB), NOSPLIT, $0-109
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ w+16(FP), R8
	MOVQ taps+24(FP), R9
	MOVQ masks+32(FP), R10
	MOVQ ntaps+40(FP), R11
	MOVQ inW+80(FP), R14
	SHLQ $2, R14
	VBROADCASTSS init+104(FP), Z31
	XORQ CX, CX
dw512_row:
	CMPQ CX, rows+48(FP)
	JGE dw512_done
	CMPQ CX, yLo+88(FP)
	JLT dw512_one
	LEAQ 4(CX), AX
	CMPQ AX, yHi+96(FP)
	JGT dw512_one
	XORQ R12, R12
	MOVQ R10, R13
dw512_qblock:
	MOVQ CX, DX
	IMULQ inW+80(FP), DX
	MOVQ R12, AX
	SHLQ $4, AX
	ADDQ AX, DX // y·inW + x0
	VMOVAPS Z31, Z0
	VMOVAPS Z31, Z1
	VMOVAPS Z31, Z2
	VMOVAPS Z31, Z3
	XORQ BX, BX
dw512_qtap:
	MOVLQSX 4(R9)(BX*8), AX
	ADDQ DX, AX
	LEAQ (SI)(AX*4), AX
	KMOVW (R13)(BX*2), K1
	VBROADCASTSS (R8)(BX*4), Z8
	VMOVUPS.Z (AX), K1, Z4
	VMOVUPS.Z (AX)(R14*1), K1, Z5
	LEAQ (AX)(R14*2), AX
	VMOVUPS.Z (AX), K1, Z6
	VMOVUPS.Z (AX)(R14*1), K1, Z7
	VMULPS Z8, Z4, Z4
	VMULPS Z8, Z5, Z5
	VMULPS Z8, Z6, Z6
	VMULPS Z8, Z7, Z7
	VADDPS Z4, Z0, Z0
	VADDPS Z5, Z1, Z1
	VADDPS Z6, Z2, Z2
	VADDPS Z7, Z3, Z3
	INCQ BX
	CMPQ BX, R11
	JLT dw512_qtap
	KMOVW (R13)(R11*2), K2 // the block's outputs
	MOVQ CX, AX
	IMULQ outW+64(FP), AX
	MOVQ R12, BX
	SHLQ $4, BX
	ADDQ BX, AX
	LEAQ (DI)(AX*4), AX // row y's outputs from x0
	MOVQ outW+64(FP), DX
	SHLQ $2, DX
	CMPB add+108(FP), $0
	JEQ dw512_qstore
	VMOVUPS.Z (AX), K2, Z4
	VADDPS Z0, Z4, Z0 // dst + sum
	VMOVUPS.Z (AX)(DX*1), K2, Z5
	VADDPS Z1, Z5, Z1
	LEAQ (AX)(DX*2), BX
	VMOVUPS.Z (BX), K2, Z6
	VADDPS Z2, Z6, Z2
	VMOVUPS.Z (BX)(DX*1), K2, Z7
	VADDPS Z3, Z7, Z3
dw512_qstore:
	VMOVUPS Z0, K2, (AX)
	VMOVUPS Z1, K2, (AX)(DX*1)
	LEAQ (AX)(DX*2), AX
	VMOVUPS Z2, K2, (AX)
	VMOVUPS Z3, K2, (AX)(DX*1)
	LEAQ 2(R13)(R11*2), R13
	INCQ R12
	CMPQ R12, blocks+56(FP)
	JLT dw512_qblock
	ADDQ $4, CX
	JMP dw512_row
dw512_one: // one row, each tap's row checked
	XORQ R12, R12
	MOVQ R10, R13
dw512_block:
	MOVQ CX, DX
	IMULQ inW+80(FP), DX
	MOVQ R12, AX
	SHLQ $4, AX
	ADDQ AX, DX // y·inW + x0
	VMOVAPS Z31, Z0
	XORQ BX, BX
dw512_tap:
	MOVLQSX (R9)(BX*8), AX
	ADDQ CX, AX // the row it reads
	CMPQ AX, inH+72(FP)
	JCC dw512_skip // (outside the input, below or above)
	MOVLQSX 4(R9)(BX*8), AX
	ADDQ DX, AX
	KMOVW (R13)(BX*2), K1
	VMOVUPS.Z (SI)(AX*4), K1, Z1
	VBROADCASTSS (R8)(BX*4), Z2
	VMULPS Z2, Z1, Z1
	VADDPS Z1, Z0, Z0
dw512_skip:
	INCQ BX
	CMPQ BX, R11
	JLT dw512_tap
	KMOVW (R13)(R11*2), K2
	MOVQ CX, AX
	IMULQ outW+64(FP), AX
	MOVQ R12, BX
	SHLQ $4, BX
	ADDQ BX, AX // y·outW + x0
	CMPB add+108(FP), $0
	JEQ dw512_store
	VMOVUPS.Z (DI)(AX*4), K2, Z3
	VADDPS Z0, Z3, Z0 // dst + sum
dw512_store:
	VMOVUPS Z0, K2, (DI)(AX*4)
	LEAQ 2(R13)(R11*2), R13
	INCQ R12
	CMPQ R12, blocks+56(FP)
	JLT dw512_block
	INCQ CX
	JMP dw512_row
dw512_done:
	VZEROUPPER
	RET

// fmath.Exp's constants, float64 bits: log2e, 0.5, ln2Hi, ln2Lo, the polynomial's P1–P5, 2, 1, underflow, overflow,
// nearZero (2^−28), and k's bounds −1021 and 1023 as float64; |x|'s mask; the exponent's bias 1023.
DATA expLog2e<>+0(SB)/8, $0x3ff71547652b82fe
GLOBL expLog2e<>(SB), RODATA|NOPTR, $8
DATA expHalf<>+0(SB)/8, $0x3fe0000000000000
GLOBL expHalf<>(SB), RODATA|NOPTR, $8
DATA expLn2Hi<>+0(SB)/8, $0x3fe62e42fee00000
GLOBL expLn2Hi<>(SB), RODATA|NOPTR, $8
DATA expLn2Lo<>+0(SB)/8, $0x3dea39ef35793c76
GLOBL expLn2Lo<>(SB), RODATA|NOPTR, $8
DATA expP1<>+0(SB)/8, $0x3fc5555555555555
GLOBL expP1<>(SB), RODATA|NOPTR, $8
DATA expP2<>+0(SB)/8, $0xbf66c16c16bebd93
GLOBL expP2<>(SB), RODATA|NOPTR, $8
DATA expP3<>+0(SB)/8, $0x3f11566aaf25de2c
GLOBL expP3<>(SB), RODATA|NOPTR, $8
DATA expP4<>+0(SB)/8, $0xbebbbd41c5d26bf1
GLOBL expP4<>(SB), RODATA|NOPTR, $8
DATA expP5<>+0(SB)/8, $0x3e66376972bea4d0
GLOBL expP5<>(SB), RODATA|NOPTR, $8
DATA expTwo<>+0(SB)/8, $0x4000000000000000
GLOBL expTwo<>(SB), RODATA|NOPTR, $8
DATA expOne<>+0(SB)/8, $0x3ff0000000000000
GLOBL expOne<>(SB), RODATA|NOPTR, $8
DATA expUnder<>+0(SB)/8, $0xc0874910d52d3051
GLOBL expUnder<>(SB), RODATA|NOPTR, $8
DATA expOver<>+0(SB)/8, $0x40862e42fefa39ef
GLOBL expOver<>(SB), RODATA|NOPTR, $8
DATA expNear<>+0(SB)/8, $0x3e30000000000000
GLOBL expNear<>(SB), RODATA|NOPTR, $8
DATA expKLo<>+0(SB)/8, $0xc08fe80000000000
GLOBL expKLo<>(SB), RODATA|NOPTR, $8
DATA expKHi<>+0(SB)/8, $0x408ff80000000000
GLOBL expKHi<>(SB), RODATA|NOPTR, $8
DATA expAbs<>+0(SB)/8, $0x7fffffffffffffff
GLOBL expAbs<>(SB), RODATA|NOPTR, $8
DATA expBias<>+0(SB)/8, $1023
GLOBL expBias<>(SB), RODATA|NOPTR, $8

// func exp512(dst, src *float64, blocks int) int
//
// fmath.ExpTo's steps for 8·blocks values, 8 a vector, the same float64 operations in the same order (k from
// log2e·x ∓ 0.5 by x's sign, truncated; the reduction by ln2Hi and ln2Lo; the minimax polynomial; y·2^k with 2^k's
// bits built; 1 + x where |x| < 2^−28), never a fused multiply-add. It returns how many values need another of
// Exp's cases (a NaN, x outside [underflow, overflow], or k outside [−1021, 1023], where fmath scales by Ldexp),
// whose results here are not fmath's: the caller then computes the whole slice itself.
TEXT ·exp512(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ blocks+16(FP), CX
	XORQ AX, AX
	VBROADCASTSD expLog2e<>(SB), Z20
	VBROADCASTSD expHalf<>(SB), Z21
	VBROADCASTSD expLn2Hi<>(SB), Z22
	VBROADCASTSD expLn2Lo<>(SB), Z23
	VBROADCASTSD expP1<>(SB), Z24
	VBROADCASTSD expP2<>(SB), Z25
	VBROADCASTSD expP3<>(SB), Z26
	VBROADCASTSD expP4<>(SB), Z27
	VBROADCASTSD expP5<>(SB), Z28
	VBROADCASTSD expTwo<>(SB), Z29
	VBROADCASTSD expOne<>(SB), Z30
	VPXORQ Z31, Z31, Z31
	VBROADCASTSD expUnder<>(SB), Z18
	VBROADCASTSD expOver<>(SB), Z19
	VBROADCASTSD expNear<>(SB), Z17
	VBROADCASTSD expKLo<>(SB), Z16
	VBROADCASTSD expKHi<>(SB), Z15
	VBROADCASTSD expAbs<>(SB), Z14
	VPBROADCASTQ expBias<>(SB), Z13
exp512_loop:
	VMOVUPD (SI), Z0
	VMULPD Z0, Z20, Z1 // log2e·x
	VADDPD Z21, Z1, Z2 // + 0.5
	VSUBPD Z21, Z1, Z3 // − 0.5
	VCMPPD $1, Z31, Z0, K1 // x < 0
	VBLENDMPD Z3, Z2, K1, Z2
	VCVTTPD2DQ Z2, Y4 // k
	VCVTDQ2PD Y4, Z5 // float64(k)
	VMULPD Z22, Z5, Z6
	VSUBPD Z6, Z0, Z6 // hi = x − k·ln2Hi
	VMULPD Z23, Z5, Z7 // lo = k·ln2Lo
	VSUBPD Z7, Z6, Z8 // r = hi − lo
	VMULPD Z8, Z8, Z9 // t = r·r
	VMULPD Z28, Z9, Z10 // t·p5
	VADDPD Z10, Z27, Z10 // p4 + …
	VMULPD Z10, Z9, Z10
	VADDPD Z10, Z26, Z10 // p3 + …
	VMULPD Z10, Z9, Z10
	VADDPD Z10, Z25, Z10 // p2 + …
	VMULPD Z10, Z9, Z10
	VADDPD Z10, Z24, Z10 // p1 + …
	VMULPD Z10, Z9, Z10
	VSUBPD Z10, Z8, Z10 // c = r − t·(…)
	VMULPD Z10, Z8, Z11 // r·c
	VSUBPD Z10, Z29, Z12 // 2 − c
	VDIVPD Z12, Z11, Z11
	VSUBPD Z11, Z7, Z11 // lo − r·c/(2 − c)
	VSUBPD Z6, Z11, Z11 // … − hi
	VSUBPD Z11, Z30, Z11 // y = 1 − …
	VPMOVSXDQ Y4, Z12
	VPADDQ Z13, Z12, Z12
	VPSLLQ $52, Z12, Z12 // 2^k
	VMULPD Z12, Z11, Z11 // y·2^k
	VANDPD Z14, Z0, Z12 // |x|
	VCMPPD $1, Z17, Z12, K2 // |x| < 2^−28
	VADDPD Z0, Z30, K2, Z11 // there 1 + x
	VMOVUPD Z11, (DI)
	VCMPPD $13, Z18, Z0, K3 // x ≥ underflow (false for a NaN)
	VCMPPD $2, Z19, Z0, K3, K3 // and x ≤ overflow
	VCMPPD $13, Z16, Z5, K3, K3 // and k ≥ −1021
	VCMPPD $2, Z15, Z5, K3, K3 // and k ≤ 1023
	KMOVW K3, R8
	NOTL R8
	ANDL $0xff, R8
	POPCNTL R8, R8
	ADDQ R8, AX
	ADDQ $64, SI
	ADDQ $64, DI
	DECQ CX
	JNZ exp512_loop
	MOVQ AX, ret+24(FP)
	VZEROUPPER
	RET

// func planesGrad512(a, b *float32, shifts *int32, dst *float32, taps, m, sb int, mask uint64)
// PlanesGrad for one input channel and up to 64 columns (mask: 16 bits a vector, lowest first): acc = dst; for
// each tap i in order, t = +0 then t += a[i·m+o]·b[o·sb − shifts[i] + j] for o = 0 … m−1 in order (VMULPS then
// VADDPS), acc += t; dst = acc. Masked-off lanes are neither read nor written.
TEXT ·planesGrad512(SB), NOSPLIT, $0-64
	MOVQ a+0(FP), DI
	MOVQ b+8(FP), SI
	MOVQ shifts+16(FP), R8
	MOVQ dst+24(FP), DX
	MOVQ taps+32(FP), R9
	MOVQ m+40(FP), R10
	MOVQ sb+48(FP), R11
	SHLQ $2, R11
	MOVQ mask+56(FP), AX
	KMOVW AX, K1
	SHRQ $16, AX
	KMOVW AX, K2
	SHRQ $16, AX
	KMOVW AX, K3
	SHRQ $16, AX
	KMOVW AX, K4
	VMOVUPS.Z (DX), K1, Z0
	VMOVUPS.Z 64(DX), K2, Z1
	VMOVUPS.Z 128(DX), K3, Z2
	VMOVUPS.Z 192(DX), K4, Z3
planesGrad512_tap:
	MOVLQSX (R8), AX
	SHLQ $2, AX
	MOVQ SI, BX
	SUBQ AX, BX
	VPXORD Z4, Z4, Z4
	VPXORD Z5, Z5, Z5
	VPXORD Z6, Z6, Z6
	VPXORD Z7, Z7, Z7
	MOVQ R10, CX
planesGrad512_o:
	VMOVUPS.Z (BX), K1, Z8
	VMOVUPS.Z 64(BX), K2, Z9
	VMOVUPS.Z 128(BX), K3, Z10
	VMOVUPS.Z 192(BX), K4, Z11
	VBROADCASTSS (DI), Z12
	VMULPS Z8, Z12, Z13
	VADDPS Z13, Z4, Z4
	VMULPS Z9, Z12, Z14
	VADDPS Z14, Z5, Z5
	VMULPS Z10, Z12, Z15
	VADDPS Z15, Z6, Z6
	VMULPS Z11, Z12, Z16
	VADDPS Z16, Z7, Z7
	ADDQ $4, DI
	ADDQ R11, BX
	DECQ CX
	JNZ planesGrad512_o
	VADDPS Z4, Z0, Z0
	VADDPS Z5, Z1, Z1
	VADDPS Z6, Z2, Z2
	VADDPS Z7, Z3, Z3
	ADDQ $4, R8
	DECQ R9
	JNZ planesGrad512_tap
	VMOVUPS Z0, K1, (DX)
	VMOVUPS Z1, K2, 64(DX)
	VMOVUPS Z2, K3, 128(DX)
	VMOVUPS Z3, K4, 192(DX)
	VZEROUPPER
	RET

// func planesGrad512x2(a, b *float32, shifts *int32, dst *float32, taps, m, sb, sd int, mask uint64)
// planesGrad512 for two input channels at once (their weights taps·m apart, their rows of dst sd apart): each
// vector of b loaded once for both, eight chains of additions in flight.
TEXT ·planesGrad512x2(SB), NOSPLIT, $0-72
	MOVQ a+0(FP), DI
	MOVQ b+8(FP), SI
	MOVQ shifts+16(FP), R8
	MOVQ dst+24(FP), DX
	MOVQ taps+32(FP), R9
	MOVQ m+40(FP), R10
	MOVQ sb+48(FP), R11
	SHLQ $2, R11
	MOVQ sd+56(FP), R12
	SHLQ $2, R12
	MOVQ R9, R13
	IMULQ R10, R13
	SHLQ $2, R13 // the second channel's weights: taps·m·4 bytes on
	MOVQ mask+64(FP), AX
	KMOVW AX, K1
	SHRQ $16, AX
	KMOVW AX, K2
	SHRQ $16, AX
	KMOVW AX, K3
	SHRQ $16, AX
	KMOVW AX, K4
	VMOVUPS.Z (DX), K1, Z0
	VMOVUPS.Z 64(DX), K2, Z1
	VMOVUPS.Z 128(DX), K3, Z2
	VMOVUPS.Z 192(DX), K4, Z3
	VMOVUPS.Z (DX)(R12*1), K1, Z17
	VMOVUPS.Z 64(DX)(R12*1), K2, Z18
	VMOVUPS.Z 128(DX)(R12*1), K3, Z19
	VMOVUPS.Z 192(DX)(R12*1), K4, Z20
planesGrad512x2_tap:
	MOVLQSX (R8), AX
	SHLQ $2, AX
	MOVQ SI, BX
	SUBQ AX, BX
	VPXORD Z4, Z4, Z4
	VPXORD Z5, Z5, Z5
	VPXORD Z6, Z6, Z6
	VPXORD Z7, Z7, Z7
	VPXORD Z21, Z21, Z21
	VPXORD Z22, Z22, Z22
	VPXORD Z23, Z23, Z23
	VPXORD Z24, Z24, Z24
	MOVQ R10, CX
planesGrad512x2_o:
	VMOVUPS.Z (BX), K1, Z8
	VMOVUPS.Z 64(BX), K2, Z9
	VMOVUPS.Z 128(BX), K3, Z10
	VMOVUPS.Z 192(BX), K4, Z11
	VBROADCASTSS (DI), Z12
	VBROADCASTSS (DI)(R13*1), Z25
	VMULPS Z8, Z12, Z13
	VADDPS Z13, Z4, Z4
	VMULPS Z9, Z12, Z14
	VADDPS Z14, Z5, Z5
	VMULPS Z10, Z12, Z15
	VADDPS Z15, Z6, Z6
	VMULPS Z11, Z12, Z16
	VADDPS Z16, Z7, Z7
	VMULPS Z8, Z25, Z26
	VADDPS Z26, Z21, Z21
	VMULPS Z9, Z25, Z27
	VADDPS Z27, Z22, Z22
	VMULPS Z10, Z25, Z28
	VADDPS Z28, Z23, Z23
	VMULPS Z11, Z25, Z29
	VADDPS Z29, Z24, Z24
	ADDQ $4, DI
	ADDQ R11, BX
	DECQ CX
	JNZ planesGrad512x2_o
	VADDPS Z4, Z0, Z0
	VADDPS Z5, Z1, Z1
	VADDPS Z6, Z2, Z2
	VADDPS Z7, Z3, Z3
	VADDPS Z21, Z17, Z17
	VADDPS Z22, Z18, Z18
	VADDPS Z23, Z19, Z19
	VADDPS Z24, Z20, Z20
	ADDQ $4, R8
	DECQ R9
	JNZ planesGrad512x2_tap
	VMOVUPS Z0, K1, (DX)
	VMOVUPS Z1, K2, 64(DX)
	VMOVUPS Z2, K3, 128(DX)
	VMOVUPS Z3, K4, 192(DX)
	VMOVUPS Z17, K1, (DX)(R12*1)
	VMOVUPS Z18, K2, 64(DX)(R12*1)
	VMOVUPS Z19, K3, 128(DX)(R12*1)
	VMOVUPS Z20, K4, 192(DX)(R12*1)
	VZEROUPPER
	RET

// func addRows512(dst, src *float32, offs *int32, rows, w int, onDst bool)
// MoveRows with add: for each row r, w values d[j] = d[j] + s[j] (VADDPS with d first, as Go's d += s), where
// onDst puts row r of dst at offs[r] and of src at r·w, else row r of dst at r·w and of src at offs[r]; the last
// w mod 16 values of a row by a mask.
TEXT ·addRows512(SB), NOSPLIT, $0-41
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ offs+16(FP), R8
	MOVQ rows+24(FP), R9
	MOVQ w+32(FP), R10
	MOVBLZX onDst+40(FP), R11
	MOVQ R10, R12
	SHLQ $2, R12
	MOVQ R10, CX
	ANDQ $15, CX
	MOVL $1, AX
	SHLL CX, AX
	DECL AX
	KMOVW AX, K1
	MOVQ R10, R13
	SHRQ $4, R13
addRows512_row:
	MOVLQSX (R8), AX
	SHLQ $2, AX
	TESTQ R11, R11
	JZ addRows512_fromTable
	LEAQ (DI)(AX*1), DX
	MOVQ SI, BX
	ADDQ R12, SI
	JMP addRows512_values
addRows512_fromTable:
	LEAQ (SI)(AX*1), BX
	MOVQ DI, DX
	ADDQ R12, DI
addRows512_values:
	MOVQ R13, CX
	TESTQ CX, CX
	JZ addRows512_tail
addRows512_vec:
	VMOVUPS (BX), Z1
	VMOVUPS (DX), Z0
	VADDPS Z1, Z0, Z0
	VMOVUPS Z0, (DX)
	ADDQ $64, BX
	ADDQ $64, DX
	DECQ CX
	JNZ addRows512_vec
addRows512_tail:
	KORTESTW K1, K1
	JZ addRows512_next
	VMOVUPS.Z (BX), K1, Z1
	VMOVUPS.Z (DX), K1, Z0
	VADDPS Z1, Z0, Z0
	VMOVUPS Z0, K1, (DX)
addRows512_next:
	ADDQ $4, R8
	DECQ R9
	JNZ addRows512_row
	VZEROUPPER
	RET

// func add512(dst, a, b *float32, blocks int)
// AddTo's sums, 16 a block: dst = a + b (VADDPS with a first, as Go's a + b).
TEXT ·add512(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DX
	MOVQ blocks+24(FP), CX
add512_loop:
	VMOVUPS (SI), Z0
	VMOVUPS (DX), Z1
	VADDPS Z1, Z0, Z0
	VMOVUPS Z0, (DI)
	ADDQ $64, SI
	ADDQ $64, DX
	ADDQ $64, DI
	DECQ CX
	JNZ add512_loop
	VZEROUPPER
	RET

// func add256(dst, a, b *float32, blocks int)
// add512 in AVX2, 8 values a block.
TEXT ·add256(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DX
	MOVQ blocks+24(FP), CX
add256_loop:
	VMOVUPS (SI), Y0
	VMOVUPS (DX), Y1
	VADDPS Y1, Y0, Y0
	VMOVUPS Y0, (DI)
	ADDQ $32, SI
	ADDQ $32, DX
	ADDQ $32, DI
	DECQ CX
	JNZ add256_loop
	VZEROUPPER
	RET

// func depthwise4x512(dst, src, w, init *float32, taps *int32, masks *uint16, ntaps, pairs, inP, outP int, add bool)
//
// DepthwisePlanes' loop on four planes (inputs inP values apart, outputs outP, weights ntaps): per pair of blocks
// of 16 flattened outputs from j, each plane's sums from its init over the taps t in order, the 16 values from
// j + offset (taps: DY, and the offset DY·inW + DX) those the block's mask for the tap keeps (the others +0),
// times the plane's w[t], added; then stored under the block's mask of outputs, or added to dst's values there
// (dst + sum). Eight chains of additions (four planes, two blocks), the same tap's mask for the four planes.
//
// Registers: DI dst, SI src, R8 w, R9 taps, R13 the pair's masks, R11 ntaps, R12 a plane's weights in bytes,
// R14 an input plane's bytes, R10 the pairs left, DX j, BX the tap, AX and CX scratch; Z20–Z23 the planes'
// inits, Z0–Z7 the sums (plane k's two blocks in Z2k, Z2k+1).
TEXT ·depthwise4x512(SB), NOSPLIT, $0-81
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ w+16(FP), R8
	MOVQ init+24(FP), AX
	VBROADCASTSS (AX), Z20
	VBROADCASTSS 4(AX), Z21
	VBROADCASTSS 8(AX), Z22
	VBROADCASTSS 12(AX), Z23
	MOVQ taps+32(FP), R9
	MOVQ masks+40(FP), R13
	MOVQ ntaps+48(FP), R11
	MOVQ R11, R12
	SHLQ $2, R12
	MOVQ inP+64(FP), R14
	SHLQ $2, R14
	MOVQ pairs+56(FP), R10
	XORQ DX, DX
dw4_pair:
	VMOVAPS Z20, Z0
	VMOVAPS Z20, Z1
	VMOVAPS Z21, Z2
	VMOVAPS Z21, Z3
	VMOVAPS Z22, Z4
	VMOVAPS Z22, Z5
	VMOVAPS Z23, Z6
	VMOVAPS Z23, Z7
	XORQ BX, BX
dw4_tap:
	MOVLQSX 4(R9)(BX*8), AX
	ADDQ DX, AX
	LEAQ (SI)(AX*4), AX // plane 0's inputs of the tap
	KMOVW (R13)(BX*4), K1
	KMOVW 2(R13)(BX*4), K2
	LEAQ (R8)(BX*4), CX // plane 0's weight of the tap
	VBROADCASTSS (CX), Z16
	VBROADCASTSS (CX)(R12*1), Z17
	LEAQ (CX)(R12*2), CX
	VBROADCASTSS (CX), Z18
	VBROADCASTSS (CX)(R12*1), Z19
	VMOVUPS.Z (AX), K1, Z8
	VMOVUPS.Z 64(AX), K2, Z9
	VMOVUPS.Z (AX)(R14*1), K1, Z10
	VMOVUPS.Z 64(AX)(R14*1), K2, Z11
	LEAQ (AX)(R14*2), AX
	VMOVUPS.Z (AX), K1, Z12
	VMOVUPS.Z 64(AX), K2, Z13
	VMOVUPS.Z (AX)(R14*1), K1, Z14
	VMOVUPS.Z 64(AX)(R14*1), K2, Z15
	VMULPS Z16, Z8, Z8
	VMULPS Z16, Z9, Z9
	VMULPS Z17, Z10, Z10
	VMULPS Z17, Z11, Z11
	VMULPS Z18, Z12, Z12
	VMULPS Z18, Z13, Z13
	VMULPS Z19, Z14, Z14
	VMULPS Z19, Z15, Z15
	VADDPS Z8, Z0, Z0
	VADDPS Z9, Z1, Z1
	VADDPS Z10, Z2, Z2
	VADDPS Z11, Z3, Z3
	VADDPS Z12, Z4, Z4
	VADDPS Z13, Z5, Z5
	VADDPS Z14, Z6, Z6
	VADDPS Z15, Z7, Z7
	INCQ BX
	CMPQ BX, R11
	JLT dw4_tap
	KMOVW (R13)(R11*4), K1 // the blocks' outputs
	KMOVW 2(R13)(R11*4), K2
	LEAQ (DI)(DX*4), AX // plane 0's outputs from j
	MOVQ outP+72(FP), CX
	SHLQ $2, CX
	CMPB add+80(FP), $0
	JEQ dw4_store
	LEAQ (AX)(CX*2), BX
	VMOVUPS.Z (AX), K1, Z8
	VADDPS Z0, Z8, Z0 // dst + sum
	VMOVUPS.Z 64(AX), K2, Z9
	VADDPS Z1, Z9, Z1
	VMOVUPS.Z (AX)(CX*1), K1, Z10
	VADDPS Z2, Z10, Z2
	VMOVUPS.Z 64(AX)(CX*1), K2, Z11
	VADDPS Z3, Z11, Z3
	VMOVUPS.Z (BX), K1, Z12
	VADDPS Z4, Z12, Z4
	VMOVUPS.Z 64(BX), K2, Z13
	VADDPS Z5, Z13, Z5
	VMOVUPS.Z (BX)(CX*1), K1, Z14
	VADDPS Z6, Z14, Z6
	VMOVUPS.Z 64(BX)(CX*1), K2, Z15
	VADDPS Z7, Z15, Z7
dw4_store:
	VMOVUPS Z0, K1, (AX)
	VMOVUPS Z1, K2, 64(AX)
	VMOVUPS Z2, K1, (AX)(CX*1)
	VMOVUPS Z3, K2, 64(AX)(CX*1)
	LEAQ (AX)(CX*2), AX
	VMOVUPS Z4, K1, (AX)
	VMOVUPS Z5, K2, 64(AX)
	VMOVUPS Z6, K1, (AX)(CX*1)
	VMOVUPS Z7, K2, 64(AX)(CX*1)
	LEAQ 4(R13)(R11*4), R13 // the next pair's masks
	ADDQ $32, DX
	DECQ R10
	JNZ dw4_pair
	VZEROUPPER
	RET
