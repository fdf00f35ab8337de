//go:build !js

package app

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	drive "github.com/deltaclue/deltaclue/internal/browser"
	"github.com/deltaclue/deltaclue/internal/ortnode"
	"github.com/deltaclue/deltaclue/internal/testenv"
)

// TestBrowserImportedModel, in Chromium, Firefox and WebKitGTK, at /repo/ and at the root: the PyTorch example
// (examples/pytorch: a small MC-dropout CNN, a small ResNet — residual blocks with skip connections and
// BatchNorm, a graph — and a conv VAE trained on Fashion-MNIST with Debian's torch, exported to ONNX) goes
// through `deltaclue import` and `cmd/site -models`, one site per classifier, and each site explains one of its
// own uncertain test images: the gallery, the model's reading and the sentence speak of its classes, and the
// global view the import measured shows its groups.
func TestBrowserImportedModel(t *testing.T) {
	py := testenv.Python(t, "the imported model's site is not tested", "torch", "onnx")
	testenv.ONNXRuntime(t, "..", "the imported model's site is not tested")
	tmp := t.TempDir()
	ex := filepath.Join(tmp, "pytorch")
	start := time.Now()
	if b, err := exec.Command(py, "../examples/pytorch/train_export.py", ex, "--train", "600", "--test", "120", "--epochs", "15", "--vae-epochs", "15",
		"--resnet", "--resnet-epochs", "6", "--threads", "1").CombinedOutput(); err != nil {
		t.Fatalf("the PyTorch example: %v\n%s", err, b)
	}
	classes := []string{"T-shirt or top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt", "Sneaker", "Bag", "Ankle boot"}
	type site struct{ name, repo, prefix string }
	sites := []site{{"subpath", "repo", "/repo"}, {"root", "", ""}}
	type model struct{ name, onnx, dropout string }
	models := []model{{"clothes", "clf.onnx", "/fc2/Gemm=0.3"}, {"clothes-resnet", "clf_resnet.onnx", "/fc/Gemm=0.3"}}
	dirs := map[string]string{} // by model and site
	global := map[string]bool{} // whether the import found groups for the global view
	for _, m := range models {
		out := filepath.Join(tmp, m.name)
		cmd := exec.Command("go", "run", "./cmd/deltaclue", "import", "-classifier", filepath.Join(ex, m.onnx), "-dropout", m.dropout,
			"-encoder", filepath.Join(ex, "enc.onnx"), "-decoder", filepath.Join(ex, "dec.onnx"), "-data", filepath.Join(ex, "train"),
			"-test", filepath.Join(ex, "test"), "-classes", strings.Join(classes, ","), "-title", "Clothes (a PyTorch example)",
			"-max-uncertain", "60", "-min-members", "2", "-onnxruntime", ortnode.DefaultDir, "-out", out)
		cmd.Dir = ".."
		b, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("deltaclue import of %s: %v\n%s", m.onnx, err, b)
		}
		t.Logf("deltaclue import of %s:\n%s", m.onnx, b)
		_, err = os.Stat(filepath.Join(out, "groups.json"))
		global[m.name] = err == nil
		for _, s := range sites {
			dirs[m.name+"/"+s.repo] = buildModelsSite(t, out, s.repo)
		}
	}
	t.Logf("trained, exported and imported in %s", time.Since(start).Round(time.Second))
	for _, engine := range drive.Engines {
		t.Run(engine, func(t *testing.T) {
			br := startEngineWith(t, engine, drive.Options{Width: 1280, Height: 1600})
			for _, m := range models {
				for _, s := range sites {
					t.Run(m.name+"/"+s.name, func(t *testing.T) {
						srv := serveAt(dirs[m.name+"/"+s.repo], s.prefix)
						defer srv.Close()
						checkImportedSite(t, br, srv.URL+s.prefix+"/", m.name+" in "+br.Engine()+" at "+s.prefix+"/", classes, global[m.name])
					})
				}
			}
		})
	}
}

// checkImportedSite opens an imported model's site at url and explains the first item of its gallery: the
// model's reading and the sentence name its classes, and the global view, where the import found groups, shows a
// group of two of them (where it found none, the page has no such section).
func checkImportedSite(t *testing.T, br drive.Browser, url, name string, classes []string, global bool) {
	engineDo(t, br, "opening the site", func(ctx context.Context) error { return br.Navigate(ctx, url) })
	// Photos first: the gallery of the items the model is least sure of is the first tab.
	engineWait(t, br, "the gallery", `document.querySelectorAll(".thumb img").length == 24`, time.Minute)
	engineEval[bool](t, br, `(document.querySelector(".thumb").click(), true)`)
	engineWait(t, br, "the model's reading", `document.getElementById("pred-label") && !document.getElementById("run").disabled`, time.Minute)
	engineExplain(t, br, name) // a ResNet's search may take over 10 s in a slow engine on a busy machine: the page asks
	run := engineFinished(t, br, "the imported model's set")
	type look struct{ Label, Sentence, Title string }
	got := engineEval[look](t, br, `({label: document.getElementById("pred-label").textContent,
		sentence: document.getElementById("sentence").textContent, title: document.title})`)
	named := 0
	for _, c := range classes {
		if strings.Contains(strings.ToLower(got.Sentence), strings.ToLower(c)) {
			named++
		}
	}
	if !contains(classes, got.Label) || !strings.HasPrefix(got.Sentence, "The model reads") || named == 0 || len(run.Report.Explanations) == 0 {
		t.Errorf("%s: the imported model's page reads %q and says %q (%d explanations): want one of its classes and a sentence naming them",
			name, got.Label, got.Sentence, len(run.Report.Explanations))
	}
	b, _ := json.Marshal(got)
	if !global {
		if engineEval[bool](t, br, `document.getElementById("global-load") != null`) {
			t.Errorf("%s: the page offers a global view the import did not measure", name)
		}
		t.Logf("%s: %d explanations; %s; no global view (the import found no groups)", name, len(run.Report.Explanations), b)
		return
	}
	// The global view the import measured: its groups, a → b in the classes' names.
	engineEval[bool](t, br, `(() => { const b = document.getElementById("global-load"); b.scrollIntoView(); b.click(); return true; })()`)
	engineWait(t, br, "the global view's groups", `document.querySelectorAll("#global .group").length > 0`, 30*time.Second)
	group := engineEval[string](t, br, `document.querySelector("#global .group-name").textContent`)
	if from, to, ok := strings.Cut(group, " → "); !ok || !contains(classes, from) || !contains(classes, to) {
		t.Errorf("%s: the global view's first group is %q, want two of the classes", name, group)
	}
	t.Logf("%s: %d explanations; %s; the global view's first group %q", name, len(run.Report.Explanations), b, group)
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
