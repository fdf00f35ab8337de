// The grid of explanations drawn on canvases: its geometry, and a painter that paints cells over animation
// frames.

package app

import (
	"fmt"
	"strconv"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/deltaclue/deltaclue/app/webjs"
	"github.com/deltaclue/deltaclue/engine/clue"
)

// Grid layout, like the paper's figure: label and H above each input (drawn by its kind: inputkind.Kind's
// DrawCell), distance (and ×k) below it. Each text
// sits close to its own image and far from the next cell's: the rows and the columns are separated by gaps
// wider than any gap inside a cell, so that no label reads as the neighbour's.
const (
	gridFont    = 11            // px, the cell texts' font size
	gridAscent  = 8             // px a gridFont digit reaches above its baseline
	gridDescent = 3             // px below it (the "×" and descenders)
	gridPadX    = 8             // px left and right of the image within its cell: 16 between neighbours' images
	labelBase   = 13            // y of the label's baseline, from the cell's top
	imageTop    = labelBase + 4 // the image, just under its label
	gridImage   = 56            // px a cell is wide at least, the input's own width aside (the digits' 28·2)
)

// gridGeometry is the grid's cell for the served models' input: the input as its kind draws it in a cell
// (about gridImage px on its longer side for an image), centred in a cell at least wide enough for its texts.
type gridGeometry struct {
	imgW, imgH   int // the input's size on the grid
	imgX         int // the image's left, in its cell
	distBase     int // y of the distance's baseline
	cellW, cellH int
}

func cells() gridGeometry {
	var g gridGeometry
	g.imgW, g.imgH = served().input().Cell()
	g.cellW = max(g.imgW, gridImage) + 2*gridPadX
	g.imgX = (g.cellW - g.imgW) / 2
	g.distBase = imageTop + g.imgH + gridAscent + 3
	g.cellH = g.distBase + gridDescent + 14 // 14 px of air under the distance, before the next row's label
	return g
}

// gridSize is the canvas size for n cells in cols columns.
func gridSize(n, cols int) (w, h int) {
	rows := max(1, (n+cols-1)/cols)
	return cols * cells().cellW, rows * cells().cellH
}

// cellAt returns the cell index under canvas coordinates (x, y), or -1.
func cellAt(x, y float64, n, cols int) int {
	c, r := int(x)/cells().cellW, int(y)/cells().cellH
	if x < 0 || y < 0 || c >= cols {
		return -1
	}
	if k := r*cols + c; k < n {
		return k
	}
	return -1
}

// The grid is painted cell by cell, and only where a cell shows something else than it did: while a large set
// streams in, redrawing all of it at once (1000 cells: a white fill of the whole canvas, then an image and
// two to four texts per cell) blocked the page's thread for a third of a second ten times a second. Each cell
// is drawn once, with its texts, tag and frame, into a cell-sized scratch canvas and kept as ImageData; a
// repaint puts those, for at most paintBudget at a time, and leaves the rest to the next animation frame.
//
// The grid is a stack of canvases, one per row, not one canvas: Chromium (software compositing, as in a
// headless test or on a device without GPU raster) copies a changed canvas whole into every frame it commits,
// and for one canvas of 1000 cells (720×10,000 pixels) that commit alone took the page's thread 100–250 ms
// per frame; a row that changed costs a row's copy, and a row out of view nothing.

// paintBudget is how long one slice of the grid's painting may take: well under the 50 ms of a long task, and
// leaving most of a 60 Hz frame to the browser.
const paintBudget = 6 * time.Millisecond

// cellKey says what a grid cell shows: an explanation (by its image, and its restart for one that failed and
// has none), how many restarts it stands for, and whether it is framed. The zero key is a cell in an unknown
// state (a new row); blankCell is one painted white.
type cellKey struct {
	known    bool
	image    *float32
	restart  int
	copies   int
	selected bool
}

var blankCell = cellKey{known: true, restart: -1}

// gridPainter keeps the grid (a block element holding one canvas per row) up to date.
type gridPainter struct {
	el        app.Value   // the element painted into
	cols      int         // cells per row
	rows      []app.Value // its canvases
	ctxs      []app.Value // their 2-D contexts
	shown     []cellKey   // what each position shows
	want      []cellKey   // what it should show
	exps      []clue.Explanation
	x0        []float32             // the input they explain
	next      int                   // the first position of want not yet checked
	cells     map[cellKey]app.Value // each cell's ImageData, by what it shows
	scratch   app.Value             // the 2-D context of a cell-sized canvas to draw a new cell in
	frames    frameQueue            // paints the next slice in the next animation frame
	ctx       app.Context
	onPainted func() // called when a repaint that needed more than one slice is complete
}

// grid is the page's one grid painter.
var grid gridPainter

// gridRows is the number of rows of n cells in cols columns (at least one).
func gridRows(n, cols int) int { return max(1, (n+cols-1)/cols) }

// paint makes the element with the given id show the explanations in order, cols to a row, framing the cell at
// index selected (none if -1); copies maps a restart to how many restarts its cell stands for when duplicates
// are collapsed onto it ("×12"). It paints what it can within paintBudget at once and the rest in later
// animation frames.
func (g *gridPainter) paint(ctx app.Context, id string, x0 []float32, exps []clue.Explanation, cols, selected int, copies map[int]int) {
	el := app.Window().GetElementByID(id)
	if el.IsNull() || el.IsUndefined() {
		return
	}
	if len(x0) > 0 && (len(g.x0) == 0 || &g.x0[0] != &x0[0]) { // a new input: a row's cells show changes from it
		g.x0, g.cells = x0, nil
	}
	if g.el == nil || !el.Equal(g.el) || g.cols != cols { // a new element, or a new width: every row anew
		for _, c := range g.rows {
			c.Call("remove")
		}
		g.el, g.cols, g.rows, g.ctxs, g.shown = el, cols, nil, nil, nil
		el.Get("style").Set("width", fmt.Sprintf("%dpx", cols*cells().cellW))
	}
	need := gridRows(len(exps), cols)
	doc := app.Window().Get("document")
	for len(g.rows) < need {
		c := doc.Call("createElement", "canvas")
		c.Set("width", cols*cells().cellW)
		c.Set("height", cells().cellH)
		c.Get("style").Set("display", "block")
		c.Call("setAttribute", "data-row", len(g.rows))
		el.Call("appendChild", c)
		g.rows, g.ctxs = append(g.rows, c), append(g.ctxs, c.Call("getContext", "2d"))
		g.shown = append(g.shown, make([]cellKey, cols)...)
	}
	for len(g.rows) > need {
		g.rows[len(g.rows)-1].Call("remove")
		g.rows, g.ctxs, g.shown = g.rows[:len(g.rows)-1], g.ctxs[:len(g.ctxs)-1], g.shown[:len(g.shown)-cols]
	}
	g.want = g.want[:0]
	for k, e := range exps {
		key := cellKey{known: true, restart: e.Restart, copies: copies[e.Restart], selected: k == selected}
		if len(e.Image) == served().Size() {
			key.image = &e.Image[0]
		}
		if e.Failed != "" {
			key.copies = 0
		}
		g.want = append(g.want, key)
	}
	for len(g.want) < len(g.shown) { // the last row's empty places
		g.want = append(g.want, blankCell)
	}
	g.exps, g.next, g.ctx = exps, 0, ctx
	g.slice()
}

// slice paints cells for at most paintBudget and queues the rest for the next animation frame.
func (g *gridPainter) slice() {
	start, budget := time.Now(), frame.left(paintBudget)
	for ; g.next < len(g.want); g.next++ {
		k := g.next
		if g.shown[k] == g.want[k] {
			continue
		}
		if time.Since(start) > budget {
			g.queue()
			return
		}
		g.ctxs[k/g.cols].Call("putImageData", g.cell(k), (k%g.cols)*cells().cellW, 0)
		g.shown[k] = g.want[k]
	}
	// Done: forget the cells no longer shown.
	keep := make(map[cellKey]bool, len(g.want))
	for _, k := range g.want {
		keep[k] = true
	}
	for k := range g.cells {
		if !keep[k] {
			delete(g.cells, k)
		}
	}
}

// painting says whether a repaint is still under way.
func (g *gridPainter) painting() bool { return g.next < len(g.want) }

func (g *gridPainter) queue() {
	g.frames.request(g.ctx, func() {
		if g.el != nil && g.painting() {
			g.slice()
			if !g.painting() && g.onPainted != nil {
				g.onPainted()
			}
		}
	})
}

// at returns the grid position under the pointer of event ev (in the element's coordinates: a row's canvas
// is the event's target).
func (g *gridPainter) at(ev app.Value, n int) int {
	x, y := ev.Get("offsetX").Float(), ev.Get("offsetY").Float()
	if r := ev.Get("target").Call("getAttribute", "data-row"); !r.IsNull() {
		row, _ := strconv.Atoi(r.String())
		y += float64(row * cells().cellH)
	}
	return cellAt(x, y, n, max(g.cols, 1))
}

// image is the whole grid on one canvas (for the PNG download).
func (g *gridPainter) image() app.Value {
	c := app.Window().Get("document").Call("createElement", "canvas")
	c.Set("width", g.cols*cells().cellW)
	c.Set("height", len(g.rows)*cells().cellH)
	ctx := c.Call("getContext", "2d")
	for i, r := range g.rows {
		ctx.Call("drawImage", r, 0, i*cells().cellH)
	}
	return c
}

// cell is the ImageData of position k's cell, drawn once.
func (g *gridPainter) cell(k int) app.Value {
	key := g.want[k]
	if img, ok := g.cells[key]; ok {
		return img
	}
	if g.cells == nil {
		g.cells = map[cellKey]app.Value{}
	}
	if g.scratch == nil {
		c := app.Window().Get("document").Call("createElement", "canvas")
		c.Set("width", cells().cellW)
		c.Set("height", cells().cellH)
		g.scratch = webjs.ReadableCanvas2d(c)
	}
	ctx := g.scratch
	ctx.Set("fillStyle", "#fff")
	ctx.Call("fillRect", 0, 0, cells().cellW, cells().cellH)
	if key != blankCell {
		drawCell(ctx, g.x0, g.exps[k], key.copies, key.selected)
	}
	img := ctx.Call("getImageData", 0, 0, cells().cellW, cells().cellH)
	g.cells[key] = img
	return img
}

// drawCell draws one grid cell at the origin of a 2-D context that is white there: its label and H above the
// image, its distance and ×k under it, a frame when it is selected.
func drawCell(ctx app.Value, x0 []float32, e clue.Explanation, copies int, selected bool) {
	g := cells()
	served().input().DrawCell(ctx, g.imgX, imageTop, x0, e.Image, !e.Accepted)
	ctx.Set("font", fmt.Sprintf("%dpx system-ui, sans-serif", gridFont))
	ctx.Set("textAlign", "left")
	colour := "#111"
	if !e.Accepted {
		colour = "#999"
	}
	ctx.Set("fillStyle", colour)
	if e.Failed != "" {
		ctx.Call("fillText", "failed", gridPadX, imageTop+g.imgH/2)
	} else {
		ctx.Call("fillText", gridLabel(e), gridPadX, labelBase)
		ctx.Call("fillText", fmt.Sprintf("%.1f", e.Distance), gridPadX, g.distBase)
		if copies > 1 {
			// A grey tag flush with the image's right edge, inside the cell: it reads as this cell's, not
			// as part of the next cell's distance.
			text := fmt.Sprintf("×%d", copies)
			w := ctx.Call("measureText", text).Get("width").Float()
			ctx.Set("fillStyle", "#e5e7eb")
			ctx.Call("fillRect", float64(g.imgX+g.imgW)-w-4, g.distBase-gridAscent-2, w+4, gridAscent+gridDescent+3)
			ctx.Set("fillStyle", colour)
			ctx.Set("textAlign", "right")
			ctx.Call("fillText", text, g.imgX+g.imgW-2, g.distBase)
		}
	}
	if selected {
		ctx.Set("strokeStyle", "#2563eb")
		ctx.Set("lineWidth", 2)
		ctx.Call("strokeRect", 3, 2, g.cellW-6, g.cellH-4)
	}
}

// clipRunes is s cut to n runes, the cut marked "…" (a class name in a grid cell's few pixels).
func clipRunes(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// gridLabel is a grid cell's first line: the label and H ("7  0.12"), or a regression's prediction and σ
// ("41.3 ±2.38").
func gridLabel(e clue.Explanation) string {
	if e.Mean != nil && served().regression != nil {
		return clue.Figure(float64(*e.Mean)) + " ±" + clue.Figure(float64(e.HTotal))
	}
	return fmt.Sprintf("%s  %.2f", clipRunes(served().class(e.Label), 6), e.HTotal)
}
