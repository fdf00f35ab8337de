// bench.js (the page): starts the benchmark in one dedicated Web Worker (bench-worker.js, which runs
// bench.wasm, built from wasm/bench), shows its log, and stores its result, parsed, in globalThis.benchResult
// (or an error message in globalThis.benchError). cmd/browserbench polls for either.
"use strict";

globalThis.benchLog = [];
const status = document.getElementById("status");
const log = document.getElementById("log");
const worker = new Worker(new URL("bench-worker.js", document.currentScript.src));

function fail(msg) {
	globalThis.benchError = msg;
	status.textContent = "error: " + msg;
}

worker.onmessage = (ev) => {
	const m = ev.data;
	switch (m.type) {
	case "log":
		globalThis.benchLog.push(m.text);
		log.textContent += m.text + "\n";
		break;
	case "status":
		status.textContent = m.text;
		break;
	case "result":
		globalThis.benchResult = JSON.parse(m.json);
		document.getElementById("result").textContent = JSON.stringify(globalThis.benchResult, null, 2);
		status.textContent = "done";
		break;
	case "error":
		fail(m.error);
		break;
	default:
		fail("unexpected message from the worker: " + JSON.stringify(m));
	}
};
worker.onerror = (ev) => fail("worker error: " + (ev.message || ev.type));
