package plural

import "testing"

func TestCounts(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{Count(0, "worker"), "0 workers"},
		{Count(1, "worker"), "1 worker"},
		{Count(2, "worker"), "2 workers"},
		{Count(1, "radius", "radii"), "1 radius"},
		{Count(12, "radius", "radii"), "12 radii"},
		{Word(1, "restart"), "restart"},
		{Word(100, "restart"), "restarts"},
		{Of(4, 100, "restart"), "4 of 100 restarts"},
		{Of(1, 1, "restart"), "1 of 1 restart"},
		{Of(0, 1, "explanation"), "0 of 1 explanation"},
		{Word(2, "sketch"), "sketches"},
		{Word(2, "box"), "boxes"},
		{Word(2, "bus"), "buses"},
		{Word(2, "entry"), "entries"},
		{Word(2, "toy"), "toys"},
		{Word(2, "digit"), "digits"},
		{Word(1, "sketch"), "sketch"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}
