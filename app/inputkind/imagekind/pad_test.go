package imagekind

import "testing"

func TestPadStrokesUndoAndTheSharedDigit(t *testing.T) {
	var p Pad
	if p.PenMove(Point{1, 1}) || p.PenUp() {
		t.Fatal("moved or lifted a pen that was not down")
	}
	p.PenDown(Point{1, 2})
	p.PenMove(Point{3, 4})
	if !p.PenUp() || len(p.Strokes) != 1 || len(p.Strokes[0]) != 2 || p.Drawing {
		t.Fatalf("one stroke of two points: %+v", p.Strokes)
	}
	if p.DrawnSource() != "a drawing" || p.BackToBase() || !p.CanUndo() || !p.CanClear() {
		t.Errorf("drawn on a blank pad: %q, back to base %v", p.DrawnSource(), p.BackToBase())
	}
	shared := []float32{0.5}
	p.Show(shared)
	if len(p.Strokes) != 0 || !p.BackToBase() || p.CanUndo() || !p.CanClear() {
		t.Errorf("a shared digit on the pad: strokes %d", len(p.Strokes))
	}
	p.Ink = "#ff0000"
	p.PenDown(Point{5, 5})
	p.PenUp()
	if p.DrawnSource() != "the shared link's image, redrawn" || p.BackToBase() || p.Inks[0] != "#ff0000" {
		t.Errorf("drawn over the shared digit: %q, inks %v", p.DrawnSource(), p.Inks)
	}
	if !p.Undo() || !p.BackToBase() || p.Undo() {
		t.Error("undo: back to the shared digit, then nothing to undo")
	}
	p.Clear()
	if p.Base != nil || p.BackToBase() || p.CanClear() {
		t.Errorf("cleared: %+v", p)
	}
}
