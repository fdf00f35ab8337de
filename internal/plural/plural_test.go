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

// A gives the article a noun or a name is read with.
func TestA(t *testing.T) {
	for name, want := range map[string]string{"7": "a 7", "8": "an 8", "11": "an 11", "18": "an 18", "83": "an 83", "100": "a 100",
		"digit": "a digit", "image": "an image", "ankle boot": "an ankle boot", "T-shirt/top": "a T-shirt/top", "": "a "} {
		if got := A(name); got != want {
			t.Errorf("A(%q) = %q, want %q", name, got, want)
		}
	}
}

func TestList(t *testing.T) {
	for want, words := range map[string][]string{"": nil, "a": {"a"}, "a and b": {"a", "b"}, "a, b and c": {"a", "b", "c"}} {
		if got := List(words); got != want {
			t.Errorf("List(%q) = %q, want %q", words, got, want)
		}
	}
}

func TestOr(t *testing.T) {
	for want, words := range map[string][]string{"": nil, "a": {"a"}, "a or b": {"a", "b"}, "a, b or c": {"a", "b", "c"}} {
		if got := Or(words); got != want {
			t.Errorf("Or(%q) = %q, want %q", words, got, want)
		}
	}
}
