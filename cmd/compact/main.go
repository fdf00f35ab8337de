// Command compact converts the digits' float32 models of `make train` into the compact files the project ships
// (what `make compact` runs; `make train` runs it after training):
//
//	go run ./cmd/compact -in build/weights-f32 -out weights -dtype int8
//
// reads vae.dcw, bnn.dcw and anchors.dcw from -in, stores every weight matrix as -dtype (int8 with a float32
// scale per output unit by default; biases stay float32) and the anchors' latent codes as -anchors, moves the VAE
// encoder's log-variance head (which only the ELBO needs) into vae_logvar.dcw, measures the converted models on
// MNIST's test split with gomlx, and writes vae.dcw, vae_logvar.dcw, bnn.dcw and anchors.dcw to -out with the
// metrics in their manifests. The same input gives the same payload bytes on every machine; the manifests'
// metrics come from gomlx, so the whole files are the same run after run on one machine and build.
//
//	go run ./cmd/compact -in build/weights-f32 -compare /tmp/forms
//
// converts the input to every candidate form instead (float32, float16, int8 per output unit, int8 per input
// unit), writes each into its own folder under the -compare folder, and prints every metric and the raw and
// gzip -9 (compress/gzip, level 9) size of every file: the measurements in weights/README.md.
package main

import (
	"bytes"
	"compress/gzip"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/mnist"
	"github.com/deltaclue/deltaclue/training"
	"github.com/deltaclue/deltaclue/weights"
)

func main() {
	in := flag.String("in", "build/weights-f32", "folder with the float32 vae.dcw, bnn.dcw and anchors.dcw of `make train`")
	out := flag.String("out", "weights", "folder to write vae.dcw, vae_logvar.dcw, bnn.dcw and anchors.dcw into")
	dtype := flag.String("dtype", weights.Int8, "dtype of the weight matrices: int8, float16 or float32")
	axis := flag.Int("axis", 1, "int8 weights [in, out]: the scale axis (1: a scale per output unit, 0: per input unit)")
	anchors := flag.String("anchors", weights.Int8, "dtype of the anchors' latent codes: int8, float16 or float32")
	anchorAxis := flag.Int("anchor-axis", 0, "int8 anchors [n, latent]: the scale axis (0: a scale per code, 1: per latent dimension)")
	compare := flag.String("compare", "", "measure every candidate form into this folder instead of writing -out")
	flag.Parse()
	var err error
	if *compare != "" {
		err = compareForms(*in, *compare)
	} else {
		err = convert(*in, *out, training.Form{Weights: *dtype, Axis: *axis, Anchors: *anchors, AnchorAxis: *anchorAxis})
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "compact:", err)
		os.Exit(1)
	}
}

func load(path string) (*weights.File, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return weights.Decode(path, b)
}

// inputs reads the float32 export.
func inputs(dir string) (vae, bnn, anchors *weights.File, err error) {
	if vae, err = load(filepath.Join(dir, training.FileVAE)); err != nil {
		return nil, nil, nil, fmt.Errorf("%v (run `make train`, or pass -in)", err)
	}
	if bnn, err = load(filepath.Join(dir, training.FileBNN)); err != nil {
		return nil, nil, nil, err
	}
	if anchors, err = load(filepath.Join(dir, training.FileAnchors)); err != nil {
		return nil, nil, nil, err
	}
	return vae, bnn, anchors, nil
}

var fileOrder = []string{training.FileVAE, training.FileLogVar, training.FileBNN, training.FileAnchors}

func convert(in, out string, form training.Form) error {
	vae, bnn, anchors, err := inputs(in)
	if err != nil {
		return err
	}
	test, err := mnist.HeldOut()
	if err != nil {
		return err
	}
	start := time.Now()
	c, err := training.Compact(training.Backend(), vae, bnn, anchors, form, test)
	if err != nil {
		return err
	}
	fmt.Printf("%s, measured in %.0fs\n  BNN: %+v\n  VAE: %+v\n", form, time.Since(start).Seconds(), c.BNN, c.VAE)
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	for _, name := range fileOrder {
		b := c.Files[name]
		if err := os.WriteFile(filepath.Join(out, name), b, 0o644); err != nil {
			return err
		}
		fmt.Printf("wrote %s: %d bytes, %d gzipped\n", filepath.Join(out, name), len(b), gzipSize(b))
	}
	return nil
}

func gzipSize(b []byte) int {
	var buf bytes.Buffer
	w, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	w.Write(b)
	w.Close()
	return buf.Len()
}

type candidate struct {
	name string
	form training.Form
}

func compareForms(in, dir string) error {
	vae, bnn, anchors, err := inputs(in)
	if err != nil {
		return err
	}
	test, err := mnist.HeldOut()
	if err != nil {
		return err
	}
	backend := training.Backend()
	candidates := []candidate{
		{"float32", training.Form{Weights: weights.Float32, Anchors: weights.Float32}},
		{"float16", training.Form{Weights: weights.Float16, Anchors: weights.Float16}},
		{"int8-out", training.Form{Weights: weights.Int8, Axis: 1, Anchors: weights.Int8, AnchorAxis: 0}},
		{"int8-in", training.Form{Weights: weights.Int8, Axis: 0, Anchors: weights.Int8, AnchorAxis: 1}},
		{"int8-per-tensor", training.Form{Weights: weights.Int8, Axis: training.AxisPerTensor, Anchors: weights.Int8, AnchorAxis: 0}},
	}
	fmt.Printf("## Every form, measured on the %d test digits\n\n", test.Len())
	fmt.Println("| form | BNN accuracy | NLL | ECE | AUROC | VAE ELBO | recon. agreement | vae.dcw | vae_logvar.dcw | bnn.dcw | anchors.dcw | page (vae+bnn+anchors) | time |")
	fmt.Println("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	var results []*training.Compacted
	for _, cand := range candidates {
		start := time.Now()
		c, err := training.Compact(backend, vae, bnn, anchors, cand.form, test)
		if err != nil {
			return err
		}
		results = append(results, c)
		sub := filepath.Join(dir, cand.name)
		if err := os.MkdirAll(sub, 0o755); err != nil {
			return err
		}
		var sizes []string
		var page, pageGz int
		for _, name := range fileOrder {
			b := c.Files[name]
			if err := os.WriteFile(filepath.Join(sub, name), b, 0o644); err != nil {
				return err
			}
			gz := gzipSize(b)
			sizes = append(sizes, fmt.Sprintf("%d / %d", len(b), gz))
			if name != training.FileLogVar {
				page, pageGz = page+len(b), pageGz+gz
			}
		}
		fmt.Printf("| %s | %.2f %% | %.4f | %.4f | %.4f | %.2f | %.2f %% | %s | %d / %d | %.0f s |\n", cand.form,
			100*c.BNN.Accuracy, c.BNN.NLL, c.BNN.ECE, c.BNN.AUROC, c.VAE.ELBO, 100*c.VAE.ReconLabelAgreement,
			strings.Join(sizes, " | "), page, pageGz, time.Since(start).Seconds())
	}
	fmt.Println("\n(sizes: raw bytes / gzip level 9 bytes)")
	weightErrors(vae, bnn)
	return anchorErrors(anchors, results[0], test)
}

// weightErrors prints, for each weight matrix, the error that each form leaves per output unit
// (training.UnitError).
func weightErrors(files ...*weights.File) {
	fmt.Println("\n## Relative error per output unit, ‖ΔW[:,j]‖ / ‖W[:,j]‖: mean (worst) over the units j")
	forms := []struct {
		name  string
		dtype string
		axis  int
	}{{"float16", weights.Float16, 0}, {"int8 per output unit (axis 1)", weights.Int8, 1}, {"int8 per input unit (axis 0)", weights.Int8, 0}}
	fmt.Print("\n| tensor | shape |")
	for _, f := range forms {
		fmt.Printf(" %s |", f.name)
	}
	fmt.Print("\n|---|---|")
	for range forms {
		fmt.Print("---:|")
	}
	fmt.Println()
	for _, file := range files {
		for _, t := range file.Named() {
			if !strings.HasSuffix(t.Name, "/weights") {
				continue
			}
			fmt.Printf("| %s | %v |", t.Name, t.Shape)
			for _, f := range forms {
				mean, worst := training.UnitError(t, f.dtype, f.axis)
				fmt.Printf(" %.5f (%.5f) |", mean, worst)
			}
			fmt.Println()
		}
	}
}

// anchorErrors prints what each anchor form changes: the largest and RMS error of a code, and for the test
// digits' codes (float32 encoder means), how often the nearest anchor of each class (where scheme S2 walks)
// and the 5 nearest anchors (yNN) stay the same.
func anchorErrors(anchors *weights.File, f32 *training.Compacted, test *mnist.Set) error {
	models, err := clue.LoadModels(f32.Decoded[training.FileVAE], f32.Decoded[training.FileBNN], anchors)
	if err != nil {
		return err
	}
	images := test.Floats()
	latent := models.VAE.Latent
	codes := models.VAE.Encode(images)
	ref := neighbours(models.Anchors, codes, latent)
	var spread float64 // RMS distance between a test code and its nearest anchor, for scale
	for _, d := range ref.nearestDist {
		spread += d * d / float64(len(ref.nearestDist))
	}
	fmt.Printf("\n## Anchors (%d codes; a test code's nearest anchor is %.3f away, RMS)\n\n", ref.total, math.Sqrt(spread))
	fmt.Println("| form | max abs error | RMS error | same nearest anchor per class | same 5 nearest anchors | same classes among them | anchors.dcw raw / gzip |")
	fmt.Println("|---|---:|---:|---:|---:|---:|---:|")
	for _, f := range []struct {
		name  string
		dtype string
		axis  int
	}{{"float32", weights.Float32, 0}, {"float16", weights.Float16, 0}, {"int8 per code (axis 0)", weights.Int8, 0}, {"int8 per latent dimension (axis 1)", weights.Int8, 1}} {
		named := anchors.Named()
		for i := range named {
			named[i].DType, named[i].ScaleAxis = f.dtype, f.axis
		}
		b, err := weights.Encode(anchors.Manifest, named)
		if err != nil {
			return err
		}
		g, err := weights.Decode("converted", b)
		if err != nil {
			return err
		}
		conv, err := g.Anchors(len(models.Anchors))
		if err != nil {
			return err
		}
		maxAbs, rms := training.ConversionError(anchors, named)
		got := neighbours(conv, codes, latent)
		var sameNearest, sameKNN, sameLabels int
		for i := range ref.nearest {
			if ref.nearest[i] == got.nearest[i] {
				sameNearest++
			}
		}
		for i := range ref.knn {
			if slices.Equal(ref.knn[i], got.knn[i]) {
				sameKNN++
			}
			if slices.Equal(ref.knnLabels[i], got.knnLabels[i]) {
				sameLabels++
			}
		}
		fmt.Printf("| %s | %.5f | %.5f | %.2f %% | %.2f %% | %.2f %% | %d / %d |\n", f.name, maxAbs, rms,
			100*float64(sameNearest)/float64(len(ref.nearest)), 100*float64(sameKNN)/float64(len(ref.knn)),
			100*float64(sameLabels)/float64(len(ref.knn)), len(b), gzipSize(b))
	}
	return nil
}

type neighbourSets struct {
	nearest     []int     // per test code and class, the index of the nearest anchor of that class
	nearestDist []float64 // per test code, the distance to the nearest anchor of any class
	knn         [][]int   // per test code, the 5 nearest anchors (global indices), nearest first
	knnLabels   [][]int   // per test code, the classes of its 5 nearest anchors, sorted (what yNN counts)
	total       int
}

func neighbours(anchors [][]float32, codes []float32, latent int) neighbourSets {
	var s neighbourSets
	type cand struct {
		d   float64
		idx int
	}
	var class []int
	for c, cls := range anchors {
		for range len(cls) / latent {
			class = append(class, c)
		}
	}
	for i := 0; i < len(codes)/latent; i++ {
		z := codes[i*latent : (i+1)*latent]
		var all []cand
		base := 0
		for _, cls := range anchors {
			best, bestD := -1, math.Inf(1)
			for a := 0; a < len(cls)/latent; a++ {
				var d float64
				for k, v := range cls[a*latent : (a+1)*latent] {
					e := float64(v) - float64(z[k])
					d += e * e
				}
				if d < bestD {
					best, bestD = a, d
				}
				all = append(all, cand{d, base + a})
			}
			s.nearest = append(s.nearest, best)
			base += len(cls) / latent
		}
		s.total = base
		sort.Slice(all, func(a, b int) bool { return all[a].d < all[b].d || all[a].d == all[b].d && all[a].idx < all[b].idx })
		var knn, labels []int
		for _, c := range all[:5] {
			knn = append(knn, c.idx)
			labels = append(labels, class[c.idx])
		}
		slices.Sort(labels)
		s.knn = append(s.knn, knn)
		s.knnLabels = append(s.knnLabels, labels)
		s.nearestDist = append(s.nearestDist, math.Sqrt(all[0].d))
	}
	return s
}
