// Command deltaclue runs the δ-CLUE search from the command line.
//
//	deltaclue explain    [flags]   explain one digit: a PNG grid like the paper's figure, the label
//	                               distribution chart, the uncertainty–distance trade-off (SVG), a summary
//	                               figure of the modes (PNG) and a JSON file with every explanation and metric;
//	                               prints the set in a sentence and its CARLA measures
//	deltaclue sweep      [flags]   explain one digit at each radius of a δ ladder (default 0.5, 1, …, 4 with
//	                               n = 50 each): an SVG chart, a CSV row and the JSON of every radius, and
//	                               how far each label is
//	deltaclue experiment [flags]   the paper's experiments on the most uncertain test digits: a CSV of every
//	                               set's metrics and SVG plots of the paper's figures
//	deltaclue import     [flags]   a models folder from a PyTorch classifier and VAE exported to ONNX
//	                               (docs/your-model.md), checked against independent ONNX runtimes
//	deltaclue global     [flags]   GLAM-CLUE: the shipped global translations (weights/global.dcw) on the
//	                               test split's uncertain digits, beside δ-CLUE: a table of the groups (JSON,
//	                               CSV) and their cost–coverage curves (SVG)
//
// explain and sweep read the digit from -digit N (the shipped test split), -index N (the models' test item N),
// -png FILE or -link LINK (a share link from the page), and a model of rows' row from -index N, -row or -csv
// FILE -line K (with -lock naming the columns every explanation keeps), and use every core; the same flags give the same files,
// byte for byte (but for the timings in explain.json). The measures are defined in docs/measures.md.
//
// Every command runs on the shipped digits' models unless -models names others: a models bundle file
// (models.bin, as the site serves it) or a folder holding model.json, its weights files and optionally test
// items (docs/models.md); experiment and global run over the models' test items.
//
// Run `deltaclue explain -h`, `deltaclue sweep -h` or `deltaclue experiment -h` for the flags.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/deltaclue/deltaclue/engine/clue"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	var err error
	switch os.Args[1] {
	case "explain":
		err = explain(os.Args[2:])
	case "sweep":
		err = sweep(os.Args[2:])
	case "experiment":
		err = experiment(os.Args[2:])
	case "global":
		err = global(os.Args[2:])
	case "quality":
		err = quality(os.Args[2:])
	case "import":
		err = importCmd(os.Args[2:])
	case "predict":
		err = predict(os.Args[2:])
	case "audit":
		err = auditCmd(os.Args[2:])
	case "worked-example":
		err = workedExampleCmd(os.Args[2:])
	default:
		usage()
	}
	if errors.Is(err, flag.ErrHelp) {
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "deltaclue:", err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprint(os.Stderr, `usage: deltaclue <command> [flags]

  explain     explain one digit (-digit N, -index N, -png FILE or -link LINK): grid.png, labels.png, tradeoff.svg,
              summary.png and explain.json in -out; prints the set in a sentence and its CARLA measures. A model
              of rows (-models credit) explains a row: -index N, -row 'Name=value,…' or -csv FILE -line K, with
              -lock Name,… (docs/tables.md)
  sweep       the same digit at each radius of a δ ladder (-radii "0.5:4:0.5", -n-per-radius 50):
              sweep.svg, sweep.csv and sweep.json in -out; prints how far each label is
  experiment  the paper's experiments on the most uncertain test digits: CSVs and SVG plots; for a model of
              rows, on its uncertain test rows, in validity, proximity and sparsity (table.csv)
  global      GLAM-CLUE's global translations on the test split's uncertain digits beside δ-CLUE:
              groups.json, groups.csv and coverage.svg in -out; for a model of rows, its groups of uncertain
              rows, each with the features their explanations change
  quality     the models measured on their test items, as one JSON object: accuracy, nll, ece, auroc, elbo,
              reconstructions_keep_label, test_items
  import      a models folder from a PyTorch classifier and VAE exported to ONNX and their labelled images
              (-classifier, -encoder, -decoder, -data, -out), checked against independent ONNX runtimes
  predict     one image (-png FILE) classified by any bundle, as one JSON object: probs, label, class, entropy,
              aleatoric, epistemic (-eval: dropout off, as PyTorch's eval mode)
  audit       a whole dataset (-data): δ-CLUE on every item the model is unsure of, per item and in summary
              (items.jsonl, summary.json, summary.csv, report.html); -shard i/N or auto on a cluster, then audit merge.
              A model of rows reads -data FILE.csv (or test), with -lock, and writes features.csv: which features
              the uncertainty hinges on, by class
  worked-example  docs/measures.md's worked example, from the shipped models (-write docs/measures.md)

Every command but worked-example takes -models NAME|DIR|FILE: the models to run on, the shipped digits by
default, or a models folder (model.json, its .dcw files, optionally test items) or bundle file (docs/models.md).
Run deltaclue <command> -h for its flags. The measures are defined in docs/measures.md.
`)
	os.Exit(2)
}

// modelsOwn ends the help of the parameters a model's description may give defaults of (weights.SearchDefaults).
const modelsOwn = " (default: the models' own where their description gives one, else the digits' shown)"

// paramFlags registers a flag for every search parameter, defaulting to p (the digits' defaults, until the
// command knows its models: modelParams).
func paramFlags(fs *flag.FlagSet, p *clue.Params) func() error {
	fs.Float64Var(&p.Delta, "delta", p.Delta, "radius δ of the latent ball"+modelsOwn)
	fs.IntVar(&p.N, "n", p.N, "number of restarts")
	scheme := fs.String("scheme", p.Scheme.String(), "initialisation scheme: S1 random radius, S2 towards nearest training digits, S3 half-normal radius, S4 uniform in the ball, S5 gradient paths, S6 amortised answers (GLAM-CLUE) with jitter")
	loss := fs.String("loss", "", "shorthand: uncertainty (λx = 0) or distance (λx positive: as given, else the models' default, else 0.03)")
	fs.Float64Var(&p.WTotal, "w-total", p.WTotal, "weight of the total predictive entropy")
	fs.Float64Var(&p.WAleatoric, "w-aleatoric", p.WAleatoric, "weight of the aleatoric entropy")
	fs.Float64Var(&p.WEpistemic, "w-epistemic", p.WEpistemic, "weight of the epistemic entropy (mutual information)")
	fs.Float64Var(&p.LambdaX, "lambda-x", p.LambdaX, "weight λx of the L1 distance to x0"+modelsOwn)
	fs.BoolVar(&p.DistanceMean, "distance-mean", p.DistanceMean, "L1 distance as mean per pixel (CLUE's code) instead of summed (the paper)")
	fs.Float64Var(&p.LambdaY, "lambda-y", p.LambdaY, "weight λy of the cross-entropy to the prediction on x0")
	fs.Float64Var(&p.LambdaD, "lambda-d", p.LambdaD, "weight λ_D of the joint diversity term −λ_D·log det K (∇-CLUE)")
	rho := fs.String("rho", "l2", "latent distance: l2 or linf")
	constraint := fs.String("constraint", "project", "project every step (project) or search unconstrained and keep results inside the ball (filter)")
	fs.Float64Var(&p.LearningRate, "lr", p.LearningRate, "Adam learning rate")
	fs.IntVar(&p.MaxSteps, "max-steps", p.MaxSteps, "most updates per restart")
	convergence := fs.String("convergence", p.Convergence.String(), "convergence rule: spread (the spread of the last window+1 costs; returns the point it stops at) or clue (CLUE's code: the endpoints |c[t−window] − c[t]|, after min-steps; returns the point window−1 updates back)")
	fs.IntVar(&p.Window, "window", p.Window, "convergence window (updates)")
	fs.Float64Var(&p.RelTol, "rel-tol", p.RelTol, "convergence: relative to the initial cost")
	fs.Float64Var(&p.AbsTol, "abs-tol", p.AbsTol, "convergence: absolute")
	fs.IntVar(&p.MinSteps, "min-steps", p.MinSteps, "updates before convergence is checked")
	fs.Float64Var(&p.HThreshold, "h-threshold", p.HThreshold, "accept results with predictive entropy below this (nats)"+modelsOwn)
	fs.Float64Var(&p.DedupL1, "dedup-l1", p.DedupL1, "accepted results within this L1 image distance of a cheaper one are duplicates")
	fs.Uint64Var(&p.Seed, "seed", p.Seed, "random seed")
	fs.BoolVar(&p.Sparse, "sparse", p.Sparse, "a model of rows: give back each sure explanation's changes the model stays sure without, the smallest first (default: on for rows; -sparse=false keeps the search's rows)")
	fs.Var(lockFlag{&p.Lock}, "lock", "a model of rows: the columns every explanation keeps at the input's value, by name, separated by commas (Age,Marital)")
	return func() error {
		if err := p.Scheme.UnmarshalText([]byte(*scheme)); err != nil {
			return err
		}
		if err := p.Rho.UnmarshalText([]byte(*rho)); err != nil {
			return err
		}
		if err := p.Constraint.UnmarshalText([]byte(*constraint)); err != nil {
			return err
		}
		if err := p.Convergence.UnmarshalText([]byte(*convergence)); err != nil {
			return err
		}
		switch strings.ToLower(*loss) {
		case "":
		case "uncertainty":
			p.LambdaX = 0
		case "distance":
			if p.LambdaX == 0 {
				p.LambdaX = clue.Defaults().LambdaX
			}
		default:
			return fmt.Errorf("-loss %q: want uncertainty or distance", *loss)
		}
		return p.Validate()
	}
}
