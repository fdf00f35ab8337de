package app

import "testing"

func TestGridGeometry(t *testing.T) {
	if w, h := gridSize(25, 10); w != 10*cells().cellW || h != 3*cells().cellH {
		t.Errorf("25 cells in 10 columns: %d×%d", w, h)
	}
	if k := cellAt(float64(cells().cellW*2+3), float64(cells().cellH+3), 25, 10); k != 12 {
		t.Errorf("cellAt = %d, want 12", k)
	}
	if k := cellAt(float64(cells().cellW*6), float64(cells().cellH*2+1), 25, 10); k != -1 {
		t.Errorf("past the last cell: %d", k)
	}
	if k := cellAt(-1, 5, 25, 10); k != -1 {
		t.Errorf("left of the grid: %d", k)
	}
}

func TestDiffColours(t *testing.T) {
	x0, e := make([]float32, 784), make([]float32, 784)
	e[0], x0[1] = 1, 1 // pixel 0 added, pixel 1 removed
	d := diffRGBA(x0, e, 1)
	if r, g := d[0], d[1]; !(g > r) {
		t.Errorf("added ink is not green: %v", d[:4])
	}
	if r, g := d[4], d[5]; !(r > g) {
		t.Errorf("removed ink is not red: %v", d[4:8])
	}
	if d[8] != 255 || d[9] != 255 {
		t.Errorf("an unchanged blank pixel is not white: %v", d[8:12])
	}
}
