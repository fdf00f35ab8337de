;; matmul.wat — WebAssembly SIMD (f32x4) kernel for package kernel (github.com/deltaclue/deltaclue/engine/kernel).
;;
;; Build: wat2wasm matmul.wat -o matmul.wasm   (Debian wabt 1.0.32; see gen.go; TestWASMUpToDate checks it)
;;
;; The module owns no memory: it imports the Go program's linear memory as "go" "mem" and must therefore be
;; instantiated after the Go module, with {go: {mem: goInstance.exports.mem}}. It exports the kernel,
;;
;;   matmul_add(a, b, c, m, k, n: i32)
;;
;; where a, b, c are byte addresses of row-major float32 matrices a [m×k], b [k×n], c [m×n] in that memory.
;; It computes c += a·b exactly like the pure-Go kernel (and the naive triple loop): every c[i][j] is loaded once,
;; then for p = 0, 1, …, k-1 in that order the product a[i][p]*b[p][j], rounded to float32, is added to it
;; (f32x4.mul then f32x4.add, never a fused multiply-add: wasm has none outside relaxed-simd, which is not used),
;; and the result is stored. Blocking is only over i and j, never over p, so the results are bit-identical to Go's.
;;
;; Blocking: 4 rows × 8 columns (8 v128 accumulators kept in locals across the whole p loop, 2 v128 loads of b
;; and 4 v128.load32_splat of a per p). 4×16 (16 accumulators) was measured slower: V8 has 15 allocatable xmm
;; registers on x86-64, so it spills. Column tails use 4-, 2- (v128.load64_zero / store64_lane) and 1-wide
;; (load32_zero / store32_lane) blocks; the unused lanes compute garbage that is never stored, and nothing is
;; ever read or written outside the three matrices. Row tails (m mod 4) use the same blocks with one row.
;;
;; Beside the kernel it exports four element-wise loops of the engine, pack_cols, relu_rows, mask_positive and add_positive, two loops
;; that lay out the models' weights as a worker starts, transpose and scale_rows, and a convolution's window
;; gather and scatter by index, gather_idx and scatter_idx (at the end of this file), which compute the same bits
;; as their Go versions in package kernel (elementwise.go, layout.go, windows.go).
(module
  (import "go" "mem" (memory 0))

  (func (export "matmul_add")
    (param $a i32) (param $b i32) (param $c i32) (param $m i32) (param $k i32) (param $n i32)
    (local $sc i32) (local $w i32) (local $cols i32) (local $off i32)
    ;; The blocks run their p loop at least once; k = 0 means c += 0, so nothing to do.
    (if (i32.eqz (local.get $k)) (then (return)))
    (local.set $sc (i32.shl (local.get $n) (i32.const 2)))  ;; byte stride of b's and c's rows
    ;; A small a (at most 4096 values, 16 KiB) of more than 4 rows: strips of w columns (a multiple of 8, the
    ;; strip of b at most ~24 KiB), each multiplied by all of a, so that the strip of b stays in the L1 cache
    ;; from one block of rows to the next (a convolution's W [8 × 72] times its windows [72 × 784] ran at half
    ;; the kernel's rate row block by row block, b streamed from L2 for each). Only the order of the blocks
    ;; changes: every c[i][j] still adds its products in increasing p, so the bits do not.
    (if (i32.and (i32.gt_u (local.get $m) (i32.const 4)) (i32.le_u (i32.mul (local.get $m) (local.get $k)) (i32.const 4096))) (then
      (local.set $w (i32.and (i32.div_u (i32.const 6144) (local.get $k)) (i32.const -8)))
      (if (i32.lt_u (local.get $w) (i32.const 8)) (then (local.set $w (i32.const 8))))
      (local.set $off (i32.const 0))
      (block $strips_done
        (loop $strips
          (br_if $strips_done (i32.eqz (local.get $n)))
          (local.set $cols (select (local.get $w) (local.get $n) (i32.lt_u (local.get $w) (local.get $n))))
          (call $mm (local.get $a) (i32.add (local.get $b) (local.get $off)) (i32.add (local.get $c) (local.get $off))
                    (local.get $m) (local.get $k) (local.get $cols) (local.get $sc))
          (local.set $off (i32.add (local.get $off) (i32.shl (local.get $cols) (i32.const 2))))
          (local.set $n (i32.sub (local.get $n) (local.get $cols)))
          (br $strips)))
      (return)))
    (call $mm (local.get $a) (local.get $b) (local.get $c) (local.get $m) (local.get $k) (local.get $n) (local.get $sc))
  )

  ;; $mm: c += a·b for a [m×k] (rows k apart), b [k×n] and c [m×n] whose rows are $sc bytes apart; k >= 1.
  (func $mm
    (param $a i32) (param $b i32) (param $c i32) (param $m i32) (param $k i32) (param $n i32) (param $sc i32)
    (local $sa i32) (local $rows i32) (local $cols i32) (local $pa i32) (local $pc i32) (local $off i32)
    (local.set $sa (i32.shl (local.get $k) (i32.const 2)))  ;; byte stride of a's rows
    (local.set $pa (local.get $a))                          ;; &a[i][0]
    (local.set $pc (local.get $c))                          ;; &c[i][0]
    (local.set $rows (local.get $m))                        ;; rows left
    ;; Blocks of 4 rows.
    (block $rows4_done
      (loop $rows4
        (br_if $rows4_done (i32.lt_u (local.get $rows) (i32.const 4)))
        (local.set $cols (local.get $n))                    ;; columns left
        (local.set $off (i32.const 0))                      ;; j*4
        (block $cols8_done
          (loop $cols8
            (br_if $cols8_done (i32.lt_u (local.get $cols) (i32.const 8)))
            (call $blk4x8 (local.get $pa) (i32.add (local.get $b) (local.get $off)) (i32.add (local.get $pc) (local.get $off))
                          (local.get $k) (local.get $sa) (local.get $sc))
            (local.set $off (i32.add (local.get $off) (i32.const 32)))
            (local.set $cols (i32.sub (local.get $cols) (i32.const 8)))
            (br $cols8)))
        ;; Now cols < 8: at most one 4-, one 2- and one 1-wide block.
        (if (i32.ge_u (local.get $cols) (i32.const 4)) (then
          (call $blk4x4 (local.get $pa) (i32.add (local.get $b) (local.get $off)) (i32.add (local.get $pc) (local.get $off))
                        (local.get $k) (local.get $sa) (local.get $sc))
          (local.set $off (i32.add (local.get $off) (i32.const 16)))
          (local.set $cols (i32.sub (local.get $cols) (i32.const 4)))))
        (if (i32.ge_u (local.get $cols) (i32.const 2)) (then
          (call $blk4x2 (local.get $pa) (i32.add (local.get $b) (local.get $off)) (i32.add (local.get $pc) (local.get $off))
                        (local.get $k) (local.get $sa) (local.get $sc))
          (local.set $off (i32.add (local.get $off) (i32.const 8)))
          (local.set $cols (i32.sub (local.get $cols) (i32.const 2)))))
        (if (local.get $cols) (then
          (call $blk4x1 (local.get $pa) (i32.add (local.get $b) (local.get $off)) (i32.add (local.get $pc) (local.get $off))
                        (local.get $k) (local.get $sa) (local.get $sc))))
        (local.set $pa (i32.add (local.get $pa) (i32.shl (local.get $sa) (i32.const 2))))
        (local.set $pc (i32.add (local.get $pc) (i32.shl (local.get $sc) (i32.const 2))))
        (local.set $rows (i32.sub (local.get $rows) (i32.const 4)))
        (br $rows4)))
    ;; The last m mod 4 rows, one at a time.
    (block $rows1_done
      (loop $rows1
        (br_if $rows1_done (i32.eqz (local.get $rows)))
        (local.set $cols (local.get $n))
        (local.set $off (i32.const 0))
        (block $cols8_done
          (loop $cols8
            (br_if $cols8_done (i32.lt_u (local.get $cols) (i32.const 8)))
            (call $blk1x8 (local.get $pa) (i32.add (local.get $b) (local.get $off)) (i32.add (local.get $pc) (local.get $off))
                          (local.get $k) (local.get $sa) (local.get $sc))
            (local.set $off (i32.add (local.get $off) (i32.const 32)))
            (local.set $cols (i32.sub (local.get $cols) (i32.const 8)))
            (br $cols8)))
        (if (i32.ge_u (local.get $cols) (i32.const 4)) (then
          (call $blk1x4 (local.get $pa) (i32.add (local.get $b) (local.get $off)) (i32.add (local.get $pc) (local.get $off))
                        (local.get $k) (local.get $sa) (local.get $sc))
          (local.set $off (i32.add (local.get $off) (i32.const 16)))
          (local.set $cols (i32.sub (local.get $cols) (i32.const 4)))))
        (if (i32.ge_u (local.get $cols) (i32.const 2)) (then
          (call $blk1x2 (local.get $pa) (i32.add (local.get $b) (local.get $off)) (i32.add (local.get $pc) (local.get $off))
                        (local.get $k) (local.get $sa) (local.get $sc))
          (local.set $off (i32.add (local.get $off) (i32.const 8)))
          (local.set $cols (i32.sub (local.get $cols) (i32.const 2)))))
        (if (local.get $cols) (then
          (call $blk1x1 (local.get $pa) (i32.add (local.get $b) (local.get $off)) (i32.add (local.get $pc) (local.get $off))
                        (local.get $k) (local.get $sa) (local.get $sc))))
        (local.set $pa (i32.add (local.get $pa) (local.get $sa)))
        (local.set $pc (i32.add (local.get $pc) (local.get $sc)))
        (local.set $rows (i32.sub (local.get $rows) (i32.const 1)))
        (br $rows1)))
  )

  ;; The blocks. Each takes $pa = &a[i][0], $pb = &b[0][j], $pc = &c[i][j], the trip count $k >= 1, and the byte
  ;; strides $sa (a's rows) and $sc (b's and c's rows); it loads its c tile into accumulators, runs p = 0..k-1 in
  ;; order, and stores the tile back.

  ;; $blk4x8: c[0..4)[0..8) += a[0..4)[0..k) · b[0..k)[0..8)
  (func $blk4x8 (param $pa i32) (param $pb i32) (param $pc i32) (param $k i32) (param $sa i32) (param $sc i32)
    (local $acc00 v128) (local $acc01 v128)
    (local $acc10 v128) (local $acc11 v128)
    (local $acc20 v128) (local $acc21 v128)
    (local $acc30 v128) (local $acc31 v128)
    (local $b0 v128) (local $b1 v128) (local $s v128)
    (local $a1 i32) (local $a2 i32) (local $a3 i32)
    (local $c1 i32) (local $c2 i32) (local $c3 i32)
    (local.set $a1 (i32.add (local.get $pa) (local.get $sa)))
    (local.set $a2 (i32.add (local.get $a1) (local.get $sa)))
    (local.set $a3 (i32.add (local.get $a2) (local.get $sa)))
    (local.set $c1 (i32.add (local.get $pc) (local.get $sc)))
    (local.set $c2 (i32.add (local.get $c1) (local.get $sc)))
    (local.set $c3 (i32.add (local.get $c2) (local.get $sc)))
    (local.set $acc00 (v128.load align=4 (local.get $pc)))
    (local.set $acc01 (v128.load offset=16 align=4 (local.get $pc)))
    (local.set $acc10 (v128.load align=4 (local.get $c1)))
    (local.set $acc11 (v128.load offset=16 align=4 (local.get $c1)))
    (local.set $acc20 (v128.load align=4 (local.get $c2)))
    (local.set $acc21 (v128.load offset=16 align=4 (local.get $c2)))
    (local.set $acc30 (v128.load align=4 (local.get $c3)))
    (local.set $acc31 (v128.load offset=16 align=4 (local.get $c3)))
    (loop $p
      (local.set $b0 (v128.load align=4 (local.get $pb)))
      (local.set $b1 (v128.load offset=16 align=4 (local.get $pb)))
      (local.set $s (v128.load32_splat align=4 (local.get $pa)))
      (local.set $acc00 (f32x4.add (local.get $acc00) (f32x4.mul (local.get $s) (local.get $b0))))
      (local.set $acc01 (f32x4.add (local.get $acc01) (f32x4.mul (local.get $s) (local.get $b1))))
      (local.set $s (v128.load32_splat align=4 (local.get $a1)))
      (local.set $acc10 (f32x4.add (local.get $acc10) (f32x4.mul (local.get $s) (local.get $b0))))
      (local.set $acc11 (f32x4.add (local.get $acc11) (f32x4.mul (local.get $s) (local.get $b1))))
      (local.set $s (v128.load32_splat align=4 (local.get $a2)))
      (local.set $acc20 (f32x4.add (local.get $acc20) (f32x4.mul (local.get $s) (local.get $b0))))
      (local.set $acc21 (f32x4.add (local.get $acc21) (f32x4.mul (local.get $s) (local.get $b1))))
      (local.set $s (v128.load32_splat align=4 (local.get $a3)))
      (local.set $acc30 (f32x4.add (local.get $acc30) (f32x4.mul (local.get $s) (local.get $b0))))
      (local.set $acc31 (f32x4.add (local.get $acc31) (f32x4.mul (local.get $s) (local.get $b1))))
      (local.set $pa (i32.add (local.get $pa) (i32.const 4)))
      (local.set $a1 (i32.add (local.get $a1) (i32.const 4)))
      (local.set $a2 (i32.add (local.get $a2) (i32.const 4)))
      (local.set $a3 (i32.add (local.get $a3) (i32.const 4)))
      (local.set $pb (i32.add (local.get $pb) (local.get $sc)))
      (br_if $p (local.tee $k (i32.sub (local.get $k) (i32.const 1)))))
    (v128.store align=4 (local.get $pc) (local.get $acc00))
    (v128.store offset=16 align=4 (local.get $pc) (local.get $acc01))
    (v128.store align=4 (local.get $c1) (local.get $acc10))
    (v128.store offset=16 align=4 (local.get $c1) (local.get $acc11))
    (v128.store align=4 (local.get $c2) (local.get $acc20))
    (v128.store offset=16 align=4 (local.get $c2) (local.get $acc21))
    (v128.store align=4 (local.get $c3) (local.get $acc30))
    (v128.store offset=16 align=4 (local.get $c3) (local.get $acc31))
  )

  ;; $blk4x4: c[0..4)[0..4) += a[0..4)[0..k) · b[0..k)[0..4)
  (func $blk4x4 (param $pa i32) (param $pb i32) (param $pc i32) (param $k i32) (param $sa i32) (param $sc i32)
    (local $acc00 v128)
    (local $acc10 v128)
    (local $acc20 v128)
    (local $acc30 v128)
    (local $b0 v128) (local $s v128)
    (local $a1 i32) (local $a2 i32) (local $a3 i32)
    (local $c1 i32) (local $c2 i32) (local $c3 i32)
    (local.set $a1 (i32.add (local.get $pa) (local.get $sa)))
    (local.set $a2 (i32.add (local.get $a1) (local.get $sa)))
    (local.set $a3 (i32.add (local.get $a2) (local.get $sa)))
    (local.set $c1 (i32.add (local.get $pc) (local.get $sc)))
    (local.set $c2 (i32.add (local.get $c1) (local.get $sc)))
    (local.set $c3 (i32.add (local.get $c2) (local.get $sc)))
    (local.set $acc00 (v128.load align=4 (local.get $pc)))
    (local.set $acc10 (v128.load align=4 (local.get $c1)))
    (local.set $acc20 (v128.load align=4 (local.get $c2)))
    (local.set $acc30 (v128.load align=4 (local.get $c3)))
    (loop $p
      (local.set $b0 (v128.load align=4 (local.get $pb)))
      (local.set $s (v128.load32_splat align=4 (local.get $pa)))
      (local.set $acc00 (f32x4.add (local.get $acc00) (f32x4.mul (local.get $s) (local.get $b0))))
      (local.set $s (v128.load32_splat align=4 (local.get $a1)))
      (local.set $acc10 (f32x4.add (local.get $acc10) (f32x4.mul (local.get $s) (local.get $b0))))
      (local.set $s (v128.load32_splat align=4 (local.get $a2)))
      (local.set $acc20 (f32x4.add (local.get $acc20) (f32x4.mul (local.get $s) (local.get $b0))))
      (local.set $s (v128.load32_splat align=4 (local.get $a3)))
      (local.set $acc30 (f32x4.add (local.get $acc30) (f32x4.mul (local.get $s) (local.get $b0))))
      (local.set $pa (i32.add (local.get $pa) (i32.const 4)))
      (local.set $a1 (i32.add (local.get $a1) (i32.const 4)))
      (local.set $a2 (i32.add (local.get $a2) (i32.const 4)))
      (local.set $a3 (i32.add (local.get $a3) (i32.const 4)))
      (local.set $pb (i32.add (local.get $pb) (local.get $sc)))
      (br_if $p (local.tee $k (i32.sub (local.get $k) (i32.const 1)))))
    (v128.store align=4 (local.get $pc) (local.get $acc00))
    (v128.store align=4 (local.get $c1) (local.get $acc10))
    (v128.store align=4 (local.get $c2) (local.get $acc20))
    (v128.store align=4 (local.get $c3) (local.get $acc30))
  )

  ;; $blk4x2: c[0..4)[0..2) += a[0..4)[0..k) · b[0..k)[0..2)
  (func $blk4x2 (param $pa i32) (param $pb i32) (param $pc i32) (param $k i32) (param $sa i32) (param $sc i32)
    (local $acc00 v128)
    (local $acc10 v128)
    (local $acc20 v128)
    (local $acc30 v128)
    (local $b0 v128) (local $s v128)
    (local $a1 i32) (local $a2 i32) (local $a3 i32)
    (local $c1 i32) (local $c2 i32) (local $c3 i32)
    (local.set $a1 (i32.add (local.get $pa) (local.get $sa)))
    (local.set $a2 (i32.add (local.get $a1) (local.get $sa)))
    (local.set $a3 (i32.add (local.get $a2) (local.get $sa)))
    (local.set $c1 (i32.add (local.get $pc) (local.get $sc)))
    (local.set $c2 (i32.add (local.get $c1) (local.get $sc)))
    (local.set $c3 (i32.add (local.get $c2) (local.get $sc)))
    (local.set $acc00 (v128.load64_zero align=4 (local.get $pc)))
    (local.set $acc10 (v128.load64_zero align=4 (local.get $c1)))
    (local.set $acc20 (v128.load64_zero align=4 (local.get $c2)))
    (local.set $acc30 (v128.load64_zero align=4 (local.get $c3)))
    (loop $p
      (local.set $b0 (v128.load64_zero align=4 (local.get $pb)))
      (local.set $s (v128.load32_splat align=4 (local.get $pa)))
      (local.set $acc00 (f32x4.add (local.get $acc00) (f32x4.mul (local.get $s) (local.get $b0))))
      (local.set $s (v128.load32_splat align=4 (local.get $a1)))
      (local.set $acc10 (f32x4.add (local.get $acc10) (f32x4.mul (local.get $s) (local.get $b0))))
      (local.set $s (v128.load32_splat align=4 (local.get $a2)))
      (local.set $acc20 (f32x4.add (local.get $acc20) (f32x4.mul (local.get $s) (local.get $b0))))
      (local.set $s (v128.load32_splat align=4 (local.get $a3)))
      (local.set $acc30 (f32x4.add (local.get $acc30) (f32x4.mul (local.get $s) (local.get $b0))))
      (local.set $pa (i32.add (local.get $pa) (i32.const 4)))
      (local.set $a1 (i32.add (local.get $a1) (i32.const 4)))
      (local.set $a2 (i32.add (local.get $a2) (i32.const 4)))
      (local.set $a3 (i32.add (local.get $a3) (i32.const 4)))
      (local.set $pb (i32.add (local.get $pb) (local.get $sc)))
      (br_if $p (local.tee $k (i32.sub (local.get $k) (i32.const 1)))))
    (v128.store64_lane align=4 0 (local.get $pc) (local.get $acc00))
    (v128.store64_lane align=4 0 (local.get $c1) (local.get $acc10))
    (v128.store64_lane align=4 0 (local.get $c2) (local.get $acc20))
    (v128.store64_lane align=4 0 (local.get $c3) (local.get $acc30))
  )

  ;; $blk4x1: c[0..4)[0..1) += a[0..4)[0..k) · b[0..k)[0..1)
  (func $blk4x1 (param $pa i32) (param $pb i32) (param $pc i32) (param $k i32) (param $sa i32) (param $sc i32)
    (local $acc00 v128)
    (local $acc10 v128)
    (local $acc20 v128)
    (local $acc30 v128)
    (local $b0 v128) (local $s v128)
    (local $a1 i32) (local $a2 i32) (local $a3 i32)
    (local $c1 i32) (local $c2 i32) (local $c3 i32)
    (local.set $a1 (i32.add (local.get $pa) (local.get $sa)))
    (local.set $a2 (i32.add (local.get $a1) (local.get $sa)))
    (local.set $a3 (i32.add (local.get $a2) (local.get $sa)))
    (local.set $c1 (i32.add (local.get $pc) (local.get $sc)))
    (local.set $c2 (i32.add (local.get $c1) (local.get $sc)))
    (local.set $c3 (i32.add (local.get $c2) (local.get $sc)))
    (local.set $acc00 (v128.load32_zero align=4 (local.get $pc)))
    (local.set $acc10 (v128.load32_zero align=4 (local.get $c1)))
    (local.set $acc20 (v128.load32_zero align=4 (local.get $c2)))
    (local.set $acc30 (v128.load32_zero align=4 (local.get $c3)))
    (loop $p
      (local.set $b0 (v128.load32_zero align=4 (local.get $pb)))
      (local.set $s (v128.load32_splat align=4 (local.get $pa)))
      (local.set $acc00 (f32x4.add (local.get $acc00) (f32x4.mul (local.get $s) (local.get $b0))))
      (local.set $s (v128.load32_splat align=4 (local.get $a1)))
      (local.set $acc10 (f32x4.add (local.get $acc10) (f32x4.mul (local.get $s) (local.get $b0))))
      (local.set $s (v128.load32_splat align=4 (local.get $a2)))
      (local.set $acc20 (f32x4.add (local.get $acc20) (f32x4.mul (local.get $s) (local.get $b0))))
      (local.set $s (v128.load32_splat align=4 (local.get $a3)))
      (local.set $acc30 (f32x4.add (local.get $acc30) (f32x4.mul (local.get $s) (local.get $b0))))
      (local.set $pa (i32.add (local.get $pa) (i32.const 4)))
      (local.set $a1 (i32.add (local.get $a1) (i32.const 4)))
      (local.set $a2 (i32.add (local.get $a2) (i32.const 4)))
      (local.set $a3 (i32.add (local.get $a3) (i32.const 4)))
      (local.set $pb (i32.add (local.get $pb) (local.get $sc)))
      (br_if $p (local.tee $k (i32.sub (local.get $k) (i32.const 1)))))
    (v128.store32_lane align=4 0 (local.get $pc) (local.get $acc00))
    (v128.store32_lane align=4 0 (local.get $c1) (local.get $acc10))
    (v128.store32_lane align=4 0 (local.get $c2) (local.get $acc20))
    (v128.store32_lane align=4 0 (local.get $c3) (local.get $acc30))
  )

  ;; $blk1x8: c[0..1)[0..8) += a[0..1)[0..k) · b[0..k)[0..8)
  (func $blk1x8 (param $pa i32) (param $pb i32) (param $pc i32) (param $k i32) (param $sa i32) (param $sc i32)
    (local $acc00 v128) (local $acc01 v128)
    (local $b0 v128) (local $b1 v128) (local $s v128)
    (local.set $acc00 (v128.load align=4 (local.get $pc)))
    (local.set $acc01 (v128.load offset=16 align=4 (local.get $pc)))
    (loop $p
      (local.set $b0 (v128.load align=4 (local.get $pb)))
      (local.set $b1 (v128.load offset=16 align=4 (local.get $pb)))
      (local.set $s (v128.load32_splat align=4 (local.get $pa)))
      (local.set $acc00 (f32x4.add (local.get $acc00) (f32x4.mul (local.get $s) (local.get $b0))))
      (local.set $acc01 (f32x4.add (local.get $acc01) (f32x4.mul (local.get $s) (local.get $b1))))
      (local.set $pa (i32.add (local.get $pa) (i32.const 4)))
      (local.set $pb (i32.add (local.get $pb) (local.get $sc)))
      (br_if $p (local.tee $k (i32.sub (local.get $k) (i32.const 1)))))
    (v128.store align=4 (local.get $pc) (local.get $acc00))
    (v128.store offset=16 align=4 (local.get $pc) (local.get $acc01))
  )

  ;; $blk1x4: c[0..1)[0..4) += a[0..1)[0..k) · b[0..k)[0..4)
  (func $blk1x4 (param $pa i32) (param $pb i32) (param $pc i32) (param $k i32) (param $sa i32) (param $sc i32)
    (local $acc00 v128)
    (local $b0 v128) (local $s v128)
    (local.set $acc00 (v128.load align=4 (local.get $pc)))
    (loop $p
      (local.set $b0 (v128.load align=4 (local.get $pb)))
      (local.set $s (v128.load32_splat align=4 (local.get $pa)))
      (local.set $acc00 (f32x4.add (local.get $acc00) (f32x4.mul (local.get $s) (local.get $b0))))
      (local.set $pa (i32.add (local.get $pa) (i32.const 4)))
      (local.set $pb (i32.add (local.get $pb) (local.get $sc)))
      (br_if $p (local.tee $k (i32.sub (local.get $k) (i32.const 1)))))
    (v128.store align=4 (local.get $pc) (local.get $acc00))
  )

  ;; $blk1x2: c[0..1)[0..2) += a[0..1)[0..k) · b[0..k)[0..2)
  (func $blk1x2 (param $pa i32) (param $pb i32) (param $pc i32) (param $k i32) (param $sa i32) (param $sc i32)
    (local $acc00 v128)
    (local $b0 v128) (local $s v128)
    (local.set $acc00 (v128.load64_zero align=4 (local.get $pc)))
    (loop $p
      (local.set $b0 (v128.load64_zero align=4 (local.get $pb)))
      (local.set $s (v128.load32_splat align=4 (local.get $pa)))
      (local.set $acc00 (f32x4.add (local.get $acc00) (f32x4.mul (local.get $s) (local.get $b0))))
      (local.set $pa (i32.add (local.get $pa) (i32.const 4)))
      (local.set $pb (i32.add (local.get $pb) (local.get $sc)))
      (br_if $p (local.tee $k (i32.sub (local.get $k) (i32.const 1)))))
    (v128.store64_lane align=4 0 (local.get $pc) (local.get $acc00))
  )

  ;; $blk1x1: c[0..1)[0..1) += a[0..1)[0..k) · b[0..k)[0..1)
  (func $blk1x1 (param $pa i32) (param $pb i32) (param $pc i32) (param $k i32) (param $sa i32) (param $sc i32)
    (local $acc00 v128)
    (local $b0 v128) (local $s v128)
    (local.set $acc00 (v128.load32_zero align=4 (local.get $pc)))
    (loop $p
      (local.set $b0 (v128.load32_zero align=4 (local.get $pb)))
      (local.set $s (v128.load32_splat align=4 (local.get $pa)))
      (local.set $acc00 (f32x4.add (local.get $acc00) (f32x4.mul (local.get $s) (local.get $b0))))
      (local.set $pa (i32.add (local.get $pa) (i32.const 4)))
      (local.set $pb (i32.add (local.get $pb) (local.get $sc)))
      (br_if $p (local.tee $k (i32.sub (local.get $k) (i32.const 1)))))
    (v128.store32_lane align=4 0 (local.get $pc) (local.get $acc00))
  )

  ;; ---- element-wise work beside the kernel ----
  ;;
  ;; Loops the engine runs at every step, which engines run slowly as compiled Go (JavaScriptCore especially). Each
  ;; computes exactly what its pure-Go version in package kernel computes, with integer operations on the floats'
  ;; bits and comparisons: nothing is rounded.

  ;; pack_cols(dst, src, idx, rows, w, n): for each row i < rows in turn and t < n, dst[i·n + t] = src[i·w + idx[t]],
  ;; bits and all (integer loads and stores): a compaction packing a batch's active columns, one call for the
  ;; batch. In place (dst = src) when idx is increasing: i·n + t ≤ i·w + idx[t], so nothing is overwritten before
  ;; it is read. The caller checked the sizes and every index. Four values a turn, then the row's tail.
  (func (export "pack_cols") (param $dst i32) (param $src i32) (param $idx i32) (param $rows i32) (param $w i32) (param $n i32)
    (local $i i32) (local $p i32) (local $end i32) (local $end4 i32) (local $rowBytes i32)
    (local.set $rowBytes (i32.shl (local.get $w) (i32.const 2)))
    (local.set $end (i32.add (local.get $idx) (i32.shl (local.get $n) (i32.const 2))))
    (local.set $end4 (i32.add (local.get $idx) (i32.shl (i32.and (local.get $n) (i32.const -4)) (i32.const 2))))
    (block $done
      (loop $row
        (br_if $done (i32.ge_u (local.get $i) (local.get $rows)))
        (local.set $p (local.get $idx))
        (block $fours_done
          (loop $fours
            (br_if $fours_done (i32.ge_u (local.get $p) (local.get $end4)))
            (i32.store align=4 (local.get $dst)
              (i32.load align=4 (i32.add (local.get $src) (i32.shl (i32.load align=4 (local.get $p)) (i32.const 2)))))
            (i32.store offset=4 align=4 (local.get $dst)
              (i32.load align=4 (i32.add (local.get $src) (i32.shl (i32.load offset=4 align=4 (local.get $p)) (i32.const 2)))))
            (i32.store offset=8 align=4 (local.get $dst)
              (i32.load align=4 (i32.add (local.get $src) (i32.shl (i32.load offset=8 align=4 (local.get $p)) (i32.const 2)))))
            (i32.store offset=12 align=4 (local.get $dst)
              (i32.load align=4 (i32.add (local.get $src) (i32.shl (i32.load offset=12 align=4 (local.get $p)) (i32.const 2)))))
            (local.set $p (i32.add (local.get $p) (i32.const 16)))
            (local.set $dst (i32.add (local.get $dst) (i32.const 16)))
            (br $fours)))
        (block $tail_done
          (loop $tail
            (br_if $tail_done (i32.ge_u (local.get $p) (local.get $end)))
            (i32.store align=4 (local.get $dst)
              (i32.load align=4 (i32.add (local.get $src) (i32.shl (i32.load align=4 (local.get $p)) (i32.const 2)))))
            (local.set $p (i32.add (local.get $p) (i32.const 4)))
            (local.set $dst (i32.add (local.get $dst) (i32.const 4)))
            (br $tail)))
        (local.set $src (i32.add (local.get $src) (local.get $rowBytes)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $row)))
  )

  ;; relu_rows(in, dst, acc, rows, w): for every row i < rows and column j < w (row-major, stride w), with u the
  ;; bits of in[i][j] and r = u &^ (neg &^ nan) (neg: all ones if u's sign bit is set; nan: all ones if u is a
  ;; NaN), dst[i][j] = r and acc[j] |= r. in and dst may be the same matrix.
  (func (export "relu_rows") (param $in i32) (param $dst i32) (param $acc i32) (param $rows i32) (param $w i32)
    (local $j i32) (local $w4 i32) (local $u v128) (local $r v128) (local $su i32) (local $sr i32)
    (local.set $w4 (i32.and (local.get $w) (i32.const -4)))  ;; the columns done four at a time
    (block $done
      (loop $row
        (br_if $done (i32.eqz (local.get $rows)))
        (local.set $j (i32.const 0))
        (block $vec_done
          (loop $vec
            (br_if $vec_done (i32.ge_u (local.get $j) (local.get $w4)))
            (local.set $u (v128.load align=4 (i32.add (local.get $in) (i32.shl (local.get $j) (i32.const 2)))))
            (local.set $r (v128.andnot (local.get $u)
              (v128.andnot
                (i32x4.shr_s (local.get $u) (i32.const 31))
                (i32x4.shr_s (i32x4.sub (v128.const i32x4 0x7f800000 0x7f800000 0x7f800000 0x7f800000)
                                        (v128.and (local.get $u) (v128.const i32x4 0x7fffffff 0x7fffffff 0x7fffffff 0x7fffffff)))
                             (i32.const 31)))))
            (v128.store align=4 (i32.add (local.get $dst) (i32.shl (local.get $j) (i32.const 2))) (local.get $r))
            (v128.store align=4 (i32.add (local.get $acc) (i32.shl (local.get $j) (i32.const 2)))
              (v128.or (v128.load align=4 (i32.add (local.get $acc) (i32.shl (local.get $j) (i32.const 2)))) (local.get $r)))
            (local.set $j (i32.add (local.get $j) (i32.const 4)))
            (br $vec)))
        (block $tail_done
          (loop $tail
            (br_if $tail_done (i32.ge_u (local.get $j) (local.get $w)))
            (local.set $su (i32.load align=4 (i32.add (local.get $in) (i32.shl (local.get $j) (i32.const 2)))))
            (local.set $sr (i32.and (local.get $su)
              (i32.xor (i32.and
                (i32.shr_s (local.get $su) (i32.const 31))
                (i32.xor (i32.shr_s (i32.sub (i32.const 0x7f800000) (i32.and (local.get $su) (i32.const 0x7fffffff))) (i32.const 31))
                         (i32.const -1)))
                (i32.const -1))))
            (i32.store align=4 (i32.add (local.get $dst) (i32.shl (local.get $j) (i32.const 2))) (local.get $sr))
            (i32.store align=4 (i32.add (local.get $acc) (i32.shl (local.get $j) (i32.const 2)))
              (i32.or (i32.load align=4 (i32.add (local.get $acc) (i32.shl (local.get $j) (i32.const 2)))) (local.get $sr)))
            (local.set $j (i32.add (local.get $j) (i32.const 1)))
            (br $tail)))
        (local.set $in (i32.add (local.get $in) (i32.shl (local.get $w) (i32.const 2))))
        (local.set $dst (i32.add (local.get $dst) (i32.shl (local.get $w) (i32.const 2))))
        (local.set $rows (i32.sub (local.get $rows) (i32.const 1)))
        (br $row)))
  )

  ;; mask_positive(dx, d, h, n): for t < n, dx[t] = d[t] where h[t] > 0 and +0 elsewhere (a NaN h included): the
  ;; bits of d[t] and-ed with all ones or none. dx may be d.
  (func (export "mask_positive") (param $dx i32) (param $d i32) (param $h i32) (param $n i32)
    (local $t i32) (local $n4 i32) (local $o i32)
    (local.set $n4 (i32.and (local.get $n) (i32.const -4)))
    (block $vec_done
      (loop $vec
        (br_if $vec_done (i32.ge_u (local.get $t) (local.get $n4)))
        (local.set $o (i32.shl (local.get $t) (i32.const 2)))
        (v128.store align=4 (i32.add (local.get $dx) (local.get $o))
          (v128.and (v128.load align=4 (i32.add (local.get $d) (local.get $o)))
                    (f32x4.gt (v128.load align=4 (i32.add (local.get $h) (local.get $o))) (v128.const f32x4 0 0 0 0))))
        (local.set $t (i32.add (local.get $t) (i32.const 4)))
        (br $vec)))
    (block $tail_done
      (loop $tail
        (br_if $tail_done (i32.ge_u (local.get $t) (local.get $n)))
        (local.set $o (i32.shl (local.get $t) (i32.const 2)))
        (i32.store align=4 (i32.add (local.get $dx) (local.get $o))
          (select (i32.load align=4 (i32.add (local.get $d) (local.get $o))) (i32.const 0)
                  (f32.gt (f32.load align=4 (i32.add (local.get $h) (local.get $o))) (f32.const 0))))
        (local.set $t (i32.add (local.get $t) (i32.const 1)))
        (br $tail)))
  )

  ;; add_to(dst, a, b, n): for t < n, dst[t] = a[t] + b[t], one float32 addition a lane (f32x4.add), a first:
  ;; the bits of AddTo's former product by one (c = a, then c + 1·b; 1·b is b), without its call per 8 columns.
  ;; dst may be a or b (each lane is read before it is written).
  (func (export "add_to") (param $dst i32) (param $a i32) (param $b i32) (param $n i32)
    (local $o i32) (local $end i32) (local $end8 i32)
    (local.set $end (i32.shl (local.get $n) (i32.const 2)))
    (local.set $end8 (i32.and (local.get $end) (i32.const -32)))
    (block $vec_done
      (loop $vec
        (br_if $vec_done (i32.ge_u (local.get $o) (local.get $end8)))
        (v128.store align=4 (i32.add (local.get $dst) (local.get $o))
          (f32x4.add (v128.load align=4 (i32.add (local.get $a) (local.get $o))) (v128.load align=4 (i32.add (local.get $b) (local.get $o)))))
        (v128.store offset=16 align=4 (i32.add (local.get $dst) (local.get $o))
          (f32x4.add (v128.load offset=16 align=4 (i32.add (local.get $a) (local.get $o))) (v128.load offset=16 align=4 (i32.add (local.get $b) (local.get $o)))))
        (local.set $o (i32.add (local.get $o) (i32.const 32)))
        (br $vec)))
    (block $tail_done
      (loop $tail
        (br_if $tail_done (i32.ge_u (local.get $o) (local.get $end)))
        (f32.store align=4 (i32.add (local.get $dst) (local.get $o))
          (f32.add (f32.load align=4 (i32.add (local.get $a) (local.get $o))) (f32.load align=4 (i32.add (local.get $b) (local.get $o)))))
        (local.set $o (i32.add (local.get $o) (i32.const 4)))
        (br $tail)))
  )

  ;; l1_rows(x, t, out, rows, cols, stride): for each row r < rows, out[r] = the float32 rounding of the float64 sum,
  ;; from +0 in column order, of |x[r][j] − t[r·stride + j]| (x's rows cols floats apart): the engine's L1 distance
  ;; (l1Op), term by term as Go computes it (the float32 difference, its magnitude, widened exactly; f32.abs gives
  ;; +0 for a -0 difference where Go keeps -0, which adds to the sum, never -0, as +0 does). Two rows at a time:
  ;; two chains of additions, each waiting on the adder's latency only.
  (func (export "l1_rows") (param $x i32) (param $t i32) (param $out i32) (param $rows i32) (param $cols i32) (param $stride i32)
    (local $x1 i32) (local $t1 i32) (local $o i32) (local $end i32) (local $d0 f64) (local $d1 f64) (local $sx i32) (local $st i32)
    (local.set $sx (i32.shl (local.get $cols) (i32.const 2)))
    (local.set $st (i32.shl (local.get $stride) (i32.const 2)))
    (local.set $end (local.get $sx))
    (block $pairs_done
      (loop $pairs
        (br_if $pairs_done (i32.lt_u (local.get $rows) (i32.const 2)))
        (local.set $x1 (i32.add (local.get $x) (local.get $sx)))
        (local.set $t1 (i32.add (local.get $t) (local.get $st)))
        (local.set $d0 (f64.const 0))
        (local.set $d1 (f64.const 0))
        (local.set $o (i32.const 0))
        (block $cols_done
          (loop $c
            (br_if $cols_done (i32.ge_u (local.get $o) (local.get $end)))
            (local.set $d0 (f64.add (local.get $d0) (f64.promote_f32 (f32.abs (f32.sub
              (f32.load align=4 (i32.add (local.get $x) (local.get $o))) (f32.load align=4 (i32.add (local.get $t) (local.get $o))))))))
            (local.set $d1 (f64.add (local.get $d1) (f64.promote_f32 (f32.abs (f32.sub
              (f32.load align=4 (i32.add (local.get $x1) (local.get $o))) (f32.load align=4 (i32.add (local.get $t1) (local.get $o))))))))
            (local.set $o (i32.add (local.get $o) (i32.const 4)))
            (br $c)))
        (f32.store align=4 (local.get $out) (f32.demote_f64 (local.get $d0)))
        (f32.store offset=4 align=4 (local.get $out) (f32.demote_f64 (local.get $d1)))
        (local.set $x (i32.add (local.get $x1) (local.get $sx)))
        (local.set $t (i32.add (local.get $t1) (local.get $st)))
        (local.set $out (i32.add (local.get $out) (i32.const 8)))
        (local.set $rows (i32.sub (local.get $rows) (i32.const 2)))
        (br $pairs)))
    (if (local.get $rows) (then
      (local.set $d0 (f64.const 0))
      (local.set $o (i32.const 0))
      (block $cols_done
        (loop $c
          (br_if $cols_done (i32.ge_u (local.get $o) (local.get $end)))
          (local.set $d0 (f64.add (local.get $d0) (f64.promote_f32 (f32.abs (f32.sub
            (f32.load align=4 (i32.add (local.get $x) (local.get $o))) (f32.load align=4 (i32.add (local.get $t) (local.get $o))))))))
          (local.set $o (i32.add (local.get $o) (i32.const 4)))
          (br $c)))
      (f32.store align=4 (local.get $out) (f32.demote_f64 (local.get $d0)))))
  )

  ;; l1_grad(dx, x, t, g, rows, cols, stride): for each row r < rows and column j < cols, dx[r][j] += g[r] where
  ;; x[r][j] > t[r·stride + j], −= g[r] where it is less, and is untouched otherwise (equal, or a NaN): l1Op's
  ;; backward, each lane's sum and difference kept or not by the comparisons' masks.
  (func (export "l1_grad") (param $dx i32) (param $x i32) (param $t i32) (param $g i32) (param $rows i32) (param $cols i32) (param $stride i32)
    (local $o i32) (local $end i32) (local $end4 i32) (local $sx i32) (local $st i32)
    (local $s v128) (local $v v128) (local $w v128) (local $d v128) (local $gs f32) (local $xs f32) (local $ts f32)
    (local.set $sx (i32.shl (local.get $cols) (i32.const 2)))
    (local.set $st (i32.shl (local.get $stride) (i32.const 2)))
    (local.set $end (local.get $sx))
    (local.set $end4 (i32.and (local.get $sx) (i32.const -16)))
    (block $done
      (loop $row
        (br_if $done (i32.eqz (local.get $rows)))
        (local.set $gs (f32.load align=4 (local.get $g)))
        (local.set $s (f32x4.splat (local.get $gs)))
        (local.set $o (i32.const 0))
        (block $vec_done
          (loop $vec
            (br_if $vec_done (i32.ge_u (local.get $o) (local.get $end4)))
            (local.set $v (v128.load align=4 (i32.add (local.get $x) (local.get $o))))
            (local.set $w (v128.load align=4 (i32.add (local.get $t) (local.get $o))))
            (local.set $d (v128.load align=4 (i32.add (local.get $dx) (local.get $o))))
            (v128.store align=4 (i32.add (local.get $dx) (local.get $o))
              (v128.bitselect (f32x4.add (local.get $d) (local.get $s))
                (v128.bitselect (f32x4.sub (local.get $d) (local.get $s)) (local.get $d) (f32x4.lt (local.get $v) (local.get $w)))
                (f32x4.gt (local.get $v) (local.get $w))))
            (local.set $o (i32.add (local.get $o) (i32.const 16)))
            (br $vec)))
        (block $tail_done
          (loop $tail
            (br_if $tail_done (i32.ge_u (local.get $o) (local.get $end)))
            (local.set $xs (f32.load align=4 (i32.add (local.get $x) (local.get $o))))
            (local.set $ts (f32.load align=4 (i32.add (local.get $t) (local.get $o))))
            (if (f32.gt (local.get $xs) (local.get $ts))
              (then (f32.store align=4 (i32.add (local.get $dx) (local.get $o))
                      (f32.add (f32.load align=4 (i32.add (local.get $dx) (local.get $o))) (local.get $gs)))))
            (if (f32.lt (local.get $xs) (local.get $ts))
              (then (f32.store align=4 (i32.add (local.get $dx) (local.get $o))
                      (f32.sub (f32.load align=4 (i32.add (local.get $dx) (local.get $o))) (local.get $gs)))))
            (local.set $o (i32.add (local.get $o) (i32.const 4)))
            (br $tail)))
        (local.set $dx (i32.add (local.get $dx) (local.get $sx)))
        (local.set $x (i32.add (local.get $x) (local.get $sx)))
        (local.set $t (i32.add (local.get $t) (local.get $st)))
        (local.set $g (i32.add (local.get $g) (i32.const 4)))
        (local.set $rows (i32.sub (local.get $rows) (i32.const 1)))
        (br $row)))
  )

  ;; ---- laying out the weights as a worker starts ----
  ;;
  ;; A worker runs these once per layer before its first search, in code the browser has only just compiled,
  ;; where the same loops as compiled Go took a third of the worker's start (measured under Node).

  ;; transpose(src, dst, rows, cols): dst[j][i] = src[i][j] for i < rows, j < cols (src row-major [rows×cols],
  ;; dst [cols×rows]); the bits are copied, NaNs included. Four rows at a time: four values of a column of src
  ;; (four lane loads) make one store into a row of dst. src and dst do not overlap.
  (func (export "transpose") (param $src i32) (param $dst i32) (param $rows i32) (param $cols i32)
    (local $i i32) (local $r4 i32) (local $j i32) (local $s i32) (local $d i32) (local $cs i32) (local $rs i32)
    (local.set $cs (i32.shl (local.get $cols) (i32.const 2)))  ;; a row of src, in bytes
    (local.set $rs (i32.shl (local.get $rows) (i32.const 2)))  ;; a row of dst, in bytes
    (local.set $r4 (i32.and (local.get $rows) (i32.const -4)))
    (block $quads_done
      (loop $quads
        (br_if $quads_done (i32.ge_u (local.get $i) (local.get $r4)))
        (local.set $s (i32.add (local.get $src) (i32.mul (local.get $i) (local.get $cs))))
        (local.set $d (i32.add (local.get $dst) (i32.shl (local.get $i) (i32.const 2))))
        (local.set $j (local.get $cols))
        (block $cols_done
          (loop $col
            (br_if $cols_done (i32.eqz (local.get $j)))
            (v128.store align=4 (local.get $d)
              (v128.load32_lane align=4 3 (i32.add (local.get $s) (i32.mul (local.get $cs) (i32.const 3)))
                (v128.load32_lane align=4 2 (i32.add (local.get $s) (i32.shl (local.get $cs) (i32.const 1)))
                  (v128.load32_lane align=4 1 (i32.add (local.get $s) (local.get $cs))
                    (v128.load32_zero align=4 (local.get $s))))))
            (local.set $s (i32.add (local.get $s) (i32.const 4)))
            (local.set $d (i32.add (local.get $d) (local.get $rs)))
            (local.set $j (i32.sub (local.get $j) (i32.const 1)))
            (br $col)))
        (local.set $i (i32.add (local.get $i) (i32.const 4)))
        (br $quads)))
    (block $rows_done
      (loop $row
        (br_if $rows_done (i32.ge_u (local.get $i) (local.get $rows)))
        (local.set $s (i32.add (local.get $src) (i32.mul (local.get $i) (local.get $cs))))
        (local.set $d (i32.add (local.get $dst) (i32.shl (local.get $i) (i32.const 2))))
        (local.set $j (local.get $cols))
        (block $tail_done
          (loop $tail
            (br_if $tail_done (i32.eqz (local.get $j)))
            (i32.store align=4 (local.get $d) (i32.load align=4 (local.get $s)))
            (local.set $s (i32.add (local.get $s) (i32.const 4)))
            (local.set $d (i32.add (local.get $d) (local.get $rs)))
            (local.set $j (i32.sub (local.get $j) (i32.const 1)))
            (br $tail)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $row)))
  )

  ;; scale_rows(src, dst, m, rows, cols): dst[i][j] = m[i]·src[i][j], the float32 product rounded once (f32x4.mul
  ;; or f32.mul, as Go's float32 multiplication), for i < rows, j < cols, row-major with stride cols. dst may be
  ;; src.
  (func (export "scale_rows") (param $src i32) (param $dst i32) (param $m i32) (param $rows i32) (param $cols i32)
    (local $j i32) (local $c4 i32) (local $o i32) (local $mv v128) (local $ms f32)
    (local.set $c4 (i32.and (local.get $cols) (i32.const -4)))
    (block $done
      (loop $row
        (br_if $done (i32.eqz (local.get $rows)))
        (local.set $ms (f32.load align=4 (local.get $m)))
        (local.set $mv (f32x4.splat (local.get $ms)))
        (local.set $j (i32.const 0))
        (block $vec_done
          (loop $vec
            (br_if $vec_done (i32.ge_u (local.get $j) (local.get $c4)))
            (local.set $o (i32.shl (local.get $j) (i32.const 2)))
            (v128.store align=4 (i32.add (local.get $dst) (local.get $o))
              (f32x4.mul (local.get $mv) (v128.load align=4 (i32.add (local.get $src) (local.get $o)))))
            (local.set $j (i32.add (local.get $j) (i32.const 4)))
            (br $vec)))
        (block $tail_done
          (loop $tail
            (br_if $tail_done (i32.ge_u (local.get $j) (local.get $cols)))
            (local.set $o (i32.shl (local.get $j) (i32.const 2)))
            (f32.store align=4 (i32.add (local.get $dst) (local.get $o))
              (f32.mul (local.get $ms) (f32.load align=4 (i32.add (local.get $src) (local.get $o)))))
            (local.set $j (i32.add (local.get $j) (i32.const 1)))
            (br $tail)))
        (local.set $src (i32.add (local.get $src) (i32.shl (local.get $cols) (i32.const 2))))
        (local.set $dst (i32.add (local.get $dst) (i32.shl (local.get $cols) (i32.const 2))))
        (local.set $m (i32.add (local.get $m) (i32.const 4)))
        (local.set $rows (i32.sub (local.get $rows) (i32.const 1)))
        (br $row)))
  )

  ;; ==== image layers ====
  ;; What follows only convolutional models call: matmul_dense.wasm, the kernel a site ships for dense models
  ;; (the digits'), is this module without it (mkwasm.go cuts the text at this line's marker).

  ;; add_positive(dx, d, h, n): for t < n, dx[t] += d[t] where h[t] > 0, dx[t] untouched elsewhere (a NaN h
  ;; included): the sum's lanes are kept by the comparison's mask, the others keep dx's bits.
  (func (export "add_positive") (param $dx i32) (param $d i32) (param $h i32) (param $n i32)
    (local $t i32) (local $n4 i32) (local $o i32) (local $x v128)
    (local.set $n4 (i32.and (local.get $n) (i32.const -4)))
    (block $vec_done
      (loop $vec
        (br_if $vec_done (i32.ge_u (local.get $t) (local.get $n4)))
        (local.set $o (i32.shl (local.get $t) (i32.const 2)))
        (local.set $x (v128.load align=4 (i32.add (local.get $dx) (local.get $o))))
        (v128.store align=4 (i32.add (local.get $dx) (local.get $o))
          (v128.bitselect (f32x4.add (local.get $x) (v128.load align=4 (i32.add (local.get $d) (local.get $o))))
                          (local.get $x)
                          (f32x4.gt (v128.load align=4 (i32.add (local.get $h) (local.get $o))) (v128.const f32x4 0 0 0 0))))
        (local.set $t (i32.add (local.get $t) (i32.const 4)))
        (br $vec)))
    (block $tail_done
      (loop $tail
        (br_if $tail_done (i32.ge_u (local.get $t) (local.get $n)))
        (local.set $o (i32.shl (local.get $t) (i32.const 2)))
        (if (f32.gt (f32.load align=4 (i32.add (local.get $h) (local.get $o))) (f32.const 0))
          (then (f32.store align=4 (i32.add (local.get $dx) (local.get $o))
                  (f32.add (f32.load align=4 (i32.add (local.get $dx) (local.get $o)))
                           (f32.load align=4 (i32.add (local.get $d) (local.get $o)))))))
        (local.set $t (i32.add (local.get $t) (i32.const 1)))
        (br $tail)))
  )

  ;; relu(in, dst, n): for t < n, with u the bits of in[t], dst[t] = u &^ (neg &^ nan): relu_rows' values without
  ;; its columns' OR (a ReLU whose output nothing packs: half the memory traffic). in and dst may be the same.
  (func (export "relu") (param $in i32) (param $dst i32) (param $n i32)
    (local $o i32) (local $end i32) (local $end4 i32) (local $u v128) (local $su i32)
    (local.set $end (i32.shl (local.get $n) (i32.const 2)))
    (local.set $end4 (i32.and (local.get $end) (i32.const -16)))
    (block $vec_done
      (loop $vec
        (br_if $vec_done (i32.ge_u (local.get $o) (local.get $end4)))
        (local.set $u (v128.load align=4 (i32.add (local.get $in) (local.get $o))))
        (v128.store align=4 (i32.add (local.get $dst) (local.get $o))
          (v128.andnot (local.get $u)
            (v128.andnot
              (i32x4.shr_s (local.get $u) (i32.const 31))
              (i32x4.shr_s (i32x4.sub (v128.const i32x4 0x7f800000 0x7f800000 0x7f800000 0x7f800000)
                                      (v128.and (local.get $u) (v128.const i32x4 0x7fffffff 0x7fffffff 0x7fffffff 0x7fffffff)))
                           (i32.const 31)))))
        (local.set $o (i32.add (local.get $o) (i32.const 16)))
        (br $vec)))
    (block $tail_done
      (loop $tail
        (br_if $tail_done (i32.ge_u (local.get $o) (local.get $end)))
        (local.set $su (i32.load align=4 (i32.add (local.get $in) (local.get $o))))
        (i32.store align=4 (i32.add (local.get $dst) (local.get $o))
          (i32.and (local.get $su)
            (i32.xor (i32.and
              (i32.shr_s (local.get $su) (i32.const 31))
              (i32.xor (i32.shr_s (i32.sub (i32.const 0x7f800000) (i32.and (local.get $su) (i32.const 0x7fffffff))) (i32.const 31))
                       (i32.const -1)))
              (i32.const -1))))
        (local.set $o (i32.add (local.get $o) (i32.const 4)))
        (br $tail)))
  )

  ;; mean_planes(src, dst, planes, size, n): for p < planes, dst[p] = (the float32 sum, from +0 in order, of the
  ;; size values src[p·size …]) / n: a global average pool's outputs (avgPoolOp's loop where its one window is the
  ;; whole plane). Four planes at a time, one a lane (each lane's additions in its plane's order), then one at a
  ;; time.
  (func (export "mean_planes") (param $src i32) (param $dst i32) (param $planes i32) (param $size i32) (param $n f32)
    (local $p0 i32) (local $p1 i32) (local $p2 i32) (local $p3 i32) (local $ss i32) (local $k i32)
    (local $acc v128) (local $v v128) (local $s f32)
    (local.set $ss (i32.shl (local.get $size) (i32.const 2)))
    (block $quads_done
      (loop $quads
        (br_if $quads_done (i32.lt_u (local.get $planes) (i32.const 4)))
        (local.set $p0 (local.get $src))
        (local.set $p1 (i32.add (local.get $p0) (local.get $ss)))
        (local.set $p2 (i32.add (local.get $p1) (local.get $ss)))
        (local.set $p3 (i32.add (local.get $p2) (local.get $ss)))
        (local.set $acc (v128.const f32x4 0 0 0 0))
        (local.set $k (local.get $size))
        (block $sum_done
          (loop $sum
            (br_if $sum_done (i32.eqz (local.get $k)))
            (local.set $v (v128.load32_zero align=4 (local.get $p0)))
            (local.set $v (v128.load32_lane align=4 1 (local.get $p1) (local.get $v)))
            (local.set $v (v128.load32_lane align=4 2 (local.get $p2) (local.get $v)))
            (local.set $v (v128.load32_lane align=4 3 (local.get $p3) (local.get $v)))
            (local.set $acc (f32x4.add (local.get $acc) (local.get $v)))
            (local.set $p0 (i32.add (local.get $p0) (i32.const 4)))
            (local.set $p1 (i32.add (local.get $p1) (i32.const 4)))
            (local.set $p2 (i32.add (local.get $p2) (i32.const 4)))
            (local.set $p3 (i32.add (local.get $p3) (i32.const 4)))
            (local.set $k (i32.sub (local.get $k) (i32.const 1)))
            (br $sum)))
        (v128.store align=4 (local.get $dst) (f32x4.div (local.get $acc) (f32x4.splat (local.get $n))))
        (local.set $src (local.get $p3))
        (local.set $dst (i32.add (local.get $dst) (i32.const 16)))
        (local.set $planes (i32.sub (local.get $planes) (i32.const 4)))
        (br $quads)))
    (block $done
      (loop $plane
        (br_if $done (i32.eqz (local.get $planes)))
        (local.set $s (f32.const 0))
        (local.set $k (local.get $size))
        (block $sum_done
          (loop $sum
            (br_if $sum_done (i32.eqz (local.get $k)))
            (local.set $s (f32.add (local.get $s) (f32.load align=4 (local.get $src))))
            (local.set $src (i32.add (local.get $src) (i32.const 4)))
            (local.set $k (i32.sub (local.get $k) (i32.const 1)))
            (br $sum)))
        (f32.store align=4 (local.get $dst) (f32.div (local.get $s) (local.get $n)))
        (local.set $dst (i32.add (local.get $dst) (i32.const 4)))
        (local.set $planes (i32.sub (local.get $planes) (i32.const 1)))
        (br $plane)))
  )

  ;; add_planes(dst, src, planes, size, n): for p < planes, d = src[p] / n, then dst[p·size + t] += d for t < size:
  ;; a global average pool's backward (avgPoolOp's), four values a lane at a time and the plane's tail one by one.
  (func (export "add_planes") (param $dst i32) (param $src i32) (param $planes i32) (param $size i32) (param $n f32)
    (local $d f32) (local $s v128) (local $o i32) (local $end i32) (local $end4 i32)
    (local.set $end (i32.shl (local.get $size) (i32.const 2)))
    (local.set $end4 (i32.and (local.get $end) (i32.const -16)))
    (block $done
      (loop $plane
        (br_if $done (i32.eqz (local.get $planes)))
        (local.set $d (f32.div (f32.load align=4 (local.get $src)) (local.get $n)))
        (local.set $s (f32x4.splat (local.get $d)))
        (local.set $o (i32.const 0))
        (block $vec_done
          (loop $vec
            (br_if $vec_done (i32.ge_u (local.get $o) (local.get $end4)))
            (v128.store align=4 (i32.add (local.get $dst) (local.get $o))
              (f32x4.add (v128.load align=4 (i32.add (local.get $dst) (local.get $o))) (local.get $s)))
            (local.set $o (i32.add (local.get $o) (i32.const 16)))
            (br $vec)))
        (block $tail_done
          (loop $tail
            (br_if $tail_done (i32.ge_u (local.get $o) (local.get $end)))
            (f32.store align=4 (i32.add (local.get $dst) (local.get $o))
              (f32.add (f32.load align=4 (i32.add (local.get $dst) (local.get $o))) (local.get $d)))
            (local.set $o (i32.add (local.get $o) (i32.const 4)))
            (br $tail)))
        (local.set $dst (i32.add (local.get $dst) (local.get $end)))
        (local.set $src (i32.add (local.get $src) (i32.const 4)))
        (local.set $planes (i32.sub (local.get $planes) (i32.const 1)))
        (br $plane)))
  )

  ;; set_positive(dx, d, h, n): for t < n, dx[t] = +0 + d[t] where h[t] > 0, +0 elsewhere (a NaN h included):
  ;; add_positive onto a dx of +0 (a -0 in d becomes +0 as there), where nothing else wrote dx: it need not be
  ;; cleared nor read.
  (func (export "set_positive") (param $dx i32) (param $d i32) (param $h i32) (param $n i32)
    (local $t i32) (local $n4 i32) (local $o i32)
    (local.set $n4 (i32.and (local.get $n) (i32.const -4)))
    (block $vec_done
      (loop $vec
        (br_if $vec_done (i32.ge_u (local.get $t) (local.get $n4)))
        (local.set $o (i32.shl (local.get $t) (i32.const 2)))
        (v128.store align=4 (i32.add (local.get $dx) (local.get $o))
          (v128.and (f32x4.add (v128.const f32x4 0 0 0 0) (v128.load align=4 (i32.add (local.get $d) (local.get $o))))
                    (f32x4.gt (v128.load align=4 (i32.add (local.get $h) (local.get $o))) (v128.const f32x4 0 0 0 0))))
        (local.set $t (i32.add (local.get $t) (i32.const 4)))
        (br $vec)))
    (block $tail_done
      (loop $tail
        (br_if $tail_done (i32.ge_u (local.get $t) (local.get $n)))
        (local.set $o (i32.shl (local.get $t) (i32.const 2)))
        (f32.store align=4 (i32.add (local.get $dx) (local.get $o))
          (select (f32.add (f32.const 0) (f32.load align=4 (i32.add (local.get $d) (local.get $o)))) (f32.const 0)
                  (f32.gt (f32.load align=4 (i32.add (local.get $h) (local.get $o))) (f32.const 0))))
        (local.set $t (i32.add (local.get $t) (i32.const 1)))
        (br $tail)))
  )

  ;; gather_idx(dst, src, idx, n): for every i < n, dst[i] = src[idx[i]], or +0 where idx[i] < 0 (a window's
  ;; padding): a convolution's windows (im2col) by a precomputed map. The caller checked every index.
  (func (export "gather_idx") (param $dst i32) (param $src i32) (param $idx i32) (param $n i32)
    (local $end i32) (local $j i32)
    (local.set $end (i32.add (local.get $idx) (i32.shl (local.get $n) (i32.const 2))))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $idx) (local.get $end)))
        (local.set $j (i32.load align=4 (local.get $idx)))
        (f32.store align=4 (local.get $dst)
          (if (result f32) (i32.lt_s (local.get $j) (i32.const 0))
            (then (f32.const 0))
            (else (f32.load align=4 (i32.add (local.get $src) (i32.shl (local.get $j) (i32.const 2)))))))
        (local.set $idx (i32.add (local.get $idx) (i32.const 4)))
        (local.set $dst (i32.add (local.get $dst) (i32.const 4)))
        (br $next)))
  )

  ;; scatter_idx(dst, src, idx, n): for i = 0, 1, …, n−1 in that order, dst[idx[i]] += src[i] where idx[i] ≥ 0:
  ;; the adjoint of gather_idx (col2im), each sum float32 as Go's. The caller checked every index.
  (func (export "scatter_idx") (param $dst i32) (param $src i32) (param $idx i32) (param $n i32)
    (local $end i32) (local $j i32) (local $at i32)
    (local.set $end (i32.add (local.get $idx) (i32.shl (local.get $n) (i32.const 2))))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $idx) (local.get $end)))
        (local.set $j (i32.load align=4 (local.get $idx)))
        (if (i32.ge_s (local.get $j) (i32.const 0))
          (then
            (local.set $at (i32.add (local.get $dst) (i32.shl (local.get $j) (i32.const 2))))
            (f32.store align=4 (local.get $at) (f32.add (f32.load align=4 (local.get $at)) (f32.load align=4 (local.get $src))))))
        (local.set $idx (i32.add (local.get $idx) (i32.const 4)))
        (local.set $src (i32.add (local.get $src) (i32.const 4)))
        (br $next)))
  )


  ;; scatter_pairs(dst, src, pd, ps, n): for i = 0, 1, …, n−1 in that order, dst[pd[i]] += src[ps[i]]: a scatter
  ;; whose source is read through a map (windows held by position). The caller checked every position.
  (func (export "scatter_pairs") (param $dst i32) (param $src i32) (param $pd i32) (param $ps i32) (param $n i32)
    (local $at i32)
    (if (local.get $n)
      (then
        (loop $next
          (local.set $at (i32.add (local.get $dst) (i32.shl (i32.load align=4 (local.get $pd)) (i32.const 2))))
          (f32.store align=4 (local.get $at) (f32.add (f32.load align=4 (local.get $at))
            (f32.load align=4 (i32.add (local.get $src) (i32.shl (i32.load align=4 (local.get $ps)) (i32.const 2))))))
          (local.set $pd (i32.add (local.get $pd) (i32.const 4)))
          (local.set $ps (i32.add (local.get $ps) (i32.const 4)))
          (br_if $next (local.tee $n (i32.sub (local.get $n) (i32.const 1))))))))

  ;; sigmoid(x, out, e, n) → specials: for i < n, with v = x[i] and a = −|v| in float64, ei = Exp(a) by fmath's
  ;; steps (k from log2e·a − 0.5, the reduction by ln2Hi and ln2Lo, the minimax polynomial, y·2^k), then
  ;; e[i] = float32(ei) and out[i] = float32((v < 0 ? ei : 1)/(1 + ei)): the engine's sigmoid, the same float64
  ;; operations in the same order, two at a time. It returns how many values need one of Exp's special cases
  ;; (a NaN, a < underflow, |a| < 2^−28, or k < −1021, where fmath scales by Ldexp), whose results here are not
  ;; fmath's: the caller then computes the whole slice itself.
  (func (export "sigmoid") (param $x i32) (param $out i32) (param $e i32) (param $n i32) (result i32)
    (local $v v128) (local $a v128) (local $k v128) (local $kf v128) (local $hi v128) (local $lo v128) (local $r v128)
    (local $t v128) (local $c v128) (local $y v128) (local $ei v128) (local $special v128) (local $o v128)
    (local $count i32) (local $last i32)
    (block $done
      (loop $pair
        (br_if $done (i32.eqz (local.get $n)))
        (local.set $last (i32.eq (local.get $n) (i32.const 1)))
        (local.set $v (f64x2.promote_low_f32x4
          (if (result v128) (local.get $last)
            (then (v128.load32_zero align=4 (local.get $x)))
            (else (v128.load64_zero align=4 (local.get $x))))))
        (local.set $a (f64x2.neg (f64x2.abs (local.get $v))))
        (local.set $k (i32x4.trunc_sat_f64x2_s_zero
          (f64x2.sub (f64x2.mul (v128.const f64x2 1.44269504088896338700e+00 1.44269504088896338700e+00) (local.get $a))
                     (v128.const f64x2 0.5 0.5))))
        (local.set $kf (f64x2.convert_low_i32x4_s (local.get $k)))
        (local.set $hi (f64x2.sub (local.get $a) (f64x2.mul (local.get $kf) (v128.const f64x2 6.93147180369123816490e-01 6.93147180369123816490e-01))))
        (local.set $lo (f64x2.mul (local.get $kf) (v128.const f64x2 1.90821492927058770002e-10 1.90821492927058770002e-10)))
        (local.set $r (f64x2.sub (local.get $hi) (local.get $lo)))
        (local.set $t (f64x2.mul (local.get $r) (local.get $r)))
        (local.set $c (f64x2.sub (local.get $r) (f64x2.mul (local.get $t)
          (f64x2.add (v128.const f64x2 1.66666666666666657415e-01 1.66666666666666657415e-01) (f64x2.mul (local.get $t)
          (f64x2.add (v128.const f64x2 -2.77777777770155933842e-03 -2.77777777770155933842e-03) (f64x2.mul (local.get $t)
          (f64x2.add (v128.const f64x2 6.61375632143793436117e-05 6.61375632143793436117e-05) (f64x2.mul (local.get $t)
          (f64x2.add (v128.const f64x2 -1.65339022054652515390e-06 -1.65339022054652515390e-06) (f64x2.mul (local.get $t)
            (v128.const f64x2 4.13813679705723846039e-08 4.13813679705723846039e-08))))))))))))
        (local.set $y (f64x2.sub (v128.const f64x2 1 1)
          (f64x2.sub (f64x2.sub (local.get $lo)
                                (f64x2.div (f64x2.mul (local.get $r) (local.get $c)) (f64x2.sub (v128.const f64x2 2 2) (local.get $c))))
                     (local.get $hi))))
        (local.set $ei (f64x2.mul (local.get $y)
          (i64x2.shl (i64x2.add (i64x2.extend_low_i32x4_s (local.get $k)) (v128.const i64x2 1023 1023)) (i32.const 52))))
        ;; Exp's special cases: not a ≥ underflow (a NaN too), a > −2^−28, or k < −1021.
        (local.set $special (v128.or
          (v128.or (v128.not (f64x2.ge (local.get $a) (v128.const f64x2 -7.45133219101941108420e+02 -7.45133219101941108420e+02)))
                   (f64x2.gt (local.get $a) (v128.const f64x2 -3.7252902984619140625e-09 -3.7252902984619140625e-09)))
          (i64x2.extend_low_i32x4_s (i32x4.lt_s (local.get $k) (v128.const i32x4 -1021 -1021 -1021 -1021)))))
        (local.set $o (f64x2.div
          (v128.bitselect (local.get $ei) (v128.const f64x2 1 1) (f64x2.lt (local.get $v) (v128.const f64x2 0 0)))
          (f64x2.add (v128.const f64x2 1 1) (local.get $ei))))
        (if (local.get $last)
          (then
            (local.set $count (i32.add (local.get $count) (i32.and (i64x2.bitmask (local.get $special)) (i32.const 1))))
            (v128.store32_lane align=4 0 (local.get $out) (f32x4.demote_f64x2_zero (local.get $o)))
            (v128.store32_lane align=4 0 (local.get $e) (f32x4.demote_f64x2_zero (local.get $ei)))
            (br $done)))
        (local.set $count (i32.add (local.get $count) (i32.popcnt (i64x2.bitmask (local.get $special)))))
        (v128.store64_lane align=4 0 (local.get $out) (f32x4.demote_f64x2_zero (local.get $o)))
        (v128.store64_lane align=4 0 (local.get $e) (f32x4.demote_f64x2_zero (local.get $ei)))
        (local.set $x (i32.add (local.get $x) (i32.const 8)))
        (local.set $out (i32.add (local.get $out) (i32.const 8)))
        (local.set $e (i32.add (local.get $e) (i32.const 8)))
        (local.set $n (i32.sub (local.get $n) (i32.const 2)))
        (br $pair)))
    (local.get $count)
  )

  ;; exp_to(src, dst, n) → specials: for i < n, dst[i] = Exp(src[i]) (float64) by fmath.ExpTo's steps (k from
  ;; log2e·x ∓ 0.5 by x's sign, the reduction by ln2Hi and ln2Lo, the minimax polynomial, y·2^k; 1 + x where
  ;; |x| < 2^−28), the same float64 operations in the same order, two at a time. It returns how many values need
  ;; another of Exp's cases (a NaN, x outside [underflow, overflow], or k outside [−1021, 1023], where fmath scales
  ;; by Ldexp), whose results here are not fmath's: the caller then computes the whole slice itself.
  (func (export "exp_to") (param $src i32) (param $dst i32) (param $n i32) (result i32)
    (local $x v128) (local $k v128) (local $kf v128) (local $hi v128) (local $lo v128) (local $r v128)
    (local $t v128) (local $c v128) (local $y v128) (local $ex v128) (local $special v128)
    (local $count i32) (local $last i32)
    (block $done
      (loop $pair
        (br_if $done (i32.eqz (local.get $n)))
        (local.set $last (i32.eq (local.get $n) (i32.const 1)))
        (local.set $x
          (if (result v128) (local.get $last)
            (then (v128.load64_zero align=8 (local.get $src)))
            (else (v128.load align=8 (local.get $src)))))
        (local.set $k (i32x4.trunc_sat_f64x2_s_zero
          (v128.bitselect
            (f64x2.sub (f64x2.mul (v128.const f64x2 1.44269504088896338700e+00 1.44269504088896338700e+00) (local.get $x))
                       (v128.const f64x2 0.5 0.5))
            (f64x2.add (f64x2.mul (v128.const f64x2 1.44269504088896338700e+00 1.44269504088896338700e+00) (local.get $x))
                       (v128.const f64x2 0.5 0.5))
            (f64x2.lt (local.get $x) (v128.const f64x2 0 0)))))
        (local.set $kf (f64x2.convert_low_i32x4_s (local.get $k)))
        (local.set $hi (f64x2.sub (local.get $x) (f64x2.mul (local.get $kf) (v128.const f64x2 6.93147180369123816490e-01 6.93147180369123816490e-01))))
        (local.set $lo (f64x2.mul (local.get $kf) (v128.const f64x2 1.90821492927058770002e-10 1.90821492927058770002e-10)))
        (local.set $r (f64x2.sub (local.get $hi) (local.get $lo)))
        (local.set $t (f64x2.mul (local.get $r) (local.get $r)))
        (local.set $c (f64x2.sub (local.get $r) (f64x2.mul (local.get $t)
          (f64x2.add (v128.const f64x2 1.66666666666666657415e-01 1.66666666666666657415e-01) (f64x2.mul (local.get $t)
          (f64x2.add (v128.const f64x2 -2.77777777770155933842e-03 -2.77777777770155933842e-03) (f64x2.mul (local.get $t)
          (f64x2.add (v128.const f64x2 6.61375632143793436117e-05 6.61375632143793436117e-05) (f64x2.mul (local.get $t)
          (f64x2.add (v128.const f64x2 -1.65339022054652515390e-06 -1.65339022054652515390e-06) (f64x2.mul (local.get $t)
            (v128.const f64x2 4.13813679705723846039e-08 4.13813679705723846039e-08))))))))))))
        (local.set $y (f64x2.sub (v128.const f64x2 1 1)
          (f64x2.sub (f64x2.sub (local.get $lo)
                                (f64x2.div (f64x2.mul (local.get $r) (local.get $c)) (f64x2.sub (v128.const f64x2 2 2) (local.get $c))))
                     (local.get $hi))))
        (local.set $ex (f64x2.mul (local.get $y)
          (i64x2.shl (i64x2.add (i64x2.extend_low_i32x4_s (local.get $k)) (v128.const i64x2 1023 1023)) (i32.const 52))))
        ;; |x| < 2^−28: 1 + x.
        (local.set $ex (v128.bitselect
          (f64x2.add (v128.const f64x2 1 1) (local.get $x))
          (local.get $ex)
          (f64x2.lt (f64x2.abs (local.get $x)) (v128.const f64x2 3.7252902984619140625e-09 3.7252902984619140625e-09))))
        ;; The other cases: not underflow ≤ x ≤ overflow (a NaN too), or k outside [−1021, 1023].
        (local.set $special (v128.or
          (v128.not (v128.and (f64x2.ge (local.get $x) (v128.const f64x2 -7.45133219101941108420e+02 -7.45133219101941108420e+02))
                              (f64x2.le (local.get $x) (v128.const f64x2 7.09782712893383973096e+02 7.09782712893383973096e+02))))
          (i64x2.extend_low_i32x4_s (v128.or (i32x4.lt_s (local.get $k) (v128.const i32x4 -1021 -1021 -1021 -1021))
                                             (i32x4.gt_s (local.get $k) (v128.const i32x4 1023 1023 1023 1023))))))
        (if (local.get $last)
          (then
            (local.set $count (i32.add (local.get $count) (i32.and (i64x2.bitmask (local.get $special)) (i32.const 1))))
            (v128.store64_lane align=8 0 (local.get $dst) (local.get $ex))
            (br $done)))
        (local.set $count (i32.add (local.get $count) (i32.popcnt (i64x2.bitmask (local.get $special)))))
        (v128.store align=8 (local.get $dst) (local.get $ex))
        (local.set $src (i32.add (local.get $src) (i32.const 16)))
        (local.set $dst (i32.add (local.get $dst) (i32.const 16)))
        (local.set $n (i32.sub (local.get $n) (i32.const 2)))
        (br $pair)))
    (local.get $count)
  )

  ;; ---- a product whose b rows are read through a table of offsets ----

  ;; matmul_add_rows(a, b, offs, c, m, k, n, ldc): c[i][j] += a[i][p]·b[offs[p] + j] for p = 0, 1, …, k−1 in that
  ;; order (offs: k i32 offsets in floats from b; c's rows ldc floats apart): matmul_add's products and order, only
  ;; row p of b is wherever offs[p] says (a convolution's windows as shifted rows of its planes, read in place
  ;; instead of copied: kernel.MatMulAddRows). The same blocks, stepping through the table instead of b's stride;
  ;; the same strips for a small a. The caller checked every row's n values and c's rows.
  (func (export "matmul_add_rows")
    (param $a i32) (param $b i32) (param $po i32) (param $c i32) (param $m i32) (param $k i32) (param $n i32) (param $ldc i32)
    (local $sc i32) (local $w i32) (local $cols i32) (local $off i32)
    (if (i32.eqz (local.get $k)) (then (return)))
    (local.set $sc (i32.shl (local.get $ldc) (i32.const 2)))  ;; byte stride of c's rows
    (if (i32.and (i32.gt_u (local.get $m) (i32.const 4)) (i32.le_u (i32.mul (local.get $m) (local.get $k)) (i32.const 4096))) (then
      (local.set $w (i32.and (i32.div_u (i32.const 6144) (local.get $k)) (i32.const -8)))
      (if (i32.lt_u (local.get $w) (i32.const 8)) (then (local.set $w (i32.const 8))))
      (local.set $off (i32.const 0))
      (block $strips_done
        (loop $strips
          (br_if $strips_done (i32.eqz (local.get $n)))
          (local.set $cols (select (local.get $w) (local.get $n) (i32.lt_u (local.get $w) (local.get $n))))
          (call $mmr (local.get $a) (i32.add (local.get $b) (local.get $off)) (i32.add (local.get $c) (local.get $off))
                     (local.get $m) (local.get $k) (local.get $cols) (local.get $sc) (local.get $po))
          (local.set $off (i32.add (local.get $off) (i32.shl (local.get $cols) (i32.const 2))))
          (local.set $n (i32.sub (local.get $n) (local.get $cols)))
          (br $strips)))
      (return)))
    (call $mmr (local.get $a) (local.get $b) (local.get $c) (local.get $m) (local.get $k) (local.get $n) (local.get $sc) (local.get $po))
  )

  ;; $mmr: $mm with b's rows at b + 4·offs[p] (the table at $po) and $iblk for $blk.
  (func $mmr
    (param $a i32) (param $b i32) (param $c i32) (param $m i32) (param $k i32) (param $n i32) (param $sc i32) (param $po i32)
    (local $sa i32) (local $rows i32) (local $cols i32) (local $pa i32) (local $pc i32) (local $off i32)
    (local.set $sa (i32.shl (local.get $k) (i32.const 2)))  ;; byte stride of a's rows
    (local.set $pa (local.get $a))                          ;; &a[i][0]
    (local.set $pc (local.get $c))                          ;; &c[i][0]
    (local.set $rows (local.get $m))                        ;; rows left
    ;; Blocks of 4 rows.
    (block $rows4_done
      (loop $rows4
        (br_if $rows4_done (i32.lt_u (local.get $rows) (i32.const 4)))
        (local.set $cols (local.get $n))                    ;; columns left
        (local.set $off (i32.const 0))                      ;; j*4
        (block $cols8_done
          (loop $cols8
            (br_if $cols8_done (i32.lt_u (local.get $cols) (i32.const 8)))
            (call $iblk4x8 (local.get $pa) (i32.add (local.get $b) (local.get $off)) (i32.add (local.get $pc) (local.get $off))
                          (local.get $k) (local.get $sa) (local.get $sc) (local.get $po))
            (local.set $off (i32.add (local.get $off) (i32.const 32)))
            (local.set $cols (i32.sub (local.get $cols) (i32.const 8)))
            (br $cols8)))
        ;; Now cols < 8: at most one 4-, one 2- and one 1-wide block.
        (if (i32.ge_u (local.get $cols) (i32.const 4)) (then
          (call $iblk4x4 (local.get $pa) (i32.add (local.get $b) (local.get $off)) (i32.add (local.get $pc) (local.get $off))
                        (local.get $k) (local.get $sa) (local.get $sc) (local.get $po))
          (local.set $off (i32.add (local.get $off) (i32.const 16)))
          (local.set $cols (i32.sub (local.get $cols) (i32.const 4)))))
        (if (i32.ge_u (local.get $cols) (i32.const 2)) (then
          (call $iblk4x2 (local.get $pa) (i32.add (local.get $b) (local.get $off)) (i32.add (local.get $pc) (local.get $off))
                        (local.get $k) (local.get $sa) (local.get $sc) (local.get $po))
          (local.set $off (i32.add (local.get $off) (i32.const 8)))
          (local.set $cols (i32.sub (local.get $cols) (i32.const 2)))))
        (if (local.get $cols) (then
          (call $iblk4x1 (local.get $pa) (i32.add (local.get $b) (local.get $off)) (i32.add (local.get $pc) (local.get $off))
                        (local.get $k) (local.get $sa) (local.get $sc) (local.get $po))))
        (local.set $pa (i32.add (local.get $pa) (i32.shl (local.get $sa) (i32.const 2))))
        (local.set $pc (i32.add (local.get $pc) (i32.shl (local.get $sc) (i32.const 2))))
        (local.set $rows (i32.sub (local.get $rows) (i32.const 4)))
        (br $rows4)))
    ;; The last m mod 4 rows, one at a time.
    (block $rows1_done
      (loop $rows1
        (br_if $rows1_done (i32.eqz (local.get $rows)))
        (local.set $cols (local.get $n))
        (local.set $off (i32.const 0))
        (block $cols8_done
          (loop $cols8
            (br_if $cols8_done (i32.lt_u (local.get $cols) (i32.const 8)))
            (call $iblk1x8 (local.get $pa) (i32.add (local.get $b) (local.get $off)) (i32.add (local.get $pc) (local.get $off))
                          (local.get $k) (local.get $sa) (local.get $sc) (local.get $po))
            (local.set $off (i32.add (local.get $off) (i32.const 32)))
            (local.set $cols (i32.sub (local.get $cols) (i32.const 8)))
            (br $cols8)))
        (if (i32.ge_u (local.get $cols) (i32.const 4)) (then
          (call $iblk1x4 (local.get $pa) (i32.add (local.get $b) (local.get $off)) (i32.add (local.get $pc) (local.get $off))
                        (local.get $k) (local.get $sa) (local.get $sc) (local.get $po))
          (local.set $off (i32.add (local.get $off) (i32.const 16)))
          (local.set $cols (i32.sub (local.get $cols) (i32.const 4)))))
        (if (i32.ge_u (local.get $cols) (i32.const 2)) (then
          (call $iblk1x2 (local.get $pa) (i32.add (local.get $b) (local.get $off)) (i32.add (local.get $pc) (local.get $off))
                        (local.get $k) (local.get $sa) (local.get $sc) (local.get $po))
          (local.set $off (i32.add (local.get $off) (i32.const 8)))
          (local.set $cols (i32.sub (local.get $cols) (i32.const 2)))))
        (if (local.get $cols) (then
          (call $iblk1x1 (local.get $pa) (i32.add (local.get $b) (local.get $off)) (i32.add (local.get $pc) (local.get $off))
                        (local.get $k) (local.get $sa) (local.get $sc) (local.get $po))))
        (local.set $pa (i32.add (local.get $pa) (local.get $sa)))
        (local.set $pc (i32.add (local.get $pc) (local.get $sc)))
        (local.set $rows (i32.sub (local.get $rows) (i32.const 1)))
        (br $rows1)))
  )

  ;; The blocks of $mmr: $blk's, row p of b at $pb + 4·offs[p] ($po steps through the table).

  (func $iblk4x8 (param $pa i32) (param $pb i32) (param $pc i32) (param $k i32) (param $sa i32) (param $sc i32) (param $po i32)
    (local $r i32)
    (local $acc00 v128) (local $acc01 v128)
    (local $acc10 v128) (local $acc11 v128)
    (local $acc20 v128) (local $acc21 v128)
    (local $acc30 v128) (local $acc31 v128)
    (local $b0 v128) (local $b1 v128) (local $s v128)
    (local $a1 i32) (local $a2 i32) (local $a3 i32)
    (local $c1 i32) (local $c2 i32) (local $c3 i32)
    (local.set $a1 (i32.add (local.get $pa) (local.get $sa)))
    (local.set $a2 (i32.add (local.get $a1) (local.get $sa)))
    (local.set $a3 (i32.add (local.get $a2) (local.get $sa)))
    (local.set $c1 (i32.add (local.get $pc) (local.get $sc)))
    (local.set $c2 (i32.add (local.get $c1) (local.get $sc)))
    (local.set $c3 (i32.add (local.get $c2) (local.get $sc)))
    (local.set $acc00 (v128.load align=4 (local.get $pc)))
    (local.set $acc01 (v128.load offset=16 align=4 (local.get $pc)))
    (local.set $acc10 (v128.load align=4 (local.get $c1)))
    (local.set $acc11 (v128.load offset=16 align=4 (local.get $c1)))
    (local.set $acc20 (v128.load align=4 (local.get $c2)))
    (local.set $acc21 (v128.load offset=16 align=4 (local.get $c2)))
    (local.set $acc30 (v128.load align=4 (local.get $c3)))
    (local.set $acc31 (v128.load offset=16 align=4 (local.get $c3)))
    (loop $p
      (local.set $r (i32.add (local.get $pb) (i32.shl (i32.load align=4 (local.get $po)) (i32.const 2))))
      (local.set $b0 (v128.load align=4 (local.get $r)))
      (local.set $b1 (v128.load offset=16 align=4 (local.get $r)))
      (local.set $s (v128.load32_splat align=4 (local.get $pa)))
      (local.set $acc00 (f32x4.add (local.get $acc00) (f32x4.mul (local.get $s) (local.get $b0))))
      (local.set $acc01 (f32x4.add (local.get $acc01) (f32x4.mul (local.get $s) (local.get $b1))))
      (local.set $s (v128.load32_splat align=4 (local.get $a1)))
      (local.set $acc10 (f32x4.add (local.get $acc10) (f32x4.mul (local.get $s) (local.get $b0))))
      (local.set $acc11 (f32x4.add (local.get $acc11) (f32x4.mul (local.get $s) (local.get $b1))))
      (local.set $s (v128.load32_splat align=4 (local.get $a2)))
      (local.set $acc20 (f32x4.add (local.get $acc20) (f32x4.mul (local.get $s) (local.get $b0))))
      (local.set $acc21 (f32x4.add (local.get $acc21) (f32x4.mul (local.get $s) (local.get $b1))))
      (local.set $s (v128.load32_splat align=4 (local.get $a3)))
      (local.set $acc30 (f32x4.add (local.get $acc30) (f32x4.mul (local.get $s) (local.get $b0))))
      (local.set $acc31 (f32x4.add (local.get $acc31) (f32x4.mul (local.get $s) (local.get $b1))))
      (local.set $pa (i32.add (local.get $pa) (i32.const 4)))
      (local.set $a1 (i32.add (local.get $a1) (i32.const 4)))
      (local.set $a2 (i32.add (local.get $a2) (i32.const 4)))
      (local.set $a3 (i32.add (local.get $a3) (i32.const 4)))
      (local.set $po (i32.add (local.get $po) (i32.const 4)))
      (br_if $p (local.tee $k (i32.sub (local.get $k) (i32.const 1)))))
    (v128.store align=4 (local.get $pc) (local.get $acc00))
    (v128.store offset=16 align=4 (local.get $pc) (local.get $acc01))
    (v128.store align=4 (local.get $c1) (local.get $acc10))
    (v128.store offset=16 align=4 (local.get $c1) (local.get $acc11))
    (v128.store align=4 (local.get $c2) (local.get $acc20))
    (v128.store offset=16 align=4 (local.get $c2) (local.get $acc21))
    (v128.store align=4 (local.get $c3) (local.get $acc30))
    (v128.store offset=16 align=4 (local.get $c3) (local.get $acc31))
  )

  (func $iblk4x4 (param $pa i32) (param $pb i32) (param $pc i32) (param $k i32) (param $sa i32) (param $sc i32) (param $po i32)
    (local $r i32)
    (local $acc00 v128)
    (local $acc10 v128)
    (local $acc20 v128)
    (local $acc30 v128)
    (local $b0 v128) (local $s v128)
    (local $a1 i32) (local $a2 i32) (local $a3 i32)
    (local $c1 i32) (local $c2 i32) (local $c3 i32)
    (local.set $a1 (i32.add (local.get $pa) (local.get $sa)))
    (local.set $a2 (i32.add (local.get $a1) (local.get $sa)))
    (local.set $a3 (i32.add (local.get $a2) (local.get $sa)))
    (local.set $c1 (i32.add (local.get $pc) (local.get $sc)))
    (local.set $c2 (i32.add (local.get $c1) (local.get $sc)))
    (local.set $c3 (i32.add (local.get $c2) (local.get $sc)))
    (local.set $acc00 (v128.load align=4 (local.get $pc)))
    (local.set $acc10 (v128.load align=4 (local.get $c1)))
    (local.set $acc20 (v128.load align=4 (local.get $c2)))
    (local.set $acc30 (v128.load align=4 (local.get $c3)))
    (loop $p
      (local.set $r (i32.add (local.get $pb) (i32.shl (i32.load align=4 (local.get $po)) (i32.const 2))))
      (local.set $b0 (v128.load align=4 (local.get $r)))
      (local.set $s (v128.load32_splat align=4 (local.get $pa)))
      (local.set $acc00 (f32x4.add (local.get $acc00) (f32x4.mul (local.get $s) (local.get $b0))))
      (local.set $s (v128.load32_splat align=4 (local.get $a1)))
      (local.set $acc10 (f32x4.add (local.get $acc10) (f32x4.mul (local.get $s) (local.get $b0))))
      (local.set $s (v128.load32_splat align=4 (local.get $a2)))
      (local.set $acc20 (f32x4.add (local.get $acc20) (f32x4.mul (local.get $s) (local.get $b0))))
      (local.set $s (v128.load32_splat align=4 (local.get $a3)))
      (local.set $acc30 (f32x4.add (local.get $acc30) (f32x4.mul (local.get $s) (local.get $b0))))
      (local.set $pa (i32.add (local.get $pa) (i32.const 4)))
      (local.set $a1 (i32.add (local.get $a1) (i32.const 4)))
      (local.set $a2 (i32.add (local.get $a2) (i32.const 4)))
      (local.set $a3 (i32.add (local.get $a3) (i32.const 4)))
      (local.set $po (i32.add (local.get $po) (i32.const 4)))
      (br_if $p (local.tee $k (i32.sub (local.get $k) (i32.const 1)))))
    (v128.store align=4 (local.get $pc) (local.get $acc00))
    (v128.store align=4 (local.get $c1) (local.get $acc10))
    (v128.store align=4 (local.get $c2) (local.get $acc20))
    (v128.store align=4 (local.get $c3) (local.get $acc30))
  )

  (func $iblk4x2 (param $pa i32) (param $pb i32) (param $pc i32) (param $k i32) (param $sa i32) (param $sc i32) (param $po i32)
    (local $r i32)
    (local $acc00 v128)
    (local $acc10 v128)
    (local $acc20 v128)
    (local $acc30 v128)
    (local $b0 v128) (local $s v128)
    (local $a1 i32) (local $a2 i32) (local $a3 i32)
    (local $c1 i32) (local $c2 i32) (local $c3 i32)
    (local.set $a1 (i32.add (local.get $pa) (local.get $sa)))
    (local.set $a2 (i32.add (local.get $a1) (local.get $sa)))
    (local.set $a3 (i32.add (local.get $a2) (local.get $sa)))
    (local.set $c1 (i32.add (local.get $pc) (local.get $sc)))
    (local.set $c2 (i32.add (local.get $c1) (local.get $sc)))
    (local.set $c3 (i32.add (local.get $c2) (local.get $sc)))
    (local.set $acc00 (v128.load64_zero align=4 (local.get $pc)))
    (local.set $acc10 (v128.load64_zero align=4 (local.get $c1)))
    (local.set $acc20 (v128.load64_zero align=4 (local.get $c2)))
    (local.set $acc30 (v128.load64_zero align=4 (local.get $c3)))
    (loop $p
      (local.set $r (i32.add (local.get $pb) (i32.shl (i32.load align=4 (local.get $po)) (i32.const 2))))
      (local.set $b0 (v128.load64_zero align=4 (local.get $r)))
      (local.set $s (v128.load32_splat align=4 (local.get $pa)))
      (local.set $acc00 (f32x4.add (local.get $acc00) (f32x4.mul (local.get $s) (local.get $b0))))
      (local.set $s (v128.load32_splat align=4 (local.get $a1)))
      (local.set $acc10 (f32x4.add (local.get $acc10) (f32x4.mul (local.get $s) (local.get $b0))))
      (local.set $s (v128.load32_splat align=4 (local.get $a2)))
      (local.set $acc20 (f32x4.add (local.get $acc20) (f32x4.mul (local.get $s) (local.get $b0))))
      (local.set $s (v128.load32_splat align=4 (local.get $a3)))
      (local.set $acc30 (f32x4.add (local.get $acc30) (f32x4.mul (local.get $s) (local.get $b0))))
      (local.set $pa (i32.add (local.get $pa) (i32.const 4)))
      (local.set $a1 (i32.add (local.get $a1) (i32.const 4)))
      (local.set $a2 (i32.add (local.get $a2) (i32.const 4)))
      (local.set $a3 (i32.add (local.get $a3) (i32.const 4)))
      (local.set $po (i32.add (local.get $po) (i32.const 4)))
      (br_if $p (local.tee $k (i32.sub (local.get $k) (i32.const 1)))))
    (v128.store64_lane align=4 0 (local.get $pc) (local.get $acc00))
    (v128.store64_lane align=4 0 (local.get $c1) (local.get $acc10))
    (v128.store64_lane align=4 0 (local.get $c2) (local.get $acc20))
    (v128.store64_lane align=4 0 (local.get $c3) (local.get $acc30))
  )

  (func $iblk4x1 (param $pa i32) (param $pb i32) (param $pc i32) (param $k i32) (param $sa i32) (param $sc i32) (param $po i32)
    (local $r i32)
    (local $acc00 v128)
    (local $acc10 v128)
    (local $acc20 v128)
    (local $acc30 v128)
    (local $b0 v128) (local $s v128)
    (local $a1 i32) (local $a2 i32) (local $a3 i32)
    (local $c1 i32) (local $c2 i32) (local $c3 i32)
    (local.set $a1 (i32.add (local.get $pa) (local.get $sa)))
    (local.set $a2 (i32.add (local.get $a1) (local.get $sa)))
    (local.set $a3 (i32.add (local.get $a2) (local.get $sa)))
    (local.set $c1 (i32.add (local.get $pc) (local.get $sc)))
    (local.set $c2 (i32.add (local.get $c1) (local.get $sc)))
    (local.set $c3 (i32.add (local.get $c2) (local.get $sc)))
    (local.set $acc00 (v128.load32_zero align=4 (local.get $pc)))
    (local.set $acc10 (v128.load32_zero align=4 (local.get $c1)))
    (local.set $acc20 (v128.load32_zero align=4 (local.get $c2)))
    (local.set $acc30 (v128.load32_zero align=4 (local.get $c3)))
    (loop $p
      (local.set $r (i32.add (local.get $pb) (i32.shl (i32.load align=4 (local.get $po)) (i32.const 2))))
      (local.set $b0 (v128.load32_zero align=4 (local.get $r)))
      (local.set $s (v128.load32_splat align=4 (local.get $pa)))
      (local.set $acc00 (f32x4.add (local.get $acc00) (f32x4.mul (local.get $s) (local.get $b0))))
      (local.set $s (v128.load32_splat align=4 (local.get $a1)))
      (local.set $acc10 (f32x4.add (local.get $acc10) (f32x4.mul (local.get $s) (local.get $b0))))
      (local.set $s (v128.load32_splat align=4 (local.get $a2)))
      (local.set $acc20 (f32x4.add (local.get $acc20) (f32x4.mul (local.get $s) (local.get $b0))))
      (local.set $s (v128.load32_splat align=4 (local.get $a3)))
      (local.set $acc30 (f32x4.add (local.get $acc30) (f32x4.mul (local.get $s) (local.get $b0))))
      (local.set $pa (i32.add (local.get $pa) (i32.const 4)))
      (local.set $a1 (i32.add (local.get $a1) (i32.const 4)))
      (local.set $a2 (i32.add (local.get $a2) (i32.const 4)))
      (local.set $a3 (i32.add (local.get $a3) (i32.const 4)))
      (local.set $po (i32.add (local.get $po) (i32.const 4)))
      (br_if $p (local.tee $k (i32.sub (local.get $k) (i32.const 1)))))
    (v128.store32_lane align=4 0 (local.get $pc) (local.get $acc00))
    (v128.store32_lane align=4 0 (local.get $c1) (local.get $acc10))
    (v128.store32_lane align=4 0 (local.get $c2) (local.get $acc20))
    (v128.store32_lane align=4 0 (local.get $c3) (local.get $acc30))
  )

  (func $iblk1x8 (param $pa i32) (param $pb i32) (param $pc i32) (param $k i32) (param $sa i32) (param $sc i32) (param $po i32)
    (local $r i32)
    (local $acc00 v128) (local $acc01 v128)
    (local $b0 v128) (local $b1 v128) (local $s v128)
    (local.set $acc00 (v128.load align=4 (local.get $pc)))
    (local.set $acc01 (v128.load offset=16 align=4 (local.get $pc)))
    (loop $p
      (local.set $r (i32.add (local.get $pb) (i32.shl (i32.load align=4 (local.get $po)) (i32.const 2))))
      (local.set $b0 (v128.load align=4 (local.get $r)))
      (local.set $b1 (v128.load offset=16 align=4 (local.get $r)))
      (local.set $s (v128.load32_splat align=4 (local.get $pa)))
      (local.set $acc00 (f32x4.add (local.get $acc00) (f32x4.mul (local.get $s) (local.get $b0))))
      (local.set $acc01 (f32x4.add (local.get $acc01) (f32x4.mul (local.get $s) (local.get $b1))))
      (local.set $pa (i32.add (local.get $pa) (i32.const 4)))
      (local.set $po (i32.add (local.get $po) (i32.const 4)))
      (br_if $p (local.tee $k (i32.sub (local.get $k) (i32.const 1)))))
    (v128.store align=4 (local.get $pc) (local.get $acc00))
    (v128.store offset=16 align=4 (local.get $pc) (local.get $acc01))
  )

  (func $iblk1x4 (param $pa i32) (param $pb i32) (param $pc i32) (param $k i32) (param $sa i32) (param $sc i32) (param $po i32)
    (local $r i32)
    (local $acc00 v128)
    (local $b0 v128) (local $s v128)
    (local.set $acc00 (v128.load align=4 (local.get $pc)))
    (loop $p
      (local.set $r (i32.add (local.get $pb) (i32.shl (i32.load align=4 (local.get $po)) (i32.const 2))))
      (local.set $b0 (v128.load align=4 (local.get $r)))
      (local.set $s (v128.load32_splat align=4 (local.get $pa)))
      (local.set $acc00 (f32x4.add (local.get $acc00) (f32x4.mul (local.get $s) (local.get $b0))))
      (local.set $pa (i32.add (local.get $pa) (i32.const 4)))
      (local.set $po (i32.add (local.get $po) (i32.const 4)))
      (br_if $p (local.tee $k (i32.sub (local.get $k) (i32.const 1)))))
    (v128.store align=4 (local.get $pc) (local.get $acc00))
  )

  (func $iblk1x2 (param $pa i32) (param $pb i32) (param $pc i32) (param $k i32) (param $sa i32) (param $sc i32) (param $po i32)
    (local $r i32)
    (local $acc00 v128)
    (local $b0 v128) (local $s v128)
    (local.set $acc00 (v128.load64_zero align=4 (local.get $pc)))
    (loop $p
      (local.set $r (i32.add (local.get $pb) (i32.shl (i32.load align=4 (local.get $po)) (i32.const 2))))
      (local.set $b0 (v128.load64_zero align=4 (local.get $r)))
      (local.set $s (v128.load32_splat align=4 (local.get $pa)))
      (local.set $acc00 (f32x4.add (local.get $acc00) (f32x4.mul (local.get $s) (local.get $b0))))
      (local.set $pa (i32.add (local.get $pa) (i32.const 4)))
      (local.set $po (i32.add (local.get $po) (i32.const 4)))
      (br_if $p (local.tee $k (i32.sub (local.get $k) (i32.const 1)))))
    (v128.store64_lane align=4 0 (local.get $pc) (local.get $acc00))
  )

  (func $iblk1x1 (param $pa i32) (param $pb i32) (param $pc i32) (param $k i32) (param $sa i32) (param $sc i32) (param $po i32)
    (local $r i32)
    (local $acc00 v128)
    (local $b0 v128) (local $s v128)
    (local.set $acc00 (v128.load32_zero align=4 (local.get $pc)))
    (loop $p
      (local.set $r (i32.add (local.get $pb) (i32.shl (i32.load align=4 (local.get $po)) (i32.const 2))))
      (local.set $b0 (v128.load32_zero align=4 (local.get $r)))
      (local.set $s (v128.load32_splat align=4 (local.get $pa)))
      (local.set $acc00 (f32x4.add (local.get $acc00) (f32x4.mul (local.get $s) (local.get $b0))))
      (local.set $pa (i32.add (local.get $pa) (i32.const 4)))
      (local.set $po (i32.add (local.get $po) (i32.const 4)))
      (br_if $p (local.tee $k (i32.sub (local.get $k) (i32.const 1)))))
    (v128.store32_lane align=4 0 (local.get $pc) (local.get $acc00))
  )

  ;; ---- a convolution's input gradient in planes, without W_gᵀ·∂out_g written out ----

  ;; planes_grad(a, b, sh, dst, dims), dims → [cig, taps, m, n, sb, sd] (i32): for each of cig rows ci of dst (sd
  ;; floats apart) and each column j < n, in this order: for each tap i < taps, t = +0, then t += a[ci][i][o]·
  ;; b[o·sb + j − sh[i]] for o = 0, 1, …, m−1 (a [cig][taps][m]; b's rows sb floats apart, read sh[i] floats to
  ;; the left: the caller leaves +0 there), and dst[ci][j] += t. That is W_gᵀ·∂out_g's columns (sums from +0 over
  ;; the group's outputs, as matmul_add makes them) shifted by the taps' offsets and added in tap order, as the
  ;; product of ones with the shifted columns adds them (1·t is t): the same bits, with nothing written between.
  ;; Blocks of 4 rows × 8 columns ($pg4: 8 partial sums, dst's rows the accumulators), rows left over by 2 × 8 (4
  ;; accumulators, 4 partial sums) and 1 × 8, columns left over one at a time in f32. The caller checked every address.
  (func (export "planes_grad") (param $a i32) (param $b i32) (param $sh i32) (param $dst i32) (param $dims i32)
    (local $cig i32) (local $taps i32) (local $m i32) (local $n i32) (local $sb i32) (local $sd i32) (local $sa i32)
    (local $ci i32)
    (local.set $cig (i32.load align=4 (local.get $dims)))
    (local.set $taps (i32.load offset=4 align=4 (local.get $dims)))
    (local.set $m (i32.load offset=8 align=4 (local.get $dims)))
    (local.set $n (i32.load offset=12 align=4 (local.get $dims)))
    (local.set $sb (i32.shl (i32.load offset=16 align=4 (local.get $dims)) (i32.const 2)))
    (local.set $sd (i32.shl (i32.load offset=20 align=4 (local.get $dims)) (i32.const 2)))
    ;; No taps or no columns: nothing to add; no outputs: each t is +0, and x + +0 is x (dst holds no -0).
    (if (i32.or (i32.or (i32.eqz (local.get $taps)) (i32.eqz (local.get $m))) (i32.eqz (local.get $n))) (then (return)))
    (local.set $sa (i32.shl (i32.mul (local.get $taps) (local.get $m)) (i32.const 2)))
    (local.set $ci (i32.const 0))
    (block $quads_done
      (loop $quads
        (br_if $quads_done (i32.gt_u (i32.add (local.get $ci) (i32.const 4)) (local.get $cig)))
        (call $pg4 (i32.add (local.get $a) (i32.mul (local.get $ci) (local.get $sa))) (local.get $b) (local.get $sh)
                   (i32.add (local.get $dst) (i32.mul (local.get $ci) (local.get $sd)))
                   (local.get $taps) (local.get $m) (local.get $n) (local.get $sb) (local.get $sa) (local.get $sd))
        (local.set $ci (i32.add (local.get $ci) (i32.const 4)))
        (br $quads)))
    (block $pairs_done
      (loop $pairs
        (br_if $pairs_done (i32.gt_u (i32.add (local.get $ci) (i32.const 2)) (local.get $cig)))
        (call $pg2 (i32.add (local.get $a) (i32.mul (local.get $ci) (local.get $sa))) (local.get $b) (local.get $sh)
                   (i32.add (local.get $dst) (i32.mul (local.get $ci) (local.get $sd)))
                   (local.get $taps) (local.get $m) (local.get $n) (local.get $sb) (local.get $sa) (local.get $sd))
        (local.set $ci (i32.add (local.get $ci) (i32.const 2)))
        (br $pairs)))
    (if (i32.lt_u (local.get $ci) (local.get $cig)) (then
      (call $pg1 (i32.add (local.get $a) (i32.mul (local.get $ci) (local.get $sa))) (local.get $b) (local.get $sh)
                 (i32.add (local.get $dst) (i32.mul (local.get $ci) (local.get $sd)))
                 (local.get $taps) (local.get $m) (local.get $n) (local.get $sb))))
  )

  ;; $pg4: planes_grad's rows ci … ci+3 (a0 + r·sa, d0 + r·sd for r < 4). Blocks of 4 rows × 8 columns: a tap's 8
  ;; partial sums in registers (8 chains of additions), then added to dst where it lies, tap after tap: dst's rows
  ;; are the accumulators (16 more v128 would not fit V8's registers), loaded, added and stored, so each
  ;; dst[ci][j] still adds its taps' sums in tap order: the same bits as pg2, with half the loads of b a product.
  (func $pg4 (param $a0 i32) (param $b i32) (param $sh i32) (param $d0 i32) (param $taps i32) (param $m i32) (param $n i32)
    (param $sb i32) (param $sa i32) (param $sd i32)
    (local $t00 v128) (local $t01 v128) (local $t10 v128) (local $t11 v128)
    (local $t20 v128) (local $t21 v128) (local $t30 v128) (local $t31 v128)
    (local $b0 v128) (local $b1 v128) (local $s v128)
    (local $a1 i32) (local $a2 i32) (local $a3 i32) (local $d1 i32) (local $d2 i32) (local $d3 i32)
    (local $j i32) (local $end i32) (local $i i32) (local $o i32)
    (local $pa0 i32) (local $pa1 i32) (local $pa2 i32) (local $pa3 i32) (local $ps i32) (local $r i32) (local $q i32)
    (local.set $a1 (i32.add (local.get $a0) (local.get $sa)))
    (local.set $a2 (i32.add (local.get $a1) (local.get $sa)))
    (local.set $a3 (i32.add (local.get $a2) (local.get $sa)))
    (local.set $d1 (i32.add (local.get $d0) (local.get $sd)))
    (local.set $d2 (i32.add (local.get $d1) (local.get $sd)))
    (local.set $d3 (i32.add (local.get $d2) (local.get $sd)))
    (local.set $end (i32.shl (local.get $n) (i32.const 2)))
    (local.set $j (i32.const 0))
    (block $cols_done
      (loop $cols
        (br_if $cols_done (i32.gt_u (i32.add (local.get $j) (i32.const 32)) (local.get $end)))
        (local.set $pa0 (local.get $a0))
        (local.set $pa1 (local.get $a1))
        (local.set $pa2 (local.get $a2))
        (local.set $pa3 (local.get $a3))
        (local.set $ps (local.get $sh))
        (local.set $i (local.get $taps))
        (loop $tap
          (local.set $r (i32.sub (i32.add (local.get $b) (local.get $j)) (i32.shl (i32.load align=4 (local.get $ps)) (i32.const 2))))
          (local.set $t00 (v128.const f32x4 0 0 0 0))
          (local.set $t01 (v128.const f32x4 0 0 0 0))
          (local.set $t10 (v128.const f32x4 0 0 0 0))
          (local.set $t11 (v128.const f32x4 0 0 0 0))
          (local.set $t20 (v128.const f32x4 0 0 0 0))
          (local.set $t21 (v128.const f32x4 0 0 0 0))
          (local.set $t30 (v128.const f32x4 0 0 0 0))
          (local.set $t31 (v128.const f32x4 0 0 0 0))
          (local.set $o (local.get $m))
          (loop $out
            (local.set $b0 (v128.load align=4 (local.get $r)))
            (local.set $b1 (v128.load offset=16 align=4 (local.get $r)))
            (local.set $s (v128.load32_splat align=4 (local.get $pa0)))
            (local.set $t00 (f32x4.add (local.get $t00) (f32x4.mul (local.get $s) (local.get $b0))))
            (local.set $t01 (f32x4.add (local.get $t01) (f32x4.mul (local.get $s) (local.get $b1))))
            (local.set $s (v128.load32_splat align=4 (local.get $pa1)))
            (local.set $t10 (f32x4.add (local.get $t10) (f32x4.mul (local.get $s) (local.get $b0))))
            (local.set $t11 (f32x4.add (local.get $t11) (f32x4.mul (local.get $s) (local.get $b1))))
            (local.set $s (v128.load32_splat align=4 (local.get $pa2)))
            (local.set $t20 (f32x4.add (local.get $t20) (f32x4.mul (local.get $s) (local.get $b0))))
            (local.set $t21 (f32x4.add (local.get $t21) (f32x4.mul (local.get $s) (local.get $b1))))
            (local.set $s (v128.load32_splat align=4 (local.get $pa3)))
            (local.set $t30 (f32x4.add (local.get $t30) (f32x4.mul (local.get $s) (local.get $b0))))
            (local.set $t31 (f32x4.add (local.get $t31) (f32x4.mul (local.get $s) (local.get $b1))))
            (local.set $r (i32.add (local.get $r) (local.get $sb)))
            (local.set $pa0 (i32.add (local.get $pa0) (i32.const 4)))
            (local.set $pa1 (i32.add (local.get $pa1) (i32.const 4)))
            (local.set $pa2 (i32.add (local.get $pa2) (i32.const 4)))
            (local.set $pa3 (i32.add (local.get $pa3) (i32.const 4)))
            (br_if $out (local.tee $o (i32.sub (local.get $o) (i32.const 1)))))
          (local.set $q (i32.add (local.get $d0) (local.get $j)))
          (v128.store align=4 (local.get $q) (f32x4.add (v128.load align=4 (local.get $q)) (local.get $t00)))
          (v128.store offset=16 align=4 (local.get $q) (f32x4.add (v128.load offset=16 align=4 (local.get $q)) (local.get $t01)))
          (local.set $q (i32.add (local.get $d1) (local.get $j)))
          (v128.store align=4 (local.get $q) (f32x4.add (v128.load align=4 (local.get $q)) (local.get $t10)))
          (v128.store offset=16 align=4 (local.get $q) (f32x4.add (v128.load offset=16 align=4 (local.get $q)) (local.get $t11)))
          (local.set $q (i32.add (local.get $d2) (local.get $j)))
          (v128.store align=4 (local.get $q) (f32x4.add (v128.load align=4 (local.get $q)) (local.get $t20)))
          (v128.store offset=16 align=4 (local.get $q) (f32x4.add (v128.load offset=16 align=4 (local.get $q)) (local.get $t21)))
          (local.set $q (i32.add (local.get $d3) (local.get $j)))
          (v128.store align=4 (local.get $q) (f32x4.add (v128.load align=4 (local.get $q)) (local.get $t30)))
          (v128.store offset=16 align=4 (local.get $q) (f32x4.add (v128.load offset=16 align=4 (local.get $q)) (local.get $t31)))
          (local.set $ps (i32.add (local.get $ps) (i32.const 4)))
          (br_if $tap (local.tee $i (i32.sub (local.get $i) (i32.const 1)))))
        (local.set $j (i32.add (local.get $j) (i32.const 32)))
        (br $cols)))
    (block $tail_done
      (loop $tail
        (br_if $tail_done (i32.ge_u (local.get $j) (local.get $end)))
        (call $pgcol (local.get $a0) (local.get $b) (local.get $sh) (i32.add (local.get $d0) (local.get $j)) (local.get $taps) (local.get $m) (local.get $sb) (local.get $j))
        (call $pgcol (local.get $a1) (local.get $b) (local.get $sh) (i32.add (local.get $d1) (local.get $j)) (local.get $taps) (local.get $m) (local.get $sb) (local.get $j))
        (call $pgcol (local.get $a2) (local.get $b) (local.get $sh) (i32.add (local.get $d2) (local.get $j)) (local.get $taps) (local.get $m) (local.get $sb) (local.get $j))
        (call $pgcol (local.get $a3) (local.get $b) (local.get $sh) (i32.add (local.get $d3) (local.get $j)) (local.get $taps) (local.get $m) (local.get $sb) (local.get $j))
        (local.set $j (i32.add (local.get $j) (i32.const 4)))
        (br $tail)))
  )

  ;; $pg2: planes_grad's rows ci and ci+1 (a0 and a0 + sa, d0 and d0 + sd).
  (func $pg2 (param $a0 i32) (param $b i32) (param $sh i32) (param $d0 i32) (param $taps i32) (param $m i32) (param $n i32)
    (param $sb i32) (param $sa i32) (param $sd i32)
    (local $acc00 v128) (local $acc01 v128) (local $acc10 v128) (local $acc11 v128)
    (local $t00 v128) (local $t01 v128) (local $t10 v128) (local $t11 v128)
    (local $b0 v128) (local $b1 v128) (local $s v128)
    (local $a1 i32) (local $d1 i32) (local $j i32) (local $end i32) (local $i i32) (local $o i32)
    (local $pa0 i32) (local $pa1 i32) (local $ps i32) (local $r i32)
    (local.set $a1 (i32.add (local.get $a0) (local.get $sa)))
    (local.set $d1 (i32.add (local.get $d0) (local.get $sd)))
    (local.set $end (i32.shl (local.get $n) (i32.const 2)))
    (local.set $j (i32.const 0))
    (block $cols_done
      (loop $cols
        (br_if $cols_done (i32.gt_u (i32.add (local.get $j) (i32.const 32)) (local.get $end)))
        (local.set $acc00 (v128.load align=4 (i32.add (local.get $d0) (local.get $j))))
        (local.set $acc01 (v128.load offset=16 align=4 (i32.add (local.get $d0) (local.get $j))))
        (local.set $acc10 (v128.load align=4 (i32.add (local.get $d1) (local.get $j))))
        (local.set $acc11 (v128.load offset=16 align=4 (i32.add (local.get $d1) (local.get $j))))
        (local.set $pa0 (local.get $a0))
        (local.set $pa1 (local.get $a1))
        (local.set $ps (local.get $sh))
        (local.set $i (local.get $taps))
        (loop $tap
          (local.set $r (i32.sub (i32.add (local.get $b) (local.get $j)) (i32.shl (i32.load align=4 (local.get $ps)) (i32.const 2))))
          (local.set $t00 (v128.const f32x4 0 0 0 0))
          (local.set $t01 (v128.const f32x4 0 0 0 0))
          (local.set $t10 (v128.const f32x4 0 0 0 0))
          (local.set $t11 (v128.const f32x4 0 0 0 0))
          (local.set $o (local.get $m))
          (loop $out
            (local.set $b0 (v128.load align=4 (local.get $r)))
            (local.set $b1 (v128.load offset=16 align=4 (local.get $r)))
            (local.set $s (v128.load32_splat align=4 (local.get $pa0)))
            (local.set $t00 (f32x4.add (local.get $t00) (f32x4.mul (local.get $s) (local.get $b0))))
            (local.set $t01 (f32x4.add (local.get $t01) (f32x4.mul (local.get $s) (local.get $b1))))
            (local.set $s (v128.load32_splat align=4 (local.get $pa1)))
            (local.set $t10 (f32x4.add (local.get $t10) (f32x4.mul (local.get $s) (local.get $b0))))
            (local.set $t11 (f32x4.add (local.get $t11) (f32x4.mul (local.get $s) (local.get $b1))))
            (local.set $r (i32.add (local.get $r) (local.get $sb)))
            (local.set $pa0 (i32.add (local.get $pa0) (i32.const 4)))
            (local.set $pa1 (i32.add (local.get $pa1) (i32.const 4)))
            (br_if $out (local.tee $o (i32.sub (local.get $o) (i32.const 1)))))
          (local.set $acc00 (f32x4.add (local.get $acc00) (local.get $t00)))
          (local.set $acc01 (f32x4.add (local.get $acc01) (local.get $t01)))
          (local.set $acc10 (f32x4.add (local.get $acc10) (local.get $t10)))
          (local.set $acc11 (f32x4.add (local.get $acc11) (local.get $t11)))
          (local.set $ps (i32.add (local.get $ps) (i32.const 4)))
          (br_if $tap (local.tee $i (i32.sub (local.get $i) (i32.const 1)))))
        (v128.store align=4 (i32.add (local.get $d0) (local.get $j)) (local.get $acc00))
        (v128.store offset=16 align=4 (i32.add (local.get $d0) (local.get $j)) (local.get $acc01))
        (v128.store align=4 (i32.add (local.get $d1) (local.get $j)) (local.get $acc10))
        (v128.store offset=16 align=4 (i32.add (local.get $d1) (local.get $j)) (local.get $acc11))
        (local.set $j (i32.add (local.get $j) (i32.const 32)))
        (br $cols)))
    (block $tail_done
      (loop $tail
        (br_if $tail_done (i32.ge_u (local.get $j) (local.get $end)))
        (call $pgcol (local.get $a0) (local.get $b) (local.get $sh) (i32.add (local.get $d0) (local.get $j)) (local.get $taps) (local.get $m) (local.get $sb) (local.get $j))
        (call $pgcol (local.get $a1) (local.get $b) (local.get $sh) (i32.add (local.get $d1) (local.get $j)) (local.get $taps) (local.get $m) (local.get $sb) (local.get $j))
        (local.set $j (i32.add (local.get $j) (i32.const 4)))
        (br $tail)))
  )

  ;; $pg1: planes_grad's row at a0, d0 alone.
  (func $pg1 (param $a0 i32) (param $b i32) (param $sh i32) (param $d0 i32) (param $taps i32) (param $m i32) (param $n i32)
    (param $sb i32)
    (local $acc00 v128) (local $acc01 v128) (local $t00 v128) (local $t01 v128)
    (local $b0 v128) (local $b1 v128) (local $s v128)
    (local $j i32) (local $end i32) (local $i i32) (local $o i32) (local $pa0 i32) (local $ps i32) (local $r i32)
    (local.set $end (i32.shl (local.get $n) (i32.const 2)))
    (local.set $j (i32.const 0))
    (block $cols_done
      (loop $cols
        (br_if $cols_done (i32.gt_u (i32.add (local.get $j) (i32.const 32)) (local.get $end)))
        (local.set $acc00 (v128.load align=4 (i32.add (local.get $d0) (local.get $j))))
        (local.set $acc01 (v128.load offset=16 align=4 (i32.add (local.get $d0) (local.get $j))))
        (local.set $pa0 (local.get $a0))
        (local.set $ps (local.get $sh))
        (local.set $i (local.get $taps))
        (loop $tap
          (local.set $r (i32.sub (i32.add (local.get $b) (local.get $j)) (i32.shl (i32.load align=4 (local.get $ps)) (i32.const 2))))
          (local.set $t00 (v128.const f32x4 0 0 0 0))
          (local.set $t01 (v128.const f32x4 0 0 0 0))
          (local.set $o (local.get $m))
          (loop $out
            (local.set $b0 (v128.load align=4 (local.get $r)))
            (local.set $b1 (v128.load offset=16 align=4 (local.get $r)))
            (local.set $s (v128.load32_splat align=4 (local.get $pa0)))
            (local.set $t00 (f32x4.add (local.get $t00) (f32x4.mul (local.get $s) (local.get $b0))))
            (local.set $t01 (f32x4.add (local.get $t01) (f32x4.mul (local.get $s) (local.get $b1))))
            (local.set $r (i32.add (local.get $r) (local.get $sb)))
            (local.set $pa0 (i32.add (local.get $pa0) (i32.const 4)))
            (br_if $out (local.tee $o (i32.sub (local.get $o) (i32.const 1)))))
          (local.set $acc00 (f32x4.add (local.get $acc00) (local.get $t00)))
          (local.set $acc01 (f32x4.add (local.get $acc01) (local.get $t01)))
          (local.set $ps (i32.add (local.get $ps) (i32.const 4)))
          (br_if $tap (local.tee $i (i32.sub (local.get $i) (i32.const 1)))))
        (v128.store align=4 (i32.add (local.get $d0) (local.get $j)) (local.get $acc00))
        (v128.store offset=16 align=4 (i32.add (local.get $d0) (local.get $j)) (local.get $acc01))
        (local.set $j (i32.add (local.get $j) (i32.const 32)))
        (br $cols)))
    (block $tail_done
      (loop $tail
        (br_if $tail_done (i32.ge_u (local.get $j) (local.get $end)))
        (call $pgcol (local.get $a0) (local.get $b) (local.get $sh) (i32.add (local.get $d0) (local.get $j)) (local.get $taps) (local.get $m) (local.get $sb) (local.get $j))
        (local.set $j (i32.add (local.get $j) (i32.const 4)))
        (br $tail)))
  )

  ;; $pgcol: one column (byte offset $j in b's rows) of one row of planes_grad, into the float at $d, in f32.
  (func $pgcol (param $pa i32) (param $b i32) (param $sh i32) (param $d i32) (param $taps i32) (param $m i32) (param $sb i32) (param $j i32)
    (local $acc f32) (local $t f32) (local $r i32) (local $o i32)
    (local.set $acc (f32.load align=4 (local.get $d)))
    (loop $tap
      (local.set $r (i32.sub (i32.add (local.get $b) (local.get $j)) (i32.shl (i32.load align=4 (local.get $sh)) (i32.const 2))))
      (local.set $t (f32.const 0))
      (local.set $o (local.get $m))
      (loop $out
        (local.set $t (f32.add (local.get $t) (f32.mul (f32.load align=4 (local.get $pa)) (f32.load align=4 (local.get $r)))))
        (local.set $r (i32.add (local.get $r) (local.get $sb)))
        (local.set $pa (i32.add (local.get $pa) (i32.const 4)))
        (br_if $out (local.tee $o (i32.sub (local.get $o) (i32.const 1)))))
      (local.set $acc (f32.add (local.get $acc) (local.get $t)))
      (local.set $sh (i32.add (local.get $sh) (i32.const 4)))
      (br_if $tap (local.tee $taps (i32.sub (local.get $taps) (i32.const 1)))))
    (f32.store align=4 (local.get $d) (local.get $acc))
  )

  ;; ---- rows moved through a table of offsets (a convolution's images into and out of its planes) ----

  ;; move_rows(dst, src, offs, rows, w, mode): for r < rows and j < w, with the table on dst's side (mode & 2 = 0)
  ;; dst[offs[r] + j] = or += src[r·w + j], on src's side (mode & 2) dst[r·w + j] = or += src[offs[r] + j]; added
  ;; (f32x4.add, each lane a float32 addition) where mode & 1, else copied, bits and all. Each value is written once:
  ;; as GatherIdx, ScatterAddIdx or ScatterAddPairs through maps whose rows are runs (kernel.MoveRows). The caller
  ;; checked every row.
  (func (export "move_rows") (param $dst i32) (param $src i32) (param $offs i32) (param $rows i32) (param $w i32) (param $mode i32)
    (local $d i32) (local $s i32) (local $j i32) (local $end i32) (local $w4 i32) (local $sw i32) (local $add i32)
    (local.set $sw (i32.shl (local.get $w) (i32.const 2)))
    (local.set $w4 (i32.and (local.get $sw) (i32.const -16)))
    (local.set $add (i32.and (local.get $mode) (i32.const 1)))
    (block $done
      (loop $row
        (br_if $done (i32.eqz (local.get $rows)))
        (if (i32.and (local.get $mode) (i32.const 2))
          (then
            (local.set $d (local.get $dst))
            (local.set $s (i32.add (local.get $src) (i32.shl (i32.load align=4 (local.get $offs)) (i32.const 2)))))
          (else
            (local.set $d (i32.add (local.get $dst) (i32.shl (i32.load align=4 (local.get $offs)) (i32.const 2))))
            (local.set $s (local.get $src))))
        (local.set $j (i32.const 0))
        (if (local.get $add)
          (then
            (block $v_done (loop $v
              (br_if $v_done (i32.ge_u (local.get $j) (local.get $w4)))
              (v128.store align=4 (i32.add (local.get $d) (local.get $j))
                (f32x4.add (v128.load align=4 (i32.add (local.get $d) (local.get $j))) (v128.load align=4 (i32.add (local.get $s) (local.get $j)))))
              (local.set $j (i32.add (local.get $j) (i32.const 16)))
              (br $v)))
            (block $t_done (loop $t
              (br_if $t_done (i32.ge_u (local.get $j) (local.get $sw)))
              (f32.store align=4 (i32.add (local.get $d) (local.get $j))
                (f32.add (f32.load align=4 (i32.add (local.get $d) (local.get $j))) (f32.load align=4 (i32.add (local.get $s) (local.get $j)))))
              (local.set $j (i32.add (local.get $j) (i32.const 4)))
              (br $t))))
          (else
            (block $v_done (loop $v
              (br_if $v_done (i32.ge_u (local.get $j) (local.get $w4)))
              (v128.store align=4 (i32.add (local.get $d) (local.get $j)) (v128.load align=4 (i32.add (local.get $s) (local.get $j))))
              (local.set $j (i32.add (local.get $j) (i32.const 16)))
              (br $v)))
            (block $t_done (loop $t
              (br_if $t_done (i32.ge_u (local.get $j) (local.get $sw)))
              (i32.store align=4 (i32.add (local.get $d) (local.get $j)) (i32.load align=4 (i32.add (local.get $s) (local.get $j))))
              (local.set $j (i32.add (local.get $j) (i32.const 4)))
              (br $t)))))
        (if (i32.and (local.get $mode) (i32.const 2))
          (then (local.set $dst (i32.add (local.get $dst) (local.get $sw))))
          (else (local.set $src (i32.add (local.get $src) (local.get $sw)))))
        (local.set $offs (i32.add (local.get $offs) (i32.const 4)))
        (local.set $rows (i32.sub (local.get $rows) (i32.const 1)))
        (br $row)))
  )

  ;; ---- sparse rows: a convolution's products after a ReLU (package kernel's Sparse, sparse.go) ----
  ;;
  ;; A Sparse [rows × cols] is three arrays: n[i], the count of row i's entries, and col, val, whose row i holds
  ;; its entries at byte offset i·cols·4: their columns (increasing) and values. A value is an entry when it is
  ;; not equal to zero (f32.ne: a NaN is, ±0 is not). The two builders write each value into its row's next slot
  ;; and advance the row's count by the comparison, with no branch on the data.

  ;; sparse_transpose(d, n, col, val, rows, cols): the Sparse [rows × cols] of the transpose of d, row-major
  ;; [cols × rows]: for k = 0 … cols−1, for p = 0 … rows−1, d[k][p] goes to row p, column k.
  (func (export "sparse_transpose") (param $d i32) (param $n i32) (param $col i32) (param $val i32) (param $rows i32) (param $cols i32)
    (local $k i32) (local $p i32) (local $v f32) (local $np i32) (local $c i32) (local $at i32) (local $rs i32)
    (local.set $p (i32.const 0))
    (block $clear_done
      (loop $clear
        (br_if $clear_done (i32.ge_u (local.get $p) (local.get $rows)))
        (i32.store align=4 (i32.add (local.get $n) (i32.shl (local.get $p) (i32.const 2))) (i32.const 0))
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (br $clear)))
    (local.set $rs (i32.shl (local.get $cols) (i32.const 2)))  ;; a row of entries, in bytes
    (local.set $k (i32.const 0))
    (block $k_done
      (loop $kl
        (br_if $k_done (i32.ge_u (local.get $k) (local.get $cols)))
        (local.set $np (local.get $n))
        (local.set $at (i32.const 0))                          ;; row p's entries, in bytes
        (local.set $p (local.get $rows))
        (block $p_done
          (loop $pl
            (br_if $p_done (i32.eqz (local.get $p)))
            (local.set $v (f32.load align=4 (local.get $d)))
            (local.set $c (i32.load align=4 (local.get $np)))
            (i32.store align=4 (i32.add (i32.add (local.get $col) (local.get $at)) (i32.shl (local.get $c) (i32.const 2))) (local.get $k))
            (f32.store align=4 (i32.add (i32.add (local.get $val) (local.get $at)) (i32.shl (local.get $c) (i32.const 2))) (local.get $v))
            (i32.store align=4 (local.get $np) (i32.add (local.get $c) (f32.ne (local.get $v) (f32.const 0))))
            (local.set $d (i32.add (local.get $d) (i32.const 4)))
            (local.set $np (i32.add (local.get $np) (i32.const 4)))
            (local.set $at (i32.add (local.get $at) (local.get $rs)))
            (local.set $p (i32.sub (local.get $p) (i32.const 1)))
            (br $pl)))
        (local.set $k (i32.add (local.get $k) (i32.const 1)))
        (br $kl)))
  )

  ;; sparse_gather(src, wn, wcol, wpos, n, col, val, rows, cols): the Sparse [rows × cols] of the windows (wn, wcol,
  ;; wpos: row p reads wn[p] values, the e-th at src[wpos[e]] for column wcol[e], at byte offset p·cols·4 in
  ;; both; the window's other columns are padding, +0, and not listed). The caller checked every position.
  (func (export "sparse_gather") (param $src i32) (param $wn i32) (param $wcol i32) (param $wpos i32) (param $n i32) (param $col i32) (param $val i32)
    (param $rows i32) (param $cols i32)
    (local $e i32) (local $v f32) (local $c i32) (local $rs i32) (local $kc i32) (local $kp i32)
    (local.set $rs (i32.shl (local.get $cols) (i32.const 2)))
    (block $rows_done
      (loop $row
        (br_if $rows_done (i32.eqz (local.get $rows)))
        (local.set $c (i32.const 0))
        (local.set $e (i32.load align=4 (local.get $wn)))
        (local.set $kc (local.get $wcol))
        (local.set $kp (local.get $wpos))
        (block $e_done
          (loop $el
            (br_if $e_done (i32.eqz (local.get $e)))
            (local.set $v (f32.load align=4 (i32.add (local.get $src) (i32.shl (i32.load align=4 (local.get $kp)) (i32.const 2)))))
            (i32.store align=4 (i32.add (local.get $col) (i32.shl (local.get $c) (i32.const 2))) (i32.load align=4 (local.get $kc)))
            (f32.store align=4 (i32.add (local.get $val) (i32.shl (local.get $c) (i32.const 2))) (local.get $v))
            (local.set $c (i32.add (local.get $c) (f32.ne (local.get $v) (f32.const 0))))
            (local.set $kc (i32.add (local.get $kc) (i32.const 4)))
            (local.set $kp (i32.add (local.get $kp) (i32.const 4)))
            (local.set $e (i32.sub (local.get $e) (i32.const 1)))
            (br $el)))
        (i32.store align=4 (local.get $n) (local.get $c))
        (local.set $wn (i32.add (local.get $wn) (i32.const 4)))
        (local.set $n (i32.add (local.get $n) (i32.const 4)))
        (local.set $wcol (i32.add (local.get $wcol) (local.get $rs)))
        (local.set $wpos (i32.add (local.get $wpos) (local.get $rs)))
        (local.set $col (i32.add (local.get $col) (local.get $rs)))
        (local.set $val (i32.add (local.get $val) (local.get $rs)))
        (local.set $rows (i32.sub (local.get $rows) (i32.const 1)))
        (br $row)))
  )

  ;; sparse_rows(d, n, col, val, rows, cols) → listed: the Sparse [rows × cols] of the row-major d [rows × cols],
  ;; and the count of values it lists.
  (func (export "sparse_rows") (param $d i32) (param $n i32) (param $col i32) (param $val i32) (param $rows i32) (param $cols i32)
    (result i32)
    (local $k i32) (local $v f32) (local $c i32) (local $rs i32) (local $total i32)
    (local.set $rs (i32.shl (local.get $cols) (i32.const 2)))
    (block $rows_done
      (loop $row
        (br_if $rows_done (i32.eqz (local.get $rows)))
        (local.set $c (i32.const 0))
        (local.set $k (i32.const 0))
        (block $k_done
          (loop $kl
            (br_if $k_done (i32.ge_u (local.get $k) (local.get $cols)))
            (local.set $v (f32.load align=4 (local.get $d)))
            (i32.store align=4 (i32.add (local.get $col) (i32.shl (local.get $c) (i32.const 2))) (local.get $k))
            (f32.store align=4 (i32.add (local.get $val) (i32.shl (local.get $c) (i32.const 2))) (local.get $v))
            (local.set $c (i32.add (local.get $c) (f32.ne (local.get $v) (f32.const 0))))
            (local.set $d (i32.add (local.get $d) (i32.const 4)))
            (local.set $k (i32.add (local.get $k) (i32.const 1)))
            (br $kl)))
        (i32.store align=4 (local.get $n) (local.get $c))
        (local.set $total (i32.add (local.get $total) (local.get $c)))
        (local.set $n (i32.add (local.get $n) (i32.const 4)))
        (local.set $col (i32.add (local.get $col) (local.get $rs)))
        (local.set $val (i32.add (local.get $val) (local.get $rs)))
        (local.set $rows (i32.sub (local.get $rows) (i32.const 1)))
        (br $row)))
    (local.get $total)
  )

  ;; sparse_matmul(c, b, n, col, val, rows, cols, width, zero): c += a·b for the Sparse a [rows × cols] (n, col,
  ;; val) and row-major b [cols × width], c [rows × width]: c[i][j] gets the products val·b[col][j] of row i's
  ;; entries added one at a time in their order (increasing columns), each rounded to float32 (f32x4.mul then
  ;; f32x4.add), which are MatMulAdd's sums with a's zeros skipped. With zero ≠ 0 the sums start from +0, not c.
  ;; Columns go 32 at a time (8 accumulators, each row's entries run once per block of columns, b's block read
  ;; from cache row after row), then 16, 4 and 1.
  (func (export "sparse_matmul") (param $c i32) (param $b i32) (param $n i32) (param $col i32) (param $val i32)
    (param $rows i32) (param $cols i32) (param $width i32) (param $zero i32)
    (local $left i32) (local $off i32) (local $rs i32) (local $sb i32)
    (local.set $rs (i32.shl (local.get $cols) (i32.const 2)))
    (local.set $sb (i32.shl (local.get $width) (i32.const 2)))
    (local.set $left (local.get $width))
    (block $w32_done
      (loop $w32
        (br_if $w32_done (i32.lt_u (local.get $left) (i32.const 32)))
        (call $sparse32 (i32.add (local.get $c) (local.get $off)) (i32.add (local.get $b) (local.get $off)) (local.get $n) (local.get $col)
          (local.get $val) (local.get $rows) (local.get $rs) (local.get $sb) (local.get $zero))
        (local.set $off (i32.add (local.get $off) (i32.const 128)))
        (local.set $left (i32.sub (local.get $left) (i32.const 32)))
        (br $w32)))
    (if (i32.ge_u (local.get $left) (i32.const 16)) (then
      (call $sparse16 (i32.add (local.get $c) (local.get $off)) (i32.add (local.get $b) (local.get $off)) (local.get $n) (local.get $col)
        (local.get $val) (local.get $rows) (local.get $rs) (local.get $sb) (local.get $zero))
      (local.set $off (i32.add (local.get $off) (i32.const 64)))
      (local.set $left (i32.sub (local.get $left) (i32.const 16)))))
    (block $w4_done
      (loop $w4
        (br_if $w4_done (i32.lt_u (local.get $left) (i32.const 4)))
        (call $sparse4 (i32.add (local.get $c) (local.get $off)) (i32.add (local.get $b) (local.get $off)) (local.get $n) (local.get $col)
          (local.get $val) (local.get $rows) (local.get $rs) (local.get $sb) (local.get $zero))
        (local.set $off (i32.add (local.get $off) (i32.const 16)))
        (local.set $left (i32.sub (local.get $left) (i32.const 4)))
        (br $w4)))
    (block $w1_done
      (loop $w1
        (br_if $w1_done (i32.eqz (local.get $left)))
        (call $sparse1 (i32.add (local.get $c) (local.get $off)) (i32.add (local.get $b) (local.get $off)) (local.get $n) (local.get $col)
          (local.get $val) (local.get $rows) (local.get $rs) (local.get $sb) (local.get $zero))
        (local.set $off (i32.add (local.get $off) (i32.const 4)))
        (local.set $left (i32.sub (local.get $left) (i32.const 1)))
        (br $w1)))
  )

  ;; $sparse32: columns [0, 32) of c from $pc and of b from $pb, every row (see sparse_matmul).
  (func $sparse32 (param $pc i32) (param $pb i32) (param $n i32) (param $pk i32) (param $pv i32) (param $rows i32)
                (param $rs i32) (param $sb i32) (param $zero i32)
    (local $acc0 v128) (local $acc1 v128) (local $acc2 v128) (local $acc3 v128) (local $acc4 v128) (local $acc5 v128) (local $acc6 v128) (local $acc7 v128) (local $s v128)
    (local $e i32) (local $ek i32) (local $ev i32) (local $bp i32)
    (block $rows_done
      (loop $row
        (br_if $rows_done (i32.eqz (local.get $rows)))
        (if (local.get $zero)
          (then
            (local.set $acc0 (v128.const i32x4 0 0 0 0))
            (local.set $acc1 (v128.const i32x4 0 0 0 0))
            (local.set $acc2 (v128.const i32x4 0 0 0 0))
            (local.set $acc3 (v128.const i32x4 0 0 0 0))
            (local.set $acc4 (v128.const i32x4 0 0 0 0))
            (local.set $acc5 (v128.const i32x4 0 0 0 0))
            (local.set $acc6 (v128.const i32x4 0 0 0 0))
            (local.set $acc7 (v128.const i32x4 0 0 0 0))
          )
          (else
            (local.set $acc0 (v128.load align=4 (local.get $pc)))
            (local.set $acc1 (v128.load offset=16 align=4 (local.get $pc)))
            (local.set $acc2 (v128.load offset=32 align=4 (local.get $pc)))
            (local.set $acc3 (v128.load offset=48 align=4 (local.get $pc)))
            (local.set $acc4 (v128.load offset=64 align=4 (local.get $pc)))
            (local.set $acc5 (v128.load offset=80 align=4 (local.get $pc)))
            (local.set $acc6 (v128.load offset=96 align=4 (local.get $pc)))
            (local.set $acc7 (v128.load offset=112 align=4 (local.get $pc)))
          ))
        (local.set $e (i32.load align=4 (local.get $n)))
        (local.set $ek (local.get $pk))
        (local.set $ev (local.get $pv))
        (if (local.get $e)
          (then
          (loop $entry
            (local.set $s (v128.load32_splat align=4 (local.get $ev)))
            (local.set $bp (i32.add (local.get $pb) (i32.mul (i32.load align=4 (local.get $ek)) (local.get $sb))))
            (local.set $acc0 (f32x4.add (local.get $acc0) (f32x4.mul (local.get $s) (v128.load align=4 (local.get $bp)))))
            (local.set $acc1 (f32x4.add (local.get $acc1) (f32x4.mul (local.get $s) (v128.load offset=16 align=4 (local.get $bp)))))
            (local.set $acc2 (f32x4.add (local.get $acc2) (f32x4.mul (local.get $s) (v128.load offset=32 align=4 (local.get $bp)))))
            (local.set $acc3 (f32x4.add (local.get $acc3) (f32x4.mul (local.get $s) (v128.load offset=48 align=4 (local.get $bp)))))
            (local.set $acc4 (f32x4.add (local.get $acc4) (f32x4.mul (local.get $s) (v128.load offset=64 align=4 (local.get $bp)))))
            (local.set $acc5 (f32x4.add (local.get $acc5) (f32x4.mul (local.get $s) (v128.load offset=80 align=4 (local.get $bp)))))
            (local.set $acc6 (f32x4.add (local.get $acc6) (f32x4.mul (local.get $s) (v128.load offset=96 align=4 (local.get $bp)))))
            (local.set $acc7 (f32x4.add (local.get $acc7) (f32x4.mul (local.get $s) (v128.load offset=112 align=4 (local.get $bp)))))
            (local.set $ek (i32.add (local.get $ek) (i32.const 4)))
            (local.set $ev (i32.add (local.get $ev) (i32.const 4)))
            (br_if $entry (local.tee $e (i32.sub (local.get $e) (i32.const 1)))))))
        (v128.store align=4 (local.get $pc) (local.get $acc0))
        (v128.store offset=16 align=4 (local.get $pc) (local.get $acc1))
        (v128.store offset=32 align=4 (local.get $pc) (local.get $acc2))
        (v128.store offset=48 align=4 (local.get $pc) (local.get $acc3))
        (v128.store offset=64 align=4 (local.get $pc) (local.get $acc4))
        (v128.store offset=80 align=4 (local.get $pc) (local.get $acc5))
        (v128.store offset=96 align=4 (local.get $pc) (local.get $acc6))
        (v128.store offset=112 align=4 (local.get $pc) (local.get $acc7))
        (local.set $pc (i32.add (local.get $pc) (local.get $sb)))
        (local.set $n (i32.add (local.get $n) (i32.const 4)))
        (local.set $pk (i32.add (local.get $pk) (local.get $rs)))
        (local.set $pv (i32.add (local.get $pv) (local.get $rs)))
        (local.set $rows (i32.sub (local.get $rows) (i32.const 1)))
        (br $row)))
  )

  ;; $sparse16: columns [0, 16) of c from $pc and of b from $pb, every row (see sparse_matmul).
  (func $sparse16 (param $pc i32) (param $pb i32) (param $n i32) (param $pk i32) (param $pv i32) (param $rows i32)
                (param $rs i32) (param $sb i32) (param $zero i32)
    (local $acc0 v128) (local $acc1 v128) (local $acc2 v128) (local $acc3 v128) (local $s v128)
    (local $e i32) (local $ek i32) (local $ev i32) (local $bp i32)
    (block $rows_done
      (loop $row
        (br_if $rows_done (i32.eqz (local.get $rows)))
        (if (local.get $zero)
          (then
            (local.set $acc0 (v128.const i32x4 0 0 0 0))
            (local.set $acc1 (v128.const i32x4 0 0 0 0))
            (local.set $acc2 (v128.const i32x4 0 0 0 0))
            (local.set $acc3 (v128.const i32x4 0 0 0 0))
          )
          (else
            (local.set $acc0 (v128.load align=4 (local.get $pc)))
            (local.set $acc1 (v128.load offset=16 align=4 (local.get $pc)))
            (local.set $acc2 (v128.load offset=32 align=4 (local.get $pc)))
            (local.set $acc3 (v128.load offset=48 align=4 (local.get $pc)))
          ))
        (local.set $e (i32.load align=4 (local.get $n)))
        (local.set $ek (local.get $pk))
        (local.set $ev (local.get $pv))
        (if (local.get $e)
          (then
          (loop $entry
            (local.set $s (v128.load32_splat align=4 (local.get $ev)))
            (local.set $bp (i32.add (local.get $pb) (i32.mul (i32.load align=4 (local.get $ek)) (local.get $sb))))
            (local.set $acc0 (f32x4.add (local.get $acc0) (f32x4.mul (local.get $s) (v128.load align=4 (local.get $bp)))))
            (local.set $acc1 (f32x4.add (local.get $acc1) (f32x4.mul (local.get $s) (v128.load offset=16 align=4 (local.get $bp)))))
            (local.set $acc2 (f32x4.add (local.get $acc2) (f32x4.mul (local.get $s) (v128.load offset=32 align=4 (local.get $bp)))))
            (local.set $acc3 (f32x4.add (local.get $acc3) (f32x4.mul (local.get $s) (v128.load offset=48 align=4 (local.get $bp)))))
            (local.set $ek (i32.add (local.get $ek) (i32.const 4)))
            (local.set $ev (i32.add (local.get $ev) (i32.const 4)))
            (br_if $entry (local.tee $e (i32.sub (local.get $e) (i32.const 1)))))))
        (v128.store align=4 (local.get $pc) (local.get $acc0))
        (v128.store offset=16 align=4 (local.get $pc) (local.get $acc1))
        (v128.store offset=32 align=4 (local.get $pc) (local.get $acc2))
        (v128.store offset=48 align=4 (local.get $pc) (local.get $acc3))
        (local.set $pc (i32.add (local.get $pc) (local.get $sb)))
        (local.set $n (i32.add (local.get $n) (i32.const 4)))
        (local.set $pk (i32.add (local.get $pk) (local.get $rs)))
        (local.set $pv (i32.add (local.get $pv) (local.get $rs)))
        (local.set $rows (i32.sub (local.get $rows) (i32.const 1)))
        (br $row)))
  )

  ;; $sparse4: columns [0, 4) of c from $pc and of b from $pb, every row (see sparse_matmul).
  (func $sparse4 (param $pc i32) (param $pb i32) (param $n i32) (param $pk i32) (param $pv i32) (param $rows i32)
                (param $rs i32) (param $sb i32) (param $zero i32)
    (local $acc0 v128) (local $s v128)
    (local $e i32) (local $ek i32) (local $ev i32) (local $bp i32)
    (block $rows_done
      (loop $row
        (br_if $rows_done (i32.eqz (local.get $rows)))
        (if (local.get $zero)
          (then
            (local.set $acc0 (v128.const i32x4 0 0 0 0))
          )
          (else
            (local.set $acc0 (v128.load align=4 (local.get $pc)))
          ))
        (local.set $e (i32.load align=4 (local.get $n)))
        (local.set $ek (local.get $pk))
        (local.set $ev (local.get $pv))
        (if (local.get $e)
          (then
          (loop $entry
            (local.set $s (v128.load32_splat align=4 (local.get $ev)))
            (local.set $bp (i32.add (local.get $pb) (i32.mul (i32.load align=4 (local.get $ek)) (local.get $sb))))
            (local.set $acc0 (f32x4.add (local.get $acc0) (f32x4.mul (local.get $s) (v128.load align=4 (local.get $bp)))))
            (local.set $ek (i32.add (local.get $ek) (i32.const 4)))
            (local.set $ev (i32.add (local.get $ev) (i32.const 4)))
            (br_if $entry (local.tee $e (i32.sub (local.get $e) (i32.const 1)))))))
        (v128.store align=4 (local.get $pc) (local.get $acc0))
        (local.set $pc (i32.add (local.get $pc) (local.get $sb)))
        (local.set $n (i32.add (local.get $n) (i32.const 4)))
        (local.set $pk (i32.add (local.get $pk) (local.get $rs)))
        (local.set $pv (i32.add (local.get $pv) (local.get $rs)))
        (local.set $rows (i32.sub (local.get $rows) (i32.const 1)))
        (br $row)))
  )

  ;; $sparse1: column 0 of c from $pc and of b from $pb, every row, one float at a time.
  (func $sparse1 (param $pc i32) (param $pb i32) (param $n i32) (param $pk i32) (param $pv i32) (param $rows i32)
                (param $rs i32) (param $sb i32) (param $zero i32)
    (local $acc f32) (local $e i32) (local $ek i32) (local $ev i32)
    (block $rows_done
      (loop $row
        (br_if $rows_done (i32.eqz (local.get $rows)))
        (local.set $acc (select (f32.const 0) (f32.load align=4 (local.get $pc)) (local.get $zero)))
        (local.set $e (i32.load align=4 (local.get $n)))
        (local.set $ek (local.get $pk))
        (local.set $ev (local.get $pv))
        (block $entries_done
          (loop $entry
            (br_if $entries_done (i32.eqz (local.get $e)))
            (local.set $acc (f32.add (local.get $acc) (f32.mul (f32.load align=4 (local.get $ev))
              (f32.load align=4 (i32.add (local.get $pb) (i32.mul (i32.load align=4 (local.get $ek)) (local.get $sb)))))))
            (local.set $ek (i32.add (local.get $ek) (i32.const 4)))
            (local.set $ev (i32.add (local.get $ev) (i32.const 4)))
            (local.set $e (i32.sub (local.get $e) (i32.const 1)))
            (br $entry)))
        (f32.store align=4 (local.get $pc) (local.get $acc))
        (local.set $pc (i32.add (local.get $pc) (local.get $sb)))
        (local.set $n (i32.add (local.get $n) (i32.const 4)))
        (local.set $pk (i32.add (local.get $pk) (local.get $rs)))
        (local.set $pv (i32.add (local.get $pv) (local.get $rs)))
        (local.set $rows (i32.sub (local.get $rows) (i32.const 1)))
        (br $row)))
  )
)
