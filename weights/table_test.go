package weights

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"
)

// testColumns is a small table: a number with a unit, an integer that may only go up, and a category of three
// levels; flattened, 5 values.
func testColumns() Columns {
	return Columns{
		{Name: "Income", Kind: ColumnNumber, Unit: "k€", Range: [2]float64{0, 500}, Mean: 120, Std: 80, Change: ChangeFree},
		{Name: "Age", Kind: ColumnInteger, Unit: "years", Range: [2]float64{18, 90}, Mean: 40, Std: 12, Change: ChangeUp},
		{Name: "Home", Kind: ColumnCategory, Levels: []string{"owner", "rent", "parents"}, Change: ChangeFree},
	}
}

// tableFiles are the weights of the test table's networks: an MC-dropout classifier 5 → 8 → 2 and a VAE
// 5 → 2 → 5, float32.
func tableFiles(t testing.TB, width int) map[string]*File {
	t.Helper()
	dense := func(prefix string, in, out int) []Named {
		return []Named{{Name: prefix + "/w", Shape: []int{in, out}, Values: make([]float32, in*out)},
			{Name: prefix + "/b", Shape: []int{out}, Values: make([]float32, out)}}
	}
	files := map[string]*File{}
	for name, named := range map[string][]Named{
		"table-bnn.dcw": append(dense("c0", width, 8), dense("c1", 8, 2)...),
		"table-vae.dcw": append(dense("enc", width, 2), dense("dec", 2, 5)...),
	} {
		b, err := Encode(Manifest{Model: "test"}, named)
		if err != nil {
			t.Fatal(err)
		}
		if files[name], err = Decode(name, b); err != nil {
			t.Fatal(err)
		}
	}
	return files
}

// tableDescription is a table model over testColumns, format 3.
func tableDescription() *Description {
	dense := func(prefix string, out int) Layer {
		return Layer{Op: OpDense, Out: out, Weights: prefix + "/w", Bias: prefix + "/b"}
	}
	return &Description{Format: FormatTable, Name: "table-test", Title: "A small table",
		Input:      Input{Kind: KindTable, Columns: testColumns(), Noun: "applicant"},
		Classes:    []string{"bad", "good"},
		Classifier: Classifier{Uncertainty: UncertaintyMCDropout, Samples: 4, MaskSeed: 1, Networks: []Network{{File: "table-bnn.dcw", Layers: []Layer{dense("c0", 8), {Op: OpReLU}, {Op: OpDropout, Rate: 0.2}, dense("c1", 2)}}}},
		VAE: VAE{Latent: 2, Likelihood: LikelihoodMixed,
			Encoder: Network{File: "table-vae.dcw", Layers: []Layer{dense("enc", 2)}},
			Decoder: Network{File: "table-vae.dcw", Layers: []Layer{dense("dec", 5)}}},
	}
}

// TestTableDescription: a table's description checks against its files, needs format 3, says its input as the
// flattened row, and reads back from its JSON (without an image's fields) to the same description.
func TestTableDescription(t *testing.T) {
	d := tableDescription()
	files := tableFiles(t, 5)
	if err := d.Check(files); err != nil {
		t.Fatal(err)
	}
	if d.MinFormat() != FormatTable || DigitsDescription().MinFormat() != FormatChain {
		t.Errorf("formats: a table's %d, the digits' %d", d.MinFormat(), DigitsDescription().MinFormat())
	}
	if d.InputShape() != Vector(5) || d.Input.Size() != 5 || !d.Input.IsTable() || DigitsDescription().Input.IsTable() {
		t.Errorf("the table's input: %v, %d values", d.InputShape(), d.Input.Size())
	}
	raw, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	for _, field := range []string{`"height"`, `"width"`, `"channels"`, `"drawing"`, `"range":[0,0]`} {
		if strings.Contains(string(raw), field) {
			t.Errorf("a table's JSON has an image's field %s: %s", field, raw)
		}
	}
	back, err := ParseDescription(raw)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := json.Marshal(back)
	if !bytes.Equal(raw, again) || back.Check(files) != nil {
		t.Errorf("read back, the description is\n%s\nnot\n%s", again, raw)
	}
	// An image's JSON is as it was before tables: no kind, no columns.
	digits, _ := json.Marshal(DigitsDescription())
	if strings.Contains(string(digits), `"kind"`) || strings.Contains(string(digits), `"columns"`) {
		t.Errorf("the digits' JSON names a kind or columns: %s", digits)
	}
}

// TestTableRefusals: each setting of a table that cannot be run is refused in one sentence that names it.
func TestTableRefusals(t *testing.T) {
	files := tableFiles(t, 5)
	cases := []struct {
		name   string
		change func(d *Description)
		want   string
	}{
		{"a name given twice", func(d *Description) { d.Input.Columns[1].Name = "Income" }, `column 1's name "Income" is given twice`},
		{"a category of one level", func(d *Description) { d.Input.Columns[2].Levels = []string{"owner"} }, `column "Home": a category has 2 to 1024 levels, not 1`},
		{"a level given twice", func(d *Description) { d.Input.Columns[2].Levels[2] = "owner" }, `column "Home": level "owner" is given twice`},
		{"min above max", func(d *Description) { d.Input.Columns[0].Range = [2]float64{500, 0} }, `column "Income": its range's min 500 must be below its max 0`},
		{"no range", func(d *Description) { d.Input.Columns[0].Range = [2]float64{} }, `its range's min 0 must be below its max 0`},
		{"a std of 0", func(d *Description) { d.Input.Columns[0].Std = 0 }, `column "Income": its std 0 must be a finite number above 0`},
		{"a negative std", func(d *Description) { d.Input.Columns[1].Std = -1 }, `column "Age": its std -1 must be a finite number above 0`},
		{"a NaN std", func(d *Description) { d.Input.Columns[0].Std = math.NaN() }, `its std NaN must be a finite number above 0`},
		{"a NaN mean", func(d *Description) { d.Input.Columns[0].Mean = math.NaN() }, `its mean NaN is not a finite number`},
		{"an infinite range", func(d *Description) { d.Input.Columns[0].Range[1] = math.Inf(1) }, `is not two finite numbers`},
		{"an unknown change rule", func(d *Description) { d.Input.Columns[0].Change = "sideways" }, `its change rule "sideways" must be "free", "up", "down" or "never"`},
		{"no change rule", func(d *Description) { d.Input.Columns[0].Change = "" }, `its change rule "" must be`},
		{"an ordered change of a category", func(d *Description) { d.Input.Columns[2].Change = ChangeUp }, `a category's levels have no order`},
		{"an unknown column kind", func(d *Description) { d.Input.Columns[0].Kind = "date" }, `its kind "date" must be "number", "integer" or "category"`},
		{"an integer's range in fractions", func(d *Description) { d.Input.Columns[1].Range[0] = 17.5 }, `an integer's range [17.5 90] must end in whole numbers`},
		{"a standardised category", func(d *Description) { d.Input.Columns[2].Std = 1 }, `a category is one-hot: it has no unit, range, mean or std`},
		{"a number with levels", func(d *Description) { d.Input.Columns[0].Levels = []string{"a", "b"} }, `a number has no levels`},
		{"a name with a separator", func(d *Description) { d.Input.Columns[0].Name = "Income=1" }, `column 0's name "Income=1" must be`},
		{"no columns", func(d *Description) { d.Input.Columns = nil }, "the table has 0 columns: 1 to 1024"},
		{"a width the classifier does not read", func(d *Description) {
			d.Input.Columns[2].Levels = append(d.Input.Columns[2].Levels, "other")
		}, `the classifier, layer 0 (dense) reads 5 values (tensor "c0/w" is [5 8]), but the table's 3 columns flatten to 6`},
		{"a decoder of another width", func(d *Description) { d.VAE.Decoder.Layers[0].Out = 4 }, `tensor "dec/w" is [2 5]`},
		{"an image's fields on a table", func(d *Description) { d.Input.Height = 28 }, "a table's input has no height, width, channels, range, drawing or framing"},
		{"columns on an image", func(d *Description) { d.Input.Kind = KindImage }, "the input is an image and has columns"},
		{"an unknown kind", func(d *Description) { d.Input.Kind = "graph" }, `the input's kind "graph": "image" (the default) or "table"`},
		{"a table in format 2", func(d *Description) { d.Format = FormatGraph }, "says format 2, but a table (or a mixed likelihood) is format 3"},
		{"a table with a Bernoulli VAE", func(d *Description) { d.VAE.Likelihood = LikelihoodBernoulli }, `the VAE's likelihood "bernoulli": a table's is "mixed"`},
	}
	for _, c := range cases {
		d := tableDescription()
		c.change(d)
		err := d.Check(files)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want it to say %q", c.name, err, c.want)
			continue
		}
		if strings.Count(err.Error(), ". ") > 0 {
			t.Errorf("%s: more than one sentence: %v", c.name, err)
		}
		t.Logf("%s: %v", c.name, err)
	}
	// A decoder to the wrong width, named as the table's.
	d := tableDescription()
	d.VAE.Decoder.Layers = append(d.VAE.Decoder.Layers, Layer{Op: OpReshape, Shape: []int{1, 1, 5}})
	if err := d.Check(files); err == nil || !strings.Contains(err.Error(), "not the table's 3 columns flattened to 5 values") {
		t.Errorf("a decoder ending in an image: %v", err)
	}
	// An image model may not say the mixed likelihood.
	g := DigitsDescription()
	g.Format, g.VAE.Likelihood = FormatTable, LikelihoodMixed
	if err := g.Check(nil); err == nil || !strings.Contains(err.Error(), `("mixed" is a table's)`) {
		t.Errorf("an image with a mixed likelihood: %v", err)
	}
}

// TestTableRows: a row goes to the flattened values the networks read and back; rows are read from a
// Name=value string, a {column: value} map and a CSV file, and written back to each; what is wrong with a row
// is said in one sentence naming the column.
func TestTableRows(t *testing.T) {
	c := testColumns()
	if c.Width() != 5 || !slices.Equal(c.Offsets(), []int{0, 1, 2, 5}) {
		t.Fatalf("width %d, offsets %v", c.Width(), c.Offsets())
	}
	if s, e := c.Slice(2); s != 2 || e != 5 {
		t.Errorf("Home's slice [%d, %d)", s, e)
	}
	row := []float64{200, 30, 1}
	x, err := c.Standardise(row)
	if err != nil || !slices.Equal(x, []float32{1, float32(-10.0 / 12), 0, 1, 0}) {
		t.Fatalf("standardised: %v, %v", x, err)
	}
	if back, err := c.Unstandardise(x); err != nil || !slices.Equal(back, row) {
		t.Errorf("back: %v, %v", back, err)
	}
	// Unstandardise rounds an integer and takes a category's largest value.
	if back, _ := c.Unstandardise([]float32{0, 0.04, 0.2, 0.1, 0.7}); !slices.Equal(back, []float64{120, 40, 2}) {
		t.Errorf("a decoder's values in natural units: %v", back)
	}
	s := c.FormatRow(row)
	if s != "Income=200,Age=30,Home=rent" {
		t.Errorf("FormatRow: %q", s)
	}
	for _, in := range []string{s, " Home = rent , Age=30,Income=2e2"} {
		if got, err := c.ParseRow(in); err != nil || !slices.Equal(got, row) {
			t.Errorf("ParseRow(%q): %v, %v", in, got, err)
		}
	}
	m := c.ToMap(row)
	raw, _ := json.Marshal(m)
	if string(raw) != `{"Age":30,"Home":"rent","Income":200}` {
		t.Errorf("ToMap: %s", raw)
	}
	var decoded map[string]any
	json.Unmarshal(raw, &decoded)
	if got, err := c.FromMap(decoded); err != nil || !slices.Equal(got, row) {
		t.Errorf("FromMap: %v, %v", got, err)
	}
	csvText := "Home,Income,Age,Status\nrent,200,30,good\nowner,0,90,bad\n"
	rows, labels, err := c.ReadCSV(strings.NewReader(csvText), "Status", []string{"bad", "good"})
	if err != nil || len(rows) != 2 || !slices.Equal(rows[0], row) || !slices.Equal(labels, []int{1, 0}) {
		t.Errorf("ReadCSV: %v %v %v", rows, labels, err)
	}
	if rows, labels, err := c.ReadCSV(strings.NewReader("Income,Age,Home\n200,30,rent\n"), "Status", nil); err != nil || labels != nil || len(rows) != 1 {
		t.Errorf("a CSV without the class: %v %v %v", rows, labels, err)
	}
	if got := strings.Join(c.CSVRecord(row, "good"), ","); got != "200,30,rent,good" {
		t.Errorf("CSVRecord: %q", got)
	}
	for _, e := range []struct{ row, want string }{
		{"Income=200,Age=30", `column "Home" is missing`},
		{"Income=200,Age=30,Home=rent,Pets=2", `there is no column "Pets": the columns are Income, Age, Home`},
		{"Income=200,Age=30,Home=castle", `column "Home": "castle" is not one of its levels, owner, rent, parents`},
		{"Income=600,Age=30,Home=rent", `column "Income": 600 is outside its range 0 to 500 k€`},
		{"Income=200,Age=17,Home=rent", `column "Age": 17 is outside its range 18 to 90 years`},
		{"Income=lots,Age=30,Home=rent", `column "Income": "lots" is not a number`},
		{"Income=NaN,Age=30,Home=rent", `column "Income": "NaN" is not a number`},
		{"Income=Inf,Age=30,Home=rent", `column "Income": "Inf" is not a number`},
		{"Income=200,Age=30.5,Home=rent", `column "Age": 30.5 is not a whole number`},
		{"Income=NA,Age=30,Home=rent", `column "Income" has no value`},
		{"Income=,Age=30,Home=rent", `column "Income" has no value`},
		{"Income=1,Income=2,Age=30,Home=rent", `column "Income" is given twice`},
		{"Income 200", `"Income 200" is not Name=value`},
	} {
		if _, err := c.ParseRow(e.row); err == nil || !strings.Contains(err.Error(), e.want) {
			t.Errorf("ParseRow(%q): %v, want it to say %q", e.row, err, e.want)
		}
	}
	if _, err := c.FromMap(map[string]any{"Income": 1.0, "Age": 30.0, "Home": 1.0}); err == nil || !strings.Contains(err.Error(), `column "Home" is a category: give its level's name`) {
		t.Errorf("a category by number: %v", err)
	}
	for _, e := range []struct{ csv, want string }{
		{"", "the CSV file is empty"},
		{"Income,Age\n1,30\n", `the CSV file has no column "Home"`},
		{"Income,Age,Home,Pets\n1,30,rent,2\n", `the CSV file has a column "Pets" the model does not read`},
		{"Income,Age,Home,Age\n", `the CSV file's header names column "Age" twice`},
		{"Income,Age,Home\n1,30\n", "the CSV file, line 2: it has 2 values, its header 3"},
		{"Income,Age,Home\n1,30,rent\n1,30,flat\n", `the CSV file, line 3: column "Home": "flat" is not one of its levels`},
		{"Income,Age,Home,Status\n1,30,rent,maybe\n", `the CSV file, line 2: the class "maybe" is not one of bad, good`},
		{"Income,Age,Home\n1,\"30,rent\n", "the CSV file: parse error on line 2"},
	} {
		if _, _, err := c.ReadCSV(strings.NewReader(e.csv), "Status", []string{"bad", "good"}); err == nil || !strings.Contains(err.Error(), e.want) {
			t.Errorf("ReadCSV(%q): %v, want it to say %q", e.csv, err, e.want)
		}
	}
	for _, e := range []struct {
		row  []float64
		want string
	}{
		{[]float64{1, 30}, "the row has 2 values for 3 columns"},
		{[]float64{math.NaN(), 30, 0}, `column "Income": NaN is not a number`},
		{[]float64{1, 30, 3}, `column "Home": 3 is not the index of one of its 3 levels`},
		{[]float64{1, 30, 0.5}, `column "Home": 0.5 is not the index`},
	} {
		if _, err := c.Standardise(e.row); err == nil || !strings.Contains(err.Error(), e.want) {
			t.Errorf("Standardise(%v): %v, want %q", e.row, err, e.want)
		}
		if err := c.CheckRow(e.row); err == nil || !strings.Contains(err.Error(), e.want) {
			t.Errorf("CheckRow(%v): %v, want %q", e.row, err, e.want)
		}
	}
	if _, err := c.Unstandardise(make([]float32, 4)); err == nil || !strings.Contains(err.Error(), "the flattened row has 4 values, the table's columns 5") {
		t.Errorf("Unstandardise of 4 values: %v", err)
	}
}

// FuzzTableRow: any text as a Name=value row and as a CSV file is read without a panic, and what is read is a
// valid row that survives being written and read again, and standardised and back (integers and categories
// exactly, numbers to float32's precision).
func FuzzTableRow(f *testing.F) {
	f.Add("Income=200,Age=30,Home=rent")
	f.Add("Income,Age,Home,Status\n200,30,rent,good\n0.5,90,owner,bad\n")
	f.Add(" Home = parents , Age=18,Income=1e-3")
	f.Add("Income=NaN,Age=30.5,Home=castle,Pets=1")
	c := testColumns()
	f.Fuzz(func(t *testing.T, s string) {
		check := func(row []float64) {
			if err := c.CheckRow(row); err != nil {
				t.Fatalf("a row read from %q is not valid: %v", s, err)
			}
			if again, err := c.ParseRow(c.FormatRow(row)); err != nil || !slices.Equal(again, row) {
				t.Fatalf("%v written as %q reads back as %v, %v", row, c.FormatRow(row), again, err)
			}
			x, err := c.Standardise(row)
			if err != nil {
				t.Fatal(err)
			}
			back, err := c.Unstandardise(x)
			if err != nil {
				t.Fatal(err)
			}
			for i, col := range c {
				tol := 0.0
				if col.Kind == ColumnNumber {
					tol = 1e-6 * (math.Abs(row[i]) + math.Abs(col.Mean) + col.Std)
				}
				if math.Abs(back[i]-row[i]) > tol {
					t.Fatalf("column %s: %v standardised and back is %v", col.Name, row[i], back[i])
				}
			}
		}
		if row, err := c.ParseRow(s); err == nil {
			check(row)
		} else if err.Error() == "" {
			t.Fatal("an empty refusal")
		}
		rows, labels, err := c.ReadCSV(strings.NewReader(s), "Status", []string{"bad", "good"})
		if err != nil {
			return
		}
		if labels != nil && len(labels) != len(rows) {
			t.Fatalf("%d rows and %d labels", len(rows), len(labels))
		}
		for _, row := range rows {
			check(row)
		}
	})
}

// TestEdgesReadBack: a row at the ends of its numbers' ranges, flattened to float32 and read back, is the same row
// and a valid one (a number's flattened end would otherwise come back a hair outside its range).
func TestEdgesReadBack(t *testing.T) {
	cols := Columns{
		{Name: "Water", Kind: ColumnNumber, Unit: "kg/m³", Range: [2]float64{121.8, 247}, Mean: 181.57, Std: 21.35, Change: ChangeFree},
		{Name: "Height", Kind: ColumnNumber, Unit: "cm", Range: [2]float64{140, 210}, Mean: 172, Std: 9, Change: ChangeNever},
	}
	for _, row := range [][]float64{{121.8, 140}, {247, 210}, {121.8, 210}} {
		x, err := cols.Standardise(row)
		if err != nil {
			t.Fatal(err)
		}
		back, err := cols.Unstandardise(x)
		if err != nil || back[0] != row[0] || back[1] != row[1] || cols.CheckRow(back) != nil {
			t.Errorf("%v reads back as %v (%v, %v)", row, back, err, cols.CheckRow(back))
		}
	}
}

// TestEdgesCarried: a link carries a row at the ends of its numbers' ranges, and reads it back bit for bit.
func TestEdgesCarried(t *testing.T) {
	cols := Columns{{Name: "Water", Kind: ColumnNumber, Unit: "kg/m³", Range: [2]float64{121.8, 247}, Mean: 181.57, Std: 21.35, Change: ChangeFree}}
	for _, v := range []float64{121.8, 247} {
		x, _ := cols.Standardise([]float64{v})
		back, err := CarriedRow(cols, CarryRow(cols, x))
		if err != nil || back[0] != x[0] {
			t.Errorf("%v: carried back as %v, %v", v, back, err)
		}
	}
	// One float32 step past an end is outside.
	x, _ := cols.Standardise([]float64{121.8})
	x[0] = math.Nextafter32(x[0], -10)
	if _, err := CarriedRow(cols, CarryRow(cols, x)); err == nil {
		t.Error("a value below the range was carried")
	}
}
