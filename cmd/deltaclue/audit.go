package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/internal/audit"
	"github.com/deltaclue/deltaclue/internal/dataset"
	"github.com/deltaclue/deltaclue/internal/plural"
)

// auditCmd explains a whole dataset, or one shard of it (-shard), or merges the shards (audit merge OUT).
func auditCmd(args []string) error {
	if len(args) > 0 && args[0] == "merge" {
		if len(args) != 2 {
			return fmt.Errorf("audit merge: give the audit's folder, and nothing else (deltaclue audit merge OUT)")
		}
		if err := audit.Merge(args[1]); err != nil {
			return err
		}
		fmt.Printf("merged %s: %s\n", args[1], auditFiles(args[1]))
		return nil
	}
	fs := flag.NewFlagSet("audit", flag.ContinueOnError)
	p := clue.Defaults()
	finish := paramFlags(fs, &p)
	spec := modelsFlag(fs)
	data := fs.String("data", "", "the items to audit: a folder per class, DIR/<class name>/*.png, an IDX file of images (its labels beside it), for a model of rows a CSV file whose header names every column, or \"test\": the models' own test items")
	out := fs.String("out", "audit-out", "the audit's folder: the shards' records under shards/, and items.jsonl, summary.json, summary.csv and report.html")
	top := fs.Int("top", 0, "audit the N items the model is least sure of (0: every item with H above -h-threshold)")
	site := fs.String("site", "", "the explainer's address (https://user.github.io/name/): each record's link opens its item there")
	shardSpec := fs.String("shard", "", "audit one interleaved slice: i/N (i from 0), or auto from the scheduler's array index (Slurm, Kubernetes Indexed Jobs, AWS Batch); then merge with deltaclue audit merge OUT")
	count := fs.Int("count", 0, "with -shard auto under Kubernetes or AWS Batch: the number of shards (their environment gives only the index)")
	workers := fs.Int("workers", runtime.NumCPU(), "items searched at once (the records do not depend on it)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := finish(); err != nil {
		return err
	}
	if *data == "" {
		return fmt.Errorf("audit: -data names the items to audit")
	}
	if *top < 0 || *workers < 1 {
		return fmt.Errorf("audit: -top %d and -workers %d: want -top ≥ 0 and -workers ≥ 1", *top, *workers)
	}
	shard, err := audit.ParseShard(*shardSpec, *count, os.Getenv)
	if err != nil {
		return err
	}
	m, err := loadModels(*spec)
	if err != nil {
		return err
	}
	if err := modelParams(fs, &p, m.Description(), nil); err != nil {
		return err
	}
	start := time.Now()
	var items *audit.Data
	_, statErr := os.Stat(*data)
	switch rows := m.search.Columns() != nil; {
	case *data == "test" && statErr != nil && m.Test == nil:
		return fmt.Errorf("audit: -data test: the %q models have no test items", m.Name())
	case *data == "test" && statErr != nil && rows:
		t, ok := m.Test.(*dataset.Table)
		if !ok {
			return fmt.Errorf("audit: -data test: the %q models read rows, and their test items are not a table", m.Name())
		}
		items = audit.FromTable(t, "test")
	case *data == "test" && statErr != nil:
		items = audit.FromItems(m.Test, m.Description(), "test")
	case rows:
		// A CSV file of rows; anything that does not fit the schema is refused before anything is written.
		if items, err = audit.LoadCSV(*data, m.Description(), classColumn(m)); err != nil {
			return fmt.Errorf("audit: %w", err)
		}
	default:
		if items, err = audit.Load(*data, m.Description()); err != nil {
			return err
		}
	}
	fmt.Fprintf(os.Stderr, "read %d items (%d unreadable) from %s\n", items.Len(), len(items.Skipped), *data)
	var bar *progress
	opt := audit.Options{Params: p, Top: *top, Site: *site, Workers: *workers, Progress: func(done, total int) {
		if bar == nil { // the first call is the start: what earlier runs of the shard finished
			bar = newProgress(os.Stderr, total, "items")
			bar.from = done
		}
		bar.update(done)
	}}
	if err := audit.Run(context.Background(), m.Models, items, opt, shard, *out); err != nil {
		return err
	}
	if bar != nil {
		bar.finish()
	}
	secs := time.Since(start).Seconds()
	fmt.Fprintf(os.Stderr, "shard %d of %d done in %.1fs\n", shard.Index, shard.Count, secs)
	if *shardSpec != "" {
		return nil
	}
	if err := audit.Merge(*out); err != nil {
		return err
	}
	fmt.Printf("wrote %s: %s (%.1fs)\n", *out, auditFiles(*out), time.Since(start).Seconds())
	if m.search.Columns() != nil {
		if err := printFeatures(filepath.Join(*out, "summary.json"), m.noun()); err != nil {
			return err
		}
	}
	return nil
}

// auditFiles names the files a merge wrote into out: features.csv besides the four for a model of rows.
func auditFiles(out string) string {
	files := "items.jsonl, summary.json, summary.csv, report.html"
	if _, err := os.Stat(filepath.Join(out, "features.csv")); err == nil {
		files += ", features.csv"
	}
	return files
}

// printFeatures says, from summary.json, which features the cheapest sure explanations change, by class read
// (noun: what a row is, "applicant").
func printFeatures(path, noun string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var s audit.Summary
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	if s.Features == nil {
		return nil
	}
	fmt.Printf("the cheapest sure explanation of %s changes %.1f features on average: %s\n", plural.Count(s.Features.All.Explanations, noun),
		s.Features.All.Sparsity, s.Features.All.Words(5))
	for _, l := range s.Features.ByLabel {
		fmt.Printf("  read as %s (%s of %d audited): %s\n", l.Class, plural.Count(l.Tally.Explanations, noun), l.Audited, l.Tally.Words(5))
	}
	return nil
}
