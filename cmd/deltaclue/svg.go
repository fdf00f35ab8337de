package main

import (
	"fmt"
	"math"
	"os"
	"strings"

	"github.com/deltaclue/deltaclue/engine/clue/figures"
)

// series is one line of a plot.
type series struct {
	Name   string
	X, Y   []float64
	Colour string
	Dashed bool
	Marker int // 0 circles, 1 squares, 2 triangles: with Dashed, lines that colour alone would not tell apart
}

// marker draws one point of a series' marker at (x, y).
func marker(kind int, x, y float64, colour string) string {
	switch kind {
	case 1:
		return fmt.Sprintf(`<rect x="%.1f" y="%.1f" width="6" height="6" fill="%s"/>`, x-3, y-3, colour)
	case 2:
		return fmt.Sprintf(`<path d="M%.1f %.1fl4 7h-8z" fill="%s"/>`, x, y-4, colour)
	}
	return fmt.Sprintf(`<circle cx="%.1f" cy="%.1f" r="3" fill="%s"/>`, x, y, colour)
}

// writeLinePlot writes an SVG line chart with axes, ticks and a legend.
func writeLinePlot(path, title, xlabel, ylabel string, lines []series) error {
	const w, h, left, right, top, bottom = 640, 420, 70, 170, 40, 55
	xlo, xhi, ylo, yhi := math.Inf(1), math.Inf(-1), 0.0, math.Inf(-1)
	for _, s := range lines {
		for i := range s.X {
			xlo, xhi = math.Min(xlo, s.X[i]), math.Max(xhi, s.X[i])
			ylo, yhi = math.Min(ylo, s.Y[i]), math.Max(yhi, s.Y[i])
		}
	}
	if math.IsInf(xlo, 0) {
		xlo, xhi, yhi = 0, 1, 1
	}
	xt, yt := figures.Ticks(xlo, xhi), figures.Ticks(ylo, yhi)
	xlo, xhi = math.Min(xlo, xt[0]), math.Max(xhi, xt[len(xt)-1])
	ylo, yhi = math.Min(ylo, yt[0]), math.Max(yhi, yt[len(yt)-1])
	px := func(x float64) float64 { return left + (x-xlo)/(xhi-xlo)*(w-left-right) }
	py := func(y float64) float64 { return h - bottom - (y-ylo)/(yhi-ylo)*(h-top-bottom) }
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="12">`+"\n", w, h)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="white"/>`+"\n", w, h)
	fmt.Fprintf(&b, `<text x="%d" y="22" font-size="15" font-weight="bold">%s</text>`+"\n", left, escape(title))
	for _, t := range xt {
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#ddd"/><text x="%.1f" y="%d" text-anchor="middle">%s</text>`+"\n",
			px(t), top, px(t), h-bottom, px(t), h-bottom+18, figures.FormatTick(t))
	}
	for _, t := range yt {
		fmt.Fprintf(&b, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#ddd"/><text x="%d" y="%.1f" text-anchor="end">%s</text>`+"\n",
			left, py(t), w-right, py(t), left-6, py(t)+4, figures.FormatTick(t))
	}
	fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="black"/>`+"\n", left, top, w-left-right, h-top-bottom)
	fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="middle">%s</text>`+"\n", (left+w-right)/2, h-12, escape(xlabel))
	fmt.Fprintf(&b, `<text transform="translate(18 %d) rotate(-90)" text-anchor="middle">%s</text>`+"\n", (top+h-bottom)/2, escape(ylabel))
	for k, s := range lines {
		var pts []string
		for i := range s.X {
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", px(s.X[i]), py(s.Y[i])))
		}
		dash := ""
		if s.Dashed {
			dash = ` stroke-dasharray="6 4"`
		}
		fmt.Fprintf(&b, `<polyline points="%s" fill="none" stroke="%s" stroke-width="2"%s/>`+"\n", strings.Join(pts, " "), s.Colour, dash)
		if len(s.X) < 30 {
			for i := range s.X {
				b.WriteString(marker(s.Marker, px(s.X[i]), py(s.Y[i]), s.Colour))
			}
			b.WriteString("\n")
		}
		ly := top + 10 + k*20
		fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="2"%s/><text x="%d" y="%d">%s</text>`+"\n",
			w-right+10, ly, w-right+34, ly, s.Colour, dash, w-right+40, ly+4, escape(s.Name))
		if len(s.X) < 30 {
			b.WriteString(marker(s.Marker, float64(w-right+22), float64(ly), s.Colour) + "\n")
		}
	}
	b.WriteString("</svg>\n")
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

// escape escapes text for SVG.
func escape(s string) string { return figures.Escape(s) }
