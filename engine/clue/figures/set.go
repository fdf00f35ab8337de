package figures

import (
	"fmt"

	"github.com/deltaclue/deltaclue/engine/clue"
)

// SetFigures is the SVG of a set's two figures as the page shows them: the trade-off plot and the latent map
// (the δ-ball seen along the set's two principal directions around z0, with a traced path if one is given). The
// page's summary worker and the CLI make them with this one function, so that both show the same. names are the classes' (nil: the numbers of classes many).
func SetFigures(exps []clue.Explanation, classes int, names []string, z0 []float32, p clue.Params, path [][]float32) (tradeoff, latent string) {
	var ends [][]float32
	for _, x := range exps {
		if x.Failed == "" {
			ends = append(ends, x.Z)
		}
	}
	t := TradeoffOf(exps, classes, p.HThreshold)
	t.Names = names
	tradeoff = Tradeoff(t)

	plane := clue.PrincipalPlane(z0, ends)
	var mp []MapPoint
	for _, x := range exps {
		if x.Failed != "" || x.Start == nil {
			continue
		}
		mp = append(mp, MapPoint{Restart: x.Restart, Label: x.Label, Start: plane.Project(x.Start), End: plane.Project(x.Z), Accepted: x.Accepted})
	}
	var projected [][2]float64
	for _, z := range path {
		projected = append(projected, plane.Project(z))
	}
	latent = LatentMap(LatentMapChart{Radius: p.Delta, Points: mp, Path: projected, Selected: -1,
		Axes:  [2]string{fmt.Sprintf("PC1 (%.0f %%)", 100*plane.Explained[0]), fmt.Sprintf("PC2 (%.0f %%)", 100*plane.Explained[1])},
		Title: fmt.Sprintf("The δ-ball (δ = %g) seen from above", p.Delta), Names: names})
	return tradeoff, latent
}
