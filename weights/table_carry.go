package weights

import (
	"encoding/binary"
	"fmt"
	"math"
)

// A share link carries a table's row as bytes, column by column (kind.Table; docs/tables.md): each number's or
// integer's standardised float32 as the networks read it (4 bytes, little-endian), each category's level's index
// (1 byte). The flattened row comes back bit for bit. They are functions, not methods of Columns: a method of a
// type the JSON reader knows stays in every binary (the digits' worker too), a function only where it is called.

// CarriedRowSize is how many bytes a link carries a row in: 4 for each number or integer (its standardised
// float32, little-endian, as the networks read it) and 1 for each category (its level's index).
func CarriedRowSize(c Columns) int {
	n := 0
	for _, col := range c {
		if col.Kind == ColumnCategory {
			n++
		} else {
			n += 4
		}
	}
	return n
}

// CarryRow is the row x (flattened) as a link carries it: each number's float32 bits, each category's hot level
// (the first largest value of its block). CarriedRow(CarryRow(x)) is x, bit for bit, for a row Standardise made.
func CarryRow(c Columns, x []float32) []uint8 {
	if len(x) != c.Width() {
		return nil
	}
	q := make([]uint8, 0, CarriedRowSize(c))
	k := 0
	for _, col := range c {
		if col.Kind != ColumnCategory {
			q = binary.LittleEndian.AppendUint32(q, math.Float32bits(x[k]))
			k++
			continue
		}
		best := 0
		for j := 1; j < len(col.Levels); j++ {
			if x[k+j] > x[k+best] {
				best = j
			}
		}
		q = append(q, uint8(best))
		k += len(col.Levels)
	}
	return q
}

// CarriedRow is the flattened row a link's bytes give, or why they are not a row of this table (naming the column).
func CarriedRow(c Columns, q []uint8) ([]float32, error) {
	if n := CarriedRowSize(c); len(q) != n {
		return nil, fmt.Errorf("its row is %d bytes where a row of these %s is %d", len(q), columns(len(c)), n)
	}
	x := make([]float32, c.Width())
	k, at := 0, 0
	for _, col := range c {
		if col.Kind == ColumnCategory {
			level := int(q[at])
			if level >= len(col.Levels) {
				return nil, fmt.Errorf("its %s is level %d of %d", col.Name, level+1, len(col.Levels))
			}
			x[k+level] = 1
			k += len(col.Levels)
			at++
			continue
		}
		v := math.Float32frombits(binary.LittleEndian.Uint32(q[at:]))
		raw := float64(v)*col.Std + col.Mean
		if math.IsNaN(raw) || math.IsInf(raw, 0) {
			return nil, fmt.Errorf("its %s is not a number", col.Name)
		}
		if col.Kind == ColumnInteger {
			raw = math.Round(raw)
		}
		atEnd := col.Kind == ColumnNumber && (v == float32((col.Range[0]-col.Mean)/col.Std) || v == float32((col.Range[1]-col.Mean)/col.Std))
		if !atEnd && (raw < col.Range[0] || raw > col.Range[1]) { // (an end flattened to float32 may read a hair outside)
			return nil, fmt.Errorf("its %s, %s, is outside %s", col.Name, col.Format(raw), col.RangeText())
		}
		x[k] = v
		k++
		at += 4
	}
	return x, nil
}

// columns is "1 column" or "n columns".
func columns(n int) string {
	if n == 1 {
		return "1 column"
	}
	return fmt.Sprintf("%d columns", n)
}
