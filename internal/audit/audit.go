//go:build !js

// Package audit explains a whole dataset: it classifies every item, keeps the ones the model is unsure of, runs
// δ-CLUE (and GLAM-CLUE's amortised answers) on each, and writes one record per item and, over all of them,
// where the model is unsure and what would make it sure (Merge: items.jsonl, summary.json, summary.csv and
// report.html).
//
// The work splits into interleaved shards that a cluster scheduler runs as an array of tasks (Shard, ParseShard):
// each writes its records into a folder of its own, a batch at a time, each batch a file made whole by a rename,
// so that a shard killed and started again skips what it finished. Merge makes the same bytes from any number of
// shards, run in any order, as from one process.
package audit

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"sync"

	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/engine/clue/sharelink"
	"github.com/deltaclue/deltaclue/engine/glam"
	"github.com/deltaclue/deltaclue/internal/dataset"
	"github.com/deltaclue/deltaclue/internal/idx"
	"github.com/deltaclue/deltaclue/internal/imagefolder"
	"github.com/deltaclue/deltaclue/internal/modelsource"
	"github.com/deltaclue/deltaclue/weights"
)

// Format is the version of a shard's header and records.
const Format = 1

// Options are how an audit runs; every shard of one audit must be given the same.
type Options struct {
	Params clue.Params
	Top    int    // audit the Top items the model is least sure of (0: every item with H above Params.HThreshold)
	Site   string // the explainer's address the records' links open ("" for links without one)
	Batch  int    // items per batch file (a shard's unit of work done; default DefaultBatch)
	// Workers is how many items are searched at once (the records do not depend on it).
	Workers int
	// Progress, when not nil, is told how many of the shard's items are done: once before the first batch this
	// run computes (the items earlier runs of the shard finished), then after each batch.
	Progress func(done, total int)
}

// DefaultBatch is how many items a batch file holds.
const DefaultBatch = 8

// Header is a shard's audit.json: what every shard of one audit shares, and which shard it is.
type Header struct {
	Format      int    `json:"format"`
	Models      string `json:"models"`
	Fingerprint uint32 `json:"fingerprint"`
	Data        string `json:"data"`   // the SHA-256 of the items read (labels and values) and the unreadable files' names
	Height      int    `json:"height"` // the models' input: a thumbnail's shape (0 for a model of rows)
	Width       int    `json:"width"`
	Channels    int    `json:"channels"`
	// Columns are a model of rows' columns as the model's description writes them, in JSON ("" for images): the
	// records' rows and the features report are theirs (held as text, so that headers compare with ==).
	Columns    string      `json:"columns,omitempty"`
	Items      int         `json:"items"`
	Unreadable int         `json:"unreadable"`
	Audited    int         `json:"audited"` // the items audited, over every shard
	Params     clue.Params `json:"params"`
	Top        int         `json:"top"`
	Site       string      `json:"site"`
	Batch      int         `json:"batch"`
	Shard      int         `json:"shard"`
	Shards     int         `json:"shards"`
}

// same is every field but the shard's own index.
func (h Header) same() Header { h.Shard = 0; return h }

// Reach is how one label is reached from an item: by how many accepted explanations, the cheapest's distance
// and its restart.
type Reach struct {
	Label    int     `json:"label"`
	Class    string  `json:"class"`
	Count    int     `json:"count"`
	Distance float32 `json:"d"`
	Restart  int     `json:"restart"`
	// A model of rows: the cheapest explanation's row as {column: value} and the columns it changes (in the
	// table's order); neither for images.
	Row     json.RawMessage `json:"row,omitempty"`
	Changed []string        `json:"changed,omitempty"`
}

// Amortised is GLAM-CLUE's instant answer towards a label: whether the translated code makes the model sure of
// it, and its distance.
type Amortised struct {
	To       int     `json:"to"`
	Sure     bool    `json:"sure"`
	Label    int     `json:"label"`
	Distance float32 `json:"d"`
}

// Record is one item's audit.
type Record struct {
	Item  int    `json:"item"` // its index among the items read; −1 for an unreadable file
	File  string `json:"file,omitempty"`
	Error string `json:"error,omitempty"` // why it was not audited (unreadable, blank, …)
	True  int    `json:"true_label"`
	// Label and Class are what the model reads, with the entropy of its prediction split into its parts (nats).
	Label     int         `json:"label"`
	Class     string      `json:"class"`
	HTotal    float32     `json:"h_total"`
	HAleat    float32     `json:"h_aleatoric"`
	HEpist    float32     `json:"h_epistemic"`
	Accepted  int         `json:"accepted"`
	Restarts  int         `json:"restarts"`
	Reach     []Reach     `json:"reach"`
	Amortised []Amortised `json:"amortised,omitempty"`
	Link      string      `json:"link,omitempty"`
	// Row is a model of rows' input row as {column: value} (none for images).
	Row json.RawMessage `json:"row,omitempty"`
	// The item's image and each reached label's cheapest explanation, quantised (byte/255): shard files only,
	// for the report's thumbnails.
	Image    []byte   `json:"image,omitempty"`
	Cheapest [][]byte `json:"cheapest,omitempty"`
}

// Shard is one of Count interleaved slices of the audited items: item k of them (in index order) is shard
// k mod Count's.
type Shard struct{ Index, Count int }

func (s Shard) String() string { return fmt.Sprintf("%d-of-%d", s.Index, s.Count) }

// dir is where the shard writes, under out.
func (s Shard) dir(out string) string { return filepath.Join(out, "shards", s.String()) }

// Data are the items an audit reads, with the files it could not: images (Data), or a model of rows' rows
// (Table, with Data nil).
type Data struct {
	*imagefolder.Data
	Skipped []imagefolder.Skipped
	// Table holds a model of rows' rows in natural units (nil for images), and Names each row's name
	// ("FILE line K").
	Table *dataset.Table
	Names []string
}

// items are the items read, images or rows.
func (d *Data) items() dataset.Items {
	if d.Table != nil {
		return d.Table
	}
	return d.Data.Items
}

// Len is the number of items read.
func (d *Data) Len() int { return d.items().Len() }

// file is item i's name.
func (d *Data) file(i int) string {
	if d.Table != nil {
		return d.Names[i]
	}
	return d.Files[i]
}

// Load reads path (class folders or an IDX file) for the models, skipping unreadable images with their reason.
func Load(path string, d *weights.Description) (*Data, error) {
	data, skipped, err := imagefolder.ReadFor(path, d.Classes, d.Input)
	if err != nil {
		return nil, err
	}
	data.Items.Input = d.Input
	return &Data{Data: data, Skipped: skipped}, nil
}

// fingerprint is the SHA-256 of the items and the skipped files' names.
func (d *Data) fingerprint() string {
	if d.Table != nil {
		return d.tableFingerprint()
	}
	h := sha256.New()
	h.Write(d.Items.Labels)
	h.Write(d.Items.Values)
	for _, s := range d.Skipped {
		fmt.Fprintf(h, "%s\n", s.File)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Run audits shard s of the items for the models m into out (out/shards/<s>), skipping the batches an earlier
// run of the same shard finished. It refuses a shard folder written with other flags, models or data.
func Run(ctx context.Context, m *modelsource.Models, data *Data, opt Options, s Shard, out string) error {
	if s.Count < 1 || s.Index < 0 || s.Index >= s.Count {
		return fmt.Errorf("shard %d of %d: the index runs from 0 to the count less one", s.Index, s.Count)
	}
	if opt.Batch <= 0 {
		opt.Batch = DefaultBatch
	}
	if err := opt.Params.Validate(); err != nil {
		return err
	}
	models, ts, err := glam.LoadBundle(m.Bundle)
	if err != nil {
		return err
	}
	if err := opt.Params.ValidateFor(models); err != nil { // S2 on models without anchors: refused once, not per item
		return fmt.Errorf("the %q models: %w", m.Name(), err)
	}
	if opt.Params.Scheme == clue.S6 && len(ts) == 0 { // likewise S6 without translations (every search would fail)
		return fmt.Errorf("-scheme S6 starts from GLAM-CLUE's translations, and the %q models have none (%s): give another -scheme", m.Name(), weights.BundleGlobal)
	}
	selected, preds := selectItems(models, data, opt)
	in := m.Description().Input
	h := Header{Format: Format, Models: m.Name(), Fingerprint: m.Bundle.Fingerprint(), Data: data.fingerprint(), Items: data.Len(),
		Height: in.Height, Width: in.Width, Channels: in.Channels,
		Unreadable: len(data.Skipped), Audited: len(selected), Params: opt.Params, Top: opt.Top, Site: opt.Site, Batch: opt.Batch,
		Shard: s.Index, Shards: s.Count}
	if cols := models.Columns(); cols != nil {
		if data.Table == nil {
			return fmt.Errorf("the %q models read rows: audit a CSV file of them, or their test rows", m.Name())
		}
		js, err := json.Marshal(cols)
		if err != nil {
			return err
		}
		h.Columns = string(js)
	} else if data.Table != nil {
		return fmt.Errorf("the %q models read images, not rows", m.Name())
	}
	dir := s.dir(out)
	if err := writeHeader(dir, h); err != nil {
		return err
	}
	var mine []int
	for k, i := range selected {
		if k%s.Count == s.Index {
			mine = append(mine, i)
		}
	}
	if s.Index == 0 { // the unreadable files are shard 0's records
		if err := writeBatch(dir, "unreadable.jsonl", unreadableRecords(data.Skipped)); err != nil {
			return err
		}
	}
	done, started := 0, false
	for b := 0; b*opt.Batch < len(mine); b++ {
		items := mine[b*opt.Batch : min((b+1)*opt.Batch, len(mine))]
		name := batchName(b)
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil { // finished by an earlier run
			done += len(items)
			continue
		}
		if !started && opt.Progress != nil { // where this run starts: what earlier runs finished
			opt.Progress(done, len(mine))
		}
		started = true
		recs := make([]Record, len(items))
		var wg sync.WaitGroup
		sem := make(chan struct{}, max(1, opt.Workers))
		for k, i := range items {
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer func() { <-sem; wg.Done() }()
				recs[k] = auditItem(ctx, m, models, ts, data, i, preds[i], opt)
			}()
		}
		wg.Wait()
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := writeBatch(dir, name, recs); err != nil {
			return err
		}
		done += len(items)
		if opt.Progress != nil {
			opt.Progress(done, len(mine))
		}
	}
	return nil
}

func batchName(b int) string { return fmt.Sprintf("batch-%06d.jsonl", b) }

// owned is how many of the audited items shard s holds.
func owned(audited int, s Shard) int { return (audited - s.Index + s.Count - 1) / s.Count }

// prediction is the model's reading of one item.
type prediction struct {
	label          int
	h, aleat, epis float32
}

// selectItems classifies every item and returns the ones to audit, in index order: those above the threshold,
// or the Top least sure (ties by index).
func selectItems(models *clue.Models, data *Data, opt Options) ([]int, []prediction) {
	items := data.items()
	size, n := items.Size(), items.Len()
	preds := make([]prediction, n)
	const chunk = 256
	x := make([]float32, chunk*size)
	for lo := 0; lo < n; lo += chunk {
		hi := min(lo+chunk, n)
		for i := lo; i < hi; i++ {
			items.Float(i, x[(i-lo)*size:(i-lo+1)*size])
		}
		for k, u := range models.BNN.Classify(x[:(hi-lo)*size]) {
			preds[lo+k] = prediction{u.Label(), u.Total, u.Aleatoric, u.Epistemic}
		}
	}
	var idx []int
	for i, p := range preds {
		if opt.Top > 0 || float64(p.h) > opt.Params.HThreshold {
			idx = append(idx, i)
		}
	}
	if opt.Top > 0 && len(idx) > opt.Top {
		sort.SliceStable(idx, func(a, b int) bool { return preds[idx[a]].h > preds[idx[b]].h })
		idx = idx[:opt.Top]
		slices.Sort(idx)
	}
	return idx, preds
}

// auditItem runs δ-CLUE and GLAM-CLUE on item i.
func auditItem(ctx context.Context, m *modelsource.Models, models *clue.Models, ts []glam.Translation, data *Data, i int, pred prediction, opt Options) Record {
	d := m.Description()
	r := Record{Item: i, File: data.file(i), True: data.items().Label(i), Label: pred.label, Class: d.Classes[pred.label],
		HTotal: pred.h, HAleat: pred.aleat, HEpist: pred.epis, Reach: []Reach{}}
	if data.Table != nil {
		return auditRow(ctx, m, models, data.Table, i, r, opt)
	}
	x := data.Items.Float(i, nil)
	prob, err := clue.NewProblem(models, x)
	if err != nil {
		r.Error = err.Error()
		return r
	}
	exps, err := clue.Search(ctx, prob, opt.Params, nil, nil)
	if err != nil {
		r.Error = err.Error()
		return r
	}
	r.Restarts = len(exps)
	labels, best, count, n := cheapestByLabel(exps)
	r.Accepted = n
	r.Image = sharelink.Quantize(x)
	for _, l := range labels {
		e := exps[best[l]]
		r.Reach = append(r.Reach, Reach{Label: l, Class: d.Classes[l], Count: count[l], Distance: e.Distance, Restart: e.Restart})
		r.Cheapest = append(r.Cheapest, sharelink.Quantize(e.Image))
	}
	for _, to := range glam.Plausible(prob.Pred0.Probs, glam.PlausibleMin) {
		for _, a := range glam.Explain(models, ts, prob.X0, prob.Z0, prob.Pred0.Label(), []int{to}, opt.Params.HThreshold) {
			r.Amortised = append(r.Amortised, Amortised{To: a.To, Sure: a.Sure, Label: a.Label, Distance: a.Distance})
		}
	}
	in := d.Input
	link := sharelink.Encode(sharelink.State{Models: m.Name(), Model: m.Bundle.Fingerprint(), Height: in.Height, Width: in.Width,
		Channels: in.Channels, Image: r.Image, Params: opt.Params, Selected: sharelink.NoSelection})
	r.Link = opt.Site + "#" + link
	return r
}

// cheapestByLabel is, for the labels the accepted explanations reach (in increasing order), the index of each
// label's cheapest (the smallest d, the first of equals) and how many reach it; n is how many are accepted.
func cheapestByLabel(exps []clue.Explanation) (labels []int, best, count map[int]int, n int) {
	best, count = map[int]int{}, map[int]int{}
	for k, e := range exps {
		if !e.Accepted {
			continue
		}
		n++
		count[e.Label]++
		if j, ok := best[e.Label]; !ok || e.Distance < exps[j].Distance {
			best[e.Label] = k
		}
	}
	for l := range best {
		labels = append(labels, l)
	}
	slices.Sort(labels)
	return labels, best, count, n
}

func unreadableRecords(skipped []imagefolder.Skipped) []Record {
	recs := make([]Record, len(skipped))
	for k, s := range skipped {
		recs[k] = Record{Item: -1, File: s.File, Error: s.Reason, True: -1, Label: -1, Reach: []Reach{}}
	}
	return recs
}

// writeHeader writes the shard's header, or checks it against the one an earlier run wrote.
func writeHeader(dir string, h Header) error {
	path := filepath.Join(dir, "audit.json")
	b, err := json.MarshalIndent(h, "", "  ")
	if err != nil {
		return err
	}
	old, err := os.ReadFile(path)
	switch {
	case err == nil:
		var was Header
		if json.Unmarshal(old, &was) != nil || was != h {
			return fmt.Errorf("%s holds shard %d of %d of another audit (%s): give a new -out, or the same flags, models and data", dir, h.Shard, h.Shards, differs(was, h))
		}
		return nil
	case !errors.Is(err, os.ErrNotExist):
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return writeAtomic(path, append(b, '\n'))
}

// differs names the first field in which two headers differ.
func differs(a, b Header) string {
	switch {
	case a.Format != b.Format:
		return fmt.Sprintf("format %d, not %d", a.Format, b.Format)
	case a.Models != b.Models || a.Fingerprint != b.Fingerprint:
		return fmt.Sprintf("the models %q (%08x), not %q (%08x)", a.Models, a.Fingerprint, b.Models, b.Fingerprint)
	case a.Data != b.Data || a.Items != b.Items:
		return fmt.Sprintf("other data (%d items, %.12s…), not %d items, %.12s…", a.Items, a.Data, b.Items, b.Data)
	case a.Params != b.Params:
		return "other search parameters"
	case a.Top != b.Top:
		return fmt.Sprintf("-top %d, not %d", a.Top, b.Top)
	case a.Site != b.Site:
		return fmt.Sprintf("-site %q, not %q", a.Site, b.Site)
	case a.Batch != b.Batch:
		return fmt.Sprintf("batches of %d, not %d", a.Batch, b.Batch)
	case a.Shards != b.Shards:
		return fmt.Sprintf("%d shards, not %d", a.Shards, b.Shards)
	}
	return "another header"
}

// writeBatch writes records, one JSON object a line, into dir/name whole or not at all.
func writeBatch(dir, name string, recs []Record) error {
	var buf bytes.Buffer
	for _, r := range recs {
		b, err := json.Marshal(r)
		if err != nil {
			return err
		}
		buf.Write(b)
		buf.WriteByte('\n')
	}
	return writeAtomic(filepath.Join(dir, name), buf.Bytes())
}

// writeAtomic writes path through a temporary file beside it and a rename: a reader (or a restarted shard)
// sees the whole file or none.
func writeAtomic(path string, b []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-"+filepath.Base(path)+"-*")
	if err != nil {
		return err
	}
	if err := tmp.Chmod(0o644); err != nil { // (CreateTemp makes it the owner's alone; a report is to be hosted)
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// FromItems makes the models' own test items (or any items) the data of an audit, named "<name>#i".
func FromItems(items dataset.Items, d *weights.Description, name string) *Data {
	out := &idx.Items{Input: d.Input, Labels: make([]uint8, items.Len()), Values: make([]uint8, 0, items.Len()*items.Size())}
	files := make([]string, items.Len())
	for i := 0; i < items.Len(); i++ {
		out.Labels[i] = uint8(items.Label(i))
		out.Values = append(out.Values, sharelink.Quantize(items.Float(i, nil))...)
		files[i] = name + "#" + strconv.Itoa(i)
	}
	return &Data{Data: &imagefolder.Data{Items: out, Classes: d.Classes, Files: files}}
}
