package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/deltaclue/deltaclue/engine/glam"
	"github.com/deltaclue/deltaclue/internal/idx"
	"github.com/deltaclue/deltaclue/internal/imagefolder"
	"github.com/deltaclue/deltaclue/internal/modelsource"
	"github.com/deltaclue/deltaclue/internal/onnxfile"
	"github.com/deltaclue/deltaclue/internal/onnximport"
	"github.com/deltaclue/deltaclue/internal/ortnode"
	"github.com/deltaclue/deltaclue/training"
	"github.com/deltaclue/deltaclue/weights"
)

// importFlags are `deltaclue import`'s flags.
type importFlags struct {
	classifier, encoder, decoder, data, test, classes, out string
	name, title, noun, dropout, ortDir                     string
	samples, checkItems, maxUncertain, anchorsPer          int
	minMembers, latent, vaeEpochs                          int
	testShare                                              float64
	global                                                 bool
	budget                                                 time.Duration   // import_budget.go
	defaults                                               defaultsFlags   // import_defaults.go
	table                                                  tableFlags      // import_table.go
	reg                                                    regressionFlags // import_regression.go
}

// importCmd makes a models folder from a PyTorch classifier and VAE exported to ONNX and the labelled images
// they were trained on, checking every graph against an independent runtime first (docs/your-model.md).
func importCmd(args []string) error {
	fs := flag.NewFlagSet("import", flag.ContinueOnError)
	var f importFlags
	fs.StringVar(&f.classifier, "classifier", "", "the classifier, exported to ONNX (`torch.onnx.export`); a.onnx,b.onnx,… for the members of a deep ensemble")
	fs.StringVar(&f.encoder, "encoder", "", "the VAE's encoder, exported to ONNX, from the image to the latent mean (without -encoder and -decoder, a convolutional VAE is trained on -data)")
	fs.StringVar(&f.decoder, "decoder", "", "the VAE's decoder, exported to ONNX, from a latent point to the image (or its logits)")
	fs.IntVar(&f.latent, "latent", 16, "the latent size of a VAE trained on the data")
	fs.IntVar(&f.vaeEpochs, "vae-epochs", 10, "at most this many epochs of a VAE trained on the data (early stopping on a tenth held out)")
	fs.StringVar(&f.data, "data", "", "the labelled images: a folder per class, DIR/<class name>/*.png (torchvision's ImageFolder layout), or an IDX file of images (train-images-idx3-ubyte.gz, its labels beside it as train-labels-idx1-ubyte.gz)")
	fs.StringVar(&f.test, "test", "", "the test items, a folder per class or an IDX file as -data (default: -test-share of -data, drawn with a fixed seed)")
	fs.StringVar(&f.classes, "classes", "", "the classifier's outputs' names, in order, separated by commas (default: the data's folder names sorted, as ImageFolder numbers them)")
	fs.StringVar(&f.out, "out", "", "the models folder to write: model.json, its weights files, the anchors, the translations and the test items (it must not hold models yet)")
	fs.StringVar(&f.name, "name", "", "the models' name, as share links carry it: lowercase letters, digits and hyphens (default: the -out folder's name)")
	fs.StringVar(&f.title, "title", "", "the models' title, as the page shows it (default: the name)")
	fs.StringVar(&f.noun, "noun", "image", "what one input is called in the page's sentences")
	fs.StringVar(&f.dropout, "dropout", "", "where an MC-dropout classifier's dropout acts, which an eval-mode export drops: NODE=RATE[,NODE=RATE…], the dropout applied to the input of each named ONNX node")
	fs.IntVar(&f.samples, "samples", 20, "an MC-dropout classifier's fixed dropout masks")
	fs.Float64Var(&f.testShare, "test-share", 0.2, "without -test, the share of -data kept as the test items (the page's gallery, `deltaclue quality`), drawn with a fixed seed; the rest make the anchors and translations")
	fs.IntVar(&f.checkItems, "check-items", 64, "how many of the data's items the check runs through both runtimes")
	fs.IntVar(&f.minMembers, "min-members", glam.MinMembers, "the fewest members a GLAM-CLUE group needs for a translation")
	fs.IntVar(&f.maxUncertain, "max-uncertain", 100, "GLAM-CLUE's translations search at most this many uncertain training items (0: all)")
	fs.IntVar(&f.anchorsPer, "anchors-per-class", 200, "keep at most this many S2 anchors of each class")
	fs.BoolVar(&f.global, "global", true, "also measure the translations on the test items beside δ-CLUE's searches (deltaclue global), which the page's global view shows: a search for each uncertain test item")
	fs.StringVar(&f.ortDir, "onnxruntime", ortnode.DefaultDir, "where onnxruntime-web is installed (the second checker, for the graphs onnx-gomlx does not run)")
	fs.DurationVar(&f.budget, "budget", 10*time.Minute, "the import's time at most, about: the costly stages (the quality on the test items, the search's defaults, the anchors, the translations and the global view) share it, each doing as many items as its share holds and saying what it left out (0: no bound)")
	f.defaults.register(fs)
	f.reg.register(fs)
	fs.StringVar(&f.table.schema, "schema", "", "a table's schema (JSON: its columns' name, kind number/integer/category, levels, unit, range, change; docs/tables.md): -data is then a CSV file of labelled rows, and the networks read the flattened row")
	fs.StringVar(&f.table.label, "label", "class", "with -schema, the CSV files' class column")
	fs.StringVar(&f.table.lock, "lock", "", "with -schema, columns no explanation may change (their change rule becomes \"never\"): NAME[,NAME…]")
	setup := fs.Bool("setup", false, "only install onnxruntime-web "+ortnode.Version+" into -onnxruntime with npm, and exit (make onnxruntime)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	fs.Visit(func(fl *flag.Flag) {
		f.table.latentSet = f.table.latentSet || fl.Name == "latent"
		f.table.epochsSet = f.table.epochsSet || fl.Name == "vae-epochs"
		f.reg.visit(fl)
	})
	if fs.NArg() > 0 {
		return fmt.Errorf("import: unexpected argument %q (every input is a flag)", fs.Arg(0))
	}
	if *setup {
		if _, err := ortnode.Install(context.Background(), f.ortDir); err != nil {
			return err
		}
		fmt.Printf("onnxruntime-web %s is installed in %s\n", ortnode.Version, f.ortDir)
		return nil
	}
	return runImport(f)
}

func runImport(f importFlags) error {
	start := time.Now()
	switch {
	case f.classifier == "":
		return fmt.Errorf("import: -classifier names the classifier's ONNX file")
	case (f.encoder == "") != (f.decoder == ""):
		return fmt.Errorf("import: -encoder and -decoder name the VAE's two ONNX files: give both, or neither to have a VAE trained on the data")
	case f.latent < 1 || f.latent > 256 || f.vaeEpochs < 1:
		return fmt.Errorf("import: -latent %d must be 1 to 256 and -vae-epochs %d at least 1", f.latent, f.vaeEpochs)
	case f.data == "" && f.table.schema != "":
		return fmt.Errorf("import: -data names the CSV file of labelled rows, every column of -schema and the class in -label's column")
	case f.data == "":
		return fmt.Errorf("import: -data names the labelled images, a folder per class")
	case f.out == "":
		return fmt.Errorf("import: -out names the models folder to write")
	case f.testShare <= 0 || f.testShare >= 1:
		return fmt.Errorf("import: -test-share %g must be between 0 and 1", f.testShare)
	case f.samples < 2 || f.samples > 256:
		return fmt.Errorf("import: -samples %d must be 2 to 256", f.samples)
	case f.budget < 0:
		return fmt.Errorf("import: -budget %s: give a duration such as 10m, or 0 for no bound", f.budget)
	}
	if err := f.reg.check(f.table.schema); err != nil {
		return err
	}
	if err := refuseFull(f.out); err != nil {
		return err
	}
	name := f.name
	if name == "" {
		name = defaultName(f.out)
	}
	if !weights.ValidName(name) {
		return fmt.Errorf("import: the name %q must be 1 to 32 lowercase letters, digits and hyphens (-name)", name)
	}
	dropout, err := parseDropout(f.dropout)
	if err != nil {
		return err
	}
	members := strings.Split(f.classifier, ",")
	if len(members) > 1 && dropout != nil {
		return fmt.Errorf("import: -dropout is for one MC-dropout classifier; an ensemble's members (-classifier a,b,…) are its uncertainty")
	}

	if f.table.schema != "" {
		return runTableImport(f, name, members, dropout, start) // import_table.go
	}

	// The graphs, converted.
	graphs, parts, err := convertGraphs(f, members, dropout)
	if err != nil {
		return err
	}
	trainVAE := f.encoder == ""
	fmt.Printf("converted %d graphs (%.1fs)\n", len(graphs), time.Since(start).Seconds())

	// The data, in the classifier's order of classes.
	var classes []string
	if f.classes != "" {
		for _, c := range strings.Split(f.classes, ",") {
			classes = append(classes, strings.TrimSpace(c))
		}
	}
	in := parts.Classifier[0].In
	data, err := imagefolder.ReadAny(f.data, classes, in.C)
	if err != nil {
		return err
	}
	if got := data.Items.Input; got.Height != in.H || got.Width != in.W {
		return fmt.Errorf("import: the images in %s are %d×%d and the classifier takes %d×%d: give the images the model was trained on, at its size",
			f.data, got.Width, got.Height, in.W, in.H)
	}
	fmt.Printf("read %d images of %d classes from %s (%.1fs)\n", data.Items.Len(), len(data.Classes), f.data, time.Since(start).Seconds())

	input := weights.Input{Height: in.H, Width: in.W, Channels: in.C}
	data.Items.Input = input
	train, test := data.Items, (*idx.Items)(nil)
	if f.test != "" {
		t, err := imagefolder.ReadAny(f.test, data.Classes, in.C)
		if err != nil {
			return err
		}
		if got := t.Items.Input; got.Height != in.H || got.Width != in.W {
			return fmt.Errorf("import: the test images in %s are %d×%d and the classifier takes %d×%d", f.test, got.Width, got.Height, in.W, in.H)
		}
		test = t.Items
		test.Input = input
	} else {
		train, test = splitItems(data.Items, f.testShare)
	}
	if trainVAE {
		if parts.VAE, parts.VAETensors, err = trainConvVAE(in, f.latent, f.vaeEpochs, train); err != nil {
			return err
		}
		fmt.Printf("trained a VAE (%.1fs)\n", time.Since(start).Seconds())
	}

	d, files, err := onnximport.Describe(parts, onnximport.Info{Name: name, Title: f.title, Classes: data.Classes, Noun: f.noun, Samples: f.samples, MaskSeed: 1})
	if err != nil {
		return fmt.Errorf("import: %w", err)
	}
	// Photos, not drawings: the page offers the test items and uploads first, and an upload fills the frame.
	d.Input.PickFirst, d.Input.Framing = true, weights.FrameFill
	data.Items.Input, train.Input, test.Input = d.Input, d.Input, d.Input

	// The check: every graph in an independent runtime against the engine's float32 forward.
	ort, _ := ortnode.Find(f.ortDir) // nil when it is not installed: Check then says which graph needs it
	n := min(f.checkItems, data.Items.Len())
	x := make([]float32, 0, n*data.Items.Size())
	for i := 0; i < n; i++ {
		x = append(x, data.Items.Float(i*data.Items.Len()/n, nil)...)
	}
	stop := every(10*time.Second, func() { fmt.Printf("check: the graphs in the ONNX runtimes (%.0fs)\n", time.Since(start).Seconds()) })
	agreed, err := onnximport.Check(context.Background(), d, files, graphs, x, n, ort)
	stop()
	for _, a := range agreed {
		fmt.Printf("  %-26s agrees with %s within %.2g (%d values of %d items)\n", a.Role, a.Runtime, a.MaxDiff, a.Values, n)
	}
	if err != nil {
		return fmt.Errorf("import: %w", err)
	}
	fmt.Printf("checked against the ONNX runtimes (%.1fs)\n", time.Since(start).Seconds())

	// float32, then int8: what compaction costs, on the test items (import_quality.go), and the stages after
	// it, each under its share of the budget (import_budget.go).
	stages := []string{stageQuality, stageDefaults, stageAnchors, stageTranslations, stageGlobal}
	if !f.defaults.measure {
		stages = slices.DeleteFunc(stages, func(s string) bool { return s == stageDefaults })
	}
	if !f.global {
		stages = stages[:len(stages)-1]
	}
	bud := newImportBudget(f.budget, start, os.Stdout, stages...)
	enc, m32, err := measureCompaction(d, files, test, bud.share(stageQuality), start)
	if err != nil {
		return err
	}

	// The search's defaults, where the digits' do not fit the model (import_defaults.go).
	if err := measureDefaults(d, enc, test, f.defaults, bud); err != nil {
		return err
	}

	// The folder: the description and weights, then the anchors and translations made from them.
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
	read, reading, err := readTraining(b, train, bud.share(stageAnchors)) // import_stages.go
	if err != nil {
		return fmt.Errorf("import: the anchors (S2's starts): %w", err)
	}
	var maxEntropy float64
	var missing []int
	if enc[weights.BundleAnchors], maxEntropy, missing, err = makeAnchors(b, reading, split, f.anchorsPer); err != nil {
		return err
	}
	if b, err = weights.OpenBundleFiles(bundleOf(enc), false); err != nil {
		return fmt.Errorf("import: the bundle made does not open: %w", err)
	}
	fmt.Printf("%s (%.1fs)\n", anchorsLine(b, maxEntropy), time.Since(start).Seconds())
	if line := unanchoredLine(d, missing, maxEntropy); line != "" {
		fmt.Println(line)
	}
	if enc[weights.BundleGlobal], err = importTranslations(b, read, reading, f, bud.share(stageTranslations)); err != nil {
		return fmt.Errorf("import: the translations: %w", err)
	}
	if _, err = weights.OpenBundleFiles(bundleOf(enc), false); err != nil {
		return fmt.Errorf("import: the bundle made does not open: %w", err)
	}
	fmt.Printf("translations made (%.1fs)\n", time.Since(start).Seconds())
	// The float32 models beside them, as converted and checked: what `deltaclue predict -eval` compares with
	// PyTorch's own probabilities; the page and the search use the int8 ones.
	enc32 := map[string][]byte{weights.DescriptionFile: enc[weights.DescriptionFile]}
	for _, name := range []string{weights.BundleBNN, weights.BundleVAE} {
		if enc32[name], err = encodeFile(d, files[name], false, nil, map[string]any{"test": m32}); err != nil {
			return err
		}
	}
	if err := modelsource.WriteDir(f.out, bundleOf(enc), test); err != nil {
		return err
	}
	if err := modelsource.WriteDir(filepath.Join(f.out, "float32"), bundleOf(enc32), nil); err != nil {
		return err
	}
	fmt.Printf("wrote %s (%d test items; the float32 models in %s) in %.1fs\n", f.out, test.Len(), filepath.Join(f.out, "float32"), time.Since(start).Seconds())
	if f.global {
		// The folder is whole without it: a global view that cannot be measured is said, and left out.
		ms, err := loadModels(f.out)
		if err == nil {
			share := bud.share(stageGlobal)
			err = measureGlobalUnder(ms, f.out, 0, runtime.NumCPU(), &share)
		}
		if err != nil {
			fmt.Printf("no global view: %v\n", err)
		} else {
			fmt.Printf("the global view measured (%.1fs)\n", time.Since(start).Seconds())
		}
	}
	if line := bud.recap(); line != "" {
		fmt.Println(line)
	}
	fmt.Printf("serve it: make serve MODELS=%s\n", f.out)
	return nil
}

// convertGraphs converts the classifier's ONNX files (one, or an ensemble's members) and, when given, the VAE's
// encoder and decoder, each with its role for the check.
func convertGraphs(f importFlags, members []string, dropout map[string]float64) ([]onnximport.File, onnximport.Parts, error) {
	var graphs []onnximport.File
	convert := func(role, path, prefix string, drop map[string]float64) (*onnximport.Network, error) {
		m, err := onnxfile.ReadFile(path)
		if err != nil {
			return nil, err
		}
		n, err := onnximport.Convert(m, onnximport.Options{Prefix: prefix, Dropout: drop})
		if err != nil {
			return nil, fmt.Errorf("%s (%s): %w", role, path, err)
		}
		graphs = append(graphs, onnximport.File{Role: role, Path: path, Net: n})
		return n, nil
	}
	var parts onnximport.Parts
	for i, path := range members {
		role, prefix := "the classifier", "bnn"
		if len(members) > 1 {
			role, prefix = fmt.Sprintf("the ensemble's member %d", i+1), fmt.Sprintf("member%d", i+1)
		}
		n, err := convert(role, strings.TrimSpace(path), prefix, dropout)
		if err != nil {
			return nil, parts, err
		}
		parts.Classifier = append(parts.Classifier, n)
	}
	if f.encoder != "" {
		var err error
		if parts.Encoder, err = convert("the encoder", f.encoder, "encoder", nil); err != nil {
			return nil, parts, err
		}
		if parts.Decoder, err = convert("the decoder", f.decoder, "decoder", nil); err != nil {
			return nil, parts, err
		}
	}
	return graphs, parts, nil
}

// parseDropout reads -dropout's NODE=RATE list.
func parseDropout(s string) (map[string]float64, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	out := map[string]float64{}
	for _, part := range strings.Split(s, ",") {
		node, rate, ok := strings.Cut(strings.TrimSpace(part), "=")
		r, err := strconv.ParseFloat(rate, 64)
		if !ok || node == "" || err != nil || !(r > 0 && r < 1) {
			return nil, fmt.Errorf("import: -dropout %q: each entry is NODE=RATE, an ONNX node's name and a rate between 0 and 1 (\"/fc2/Gemm=0.5\")", part)
		}
		out[node] = r
	}
	return out, nil
}

var nameChars = regexp.MustCompile(`[^a-z0-9-]+`)

// defaultName makes a models name of the output folder's name.
func defaultName(out string) string {
	s := nameChars.ReplaceAllString(strings.ToLower(filepath.Base(filepath.Clean(out))), "-")
	s = strings.Trim(s, "-")
	if len(s) > 32 {
		s = s[:32]
	}
	return s
}

// refuseFull refuses an output folder that already holds models: nothing complete is overwritten.
func refuseFull(dir string) error {
	if _, err := os.Stat(filepath.Join(dir, weights.DescriptionFile)); err == nil {
		return fmt.Errorf("import: %s already holds models (%s); give a new folder", dir, weights.DescriptionFile)
	}
	return nil
}

// splitItems draws share of the items as the test items with a fixed seed, the rest as the training items, each
// in the data's order.
func splitItems(all *idx.Items, share float64) (train, test *idx.Items) {
	n := all.Len()
	perm := rand.New(rand.NewPCG(20261126, 31)).Perm(n)
	nTest := max(1, int(float64(n)*share+0.5))
	isTest := make([]bool, n)
	for _, i := range perm[:nTest] {
		isTest[i] = true
	}
	train, test = &idx.Items{Input: all.Input}, &idx.Items{Input: all.Input}
	size := all.Size()
	for i := 0; i < n; i++ {
		s := train
		if isTest[i] {
			s = test
		}
		s.Values = append(s.Values, all.Values[i*size:(i+1)*size]...)
		s.Labels = append(s.Labels, all.Labels[i])
	}
	return train, test
}

// compactFile encodes the float32 file f again with its description's weights int8 (a scale per output unit
// or channel, biases float32, as the shipped models), noting the float32 measures and, when known, the int8 ones.
func compactFile(d *weights.Description, f *weights.File, float32Metrics, metrics map[string]any) ([]byte, error) {
	return encodeFile(d, f, true, float32Metrics, metrics)
}

// encodeFile encodes the float32 file f, its weights int8 when compact, with the measures given.
func encodeFile(d *weights.Description, f *weights.File, compact bool, float32Metrics, metrics map[string]any) ([]byte, error) {
	var named []weights.Named
	for _, t := range f.Manifest.Tensors {
		v, err := f.Tensor(t.Name, t.Shape...)
		if err != nil {
			return nil, err
		}
		named = append(named, weights.Named{Name: t.Name, Shape: t.Shape, Values: v})
	}
	in := d.InputShape()
	var nets []weights.Network
	var ins []weights.Shape
	if f.Manifest.Model == "bnn" {
		for _, n := range d.Classifier.Networks {
			nets, ins = append(nets, n), append(ins, in)
		}
	} else {
		nets, ins = []weights.Network{d.VAE.Encoder, d.VAE.Decoder}, []weights.Shape{in, weights.Vector(d.VAE.Latent)}
		if d.VAE.LogVariance != nil {
			nets, ins = append(nets, *d.VAE.LogVariance), append(ins, in)
		}
	}
	man := f.Manifest
	man.Metrics = metrics
	if !compact {
		return weights.Encode(man, named)
	}
	var err error
	for i, n := range nets {
		if named, err = training.CompactNetwork(named, n.Layers, ins[i]); err != nil {
			return nil, err
		}
	}
	man.Compaction = &weights.Compaction{Tool: "deltaclue import", Source: f.Manifest.PayloadSHA, Float32Metrics: float32Metrics}
	return weights.Encode(man, named)
}

// decodeAll decodes weights files by name.
func decodeAll(enc map[string][]byte) (map[string]*weights.File, error) {
	out := map[string]*weights.File{}
	for name, b := range enc {
		f, err := weights.Decode(name, b)
		if err != nil {
			return nil, err
		}
		out[name] = f
	}
	return out, nil
}

// bundleOf is the bundle of the files by name: model.json, then the others in name order (as a models
// folder's bundle is made).
func bundleOf(enc map[string][]byte) []byte {
	names := make([]string, 0, len(enc))
	for n := range enc {
		if n != weights.DescriptionFile {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	list := []weights.BundleFile{{Name: weights.DescriptionFile, Data: enc[weights.DescriptionFile]}}
	for _, n := range names {
		list = append(list, weights.BundleFile{Name: n, Data: enc[n]})
	}
	return weights.EncodeBundle(list)
}

// measures are a manifest's measures of the models: the VAE's ELBO only where the bundle can give it (an
// imported VAE has no log-variance network: NaN, which JSON cannot hold).
func measures(c training.Classification, v training.VAEQuality) map[string]any {
	vae := map[string]any{"recon_label_agreement": v.ReconLabelAgreement}
	if !math.IsNaN(v.ELBO) {
		vae["elbo_per_image"] = v.ELBO
	}
	return map[string]any{"classifier": c, "vae": vae}
}

// indent writes each line two spaces in, under the import's own lines.
type indent struct{ w io.Writer }

func (w indent) Write(p []byte) (int, error) {
	s := strings.ReplaceAll(strings.TrimSuffix(string(p), "\n"), "\n", "\n  ")
	if _, err := io.WriteString(w.w, "  "+s+"\n"); err != nil {
		return 0, err
	}
	return len(p), nil
}

// trainConvVAE trains training.ConvVAE on the training items (a tenth held out for early stopping, drawn with a
// fixed seed) with gomlx, and returns it with its float32 tensors.
func trainConvVAE(in weights.Shape, latent, epochs int, items *idx.Items) (*weights.VAE, []weights.Named, error) {
	v, err := training.ConvVAE(in, latent)
	if err != nil {
		return nil, nil, fmt.Errorf("import: %w", err)
	}
	d := &weights.Description{Input: items.Input, VAE: v}
	train, val := splitItems(items, 0.1)
	loop := training.Loop{Seed: 31, Batch: 64, LR: 2e-3, MaxEpochs: epochs, Patience: 3, Log: indent{os.Stdout}}
	named, _, err := training.TrainDescribedVAE(training.Backend(), loop, d, train, val)
	if err != nil {
		return nil, nil, fmt.Errorf("import: training the VAE: %w", err)
	}
	return &v, named, nil
}

// elboText is an ELBO for the import's table, "n/a" where the VAE cannot give one (an exported VAE has no
// log-variance network).
func elboText(elbo float64) string {
	if math.IsNaN(elbo) {
		return "n/a"
	}
	return fmt.Sprintf("%.1f", elbo)
}
