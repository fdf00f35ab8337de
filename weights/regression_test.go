package weights

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// regressionDescription is the test table's model as a predictor of a number: its classifier ends in a mean
// and a standard deviation, its classes the names of three ranges.
func regressionDescription() *Description {
	d := tableDescription()
	d.Format, d.Name = FormatRegression, "strength-test"
	d.Regression = &Regression{Target: "Strength", Unit: "MPa", Mean: 35, Std: 16, Sigma: SigmaSoftplus, Sure: 4,
		Ranges: []float64{0, 20, 40, 90}}
	d.Classes = d.Regression.RangeNames()
	return d
}

// TestRegressionDescription: a regression checks against its files (the classifier's last layer gives two
// values), needs format 4, names its ranges, reads back from its JSON, and puts a value in its range.
func TestRegressionDescription(t *testing.T) {
	d := regressionDescription()
	files := tableFiles(t, 5)
	if err := d.Check(files); err != nil {
		t.Fatal(err)
	}
	if d.MinFormat() != FormatRegression || !d.IsRegression() || d.Outputs() != 2 || tableDescription().Outputs() != 2 {
		t.Errorf("format %d, outputs %d", d.MinFormat(), d.Outputs())
	}
	if got := strings.Join(d.Classes, " | "); got != "below 20 MPa | 20–40 MPa | 40 MPa or more" {
		t.Errorf("the ranges' names: %s", got)
	}
	raw, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	back, err := ParseDescription(raw)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := json.Marshal(back)
	if !bytes.Equal(raw, again) || back.Check(files) != nil {
		t.Errorf("read back, the description is\n%s\nnot\n%s", again, raw)
	}
	for v, want := range map[float64]int{-5: 0, 0: 0, 19.99: 0, 20: 1, 39: 1, 40: 2, 1e9: 2} {
		if got := d.Regression.Range(v); got != want {
			t.Errorf("%g falls in range %d, want %d", v, got, want)
		}
	}
	// A classifier's JSON does not name a regression.
	if digits, _ := json.Marshal(DigitsDescription()); strings.Contains(string(digits), "regression") {
		t.Errorf("the digits' JSON names a regression: %s", digits)
	}
}

// TestRegressionRefusals: each declaration a regression cannot run with is refused in one sentence naming it.
func TestRegressionRefusals(t *testing.T) {
	files := tableFiles(t, 5)
	threshold := 0.2
	cases := []struct {
		name   string
		change func(d *Description)
		want   string
	}{
		{"format 3", func(d *Description) { d.Format = FormatTable }, "says format 3, but a regression is format 4"},
		{"no target", func(d *Description) { d.Regression.Target = "" }, `the regression's target "" must be named`},
		{"a std of 0", func(d *Description) { d.Regression.Std = 0 }, "needs a finite mean and a std above 0"},
		{"a NaN mean", func(d *Description) { d.Regression.Mean = math.NaN() }, "needs a finite mean and a std above 0"},
		{"an unknown sigma", func(d *Description) { d.Regression.Sigma = "exp" }, `the regression's sigma "exp": "softplus" or "log-variance"`},
		{"a threshold of 0", func(d *Description) { d.Regression.Sure = 0 }, "the regression's threshold of sure, σ ≤ 0 MPa, must be above 0"},
		{"a negative threshold", func(d *Description) { d.Regression.Sure = -1 }, "σ ≤ -1 MPa, must be above 0"},
		{"a NaN threshold", func(d *Description) { d.Regression.Sure = math.NaN() }, "σ ≤ NaN MPa, must be above 0"},
		{"one range", func(d *Description) { d.Regression.Ranges = []float64{0, 90}; d.Classes = []string{"a", "b"} }, "the regression has 2 range edges: 3 to 21"},
		{"edges out of order", func(d *Description) { d.Regression.Ranges = []float64{0, 40, 20, 90} }, "must be finite and ascending"},
		{"classes that are not the ranges", func(d *Description) { d.Classes = []string{"weak", "fair", "strong"} }, `the regression's range 0 is named "weak", not "below 20 MPa"`},
		{"classes of another count", func(d *Description) { d.Classes = d.Classes[:2] }, "the regression's 3 ranges need 3 classes"},
		{"an entropy threshold", func(d *Description) { d.Search = &SearchDefaults{HThreshold: &threshold} }, `a regression's threshold is its "sure" (σ in MPa)`},
	}
	for _, c := range cases {
		d := regressionDescription()
		c.change(d)
		err := d.Check(files)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want it to say %q", c.name, err, c.want)
			continue
		}
		if strings.Count(err.Error(), ". ") > 0 {
			t.Errorf("%s: more than one sentence: %v", c.name, err)
		}
	}
	// A predictor with one output where two are declared.
	one := map[string]*File{"table-vae.dcw": files["table-vae.dcw"]}
	b, err := Encode(Manifest{Model: "test"}, []Named{{Name: "c0/w", Shape: []int{5, 8}, Values: make([]float32, 40)},
		{Name: "c0/b", Shape: []int{8}, Values: make([]float32, 8)}, {Name: "c1/w", Shape: []int{8, 1}, Values: make([]float32, 8)},
		{Name: "c1/b", Shape: []int{1}, Values: make([]float32, 1)}})
	if err != nil {
		t.Fatal(err)
	}
	if one["table-bnn.dcw"], err = Decode("table-bnn.dcw", b); err != nil {
		t.Fatal(err)
	}
	d := regressionDescription()
	d.Classifier.Networks[0].Layers[3].Out = 1
	if err := d.Check(one); err == nil || !strings.Contains(err.Error(), "the classifier ends in 1 values, not a regression's 2 (the mean's and the standard deviation's)") {
		t.Errorf("a network of 1 output: %v", err)
	}
}
