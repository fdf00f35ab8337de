//go:build !js

package audit

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/engine/clue/sharelink"
	"github.com/deltaclue/deltaclue/internal/dataset"
	"github.com/deltaclue/deltaclue/internal/features"
	"github.com/deltaclue/deltaclue/internal/modelsource"
	"github.com/deltaclue/deltaclue/weights"
)

// An audit of a model of rows (issue 41, part 6) reads a CSV file of rows (LoadCSV) or the models' test rows
// (FromTable); each record holds the row and, per label reached, its cheapest explanation's row and changed
// columns, and the summary says how often each feature is changed by the cheapest sure explanation of each
// applicant, by the class read (Summary.Features, features.csv).

// LoadCSV reads a CSV file of rows of the models' table: a header naming every column once, in any order, and
// optionally the class column label (its values among the models' classes). Anything that does not fit the
// schema (a column missing or one the model does not read, an unknown category, a number out of range or not a
// number, a line of the wrong count) is refused in one sentence naming the file, the line and the column.
func LoadCSV(path string, d *weights.Description, label string) (*Data, error) {
	if !d.Input.IsTable() {
		return nil, fmt.Errorf("%s: the models read images, not rows", path)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return readCSV(raw, path, d, label)
}

// readCSV is LoadCSV on the file's bytes (path names it in the sentences).
func readCSV(raw []byte, path string, d *weights.Description, label string) (*Data, error) {
	cols := d.Input.Columns
	rows, labels, err := cols.ReadCSV(bytes.NewReader(raw), label, d.Classes)
	if err != nil {
		return nil, errors.New(strings.Replace(err.Error(), "the CSV file", path, 1))
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("%s has a header but no rows", path)
	}
	if labels == nil { // no class column: the true label is unknown
		labels = make([]int, len(rows))
		for i := range labels {
			labels[i] = -1
		}
	}
	t, err := dataset.NewTable(cols, rows, labels)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	names := make([]string, len(rows))
	for i := range names {
		names[i] = fmt.Sprintf("%s line %d", path, i+2) // the header is line 1
	}
	return &Data{Table: t, Names: names}, nil
}

// FromTable makes a table's rows (the models' test rows) the data of an audit, named "<name>#i".
func FromTable(t *dataset.Table, name string) *Data {
	names := make([]string, t.Len())
	for i := range names {
		names[i] = fmt.Sprintf("%s#%d", name, i)
	}
	return &Data{Table: t, Names: names}
}

// tableFingerprint is the SHA-256 of the rows' values (float64 bits) and labels.
func (d *Data) tableFingerprint() string {
	h := sha256.New()
	var b [8]byte
	for i, row := range d.Table.Rows {
		binary.LittleEndian.PutUint64(b[:], uint64(int64(d.Table.Labels[i])))
		h.Write(b[:])
		for _, v := range row {
			binary.LittleEndian.PutUint64(b[:], math.Float64bits(v))
			h.Write(b[:])
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// auditRow runs δ-CLUE on row i of t (with the locks of opt.Params) into r: per label reached, the count and its
// cheapest explanation (the smallest d, the first restart of equals) with its row and changed columns. GLAM-CLUE's
// answers are left out: translations decode without the row head. With a site (opt.Site) the record links the row
// into the explainer's page for rows, with the audit's parameters and locks.
func auditRow(ctx context.Context, m *modelsource.Models, models *clue.Models, t *dataset.Table, i int, r Record, opt Options) Record {
	classes := m.Description().Classes
	cols := t.Columns
	row0, err := cols.RowJSON(t.Rows[i])
	if err != nil {
		r.Error = err.Error()
		return r
	}
	r.Row = row0
	prob, err := clue.NewRowProblem(models, t.Rows[i])
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
	if opt.Site != "" {
		q := weights.CarryRow(cols, prob.X0)
		r.Link = opt.Site + "#" + sharelink.Encode(sharelink.State{Models: m.Name(), Model: m.Bundle.Fingerprint(), Height: 1, Width: len(q),
			Channels: 1, Image: q, Params: opt.Params, Selected: sharelink.NoSelection})
	}
	labels, best, count, n := cheapestByLabel(exps)
	r.Accepted = n
	for _, l := range labels {
		e := exps[best[l]]
		re := Reach{Label: l, Class: classes[l], Count: count[l], Distance: e.Distance, Restart: e.Restart, Changed: e.Changed}
		row, err := prob.ExplanationRow(e.Image)
		if err == nil {
			re.Row, err = cols.RowJSON(row)
		}
		if err != nil {
			r.Error = fmt.Sprintf("restart %d: %v", e.Restart, err)
			return r
		}
		r.Reach = append(r.Reach, re)
	}
	return r
}

// FeatureReport is which columns of a model of rows the cheapest sure explanations change: over every audited
// item with a sure explanation, and per label read. An item's cheapest sure explanation is its accepted one of
// the smallest d, whichever label it reaches (the first label of equals).
type FeatureReport struct {
	All     *features.Tally `json:"all"`
	ByLabel []LabelFeatures `json:"by_label"`
}

// LabelFeatures is the feature count of the items read as one label: Audited of them, Tally.Explanations with a
// sure explanation.
type LabelFeatures struct {
	Label   int             `json:"label"`
	Class   string          `json:"class"`
	Audited int             `json:"audited"`
	Tally   *features.Tally `json:"features"`
}

// columns are the header's columns of a model of rows.
func (h Header) columns() (weights.Columns, error) {
	var cols weights.Columns
	if err := json.Unmarshal([]byte(h.Columns), &cols); err != nil {
		return nil, fmt.Errorf("the audit's header: its columns: %v", err)
	}
	if err := cols.Check(); err != nil {
		return nil, fmt.Errorf("the audit's header: %v", err)
	}
	return cols, nil
}

// cheapestReach is the index in r.Reach of the item's cheapest sure explanation (−1 for none).
func cheapestReach(r Record) int {
	k := -1
	for j, re := range r.Reach {
		if k < 0 || re.Distance < r.Reach[k].Distance {
			k = j
		}
	}
	return k
}

// rowFeatures fills s.Features and every group's Features from the records' rows.
func rowFeatures(h Header, s *Summary, recs []Record) error {
	cols, err := h.columns()
	if err != nil {
		return err
	}
	names := cols.Names()
	rows := make([][]features.Value, len(recs))
	reached := make([][][]features.Value, len(recs))
	for k, r := range recs {
		if r.Item < 0 || r.Error != "" {
			continue
		}
		if rows[k], err = features.Decode(names, r.Row); err != nil {
			return fmt.Errorf("item %d: %v", r.Item, err)
		}
		reached[k] = make([][]features.Value, len(r.Reach))
		for j, re := range r.Reach {
			if reached[k][j], err = features.Decode(names, re.Row); err != nil {
				return fmt.Errorf("item %d, its explanation of %s: %v", r.Item, re.Class, err)
			}
		}
	}
	fr := &FeatureReport{All: features.New(cols)}
	byLabel := map[int]*LabelFeatures{}
	for _, l := range s.Labels {
		byLabel[l.Label] = &LabelFeatures{Label: l.Label, Class: l.Class, Audited: l.Audited, Tally: features.New(cols)}
	}
	for k, r := range recs {
		if rows[k] == nil {
			continue
		}
		j := cheapestReach(r)
		if j < 0 {
			continue
		}
		if err := fr.All.Add(rows[k], reached[k][j]); err != nil {
			return fmt.Errorf("item %d: %v", r.Item, err)
		}
		if err := byLabel[r.Label].Tally.Add(rows[k], reached[k][j]); err != nil {
			return fmt.Errorf("item %d: %v", r.Item, err)
		}
	}
	for _, l := range s.Labels {
		fr.ByLabel = append(fr.ByLabel, *byLabel[l.Label])
	}
	s.Features = fr
	group := map[[2]int]*features.Tally{}
	for i := range s.Groups {
		g := &s.Groups[i]
		g.Features = features.New(cols)
		for _, k := range g.members {
			for j, re := range recs[k].Reach {
				if re.Label == g.To {
					if err := g.Features.Add(rows[k], reached[k][j]); err != nil {
						return fmt.Errorf("item %d: %v", recs[k].Item, err)
					}
				}
			}
		}
		group[[2]int{g.From, g.To}] = g.Features
	}
	for i := range s.Labels {
		for j := range s.Labels[i].Reach {
			g := &s.Labels[i].Reach[j]
			g.Features = group[[2]int{g.From, g.To}]
		}
	}
	return nil
}

// featuresCSV is features.csv: per class read (first "all", every class together) and column, how many of the
// items with a sure explanation have a cheapest one that changes it, the share, the column's mean part of the row
// distance d, how often a number rose and fell and by how much on average (in its unit), and the levels a
// category became ("yes 10;no 2").
func featuresCSV(s Summary) []byte {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	w.Write([]string{"class_read", "audited", "explained", "column", "changed", "share", "d", "rose", "fell", "rise_by", "fall_by", "to_levels"})
	write := func(class string, audited int, t *features.Tally) {
		for _, c := range t.Columns {
			var to []string
			for _, l := range c.To {
				to = append(to, fmt.Sprintf("%s %d", l.Level, l.Count))
			}
			w.Write([]string{class, strconv.Itoa(audited), strconv.Itoa(t.Explanations), c.Column, strconv.Itoa(c.Changed),
				strconv.FormatFloat(c.Share, 'f', 3, 64), strconv.FormatFloat(c.D, 'f', 3, 64), strconv.Itoa(c.Rose), strconv.Itoa(c.Fell),
				strconv.FormatFloat(c.RiseBy, 'g', 6, 64), strconv.FormatFloat(c.FallBy, 'g', 6, 64), strings.Join(to, ";")})
		}
	}
	audited := 0
	for _, l := range s.Features.ByLabel {
		audited += l.Audited
	}
	write("all", audited, s.Features.All)
	for _, l := range s.Features.ByLabel {
		write(l.Class, l.Audited, l.Tally)
	}
	w.Flush()
	return buf.Bytes()
}
