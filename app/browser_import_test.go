//go:build !js

package app

import (
	"context"
	"encoding/json"
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
// (examples/pytorch: a small MC-dropout CNN and conv VAE trained on Fashion-MNIST with Debian's torch, exported
// to ONNX) goes through `deltaclue import` and `cmd/site -models`, and its site explains one of its own uncertain
// test images: the gallery, the model's reading and the sentence speak of its classes, and the global view the
// import measured shows its groups.
func TestBrowserImportedModel(t *testing.T) {
	py := testenv.Python(t, "the imported model's site is not tested", "torch", "onnx")
	testenv.ONNXRuntime(t, "..", "the imported model's site is not tested")
	tmp := t.TempDir()
	ex, models := filepath.Join(tmp, "pytorch"), filepath.Join(tmp, "clothes")
	start := time.Now()
	if b, err := exec.Command(py, "../examples/pytorch/train_export.py", ex, "--train", "600", "--test", "120", "--epochs", "15", "--vae-epochs", "15", "--threads", "1").CombinedOutput(); err != nil {
		t.Fatalf("the PyTorch example: %v\n%s", err, b)
	}
	classes := []string{"T-shirt or top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt", "Sneaker", "Bag", "Ankle boot"}
	cmd := exec.Command("go", "run", "./cmd/deltaclue", "import", "-classifier", filepath.Join(ex, "clf.onnx"), "-dropout", "/fc2/Gemm=0.3",
		"-encoder", filepath.Join(ex, "enc.onnx"), "-decoder", filepath.Join(ex, "dec.onnx"), "-data", filepath.Join(ex, "train"),
		"-test", filepath.Join(ex, "test"), "-classes", strings.Join(classes, ","), "-title", "Clothes (a PyTorch example)",
		"-max-uncertain", "60", "-min-members", "2", "-onnxruntime", ortnode.DefaultDir, "-out", models)
	cmd.Dir = ".."
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("deltaclue import: %v\n%s", err, b)
	}
	t.Logf("trained, exported and imported in %s", time.Since(start).Round(time.Second))
	sites := []struct{ name, repo, prefix string }{{"subpath", "repo", "/repo"}, {"root", "", ""}}
	dirs := map[string]string{}
	for _, site := range sites {
		dirs[site.repo] = buildModelsSite(t, models, site.repo)
	}
	for _, engine := range drive.Engines {
		t.Run(engine, func(t *testing.T) {
			br := startEngineWith(t, engine, drive.Options{Width: 1280, Height: 1600})
			for _, site := range sites {
				t.Run(site.name, func(t *testing.T) {
					srv := serveAt(dirs[site.repo], site.prefix)
					defer srv.Close()
					name := br.Engine() + " at " + site.prefix + "/"
					engineDo(t, br, "opening the site", func(ctx context.Context) error { return br.Navigate(ctx, srv.URL+site.prefix+"/") })
					// Photos first: the gallery of the items the model is least sure of is the first tab.
					engineWait(t, br, "the gallery", `document.querySelectorAll(".thumb img").length == 24`, time.Minute)
					engineEval[bool](t, br, `(document.querySelector(".thumb").click(), true)`)
					engineWait(t, br, "the model's reading", `document.getElementById("pred-label") && !document.getElementById("run").disabled`, time.Minute)
					engineEval[bool](t, br, `(document.getElementById("run").click(), true)`)
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
					// The global view the import measured: its groups, a → b in the classes' names.
					engineEval[bool](t, br, `(() => { const b = document.getElementById("global-load"); b.scrollIntoView(); b.click(); return true; })()`)
					engineWait(t, br, "the global view's groups", `document.querySelectorAll("#global .group").length > 0`, 30*time.Second)
					group := engineEval[string](t, br, `document.querySelector("#global .group-name").textContent`)
					if from, to, ok := strings.Cut(group, " → "); !ok || !contains(classes, from) || !contains(classes, to) {
						t.Errorf("%s: the global view's first group is %q, want two of the classes", name, group)
					}
					t.Logf("%s: %d explanations; %s; the global view's first group %q", name, len(run.Report.Explanations), b, group)
				})
			}
		})
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
