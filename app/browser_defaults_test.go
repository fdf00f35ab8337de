//go:build !js

package app

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/engine/clue/sharelink"
	"github.com/deltaclue/deltaclue/internal/modelsource"
	"github.com/deltaclue/deltaclue/internal/testbundle"
	"github.com/deltaclue/deltaclue/weights"
)

// TestBrowserModelsDefaults, in Chromium: a site for models whose description gives search defaults (the grey
// test CNN with δ 3.5, λx 0.004 and a threshold of 0.5 nats) opens with them in the form; parameters asked for
// many times their work offer "Use the defaults", which puts the models' back, not the digits'; a link made for
// the models opens with its own parameters, every one of which it carries.
func TestBrowserModelsDefaults(t *testing.T) {
	chrome := findChrome(t)
	grey, err := testbundle.Grey(1)
	if err != nil {
		t.Fatal(err)
	}
	d := *grey.Description
	delta, lambda, h := 3.5, 0.004, 0.5
	d.Format, d.Search = 2, &weights.SearchDefaults{Delta: &delta, LambdaX: &lambda, HThreshold: &h}
	desc, err := json.Marshal(&d)
	if err != nil {
		t.Fatal(err)
	}
	files, err := weights.DecodeBundle(grey.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	for i := range files {
		if files[i].Name == weights.DescriptionFile {
			files[i].Data = desc
		}
	}
	bundle := weights.EncodeBundle(files)
	folder := filepath.Join(t.TempDir(), "grey")
	if err := modelsource.WriteDir(folder, bundle, grey.Items(30, 5)); err != nil {
		t.Fatal(err)
	}
	b, err := weights.OpenBundleFiles(bundle, false)
	if err != nil {
		t.Fatal(err)
	}
	srv := serve(buildModelsSite(t, folder, "repo"))
	defer srv.Close()
	ctx := browser(t, chrome)

	form := `["delta", "lambda_x", "h_threshold", "n", "max_steps"].map((k) => document.getElementById("p-" + k).value).join(" ")`
	do(t, ctx, chromedp.Navigate(srv.URL+"/repo/"))
	waitFor(t, ctx, "the form", `document.getElementById("p-delta")`, time.Minute)
	waitFor(t, ctx, "the page's program", `window.deltaclue && window.deltaclue.ready > 0`, 2*time.Minute)
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](form+` == "3.5 0.004 0.5 100 100"`, chromedp.WithPollingTimeout(30*time.Second))); err != nil {
		t.Errorf("the page opens with δ, λx, threshold, n, max steps = %s: want the models' 3.5 0.004 0.5 and the digits' n and steps", eval[string](t, ctx, form))
	}

	// Twenty times the steps: the page offers the defaults, the models'.
	setValue(t, ctx, "p-delta", "1")
	setValue(t, ctx, "p-max_steps", "2000")
	after := waitText(t, ctx, "costly-after", 30*time.Second)
	do(t, ctx, chromedp.Click(chromedp.ID("use-defaults")))
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](form+` == "3.5 0.004 0.5 100 100"`, chromedp.WithPollingTimeout(15*time.Second))); err != nil {
		t.Errorf("after %q and Use the defaults, the form holds %s: want the models' defaults", after, eval[string](t, ctx, form))
	}

	// A link for the models carries every parameter: the digits' here.
	in := d.Input
	x0 := grey.Items(1, 9).Float(0, nil)
	p := clue.Defaults()
	p.N, p.MaxSteps = 12, 30
	link := sharelink.Encode(sharelink.State{Models: d.Name, Model: b.Fingerprint(), Height: in.Height, Width: in.Width, Channels: in.Channels,
		Image: sharelink.Quantize(x0), Params: p, Selected: sharelink.NoSelection})
	do(t, ctx, chromedp.Navigate(srv.URL+"/repo/?v=2#"+link))
	waitFor(t, ctx, "the link's run", `window.deltaclue && window.deltaclue.state == "done"`, 2*time.Minute)
	want := fmt.Sprintf("%g %g %g %d %d", p.Delta, p.LambdaX, p.HThreshold, p.N, p.MaxSteps)
	if got := eval[string](t, ctx, form); got != want {
		t.Errorf("the link opens with %s, want its own %s", got, want)
	}
}
