package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/deltaclue/deltaclue/engine"
	"github.com/deltaclue/deltaclue/engine/anchors"
	"github.com/deltaclue/deltaclue/internal/dataset"
	"github.com/deltaclue/deltaclue/internal/modelsource"
	"github.com/deltaclue/deltaclue/internal/onnximport"
	"github.com/deltaclue/deltaclue/internal/ortnode"
	"github.com/deltaclue/deltaclue/internal/tableschema"
	"github.com/deltaclue/deltaclue/training"
	"github.com/deltaclue/deltaclue/weights"
)

// A table's import (issue 41): `deltaclue import -schema schema.json -data rows.csv -classifier clf.onnx …`. The
// schema file names the columns (internal/tableschema); the CSV holds the labelled rows, every column once by
// name and the class in the -label column. The networks read the flattened row (each number standardised with
// its column's mean and std, each category one-hot in the schema's order of levels), and the VAE is the user's
// (its decoder giving each number's standardised mean and each category's logits) or an MLP with the mixed
// likelihood trained here with gomlx, as the shipped credit VAE was (training.TableDescription). Every graph
// is checked against an independent runtime before anything is written, as an image model's.

// Table VAE defaults, when the import trains it: the credit VAE's widths and latent size (training.CreditHidden,
// CreditLatent), β 0.5 (a KL weight below 1 keeps a rare level such as credit's Records = yes encoded:
// training.CreditVAEShapes), and early stopping on a tenth of the training rows.
const (
	tableVAELatent   = training.CreditLatent
	tableVAEEpochs   = 150
	tableVAEPatience = 15
	tableVAEKLWeight = 0.5
)

// tableFlags are the import's flags for a table's rows.
type tableFlags struct {
	schema, label, lock  string
	latentSet, epochsSet bool // -latent and -vae-epochs were given: an image's defaults are not a table's
}

// runTableImport is runImport for a table: the schema and rows, the graphs converted and checked, the int8
// models measured, the search's defaults and the anchors, and the folder with its test rows (test.csv).
func runTableImport(f importFlags, name string, members []string, dropout map[string]float64, start time.Time) error {
	cols, err := readSchemaFile(f.table.schema)
	if err != nil {
		return err
	}
	if cols, err = applyLocks(cols, f.table.lock); err != nil {
		return err
	}
	if cols.Index(modelsource.TestRowsLabel) >= 0 {
		return fmt.Errorf("import: the schema has a column named %q, the name a models folder's %s gives the class: rename it", modelsource.TestRowsLabel, modelsource.TestRowsFile)
	}
	if cols.Index(f.table.label) >= 0 {
		return fmt.Errorf("import: the schema has a column named %q, which -label names as the class column: give the class column's name with -label", f.table.label)
	}
	var classes []string
	var reg *weights.Regression // a regression's (import_regression.go), nil for a classifier
	loose := tableschema.Loose(cols)
	var rows [][]float64
	var labels []int
	var targets []float64 // a regression's, per row; its labels are their ranges, known once the ranges are
	if f.reg.declared() {
		if rows, targets, err = readTargetRowsCSV(f.data, loose, f.reg.columnName()); err != nil {
			return err
		}
		labels = make([]int, len(rows))
	} else {
		if classes, err = tableClasses(f); err != nil {
			return err
		}
		if rows, labels, err = readRowsCSV(f.data, loose, f.table.label, classes); err != nil {
			return err
		}
	}
	var trainRows, testRows [][]float64
	var trainLabels, testLabels []int
	var trainTargets, testTargets []float64
	if f.test == "" {
		tr, te := splitIndices(len(rows), f.testShare)
		for _, i := range tr {
			trainRows, trainLabels = append(trainRows, rows[i]), append(trainLabels, labels[i])
			if targets != nil {
				trainTargets = append(trainTargets, targets[i])
			}
		}
		for _, i := range te {
			testRows, testLabels = append(testRows, rows[i]), append(testLabels, labels[i])
			if targets != nil {
				testTargets = append(testTargets, targets[i])
			}
		}
	} else {
		trainRows, trainLabels, trainTargets = rows, labels, targets
	}
	if cols, err = tableschema.Fit(cols, trainRows); err != nil {
		return fmt.Errorf("import: %s: %v", f.table.schema, err)
	}
	if f.test != "" {
		var err error
		if f.reg.declared() {
			testRows, testTargets, err = readTargetRowsCSV(f.test, cols, f.reg.columnName())
			testLabels = make([]int, len(testRows))
		} else {
			testRows, testLabels, err = readRowsCSV(f.test, cols, f.table.label, classes)
		}
		if err != nil {
			return err
		}
	}
	if f.reg.declared() {
		fmt.Printf("read %d rows of %d columns (%d values flattened) with their %s in column %s: %d to train on, %d to test on (%.1fs)\n",
			len(rows), len(cols), cols.Width(), f.reg.target, f.reg.columnName(), len(trainRows), len(testRows), time.Since(start).Seconds())
		if reg, err = f.reg.regression(trainTargets); err != nil {
			return err
		}
		classes, trainLabels, testLabels = reg.RangeNames(), rangesOf(reg, trainTargets), rangesOf(reg, testTargets)
	}
	train, err := dataset.NewTable(cols, trainRows, trainLabels)
	if err != nil {
		return fmt.Errorf("import: %s, training %v", f.data, err)
	}
	test, err := dataset.NewTable(cols, testRows, testLabels)
	if err != nil {
		// A test row outside a range the training rows set: the model's input refuses it.
		return fmt.Errorf("import: the test %v (outside the training rows' range, which the schema's range sets when it gives one)", err)
	}
	train.Targets, test.Targets = trainTargets, testTargets
	if test.Len() == 0 {
		return fmt.Errorf("import: there are no test rows")
	}
	if reg == nil {
		fmt.Printf("read %d rows of %d columns (%d values flattened) and %d classes: %d to train on, %d to test on (%.1fs)\n",
			len(rows), len(cols), cols.Width(), len(classes), train.Len(), test.Len(), time.Since(start).Seconds())
	}

	graphs, parts, err := convertGraphs(f, members, dropout)
	if err != nil {
		return err
	}
	if err := onnximport.CheckTableInput(parts.Classifier[0].In, cols); err != nil {
		return fmt.Errorf("import: %w", err)
	}
	fmt.Printf("converted %d graphs (%.1fs)\n", len(graphs), time.Since(start).Seconds())
	if f.encoder == "" {
		if parts.VAE, parts.VAETensors, err = trainTableVAE(cols, f, train); err != nil {
			return err
		}
		fmt.Printf("trained a VAE (%.1fs)\n", time.Since(start).Seconds())
	}
	noun := f.noun
	if noun == "image" { // the images' default
		noun = "row"
	}
	d, files, err := onnximport.Describe(parts, onnximport.Info{Name: name, Title: f.title, Classes: classes, Noun: noun, Samples: f.samples, MaskSeed: 1, Columns: cols, Regression: reg})
	if err != nil {
		return fmt.Errorf("import: %w", err)
	}

	// The check: every graph in both independent runtimes against the engine's float32 forward, on training rows.
	ort, _ := ortnode.Find(f.ortDir)
	if ort == nil {
		fmt.Printf("onnxruntime-web is not installed in %s (make onnxruntime): the graphs are checked in onnx-gomlx alone\n", f.ortDir)
	}
	n := min(f.checkItems, train.Len())
	x := make([]float32, 0, n*train.Size())
	for i := 0; i < n; i++ {
		x = append(x, train.Float(i*train.Len()/n, nil)...)
	}
	agreed, err := onnximport.CheckBoth(context.Background(), d, files, graphs, x, n, ort)
	for _, a := range agreed {
		fmt.Printf("  %-26s agrees with %s within %.2g (%d values of %d rows)\n", a.Role, a.Runtime, a.MaxDiff, a.Values, n)
	}
	if err != nil {
		return fmt.Errorf("import: %w", err)
	}
	fmt.Printf("checked against the ONNX runtimes (%.1fs)\n", time.Since(start).Seconds())

	var enc map[string][]byte
	var m32 map[string]any
	if reg != nil {
		if !f.reg.sureSet {
			if d.Regression.Sure, err = chooseSure(d, files, train); err != nil {
				return err
			}
			if err := d.Check(files); err != nil {
				return fmt.Errorf("import: %w", err)
			}
			fmt.Printf("τ: sure is σ ≤ %g %s, the %dth percentile of the model's predictive σ over the %d training rows rounded to %d significant digits (-sure)\n",
				d.Regression.Sure, d.Regression.Unit, importSurePercentile, train.Len(), importSigDigits)
		}
		if enc, m32, err = measureRegressionCompaction(d, files, test, start); err != nil {
			return err
		}
		setRegressionSearch(d)
		fmt.Printf("search defaults: a table's, as measured on the credit applicants: δ %g, λx %g, duplicates within L1 %g; the threshold is τ, σ ≤ %g %s\n",
			*d.Search.Delta, *d.Search.LambdaX, *d.Search.DedupL1, d.Regression.Sure, d.Regression.Unit)
	} else {
		bud := newImportBudget(f.budget, start, os.Stdout, stageQuality)
		if enc, m32, err = measureCompaction(d, files, test, bud.share(stageQuality), start); err != nil {
			return err
		}
		setTableSearch(d)
		fmt.Printf("search defaults: a table's, as measured on the credit applicants: δ %g, λx %g, %g nats, duplicates within L1 %g\n",
			*d.Search.Delta, *d.Search.LambdaX, *d.Search.HThreshold, *d.Search.DedupL1)
	}
	desc, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		return err
	}
	enc[weights.DescriptionFile] = append(desc, '\n')
	b, err := weights.OpenBundleFiles(bundleOf(enc), false)
	if err != nil {
		return fmt.Errorf("import: the bundle made does not open: %w", err)
	}
	split := weights.Dataset{Source: "deltaclue import of " + filepath.Base(filepath.Clean(f.data)), Train: train.Len(), Test: test.Len()}
	reading, err := readRows(b, train)
	if err != nil {
		return fmt.Errorf("import: the anchors (S2's starts): %w", err)
	}
	var maxEntropy float64
	var missing []int
	if reg != nil {
		enc[weights.BundleAnchors], missing, err = makeRegressionAnchors(b, reading, split, f.anchorsPer)
	} else {
		enc[weights.BundleAnchors], maxEntropy, missing, err = makeAnchors(b, reading, split, f.anchorsPer)
	}
	if err != nil {
		return err
	}
	if b, err = weights.OpenBundleFiles(bundleOf(enc), false); err != nil {
		return fmt.Errorf("import: the bundle made does not open: %w", err)
	}
	if reg != nil {
		lines := regressionAnchorsLines(b, missing)
		fmt.Printf("%s (%.1fs)\n", lines[0], time.Since(start).Seconds())
		for _, l := range lines[1:] {
			fmt.Println(l)
		}
	} else {
		fmt.Printf("%s (%.1fs)\n", anchorsLine(b, maxEntropy), time.Since(start).Seconds())
		if line := unanchoredLine(d, missing, maxEntropy); line != "" {
			fmt.Println(line)
		}
	}
	enc32 := map[string][]byte{weights.DescriptionFile: enc[weights.DescriptionFile]}
	for _, name := range []string{weights.BundleBNN, weights.BundleVAE} {
		if enc32[name], err = encodeFile(d, files[name], false, nil, map[string]any{"test": m32}); err != nil {
			return err
		}
	}
	if err := modelsource.WriteDir(f.out, bundleOf(enc), test); err != nil {
		return err
	}
	if err := modelsource.WriteDir(filepath.Join(f.out, "float32"), bundleOf(enc32), test); err != nil {
		return err
	}
	fmt.Printf("wrote %s (%d test rows in %s; the float32 models in %s) in %.1fs\n", f.out, test.Len(), modelsource.TestRowsFile,
		filepath.Join(f.out, "float32"), time.Since(start).Seconds())
	fmt.Println("(a table's import makes no GLAM-CLUE translations or global view yet)")
	fmt.Printf("serve it: make serve MODELS=%s\n", f.out)
	return nil
}

// setTableSearch gives a table's models the search defaults measured on the credit applicants
// (training.CreditSearch): the digits' (package searchdefaults measures against them) do not suit a row, whose
// distance is summed over columns in standard deviations and changed categories, not over pixels, and whose
// duplicates are rows a quarter of a standard deviation apart, not 10 of an image's L1.
func setTableSearch(d *weights.Description) {
	s := training.CreditSearch
	d.Search = &weights.SearchDefaults{Delta: &s.Delta, LambdaX: &s.LambdaX, HThreshold: &s.HThreshold, DedupL1: &s.DedupL1}
	d.Format = max(d.Format, d.MinFormat())
}

// readSchemaFile reads the -schema file (internal/tableschema), its errors naming it.
func readSchemaFile(path string) (weights.Columns, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("import: -schema: %w", err)
	}
	defer fh.Close()
	cols, err := tableschema.Read(fh)
	if err != nil {
		return nil, fmt.Errorf("import: %s: %v", path, err)
	}
	return cols, nil
}

// applyLocks makes the columns -lock names ones no explanation changes (change "never"), refusing a name the
// schema does not have.
func applyLocks(cols weights.Columns, lock string) (weights.Columns, error) {
	if strings.TrimSpace(lock) == "" {
		return cols, nil
	}
	cols = slices.Clone(cols)
	for _, name := range strings.Split(lock, ",") {
		name = strings.TrimSpace(name)
		i := cols.Index(name)
		if i < 0 {
			return nil, fmt.Errorf("import: -lock names a column %q the schema does not have: its columns are %s", name, strings.Join(cols.Names(), ", "))
		}
		cols[i].Change = weights.ChangeNever
	}
	return cols, nil
}

// tableClasses are -classes, or the -label column's values in the data (and the test rows), sorted.
func tableClasses(f importFlags) ([]string, error) {
	if f.classes != "" {
		var out []string
		for _, c := range strings.Split(f.classes, ",") {
			out = append(out, strings.TrimSpace(c))
		}
		return out, nil
	}
	seen := map[string]bool{}
	for _, path := range []string{f.data, f.test} {
		if path == "" {
			continue
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("import: %w", err)
		}
		r := csv.NewReader(bytes.NewReader(b))
		r.FieldsPerRecord = -1
		header, err := r.Read()
		if err != nil {
			return nil, fmt.Errorf("import: %s: the CSV file's header: %v", path, err)
		}
		at := -1
		for j, h := range header {
			if strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")) == f.table.label {
				at = j
			}
		}
		if at < 0 {
			return nil, fmt.Errorf("import: %s has no class column %q: name it with -label", path, f.table.label)
		}
		for {
			rec, err := r.Read()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return nil, fmt.Errorf("import: %s: %v", path, err)
			}
			if at < len(rec) {
				seen[strings.TrimSpace(rec[at])] = true
			}
		}
	}
	classes := make([]string, 0, len(seen))
	for c := range seen {
		classes = append(classes, c)
	}
	slices.Sort(classes)
	if len(classes) < 2 {
		return nil, fmt.Errorf("import: the class column %q holds %d classes: a classifier tells at least 2 apart", f.table.label, len(classes))
	}
	return classes, nil
}

// readRowsCSV reads a CSV file of labelled rows (weights.Columns.ReadCSV), its errors naming the file.
func readRowsCSV(path string, cols weights.Columns, label string, classes []string) ([][]float64, []int, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("import: %w", err)
	}
	defer fh.Close()
	rows, labels, err := cols.ReadCSV(fh, label, classes)
	if err == nil && labels == nil {
		err = fmt.Errorf("it has no class column %q (-label)", label)
	}
	if err == nil && len(rows) < 2 {
		err = fmt.Errorf("it has %d rows", len(rows))
	}
	if err != nil {
		return nil, nil, fmt.Errorf("import: %s: %v", path, err)
	}
	return rows, labels, nil
}

// splitIndices draws share of n rows as the test rows with a fixed seed (splitItems' draw), the rest the training
// rows, each in the data's order.
func splitIndices(n int, share float64) (train, test []int) {
	perm := rand.New(rand.NewPCG(20261126, 31)).Perm(n)
	nTest := max(1, int(float64(n)*share+0.5))
	isTest := make([]bool, n)
	for _, i := range perm[:nTest] {
		isTest[i] = true
	}
	for i := range n {
		if isTest[i] {
			test = append(test, i)
		} else {
			train = append(train, i)
		}
	}
	return train, test
}

// trainTableVAE trains an MLP VAE with the mixed likelihood on the training rows (a tenth held out for early
// stopping, drawn with a fixed seed) with gomlx, and returns it with its float32 tensors.
func trainTableVAE(cols weights.Columns, f importFlags, t *dataset.Table) (*weights.VAE, []weights.Named, error) {
	latent, epochs := tableVAELatent, tableVAEEpochs
	if f.table.latentSet {
		latent = f.latent
	}
	if f.table.epochsSet {
		epochs = f.vaeEpochs
	}
	d := training.TableDescription("import", "", "row", cols, []string{"a", "b"}, 0.1, training.CreditHidden, latent)
	tr, va := splitIndices(t.Len(), 0.1)
	loop := training.Loop{Seed: 43, Batch: 64, LR: 1e-3, MaxEpochs: epochs, Patience: tableVAEPatience, KLWeight: tableVAEKLWeight}
	named, info, err := training.TrainDescribedVAE(training.Backend(), loop, d, t.Subset(tr), t.Subset(va))
	if err != nil {
		return nil, nil, fmt.Errorf("import: training the VAE: %w", err)
	}
	fmt.Printf("  a mixed-data VAE (latent %d, β %g): best epoch %v of at most %d\n", latent, tableVAEKLWeight, info["best_epoch"], epochs)
	v := d.VAE
	return &v, named, nil
}

// readRows reads every training row with the bundle's models (for the anchors), in batches.
func readRows(b *weights.Bundle, train *dataset.Table) (anchors.Reading, error) {
	vae, bnn, err := engine.Load(b.Description, b.Files)
	if err != nil {
		return anchors.Reading{}, err
	}
	var reading anchors.Reading
	size := train.Size()
	for lo := 0; lo < train.Len(); lo += 1024 {
		hi := min(lo+1024, train.Len())
		x := make([]float32, (hi-lo)*size)
		classes := make([]int, hi-lo)
		for i := lo; i < hi; i++ {
			train.Float(i, x[(i-lo)*size:(i-lo+1)*size])
			classes[i-lo] = train.Label(i)
		}
		reading.Append(anchors.ReadItems(vae, bnn, x, classes))
	}
	return reading, nil
}
