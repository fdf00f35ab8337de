package clue

import (
	"context"
	"sync"
	"testing"

	"github.com/deltaclue/deltaclue/internal/concrete"
	concretemodels "github.com/deltaclue/deltaclue/weights/concrete"
)

// BenchmarkCreditSet: issue 41's performance target, a set of 100 restarts × exactly 100 steps (no early stop) on
// the credit models, split over two goroutines as the page splits it over two workers (restart i on i mod 2), on
// the committed test applicant the models are least sure of, with the credit models' defaults otherwise. Run
// natively and under Node (make bench-credit), it reports ms a set.
func BenchmarkCreditSet(b *testing.B) {
	apps := creditApplicants(b)
	rows := make([][]float64, len(apps))
	for i, a := range apps {
		rows[i] = a.Row
	}
	benchRowSet(b, creditModels(b), rows)
}

// BenchmarkConcreteSet: issue 42's, the same set on the concrete regressor (weights/concrete) and the committed
// test mix it is least sure of (the largest predictive σ), with the concrete models' defaults otherwise.
func BenchmarkConcreteSet(b *testing.B) {
	bundle, err := folderBundle(concretemodels.FS())
	if err != nil {
		b.Fatal(err)
	}
	m, err := LoadBundle(bundle)
	if err != nil {
		b.Fatal(err)
	}
	mixes, err := concrete.Test()
	if err != nil {
		b.Fatal(err)
	}
	rows := make([][]float64, len(mixes))
	for i, mix := range mixes {
		rows[i] = mix.Row
	}
	benchRowSet(b, m, rows)
}

// benchRowSet times sets of 100 × 100 steps on the row of rows (natural units) the models are least sure of.
func benchRowSet(b *testing.B, m *Models, rows [][]float64) {
	cols := m.Columns()
	x := make([]float32, 0, len(rows)*cols.Width())
	for _, r := range rows {
		row, err := cols.Standardise(r)
		if err != nil {
			b.Fatal(err)
		}
		x = append(x, row...)
	}
	i := MostUncertain(m.BNN, x, 1)[0]
	prob, err := NewProblem(m, x[i*cols.Width():(i+1)*cols.Width()])
	if err != nil {
		b.Fatal(err)
	}
	p := m.Defaults()
	p.N, p.MaxSteps, p.RelTol, p.AbsTol = 100, 100, 0, 0
	shares := [2][]int{}
	for r := range p.Restarts() {
		shares[r%2] = append(shares[r%2], r)
	}
	b.ResetTimer()
	for b.Loop() {
		var wg sync.WaitGroup
		for _, share := range shares {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := Search(context.Background(), prob, p, share, nil); err != nil {
					b.Error(err)
				}
			}()
		}
		wg.Wait()
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/set")
}
