package figures

import (
	"fmt"
	"sort"
)

// A chart's markers are one Tab stop (a roving tabindex): the entry marker has tabindex 0 and the others -1,
// and the arrow keys move between them. Each marker says where the arrows lead with its ranks data-nx (left
// to right) and data-ny (bottom to top): ArrowRight goes to data-nx + 1, ArrowUp to data-ny + 1, and so on.
// The page moves the focus and the tabindex 0; a chart on its own (the CLI's SVG) keeps its one Tab stop.

// navPoint is a marker's restart and position on the chart (SVG coordinates, y down).
type navPoint struct {
	Restart int
	X, Y    float64
}

// navigation ranks the markers for the arrow keys and picks the one Tab stop: the selected restart's marker,
// or else the leftmost.
type navigation struct {
	nx, ny map[int]int
	entry  int
}

func navigate(pts []navPoint, selected int) navigation {
	nv := navigation{nx: map[int]int{}, ny: map[int]int{}, entry: -1}
	byX := append([]navPoint(nil), pts...)
	sort.SliceStable(byX, func(a, b int) bool {
		p, q := byX[a], byX[b]
		if p.X != q.X {
			return p.X < q.X
		}
		if p.Y != q.Y {
			return p.Y > q.Y
		}
		return p.Restart < q.Restart
	})
	byY := append([]navPoint(nil), pts...)
	sort.SliceStable(byY, func(a, b int) bool {
		p, q := byY[a], byY[b]
		if p.Y != q.Y {
			return p.Y > q.Y // bottom first: ArrowUp climbs
		}
		if p.X != q.X {
			return p.X < q.X
		}
		return p.Restart < q.Restart
	})
	for i, p := range byX {
		nv.nx[p.Restart] = i
	}
	for i, p := range byY {
		nv.ny[p.Restart] = i
	}
	if len(byX) > 0 {
		nv.entry = byX[0].Restart
	}
	if _, ok := nv.nx[selected]; ok && selected >= 0 {
		nv.entry = selected
	}
	return nv
}

// attrs are a marker's focus attributes: its tabindex and its ranks.
func (nv navigation) attrs(restart int) string {
	tab := -1
	if restart == nv.entry {
		tab = 0
	}
	return fmt.Sprintf(`tabindex="%d" data-nx="%d" data-ny="%d"`, tab, nv.nx[restart], nv.ny[restart])
}
