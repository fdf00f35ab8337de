//go:build imagesonly || denseonly

package app

import (
	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/deltaclue/deltaclue/wasm/worker/searchworker"
)

// The page built for classifiers of images has no regression (regression.go).

func regressionView(*searchworker.Inspection, float64) app.UI { return nil }

func explanationBand(string, *float32, float32, float64) app.UI { return nil } // (no regression: never called)
