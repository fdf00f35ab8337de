//go:build !js

package searchworker

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// yieldScript loads web/worker.js into Node with the worker's globals stubbed, then makes 30 yields one after
// another through self.deltaclueYield, with the MessageChannel or the timer made slow (300 ms) as the first
// argument says, and prints "wakes=N worst=MS extra=E": the wakes, the longest yield, and any wake beyond one
// per yield (counted until every slow message and timer has been delivered).
const yieldScript = `
const [slow, script] = process.argv.slice(-2);
const realTimeout = setTimeout, realClear = clearTimeout;
if (slow === "channel") { // as WebKit, which carries a MessagePort's messages through the page's main thread
	globalThis.MessageChannel = class {
		constructor() {
			this.port1 = { onmessage: null };
			const port1 = this.port1;
			this.port2 = { postMessage: (data) => realTimeout(() => port1.onmessage && port1.onmessage({ data }), 300) };
		}
	};
}
if (slow === "timer") {
	globalThis.setTimeout = (f, ms, ...args) => realTimeout(f, 300, ...args);
}
globalThis.self = globalThis;
globalThis.importScripts = () => {};
globalThis.addEventListener = () => {};
require("vm").runInThisContext(require("fs").readFileSync(script, "utf8"), { filename: script });
let wakes = 0, worst = 0;
const once = () => new Promise((resolve) => {
	const t = performance.now();
	self.deltaclueYield(() => { wakes++; worst = Math.max(worst, performance.now() - t); resolve(); });
});
(async () => {
	for (let i = 0; i < 30; i++) await once();
	const n = wakes;
	await new Promise((r) => realTimeout(r, 700)); // every loser of a race arrives by now
	console.log("wakes=" + n + " worst=" + Math.round(worst) + " extra=" + (wakes - n));
	process.exit(0);
})();
`

// TestWorkerYieldRace: web/worker.js's deltaclueYield wakes the search exactly once per yield, on whichever of
// its channel message and its zero-delay timer comes first. So a slow channel (WebKit's) costs no more than a
// timer, a slow timer no more than a channel message, and neither loser wakes a later yield. Run in Node; it
// skips without node, unless CI=true.
func TestWorkerYieldRace(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("node not found (CI=true, so this is an error); apt-get install nodejs")
		}
		t.Skip("SKIP: node not found; apt-get install nodejs")
	}
	script, err := filepath.Abs(filepath.Join("..", "..", "..", "web", "worker.js"))
	if err != nil {
		t.Fatal(err)
	}
	for _, slow := range []string{"channel", "timer", "neither"} {
		out, err := exec.Command(node, "-e", yieldScript, "--", slow, script).CombinedOutput()
		if err != nil {
			t.Fatalf("%s slow: node: %v\n%s", slow, err, out)
		}
		var wakes, worst, extra int
		if _, err := fmt.Sscanf(strings.TrimSpace(string(out)), "wakes=%d worst=%d extra=%d", &wakes, &worst, &extra); err != nil {
			t.Fatalf("%s slow: unexpected output %q: %v", slow, out, err)
		}
		// 300 ms is the slow path; the fast one takes a few ms, or tens on a loaded machine.
		if wakes != 30 || extra != 0 || worst >= 250 {
			t.Errorf("%s slow: %d wakes for 30 yields (%d more later), the longest yield %d ms; want 30, none later, each well under the slow path's 300 ms", slow, wakes, extra, worst)
		}
	}
}
