package kernel

// The pure-Go kernel.
//
// Main path (m >= 3): register blocking of 3 rows × 2 columns. The six c values of a tile live in registers (six
// independent float32 add chains, enough to hide the add latency) for a whole panel of the inner index p; each p
// step loads 3 a values and 2 b values for 6 multiply-adds. 3×2 is what amd64's 15 usable float registers hold
// without spilling (4×2 spills under Go's register allocator and was measured ~30% slower). The two columns of b
// are first packed into a small contiguous buffer, [panelK][2]float32 on the stack, so the p loop reads b
// sequentially instead of striding n floats; a panel of panelK p values is packed once and used by every row
// block of a band of rows (band: about bandElems elements of a, so it stays in L2). Splitting p into panels is allowed: the tile goes
// back to c between panels and the panels run in increasing p, so each element's sum is still sequential.
//
// Tails: an odd last column is a strided dot product per row; rows beyond a multiple of 3 (and all rows when
// m < 3) use a row-times-matrix AXPY that streams b's rows and skips zero a elements.
//
// Every product is written float32(x * y) and added on its own, so the compiler can never fuse it into an FMA
// (the Go spec lets explicit conversions stop fusion), whatever GOAMD64/GOARM64 level.

const (
	panelK    = 512       // p values per packed b panel: [panelK][2]float32 = 4 KiB of stack
	bandElems = 48 * 1024 // a band of rows holds about this many a elements (192 KiB, well inside L2)
	minBand   = 96        // but at least this many rows (a multiple of 3), so packing stays amortized
)

func matMulAddGo(a, b, c []float32, m, k, n int) {
	if m < 3 {
		for i := 0; i < m; i++ {
			axpyRow(a[i*k:i*k+k], b, c[i*n:i*n+n], n)
		}
		return
	}
	var buf [panelK][2]float32
	m3 := m - m%3
	n2 := n - n%2
	band := max(minBand, bandElems/k/3*3)
	for i0 := 0; i0 < m3; i0 += band {
		i1 := min(i0+band, m3)
		for j := 0; j < n2; j += 2 {
			for p0 := 0; p0 < k; p0 += panelK {
				pb := buf[:min(panelK, k-p0)]
				bj := b[p0*n+j:]
				for p := range pb {
					bb := bj[p*n : p*n+2 : p*n+2]
					pb[p] = [2]float32{bb[0], bb[1]}
				}
				for i := i0; i < i1; i += 3 {
					block3x2(a[i*k+p0:], k, pb, c[i*n+j:], n)
				}
			}
		}
		if n2 < n {
			for i := i0; i < i1; i++ {
				dotCol(a[i*k:i*k+k], b[n-1:], c[i*n+n-1:], n)
			}
		}
	}
	for i := m3; i < m; i++ {
		axpyRow(a[i*k:i*k+k], b, c[i*n:i*n+n], n)
	}
}

// block3x2 adds a[r*k+p]·pb[p][q] over p = 0..len(pb)-1, in order, to c[r*n+q] for r < 3, q < 2.
func block3x2(a []float32, k int, pb [][2]float32, c []float32, n int) {
	a0 := a[:len(pb)]
	a1 := a[k : k+len(pb)]
	a2 := a[2*k : 2*k+len(pb)]
	t0 := c[0:2:2]
	t1 := c[n : n+2 : n+2]
	t2 := c[2*n : 2*n+2 : 2*n+2]
	c00, c01 := t0[0], t0[1]
	c10, c11 := t1[0], t1[1]
	c20, c21 := t2[0], t2[1]
	a1 = a1[:len(a0)] // lets the compiler drop the bounds checks in the loop
	a2 = a2[:len(a0)]
	pb = pb[:len(a0)]
	for p := range pb {
		y := &pb[p]
		y0, y1 := y[0], y[1]
		x0, x1, x2 := a0[p], a1[p], a2[p]
		c00 += float32(x0 * y0)
		c01 += float32(x0 * y1)
		c10 += float32(x1 * y0)
		c11 += float32(x1 * y1)
		c20 += float32(x2 * y0)
		c21 += float32(x2 * y1)
	}
	t0[0], t0[1] = c00, c01
	t1[0], t1[1] = c10, c11
	t2[0], t2[1] = c20, c21
}

// dotCol adds ar[p]·b[p*n] over p in order to c[0].
func dotCol(ar, b, c []float32, n int) {
	s := c[0]
	for p, x := range ar {
		s += float32(x * b[p*n])
	}
	c[0] = s
}

// axpyRow adds ar[p]·b[p*n : p*n+n] to cr for p in order, skipping zero ar[p].
func axpyRow(ar, b, cr []float32, n int) {
	for p, x := range ar {
		if x == 0 {
			continue // invisible: see the package documentation
		}
		bp := b[p*n : p*n+len(cr)]
		j := 0
		for ; j+4 <= len(cr); j += 4 {
			cc := cr[j : j+4 : j+4]
			bb := bp[j : j+4 : j+4]
			cc[0] += float32(x * bb[0])
			cc[1] += float32(x * bb[1])
			cc[2] += float32(x * bb[2])
			cc[3] += float32(x * bb[3])
		}
		for ; j < len(cr); j++ {
			cr[j] += float32(x * bp[j])
		}
	}
}
