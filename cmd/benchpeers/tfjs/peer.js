// The δ-CLUE search in TensorFlow.js (4.22.0, WASM backend), for cmd/benchpeers: the same search on the same
// weights as the engine. The page is served cross-origin isolated (COOP same-origin, COEP require-corp), so
// that SharedArrayBuffer is there and the WASM backend runs XNNPACK on ?threads=N threads (2 by default).
//
// It reads workload.bin (cmd/benchpeers/workload.go): the decoder's and the classifier's layers with float32
// tensors, the fixed MC-dropout masks, x0, z0 and every restart's start, and builds the networks from the layer
// list: images in NHWC (what TF.js's convolutions take), vectors flat in the description's channel-major order,
// converted where one meets the other. Dense layers carry their own gradient, through Wᵀ stored once (?plain=1:
// the gradient tf.matMul records, dy·Wᵀ, which the WASM backend multiplies in a naive loop, as it does every
// product with a transposed side); convolutions are tf.conv2d and tf.conv2dTranspose as they come (the latter, and
// a convolution's input gradient, run the backend's own single-threaded loop, Conv2DBackpropInput, not XNNPACK).
// The objective is the engine's: H_total of the MC-dropout predictive + λx ·
// the summed L1 distance of the decoded image to x0, all in float32 (the WASM backend has no float64). Each step
// is one batch of all n restarts: ∂cost/∂z by tf.grad, then one Adam step and the projection onto the L2 ball of
// radius δ around z0 in float64 on the page (a few thousand numbers, as the engine does them).
//
// window.peer: {ready, error, readyMs, threads, backend, isolated, simd} once set up; check() resolves to the
// first step's costs and gradients and the whole search's results, time(warm) to the cold search's and the warm
// ones' times, profile() to one step's kernels and their times (to see where TF.js spends a step).
"use strict";

(() => {
	const peer = {ready: false, error: ""};
	window.peer = peer;
	const query = new URLSearchParams(location.search);
	const threads = Number(query.get("threads") || 2);
	// plain=1: dense layers as tf.matMul alone, whose recorded gradient (dy·Wᵀ, a transposed product) takes the WASM
	// backend's naive loop; by default they carry a gradient through Wᵀ stored once, which XNNPACK runs.
	const plain = query.get("plain") === "1";
	// TF.js's WASM backend caps its threads at navigator.hardwareConcurrency / 2 (it takes every core for two
	// hyper-threads: backend.cc's init_with_threads_count), which is 1 on a 2-core machine whatever
	// setThreadsCount asks. The page reports twice the threads asked for, so that it runs them.
	peer.hardwareConcurrency = navigator.hardwareConcurrency;
	Object.defineProperty(navigator, "hardwareConcurrency", {get: () => 2 * threads, configurable: true});

	function parse(buf) {
		const bytes = new Uint8Array(buf);
		if (new TextDecoder().decode(bytes.subarray(0, 8)) !== "DCPEERS1") throw new Error("workload.bin is not a workload file");
		const n = new DataView(buf).getUint32(8, true);
		const head = JSON.parse(new TextDecoder().decode(bytes.subarray(12, 12 + n)));
		let off = 12 + n;
		off += (4 - (off % 4)) % 4;
		const data = new Float32Array(buf, off, (buf.byteLength - off) / 4);
		const get = (ref) => data.subarray(ref.offset, ref.offset + ref.shape.reduce((a, b) => a * b, 1));
		return {head, get};
	}

	// An image [batch, c·h·w] (channel-major) as NHWC, or a vector [batch, c·h·w] from an NHWC image.
	function toNHWC(x, shape) {
		if (x.rank === 4) return x;
		return x.reshape([x.shape[0], shape[0], shape[1], shape[2]]).transpose([0, 2, 3, 1]);
	}
	function toFlat(x) {
		if (x.rank === 2) return x;
		return x.transpose([0, 3, 1, 2]).reshape([x.shape[0], -1]);
	}
	function pad(p) {
		return p[0] === p[1] ? p[0] : [[0, 0], [p[0], p[0]], [p[1], p[1]], [0, 0]];
	}

	// network builds a network of the workload as a function of a batch [batch, ...]: the layers after a dropout
	// layer run once per MC sample on [K·batch, ...], sample-major (row k·batch + i is sample k of point i).
	function network(spec, get, k) {
		const layers = spec.layers.map((l) => {
			const L = Object.assign({}, l);
			switch (l.op) {
				case "dense": {
					const w = tf.tensor2d(get(l.w), l.w.shape), b = tf.tensor1d(get(l.b));
					if (plain) {
						L.apply = (x) => tf.add(tf.matMul(x, w), b);
						break;
					}
					// The WASM backend runs a product through XNNPACK only when neither side is transposed; the
					// gradient of x·W is dy·Wᵀ, so Wᵀ is stored once and the gradient multiplies by it.
					const wT = tf.tidy(() => w.transpose());
					L.apply = tf.customGrad((x) => ({value: tf.add(tf.matMul(x, w), b), gradFunc: (dy) => tf.matMul(dy, wT)}));
					break;
				}
				case "conv2d":
				case "conv-transpose2d": // [out, in, kh, kw] or [in, out, kh, kw] → [kh, kw, in, out] or [kh, kw, out, in]
					L.w = tf.tidy(() => tf.tensor4d(get(l.w), l.w.shape).transpose([2, 3, 1, 0]));
					L.b = tf.tensor1d(get(l.b));
					break;
				case "dropout":
					L.mask = tf.tensor3d(get(l.mask), [l.mask.shape[0], 1, l.mask.shape[1]]);
					break;
				case "flatten": case "reshape": case "relu": case "leaky-relu": case "sigmoid": case "tanh":
					break;
				default:
					throw new Error(`layer ${l.op} is not implemented here`);
			}
			return L;
		});
		return (x) => {
			const batch = x.shape[0];
			let expanded = false;
			for (const l of layers) {
				switch (l.op) {
					case "dense":
						x = l.apply(toFlat(x));
						break;
					case "conv2d":
						x = tf.add(tf.conv2d(toNHWC(x, l.in), l.w, l.stride, pad(l.padding)), l.b);
						break;
					case "conv-transpose2d": {
						const [, h, w] = l.in;
						const op = l.output_padding || [0, 0];
						const ho = (h - 1) * l.stride[0] - 2 * l.padding[0] + l.kernel[0] + op[0];
						const wo = (w - 1) * l.stride[1] - 2 * l.padding[1] + l.kernel[1] + op[1];
						x = tf.add(tf.conv2dTranspose(toNHWC(x, l.in), l.w, [x.shape[0], ho, wo, l.out], l.stride, pad(l.padding)), l.b);
						break;
					}
					case "flatten":
					case "reshape": // flat and channel-major: the next image layer reads it as its input's shape
						x = toFlat(x);
						break;
					case "relu":
						x = tf.relu(x);
						break;
					case "leaky-relu":
						x = tf.leakyRelu(x, l.slope);
						break;
					case "sigmoid":
						x = tf.sigmoid(x);
						break;
					case "tanh":
						x = tf.tanh(x);
						break;
					case "dropout": {
						const [kk, , width] = l.mask.shape;
						const v = l.per_channel ? toNHWC(x, l.in) : toFlat(x);
						const rest = v.shape.slice(1);
						x = (expanded ? v.reshape([kk, -1, width]) : v.reshape([1, -1, width])).mul(l.mask).reshape([k * batch, ...rest]);
						expanded = true;
						break;
					}
				}
			}
			return toFlat(x);
		};
	}

	function setup(head, get) {
		const s = head.search;
		const k = head.classifier.samples;
		const ensemble = head.classifier.uncertainty === "ensemble";
		const decoder = network(head.decoder, get, 1);
		const nets = head.classifier.networks.map((n) => network(n, get, k));
		const x0 = tf.tensor2d(get(head.x0), [1, head.x0.shape.reduce((a, b) => a * b, 1)]);
		const d = head.latent;
		const starts = get(head.starts);
		const z0 = get(head.z0);

		function objective(z) {
			const out = decoder(z);
			const image = head.bernoulli ? tf.sigmoid(out) : out;
			const logits = ensemble ? tf.concat(nets.map((n) => n(image)), 0) : nets[0](image);
			const b = z.shape[0];
			const lp = tf.logSoftmax(logits.reshape([k, b, head.classes]));
			const pbar = tf.mean(tf.exp(lp), 0);
			const h = tf.neg(tf.sum(tf.mul(pbar, tf.log(tf.maximum(pbar, 1e-30))), -1));
			const distance = tf.sum(tf.abs(tf.sub(image, x0)), -1);
			return {cost: tf.add(tf.mul(h, s.w_total), tf.mul(distance, s.lambda_x)), h, pbar};
		}
		const gradient = tf.grad((z) => objective(z).cost.sum());

		// run is the search: Steps Adam updates of every restart from its start, each projected onto the ball.
		function run() {
			const n = s.n;
			const z = Float64Array.from(starts);
			const m = new Float64Array(n * d), v = new Float64Array(n * d);
			let b1t = 1, b2t = 1;
			for (let t = 0; t < s.steps; t++) {
				const g = tf.tidy(() => gradient(tf.tensor2d(Float32Array.from(z), [n, d])));
				const gd = g.dataSync();
				g.dispose();
				b1t *= s.beta1;
				b2t *= s.beta2;
				for (let i = 0; i < n * d; i++) {
					m[i] = s.beta1 * m[i] + (1 - s.beta1) * gd[i];
					v[i] = s.beta2 * v[i] + (1 - s.beta2) * gd[i] * gd[i];
					z[i] -= s.learning_rate * (m[i] / (1 - b1t)) / (Math.sqrt(v[i] / (1 - b2t)) + s.eps);
				}
				for (let r = 0; r < n; r++) {
					let ss = 0;
					for (let j = 0; j < d; j++) ss += (z[r * d + j] - z0[j]) * (z[r * d + j] - z0[j]);
					const rho = Math.sqrt(ss);
					if (rho > s.delta) for (let j = 0; j < d; j++) z[r * d + j] = z0[j] + (s.delta * (z[r * d + j] - z0[j])) / rho;
				}
			}
			const zf = Float32Array.from(z);
			const res = tf.tidy(() => {
				const o = objective(tf.tensor2d(zf, [n, d]));
				return [o.cost, o.h, tf.argMax(o.pbar, -1)];
			});
			const [cost, h, labels] = res.map((t) => Array.from(t.dataSync()));
			res.forEach((t) => t.dispose());
			const finalZ = [];
			for (let r = 0; r < n; r++) finalZ.push(Array.from(zf.subarray(r * d, (r + 1) * d)));
			return {finalZ, cost, h, labels};
		}

		function firstStep() {
			const c = head.checks;
			const z = tf.tensor2d(starts.subarray(0, c * d), [c, d]);
			const cost = tf.tidy(() => objective(z).cost);
			const g = gradient(z);
			const costs = Array.from(cost.dataSync()), gd = g.dataSync();
			[z, cost, g].forEach((t) => t.dispose());
			const grads = [];
			for (let r = 0; r < c; r++) grads.push(Array.from(gd.subarray(r * d, (r + 1) * d)));
			return {costs, grads};
		}
		// profile times the kernels of one step at the starts (tf.profile), summed by kernel, the slowest first.
		async function profile() {
			const z = tf.tensor2d(starts, [s.n, d]);
			const info = await tf.profile(() => tf.tidy(() => gradient(z)).dispose());
			z.dispose();
			const by = {};
			for (const k of info.kernels) {
				const e = (by[k.name] = by[k.name] || {name: k.name, calls: 0, ms: 0});
				e.calls++;
				e.ms += k.kernelTimeMs;
			}
			return Object.values(by).sort((a, b) => b.ms - a.ms);
		}
		return {run, firstStep, profile};
	}

	const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;

	(async () => {
		tf.wasm.setWasmPaths(new URL("lib/wasm/", location.href).href);
		tf.wasm.setThreadsCount(threads);
		if (!(await tf.setBackend("wasm"))) throw new Error("the WASM backend did not start");
		await tf.ready();
		const buf = await (await fetch("workload.bin", {cache: "no-store"})).arrayBuffer();
		const {head, get} = parse(buf);
		const search = setup(head, get);
		Object.assign(peer, {
			readyMs: performance.now(),
			threads: tf.wasm.getThreadsCount(),
			backend: `TF.js ${tf.version.tfjs}, ${tf.getBackend()}`,
			plain,
			isolated: self.crossOriginIsolated === true,
			simd: await tf.env().getAsync("WASM_HAS_SIMD_SUPPORT"),
			multithread: await tf.env().getAsync("WASM_HAS_MULTITHREAD_SUPPORT"),
			check: async () => {
				const first = search.firstStep();
				const r = search.run();
				return {first_cost: first.costs, first_grad: first.grads, final_z: r.finalZ, final_cost: r.cost, final_h: r.h, labels: r.labels};
			},
			profile: () => search.profile(),
			time: async (warm) => {
				const runs = [];
				for (let i = 0; i <= warm; i++) {
					const t = performance.now();
					const r = search.run();
					runs.push({ms: performance.now() - t, mean_cost: mean(r.cost)});
					await new Promise((resolve) => setTimeout(resolve, 0));
				}
				return {ready_ms: peer.readyMs, cold: runs[0], warm: runs.slice(1), threads: peer.threads, backend: peer.backend};
			},
		});
		peer.ready = true;
	})().catch((e) => {
		peer.error = String((e && e.stack) || e);
	});
})();
