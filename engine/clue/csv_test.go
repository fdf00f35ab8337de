package clue

import (
	"encoding/csv"
	"strconv"
	"strings"
	"testing"
)

// TestSetCSV: the CSV reads back (encoding/csv) to the set's values, float for float, in restart order, with a
// failed restart's reason quoted.
func TestSetCSV(t *testing.T) {
	xs := []Explanation{
		{Restart: 2, Label: 7, Accepted: true, Converged: true, HTotal: 0.125, Distance: 41.3, Rho: 2, OnShell: true, Cost: 1.5, Steps: 12,
			Probs: []float32{0.1, 0.9}, Z: []float32{-1.25, 3e-8}},
		{Restart: 0, Failed: `NaN in "cost", step 3`, Probs: []float32{0.5, 0.5}, Z: []float32{0, 1}},
	}
	rows, err := csv.NewReader(strings.NewReader(string(SetCSV(xs)))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 3 || strings.Join(rows[0], ",") != "restart,label,accepted,converged,failed,h_total,h_aleatoric,h_epistemic,distance,rho,on_shell,cost,steps,p0,p1,z0,z1" {
		t.Fatalf("rows %q", rows)
	}
	if rows[1][0] != "0" || rows[1][4] != `NaN in "cost", step 3` || rows[2][0] != "2" {
		t.Errorf("not in restart order, or the reason did not survive: %q", rows[1:])
	}
	back := func(s string) float32 {
		v, err := strconv.ParseFloat(s, 32)
		if err != nil {
			t.Fatal(err)
		}
		return float32(v)
	}
	r := rows[2]
	if back(r[5]) != 0.125 || back(r[8]) != 41.3 || back(r[14]) != 0.9 || back(r[15]) != -1.25 || back(r[16]) != 3e-8 || r[10] != "true" || r[12] != "12" {
		t.Errorf("row %q does not read back to restart 2", r)
	}
}
