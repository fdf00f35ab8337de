package clue

import (
	"context"
	"sync"
	"testing"
)

// BenchmarkCreditSet: issue 41's performance target, a set of 100 restarts × exactly 100 steps (no early stop) on
// the credit models, split over two goroutines as the page splits it over two workers (restart i on i mod 2), on
// the committed test applicant the models are least sure of, with the credit models' defaults otherwise. Run
// natively and under Node (make bench-credit), it reports ms a set.
func BenchmarkCreditSet(b *testing.B) {
	m := creditModels(b)
	cols := m.Columns()
	apps := creditApplicants(b)
	x := make([]float32, 0, len(apps)*cols.Width())
	for _, a := range apps {
		row, err := cols.Standardise(a.Row)
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
