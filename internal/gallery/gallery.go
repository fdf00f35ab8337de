// Package gallery makes the served models' gallery: the test items they are least sure of, offered on the page.
// cmd/site makes it from the models' test items (the digits': the shipped test split) as web/gallery.json, which
// the page fetches when the gallery's tab is first opened (and the service worker keeps for offline use): the
// page's binary carries no data of any one model. The page and cmd/benchset read it with Item.
package gallery

import (
	"encoding/base64"
	"encoding/json"
	"fmt"

	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/engine/clue/kind"
	"github.com/deltaclue/deltaclue/engine/clue/sharelink"
	"github.com/deltaclue/deltaclue/internal/dataset"
)

// File is where the site serves the gallery.
const File = "/web/gallery.json"

// Size is how many test items the gallery offers.
const Size = 24

// Item is a test item the classifier is unsure about.
type Item struct {
	Index int     `json:"index"` // in the models' test items
	Label int     `json:"label"` // the true label
	Pred  int     `json:"pred"`  // the classifier's label
	H     float32 `json:"h"`     // the classifier's predictive entropy, nats
	// Pixels is the item as a share link carries it (its kind's Carry), base64: an image's values as bytes
	// (k/255), channel by channel; a table's row column by column (kind.Table).
	Pixels string `json:"pixels"`
}

// Carried is the item as a link carries it (nil if Pixels is not base64): its kind's Carried gives the input.
func (d Item) Carried() []uint8 {
	b, err := base64.StdEncoding.DecodeString(d.Pixels)
	if err != nil {
		return nil
	}
	return b
}

// Make is the n test items the models are least sure of (clue.MostUncertain), most uncertain first, as
// web/gallery.json holds them.
func Make(m *clue.Models, items dataset.Items, n int) ([]byte, error) {
	size := items.Size()
	if size != m.BNN.Input.Size() {
		return nil, fmt.Errorf("the test items have %d values each, the models take %d", size, m.BNN.Input.Size())
	}
	x := make([]float32, items.Len()*size)
	for i := 0; i < items.Len(); i++ {
		items.Float(i, x[i*size:(i+1)*size])
	}
	preds := m.BNN.Classify(x)
	out := []Item{}
	carry := sharelink.Quantize
	if cols := m.Columns(); cols != nil {
		carry = kind.Table{Columns: cols}.Carry
	}
	for _, i := range clue.MostUncertain(m.BNN, x, n) {
		q := carry(x[i*size : (i+1)*size])
		out = append(out, Item{Index: i, Label: items.Label(i), Pred: preds[i].Label(), H: preds[i].Total,
			Pixels: base64.StdEncoding.EncodeToString(q)})
	}
	js, err := json.MarshalIndent(out, "", " ")
	return append(js, '\n'), err
}
