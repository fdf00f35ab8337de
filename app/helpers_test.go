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
