package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/engine/clue/sharelink"
	"github.com/deltaclue/deltaclue/mnist"
	"github.com/deltaclue/deltaclue/weights"
)

// writeEmbedExample writes embed-example.html beside the page: a host page with two embedded explainers, one
// opened on a share link, one driven through the message API (docs/embed.md), with the messages it hears.
func writeEmbedExample(out string) error {
	fingerprint, err := weights.ShippedFingerprint()
	if err != nil {
		return err
	}
	set, err := mnist.HeldOut()
	if err != nil {
		return err
	}
	link := func(i int) string {
		return sharelink.Encode(sharelink.State{Image: sharelink.Quantize(set.Float(i, nil)), Params: clue.DefaultsFor(weights.DigitsDescription()), Model: fingerprint,
			Selected: sharelink.NoSelection})
	}
	eight, _ := json.Marshal(set.Float(1797, nil)) // a test digit the model is unsure of, sent as 784 intensities
	page := strings.NewReplacer("{{LINK1735}}", link(1735), "{{LINK661}}", link(661), "{{DIGIT}}", string(eight)).Replace(embedExample)
	return os.WriteFile(filepath.Join(out, "embed-example.html"), []byte(page), 0o644)
}

const embedExample = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>deltaclue embedded: an example host page</title>
<style>
  body { font: 16px/1.5 system-ui, sans-serif; max-width: 800px; margin: 0 auto; padding: 16px; color: #111827; }
  iframe { width: 100%; max-width: 760px; height: 720px; border: 1px solid #e5e7eb; border-radius: 10px; }
  button { font: inherit; padding: 4px 10px; margin: 4px 4px 4px 0; }
  pre { background: #f8fafc; border: 1px solid #e5e7eb; padding: 8px; font-size: 13px; white-space: pre-wrap; max-height: 240px; overflow: auto; }
</style>
</head>
<body>
<h1>Why is a model unsure? Two explainers on one page</h1>
<p>This page embeds the deltaclue explainer twice (docs/embed.md in the project says how).
The first frame opens a share link: a test digit the model is unsure of. The second is driven from this page
with <code>postMessage</code>; what it says back is logged under it.</p>

<h2>1. A share link</h2>
<iframe id="first" src="./?embed=1#{{LINK1735}}" title="deltaclue: test digit 1735" loading="lazy"></iframe>

<h2>2. Driven by this page</h2>
<iframe id="second" src="./?embed=1" title="deltaclue: driven by the host page" loading="lazy"></iframe>
<div>
  <button id="send-link">Open test digit 661 (deltaclue:open)</button>
  <button id="send-digit">Explain test digit 1797 as pixels (deltaclue:digit)</button>
</div>
<pre id="log" aria-live="polite"></pre>

<script>
  const second = document.getElementById("second");
  const log = (line) => { document.getElementById("log").textContent += line + "\n"; };
  const origin = new URL(second.src, location.href).origin;
  window.addEventListener("message", (event) => {
    if (event.source !== second.contentWindow || !event.data || typeof event.data.type !== "string") return;
    const m = event.data;
    if (m.type === "deltaclue:done") log("done" + (m.id ? " (" + m.id + ")" : "") + ": " + m.sentence + "  labels " + JSON.stringify(m.labels));
    else if (m.type === "deltaclue:error") log("error" + (m.id ? " (" + m.id + ")" : "") + ": " + m.reason);
    else log(m.type);
  });
  document.getElementById("send-link").onclick = () =>
    second.contentWindow.postMessage({ type: "deltaclue:open", link: "#{{LINK661}}", id: "digit 661" }, origin);
  document.getElementById("send-digit").onclick = () =>
    second.contentWindow.postMessage({ type: "deltaclue:digit", pixels: {{DIGIT}}, id: "digit 1797" }, origin);
</script>
</body>
</html>
`
