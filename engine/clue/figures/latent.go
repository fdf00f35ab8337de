package figures

import (
	"fmt"
	"math"
	"strings"

	"github.com/deltaclue/deltaclue/internal/plural"
)

// MapPoint is one restart on the latent map: where it started and where it ended, projected.
type MapPoint struct {
	Restart, Label int
	Start, End     [2]float64
	Accepted       bool
}

// LatentMapChart is the input of LatentMap. Coordinates are already projected onto two orthonormal directions
// around z0, so z0 is (0, 0) and the δ-ball's outline is the circle of radius Radius.
type LatentMapChart struct {
	Radius   float64
	Points   []MapPoint
	Path     [][2]float64 // the selected restart's path, start to end; may be nil
	Selected int          // the selected restart, -1 for none
	Axes     [2]string    // the directions' names, e.g. "PC1 (54 %)"
	Title    string
	Names    []string // the classes' names, which the legend gives where they are not the numbers; nil: numbers
}

// LatentMap draws the δ-ball seen from above, with equal scales on both axes: the ball's outline, z0 (a cross),
// each restart's start (a small hollow circle, class "start") joined by a faint line to its end (the label's
// marker with its digit, a focusable <g class="end"> with data-restart and data-label; hollow and grey when
// rejected), and the selected restart's path (class "path", dots at its points, an arrowhead at its end) with
// its end ringed. The view fits the ball with a margin and any point outside it. Non-finite coordinates are
// left out.
func LatentMap(m LatentMapChart) string {
	const w, h = 480, 530
	const left, right = 60, w - 20
	title := m.Title
	if title == "" {
		title = "The δ-ball seen from above"
	}
	var c canvas
	c.heading(title, w)

	radius := m.Radius
	ball := radius > 0 && finite(radius)
	var pts []MapPoint
	present := map[int]bool{}
	skipped := 0
	for _, p := range m.Points {
		if !finite(p.End[0], p.End[1]) {
			skipped++
			continue
		}
		pts = append(pts, p)
		if p.Accepted {
			present[p.Label] = true
		}
	}
	var path [][2]float64
	for _, q := range m.Path {
		if finite(q[0], q[1]) {
			path = append(path, q)
		}
	}

	// The half-width of the view: the ball and every point, with a margin.
	extent := 0.0
	if ball {
		extent = radius
	}
	grow := func(q [2]float64) {
		if finite(q[0], q[1]) {
			extent = math.Max(extent, math.Max(math.Abs(q[0]), math.Abs(q[1])))
		}
	}
	for _, p := range pts {
		grow(p.Start)
		grow(p.End)
	}
	for _, q := range path {
		grow(q)
	}
	if extent == 0 {
		extent = 1
	}
	extent *= 1.12

	// Legend.
	var items []legendItem
	if labels := sortedLabels(present); len(labels) > 0 {
		items = append(append(items, legendWord("end, label")), legendLabels(labels, m.Names)...)
	}
	if len(pts) > 0 {
		items = append(items, legendSample("start", 10, func(c *canvas, x, y float64) {
			c.printf(`<circle cx="%s" cy="%s" r="3.5" fill="white" stroke="%s" stroke-width="1.5"/>`+"\n", num(x+5), num(y), frameInk)
		}))
	}
	if ball {
		items = append(items, legendSample("δ-ball, radius "+FormatTick(radius), 2*markerR, func(c *canvas, x, y float64) {
			c.printf(`<circle cx="%s" cy="%s" r="%d" fill="#EEF5FA" stroke="%s" stroke-width="1.5" stroke-dasharray="4 2.5"/>`+"\n", num(x+markerR), num(y), markerR, frameInk)
		}))
	}
	if len(path) > 1 {
		items = append(items, legendSample("selected path", 24, func(c *canvas, x, y float64) {
			c.line(x, y, x+24, y, ` stroke="`+ink+`" stroke-width="2"`)
		}))
	}
	top := 48.0
	if len(items) > 0 {
		c.b.WriteString(`<g class="legend">` + "\n")
		top = c.legend(items, 14, 46, w-14) + 20
		c.b.WriteString("</g>\n")
	}

	// A square plot area, as large as fits.
	side := math.Min(float64(right-left), h-56-top)
	x0 := left + (float64(right-left)-side)/2
	xs := scale{-extent, extent, x0, x0 + side}
	ys := scale{-extent, extent, top + side, top}
	var ticks []float64
	for _, t := range Ticks(-extent, extent) {
		if t >= -extent && t <= extent {
			ticks = append(ticks, t)
		}
	}
	ax, ay := m.Axes[0], m.Axes[1]
	if ax == "" {
		ax = "direction 1"
	}
	if ay == "" {
		ay = "direction 2"
	}
	c.frame(x0, top, x0+side, top+side, xs, ys, ticks, ticks, clip(ax, side, fontText), clip(ay, side, fontText), 18)
	px := func(q [2]float64) (float64, float64) { return xs.at(q[0]), ys.at(q[1]) }
	unit := side / (2 * extent) // pixels per latent unit, the same on both axes

	if ball {
		c.printf(`<circle class="ball" cx="%s" cy="%s" r="%s" fill="#EEF5FA" fill-opacity="0.8" stroke="%s" stroke-width="1.5" stroke-dasharray="6 4"/>`+"\n",
			num(xs.at(0)), num(ys.at(0)), num(radius*unit), frameInk)
	}
	// Moves and starts, under everything else.
	for _, p := range pts {
		if !finite(p.Start[0], p.Start[1]) {
			continue
		}
		sx, sy := px(p.Start)
		ex, ey := px(p.End)
		c.line(sx, sy, ex, ey, ` class="move" stroke="#BBBBBB" stroke-width="1"`)
	}
	for _, p := range pts {
		if !finite(p.Start[0], p.Start[1]) {
			continue
		}
		sx, sy := px(p.Start)
		c.printf(`<circle class="start" data-restart="%d" cx="%s" cy="%s" r="3.5" fill="white" stroke="%s" stroke-width="1.5"/>`+"\n",
			p.Restart, num(sx), num(sy), frameInk)
	}

	var nps []navPoint
	for _, p := range pts {
		ex, ey := px(p.End)
		nps = append(nps, navPoint{p.Restart, ex, ey})
	}
	nav := navigate(nps, m.Selected)
	selected := func(p MapPoint) bool { return m.Selected >= 0 && p.Restart == m.Selected }
	end := func(p MapPoint) {
		class, state := "end", ", accepted"
		if !p.Accepted {
			class, state = "end rejected", ", rejected"
		}
		if selected(p) {
			class += " selected"
			state += ", selected"
		}
		aria := fmt.Sprintf("restart %d: label %d, end (%s, %s)%s", p.Restart, p.Label, fixed(p.End[0], 2), fixed(p.End[1], 2), state)
		c.printf(`<g class="%s" data-restart="%d" data-label="%d" %s focusable="true" aria-label="%s"><title>%s</title>`,
			class, p.Restart, p.Label, nav.attrs(p.Restart), Escape(aria), Escape(aria))
		ex, ey := px(p.End)
		c.marker(ex, ey, p.Label, !p.Accepted, selected(p))
		c.b.WriteString("</g>\n")
	}
	for _, accepted := range []bool{false, true} {
		for _, p := range pts {
			if p.Accepted == accepted && !selected(p) {
				end(p)
			}
		}
	}

	// The selected path, then the selected end on top of it.
	if len(path) > 0 {
		var xy []string
		for _, q := range path {
			x, y := px(q)
			xy = append(xy, num(x)+","+num(y))
		}
		c.b.WriteString(`<g class="path-group">` + "\n")
		if len(path) > 1 {
			c.printf(`<polyline class="path" points="%s" fill="none" stroke="%s" stroke-width="2" stroke-linejoin="round"/>`+"\n", strings.Join(xy, " "), ink)
		}
		for _, q := range path {
			x, y := px(q)
			c.printf(`<circle cx="%s" cy="%s" r="2.2" fill="%s"/>`, num(x), num(y), ink)
		}
		c.b.WriteString("\n")
		// The arrowhead points along the last step that moves, its tip at the end marker's edge.
		ex, ey := px(path[len(path)-1])
		for i := len(path) - 2; i >= 0; i-- {
			bx, by := px(path[i])
			dx, dy := ex-bx, ey-by
			l := math.Hypot(dx, dy)
			if l < 0.5 {
				continue
			}
			ux, uy := dx/l, dy/l
			back := float64(markerR + 5)
			if len(pts) == 0 || l < back {
				back = 0
			}
			tx, ty := ex-ux*back, ey-uy*back
			const alen, awid = 11, 5
			c.printf(`<path class="arrow" d="M%s %s L%s %s L%s %s Z" fill="%s"/>`+"\n",
				num(tx), num(ty),
				num(tx-ux*alen-uy*awid), num(ty-uy*alen+ux*awid),
				num(tx-ux*alen+uy*awid), num(ty-uy*alen-ux*awid), ink)
			break
		}
		c.b.WriteString("</g>\n")
	}
	// z0, a cross with a white edge, over the moves, starts, ends and path but under the selected end.
	zx, zy := xs.at(0), ys.at(0)
	cross := fmt.Sprintf("M%s %s l10 10 M%s %s l-10 10", num(zx-5), num(zy-5), num(zx+5), num(zy-5))
	c.printf(`<g class="z0"><path d="%s" stroke="white" stroke-width="5"/><path d="%s" stroke="%s" stroke-width="2.5"/>`, cross, cross, ink)
	c.haloText(zx+9, zy+17, "z0", ` font-weight="bold"`)
	c.b.WriteString("</g>\n")

	if len(pts) == 0 && len(path) == 0 {
		c.haloText(zx, zy+40, "no explanations yet", ` class="empty" text-anchor="middle" fill="`+mutedInk+`"`)
	}

	for _, p := range pts {
		if selected(p) {
			end(p)
		}
	}

	return document("latentmap", w, h, title, latentDesc(m, pts, path, skipped, ax, ay), c.b.String())
}

// latentDesc summarises the map in words.
func latentDesc(m LatentMapChart, pts []MapPoint, path [][2]float64, skipped int, ax, ay string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Map of the latent space around the input's code z0 (the centre), projected onto %s (across) and %s (up), with equal scales.", ax, ay)
	if m.Radius > 0 && finite(m.Radius) {
		fmt.Fprintf(&b, " The dashed circle is the δ-ball of radius %s.", FormatTick(m.Radius))
	}
	accepted, outside := 0, 0
	counts := map[int]int{}
	present := map[int]bool{}
	for _, p := range pts {
		if p.Accepted {
			accepted++
			counts[p.Label]++
			present[p.Label] = true
		}
		if m.Radius > 0 && math.Hypot(p.End[0], p.End[1]) > m.Radius*1.001 {
			outside++
		}
	}
	fmt.Fprintf(&b, " %s, each drawn from its start to its end: %d accepted, %d rejected.", plural.Count(len(pts), "restart"), accepted, len(pts)-accepted)
	if outside == 1 {
		b.WriteString(" 1 end lies outside the circle in this projection.")
	} else if outside > 0 {
		fmt.Fprintf(&b, " %d ends lie outside the circle in this projection.", outside)
	}
	if skipped > 0 {
		fmt.Fprintf(&b, " %d not shown (no finite coordinates).", skipped)
	}
	if len(present) > 0 {
		b.WriteString(" Accepted labels:")
		for i, l := range sortedLabels(present) {
			sep := ","
			if i == 0 {
				sep = ""
			}
			fmt.Fprintf(&b, "%s %d (%d)", sep, l, counts[l])
		}
		b.WriteString(".")
	}
	for _, p := range pts {
		if m.Selected >= 0 && p.Restart == m.Selected {
			fmt.Fprintf(&b, " Selected: restart %d, label %d", p.Restart, p.Label)
			if len(path) > 1 {
				fmt.Fprintf(&b, ", its path of %s drawn with an arrow", plural.Count(len(path)-1, "step"))
			}
			b.WriteString(".")
			break
		}
	}
	return b.String()
}
