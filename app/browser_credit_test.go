//go:build !js

package app

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/engine/clue/kind"
	"github.com/deltaclue/deltaclue/engine/clue/sharelink"
	drive "github.com/deltaclue/deltaclue/internal/browser"
	"github.com/deltaclue/deltaclue/internal/modelsource"
	"github.com/deltaclue/deltaclue/weights"
)

// creditNative runs a credit link's search on the native engine: its set and summary, and the row it explains.
func creditNative(t *testing.T, link string) ([]clue.Explanation, clue.Summary, []float32, weights.Columns) {
	t.Helper()
	return rowsNative(t, "credit", link)
}

// rowsNative runs a link's search on the native engine with the named models of rows.
func rowsNative(t *testing.T, models, link string) ([]clue.Explanation, clue.Summary, []float32, weights.Columns) {
	t.Helper()
	_, frag, _ := strings.Cut(link, "#")
	s, err := sharelink.Decode(frag)
	if err != nil {
		t.Fatal(err)
	}
	credit, err := modelsource.Open(models)
	if err != nil {
		t.Fatal(err)
	}
	m, err := clue.LoadBundle(credit.Bundle)
	if err != nil {
		t.Fatal(err)
	}
	cols := credit.Description().Input.Columns
	x0 := kind.Table{Columns: cols}.Carried(s.Image)
	if x0 == nil {
		t.Fatalf("the link's row: %v", kind.Table{Columns: cols}.Check(s.Image))
	}
	prob, err := clue.NewProblem(m, x0)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Params.ValidateFor(m); err != nil {
		t.Fatal(err)
	}
	exps, err := clue.Search(context.Background(), prob, s.Params, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return exps, clue.Summarize(prob.X0, prob.Z0, m.BNN.Classes, s.Params, exps), x0, cols
}

// TestBrowserCredit, in Chromium, Firefox and WebKitGTK, at /repo/ and at the root, on the site as `make serve`
// builds it: the loan officer's analyst of issue 41. The credit page (its own program, fetched for its address)
// shows an applicant as a form, offers the test applicants the model is least sure of; one picked is read in the
// classes' names; Age and Marital locked, Explain gives the native engine's set bit for bit, in which every
// explanation keeps Age and Marital as they were and every column inside its range; the link carries the locks,
// and opened again (in a new page) shows them locked and gives the same set; the cards show each mode's changes
// with an arrow and a word; the sentence names the changes.
func TestBrowserCredit(t *testing.T) {
	sites := []struct{ name, repo, prefix string }{{"subpath", "repo", "/repo"}, {"root", "", ""}}
	dirs := map[string]string{"repo": buildSite(t), "": buildSiteFor(t, "")}
	for _, engine := range drive.Engines {
		t.Run(engine, func(t *testing.T) {
			br := startEngineWith(t, engine, drive.Options{Width: 1280, Height: 1000})
			for _, site := range sites {
				t.Run(site.name, func(t *testing.T) {
					srv := serveAt(dirs[site.repo], site.prefix)
					defer srv.Close()
					page := srv.URL + site.prefix + "/?models=credit"
					name := br.Engine() + " at " + site.prefix + "/"

					engineDo(t, br, "opening the credit page", func(ctx context.Context) error { return br.Navigate(ctx, page) })
					engineWait(t, br, "the workers", `window.deltaclue && window.deltaclue.ready > 0`, 2*time.Minute)
					type look struct {
						Heading, Current string
						Fields, Locks    int
						Program          []string
					}
					got := engineEval[look](t, br, `({heading: document.querySelector("#digit h2").textContent,
						current: (document.querySelector("#models-choice [aria-current=page]") || {}).textContent || "",
						fields: document.querySelectorAll(".row-field input[type=number], .row-field select").length,
						locks: document.querySelectorAll(".row-field .lock input").length,
						program: performance.getEntriesByType("resource").map((e) => new URL(e.name).pathname).filter((n) => n.endsWith("app.wasm"))})`)
					if got.Heading != "1 · Your applicant" || got.Current != "Credit" || got.Fields != 13 || got.Locks != 13 ||
						!slices.ContainsFunc(got.Program, func(n string) bool { return strings.HasSuffix(n, "/web/credit/app.wasm") }) {
						t.Errorf("%s: the credit page shows %+v: want the applicant's 13 fields, each with a lock, from the credit page's own program", name, got)
					}

					// The uncertain applicants; one picked is read in the classes' names.
					engineEval[bool](t, br, `(document.getElementById("tab-gallery").click(), true)`)
					engineWait(t, br, "the gallery", `document.querySelectorAll(".row-pick").length == 24`, time.Minute)
					engineEval[bool](t, br, `(document.querySelector(".row-pick").click(), true)`)
					label := engineWait(t, br, "the picked applicant's reading", `document.getElementById("pred-label") && document.getElementById("pred-label").textContent`, time.Minute)
					var l string
					json.Unmarshal(label, &l)
					if l != "good" && l != "bad" {
						t.Errorf("%s: a picked applicant is read as %q", name, l)
					}

					// Age and Marital locked, then Explain.
					engineEval[bool](t, br, `(document.getElementById("tab-form").click(), true)`)
					engineWait(t, br, "the form", `document.getElementById("col-3-lock") && document.getElementById("col-4-lock")`, 30*time.Second)
					engineEval[bool](t, br, `(document.getElementById("col-3-lock").click(), true)`)
					engineWait(t, br, "Age locked", `document.getElementById("col-3-lock").checked`, 30*time.Second)
					engineEval[bool](t, br, `(document.getElementById("col-4-lock").click(), true)`)
					engineWait(t, br, "Marital locked", `document.getElementById("col-4-lock").checked`, 30*time.Second)
					engineExplain(t, br, name)
					run := engineFinished(t, br, "the applicant's set")
					_, frag, _ := strings.Cut(run.Link, "#")
					s, err := sharelink.Decode(frag)
					if err != nil || s.Params.Lock != "Age,Marital" || s.Models != "credit" || !s.Params.Sparse {
						t.Fatalf("%s: the link %s: %v, locks %q, sparse %v (the default for rows)", name, run.Link, err, s.Params.Lock, s.Params.Sparse)
					}
					native, sum, x0, cols := creditNative(t, run.Link)
					sameSet(t, name+": the applicant's set against the native engine's", run.Report.Explanations, native)
					given := 0
					for _, e := range run.Report.Explanations {
						given += len(e.Reverted)
					}
					if run.Report.Summary.Accepted > 0 && given == 0 {
						t.Errorf("%s: %d sure explanations gave no change back", name, run.Report.Summary.Accepted)
					}
					sameJSON(t, name+": the set's summaries", run.Report.Summary, sum)
					tab := kind.Table{Columns: cols}
					row0 := tab.Row(x0)
					age, marital := cols.Index("Age"), cols.Index("Marital")
					for _, e := range run.Report.Explanations {
						row := tab.Row(e.Image)
						if row == nil || cols.CheckRow(row) != nil || row[age] != row0[age] || row[marital] != row0[marital] {
							t.Errorf("%s: restart %d's row %v breaks a constraint (input %v)", name, e.Restart, row, row0)
						}
					}

					// What the page says and shows of it.
					type shown struct {
						Sentence      string
						Changes, Dirs int
					}
					sh := engineWait(t, br, "the cards' changes", `document.querySelectorAll("#cards .row-changes li").length > 0 &&
						({sentence: window.deltaclue.sentence, changes: document.querySelectorAll("#cards .row-changes li").length,
						dirs: document.querySelectorAll("#cards .row-changes .dir").length})`, time.Minute)
					var v shown
					json.Unmarshal(sh, &v)
					if !strings.Contains(v.Sentence, "whether this applicant is") || (run.Report.Summary.Accepted > 0 && !strings.Contains(v.Sentence, " if ")) ||
						strings.Contains(v.Sentence, "Age ") || strings.Contains(v.Sentence, "Marital ") {
						t.Errorf("%s: the sentence %q", name, v.Sentence)
					}
					if v.Dirs == 0 && v.Changes > 0 && !strings.Contains(engineEval[string](t, br, `document.querySelector("#cards .row-changes").textContent`), "no change") {
						t.Errorf("%s: the cards' changes have no direction in words", name)
					}

					// The set's downloads, as `deltaclue explain` writes them for a row: set.csv with the columns by name,
					// explain.json with the input's and each explanation's row as {column: value}.
					engineEval[bool](t, br, `(() => { window.__blobs = {}; const orig = URL.createObjectURL;
						URL.createObjectURL = (b) => { const u = orig.call(URL, b); b.text().then((t) => { window.__blobs[b.type] = t; }); return u; }; return true; })()`)
					engineClick(t, br, "download-csv")
					csvText := engineWait(t, br, "the CSV download", `window.__blobs["text/csv"]`, 30*time.Second)
					engineClick(t, br, "download-json")
					jsText := engineWait(t, br, "the JSON download", `window.__blobs["application/json"]`, 30*time.Second)
					var csvBody, jsBody string
					json.Unmarshal(csvText, &csvBody)
					json.Unmarshal(jsText, &jsBody)
					if head, _, _ := strings.Cut(csvBody, "\n"); !strings.HasSuffix(head, strings.Join(cols.Names(), ",")) || strings.Count(csvBody, "\n") != len(native)+1 {
						t.Errorf("%s: the set's CSV starts %q and has %d lines", name, head, strings.Count(csvBody, "\n"))
					}
					var file struct {
						Row          map[string]any
						Explanations []struct{ Row map[string]any }
					}
					if err := json.Unmarshal([]byte(jsBody), &file); err != nil || file.Row["Marital"] != cols[marital].Format(row0[marital]) ||
						len(file.Explanations) != len(native) || file.Explanations[0].Row["Age"] != row0[age] {
						t.Errorf("%s: the set's JSON: %v; row %v", name, err, file.Row)
					}

					// The sweep on the applicant: each radius's set, and the reach of each label as the row it changes.
					engineEval[bool](t, br, `(() => { for (const [id, v] of [["sweep-radii", "1, 2, 3"], ["sweep-n", "20"]]) {
						const el = document.getElementById(id); el.value = v; el.dispatchEvent(new Event("change", {bubbles: true})); } return true; })()`)
					engineClick(t, br, "sweep-run")
					// (Each reach's row is drawn in the frame after the sweep's render: wait for them.)
					sweep := engineWait(t, br, "the sweep", `!document.getElementById("download-sweep").disabled && window.deltaclue.sweep && window.deltaclue.sweep.done &&
						(window.deltaclue.sweep.reaches == "[]" || document.querySelectorAll("#sweep .row-view li, #sweep .row-view dt").length > 0) &&
						({status: document.getElementById("sweep-status").textContent, reaches: window.deltaclue.sweep.reaches,
						rows: document.querySelectorAll("#sweep .row-view li, #sweep .row-view dt").length})`, 2*time.Minute)
					var sw struct {
						Status, Reaches string
						Rows            int
					}
					json.Unmarshal(sweep, &sw)
					if sw.Reaches != "[]" && sw.Rows == 0 {
						t.Errorf("%s: the sweep reaches %s, shown as no rows (status %q)", name, sw.Reaches, sw.Status)
					}

					// The link opened anew: the locks shown, the same set.
					engineDo(t, br, "opening the link", func(ctx context.Context) error { return br.Navigate(ctx, run.Link) })
					again := engineFinished(t, br, "the link's set")
					sameSet(t, name+": the link's set against the native engine's", again.Report.Explanations, native)
					if !engineEval[bool](t, br, `document.getElementById("col-3-lock").checked && document.getElementById("col-4-lock").checked && !document.getElementById("col-5-lock").checked`) {
						t.Errorf("%s: the link's page does not show Age and Marital locked (and Records not)", name)
					}
					// A link whose row does not fit the table (Home's level 10 of 6) is refused in a sentence naming it.
					bad := s
					bad.Image = append([]uint8(nil), s.Image...)
					bad.Image[4] = 9 // Seniority's 4 bytes, then Home's level
					engineDo(t, br, "opening a damaged link", func(ctx context.Context) error { return br.Navigate(ctx, page+"#"+sharelink.Encode(bad)) })
					refused := engineWait(t, br, "the link's refusal", `document.getElementById("link-error") && document.getElementById("link-error").textContent`, 2*time.Minute)
					if !strings.Contains(string(refused), "This link cannot be opened: its Home is level 10 of 6") {
						t.Errorf("%s: a link with Home's level 10 of 6 says %s", name, refused)
					}
					t.Logf("%s: %s; %d explanations, %d accepted; %q", name, fmt.Sprint(got.Program), len(native), sum.Accepted, v.Sentence)
				})
			}
		})
	}
}

// rowHost is a page on another origin that embeds the page of a table's models (%[1]s: the site's address,
// %[2]s: the models' name), logs what the frame says (window.heard) and posts to it (window.send).
const rowHost = `<!doctype html><html><head><meta charset="utf-8"><title>host</title></head><body style="margin:0">
<iframe id="credit" src="%[1]s?models=%[2]s&amp;embed=1" style="width:760px;height:720px;border:0"></iframe>
<script>
  window.heard = [];
  const frame = document.getElementById("credit");
  window.addEventListener("message", (e) => { if (e.source === frame.contentWindow) window.heard.push(e.data); });
  window.send = (msg) => { frame.contentWindow.postMessage(msg, "*"); return true; };
  window.said = (type) => window.heard.filter((d) => d && d.type === type);
</script></body></html>`

// TestBrowserCreditEmbed, in Chromium, Firefox and WebKitGTK, at /repo/ and at the root: a host page on another
// origin embeds the credit page and sends it an applicant as {column: value} (deltaclue:row); a row with an
// unknown level and a digit are refused in sentences naming the column and deltaclue:row; the applicant's set
// comes back as deltaclue:done, with the native engine's label counts.
func TestBrowserCreditEmbed(t *testing.T) {
	credit, err := modelsource.Open("credit")
	if err != nil {
		t.Fatal(err)
	}
	cols := credit.Description().Input.Columns
	x := make([]float32, cols.Width())
	credit.Test.Float(3, x)
	r, err := cols.Unstandardise(x)
	if err != nil {
		t.Fatal(err)
	}
	rowJS, _ := json.Marshal(cols.ToMap(r))
	sites := []struct{ name, repo, prefix string }{{"subpath", "repo", "/repo"}, {"root", "", ""}}
	dirs := map[string]string{"repo": buildSite(t), "": buildSiteFor(t, "")}
	for _, engine := range drive.Engines {
		t.Run(engine, func(t *testing.T) {
			b := startEngineSized(t, engine, 800, 760)
			for _, site := range sites {
				t.Run(site.name, func(t *testing.T) {
					srv := serveAt(dirs[site.repo], site.prefix)
					defer srv.Close()
					host := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
						w.Header().Set("Content-Type", "text/html; charset=utf-8")
						fmt.Fprintf(w, rowHost, srv.URL+site.prefix+"/", "credit")
					}))
					defer host.Close()
					name := b.Engine() + " at " + site.prefix + "/"
					engineDo(t, b, "opening the host page", func(ctx context.Context) error { return b.Navigate(ctx, host.URL+"/") })
					engineWait(t, b, "the frame ready", `window.said("deltaclue:ready").length > 0`, 2*time.Minute)
					engineEval[bool](t, b, `window.send({type: "deltaclue:row", row: Object.assign(`+string(rowJS)+`, {Home: "castle"}), id: "castle"}) &&
						window.send({type: "deltaclue:digit", pixels: [0.5], id: "digit"})`)
					errs := engineWait(t, b, "the errors", `window.said("deltaclue:error").length == 2 && JSON.stringify(window.said("deltaclue:error"))`, time.Minute)
					if !strings.Contains(string(errs), `castle`) || !strings.Contains(string(errs), `Home`) || !strings.Contains(string(errs), `deltaclue:row`) {
						t.Errorf("%s: the errors %s", name, errs)
					}
					engineEval[bool](t, b, `window.send({type: "deltaclue:row", row: `+string(rowJS)+`, id: 3})`)
					if _, err := drive.WaitFor(context.Background(), b, `window.said("deltaclue:done").find((d) => d.id === 3)`, 2*time.Minute, 25*time.Millisecond); err != nil {
						t.Fatalf("%s: no set for the applicant: %v; the frame said %s", name, err, engineEval[string](t, b, `JSON.stringify(window.heard)`))
					}
					done := engineEval[json.RawMessage](t, b, `window.said("deltaclue:done").find((d) => d.id === 3)`)
					var d struct {
						Sentence string
						Link     string
					}
					json.Unmarshal(done, &d)
					if !strings.Contains(d.Sentence, "applicant") || !strings.Contains(d.Link, "models=credit") {
						t.Errorf("%s: the done message %s", name, done)
					}
					t.Logf("%s: %s", name, d.Sentence)
				})
			}
		})
	}
}
