package tablekind

import (
	"strings"
	"testing"

	"github.com/deltaclue/deltaclue/app/hostmsg"
	"github.com/deltaclue/deltaclue/app/inputkind"
	"github.com/deltaclue/deltaclue/internal/credit"
)

func creditKind() *Table {
	return New(Models{Columns: credit.Columns(), Served: inputkind.Served{Noun: "applicant", Classes: 2}})
}

const aRow = `{"Seniority":9,"Home":"rent","Time":60,"Age":30,"Marital":"married","Records":"no","Job":"fixed","Expenses":60,"Income":150,"Assets":0,"Debt":0,"Amount":1000,"Price":1500}`

// TestReadRow: a frame of rows takes deltaclue:row (the applicant as {column: value}, carried as a link carries
// it) and deltaclue:open, refuses a digit, an image, an unknown level and another type in sentences, and leaves
// other scripts' messages alone.
func TestReadRow(t *testing.T) {
	k := creditKind()
	m, forFrame, err := k.ReadHost(`{"type":"deltaclue:row","row":` + aRow + `,"id":7}`)
	if !forFrame || err != nil || m.Type != hostmsg.Row || len(m.Input) != 40 || string(m.ID) != "7" {
		t.Fatalf("deltaclue:row: %+v %v %v", m, forFrame, err)
	}
	if x := k.Carried(m.Input); x == nil || k.t.Row(x)[k.m.Columns.Index("Seniority")] != 9 {
		t.Errorf("the row carried: %v", k.t.Row(x))
	}
	for _, c := range []struct{ text, want string }{
		{`{"type":"deltaclue:row"}`, `deltaclue:row needs "row"`},
		{`{"type":"deltaclue:row","row":` + strings.Replace(aRow, `"rent"`, `"castle"`, 1) + `}`, `"castle" is not one of its levels`},
		{`{"type":"deltaclue:digit","pixels":[]}`, `send "deltaclue:open" or "deltaclue:row"`},
		{`{"type":"deltaclue:image","pixels":[]}`, `send "deltaclue:open" or "deltaclue:row"`},
		{`{"type":"deltaclue:row","row":` + aRow + `,"id":[]}`, "its id must be"},
		{`{"type":"deltaclue:open","link":"#x"}`, "the link cannot be opened"},
	} {
		if _, forFrame, err := k.ReadHost(c.text); !forFrame || err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v %v, want %q", c.text, forFrame, err, c.want)
		}
	}
	for _, text := range []string{`{"type":"other"}`, `junk`, `{"type":"deltaclue:done"}`} {
		if _, forFrame, _ := k.ReadHost(text); forFrame {
			t.Errorf("%s taken for the frame", text)
		}
	}
}

// FuzzReadHost: any text is left alone, refused in one short sentence, or a row of the table as a link carries it.
func FuzzReadHost(f *testing.F) {
	k := creditKind()
	f.Add(`{"type":"deltaclue:row","row":` + aRow + `,"id":"a"}`)
	f.Add(`{"type":"deltaclue:row","row":{"Age":300}}`)
	f.Add(`{"type":"deltaclue:open","link":"v3.x"}`)
	f.Fuzz(func(t *testing.T, text string) {
		m, forFrame, err := k.ReadHost(text)
		if !forFrame && (err != nil || m.Type != "") {
			t.Fatalf("a message not for the frame came back with %q, %v", m.Type, err)
		}
		if forFrame && err == nil && m.Type == hostmsg.Row && k.Check(m.Input) != nil {
			t.Fatalf("a row taken that does not fit: %v", k.Check(m.Input))
		}
		if err != nil && (strings.Contains(err.Error(), "\n") || len(err.Error()) > 600) {
			t.Fatalf("error %q is not one short sentence", err)
		}
	})
}
