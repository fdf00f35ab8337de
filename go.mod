module github.com/deltaclue/deltaclue

go 1.26.5

require (
	github.com/chromedp/cdproto v0.159.0
	github.com/chromedp/chromedp v0.23.0
	github.com/coder/websocket v1.8.15
	github.com/gomlx/compute v0.1.2
	github.com/gomlx/gomlx v0.28.2
	github.com/gomlx/onnx-gomlx v0.5.2
	github.com/hack-pad/safejs v0.1.1
	github.com/maxence-charriere/go-app/v10 v10.1.3
	google.golang.org/protobuf v1.36.11
)

require (
	github.com/go-json-experiment/json v0.0.0-20260213210345-44df1a37e875 // indirect
	github.com/go-logr/logr v1.4.3 // indirect
	github.com/gomlx/exceptions v0.0.3 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/pkg/errors v0.9.1 // indirect
	golang.org/x/exp v0.0.0-20260410095643-746e56fc9e2f // indirect
	k8s.io/klog/v2 v2.140.0 // indirect
)
