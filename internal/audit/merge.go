//go:build !js

package audit

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"

	"github.com/deltaclue/deltaclue/internal/features"
)

// Summary is summary.json: per label read, how many items the model is unsure of and which labels their
// explanations reach at what cost; and the groups a → b, largest first.
type Summary struct {
	Models      string       `json:"models"`
	Fingerprint uint32       `json:"fingerprint"`
	Items       int          `json:"items"`
	Unreadable  int          `json:"unreadable"`
	Audited     int          `json:"audited"`
	Failed      int          `json:"failed"` // audited items that could not be explained (a blank image, …)
	Labels      []LabelRead  `json:"labels"`
	Groups      []GroupTotal `json:"groups"`
	// Features is, for a model of rows, which columns the cheapest sure explanations change (none for images).
	Features *FeatureReport `json:"features,omitempty"`
}

// LabelRead is one label the model read on audited items.
type LabelRead struct {
	Label   int          `json:"label"`
	Class   string       `json:"class"`
	Audited int          `json:"audited"`
	Reach   []GroupTotal `json:"reach"`
}

// GroupTotal is the items read as From whose accepted explanations reach To: how many, and the mean and least
// of their cheapest explanation's distance.
type GroupTotal struct {
	From      int     `json:"from"`
	FromClass string  `json:"from_class"`
	To        int     `json:"to"`
	ToClass   string  `json:"to_class"`
	Items     int     `json:"items"`
	MeanD     float64 `json:"mean_d"`
	MinD      float64 `json:"min_d"`
	// Features is, for a model of rows, how often the group's cheapest explanations towards To change each column.
	Features *features.Tally `json:"features,omitempty"`
	members  []int           // indices into the records, in item order
}

// Merge reads every shard under out, checks that they are one audit and all finished, and writes out's
// items.jsonl, summary.json, summary.csv and report.html: the same bytes whatever the number of shards and the
// order they ran in.
func Merge(out string) error {
	shardDirs, err := filepath.Glob(filepath.Join(out, "shards", "*-of-*"))
	if err != nil {
		return err
	}
	if len(shardDirs) == 0 {
		return fmt.Errorf("%s holds no shards (%s): run the audit first", out, filepath.Join(out, "shards"))
	}
	var first *Header
	var recs []Record
	seen := map[int]bool{}
	for _, dir := range shardDirs {
		b, err := os.ReadFile(filepath.Join(dir, "audit.json"))
		if err != nil {
			return fmt.Errorf("%s has no header: %v", dir, err)
		}
		var h Header
		if err := json.Unmarshal(b, &h); err != nil {
			return fmt.Errorf("%s/audit.json: %v", dir, err)
		}
		if first == nil {
			first = &h
		} else if h.same() != first.same() {
			return fmt.Errorf("%s is shard %d of an audit with %s than shard %d's: a merge is over the shards of one audit", dir, h.Shard, differs(h, *first), first.Shard)
		}
		if seen[h.Shard] {
			return fmt.Errorf("shard %d of %d is there twice", h.Shard, h.Shards)
		}
		seen[h.Shard] = true
		s := Shard{h.Shard, h.Shards}
		if filepath.Base(dir) != s.String() {
			return fmt.Errorf("%s holds shard %s", dir, s)
		}
		batches := (owned(h.Audited, s) + h.Batch - 1) / h.Batch
		for b := 0; b < batches; b++ {
			rs, err := readBatch(filepath.Join(dir, batchName(b)))
			if os.IsNotExist(err) {
				return fmt.Errorf("shard %d of %d is not finished: batch %d of %d is missing (run it again: it goes on where it stopped)", h.Shard, h.Shards, b+1, batches)
			}
			if err != nil {
				return err
			}
			recs = append(recs, rs...)
		}
		if h.Shard == 0 {
			rs, err := readBatch(filepath.Join(dir, "unreadable.jsonl"))
			if err != nil {
				return fmt.Errorf("shard 0 of %d is not finished: %v", h.Shards, err)
			}
			recs = append(recs, rs...)
		}
	}
	for s := 0; s < first.Shards; s++ {
		if !seen[s] {
			return fmt.Errorf("shard %d of %d is missing (%s)", s, first.Shards, Shard{s, first.Shards}.dir(out))
		}
	}
	// Items in index order, then the unreadable files by name.
	sort.SliceStable(recs, func(a, b int) bool {
		ra, rb := recs[a], recs[b]
		if (ra.Item < 0) != (rb.Item < 0) {
			return ra.Item >= 0
		}
		if ra.Item != rb.Item {
			return ra.Item < rb.Item
		}
		return ra.File < rb.File
	})
	if got := len(recs) - first.Unreadable; got != first.Audited {
		return fmt.Errorf("the shards hold %d records for %d audited items", got, first.Audited)
	}
	var items bytes.Buffer
	for _, r := range recs {
		r.Image, r.Cheapest = nil, nil
		b, err := json.Marshal(r)
		if err != nil {
			return err
		}
		items.Write(b)
		items.WriteByte('\n')
	}
	sum := summarise(*first, recs)
	if first.Columns != "" {
		if err := rowFeatures(*first, &sum, recs); err != nil {
			return err
		}
	}
	js, err := json.MarshalIndent(sum, "", "  ")
	if err != nil {
		return err
	}
	report, err := Report(*first, sum, recs)
	if err != nil {
		return err
	}
	files := map[string][]byte{"items.jsonl": items.Bytes(), "summary.json": append(js, '\n'), "summary.csv": summaryCSV(sum), "report.html": report}
	if sum.Features != nil {
		files["features.csv"] = featuresCSV(sum)
	}
	for name, b := range files {
		if err := writeAtomic(filepath.Join(out, name), b); err != nil {
			return err
		}
	}
	return nil
}

// readBatch reads a batch file's records.
func readBatch(path string) ([]Record, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readRecords(f, path)
}

// readRecords reads records, one JSON object a line, from r; errors name path.
func readRecords(r io.Reader, path string) ([]Record, error) {
	var recs []Record
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for line := 1; sc.Scan(); line++ {
		var r Record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return nil, fmt.Errorf("%s, line %d: %v", path, line, err)
		}
		recs = append(recs, r)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return recs, nil
}

// summarise totals the records per label read and per group a → b.
func summarise(h Header, recs []Record) Summary {
	s := Summary{Models: h.Models, Fingerprint: h.Fingerprint, Items: h.Items, Unreadable: h.Unreadable, Audited: h.Audited, Labels: []LabelRead{}, Groups: []GroupTotal{}}
	read := map[int]*LabelRead{}
	groups := map[[2]int]*GroupTotal{}
	for k, r := range recs {
		if r.Item < 0 {
			continue
		}
		if r.Error != "" {
			s.Failed++
			continue
		}
		l := read[r.Label]
		if l == nil {
			l = &LabelRead{Label: r.Label, Class: r.Class}
			read[r.Label] = l
		}
		l.Audited++
		for _, re := range r.Reach {
			g := groups[[2]int{r.Label, re.Label}]
			if g == nil {
				g = &GroupTotal{From: r.Label, FromClass: r.Class, To: re.Label, ToClass: re.Class, MinD: float64(re.Distance)}
				groups[[2]int{r.Label, re.Label}] = g
			}
			g.Items++
			g.MeanD += float64(re.Distance)
			g.MinD = min(g.MinD, float64(re.Distance))
			g.members = append(g.members, k)
		}
	}
	for _, g := range groups {
		g.MeanD /= float64(g.Items)
		s.Groups = append(s.Groups, *g)
	}
	sort.Slice(s.Groups, func(a, b int) bool {
		ga, gb := s.Groups[a], s.Groups[b]
		if ga.Items != gb.Items {
			return ga.Items > gb.Items
		}
		if ga.From != gb.From {
			return ga.From < gb.From
		}
		return ga.To < gb.To
	})
	labels := make([]int, 0, len(read))
	for l := range read {
		labels = append(labels, l)
	}
	slices.Sort(labels)
	for _, l := range labels {
		lr := *read[l]
		lr.Reach = []GroupTotal{}
		for _, g := range s.Groups {
			if g.From == l {
				lr.Reach = append(lr.Reach, g)
			}
		}
		s.Labels = append(s.Labels, lr)
	}
	return s
}

// summaryCSV is one row per group a → b.
func summaryCSV(s Summary) []byte {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	w.Write([]string{"label_read", "class_read", "audited_with_label", "label_reached", "class_reached", "items", "mean_d", "min_d"})
	audited := map[int]int{}
	for _, l := range s.Labels {
		audited[l.Label] = l.Audited
	}
	for _, g := range s.Groups {
		w.Write([]string{strconv.Itoa(g.From), g.FromClass, strconv.Itoa(audited[g.From]), strconv.Itoa(g.To), g.ToClass, strconv.Itoa(g.Items),
			strconv.FormatFloat(g.MeanD, 'f', 3, 64), strconv.FormatFloat(g.MinD, 'f', 3, 64)})
	}
	w.Flush()
	return buf.Bytes()
}
