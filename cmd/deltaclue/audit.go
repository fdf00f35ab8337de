package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime"
	"time"

	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/internal/audit"
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
		fmt.Printf("merged %s: items.jsonl, summary.json, summary.csv, report.html\n", args[1])
		return nil
	}
	fs := flag.NewFlagSet("audit", flag.ContinueOnError)
	p := clue.Defaults()
	finish := paramFlags(fs, &p)
	spec := modelsFlag(fs)
	data := fs.String("data", "", "the items to audit: a folder per class, DIR/<class name>/*.png, an IDX file of images (its labels beside it), or \"test\": the models' own test items")
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
	if _, statErr := os.Stat(*data); *data == "test" && statErr != nil {
		if m.Test == nil {
			return fmt.Errorf("audit: -data test: the %q models have no test items", m.Name())
		}
		items = audit.FromItems(m.Test, m.Description(), "test")
	} else if items, err = audit.Load(*data, m.Description()); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "read %d items (%d unreadable) from %s\n", items.Items.Len(), len(items.Skipped), *data)
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
	fmt.Printf("wrote %s: items.jsonl, summary.json, summary.csv, report.html (%.1fs)\n", *out, time.Since(start).Seconds())
	return nil
}
