// run.mjs: one ONNX graph through onnxruntime-web (its WebAssembly backend, one thread) under Node, for
// internal/ortnode. argv: the npm folder, the model, the input (raw little-endian float32), its dims
// ("8,1,28,28"), the output file. Writes the first output's values there (raw float32) and prints its dims as
// JSON; any failure is one line on stderr and exit status 1.
import { createRequire } from "node:module";
import { readFileSync, writeFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
const [dir, model, input, dims, output] = process.argv.slice(-5);
try {
  const ort = await import(pathToFileURL(createRequire(dir + "/").resolve("onnxruntime-web")).href);
  ort.env.wasm.numThreads = 1;
  const s = await ort.InferenceSession.create(readFileSync(model));
  const b = readFileSync(input);
  const x = new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.length));
  const out = await s.run({ [s.inputNames[0]]: new ort.Tensor("float32", x, dims.split(",").map(Number)) });
  const y = out[s.outputNames[0]];
  if (y.type !== "float32") throw new Error(`the output is ${y.type}, not float32`);
  writeFileSync(output, new Uint8Array(y.data.buffer, y.data.byteOffset, y.data.byteLength));
  console.log(JSON.stringify(y.dims));
} catch (e) {
  console.error(String(e && e.message ? e.message : e).split("\n")[0]);
  process.exit(1);
}
