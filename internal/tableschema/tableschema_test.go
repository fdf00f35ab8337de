package tableschema_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/deltaclue/deltaclue/internal/credit"
	. "github.com/deltaclue/deltaclue/internal/tableschema"
	"github.com/deltaclue/deltaclue/weights"
)

// The committed credit schema reads back as itself, and without its statistics Fit computes them from rows.
func TestReadCredit(t *testing.T) {
	b, err := credit.MarshalSchema(credit.Columns())
	if err != nil {
		t.Fatal(err)
	}
	cols, err := Read(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := cols.Width(), 26; got != want {
		t.Fatalf("width %d, want %d", got, want)
	}
	if cols[3].Name != "Age" || cols[3].Change != weights.ChangeUp || cols[3].Range != [2]float64{18, 68} {
		t.Fatalf("column 3 read as %+v", cols[3])
	}
}

func TestFit(t *testing.T) {
	cols, err := Read(strings.NewReader(`[{"name":"a","kind":"number","unit":"m"},{"name":"b","kind":"category","levels":["x","y"]},{"name":"c","kind":"integer","range":[0,100],"change":"up"}]`))
	if err != nil {
		t.Fatal(err)
	}
	fit, err := Fit(cols, [][]float64{{1, 0, 3}, {3, 1, 5}})
	if err != nil {
		t.Fatal(err)
	}
	if a := fit[0]; a.Range != [2]float64{1, 3} || a.Mean != 2 || a.Std != 1 || a.Change != weights.ChangeFree {
		t.Errorf("a fitted as %+v", a)
	}
	if c := fit[2]; c.Range != [2]float64{0, 100} || c.Mean != 4 || c.Std != 1 {
		t.Errorf("c fitted as %+v: a given range is kept", c)
	}
	if _, err := Fit(cols, [][]float64{{1, 0, 3}, {1, 1, 5}}); err == nil || !strings.Contains(err.Error(), `"a"`) {
		t.Errorf("a constant column: %v", err)
	}
}

// Each bad schema is refused in one sentence naming what is wrong.
func TestReadRefuses(t *testing.T) {
	for _, c := range []struct{ json, want string }{
		{`{}`, "not a JSON array"},
		{`[]`, "no columns"},
		{`[{"name":"a","kind":"number","colour":1}]`, "colour"},
		{`[{"name":"a","kind":"numeral"}]`, "kind"},
		{`[{"name":"a","kind":"category","levels":["x"]}]`, "2 to"},
		{`[{"name":"a","kind":"category","levels":["x","y"],"change":"up"}]`, "no order"},
		{`[{"name":"a","kind":"number","change":"sideways"}]`, "change rule"},
		{`[{"name":"a","kind":"number","range":[3,1]}]`, "below its max"},
		{`[{"name":"a","kind":"number","mean":3}]`, "mean without a std"},
		{`[{"name":"a","kind":"number"},{"name":"a","kind":"number"}]`, "twice"},
		{`[{"name":"a","kind":"number"}] x`, "after its array"},
	} {
		_, err := Read(strings.NewReader(c.json))
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want one sentence with %q", c.json, err, c.want)
		}
	}
}

// FuzzRead: any bytes give columns that check and fit, or an error; never a panic.
func FuzzRead(f *testing.F) {
	b, _ := credit.MarshalSchema(credit.Columns())
	f.Add(b)
	f.Add([]byte(`[{"name":"a","kind":"number"},{"name":"b","kind":"category","levels":["x","y"],"change":"never"}]`))
	f.Add([]byte(`[{"name":"a","kind":"integer","range":[0,1e400]}]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		cols, err := Read(bytes.NewReader(b))
		if err != nil {
			return
		}
		if err := Loose(cols).Check(); err != nil {
			t.Fatalf("Read accepted columns that do not check: %v", err)
		}
		rows := [][]float64{make([]float64, len(cols)), make([]float64, len(cols))}
		for i := range cols {
			rows[1][i] = 1 // a category's second level, a number one more
		}
		if fit, err := Fit(cols, rows); err == nil {
			if err := fit.Check(); err != nil {
				t.Fatalf("Fit gave columns that do not check: %v", err)
			}
		}
	})
}
