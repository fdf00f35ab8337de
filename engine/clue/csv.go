package clue

import (
	"sort"
	"strconv"
	"strings"
)

// SetCSV is a set as CSV, one row per restart in restart order: its label, whether it was accepted and
// converged, why it failed (if it did), H (total, aleatoric, epistemic), d, ρ, whether it lies on the shell, its
// cost and steps, the BNN's p̄ per class (p0, p1, …) and its latent point (z0, z1, …). Floats are written in
// the shortest form that reads back to the same float32, so the same set gives the same bytes in
// `deltaclue explain` (set.csv) and in the page's download.
func SetCSV(exps []Explanation) []byte {
	xs := append([]Explanation(nil), exps...)
	sort.SliceStable(xs, func(a, b int) bool { return xs[a].Restart < xs[b].Restart })
	classes, latent := 0, 0
	for _, x := range xs {
		classes, latent = max(classes, len(x.Probs)), max(latent, len(x.Z))
	}
	var b strings.Builder
	b.WriteString("restart,label,accepted,converged,failed,h_total,h_aleatoric,h_epistemic,distance,rho,on_shell,cost,steps")
	for k := 0; k < classes; k++ {
		b.WriteString(",p" + strconv.Itoa(k))
	}
	for k := 0; k < latent; k++ {
		b.WriteString(",z" + strconv.Itoa(k))
	}
	b.WriteString("\n")
	f := func(v float32) string { return strconv.FormatFloat(float64(v), 'g', -1, 32) }
	for _, x := range xs {
		cells := []string{strconv.Itoa(x.Restart), strconv.Itoa(x.Label), strconv.FormatBool(x.Accepted), strconv.FormatBool(x.Converged),
			csvField(x.Failed), f(x.HTotal), f(x.HAleatoric), f(x.HEpistemic), f(x.Distance), f(x.Rho), strconv.FormatBool(x.OnShell),
			f(x.Cost), strconv.Itoa(x.Steps)}
		for k := 0; k < classes; k++ {
			if k < len(x.Probs) {
				cells = append(cells, f(x.Probs[k]))
			} else {
				cells = append(cells, "")
			}
		}
		for k := 0; k < latent; k++ {
			if k < len(x.Z) {
				cells = append(cells, f(x.Z[k]))
			} else {
				cells = append(cells, "")
			}
		}
		b.WriteString(strings.Join(cells, ","))
		b.WriteString("\n")
	}
	return []byte(b.String())
}

// csvField quotes a field that holds a comma, a quote or a line break (RFC 4180).
func csvField(s string) string {
	if !strings.ContainsAny(s, ",\"\r\n") {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}
